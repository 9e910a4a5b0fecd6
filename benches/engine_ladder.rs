//! The computer's difficulty ladder: seeded games between adjacent levels (colours alternate),
//! printing each higher level's score against the one below (it should be at least 60%) and
//! how long moves took; then, if Stockfish is installed, level 10 against Stockfish at
//! UCI_Elo 1350.
//!
//!     cargo bench --bench engine_ladder                       # 20 games a pair, 10 vs Stockfish
//!     cargo bench --bench engine_ladder -- --games 10 --stockfish-games 10 --from 1 --to 10
//!     cargo bench --bench engine_ladder -- --anchors   # the computer levels' fixed ratings
//!
//! `--anchors` plays level 10 against Stockfish at UCI_Elo 1600, 1800, 2000, 2200 and 2400
//! (or each `--against LEVEL:ELO,ELO,…` given), puts each level so played where its results are
//! likeliest, and prints the fixed ratings moot keeps for its levels: a level that won or lost
//! every game against Stockfish is not measured by them, and gets none.
//!
//! Games are played under chess.v1's own rules (moot's template). To keep the run short a game
//! is adjudicated as won when one side's material lead is a queen or more for eight plies in a
//! row, and drawn at 300 plies.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use moot::game_api::Game;
use moot::games::chess::rules::engine;
use moot::games::chess::rules::{ChessGame, Side};
use moot::games::chess::uci::UciEngine;
use serde_json::Value;
use shakmaty::{CastlingMode, Color, EnPassantMode, Position, Role};

/// A player: one of our levels, or Stockfish at an Elo.
#[derive(Clone, Copy)]
enum Player {
    Level(u8),
    Stockfish(u32),
}

fn material(pos: &shakmaty::Chess) -> i32 {
    let b = pos.board();
    let mut score = 0;
    for (_, p) in b.iter() {
        let v = match p.role {
            Role::Pawn => 1,
            Role::Knight | Role::Bishop => 3,
            Role::Rook => 5,
            Role::Queen => 9,
            Role::King => 0,
        };
        score += if p.color == Color::White { v } else { -v };
    }
    score
}

struct Played {
    /// 1 white won, 0 black won, 0.5 draw.
    white_score: f64,
    /// Think times of each player (white, black).
    times: [Vec<Duration>; 2],
}

fn play(white: Player, black: Player, seed: u64, stockfish: Option<&UciEngine>) -> Played {
    let mut g = ChessGame::new(0, &Value::Null).unwrap();
    let mut times = [Vec::new(), Vec::new()];
    let mut lopsided = 0;
    for ply in 0..300u64 {
        if let Some(o) = g.outcome() {
            return Played {
                white_score: o
                    .winner
                    .map_or(0.5, |w| if w == Side::White { 1.0 } else { 0.0 }),
                times,
            };
        }
        let side = g.turn();
        let who = if side == Side::White { white } else { black };
        let t = Instant::now();
        let mv = match who {
            Player::Level(l) => engine::choose(
                g.position(),
                l,
                seed.wrapping_mul(1000).wrapping_add(ply),
                &g.history_keys(),
                &|| t.elapsed(),
            )
            .map(|m| m.to_uci(CastlingMode::Standard).to_string()),
            Player::Stockfish(elo) => {
                let fen = shakmaty::fen::Fen::from_position(g.position(), EnPassantMode::Legal)
                    .to_string();
                let opts = [
                    ("UCI_LimitStrength", "true".to_owned()),
                    ("UCI_Elo", elo.to_string()),
                ];
                stockfish
                    .unwrap()
                    .best_move(&fen, &opts, Duration::from_millis(100))
                    .ok()
            }
        }
        .expect("a move");
        times[usize::from(side == Side::Black)].push(t.elapsed());
        g = g.apply(side.name(), &mv).expect("engines play legal moves");
        let m = material(g.position());
        lopsided = if m.abs() >= 9 { lopsided + 1 } else { 0 };
        if lopsided >= 8 {
            return Played {
                white_score: if m > 0 { 1.0 } else { 0.0 },
                times,
            };
        }
    }
    Played {
        white_score: 0.5,
        times,
    }
}

struct Match {
    name: String,
    /// (challenger, opponent), the challenger's score is reported.
    players: (Player, Player),
    games: usize,
}

struct Result_ {
    score: f64,
    wins: u32,
    draws: u32,
    losses: u32,
    times: Vec<Duration>,
}

fn run_match(m: &Match, threads: usize, stockfish: Option<&UciEngine>, seed_base: u64) -> Result_ {
    let next = AtomicUsize::new(0);
    let out = Mutex::new(Result_ {
        score: 0.0,
        wins: 0,
        draws: 0,
        losses: 0,
        times: Vec::new(),
    });
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= m.games {
                        return;
                    }
                    let (me, them) = m.players;
                    let me_white = i.is_multiple_of(2);
                    let (w, b) = if me_white { (me, them) } else { (them, me) };
                    let p = play(w, b, seed_base + i as u64, stockfish);
                    let mine = if me_white {
                        p.white_score
                    } else {
                        1.0 - p.white_score
                    };
                    let my_times = &p.times[usize::from(!me_white)];
                    let mut o = out.lock().unwrap();
                    o.score += mine;
                    match mine {
                        x if x > 0.75 => o.wins += 1,
                        x if x < 0.25 => o.losses += 1,
                        _ => o.draws += 1,
                    }
                    o.times.extend_from_slice(my_times);
                }
            });
        }
    });
    out.into_inner().unwrap()
}

/// The Elo at which `results` (opponent's Elo, score) are most likely, each opponent's Elo
/// taken as exact, with one virtual draw against each so that a clean sweep stays finite.
fn likeliest(results: &[(f64, f64)]) -> f64 {
    let mut all = results.to_vec();
    let mut opponents: Vec<f64> = results.iter().map(|r| r.0).collect();
    opponents.dedup();
    all.extend(opponents.iter().map(|&o| (o, 0.5)));
    // The derivative of the log-likelihood falls as the rating rises: bisect for its zero.
    let slope = |r: f64| -> f64 {
        all.iter()
            .map(|&(o, s)| s - 1.0 / (1.0 + 10f64.powf((o - r) / 400.0)))
            .sum()
    };
    let (mut lo, mut hi) = (0.0, 4000.0);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if slope(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo + hi) / 2.0
}

/// The Elo difference a score of `score` in `games` says, with half a game's correction so that
/// a clean sweep stays finite.
fn difference(score: f64, games: usize) -> f64 {
    let s = (score + 0.5) / (games as f64 + 1.0);
    400.0 * (s / (1.0 - s)).log10()
}

fn main() {
    let mut games = 20;
    let mut sf_games = 10;
    let mut anchors = false;
    let mut against: Vec<(u8, u32)> = Vec::new();
    let (mut from, mut to) = (1u8, 10u8);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = || {
            args.next()
                .and_then(|s| s.parse::<usize>().ok())
                .expect("a number")
        };
        match a.as_str() {
            "--games" => games = num(),
            "--stockfish-games" => sf_games = num(),
            "--from" => from = num() as u8,
            "--to" => to = num() as u8,
            "--anchors" => anchors = true,
            "--against" => {
                // LEVEL:ELO,ELO,… (repeatable): that level plays Stockfish at those strengths.
                let spec = args.next().expect("LEVEL:ELO,ELO");
                let (level, elos) = spec.split_once(':').expect("LEVEL:ELO,ELO");
                let level: u8 = level.parse().expect("a level");
                for elo in elos.split(',') {
                    against.push((level, elo.parse().expect("an Elo")));
                }
            }
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "moot engine ladder: {games} games a pair on {threads} threads (colours alternate; seeded)"
    );
    println!(
        "{:<22} {:>6} {:>14} {:>8} {:>12} {:>12}",
        "match", "games", "W-D-L", "score", "avg move", "max move"
    );
    let mut matches: Vec<Match> = (from..to)
        .map(|k| Match {
            name: format!("level {} vs level {k}", k + 1),
            players: (Player::Level(k + 1), Player::Level(k)),
            games,
        })
        .collect();
    let stockfish = ["/usr/games/stockfish", "/usr/bin/stockfish"]
        .iter()
        .find(|p| std::path::Path::new(p).exists())
        .map(|p| UciEngine { path: p.into() });
    // The anchors: level 10 against Stockfish at several strengths (UCI_Elo, which Stockfish
    // calibrates against CCRL's 40/4 list), the other levels down the ladder from it.
    if against.is_empty() {
        let elos: &[u32] = if anchors {
            &[1600, 1800, 2000, 2200, 2400]
        } else {
            &[1350]
        };
        against = elos.iter().map(|&e| (to, e)).collect();
    }
    if stockfish.is_some() && sf_games > 0 {
        for &(level, elo) in &against {
            matches.push(Match {
                name: format!("level {level} vs Stockfish {elo}"),
                players: (Player::Level(level), Player::Stockfish(elo)),
                games: sf_games,
            });
        }
    }
    let mut ladder: Vec<(u8, f64)> = Vec::new();
    // Each level's games against Stockfish: (Stockfish's Elo, the level's score).
    let mut against_stockfish: Vec<(u8, f64, f64)> = Vec::new();
    for (i, m) in matches.iter().enumerate() {
        let r = run_match(m, threads, stockfish.as_ref(), 1000 * (i as u64 + 1));
        match m.players {
            (Player::Level(k), Player::Level(_)) => ladder.push((k, r.score)),
            (Player::Level(k), Player::Stockfish(elo)) => {
                let each = r.score / m.games as f64;
                against_stockfish.extend((0..m.games).map(|_| (k, f64::from(elo), each)));
            }
            _ => {}
        }
        let avg = r.times.iter().sum::<Duration>().as_secs_f64() / r.times.len().max(1) as f64;
        let max = r.times.iter().max().copied().unwrap_or_default();
        println!(
            "{:<22} {:>6} {:>14} {:>7.0}% {:>10.1}ms {:>10.1}ms",
            m.name,
            m.games,
            format!("{}-{}-{}", r.wins, r.draws, r.losses),
            100.0 * r.score / m.games as f64,
            avg * 1000.0,
            max.as_secs_f64() * 1000.0
        );
    }
    if stockfish.is_none() {
        println!(
            "(Stockfish is not installed: `apt-get install stockfish` adds level 10 against it.)"
        );
    }
    if anchors && !against_stockfish.is_empty() {
        // A level is measured where its games against Stockfish say where it stands: it
        // scored neither nothing nor everything in at least one match. Below Stockfish's
        // weakest setting a level cannot be measured so, and has no fixed rating.
        println!("\nanchored ratings (Stockfish's UCI_Elo scale):");
        let mut kept = Vec::new();
        for k in from..=to {
            let results: Vec<(f64, f64)> = against_stockfish
                .iter()
                .filter(|r| r.0 == k)
                .map(|r| (r.1, r.2))
                .collect();
            let informative = results.iter().any(|r| r.1 > 0.0 && r.1 < 1.0);
            if results.is_empty() {
                println!("  level {k:>2}: not played against Stockfish");
                kept.push("None".to_owned());
            } else if !informative {
                println!("  level {k:>2}: not measured (all won or all lost against Stockfish)");
                kept.push("None".to_owned());
            } else {
                let r = likeliest(&results);
                println!("  level {k:>2}: {r:.0}");
                kept.push(format!("Some({r:.0}.0)"));
            }
        }
        println!("  as moot keeps them: [{}]", kept.join(", "));
        // What the ladder alone says of the levels below the top one (a clean sweep is only a
        // bound, so these are not kept).
        let mut rating = likeliest(
            &against_stockfish
                .iter()
                .filter(|r| r.0 == to)
                .map(|r| (r.1, r.2))
                .collect::<Vec<_>>(),
        );
        for k in (from..to).rev() {
            let Some(&(_, score)) = ladder.iter().find(|(upper, _)| *upper == k + 1) else {
                break;
            };
            rating -= difference(score, games);
            println!("  (ladder alone: level {k} about {rating:.0})");
        }
    }
}
