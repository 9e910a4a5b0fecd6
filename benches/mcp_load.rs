//! MCP over Streamable HTTP under load, against the release `moot` binary (a separate process).
//!
//! 1. `look`: 100 agents call a read-only tool in a closed loop.
//! 2. `finishTurn`: 100 running games (agent vs agent) at once, each with a move in flight.
//! 3. waiters: 10,000 agents call `waitForNextTurn` at once in 10,000 games; then their
//!    opponents move, and the time from each move's answer to the waiter's wake-up is measured.
//!
//! Requests are stateless MCP 2026-07-28 calls on keep-alive HTTP/1.1 connections, through a
//! lean client so the load generator leaves the two cores to the server.
//!
//! "cpu µs" is the server's CPU time (all its threads) per call in the measured window.
//!
//! `--hosts N` runs `look` and `finishTurn` against a world and N hosts across a `nats-server`
//! of its own (the agents spread over the hosts; "cpu µs" then counts every process).
//!
//! `look` is called at the plain `/mcp` (the town's set), the chess tools at
//! `/mcp/chess`; `--one-address` calls every tool at `/mcp`, for a build from before the sets.
//!
//!     cargo bench --bench mcp_load
//!     cargo bench --bench mcp_load -- --seconds 5 --waiters 2000
//!     cargo bench --bench mcp_load -- --only finish_turn

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

/// The parts of a tools/call answer the load generator reads.
#[derive(serde::Deserialize)]
struct Answer<'a> {
    #[serde(borrow)]
    result: Option<AnswerResult<'a>>,
}

#[derive(serde::Deserialize)]
struct AnswerResult<'a> {
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    #[serde(rename = "structuredContent", borrow)]
    structured: Option<&'a serde_json::value::RawValue>,
}

/// Every tool at `/mcp` (`--one-address`), as builds before the sets of tools served them.
static ONE_ADDRESS: AtomicBool = AtomicBool::new(false);

/// Where tool `name` is served.
fn path_of(name: &str) -> &'static str {
    if ONE_ADDRESS.load(Ordering::Relaxed) || name == "look" {
        "/mcp"
    } else {
        "/mcp/chess"
    }
}

/// A connection that speaks MCP's tools/call.
struct Mcp {
    c: Conn,
    id: u64,
}

impl Mcp {
    async fn open(addr: SocketAddr) -> Mcp {
        Mcp {
            c: Conn::open(addr).await,
            id: 0,
        }
    }

    /// A stateless MCP 2026-07-28 tools/call; the structured result, or panics on an error.
    async fn tool(&mut self, token: &str, name: &str, args: Value) -> Value {
        self.id += 1;
        let body = json!({
            "jsonrpc": "2.0", "id": self.id, "method": "tools/call",
            "params": { "name": name, "arguments": args, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": { "name": "mcp_load", "version": "1" } } }
        })
        .to_string();
        let auth = format!("Bearer {token}");
        let headers = [
            ("Authorization", auth.as_str()),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", name),
        ];
        let status = self.c.post(path_of(name), &headers, &body).await;
        // Only the envelope is read; the people's text (a markdown board) is skipped over, and
        // the small structured result parsed on its own.
        let answer: Answer = serde_json::from_slice(&self.c.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.c.body)));
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&self.c.body));
        let result = answer
            .result
            .unwrap_or_else(|| panic!("{name} failed: {}", String::from_utf8_lossy(&self.c.body)));
        assert!(
            result.is_error != Some(true),
            "{name} failed: {}",
            String::from_utf8_lossy(&self.c.body)
        );
        serde_json::from_str(result.structured.map_or("null", |r| r.get())).unwrap()
    }

    async fn agent(&mut self) -> String {
        self.c.post("/agents", &[], "{}").await;
        self.c.json()["token"].as_str().unwrap().to_owned()
    }
}

fn pct(sorted: &[u32], p: f64) -> f64 {
    f64::from(sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]) / 1000.0
}

/// Prints a closed loop's row, and its figures for `benches/compare` under `key`.
fn report(name: &str, key: &str, mut lat: Vec<u32>, seconds: f64, cpu_each_ns: &[u64]) {
    lat.sort_unstable();
    let cpu_ns: u64 = cpu_each_ns.iter().sum();
    let (rate, cpu_us) = (
        lat.len() as f64 / seconds,
        cpu_ns as f64 / 1000.0 / lat.len() as f64,
    );
    let (p50, p99) = (pct(&lat, 0.5), pct(&lat, 0.99));
    println!("{name:<34} {rate:>10.0} {p50:>9.3} {p99:>9.3} {cpu_us:>9.0}");
    server::figure(&format!("{key}.calls_per_s"), rate, "/s");
    server::figure(&format!("{key}.p99_ms"), p99, "ms");
    server::figure(&format!("{key}.cpu_us_per_call"), cpu_us, "µs");
    // Split: where the CPU went, the broker's, the world's and the hosts'.
    if let [broker, world, hosts @ ..] = cpu_each_ns {
        let us = |ns: u64| ns as f64 / 1000.0 / lat.len().max(1) as f64;
        println!(
            "{:<34} CPU a call: broker {:.1} µs, world {:.1} µs, hosts {:.1} µs",
            "",
            us(*broker),
            us(*world),
            us(hosts.iter().sum())
        );
    }
}

/// A game between two agents on one connection: (game id, white token, black token).
async fn new_game(c: &mut Mcp, white: &str, black: &str) -> String {
    let made = c
        .tool(
            white,
            "createGame",
            json!({"type": "agent", "color": "white"}),
        )
        .await;
    let id = made["game_id"].as_str().unwrap().to_owned();
    c.tool(black, "joinGame", json!({"game_id": id})).await;
    id
}

/// Runs the loop; returns the latencies measured, the seconds measured, and the server's CPU
/// time in that window (ns).
async fn closed_loop(
    addrs: &[SocketAddr],
    pids: &[u32],
    agents: usize,
    seconds: u64,
    finish_turn: bool,
) -> (Vec<u32>, f64, Vec<u64>) {
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    // `agents` callers at once: with finishTurn each caller plays both sides of its own game,
    // since in one game only one side can move at a time.
    for i in 0..agents {
        let (measuring, stop) = (measuring.clone(), stop.clone());
        let addr = addrs[i % addrs.len()];
        tasks.push(tokio::spawn(async move {
            let mut c = Mcp::open(addr).await;
            let a = c.agent().await;
            let b = if finish_turn {
                c.agent().await
            } else {
                String::new()
            };
            let mut lat = Vec::new();
            let mut n = i as u64 * 1000;
            while !stop.load(Ordering::Relaxed) {
                if !finish_turn {
                    let t = Instant::now();
                    c.tool(&a, "look", json!({})).await;
                    if measuring.load(Ordering::Relaxed) {
                        lat.push(t.elapsed().as_micros() as u32);
                    }
                    continue;
                }
                let id = new_game(&mut c, &a, &b).await;
                let mut fen = moot::games::chess::rules::START_FEN.to_owned();
                for ply in 0u64.. {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    n += 1;
                    let token = if ply % 2 == 0 { &a } else { &b };
                    let t = Instant::now();
                    let r = c
                        .tool(
                            token,
                            "finishTurn",
                            json!({"game_id": id, "move": pick(&fen, n)}),
                        )
                        .await;
                    if measuring.load(Ordering::Relaxed) {
                        lat.push(t.elapsed().as_micros() as u32);
                    }
                    if r["status"] == "game_over" {
                        break;
                    }
                    fen = r["fen"].as_str().unwrap().to_owned();
                }
            }
            lat
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    measuring.store(true, Ordering::Relaxed);
    let cpu_ns = || {
        pids.iter()
            .map(|&p| server::cpu_ns(p))
            .collect::<Vec<u64>>()
    };
    let (t0, cpu0) = (Instant::now(), cpu_ns());
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    measuring.store(false, Ordering::Relaxed);
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu: Vec<u64> = cpu_ns().iter().zip(&cpu0).map(|(a, b)| a - b).collect();
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    (all, elapsed, cpu)
}

async fn waiters(addr: SocketAddr, n: usize) {
    // Set up n games on a few connections.
    let t_setup = Instant::now();
    let mut setup = Vec::new();
    let workers = 8;
    for w in 0..workers {
        let count = n / workers + usize::from(w < n % workers);
        setup.push(tokio::spawn(async move {
            let mut c = Mcp::open(addr).await;
            let mut games = Vec::new();
            for _ in 0..count {
                let (white, black) = (c.agent().await, c.agent().await);
                let id = new_game(&mut c, &white, &black).await;
                games.push((id, white, black));
            }
            games
        }));
    }
    let mut games = Vec::new();
    for s in setup {
        games.extend(s.await.unwrap());
    }
    println!(
        "  ({} games set up in {:.1} s)",
        games.len(),
        t_setup.elapsed().as_secs_f64()
    );
    // Every black player waits, each on its own connection.
    let mut woke = Vec::new();
    for (id, _, black) in &games {
        let (id, black) = (id.clone(), black.clone());
        let mut c = Mcp::open(addr).await;
        woke.push(tokio::spawn(async move {
            let r = c
                .tool(&black, "waitForNextTurn", json!({"game_id": id}))
                .await;
            (
                Instant::now(),
                r["status"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| r.to_string().chars().take(160).collect()),
            )
        }));
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    // The white players move, spread over a few connections; record when each move was answered.
    let t_moves = Instant::now();
    let mut movers = Vec::new();
    let chunks: Vec<Vec<(usize, String, String)>> = {
        let mut v: Vec<Vec<_>> = (0..workers).map(|_| Vec::new()).collect();
        for (i, (id, white, _)) in games.iter().enumerate() {
            v[i % workers].push((i, id.clone(), white.clone()));
        }
        v
    };
    for chunk in chunks {
        movers.push(tokio::spawn(async move {
            let mut c = Mcp::open(addr).await;
            let mut done = Vec::new();
            for (i, id, white) in chunk {
                let sent = Instant::now();
                c.tool(&white, "finishTurn", json!({"game_id": id, "move": "e2e4"}))
                    .await;
                done.push((i, sent, Instant::now()));
            }
            done
        }));
    }
    let mut moved = vec![(Instant::now(), Instant::now()); games.len()];
    for m in movers {
        for (i, sent, answered) in m.await.unwrap() {
            moved[i] = (sent, answered);
        }
    }
    let moves_secs = t_moves.elapsed().as_secs_f64();
    // A waiter wakes when the world has applied the move, which can be before the mover's
    // answer (sent once the move is committed) arrives; so both bounds are printed: from the
    // move being sent (including the mover's own request) and from its answer.
    let (mut from_sent, mut from_answer) = (Vec::new(), Vec::new());
    let mut your_turn = 0;
    // Whatever else the waiters were answered, counted by status, so a shortfall says why.
    let mut others: std::collections::BTreeMap<String, usize> = Default::default();
    for (i, w) in woke.into_iter().enumerate() {
        let (at, status) = w.await.unwrap();
        if status == "your_turn" {
            your_turn += 1;
        } else {
            *others.entry(status).or_default() += 1;
        }
        from_sent.push(at.saturating_duration_since(moved[i].0).as_micros() as u32);
        from_answer.push(at.saturating_duration_since(moved[i].1).as_micros() as u32);
    }
    from_sent.sort_unstable();
    from_answer.sort_unstable();
    let n = games.len();
    println!(
        "{:<34} {:>10} {:>9.3} {:>9.3}",
        format!("wake-up from the move sent ({n} waiting)"),
        "",
        pct(&from_sent, 0.5),
        pct(&from_sent, 0.99)
    );
    println!(
        "{:<34} {:>10} {:>9.3} {:>9.3}",
        "wake-up from the move's answer",
        "",
        pct(&from_answer, 0.5),
        pct(&from_answer, 0.99)
    );
    server::figure("wake_up.p50_ms", pct(&from_sent, 0.5), "ms");
    server::figure("wake_up.p99_ms", pct(&from_sent, 0.99), "ms");
    println!(
        "  ({your_turn} of {n} woke to their turn; the moves came at {:.0}/s)",
        n as f64 / moves_secs
    );
    for (status, count) in others {
        println!("  ({count} answered {status:?} instead)");
    }
}

fn main() {
    let mut seconds = 10;
    let mut n_waiters = 10_000;
    // The scenarios to run (`--only look,finish_turn,waiters`); all by default.
    let mut only: Option<String> = None;
    // A world and this many hosts across a NATS broker instead of one process.
    let mut hosts = 0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = || {
            args.next()
                .and_then(|s| s.parse::<usize>().ok())
                .unwrap_or_else(|| panic!("{a} takes a number"))
        };
        match a.as_str() {
            "--seconds" => seconds = num() as u64,
            "--waiters" => n_waiters = num(),
            "--one-address" => ONE_ADDRESS.store(true, Ordering::Relaxed),
            "--only" => only = args.next(),
            "--hosts" => hosts = num(),
            "--bench" => {}
            other => panic!("unknown argument {other}"),
        }
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    println!(
        "moot MCP load (Streamable HTTP, stateless 2026-07-28 calls): {seconds} s per closed loop"
    );
    println!(
        "{:<34} {:>10} {:>9} {:>9} {:>9}",
        "scenario", "calls/s", "p50 ms", "p99 ms", "cpu µs"
    );
    let runs = |name: &str| {
        only.as_ref()
            .is_none_or(|o| o.split(',').any(|x| x == name))
    };
    if hosts > 0 {
        println!("  (a world and {hosts} host(s) across nats-server; cpu: all of them)");
    }
    if runs("look") || runs("finish_turn") {
        let (one, split) = if hosts == 0 {
            (Some(server::start_in_temp("--http", &[])), None)
        } else {
            (None, Some(server::start_split_in_temp(hosts, &[], &[])))
        };
        let (addrs, pids) = match (&one, &split) {
            (Some(s), _) => (vec![s.addr], vec![s.child.id()]),
            (_, Some(s)) => (s.http.clone(), s.pids()),
            _ => unreachable!(),
        };
        if runs("look") {
            let (lat, s, cpu) = rt.block_on(closed_loop(&addrs, &pids, 100, seconds, false));
            report("look, 100 agents", "look", lat, s, &cpu);
        }
        if runs("finish_turn") {
            let (lat, s, cpu) = rt.block_on(closed_loop(&addrs, &pids, 100, seconds, true));
            report("finishTurn, 100 games at once", "finish_turn", lat, s, &cpu);
        }
    }
    if runs("waiters") && hosts == 0 && n_waiters > 0 {
        let server = server::start_in_temp("--http", &[]);
        rt.block_on(waiters(server.addr, n_waiters));
    }
}
