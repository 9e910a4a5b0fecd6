//! Durable actions per second through the REST API.
//!
//! Starts the release `moot` binary as a separate process, registers 200 agents, and runs 100
//! chess sessions at once: each session's task plays legal moves for both sides in turn
//! (POST /sessions/{id}/actions with expected_tick), starting a new session when a game ends.
//! Every 200 it counts is an action committed to SQLite before the answer was sent. It prints
//! actions/s and p50/p99 latency with `--sync normal` and with `--sync full`.
//!
//!     cargo bench --bench rest_load                 # 10 s per mode
//!     cargo bench --bench rest_load -- --seconds 5 --sessions 100

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/http.rs"]
mod http;
#[path = "support/moves.rs"]
mod moves;
use moves::pick;
#[path = "support/server.rs"]
mod server;
use http::Conn;

/// A connection with the REST API's habits.
struct Client {
    c: Conn,
}

impl Client {
    async fn connect(addr: SocketAddr) -> Client {
        Client {
            c: Conn::open(addr).await,
        }
    }

    async fn post(&mut self, path: &str, token: Option<&str>, body: &str) -> u16 {
        let auth = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> =
            auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        self.c.post(path, &headers, body).await
    }

    async fn post_json(&mut self, path: &str, token: Option<&str>, body: Value) -> (u16, Value) {
        let status = self.post(path, token, &body.to_string()).await;
        (status, self.c.json())
    }
}

/// The parts of an action's answer the player needs.
#[derive(serde::Deserialize)]
struct Acted<'a> {
    #[serde(borrow)]
    status: &'a str,
    #[serde(borrow)]
    state: ActedState<'a>,
}

#[derive(serde::Deserialize)]
struct ActedState<'a> {
    #[serde(borrow)]
    fen: &'a str,
}

struct Agent {
    id: String,
    token: String,
}

async fn agent(c: &mut Client) -> Agent {
    let (_, v) = c.post_json("/agents", None, json!({})).await;
    Agent {
        id: v["agent_id"].as_str().unwrap().into(),
        token: v["token"].as_str().unwrap().into(),
    }
}

/// Plays games between `white` and `black` until `stop`; returns the latencies (µs) of the
/// actions made while `measuring`.
async fn play(
    mut c: Client,
    white: Agent,
    black: Agent,
    salt: u64,
    measuring: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
) -> Vec<u32> {
    let mut lat = Vec::new();
    let mut n = salt;
    while !stop.load(Ordering::Relaxed) {
        let (status, v) = c
            .post_json("/sessions", Some(&white.token), json!({"template": "chess.v1", "participants": {"white": white.id, "black": black.id}}))
            .await;
        assert_eq!(status, 201, "{v}");
        let id = v["session_id"].as_str().unwrap().to_owned();
        // Black agrees to the game (a build from before invitations began it at once).
        if v["status"] == "waiting" {
            let path = format!("/sessions/{id}/accept");
            let (status, v) = c.post_json(&path, Some(&black.token), json!({})).await;
            assert_eq!(status, 200, "{v}");
        }
        let mut fen = moot::games::chess::rules::START_FEN.to_owned();
        for tick in 0u64.. {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            n += 1;
            let mv = pick(&fen, n);
            let token = if tick % 2 == 0 {
                &white.token
            } else {
                &black.token
            };
            let body = format!(r#"{{"action":"{mv}","expected_tick":{tick}}}"#);
            let t = Instant::now();
            let status = c
                .post(&format!("/sessions/{id}/actions"), Some(token), &body)
                .await;
            let us = t.elapsed().as_micros() as u32;
            assert_eq!(status, 200, "{}", String::from_utf8_lossy(&c.c.body));
            if measuring.load(Ordering::Relaxed) {
                lat.push(us);
            }
            let acted: Acted = serde_json::from_slice(&c.c.body).expect("an action's answer");
            if acted.status == "completed" {
                break;
            }
            fen = acted.state.fen.to_owned();
        }
    }
    lat
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i]) / 1000.0
}

async fn run(sync: &str, sessions: usize, seconds: u64) {
    let server = server::start_in_temp("--http", &["--sync", sync]);
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    for i in 0..sessions {
        let mut c = Client::connect(server.addr).await;
        let (white, black) = (agent(&mut c).await, agent(&mut c).await);
        tasks.push(tokio::spawn(play(
            c,
            white,
            black,
            i as u64 * 1000,
            measuring.clone(),
            stop.clone(),
        )));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    measuring.store(true, Ordering::Relaxed);
    let t0 = Instant::now();
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    measuring.store(false, Ordering::Relaxed);
    let elapsed = t0.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let mut lat: Vec<u32> = Vec::new();
    for t in tasks {
        lat.extend(t.await.unwrap());
    }
    lat.sort_unstable();
    let (rate, p99) = (lat.len() as f64 / elapsed, percentile(&lat, 0.99));
    println!(
        "{:<8} {:>9} {:>14.0} {:>9.3} {:>9.3}",
        sync,
        sessions,
        rate,
        percentile(&lat, 0.5),
        p99
    );
    let engine = server::engine();
    server::figure(&format!("{engine}.sync_{sync}.acked_per_s"), rate, "/s");
    server::figure(&format!("{engine}.sync_{sync}.p99_ms"), p99, "ms");
}

fn main() {
    let mut seconds = 10;
    let mut sessions = 100;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = || {
            args.next()
                .and_then(|s| s.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("{a} takes a number"))
        };
        match a.as_str() {
            "--seconds" => seconds = num() as u64,
            "--sessions" => sessions = num(),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    println!(
        "moot REST load: {} s per mode, chess.v1, legal moves, {}, server {}",
        seconds,
        server::engine(),
        server::binary()
    );
    println!(
        "{:<8} {:>9} {:>14} {:>9} {:>9}",
        "sync", "sessions", "acked/s", "p50 ms", "p99 ms"
    );
    // PostgreSQL's durability is its server's (`synchronous_commit`, on unless the operator
    // says otherwise): --sync is SQLite's.
    let modes: &[&str] = if server::engine() == "postgres" {
        &["full"]
    } else {
        &["normal", "full"]
    };
    for sync in modes {
        rt.block_on(run(sync, sessions, seconds));
    }
}
