//! Extractors that turn every malformed request into an `INVALID_REQUEST` (or `UNAUTHORIZED`,
//! with the pointer a refused token's 401 carries to the authorization server, RFC 9728)
//! answer in the API's own error shape, instead of axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::header;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::ApiError;
use crate::cluster::calls::Credential;

/// The largest request body accepted.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The address a request came from, when the listener knows it (see [`super::listener`]).
pub struct Peer(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for Peer {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Peer, Self::Rejection> {
        Ok(Peer(
            super::listener::peer(&parts.extensions).map(|a| a.ip()),
        ))
    }
}

/// What a request's `Authorization` header says of who sends it, read without judging it
/// (only the town can).
pub fn credential(headers: &axum::http::HeaderMap) -> Credential {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Credential::Missing;
    };
    let token = value.to_str().ok().and_then(|v| {
        v.strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("bearer "))
    });
    match token {
        Some(token) => Credential::Bearer(token.to_owned()),
        None => Credential::Malformed,
    }
}

/// A refused credential's 401, saying `why`, and where to find how to get a token.
pub fn unauthorized(
    why: String,
    public_url: Option<&str>,
    headers: &axum::http::HeaderMap,
    path: &str,
) -> ApiError {
    ApiError::unauthorized(why, challenge(public_url, headers, path))
}

/// What a refused token's 401 says (its `WWW-Authenticate`): where to find how to get a token
/// (RFC 9728 §5.1), as MCP hosts expect: they follow `resource_metadata` to moot's
/// authorization server. A set's own address has its own metadata (RFC 9728 §3.1); the REST
/// API points to the plain `/mcp`'s, whose token is the same.
fn challenge(
    public_url: Option<&str>,
    headers: &axum::http::HeaderMap,
    path: &str,
) -> axum::http::HeaderValue {
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok());
    let resource = path
        .strip_prefix("/mcp/")
        .and_then(crate::games::toolset_named)
        .map_or_else(|| "/mcp".to_owned(), |t| crate::games::toolset_path(&t));
    let base = moot_kernel::oauth::public_base(public_url, host);
    let value = format!(
        "Bearer realm=\"moot\", resource_metadata=\"{base}/.well-known/oauth-protected-resource{resource}\", scope=\"{}\"",
        moot_kernel::oauth::SCOPE
    );
    axum::http::HeaderValue::from_str(&value)
        .unwrap_or_else(|_| axum::http::HeaderValue::from_static("Bearer realm=\"moot\""))
}

/// A JSON body, parsed with serde; an empty body parses as `T::default()` when `T` allows it
/// (see [`OptionalBody`]).
pub struct Body<T>(pub T);

async fn bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|e| {
        if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::invalid(format!(
                "The request body is larger than {} KiB",
                BODY_LIMIT / 1024
            ))
        } else {
            ApiError::invalid(format!("Cannot read the request body: {}", e.body_text()))
        }
    })
}

/// Parses a body, [cleaning](moot_kernel::text::clean_json) every string in it first, as every face
/// does with what it is sent.
fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let invalid =
        |e: serde_json::Error| ApiError::invalid(format!("Invalid JSON body: {}", plain(&e)));
    let mut v: serde_json::Value = serde_json::from_slice(bytes).map_err(invalid)?;
    // Every body of the API is an object: serde would read an array into a struct by
    // position (`[]` made an agent, `["x"]` named one).
    if !v.is_object() {
        return Err(ApiError::invalid(
            "Invalid JSON body: it must be an object, `{...}`",
        ));
    }
    moot_kernel::text::clean_json(&mut v).map_err(|e| ApiError::invalid(e.to_string()))?;
    serde_json::from_value(v).map_err(invalid)
}

/// serde's words for what it expected, in the API's: no Rust type names (`u8`, `struct
/// CreateAgent`) reach a client.
fn plain(e: &serde_json::Error) -> String {
    let said = e.to_string();
    let Some((before, after)) = said.split_once("expected ") else {
        return said;
    };
    let (what, rest) = after
        .split_once(" at line ")
        .map_or((after, ""), |(w, r)| (w, r));
    let what = match what {
        "u8" | "u16" | "u32" | "u64" | "usize" | "i8" | "i16" | "i32" | "i64" | "isize" => {
            "a whole number"
        }
        "f32" | "f64" => "a number",
        w if w.starts_with("struct ") || w == "a map" => "an object",
        w => w,
    };
    match rest {
        "" => format!("{before}expected {what}"),
        rest => format!("{before}expected {what} at line {rest}"),
    }
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Body<T>, ApiError> {
        let b = bytes(req, state).await?;
        if b.is_empty() {
            return Err(ApiError::invalid("A JSON body is required"));
        }
        parse(&b).map(Body)
    }
}

/// Like [`Body`], but an absent body means the default.
pub struct OptionalBody<T>(pub T);

impl<T: DeserializeOwned + Default, S: Send + Sync> FromRequest<S> for OptionalBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<OptionalBody<T>, ApiError> {
        let b = bytes(req, state).await?;
        if b.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalBody(T::default()));
        }
        parse(&b).map(OptionalBody)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal<T: DeserializeOwned + std::fmt::Debug>(body: &str) -> String {
        format!("{:?}", parse::<T>(body.as_bytes()).unwrap_err())
    }

    /// A body that is no object is refused, not read into a struct by position: `[]` once made
    /// an agent; and serde's Rust names for what it expected stay out of the answer.
    #[test]
    fn a_body_must_be_an_object_and_its_refusals_name_no_rust_type() {
        assert!(parse::<super::super::CreateAgent>(b"{}").is_ok());
        for body in ["[]", "[\"x\"]", "7", "\"Ann\"", "null"] {
            let why = refusal::<super::super::CreateAgent>(body);
            assert!(why.contains("it must be an object"), "{body}: {why}");
        }
        let why =
            refusal::<super::super::SubmitAction>(r#"{"action": "x", "expected_tick": "one"}"#);
        assert!(why.contains("expected a whole number"), "{why}");
        assert!(!why.contains("u64") && !why.contains("u32"), "{why}");
        let why = refusal::<super::super::CreateAgent>(r#"{"name": 7}"#);
        assert!(why.contains("invalid type"), "{why}");
    }
}
