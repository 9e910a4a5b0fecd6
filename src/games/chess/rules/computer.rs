//! The house's computer as a chess player: it grants takebacks in casual games (never in a
//! rated one, which would let a loss against its fixed rating be retried), accepts a draw only when it
//! stands clearly worse, and otherwise thinks with the external engine for the levels it plays
//! (if the operator gave one and its move is legal) or with the built-in engine.

use serde_json::Value;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, EnPassantMode};

use super::{ChessAction, ChessGame, Control, Side};
use moot_game_api::{Computer, Mind};

/// The level when a game names none.
pub const DEFAULT_LEVEL: u8 = 5;

/// What the computer, playing `role`, does in `game` now.
pub fn turn(
    game: &ChessGame,
    role: &str,
    options: &Value,
    seed: u64,
) -> Option<Computer<ChessAction>> {
    let me = Side::from_role(role)?;
    if game.takeback_request() == Some(me.other()) {
        let rated = options.get("rated").and_then(Value::as_bool) == Some(true);
        let answer = if rated {
            Control::DeclineTakeback
        } else {
            Control::AcceptTakeback
        };
        return Some(Computer::Act(ChessAction::Control(answer)));
    }
    if game.draw_offer() == Some(me.other()) {
        let mut eval = super::engine::eval::evaluate(game.position());
        if game.turn() != me {
            eval = -eval;
        }
        let answer = if eval < -300 {
            Control::AcceptDraw
        } else {
            Control::DeclineDraw
        };
        return Some(Computer::Act(ChessAction::Control(answer)));
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
    Some(Computer::Think(Box::new(move |mind: Mind<'_>| {
        if let Some(engine) = mind.engine {
            let fen = shakmaty::fen::Fen::from_position(&pos, EnPassantMode::Legal).to_string();
            if let Some(m) = engine.best_move(&fen, level) {
                let legal = m
                    .parse::<UciMove>()
                    .ok()
                    .filter(|u| u.to_move(&pos).is_ok());
                if let Some(u) = legal {
                    return Some(ChessAction::Move(u));
                }
                tracing::warn!(%m, "the external engine gave an illegal move; the built-in engine answers");
            }
        }
        super::engine::choose(&pos, level, seed, &history, mind.elapsed)
            .map(|m| ChessAction::Move(m.to_uci(CastlingMode::Standard)))
    })))
}

/// Each level's fixed rating (levels 1 to 10), on Stockfish's `UCI_Elo` scale, where one was
/// measured: each level played against Stockfish at known strengths and placed where its
/// results are likeliest (`cargo bench --bench engine_ladder -- --anchors …`; docs/ratings.md gives
/// the runs). A level weaker than Stockfish's weakest setting (1350) loses every game to it and
/// is not measured: it has no fixed rating, and games against it are casual.
///
/// Measured 2026-11-25 (Stockfish 15.1, 100 ms a move, 10 games a pairing). Levels 8 and 9 came
/// out 14 apart the wrong way round (1948 and 1934, well within the noise of 50 games each)
/// and share their mean. Levels 1 to 3 lost every game to Stockfish's weakest setting.
pub const ANCHORS: [Option<f64>; 10] = [
    None,
    None,
    None,
    Some(1286.0),
    Some(1475.0),
    Some(1509.0),
    Some(1766.0),
    Some(1941.0),
    Some(1941.0),
    Some(1990.0),
];

/// Level `level`'s anchored rating, if it has one.
pub fn anchor(level: u8) -> Option<f64> {
    ANCHORS
        .get(usize::from(level).checked_sub(1)?)
        .copied()
        .flatten()
}
