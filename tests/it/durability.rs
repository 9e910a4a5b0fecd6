//! A killed server loses nothing it acknowledged: a child `moot` is sent SIGKILL in the middle
//! of a stream of chess moves; after a restart every acknowledged move is in the log, and each
//! session's state is its log replayed (start-up itself refuses to run otherwise).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

use crate::support::{Api, Moot, TestServer, free_port, mcp_tool};

async fn spawn_moot(db: &moot::store::Database, http: SocketAddr) -> Moot {
    crate::support::spawn_moot(db, http, &[]).await
}

/// A legal move for the position in `fen`, chosen by `n`.
fn some_move(fen: &str, n: usize) -> Option<String> {
    let pos: Chess = fen
        .parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap();
    let moves = pos.legal_moves();
    (!moves.is_empty()).then(|| {
        moves[n % moves.len()]
            .to_uci(CastlingMode::Standard)
            .to_string()
    })
}

/// One game under load: its id and its two players.
pub type Game = (String, crate::support::Agent, crate::support::Agent);
/// (session, tick, move) for every 200 the server gave.
pub type Acked = Arc<Mutex<Vec<(String, u64, String)>>>;

/// Starts `n` chess games, each played as fast as its two agents can, until the server stops
/// answering; returns the games, what was acknowledged, and the players.
pub async fn start_load(
    api: &Api,
    n: usize,
) -> (Vec<Game>, Acked, Vec<tokio::task::JoinHandle<()>>) {
    let mut games = Vec::new();
    for _ in 0..n {
        let white = api.agent(None).await;
        let black = api.agent(None).await;
        let id = api
            .session(&white, "chess.v1", &[("white", &white), ("black", &black)])
            .await;
        games.push((id, white, black));
    }
    let acked: Acked = Arc::default();
    let mut players = Vec::new();
    for (g, (id, white, black)) in games.iter().cloned().enumerate() {
        let (api, acked) = (api.clone(), acked.clone());
        players.push(tokio::spawn(async move {
            let mut fen = moot::games::chess::rules::START_FEN.to_owned();
            for tick in 0u64.. {
                let Some(mv) = some_move(&fen, g + tick as usize) else {
                    return;
                };
                let who = if tick % 2 == 0 { &white } else { &black };
                let body = json!({"action": mv, "expected_tick": tick}).to_string();
                let Some((200, v)) = api
                    .try_send(
                        "POST",
                        &format!("/sessions/{id}/actions"),
                        Some(&who.token),
                        Some(&body),
                    )
                    .await
                else {
                    return;
                };
                acked.lock().unwrap().push((id.clone(), tick, mv));
                if v["status"] == "completed" {
                    return;
                }
                fen = v["state"]["fen"].as_str().unwrap().to_owned();
            }
        }));
    }
    (games, acked, players)
}

/// Every acknowledged move is in its session's log, and each state is its log replayed
/// (checked apart from moot, with shakmaty).
pub async fn check_acknowledged(api: &Api, games: &[Game], acked: &[(String, u64, String)]) {
    for (id, white, _) in games {
        let (_, log) = api.get(&format!("/sessions/{id}/log"), &white.token).await;
        let log = log["actions"].as_array().unwrap().clone();
        for (sid, tick, mv) in acked.iter().filter(|(sid, ..)| sid == id) {
            let entry = log
                .get(*tick as usize)
                .unwrap_or_else(|| panic!("session {sid}: acknowledged tick {tick} is missing"));
            assert_eq!(entry["action"], mv.as_str(), "session {sid} tick {tick}");
        }
        let (_, state) = api
            .get(&format!("/sessions/{id}/state"), &white.token)
            .await;
        assert_eq!(state["tick"], log.len(), "session {id}");
        let mut pos = Chess::default();
        for e in &log {
            let m = e["action"]
                .as_str()
                .unwrap()
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos = pos.play(m).unwrap();
        }
        let fen = Fen::from_position(&pos, shakmaty::EnPassantMode::Legal).to_string();
        assert_eq!(state["state"]["fen"], fen, "session {id}");
    }
}

/// 100 sessions played at once (`rest_load`'s shape), SIGKILL in the middle.
#[tokio::test]
async fn sigkill_loses_no_acknowledged_action() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let http: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let mut child = spawn_moot(&db, http).await;
    let api = Api::new(http);
    let (games, acked, players) = start_load(&api, 100).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    for p in players {
        p.await.unwrap();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() > 50,
        "the stream was running: {} moves acknowledged",
        acked.len()
    );
    eprintln!("{} moves acknowledged before SIGKILL", acked.len());

    // The restart replays every session and refuses to start on any mismatch.
    let mut child = spawn_moot(&db, http).await;
    check_acknowledged(&api, &games, &acked).await;
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A game an agent made with `createGame` to wait for another agent was acknowledged: it waits
/// again after a restart, under its id, and no later game takes that id. An identity may keep
/// only so many waiting at once.
#[tokio::test]
async fn a_game_waiting_for_its_second_player_outlives_a_restart() {
    let s = TestServer::start_with(|c| c.sessions_per_agent = 2).await;
    let api = s.api();
    let (ann, bob) = (api.agent(Some("Ann")).await, api.agent(Some("Bob")).await);
    let create = json!({"type": "agent", "color": "white"});
    let made = mcp_tool(s.http, &ann.token, "createGame", create.clone()).await;
    let game = made["structuredContent"]["game_id"].clone();
    assert!(game.is_string(), "{made}");
    mcp_tool(s.http, &ann.token, "createGame", create.clone()).await;
    let third = mcp_tool(s.http, &ann.token, "createGame", create.clone()).await;
    assert_eq!(third["isError"], true, "{third}");
    assert!(
        third
            .to_string()
            .contains("2 games waiting for an opponent"),
        "{third}"
    );

    let db = s.db.clone();
    let dir = s.stop().await;
    let s = TestServer::on_db(&db, |c| c.sessions_per_agent = 2).await;
    // A game made after the restart is not given the waiting one's id.
    let cy = s.api().agent(Some("Cy")).await;
    let other = mcp_tool(s.http, &cy.token, "createGame", create).await;
    assert_ne!(other["structuredContent"]["game_id"], game, "{other}");
    // Bob joins Ann's game: it begins, Ann playing white.
    let joined = mcp_tool(s.http, &bob.token, "joinGame", json!({"game_id": game})).await;
    assert_ne!(joined["isError"], true, "{joined}");
    assert_eq!(
        joined["structuredContent"]["your_color"], "black",
        "{joined}"
    );
    let state = mcp_tool(
        s.http,
        &ann.token,
        "waitForNextTurn",
        json!({"game_id": game}),
    )
    .await;
    assert_eq!(state["structuredContent"]["status"], "your_turn", "{state}");
    // Joined, it waits no more, this run or the next.
    let again = mcp_tool(s.http, &cy.token, "joinGame", json!({"game_id": game})).await;
    assert!(
        again.to_string().contains("already has two players"),
        "{again}"
    );
    s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let again = mcp_tool(s.http, &cy.token, "joinGame", json!({"game_id": game})).await;
    assert!(
        again.to_string().contains("already has two players"),
        "{again}"
    );
    s.stop().await;
    drop(dir);
}

/// A town written before actions were typed (`tests/data/town-before-typed-actions.db`, made
/// by the build of 77fd13c: chess with SAN, a draw offer, a takeback, a resignation and a flag;
/// blackjack, rock-paper-scissors, tic-tac-toe and Connect Four against people and the house;
/// Werewolf practice matches, one finished and one running) starts on today's build (start-up
/// replays every log and refuses a state it does not reach), and every log reads, to each of
/// its players and to a stranger, exactly as that build served it
/// (`town-before-typed-actions.logs.json`). The running match is left out of the comparison:
/// its deadlines go on falling, by the clock, after a restart.
#[tokio::test]
async fn a_town_written_before_actions_were_typed_restores_and_reads_the_same() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("moot.db");
    std::fs::copy(data.join("town-before-typed-actions.db"), &path).unwrap();
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(data.join("town-before-typed-actions.logs.json")).unwrap(),
    )
    .unwrap();
    let db = moot::store::Database::Sqlite(path);
    let server = TestServer::on_db(&db, |_| {}).await;
    let api = server.api();
    let mut read = serde_json::Map::new();
    for name in ["Annie", "Bobby", "Cara"] {
        let mut c = server.client().await;
        c.send(&format!("connect {name} secret123")).await;
        let said = c.command("token").await.join(" ");
        let token = said
            .split(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_' || ch == '-'))
            .find(|w| w.len() >= 30)
            .unwrap_or_else(|| panic!("no token in {said:?}"))
            .to_owned();
        for sid in expected.as_object().unwrap().keys() {
            let (status, body) = api.get(&format!("/sessions/{sid}/log"), &token).await;
            let got = if status == 200 {
                body
            } else {
                json!({ "status": status, "body": body })
            };
            read.entry(sid.clone())
                .or_insert_with(|| json!({}))
                .as_object_mut()
                .unwrap()
                .insert(name.to_owned(), got);
        }
    }
    for (sid, was) in expected.as_object().unwrap() {
        assert_eq!(&read[sid], was, "session {sid}'s log reads otherwise");
    }
    // And every action logged then reads back, in the log's spelling, as the action it was.
    let rows = crate::support::sql_rows(
        &db,
        "SELECT s.template, a.action, s.seed, s.options FROM actions a \
         JOIN sessions s USING (session_id)",
    );
    assert!(rows.len() > 150, "the town holds {} actions", rows.len());
    for row in rows {
        let (template, logged) = (&row[0], &row[1]);
        let t = moot::games::template(template).unwrap();
        let options: serde_json::Value = serde_json::from_str(&row[3]).unwrap();
        let game = (t.new)(row[2].parse::<i64>().unwrap() as u64, &options).unwrap();
        let read = game.read_logged(logged).unwrap();
        assert_eq!(
            &read.to_string(),
            logged,
            "{template} reads `{logged}` otherwise"
        );
    }
    server.stop().await;
}
