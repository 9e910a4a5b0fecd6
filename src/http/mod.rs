//! The REST API of seed 004 (the state-machine host), on axum: agents, sessions, actions and
//! the action log, with the seed's bodies, status codes and error shape.
//!
//! Handlers only translate: they authenticate, parse, and hand the work to the world through
//! [`WorldHandle::call`](crate::world::WorldHandle::call), which answers after the database has
//! committed what changed. One table, [`routes`], builds both the router and `/openapi.json`,
//! so the document describes exactly the API that is served.

mod error;
mod extract;
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

use crate::identity::{self, Directory};
use crate::store::sessions::{LogEntry, read_log};
use crate::store::{CreateError, Store, new_agent_id};
use crate::world::sessions::{Acted, Created, ErrorCode, StateView, Summary};
use crate::world::{Face, WorldHandle};
use extract::{Body, Caller, OptionalBody};

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
    /// The seed of the session's randomness; random when absent.
    #[serde(default)]
    pub seed: Option<u64>,
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
    OptionalBody(req): OptionalBody<CreateAgent>,
) -> Result<impl IntoResponse, ApiError> {
    if let Some(name) = &req.name {
        identity::validate_name(name).map_err(ApiError::invalid)?;
    }
    let agent_id = new_agent_id();
    let token = identity::issue_token(&agent_id);
    let row = api
        .store
        .create_agent(agent_id, req.name.clone(), token.hash, &api.start_room)
        .await
        .map_err(|e| match e {
            CreateError::NameTaken => ApiError::new(
                ErrorCode::Conflict,
                format!(
                    "The name \"{}\" is already in use",
                    req.name.unwrap_or_default()
                ),
            ),
            CreateError::Store(e) => ApiError::from(crate::world::Unavailable::Storage(e)),
        })?;
    api.directory
        .insert(&row.agent_id, &row.name, row.token_hash.as_deref());
    Ok((
        StatusCode::CREATED,
        Json(AgentCreated {
            agent_id: row.agent_id,
            token: token.token,
            name: row.name,
        }),
    ))
}

async fn create_session(
    State(api): State<Api>,
    Caller(me): Caller,
    Body(req): Body<CreateSession>,
) -> Result<impl IntoResponse, ApiError> {
    let created = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            w.create_session(cx, &req.template, &req.participants, req.options, req.seed)
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
                w.session_state(&id, &me)
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
            w.act(cx, &id, &req.action, req.expected_tick)
        })
        .await??;
    Ok(Json(acted))
}

async fn session_log(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
) -> Result<Json<Log>, ApiError> {
    let check = id.clone();
    api.world
        .call(me.clone(), Face::Rest, move |w, _| {
            w.participant_of(&check, &me).map(|_| ())
        })
        .await??;
    let actions = api
        .store
        .call(move |c| read_log(c, &id))
        .await
        .map_err(crate::world::Unavailable::Storage)?;
    Ok(Json(Log { actions }))
}

/// The interactive board of a chess game, for a plain browser: it reads and plays the game
/// through this API with the token the player types into it. (A chess position is public: it
/// stands in the parlour for anyone to look at.)
async fn chess_page(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Result<axum::response::Html<String>, ApiError> {
    let sid: u64 = id
        .parse()
        .map_err(|_| ApiError::new(ErrorCode::NotFound, format!("No chess game {id}")))?;
    let found = api
        .world
        .call("".into(), Face::Rest, move |w, _| {
            let s = w.session(sid)?;
            let g = crate::world::chess::chess_of(s)?;
            Some((g.fen().to_owned(), s.tick))
        })
        .await?;
    let (fen, tick) =
        found.ok_or_else(|| ApiError::new(ErrorCode::NotFound, format!("No chess game {id}")))?;
    Ok(axum::response::Html(crate::ui::chess_page(
        sid, &fen, "", tick,
    )))
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
            path: "/chess/{session_id}",
            summary: "The interactive board of a chess game (HTML; plays through this API)",
            auth: false,
            request: None,
            status: 200,
            response: || Schema::from(true),
            handler: || get(chess_page),
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

/// Checks the bearer token of a request to `/mcp` and passes the agent on to the MCP server;
/// without a valid token, 401 with `WWW-Authenticate`, as for the REST API.
async fn mcp_auth(
    State(api): State<Api>,
    mut req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    match extract::bearer(req.headers(), &api) {
        Ok(agent) => {
            req.extensions_mut()
                .insert(crate::mcp::McpAgent(agent.into()));
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
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
    let server =
        crate::mcp::MootMcp::new(api.world.clone(), api.store.clone(), None).with_wait(api.wait);
    let mut hosts = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    hosts.push(bound.ip().to_string());
    let mut config = StreamableHttpServerConfig::default().with_allowed_hosts(hosts);
    // Plain JSON answers when nothing streams (rmcp falls back to SSE on its own when a tool
    // sends progress first).
    config.json_response = true;
    // Sessions (of the 2025 revision) end with the server, so shutdown never waits on them.
    config.cancellation_token = shutdown.child_token();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        config,
    );
    axum::Router::new()
        .nest_service("/mcp", service)
        .route_layer(axum::middleware::from_fn_with_state(api.clone(), mcp_auth))
}

pub fn router(
    api: Api,
    bound: std::net::SocketAddr,
    shutdown: &tokio_util::sync::CancellationToken,
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
        .merge(mcp_router(&api, bound, shutdown))
        .fallback(|| async {
            ApiError::new(ErrorCode::NotFound, "No such path; see /openapi.json")
        })
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(api)
}
