//! What a side (or the server actor) does in a game of chess, as a value: a move, one of the
//! game-control actions open to either side at any time, or the server's flag. It is read once
//! where it comes in (SAN against the position, in [`Game::parse`](moot_game_api::Game::parse))
//! and printed in the log's spelling: UCI, or the control action's name.

use std::fmt;
use std::str::FromStr;

use shakmaty::uci::UciMove;

use moot_game_api::GameError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChessAction {
    Move(UciMove),
    Control(Control),
    /// The server actor's: the side to move has run out of time.
    Flag,
}

/// The game-control actions: resigning, aborting, draws and takebacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    Resign,
    /// Ending a game before both sides have moved, with no result (lichess's abort).
    Abort,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    RequestTakeback,
    AcceptTakeback,
    DeclineTakeback,
}

impl Control {
    pub const ALL: [Control; 8] = [
        Control::Resign,
        Control::Abort,
        Control::OfferDraw,
        Control::AcceptDraw,
        Control::DeclineDraw,
        Control::RequestTakeback,
        Control::AcceptTakeback,
        Control::DeclineTakeback,
    ];

    /// Its name, as the log and the session host's clients spell it.
    pub fn name(self) -> &'static str {
        match self {
            Control::Resign => "resign",
            Control::Abort => "abort",
            Control::OfferDraw => "offer_draw",
            Control::AcceptDraw => "accept_draw",
            Control::DeclineDraw => "decline_draw",
            Control::RequestTakeback => "request_takeback",
            Control::AcceptTakeback => "accept_takeback",
            Control::DeclineTakeback => "decline_takeback",
        }
    }
}

/// The refusal of something that reads as no move at all.
pub(crate) fn not_a_move(text: &str) -> GameError {
    GameError::Illegal(format!(
        "`{text}` is not a legal move here (give UCI like e2e4 or e7e8q, or SAN like Nf3)"
    ))
}

impl FromStr for ChessAction {
    type Err = GameError;

    /// The log's spelling (which a client may send too): UCI, a control action's name, `flag`.
    fn from_str(s: &str) -> Result<ChessAction, GameError> {
        let t = s.trim();
        if t == "flag" {
            return Ok(ChessAction::Flag);
        }
        if let Some(c) = Control::ALL.into_iter().find(|c| c.name() == t) {
            return Ok(ChessAction::Control(c));
        }
        t.parse::<UciMove>()
            .map(ChessAction::Move)
            .map_err(|_| not_a_move(s))
    }
}

impl fmt::Display for ChessAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChessAction::Move(m) => write!(f, "{m}"),
            ChessAction::Control(c) => f.write_str(c.name()),
            ChessAction::Flag => f.write_str("flag"),
        }
    }
}
