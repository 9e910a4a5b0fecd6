//! Every resource a stranger can make moot hold is bounded, whichever face they use: HTTP
//! connections and their headers, connections per address, login guesses, writes per identity,
//! agents per address, long polls per agent, and MCP bodies.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::{
    Agent, Api, Client, TestServer, connect_from, mcp_path, mcp_request_with, mcp_tool,
};

/// Another machine, as the server sees it (the tests' own connections come from 127.0.0.1).
const ELSEWHERE: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

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

#[tokio::test]
async fn one_address_holds_only_its_share_of_http_and_login_screen_connections() {
    let s = TestServer::start_with(|c| {
        c.max_http_connections_per_address = 3;
        c.max_logins_per_address = 2;
    })
    .await;
    // Three slow HTTP connections are this address's share; the fourth is told so at once.
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut c = TcpStream::connect(s.http).await.unwrap();
        c.write_all(b"GET /health HTTP/1.1\r\nX-Slow: ")
            .await
            .unwrap();
        held.push(c);
    }
    let mut fourth = TcpStream::connect(s.http).await.unwrap();
    fourth
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let answer = until_closed(&mut fourth, Duration::from_secs(3))
        .await
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    assert!(answer.contains(r#""code":"RATE_LIMITED""#), "{answer}");
    assert!(answer.contains("from your address"), "{answer}");
    // Another address is served meanwhile.
    let elsewhere = Api::from_address(s.http, ELSEWHERE);
    assert_eq!(elsewhere.send("GET", "/health", None, None).await.0, 200);
    // Once one of the three goes, the address has its place back.
    drop(held.pop());
    let mut tries = 0;
    while s
        .api()
        .try_send("GET", "/health", None, None)
        .await
        .map(|r| r.0)
        != Some(200)
    {
        tries += 1;
        assert!(tries < 100, "the closed connection's place never came back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Telnet: two at the login screen from one address; the third is told so and closed.
    let mut ann = s.client().await;
    ann.expect("quit").await;
    let mut bob = s.client().await;
    bob.expect("quit").await;
    let mut third = s.client().await;
    assert_eq!(
        third.until_closed().await,
        [moot::telnet::ADDRESS_FULL_MESSAGE]
    );
    let mut other = Client::connect_from(s.addr, ELSEWHERE).await;
    other.expect("quit").await;
    // A connection that has logged in no longer counts.
    ann.send("create Ann pw-Ann-moot").await;
    ann.expect("$#$xmcp version: 1.1").await;
    let mut fourth = s.client().await;
    assert_eq!(fourth.line().await.as_deref(), Some("moot"));
    drop((bob, other));
    s.stop().await;
}

#[tokio::test]
async fn the_login_screen_times_out_sooner_when_the_town_is_nearly_full() {
    const TIMED_OUT: &str = "*** Timed-out waiting for login. ***";
    // Nearly full is from three quarters of eight (six open) until under half (four).
    let s = TestServer::start_with(|c| {
        c.max_connections = 8;
        c.crowded_login_timeout = Duration::from_secs(1).into();
    })
    .await;
    let mut waiting = Vec::new();
    for _ in 0..5 {
        let mut c = s.client().await;
        c.expect("quit").await;
        waiting.push(c);
    }
    // Five of eight: the five-minute timeout holds, past the crowded one.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        waiting[0].line_within(Duration::from_millis(100)).await,
        Err(())
    );
    // A sixth fills the town nearly: those idle for over a second are closed at once, until
    // under half the town is open (three of the five, at least).
    let mut sixth = s.client().await;
    sixth.expect("quit").await;
    let mut closed = 0;
    for c in &mut waiting {
        match c.line_within(Duration::from_secs(2)).await {
            Ok(Some(line)) => {
                assert_eq!(line, TIMED_OUT);
                assert_eq!(c.line().await, None);
                closed += 1;
            }
            other => assert_eq!(other, Err(()), "closed without a word"),
        }
    }
    assert!(closed >= 3, "only {closed} of the idle five closed");
    // Under half open, the town is calm again, and a newcomer may take its time.
    let mut calm = s.client().await;
    calm.expect("quit").await;
    assert_eq!(calm.line_within(Duration::from_millis(1500)).await, Err(()));
    s.stop().await;
}

/// One slow HTTP client: `Some` if the server keeps it (it says nothing, waiting for the rest
/// of the head), `None` once it has been told its address has too many.
async fn slow_http(addr: std::net::SocketAddr) -> Option<TcpStream> {
    let mut c = TcpStream::connect(addr).await.unwrap();
    c.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        .await
        .unwrap();
    let Some(answer) = until_closed(&mut c, Duration::from_millis(300)).await else {
        return Some(c);
    };
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    None
}

/// One idle telnet client: `Some` if it reached the login screen, `None` once it has been told
/// its address has too many there.
async fn idle_telnet(addr: std::net::SocketAddr) -> Option<TcpStream> {
    let mut c = TcpStream::connect(addr).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), c.read(&mut buf))
            .await
            .expect("the server answers")
            .unwrap_or(0);
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got);
        if text.contains(moot::telnet::ADDRESS_FULL_MESSAGE) {
            return None;
        }
        if text.contains("connect <name> <password>") {
            return Some(c);
        }
        assert!(n > 0, "closed without a word: {text:?}");
    }
}

/// What another machine gets while one address floods: `/health`, an MCP call and a telnet
/// login, each within a second.
async fn served_elsewhere(s: &TestServer, api: &Api, mcp: &reqwest::Client, olga: &Agent) {
    let second = Duration::from_secs(1);
    let health = tokio::time::timeout(second, api.send("GET", "/health", None, None)).await;
    assert_eq!(health.expect("/health within a second").0, 200);
    let path = mcp_path("look");
    let look = mcp_request_with(
        mcp,
        s.http,
        &olga.token,
        &path,
        "tools/call",
        json!({"name": "look", "arguments": {}}),
    );
    let look = tokio::time::timeout(second, look).await;
    let look = look.expect("an MCP call within a second");
    assert!(look["content"][0]["text"].is_string(), "{look}");
    let login = async {
        let mut c = Client::over(connect_from(s.addr, ELSEWHERE).await.unwrap());
        c.expect("quit").await;
        c.send("connect Tess pw-Tess-moot").await;
        c.expect("Exits:").await;
    };
    tokio::time::timeout(second, login)
        .await
        .expect("a telnet login within a second");
}

/// Issue 46's flood: from one address, 2,100 slow HTTP connections and then 10,050 idle telnet
/// connections. The address keeps only its share of each (256 and 64, the defaults); every
/// other attempt is told why at once; and another machine is served throughout.
#[tokio::test]
async fn one_address_cannot_fill_the_town() {
    let s = TestServer::start_with(|c| {
        // The flood's slow connections are held for the whole test.
        c.http_header_timeout = Duration::from_secs(120).into();
    })
    .await;
    let api = Api::from_address(s.http, ELSEWHERE);
    let olga = api.agent(Some("Olga")).await;
    let mcp = reqwest::Client::builder()
        .local_address(ELSEWHERE)
        .build()
        .unwrap();
    let mut tess = Client::connect_from(s.addr, ELSEWHERE).await;
    tess.send("create Tess pw-Tess-moot").await;
    tess.expect("Exits:").await;
    tess.send("quit").await;
    served_elsewhere(&s, &api, &mcp, &olga).await;

    let mut held_http = Vec::new();
    for batch in 0..7 {
        let tries = (0..300).map(|_| slow_http(s.http));
        held_http.extend(
            futures_util::future::join_all(tries)
                .await
                .into_iter()
                .flatten(),
        );
        served_elsewhere(&s, &api, &mcp, &olga).await;
        assert!(
            held_http.len() <= 256,
            "batch {batch}: {} held",
            held_http.len()
        );
    }
    assert_eq!(held_http.len(), 256);

    let mut held_telnet = Vec::new();
    for batch in 0..21 {
        let n = if batch < 20 { 500 } else { 50 };
        let tries = (0..n).map(|_| idle_telnet(s.addr));
        held_telnet.extend(
            futures_util::future::join_all(tries)
                .await
                .into_iter()
                .flatten(),
        );
        served_elsewhere(&s, &api, &mcp, &olga).await;
    }
    assert_eq!(held_telnet.len(), 64);
    drop((held_http, held_telnet, tess));
    s.stop().await;
}
