//! Game worlds (`moot games --nats URL --name NAME`): processes apart from the town, each with
//! a database of its own, that tell the town every moment that they are alive and how many
//! sessions they run. Real processes, a real `nats-server`, `/metrics` read through a host.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::hosts::{Broker, host, world_process_env, world_process_with};
use crate::support::{Moot, fresh_db, world_dir};

const TOKEN: &str = "game-worlds-metrics";

/// A game world named `name` on database `db`, for the town at `url`; its standard error is
/// kept, to read why it stopped.
fn games(url: &str, db: &moot::store::Database, name: &str) -> Moot {
    games_with(url, db, name, &[])
}

/// [`games`] with more of the town's flags (`--polls-per-agent 1`).
fn games_with(url: &str, db: &moot::store::Database, name: &str, extra: &[&str]) -> Moot {
    games_env(url, db, name, extra, &[])
}

/// [`games_with`], with more in its environment (a test's hold on the game world).
fn games_env(
    url: &str,
    db: &moot::store::Database,
    name: &str,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> Moot {
    Moot(
        Command::new(env!("CARGO_BIN_EXE_moot"))
            .args(extra)
            .envs(envs.iter().copied())
            .args(["--db", &db.address()])
            .args(["--world", world_dir().to_str().unwrap()])
            .args([
                "games",
                "--nats",
                url,
                "--name",
                name,
                "--broker-is-private",
            ])
            .env("RUST_LOG", "moot=warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    )
}

/// A town (a world process with `flags`, and a host) and game world g1 on a broker of their
/// own, once the town hears g1 alive; the directories hold their databases.
async fn town_and_g1(
    flags: &[&str],
) -> (
    Broker,
    Vec<tempfile::TempDir>,
    Moot,
    moot::server::RunningHost,
    Moot,
) {
    town_and_g1_env(flags, &[]).await
}

/// [`town_and_g1`], the town with more in its environment.
async fn town_and_g1_env(
    flags: &[&str],
    envs: &[(&str, &str)],
) -> (
    Broker,
    Vec<tempfile::TempDir>,
    Moot,
    moot::server::RunningHost,
    Moot,
) {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let town = world_process_env(&broker.url, &town_db, "60s", flags, envs).await;
    let a = host(&broker.url, &town_db).await;
    let g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    (broker, dirs, town, a, g1)
}

/// `agent` asks for a Werewolf practice match over MCP through the host at `http`.
async fn practice(http: std::net::SocketAddr, agent: &crate::support::Agent) -> serde_json::Value {
    let args = serde_json::json!({});
    crate::support::mcp_tool(http, &agent.token, "et.werewolf.practice.start", args).await
}

/// Eve, a person on telnet at `telnet` in the Chess Parlour, plays black against agent `ann` in
/// a chess game Ann asks for over REST and Eve accepts: Eve's connection, her token and the
/// game's id, once she has heard it begin there.
async fn eve_plays_black_against(
    api: &crate::support::Api,
    telnet: std::net::SocketAddr,
    ann: &crate::support::Agent,
) -> (crate::support::Client, String, String) {
    let mut eve = crate::support::player_at(telnet, "Eve").await;
    let eve_token = crate::consent::telnet_token(&mut eve).await;
    let eve_id = eve_token.split('_').nth(1).unwrap().to_owned();
    eve.send("east").await;
    eve.expect("Exits:").await;
    let participants = serde_json::json!({"white": ann.id, "black": eve_id});
    let (status, v) = api
        .post(
            "/sessions",
            &ann.token,
            serde_json::json!({"template": "chess.v1", "participants": participants}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let accept = format!("/sessions/{id}/accept");
    let (status, v) = api.post(&accept, &eve_token, serde_json::json!({})).await;
    assert_eq!(status, 200, "{v}");
    eve.expect(&format!("#{id}: a new chess game")).await;
    (eve, eve_token, id)
}

/// Sends `process` signal `sig` (`-STOP`: it answers nothing, its last beat still recent;
/// `-CONT`).
fn signal(process: &Moot, sig: &str) {
    let sent = Command::new("kill")
        .args([sig, &process.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill {sig}");
}

/// The town's `/metrics` lines about game worlds, read through the host at `http`.
async fn game_lines(http: std::net::SocketAddr) -> Vec<String> {
    metric_lines(http, "moot_game_world").await
}

/// The town's `/metrics` lines that begin with `prefix`, read through the host at `http`.
async fn metric_lines(http: std::net::SocketAddr, prefix: &str) -> Vec<String> {
    let text = reqwest::Client::new()
        .get(format!("http://{http}/metrics"))
        .bearer_auth(TOKEN)
        .send()
        .await
        .expect("the host answers")
        .text()
        .await
        .unwrap();
    text.lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// Waits (up to 20 s) until the town's game-world lines hold every one of `want`.
async fn until_metrics_show(http: std::net::SocketAddr, want: &[&str]) {
    let mut lines = Vec::new();
    for _ in 0..200 {
        lines = game_lines(http).await;
        if want.iter().all(|w| lines.iter().any(|l| l == w)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the town never showed {want:?}; it shows {lines:?}");
}

/// Waits (up to 20 s) for `process` to exit, and gives its standard error.
async fn exits(mut process: Moot) -> (std::process::ExitStatus, String) {
    for _ in 0..200 {
        if let Some(status) = process.try_wait().unwrap() {
            let mut err = String::new();
            use std::io::Read;
            process
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            return (status, err);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the process did not stop");
}

/// Two game worlds join a town and are shown alive; one killed (kill -9) is shown away within
/// moments, and started again on its database it is alive again. A second process under a
/// name that is alive is refused and stops, saying why; one on another's database stops at
/// once, naming who holds it.
#[tokio::test]
async fn game_worlds_are_heard_alive_missed_when_killed_and_back_when_restarted() {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..4).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db, g2_db, other_db) = (
        fresh_db(dirs[0].path()),
        fresh_db(dirs[1].path()),
        fresh_db(dirs[2].path()),
        fresh_db(dirs[3].path()),
    );
    let _town = world_process_with(&broker.url, &town_db, "60s", &["--metrics-token", TOKEN]).await;
    let a = host(&broker.url, &town_db).await;
    // None yet.
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_worlds{state=\"alive\"} 0",
            "moot_game_worlds{state=\"away\"} 0",
        ],
    )
    .await;
    let mut g1 = games(&broker.url, &g1_db, "g1");
    let _g2 = games(&broker.url, &g2_db, "g2");
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_worlds{state=\"alive\"} 2",
            "moot_game_world_sessions{name=\"g1\"} 0",
            "moot_game_world_sessions{name=\"g2\"} 0",
        ],
    )
    .await;
    // Killed, g1 is missed within moments.
    g1.kill().unwrap();
    g1.wait().unwrap();
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_worlds{state=\"alive\"} 1",
            "moot_game_worlds{state=\"away\"} 1",
        ],
    )
    .await;
    assert!(
        !game_lines(a.http_addr)
            .await
            .iter()
            .any(|l| l.contains("name=\"g1\"")),
        "an away game world's sessions are not counted"
    );
    // Started again on its own database, it is back.
    let _g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_worlds{state=\"alive\"} 2",
            "moot_game_worlds{state=\"away\"} 0",
        ],
    )
    .await;
    // Another process calling itself g2, on a database of its own, while g2 is alive.
    let (status, said) = exits(games(&broker.url, &other_db, "g2")).await;
    assert!(!status.success());
    assert!(
        said.contains("another game world named g2 is alive"),
        "{said}"
    );
    // One on g2's database, under another name: the database is g2's.
    let (status, said) = exits(games(&broker.url, &g2_db, "g3")).await;
    assert!(!status.success());
    assert!(
        said.contains("another moot is serving this database"),
        "{said}"
    );
    // A name no subject can hold is refused before anything is opened.
    let (status, said) = exits(games(&broker.url, &other_db, "g.3")).await;
    assert!(!status.success());
    assert!(said.contains("cannot name a game world"), "{said}");
    // The refused ones changed nothing.
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_worlds{state=\"alive\"} 2",
            "moot_game_worlds{state=\"away\"} 0",
        ],
    )
    .await;
    a.running.shutdown().await;
}

/// Sessions made over REST while game worlds are alive are placed on the least loaded, and
/// played there through a host with the same answers and refusals: a game world killed and
/// started again on its database has lost nothing acknowledged, and while it is away its
/// sessions' calls are refused as not done, where the other game world's go on.
#[tokio::test]
async fn sessions_made_while_game_worlds_are_alive_are_placed_on_the_least_loaded_and_played_there()
{
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db, g2_db) = (
        fresh_db(dirs[0].path()),
        fresh_db(dirs[1].path()),
        fresh_db(dirs[2].path()),
    );
    let town = world_process_with(&broker.url, &town_db, "60s", &["--metrics-token", TOKEN]).await;
    let a = host(&broker.url, &town_db).await;
    let mut g1 = games(&broker.url, &g1_db, "g1");
    let _g2 = games(&broker.url, &g2_db, "g2");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 2"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let (ann, bob, cat, dan) = (
        api.agent(Some("Ann")).await,
        api.agent(Some("Bob")).await,
        api.agent(Some("Cat")).await,
        api.agent(Some("Dan")).await,
    );
    // Both game worlds run none: the first goes to g1 (by name), the second to g2.
    let one = api
        .session(&ann, "chess.v1", &[("white", &ann), ("black", &bob)])
        .await;
    let two = api
        .session(&cat, "chess.v1", &[("white", &cat), ("black", &dan)])
        .await;
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_world_sessions{name=\"g1\"} 1",
            "moot_game_world_sessions{name=\"g2\"} 1",
        ],
    )
    .await;
    let act = |id: &str, who: &crate::support::Agent, action: &str, tick: u64| {
        let (api, path, token) = (&api, format!("/sessions/{id}/actions"), who.token.clone());
        let body = serde_json::json!({"action": action, "expected_tick": tick});
        async move { api.post(&path, &token, body).await }
    };
    let (status, moved) = act(&one, &ann, "e2e4", 0).await;
    assert_eq!(status, 200, "{moved}");
    // The refusals are the rules', as in one process.
    let (status, v) = act(&one, &bob, "e7e5", 0).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (409, Some("CONFLICT")),
        "{v}"
    );
    let (status, v) = api.get(&format!("/sessions/{one}/state"), &cat.token).await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (403, Some("FORBIDDEN")),
        "{v}"
    );
    let (status, state) = api.get(&format!("/sessions/{one}/state"), &bob.token).await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(state["tick"], 1, "{state}");
    // g1 killed: its session's calls are refused as not done; g2's go on.
    g1.kill().unwrap();
    g1.wait().unwrap();
    let (status, v) = act(&one, &bob, "e7e5", 1).await;
    assert_eq!(status, 503, "{v}");
    let (status, v) = act(&two, &cat, "d2d4", 0).await;
    assert_eq!(status, 200, "{v}");
    // Started again on its database (once the town has missed it), g1 has the move it
    // acknowledged, and takes the next.
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"away\"} 1"]).await;
    let _g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_worlds{state=\"alive\"} 2",
            "moot_game_world_sessions{name=\"g1\"} 1",
        ],
    )
    .await;
    let (status, state) = api.get(&format!("/sessions/{one}/state"), &bob.token).await;
    assert_eq!((status, state["tick"].as_u64()), (200, Some(1)), "{state}");
    let (status, v) = act(&one, &bob, "e7e5", 1).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(api.logged(&one, &ann.token).await, ["e2e4", "e7e5"]);
    // The same session through MCP's tools at the same host: read, and played.
    let tool = |who: &crate::support::Agent, name: &'static str, args: serde_json::Value| {
        let (http, token) = (a.http_addr, who.token.clone());
        async move { crate::support::mcp_tool(http, &token, name, args).await }
    };
    let state = tool(
        &ann,
        "session_state",
        serde_json::json!({"session_id": one}),
    )
    .await;
    assert_eq!(state["structuredContent"]["tick"], 2, "{state}");
    let args = serde_json::json!({"session_id": one, "action": "g1f3", "expected_tick": 2});
    let moved = tool(&ann, "session_act", args).await;
    assert_ne!(moved["isError"], true, "{moved}");
    // A session made with MCP's tool is placed as one made over REST (g1 and g2 run one
    // each: g1, by name), and is the same session over REST.
    let participants = serde_json::json!({"white": bob.id, "black": ann.id});
    let args = serde_json::json!({"template": "chess.v1", "participants": participants});
    let made = tool(&bob, "session_create", args).await;
    let three = made["structuredContent"]["session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{made}"))
        .to_owned();
    // Waiting for her answer on its game world, it is in the list MCP gives her, as in REST's.
    let listed = tool(&ann, "session_list", serde_json::json!({})).await;
    let ids: Vec<&str> = listed["structuredContent"]["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("{listed}"))
        .iter()
        .filter_map(|s| s["session_id"].as_str())
        .collect();
    assert_eq!(ids, [one.as_str(), three.as_str()], "{listed}");
    assert!(
        listed["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains(&format!("{three} (chess.v1)"))),
        "{listed}"
    );
    let accepted = tool(
        &ann,
        "session_accept",
        serde_json::json!({"session_id": three}),
    )
    .await;
    assert_ne!(accepted["isError"], true, "{accepted}");
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 2"]).await;
    let (status, v) = act(&three, &bob, "c2c4", 0).await;
    assert_eq!(status, 200, "{v}");
    // The chess tools reach it by its game id, their long poll included: Bob waits for Ann's
    // reply there, and it wakes when she moves over REST.
    let waiting = {
        let (http, token, game) = (a.http_addr, bob.token.clone(), three.clone());
        tokio::spawn(async move {
            crate::support::mcp_tool(
                http,
                &token,
                "waitForNextTurn",
                serde_json::json!({"game_id": game}),
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!waiting.is_finished(), "Bob waits for Ann");
    let (status, v) = act(&three, &ann, "e7e5", 1).await;
    assert_eq!(status, 200, "{v}");
    let woke = tokio::time::timeout(Duration::from_secs(20), waiting)
        .await
        .expect("the wait is answered")
        .unwrap();
    assert_eq!(woke["structuredContent"]["status"], "your_turn", "{woke}");
    // Each lists her own sessions wherever they are, in the order of their ids.
    for (who, theirs) in [(&ann, vec![&one, &three]), (&dan, vec![&two])] {
        let (status, v) = api
            .get(&format!("/sessions?agent_id={}", who.id), &who.token)
            .await;
        assert_eq!(status, 200, "{v}");
        let listed: Vec<&str> = v["sessions"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}"))
            .iter()
            .map(|s| s["session_id"].as_str().unwrap())
            .collect();
        assert_eq!(listed, theirs, "{v}");
    }
    // The town restarted numbers past every session it placed: the next is a new one.
    drop(town);
    let _town = world_process_with(&broker.url, &town_db, "60s", &["--metrics-token", TOKEN]).await;
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 2"]).await;
    let four = api
        .session(&cat, "chess.v1", &[("white", &cat), ("black", &dan)])
        .await;
    let numbers: Vec<u64> = [&one, &two, &three, &four]
        .iter()
        .map(|id| id.parse().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
    let (status, state) = api.get(&format!("/sessions/{one}/state"), &ann.token).await;
    assert_eq!((status, state["tick"].as_u64()), (200, Some(3)), "{state}");
    // A player plays one Werewolf match at a time, whichever world plays it: her second would
    // go to the other game world, which knows nothing of her first; the town does.
    let eve = api.agent(Some("Eve")).await;
    let (status, v) =
        crate::werewolf::post_match_with_bots(&api, &eve, serde_json::json!({})).await;
    assert_eq!(status, 201, "{v}");
    // The town holds its copy before she hears of it, whenever the game world's word of it
    // comes: a call made as soon as she is answered is held to it.
    let told = metric_lines(a.http_addr, "moot_sessions{template=\"werewolf.v1\"").await;
    assert!(!told.is_empty(), "{v}");
    let (status, v) =
        crate::werewolf::post_match_with_bots(&api, &eve, serde_json::json!({})).await;
    assert_eq!(status, 409, "{v}");
    let first = v["error"]["message"].as_str().unwrap_or_default();
    assert!(first.contains("You are playing in match"), "{v}");
    // Two asked at once, before either is made: one is.
    let fay = api.agent(Some("Fay")).await;
    let (one, two) = tokio::join!(
        crate::werewolf::post_match_with_bots(&api, &fay, serde_json::json!({})),
        crate::werewolf::post_match_with_bots(&api, &fay, serde_json::json!({})),
    );
    let mut statuses = [one.0, two.0];
    statuses.sort_unstable();
    assert_eq!(statuses, [201, 409], "{one:?} {two:?}");
    a.running.shutdown().await;
}

/// A long poll handed to a game world whose client leaves is taken back there, as the world
/// takes back its own: the agent's one poll (`--polls-per-agent 1`) is free again at once,
/// where it would be held for the rest of its wait.
#[tokio::test]
async fn a_long_poll_on_a_game_world_whose_client_leaves_is_taken_back_there() {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let _town = world_process_with(&broker.url, &town_db, "60s", &["--metrics-token", TOKEN]).await;
    let a = host(&broker.url, &town_db).await;
    let _g1 = games_with(&broker.url, &g1_db, "g1", &["--polls-per-agent", "1"]);
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let (ann, bob) = (api.agent(Some("Ann")).await, api.agent(Some("Bob")).await);
    let game = api
        .session(&ann, "chess.v1", &[("white", &ann), ("black", &bob)])
        .await;
    // Bob waits for Ann's first move, on g1.
    let wait = || {
        let (http, token, game) = (a.http_addr, bob.token.clone(), game.clone());
        tokio::spawn(async move {
            crate::support::mcp_tool(
                http,
                &token,
                "waitForNextTurn",
                serde_json::json!({"game_id": game}),
            )
            .await
        })
    };
    let first = wait();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!first.is_finished(), "the first poll waits");
    first.abort();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // His one poll is free again: the next one waits too, rather than being refused.
    let second = wait();
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(
        !second.is_finished(),
        "refused: {:?}",
        second.await.unwrap()
    );
    a.running.shutdown().await;
}

/// A Werewolf match placed on a game world, played through a host by an agent over REST and
/// MCP against seven house bots: everything the agent is shown there while it runs (its
/// state over REST and MCP, the log, the events) holds to what its seat may know, checked
/// against the match's report once it is over, as the one-process audit checks every face.
#[tokio::test]
async fn a_werewolf_match_on_a_game_world_shows_its_player_only_what_its_seat_may_know() {
    use crate::werewolf_audit::{audit, roles_of};
    use serde_json::json;
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let _town = world_process_with(&broker.url, &town_db, "60s", &["--metrics-token", TOKEN]).await;
    let a = host(&broker.url, &town_db).await;
    // Its reads unlimited, as the one-process audit's town's are.
    let flags = [
        "--time-scale",
        "100",
        "--read-rate",
        "0",
        "--command-rate",
        "0",
    ];
    let _g1 = games_with(&broker.url, &g1_db, "g1", &flags);
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let me = api.agent(Some("Pia")).await;
    let (status, made) = crate::werewolf::post_match_with_bots(&api, &me, json!({})).await;
    assert_eq!(status, 201, "{made}");
    let mid = made["session_id"].as_str().unwrap().to_owned();
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 1"]).await;
    let tool = |name: &'static str, args: serde_json::Value| {
        let (http, token) = (a.http_addr, me.token.clone());
        async move { crate::support::mcp_tool(http, &token, name, args).await }
    };
    let mut took: Vec<(&str, String)> = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the match did not end"
        );
        // Kept only if the state read after them shows the match running.
        let mut batch = Vec::new();
        let events = tool(
            "et.werewolf.match.events.get",
            json!({"matchId": mid, "limit": 200}),
        )
        .await;
        batch.push(("mcp events.get", events.to_string()));
        for path in ["state", "log"] {
            let (code, body) = api.get(&format!("/sessions/{mid}/{path}"), &me.token).await;
            assert_eq!(code, 200, "{body}");
            batch.push(("rest", body.to_string()));
        }
        let got = tool("et.werewolf.match.get_state", json!({"matchId": mid})).await;
        let state = got["structuredContent"]["state"].clone();
        if state["phase"] == "ENDED" {
            break;
        }
        assert!(state.is_object(), "{got}");
        took.extend(batch);
        took.push(("mcp get_state", got.to_string()));
        let req = &state["you"]["requiredAction"];
        let first = req["allowedTargets"][0].clone();
        let target = json!({"matchId": mid, "targetPlayerId": first});
        if state["phase"] == "LOBBY" {
            tool("et.werewolf.match.ready", json!({"matchId": mid})).await;
        } else if req["alreadySubmitted"] != true {
            match req["type"].as_str().unwrap_or("") {
                "WOLF_KILL" => drop(tool("et.werewolf.match.night.wolf_kill", target).await),
                "SEER_INSPECT" => drop(tool("et.werewolf.match.night.seer_inspect", target).await),
                "DOCTOR_PROTECT" => {
                    drop(tool("et.werewolf.match.night.doctor_protect", target).await)
                }
                "SPEAK_OPENING" => drop(
                    tool(
                        "et.werewolf.match.say_public",
                        json!({"matchId": mid, "text": "Pia here, nothing to hide."}),
                    )
                    .await,
                ),
                "VOTE" => drop(
                    tool(
                        "et.werewolf.match.vote",
                        json!({"matchId": mid, "targetPlayerId": first, "reason": "first on my list"}),
                    )
                    .await,
                ),
                _ => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    // The truth, now that it may be told, from the game world too.
    let (code, report) = api.get(&format!("/werewolf/{mid}/report"), &me.token).await;
    assert_eq!(code, 200, "{report}");
    let roles = roles_of(&report);
    // She sits in the first seat (`post_match_with_bots`).
    let mine = roles
        .iter()
        .find(|(id, _, _)| id == "p1")
        .unwrap_or_else(|| panic!("p1 in {roles:?}"));
    let seat = Some((mine.0.as_str(), mine.2.as_str()));
    let leaks = |seat: Option<(&str, &str)>| -> Vec<String> {
        took.iter()
            .flat_map(|(face, body)| {
                audit(seat, &roles, face, body)
                    .into_iter()
                    .map(move |l| format!("{face}: {l}\n    in {body}"))
            })
            .collect()
    };
    assert!(took.len() > 20, "{} reads", took.len());
    let found = leaks(seat);
    assert!(
        found.is_empty(),
        "Pia ({seat:?}) was shown:\n{}",
        found.join("\n")
    );
    // The control: read as though by the public, what she was shown holds her own card.
    assert!(
        leaks(None).iter().any(|l| l.contains("the role of")),
        "the audit should find her card as the public's"
    );
    a.running.shutdown().await;
}

/// A chess game placed on a game world is the town's to watch and play as one of its own:
/// Eve, on telnet at the table, hears it begin and each move the moment it is stored there,
/// `look` shows it, and its web page its position. The moves she types are handed to the game
/// world and answered from there (a move out of turn is refused here, as its copy shows);
/// a move made with its web page's button is made there too; `GET /sessions` lists it once,
/// and it counts toward the town's limit of running sessions
/// (one, here, where the game world's is fifty). The town and its game world killed (kill
/// -9) and started again rebuild it without telling her again what she heard, and tell her
/// the next move.
#[tokio::test]
async fn a_game_placed_on_a_game_world_is_watched_in_the_town_as_its_own() {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let flags = ["--metrics-token", TOKEN, "--sessions-per-agent", "1"];
    let mut town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let a = host(&broker.url, &town_db).await;
    let mut g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let ann = api.agent(Some("Ann")).await;
    let (mut eve, eve_token, id) = eve_plays_black_against(&api, a.telnet_addr, &ann).await;
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 1"]).await;
    let act = |who: &str, action: &str, tick: u64| {
        let (api, path, token) = (&api, format!("/sessions/{id}/actions"), who.to_owned());
        let body = serde_json::json!({"action": action, "expected_tick": tick});
        async move { api.post(&path, &token, body).await }
    };
    let (status, v) = act(&ann.token, "e2e4", 0).await;
    assert_eq!(status, 200, "{v}");
    eve.expect(&format!("#{id}: Ann (white) plays e4.")).await;
    // Typed here, her move is played there, and she is told so once it is stored.
    eve.send(&format!("move e7e5 on #{id}")).await;
    eve.expect(&format!("You play e5 in game #{id}.")).await;
    let (status, v) = api.get(&format!("/sessions/{id}/state"), &eve_token).await;
    assert_eq!((status, v["tick"].as_u64()), (200, Some(2)), "{v}");
    let line = format!("Game #{id} (chess): Ann (white) vs Eve (black), white to move, move 2.");
    let mut look = Vec::new();
    for _ in 0..100 {
        look = eve.command("look").await;
        if look.iter().any(|l| l.contains(&line)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(look.iter().any(|l| l.contains(&line)), "{look:#?}");
    let refused = eve.command(&format!("move d7d5 on #{id}")).await;
    assert_eq!(refused, [format!("It is not your move in game #{id}.")]);
    // Ann plays one game already, on a game world: the town allows her no second.
    let bob = api.agent(Some("Bob")).await;
    let participants = serde_json::json!({"white": ann.id, "black": bob.id});
    let (status, v) = api
        .post(
            "/sessions",
            &ann.token,
            serde_json::json!({"template": "chess.v1", "participants": participants}),
        )
        .await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("You already take part in 1 running sessions"),
        "{v}"
    );
    // Four games against the computer asked for at once: one is made, however many game
    // worlds there are, and the others are refused as over the limit.
    let cy = api.agent(Some("Cy")).await;
    let asked = (0..4).map(|_| {
        let (http, token) = (a.http_addr, cy.token.clone());
        async move {
            let args = serde_json::json!({"type": "computer", "color": "white", "difficulty": 1});
            crate::support::mcp_tool(http, &token, "createGame", args).await
        }
    });
    let made = futures_util::future::join_all(asked).await;
    let refused: Vec<&serde_json::Value> = made.iter().filter(|r| r["isError"] == true).collect();
    assert_eq!(refused.len(), 3, "{made:#?}");
    assert!(
        refused.iter().all(|r| r["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("running sessions"))),
        "{made:#?}"
    );
    eve.expect("Cy (white) vs Computer (black).").await;
    let page = |path: String| async move {
        let page = reqwest::get(format!("http://{}{path}", a.http_addr))
            .await
            .unwrap();
        (page.status().as_u16(), page.text().await.unwrap())
    };
    let (status, html) = page(format!("/chess/{id}")).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("pppp1ppp/8/4p3/4P3/8/PPPP1PPP"), "{html}");
    // Listed once, though the town holds a copy beside the game world's.
    let (status, list) = api.get("/sessions", &eve_token).await;
    assert_eq!(status, 200, "{list}");
    let ids: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["session_id"].as_str())
        .collect();
    assert_eq!(ids, [id.as_str()], "{list}");

    // The town and the game world both killed and started again, the town first: the game
    // world tells again, from its beginning, the game it runs, and the town rebuilds it from
    // that in silence.
    town.kill().unwrap();
    town.wait().unwrap();
    g1.kill().unwrap();
    g1.wait().unwrap();
    let _town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let mut g1 = games(&broker.url, &g1_db, "g1");
    let mut heard = Vec::new();
    let mut shown = false;
    for _ in 0..200 {
        let (before, look) = eve.command_hearing("look").await;
        heard.extend(before);
        heard.extend(look.iter().cloned());
        if look.iter().any(|l| l.contains(&line)) {
            shown = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(shown, "the game is back in the parlour: {heard:#?}");
    assert!(
        !heard
            .iter()
            .any(|l| l.contains("plays") || l.contains("begins here")),
        "nothing she heard is told again: {heard:#?}"
    );
    let (status, v) = act(&ann.token, "g1f3", 2).await;
    assert_eq!(status, 200, "{v}");
    eve.expect(&format!("#{id}: Ann (white) plays Nf3.")).await;
    let (status, html) = page(format!("/chess/{id}")).await;
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("5N2"), "{html}");
    // Its game world away, what she types for it is not done, and she is told so.
    g1.kill().unwrap();
    g1.wait().unwrap();
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"away\"} 1"]).await;
    eve.send(&format!("move b8c6 on #{id}")).await;
    eve.expect(&format!(
        "The game world that plays #{id} is away: nothing was done."
    ))
    .await;
    // Back, it takes the move she makes with the game's web page, signed in there.
    let _g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let (cookie, csrf) = crate::web::sign_in(a.http_addr, "Eve", "pw-Eve-moot").await;
    let press = |mv: &'static str| {
        let (cookie, csrf, http, id) = (cookie.clone(), csrf.clone(), a.http_addr, id.clone());
        async move {
            let pressed = reqwest::Client::new()
                .post(format!("http://{http}/chess/{id}/move"))
                .header("cookie", &cookie)
                .header("x-csrf-token", &csrf)
                .json(&serde_json::json!({ "move": mv }))
                .send()
                .await
                .unwrap();
            let status = pressed.status().as_u16();
            (status, pressed.text().await.unwrap())
        }
    };
    let (status, answer) = press("b8c6").await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        api.logged(&id, &eve_token).await,
        ["e2e4", "e7e5", "g1f3", "b8c6"]
    );
    // Out of turn: the game world's refusal is the button's.
    let (status, answer) = press("g8f6").await;
    assert_eq!(status, 409, "{answer}");
    assert!(answer.contains("not your move"), "{answer}");
    a.running.shutdown().await;
}

/// A game placed on a game world and not yet moved when the town is killed (the game world
/// stays up) is not told to begin again when its first move comes after the town is back:
/// the game world tells that move from the game's beginning, and the town, which held no copy
/// since it started, takes it for a game begun before then, not for news. The move itself,
/// made since, is news: told, though the copy is rebuilt in silence.
#[tokio::test]
async fn a_game_not_yet_moved_when_the_town_is_killed_does_not_begin_again_at_its_first_move() {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let flags = ["--metrics-token", TOKEN];
    let mut town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let a = host(&broker.url, &town_db).await;
    let _g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let ann = api.agent(Some("Ann")).await;
    let (mut eve, _, id) = eve_plays_black_against(&api, a.telnet_addr, &ann).await;
    town.kill().unwrap();
    town.wait().unwrap();
    // Started again, the town is slow to rebuild its copies: the first move is made, and
    // told, before it has asked for them.
    let late = [("MOOT_TESTING_CATCH_UP_LATE_MS", "2000")];
    let _town = world_process_env(&broker.url, &town_db, "60s", &flags, &late).await;
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let body = serde_json::json!({"action": "e2e4", "expected_tick": 0});
    let (status, v) = api
        .post(&format!("/sessions/{id}/actions"), &ann.token, body)
        .await;
    assert_eq!(status, 200, "{v}");
    let heard = eve.expect(&format!("#{id}: Ann (white) plays e4.")).await;
    assert!(
        !heard.iter().any(|l| l.contains("begins here")),
        "told to begin again: {heard:#?}"
    );
    a.running.shutdown().await;
}

/// A game world that leaves the town's question about a session unanswered (its world busy,
/// its store failing) is asked again while it is alive: the town and the game world both
/// killed and started again, the town holds a game that ended before once more (its page
/// answers), though nothing more will be told of it.
#[tokio::test]
async fn a_copy_its_game_world_did_not_say_at_first_is_asked_for_again() {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let flags = ["--metrics-token", TOKEN];
    let mut town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let a = host(&broker.url, &town_db).await;
    let hold = dirs[1].path().join("leave-one-unanswered");
    let envs = [("MOOT_TESTING_SINCE_UNANSWERED_IF", hold.to_str().unwrap())];
    let mut g1 = games_env(&broker.url, &g1_db, "g1", &[], &envs);
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let (ada, bea) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    let participants = serde_json::json!({ "x": ada.id, "o": bea.id });
    let body = serde_json::json!({ "template": "tictactoe.v1", "participants": participants });
    let (status, v) = api.post("/sessions", &ada.token, body).await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let accept = format!("/sessions/{id}/accept");
    let (status, v) = api.post(&accept, &bea.token, serde_json::json!({})).await;
    assert_eq!(status, 200, "{v}");
    // Ada wins along the top row.
    for (tick, cell) in [0, 3, 1, 4, 2].into_iter().enumerate() {
        let who = if tick % 2 == 0 { &ada } else { &bea };
        let body = serde_json::json!({ "action": cell.to_string(), "expected_tick": tick });
        let (status, v) = api
            .post(&format!("/sessions/{id}/actions"), &who.token, body)
            .await;
        assert_eq!(status, 200, "{v}");
    }
    let page = |tries: u32| {
        let url = format!("http://{}/tictactoe/{id}", a.http_addr);
        async move {
            for _ in 0..tries {
                if reqwest::get(&url).await.unwrap().status() == 200 {
                    return true;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            false
        }
    };
    assert!(page(100).await, "the town holds the game");
    // Both killed: the game world started again tells nothing of a game that has ended, and
    // leaves the town's first question about it unanswered (5 s).
    town.kill().unwrap();
    town.wait().unwrap();
    g1.kill().unwrap();
    g1.wait().unwrap();
    std::fs::write(&hold, "").unwrap();
    let _g1 = games_env(&broker.url, &g1_db, "g1", &[], &envs);
    let _town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    assert!(page(200).await, "the town holds the game again");
    assert!(!hold.exists(), "the game world left a question unanswered");
    a.running.shutdown().await;
}

/// Rated games placed on a game world move the town's ratings, where its leaderboards are
/// kept, each result once: one won while the town runs is counted as it is told; the town
/// killed (kill -9) and started again counts it no second time; one decided on the game world
/// while the town was down (a flag that fell) is counted when the town is back.
#[tokio::test]
async fn rated_games_on_a_game_world_move_the_towns_ratings_each_result_once() {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let flags = ["--metrics-token", TOKEN, "--owner-window", "0s"];
    let mut town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let a = host(&broker.url, &town_db).await;
    // Game time runs ten times the wall's there: a ten-second clock falls in one.
    let _g1 = games_with(&broker.url, &g1_db, "g1", &["--time-scale", "10"]);
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let (ada, bea) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    let game = |moves: &'static [(bool, u8)]| {
        let (api, ada, bea) = (&api, ada.clone(), bea.clone());
        async move {
            let participants = serde_json::json!({ "x": ada.id, "o": bea.id });
            let options = serde_json::json!({ "rated": true, "clock": "10s" });
            let body = serde_json::json!({ "template": "tictactoe.v1", "participants": participants, "options": options });
            let (status, v) = api.post("/sessions", &ada.token, body).await;
            assert_eq!(status, 201, "{v}");
            let id = v["session_id"].as_str().unwrap().to_owned();
            let (status, v) = api
                .post(
                    &format!("/sessions/{id}/accept"),
                    &bea.token,
                    serde_json::json!({}),
                )
                .await;
            assert_eq!(status, 200, "{v}");
            for (tick, (by_ada, cell)) in moves.iter().enumerate() {
                let who = if *by_ada { &ada } else { &bea };
                let body = serde_json::json!({ "action": cell.to_string(), "expected_tick": tick });
                let (status, v) = api
                    .post(&format!("/sessions/{id}/actions"), &who.token, body)
                    .await;
                assert_eq!(status, 200, "{v}");
            }
            id
        }
    };
    // The town's count of `name`'s rated tic-tac-toe games, once it is `want`.
    let games_of = |name: &'static str, want: u64| {
        let api = &api;
        async move {
            let mut v = serde_json::Value::Null;
            for _ in 0..200 {
                let (status, got) = api
                    .send("GET", &format!("/ratings/{name}"), None, None)
                    .await;
                assert_eq!(status, 200, "{got}");
                v = got;
                let games = v["standings"]
                    .as_array()
                    .and_then(|s| {
                        s.iter().find(|s| {
                            s["board"]
                                .as_str()
                                .is_some_and(|b| b.starts_with("tictactoe"))
                        })
                    })
                    .and_then(|s| s["games"].as_u64())
                    .unwrap_or(0);
                if games == want {
                    return v;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            panic!("{name} never had {want} rated games in the town: {v}");
        }
    };
    // Ada wins along the top row.
    let first = game(&[(true, 0), (false, 3), (true, 1), (false, 4), (true, 2)]).await;
    let won = games_of("Ada", 1).await;
    games_of("Bea", 1).await;
    // The town killed and started again: the game is rebuilt, its result not counted again.
    town.kill().unwrap();
    town.wait().unwrap();
    let mut town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let mut page = 0;
    for _ in 0..200 {
        let got = reqwest::get(format!("http://{}/tictactoe/{first}", a.http_addr))
            .await
            .unwrap();
        page = got.status().as_u16();
        if page == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(page, 200, "the town has the game again");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(games_of("Ada", 1).await, won, "counted once");
    // Not even tried twice: the database would refuse a second record of the result.
    let unstored = || metric_lines(a.http_addr, "moot_unstored_total ");
    assert_eq!(unstored().await, ["moot_unstored_total 0"]);
    // A second game, Ada to move when the town goes down: her flag falls on the game world
    // meanwhile, and Bea's win is counted once the town is back.
    game(&[(true, 0), (false, 3), (true, 1), (false, 4)]).await;
    town.kill().unwrap();
    town.wait().unwrap();
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let _town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let bea = games_of("Bea", 2).await;
    games_of("Ada", 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(games_of("Bea", 2).await, bea, "counted once");
    assert_eq!(unstored().await, ["moot_unstored_total 0"]);
    a.running.shutdown().await;
}

/// The chess tools' games are placed as sessions are: a game Robo makes for an opponent with
/// `createGame` goes to a game world (the least loaded), Ann joins it by typing `joinGame` in
/// the town and plays it there by typing, as Robo does with his tools; a game against the
/// computer goes to the other game world, whose house plays it.
#[tokio::test]
async fn the_chess_tools_games_are_placed_and_joined_from_the_town() {
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db, g2_db) = (
        fresh_db(dirs[0].path()),
        fresh_db(dirs[1].path()),
        fresh_db(dirs[2].path()),
    );
    let _town = world_process_with(&broker.url, &town_db, "60s", &["--metrics-token", TOKEN]).await;
    let a = host(&broker.url, &town_db).await;
    let _g1 = games(&broker.url, &g1_db, "g1");
    let _g2 = games(&broker.url, &g2_db, "g2");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 2"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let (robo, cy) = (api.agent(Some("Robo")).await, api.agent(Some("Cy")).await);
    let tool = |who: &crate::support::Agent, name: &'static str, args: serde_json::Value| {
        let (http, token) = (a.http_addr, who.token.clone());
        async move { crate::support::mcp_tool(http, &token, name, args).await }
    };
    let made = tool(
        &robo,
        "createGame",
        serde_json::json!({"type": "agent", "color": "white"}),
    )
    .await;
    let game = made["structuredContent"]["game_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{made}"))
        .to_owned();
    let mut ann = crate::support::player_at(a.telnet_addr, "Ann").await;
    ann.send(&format!("joinGame {game}")).await;
    ann.expect(&format!(
        "You join game #{game} as black: Robo (white) vs Ann (black). White to move."
    ))
    .await;
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 1"]).await;
    let moved = tool(
        &robo,
        "finishTurn",
        serde_json::json!({"game_id": game, "move": "e2e4"}),
    )
    .await;
    assert_ne!(moved["isError"], true, "{moved}");
    ann.expect(&format!("#{game}: Robo (white) plays e4."))
        .await;
    ann.send(&format!("finishTurn {game} e5")).await;
    ann.expect(&format!("You play e5 in game #{game}.")).await;
    let (status, log) = api.get(&format!("/sessions/{game}/log"), &robo.token).await;
    assert_eq!(status, 200, "{log}");
    assert_eq!(api.logged(&game, &robo.token).await, ["e2e4", "e7e5"]);
    // Against the computer: g1 runs one, so the game goes to g2, and its house answers there.
    let made = tool(
        &cy,
        "createGame",
        serde_json::json!({"type": "computer", "color": "white", "difficulty": 1}),
    )
    .await;
    let against = made["structuredContent"]["game_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{made}"))
        .to_owned();
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g2\"} 1"]).await;
    let moved = tool(
        &cy,
        "finishTurn",
        serde_json::json!({"game_id": against, "move": "d2d4"}),
    )
    .await;
    assert_ne!(moved["isError"], true, "{moved}");
    let waited = tool(
        &cy,
        "waitForNextTurn",
        serde_json::json!({"game_id": against}),
    )
    .await;
    assert_eq!(
        waited["structuredContent"]["status"], "your_turn",
        "{waited}"
    );
    assert_eq!(api.logged(&against, &cy.token).await.len(), 2);
    a.running.shutdown().await;
}

/// A player of a Werewolf match placed on a game world, on telnet in the town, types its verbs
/// as for one played in the town: the match's own `say` is handed there as the match's (not
/// the room's there), and the town's `who` shows their idle time as for a match of its own:
/// their public action (`ready`), told to the town, moves it, and a night action typed in the
/// town (`kill p2`), handed there, leaves it alone (it would tell who holds a night role).
#[tokio::test]
async fn a_placed_matchs_verbs_are_its_own_there_and_idle_times_move_only_with_public_actions() {
    use serde_json::json;
    let flags = ["--metrics-token", TOKEN, "--sessions-per-agent", "0"];
    let (_broker, _dirs, _town, a, _g1) = town_and_g1(&flags).await;
    let api = crate::support::Api::new(a.http_addr);
    let vic = api.agent(Some("Vic")).await;
    let tool = |token: &str, name: &'static str, args: serde_json::Value| {
        let (http, token) = (a.http_addr, token.to_owned());
        async move { crate::support::mcp_tool(http, &token, name, args).await }
    };
    // A player at a time, each in a match with the house's bots, until one is dealt a night
    // role (half the seats are; one match at a time each).
    let (mut pia, me, mid, verb) = 'deal: {
        for i in 0..12 {
            let name = format!("Pia{i}");
            let mut pia = crate::support::player_at(a.telnet_addr, &name).await;
            let token = crate::consent::telnet_token(&mut pia).await;
            let me = crate::support::Agent {
                id: token.split('_').nth(1).unwrap().to_owned(),
                token,
                name,
            };
            let (status, made) = crate::werewolf::post_match_with_bots(&api, &me, json!({})).await;
            assert_eq!(status, 201, "{made}");
            let mid = made["session_id"].as_str().unwrap().to_owned();
            let got = tool(
                &me.token,
                "et.werewolf.match.get_state",
                json!({"matchId": mid}),
            )
            .await;
            let verb = match got["structuredContent"]["state"]["you"]["role"].as_str() {
                Some("WEREWOLF") => "kill",
                Some("SEER") => "inspect",
                Some("DOCTOR") => "protect",
                Some(_) => continue,
                None => panic!("{got}"),
            };
            break 'deal (pia, me, mid, verb);
        }
        panic!("twelve deals without a night role");
    };
    let idle = || async {
        let who = tool(&vic.token, "who", json!({})).await;
        who["structuredContent"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == me.name.as_str())
            .unwrap_or_else(|| panic!("{} in {who}", me.name))["idle_seconds"]
            .as_u64()
            .unwrap()
    };
    let state = || async {
        let got = tool(
            &me.token,
            "et.werewolf.match.get_state",
            json!({"matchId": mid}),
        )
        .await;
        got["structuredContent"]["state"].clone()
    };
    // Her `say`, typed here, is the match's `say` there too (never the room's, on the game
    // world): in the lobby it is not her time to speak.
    pia.send("say Hello, all.").await;
    let told = pia.expect("You can speak to the match only during").await;
    assert!(!told.iter().any(|l| l.starts_with("You say,")), "{told:#?}");
    // Her `ready` is public: told to the town, it moves her idle time.
    tokio::time::sleep(Duration::from_millis(2200)).await;
    assert!(idle().await >= 2);
    tool(
        &me.token,
        "et.werewolf.match.ready",
        json!({"matchId": mid}),
    )
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let brief = loop {
        let st = state().await;
        if st["phase"] == "NIGHT" {
            break st["you"]["requiredAction"].clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "{st}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(idle().await < 2, "her ready was told to the town");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let before = idle().await;
    assert!(before >= 2, "{before}");
    let target = brief["allowedTargets"][0].as_str().unwrap().to_owned();
    pia.send(&format!("{verb} {target}")).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while state().await["you"]["requiredAction"]["alreadySubmitted"] != true {
        assert!(
            tokio::time::Instant::now() < deadline,
            "her night action was not taken: {:?}",
            pia.command_hearing("look").await.0
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let after = idle().await;
    assert!(after >= before, "idle {before} s before, {after} s after");
    a.running.shutdown().await;
}

/// The matches the town seats itself go to its game worlds too: a practice match and the
/// notice board's match are answered at once in the town (their number, the seat, the
/// building off the Town Hall), made on the game world under that number and played there,
/// and each player is told their card from the town's copy. A player in one (placed, not yet
/// made or made) starts no other. With no game world alive, the town makes them itself.
#[tokio::test]
async fn werewolf_practice_and_the_notice_boards_matches_are_placed_on_a_game_world() {
    use crate::support::mcp_tool;
    use serde_json::json;
    let (_broker, _dirs, _town, a, mut g1) = town_and_g1(&["--metrics-token", TOKEN]).await;
    let api = crate::support::Api::new(a.http_addr);
    let tool = |who: &crate::support::Agent, name: &'static str, args: serde_json::Value| {
        let (http, token) = (a.http_addr, who.token.clone());
        async move { mcp_tool(http, &token, name, args).await }
    };
    let pia = api.agent(Some("Pia")).await;
    let started = tool(&pia, "et.werewolf.practice.start", json!({})).await;
    let assigned = &started["structuredContent"]["matchAssignment"];
    assert_eq!(assigned["seat"], 1, "{started}");
    let mid = assigned["matchId"].as_str().expect("a match").to_owned();
    assert_eq!(
        assigned["buildingInstanceId"],
        format!("werewolf_game_{mid}"),
        "{started}"
    );
    // Her next call, at once, goes where the match is made, once it is: she is ready there.
    let ready = tool(&pia, "et.werewolf.match.ready", json!({"matchId": mid})).await;
    assert_ne!(ready["isError"], true, "{ready}");
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 1"]).await;
    // The town's copy tells her her card, as a match of its own would.
    let mut told = serde_json::Value::Null;
    for _ in 0..100 {
        told = tool(&pia, "events", json!({})).await;
        if told.to_string().contains("[Town Crier] You are ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(told.to_string().contains("[Town Crier] You are "), "{told}");
    // Played there, and the state (from g1) says so: the seven bots were ready: with her, the lobby is over.
    let mut state = serde_json::Value::Null;
    for _ in 0..100 {
        state = tool(&pia, "et.werewolf.match.get_state", json!({"matchId": mid})).await;
        if state["structuredContent"]["state"]["phase"] != "LOBBY" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let phase = &state["structuredContent"]["state"]["phase"];
    assert!(phase.is_string() && phase != "LOBBY", "{state}");
    // One match at a time: another practice, or the board, is refused while she plays.
    let again = tool(&pia, "et.werewolf.practice.start", json!({})).await;
    assert_eq!(again["isError"], true, "{again}");
    assert!(
        again
            .to_string()
            .contains(&format!("You are playing in match {mid}")),
        "{again}"
    );
    // Eight sign the notice board: the eighth's answer names the match, made on g1.
    let mut signers = Vec::new();
    for i in 0..8 {
        signers.push(api.agent(Some(&format!("Signer{i}"))).await);
    }
    let mut board = serde_json::Value::Null;
    for s in &signers {
        board = tool(s, "et.werewolf.queue.join", json!({})).await;
    }
    let matched = &board["structuredContent"]["matchAssignment"];
    assert_eq!(matched["seat"], 8, "{board}");
    let board_mid = matched["matchId"].as_str().expect("a match").to_owned();
    assert_ne!(board_mid, mid);
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 2"]).await;
    let status = tool(&signers[0], "et.werewolf.queue.status", json!({})).await;
    assert_eq!(
        status["structuredContent"]["queue"]["status"], "MATCHED",
        "{status}"
    );
    assert_eq!(
        status["structuredContent"]["matchAssignment"]["matchId"], board_mid,
        "{status}"
    );
    let (code, listed) = api.get("/sessions", &signers[3].token).await;
    assert_eq!(code, 200, "{listed}");
    assert!(listed.to_string().contains(&board_mid), "{listed}");
    // On telnet too: Tom's practice is g1's third, and what he types for it is done there.
    let mut tom = crate::support::player_at(a.telnet_addr, "Tom").await;
    tom.send("werewolf practice").await;
    tom.expect("you and seven house bots").await;
    tom.send("ready").await;
    tom.expect("Everyone is ready").await;
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 3"]).await;
    // g1 gone (kill -9), the town makes the next itself, and it is played there.
    let _ = g1.kill();
    let _ = g1.wait();
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"away\"} 1"]).await;
    // (The town looks whether one is alive four times a second.)
    tokio::time::sleep(Duration::from_millis(600)).await;
    let zed = api.agent(Some("Zed")).await;
    let started = tool(&zed, "et.werewolf.practice.start", json!({})).await;
    let zmid = started["structuredContent"]["matchAssignment"]["matchId"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_owned();
    // Made as it was answered: played at once.
    let ready = tool(&zed, "et.werewolf.match.ready", json!({"matchId": zmid})).await;
    assert_ne!(ready["isError"], true, "{ready}");
    a.running.shutdown().await;
}

/// A match the town seated is not lost when its game world does not answer and the town is
/// killed meanwhile: the practice is answered at once (its number), the game world chosen is
/// stopped (SIGSTOP) so it makes nothing yet, the town is killed (kill -9) and started again,
/// and once the game world goes on the match is made there, once, under the number she was
/// given, and she plays it.
#[tokio::test]
async fn a_seated_match_not_yet_made_when_the_town_is_killed_is_made_once_it_is_back() {
    use crate::support::mcp_tool;
    use serde_json::json;
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let flags = ["--metrics-token", TOKEN, "--sessions-per-agent", "1"];
    let mut town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    let a = host(&broker.url, &town_db).await;
    let g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let pia = api.agent(Some("Pia")).await;
    let tool = |name: &'static str, args: serde_json::Value| {
        let (http, token) = (a.http_addr, pia.token.clone());
        async move { mcp_tool(http, &token, name, args).await }
    };
    // Stopped, g1 is still alive to the town for a moment (its last beat is recent), and is
    // chosen; it answers nothing.
    signal(&g1, "-STOP");
    let started = tool("et.werewolf.practice.start", json!({})).await;
    let mid = started["structuredContent"]["matchAssignment"]["matchId"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_owned();
    // Not yet made, it counts toward her running sessions already (one, in this town).
    let (status, v) = api
        .post(
            "/sessions",
            &pia.token,
            json!({"template": "tictactoe.v1", "participants": {"x": pia.id, "o": "computer"}}),
        )
        .await;
    assert_eq!(status, 409, "{v}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    town.kill().unwrap();
    town.wait().unwrap();
    let _town = world_process_with(&broker.url, &town_db, "60s", &flags).await;
    signal(&g1, "-CONT");
    until_metrics_show(
        a.http_addr,
        &[
            "moot_game_worlds{state=\"alive\"} 1",
            "moot_game_world_sessions{name=\"g1\"} 1",
        ],
    )
    .await;
    // Hers, under the number she was given, played there.
    let mut ready = serde_json::Value::Null;
    for _ in 0..100 {
        ready = tool("et.werewolf.match.ready", json!({"matchId": mid})).await;
        if ready["isError"] != true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_ne!(ready["isError"], true, "{ready}");
    let state = tool("et.werewolf.match.get_state", json!({"matchId": mid})).await;
    assert_eq!(
        state["structuredContent"]["state"]["you"]["playerId"], "p1",
        "{state}"
    );
    // Made once: a few beats on, g1 runs the one match.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let lines = game_lines(a.http_addr).await;
    assert!(
        lines
            .iter()
            .any(|l| l == "moot_game_world_sessions{name=\"g1\"} 1"),
        "{lines:?}"
    );
    a.running.shutdown().await;
}

/// A practice match the town seated keeps its player from a second match made on a game
/// world, while it waits for its game world (stopped here) and once it is made there: one at
/// a time, whichever way each was asked for.
#[tokio::test]
async fn a_seated_match_keeps_its_player_from_another_while_it_waits_and_once_it_is_made() {
    use serde_json::json;
    let (_broker, _dirs, _town, a, g1) = town_and_g1(&["--metrics-token", TOKEN]).await;
    let api = crate::support::Api::new(a.http_addr);
    let pia = api.agent(Some("Pia")).await;
    // Stopped, g1 is still alive to the town for a moment, and is chosen; it answers nothing.
    signal(&g1, "-STOP");
    let started = crate::support::mcp_tool(
        a.http_addr,
        &pia.token,
        "et.werewolf.practice.start",
        json!({}),
    )
    .await;
    assert_ne!(started["isError"], true, "{started}");
    let refused = |v: &serde_json::Value| {
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("You are playing in match"))
    };
    let (status, v) = crate::werewolf::post_match_with_bots(&api, &pia, json!({})).await;
    assert_eq!(status, 409, "{v}");
    assert!(refused(&v), "{v}");
    signal(&g1, "-CONT");
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 1"]).await;
    let (status, v) = crate::werewolf::post_match_with_bots(&api, &pia, json!({})).await;
    assert_eq!(status, 409, "{v}");
    assert!(refused(&v), "{v}");
    // The other way round: a match asked for over REST, on its way to g1 (stopped again),
    // keeps Quin from practising meanwhile, and once it is made.
    let quin = api.agent(Some("Quin")).await;
    signal(&g1, "-STOP");
    let asked = {
        let (api, quin) = (api.clone(), quin.clone());
        tokio::spawn(
            async move { crate::werewolf::post_match_with_bots(&api, &quin, json!({})).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let meanwhile = practice(a.http_addr, &quin).await;
    signal(&g1, "-CONT");
    let text = |v: &serde_json::Value| v["content"][0]["text"].as_str().unwrap_or("").to_owned();
    assert_eq!(meanwhile["isError"], true, "{meanwhile}");
    assert!(
        text(&meanwhile).contains("You are starting a match already"),
        "{meanwhile}"
    );
    let (status, v) = asked.await.unwrap();
    assert_eq!(status, 201, "{v}");
    let after = practice(a.http_addr, &quin).await;
    assert_eq!(after["isError"], true, "{after}");
    assert!(text(&after).contains("You are playing in match"), "{after}");
    // On the notice board, one whose match is on its way to g1 (stopped again) is not seated
    // at the eighth signature of others, and stays on the board while it may yet be refused.
    let rex = api.agent(Some("Rex")).await;
    let joined = crate::werewolf::sign_board(a.http_addr, &rex).await;
    assert_ne!(joined["isError"], true, "{joined}");
    signal(&g1, "-STOP");
    let asked = {
        let (api, rex) = (api.clone(), rex.clone());
        tokio::spawn(
            async move { crate::werewolf::post_match_with_bots(&api, &rex, json!({})).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    for i in 0..8 {
        let who = api.agent(Some(&format!("Signer{i}"))).await;
        let joined = crate::werewolf::sign_board(a.http_addr, &who).await;
        let queue = &joined["structuredContent"]["queue"];
        if i < 7 {
            assert_eq!(queue["status"], "WAITING", "{joined}");
            assert_eq!(queue["size"], i + 2, "{joined}");
        } else {
            assert_eq!(queue["status"], "MATCHED", "{joined}");
            assert_eq!(queue["size"], 1, "{joined}");
        }
    }
    signal(&g1, "-CONT");
    let (status, v) = asked.await.unwrap();
    assert_eq!(status, 201, "{v}");
    a.running.shutdown().await;
}

/// A match asked for over MCP whose client leaves while it is on its way to a game world
/// still counts as its maker's one match: the game world may make it yet, so the town does
/// not let go of it when the call is taken back, only once it is made (or refused) there.
#[tokio::test]
async fn a_match_whose_maker_leaves_on_its_way_keeps_them_from_another_until_it_is_made() {
    use serde_json::json;
    let (_broker, _dirs, _town, a, g1) = town_and_g1(&["--metrics-token", TOKEN]).await;
    let api = crate::support::Api::new(a.http_addr);
    let quin = api.agent(Some("Quin")).await;
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), json!(quin.id));
    for (i, b) in crate::werewolf::BOTS.iter().enumerate() {
        participants.insert(format!("p{}", i + 2), json!(b));
    }
    let args = json!({
        "template": "werewolf.v1",
        "participants": participants,
        "options": {"bots": [2, 3, 4, 5, 6, 7, 8]},
    });
    // Stopped, g1 is still alive to the town for a moment, and is chosen; it answers nothing.
    signal(&g1, "-STOP");
    let asked = {
        let (http, token) = (a.http_addr, quin.token.clone());
        tokio::spawn(
            async move { crate::support::mcp_tool(http, &token, "session_create", args).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!asked.is_finished(), "the match waits for g1");
    // Its client leaves: the host takes the call back from the world.
    asked.abort();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let text = |v: &serde_json::Value| v["content"][0]["text"].as_str().unwrap_or("").to_owned();
    let meanwhile = practice(a.http_addr, &quin).await;
    assert_eq!(meanwhile["isError"], true, "{meanwhile}");
    assert!(
        text(&meanwhile).contains("You are starting a match already"),
        "{meanwhile}"
    );
    signal(&g1, "-CONT");
    // Made on g1 all the same (nothing took it back there), it is the one match Quin plays.
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 1"]).await;
    let after = practice(a.http_addr, &quin).await;
    assert_eq!(after["isError"], true, "{after}");
    assert!(text(&after).contains("You are playing in match"), "{after}");
    a.running.shutdown().await;
}

/// A chess game two people agree to in the town (a challenge typed at the table, accepted)
/// begins on a game world: the accepting answer names it at once, it is made there, and what
/// each types for it is done there and heard here.
#[tokio::test]
async fn a_challenge_accepted_in_the_town_is_played_on_a_game_world() {
    // The town tells each answer a game world gives late, as a busy town might: the game
    // world's word of the computer's reply comes first, and waits for it.
    let late = [("MOOT_TESTING_ANSWER_LATE_MS", "300")];
    let (_broker, _dirs, _town, a, _g1) = town_and_g1_env(&["--metrics-token", TOKEN], &late).await;
    let mut ann = crate::support::player_at(a.telnet_addr, "Ann").await;
    let mut bob = crate::support::player_at(a.telnet_addr, "Bob").await;
    for p in [&mut ann, &mut bob] {
        p.send("east").await;
        p.expect("Exits:").await;
    }
    ann.send("challenge Bob as white").await;
    ann.expect("You challenge Bob").await;
    bob.expect("challenges you to a game of chess").await;
    bob.send("accept Ann").await;
    let accepted = bob.expect("You accept Ann's challenge: game #").await;
    let line = accepted
        .iter()
        .find(|l| l.contains("You accept Ann's challenge"))
        .unwrap();
    assert!(line.contains("you play black"), "{line}");
    let id: String = line
        .split('#')
        .nth(1)
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 1"]).await;
    ann.expect(&format!("#{id}: a new chess game")).await;
    ann.send(&format!("move e2e4 on #{id}")).await;
    ann.expect(&format!("You play e4 in game #{id}.")).await;
    bob.expect(&format!("#{id}: Ann (white) plays e4.")).await;
    bob.send(&format!("move e7e5 on #{id}")).await;
    bob.expect(&format!("You play e5 in game #{id}.")).await;
    // A game against the computer, begun at once, is played there too: its engine's moves
    // are the game world's, heard here.
    ann.send("challenge computer as white level 1").await;
    let sat = ann.expect("You sit down to play the computer").await;
    let line = sat
        .iter()
        .find(|l| l.contains("You sit down to play the computer"))
        .unwrap();
    let game: String = line
        .rsplit('#')
        .next()
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    until_metrics_show(a.http_addr, &["moot_game_world_sessions{name=\"g1\"} 2"]).await;
    // Whoever moved hears their own answer first, then the computer's reply.
    ann.send(&format!("move e2e4 on #{game}")).await;
    let answered = ann.expect(&format!("You play e4 in game #{game}.")).await;
    assert!(
        !answered
            .iter()
            .any(|l| l.contains("Computer (black) plays")),
        "{answered:?}"
    );
    ann.expect(&format!("#{game}: Computer (black) plays"))
        .await;
    a.running.shutdown().await;
}

/// A match a world process answered and stored, left waiting for its game world (stopped,
/// SIGSTOP) when the town was killed, is made by the town started again as one process (no
/// broker, no game world): under her number, and she plays it.
#[tokio::test]
async fn a_match_left_waiting_is_made_by_the_town_started_as_one_process() {
    use crate::support::mcp_tool;
    use serde_json::json;
    let broker = Broker::start().await;
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
    let (town_db, g1_db) = (fresh_db(dirs[0].path()), fresh_db(dirs[1].path()));
    let mut town =
        world_process_with(&broker.url, &town_db, "60s", &["--metrics-token", TOKEN]).await;
    let a = host(&broker.url, &town_db).await;
    let mut g1 = games(&broker.url, &g1_db, "g1");
    until_metrics_show(a.http_addr, &["moot_game_worlds{state=\"alive\"} 1"]).await;
    let api = crate::support::Api::new(a.http_addr);
    let pia = api.agent(Some("Pia")).await;
    let stopped = Command::new("kill")
        .args(["-STOP", &g1.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let started = mcp_tool(
        a.http_addr,
        &pia.token,
        "et.werewolf.practice.start",
        json!({}),
    )
    .await;
    let mid = started["structuredContent"]["matchAssignment"]["matchId"]
        .as_str()
        .unwrap_or_else(|| panic!("{started}"))
        .to_owned();
    tokio::time::sleep(Duration::from_millis(300)).await;
    town.kill().unwrap();
    town.wait().unwrap();
    g1.kill().unwrap();
    g1.wait().unwrap();
    a.running.shutdown().await;
    let one = crate::support::TestServer::on_db(&town_db, |_| {}).await;
    let ready = mcp_tool(
        one.http,
        &pia.token,
        "et.werewolf.match.ready",
        json!({"matchId": mid}),
    )
    .await;
    assert_ne!(ready["isError"], true, "{ready}");
    let state = mcp_tool(
        one.http,
        &pia.token,
        "et.werewolf.match.get_state",
        json!({"matchId": mid}),
    )
    .await;
    assert_eq!(
        state["structuredContent"]["state"]["you"]["playerId"], "p1",
        "{state}"
    );
    one.stop().await;
}

/// An operator who stops the broker before the town's processes (or has lost it) sees each of
/// them stop when told: none waits for ever on a broker that is gone to say its goodbyes
/// through it (the world did, until its supervisor killed it).
#[tokio::test]
async fn a_town_whose_broker_is_gone_still_stops_when_told() {
    let (broker, _dirs, town, a, g1) = town_and_g1(&["--metrics-token", TOKEN]).await;
    let (host, _) = crate::hosts::host_process(&broker.url).await;
    drop(broker);
    // Each has missed it by now, and its client is trying to reach it again.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let told = std::time::Instant::now();
    for process in [&town, &g1, &host] {
        signal(process, "-TERM");
    }
    let within = Duration::from_secs(20);
    assert!(
        tokio::time::timeout(within, a.running.shutdown())
            .await
            .is_ok(),
        "the host in this process did not stop"
    );
    for (name, mut process) in [
        ("the world", town),
        ("game world g1", g1),
        ("the host", host),
    ] {
        let status = loop {
            if let Some(status) = process.try_wait().unwrap() {
                break status;
            }
            assert!(told.elapsed() < within, "{name} did not stop");
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert!(status.success(), "{name} stopped with {status}");
    }
}
