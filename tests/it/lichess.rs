//! The lichess Bot API, driven by berserk (lichess's own Python client, from PyPI) pointed at
//! moot's base URL: a whole game against the Computer, and a rated one against a person on
//! telnet, every move checked on both sides.

use std::time::Duration;

use serde_json::json;

use crate::support::{TestServer, mcp_tool, run_python};

/// `name`'s standing on the blitz board, as anyone reads it.
async fn blitz_of(api: &crate::support::Api, name: &str) -> serde_json::Value {
    crate::support::standing_on(api, name, "chess/blitz")
        .await
        .unwrap_or_else(|| panic!("{name} has no blitz standing"))
}

#[tokio::test]
async fn a_berserk_bot_plays_the_computer_and_a_telnet_player_through_the_bot_api() {
    let s = TestServer::start().await;
    let api = s.api();
    let bot = api.agent(Some("Berta")).await;
    let base = format!("http://{}", s.http);

    // A bad token is refused as lichess refuses one.
    let (status, v) = api.get("/api/account", "moot_nobody").await;
    assert_eq!(status, 401, "{v}");
    assert!(v["error"].is_string(), "{v}");

    // lichess-bot's first questions: whose a token is and what it may do, and what it plays.
    let body = format!("{},moot_nobody", bot.token);
    let (status, v) = api.send("POST", "/api/token/test", None, Some(&body)).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v[&bot.token]["userId"], "berta", "{v}");
    assert!(
        v[&bot.token]["scopes"]
            .as_str()
            .unwrap()
            .contains("bot:play"),
        "{v}"
    );
    assert!(v["moot_nobody"].is_null(), "{v}");
    let (status, v) = api.get("/api/account/playing", &bot.token).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["nowPlaying"], serde_json::json!([]), "{v}");

    // The Computer, at level 1: a whole game, to its end.
    let seen = run_python("clients/berserk_bot.py", &[&base, &bot.token, "ai", "1"]).await;
    assert_eq!(seen["account"], "Berta", "{seen}");
    assert_eq!(seen["title"], "BOT", "an agent is a bot account: {seen}");
    assert_ne!(seen["status"], "started", "the game ended: {seen}");
    assert_eq!(seen["clock"]["initial"], 600_000, "clocks in ms: {seen}");
    assert_eq!(seen["finish"]["status"], seen["status"], "{seen}");
    let game = seen["game"].as_str().unwrap();
    // moot's own record of the game is the bot's: the same moves, in PGN.
    let (status, _, pgn) = api.text(&format!("/chess/{game}.pgn")).await;
    assert_eq!(status, 200);
    let plies = seen["moves"].as_array().unwrap().len();
    assert!(plies >= 2, "{seen}");
    assert!(pgn.contains("[White \"Berta\"]"), "{pgn}");

    // A person on telnet, rated, 5+0: the bot challenges Bob, Bob accepts on telnet and mates
    // with the fool's mate; the bot's stream ends in `mate`, black winning.
    let mut bob = s.player("Bob").await;
    let play = tokio::spawn({
        let (base, token) = (base.clone(), bot.token.clone());
        async move {
            run_python(
                "clients/berserk_bot.py",
                &[&base, &token, "person", "Bob", "f2f3,g2g4"],
            )
            .await
        }
    });
    let asked = bob.expect("Berta").await;
    assert!(
        asked.iter().any(|l| l.contains("rated")),
        "Bob is asked, and told it is rated: {asked:?}"
    );
    let said = bob.command("accept Berta").await;
    assert!(!said.is_empty(), "{said:?}");
    for mv in ["e7e5", "d8h4"] {
        // Bob moves once the bot has.
        let mut tries = 0;
        loop {
            let said = bob.command(&format!("move {mv}")).await;
            if !said.iter().any(|l| l.contains("not your move")) {
                assert!(
                    !said
                        .iter()
                        .any(|l| l.contains("Usage") || l.contains("illegal")),
                    "{said:?}"
                );
                break;
            }
            tries += 1;
            assert!(tries < 100, "the bot never moved: {said:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    let seen = tokio::time::timeout(Duration::from_secs(60), play)
        .await
        .expect("the bot's game ends")
        .unwrap();
    assert_eq!(
        seen["moves"],
        serde_json::json!(["f2f3", "e7e5", "g2g4", "d8h4"]),
        "{seen}"
    );
    assert_eq!(seen["status"], "mate", "{seen}");
    assert_eq!(seen["winner"], "black", "{seen}");
    assert_eq!(seen["checkmate"], true, "{seen}");
    assert_eq!(seen["finish"]["winner"], "black", "{seen}");
    // Rated: both have a blitz game on their record.
    let blitz = blitz_of(&api, "Bob").await;
    assert_eq!(blitz["won"], 1, "{blitz}");
    let (_, v) = api.get("/api/account", &bot.token).await;
    assert_eq!(v["perfs"]["blitz"]["games"], 1, "{v}");

    // An agent over MCP: the bot challenges Mia, who accepts with `session_accept` and plays
    // with the chess tools.
    let mia = api.agent(Some("Mia")).await;
    let play = tokio::spawn({
        let (base, token) = (base.clone(), bot.token.clone());
        async move {
            run_python(
                "clients/berserk_bot.py",
                &[&base, &token, "person", "Mia", "f2f3,g2g4"],
            )
            .await
        }
    });
    let id = loop {
        let (_, v) = api.get("/sessions", &mia.token).await;
        if let Some(w) = v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["status"] == "waiting")
        {
            break w["session_id"].as_str().unwrap().to_owned();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let accepted = mcp_tool(
        s.http,
        &mia.token,
        "session_accept",
        json!({"session_id": id}),
    )
    .await;
    assert_eq!(accepted["isError"], false, "{accepted}");
    for mv in ["e7e5", "d8h4"] {
        let turn = mcp_tool(
            s.http,
            &mia.token,
            "waitForNextTurn",
            json!({"game_id": id}),
        )
        .await;
        assert_eq!(turn["structuredContent"]["status"], "your_turn", "{turn}");
        let moved = mcp_tool(
            s.http,
            &mia.token,
            "finishTurn",
            json!({"game_id": id, "move": mv}),
        )
        .await;
        assert_eq!(moved["isError"], false, "{moved}");
    }
    let seen = tokio::time::timeout(Duration::from_secs(60), play)
        .await
        .expect("the bot's game with Mia ends")
        .unwrap();
    assert_eq!(seen["status"], "mate", "{seen}");
    assert_eq!(seen["winner"], "black", "{seen}");

    // A tournament: the bot joins a rated Swiss through lichess's own route, is paired with
    // the house's Computer, and plays its game out from the event stream.
    let mut ann = s.player("Ann").await;
    let said = ann
        .command("schedule chess swiss 1 clock 5+0 rated house in 1h called Bots welcome")
        .await;
    assert!(said.iter().any(|l| l.contains("#1")), "{said:?}");
    let play = tokio::spawn({
        let (base, token) = (base.clone(), bot.token.clone());
        async move { run_python("clients/berserk_bot.py", &[&base, &token, "swiss", "1"]).await }
    });
    loop {
        let (_, v) = api.send("GET", "/tournaments/1", None, None).await;
        if v["players"] == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, said) = ann.command_hearing("start tournament 1").await;
    assert!(said.iter().any(|l| l.contains("begins")), "{said:?}");
    let seen = tokio::time::timeout(Duration::from_secs(240), play)
        .await
        .expect("the bot's tournament game ends")
        .unwrap();
    assert_ne!(seen["status"], "started", "{seen}");
    let (_, v) = api.send("GET", "/tournaments/1", None, None).await;
    assert_eq!(v["status"], "finished", "{v}");
    assert_eq!(
        v["rounds"][0]["games"][0]["session_id"], seen["game"],
        "{v}"
    );
    assert!(
        v["standings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "Berta" && r["kind"] == "agent" && r["games"] == 1),
        "{v}"
    );
    assert!(
        seen["abort_refused"]
            .as_str()
            .is_some_and(|e| e.contains("tournament's game")),
        "an event's game is not aborted: {seen}"
    );

    // Chat both ways, a draw offered with a move and agreed on telnet, then an abort: the bot
    // challenges Bob twice (rated), and talks.
    let play = tokio::spawn({
        let (base, token) = (base.clone(), bot.token.clone());
        async move { run_python("clients/berserk_bot.py", &[&base, &token, "talk", "Bob"]).await }
    });
    bob.expect("invites you to a game").await;
    bob.command("accept Berta").await;
    let heard = bob.expect("good luck").await;
    assert!(
        heard
            .iter()
            .any(|l| l.contains("Berta (game #") && l.contains("good luck")),
        "{heard:?}"
    );
    let said = bob.command("chat have fun").await;
    assert!(said.iter().any(|l| l.contains("have fun")), "{said:?}");
    bob.expect("offers a draw").await;
    let said = bob.command("draw").await;
    assert!(
        said.iter().any(|l| l.contains("accept the draw")),
        "{said:?}"
    );
    bob.expect("invites you to a game").await;
    bob.command("accept Berta").await;
    let seen = tokio::time::timeout(Duration::from_secs(60), play)
        .await
        .expect("the bot's talk ends")
        .unwrap();
    let chat = seen["chat"].as_array().unwrap();
    assert_eq!(chat[0]["text"], "good luck", "the bot's own line: {seen}");
    let last = chat.last().unwrap();
    assert_eq!(
        (
            &last["type"],
            &last["room"],
            &last["username"],
            &last["text"]
        ),
        (
            &json!("chatLine"),
            &json!("player"),
            &json!("Bob"),
            &json!("have fun")
        ),
        "{seen}"
    );
    let states = seen["states"].as_array().unwrap();
    assert!(
        states
            .iter()
            .any(|s| s["moves"] == "e2e4" && s["wdraw"] == true),
        "the move and its draw offer: {seen}"
    );
    assert_eq!(states.last().unwrap()["status"], "draw", "{seen}");
    assert_eq!(seen["aborted"], "aborted", "{seen}");
    assert!(
        seen["chat_after"].as_str().unwrap().contains("is over"),
        "a game over takes no more chat: {seen}"
    );
    // The draw was rated; the aborted game moved nothing.
    let blitz = blitz_of(&api, "Bob").await;
    assert_eq!(
        (&blitz["games"], &blitz["drawn"]),
        (&json!(2), &json!(1)),
        "{blitz}"
    );
}
