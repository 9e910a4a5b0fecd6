//! The state-machine host over real HTTP: its REST API, its eight invariants, races, bad
//! input, and games played to the end.

use serde_json::{Value, json};

use crate::support::{Agent, Api, TestServer};

async fn chess_pair(api: &Api) -> (Agent, Agent, String) {
    let white = api.agent(None).await;
    let black = api.agent(None).await;
    let id = api
        .session(&white, "chess.v1", &[("white", &white), ("black", &black)])
        .await;
    (white, black, id)
}

fn code(v: &Value) -> &str {
    v["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error: {v}"))
}

#[tokio::test]
async fn health_and_agents() {
    let s = TestServer::start().await;
    let api = s.api();
    let (status, v) = api.send("GET", "/health", None, None).await;
    assert_eq!((status, v), (200, json!({"status": "ok"})));
    let named = api.agent(Some("Deep_Thought")).await;
    assert_eq!(named.name, "Deep_Thought");
    assert!(named.token.starts_with(&format!("moot_{}_", named.id)));
    let anonymous = api.agent(None).await;
    assert!(anonymous.name.starts_with("Agent_"), "{}", anonymous.name);
    let (status, v) = api
        .send("POST", "/agents", None, Some(r#"{"name": "deep_thought"}"#))
        .await;
    assert_eq!((status, code(&v)), (409, "CONFLICT"));
    let (status, v) = api
        .send("POST", "/agents", None, Some(r#"{"name": "no spaces"}"#))
        .await;
    assert_eq!((status, code(&v)), (400, "INVALID_REQUEST"));
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("may hold only"),
        "{v}"
    );
}

#[tokio::test]
async fn invariant_1_no_action_without_auth() {
    let s = TestServer::start().await;
    let api = s.api();
    let (_, _, id) = chess_pair(&api).await;
    let body = r#"{"action": "e2e4", "expected_tick": 0}"#;
    for token in [None, Some("nonsense"), Some("moot_x_0000")] {
        let (status, v) = api
            .send(
                "POST",
                &format!("/sessions/{id}/actions"),
                token,
                Some(body),
            )
            .await;
        assert_eq!((status, code(&v)), (401, "UNAUTHORIZED"), "{token:?}");
    }
    for path in [
        "/sessions".to_owned(),
        format!("/sessions/{id}/state"),
        format!("/sessions/{id}/log"),
    ] {
        let (status, _) = api.send("GET", &path, None, None).await;
        assert_eq!(status, 401, "{path}");
    }
    let resp = reqwest::get(format!("http://{}/sessions", s.http))
        .await
        .unwrap();
    // RFC 9728: the 401 says where the protected resource's metadata is.
    assert_eq!(
        resp.headers()["www-authenticate"],
        format!(
            "Bearer realm=\"moot\", resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\", scope=\"moot\"",
            s.http
        )
    );
}

#[tokio::test]
async fn invariant_2_no_action_by_a_non_participant() {
    let s = TestServer::start().await;
    let api = s.api();
    let (_, _, id) = chess_pair(&api).await;
    let stranger = api.agent(None).await;
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &stranger.token,
            json!({"action": "e2e4", "expected_tick": 0}),
        )
        .await;
    assert_eq!((status, code(&v)), (403, "FORBIDDEN"));
    for path in [
        format!("/sessions/{id}/state"),
        format!("/sessions/{id}/log"),
    ] {
        let (status, v) = api.get(&path, &stranger.token).await;
        assert_eq!((status, code(&v)), (403, "FORBIDDEN"), "{path}");
    }
    let (status, v) = api.get("/sessions/999/state", &stranger.token).await;
    assert_eq!((status, code(&v)), (404, "NOT_FOUND"));
}

#[tokio::test]
async fn invariant_3_no_illegal_action() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, _, id) = chess_pair(&api).await;
    let (_, state) = api
        .get(&format!("/sessions/{id}/state"), &white.token)
        .await;
    assert_eq!(state["legal_actions"].as_array().unwrap().len(), 20);
    for bad in ["e2e5", "e7e5", "castle", ""] {
        let (status, v) = api
            .post(
                &format!("/sessions/{id}/actions"),
                &white.token,
                json!({"action": bad, "expected_tick": 0}),
            )
            .await;
        assert_eq!((status, code(&v)), (400, "INVALID_ACTION"), "{bad:?}");
    }
    let (_, after) = api
        .get(&format!("/sessions/{id}/state"), &white.token)
        .await;
    assert_eq!(after["tick"], 0, "nothing changed");
}

#[tokio::test]
async fn invariant_4_no_out_of_turn_action() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, black, id) = chess_pair(&api).await;
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &black.token,
            json!({"action": "e7e5", "expected_tick": 0}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, "INVALID_ACTION"));
    assert_eq!(v["error"]["message"], "Not your turn");
    let (status, _) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &white.token,
            json!({"action": "e2e4", "expected_tick": 0}),
        )
        .await;
    assert_eq!(status, 200);
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &white.token,
            json!({"action": "d2d4", "expected_tick": 1}),
        )
        .await;
    assert_eq!(
        (status, v["error"]["message"].as_str()),
        (400, Some("Not your turn"))
    );
}

#[tokio::test]
async fn invariant_5_no_double_action() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, _, id) = chess_pair(&api).await;
    let act = |tick| json!({"action": "e2e4", "expected_tick": tick});
    assert_eq!(
        api.post(&format!("/sessions/{id}/actions"), &white.token, act(0))
            .await
            .0,
        200
    );
    let (status, v) = api
        .post(&format!("/sessions/{id}/actions"), &white.token, act(0))
        .await;
    assert_eq!((status, code(&v)), (409, "CONFLICT"));

    let p1 = api.agent(None).await;
    let p2 = api.agent(None).await;
    let rps = api
        .session(&p1, "rps.v1", &[("player_1", &p1), ("player_2", &p2)])
        .await;
    assert_eq!(
        api.post(
            &format!("/sessions/{rps}/actions"),
            &p1.token,
            json!({"action": "rock"})
        )
        .await
        .0,
        200
    );
    let (status, v) = api
        .post(
            &format!("/sessions/{rps}/actions"),
            &p1.token,
            json!({"action": "paper"}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, "ALREADY_ACTED"));
}

#[tokio::test]
async fn invariant_6_no_action_after_the_end() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, black, id) = chess_pair(&api).await;
    // Fool's mate.
    for (tick, (who, mv)) in [
        (&white, "f2f3"),
        (&black, "e7e5"),
        (&white, "g2g4"),
        (&black, "d8h4"),
    ]
    .into_iter()
    .enumerate()
    {
        let (status, v) = api
            .post(
                &format!("/sessions/{id}/actions"),
                &who.token,
                json!({"action": mv, "expected_tick": tick}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
    }
    let (_, state) = api
        .get(&format!("/sessions/{id}/state"), &white.token)
        .await;
    assert_eq!(state["status"], "completed");
    assert_eq!(
        state["state"]["outcome"],
        json!({"winner": "black", "reason": "checkmate"})
    );
    assert_eq!(state["legal_actions"], json!([]));
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &white.token,
            json!({"action": "a2a3", "expected_tick": 4}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, "INVALID_ACTION"));
    assert_eq!(v["error"]["message"], format!("Session {id} is completed"));
}

#[tokio::test]
async fn invariant_7_reads_change_nothing() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, black, id) = chess_pair(&api).await;
    api.post(
        &format!("/sessions/{id}/actions"),
        &white.token,
        json!({"action": "e2e4", "expected_tick": 0}),
    )
    .await;
    let snapshot = async || {
        (
            api.get(&format!("/sessions/{id}/state"), &white.token)
                .await,
            api.get(&format!("/sessions/{id}/log"), &black.token).await,
            api.get("/sessions", &white.token).await,
        )
    };
    let before = snapshot().await;
    for _ in 0..20 {
        snapshot().await;
        api.get(&format!("/sessions/{id}/state"), &black.token)
            .await;
    }
    assert_eq!(snapshot().await, before);
}

#[tokio::test]
async fn invariant_8_the_log_cannot_be_changed() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, _, id) = chess_pair(&api).await;
    api.post(
        &format!("/sessions/{id}/actions"),
        &white.token,
        json!({"action": "e2e4", "expected_tick": 0}),
    )
    .await;
    // No route changes it...
    for method in ["PUT", "DELETE", "PATCH", "POST"] {
        let (status, _) = api
            .send(
                method,
                &format!("/sessions/{id}/log"),
                Some(&white.token),
                Some("{}"),
            )
            .await;
        assert_eq!(status, 405, "{method}");
    }
    // ...and the database itself refuses.
    let update = crate::support::sql_exec(&s.db, "UPDATE actions SET action = 'd2d4'").unwrap_err();
    assert!(update.contains("the action log is append-only"), "{update}");
    let delete = crate::support::sql_exec(&s.db, "DELETE FROM actions").unwrap_err();
    assert!(delete.contains("the action log is append-only"), "{delete}");
    let (_, log) = api.get(&format!("/sessions/{id}/log"), &white.token).await;
    assert_eq!(log["actions"][0]["action"], "e2e4");
    assert_eq!(log["actions"][0]["tick"], 0);
    assert_eq!(log["actions"][0]["role"], "white");
    assert_eq!(log["actions"][0]["agent_id"], white.id.as_str());
}

#[tokio::test]
async fn two_actions_with_the_same_tick_one_wins_the_other_conflicts() {
    let s = TestServer::start().await;
    let api = s.api();
    let white = api.agent(None).await;
    let black = api.agent(None).await;
    for round in 0..40 {
        let id = api
            .session(&white, "chess.v1", &[("white", &white), ("black", &black)])
            .await;
        let path = format!("/sessions/{id}/actions");
        let a = api.post(
            &path,
            &white.token,
            json!({"action": "e2e4", "expected_tick": 0}),
        );
        let b = api.post(
            &path,
            &white.token,
            json!({"action": "d2d4", "expected_tick": 0}),
        );
        let ((sa, va), (sb, vb)) = tokio::join!(a, b);
        let mut statuses = [sa, sb];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "round {round}: {va} {vb}");
        let (_, log) = api.get(&format!("/sessions/{id}/log"), &white.token).await;
        assert_eq!(log["actions"].as_array().unwrap().len(), 1, "round {round}");
    }
}

#[tokio::test]
async fn malformed_requests_get_invalid_request_never_500() {
    let s = TestServer::start().await;
    let api = s.api();
    let a = api.agent(None).await;
    let b = api.agent(None).await;
    let cases: Vec<(String, &str)> = vec![
        ("{not json".into(), "Invalid JSON"),
        (
            r#"{"template": 7, "participants": {}}"#.into(),
            "invalid type",
        ),
        (
            format!(
                r#"{{"template": "go.v1", "participants": {{"white": "{}"}}}}"#,
                a.id
            ),
            "Unknown template `go.v1`",
        ),
        (
            format!(
                r#"{{"template": "chess.v1", "participants": {{"white": "{}"}}}}"#,
                a.id
            ),
            "Role `black` is not filled",
        ),
        (
            format!(
                r#"{{"template": "chess.v1", "participants": {{"white": "{}", "black": "{}", "red": "{}"}}}}"#,
                a.id, b.id, b.id
            ),
            "no role `red`",
        ),
        (
            format!(
                r#"{{"template": "chess.v1", "participants": {{"white": "{}", "black": "ghost"}}}}"#,
                a.id
            ),
            "Unknown agent `ghost`",
        ),
        (
            format!(
                r#"{{"template": "chess.v1", "participants": {{"white": "{}", "black": "{}"}}, "colour": 1}}"#,
                a.id, b.id
            ),
            "unknown field `colour`",
        ),
        (
            format!(
                r#"{{"template": "chess.v1", "participants": {{"white": "{}", "black": "{}"}}, "options": {{"fen": "8/8"}}}}"#,
                a.id, b.id
            ),
            "not a FEN",
        ),
        (
            format!(
                r#"{{"template": "chess.v1", "participants": {{"white": "{}", "black": "{}"}}}}"#,
                a.id, a.id
            ),
            "cannot take two roles",
        ),
        (
            format!(
                r#"{{"template": "chess.v1", "participants": {{"white": "{}", "black": "server"}}}}"#,
                a.id
            ),
            "`server` is the server's own identity",
        ),
        (
            format!(
                r#"{{"template": "rps.v1", "participants": {{"player_1": "{}", "player_2": "{}"}}, "pad": "{}"}}"#,
                a.id,
                b.id,
                "x".repeat(100_000)
            ),
            "larger than 64 KiB",
        ),
        (String::new(), "A JSON body is required"),
    ];
    for (body, says) in cases {
        let (status, v) = api
            .send("POST", "/sessions", Some(&a.token), Some(&body))
            .await;
        assert_eq!((status, code(&v)), (400, "INVALID_REQUEST"), "{says}: {v}");
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(msg.contains(says), "expected {says:?} in {msg:?}");
    }
    let id = api
        .session(&a, "chess.v1", &[("white", &a), ("black", &b)])
        .await;
    let (status, v) = api
        .send(
            "POST",
            &format!("/sessions/{id}/actions"),
            Some(&a.token),
            Some(r#"{"action": "e2e4", "expected_tick": "zero"}"#),
        )
        .await;
    assert_eq!((status, code(&v)), (400, "INVALID_REQUEST"));
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &a.token,
            json!({"action": "e2e4"}),
        )
        .await;
    assert_eq!((status, code(&v)), (400, "INVALID_REQUEST"));
    assert_eq!(
        v["error"]["message"],
        "expected_tick is required for chess.v1"
    );
    let (status, v) = api
        .get(&format!("/sessions?agent_id={}", b.id), &a.token)
        .await;
    assert_eq!((status, code(&v)), (403, "FORBIDDEN"));
    let (status, v) = api.get("/sessions/not-a-number/state", &a.token).await;
    assert_eq!((status, code(&v)), (404, "NOT_FOUND"));
    let (status, v) = api.send("GET", "/nowhere", None, None).await;
    assert_eq!((status, code(&v)), (404, "NOT_FOUND"));
}

#[tokio::test]
async fn openapi_lists_every_route_as_served() {
    let s = TestServer::start().await;
    let api = s.api();
    let (status, doc) = api.send("GET", "/openapi.json", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    let listed: Vec<(String, String)> = doc["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(p, ops)| {
            ops.as_object()
                .unwrap()
                .keys()
                .map(move |m| (m.to_uppercase(), p.clone()))
        })
        .collect();
    let routes: Vec<(String, String)> = moot::http::routes()
        .iter()
        .map(|r| (r.method.to_string(), r.path.to_string()))
        .collect();
    for r in &routes {
        assert!(listed.contains(r), "{r:?} is not in /openapi.json");
    }
    assert_eq!(listed.len(), routes.len());
    for seed_route in [
        ("GET", "/health"),
        ("POST", "/agents"),
        ("POST", "/sessions"),
        ("GET", "/sessions"),
        ("GET", "/sessions/{session_id}/state"),
        ("POST", "/sessions/{session_id}/actions"),
        ("GET", "/sessions/{session_id}/log"),
    ] {
        assert!(
            listed.contains(&(seed_route.0.into(), seed_route.1.into())),
            "{seed_route:?}"
        );
        // And each is really served: not a 404 "no such path" or a 405.
        let path = seed_route.1.replace("{session_id}", "1");
        let (status, v) = api.send(seed_route.0, &path, None, Some("{}")).await;
        assert!(
            ![405].contains(&status) && v["error"]["message"] != "No such path; see /openapi.json",
            "{seed_route:?}: {status} {v}"
        );
    }
    assert!(doc["paths"]["/sessions"]["post"]["requestBody"]["content"]["application/json"]["schema"]["properties"]["template"].is_object());
}

#[tokio::test]
async fn two_agents_play_a_whole_chess_game() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, black, id) = chess_pair(&api).await;
    let mut tick = 0;
    // Each side plays the first legal move the server offers, until the game ends by itself
    // (such games end by repetition, the fifty-move rule or mate within a few hundred plies).
    loop {
        let (_, state) = api
            .get(&format!("/sessions/{id}/state"), &white.token)
            .await;
        if state["status"] == "completed" {
            break;
        }
        let mover = if state["state"]["turn"] == "white" {
            &white
        } else {
            &black
        };
        let (_, mine) = api
            .get(&format!("/sessions/{id}/state"), &mover.token)
            .await;
        let choice =
            mine["legal_actions"][tick % mine["legal_actions"].as_array().unwrap().len()].clone();
        let (status, v) = api
            .post(
                &format!("/sessions/{id}/actions"),
                &mover.token,
                json!({"action": choice, "expected_tick": tick}),
            )
            .await;
        assert_eq!(status, 200, "{v}");
        tick += 1;
        assert!(tick < 2000, "the game never ended");
    }
    let (_, log) = api.get(&format!("/sessions/{id}/log"), &black.token).await;
    assert_eq!(log["actions"].as_array().unwrap().len(), tick);
    let (_, state) = api
        .get(&format!("/sessions/{id}/state"), &black.token)
        .await;
    assert!(state["state"]["outcome"]["reason"].is_string(), "{state}");
}

#[tokio::test]
async fn two_agents_play_a_round_of_rock_paper_scissors() {
    let s = TestServer::start().await;
    let api = s.api();
    let p1 = api.agent(None).await;
    let p2 = api.agent(None).await;
    let id = api
        .session(&p2, "rps.v1", &[("player_1", &p1), ("player_2", &p2)])
        .await;
    let (_, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &p1.token,
            json!({"action": "scissors"}),
        )
        .await;
    assert_eq!(v["tick"], 1);
    assert_eq!(v["state"]["choices"]["player_1"], "scissors");
    let (_, other) = api.get(&format!("/sessions/{id}/state"), &p2.token).await;
    assert_eq!(
        other["state"]["choices"]["player_1"],
        Value::Null,
        "hidden while choosing: {other}"
    );
    assert_eq!(other["state"]["phase"], "commit");
    let (_, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &p2.token,
            json!({"action": "rock"}),
        )
        .await;
    assert_eq!(v["tick"], 2);
    assert_eq!(v["status"], "completed");
    assert_eq!(
        v["state"],
        json!({"phase": "reveal", "choices": {"player_1": "scissors", "player_2": "rock"}, "result": "player_2_wins"})
    );
    let (_, list) = api.get("/sessions", &p1.token).await;
    assert_eq!(list["sessions"][0]["your_role"], "player_1");
    assert_eq!(list["sessions"][0]["status"], "completed");
}

#[tokio::test]
async fn a_rest_chess_game_stands_in_the_parlour() {
    let s = TestServer::start().await;
    let api = s.api();
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    let (white, black, id) = chess_pair(&api).await;
    // By its game's title (it once said "a new chess.v1 game").
    ann.expect(&format!("A new chess game begins here: #{id}"))
        .await;
    api.post(
        &format!("/sessions/{id}/actions"),
        &white.token,
        json!({"action": "e2e4", "expected_tick": 0}),
    )
    .await;
    let look = ann.command("look").await;
    let line = format!(
        "Game #{id} (chess): {} (white) vs {} (black), black to move, move 1. (`look #{id}` to see \
         it.)",
        white.name, black.name
    );
    assert!(look.contains(&line), "{look:#?}");
    let board = ann.command(&format!("look #{id}")).await;
    assert_eq!(
        board[0],
        format!(
            "Game #{id} (chess): {} (white) vs {} (black)",
            white.name, black.name
        )
    );
    assert!(
        board.contains(&"4 . . . . P . . . 4".to_owned()),
        "{board:#?}"
    );
    assert_eq!(
        board.last().unwrap(),
        "Last move: e4 (e2e4). Black to move."
    );
    assert_eq!(
        ann.command("look #99").await,
        ["There is no game #99 here."]
    );
}

#[tokio::test]
async fn a_telnet_player_gets_and_rotates_an_api_token() {
    let s = TestServer::start().await;
    let api = s.api();
    let mut ann = s.player("Ann").await;
    let got = ann.command("@token").await;
    let token = got[0]
        .strip_prefix("Your API token: ")
        .expect("a token")
        .to_owned();
    // One sentence, on one line (wrapped only by the terminal's width).
    assert_eq!(
        ann.command("@token").await,
        [
            "You already have an API token. It is stored only as a hash, so it cannot be shown \
          again; `@token new` makes a new one (and the old one stops working)."
        ]
    );
    let bot = api.agent(None).await;
    let (status, list) = api.get("/sessions", &token).await;
    assert_eq!((status, list), (200, json!({"sessions": []})));
    // Ann can start a game with her telnet identity.
    let (status, v) = api.post("/sessions", &token, json!({"template": "chess.v1", "participants": {"white": token.split('_').nth(1).unwrap(), "black": bot.id}})).await;
    assert_eq!(status, 201, "{v}");
    let fresh = ann.command("@token new").await[0]
        .strip_prefix("Your API token: ")
        .unwrap()
        .to_owned();
    assert_ne!(fresh, token);
    assert_eq!(
        api.get("/sessions", &token).await.0,
        401,
        "the old token is dead"
    );
    assert_eq!(api.get("/sessions", &fresh).await.0, 200);
}

#[tokio::test]
async fn sessions_survive_a_restart_by_replay_and_tampering_stops_start_up() {
    let s = TestServer::start().await;
    let db = s.db.clone();
    let api = s.api();
    let (white, black, id) = chess_pair(&api).await;
    for (tick, (who, mv)) in [(&white, "e2e4"), (&black, "c7c5"), (&white, "g1f3")]
        .into_iter()
        .enumerate()
    {
        assert_eq!(
            api.post(
                &format!("/sessions/{id}/actions"),
                &who.token,
                json!({"action": mv, "expected_tick": tick})
            )
            .await
            .0,
            200
        );
    }
    let (_, before) = api
        .get(&format!("/sessions/{id}/state"), &white.token)
        .await;
    let (_, log_before) = api.get(&format!("/sessions/{id}/log"), &black.token).await;
    assert_eq!(log_before["actions"].as_array().map(Vec::len), Some(3));
    let dir = s.stop().await;

    let s = TestServer::on_db(&db, |_| {}).await;
    let api = s.api();
    let (_, after) = api
        .get(&format!("/sessions/{id}/state"), &white.token)
        .await;
    assert_eq!(after, before);
    // The log the world rebuilt from the store reads as the one it kept while playing.
    let (_, log_after) = api.get(&format!("/sessions/{id}/log"), &black.token).await;
    assert_eq!(log_after, log_before);
    let (status, _) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &black.token,
            json!({"action": "d7d6", "expected_tick": 3}),
        )
        .await;
    assert_eq!(status, 200, "play goes on after the restart");
    let second = api
        .session(
            &black,
            "rps.v1",
            &[("player_1", &white), ("player_2", &black)],
        )
        .await;
    assert_ne!(second, id, "ids are not reused");
    s.stop().await;

    // A stored state that its log does not produce stops start-up, naming the session.
    assert!(id.chars().all(|c| c.is_ascii_alphanumeric()), "{id}");
    crate::support::sql_exec(
        &db,
        &format!(
            "UPDATE sessions SET state = '{{\"fen\": \"tampered\"}}' WHERE session_id = '{id}'"
        ),
    )
    .unwrap();
    let mut c = crate::support::config(&db);
    c.http = "127.0.0.1:0".parse().unwrap();
    let err = moot::start(c).await.err().expect("start-up refuses");
    assert!(
        err.to_string()
            .contains(&format!("session {id}: replaying its log gives")),
        "{err}"
    );
    drop(dir);
}

#[tokio::test]
async fn an_api_agent_walks_the_town_with_its_token() {
    let s = TestServer::start().await;
    let api = s.api();
    let bot = api.agent(Some("Robo")).await;
    let mut ann = s.player("Ann").await;
    let mut robo = s.client().await;
    robo.expect("quit").await;
    robo.send("connect Robo wrong-token").await;
    robo.expect("Either that player does not exist, or has a different password.")
        .await;
    robo.send(&format!("connect robo {}", bot.token)).await;
    assert_eq!(robo.line().await.unwrap(), "*** Connected ***");
    ann.expect("Robo has connected.").await;
    robo.expect("Exits:").await;
    robo.send("say beep").await;
    assert_eq!(ann.line().await.unwrap(), "Robo says, \"beep\"");
    // Someone else's valid token does not open this character.
    let other = api.agent(None).await;
    let mut thief = s.client().await;
    thief.expect("quit").await;
    thief.send(&format!("connect Robo {}", other.token)).await;
    thief.expect("Either that player does not exist").await;
}

/// SAN is taken wherever a move is (REST, `session_act`, `finishTurn`, as telnet already did),
/// and the log keeps UCI; a refusal gives its reason once.
#[tokio::test]
async fn chess_moves_in_san_are_taken_on_every_face_and_logged_as_uci() {
    let s = TestServer::start().await;
    let api = s.api();
    let (white, black, id) = chess_pair(&api).await;
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &white.token,
            json!({"action": "e4", "expected_tick": 0}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let r = crate::support::mcp_tool(
        s.http,
        &black.token,
        "session_act",
        json!({"session_id": id, "action": "e5", "expected_tick": 1}),
    )
    .await;
    assert_ne!(r["isError"], true, "{r}");
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &white.token,
            json!({"action": "Qh9", "expected_tick": 2}),
        )
        .await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(code(&v), "INVALID_ACTION");
    assert_eq!(
        v["error"]["message"],
        "`Qh9` is not a legal move here (give UCI like e2e4 or e7e8q, or SAN like Nf3)"
    );
    assert_eq!(api.logged(&id, &white.token).await, ["e2e4", "e7e5"]);

    // The chess tools' finishTurn, against the computer: Nf3 is played as g1f3.
    let game = crate::support::mcp_tool(
        s.http,
        &white.token,
        "createGame",
        json!({"type": "computer", "color": "white"}),
    )
    .await["structuredContent"]["game_id"]
        .clone();
    let r = crate::support::mcp_tool(
        s.http,
        &white.token,
        "finishTurn",
        json!({"game_id": game, "move": "Nf3"}),
    )
    .await;
    assert_ne!(r["isError"], true, "{r}");
    let bad = crate::support::mcp_tool(
        s.http,
        &white.token,
        "finishTurn",
        json!({"game_id": game, "move": "Ke9"}),
    )
    .await;
    let text = bad.to_string();
    assert!(!text.contains("Illegal action"), "one reason: {text}");
    let game = game
        .as_str()
        .map_or_else(|| game.to_string(), str::to_owned);
    let (_, log) = api
        .get(&format!("/sessions/{game}/log"), &white.token)
        .await;
    assert_eq!(log["actions"][0]["action"], "g1f3", "{log}");
    s.stop().await;
}

/// The sessions' routes are their verbs' faces, one way into the world: REST takes players by
/// name as `session_create` does, answers an acceptance as `session_accept` does, and each call
/// is counted as its verb, from the REST face.
#[tokio::test]
async fn the_session_routes_are_their_verbs() {
    let s = TestServer::start_with(|c| c.metrics_token = Some("m-secret".into())).await;
    let api = s.api();
    let ada = api.agent(Some("Ada")).await;
    let bob = api.agent(Some("Bob")).await;
    let (status, made) = api
        .post(
            "/sessions",
            &ada.token,
            json!({"template": "rps.v1", "participants": {"player_1": "Ada", "player_2": "bob"}}),
        )
        .await;
    assert_eq!(
        status, 201,
        "players by name, as the verb takes them: {made}"
    );
    let id = made["session_id"].as_str().unwrap().to_owned();
    let (status, answered) = api
        .post(&format!("/sessions/{id}/accept"), &bob.token, json!({}))
        .await;
    assert_eq!(status, 200, "{answered}");
    assert_eq!(answered["name"], "Ada", "who asked, as session_accept says");
    assert_eq!(answered["template"], "rps.v1");
    assert_eq!(answered["status"], "active");
    let (status, acted) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &ada.token,
            json!({"action": "rock", "reasoning": "  it never loses to scissors  "}),
        )
        .await;
    assert_eq!(status, 200, "{acted}");
    // A refusal keeps the host's own code: the same action twice is ALREADY_ACTED (400), not what a verb's kind would say (INVALID_ACTION, FORBIDDEN).
    let (status, again) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &ada.token,
            json!({"action": "paper"}),
        )
        .await;
    assert_eq!((status, code(&again)), (400, "ALREADY_ACTED"), "{again}");
    let metrics = s.metrics("m-secret").await;
    for verb in ["session_create", "session_accept", "session_act"] {
        let line = format!("moot_commands_total{{face=\"rest\",verb=\"{verb}\"}}");
        assert!(metrics.contains(&line), "{line} in:\n{metrics}");
    }
    s.stop().await;
}
