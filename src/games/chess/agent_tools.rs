//! The chess tools agents call, `createGame`, `joinGame`, `finishTurn` and `waitForNextTurn`,
//! with the arguments, checks and texts that agents written for them expect (and the markdown
//! board). They are verbs like any other, so
//! they play the parlour's chess.v1 sessions: a telnet or tkMOO-light player can join an
//! agent's game by its id and play it with `move`, and the agent sees it here.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use shakmaty::Position;

use super::rules::{ChessGame, Side};
use super::{ChessRoom, OpenGame, chess_game};
use moot_kernel::game_api::Game;
use moot_kernel::verbs::parse::{text, whole, word};
use moot_kernel::verbs::which::parse_game;
use moot_kernel::verbs::{Pending, Reply, ToolSpec, Topic, Verb, VerbError, usage};
use moot_kernel::world::COMPUTER_ID;
use moot_kernel::world::sessions::{Session, SessionId};
use moot_kernel::world::{Cx, Face, Sink, ThingKind, World};

pub const TIMEOUT_TEXT: &str =
    "Timeout: No move received yet. Please call this tool again immediately.";

/// What an agent needs of a game, so it never has to parse the board.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GameInfo {
    pub game_id: String,
    /// `your_turn`, `opponent_turn`, `waiting_for_opponent`, `game_over` or `timeout`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub your_color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// Your legal moves in UCI (empty unless it is your turn).
    pub legal_moves: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<String>,
    /// The board sequence (tick + 1), as tkMOO-light's board shows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
    /// How the game ended, in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// The interactive board (`ui://chess/<id>`), when asked for with showUi.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ui: Option<String>,
}

/// A game still waiting for its second player, as its creator sees it.
fn waiting_info(id: SessionId, colour: &str) -> GameInfo {
    GameInfo {
        game_id: id.to_string(),
        status: "waiting_for_opponent".into(),
        your_color: Some(colour.to_owned()),
        turn: None,
        fen: None,
        legal_moves: vec![],
        last_move: None,
        sequence: None,
        result: None,
        ui: None,
    }
}

/// `i` with its UI resource named, if `me` asked for one in this game.
fn with_ui(
    world: &World,
    id: SessionId,
    mut i: GameInfo,
    me: &moot_kernel::world::AgentId,
) -> GameInfo {
    if world
        .ext_ref::<ChessRoom>()
        .is_some_and(|r| r.ui.contains(&(id, me.clone())))
    {
        i.ui = Some(super::page::chess_uri(id));
    }
    i
}

/// The markdown board the chess tools answer with: a table of files a to h, ranks 8 to 1.
pub fn markdown_board(pos: &shakmaty::Chess) -> String {
    const WHITE: [char; 6] = ['♙', '♘', '♗', '♖', '♕', '♔'];
    const BLACK: [char; 6] = ['♟', '♞', '♝', '♜', '♛', '♚'];
    let mut out = String::with_capacity(1024);
    out.push_str("| Rank | a | b | c | d | e | f | g | h |\n|:---:|:---:|:---:|:---:|:---:|:---:|:---:|:---:|:---:|");
    for rank in shakmaty::Rank::ALL.into_iter().rev() {
        out.push_str("\n| **");
        out.push(rank.char());
        out.push_str("** |");
        for file in shakmaty::File::ALL {
            let sq = shakmaty::Square::from_coords(file, rank);
            let glyph = pos.board().piece_at(sq).map_or(' ', |p| {
                // Role counts from 1 (pawn) to 6 (king).
                let i = usize::from(p.role as u8) - 1;
                if p.color == shakmaty::Color::White {
                    WHITE[i]
                } else {
                    BLACK[i]
                }
            });
            out.push(' ');
            out.push(glyph);
            out.push_str(" |");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_markdown_board_is_the_seeds() {
        let b = markdown_board(&shakmaty::Chess::default());
        let lines: Vec<&str> = b.lines().collect();
        assert_eq!(lines[0], "| Rank | a | b | c | d | e | f | g | h |");
        assert_eq!(
            lines[1],
            "|:---:|:---:|:---:|:---:|:---:|:---:|:---:|:---:|:---:|"
        );
        assert_eq!(lines[2], "| **8** | ♜ | ♞ | ♝ | ♛ | ♚ | ♝ | ♞ | ♜ |");
        assert_eq!(lines[4], "| **6** |   |   |   |   |   |   |   |   |");
        assert_eq!(lines[9], "| **1** | ♖ | ♘ | ♗ | ♕ | ♔ | ♗ | ♘ | ♖ |");
    }
}

/// The game as `me` sees it (`g` is `s`'s game).
fn info(s: &Session, g: &ChessGame, me: &str, status: Option<&str>) -> GameInfo {
    let role = s.role_of(me);
    let over = g.outcome();
    let mine = role == Some(g.turn().name()) && over.is_none();
    GameInfo {
        game_id: s.id.to_string(),
        status: status.map(str::to_owned).unwrap_or_else(|| {
            if over.is_some() {
                "game_over"
            } else if mine {
                "your_turn"
            } else {
                "opponent_turn"
            }
            .into()
        }),
        your_color: role.map(str::to_owned),
        turn: Some(g.turn().name().to_owned()),
        fen: Some(g.fen().to_owned()),
        legal_moves: if mine {
            s.game.legal_actions(g.turn().name())
        } else {
            Vec::new()
        },
        last_move: g.last_move(),
        sequence: Some(s.tick + 1),
        result: over.map(|o| format!("{} ({})", o.describe(), o.result())),
        ui: None,
    }
}

/// A chess tool's `game_id`, refused with the tools' fixed text ("Error: Game not found").
fn tool_game_id(w: &str) -> Result<SessionId, VerbError> {
    parse_game(w).map_err(|_| VerbError::not_found("Error: Game not found"))
}

/// Whether the opponent of `me` in `s` is the computer, a person at a keyboard, or an agent.
fn opponent_kind(world: &World, s: &Session, me: &str) -> &'static str {
    let Some(them) = s.participants.iter().find(|p| &*p.agent != me) else {
        return "agent";
    };
    if &*them.agent == COMPUTER_ID {
        "computer"
    } else if world.is_present(&them.agent)
        && matches!(
            world.player(&them.agent).sink_kind(),
            Sink::Connection { .. }
        )
    {
        "human"
    } else {
        "agent"
    }
}

pub struct CreateGame;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateGameArgs {
    /// Play against the `computer` (AI) or another `agent` (who joins with joinGame).
    #[serde(rename = "type")]
    pub kind: String,
    /// Your colour; white moves first.
    #[serde(default = "white")]
    pub color: String,
    /// Also name the interactive board (the resource `ui://chess/<game id>`).
    #[serde(default)]
    pub show_ui: bool,
    /// The computer's difficulty, 1 to 10.
    #[serde(default = "five")]
    pub difficulty: u8,
    /// A time control, minutes+increment (`5+3`), or a time per move (`3d`); `none` or absent
    /// for no clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

fn white() -> String {
    "white".into()
}
fn five() -> u8 {
    5
}

impl Verb for CreateGame {
    const NAME: &'static str = "createGame";
    const PLACED: bool = true;
    const USAGE: &'static str =
        "createGame computer|agent [white|black] [difficulty 1-10] [clock 5+3|3d]";
    const SUMMARY: &'static str = "Start a chess game against the computer or another agent.";
    const HELP: &'static str = "Creates a game and returns its id. As white you move first (finishTurn); \
as black, call waitForNextTurn. Against `agent`, the game starts when another player calls \
joinGame with the id.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Start a chess game against the `computer` \
(`difficulty` 1 to 10) or an `agent`, who joins with joinGame, playing `color`. Returns the game's \
id, position, legal moves and whose turn it is: as white call finishTurn, as black \
waitForNextTurn.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = Topic::AGENTS;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    /// The tool's fixed arguments (`type`, `color`, `showUi`, `difficulty`; and moot's optional
    /// clock), from a hand-written schema, and the board page declared for MCP Apps hosts.
    const TOOL: ToolSpec = ToolSpec {
        input_schema: Some(include_str!("create_game.schema.json")),
        meta: Some(r#"{"ui": {"resourceUri": "ui://chess/board"}}"#),
        ..ToolSpec::GENERATED
    };
    type Args = CreateGameArgs;
    type Output = GameInfo;

    fn parse(rest: &str) -> Result<CreateGameArgs, VerbError> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let kind = words.first().ok_or_else(usage::<CreateGame>)?.to_string();
        let mut args = CreateGameArgs {
            kind,
            color: white(),
            show_ui: false,
            difficulty: five(),
            clock: None,
        };
        let mut i = 1;
        while i < words.len() {
            match words[i] {
                "white" | "black" => args.color = words[i].into(),
                "clock" => {
                    i += 1;
                    args.clock = Some(words.get(i).ok_or_else(usage::<CreateGame>)?.to_string());
                }
                "difficulty" | "level" => {
                    i += 1;
                    args.difficulty = words
                        .get(i)
                        .and_then(|d| d.parse().ok())
                        .ok_or_else(usage::<CreateGame>)?;
                }
                _ => return Err(usage::<CreateGame>()),
            }
            i += 1;
        }
        Ok(args)
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        a: CreateGameArgs,
    ) -> Result<Reply<GameInfo>, VerbError> {
        if a.kind != "computer" && a.kind != "agent" {
            return Err(VerbError::usage(
                "Error: type must be \"computer\" or \"agent\".",
            ));
        }
        if a.color != "white" && a.color != "black" {
            return Err(VerbError::usage(
                "Error: color must be \"white\" or \"black\".",
            ));
        }
        if !(1..=10).contains(&a.difficulty) {
            return Err(VerbError::usage("Error: difficulty must be from 1 to 10."));
        }
        let mut options = json!({});
        if let Some(c) = a.clock.as_deref().filter(|c| *c != "none") {
            options["clock"] = json!(c);
            super::rules::TimeControl::parse(c)
                .map_err(|e| VerbError::usage(format!("Error: {e}")))?;
        }
        let me = cx.actor.clone();
        let side = if a.color == "white" {
            Side::White
        } else {
            Side::Black
        };
        let other = side.other().name();
        let head = |id: &str| {
            format!(
                "Game Created Successfully!\n- Game ID: {id}\n- Type: {}\n- You are: {}",
                a.kind,
                side.title()
            )
        };
        if a.kind == "agent" {
            // Each waits, kept, until someone joins: so many an identity at once.
            let limit = world.sessions_limit();
            let waiting = world
                .ext::<ChessRoom>()
                .open_games
                .values()
                .filter(|g| g.creator == me)
                .count();
            if limit > 0 && waiting >= limit {
                return Err(VerbError::refused(format!(
                    "Error: you have {waiting} games waiting for an opponent; let someone join \
                     them before you make another."
                )));
            }
            let id = world.reserve_session_id();
            if a.show_ui {
                world.ext::<ChessRoom>().ui.insert((id, me.clone()));
            }
            let who = me.clone();
            let open = OpenGame {
                creator: me.clone(),
                side,
                options,
            };
            cx.save(
                moot_kernel::store::keys::put_state(open.kept(id)),
                move |w| {
                    w.ext::<ChessRoom>().ui.remove(&(id, who));
                    w.ext::<ChessRoom>().open_games.remove(&id);
                },
            );
            world.ext::<ChessRoom>().open_games.insert(id, open);
            moot_kernel::verbs::tables::from_afar(world, cx, super::CHESS_TABLE);
            let text = format!(
                "{}\n\nWaiting for an opponent, who joins with `joinGame({id})`.\n\n**Next Action**: Call `waitForNextTurn(game_id)`; it returns when it is your turn.",
                head(&id.to_string())
            );
            let text = if cx.face == Face::Telnet {
                format!(
                    "Game #{id} is open: you play {}, and it begins when someone types `joinGame {id}`.",
                    side.name()
                )
            } else {
                text
            };
            let data = waiting_info(id, &a.color);
            return Ok(Reply::new(vec![text], with_ui(world, id, data, &me)));
        }
        let participants = BTreeMap::from([
            (a.color.clone(), me.to_string()),
            (other.to_owned(), COMPUTER_ID.to_owned()),
        ]);
        options["computer_level"] = json!(a.difficulty);
        let created = world.create_session_here(cx, "chess.v1", &participants, options)?;
        let sid = created.id;
        moot_kernel::verbs::tables::from_afar(world, cx, super::CHESS_TABLE);
        if a.show_ui {
            let key = (sid, me.clone());
            world.ext::<ChessRoom>().ui.insert(key.clone());
            cx.undo(move |w| {
                w.ext::<ChessRoom>().ui.remove(&key);
            });
        }
        let (s, g) = chess_game(world, sid)?;
        let text = if cx.face == Face::Telnet {
            world.send_board(cx, sid, &me);
            format!(
                "You play the computer as {} in game #{}.",
                side.name(),
                created.session_id
            )
        } else if side == Side::White {
            format!(
                "{}\n\n{}\n\n**Next Action**: Decide your move and call `finishTurn(game_id, move)`.",
                head(&created.session_id),
                markdown_board(g.position())
            )
        } else {
            format!(
                "{}\n\n**Next Action**: Call `waitForNextTurn(game_id)` to wait for White's move.",
                head(&created.session_id)
            )
        };
        Ok(Reply::new(
            vec![text],
            with_ui(world, s.id, info(s, g, &me, None), &me),
        ))
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GameIdArgs {
    /// The id of the game.
    pub game_id: String,
}

pub struct JoinGame;

impl Verb for JoinGame {
    const NAME: &'static str = "joinGame";
    const USAGE: &'static str = "joinGame <game id>";
    const SUMMARY: &'static str = "Join a chess game someone created for an opponent.";
    const HELP: &'static str = "Takes the free colour in a game made with `createGame agent`, or shows \
a game you already play. Then play with finishTurn (or `move` on telnet).";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Join the game `game_id` that someone created for an \
agent, taking the free colour. Returns the game as createGame does.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = Topic::AGENTS;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = GameIdArgs;
    type Output = GameInfo;

    fn parse(rest: &str) -> Result<GameIdArgs, VerbError> {
        whole(rest, word, usage::<JoinGame>).map(|g| GameIdArgs {
            game_id: g.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, a: GameIdArgs) -> Result<Reply<GameInfo>, VerbError> {
        let id = tool_game_id(&a.game_id)?;
        let me = cx.actor.clone();
        // One set aside on a game world for its second player is joined there.
        if !world.ext::<ChessRoom>().open_games.contains_key(&id) && !world.is_copy(id) {
            world.held_elsewhere(cx, id)?;
        }
        if let Some(open) = world.ext::<ChessRoom>().open_games.get(&id).cloned() {
            if open.creator == me {
                return Err(VerbError::refused(
                    "You created this game; another player must join it.",
                ));
            }
            let participants = BTreeMap::from([
                (open.side.name().to_owned(), open.creator.to_string()),
                (open.side.other().name().to_owned(), me.to_string()),
            ]);
            world.create_agreed_session(cx, id, "chess.v1", &participants, open.options)?;
            moot_kernel::verbs::tables::from_afar(world, cx, super::CHESS_TABLE);
            if let Some(open) = world.ext::<ChessRoom>().open_games.remove(&id) {
                let key = id.to_string();
                cx.save(
                    moot_kernel::store::keys::drop_state(super::KEPT_AS, key),
                    move |w| {
                        w.ext::<ChessRoom>().open_games.insert(id, open);
                    },
                );
            }
        }
        let (s, g) =
            chess_game(world, id).map_err(|_| VerbError::not_found("Error: Game not found"))?;
        let Some(role) = s.role_of(&me) else {
            return Err(VerbError::refused(format!(
                "Error: Game {id} already has two players (you can `watch #{id}`)."
            )));
        };
        let i = with_ui(world, s.id, info(s, g, &me, None), &me);
        let next = if i.status == "your_turn" {
            "**Next Action**: Decide your move and call `finishTurn(game_id, move)`."
        } else {
            "**Next Action**: Call `waitForNextTurn(game_id)`."
        };
        // A person on telnet reads words and the board they know, not the agents' markdown.
        if cx.face == Face::Telnet {
            let text = format!(
                "You join game #{id} as {}: {}. {} to move.",
                Side::from_role(role).map_or("white", Side::name),
                s.players_line(),
                g.turn().title()
            );
            world.send_board(cx, id, &me);
            return Ok(Reply::new(vec![text], i));
        }
        let text = format!(
            "Joined Game {id} Successfully!\n- You are: {}\n- Players: {}\n- Turn: {}\n\n{}\n\n{next}",
            Side::from_role(role).map_or("White", Side::title),
            s.players_line(),
            g.turn().title(),
            markdown_board(g.position())
        );
        world.send_board(cx, id, &me);
        Ok(Reply::new(vec![text], i))
    }
}

pub struct FinishTurn;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FinishTurnArgs {
    /// The id of the game.
    pub game_id: String,
    /// The move in UCI (e.g. "e2e4", "a7a8q").
    #[serde(rename = "move")]
    pub mv: String,
    /// Claim that this move wins (checkmate); the move is refused if it does not.
    #[serde(default)]
    pub claim_win: bool,
}

impl Verb for FinishTurn {
    const NAME: &'static str = "finishTurn";
    const USAGE: &'static str = "finishTurn <game id> <move> [claim]";
    const SUMMARY: &'static str = "Make your move in a chess game; optionally claim checkmate.";
    const HELP: &'static str = "Checks that the game exists, that it is your turn and that the move (UCI) \
is legal, then plays it. With claim_win, the move is refused unless it mates.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Play `move`, in UCI (`e2e4`), in the game `game_id` \
when it is your turn; with `claim_win`, the move is refused unless it mates. Returns the game \
after your move; then call waitForNextTurn.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = Topic::AGENTS;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = FinishTurnArgs;
    type Output = GameInfo;

    fn parse(rest: &str) -> Result<FinishTurnArgs, VerbError> {
        let (rest, id) = word(rest).map_err(|_| usage::<FinishTurn>())?;
        let (rest, mv) = word(rest).map_err(|_| usage::<FinishTurn>())?;
        let claim = match text(rest) {
            Ok((_, w)) if w.eq_ignore_ascii_case("claim") => true,
            Ok(_) => return Err(usage::<FinishTurn>()),
            Err(_) => false,
        };
        Ok(FinishTurnArgs {
            game_id: id.to_owned(),
            mv: mv.to_owned(),
            claim_win: claim,
        })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        a: FinishTurnArgs,
    ) -> Result<Reply<GameInfo>, VerbError> {
        let id = tool_game_id(&a.game_id)?;
        let me = cx.actor.clone();
        if world.ext::<ChessRoom>().open_games.contains_key(&id) {
            return Err(VerbError::refused(format!(
                "Invalid move: game {id} is still waiting for an opponent."
            )));
        }
        let (s, g) =
            chess_game(world, id).map_err(|_| VerbError::not_found("Error: Game not found"))?;
        let role = s.role_of(&me).ok_or_else(|| {
            VerbError::refused(format!("Invalid move: you are not playing in game {id}."))
        })?;
        if let Some(o) = g.outcome() {
            return Err(VerbError::refused(format!(
                "Invalid move: the game is over ({}).",
                o.describe()
            )));
        }
        if g.turn().name() != role {
            world.refused(cx, id, &me);
            return Err(VerbError::refused("Invalid move: it is not your turn."));
        }
        // SAN is taken as well as UCI, and played (and logged) as UCI.
        let mv = Game::parse(g, role, a.mv.trim())
            .map_or_else(|_| a.mv.trim().to_owned(), |action| action.to_string());
        // Legality is checked against the position (cheap); only a claim needs the move played.
        let action = match g.parse_move(&mv) {
            Ok(m) => super::rules::ChessAction::Move(m.to_uci(shakmaty::CastlingMode::Standard)),
            Err(e) => {
                world.refused(cx, id, &me);
                return Err(VerbError::refused(format!("Invalid move: {e}")));
            }
        };
        let mates = || {
            Game::act(g, role, &action)
                .ok()
                .and_then(|after| after.outcome())
                .is_some_and(|o| o.reason == super::rules::EndReason::Checkmate)
        };
        if a.claim_win && !mates() {
            world.refused(cx, id, &me);
            return Err(VerbError::refused(
                "Move rejected: You claimed Checkmate, but this move does not result in Checkmate.",
            ));
        }
        let opponent = opponent_kind(world, s, &me);
        let tick = s.tick;
        world.play(
            cx,
            id,
            moot_kernel::game_api::AnyAction::new(action),
            Some(tick),
        )?;
        // The move is made, so a refusal now would be untrue.
        #[expect(
            clippy::expect_used,
            reason = "the game was moved in just above, in this same world call"
        )]
        let (s, g) = chess_game(world, id).expect("the game just moved in");
        let board = markdown_board(g.position());
        let text = match (g.outcome(), opponent) {
            // On telnet the board has come already (the mover sees every board); the words
            // are the ones the `move` verb gives.
            _ if cx.face == Face::Telnet => {
                format!("You play {} in game #{id}.", g.last_san().unwrap_or(mv))
            }
            (Some(o), _) => format!("Move accepted. Game Over: {}.", o.describe()),
            (None, "computer") => format!(
                "Waiting for Computer...\n\n{board}\n\n**Next Action**: Call `waitForNextTurn(game_id)`."
            ),
            (None, "human") => format!("Waiting for Human...\n\n{board}"),
            _ => format!(
                "Move accepted. It is your opponent's turn.\n\n{board}\n\n**Next Action**: Call `waitForNextTurn(game_id)`."
            ),
        };
        Ok(Reply::new(
            vec![text],
            with_ui(world, s.id, info(s, g, &me, None), &me),
        ))
    }
}

pub struct WaitForNextTurn;

impl Verb for WaitForNextTurn {
    const NAME: &'static str = "waitForNextTurn";
    const USAGE: &'static str = "waitForNextTurn <game id>";
    const SUMMARY: &'static str = "Wait (up to 30 s) until it is your turn in a chess game.";
    const HELP: &'static str = "Returns at once when it is your turn or the game is over; otherwise waits \
for your opponent's move, up to 30 seconds, and then says to call again. Safe to call again after \
cancelling. (On telnet it answers at once: you are told of every move anyway.)";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Wait, up to 30 seconds, until it is your turn in the \
game `game_id` or the game is over. Returns the game then, or says to call again.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = Topic::AGENTS;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = GameIdArgs;
    type Output = GameInfo;

    fn parse(rest: &str) -> Result<GameIdArgs, VerbError> {
        whole(rest, word, usage::<WaitForNextTurn>).map(|g| GameIdArgs {
            game_id: g.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, a: GameIdArgs) -> Result<Reply<GameInfo>, VerbError> {
        let id = tool_game_id(&a.game_id)?;
        let me = cx.actor.clone();
        #[expect(
            clippy::expect_used,
            reason = "GameInfo is strings, numbers and lists: it always serializes"
        )]
        let timeout = |tick: u64, data: GameInfo| {
            VerbError::pending(
                TIMEOUT_TEXT,
                Pending {
                    on: moot_kernel::world::Awaited::Session(id),
                    tick,
                    data: serde_json::to_value(GameInfo {
                        status: "timeout".into(),
                        ..data
                    })
                    .expect("GameInfo serializes"),
                    wait: None,
                },
            )
        };
        if let Some(open) = world.ext::<ChessRoom>().open_games.get(&id) {
            if open.creator != me {
                return Err(VerbError::not_found("Error: Game not found"));
            }
            let data = waiting_info(id, open.side.name());
            return Err(timeout(0, data));
        }
        let (s, g) =
            chess_game(world, id).map_err(|_| VerbError::not_found("Error: Game not found"))?;
        if s.role_of(&me).is_none() {
            return Err(VerbError::refused(format!(
                "You are not playing in game {id}."
            )));
        }
        let i = with_ui(world, s.id, info(s, g, &me, None), &me);
        match (g.outcome(), i.status.as_str()) {
            (Some(o), _) => Ok(Reply::new(
                vec![format!(
                    "Game Over: {} ({}).\n\n{}",
                    o.describe(),
                    o.result(),
                    markdown_board(g.position())
                )],
                i,
            )),
            (None, "your_turn") => Ok(Reply::new(
                vec![format!(
                    "It is your turn.{}\n\n{}\n\n**Next Action**: Decide your move and call `finishTurn(game_id, move)`.",
                    i.last_move
                        .as_ref()
                        .map(|m| format!(" Your opponent played {m}."))
                        .unwrap_or_default(),
                    markdown_board(g.position())
                )],
                i,
            )),
            _ => Err(timeout(s.tick, i)),
        }
    }
}
