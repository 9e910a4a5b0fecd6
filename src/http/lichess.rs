//! The lichess Bot API, at lichess's paths and in its shapes, so that the bots and engines
//! written for lichess with berserk play in moot unchanged: `GET
//! /api/account`, the NDJSON event stream, challenges (to a player or the Computer), each game's
//! NDJSON stream (with its chat), moves (offering a draw with one), resigning, aborting and
//! chat, and joining a tournament. A bot's token is a moot token.
//!
//! A face, and only that: every read is a verb's answer (`bot_account`, `bot_events`,
//! `bot_game`), every change the verb people use (`session_create`, `session_accept`,
//! `session_decline`, `finishTurn`, `resign`, `page`), called through the [`Town`] as the REST
//! routes call them, so a host serves it as the world does.
//!
//! Both streams wait in the world: a game's for its next move or chat line (`bot_game` with
//! `after_tick` and `after_chat`), the event stream for a challenge or game of the caller's to
//! come or go (`bot_events` with `after`), so each change reaches the bot as soon as it is
//! stored. Both send only what changed, and an empty line every 7 seconds, as lichess's do.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use super::Calls;
use super::extract::credential;
use crate::cluster::calls::{CallRefused, Credential, VerbCall};
use moot_kernel::world::Face;

/// The empty line that keeps an event stream open.
const KEEPALIVE: Duration = Duration::from_secs(7);
/// The longest a stream lives without a change to send (a bot reconnects, as lichess-bot does).
const IDLE_LIMIT: Duration = Duration::from_secs(3 * 3600);

/// The routes, on the town.
pub fn router() -> axum::Router<Calls> {
    axum::Router::new()
        .route("/api/account", get(account))
        .route("/api/account/playing", get(playing))
        .route("/api/token/test", post(token_test))
        .route("/api/stream/event", get(event_stream))
        .route("/api/challenge/{who}", post(challenge))
        .route("/api/challenge/{id}/accept", post(accept))
        .route("/api/challenge/{id}/decline", post(decline))
        .route("/api/challenge/{id}/cancel", post(decline))
        .route("/api/bot/game/stream/{id}", get(game_stream))
        .route("/api/bot/game/{id}/move/{uci}", post(make_move))
        .route("/api/bot/game/{id}/resign", post(resign))
        .route("/api/bot/game/{id}/abort", post(abort))
        .route("/api/bot/game/{id}/chat", post(chat))
        // lichess's arenas and Swiss events are both moot's tournaments, by number.
        .route("/api/tournament/{id}/join", post(join_event))
        .route("/api/swiss/{id}/join", post(join_event))
        .route("/api/tournament/{id}/withdraw", post(withdraw_event))
        .route("/api/swiss/{id}/withdraw", post(withdraw_event))
}

/// A tournament's number from the path (none: lichess's 404).
fn event_number(id: &str) -> Option<u32> {
    id.trim().parse().ok()
}

/// `POST /api/tournament/{id}/join` and `/api/swiss/{id}/join` (`join`), and `…/withdraw`
/// (`withdraw`): its games come on the event stream as any other (`gameStart`).
async fn event_verb(c: Calls, id: String, headers: HeaderMap, verb: &'static str) -> Response {
    let Some(n) = event_number(&id) else {
        return error(StatusCode::NOT_FOUND, "Not found.");
    };
    done(&c, &headers, verb, json!({ "tournament": n })).await
}

async fn join_event(State(c): State<Calls>, Path(id): Path<String>, h: HeaderMap) -> Response {
    event_verb(c, id, h, "join").await
}

async fn withdraw_event(State(c): State<Calls>, Path(id): Path<String>, h: HeaderMap) -> Response {
    event_verb(c, id, h, "withdraw").await
}

/// The caller's verb `verb` with `args`: lichess's `{"ok": true}`, or its error.
async fn done(c: &Calls, headers: &HeaderMap, verb: &str, args: Value) -> Response {
    match call(c, headers, verb, args).await {
        Ok(_) => ok(),
        Err(r) => r,
    }
}

/// lichess's error shape.
fn error(status: StatusCode, message: &str) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

fn ok() -> Response {
    axum::Json(json!({ "ok": true })).into_response()
}

/// Runs verb `verb` with `args` as the request's credential: its JSON answer, or the error
/// lichess would give.
async fn call(c: &Calls, headers: &HeaderMap, verb: &str, args: Value) -> Result<Value, Response> {
    let cred = credential(headers);
    if matches!(cred, Credential::Missing | Credential::Malformed) {
        return Err(error(StatusCode::UNAUTHORIZED, "No such token"));
    }
    let asked = VerbCall {
        credential: cred,
        face: Face::Rest,
        verb: verb.to_owned(),
        args,
        held: None,
    };
    match c.town().call(asked).await {
        Ok(raw) => Ok(serde_json::from_str(raw.get()).unwrap_or(Value::Null)),
        Err(CallRefused::Unvouched(_)) => Err(error(StatusCode::UNAUTHORIZED, "No such token")),
        Err(CallRefused::Verb(r)) => {
            let e = moot_kernel::verbs::VerbError::from(r);
            let status = match e.kind {
                moot_kernel::verbs::ErrorKind::NotFound => StatusCode::NOT_FOUND,
                moot_kernel::verbs::ErrorKind::Internal => StatusCode::INTERNAL_SERVER_ERROR,
                _ if e.retry_after.is_some() => StatusCode::TOO_MANY_REQUESTS,
                _ => match e.host {
                    Some(moot_kernel::world::sessions::ErrorCode::NotFound) => {
                        StatusCode::NOT_FOUND
                    }
                    _ => StatusCode::BAD_REQUEST,
                },
            };
            Err(error(status, &e.message))
        }
        Err(_) => Err(error(
            StatusCode::SERVICE_UNAVAILABLE,
            "moot cannot do that just now; nothing changed. Try again.",
        )),
    }
}

/// A body sent as JSON (berserk) or as a form (lichess-bot), as one JSON object.
fn fields(headers: &HeaderMap, body: &Bytes) -> Value {
    let form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("application/x-www-form-urlencoded"));
    if form {
        let map: serde_json::Map<String, Value> = form_urlencoded::parse(body)
            .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
            .collect();
        return Value::Object(map);
    }
    serde_json::from_slice(body).unwrap_or(Value::Object(Default::default()))
}

/// A field as a whole number, whether it came as one (JSON) or as text (a form).
fn number(v: &Value, key: &str) -> Option<u64> {
    let f = v.get(key)?;
    f.as_u64().or_else(|| f.as_str()?.trim().parse().ok())
}

fn flag(v: &Value, key: &str) -> bool {
    match v.get(key) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true",
        _ => false,
    }
}

/// `GET /api/account`.
async fn account(State(c): State<Calls>, headers: HeaderMap) -> Response {
    match call(&c, &headers, "bot_account", json!({})).await {
        Ok(v) => axum::Json(v).into_response(),
        Err(r) => r,
    }
}

/// `GET /api/account/playing`: the caller's games under way, as lichess-bot asks after a
/// silent stream.
async fn playing(State(c): State<Calls>, headers: HeaderMap) -> Response {
    match call(&c, &headers, "bot_events", json!({})).await {
        Ok(v) => axum::Json(json!({ "nowPlaying": v["games"] })).into_response(),
        Err(r) => r,
    }
}

/// Most tokens one `POST /api/token/test` asks about: each is a call of the world's, so a
/// stranger's one request is held to a few (lichess takes 1,000; a bot sends its own).
const TOKENS_TESTED: usize = 16;

/// `POST /api/token/test`: for each token in the body (comma-separated), whose it is and what
/// it may do, or null: a moot token may do everything a bot does.
async fn token_test(State(c): State<Calls>, body: Bytes) -> Response {
    let text = String::from_utf8_lossy(&body);
    let mut out = serde_json::Map::new();
    for token in text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .take(TOKENS_TESTED)
    {
        let who = c
            .town()
            .vouch(&Credential::Bearer(token.to_owned()))
            .await
            .ok();
        let answer = match who {
            Some(agent) => {
                let mut h = HeaderMap::new();
                if let Ok(v) = format!("Bearer {token}").parse() {
                    h.insert(header::AUTHORIZATION, v);
                }
                let name = call(&c, &h, "bot_account", json!({}))
                    .await
                    .ok()
                    .and_then(|a| a["id"].as_str().map(str::to_owned))
                    .unwrap_or(agent);
                json!({
                    "userId": name,
                    "scopes": "bot:play,challenge:read,challenge:write",
                    "expires": null,
                })
            }
            None => Value::Null,
        };
        out.insert(token.to_owned(), answer);
    }
    axum::Json(Value::Object(out)).into_response()
}

/// moot's clock option for lichess's `clock.limit` (seconds) and `clock.increment`, or
/// `days`; none for an unlimited game.
fn clock_of(v: &Value) -> Result<Option<String>, &'static str> {
    match (number(v, "clock.limit"), number(v, "days")) {
        (Some(limit), _) => {
            if limit < 60 || limit % 60 != 0 {
                return Err(
                    "moot's clocks are whole minutes: clock.limit is 60, 120, … 10800 seconds",
                );
            }
            let inc = number(v, "clock.increment").unwrap_or(0);
            Ok(Some(format!("{}+{inc}", limit / 60)))
        }
        (None, Some(days)) => Ok(Some(format!("{days}d"))),
        (None, None) => Ok(None),
    }
}

/// `white`, `black`, or (`random`, or none) the server's draw.
fn colour(v: &Value) -> &'static str {
    match v.get("color").and_then(Value::as_str) {
        Some("white") => "white",
        Some("black") => "black",
        _ => {
            if rand::random::<bool>() {
                "white"
            } else {
                "black"
            }
        }
    }
}

/// `POST /api/challenge/{username}` (a player, who is asked) and `POST /api/challenge/ai` (the
/// Computer at `level`, which begins at once).
async fn challenge(
    State(c): State<Calls>,
    Path(who): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let v = fields(&headers, &body);
    let clock = match clock_of(&v) {
        Ok(c) => c,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    let me = colour(&v);
    let mut options = serde_json::Map::new();
    if let Some(clock) = clock {
        options.insert("clock".into(), clock.into());
    }
    if let Some(fen) = v.get("fen").and_then(Value::as_str) {
        options.insert("fen".into(), fen.into());
    }
    let ai = who == "ai";
    if ai {
        let level = number(&v, "level").unwrap_or(1);
        options.insert("computer_level".into(), level.into());
    } else if flag(&v, "rated") {
        options.insert("rated".into(), true.into());
    }
    // The caller's own id, for the participants (the town vouches for the token).
    let account = match call(&c, &headers, "bot_account", json!({})).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let Some(my_name) = account["username"].as_str() else {
        return error(StatusCode::UNAUTHORIZED, "No such token");
    };
    let them = if ai {
        "computer".to_owned()
    } else {
        who.clone()
    };
    let (white, black) = if me == "white" {
        (my_name.to_owned(), them)
    } else {
        (them, my_name.to_owned())
    };
    let args = json!({
        "template": "chess.v1",
        "participants": { "white": white, "black": black },
        "options": Value::Object(options),
    });
    let created = match call(&c, &headers, "session_create", args).await {
        Ok(v) => v,
        Err(r) => return r,
    };
    let id = created["session_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    if ai {
        let game = match call(&c, &headers, "bot_game", json!({ "game_id": id })).await {
            Ok(g) => g,
            Err(r) => return r,
        };
        let answer = json!({
            "id": id,
            "fullId": game["event"]["fullId"],
            "variant": game["variant"],
            "speed": game["speed"],
            "perf": game["perf"]["name"],
            "rated": false,
            "fen": game["event"]["fen"],
            "turns": 0,
            "source": "ai",
            "status": { "id": 20, "name": "started" },
            "createdAt": game["createdAt"],
            "player": me,
        });
        return (StatusCode::CREATED, axum::Json(answer)).into_response();
    }
    // The challenge as the event stream shows it.
    match call(&c, &headers, "bot_events", json!({})).await {
        Ok(events) => {
            let found = events["challenges"]
                .as_array()
                .and_then(|cs| cs.iter().find(|ch| ch["id"] == id.as_str()).cloned());
            axum::Json(found.unwrap_or(json!({ "id": id, "status": "created" }))).into_response()
        }
        Err(r) => r,
    }
}

async fn accept(State(c): State<Calls>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    done(&c, &headers, "session_accept", json!({ "session_id": id })).await
}

/// Decline (asked) or cancel (asking): either way the waiting game is no more.
async fn decline(State(c): State<Calls>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    done(&c, &headers, "session_decline", json!({ "session_id": id })).await
}

#[derive(serde::Deserialize)]
struct MoveQuery {
    /// lichess's "offer (or agree to) a draw" with the move.
    #[serde(rename = "offeringDraw")]
    offering_draw: Option<String>,
}

/// `POST /api/bot/game/{id}/move/{uci}` (`finishTurn`); with `offeringDraw=true`, the `draw`
/// verb too: before the move it agrees to the opponent's standing offer (the game is drawn, the
/// move not made, as on lichess), after it offers one.
async fn make_move(
    State(c): State<Calls>,
    Path((id, uci)): Path<(String, String)>,
    q: Query<MoveQuery>,
    headers: HeaderMap,
) -> Response {
    let game = json!({ "game": format!("#{id}") });
    let offering = q.offering_draw.as_deref() == Some("true");
    if offering {
        let full = match call(&c, &headers, "bot_game", json!({ "game_id": id })).await {
            Ok(g) => g,
            Err(r) => return r,
        };
        let theirs = if full["event"]["color"] == "white" {
            "bdraw"
        } else {
            "wdraw"
        };
        if full["state"][theirs] == true {
            return done(&c, &headers, "draw", game).await;
        }
    }
    let moved = json!({ "game_id": id, "move": uci });
    if let Err(r) = call(&c, &headers, "finishTurn", moved).await {
        return r;
    }
    if offering {
        // The move stands whatever the offer meets (a game the move ended has nothing to offer).
        let _ = call(&c, &headers, "draw", game).await;
    }
    ok()
}

async fn resign(State(c): State<Calls>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    done(&c, &headers, "resign", json!({ "game": format!("#{id}") })).await
}

/// `POST /api/bot/game/{id}/abort`: the `abort` verb (before both sides have moved).
async fn abort(State(c): State<Calls>, Path(id): Path<String>, headers: HeaderMap) -> Response {
    done(&c, &headers, "abort", json!({ "game": format!("#{id}") })).await
}

/// `POST /api/bot/game/{id}/chat` (`room`, `text`): the `chat` verb.
async fn chat(
    State(c): State<Calls>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let v = fields(&headers, &body);
    let Some(text) = v.get("text").and_then(Value::as_str).map(str::to_owned) else {
        return error(StatusCode::BAD_REQUEST, "text is required");
    };
    let room = v.get("room").and_then(Value::as_str).unwrap_or("player");
    let args = json!({ "game": format!("#{id}"), "text": text, "room": room });
    done(&c, &headers, "chat", args).await
}

/// An NDJSON response fed by `feed`, which ends when the client goes.
fn ndjson<F, Fut>(feed: F) -> Response
where
    F: FnOnce(mpsc::Sender<Bytes>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(feed(tx));
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        let line = rx.recv().await?;
        Some((Ok::<_, std::convert::Infallible>(line), rx))
    });
    (
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(stream),
    )
        .into_response()
}

/// Sends the empty line that keeps a stream open, if [`KEEPALIVE`] has passed since the last;
/// false once the client has gone.
async fn keep_alive(tx: &mpsc::Sender<Bytes>, alive: &mut tokio::time::Instant) -> bool {
    if alive.elapsed() < KEEPALIVE {
        return true;
    }
    *alive = tokio::time::Instant::now();
    tx.send(Bytes::from_static(b"\n")).await.is_ok()
}

fn line(v: &Value) -> Bytes {
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

/// `GET /api/stream/event`: what waits now (challenges, games under way), then each change.
async fn event_stream(State(c): State<Calls>, headers: HeaderMap) -> Response {
    // A bad token is refused before the stream opens.
    let first = match call(&c, &headers, "bot_events", json!({})).await {
        Ok(v) => v,
        Err(r) => return r,
    };
    ndjson(move |tx| async move {
        let mut challenges: Vec<Value> = Vec::new();
        let mut games: Vec<Value> = Vec::new();
        let mut now = first;
        let mut quiet = tokio::time::Instant::now();
        let mut alive = tokio::time::Instant::now();
        loop {
            let mut out = Vec::new();
            let cs = now["challenges"].as_array().cloned().unwrap_or_default();
            let gs = now["games"].as_array().cloned().unwrap_or_default();
            for ch in &cs {
                if !challenges.iter().any(|o| o["id"] == ch["id"]) {
                    out.push(json!({ "type": "challenge", "challenge": ch, "compat": { "bot": true, "board": true } }));
                }
            }
            for old in &challenges {
                let begun = gs.iter().any(|g| g["gameId"] == old["id"]);
                if !begun && !cs.iter().any(|ch| ch["id"] == old["id"]) {
                    let kind = if old["direction"] == "out" {
                        "challengeDeclined"
                    } else {
                        "challengeCanceled"
                    };
                    out.push(json!({ "type": kind, "challenge": old }));
                }
            }
            for g in &gs {
                if !games.iter().any(|o| o["gameId"] == g["gameId"]) {
                    out.push(json!({ "type": "gameStart", "game": g }));
                }
            }
            for old in &games {
                if !gs.iter().any(|g| g["gameId"] == old["gameId"]) {
                    let id = old["gameId"].clone();
                    let game = call(&c, &headers, "bot_game", json!({ "game_id": id }))
                        .await
                        .ok()
                        .map_or_else(|| old.clone(), |g| g["event"].clone());
                    out.push(json!({ "type": "gameFinish", "game": game }));
                }
            }
            challenges = cs;
            games = gs;
            for e in &out {
                if tx.send(line(e)).await.is_err() {
                    return;
                }
            }
            if !out.is_empty() {
                quiet = tokio::time::Instant::now();
            }
            if !keep_alive(&tx, &mut alive).await {
                return;
            }
            if quiet.elapsed() > IDLE_LIMIT {
                return;
            }
            // The world answers when a challenge or game comes or goes, or after a while.
            let asked = json!({ "after": now["version"] });
            now = tokio::select! {
                now = call(&c, &headers, "bot_events", asked) => match now {
                    Ok(v) => v,
                    Err(_) => return,
                },
                _ = tx.closed() => return,
            };
        }
    })
}

/// Sends `game`'s chat lines numbered `chat_n` and on, as `chatLine`s; false once the client
/// has gone.
async fn send_chat(tx: &mpsc::Sender<Bytes>, game: &Value, chat_n: &mut u64) -> bool {
    for l in game["chat"].as_array().into_iter().flatten() {
        let Some(n) = l["n"].as_u64().filter(|n| *n >= *chat_n) else {
            continue;
        };
        let mut out = l.clone();
        if let Some(o) = out.as_object_mut() {
            o.remove("n");
        }
        if tx.send(line(&out)).await.is_err() {
            return false;
        }
        *chat_n = n + 1;
    }
    *chat_n = game["chat_n"].as_u64().unwrap_or(*chat_n);
    true
}

/// `GET /api/bot/game/stream/{id}`: `gameFull`, then a `gameState` at each move and a
/// `chatLine` at each line of the game's chat, until the game ends.
async fn game_stream(
    State(c): State<Calls>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let first = match call(&c, &headers, "bot_game", json!({ "game_id": id })).await {
        Ok(v) => v,
        Err(r) => return r,
    };
    ndjson(move |tx| async move {
        let mut tick = first["tick"].clone();
        // From now on, as lichess's stream: what was said before is not said again.
        let mut chat_n = first["chat_n"].as_u64().unwrap_or(0);
        let mut full = first.clone();
        let over = full["over"] == true;
        if let Some(o) = full.as_object_mut() {
            for internal in ["tick", "over", "event", "chat", "chat_n"] {
                o.remove(internal);
            }
        }
        if tx.send(line(&full)).await.is_err() || !send_chat(&tx, &first, &mut chat_n).await || over
        {
            return;
        }
        let (mut quiet, mut alive) = (tokio::time::Instant::now(), tokio::time::Instant::now());
        loop {
            // The world answers when the game moves past `tick` or its chat past `chat_n`, or
            // after a while unchanged.
            let asked = json!({ "game_id": id, "after_tick": tick, "after_chat": chat_n });
            let now = tokio::select! {
                now = call(&c, &headers, "bot_game", asked) => now,
                _ = tx.closed() => return,
            };
            let Ok(now) = now else {
                return;
            };
            if now["chat_n"].as_u64() != Some(chat_n) {
                quiet = tokio::time::Instant::now();
                if !send_chat(&tx, &now, &mut chat_n).await {
                    return;
                }
            }
            if now["tick"] != tick {
                tick = now["tick"].clone();
                quiet = tokio::time::Instant::now();
                if tx.send(line(&now["state"])).await.is_err() || now["over"] == true {
                    return;
                }
            }
            if !keep_alive(&tx, &mut alive).await {
                return;
            }
            if quiet.elapsed() > IDLE_LIMIT {
                return;
            }
        }
    })
}
