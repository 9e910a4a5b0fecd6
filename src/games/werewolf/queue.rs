//! The queue (the Town Hall's notice board) and practice matches: `sign board`
//! (`et.werewolf.queue.join`), `unsign board` (`et.werewolf.queue.leave`), `queue`
//! (`et.werewolf.queue.status`) and `practice` (a match against seven house bots).

use moot_kernel::game_api::Code;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{
    BOARD, QUEUE_ID, REQUIRED, WerewolfTown, answer, assignment, catalog, game_of, hall, my_match,
    refusal, server_time, start_match,
};
use moot_kernel::verbs::{Reply, ToolSpec, Topic, Verb, VerbError};
use moot_kernel::world::{AgentId, Cx, ThingKind, World, house::BOTS};

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JoinArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preferred_display_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

/// "board", "the board", "notice board", or nothing.
fn board_words(rest: &str) -> Result<String, ()> {
    let rest = rest.trim();
    let rest = rest.strip_prefix("the ").unwrap_or(rest).trim();
    let (board, after) = match rest.split_once(' ') {
        Some((a, b)) if a.eq_ignore_ascii_case("notice") => (b.trim(), ""),
        Some((a, b)) => (a, b.trim()),
        None => (rest, ""),
    };
    let board = board.split_whitespace().next().unwrap_or("");
    if !(board.is_empty() || board.eq_ignore_ascii_case("board")) {
        return Err(());
    }
    Ok(after.strip_prefix("as ").unwrap_or(after).trim().to_owned())
}

fn check_queue_id(world: &World, id: &Option<String>) -> Result<(), VerbError> {
    match id.as_deref() {
        None | Some(QUEUE_ID) => Ok(()),
        Some(other) => Err(refusal(
            world,
            Code::QueueNotSupported,
            &format!("moot has one queue, `{QUEUE_ID}`, not `{other}`"),
            None,
        )),
    }
}

/// Who on the board may sit down now, longest waiting first: whoever has begun a match another
/// way since they signed (practice, `POST /sessions`) leaves the board, as practising takes
/// them off it, since a player plays one match at a time wherever it is played; one a match
/// is being made for on a game world meanwhile stays, but does not sit down yet.
fn seatable(world: &mut World, cx: &mut Cx) -> Vec<(AgentId, String)> {
    let before = world.ext::<WerewolfTown>().queue.clone();
    let playing: Vec<AgentId> = before
        .iter()
        .filter(|(a, _)| running_match(world, a).is_some())
        .map(|(a, _)| a.clone())
        .collect();
    if !playing.is_empty() {
        let town = world.ext::<WerewolfTown>();
        let since = town.since;
        town.queue.retain(|(a, _)| !playing.contains(a));
        if town.queue.is_empty() {
            town.since = None;
        }
        cx.undo(move |w| {
            let town = w.ext::<WerewolfTown>();
            town.queue = before;
            town.since = since;
        });
    }
    let queue = world.ext::<WerewolfTown>().queue.clone();
    queue
        .into_iter()
        .filter(|(a, _)| !world.making_a_match(a))
        .collect()
}

/// Refused while `me` plays a match (one at a time), or one is being made for them on a game
/// world.
fn not_in_a_match(world: &World, me: &AgentId) -> Result<(), VerbError> {
    let why = match running_match(world, me) {
        Some(sid) => format!("You are playing in match {sid}; finish it first"),
        None if world.making_a_match(me) => {
            "You are starting a match already; finish it first".to_owned()
        }
        None => return Ok(()),
    };
    Err(refusal(world, Code::AlreadyInMatch, &why, None))
}

/// The running match `agent` plays in, if any.
fn running_match(
    world: &World,
    agent: &AgentId,
) -> Option<moot_kernel::world::sessions::SessionId> {
    my_match(world, agent).filter(|&sid| {
        // One the town placed on a game world, not yet made there, runs too.
        world.is_beginning(sid)
            || game_of(world, sid).is_some_and(|w| !moot_kernel::game_api::Game::is_terminal(w))
    })
}

fn queue_json(world: &mut World, me: &AgentId, status: &str) -> Value {
    let q = &world.ext::<WerewolfTown>().queue;
    let position = q.iter().position(|(a, _)| a == me).map(|p| p + 1);
    json!({
        "queueId": QUEUE_ID,
        "position": position,
        "size": q.len(),
        "requiredPlayers": REQUIRED,
        "status": status,
        "estimatedStartSeconds": Value::Null,
    })
}

pub struct Sign;

impl Verb for Sign {
    const NAME: &'static str = "sign";
    const USAGE: &'static str = "sign board [as <name>]";
    const SUMMARY: &'static str = "Join the Werewolf queue (in the Town Hall).";
    const HELP: &'static str = "Signing the notice board in the Town Hall puts you in the queue \
for a Werewolf match; when eight have signed, the match begins and its building opens off the \
Town Hall. `sign board as <name>` plays under another name for that match. `unsign board` takes \
your name off; `queue` shows the list. Agents sign with the `et.werewolf.queue.join` tool.";
    const READ_ONLY: bool = false;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[BOARD];
    const TOOL: ToolSpec = catalog::seed("et.werewolf.queue.join");
    type Args = JoinArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<JoinArgs, VerbError> {
        let name = board_words(rest).map_err(|_| moot_kernel::verbs::usage::<Sign>())?;
        Ok(JoinArgs {
            preferred_display_name: (!name.is_empty()).then_some(name),
            ..JoinArgs::default()
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: JoinArgs) -> Result<Reply<Value>, VerbError> {
        let key = args.idempotency_key.clone();
        super::idempotency::once::<Self>(world, cx, key, args, |world, cx, args| {
            check_queue_id(world, &args.queue_id)?;
            let me = cx.actor.clone();
            not_in_a_match(world, &me)?;
            let name = match args.preferred_display_name.as_deref().map(str::trim) {
                Some(n) => {
                    if let Err(why) = super::rules::config::check_name(n, false) {
                        return Err(refusal(world, Code::InvalidRequest, &why, None));
                    }
                    n.to_owned()
                }
                None => world.player(&me).name.clone(),
            };
            let q = &mut world.ext::<WerewolfTown>().queue;
            let fresh = !q.iter().any(|(a, _)| *a == me);
            if fresh {
                // Names are told apart within a match.
                let taken = q.iter().any(|(_, n)| n.eq_ignore_ascii_case(&name));
                let name = if taken {
                    format!("{name}-{}", q.len() + 1)
                } else {
                    name
                };
                q.push((me.clone(), name));
                let town = world.ext::<WerewolfTown>();
                let since = town.since;
                // The first name on an empty board starts the wait.
                town.since = if town.queue.len() == 1 {
                    Some(cx.now)
                } else {
                    since.or(Some(cx.now))
                };
                let undo_me = me.clone();
                cx.undo(move |w| {
                    let town = w.ext::<WerewolfTown>();
                    town.queue.retain(|(a, _)| *a != undo_me);
                    town.since = since;
                });
            }
            let free = seatable(world, cx);
            if free.len() >= REQUIRED {
                // The eighth signature starts the match, with the signer in the last seat.
                let before = world.ext::<WerewolfTown>().queue.clone();
                // (Wherever the signer stands: an undone leave can fill the board to eight
                // without starting a match, and make the signer ninth.)
                let mut q = free;
                let signer = q.iter().position(|(a, _)| *a == me).map(|i| q.remove(i));
                q.truncate(REQUIRED - 1);
                q.extend(signer);
                let rest: Vec<(AgentId, String)> = before
                    .iter()
                    .filter(|signed| !q.contains(signed))
                    .cloned()
                    .collect();
                let players: Vec<(AgentId, String, bool)> =
                    q.into_iter().map(|(a, n)| (a, n, false)).collect();
                let (sid, number) =
                    match start_match(world, cx, &players, super::settings::all_seeing_live(world))
                    {
                        Ok(started) => started,
                        Err(e) => {
                            world.ext::<WerewolfTown>().queue.retain(|(a, _)| *a != me);
                            return Err(e);
                        }
                    };
                let town = world.ext::<WerewolfTown>();
                let since = town.since;
                town.since = (!rest.is_empty()).then_some(cx.now);
                town.queue = rest;
                cx.undo(move |w| {
                    let town = w.ext::<WerewolfTown>();
                    town.queue = before;
                    town.since = since;
                });
                let fields = json!({
                            "queue": queue_json(world, &me, "MATCHED"),
                            "matchAssignment": assignment(world, sid, &me),
                });
                let data = answer(world, fields);
                return Ok(Reply::new(
                    vec![format!(
                        "You sign the notice board: that makes eight. Werewolf Game #{number} begins!"
                    )],
                    data,
                ));
            }
            let size = world.ext::<WerewolfTown>().queue.len();
            if fresh && let Some(hall) = hall(world) {
                let line = format!(
                    "{} signs the notice board ({size} of {REQUIRED}).",
                    world.player(&me).name
                );
                cx.tell_room(world, hall, &me, line.as_str());
            }
            let fields = json!({
                    "queue": queue_json(world, &me, "WAITING"),
                    "matchAssignment": null,
            });
            let data = answer(world, fields);
            Ok(Reply::new(
                vec![format!(
                    "You are on the notice board ({size} of {REQUIRED}). The match begins when {REQUIRED} have signed."
                )],
                data,
            ))
        })
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LeaveArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

pub struct Unsign;

impl Verb for Unsign {
    const NAME: &'static str = "unsign";
    const USAGE: &'static str = "unsign board";
    const SUMMARY: &'static str = "Take your name off the Werewolf queue.";
    const HELP: &'static str = "Takes your name off the Town Hall's notice board, if it is there.";
    const READ_ONLY: bool = false;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[BOARD];
    const TOOL: ToolSpec = catalog::seed("et.werewolf.queue.leave");
    type Args = LeaveArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<LeaveArgs, VerbError> {
        match board_words(rest) {
            Ok(s) if s.is_empty() => Ok(LeaveArgs::default()),
            _ => Err(moot_kernel::verbs::usage::<Unsign>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: LeaveArgs) -> Result<Reply<Value>, VerbError> {
        let key = args.idempotency_key.clone();
        super::idempotency::once::<Self>(world, cx, key, args, |world, cx, args| {
            check_queue_id(world, &args.queue_id)?;
            let me = cx.actor.clone();
            let q = &mut world.ext::<WerewolfTown>().queue;
            let at = q.iter().position(|(a, _)| *a == me);
            if let Some(i) = at {
                let entry = q.remove(i);
                let town = world.ext::<WerewolfTown>();
                let since = town.since;
                if town.queue.is_empty() {
                    town.since = None;
                }
                cx.undo(move |w| {
                    let town = w.ext::<WerewolfTown>();
                    town.queue.insert(i.min(town.queue.len()), entry);
                    town.since = since;
                });
            }
            let size = world.ext::<WerewolfTown>().queue.len();
            let fields = json!({
                    "removed": at.is_some(),
                    "queue": { "queueId": QUEUE_ID, "size": size, "requiredPlayers": REQUIRED },
            });
            let data = answer(world, fields);
            let text = if at.is_some() {
                "You take your name off the notice board."
            } else {
                "Your name is not on the notice board."
            };
            Ok(Reply::new(vec![text.to_owned()], data))
        })
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_id: Option<String>,
}

pub struct Queue;

impl Verb for Queue {
    const NAME: &'static str = "queue";
    const USAGE: &'static str = "queue";
    const SUMMARY: &'static str = "Who has signed the Werewolf notice board.";
    const HELP: &'static str = "Shows the names on the Town Hall's notice board, your place among \
them, and your match if you are in one.";
    const READ_ONLY: bool = true;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[BOARD];
    const TOOL: ToolSpec = catalog::seed("et.werewolf.queue.status");
    type Args = StatusArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<StatusArgs, VerbError> {
        if rest.trim().is_empty() {
            Ok(StatusArgs::default())
        } else {
            Err(moot_kernel::verbs::usage::<Queue>())
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: StatusArgs) -> Result<Reply<Value>, VerbError> {
        super::admit_read(world, cx)?;
        check_queue_id(world, &args.queue_id)?;
        let me = cx.actor.clone();
        let running = running_match(world, &me);
        // Each name with its ratings on the two sides it may be dealt (`?`: provisional).
        let queue = world.ext::<WerewolfTown>().queue.clone();
        let names: Vec<String> = queue
            .iter()
            .map(|(agent, n)| {
                let on = |side: &str| {
                    world
                        .ratings()
                        .rating_on(agent, &format!("werewolf/{side}"))
                        .shown()
                };
                format!("{n} {}/{}", on("village"), on("wolves"))
            })
            .collect();
        let mut text = vec![if names.is_empty() {
            "Nobody has signed the notice board.".to_owned()
        } else {
            format!(
                "On the notice board ({} of {REQUIRED}), rated as village/wolves: {}.",
                names.len(),
                names.join(", ")
            )
        }];
        if let Some(sid) = running {
            text.push(format!("You are playing in match {sid}."));
        }
        let assignment = running.map_or(Value::Null, |sid| assignment(world, sid, &me));
        let status = if running.is_some() {
            "MATCHED"
        } else {
            "WAITING"
        };
        let fields = json!({
            "queue": queue_json(world, &me, status),
            "matchAssignment": assignment,
        });
        let data = answer(world, fields);
        Ok(Reply::new(text, data))
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PracticeArgs {}

/// A practice match has begun.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Practicing {
    pub ok: bool,
    pub server_time: String,
    /// As `et.werewolf.queue.join` gives it: `matchId`, `buildingInstanceId`, `seat`.
    pub match_assignment: Value,
}

pub struct Practice;

impl Verb for Practice {
    const NAME: &'static str = "practice";
    const USAGE: &'static str = "practice   (or: werewolf practice)";
    const SUMMARY: &'static str = "A practice match against seven house bots.";
    const HELP: &'static str = "Starts a Werewolf match at once, with you in the first seat and \
seven of the house's bots (Bot-Abel, Bot-Brigid…) in the others. It runs like any match: its \
building opens off the Town Hall, and anyone may watch.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Start a Werewolf match at once, you in the first seat \
and seven house bots in the others; needs nothing. Returns your match assignment, as \
et.werewolf.queue.join does when a match starts.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = ToolSpec {
        name: Some("et.werewolf.practice.start"),
        title: Some("Start a Werewolf Practice Match"),
        ..ToolSpec::GENERATED
    };
    type Args = PracticeArgs;
    type Output = Practicing;

    fn parse(rest: &str) -> Result<PracticeArgs, VerbError> {
        if rest.trim().is_empty() {
            Ok(PracticeArgs {})
        } else {
            Err(moot_kernel::verbs::usage::<Practice>())
        }
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        _: PracticeArgs,
    ) -> Result<Reply<Practicing>, VerbError> {
        practice(world, cx)
    }
}

/// Starts a practice match for the caller.
pub fn practice(world: &mut World, cx: &mut Cx) -> Result<Reply<Practicing>, VerbError> {
    let me = cx.actor.clone();
    not_in_a_match(world, &me)?;
    // Practising takes you off the board.
    let q = &mut world.ext::<WerewolfTown>().queue;
    if let Some(i) = q.iter().position(|(a, _)| *a == me) {
        let entry = q.remove(i);
        cx.undo(move |w| {
            // Others may have left the board since.
            let queue = &mut w.ext::<WerewolfTown>().queue;
            queue.insert(i.min(queue.len()), entry);
        });
    }
    let mut players = vec![(me.clone(), world.player(&me).name.clone(), false)];
    players.extend(
        BOTS.iter()
            .take(REQUIRED - 1)
            .map(|(id, name)| (AgentId::from(*id), (*name).to_owned(), true)),
    );
    let (sid, number) = start_match(world, cx, &players, true)?;
    let data = Practicing {
        ok: true,
        server_time: server_time(world),
        match_assignment: assignment(world, sid, &me),
    };
    // An agent is told the tools it calls, a person the words they type.
    let next = match cx.face {
        moot_kernel::world::Face::Mcp => {
            "Call `et.werewolf.match.ready`, then `et.werewolf.match.get_state` to see where it \
             stands."
        }
        _ => "Type `ready`, then `werewolf` to see where it stands.",
    };
    Ok(Reply::new(
        vec![format!(
            "Werewolf Game #{number} begins: you and seven house bots. {next}"
        )],
        data,
    ))
}

/// Once a second: when the oldest name on the board has waited as long as the town allows
/// (`--werewolf-fill-after`), the house's bots take the empty seats and the match begins, on
/// behalf of the longest-waiting signer.
pub fn fill(world: &mut World, cx: &mut Cx, now: tokio::time::Instant) {
    let Some(wait) = super::settings::fill_after(world) else {
        return;
    };
    let town = world.ext::<WerewolfTown>();
    let Some(since) = town.since else { return };
    if town.queue.is_empty() || now < since + wait {
        return;
    }
    let free = seatable(world, cx);
    // The match is started as the longest-waiting signer would start it.
    let Some(first) = free.first().map(|(a, _)| a.clone()) else {
        return;
    };
    let town = world.ext::<WerewolfTown>();
    let (before, since) = (town.queue.clone(), town.since.unwrap_or(since));
    // Eight at most sit down (an undone leave can put more on the board); the rest wait for
    // the next match.
    let seated = &free[..REQUIRED.min(free.len())];
    town.queue.retain(|signed| !seated.contains(signed));
    town.since = (!town.queue.is_empty()).then_some(now);
    let mut players: Vec<(AgentId, String, bool)> = seated
        .iter()
        .map(|(a, n)| (a.clone(), n.clone(), false))
        .collect();
    let taken: Vec<&str> = seated.iter().map(|(_, n)| n.as_str()).collect();
    players.extend(
        BOTS.iter()
            .filter(|(_, name)| !taken.contains(name))
            .take(REQUIRED - seated.len())
            .map(|(id, name)| (AgentId::from(*id), (*name).to_owned(), true)),
    );
    let server = std::mem::replace(&mut cx.actor, first);
    let live = super::settings::all_seeing_live(world);
    let started = start_match(world, cx, &players, live);
    cx.actor = server;
    let town = world.ext::<WerewolfTown>();
    match started {
        Ok(_) => cx.undo(move |w| {
            let town = w.ext::<WerewolfTown>();
            town.queue = before;
            town.since = Some(since);
        }),
        // Refused (the signer may have started another game meanwhile): the board stays.
        Err(_) => {
            town.queue = before;
            town.since = Some(since);
        }
    }
}
