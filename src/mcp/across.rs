//! The MCP server on a host, where the world is across the broker: each tool call and each
//! read of the town is asked of the world's own server at the same address as a typed call,
//! for whoever the request's credential is (only the world can judge it); and the world's
//! side of those reads.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use rmcp::service::{RequestContext, RoleServer};

use super::poll::Polls;
use super::{MootMcp, PROGRESS_EVERY, Reach, WAIT, caller, tools, wizard_in};
use crate::cluster::Town;
use crate::cluster::calls::{CallRefused, Credential, McpRead, McpWhat, ToolCall};
use moot_kernel::verbs::Toolset;
use moot_kernel::world::AgentId;

impl MootMcp {
    /// The server of the town's tools at `/mcp` on a host, reaching the world across the
    /// broker.
    pub fn on_host(town: Arc<Town>) -> MootMcp {
        let sets = vec![Toolset::TOWN];
        MootMcp {
            reach: Reach::Host(town),
            path: "/mcp".into(),
            fixed: None,
            tools: Arc::new(tools(&sets)),
            sets: Arc::new(sets),
            wait: WAIT,
            polls: Arc::new(Polls::new(4)),
        }
    }

    /// Asks the world's server at this address `what`, as the request's credential (on a host).
    pub(super) async fn ask<T: serde::de::DeserializeOwned>(
        &self,
        cx: &RequestContext<RoleServer>,
        what: McpWhat,
    ) -> Result<T, McpError> {
        let Reach::Host(town) = &self.reach else {
            return Err(McpError::internal_error("the world is here", None));
        };
        let read = McpRead {
            credential: credential_of(cx)?,
            path: self.path.to_string(),
            what,
        };
        let called = town.mcp_read(read).await.map_err(across)?;
        serde_json::from_str(called.get())
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    /// What the world's server answers `agent` asks `what` (a host's [`McpRead`]).
    pub async fn read_for(
        &self,
        agent: AgentId,
        what: McpWhat,
    ) -> Result<Box<serde_json::value::RawValue>, McpError> {
        let answer = match what {
            McpWhat::Wizard => serde_json::json!(wizard_in(self.world()?.1, &agent).await),
            McpWhat::Pages => serde_json::json!(self.pages(agent).await?),
            McpWhat::Page(uri) => serde_json::json!(self.page_html(&agent, &uri).await?),
        };
        serde_json::value::to_raw_value(&answer)
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    /// A tool call on a host: asked of the world's server at this address, the client that
    /// gave a progress token told every ten seconds while it waits, as the world's server
    /// tells it; cancelled, it is taken back from the world.
    pub(super) async fn call_across(
        &self,
        town: &Town,
        request: CallToolRequestParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let call = ToolCall {
            credential: credential_of(cx)?,
            path: self.path.to_string(),
            name: request.name.to_string(),
            arguments: request.arguments,
            id: 0,
            plain: super::caller(cx).and_then(|a| a.2),
            held: None,
        };
        let started = tokio::time::Instant::now();
        let progress = cx.meta.get_progress_token();
        let asked = town.tool(call);
        tokio::pin!(asked);
        let mut ticks = 0u32;
        let called = loop {
            let next = tokio::time::sleep_until(started + PROGRESS_EVERY * (ticks + 1));
            tokio::select! {
                called = &mut asked => break called,
                () = cx.ct.cancelled() => {
                    return Err(McpError::internal_error("the call was cancelled", None));
                }
                () = next, if progress.is_some() => {
                    ticks += 1;
                    if let Some(token) = progress.clone() {
                        let note = rmcp::model::ProgressNotificationParam::new(token, f64::from(ticks))
                            .with_message("still waiting for your opponent");
                        let _ = cx.peer.notify_progress(note).await;
                    }
                }
            }
        };
        let raw = called.map_err(across)?;
        let result: rmcp::model::CallToolResult = serde_json::from_str(raw.get())
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(result.into())
    }
}

/// The credential a request carried (see [`McpAgent`]).
fn credential_of(cx: &RequestContext<RoleServer>) -> Result<Credential, McpError> {
    caller(cx)
        .map(|a| a.1.clone())
        .ok_or_else(|| McpError::invalid_request("no identity: send a bearer token", None))
}

/// A call the world did not answer, as MCP's error.
fn across(why: CallRefused) -> McpError {
    match why {
        CallRefused::Tool(e) => e,
        CallRefused::Unvouched(why) => McpError::invalid_request(why, None),
        CallRefused::Away => McpError::internal_error(
            "The town is away for a moment; nothing was done. Try again shortly.",
            None,
        ),
        CallRefused::Unknown => McpError::internal_error(
            "The town stopped before answering; whether it was done is unknown.",
            None,
        ),
        CallRefused::TooLarge(most) => McpError::invalid_request(
            format!("The call is larger than the town takes ({most} bytes)."),
            None,
        ),
        why => McpError::internal_error(format!("{why:?}"), None),
    }
}
