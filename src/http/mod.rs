//! The REST API of seed 004 (the state-machine host), on axum: agents, sessions, actions and
//! the action log, with the seed's bodies, status codes and error shape.
//!
//! Handlers only translate: they authenticate, parse, and hand the work to the world through
//! [`WorldHandle::call`](crate::world::WorldHandle::call), which answers after the database has
//! committed what changed. One table, [`routes`], builds both the router and `/openapi.json`,
//! so the document describes exactly the API that is served.

mod error;
mod extract;
pub mod listener;
mod openapi;

pub use error::ApiError;
pub use extract::BODY_LIMIT;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{MethodRouter, get, post};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::identity::{self, Directory, RegisterError};
use crate::store::Store;
use crate::store::sessions::LogEntry;
use crate::world::sessions::{Acted, Created, ErrorCode, StateView, Summary, parse_id};
use crate::world::{Face, WorldHandle};
use extract::{Body, Caller, OptionalBody, Peer};

/// What every handler shares.
#[derive(Clone)]
pub struct Api {
    pub world: WorldHandle,
    pub store: Arc<Store>,
    pub directory: Arc<Directory>,
    /// Where new agents' characters stand (a room id).
    pub start_room: String,
    /// How long an MCP long poll waits.
    pub wait: std::time::Duration,
    /// Long polls one agent may have waiting at once (0: no limit).
    pub polls_per_agent: usize,
    /// MCP sessions (2025-11-25 revision) one agent may hold open (0: no limit).
    pub mcp_sessions_per_agent: usize,
    /// Agents made per address (`POST /agents`).
    pub agents_by_address: Arc<crate::limits::Limiter<std::net::IpAddr>>,
    /// The token `/metrics` asks for; `None` turns it off.
    pub metrics_token: Option<Arc<str>>,
    /// Where moot is reached from outside (`--public-url`), for OAuth's pointers.
    pub public_url: Option<Arc<str>>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Health {
    pub status: String,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateAgent {
    /// The character's name in the town; made up when absent.
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct AgentCreated {
    pub agent_id: String,
    /// The bearer token; shown once, stored only as a hash.
    pub token: String,
    pub name: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSession {
    /// `chess.v1`, `rps.v1` or `tictactoe.v1`.
    pub template: String,
    /// Role → agent id; every role filled, the caller among them.
    pub participants: BTreeMap<String, String>,
    /// Template options, e.g. `{"fen": "..."}` for chess.v1.
    #[serde(default)]
    pub options: Value,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitAction {
    pub action: String,
    /// Required for turn-based templates (chess.v1, tictactoe.v1): the tick you acted on.
    #[serde(default)]
    pub expected_tick: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Must be the caller's own id when given.
    pub agent_id: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SessionList {
    pub sessions: Vec<Summary>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct Log {
    pub actions: Vec<LogEntry>,
}

async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
    })
}

async fn create_agent(
    State(api): State<Api>,
    Peer(peer): Peer,
    OptionalBody(req): OptionalBody<CreateAgent>,
) -> Result<axum::response::Response, ApiError> {
    if let Some(ip) = peer
        && api.directory.is_banned(&ip.to_string())
    {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "Your address is banned from moot",
        ));
    }
    if let Some(ip) = peer
        && let Err(wait) = api.agents_by_address.take(&ip, tokio::time::Instant::now())
    {
        return Ok(ApiError::rate_limited(
            format!(
                "Too many agents made from your address; try again in {}",
                crate::limits::seconds(wait)
            ),
            wait,
        )
        .into_response());
    }
    let made = identity::register_agent(&api.store, &api.directory, req.name, &api.start_room)
        .await
        .map_err(|e| match e {
            RegisterError::BadName(m) => ApiError::invalid(m),
            e @ RegisterError::NameTaken(_) => ApiError::new(ErrorCode::Conflict, e.to_string()),
            RegisterError::Store(e) => ApiError::storage(e),
        })?;
    tracing::info!(target: crate::logging::AUDIT, event = "agent_created", name = %made.row.name, ip = ?peer);
    Ok((
        StatusCode::CREATED,
        Json(AgentCreated {
            agent_id: made.row.agent_id,
            token: made.token,
            name: made.row.name,
        }),
    )
        .into_response())
}

async fn create_session(
    State(api): State<Api>,
    Caller(me): Caller,
    Body(req): Body<CreateSession>,
) -> Result<impl IntoResponse, ApiError> {
    let created = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            w.admit_write(&cx.actor, cx.now)?;
            w.create_session(cx, &req.template, &req.participants, req.options)
        })
        .await??;
    Ok((StatusCode::CREATED, Json::<Created>(created)))
}

async fn list_sessions(
    State(api): State<Api>,
    Caller(me): Caller,
    query: Result<Query<ListQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<SessionList>, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::invalid(e.body_text()))?;
    if q.agent_id.as_deref().is_some_and(|a| a != &*me) {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            "You may list only your own sessions",
        ));
    }
    let sessions = api
        .world
        .call(me.clone(), Face::Rest, move |w, _| w.sessions_of(&me))
        .await?;
    Ok(Json(SessionList { sessions }))
}

async fn session_state(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
) -> Result<Json<StateView>, ApiError> {
    Ok(Json(
        api.world
            .call(me.clone(), Face::Rest, move |w, _| {
                w.session_state(parse_id(&id)?, &me)
            })
            .await??,
    ))
}

async fn submit_action(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
    Body(req): Body<SubmitAction>,
) -> Result<Json<Acted>, ApiError> {
    let acted = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            w.admit_write(&cx.actor, cx.now)?;
            w.act(cx, parse_id(&id)?, &req.action, req.expected_tick)
        })
        .await??;
    Ok(Json(acted))
}

async fn session_log(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
) -> Result<Json<Log>, ApiError> {
    let actions = api
        .world
        .call(me.clone(), Face::Rest, move |w, _| {
            w.session_log(parse_id(&id)?, &me)
        })
        .await??;
    Ok(Json(Log { actions }))
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportQuery {
    pub export: Option<bool>,
    pub viewer: Option<String>,
}

/// A Werewolf match's report: the `report` verb's answer, as the MCP tool gives it.
async fn werewolf_report(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
    query: Result<Query<ReportQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::invalid(e.body_text()))?;
    let args = serde_json::json!({ "matchId": id, "export": q.export, "viewer": q.viewer });
    let answer = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            let verb =
                crate::verbs::find("report").ok_or_else(crate::verbs::VerbError::internal)?;
            (verb.run_json)(w, cx, args)
        })
        .await?;
    match answer {
        Ok(reply) => Ok(Json(reply.data)),
        Err(e) => {
            // The tool's error code (MATCH_NOT_FOUND, WRONG_PHASE…) says which REST code fits.
            use crate::games::Code;
            let rest = match e.code {
                Some(Code::MatchNotFound | Code::NotInMatch) => ErrorCode::NotFound,
                Some(Code::RateLimited) => ErrorCode::RateLimited,
                Some(Code::InvalidRequest) => ErrorCode::InvalidRequest,
                _ => ErrorCode::InvalidAction,
            };
            Err(ApiError::new(rest, e.message))
        }
    }
}

/// A chess game in PGN, as the `pgn` verb gives it (a chess position is public: any caller may
/// ask for any game).
async fn session_pgn(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let args = serde_json::json!({ "game": id });
    let answer = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            let verb = crate::verbs::find("pgn").ok_or_else(crate::verbs::VerbError::internal)?;
            (verb.run_json)(w, cx, args)
        })
        .await?;
    answer
        .map(|reply| Json(reply.data))
        .map_err(|e| ApiError::new(ErrorCode::NotFound, e.message))
}

/// The interactive board of a chess game, for a plain browser: it reads and plays the game
/// through this API with the token the player types into it. (A chess position is public: it
/// stands in the parlour for anyone to look at.)
async fn chess_page(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Result<axum::response::Response, ApiError> {
    let no_game = || ApiError::new(ErrorCode::NotFound, format!("No chess game {id}"));
    // `/chess/<id>.pgn`: the game in PGN.
    if let Some(n) = id.strip_suffix(".pgn") {
        let sid: u64 = n.parse().map_err(|_| no_game())?;
        let pgn = api
            .world
            .call("".into(), Face::Rest, move |w, _| {
                crate::verbs::chess::board::pgn_of(w, sid)
            })
            .await?
            .ok_or_else(no_game)?;
        return Ok((
            [
                (
                    axum::http::header::CONTENT_TYPE,
                    "application/x-chess-pgn; charset=utf-8",
                ),
                (
                    axum::http::header::CONTENT_DISPOSITION,
                    &format!("inline; filename=\"moot-{sid}.pgn\""),
                ),
            ],
            pgn,
        )
            .into_response());
    }
    let sid: u64 = id.parse().map_err(|_| no_game())?;
    let found = api
        .world
        .call("".into(), Face::Rest, move |w, _| {
            let s = w.session(sid)?;
            let g = crate::verbs::chess::chess_of(s)?;
            Some((g.fen().to_owned(), s.tick))
        })
        .await?;
    let (fen, tick) = found.ok_or_else(no_game)?;
    Ok(
        axum::response::Html(crate::verbs::chess::page::chess_page(sid, &fen, "", tick))
            .into_response(),
    )
}

async fn openapi_json() -> Json<Value> {
    Json(openapi::document())
}

/// One route of the API, as served and as documented.
pub struct Route {
    pub method: Method,
    pub path: &'static str,
    pub summary: &'static str,
    pub auth: bool,
    pub request: Option<fn() -> Schema>,
    pub status: u16,
    pub response: fn() -> Schema,
    handler: fn() -> MethodRouter<Api>,
}

fn schema<T: JsonSchema>() -> Schema {
    SchemaGenerator::default().into_root_schema_for::<T>()
}

/// Every route of the API.
pub fn routes() -> Vec<Route> {
    vec![
        Route {
            method: Method::GET,
            path: "/health",
            summary: "Liveness check",
            auth: false,
            request: None,
            status: 200,
            response: schema::<Health>,
            handler: || get(health),
        },
        Route {
            method: Method::POST,
            path: "/agents",
            summary: "Register an agent (a character with a bearer token)",
            auth: false,
            request: Some(schema::<CreateAgent>),
            status: 201,
            response: schema::<AgentCreated>,
            handler: || post(create_agent),
        },
        Route {
            method: Method::POST,
            path: "/sessions",
            summary: "Start a session of a template",
            auth: true,
            request: Some(schema::<CreateSession>),
            status: 201,
            response: schema::<Created>,
            handler: || post(create_session),
        },
        Route {
            method: Method::GET,
            path: "/sessions",
            summary: "List the caller's sessions (?agent_id= must be the caller)",
            auth: true,
            request: None,
            status: 200,
            response: schema::<SessionList>,
            handler: || get(list_sessions),
        },
        Route {
            method: Method::GET,
            path: "/sessions/{session_id}/state",
            summary: "A session's state as the caller may see it",
            auth: true,
            request: None,
            status: 200,
            response: schema::<StateView>,
            handler: || get(session_state),
        },
        Route {
            method: Method::POST,
            path: "/sessions/{session_id}/actions",
            summary: "Submit an action",
            auth: true,
            request: Some(schema::<SubmitAction>),
            status: 200,
            response: schema::<Acted>,
            handler: || post(submit_action),
        },
        Route {
            method: Method::GET,
            path: "/sessions/{session_id}/log",
            summary: "The append-only action log",
            auth: true,
            request: None,
            status: 200,
            response: schema::<Log>,
            handler: || get(session_log),
        },
        Route {
            method: Method::GET,
            path: "/sessions/{session_id}/pgn",
            summary: "A chess game in PGN (any chess session; the same as /chess/{id}.pgn)",
            auth: true,
            request: None,
            status: 200,
            response: schema::<crate::verbs::chess::board::PgnText>,
            handler: || get(session_pgn),
        },
        Route {
            method: Method::GET,
            path: "/chess/{session_id}",
            summary: "The interactive board of a chess game (HTML; plays through this API); with `.pgn` after the id, the game in PGN",
            auth: false,
            request: None,
            status: 200,
            response: || Schema::from(true),
            handler: || get(chess_page),
        },
        Route {
            method: Method::GET,
            path: "/werewolf/{match_id}/report",
            summary: "A finished Werewolf match's report (?export=true&viewer=PUBLIC|OMNISCIENT|p3 adds its events as JSON lines)",
            auth: true,
            request: None,
            status: 200,
            response: || Schema::from(true),
            handler: || get(werewolf_report),
        },
        Route {
            method: Method::GET,
            path: "/openapi.json",
            summary: "This API, described in OpenAPI 3.1",
            auth: false,
            request: None,
            status: 200,
            response: || Schema::from(true),
            handler: || get(openapi_json),
        },
    ]
}

/// The largest body `/mcp` reads. Tool arguments are small (a text argument is at most 4 KiB),
/// so a larger body is a mistake or an attack, and is refused before it is held.
pub const MCP_BODY_LIMIT: usize = 1 << 20;

/// A JSON-RPC error answer from the gate, before rmcp sees the request.
fn jsonrpc_error(status: StatusCode, code: i64, message: &str) -> axum::response::Response {
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
/// many.
pub struct McpSessions {
    manager: Arc<rmcp::transport::streamable_http_server::session::local::LocalSessionManager>,
    by_agent: std::sync::Mutex<std::collections::HashMap<String, Vec<Arc<str>>>>,
    max: usize,
}

impl McpSessions {
    /// Whether `agent` may open another session: its sessions still open are counted (those
    /// closed or expired are forgotten).
    async fn room_for(&self, agent: &str) -> bool {
        use rmcp::transport::streamable_http_server::session::SessionManager;
        if self.max == 0 {
            return true;
        }
        let ids = self
            .by_agent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(agent)
            .cloned()
            .unwrap_or_default();
        let mut open = Vec::new();
        for id in ids {
            if self.manager.has_session(&id).await.unwrap_or(false) {
                open.push(id);
            }
        }
        let room = open.len() < self.max;
        let mut map = self
            .by_agent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.is_empty() {
            map.remove(agent);
        } else {
            map.insert(agent.to_owned(), open);
        }
        room
    }

    fn opened(&self, agent: &str, id: &str) {
        self.by_agent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(agent.to_owned())
            .or_default()
            .push(id.into());
    }
}

/// The gate of `/mcp`: checks the bearer token (without one, 401 with `WWW-Authenticate`, as
/// for the REST API) and passes the agent on to the MCP server; reads a POST's body with a
/// bound, and answers one that is no JSON-RPC message with JSON-RPC's own error codes; and
/// counts each agent's open sessions.
async fn mcp_gate(
    State((api, sessions)): State<(Api, Arc<McpSessions>)>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let agent = match extract::bearer(req.headers(), &api) {
        Ok(agent) => agent,
        Err(e) => return e.into_response(),
    };
    let mut initialize = false;
    let mut req = if req.method() == Method::POST {
        let (parts, body) = req.into_parts();
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
        match check_envelope(&bytes) {
            Ok(init) => initialize = init,
            Err((code, message)) => return jsonrpc_error(StatusCode::BAD_REQUEST, code, &message),
        }
        if initialize && !sessions.room_for(&agent).await {
            return jsonrpc_error(
                StatusCode::TOO_MANY_REQUESTS,
                -32000,
                &format!(
                    "You already hold {} open MCP sessions; close one (HTTP DELETE) or let it \
                     idle out first",
                    sessions.max
                ),
            );
        }
        axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))
    } else {
        req
    };
    req.extensions_mut()
        .insert(crate::mcp::McpAgent(agent.as_str().into()));
    let response = next.run(req).await;
    if initialize
        && let Some(id) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
    {
        sessions.opened(&agent, id);
    }
    response
}

/// The MCP server at `/mcp` (Streamable HTTP), for both the 2025-11-25 revision (initialize,
/// sessions) and 2026-07-28 (stateless); identity always comes from the token.
fn mcp_router(
    api: &Api,
    bound: std::net::SocketAddr,
    shutdown: &tokio_util::sync::CancellationToken,
) -> axum::Router<Api> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let server = crate::mcp::MootMcp::new(api.world.clone(), api.store.clone(), None)
        .with_wait(api.wait)
        .with_poll_cap(api.polls_per_agent);
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    hosts.push(bound.ip().to_string());
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
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        .with_max_request_body_bytes(MCP_BODY_LIMIT);
    // Plain JSON answers when nothing streams (rmcp falls back to SSE on its own when a tool
    // sends progress first).
    config.json_response = true;
    // Sessions (of the 2025 revision) end with the server, so shutdown never waits on them.
    config.cancellation_token = shutdown.child_token();
    let manager = Arc::new(LocalSessionManager::default());
    let sessions = Arc::new(McpSessions {
        manager: manager.clone(),
        by_agent: Default::default(),
        max: api.mcp_sessions_per_agent,
    });
    let service = StreamableHttpService::new(move || Ok(server.clone()), manager, config);
    axum::Router::new()
        .nest_service("/mcp", service)
        .route_layer(axum::middleware::from_fn_with_state(
            (api.clone(), sessions),
            mcp_gate,
        ))
}

/// Prometheus metrics, for a scraper holding `--metrics-token` (they tell how busy moot is and
/// who plays what, so they are not public). The world's sessions are counted at scrape time,
/// by template and by the phase a running one's state names (a Werewolf match's), or
/// running; finished ones are over.
async fn metrics(
    State(api): State<Api>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use subtle::ConstantTimeEq;
    let Some(token) = api.metrics_token.clone() else {
        return ApiError::new(
            ErrorCode::NotFound,
            "Metrics are off; start moot with --metrics-token to serve them",
        )
        .into_response();
    };
    let given = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
        return ApiError::new(
            ErrorCode::Unauthorized,
            "/metrics needs Authorization: Bearer <the --metrics-token>",
        )
        .into_response();
    }
    let counted = api
        .world
        .call(crate::world::SERVER_ID.into(), Face::Rest, |w, _| {
            let mut by: BTreeMap<(String, String), u64> = BTreeMap::new();
            for id in w.session_ids() {
                let Some(s) = w.session(id) else { continue };
                let phase = if s.game.is_terminal() {
                    "over".to_owned()
                } else {
                    let state = s.game.state();
                    state["phase"].as_str().unwrap_or("running").to_owned()
                };
                *by.entry((s.template.id.to_owned(), phase)).or_default() += 1;
            }
            by
        })
        .await;
    match counted {
        Ok(by) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            crate::metrics::get().render(&by),
        )
            .into_response(),
        Err(e) => ApiError::new(ErrorCode::StorageUnavailable, e.to_string()).into_response(),
    }
}

/// Every 401 says where to find how to get a token (RFC 9728 §5.1), as MCP hosts expect: they
/// follow `resource_metadata` to moot's authorization server.
async fn point_to_metadata(
    State(public_url): State<Option<Arc<str>>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let host = req
        .headers()
        .get(axum::http::header::HOST)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut response = next.run(req).await;
    if response.status() == StatusCode::UNAUTHORIZED {
        let base = crate::oauth::public_base(public_url.as_deref(), host.as_deref());
        let value = format!(
            "Bearer realm=\"moot\", resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\", scope=\"{}\"",
            crate::oauth::SCOPE
        );
        if let Ok(v) = axum::http::HeaderValue::from_str(&value) {
            response
                .headers_mut()
                .insert(axum::http::header::WWW_AUTHENTICATE, v);
        }
    }
    response
}

/// The API's router, with `pages` (the web face's, already given their state) beside it.
pub fn router(
    api: Api,
    bound: std::net::SocketAddr,
    shutdown: &tokio_util::sync::CancellationToken,
    pages: axum::Router,
) -> axum::Router {
    let mut by_path: BTreeMap<&'static str, MethodRouter<Api>> = BTreeMap::new();
    for r in routes() {
        let m = (r.handler)();
        let merged = match by_path.remove(r.path) {
            Some(existing) => existing.merge(m),
            None => m,
        };
        by_path.insert(
            r.path,
            merged.fallback(|| async { ApiError::method_not_allowed() }),
        );
    }
    let mut router = axum::Router::new();
    for (path, m) in by_path {
        router = router.route(path, m);
    }
    router
        .route("/metrics", axum::routing::get(metrics))
        .merge(mcp_router(&api, bound, shutdown))
        .fallback(|| async {
            ApiError::new(ErrorCode::NotFound, "No such path; see /openapi.json")
        })
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .layer(axum::middleware::from_fn_with_state(
            api.public_url.clone(),
            point_to_metadata,
        ))
        .with_state(api)
        .merge(pages)
}
