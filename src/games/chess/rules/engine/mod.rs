//! The house chess engine, on shakmaty: iterative deepening negamax with principal-variation
//! search, a transposition table on the Zobrist key, quiescence search over captures in
//! MVV-LVA order, killer moves, and a piece-square evaluation.
//!
//! Difficulty runs from 1 to 10. Low levels mix in random moves and noise on the root scores
//! (level 1 is a random mover); higher levels search deeper within a node budget; level 10
//! thinks for up to about a second. Node budgets rather than clocks set the levels, so a seeded
//! game replays the same on any machine; the deadline is only a safety cap.
//!
//! The search is CPU work: callers run it on a blocking thread, never on the async runtime.

pub mod eval;
mod search;

use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::{Chess, Move, Position};

pub use search::Searcher;

/// How one difficulty level plays.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Level {
    pub level: u8,
    /// Chance of playing a uniformly random legal move instead of searching.
    pub random: f64,
    /// Deepest search, in plies.
    pub depth: u8,
    /// Node budget for one move.
    pub nodes: u64,
    /// Random noise, in centipawns, added to each root move's score.
    pub noise: i32,
    /// Wall-clock cap for one move.
    pub time: Duration,
}

pub const MIN_LEVEL: u8 = 1;
pub const MAX_LEVEL: u8 = 10;

impl Level {
    pub fn new(level: u8) -> Level {
        let l = level.clamp(MIN_LEVEL, MAX_LEVEL);
        let (random, depth, nodes, noise, ms) = match l {
            1 => (1.0, 1, 1, 0, 100),
            2 => (0.5, 1, 5_000, 150, 200),
            3 => (0.25, 1, 10_000, 80, 200),
            4 => (0.10, 2, 20_000, 50, 300),
            5 => (0.04, 2, 40_000, 25, 300),
            6 => (0.0, 3, 80_000, 12, 400),
            7 => (0.0, 4, 150_000, 5, 500),
            8 => (0.0, 5, 250_000, 0, 700),
            9 => (0.0, 7, 600_000, 0, 900),
            _ => (0.0, 64, 1_500_000, 0, 1000),
        };
        Level {
            level: l,
            random,
            depth,
            nodes,
            noise,
            time: Duration::from_millis(ms),
        }
    }
}

/// The engine's move in `pos` at `level`, drawing any randomness from `seed`. `history` holds
/// the Zobrist keys of earlier positions of the game (since the last zeroing move), so that the
/// engine knows which moves repeat. `None` only when there is no legal move.
pub fn choose(pos: &Chess, level: u8, seed: u64, history: &[u64]) -> Option<Move> {
    let level = Level::new(level);
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let mut rng = StdRng::seed_from_u64(seed);
    if moves.len() == 1 || rng.random_bool(level.random) {
        return Some(moves[rng.random_range(0..moves.len())]);
    }
    let mut s = Searcher::new(level.nodes, Instant::now() + level.time, history);
    if level.noise > 0 {
        // Score every root move, add noise, take the best: a weaker but plausible player.
        let scored = s.score_root_moves(pos, level.depth);
        let noisy = scored
            .into_iter()
            .map(|(m, v)| (m, v + rng.random_range(-level.noise..=level.noise)));
        return noisy.max_by_key(|(_, v)| *v).map(|(m, _)| m);
    }
    s.best_move(pos, level.depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn uci(m: Move) -> String {
        m.to_uci(CastlingMode::Standard).to_string()
    }

    #[test]
    fn it_finds_mate_in_one_and_takes_a_free_queen() {
        // Back-rank mate: Ra8#.
        assert_eq!(
            uci(choose(&pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"), 6, 1, &[]).unwrap()),
            "a1a8"
        );
        // A hanging queen on d5.
        assert_eq!(
            uci(choose(&pos("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"), 5, 1, &[]).unwrap()),
            "d2d5"
        );
    }

    #[test]
    fn a_seeded_choice_repeats() {
        let p = Chess::default();
        for level in [1, 3, 7] {
            assert_eq!(
                choose(&p, level, 42, &[]),
                choose(&p, level, 42, &[]),
                "level {level}"
            );
        }
    }

    #[test]
    fn level_ten_answers_within_about_a_second() {
        let t = Instant::now();
        let m = choose(
            &pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"),
            10,
            7,
            &[],
        );
        assert!(m.is_some());
        // Generous: a debug build on a loaded machine; the cap itself is one second.
        assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    }
}
