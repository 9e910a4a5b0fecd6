//! Werewolf for eight in the town: the Town Hall's notice board is the queue; a full queue (or
//! a practice request) starts a `werewolf.v1` match, whose building appears off the Town Hall
//! with a door anyone may walk through to watch; when the match ends the door becomes a plaque
//! with the result. Each verb here is also one of the Werewolf tools (its name, schemas and
//! annotations from [`catalog`]), so people and agents play through one definition.
//!
//! Buildings and plaques are derived from the sessions, so they come back after a restart; the
//! queue is the board's list of names, and lives as long as the server does.

pub mod building;
pub mod catalog;
pub mod idempotency;
pub mod info;
pub mod play;
pub mod queue;
pub use moot_werewolf_rules as rules;
pub mod settings;

pub use settings::Flags;
pub mod web;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use moot_kernel::game_api::Code;
use moot_kernel::verbs::{VerbError, entry};
use moot_kernel::world::sessions::{HostError, Session, SessionId, iso, parse_id};
use moot_kernel::world::{AgentId, Cx, Extension, RoomIdx, ThingKind, World};
use rules::Werewolf;
use rules::events::Reader;

/// The notice board in the Town Hall: signing it is joining the queue.
pub const BOARD: ThingKind = ThingKind::named("werewolf_board");
/// The one queue (the tools' `queueId` names it).
pub const QUEUE_ID: &str = "werewolf-default";
/// Players a match needs.
pub const REQUIRED: usize = rules::SEATS;

/// The queue and the matches' buildings.
#[derive(Debug, Default)]
pub struct WerewolfTown {
    /// Who signed the board, oldest first, with the name they play under.
    pub queue: Vec<(AgentId, String)>,
    /// When the oldest name now on the board was signed (the house fills the board once it
    /// has waited long enough).
    pub since: Option<tokio::time::Instant>,
    /// Each match's building, by session.
    pub buildings: BTreeMap<SessionId, Building>,
    /// Answers kept under idempotency keys, by identity (see [`once`]).
    pub keys: std::collections::HashMap<AgentId, std::collections::VecDeque<idempotency::Keyed>>,
    /// How long the board waits before the house fills it, if ever (`--werewolf-fill-after`).
    pub fill_after: Option<std::time::Duration>,
    /// Whether the board's matches may be watched whole while they run
    /// (`--werewolf-omniscient live`).
    pub all_seeing_live: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct Building {
    /// "Werewolf Game #N".
    pub number: usize,
    pub room: RoomIdx,
    /// The door has become a plaque.
    pub ended: bool,
}

impl Extension for WerewolfTown {
    fn forget(&mut self, who: &AgentId) {
        // Someone who leaves the town leaves the queue: a match must not wait on them.
        self.queue.retain(|(a, _)| a != who);
        if self.queue.is_empty() {
            self.since = None;
        }
    }
}

/// The room with the notice board (the Town Hall), if the town has one.
pub fn hall(world: &World) -> Option<RoomIdx> {
    world
        .map
        .rooms
        .iter()
        .position(|r| r.things.iter().any(|t| t.kind == BOARD))
}

/// The match `sid`, if it is a Werewolf match.
pub fn game_of(world: &World, sid: SessionId) -> Option<&Werewolf> {
    world.session(sid).and_then(game_in)
}

/// Session `s`'s game, if it is a Werewolf match.
pub fn game_in(s: &Session) -> Option<&Werewolf> {
    s.game.as_any().downcast_ref::<Werewolf>()
}

/// Match `sid` and its session, for a tool that found its id a moment ago: the tools'
/// `MATCH_NOT_FOUND` rather than a panic should it not be there.
pub fn the_match(world: &World, sid: SessionId) -> Result<(&Session, &Werewolf), VerbError> {
    world
        .session(sid)
        .and_then(|s| Some((s, game_in(s)?)))
        .ok_or_else(|| {
            refusal(
                world,
                Code::MatchNotFound,
                &format!("No Werewolf match {sid}"),
                None,
            )
        })
}

/// Wall-clock ISO time of game time `at` in match `s`.
pub fn iso_at(world: &World, s: &Session, at: u64) -> String {
    iso(world.wall_at(s, at))
}

pub fn server_time(world: &World) -> String {
    iso(world.wall_now())
}

/// An answer as the Werewolf tools give it: `{ok: true, serverTime, …, error: null}` around
/// `fields`, the one envelope every Werewolf tool answers in.
pub fn answer(world: &World, fields: Value) -> Value {
    let mut v = json!({ "ok": true, "serverTime": server_time(world), "error": null });
    if let (Some(o), Value::Object(f)) = (v.as_object_mut(), fields) {
        o.extend(f);
    }
    v
}

/// A refusal as the Werewolf tools give it, with its stable code (see `verbs::shaped`).
pub fn refusal(world: &World, code: Code, message: &str, retry_after_ms: Option<u64>) -> VerbError {
    let mut e = VerbError::refused(message);
    e.code = Some(code);
    e.retry_after = retry_after_ms.map(std::time::Duration::from_millis);
    moot_kernel::verbs::shaped(server_time(world), e)
}

/// A tool's count argument (`limit`), its default when not given; one outside the schema's
/// `1..=max` is refused as the schema would, rather than quietly clamped.
pub fn count(
    world: &World,
    name: &str,
    given: Option<usize>,
    default: usize,
    max: usize,
) -> Result<usize, VerbError> {
    match given {
        None => Ok(default),
        Some(n) if (1..=max).contains(&n) => Ok(n),
        Some(n) => Err(refusal(
            world,
            Code::InvalidRequest,
            &format!("{name} is 1 to {max}, not {n}"),
            None,
        )),
    }
}

/// A refusal from the host, with the rules' own code where they gave one.
pub fn host_refusal(world: &World, e: HostError) -> VerbError {
    moot_kernel::verbs::shaped(server_time(world), e.into())
}

/// Admits one read of a match's state or events (at most `--read-rate` a second per identity, so
/// no agent polls the server flat), or refuses it with `RATE_LIMITED`.
pub fn admit_read(world: &World, cx: &Cx) -> Result<(), VerbError> {
    world
        .admit_read(&cx.actor, cx.now)
        .map_err(|e| host_refusal(world, e))
}

/// The match `agent` is to play in that waits for a game world to make it (the town answered
/// at once), or else the running (or, failing that, the latest) match they play in.
pub fn my_match(world: &World, agent: &AgentId) -> Option<SessionId> {
    if let Some(sid) = world.beginning_for(agent, TEMPLATE.id) {
        return Some(sid);
    }
    let mine: Vec<SessionId> = world
        .session_ids()
        .into_iter()
        .filter(|&sid| game_of(world, sid).is_some())
        .filter(|&sid| {
            world
                .session(sid)
                .is_some_and(|s| s.role_of(agent).is_some())
        })
        .collect();
    mine.iter()
        .rev()
        .find(|&&sid| world.session(sid).is_some_and(|s| !s.game.is_terminal()))
        .or(mine.last())
        .copied()
}

/// The match a tool names (`matchId`), or the caller's own.
pub fn named_match(
    world: &World,
    agent: &AgentId,
    match_id: Option<&str>,
) -> Result<SessionId, VerbError> {
    match match_id {
        Some(id) => parse_id(id.trim_start_matches('#'))
            .ok()
            .filter(|&sid| {
                game_of(world, sid).is_some()
                    || world
                        .begin_waiting(sid)
                        .is_some_and(|b| b.template == TEMPLATE.id)
            })
            .ok_or_else(|| {
                refusal(
                    world,
                    Code::MatchNotFound,
                    &format!("No Werewolf match {id}"),
                    None,
                )
            }),
        // Your own match; else the one whose building you stand in, as a spectator.
        None => my_match(world, agent)
            .or_else(|| building::building_of(world, agent))
            .ok_or_else(|| {
                refusal(
                    world,
                    Code::NotInMatch,
                    "You are not in a Werewolf match; name one",
                    None,
                )
            }),
    }
}

/// The match a tool names (or the caller's own), and the caller's seat's id in it.
pub fn match_for(
    world: &World,
    agent: &AgentId,
    match_id: Option<&str>,
) -> Result<(SessionId, &'static str), VerbError> {
    let sid = named_match(world, agent, match_id)?;
    // (As it is to begin, for one a game world is yet to make.)
    let role = world
        .role_in(sid, agent)
        .and_then(rules::seat_of)
        .map(rules::player_id)
        .ok_or_else(|| {
            refusal(
                world,
                Code::NotInMatch,
                &format!("You are not a player of match {sid}"),
                None,
            )
        })?;
    Ok((sid, role))
}

/// Who is reading match `sid`: a player reads as their seat; a spectator who asked for the
/// omniscient view (`omniscient`, refused to the match's players) reads everything; anyone
/// else reads as the public.
pub fn reader(world: &World, agent: &AgentId, sid: SessionId) -> Reader {
    let seat = world
        .session(sid)
        .and_then(|s| s.role_of(agent))
        .and_then(rules::seat_of);
    match seat {
        Some(s) => Reader::Seat(s),
        None if world.sees_all(sid, agent) => Reader::Omniscient,
        None => Reader::Public,
    }
}

/// The words after a verb, which must not be empty.
pub fn words<V: moot_kernel::verbs::Verb>(rest: &str) -> Result<String, VerbError> {
    let text = rest.trim();
    if text.is_empty() {
        return Err(moot_kernel::verbs::usage::<V>());
    }
    Ok(text.to_owned())
}

/// A player of `w` named by id (`p3`), display name (any case), or the display name without
/// its prefix where only one seat's fits (`Abel` for `Bot-Abel`); the word itself otherwise,
/// for the template to refuse.
pub fn target_id(w: &Werewolf, word: &str) -> String {
    let word = word.trim();
    if rules::seat_of(word).is_some() {
        return word.to_owned();
    }
    let seats = || 0..rules::SEATS;
    let exact = seats().find(|&s| w.name(s).eq_ignore_ascii_case(word));
    let unprefixed = || {
        let mut fits = seats().filter(|&s| {
            w.name(s)
                .rsplit_once('-')
                .is_some_and(|(_, last)| last.eq_ignore_ascii_case(word))
        });
        match (fits.next(), fits.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    };
    exact
        .or_else(unprefixed)
        .map_or_else(|| word.to_owned(), |s| rules::player_id(s).to_owned())
}

/// Takes `action` in match `sid` for the caller; returns the id of the first event it made.
pub fn act(
    world: &mut World,
    cx: &mut Cx,
    sid: SessionId,
    action: rules::Action,
) -> Result<String, VerbError> {
    // A match that has ended (before the caller's read, or by a deadline that fell due just
    // now) is the host's refusal, with the tools' WRONG_PHASE.
    world
        .play(cx, sid, moot_kernel::game_api::AnyAction::new(action), None)
        .map_err(|e| host_refusal(world, e))?;
    // The action is taken, so only its event's id is left to give, as the caller numbers it.
    let me = reader(world, &cx.actor, sid);
    Ok(game_of(world, sid)
        .and_then(|w| w.fresh_events().iter().find(|e| e.admits(me)))
        .map(|e| e.id_for(me))
        .unwrap_or_default())
}

/// Starts a match of `players` (agent, name, bot), the last of whom is the caller, that
/// spectators may see whole while it runs if `live` (and is rated if not); puts up its
/// building. Returns the match
/// and its number.
pub fn start_match(
    world: &mut World,
    cx: &mut Cx,
    players: &[(AgentId, String, bool)],
    live: bool,
) -> Result<(SessionId, usize), VerbError> {
    if players.len() != REQUIRED {
        return Err(refusal(
            world,
            Code::InvalidRequest,
            &format!("A match needs {REQUIRED} players, not {}", players.len()),
            None,
        ));
    }
    let participants: BTreeMap<String, String> = players
        .iter()
        .enumerate()
        .map(|(i, (a, _, _))| (rules::player_id(i).to_owned(), a.to_string()))
        .collect();
    let names: Vec<&str> = players.iter().map(|p| p.1.as_str()).collect();
    let bots: Vec<usize> = (0..players.len())
        .filter(|&i| players[i].2)
        .map(|i| i + 1)
        .collect();
    let spectating = if live { "live" } else { "after" };
    // Matches from the notice board are rated; a practice match, or any a town shows whole
    // while it runs (`--queue-all-seeing-live`), is not: its players' friends could watch. Nor
    // is one the house's bots sit in: they have no measured strength, and beating them would
    // buy a rating.
    let mut options = json!({
        "names": names,
        "bots": bots,
        "spectating": spectating,
        "rated": !live && bots.is_empty(),
    });
    // The lengths its lines name are the wall clock's, at the pace the town runs now.
    if world.time_scale() != 1.0 {
        options["pace"] = json!(world.time_scale());
    }
    let created = world
        .create_town_session(cx, "werewolf.v1", &participants, options)
        .map_err(|e| host_refusal(world, e))?;
    let sid = created.id;
    // One number for the match everywhere: its session's.
    let number = building::number_of(sid);
    building::raise(world, cx, sid);
    let line = format!(
        "[Town Crier] Werewolf Game #{number} begins: its door, `game{number}`, stands open in \
         the Town Hall. Players, type `ready`."
    );
    for (a, _, bot) in players {
        if !bot {
            cx.tell(a, line.as_str());
        }
    }
    Ok((sid, number))
}

/// The tools' `matchAssignment` for `agent` in match `sid`.
pub fn assignment(world: &mut World, sid: SessionId, agent: &AgentId) -> Value {
    // A match the town placed on a game world has its seats before that world makes it.
    let seat = world
        .role_in(sid, agent)
        .and_then(rules::seat_of)
        .map(|s| s + 1);
    let building = world.ext::<WerewolfTown>().buildings.get(&sid).copied();
    match (seat, building) {
        (Some(seat), Some(b)) => json!({
            "matchId": sid.to_string(),
            "buildingInstanceId": world.map.room(b.room).id,
            "seat": seat,
        }),
        _ => Value::Null,
    }
}

/// The Town Hall's board and the match buildings, for the town's map on the web.
pub fn town_board(world: &World) -> Value {
    let Some(town) = world.ext_ref::<WerewolfTown>() else {
        return json!({ "queue": [], "matches": [] });
    };
    // The running matches, and the last few finished (their pages replay them).
    let mut finished = 0;
    let matches: Vec<Value> = town
        .buildings
        .iter()
        .rev()
        .filter(|(_, b)| {
            finished += usize::from(b.ended);
            !b.ended || finished <= building::PLAQUES_KEPT
        })
        .filter_map(|(&sid, b)| {
            let w = game_of(world, sid)?;
            Some(json!({
                "matchId": sid.to_string(),
                "number": b.number,
                "phase": w.phase.name(),
                "day": w.day,
                "ended": b.ended,
                "room": world.map.room(b.room).id,
                "page": page_of(sid),
            }))
        })
        .collect();
    json!({
        "queue": town.queue.iter().map(|(_, name)| name).collect::<Vec<_>>(),
        "matches": matches,
    })
}

/// The rules and each role's card, as MCP prompts and resources (so an agent can read them
/// instead of asking again and again: fix 13 in [`catalog`]), rendered from the
/// configuration matches run with.
pub fn documents() -> Vec<moot_kernel::verbs::Document> {
    use rules::{Card, config::Config, text};
    let c = Config::default();
    let rules = text::rules(&c).join("\n");
    let mut docs = vec![moot_kernel::verbs::Document {
        name: "werewolf-rules",
        uri: "werewolf://rules".into(),
        title: "Werewolf Rules v1".into(),
        description: "The rules of werewolf.v1 as this town runs them: roles, phases, timers, \
                      wins."
            .into(),
        text: rules.clone(),
    }];
    for card in [Card::Villager, Card::Werewolf, Card::Seer, Card::Doctor] {
        let lower = card.title().to_lowercase();
        docs.push(moot_kernel::verbs::Document {
            name: match card {
                Card::Villager => "werewolf-role-villager",
                Card::Werewolf => "werewolf-role-werewolf",
                Card::Seer => "werewolf-role-seer",
                Card::Doctor => "werewolf-role-doctor",
            },
            uri: format!("werewolf://roles/{lower}"),
            title: format!("Role: {}", card.title()),
            description: format!("The {lower}'s role card, to keep in mind for a whole match."),
            text: format!(
                "Role: {}.\n{}\nKeep your role secret unless you choose to reveal it: the server \
                 tells nobody. Your tools: et.werewolf.match.get_state tells you what to do now \
                 and by when; et.werewolf.match.events.get (with waitSeconds) waits for what \
                 happens next.\n\n{rules}",
                card.title(),
                text::role_card(card, &c)
            ),
        });
    }
    docs
}

/// Where `help werewolf` leads, with the rules as the matches here run them.
pub const TOPIC: moot_kernel::verbs::Topic = moot_kernel::verbs::Topic {
    title: "Werewolf",
    words: &["werewolf", "wolves", "ww"],
    intro: "Eight play at a time: sign the notice board in the Town Hall (north of the \
square); at eight, a match's building opens off the hall, where anyone may watch. `werewolf \
practice` plays seven house bots at once.",
    more: Some(rules_text),
    more_with: Some("werewolf rules"),
};

/// The rules as the matches here run them, from the same configuration, their times the
/// wall clock's at the town's `pace`.
pub fn rules_text(pace: f64) -> Vec<String> {
    let c = rules::config::Config {
        pace,
        ..rules::config::Config::default()
    };
    rules::text::rules(&c)
}

/// The thirteen Werewolf tools and the practice match, at `/mcp/werewolf`.
pub const TOOLSET: moot_kernel::verbs::Toolset = moot_kernel::verbs::Toolset {
    name: "werewolf",
    summary: "the Werewolf server's tools: the queue, a practice match against the house's bots, \
              the match's state, events, speech, votes and night actions",
    wizards_only: false,
};

/// Werewolf's tools beyond the thirteen (`pass`, the all-seeing view, the report): the
/// town's, beside `watch`, so that `/mcp/werewolf` is exactly the Werewolf server agents were
/// written for (with the practice match, which they meet there).
pub(super) const EXTRAS: moot_kernel::verbs::Toolset = moot_kernel::verbs::Toolset::TOWN;

/// Each match's page on the web.
const PAGE: &str = "/werewolf/{match_id}";

/// `werewolf.v1` as the town runs it: with its page.
const TEMPLATE: moot_kernel::game_api::Template = moot_kernel::game_api::Template {
    page: Some(PAGE),
    ..moot_kernel::game_api::template::<Werewolf>()
};

/// The path of match `sid`'s page (the template has one, so it is never empty).
pub fn page_of(sid: SessionId) -> String {
    TEMPLATE.page_of(sid).unwrap_or_default()
}

/// Werewolf: the board, the matches' buildings, the thirteen tools, the live page.
pub static MODULE: moot_kernel::verbs::game_module::GameModule =
    moot_kernel::verbs::game_module::GameModule {
        name: "werewolf",
        templates: &[TEMPLATE],
        verbs: &[
            entry::<queue::Sign>(),
            entry::<queue::Unsign>(),
            entry::<queue::Queue>(),
            entry::<queue::Practice>(),
            entry::<play::WerewolfVerb>(),
            entry::<play::Ready>(),
            entry::<play::Speak>(),
            entry::<play::Pass>(),
            entry::<play::Vote>(),
            entry::<play::Kill>(),
            entry::<play::Inspect>(),
            entry::<play::Protect>(),
            entry::<play::Growl>(),
            entry::<info::Matches>(),
            entry::<info::MatchEvents>(),
            entry::<info::Omniscient>(),
            entry::<info::Report>(),
        ],
        topic: TOPIC,
        start: Some("werewolf practice"),
        commands: Some(building::SET),
        page: Some(moot_kernel::verbs::game_module::Page {
            path: PAGE,
            summary: "A Werewolf match as it happens (HTML), for the public or the signed-in viewer",
            html: web::html,
            frame: web::live,
            shared_feed: true,
            downloads: &[],
            actions: web::ACTIONS,
        }),
        reads: &[moot_kernel::verbs::game_module::ApiRead {
            path: "/werewolf/{match_id}/report",
            summary: "A finished Werewolf match's report (?export=true&viewer=PUBLIC|OMNISCIENT|p3 \
                  adds its events as JSON lines)",
            verb: &entry::<info::Report>(),
            arg: "matchId",
            public: false,
        }],
        app: None,
        skill: Some(
            "At `/mcp/werewolf`, `et.werewolf.practice.start` starts a match at once against seven \
         of the house's bots; its `matchAssignment.matchId` names the match \
         (`et.werewolf.queue.join` waits for eight players instead, and \
         `et.werewolf.queue.status` gives the `matchAssignment` once matched). Then, until `state.phase` \
         is `ENDED`: read `et.werewolf.match.get_state` `{\"matchId\"}`, whose \
         `state.you.requiredAction` says what to do now (`type`, `allowedTargets`, \
         `alreadySubmitted`): in the `LOBBY` call `et.werewolf.match.ready`; for \
         `SPEAK_OPENING` or `SPEAK_DISCUSSION`, `et.werewolf.match.say_public` \
         `{\"matchId\", \"text\"}`; for `VOTE`, `et.werewolf.match.vote` \
         `{\"matchId\", \"targetPlayerId\"}`; at night your role's \
         `et.werewolf.match.night.wolf_kill`, `et.werewolf.match.night.seer_inspect` or \
         `et.werewolf.match.night.doctor_protect` `{\"matchId\", \"targetPlayerId\"}` (wolves \
         talk with `et.werewolf.match.night.wolf_chat`). Between steps, wait with \
         `et.werewolf.match.events.get` `{\"matchId\", \"afterEventId\", \"waitSeconds\": 10}`, \
         giving as `afterEventId` the `nextCursor` of the answer before (left out the first \
         time): it returns as soon as anything happens after that event, with everything since. \
         Reads (`get_state`, `events.get`, `matches.list`, `queue.status`) are limited to 2 a \
         second for each identity, a long poll counting once: keep your reads half a second \
         apart, and after a `RATE_LIMITED` refusal wait its `retryAfterMs`. A refusal such as \
         `WRONG_PHASE` means the match moved on: read the state again.",
        ),
        hooks: moot_kernel::verbs::game_module::Hooks {
            open: Some(open),
            on_change: Some(building::after_change),
            on_tick: Some(queue::fill),
            documents: Some(documents),
            town: Some(moot_kernel::verbs::game_module::TownPart {
                data: town_board,
                section: include_str!("town_section.html"),
                script: include_str!("town_part.js"),
            }),
            unknown: None,
        },
    };

/// The buildings of the restored matches, and the tools' kept answers.
fn open(world: &mut World, kept: &moot_kernel::store::keys::Kept) {
    building::restore(world);
    idempotency::keep_answers(world, &kept.answers);
}

#[cfg(test)]
mod tests {
    use super::*;
    use moot_kernel::game_api::Game;

    /// `kill Abel` finds Bot-Abel: a player is named by seat, by display name, or by the
    /// display name without its prefix where that names one seat only; an exact name wins.
    #[test]
    fn a_player_is_named_by_seat_name_or_name_without_its_prefix() {
        let names = [
            "Ann", "Bot-Abel", "Bot-Bea", "Bot-Cid", "Bot-Dot", "Bea", "Bot-Fay", "Bot-Gus",
        ];
        let options = serde_json::json!({ "names": names, "bots": [2, 3, 4, 5, 7, 8] });
        let w = rules::Werewolf::new(7, &options).unwrap();
        assert_eq!(target_id(&w, "p2"), "p2");
        assert_eq!(target_id(&w, "bot-abel"), "p2");
        assert_eq!(target_id(&w, "Abel"), "p2");
        assert_eq!(target_id(&w, " abel "), "p2");
        // Bea is a person at seat 6; Bot-Bea is found by her whole name.
        assert_eq!(target_id(&w, "bea"), "p6");
        assert_eq!(target_id(&w, "Bot-Bea"), "p3");
        assert_eq!(target_id(&w, "Zed"), "Zed");
    }
}
