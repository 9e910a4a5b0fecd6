//! The town on the web, for people who would rather look than type: the town map (`/`), each
//! Werewolf match's page (`/werewolf/<id>`), live through server-sent events, and signing in
//! with a character's name and password for a cookie session. Pages are plain HTML and a
//! little JavaScript served from the binary; nothing to build.
//!
//! Like every face this one only translates: what a viewer may see is decided by the world and
//! the verbs (the same per-viewer filter as telnet and MCP), from the identity the cookie
//! names, never from what the page asks for.

mod cookies;
mod live;
mod oauth;
mod public;
mod ratings;
mod signin;

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

use crate::logins::Logins;
pub use cookies::Sessions;
use cookies::Signed;
use moot_kernel::identity::Directory;
use moot_kernel::store::Store;
use moot_kernel::verbs::game_module::{Access, GameModule, Page, WebAction, WebMethod};
use moot_kernel::world::sessions::{SessionId, parse_id};
use moot_kernel::world::{AgentId, Face, SERVER_ID, WorldHandle};

/// What every page handler shares.
#[derive(Clone)]
pub struct Web {
    pub world: WorldHandle,
    pub store: Arc<Store>,
    pub directory: Arc<Directory>,
    pub logins: Arc<Logins>,
    pub sessions: Arc<Sessions>,
    /// Cancelled when moot stops: live streams end then, or the listener would wait on them.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// The shared feeds of matches watched signed out.
    pub public: Arc<public::PublicFeeds>,
    /// Where moot is reached from outside (`--public-url`), for OAuth's metadata; otherwise
    /// the request's host.
    pub public_url: Option<String>,
    /// OAuth authorization codes waiting to be exchanged.
    pub codes: Arc<std::sync::Mutex<moot_kernel::oauth::Codes>>,
    /// OAuth client registrations per address.
    pub registrations: Arc<moot_kernel::limits::Limiter<moot_kernel::limits::Address>>,
}

impl Web {
    pub fn new(
        world: WorldHandle,
        store: Arc<Store>,
        directory: Arc<Directory>,
        logins: Arc<Logins>,
        shutdown: tokio_util::sync::CancellationToken,
    ) -> Web {
        Web {
            world,
            store,
            directory,
            logins,
            shutdown,
            public: Arc::default(),
            public_url: None,
            codes: Arc::default(),
            // Ten registrations a minute per address, in bursts of ten.
            registrations: Arc::new(moot_kernel::limits::Limiter::new(10.0 / 60.0, 10)),
            // A week idle ends a session; ten thousand at once is plenty for one town.
            sessions: Arc::new(Sessions::new(10_000, Duration::from_secs(7 * 24 * 3600))),
        }
    }

    /// Who the request's cookie says is signed in, if anyone.
    fn visitor(&self, headers: &HeaderMap) -> Option<Signed> {
        self.sessions.get(&cookies::session_id(headers)?)
    }

    /// Who asks for a change from a page: someone signed in (else `unsigned` is the answer),
    /// with the session's CSRF token, from moot's own origin.
    fn changer(&self, headers: &HeaderMap, unsigned: &str) -> Result<Signed, Box<Response>> {
        let Some(s) = self.visitor(headers) else {
            return Err(Box::new(refused(StatusCode::UNAUTHORIZED, unsigned)));
        };
        let token = headers
            .get("x-csrf-token")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !signin::csrf_ok(&s, token) || !signin::same_origin(headers) {
            return Err(Box::new(refused(
                StatusCode::FORBIDDEN,
                "This request did not come from moot's own page.",
            )));
        }
        Ok(s)
    }
}

/// The pages' routes (merged into the HTTP listener's router).
pub fn router(web: Web) -> axum::Router {
    let mut router = axum::Router::new();
    // Each game's page streams its frames at `{page}/live`.
    for m in crate::games::ALL {
        let Some(page) = &m.page else {
            continue;
        };
        router = router.route(
            &format!("{}/live", page.path),
            get(
                move |State(web): State<Web>, Path(id): Path<String>, headers: HeaderMap| {
                    game_live(web, m, page, id, headers)
                },
            ),
        );
    }
    // What the pages ask of the world, each at the path its module gives.
    let actions = crate::games::ALL
        .iter()
        .filter_map(|m| m.page.as_ref())
        .flat_map(|p| p.actions);
    for a in actions {
        router = router.route(a.path, action_route(a));
    }
    router
        .route("/", get(town_page))
        .route("/town.json", get(town_json))
        .route("/skill.md", get(skill_page))
        .route("/leaderboard/{game}", get(ratings::leaderboard))
        .route("/players/{name}", get(ratings::player))
        .route("/town/live", get(town_live))
        .route("/login", get(signin::login_page).post(signin::login))
        .route("/logout", post(signin::logout))
        .route("/me", get(signin::me))
        .route(
            "/.well-known/oauth-protected-resource",
            get(oauth::protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(oauth::protected_resource),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp/{set}",
            get(oauth::toolset_resource),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::server_metadata),
        )
        .route("/oauth/register", post(oauth::register))
        .route(
            "/oauth/authorize",
            get(oauth::authorize_page).post(oauth::authorize),
        )
        .route("/oauth/token", post(oauth::token))
        // The same bound on bodies as the API's (a sign-in form or a toggle is a few bytes).
        .layer(axum::extract::DefaultBodyLimit::max(
            crate::http::BODY_LIMIT,
        ))
        .with_state(web)
}

/// The town's page, with each game's part put in once.
static TOWN_PAGE: std::sync::LazyLock<String> =
    std::sync::LazyLock::new(|| crate::games::town_page(include_str!("town.html")));

async fn town_page() -> Html<&'static str> {
    Html(TOWN_PAGE.as_str())
}

/// The page an agent reads first, with this server's own addresses.
async fn skill_page(State(web): State<Web>, headers: HeaderMap) -> Response {
    let base = oauth::base(&web, &headers);
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/markdown; charset=utf-8",
        )],
        crate::games::skill::skill_md(&base),
    )
        .into_response()
}

async fn town_json(State(web): State<Web>) -> Response {
    match web
        .world
        .call(SERVER_ID.into(), Face::Rest, |w, _| crate::games::town(w))
        .await
    {
        Ok(v) => Json(v).into_response(),
        Err(e) => unavailable(&e.to_string()),
    }
}

/// The town as it changes: a frame after each change (at most a few a second), the same for
/// everyone, since all of it is what anyone walking the town could see.
async fn town_live(State(web): State<Web>) -> Response {
    live::stream(move |frames| async move {
        let mut last = Value::Null;
        loop {
            let read = web
                .world
                .call(SERVER_ID.into(), Face::Rest, |w, _| {
                    (crate::games::town(w), w.watch_town())
                })
                .await;
            let Ok((town, mut changed)) = read else {
                return;
            };
            if town != last {
                if !frames.send("town", &town).await {
                    return;
                }
                last = town;
            }
            tokio::select! {
                r = changed.changed() => if r.is_err() { return },
                () = frames.closed() => return,
                () = web.shutdown.cancelled() => return,
            }
            // Let a burst of changes settle into one frame.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .into_response()
}

/// A game as it happens, for whoever the cookie names (or the public): a frame at once, then
/// one after each change, each with what is new since the last; the last frame is the end.
/// Where the game shares one feed among signed-out spectators, they get that feed.
async fn game_live(
    web: Web,
    module: &'static GameModule,
    page: &'static Page,
    id: String,
    headers: HeaderMap,
) -> Response {
    let Ok(sid) = parse_id(&id) else {
        return not_found(&id);
    };
    let viewer: Option<AgentId> = web.visitor(&headers).map(|s| s.agent);
    // Whether it is a game of this module, without drawing a frame only to throw it away
    // (every spectator of a crowded match asks this).
    let there = web
        .world
        .call(SERVER_ID.into(), Face::Rest, move |w, _| {
            w.session(sid)
                .is_some_and(|s| module.templates.iter().any(|t| t.id == s.template.id))
        })
        .await;
    match there {
        Ok(true) => {}
        Ok(false) => return not_found(&id),
        Err(e) => return unavailable(&e.to_string()),
    }
    if viewer.is_none() && page.shared_feed {
        return public_live(web, page, sid).into_response();
    }
    live::stream(move |frames| {
        follow_session(web, frames, sid, move |w, after| {
            (page.frame)(w, viewer.as_ref(), sid, after)
        })
    })
    .into_response()
}

/// Feeds `frames` with session `sid` as `read` draws it: a frame now and one after each stored
/// change, until `read` says a frame is the last, the browser goes, or moot stops. `read` is
/// given the `cursor` of the frame before (so it may send only what is new since).
async fn follow_session<R>(web: Web, frames: live::Frames, sid: SessionId, read: R)
where
    R: Fn(&moot_kernel::world::World, Option<usize>) -> Option<(Value, bool)>
        + Clone
        + Send
        + 'static,
{
    let mut after: Option<usize> = None;
    let mut sent = live::Unchanged::default();
    loop {
        let read = read.clone();
        let got = web
            .world
            .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                (read(w, after), w.watch_session(sid))
            })
            .await;
        let Ok((Some((frame, last)), mut changed)) = got else {
            return;
        };
        // A cursor counts one reader's events: if the reader changed (the all-seeing view
        // was asked for elsewhere), the whole match again, in their numbering.
        if sent.reader_changed(&frame) && after.is_some() {
            after = None;
            continue;
        }
        after = frame["cursor"].as_u64().map(|n| n as usize);
        // Nothing this reader may see happened (a hidden action moved the match): no frame.
        if sent.is_news(&frame) && !frames.send("frame", &frame).await || last {
            return;
        }
        tokio::select! {
            r = changed.changed() => if r.is_err() { return },
            () = frames.closed() => return,
            () = web.shutdown.cancelled() => return,
        }
    }
}

/// A match for someone signed out: the whole match as the public sees it, then the shared
/// feed's frames (a spectator that falls too far behind is sent the whole match again).
fn public_live(web: Web, page: &'static Page, sid: SessionId) -> Response {
    live::stream(move |frames| async move {
        let mut feed = web.public.subscribe(&web, page, sid);
        let mut whole = true;
        loop {
            if whole {
                let read = web
                    .world
                    .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                        (page.frame)(w, None, sid, None)
                    })
                    .await;
                let Ok(Some((frame, ended))) = read else {
                    return;
                };
                if !frames.send("frame", &frame).await || ended {
                    return;
                }
                whole = false;
            }
            tokio::select! {
                got = feed.recv() => match got {
                    Ok(text) => {
                        if !frames.send_text("frame", &text).await {
                            return;
                        }
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => whole = true,
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
                () = frames.closed() => return,
                () = web.shutdown.cancelled() => return,
            }
        }
    })
    .into_response()
}

/// A game's page asks the world for something (a [`WebAction`]): checked here for who asks, run
/// in the world as them, and answered as the verb that did it answered.
async fn action(
    web: Web,
    action: &'static WebAction,
    id: Option<String>,
    args: Value,
    headers: HeaderMap,
) -> Response {
    let sid = match id.as_deref().map(parse_id) {
        None => None,
        Some(Ok(sid)) => Some(sid),
        Some(Err(_)) => return not_found(id.as_deref().unwrap_or_default()),
    };
    let (actor, row) = match action.access {
        Access::Public => (AgentId::from(SERVER_ID), None),
        Access::SignedIn { unsigned, arrive } => {
            let signed = if action.method == WebMethod::Post {
                web.changer(&headers, unsigned)
            } else {
                web.visitor(&headers)
                    .ok_or_else(|| Box::new(refused(StatusCode::UNAUTHORIZED, unsigned)))
            };
            let s = match signed {
                Ok(s) => s,
                Err(refusal) => return *refusal,
            };
            // Someone not in the town comes into it first, as an agent does (until
            // `--idle-timeout` passes without a word from them).
            let row = if arrive {
                match web.store.agent_by_id(&s.agent).await {
                    Ok(Some(row)) => Some(row),
                    Ok(None) => return refused(StatusCode::UNAUTHORIZED, "Sign in again."),
                    Err(e) => return unavailable(&e.to_string()),
                }
            } else {
                None
            };
            (s.agent, row)
        }
    };
    let answer = web
        .world
        .call(actor, Face::Rest, move |w, cx| {
            if let Some(row) = row {
                w.arrive_agent(cx, row);
            }
            (action.run)(w, cx, sid, args)
        })
        .await;
    let status = StatusCode::from_u16(action.refused).unwrap_or(StatusCode::BAD_REQUEST);
    verb_answer(answer, status)
}

/// The route for `a`: the game's id from the path if it names one, and the arguments from the
/// query (GET) or the JSON body (POST).
fn action_route(a: &'static WebAction) -> axum::routing::MethodRouter<Web> {
    type Args = Query<std::collections::BTreeMap<String, String>>;
    let with_id = a.path.contains('{');
    match (a.method, with_id) {
        (WebMethod::Get, false) => get(
            move |State(web): State<Web>, Query(q): Args, h: HeaderMap| {
                action(web, a, None, json!(q), h)
            },
        ),
        (WebMethod::Get, true) => get(
            move |State(web): State<Web>, Path(id): Path<String>, Query(q): Args, h: HeaderMap| {
                action(web, a, Some(id), json!(q), h)
            },
        ),
        (WebMethod::Post, false) => post(
            move |State(web): State<Web>, h: HeaderMap, Json(body): Json<Value>| {
                action(web, a, None, body, h)
            },
        ),
        (WebMethod::Post, true) => post(
            move |State(web): State<Web>,
                  Path(id): Path<String>,
                  h: HeaderMap,
                  Json(body): Json<Value>| action(web, a, Some(id), body, h),
        ),
    }
}

/// A verb's answer to a page: its data, or its refusal in the tools' shape with the status its
/// code calls for (`refused` for the refusals of the verb's own rules).
fn verb_answer(
    answer: Result<Result<Value, moot_kernel::verbs::VerbError>, moot_kernel::world::Unavailable>,
    refused: StatusCode,
) -> Response {
    use moot_kernel::game_api::Code;
    match answer {
        Ok(Ok(data)) => Json(data).into_response(),
        Ok(Err(e)) => {
            let status = match e.code {
                Some(Code::RateLimited) => StatusCode::TOO_MANY_REQUESTS,
                Some(Code::Internal) => StatusCode::INTERNAL_SERVER_ERROR,
                Some(Code::StorageUnavailable) => StatusCode::SERVICE_UNAVAILABLE,
                _ => refused,
            };
            let data = e
                .data
                .unwrap_or_else(|| json!({ "ok": false, "error": { "message": e.message } }));
            (status, Json(data)).into_response()
        }
        Err(e) => unavailable(&e.to_string()),
    }
}

pub(super) fn refused(status: StatusCode, message: &str) -> Response {
    (
        status,
        Json(json!({ "ok": false, "error": { "message": message } })),
    )
        .into_response()
}

fn not_found(id: &str) -> Response {
    refused(StatusCode::NOT_FOUND, &format!("No such game: {id}"))
}

fn unavailable(why: &str) -> Response {
    refused(StatusCode::SERVICE_UNAVAILABLE, why)
}
