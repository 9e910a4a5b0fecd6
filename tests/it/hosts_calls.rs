//! The REST API's session routes and reads through a host: the host reads each request and
//! calls its verb by name on the world across the broker, and every client is answered as a one-process
//! moot answers it, refusals included.

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::hosts::{Broker, host, world_on, world_process};
use crate::support::{Agent, Api, TestServer};
use moot::cluster::wire;

/// What a client sees of a call: its status, and its body with what differs from one town to
/// the next (the agents' ids and names, times) put in words that do not.
type Seen = (String, u16, Value);

/// The body `v` with `agents`' ids written as their parts, and times left out.
fn steady(v: Value, agents: &[(&Agent, &str)]) -> Value {
    match v {
        Value::String(mut s) => {
            for (a, part) in agents {
                s = s.replace(&a.id, part).replace(&a.name, part);
            }
            Value::String(s)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|i| steady(i, agents)).collect()),
        Value::Object(fields) => Value::Object(
            fields
                .into_iter()
                .filter(|(k, _)| !k.ends_with("_at") && !k.ends_with("Time") && k != "at")
                .map(|(k, v)| (k, steady(v, agents)))
                .collect(),
        ),
        v => v,
    }
}

/// Every session route and the reads beside them (a PGN, ratings, a leaderboard, a Werewolf
/// report), right and wrong: two agents made through `api` play the start of a game of chess; `made` is called once they are made (and before any session route).
async fn session_calls(api: &Api, made: impl FnOnce()) -> Vec<Seen> {
    let white = api.agent(None).await;
    let black = api.agent(None).await;
    let stranger = api.agent(None).await;
    made();
    let parts = [
        (&white, "WHITE"),
        (&black, "BLACK"),
        (&stranger, "STRANGER"),
    ];
    let id = api
        .session(&white, "chess.v1", &[("white", &white), ("black", &black)])
        .await;
    let to = |rest: &str| format!("/sessions/{id}{rest}");
    let mine = format!("/sessions?agent_id={}", white.id);
    let theirs = format!("/sessions?agent_id={}", black.id);
    let calls: Vec<(&str, String, Option<&str>, Option<String>)> = vec![
        (
            "POST",
            to("/actions"),
            Some(&white.token),
            Some(
                json!({"action": "e2e4", "expected_tick": 0, "reasoning": "  the centre  "})
                    .to_string(),
            ),
        ),
        (
            "POST",
            to("/actions"),
            Some(&white.token),
            Some(json!({"action": "d2d4", "expected_tick": 1}).to_string()),
        ),
        (
            "POST",
            to("/actions"),
            Some(&black.token),
            Some(json!({"action": "e2e5", "expected_tick": 1}).to_string()),
        ),
        (
            "POST",
            to("/actions"),
            Some(&stranger.token),
            Some(json!({"action": "e7e5", "expected_tick": 1}).to_string()),
        ),
        (
            "POST",
            to("/actions"),
            Some(&black.token),
            Some(json!({"action": "e7e5", "expected_tick": 0}).to_string()),
        ),
        (
            "POST",
            to("/actions"),
            Some(&black.token),
            Some(json!({"action": "e7e5", "expected_tick": 1, "reasoning": 7}).to_string()),
        ),
        (
            "POST",
            to("/actions"),
            Some(&black.token),
            Some("{not json".into()),
        ),
        (
            "POST",
            to("/actions"),
            Some(&black.token),
            Some(json!({"action": "e7e5", "extra": 1}).to_string()),
        ),
        ("POST", to("/actions"), Some(&black.token), None),
        (
            "POST",
            to("/actions"),
            Some("nonsense"),
            Some("{not json".into()),
        ),
        (
            "POST",
            to("/actions"),
            None,
            Some(json!({"action": "e7e5", "expected_tick": 1}).to_string()),
        ),
        (
            "POST",
            to("/actions"),
            Some(&black.token),
            Some(format!("{{\"action\": \"{}\"}}", "x".repeat(70 * 1024))),
        ),
        ("GET", to("/state"), Some(&black.token), None),
        ("GET", to("/state"), Some(&stranger.token), None),
        (
            "GET",
            "/sessions/999/state".into(),
            Some(&black.token),
            None,
        ),
        ("GET", to("/log"), Some(&white.token), None),
        ("GET", "/sessions".into(), Some(&white.token), None),
        ("GET", mine, Some(&white.token), None),
        ("GET", theirs.clone(), Some(&white.token), None),
        ("GET", theirs, Some("nonsense"), None),
        (
            "GET",
            "/sessions?agent_id=a&agent_id=b".into(),
            Some(&white.token),
            None,
        ),
        ("DELETE", "/sessions".into(), Some(&white.token), None),
        (
            "POST",
            "/sessions".into(),
            Some(&white.token),
            Some(json!({"template": "nope.v1", "participants": {}}).to_string()),
        ),
        ("POST", to("/decline"), None, None),
        // The reads the town and the games add, answered by their verbs.
        ("GET", to("/pgn"), Some(&white.token), None),
        ("GET", to("/pgn"), None, None),
        ("GET", to("/pgn"), Some("nonsense"), None),
        ("GET", "/sessions/999/pgn".into(), Some(&white.token), None),
        ("GET", format!("/ratings/{}", white.name), None, None),
        (
            "GET",
            format!("/ratings/{}", white.name),
            Some("nonsense"),
            None,
        ),
        ("GET", "/ratings/Nobody".into(), None, None),
        // Every game has its leaderboard from the start, empty until a game of it ends.
        ("GET", "/leaderboards/chess?whom=agents".into(), None, None),
        (
            "GET",
            "/leaderboards/chess?whom=martians".into(),
            None,
            None,
        ),
        (
            "GET",
            "/leaderboards/chess?whom=a&whom=b".into(),
            None,
            None,
        ),
        (
            "GET",
            "/werewolf/m999/report".into(),
            Some(&white.token),
            None,
        ),
        ("GET", "/werewolf/m999/report".into(), None, None),
    ];
    let mut seen = Vec::new();
    for (method, path, token, body) in calls {
        let (status, v) = api.send(method, &path, token, body.as_deref()).await;
        let call = steady(Value::String(format!("{method} {path}")), &parts);
        seen.push((
            call.as_str().unwrap_or_default().to_owned(),
            status,
            steady(v, &parts),
        ));
    }
    // The game's page and its download, and what is not there; the API's own two routes.
    for path in [
        format!("/chess/{id}"),
        format!("/chess/{id}.pgn"),
        "/chess/999".into(),
        "/chess/999.pgn".into(),
        "/chess/nonsense".into(),
        "/health".into(),
        "/openapi.json".into(),
        "/metrics".into(),
    ] {
        let (status, kind, text) = api.text(&path).await;
        let text = steady(Value::String(format!("{kind}\n{text}")), &parts);
        seen.push((format!("GET {path}"), status, text));
    }
    // Agents made: by nobody, by someone (theirs), and refused (a bad body, a bad token, a
    // name taken). A new agent's id, token and name differ from town to town.
    let made = [
        (None, Some(json!({"name": "Maker"}).to_string())),
        (None, Some("{not json".to_owned())),
        (Some("nonsense"), Some("{not json".to_owned())),
        (Some("nonsense"), None),
        (
            Some(white.token.as_str()),
            Some(json!({"name": "maker"}).to_string()),
        ),
        (
            Some(white.token.as_str()),
            Some(json!({"name": "x y"}).to_string()),
        ),
        (Some(white.token.as_str()), None),
    ];
    for (token, body) in made {
        let (status, mut v) = api.send("POST", "/agents", token, body.as_deref()).await;
        if status == 201 {
            for key in ["agent_id", "token", "name"] {
                assert!(v[key].as_str().is_some_and(|s| !s.is_empty()), "{v}");
                v[key] = json!("…");
            }
        }
        seen.push((format!("POST /agents {body:?}"), status, steady(v, &parts)));
    }
    // A session the stranger is asked to, which they turn down, then cannot accept.
    let invited =
        json!({"template": "chess.v1", "participants": {"white": white.id, "black": stranger.id}});
    let (status, v) = api.post("/sessions", &white.token, invited).await;
    let other = v["session_id"].as_str().unwrap_or_default().to_owned();
    seen.push(("POST /sessions".into(), status, steady(v, &parts)));
    for verb in ["decline", "accept"] {
        let path = format!("/sessions/{other}/{verb}");
        let (status, v) = api.send("POST", &path, Some(&stranger.token), None).await;
        seen.push((
            format!("POST /sessions/_/{verb}"),
            status,
            steady(v, &parts),
        ));
    }
    seen
}

/// What hosts say to the world, as `(subject, body)`,
/// heard on the broker (which lets anyone listen here) from when `listening` is set, for as
/// long as the spy is kept (its client, never read, keeps the subscriptions).
struct Spy {
    client: async_nats::Client,
    heard: Arc<Mutex<Vec<(String, bytes::Bytes)>>>,
    listening: Arc<std::sync::atomic::AtomicBool>,
    /// How many of its own marks it has heard ([`Spy::settled`]).
    marks: Arc<std::sync::atomic::AtomicUsize>,
}

/// What the spy's marks end with; never what a host or the world says.
const MARK: &str = ".spy-mark";

impl Spy {
    /// Returns once the spy has heard everything the broker had for it before now: a mark it
    /// sends itself on each of its subscriptions comes to it after those. (The answer to the
    /// test's last call can reach the host before it reaches the spy.)
    async fn settled(&self) {
        use std::sync::atomic::Ordering::SeqCst;
        let before = self.marks.load(SeqCst);
        for subject in [
            format!("moot.v{}.from.spy{MARK}", wire::PROTOCOL),
            format!("_INBOX.spy{MARK}"),
        ] {
            self.client.publish(subject, "".into()).await.unwrap();
        }
        self.client.flush().await.unwrap();
        let heard = async {
            while self.marks.load(SeqCst) < before + 2 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        };
        tokio::time::timeout(Duration::from_secs(10), heard)
            .await
            .expect("the spy hears its own marks");
    }

    /// What hosts asked the world, every one of them typed (asked whole, or in a batch of
    /// questions), once the test checked that they said nothing else but their beats, their
    /// connections' words and questions taken back.
    fn asks(&self) -> Vec<wire::Ask> {
        let heard = self.heard.lock().unwrap().clone();
        let mut asks = Vec::new();
        for (subject, body) in heard {
            let typed = |json: &[u8]| {
                serde_json::from_slice::<wire::Ask>(json).unwrap_or_else(|e| {
                    let json = String::from_utf8_lossy(json);
                    panic!("not a typed ask on {subject}: {json} ({e})")
                })
            };
            if subject.starts_with("_INBOX.") {
                continue;
            } else if subject.ends_with(".ask") {
                asks.push(typed(&body));
            } else if subject.ends_with(".questions") {
                let batch: Vec<wire::Question> = wire::decode(&body)
                    .unwrap_or_else(|| panic!("not a batch of questions on {subject}"));
                asks.extend(batch.iter().map(|q| typed(&q.ask)));
            } else {
                let known = [".beat", ".cancel", ".hello", ".conns"]
                    .iter()
                    .any(|end| subject.ends_with(end));
                let body = String::from_utf8_lossy(&body);
                assert!(
                    known,
                    "a host said what is no typed message: {subject} {body}"
                );
            }
        }
        asks
    }

    /// What the world answered hosts' questions asked in batches, each whole, in the order
    /// they came.
    fn answers(&self) -> Vec<wire::Answer> {
        let heard = self.heard.lock().unwrap().clone();
        let mut answers = Vec::new();
        let mut partial: std::collections::HashMap<u64, Vec<u8>> = Default::default();
        for (subject, body) in heard {
            if !subject.starts_with("_INBOX.") {
                continue;
            }
            // An inbox also hears the answers to questions asked whole, in JSON.
            let Some(pieces) = wire::decode::<Vec<wire::AnswerPiece>>(&body) else {
                continue;
            };
            for piece in pieces {
                let whole = partial.entry(piece.id).or_default();
                whole.extend_from_slice(&piece.bytes);
                if !piece.more {
                    let whole = partial.remove(&piece.id).unwrap();
                    answers.push(serde_json::from_slice(&whole).expect("an answer"));
                }
            }
        }
        answers
    }
}

async fn spy(url: &str) -> Spy {
    let client = async_nats::connect(url).await.unwrap();
    let heard = Arc::new(Mutex::new(Vec::<(String, bytes::Bytes)>::new()));
    let listening = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let marks = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    // The hosts' inboxes too: what the world answers them.
    for subject in [
        format!("moot.v{}.from.*.>", wire::PROTOCOL),
        "_INBOX.>".into(),
    ] {
        let mut sub = client.subscribe(subject).await.unwrap();
        let (heard, listening, marks) = (heard.clone(), listening.clone(), marks.clone());
        tokio::spawn(async move {
            while let Some(msg) = sub.next().await {
                if msg.subject.ends_with(MARK) {
                    marks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                } else if listening.load(std::sync::atomic::Ordering::SeqCst) {
                    heard
                        .lock()
                        .unwrap()
                        .push((msg.subject.to_string(), msg.payload));
                }
            }
        });
    }
    client.flush().await.unwrap();
    // Listening once it has heard something (a host's beat): its subscriptions are in place.
    let mut beats = client.subscribe(wire::host_beats()).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), beats.next())
        .await
        .expect("the spy hears the hosts");
    Spy {
        client,
        heard,
        listening,
        marks,
    }
}

#[tokio::test]
async fn a_hosts_rest_calls_cross_as_verbs_and_are_answered_as_one_process_answers_them() {
    let one = TestServer::start().await;
    let here = session_calls(&one.api(), || {}).await;
    one.stop().await;

    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let spy = spy(&broker.url).await;
    let through = session_calls(&Api::new(a.http_addr), || {
        spy.listening
            .store(true, std::sync::atomic::Ordering::SeqCst);
    })
    .await;

    assert_eq!(here.len(), through.len());
    for (one, split) in here.iter().zip(&through) {
        assert_eq!(one, split, "one process, then through a host");
    }
    // Refusals as clear as ever, wherever the town is.
    let statuses: Vec<u16> = through.iter().map(|(_, s, _)| *s).collect();
    assert_eq!(
        statuses,
        [
            200, 400, 400, 403, 409, 400, 400, 400, 400, 401, 401, 400, 200, 403, 404, 200, 200,
            200, 403, 401, 400, 405, 400, 401, 200, 401, 401, 404, 200, 200, 404, 200, 400, 400,
            404, 401, 200, 200, 404, 404, 404, 200, 200, 404, 201, 400, 401, 401, 409, 400, 201,
            201, 200, 404
        ],
        "{through:#?}"
    );

    // A 401 points to where a token is had, at the address the client asked.
    let refused = reqwest::get(format!("http://{}/sessions", a.http_addr))
        .await
        .unwrap();
    assert_eq!(
        refused.headers()["www-authenticate"],
        format!(
            "Bearer realm=\"moot\", resource_metadata=\"http://{}/.well-known/oauth-protected-resource/mcp\", scope=\"moot\"",
            a.http_addr
        )
    );

    spy.settled().await;
    let asks = spy.asks();
    let verbs: Vec<&str> = asks
        .iter()
        .filter_map(|ask| match ask {
            wire::Ask::Verb(call) => Some(call.verb.as_str()),
            _ => None,
        })
        .collect();
    for verb in [
        "session_create",
        "session_accept",
        "session_decline",
        "session_act",
        "session_state",
        "session_log",
        "session_list",
        "pgn",
        "ratings",
        "leaderboard",
        "report",
    ] {
        assert!(verbs.contains(&verb), "{verb} not called: {verbs:?}");
    }
    let typed: Vec<String> = asks
        .iter()
        .filter_map(|ask| match ask {
            wire::Ask::Page(read) => Some(format!("{} {:?}", read.page, read.download)),
            wire::Ask::Agent(call) => Some(format!("agent {:?}", call.name)),
            wire::Ask::Metrics(_) => Some("metrics".into()),
            _ => None,
        })
        .collect();
    assert!(
        typed.contains(&"/chess/{session_id} None".to_owned())
            && typed.contains(&"/chess/{session_id} Some(\".pgn\")".to_owned())
            && typed.contains(&"agent Some(\"Maker\")".to_owned())
            && typed.contains(&"metrics".to_owned()),
        "{typed:?}"
    );
    a.running.shutdown().await;
    world.shutdown().await;
}

/// Stops the world process, politely (SIGTERM) or outright (kill -9), once `ann`, on a host's
/// telnet, hears that the host knows it paused or went.
async fn stop_world(
    world: &mut crate::support::Moot,
    polite: bool,
    ann: &mut crate::support::Client,
) {
    if polite {
        let pid = world.id().to_string();
        let term = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(term.success());
        ann.expect(moot::cluster::host::PAUSES).await;
        world.wait().unwrap();
    } else {
        world.kill().unwrap();
        world.wait().unwrap();
        ann.expect(moot::cluster::host::AWAY).await;
    }
}

/// The world stops under a host, politely and then outright, and starts again: a move sent
/// in the gap is refused as not done, to be tried again; a read waits for the town and is
/// answered once it is back; and the move, tried again, is taken.
#[tokio::test]
async fn a_hosts_rest_calls_ride_out_a_restart_of_the_world() {
    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let mut world = world_process(&broker.url, &db, "60s").await;
    let a = host(&broker.url, &db).await;
    let api = Api::new(a.http_addr);
    let white = api.agent(None).await;
    let black = api.agent(None).await;
    let id = api
        .session(&white, "chess.v1", &[("white", &white), ("black", &black)])
        .await;
    let http = reqwest::Client::new();
    // Someone on the host's telnet hears when the host knows the world is away: the move is
    // sent only then (sent while the world's going is still unheard of, it would be one the
    // world might have taken, and answered as unknown).
    let mut ann = crate::support::player_at(a.telnet_addr, "Ann").await;
    let mut tick = 0;
    for polite in [true, false] {
        stop_world(&mut world, polite, &mut ann).await;
        let (white_move, black_move) = [("e2e4", "e7e5"), ("d2d4", "d7d5")][tick / 2];
        let act = |token: &str, action: &str, tick: usize| {
            http.post(format!("http://{}/sessions/{id}/actions", a.http_addr))
                .bearer_auth(token)
                .json(&json!({"action": action, "expected_tick": tick}))
                .send()
        };
        let gap = act(&white.token, white_move, tick).await.unwrap();
        assert_eq!(gap.status(), 503);
        assert_eq!(gap.headers()["retry-after"], "1");
        let gap: Value = gap.json().await.unwrap();
        assert_eq!(gap["error"]["code"], "UNAVAILABLE", "{gap}");
        let read = {
            let (api, path, token) = (
                Api::new(a.http_addr),
                format!("/sessions/{id}/state"),
                black.token.clone(),
            );
            tokio::spawn(async move { api.get(&path, &token).await })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(!read.is_finished(), "the read waits for the town");
        world = world_process(&broker.url, &db, "60s").await;
        let (status, state) = tokio::time::timeout(Duration::from_secs(20), read)
            .await
            .expect("the read is answered once the town is back")
            .unwrap();
        assert_eq!(
            (status, state["tick"].as_u64()),
            (200, Some(tick as u64)),
            "{state}"
        );
        // Tried again, the moves are taken.
        for (token, action) in [(&white.token, white_move), (&black.token, black_move)] {
            let taken = act(token, action, tick).await.unwrap();
            assert_eq!(taken.status(), 200, "{}", taken.text().await.unwrap());
            tick += 1;
        }
    }
    a.running.shutdown().await;
    drop(world);
}

/// Through a broker that carries small messages, a verb's result larger than one crosses in
/// pieces and arrives whole, and a call larger than one is refused with why.
#[tokio::test]
async fn a_verbs_result_crosses_a_small_brokers_limit_in_pieces() {
    let broker = Broker::with_max_payload(4096).await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let api = Api::new(a.http_addr);
    let white = api.agent(None).await;
    let black = api.agent(None).await;
    for _ in 0..30 {
        api.session(&white, "chess.v1", &[("white", &white), ("black", &black)])
            .await;
    }
    let listed = reqwest::Client::new()
        .get(format!("http://{}/sessions", a.http_addr))
        .bearer_auth(&white.token)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 200);
    let listed = listed.bytes().await.unwrap();
    assert!(listed.len() > 4096, "{} bytes", listed.len());
    let listed: Value = serde_json::from_slice(&listed).expect("whole JSON");
    assert_eq!(listed["sessions"].as_array().map(Vec::len), Some(30));

    let big =
        json!({"action": "x".repeat(4000), "expected_tick": 0, "reasoning": "y".repeat(1000)});
    let (status, v) = api.post("/sessions/1/actions", &white.token, big).await;
    assert_eq!(status, 413, "{v}");
    let said = v["error"]["message"].as_str().unwrap_or_default();
    assert!(said.contains("carries at most 4096 bytes"), "{v}");
    a.running.shutdown().await;
    world.shutdown().await;
}

/// MCP's plain tool calls through a host cross as typed calls, never as HTTP, and are answered
/// as one process answers them: a tool's result, an unknown tool's error, a token refused.
#[tokio::test]
async fn a_hosts_plain_tool_calls_cross_as_calls_and_are_answered_as_one_process_answers_them() {
    async fn tool_calls(http: std::net::SocketAddr, made: impl FnOnce()) -> Vec<(u16, String)> {
        let agent = Api::new(http).agent(Some("Robo")).await;
        made();
        let mut seen = Vec::new();
        for (token, name, args) in [
            (agent.token.as_str(), "help", json!({})),
            (agent.token.as_str(), "say", json!({"text": "hello"})),
            (agent.token.as_str(), "noSuchTool", json!({})),
            (
                agent.token.as_str(),
                "createGame",
                json!({"type": "agent", "color": "black"}),
            ),
            ("moot_x_0000", "help", json!({})),
        ] {
            let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
                "name": name, "arguments": args, "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                    "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}});
            let (status, _, text) = crate::support::post_mcp_raw(
                http,
                token,
                "tools/call",
                Some(name),
                body.to_string().into_bytes(),
                None,
            )
            .await;
            // The game's number and the times differ from one town to the next.
            let steady: String = text.chars().filter(|c| !c.is_ascii_digit()).collect();
            seen.push((status, steady));
        }
        seen
    }
    let one = TestServer::start().await;
    let here = tool_calls(one.http, || {}).await;
    one.stop().await;

    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let spy = spy(&broker.url).await;
    let through = tool_calls(a.http_addr, || {
        spy.listening
            .store(true, std::sync::atomic::Ordering::SeqCst);
    })
    .await;
    assert_eq!(here, through, "one process, then through a host");
    let statuses: Vec<u16> = through.iter().map(|(s, _)| *s).collect();
    assert_eq!(statuses, [200, 200, 200, 200, 401], "{through:#?}");

    spy.settled().await;
    let asks = spy.asks();
    let tools: Vec<&str> = asks
        .iter()
        .filter_map(|ask| match ask {
            wire::Ask::Tool(call) => Some(call.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        tools,
        ["help", "say", "noSuchTool", "createGame", "help"],
        "{asks:#?}"
    );
    a.running.shutdown().await;
    world.shutdown().await;
}

/// A read's answer crosses the broker once while it stays the same: asked again, the world
/// answers that it is unchanged and the host gives the copy it kept, the same answer; once the
/// room changes, the new answer crosses whole. Each copy is its caller's own. An MCP tool and
/// a REST read alike.
#[tokio::test]
async fn a_reads_answer_crosses_once_while_it_stays_the_same() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let api = Api::new(a.http_addr);
    let (robo, iris) = (api.agent(Some("Robo")).await, api.agent(Some("Iris")).await);
    let spy = spy(&broker.url).await;
    spy.listening
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let http = a.http_addr;
    let look = |who: &Agent| {
        let token = who.token.clone();
        async move { crate::support::mcp_tool(http, &token, "look", json!({})).await }
    };
    let first = look(&robo).await;
    let again = look(&robo).await;
    assert_eq!(first, again, "the kept copy is the answer");
    let text = first["content"][0]["text"].as_str().unwrap_or_default();
    assert!(!text.contains("Iris"), "{text}");
    let hers = look(&iris).await;
    assert!(
        hers["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("Robo")),
        "{hers}"
    );
    let now = look(&robo).await;
    let text = now["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Iris is here."), "the room changed: {text}");
    assert_eq!(look(&robo).await, now);
    // A verb that only reads, over REST, the same way.
    let state = format!("/sessions?agent_id={}", robo.id);
    let (status, mine) = api.get(&state, &robo.token).await;
    assert_eq!(status, 200, "{mine}");
    assert_eq!(api.get(&state, &robo.token).await, (200, mine));

    spy.settled().await;
    let crossed: Vec<&str> = spy
        .answers()
        .iter()
        .filter_map(|answer| match answer {
            wire::Answer::Tagged { .. } => Some("whole"),
            wire::Answer::Unchanged => Some("unchanged"),
            _ => None,
        })
        .collect();
    assert_eq!(
        crossed,
        [
            "whole",
            "unchanged",
            "whole",
            "whole",
            "unchanged",
            "whole",
            "unchanged"
        ],
        "Robo's look, again, Iris's, Robo's with her there, again; his sessions, again"
    );
    a.running.shutdown().await;
    world.shutdown().await;
}

/// One address makes agents at one rate whichever hosts it asks: the allowance is the
/// world's (its door's), which each host's typed call reaches, not each host's.
#[tokio::test]
async fn an_address_makes_agents_at_one_rate_across_hosts() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |c| c.agent_rate = 2.0).await;
    let (a, b) = (host(&broker.url, &db).await, host(&broker.url, &db).await);
    let (on_a, on_b) = (Api::new(a.http_addr), Api::new(b.http_addr));
    for api in [&on_a, &on_b] {
        let (status, v) = api.send("POST", "/agents", None, None).await;
        assert_eq!(status, 201, "{v}");
    }
    for api in [&on_a, &on_b] {
        let (status, v) = api.send("POST", "/agents", None, None).await;
        assert_eq!(status, 429, "{v}");
        assert_eq!(v["error"]["code"], "RATE_LIMITED", "{v}");
    }
    a.running.shutdown().await;
    b.running.shutdown().await;
    world.shutdown().await;
}

/// A host serves MCP itself, for both revisions: the Python SDK opens a session (2025-11-25)
/// or calls statelessly (2026-07-28) at a host, lists and calls tools, plays chess with long
/// polls, and reads an MCP Apps page; every request is answered by typed calls to the world's
/// own server at the same address (a tool call, or a read: the pages an agent may open, one
/// page), never by HTTP passed across.
#[tokio::test]
async fn a_hosts_mcp_sessions_lists_and_pages_cross_as_typed_calls() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let spy = spy(&broker.url).await;
    let bots = [
        Api::new(a.http_addr).agent(None).await,
        Api::new(a.http_addr).agent(None).await,
    ];
    spy.listening
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let (town, chess) = (
        format!("http://{}/mcp", a.http_addr),
        format!("http://{}/mcp/chess", a.http_addr),
    );
    // An agent each, each starting in the square.
    for (revision, bot) in ["initialize", "discover"].into_iter().zip(&bots) {
        let seen = crate::mcp::agent(&["http", &town, &bot.token, revision, "tools"]).await;
        let listed: std::collections::BTreeSet<String> = seen["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed, crate::support::set_names("town"), "{revision}");
        assert_eq!(seen["server"]["name"], "moot");
        assert_eq!(seen["look"]["name"], "Town Square", "{revision}");
        assert_eq!(seen["bad_exit"]["isError"], true, "{seen}");

        let played = crate::mcp::agent(&["http", &chess, &bot.token, revision, "chess"]).await;
        assert!(played["moves"].as_u64().unwrap() > 0, "{played}");

        let ui = crate::mcp::agent(&["http", &chess, &bot.token, revision, "ui"]).await;
        let uri = ui["uri"].as_str().unwrap();
        assert!(uri.starts_with("ui://chess/"), "{ui}");
        assert_eq!(ui["embedded_mime"], "text/html;profile=mcp-app", "{ui}");
        assert_eq!(ui["read_mime"], "text/html;profile=mcp-app", "{ui}");
        assert!(
            ui["listed"].as_array().unwrap().iter().any(|u| u == uri),
            "{ui}"
        );
        assert!(ui["html"].as_str().unwrap().contains("<html"), "{ui}");
    }

    spy.settled().await;
    let asks = spy.asks();
    let (mut tools, mut reads) = (Vec::new(), Vec::new());
    for ask in &asks {
        match ask {
            wire::Ask::Tool(call) => tools.push(format!("{} {}", call.path, call.name)),
            wire::Ask::Mcp(read) => reads.push(format!("{} {:?}", read.path, read.what)),
            _ => {}
        }
    }
    for called in [
        "/mcp look",
        "/mcp/chess createGame",
        "/mcp/chess finishTurn",
    ] {
        assert!(tools.iter().any(|t| t == called), "{called}: {tools:?}");
    }
    assert!(
        reads.iter().any(|r| r == "/mcp/chess Pages")
            && reads
                .iter()
                .any(|r| r.starts_with("/mcp/chess Page(\"ui://chess/")),
        "{reads:?}"
    );
    a.running.shutdown().await;
    world.shutdown().await;
}

/// A long poll with a progress token, through a host: the host tells the client it is still
/// waiting every ten seconds while the world's server holds the call, as one process does.
#[tokio::test]
async fn a_long_poll_through_a_host_sends_progress_to_a_client_that_asked() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |c| {
        c.wait_timeout = Duration::from_millis(10_500).into();
    })
    .await;
    let a = host(&broker.url, &db).await;
    let bot = Api::new(a.http_addr).agent(None).await;
    let url = format!("http://{}/mcp/chess", a.http_addr);
    let seen = crate::mcp::agent(&["http", &url, &bot.token, "initialize", "progress"]).await;
    assert_eq!(seen["status"], "timeout", "{seen}");
    let notes = seen["progress"].as_array().unwrap();
    assert_eq!(
        notes.len(),
        1,
        "one progress notification in 10.5 s: {seen}"
    );
    assert_eq!(notes[0]["message"], "still waiting for your opponent");
    a.running.shutdown().await;
    world.shutdown().await;
}

/// The world restarts (politely, then killed) under agents' MCP sessions held by a host: each
/// session goes on with the same id, a `waitForNextTurn` in flight (in a session, and a plain
/// stateless one) is asked again once the world is back and returns the opponent's move, and
/// the next call works.
#[tokio::test]
async fn an_agents_mcp_session_at_a_host_outlives_a_restart_of_the_world() {
    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let mut world = world_process(&broker.url, &db, "60s").await;
    let a = host(&broker.url, &db).await;
    let api = Api::new(a.http_addr);
    let (white, black) = (api.agent(None).await, api.agent(None).await);
    let client = crate::mcp::SessionClient::at(a.http_addr, None);
    let chess = "/mcp/chess";
    let w = client.open(chess, &white.token).await;
    let b = client.open(chess, &black.token).await;
    let (status, made) = client
        .call(
            chess,
            &white.token,
            &w,
            "createGame",
            json!({"type": "agent", "color": "white"}),
        )
        .await;
    assert_eq!(status, 200, "{made}");
    let game = made["result"]["structuredContent"]["game_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{made}"))
        .to_owned();
    let (_, joined) = client
        .call(
            chess,
            &black.token,
            &b,
            "joinGame",
            json!({"game_id": game}),
        )
        .await;
    assert_ne!(joined["result"]["isError"], true, "{joined}");
    let mut ann = crate::support::player_at(a.telnet_addr, "Ann").await;
    for (polite, (white_move, black_move)) in [(true, ("e2e4", "e7e5")), (false, ("d2d4", "d7d5"))]
    {
        // Black waits for White's move while the world goes.
        let waiting = {
            let (client, token, b) = (
                crate::mcp::SessionClient::at(a.http_addr, None),
                black.token.clone(),
                b.clone(),
            );
            let args = json!({"game_id": game});
            tokio::spawn(async move {
                client
                    .call(chess, &token, &b, "waitForNextTurn", args)
                    .await
            })
        };
        // And statelessly (2026-07-28), with no session at all.
        let waiting_plainly = {
            let (http, token) = (a.http_addr, black.token.clone());
            let params = json!({"name": "waitForNextTurn", "arguments": {"game_id": game}});
            tokio::spawn(async move {
                crate::support::mcp_request(http, &token, "/mcp/chess", "tools/call", params).await
            })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        stop_world(&mut world, polite, &mut ann).await;
        assert!(!waiting.is_finished(), "the wait is held for the world");
        assert!(!waiting_plainly.is_finished(), "the plain wait too");
        world = world_process(&broker.url, &db, "60s").await;
        ann.expect(moot::cluster::host::RESUMED).await;
        // White's move, in the same session: the next call works.
        let args = json!({"game_id": game, "move": white_move});
        let (status, moved) = client
            .call(chess, &white.token, &w, "finishTurn", args)
            .await;
        assert_eq!(status, 200, "{moved}");
        assert_ne!(moved["result"]["isError"], true, "{moved}");
        // Black's wait, asked again of the world that came back, returns the move.
        let (status, woke) = tokio::time::timeout(Duration::from_secs(30), waiting)
            .await
            .expect("the wait is answered")
            .unwrap();
        assert_eq!(status, 200, "{woke}");
        let state = &woke["result"]["structuredContent"];
        assert_eq!(state["status"], "your_turn", "{woke}");
        let woke = tokio::time::timeout(Duration::from_secs(30), waiting_plainly)
            .await
            .expect("the plain wait is answered")
            .unwrap();
        assert_eq!(woke["structuredContent"]["status"], "your_turn", "{woke}");
        let args = json!({"game_id": game, "move": black_move});
        let (_, replied) = client
            .call(chess, &black.token, &b, "finishTurn", args)
            .await;
        assert_ne!(replied["result"]["isError"], true, "{replied}");
    }
    a.running.shutdown().await;
    drop(world);
}

/// A Werewolf match's `events.get` long poll, held by a host while the world restarts
/// (politely, then killed), is asked again of the world that came back and returns the next
/// event (the player's own `ready`, sent after the restart), in an MCP session that keeps its
/// id and in a plain stateless call alike.
#[tokio::test]
async fn a_werewolf_events_long_poll_at_a_host_outlives_a_restart_of_the_world() {
    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let mut world = world_process(&broker.url, &db, "60s").await;
    let a = host(&broker.url, &db).await;
    let api = Api::new(a.http_addr);
    let mut ann = crate::support::player_at(a.telnet_addr, "Ann").await;
    let set = crate::support::mcp_path("et.werewolf.match.events.get");
    let client = crate::mcp::SessionClient::at(a.http_addr, None);
    for polite in [true, false] {
        let me = api.agent(None).await;
        let session = client.open(&set, &me.token).await;
        let (status, started) = client
            .call(
                &set,
                &me.token,
                &session,
                "et.werewolf.practice.start",
                json!({}),
            )
            .await;
        assert_eq!(status, 200, "{started}");
        let mid = started["result"]["structuredContent"]["matchAssignment"]["matchId"]
            .as_str()
            .unwrap_or_else(|| panic!("{started}"))
            .to_owned();
        // The seven bots get ready; then nothing happens until she is (the lobby lasts 30 s).
        let latest = loop {
            let (_, seen) = client
                .call(
                    &set,
                    &me.token,
                    &session,
                    "et.werewolf.match.events.get",
                    json!({"matchId": mid, "limit": 200}),
                )
                .await;
            let seen = &seen["result"]["structuredContent"];
            let events = seen["events"].as_array().unwrap();
            if events
                .iter()
                .filter(|e| e["type"] == "PLAYER_READY")
                .count()
                == 7
            {
                break seen["nextCursor"].as_str().unwrap().to_owned();
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        let args = json!({"matchId": mid, "afterEventId": latest, "waitSeconds": 30});
        let waiting = {
            let (client, token, session, set, args) = (
                crate::mcp::SessionClient::at(a.http_addr, None),
                me.token.clone(),
                session.clone(),
                set.clone(),
                args.clone(),
            );
            tokio::spawn(async move {
                client
                    .call(&set, &token, &session, "et.werewolf.match.events.get", args)
                    .await
            })
        };
        let waiting_plainly = {
            let (http, token) = (a.http_addr, me.token.clone());
            tokio::spawn(async move {
                crate::support::mcp_tool(http, &token, "et.werewolf.match.events.get", args).await
            })
        };
        tokio::time::sleep(Duration::from_millis(300)).await;
        stop_world(&mut world, polite, &mut ann).await;
        assert!(!waiting.is_finished(), "the wait is held for the world");
        assert!(!waiting_plainly.is_finished(), "the plain wait too");
        world = world_process(&broker.url, &db, "60s").await;
        ann.expect(moot::cluster::host::RESUMED).await;
        // She gets ready (statelessly: a session's client numbers its own calls, so none
        // goes in the session while its wait is out).
        let ready = crate::support::mcp_tool(
            a.http_addr,
            &me.token,
            "et.werewolf.match.ready",
            json!({"matchId": mid}),
        )
        .await;
        assert_ne!(ready["isError"], true, "{ready}");
        let readied = |events: &Value| {
            events.as_array().is_some_and(|e| {
                e.iter()
                    .any(|e| e["type"] == "PLAYER_READY" && e["source"] == "p1")
            })
        };
        let (status, woke) = tokio::time::timeout(Duration::from_secs(30), waiting)
            .await
            .expect("the wait is answered")
            .unwrap();
        assert_eq!(status, 200, "{woke}");
        assert!(
            readied(&woke["result"]["structuredContent"]["events"]),
            "{woke}"
        );
        let woke = tokio::time::timeout(Duration::from_secs(30), waiting_plainly)
            .await
            .expect("the plain wait is answered")
            .unwrap();
        assert!(readied(&woke["structuredContent"]["events"]), "{woke}");
        // The next call in the same session works.
        let (status, next) = client
            .call(
                &set,
                &me.token,
                &session,
                "et.werewolf.match.events.get",
                json!({"matchId": mid, "afterEventId": latest}),
            )
            .await;
        assert_eq!(status, 200, "{next}");
        assert!(
            readied(&next["result"]["structuredContent"]["events"]),
            "{next}"
        );
    }
    a.running.shutdown().await;
    drop(world);
}

/// The web through hosts, every page a typed question of the world's: signed in through one
/// host, a visitor is signed in at the other (the world keeps the cookie sessions); a game's
/// live page at one host follows a move made through the other; the pages' buttons, the
/// ratings pages and the town map answer as in one process, refusals included; and the `mcp`
/// SDK's own OAuth client registers, is allowed and calls tools, all through a host. Nothing
/// a host says to the world is HTTP.
#[tokio::test]
async fn a_hosts_web_pages_cross_as_typed_questions_and_a_cookie_holds_at_every_host() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let b = host(&broker.url, &db).await;
    let api = Api::new(a.http_addr);
    let white = api.agent(Some("Wes")).await;
    let black = api.agent(None).await;
    let id = api
        .session(&white, "chess.v1", &[("white", &white), ("black", &black)])
        .await;
    let spy = spy(&broker.url).await;
    spy.listening
        .store(true, std::sync::atomic::Ordering::SeqCst);
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let get = |addr: std::net::SocketAddr, path: &str, cookie: Option<&str>| {
        let mut req = browser.get(format!("http://{addr}{path}"));
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        req.send()
    };

    // Signed in through A, known at B.
    let (cookie, csrf) = crate::web::sign_in(a.http_addr, "Wes", &white.token).await;
    let me: Value = get(b.http_addr, "/me", Some(&cookie))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!((&me["name"], &me["csrf"]), (&json!("Wes"), &json!(csrf)));

    // White's live page at B: a frame at once, and the next once white moves through A.
    let live_path = format!("/chess/{id}/live");
    let mut live = crate::web::Stream::open(b.http_addr, &live_path, Some(&cookie)).await;
    let (event, first) = live.next(Duration::from_secs(10)).await.expect("a frame");
    assert_eq!(event, "frame");
    let moved = browser
        .post(format!("http://{}/sessions/{id}/actions", a.http_addr))
        .bearer_auth(&white.token)
        .json(&json!({"action": "e2e4", "expected_tick": 0}))
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 200);
    let (_, next) = live
        .next(Duration::from_secs(10))
        .await
        .expect("the move's frame");
    assert_ne!(first, next);
    assert!(next.to_string().contains("e4"), "{next}");
    drop(live);
    let nothing = get(b.http_addr, "/chess/99999/live", None).await.unwrap();
    assert_eq!(nothing.status(), 404);

    // The town map, the ratings pages, a button: answered as one process answers them.
    let town: Value = get(b.http_addr, "/town.json", None)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(town.to_string().contains("Town Square"), "{town}");
    let player = get(a.http_addr, "/players/Wes", None).await.unwrap();
    assert_eq!(player.status(), 200);
    assert!(player.text().await.unwrap().contains("<h1>Wes</h1>"));
    let board = get(b.http_addr, "/leaderboard/nosuchgame", None)
        .await
        .unwrap();
    assert_eq!(board.status(), 404);
    let stands = get(b.http_addr, "/werewolf/board", Some(&cookie))
        .await
        .unwrap();
    assert_eq!(stands.status(), 200, "{}", stands.text().await.unwrap());
    let unsigned = get(b.http_addr, "/werewolf/board", None).await.unwrap();
    assert_eq!(unsigned.status(), 401);
    let sign = |csrf: &str| {
        browser
            .post(format!("http://{}/werewolf/board", b.http_addr))
            .header("cookie", &cookie)
            .header("x-csrf-token", csrf)
            .json(&json!({"sign": true}))
            .send()
    };
    assert_eq!(sign("not-the-token").await.unwrap().status(), 403);
    let signed = sign(&csrf).await.unwrap();
    assert_eq!(signed.status(), 200, "{}", signed.text().await.unwrap());

    // Signed out through B, signed out at A.
    let out = browser
        .post(format!("http://{}/logout", b.http_addr))
        .header("cookie", &cookie)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("csrf={csrf}"))
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 303);
    let me: Value = get(a.http_addr, "/me", Some(&cookie))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["signedIn"], false, "{me}");

    // OAuth end to end through host A, by the SDK's own client: its tools act as Ann.
    let mut bob = crate::support::player_at(b.telnet_addr, "Bob").await;
    let _ann = crate::support::player_at(b.telnet_addr, "Ann").await;
    let base = format!("http://{}", a.http_addr);
    let seen =
        crate::support::run_python("mcp/oauth_client.py", &[&base, "Ann", "pw-Ann-moot"]).await;
    assert_eq!(seen["page_status"], 200, "{seen}");
    assert_eq!(seen["wrong_password_status"], 401, "{seen}");
    bob.expect("Ann says, \"hello through OAuth\"").await;

    // Every page asked the world typed questions, each kind of them.
    spy.settled().await;
    let asked: Vec<String> = spy
        .asks()
        .into_iter()
        .filter_map(|ask| match ask {
            wire::Ask::Web { ask, .. } => Some(format!("{ask:?}")),
            _ => None,
        })
        .map(|ask| ask.split(['(', ' ', '{']).next().unwrap().to_owned())
        .collect();
    for kind in [
        "SignIn",
        "Visitor",
        "Frame",
        "Town",
        "Player",
        "Leaderboard",
        "Action",
        "SignOut",
        "OAuth",
    ] {
        assert!(asked.iter().any(|a| a == kind), "{kind} in {asked:?}");
    }
    b.running.shutdown().await;
    a.running.shutdown().await;
    world.shutdown().await;
}
