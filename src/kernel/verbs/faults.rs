//! `@fault`: bugs on purpose, for the tests of the world task's panic boundary (see
//! `world::guard`). Built only with the `faults` feature, which the test builds turn on and a
//! release never has; it is in no verb list, no `help` and no `tools/list`, and is found by
//! name alone.
//!
//! - `@fault panic` changes the world as real verbs do (a new description, stored; a walk to
//!   another room, which the room hears of) and then panics: the boundary must put both back.
//! - `@fault arm` makes the caller's next game action panic once it is recorded (from a
//!   session hook, as Werewolf's bookkeeping runs), on whichever face it comes: REST, MCP or
//!   telnet.
//! - `@fault wreck` panics, and so does putting the world back: the world task must end and
//!   the process with it, for its supervisor to restart.

use std::collections::HashSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::describe::{Describe, DescribeArgs};
use super::{Reply, Topic, Verb, VerbEntry, VerbError, entry, usage};
use crate::world::sessions::SessionId;
use crate::world::{AgentId, Cx, Extension, World};

pub struct Fault;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct FaultArgs {
    /// `panic`, `arm` or `wreck`.
    pub kind: String,
}

/// Who has asked for their next game action to panic.
#[derive(Debug, Default)]
struct Armed(HashSet<AgentId>);

impl Extension for Armed {
    fn forget(&mut self, who: &AgentId) {
        self.0.remove(who);
    }
}

impl Verb for Fault {
    const NAME: &'static str = "@fault";
    const USAGE: &'static str = "@fault panic|arm|wreck";
    const SUMMARY: &'static str = "Meet a bug on purpose (test builds only).";
    const HELP: &'static str = "For moot's own tests of what a bug costs.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = FaultArgs;
    type Output = ();

    fn parse(rest: &str) -> Result<FaultArgs, VerbError> {
        match rest.trim() {
            k @ ("panic" | "arm" | "wreck") => Ok(FaultArgs { kind: k.to_owned() }),
            _ => Err(usage::<Fault>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: FaultArgs) -> Result<Reply<()>, VerbError> {
        match args.kind.as_str() {
            "panic" => {
                Describe::run(
                    world,
                    cx,
                    DescribeArgs {
                        description: "Changed by a command that then met a bug.".into(),
                        object: None,
                    },
                )?;
                let here = world.player(&cx.actor).room;
                if let Some(there) = (0..world.map.rooms.len()).find(|r| *r != here) {
                    super::go::travel(world, cx, there, "Gone.".into(), "Here.".into());
                }
                panic!("a bug the tests asked for");
            }
            "arm" => {
                world.ext::<Armed>().0.insert(cx.actor.clone());
                Ok(Reply::new(
                    vec!["Your next game action will meet a bug.".into()],
                    (),
                ))
            }
            "wreck" => {
                cx.undo(|_| panic!("an undo the tests broke"));
                panic!("a bug the tests asked for, which cannot be undone");
            }
            _ => Err(usage::<Fault>()),
        }
    }
}

/// The session hook that springs an armed fault: after the change is recorded and its write
/// left, as a real hook's bug would be. The trap is spent even though the change is undone.
pub fn after_change(world: &mut World, cx: &mut Cx, _: SessionId) {
    if world.ext::<Armed>().0.remove(&cx.actor) {
        panic!("a bug the tests armed");
    }
}

/// The fault verbs, found by name only.
pub static VERBS: &[VerbEntry] = &[entry::<Fault>()];
