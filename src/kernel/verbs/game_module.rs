//! What a game module declares: everything the town needs to know of one game, so that the
//! host, the faces, `help`, `games`, `watch`, `look`, the OpenAPI text and the web's routes read
//! it and none of them names a game (scalachess's one line in `Variant.list.all`; evennia's
//! command sets for the verbs that belong to a game's rooms).
//!
//! The type lives here, below the modules, so a module is built from the same pieces as the
//! town's own verbs; the list of modules (`games::ALL`) lives above, where the catalog of
//! every verb is assembled from it.

use serde_json::Value;

use super::{Document, Topic, VerbEntry, VerbError};
use crate::game_api::Template;
use crate::store::keys::Kept;
use crate::world::sessions::SessionId;
use crate::world::{AgentId, Cx, SessionHook, TickHook, World};

/// One game, as the town knows it.
pub struct GameModule {
    /// The word for it (`connect4`): `help connect4`, and its row in docs/verbs.md's table.
    pub name: &'static str,
    /// Its templates, as the host runs them.
    pub templates: &'static [Template],
    /// Its verbs, each with its help topic, in the order `help` lists them.
    pub verbs: &'static [VerbEntry],
    /// Where `help <name>` leads (its verbs may also sit under the agents' tools).
    pub topic: Topic,
    /// What a newcomer types to start playing it (`challenge computer`), which `help`
    /// suggests; a game of the tables is started with `play <name> with house`.
    pub start: Option<&'static str>,
    /// Verbs that take the place of the town's own where the game says so (evennia's command
    /// sets): in a Werewolf match's building, `say` speaks in the match.
    pub commands: Option<CommandSet>,
    /// Its pages on the web, if it has any.
    pub page: Option<Page>,
    /// Reads the REST API serves beside the session host's, each answered by one of its verbs.
    pub reads: &'static [ApiRead],
    /// Its MCP Apps resource, if it has one.
    pub app: Option<McpApp>,
    /// How an agent plays it with its tools, for `/skill.md` (a paragraph of Markdown).
    pub skill: Option<&'static str>,
    pub hooks: Hooks,
}

/// A game's own verbs where the game holds the actor: they are looked up before the town's.
pub struct CommandSet {
    /// Whether the set applies to `actor` now (they stand in the game's building).
    pub applies: fn(&World, &AgentId) -> bool,
    /// The verbs, found by name or alias before any other.
    pub verbs: &'static [VerbEntry],
}

/// A game's pages on the web: `{path}` (the page), with a suffix after the id (a download),
/// and `{path}/live` (its frames as Server-Sent Events).
pub struct Page {
    /// The page's path, its last segment the game's id (`/chess/{session_id}`).
    pub path: &'static str,
    /// One line for the OpenAPI text.
    pub summary: &'static str,
    /// The page for game `sid`, if `sid` is a game of this module.
    pub html: fn(&World, SessionId) -> Option<String>,
    /// Game `sid` as `viewer` (none: someone signed out) may see it now, given the `cursor` of
    /// the frame sent before; and whether it is the last frame. `None` if there is no such game.
    pub frame: Frame,
    /// Whether signed-out spectators share one feed of frames (a crowd watching a match), the
    /// same for all, rather than each reading the game.
    pub shared_feed: bool,
    /// Downloads: the suffix after the id, the media type, and the text.
    pub downloads: &'static [Download],
    /// What the game's pages (and the town's) ask of the world besides frames.
    pub actions: &'static [WebAction],
}

/// A read or a change a page asks for (`POST /werewolf/board` signs the notice board): the
/// web face checks who asks, runs `run` in the world as them, and carries the answer back.
pub struct WebAction {
    pub method: WebMethod,
    /// The path; its one `{…}` segment, if it has one, must be a game's id, which is handed to
    /// `run` parsed.
    pub path: &'static str,
    pub access: Access,
    /// The HTTP status of the action's own refusals (a full board's 409, a player's 403).
    pub refused: u16,
    /// The action, with its arguments: a POST's JSON body, or a GET's query as text.
    pub run: fn(&mut World, &mut Cx, Option<SessionId>, Value) -> Result<Value, VerbError>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum WebMethod {
    Get,
    Post,
}

/// Who may ask for a [`WebAction`].
#[derive(Clone, Copy)]
pub enum Access {
    /// Anyone; it runs as the server, and sees what the public sees.
    Public,
    /// Someone signed in (`unsigned` tells anyone else why not); a POST must also carry the
    /// page's CSRF token from moot's own origin. With `arrive`, a character not in the town
    /// comes into it first, as an agent does.
    SignedIn {
        unsigned: &'static str,
        arrive: bool,
    },
}

/// See [`Page::frame`].
pub type Frame = fn(&World, Option<&AgentId>, SessionId, Option<usize>) -> Option<(Value, bool)>;

pub struct Download {
    pub suffix: &'static str,
    pub media_type: &'static str,
    pub text: fn(&World, SessionId) -> Option<String>,
}

/// `GET {path}` answered by the verb `verb`, whose argument `arg` is the path's id and whose
/// other arguments come from the query.
pub struct ApiRead {
    pub path: &'static str,
    pub summary: &'static str,
    /// The verb's own row (`&entry::<Pgn>()`), not its name: the compiler holds the read to a
    /// verb that exists.
    pub verb: &'static super::VerbEntry,
    pub arg: &'static str,
    /// Whether anyone may read it without a token.
    pub public: bool,
}

/// The MCP Apps media type.
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// An MCP Apps resource (`ui://chess/<id>`): an interactive page an MCP host shows.
pub struct McpApp {
    /// The URI up to the game's id (`ui://chess/`).
    pub prefix: &'static str,
    /// The page for `which` (a game's id, or a word the module gives a meaning) as `agent`
    /// sees it.
    pub page: fn(&mut World, &AgentId, &str) -> Option<String>,
    /// The games whose pages `agent` has asked for, to list.
    pub listed: fn(&mut World, &AgentId) -> Vec<SessionId>,
}

/// A game's own flags on moot's command line (its `Flags`, flattened into moot's beside the
/// town's by the `games!` line), and what it does with them: the operator's settings for a
/// game are the game's, kept where the game reads them, never fields of the world.
pub trait Settings: clap::Args + Clone + std::fmt::Debug + Send + Sync + 'static {
    /// Puts the settings where the game reads them (its own [`crate::world::Extension`]),
    /// before the town opens.
    fn apply(&self, world: &mut World) {
        let _ = world;
    }
    /// An engine the house's computer may consult for this game, if the flags name one.
    fn engine(&self) -> Option<std::sync::Arc<dyn crate::game_api::ExternalEngine>> {
        None
    }
}

/// The flags of a game that has none.
#[derive(clap::Args, Debug, Clone, Default)]
#[group(skip)]
pub struct NoFlags {}

impl Settings for NoFlags {}

/// What a module does beside its verbs.
#[derive(Default)]
pub struct Hooks {
    /// Before the town opens, with the stored sessions restored, given what the modules kept
    /// (the tools' answers, their own state).
    pub open: Option<fn(&mut World, &Kept)>,
    /// After any change to a session.
    pub on_change: Option<SessionHook>,
    /// Once a second.
    pub on_tick: Option<TickHook>,
    /// Texts for agents to read (an MCP prompt and resource each).
    pub documents: Option<fn() -> Vec<Document>>,
    /// What the game adds to the town's page on the web.
    pub town: Option<TownPart>,
    /// A line no verb takes, as the game may read it: its own shorthand (a bare `e4` where the
    /// typist plays chess), answered with the verb that does it.
    pub unknown: Option<ReadUnknown>,
}

/// Reads a line no verb takes, typed by someone: the answer that helps them, if the game has
/// one ([`Hooks::unknown`]).
pub type ReadUnknown = fn(&World, &AgentId, &str) -> Option<String>;

/// A game's part of the town's page (`/`): its data in the town's map (`/town.json`,
/// `/town/live`, under the game's name), its section of the page, and the script that draws
/// it. The web face puts together what every game gives, and names none.
#[derive(Clone, Copy)]
pub struct TownPart {
    pub data: fn(&World) -> Value,
    /// The section's HTML, placed among the page's others.
    pub section: &'static str,
    /// A script run with the page's helpers in scope (`$`, `el`, `list`, `me`), which registers
    /// the part with `townPart(name, {draw(data, town), signedIn(me), changed(town)})`: `draw`
    /// on every frame of the town, `signedIn` once the page knows who is looking, `changed`
    /// after each frame (all but `draw` may be left out).
    pub script: &'static str,
}

impl Hooks {
    /// No hooks (a `const` for module declarations).
    pub const NONE: Hooks = Hooks {
        open: None,
        on_change: None,
        on_tick: None,
        documents: None,
        town: None,
        unknown: None,
    };
}

impl GameModule {
    /// A module with nothing but its templates, verbs and topic (rps, tic-tac-toe).
    pub const fn plain(
        name: &'static str,
        templates: &'static [Template],
        verbs: &'static [VerbEntry],
        topic: Topic,
    ) -> GameModule {
        GameModule {
            name,
            templates,
            verbs,
            topic,
            start: None,
            commands: None,
            page: None,
            reads: &[],
            app: None,
            skill: None,
            hooks: Hooks::NONE,
        }
    }
}
