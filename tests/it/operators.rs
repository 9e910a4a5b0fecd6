//! What the person running moot expects: it starts anywhere with its own town, logs plainly (or
//! as JSON) without colour codes off a terminal, backs up while running, and has wizards whose
//! every act is stored. All through the real binary.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::support::{Client, free_port, spawn_moot, world_dir};

const MOOT: &str = env!("CARGO_BIN_EXE_moot");

fn moot(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(MOOT)
        .args(args)
        .current_dir(cwd)
        .env("RUST_LOG", "moot=info")
        .output()
        .unwrap()
}

/// Every file under `dir`, by its path inside it, with its text.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for sub in ["", "rooms"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let name = p.strip_prefix(dir).unwrap().to_str().unwrap().to_owned();
                out.push((name, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn the_built_in_town_exports_as_world_is_and_serves_from_any_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = moot(&["world", "export", "town"], dir.path());
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        files(&dir.path().join("town")),
        files(&world_dir()),
        "the built-in town is world/, file for file"
    );
    let again = moot(&["world", "export", "town"], dir.path());
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already holds a town"),
        "{again:?}"
    );

    // `moot mcp` with no arguments, started where there is no world/, serves the town; its
    // stderr (an MCP host's pipe) carries no colour codes.
    let empty = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(MOOT)
        .arg("mcp")
        .current_dir(empty.path())
        .env("RUST_LOG", "moot=info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
    for msg in [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"look","arguments":{}}}"#,
    ] {
        stdin
            .write_all(format!("{msg}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut look = None;
    while let Ok(Ok(Some(line))) =
        tokio::time::timeout(Duration::from_secs(20), stdout.next_line()).await
    {
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        if v["id"] == 2 {
            look = Some(v);
            break;
        }
    }
    let look = look.expect("an answer to look");
    assert_eq!(
        look["result"]["structuredContent"]["name"], "Town Square",
        "{look}"
    );
    drop(stdin);
    let out = tokio::time::timeout(Duration::from_secs(20), child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("world loaded"), "{stderr}");
    assert!(stderr.contains("world=(built in)"), "{stderr}");
    assert!(!stderr.contains('\x1b'), "no ANSI: {stderr:?}");
}

/// A `moot` process with its stderr kept, serving telnet on its own port.
struct Logged {
    child: tokio::process::Child,
    telnet: std::net::SocketAddr,
    http: String,
}

async fn start_logged(db: &moot::store::Database, extra: &[&str]) -> Logged {
    let (telnet, http) = (free_port(), free_port());
    let telnet: std::net::SocketAddr = format!("127.0.0.1:{telnet}").parse().unwrap();
    let child = tokio::process::Command::new(MOOT)
        .args(["--db", &db.address()])
        .args(["--telnet", &telnet.to_string()])
        .args(["--http", &format!("127.0.0.1:{http}")])
        .args(["--login-rate", "0", "--login-fail-delay", "0s"])
        .args(extra)
        .env("RUST_LOG", "moot=info")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(telnet).await.is_ok() {
            return Logged {
                child,
                telnet,
                http: format!("http://127.0.0.1:{http}"),
            };
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("moot did not start");
}

impl Logged {
    /// Stops it and returns what it logged.
    async fn stop(self) -> String {
        let _ = Command::new("kill")
            .arg(self.child.id().unwrap().to_string())
            .status();
        let out = self.child.wait_with_output().await.unwrap();
        String::from_utf8_lossy(&out.stderr).into_owned()
    }
}

/// Connects as a new character, or an existing one.
async fn login(addr: std::net::SocketAddr, verb: &str, name: &str) -> Client {
    let mut c = Client::connect(addr).await;
    c.expect("quit").await;
    c.send(&format!("{verb} {name} pw-{name}-moot")).await;
    c.expect("$#$xmcp version: 1.1").await;
    c
}

#[tokio::test]
async fn logs_carry_audit_lines_without_colour_and_as_json_on_request() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let m = start_logged(&db, &[]).await;
    let mut ann = login(m.telnet, "create", "Ann").await;
    ann.command("@token").await;
    ann.command("south").await;
    ann.send("play rps with house").await;
    ann.expect("now you choose").await;
    ann.command("choose rock").await;
    let http = reqwest::Client::new();
    let made = http
        .post(format!("{}/agents", m.http))
        .json(&serde_json::json!({"name": "Robo"}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 201);
    let refused = http
        .get(format!("{}/sessions", m.http))
        .bearer_auth("moot_nobody_0")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 401);
    let mut bad = Client::connect(m.telnet).await;
    bad.expect("quit").await;
    bad.send("connect Ann wrong-password").await;
    bad.expect("Either that player does not exist").await;
    let (telnet, web) = (m.telnet, m.http.clone());
    let text = m.stop().await;
    assert!(!text.contains('\x1b'), "no colour off a terminal: {text:?}");
    // Where to open it, said once it listens.
    let open = format!(
        "moot is open: telnet {} {}, the web at {web}/, MCP at {web}/mcp, agents read \
         {web}/skill.md",
        telnet.ip(),
        telnet.port()
    );
    assert!(text.contains(&open), "{text}");
    assert!(
        text.lines().any(|l| l.contains("moot::audit")
            && l.contains("character_created")
            && l.contains("name=Ann")),
        "{text}"
    );
    for event in [
        "token_issued",
        "match_start",
        "match_end",
        "agent_created",
        "unauthorized",
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains("moot::audit") && l.contains(&format!("event=\"{event}\""))),
            "{event}: {text}"
        );
    }
    assert!(
        text.lines().any(|l| l.contains("login_failed")
            && l.contains("name=Ann")
            && l.contains("ip=127.0.0.1")),
        "{text}"
    );

    let m = start_logged(&db, &["--log-format", "json"]).await;
    login(m.telnet, "connect", "Ann").await;
    let json = m.stop().await;
    let lines: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l:?}")))
        .collect();
    assert!(
        lines.iter().any(|l| l["target"] == "moot::audit"
            && l["event"] == "login"
            && l["name"] == "Ann"
            && l["ip"] == "127.0.0.1"),
        "{json}"
    );
}

#[tokio::test]
async fn a_backup_taken_while_moot_runs_restores_with_everything_replayed() {
    // SQLite's online backup (PostgreSQL's is pg_dump's, in the `postgres` module).
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::sqlite_db(dir.path());
    let path = db.sqlite_path().unwrap().to_owned();
    let http = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let telnet = format!("127.0.0.1:{}", free_port());
    let running = spawn_moot(&db, http, &["--telnet", &telnet]).await;
    let telnet: std::net::SocketAddr = telnet.parse().unwrap();
    let mut ann = login(telnet, "create", "Ann").await;
    ann.command("@wrap off").await;
    ann.command("south").await;
    ann.send("play rps with house").await;
    ann.expect("now you choose").await;
    let result = ann.command("choose paper").await.join("\n");
    assert!(result.contains("Result: "), "{result}");
    let before = ann.command("games all").await;

    let copy = dir.path().join("backup.db");
    let out = moot(
        &[
            "--db",
            path.to_str().unwrap(),
            "backup",
            copy.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("Backed up "),
        "{out:?}"
    );
    // A second backup to the same file is refused rather than overwrite it; `--db` may come
    // after the subcommand too, as people type it.
    let again = moot(
        &[
            "backup",
            "--db",
            path.to_str().unwrap(),
            copy.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert!(!again.status.success());
    let told = String::from_utf8_lossy(&again.stderr);
    assert!(told.contains("exists"), "{again:?}");
    let help = moot(&["admin", "--help"], dir.path());
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("--db <DB>"),
        "{help:?}"
    );
    drop(running);

    // Restored: moot on the copy has Ann, where she stood, and the game replayed.
    let http = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let telnet = format!("127.0.0.1:{}", free_port());
    let _restored = spawn_moot(&copy.as_path().into(), http, &["--telnet", &telnet]).await;
    let mut ann = login(telnet.parse().unwrap(), "connect", "Ann").await;
    assert_eq!(ann.command("games all").await, before);
    assert_eq!(ann.command("look").await[0], "Game Room");
}

#[tokio::test]
async fn wizards_boot_ban_announce_and_shut_down_and_every_act_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let m = start_logged(&db, &[]).await;
    let mut wiz = login(m.telnet, "create", "Wiz").await;
    let mut bob = login(m.telnet, "create", "Bob").await;
    wiz.command("@wrap off").await;
    bob.command("@wrap off").await;
    assert_eq!(
        bob.command("@boot Wiz").await,
        ["Only a wizard may use @boot. (The operator makes wizards with `moot admin grant NAME`.)"]
    );
    // The operator makes Wiz a wizard while moot runs; it holds from Wiz's next login.
    let db_arg = &db.address();
    let out = moot(&["--db", db_arg, "admin", "grant", "wiz"], dir.path());
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Wiz is a wizard now (from their next login)."
    );
    let nobody = moot(&["--db", db_arg, "admin", "grant", "Nobody"], dir.path());
    assert!(!nobody.status.success());
    wiz.send("@quit").await;
    wiz.until_closed().await;
    let mut wiz = login(m.telnet, "connect", "Wiz").await;
    wiz.command("@wrap off").await;
    // Wizards' verbs are listed to wizards only.
    let boots = |lines: &[String]| lines.iter().any(|l| l.contains("@boot"));
    assert!(
        wiz.command("help")
            .await
            .iter()
            .any(|l| l.contains("wizards"))
    );
    assert!(boots(&wiz.command("help wizards").await));
    assert!(!boots(&bob.command("help").await));
    let theirs = bob.command("help wizards").await;
    assert!(!boots(&theirs) && theirs[0] == "Wizards:", "{theirs:?}");

    assert_eq!(
        wiz.command("@announce Tea in the square at five.").await,
        ["*** Announcement from Wiz: Tea in the square at five. ***"]
    );
    bob.expect("*** Announcement from Wiz: Tea in the square at five. ***")
        .await;
    assert_eq!(wiz.command("@boot Bob spamming").await, ["You boot Bob."]);
    let last = bob.until_closed().await;
    assert!(
        last.contains(&"*** You have been booted by Wiz: spamming ***".to_owned()),
        "{last:?}"
    );
    wiz.expect("Bob has been disconnected.").await;

    // A banned name cannot connect; lifted, it can.
    assert_eq!(wiz.command("@ban bob").await, ["Bob is banned."]);
    let mut c = Client::connect(m.telnet).await;
    c.expect("quit").await;
    c.send("connect Bob pw-Bob-moot").await;
    c.expect("*** That character, or your address, is banned from moot. ***")
        .await;
    assert_eq!(
        wiz.command("@unban Bob").await,
        ["Bob is no longer banned."]
    );
    c.send("connect Bob pw-Bob-moot").await;
    c.expect("*** Connected ***").await;
    let mut bob = c;
    // An address ban turns new connections away at once; those open stay.
    assert_eq!(
        wiz.command("@ban 127.0.0.1").await,
        ["New connections from 127.0.0.1 are refused from now on."]
    );
    let mut turned = Client::connect(m.telnet).await;
    let lines = turned.until_closed().await;
    assert_eq!(
        lines,
        ["*** That character, or your address, is banned from moot. ***"]
    );
    // Nor may it make agents over HTTP.
    let made = reqwest::Client::new()
        .post(format!("{}/agents", m.http))
        .json(&serde_json::json!({"name": "Sneaky"}))
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 403);
    wiz.command("@unban 127.0.0.1").await;

    // @shutdown tells everyone and stops moot cleanly (exit status 0).
    wiz.send("@shutdown Back in five minutes.").await;
    bob.expect("*** Shutting down: Back in five minutes. (by Wiz) ***")
        .await;
    let status = tokio::time::timeout(Duration::from_secs(20), async {
        let mut m = m;
        let status = m.child.wait().await.unwrap();
        let mut err = String::new();
        use tokio::io::AsyncReadExt;
        m.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .await
            .unwrap();
        (status, err)
    })
    .await
    .expect("moot stopped");
    assert!(status.0.success(), "{status:?}");
    assert!(
        status.1.contains("event=\"admin\"") && status.1.contains("verb=\"@boot\""),
        "every act is an audit line: {}",
        status.1
    );

    // Every act is in the admin log, in order.
    let store = moot::store::Store::open(&db, moot::store::StoreOptions::default()).unwrap();
    let acts: Vec<(String, String, String)> = store
        .admin_log()
        .await
        .unwrap()
        .into_iter()
        .map(|a| (a.by_whom, a.verb, a.target))
        .collect();
    let acts: Vec<(&str, &str, &str)> = acts
        .iter()
        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.as_str()))
        .collect();
    assert_eq!(
        acts,
        [
            ("command line", "grant", "Wiz"),
            ("Wiz", "@announce", ""),
            ("Wiz", "@boot", "Bob"),
            ("Wiz", "@ban", "Bob"),
            ("Wiz", "@unban", "Bob"),
            ("Wiz", "@ban", "127.0.0.1"),
            ("Wiz", "@unban", "127.0.0.1"),
            ("Wiz", "@shutdown", ""),
        ]
    );
    let out = moot(&["--db", db_arg, "admin", "list"], dir.path());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Wiz");
}

/// `/metrics` serves Prometheus text to the holder of `--metrics-token`, and nobody else. (The
/// figures are the process's, and tests share the process, so counts are checked as lower
/// bounds.)
#[tokio::test]
async fn metrics_are_prometheus_text_behind_their_token() {
    let off = crate::support::TestServer::start().await;
    let (status, _) = off.api().get("/metrics", "anything").await;
    assert_eq!(status, 404, "off unless a token is set");
    off.stop().await;

    let s =
        crate::support::TestServer::start_with(|c| c.metrics_token = Some("m-secret".into())).await;
    let mut ann = s.player("Ann").await;
    ann.command("look").await;
    ann.command("south").await;
    ann.send("play rps with house").await;
    ann.expect("now you choose").await;
    ann.command("choose rock").await;
    let (status, _) = s.api().get("/sessions", "moot_bad_token").await;
    assert_eq!(status, 401);
    let url = format!("http://{}/metrics", s.http);
    let http = reqwest::Client::new();
    let refused = http.get(&url).bearer_auth("wrong").send().await.unwrap();
    assert_eq!(refused.status(), 401);
    let r = http.get(&url).bearer_auth("m-secret").send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    let text = r.text().await.unwrap();
    let mut values = std::collections::HashMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let (name, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line:?}"));
        let v: f64 = value.parse().unwrap_or_else(|_| panic!("{line:?}"));
        values.insert(name.to_owned(), v);
    }
    let at_least = |name: &str, n: f64| {
        let v = values.get(name).copied().unwrap_or(-1.0);
        assert!(v >= n, "{name} = {v}, expected at least {n}:\n{text}");
    };
    at_least("moot_connections{face=\"telnet\"}", 1.0);
    at_least("moot_commands_total{face=\"telnet\",verb=\"look\"}", 1.0);
    at_least("moot_commands_total{face=\"telnet\",verb=\"choose\"}", 1.0);
    at_least("moot_sessions{template=\"rps.v1\",phase=\"over\"}", 1.0);
    at_least("moot_unauthorized_total", 1.0);
    at_least("moot_commit_batch_jobs_count", 1.0);
    at_least("moot_commit_seconds_bucket{le=\"+Inf\"}", 1.0);
    at_least("moot_long_polls_waiting", 0.0);
    at_least("moot_backlog_drops_total", 0.0);
    s.stop().await;
}

/// The configuration table (docs/operating.md) names every flag `moot --help` shows.
#[test]
fn the_operating_guide_lists_every_flag() {
    let help = Command::new(MOOT).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let guide =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operating.md")).unwrap();
    let flags: Vec<&str> = help
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("--"))
        .map(|l| l.split([' ', '=']).next().unwrap())
        .filter(|f| !["help", "version"].contains(f))
        .collect();
    assert!(flags.len() > 20, "{help}");
    let missing: Vec<&&str> = flags
        .iter()
        .filter(|f| !guide.contains(&format!("| `--{f}")))
        .collect();
    assert!(missing.is_empty(), "not in docs/operating.md: {missing:?}");
}

/// The documents a newcomer reads: the README, `docs/`, and the clients' own notes.
fn documents() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = vec![root.join("README.md")];
    for dir in ["docs", "clients"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "md") {
                    paths.push(p);
                }
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p.strip_prefix(root).unwrap().display().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// What a document quotes as code: its `spans`, and each line of its fenced blocks.
fn quoted(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            // Only moot's own command lines: a block's other lines are other programs'.
            let line = line.trim().trim_start_matches("$ ");
            if line.starts_with("moot ") {
                out.push(line.to_owned());
            }
            continue;
        }
        let mut parts = line.split('`');
        parts.next();
        while let (Some(span), Some(_)) = (parts.next(), parts.next()) {
            out.push(span.to_owned());
        }
    }
    out
}

/// Every flag of `moot` and of each of its commands, as their `--help` lists them.
fn moot_flags() -> std::collections::BTreeSet<String> {
    let help = |args: &[&str]| {
        let out = Command::new(MOOT)
            .args(args)
            .arg("--help")
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let commands = |text: &str| -> Vec<String> {
        text.lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .filter(|c| c != "help")
            .collect()
    };
    let mut flags = std::collections::BTreeSet::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        for l in text.lines() {
            for word in l.split([' ', ',', '=', '[', ']', '<']) {
                if let Some(f) = word.strip_prefix("--").filter(|f| !f.is_empty()) {
                    flags.insert(format!("--{f}"));
                }
            }
        }
        for c in commands(&text) {
            let mut next = path.clone();
            next.push(c);
            todo.push(next);
        }
    }
    flags
}

/// Every flag, HTTP path and file of the repository that the README and `docs/` name exists:
/// a flag in `moot --help` (or one of its commands'), a path the router serves, a file here.
#[tokio::test]
async fn every_flag_path_and_file_the_documents_name_exists() {
    let flags = moot_flags();
    assert!(flags.contains("--crowded-login-timeout") && flags.contains("--tools"));
    // Other programs' flags the documents name alone, with whose they are.
    let foreign = ["--strict"]; // MCP Inspector's schema check
    let s = crate::support::TestServer::start().await;
    let http = reqwest::Client::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut wrong = Vec::new();
    for (doc, text) in documents() {
        // The history of benchmark runs names their generators' own flags and old paths.
        let history = doc == "docs/benchmarks.md";
        for q in quoted(&text) {
            let ours = q.starts_with("moot ") || (q.starts_with("--") && !history);
            for word in q.split([' ', '=', ',', '(', ')', '"']).filter(|_| ours) {
                let Some(flag) = word.strip_prefix("--").map(|f| format!("--{f}")) else {
                    continue;
                };
                if flag.len() > 2 && !flags.contains(&flag) && !foreign.contains(&flag.as_str()) {
                    wrong.push(format!("{doc}: no such flag {flag} (in `{q}`)"));
                }
            }
            let path = q
                .strip_prefix("GET ")
                .or_else(|| q.strip_prefix("POST "))
                .unwrap_or(&q);
            let path = path.split([' ', '?']).next().unwrap_or_default();
            let elsewhere = [
                "/etc/", "/usr/", "/proc/", "/path/", "/tmp/", "/var/", "/run/",
            ];
            if path.starts_with('/') && !history && !elsewhere.iter().any(|e| path.starts_with(e)) {
                // A hole is filled with something of its kind that exists (a set, a game).
                let mut probe = String::new();
                let mut hole: Option<String> = None;
                for c in path.chars() {
                    match (c, hole.as_mut()) {
                        ('{' | '<', None) => hole = Some(String::new()),
                        ('}' | '>', Some(name)) => {
                            probe.push_str(match name.as_str() {
                                "set" | "game" => "chess",
                                _ => "1",
                            });
                            hole = None;
                        }
                        (c, Some(name)) => name.push(c),
                        (c, None) => probe.push(c),
                    }
                }
                if probe.ends_with('/') && probe.len() > 1 {
                    probe.push('1');
                }
                let answer = http.get(format!("http://{}{probe}", s.http)).send().await;
                let answer = answer.unwrap_or_else(|e| panic!("GET {probe}: {e}"));
                let status = answer.status().as_u16();
                let body = answer.text().await.unwrap_or_default();
                if status == 404 && body.contains("No such path") {
                    wrong.push(format!("{doc}: no such path {path}"));
                }
            }
            let file = q.split_whitespace().next().unwrap_or_default();
            let tops = [
                "src/", "docs/", "world/", "clients/", "tests/", "benches/", ".ci/",
            ];
            let named = tops.iter().any(|t| file.starts_with(t))
                || (file.ends_with(".rs") && file.contains('/'));
            // What fuzzing makes as it runs, and ignored by git.
            let made = ["fuzz/corpus/", "fuzz/artifacts/"];
            if named
                && !made.contains(&file)
                && !exists_with_holes(root, file)
                && !exists_with_holes(&root.join("src"), file)
            {
                wrong.push(format!("{doc}: no such file {file}"));
            }
        }
    }
    s.stop().await;
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Whether `path` names something under `root`, where a part with a hole in it (`<game>`, `*`)
/// stands for any entry of its folder.
fn exists_with_holes(root: &Path, path: &str) -> bool {
    let mut parts = path.trim_end_matches('/').splitn(2, '/');
    let (head, rest) = (parts.next().unwrap_or_default(), parts.next());
    let here: Vec<std::path::PathBuf> = if head.contains(['<', '*']) {
        std::fs::read_dir(root)
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default()
    } else {
        vec![root.join(head)]
    };
    here.iter().any(|p| match rest {
        Some(rest) => exists_with_holes(p, rest),
        None => p.exists(),
    })
}

/// Every verb the verb tables of `docs/verbs.md` name is one the town answers to, and every
/// tool they name one it serves.
#[test]
fn every_verb_and_tool_the_verb_tables_name_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs/verbs.md")).unwrap();
    let sets = moot::games::toolsets();
    let mut wrong = Vec::new();
    let mut checked = 0;
    // The tables, not the connection commands after them (the telnet face's, not verbs).
    let tables = text.split("Connection commands").next().unwrap();
    for row in tables.lines().filter(|l| l.starts_with("| `")) {
        // A row's cells, split where a `|` is not inside a span (`\|` in one is an option).
        let mut cells = vec![String::new()];
        let mut in_span = false;
        for c in row.trim_matches('|').chars() {
            match c {
                '`' => in_span = !in_span,
                '|' if !in_span => cells.push(String::new()),
                _ => {}
            }
            cells.last_mut().unwrap().push(c);
        }
        for (i, cell) in cells.iter().enumerate() {
            let spans: Vec<&str> = cell.split('`').skip(1).step_by(2).collect();
            for span in spans {
                let word = span.split_whitespace().next().unwrap_or_default();
                if i == 0 {
                    checked += 1;
                    if moot::games::find(word).is_none() {
                        wrong.push(format!("no such verb {word} (in `{span}`)"));
                    }
                } else if span.starts_with("et.")
                    && !span.contains(' ')
                    && moot::games::find_tool(span, sets).is_none()
                {
                    wrong.push(format!("no such tool {span}"));
                }
            }
        }
    }
    assert!(checked > 40, "read {checked} verbs");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
