//! The sets of MCP tools, each at its own address: what each lists, to whom, and what it costs
//! an agent's context (the bytes of `tools/list`).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::support::{TestServer, mcp_request, mcp_tool, set_names};

/// The plain `/mcp` must fit the hosts that cap what they load (Cursor's 40, Windsurf's 50)
/// and leave an agent its context.
const DEFAULT_MAX_TOOLS: usize = 25;
const DEFAULT_MAX_BYTES: usize = 24_000;

/// `tools/list` at `path` as `token` sees it: the tool names and the bytes of the list.
async fn listed(s: &TestServer, token: &str, path: &str) -> (BTreeSet<String>, usize) {
    let (names, bytes, _) = listed_with_longest(s, token, path).await;
    (names, bytes)
}

/// [`listed`], and the longest description there, in characters.
async fn listed_with_longest(
    s: &TestServer,
    token: &str,
    path: &str,
) -> (BTreeSet<String>, usize, usize) {
    let r = mcp_request(s.http, token, path, "tools/list", json!({})).await;
    let tools = r["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{path}: {r}"));
    let names = tools
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect();
    let longest = tools
        .iter()
        .map(|t| t["description"].as_str().unwrap_or("").chars().count())
        .max()
        .unwrap_or(0);
    (
        names,
        serde_json::to_string(&r["tools"]).unwrap().len(),
        longest,
    )
}

fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

/// Every address lists its set (the wizards' only to a wizard), the plain `/mcp` the town's
/// within the budget; the table the README gives is printed.
#[tokio::test]
async fn every_address_lists_its_set_and_the_default_fits_the_budget() {
    let s = TestServer::start().await;
    let agent = s.api().agent(Some("Robo")).await;
    let wiz = s.api().agent(Some("Wiz")).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_moot"))
        .args(["--db", &s.db.address(), "admin", "grant", "Wiz"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");

    let (town, bytes, longest) = listed_with_longest(&s, &agent.token, "/mcp").await;
    assert!(
        longest < 600,
        "the longest description at /mcp is {longest} characters"
    );
    assert_eq!(town, set_names("town"));
    assert!(
        town.len() <= DEFAULT_MAX_TOOLS,
        "/mcp lists {} tools",
        town.len()
    );
    assert!(
        bytes <= DEFAULT_MAX_BYTES,
        "/mcp's tools/list is {bytes} bytes"
    );
    assert!(
        town.contains("toolsets"),
        "the default names the other sets"
    );
    let mut table = vec![format!("| `/mcp` | {} | {bytes} |", town.len())];
    for set in moot::games::toolsets().iter().copied() {
        let path = moot::games::toolset_path(&set);
        let (seen, bytes) = listed(&s, &agent.token, &path).await;
        if set.wizards_only {
            assert!(
                seen.is_empty(),
                "{path} lists {seen:?} to someone not a wizard"
            );
            let (seen, bytes) = listed(&s, &wiz.token, &path).await;
            assert_eq!(seen, set_names(set.name), "{path}, to a wizard");
            table.push(format!("| `{path}` | {} | {bytes} |", seen.len()));
        } else {
            assert_eq!(seen, set_names(set.name), "{path}");
            table.push(format!("| `{path}` | {} | {bytes} |", seen.len()));
        }
    }
    eprintln!("| address | tools | bytes of tools/list |\n| --- | --- | --- |");
    for row in table {
        eprintln!("{row}");
    }
    // No wizard's tool and no telnet-only verb anywhere but where it belongs.
    for (path, token) in [("/mcp", &agent.token), ("/mcp/town", &wiz.token)] {
        let (seen, _) = listed(&s, token, path).await;
        for never in ["boot", "ban", "shutdown", "linelength", "wrap"] {
            assert!(!seen.contains(never), "{path} lists {never}");
        }
    }
    s.stop().await;
}

/// Each game's server, exactly, at its own address: the four chess tools, the three blackjack
/// tools, the thirteen Werewolf tools (and the practice match), the session tools.
#[tokio::test]
async fn each_games_server_is_at_its_own_address_exactly() {
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    let (chess, _) = listed(&s, &a.token, "/mcp/chess").await;
    assert_eq!(
        chess,
        names(&["createGame", "joinGame", "finishTurn", "waitForNextTurn"])
    );
    let (cards, _) = listed(&s, &a.token, "/mcp/blackjack").await;
    assert_eq!(
        cards,
        names(&["blackjack_deal", "blackjack_hit", "blackjack_stand"])
    );
    // Werewolf's thirteen, and the practice match against the house's bots.
    let (werewolf, _) = listed(&s, &a.token, "/mcp/werewolf").await;
    assert_eq!(
        werewolf,
        names(&[
            "et.werewolf.queue.join",
            "et.werewolf.queue.leave",
            "et.werewolf.queue.status",
            "et.werewolf.matches.list",
            "et.werewolf.match.get_state",
            "et.werewolf.match.events.get",
            "et.werewolf.match.ready",
            "et.werewolf.match.say_public",
            "et.werewolf.match.vote",
            "et.werewolf.match.night.wolf_kill",
            "et.werewolf.match.night.seer_inspect",
            "et.werewolf.match.night.doctor_protect",
            "et.werewolf.match.night.wolf_chat",
            "et.werewolf.practice.start",
        ])
    );
    let (sessions, _) = listed(&s, &a.token, "/mcp/sessions").await;
    assert_eq!(
        sessions,
        names(&[
            "session_create",
            "session_act",
            "session_state",
            "session_log",
            "session_list",
            "session_accept",
            "session_decline"
        ])
    );
    s.stop().await;
}

/// A tool is called where it is served; elsewhere the answer says where it is. One identity
/// and one town behind every address: a hand dealt at `/mcp/blackjack` is the one `look`
/// at `/mcp/sessions` lists.
#[tokio::test]
async fn a_tool_called_at_another_address_is_refused_with_where_it_is_served() {
    let s = TestServer::start().await;
    let a = s.api().agent(Some("Robo")).await;
    let params = json!({ "name": "blackjack_deal", "arguments": {} });
    let wrong = mcp_request(s.http, &a.token, "/mcp", "tools/call", params).await;
    let message = wrong["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("/mcp/blackjack"),
        "the refusal names the address: {wrong}"
    );
    let params = json!({ "name": "no_such_tool", "arguments": {} });
    let unknown = mcp_request(s.http, &a.token, "/mcp/chess", "tools/call", params).await;
    assert_eq!(
        unknown["message"], "unknown tool `no_such_tool`",
        "{unknown}"
    );
    // The same agent, at two addresses, in one town.
    let dealt = mcp_tool(s.http, &a.token, "blackjack_deal", json!({})).await;
    assert_ne!(dealt["isError"], true, "{dealt}");
    let mine = mcp_tool(s.http, &a.token, "session_list", json!({})).await;
    let templates: Vec<&Value> = mine["structuredContent"]["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["template"])
        .collect();
    assert_eq!(templates, [&json!("blackjack.v1")], "{mine}");
    s.stop().await;
}

/// The `toolsets` tool at `/mcp` names every set and its address, so an agent finds the rest
/// one address away.
#[tokio::test]
async fn the_default_names_every_set_and_its_address() {
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    let r = mcp_tool(s.http, &a.token, "toolsets", json!({})).await;
    let sets = r["structuredContent"]["toolsets"].as_array().unwrap();
    let by_name = |n: &str| -> &Value { sets.iter().find(|t| t["name"] == n).unwrap() };
    for set in moot::games::toolsets().iter().copied() {
        let t = by_name(set.name);
        assert_eq!(t["path"], moot::games::toolset_path(&set));
        assert_eq!(t["stdio"], format!("moot mcp --tools {}", set.name));
    }
    assert_eq!(
        by_name("blackjack")["tools"],
        json!(["blackjack_deal", "blackjack_hit", "blackjack_stand"])
    );
    s.stop().await;
}

/// A set's address has its own OAuth metadata (RFC 9728), and a 401 there points to it.
#[tokio::test]
async fn a_sets_address_has_its_own_protected_resource_metadata() {
    let s = TestServer::start().await;
    let base = format!("http://{}", s.http);
    let r = reqwest::Client::new()
        .post(format!("{base}/mcp/chess"))
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let www = r.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(
        www.contains("/.well-known/oauth-protected-resource/mcp/chess\""),
        "{www}"
    );
    let meta: Value = reqwest::get(format!(
        "{base}/.well-known/oauth-protected-resource/mcp/chess"
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(meta["resource"], format!("{base}/mcp/chess"));
    let none = reqwest::get(format!(
        "{base}/.well-known/oauth-protected-resource/mcp/nothing"
    ))
    .await
    .unwrap();
    assert_eq!(none.status(), 404);
    s.stop().await;
}

/// `/skill.md` is all a fresh agent needs: given only its address, the Python SDK agent takes
/// the token address, the sets' addresses and the tool names from the page, then plays a chess
/// game against the computer and a Werewolf practice match to their ends
/// (tests/mcp/skill_agent.py), meeting no rate limit on the way. The same text is an MCP
/// resource.
#[tokio::test]
async fn an_agent_that_reads_only_the_skill_page_plays_chess_and_werewolf() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let url = format!("http://{}/skill.md", s.http);
    let seen = crate::support::run_python("mcp/skill_agent.py", &[&url]).await;
    assert_eq!(seen["chess_url"], format!("http://{}/mcp/chess", s.http));
    assert_eq!(
        seen["werewolf_url"],
        format!("http://{}/mcp/werewolf", s.http)
    );
    assert!(
        seen["chess"]["result"]
            .as_str()
            .is_some_and(|r| !r.is_empty()),
        "{seen}"
    );
    assert!(
        ["VILLAGERS", "WEREWOLVES"].contains(&seen["werewolf"]["winner"].as_str().unwrap_or("")),
        "{seen}"
    );
    // The page's recipe (cursors, a read budget) meets no rate limit.
    assert_eq!(seen["rate_limited"], 0, "{seen}");
    let a = s.api().agent(None).await;
    let read = mcp_request(
        s.http,
        &a.token,
        "/mcp",
        "resources/read",
        json!({ "uri": "moot://skill.md" }),
    )
    .await;
    let text = read["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("| `/mcp/chess` |"), "{text}");
    assert_eq!(read["contents"][0]["uri"], "moot://skill.md");
    s.stop().await;
}

/// `moot mcp` with no `--tools` (an agent's own town over stdio) lists the town's set within
/// the budget too: its whole `tools/list` answer, as the agent reads it, under 24 KiB.
#[test]
fn moot_mcp_over_stdio_lists_the_town_within_the_budget() {
    use std::io::{BufRead, BufReader, Write};
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_moot"))
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for line in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "budget", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    ] {
        writeln!(stdin, "{line}").unwrap();
    }
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let listed = lines
        .by_ref()
        .map(Result::unwrap)
        .find(|l| l.contains("\"id\":2"))
        .expect("tools/list is answered");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    let tools: Value = serde_json::from_str(&listed).unwrap();
    assert!(
        tools["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{listed}"
    );
    assert!(
        listed.len() < 24_576,
        "moot mcp's tools/list is {} bytes",
        listed.len()
    );
}
