//! Carrying things, as every MUD has it: `take` (or `get`) a thing a builder made, `drop` it
//! somewhere else, `give` it to someone here; `inventory` lists what you carry. The town's own
//! things and the games' tables stay where they are, and a thing locked to someone (or to a
//! key) moves only for them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{text, text_then_last, whole};
use super::target::{Target, Within, find_here, find_within, not_carried};
use super::{Reply, Topic, Verb, VerbError, usage};

/// Where `help` lists what people do with things: carry them, and use their programmed verbs.
pub const TOPIC: Topic = Topic {
    title: "Things",
    words: &["things", "carrying", "inventory"],
    intro: "Things builders made can be picked up, carried, put down and handed over; some have \
verbs of their own (`examine` lists them): `push button`.",
    more: None,
    more_with: None,
};

/// The tools for things go with the builders' (`/mcp/build`): the plain `/mcp` keeps to its
/// budget.
const TOOLSET: Option<super::Toolset> = Some(super::build::TOOLSET);
use crate::world::map::{Found, ObjNum};
use crate::world::{Cx, World};

/// `<thing>`.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ThingArgs {
    /// A thing here (to take), or one you carry (to drop): its name or `#1004`.
    pub thing: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Moved {
    /// The thing's number.
    pub thing: ObjNum,
}

fn refused(r: crate::world::build::Refused) -> VerbError {
    VerbError::refused(r.0)
}

/// The thing `word` names among what `cx`'s actor carries: what the whole reach names if that
/// is in hand, else what their pockets alone name (a thing of the same name on the floor does
/// not make it ambiguous).
fn carried(world: &World, cx: &Cx, word: &str) -> Result<usize, VerbError> {
    let pocket = world.pocket_of(&cx.actor);
    if let Ok(Target::Thing(r, k)) = find_here(world, &cx.actor, word)
        && Some(r) == pocket
    {
        return Ok(k);
    }
    match find_within(world, &cx.actor, word, Within::Carried)? {
        Target::Thing(r, k) if Some(r) == pocket => Ok(k),
        _ => Err(not_carried(word)),
    }
}

pub struct Take;

impl Verb for Take {
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = TOOLSET;
    const NAME: &'static str = "take";
    const ALIASES: &'static [&'static str] = &["get", "pick"];
    const USAGE: &'static str = "take <thing>";
    const SUMMARY: &'static str = "Pick up a thing here.";
    const HELP: &'static str = "`take lamp` (or `get lamp`, `pick up lamp`) picks up a thing a \
builder made, unless it is locked against you; the town's own things and the games' tables stay \
where they are. `inventory` lists what you carry, `drop` puts it down, `give` hands it over.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Pick up `thing`, a thing where you stand. Returns its \
number.";
    type Args = ThingArgs;
    type Output = Moved;

    fn parse(rest: &str) -> Result<ThingArgs, VerbError> {
        let rest = rest.trim();
        let rest = rest.strip_prefix("up ").unwrap_or(rest);
        whole(rest, text, usage::<Take>).map(|t| ThingArgs {
            thing: t.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ThingArgs) -> Result<Reply<Moved>, VerbError> {
        let here = world.player(&cx.actor).room;
        // The whole reach first (an exact name wins, a thing in hand is had already); where
        // it is ambiguous, the floor alone: a lamp in hand does not hide the one lying here.
        let found = find_here(world, &cx.actor, &args.thing).or_else(|e| {
            find_within(world, &cx.actor, &args.thing, Within::Floor).map_err(|_| e)
        })?;
        let (r, k) = match found {
            Target::Thing(r, k) if r == here => (r, k),
            Target::Thing(..) => return Err(VerbError::refused("You already have that.")),
            _ => {
                return Err(VerbError::refused(format!(
                    "You can't take {}.",
                    args.thing.trim()
                )));
            }
        };
        let num = world.map.room(r).things[k].num;
        let said = world.pick_up(cx, Found::Thing(r, k)).map_err(refused)?;
        Ok(Reply::new(vec![said], Moved { thing: num }))
    }
}

pub struct PutDown;

impl Verb for PutDown {
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = TOOLSET;
    const NAME: &'static str = "put_down";
    // `drop 4` is Connect Four's: a line is matched to the verb whose words it fits.
    const ALIASES: &'static [&'static str] = &["drop"];
    const USAGE: &'static str = "drop <thing>";
    const SUMMARY: &'static str = "Put down a thing you carry.";
    const HELP: &'static str = "`drop lamp` puts down the lamp you carry where you stand.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Put down `thing`, which you carry, where you stand. \
Returns its number.";
    type Args = ThingArgs;
    type Output = Moved;

    fn parse(rest: &str) -> Result<ThingArgs, VerbError> {
        whole(rest, text, usage::<PutDown>).map(|t| ThingArgs {
            thing: t.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ThingArgs) -> Result<Reply<Moved>, VerbError> {
        let k = carried(world, cx, &args.thing)?;
        let pocket = world.pocket_of(&cx.actor).ok_or_else(VerbError::internal)?;
        let num = world.map.room(pocket).things[k].num;
        let said = world.put_down(cx, k).map_err(refused)?;
        Ok(Reply::new(vec![said], Moved { thing: num }))
    }
}

pub struct Give;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GiveArgs {
    /// A thing you carry: its name or `#1004`.
    pub thing: String,
    /// Who to give it to, here with you.
    pub to: String,
}

impl Verb for Give {
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = TOOLSET;
    const NAME: &'static str = "give";
    const ALIASES: &'static [&'static str] = &["hand"];
    const USAGE: &'static str = "give <thing> to <name>";
    const SUMMARY: &'static str = "Hand a thing you carry to someone here.";
    const HELP: &'static str = "`give lamp to Bob` hands the lamp you carry to Bob, who stands \
here; you both, and the room, are told.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Give `thing`, which you carry, to `to`, who stands \
with you. Returns its number.";
    type Args = GiveArgs;
    type Output = Moved;

    fn parse(rest: &str) -> Result<GiveArgs, VerbError> {
        whole(rest, text_then_last("to"), usage::<Give>).map(|(t, to)| GiveArgs {
            thing: t.to_owned(),
            to: to.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GiveArgs) -> Result<Reply<Moved>, VerbError> {
        let k = carried(world, cx, &args.thing)?;
        let to = match find_here(world, &cx.actor, &args.to)? {
            Target::Person(id) => id,
            _ => {
                return Err(VerbError::not_found(format!(
                    "There is nobody called \"{}\" here.",
                    args.to.trim()
                )));
            }
        };
        let pocket = world.pocket_of(&cx.actor).ok_or_else(VerbError::internal)?;
        let num = world.map.room(pocket).things[k].num;
        let said = world.give(cx, k, &to).map_err(refused)?;
        Ok(Reply::new(vec![said], Moved { thing: num }))
    }
}
