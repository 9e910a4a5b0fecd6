//! Playing a match: `ready`, `speak` (and `say` in the building), `pass`, `vote`, and at night
//! `kill`, `inspect`, `protect` and `growl` (wolf chat); `werewolf` shows where the match stands
//! (`et.werewolf.match.get_state`). Each takes the caller's match unless a `matchId` names one,
//! and players by id (`p3`) or by name.

use moot_kernel::game_api::Code;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::rules::events::Reader;
use super::rules::{Action, Phase, Target, Werewolf, player_id, seat_of, text};
use super::{act, answer, catalog, game_of, iso_at, match_for, target_id, the_match};
use moot_kernel::verbs::{Reply, ToolSpec, Topic, Verb, VerbError, usage};
use moot_kernel::world::sessions::{Session, SessionId};
use moot_kernel::world::{Cx, World};

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MatchArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// `p3`, or a player's name.
    pub target_player_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

fn target_args<V: Verb>(rest: &str) -> Result<TargetArgs, VerbError> {
    let t = rest.trim();
    if t.is_empty() || t.contains(char::is_whitespace) && seat_of(t).is_none() && t.len() > 32 {
        return Err(usage::<V>());
    }
    Ok(TargetArgs {
        target_player_id: t.to_owned(),
        ..TargetArgs::default()
    })
}

fn ok(world: &World, sid: SessionId, event_id: &str, key: &str, value: Value) -> Value {
    let mut v = answer(
        world,
        json!({
        "matchId": sid.to_string(),
        "eventId": event_id,
        }),
    );
    v[key] = value;
    v
}

/// A night action on a target: `make` makes the template's action, `key` is the tool's name
/// for its result. Returns the match, the action's event and the result.
fn night(
    world: &mut World,
    cx: &mut Cx,
    args: &TargetArgs,
    make: fn(Target) -> Action,
    key: &str,
) -> Result<(SessionId, String, Value), VerbError> {
    let me = cx.actor.clone();
    let (sid, role) = match_for(world, &me, args.match_id.as_deref())?;
    let (_, w) = the_match(world, sid)?;
    let target = target_id(w, &args.target_player_id);
    // Read before acting (acting changes no one's card), so nothing after it can fail.
    let value = night_value(key, role, &target, w);
    let event = act(world, cx, sid, make(Target(target)))?;
    Ok((sid, event, value))
}

pub struct Ready;

impl Verb for Ready {
    const NAME: &'static str = "ready";
    const USAGE: &'static str = "ready";
    const SUMMARY: &'static str = "Say you are ready, in a Werewolf match's lobby.";
    const HELP: &'static str = "In the lobby of your Werewolf match, tells everyone you are ready. \
The match begins when all eight are ready, or when the lobby's time runs out.";
    const READ_ONLY: bool = false;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = catalog::seed("et.werewolf.match.ready");
    type Args = MatchArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<MatchArgs, VerbError> {
        rest.trim()
            .is_empty()
            .then(MatchArgs::default)
            .ok_or_else(usage::<Ready>)
    }

    fn run(world: &mut World, cx: &mut Cx, args: MatchArgs) -> Result<Reply<Value>, VerbError> {
        let key = args.idempotency_key.clone();
        super::idempotency::once::<Self>(world, cx, key, args, |world, cx, args| {
            let me = cx.actor.clone();
            let (sid, role) = match_for(world, &me, args.match_id.as_deref())?;
            act(world, cx, sid, Action::Ready)?;
            let mut data = ok(world, sid, "", "ready", json!(true));
            data["playerId"] = json!(role);
            if let Some(o) = data.as_object_mut() {
                o.remove("eventId");
            }
            Ok(Reply::new(Vec::new(), data))
        })
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SpeakArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply_to_event_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

pub struct Speak;

impl Verb for Speak {
    const NAME: &'static str = "speak";
    const USAGE: &'static str = "speak <words>   (or `say` in the match's building)";
    const SUMMARY: &'static str = "Speak to your Werewolf match (by day).";
    const HELP: &'static str = "Says something in your Werewolf match, for everyone in it and \
watching it: your opening on your turn (DAY_OPENING), anything during DAY_DISCUSSION, and your \
last words if you were voted out. In the match's building, plain `say` does the same.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = catalog::seed("et.werewolf.match.say_public");
    type Args = SpeakArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<SpeakArgs, VerbError> {
        Ok(SpeakArgs {
            text: super::words::<Speak>(rest)?,
            ..SpeakArgs::default()
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: SpeakArgs) -> Result<Reply<Value>, VerbError> {
        let key = args.idempotency_key.clone();
        super::idempotency::once::<Self>(world, cx, key, args, |world, cx, args| {
            let me = cx.actor.clone();
            let (sid, role) = match_for(world, &me, args.match_id.as_deref())?;
            speak(world, cx, sid, role, &args)
        })
    }
}

/// Says `args.text` in match `sid` as `role`: the kind follows the phase (OPENING in
/// DAY_OPENING: fix 10 in [`super::catalog`]).
pub fn speak(
    world: &mut World,
    cx: &mut Cx,
    sid: SessionId,
    role: &'static str,
    args: &SpeakArgs,
) -> Result<Reply<Value>, VerbError> {
    let phase = the_match(world, sid)?.1.phase;
    let kind = match phase {
        Phase::DayOpening => "OPENING",
        Phase::DayResolution => "LAST_WORDS",
        _ => "DISCUSSION",
    };
    if let Some(k) = args.kind.as_deref().filter(|k| *k != kind) {
        return Err(super::refusal(
            world,
            Code::WrongPhase,
            &format!("It is {}: a message now is {kind}, not {k}", phase.told()),
            None,
        ));
    }
    let action = match (&args.reply_to_event_id, seat_of(role)) {
        (Some(id), Some(seat)) => the_match(world, sid)?.1.reply(seat, id, &args.text),
        _ => Action::Say(args.text.clone()),
    };
    let event = act(world, cx, sid, action)?;
    let me = super::reader(world, &cx.actor, sid);
    let text = game_of(world, sid)
        .and_then(|w| w.event_named(me, &event))
        .map_or(args.text.clone(), |e| {
            e.payload["text"].as_str().unwrap_or("").to_owned()
        });
    let data = ok(
        world,
        sid,
        &event,
        "message",
        json!({ "playerId": role, "kind": kind, "text": text }),
    );
    Ok(Reply::new(Vec::new(), data))
}

pub struct Pass;

impl Verb for Pass {
    const NAME: &'static str = "pass";
    const USAGE: &'static str = "pass";
    const SUMMARY: &'static str = "Pass your turn to speak in the openings.";
    const HELP: &'static str = "During DAY_OPENING, when it is your turn to speak, gives the floor \
to the next player without a word.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Give up your turn to speak in DAY_OPENING without a \
word (`matchId` if you play several). Returns the accepted action, as et.werewolf.match.say_public \
does.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::EXTRAS);
    const TOPIC: Topic = super::TOPIC;
    type Args = MatchArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<MatchArgs, VerbError> {
        rest.trim()
            .is_empty()
            .then(MatchArgs::default)
            .ok_or_else(usage::<Pass>)
    }

    fn run(world: &mut World, cx: &mut Cx, args: MatchArgs) -> Result<Reply<Value>, VerbError> {
        let me = cx.actor.clone();
        let (sid, role) = match_for(world, &me, args.match_id.as_deref())?;
        let event = act(world, cx, sid, Action::Pass)?;
        let data = ok(world, sid, &event, "playerId", json!(role));
        Ok(Reply::new(Vec::new(), data))
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VoteArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    /// `p3`, a player's name, or null to abstain.
    pub target_player_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

pub struct Vote;

impl Verb for Vote {
    const NAME: &'static str = "vote";
    const USAGE: &'static str = "vote <name|none> [reason]";
    const SUMMARY: &'static str = "Vote to eliminate someone (by day).";
    const HELP: &'static str = "During DAY_VOTE, votes to eliminate a living player (by name or id, \
not yourself), or `vote none` to abstain; anything after the name is your reason, shown to all. \
You may change your vote until the vote ends. Most votes is eliminated; a tie spares everyone.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = catalog::seed("et.werewolf.match.vote");
    type Args = VoteArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<VoteArgs, VerbError> {
        let rest = rest.trim();
        let (who, reason) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if who.is_empty() {
            return Err(usage::<Vote>());
        }
        let abstain = ["none", "nobody", "abstain"]
            .iter()
            .any(|w| w.eq_ignore_ascii_case(who));
        Ok(VoteArgs {
            target_player_id: (!abstain).then(|| who.to_owned()),
            reason: (!reason.trim().is_empty()).then(|| reason.trim().to_owned()),
            ..VoteArgs::default()
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: VoteArgs) -> Result<Reply<Value>, VerbError> {
        let key = args.idempotency_key.clone();
        super::idempotency::once::<Self>(world, cx, key, args, |world, cx, args| {
            let me = cx.actor.clone();
            let (sid, role) = match_for(world, &me, args.match_id.as_deref())?;
            let (_, w) = the_match(world, sid)?;
            let target = args.target_player_id.as_deref().map(|t| target_id(w, t));
            let action = Action::Vote {
                // Naming "none" (or "abstain") is voting for no one, as the log spells it.
                target: target
                    .clone()
                    .filter(|t| !matches!(t.as_str(), "none" | "abstain"))
                    .map(Target),
                reason: args.reason.as_deref().unwrap_or("").trim().to_owned(),
            };
            let event = act(world, cx, sid, action)?;
            let data = ok(
                world,
                sid,
                &event,
                "vote",
                json!({ "voterPlayerId": role, "targetPlayerId": target }),
            );
            Ok(Reply::new(Vec::new(), data))
        })
    }
}

macro_rules! night_verb {
    ($ty:ident, $name:literal, $tool:literal, $make:expr, $key:literal, $summary:literal, $help:literal) => {
        pub struct $ty;

        impl Verb for $ty {
            const NAME: &'static str = $name;
            const USAGE: &'static str = concat!($name, " <name>");
            const SUMMARY: &'static str = $summary;
            const HELP: &'static str = $help;
            const READ_ONLY: bool = false;
            const REASONED: bool = true;
            const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
            const TOPIC: Topic = super::TOPIC;
            const TOOL: ToolSpec = catalog::seed($tool);
            type Args = TargetArgs;
            type Output = Value;

            fn parse(rest: &str) -> Result<TargetArgs, VerbError> {
                target_args::<$ty>(rest)
            }

            fn run(
                world: &mut World,
                cx: &mut Cx,
                args: TargetArgs,
            ) -> Result<Reply<Value>, VerbError> {
                // Only night roles have a night action: trying one, taken, refused or
                // retried, leaves no public trace (no idle time moves).
                cx.hidden = true;
                let key = args.idempotency_key.clone();
                super::idempotency::once::<Self>(world, cx, key, args, |world, cx, args| {
                    let (sid, event, value) = night(world, cx, &args, $make, $key)?;
                    let data = ok(world, sid, &event, $key, value);
                    Ok(Reply::new(Vec::new(), data))
                })
            }
        }
    };
}

/// The night tools' result object for a night action.
fn night_value(key: &str, role: &str, target: &str, w: &super::rules::Werewolf) -> Value {
    match key {
        "result" => {
            let wolf =
                seat_of(target).is_some_and(|s| w.players[s].card == super::rules::Card::Werewolf);
            json!({ "targetPlayerId": target, "alignment": if wolf { "WEREWOLF" } else { "NOT_WEREWOLF" } })
        }
        _ => json!({ "byPlayerId": role, "targetPlayerId": target }),
    }
}

night_verb!(
    Kill,
    "kill",
    "et.werewolf.match.night.wolf_kill",
    Action::Kill,
    "selection",
    "As a werewolf: choose tonight's victim.",
    "During NIGHT, a werewolf picks a living non-wolf to kill; your last pick counts, and your \
partner sees it. If the wolves pick different victims, chance decides between them; if neither \
picks, the server picks at random."
);
night_verb!(
    Inspect,
    "inspect",
    "et.werewolf.match.night.seer_inspect",
    Action::Inspect,
    "result",
    "As the seer: learn if someone is a wolf.",
    "During NIGHT, the seer inspects one living player (not themselves) and learns at once, \
privately, whether they are a werewolf. Once a night."
);
night_verb!(
    Protect,
    "protect",
    "et.werewolf.match.night.doctor_protect",
    Action::Protect,
    "protection",
    "As the doctor: guard someone tonight.",
    "During NIGHT, the doctor protects one living player (themselves too) from the wolves; not \
the same player two nights running. Your last choice counts."
);

pub struct Growl;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChatArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

impl Verb for Growl {
    const NAME: &'static str = "growl";
    const ALIASES: &'static [&'static str] = &["wolfchat"];
    const USAGE: &'static str = "growl <words>";
    const SUMMARY: &'static str = "Talk with your fellow werewolf at night.";
    const HELP: &'static str = "During NIGHT, a living werewolf's words to the pack: only the \
wolves (and spectators the server lets see everything) hear them.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = catalog::seed("et.werewolf.match.night.wolf_chat");
    type Args = ChatArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<ChatArgs, VerbError> {
        Ok(ChatArgs {
            text: super::words::<Growl>(rest)?,
            ..ChatArgs::default()
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ChatArgs) -> Result<Reply<Value>, VerbError> {
        // Only wolves talk at night: trying to leaves no public trace.
        cx.hidden = true;
        let key = args.idempotency_key.clone();
        super::idempotency::once::<Self>(world, cx, key, args, |world, cx, args| {
            let me = cx.actor.clone();
            let (sid, role) = match_for(world, &me, args.match_id.as_deref())?;
            let event = act(world, cx, sid, Action::WolfChat(args.text.clone()))?;
            let data = ok(
                world,
                sid,
                &event,
                "message",
                json!({ "playerId": role, "text": args.text.trim() }),
            );
            Ok(Reply::new(Vec::new(), data))
        })
    }
}

/// What `werewolf` shows besides the state (telnet only: the tool's schema has no such field).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Show {
    #[default]
    State,
    Rules,
    Practice,
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StateArgs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_transcript_summary: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_recent_public_messages: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recent_public_messages_limit: Option<usize>,
    #[serde(skip)]
    pub show: Show,
}

pub struct WerewolfVerb;

impl Verb for WerewolfVerb {
    const NAME: &'static str = "werewolf";
    const ALIASES: &'static [&'static str] = &["ww"];
    const USAGE: &'static str = "werewolf [rules|practice|#<match>]";
    const SUMMARY: &'static str = "Where your match stands, and what to do.";
    const HELP: &'static str = "Shows your Werewolf match (or `werewolf #3`, any match): the phase \
and the time left, who is alive, the votes, and what you must do now and by when. `werewolf \
rules` gives the rules as this town runs them; `werewolf practice` starts a match against seven \
house bots.";
    // Reading the state changes nothing (`werewolf practice` is admitted as a write below).
    const READ_ONLY: bool = true;
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(super::TOOLSET);
    const TOPIC: Topic = super::TOPIC;
    const TOOL: ToolSpec = catalog::seed("et.werewolf.match.get_state");
    type Args = StateArgs;
    type Output = Value;

    fn parse(rest: &str) -> Result<StateArgs, VerbError> {
        let rest = rest.trim();
        let mut args = StateArgs::default();
        match rest.to_ascii_lowercase().as_str() {
            "" => {}
            "rules" => args.show = Show::Rules,
            "practice" => args.show = Show::Practice,
            id if id.starts_with('#') || id.bytes().all(|b| b.is_ascii_digit()) => {
                args.match_id = Some(id.trim_start_matches('#').to_owned());
            }
            _ => return Err(usage::<WerewolfVerb>()),
        }
        Ok(args)
    }

    fn run(world: &mut World, cx: &mut Cx, args: StateArgs) -> Result<Reply<Value>, VerbError> {
        match args.show {
            Show::Rules => {
                let rules = super::rules_text(world.time_scale());
                return Ok(Reply::new(rules, answer(world, json!({}))));
            }
            Show::Practice => {
                world.admit_write(&cx.actor, cx.now)?;
                let r = super::queue::practice(world, cx)?;
                #[expect(
                    clippy::expect_used,
                    reason = "Practicing is a flag, a time and a JSON value: it always serializes"
                )]
                let data = serde_json::to_value(r.data).expect("Practicing serializes");
                return Ok(Reply::new(r.text, data));
            }
            Show::State => super::admit_read(world, cx)?,
        }
        let me = cx.actor.clone();
        // Anyone may look at a match by its id, as a spectator; a player sees their seat.
        let sid = super::named_match(world, &me, args.match_id.as_deref())?;
        let reader = super::reader(world, &me, sid);
        let (s, w) = the_match(world, sid)?;
        let recent = if args.include_recent_public_messages.unwrap_or(false) {
            super::count(
                world,
                "recentPublicMessagesLimit",
                args.recent_public_messages_limit,
                20,
                50,
            )?
        } else {
            0
        };
        // The reader may be all-seeing, which no role names: the match's own reader, read at
        // the town's pace and as the one asking reads.
        let lines = text::render(w, reader, world.reading(s, &me));
        let mut state = state_json(world, s, w, reader, recent);
        if args.include_transcript_summary == Some(false) {
            state["publicSummary"] = json!("");
        }
        let data = answer(
            world,
            json!({
                "state": state,
            }),
        );
        let mut text = vec![format!("Werewolf match {sid} ({}):", player_label(reader))];
        text.extend(lines);
        Ok(Reply::new(text, data))
    }
}

/// Match `w` (session `s`) as `reader` may see it, as every face shows it: `get_state`'s
/// `state`, with wall-clock times and the match id.
pub fn state_json(
    world: &World,
    s: &Session,
    w: &Werewolf,
    reader: Reader,
    recent: usize,
) -> Value {
    let mut state = w.state_for(reader, recent);
    state["matchId"] = json!(s.id.to_string());
    let at = |v: &Value| v.as_u64();
    if let Some(t) = at(&state["phaseEndsAt"]) {
        state["phaseEndsAt"] = json!(iso_at(world, s, t));
    }
    if let Some(t) = at(&state["you"]["requiredAction"]["deadline"]) {
        state["you"]["requiredAction"]["deadline"] = json!(iso_at(world, s, t));
    }
    if let Some(list) = state["recentPublicMessages"].as_array_mut() {
        for m in list {
            if let Some(t) = m["at"].as_u64() {
                m["at"] = json!(iso_at(world, s, t));
            }
        }
    }
    state
}

fn player_label(reader: Reader) -> String {
    match reader {
        Reader::Seat(s) => format!("you are {}", player_id(s)),
        _ => "watching".to_owned(),
    }
}
