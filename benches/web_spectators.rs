//! A thousand spectators on one Werewolf match page's live stream (a load generator speaking
//! HTTP/1.1 and server-sent events, not browsers).
//!
//! The spectators connect to `/werewolf/<id>/live` while the match waits in its lobby; then
//! the match (one agent who readies and then never acts, seven house bots) runs at
//! `--time-scale 20` to its end. For every event that happens after they connected, each
//! spectator notes when it arrived; the delay is that moment minus the event's own time
//! (`at`, the wall-clock time the server gives it). Printed: the p50/p99/max delay over every
//! (event, spectator) pair, and the server's resident memory before and after the spectators
//! connected, per spectator.
//!
//!     cargo bench --bench web_spectators                      # 1,000 spectators
//!     cargo bench --bench web_spectators -- --spectators 200

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

#[path = "support/http.rs"]
mod http;
#[path = "support/server.rs"]
mod server;
use http::Conn;

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Milliseconds since the epoch of `2026-11-23T21:30:00.123Z`.
fn iso_ms(s: &str) -> Option<i64> {
    let n = |a: usize, b: usize| s.get(a..b)?.parse::<i64>().ok();
    let (y, m, d) = (n(0, 4)?, n(5, 7)?, n(8, 10)?);
    let (hh, mm, ss) = (n(11, 13)?, n(14, 16)?, n(17, 19)?);
    let ms = if s.as_bytes().get(19) == Some(&b'.') {
        n(20, 23)?
    } else {
        0
    };
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + ms)
}

/// The (event id, event time) pairs in a frame's `events`, found without parsing the whole
/// frame (a thousand spectators parsing every frame would load the machine more than moot).
fn events(frame: &str) -> Vec<(String, i64)> {
    let Some(start) = frame.find("\"events\":[") else {
        return Vec::new();
    };
    let end = frame[start..]
        .find("],\"matchId\"")
        .map_or(frame.len(), |e| start + e);
    let list = &frame[start..end];
    let mut out = Vec::new();
    let mut rest = list;
    while let Some(i) = rest.find("{\"at\":\"") {
        rest = &rest[i + 7..];
        let at = iso_ms(rest);
        if let (Some(at), Some(j)) = (at, rest.find("\"eventId\":\"")) {
            let id = &rest[j + 11..j + 18];
            out.push((id.to_owned(), at));
        }
    }
    out
}

/// One spectator: connects, then reads frames until the stream ends. Returns the delays (ms)
/// of the events that happened after it had its first frame.
async fn spectate(
    addr: SocketAddr,
    path: String,
    connected: tokio::sync::mpsc::Sender<()>,
) -> Vec<i64> {
    let mut s = TcpStream::connect(addr).await.expect("connects");
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw: Vec<u8> = Vec::new();
    let mut body: Vec<u8> = Vec::new();
    let mut headers_done = false;
    let mut seen: HashSet<String> = HashSet::new();
    let mut first = true;
    let mut delays = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match s.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let arrived = now_ms();
        raw.extend_from_slice(&buf[..n]);
        if !headers_done {
            let Some(i) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
                continue;
            };
            raw.drain(..i + 4);
            headers_done = true;
        }
        // De-chunk what is complete.
        while let Some(line_end) = raw.windows(2).position(|w| w == b"\r\n") {
            let size =
                usize::from_str_radix(std::str::from_utf8(&raw[..line_end]).unwrap().trim(), 16)
                    .unwrap();
            if size == 0 {
                return delays;
            }
            if raw.len() < line_end + 2 + size + 2 {
                break;
            }
            body.extend_from_slice(&raw[line_end + 2..line_end + 2 + size]);
            raw.drain(..line_end + 2 + size + 2);
        }
        // Whole server-sent events.
        while let Some(i) = body.windows(2).position(|w| w == b"\n\n") {
            let block: Vec<u8> = body.drain(..i + 2).collect();
            let text = String::from_utf8_lossy(&block);
            let Some(data) = text.lines().find_map(|l| l.strip_prefix("data: ")) else {
                continue; // a keep-alive
            };
            for (id, at) in events(data) {
                if seen.insert(id) && !first {
                    delays.push(arrived - at);
                }
            }
            if first {
                first = false;
                let _ = connected.send(()).await;
            }
        }
    }
    delays
}

fn rss_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spectators: usize = args
        .iter()
        .position(|a| a == "--spectators")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(1000);
    let srv = server::start_in_temp("--http", &["--time-scale", "20"]);
    let pid = srv.child.id();
    let mut c = Conn::open(srv.addr).await;
    c.post("/agents", &[], "{}").await;
    let me = c.json();
    let auth = format!("Bearer {}", me["token"].as_str().unwrap());
    let h = [("Authorization", auth.as_str())];
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), me["agent_id"].clone());
    for i in 1..8 {
        participants.insert(format!("p{}", i + 1), json!(format!("bot-{i}")));
    }
    // A long lobby: it ends when the agent readies, once everyone watches.
    let body = json!({ "template": "werewolf.v1", "participants": participants,
        "options": { "bots": [2, 3, 4, 5, 6, 7, 8], "timers": { "lobby": 3600 } } });
    c.post("/sessions", &h, &body.to_string()).await;
    let sid = c.json()["session_id"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rss_before = rss_kib(pid, "VmRSS:");
    let (tx, mut rx) = tokio::sync::mpsc::channel(spectators);
    let path = format!("/werewolf/{sid}/live");
    let started = Instant::now();
    let tasks: Vec<_> = (0..spectators)
        .map(|_| tokio::spawn(spectate(srv.addr, path.clone(), tx.clone())))
        .collect();
    drop(tx);
    for _ in 0..spectators {
        rx.recv()
            .await
            .expect("every spectator gets its first frame");
    }
    let connect_time = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let rss_connected = rss_kib(pid, "VmRSS:");
    let cpu_before = server::cpu_ns(pid);
    let ran = Instant::now();
    c.post(
        &format!("/sessions/{sid}/actions"),
        &h,
        &json!({"action": "ready"}).to_string(),
    )
    .await;
    let mut delays = Vec::new();
    for t in tasks {
        delays.extend(t.await.unwrap());
    }
    let match_time = ran.elapsed();
    let cpu = server::cpu_ns(pid) - cpu_before;
    let peak = rss_kib(pid, "VmHWM:");
    delays.sort_unstable();
    let pct = |p: f64| delays[((delays.len() as f64 * p) as usize).min(delays.len() - 1)];
    println!(
        "{spectators} spectators on one match's live stream (connected in {:.2} s); the match ran {:.1} s",
        connect_time.as_secs_f64(),
        match_time.as_secs_f64()
    );
    println!(
        "event deliveries: {} ({} per spectator); delay from an event to its arrival: p50 {} ms, p99 {} ms, max {} ms",
        delays.len(),
        delays.len() / spectators,
        pct(0.50),
        pct(0.99),
        delays.last().unwrap()
    );
    println!(
        "server memory: {} MiB before, {} MiB with everyone connected ({:.1} KiB per spectator), peak {} MiB; server CPU during the match {:.2} s",
        rss_before / 1024,
        rss_connected / 1024,
        (rss_connected.saturating_sub(rss_before)) as f64 / spectators as f64,
        peak / 1024,
        cpu as f64 / 1e9
    );
}
