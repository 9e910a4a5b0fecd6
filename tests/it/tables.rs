//! The Game Room's tables from telnet: rock-paper-scissors and tic-tac-toe against the house
//! and against people, with text boards; notes that reach only the players they name; and
//! games started away from their table.

use serde_json::json;

use crate::support::{Client, TestServer, mcp_tool};

/// A player standing in the Game Room.
async fn in_game_room(s: &TestServer, name: &str) -> Client {
    let mut c = s.player(name).await;
    c.send("south").await;
    c.expect("Exits:").await;
    c
}

#[tokio::test]
async fn rock_paper_scissors_and_tic_tac_toe_against_the_house_with_text_boards() {
    let s = TestServer::start().await;
    let mut ann = in_game_room(&s, "Ann").await;
    let look = ann.command("look").await;
    assert!(
        look.iter().any(|l| l.contains("a rock-paper-scissors table")
            && l.contains("a tic-tac-toe board")),
        "{look:?}"
    );
    // The house chooses right after Ann sits down; Ann is told it is up to her, not what it
    // chose.
    ann.send("play rps with house").await;
    ann.expect("You sit down to play rock-paper-scissors with the house: game #1.")
        .await;
    let seen = ann
        .expect("Your opponent has chosen; now you choose: rock, paper or scissors.")
        .await;
    assert!(
        seen.contains(&"#1: Computer has chosen.".to_owned()),
        "{seen:?}"
    );
    let answer = ann.command("choose rock").await;
    assert_eq!(answer[0], "You choose rock in game #1.");
    let table = answer[1..].join("\n");
    // Seats are shown by their players' names.
    assert!(table.starts_with("Ann: rock   Computer: "), "{table}");
    // The winner by name, or a draw; never the seat's number.
    assert!(
        [
            "Result: Ann wins.",
            "Result: Computer wins.",
            "Result: draw."
        ]
        .iter()
        .any(|r| table.contains(r)),
        "{table}"
    );
    assert!(!table.contains('{'), "a text table, not JSON: {table}");
    // Where the game stands says names too: in `games`, `look` and the town's map (they once
    // said "paper beats rock: player_2 wins").
    let games = ann.command("games").await.join("\n");
    let look = ann.command("look").await.join("\n");
    let (_, map) = s.api().send("GET", "/town.json", None, None).await;
    for (face, text) in [("games", games), ("look", look), ("map", map.to_string())] {
        assert!(text.contains("Ann"), "{face}: {text}");
        assert!(!text.contains("player_"), "{face}: {text}");
    }

    ann.send("play tictactoe with house").await;
    ann.expect("game #2, you are x.").await;
    // X moves; the house answers each move, until the game ends.
    let mut cells = [1, 2, 3, 4, 5, 6, 7, 8, 9].into_iter();
    let mut ended = false;
    ann.send("mark 5").await;
    let mine = ann.expect("You mark cell 5 in game #2.").await;
    assert!(mine.last().unwrap().contains("game #2"));
    for _ in 0..5 {
        let news = ann.expect("#2: Computer (o) marks").await;
        let mut board = Vec::new();
        while board.len() < 6 {
            board.push(ann.line().await.unwrap());
        }
        assert_eq!(board[1], "  ---+---+---", "{news:?} {board:?}");
        if news.last().unwrap().contains("Game over") {
            ended = true;
            break;
        }
        // Mark the first cell still numbered on the board.
        let free = cells
            .find(|c| board.iter().any(|l| l.contains(&c.to_string())))
            .unwrap();
        let answer = ann.command(&format!("mark {free}")).await;
        if answer
            .iter()
            .any(|l| l.ends_with("wins.") || l == "A draw.")
        {
            ended = true;
            break;
        }
    }
    assert!(ended, "the game of tic-tac-toe ended");
    let games = ann.command("look").await;
    assert!(
        games.iter().any(|l| l.contains("Game #2 (tic-tac-toe)")),
        "{games:?}"
    );
}

#[tokio::test]
async fn notes_reach_only_the_players_they_name_on_telnet_and_in_mcp_events() {
    let s = TestServer::start().await;
    let mut ann = in_game_room(&s, "Ann").await;
    // Bob is an agent over MCP; he walks to the Game Room and accepts Ann's invitation.
    let bob = s.api().agent(Some("Bob")).await;
    let r = mcp_tool(s.http, &bob.token, "go", json!({ "exit": "south" })).await;
    assert!(r["isError"] != true, "{r}");
    ann.expect("Bob has arrived.").await;
    let mut cy = in_game_room(&s, "Cy").await;
    ann.command("play rps with Bob").await;
    let r = mcp_tool(
        s.http,
        &bob.token,
        "play",
        json!({ "game": "rps", "with": "Ann" }),
    )
    .await;
    assert_eq!(r["structuredContent"]["session_id"], "1", "{r}");
    cy.command("watch #1").await;
    // Ann chooses: Bob is told to choose; Cy only that she has; nobody what.
    ann.command("choose rock").await;
    let heard = cy.expect("#1: Ann has chosen.").await;
    let r = mcp_tool(s.http, &bob.token, "events", json!({})).await;
    let events = r["structuredContent"].to_string();
    assert!(events.contains("#1: Ann has chosen."), "{events}");
    assert!(
        events.contains("Your opponent has chosen; now you choose: rock, paper or scissors."),
        "{events}"
    );
    assert!(
        !events.contains("player_1: rock") && !events.contains("Ann: rock"),
        "{events}"
    );
    // Bob chooses; everyone hears the result, and Cy was never told to choose.
    let r = mcp_tool(s.http, &bob.token, "choose", json!({ "choice": "paper" })).await;
    assert_eq!(r["structuredContent"]["status"], "completed", "{r}");
    // The result said once (it once followed itself as "Game over: …").
    let end = "#1: Bob chooses paper; paper beats rock: Bob wins.";
    let later = cy.expect(end).await;
    ann.expect(end).await;
    for l in heard.iter().chain(&later) {
        assert!(
            !l.contains("now you choose"),
            "a note for Bob reached Cy: {l}"
        );
        assert!(
            !l.contains("chooses rock") && !l.contains("Ann: rock"),
            "{l}"
        );
    }
}

/// Tic-tac-toe and Connect Four can be given up, as chess can, on every face: a game nobody
/// wants to finish no longer stands forever (and counts against its player's fifty).
#[tokio::test]
async fn tic_tac_toe_and_connect_four_are_resigned_on_telnet_and_rest() {
    let s = TestServer::start().await;
    let mut ann = in_game_room(&s, "Ann").await;
    // She sits down to the board and is told the time a move has (a clocked game once began
    // unseen, and its clock ran out unannounced).
    let sat = ann.command("play tictactoe with house clock 1d").await;
    assert!(sat[0].contains("game #1"), "{sat:?}");
    assert!(sat.iter().any(|l| l == "  ---+---+---"), "{sat:?}");
    assert!(
        sat.iter().any(|l| l.starts_with("Clock 1d per move")),
        "{sat:?}"
    );
    let rps = ann.command("play rps with house").await;
    assert!(rps[0].contains("game #2"), "{rps:?}");
    assert_eq!(
        ann.command("resign #2").await,
        ["A game of rock-paper-scissors cannot be resigned."]
    );
    // Her only game that can be resigned is the tic-tac-toe one, whoever is to move.
    let resigned = ann.command("resign").await;
    assert_eq!(resigned[0], "You resign game #1.", "{resigned:?}");
    let games = ann.command("games").await.join("\n");
    assert!(games.contains("wins by resignation"), "{games}");
    assert_eq!(
        ann.command("resign").await,
        ["You are not playing any resignable game."]
    );

    let api = s.api();
    let me = api.agent(Some("Quits")).await;
    let (status, v) = api
        .post(
            "/sessions",
            &me.token,
            json!({"template": "connect4.v1", "participants": {"red": me.id, "yellow": "house"}}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &me.token,
            json!({"action": "resign", "expected_tick": 0}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["state"]["result"], "yellow_wins_by_resignation", "{v}");
    assert_eq!(v["status"], "completed", "{v}");
}

/// A room where games pile up still fits a screen: its text names the newest running games and
/// counts the rest (fifty games an agent left running once filled a look with 300 lines).
#[tokio::test]
async fn a_room_names_its_newest_running_games_and_counts_the_rest() {
    let s = TestServer::start().await;
    let api = s.api();
    let me = api.agent(Some("Heaps")).await;
    let mut ids = Vec::new();
    for _ in 0..11 {
        let (status, v) = api
            .post(
                "/sessions",
                &me.token,
                json!({"template": "tictactoe.v1", "participants": {"x": me.id, "o": "house"}}),
            )
            .await;
        assert_eq!(status, 201, "{v}");
        ids.push(v["session_id"].as_str().unwrap().to_owned());
    }
    let mut ann = in_game_room(&s, "Ann").await;
    let look = ann.command("look").await;
    let named: Vec<&String> = look.iter().filter(|l| l.starts_with("Game #")).collect();
    assert_eq!(named.len(), 8, "{look:#?}");
    assert!(
        named[0].starts_with(&format!("Game #{} ", ids[3])),
        "{look:#?}"
    );
    assert!(
        look.contains(&"3 older games are in play here too (`games` lists them).".to_owned()),
        "{look:#?}"
    );
    let games = ann.command("games").await;
    assert!(
        ids.iter()
            .all(|id| games.iter().any(|l| l.starts_with(&format!("#{id} ")))),
        "{games:#?}"
    );
}

#[tokio::test]
async fn a_game_started_away_from_its_table_stands_there_and_says_so() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    // In the Town Square: a hand of blackjack dealt from here is played at the Card Room's
    // table, and Ann is told so plainly; a watcher there sees it.
    let dealt = ann.command("deal").await;
    assert!(
        dealt.iter().any(|l| l
            == "You play from afar: the game stands at the blackjack table \
in the Card Room, where anyone may watch it."),
        "{dealt:#?}"
    );
    assert!(
        dealt.iter().any(|l| l.starts_with("Player: ")),
        "{dealt:#?}"
    );
    let mut bo = s.player("Bo").await;
    bo.send("west").await;
    bo.expect("Exits:").await;
    let games = bo.command("games").await;
    assert!(
        games.iter().any(|l| l.starts_with("#1 (blackjack): Ann,")),
        "{games:?}"
    );
    // Tables that are not here cannot be played at, and say where they are.
    let r = ann.command("play rps with house").await;
    assert!(
        r[0].starts_with("There is no \"rps\" to play here"),
        "{r:?}"
    );
    // A person reads the totals the tools' fixed words leave out, and a finished hand is
    // said to be over, not in play. (A natural ends the hand as it is dealt.)
    let hand = ann.command("stand").await;
    if hand[0].starts_with("There is no hand in play") {
        let dealt = ann.command("games all").await.join("\n");
        assert!(dealt.contains("the hand is over: "), "{dealt}");
    } else {
        let last = hand.last().unwrap();
        assert!(
            last.starts_with("(You had ") && last.ends_with("`deal` for another hand.)"),
            "{hand:?}"
        );
    }
    let games = bo.command("games").await;
    assert!(
        games
            .iter()
            .any(|l| l.starts_with("#1 (blackjack): Ann, the hand is over: ")),
        "{games:?}"
    );
    // The hand, and then that it stands at its table.
    let dealt = ann.command("deal").await;
    let totals = &dealt[dealt.len() - 2];
    assert!(
        totals.starts_with("(You have ") || totals.starts_with("(You had "),
        "{dealt:?}"
    );
    assert!(
        dealt.last().unwrap().starts_with("You play from afar"),
        "{dealt:?}"
    );
}

/// A person's `help` keeps the agents' tools out (their topic says where agents read); an
/// agent's `help` over MCP gives every topic with its verbs, the agents' tools among them.
#[tokio::test]
async fn help_groups_the_verbs_by_topic_and_keeps_agents_tools_apart() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let all = ann.command("help").await;
    assert!(
        !all.iter()
            .any(|l| l.contains("session_create") || l.contains("Agents' tools")),
        "{all:?}"
    );
    for (topic, first, verb) in [
        ("basics", "Moving and talking:", "whisper"),
        ("chess", "Chess:", "challenge"),
        ("blackjack", "Cards:", "deal"),
        (
            "rps",
            "Rock-paper-scissors (`rps`), at the tables:",
            "choose",
        ),
        ("games", "Games at the tables:", "mark"),
        ("agents", "Agents' tools:", "@token"),
    ] {
        let lines = ann.command(&format!("help {topic}")).await;
        assert_eq!(lines[0], first, "help {topic}: {lines:?}");
        assert!(
            lines.iter().any(|l| l.trim_start().starts_with(verb)),
            "help {topic} lists {verb}: {lines:?}"
        );
        assert!(
            !lines.iter().any(|l| l.contains("session_create")),
            "{lines:?}"
        );
    }
    // A verb still has its own help.
    let one = ann.command("help mark").await;
    assert_eq!(one[0], "Usage: mark <1-9> [#<game>]");
    // An agent reads the whole list, its own tools with their topic.
    let bob = s.api().agent(Some("Bob")).await;
    let r = mcp_tool(s.http, &bob.token, "help", json!({})).await;
    let text = r["structuredContent"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{r}"));
    for heading in [
        "Moving and talking:",
        "Chess (`help chess`):",
        "Cards (`help blackjack`):",
        "Games at the tables (`help games`):",
        "Agents' tools (`help agents`):",
    ] {
        assert!(text.contains(heading), "{heading}: {text}");
    }
    assert!(
        text.contains("  session_create") && !text.contains("@boot"),
        "{text}"
    );
    // Only what an agent can call: not the lichess Bot API's reads (once listed, then
    // refused as unknown tools) nor telnet's `@wrap`.
    for none in [
        "bot_account",
        "bot_events",
        "bot_game",
        "@wrap",
        "@linelength",
    ] {
        assert!(!text.contains(none), "{none}: {text}");
    }
}

/// A tic-tac-toe game with a time per move, over REST: x, who never moves, loses on time. The
/// server's actor takes the deadline as a logged action at the instant it fell, and nobody can
/// move after it.
#[tokio::test]
async fn a_tic_tac_toe_player_who_never_moves_loses_on_time() {
    // Ten seconds a move, at ten times the wall clock: one real second.
    let s = TestServer::start_with(|c| c.time_scale = 10.0).await;
    let api = s.api();
    let ann = api.agent(Some("Ann")).await;
    let (status, v) = api
        .post(
            "/sessions",
            &ann.token,
            json!({ "template": "tictactoe.v1", "participants": { "x": ann.id, "o": "computer" },
                    "options": { "clock": "10s" } }),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let mut state = json!(null);
    for _ in 0..300 {
        state = api
            .get(&format!("/sessions/{id}/state"), &ann.token)
            .await
            .1;
        if state["status"] == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(state["status"], "completed", "{state}");
    assert_eq!(state["state"]["result"], "o_wins_on_time", "{state}");
    assert_eq!(state["state"]["board"], ".........");
    assert_eq!(state["state"]["clock"]["per_move_ms"], 10_000);
    // Too late for a move.
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &ann.token,
            json!({ "action": "4", "expected_tick": state["tick"] }),
        )
        .await;
    assert_ne!(status, 200, "{v}");
    let (_, log) = api.get(&format!("/sessions/{id}/log"), &ann.token).await;
    let actions = log["actions"].as_array().unwrap();
    assert_eq!(actions.len(), 1, "{log}");
    assert_eq!(
        (&actions[0]["role"], &actions[0]["action"]),
        (&json!("server"), &json!("flag"))
    );
    let at = crate::support::sql_rows(
        &s.db,
        &format!("SELECT at_ms FROM actions WHERE session_id = '{id}'"),
    );
    assert_eq!(
        at,
        [["10000"]],
        "the flag fell ten game seconds after the start"
    );
    s.stop().await;
}
