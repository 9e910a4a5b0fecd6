//! The chess verbs: challenging, answering, playing, watching. They play chess.v1 sessions
//! through the same [`World::act`] as the REST API, so every rule, tick and log entry is the
//! same whichever face a move comes through.

pub mod agent_tools;
pub mod board;
pub mod challenge;
pub mod chat;
pub mod lichess;
pub mod page;
pub mod play;
pub use moot_chess_rules as rules;
pub mod settings;
pub mod uci;

pub use settings::Flags;

use std::collections::{HashMap, HashSet};

use moot_kernel::verbs::game_module::{
    Access, ApiRead, Download, GameModule, Hooks, McpApp, Page, WebAction, WebMethod,
};
use moot_kernel::verbs::{VerbError, entry};
use moot_kernel::world::sessions::{Session, SessionId};
use moot_kernel::world::{AgentId, Extension, ThingKind, World};
use rules::{ChessGame, Side};

/// Where chess is played (the Chess Parlour's tables).
pub const CHESS_TABLE: ThingKind = ThingKind::named("chess_table");

/// What the chess verbs keep in the town besides the games: games made with `createGame`
/// waiting for their second player, and who asked for the interactive board. (A challenge is
/// an invitation of the host's: `moot_kernel::world::sessions::invite`.)
#[derive(Debug, Default)]
pub struct ChessRoom {
    /// Games made with `createGame` for another agent, waiting for `joinGame` (by a reserved id).
    pub open_games: HashMap<SessionId, OpenGame>,
    /// (game, agent) pairs that asked for the interactive board (`showUi`).
    pub ui: HashSet<(SessionId, AgentId)>,
}

impl Extension for ChessRoom {
    /// An open game waits for anyone, and its creator's board wish lasts as long as the game.
    fn forget(&mut self, _: &AgentId) {}
}

/// A game waiting for its second player.
#[derive(Debug, Clone)]
pub struct OpenGame {
    pub creator: AgentId,
    pub side: Side,
    /// The game's options (a clock).
    pub options: serde_json::Value,
}

/// The chess game `actor` means: the one named, or their only game in play.
pub fn my_game(world: &World, actor: &AgentId, game: Option<&str>) -> Result<SessionId, VerbError> {
    moot_kernel::verbs::which::my_session(world, actor, "chess.v1", "chess", game)
}

/// The chess game `actor` wants to look at: any game named (chess hides nothing from
/// watchers), or their only game in play.
pub fn game_to_see(
    world: &World,
    actor: &AgentId,
    game: Option<&str>,
) -> Result<SessionId, VerbError> {
    match game {
        Some(g) => moot_kernel::verbs::which::game_to_view(world, "chess.v1", "chess", g),
        None => my_game(world, actor, None),
    }
}

/// Whether `actor` stands where chess is played.
pub fn at_chess_table(world: &World, actor: &AgentId) -> bool {
    let room = world.player(actor).room;
    world
        .map
        .room(room)
        .things
        .iter()
        .any(|t| t.kind == self::CHESS_TABLE)
}

/// The game of a chess session.
pub fn chess_of(s: &moot_kernel::world::sessions::Session) -> Option<&rules::ChessGame> {
    s.game.as_any().downcast_ref()
}

/// Chess game `sid` and its session, for a verb that found its number a moment ago: a refusal
/// rather than a panic should it not be there (or not be chess).
pub fn chess_game(world: &World, sid: SessionId) -> Result<(&Session, &ChessGame), VerbError> {
    world
        .session(sid)
        .and_then(|s| Some((s, chess_of(s)?)))
        .ok_or_else(|| VerbError::not_found(format!("There is no chess game #{sid}.")))
}

/// Where `help chess` leads.
pub const TOPIC: moot_kernel::verbs::Topic = moot_kernel::verbs::Topic {
    title: "Chess",
    words: &["chess"],
    intro: "Chess is played at the Chess Parlour's tables (east of the square), against a \
person or the house's computer, with or without a clock. Move by the game's number from anywhere; \
tkMOO-light draws the board and takes drags.",
    more: None,
    more_with: None,
};

/// The four chess tools, at `/mcp/chess`: exactly the chess server agents expect, nothing else.
pub const TOOLSET: moot_kernel::verbs::Toolset = moot_kernel::verbs::Toolset {
    name: "chess",
    summary: "the chess server's four tools: createGame (against the computer or a person), \
              joinGame, finishTurn, waitForNextTurn",
    wizards_only: false,
};

/// Each game's board on the web.
const PAGE: &str = "/chess/{session_id}";

/// Chess: the parlour's verbs, the four chess tools, the board on the web and in MCP hosts.
pub static MODULE: GameModule = GameModule {
    name: "chess",
    templates: &[moot_kernel::game_api::Template {
        gmcp: Some("Moot.Chess"),
        xmcp: Some("chess-board"),
        page: Some(PAGE),
        ..moot_kernel::game_api::template::<ChessGame>()
    }],
    verbs: &[
        entry::<challenge::ChallengeVerb>(),
        entry::<board::Board>(),
        entry::<board::Moves>(),
        entry::<board::Pgn>(),
        entry::<play::Move>(),
        entry::<play::Abort>(),
        entry::<play::Draw>(),
        entry::<play::Takeback>(),
        entry::<chat::Chat>(),
        entry::<agent_tools::CreateGame>(),
        entry::<agent_tools::JoinGame>(),
        entry::<agent_tools::FinishTurn>(),
        entry::<agent_tools::WaitForNextTurn>(),
        entry::<lichess::BotAccount>(),
        entry::<lichess::BotGame>(),
        entry::<lichess::BotEvents>(),
    ],
    topic: TOPIC,
    start: Some("challenge computer"),
    commands: None,
    page: Some(Page {
        path: PAGE,
        summary: "The interactive board of a chess game (HTML; plays through this API); with \
                  `.pgn` after the id, the game in PGN",
        html: page::html,
        frame: page::live,
        shared_feed: false,
        downloads: &[Download {
            suffix: ".pgn",
            media_type: "application/x-chess-pgn; charset=utf-8",
            text: board::pgn_of,
        }],
        actions: &[WebAction {
            method: WebMethod::Post,
            path: "/chess/{game_id}/move",
            // A person playing from the page is in the town as they play, as on the console.
            access: Access::SignedIn {
                unsigned: "Sign in to play from this page.",
                arrive: true,
            },
            refused: 409,
            run: play::web_move,
        }],
    }),
    reads: &[ApiRead {
        path: "/sessions/{session_id}/pgn",
        summary: "A chess game in PGN (any chess session; the same as /chess/{id}.pgn)",
        verb: &entry::<board::Pgn>(),
        arg: "game",
        public: false,
    }],
    app: Some(McpApp {
        prefix: "ui://chess/",
        page: page::app_page,
        listed: page::app_listed,
    }),
    skill: Some(
        "At `/mcp/chess`, `createGame` with `{\"type\": \"computer\", \"color\": \"white\", \
         \"difficulty\": 1}` starts a game against the computer (difficulty 1 to 10); with \
         `\"type\": \"agent\"` it waits for another agent, who joins with `joinGame` \
         `{\"game_id\"}`. When `status` is `your_turn`, play one of `legal_moves` (UCI, as \
         `e2e4`) with `finishTurn` `{\"game_id\", \"move\"}`; otherwise call `waitForNextTurn` \
         `{\"game_id\"}`. The game is over when `status` is `game_over`, and `result` says how. \
         People play the same games on telnet, and may join yours.",
    ),
    hooks: Hooks {
        open: Some(reopen_games),
        unknown: Some(play::bare_move),
        ..Hooks::NONE
    },
};

/// Under this module's name in the kept state: the open games.
const KEPT_AS: &str = "chess";

impl OpenGame {
    /// The open game as kept, so that a restart loses no game `createGame` acknowledged.
    fn kept(&self, id: SessionId) -> moot_kernel::store::keys::StateRow {
        let value = serde_json::json!({
            "creator": self.creator.to_string(),
            "side": self.side,
            "options": self.options,
        });
        moot_kernel::store::keys::StateRow {
            module: KEPT_AS.into(),
            key: id.to_string(),
            value: value.to_string(),
        }
    }

    fn from_kept(key: &str, value: &str) -> Option<(SessionId, OpenGame)> {
        let id = key.parse().ok()?;
        let v: serde_json::Value = serde_json::from_str(value).ok()?;
        let open = OpenGame {
            creator: v["creator"].as_str()?.into(),
            side: serde_json::from_value(v["side"].clone()).ok()?,
            options: v["options"].clone(),
        };
        Some((id, open))
    }
}

/// The games made with `createGame` that were waiting for their second player when moot
/// stopped wait again, under the ids they were given.
fn reopen_games(world: &mut World, kept: &moot_kernel::store::keys::Kept) {
    for (key, value) in kept.state_of(KEPT_AS) {
        match OpenGame::from_kept(key, value) {
            Some((id, open)) => {
                world.keep_session_id(id);
                world.ext::<ChessRoom>().open_games.insert(id, open);
            }
            None => tracing::warn!(key, "a kept open chess game could not be read"),
        }
    }
}
