//! `moot arena`: a series played by the real binary against a real server, as agents whose
//! tokens its spec names, while those agents play their games over REST; its report read, held
//! against the stored logs by `moot arena check`, caught when altered, and played again the
//! same way from the same seed.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Agent, Api, TestServer};

const MOOT: &str = env!("CARGO_BIN_EXE_moot");

/// An agent that plays the first legal action of every game of its that waits for it.
fn autoplay(api: Api, me: Agent) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let (_, list) = api.get("/sessions", &me.token).await;
            for s in list["sessions"].as_array().into_iter().flatten() {
                if s["status"] != "active" {
                    continue;
                }
                let sid = s["session_id"].as_str().unwrap();
                let (_, st) = api.get(&format!("/sessions/{sid}/state"), &me.token).await;
                if let Some(first) = st["legal_actions"].as_array().and_then(|l| l.first()) {
                    api.post(
                        &format!("/sessions/{sid}/actions"),
                        &me.token,
                        json!({"action": first, "expected_tick": st["tick"]}),
                    )
                    .await;
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
}

/// Runs `moot` with `args` (and `env`), returning whether it succeeded, its stdout and stderr.
async fn moot(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = tokio::process::Command::new(MOOT)
        .args(args)
        .envs(env.iter().copied())
        .output()
        .await
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `moot arena check REPORT --db DB`: whether it held, and what it said.
async fn check(report: &Path, db: &str) -> (bool, String, String) {
    moot(
        &["arena", "check", report.to_str().unwrap(), "--db", db],
        &[],
    )
    .await
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn a_series_is_played_from_both_sides_reproducibly_and_held_against_the_stored_logs() {
    let s = TestServer::start().await;
    let api = s.api();
    let alpha = api.agent(Some("Alpha")).await;
    let beta = api.agent(Some("Beta")).await;
    let players = [
        autoplay(api.clone(), alpha.clone()),
        autoplay(api.clone(), beta.clone()),
    ];
    let dir = tempfile::tempdir().unwrap();
    let server = format!("http://{}", s.http);
    let db = s.db.address();

    // A chosen deal is never rated, and nobody sees it before the end.
    let (status, v) = api
        .post(
            "/sessions",
            &alpha.token,
            json!({"template": "tictactoe.v1", "participants": {"x": alpha.id, "o": beta.id},
                   "options": {"deal": 4242424242u64, "rated": true}}),
        )
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(v.to_string().contains("cannot be rated"), "{v}");
    let (status, v) = api
        .post(
            "/sessions",
            &alpha.token,
            json!({"template": "tictactoe.v1", "participants": {"x": alpha.id, "o": beta.id},
                   "options": {"deal": 4242424242u64}}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let sid = v["session_id"].as_str().unwrap().to_owned();
    for path in [format!("/sessions/{sid}/state"), "/sessions".into()] {
        let (_, seen) = api.get(&path, &beta.token).await;
        assert!(!seen.to_string().contains("4242424242"), "{path}: {seen}");
    }
    // What the invitee is told: that the deal was chosen (never the deal).
    let (_, seen) = api
        .get(&format!("/sessions/{sid}/state"), &beta.token)
        .await;
    assert_eq!(seen["state"]["invitation"]["dealt"], true, "{seen}");
    // A game that keeps a record of every game (luck's) takes no chosen deal at all.
    let (status, v) = api
        .post(
            "/sessions",
            &alpha.token,
            json!({"template": "rps.v1",
                   "participants": {"player_1": alpha.id, "player_2": "computer"},
                   "options": {"deal": 1}}),
        )
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(v.to_string().contains("keeps a record"), "{v}");
    let (status, _) = api
        .post(&format!("/sessions/{sid}/decline"), &beta.token, json!({}))
        .await;
    assert_eq!(status, 200);

    // Tic-tac-toe, two deals, each from both sides; Beta's token from the environment.
    let spec = dir.path().join("ttt.toml");
    std::fs::write(
        &spec,
        format!(
            "server = \"{server}\"\ngame = \"tictactoe.v1\"\ndeals = 2\nseed = 7\n\
             [[agent]]\nname = \"alpha-v1\"\ntoken = \"{}\"\n\
             [[agent]]\nname = \"beta-v1\"\ntoken_env = \"BETA_TOKEN\"\n",
            alpha.token
        ),
    )
    .unwrap();
    let out = dir.path().join("ttt");
    let (ok, _, err) = moot(
        &[
            "arena",
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[("BETA_TOKEN", &beta.token)],
    )
    .await;
    assert!(ok, "{err}");
    assert!(err.contains("game 4/4"), "a progress line a game: {err}");
    let report = read(&out.join("report.json"));
    assert_eq!(report["complete"], true, "{report}");
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 4, "{report}");
    for (i, g) in games.iter().enumerate() {
        let deal_index = i as u32 / 2;
        assert_eq!(g["deal"], moot::arena::spec::deal_of(7, deal_index), "{g}");
        // Its log says how it ended once it is over, and never the seed (`moot arena check`
        // reads that from the store, below).
        let (_, log) = api
            .get(
                &format!("/sessions/{}/log", g["session_id"].as_str().unwrap()),
                &alpha.token,
            )
            .await;
        assert_eq!(log["ending"]["scores"], g["scores"], "{log}");
        assert!(!log.to_string().contains(&g["deal"].to_string()), "{log}");
        // Both playing the first free cell, X wins on the diagonal 2-4-6 at the seventh mark.
        assert_eq!(g["actions"], 7, "{g}");
        assert_eq!(g["scores"], json!({"x": 1.0, "o": 0.0}), "{g}");
        let x_is_alpha = g["roles"]["x"] == alpha.id.as_str();
        assert_eq!(
            x_is_alpha,
            i % 2 == 0,
            "the second of each pair swaps the sides: {g}"
        );
        if i % 2 == 1 {
            assert_eq!(g["mirror_of"], i, "{g}");
            assert_eq!(g["roles"]["x"], games[i - 1]["roles"]["o"], "{g}");
        }
    }
    for st in report["standings"].as_array().unwrap() {
        assert_eq!(
            (st["games"].as_u64(), st["points"].as_f64()),
            (Some(4), Some(2.0)),
            "{st}"
        );
        assert_eq!(
            st["mirrored_split"], 2,
            "each deal split from both sides: {st}"
        );
    }
    let names: Vec<&str> = report["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["agent_id"].as_str().unwrap())
        .collect();
    assert_eq!(names, [alpha.id.as_str(), beta.id.as_str()]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("<h2>Standings</h2>") && html.contains("beta-v1"),
        "{html}"
    );
    assert!(!html.contains(&alpha.token) && !report.to_string().contains(&alpha.token));

    // Held against the stored logs: it matches; altered, it does not, and says where.
    let report_path = out.join("report.json");
    let (ok, said, err) = check(&report_path, &db).await;
    assert!(ok, "{err}");
    assert!(
        said.contains("All 4 games of the report match the stored logs"),
        "{said}"
    );
    let mut forged = report.clone();
    forged["games"][2]["scores"] = json!({"x": 0.0, "o": 1.0});
    forged["standings"] = json!([]);
    let forged_path = dir.path().join("forged.json");
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    let (ok, _, err) = check(&forged_path, &db).await;
    assert!(!ok);
    assert!(
        err.contains("game 3 (session") && err.contains("its log scores"),
        "{err}"
    );
    assert!(
        err.contains("the standings are not what its games make"),
        "{err}"
    );
    // A report that leaves out a game it lost and counts another twice is not the series.
    let mut forged = report.clone();
    let games_mut = forged["games"].as_array_mut().unwrap();
    let mut twice = games_mut[2].clone();
    twice["n"] = games_mut[3]["n"].clone();
    games_mut[3] = twice;
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    let (ok, _, err) = check(&forged_path, &db).await;
    assert!(!ok);
    assert!(err.contains("is in the report twice"), "{err}");
    assert!(err.contains("game 4 is not the planned deal"), "{err}");
    let mut forged = report.clone();
    forged["games"].as_array_mut().unwrap().pop();
    std::fs::write(&forged_path, forged.to_string()).unwrap();
    let (ok, _, err) = check(&forged_path, &db).await;
    assert!(
        !ok && err.contains("complete with 3 of the 4 planned games"),
        "{err}"
    );

    // Against the house: the computer's choices come from the deal, so the same spec plays the
    // same series again, action for action, in new sessions.
    let spec = dir.path().join("house.toml");
    std::fs::write(
        &spec,
        format!(
            "server = \"{server}\"\ngame = \"tictactoe.v1\"\ndeals = 3\nseed = 11\nparallel = 2\n\
             [[agent]]\nname = \"alpha\"\ntoken = \"{}\"\n\
             [[agent]]\nname = \"house\"\nhouse = \"computer\"\n",
            alpha.token
        ),
    )
    .unwrap();
    let mut runs = Vec::new();
    for run in ["house1", "house2"] {
        let out = dir.path().join(run);
        let (ok, _, err) = moot(
            &[
                "arena",
                "run",
                spec.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        )
        .await;
        assert!(ok, "{err}");
        runs.push(read(&out.join("report.json")));
    }
    let digests = |r: &Value| -> Vec<Value> {
        r["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["log_sha256"].clone())
            .collect()
    };
    let sessions = |r: &Value| -> Vec<Value> {
        r["games"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["session_id"].clone())
            .collect()
    };
    assert_eq!(runs[0]["games"].as_array().unwrap().len(), 6);
    assert_eq!(
        digests(&runs[0]),
        digests(&runs[1]),
        "the same seed, the same series"
    );
    assert_ne!(sessions(&runs[0]), sessions(&runs[1]));
    assert_eq!(runs[0]["standings"], runs[1]["standings"]);
    let (ok, said, err) = check(&dir.path().join("house2/report.json"), &db).await;
    assert!(ok && said.contains("All 6 games"), "{said}{err}");

    // A lichess bot (berserk, on the Bot API, its token a moot token) in a chess series against
    // the house's Computer: it finds each game on its event stream and plays it out.
    let berta = api.agent(Some("Berta")).await;
    let bot = tokio::spawn({
        let (base, token) = (server.clone(), berta.token.clone());
        async move {
            crate::support::run_python("clients/berserk_bot.py", &[&base, &token, "serve", "2"])
                .await
        }
    });
    let chess_spec = dir.path().join("chess.toml");
    std::fs::write(
        &chess_spec,
        format!(
            "server = \"{server}\"\ngame = \"chess.v1\"\ndeals = 1\nseed = 3\n\
             [options]\nclock = \"10+0\"\ncomputer_level = 1\n\
             [[agent]]\nname = \"berta-bot\"\ntoken = \"{}\"\n\
             [[agent]]\nname = \"house\"\nhouse = \"computer\"\n",
            berta.token
        ),
    )
    .unwrap();
    let out = dir.path().join("chess");
    let (ok, _, err) = moot(
        &[
            "arena",
            "run",
            chess_spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert!(ok, "{err}");
    let report = read(&out.join("report.json"));
    let played = tokio::time::timeout(Duration::from_secs(120), bot)
        .await
        .expect("the bot plays both games")
        .unwrap();
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 2, "{report}");
    for (g, seen) in games.iter().zip(played["played"].as_array().unwrap()) {
        assert_eq!(
            g["session_id"], seen["game"],
            "the bot played the series' games: {played}"
        );
        assert_eq!(g["actions"], seen["plies"], "{g} {seen}");
        let points: f64 = g["scores"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_f64().unwrap())
            .sum();
        assert_eq!(points, 1.0, "{g}");
    }
    assert_eq!(games[0]["roles"]["white"], berta.id.as_str(), "{report}");
    assert_eq!(games[1]["roles"]["black"], berta.id.as_str(), "{report}");
    let (ok, said, err) = check(&out.join("report.json"), &db).await;
    assert!(ok && said.contains("All 2 games"), "{said}{err}");

    // A spec that names a token the server does not know stops before any game, saying whose.
    std::fs::write(
        &spec,
        std::fs::read_to_string(&spec)
            .unwrap()
            .replace(&alpha.token, "nope"),
    )
    .unwrap();
    let (ok, _, err) = moot(
        &[
            "arena",
            "run",
            spec.to_str().unwrap(),
            "--out",
            dir.path().join("bad").to_str().unwrap(),
        ],
        &[],
    )
    .await;
    assert!(
        !ok && err.contains("agent `alpha`") && err.contains("refused the token"),
        "{err}"
    );
    for p in players {
        p.abort();
    }
}
