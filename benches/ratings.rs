//! Ratings at scale: `moot ratings rebuild` over 100,000 stored games, and the leaderboard's
//! time to first byte with 10,000 rated identities.
//!
//! Writes a database of `--agents` agents (10,000) and `--games` rated tic-tac-toe games
//! (100,000) between random pairs of them (a third won by x, a third by o, a third drawn),
//! each a real session with its log, its state as the template gives it, and its participants,
//! as moot would have stored them. Then it
//!
//! runs `moot --db F ratings rebuild` twice (the first computes and stores every standing, the
//! second finds them identical) and prints decided games per second for each; then starts moot
//! on that database (how long its start-up takes, replaying every session, is printed too) and
//! asks `/leaderboard/tictactoe` (the page), `/leaderboards/tictactoe` (REST) and a player's
//! page `--requests` times each, one at a time, printing the time to first byte (p50, p99).
//!
//!     cargo bench --bench ratings
//!     cargo bench --bench ratings -- --games 20000 --agents 2000 --requests 50

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use rand::{RngExt, SeedableRng};
use serde_json::Value;

#[path = "support/args.rs"]
mod args;
#[path = "support/server.rs"]
mod server;
use args::arg;

/// How each game goes: (role, cell) in turn.
const GAMES: [&[(&str, &str)]; 3] = [
    // x takes the top row.
    &[("x", "0"), ("o", "3"), ("x", "1"), ("o", "4"), ("x", "2")],
    // o takes the middle row.
    &[
        ("x", "0"),
        ("o", "3"),
        ("x", "1"),
        ("o", "4"),
        ("x", "8"),
        ("o", "5"),
    ],
    // A full board, nobody's line.
    &[
        ("x", "0"),
        ("o", "1"),
        ("x", "2"),
        ("o", "4"),
        ("x", "3"),
        ("o", "5"),
        ("x", "7"),
        ("o", "6"),
        ("x", "8"),
    ],
];

/// The stored state each way of playing ends in, as the template gives it.
fn final_states() -> Vec<String> {
    let t = moot::games::templates()
        .into_iter()
        .find(|t| t.id == "tictactoe.v1")
        .expect("tic-tac-toe is a template");
    GAMES
        .iter()
        .map(|moves| {
            let mut g = (t.new)(0, &Value::Object(Default::default())).unwrap();
            for (role, cell) in moves.iter() {
                g = g.apply_logged(role, cell, 0).unwrap();
            }
            assert!(g.is_terminal());
            g.state().to_string()
        })
        .collect()
}

fn write_database(path: &Path, agents: usize, games: usize) {
    // Opening it through moot makes the schema.
    drop(moot::store::Store::open(&path.into(), moot::store::StoreOptions::default()).unwrap());
    let mut c = rusqlite::Connection::open(path).unwrap();
    c.pragma_update(None, "synchronous", "OFF").unwrap();
    let tx = c.transaction().unwrap();
    {
        let mut agent = tx
            .prepare("INSERT INTO agents (agent_id, name, kind) VALUES (?1, ?2, 'agent')")
            .unwrap();
        for i in 0..agents {
            agent
                .execute(rusqlite::params![format!("a{i}"), format!("Agent{i}")])
                .unwrap();
        }
        let states = final_states();
        let mut session = tx
            .prepare(
                "INSERT INTO sessions (session_id, template, state, status, tick, seed, options, rated)
                 VALUES (?1, 'tictactoe.v1', ?2, 'completed', ?3, 0, '{}', 1)",
            )
            .unwrap();
        let mut part = tx
            .prepare("INSERT INTO participants (session_id, agent_id, role) VALUES (?1, ?2, ?3)")
            .unwrap();
        let mut action = tx
            .prepare(
                "INSERT INTO actions (action_id, session_id, agent_id, role, action, tick, at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0)",
            )
            .unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        for n in 1..=games {
            let x = rng.random_range(0..agents);
            let o = (x + rng.random_range(1..agents)) % agents;
            let way = n % GAMES.len();
            let moves = GAMES[way];
            let id = n.to_string();
            session
                .execute(rusqlite::params![id, states[way], moves.len() as i64])
                .unwrap();
            let (xa, oa) = (format!("a{x}"), format!("a{o}"));
            part.execute(rusqlite::params![id, xa, "x"]).unwrap();
            part.execute(rusqlite::params![id, oa, "o"]).unwrap();
            for (tick, (role, cell)) in moves.iter().enumerate() {
                let who = if *role == "x" { &xa } else { &oa };
                action
                    .execute(rusqlite::params![
                        format!("{id}.{tick}"),
                        id,
                        who,
                        role,
                        cell,
                        tick as i64
                    ])
                    .unwrap();
            }
        }
    }
    tx.commit().unwrap();
}

fn rebuild(db: &Path) -> (Duration, String) {
    let started = Instant::now();
    let out = Command::new(server::binary())
        .args(["--db", db.to_str().unwrap(), "ratings", "rebuild"])
        .output()
        .expect("moot runs");
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (took, String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

/// The time from sending a GET for `path` to the response's first byte; the whole response is
/// read (and its status checked) before the next.
fn first_byte(addr: SocketAddr, path: &str) -> Duration {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    let request = format!("GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n");
    let started = Instant::now();
    s.write_all(request.as_bytes()).unwrap();
    let mut first = [0u8; 1];
    s.read_exact(&mut first).unwrap();
    let took = started.elapsed();
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).unwrap();
    let head = String::from_utf8_lossy(&rest[..rest.len().min(20)]).into_owned();
    assert!(head.starts_with("TTP/1.1 200"), "{path}: H{head}");
    took
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let agents = arg("--agents", 10_000);
    let games = arg("--games", 100_000);
    let requests = arg("--requests", 100);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let started = Instant::now();
    write_database(&db, agents, games);
    println!(
        "wrote {games} rated games between {agents} agents in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    println!("\nmoot ratings rebuild ({games} games)");
    for run in [
        "first (computes and stores)",
        "second (finds them identical)",
    ] {
        let (took, said) = rebuild(&db);
        let rate = games as f64 / took.as_secs_f64();
        println!(
            "  {run:<30} {:>6.2} s  {:>9.0} games/s   {said}",
            took.as_secs_f64(),
            rate
        );
        server::figure("rebuild_games_per_s", rate, "games/s");
    }

    let world = Path::new(env!("CARGO_MANIFEST_DIR")).join("world");
    let started = Instant::now();
    let s = server::start(
        &world,
        &dir.path().join("bench.db").display().to_string(),
        "--http",
        &[],
    );
    println!(
        "\nmoot started on it (replaying {games} sessions) in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    println!(
        "\ntime to first byte, {requests} requests each, one at a time ({agents} rated identities)"
    );
    for path in [
        "/leaderboard/tictactoe",
        "/leaderboards/tictactoe",
        "/players/Agent1",
    ] {
        // Warm: the first request pays for nothing that later ones do not.
        first_byte(s.addr, path);
        let mut times: Vec<Duration> = (0..requests).map(|_| first_byte(s.addr, path)).collect();
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        println!(
            "  {path:<26} p50 {:>7.2} ms   p99 {:>7.2} ms",
            ms(quantile(&times, 0.5)),
            ms(quantile(&times, 0.99))
        );
        server::figure(&format!("ttfb_p50{path}"), ms(quantile(&times, 0.5)), "ms");
    }
}
