//! Every resource a stranger can make moot hold is bounded, whichever face they use: HTTP
//! connections and their headers, login guesses, writes per identity, agents per address,
//! long polls per agent, and MCP bodies.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{Client, TestServer, mcp_tool};

/// Reads what the server sends until it closes the connection (or `within` passes: None).
async fn until_closed(s: &mut TcpStream, within: Duration) -> Option<Vec<u8>> {
    let mut got = Vec::new();
    let read = async {
        let mut buf = [0u8; 4096];
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => got.extend_from_slice(&buf[..n]),
            }
        }
    };
    tokio::time::timeout(within, read).await.ok().map(|()| got)
}

#[tokio::test]
async fn half_sent_and_silent_http_clients_are_closed_and_the_cap_holds() {
    let s = TestServer::start_with(|c| {
        c.http_header_timeout = Duration::from_millis(500).into();
        c.max_http_connections = 8;
    })
    .await;
    // Four send half a request head (slowloris), four send nothing at all.
    let mut held = Vec::new();
    for i in 0..8 {
        let mut c = TcpStream::connect(s.http).await.unwrap();
        if i % 2 == 0 {
            c.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                .await
                .unwrap();
        }
        held.push(c);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    // The ninth is told the server is full, at once.
    let mut ninth = TcpStream::connect(s.http).await.unwrap();
    ninth
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let answer = until_closed(&mut ninth, Duration::from_secs(2))
        .await
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("Too many connections"), "{answer}");
    // Telnet is not locked out meanwhile.
    let mut t = s.client().await;
    t.expect("connect <name> <password>").await;
    // All eight are closed once the header timeout has passed, and the slots come back.
    for c in &mut held {
        assert!(
            until_closed(c, Duration::from_secs(3)).await.is_some(),
            "a slow client kept its connection"
        );
    }
    let (status, _) = s.api().send("GET", "/health", None, None).await;
    assert_eq!(status, 200);
    s.stop().await;
}

#[tokio::test]
async fn login_guesses_are_admitted_per_address_and_name_across_connections() {
    // 60 a minute from one address; 30 a minute at one name.
    let s = TestServer::start_with(|c| c.login_rate = 60.0).await;
    drop(s.player("Victim").await);
    drop(s.player("Eve").await);
    // Eve guesses at Victim's password from forty connections at once. The name's bucket
    // refills at half a guess a second, so a slow machine may admit a few more than thirty.
    let started = std::time::Instant::now();
    let mut guesses = Vec::new();
    for i in 0..40 {
        let addr = s.addr;
        guesses.push(tokio::spawn(async move {
            let mut c = Client::connect(addr).await;
            c.expect("connect <name> <password>").await;
            c.send(&format!("connect Victim guess{i}")).await;
            loop {
                let l = c.line().await.unwrap();
                let refused = l.contains("Too many login attempts");
                let checked = l.contains("different password");
                if refused || checked {
                    return (refused, checked, l);
                }
            }
        }));
    }
    let mut checked = 0;
    for g in guesses {
        let (refused, was_checked, lines) = g.await.unwrap();
        assert!(refused || was_checked, "{lines:?}");
        checked += usize::from(was_checked);
    }
    let refilled = (started.elapsed().as_secs_f64() * 0.5).ceil() as usize;
    assert!(
        (30..=30 + refilled).contains(&checked),
        "{checked} guesses checked at one name (30, and {refilled} refilled)"
    );
    // Eve logging in to her own character does not buy more guesses at Victim's: of a few more
    // quick guesses, those beyond what refilled meanwhile are refused.
    let mut eve = Client::connect(s.addr).await;
    eve.send("connect Eve pw-Eve-moot").await;
    eve.expect("*** Connected ***").await;
    let mut refused = false;
    for i in 0..4 {
        let mut c = Client::connect(s.addr).await;
        c.send(&format!("connect Victim one-more{i}")).await;
        loop {
            let l = c.line().await.unwrap();
            if l.contains("Too many login attempts") {
                refused = true;
                break;
            }
            if l.contains("different password") {
                break;
            }
        }
        if refused {
            break;
        }
    }
    assert!(
        refused,
        "a success at Eve's name reset the count at Victim's"
    );
    s.stop().await;
}

#[tokio::test]
async fn one_identity_gets_one_write_rate_on_every_face() {
    let s = TestServer::start_with(|c| {
        c.command_rate = 1.0;
        c.command_burst = 3;
    })
    .await;
    let api = s.api();
    let a = api.agent(Some("Hasty")).await;
    // Reading is free.
    for _ in 0..10 {
        let r = mcp_tool(s.http, &a.token, "look", json!({})).await;
        assert_eq!(r["isError"], false, "{r}");
    }
    for i in 0..3 {
        let r = mcp_tool(
            s.http,
            &a.token,
            "say",
            json!({"text": format!("hello {i}")}),
        )
        .await;
        assert_eq!(r["isError"], false, "{r}");
    }
    let r = mcp_tool(s.http, &a.token, "say", json!({"text": "one too many"})).await;
    assert_eq!(r["isError"], true, "{r}");
    assert!(r.to_string().contains("acting too fast"), "{r}");
    // The same identity over REST finds the same empty bucket: 429 with Retry-After.
    let b = api.agent(None).await;
    let resp = reqwest::Client::new()
        .post(format!("http://{}/sessions", s.http))
        .bearer_auth(&a.token)
        .json(&json!({"template": "rps.v1", "participants": {"player_1": a.id, "player_2": b.id}}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 429);
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=2).contains(&retry), "{retry}");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "RATE_LIMITED");
    // Another identity is not held back.
    let (status, v) = api
        .post(
            "/sessions",
            &b.token,
            json!({"template": "rps.v1", "participants": {"player_1": b.id, "player_2": a.id}}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    s.stop().await;
}

#[tokio::test]
async fn agents_are_made_at_a_bounded_rate_per_address() {
    let s = TestServer::start_with(|c| c.agent_rate = 3.0).await;
    for _ in 0..3 {
        s.api().agent(None).await;
    }
    let resp = reqwest::Client::new()
        .post(format!("http://{}/agents", s.http))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 429);
    assert!(resp.headers().contains_key("retry-after"));
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"]["code"], "RATE_LIMITED", "{body}");
    s.stop().await;
}

#[tokio::test]
async fn a_password_that_looks_like_a_token_is_refused_at_create() {
    let s = TestServer::start().await;
    let mut c = s.client().await;
    c.send("create Tokenish moot_abc_def").await;
    c.expect("may not start with \"moot_\"").await;
    s.stop().await;
}

#[tokio::test]
async fn an_agent_may_hold_only_so_many_long_polls() {
    let s = TestServer::start_with(|c| {
        c.polls_per_agent = 2;
        c.wait_timeout = Duration::from_secs(2).into();
    })
    .await;
    let a = s.api().agent(Some("Waiter")).await;
    let r = mcp_tool(
        s.http,
        &a.token,
        "createGame",
        json!({"type": "agent", "color": "white"}),
    )
    .await;
    let game = r["structuredContent"]["game_id"].clone();
    assert!(!game.is_null(), "{r}");
    let calls: Vec<_> = (0..3)
        .map(|_| {
            let (http, token, game) = (s.http, a.token.clone(), game.clone());
            tokio::spawn(async move {
                mcp_tool(http, &token, "waitForNextTurn", json!({"game_id": game})).await
            })
        })
        .collect();
    let mut refused = 0;
    for c in calls {
        let r = c.await.unwrap();
        if r["isError"] == true {
            assert!(r.to_string().contains("calls waiting"), "{r}");
            refused += 1;
        }
    }
    assert_eq!(refused, 1, "two wait, the third is refused");
    s.stop().await;
}

/// A raw POST to /mcp (a `tools/list`, by its headers); the status and the JSON answer.
async fn post_mcp(
    s: &TestServer,
    token: &str,
    body: Vec<u8>,
    origin: Option<&str>,
) -> (u16, Value) {
    let (status, _, text) =
        crate::support::post_mcp_raw(s.http, token, "tools/list", None, body, origin).await;
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn mcp_bodies_are_bounded_checked_as_json_rpc_and_origins_too() {
    let s = TestServer::start().await;
    let a = s.api().agent(None).await;
    let (status, v) = post_mcp(&s, &a.token, b"{not json".to_vec(), None).await;
    assert_eq!(
        (status, v["error"]["code"].clone()),
        (400, json!(-32700)),
        "{v}"
    );
    let (status, v) = post_mcp(&s, &a.token, b"{\"hello\": 1}".to_vec(), None).await;
    assert_eq!(
        (status, v["error"]["code"].clone()),
        (400, json!(-32600)),
        "{v}"
    );
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":\"{}\"}}",
        "x".repeat(2 << 20)
    );
    let (status, _) = post_mcp(&s, &a.token, big.into_bytes(), None).await;
    assert_eq!(status, 413);
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}})
    .to_string()
    .into_bytes();
    // A page from another site in the same browser may not drive the tools.
    let (status, _) = post_mcp(&s, &a.token, list.clone(), Some("http://evil.example")).await;
    assert_eq!(status, 403);
    let ours = format!("http://{}", s.http);
    let (status, v) = post_mcp(&s, &a.token, list, Some(&ours)).await;
    assert_eq!(status, 200, "{v}");
    s.stop().await;
}

#[tokio::test]
async fn an_identity_in_too_many_running_sessions_starts_no_more() {
    let s = TestServer::start_with(|c| c.sessions_per_agent = 2).await;
    let api = s.api();
    let (a, b) = (api.agent(None).await, api.agent(None).await);
    let rps = json!({"template": "rps.v1", "participants": {"player_1": a.id, "player_2": b.id}});
    let first = api
        .session(&a, "rps.v1", &[("player_1", &a), ("player_2", &b)])
        .await;
    api.session(&a, "rps.v1", &[("player_1", &a), ("player_2", &b)])
        .await;
    let (status, v) = api.post("/sessions", &a.token, rps.clone()).await;
    assert_eq!(
        (status, v["error"]["code"].clone()),
        (409, json!("CONFLICT")),
        "{v}"
    );
    // Once one ends, there is room again.
    for who in [&a, &b] {
        let (status, _) = api
            .post(
                &format!("/sessions/{first}/actions"),
                &who.token,
                json!({"action": "rock"}),
            )
            .await;
        assert_eq!(status, 200);
    }
    let (status, v) = api.post("/sessions", &a.token, rps).await;
    assert_eq!(status, 201, "{v}");
    s.stop().await;
}

/// An MCP 2025-11-25 `initialize`; the status and the session id the server gave, if any.
async fn initialize(s: &TestServer, token: &str) -> (u16, Option<String>, String) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    let resp = reqwest::Client::new()
        .post(format!("http://{}/mcp", s.http))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let id = resp
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, id, resp.text().await.unwrap())
}

#[tokio::test]
async fn an_agent_may_hold_only_so_many_mcp_sessions() {
    let s = TestServer::start_with(|c| c.mcp_sessions_per_agent = 2).await;
    let a = s.api().agent(None).await;
    let (_, first, _) = initialize(&s, &a.token).await;
    let first = first.expect("a session id");
    let (status, second, _) = initialize(&s, &a.token).await;
    assert_eq!(status, 200);
    assert!(second.is_some());
    let (status, none, text) = initialize(&s, &a.token).await;
    assert_eq!((status, none), (429, None), "{text}");
    assert!(text.contains("open MCP sessions"), "{text}");
    // Another agent is not held back.
    let b = s.api().agent(None).await;
    assert_eq!(initialize(&s, &b.token).await.0, 200);
    // Closing one makes room.
    let closed = reqwest::Client::new()
        .delete(format!("http://{}/mcp", s.http))
        .bearer_auth(&a.token)
        .header("mcp-session-id", &first)
        .send()
        .await
        .unwrap();
    assert!(closed.status().is_success(), "{}", closed.status());
    assert_eq!(initialize(&s, &a.token).await.0, 200);
    s.stop().await;
}
