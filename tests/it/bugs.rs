//! What a bug in moot costs: one refused command, never the town (issue 19). The bugs are put
//! there on purpose by `@fault` (a verb of the test builds only; see `src/kernel/verbs/faults.rs`).

use std::time::Duration;

use serde_json::json;

use crate::support::{Client, TestServer, free_port, mcp_tool, spawn_moot};

const BUG: &str = "Something went wrong; nothing changed.";

/// The lines of `look` at `name`, as `viewer` sees them.
async fn looks(viewer: &mut Client, name: &str) -> Vec<String> {
    viewer.command(&format!("look {name}")).await
}

/// A stranger's `mark 5 #N` on a tic-tac-toe game they do not play in stopped the town: it
/// is now a plain refusal, and the game and the town go on.
#[tokio::test]
async fn marking_a_game_you_do_not_play_in_is_refused_and_the_town_goes_on() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    let mut eve = s.player("Eve").await;
    for c in [&mut ann, &mut bob, &mut eve] {
        c.command("south").await;
    }
    ann.command("play tictactoe with Bob").await;
    bob.send("play tictactoe with Ann").await;
    bob.expect("game #1").await;
    let id = 1;
    for verb in [
        format!("mark 5 #{id}"),
        format!("choose rock #{id}"),
        format!("move e2e4 #{id}"),
        format!("resign #{id}"),
    ] {
        let answer = eve.command(&verb).await;
        assert!(
            answer
                .iter()
                .any(|l| l == &format!("You are not playing in game #{id}."))
                || answer.iter().any(|l| l.starts_with("There is no ")),
            "{verb}: {answer:?}"
        );
    }
    // Same on MCP's face of the verb.
    let api = s.api();
    let agent = api.agent(Some("Mallory")).await;
    let r = mcp_tool(
        s.http,
        &agent.token,
        "mark",
        json!({"cell": 5, "game": format!("#{id}")}),
    )
    .await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["content"][0]["text"],
        format!("You are not playing in game #{id}.")
    );
    // The players play on, and everyone is still served.
    let answer = ann.command(&format!("mark 5 #{id}")).await;
    assert!(
        answer.iter().any(|l| l.contains("You mark cell 5")),
        "{answer:?}"
    );
    let answer = eve.command("say still here").await;
    assert_eq!(answer, ["You say, \"still here\""]);
}

/// A handler that panics after changing the world: the world is put back exactly, the caller
/// hears that nothing changed, the others hear nothing of it, the panic is counted, and every
/// other connection is served as before.
#[tokio::test]
async fn a_command_that_panics_is_undone_and_everyone_else_is_served() {
    let s = TestServer::start_with(|c| c.metrics_token = Some("m".into())).await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    let before = looks(&mut bob, "Ann").await;
    let where_before = ann.command("look").await;

    let answer = ann.command("@fault panic").await;
    assert_eq!(answer, [BUG]);
    // Bob heard nothing of Ann's walk (it never happened), and Ann is where she was, as she
    // was.
    bob.silent_for(Duration::from_millis(200)).await;
    assert!(
        !bob.seen.iter().any(|l| l == "Gone." || l == "Here."),
        "{:?}",
        bob.seen
    );
    assert_eq!(looks(&mut bob, "Ann").await, before);
    assert_eq!(ann.command("look").await, where_before);
    // Both are served: they hear each other.
    bob.send("say hello Ann").await;
    ann.expect("Bob says, \"hello Ann\"").await;
    // The panic is counted.
    let metrics = s.metrics("m").await;
    let panics: u64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("moot_panics_total "))
        .expect("moot_panics_total")
        .parse()
        .unwrap();
    assert!(panics >= 1, "{metrics}");
    // Nothing of it was stored: after a restart Ann is described as before.
    let db = s.db.clone();
    let dir = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.client().await;
    ann.send("connect Ann pw-Ann-moot").await;
    ann.expect("*** Connected ***").await;
    let mut bob = s.client().await;
    bob.send("connect Bob pw-Bob-moot").await;
    bob.expect("$#$xmcp").await;
    bob.send("@wrap off").await;
    bob.expect("Word wrap is now off.").await;
    assert_eq!(looks(&mut bob, "Ann").await, before);
    s.stop().await;
    drop(dir);
}

/// A game action that meets a bug after it is recorded (in a session hook) is undone on every
/// face: REST answers 500 `INTERNAL` without a word of Rust, MCP an `isError` result, telnet
/// the plain line; the game's state and log are as before, and the same action then works.
#[tokio::test]
async fn a_game_action_that_panics_is_undone_on_every_face() {
    let s = TestServer::start().await;
    let api = s.api();
    let x = api.agent(Some("Xena")).await;
    let o = api.agent(Some("Otto")).await;
    let id = api
        .session(&x, "tictactoe.v1", &[("x", &x), ("o", &o)])
        .await;
    let state = |a: &crate::support::Agent| {
        let (api, id, token) = (api.clone(), id.clone(), a.token.clone());
        async move { api.get(&format!("/sessions/{id}/state"), &token).await.1 }
    };
    let log = |a: &crate::support::Agent| {
        let (api, id, token) = (api.clone(), id.clone(), a.token.clone());
        async move { api.get(&format!("/sessions/{id}/log"), &token).await.1 }
    };
    let (state0, log0) = (state(&x).await, log(&x).await);
    // X takes the centre, on REST.
    let centre = || {
        let (api, id, token) = (api.clone(), id.clone(), x.token.clone());
        async move {
            let path = format!("/sessions/{id}/actions");
            api.post(&path, &token, json!({"action": "4", "expected_tick": 0}))
                .await
        }
    };

    // REST.
    let armed = mcp_tool(s.http, &x.token, "@fault", json!({"kind": "arm"})).await;
    assert_eq!(armed["isError"], false, "{armed}");
    let (status, body) = centre().await;
    assert_eq!(status, 500, "{body}");
    assert_eq!(body["error"]["code"], "INTERNAL");
    assert_eq!(body["error"]["message"], BUG);
    let text = body.to_string();
    for rust in ["panicked", "src/", ".rs", "unwrap", "expect"] {
        assert!(!text.contains(rust), "{rust} in {text}");
    }
    assert_eq!(state(&x).await, state0, "the state is as before");
    assert_eq!(log(&x).await, log0, "the log is as before");

    // MCP (the session tools' session_act).
    mcp_tool(s.http, &x.token, "@fault", json!({"kind": "arm"})).await;
    let r = mcp_tool(
        s.http,
        &x.token,
        "session_act",
        json!({"session_id": id, "action": "4", "expected_tick": 0}),
    )
    .await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(r["content"][0]["text"], BUG);
    assert_eq!(state(&x).await, state0);

    // The trap is spent: the same action now goes through, on REST as before.
    let (status, body) = centre().await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(state(&o).await["tick"], 1);

    // Telnet: a person's `mark` meets the bug, and hears the plain line.
    let mut tom = s.player("Tom").await;
    tom.command("south").await;
    tom.send("play tictactoe with house").await;
    tom.expect("you are x.").await;
    tom.command("@fault arm").await;
    let answer = tom.command("mark 1").await;
    assert_eq!(answer, [BUG]);
    let answer = tom.command("mark 1").await;
    assert!(
        answer.iter().any(|l| l.contains("You mark cell 1")),
        "{answer:?}"
    );
    s.stop().await;
}

/// A bug that cannot be undone (putting the world back panics too) ends the world task, and
/// the process exits at once with a failure, for its supervisor to restart; the restart
/// replays everything stored before.
#[tokio::test]
async fn a_world_that_cannot_go_on_stops_the_process_with_a_failure() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let http: std::net::SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let telnet = free_port();
    let telnet_arg = format!("127.0.0.1:{telnet}");
    let mut moot = spawn_moot(&db, http, &["--telnet", &telnet_arg]).await;
    let addr: std::net::SocketAddr = telnet_arg.parse().unwrap();
    let mut ann = Client::connect(addr).await;
    ann.send("create Ann pw-Ann-moot").await;
    ann.expect("*** Created ***").await;
    ann.send("@describe me as Still here after the restart.")
        .await;
    ann.expect("Description set.").await;
    ann.send("@fault wreck").await;
    let started = tokio::time::Instant::now();
    let status = loop {
        if let Some(status) = moot.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "moot kept running without its world"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(!status.success(), "{status}");
    drop(moot);
    // Restarted, it serves the town as stored.
    let _moot = spawn_moot(&db, http, &["--telnet", &telnet_arg]).await;
    let mut ann = Client::connect(addr).await;
    ann.send("connect Ann pw-Ann-moot").await;
    ann.expect("*** Connected ***").await;
    let mut bob = Client::connect(addr).await;
    bob.send("create Bob pw-Bob-moot").await;
    bob.expect("$#$xmcp").await;
    bob.send("@wrap off").await;
    bob.expect("Word wrap is now off.").await;
    let seen = bob.command("look Ann").await;
    assert!(
        seen.iter()
            .any(|l| l.contains("Still here after the restart.")),
        "{seen:?}"
    );
}

/// A description is shown at the start of a line: one that begins like the Town Crier is set
/// in, so it cannot pose as the narrator (the data keeps it as written).
#[tokio::test]
async fn a_description_cannot_pose_as_the_town_crier() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    ann.command("@describe me as [Town Crier] Bob is a Werewolf.")
        .await;
    let seen = looks(&mut bob, "Ann").await;
    assert!(
        seen.contains(&"  [Town Crier] Bob is a Werewolf.".to_owned()),
        "{seen:?}"
    );
    assert!(!seen.iter().any(|l| l.starts_with('[')), "{seen:?}");
    let examined = bob.command("examine Ann").await;
    assert!(
        examined.contains(&"  [Town Crier] Bob is a Werewolf.".to_owned()),
        "{examined:?}"
    );
    assert!(!examined.iter().any(|l| l.starts_with('[')), "{examined:?}");
    s.stop().await;
}

/// A display name in a Werewolf match starts lines ("Ann votes to eliminate Bob."): one that
/// would begin like the Town Crier, or pass for a house bot, is refused on every face.
#[tokio::test]
async fn a_display_name_cannot_pose_as_the_town_crier_or_a_bot() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    for way in ["north", "west"] {
        ann.command(way).await;
    }
    let said = ann.command("sign board as [Town Crier] Pb is dead.").await;
    assert!(
        said.iter()
            .any(|l| l.contains("A display name is 1 to 32 letters")),
        "{said:?}"
    );
    let said = ann.command("sign board as Bot-Abel").await;
    assert!(
        said.iter()
            .any(|l| l.contains("belong to the house's bots")),
        "{said:?}"
    );
    assert!(
        ann.command("queue")
            .await
            .iter()
            .all(|l| !l.contains("Ann")),
        "nobody signed"
    );
    // Over REST, a match's options name its seats the same way.
    let api = s.api();
    let me = api.agent(Some("Rita")).await;
    for names in [
        json!(["[Town Crier]"]),
        json!(["Bot-Abel"]),
        json!(["Rita", "rita"]),
    ] {
        let (status, v) =
            crate::werewolf::post_match_with_bots(&api, &me, json!({ "names": names })).await;
        assert_eq!(status, 400, "{v}");
        assert!(v.to_string().to_lowercase().contains("display name"), "{v}");
    }
    s.stop().await;
}
