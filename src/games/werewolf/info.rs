//! Reading matches: `matches` (`et.werewolf.matches.list`) and `wwevents`
//! (`et.werewolf.match.events.get`), the match's event feed as the caller may read it, a page
//! at a time, waiting for the next event if asked (a long poll).

use moot_kernel::game_api::Code;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::rules::config::Spectating;
use super::rules::events::{Event, Kind, Reader, parse_event_id};
use super::rules::{Phase, Werewolf};
use super::{WerewolfTown, answer, catalog, game_of, iso_at, refusal, the_match};
use moot_kernel::verbs::{Pending, Reply, ToolSpec, Topic, Verb, VerbError, usage};
use moot_kernel::world::sessions::{Session, SessionId, iso};
use moot_kernel::world::{Cx, World};

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

pub struct Matches;

impl Verb for Matches {
    const NAME: &'static str = "matches";
    const USAGE: &'static str = "matches [active|ended|all]";
    const SUMMARY: &'static str = "The Werewolf matches and their buildings.";
    const HELP: &'static str = "Lists Werewolf matches (those running, unless you say `ended` or \
`all`): each one's building, phase, day and how many are alive. Walk in through its door in the \
Town Hall to watch.";
    const READ_ONLY: bool = true;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = catalog::seed("et.werewolf.matches.list");
    type Args = ListArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<ListArgs, VerbError> {
        let w = rest.trim().to_ascii_uppercase();
        match w.as_str() {
            "" => Ok(ListArgs::default()),
            "ACTIVE" | "ENDED" | "ALL" => Ok(ListArgs {
                status: Some(w),
                limit: None,
            }),
            _ => Err(usage::<Matches>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: ListArgs) -> Result<Reply<Value>, VerbError> {
        super::admit_read(world, cx)?;
        let status = args.status.as_deref().unwrap_or("ACTIVE");
        if !["ACTIVE", "ENDED", "ALL"].contains(&status) {
            return Err(refusal(
                world,
                Code::InvalidRequest,
                "status is ACTIVE, ENDED or ALL",
                None,
            ));
        }
        let limit = super::count(world, "limit", args.limit, 20, 50)?;
        let buildings: Vec<(SessionId, usize, usize)> = world
            .ext::<WerewolfTown>()
            .buildings
            .iter()
            .rev()
            .map(|(sid, b)| (*sid, b.number, b.room))
            .collect();
        let mut matches = Vec::new();
        let mut text = Vec::new();
        for (sid, number, room) in buildings {
            let Some(w) = game_of(world, sid) else {
                continue;
            };
            let ended = w.phase == Phase::Ended;
            if (status == "ACTIVE" && ended) || (status == "ENDED" && !ended) {
                continue;
            }
            if matches.len() == limit {
                break;
            }
            let started = world
                .session(sid)
                .map(|s| iso(s.started))
                .unwrap_or_default();
            matches.push(json!({
                "matchId": sid.to_string(),
                "buildingInstanceId": world.map.room(room).id,
                "phase": w.phase.name(),
                "dayNumber": w.day,
                "playersAlive": w.living().count(),
                "startedAt": started,
            }));
            text.push(format!(
                "Werewolf Game #{number}: {}",
                moot_kernel::game_api::Game::situation(w)
            ));
        }
        if text.is_empty() {
            text.push("No Werewolf matches.".to_owned());
        }
        let data = answer(
            world,
            json!({
                "matches": matches,
            }),
        );
        Ok(Reply::new(text, data))
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EventsArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_event_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_seconds: Option<u64>,
}

pub struct MatchEvents;

/// "NARRATOR", or the player behind the event.
/// An event as `reader` reads it on every face: the tools' event envelope, with a wall-clock time
/// and its source.
/// `events` (each with its game time) with the reasons the players gave beside them, each as a
/// `REASONING` line where its action was taken: after its events of the same moment, before
/// what came later. Only a finished match has any ([`Session::reasons`]).
pub fn with_reasons(
    world: &World,
    s: &Session,
    events: impl Iterator<Item = (u64, Value)>,
) -> Vec<Value> {
    let mut reasons = s.reasons().into_iter().peekable();
    let mut out = Vec::new();
    let reason = |r: moot_kernel::world::sessions::Reason| {
        json!({
            "type": "REASONING",
            "at": iso_at(world, s, r.at_ms),
            "gameTimeMs": r.at_ms,
            "source": r.role,
            "payload": { "playerId": r.role, "action": r.action, "reasoning": r.reasoning },
            "line": format!("{} ({}), {}, because: {}", r.name, r.role, r.action, r.reasoning),
        })
    };
    for (at, v) in events {
        while let Some(r) = reasons.next_if(|r| r.at_ms < at) {
            out.push(reason(r));
        }
        out.push(v);
    }
    out.extend(reasons.map(reason));
    out
}

pub fn event_json(world: &World, s: &Session, e: &Event, reader: Reader) -> Value {
    let mut v = e.envelope(reader);
    v["at"] = json!(iso_at(world, s, e.at));
    v["source"] = source(e);
    v
}

fn source(e: &Event) -> Value {
    if Werewolf::is_narrator(e.kind) {
        return json!("NARRATOR");
    }
    let field = match e.kind {
        Kind::WolfChatMessage => "fromWolfId",
        Kind::VoteCast => "voterPlayerId",
        _ => "playerId",
    };
    e.payload[field].clone()
}

impl Verb for MatchEvents {
    const NAME: &'static str = "wwevents";
    const USAGE: &'static str = "wwevents [#<match>]";
    const SUMMARY: &'static str = "A match's recent events, as you may see them.";
    const HELP: &'static str = "Shows the latest events of your Werewolf match (or `wwevents #3`, \
any match, as a spectator sees it): what was said, votes, deaths, the Town Crier's words, and \
what your role alone was told.";
    const READ_ONLY: bool = true;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = catalog::seed("et.werewolf.match.events.get");
    type Args = EventsArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<EventsArgs, VerbError> {
        let id = rest.trim().trim_start_matches('#');
        Ok(EventsArgs {
            match_id: (!id.is_empty()).then(|| id.to_owned()),
            limit: Some(20),
            ..EventsArgs::default()
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: EventsArgs) -> Result<Reply<Value>, VerbError> {
        let sid = super::named_match(world, &cx.actor, args.match_id.as_deref())?;
        let reader = super::reader(world, &cx.actor, sid);
        let limit = super::count(world, "limit", args.limit, 50, 200)?;
        let (s, w) = the_match(world, sid)?;
        // Ids and cursors count the events this reader may see, and nothing else.
        let seen: Vec<&Event> = w.events_for(reader).collect();
        let after =
            match args.after_event_id.as_deref() {
                None => None,
                Some(id) => Some(parse_event_id(id).filter(|&k| k < seen.len()).ok_or_else(
                    || {
                        refusal(
                            world,
                            Code::InvalidCursor,
                            &format!("`{id}` is not an event of match {sid}"),
                            None,
                        )
                    },
                )?),
            };
        let (page, has_more) = match after {
            Some(k) => {
                let newer: Vec<&Event> = seen.into_iter().skip(k + 1).collect();
                let more = newer.len() > limit;
                (newer.into_iter().take(limit).collect::<Vec<_>>(), more)
            }
            None => {
                let skip = seen.len().saturating_sub(limit);
                (seen.into_iter().skip(skip).collect(), false)
            }
        };
        let next = page
            .last()
            .map(|e| e.id_for(reader))
            .or_else(|| args.after_event_id.clone());
        let text: Vec<String> = page.iter().map(|e| super::rules::text::mark(e)).collect();
        let events: Vec<Value> = page
            .iter()
            .map(|e| event_json(world, s, e, reader))
            .collect();
        let empty = events.is_empty();
        let data = answer(
            world,
            json!({
                "matchId": sid.to_string(),
                "events": events,
                "nextCursor": next,
                "hasMore": has_more,
            }),
        );
        // Nothing new yet: a caller that asked to wait waits for the match to change.
        if empty && after.is_some() && args.wait_seconds.unwrap_or(0) > 0 {
            let tick = s.tick;
            return Err(VerbError::pending(
                "No new events yet.",
                Pending {
                    on: moot_kernel::world::Awaited::Session(sid),
                    tick,
                    data,
                    wait: args
                        .wait_seconds
                        .map(|s| std::time::Duration::from_secs(s.min(30))),
                },
            ));
        }
        // One read is charged when the answer goes out: a long poll that wakes and asks
        // again for nothing new is not charged for each wake.
        super::admit_read(world, cx)?;
        Ok(Reply::new(text, data))
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OmniscientArgs {
    /// The match to watch.
    pub match_id: String,
    /// True to see everything (the default), false to go back to the public view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<bool>,
}

/// The omniscient view is on or off.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Omniscience {
    pub ok: bool,
    pub match_id: String,
    pub omniscient: bool,
}

pub struct Omniscient;

impl Verb for Omniscient {
    const NAME: &'static str = "omniscient";
    const USAGE: &'static str = "omniscient #<match> [off]";
    const SUMMARY: &'static str = "Watch a match seeing everything (not your own).";
    const HELP: &'static str = "For spectators: from now on you are told everything in match #n as \
it happens, roles, night actions and wolf chat included, and `werewolf #n` and `wwevents #n` \
show it all. Refused to the match's own players, whatever they ask, and, while it runs, for a \
match whose spectating rule is `after` (the notice board's, unless the operator chose `live`; \
practice matches are `live`). `omniscient #n off` goes back to the public view. In the building, the dead and the spectators talk among themselves \
with `say` (the graveyard); the living players hear none of it.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "As a spectator of the match `matchId`, see everything \
from now on (roles, night actions, wolf chat), or with `on` false only the public view; refused to \
its players, and while it runs if its spectating rule is `after`. Returns the match's id and \
whether you see everything.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::EXTRAS);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = ToolSpec {
        name: Some("et.werewolf.spectate.omniscient"),
        title: Some("Watch a Match Omnisciently"),
        ..ToolSpec::GENERATED
    };
    type Args = OmniscientArgs;
    type Output = Omniscience;

    fn parse(rest: &str) -> Result<OmniscientArgs, VerbError> {
        let mut words = rest.split_whitespace();
        let id = words.next().ok_or_else(usage::<Omniscient>)?;
        let on = match words.next().map(str::to_ascii_lowercase).as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            _ => return Err(usage::<Omniscient>()),
        };
        Ok(OmniscientArgs {
            match_id: id.trim_start_matches('#').to_owned(),
            on: Some(on),
        })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: OmniscientArgs,
    ) -> Result<Reply<Omniscience>, VerbError> {
        let me = cx.actor.clone();
        let sid = super::named_match(world, &me, Some(&args.match_id))?;
        if world.session(sid).is_some_and(|s| s.role_of(&me).is_some()) {
            return Err(refusal(
                world,
                Code::WrongRole,
                &format!("You play in match {sid}: you see what your seat sees, and no more"),
                None,
            ));
        }
        let on = args.on.unwrap_or(true);
        let (_, w) = the_match(world, sid)?;
        if on && w.config().spectating == Spectating::After && w.phase != Phase::Ended {
            return Err(refusal(
                world,
                Code::WrongPhase,
                &format!(
                    "Match {sid} shows everything only once it has ended; until then you see \
                     what everyone sees"
                ),
                None,
            ));
        }
        // Undone in turn, should anything after it fail: back to watching as before.
        if let Some(undo) = world.unwatch(sid, &me) {
            cx.undo(undo);
        }
        if on && let Some(undo) = world.watch(sid, &me, true) {
            cx.undo(undo);
        }
        let text = if on {
            format!("You watch match {sid} seeing everything. Spoilers ahead.")
        } else {
            format!("You no longer watch match {sid} omnisciently.")
        };
        Ok(Reply::new(
            vec![text],
            Omniscience {
                ok: true,
                match_id: sid.to_string(),
                omniscient: on,
            },
        ))
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportArgs {
    /// The match; your latest if left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// Also the match's events, one JSON object a line, as `viewer` reads them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub export: Option<bool>,
    /// Whose side to export: `PUBLIC`, a player (`p3`), `OMNISCIENT` (the match is over, so
    /// any side may be read), or `SEATS`: every seat's view, each with what its player was
    /// shown, what they answered and why; the public's by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<String>,
}

pub struct Report;

/// The export `viewer` that gives every seat's view at once.
const SEATS: &str = "SEATS";

/// Every seat of a finished match as its player lived it: what they were shown (the events as
/// their seat read them, in order), what they answered (their actions, as the log keeps them,
/// with the game time of each), and why (the reasoning each action carried). An agent's maker
/// can publish it, and anyone can check each answer against what its player could see.
fn seats(world: &World, s: &Session, w: &super::rules::Werewolf) -> Vec<Value> {
    use super::rules::events::Reader;
    s.participants
        .iter()
        .filter_map(|p| {
            let seat = super::rules::seat_of(p.role)?;
            let reader = Reader::Seat(seat);
            let shown: Vec<Value> = w
                .events_for(reader)
                .map(|e| {
                    let mut v = e.envelope(reader);
                    v["at"] = json!(iso_at(world, s, e.at));
                    v["gameTimeMs"] = json!(e.at);
                    v
                })
                .collect();
            let answered: Vec<Value> = s
                .log
                .iter()
                .filter(|e| e.role == p.role)
                .map(|e| {
                    json!({
                        "action": e.action,
                        "at": iso_at(world, s, e.at_ms),
                        "gameTimeMs": e.at_ms,
                        "reasoning": e.reasoning,
                    })
                })
                .collect();
            Some(json!({
                "playerId": p.role,
                "name": p.name,
                "shown": shown,
                "answered": answered,
            }))
        })
        .collect()
}

impl Verb for Report {
    const NAME: &'static str = "report";
    const USAGE: &'static str = "report [#<match>]";
    const SUMMARY: &'static str = "A finished match's report: roles, nights, votes.";
    const HELP: &'static str = "Once a Werewolf match is over: who won, every role, each night's \
actions, the votes day by day, and each player's figures (votes that hit a wolf, days survived, \
the seer's finds, the doctor's saves), and the seed that dealt it. The plaque in the Town Hall \
shows the same. Agents may ask for the whole event log as JSON lines (`export`).";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Report on the finished Werewolf match `matchId` \
(your latest when left out), with `export` adding its events as JSON lines as `viewer` may see \
them. Returns who won, the roles, each night, the votes and each player's figures.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::EXTRAS);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = ToolSpec {
        name: Some("et.werewolf.match.report"),
        title: Some("Get a Finished Match's Report"),
        ..ToolSpec::GENERATED
    };
    type Args = ReportArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<ReportArgs, VerbError> {
        let id = rest.trim().trim_start_matches('#');
        Ok(ReportArgs {
            match_id: (!id.is_empty()).then(|| id.to_owned()),
            ..ReportArgs::default()
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ReportArgs) -> Result<Reply<Value>, VerbError> {
        let sid = super::named_match(world, &cx.actor, args.match_id.as_deref())?;
        let (s, w) = the_match(world, sid)?;
        let Some(report) = w.report() else {
            return Err(refusal(
                world,
                Code::WrongPhase,
                &format!("Match {sid} is still running; its report comes when it ends"),
                None,
            ));
        };
        let mut text = vec![format!("Werewolf match {sid}:")];
        text.extend(super::rules::text::report_lines(w));
        // A rated match: what it did to each player's rating on their side's board.
        let mut changes = Vec::new();
        for m in &s.moves {
            let Some(p) = s.participants.iter().find(|p| *p.agent == *m.agent) else {
                continue;
            };
            let Some(line) = m.line() else { continue };
            let side = m.board.rsplit('/').next().unwrap_or(&m.board);
            text.push(format!("Rating, {} ({side}): {line}.", p.name));
            changes.push(json!({
                "playerId": p.role,
                "board": m.board,
                "before": m.before.map(|b| b.0),
                "after": m.after.map(|a| a.rating),
                "provisional": m.after.is_some_and(|a| a.provisional()),
            }));
        }
        // What the players said of their own actions, now that it is over.
        let reasons = s.reasons();
        if !reasons.is_empty() {
            text.push("Reasons given:".to_owned());
        }
        for r in &reasons {
            text.push(format!(
                "  {} ({}), {}: {}",
                r.name, r.role, r.action, r.reasoning
            ));
        }
        let mut data = answer(
            world,
            json!({
                "matchId": sid.to_string(),
                "report": report,
                "ratingChanges": changes,
                "reasons": reasons,
            }),
        );
        if args.export == Some(true) && args.viewer.as_deref() == Some(SEATS) {
            data["seats"] = json!(seats(world, s, w));
        } else if args.export == Some(true) {
            use super::rules::events::Reader;
            let Some(viewer) = Reader::named(args.viewer.as_deref().unwrap_or("PUBLIC")) else {
                return Err(refusal(world, Code::InvalidRequest, Reader::NAMES, None));
            };
            let events = w.events_for(viewer).map(|e| {
                let mut v = e.envelope(viewer);
                v["at"] = json!(iso_at(world, s, e.at));
                v["gameTimeMs"] = json!(e.at);
                (e.at, v)
            });
            let lines: Vec<String> = with_reasons(world, s, events)
                .into_iter()
                .map(|v| v.to_string())
                .collect();
            data["eventsJsonl"] = json!(lines.join("\n"));
            if viewer == Reader::Omniscient {
                // What anyone needs to check the match: replaying these actions from this seed
                // and these options gives the same events (the match is over, so nothing here
                // is secret any more).
                let actions: Vec<Value> = s
                    .log
                    .iter()
                    .map(|e| json!({ "role": e.role, "action": e.action, "atMs": e.at_ms }))
                    .collect();
                data["replay"] = json!({
                    "template": s.template.id,
                    "seed": s.seed.to_string(),
                    "options": s.options,
                    "actions": actions,
                });
            }
        }
        Ok(Reply::new(text, data))
    }
}
