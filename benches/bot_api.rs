//! The lichess Bot API's stream latency: from a bot's move (`POST /api/bot/game/{id}/move`)
//! to its opponent's `gameState` line on `/api/bot/game/stream/{id}`, as a bot on lichess's API
//! waits for it; and from a challenge (`POST /api/challenge/{name}`) to the `challenge` line on
//! the challenged bot's `/api/stream/event`. Starts the release `moot` binary, makes two agents,
//! and has them play games of knight shuffles (drawn by repetition at the eighth ply), one move
//! at a time, each timed until the other's stream shows it. Prints p50, p99 and the worst.
//!
//!     cargo bench --bench bot_api                 # 40 games, 320 moves
//!     cargo bench --bench bot_api -- --games 100

use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/args.rs"]
mod args;
use args::arg;
#[path = "support/server.rs"]
mod server;

/// Knights out and back, twice: the start comes a third time at the eighth ply, a draw.
const SHUFFLE: [&str; 8] = [
    "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
];

/// One game's NDJSON stream, read line by line.
struct Stream {
    resp: reqwest::Response,
    buf: Vec<u8>,
}

impl Stream {
    async fn open(http: &reqwest::Client, base: &str, token: &str, id: &str) -> Stream {
        let resp = http
            .get(format!("{base}/api/bot/game/stream/{id}"))
            .bearer_auth(token)
            .send()
            .await
            .expect("stream");
        assert!(resp.status().is_success(), "{}", resp.status());
        Stream {
            resp,
            buf: Vec::new(),
        }
    }

    /// The next line that is JSON (empty keep-alive lines skipped).
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(at) = self.buf.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.buf.drain(..=at).collect();
                if line.len() > 1 {
                    return serde_json::from_slice(&line).ok();
                }
                continue;
            }
            let chunk = self.resp.chunk().await.ok()??;
            self.buf.extend_from_slice(&chunk);
        }
    }
}

async fn agent(http: &reqwest::Client, base: &str, name: &str) -> String {
    let v: Value = http
        .post(format!("{base}/agents"))
        .json(&json!({ "name": name }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["token"].as_str().expect("a token").to_owned()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() {
    let games = arg("--games", 40);
    let s = server::start_in_temp("--http", &[]);
    let base = format!("http://{}", s.addr);
    let http = reqwest::Client::new();
    let white = agent(&http, &base, "Wren").await;
    let black = agent(&http, &base, "Bram").await;
    let mut took = Vec::new();
    let mut challenged = Vec::new();
    let mut events = {
        let resp = http
            .get(format!("{base}/api/stream/event"))
            .bearer_auth(&black)
            .send()
            .await
            .expect("event stream");
        assert!(resp.status().is_success(), "{}", resp.status());
        Stream {
            resp,
            buf: Vec::new(),
        }
    };
    for _ in 0..games {
        let asked = Instant::now();
        let made: Value = http
            .post(format!("{base}/api/challenge/Bram"))
            .bearer_auth(&white)
            .json(&json!({ "clock.limit": 600, "clock.increment": 0, "color": "white" }))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let id = made["id"].as_str().expect("a challenge").to_owned();
        loop {
            let e = events.next().await.expect("an event");
            if e["type"] == "challenge" && e["challenge"]["id"] == id.as_str() {
                break;
            }
        }
        challenged.push(asked.elapsed());
        let ok = http
            .post(format!("{base}/api/challenge/{id}/accept"))
            .bearer_auth(&black)
            .send()
            .await
            .unwrap();
        assert!(ok.status().is_success());
        let mut streams = [
            Stream::open(&http, &base, &white, &id).await,
            Stream::open(&http, &base, &black, &id).await,
        ];
        for st in &mut streams {
            let full = st.next().await.expect("gameFull");
            assert_eq!(full["type"], "gameFull");
        }
        for (ply, mv) in SHUFFLE.iter().enumerate() {
            let (me, them) = (ply % 2, 1 - ply % 2);
            let token = if me == 0 { &white } else { &black };
            let t = Instant::now();
            let r = http
                .post(format!("{base}/api/bot/game/{id}/move/{mv}"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap();
            assert!(r.status().is_success(), "{mv}: {}", r.status());
            loop {
                let state = streams[them].next().await.expect("a gameState");
                let moves = state["moves"].as_str().unwrap_or_default();
                if moves.split_whitespace().count() > ply {
                    break;
                }
            }
            took.push(t.elapsed());
        }
    }
    took.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "Bot API, move to the opponent's gameState ({} moves, {games} games): p50 {:.1} ms, p99 {:.1} ms, worst {:.1} ms",
        took.len(),
        ms(percentile(&took, 0.5)),
        ms(percentile(&took, 0.99)),
        ms(*took.last().unwrap())
    );
    challenged.sort();
    println!(
        "Bot API, challenge to the challenged bot's event ({games} challenges): p50 {:.1} ms, p99 {:.1} ms, worst {:.1} ms",
        ms(percentile(&challenged, 0.5)),
        ms(percentile(&challenged, 0.99)),
        ms(*challenged.last().unwrap())
    );
    server::figure("bot_api_p50_ms", ms(percentile(&took, 0.5)), "ms");
    server::figure("bot_api_p99_ms", ms(percentile(&took, 0.99)), "ms");
}
