//! `board` and `moves`: looking at chess games.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::chess_of;
use super::my_game;
use super::play::GameArg;
use crate::verbs::parse::{opt_text, whole};
use crate::verbs::{Reply, Topic, Verb, VerbError, usage};
use crate::world::{Cx, ThingKind, World};

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
    const TOPIC: Topic = Topic::Chess;
    const OFFERED_BY: &'static [ThingKind] = &[crate::verbs::chess::CHESS_TABLE];
    type Args = GameArg;
    type Output = BoardView;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        whole(rest, opt_text, usage::<Board>).map(|g| GameArg {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<BoardView>, VerbError> {
        let actor = cx.actor.clone();
        let sid = my_game(world, &actor, args.game.as_deref())?;
        let s = world.session(sid).expect("found");
        let view = s.game.view(s.role_of(&actor));
        let b = world.board_msg(s, &actor, None).expect("a chess session");
        let text = b.text.clone();
        // The text is the answer; a tkMOO-light client also gets its board (and nothing twice).
        cx.show_board(
            &actor,
            crate::world::BoardMsg {
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
    const HELP: &'static str = "Lists, in UCI, every move the side to move may make in your game (or in \
`#3`, which anyone may ask).";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::Chess;
    const OFFERED_BY: &'static [ThingKind] = &[crate::verbs::chess::CHESS_TABLE];
    type Args = GameArg;
    type Output = LegalMoves;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        whole(rest, opt_text, usage::<Moves>).map(|g| GameArg {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<LegalMoves>, VerbError> {
        let sid = my_game(world, &cx.actor, args.game.as_deref())?;
        let s = world.session(sid).expect("found");
        let g = chess_of(s).expect("a chess session");
        let turn = (!s.game.is_terminal()).then(|| g.turn().name().to_owned());
        let moves = turn
            .as_deref()
            .map(|t| s.game.legal_actions(t))
            .unwrap_or_default();
        let text = match &turn {
            Some(t) => vec![format!(
                "Legal moves for {t} in game #{sid}: {}",
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
