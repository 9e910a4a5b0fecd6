//! A match as its page on the web shows it: one frame per change, for one viewer, read through
//! the same filter as every other face ([`super::reader`] decides who reads as what; events,
//! state and moments come from the template's own per-reader views). The web face only
//! carries frames; it decides nothing.

use serde_json::{Value, json};

use super::info::event_json;
use super::info::{Omniscient, OmniscientArgs};
use super::play::state_json;
use super::queue::{JoinArgs, LeaveArgs, Queue, Sign, StatusArgs, Unsign};
use super::rules::config::Spectating;
use super::rules::events::{Event, Reader, Vis};
use super::rules::{Phase, Werewolf, player_id, text};
use super::{WerewolfTown, game_in, game_of, server_time};
use moot_kernel::verbs::game_module::{Access, WebAction, WebMethod};
use moot_kernel::verbs::{self, Verb, VerbError};
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, Cx, World};

/// The page itself.
pub const PAGE: &str = include_str!("page.html");

/// Match `sid` as `viewer` (none: someone not logged in) may see it now, with the events after
/// `after` (all of them if none); `None` if there is no such match. The frame's `cursor` is
/// the `after` of the next.
pub fn frame(
    world: &World,
    viewer: Option<&AgentId>,
    sid: SessionId,
    after: Option<usize>,
) -> Option<Value> {
    let s = world.session(sid)?;
    let w = game_in(s)?;
    let reader = viewer.map_or(Reader::Public, |a| super::reader(world, a, sid));
    // The cursor counts the events this reader may see (their own ids), nothing else.
    let events: Vec<Value> = w
        .events_for(reader)
        .filter(|e| after.is_none_or(|k| e.place.of(reader).is_some_and(|p| p > k)))
        .map(|e| {
            let mut v = event_json(world, s, e, reader);
            v["line"] = json!(line(w, e, reader));
            v
        })
        .collect();
    let playing = matches!(reader, Reader::Seat(_));
    let number = world
        .ext_ref::<WerewolfTown>()
        .and_then(|t| t.buildings.get(&sid))
        .map(|b| b.number);
    Some(json!({
        "matchId": sid.to_string(),
        "number": number,
        "serverTime": server_time(world),
        "reader": reader_label(reader),
        "signedIn": viewer.is_some(),
        // Only someone signed in who does not play may ask to see everything, and only when
        // the match's spectating rule allows it now.
        "mayAskOmniscient": viewer.is_some() && !playing
            && (w.config().spectating == Spectating::Live || w.phase == Phase::Ended),
        "state": state_json(world, s, w, reader, 0),
        "events": events,
        "cursor": w.seen_by(reader).checked_sub(1),
        "moments": w.key_moments(reader),
        "report": w.report(),
    }))
}

/// Whether match `sid` is over (a page's stream stops after the last frame).
/// The match's page, if `sid` is a match.
pub fn html(world: &World, sid: SessionId) -> Option<String> {
    game_of(world, sid).map(|_| PAGE.to_owned())
}

/// [`frame`] and whether the match has ended, for the page's live stream.
pub fn live(
    world: &World,
    viewer: Option<&AgentId>,
    sid: SessionId,
    after: Option<usize>,
) -> Option<(Value, bool)> {
    let frame = frame(world, viewer, sid, after)?;
    Some((frame, ended(world, sid)))
}

pub fn ended(world: &World, sid: SessionId) -> bool {
    game_of(world, sid).is_none_or(|w| w.phase == Phase::Ended)
}

/// What the pages ask of the world: where the person signed in stands on the notice board (the
/// town page's button signs it), the all-seeing view, and a finished match's replay.
pub const ACTIONS: &[WebAction] = &[
    WebAction {
        method: WebMethod::Get,
        path: "/werewolf/board",
        access: Access::SignedIn {
            unsigned: BOARD_UNSIGNED,
            arrive: false,
        },
        refused: 409,
        run: board,
    },
    WebAction {
        method: WebMethod::Post,
        path: "/werewolf/board",
        access: Access::SignedIn {
            unsigned: BOARD_UNSIGNED,
            arrive: true,
        },
        refused: 409,
        run: sign_board,
    },
    WebAction {
        method: WebMethod::Post,
        path: "/werewolf/{match_id}/omniscient",
        access: Access::SignedIn {
            unsigned: "Sign in to ask for the all-seeing view.",
            arrive: false,
        },
        refused: 403,
        run: omniscient,
    },
    WebAction {
        method: WebMethod::Get,
        path: "/werewolf/{match_id}/replay",
        access: Access::Public,
        refused: 400,
        run: replay_of,
    },
];

const BOARD_UNSIGNED: &str = "Sign in to use the notice board.";

/// Where the asker stands on the notice board (the `queue` verb's answer), with their door.
fn board(w: &mut World, cx: &mut Cx, _: Option<SessionId>, _: Value) -> Result<Value, VerbError> {
    run::<Queue>(w, cx, StatusArgs::default()).map(|data| with_door(w, &cx.actor, data))
}

/// Signs the notice board (`{"sign": true}`) or takes the asker's name off it, as `sign board`
/// and `unsign board` do.
fn sign_board(
    w: &mut World,
    cx: &mut Cx,
    _: Option<SessionId>,
    body: Value,
) -> Result<Value, VerbError> {
    let Some(sign) = body["sign"].as_bool() else {
        return Err(VerbError::usage("sign must be true or false"));
    };
    let data = if sign {
        run::<Sign>(w, cx, JoinArgs::default())
    } else {
        run::<Unsign>(w, cx, LeaveArgs::default())
    };
    data.map(|data| with_door(w, &cx.actor, data))
}

/// Asks to see everything of a match (`{"on": true}`) or no longer: by the same verb as
/// telnet's `omniscient` and the MCP tool, which grants it only to someone who does not play.
fn omniscient(
    w: &mut World,
    cx: &mut Cx,
    sid: Option<SessionId>,
    body: Value,
) -> Result<Value, VerbError> {
    let Some(on) = body["on"].as_bool() else {
        return Err(VerbError::usage("on must be true or false"));
    };
    let match_id = sid.map(|s| s.to_string()).unwrap_or_default();
    let args = OmniscientArgs {
        match_id,
        on: Some(on),
    };
    run::<Omniscient>(w, cx, args)
}

/// A finished match's replay, as `?viewer=` (the public if none) saw it.
fn replay_of(
    w: &mut World,
    _: &mut Cx,
    sid: Option<SessionId>,
    query: Value,
) -> Result<Value, VerbError> {
    let viewer = query["viewer"].as_str().unwrap_or("PUBLIC");
    let sid = sid.ok_or_else(|| VerbError::not_found("No such match"))?;
    replay(w, sid, viewer).map_err(VerbError::refused)
}

/// The page's buttons are their verbs' faces: verb `V` with the arguments the button gave, its
/// structured result for the page.
fn run<V: Verb>(w: &mut World, cx: &mut Cx, args: V::Args) -> Result<Value, VerbError> {
    verbs::run_value::<V>(w, cx, args)
}

/// A notice-board answer for the page: with the door to the match once it has begun, and its
/// page.
fn with_door(w: &World, agent: &AgentId, mut data: Value) -> Value {
    let sid = super::my_match(w, agent).filter(|_| !data["matchAssignment"].is_null());
    if let Some(sid) = sid {
        data["door"] = json!(super::building::door_of(w, sid));
        data["page"] = json!(super::page_of(sid));
    }
    data
}

/// Every event of a finished match as `viewer` (`PUBLIC`, `OMNISCIENT` or a player id) saw it,
/// for the page's replay; `Err` with the reason while it runs or for a viewer that is none.
pub fn replay(world: &World, sid: SessionId, viewer: &str) -> Result<Value, String> {
    let (s, w) = world
        .session(sid)
        .and_then(|s| Some((s, game_in(s)?)))
        .ok_or_else(|| format!("No Werewolf match {sid}"))?;
    if w.phase != Phase::Ended {
        return Err(format!(
            "Match {sid} is still running; its replay comes when it ends"
        ));
    }
    let reader = Reader::named(viewer).ok_or(Reader::NAMES)?;
    let events = w.events_for(reader).map(|e| {
        let mut v = event_json(world, s, e, reader);
        v["line"] = json!(line(w, e, reader));
        (e.at, v)
    });
    let events = super::info::with_reasons(world, s, events);
    Ok(json!({ "matchId": sid.to_string(), "viewer": viewer, "events": events }))
}

/// An event's line as `reader` reads it: what was said to some players only is marked with
/// whom it was for when the all-seeing read it, as on telnet.
fn line(w: &Werewolf, e: &Event, reader: Reader) -> String {
    let said = text::mark(e);
    match (&e.vis, reader) {
        (Vis::Private(seats) | Vis::Wolves(seats), Reader::Omniscient) => {
            let names: Vec<&str> = seats.iter().map(|&s| w.name(s)).collect();
            format!("(to {}) {said}", names.join(", "))
        }
        _ => said,
    }
}

fn reader_label(reader: Reader) -> String {
    match reader {
        Reader::Seat(s) => player_id(s).to_owned(),
        Reader::Public => "PUBLIC".to_owned(),
        Reader::Omniscient => "OMNISCIENT".to_owned(),
    }
}
