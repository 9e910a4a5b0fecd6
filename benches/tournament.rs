//! Tournament pairing at scale, on the pure ledger alone (`moot_kernel::tournament`): how long
//! the server takes to pair each round of a big Swiss, and an arena's pairing of whoever is
//! free, with results drawn from a seeded generator (stronger seeds win more often). No games
//! are played through a server here: this is the pairing's own cost, which a round waits on.
//!
//!     cargo bench --bench tournament
//!     cargo bench --bench tournament -- --players 512 --rounds 11 --arena 2000

use std::time::{Duration, Instant};

use moot_kernel::tournament::{Format, Ledger, Outcome};
use rand::{RngExt, SeedableRng};

#[path = "support/args.rs"]
mod args;
use args::arg;

/// A result between two players rated `a` and `b`: the better wins more often, some draws.
fn result(rng: &mut rand::rngs::StdRng, a: f64, b: f64) -> Outcome {
    let expected = 1.0 / (1.0 + 10f64.powf((b - a) / 400.0));
    let x: f64 = rng.random();
    if x < 0.1 {
        Outcome::Draw
    } else if x < 0.1 + 0.9 * expected {
        Outcome::FirstWins
    } else {
        Outcome::SecondWins
    }
}

fn main() {
    let players = arg("--players", 256);
    let rounds = arg("--rounds", 9);
    let arena_players = arg("--arena", 1000);
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);

    let mut swiss = Ledger::new(Format::Swiss {
        rounds: rounds as u32,
    });
    for _ in 0..players {
        swiss.enter(rng.random_range(1000.0..2400.0));
    }
    let mut took = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        let r = match swiss.next_round() {
            Ok(r) => r,
            Err(e) => {
                println!("round {}: {e}", swiss.rounds.len() + 1);
                break;
            }
        };
        took.push(t.elapsed());
        for g in 0..swiss.rounds[r].len() {
            let p = swiss.rounds[r][g].clone();
            if let Some(second) = p.second {
                let o = result(&mut rng, swiss.ratings[p.first], swiss.ratings[second]);
                let _ = swiss.decide(r, g, o);
            }
        }
    }
    let t = Instant::now();
    let table = moot_kernel::tournament::standings::standings(&swiss);
    let standings = t.elapsed();
    let max = took.iter().max().copied().unwrap_or_default();
    let total: Duration = took.iter().sum();
    println!(
        "swiss: {players} players, {} rounds paired; per round: mean {:.2} ms, worst {:.2} ms; \
         standings {:.2} ms (winner: entrant {})",
        took.len(),
        total.as_secs_f64() * 1000.0 / took.len().max(1) as f64,
        max.as_secs_f64() * 1000.0,
        standings.as_secs_f64() * 1000.0,
        table.first().map_or(0, |s| s.entrant)
    );

    // An arena: pair everyone, then over and over finish a random game and pair whoever is
    // free, as the server does whenever a game ends.
    let mut arena = Ledger::new(Format::Arena);
    for _ in 0..arena_players {
        arena.enter(rng.random_range(1000.0..2400.0));
    }
    let mut calls = Vec::new();
    let t = Instant::now();
    let _ = arena.next_round();
    calls.push(t.elapsed());
    let games = arena_players * 5;
    for _ in 0..games {
        // A game under way, at random, ends.
        let open: Vec<(usize, usize)> = arena
            .rounds
            .iter()
            .enumerate()
            .flat_map(|(r, ps)| {
                ps.iter()
                    .enumerate()
                    .filter(|(_, p)| p.second.is_some() && p.outcome.is_none())
                    .map(move |(g, _)| (r, g))
            })
            .collect();
        let Some(&(r, g)) = open.get(rng.random_range(0..open.len().max(1))) else {
            break;
        };
        let p = arena.rounds[r][g].clone();
        let second = p.second.unwrap_or(p.first);
        let o = result(&mut rng, arena.ratings[p.first], arena.ratings[second]);
        let _ = arena.decide(r, g, o);
        let t = Instant::now();
        let _ = arena.next_round();
        calls.push(t.elapsed());
    }
    calls.sort();
    let at = |q: f64| calls[((calls.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!(
        "arena: {arena_players} players, {} games paired as others ended; pairing whoever is \
         free: p50 {:.2} ms, p99 {:.2} ms, worst {:.2} ms",
        arena.games().filter(|p| p.second.is_some()).count(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
}
