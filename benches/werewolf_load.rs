//! Werewolf at scale: many matches at once, each of one agent over REST and seven house bots,
//! at `--time-scale 100` (a 45 s night passes in 0.45 s).
//!
//! The agent of each match polls its state every 100 ms and does what its brief asks (ready,
//! its night action, an opening, a vote); each vote's acknowledgement (committed before the
//! answer) is timed. It prints how long the matches took, matches per minute, the server's CPU
//! time per match (all its threads), and the vote acknowledgement's p50/p99.
//!
//! `--poll-ms N` polls every N ms instead (a short poll makes the run bound by the town's CPU,
//! not by the agents' pace); `--hosts N` plays against a world and N hosts across a
//! `nats-server` of its own, the agents spread over the hosts, and the CPU is then every
//! process's; `--games N` adds N game worlds (`moot games`), on which the matches are placed
//! (with one host if `--hosts` gives none).
//!
//!     cargo bench --bench werewolf_load                  # 100 matches at once
//!     cargo bench --bench werewolf_load -- --matches 20
//!     cargo bench --bench werewolf_load -- --matches 400 --poll-ms 20 --hosts 1
//!     cargo bench --bench werewolf_load -- --matches 400 --poll-ms 20 --hosts 1 --games 2

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/http.rs"]
mod http;
#[path = "support/server.rs"]
mod server;
use http::Conn;

const BOTS: [&str; 7] = [
    "bot-1", "bot-2", "bot-3", "bot-4", "bot-5", "bot-6", "bot-7",
];

/// One match, played by its agent to the end; the vote acknowledgements (µs) and whether the
/// match ended.
async fn play(addr: SocketAddr, poll: Duration) -> (Vec<u32>, bool, Duration) {
    let mut c = Conn::open(addr).await;
    c.post("/agents", &[], "{}").await;
    let me = c.json();
    let (id, token) = (
        me["agent_id"].as_str().unwrap().to_owned(),
        me["token"].as_str().unwrap().to_owned(),
    );
    let auth = format!("Bearer {token}");
    let h = [("Authorization", auth.as_str())];
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), json!(id));
    for (i, b) in BOTS.iter().enumerate() {
        participants.insert(format!("p{}", i + 2), json!(b));
    }
    let body = json!({"template": "werewolf.v1", "participants": participants,
                      "options": {"bots": [2, 3, 4, 5, 6, 7, 8]}});
    let status = c.post("/sessions", &h, &body.to_string()).await;
    assert_eq!(status, 201, "{}", String::from_utf8_lossy(&c.body));
    let sid = c.json()["session_id"].as_str().unwrap().to_owned();
    let (state_path, act_path) = (
        format!("/sessions/{sid}/state"),
        format!("/sessions/{sid}/actions"),
    );
    let t0 = Instant::now();
    let mut votes = Vec::new();
    let mut ready = false;
    while t0.elapsed() < Duration::from_secs(600) {
        c.get(&state_path, &h).await;
        let v: Value = c.json();
        if v["status"] == "completed" {
            return (votes, true, t0.elapsed());
        }
        let st = &v["state"];
        let req = &st["you"]["requiredAction"];
        let first = req["allowedTargets"][0]
            .as_str()
            .unwrap_or("none")
            .to_owned();
        let action = match (
            req["type"].as_str().unwrap_or(""),
            req["alreadySubmitted"] == true,
        ) {
            _ if st["phase"] == "LOBBY" && !ready => {
                ready = true;
                Some("ready".to_owned())
            }
            (_, true) => None,
            ("WOLF_KILL", _) => Some(format!("kill {first}")),
            ("SEER_INSPECT", _) => Some(format!("inspect {first}")),
            ("DOCTOR_PROTECT", _) => Some(format!("protect {first}")),
            ("SPEAK_OPENING", _) => Some("say I have nothing to hide.".to_owned()),
            ("VOTE", _) => Some(format!("vote {first}")),
            _ => None,
        };
        if let Some(a) = action {
            let t = Instant::now();
            let status = c
                .post(&act_path, &h, &json!({"action": a}).to_string())
                .await;
            if status == 200 && a.starts_with("vote") {
                votes.push(t.elapsed().as_micros() as u32);
            }
        }
        tokio::time::sleep(poll).await;
    }
    (votes, false, t0.elapsed())
}

fn pct(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    f64::from(sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]) / 1000.0
}

fn main() {
    let (mut matches, mut poll_ms, mut hosts, mut games) = (100, 100, 0, 0);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |what: &str| -> usize {
            args.next()
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("{what} N"))
        };
        match a.as_str() {
            "--matches" => matches = num("--matches"),
            "--poll-ms" => poll_ms = num("--poll-ms") as u64,
            "--hosts" => hosts = num("--hosts"),
            "--games" => games = num("--games"),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let scale = ["--time-scale", "100"];
    if games > 0 {
        hosts = hosts.max(1);
    }
    let (one, mut split) = match hosts {
        0 => (Some(server::start_in_temp("--http", &scale)), None),
        n => (None, Some(server::start_split_in_temp(n, &[], &scale))),
    };
    if let Some(s) = &mut split {
        s.add_games(games, &scale);
    }
    let (addrs, pids) = match (&one, &split) {
        (Some(s), _) => (vec![s.addr], vec![s.child.id()]),
        (_, Some(s)) => (s.http.clone(), s.pids()),
        _ => unreachable!(),
    };
    let cpu_ns = || pids.iter().map(|&p| server::cpu_ns(p)).sum::<u64>();
    let rt = tokio::runtime::Runtime::new().unwrap();
    println!(
        "moot Werewolf load: {matches} matches at once (1 REST agent + 7 house bots each), --time-scale 100, polls every {poll_ms} ms, server {}",
        server::binary()
    );
    if hosts > 0 {
        println!(
            "  (a world, {hosts} host(s) and {games} game world(s) across nats-server; cpu: all of them)"
        );
    }
    let poll = Duration::from_millis(poll_ms);
    let (t0, cpu0) = (Instant::now(), cpu_ns());
    let results = rt.block_on(async {
        let tasks: Vec<_> = (0..matches)
            .map(|i| tokio::spawn(play(addrs[i % addrs.len()], poll)))
            .collect();
        let mut out = Vec::new();
        for t in tasks {
            out.push(t.await.unwrap());
        }
        out
    });
    let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_ns() - cpu0);
    let ended = results.iter().filter(|r| r.1).count();
    let mut votes: Vec<u32> = results.iter().flat_map(|r| r.0.clone()).collect();
    votes.sort_unstable();
    let mut lengths: Vec<f64> = results.iter().map(|r| r.2.as_secs_f64()).collect();
    lengths.sort_by(f64::total_cmp);
    println!(
        "{ended} of {matches} matches ended in {wall:.1} s (each took {:.1} s to {:.1} s, median {:.1} s)",
        lengths[0],
        lengths[lengths.len() - 1],
        lengths[lengths.len() / 2]
    );
    println!("matches per minute: {:.0}", ended as f64 / wall * 60.0);
    println!(
        "server CPU per match: {:.1} ms (all threads, every process)",
        cpu as f64 / 1e6 / matches as f64
    );
    println!(
        "vote acknowledgement ({} votes): p50 {:.2} ms, p99 {:.2} ms",
        votes.len(),
        pct(&votes, 0.5),
        pct(&votes, 0.99)
    );
    server::figure("matches_per_minute", ended as f64 / wall * 60.0, "/min");
    server::figure("cpu_ms_per_match", cpu as f64 / 1e6 / matches as f64, "ms");
    server::figure("vote_ack.p99_ms", pct(&votes, 0.99), "ms");
}
