//! Werewolf through the generic host: a match of one agent and seven house bots, driven over
//! REST at `--time-scale 100`, runs to its end on the server actor's deadlines; the agent never
//! sees what its seat may not; the log replays after a restart.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestServer;

pub(crate) const BOTS: [&str; 7] = [
    "bot-1", "bot-2", "bot-3", "bot-4", "bot-5", "bot-6", "bot-7",
];

#[tokio::test]
async fn a_practice_match_of_an_agent_and_seven_house_bots_plays_to_its_end() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let api = s.api();
    let me = api.agent(Some("Wanda")).await;
    let sid = session_with_bots(&api, &me, json!({"names": ["Wanda"]})).await;
    let path = format!("/sessions/{sid}");

    let deadline = tokio::time::Instant::now() + Duration::from_secs(90);
    let mut acted = 0;
    let mut phases = std::collections::BTreeSet::new();
    let final_state = loop {
        assert!(tokio::time::Instant::now() < deadline, "the match stalled");
        let (status, v) = api.get(&format!("{path}/state"), &me.token).await;
        assert_eq!(status, 200, "{v}");
        let st = &v["state"];
        phases.insert(st["phase"].as_str().unwrap().to_owned());
        if v["status"] == "completed" {
            break v;
        }
        // Nothing of another living player's role, ever.
        for p in st["players"].as_array().unwrap() {
            if p["playerId"] != "p1" && p["alive"] == true {
                assert!(p["revealedRole"].is_null(), "{st}");
            }
            if p["playerId"] != "p1" {
                assert_eq!(p["bot"], true, "bots are labelled: {p}");
            }
        }
        let you = &st["you"];
        let req = &you["requiredAction"];
        let action = match (
            req["type"].as_str().unwrap(),
            req["alreadySubmitted"] == true,
        ) {
            (_, true) => None,
            ("WOLF_KILL", _) => Some(format!(
                "kill {}",
                req["allowedTargets"][0].as_str().unwrap()
            )),
            ("SEER_INSPECT", _) => Some(format!(
                "inspect {}",
                req["allowedTargets"][0].as_str().unwrap()
            )),
            ("DOCTOR_PROTECT", _) => Some(format!(
                "protect {}",
                req["allowedTargets"][0].as_str().unwrap()
            )),
            ("SPEAK_OPENING", _) => Some("say I am a simple villager.".to_owned()),
            ("VOTE", _) => Some("vote none".to_owned()),
            _ if st["phase"] == "LOBBY" => Some("ready".to_owned()),
            _ => None,
        };
        if let Some(action) = action {
            // Her reasons go with each action, and show nowhere while the match runs.
            let (status, v) = api
                .post(
                    &format!("{path}/actions"),
                    &me.token,
                    json!({ "action": action, "reasoning": format!("my reason: {action}") }),
                )
                .await;
            // The phase may have moved on between reading and acting: a clear refusal.
            assert!(status == 200 || status == 400, "{status} {v}");
            acted += usize::from(status == 200);
            let (_, log) = api.get(&format!("{path}/log"), &me.token).await;
            let (_, state) = api.get(&format!("{path}/state"), &me.token).await;
            if state["status"] != "completed" {
                for read in [&log, &state, &v] {
                    assert!(!read.to_string().contains("my reason"), "{read}");
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // At least her `ready` (the wolves may take her on the first night).
    assert!(acted >= 1, "Wanda acted {acted} times");
    let st = &final_state["state"];
    assert_eq!(st["phase"], "ENDED");
    assert!(
        ["VILLAGERS", "WEREWOLVES"].contains(&st["winningTeam"].as_str().unwrap()),
        "{st}"
    );
    for p in ["NIGHT", "DAY_ANNOUNCE", "DAY_OPENING", "DAY_DISCUSSION"] {
        assert!(phases.contains(p), "went through {p}: {phases:?}");
    }
    // Every role is shown once it is over.
    assert!(
        st["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| !p["revealedRole"].is_null())
    );
    // The log: the server's deadlines are actions like any other, and the house bots' too.
    let (_, log) = api.get(&format!("{path}/log"), &me.token).await;
    let entries = log["actions"].as_array().unwrap();
    assert!(entries.iter().any(|e| e["role"] == "server"));
    assert!(entries.iter().any(|e| e["agent_id"] == "bot-1"));

    // The report, and the event log exported from each side.
    let report = crate::support::mcp_tool(
        s.http,
        &me.token,
        "et.werewolf.match.report",
        json!({ "matchId": sid }),
    )
    .await;
    let r = &report["structuredContent"]["report"];
    assert_eq!(r["players"].as_array().unwrap().len(), 8, "{report}");
    assert_eq!(r["winningTeam"], st["winningTeam"]);
    let cards = |viewer: &'static str| {
        let (http, token, sid) = (s.http, me.token.clone(), sid.clone());
        async move {
            let v = crate::support::mcp_tool(
                http,
                &token,
                "et.werewolf.match.report",
                json!({ "matchId": sid, "export": true, "viewer": viewer }),
            )
            .await;
            let jsonl = v["structuredContent"]["eventsJsonl"]
                .as_str()
                .unwrap()
                .to_owned();
            jsonl
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|e| e["type"] == "ROLE_ASSIGNED")
                .count()
        }
    };
    // The same report over REST.
    let (status, rest) = api.get(&format!("/werewolf/{sid}/report"), &me.token).await;
    assert_eq!(status, 200, "{rest}");
    assert_eq!(rest["report"], *r);
    let (status, _) = api.get("/werewolf/999/report", &me.token).await;
    assert_eq!(status, 404);
    assert_eq!(cards("PUBLIC").await, 0);
    assert_eq!(cards("p1").await, 1);
    assert_eq!(cards("OMNISCIENT").await, 8);
    // Every seat's view at once: what each player was shown (their own card, and no other),
    // what they answered, and why.
    let seats = crate::support::mcp_tool(
        s.http,
        &me.token,
        "et.werewolf.match.report",
        json!({ "matchId": sid, "export": true, "viewer": "SEATS" }),
    )
    .await;
    let seats = seats["structuredContent"]["seats"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(seats.len(), 8);
    for seat in &seats {
        let cards = seat["shown"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "ROLE_ASSIGNED")
            .count();
        assert_eq!(cards, 1, "{seat}");
    }
    let mine = seats
        .iter()
        .find(|x| x["name"] == me.name.as_str())
        .unwrap();
    let answered = mine["answered"].as_array().unwrap();
    assert_eq!(answered.len(), acted, "{mine}");
    assert!(
        answered.iter().all(|a| a["reasoning"]
            .as_str()
            .is_some_and(|r| r.starts_with("my reason: "))),
        "{mine}"
    );
    // A replay from the omniscient export gives the same events, one for one.
    let export = crate::support::mcp_tool(
        s.http,
        &me.token,
        "et.werewolf.match.report",
        json!({ "matchId": sid, "export": true, "viewer": "OMNISCIENT" }),
    )
    .await;
    // Acting once it is over: WRONG_PHASE, as for any action out of its phase.
    let late = crate::support::mcp_tool(
        s.http,
        &me.token,
        "et.werewolf.match.vote",
        json!({ "matchId": sid, "targetPlayerId": "p2" }),
    )
    .await;
    assert_eq!(
        late["structuredContent"]["error"]["code"], "WRONG_PHASE",
        "{late}"
    );
    let sc = &export["structuredContent"];
    let r = &sc["replay"];
    let actions: Vec<(String, String, u64)> = r["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["role"].as_str().unwrap().to_owned(),
                a["action"].as_str().unwrap().to_owned(),
                a["atMs"].as_u64().unwrap(),
            )
        })
        .collect();
    let replayed = moot::game_api::replay(
        moot::games::template(r["template"].as_str().unwrap()).unwrap(),
        r["seed"].as_str().unwrap().parse().unwrap(),
        &r["options"],
        actions.iter().map(|(a, b, t)| (a.as_str(), b.as_str(), *t)),
    )
    .unwrap();
    let w = replayed
        .as_any()
        .downcast_ref::<moot::games::werewolf::rules::Werewolf>()
        .unwrap();
    let lines: Vec<Value> = sc["eventsJsonl"]
        .as_str()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Her reasons, now that it is over: each beside her action, at its game time, after the
    // events of that moment and before the next.
    let reasons: Vec<&Value> = lines.iter().filter(|l| l["type"] == "REASONING").collect();
    assert_eq!(reasons.len(), acted, "one for each of her actions");
    for (i, l) in lines.iter().enumerate() {
        if l["type"] != "REASONING" {
            continue;
        }
        let at = l["gameTimeMs"].as_u64().unwrap();
        assert_eq!(l["source"], "p1", "{l}");
        assert!(
            l["payload"]["reasoning"]
                .as_str()
                .unwrap()
                .starts_with("my reason: "),
            "{l}"
        );
        assert!(
            lines[..i]
                .iter()
                .all(|e| e["gameTimeMs"].as_u64().unwrap() <= at)
                && lines[i + 1..]
                    .iter()
                    .filter(|e| e["type"] != "REASONING")
                    .all(|e| e["gameTimeMs"].as_u64().unwrap() > at),
            "{l}"
        );
    }
    assert_eq!(
        rest["reasons"].as_array().unwrap().len(),
        acted,
        "the report's: {rest}"
    );
    let (_, replay) = api
        .send(
            "GET",
            &format!("/werewolf/{sid}/replay?viewer=PUBLIC"),
            None,
            None,
        )
        .await;
    let replayed_reasons = replay["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "REASONING")
        .count();
    assert_eq!(replayed_reasons, acted, "the web's replay shows them too");
    let exported: Vec<&Value> = lines.iter().filter(|l| l["type"] != "REASONING").collect();
    assert_eq!(exported.len(), w.events().len());
    for (e, x) in w.events().iter().zip(&exported) {
        let mine = e.envelope(moot::games::werewolf::rules::events::Reader::Omniscient);
        for k in ["eventId", "type", "visibility", "payload"] {
            assert_eq!(mine[k], x[k], "{k}: {x}");
        }
        assert_eq!(x["gameTimeMs"], e.at);
    }

    // A restart replays the log to the same state (moot refuses to start otherwise).
    let db = s.db.clone();
    let dir = s.stop().await;
    let s = TestServer::on_db(&db, |c| c.time_scale = 100.0).await;
    let (_, again) = s.api().get(&format!("{path}/state"), &me.token).await;
    assert_eq!(again["state"], final_state["state"]);
    s.stop().await;
    drop(dir);
}

#[tokio::test]
async fn a_players_log_hides_the_others_night_actions_while_the_match_runs() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let api = s.api();
    let me = api.agent(None).await;
    // Long nights, so the bots' night actions are in the log while it runs; an all-seeing
    // spectator counts them.
    let sid = session_with_bots(
        &api,
        &me,
        json!({"timers": {"lobby": 1, "night": 3600, "minDwell": 3600}, "spectating": "live"}),
    )
    .await;
    let eye = api.agent(Some("Eye")).await;
    let granted = crate::support::mcp_tool(
        s.http,
        &eye.token,
        "et.werewolf.spectate.omniscient",
        json!({ "matchId": sid }),
    )
    .await;
    assert_eq!(
        granted["structuredContent"]["omniscient"], true,
        "{granted}"
    );
    let path = format!("/sessions/{sid}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    // Wait until the night has at least two actions of other seats (every role but p1's own
    // has two others' night actions kept from it).
    let log: Value = loop {
        // The state between two reads of the log: when the two agree, nothing moved while the
        // state was read, so its tick and the log must agree too.
        let (_, log) = api.get(&format!("{path}/log"), &me.token).await;
        let (_, st) = api.get(&format!("{path}/state"), &me.token).await;
        let (_, log_after) = api.get(&format!("{path}/log"), &me.token).await;
        let all = crate::support::mcp_tool(
            s.http,
            &eye.token,
            "et.werewolf.match.events.get",
            json!({ "matchId": sid, "limit": 200 }),
        )
        .await;
        let night_acts = all["structuredContent"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| {
                ["WOLF_KILL_SELECTED", "SEER_RESULT", "DOCTOR_PROTECTED"]
                    .contains(&e["type"].as_str().unwrap_or(""))
            })
            .count();
        assert!(
            tokio::time::Instant::now() < deadline,
            "no night actions: {st}, {log}"
        );
        if st["state"]["phase"] == "NIGHT" && night_acts >= 2 && log == log_after {
            // The log and the tick count only what p1 may see: positions without a gap (a
            // gap would count the hidden actions), and the tick their number.
            let ticks: Vec<u64> = log["actions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["tick"].as_u64().unwrap())
                .collect();
            assert_eq!(ticks, (0..ticks.len() as u64).collect::<Vec<_>>(), "{log}");
            assert_eq!(st["tick"], ticks.len(), "{st}");
            break log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (_, st) = api.get(&format!("{path}/state"), &me.token).await;
    let my_role = st["state"]["you"]["role"].as_str().unwrap().to_owned();
    // No report while it runs, on any face.
    let (status, v) = api.get(&format!("/werewolf/{sid}/report"), &me.token).await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("still running"),
        "{v}"
    );
    for e in log["actions"].as_array().unwrap() {
        let action = e["action"].as_str().unwrap();
        // Not even that someone acted: only a wolf, the seer or the doctor acts at night, so
        // an entry with its action hidden would still name a night role.
        assert_ne!(action, "hidden", "p1 ({my_role}) read {e}");
        let night = ["kill", "inspect", "protect", "wolfchat"]
            .iter()
            .any(|v| action.starts_with(v));
        if night && e["role"] != "p1" {
            // Only a wolf reads its partner's picks.
            assert!(
                my_role == "WEREWOLF"
                    && (action.starts_with("kill") || action.starts_with("wolfchat")),
                "p1 ({my_role}) read {e}"
            );
        }
    }
    s.stop().await;
}

/// The line of `werewolf` output that says what to do, and the first name it offers.
fn first_offered(line: &str) -> Option<String> {
    let open = line.rfind('(')?;
    let list = &line[open + 1..line.rfind(')')?];
    let first = list.split(", ").next()?;
    // "Bot-Abel (p2" → p2
    first
        .rsplit('(')
        .next()
        .map(|id| id.trim_end_matches(')').to_owned())
}

#[tokio::test]
async fn a_telnet_player_practises_against_seven_bots_to_the_end() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let mut tess = s.player("Tess").await;
    tess.command("north").await;
    // The board is the queue.
    let signed = tess.command("sign board").await;
    assert!(signed.iter().any(|l| l.contains("(1 of 8)")), "{signed:?}");
    let q = tess.command("queue").await;
    assert!(q.iter().any(|l| l.contains("Tess")), "{q:?}");
    let gone = tess.command("unsign board").await;
    assert!(
        gone.iter().any(|l| l.contains("take your name off")),
        "{gone:?}"
    );
    // Practice: a match of Tess and seven house bots, in a building off the Town Hall.
    let started = tess.command("werewolf practice").await;
    assert!(
        started.iter().any(|l| l.contains("Werewolf Game #1")),
        "{started:?}"
    );
    let hall = tess.command("look").await;
    assert!(
        hall.iter().any(|l| l.contains("game1 (Werewolf Game #1)")),
        "{hall:?}"
    );
    // The rules people read are the ones that run, a command away from the help.
    let help = tess.command("help werewolf").await;
    assert!(
        help.iter().any(|l| l.contains("`werewolf rules`")),
        "{help:?}"
    );
    // At a hundred times the pace, in the wall clock's seconds (45 s of the match's are 0.45).
    let rules = tess.command("werewolf rules").await;
    assert!(
        rules.iter().any(|l| l.contains("NIGHT (0.45 s)")),
        "{rules:?}"
    );
    assert!(
        help.iter().any(|l| l.starts_with("  sign board")),
        "{help:?}"
    );
    // In the hall, outside her match's building, Tess's words still belong to the match:
    // refused in the lobby with the way to speak, not said to a hall where no player hears.
    let said = tess.command("say hello, hall").await;
    assert_eq!(
        said,
        [
            "You can speak to the match only during the openings (DAY_OPENING, on your turn) \
          and the discussion (DAY_DISCUSSION); it is the lobby (LOBBY) now."
        ]
    );
    assert_eq!(
        tess.command("emote waves").await,
        ["In your match, speak with `say` (or `speak`) when it is your time."]
    );
    let inside = tess.command("game1").await;
    assert!(
        inside.iter().any(|l| l.contains("Bot-Abel (p2, bot)")),
        "{inside:?}"
    );
    tess.send("ready").await;

    let (my_role, heard) = plays_by_telnet(&mut tess, "Tess (p1)").await;
    // Nobody told Tess what only other roles hear.
    if my_role != "Werewolf" {
        assert!(
            !heard
                .iter()
                .any(|l| l.contains("growls to the pack") || l.contains("wants")),
            "{heard:#?}"
        );
    }
    if my_role != "Seer" {
        assert!(
            !heard.iter().any(|l| l.contains("Your vision")),
            "{heard:#?}"
        );
    }
    assert!(
        !heard.iter().any(|l| l.contains("(Spoiler)")),
        "spoilers are for all-seeing spectators"
    );
    // The door is now a plaque with the result.
    tess.command("out").await;
    let hall = tess.command("look").await;
    assert!(!hall.iter().any(|l| l.contains("game1 (")), "{hall:?}");
    assert!(
        hall.iter()
            .any(|l| l.contains("a plaque for Werewolf Game #1")),
        "{hall:?}"
    );
    let plaque = tess.command("look plaque").await;
    assert!(plaque.iter().any(|l| l.contains("win")), "{plaque:?}");
    assert!(plaque.iter().any(|l| l.starts_with("Seed: ")), "{plaque:?}");
    s.stop().await;
}

#[tokio::test]
async fn eight_agents_on_the_board_start_a_match_and_spectators_see_no_roles() {
    let s = TestServer::start_with(|c| {
        c.time_scale = 1.0;
        c.games.werewolf.omniscient = moot::games::werewolf::settings::Omniscient::Live;
    })
    .await;
    let api = s.api();
    let mut agents = Vec::new();
    for i in 0..9 {
        agents.push(api.agent(Some(&format!("Agent{i}"))).await);
    }
    let mut assignment = Value::Null;
    for (i, a) in agents.iter().take(8).enumerate() {
        let r =
            crate::support::mcp_tool(s.http, &a.token, "et.werewolf.queue.join", json!({})).await;
        let sc = &r["structuredContent"];
        assert_eq!(sc["ok"], true, "{r}");
        // The text content carries the same JSON (fix 2 in `catalog.rs`), for clients that read
        // only text.
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, sc);
        if i < 7 {
            assert_eq!(sc["queue"]["position"], i + 1, "{sc}");
            assert_eq!(sc["queue"]["status"], "WAITING");
        } else {
            assert_eq!(sc["queue"]["status"], "MATCHED", "{sc}");
            assert!(sc["queue"]["position"].is_null());
            assignment = sc["matchAssignment"].clone();
        }
    }
    assert_eq!(assignment["seat"], 8, "{assignment}");
    let mid = assignment["matchId"].as_str().unwrap().to_owned();
    // A player sees their own role; a spectator (the ninth) sees none and no `you`.
    let me = crate::support::mcp_tool(
        s.http,
        &agents[0].token,
        "et.werewolf.match.get_state",
        json!({ "matchId": mid }),
    )
    .await;
    let st = &me["structuredContent"]["state"];
    assert_eq!(st["phase"], "LOBBY", "{me}");
    // The operator chose `--werewolf-omniscient live`.
    assert_eq!(st["spectating"], "LIVE", "{me}");
    assert_eq!(st["you"]["playerId"], "p1");
    assert!(
        ["VILLAGER", "WEREWOLF", "SEER", "DOCTOR"].contains(&st["you"]["role"].as_str().unwrap())
    );
    let spectator = crate::support::mcp_tool(
        s.http,
        &agents[8].token,
        "et.werewolf.match.get_state",
        json!({ "matchId": mid }),
    )
    .await;
    let sst = &spectator["structuredContent"]["state"];
    assert!(sst["you"].is_null(), "{spectator}");
    assert!(
        sst["players"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["revealedRole"].is_null())
    );
    // A refusal has the tools' shape (`{ok: false, serverTime, error}`), with a stable code, as an isError result.
    let wrong = crate::support::mcp_tool(
        s.http,
        &agents[0].token,
        "et.werewolf.match.night.wolf_kill",
        json!({ "matchId": mid, "targetPlayerId": "p2" }),
    )
    .await;
    assert_eq!(wrong["isError"], true, "{wrong}");
    let sc = &wrong["structuredContent"];
    assert_eq!(sc["ok"], false);
    assert_eq!(sc["error"]["code"], "WRONG_PHASE", "{sc}");
    assert!(sc["serverTime"].is_string());
    // The ninth cannot act in a match that is not theirs.
    let outsider = crate::support::mcp_tool(
        s.http,
        &agents[8].token,
        "et.werewolf.match.ready",
        json!({ "matchId": mid }),
    )
    .await;
    assert_eq!(
        outsider["structuredContent"]["error"]["code"], "NOT_IN_MATCH",
        "{outsider}"
    );
    // The omniscient view: granted to the ninth, who does not play; refused to a player.
    let no = crate::support::mcp_tool(
        s.http,
        &agents[0].token,
        "et.werewolf.spectate.omniscient",
        json!({ "matchId": mid }),
    )
    .await;
    assert_eq!(no["isError"], true, "{no}");
    let yes = crate::support::mcp_tool(
        s.http,
        &agents[8].token,
        "et.werewolf.spectate.omniscient",
        json!({ "matchId": mid }),
    )
    .await;
    assert_eq!(yes["structuredContent"]["omniscient"], true, "{yes}");
    let all = crate::support::mcp_tool(
        s.http,
        &agents[8].token,
        "et.werewolf.match.get_state",
        json!({ "matchId": mid }),
    )
    .await;
    let players = all["structuredContent"]["state"]["players"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        players.iter().all(|p| !p["revealedRole"].is_null()),
        "{all}"
    );
    let feed = crate::support::mcp_tool(
        s.http,
        &agents[8].token,
        "et.werewolf.match.events.get",
        json!({ "matchId": mid, "limit": 200 }),
    )
    .await;
    let cards = feed["structuredContent"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "ROLE_ASSIGNED")
        .count();
    assert_eq!(cards, 8, "{feed}");
    // ...and the players still see only their own.
    let mine = crate::support::mcp_tool(
        s.http,
        &agents[0].token,
        "et.werewolf.match.get_state",
        json!({ "matchId": mid }),
    )
    .await;
    let shown = mine["structuredContent"]["state"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["revealedRole"].is_null())
        .count();
    assert_eq!(shown, 1, "{mine}");
    // Signing again while playing is refused.
    let again = crate::support::mcp_tool(
        s.http,
        &agents[3].token,
        "et.werewolf.queue.join",
        json!({}),
    )
    .await;
    assert_eq!(
        again["structuredContent"]["error"]["code"], "ALREADY_IN_MATCH",
        "{again}"
    );
    s.stop().await;
}

/// Every place `a` and `b` differ, as JSON paths.
fn differences(a: &Value, b: &Value, path: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let (va, vb) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                differences(va, vb, format!("{path}.{k}"), out);
            }
        }
        _ if a != b => out.push(path),
        _ => {}
    }
}

/// The thirteen Werewolf tools, from their original JSON (kept verbatim in tests/data), against
/// tools/list at `/mcp/werewolf`: every field is the original's, except the fixes that
/// `src/games/werewolf/catalog.rs` lists.
#[tokio::test]
async fn tools_list_serves_the_werewolf_tools_with_only_the_documented_fixes() {
    let seed: Vec<Value> =
        serde_json::from_str(include_str!("../data/werewolf_tools.json")).unwrap();
    assert_eq!(seed.len(), 13);
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    // At the set's own address (/mcp/werewolf), as an agent built for these tools connects.
    let listed =
        crate::support::mcp_request(s.http, &a.token, "/mcp/werewolf", "tools/list", json!({}))
            .await;
    let tools = listed["tools"].as_array().unwrap();
    // The set is the original thirteen and the practice match: an agent built for them meets
    // the server it expects.
    let names: std::collections::BTreeSet<&str> =
        tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let seeds: std::collections::BTreeSet<&str> =
        seed.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(seeds.is_subset(&names), "{names:?}");
    let extras: Vec<&str> = names.difference(&seeds).copied().collect();
    assert_eq!(extras, ["et.werewolf.practice.start"]);
    // The documented fixes: (tool, JSON path prefix).
    let night = [
        "et.werewolf.match.night.wolf_chat",
        "et.werewolf.match.night.wolf_kill",
        "et.werewolf.match.night.seer_inspect",
        "et.werewolf.match.night.doctor_protect",
    ];
    let allowed = |tool: &str, path: &str| -> bool {
        let queue = ["et.werewolf.queue.join", "et.werewolf.queue.status"].contains(&tool);
        path == ".outputSchema.required" // fix 1
            || (queue && [".position.type", ".status.enum", ".estimatedStartSeconds.type"].iter().any(|p| path == format!(".outputSchema.properties.queue.properties{p}"))) // fix 4
            || (night.contains(&tool) && [".annotations.destructiveHint", ".annotations.idempotentHint"].contains(&path)) // fix 7
            || (tool == "et.werewolf.match.events.get" && [
                ".inputSchema.properties.waitSeconds",
                ".outputSchema.properties.events.items.properties.visibility.enum",
                ".outputSchema.properties.events.items.properties.type.enum",
                ".outputSchema.properties.events.items.properties.source",
                ".outputSchema.properties.nextCursor",
                ".outputSchema.properties.hasMore",
            ].iter().any(|p| path.starts_with(p))) // fix 8
            || (tool == "et.werewolf.match.get_state" && [
                ".outputSchema.properties.state.properties.phaseEndsAt.type",
                ".outputSchema.properties.state.properties.you.properties.requiredAction.type",
                ".outputSchema.properties.state.properties.you.properties.requiredAction.properties.canAbstain",
                ".outputSchema.properties.state.properties.you.properties.requiredAction.properties.deadline",
            ].iter().any(|p| path.starts_with(p))) // fix 9
    };
    for want in &seed {
        let name = want["name"].as_str().unwrap();
        let got = tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} is not served"));
        let mut diffs = Vec::new();
        for k in [
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
        ] {
            differences(&want[k], &got[k], format!(".{k}"), &mut diffs);
        }
        for d in &diffs {
            assert!(
                allowed(name, d),
                "{name}: {d} differs from the original without a documented fix"
            );
        }
        // Fix 1 on every tool: an error result can conform.
        assert_eq!(
            got["outputSchema"]["required"],
            json!(["ok", "serverTime", "error"]),
            "{name}"
        );
    }
    let tool = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap();
    let q = &tool("et.werewolf.queue.join")["outputSchema"]["properties"]["queue"]["properties"];
    assert_eq!(q["position"]["type"], json!(["integer", "null"]));
    assert!(
        q["status"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("MATCHED"))
    );
    for n in night {
        assert_eq!(tool(n)["annotations"]["destructiveHint"], false, "{n}");
    }
    let ev = &tool("et.werewolf.match.events.get")["outputSchema"]["properties"];
    let item = &ev["events"]["items"]["properties"];
    assert!(
        item["visibility"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("WOLVES"))
    );
    assert!(
        item["type"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("SEER_RESULT"))
    );
    assert!(ev["nextCursor"].is_object() && ev["hasMore"].is_object());
    let req = &tool("et.werewolf.match.get_state")["outputSchema"]["properties"]["state"]["properties"]
        ["you"]["properties"]["requiredAction"];
    assert!(
        req["properties"]["canAbstain"].is_object() && req["properties"]["deadline"].is_object()
    );
    s.stop().await;
}

#[tokio::test]
async fn events_are_paged_filtered_by_reader_and_can_be_waited_for() {
    let s = TestServer::start_with(|c| c.time_scale = 1.0).await;
    let api = s.api();
    let me = api.agent(Some("Pia")).await;
    let watcher = api.agent(Some("Wes")).await;
    let r =
        crate::support::mcp_tool(s.http, &me.token, "et.werewolf.practice.start", json!({})).await;
    // An agent is told the tools to call next, not a person's words (`ready`).
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(
        text.ends_with(
            "Call `et.werewolf.match.ready`, then `et.werewolf.match.get_state` to see where it \
             stands."
        ),
        "{text}"
    );
    let mid = r["structuredContent"]["matchAssignment"]["matchId"]
        .as_str()
        .unwrap()
        .to_owned();
    let get = |token: String, args: Value| {
        let http = s.http;
        async move { crate::support::mcp_tool(http, &token, "et.werewolf.match.events.get", args).await }
    };
    let mine = get(me.token.clone(), json!({"matchId": mid})).await;
    let sc = &mine["structuredContent"];
    let kinds: Vec<&str> = sc["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds[0], "MATCH_CREATED");
    assert_eq!(
        kinds.iter().filter(|k| **k == "ROLE_ASSIGNED").count(),
        1,
        "only her own card: {kinds:?}"
    );
    assert_eq!(sc["events"][0]["source"], "NARRATOR");
    // A spectator reads no role card at all, whatever it asks.
    let theirs = get(watcher.token.clone(), json!({"matchId": mid, "limit": 200})).await;
    let st = &theirs["structuredContent"];
    assert!(
        st["events"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["visibility"] == "PUBLIC"),
        "{st}"
    );
    // Once the seven bots are ready, nothing happens until Pia is (or the lobby's 30 s end).
    let seen = loop {
        let seen = get(me.token.clone(), json!({"matchId": mid, "limit": 200})).await;
        let ready = seen["structuredContent"]["events"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "PLAYER_READY")
            .count();
        if ready == 7 {
            break seen;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    // Paging: one at a time from the first. (Asked before the bots were ready, this found
    // only the start and Pia's card on a busy machine: one page, and no more.)
    let first = get(
        me.token.clone(),
        json!({"matchId": mid, "afterEventId": "e000000", "limit": 1}),
    )
    .await;
    let f = &first["structuredContent"];
    assert_eq!(f["events"].as_array().unwrap().len(), 1);
    assert_eq!(f["hasMore"], true);
    assert_eq!(f["nextCursor"], f["events"][0]["eventId"]);
    // An unknown cursor is INVALID_CURSOR.
    let bad = get(
        me.token.clone(),
        json!({"matchId": mid, "afterEventId": "e999999"}),
    )
    .await;
    assert_eq!(
        bad["structuredContent"]["error"]["code"], "INVALID_CURSOR",
        "{bad}"
    );
    // Waiting: nothing follows the newest event until Pia acts, so a one-second wait comes
    // back empty after about a second, not the face's thirty.
    let latest = seen["structuredContent"]["nextCursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let t0 = std::time::Instant::now();
    let waited = get(
        me.token.clone(),
        json!({"matchId": mid, "afterEventId": latest, "waitSeconds": 1}),
    )
    .await;
    let took = t0.elapsed();
    let w = &waited["structuredContent"];
    assert!(w["events"].as_array().unwrap().is_empty(), "{w}");
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(10),
        "{took:?}"
    );
    // A wait that something ends: Pia gets ready while another call waits.
    let http = s.http;
    let token = me.token.clone();
    let (m2, l2) = (mid.clone(), latest.clone());
    let waiting = tokio::spawn(async move {
        crate::support::mcp_tool(
            http,
            &token,
            "et.werewolf.match.events.get",
            json!({"matchId": m2, "afterEventId": l2, "waitSeconds": 20}),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    crate::support::mcp_tool(
        s.http,
        &me.token,
        "et.werewolf.match.ready",
        json!({"matchId": mid}),
    )
    .await;
    let woke = waiting.await.unwrap();
    let events = woke["structuredContent"]["events"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "PLAYER_READY" && e["source"] == "p1"),
        "{woke}"
    );
    s.stop().await;
}

/// A werewolf.v1 session over REST: `me` in seat 1, the house's bots in the rest, with these
/// extra options; its id.
async fn session_with_bots(
    api: &crate::support::Api,
    me: &crate::support::Agent,
    options: Value,
) -> String {
    let (status, v) = post_match_with_bots(api, me, options).await;
    assert_eq!(status, 201, "{v}");
    v["session_id"].as_str().unwrap().to_owned()
}

/// Asks for a match of `me` (seat 1) and the house's bots, with `options`; the answer.
/// `who` signs the notice board over MCP at `http` (the queue tool's result).
pub async fn sign_board(http: std::net::SocketAddr, who: &crate::support::Agent) -> Value {
    crate::support::mcp_tool(http, &who.token, "et.werewolf.queue.join", json!({})).await
}

pub async fn post_match_with_bots(
    api: &crate::support::Api,
    me: &crate::support::Agent,
    mut options: Value,
) -> (u16, Value) {
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), json!(me.id));
    for (i, b) in BOTS.iter().enumerate() {
        participants.insert(format!("p{}", i + 2), json!(b));
    }
    options["bots"] = json!([2, 3, 4, 5, 6, 7, 8]);
    api.post(
        "/sessions",
        &me.token,
        json!({ "template": "werewolf.v1", "participants": participants, "options": options }),
    )
    .await
}

#[tokio::test]
async fn an_idempotency_key_replays_the_first_answer_and_refuses_other_arguments() {
    let s = TestServer::start().await;
    let a = s.api().agent(Some("Ida")).await;
    let call = |tool: &'static str, args: Value| {
        let (http, token) = (s.http, a.token.clone());
        async move {
            crate::support::mcp_tool(http, &token, tool, args).await["structuredContent"].clone()
        }
    };
    let first = call(
        "et.werewolf.queue.join",
        json!({"idempotencyKey": "join-0001"}),
    )
    .await;
    assert_eq!(first["queue"]["position"], 1, "{first}");
    tokio::time::sleep(Duration::from_millis(5)).await;
    // The same call again: the first answer, word for word (its serverTime too).
    let again = call(
        "et.werewolf.queue.join",
        json!({"idempotencyKey": "join-0001"}),
    )
    .await;
    assert_eq!(again, first);
    // The same key with other arguments.
    let other = call(
        "et.werewolf.queue.join",
        json!({"idempotencyKey": "join-0001", "preferredDisplayName": "Idaho"}),
    )
    .await;
    assert_eq!(other["error"]["code"], "IDEMPOTENCY_KEY_REUSED", "{other}");
    // Keys are per tool: the same key on leave is a new call.
    let left = call(
        "et.werewolf.queue.leave",
        json!({"idempotencyKey": "join-0001"}),
    )
    .await;
    assert_eq!(left["removed"], true, "{left}");
    let left_again = call(
        "et.werewolf.queue.leave",
        json!({"idempotencyKey": "join-0001"}),
    )
    .await;
    assert_eq!(left_again, left, "a retried leave answers as the first did");
    let fresh = call("et.werewolf.queue.leave", json!({})).await;
    assert_eq!(fresh["removed"], false);
    let short = call("et.werewolf.queue.join", json!({"idempotencyKey": "k"})).await;
    assert_eq!(short["error"]["code"], "INVALID_REQUEST", "{short}");
    s.stop().await;
}

/// A key outlives a restart: the retry is answered as the first time and is not taken again.
#[tokio::test]
async fn an_idempotency_key_is_kept_across_a_restart() {
    let s = TestServer::start().await;
    let api = s.api();
    let me = api.agent(Some("Ivo")).await;
    let mid = session_with_bots(&api, &me, json!({"timers": {"lobby": 3600}})).await;
    let ready = json!({"matchId": mid, "idempotencyKey": "ready-0001"});
    let first =
        crate::support::mcp_tool(s.http, &me.token, "et.werewolf.match.ready", ready.clone()).await
            ["structuredContent"]
            .clone();
    assert_eq!(first["ok"], true, "{first}");
    let db = s.db.clone();
    let dir = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let again = crate::support::mcp_tool(s.http, &me.token, "et.werewolf.match.ready", ready).await
        ["structuredContent"]
        .clone();
    assert_eq!(again, first, "the first answer, word for word");
    let (_, log) = s
        .api()
        .get(&format!("/sessions/{mid}/log"), &me.token)
        .await;
    let mine = log["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["role"] == "p1")
        .count();
    assert_eq!(mine, 1, "taken once: {log}");
    let other = crate::support::mcp_tool(
        s.http,
        &me.token,
        "et.werewolf.match.ready",
        json!({"matchId": "999", "idempotencyKey": "ready-0001"}),
    )
    .await;
    assert_eq!(
        other["structuredContent"]["error"]["code"], "IDEMPOTENCY_KEY_REUSED",
        "{other}"
    );
    s.stop().await;
    drop(dir);
}

#[tokio::test]
async fn the_rules_and_role_cards_are_prompts_and_resources_rendered_from_the_running_rules() {
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    let prompts =
        crate::support::mcp_request(s.http, &a.token, "/mcp/werewolf", "prompts/list", json!({}))
            .await;
    let names: Vec<&str> = prompts["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    for n in [
        "werewolf-rules",
        "werewolf-role-villager",
        "werewolf-role-werewolf",
        "werewolf-role-seer",
        "werewolf-role-doctor",
    ] {
        assert!(names.contains(&n), "{prompts}");
    }
    let seer = crate::support::mcp_request(
        s.http,
        &a.token,
        "/mcp/werewolf",
        "prompts/get",
        json!({"name": "werewolf-role-seer"}),
    )
    .await;
    let text = seer["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(
        text.contains("Role: Seer") && text.contains("NIGHT (45 s)"),
        "{seer}"
    );
    let listed = crate::support::mcp_request(
        s.http,
        &a.token,
        "/mcp/werewolf",
        "resources/list",
        json!({}),
    )
    .await;
    assert!(
        listed["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == "werewolf://rules"),
        "{listed}"
    );
    let rules = crate::support::mcp_request(
        s.http,
        &a.token,
        "/mcp/werewolf",
        "resources/read",
        json!({"uri": "werewolf://rules"}),
    )
    .await;
    let text = rules["contents"][0]["text"].as_str().unwrap();
    // The same text `werewolf rules` prints, from the same configuration.
    let expected = moot::games::werewolf::rules::text::rules(
        &moot::games::werewolf::rules::config::Config::default(),
    )
    .join("\n");
    assert_eq!(text, expected);
    s.stop().await;
}

/// Eight agents of the Python `mcp` package play a whole match over Streamable HTTP with the
/// thirteen Werewolf tools alone (tests/mcp/werewolf_agents.py), every result checked against its schema.
#[tokio::test]
async fn eight_python_sdk_agents_play_a_whole_match_with_the_werewolf_tools() {
    let s = TestServer::start_with(|c| c.time_scale = 50.0).await;
    let api = s.api();
    let mut tokens = Vec::new();
    for i in 0..8 {
        tokens.push(api.agent(Some(&format!("Py{i}"))).await.token);
    }
    let (url, tokens) = (format!("http://{}/mcp/werewolf", s.http), tokens.join(","));
    let seen = crate::support::run_python("mcp/werewolf_agents.py", &[&url, &tokens]).await;
    assert!(
        ["VILLAGERS", "WEREWOLVES"].contains(&seen["winner"].as_str().unwrap_or("")),
        "{seen}"
    );
    let agents = seen["agents"].as_object().unwrap();
    assert_eq!(agents.len(), 8);
    for (_, a) in agents {
        let phases = a["phases"].as_array().unwrap();
        assert!(
            phases.contains(&json!("NIGHT")) && phases.contains(&json!("ENDED")),
            "{a}"
        );
    }
    s.stop().await;
}

/// A person on telnet plays their match to its end, doing what `werewolf` says (the first
/// target offered; an opening; abstaining). `row` starts their own line in the table
/// ("Tess (p1)"). Returns their role and every line they were sent.
async fn plays_by_telnet(tess: &mut crate::support::Client, row: &str) -> (String, Vec<String>) {
    // A match takes about 15 s here; the bound is for a stuck one, on a busy machine too.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(240);
    let mut my_role = String::new();
    let mut heard = Vec::new();
    loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the match did not end: {heard:#?}"
        );
        while let Ok(Some(l)) = tess.line_within(Duration::from_millis(30)).await {
            heard.push(l);
        }
        if heard.iter().any(|l| {
            l.starts_with("[Town Crier] The villagers win")
                || l.starts_with("[Town Crier] The werewolves win")
        }) {
            break;
        }
        // Notices that arrive while the command is on its way count as heard: the match's last
        // lines may come just then (missing them once left a finished match looking stuck).
        let (meanwhile, status) = tess.command_hearing("werewolf").await;
        heard.extend(meanwhile);
        // Her own row shows her role: "  Tess (p1)   alive  Doctor".
        if let Some(row) = status.iter().find(|l| l.trim_start().starts_with(row))
            && my_role.is_empty()
        {
            my_role = row.split_whitespace().nth(3).unwrap_or("").to_owned();
            assert!(
                ["Villager", "Werewolf", "Seer", "Doctor"].contains(&my_role.as_str()),
                "{row}"
            );
        }
        let Some(brief) = status.last() else { continue };
        let act = if brief.contains("kill <name>") {
            first_offered(brief).map(|t| format!("kill {t}"))
        } else if brief.contains("inspect <name>") {
            first_offered(brief).map(|t| format!("inspect {t}"))
        } else if brief.contains("protect <name>") {
            first_offered(brief).map(|t| format!("protect {t}"))
        } else if brief.contains("turn to speak") {
            Some("say I am a plain villager, honest.".to_owned())
        } else if brief.starts_with("Vote:") {
            Some("vote none".to_owned())
        } else {
            None
        };
        if let Some(a) = act {
            tess.send(&a).await;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    (my_role, heard)
}

/// Six Python-SDK agents and two people on telnet sign the same board and play one match to
/// its end, each through their own face.
#[tokio::test]
async fn six_agents_and_two_telnet_players_play_one_match() {
    let s = TestServer::start_with(|c| c.time_scale = 50.0).await;
    let api = s.api();
    let mut tokens = Vec::new();
    for i in 0..6 {
        tokens.push(api.agent(Some(&format!("Mix{i}"))).await.token);
    }
    let mut people = Vec::new();
    for name in ["Tilly", "Tomas"] {
        let mut p = s.player(name).await;
        p.command("north").await;
        let signed = p.command("sign board").await;
        assert!(signed.iter().any(|l| l.contains("of 8")), "{signed:?}");
        people.push((name, p));
    }
    let (url, tokens) = (format!("http://{}/mcp/werewolf", s.http), tokens.join(","));
    let args = [url.as_str(), tokens.as_str()];
    let agents = crate::support::run_python("mcp/werewolf_agents.py", &args);
    let mut tomas = people.pop().unwrap().1;
    let mut tilly = people.pop().unwrap().1;
    let (seen, a, b) = tokio::join!(
        agents,
        plays_by_telnet(&mut tilly, "Tilly ("),
        plays_by_telnet(&mut tomas, "Tomas (")
    );
    let winner = seen["winner"].as_str().unwrap();
    let told = |heard: &[String]| {
        heard
            .iter()
            .any(|l| l.starts_with(&format!("[Town Crier] The {} win", winner.to_lowercase())))
    };
    assert!(
        told(&a.1) && told(&b.1),
        "both people heard the agents' winner, {winner}"
    );
    // Each person heard the other person's words or votes, and the agents' too.
    assert!(a.1.iter().any(|l| l.starts_with("Mix")), "{:#?}", a.1);
    // A match from the notice board is rated: each side on its own board, and each part (wolf,
    // seer, doctor, villager) on its own too, people and agents side by side, the winners
    // above the newcomers' 1500.
    let (status, v) = api.send("GET", "/leaderboards/werewolf", None, None).await;
    assert_eq!(status, 200, "{v}");
    let boards = v["boards"].as_array().unwrap();
    let names: Vec<&str> = boards
        .iter()
        .map(|b| b["board"].as_str().unwrap())
        .collect();
    let mut names = names;
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "werewolf/doctor",
            "werewolf/seer",
            "werewolf/village",
            "werewolf/villager",
            "werewolf/wolf",
            "werewolf/wolves"
        ],
        "{v}"
    );
    // One match leaves every rating provisional: the boards list nobody yet, and count the
    // eight players they leave out, on their sides' boards and their parts'.
    let left_out: u64 = boards
        .iter()
        .map(|b| {
            assert_eq!(b["rows"], serde_json::json!([]), "{v}");
            b["provisional_left_out"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(left_out, 16, "{v}");
    // The match is on the cross-game table's scale too: eight players with one game each,
    // each left out until they have five.
    let (status, v) = api.send("GET", "/crosstable.json", None, None).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (&v["rows"], &v["left_out"]),
        (&serde_json::json!([]), &serde_json::json!(8)),
        "{v}"
    );
    assert!(v["model"].as_str().unwrap().contains("Werewolf"), "{v}");
    let winners = if winner == "VILLAGERS" {
        "werewolf/village"
    } else {
        "werewolf/wolves"
    };
    let (_, tilly_ratings) = api.send("GET", "/ratings/Tilly", None, None).await;
    let st = tilly_ratings["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["board"] == "werewolf/village" || s["board"] == "werewolf/wolves")
        .unwrap();
    assert_eq!(
        st["rating"].as_f64().unwrap() > 1500.0,
        st["board"] == winners,
        "{tilly_ratings}"
    );
    // The match's report shows what it did to each of the sixteen ratings (a side's and a
    // part's for each player).
    let report = tilly.command("report").await;
    let moved: Vec<&String> = report
        .iter()
        .filter(|l| l.starts_with("Rating, "))
        .collect();
    assert_eq!(moved.len(), 16, "{report:#?}");
    assert!(
        moved
            .iter()
            .any(|l| l.starts_with("Rating, Tilly (") && l.contains(": 1500? → ")),
        "{report:#?}"
    );
    // At the notice board, a name stands with its ratings on both sides: moved on the side
    // Tilly played, a newcomer's on the other.
    tilly.command("out").await;
    tilly.command("sign board").await;
    let q = tilly.command("queue").await;
    let shown = q[0]
        .strip_prefix("On the notice board (1 of 8), rated as village/wolves: Tilly ")
        .and_then(|r| r.strip_suffix('.'))
        .unwrap_or_else(|| panic!("{q:?}"));
    let (village, wolves) = shown.split_once('/').unwrap();
    assert!(
        (village == "1500?") != (wolves == "1500?"),
        "one side moved: {q:?}"
    );
    s.stop().await;
}

/// Reads of state and events are limited per identity (2 a second by default, in bursts
/// of 4), with a retry-after; waiting that long is enough.
#[tokio::test]
async fn reads_are_rate_limited_per_identity_with_a_retry_after() {
    let s = TestServer::start_with(|c| c.read_rate = 2.0).await;
    let a = s.api().agent(None).await;
    let mut refused = None;
    for _ in 0..8 {
        let r =
            crate::support::mcp_tool(s.http, &a.token, "et.werewolf.queue.status", json!({})).await;
        if r["isError"] == true {
            refused = Some(r["structuredContent"].clone());
            break;
        }
    }
    let refused = refused.expect("eight reads at once are not all admitted");
    assert_eq!(refused["error"]["code"], "RATE_LIMITED", "{refused}");
    assert_eq!(refused["error"]["retryable"], true);
    let wait = refused["error"]["retryAfterMs"].as_u64().unwrap();
    assert!(wait > 0 && wait <= 1000, "{refused}");
    tokio::time::sleep(Duration::from_millis(wait + 20)).await;
    let r = crate::support::mcp_tool(s.http, &a.token, "et.werewolf.queue.status", json!({})).await;
    assert_eq!(r["structuredContent"]["ok"], true, "{r}");
    // Another identity is not slowed by the first.
    let b = s.api().agent(None).await;
    let r = crate::support::mcp_tool(s.http, &b.token, "et.werewolf.queue.status", json!({})).await;
    assert_eq!(r["structuredContent"]["ok"], true, "{r}");
    s.stop().await;
}

/// A lone signer does not wait for ever: after `--werewolf-fill-after`, the house's bots take
/// the empty seats and the match begins.
#[tokio::test]
async fn the_house_fills_a_board_that_has_waited_long_enough() {
    let s = TestServer::start_with(|c| {
        c.games.werewolf.fill_after = Duration::from_secs(1).into();
    })
    .await;
    let mut lone = s.player("Lone").await;
    lone.command("north").await;
    let signed = lone.command("sign board").await;
    assert!(signed.iter().any(|l| l.contains("(1 of 8)")), "{signed:?}");
    // Within a few seconds the Town Crier opens the match, with Lone in the first seat.
    let begun = lone.expect("Werewolf Game #1 begins").await;
    assert!(
        begun.iter().any(|l| l.starts_with("[Town Crier]")),
        "{begun:?}"
    );
    let state = lone.command("werewolf").await;
    assert!(
        state
            .iter()
            .any(|l| l.trim_start().starts_with("Lone (p1)")),
        "{state:?}"
    );
    assert!(
        state.iter().any(|l| l.contains("Bot-Abel (p2, bot)")),
        "{state:?}"
    );
    let q = lone.command("queue").await;
    assert!(q.iter().any(|l| l.contains("Nobody has signed")), "{q:?}");
    s.stop().await;
}

/// A signer who starts a match another way while waiting on the board (over REST, with the
/// house's bots) is not seated in a second when the house fills the board: they leave it.
#[tokio::test]
async fn a_signer_who_starts_a_match_meanwhile_is_not_seated_in_another_when_the_board_fills() {
    let s = TestServer::start_with(|c| {
        c.games.werewolf.fill_after = Duration::from_secs(1).into();
    })
    .await;
    let api = s.api();
    let ida = api.agent(Some("Ida")).await;
    let joined = sign_board(s.http, &ida).await;
    assert_ne!(joined["isError"], true, "{joined}");
    let (status, v) = post_match_with_bots(&api, &ida, json!({})).await;
    assert_eq!(status, 201, "{v}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let (status, v) = api
        .get(&format!("/sessions?agent_id={}", ida.id), &ida.token)
        .await;
    assert_eq!(status, 200, "{v}");
    let matches = v["sessions"]
        .as_array()
        .unwrap_or_else(|| panic!("{v}"))
        .iter()
        .filter(|s| s["template"] == "werewolf.v1")
        .count();
    assert_eq!(matches, 1, "{v}");
    let board =
        crate::support::mcp_tool(s.http, &ida.token, "et.werewolf.queue.status", json!({})).await;
    assert_eq!(board["structuredContent"]["queue"]["size"], 0, "{board}");
    s.stop().await;
}

/// Nor at the eighth signature: a signer playing a match begun another way leaves the board at
/// the next signature and is not counted toward the eight; the eight who may sit down do.
#[tokio::test]
async fn a_signer_who_starts_a_match_meanwhile_is_not_seated_at_the_eighth_signature() {
    let s = TestServer::start().await;
    let api = s.api();
    let ida = api.agent(Some("Ida")).await;
    let joined = sign_board(s.http, &ida).await;
    assert_ne!(joined["isError"], true, "{joined}");
    let (status, v) = post_match_with_bots(&api, &ida, json!({})).await;
    assert_eq!(status, 201, "{v}");
    for i in 0..8 {
        let who = api.agent(Some(&format!("Signer{i}"))).await;
        let joined = sign_board(s.http, &who).await;
        assert_ne!(joined["isError"], true, "{joined}");
        // Ida is off the board from the first of them: the seventh makes seven, not eight,
        // and the eighth begins their match, in the last seat.
        let queue = &joined["structuredContent"]["queue"];
        if i < 7 {
            assert_eq!(queue["status"], "WAITING", "{joined}");
            assert_eq!(queue["size"], i + 1, "{joined}");
        } else {
            assert_eq!(queue["status"], "MATCHED", "{joined}");
            assert_eq!(queue["size"], 0, "{joined}");
            let seat = &joined["structuredContent"]["matchAssignment"]["seat"];
            assert_eq!(seat, 8, "{joined}");
        }
    }
    let (status, v) = api
        .get(&format!("/sessions?agent_id={}", ida.id), &ida.token)
        .await;
    assert_eq!(status, 200, "{v}");
    let matches = v["sessions"].as_array().unwrap_or_else(|| panic!("{v}"));
    assert_eq!(matches.len(), 1, "{v}");
    let board =
        crate::support::mcp_tool(s.http, &ida.token, "et.werewolf.queue.status", json!({})).await;
    assert_eq!(
        board["structuredContent"]["queue"]["position"],
        Value::Null,
        "{board}"
    );
    s.stop().await;
}

/// Finished matches do not pile up: after four practice matches the Town Hall shows the last
/// three plaques, the town's map has no empty building of a finished match, and the home
/// page's list keeps the last three finished (each with its page, which replays it).
#[tokio::test]
async fn finished_matches_leave_the_hall_and_the_map_but_the_last_few() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let mut tess = s.player("Tess").await;
    tess.command("north").await;
    let mut numbers = Vec::new();
    for _ in 0..4 {
        let started = tess.command("werewolf practice").await;
        let n: String = started[0]
            .strip_prefix("Werewolf Game #")
            .and_then(|r| r.split_whitespace().next())
            .unwrap_or_else(|| panic!("{started:?}"))
            .to_owned();
        tess.command(&format!("game{n}")).await;
        tess.send("ready").await;
        plays_by_telnet(&mut tess, "Tess (p1)").await;
        tess.command("out").await;
        numbers.push(n);
    }
    let hall = tess.command("look").await.join("\n");
    assert_eq!(
        hall.matches("a plaque for Werewolf Game #").count(),
        3,
        "{hall}"
    );
    assert!(
        !hall.contains(&format!("a plaque for Werewolf Game #{},", numbers[0])),
        "{hall}"
    );
    for n in &numbers[1..] {
        assert!(hall.contains(&format!("Werewolf Game #{n}")), "{hall}");
    }
    let town: Value = reqwest::get(format!("http://{}/town.json", s.http))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let rooms = town["rooms"].as_array().unwrap();
    assert!(
        !rooms.iter().any(|r| r["name"]
            .as_str()
            .unwrap_or("")
            .starts_with("Werewolf Game")),
        "{rooms:#?}"
    );
    let listed: Vec<String> = town["werewolf"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["number"].to_string())
        .collect();
    let last_three = vec![numbers[3].clone(), numbers[2].clone(), numbers[1].clone()];
    assert_eq!(listed, last_three);
    s.stop().await;
}

/// A match keeps its players from the town, and a chess game's chat is no way around it: a
/// player in a match can neither send a line out of it nor be sent one.
#[tokio::test]
async fn a_chess_chat_neither_reaches_into_a_match_nor_out_of_it() {
    let s = TestServer::start().await;
    let api = s.api();
    let cy = api.agent(Some("Cy")).await;
    let mut tess = s.player("Tess").await;
    let (status, v) = api
        .post(
            "/sessions",
            &cy.token,
            json!({"template": "chess.v1", "participants": {"white": cy.id, "black": "Tess"}}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let game = v["session_id"].as_str().unwrap().to_owned();
    tess.command("accept Cy").await;
    // Before the match, the chat goes both ways.
    let (status, v) = api
        .post(
            &format!("/api/bot/game/{game}/chat"),
            &cy.token,
            json!({"room": "player", "text": "hi"}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    tess.expect("Cy (game #").await;
    tess.command("north").await;
    let started = tess.command("werewolf practice").await;
    assert!(
        started.iter().any(|l| l.contains("Werewolf Game #")),
        "{started:?}"
    );
    let (status, v) = api
        .post(
            &format!("/api/bot/game/{game}/chat"),
            &cy.token,
            json!({"room": "player", "text": "psst"}),
        )
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"].as_str().unwrap().contains("cannot hear you"),
        "{v}"
    );
    let said = tess.command(&format!("chat #{game} the seer is p3")).await;
    assert!(
        said.iter().any(|l| l.contains("nothing you say leaves it")),
        "{said:?}"
    );
}
