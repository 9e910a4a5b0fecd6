//! Ratings that cannot be bought: identities of one owner never rate each other, a pair of
//! owners' games move ratings only for the first few a day, the house is a fixed anchor or
//! casual (and grants no retry of a rated game), every rated game has a time limit, and the
//! leaderboards list only established ratings.

use std::net::IpAddr;

use serde_json::json;

use crate::support::{Agent, Api, TestServer};

/// A server whose identities made from one address within a day are one owner's (the
/// default; the other tests turn it off, since all their identities come from 127.0.0.1).
async fn with_owners() -> TestServer {
    TestServer::start_with(|c| c.owner_window = moot::config::Config::defaults().owner_window).await
}

fn from(s: &TestServer, ip: &str) -> Api {
    Api::from_address(s.http, ip.parse::<IpAddr>().unwrap())
}

/// `loser` (white) asks `winner` to a rated one-minute game, which `winner` accepts, and
/// resigns it.
async fn resigns_to(api: &Api, loser: &Agent, winner: &Agent) {
    let (status, v) = api
        .post(
            "/sessions",
            &loser.token,
            json!({"template": "chess.v1", "participants": {"white": loser.id, "black": winner.id},
                   "options": {"clock": "1+0", "rated": true}}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let (status, v) = api
        .post(&format!("/sessions/{id}/accept"), &winner.token, json!({}))
        .await;
    assert_eq!((status, v["status"].as_str()), (200, Some("active")), "{v}");
    let (status, v) = api
        .post(
            &format!("/sessions/{id}/actions"),
            &loser.token,
            json!({"action": "resign", "expected_tick": 0}),
        )
        .await;
    assert_eq!(
        (status, v["status"].as_str()),
        (200, Some("completed")),
        "{v}"
    );
}

/// `name`'s games and rating on the bullet chess board (none: no standing there).
async fn bullet(api: &Api, name: &str) -> Option<(u64, f64)> {
    crate::support::standing_on(api, name, "chess/bullet")
        .await
        .map(|s| (s["games"].as_u64().unwrap(), s["rating"].as_f64().unwrap()))
}

#[tokio::test]
async fn alts_from_one_address_buy_no_rating_and_a_pair_of_owners_only_a_few_games_a_day() {
    let s = with_owners().await;
    // The probe: twenty-five fresh identities from the farmer's address resign to the
    // farmer's account, made from the same address.
    let farm = from(&s, "127.0.0.2");
    let main = farm.agent(Some("Farmer")).await;
    for i in 0..25 {
        let alt = farm.agent(Some(&format!("Alt{i}"))).await;
        resigns_to(&farm, &alt, &main).await;
    }
    assert_eq!(
        bullet(&farm, "Farmer").await,
        None,
        "one owner's games move nothing"
    );
    assert_eq!(bullet(&farm, "Alt0").await, None);

    // From another address the same farm is another owner: only the first few games of the
    // day between the two owners count, whichever of the alts plays.
    let other = from(&s, "127.0.0.3");
    let target = other.agent(Some("Target")).await;
    for i in 0..10 {
        let alt = farm.agent(Some(&format!("Bot{i}"))).await;
        resigns_to(&farm, &alt, &target).await;
    }
    let (games, rating) = bullet(&farm, "Target").await.expect("rated");
    assert_eq!(
        games,
        u64::from(moot::ratings::PAIR_LIMIT),
        "only the day's first few count"
    );
    assert!(rating > 1500.0);
    // Someone from yet another address is a pair of their own.
    let third = from(&s, "127.0.0.4").agent(Some("Third")).await;
    resigns_to(&other, &third, &target).await;
    assert_eq!(bullet(&farm, "Target").await.unwrap().0, games + 1);
    s.stop().await;
}

#[tokio::test]
async fn the_house_is_an_anchor_or_casual_and_grants_no_retry_of_a_rated_game() {
    let s = TestServer::start().await;
    let api = s.api();
    let ada = api.agent(Some("Ada")).await;
    let refused = |template: &str, parts: serde_json::Value, options: serde_json::Value| {
        let (api, token) = (&api, ada.token.clone());
        let body = json!({"template": template, "participants": parts, "options": options});
        async move { api.post("/sessions", &token, body).await }
    };
    // A Werewolf bot playing chess at a computer level, tic-tac-toe and Connect Four against
    // the house: none has a fixed rating, so none is rated.
    for (template, parts, options) in [
        (
            "chess.v1",
            json!({"white": ada.id, "black": "bot-1"}),
            json!({"computer_level": 1, "clock": "5+0", "rated": true}),
        ),
        (
            "connect4.v1",
            json!({"red": ada.id, "yellow": "computer"}),
            json!({"rated": true}),
        ),
    ] {
        let (status, v) = refused(template, parts, options).await;
        assert_eq!(status, 400, "{v}");
        let m = v["error"]["message"].as_str().unwrap();
        assert!(m.contains("is casual") || m.contains("time limit"), "{v}");
    }
    let (status, v) = refused(
        "chess.v1",
        json!({"white": ada.id, "black": "bot-1"}),
        json!({"computer_level": 5, "clock": "5+0", "rated": true}),
    )
    .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("against Bot-Abel is casual"),
        "{v}"
    );

    // A rated game against the Computer's anchored level: a takeback is refused at once.
    let play = |id: String, tick: u64, action: &str| {
        let (api, token) = (&api, ada.token.clone());
        let body = json!({"action": action, "expected_tick": tick});
        async move {
            api.post(&format!("/sessions/{id}/actions"), &token, body)
                .await
        }
    };
    for (rated, answer) in [(true, "decline_takeback"), (false, "accept_takeback")] {
        let (status, v) = refused(
            "chess.v1",
            json!({"white": ada.id, "black": "computer"}),
            json!({"computer_level": 5, "clock": "5+0", "rated": rated}),
        )
        .await;
        assert_eq!((status, v["status"].as_str()), (201, Some("active")), "{v}");
        let id = v["session_id"].as_str().unwrap().to_owned();
        let (status, v) = play(id.clone(), 0, "e2e4").await;
        assert_eq!(status, 200, "{v}");
        // The computer answers by itself, off the request.
        let mut tick = 1;
        for _ in 0..200 {
            let (_, v) = api.get(&format!("/sessions/{id}/state"), &ada.token).await;
            tick = v["tick"].as_u64().unwrap();
            if tick >= 2 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let (status, v) = play(id.clone(), tick, "request_takeback").await;
        assert_eq!(status, 200, "{v}");
        let mut log = json!(null);
        for _ in 0..200 {
            let (_, v) = api.get(&format!("/sessions/{id}/log"), &ada.token).await;
            log = v["actions"].clone();
            if log.as_array().unwrap().len() > 3 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert_eq!(log[3]["action"], answer, "rated {rated}: {log}");
    }
    s.stop().await;
}

#[tokio::test]
async fn a_rated_game_needs_a_time_limit_and_leaderboards_list_only_established_ratings() {
    let s = TestServer::start().await;
    let api = s.api();
    let (ada, bea) = (api.agent(Some("Ada")).await, api.agent(Some("Bea")).await);
    let (status, v) = api
        .post(
            "/sessions",
            &ada.token,
            json!({"template": "chess.v1", "participants": {"white": ada.id, "black": bea.id},
                   "options": {"rated": true}}),
        )
        .await;
    assert_eq!(status, 400, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("needs a time limit"),
        "{v}"
    );
    // One rated game: both ratings are provisional, so the leaderboard lists nobody and says
    // whom it leaves out.
    resigns_to(&api, &ada, &bea).await;
    let (status, v) = api.send("GET", "/leaderboards/chess", None, None).await;
    assert_eq!(status, 200, "{v}");
    let board = &v["boards"][0];
    assert_eq!(board["board"], "chess/bullet");
    assert_eq!(board["rows"], json!([]), "{v}");
    assert_eq!(board["provisional_left_out"], 2, "{v}");
    let mut cy = s.player("Cy").await;
    let lines = cy.command("leaderboard chess").await;
    assert!(
        lines
            .iter()
            .any(|l| l == "  (2 players with provisional ratings are not listed.)"),
        "{lines:?}"
    );
    s.stop().await;
}

#[tokio::test]
async fn agents_made_with_a_persons_token_are_that_persons_and_never_rate_them() {
    // Every identity its own owner by address here: only the token can tie them together.
    let s = TestServer::start().await;
    let home = from(&s, "127.0.0.2");
    let ann = home.agent(Some("Ann")).await;
    let made_by = |api: Api, name: &'static str, token: String| async move {
        let body = json!({ "name": name }).to_string();
        let (status, v) = api.send("POST", "/agents", Some(&token), Some(&body)).await;
        assert_eq!(status, 201, "{v}");
        Agent {
            id: v["agent_id"].as_str().unwrap().into(),
            token: v["token"].as_str().unwrap().into(),
            name: name.into(),
        }
    };
    // Ann's agents, made from other addresses, resign to her: her rating does not move.
    let helper = made_by(from(&s, "127.0.0.3"), "AnnBot", ann.token.clone()).await;
    let grandchild = made_by(from(&s, "127.0.0.4"), "AnnBotBot", helper.token.clone()).await;
    resigns_to(&home, &helper, &ann).await;
    resigns_to(&home, &grandchild, &ann).await;
    assert_eq!(bullet(&home, "Ann").await, None, "her own agents rate her");
    // Against someone else her agent is rated as any player.
    let zed = from(&s, "127.0.0.5").agent(Some("Zed")).await;
    resigns_to(&home, &helper, &zed).await;
    assert_eq!(bullet(&home, "Zed").await.map(|b| b.0), Some(1));
    // A token that is there but wrong makes nothing.
    let (status, v) = home
        .send(
            "POST",
            "/agents",
            Some("moot_nonsense"),
            Some(r#"{"name":"Ghost"}"#),
        )
        .await;
    assert_eq!(status, 401, "{v}");
    let (status, _) = home.send("GET", "/ratings/Ghost", None, None).await;
    assert_eq!(status, 404);
    s.stop().await;
}
