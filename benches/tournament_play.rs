//! A Swiss played through the server, as its players play it: N agents register over REST,
//! join a tic-tac-toe Swiss (one minute a move), and each plays the games it is paired in
//! (`GET /tournaments/1/pairing`, then its moves with `POST /sessions/{id}/actions`: X takes
//! the top row while O answers in the middle). Prints how long each round took, from its
//! pairing to its last game's end, the server's pairing and seating of the next round
//! included, and the games played a minute.
//!
//! With `--house 1`, the house's Computer is one of the players (it enters as the event's
//! anchor, and plays its games at once). With `--arena N`, an arena of N agents instead, 10
//! minutes long at `--time-scale 60` (ten seconds): its games a minute, and how long a free
//! player waits for its next game.
//!
//!     cargo bench --bench tournament_play                  # 256 players, 7 rounds
//!     cargo bench --bench tournament_play -- --house 1     # 255 agents and the house
//!     cargo bench --bench tournament_play -- --players 64 --rounds 5
//!     cargo bench --bench tournament_play -- --arena 1000

use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/args.rs"]
mod args;
use args::arg;
#[path = "support/server.rs"]
mod server;

#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
}

impl Api {
    async fn post(&self, path: &str, token: &str, body: Value) -> (u16, Value) {
        let r = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(token)
            .json(&body)
            .send()
            .await
            .expect("the server answers");
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    async fn get(&self, path: &str, token: &str) -> Value {
        self.http
            .get(format!("{}{path}", self.base))
            .bearer_auth(token)
            .send()
            .await
            .expect("the server answers")
            .json()
            .await
            .unwrap_or(Value::Null)
    }
}

/// One player: waits for each pairing and plays it, until the event is over; the games it
/// played, and how long it waited for each after the last.
async fn player(api: Api, token: String, house: bool) -> (u32, Vec<Duration>) {
    let mut played = 0;
    let mut waits = Vec::new();
    let mut free = Instant::now();
    loop {
        let p = api.get("/tournaments/1/pairing", &token).await;
        match p["status"].as_str() {
            Some("playing") => waits.push(free.elapsed()),
            Some("over") | None => return (played, waits),
            _ => {
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        }
        let sid = p["session_id"].as_str().unwrap().to_owned();
        if house {
            // The house may be the opponent, and plays its own moves: each turn reads the
            // state and takes the top row's first free cell (or the first free one).
            loop {
                let st = api.get(&format!("/sessions/{sid}/state"), &token).await;
                if st["status"] == "completed" {
                    break;
                }
                let legal: Vec<&str> = st["legal_actions"]
                    .as_array()
                    .map(|l| l.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let Some(cell) = ["0", "1", "2", "4"]
                    .into_iter()
                    .find(|c| legal.contains(c))
                    .or(legal.first().copied())
                else {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                };
                let body = json!({ "action": cell, "expected_tick": st["tick"] });
                api.post(&format!("/sessions/{sid}/actions"), &token, body)
                    .await;
            }
        } else {
            let mine: &[(u64, u32)] = match p["your_role"].as_str() {
                Some("x") => &[(0, 0), (2, 1), (4, 2)],
                _ => &[(1, 3), (3, 4)],
            };
            for &(tick, cell) in mine {
                // Until the other has moved: a stale tick is refused, and nothing changes.
                loop {
                    let (status, _) = api
                        .post(
                            &format!("/sessions/{sid}/actions"),
                            &token,
                            json!({ "action": cell.to_string(), "expected_tick": tick }),
                        )
                        .await;
                    if status == 200 {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            }
        }
        played += 1;
        // The game is X's at its fifth move; the next pairing comes when the round ends (an
        // arena's, at once if someone else is free).
        loop {
            let p = api.get("/tournaments/1/pairing", &token).await;
            if p["session_id"].as_str() != Some(sid.as_str()) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        free = Instant::now();
    }
}

#[tokio::main]
async fn main() {
    let arena = arg("--arena", 0);
    let players = if arena > 0 {
        arena
    } else {
        arg("--players", 256)
    };
    let rounds = arg("--rounds", 7);
    let house = arena == 0 && arg("--house", 0) > 0;
    let agents = players - usize::from(house);
    // One address makes every player here: each is its own owner, as players from many
    // addresses would be. An arena's ten minutes last ten seconds.
    let scale = if arena > 0 { "60" } else { "1" };
    let s = server::start_in_temp("--http", &["--owner-window", "0s", "--time-scale", scale]);
    let api = Api {
        http: reqwest::Client::new(),
        base: format!("http://{}", s.addr),
    };
    let mut tokens = Vec::new();
    for i in 0..agents {
        let r = api
            .http
            .post(format!("{}/agents", api.base))
            .json(&json!({ "name": format!("P{i:03}") }))
            .send()
            .await
            .unwrap();
        let v: Value = r.json().await.unwrap();
        tokens.push(v["token"].as_str().expect("a token").to_owned());
    }
    let event = if arena > 0 {
        json!({ "game": "tictactoe", "format": "arena", "minutes": 10, "clock": "10m",
                "starts_in": "1h", "name": "Bench" })
    } else {
        json!({ "game": "tictactoe", "format": "swiss", "rounds": rounds, "clock": "1m",
                "starts_in": "1h", "name": "Bench", "house": house })
    };
    let (status, v) = api.post("/tournaments", &tokens[0], event).await;
    assert_eq!(status, 201, "{v}");
    for t in &tokens {
        let (status, v) = api.post("/tournaments/1/join", t, json!({})).await;
        assert_eq!(status, 200, "{v}");
    }
    let tasks: Vec<_> = tokens
        .iter()
        .map(|t| tokio::spawn(player(api.clone(), t.clone(), house)))
        .collect();
    let began = Instant::now();
    let (status, v) = api
        .post("/tournaments/1/start", &tokens[0], json!({}))
        .await;
    assert_eq!(status, 200, "{v}");
    // Each round's end, as the event shows it.
    let mut ends = Vec::new();
    let mut seen = 1;
    loop {
        let t = api.get("/tournaments/1", &tokens[0]).await;
        let rounds_now = t["rounds"].as_array().map_or(0, Vec::len);
        while seen < rounds_now {
            ends.push(began.elapsed());
            seen += 1;
        }
        if t["status"] == "finished" {
            ends.push(began.elapsed());
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let (mut games, mut waits) = (0, Vec::new());
    for t in tasks {
        let (played, waited) = t.await.unwrap();
        games += played;
        waits.extend(waited);
    }
    // Each game twice, once by each agent in it; the house's once, by its opponent.
    let games = if house {
        let t = api.get("/tournaments/1", &tokens[0]).await;
        let played = t["rounds"].as_array().map_or(0, |rs| {
            rs.iter()
                .flat_map(|r| r["games"].as_array().cloned().unwrap_or_default())
                .filter(|g| g["session_id"].is_string())
                .count()
        });
        u32::try_from(played).unwrap_or(u32::MAX)
    } else {
        games / 2
    };
    let total = began.elapsed();
    if arena > 0 {
        waits.sort();
        let at = |p: f64| waits[((waits.len() as f64 - 1.0) * p).round() as usize];
        println!(
            "Arena of {players} agents, 10 minutes at 60× (10 s): {games} games, {:.0} games a minute; \
             a free player's wait for its next game p50 {:.0} ms, p99 {:.0} ms",
            f64::from(games) / total.as_secs_f64() * 60.0,
            at(0.5).as_secs_f64() * 1000.0,
            at(0.99).as_secs_f64() * 1000.0
        );
        server::figure(
            "arena_games_per_minute",
            f64::from(games) / total.as_secs_f64() * 60.0,
            "games/min",
        );
        return;
    }
    let mut prev = Duration::ZERO;
    let mut lasted = Vec::new();
    for e in &ends {
        lasted.push(*e - prev);
        prev = *e;
    }
    let ms: Vec<String> = lasted
        .iter()
        .map(|d| format!("{:.0}", d.as_secs_f64() * 1000.0))
        .collect();
    println!(
        "Swiss of {players} players ({agents} agents{}), {} rounds of tic-tac-toe over REST: rounds of {} ms; {games} games in {:.1} s, {:.0} games a minute",
        if house { " and the house" } else { "" },
        ends.len(),
        ms.join(", "),
        total.as_secs_f64(),
        f64::from(games) / total.as_secs_f64() * 60.0
    );
    server::figure(
        "swiss_games_per_minute",
        f64::from(games) / total.as_secs_f64() * 60.0,
        "games/min",
    );
}
