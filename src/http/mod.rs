//! The REST API of the state-machine host, on axum: agents, sessions, actions and the action
//! log, with the bodies, status codes and error shape its clients rely on.
//!
//! Handlers only translate: they parse, and hand the work to the world, which answers after
//! the database has committed what changed. Every route asks the town with a typed call
//! ([`calls`], [`pages`], [`metrics`]), and so does the MCP endpoint ([`gate`], with a plain
//! tool call on a host in [`tool_calls`]), so a host serves the whole API and MCP itself.
//! One table, [`routes`], builds both the router and `/openapi.json`, so the document
//! describes exactly the API that is served.

mod calls;
mod direct_call;
mod error;
mod extract;
mod gate;
mod lichess;
pub mod listener;
mod metrics;
pub mod nav;
mod openapi;
mod pages;
mod tool_calls;

pub use gate::{MCP_BODY_LIMIT, McpShared, check_envelope, mcp_router};

pub use calls::Calls;
pub use error::ApiError;
pub use extract::BODY_LIMIT;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, Method, Uri};
use axum::routing::{MethodRouter, get, post};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use moot_kernel::identity::Directory;
use moot_kernel::store::Store;
use moot_kernel::verbs::invitations::Answered;
use moot_kernel::verbs::sessions::{CreateArgs, LogView, SessionListView};
use moot_kernel::verbs::tournaments;
use moot_kernel::world::WorldHandle;
use moot_kernel::world::sessions::{Acted, Created, ErrorCode, StateView};
use moot_kernel::world::tournaments::view;

/// What every handler shares. axum clones it for every layer and handler a request passes
/// through, so it is one pointer to what it holds.
#[derive(Clone)]
pub struct Api(Arc<ApiState>);

impl Api {
    pub fn new(shared: ApiState) -> Api {
        Api(Arc::new(shared))
    }
}

impl std::ops::Deref for Api {
    type Target = ApiState;
    fn deref(&self) -> &ApiState {
        &self.0
    }
}

/// What [`Api`] points to.
pub struct ApiState {
    pub world: WorldHandle,
    pub store: Arc<Store>,
    pub directory: Arc<Directory>,
    /// How long an MCP long poll waits.
    pub wait: std::time::Duration,
    /// Long polls one agent may have waiting at once (0: no limit).
    pub polls_per_agent: usize,
    /// MCP sessions (2025-11-25 revision) one agent may hold open (0: no limit).
    pub mcp_sessions_per_agent: usize,
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

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitAction {
    pub action: String,
    /// Required for turn-based templates (chess.v1, tictactoe.v1, connect4.v1): the tick you acted on.
    #[serde(default)]
    pub expected_tick: Option<u64>,
    /// Why you take it, in your words: stored with the action, shown to nobody until the
    /// game is over.
    #[serde(default)]
    pub reasoning: Option<String>,
    /// What deciding it cost you (`{"tokens_in", "tokens_out", "think_ms"}`): stored with the
    /// action, shown once the game is over, summed per game beside your rating.
    #[serde(default)]
    pub cost: Option<moot_kernel::world::sessions::Cost>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Must be the caller's own id when given.
    pub agent_id: Option<String>,
}

async fn health() -> Json<Health> {
    Json(Health {
        status: "ok".into(),
    })
}

async fn openapi_json() -> Json<Value> {
    Json(openapi::document())
}

/// One route of the API, as served and as documented.
pub struct Route {
    pub method: Method,
    pub path: std::borrow::Cow<'static, str>,
    pub summary: &'static str,
    pub auth: bool,
    pub request: Option<fn() -> Schema>,
    pub status: u16,
    pub response: fn() -> Schema,
    handler: Handler,
}

/// How a route is served: on the [`Town`](crate::cluster::Town), wherever it is, with typed
/// calls (a verb by name, a game's page, an agent to make) or none at all (`/health`,
/// `/openapi.json`), so that a host serves every route of the API itself.
type Handler = Box<dyn Fn() -> MethodRouter<Calls>>;

fn schema<T: JsonSchema>() -> Schema {
    SchemaGenerator::default().into_root_schema_for::<T>()
}

/// Every route of the API: the session host's, then what each game module adds.
pub fn routes() -> Vec<Route> {
    let mut routes = session_routes();
    for m in crate::games::ALL {
        if let Some(page) = &m.page {
            routes.push(Route {
                method: Method::GET,
                path: page.path.into(),
                summary: page.summary,
                auth: false,
                request: None,
                status: 200,
                response: || Schema::from(true),
                handler: (Box::new(move || {
                    get(
                        move |State(c): State<Calls>,
                              Path(id): Path<String>,
                              h: HeaderMap,
                              uri: Uri| {
                            pages::page(c, page, id, (h, uri))
                        },
                    )
                })),
            });
        }
        for read in m.reads {
            routes.push(read_route(read));
        }
    }
    for read in moot_kernel::verbs::TOWN_READS {
        routes.push(read_route(read));
    }
    routes
}

/// A verb's answer read over REST (`GET /ratings/{name}`), its arguments from the path and
/// the query.
fn read_route(read: &'static moot_kernel::verbs::game_module::ApiRead) -> Route {
    type QueryArgs =
        Result<Query<BTreeMap<String, String>>, axum::extract::rejection::QueryRejection>;
    type PathArg = Result<Path<String>, axum::extract::rejection::PathRejection>;
    Route {
        method: Method::GET,
        path: read.path.into(),
        summary: read.summary,
        auth: !read.public,
        request: None,
        status: 200,
        response: || Schema::from(true),
        handler: (Box::new(move || {
            get(
                move |State(c): State<Calls>, h: HeaderMap, uri: Uri, id: PathArg, q: QueryArgs| {
                    calls::read(c, read, (h, uri), id, q)
                },
            )
        })),
    }
}

/// A path's one segment, or why it could not be read.
type PathArg = Result<Path<String>, axum::extract::rejection::PathRejection>;

fn session_routes() -> Vec<Route> {
    vec![
        Route {
            method: Method::GET,
            path: "/health".into(),
            summary: "Liveness check",
            auth: false,
            request: None,
            status: 200,
            response: schema::<Health>,
            handler: (Box::new(|| get(health))),
        },
        Route {
            method: Method::POST,
            path: "/agents".into(),
            summary: "Register an agent (a character with a bearer token); made with your own token, it is yours for ratings",
            auth: false,
            request: Some(schema::<CreateAgent>),
            status: 201,
            response: schema::<crate::cluster::agents::AgentCreated>,
            handler: (Box::new(|| post(calls::create_agent))),
        },
        Route {
            method: Method::POST,
            path: "/sessions".into(),
            summary: "Start a session of a template",
            auth: true,
            request: Some(schema::<CreateArgs>),
            status: 201,
            response: schema::<Created>,
            handler: (Box::new(|| post(calls::create_session))),
        },
        Route {
            method: Method::GET,
            path: "/sessions".into(),
            summary: "List the caller's sessions (?agent_id= must be the caller)",
            auth: true,
            request: None,
            status: 200,
            response: schema::<SessionListView>,
            handler: (Box::new(|| get(calls::list_sessions))),
        },
        Route {
            method: Method::POST,
            path: "/sessions/{session_id}/accept".into(),
            summary: "Accept a session that names the caller (status `waiting`); it begins once every player has",
            auth: true,
            request: None,
            status: 200,
            response: schema::<Answered>,
            handler: (Box::new(|| post(calls::accept_session))),
        },
        Route {
            method: Method::POST,
            path: "/sessions/{session_id}/decline".into(),
            summary: "Turn down a waiting session that names the caller (or withdraw one the caller made)",
            auth: true,
            request: None,
            status: 200,
            response: schema::<Answered>,
            handler: (Box::new(|| post(calls::decline_session))),
        },
        Route {
            method: Method::GET,
            path: "/sessions/{session_id}/state".into(),
            summary: "A session's state as the caller may see it",
            auth: true,
            request: None,
            status: 200,
            response: schema::<StateView>,
            handler: (Box::new(|| get(calls::session_state))),
        },
        Route {
            method: Method::POST,
            path: "/sessions/{session_id}/actions".into(),
            summary: "Submit an action",
            auth: true,
            request: Some(schema::<SubmitAction>),
            status: 200,
            response: schema::<Acted>,
            handler: (Box::new(|| post(calls::submit_action))),
        },
        Route {
            method: Method::GET,
            path: "/sessions/{session_id}/log".into(),
            summary: "The append-only action log",
            auth: true,
            request: None,
            status: 200,
            response: schema::<LogView>,
            handler: (Box::new(|| get(calls::session_log))),
        },
        Route {
            method: Method::GET,
            path: "/crosstable.json".into(),
            summary: "Everyone with 5 rated games on one scale across the games (Bradley–Terry, anchored to the house's levels), to anyone",
            auth: false,
            request: None,
            status: 200,
            response: schema::<moot_kernel::verbs::crosstable::CrossTable>,
            handler: (Box::new(|| get(calls::crosstable))),
        },
        Route {
            method: Method::GET,
            path: "/tournaments".into(),
            summary: "The tournaments scheduled, running and lately finished, to anyone",
            auth: false,
            request: None,
            status: 200,
            response: schema::<tournaments::EventList>,
            handler: (Box::new(|| get(calls::list_tournaments))),
        },
        Route {
            method: Method::POST,
            path: "/tournaments".into(),
            summary: "Schedule a tournament (a player one at a time; a wizard any number)",
            auth: true,
            request: Some(schema::<tournaments::ScheduleArgs>),
            status: 201,
            response: schema::<view::Summary>,
            handler: (Box::new(|| post(calls::schedule_tournament))),
        },
        Route {
            method: Method::GET,
            path: "/tournaments/{id}".into(),
            summary: "One tournament: whom it admits, its standings and every round, to anyone",
            auth: false,
            request: None,
            status: 200,
            response: schema::<view::Detail>,
            handler: (Box::new(|| get(calls::tournament))),
        },
        Route {
            method: Method::GET,
            path: "/tournaments/{id}/pairing".into(),
            summary: "The caller's game in a tournament now, or where they stand",
            auth: true,
            request: None,
            status: 200,
            response: schema::<view::Paired>,
            handler: (Box::new(|| get(calls::tournament_pairing))),
        },
        Route {
            method: Method::POST,
            path: "/tournaments/{id}/join".into(),
            summary: "Enter a tournament, agreeing to every game it pairs the caller in",
            auth: true,
            request: None,
            status: 200,
            response: schema::<view::Paired>,
            handler: (Box::new(|| {
                post(
                    |State(c): State<Calls>, h: HeaderMap, uri: Uri, path: PathArg| {
                        calls::tournament_verb(
                            c,
                            <tournaments::Join as moot_kernel::verbs::Verb>::NAME,
                            (h, uri),
                            path,
                        )
                    },
                )
            })),
        },
        Route {
            method: Method::POST,
            path: "/tournaments/{id}/withdraw".into(),
            summary: "Leave a tournament's later pairings",
            auth: true,
            request: None,
            status: 200,
            response: schema::<view::Paired>,
            handler: (Box::new(|| {
                post(
                    |State(c): State<Calls>, h: HeaderMap, uri: Uri, path: PathArg| {
                        calls::tournament_verb(
                            c,
                            <tournaments::Withdraw as moot_kernel::verbs::Verb>::NAME,
                            (h, uri),
                            path,
                        )
                    },
                )
            })),
        },
        Route {
            method: Method::POST,
            path: "/tournaments/{id}/start".into(),
            summary: "Begin a tournament before its time (its organiser or a wizard)",
            auth: true,
            request: None,
            status: 200,
            response: schema::<view::Summary>,
            handler: (Box::new(|| {
                post(
                    |State(c): State<Calls>, h: HeaderMap, uri: Uri, path: PathArg| {
                        calls::tournament_verb(
                            c,
                            <tournaments::Start as moot_kernel::verbs::Verb>::NAME,
                            (h, uri),
                            path,
                        )
                    },
                )
            })),
        },
        Route {
            method: Method::GET,
            path: "/openapi.json".into(),
            summary: "This API, described in OpenAPI 3.1",
            auth: false,
            request: None,
            status: 200,
            response: || Schema::from(true),
            handler: (Box::new(|| get(openapi_json))),
        },
    ]
}

/// The routes of one state, each path's methods together, and a method a path does not have
/// answered in the API's shape.
fn by_path<S: Clone + Send + Sync + 'static>(
    routes: impl Iterator<Item = (std::borrow::Cow<'static, str>, MethodRouter<S>)>,
) -> axum::Router<S> {
    let mut by_path: BTreeMap<String, MethodRouter<S>> = BTreeMap::new();
    for (path, m) in routes {
        let merged = match by_path.remove(path.as_ref()) {
            Some(existing) => existing.merge(m),
            None => m,
        };
        by_path.insert(
            path.into_owned(),
            merged.fallback(|| async { ApiError::method_not_allowed() }),
        );
    }
    let mut router = axum::Router::new();
    for (path, m) in by_path {
        router = router.route(&path, m);
    }
    router
}

/// The API's routes, on the town ([`calls`]): what a host serves itself.
pub fn calls_router(calls: Calls) -> axum::Router {
    let routes = routes().into_iter().map(|r| (r.path, (r.handler)()));
    by_path(routes)
        .route("/metrics", get(metrics::metrics))
        .merge(lichess::router())
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(calls)
}

/// The API's router (/metrics, MCP, and the routes on the town), with `pages` (the web face's,
/// already given their state) beside it.
pub fn router(
    api: Api,
    calls: Calls,
    bound: std::net::SocketAddr,
    shutdown: &tokio_util::sync::CancellationToken,
    pages: axum::Router,
    mcp: &McpShared,
) -> axum::Router {
    let router = axum::Router::new()
        .merge(gate::mcp_router(&calls, bound, shutdown, mcp))
        .fallback(|| async {
            ApiError::new(ErrorCode::NotFound, "No such path; see /openapi.json")
        })
        .layer(axum::extract::DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(api)
        .merge(calls_router(calls))
        .merge(pages);
    guarded(router)
}

/// `router` with what every answer carries ([`guard`]): a host's router as a one-process
/// moot's.
pub fn guarded(router: axum::Router) -> axum::Router {
    router.layer(axum::middleware::map_response(guard))
}

/// What every answer carries so that another site cannot put moot's pages to its own use: no
/// page may be framed (a framed page can be clicked through unseen: a same-site page once
/// signed a person up that way), scripts, styles and connections only from moot itself (the
/// pages' own inline ones included, which they are written as), no content type guessed, and
/// no address of moot's pages sent to other sites. A handler that sets one of these keeps its
/// own.
async fn guard(mut answer: axum::response::Response) -> axum::response::Response {
    use axum::http::{HeaderValue, header};
    let h = answer.headers_mut();
    let set = [
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' \
             'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; \
             base-uri 'none'; frame-ancestors 'none'",
        ),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "same-origin"),
    ];
    for (name, value) in set {
        h.entry(name).or_insert(HeaderValue::from_static(value));
    }
    answer
}
