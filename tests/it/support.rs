//! A server on an ephemeral port with its own temporary database, and a raw TCP client that
//! reads lines the way a MUD client does.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use moot::store::Database;
use moot::{Config, RunningServer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{Instant, timeout};

pub const WAIT: Duration = Duration::from_secs(10);

pub fn world_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("world")
}

/// A new, empty database for one test: a file in `dir` or, when the tests run against
/// PostgreSQL (`MOOT_TEST_POSTGRES`, a cluster `.ci/with-postgres` started), a new database in
/// that cluster, owned by the unprivileged role moot connects as.
pub fn fresh_db(dir: &Path) -> Database {
    match std::env::var("MOOT_TEST_POSTGRES") {
        Ok(base) if !base.is_empty() => {
            let name = format!("t{:016x}", rand::random::<u64>());
            let out = std::process::Command::new("psql")
                .args([&format!("{base}/postgres"), "-v", "ON_ERROR_STOP=1", "-qc"])
                .arg(format!("CREATE DATABASE {name}"))
                .output()
                .expect("psql runs");
            assert!(
                out.status.success(),
                "cannot make a database: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            Database::parse(&format!("{base}/{name}"))
        }
        _ => sqlite_db(dir),
    }
}

/// An SQLite file in `dir`, for the tests of what only SQLite has (its file locks, its
/// backup API).
pub fn sqlite_db(dir: &Path) -> Database {
    Database::Sqlite(dir.join("moot.db"))
}

/// The rows a query gives, each column as text (NULL as an empty string), read past moot.
pub fn sql_rows(db: &Database, sql: &str) -> Vec<Vec<String>> {
    match db {
        Database::Sqlite(path) => {
            let c = rusqlite::Connection::open(path).unwrap();
            let mut q = c.prepare(sql).unwrap();
            let n = q.column_count();
            q.query_map([], |r| {
                (0..n)
                    .map(|i| {
                        Ok(match r.get_ref(i)? {
                            rusqlite::types::ValueRef::Null => String::new(),
                            rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                            rusqlite::types::ValueRef::Real(f) => f.to_string(),
                            rusqlite::types::ValueRef::Text(t)
                            | rusqlite::types::ValueRef::Blob(t) => {
                                String::from_utf8_lossy(t).into_owned()
                            }
                        })
                    })
                    .collect()
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
        }
        Database::Postgres(_) => {
            let out = psql(db, sql).expect("the query runs");
            out.lines()
                .map(|l| l.split('\x1f').map(str::to_owned).collect())
                .collect()
        }
    }
}

/// Every row of every table of an SQLite file, read past moot through `c` (a connection kept
/// open between dumps reads what is committed when each statement runs): each table's rows as
/// text (columns by name), in order, so that two dumps are equal when what is stored is.
pub fn sqlite_dump(c: &rusqlite::Connection) -> std::collections::BTreeMap<String, Vec<String>> {
    let tables: Vec<String> = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables
        .into_iter()
        .map(|t| {
            let mut q = c.prepare(&format!("SELECT * FROM \"{t}\"")).unwrap();
            let names: Vec<String> = q.column_names().map(str::to_owned).collect();
            let mut rows: Vec<String> = q
                .query_map([], |r| {
                    let cols: Vec<String> = (0..names.len())
                        .map(|i| {
                            Ok(match r.get_ref(i)? {
                                rusqlite::types::ValueRef::Null => "NULL".to_owned(),
                                rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                                rusqlite::types::ValueRef::Real(f) => f.to_string(),
                                rusqlite::types::ValueRef::Text(t) => {
                                    format!("{:?}", String::from_utf8_lossy(t))
                                }
                                rusqlite::types::ValueRef::Blob(b) => format!("x'{}'", hex(b)),
                            })
                        })
                        .collect::<Result<_, rusqlite::Error>>()?;
                    Ok(names
                        .iter()
                        .zip(cols)
                        .map(|(n, v)| format!("{n}={v}"))
                        .collect::<Vec<_>>()
                        .join(" "))
                })
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            rows.sort();
            (t, rows)
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs a statement past moot; the database's refusal is the error.
pub fn sql_exec(db: &Database, sql: &str) -> Result<(), String> {
    match db {
        Database::Sqlite(path) => rusqlite::Connection::open(path)
            .unwrap()
            .execute_batch(sql)
            .map_err(|e| e.to_string()),
        Database::Postgres(_) => psql(db, sql).map(drop),
    }
}

fn psql(db: &Database, sql: &str) -> Result<String, String> {
    let out = std::process::Command::new("psql")
        .args([
            &db.address(),
            "-v",
            "ON_ERROR_STOP=1",
            "-qAt",
            "-F",
            "\x1f",
            "-c",
            sql,
        ])
        .output()
        .expect("psql runs");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// The configuration tests start from: the real world, loopback, an ephemeral port, no flood
/// or rate limits (tests that check one set it) and a short login-failure pause.
pub fn config(db: &Database) -> Config {
    let mut c = Config::defaults();
    c.telnet = "127.0.0.1:0".parse().unwrap();
    c.http = "127.0.0.1:0".parse().unwrap();
    c.db = db.clone();
    c.world = Some(world_dir());
    c.command_rate = 0.0;
    c.login_rate = 0.0;
    c.agent_rate = 0.0;
    c.read_rate = 0.0;
    c.games.werewolf.fill_after = Duration::ZERO.into();
    // Every test's identities come from one address; those about owners set the window back.
    c.owner_window = Duration::ZERO.into();
    c.login_fail_delay = Duration::from_millis(20).into();
    c
}

pub struct TestServer {
    pub addr: SocketAddr,
    pub http: SocketAddr,
    pub db: Database,
    server: Option<RunningServer>,
    _dir: Option<tempfile::TempDir>,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    pub async fn start_with(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let db = fresh_db(dir.path());
        let mut s = TestServer::on_db(&db, tweak).await;
        s._dir = Some(dir);
        s
    }

    /// [`TestServer::start_with`] on an SQLite file whatever database the run's other tests
    /// use: for the tests that read the file itself, row by row, past moot.
    pub async fn start_sqlite_with(tweak: impl FnOnce(&mut Config)) -> TestServer {
        let dir = tempfile::tempdir().unwrap();
        let db = sqlite_db(dir.path());
        let mut s = TestServer::on_db(&db, tweak).await;
        s._dir = Some(dir);
        s
    }

    /// A server on an existing database (for restarts).
    pub async fn on_db(db: &Database, tweak: impl FnOnce(&mut Config)) -> TestServer {
        let mut c = config(db);
        tweak(&mut c);
        let server = moot::start(c).await.expect("server starts");
        TestServer {
            addr: server.telnet_addr,
            http: server.http_addr,
            db: db.clone(),
            server: Some(server),
            _dir: None,
        }
    }

    pub fn api(&self) -> Api {
        Api::new(self.http)
    }

    pub async fn client(&self) -> Client {
        Client::connect(self.addr).await
    }

    /// A client logged in as a new character called `name`.
    pub async fn player(&self, name: &str) -> Client {
        player_at(self.addr, name).await
    }

    /// `name`, made earlier by [`TestServer::player`], logged in again, wrapping off.
    pub async fn again(&self, name: &str) -> Client {
        let mut c = Client::connect(self.addr).await;
        c.send(&format!("connect {name} pw-{name}-moot")).await;
        c.expect("$#$xmcp version: 1.1").await;
        c.send("@wrap off").await;
        c.expect("Word wrap is now off.").await;
        c
    }

    /// Runs `moot admin <what> <name>` (`grant`, `builder`, `programmer`…) on this server's
    /// database, as an operator does while it runs.
    pub fn admin(&self, what: &str, name: &str) {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_moot"))
            .args(["--db", &self.db.address(), "admin", what, name])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }

    /// `/metrics`, as the holder of `token` (the server's `--metrics-token`) reads it.
    pub async fn metrics(&self, token: &str) -> String {
        reqwest::Client::new()
            .get(format!("http://{}/metrics", self.http))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// The live town's fingerprint (see `World::fingerprint`), read once everything sent so
    /// far is stored: it is asked like any command, behind whatever is in flight.
    pub async fn fingerprint(&self) -> std::collections::BTreeMap<String, String> {
        let world = self.server.as_ref().expect("running").world.upgrade();
        world
            .expect("the world runs")
            .call(
                moot::world::SERVER_ID.into(),
                moot::world::Face::Rest,
                |w, _| w.fingerprint(),
            )
            .await
            .expect("the world answers")
    }

    pub async fn stop(mut self) -> Option<tempfile::TempDir> {
        self.server.take().unwrap().shutdown().await;
        self._dir.take()
    }
}

/// A client of the telnet listener at `addr`, logged in as a new character called `name`.
pub async fn player_at(addr: SocketAddr, name: &str) -> Client {
    let mut c = Client::connect(addr).await;
    c.send(&format!("create {name} pw-{name}-moot")).await;
    c.expect("*** Created ***").await;
    // The room, then (after logging in) moot offers XMCP/1.1 (to every client; plain ones
    // show it once).
    let room = c.expect("$#$xmcp version: 1.1").await;
    assert!(room.iter().any(|l| l.starts_with("Exits:")), "{room:?}");
    assert_eq!(room.last().unwrap(), "$#$xmcp version: 1.1");
    // The tests of what moot says compare whole lines; those of how it wraps them
    // (`clients`) turn wrapping back on.
    c.send("@wrap off").await;
    c.expect("Word wrap is now off.").await;
    c
}

/// A TCP connection to `addr` from the local address `from`.
pub async fn connect_from(addr: SocketAddr, from: std::net::IpAddr) -> std::io::Result<TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(from, 0))?;
    socket.connect(addr).await
}

pub struct Client {
    stream: TcpStream,
    buf: Vec<u8>,
    /// Every line received so far, for failure messages.
    pub seen: Vec<String>,
}

impl Client {
    pub async fn connect(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).await.expect("connects");
        Client::over(stream)
    }

    /// A client whose connection comes from `from` (another loopback address: another
    /// machine, as the server sees it).
    pub async fn connect_from(addr: SocketAddr, from: std::net::IpAddr) -> Client {
        Client::over(connect_from(addr, from).await.expect("connects"))
    }

    pub fn over(stream: TcpStream) -> Client {
        // Each line goes as it is written, as a MUD client's does: `command` writes three in a
        // row, which Nagle's algorithm would hold back for the server's delayed ACK.
        let _ = stream.set_nodelay(true);
        Client {
            stream,
            buf: Vec::new(),
            seen: Vec::new(),
        }
    }

    pub async fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\r\n").as_bytes()).await;
    }

    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("writes");
    }

    /// Reads raw bytes until `pred` holds of the buffer (for telnet replies).
    pub async fn read_bytes_until(&mut self, pred: impl Fn(&[u8]) -> bool) -> Vec<u8> {
        let deadline = Instant::now() + WAIT;
        while !pred(&self.buf) {
            let mut chunk = [0u8; 4096];
            let n = timeout(deadline - Instant::now(), self.stream.read(&mut chunk))
                .await
                .unwrap_or_else(|_| {
                    panic!("timed out; have {:?}", String::from_utf8_lossy(&self.buf))
                })
                .expect("reads");
            assert!(
                n > 0,
                "connection closed; have {:?}",
                String::from_utf8_lossy(&self.buf)
            );
            self.buf.extend_from_slice(&chunk[..n]);
        }
        std::mem::take(&mut self.buf)
    }

    /// The next line, or None if the connection closed. Panics after [`WAIT`].
    pub async fn line(&mut self) -> Option<String> {
        self.line_within(WAIT).await.expect("a line in time")
    }

    /// The next line; `Err` if none comes within `d`, `Ok(None)` if the connection closed.
    pub async fn line_within(&mut self, d: Duration) -> Result<Option<String>, ()> {
        let deadline = Instant::now() + d;
        loop {
            if let Some(i) = self.buf.windows(2).position(|w| w == b"\r\n") {
                let line: Vec<u8> = self.buf.drain(..i + 2).take(i).collect();
                let line = String::from_utf8(line).expect("moot sends UTF-8");
                self.seen.push(line.clone());
                return Ok(Some(line));
            }
            let mut chunk = [0u8; 4096];
            let Ok(read) = timeout(
                deadline.saturating_duration_since(Instant::now()),
                self.stream.read(&mut chunk),
            )
            .await
            else {
                return Err(());
            };
            match read {
                Ok(0) | Err(_) => return Ok(None),
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
            }
        }
    }

    /// Reads lines until one contains `needle`; returns the lines read, that one last.
    pub async fn expect(&mut self, needle: &str) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            match self.line_within(WAIT).await {
                Ok(Some(l)) => {
                    let done = l.contains(needle);
                    lines.push(l);
                    if done {
                        return lines;
                    }
                }
                Ok(None) => panic!("closed while waiting for {needle:?}; got {lines:#?}"),
                Err(()) => panic!("timed out waiting for {needle:?}; got {lines:#?}"),
            }
        }
    }

    /// Asserts that nothing arrives for a while (for things that must not be heard).
    pub async fn silent_for(&mut self, d: Duration) {
        if let Ok(Some(l)) = self.line_within(d).await {
            panic!("expected silence, got {l:?}");
        }
    }

    /// Reads until the server closes the connection; returns what came before.
    pub async fn until_closed(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            match self.line_within(WAIT).await {
                Ok(Some(l)) => lines.push(l),
                Ok(None) => return lines,
                Err(()) => panic!("still open; got {lines:#?}"),
            }
        }
    }

    /// Sends a command between a PREFIX and SUFFIX marker and returns exactly its output; what
    /// was heard before it is let go (see [`Client::command_hearing`]).
    pub async fn command(&mut self, line: &str) -> Vec<String> {
        self.command_hearing(line).await.1
    }

    /// Sends a command between a PREFIX and SUFFIX marker; returns the lines heard before its
    /// output began (notices that were already on their way) and exactly its output.
    pub async fn command_hearing(&mut self, line: &str) -> (Vec<String>, Vec<String>) {
        self.send("PREFIX <<<").await;
        self.send("SUFFIX >>>").await;
        self.send(line).await;
        let mut before = self.expect("<<<").await;
        before.pop();
        let mut out = self.expect(">>>").await;
        out.pop();
        self.send("PREFIX").await;
        self.send("SUFFIX").await;
        (before, out)
    }
}

/// `name`'s standing on `board` (`chess/blitz`), as anyone reads it; none if they have none.
pub async fn standing_on(api: &Api, name: &str, board: &str) -> Option<serde_json::Value> {
    let (_, v) = api
        .send("GET", &format!("/ratings/{name}"), None, None)
        .await;
    v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["board"] == board)
        .cloned()
}

/// A JSON client for the REST API.
#[derive(Clone)]
pub struct Api {
    base: String,
    http: reqwest::Client,
}

/// An agent registered through the API.
#[derive(Debug, Clone)]
pub struct Agent {
    pub id: String,
    pub token: String,
    pub name: String,
}

/// A client that drops a connection idle for 5 s: the server closes one idle for
/// `--http-header-timeout` (10 s), and a request sent on it as it closes is lost ("the server
/// answers" failed once so, a request 10 s after the one before while the database was down).
fn pooled() -> reqwest::ClientBuilder {
    reqwest::Client::builder().pool_idle_timeout(Duration::from_secs(5))
}

impl Api {
    pub fn new(addr: SocketAddr) -> Api {
        Api {
            base: format!("http://{addr}"),
            http: pooled().build().unwrap(),
        }
    }

    /// An API client whose connections come from `from` (another loopback address: another
    /// machine, as the server sees it).
    pub fn from_address(addr: SocketAddr, from: std::net::IpAddr) -> Api {
        Api {
            base: format!("http://{addr}"),
            http: pooled().local_address(from).build().unwrap(),
        }
    }

    /// Sends a request; returns the status and the JSON body (Null if none).
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> (u16, serde_json::Value) {
        self.try_send(method, path, token, body)
            .await
            .expect("the server answers")
    }

    /// Like [`Api::send`], but `None` when the server does not answer (it may have been killed).
    pub async fn try_send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<&str>,
    ) -> Option<(u16, serde_json::Value)> {
        let mut r = self
            .http
            .request(method.parse().unwrap(), format!("{}{path}", self.base));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        if let Some(b) = body {
            r = r
                .header("content-type", "application/json")
                .body(b.to_owned());
        }
        let resp = r.send().await.ok()?;
        let status = resp.status().as_u16();
        let text = resp.text().await.ok()?;
        let json = if text.is_empty() {
            serde_json::Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"))
        };
        Some((status, json))
    }

    /// `GET path` as anyone: the status, the content type and the body as text (a page).
    pub async fn text(&self, path: &str) -> (u16, String, String) {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .expect("the server answers");
        seen(resp).await
    }

    pub async fn get(&self, path: &str, token: &str) -> (u16, serde_json::Value) {
        self.send("GET", path, Some(token), None).await
    }

    /// The actions of session `id`'s log, as `token` reads it (which must be allowed).
    pub async fn logged(&self, id: &str, token: &str) -> Vec<String> {
        let (status, log) = self.get(&format!("/sessions/{id}/log"), token).await;
        assert_eq!(status, 200, "{log}");
        log["actions"]
            .as_array()
            .unwrap_or_else(|| panic!("{log}"))
            .iter()
            .map(|e| e["action"].as_str().unwrap().to_owned())
            .collect()
    }

    pub async fn post(
        &self,
        path: &str,
        token: &str,
        body: serde_json::Value,
    ) -> (u16, serde_json::Value) {
        self.send("POST", path, Some(token), Some(&body.to_string()))
            .await
    }

    pub async fn agent(&self, name: Option<&str>) -> Agent {
        let body = match name {
            Some(n) => serde_json::json!({ "name": n }).to_string(),
            None => String::new(),
        };
        let (status, v) = self.send("POST", "/agents", None, Some(&body)).await;
        assert_eq!(status, 201, "{v}");
        Agent {
            id: v["agent_id"].as_str().unwrap().into(),
            token: v["token"].as_str().unwrap().into(),
            name: v["name"].as_str().unwrap().into(),
        }
    }

    /// Starts a session of `template` with `roles` (role, agent) as `creator`; returns its id.
    pub async fn session(
        &self,
        creator: &Agent,
        template: &str,
        roles: &[(&str, &Agent)],
    ) -> String {
        let participants: serde_json::Map<String, serde_json::Value> = roles
            .iter()
            .map(|(r, a)| (r.to_string(), a.id.clone().into()))
            .collect();
        let (status, v) = self
            .post(
                "/sessions",
                &creator.token,
                serde_json::json!({ "template": template, "participants": participants }),
            )
            .await;
        assert_eq!(status, 201, "{v}");
        let id = v["session_id"].as_str().unwrap().to_owned();
        // Everyone else named agrees, as each must before a game begins.
        let mut asked: Vec<&Agent> = roles.iter().map(|(_, a)| *a).collect();
        asked.retain(|a| a.id != creator.id);
        asked.dedup_by(|a, b| a.id == b.id);
        for a in asked {
            let path = format!("/sessions/{id}/accept");
            let (status, v) = self.post(&path, &a.token, serde_json::json!({})).await;
            assert_eq!(status, 200, "{v}");
        }
        id
    }
}

/// The Python of `.venv` (made by .ci/run), with python-chess and the mcp package.
pub fn python() -> String {
    let python = std::env::var("MOOT_TEST_PYTHON")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/.venv/bin/python").into());
    assert!(
        std::path::Path::new(&python).exists(),
        "{python} is missing: run .ci/run, or `python3 -m venv .venv && .venv/bin/pip install chess==1.11.2 mcp==2.3.0`"
    );
    python
}

/// Runs a Python client script (a path under tests/: `mcp/agent.py`, `browser/town.py`) with
/// `args`; fails the test unless it succeeds, and returns the JSON it printed last.
pub async fn run_python(script: &str, args: &[&str]) -> serde_json::Value {
    let path = format!("{}/tests/{script}", env!("CARGO_MANIFEST_DIR"));
    let out = tokio::process::Command::new(python())
        .arg(path)
        .args(args)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{script} failed:\n{stdout}\n{stderr}");
    serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// A port free now, for a server a test starts (and may stop and start again on it). It is
/// below the kernel's ephemeral range (32768 and up on Linux), where every outgoing
/// connection's own end is given its port: a server started again on its port must not find it
/// taken meanwhile by some other test's client (a PostgreSQL cluster's postmaster then exits,
/// "could not bind"). Each call in this process gets the next free one, from a start that
/// differs between processes.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU16, Ordering};
    static NEXT: AtomicU16 = AtomicU16::new(0);
    const FIRST: u16 = 20_000;
    const SPAN: u16 = 12_000;
    let start = (std::process::id() % u32::from(SPAN)) as u16;
    loop {
        let port = FIRST + (start + NEXT.fetch_add(1, Ordering::Relaxed) % SPAN) % SPAN;
        if std::net::TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
}

/// A `moot` process that is killed when the test lets go of it, even by panicking.
pub struct Moot(pub std::process::Child);

impl std::ops::Deref for Moot {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for Moot {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for Moot {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A real `moot` process on `db`, serving HTTP on `http` (and telnet on an ephemeral port,
/// unless `extra` names one), for tests that kill it.
pub async fn spawn_moot(db: &Database, http: SocketAddr, extra: &[&str]) -> Moot {
    spawn_moot_with(db, http, extra, |_| {}).await
}

/// [`spawn_moot`], with `tweak` applied to its command last (to read its log, say).
pub async fn spawn_moot_with(
    db: &Database,
    http: SocketAddr,
    extra: &[&str],
    tweak: impl FnOnce(&mut std::process::Command),
) -> Moot {
    use std::process::{Command, Stdio};
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_moot"));
    cmd.args(["--db", &db.address()])
        .args(["--world", world_dir().to_str().unwrap()])
        .args(["--http", &http.to_string(), "--sync", "normal"]);
    if !extra.contains(&"--telnet") {
        cmd.args(["--telnet", "127.0.0.1:0"]);
    }
    cmd.args(["--agent-rate", "0", "--login-rate", "0"]);
    cmd.args(extra)
        .env("RUST_LOG", "moot=warn")
        .stdin(Stdio::null());
    tweak(&mut cmd);
    let mut child = cmd.spawn().unwrap();
    for _ in 0..200 {
        if reqwest::get(format!("http://{http}/health")).await.is_ok() {
            return Moot(child);
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("moot exited at start: {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("moot did not start on {http}");
}

/// The address that serves tool `name` (`/mcp/chess` for `createGame`), as an agent reads it
/// from the `toolsets` tool.
pub fn mcp_path(name: &str) -> String {
    moot::games::toolset_of(name)
        .map_or_else(|| "/mcp".to_owned(), |t| moot::games::toolset_path(&t))
}

/// The names of the tools of the set called `set`.
pub fn set_names(set: &str) -> std::collections::BTreeSet<String> {
    let set = moot::games::toolset_named(set).expect("a set of that name");
    moot::games::tools_in(&[set])
        .map(|e| e.tool_name().to_owned())
        .collect()
}

/// One stateless MCP 2026-07-28 `tools/call` over HTTP, at the address that serves the tool;
/// the JSON-RPC `result` (or `error`).
pub async fn mcp_tool(
    http: SocketAddr,
    token: &str,
    name: &str,
    args: serde_json::Value,
) -> serde_json::Value {
    let params = serde_json::json!({ "name": name, "arguments": args });
    mcp_request(http, token, &mcp_path(name), "tools/call", params).await
}

/// A raw POST of `body` to `/mcp`, with the headers a 2026-07-28 client sends (`Mcp-Method:
/// method`, and `Mcp-Name: name` when given) and `origin` as a page in a browser sends it: the
/// status, the content type and the body, as they came.
pub async fn post_mcp_raw(
    http: SocketAddr,
    token: &str,
    method: &str,
    name: Option<&str>,
    body: Vec<u8>,
    origin: Option<&str>,
) -> (u16, String, String) {
    let mut r = reqwest::Client::new()
        .post(format!("http://{http}/mcp"))
        .bearer_auth(token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(n) = name {
        r = r.header("Mcp-Name", n);
    }
    if let Some(o) = origin {
        r = r.header("origin", o);
    }
    seen(r.body(body).send().await.unwrap()).await
}

/// An answer's status, content type and body, as they came.
async fn seen(resp: reqwest::Response) -> (u16, String, String) {
    let status = resp.status().as_u16();
    let kind = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, kind, resp.text().await.expect("a body"))
}

/// One stateless MCP 2026-07-28 request to the address `path` (`/mcp`, `/mcp/chess`): the
/// JSON-RPC result (or error).
pub async fn mcp_request(
    http: SocketAddr,
    token: &str,
    path: &str,
    method: &str,
    params: serde_json::Value,
) -> serde_json::Value {
    mcp_request_with(&reqwest::Client::new(), http, token, path, method, params).await
}

/// Like [`mcp_request`], over `client` (one with its own local address, say).
pub async fn mcp_request_with(
    client: &reqwest::Client,
    http: SocketAddr,
    token: &str,
    path: &str,
    method: &str,
    mut params: serde_json::Value,
) -> serde_json::Value {
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}});
    // SEP-2243: the name a request acts on rides in a header too.
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .map(str::to_owned);
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let mut r = client
        .post(format!("http://{http}{path}"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(n) = name {
        r = r.header("Mcp-Name", n);
    }
    let text = r.json(&body).send().await.unwrap().text().await.unwrap();
    let json = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(&text);
    let v: serde_json::Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {text}"));
    if v.get("error").is_some() {
        v["error"].clone()
    } else {
        v["result"].clone()
    }
}
