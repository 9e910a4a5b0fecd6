//! Connect Four, the game added as one module: its table in the Game Room, `play connect4`
//! and `drop` on telnet against the house and a person, the same game through REST and MCP's
//! `session_*`, its page and live frames on the web, and its place in `help` and `examine`.

use std::time::Duration;

use serde_json::json;

use crate::support::{Client, TestServer, mcp_tool};
use crate::web::Stream;

async fn in_game_room(s: &TestServer, name: &str) -> Client {
    let mut c = s.player(name).await;
    c.send("south").await;
    c.expect("Exits:").await;
    c
}

#[tokio::test]
async fn a_telnet_player_plays_the_house_which_answers_each_drop() {
    let s = TestServer::start().await;
    let mut ann = in_game_room(&s, "Ann").await;
    let look = ann.command("look").await;
    assert!(
        look.iter().any(|l| l.contains("a Connect Four frame")),
        "{look:?}"
    );
    let frame = ann.command("examine frame").await.join("\n");
    for verb in ["play", "drop", "games", "watch"] {
        assert!(frame.contains(verb), "the frame offers {verb}: {frame}");
    }
    ann.send("play connect4 with house").await;
    ann.expect("You sit down to play Connect Four with the house: game #1, you are red.")
        .await;
    let mine = ann.command("drop 1").await;
    assert_eq!(mine[0], "You drop a disc into column 1 in game #1.");
    assert_eq!(mine[1], "   1 2 3 4 5 6 7", "a text board: {mine:?}");
    assert_eq!(mine[7], "  |R . . . . . .|", "{mine:?}");
    assert_eq!(mine[8], "  +-------------+");
    let answered = ann
        .expect("#1: Computer (yellow) drops a disc in column")
        .await;
    let first = answered.last().unwrap().clone();
    // Ann keeps to the bottom row, away from the house's disc.
    let mut row: Vec<u8> = vec![2, 3, 5, 6, 7];
    row.retain(|c| !first.ends_with(&format!("column {c}")));
    ann.command(&format!("drop {}", row[0])).await;
    ann.expect("#1: Computer (yellow) drops a disc in column")
        .await;
    let board = ann.command("look #1").await;
    let bottom = board
        .iter()
        .find(|l| l.starts_with("  |") && l.ends_with('|') && !l.contains("  |. . . . . . .|"))
        .cloned()
        .unwrap_or_default();
    assert!(bottom.contains('R') && bottom.contains('Y'), "{board:?}");
    // Not Ann's turn in a finished or unknown game, and bad columns, are refused cleanly.
    assert_eq!(
        ann.command("drop 9").await,
        ["Columns are numbered 1 to 7, from the left."]
    );
    assert_eq!(
        ann.command("drop x").await,
        [
            "You are not carrying \"x\". (Or `drop <1-7> [#<game>]`: Drop a disc into a column \
             in Connect Four.)"
        ]
    );
    let help = ann.command("help connect4").await.join("\n");
    assert!(
        help.starts_with("Connect Four (`connect4`), at the tables:"),
        "{help}"
    );
    assert!(help.contains("drop <1-7>"), "{help}");
}

#[tokio::test]
async fn two_people_play_to_four_in_a_column_and_a_watcher_sees_each_drop() {
    let s = TestServer::start().await;
    let mut ann = in_game_room(&s, "Ann").await;
    let mut bob = in_game_room(&s, "Bob").await;
    let mut cy = in_game_room(&s, "Cy").await;
    ann.command("play connect4 with Bob").await;
    bob.expect("Type `accept Ann` to accept (from anywhere), or `decline Ann`.")
        .await;
    let yes = bob.command("play connect4 with Ann").await;
    assert_eq!(
        yes[0],
        "You accept Ann's invitation: game #1 of Connect Four, you are yellow."
    );
    cy.command("watch #1").await;
    for (who, col) in [(0, 1), (1, 2), (0, 1), (1, 2), (0, 1), (1, 2)] {
        let c = if who == 0 { &mut ann } else { &mut bob };
        c.command(&format!("drop {col}")).await;
        cy.expect(&format!("drops a disc in column {col}")).await;
    }
    // Bob may not drop for Ann.
    let refused = bob.command("drop 3").await.join("\n");
    assert!(
        refused.to_lowercase().contains("not your turn"),
        "{refused}"
    );
    ann.command("drop 1").await;
    let end = cy.expect("Game over").await.join("\n");
    assert!(end.contains("red wins"), "{end}");
    let games = cy.command("games all").await.join("\n");
    assert!(games.contains("red wins"), "{games}");
}

#[tokio::test]
async fn agents_play_over_rest_and_mcp_and_the_web_page_follows_live() {
    let s = TestServer::start().await;
    let api = s.api();
    let red = api.agent(Some("Rho")).await;
    let yellow = api.agent(Some("Yul")).await;
    let id = api
        .session(&red, "connect4.v1", &[("red", &red), ("yellow", &yellow)])
        .await;
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &red.token,
            json!({"action": "4", "expected_tick": 0}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    // A full column, a column off the board, the wrong turn: refused, nothing changes.
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &yellow.token,
            json!({"action": "8", "expected_tick": 1}),
        )
        .await;
    assert_eq!(status, 400, "{v}");
    assert_eq!(v["error"]["code"], "INVALID_ACTION", "{v}");
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &red.token,
            json!({"action": "3", "expected_tick": 1}),
        )
        .await;
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (400, Some("INVALID_ACTION")),
        "{v}"
    );
    assert_eq!(v["error"]["message"], "Not your turn", "{v}");
    // Yellow answers over MCP's session tools.
    let r = mcp_tool(
        s.http,
        &yellow.token,
        "session_act",
        json!({"session_id": id, "action": "4", "expected_tick": 1}),
    )
    .await;
    assert!(r["isError"] != true, "{r}");
    let r = mcp_tool(
        s.http,
        &yellow.token,
        "session_state",
        json!({"session_id": id}),
    )
    .await;
    let rows = &r["structuredContent"]["state"]["rows"];
    assert_eq!(rows[5], "...R...", "{r}");
    assert_eq!(rows[4], "...Y...", "{r}");
    // The page and its live frames, for anyone.
    let page = reqwest::get(format!("http://{}/connect4/{id}", s.http))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Connect Four, game #"));
    let missing = reqwest::get(format!("http://{}/connect4/999", s.http))
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
    let mut live = Stream::open(s.http, &format!("/connect4/{id}/live"), None).await;
    let (event, frame) = live.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(event, "frame");
    assert_eq!(frame["red"], "Rho");
    assert_eq!(frame["rows"][4], "...Y...", "{frame}");
    assert_eq!(frame["turn"], "red");
    api.post(
        &format!("/sessions/{id}/actions"),
        &red.token,
        json!({"action": "5", "expected_tick": 2}),
    )
    .await;
    let (_, frame) = live.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(frame["rows"][5], "...RR..", "{frame}");
    // The OpenAPI text lists the page, from the module's declaration.
    let (_, doc) = api.get("/openapi.json", &red.token).await;
    assert!(
        doc["paths"]["/connect4/{session_id}"]["get"].is_object(),
        "{doc}"
    );
}
