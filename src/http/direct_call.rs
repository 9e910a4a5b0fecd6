//! The plain stateless `tools/call` (MCP 2026-07-28), answered without rmcp's machinery.
//!
//! rmcp serves each stateless request as a one-message session: it parses the body into its
//! full message type, copies it into a JSON value to check the SEP-2243 headers, makes a
//! service, spawns a task with a one-shot transport and waits on a channel for the answer.
//! That was most of an MCP call's cost (a `look` cost six times the world's work), so the
//! one request agents send all the time, a tool call, is answered here directly.
//!
//! Only a request that rmcp would certainly accept, and serve the same way, is taken:
//! every header and field is one this module checks the way rmcp does. Anything else (a
//! session, a progress token to report to, an `Origin`, a `_meta` key or a header this module
//! does not know) goes to rmcp, which serves it or says precisely what is wrong. The answer is
//! rmcp's own message type, serialized as rmcp would.

use std::borrow::Cow;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    ClientCapabilities, ErrorCode, Implementation, JsonObject, JsonRpcError, JsonRpcVersion2_0,
    RequestId, ServerJsonRpcMessage,
};
use serde::Deserialize;

use crate::mcp::MootMcp;
use moot_kernel::world::AgentId;

/// The only revision served here: the one without sessions.
const VERSION: &str = "2026-07-28";

/// A `tools/call` request with nothing in it but what a plain call carries.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Call<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
    #[serde(rename = "_meta", borrow)]
    meta: Meta<'a>,
}

/// The request metadata 2026-07-28 requires, and nothing else (a progress token is served by
/// rmcp, which can stream the progress).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow)]
    protocol_version: Cow<'a, str>,
    // Read only to hold them to the types rmcp reads them as.
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    _client_capabilities: ClientCapabilities,
    #[serde(rename = "io.modelcontextprotocol/clientInfo")]
    _client_info: Implementation,
}

/// A plain call, read from a request's headers and body.
pub struct Plain {
    pub id: RequestId,
    pub name: String,
    pub arguments: Option<JsonObject>,
}

/// The call in `body`, if the request is a plain stateless `tools/call` that `hosts` (the
/// names this server answers to) allow; `None` sends it to rmcp.
pub fn plain(headers: &HeaderMap, body: &[u8], hosts: &[String]) -> Option<Plain> {
    // One JSON object: serde would also read a struct from an array, by position.
    if body.trim_ascii_start().first() != Some(&b'{') {
        return None;
    }
    let call: Call<'_> = serde_json::from_slice(body).ok()?;
    let fits = call.jsonrpc == "2.0"
        && call.method == "tools/call"
        && call.params.meta.protocol_version == VERSION
        && plain_headers(headers, &call.params.name, hosts);
    fits.then_some(Plain {
        id: call.id,
        name: call.params.name,
        arguments: call.params.arguments,
    })
}

/// The only value of header `name`, if it has exactly one and it is text.
fn only<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    let mut values = headers.get_all(name).iter();
    let first = values.next()?;
    match values.next() {
        Some(_) => None,
        None => first.to_str().ok(),
    }
}

/// Whether the headers are ones rmcp accepts for this call without a doubt.
fn plain_headers(headers: &HeaderMap, name: &str, hosts: &[String]) -> bool {
    // A tool's name as it stands is its SEP-2243 header (no Base64 form to decode).
    let plain_name = name
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.');
    plain_name
        && only(headers, "mcp-protocol-version") == Some(VERSION)
        && only(headers, "mcp-method") == Some("tools/call")
        && only(headers, "mcp-name") == Some(name)
        && !headers.contains_key("mcp-session-id")
        && !headers.contains_key(header::ORIGIN)
        && !headers.keys().any(|k| k.as_str().starts_with("mcp-param-"))
        && host_allowed(headers, hosts)
        && only(headers, header::CONTENT_TYPE.as_str()).is_some_and(|ct| {
            let essence = ct.split_once(';').map_or(ct, |(e, _)| e);
            essence.trim().eq_ignore_ascii_case("application/json")
        })
        && accepts_json_and_sse(headers)
}

/// The Host header names one of `hosts` (DNS rebinding: rmcp's check, for the one form it
/// takes here, a host with or without a port).
fn host_allowed(headers: &HeaderMap, hosts: &[String]) -> bool {
    let Some(authority) = only(headers, header::HOST.as_str())
        .and_then(|h| axum::http::uri::Authority::try_from(h).ok())
    else {
        return false;
    };
    let host = authority.host().trim_matches(['[', ']']);
    hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
}

/// Accept lists both `application/json` and `text/event-stream`, with no parameters to weigh.
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for entry in value.split(',') {
            if entry.contains([';', '"']) {
                return false;
            }
            let entry = entry.trim();
            json |= entry.eq_ignore_ascii_case("application/json");
            sse |= entry.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// A JSON-RPC response to a tool call, as rmcp writes one (its `JsonRpcResponse`), with the
/// tool's answer as moot made it.
#[derive(serde::Serialize)]
struct Answered<'a, T> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a T,
}

/// Answers `call` for `agent`, as rmcp would: a JSON-RPC response (or error) as JSON, with
/// rmcp's HTTP status for the error; its text read as `plain` asks.
pub async fn answer(
    server: &MootMcp,
    agent: AgentId,
    call: Plain,
    plain: crate::cluster::calls::Plain,
) -> Response {
    let Plain {
        id,
        name,
        arguments,
    } = call;
    respond(id, server.call(agent, &name, arguments, None, plain).await)
}

/// The response to call `id`, given the tool's answer (moot's [`crate::mcp::Answer`], or its JSON as it
/// crossed the broker) or its error.
pub fn respond<T: serde::Serialize>(
    id: RequestId,
    answered: Result<T, rmcp::ErrorData>,
) -> Response {
    // Room for a typical answer, so the text is not copied as the buffer grows.
    let mut body = Vec::with_capacity(8 * 1024);
    let (written, status) = match answered {
        Ok(result) => {
            let response = Answered {
                jsonrpc: "2.0",
                id: &id,
                result: &result,
            };
            (serde_json::to_writer(&mut body, &response), StatusCode::OK)
        }
        Err(error) => {
            let status = match error.code {
                ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
                _ => StatusCode::OK,
            };
            let message = ServerJsonRpcMessage::Error(JsonRpcError {
                jsonrpc: JsonRpcVersion2_0,
                id: Some(id),
                error,
            });
            (serde_json::to_writer(&mut body, &message), status)
        }
    };
    match written {
        Ok(()) => (
            status,
            [(header::CONTENT_TYPE, "application/json")],
            axum::body::Bytes::from(body),
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "cannot serialize a tool's answer");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn hosts() -> Vec<String> {
        vec!["localhost".into(), "127.0.0.1".into(), "::1".into()]
    }

    /// The headers a 2026-07-28 client sends with a call to `look`.
    fn headers() -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in [
            ("host", "127.0.0.1:7778"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "look"),
        ] {
            h.insert(
                axum::http::HeaderName::from_static(k),
                axum::http::HeaderValue::from_static(v),
            );
        }
        h
    }

    fn body() -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "look", "arguments": {}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}})
    }

    fn taken(headers: &HeaderMap, body: &Value) -> bool {
        plain(headers, body.to_string().as_bytes(), &hosts()).is_some()
    }

    #[test]
    fn a_plain_call_is_taken_with_its_id_name_and_arguments() {
        let mut b = body();
        b["id"] = json!("call-7");
        b["params"]["arguments"] = json!({"exit": "north"});
        let call = plain(&headers(), b.to_string().as_bytes(), &hosts()).unwrap();
        assert_eq!(call.id, RequestId::String("call-7".into()));
        assert_eq!(call.name, "look");
        assert_eq!(call.arguments.unwrap()["exit"], "north");
        let mut h = headers();
        h.insert("host", "[::1]:80".parse().unwrap());
        assert!(taken(&h, &body()));
    }

    #[test]
    fn anything_rmcp_must_judge_or_stream_goes_to_rmcp() {
        let header_cases: [(&str, Option<&str>); 11] = [
            ("origin", Some("http://127.0.0.1:7778")),
            ("mcp-session-id", Some("abc")),
            ("mcp-param-exit", Some("north")),
            ("mcp-protocol-version", None),
            ("mcp-protocol-version", Some("2025-11-25")),
            ("mcp-method", Some("tools/list")),
            ("mcp-name", None),
            ("mcp-name", Some("=?base64?bG9vaw==?=")),
            ("host", Some("evil.example")),
            ("content-type", Some("text/plain")),
            ("accept", Some("application/json;q=0, text/event-stream")),
        ];
        for (name, value) in header_cases {
            let mut h = headers();
            match value {
                Some(v) => {
                    h.insert(
                        axum::http::HeaderName::from_static(name),
                        v.parse().unwrap(),
                    );
                }
                None => {
                    h.remove(name);
                }
            }
            assert!(!taken(&h, &body()), "{name}: {value:?}");
        }
        let mut h = headers();
        h.append("mcp-method", "tools/call".parse().unwrap());
        assert!(!taken(&h, &body()), "a repeated Mcp-Method");

        let body_cases: [(&str, Value); 7] = [
            ("/params/_meta/progressToken", json!(1)),
            (
                "/params/_meta/io.modelcontextprotocol~1protocolVersion",
                json!("2025-11-25"),
            ),
            (
                "/params/_meta/io.modelcontextprotocol~1clientInfo",
                json!("t"),
            ),
            ("/params/task", json!({})),
            ("/method", json!("tools/list")),
            ("/jsonrpc", json!("1.0")),
            ("/extra", json!(true)),
        ];
        for (pointer, value) in body_cases {
            let mut b = body();
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let key = key.replace("~1", "/");
            let target = if parent.is_empty() {
                &mut b
            } else {
                b.pointer_mut(parent).unwrap()
            };
            target[key.as_str()] = value;
            assert!(!taken(&headers(), &b), "{pointer}");
        }
        let mut b = body();
        b["params"]["_meta"]
            .as_object_mut()
            .unwrap()
            .remove("io.modelcontextprotocol/clientCapabilities");
        assert!(!taken(&headers(), &b), "without clientCapabilities");
        assert!(plain(&headers(), b"{not json", &hosts()).is_none());
        // The same call as an array, which serde reads by position: no JSON-RPC message.
        let array = json!(["2.0", 1, "tools/call", body()["params"]]);
        assert!(!taken(&headers(), &array), "an array");
    }
}
