//! Starting the release `moot` binary as a separate process for a benchmark, on a free
//! loopback port, with its database in a temporary directory.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Server {
    pub child: Child,
    /// The address of the listener named by `listen`.
    pub addr: SocketAddr,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A load generator is one address doing the work of thousands of people: the limits per
/// address, per identity and per connection count would only measure themselves.
const LIMITS: &[&str] = &[
    "--command-rate",
    "0",
    "--login-rate",
    "0",
    "--agent-rate",
    "0",
    "--max-http-connections",
    "30000",
    "--polls-per-agent",
    "0",
    "--sessions-per-agent",
    "0",
    "--verb-rate",
    "0",
];

/// The caps on connections per address, off the same way; as environment, which builds from
/// before them ignore.
const PER_ADDRESS: [(&str, &str); 2] = [
    ("MOOT_MAX_HTTP_CONNECTIONS_PER_ADDRESS", "0"),
    ("MOOT_MAX_LOGINS_PER_ADDRESS", "0"),
];

/// Starts moot on the world in `world`, with its database `db`, listening with `listen`
/// (`--telnet` or `--http`) on a free port, plus `args`; returns once that port answers.
/// The server binary: this build's, or another's (say, the last commit's) named by
/// MOOT_BENCH_BINARY, to measure both under the same load.
/// [`LIMITS`] that the moot under test knows (builds from before a limit existed do not).
fn limits() -> Vec<&'static str> {
    LIMITS
        .chunks(2)
        .filter(|pair| knows(pair[0]))
        .flatten()
        .copied()
        .collect()
}

/// Whether the moot under test knows `flag` (an older build, compared with this one, may not).
#[allow(dead_code)]
pub fn knows(flag: &str) -> bool {
    static HELP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HELP.get_or_init(|| {
        let out = Command::new(binary())
            .arg("--help")
            .output()
            .expect("moot runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    })
    .contains(flag)
}

pub fn binary() -> String {
    std::env::var("MOOT_BENCH_BINARY").unwrap_or(env!("CARGO_BIN_EXE_moot").into())
}

/// A loopback address with a port free now, for a server this benchmark starts.
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
}

/// Where a benchmark's town is kept: a file in `dir`, or, when MOOT_BENCH_POSTGRES names a
/// PostgreSQL cluster (`postgres://USER@HOST:PORT`, a role that may create databases; see
/// `.ci/with-postgres`), a new database there.
#[allow(dead_code)]
pub fn database(dir: &Path) -> String {
    database_named(dir, "bench")
}

/// [`database`], a file named `name` in `dir` (one for each game world beside the town's).
pub fn database_named(dir: &Path, name: &str) -> String {
    match std::env::var("MOOT_BENCH_POSTGRES") {
        Ok(base) if !base.is_empty() => {
            let name = format!("bench{:016x}", rand::random::<u64>());
            let out = Command::new("psql")
                .args([&format!("{base}/postgres"), "-v", "ON_ERROR_STOP=1", "-qc"])
                .arg(format!("CREATE DATABASE {name}"))
                .output()
                .expect("psql runs");
            assert!(out.status.success(), "{out:?}");
            format!("{base}/{name}")
        }
        _ => dir.join(format!("{name}.db")).display().to_string(),
    }
}

/// Which engine the benchmarks run on, for their headings.
#[allow(dead_code)]
pub fn engine() -> &'static str {
    if std::env::var("MOOT_BENCH_POSTGRES").is_ok_and(|b| !b.is_empty()) {
        "postgres"
    } else {
        "sqlite"
    }
}

#[allow(dead_code)]
pub fn start(world: &Path, db: &str, listen: &str, args: &[&str]) -> Server {
    let addr = free_addr();
    let other = if listen == "--telnet" {
        "--http"
    } else {
        "--telnet"
    };
    let binary = binary();
    // Builds from before a limit existed do not know its flag.
    let limits = limits();
    let child = Command::new(&binary)
        .args(["--world", world.to_str().unwrap(), "--db", db])
        .args([listen, &addr.to_string(), other, "127.0.0.1:0"])
        // A load generator is one address doing the work of thousands of people: the limits
        // per address and per connection count would only measure themselves.
        .args(&limits)
        .envs(PER_ADDRESS)
        .args(args)
        // MOOT_BENCH_LOG: the server's log filter (e.g. `moot=debug`) when a run needs looking into.
        .env(
            "RUST_LOG",
            std::env::var("MOOT_BENCH_LOG").unwrap_or_else(|_| "moot=warn".into()),
        )
        .stdin(Stdio::null())
        .spawn()
        .expect("moot starts");
    let deadline = Instant::now() + Duration::from_secs(20);
    // Looked for every 2 ms, so that `startup` reads how long a start takes.
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "moot did not start listening");
        std::thread::sleep(Duration::from_millis(2));
    }
    Server {
        child,
        addr,
        _dir: None,
    }
}

/// The project's own world, or an older build's own world files (MOOT_BENCH_WORLD): a newer
/// world may hold tables an older build does not know.
fn project_world() -> std::path::PathBuf {
    std::env::var_os("MOOT_BENCH_WORLD").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("world"),
        std::path::PathBuf::from,
    )
}

/// [`start`] on the project's own world, with the database in a fresh temporary directory.
#[allow(dead_code)] // not every benchmark uses both
pub fn start_in_temp(listen: &str, args: &[&str]) -> Server {
    let dir = tempfile::tempdir().unwrap();
    let world = project_world();
    let mut s = start(&world, &database(dir.path()), listen, args);
    s._dir = Some(dir);
    s
}

/// Nanoseconds the process `pid` has spent on a CPU, summed over its threads: the server's
/// cost, a steadier figure than rates on a shared two-core machine.
#[allow(dead_code)]
pub fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// Prints one figure as `benches/compare` reads it (`figure<TAB>name<TAB>value<TAB>unit`), when
/// `MOOT_BENCH_FIGURES` is set; a person reads the table the benchmark prints anyway.
#[allow(dead_code)]
pub fn figure(name: &str, value: f64, unit: &str) {
    if std::env::var_os("MOOT_BENCH_FIGURES").is_some() {
        println!("figure\t{name}\t{value:.3}\t{unit}");
    }
}

/// The resident memory of process `pid` in KiB, from /proc (0 once it is gone).
#[allow(dead_code)]
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A town split across processes: a NATS broker, `moot world`, and `hosts` × `moot host`
/// holding the connections (see "Hosts apart from the world" in docs/operating.md).
#[allow(dead_code)]
pub struct Split {
    children: Vec<Child>,
    /// Each host's telnet listener.
    pub telnet: Vec<SocketAddr>,
    /// Each host's HTTP listener.
    pub http: Vec<SocketAddr>,
    /// The broker's URL and the world files, for game worlds added later.
    nats: String,
    world: std::path::PathBuf,
    _dir: Option<tempfile::TempDir>,
}

impl Drop for Split {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Split {
    /// Every process's id: the broker's, the world's and the hosts', whose CPU time together
    /// is what the town costs.
    #[allow(dead_code)]
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(Child::id).collect()
    }

    /// Starts `n` game worlds (`moot games`, named g1, g2…) for this town, each on a database
    /// of its own, with the town's flags `world_args`, and gives the town a moment to hear
    /// them (they beat four times a second).
    #[allow(dead_code)]
    pub fn add_games(&mut self, n: usize, world_args: &[&str]) {
        let dir = self
            ._dir
            .as_ref()
            .map_or_else(std::env::temp_dir, |d| d.path().to_owned());
        let log = std::env::var("MOOT_BENCH_LOG").unwrap_or_else(|_| "moot=warn".into());
        for i in 1..=n {
            let name = format!("g{i}");
            self.children.push(
                Command::new(binary())
                    .args(["--world", self.world.to_str().unwrap()])
                    .args(["--db", &database_named(&dir, &name)])
                    .args(limits())
                    .args(world_args)
                    .args(["games", "--nats", &self.nats, "--name", &name])
                    .arg("--broker-is-private")
                    .env("RUST_LOG", &log)
                    .stdin(Stdio::null())
                    .spawn()
                    .expect("moot games starts"),
            );
        }
        std::thread::sleep(Duration::from_millis(2000));
    }
}

fn wait_for_port(addr: SocketAddr, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// [`start_split`] on the project's own world, with the database in a fresh temporary
/// directory.
#[allow(dead_code)]
pub fn start_split_in_temp(hosts: usize, host_args: &[&str], world_args: &[&str]) -> Split {
    let dir = tempfile::tempdir().unwrap();
    let world = project_world();
    let mut s = start_split(&world, &database(dir.path()), hosts, host_args, world_args);
    s._dir = Some(dir);
    s
}

/// Starts the broker, the world on `world` and `db`, and `hosts` hosts each listening for
/// telnet on a free port with `host_args` (the world with the town's flags `world_args`);
/// returns once every host listens.
#[allow(dead_code)]
pub fn start_split(
    world: &Path,
    db: &str,
    hosts: usize,
    host_args: &[&str],
    world_args: &[&str],
) -> Split {
    let log = std::env::var("MOOT_BENCH_LOG").unwrap_or_else(|_| "moot=warn".into());
    let broker = free_addr();
    let nats = format!("nats://{broker}");
    let program = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .unwrap_or("nats-server");
    let mut children = vec![
        Command::new(program)
            .args(["-a", "127.0.0.1", "-p", &broker.port().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts (apt-get install nats-server)"),
    ];
    wait_for_port(broker, "nats-server");
    let limits = limits();
    children.push(
        Command::new(binary())
            .args(["--world", world.to_str().unwrap(), "--db", db])
            .args(&limits)
            .args(world_args)
            // A broker on loopback, of this run's own.
            .args(["world", "--nats", &nats, "--broker-is-private"])
            .env("RUST_LOG", &log)
            .envs(PER_ADDRESS)
            .stdin(Stdio::null())
            .spawn()
            .expect("moot world starts"),
    );
    let (mut telnet, mut http) = (Vec::new(), Vec::new());
    for _ in 0..hosts {
        let (addr, web) = (free_addr(), free_addr());
        // A host that finds no world yet exits: started again until the world answers.
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            // The face's flags go before `host`, as the town's go before `world`.
            let mut child = Command::new(binary())
                .args(&limits)
                .args(host_args)
                .args(["host", "--nats", &nats])
                .args(["--telnet", &addr.to_string(), "--http", &web.to_string()])
                .env("RUST_LOG", &log)
                .envs(PER_ADDRESS)
                .stdin(Stdio::null())
                // Its log only when asked for (MOOT_BENCH_LOG): a host started before the
                // world answers says so as it exits, and is started again.
                .stderr(if std::env::var_os("MOOT_BENCH_LOG").is_some() {
                    Stdio::inherit()
                } else {
                    Stdio::null()
                })
                .spawn()
                .expect("moot host starts");
            let started = Instant::now();
            let mut up = false;
            while started.elapsed() < Duration::from_secs(5) {
                if std::net::TcpStream::connect(addr).is_ok() {
                    up = true;
                    break;
                }
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            // A host that found no world listened for a moment before it exited.
            std::thread::sleep(Duration::from_millis(300));
            if up && matches!(child.try_wait(), Ok(None)) {
                children.push(child);
                break;
            }
            let _ = child.kill();
            let _ = child.wait();
            assert!(Instant::now() < deadline, "no host could join the world");
            std::thread::sleep(Duration::from_millis(200));
        }
        telnet.push(addr);
        http.push(web);
    }
    Split {
        children,
        telnet,
        http,
        nats,
        world: world.to_owned(),
        _dir: None,
    }
}
