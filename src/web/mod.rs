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
pub use signin::escape;

use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::cluster::Town;
use crate::cluster::calls::CallRefused;
use crate::cluster::visits::{
    ActionCall, ActionRefused, FrameAnswer, FrameAsk, Posted, Versioned, Visitor, WebAsk,
};
use moot_kernel::verbs::game_module::{Page, WebAction, WebMethod};
use moot_kernel::world::sessions::parse_id;

/// What every page handler shares: the town, in this process or across the broker (the
/// pages ask it typed questions, [`WebAsk`], so a host serves them as a one-process moot
/// does).
#[derive(Clone)]
pub struct Web {
    pub town: Arc<Town>,
    /// Cancelled when moot stops: live streams end then, or the listener would wait on them.
    pub shutdown: tokio_util::sync::CancellationToken,
    /// The shared feeds of matches watched signed out, from this process.
    pub public: Arc<public::PublicFeeds>,
    /// Where moot is reached from outside (`--public-url`), for OAuth's metadata and the
    /// origin a page's request must come from; otherwise the request's host.
    pub public_url: Option<String>,
    /// Whether that is https: the cookie is then `Secure` (see [`cookies`]).
    pub secure: bool,
    /// Where this process's telnet listener is, for the town page's "how to join".
    pub telnet: Option<std::net::SocketAddr>,
}

impl Web {
    pub fn new(
        town: Arc<Town>,
        public_url: Option<String>,
        shutdown: tokio_util::sync::CancellationToken,
    ) -> Web {
        let secure = public_url.as_deref().is_some_and(|u| {
            u.get(..8)
                .is_some_and(|s| s.eq_ignore_ascii_case("https://"))
        });
        Web {
            town,
            shutdown,
            public: Arc::default(),
            public_url,
            secure,
            telnet: None,
        }
    }

    /// Asks the town `ask`; its answer, or the page's answer why there is none.
    async fn ask<T: DeserializeOwned>(&self, ask: WebAsk) -> Result<T, Response> {
        let called = self.town.web(ask).await.map_err(not_answered)?;
        serde_json::from_str(called.get()).map_err(|e| {
            tracing::error!(error = %e, "a page's answer does not read");
            not_answered(CallRefused::Unavailable(
                moot_kernel::world::Unavailable::Internal,
            ))
        })
    }

    /// Who the request's cookie says is signed in, if anyone.
    async fn visitor(&self, headers: &HeaderMap) -> Result<Option<Visitor>, Response> {
        match cookies::session_id(headers, self.secure) {
            Some(cookie) => self.ask(WebAsk::Visitor { cookie }).await,
            None => Ok(None),
        }
    }
}

/// The answer to a page's question the town did not answer.
fn not_answered(why: CallRefused) -> Response {
    match why {
        CallRefused::Unavailable(e) => unavailable(&e.to_string()),
        CallRefused::Unknown => crate::http::ApiError::outcome_unknown().into_response(),
        CallRefused::TooLarge(most) => crate::http::ApiError::too_large(most).into_response(),
        CallRefused::Away => crate::http::ApiError::away().into_response(),
        why => {
            tracing::error!(?why, "a page's question was refused as no page's is");
            refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong; nothing changed.",
            )
        }
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
                    game_live(web, page, id, headers)
                },
            ),
        );
    }
    // What the pages ask of the world, each at the path its module gives.
    for a in crate::games::web_actions() {
        router = router.route(a.path, action_route(a));
    }
    router
        .route("/", get(town_page))
        .route("/town.json", get(town_json))
        .route("/skill.md", get(skill_page))
        .route("/console", get(console_page))
        .route("/moot-play.js", get(play_script))
        .route("/crosstable", get(crosstable_page))
        .route("/tournament", get(tournament_page))
        .route("/tournament/{id}", get(tournament_page))
        .route("/leaderboard", get(ratings::leaderboards))
        .route("/leaderboard/{game}", get(ratings::leaderboard))
        .route("/players", get(ratings::players))
        .route("/players/{name}", get(ratings::player))
        .route("/town/live", get(town_live))
        .route("/login", get(signin::login_page).post(signin::login))
        .route("/signup", get(signin::login_page).post(signin::signup))
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

/// The town's page, with each game's part put in once and the site's navigation.
static TOWN_PAGE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    crate::http::nav::with_nav(&crate::games::town_page(include_str!("town.html")))
});

/// The host of a URL, without its scheme, port or path (`https://moot.example:8443/x` →
/// `moot.example`).
fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    moot_kernel::oauth::host_in(authority)
}

/// The town's page, saying how to join at the addresses this moot is reached at: the public
/// URL's host (or the request's) for telnet where it listens on every address.
async fn town_page(State(web): State<Web>, headers: HeaderMap) -> Html<String> {
    let base = oauth::base(&web, &headers);
    let host_of_base = host_of(&base).to_owned();
    let (host, port) = match web.telnet {
        Some(t) if !t.ip().is_unspecified() && web.public_url.is_none() => {
            (t.ip().to_string(), t.port().to_string())
        }
        Some(t) => (host_of_base, t.port().to_string()),
        None => (host_of_base, "7777".to_owned()),
    };
    Html(
        TOWN_PAGE
            .replace("{{telnet_host}}", &signin::escape(&host))
            .replace("{{telnet_port}}", &port)
            .replace("{{web}}", &signin::escape(&base)),
    )
}

/// The page an agent reads first, with this server's own addresses.
/// The web console: every verb, typed, and what the town says, as a telnet player has them.
async fn console_page() -> Html<String> {
    Html(crate::http::nav::with_nav(include_str!("console.html")))
}

/// The cross-game table (`/crosstable`), drawn from `/crosstable.json`, the `crosstable`
/// verb's answer.
async fn crosstable_page() -> Html<String> {
    Html(crate::http::nav::with_nav(include_str!("crosstable.html")))
}

/// The tournaments' page, the list's (`/tournament`) and each event's (`/tournament/3`): it
/// draws itself from `/tournament/data`, the `tournaments` and `tournament` verbs' answers.
async fn tournament_page() -> Html<String> {
    Html(crate::http::nav::with_nav(include_str!("tournament.html")))
}

/// What the game pages share to play from the browser (see its first lines).
async fn play_script() -> Response {
    (
        [(
            axum::http::header::CONTENT_TYPE,
            "text/javascript; charset=utf-8",
        )],
        include_str!("play.js"),
    )
        .into_response()
}

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
        .ask::<Versioned<Value>>(WebAsk::Town { seen: None })
        .await
    {
        Ok(Versioned {
            value: Some(town), ..
        }) => Json(town).into_response(),
        Ok(_) => not_answered(CallRefused::Unavailable(
            moot_kernel::world::Unavailable::Internal,
        )),
        Err(r) => r,
    }
}

/// How long a live page waits to ask again when the town did not answer (it may be
/// restarting: the page goes on once it is back).
const AGAIN_AFTER: Duration = Duration::from_millis(500);

/// The town as it changes: a frame after each change (at most a few a second), the same for
/// everyone, since all of it is what anyone walking the town could see.
async fn town_live(State(web): State<Web>) -> Response {
    live::stream(move |frames| async move {
        let mut last = Value::Null;
        let mut seen = None;
        loop {
            let asked = web.ask::<Versioned<Value>>(WebAsk::Town { seen });
            let answer = tokio::select! {
                answer = asked => answer,
                () = frames.closed() => return,
                () = web.shutdown.cancelled() => return,
            };
            match answer {
                Ok(Versioned { value, version }) => {
                    seen = Some(version);
                    let Some(town) = value else { continue };
                    if town != last {
                        if !frames.send("town", &town).await {
                            return;
                        }
                        last = town;
                    }
                    // Let a burst of changes settle into one frame.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
                Err(_) => tokio::time::sleep(AGAIN_AFTER).await,
            }
        }
    })
    .into_response()
}

/// A game as it happens, for whoever the cookie names (or the public): a frame at once, then
/// one after each change, each with what is new since the last; the last frame is the end.
/// Where the game shares one feed among signed-out spectators, they get that feed.
async fn game_live(web: Web, page: &'static Page, id: String, headers: HeaderMap) -> Response {
    if parse_id(&id).is_err() {
        return not_found(&id);
    }
    let cookie = cookies::session_id(&headers, web.secure);
    let signed_in = match web.visitor(&headers).await {
        Ok(v) => v.is_some(),
        Err(r) => return r,
    };
    if !signed_in && page.shared_feed {
        return public::live(web, page, id).await;
    }
    let ask = FrameAsk::first(page.path, &id, cookie.filter(|_| signed_in));
    // The first frame says whether it is a game of this module at all.
    let first = match web.ask::<FrameAnswer>(WebAsk::Frame(ask.clone())).await {
        Ok(FrameAnswer::NoGame) => return not_found(&id),
        Ok(FrameAnswer::Frame(first)) => first,
        Err(r) => return r,
    };
    live::stream(move |frames| follow_game(web, frames, ask, first)).into_response()
}

/// Feeds `frames` with a game's frames as `ask` asks for them, from `first`: one after each
/// stored change, until a frame says it is the last, the browser goes, or moot stops. Each
/// question gives the `cursor` of the frame before (so only what is new since is sent).
async fn follow_game(
    web: Web,
    frames: live::Frames,
    mut ask: FrameAsk,
    first: Versioned<(Value, bool)>,
) {
    let mut sent = live::Unchanged::default();
    ask.seen = Some(first.version);
    let mut got = first.value;
    loop {
        if let Some((frame, last)) = got.take() {
            // A cursor counts one reader's events: if the reader changed (the all-seeing view
            // was asked for elsewhere), the whole match again, in their numbering.
            if sent.reader_changed(&frame) && ask.after.is_some() {
                ask.after = None;
                ask.seen = None;
            } else {
                ask.after = frame["cursor"].as_u64().map(|n| n as usize);
                // Nothing this reader may see happened (a hidden action moved the match): no
                // frame.
                if sent.is_news(&frame) && !frames.send("frame", &frame).await || last {
                    return;
                }
            }
        }
        match next_frame(&web, &mut ask, frames.closed()).await {
            Some(next) => got = next,
            None => return,
        }
    }
}

/// The next answer to `ask` (none if the game did not change within the world's long poll),
/// asked again while the town does not answer (it may be restarting); its version kept in
/// `ask` for the next question. `None` once there is no such game, `until` resolves or moot
/// stops.
async fn next_frame(
    web: &Web,
    ask: &mut FrameAsk,
    until: impl Future<Output = ()>,
) -> Option<Option<(Value, bool)>> {
    tokio::pin!(until);
    loop {
        let asked = web.ask::<FrameAnswer>(WebAsk::Frame(ask.clone()));
        let answer = tokio::select! {
            answer = asked => answer,
            () = &mut until => return None,
            () = web.shutdown.cancelled() => return None,
        };
        match answer {
            Ok(FrameAnswer::Frame(got)) => {
                ask.seen = Some(got.version);
                return Some(got.value);
            }
            Ok(FrameAnswer::NoGame) => return None,
            Err(_) => tokio::time::sleep(AGAIN_AFTER).await,
        }
    }
}

/// A game's page asks the world for something (a [`WebAction`]): run in the world as whoever
/// the cookie signs in, and answered as the verb that did it answered.
async fn action(
    web: Web,
    action: &'static WebAction,
    id: Option<String>,
    args: Value,
    headers: HeaderMap,
) -> Response {
    if let Some(id) = id.as_deref()
        && parse_id(id).is_err()
    {
        return not_found(id);
    }
    let post = (action.method == WebMethod::Post).then(|| Posted {
        csrf: headers
            .get("x-csrf-token")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned(),
        same_origin: web.same_origin(&headers),
    });
    let call = ActionCall {
        path: action.path.to_owned(),
        post,
        id,
        args,
        cookie: cookies::session_id(&headers, web.secure),
    };
    match web
        .ask::<Result<Value, ActionRefused>>(WebAsk::Action(call))
        .await
    {
        Ok(Ok(data)) => Json(data).into_response(),
        Ok(Err(why)) => action_refused(why),
        Err(r) => r,
    }
}

fn action_refused(why: ActionRefused) -> Response {
    use moot_kernel::game_api::Code;
    match why {
        ActionRefused::Unsigned(why) => refused(StatusCode::UNAUTHORIZED, &why),
        ActionRefused::Forbidden => refused(
            StatusCode::FORBIDDEN,
            "This request did not come from moot's own page.",
        ),
        ActionRefused::SignInAgain => refused(StatusCode::UNAUTHORIZED, "Sign in again."),
        ActionRefused::NoGame(id) => not_found(&id),
        ActionRefused::Verb { refusal, status } => {
            let status = match refusal.code {
                Some(Code::RateLimited) => StatusCode::TOO_MANY_REQUESTS,
                Some(Code::Internal) => StatusCode::INTERNAL_SERVER_ERROR,
                Some(Code::StorageUnavailable) => StatusCode::SERVICE_UNAVAILABLE,
                _ => StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
            };
            let data = refusal
                .data
                .unwrap_or_else(|| json!({ "ok": false, "error": { "message": refusal.message } }));
            (status, Json(data)).into_response()
        }
    }
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
            move |State(web): State<Web>, h: HeaderMap, body: JsonBody| {
                posted(web, a, None, body, h)
            },
        ),
        (WebMethod::Post, true) => post(
            move |State(web): State<Web>, Path(id): Path<String>, h: HeaderMap, body: JsonBody| {
                posted(web, a, Some(id), body, h)
            },
        ),
    }
}

/// A page's button's body, or why axum could not read it as JSON.
type JsonBody = Result<Json<Value>, axum::extract::rejection::JsonRejection>;

/// [`action`] for a posted body, or its refusal in the pages' own shape if it is not JSON (not
/// axum's plain text): 413 too large, 415 not said to be JSON, else 400.
async fn posted(
    web: Web,
    a: &'static WebAction,
    id: Option<String>,
    body: JsonBody,
    h: HeaderMap,
) -> Response {
    let e = match body {
        Ok(Json(body)) => return action(web, a, id, body, h).await,
        Err(e) => e,
    };
    tracing::debug!(error = %e, "a page's button sent what is not JSON");
    let status = match e.status() {
        s @ (StatusCode::PAYLOAD_TOO_LARGE | StatusCode::UNSUPPORTED_MEDIA_TYPE) => s,
        _ => StatusCode::BAD_REQUEST,
    };
    let why = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "The request's body is larger than a page's button sends.",
        _ => {
            "Send the request's body as JSON (Content-Type: application/json), as moot's own \
              pages do."
        }
    };
    refused(status, why)
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
