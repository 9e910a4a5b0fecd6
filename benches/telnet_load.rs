//! A closed-loop load generator for the telnet face.
//!
//! It starts the `moot` binary (a separate process, release build) on a generated world of 50
//! rooms, logs clients in, and has each alternate `say <token>` (waiting for its own echo) and
//! `look` (waiting for the room's name). It prints commands per second and latency
//! percentiles for five scenarios (`crowd500gmcp` is the crowded room with half its clients
//! taking GMCP as Mudlet does; `verb8` is eight clients in eight rooms with a programmed verb in
//! place of `say`: each room's `ring`, a line of Rhai that tells the typist `Ding.`, the town
//! running at most eight at once), then holds as many idle connections as the machine allows
//! and prints the server's memory per connection. Last, `startup` times moot's start on a town
//! with 10,000 built objects (and a verb on every tenth thing) beside its start on none.
//! Two scenarios at scale run only when `--only` names them, for a machine of many cores
//! (`benches/at-scale` runs them there): `spread5000`, 5,000 clients over the rooms, and
//! `crowd2000`, 2,000 in one room.
//!
//!     cargo bench --bench telnet_load                     # everything, 10 s per scenario
//!     cargo bench --bench telnet_load -- --seconds 5 --only crowd500   (or a comma list)
//!     cargo bench --bench telnet_load -- --floor          # the floor under it (see below)
//!     cargo bench --bench telnet_load -- --hosts 2        # a world and 2 hosts over NATS
//!     cargo bench --bench telnet_load -- --against-moo /tmp/toast/build/moo /tmp/toast/bench.db \
//!         --rounds 2 --only spread50,spread500,crowd500     # moot, then ToastStunt, in turn
//!
//! `--hosts N` runs the town as `moot world` and N `moot host`s across a `nats-server` of its
//! own, the clients spread over the hosts; CPU and memory are all those processes' together.
//!
//! `--floor` runs the spread scenarios against a server that only answers the same lines, one
//! read and one write a command, on the same runtime (`support/floor.rs`): the part of moot's
//! CPU per command that is the sockets' and tokio's on this machine, and so what is moot's.
//!
//! `--against-moo BINARY DB` runs each chosen scenario on moot and then on a LambdaMOO server
//! (ToastStunt's `moo`) started on a copy of DB, `--rounds N` times in turn, and prints both and
//! moot's ratio to the MOO: the two meet the same clients on the same machine in the same run,
//! so a ratio is not one machine's or one day's against another's. DB is the same world as a
//! LambdaMOO database, made by `benches/moo/make_db.py`, whose verbs answer with moot's lines, so
//! the clients drive both unchanged (`benches/moo/README.md` says how to build ToastStunt and the database). The MOO
//! serves spread50, spread500 and crowd500 (it has no GMCP), and is left out of `idle`.
//!
//! Accounts are written straight into the database with a cheap argon2 cost before the server
//! starts, so that what is measured is the town, not password hashing.

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use argon2::password_hash::PasswordHasher;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

#[path = "support/floor.rs"]
mod floor;

// The load generator shares the machine with the server it measures: what it spends is taken
// from the server (on two cores, as much as the server spends itself), so it spends as little
// as it can: moot's allocator, no allocation per command, one clock reading per command.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;
#[path = "support/server.rs"]
mod server;
use server::Server;

const ROOMS: usize = 50;
const PASSWORD: &str = "bench";

struct Args {
    seconds: u64,
    only: Option<String>,
    idle: usize,
    /// Measure the floor instead of moot.
    floor: bool,
    /// Be the floor's server, on this address (the benchmark starts itself so).
    serve_floor: Option<String>,
    /// Run the town as a world and this many hosts across a NATS broker (0: one process).
    hosts: usize,
    /// A LambdaMOO server and its database, to run each scenario on as well as on moot.
    against_moo: Option<(String, String)>,
    /// How many times each scenario runs on each server, in turn.
    rounds: usize,
}

impl Args {
    /// Whether `--only` (one scenario, or a comma list) leaves the scenario `name` in.
    fn wanted(&self, name: &str) -> bool {
        self.only.is_none() || self.named(name)
    }

    /// Whether `--only` names the scenario `name`: the scenarios at scale run only so.
    fn named(&self, name: &str) -> bool {
        self.only
            .as_deref()
            .is_some_and(|o| o.split(',').any(|o| o == name))
    }

    /// How many clients the busiest scenario wanted logs in: the idle connections' characters
    /// come after theirs.
    fn busiest(&self) -> usize {
        SCENARIOS
            .iter()
            .filter(|s| self.runs(s))
            .map(|s| s.1)
            .max()
            .unwrap_or(0)
            .max(500)
    }

    /// Whether scenario `s` runs: wanted, and, for one at scale, named.
    fn runs(&self, s: &Scenario) -> bool {
        let (name, clients, ..) = *s;
        if clients > 500 {
            self.named(name)
        } else {
            self.wanted(name)
        }
    }
}

/// A scenario: its name, how many clients, whether they spread over the rooms (or all crowd
/// one), and one client in how many takes GMCP.
type Scenario = (&'static str, usize, bool, Option<usize>);

/// The scenarios, in the order they run. Those of more than 500 clients are the issue's figures
/// at scale, for a machine of many cores (`benches/at-scale`): they run only when `--only`
/// names them, as on two cores they measure the generator as much as the town.
const SCENARIOS: [Scenario; 7] = [
    ("spread50", 50, true, None),
    ("spread500", 500, true, None),
    ("crowd500", 500, false, None),
    ("crowd500gmcp", 500, false, Some(2)),
    // Eight at once: the town runs at most eight programmed verbs at a time.
    ("verb8", 8, true, None),
    ("spread5000", 5000, true, None),
    ("crowd2000", 2000, false, None),
];

fn args() -> Args {
    let mut a = Args {
        seconds: 10,
        only: None,
        idle: 19_900,
        floor: false,
        serve_floor: None,
        hosts: 0,
        against_moo: None,
        rounds: 1,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => a.seconds = it.next().and_then(|s| s.parse().ok()).expect("--seconds N"),
            "--only" => a.only = it.next(),
            "--idle" => a.idle = it.next().and_then(|s| s.parse().ok()).expect("--idle N"),
            "--floor" => a.floor = true,
            "--serve-floor" => a.serve_floor = it.next(),
            "--hosts" => a.hosts = it.next().and_then(|s| s.parse().ok()).expect("--hosts N"),
            "--against-moo" => {
                let binary = it.next().expect("--against-moo BINARY DB");
                let db = it.next().expect("--against-moo BINARY DB");
                a.against_moo = Some((binary, db));
            }
            "--rounds" => a.rounds = it.next().and_then(|s| s.parse().ok()).expect("--rounds N"),
            "--bench" => {}
            other => {
                panic!(
                    "unknown argument {other}; use --seconds N, --only NAME, --idle N, --floor, \
                     --hosts N, --against-moo BINARY DB, --rounds N"
                )
            }
        }
    }
    a
}

fn room_name(i: usize) -> String {
    format!("Bench Room {i:02}")
}

/// 50 rooms; room 0 is the start and has an exit to each other room (named `r<i>`).
fn write_world(dir: &Path) {
    std::fs::create_dir_all(dir.join("rooms")).unwrap();
    std::fs::write(
        dir.join("world.toml"),
        "name = \"bench\"\nwelcome = \"bench\"\nstart = \"r00\"\n",
    )
    .unwrap();
    for i in 0..ROOMS {
        let mut t = format!(
            "id = \"r{i:02}\"\nname = \"{}\"\ndescription = \"A room for load.\"\n",
            room_name(i)
        );
        // Each room's own programmed verb, for `verb8` (a build that has them): it adds
        // nothing to what `look` shows.
        if server::knows("--verb-ops") {
            t += "[verbs]\nring = 'tell(player, \"Ding.\");'\n";
        }
        if i == 0 {
            for j in 1..ROOMS {
                t += &format!("[[exits]]\nname = \"r{j:02}\"\nto = \"r{j:02}\"\n");
            }
        } else {
            t += "[[exits]]\nname = \"out\"\nto = \"r00\"\n";
        }
        std::fs::write(dir.join(format!("rooms/r{i:02}.toml")), t).unwrap();
    }
}

/// Characters b0000…, all with the same cheaply hashed password.
async fn seed_accounts(db: &str, n: usize) {
    let params = argon2::Params::new(8, 1, 1, None).unwrap();
    let cheap = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
    let hash = cheap
        .hash_password(PASSWORD.as_bytes())
        .unwrap()
        .to_string();
    use moot::store::sql::Value;
    // An SQLite file is made by the moot under test, at its own schema, and the accounts
    // written into it directly: an older build (`benches/compare`) refuses a database a newer
    // moot has brought forward.
    if let Some(path) = db.strip_suffix(".db").map(|_| db) {
        let made = std::process::Command::new(server::binary())
            .args(["--db", path, "admin", "list"])
            .output()
            .expect("moot runs");
        assert!(made.status.success(), "{made:?}");
        let mut c = rusqlite::Connection::open(path).unwrap();
        // One transaction, not a commit (each waiting on the disk) for each of thousands.
        let c = c.transaction().unwrap();
        for i in 0..n {
            c.execute(
                "INSERT INTO agents (agent_id, name, password_hash, room) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT DO NOTHING",
                rusqlite::params![
                    format!("bench{i}"),
                    format!("b{i:04}"),
                    &hash,
                    format!("r{:02}", i % ROOMS)
                ],
            )
            .unwrap();
        }
        c.commit().unwrap();
        return;
    }
    let db = moot::store::Database::parse(db);
    let store = moot::store::Store::open(&db, moot::store::StoreOptions::default()).unwrap();
    store
        .call(move |c| {
            // Spread over the rooms, so that idle characters do not all crowd one room.
            for i in 0..n {
                let room = format!("r{:02}", i % ROOMS);
                c.execute(
                    "INSERT INTO agents (agent_id, name, password_hash, room) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT DO NOTHING",
                    &[
                        Value::from(format!("bench{i}")),
                        Value::from(format!("b{i:04}")),
                        Value::from(&hash),
                        Value::from(room),
                    ],
                )?;
            }
            Ok(())
        })
        .await
        .unwrap();
    store.close().await;
}

/// The server's resident memory, from /proc.
fn rss_kib(server: &Server) -> u64 {
    server::rss_kib(server.child.id())
}

struct Client {
    rd: BufReader<OwnedReadHalf>,
    wr: OwnedWriteHalf,
    line: Vec<u8>,
    /// The line being sent, made here rather than allocated afresh for each.
    out: Vec<u8>,
    /// Chat lines from others seen while waiting.
    heard: Arc<AtomicU64>,
    /// GMCP messages received, for a client that asked for GMCP.
    gmcp: Option<Arc<AtomicU64>>,
}

/// What a LambdaMOO server sends in place of output it dropped because the client's queue was
/// full (network.cc): the answer a client waits for may be among what was lost, and waiting
/// for it hung a run. The wait ends there, and the command counts as answered (which favours
/// the MOO); how many notices came is reported with the scenario.
const LOST: &[u8] = b">> Network buffer overflow";

/// Output-lost notices received (see [`LOST`]).
static LOST_NOTICES: AtomicU64 = AtomicU64::new(0);

/// What marks a line of chat from someone else.
static SAYS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b" says, "));

const IAC: u8 = 255;
const SB: u8 = 250;
const SE: u8 = 240;
const DO: u8 = 253;
const GMCP: u8 = 201;

/// Takes the telnet commands off the front of a line (a GMCP message comes before the next
/// line); answers how many were GMCP messages.
fn strip_telnet(line: &mut Vec<u8>) -> u64 {
    let mut gmcp = 0;
    while line.first() == Some(&IAC) {
        let end = match line.get(1) {
            Some(&SB) => {
                gmcp += u64::from(line.get(2) == Some(&GMCP));
                match line.windows(2).position(|w| w == [IAC, SE]) {
                    Some(at) => at + 2,
                    None => line.len(),
                }
            }
            Some(_) => 3.min(line.len()),
            None => line.len(),
        };
        line.drain(..end);
    }
    gmcp
}

impl Client {
    /// Logs in as b<i>; with `gmcp`, takes GMCP first (Room and Comm.Channel, as Mudlet does).
    async fn login(
        addr: SocketAddr,
        i: usize,
        heard: Arc<AtomicU64>,
        gmcp: Option<Arc<AtomicU64>>,
    ) -> Client {
        let stream = TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).unwrap();
        let (rd, mut wr) = stream.into_split();
        if gmcp.is_some() {
            let mut hello = vec![IAC, DO, GMCP, IAC, SB, GMCP];
            hello.extend_from_slice(br#"Core.Supports.Set ["Room 1", "Comm.Channel 1"]"#);
            hello.extend_from_slice(&[IAC, SE]);
            wr.write_all(&hello).await.expect("write");
        }
        let mut c = Client {
            rd: BufReader::with_capacity(64 * 1024, rd),
            wr,
            line: Vec::new(),
            out: Vec::new(),
            heard,
            gmcp,
        };
        c.send(&format!("connect b{i:04} {PASSWORD}")).await;
        c.settle(i, &[b"Exits:"]).await;
        // Start from the start room whatever was stored last time.
        c.send("home").await;
        if c.settle(i, &[b"You are already home.", b"You click your heels"])
            .await
            == 1
        {
            c.settle(i, &[b"Exits:"]).await;
        }
        c
    }

    /// Leaves, and waits until the server has said goodbye, so nothing is left in flight.
    async fn quit(mut self) {
        self.send("@quit").await;
        self.wait_for(b"*** Disconnected ***").await;
    }

    async fn send(&mut self, line: &str) {
        self.send_parts(&[line.as_bytes()]).await;
    }

    /// Sends the line made of `parts`.
    async fn send_parts(&mut self, parts: &[&[u8]]) {
        self.out.clear();
        for p in parts {
            self.out.extend_from_slice(p);
        }
        self.out.extend_from_slice(b"\r\n");
        self.wr.write_all(&self.out).await.expect("write");
    }

    /// Reads the next line into `self.line`, without its telnet commands (counting the GMCP
    /// messages among them); 0 bytes if the server closed the connection.
    async fn next_line(&mut self) -> std::io::Result<usize> {
        self.line.clear();
        let n = self.rd.read_until(b'\n', &mut self.line).await?;
        let gmcp = strip_telnet(&mut self.line);
        if let Some(counted) = &self.gmcp {
            counted.fetch_add(gmcp, Ordering::Relaxed);
        }
        Ok(n)
    }

    /// Like [`Client::wait_for_any`], for client `i` getting in: one that hears none of
    /// `prefixes` in 50 s says what it heard instead, and waits for ever (the run gives up on
    /// it, and says how many are so).
    async fn settle(&mut self, i: usize, prefixes: &[&[u8]]) -> usize {
        let mut heard: Vec<String> = Vec::new();
        let waited = tokio::time::timeout(Duration::from_secs(50), async {
            loop {
                let n = self.next_line().await;
                assert!(
                    n.is_ok_and(|n| n > 0),
                    "b{i:04}: the server closed the connection; it said {heard:?}"
                );
                if let Some(at) = prefixes.iter().position(|p| self.line.starts_with(p)) {
                    return at;
                }
                // Others coming and going say nothing of this client's own.
                let other = self.line.len() > 6
                    && self.line[0] == b'b'
                    && self.line[1..5].iter().all(u8::is_ascii_digit)
                    && !self.line.starts_with(format!("b{i:04}").as_bytes());
                if other {
                    continue;
                }
                let line = String::from_utf8_lossy(&self.line).trim_end().to_owned();
                if heard.len() == 8 {
                    heard.remove(0);
                }
                heard.push(line);
            }
        })
        .await;
        match waited {
            Ok(at) => at,
            Err(_) => {
                eprintln!("b{i:04} is not in after 50 s; it heard last {heard:?}");
                std::future::pending().await
            }
        }
    }

    /// Reads lines until one starts with `prefix`.
    async fn wait_for(&mut self, prefix: &[u8]) {
        self.wait_for_any(&[prefix]).await;
    }

    /// Reads lines until one starts with one of `prefixes`; returns which (`prefixes.len()` if
    /// the server said it dropped output, which may have held it).
    async fn wait_for_any(&mut self, prefixes: &[&[u8]]) -> usize {
        loop {
            let n = self.next_line().await.expect("read");
            assert!(n > 0, "server closed the connection");
            if let Some(i) = prefixes.iter().position(|p| self.line.starts_with(p)) {
                return i;
            }
            if self.line.starts_with(LOST) {
                LOST_NOTICES.fetch_add(1, Ordering::Relaxed);
                return prefixes.len();
            }
            if SAYS.find(&self.line).is_some() {
                self.heard.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

struct Outcome {
    commands: u64,
    latencies_us: Vec<u32>,
    heard: u64,
    seconds: f64,
    /// The server's CPU time while measuring.
    cpu_ns: u64,
    /// Each of its processes' share of it, in the order of their ids (with `--hosts`: the
    /// broker, the world, then the hosts).
    cpu_each_ns: Vec<u64>,
    /// The most resident memory the server held while measuring, in KiB.
    peak_rss_kib: u64,
    /// GMCP messages the clients that took GMCP received.
    gmcp: u64,
}

impl Outcome {
    /// Commands a second while measuring.
    fn per_second(&self) -> f64 {
        self.commands as f64 / self.seconds
    }

    /// The server's CPU time a command, in µs.
    fn cpu_us(&self) -> f64 {
        self.cpu_ns as f64 / 1000.0 / self.commands.max(1) as f64
    }
}

/// Runs `clients` clients against the server at `addrs` (whose processes are `pids`) for
/// `seconds` after a warm-up; with `logins_at_once`, no more than that many are connecting and
/// logging in at a time (the rest wait their turn before they connect).
#[expect(
    clippy::too_many_arguments,
    reason = "a scenario's knobs, each named at its few call sites"
)]
async fn scenario(
    addrs: &[SocketAddr],
    pids: &[u32],
    clients: usize,
    spread: bool,
    gmcp_every: Option<usize>,
    seconds: u64,
    logins_at_once: Option<usize>,
    ring: bool,
) -> Outcome {
    let logins = logins_at_once.map(|n| Arc::new(tokio::sync::Semaphore::new(n)));
    let heard = Arc::new(AtomicU64::new(0));
    let gmcp = Arc::new(AtomicU64::new(0));
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::new();
    // Clients in their rooms, each at work from then on. (Held back until all were in, the
    // 5,000 began in step and the town answered 200 commands a second, not 18,000.)
    let ready = Arc::new(AtomicUsize::new(0));
    for i in 0..clients {
        let (heard, measuring, stop) = (heard.clone(), measuring.clone(), stop.clone());
        let takes_gmcp = gmcp_every.is_some_and(|n| i.is_multiple_of(n));
        let gmcp = takes_gmcp.then(|| gmcp.clone());
        let ready = ready.clone();
        let addr = addrs[i % addrs.len()];
        let logins = logins.clone();
        tasks.push(tokio::spawn(async move {
            let turn = match logins {
                Some(l) => Some(l.acquire_owned().await.expect("login turn")),
                None => None,
            };
            let mut c = Client::login(addr, i, heard, gmcp).await;
            let room = if spread { i % ROOMS } else { 0 };
            if room != 0 {
                c.send(&format!("r{room:02}")).await;
                c.settle(i, &[b"Exits:"]).await;
            }
            drop(turn);
            ready.fetch_add(1, Ordering::Relaxed);
            let name = room_name(room);
            let mut latencies = Vec::with_capacity(1 << 16);
            let mut n: u64 = 0;
            let (mut token, mut echo) = (String::new(), Vec::new());
            // Each command starts as the one before it ends: one clock reading serves both.
            let mut t = Instant::now();
            while !stop.load(Ordering::Relaxed) {
                if ring && n.is_multiple_of(2) {
                    c.send("ring").await;
                    c.wait_for(b"Ding.").await;
                } else if n.is_multiple_of(2) {
                    token.clear();
                    let _ = write!(token, "t{i}-{n}");
                    c.send_parts(&[b"say ", token.as_bytes()]).await;
                    echo.clear();
                    echo.extend_from_slice(b"You say, \"");
                    echo.extend_from_slice(token.as_bytes());
                    echo.push(b'"');
                    c.wait_for(&echo).await;
                } else {
                    c.send("look").await;
                    c.wait_for(name.as_bytes()).await;
                    c.wait_for(b"Exits:").await;
                }
                let done = Instant::now();
                if measuring.load(Ordering::Relaxed) {
                    latencies.push((done - t).as_micros().min(u32::MAX as u128) as u32);
                }
                t = done;
                n += 1;
            }
            c.quit().await;
            latencies
        }));
    }
    all_in(&ready, clients).await;
    // Warm up, then measure.
    tokio::time::sleep(Duration::from_secs(2)).await;
    heard.store(0, Ordering::Relaxed);
    gmcp.store(0, Ordering::Relaxed);
    measuring.store(true, Ordering::Relaxed);
    let cpu = || {
        pids.iter()
            .map(|&p| server::cpu_ns(p))
            .collect::<Vec<u64>>()
    };
    let (t0, cpu0) = (Instant::now(), cpu());
    let mut peak_rss_kib = 0;
    while t0.elapsed() < Duration::from_secs(seconds) {
        let rss = pids.iter().map(|&p| server::rss_kib(p)).sum();
        peak_rss_kib = peak_rss_kib.max(rss);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    measuring.store(false, Ordering::Relaxed);
    let elapsed = t0.elapsed().as_secs_f64();
    let cpu_each_ns: Vec<u64> = cpu().iter().zip(&cpu0).map(|(a, b)| a - b).collect();
    let cpu_ns = cpu_each_ns.iter().sum();
    let heard_n = heard.load(Ordering::Relaxed);
    let gmcp_n = gmcp.load(Ordering::Relaxed);
    stop.store(true, Ordering::Relaxed);
    let mut all = Vec::new();
    // A command never answered would hold the run for ever: a minute is plenty for the last.
    let ended = tokio::time::timeout(Duration::from_secs(60), async {
        for t in tasks {
            all.extend(t.await.expect("client task"));
        }
    })
    .await;
    assert!(ended.is_ok(), "a client's last command was never answered");
    Outcome {
        commands: all.len() as u64,
        latencies_us: all,
        heard: heard_n,
        seconds: elapsed,
        cpu_ns,
        cpu_each_ns,
        peak_rss_kib,
        gmcp: gmcp_n,
    }
}

/// Waits for `clients` clients to be in their rooms, saying how many are every ten seconds
/// (thousands take a while to log in), and gives up on a town that took none in for a minute
/// rather than wait for ever (a machine lent for minutes would lose them all).
async fn all_in(ready: &AtomicUsize, clients: usize) {
    let t0 = Instant::now();
    let (mut said, mut last, mut moved) = (t0, 0, t0);
    loop {
        let n = ready.load(Ordering::Relaxed);
        if n == clients {
            return;
        }
        if n != last {
            (last, moved) = (n, Instant::now());
        }
        assert!(
            moved.elapsed() < Duration::from_secs(60),
            "{} of {clients} clients never got into their rooms",
            clients - n
        );
        if said.elapsed() >= Duration::from_secs(10) {
            eprintln!(
                "  {n} of {clients} clients in their rooms after {:.0} s",
                t0.elapsed().as_secs_f64()
            );
            said = Instant::now();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    f64::from(sorted[i]) / 1000.0
}

/// Opens `n` connections and leaves them idle, at the login screen or logged in; prints the
/// server's memory per connection and how fast it still answers.
/// The characters logged in are those from `first` on, past the scenarios' clients.
async fn idle(
    addr: SocketAddr,
    server: &Server,
    (first, n): (usize, usize),
    logged_in: bool,
    before: u64,
) {
    let t0 = Instant::now();
    let mut held = Vec::with_capacity(n);
    let mut readers = Vec::new();
    for i in 0..n {
        let stream = match TcpStream::connect(addr).await {
            Ok(s) => s,
            Err(e) => {
                println!("  stopped at {} connections: {e}", held.len());
                break;
            }
        };
        let (rd, mut wr) = stream.into_split();
        if logged_in {
            wr.write_all(format!("connect b{:04} {PASSWORD}\r\n", first + i).as_bytes())
                .await
                .unwrap();
        }
        // Keep reading (and discarding) what the town says, as a real client would.
        readers.push(tokio::spawn(async move {
            let mut rd = BufReader::with_capacity(1024, rd);
            let mut line = Vec::new();
            let mut entered = false;
            loop {
                line.clear();
                match rd.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => return entered,
                    Ok(_) => {
                        entered |= line.starts_with(b"Exits:") || line.starts_with(b"To leave:")
                    }
                }
            }
        }));
        held.push(wr);
    }
    // Wait until every connection has been welcomed (or logged in) and the town is quiet.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let opened = t0.elapsed().as_secs_f64();
    let after = rss_kib(server);
    let mut probe = Client::login(addr, 0, Arc::new(AtomicU64::new(0)), None).await;
    let t = Instant::now();
    probe.send("look").await;
    probe.wait_for(room_name(0).as_bytes()).await;
    probe.wait_for(b"Exits:").await;
    let probe_ms = t.elapsed().as_secs_f64() * 1000.0;
    probe.quit().await;
    let per = (after.saturating_sub(before)) as f64 * 1024.0 / held.len() as f64;
    println!(
        "idle {}: {} connections held (set up in {:.1} s); server RSS {} MiB before any -> {} MiB, {:.0} bytes per connection; a `look` meanwhile took {:.2} ms",
        if logged_in { "logged in" } else { "at login" },
        held.len(),
        opened,
        before / 1024,
        after / 1024,
        per,
        probe_ms
    );
    drop(held);
    let mut entered = 0;
    for r in readers {
        entered += usize::from(r.await.unwrap_or(false));
    }
    println!(
        "  ({entered} of them were {})",
        if logged_in { "logged in" } else { "welcomed" }
    );
}

/// The spread scenarios against the floor's server, a copy of this benchmark started with
/// `--serve-floor`.
fn floor(args: &Args) {
    let addr = server::free_addr();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--serve-floor", &addr.to_string()])
        .spawn()
        .expect("the floor's server starts");
    while std::net::TcpStream::connect(addr).is_err() {
        std::thread::sleep(Duration::from_millis(20));
    }
    println!(
        "the floor (support/floor.rs: the same lines, nothing else): {} cores, {} s per scenario",
        num_cpus(),
        args.seconds
    );
    println!(
        "{:<12} {:>8} {:>12} {:>9} {:>9} {:>11}",
        "scenario", "clients", "commands/s", "p50 ms", "p99 ms", "CPU µs/cmd"
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    for (name, clients) in [("spread50", 50), ("spread500", 500)] {
        if !args.wanted(name) {
            continue;
        }
        let mut o = rt.block_on(scenario(
            &[addr],
            &[child.id()],
            clients,
            true,
            None,
            args.seconds,
            None,
            false,
        ));
        o.latencies_us.sort_unstable();
        let (per_second, cpu_us) = (o.per_second(), o.cpu_us());
        println!(
            "{:<12} {:>8} {:>12.0} {:>9.3} {:>9.3} {:>11.1}",
            name,
            clients,
            per_second,
            percentile(&o.latencies_us, 0.50),
            percentile(&o.latencies_us, 0.99),
            cpu_us
        );
        server::figure(&format!("floor.{name}.commands_per_s"), per_second, "/s");
        server::figure(&format!("floor.{name}.cpu_us_per_command"), cpu_us, "µs");
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// What a scenario's row says, for the ratios of `--against-moo`.
struct Measured {
    per_second: f64,
    cpu_us: f64,
    peak_mib: f64,
}

/// Prints a scenario's row (after a column naming the server, with `--against-moo`) and its
/// figures, named with `prefix` first.
fn report(
    mut o: Outcome,
    name: &str,
    server: Option<&str>,
    prefix: &str,
    clients: usize,
    spread: bool,
    gmcp_every: Option<usize>,
) -> Measured {
    o.latencies_us.sort_unstable();
    let (per_second, cpu_us) = (o.per_second(), o.cpu_us());
    let heard = o.heard as f64 / o.seconds;
    let (p50, p99) = (
        percentile(&o.latencies_us, 0.50),
        percentile(&o.latencies_us, 0.99),
    );
    let peak_mib = o.peak_rss_kib as f64 / 1024.0;
    if let Some(server) = server {
        print!("{server:<6} ");
    }
    println!(
        "{:<12} {:>8} {:>6} {:>12.0} {:>9.3} {:>9.3} {:>14.0} {:>11.1} {:>13.0}",
        name,
        clients,
        if spread { ROOMS } else { 1 },
        per_second,
        p50,
        p99,
        heard,
        cpu_us,
        peak_mib,
    );
    server::figure(&format!("{prefix}{name}.commands_per_s"), per_second, "/s");
    server::figure(&format!("{prefix}{name}.p99_ms"), p99, "ms");
    server::figure(&format!("{prefix}{name}.cpu_us_per_command"), cpu_us, "µs");
    server::figure(&format!("{prefix}{name}.peak_rss_mib"), peak_mib, "MiB");
    if !spread || clients > ROOMS {
        server::figure(&format!("{prefix}{name}.chat_lines_per_s"), heard, "/s");
    }
    // Split: where the CPU went, the broker's, the world's and the hosts'.
    if let [broker, world, hosts @ ..] = &o.cpu_each_ns[..] {
        let us = |ns: u64| ns as f64 / 1000.0 / o.commands.max(1) as f64;
        println!(
            "{:<12} CPU a command: broker {:.1} µs, world {:.1} µs, hosts {:.1} µs",
            "",
            us(*broker),
            us(*world),
            us(hosts.iter().sum())
        );
    }
    if gmcp_every.is_some() {
        let gmcp = o.gmcp as f64 / o.seconds;
        println!("{:<12} GMCP messages received/s: {gmcp:.0}", "");
        server::figure(&format!("{prefix}{name}.gmcp_per_s"), gmcp, "/s");
    }
    let lost = LOST_NOTICES.swap(0, Ordering::Relaxed);
    if lost > 0 {
        println!(
            "{:<12} the server dropped output {lost} times (\"Network buffer overflow\"); \
             the commands waiting on it counted as answered",
            ""
        );
    }
    Measured {
        per_second,
        cpu_us,
        peak_mib,
    }
}

/// How many of the MOO's clients connect and log in at a time. ToastStunt listens with a backlog
/// of 5 (`listen(fd, 5)` in network.cc): 500 clients connecting at once overflow it, and the
/// kernel resets the connections it could not queue. Only the setting up waits its turn; what
/// is measured is not paced.
const MOO_LOGINS_AT_ONCE: usize = 4;

/// A LambdaMOO server (ToastStunt's `moo`) on a copy of a database made by
/// `benches/moo/make_db.py`, listening on a free IPv4 loopback port; killed when dropped.
struct Moo {
    child: std::process::Child,
    addr: SocketAddr,
    _dir: tempfile::TempDir,
}

impl Moo {
    /// Starts `binary` on a copy of `db` (the server writes its database back at a checkpoint
    /// and at shutdown, never over the one given), with its log in a file that is shown if it
    /// does not start listening; returns once the port answers.
    fn start(binary: &str, db: &str) -> Moo {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("in.db");
        std::fs::copy(db, &input).unwrap_or_else(|e| panic!("{db}: {e}"));
        let log_path = dir.path().join("moo.log");
        let log = std::fs::File::create(&log_path).unwrap();
        let addr = server::free_addr();
        let child = std::process::Command::new(binary)
            .args(["-4", "127.0.0.1", "--no-ipv6"])
            .arg(&input)
            .arg(dir.path().join("out.db"))
            .args(["-p", &addr.port().to_string()])
            .stdin(std::process::Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("{binary}: {e}"));
        let mut moo = Moo {
            child,
            addr,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(addr).is_err() {
            if Instant::now() > deadline || moo.child.try_wait().ok().flatten().is_some() {
                let log = std::fs::read_to_string(&log_path).unwrap_or_default();
                panic!("the MOO did not start listening; its log:\n{log}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        moo
    }
}

impl Drop for Moo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    let args = args();
    if let Some(addr) = &args.serve_floor {
        floor::serve(addr, ROOMS, room_name);
        return;
    }
    if args.floor {
        floor(&args);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_world(&dir.path().join("world"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let db = server::database(dir.path());
    rt.block_on(seed_accounts(&db, args.busiest() + args.idle));
    let face = [
        "--max-connections",
        "100000",
        // The idle timeout is left at its default (an hour), as people run it: it is a timer
        // per connection. Idle connections at the login screen must wait out the whole test.
        "--login-timeout",
        "0s",
        // Offered to every connection; only the clients that answer take GMCP.
        "--telnet-negotiate",
    ];
    // One process, or (--hosts N) a world and N hosts across a NATS broker.
    let (one, split) = if args.hosts == 0 {
        let s = server::start(&dir.path().join("world"), &db, "--telnet", &face);
        (Some(s), None)
    } else {
        let s = server::start_split(&dir.path().join("world"), &db, args.hosts, &face, &[]);
        (None, Some(s))
    };
    let (addrs, pids) = match (&one, &split) {
        (Some(s), _) => (vec![s.addr], vec![s.child.id()]),
        (_, Some(s)) => (s.telnet.clone(), s.pids()),
        _ => unreachable!(),
    };
    println!(
        "moot telnet load: {} cores, {} s per scenario, {}, server {}, {}",
        num_cpus(),
        args.seconds,
        server::engine(),
        server::binary(),
        match args.hosts {
            0 => "one process".to_owned(),
            n =>
                format!("a world and {n} host(s) across nats-server (CPU and memory: all of them)"),
        }
    );
    let moo = args.against_moo.as_ref().map(|(binary, db)| {
        println!(
            "against a MOO: {binary} on a copy of {db}, one process; each scenario {} time(s) on \
             each, in turn",
            args.rounds
        );
        Moo::start(binary, db)
    });
    if moo.is_some() {
        print!("{:<6} ", "server");
    }
    println!(
        "{:<12} {:>8} {:>6} {:>12} {:>9} {:>9} {:>14} {:>11} {:>13}",
        "scenario",
        "clients",
        "rooms",
        "commands/s",
        "p50 ms",
        "p99 ms",
        "chat lines/s",
        "CPU µs/cmd",
        "peak RSS MiB"
    );
    for s in SCENARIOS {
        let (name, clients, spread, gmcp_every) = s;
        if !args.runs(&s) || (name == "verb8" && !server::knows("--verb-ops")) {
            continue;
        }
        // (moot's, the MOO's) figures, a pair a round.
        let mut rounds = Vec::new();
        for _ in 0..args.rounds {
            let o = rt.block_on(scenario(
                &addrs,
                &pids,
                clients,
                spread,
                gmcp_every,
                args.seconds,
                None,
                name == "verb8",
            ));
            let label = moo.as_ref().map(|_| "moot");
            let ours = report(o, name, label, "", clients, spread, gmcp_every);
            // The MOO has no GMCP, nor moot's programmed verbs.
            let Some(moo) = moo
                .as_ref()
                .filter(|_| gmcp_every.is_none() && name != "verb8")
            else {
                continue;
            };
            let o = rt.block_on(scenario(
                &[moo.addr],
                &[moo.child.id()],
                clients,
                spread,
                None,
                args.seconds,
                Some(MOO_LOGINS_AT_ONCE),
                false,
            ));
            let theirs = report(o, name, Some("MOO"), "moo.", clients, spread, None);
            rounds.push((ours, theirs));
        }
        if rounds.is_empty() {
            continue;
        }
        // Each round's ratio, and the ratio of the means.
        let mean = |f: &dyn Fn(&(Measured, Measured)) -> f64| {
            rounds.iter().map(f).sum::<f64>() / rounds.len() as f64
        };
        let each: Vec<String> = rounds
            .iter()
            .map(|(a, b)| format!("{:.2}×", a.per_second / b.per_second))
            .collect();
        let commands = mean(&|r| r.0.per_second) / mean(&|r| r.1.per_second);
        let cpu = mean(&|r| r.0.cpu_us) / mean(&|r| r.1.cpu_us);
        let rss = mean(&|r| r.0.peak_mib) / mean(&|r| r.1.peak_mib);
        println!(
            "{:<6} {name}: moot has {commands:.2}× the MOO's commands/s (each round: {}), \
             {cpu:.2}× its CPU a command, {rss:.2}× its peak RSS",
            "",
            each.join(", ")
        );
        server::figure(&format!("{name}.against_moo.commands_ratio"), commands, "×");
        server::figure(&format!("{name}.against_moo.cpu_ratio"), cpu, "×");
    }
    if args.wanted("startup") && server::knows("--verb-ops") {
        startup(&dir.path().join("world"));
    }
    let Some(server) = one else {
        return;
    };
    if args.wanted("idle") {
        // Both counts are against the memory the server held before either, since memory
        // freed by the first is kept by the allocator and reused by the second.
        let baseline = rss_kib(&server);
        let idlers = (args.busiest(), args.idle);
        rt.block_on(idle(server.addr, &server, idlers, false, baseline));
        // Let the server see every close before the next count.
        std::thread::sleep(Duration::from_secs(3));
        rt.block_on(idle(server.addr, &server, idlers, true, baseline));
    }
}

/// How long moot takes to start (from its process to its first telnet connection taken) on a
/// town with no built objects, and on one with 10,000 (100 rooms of 98 things and an exit each,
/// a programmed verb on every tenth thing): the best of three starts each.
fn startup(world: &Path) {
    println!(
        "{:<12} {:>14} {:>14}",
        "startup", "built objects", "start ms"
    );
    for objects in [0usize, 10_000] {
        let dir = tempfile::tempdir().unwrap();
        let db = server::database(dir.path());
        seed_built(&db, objects);
        let mut best = f64::MAX;
        for _ in 0..3 {
            let t = Instant::now();
            let s = server::start(world, &db, "--telnet", &[]);
            best = best.min(t.elapsed().as_secs_f64() * 1000.0);
            drop(s);
        }
        println!("{:<12} {:>14} {:>14.0}", "startup", objects, best);
        server::figure(&format!("startup.built{objects}.ms"), best, "ms");
    }
}

/// `objects` built objects in the database at `db` (see [`startup`]).
fn seed_built(db: &str, objects: usize) {
    use moot::store::sql::Value;
    let db = moot::store::Database::parse(db);
    let store = moot::store::Store::open(&db, moot::store::StoreOptions::default()).unwrap();
    let rooms = objects / 100;
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(store.call(move |c| {
            let row = |c: &mut moot::store::Sql, num: u64, kind: &str, place: Option<String>, dest: Option<String>| {
                c.execute(
                    "INSERT INTO built (num, kind, owner, name, description, place, dest, created_ms)
                     VALUES (?1, ?2, 'bench', ?3, 'Built for the benchmark.', ?4, ?5, 0)",
                    &[
                        Value::from(num as i64),
                        Value::from(kind),
                        Value::from(format!("a built {kind} {num}")),
                        Value::from(place),
                        Value::from(dest),
                    ],
                )
            };
            let mut num = 1000u64;
            for _ in 0..rooms {
                let room = num;
                row(c, room, "room", None, None)?;
                row(c, room + 1, "exit", Some(format!("built-{room}")), Some("r00".into()))?;
                for t in 0..98u64 {
                    let thing = room + 2 + t;
                    row(c, thing, "thing", Some(format!("built-{room}")), None)?;
                    if t % 10 == 0 {
                        c.execute(
                            "INSERT INTO verbs (num, name, version, code, author, created_ms)
                             VALUES (?1, 'poke', 1, 'say(\"poke\");', 'bench', 0)",
                            &[Value::from(thing as i64)],
                        )?;
                    }
                }
                num += 100;
            }
            Ok(())
        }))
        .unwrap();
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
