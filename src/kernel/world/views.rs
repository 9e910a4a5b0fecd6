//! The world as people see it: a room with its exits, things, people and games, and the `who`
//! table. These are the world's views, not commands: verbs show them, and so does the world
//! task when someone arrives or asks who is on before logging in.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::sessions::Session;
use super::{AgentId, RoomIdx, World};
use crate::text::{duration_phrase, english_list};

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct RoomView {
    pub id: String,
    pub name: String,
    pub description: String,
    pub exits: Vec<ExitView>,
    pub things: Vec<ThingView>,
    /// The other people here.
    pub people: Vec<String>,
    /// Running games here, and the last few finished.
    pub games: Vec<GameView>,
    /// Older finished games here (`games all`).
    pub older_finished: usize,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GameView {
    pub session_id: String,
    pub template: String,
    /// "Ann (white) vs Bob (black)"
    pub players: String,
    pub status: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ExitView {
    pub name: String,
    pub aliases: Vec<String>,
    /// The id of the room it leads to.
    pub to: String,
    pub to_name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ThingView {
    pub id: String,
    pub name: String,
}

/// The room as `viewer` sees it on arriving or looking around.
pub fn room_view(world: &World, room: RoomIdx, viewer: &AgentId) -> RoomView {
    view_of(world, &shown(world, room, viewer))
}

/// What a room shows a viewer, borrowed from the world: its text and its data are both made
/// from one of these, so they cannot disagree, and a typed line (which reads only the text)
/// copies nothing it does not print.
struct Shown<'a> {
    room: RoomIdx,
    games: Vec<&'a Session>,
    older_finished: usize,
    /// The other people here, by name.
    people: Vec<&'a str>,
}

fn shown<'a>(world: &'a World, room: RoomIdx, viewer: &AgentId) -> Shown<'a> {
    let (games, older_finished) = worth_listing(world.sessions_in(room), RECENT_FINISHED);
    Shown {
        room,
        games,
        older_finished,
        people: world
            .occupants(room)
            .iter()
            .filter(|id| !super::same_agent(id, viewer))
            .map(|id| world.player(id).name.as_str())
            .collect(),
    }
}

fn view_of(world: &World, shown: &Shown<'_>) -> RoomView {
    let r = world.map.room(shown.room);
    RoomView {
        id: r.id.clone(),
        name: r.name.clone(),
        description: r.description.clone(),
        exits: r
            .exits
            .iter()
            .map(|e| {
                let to = world.map.room(e.to);
                ExitView {
                    name: e.name.clone(),
                    aliases: e.aliases.clone(),
                    to: to.id.clone(),
                    to_name: to.name.clone(),
                }
            })
            .collect(),
        things: r
            .things
            .iter()
            .map(|t| ThingView {
                id: t.id.clone(),
                name: t.name.clone(),
            })
            .collect(),
        people: shown.people.iter().map(|&p| p.to_owned()).collect(),
        games: shown
            .games
            .iter()
            .map(|s| GameView {
                session_id: s.id.to_string(),
                template: s.template.id.to_owned(),
                players: s.players_line(),
                status: s.status().to_owned(),
            })
            .collect(),
        older_finished: shown.older_finished,
    }
}

/// How many finished games a list shows after the running ones.
pub const RECENT_FINISHED: usize = 3;

/// How many running games a room's text names, the newest: a room where abandoned games pile
/// up (an agent may keep fifty running) still fits a screen, and `games` lists them all.
const RUNNING_NAMED: usize = 8;

/// The games worth listing, in the order given (oldest first): every running one, and the last
/// `keep` finished; and how many finished ones were left out. Finished games stay in the world
/// (they can be looked at, replayed, exported), but a room that lists them all soon reads like
/// a ledger.
pub fn worth_listing<'a>(
    sessions: impl Iterator<Item = &'a Session>,
    keep: usize,
) -> (Vec<&'a Session>, usize) {
    let all: Vec<&Session> = sessions.collect();
    let finished = all.iter().filter(|s| s.game.is_terminal()).count();
    let skip = finished.saturating_sub(keep);
    let mut seen = 0;
    let shown = all
        .into_iter()
        .filter(|s| {
            if !s.game.is_terminal() {
                return true;
            }
            seen += 1;
            seen > skip
        })
        .collect();
    (shown, skip)
}

/// A room for a MUD client's map (GMCP `Room.Info`): its id, name and where its exits lead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct RoomInfo {
    pub num: String,
    pub name: String,
    pub area: String,
    /// Exit name → the id of the room it leads to.
    pub exits: std::collections::BTreeMap<String, String>,
}

pub fn room_info(world: &World, room: RoomIdx) -> RoomInfo {
    let r = world.map.room(room);
    RoomInfo {
        num: r.id.clone(),
        name: r.name.clone(),
        area: world.map.name.clone(),
        exits: r
            .exits
            .iter()
            .map(|e| (e.name.clone(), world.map.room(e.to).id.clone()))
            .collect(),
    }
}

/// How a room is come to: looked at, or walked into (where a screen reader's user hears it
/// brief, its description left for `look`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Come {
    Looked,
    Walked,
}

/// The room as text: name, description, things, people, exits.
pub fn room_lines(world: &World, room: RoomIdx, viewer: &AgentId, come: Come) -> Vec<String> {
    lines_of(world, viewer, &shown(world, room, viewer), come)
}

/// The room as text and as data, from one look at it (`look` and `go` answer with both).
/// With `text_only` (a typed line, which prints the text and nothing else) the data is left
/// empty rather than copied out of the world for nobody.
pub fn room_seen(
    world: &World,
    room: RoomIdx,
    viewer: &AgentId,
    text_only: bool,
    come: Come,
) -> (Vec<String>, RoomView) {
    let shown = shown(world, room, viewer);
    let view = if text_only {
        RoomView::default()
    } else {
        view_of(world, &shown)
    };
    (lines_of(world, viewer, &shown, come), view)
}

fn lines_of(world: &World, viewer: &AgentId, shown: &Shown<'_>, come: Come) -> Vec<String> {
    let r = world.map.room(shown.room);
    let mut lines = Vec::with_capacity(6);
    // For a screen reader: brief when walked into, and every list one item a line.
    let plain = world.is_present(viewer) && world.player(viewer).display.screenreader;
    lines.push(r.name.clone());
    if !(plain && come == Come::Walked) {
        // A builder's words, like a player's, never begin a line as the narrator would.
        lines.push(crate::wrap::set_in_if_marked(&r.description).into_owned());
    }
    // A session's building shows how the session stands, as the viewer may see it.
    if let Some(s) = world
        .room_session(shown.room)
        .and_then(|sid| world.session(sid))
    {
        lines.extend(world.drawn_for(s, viewer));
    }
    if plain {
        lines.extend(r.things.iter().map(|t| format!("You see {} here.", t.name)));
    } else if !r.things.is_empty() {
        let names: Vec<&str> = r.things.iter().map(|t| t.name.as_str()).collect();
        lines.push(format!("You see {} here.", english_list(&names)));
    }
    let running = shown.games.iter().filter(|g| !g.game.is_terminal()).count();
    let unnamed = running.saturating_sub(RUNNING_NAMED);
    let mut passed = 0;
    for g in &shown.games {
        if !g.game.is_terminal() && passed < unnamed {
            passed += 1;
            continue;
        }
        // Where it stands ("black to move, move 1", how it ended), as `games` says it.
        let state = g.situation();
        lines.push(format!(
            "Game #{} ({}): {}, {state}. (`look #{}` to see it.)",
            g.id,
            g.template.title,
            g.players_line(),
            g.id
        ));
    }
    match unnamed {
        0 => {}
        1 => lines.push("One older game is in play here too (`games` lists it).".into()),
        n => lines.push(format!(
            "{n} older games are in play here too (`games` lists them)."
        )),
    }
    match shown.older_finished {
        0 => {}
        1 => lines.push("One older finished game is here too (`games all` lists it).".into()),
        n => lines.push(format!(
            "{n} older finished games are here too (`games all` lists them)."
        )),
    }
    match shown.people.as_slice() {
        [] => {}
        [one] => lines.push(format!("{one} is here.")),
        many if plain => lines.extend(many.iter().map(|p| format!("{p} is here."))),
        many => lines.push(format!("{} are here.", english_list(many))),
    }
    lines.extend(exit_lines(world, shown.room, plain));
    lines
}

/// The ways out of `room`, as `look` ends: one line, or for a screen reader one an exit.
pub fn exit_lines(world: &World, room: RoomIdx, plain: bool) -> Vec<String> {
    let r = world.map.room(room);
    if r.exits.is_empty() {
        return vec!["There are no obvious exits.".into()];
    }
    if plain {
        return r
            .exits
            .iter()
            .map(|e| format!("Exit {} to {}.", e.name, world.map.room(e.to).name))
            .collect();
    }
    let room_name = |e: &super::map::Exit| world.map.room(e.to).name.as_str();
    let long = r
        .exits
        .iter()
        .map(|e| e.name.len() + room_name(e).len() + 5);
    let mut exits = String::with_capacity("Exits: .".len() + long.sum::<usize>());
    exits.push_str("Exits: ");
    for (i, e) in r.exits.iter().enumerate() {
        if i > 0 {
            exits.push_str(", ");
        }
        // Pieces pushed, not `write!`: every `look` makes this line.
        exits.push_str(&e.name);
        exits.push_str(" (");
        exits.push_str(room_name(e));
        exits.push(')');
    }
    exits.push('.');
    vec![exits]
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct WhoList {
    pub players: Vec<WhoEntry>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct WhoEntry {
    pub name: String,
    pub connected_seconds: u64,
    pub idle_seconds: u64,
    /// The name of the room they are in.
    pub location: String,
    // The rating they are best known by and its board ("1662? chess/blitz"), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<String>,
}

/// Who is connected, by name.
pub fn who_list(world: &World, now: Instant) -> WhoList {
    let mut players: Vec<WhoEntry> = world
        .players()
        .map(|p| WhoEntry {
            name: p.name.clone(),
            connected_seconds: now.saturating_duration_since(p.connected_at).as_secs(),
            idle_seconds: now.saturating_duration_since(p.last_active).as_secs(),
            location: world.map.room(p.room).name.clone(),
            rating: world
                .ratings()
                .headline(&p.id)
                .map(|(board, r)| format!("{} {board}", r.shown())),
        })
        .collect();
    players.sort_by_key(|a| a.name.to_lowercase());
    WhoList { players }
}

/// The `who` table, as LambdaMOO draws it; for a screen reader (`plain`), a sentence a
/// player, no columns and no rules.
pub fn who_table(world: &World, now: Instant, plain: bool) -> Vec<String> {
    let list = who_list(world, now);
    if plain {
        let mut lines: Vec<String> = list
            .players
            .iter()
            .map(|p| {
                let rating = p
                    .rating
                    .as_deref()
                    .and_then(|r| r.split(' ').next())
                    .map_or(String::new(), |r| format!(", rated {r}"));
                format!(
                    "{}, in {}, connected {}, idle {}{rating}.",
                    p.name,
                    p.location,
                    duration_phrase(std::time::Duration::from_secs(p.connected_seconds)),
                    duration_phrase(std::time::Duration::from_secs(p.idle_seconds)),
                )
            })
            .collect();
        let n = list.players.len();
        lines.push(format!("{n} connected."));
        return lines;
    }
    let row =
        |a: &str, b: &str, c: &str, r: &str, d: &str| format!("{a:<20} {b:<12} {c:<12} {r:<6} {d}");
    let mut lines = vec![
        row(
            "Player name",
            "Connected",
            "Idle time",
            "Rating",
            "Location",
        ),
        row(
            "-----------",
            "---------",
            "---------",
            "------",
            "--------",
        ),
    ];
    for p in &list.players {
        lines.push(row(
            &p.name,
            &duration_phrase(std::time::Duration::from_secs(p.connected_seconds)),
            &duration_phrase(std::time::Duration::from_secs(p.idle_seconds)),
            // The number alone, to keep the row within a terminal's 80 columns; the board
            // is in the data, and in `ratings`.
            p.rating
                .as_deref()
                .and_then(|r| r.split(' ').next())
                .unwrap_or(""),
            &p.location,
        ));
    }
    let n = list.players.len();
    lines.push(format!(
        "Total: {n} player{} connected.",
        if n == 1 { "" } else { "s" }
    ));
    lines
}

/// The whole town for its map on the web: every room with its exits, who is there (people,
/// agents and the house's bots told apart) and the games standing there, and the games lately
/// over. Everything in it is what anyone walking the town could see.
#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TownView {
    pub name: String,
    pub rooms: Vec<TownRoom>,
    /// Games running, newest first.
    pub running: Vec<TownGame>,
    /// Games over, newest first (the last few).
    pub finished: Vec<TownGame>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TownRoom {
    pub id: String,
    pub name: String,
    /// (exit name, room id).
    pub exits: Vec<(String, String)>,
    pub occupants: Vec<Occupant>,
    /// The sessions standing here (running, or over and still shown).
    pub games: Vec<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct Occupant {
    pub name: String,
    /// `person` (a live connection), `agent` (MCP or REST), or `bot` (the house's).
    pub kind: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
pub struct TownGame {
    pub session_id: String,
    pub template: String,
    /// What people call its game ("Tic-tac-toe"), where `template` is its versioned id.
    pub title: String,
    pub players: String,
    pub status: String,
    /// Where it stands or ended: "Black to move", "Day 2, vote", "White wins".
    pub situation: String,
    /// The room it stands in, if any.
    pub room: Option<String>,
    /// Its page on the web, if its game has one (`/chess/3`).
    pub page: Option<String>,
}

/// How many finished games the town page lists.
const FINISHED_SHOWN: usize = 12;

pub fn town_view(world: &World) -> TownView {
    let game = |sid: super::sessions::SessionId| {
        let s = world.session(sid)?;
        Some(TownGame {
            session_id: sid.to_string(),
            template: s.template.id.to_owned(),
            title: s.template.title.to_owned(),
            players: s.players_line(),
            status: s.status().to_owned(),
            situation: s.ending().unwrap_or_else(|| s.situation()),
            room: s.room.map(|r| world.map.room(r).id.clone()),
            page: s.template.page_of(sid),
        })
    };
    let mut running = Vec::new();
    let mut finished = Vec::new();
    for sid in world.session_ids().into_iter().rev() {
        let Some(g) = game(sid) else { continue };
        if g.status == "active" {
            running.push(g);
        } else if finished.len() < FINISHED_SHOWN {
            finished.push(g);
        }
    }
    // A game's own room (a Werewolf match's building) is on the map while its game runs, or
    // while someone stands in it: finished games' rooms do not pile up there.
    let listed = |i: RoomIdx| match world.room_session(i).and_then(|sid| world.session(sid)) {
        Some(s) => !s.game.is_terminal() || !world.occupants(i).is_empty(),
        None => true,
    };
    let rooms = world
        .map
        .rooms
        .iter()
        .enumerate()
        // Pockets are nobody's to see.
        .filter(|&(i, r)| listed(i) && r.holder.is_none())
        .map(|(i, r)| {
            let mut occupants: Vec<Occupant> = world
                .occupants(i)
                .iter()
                .filter_map(|a| world.find_player(a))
                .map(|p| Occupant {
                    name: p.name.clone(),
                    kind: if super::is_house(&p.id) {
                        "bot"
                    } else if matches!(p.sink_kind(), super::Sink::Mailbox) {
                        "agent"
                    } else {
                        "person"
                    }
                    .to_owned(),
                })
                .collect();
            occupants.sort_by_key(|o| o.name.to_lowercase());
            TownRoom {
                id: r.id.clone(),
                name: r.name.clone(),
                exits: r
                    .exits
                    .iter()
                    .map(|e| (e.name.clone(), world.map.room(e.to).id.clone()))
                    .collect(),
                occupants,
                games: running
                    .iter()
                    .chain(&finished)
                    .filter(|g| g.room.as_deref() == Some(r.id.as_str()))
                    .map(|g| g.session_id.clone())
                    .collect(),
            }
        })
        .collect();
    TownView {
        name: world.map.name.clone(),
        rooms,
        running,
        finished,
    }
}
