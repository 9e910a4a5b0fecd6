//! The web's pages as typed questions: what a page needs of the world (the town map, a game's
//! frames, who a cookie signs in, a page's button, the ratings pages), asked by whichever
//! process holds the browser's socket and answered by the world (`door_visits`), which alone
//! holds the cookie sessions, the logins and the database. So a host serves the web itself, as it serves
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

use super::calls::Refusal;
use moot_kernel::verbs::game_module::{GameModule, Page, WebAction, WebMethod};
use moot_kernel::verbs::ratings::{PlayedView, RatingsView, Whom};
use moot_kernel::world::AgentId;

pub use super::grants::{AllowRefused, AuthRequest, OAuthAsk, OAuthRefused, TokenRequest};
pub use super::signed::Visits;

/// The longest the world holds a live page's question before answering "unchanged".
pub const LONG_POLL: Duration = Duration::from_secs(20);

/// The games a player's page lists, newest first.
pub(super) const GAMES_LISTED: usize = 30;
/// The rated results a player's page charts (the latest).
pub(super) const POINTS_CHARTED: usize = 1000;

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
