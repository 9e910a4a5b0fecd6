//! The MCP endpoint's gate (`/mcp`): bodies bounded and read as JSON-RPC before rmcp sees
//! them, the MCP sessions each token may hold, and the MCP server itself for both revisions.

use std::sync::Arc;

use axum::Json;
use axum::http::{Method, StatusCode};
use axum::response::IntoResponse;
use serde::Deserialize;

use super::Api;

/// The largest body `/mcp` reads. Tool arguments are small (a text argument is at most 4 KiB),
/// so a larger body is a mistake or an attack, and is refused before it is held.
pub const MCP_BODY_LIMIT: usize = 1 << 20;

/// A JSON-RPC error answer from the gate, before rmcp sees the request.
pub(super) fn jsonrpc_error(
    status: StatusCode,
    code: i64,
    message: &str,
) -> axum::response::Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message }
    });
    (status, Json(body)).into_response()
}

/// The shape of a JSON-RPC message, read without building it.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    method: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    result: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

/// Whether `body` is one JSON-RPC 2.0 message, and if so whether it is an `initialize`: -32700
/// if it is not JSON, -32600 if it is JSON but no JSON-RPC message.
pub fn check_envelope(body: &[u8]) -> Result<bool, (i64, String)> {
    match serde_json::from_slice::<Envelope<'_>>(body) {
        Ok(e)
            if e.jsonrpc == "2.0"
                && (e.method.is_some() || e.result.is_some() || e.error.is_some()) =>
        {
            Ok(e.method.as_deref() == Some("initialize"))
        }
        Ok(_) => Err((-32600, "Invalid Request: not a JSON-RPC 2.0 message".into())),
        Err(e) if e.is_syntax() || e.is_eof() => Err((-32700, format!("Parse error: {e}"))),
        Err(e) => Err((-32600, format!("Invalid Request: {e}"))),
    }
}

/// The MCP sessions (of the 2025-11-25 revision, opened by `initialize`) each agent holds:
/// each costs a task and buffers until it is closed or idles out, so one token may hold only so
/// many. A session is its opener's alone (see [`Opener`]).
pub struct McpSessions {
    manager: Arc<rmcp::transport::streamable_http_server::session::local::LocalSessionManager>,
    open: std::sync::Mutex<Open>,
    max: usize,
}

/// The sessions this gate has seen opened, by agent and by id.
#[derive(Default)]
struct Open {
    by_agent: std::collections::HashMap<String, Vec<Arc<str>>>,
    openers: std::collections::HashMap<Arc<str>, Opener>,
}

/// Who opened a session, from where, and at which address. rmcp knows a session only by its
/// id, which travels in a header anyone may copy: held to its opener, a leaked id lets nobody
/// else act in the session or end it, and one opened on a tool set's address does not serve
/// that set on another.
#[derive(Clone, PartialEq, Eq)]
struct Opener {
    agent: String,
    ip: Option<std::net::IpAddr>,
    path: Arc<str>,
}

impl McpSessions {
    /// Whether `agent` may open another session: its sessions still open are counted (those
    /// closed or expired are forgotten).
    async fn room_for(&self, agent: &str) -> bool {
        use rmcp::transport::streamable_http_server::session::SessionManager;
        let ids = self.lock().by_agent.get(agent).cloned().unwrap_or_default();
        let mut gone = Vec::new();
        for id in &ids {
            if !self.manager.has_session(id).await.unwrap_or(false) {
                gone.push(id.clone());
            }
        }
        let room = self.max == 0 || ids.len() - gone.len() < self.max;
        let mut map = self.lock();
        for id in &gone {
            map.openers.remove(id);
        }
        // Only what was found gone is taken out: a session opened meanwhile stays counted.
        if let Some(ids) = map.by_agent.get_mut(agent) {
            ids.retain(|id| !gone.contains(id));
            if ids.is_empty() {
                map.by_agent.remove(agent);
            }
        }
        room
    }

    fn opened(&self, opener: Opener, id: &str) {
        let id: Arc<str> = id.into();
        let mut map = self.lock();
        map.by_agent
            .entry(opener.agent.clone())
            .or_default()
            .push(id.clone());
        map.openers.insert(id, opener);
    }

    /// Session `id` has been ended by its client: whether its agent holds no other session
    /// here now.
    fn closed(&self, id: &str) -> bool {
        let mut map = self.lock();
        let Some(opener) = map.openers.remove(id) else {
            return false;
        };
        let left = map.by_agent.get_mut(&opener.agent).map_or(0, |ids| {
            ids.retain(|i| &**i != id);
            ids.len()
        });
        if left == 0 {
            map.by_agent.remove(&opener.agent);
        }
        left == 0
    }

    /// Whether the session `id` is one `opener` opened.
    fn belongs(&self, id: &str, opener: &Opener) -> bool {
        self.lock().openers.get(id) == Some(opener)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// rmcp's own answer to a session it does not know, word for word: a session that is someone
/// else's reads as one that does not exist, and a client told so opens a new one, as the
/// specification asks of it.
fn session_not_found() -> axum::response::Response {
    (StatusCode::NOT_FOUND, "Not Found: Session not found").into_response()
}

/// What every address's MCP endpoint shares, however many listeners serve it (a world serves
/// one for each of its hosts): the tools' server and its limits, and the sessions of the 2025
/// revision, so that an agent's session and its limits are one whichever host it comes
/// through.
pub struct McpShared {
    server: crate::mcp::MootMcp,
    /// The server of each address, by its path (`/mcp`, `/mcp/chess`).
    by_path: Arc<std::collections::HashMap<String, crate::mcp::MootMcp>>,
    manager: Arc<rmcp::transport::streamable_http_server::session::local::LocalSessionManager>,
    sessions: Arc<McpSessions>,
}

impl McpShared {
    /// The endpoint of the world in this process.
    pub fn new(api: &Api) -> McpShared {
        // The plain `/mcp` serves the town's tools; each set also has its own address.
        let town = moot_kernel::verbs::Toolset::TOWN;
        let server =
            crate::mcp::MootMcp::new(api.world.clone(), api.store.clone(), None, vec![town])
                .with_wait(api.wait)
                .with_poll_cap(api.polls_per_agent);
        McpShared::serving(server, api.mcp_sessions_per_agent)
    }

    /// A host's endpoint, whose servers ask the world's at the same addresses; the sessions of
    /// the 2025 revision are the host's (`sessions_per_agent` each).
    pub fn on_host(town: Arc<crate::cluster::Town>, sessions_per_agent: usize) -> McpShared {
        McpShared::serving(crate::mcp::MootMcp::on_host(town), sessions_per_agent)
    }

    fn serving(server: crate::mcp::MootMcp, sessions_per_agent: usize) -> McpShared {
        let manager = Arc::new(
            rmcp::transport::streamable_http_server::session::local::LocalSessionManager::default(),
        );
        let sessions = Arc::new(McpSessions {
            manager: manager.clone(),
            open: Default::default(),
            max: sessions_per_agent,
        });
        let mut by_path = std::collections::HashMap::new();
        by_path.insert("/mcp".to_owned(), server.clone());
        for &set in crate::games::toolsets() {
            let path = crate::games::toolset_path(&set);
            by_path.insert(path.clone(), server.serving(vec![set], &path));
        }
        McpShared {
            server,
            by_path: Arc::new(by_path),
            manager,
            sessions,
        }
    }

    /// The world's side of a plain tool call a host read ([`crate::cluster::calls::ToolCall`]):
    /// answered by the server of the address it was sent to, as that address's gate answers
    /// one in this process; the tool's answer as the JSON of MCP's `CallToolResult`.
    pub fn tools(&self) -> crate::cluster::calls::Tools {
        let by_path = self.by_path.clone();
        Arc::new(move |agent, ask| {
            let by_path = by_path.clone();
            Box::pin(async move {
                use crate::cluster::calls::McpAsk;
                let path = match &ask {
                    McpAsk::Tool(call) => &call.path,
                    McpAsk::Read(read) => &read.path,
                };
                let server = by_path.get(path).ok_or_else(|| {
                    rmcp::ErrorData::invalid_request(format!("no MCP endpoint at {path}"), None)
                })?;
                match ask {
                    McpAsk::Tool(call) => {
                        let answer = server
                            .call(agent, &call.name, call.arguments, None, call.plain)
                            .await?;
                        serde_json::value::to_raw_value(&answer)
                            .map_err(|e| rmcp::ErrorData::internal_error(e.to_string(), None))
                    }
                    McpAsk::Read(read) => server.read_for(agent, read.what).await,
                }
            })
        })
    }
}

/// The names the MCP endpoint of a listener bound to `bound` answers to in `Host` (DNS
/// rebinding): loopback's and the bound address's.
pub(super) fn allowed_hosts(bound: std::net::SocketAddr) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    hosts.push(bound.ip().to_string());
    hosts
}

/// The MCP server at `/mcp` (Streamable HTTP), for both the 2025-11-25 revision (initialize,
/// sessions) and 2026-07-28 (stateless); identity always comes from the token.
pub fn mcp_router<S: Clone + Send + Sync + 'static>(
    calls: &super::Calls,
    bound: std::net::SocketAddr,
    shutdown: &tokio_util::sync::CancellationToken,
    shared: &McpShared,
) -> axum::Router<S> {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let server = shared.server.clone();
    let hosts = allowed_hosts(bound);
    // A page from elsewhere in a local browser must not drive an agent's tools (DNS
    // rebinding): only moot's own pages, on loopback or the bound address, may send an Origin.
    let origins: Vec<String> = hosts
        .iter()
        .map(|h| match h.parse::<std::net::Ipv6Addr>() {
            Ok(_) => format!("http://[{h}]:*"),
            Err(_) => format!("http://{h}:*"),
        })
        .collect();
    let mut config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts.clone())
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(MCP_BODY_LIMIT);
    // Plain JSON answers when nothing streams (rmcp falls back to SSE on its own when a tool
    // sends progress first).
    config.json_response = true;
    // Sessions (of the 2025 revision) end with the server, so shutdown never waits on them.
    config.cancellation_token = shutdown.child_token();
    let manager = shared.manager.clone();
    let sessions = shared.sessions.clone();
    let hosts: Arc<[String]> = hosts.into();
    let endpoint = |server: crate::mcp::MootMcp, path: &str| {
        let rmcp = {
            let server = server.clone();
            StreamableHttpService::new(move || Ok(server.clone()), manager.clone(), config.clone())
        };
        let endpoint = Arc::new(Endpoint {
            calls: calls.clone(),
            sessions: sessions.clone(),
            server,
            rmcp,
            hosts: hosts.clone(),
            shutdown: shutdown.clone(),
            path: path.into(),
        });
        axum::routing::any(move |req: axum::extract::Request| {
            let endpoint = endpoint.clone();
            async move { endpoint.serve(req).await }
        })
    };
    let mut router = axum::Router::new().route("/mcp", endpoint(server.clone(), "/mcp"));
    for &set in crate::games::toolsets() {
        let path = crate::games::toolset_path(&set);
        router = router.route(&path, endpoint(server.serving(vec![set], &path), &path));
    }
    router
}

/// One address's MCP endpoint, and its gate: the bearer token checked (without one, 401 with
/// `WWW-Authenticate`, as for the REST API); a session's id taken only from its opener (404
/// for anyone else, see [`Opener`]); a POST's body read with a bound; the plain
/// stateless tool call answered directly ([`super::direct_call`]); anything else that is a
/// JSON-RPC message passed to rmcp with the agent (JSON-RPC's own error codes for one that is
/// not), and each agent's open sessions counted.
struct Endpoint {
    /// The town, which vouches for the token.
    calls: super::Calls,
    sessions: Arc<McpSessions>,
    server: crate::mcp::MootMcp,
    rmcp: rmcp::transport::streamable_http_server::StreamableHttpService<
        crate::mcp::MootMcp,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    >,
    /// The names rmcp allows in `Host`.
    hosts: Arc<[String]>,
    shutdown: tokio_util::sync::CancellationToken,
    /// Where it is served (`/mcp`, `/mcp/chess`).
    path: Arc<str>,
}

impl Endpoint {
    /// Whom the request's token is, as the town says, or the 401 that says why not.
    async fn vouched(
        &self,
        parts: &axum::http::request::Parts,
    ) -> Result<String, axum::response::Response> {
        self.calls.caller(&parts.headers, &parts.uri).await
    }

    async fn serve(&self, req: axum::extract::Request) -> axum::response::Response {
        let credential = super::extract::credential(req.headers());
        // In one process the token is checked first, as on every route. On a host that is a
        // question to the world, which a plain call asks anyway (the world vouches for it with
        // the call): there the token is checked once the request is known not to be one.
        let here = matches!(self.calls.town(), crate::cluster::Town::Local(_));
        let (mut parts, body) = req.into_parts();
        let mut agent = None;
        if here {
            match self.vouched(&parts).await {
                Ok(a) => agent = Some(a),
                Err(refused) => return refused,
            }
        }
        let bytes = if parts.method == Method::POST {
            let Ok(bytes) = axum::body::to_bytes(body, MCP_BODY_LIMIT).await else {
                return jsonrpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    -32600,
                    &format!(
                        "The request body is larger than {} KiB",
                        MCP_BODY_LIMIT / 1024
                    ),
                );
            };
            // A plain call is a JSON-RPC message, and no `initialize`.
            if let Some(call) = super::direct_call::plain(&parts.headers, &bytes, &self.hosts) {
                let answered = async {
                    match &agent {
                        Some(agent) => {
                            super::direct_call::answer(
                                &self.server,
                                agent.as_str().into(),
                                call,
                                crate::mcp::plain_asked(parts.uri.query()),
                            )
                            .await
                        }
                        // On a host, the world's server at this address answers it.
                        None => {
                            super::tool_calls::answer(&self.calls, &parts, credential, call).await
                        }
                    }
                };
                // As rmcp does for its own requests: shutdown does not wait on a long poll.
                return tokio::select! {
                    r = answered => r,
                    () = self.shutdown.cancelled() => jsonrpc_error(
                        StatusCode::SERVICE_UNAVAILABLE, -32000, "moot is shutting down"),
                };
            }
            Ok(bytes)
        } else {
            Err(body)
        };
        let agent = match agent {
            Some(agent) => agent,
            None => match self.vouched(&parts).await {
                Ok(agent) => agent,
                Err(refused) => return refused,
            },
        };
        let opener = Opener {
            agent: agent.clone(),
            ip: super::listener::peer(&parts.extensions).map(|a| a.ip()),
            path: self.path.clone(),
        };
        if let Some(id) = parts.headers.get("mcp-session-id")
            && !id
                .to_str()
                .is_ok_and(|id| self.sessions.belongs(id, &opener))
        {
            return session_not_found();
        }
        let mut initialize = false;
        let body = match bytes {
            Ok(bytes) => {
                match check_envelope(&bytes) {
                    Ok(init) => initialize = init,
                    Err((code, message)) => {
                        return jsonrpc_error(StatusCode::BAD_REQUEST, code, &message);
                    }
                }
                if initialize && !self.sessions.room_for(&agent).await {
                    return jsonrpc_error(
                        StatusCode::TOO_MANY_REQUESTS,
                        -32000,
                        &format!(
                            "You already hold {} open MCP sessions; close one (HTTP DELETE) or \
                             let it idle out first",
                            self.sessions.max
                        ),
                    );
                }
                axum::body::Body::from(bytes)
            }
            Err(body) => body,
        };
        // A client ending its session (HTTP DELETE): once the agent holds no other here, it
        // leaves the town as a telnet player who quits does, rather than stand in `who` until
        // it idles out.
        let ending = (parts.method == Method::DELETE)
            .then(|| {
                parts
                    .headers
                    .get("mcp-session-id")?
                    .to_str()
                    .ok()
                    .map(str::to_owned)
            })
            .flatten();
        parts.extensions.insert(crate::mcp::McpAgent(
            agent.as_str().into(),
            credential,
            crate::mcp::plain_asked(parts.uri.query()),
        ));
        let req = axum::extract::Request::from_parts(parts, body);
        let mut response = self.rmcp.handle(req).await.map(axum::body::Body::new);
        if let Some(id) = ending
            && response.status().is_success()
        {
            // rmcp answers 202; the SDKs take a session's end as done at 200 (the Python SDK
            // logs "Session termination failed: 202" otherwise).
            *response.status_mut() = StatusCode::OK;
            if self.sessions.closed(&id) {
                let who: moot_kernel::world::AgentId = agent.as_str().into();
                self.calls
                    .town()
                    .leave(
                        &who,
                        moot_kernel::world::AGENT_CONN,
                        moot_kernel::world::Leaving::Quit,
                    )
                    .await;
            }
        }
        if initialize
            && let Some(id) = response
                .headers()
                .get("mcp-session-id")
                .and_then(|v| v.to_str().ok())
        {
            self.sessions.opened(opener, id);
        }
        response
    }
}
