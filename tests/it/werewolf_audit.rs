//! The leak audit, served: eight people play a match on a real server while they, a public
//! spectator and an all-seeing one read it through every face (telnet lines, MCP `get_state`
//! and `events.get`, the REST state and log). Once it is over, the match's report says who was
//! what, and every byte each reader took in before the end is checked against what their seat
//! may know. The all-seeing reader is the control: the same checks find secrets in what they
//! read, so a check that finds nothing elsewhere is looking at the right things.

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::support::{Client, TestServer, mcp_tool, player_at};

const PLAYERS: [&str; 8] = [
    "Anya", "Boris", "Clara", "Dmitri", "Elena", "Fyodor", "Galina", "Ivan",
];
const CARDS: [&str; 4] = ["Werewolf", "Seer", "Doctor", "Villager"];

/// Whom a reader is, and everything they took in before the match ended, by face.
struct Reader {
    name: &'static str,
    client: Client,
    token: String,
    playing: bool,
    /// (face, what came).
    took: Vec<(&'static str, String)>,
}

/// The town as the audit needs it: the all-seeing spectator reads the match while it runs.
fn audited(c: &mut moot::config::Config) {
    c.time_scale = 50.0;
    c.games.werewolf.omniscient = moot::games::werewolf::settings::Omniscient::Live;
}

#[tokio::test]
async fn a_served_match_shows_nobody_what_they_may_not_know_on_any_face() {
    let s = TestServer::start_with(audited).await;
    play_and_audit(s.addr, s.http).await;
    s.stop().await;
}

/// Across the broker: a world, and a host that holds every reader's connections. Besides
/// what each reader took in, everything the world told the host for each connection is held
/// to what that connection's reader may know: a host never holds a secret its reader may not
/// be shown.
#[tokio::test]
async fn a_match_through_a_host_sends_the_host_nothing_its_readers_may_not_know() {
    let broker = crate::hosts::Broker::start().await;
    let (_dir, db, world) = crate::hosts::world_on(&broker.url, audited).await;
    let host = crate::hosts::host(&broker.url, &db).await;
    // Everything the host is told for its connections, and who entered on each.
    let spy = async_nats::connect(&broker.url).await.unwrap();
    let mut told_to = spy
        .subscribe(format!(
            "moot.v{}.to.*.conns",
            moot::cluster::wire::PROTOCOL
        ))
        .await
        .unwrap();
    let mut said_by = spy
        .subscribe(format!(
            "moot.v{}.from.*.conns",
            moot::cluster::wire::PROTOCOL
        ))
        .await
        .unwrap();
    spy.flush().await.unwrap();
    let (stop, mut stopped) = tokio::sync::oneshot::channel::<()>();
    let spied = tokio::spawn(async move {
        let (mut told, mut entered) = (Vec::new(), std::collections::HashMap::new());
        loop {
            tokio::select! {
                _ = &mut stopped => return (told, entered),
                Some(m) = told_to.next() => {
                    let batch: moot::cluster::wire::ToConns =
                        moot::cluster::wire::decode(&m.payload).expect("a batch");
                    told.extend(batch.0);
                }
                Some(m) = said_by.next() => {
                    let batch: moot::cluster::wire::FromConns =
                        moot::cluster::wire::decode(&m.payload).expect("a batch");
                    for (conn, said) in batch.0 {
                        if let moot::cluster::wire::FromConn::Enter { agent, .. } = said {
                            entered.insert(conn, agent);
                        }
                    }
                }
                else => return (told, entered),
            }
        }
    });
    let roles = play_and_audit(host.telnet_addr, host.http_addr).await;
    // What was sent by the end has reached the spy once a round trip of its own has.
    spy.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.send(()).unwrap();
    let (told, entered) = spied.await.unwrap();
    // Whose each connection is.
    let store = moot::store::Store::open(&db, moot::store::StoreOptions::default()).unwrap();
    let mut reader_of = std::collections::HashMap::new();
    for (conn, agent) in &entered {
        let row = store
            .agent_by_id(agent)
            .await
            .unwrap()
            .expect("a character");
        reader_of.insert(*conn, row.name);
    }
    let mut audited_told = 0;
    let mut found_for_olga = Vec::new();
    // Each connection's up to the line that ends the match (after it, all is told).
    let mut ended = std::collections::HashSet::new();
    for told in &told {
        let pieces = told_text(&told.what);
        let ends = pieces.iter().any(|(_, text)| {
            text.contains("[Town Crier] The villagers win")
                || text.contains("[Town Crier] The werewolves win")
                || text.starts_with("ENDED")
        });
        for conn in &told.conns {
            if ended.contains(conn) {
                continue;
            }
            if ends {
                ended.insert(*conn);
                continue;
            }
            let name = &reader_of[conn];
            let seat = roles
                .iter()
                .find(|(_, n, _)| n == name)
                .map(|(id, _, role)| (id.as_str(), role.as_str()));
            for (face, text) in &pieces {
                let leaks = audit(seat, &roles, face, text);
                if name == "Olga" {
                    found_for_olga.extend(leaks);
                } else {
                    assert!(
                        leaks.is_empty(),
                        "the host was told for {name} ({seat:?}) what they may not know: \
                         {leaks:?}\n    in {text}"
                    );
                }
            }
            audited_told += 1;
        }
    }
    assert!(audited_told > 100, "{audited_told}");
    // The control: what the all-seeing reader's connection was told holds secrets.
    for what in [
        "growls to the pack",
        "You are a Werewolf",
        "Your vision shows",
    ] {
        assert!(
            found_for_olga.iter().any(|l| l.contains(what)),
            "the audit should find `{what}` in what the host was told for Olga: {found_for_olga:#?}"
        );
    }
    host.running.shutdown().await;
    world.shutdown().await;
}

/// What the world told a host, as its reader would take it in: lines as telnet shows them,
/// and a board's view as the JSON a client that draws one reads.
fn told_text(what: &moot::cluster::wire::ToConn) -> Vec<(&'static str, String)> {
    use moot::cluster::wire::ToConn;
    let telnet = |lines: &[String]| lines.iter().map(|l| ("telnet", l.clone())).collect();
    match what {
        ToConn::Line(line) => vec![("telnet", line.clone())],
        ToConn::Heard { line, .. } | ToConn::Said { line, .. } => vec![("telnet", line.clone())],
        ToConn::Reply { lines, .. } | ToConn::Close(lines) => telnet(lines),
        ToConn::Board(board) => {
            let mut pieces: Vec<_> = telnet(&board.text);
            pieces.extend(board.headline.iter().map(|h| ("telnet", h.clone())));
            pieces.push(("gmcp", board.view.clone()));
            pieces
        }
        ToConn::Room(room) => vec![("telnet", room.name.clone())],
        ToConn::Display(_) | ToConn::Refused { .. } | ToConn::Ended => Vec::new(),
    }
}

/// Ten readers follow a match at `telnet` and `http` to its end, and each is held to what
/// their seat may know; the match's roles, once told.
async fn play_and_audit(telnet: SocketAddr, http: SocketAddr) -> Vec<(String, String, String)> {
    let mut readers = Vec::new();
    for name in PLAYERS.iter().chain(&["Sonya", "Olga"]) {
        let mut client = player_at(telnet, name).await;
        let token = client.command("@token").await[0]
            .strip_prefix("Your API token: ")
            .expect("a token")
            .to_owned();
        client.command("north").await;
        readers.push(Reader {
            name,
            client,
            token,
            playing: PLAYERS.contains(name),
            took: Vec::new(),
        });
    }
    for r in readers.iter_mut().filter(|r| r.playing) {
        let signed = r.client.command("sign board").await;
        assert!(
            signed
                .iter()
                .any(|l| l.contains("of 8") || l.contains("eight")),
            "{signed:?}"
        );
    }
    let status = mcp_tool(
        http,
        &readers[0].token,
        "et.werewolf.queue.status",
        json!({}),
    )
    .await;
    let mid = status["structuredContent"]["matchAssignment"]["matchId"]
        .as_str()
        .unwrap_or_else(|| panic!("matched: {status}"))
        .to_owned();
    // Olga asks to see everything, on telnet; everyone walks into the building.
    let olga = readers.last_mut().unwrap();
    let granted = olga.client.command(&format!("omniscient #{mid}")).await;
    assert!(
        granted.iter().any(|l| l.contains("seeing everything")),
        "{granted:?}"
    );
    for r in &mut readers {
        let inside = r.client.command("game1").await;
        assert!(
            inside.iter().any(|l| l.contains("Werewolf Game #1")),
            "{inside:?}"
        );
    }
    // A spectator in the building needs no match id to read it.
    let sonya = &mut readers[8];
    let watching = sonya.client.command("werewolf").await;
    assert_eq!(
        watching[0],
        format!("Werewolf match {mid} (watching):"),
        "{watching:?}"
    );
    let tasks: Vec<_> = readers
        .into_iter()
        .map(|r| tokio::spawn(follow(http, mid.clone(), r)))
        .collect();
    let mut readers = Vec::new();
    for t in tasks {
        readers.push(t.await.expect("a reader followed the match to its end"));
    }
    // The truth, now that it may be told.
    let (code, report) = crate::support::Api::new(http)
        .get(&format!("/werewolf/{mid}/report"), &readers[0].token)
        .await;
    assert_eq!(code, 200, "{report}");
    let roles = roles_of(&report);
    let mut found_in_olgas = Vec::new();
    for r in &readers {
        let me = roles.iter().find(|(_, name, _)| name == r.name);
        let seat = me.map(|(id, _, role)| (id.as_str(), role.as_str()));
        // Olga is audited as though she were the public: the control.
        let all_seeing = r.name == "Olga";
        let mut leaks = Vec::new();
        for (face, body) in &r.took {
            leaks.extend(
                audit(seat, &roles, face, body)
                    .into_iter()
                    .map(|l| format!("{face}: {l}\n    in {body}")),
            );
        }
        if all_seeing {
            found_in_olgas = leaks;
        } else {
            assert!(
                leaks.is_empty(),
                "{} ({seat:?}) was shown what they may not know:\n{}",
                r.name,
                leaks.join("\n")
            );
        }
        let faces: std::collections::BTreeSet<_> = r.took.iter().map(|t| t.0).collect();
        assert!(faces.len() >= 4, "{} read through {faces:?}", r.name);
    }
    // What was said to some players only reaches the all-seeing saying to whom.
    let olga = readers.iter().find(|r| r.name == "Olga").unwrap();
    let second_person: Vec<&String> = olga
        .took
        .iter()
        .filter(|(face, line)| *face == "telnet" && line.contains("You are "))
        .map(|(_, line)| line)
        .collect();
    assert!(!second_person.is_empty());
    for line in second_person {
        let to = line.strip_prefix("(to ").expect("addressed");
        assert!(PLAYERS.iter().any(|p| to.starts_with(p)), "{line}");
    }
    // The control: the all-seeing spectator read roles, night actions and wolf chat (only what
    // every match has: a spoiler needs the doctor to save someone, which not every match sees).
    for what in [
        "the role of",
        "growls to the pack",
        "WOLF_KILL_SELECTED",
        "the night",
        "Your vision shows",
        "You will watch over",
        "You are a Werewolf",
    ] {
        // The seer's vision and the doctor's watch are there only if they acted before the
        // night ended, which a loaded machine (the PostgreSQL run) can let pass: asked of the
        // all-seeing where a player was told them.
        let acted = ["Your vision shows", "You will watch over"].contains(&what);
        let told = readers
            .iter()
            .any(|r| r.name != "Olga" && r.took.iter().any(|(_, l)| l.contains(what)));
        if acted && !told {
            continue;
        }
        assert!(
            found_in_olgas.iter().any(|l| l.contains(what)),
            "the audit should find `{what}` in what Olga saw: {found_in_olgas:#?}"
        );
    }
    roles
}

/// One reader follows the match to its end: telnet as it comes (and `werewolf`, `look` and
/// `wwevents` now and then), MCP state and events, the REST state and log; a player also plays,
/// by MCP, doing what their brief asks, and a wolf growls to the pack on telnet.
async fn follow(http: std::net::SocketAddr, mid: String, mut r: Reader) -> Reader {
    let api = crate::support::Api::new(http);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    let mut cursor: Option<String> = None;
    let mut told = std::collections::HashSet::new();
    let mut ended_on_telnet = false;
    for round in 0u64.. {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{}: the match did not end",
            r.name
        );
        // Telnet, up to the line that ends the match (after it, all is told).
        let mut lines = Vec::new();
        while let Ok(Some(l)) = r.client.line_within(Duration::from_millis(10)).await {
            lines.push(l);
        }
        if round % 4 == 0 {
            let command = ["werewolf", "look", &format!("wwevents #{mid}")]
                [(round / 4 % 3) as usize]
                .to_owned();
            // What was heard on the way in is audited too.
            let (meanwhile, output) = r.client.command_hearing(&command).await;
            lines.extend(meanwhile);
            lines.extend(output);
        }
        for l in lines {
            if l.starts_with("[Town Crier] The villagers win")
                || l.starts_with("[Town Crier] The werewolves win")
                || l.starts_with("ENDED")
            {
                ended_on_telnet = true;
            }
            if !ended_on_telnet {
                r.took.push(("telnet", l));
            }
        }
        // The JSON faces; kept only if the state read after them shows the match running.
        let mut batch = Vec::new();
        let mut args = json!({ "matchId": mid, "limit": 200 });
        if let Some(c) = &cursor {
            args["afterEventId"] = json!(c);
        }
        let events = mcp_tool(http, &r.token, "et.werewolf.match.events.get", args).await;
        if let Some(c) = events["structuredContent"]["nextCursor"].as_str() {
            cursor = Some(c.to_owned());
        }
        batch.push(("mcp events.get", events.to_string()));
        for path in ["state", "log"] {
            let (code, body) = api.get(&format!("/sessions/{mid}/{path}"), &r.token).await;
            batch.push(("rest", format!("{code} {body}")));
        }
        let got = mcp_tool(
            http,
            &r.token,
            "et.werewolf.match.get_state",
            json!({ "matchId": mid }),
        )
        .await;
        let state = got["structuredContent"]["state"].clone();
        if state["phase"] == "ENDED" {
            // A last look at telnet, up to the end line.
            while let Ok(Some(l)) = r.client.line_within(Duration::from_millis(200)).await {
                if l.starts_with("[Town Crier] The") || l.starts_with("ENDED") {
                    ended_on_telnet = true;
                }
                if !ended_on_telnet {
                    r.took.push(("telnet", l));
                }
            }
            return r;
        }
        assert!(state.is_object(), "{}: {got}", r.name);
        r.took.extend(batch);
        r.took.push(("mcp get_state", got.to_string()));
        if r.playing {
            play(http, &mid, &mut r, &state, &mut told).await;
        }
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    unreachable!()
}

/// What a player does with their brief: ready, a night action on the first target offered (and
/// one growl a night for a wolf, with a word nobody else may read), an opening, a vote.
async fn play(
    http: std::net::SocketAddr,
    mid: &str,
    r: &mut Reader,
    state: &Value,
    told: &mut std::collections::HashSet<(String, u64)>,
) {
    let req = &state["you"]["requiredAction"];
    let (kind, day) = (
        req["type"].as_str().unwrap_or(""),
        state["dayNumber"].as_u64().unwrap_or(0),
    );
    let first = req["allowedTargets"][0].as_str();
    let call = |tool: &str, args: Value| {
        let (tool, token) = (tool.to_owned(), r.token.clone());
        async move { mcp_tool(http, &token, &tool, args).await }
    };
    if state["phase"] == "LOBBY" && told.insert(("ready".into(), 0)) {
        call("et.werewolf.match.ready", json!({ "matchId": mid })).await;
        return;
    }
    if kind == "WOLF_KILL" && told.insert(("growl".into(), day)) {
        r.client
            .send(&format!("growl howl{}x{day} is our word tonight", r.name))
            .await;
    }
    if req["alreadySubmitted"] == true {
        return;
    }
    match (kind, first) {
        ("WOLF_KILL", Some(t)) => {
            call(
                "et.werewolf.match.night.wolf_kill",
                json!({ "matchId": mid, "targetPlayerId": t }),
            )
            .await;
        }
        ("SEER_INSPECT", Some(t)) => {
            call(
                "et.werewolf.match.night.seer_inspect",
                json!({ "matchId": mid, "targetPlayerId": t }),
            )
            .await;
        }
        ("DOCTOR_PROTECT", Some(t)) => {
            call(
                "et.werewolf.match.night.doctor_protect",
                json!({ "matchId": mid, "targetPlayerId": t }),
            )
            .await;
        }
        ("SPEAK_OPENING", _) => {
            call(
                "et.werewolf.match.say_public",
                json!({ "matchId": mid, "text": format!("{} here, nothing to hide.", r.name) }),
            )
            .await;
        }
        ("VOTE", t) => {
            call(
                "et.werewolf.match.vote",
                json!({ "matchId": mid, "targetPlayerId": t, "reason": "first on my list" }),
            )
            .await;
        }
        _ => {}
    }
}

/// Every (player id, name, role) in a finished match's report (the REST answer).
pub(crate) fn roles_of(report: &Value) -> Vec<(String, String, String)> {
    report["report"]["players"]
        .as_array()
        .unwrap_or_else(|| panic!("a report: {report}"))
        .iter()
        .map(|p| {
            (
                p["playerId"].as_str().unwrap().to_owned(),
                p["displayName"].as_str().unwrap().to_owned(),
                p["role"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// What in `body` (read through `face`) the reader may not know. `seat` is the reader's
/// (player id, role) if they play; `roles` is every (player id, name, role).
pub(crate) fn audit(
    seat: Option<(&str, &str)>,
    roles: &[(String, String, String)],
    face: &str,
    body: &str,
) -> Vec<String> {
    let role = seat.map(|s| s.1);
    let is = |r: &str| role == Some(r);
    let mut leaks = Vec::new();
    let mut forbid = |allowed: bool, needle: &str, what: &str| {
        if !allowed && body.contains(needle) {
            leaks.push(format!("{what} (`{needle}`)"));
        }
    };
    // Wolf chat and picks, the seer's visions, the doctor's watch, spoilers: in any face.
    forbid(is("WEREWOLF"), "growls to the pack", "wolf chat");
    for (_, name, _) in roles {
        forbid(is("WEREWOLF"), &format!("howl{name}x"), "a wolf's word");
    }
    let pick = body.contains(" wants ") && body.contains(" tonight.");
    forbid(is("WEREWOLF") || !pick, " tonight.", "a wolf's pick");
    forbid(is("WEREWOLF"), "WOLF_CHAT_MESSAGE", "wolf chat");
    forbid(is("WEREWOLF"), "WOLF_KILL_SELECTED", "a wolf's pick");
    forbid(is("WEREWOLF"), "Your partner is", "the pack");
    forbid(is("SEER"), "Your vision shows", "a seer's vision");
    forbid(is("SEER"), "SEER_RESULT", "a seer's vision");
    forbid(is("DOCTOR"), "You will watch over", "the doctor's watch");
    forbid(is("DOCTOR"), "DOCTOR_PROTECTED", "the doctor's watch");
    forbid(false, "(Spoiler)", "a spoiler");
    forbid(false, "NIGHT_ACTION", "a missed night action");
    forbid(seat.is_none(), "savedByDoctor", "what spectators alone see");
    // Each reader is told only their own card.
    for card in CARDS {
        for article in ["a", "the"] {
            let told = format!("You are {article} {card}");
            let mine = role.is_some_and(|r| r.eq_ignore_ascii_case(card));
            forbid(mine, &told, "a card");
        }
    }
    if face == "telnet" {
        // The table: a living player's row shows a card only to that player, and a wolf's
        // fellow wolf to the wolf, marked as its partner (as the state names it to them).
        for (id, name, theirs) in roles {
            let label = format!("{name} ({id}");
            let own = seat.is_some_and(|s| s.0 == id);
            let partner = is("WEREWOLF") && theirs == "WEREWOLF";
            let row = if partner {
                body.replacen("  Werewolf, your partner", "", 1)
            } else {
                body.to_owned()
            };
            if row.trim_start().starts_with(&label)
                && row.contains("alive")
                && CARDS.iter().any(|c| row.contains(c))
                && !own
            {
                leaks.push(format!("the role of {name}, alive"));
            }
        }
    } else {
        let json = body.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
        let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {body}"));
        walk(&v, seat, &mut leaks);
    }
    leaks
}

/// Roles and secrets in JSON: a living player's `revealedRole` or a `role` of someone else,
/// the wolves known, the seer's history, the night's picks, another's night action in a log
/// (or that they took one).
fn walk(v: &Value, seat: Option<(&str, &str)>, leaks: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            let id = o.get("playerId").and_then(Value::as_str);
            let mine = id.is_some() && id == seat.map(|s| s.0);
            if !mine {
                if o.get("revealedRole").is_some_and(|r| !r.is_null()) && o["alive"] == true {
                    leaks.push(format!("the role of {id:?}, alive"));
                }
                if id.is_some() && o.get("role").is_some_and(|r| !r.is_null()) {
                    leaks.push(format!("the role of {id:?}"));
                }
            }
            let role = seat.map(|s| s.1);
            let nonempty = |k: &str| {
                o.get(k)
                    .and_then(Value::as_array)
                    .is_some_and(|a| !a.is_empty())
            };
            if nonempty("knownWolves") && role != Some("WEREWOLF") {
                leaks.push("the wolves".into());
            }
            if nonempty("seerHistory") && role != Some("SEER") {
                leaks.push("the seer's history".into());
            }
            if o.contains_key("wolfPicks") {
                leaks.push("the night".into());
            }
            // A log entry: {role, action, ...}.
            if let (Some(actor), Some(action)) = (
                o.get("role").and_then(Value::as_str),
                o.get("action").and_then(Value::as_str),
            ) {
                let verb = action.split(' ').next().unwrap_or("");
                let pack = role == Some("WEREWOLF") && matches!(verb, "kill" | "wolfchat");
                let night = matches!(verb, "kill" | "inspect" | "protect" | "wolfchat" | "hidden");
                if night && seat.map(|s| s.0) != Some(actor) && !pack {
                    leaks.push(format!("{actor}'s night action"));
                }
            }
            for x in o.values() {
                walk(x, seat, leaks);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, seat, leaks)),
        _ => {}
    }
}
