//! Ratings over real sockets: a rated chess game between two people moves both ratings on
//! telnet and REST alike, a casual one moves nothing, agents get their own table rows, and
//! `moot ratings rebuild` gets from the logs exactly what was stored.

use moot::ratings::glicko2::{Game, START};
use serde_json::json;

use crate::support::{Client, TestServer, mcp_tool};

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

/// Ann challenges Bob with `terms` (Ann white) and resigns game `n`; each sees the other's
/// rating (`ratings`: Ann's, Bob's) on the challenge.
async fn ann_resigns(
    ann: &mut Client,
    bob: &mut Client,
    terms: &str,
    shown: &str,
    n: u32,
    ratings: (&str, &str),
) {
    let (ann_rating, bob_rating) = ratings;
    ann.send(&format!("challenge Bob as white{terms}")).await;
    ann.expect(&format!(
        "You challenge Bob ({bob_rating}) to a game of chess."
    ))
    .await;
    bob.expect(&format!(
        "Ann ({ann_rating}) challenges you to a game of chess (you would play black{shown})."
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

/// The half-widths of the 95% intervals of the winner's and loser's ratings after two
/// newcomers' first game, as `ratings` shows them after the rating ("±541").
fn first_game_intervals() -> (String, String) {
    let after = |score| {
        let r = START.after(&[Game {
            opponent: START,
            score,
        }]);
        format!("±{:.0}", 1.96 * r.deviation)
    };
    (after(1.0), after(0.0))
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
        [
            "Nobody is on the chess leaderboard yet: it counts rated games as they end (and every game of luck)."
        ]
    );
    ann_resigns(
        &mut ann,
        &mut bob,
        " rated clock 60+0",
        ", clock 60+0, rated",
        1,
        ("1500?", "1500?"),
    )
    .await;
    // Each rating with its 95% interval, 1.96 deviations either side.
    let (won_by, lost_by) = first_game_intervals();
    let bob_line =
        format!("  chess/classical    {winner:>6} {won_by:>5}  1 game: 1 won, 0 lost, 0 drawn");
    let ann_line =
        format!("  chess/classical    {loser:>6} {lost_by:>5}  1 game: 0 won, 1 lost, 0 drawn");
    // Apart from skill: a clean game (Ann's resignation is her one action).
    let clean = |games: u32| {
        format!(
            "  chess              no action refused, no deadline missed in {games} game{}",
            if games == 1 { "" } else { "s" }
        )
    };
    let errors = "Errors apart from skill:";
    assert_eq!(
        ann.command("ratings Bob").await,
        [
            "Ratings of Bob (person):",
            bob_line.as_str(),
            errors,
            &clean(1)
        ]
    );
    assert_eq!(
        ann.command("ratings").await,
        [
            "Ratings of Ann (person):",
            ann_line.as_str(),
            errors,
            &clean(1)
        ]
    );
    // Both ratings are provisional after one game: the leaderboard lists neither, and says so.
    let board = bob.command("leaderboard chess people").await;
    assert_eq!(board[0], "chess/classical:", "{board:?}");
    assert_eq!(
        board[1..],
        [
            "  Nobody with an established rating yet.",
            "  (2 players with provisional ratings are not listed.)"
        ]
    );
    assert_eq!(
        bob.command("leaderboard chess agents").await[1..],
        ["  Nobody with an established rating yet."]
    );
    assert_eq!(
        bob.command("leaderboard go").await,
        // Every game is named, not only those with a board yet (once only chess/classical).
        [
            "No leaderboard for \"go\"; the games are: blackjack, chess, connect4, rps, tictactoe, werewolf."
        ]
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
            &json!("chess/classical"),
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
    assert_eq!(v["boards"][0]["rows"], json!([]), "{v}");
    assert_eq!(v["boards"][0]["provisional_left_out"], 2, "{v}");
    let (status, v) = api.send("GET", "/ratings/Nobody", None, None).await;
    assert_eq!(
        (status, &v["error"]["code"]),
        (404, &json!("NOT_FOUND")),
        "{v}"
    );

    // A casual game moves no rating; it counts in conduct all the same.
    ann_resigns(
        &mut ann,
        &mut bob,
        " clock 60+0",
        ", clock 60+0",
        2,
        (&loser, &winner),
    )
    .await;
    // Bob is known by his rating wherever names are listed.
    let who = ann.command("who").await;
    let bob_row = who.iter().find(|l| l.starts_with("Bob ")).unwrap();
    assert!(bob_row.contains(&format!(" {winner} ")), "{who:?}");
    // The data names the board too.
    let robo = s.api().agent(Some("Robo")).await;
    let who = mcp_tool(s.http, &robo.token, "who", json!({})).await;
    let bob_entry = who["structuredContent"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "Bob")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        bob_entry["rating"],
        format!("{winner} chess/classical"),
        "{who}"
    );
    assert_eq!(
        ann.command("ratings Bob").await,
        [
            "Ratings of Bob (person):",
            bob_line.as_str(),
            errors,
            &clean(2)
        ]
    );

    // The ratings are derived from the logs: a rebuild from them gives what was stored, and a
    // restart keeps it.
    let db = s.db.clone();
    drop((ann, bob));
    let dir = s.stop().await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_moot"))
        .args(["--db", &db.address(), "ratings", "rebuild"])
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
        [
            "Ratings of Bob (person):",
            bob_line.as_str(),
            errors,
            &clean(2)
        ]
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
            json!({ "template": "tictactoe.v1", "participants": participants, "options": { "rated": true, "clock": "1d" } }),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let (status, v) = api
        .post(&format!("/sessions/{id}/accept"), &b.token, json!({}))
        .await;
    assert_eq!(status, 200, "Bea agrees: {v}");
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
    // One game leaves both provisional: listed nowhere yet, but counted.
    assert_eq!(v["boards"][0]["rows"], json!([]), "{v}");
    assert_eq!(v["boards"][0]["provisional_left_out"], 2, "{v}");
    let (_, ada) = api.send("GET", "/ratings/Ada", None, None).await;
    assert!(
        ada["standings"][0]["rating"].as_f64().unwrap() > 1500.0,
        "{ada}"
    );
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

/// Bob breaks the rules twice and lets his flag fall: his conduct shows it once the game is
/// over (never while it runs), apart from his rating, and a restart keeps it.
#[tokio::test]
async fn refusals_and_a_fallen_flag_stand_beside_the_rating_once_the_game_is_over() {
    // 5+0 at a hundred times the wall clock: each side has 3 real seconds.
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let (mut ann, mut bob) = at_the_tables(&s).await;
    ann.send("challenge Bob as white clock 5+0 rated").await;
    bob.expect(
        "Ann (1500?) challenges you to a game of chess (you would play black, clock 5+0, rated).",
    )
    .await;
    bob.send("accept Ann").await;
    bob.expect("You accept Ann's challenge").await;
    ann.send("move e4").await;
    ann.expect("You play e4 in game #1.").await;
    // Two moves that are not legal: both refused, and counted against him.
    for bad in ["e2e4", "e7e4"] {
        bob.send(&format!("move {bad}")).await;
        bob.expect(&format!("{bad} is not a legal move in game #1"))
            .await;
    }
    // Ann's own move out of turn counts against her.
    ann.send("move d4").await;
    ann.expect("It is not your move in game #1.").await;
    // While the game runs, nothing of it shows.
    let clean = [
        "Ratings of Bob (person):",
        "  No rated or recorded games yet.",
    ];
    assert_eq!(ann.command("ratings Bob").await, clean);

    let end = "#1: Black's flag falls. Game over: White wins on time (1-0).";
    ann.expect(end).await;
    bob.expect(end).await;
    let bob_conduct =
        "  chess              2 of 2 actions refused (100.0%), 1 deadline missed in 1 game";
    let bob_lines = bob.command("ratings").await;
    assert_eq!(
        bob_lines[2..],
        ["Errors apart from skill:", bob_conduct],
        "{bob_lines:?}"
    );
    let ann_lines = ann.command("ratings").await;
    assert_eq!(
        ann_lines[2..],
        [
            "Errors apart from skill:",
            "  chess              1 of 2 actions refused (50.0%), no deadline missed in 1 game"
        ],
        "{ann_lines:?}"
    );
    let board = ann.command("leaderboard chess").await;
    assert_eq!(
        board[2], "  (2 players with provisional ratings are not listed.)",
        "{board:?}"
    );
    let (_, v) = s.api().send("GET", "/ratings/Bob", None, None).await;
    assert_eq!(
        v["conduct"],
        json!([{ "game": "chess", "games": 1, "actions": 0, "refused": 2, "missed": 1,
                 "refused_rate": 1.0, "missed_rate": 1.0 }]),
        "{v}"
    );
    // The page counts every action tried beside the refused ones (it once showed the 0 taken
    // beside 2 refused, 100%).
    let page = reqwest::get(format!("http://{}/players/Bob", s.http))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains(
            "<td>chess</td><td class=\"n\">1</td><td class=\"n\">2</td><td class=\"n\">2</td>"
        ),
        "{page}"
    );

    // Stored as it happened: a restart tells the same.
    let db = s.db.clone();
    drop((ann, bob));
    let dir = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut cy = s.player("Cy").await;
    assert_eq!(
        cy.command("ratings Bob").await[2..],
        ["Errors apart from skill:", bob_conduct]
    );
    s.stop().await;
    drop(dir);
}

/// Agents give their reasons with their moves, over REST and MCP: stored with each move, told
/// to nobody while the game runs (the log on either face, the mover's own included, and the
/// people watching on telnet), and beside each move once it is over; one that is not text is
/// refused and changes nothing.
#[tokio::test]
async fn reasons_given_with_moves_are_hidden_until_the_game_is_over() {
    let s = TestServer::start().await;
    let api = s.api();
    let (a, b) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    let id = api
        .session(&a, "tictactoe.v1", &[("x", &a), ("o", &b)])
        .await;
    let mut cy = s.player("Cy").await;
    cy.command(&format!("watch #{id}")).await;
    let secret = |n: usize| format!("secret plan {n}");
    // Ada plays over REST, Bea over MCP; x takes the top row.
    let by_mcp = |tick: usize, cell: usize| {
        mcp_tool(
            s.http,
            &b.token,
            "session_act",
            json!({ "session_id": id, "action": cell.to_string(), "expected_tick": tick,
                    "reasoning": secret(tick) }),
        )
    };
    let by_rest = |tick: usize, cell: usize| {
        let (api, id, token) = (api.clone(), id.clone(), a.token.clone());
        async move {
            api.post(
                &format!("/sessions/{id}/actions"),
                &token,
                json!({ "action": cell.to_string(), "expected_tick": tick,
                        "reasoning": format!("secret plan {tick}") }),
            )
            .await
        }
    };
    // A reason that is not text is refused, and the move with it is not made.
    let bad = mcp_tool(
        s.http,
        &b.token,
        "session_act",
        json!({ "session_id": id, "action": "3", "expected_tick": 0, "reasoning": 7 }),
    )
    .await;
    assert_eq!(bad["isError"], true, "{bad}");
    assert!(bad.to_string().contains("`reasoning` is text"), "{bad}");
    assert_eq!(by_rest(0, 0).await.0, 200);
    let r = by_mcp(1, 3).await;
    assert_eq!(r["isError"], false, "{r}");
    assert_eq!(by_rest(2, 1).await.0, 200);
    assert_eq!(by_mcp(3, 4).await["isError"], false);

    // While it runs: no reason on any face, to the players themselves neither.
    let log = format!("/sessions/{id}/log");
    for who in [&a, &b] {
        let (_, v) = api.get(&log, &who.token).await;
        assert_eq!(v["actions"].as_array().unwrap().len(), 4, "{v}");
        assert!(!v.to_string().contains("secret"), "{v}");
    }
    let mcp_log = mcp_tool(s.http, &b.token, "session_log", json!({ "session_id": id })).await;
    assert!(!mcp_log.to_string().contains("secret"), "{mcp_log}");

    // The winning move, and then every reason beside its move, on both faces.
    assert_eq!(by_rest(4, 2).await.0, 200);
    let (_, v) = api.get(&log, &b.token).await;
    let reasons: Vec<(&str, &str)> = v["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap(),
                e["reasoning"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        [
            ("0", "secret plan 0"),
            ("3", "secret plan 1"),
            ("1", "secret plan 2"),
            ("4", "secret plan 3"),
            ("2", "secret plan 4")
        ],
        "{v}"
    );
    let mcp_log = mcp_tool(s.http, &a.token, "session_log", json!({ "session_id": id })).await;
    assert!(mcp_log.to_string().contains("secret plan 3"), "{mcp_log}");
    // The person watching heard every move and no reason, before the end or after it.
    let (heard, _) = cy.command_hearing("who").await;
    assert!(
        heard.iter().any(|l| l.contains("Game over")),
        "the watcher heard the game: {heard:?}"
    );
    assert!(!heard.iter().any(|l| l.contains("secret")), "{heard:?}");

    // Stored with the moves: a restart shows the same.
    let db = s.db.clone();
    drop(cy);
    let dir = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let (_, v) = s.api().get(&log, &a.token).await;
    assert_eq!(v["actions"][3]["reasoning"], "secret plan 3", "{v}");
    s.stop().await;
    drop(dir);
}

/// A flag that falls while moot is down is moot's doing: the game ends by its rules when moot
/// is back, but it is not rated and nobody is counted a missed deadline.
#[tokio::test]
async fn a_flag_that_fell_while_moot_was_down_is_not_rated() {
    // 5+0 at a hundred times the wall clock: each side has 3 real seconds.
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let (mut ann, mut bob) = at_the_tables(&s).await;
    ann.send("challenge Bob as white clock 5+0 rated").await;
    bob.expect("challenges you to a game of chess").await;
    bob.send("accept Ann").await;
    bob.expect("You accept Ann's challenge").await;
    ann.send("move e4").await;
    ann.expect("You play e4 in game #1.").await;
    // Down while Bob thinks, for longer than his clock has left.
    let db = s.db.clone();
    drop((ann, bob));
    let dir = s.stop().await;
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let s = TestServer::on_db(&db, |c| c.time_scale = 100.0).await;
    let mut bob = s.client().await;
    bob.send("connect Bob pw-Bob-moot").await;
    bob.expect("$#$xmcp").await;
    bob.send("@wrap off").await;
    bob.expect("Word wrap is now off.").await;
    let board = bob.command("board #1").await;
    assert!(
        board.iter().any(|l| l.contains("White wins on time (1-0)")),
        "the flag fell by the rules: {board:?}"
    );
    assert_eq!(
        bob.command("ratings").await,
        [
            "Ratings of Bob (person):",
            "  No rated or recorded games yet.",
            "Errors apart from skill:",
            "  chess              no action refused, no deadline missed in 1 game"
        ]
    );
    let rated = crate::support::sql_rows(&db, "SELECT rated FROM sessions WHERE session_id = '1'");
    assert_eq!(rated, [["0"]], "stored as unrated, so a rebuild agrees");
    s.stop().await;
    drop(dir);
}

/// A player's page and a game's leaderboard in a real Chromium: the tables, the rating history
/// drawn as an SVG on the server (one point per rated game), the error rates, and nothing
/// fetched from anywhere else; readable on a phone.
#[tokio::test]
async fn the_leaderboard_and_a_players_page_in_a_real_chromium() {
    let s = TestServer::start().await;
    let api = s.api();
    let (a, b) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    // Three rated games that Ada wins along the top row; Bea tries a taken cell once.
    for game in 0..3 {
        let (status, v) = api
            .post(
                "/sessions",
                &a.token,
                json!({ "template": "tictactoe.v1", "participants": { "x": a.id, "o": b.id },
                        "options": { "rated": true, "clock": "1d" } }),
            )
            .await;
        assert_eq!(status, 201, "{v}");
        let id = v["session_id"].as_str().unwrap().to_owned();
        let (status, v) = api
            .post(&format!("/sessions/{id}/accept"), &b.token, json!({}))
            .await;
        assert_eq!(status, 200, "Bea agrees: {v}");
        let act = |who: &crate::support::Agent, tick: usize, cell: usize| {
            let (api, id, token) = (api.clone(), id.clone(), who.token.clone());
            async move {
                api.post(
                    &format!("/sessions/{id}/actions"),
                    &token,
                    json!({ "action": cell.to_string(), "expected_tick": tick }),
                )
                .await
                .0
            }
        };
        assert_eq!(act(&a, 0, 0).await, 200);
        if game == 0 {
            assert_eq!(act(&b, 1, 0).await, 400, "a taken cell is refused");
        }
        for (who, tick, cell) in [(&b, 1, 3), (&a, 2, 1), (&b, 3, 4), (&a, 4, 2)] {
            assert_eq!(act(who, tick, cell).await, 200);
        }
    }
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/screenshots");
    std::fs::create_dir_all(shots).unwrap();
    let base = format!("http://{}", s.http);
    let seen =
        crate::support::run_python("browser/ratings.py", &[&base, "Bea", "tictactoe", shots]).await;
    let p = &seen["player"];
    assert_eq!(
        (&p["status"], &p["h1"]),
        (&json!(200), &json!("Bea")),
        "{p}"
    );
    assert_eq!(p["standings"][0][0], "tictactoe", "{p}");
    assert_eq!(
        p["standings"][0].as_array().unwrap()[5..],
        [json!("0"), json!("3"), json!("0")],
        "won, lost, drawn: {p}"
    );
    // The rating's 95% interval, its two ends either side of it.
    let ends: Vec<f64> = p["standings"][0][2]
        .as_str()
        .unwrap()
        .split('–')
        .map(|e| e.parse().unwrap())
        .collect();
    let rating: f64 = p["standings"][0][1]
        .as_str()
        .unwrap()
        .trim_end_matches('?')
        .parse()
        .unwrap();
    assert!(
        ends.len() == 2 && ends[0] < rating && rating < ends[1],
        "{p}"
    );
    assert_eq!(p["charts"], json!([3]), "a point per rated game: {p}");
    assert_eq!(
        p["conduct"][0],
        // Seven actions tried, one refused: a seventh (it once said six, beside 14.3%).
        json!(["tictactoe", "3", "7", "1", "14.3%", "0", "0.00"]),
        "{p}"
    );
    assert_eq!(p["games"].as_array().unwrap().len(), 3, "{p}");
    assert_eq!(p["games"][0][3], "rated", "{p}");
    let b = &seen["board"];
    assert_eq!(b["status"], 200, "{b}");
    // Three games leave both provisional: the board lists nobody and says whom it leaves out.
    assert_eq!(
        b["board"],
        json!([["Nobody with an established rating yet."]]),
        "{b}"
    );
    assert!(
        b["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n == "2 players with provisional ratings are not listed."),
        "{b}"
    );
    for page in [p, b] {
        let urls = page["requests"].as_array().unwrap();
        assert_eq!(urls.len(), 1, "the page alone, nothing else: {urls:?}");
        assert_eq!(page["errors"], json!([]), "{page}");
        assert!(page["phone_overflow"].as_i64().unwrap() <= 0, "{page}");
    }
    let nobody = &seen["nobody"];
    assert_eq!(nobody["status"], 404, "{nobody}");
    s.stop().await;
}

/// A rated game against the computer is played against its level's fixed rating: the person's
/// rating moves, the computer's never; a game whose computer has no fixed rating stays casual.
#[tokio::test]
async fn a_rated_game_against_the_computer_meets_its_levels_anchor() {
    use moot::games::chess::rules::computer::ANCHORS;
    use moot::ratings::{ANCHOR_DEVIATION, Rating};
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    // Level 10 has a fixed rating; a level too weak to be measured has none.
    let anchor = ANCHORS[9].unwrap();
    let unmeasured = ANCHORS.iter().position(Option::is_none).unwrap() + 1;
    let refused = ann
        .command(&format!("challenge computer level {unmeasured} rated"))
        .await;
    assert!(
        refused[0].contains("against the Computer is casual"),
        "{refused:?}"
    );
    assert_eq!(
        ann.command("challenge computer as white level 10 clock 60+0 rated")
            .await[0],
        format!(
            "You sit down to play the computer (level 10, rated against its {anchor:.0}) as white: game #1."
        )
    );
    ann.send("resign #1").await;
    ann.expect("Game over: Black wins by resignation (0-1).")
        .await;
    let lost = START.after(&[Game {
        opponent: Rating {
            rating: anchor,
            deviation: ANCHOR_DEVIATION,
            volatility: START.volatility,
        },
        score: 0.0,
    }]);
    let ratings = ann.command("ratings").await;
    assert_eq!(
        ratings[1],
        format!(
            "  chess/classical    {:>6} {:>5}  1 game: 0 won, 1 lost, 0 drawn",
            format!("{:.0}?", lost.rating),
            format!("±{:.0}", 1.96 * lost.deviation)
        ),
        "{ratings:?}"
    );
    assert_eq!(
        ann.command("ratings Computer").await[1],
        "  No rated or recorded games yet.",
        "an anchor does not move"
    );
    // Connect Four's computer has no fixed rating: a rated game with it is refused.
    let api = s.api();
    let ada = api.agent(Some("Ada")).await;
    let (status, v) = api
        .post(
            "/sessions",
            &ada.token,
            json!({ "template": "connect4.v1", "participants": { "red": ada.id, "yellow": "computer" },
                    "options": { "rated": true } }),
        )
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("against the Computer is casual"),
        "{v}"
    );
    s.stop().await;
}

/// A rated tic-tac-toe game between `x` and `o` (who accepts), won by `x` along the top row.
async fn x_wins(api: &crate::support::Api, x: &crate::support::Agent, o: &crate::support::Agent) {
    let (status, v) = api
        .post(
            "/sessions",
            &x.token,
            json!({ "template": "tictactoe.v1", "participants": { "x": x.id, "o": o.id },
                    "options": { "rated": true, "clock": "1d" } }),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let (status, v) = api
        .post(&format!("/sessions/{id}/accept"), &o.token, json!({}))
        .await;
    assert_eq!(status, 200, "{v}");
    for (tick, (who, cell)) in [(x, 0), (o, 3), (x, 1), (o, 4), (x, 2)]
        .into_iter()
        .enumerate()
    {
        // X reports what each move cost it: 100 tokens in, 10 out, a second and a half.
        let body = if std::ptr::eq(who, x) {
            json!({ "action": cell.to_string(), "expected_tick": tick,
                    "cost": { "tokens_in": 100, "tokens_out": 10, "think_ms": 1500 } })
        } else {
            json!({ "action": cell.to_string(), "expected_tick": tick })
        };
        let (status, v) = api
            .post(&format!("/sessions/{id}/actions"), &who.token, body)
            .await;
        assert_eq!(status, 200, "{v}");
    }
}

/// The cross-game table places everyone with five rated games on one scale, from the same
/// results the ratings took: games past two owners' daily few buy no place, as they move no
/// rating.
#[tokio::test]
async fn the_cross_game_table_counts_only_what_moved_a_rating() {
    let s = TestServer::start().await;
    let api = s.api();
    let ace = api.agent(Some("Ace")).await;
    let mut others = Vec::new();
    for name in ["Bea", "Cy", "Di", "Ed", "Flo"] {
        others.push(api.agent(Some(name)).await);
    }
    for o in &others {
        x_wins(&api, &ace, o).await;
    }
    // Four more against Bea: two count (three a day between two owners), two do not.
    for _ in 0..4 {
        x_wins(&api, &ace, &others[0]).await;
    }
    let (status, v) = api.send("GET", "/crosstable.json", None, None).await;
    assert_eq!(status, 200, "{v}");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "only Ace has five: {v}");
    assert_eq!(rows[0]["name"], "Ace", "{v}");
    assert_eq!(rows[0]["games"], 7, "5 + 2 that counted against Bea: {v}");
    assert_eq!(rows[0]["by_game"]["tictactoe"], 7, "{v}");
    assert!(rows[0]["rating"].as_f64().unwrap() > 1500.0, "{v}");
    assert!(rows[0]["interval"].as_f64().unwrap() > 0.0, "{v}");
    assert_eq!(v["left_out"], 5, "{v}");
    // What a game cost Ace, from what it reported with each move: three moves a game.
    assert_eq!(
        rows[0]["cost"],
        json!({ "games": 7, "tokens_in": 300.0, "tokens_out": 30.0, "think_seconds": 4.5 }),
        "{v}"
    );
    // A cost out of bounds, or of the wrong shape, is refused and changes nothing.
    let bea = &others[0];
    let (_, made) = api
        .post(
            "/sessions",
            &ace.token,
            json!({ "template": "tictactoe.v1", "participants": { "x": ace.id, "o": bea.id } }),
        )
        .await;
    let id = made["session_id"].as_str().unwrap().to_owned();
    api.post(&format!("/sessions/{id}/accept"), &bea.token, json!({}))
        .await;
    for bad in [
        json!({ "think_ms": 999_999_999_999u64 }),
        json!({ "dollars": 3 }),
    ] {
        let (status, v) = api
            .post(
                &format!("/sessions/{id}/actions"),
                &ace.token,
                json!({ "action": "0", "expected_tick": 0, "cost": bad }),
            )
            .await;
        assert_eq!(status, 400, "{v}");
    }
    let (_, log) = api.get(&format!("/sessions/{id}/log"), &bea.token).await;
    assert_eq!(log["actions"], json!([]), "refused, nothing logged: {log}");
    // With a cost in bounds it is taken; the cost is no one's to read while the game runs.
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &ace.token,
            json!({ "action": "0", "expected_tick": 0, "cost": { "tokens_in": 5 } }),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let (_, log) = api.get(&format!("/sessions/{id}/log"), &bea.token).await;
    assert!(log["actions"][0].get("cost").is_none(), "{log}");
    // The same table on telnet and over MCP.
    let mut ann = s.player("Ann").await;
    let said = ann.command("crosstable").await;
    assert!(
        said.iter()
            .any(|l| l.contains("Ace") && l.contains("7 games")),
        "{said:?}"
    );
    let tool = crate::support::mcp_tool(s.http, &ace.token, "crosstable", json!({})).await;
    assert_eq!(
        tool["structuredContent"]["rows"][0]["name"], "Ace",
        "{tool}"
    );
    let (status, _, html) = api.text("/crosstable").await;
    assert_eq!(status, 200);
    assert!(html.contains("/crosstable.json"), "{html}");
}

/// A change of rules starts a new season, and the last stays as it was: the standings of games
/// played under older rules (as a town's rows are after moot's rules change, here written so
/// in the database while moot is stopped) form a past season, frozen, that the leaderboard
/// still shows on every face by its hash, while the current season takes the new games.
#[tokio::test]
async fn a_past_season_stays_as_it_was_and_is_shown_by_its_hash() {
    let s = TestServer::start().await;
    let api = s.api();
    let ace = api.agent(Some("Ace")).await;
    let bea = api.agent(Some("Bea")).await;
    let cy = api.agent(Some("Cy")).await;
    x_wins(&api, &ace, &bea).await;
    let db = s.db.clone();
    let dir = s.stop().await;
    // What moot stored before its rules changed twice: the same rows under older rules'
    // hashes (Bea's under the one before that).
    let older = |table: &str| {
        format!(
            "UPDATE {table} SET rules = CASE WHEN agent_id = '{}' THEN '0ddba111' \
             ELSE '0ddba110' END;",
            bea.id
        )
    };
    crate::support::sql_exec(
        &db,
        &(older("standings") + older("standing_changes").as_str()),
    )
    .unwrap();
    let s = TestServer::on_db(&db, |_| {}).await;
    let api = s.api();
    x_wins(&api, &ace, &cy).await;

    let (status, v) = api.send("GET", "/leaderboards/tictactoe", None, None).await;
    assert_eq!(status, 200, "{v}");
    let now = &v["boards"][0];
    let current = now["rules"].as_str().unwrap().to_owned();
    assert_ne!(current, "0ddba110");
    assert_eq!(now["current"], true, "{v}");
    assert_eq!(
        now["seasons"],
        json!([current, "0ddba110", "0ddba111"]),
        "{v}"
    );
    assert_eq!(
        now["provisional_left_out"], 2,
        "Ace and Cy this season: {v}"
    );
    // A past season by (the start of) its hash: as it was, Ace, Cy nowhere.
    let (status, v) = api
        .send("GET", "/leaderboards/tictactoe?season=0ddba110", None, None)
        .await;
    assert_eq!(status, 200, "{v}");
    let past = &v["boards"][0];
    assert_eq!(
        (
            &past["rules"],
            &past["current"],
            &past["provisional_left_out"]
        ),
        (&json!("0ddba110"), &json!(false), &json!(1)),
        "{v}"
    );
    // The start of two seasons' hashes names neither.
    let (status, v) = api
        .send("GET", "/leaderboards/tictactoe?season=0ddba11", None, None)
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v.to_string().contains("0ddba110, 0ddba111"),
        "it names both: {v}"
    );
    let (status, v) = api
        .send("GET", "/leaderboards/tictactoe?season=ffff", None, None)
        .await;
    assert_eq!(status, 404, "{v}");
    assert!(
        v.to_string().contains("0ddba110"),
        "it names the seasons there are: {v}"
    );
    // On telnet, and on the web.
    let mut ann = s.player("Ann").await;
    let said = ann.command("leaderboard tictactoe").await;
    assert!(
        said[0].contains("this season; 2 past, frozen: `season 0ddba110`"),
        "{said:?}"
    );
    let said = ann.command("leaderboard tictactoe season 0ddba110").await;
    assert_eq!(
        said[0], "tictactoe, season 0ddba110 (past, frozen):",
        "{said:?}"
    );
    let said = ann
        .command("leaderboard tictactoe people season 0ddba110 now")
        .await;
    assert!(said[0].starts_with("Usage"), "{said:?}");
    let (status, _, page) = api.text("/leaderboard/tictactoe?season=0ddba110").await;
    assert_eq!(status, 200);
    assert!(
        page.contains("A past season, frozen: rules 0ddba110"),
        "{page}"
    );
    let (_, _, page) = api.text("/leaderboard/tictactoe").await;
    assert!(
        page.contains("season=0ddba110"),
        "a link to the past season: {page}"
    );
    s.stop().await;
    drop(dir);
}
