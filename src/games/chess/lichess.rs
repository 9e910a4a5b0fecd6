//! What the lichess Bot API face reads of the town, in lichess's own shapes: an account
//! (`GET /api/account`), a game (`gameFull` and its `gameState`) and a player's challenges and
//! games (what `/api/stream/event` announces). The face (`src/http/lichess.rs`) only
//! translates HTTP and NDJSON; every change a bot makes goes through the verbs people use
//! (`session_create`, `session_accept`, `finishTurn`, `resign`).
//!
//! Names: a lichess id is the lowercased username, and a game's id is its session's number.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::chess_of;
use super::rules::{ChessGame, EndReason, Side, TimeControl};
use moot_kernel::verbs::{NoArgs, Reply, Topic, Verb, VerbError, no_args, usage};
use moot_kernel::world::sessions::{Session, SessionId, parse_id};
use moot_kernel::world::{Cx, World};

/// The chess template's id.
const TEMPLATE: &str = "chess.v1";

/// A clock no game of moot's reaches, for a game with none (lichess's bots read a number).
const NO_CLOCK_MS: u64 = 2_147_483_647;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GameIdArg {
    pub game_id: String,
    /// Answer once the game has moved past this tick (a stream's wait for the next move), or
    /// after a while unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_tick: Option<u64>,
    /// …or its chat past this many lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_chat: Option<u64>,
}

/// `name` as a lichess id.
fn lid(name: &str) -> String {
    name.to_lowercase()
}

/// The lichess speed of a time control: by estimated time, initial + 40 × increment.
fn speed(tc: Option<&TimeControl>) -> &'static str {
    match tc {
        Some(TimeControl::Fischer(c)) => {
            let est = c.initial_ms / 1000 + 40 * c.increment_ms / 1000;
            match est {
                0..30 => "ultraBullet",
                30..180 => "bullet",
                180..480 => "blitz",
                480..1500 => "rapid",
                _ => "classical",
            }
        }
        _ => "correspondence",
    }
}

fn perf_name(speed: &str) -> String {
    let mut c = speed.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn variant() -> Value {
    json!({ "key": "standard", "name": "Standard", "short": "Std" })
}

/// `who`'s chess rating on the board of `speed` (a newcomer's 1500), and whether provisional.
fn rating_of(world: &World, who: &str, board: &str) -> (i64, bool) {
    let owner = world.directory.owner_of(who);
    let r = world.ratings().rating_on(&owner, board);
    (r.rating.round() as i64, r.deviation > 110.0)
}

/// The board a game of `s` is rated on, if any (`chess/blitz`).
fn board_of(world: &World, s: &Session) -> String {
    world
        .template(TEMPLATE)
        .and_then(|t| moot_kernel::ratings::board(t, &s.options))
        .unwrap_or_else(|| "chess".to_owned())
}

/// The game's status as lichess names it.
fn status(g: &ChessGame) -> (u32, &'static str) {
    match g.outcome().map(|o| o.reason) {
        None => (20, "started"),
        Some(EndReason::Checkmate) => (30, "mate"),
        Some(EndReason::Resignation) => (31, "resign"),
        Some(EndReason::Aborted) => (25, "aborted"),
        Some(EndReason::Stalemate) => (32, "stalemate"),
        Some(EndReason::Timeout | EndReason::TimeoutVsInsufficientMaterial) => (35, "outoftime"),
        Some(
            EndReason::InsufficientMaterial
            | EndReason::ThreefoldRepetition
            | EndReason::FiftyMoveRule
            | EndReason::Agreement,
        ) => (34, "draw"),
    }
}

fn side_name(s: Side) -> &'static str {
    match s {
        Side::White => "white",
        Side::Black => "black",
    }
}

/// The level the Computer plays `s` at.
fn ai_level(s: &Session) -> u64 {
    s.options
        .get("computer_level")
        .and_then(Value::as_u64)
        .unwrap_or(u64::from(super::rules::computer::DEFAULT_LEVEL))
}

/// A player of `s` as `gameFull` shows one.
fn player(world: &World, s: &Session, role: &str) -> Value {
    let Some(p) = s.participants.iter().find(|p| p.role == role) else {
        return Value::Null;
    };
    if &*p.agent == moot_kernel::world::COMPUTER_ID {
        let level = ai_level(s);
        return json!({ "aiLevel": level });
    }
    let (rating, provisional) = rating_of(world, &p.agent, &board_of(world, s));
    json!({
        "id": lid(&p.name),
        "name": p.name,
        "title": bot_title(world, &p.agent),
        "rating": rating,
        "provisional": provisional,
    })
}

/// `BOT` for an agent, as lichess marks a bot account; nothing for a person.
fn bot_title(world: &World, agent: &str) -> Value {
    match world.directory.kind_of(agent) {
        moot_kernel::store::Kind::Agent => json!("BOT"),
        _ => Value::Null,
    }
}

/// The clock's times now, in milliseconds: (wtime, btime, winc, binc).
fn times(world: &World, s: &Session, g: &ChessGame) -> (u64, u64, u64, u64) {
    let Some(tc) = g.time_control() else {
        return (NO_CLOCK_MS, NO_CLOCK_MS, 0, 0);
    };
    let now = world.game_time(s);
    let to_move = g.turn();
    let (w, b) = if g.outcome().is_some() {
        match tc {
            TimeControl::Fischer(c) => (c.white_ms, c.black_ms),
            TimeControl::PerMove(l) => (l.per_move_ms, l.per_move_ms),
        }
    } else {
        (
            tc.left_at(Side::White, to_move, now),
            tc.left_at(Side::Black, to_move, now),
        )
    };
    let inc = match tc {
        TimeControl::Fischer(c) => c.increment_ms,
        TimeControl::PerMove(_) => 0,
    };
    (w, b, inc, inc)
}

/// The `gameState` line of `s` now.
pub fn game_state(world: &World, s: &Session, g: &ChessGame) -> Value {
    let (wtime, btime, winc, binc) = times(world, s, g);
    let mut state = json!({
        "type": "gameState",
        "moves": g.ucis().join(" "),
        "wtime": wtime,
        "btime": btime,
        "winc": winc,
        "binc": binc,
        "status": status(g).1,
    });
    if let Some(w) = g.outcome().and_then(|o| o.winner) {
        state["winner"] = json!(side_name(w));
    }
    if let Some(side) = g.draw_offer() {
        state[if side == Side::White {
            "wdraw"
        } else {
            "bdraw"
        }] = json!(true);
    }
    state
}

fn created_ms(s: &Session) -> u64 {
    s.started
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0))
}

/// The `gameFull` line of `s`, with `tick` beside it for the face to tell a change by.
fn game_full(world: &World, s: &Session, g: &ChessGame) -> Value {
    let speed = speed(g.time_control());
    let mut full = json!({
        "type": "gameFull",
        "id": s.id.to_string(),
        "variant": variant(),
        "speed": speed,
        "perf": { "name": perf_name(speed) },
        "rated": s.rated,
        "createdAt": created_ms(s),
        "white": player(world, s, "white"),
        "black": player(world, s, "black"),
        "initialFen": s.options.get("fen").and_then(Value::as_str).unwrap_or("startpos"),
        "state": game_state(world, s, g),
    });
    match g.time_control() {
        Some(TimeControl::Fischer(c)) => {
            full["clock"] = json!({ "initial": c.initial_ms, "increment": c.increment_ms });
        }
        Some(TimeControl::PerMove(l)) => {
            full["daysPerTurn"] = json!((l.per_move_ms / 86_400_000).max(1));
        }
        None => {}
    }
    full
}

/// A game as `gameStart` and `gameFinish` announce it, to `me`.
fn game_event(world: &World, s: &Session, g: &ChessGame, me: &str) -> Value {
    let id = s.id.to_string();
    let role = s.role_of(me).unwrap_or("white");
    let mine = Side::from_role(role).unwrap_or(Side::White);
    let (n, name) = status(g);
    let speed = speed(g.time_control());
    let opponent = s.participants.iter().find(|p| p.role != role);
    let opponent = match opponent {
        Some(p) if &*p.agent == moot_kernel::world::COMPUTER_ID => {
            let level = ai_level(s);
            json!({ "id": null, "username": format!("Computer level {level}"), "ai": level })
        }
        Some(p) => json!({
            "id": lid(&p.name),
            "username": p.name,
            "rating": rating_of(world, &p.agent, &board_of(world, s)).0,
        }),
        None => Value::Null,
    };
    let (wtime, btime, ..) = times(world, s, g);
    let left = if mine == Side::White { wtime } else { btime };
    let mut e = json!({
        "fullId": format!("{id:0>8}0000"),
        "gameId": id,
        "id": id,
        "fen": g.fen(),
        "color": side_name(mine),
        "lastMove": g.last_move().unwrap_or_default(),
        "source": if opponent.get("ai").is_some() { "ai" } else { "friend" },
        "status": { "id": n, "name": name },
        "variant": { "key": "standard", "name": "Standard" },
        "speed": speed,
        "perf": speed,
        "rated": s.rated,
        "hasMoved": s.log.iter().any(|e| e.role == role),
        "isMyTurn": g.outcome().is_none() && g.turn() == mine,
        "secondsLeft": left / 1000,
        "opponent": opponent,
        "compat": { "bot": true, "board": true },
    });
    if let Some(w) = g.outcome().and_then(|o| o.winner) {
        e["winner"] = json!(side_name(w));
    }
    e
}

/// A waiting chess session as lichess shows a challenge, to `me`.
fn challenge(
    world: &World,
    inv: &moot_kernel::world::sessions::invite::Invitation,
    me: &str,
) -> Value {
    let id = inv.id.to_string();
    let of = |agent: &str| {
        let p = inv.participants().iter().find(|p| &*p.agent == agent);
        p.map_or(Value::Null, |p| {
            let (rating, provisional) = rating_of(world, &p.agent, "chess");
            json!({
                "id": lid(&p.name),
                "name": p.name,
                "rating": rating,
                "title": bot_title(world, &p.agent),
                "provisional": provisional,
                "online": world.find_player(&p.agent).is_some(),
            })
        })
    };
    let dest = inv
        .participants()
        .iter()
        .find(|p| p.agent != inv.from)
        .map(|p| p.agent.to_string())
        .unwrap_or_default();
    let from_role = inv.role_of(&inv.from).unwrap_or("white");
    let clock = inv.options().get("clock").and_then(Value::as_str);
    let tc = clock.and_then(|c| TimeControl::parse(c).ok());
    let time_control = match tc {
        Some(TimeControl::Fischer(c)) => json!({
            "type": "clock",
            "limit": c.initial_ms / 1000,
            "increment": c.increment_ms / 1000,
            "show": clock,
        }),
        Some(TimeControl::PerMove(l)) => {
            json!({ "type": "correspondence", "daysPerTurn": (l.per_move_ms / 86_400_000).max(1) })
        }
        None => json!({ "type": "unlimited" }),
    };
    let speed = speed(tc.as_ref());
    json!({
        "id": id,
        "url": format!("/chess/{id}"),
        "status": "created",
        "challenger": of(&inv.from),
        "destUser": of(&dest),
        "variant": variant(),
        "rated": inv.rated(),
        "speed": speed,
        "timeControl": time_control,
        "color": from_role,
        "finalColor": from_role,
        "perf": { "icon": "", "name": perf_name(speed) },
        "direction": if *inv.from == *me { "out" } else { "in" },
        "initialFen": inv.options().get("fen").and_then(Value::as_str).unwrap_or("startpos"),
    })
}

pub struct BotAccount;

impl Verb for BotAccount {
    const NAME: &'static str = "bot_account";
    const USAGE: &'static str = "bot_account";
    const SUMMARY: &'static str = "Your account as the lichess Bot API shows it.";
    const HELP: &'static str = "Your name, id and chess ratings in the shape of lichess's \
`GET /api/account`, which moot answers at the same path for bots written for lichess.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::AGENTS;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = None;
    type Args = NoArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<BotAccount>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<Value>, VerbError> {
        let me = cx.actor.clone();
        let name = world
            .directory
            .name_of(&me)
            .unwrap_or_else(|| me.to_string());
        let owner = world.directory.owner_of(&me);
        let mut perfs = serde_json::Map::new();
        for (k, st) in world.ratings().of(&owner) {
            let Some(class) = k.board.strip_prefix("chess/") else {
                continue;
            };
            if world.ratings().season(&k.board) != Some(k.rules.as_str()) {
                continue;
            }
            let r = st.rating.unwrap_or(moot_kernel::ratings::glicko2::START);
            perfs.insert(
                class.to_owned(),
                json!({
                    "games": st.games,
                    "rating": r.rating.round() as i64,
                    "rd": r.deviation.round() as i64,
                    "prog": 0,
                    "prov": r.deviation > 110.0,
                }),
            );
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::SystemTime::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0));
        let account = json!({
            "id": lid(&name),
            "username": name,
            "url": format!("/players/{name}"),
            "title": bot_title(world, &me),
            "perfs": perfs,
            "createdAt": now,
            "seenAt": now,
        });
        Ok(Reply::new(vec![account.to_string()], account))
    }
}

pub struct BotGame;

impl Verb for BotGame {
    const NAME: &'static str = "bot_game";
    const USAGE: &'static str = "bot_game <game id>";
    const SUMMARY: &'static str = "A chess game of yours as the lichess Bot API streams it.";
    const HELP: &'static str = "Your chess game <id> in the shape of the lichess Bot API's \
`gameFull` (players, clock in milliseconds, moves in UCI), with its `tick`: what moot's \
`/api/bot/game/stream/<id>` sends.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::AGENTS;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = None;
    type Args = GameIdArg;
    type Output = Value;

    fn parse(rest: &str) -> Result<GameIdArg, VerbError> {
        let id = rest.trim().trim_start_matches('#');
        if id.is_empty() {
            return Err(usage::<BotGame>());
        }
        Ok(GameIdArg {
            game_id: id.to_owned(),
            after_tick: None,
            after_chat: None,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, a: GameIdArg) -> Result<Reply<Value>, VerbError> {
        let not_found = || VerbError::not_found("Not found.");
        let sid: SessionId = parse_id(&a.game_id).map_err(|_| not_found())?;
        let (chat, chat_n) = world
            .ext_ref::<super::chat::GameChats>()
            .map(|c| c.of(sid))
            .unwrap_or_default();
        let s = world.session(sid).ok_or_else(not_found)?;
        let g = chess_of(s).ok_or_else(not_found)?;
        if s.role_of(&cx.actor).is_none() {
            return Err(not_found());
        }
        let mut full = game_full(world, s, g);
        full["tick"] = json!(s.tick);
        full["over"] = json!(g.outcome().is_some());
        full["event"] = game_event(world, s, g, &cx.actor);
        full["chat"] = json!(
            chat.iter()
                .map(|l| json!({ "n": l.n, "type": "chatLine", "room": l.room, "username": l.username, "text": l.text }))
                .collect::<Vec<_>>()
        );
        full["chat_n"] = json!(chat_n);
        // Nothing new since the caller's tick and chat line: a face that can wait waits for the
        // next change.
        let unchanged = a.after_tick == Some(s.tick) && a.after_chat.unwrap_or(chat_n) == chat_n;
        if unchanged && g.outcome().is_none() {
            return Err(VerbError::pending(
                "No move yet.",
                moot_kernel::verbs::Pending {
                    on: moot_kernel::world::Awaited::Session(sid),
                    tick: s.tick,
                    data: full,
                    // A stream sends its keep-alive line between waits (lichess-bot gives up
                    // on a stream silent for 15 seconds).
                    wait: Some(std::time::Duration::from_secs(7)),
                },
            ));
        }
        Ok(Reply::new(vec![full.to_string()], full))
    }
}

pub struct BotEvents;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventsArgs {
    /// Answer once the challenges and games differ from the answer whose `version` this was (a
    /// stream's wait), or after a while unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
}

impl Verb for BotEvents {
    const NAME: &'static str = "bot_events";
    const USAGE: &'static str = "bot_events";
    const SUMMARY: &'static str =
        "Your chess challenges and games as the lichess Bot API lists them.";
    const HELP: &'static str = "The chess challenges that wait for you or for your opponent, and \
your chess games under way, in the lichess Bot API's shapes: what moot's `/api/stream/event` \
announces as they come and go.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::AGENTS;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = None;
    type Args = EventsArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<EventsArgs, VerbError> {
        no_args::<BotEvents>(rest).map(|_| EventsArgs { after: None })
    }

    fn run(world: &mut World, cx: &mut Cx, a: EventsArgs) -> Result<Reply<Value>, VerbError> {
        let me = cx.actor.clone();
        let challenges: Vec<Value> = world
            .invitations_naming(&me)
            .filter(|i| i.template().id == TEMPLATE)
            .map(|i| challenge(world, i, &me))
            .collect();
        let games: Vec<Value> = world
            .sessions_of(&me)
            .iter()
            .filter(|r| r.template == TEMPLATE && r.status == "active")
            .filter_map(|r| {
                let s = world.session(parse_id(&r.session_id).ok()?)?;
                Some(game_event(world, s, chess_of(s)?, &me))
            })
            .collect();
        // Which challenges and games there are, as one number: what a stream tells apart.
        let version = {
            use std::hash::{Hash, Hasher};
            let mut h = std::hash::DefaultHasher::new();
            for c in &challenges {
                c["id"].as_str().hash(&mut h);
            }
            0u8.hash(&mut h);
            for g in &games {
                g["gameId"].as_str().hash(&mut h);
            }
            h.finish()
        };
        let out = json!({ "challenges": challenges, "games": games, "version": version });
        if a.after == Some(version) {
            return Err(VerbError::pending(
                "Nothing new.",
                moot_kernel::verbs::Pending {
                    on: moot_kernel::world::Awaited::Agent(me),
                    tick: version,
                    data: out,
                    // The stream's keep-alive line goes out between waits.
                    wait: Some(std::time::Duration::from_secs(7)),
                },
            ));
        }
        Ok(Reply::new(vec![out.to_string()], out))
    }
}
