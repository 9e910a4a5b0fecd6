//! What a game template is: a pure, deterministic state machine, apart from the server (as
//! lichess's scalachess is apart from lila). Each game's own rules live in its module's folder
//! (`games/chess/rules/`); this is the contract between them and the host.
//!
//! A template is a [`Game`]: a value that knows its roles, the actions legal for each role, how
//! an action turns it into a new value (or a typed error), when it has ended, and what each
//! role may see of it. Its actions are a type of its own ([`Game::Action`]), read once where
//! they come in and printed in the log's spelling, which reads back as the same action; the
//! host carries them, as it carries states, with their type erased ([`AnyAction`]). Templates do no I/O, read no clock, and draw any randomness from a seed
//! kept in their own state, so replaying a session's log from its seed always gives the same
//! state; the server checks exactly that on every start.
//!
//! A template also tells the host what the host must not guess: the headline of an action,
//! the ending, the text each viewer reads, the table it stands at, the board clients may draw,
//! what its computer player does, and when something happens by itself (a deadline, taken by
//! the server actor [`SERVER_ROLE`] at a game time the template names, so a replay meets it at
//! the same point). Time enters a game only as the game time of each action, stored in the
//! log; a template never reads a clock.

#![warn(clippy::unwrap_used, clippy::expect_used)]

mod erased;
pub mod limit;
pub mod text;

use serde_json::Value;

pub use erased::{AnyAction, AnyGame};
pub use limit::{Forfeit, MoveLimit};

/// The role of the server actor: the host itself, taking a template's deadline (a flag-fall,
/// a phase's end). No participant plays it and no face can act as it.
pub const SERVER_ROLE: &str = "server";

/// Game time: milliseconds since the session began, as the host's clock (scaled by
/// `--time-scale`) measured it when the action was taken.
pub type GameTime = u64;

/// Something that happens by itself unless the game moves on first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadline<A> {
    /// When, in game time.
    pub at: GameTime,
    /// What the server actor does then: an action of the template's.
    pub action: A,
}

/// How one reader has a game drawn, and when: what [`Game::render`] and [`Game::glance`] are
/// given besides the state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Game time now.
    pub now: GameTime,
    /// How much faster than the wall clock game time runs (`--time-scale`): a countdown a
    /// person reads is in the wall clock's seconds, the ones they wait.
    pub scale: f64,
    /// The reader's screen reader speaks the text (`@screenreader on`): no drawings, no
    /// box-drawing, one item a line, boards as lists of what stands where.
    pub plain: bool,
}

impl Reading {
    /// At game time `now`, on the wall clock's pace, drawn.
    pub fn at(now: GameTime) -> Reading {
        Reading {
            now,
            scale: 1.0,
            plain: false,
        }
    }

    /// The same, for a screen reader.
    pub fn plain(self) -> Reading {
        Reading {
            plain: true,
            ..self
        }
    }

    /// `game_ms` of game time as the milliseconds a person waits for them.
    pub fn wall_ms(&self, game_ms: u64) -> u64 {
        if self.scale > 0.0 && self.scale != 1.0 {
            (game_ms as f64 / self.scale).round() as u64
        } else {
            game_ms
        }
    }
}

/// A reader's quick question about a game, as lichess's blind mode has single keys for them:
/// the time left, and what is on one square (cell, column) of the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Glance<'a> {
    Clock,
    Square(&'a str),
}

/// A board for clients that draw one (tkMOO-light's XMCP/1.1 board), as one viewer sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// The template's own encoding of the board.
    pub board: String,
    /// Whether the viewer is to act.
    pub your_turn: bool,
    /// The side the viewer sees it from.
    pub side: &'static str,
}

/// Who may hear a [`Note`]. The host decides, in one place for every face (telnet lines, MCP
/// events, the web), which followers of a session a note reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// Everyone who follows the game.
    Everyone,
    /// The players of these roles (a team, or one player).
    Roles(Vec<String>),
    /// Everyone following who does not play.
    Watchers,
    /// Watchers the server lets see everything (never a player).
    AllSeeing,
}

/// One follower, as a note's audience sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Viewer<'a> {
    /// The role they play; none for a watcher.
    pub role: Option<&'a str>,
    /// A watcher the server lets see everything.
    pub sees_all: bool,
}

impl Audience {
    pub fn admits(&self, v: Viewer<'_>) -> bool {
        match self {
            Audience::Everyone => true,
            // An all-seeing watcher sees what any role is told.
            Audience::Roles(roles) => match v.role {
                Some(r) => roles.iter().any(|x| x == r),
                None => v.sees_all,
            },
            Audience::Watchers => v.role.is_none(),
            Audience::AllSeeing => v.role.is_none() && v.sees_all,
        }
    }
}

/// Something an action tells some of those following the game, beyond its public headline
/// (a seer's answer, a player's own hidden choice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub to: Audience,
    pub text: String,
}

impl Note {
    pub fn new(to: Audience, text: impl Into<String>) -> Note {
        Note {
            to,
            text: text.into(),
        }
    }
}

/// An engine outside moot (a UCI process) that a template's computer player may consult. The
/// host owns it; a template only asks.
pub trait ExternalEngine: Send + Sync {
    /// The move for `position` (in the template's notation) at difficulty `level`, if the
    /// engine plays that level and answers sensibly.
    fn best_move(&self, position: &str, level: u8) -> Option<String>;
}

/// What the host lends a computer player while it thinks: the operator's engine, if one was
/// given, and the time since the thinking began. A template reads no clock of its own (the
/// compiler's lints refuse one in these crates), so a search that stops at a time budget asks
/// this one; the move it settles on is logged like any other, and replays never think again.
#[derive(Clone, Copy)]
pub struct Mind<'a> {
    pub engine: Option<&'a dyn ExternalEngine>,
    pub elapsed: &'a dyn Fn() -> std::time::Duration,
}

/// Work a computer player does off the world task; it returns the action to take.
pub type Thinking<A> = Box<dyn for<'a> FnOnce(Mind<'a>) -> Option<A> + Send>;

impl Mind<'static> {
    /// No engine and a clock that never moves: the thinking ends at its own node budget, the
    /// same on every machine (the tests, the benchmarks).
    pub const UNHURRIED: Mind<'static> = Mind {
        engine: None,
        elapsed: &no_time_passes,
    };
}

fn no_time_passes() -> std::time::Duration {
    std::time::Duration::ZERO
}

/// What the house's computer does when it plays a role and the game has changed: an action
/// of the template's, as a person's would be once read.
pub enum Computer<A> {
    /// Answers at once (agrees to a takeback).
    Act(A),
    /// Thinks, off the world task, about the action to take at this tick.
    Think(Thinking<A>),
}

/// The stable code a refusal carries to every face (the Werewolf tools' codes, and moot's own
/// three: clients match on them), typed from the rules that refuse to the face that names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Code {
    WrongPhase,
    WrongRole,
    InvalidTarget,
    TargetDead,
    DoctorRepeatTarget,
    AlreadySubmitted,
    NotYourTurn,
    RateLimited,
    NotInMatch,
    MatchNotFound,
    AlreadyInMatch,
    QueueNotSupported,
    InvalidCursor,
    IdempotencyKeyReused,
    InvalidRequest,
    StorageUnavailable,
    Internal,
}

impl Code {
    /// Its name as every face writes it (`WRONG_PHASE`).
    pub fn name(self) -> &'static str {
        match self {
            Code::WrongPhase => "WRONG_PHASE",
            Code::WrongRole => "WRONG_ROLE",
            Code::InvalidTarget => "INVALID_TARGET",
            Code::TargetDead => "TARGET_DEAD",
            Code::DoctorRepeatTarget => "DOCTOR_REPEAT_TARGET",
            Code::AlreadySubmitted => "ALREADY_SUBMITTED",
            Code::NotYourTurn => "NOT_YOUR_TURN",
            Code::RateLimited => "RATE_LIMITED",
            Code::NotInMatch => "NOT_IN_MATCH",
            Code::MatchNotFound => "MATCH_NOT_FOUND",
            Code::AlreadyInMatch => "ALREADY_IN_MATCH",
            Code::QueueNotSupported => "QUEUE_NOT_SUPPORTED",
            Code::InvalidCursor => "INVALID_CURSOR",
            Code::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            Code::InvalidRequest => "INVALID_REQUEST",
            Code::StorageUnavailable => "STORAGE_UNAVAILABLE",
            Code::Internal => "INTERNAL",
        }
    }
}

/// Why an action was refused. Each maps to one error code of the REST API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("Not your turn")]
    NotYourTurn,
    /// The reason is the whole message: the error's code (`INVALID_ACTION`) already says the
    /// action was refused, so the text does not say it twice.
    #[error("{0}")]
    Illegal(String),
    #[error("You have already acted in this phase")]
    AlreadyActed,
    #[error("The game is over")]
    Finished,
    #[error("Unknown role `{0}`")]
    UnknownRole(String),
    #[error("Bad options: {0}")]
    BadOptions(String),
    /// A refusal with the template's own stable code (Werewolf's `WRONG_PHASE`,
    /// `RATE_LIMITED`…), for faces that speak those codes; `retry_after_ms` is game time.
    #[error("{message}")]
    Refused {
        code: Code,
        message: String,
        retry_after_ms: Option<u64>,
    },
}

impl GameError {
    /// Whether the refusal counts against its sender's conduct (`ratings::conduct`): a rule
    /// broken does; being asked to wait (a rate limit) or a game already over does not.
    pub fn breaks_rules(&self) -> bool {
        match self {
            GameError::NotYourTurn | GameError::Illegal(_) | GameError::AlreadyActed => true,
            GameError::Refused { retry_after_ms, .. } => retry_after_ms.is_none(),
            GameError::Finished | GameError::UnknownRole(_) | GameError::BadOptions(_) => false,
        }
    }
}

/// How a finished game of a template counts toward its players' standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reckoning {
    /// Not at all.
    Unrated,
    /// A game of skill: a Glicko-2 rating per board.
    Rating,
    /// A game of luck against a person or the house: won, lost and drawn, not a rating.
    Record,
}

/// The rating table a game belongs to, from its options: a board within the template (a chess
/// time-control class, `blitz`) and the rules that make the table, whose hash starts a new
/// season when they change (a Werewolf configuration).
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    /// Appended to the template's name (`chess` and `blitz` make `chess/blitz`); empty for
    /// a template with one table.
    pub class: String,
    pub rules: Value,
}

/// One side of a finished game and how it scored: 1 won, 0.5 drawn, 0 lost, between the sides.
#[derive(Debug, Clone, PartialEq)]
pub struct SideScore {
    /// The side's name where sides are rated apart (Werewolf's `village` and `wolves`);
    /// empty where they are alike (white and black share one table).
    pub side: &'static str,
    pub roles: Vec<&'static str>,
    pub score: f64,
    /// Each role's part within its side, in `roles`' order, where a part is rated on a board of
    /// its own as well (a Werewolf seer's `werewolf/seer`); empty where none is.
    pub parts: Vec<&'static str>,
}

/// What each role scored, from the sides' scores (a seat of a side scores its side's).
pub fn role_scores(sides: Vec<SideScore>) -> std::collections::BTreeMap<String, f64> {
    sides
        .into_iter()
        .flat_map(|side| {
            side.roles
                .into_iter()
                .map(move |r| (r.to_owned(), side.score))
        })
        .collect()
}

/// The standing of a finished game between two roles alike (white and black): `winner` is the
/// index of the role that won, `None` a draw.
pub fn head_to_head(roles: [&'static str; 2], winner: Option<usize>) -> Vec<SideScore> {
    let score = |i: usize| match winner {
        None => 0.5,
        Some(w) if w == i => 1.0,
        Some(_) => 0.0,
    };
    vec![
        SideScore {
            side: "",
            roles: vec![roles[0]],
            score: score(0),
            parts: Vec::new(),
        },
        SideScore {
            side: "",
            roles: vec![roles[1]],
            score: score(1),
            parts: Vec::new(),
        },
    ]
}

/// One template's rules.
pub trait Game: Clone + Send + Sync + 'static {
    const TEMPLATE: &'static str;
    const ROLES: &'static [&'static str];
    /// Turn-based games require `expected_tick` with each action; simultaneous ones don't.
    const SEQUENTIAL: bool;

    /// The kind of table its sessions stand at in the town (a thing's `kind` in `world/`).
    const TABLE: &'static str;
    /// Whether the house's computer can play any of its roles (see [`Game::computer`]).
    const HOUSE_PLAYS: bool = false;
    /// Whether either player may give the game up at any time with the action `resign`, the
    /// other then winning: the `resign` verb offers it for every such game.
    const RESIGNS: bool = false;
    /// Its name in a sentence ("Ann is playing Werewolf …").
    const TITLE: &'static str = Self::TEMPLATE;
    /// Whether [`Game::action_view`] ever hides that an action was taken: then the host counts
    /// for each reader only the actions they may see (their tick, the log's positions).
    const HIDES_ACTIONS: bool = false;
    /// Whether [`Game::secluded`] may keep its players from the town: then each player joins
    /// it themselves (or the town seats them), never one player another.
    const SECLUDES: bool = false;

    /// What a player does (and what the server actor does at a deadline), parsed once where
    /// it comes in and handed to the rules as a value; its `Display` is the log's spelling,
    /// which its `FromStr` reads back (the log and a replay read no other). Faces and the
    /// house's verbs that know what they want make one directly; a typed line or a tool's
    /// text goes through [`Game::parse`].
    type Action: Clone
        + std::fmt::Debug
        + std::fmt::Display
        + std::str::FromStr<Err = GameError>
        + Send
        + Sync
        + 'static;

    /// The starting state. `options` are template-specific (e.g. a chess FEN).
    fn new(seed: u64, options: &Value) -> Result<Self, GameError>;
    fn legal_actions(&self, role: &str) -> Vec<String>;
    /// Reads `text` as `role` means it in this state: the spellings people and programs send
    /// (a chess move in SAN, a Werewolf reply naming an event by the replier's own id), which
    /// the log keeps in its own spelling. By default, the log's spelling only.
    fn parse(&self, role: &str, text: &str) -> Result<Self::Action, GameError> {
        let _ = role;
        text.parse()
    }
    /// The state `action` by `role` leads to, or why the rules refuse it.
    fn act(&self, role: &str, action: &Self::Action) -> Result<Self, GameError>;
    /// [`Game::act`] at game time `at`: templates with clocks override this one. The server
    /// actor's deadline actions come here too, with [`SERVER_ROLE`].
    fn act_at(&self, role: &str, action: &Self::Action, at: GameTime) -> Result<Self, GameError> {
        let _ = at;
        self.act(role, action)
    }
    /// [`Game::act`] on `text` as [`Game::parse`] reads it: for tests and tools that speak
    /// in lines.
    fn apply(&self, role: &str, text: &str) -> Result<Self, GameError> {
        self.act(role, &self.parse(role, text)?)
    }
    /// [`Game::act_at`] on `text` as [`Game::parse`] reads it.
    fn apply_at(&self, role: &str, text: &str, at: GameTime) -> Result<Self, GameError> {
        self.act_at(role, &self.parse(role, text)?, at)
    }
    /// What happens next by itself, if anything.
    fn deadline(&self) -> Option<Deadline<Self::Action>> {
        None
    }
    /// The roles the deadline, should it fall now, finds owing what it waited for (the side
    /// whose flag falls, a Werewolf player who has not voted): each is counted a missed
    /// deadline, beside their rating and apart from it.
    fn owing(&self) -> Vec<&'static str> {
        Vec::new()
    }
    fn is_terminal(&self) -> bool;
    /// The whole state, as stored.
    fn state(&self) -> Value;
    /// [`Game::state`] as the JSON text stored each action: a template whose every action
    /// stores it may write it straight, sparing a tree built only to be printed and dropped
    /// (it must be the same text; see chess).
    fn state_text(&self) -> String {
        self.state().to_string()
    }
    /// The state as `role` may see it (`None`: a spectator).
    fn view(&self, role: Option<&str>) -> Value;
    /// What `viewer` (`None`: a spectator) may see of an action `actor` took earlier in this
    /// game, now that the game is in this state: the action, a stand-in (rps.v1's "hidden",
    /// where everyone knows a choice was made), or `None` where even that it was taken is a
    /// secret (a Werewolf night action names a night role). So the log tells no more than the
    /// state. The host shows the whole log once the game is over.
    fn action_view(
        &self,
        viewer: Option<&str>,
        actor: &str,
        action: &Self::Action,
    ) -> Option<String> {
        let _ = (viewer, actor);
        Some(action.to_string())
    }
    /// What `role` did, in words for everyone following the game, called on the state the
    /// action led to ("plays e4", "resigns"; for the server actor, a sentence of its own:
    /// "Black's flag falls"). Hidden choices stay hidden.
    fn headline(&self, role: &str, action: &Self::Action) -> String {
        let _ = (role, action);
        "has moved".to_owned()
    }
    /// What the action tells some followers only, called on the state it led to. The host
    /// delivers each note to the audience it names, and to nobody else.
    fn notes(&self, role: &str, action: &Self::Action) -> Vec<Note> {
        let _ = (role, action);
        Vec::new()
    }
    /// What the game tells some of its players as it begins (the card each was dealt), called
    /// on the starting state. Delivered like [`Game::notes`], to its creator too.
    fn opening_notes(&self) -> Vec<Note> {
        Vec::new()
    }
    /// Whether `role`'s player hears only the game's own channels now: nothing said in the
    /// town, paged or whispered reaches them from anyone (a living Werewolf player, whom the
    /// dead and the watchers could otherwise tell what the rules hide).
    fn secluded(&self, role: &str) -> bool {
        let _ = role;
        false
    }
    /// Where a running game stands, in a few words for a list of games ("white to move, move
    /// 12"); the ending once it is over.
    fn situation(&self) -> String {
        self.ending().unwrap_or_else(|| "in play".to_owned())
    }
    /// How the game ended, once it has.
    fn ending(&self) -> Option<String> {
        if !self.is_terminal() {
            return None;
        }
        let state = self.state();
        Some(
            state["result"]
                .as_str()
                .map_or("finished".to_owned(), |r| r.replace('_', " ")),
        )
    }
    /// The board or table as text for `viewer` (`None`: a spectator), as `r` reads it.
    fn render(&self, viewer: Option<&str>, r: Reading) -> Vec<String>;
    /// The answer to a quick question of `viewer`'s, in a sentence; `None` where the game has
    /// no such thing (no clock, no squares). It tells no more than [`Game::render`] does.
    fn glance(&self, viewer: Option<&str>, ask: Glance<'_>, r: Reading) -> Option<String> {
        let _ = (viewer, ask, r);
        None
    }
    /// The board for clients that draw one, if the template has one.
    fn picture(&self, viewer: Option<&str>) -> Option<Picture> {
        let _ = viewer;
        None
    }
    /// How its finished games count toward ratings.
    const RECKONING: Reckoning = Reckoning::Unrated;
    /// The table a game with `options` is rated in; `None` where such a game cannot be rated
    /// (a chess game from a set position).
    fn table(options: &Value) -> Option<Table> {
        let _ = options;
        Some(Table {
            class: String::new(),
            rules: Value::Null,
        })
    }
    /// The fixed rating of the house's computer playing a game with `options` (a chess level
    /// measured against Stockfish), if it has one: a rated game against it moves its
    /// opponent's rating against that anchor, and never the anchor.
    fn anchor(options: &Value) -> Option<f64> {
        let _ = options;
        None
    }
    /// Called on the state an action led to: how each side scored, if that action decided a
    /// result (it ended the game, or a hand at a table that deals many); `None` otherwise, and
    /// where the town, not a player, ended it.
    fn decided(&self) -> Option<Vec<SideScore>> {
        None
    }
    /// What the house's computer does as `role` now, if it has anything to do. `options` are
    /// the session's, with the host's `"rated": true` added when the game is rated (the house
    /// grants no retry of a rated game); `seed` is the session's seed mixed with its tick.
    fn computer(&self, role: &str, options: &Value, seed: u64) -> Option<Computer<Self::Action>> {
        let _ = (role, options, seed);
        None
    }
}

/// SplitMix64's output function: the templates' one source of seeded randomness. A draw is
/// `splitmix(seed ^ splitmix(n))` for the n-th draw, so a state keeps only its seed and a
/// count, and the same log always draws the same values, on any machine, in any Rust.
pub fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// The `n`-th draw from `seed` of a number below `bound` (not 0), without bias: values from
/// the top sliver of the 64-bit range, where `bound` does not divide evenly, are drawn again
/// (as the next `n`, so `n` says how many draws were made).
pub fn draw_below(seed: u64, n: &mut u64, bound: u64) -> u64 {
    let limit = u64::MAX - u64::MAX % bound;
    loop {
        let r = splitmix(seed ^ splitmix(*n));
        *n += 1;
        if r < limit {
            return r % bound;
        }
    }
}

/// Makes a template's starting game from a seed and options.
pub type NewGame = fn(u64, &Value) -> Result<Box<dyn AnyGame>, GameError>;

/// A template as the host sees it.
pub struct Template {
    pub id: &'static str,
    pub roles: &'static [&'static str],
    pub sequential: bool,
    /// The kind of table its sessions stand at.
    pub table: &'static str,
    /// Whether the house's computer can play it.
    pub house_plays: bool,
    /// See [`Game::RESIGNS`].
    pub resigns: bool,
    /// Its page's path on the web (`/chess/{session_id}`), if its module gives it one: the
    /// town's map links to it.
    pub page: Option<&'static str>,
    /// Its name in a sentence.
    pub title: &'static str,
    /// See [`Game::HIDES_ACTIONS`].
    pub hides_actions: bool,
    /// See [`Game::SECLUDES`].
    pub secludes: bool,
    /// The GMCP package its board goes out in (`Moot.Chess`), if clients may draw it.
    pub gmcp: Option<&'static str>,
    /// The XMCP/1.1 message its board goes out in to tkMOO-light (`chess-board`), if that
    /// client draws it.
    pub xmcp: Option<&'static str>,
    pub new: NewGame,
    /// See [`Game::RECKONING`].
    pub reckoning: Reckoning,
    /// See [`Game::table`].
    pub table_of: fn(&Value) -> Option<Table>,
    /// See [`Game::anchor`].
    pub anchor_of: fn(&Value) -> Option<f64>,
}

/// The host's row for `G`. A game module lists it, and may add what the host's faces need
/// (its GMCP package).
pub const fn template<G: Game>() -> Template {
    Template {
        id: G::TEMPLATE,
        roles: G::ROLES,
        sequential: G::SEQUENTIAL,
        table: G::TABLE,
        house_plays: G::HOUSE_PLAYS,
        resigns: G::RESIGNS,
        page: None,
        title: G::TITLE,
        hides_actions: G::HIDES_ACTIONS,
        secludes: G::SECLUDES,
        gmcp: None,
        xmcp: None,
        new: new_boxed::<G>,
        reckoning: G::RECKONING,
        table_of: G::table,
        anchor_of: G::anchor,
    }
}

impl Template {
    /// The word the game is played by: its id without the version (`rps` of `rps.v1`), as
    /// `play`, `help` and the leaderboards take it.
    pub fn word(&self) -> &'static str {
        self.id.split('.').next().unwrap_or(self.id)
    }

    /// The path of the page of its session `sid`, if it has a page: the path's `{…}` segment
    /// is the session's id.
    pub fn page_of(&self, sid: impl std::fmt::Display) -> Option<String> {
        let path = self.page?;
        let (head, rest) = path.split_once('{')?;
        let (_, tail) = rest.split_once('}')?;
        Some(format!("{head}{sid}{tail}"))
    }
}

fn new_boxed<G: Game>(seed: u64, options: &Value) -> Result<Box<dyn AnyGame>, GameError> {
    G::new(seed, options).map(|g| Box::new(g) as Box<dyn AnyGame>)
}

/// Replays `actions` (role, action, game time) from a template's start: the state a log
/// implies.
pub fn replay<'a>(
    template: &Template,
    seed: u64,
    options: &Value,
    actions: impl IntoIterator<Item = (&'a str, &'a str, GameTime)>,
) -> Result<Box<dyn AnyGame>, GameError> {
    let mut game = (template.new)(seed, options)?;
    for (role, action, at) in actions {
        game = game.apply_logged(role, action, at)?;
    }
    Ok(game)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_audience_admits_only_whom_it_names() {
        let wolf = Viewer {
            role: Some("wolf"),
            sees_all: false,
        };
        let seer = Viewer {
            role: Some("seer"),
            sees_all: false,
        };
        let watcher = Viewer {
            role: None,
            sees_all: false,
        };
        let all_seeing = Viewer {
            role: None,
            sees_all: true,
        };
        // A player the server let "see all" is still a player.
        let greedy_player = Viewer {
            role: Some("villager"),
            sees_all: true,
        };
        let wolves = Audience::Roles(vec!["wolf".into()]);
        assert!(wolves.admits(wolf));
        assert!(!wolves.admits(seer) && !wolves.admits(watcher));
        assert!(
            wolves.admits(all_seeing),
            "all-seeing watchers see every note"
        );
        assert!(Audience::Watchers.admits(watcher) && Audience::Watchers.admits(all_seeing));
        assert!(!Audience::Watchers.admits(wolf));
        assert!(Audience::AllSeeing.admits(all_seeing));
        assert!(!Audience::AllSeeing.admits(watcher));
        assert!(!Audience::AllSeeing.admits(greedy_player));
        for v in [wolf, seer, watcher, all_seeing] {
            assert!(Audience::Everyone.admits(v));
        }
    }
}
