//! The town on the web, through real sockets: signing in for a cookie session, the town map
//! and its live stream, and a Werewolf match's page and stream, read byte by byte as a
//! browser would receive them.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Agent, Api, TestServer};

/// A browser's view of moot's HTTP side: no redirects followed, cookies by hand.
fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// `next=…`, percent-encoded as a browser sends it in a query.
fn form_urlencoded_next(next: &str) -> String {
    form(&[("next", next)])
}

fn form(fields: &[(&str, &str)]) -> String {
    fields
        .iter()
        .map(|(k, v)| {
            let enc: String = v
                .bytes()
                .map(|b| match b {
                    b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'_' | b'.' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect();
            format!("{k}={enc}")
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// POSTs a form to `path` as a browser would, with these extra headers (a cookie, an Origin).
async fn post_form(
    http: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    fields: &[(&str, &str)],
) -> reqwest::Response {
    let mut req = browser()
        .post(format!("http://{http}{path}"))
        .header("content-type", "application/x-www-form-urlencoded");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.body(form(fields)).send().await.unwrap()
}

/// Who `/me` says the cookie signs in.
async fn me(http: SocketAddr, cookie: &str) -> Value {
    get_json(http, "/me", Some(cookie)).await
}

/// A page's JSON, as a browser with `cookie` (if any) reads it.
async fn get_json(http: SocketAddr, path: &str, cookie: Option<&str>) -> Value {
    let mut req = browser().get(format!("http://{http}{path}"));
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    req.send().await.unwrap().json().await.unwrap()
}

/// Signs in as `name` with `password`; the cookie (`moot_session=…`) and the CSRF token.
pub(crate) async fn sign_in(http: SocketAddr, name: &str, password: &str) -> (String, String) {
    let r = post_form(
        http,
        "/login",
        &[],
        &[("name", name), ("password", password), ("next", "/")],
    )
    .await;
    assert_eq!(r.status(), 303, "{}", r.text().await.unwrap());
    let set = r.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Strict"),
        "{set}"
    );
    let cookie = set.split(';').next().unwrap().to_owned();
    let me = me(http, &cookie).await;
    assert_eq!(me["name"], name, "{me}");
    (cookie, me["csrf"].as_str().unwrap().to_owned())
}

/// A live stream's frames, as a browser's EventSource gets them.
pub(crate) struct Stream {
    resp: reqwest::Response,
    buf: String,
    /// Every byte received, for audits.
    pub bytes: String,
}

impl Stream {
    pub(crate) async fn open(http: SocketAddr, path: &str, cookie: Option<&str>) -> Stream {
        let mut req = browser().get(format!("http://{http}{path}"));
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(resp.headers()["content-type"], "text/event-stream");
        Stream {
            resp,
            buf: String::new(),
            bytes: String::new(),
        }
    }

    /// The next frame (event name, data), or None when the stream ends.
    pub(crate) async fn next(&mut self, within: Duration) -> Option<(String, Value)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(i) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..i + 2).collect();
                let mut event = "message".to_owned();
                let mut data = String::new();
                for line in block.lines() {
                    if let Some(e) = line.strip_prefix("event: ") {
                        event = e.to_owned();
                    } else if let Some(d) = line.strip_prefix("data: ") {
                        data.push_str(d);
                    }
                }
                if data.is_empty() {
                    continue; // a keep-alive comment
                }
                return Some((event, serde_json::from_str(&data).unwrap()));
            }
            // None when no frame comes in time (callers that need one unwrap it).
            let chunk = tokio::time::timeout_at(deadline, self.resp.chunk())
                .await
                .ok()?
                .unwrap()?;
            let text = String::from_utf8(chunk.to_vec()).unwrap();
            self.bytes.push_str(&text);
            self.buf.push_str(&text);
        }
    }
}

#[tokio::test]
async fn signing_in_gives_a_cookie_session_and_signing_out_ends_it() {
    let s = TestServer::start().await;
    let _ann = s.player("Ann").await;
    // A wrong password: one answer for a wrong name or password, and no cookie.
    let wrong = post_form(
        s.http,
        "/login",
        &[],
        &[("name", "Ann"), ("password", "nope-nope")],
    )
    .await;
    assert_eq!(wrong.status(), 401);
    assert!(wrong.headers().get("set-cookie").is_none());
    assert!(
        wrong
            .text()
            .await
            .unwrap()
            .contains("Either that player does not exist, or has a different password.")
    );
    // Another site's page cannot sign anyone in.
    let forged = post_form(
        s.http,
        "/login",
        &[("origin", "http://evil.example")],
        &[("name", "Ann"), ("password", "pw-Ann-moot")],
    )
    .await;
    assert_eq!(forged.status(), 403);
    // A body larger than the API's bound is refused before it is read.
    let huge = "x".repeat(100_000);
    let big = post_form(
        s.http,
        "/login",
        &[],
        &[("name", "Ann"), ("password", &huge)],
    )
    .await;
    assert_eq!(big.status(), 413);
    let (cookie, csrf) = sign_in(s.http, "Ann", "pw-Ann-moot").await;
    // Signing out needs the page's token.
    let bad = post_form(
        s.http,
        "/logout",
        &[("cookie", &cookie)],
        &[("csrf", "forged")],
    )
    .await;
    assert_eq!(bad.status(), 403);
    let out = post_form(
        s.http,
        "/logout",
        &[("cookie", &cookie)],
        &[("csrf", &csrf)],
    )
    .await;
    assert_eq!(out.status(), 303);
    assert!(
        out.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    assert_eq!(me(s.http, &cookie).await, json!({"signedIn": false}));
    // An agent's API token works in the password's place.
    let bot = s.api().agent(Some("Tokie")).await;
    sign_in(s.http, "Tokie", &bot.token).await;
    s.stop().await;
}

#[tokio::test]
async fn the_town_map_shows_who_is_where_and_follows_a_walk_live() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let agent = s.api().agent(Some("Agnes")).await;
    // An agent is somewhere once it has done something.
    crate::support::mcp_tool(s.http, &agent.token, "look", json!({})).await;
    let page = reqwest::get(format!("http://{}/", s.http)).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(
        page.text()
            .await
            .unwrap()
            .contains("EventSource(\"/town/live\")")
    );
    let mut live = Stream::open(s.http, "/town/live", None).await;
    let (event, town) = live.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(event, "town");
    let room_of = |town: &Value, name: &str| -> Option<(String, String)> {
        town["rooms"].as_array().unwrap().iter().find_map(|r| {
            r["occupants"]
                .as_array()
                .unwrap()
                .iter()
                .find(|o| o["name"] == name)
                .map(|o| {
                    (
                        r["id"].as_str().unwrap().to_owned(),
                        o["kind"].as_str().unwrap().to_owned(),
                    )
                })
        })
    };
    let (square, kind) = room_of(&town, "Ann").expect("Ann is on the map");
    assert_eq!(kind, "person");
    assert_eq!(room_of(&town, "Agnes").unwrap().1, "agent");
    let walked = tokio::time::Instant::now();
    ann.command("north").await;
    loop {
        let (_, town) = live.next(Duration::from_secs(2)).await.unwrap();
        let (room, _) = room_of(&town, "Ann").unwrap();
        if room != square {
            assert!(
                walked.elapsed() < Duration::from_secs(1),
                "{:?}",
                walked.elapsed()
            );
            break;
        }
    }
    // A game on the map is called by its game's name, not its template's id (it once read
    // `#1 tictactoe.v1`).
    let otto = s.api().agent(Some("Otto")).await;
    let id = s
        .api()
        .session(&agent, "tictactoe.v1", &[("x", &agent), ("o", &otto)])
        .await;
    loop {
        let (_, town) = live.next(Duration::from_secs(5)).await.unwrap();
        let running = town["running"].as_array().unwrap();
        if let Some(g) = running.iter().find(|g| g["session_id"] == id.as_str()) {
            assert_eq!(g["title"], "tic-tac-toe", "{g}");
            assert_eq!(g["template"], "tictactoe.v1", "{g}");
            break;
        }
    }
    s.stop().await;
}

/// A werewolf.v1 match of `me` (who never acts) and seven house bots; its id.
async fn bot_match(api: &Api, me: &Agent) -> String {
    let mut participants = serde_json::Map::new();
    participants.insert("p1".into(), json!(me.id));
    for i in 1..8 {
        participants.insert(format!("p{}", i + 1), json!(format!("bot-{i}")));
    }
    let (status, v) = api
        .post(
            "/sessions",
            &me.token,
            json!({ "template": "werewolf.v1", "participants": participants,
                    "options": { "bots": [2, 3, 4, 5, 6, 7, 8], "timers": { "lobby": 2 },
                                 "spectating": "live" } }),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    v["session_id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_public_match_stream_carries_no_secret_from_start_to_end() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let api = s.api();
    let me = api.agent(Some("Pia")).await;
    let mid = bot_match(&api, &me).await;
    let page = reqwest::get(format!("http://{}/werewolf/{mid}", s.http))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    // The shared feed's first read is also the answer to whether there is such a match: a
    // stranger's made-up id is a 404, not an empty stream.
    for id in ["999999", "0"] {
        let missing = reqwest::get(format!("http://{}/werewolf/{id}/live", s.http))
            .await
            .unwrap();
        assert_eq!(missing.status(), 404, "/werewolf/{id}/live");
    }
    let mut live = Stream::open(s.http, &format!("/werewolf/{mid}/live"), None).await;
    let mut frames = Vec::new();
    let mut tallies = std::collections::BTreeSet::new();
    while let Some((event, frame)) = live.next(Duration::from_secs(60)).await {
        assert_eq!(event, "frame");
        assert_eq!(frame["reader"], "PUBLIC");
        assert_eq!(frame["mayAskOmniscient"], false);
        if !frame["state"]["voteTally"].is_null() {
            tallies.insert(frame["state"]["voteTally"].to_string());
        }
        frames.push(frame);
    }
    let last = frames.last().unwrap();
    assert_eq!(
        last["state"]["phase"], "ENDED",
        "the stream ends with the match"
    );
    assert!(
        last["report"]["winningTeam"].is_string(),
        "{}",
        last["report"]
    );
    assert!(tallies.len() > 1, "the tally changed as votes came in");
    // Every byte before the end, against what the public may know.
    let (_, report) = api.get(&format!("/werewolf/{mid}/report"), &me.token).await;
    let roles = crate::werewolf_audit::roles_of(&report);
    let mut leaks = Vec::new();
    for frame in frames.iter().filter(|f| f["state"]["phase"] != "ENDED") {
        leaks.extend(crate::werewolf_audit::audit(
            None,
            &roles,
            "sse",
            &frame.to_string(),
        ));
        for e in frame["events"].as_array().unwrap() {
            assert_eq!(e["visibility"], "PUBLIC", "{e}");
        }
    }
    assert!(leaks.is_empty(), "{leaks:#?}");
    for secret in [
        "WOLF_",
        "SEER_RESULT",
        "ROLE_ASSIGNED",
        "DOCTOR_PROTECTED",
        "(Spoiler)",
    ] {
        let before_end = &live.bytes[..live.bytes.find("\"ENDED\"").unwrap()];
        assert!(
            !before_end.contains(secret),
            "the public stream carried {secret}"
        );
    }
    // Key moments from public events: every death is one.
    let deaths = last["state"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["alive"] == false)
        .count();
    let told = last["moments"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == "DEATH")
        .count();
    assert_eq!(told, deaths);
    // After the end, a replay from any side; not before.
    let replay: Value = reqwest::get(format!(
        "http://{}/werewolf/{mid}/replay?viewer=OMNISCIENT",
        s.http
    ))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let cards: Vec<&Value> = replay["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "ROLE_ASSIGNED")
        .collect();
    assert_eq!(cards.len(), 8);
    // Each card says to whom it was dealt.
    for c in cards {
        assert!(c["line"].as_str().unwrap().starts_with("(to "), "{c}");
    }
    s.stop().await;
}

#[tokio::test]
async fn the_all_seeing_view_is_refused_to_a_player_and_granted_to_an_outsider() {
    let s = TestServer::start_with(|c| c.time_scale = 20.0).await;
    let api = s.api();
    // Pia plays (she signs in on the web with her token); Olga does not.
    let pia = api.agent(Some("Pia")).await;
    let mid = bot_match(&api, &pia).await;
    let _olga = s.player("Olga").await;
    let ask = |cookie: String, csrf: String| {
        let (http, mid) = (s.http, mid.clone());
        async move {
            browser()
                .post(format!("http://{http}/werewolf/{mid}/omniscient"))
                .header("cookie", cookie)
                .header("x-csrf-token", csrf)
                .header("content-type", "application/json")
                .body(json!({"on": true}).to_string())
                .send()
                .await
                .unwrap()
        }
    };
    let (pia_cookie, pia_csrf) = sign_in(s.http, "Pia", &pia.token).await;
    let no = ask(pia_cookie.clone(), pia_csrf).await;
    assert_eq!(no.status(), 403);
    let body: Value = no.json().await.unwrap();
    assert_eq!(body["error"]["code"], "WRONG_ROLE", "{body}");
    let mut mine = Stream::open(s.http, &format!("/werewolf/{mid}/live"), Some(&pia_cookie)).await;
    let (_, frame) = mine.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(frame["reader"], "p1");
    assert_eq!(frame["mayAskOmniscient"], false);
    let (olga_cookie, olga_csrf) = sign_in(s.http, "Olga", "pw-Olga-moot").await;
    // Without the page's token, nothing changes.
    assert_eq!(
        ask(olga_cookie.clone(), "forged".into()).await.status(),
        403
    );
    let mut before =
        Stream::open(s.http, &format!("/werewolf/{mid}/live"), Some(&olga_cookie)).await;
    let (_, frame) = before.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(frame["reader"], "PUBLIC");
    assert_eq!(frame["mayAskOmniscient"], true);
    let yes = ask(olga_cookie.clone(), olga_csrf).await;
    assert_eq!(yes.status(), 200);
    let mut all = Stream::open(s.http, &format!("/werewolf/{mid}/live"), Some(&olga_cookie)).await;
    let (_, frame) = all.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(frame["reader"], "OMNISCIENT");
    let roles = frame["state"]["players"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| !p["revealedRole"].is_null())
        .count();
    assert_eq!(roles, 8, "{}", frame["state"]);
    // ...while Pia still sees her own role, and no living player's but hers (the dead's are
    // shown to all; the match goes on meanwhile, and she may be among them).
    let (_, frame) = mine.next(Duration::from_secs(30)).await.unwrap();
    let players = frame["state"]["players"].as_array().unwrap();
    let (hers, others): (Vec<&Value>, Vec<&Value>) =
        players.iter().partition(|p| p["playerId"] == "p1");
    assert!(!hers[0]["revealedRole"].is_null(), "{players:?}");
    let shown: Vec<&&Value> = others
        .iter()
        .filter(|p| !p["revealedRole"].is_null() && p["alive"] == true)
        .collect();
    assert!(shown.is_empty(), "{shown:?}");
    s.stop().await;
}

/// The town page and a match page in Debian's Chromium (Playwright): see tests/browser/town.py.
/// Screenshots go to target/screenshots.
#[tokio::test]
async fn the_town_and_a_match_in_a_real_chromium() {
    let s = TestServer::start_with(|c| c.time_scale = 20.0).await;
    let shots = concat!(env!("CARGO_MANIFEST_DIR"), "/target/screenshots");
    std::fs::create_dir_all(shots).unwrap();
    let (base, telnet) = (format!("http://{}", s.http), s.addr.to_string());
    let seen = crate::support::run_python("browser/town.py", &[&base, &telnet, shots]).await;
    // A walk shows on the open town page within a second.
    let walk = &seen["walk"];
    assert_ne!(walk["from"], walk["to"], "{walk}");
    assert!(walk["seconds"].as_f64().unwrap() < 1.0, "{walk}");
    eprintln!(
        "the town page showed the walk after {:.3} s",
        walk["seconds"].as_f64().unwrap()
    );
    assert_eq!(walk["kind"], "person");
    // The public page followed a whole match: the tally moved, no secret showed, no living
    // player's role, and the end came with a result and a replay.
    let m = &seen["match"];
    assert_eq!(m["errors"], json!([]), "{m}");
    assert_eq!(m["leaks"], json!([]), "{m}");
    assert_eq!(m["living_roles_shown"], 0, "{m}");
    assert!(m["tallies"].as_array().unwrap().len() >= 2, "{m}");
    assert!(m["winner"].as_str().unwrap().contains("win"), "{m}");
    assert!(!m["replayed"].as_array().unwrap().is_empty(), "{m}");
    let timeline = m["timeline"].as_array().unwrap();
    assert_eq!(timeline.first().unwrap(), "night 1", "{m}");
    assert_eq!(timeline.last().unwrap(), "the end", "{m}");
    assert!(
        m["phone_overflow"].as_i64().unwrap() <= 0,
        "readable on a phone: {m}"
    );
    // The all-seeing view: refused to a player, granted to an outsider.
    let v = &seen["seeing"];
    assert_eq!(v["password_field"], "password");
    assert_eq!(v["player_button"], false, "{v}");
    assert_eq!(v["player_asked"][0], 403, "{v}");
    assert_eq!(v["player_asked"][1]["error"]["code"], "WRONG_ROLE", "{v}");
    assert_eq!(v["outsider_public_roles"], 0, "{v}");
    assert_eq!(v["outsider_all_roles"], 8, "{v}");
    // A chess game followed live by a spectator without a token.
    // The notice board's button, and the door once the match begins.
    let b = &seen["board"];
    assert!(b["on_board"].as_str().unwrap().contains("Bea"), "{b}");
    let starting = b["starting"].as_str().unwrap();
    assert!(
        starting.starts_with("Game starting… your door is game") && starting.contains("Town Hall"),
        "{b}"
    );
    let c = &seen["chess"];
    assert_eq!(c["errors"], json!([]), "{c}");
    assert_eq!(c["before"]["white"], "Alice", "{c}");
    assert_eq!(c["before"]["black"], "Boris", "{c}");
    assert_eq!(c["before"]["moves"], "e4 e5", "{c}");
    assert_eq!(c["before"]["last"], json!(["e5", "e7"]), "{c}");
    assert_eq!(c["before"]["turn"], "White to move.", "{c}");
    assert_eq!(c["before"]["token_type"], "password");
    assert_eq!(c["after"]["moves"], "e4 e5\nNf3", "{c}");
    assert_eq!(c["after"]["last"], json!(["f3", "g1"]), "{c}");
    assert_eq!(c["after"]["turn"], "Black to move.", "{c}");
    assert_eq!(c["after"]["f3"], "♘");
    assert!(c["seconds"].as_f64().unwrap() < 1.0, "{c}");
    assert!(c["result"].as_str().unwrap().contains("White wins"), "{c}");
    s.stop().await;
}

/// A game's PGN, at /chess/<id>.pgn and through the `pgn` tool, read back by python-chess with
/// the very moves played (a move taken back is not among them).
#[tokio::test]
async fn a_games_pgn_reads_back_in_python_chess_with_the_same_moves() {
    let s = TestServer::start().await;
    let api = s.api();
    let (ann, bob) = (api.agent(Some("Ann")).await, api.agent(Some("Bob")).await);
    let sid = api
        .session(&ann, "chess.v1", &[("white", &ann), ("black", &bob)])
        .await;
    let mut tick = 0u64;
    let mut play = |who: &Agent, action: &str, why: Option<&str>| {
        let (api, who, action, sid) = (
            api.clone(),
            who.token.clone(),
            action.to_owned(),
            sid.clone(),
        );
        let mut body = json!({"action": action, "expected_tick": tick});
        if let Some(w) = why {
            body["reasoning"] = json!(w);
        }
        tick += 1;
        async move {
            let (status, v) = api
                .post(&format!("/sessions/{sid}/actions"), &who, body)
                .await;
            assert_eq!(status, 200, "{action}: {v}");
        }
    };
    // A short game with a takeback in it: ...Qh4 is taken back, and ...Nc6 played instead.
    play(&ann, "e2e4", Some("The king's pawn.")).await;
    play(&bob, "e7e5", None).await;
    play(&ann, "g1f3", None).await;
    play(&bob, "d8h4", Some("An early queen.")).await;
    play(&bob, "request_takeback", None).await;
    play(&ann, "accept_takeback", None).await;
    play(&bob, "b8c6", Some("Develop, and guard e5 {twice}.")).await;
    play(&ann, "f1b5", None).await;
    let url = format!("http://{}/chess/{sid}.pgn", s.http);
    let read = crate::support::run_python("differential/pgn_moves.py", &[&url]).await;
    assert_eq!(read["errors"], json!([]), "{read}");
    assert_eq!(
        read["moves"],
        json!(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]),
        "{read}"
    );
    assert_eq!(read["headers"]["White"], "Ann");
    assert_eq!(read["headers"]["Black"], "Bob");
    assert_eq!(read["headers"]["Result"], "*");
    assert!(
        read["content_type"]
            .as_str()
            .unwrap()
            .starts_with("application/x-chess-pgn")
    );
    // The same text through the tool (and so on telnet as `pgn #<id>`).
    let pgn = reqwest::get(&url).await.unwrap().text().await.unwrap();
    let tool = crate::support::mcp_tool(s.http, &ann.token, "pgn", json!({"game": sid})).await;
    assert_eq!(tool["structuredContent"]["pgn"], pgn.as_str(), "{tool}");
    assert!(pgn.contains("1. e4 e5 2. Nf3 Nc6 3. Bb5 *"), "{pgn}");
    // And through the REST API, for any caller.
    let other = api.agent(Some("Cy")).await;
    let (status, v) = api.get(&format!("/sessions/{sid}/pgn"), &other.token).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["pgn"], pgn.as_str());
    let (status, _) = api.get("/sessions/999/pgn", &other.token).await;
    assert_eq!(status, 404);
    assert_eq!(
        reqwest::get(format!("http://{}/chess/999.pgn", s.http))
            .await
            .unwrap()
            .status(),
        404
    );
    // Reasons are held back while the game runs; once it is over, each move's is its comment,
    // the taken-back move's gone with it.
    assert!(!pgn.contains('{'), "{pgn}");
    play(&bob, "resign", None).await;
    let read = crate::support::run_python("differential/pgn_moves.py", &[&url]).await;
    assert_eq!(read["errors"], json!([]), "{read}");
    assert_eq!(
        read["moves"],
        json!(["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]),
        "{read}"
    );
    assert_eq!(
        read["comments"],
        json!([
            "The king's pawn.",
            "",
            "",
            "Develop, and guard e5 (twice).",
            ""
        ]),
        "{read}"
    );
    let pgn = reqwest::get(&url).await.unwrap().text().await.unwrap();
    assert!(
        pgn.contains("1. e4 {The king's pawn.} 1... e5 2. Nf3 Nc6 {Develop, and guard e5"),
        "{pgn}"
    );
    s.stop().await;
}

/// A person signed in on the web puts their character on the Town Hall's notice board with
/// the page's button (`POST /werewolf/board`, its CSRF token required), and once the eighth
/// has signed, reads that the game is starting and which door is theirs.
#[tokio::test]
async fn a_person_signs_the_notice_board_from_the_web_and_is_shown_their_door() {
    let s = TestServer::start().await;
    // A character made on telnet, who then leaves the town.
    let mut ann = s.player("Ann").await;
    ann.send("@quit").await;
    drop(ann);
    let (cookie, csrf) = sign_in(s.http, "Ann", "pw-Ann-moot").await;
    let post = |csrf: Option<String>, sign: bool| {
        let (http, cookie) = (s.http, cookie.clone());
        async move {
            let mut req = browser()
                .post(format!("http://{http}/werewolf/board"))
                .header("cookie", cookie)
                .json(&json!({ "sign": sign }));
            if let Some(t) = csrf {
                req = req.header("x-csrf-token", t);
            }
            req.send().await.unwrap()
        }
    };
    assert_eq!(
        post(None, true).await.status(),
        403,
        "a CSRF token is required"
    );
    let r = post(Some(csrf.clone()), true).await;
    assert_eq!(r.status(), 200);
    let signed: Value = r.json().await.unwrap();
    assert_eq!(signed["queue"]["position"], 1, "{signed}");
    let town = get_json(s.http, "/town.json", None).await;
    assert_eq!(town["werewolf"]["queue"], json!(["Ann"]), "{town}");
    // Seven agents sign too: the match begins, and the page is told Ann's door.
    for i in 0..7 {
        let a = s.api().agent(Some(&format!("Signer{i}"))).await;
        crate::support::mcp_tool(s.http, &a.token, "et.werewolf.queue.join", json!({})).await;
    }
    let mine = get_json(s.http, "/werewolf/board", Some(&cookie)).await;
    assert_eq!(mine["queue"]["status"], "MATCHED", "{mine}");
    assert_eq!(mine["door"], "game1", "{mine}");
    let mid = mine["matchAssignment"]["matchId"].as_str().unwrap();
    assert_eq!(mine["page"], format!("/werewolf/{mid}"), "{mine}");
    s.stop().await;
}

/// Behind a TLS proxy reached at `--public-url https://moot.example` (which passes on
/// `Host: 127.0.0.1:…`), sign-in takes the public origin exactly and nothing else, the cookie is
/// `Secure` and `__Host-`, and signing in leads only to a path of moot's.
#[tokio::test]
async fn behind_a_proxy_sign_in_takes_the_public_origin_only_and_the_cookie_is_secure() {
    let s = TestServer::start_with(|c| c.public_url = Some("https://moot.example".into())).await;
    let _ann = s.player("Ann").await;
    let fields = [("name", "Ann"), ("password", "pw-Ann-moot"), ("next", "/")];
    let host = format!("http://{}", s.http);
    for origin in [
        "http://moot.example",
        host.as_str(),
        "https://evil.example",
        "null",
    ] {
        let r = post_form(s.http, "/login", &[("origin", origin)], &fields).await;
        assert_eq!(r.status(), 403, "{origin}");
    }
    for origin in ["https://moot.example", "https://MOOT.example:443"] {
        let r = post_form(s.http, "/login", &[("origin", origin)], &fields).await;
        assert_eq!(r.status(), 303, "{origin}");
        let set = r.headers()["set-cookie"].to_str().unwrap().to_owned();
        assert!(
            set.starts_with("__Host-moot_session=") && set.contains("; Secure"),
            "{set}"
        );
        let cookie = set.split(';').next().unwrap().to_owned();
        assert_eq!(me(s.http, &cookie).await["name"], "Ann");
    }
    // `next` leads only to a path here: a tab a browser would drop, another host, a backslash.
    for next in [
        "/\t/evil.example/",
        "//evil.example/",
        "/\\evil.example",
        "https://evil.example/",
        "/\n/evil.example",
    ] {
        let fields = [("name", "Ann"), ("password", "pw-Ann-moot"), ("next", next)];
        let r = post_form(
            s.http,
            "/login",
            &[("origin", "https://moot.example")],
            &fields,
        )
        .await;
        assert_eq!(r.status(), 303, "{next:?}");
        assert_eq!(r.headers()["location"], "/", "{next:?}");
        let encoded: String = form_urlencoded_next(next);
        let page = browser()
            .get(format!("http://{}/login?{encoded}", s.http))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(page.contains(r#"name="next" value="/""#), "{next:?}");
    }
    let fields = [
        ("name", "Ann"),
        ("password", "pw-Ann-moot"),
        ("next", "/werewolf/board"),
    ];
    let r = post_form(
        s.http,
        "/login",
        &[("origin", "https://moot.example")],
        &fields,
    )
    .await;
    assert_eq!(r.headers()["location"], "/werewolf/board");
    s.stop().await;
}

/// No page of moot's can be framed by another site, runs another site's scripts, has its type
/// guessed or tells other sites its address; an empty metrics token serves `/metrics` to nobody.
#[tokio::test]
async fn every_answer_forbids_framing_and_an_empty_metrics_token_is_off() {
    let s = TestServer::start_with(|c| c.metrics_token = Some(String::new())).await;
    for path in [
        "/",
        "/login",
        "/town.json",
        "/leaderboard/chess",
        "/no/such/page",
        "/openapi.json",
    ] {
        let r = browser()
            .get(format!("http://{}{path}", s.http))
            .send()
            .await
            .unwrap();
        let h = r.headers();
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'self'"),
            "{path}: {csp}"
        );
        assert_eq!(h["x-frame-options"], "DENY", "{path}");
        assert_eq!(h["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(h["referrer-policy"], "same-origin", "{path}");
    }
    for auth in ["Bearer ", "Bearer", ""] {
        let r = browser()
            .get(format!("http://{}/metrics", s.http))
            .header("authorization", auth)
            .send()
            .await
            .unwrap();
        assert_ne!(r.status(), 200, "{auth:?}");
    }
    s.stop().await;
}

/// Every game has a leaderboard page from the start, empty and saying so, and `/leaderboard`
/// lists them; a game the town does not have is a page that says so.
#[tokio::test]
async fn every_game_has_a_leaderboard_page_from_the_start() {
    let s = TestServer::start().await;
    let get = |path: String| async move {
        let r = browser()
            .get(format!("http://{}{path}", s.http))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    };
    let (status, index) = get("/leaderboard".into()).await;
    assert_eq!(status, 200, "{index}");
    for game in [
        "chess",
        "blackjack",
        "rps",
        "tictactoe",
        "connect4",
        "werewolf",
    ] {
        assert!(
            index.contains(&format!("href=\"/leaderboard/{game}\"")),
            "{index}"
        );
        let (status, page) = get(format!("/leaderboard/{game}")).await;
        assert_eq!(status, 200, "{game}: {page}");
        assert!(
            page.contains(&format!("Nobody is on the {game} leaderboard yet")),
            "{page}"
        );
    }
    let (status, page) = get("/leaderboard/go".into()).await;
    assert_eq!(status, 404, "{page}");
    assert!(page.contains("No leaderboard for &quot;go&quot;"), "{page}");
    // A game's page that is not there is a page too, with the site's navigation (it was the
    // API's JSON); what is not a number is not repeated into it.
    for (path, says) in [
        ("/chess/999", "No game #999."),
        ("/tictactoe/99", "No game #99."),
        ("/werewolf/%3Cb%3E", "No such game."),
    ] {
        let r = browser()
            .get(format!("http://{}{path}", s.http))
            .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
            .send()
            .await
            .unwrap();
        let (status, page) = (r.status().as_u16(), r.text().await.unwrap());
        assert_eq!(status, 404, "{path}: {page}");
        assert!(page.starts_with("<!doctype html>"), "{path}: {page}");
        assert!(
            page.contains(says) && page.contains("moot-nav"),
            "{path}: {page}"
        );
        assert!(!page.contains("<b>"), "{path}: {page}");
    }
    s.stop().await;
}

/// nginx in front of moot as docs/operating.md sets one up: TLS (a certificate made for the
/// test, for `moot.example`), passing `Host: 127.0.0.1:<moot's port>`. Stopped when dropped.
struct Proxy {
    _dir: tempfile::TempDir,
    child: std::process::Child,
    port: u16,
}

impl Proxy {
    fn start(port: u16, moot: SocketAddr) -> Proxy {
        use std::process::Command;
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().display().to_string();
        let made = Command::new("openssl")
            .args([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            ])
            .args([
                "-subj",
                "/CN=moot.example",
                "-addext",
                "subjectAltName=DNS:moot.example",
            ])
            .args([
                "-keyout",
                &format!("{d}/key.pem"),
                "-out",
                &format!("{d}/cert.pem"),
            ])
            .output()
            .unwrap();
        assert!(made.status.success(), "{made:?}");
        let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
        let user = if root { "user root;" } else { "" };
        let conf = format!(
            "{user}
worker_processes 1;
error_log {d}/error.log;
pid {d}/nginx.pid;
events {{ worker_connections 64; }}
http {{
  access_log off;
  client_body_temp_path {d}/body; proxy_temp_path {d}/proxy; fastcgi_temp_path {d}/fcgi;
  uwsgi_temp_path {d}/uwsgi; scgi_temp_path {d}/scgi;
  server {{
    listen 127.0.0.1:{port} ssl;
    server_name moot.example;
    ssl_certificate {d}/cert.pem;
    ssl_certificate_key {d}/key.pem;
    location / {{
      proxy_pass http://{moot};
      proxy_set_header Host {moot};
      proxy_http_version 1.1;
      proxy_buffering off;
    }}
  }}
}}
"
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
        let child = Command::new("nginx")
            .args([
                "-p",
                &d,
                "-c",
                &format!("{d}/nginx.conf"),
                "-g",
                "daemon off;",
            ])
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("nginx is installed (.ci/run installs nginx-light)");
        // Up once it answers.
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Proxy {
            _dir: dir,
            child,
            port,
        }
    }

    /// `curl` through the proxy to `https://moot.example:<port><path>` with these headers and
    /// form fields (a POST if any): the status, the headers (lower-cased names) and the body.
    fn curl(
        &self,
        path: &str,
        headers: &[(&str, &str)],
        fields: &[(&str, &str)],
    ) -> (u16, Vec<(String, String)>, String) {
        let mut cmd = std::process::Command::new("curl");
        cmd.args(["-sk", "-i", "--max-time", "20", "--resolve"])
            .arg(format!("moot.example:{}:127.0.0.1", self.port))
            .arg(format!("https://moot.example:{}{path}", self.port));
        for (k, v) in headers {
            cmd.arg("-H").arg(format!("{k}: {v}"));
        }
        for (k, v) in fields {
            cmd.arg("--data-urlencode").arg(format!("{k}={v}"));
        }
        let out = cmd.output().expect("curl is installed");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|c| c.parse().ok())
            .unwrap_or_else(|| panic!("no answer through the proxy: {text:?}"));
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        (status, headers, body.to_owned())
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        // SIGTERM: nginx's master stops its worker too.
        let _ = std::process::Command::new("kill")
            .arg(self.child.id().to_string())
            .status();
        let _ = self.child.wait();
    }
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// Through a real TLS proxy (nginx, set up as docs/operating.md says, moot given
/// `--public-url`), a person signs in on the web and stays signed in, the cookie is `Secure`,
/// and a sign-in from any other origin (the address behind the proxy too) is refused.
#[tokio::test]
async fn behind_nginx_with_tls_the_web_signs_in_and_refuses_other_origins() {
    let port = crate::support::free_port();
    let public = format!("https://moot.example:{port}");
    let s = TestServer::start_with({
        let public = public.clone();
        move |c| c.public_url = Some(public)
    })
    .await;
    let _ann = s.player("Ann").await;
    let http = s.http;
    let public2 = public.clone();
    let (signed, refused) = tokio::task::spawn_blocking(move || {
        let proxy = Proxy::start(port, http);
        let fields = [("name", "Ann"), ("password", "pw-Ann-moot"), ("next", "/")];
        let signed = proxy.curl("/login", &[("Origin", &public2)], &fields);
        let cookie = header(&signed.1, "set-cookie")
            .map(|c| c.split(';').next().unwrap().to_owned())
            .unwrap_or_default();
        let me = proxy.curl("/me", &[("Cookie", &cookie)], &[]);
        let behind = format!("http://{http}");
        let refused: Vec<u16> = [
            behind.as_str(),
            "https://moot.example",
            "https://evil.example",
        ]
        .iter()
        .map(|o| proxy.curl("/login", &[("Origin", o)], &fields).0)
        .collect();
        ((signed, me), refused)
    })
    .await
    .unwrap();
    let ((status, headers, body), (_, _, me)) = signed;
    assert_eq!(status, 303, "{headers:?} {body}");
    let cookie = header(&headers, "set-cookie").unwrap();
    assert!(
        cookie.starts_with("__Host-moot_session=") && cookie.contains("; Secure"),
        "{cookie}"
    );
    assert_eq!(header(&headers, "x-frame-options"), Some("DENY"));
    let me: Value = serde_json::from_str(&me).unwrap();
    assert_eq!(me["name"], "Ann", "{me}");
    assert_eq!(refused, [403, 403, 403]);
    s.stop().await;
}

/// Every page carries the same navigation (the town, games, leaderboards, players, how to join,
/// signing in), a game's page included; the town's page says how to join at this moot's real
/// addresses: telnet's, MCP's URL with a host's settings, and `/skill.md`.
#[tokio::test]
async fn every_page_has_the_navigation_and_the_town_page_says_how_to_join() {
    let s = TestServer::start().await;
    let api = s.api();
    let me = api.agent(Some("Pia")).await;
    let mid = bot_match(&api, &me).await;
    let http = s.http;
    let get = |path: String| async move {
        let r = browser()
            .get(format!("http://{http}{path}"))
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    };
    for path in [
        "/".to_owned(),
        "/login".to_owned(),
        "/leaderboard".to_owned(),
        "/leaderboard/chess".to_owned(),
        "/players".to_owned(),
        "/players/Pia".to_owned(),
        format!("/werewolf/{mid}"),
    ] {
        let (status, page) = get(path.clone()).await;
        assert_eq!(status, 200, "{path}: {page}");
        assert_eq!(page.matches("class=\"moot-nav\"").count(), 1, "{path}");
        for link in [
            "href=\"/\"",
            "href=\"/leaderboard\"",
            "href=\"/players\"",
            "href=\"/#join\"",
            "href=\"/login\"",
        ] {
            assert!(page.contains(link), "{path} lacks {link}");
        }
    }
    let (_, town) = get("/".into()).await;
    let telnet = format!("telnet {} {}", s.addr.ip(), s.addr.port());
    assert!(town.contains(&telnet), "{telnet}: {town}");
    assert!(town.contains(&format!("http://{http}/mcp")), "{town}");
    assert!(town.contains("href=\"/skill.md\""), "{town}");
    // Finding a player by name leads to their page.
    let r = browser()
        .get(format!("http://{http}/players?name=Pia"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 303);
    assert_eq!(r.headers()["location"], "/players/Pia");
    s.stop().await;
}

/// A person makes a character on the web and is signed in at once; the same character then
/// connects by telnet. The rules are telnet's `create`'s, and another site cannot make one.
#[tokio::test]
async fn a_character_made_on_the_web_is_signed_in_and_plays_by_telnet_too() {
    let s = TestServer::start().await;
    let fields = [
        ("name", "Wendy"),
        ("password", "a-fine-pass"),
        ("next", "/leaderboard"),
    ];
    let forged = post_form(
        s.http,
        "/signup",
        &[("origin", "http://evil.example")],
        &fields,
    )
    .await;
    assert_eq!(forged.status(), 403);
    let made = post_form(s.http, "/signup", &[], &fields).await;
    assert_eq!(made.status(), 303, "{}", made.text().await.unwrap());
    assert_eq!(made.headers()["location"], "/leaderboard");
    let set = made.headers()["set-cookie"].to_str().unwrap().to_owned();
    let cookie = set.split(';').next().unwrap().to_owned();
    assert_eq!(me(s.http, &cookie).await["name"], "Wendy");
    // The name is taken now, whatever its case; a bad name says why.
    let again = post_form(
        s.http,
        "/signup",
        &[],
        &[("name", "wendy"), ("password", "another-pass")],
    )
    .await;
    assert_eq!(again.status(), 400);
    assert!(
        again
            .text()
            .await
            .unwrap()
            .contains("The name &quot;wendy&quot; is already in use")
    );
    let bad = post_form(
        s.http,
        "/signup",
        &[],
        &[("name", "9lives"), ("password", "another-pass")],
    )
    .await;
    assert_eq!(bad.status(), 400);
    // The same character connects by telnet.
    let mut c = crate::support::Client::connect(s.addr).await;
    c.expect("quit").await;
    c.send("connect Wendy a-fine-pass").await;
    c.expect("*** Connected ***").await;
    s.stop().await;
}

/// Playing from the browser (tests/browser/play.py, Debian's Chromium): a character made on the
/// web uses the console beside a telnet player, plays chess with him by dragging a piece, the
/// house at tic-tac-toe and Connect Four with clicks, and a Werewolf match with him through the
/// match page's buttons; then every page is checked with axe-core. Screenshots go to
/// target/screenshots.
#[tokio::test]
async fn a_browser_player_and_a_telnet_player_play_together() {
    let s = TestServer::start_with(|c| c.time_scale = 5.0).await;
    let root = env!("CARGO_MANIFEST_DIR");
    let shots = format!("{root}/target/screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let axe = format!("{root}/.tools/node_modules/axe-core/axe.min.js");
    let (base, telnet) = (format!("http://{}", s.http), s.addr.to_string());
    let seen = crate::support::run_python("browser/play.py", &[&base, &telnet, &shots, &axe]).await;
    assert_eq!(seen["signup"]["signed_in"], true, "{seen}");
    let c = &seen["console"];
    assert!(c["tom_sees"].as_str().unwrap().contains("Wren"), "{c}");
    eprintln!(
        "the console showed Tom's words after {:.3} s",
        c["seconds"].as_f64().unwrap()
    );
    assert!(c["seconds"].as_f64().unwrap() < 3.0, "{c}");
    let chess = &seen["chess"];
    assert!(
        chess["moves"].as_str().unwrap().contains("e4 e5"),
        "{chess}"
    );
    assert_eq!(chess["said"], "Black played e5. White to move.", "{chess}");
    assert!(
        chess["moves"].as_str().unwrap().contains("Qxf7#"),
        "{chess}"
    );
    assert!(
        chess["result"].as_str().unwrap().contains("checkmate"),
        "{chess}"
    );
    let t = &seen["tables"];
    assert!(
        t["cells"][4].as_str().unwrap().ends_with("centre (5): X"),
        "{t}"
    );
    let w = &seen["werewolf"];
    // Past the lobby the page never asks a player to say they are ready (it kept the lobby's
    // line into the night for someone with nothing to do).
    assert_eq!(w["ready_asked_after_lobby"], json!([]), "{w}");
    assert!(w["players"].as_str().unwrap().contains("Tom"), "{w}");
    assert!(w["players"].as_str().unwrap().contains("Wren"), "{w}");
    // One of them was alive to speak on the first day, and the other heard it.
    assert!(
        !w["wren_spoke"].is_null() || !w["tom_spoke"].is_null(),
        "{w}"
    );
    // And one of them voted on the page or by telnet, the other seeing it.
    match w["wren_voted"].is_null() {
        false => assert!(!w["tom_saw_vote"].is_null(), "{w}"),
        true => assert_eq!(w["tom_voted"], "none", "{w}"),
    }
    assert_eq!(seen["axe"]["violations"], json!({}), "{}", seen["axe"]);
    s.stop().await;
}

/// `POST /console/line` as the signed-in person, from moot's own page (`csrf`) or not.
async fn console_line(http: SocketAddr, cookie: &str, csrf: &str, line: &str) -> (u16, Value) {
    let r = browser()
        .post(format!("http://{http}/console/line"))
        .header("cookie", cookie)
        .header("x-csrf-token", csrf)
        .json(&json!({ "line": line }))
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

/// The web console: a line runs as a telnet player's would and the room hears it; what the
/// town says waits to be read; a line from another site's page changes nothing; a page that
/// keeps reading keeps its player in the town, and one that stops lets them go after the
/// agents' idle time (a bug: its player was swept while the page read, as if silent).
#[tokio::test]
async fn the_web_console_runs_lines_and_keeps_its_reader_in_the_town() {
    let s = TestServer::start_with(|c| {
        c.agent_idle_timeout = Duration::from_millis(1500).into();
    })
    .await;
    let mut bea = s.player("Bea").await;
    bea.send("@quit").await;
    bea.until_closed().await;
    let mut ann = s.player("Ann").await;
    let (cookie, csrf) = sign_in(s.http, "Bea", "pw-Bea-moot").await;
    let (status, said) = console_line(s.http, &cookie, &csrf, "say hello\nsay smuggled").await;
    assert_eq!(status, 200, "{said}");
    assert_eq!(said["lines"], json!(["You say, \"hello\""]));
    ann.expect("Bea says, \"hello\"").await;
    let (status, _) = console_line(s.http, &cookie, "not-the-token", "say forged").await;
    assert_eq!(status, 403);
    // What cannot be read is refused in the pages' own shapes, not axum's plain text: a body
    // that is not JSON, a sign-up form without its fields; and `/signup` has a page to GET.
    let r = browser()
        .post(format!("http://{}/console/line", s.http))
        .header("cookie", &cookie)
        .header("x-csrf-token", &csrf)
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let v: Value = r.json().await.unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("as JSON"),
        "{v}"
    );
    let r = browser()
        .post(format!("http://{}/signup", s.http))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=Zed")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let page = r.text().await.unwrap();
    assert!(page.contains("Fill in a name and a password."), "{page}");
    let r = browser()
        .get(format!("http://{}/signup", s.http))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.text().await.unwrap().contains("<form"));
    // The way out is the page's, not telnet's `@quit` (which the console once offered, and
    // then did not understand).
    for line in ["quit", "@quit"] {
        let (_, said) = console_line(s.http, &cookie, &csrf, line).await;
        let said = said.to_string();
        assert!(said.contains("sign out on the page"), "{line}: {said}");
        assert!(!said.contains("`@quit`"), "{line}: {said}");
    }
    ann.send("say hi Bea").await;
    ann.expect("You say, \"hi Bea\"").await;
    // Reading every 300 ms for twice the idle time keeps her here, and she hears Ann.
    let mut heard = Vec::new();
    for _ in 0..10 {
        let got = get_json(s.http, "/console/heard", Some(&cookie)).await;
        heard.extend(got["lines"].as_array().unwrap().iter().cloned());
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    assert!(heard.contains(&json!("Ann says, \"hi Bea\"")), "{heard:?}");
    assert!(!heard.iter().any(|l| l.as_str().unwrap().contains("forged")));
    // Nobody in the room saw her swept away (and brought back by her next read) meanwhile.
    ann.send("say polled").await;
    let during = ann.expect("You say, \"polled\"").await;
    assert!(
        !during
            .iter()
            .any(|l| l.contains("Bea has been disconnected")),
        "still here while her page reads: {during:?}"
    );
    // The page closed: she leaves as a silent agent does.
    ann.expect("Bea has been disconnected for inactivity.")
        .await;
    s.stop().await;
}
