//! The world never runs ahead of the database, and nobody learns what the rules hide: ids are
//! canonical on every face, a write the database refuses is not in the world and is heard of by
//! nobody, a database from a newer moot is refused, and the log hides what the state hides.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Api, Client, TestServer, config, free_port, mcp_tool, spawn_moot};

pub(crate) fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// A telnet character made on a server we only know by address.
pub(crate) async fn person(telnet: SocketAddr, name: &str) -> Client {
    let mut c = Client::connect(telnet).await;
    c.send(&format!("create {name} pw-{name}-moot")).await;
    c.expect("*** Created ***").await;
    c.expect("$#$xmcp version: 1.1").await;
    c
}

fn tool_text(r: &Value) -> String {
    r["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn kill(child: &mut crate::support::Moot) {
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
}

#[tokio::test]
async fn non_canonical_session_ids_change_nothing_on_any_face_and_restarts_still_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let http: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let telnet: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let args = ["--telnet", &telnet.to_string()].map(str::to_owned);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = spawn_moot(&db, http, &args).await;
    let api = Api::new(http);
    let a = api.agent(Some("Ada")).await;
    let b = api.agent(Some("Bea")).await;
    let one = api
        .session(&a, "rps.v1", &[("player_1", &a), ("player_2", &b)])
        .await;
    assert_eq!(one, "1");

    // REST: every other spelling of 1 names no session.
    for bad in ["01", "%2B1", "%201", "1.0", "1%20", "0x1", "1e0", "00001"] {
        let (status, v) = api
            .post(
                &format!("/sessions/{bad}/actions"),
                &a.token,
                json!({"action": "rock"}),
            )
            .await;
        assert_eq!((status, code(&v)), (404, "NOT_FOUND"), "{bad}: {v}");
        let (status, _) = api.get(&format!("/sessions/{bad}/state"), &a.token).await;
        assert_eq!(status, 404, "{bad}");
    }
    // MCP.
    for bad in ["+1", "01", " 1"] {
        let r = mcp_tool(
            http,
            &a.token,
            "session_act",
            json!({"session_id": bad, "action": "rock"}),
        )
        .await;
        assert_eq!(r["isError"], true, "{bad}: {r}");
        assert!(tool_text(&r).contains("No session"), "{bad}: {r}");
    }
    // Telnet: a person plays session 2 against Bea.
    let mut tess = person(telnet, "Tess").await;
    let started = tess
        .command("session_create rps.v1 player_1=Tess player_2=Bea")
        .await;
    assert!(
        started.iter().any(|l| l.contains("Session 2")),
        "{started:?}"
    );
    let (status, v) = api.post("/sessions/2/accept", &b.token, json!({})).await;
    assert_eq!(status, 200, "Bea agrees to play: {v}");
    for bad in ["02", "+2", "2.0"] {
        let out = tess.command(&format!("session_act {bad} rock")).await;
        assert!(
            // A person reads the host's refusal as a sentence, REST's seed words aside.
            out.iter().any(|l| l == &format!("No session {bad}.")),
            "{bad}: {out:?}"
        );
    }
    // Nothing happened anywhere.
    for sid in ["1", "2"] {
        let (_, v) = api.get(&format!("/sessions/{sid}/state"), &b.token).await;
        assert_eq!(v["tick"], 0, "session {sid}: {v}");
        let (_, log) = api.get(&format!("/sessions/{sid}/log"), &b.token).await;
        assert_eq!(log["actions"], json!([]), "session {sid}");
    }
    // The canonical ids work, on each face.
    let (status, v) = api
        .post("/sessions/1/actions", &a.token, json!({"action": "rock"}))
        .await;
    assert_eq!(status, 200, "{v}");
    let out = tess.command("session_act 2 paper").await;
    assert!(out.iter().any(|l| l.contains("Done: tick 1")), "{out:?}");
    let r = mcp_tool(
        http,
        &b.token,
        "session_act",
        json!({"session_id": "2", "action": "rock"}),
    )
    .await;
    assert_eq!(r["isError"], false, "{r}");

    // kill -9, and the town starts again: every log replays to its stored state.
    kill(&mut child);
    let mut child = spawn_moot(&db, http, &args).await;
    for (sid, ticks) in [("1", 1), ("2", 2)] {
        let (status, v) = api.get(&format!("/sessions/{sid}/state"), &b.token).await;
        assert_eq!((status, v["tick"].clone()), (200, json!(ticks)), "{v}");
        let (_, log) = api.get(&format!("/sessions/{sid}/log"), &b.token).await;
        assert_eq!(log["actions"].as_array().unwrap().len(), ticks);
    }
    kill(&mut child);
}

/// A chess game between two API agents with a telnet person watching; returns the session id.
pub(crate) async fn watched_game(
    api: &Api,
    telnet: SocketAddr,
) -> (crate::support::Agent, crate::support::Agent, String, Client) {
    let w = api.agent(Some("White")).await;
    let b = api.agent(Some("Black")).await;
    let sid = api
        .session(&w, "chess.v1", &[("white", &w), ("black", &b)])
        .await;
    let mut pia = person(telnet, "Pia").await;
    pia.send(&format!("watch #{sid}")).await;
    pia.expect("You are watching game").await;
    (w, b, sid, pia)
}

pub(crate) async fn play(
    api: &Api,
    who: &crate::support::Agent,
    sid: &str,
    mv: &str,
    tick: u64,
) -> (u16, Value) {
    api.post(
        &format!("/sessions/{sid}/actions"),
        &who.token,
        json!({"action": mv, "expected_tick": tick}),
    )
    .await
}

#[tokio::test]
async fn a_move_the_database_cannot_store_is_refused_and_heard_of_by_nobody() {
    // SQLite's outage: another process holds its write lock (PostgreSQL's, stopping the
    // server, is in the `postgres` module).
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::sqlite_db(dir.path());
    let http: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let telnet: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let args = [
        "--telnet",
        &telnet.to_string(),
        "--db-busy-timeout",
        "100ms",
    ]
    .map(str::to_owned);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = spawn_moot(&db, http, &args).await;
    let api = Api::new(http);
    let (w, b, sid, mut pia) = watched_game(&api, telnet).await;
    // Both agents come into the town (Pia hears them arrive) with empty mailboxes.
    mcp_tool(http, &w.token, "events", json!({})).await;
    mcp_tool(http, &b.token, "events", json!({})).await;
    assert_eq!(play(&api, &w, &sid, "e2e4", 0).await.0, 200);
    pia.expect("plays e4").await;
    // The rest of the board she is shown; White's news of his own move.
    while let Ok(Some(_)) = pia.line_within(Duration::from_millis(300)).await {}
    mcp_tool(http, &w.token, "events", json!({})).await;

    // Another process takes the database's write lock and keeps it.
    let lock = rusqlite::Connection::open(db.sqlite_path().unwrap()).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let (status, v) = play(&api, &b, &sid, "e7e5", 1).await;
    assert_eq!((status, code(&v)), (503, "STORAGE_UNAVAILABLE"), "{v}");
    let message = v["error"]["message"].as_str().unwrap().to_lowercase();
    assert!(message.contains("try again"), "{message}");
    for leak in ["sqlite", "database is locked", "busy"] {
        assert!(
            !message.contains(leak),
            "the 503 shows SQLite's words: {message}"
        );
    }
    // The same refusal through MCP, as black's finishTurn... through session_act.
    let r = mcp_tool(
        http,
        &b.token,
        "session_act",
        json!({"session_id": sid, "action": "e7e5", "expected_tick": 1}),
    )
    .await;
    assert!(
        r.to_string().contains("could not store"),
        "MCP says the move did not happen: {r}"
    );
    // Nothing changed, and nobody heard of it.
    let (_, state) = api.get(&format!("/sessions/{sid}/state"), &w.token).await;
    assert_eq!(state["tick"], 1, "{state}");
    pia.silent_for(Duration::from_millis(300)).await;
    let events = mcp_tool(http, &w.token, "events", json!({})).await;
    assert!(!events.to_string().contains("e5"), "{events}");

    // The lock goes; the same move now works, without a restart, and everyone hears it.
    lock.execute_batch("COMMIT").unwrap();
    drop(lock);
    let (status, v) = play(&api, &b, &sid, "e7e5", 1).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["tick"], 2);
    pia.expect("plays e5").await;
    assert_eq!(play(&api, &w, &sid, "g1f3", 2).await.0, 200);

    // kill -9: the log and the state agree after the restart.
    kill(&mut child);
    let mut child = spawn_moot(&db, http, &args).await;
    let (_, log) = api.get(&format!("/sessions/{sid}/log"), &w.token).await;
    let moves: Vec<&str> = log["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["e2e4", "e7e5", "g1f3"]);
    let (_, state) = api.get(&format!("/sessions/{sid}/state"), &w.token).await;
    assert_eq!(state["tick"], 3);
    kill(&mut child);
}

/// The login screen's `who` is a reader like any other: it must not show a walk that is not
/// stored yet (nor one that never will be).
#[tokio::test]
async fn the_login_screens_who_never_shows_a_walk_before_it_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::sqlite_db(dir.path());
    let s = TestServer::on_db(&db, |c| {
        c.db_busy_timeout = Duration::from_millis(1500).into();
    })
    .await;
    let mut ann = s.player("Ann").await;
    // Another process takes the database's write lock, so Ann's walk cannot be stored.
    let lock = rusqlite::Connection::open(db.sqlite_path().unwrap()).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    ann.send("north").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Someone at the login screen asks who is on while the walk waits for the database.
    let mut guest = s.client().await;
    guest.send("who").await;
    let table = guest.expect("Total: 1 player connected.").await;
    let row = table
        .iter()
        .find(|l| l.starts_with("Ann "))
        .unwrap_or_else(|| panic!("Ann is listed: {table:?}"));
    assert!(
        row.ends_with("Town Square"),
        "who showed a walk that was never stored: {row}"
    );
    let answer = ann.expect("please try again").await;
    assert!(
        !answer.iter().any(|l| l.contains("Town Hall")),
        "{answer:?}"
    );
    lock.execute_batch("COMMIT").unwrap();
    // Once the database takes writes again, the walk is stored and then shown.
    ann.send("north").await;
    ann.expect("Town Hall").await;
    guest.send("who").await;
    let table = guest.expect("Total: 1 player connected.").await;
    assert!(
        table
            .iter()
            .any(|l| l.starts_with("Ann ") && l.ends_with("Town Hall")),
        "{table:?}"
    );
    s.stop().await;
}

#[tokio::test]
async fn moot_stops_when_the_database_refuses_every_write_for_too_long() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::sqlite_db(dir.path());
    let http: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let args = ["--db-busy-timeout", "50ms", "--storage-give-up", "500ms"];
    let mut child = spawn_moot(&db, http, &args).await;
    let api = Api::new(http);
    let (w, b) = (api.agent(None).await, api.agent(None).await);
    let sid = api
        .session(&w, "chess.v1", &[("white", &w), ("black", &b)])
        .await;
    let lock = rusqlite::Connection::open(db.sqlite_path().unwrap()).unwrap();
    lock.execute_batch("BEGIN IMMEDIATE").unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "moot kept serving a world it could not store"
        );
        let body = json!({"action": "e2e4", "expected_tick": 0}).to_string();
        if let Some((status, v)) = api
            .try_send(
                "POST",
                &format!("/sessions/{sid}/actions"),
                Some(&w.token),
                Some(&body),
            )
            .await
        {
            assert_ne!(status, 200, "nothing can be stored: {v}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        !status.success(),
        "moot says it stopped on a failure: {status}"
    );
    drop(lock);
    // Nothing was stored, and the town starts again from what was.
    let mut child = spawn_moot(&db, http, &[]).await;
    let (_, state) = api.get(&format!("/sessions/{sid}/state"), &w.token).await;
    assert_eq!(state["tick"], 0, "{state}");
    kill(&mut child);
}

#[tokio::test]
async fn a_database_from_a_newer_moot_is_refused_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    // A moot of today makes the database; a "newer" one moves its schema on.
    TestServer::on_db(&db, |_| {}).await.stop().await;
    let (set, get) = match db.engine() {
        moot::store::Engine::Sqlite => ("PRAGMA user_version = 99", "PRAGMA user_version"),
        moot::store::Engine::Postgres => (
            "UPDATE moot_schema SET version = 99",
            "SELECT version FROM moot_schema",
        ),
    };
    crate::support::sql_exec(&db, set).unwrap();
    let Err(e) = moot::start(config(&db)).await else {
        panic!("moot started on a database from the future");
    };
    let e = e.to_string();
    assert!(
        e.contains("schema version 99") && e.contains("newer moot"),
        "{e}"
    );
    // And nothing touched it.
    assert_eq!(crate::support::sql_rows(&db, get), [["99"]]);
}

#[tokio::test]
async fn rps_hides_a_choice_from_the_other_on_every_face_until_the_reveal() {
    let s = TestServer::start().await;
    let api = s.api();
    let (one, two) = (api.agent(Some("Uno")).await, api.agent(Some("Dos")).await);
    let sid = api
        .session(&one, "rps.v1", &[("player_1", &one), ("player_2", &two)])
        .await;
    let act = |who: &crate::support::Agent, what: &str| {
        let (api, sid, token, what) =
            (api.clone(), sid.clone(), who.token.clone(), what.to_owned());
        async move {
            api.post(
                &format!("/sessions/{sid}/actions"),
                &token,
                json!({"action": what}),
            )
            .await
        }
    };
    assert_eq!(act(&one, "rock").await.0, 200);
    assert_eq!(stored_state(&s.db, &sid)["choices"]["player_1"], "rock");
    // player_2 reads the log: REST, and MCP's text and structuredContent.
    let (_, log) = api.get(&format!("/sessions/{sid}/log"), &two.token).await;
    assert_eq!(log["actions"][0]["action"], "hidden", "{log}");
    assert!(!log.to_string().contains("rock"), "{log}");
    let r = mcp_tool(
        s.http,
        &two.token,
        "session_log",
        json!({"session_id": sid}),
    )
    .await;
    assert!(!r.to_string().contains("rock"), "{r}");
    assert_eq!(r["structuredContent"]["actions"][0]["action"], "hidden");
    // Nor do the state, the same tools' text, or the news.
    let (_, state) = api.get(&format!("/sessions/{sid}/state"), &two.token).await;
    assert_eq!(
        state["state"]["choices"]["player_1"],
        Value::Null,
        "{state}"
    );
    for tool in ["session_state", "session_log"] {
        let r = mcp_tool(s.http, &two.token, tool, json!({"session_id": sid})).await;
        let shown = r["structuredContent"].to_string();
        let shown = shown.replace("\"legal_actions\":[\"rock\",\"paper\",\"scissors\"]", "");
        assert!(!shown.contains("rock"), "{tool}: {r}");
        let text = tool_text(&r).replace("Your legal actions: rock paper scissors", "");
        assert!(!text.contains("rock"), "{tool}: {text}");
    }
    let events = mcp_tool(s.http, &two.token, "events", json!({})).await;
    assert!(!events.to_string().contains("rock"), "{events}");
    // The chooser sees their own choice.
    let (_, mine) = api.get(&format!("/sessions/{sid}/log"), &one.token).await;
    assert_eq!(mine["actions"][0]["action"], "rock");
    // Once both have chosen, the whole log is open to both.
    assert_eq!(act(&two, "paper").await.0, 200);
    let (_, log) = api.get(&format!("/sessions/{sid}/log"), &two.token).await;
    let actions: Vec<&str> = log["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["rock", "paper"]);
    s.stop().await;
}

#[tokio::test]
async fn randomness_comes_from_the_server_never_from_the_caller() {
    let s = TestServer::start().await;
    let api = s.api();
    let me = api.agent(Some("Gambler")).await;
    // A caller cannot pick the seed, nor slip in an option a template does not have.
    let (status, v) = api
        .post(
            "/sessions",
            &me.token,
            json!({"template": "blackjack.v1", "participants": {"player": me.id}, "seed": 12345}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, "INVALID_REQUEST"), "{v}");
    let r = mcp_tool(
        s.http,
        &me.token,
        "session_create",
        json!({"template": "blackjack.v1", "participants": {"player": me.id}, "seed": 12345}),
    )
    .await;
    assert_eq!(r["isError"], true, "{r}");
    let other = api.agent(None).await;
    let (status, v) = api
        .post(
            "/sessions",
            &me.token,
            json!({"template": "chess.v1", "participants": {"white": me.id, "black": other.id},
                   "options": {"seed": 1}}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, "INVALID_REQUEST"), "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no option `seed`")
    );
    // Ten hands, dealt the same way by the same caller, are not one hand ten times; and no
    // view of a hand in play shows its seed.
    let mut hands = std::collections::BTreeSet::new();
    for _ in 0..10 {
        let sid = api.session(&me, "blackjack.v1", &[("player", &me)]).await;
        let (_, dealt) = api
            .post(
                &format!("/sessions/{sid}/actions"),
                &me.token,
                json!({"action": "deal"}),
            )
            .await;
        assert!(dealt["state"].get("seed").is_none(), "{dealt}");
        let (_, state) = api.get(&format!("/sessions/{sid}/state"), &me.token).await;
        assert!(state["state"].get("seed").is_none(), "{state}");
        hands.insert(dealt["state"]["player"].to_string());
    }
    assert!(hands.len() > 1, "every session dealt {hands:?}");
    s.stop().await;
}

/// Whether a text holds anything that could drive a terminal or reorder what a reader sees.
fn has_control(s: &str) -> bool {
    s.chars().any(|c| {
        c.is_control()
            || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    })
}

#[tokio::test]
async fn control_characters_from_every_face_reach_nobody() {
    let s = TestServer::start().await;
    let mut tia = s.player("Tia").await;
    let mal = s.api().agent(Some("Mallory")).await;
    mcp_tool(s.http, &mal.token, "look", json!({})).await;
    tia.expect("Mallory has connected.").await;
    let mut bad: Vec<char> = (0u32..0x20)
        .chain([0x7f])
        .chain(0x80..0xa0)
        .filter_map(char::from_u32)
        .collect();
    bad.extend("\u{061C}\u{200E}\u{200F}\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}\u{2066}\u{2067}\u{2068}\u{2069}".chars());

    // From MCP to a telnet client: every character, alone between two markers.
    for (i, c) in bad.iter().enumerate() {
        let r = mcp_tool(
            s.http,
            &mal.token,
            "say",
            json!({"text": format!("m{i}<{c}>")}),
        )
        .await;
        assert_eq!(r["isError"], false, "{r}");
        let heard = tia.expect(&format!("m{i}<")).await.pop().unwrap();
        assert!(
            !has_control(&heard),
            "U+{:04X} reached telnet: {heard:?}",
            *c as u32
        );
        assert!(
            heard.ends_with(&format!("m{i}<>\"")) || heard.ends_with(&format!("m{i}< >\"")),
            "{heard:?}"
        );
    }
    // A CR cannot start a forged out-of-band line.
    mcp_tool(
        s.http,
        &mal.token,
        "say",
        json!({"text": "hi\r$#$chess-board 1 board: x"}),
    )
    .await;
    let heard = tia.expect("hi").await.pop().unwrap();
    assert_eq!(heard, "Mallory says, \"hi $#$chess-board 1 board: x\"");
    // A description is stored clean, and shown clean.
    mcp_tool(
        s.http,
        &mal.token,
        "describe",
        json!({"description": "A \u{1b}[2Jshady\u{202E} figure\u{7}"}),
    )
    .await;
    let seen = tia.command("look Mallory").await;
    assert!(
        seen.iter().any(|l| l.contains("A [2Jshady figure")),
        "{seen:?}"
    );
    assert!(seen.iter().all(|l| !has_control(l)), "{seen:?}");

    // From telnet to an MCP agent: every character but the line ends and IAC, as raw bytes.
    mcp_tool(s.http, &mal.token, "events", json!({})).await;
    for (i, c) in bad
        .iter()
        .enumerate()
        .filter(|(_, c)| !matches!(c, '\r' | '\n'))
    {
        tia.send_raw(format!("say t{i}<{c}>\r\n").as_bytes()).await;
        tia.expect(&format!("t{i}<")).await;
    }
    let events = mcp_tool(s.http, &mal.token, "events", json!({})).await;
    let said = events["structuredContent"]["events"].as_array().unwrap();
    assert!(said.len() >= bad.len() - 2, "{events}");
    for e in said {
        assert!(!has_control(e.as_str().unwrap()), "{e:?}");
    }
    assert!(
        tool_text(&events).lines().all(|l| !has_control(l)),
        "{events}"
    );

    // Through REST: a name and an action are cleaned before anything reads them.
    let (status, v) = s
        .api()
        .send(
            "POST",
            "/agents",
            None,
            Some(&json!({"name": "Ev\u{1b}e"}).to_string()),
        )
        .await;
    assert_eq!((status, v["name"].clone()), (201, json!("Eve")), "{v}");
    s.stop().await;
}

/// The stored state of a session, straight from the database: what the rules hide included.
fn stored_state(db: &moot::store::Database, sid: &str) -> Value {
    assert!(sid.chars().all(|c| c.is_ascii_alphanumeric()), "{sid}");
    let rows = crate::support::sql_rows(
        db,
        &format!("SELECT state FROM sessions WHERE session_id = '{sid}'"),
    );
    serde_json::from_str(&rows[0][0]).unwrap()
}

#[tokio::test]
async fn blackjack_never_shows_the_hole_card_or_the_seed_while_a_hand_runs() {
    let s = TestServer::start().await;
    let api = s.api();
    // blackjack.v1: the dealer's hole card and the seed (which tells every card to come) are
    // never shown while the hand is in play, on any face.
    let me = api.agent(Some("Punter")).await;
    // A natural ends the hand at once; deal until one is in play.
    let mut hands_in_play = 0;
    for _ in 0..5 {
        let sid = api.session(&me, "blackjack.v1", &[("player", &me)]).await;
        let mut answers = Vec::new();
        let dealt = mcp_tool(
            s.http,
            &me.token,
            "session_act",
            json!({"session_id": sid, "action": "deal"}),
        )
        .await;
        answers.push(dealt.to_string());
        let truth = stored_state(&s.db, &sid);
        if truth["phase"] != "playing" {
            continue;
        }
        hands_in_play += 1;
        answers.push(
            api.get(&format!("/sessions/{sid}/state"), &me.token)
                .await
                .1
                .to_string(),
        );
        answers.push(
            api.get(&format!("/sessions/{sid}/log"), &me.token)
                .await
                .1
                .to_string(),
        );
        answers.push(
            mcp_tool(
                s.http,
                &me.token,
                "session_state",
                json!({"session_id": sid}),
            )
            .await
            .to_string(),
        );
        answers.push(
            mcp_tool(s.http, &me.token, "events", json!({}))
                .await
                .to_string(),
        );
        let seed = truth["seed"].to_string();
        for a in &answers {
            assert!(!a.contains(&seed), "the seed {seed} shows in {a}");
            let v: Value = serde_json::from_str(a).unwrap();
            for dealer in [
                &v["structuredContent"]["state"]["dealer"],
                &v["state"]["dealer"],
            ] {
                if let Some(d) = dealer.as_array() {
                    assert_eq!(d[0], "X", "the hole card shows in {a}");
                }
            }
        }
    }
    assert!(hands_in_play > 0, "five naturals in a row");
    s.stop().await;
}

/// A session's seed as SQLite keeps it, in both spellings a u64 may take there.
fn seed_strings(db: &moot::store::Database, sid: &str) -> [String; 2] {
    assert!(sid.chars().all(|c| c.is_ascii_alphanumeric()), "{sid}");
    let rows = crate::support::sql_rows(
        db,
        &format!("SELECT seed FROM sessions WHERE session_id = '{sid}'"),
    );
    let seed: i64 = rows[0][0].parse().unwrap();
    [seed.to_string(), (seed as u64).to_string()]
}

#[tokio::test]
async fn every_two_role_template_played_out_never_shows_the_other_role_a_secret() {
    let s = TestServer::start().await;
    let api = s.api();
    let (a, b) = (api.agent(Some("Ana")).await, api.agent(Some("Ben")).await);
    for (template, roles) in [
        ("chess.v1", ["white", "black"]),
        ("tictactoe.v1", ["x", "o"]),
        ("rps.v1", ["player_1", "player_2"]),
    ] {
        let sid = api
            .session(&a, template, &[(roles[0], &a), (roles[1], &b)])
            .await;
        let secrets = seed_strings(&s.db, &sid);
        let mut steps = 0;
        'game: loop {
            for (me, other) in [(&a, &b), (&b, &a)] {
                let (_, st) = api.get(&format!("/sessions/{sid}/state"), &me.token).await;
                if st["status"] == "completed" {
                    break 'game;
                }
                let legal: Vec<String> =
                    serde_json::from_value(st["legal_actions"].clone()).unwrap();
                if legal.is_empty() {
                    continue;
                }
                // Chess goes on for ever with a scripted player: it resigns after twelve plies.
                let action = if template == "chess.v1" && steps >= 12 {
                    "resign".to_owned()
                } else {
                    legal[steps % legal.len()].clone()
                };
                let (status, v) = api
                    .post(
                        &format!("/sessions/{sid}/actions"),
                        &me.token,
                        json!({"action": action, "expected_tick": st["tick"]}),
                    )
                    .await;
                assert_eq!(status, 200, "{template} {action}: {v}");
                steps += 1;
                // Everything the other role may ask, after every step.
                let mut answers = vec![
                    api.get(&format!("/sessions/{sid}/state"), &other.token)
                        .await
                        .1
                        .to_string(),
                    api.get(&format!("/sessions/{sid}/log"), &other.token)
                        .await
                        .1
                        .to_string(),
                ];
                for tool in ["session_state", "session_log"] {
                    answers.push(
                        mcp_tool(s.http, &other.token, tool, json!({"session_id": sid}))
                            .await
                            .to_string(),
                    );
                }
                answers.push(
                    mcp_tool(s.http, &other.token, "events", json!({}))
                        .await
                        .to_string(),
                );
                for answer in &answers {
                    for secret in &secrets {
                        assert!(
                            !answer.contains(secret.as_str()),
                            "{template}: the seed shows in {answer}"
                        );
                    }
                }
                continue 'game;
            }
            panic!("{template}: nobody can act at step {steps}");
        }
        assert!(steps > 0, "{template} was played");
    }
    s.stop().await;
}

/// Two moots serving one town would each think it theirs: the second is refused, told which
/// process serves it, and exits; once the first is gone (even killed outright) another may.
#[tokio::test]
async fn a_second_moot_on_the_same_database_is_refused_and_told_who_serves_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let http: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let mut first = spawn_moot(&db, http, &[]).await;
    let pid = first.id();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_moot"))
        .args([
            "--db",
            &db.address(),
            "--telnet",
            "127.0.0.1:0",
            "--http",
            "127.0.0.1:0",
        ])
        .env("RUST_LOG", "moot=warn")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("another moot is serving this database")
            && stderr.contains(&format!("moot pid {pid}")),
        "{stderr}"
    );
    // The first goes on serving.
    Api::new(http).agent(Some("Still")).await;
    kill(&mut first);
    let mut again = spawn_moot(&db, http, &[]).await;
    kill(&mut again);
}
