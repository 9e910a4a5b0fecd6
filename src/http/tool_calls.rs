//! MCP's plain tool calls on a host: read there within the endpoint's bounds (by the same gate
//! as in one process, [`super::gate`]) and sent to the world as typed calls
//! ([`crate::cluster::calls::ToolCall`]), answered with the JSON-RPC response the world's own
//! endpoint would write.

use axum::http::request::Parts;
use axum::response::Response;

use super::Calls;
use super::direct_call::{Plain, respond};
use crate::cluster::calls::{CallRefused, Credential, ToolCall};

/// Answers plain call `call`, sent with `parts` and `credential`, by the world's server at the
/// same address.
pub async fn answer(calls: &Calls, parts: &Parts, credential: Credential, call: Plain) -> Response {
    let asked = ToolCall {
        credential,
        path: parts.uri.path().to_owned(),
        name: call.name,
        arguments: call.arguments,
        id: 0,
        plain: crate::mcp::plain_asked(parts.uri.query()),
        held: None,
    };
    match calls.town().tool(asked).await {
        Ok(answer) => respond(call.id, Ok::<_, rmcp::ErrorData>(answer)),
        Err(CallRefused::Tool(e)) => respond(call.id, Err::<(), _>(e)),
        Err(why) => calls.refused(why, &parts.headers, &parts.uri),
    }
}
