//! `board` and `moves`: looking at chess games.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::play::GameArg;
use super::{chess_game, chess_of, game_to_see};
use moot_kernel::verbs::parse::{opt_text, whole};
use moot_kernel::verbs::{Reply, Topic, Verb, VerbError, usage};
use moot_kernel::world::{Cx, ThingKind, World};

pub struct Board;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct BoardView {
    pub session_id: String,
    pub players: String,
    /// The game's state: FEN, whose turn, outcome, last move.
    pub state: serde_json::Value,
}

impl Verb for Board {
    const NAME: &'static str = "board";
    const USAGE: &'static str = "board [#<game>]";
    const SUMMARY: &'static str = "Show a chess board: your game's, or the one named.";
    const HELP: &'static str = "Shows the board of your game (or of `#3`), with the last move and whose \
turn it is. tkMOO-light users get a fresh graphical board too.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Show the chess game `game` (`#3`), or your only game \
when left out. Returns its players and state: the position in FEN, whose turn it is, the last move \
and the outcome.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = GameArg;
    type Output = BoardView;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        whole(rest, opt_text, usage::<Board>).map(|g| GameArg {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<BoardView>, VerbError> {
        let actor = cx.actor.clone();
        let sid = game_to_see(world, &actor, args.game.as_deref())?;
        let (s, _) = chess_game(world, sid)?;
        let view = s.game.view(s.role_of(&actor));
        let b = world
            .board_msg(s, &actor, None, true)
            .ok_or_else(|| VerbError::not_found(format!("There is no chess board #{sid}.")))?;
        let text = b.text.clone();
        // The text is the answer; a tkMOO-light client also gets its board (and nothing twice).
        cx.show_board(
            &actor,
            moot_kernel::world::BoardMsg {
                text: Vec::new(),
                ..b
            },
        );
        Ok(Reply::new(
            text,
            BoardView {
                session_id: sid.to_string(),
                players: s.players_line(),
                state: view,
            },
        ))
    }
}

pub struct Moves;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct LegalMoves {
    pub session_id: String,
    /// Whose move it is; absent when the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<String>,
    /// Every legal move, in UCI.
    pub moves: Vec<String>,
}

impl Verb for Moves {
    const NAME: &'static str = "moves";
    const USAGE: &'static str = "moves [#<game>]";
    const SUMMARY: &'static str = "List the legal moves in a chess game.";
    const HELP: &'static str = "Lists, in SAN (Nf3) and in UCI (g1f3), every move the side to move \
may make in your game (or in `#3`, which anyone may ask).";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "List the legal moves of the side to move in the chess \
game `game` (`#3`), or your only game when left out. Returns the moves in UCI and whose turn it \
is.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = GameArg;
    type Output = LegalMoves;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        whole(rest, opt_text, usage::<Moves>).map(|g| GameArg {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<LegalMoves>, VerbError> {
        let sid = game_to_see(world, &cx.actor, args.game.as_deref())?;
        let (s, g) = chess_game(world, sid)?;
        let turn = (!s.game.is_terminal()).then(|| g.turn().name().to_owned());
        let moves = turn
            .as_deref()
            .map(|t| s.game.legal_actions(t))
            .unwrap_or_default();
        // People read SAN (Nf3), as the move list and `move` do; UCI beside it for programs.
        let san: Vec<String> = moves
            .iter()
            .filter_map(|uci| {
                let m = g.parse_move(uci).ok()?;
                Some(shakmaty::san::San::from_move(g.position(), m).to_string())
            })
            .collect();
        let text = match &turn {
            Some(t) => vec![format!(
                "Legal moves for {t} in game #{sid}: {} (in UCI: {}).",
                san.join(" "),
                moves.join(" ")
            )],
            None => vec![format!("Game #{sid} is over; there are no moves.")],
        };
        Ok(Reply::new(
            text,
            LegalMoves {
                session_id: sid.to_string(),
                turn,
                moves,
            },
        ))
    }
}

/// `pgn`: a chess game in PGN, for any chess program.
pub struct Pgn;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PgnText {
    pub session_id: String,
    /// The game in PGN (export format), readable by any chess program.
    pub pgn: String,
}

impl Verb for Pgn {
    const NAME: &'static str = "pgn";
    const USAGE: &'static str = "pgn [#<game>]";
    const SUMMARY: &'static str = "A chess game in PGN, for any chess program.";
    const HELP: &'static str = "Gives your game (or `#3`, any game) in PGN: the players, the date, \
the moves in SAN and the result, as chess programs read it. The same is at /chess/<id>.pgn on \
the web.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Give the chess game `game` (`#3`), or your only game \
when left out, in PGN. Returns the PGN text, as chess programs read it.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    type Args = GameArg;
    type Output = PgnText;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        whole(rest, opt_text, usage::<Pgn>).map(|g| GameArg {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<PgnText>, VerbError> {
        let sid = game_to_see(world, &cx.actor, args.game.as_deref())?;
        let pgn = pgn_of(world, sid)
            .ok_or_else(|| VerbError::not_found(format!("There is no chess game #{sid}.")))?;
        Ok(Reply::new(
            pgn.lines().map(str::to_owned).collect(),
            PgnText {
                session_id: sid.to_string(),
                pgn,
            },
        ))
    }
}

/// Chess game `sid` in PGN, if it is one.
pub fn pgn_of(world: &World, sid: moot_kernel::world::sessions::SessionId) -> Option<String> {
    let s = world.session(sid)?;
    let g = chess_of(s)?;
    let name = |role: &str| s.name_in(role).unwrap_or_else(|| "?".to_owned());
    // `created_at` is RFC 3339: its date, with dots.
    let date = s
        .created_at
        .get(..10)
        .unwrap_or("????-??-??")
        .replace('-', ".");
    Some(g.pgn(
        &format!("moot game #{sid}"),
        &date,
        &name("white"),
        &name("black"),
        &reasons_by_ply(s),
    ))
}

/// The reason each ply's player gave for it, by ply, found by replaying the game's log: an
/// action that adds a ply gives it its reason, and a takeback that takes plies away takes
/// theirs. Nothing while the game runs: reasons are held back until it is over (as
/// [`Session::reasons`](moot_kernel::world::sessions::Session::reasons) holds them).
fn reasons_by_ply(s: &moot_kernel::world::sessions::Session) -> Vec<Option<String>> {
    if !s.game.is_terminal() {
        return Vec::new();
    }
    let Ok(mut game) = (s.template.new)(s.seed, &s.options) else {
        return Vec::new();
    };
    // A position's number of plies from the game's start, read off its move number (two a
    // full move, one more while Black moves), so that a long game's replay stays linear.
    let ply_of = |g: &dyn moot_kernel::game_api::AnyGame| {
        use shakmaty::Position;
        g.as_any()
            .downcast_ref::<super::rules::ChessGame>()
            .map_or(0, |c| {
                let pos = c.position();
                2 * u64::from(pos.fullmoves().get())
                    + u64::from(pos.turn() == shakmaty::Color::Black)
            })
    };
    let first = ply_of(&*game);
    let mut by_ply: Vec<Option<String>> = Vec::new();
    for e in &s.log {
        let Ok(next) = game.apply_logged(e.role, &e.action, e.at_ms) else {
            return Vec::new();
        };
        game = next;
        let plies = usize::try_from(ply_of(&*game).saturating_sub(first)).unwrap_or(0);
        if plies > by_ply.len() {
            by_ply.resize(plies - 1, None);
            by_ply.push(e.reasoning.as_deref().map(str::to_owned));
        } else {
            by_ply.truncate(plies);
        }
    }
    by_ply
}
