//! Tournaments for people and agents together, on every face: scheduled on telnet, joined on
//! telnet, MCP and REST, paired by the server round after round, each player told (or, over
//! MCP, woken) as their game begins, the results fed back as games end, the standings with
//! their tie-breaks, the winner announced to the town, and all of it kept through a restart.

use std::time::Duration;

use serde_json::{Value, json};

use crate::consent::telnet_token;
use crate::support::{Agent, Api, Client, TestServer, mcp_tool};

/// How a player of the test acts.
enum Face {
    Telnet(Client),
    Mcp,
    Rest,
}

struct Player {
    name: &'static str,
    token: String,
    face: Face,
}

/// The structured result of an MCP tool call, asserting it was not refused.
fn ok(v: &Value) -> Value {
    assert_eq!(v["isError"], false, "{v}");
    v["structuredContent"].clone()
}

/// `p`'s pairing in event 1, read as their face reads it: MCP's `pairing` tool, REST's route
/// (a telnet player's own token: the same identity).
async fn pairing(s: &TestServer, api: &Api, p: &Player) -> Value {
    match p.face {
        Face::Mcp => ok(&mcp_tool(
            s.http,
            &p.token,
            "pairing",
            json!({"tournament": 1, "wait_seconds": 0}),
        )
        .await),
        _ => {
            let (status, v) = api.get("/tournaments/1/pairing", &p.token).await;
            assert_eq!(status, 200, "{v}");
            v
        }
    }
}

/// `p` marks `cell` (0–8) in session `sid` at `tick`, on their own face.
async fn mark(s: &TestServer, api: &Api, p: &mut Player, sid: &str, cell: u32, tick: u64) {
    match &mut p.face {
        Face::Telnet(c) => {
            let said = c.command(&format!("mark {} #{sid}", cell + 1)).await;
            assert!(
                !said
                    .iter()
                    .any(|l| l.contains("not your turn") || l.contains("Usage")),
                "{}: {said:?}",
                p.name
            );
        }
        Face::Mcp => {
            let v = mcp_tool(
                s.http,
                &p.token,
                "session_act",
                json!({"session_id": sid, "action": cell.to_string(), "expected_tick": tick}),
            )
            .await;
            ok(&v);
        }
        Face::Rest => {
            let (status, v) = api
                .post(
                    &format!("/sessions/{sid}/actions"),
                    &p.token,
                    json!({"action": cell.to_string(), "expected_tick": tick}),
                )
                .await;
            assert_eq!(status, 200, "{}: {v}", p.name);
        }
    }
}

/// Plays session `sid` out: X takes the top row while O answers in the middle one, so X wins.
async fn play_out(
    s: &TestServer,
    api: &Api,
    players: &mut [Player],
    x: usize,
    o: usize,
    sid: &str,
) {
    let moves = [(x, 0), (o, 3), (x, 1), (o, 4), (x, 2)];
    for (tick, (who, cell)) in moves.into_iter().enumerate() {
        mark(s, api, &mut players[who], sid, cell, tick as u64).await;
    }
}

/// The round's games: (session, x's index, o's index), from each player's own pairing.
async fn games_of(
    s: &TestServer,
    api: &Api,
    players: &[Player],
    round: usize,
) -> Vec<(String, usize, usize)> {
    let mut games: Vec<(String, Option<usize>, Option<usize>)> = Vec::new();
    for (i, p) in players.iter().enumerate() {
        let v = pairing(s, api, p).await;
        assert_eq!(v["status"], "playing", "{}: {v}", p.name);
        assert_eq!(v["round"], round, "{}: {v}", p.name);
        let sid = v["session_id"].as_str().unwrap().to_owned();
        let slot = match games.iter().position(|g| g.0 == sid) {
            Some(k) => k,
            None => {
                games.push((sid, None, None));
                games.len() - 1
            }
        };
        match v["your_role"].as_str() {
            Some("x") => games[slot].1 = Some(i),
            Some("o") => games[slot].2 = Some(i),
            other => panic!("{}: role {other:?}", p.name),
        }
    }
    games
        .into_iter()
        .map(|(sid, x, o)| (sid, x.unwrap(), o.unwrap()))
        .collect()
}

#[tokio::test]
async fn a_swiss_pairs_people_and_agents_by_round_and_names_its_winner_on_every_face() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let api = s.api();
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    let mut eve = s.player("Eve").await;
    let (cyd, dee): (Agent, Agent) = (api.agent(Some("Cyd")).await, api.agent(Some("Dee")).await);

    // Ann schedules a Swiss on telnet; the town hears of it, with whom it admits.
    let said = ann
        .command("schedule tictactoe swiss 2 clock 1m in 1h called Noughts cup")
        .await;
    assert!(
        said.iter().any(|l| l.contains(
            "You schedule tournament #1 Noughts cup: tictactoe, Swiss, 2 rounds, casual, open to people and agents"
        )),
        "{said:?}"
    );
    eve.expect("`join tournament 1`").await;
    // A second player's event admits people only, and says so before anyone joins.
    let said = bob
        .command("schedule connect4 roundrobin clock 1m people only")
        .await;
    assert!(said.iter().any(|l| l.contains("#2")), "{said:?}");
    let refused = mcp_tool(s.http, &cyd.token, "join", json!({"tournament": 2})).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        refused
            .to_string()
            .contains("open to people only (no agents)"),
        "{refused}"
    );
    // A player runs one event at a time; a bad one changes nothing and says why.
    let said = bob.command("schedule chess swiss 3 clock 5+3").await;
    assert!(
        said.iter()
            .any(|l| l.contains("You already organise tournament #2")),
        "{said:?}"
    );
    let said = eve.command("schedule chess swiss 3").await;
    assert!(
        said.iter().any(|l| l.starts_with("Usage: schedule")),
        "{said:?}"
    );
    let said = eve.command("schedule blackjack swiss 3 clock 1m").await;
    assert!(
        said.iter().any(|l| l.contains("not a game for two")),
        "{said:?}"
    );

    // The list, to anyone over REST, says whom each admits.
    let (status, v) = api.send("GET", "/tournaments", None, None).await;
    assert_eq!(status, 200, "{v}");
    let listed = v["tournaments"].as_array().unwrap();
    assert_eq!(listed.len(), 2, "{v}");
    let two = listed.iter().find(|t| t["id"] == 2).unwrap();
    assert_eq!(
        two["field"],
        json!({"people": true, "agents": false, "house": false})
    );
    assert_eq!(two["open_to"], "people only (no agents)");

    // Four join: two on telnet, one over MCP, one over REST.
    for c in [&mut ann, &mut bob] {
        let said = c.command("join tournament 1").await;
        assert!(
            said.iter().any(|l| l.contains("You join tournament #1")),
            "{said:?}"
        );
    }
    let joined = ok(&mcp_tool(s.http, &cyd.token, "join", json!({"tournament": 1})).await);
    assert_eq!(joined["status"], "waiting", "{joined}");
    let (status, v) = api.post("/tournaments/1/join", &dee.token, json!({})).await;
    assert_eq!(status, 200, "{v}");
    let (status, v) = api.post("/tournaments/1/join", &dee.token, json!({})).await;
    assert_eq!(status, 409, "twice: {v}");
    // An agent of Ann's (made with her token) speaks for her: it cannot enter beside her.
    let ann_token = telnet_token(&mut ann).await;
    let (status, v) = api
        .send(
            "POST",
            "/agents",
            Some(&ann_token),
            Some(r#"{"name": "AnnBot"}"#),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let annbot = v["token"].as_str().unwrap().to_owned();
    let (status, v) = api.post("/tournaments/1/join", &annbot, json!({})).await;
    assert_eq!(status, 409, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Ann is in tournament #1 already, and speaks for the same player as you"),
        "{v}"
    );
    // Bad shapes are refused with their reason, and change nothing.
    for (args, why) in [
        (
            json!({"game": "chess", "format": "swiss", "rounds": 0, "clock": "5+3"}),
            "1 to 15 rounds",
        ),
        (
            json!({"game": "chess", "format": "arena", "minutes": 5000, "clock": "5+3"}),
            "1 to 1440 minutes",
        ),
        (
            json!({"game": "chess", "format": "arena", "rounds": 3, "minutes": 5, "clock": "5+3"}),
            "no Swiss",
        ),
        (
            json!({"game": "tictactoe", "format": "round_robin", "clock": "5+3"}),
            "cannot be played with that clock",
        ),
    ] {
        let (status, v) = api.post("/tournaments", &dee.token, args).await;
        assert_eq!(status, 400, "{v}");
        assert!(
            v["error"]["message"].as_str().unwrap().contains(why),
            "{why}: {v}"
        );
    }
    // Nothing to play before it starts: the long poll waits, then says so.
    let waited = ok(&mcp_tool(
        s.http,
        &cyd.token,
        "pairing",
        json!({"tournament": 1, "wait_seconds": 1}),
    )
    .await);
    assert_eq!(waited["status"], "waiting", "{waited}");

    // Only its organiser starts it early.
    let said = bob.command("start tournament 1").await;
    assert!(said.iter().any(|l| l.contains("Only Ann")), "{said:?}");
    let bob_token = telnet_token(&mut bob).await;
    let (heard, said) = ann.command_hearing("start tournament 1").await;
    assert!(
        said.iter().any(|l| l.contains("Tournament #1 begins")),
        "{said:?}"
    );
    // Each telnet player is told their game as it begins (Ann in her command's output, after
    // its answer).
    assert!(
        said.iter()
            .any(|l| l.contains("Tournament #1, round 1: your game against")),
        "{heard:?} {said:?}"
    );
    bob.expect("Tournament #1, round 1: your game against")
        .await;
    let mut players = vec![
        Player {
            name: "Ann",
            token: ann_token,
            face: Face::Telnet(ann),
        },
        Player {
            name: "Bob",
            token: bob_token,
            face: Face::Telnet(bob),
        },
        Player {
            name: "Cyd",
            token: cyd.token.clone(),
            face: Face::Mcp,
        },
        Player {
            name: "Dee",
            token: dee.token.clone(),
            face: Face::Rest,
        },
    ];

    // Round 1: two games, each player in one; the telnet players were told theirs.
    let round1 = games_of(&s, &api, &players, 1).await;
    assert_eq!(round1.len(), 2, "{round1:?}");
    // Cyd's game first; then Cyd waits over MCP for the next round, which comes only when the
    // other game ends.
    let cyd_game = round1.iter().position(|g| g.1 == 2 || g.2 == 2).unwrap();
    let (sid, x, o) = round1[cyd_game].clone();
    play_out(&s, &api, &mut players, x, o, &sid).await;
    let poll = tokio::spawn({
        let (http, token) = (s.http, cyd.token.clone());
        async move { mcp_tool(http, &token, "pairing", json!({"tournament": 1})).await }
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!poll.is_finished(), "the poll waits for the next round");
    let (sid, x, o) = round1[1 - cyd_game].clone();
    play_out(&s, &api, &mut players, x, o, &sid).await;
    let woke = ok(&tokio::time::timeout(Duration::from_secs(10), poll)
        .await
        .expect("the poll answers when round 2 is paired")
        .unwrap());
    assert_eq!(woke["status"], "playing", "{woke}");
    assert_eq!(woke["round"], 2, "{woke}");

    // Round 2: the two winners meet, and the two losers; nobody meets anyone twice.
    let round2 = games_of(&s, &api, &players, 2).await;
    let winners: Vec<usize> = round1.iter().map(|g| g.1).collect();
    for (_, x, o) in &round2 {
        assert_eq!(
            winners.contains(x),
            winners.contains(o),
            "{round1:?} then {round2:?}"
        );
        assert!(
            !round1
                .iter()
                .any(|g| (g.1 == *x && g.2 == *o) || (g.1 == *o && g.2 == *x)),
            "a rematch: {round1:?} then {round2:?}"
        );
    }
    let (top_x, ..) = round2
        .iter()
        .find(|g| winners.contains(&g.1))
        .cloned()
        .map(|g| (g.1, g.2))
        .unwrap();
    for (sid, x, o) in round2.clone() {
        play_out(&s, &api, &mut players, x, o, &sid).await;
    }
    let champion = players[top_x].name;

    // Over: the town hears who won (Eve, who never joined, too).
    let over = format!("is over: {champion} wins with 2 points of 2. ***");
    eve.expect(&over).await;
    let (status, v) = api.send("GET", "/tournaments/1", None, None).await;
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["status"], "finished", "{v}");
    assert_eq!(v["standings"][0]["name"], champion, "{v}");
    assert_eq!(v["standings"][0]["score"], 2.0, "{v}");
    assert_eq!(v["standings"][3]["score"], 0.0, "{v}");
    // The two on 1 point are told apart by Buchholz: who met the stronger field.
    assert_eq!(v["standings"][1]["score"], 1.0, "{v}");
    assert!(
        v["standings"][1]["buchholz"].as_f64() >= v["standings"][2]["buchholz"].as_f64(),
        "{v}"
    );
    assert_eq!(v["rounds"].as_array().unwrap().len(), 2, "{v}");
    assert!(
        v["rounds"][0]["games"][0]["page"]
            .as_str()
            .unwrap()
            .starts_with("/tictactoe/"),
        "each game links to its page: {v}"
    );
    // Telnet shows the same standings; the web page draws itself from the same verb.
    let said = eve.command("tournament 1").await;
    assert!(
        said.iter()
            .any(|l| l.contains("Result: ") && l.contains(champion)),
        "{said:?}"
    );
    assert!(said.iter().any(|l| l.contains("Buchholz")), "{said:?}");
    let (status, _, html) = api.text("/tournament/1").await;
    assert_eq!(status, 200);
    assert!(html.contains("/tournament/data"), "{html}");
    let (status, page) = api.send("GET", "/tournament/data?id=1", None, None).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["standings"], v["standings"], "{page}");

    // A restart keeps it all.
    drop(players);
    s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let (status, again) = s.api().send("GET", "/tournaments/1", None, None).await;
    assert_eq!(status, 200);
    assert_eq!(again, v, "the event after a restart");
    s.stop().await;
}

/// An arena with the house in its field, at `--time-scale`: whoever is free is paired each
/// second; a player who never moves loses by forfeit and is paired no more (told why, and how
/// to come back); pairing stops at the arena's end, and the last game decides the winner.
#[tokio::test]
async fn an_arena_pairs_whoever_is_free_forfeits_the_absent_and_ends_on_time() {
    // 20 times the wall: an arena of 2 minutes lasts 6 seconds, 30 s a move 1.5 seconds.
    let s = TestServer::start_with(|c| c.time_scale = 20.0).await;
    let api = s.api();
    let mut ann = s.player("Ann").await;
    let cyd = api.agent(Some("Cyd")).await;
    let said = ann
        .command("schedule tictactoe arena 2 clock 30s house in 1h")
        .await;
    assert!(
        said.iter().any(|l| l.contains(
            "arena, 2 minutes, casual, open to people and agents, with the house's Computer"
        )),
        "{said:?}"
    );
    // A rated event cannot take the house where the game has no fixed rating for it.
    let said = ann
        .command("schedule connect4 swiss 3 clock 30s rated house")
        .await;
    assert!(
        said.iter().any(|l| l.contains("cannot take the house")),
        "{said:?}"
    );
    ann.command("join tournament 1").await;
    ok(&mcp_tool(s.http, &cyd.token, "join", json!({"tournament": 1})).await);
    let (_, said) = ann.command_hearing("start tournament 1").await;
    assert!(said.iter().any(|l| l.contains("begins")), "{said:?}");

    // Nobody but the house moves: Ann and Cyd each lose their first game by forfeit and are
    // withdrawn; Ann is told so on telnet.
    ann.expect(
        "so it is lost by forfeit and you are paired no more; `join tournament 1` brings you back",
    )
    .await;
    // The arena ends at its time; the town hears who won.
    let over = ann.expect("*** Tournament #1").await;
    assert!(
        over.last().unwrap().contains("is over: Computer wins with"),
        "{over:?}"
    );
    let (_, v) = api.send("GET", "/tournaments/1", None, None).await;
    assert_eq!(v["status"], "finished", "{v}");
    assert_eq!(v["format"], "arena", "{v}");
    let standings = v["standings"].as_array().unwrap();
    assert_eq!(standings[0]["kind"], "house", "{v}");
    for s in &standings[1..] {
        assert_eq!(s["withdrawn"], true, "{v}");
        assert_eq!(s["score"], 0.0, "{v}");
    }
    assert!(
        v["rounds"].as_array().unwrap().iter().all(|r| r["games"]
            .as_array()
            .unwrap()
            .iter()
            .all(|g| g["result"].as_str().unwrap().ends_with("forfeit"))),
        "{v}"
    );
    // Cyd, over MCP, finds it over with the result.
    let p = ok(&mcp_tool(s.http, &cyd.token, "pairing", json!({"tournament": 1})).await);
    assert_eq!(p["status"], "over", "{p}");
    assert!(
        p["result"].as_str().unwrap().contains("Computer wins"),
        "{p}"
    );
}

/// Rock-paper-scissors plays in a tournament once it has a time to choose: whoever has not
/// chosen when it runs out loses (by forfeit, in an event) and the event goes on to its end.
#[tokio::test]
async fn a_rock_paper_scissors_swiss_ends_when_the_time_to_choose_runs_out() {
    // 50 times the wall: 10 seconds to choose is a fifth of one.
    let s = TestServer::start_with(|c| c.time_scale = 50.0).await;
    let api = s.api();
    let (ada, bo) = (api.agent(Some("Ada")).await, api.agent(Some("Bo")).await);
    let (status, v) = api
        .post(
            "/tournaments",
            &ada.token,
            json!({"game": "rps", "format": "swiss", "rounds": 1, "clock": "10s",
                   "starts_in": "1h"}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    for p in [&ada, &bo] {
        let (status, v) = api.post("/tournaments/1/join", &p.token, json!({})).await;
        assert_eq!(status, 200, "{v}");
    }
    let (status, v) = api
        .post("/tournaments/1/start", &ada.token, json!({}))
        .await;
    assert_eq!(status, 200, "{v}");
    let (_, p) = api.get("/tournaments/1/pairing", &ada.token).await;
    let sid = p["session_id"].as_str().unwrap_or_else(|| panic!("{p}"));
    let (status, v) = api
        .post(
            &format!("/sessions/{sid}/actions"),
            &ada.token,
            json!({"action": "rock"}),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    // Bo never chooses.
    let v = loop {
        let (_, v) = api.send("GET", "/tournaments/1", None, None).await;
        if v["status"] == "finished" {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(v["standings"][0]["name"], "Ada", "{v}");
    assert_eq!(v["standings"][0]["score"], 1.0, "{v}");
    assert!(
        v["rounds"][0]["games"][0]["result"]
            .as_str()
            .unwrap()
            .ends_with("forfeit"),
        "{v}"
    );
    let (_, st) = api.get(&format!("/sessions/{sid}/state"), &bo.token).await;
    assert_eq!(st["state"]["result"], "player_1_wins", "{st}");
    assert_eq!(
        st["state"]["choices"]["player_1"], "rock",
        "shown once over: {st}"
    );
}
