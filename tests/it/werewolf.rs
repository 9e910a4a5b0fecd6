//! Werewolf through the generic host: a match of one agent and seven house bots, driven over
//! REST at `--time-scale 100`, runs to its end on the server actor's deadlines; the agent never
//! sees what its seat may not; the log replays after a restart.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestServer;

const BOTS: [&str; 7] = [
    "bot-1", "bot-2", "bot-3", "bot-4", "bot-5", "bot-6", "bot-7",
];

#[tokio::test]
async fn a_practice_match_of_an_agent_and_seven_house_bots_plays_to_its_end() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let api = s.api();
    let me = api.agent(Some("Wanda")).await;
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), json!(me.id));
    for (i, b) in BOTS.iter().enumerate() {
        participants.insert(format!("p{}", i + 2), json!(b));
    }
    let (status, v) = api
        .post(
            "/sessions",
            &me.token,
            json!({
                "template": "werewolf.v1",
                "participants": participants,
                "options": {"bots": [2, 3, 4, 5, 6, 7, 8], "names": ["Wanda"]},
            }),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let sid = v["session_id"].as_str().unwrap().to_owned();
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
            let (status, v) = api
                .post(
                    &format!("{path}/actions"),
                    &me.token,
                    json!({ "action": action }),
                )
                .await;
            // The phase may have moved on between reading and acting: a clear refusal.
            assert!(status == 200 || status == 400, "{status} {v}");
            acted += usize::from(status == 200);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(acted >= 2, "Wanda acted {acted} times");
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
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), json!(me.id));
    for (i, b) in BOTS.iter().enumerate() {
        participants.insert(format!("p{}", i + 2), json!(b));
    }
    // Long nights, so the bots' night actions are in the log while it runs.
    let (status, v) = api
        .post(
            "/sessions",
            &me.token,
            json!({
                "template": "werewolf.v1",
                "participants": participants,
                "options": {"bots": [2, 3, 4, 5, 6, 7, 8], "timers": {"lobby": 1, "night": 3600}},
            }),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let sid = v["session_id"].as_str().unwrap();
    let path = format!("/sessions/{sid}");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    let log: Value = loop {
        assert!(tokio::time::Instant::now() < deadline, "no night actions");
        let (_, log) = api.get(&format!("{path}/log"), &me.token).await;
        let n = log["actions"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["role"] != "p1" && e["role"] != "server")
            .filter(|e| e["action"] != "ready")
            .count();
        if n >= 2 {
            break log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let (_, st) = api.get(&format!("{path}/state"), &me.token).await;
    let my_role = st["state"]["you"]["role"].as_str().unwrap().to_owned();
    for e in log["actions"].as_array().unwrap() {
        let action = e["action"].as_str().unwrap();
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
