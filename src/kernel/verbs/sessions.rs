//! The state-machine host's sessions as verbs, so an agent over MCP (or anyone on telnet) can
//! play any template, rps.v1 and tictactoe.v1 included: the same World functions as the REST
//! API, with the same checks and errors.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::parse::{text, whole, word};
use super::{NoArgs, Reply, Topic, Verb, VerbError, no_args, usage};
use crate::store::sessions::LogEntry;
use crate::world::sessions::{Acted, Created, StateView, Summary, parse_id};
use crate::world::{Cx, World};

pub struct SessionCreate;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateArgs {
    /// `chess.v1`, `rps.v1`, `tictactoe.v1` or `blackjack.v1`.
    pub template: String,
    /// Role → agent id (or name); every role filled, you among them.
    pub participants: BTreeMap<String, String>,
    /// Template options, e.g. `{"fen": "..."}` for chess.v1; the host's own: `rated` (true or
    /// false) and `deal` (the seed, for a series played again the same way; never rated).
    #[serde(default)]
    pub options: Value,
}

impl Verb for SessionCreate {
    const NAME: &'static str = "session_create";
    const PLACED: bool = true;
    const USAGE: &'static str = "session_create <template> <role>=<name> <role>=<name>";
    const SUMMARY: &'static str =
        "Start a session of any game template (rps.v1, tictactoe.v1, chess.v1...).";
    const HELP: &'static str = "Starts a session with every role filled by an agent (by id or name), you \
among them: `session_create rps.v1 player_1=Ann player_2=Bob`. Then `session_act`.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Start a session of `template` (`rps.v1`, \
`tictactoe.v1`, `connect4.v1`, `chess.v1`, `blackjack.v1`), `participants` mapping every role to an agent id or \
name (`house` for the house's computer), you among them; anyone else named must accept it (`session_accept`). Returns the \
session's id, template and status (`waiting` until they have).";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::SESSIONS);
    const TOPIC: Topic = Topic::AGENTS;
    type Args = CreateArgs;
    type Output = Created;

    fn parse(rest: &str) -> Result<CreateArgs, VerbError> {
        let (rest, template) = word(rest).map_err(|_| usage::<SessionCreate>())?;
        let mut participants = BTreeMap::new();
        for pair in rest.split_whitespace() {
            let (role, who) = pair.split_once('=').ok_or_else(usage::<SessionCreate>)?;
            participants.insert(role.to_owned(), who.to_owned());
        }
        Ok(CreateArgs {
            template: template.to_owned(),
            participants,
            options: Value::Null,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, a: CreateArgs) -> Result<Reply<Created>, VerbError> {
        // Names are accepted where ids are expected, for people typing, and `house` for the
        // house's computer, as `play … with house` and MCP's `play` take it.
        let participants = a
            .participants
            .into_iter()
            .map(|(role, who)| {
                // (A character named House is still theirs to name.)
                let id =
                    if who.eq_ignore_ascii_case("house") && world.directory.id_of(&who).is_none() {
                        crate::world::COMPUTER_ID.to_owned()
                    } else if world.directory.name_of(&who).is_some() {
                        who
                    } else {
                        world.directory.id_of(&who).unwrap_or(who)
                    };
                (role, id)
            })
            .collect();
        let c = world.create_session(cx, &a.template, &participants, a.options)?;
        let line = if c.status == crate::world::sessions::invite::WAITING {
            format!(
                "Session {} ({}) waits for the others named to accept it (`session_accept {}`).",
                c.session_id, c.template, c.session_id
            )
        } else {
            format!("Session {} ({}) started.", c.session_id, c.template)
        };
        Ok(Reply::new(vec![line], c))
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SessionArg {
    pub session_id: String,
}

pub(super) fn session_arg<V: Verb>(rest: &str) -> Result<SessionArg, VerbError> {
    whole(rest, word, usage::<V>).map(|s| SessionArg {
        session_id: s.trim_start_matches('#').to_owned(),
    })
}

pub struct SessionState;

impl Verb for SessionState {
    const NAME: &'static str = "session_state";
    const USAGE: &'static str = "session_state <session id>";
    const SUMMARY: &'static str = "A session's state as you may see it, with your legal actions.";
    const HELP: &'static str = "Shows the state (hidden parts hidden), the tick, your role and your legal \
actions. Only participants may look.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Show the session `session_id` as you may see it, \
hidden parts hidden; only participants may look. Returns the state, its tick, your role and your \
legal actions.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::SESSIONS);
    const TOPIC: Topic = Topic::AGENTS;
    type Args = SessionArg;
    type Output = StateView;

    fn parse(rest: &str) -> Result<SessionArg, VerbError> {
        session_arg::<SessionState>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, a: SessionArg) -> Result<Reply<StateView>, VerbError> {
        let v = world.session_state(parse_id(&a.session_id)?, &cx.actor)?;
        if cx.data_only {
            return Ok(Reply::new(Vec::new(), v));
        }
        let text = vec![
            format!(
                "Session {} ({}), {}, tick {}; you are {}.",
                v.session_id, v.template, v.status, v.tick, v.your_role
            ),
            format!("State: {}", v.state),
            format!(
                "Your legal actions: {}",
                if v.legal_actions.is_empty() {
                    "none".to_owned()
                } else {
                    v.legal_actions.join(" ")
                }
            ),
        ];
        Ok(Reply::new(text, v))
    }
}

pub struct SessionAct;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ActArgs {
    pub session_id: String,
    pub action: String,
    /// Required by turn-based templates: the tick you acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_tick: Option<u64>,
}

impl Verb for SessionAct {
    const NAME: &'static str = "session_act";
    const USAGE: &'static str = "session_act <session id> <action> [expected tick]";
    const SUMMARY: &'static str = "Take an action in a session (a move, a choice).";
    const HELP: &'static str = "Submits an action; turn-based templates need the tick you saw \
(`session_state`), so a stale action is refused with a conflict.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Take `action` in the session `session_id`; turn-based \
templates need `expected_tick`, the tick you saw, and refuse a stale one as a conflict. Returns \
the new state, tick and status.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::SESSIONS);
    const TOPIC: Topic = Topic::AGENTS;
    type Args = ActArgs;
    type Output = Acted;

    fn parse(rest: &str) -> Result<ActArgs, VerbError> {
        let (rest, id) = word(rest).map_err(|_| usage::<SessionAct>())?;
        let (rest, action) = word(rest).map_err(|_| usage::<SessionAct>())?;
        let expected_tick = match text(rest) {
            Ok((_, t)) => Some(t.parse().map_err(|_| usage::<SessionAct>())?),
            Err(_) => None,
        };
        Ok(ActArgs {
            session_id: id.trim_start_matches('#').to_owned(),
            action: action.to_owned(),
            expected_tick,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, a: ActArgs) -> Result<Reply<Acted>, VerbError> {
        let acted = world.act(cx, parse_id(&a.session_id)?, &a.action, a.expected_tick)?;
        let text = if cx.data_only {
            Vec::new()
        } else {
            vec![format!(
                "Done: tick {}, {}. State: {}",
                acted.tick, acted.status, acted.state
            )]
        };
        Ok(Reply::new(text, acted))
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LogView {
    pub actions: Vec<LogEntry>,
    /// Once the game is over: each role's score.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ending: Option<crate::world::sessions::Ending>,
}

pub struct SessionLog;

impl Verb for SessionLog {
    const NAME: &'static str = "session_log";
    const USAGE: &'static str = "session_log <session id>";
    const SUMMARY: &'static str = "A session's append-only log of actions.";
    const HELP: &'static str = "Every action taken in the session, in order, with who took it and when. \
Only participants may read it.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Read the log of the session `session_id`; only \
participants may. Returns every action in order, with who took it and when.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::SESSIONS);
    const TOPIC: Topic = Topic::AGENTS;
    type Args = SessionArg;
    type Output = LogView;

    fn parse(rest: &str) -> Result<SessionArg, VerbError> {
        session_arg::<SessionLog>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, a: SessionArg) -> Result<Reply<LogView>, VerbError> {
        let id = parse_id(&a.session_id)?;
        let actions = world.session_log(id, &cx.actor)?;
        let ending = world.session_ending(id, &cx.actor);
        let text = if cx.data_only {
            Vec::new()
        } else if actions.is_empty() {
            vec!["No actions yet.".to_owned()]
        } else {
            actions
                .iter()
                .map(|e| format!("{}: {} ({}) {}", e.tick, e.role, e.agent_id, e.action))
                .collect()
        };
        Ok(Reply::new(text, LogView { actions, ending }))
    }
}

#[derive(Debug, Serialize, serde::Deserialize, JsonSchema)]
pub struct SessionListView {
    pub sessions: Vec<Summary>,
}

impl SessionListView {
    /// The list as a person reads it.
    pub fn text(&self) -> Vec<String> {
        if self.sessions.is_empty() {
            return vec!["You take part in no sessions.".to_owned()];
        }
        self.sessions
            .iter()
            .map(|s| {
                format!(
                    "{} ({}): {}, tick {}, you are {}.",
                    s.session_id, s.template, s.status, s.tick, s.your_role
                )
            })
            .collect()
    }

    /// Several worlds' lists as one: each session once (the first list's word on it stands),
    /// in the order of their ids.
    pub fn merged(lists: impl IntoIterator<Item = SessionListView>) -> SessionListView {
        let mut sessions: Vec<Summary> = lists.into_iter().flat_map(|l| l.sessions).collect();
        let id = |s: &Summary| s.session_id.parse::<u64>().unwrap_or(u64::MAX);
        // Stable: among rows of one id, the first list's stays first.
        sessions.sort_by_key(id);
        sessions.dedup_by_key(|s| id(s));
        SessionListView { sessions }
    }
}

pub struct SessionList;

impl Verb for SessionList {
    const NAME: &'static str = "session_list";
    const USAGE: &'static str = "session_list";
    const SUMMARY: &'static str = "The sessions you take part in.";
    const HELP: &'static str =
        "Lists every session you play in, with its template, status and your role.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "List the sessions you take part in; needs nothing. \
Returns each one's id, template, status and your role.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::SESSIONS);
    const TOPIC: Topic = Topic::AGENTS;
    type Args = NoArgs;
    type Output = SessionListView;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<SessionList>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<SessionListView>, VerbError> {
        let view = SessionListView {
            sessions: world.sessions_of(&cx.actor),
        };
        Ok(Reply::new(view.text(), view))
    }
}
