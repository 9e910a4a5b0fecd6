//! Werewolf without side channels (issue 20): nothing around a match tells who holds a night
//! role, and nobody outside a match talks to its living players.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{TestServer, mcp_tool};

const DEAF: &str = "Ann is playing Werewolf and cannot hear you until the match ends.";

/// Ann practises; Bob and Cid do not play. Nobody's `say`, `emote`, `page` or `whisper`
/// reaches Ann while her match runs, on telnet or over MCP, and whoever tries is told why; in
/// the match's building Bob and Cid talk from the graveyard, which Ann does not hear.
#[tokio::test]
async fn the_living_hear_only_their_match_and_the_watchers_talk_among_themselves() {
    let s = TestServer::start_with(|c| c.time_scale = 1.0).await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    let mut cid = s.player("Cid").await;
    for c in [&mut ann, &mut bob, &mut cid] {
        c.command("north").await;
    }
    // Her card comes as the match begins, without asking (a villager has no night brief),
    // after the answer.
    let told = ann.command("werewolf practice").await;
    assert!(
        told[0].contains("begins: you and seven house bots"),
        "{told:#?}"
    );
    assert!(
        told.iter().any(|l| l.starts_with("[Town Crier] You are ")),
        "{told:#?}"
    );
    let said = bob.command("say hello Ann").await;
    assert_eq!(said, ["You say, \"hello Ann\"", DEAF]);
    cid.expect("Bob says, \"hello Ann\"").await;
    let emoted = bob.command("emote waves at Ann").await;
    assert_eq!(emoted, ["Bob waves at Ann", DEAF]);
    cid.expect("Bob waves at Ann").await;
    assert_eq!(bob.command("page Ann xyzzy Pa and Pb howl").await, [DEAF]);
    assert_eq!(bob.command("whisper psst to Ann").await, [DEAF]);
    // The same refusal over MCP, and nothing sent.
    let dot = s.api().agent(Some("Dot")).await;
    let paged = mcp_tool(
        s.http,
        &dot.token,
        "page",
        json!({"name": "Ann", "text": "I saw the cards"}),
    )
    .await;
    assert_eq!(paged["isError"], true, "{paged}");
    assert!(paged.to_string().contains(DEAF), "{paged}");
    // Cid still hears the town.
    assert_eq!(
        bob.command("page Cid she cannot hear us").await,
        ["Your message has been sent."]
    );
    // The graveyard: in the building, the watchers talk among themselves.
    let door = told
        .iter()
        .find_map(|l| l.split('`').find(|w| w.starts_with("game")))
        .unwrap_or("game1")
        .to_owned();
    for c in [&mut ann, &mut bob, &mut cid] {
        c.command(&door).await;
    }
    let said = bob.command("say it is Bot-Abel").await;
    assert_eq!(said, ["You say from the graveyard, \"it is Bot-Abel\""]);
    cid.expect("Bob says from the graveyard, \"it is Bot-Abel\"")
        .await;
    // Nothing said is refused in the graveyard too, over MCP (it once went out as `says from
    // the graveyard, ""`).
    for exit in ["north", door.as_str()] {
        let went = mcp_tool(s.http, &dot.token, "go", json!({ "exit": exit })).await;
        assert_ne!(went["isError"], true, "{exit}: {went}");
    }
    let said = mcp_tool(s.http, &dot.token, "say", json!({"text": ""})).await;
    assert_eq!(said["isError"], true, "{said}");
    let said = mcp_tool(s.http, &dot.token, "say", json!({"text": "boo"})).await;
    assert!(said.to_string().contains("from the graveyard"), "{said}");
    // Ann has heard none of it (her match's own lines may come meanwhile).
    ann.send("look").await;
    ann.expect("Exits:").await;
    let heard = ann.seen.join("\n");
    for words in [
        "hello Ann",
        "waves at Ann",
        "xyzzy",
        "psst",
        "it is Bot-Abel",
    ] {
        assert!(!heard.contains(words), "Ann heard {words:?}: {heard}");
    }
    s.stop().await;
}

/// Once the match ends, all is as before: a page reaches its player again.
#[tokio::test]
async fn when_the_match_ends_its_players_hear_the_town_again() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let api = s.api();
    let wes = api.agent(Some("Wes")).await;
    // A lobby that waits for Wes to be ready, then one day only, so that the match ends in
    // seconds once he is.
    let (status, v) = crate::werewolf::post_match_with_bots(
        &api,
        &wes,
        json!({"maxDays": 1, "timers": {"lobby": 3600}}),
    )
    .await;
    assert_eq!(status, 201, "{v}");
    let sid = v["session_id"].as_str().unwrap().to_owned();
    // Wes comes into the town (any tool brings an agent in).
    mcp_tool(s.http, &wes.token, "look", json!({})).await;
    let mut ann = s.player("Ann").await;
    let refused = ann.command("page Wes are you the seer?").await;
    assert_eq!(
        refused,
        ["Wes is playing Werewolf and cannot hear you until the match ends."]
    );
    mcp_tool(
        s.http,
        &wes.token,
        "et.werewolf.match.ready",
        json!({ "matchId": sid }),
    )
    .await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        let (_, st) = api.get(&format!("/sessions/{sid}/state"), &wes.token).await;
        if st["status"] == "completed" {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "{st}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        ann.command("page Wes well played").await,
        ["Your message has been sent."]
    );
    let news: Value = mcp_tool(s.http, &wes.token, "events", json!({})).await;
    assert!(
        news.to_string().contains("Ann pages, \\\"well played\\\""),
        "{news}"
    );
    s.stop().await;
}

/// A match from the notice board is seen whole only once it has ended (its spectating rule is
/// `after`, the operator's default), so a throwaway identity cannot read the cards in play.
#[tokio::test]
async fn a_board_match_shows_everything_only_once_it_has_ended() {
    // Fast enough that the idle match ends within seconds, slow enough that it is still
    // running when the stranger first asks, however loaded the machine.
    let s = TestServer::start_with(|c| c.time_scale = 300.0).await;
    let api = s.api();
    // Made before the match begins, so that nothing slow comes between its start and the ask.
    let stranger = api.agent(None).await;
    let mut agents = Vec::new();
    for i in 0..8 {
        agents.push(api.agent(Some(&format!("Signer{i}"))).await);
    }
    let mut mid = Value::Null;
    for a in &agents {
        let r = mcp_tool(s.http, &a.token, "et.werewolf.queue.join", json!({})).await;
        mid = r["structuredContent"]["matchAssignment"]["matchId"].clone();
    }
    let mid = mid.as_str().expect("the eighth starts a match").to_owned();
    let status = mcp_tool(
        s.http,
        &agents[0].token,
        "et.werewolf.queue.status",
        json!({}),
    )
    .await;
    assert_eq!(
        status["structuredContent"]["queue"]["status"], "MATCHED",
        "{status}"
    );
    let ask = || {
        mcp_tool(
            s.http,
            &stranger.token,
            "et.werewolf.spectate.omniscient",
            json!({ "matchId": mid }),
        )
    };
    let no = ask().await;
    assert_eq!(no["isError"], true, "{no}");
    assert_eq!(
        no["structuredContent"]["error"]["code"], "WRONG_PHASE",
        "{no}"
    );
    let state = || {
        mcp_tool(
            s.http,
            &stranger.token,
            "et.werewolf.match.get_state",
            json!({ "matchId": mid }),
        )
    };
    let seen = state().await;
    assert_eq!(
        seen["structuredContent"]["state"]["spectating"], "AFTER",
        "{seen}"
    );
    // A count outside the schema's 1 to 200 is refused, not quietly clamped.
    for limit in [0, 201, 10_000] {
        let r = mcp_tool(
            s.http,
            &stranger.token,
            "et.werewolf.match.events.get",
            json!({ "matchId": mid, "limit": limit }),
        )
        .await;
        assert_eq!(r["isError"], true, "{r}");
        assert_eq!(
            r["structuredContent"]["error"]["code"], "INVALID_REQUEST",
            "{r}"
        );
    }
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while state().await["structuredContent"]["state"]["phase"] != "ENDED" {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the match never ended"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let yes = ask().await;
    assert_eq!(yes["structuredContent"]["omniscient"], true, "{yes}");
    s.stop().await;
}

/// `who`'s idle time for `name`, as MCP's `who` gives it to `token`.
async fn idle_of(s: &TestServer, token: &str, name: &str) -> u64 {
    let who = mcp_tool(s.http, token, "who", json!({})).await;
    who["structuredContent"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} in {who}"))["idle_seconds"]
        .as_u64()
        .unwrap()
}

/// What a public reader, or a villager, can read of match `sid` through every face but `who`
/// (whose idle times move with the clock): a spectator's events and cursor (MCP
/// `events.get`), the villager's REST state and log and MCP `session_state`/`session_log`.
async fn snapshot(s: &TestServer, spectator: &str, villager: &str, sid: &str) -> Value {
    let api = s.api();
    let events = mcp_tool(
        s.http,
        spectator,
        "et.werewolf.match.events.get",
        json!({ "matchId": sid, "limit": 200 }),
    )
    .await["structuredContent"]
        .clone();
    let public_state = mcp_tool(
        s.http,
        spectator,
        "et.werewolf.match.get_state",
        json!({ "matchId": sid }),
    )
    .await["structuredContent"]["state"]
        .clone();
    let (_, rest_state) = api.get(&format!("/sessions/{sid}/state"), villager).await;
    let (_, rest_log) = api.get(&format!("/sessions/{sid}/log"), villager).await;
    let mcp_state = mcp_tool(
        s.http,
        villager,
        "session_state",
        json!({ "session_id": sid }),
    )
    .await["structuredContent"]
        .clone();
    let mcp_log = mcp_tool(
        s.http,
        villager,
        "session_log",
        json!({ "session_id": sid }),
    )
    .await["structuredContent"]
        .clone();
    json!({
        "events": events["events"],
        "nextCursor": events["nextCursor"],
        "public_state": public_state,
        "rest_state": rest_state,
        "rest_log": rest_log,
        "mcp_state": mcp_state,
        "mcp_log": mcp_log,
    })
}

/// Only the wolves, the seer and the doctor act at night: a night action must change nothing
/// a public reader or a villager can read, on any face (`who`'s idle times on MCP, telnet
/// logged in and the login screen; event ids and cursors; the public stream, which sends
/// nothing; the villager's tick, state and log over REST and MCP), or it would name the night
/// roles.
#[tokio::test]
async fn a_night_action_moves_nothing_in_who() {
    // Slow game time, so that the night outlasts the test (its least length is 30 s); the
    // notice board fills with the house's bots after a second.
    let s = TestServer::start_with(|c| {
        c.time_scale = 0.1;
        c.games.werewolf.fill_after = Duration::from_secs(1).into();
    })
    .await;
    let api = s.api();
    // A match from the notice board of two people, one holding a night role and the other
    // a villager, whose empty seats the house's bots fill.
    let (night, villager, sid, brief) = 'deal: {
        for i in 0..40 {
            let a = api.agent(Some(&format!("Nox{i}"))).await;
            let b = api.agent(Some(&format!("Vil{i}"))).await;
            for p in [&a, &b] {
                mcp_tool(s.http, &p.token, "et.werewolf.queue.join", json!({})).await;
            }
            let state = |t: String| async move {
                mcp_tool(s.http, &t, "et.werewolf.match.get_state", json!({})).await
                    ["structuredContent"]
                    .clone()
            };
            let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
            let mine = loop {
                let st = state(a.token.clone()).await;
                if st["ok"] == true {
                    break st;
                }
                assert!(tokio::time::Instant::now() < deadline, "never filled: {st}");
                tokio::time::sleep(Duration::from_millis(200)).await;
            };
            let sid = mine["state"]["matchId"].as_str().unwrap().to_owned();
            let theirs = state(b.token.clone()).await;
            for p in [&a, &b] {
                mcp_tool(s.http, &p.token, "et.werewolf.match.ready", json!({})).await;
            }
            if mine["state"]["you"]["role"] != "VILLAGER"
                && theirs["state"]["you"]["role"] == "VILLAGER"
            {
                loop {
                    let st = state(a.token.clone()).await;
                    if st["state"]["phase"] == "NIGHT" {
                        let brief = st["state"]["you"]["requiredAction"].clone();
                        break 'deal (a, b, sid, brief);
                    }
                    assert!(tokio::time::Instant::now() < deadline, "{st}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        panic!("forty deals without a night role for one and a villager for the other");
    };
    // Living players of one match cannot page each other either: by day they talk in it.
    let paged = mcp_tool(
        s.http,
        &villager.token,
        "page",
        json!({"name": night.name, "text": "are you the seer?"}),
    )
    .await;
    assert_eq!(paged["isError"], true, "{paged}");
    assert!(paged.to_string().contains("is playing Werewolf"), "{paged}");
    // The night player comes into the town, then is silent a while.
    mcp_tool(s.http, &night.token, "look", json!({})).await;
    let vic = api.agent(Some("Vic")).await;
    let mut ann = s.player("Ann").await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let before = idle_of(&s, &vic.token, &night.name).await;
    assert!(before >= 2, "{before}");
    let mut stream = crate::web::Stream::open(s.http, &format!("/werewolf/{sid}/live"), None).await;
    stream
        .next(Duration::from_secs(5))
        .await
        .expect("a first frame");
    // The whole match, then the shared feed's first frame: then nothing until news.
    while stream.next(Duration::from_millis(500)).await.is_some() {}
    let seen = snapshot(&s, &vic.token, &villager.token, &sid).await;
    let tool = match brief["type"].as_str().unwrap() {
        "WOLF_KILL" => "et.werewolf.match.night.wolf_kill",
        "SEER_INSPECT" => "et.werewolf.match.night.seer_inspect",
        "DOCTOR_PROTECT" => "et.werewolf.match.night.doctor_protect",
        other => panic!("a night role's brief: {other}"),
    };
    let target = brief["allowedTargets"][0].clone();
    let done = mcp_tool(
        s.http,
        &night.token,
        tool,
        json!({ "matchId": sid, "targetPlayerId": target }),
    )
    .await;
    assert_eq!(done["structuredContent"]["ok"], true, "{done}");
    let after = idle_of(&s, &vic.token, &night.name).await;
    assert!(after >= before, "idle {before} s before, {after} s after");
    assert_eq!(snapshot(&s, &vic.token, &villager.token, &sid).await, seen);
    if let Some(frame) = stream.next(Duration::from_secs(1)).await {
        panic!("the public stream sent a frame for a hidden action: {frame:?}");
    }
    // Telnet's `who`, logged in and from the login screen, reads the same idle time.
    let idle_row = |lines: &[String]| {
        lines
            .iter()
            .find(|l| l.starts_with(&night.name))
            .cloned()
            .unwrap_or_default()
    };
    let row = idle_row(&ann.command("who").await);
    assert!(!row.contains(" 0 seconds"), "{row}");
    let mut door = s.client().await;
    door.send("who").await;
    let row = idle_row(&door.expect("Total:").await);
    assert!(!row.is_empty() && !row.contains(" 0 seconds"), "{row}");
    s.stop().await;
}

/// Every refusal of the thirteen Werewolf tools, whatever refuses it (the schema, the rules, a
/// count out of range, an unknown cursor), is an `isError` result whose structuredContent
/// conforms to the tool's outputSchema, with a code from the README's stable list
/// (`tests/mcp/refusals.py`, with jsonschema).
#[tokio::test]
async fn every_refusal_of_the_seed_tools_has_the_seeds_shape() {
    let s = TestServer::start().await;
    let api = s.api();
    let me = api.agent(Some("Rex")).await;
    let (status, v) = crate::werewolf::post_match_with_bots(&api, &me, json!({})).await;
    assert_eq!(status, 201, "{v}");
    let sid = v["session_id"].as_str().unwrap().to_owned();
    let base = format!("http://{}", s.http);
    let checked = crate::support::run_python("mcp/refusals.py", &[&base, &me.token, &sid]).await;
    assert_eq!(checked["tools"], 13, "{checked}");
    s.stop().await;
}

/// An agent who practises is told their card as the match begins, in their mailbox, without
/// asking (the practice tool answers with the match alone).
#[tokio::test]
async fn an_agent_is_told_its_card_as_its_match_begins() {
    let s = TestServer::start().await;
    let zed = s.api().agent(Some("Zed")).await;
    let started = mcp_tool(s.http, &zed.token, "et.werewolf.practice.start", json!({})).await;
    assert_eq!(started["structuredContent"]["ok"], true, "{started}");
    let news = mcp_tool(s.http, &zed.token, "events", json!({})).await;
    assert!(news.to_string().contains("[Town Crier] You are "), "{news}");
    s.stop().await;
}

/// Nobody puts another person into a match that would keep them from the town: over REST (or
/// MCP's `session_create`) a Werewolf match takes its creator and the house's bots only.
#[tokio::test]
async fn nobody_puts_another_into_a_werewolf_match() {
    let s = TestServer::start().await;
    let api = s.api();
    let (me, ann) = (api.agent(Some("Mel")).await, api.agent(Some("Ann")).await);
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), json!(me.id));
    participants.insert("p2".into(), json!(ann.id));
    for (i, bot) in crate::werewolf::BOTS.iter().skip(1).enumerate() {
        participants.insert(format!("p{}", i + 3), json!(bot));
    }
    let (status, v) = api
        .post(
            "/sessions",
            &me.token,
            json!({ "template": "werewolf.v1", "participants": participants,
                    "options": { "bots": [3, 4, 5, 6, 7, 8] } }),
        )
        .await;
    assert_eq!(status, 403, "{v}");
    assert!(
        v.to_string()
            .contains("You cannot put Ann in a Werewolf match"),
        "{v}"
    );
    // With the house's bots alone it may, once at a time.
    let (status, v) = crate::werewolf::post_match_with_bots(&api, &me, json!({})).await;
    assert_eq!(status, 201, "{v}");
    let (status, v) = crate::werewolf::post_match_with_bots(&api, &me, json!({})).await;
    assert_eq!(status, 409, "{v}");
    s.stop().await;
}
