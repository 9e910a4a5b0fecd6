//! MCP's plain tool calls on a host: read there within the endpoint's bounds and sent to the
//! world as typed calls ([`crate::cluster::calls::ToolCall`]), answered with the JSON-RPC
//! response the world's own endpoint would write. Any other request to an MCP address is
//! given back, to be passed whole.

use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode};
use axum::response::Response;

use super::Calls;
use super::direct_call::{plain, respond};
use super::extract::credential;
use super::gate::{MCP_BODY_LIMIT, allowed_hosts};
use crate::cluster::calls::{CallRefused, ToolCall};

/// Whether `path` is an MCP endpoint's (`/mcp`, or a tool set's own).
fn mcp_address(path: &str) -> bool {
    path == "/mcp"
        || path
            .strip_prefix("/mcp/")
            .is_some_and(|set| crate::games::toolset_named(set).is_some())
}

/// Answers `req`, sent to the listener bound to `bound`, if it is a plain tool call; gives it
/// back otherwise.
pub async fn answer(
    calls: &Calls,
    bound: std::net::SocketAddr,
    req: Request,
) -> Result<Response, Request> {
    if req.method() != Method::POST || !mcp_address(req.uri().path()) {
        return Err(req);
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MCP_BODY_LIMIT).await else {
        // As the world's endpoint would be passed it: refused on the way.
        return Ok(crate::cluster::answers::refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The request's body is too large.",
        ));
    };
    let Some(call) = plain(&parts.headers, &bytes, &allowed_hosts(bound)) else {
        return Err(Request::from_parts(parts, Body::from(bytes)));
    };
    let asked = ToolCall {
        credential: credential(&parts.headers),
        path: parts.uri.path().to_owned(),
        name: call.name,
        arguments: call.arguments,
        id: 0,
    };
    Ok(match calls.town().tool(asked).await {
        Ok(answer) => respond(call.id, Ok::<_, rmcp::ErrorData>(answer)),
        Err(CallRefused::Tool(e)) => respond(call.id, Err::<(), _>(e)),
        Err(why) => calls.refused(why, &parts.headers, &parts.uri),
    })
}
