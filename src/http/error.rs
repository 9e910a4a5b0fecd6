//! The REST API's one error shape, `{"error": {"code", "message"}}`, with the API's stable codes.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

use moot_kernel::verbs::{ErrorKind, VerbError};
use moot_kernel::world::Unavailable;
use moot_kernel::world::sessions::{ErrorCode, HostError};

#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: ErrorCode,
    message: String,
    retry_after: Option<std::time::Duration>,
    /// A 401's `WWW-Authenticate`: where to find how to get a token.
    challenge: Option<HeaderValue>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        let status =
            StatusCode::from_u16(code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
            challenge: None,
        }
    }

    /// No valid token (401), with `challenge` as its `WWW-Authenticate`.
    pub fn unauthorized(message: impl Into<String>, challenge: HeaderValue) -> ApiError {
        ApiError {
            challenge: Some(challenge),
            ..ApiError::new(ErrorCode::Unauthorized, message)
        }
    }

    pub fn invalid(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::InvalidRequest, message)
    }

    /// A method the path does not have (405), in the same shape.
    pub fn method_not_allowed() -> ApiError {
        ApiError {
            status: StatusCode::METHOD_NOT_ALLOWED,
            code: ErrorCode::InvalidRequest,
            message: "This method is not allowed on this path; see /openapi.json".into(),
            retry_after: None,
            challenge: None,
        }
    }
}

impl From<HostError> for ApiError {
    fn from(e: HostError) -> ApiError {
        let mut a = ApiError::new(e.code, e.message);
        a.retry_after = e.retry_after;
        a
    }
}

/// A verb's refusal: the host's own code where the host refused, else the code that says the
/// same of the verb's kind.
impl From<VerbError> for ApiError {
    fn from(e: VerbError) -> ApiError {
        let code = e.host.unwrap_or(match e.kind {
            ErrorKind::Usage => ErrorCode::InvalidRequest,
            ErrorKind::NotFound => ErrorCode::NotFound,
            ErrorKind::Refused | ErrorKind::Pending => ErrorCode::Forbidden,
            ErrorKind::Internal => ErrorCode::Internal,
        });
        let mut a = ApiError::new(code, e.message);
        a.retry_after = e.retry_after;
        a
    }
}

impl From<Unavailable> for ApiError {
    fn from(e: Unavailable) -> ApiError {
        let code = match e {
            Unavailable::Stopped => ErrorCode::Unavailable,
            Unavailable::Storage => ErrorCode::StorageUnavailable,
            Unavailable::Internal => ErrorCode::Internal,
        };
        ApiError::new(code, e.to_string())
    }
}

impl ApiError {
    /// Too much too fast: 429 `RATE_LIMITED`, with `Retry-After` (whole seconds, rounded up).
    pub fn rate_limited(message: impl Into<String>, wait: std::time::Duration) -> ApiError {
        let mut a = ApiError::new(ErrorCode::RateLimited, message);
        a.retry_after = Some(wait);
        a
    }

    /// A write the town took and never answered (it stopped meanwhile): not to be tried
    /// again blindly.
    pub fn outcome_unknown() -> ApiError {
        ApiError::new(
            ErrorCode::OutcomeUnknown,
            "The town stopped before answering. If that changed anything it was stored: look \
             before trying again.",
        )
    }

    /// A host's answer while the town is away: to be tried again in a moment.
    pub fn away() -> ApiError {
        let mut a = ApiError::new(
            ErrorCode::Unavailable,
            "The town does not answer; please try again in a moment.",
        );
        a.retry_after = Some(std::time::Duration::from_secs(1));
        a
    }

    /// A request larger than the broker carries in a message (`most` bytes): 413.
    pub fn too_large(most: usize) -> ApiError {
        ApiError {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            ..ApiError::invalid(format!(
                "The request is too large to pass to the town: its broker carries at most \
                 {most} bytes a message."
            ))
        }
    }

    /// The database failed a request made outside the world (making an agent): SQLite's words
    /// go to the log, the caller hears that nothing happened.
    pub fn storage(e: moot_kernel::store::StoreError) -> ApiError {
        tracing::error!(error = %e, "a request could not be stored");
        ApiError::from(Unavailable::Storage)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = json!({ "error": { "code": self.code.name(), "message": self.message } });
        let mut r = (self.status, axum::Json(body)).into_response();
        if let Some(wait) = self.retry_after {
            let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            r.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                self.challenge
                    .unwrap_or_else(|| HeaderValue::from_static("Bearer realm=\"moot\"")),
            );
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn shape(e: ApiError) -> (StatusCode, Option<HeaderValue>, serde_json::Value) {
        let r = e.into_response();
        let (status, retry) = (r.status(), r.headers().get(header::RETRY_AFTER).cloned());
        let body = axum::body::to_bytes(r.into_body(), 1 << 16).await.unwrap();
        (status, retry, serde_json::from_slice(&body).unwrap())
    }

    /// What a host answers for a town it cannot reach is in the API's one shape, with a code
    /// the published list (`/openapi.json`'s enum, made from [`ErrorCode::ALL`]) holds: a
    /// client that checks answers against it once met an `OUTCOME_UNKNOWN` it did not list.
    #[tokio::test]
    async fn a_hosts_own_answers_carry_codes_the_api_lists() {
        let listed = ErrorCode::ALL.map(ErrorCode::name);
        let cases = [
            (ApiError::outcome_unknown(), 502, "OUTCOME_UNKNOWN", None),
            (ApiError::away(), 503, "UNAVAILABLE", Some("1")),
            (ApiError::too_large(1024), 413, "INVALID_REQUEST", None),
        ];
        for (e, status, code, retry) in cases {
            let (got, retry_after, body) = shape(e).await;
            assert_eq!(got.as_u16(), status, "{body}");
            assert_eq!(body["error"]["code"], code);
            assert!(listed.contains(&code), "{code} is not in the API's list");
            assert!(
                body["error"]["message"]
                    .as_str()
                    .is_some_and(|m| !m.is_empty())
            );
            assert_eq!(retry_after.as_ref().map(|v| v.to_str().unwrap()), retry);
        }
    }
}
