//! The house's computer as a chess player: it grants takebacks, accepts a draw only when it
//! stands clearly worse, and otherwise thinks with the external engine for the levels it plays
//! (if the operator gave one and its move is legal) or with the built-in engine.

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, EnPassantMode};

use super::{ChessGame, Side};
use crate::games::{Computer, ExternalEngine};

/// The level when a game names none.
pub const DEFAULT_LEVEL: u8 = 5;

/// What the computer, playing `role`, does in `game` now.
pub fn turn(game: &ChessGame, role: &str, options: &Value, seed: u64) -> Option<Computer> {
    let me = Side::from_role(role)?;
    if game.takeback_request() == Some(me.other()) {
        return Some(Computer::Act("accept_takeback".into()));
    }
    if game.draw_offer() == Some(me.other()) {
        let mut eval = super::engine::eval::evaluate(game.position());
        if game.turn() != me {
            eval = -eval;
        }
        let answer = if eval < -300 {
            "accept_draw"
        } else {
            "decline_draw"
        };
        return Some(Computer::Act(answer.into()));
    }
    if game.turn() != me {
        return None;
    }
    let level = options
        .get("computer_level")
        .and_then(Value::as_u64)
        .map_or(DEFAULT_LEVEL, |l| l as u8);
    let pos = game.position().clone();
    let history = game.history_keys();
    Some(Computer::Think(Box::new(
        move |external: Option<&dyn ExternalEngine>| {
            if let Some(engine) = external {
                let fen = shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                if let Some(m) = engine.best_move(&fen, level) {
                    let legal = m
                        .parse::<UciMove>()
                        .ok()
                        .and_then(|u| u.to_move(&pos).ok())
                        .is_some();
                    if legal {
                        return Some(m);
                    }
                    tracing::warn!(%m, "the external engine gave an illegal move; the built-in engine answers");
                }
            }
            super::engine::choose(&pos, level, seed, &history)
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        },
    )))
}
