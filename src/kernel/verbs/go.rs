//! `go <exit>`, and the bare exit names (`north`, `n`) that mean the same.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::look::Arrived;
use super::parse::{whole, word};
use super::{Reply, Verb, VerbError, usage};
use crate::store::writes;
use crate::world::views::{Come, room_info, room_seen};
use crate::world::{Cx, RoomIdx, World};

pub struct Go;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GoArgs {
    /// The exit's name or alias, e.g. `north` or `n`.
    pub exit: String,
}

impl Verb for Go {
    const NAME: &'static str = "go";
    const USAGE: &'static str = "go <exit>";
    const SUMMARY: &'static str = "Walk through an exit (or just type its name).";
    const HELP: &'static str = "`go north` walks through the exit called north. The exits of a room are \
listed when you look; each has a name and often a short alias, and typing either alone (`north`, \
`n`) works too. Everyone you leave sees you go, and everyone where you arrive sees you come.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Walk through the exit named `exit` (its name or alias, \
as `look` lists them); those you leave and those you meet are told. Returns the room you arrive \
in, as `look` does.";
    type Args = GoArgs;
    type Output = Arrived;

    fn parse(rest: &str) -> Result<GoArgs, VerbError> {
        whole(rest, word, usage::<Go>).map(|w| GoArgs { exit: w.to_owned() })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GoArgs) -> Result<Reply<Arrived>, VerbError> {
        let here = world.map.room(world.player(&cx.actor).room);
        let Some(exit) = here.exit(&args.exit) else {
            return Err(VerbError::not_found(no_way(here, &args.exit)));
        };
        if !world.may_pass(&cx.actor, exit) {
            return Err(VerbError::refused(format!(
                "The way {} is locked.",
                exit.name
            )));
        }
        let (to, name) = (exit.to, exit.name.clone());
        let who = world.player(&cx.actor).name.clone();
        Ok(travel(
            world,
            cx,
            to,
            format!("{who} goes {name}."),
            format!("{who} has arrived."),
        ))
    }
}

/// "You can't go that way.", with the exits there are (and the one a slip was likely for).
fn no_way(here: &crate::world::map::Room, typed: &str) -> String {
    let names: Vec<&str> = here.exits.iter().map(|e| e.name.as_str()).collect();
    if names.is_empty() {
        return "You can't go that way; there is no way out of here.".to_owned();
    }
    let words = here
        .exits
        .iter()
        .flat_map(|e| std::iter::once(e.name.as_str()).chain(e.aliases.iter().map(String::as_str)));
    let meant = match crate::text::closest(typed, words).first() {
        Some(w) if !is_direction(typed) => format!(" Did you mean `{w}`?"),
        _ => String::new(),
    };
    format!("You can't go that way.{meant} Exits: {}.", names.join(", "))
}

/// The words every MUD player types to walk, whatever this room's exits are called.
const DIRECTIONS: &[&str] = &[
    "north",
    "south",
    "east",
    "west",
    "northeast",
    "northwest",
    "southeast",
    "southwest",
    "up",
    "down",
    "in",
    "out",
    "n",
    "s",
    "e",
    "w",
    "ne",
    "nw",
    "se",
    "sw",
    "u",
    "d",
];

/// Whether `word` is a compass word (or up, down, in, out), in any case.
pub fn is_direction(word: &str) -> bool {
    DIRECTIONS.iter().any(|d| d.eq_ignore_ascii_case(word))
}

/// Moves the actor to `to`, tells both rooms, stores the new location, and shows the new room.
pub fn travel(
    world: &mut World,
    cx: &mut Cx,
    to: RoomIdx,
    leaving: String,
    arriving: String,
) -> Reply<Arrived> {
    let actor = cx.actor.clone();
    let from = world.player(&actor).room;
    let place = world.move_player(&actor, to);
    cx.tell_room(world, from, &actor, leaving);
    cx.tell_room(world, to, &actor, arriving);
    cx.event(
        &actor,
        crate::world::Event::Room(std::sync::Arc::new(room_info(world, to))),
    );
    let who = actor.clone();
    cx.save(
        writes::set_room(actor.to_string(), world.map.room(to).id.clone()),
        move |w| {
            if w.is_present(&who) {
                w.move_back(&who, from, place);
            }
        },
    );
    let (lines, view) = room_seen(world, to, &actor, cx.text_only, Come::Walked);
    Reply::new(lines, Arrived::Room(view))
}
