//! The builders' verbs, as LambdaCore has them: `@dig` a room (with exits both ways in one
//! command), `@create` a thing, `@audit` what you own. Objects have numbers (`#1000`) usable
//! wherever a name is; `@describe` changes any object you own (see [`super::describe`]).
//! Builders are those a wizard lets build (`moot admin builder <name>`); wizards are builders.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, text, whole};
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::store::built::BuiltKind;
use crate::world::map::{Found, ObjNum, RoomIdx};
use crate::world::{AgentId, Cx, World};

/// The longest name an object may have, in characters.
pub const MAX_NAME: usize = 60;

/// The tools builders use: the verbs of this module, served at `/mcp/build`.
pub const TOOLSET: super::Toolset = super::Toolset {
    name: "build",
    summary: "carry things, and build the town as its builders do: dig rooms with exits both \
              ways, create things, describe and rename what you own (or describe yourself), \
              program verbs, and audit it",
    wizards_only: false,
};

/// Where `help` lists the builders' verbs.
pub const TOPIC: Topic = Topic {
    title: "Building",
    words: &["building", "build", "builders"],
    intro: "Builders add to the town: rooms, exits and things that last. A wizard lets you \
build; every object has a number (#1000) you can use in place of its name.",
    more: None,
    more_with: None,
};

/// Refuses anyone who may not build.
pub(super) fn builder(world: &World, actor: &AgentId) -> Result<(), VerbError> {
    if world.may_build(actor) {
        Ok(())
    } else {
        Err(VerbError::refused(
            "Only builders may do that; a wizard can make you one.",
        ))
    }
}

/// A name as a builder gives it: one line, not empty, not too long, never posing as the
/// narrator or an out-of-band line.
pub fn checked_name(name: &str) -> Result<String, VerbError> {
    let name = name.trim().trim_matches('"').trim();
    if name.is_empty() {
        return Err(VerbError::usage("A name cannot be empty."));
    }
    if name.chars().count() > MAX_NAME {
        return Err(VerbError::refused(format!(
            "A name may be at most {MAX_NAME} characters long."
        )));
    }
    if name.chars().any(char::is_control) || crate::wrap::poses_as_mark(name) {
        return Err(VerbError::refused(
            "A name cannot begin with `[`, `*` or `#`, nor hold control characters.",
        ));
    }
    if name.starts_with('#') {
        return Err(VerbError::refused(
            "A name cannot begin with `#`: that is how numbers are written.",
        ));
    }
    Ok(name.to_owned())
}

/// Tells the others where `cx`'s actor stands what they just built or changed, so that people
/// building one room together see each other's work as it happens.
pub fn show_here(world: &World, cx: &mut Cx, what: impl FnOnce(&str) -> String) {
    let me = world.player(&cx.actor);
    let (room, line) = (me.room, what(&me.name));
    let actor = cx.actor.clone();
    world.tell_hearers(cx, room, Some(&actor), line);
}

/// `#1000` → 1000.
pub fn number(word: &str) -> Option<ObjNum> {
    word.trim().strip_prefix('#')?.parse().ok()
}

/// The object `word` names for `actor`: `here`, `#1000`, or an exit or thing where they stand.
pub fn object(world: &World, actor: &AgentId, word: &str) -> Result<Found, VerbError> {
    let word = word.trim();
    let room = world.player(actor).room;
    if word.eq_ignore_ascii_case("here") {
        return Ok(Found::Room(room));
    }
    if let Some(n) = number(word) {
        return world
            .map
            .find_num(n)
            .ok_or_else(|| VerbError::not_found(format!("There is no object #{n}.")));
    }
    // What they carry, then what stands here.
    for place in world.pocket_of(actor).into_iter().chain([room]) {
        if let Some(k) = world
            .map
            .room(place)
            .things
            .iter()
            .position(|t| t.names().any(|n| n.eq_ignore_ascii_case(word)))
        {
            return Ok(Found::Thing(place, k));
        }
    }
    let r = world.map.room(room);
    if let Some(k) = r.exits.iter().position(|e| e.answers_to(word)) {
        return Ok(Found::Exit(room, k));
    }
    let things = world
        .pocket_of(actor)
        .into_iter()
        .chain([room])
        .flat_map(|p| world.map.room(p).things.iter().flat_map(|t| t.names()));
    let exits = r
        .exits
        .iter()
        .flat_map(|e| std::iter::once(e.name.as_str()).chain(e.aliases.iter().map(String::as_str)));
    Err(VerbError::not_found(format!(
        "I see no \"{word}\" here.{}",
        crate::text::did_you_mean(word, things.chain(exits))
    )))
}

/// A room for `to` (`#1000`, or a room's name), or a new one of that name.
enum Destination {
    Room(RoomIdx),
    New(String),
}

fn destination(world: &World, to: &str) -> Result<Destination, VerbError> {
    let to = to.trim();
    if let Some(n) = number(to) {
        return match world.map.find_num(n) {
            Some(Found::Room(r)) => Ok(Destination::Room(r)),
            Some(_) => Err(VerbError::refused(format!("#{n} is not a room."))),
            None => Err(VerbError::not_found(format!("There is no object #{n}."))),
        };
    }
    Ok(Destination::New(checked_name(to)?))
}

/// `north,n|south,s`: the way there (a name and aliases) and, after `|`, the way back.
fn ways(spec: &str) -> Result<(Vec<String>, Option<Vec<String>>), VerbError> {
    let names = |s: &str| -> Result<Vec<String>, VerbError> {
        let names: Vec<String> = s
            .split(',')
            .map(|n| n.trim().to_owned())
            .filter(|n| !n.is_empty())
            .collect();
        if names.is_empty() {
            return Err(VerbError::usage(format!("Usage: {}", Dig::USAGE)));
        }
        for n in &names {
            if n.contains(char::is_whitespace) || n.starts_with('#') || n.len() > 20 {
                return Err(VerbError::refused(format!(
                    "\"{n}\" cannot be an exit's name: one word of at most 20, not starting with #."
                )));
            }
        }
        Ok(names)
    };
    match spec.split_once('|') {
        Some((there, back)) => Ok((names(there)?, Some(names(back)?))),
        None => Ok((names(spec)?, None)),
    }
}

pub struct Dig;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DigArgs {
    /// The new room's name, or `#1000` to lead to a room that exists.
    pub room: String,
    /// The exit from here and its aliases, `north,n`; with `|south,s`, the way back too.
    #[serde(default)]
    pub exits: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Dug {
    /// The room's number.
    pub room: ObjNum,
    /// The exits made, by number.
    pub exits: Vec<ObjNum>,
}

impl Verb for Dig {
    const NAME: &'static str = "dig";
    const ALIASES: &'static [&'static str] = &["@dig"];
    const USAGE: &'static str =
        "@dig <name>   or   @dig <exit>[,alias…][|<back>[,alias…]] to <name|#room>";
    const SUMMARY: &'static str = "Make a room, with exits to it.";
    const HELP: &'static str = "`@dig The Garden` makes a room of yours, reached from nowhere \
yet. `@dig north,n|south,s to The Garden` makes it with an exit `north` (or `n`) from here to it \
and `south` (or `s`) back; `@dig east to #1002` leads to a room that exists. Exits from a room \
are its owner's to open.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Make a room called `room` (or lead to `#1000`), with \
`exits` from where you stand (`north,n`) and back (`|south,s`). Returns the room's number and \
the exits'.";
    type Args = DigArgs;
    type Output = Dug;

    fn parse(rest: &str) -> Result<DigArgs, VerbError> {
        let all = whole(rest, text, usage::<Dig>)?;
        // `@dig to`, `@dig north to`, `@dig to The Garden`: a `to` with nothing on one side
        // of it is a half-typed exit, not a room's name.
        let words: Vec<&str> = all.split_whitespace().collect();
        if [words.first(), words.last()]
            .into_iter()
            .flatten()
            .any(|w| w.eq_ignore_ascii_case("to"))
        {
            return Err(VerbError::usage(
                "Name the exit before `to` and the room after it (`@dig north to The Garden`), \
or give only the room's name (`@dig The Garden`).",
            ));
        }
        // `<exits> to <room>`: the first ` to ` splits them, when what is before it names
        // exits (a word, or words joined by `,` and `|`).
        if let Some((spec, room)) = all.split_once(" to ")
            && !spec.trim().contains(char::is_whitespace)
        {
            return Ok(DigArgs {
                room: room.trim().to_owned(),
                exits: Some(spec.trim().to_owned()),
            });
        }
        Ok(DigArgs {
            room: all.to_owned(),
            exits: None,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: DigArgs) -> Result<Reply<Dug>, VerbError> {
        let actor = cx.actor.clone();
        builder(world, &actor)?;
        let ways = args.exits.as_deref().map(ways).transpose()?;
        let here = world.player(&actor).room;
        // Exits from here are the room's owner's to open, and the way back is theirs from the
        // room it leads to.
        if ways.is_some() && !world.may_alter(&actor, Found::Room(here)) {
            return Err(VerbError::refused(
                "You may open exits only from rooms you own.",
            ));
        }
        // Everything is checked before anything is made, so a refusal leaves nothing behind.
        let dest = destination(world, &args.room)?;
        if let Some((there, back)) = &ways {
            world
                .exit_free(here, &there[0], &there[1..])
                .map_err(refused)?;
            if let (Some(back), Destination::Room(r)) = (back, &dest) {
                world.exit_free(*r, &back[0], &back[1..]).map_err(refused)?;
                // A room that leads to itself must not name both ways alike.
                if *r == here
                    && let Some(twice) = back
                        .iter()
                        .find(|b| there.iter().any(|t| t.eq_ignore_ascii_case(b)))
                {
                    return Err(VerbError::refused(format!(
                        "\"{twice}\" cannot name both the way there and the way back."
                    )));
                }
            }
        }
        let making = usize::from(matches!(dest, Destination::New(_)))
            + ways
                .as_ref()
                .map_or(0, |(_, back)| 1 + usize::from(back.is_some()));
        world.within_quota(&actor, making).map_err(refused)?;
        let mut text = Vec::new();
        let (to, room_num) = match dest {
            Destination::Room(r) => {
                let back = ways.as_ref().is_some_and(|(_, b)| b.is_some());
                if back && !world.may_alter(&actor, Found::Room(r)) {
                    return Err(VerbError::refused(
                        "The way back would be an exit from a room you do not own.",
                    ));
                }
                (r, world.map.room(r).num)
            }
            Destination::New(name) => {
                let (r, n) = world.dig(cx, &name).map_err(refused)?;
                text.push(format!("{name} (#{n}) is dug."));
                (r, n)
            }
        };
        let mut exits = Vec::new();
        if let Some((there, back)) = ways {
            let n = world
                .open_exit(cx, here, &there[0], &there[1..], to)
                .map_err(refused)?;
            exits.push(n);
            text.push(format!(
                "Exit {} (#{n}) leads from {} to {}.",
                there[0],
                world.map.room(here).name,
                world.map.room(to).name
            ));
            if let Some(back) = back {
                let n = world
                    .open_exit(cx, to, &back[0], &back[1..], here)
                    .map_err(refused)?;
                exits.push(n);
                text.push(format!(
                    "Exit {} (#{n}) leads back from {} to {}.",
                    back[0],
                    world.map.room(to).name,
                    world.map.room(here).name
                ));
            }
        }
        if text.is_empty() {
            text.push("Nothing to dig: that room is there already.".into());
        }
        Ok(Reply::new(
            text,
            Dug {
                room: room_num,
                exits,
            },
        ))
    }
}

pub(super) fn refused(r: crate::world::build::Refused) -> VerbError {
    VerbError::refused(r.0)
}

pub struct Create;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CreateArgs {
    /// The thing's name (`a brass lamp`).
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Created {
    /// The thing's number.
    pub thing: ObjNum,
}

impl Verb for Create {
    const NAME: &'static str = "create";
    const ALIASES: &'static [&'static str] = &["@create"];
    const USAGE: &'static str = "@create <name>";
    const SUMMARY: &'static str = "Make a thing, here.";
    const HELP: &'static str = "`@create a brass lamp` makes a thing of yours where you stand; \
`look` shows it, `@describe lamp as …` says what it looks like. It stays until you `@recycle` \
it.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Make a thing called `name` where you stand. Returns \
its number.";
    type Args = CreateArgs;
    type Output = Created;

    fn parse(rest: &str) -> Result<CreateArgs, VerbError> {
        whole(rest, text, usage::<Create>).map(|n| CreateArgs { name: n.to_owned() })
    }

    fn run(world: &mut World, cx: &mut Cx, args: CreateArgs) -> Result<Reply<Created>, VerbError> {
        let actor = cx.actor.clone();
        builder(world, &actor)?;
        let name = checked_name(&args.name)?;
        let here = world.player(&actor).room;
        // Its last word is a name for it too: `lamp` for "a brass lamp".
        let last = name
            .rsplit(char::is_whitespace)
            .next()
            .filter(|w| !w.eq_ignore_ascii_case(&name))
            .map(str::to_owned);
        let aliases: Vec<String> = last.into_iter().collect();
        let n = world
            .make_thing(cx, here, &name, &aliases, None)
            .map_err(refused)?;
        show_here(world, cx, |me| format!("{me} makes {name}."));
        Ok(Reply::new(
            vec![format!("You make {name} (#{n}).")],
            Created { thing: n },
        ))
    }
}

pub struct Audit;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Owned {
    pub objects: Vec<OwnedObject>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct OwnedObject {
    pub num: ObjNum,
    /// `room`, `exit` or `thing`.
    pub kind: String,
    pub name: String,
    /// The room it is, or is in.
    pub room: String,
}

impl Verb for Audit {
    const NAME: &'static str = "audit";
    const ALIASES: &'static [&'static str] = &["@audit"];
    const USAGE: &'static str = "@audit";
    const SUMMARY: &'static str = "List what you own.";
    const HELP: &'static str = "Lists every room, exit and thing you built, by number, and where \
each is.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "List what you built; needs nothing. Returns each \
object's number, kind, name and room.";
    type Args = super::NoArgs;
    type Output = Owned;

    fn parse(rest: &str) -> Result<super::NoArgs, VerbError> {
        whole(rest, opt_text, usage::<Audit>).and_then(|t| match t {
            None => Ok(super::NoArgs {}),
            Some(_) => Err(usage::<Audit>()),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, _: super::NoArgs) -> Result<Reply<Owned>, VerbError> {
        let owned = world.owned_by(&world.builder_of(&cx.actor));
        let objects: Vec<OwnedObject> = owned
            .into_iter()
            .map(|(num, kind, name, room)| OwnedObject {
                num,
                kind: kind.name().to_owned(),
                name,
                room: world.map.room(room).name.clone(),
            })
            .collect();
        let mut text: Vec<String> = objects
            .iter()
            .map(|o| match o.kind.as_str() {
                k if k == BuiltKind::Room.name() => format!("#{} {} (a room)", o.num, o.name),
                k if k == BuiltKind::Exit.name() => {
                    format!("#{} {} (an exit in {})", o.num, o.name, o.room)
                }
                k => format!("#{} {} (a {k} in {})", o.num, o.name, o.room),
            })
            .collect();
        text.push(match objects.len() {
            0 => "You own nothing yet.".to_owned(),
            1 => "One object.".to_owned(),
            n => format!("{n} objects."),
        });
        Ok(Reply::new(text, Owned { objects }))
    }
}

pub struct Teleport;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TeleportArgs {
    /// The room, by number: `#1000`.
    pub room: String,
}

impl Verb for Teleport {
    const NAME: &'static str = "teleport";
    const ALIASES: &'static [&'static str] = &["@go"];
    const USAGE: &'static str = "@go <#room>";
    const SUMMARY: &'static str = "Go straight to a room you built.";
    const HELP: &'static str = "`@go #1000` takes you to a room of yours, whether or not an exit \
leads there yet (a wizard may go to any room). Everyone sees you vanish and appear.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Go to `room` (`#1000`), a room you built. Returns the \
room you arrive in, as `go` does.";
    type Args = TeleportArgs;
    type Output = super::look::Arrived;

    fn parse(rest: &str) -> Result<TeleportArgs, VerbError> {
        whole(rest, text, usage::<Teleport>).map(|r| TeleportArgs { room: r.to_owned() })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: TeleportArgs,
    ) -> Result<Reply<super::look::Arrived>, VerbError> {
        let actor = cx.actor.clone();
        builder(world, &actor)?;
        let Some(n) = number(&args.room) else {
            return Err(usage::<Teleport>());
        };
        let to = match world.map.find_num(n) {
            Some(Found::Room(r)) => r,
            Some(_) => return Err(VerbError::refused(format!("#{n} is not a room."))),
            None => return Err(VerbError::not_found(format!("There is no object #{n}."))),
        };
        if !world.may_alter(&actor, Found::Room(to)) {
            return Err(VerbError::refused(
                "You may go only to rooms you built; walk to the others.",
            ));
        }
        if world.player(&actor).room == to {
            return Err(VerbError::refused("You are there already."));
        }
        let name = world.player(&actor).name.clone();
        Ok(super::go::travel(
            world,
            cx,
            to,
            format!("{name} vanishes."),
            format!("{name} appears."),
        ))
    }
}

pub struct Open;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct OpenArgs {
    /// The exit from here and its aliases, `north,n`; with `|south,s`, the way back too.
    pub exits: String,
    /// The room it leads to: `#1002`.
    pub room: String,
}

impl Verb for Open {
    const NAME: &'static str = "open";
    const ALIASES: &'static [&'static str] = &["@open"];
    const USAGE: &'static str = "@open <exit>[,alias…][|<back>[,alias…]] to <#room>";
    const SUMMARY: &'static str = "Open an exit from here to a room.";
    const HELP: &'static str = "`@open east,e to #1002` opens an exit from the room you stand in \
(yours) to room #1002; `@open east,e|west,w to #1002` opens the way back too (from a room of \
yours). `@close east` takes an exit away.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Open `exits` (`east,e`, or `east,e|west,w` both ways) \
from where you stand to `room` (`#1002`). Returns the exits' numbers.";
    type Args = OpenArgs;
    type Output = Dug;

    fn parse(rest: &str) -> Result<OpenArgs, VerbError> {
        let all = whole(rest, text, usage::<Open>)?;
        match all.split_once(" to ") {
            Some((spec, room)) if !spec.trim().contains(char::is_whitespace) => Ok(OpenArgs {
                exits: spec.trim().to_owned(),
                room: room.trim().to_owned(),
            }),
            _ => Err(usage::<Open>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: OpenArgs) -> Result<Reply<Dug>, VerbError> {
        if number(&args.room).is_none() {
            return Err(VerbError::usage(format!(
                "`@open` leads to a room that exists, by its number (`#1002`); `@dig` makes a \
                 new one. Usage: {}",
                Open::USAGE
            )));
        }
        Dig::run(
            world,
            cx,
            DigArgs {
                room: args.room,
                exits: Some(args.exits),
            },
        )
    }
}

/// `<object>` (for `@close`, `@recycle`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ObjectArgs {
    /// `here`, `#1004`, or the name of a thing or exit where you stand.
    pub object: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Recycled {
    pub recycled: ObjNum,
}

/// What [`Close`] and [`Recycle`] share: the object found, recycled, and said.
fn recycle_found(
    world: &mut World,
    cx: &mut Cx,
    found: Found,
) -> Result<Reply<Recycled>, VerbError> {
    let num = world.num_of(found);
    let said = world.recycle(cx, found).map_err(refused)?;
    show_here(world, cx, |me| format!("{me} recycles #{num}."));
    Ok(Reply::new(vec![said], Recycled { recycled: num }))
}

pub struct Close;

impl Verb for Close {
    const NAME: &'static str = "close";
    const ALIASES: &'static [&'static str] = &["@close"];
    const USAGE: &'static str = "@close <exit>";
    const SUMMARY: &'static str = "Take away an exit of yours from here.";
    const HELP: &'static str = "`@close east` takes away the exit `east` from the room you stand \
in, if it is yours; the room it led to stays.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Take away the exit `object` (its name, or `#1002`) \
from where you stand. Returns its number.";
    type Args = ObjectArgs;
    type Output = Recycled;

    fn parse(rest: &str) -> Result<ObjectArgs, VerbError> {
        whole(rest, text, usage::<Close>).map(|o| ObjectArgs {
            object: o.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ObjectArgs) -> Result<Reply<Recycled>, VerbError> {
        builder(world, &cx.actor)?;
        let here = world.player(&cx.actor).room;
        match object(world, &cx.actor, &args.object)? {
            found @ Found::Exit(r, _) if r == here => {
                // Refused in this verb's words, not `@recycle`'s.
                match world.owner_of(found) {
                    None => Err(VerbError::refused(
                        "That exit is part of the town's own files: it cannot be closed.",
                    )),
                    Some(owner) if !world.may_change(&cx.actor, Some(owner)) => {
                        Err(VerbError::refused("That exit is not yours to close."))
                    }
                    Some(_) => recycle_found(world, cx, found),
                }
            }
            _ => Err(VerbError::not_found(format!(
                "There is no exit \"{}\" here.",
                args.object
            ))),
        }
    }
}

pub struct Recycle;

impl Verb for Recycle {
    const NAME: &'static str = "recycle";
    const ALIASES: &'static [&'static str] = &["@recycle"];
    const USAGE: &'static str = "@recycle <here|#num|thing>";
    const SUMMARY: &'static str = "Do away with something you built.";
    const HELP: &'static str = "`@recycle lamp` (or `@recycle #1004`) does away with a thing or \
exit of yours; `@recycle #1001` a room of yours, once nobody is in it and nothing of anyone \
else's stands there, with its exits and every exit leading to it. It cannot be undone.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Do away with `object` (`#1004`, or a thing or exit \
where you stand), which you built. Returns its number.";
    type Args = ObjectArgs;
    type Output = Recycled;

    fn parse(rest: &str) -> Result<ObjectArgs, VerbError> {
        whole(rest, text, usage::<Recycle>).map(|o| ObjectArgs {
            object: o.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ObjectArgs) -> Result<Reply<Recycled>, VerbError> {
        builder(world, &cx.actor)?;
        let found = object(world, &cx.actor, &args.object)?;
        recycle_found(world, cx, found)
    }
}

pub struct Rename;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RenameArgs {
    /// `here`, `#1004`, or the name of a thing or exit where you stand.
    pub object: String,
    /// Its new name.
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Renamed {
    pub name: String,
}

impl Verb for Rename {
    const NAME: &'static str = "rename";
    const ALIASES: &'static [&'static str] = &["@rename"];
    const USAGE: &'static str = "@rename <here|#num|thing> to <name>";
    const SUMMARY: &'static str = "Rename something you built.";
    const HELP: &'static str = "`@rename lamp to a silver lamp` (or `@rename #1004 to …`, \
`@rename here to The Rose Garden`) gives something of yours a new name.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Give `object` (`#1004`, `here`, or a thing or exit \
where you stand), which you built, the name `name`. Returns the name.";
    type Args = RenameArgs;
    type Output = Renamed;

    fn parse(rest: &str) -> Result<RenameArgs, VerbError> {
        let all = whole(rest, text, usage::<Rename>)?;
        match all.split_once(" to ") {
            Some((o, n)) if !o.trim().is_empty() && !n.trim().is_empty() => Ok(RenameArgs {
                object: o.trim().to_owned(),
                name: n.trim().to_owned(),
            }),
            _ => Err(usage::<Rename>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: RenameArgs) -> Result<Reply<Renamed>, VerbError> {
        builder(world, &cx.actor)?;
        let found = object(world, &cx.actor, &args.object)?;
        let name = checked_name(&args.name)?;
        if let Found::Exit(r, k) = found {
            let exit = &world.map.room(r).exits[k];
            if name.contains(char::is_whitespace) {
                return Err(VerbError::refused("An exit's name is one word."));
            }
            if !exit.answers_to(&name) {
                world.exit_free(r, &name, &[]).map_err(refused)?;
            }
        }
        let num = world.num_of(found);
        world
            .reword(cx, found, Some(&name), None)
            .map_err(refused)?;
        show_here(world, cx, |me| format!("{me} renames #{num} {name}."));
        Ok(Reply::new(
            vec![format!("It is called {name} now.")],
            Renamed { name },
        ))
    }
}

pub struct Lock;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct LockArgs {
    /// The exit or thing where you stand (its name, or `#1002`).
    pub exit: String,
    /// The one person it lets by, or the key (a thing: `#1005`) one must carry; leave it out
    /// to unlock it.
    #[serde(default)]
    pub to: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Locked {
    /// The exit's (or thing's) number.
    pub exit: ObjNum,
    /// Who it lets by, if it is locked.
    pub to: Option<String>,
}

impl Verb for Lock {
    const NAME: &'static str = "lock";
    const ALIASES: &'static [&'static str] = &["@lock"];
    const USAGE: &'static str = "@lock <exit|thing> to <name|key>";
    const SUMMARY: &'static str = "Lock an exit or thing of yours to one person, or to a key.";
    const HELP: &'static str = "`@lock north to Bob` lets only Bob (and you, and the wizards) \
through your exit `north`; `@lock north to #1005` (or `to key`) whoever carries that thing. A \
thing locked so moves only for them (`take`). `@unlock north` opens it to all again.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Lock `exit` (an exit or thing where you stand, yours) \
to `to`, a character's name or a key (`#1005`) one must carry; without `to`, unlock it. Returns \
its number and who it lets by.";
    type Args = LockArgs;
    type Output = Locked;

    fn parse(rest: &str) -> Result<LockArgs, VerbError> {
        let all = whole(rest, text, usage::<Lock>)?;
        match all.split_once(" to ") {
            Some((e, to)) if !e.trim().is_empty() && !to.trim().is_empty() => Ok(LockArgs {
                exit: e.trim().to_owned(),
                to: Some(to.trim().to_owned()),
            }),
            _ => Err(usage::<Lock>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: LockArgs) -> Result<Reply<Locked>, VerbError> {
        locking(world, cx, &args.exit, args.to.as_deref())
    }
}

pub struct Unlock;

impl Verb for Unlock {
    const NAME: &'static str = "unlock";
    const ALIASES: &'static [&'static str] = &["@unlock"];
    const USAGE: &'static str = "@unlock <exit>";
    const SUMMARY: &'static str = "Open a locked exit of yours to all.";
    const HELP: &'static str = "`@unlock north` lets anyone through your exit `north` again.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Unlock `object`, an exit of yours where you stand (its \
name, or `#1002`), for all. Returns the exit's number.";
    type Args = ObjectArgs;
    type Output = Locked;

    fn parse(rest: &str) -> Result<ObjectArgs, VerbError> {
        whole(rest, text, usage::<Unlock>).map(|o| ObjectArgs {
            object: o.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ObjectArgs) -> Result<Reply<Locked>, VerbError> {
        locking(world, cx, &args.object, None)
    }
}

/// What [`Lock`] and [`Unlock`] share: the exit here found, locked to `to` (a name) or not.
fn locking(
    world: &mut World,
    cx: &mut Cx,
    what: &str,
    to: Option<&str>,
) -> Result<Reply<Locked>, VerbError> {
    builder(world, &cx.actor)?;
    let here = world.player(&cx.actor).room;
    let pocket = world.pocket_of(&cx.actor);
    let found = match object(world, &cx.actor, what)? {
        f @ (Found::Exit(r, _) | Found::Thing(r, _)) if r == here || Some(r) == pocket => f,
        _ => {
            return Err(VerbError::not_found(format!(
                "There is no exit or thing \"{what}\" here."
            )));
        }
    };
    // A key (`#1005`, or a thing here or carried) or a person.
    let key = match to {
        None => None,
        Some(k) => Some(match object(world, &cx.actor, k) {
            Ok(f @ Found::Thing(..)) => format!("#{}", world.num_of(f)),
            _ if k.trim().starts_with('#') => {
                return Err(VerbError::not_found(format!(
                    "There is no thing {} to be a key.",
                    k.trim()
                )));
            }
            _ => world.directory.id_of(k).ok_or_else(|| {
                VerbError::not_found(format!(
                    "There is nobody (and no thing here) called \"{k}\"."
                ))
            })?,
        }),
    };
    let num = world.num_of(found);
    let name = match found {
        Found::Exit(r, k) => world.map.room(r).exits[k].name.clone(),
        Found::Thing(r, k) => world.map.room(r).things[k].name.clone(),
        Found::Room(_) => return Err(VerbError::internal()),
    };
    world.lock_exit(cx, found, key.clone()).map_err(refused)?;
    // The person or the key as the town names them, not as typed.
    let named = key.as_deref().and_then(|k| match number(k) {
        Some(n) => world.map.find_num(n).map(|f| match f {
            Found::Thing(r, i) => format!(
                "whoever carries {} (#{n})",
                world.map.room(r).things[i].name
            ),
            _ => format!("#{n}"),
        }),
        None => world.directory.name_of(k),
    });
    let does = match found {
        Found::Exit(..) => "lets by",
        _ => "moves for",
    };
    let said = match &named {
        Some(who) => format!("{name} (#{num}) now {does} only {who}, and you."),
        None => format!("{name} (#{num}) is open to all."),
    };
    Ok(Reply::new(
        vec![said],
        Locked {
            exit: num,
            to: named,
        },
    ))
}

pub struct PlaceTable;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TableArgs {
    /// The game, by the word it is played by (`chess`, `connect4`, `rps`).
    pub game: String,
}

impl Verb for PlaceTable {
    const NAME: &'static str = "table";
    const ALIASES: &'static [&'static str] = &["@table"];
    const USAGE: &'static str = "@table <game>";
    const SUMMARY: &'static str = "Set up a game's table in a room of yours.";
    const HELP: &'static str = "`@table chess` sets up a chess table in the room you stand in (a \
room of yours), where anyone may then play as at the town's own: `challenge`, `play connect4 with \
house`, `deal`. `@recycle` takes it away again.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Set up a table of `game` (the word it is played by: \
`chess`, `connect4`) in the room you stand in, which you built. Returns the table's number.";
    type Args = TableArgs;
    type Output = Created;

    fn parse(rest: &str) -> Result<TableArgs, VerbError> {
        whole(rest, text, usage::<PlaceTable>).map(|g| TableArgs { game: g.to_owned() })
    }

    fn run(world: &mut World, cx: &mut Cx, args: TableArgs) -> Result<Reply<Created>, VerbError> {
        let actor = cx.actor.clone();
        builder(world, &actor)?;
        let here = world.player(&actor).room;
        if !world.may_alter(&actor, Found::Room(here)) {
            return Err(VerbError::refused(
                "You may set up tables only in rooms you own.",
            ));
        }
        let game = args.game.trim();
        // A game whose players leave the town for its match has a hall of its own, not tables.
        let tables: Vec<&'static crate::game_api::Template> =
            world.templates().filter(|t| !t.secludes).collect();
        let Some(t) = tables
            .iter()
            .find(|t| t.word().eq_ignore_ascii_case(game) || t.title.eq_ignore_ascii_case(game))
        else {
            let words: Vec<&str> = tables.iter().map(|t| t.word()).collect();
            return Err(VerbError::not_found(format!(
                "There is no game \"{game}\" to set a table for; there are {}.",
                crate::text::english_list(&words)
            )));
        };
        if world
            .map
            .room(here)
            .things
            .iter()
            .any(|th| th.kind.name() == t.table)
        {
            return Err(VerbError::refused(format!(
                "There is a {} table here already.",
                t.title
            )));
        }
        let name = format!("a {} table", t.title);
        let aliases = vec!["table".to_owned(), format!("{} table", t.word())];
        let n = world
            .make_thing(cx, here, &name, &aliases, Some(t.table))
            .map_err(refused)?;
        Ok(Reply::new(
            vec![format!("You set up {name} (#{n}).")],
            Created { thing: n },
        ))
    }
}

pub struct Set;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SetArgs {
    /// `here`, `#1004`, or a thing where you stand.
    pub object: String,
    /// The property's name: a letter, then letters, digits or `_` (32 at most).
    pub property: String,
    /// Its value (1000 characters at most); leave it out to remove the property.
    #[serde(default)]
    pub value: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct SetProperty {
    pub object: ObjNum,
    pub property: String,
    pub value: Option<String>,
}

use crate::world::build::MAX_VALUE;

impl Verb for Set {
    const NAME: &'static str = "set";
    const ALIASES: &'static [&'static str] = &["@set"];
    const USAGE: &'static str = "@set <here|#num|thing>.<property> to <value>";
    const SUMMARY: &'static str = "Set a property of something you built.";
    const HELP: &'static str = "`@set lamp.colour to brass` gives your lamp a property `colour`; \
`@set #1004.colour to` (nothing after `to`) removes it. `examine` lists an object's properties; \
verbs programmed on it read and write them.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Set `property` of `object` (`#1004`, `here`, or a \
thing where you stand), which you built, to `value`; without `value`, remove it. Returns the \
property as set.";
    type Args = SetArgs;
    type Output = SetProperty;

    fn parse(rest: &str) -> Result<SetArgs, VerbError> {
        let all = whole(rest, text, usage::<Set>)?;
        let (target, value) = match all.split_once(" to") {
            Some((t, v)) if v.is_empty() || v.starts_with(' ') => (t.trim(), v.trim()),
            _ => return Err(usage::<Set>()),
        };
        let Some((object, property)) = target.rsplit_once('.') else {
            return Err(usage::<Set>());
        };
        Ok(SetArgs {
            object: object.trim().to_owned(),
            property: property.trim().to_owned(),
            value: (!value.is_empty()).then(|| value.to_owned()),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: SetArgs) -> Result<Reply<SetProperty>, VerbError> {
        builder(world, &cx.actor)?;
        let key = args.property.trim();
        if !crate::sandbox::prop_name_ok(key) {
            return Err(VerbError::refused(format!(
                "\"{key}\" cannot be a property's name: a letter, then letters, digits or `_`, \
                 32 at most."
            )));
        }
        let value = args.value.as_deref().map(str::trim);
        if let Some(v) = value
            && (v.chars().count() > MAX_VALUE || v.chars().any(char::is_control))
        {
            return Err(VerbError::refused(format!(
                "A property's value is one line of at most {MAX_VALUE} characters."
            )));
        }
        let found = object(world, &cx.actor, &args.object)?;
        let num = world.num_of(found);
        world.set_prop(cx, found, key, value).map_err(refused)?;
        let said = match value {
            Some(v) => format!("#{num}.{key} is now \"{v}\"."),
            None => format!("#{num}.{key} is gone."),
        };
        Ok(Reply::new(
            vec![said],
            SetProperty {
                object: num,
                property: key.to_owned(),
                value: value.map(str::to_owned),
            },
        ))
    }
}
