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

use std::time::Duration;

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
pub fn choose(
    pos: &Chess,
    level: u8,
    seed: u64,
    history: &[u64],
    elapsed: &dyn Fn() -> Duration,
) -> Option<Move> {
    let level = Level::new(level);
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return None;
    }
    let mut rng = StdRng::seed_from_u64(seed);
    if moves.len() == 1 || rng.random_bool(level.random) {
        return Some(moves[rng.random_range(0..moves.len())]);
    }
    let out_of_time = || elapsed() >= level.time;
    let mut s = Searcher::new(level.nodes, &out_of_time, history);
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
    use std::time::Duration;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn no_clock() -> Duration {
        Duration::ZERO
    }

    fn uci(m: Move) -> String {
        m.to_uci(CastlingMode::Standard).to_string()
    }

    #[test]
    fn it_finds_mate_in_one_and_takes_a_free_queen() {
        // Back-rank mate: Ra8#.
        assert_eq!(
            uci(choose(
                &pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"),
                6,
                1,
                &[],
                &no_clock
            )
            .unwrap()),
            "a1a8"
        );
        // A hanging queen on d5.
        assert_eq!(
            uci(choose(
                &pos("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1"),
                5,
                1,
                &[],
                &no_clock
            )
            .unwrap()),
            "d2d5"
        );
    }

    #[test]
    fn a_seeded_choice_repeats() {
        let p = Chess::default();
        for level in [1, 3, 7] {
            assert_eq!(
                choose(&p, level, 42, &[], &no_clock),
                choose(&p, level, 42, &[], &no_clock),
                "level {level}"
            );
        }
    }

    #[test]
    fn the_search_stops_when_the_hosts_clock_says_its_time_is_spent() {
        // The host's clock reads "no time yet" three times, then "long past the budget": the
        // search must answer with a move from what it has, and stop asking.
        let reads = std::cell::Cell::new(0u32);
        let elapsed = || {
            reads.set(reads.get() + 1);
            if reads.get() > 3 {
                Duration::from_secs(60)
            } else {
                Duration::ZERO
            }
        };
        let p = pos("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
        let m = choose(&p, 10, 7, &[], &elapsed).expect("a move");
        assert!(p.is_legal(m));
        assert_eq!(
            reads.get(),
            4,
            "it reads the clock until time is up, then no more"
        );
    }
}
