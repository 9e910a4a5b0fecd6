//! The web's pages as typed questions: what a page needs of the world (the town map, a game's
//! frames, who a cookie signs in, a page's button, the ratings pages), asked by whichever
//! process holds the browser's socket and answered by the world, which alone holds the
//! cookie sessions, the logins and the database. So a host serves the web itself, as it serves
//! the REST API and MCP, and the world sees no HTTP.
//!
//! The live pages ask in long polls: "the town once it is no longer at version `seen`", "this
//! game's frame after cursor `after` once it changed since `seen`". Each answer carries the
//! version it was read at, read in the same turn of the world task as what it versions, so
//! no change falls between two questions; and each question waits at most [`LONG_POLL`], so
//! a browser that left costs the world one bounded wait.

use std::net::IpAddr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::watch;

use super::calls::{CallRefused, Called, Refusal, written};
use super::door::Door;
use moot_kernel::verbs::game_module::{Access, GameModule, Page, WebAction, WebMethod};
use moot_kernel::verbs::ratings::{self as views, Leaderboards, PlayedView, RatingsView, Whom};
use moot_kernel::world::sessions::parse_id;
use moot_kernel::world::{AgentId, Face, SERVER_ID, Unavailable, World};

pub use super::grants::{AllowRefused, AuthRequest, OAuthAsk, OAuthRefused, TokenRequest};
pub use super::signed::Visits;

/// The longest the world holds a live page's question before answering "unchanged".
pub const LONG_POLL: Duration = Duration::from_secs(20);

/// The games a player's page lists, newest first.
const GAMES_LISTED: usize = 30;
/// The rated results a player's page charts (the latest).
const POINTS_CHARTED: usize = 1000;

/// What a page asks of the world.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum WebAsk {
    /// The town map (`/town.json`, `/town/live`), once its version is not `seen`:
    /// a [`Versioned`] map (JSON).
    Town { seen: Option<u64> },
    /// A game's frame for whoever the cookie signs in (the public if nobody): a
    /// [`FrameAnswer`].
    Frame(FrameAsk),
    /// Who a cookie signs in: an `Option<`[`Visitor`]`>`.
    Visitor { cookie: String },
    /// A name and a password (or an API token) from `ip`, for a cookie session:
    /// `Result<String, Refused>`, the cookie's value.
    SignIn {
        ip: IpAddr,
        name: String,
        password: String,
    },
    /// A new character made on the web from `ip` (the same rules as telnet's `create`, and
    /// the limit on what one address may make), signed in at once: `Result<String, Made>`,
    /// the cookie's value.
    SignUp {
        ip: IpAddr,
        name: String,
        password: String,
    },
    /// The session `cookie` ends, if the page's `csrf` is its own: a bool, whether it was
    /// refused for want of it.
    SignOut { cookie: String, csrf: String },
    /// A game page's button ([`WebAction`]): `Result<Value, ActionRefused>`.
    Action(ActionCall),
    /// A game's leaderboards: `Result<Leaderboards, String>`.
    Leaderboard {
        game: String,
        whom: Whom,
        /// A past season (its rules' hash); the current when none.
        #[serde(default)]
        season: Option<String>,
    },
    /// A player's page: `Result<PlayerPage, String>`.
    Player { name: String },
    /// OAuth's authorization server (see [`super::grants`]).
    OAuth(OAuthAsk),
}

impl WebAsk {
    /// Whether it changes nothing, so that a host may ask it again across a restart of the
    /// world.
    pub fn read_only(&self) -> bool {
        match self {
            WebAsk::Town { .. }
            | WebAsk::Frame(_)
            | WebAsk::Visitor { .. }
            | WebAsk::Leaderboard { .. }
            | WebAsk::Player { .. } => true,
            WebAsk::Action(a) => a.post.is_none(),
            WebAsk::OAuth(OAuthAsk::Check(_)) => true,
            WebAsk::SignIn { .. }
            | WebAsk::SignUp { .. }
            | WebAsk::SignOut { .. }
            | WebAsk::OAuth(_) => false,
        }
    }
}

/// Why the web made no character.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum NotMade {
    /// As telnet's `create` refuses it.
    Refused(crate::logins::CreateRefused),
    /// Too many made from this address lately; again after this long.
    TooMany(std::time::Duration),
    /// The address is banned.
    Banned,
}

/// What a live page is sent, and the version it was read at (for the next question).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Versioned<T> {
    /// `None` if nothing changed within [`LONG_POLL`].
    pub value: Option<T>,
    pub version: u64,
}

/// A game's live frame asked for.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FrameAsk {
    /// The game's page, by the path its module declares (`/werewolf/{match_id}`).
    pub page: String,
    pub id: String,
    /// The cookie the browser sent, if any.
    pub cookie: Option<String>,
    /// The cursor of the frame before: only what is new since is sent.
    pub after: Option<usize>,
    pub seen: Option<u64>,
}

impl FrameAsk {
    /// The first question for game `id` of the page at `page`, as `cookie` signs in.
    pub fn first(page: &str, id: &str, cookie: Option<String>) -> FrameAsk {
        FrameAsk {
            page: page.to_owned(),
            id: id.to_owned(),
            cookie,
            after: None,
            seen: None,
        }
    }
}

/// `F` is how the asker holds the frame: as JSON to read (`Value`), or as text it only passes on
/// (`Box<RawValue>`: a crowd of spectators arriving at once then parses nothing).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum FrameAnswer<F = Value> {
    /// No game of that page's module has that id.
    NoGame,
    /// The frame (or none, if the game did not change within [`LONG_POLL`]), and whether it is
    /// the last.
    Frame(Versioned<(F, bool)>),
}

/// Someone signed in on the web, as a page may know them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Visitor {
    pub name: String,
    /// Sent back by the page with each change it asks for.
    pub csrf: String,
}

/// A page's button pressed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ActionCall {
    /// The button's path as its module declares it.
    pub path: String,
    /// For a POST, what the page sent to show it is moot's own: its `X-CSRF-Token`, and
    /// whether the browser said it came from this site; `None` for a GET.
    pub post: Option<Posted>,
    pub id: Option<String>,
    /// A POST's JSON body, or a GET's query.
    pub args: Value,
    pub cookie: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Posted {
    pub csrf: String,
    pub same_origin: bool,
}

/// Why a button did nothing.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ActionRefused {
    /// Nobody is signed in (the button's own words say why it needs someone).
    Unsigned(String),
    /// The change did not come from moot's own page.
    Forbidden,
    /// The session's character is gone.
    SignInAgain,
    /// No game has that id.
    NoGame(String),
    /// The verb's refusal, and the HTTP status the button gives it.
    Verb { refusal: Refusal, status: u16 },
}

/// A button pressed: its result here, or the session it is about, played on a game world,
/// where `agent` is to press it (its refusal answered with `status`).
pub enum Pressed {
    Here(Result<Value, ActionRefused>),
    Elsewhere {
        agent: AgentId,
        id: moot_kernel::world::sessions::SessionId,
        args: Value,
        status: u16,
    },
}

/// What a player's page shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlayerPage {
    pub view: RatingsView,
    pub games: Vec<PlayedView>,
    /// The ratings their decided results left, oldest first.
    pub history: Vec<moot_kernel::store::standings::Point>,
}

/// The page whose live path is `path`, and its module.
pub fn page_at(path: &str) -> Option<(&'static GameModule, &'static Page)> {
    crate::games::ALL
        .iter()
        .find_map(|m| m.page.as_ref().filter(|p| p.path == path).map(|p| (*m, p)))
}

/// The button at `path` asked for with `post`'s method.
pub fn action_at(path: &str, post: bool) -> Option<&'static WebAction> {
    let method = if post {
        WebMethod::Post
    } else {
        WebMethod::Get
    };
    crate::games::web_actions().find(|a| a.path == path && a.method == method)
}

impl Door {
    /// The world's side of a [`WebAsk`].
    pub async fn web(&self, ask: WebAsk) -> Called {
        match ask {
            WebAsk::Town { seen } => {
                let town = self
                    .after_change(
                        seen,
                        |w| (w.watch_town(), w.town_version()),
                        |w| Some(crate::games::town(w)),
                    )
                    .await?;
                let (value, version) = match town.flatten() {
                    Some((town, version)) => (Some(town), version),
                    None => (None, seen.unwrap_or_default()),
                };
                written(&Versioned { value, version })
            }
            WebAsk::Frame(ask) => written(&self.frame(ask).await?),
            WebAsk::Visitor { cookie } => {
                written(&self.visits.sessions.get(&cookie).map(|s| Visitor {
                    name: s.name,
                    csrf: s.csrf,
                }))
            }
            WebAsk::SignIn { ip, name, password } => {
                let checked = self
                    .logins
                    .check(&self.store, &self.directory, ip, name.trim(), &password)
                    .await;
                written(&checked.map(|row| {
                    tracing::info!(agent = %row.agent_id, "signed in on the web");
                    self.visits
                        .sessions
                        .open(row.agent_id.as_str().into(), row.name)
                }))
            }
            WebAsk::SignUp { ip, name, password } => {
                let made = match self
                    .agents_by_address
                    .take(&ip.into(), tokio::time::Instant::now())
                {
                    Err(wait) => Err(NotMade::TooMany(wait)),
                    Ok(()) if self.banned(ip) => Err(NotMade::Banned),
                    Ok(()) => self
                        .create(ip, name.trim(), &password)
                        .await
                        .map_err(NotMade::Refused),
                };
                written(&made.map(|row| {
                    tracing::info!(agent = %row.agent_id, "made a character on the web");
                    self.visits
                        .sessions
                        .open(row.agent_id.as_str().into(), row.name)
                }))
            }
            WebAsk::SignOut { cookie, csrf } => {
                let refused = match self.visits.sessions.get(&cookie) {
                    Some(s) if s.csrf_ok(&csrf) => {
                        self.visits.sessions.close(&cookie);
                        false
                    }
                    Some(_) => true,
                    None => false,
                };
                written(&refused)
            }
            // A button on a game played on a game world is the broker's to hand over
            // (`games::web`); in one process no game is.
            WebAsk::Action(call) => match self.action(call).await? {
                Pressed::Here(done) => written(&done),
                Pressed::Elsewhere { .. } => Err(CallRefused::Unavailable(Unavailable::Internal)),
            },
            WebAsk::Leaderboard { game, whom, season } => {
                let boards: Result<Leaderboards, String> = self
                    .world
                    .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                        views::leaderboards(w, &game, whom, season.as_deref())
                    })
                    .await
                    .map_err(CallRefused::Unavailable)?
                    .map_err(|e| e.message);
                written(&boards)
            }
            WebAsk::Player { name } => written(&self.player(name).await?),
            WebAsk::OAuth(ask) => self.oauth(ask).await,
        }
    }

    /// What `read` reads of the world once the version `watch` gives is no longer `seen` (at once if
    /// it is not now), with the version it read at; `None` if it was still `seen` after
    /// [`LONG_POLL`], or `read` found nothing. The version is read in the same turn of the
    /// world task as what `read` reads, and the watch is taken before the turn ends, so that no
    /// change falls between one question and the next; it is this run's ([`Visits::run`]), so
    /// that a question asked again of a restarted world is answered at once.
    async fn after_change<T, W, R>(
        &self,
        seen: Option<u64>,
        watch: W,
        read: R,
    ) -> Result<Option<Option<(T, u64)>>, CallRefused>
    where
        T: Send + 'static,
        W: Fn(&mut World) -> (watch::Receiver<u64>, u64) + Clone + Send + 'static,
        R: Fn(&World) -> Option<T> + Clone + Send + 'static,
    {
        let deadline = tokio::time::Instant::now() + LONG_POLL;
        let run = self.visits.run;
        loop {
            let (watch, read) = (watch.clone(), read.clone());
            let turn = self
                .world
                .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                    let (rx, version) = watch(w);
                    let version = run.wrapping_add(version);
                    if seen == Some(version) {
                        Err(rx)
                    } else {
                        Ok(read(w).map(|t| (t, version)))
                    }
                })
                .await
                .map_err(CallRefused::Unavailable)?;
            let mut rx = match turn {
                Ok(read) => return Ok(Some(read)),
                Err(rx) => rx,
            };
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                // Unchanged all along (or the world stopped, which the next turn says).
                Ok(Err(_)) | Err(_) => return Ok(None),
            }
        }
    }

    async fn frame(&self, ask: FrameAsk) -> Result<FrameAnswer, CallRefused> {
        let (Some((module, page)), Ok(sid)) = (page_at(&ask.page), parse_id(&ask.id)) else {
            return Ok(FrameAnswer::NoGame);
        };
        let viewer: Option<AgentId> = ask
            .cookie
            .and_then(|c| self.visits.sessions.get(&c))
            .map(|s| s.agent);
        let after = ask.after;
        let ours = move |w: &World| {
            w.session(sid)
                .is_some_and(|s| module.templates.iter().any(|t| t.id == s.template.id))
        };
        // Whether it is a game of this module, without drawing a frame only to throw it away
        // (every spectator of a crowded match asks this).
        let read = move |w: &World| match ours(w) {
            true => (page.frame)(w, viewer.as_ref(), sid, after),
            false => None,
        };
        let answer = match self
            .after_change(
                ask.seen,
                move |w| {
                    let mut rx = w.watch_session(sid);
                    let version = *rx.borrow_and_update();
                    (rx, version)
                },
                read,
            )
            .await?
        {
            None => FrameAnswer::Frame(Versioned {
                value: None,
                version: ask.seen.unwrap_or_default(),
            }),
            Some(None) => FrameAnswer::NoGame,
            Some(Some((frame, version))) => FrameAnswer::Frame(Versioned {
                value: Some(frame),
                version,
            }),
        };
        Ok(answer)
    }

    /// Presses the button `call` asks for, here, or says where it is to be pressed.
    pub async fn action(&self, call: ActionCall) -> Result<Pressed, CallRefused> {
        let Some(action) = action_at(&call.path, call.post.is_some()) else {
            return Err(CallRefused::NoSuchVerb(call.path));
        };
        let sid = match call.id.as_deref().map(parse_id) {
            None => None,
            Some(Ok(sid)) => Some(sid),
            Some(Err(_)) => {
                return Ok(Pressed::Here(Err(ActionRefused::NoGame(
                    call.id.unwrap_or_default(),
                ))));
            }
        };
        let (actor, row) = match action.access {
            Access::Public => (AgentId::from(SERVER_ID), None),
            Access::SignedIn { unsigned, arrive } => {
                let Some(s) = call.cookie.and_then(|c| self.visits.sessions.get(&c)) else {
                    return Ok(Pressed::Here(Err(ActionRefused::Unsigned(
                        unsigned.to_owned(),
                    ))));
                };
                if let Some(posted) = &call.post
                    && !(s.csrf_ok(&posted.csrf) && posted.same_origin)
                {
                    return Ok(Pressed::Here(Err(ActionRefused::Forbidden)));
                }
                // Someone not in the town comes into it first, as an agent does (until
                // `--idle-timeout` passes without a word from them).
                let row = if arrive {
                    match self.store.agent_by_id(&s.agent).await {
                        Ok(Some(row)) => Some(row),
                        Ok(None) => return Ok(Pressed::Here(Err(ActionRefused::SignInAgain))),
                        Err(_) => return Err(CallRefused::Unavailable(Unavailable::Storage)),
                    }
                } else {
                    None
                };
                (s.agent, row)
            }
        };
        let args = call.args;
        let (done, handed) = self
            .world
            .call(actor.clone(), Face::Rest, move |w, cx| {
                if let Some(row) = row {
                    w.arrive_agent(cx, row);
                    // A page that asks is a client still there, as an agent's call is: its
                    // person is not swept away as silent while it reads.
                    w.heard(&cx.actor, cx.now);
                }
                let kept = args.clone();
                let done = (action.run)(w, cx, sid, args);
                // A button on a game played on a game world is pressed there: nothing of it
                // stands here.
                match (cx.elsewhere.take(), &done) {
                    (Some(id), Err(_)) => {
                        cx.roll_back(w);
                        (done, Some((id, kept)))
                    }
                    _ => (done, None),
                }
            })
            .await
            .map_err(CallRefused::Unavailable)?;
        if let Some((id, args)) = handed {
            return Ok(Pressed::Elsewhere {
                agent: actor,
                id,
                args,
                status: action.refused,
            });
        }
        Ok(Pressed::Here(done.map_err(|e| ActionRefused::Verb {
            refusal: Refusal::from(e),
            status: action.refused,
        })))
    }

    async fn player(&self, name: String) -> Result<Result<PlayerPage, String>, CallRefused> {
        let found = self
            .world
            .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                views::player(w, &name, GAMES_LISTED)
            })
            .await
            .map_err(CallRefused::Unavailable)?;
        let (agent, view, games) = match found {
            Ok(found) => found,
            Err(e) => return Ok(Err(e.message)),
        };
        let history = self
            .store
            .rating_history(&agent, POINTS_CHARTED)
            .await
            .unwrap_or_default();
        Ok(Ok(PlayerPage {
            view,
            games,
            history,
        }))
    }
}
