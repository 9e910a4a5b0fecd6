//! `events`: what happened around you since you last asked. On telnet everything is shown as it
//! happens, so this is for agents (MCP, REST), whose notices wait in a mailbox.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{NoArgs, Reply, Topic, Verb, VerbError, no_args};
use crate::world::{Cx, Delivery, World};

pub struct Events;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EventList {
    /// What others said and did, and game news, oldest first, as lines of text.
    pub events: Vec<String>,
    /// How many more wait (an answer holds 64 KiB): call again.
    pub more: usize,
}

/// The most one answer carries, so that a long absence does not make one huge reply.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

impl Verb for Events {
    const NAME: &'static str = "events";
    const USAGE: &'static str = "events";
    const SUMMARY: &'static str = "What happened around you since you last asked (for agents).";
    const HELP: &'static str = "Returns, and forgets, everything you were told since your last `events`: \
what others said and did where you are, pages, and the moves of games you play or watch. On \
telnet these are shown as they happen, so there is nothing to collect.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Collect, and forget, what you were told since your \
last call: what was said and done where you are, pages, and moves in games you play or watch. \
Returns the events in order, and `more`, how many are still waiting.";
    const TOPIC: Topic = Topic::AGENTS;
    type Args = NoArgs;
    type Output = EventList;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Events>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<EventList>, VerbError> {
        let (events, left) = collect(world, cx);
        let mut text = if events.is_empty() {
            vec!["Nothing new.".to_owned()]
        } else {
            events.clone()
        };
        if left > 0 {
            text.push(format!("({left} more waiting: call `events` again.)"));
        }
        Ok(Reply::new(text, EventList { events, more: left }))
    }
}

/// Takes, and forgets, what `cx`'s actor was told since they last asked, as lines, and how
/// many more are waiting: the `events` verb's answer, and the web console's.
pub fn collect(world: &mut World, cx: &mut Cx) -> (Vec<String>, usize) {
    let mut events = Vec::new();
    let (taken, left) = world.player_mut(&cx.actor).take_mailbox(MAX_ANSWER_BYTES);
    for d in &taken {
        match d {
            Delivery::Line(l) => events.push(l.to_string()),
            Delivery::Heard(said) => events.push(said.line.to_string()),
            Delivery::Board(b) => {
                events.extend(b.headline.iter().cloned());
                events.extend(b.text.iter().cloned());
            }
            Delivery::Display(_) | Delivery::Event(_) => {}
        }
    }
    // Should this answer not go out, what it took goes back, oldest first.
    let who = cx.actor.clone();
    cx.undo(move |w| w.return_to_mailbox(&who, taken));
    (events, left)
}
