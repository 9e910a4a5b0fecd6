//! Nobody plays a game they did not agree to: a session that names anyone besides its creator
//! waits for each of them, on any face, and nothing (a clock, a rating, a running-session slot)
//! touches them before they accept; they may decline, and an unanswered invitation lapses.

use std::time::Duration;

use serde_json::json;

use crate::support::{TestServer, mcp_tool};

#[tokio::test]
async fn a_session_naming_someone_waits_for_them_on_every_face() {
    let s = TestServer::start().await;
    let api = s.api();
    let (ada, bea) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    let chess = |white: &str, black: &str| {
        json!({"template": "chess.v1", "participants": {"white": white, "black": black},
               "options": {"clock": "1+0", "rated": true}})
    };

    // REST: the session waits; neither player can act in it, and only they can see it.
    let (status, v) = api
        .post("/sessions", &ada.token, chess(&ada.id, &bea.id))
        .await;
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["status"], "waiting", "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let (status, v) = api.get("/sessions", &bea.token).await;
    assert_eq!(status, 200);
    assert_eq!(v["sessions"][0]["session_id"], id.as_str(), "{v}");
    assert_eq!(v["sessions"][0]["status"], "waiting", "{v}");
    assert_eq!(v["sessions"][0]["your_role"], "black", "{v}");
    let (status, v) = api.get(&format!("/sessions/{id}/state"), &bea.token).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "waiting");
    assert_eq!(v["state"]["invitation"]["from"], ada.id.as_str(), "{v}");
    assert_eq!(
        v["state"]["invitation"]["waiting_for"],
        json!([bea.id]),
        "{v}"
    );
    assert_eq!(v["legal_actions"], json!([]));
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &ada.token,
            json!({"action": "e2e4", "expected_tick": 0}),
        )
        .await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("waits for Bea to accept"),
        "{v}"
    );
    let outsider = api.agent(Some("Cyd")).await;
    let (status, _) = api
        .get(&format!("/sessions/{id}/state"), &outsider.token)
        .await;
    assert_eq!(status, 403, "only its players may look at an invitation");
    let (status, _) = api
        .post(
            &format!("/sessions/{id}/accept"),
            &outsider.token,
            json!({}),
        )
        .await;
    assert_eq!(status, 403, "nobody else may accept it");
    // Its maker cannot accept for the one asked.
    let (status, v) = api
        .post(&format!("/sessions/{id}/accept"), &ada.token, json!({}))
        .await;
    assert_eq!(status, 409, "{v}");

    // MCP: Bea sees it among her sessions and declines it; Ada hears of it.
    let listed = mcp_tool(s.http, &bea.token, "session_list", json!({})).await;
    let rows = &listed["structuredContent"]["sessions"];
    assert_eq!(rows[0]["status"], "waiting", "{listed}");
    let declined = mcp_tool(
        s.http,
        &bea.token,
        "session_decline",
        json!({"session_id": id}),
    )
    .await;
    assert_eq!(
        declined["structuredContent"]["status"], "declined",
        "{declined}"
    );
    let (status, v) = api.get("/sessions", &bea.token).await;
    assert_eq!(
        (status, &v["sessions"]),
        (200, &json!([])),
        "a declined game is gone"
    );
    let (status, _) = api
        .post(&format!("/sessions/{id}/accept"), &bea.token, json!({}))
        .await;
    assert_eq!(
        status, 404,
        "a declined invitation cannot be accepted after all"
    );

    // Asked again, Bea accepts over REST: the game begins under the same id, with its clock.
    let (_, v) = api
        .post("/sessions", &ada.token, chess(&ada.id, &bea.id))
        .await;
    let id = v["session_id"].as_str().unwrap().to_owned();
    let (status, v) = api
        .post(&format!("/sessions/{id}/accept"), &bea.token, json!({}))
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(
        (v["session_id"].as_str(), v["status"].as_str()),
        (Some(&*id), Some("active"))
    );
    let (_, v) = api.get(&format!("/sessions/{id}/state"), &ada.token).await;
    assert_eq!(v["status"], "active", "{v}");
    assert_eq!(v["legal_actions"].as_array().unwrap().len(), 20, "{v}");

    // Telnet: a person named in a session hears a line, and answers with `accept <name>`.
    let mut cyd = s.player("Cyn").await;
    let cyn_id = telnet_id(&mut cyd).await;
    let (status, v) = api
        .post(
            "/sessions",
            &ada.token,
            json!({"template": "tictactoe.v1", "participants": {"x": ada.id, "o": cyn_id}}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    assert_eq!(v["status"], "waiting");
    let id = v["session_id"].as_str().unwrap().to_owned();
    cyd.expect(&format!(
        "Ada invites you to a game of tic-tac-toe (casual): #{id}, Ada (x) vs Cyn (o). Type `accept Ada` or `decline Ada`; it lapses in 10m."
    ))
    .await;
    cyd.send("accept Ada").await;
    cyd.expect(&format!(
        "You accept Ada's challenge: game #{id}, you play o."
    ))
    .await;
    let (_, v) = api.get(&format!("/sessions/{id}/state"), &ada.token).await;
    assert_eq!(v["status"], "active", "{v}");
}

/// The API token `@token` gives a telnet player (`moot_<id>_<secret>`).
pub(crate) async fn telnet_token(c: &mut crate::support::Client) -> String {
    let lines = c.command("@token").await;
    lines
        .iter()
        .find_map(|l| l.split_whitespace().find(|w| w.starts_with("moot_")))
        .unwrap_or_else(|| panic!("no token in {lines:?}"))
        .trim_end_matches('.')
        .to_owned()
}

/// A telnet player's own id, from their token.
async fn telnet_id(c: &mut crate::support::Client) -> String {
    telnet_token(c).await.split('_').nth(1).unwrap().to_owned()
}

#[tokio::test]
async fn fifty_games_forced_on_someone_leave_them_untouched() {
    let s = TestServer::start().await;
    let api = s.api();
    let (mallory, victim) = (
        api.agent(Some("Mallory")).await,
        api.agent(Some("Vic")).await,
    );
    for _ in 0..50 {
        let (status, v) = api
            .post(
                "/sessions",
                &mallory.token,
                json!({"template": "chess.v1", "participants": {"white": mallory.id, "black": victim.id},
                       "options": {"clock": "1+0", "rated": true}}),
            )
            .await;
        assert_eq!(status, 201, "{v}");
        assert_eq!(v["status"], "waiting", "{v}");
    }
    // One standing invitation a pair and game: the fifty were one, asked again and again.
    let (_, v) = api.get("/sessions", &victim.token).await;
    assert_eq!(v["sessions"].as_array().unwrap().len(), 1, "{v}");
    // Past the one-minute clock of every game: nobody's flag fell, since none began.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (_, v) = api.send("GET", "/ratings/Vic", None, None).await;
    assert_eq!(
        v["standings"],
        json!([]),
        "the victim's rating is untouched: {v}"
    );
    // They start a game of their own at once, against `house` (the name telnet's `play … with
    // house` and MCP's `play` give the house's computer, which REST once refused).
    let (status, v) = api
        .post(
            "/sessions",
            &victim.token,
            json!({"template": "chess.v1", "participants": {"white": victim.id, "black": "house"}}),
        )
        .await;
    assert_eq!((status, v["status"].as_str()), (201, Some("active")), "{v}");
}

#[tokio::test]
async fn an_invitation_lapses_unanswered_and_lives_through_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |c| c.invitation_lapse = Duration::from_secs(3).into()).await;
    let api = s.api();
    let (ada, bea) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    let rps =
        json!({"template": "rps.v1", "participants": {"player_1": ada.id, "player_2": bea.id}});
    let (_, v) = api.post("/sessions", &ada.token, rps.clone()).await;
    let id = v["session_id"].as_str().unwrap().to_owned();
    // A restart keeps it, under its id.
    s.stop().await;
    let s = TestServer::on_db(&db, |c| c.invitation_lapse = Duration::from_secs(3).into()).await;
    let api = s.api();
    let (_, v) = api.get("/sessions", &bea.token).await;
    assert_eq!(v["sessions"][0]["session_id"], id.as_str(), "{v}");
    assert_eq!(v["sessions"][0]["status"], "waiting", "{v}");
    // A new session does not take its id.
    let (_, v) = api
        .post(
            "/sessions",
            &ada.token,
            json!({"template": "chess.v1", "participants": {"white": ada.id, "black": "computer"}}),
        )
        .await;
    assert_ne!(v["session_id"], id.as_str(), "{v}");
    // Unanswered, it lapses.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (_, v) = api.get("/sessions", &bea.token).await;
    assert_eq!(v["sessions"], json!([]), "it lapsed: {v}");
    let (status, _) = api
        .post(&format!("/sessions/{id}/accept"), &bea.token, json!({}))
        .await;
    assert_eq!(status, 404);
    s.stop().await;
}

/// `play … with` sets the game as a session's options do: rated, and a time limit.
#[tokio::test]
async fn play_with_someone_asks_for_a_rated_game_with_a_limit_a_move() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    for c in [&mut ann, &mut bob] {
        c.command("south").await;
    }
    // Rated needs a limit, and a clock needs its limit.
    let refused = ann.command("play tictactoe with Bob rated").await;
    assert!(
        refused[0].starts_with("A rated tic-tac-toe game needs a time limit"),
        "{refused:?}"
    );
    let usage = ann.command("play tictactoe with Bob clock").await;
    assert!(usage[0].contains("[rated] [clock <limit>]"), "{usage:?}");
    let bad = ann.command("play tictactoe with Bob clock 3y").await;
    assert!(bad[0].contains("`3y` is not a time per move"), "{bad:?}");

    assert_eq!(
        ann.command("play tictactoe with Bob rated clock 1d").await,
        ["You invite Bob to a game of tic-tac-toe."]
    );
    bob.expect(
        "Ann invites you to a game of tic-tac-toe (rated, clock 1d). Type `accept Ann` to \
         accept (from anywhere), or `decline Ann`.",
    )
    .await;
    // What the invitation says to type works, from wherever Bob stands (it once said `play
    // tictactoe with Ann`, which needs Ann in the room).
    bob.command("north").await;
    let accepted = bob.command("accept Ann").await;
    assert!(
        accepted[0].starts_with("You accept Ann's challenge: game #")
            && accepted[0].ends_with(", you play o."),
        "{accepted:?}"
    );
    // The game has its limit: a day for each move.
    let id: String = accepted[0]
        .split('#')
        .nth(1)
        .unwrap()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let token = telnet_token(&mut ann).await;
    let (status, v) = s.api().get(&format!("/sessions/{id}/state"), &token).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["state"]["clock"]["per_move_ms"], 86_400_000, "{v}");
    s.stop().await;
}
