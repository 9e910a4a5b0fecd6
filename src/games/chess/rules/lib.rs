//! `chess.v1`: every rule of chess, on shakmaty.
//!
//! The game ends by itself on checkmate, stalemate, insufficient material, a position reached
//! for the third time, or the fifty-move rule (halfmove clock at 100), checked in that order
//! after each move, so a mate on the hundredth half-move is a mate. Nobody has to claim a draw:
//! agents and old clients have no claim button, and no game shuffles forever. (shakmaty knows
//! the first three; repetition is counted here from Zobrist keys since the last zeroing move.)
//!
//! Moves arrive in UCI (`e2e4`, `e7e8q`; shakmaty also reads king-takes-rook castling) and are
//! logged re-serialised in standard UCI.
//!
//! A game may have a clock (`"clock": "5+3"`: minutes each, seconds added per move), or be a
//! correspondence game (`"clock": "3d"`: so long for each move, time not carried over). Time is
//! charged to the side to move from the game time of each action; when a side's time runs out
//! the server actor's `flag` ends the game: a loss, or a draw if the other side has too little
//! material to mate (as lichess does).
//!
//! Everything chess is in this folder: the rules (here), what the host asks of a game of them
//! (`game`, its [`Game`] face), the clock (`clock`), the game's
//! export (`pgn`), the house engine (`engine`), the text board (`render`), tkMOO-light's board
//! encoding (`tkmoo`) and the computer player (`computer`).

#![warn(clippy::unwrap_used, clippy::expect_used)]

mod action;
mod clock;
pub mod computer;
pub mod engine;
mod game;
mod pgn;
pub mod render;
pub mod tkmoo;

pub use action::{ChessAction, Control};
pub use clock::{Clock, TimeControl, clock_text};

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Color, EnPassantMode, Move, Position};

use moot_game_api::{
    Computer, Deadline, Game, GameError, GameTime, Glance, Picture, Reading, SERVER_ROLE,
};

pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[derive(Debug, Clone)]
pub struct ChessGame {
    /// The FEN the game started from, when not the standard start.
    start_fen: Option<Arc<str>>,
    pos: shakmaty::Chess,
    /// `pos`'s Zobrist key: repetitions are counted along the earlier keys (`history`), so a
    /// state keeps no table of its own.
    key: u64,
    /// `pos` as FEN, kept beside it: every answer about the game shows it, several times a move.
    fen: String,
    outcome: Option<Outcome>,
    /// A standing draw offer, by this side.
    draw_offer: Option<Side>,
    /// A standing request to take back a move, by this side.
    takeback_request: Option<Side>,
    /// The moves that led here, the last first (shared between a state and the next, so
    /// keeping them costs one small record a move).
    history: Option<Arc<Ply>>,
    clock: Option<TimeControl>,
}

/// One move of the game as it stands, with what the rules need of the state it was played
/// from: its key, to count repetitions, and its offers and clock, to restore them on a
/// takeback. The position itself is not kept (a tenth of the size, on every move of every
/// game the town holds): a takeback, which is rare, replays the moves from the start.
#[derive(Debug)]
struct Ply {
    /// The move before this one.
    before: Option<Arc<Ply>>,
    mv: Move,
    san: SanPlus,
    key: u64,
    draw_offer: Option<Side>,
    takeback_request: Option<Side>,
    clock: Option<TimeControl>,
}

impl Ply {
    /// This ply and those before it, newest first.
    fn and_before(&self) -> impl Iterator<Item = &Ply> {
        std::iter::successors(Some(self), |p| p.before.as_deref())
    }
}

/// A long game's moves are let go one at a time: dropped the plain way, each would drop the
/// one before it from inside its own drop, as deep as the game is long.
impl Drop for Ply {
    fn drop(&mut self) {
        let mut earlier = self.before.take();
        while let Some(ply) = earlier {
            // A ply shared with another state (a takeback's, a copy's) is theirs to let go.
            earlier = Arc::try_unwrap(ply).ok().and_then(|mut p| p.before.take());
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    White,
    Black,
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

impl Side {
    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    pub fn from_role(role: &str) -> Option<Side> {
        match role {
            "white" => Some(Side::White),
            "black" => Some(Side::Black),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }

    /// "White" or "Black", to begin a sentence.
    pub fn title(self) -> &'static str {
        match self {
            Side::White => "White",
            Side::Black => "Black",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    Checkmate,
    Stalemate,
    InsufficientMaterial,
    ThreefoldRepetition,
    FiftyMoveRule,
    Resignation,
    Agreement,
    /// The side to move ran out of time.
    Timeout,
    /// The side to move ran out of time, but the other could not have mated.
    TimeoutVsInsufficientMaterial,
    /// Ended before both sides had moved: no result, nobody's win, loss or draw.
    Aborted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Outcome {
    /// The winner; absent for a draw.
    pub winner: Option<Side>,
    pub reason: EndReason,
}

impl Outcome {
    /// `"1-0"`, `"0-1"` or `"1/2-1/2"` (`"*"`, PGN's no result, for an aborted game).
    pub fn result(&self) -> &'static str {
        if self.reason == EndReason::Aborted {
            return "*";
        }
        match self.winner {
            Some(Side::White) => "1-0",
            Some(Side::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// In words: "White wins by checkmate", "Draw by threefold repetition".
    pub fn describe(&self) -> String {
        let how = match self.reason {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::InsufficientMaterial => "insufficient material",
            EndReason::ThreefoldRepetition => "threefold repetition",
            EndReason::FiftyMoveRule => "the fifty-move rule",
            EndReason::Resignation => "resignation",
            EndReason::Agreement => "agreement",
            EndReason::Timeout => "time",
            EndReason::TimeoutVsInsufficientMaterial => {
                "time running out against insufficient material"
            }
            EndReason::Aborted => return "Aborted before both sides moved".to_owned(),
        };
        match self.winner {
            _ if self.reason == EndReason::Agreement => "Draw by agreement".to_owned(),
            Some(Side::White) if self.reason == EndReason::Timeout => "White wins on time".into(),
            Some(Side::Black) if self.reason == EndReason::Timeout => "Black wins on time".into(),
            Some(Side::White) => format!("White wins by {how}"),
            Some(Side::Black) => format!("Black wins by {how}"),
            None => format!("Draw by {how}"),
        }
    }
}

fn fen_of(pos: &shakmaty::Chess) -> String {
    // Straight into a string: the `Display` route costs twice as much.
    let mut fen = String::with_capacity(90);
    Fen::from_position(pos, EnPassantMode::Legal).append_to_string(&mut fen);
    fen
}

/// A move in standard UCI.
fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

fn zobrist(pos: &shakmaty::Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

impl ChessGame {
    pub fn position(&self) -> &shakmaty::Chess {
        &self.pos
    }

    pub fn fen(&self) -> &str {
        &self.fen
    }

    pub fn turn(&self) -> Side {
        self.pos.turn().into()
    }

    pub fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// The last move, in standard UCI.
    pub fn last_move(&self) -> Option<String> {
        self.history.as_deref().map(|p| uci(p.mv))
    }

    /// The last move in SAN with its check or mate mark, like `Nf3` or `Qxf7#`, for people's
    /// news.
    pub fn last_san(&self) -> Option<String> {
        self.history.as_deref().map(|p| p.san.to_string())
    }

    /// The moves of the game as it stands (moves taken back left out), oldest first, in SAN.
    pub fn sans(&self) -> Vec<String> {
        let mut out: Vec<String> = self.plies().map(|p| p.san.to_string()).collect();
        out.reverse();
        out
    }

    /// The moves of the game as it stands, oldest first, in standard UCI (`e1g1` castles), as
    /// the lichess Bot API's `moves` lists them.
    pub fn ucis(&self) -> Vec<String> {
        let mut out: Vec<String> = self.plies().map(|p| uci(p.mv)).collect();
        out.reverse();
        out
    }

    /// The plies that led here, newest first.
    fn plies(&self) -> impl Iterator<Item = &Ply> {
        self.history
            .as_deref()
            .into_iter()
            .flat_map(Ply::and_before)
    }

    /// The position the game started from.
    fn start(&self) -> Option<shakmaty::Chess> {
        match &self.start_fen {
            None => Some(shakmaty::Chess::default()),
            Some(f) => f
                .parse::<Fen>()
                .ok()?
                .into_position(CastlingMode::Standard)
                .ok(),
        }
    }

    /// A move in UCI, checked against the position: the move it means, or why it is refused.
    pub fn parse_move(&self, uci: &str) -> Result<Move, GameError> {
        let parsed: UciMove = uci.trim().parse().map_err(|_| action::not_a_move(uci))?;
        self.legal(&parsed, uci)
    }

    /// The move `uci` means in this position, or its refusal (naming it as it was `given`).
    fn legal(&self, uci: &UciMove, given: &str) -> Result<Move, GameError> {
        uci.to_move(&self.pos).map_err(|_| {
            GameError::Illegal(format!("{given} is not a legal move in this position"))
        })
    }

    /// Zobrist keys of the earlier positions since the last capture or pawn move (for the
    /// engine, which must know what repeats).
    pub fn history_keys(&self) -> Vec<u64> {
        let mut keys: Vec<u64> = self.since_zeroing().filter(|k| *k != self.key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// The keys of the positions before this one, newest first, back to the first since the
    /// last capture or pawn move (none of those before it can stand again).
    fn since_zeroing(&self) -> impl Iterator<Item = u64> {
        let plies = self.pos.halfmoves() as usize;
        self.plies().map(|p| p.key).take(plies)
    }

    /// The game's clocks, if it has a clock each (not a time per move).
    pub fn clock(&self) -> Option<&Clock> {
        match &self.clock {
            Some(TimeControl::Fischer(c)) => Some(c),
            _ => None,
        }
    }

    pub fn time_control(&self) -> Option<&TimeControl> {
        self.clock.as_ref()
    }

    /// The side to move's time runs out at game time `now`: it loses, or draws if the other
    /// side could not mate with what it has.
    fn flag(&self, now: GameTime) -> Result<ChessGame, GameError> {
        let Some(d) = Game::deadline(self) else {
            return Err(GameError::Illegal("This game has no clock".into()));
        };
        if now < d.at {
            return Err(GameError::Illegal("The flag has not fallen".into()));
        }
        let loser = self.turn();
        let mut next = self.clone();
        let Some(clock) = next.clock.as_mut() else {
            return Err(GameError::Illegal("This game has no clock".into()));
        };
        clock.fall(loser, d.at);
        next.outcome = Some(
            if self.pos.has_insufficient_material(loser.other().into()) {
                Outcome {
                    winner: None,
                    reason: EndReason::TimeoutVsInsufficientMaterial,
                }
            } else {
                Outcome {
                    winner: Some(loser.other()),
                    reason: EndReason::Timeout,
                }
            },
        );
        Ok(next)
    }

    pub fn draw_offer(&self) -> Option<Side> {
        self.draw_offer
    }

    pub fn takeback_request(&self) -> Option<Side> {
        self.takeback_request
    }

    /// How many plies a takeback asked by `side` undoes: back to before `side`'s last move.
    fn takeback_plies(&self, side: Side) -> usize {
        if self.turn() == side { 2 } else { 1 }
    }

    /// The game as it stood `plies` moves ago (1 or 2), rebuilt from the moves before.
    fn undo(&self, plies: usize) -> Option<ChessGame> {
        let undone = self.plies().nth(plies.checked_sub(1)?)?;
        let mut pos = self.start()?;
        let kept: Vec<&Ply> = self.plies().skip(plies).collect();
        for p in kept.iter().rev() {
            pos.play_unchecked(p.mv);
        }
        Some(ChessGame {
            start_fen: self.start_fen.clone(),
            key: undone.key,
            fen: fen_of(&pos),
            pos,
            outcome: None,
            draw_offer: undone.draw_offer,
            takeback_request: undone.takeback_request,
            history: undone.before.clone(),
            clock: undone.clock,
        })
    }

    /// The game-control actions: resigning, draws and takebacks.
    fn control(&self, side: Side, action: Control) -> Result<ChessGame, GameError> {
        let mut next = self.clone();
        let other = side.other();
        match action {
            Control::Resign => {
                next.outcome = Some(Outcome {
                    winner: Some(other),
                    reason: EndReason::Resignation,
                })
            }
            Control::Abort if self.plies().nth(1).is_some() => {
                return Err(GameError::Illegal(
                    "Both sides have moved: the game can no longer be aborted (resign instead)"
                        .into(),
                ));
            }
            Control::Abort => {
                next.outcome = Some(Outcome {
                    winner: None,
                    reason: EndReason::Aborted,
                })
            }
            Control::OfferDraw if self.draw_offer == Some(other) => {
                next.outcome = Some(Outcome {
                    winner: None,
                    reason: EndReason::Agreement,
                });
            }
            Control::OfferDraw => next.draw_offer = Some(side),
            Control::AcceptDraw if self.draw_offer == Some(other) => {
                next.outcome = Some(Outcome {
                    winner: None,
                    reason: EndReason::Agreement,
                });
            }
            Control::DeclineDraw if self.draw_offer == Some(other) => next.draw_offer = None,
            Control::AcceptDraw | Control::DeclineDraw => {
                return Err(GameError::Illegal(
                    "There is no draw offer to answer".into(),
                ));
            }
            Control::RequestTakeback => {
                if self.undo(self.takeback_plies(side)).is_none() {
                    return Err(GameError::Illegal("You have no move to take back".into()));
                }
                next.takeback_request = Some(side);
            }
            Control::AcceptTakeback if self.takeback_request == Some(other) => {
                return self
                    .undo(self.takeback_plies(other))
                    .ok_or_else(|| GameError::Illegal("There is no move to take back".into()));
            }
            Control::DeclineTakeback if self.takeback_request == Some(other) => {
                next.takeback_request = None
            }
            Control::AcceptTakeback | Control::DeclineTakeback => {
                return Err(GameError::Illegal(
                    "There is no takeback request to answer".into(),
                ));
            }
        }
        Ok(next)
    }

    /// The game after `m`, which must be legal here.
    fn play(&self, m: Move) -> ChessGame {
        // SAN is named on the way (disambiguated against this position, marked from the next).
        // The next position's moves are generated once, for the mark and the stalemate alike
        // (shakmaty's SAN with its mark would generate them for the mark alone).
        let mut pos = self.pos.clone();
        let san = San::from_move(&pos, m);
        pos.play_unchecked(m);
        let (check, stuck) = (pos.is_check(), pos.legal_moves().is_empty());
        let san = SanPlus {
            san,
            suffix: match (check, stuck) {
                (true, true) => Some(Suffix::Checkmate),
                (true, false) => Some(Suffix::Check),
                (false, _) => None,
            },
        };
        let next = ChessGame {
            start_fen: self.start_fen.clone(),
            key: zobrist(&pos),
            fen: fen_of(&pos),
            pos,
            outcome: None,
            draw_offer: self.draw_offer.filter(|s| *s == self.turn()),
            takeback_request: None,
            history: Some(Arc::new(Ply {
                before: self.history.clone(),
                mv: m,
                san,
                key: self.key,
                draw_offer: self.draw_offer,
                takeback_request: self.takeback_request,
                clock: self.clock,
            })),
            clock: self.clock,
        };
        let repeated = next.since_zeroing().filter(|k| *k == next.key).count() >= 2;
        let p = &next.pos;
        let (winner, reason) = if check && stuck {
            (Some(self.turn()), Some(EndReason::Checkmate))
        } else if p.is_insufficient_material() {
            (None, Some(EndReason::InsufficientMaterial))
        } else if stuck {
            (None, Some(EndReason::Stalemate))
        } else if repeated {
            (None, Some(EndReason::ThreefoldRepetition))
        } else if p.halfmoves() >= 100 {
            (None, Some(EndReason::FiftyMoveRule))
        } else {
            (None, None)
        };
        ChessGame {
            outcome: reason.map(|reason| Outcome { winner, reason }),
            ..next
        }
    }
}

#[cfg(test)]
mod tests;
