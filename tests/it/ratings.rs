//! Ratings over real sockets: a rated chess game between two people moves both ratings on
//! telnet and REST alike, a casual one moves nothing, agents get their own table rows, and
//! `moot ratings rebuild` gets from the logs exactly what was stored.

use moot::ratings::glicko2::{Game, START};
use serde_json::json;

use crate::support::{Client, TestServer};

/// Ann and Bob in the Chess Parlour.
async fn at_the_tables(s: &TestServer) -> (Client, Client) {
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    let mut bob = s.player("Bob").await;
    bob.send("east").await;
    bob.expect("Exits:").await;
    ann.expect("Bob has arrived.").await;
    (ann, bob)
}

/// Ann challenges Bob with `terms` (Ann white) and resigns game `n`.
async fn ann_resigns(ann: &mut Client, bob: &mut Client, terms: &str, shown: &str, n: u32) {
    ann.send(&format!("challenge Bob as white{terms}")).await;
    bob.expect(&format!(
        "Ann challenges you to a game of chess (you would play black{shown})."
    ))
    .await;
    bob.send("accept Ann").await;
    bob.expect("You accept Ann's challenge").await;
    ann.send(&format!("resign #{n}")).await;
    let end = "Game over: Black wins by resignation (0-1).";
    ann.expect(end).await;
    bob.expect(end).await;
}

/// What two newcomers' first game gives the winner and the loser, as `ratings` shows it.
fn first_game() -> (String, String) {
    let won = START.after(&[Game {
        opponent: START,
        score: 1.0,
    }]);
    let lost = START.after(&[Game {
        opponent: START,
        score: 0.0,
    }]);
    (
        format!("{:.0}?", won.rating),
        format!("{:.0}?", lost.rating),
    )
}

#[tokio::test]
async fn a_rated_game_moves_both_ratings_on_every_face_and_a_rebuild_gives_the_same() {
    let s = TestServer::start().await;
    let (mut ann, mut bob) = at_the_tables(&s).await;
    let (winner, loser) = first_game();

    // Nothing yet, and a clear answer for it.
    assert_eq!(
        ann.command("ratings").await,
        [
            "Ratings of Ann (person):",
            "  No rated or recorded games yet."
        ]
    );
    assert_eq!(
        ann.command("leaderboard chess").await,
        ["No leaderboard for \"chess\": nobody has finished a rated game yet."]
    );
    // The computer's strength is set by its level: a game with it is never rated.
    let refused = ann.command("challenge computer rated").await;
    assert!(
        refused[0].contains("A game against the Computer is casual"),
        "{refused:?}"
    );

    ann_resigns(&mut ann, &mut bob, " rated", ", rated", 1).await;
    let bob_line = format!("  chess/no-clock     {winner:>6}  1 game: 1 won, 0 lost, 0 drawn");
    let ann_line = format!("  chess/no-clock     {loser:>6}  1 game: 0 won, 1 lost, 0 drawn");
    assert_eq!(
        ann.command("ratings Bob").await,
        ["Ratings of Bob (person):", bob_line.as_str()]
    );
    assert_eq!(
        ann.command("ratings").await,
        ["Ratings of Ann (person):", ann_line.as_str()]
    );
    let board = bob.command("leaderboard chess people").await;
    assert!(board[0].starts_with("chess/no-clock (rules "), "{board:?}");
    assert_eq!(
        board[1..],
        [
            format!("   1. Bob              person {winner:>6}  1 game: 1 won, 0 lost, 0 drawn"),
            format!("   2. Ann              person {loser:>6}  1 game: 0 won, 1 lost, 0 drawn"),
        ]
    );
    assert_eq!(
        bob.command("leaderboard chess agents").await[1..],
        ["  Nobody here yet."]
    );
    assert_eq!(
        bob.command("leaderboard go").await,
        ["No leaderboard for \"go\"; there are: chess/no-clock."]
    );

    // REST says the same, to anyone.
    let api = s.api();
    let (status, v) = api.send("GET", "/ratings/bob", None, None).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["name"], "Bob");
    assert_eq!(v["kind"], "person");
    let st = &v["standings"][0];
    assert_eq!(
        (&st["board"], &st["won"], &st["provisional"], &st["current"]),
        (
            &json!("chess/no-clock"),
            &json!(1),
            &json!(true),
            &json!(true)
        )
    );
    assert_eq!(format!("{:.0}?", st["rating"].as_f64().unwrap()), winner);
    let (status, v) = api
        .send("GET", "/leaderboards/chess?whom=people", None, None)
        .await;
    assert_eq!(status, 200, "{v}");
    let names: Vec<&str> = v["boards"][0]["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Bob", "Ann"]);
    let (status, v) = api.send("GET", "/ratings/Nobody", None, None).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (404, &json!("NOT_FOUND")),
        "{v}"
    );

    // A casual game moves nothing.
    ann_resigns(&mut ann, &mut bob, "", "", 2).await;
    assert_eq!(
        ann.command("ratings Bob").await,
        ["Ratings of Bob (person):", bob_line.as_str()]
    );

    // The ratings are derived from the logs: a rebuild from them gives what was stored, and a
    // restart keeps it.
    let db = s.db.clone();
    drop((ann, bob));
    let dir = s.stop().await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_moot"))
        .args(["--db", db.to_str().unwrap(), "ratings", "rebuild"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        said.trim(),
        "Rebuilt 2 standings from 1 decided results: identical to what was stored."
    );
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut cy = s.player("Cy").await;
    assert_eq!(
        cy.command("ratings bob").await,
        ["Ratings of Bob (person):", bob_line.as_str()]
    );
    s.stop().await;
    drop(dir);
}

#[tokio::test]
async fn agents_rate_over_rest_luck_keeps_a_record_and_bad_terms_change_nothing() {
    let s = TestServer::start().await;
    let api = s.api();
    let (a, b) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    let participants = json!({ "x": a.id, "o": b.id });
    // `rated` is true or false, and a game of luck is never rated.
    let seats = json!({ "player_1": a.id, "player_2": b.id });
    for (template, parts, options, why) in [
        (
            "tictactoe.v1",
            &participants,
            json!({ "rated": "yes" }),
            "`rated` is true or false",
        ),
        ("rps.v1", &seats, json!({ "rated": true }), "is luck"),
    ] {
        let (status, v) = api
            .post(
                "/sessions",
                &a.token,
                json!({ "template": template, "participants": parts, "options": options }),
            )
            .await;
        assert_eq!(status, 400, "{v}");
        assert!(v["error"]["message"].as_str().unwrap().contains(why), "{v}");
    }
    let (_, sessions) = api
        .get(&format!("/sessions?agent_id={}", a.id), &a.token)
        .await;
    assert_eq!(
        sessions["sessions"],
        json!([]),
        "a refused game left nothing"
    );

    // A rated tic-tac-toe game that x (Ada) wins along the top row.
    let (status, v) = api
        .post(
            "/sessions",
            &a.token,
            json!({ "template": "tictactoe.v1", "participants": participants, "options": { "rated": true } }),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    for (tick, (who, cell)) in [(&a, 0), (&b, 3), (&a, 1), (&b, 4), (&a, 2)]
        .into_iter()
        .enumerate()
    {
        let (status, v) = api
            .post(
                &format!("/sessions/{id}/actions"),
                &who.token,
                json!({ "action": cell.to_string(), "expected_tick": tick }),
            )
            .await;
        assert_eq!(status, 200, "{v}");
    }
    let (status, v) = api
        .send("GET", "/leaderboards/tictactoe?whom=agents", None, None)
        .await;
    assert_eq!(status, 200, "{v}");
    let rows = v["boards"][0]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(
        (&rows[0]["name"], &rows[0]["kind"]),
        (&json!("Ada"), &json!("agent"))
    );
    assert!(rows[0]["rating"].as_f64().unwrap() > 1500.0);
    let (_, v) = api
        .send("GET", "/leaderboards/tictactoe?whom=people", None, None)
        .await;
    assert_eq!(v["boards"][0]["rows"], json!([]));

    // Rock-paper-scissors, casual as always: a record, no rating.
    let rps = api
        .session(&a, "rps.v1", &[("player_1", &a), ("player_2", &b)])
        .await;
    for (who, choice) in [(&a, "rock"), (&b, "scissors")] {
        let (status, v) = api
            .post(
                &format!("/sessions/{rps}/actions"),
                &who.token,
                json!({ "action": choice }),
            )
            .await;
        assert_eq!(status, 200, "{v}");
    }
    let (_, v) = api.send("GET", "/ratings/Ada", None, None).await;
    let rps = v["standings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["board"] == "rps")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (&rps["won"], &rps["games"], &rps["rating"]),
        (&json!(1), &json!(1), &json!(null)),
        "{v}"
    );
    s.stop().await;
}
