//! A match as its page on the web shows it: one frame per change, for one viewer, read through
//! the same filter as every other face ([`super::reader`] decides who reads as what; events,
//! state and moments come from the template's own per-reader views). The web face only
//! carries frames; it decides nothing.

use serde_json::{Value, json};

use super::info::event_json;
use super::play::state_json;
use super::{WerewolfTown, game_in, game_of, server_time};
use crate::games::werewolf::config::Spectating;
use crate::games::werewolf::events::{Event, Reader, Vis};
use crate::games::werewolf::{Phase, Werewolf, player_id, seat_of, text};
use crate::world::sessions::SessionId;
use crate::world::{AgentId, World};

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
    let reader = match viewer {
        "PUBLIC" => Reader::Public,
        "OMNISCIENT" => Reader::Omniscient,
        id => Reader::Seat(
            seat_of(id).ok_or("viewer is PUBLIC, OMNISCIENT or a player id (p1 to p8)")?,
        ),
    };
    let events: Vec<Value> = w
        .events_for(reader)
        .map(|e| {
            let mut v = event_json(world, s, e, reader);
            v["line"] = json!(line(w, e, reader));
            v
        })
        .collect();
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
