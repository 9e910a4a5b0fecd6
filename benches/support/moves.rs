//! Choosing moves for the load generators' chess players: legal, varied, repeatable.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

/// A legal move (UCI) in the position `fen`, picked by `n`.
pub fn pick(fen: &str, n: u64) -> String {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let moves = pos.legal_moves();
    moves[(n as usize).wrapping_mul(7919) % moves.len()]
        .to_uci(CastlingMode::Standard)
        .to_string()
}
