//! The wizards' verbs: `@boot`, `@ban`, `@unban`, `@shutdown`, `@announce` and `@builder`. A wizard is a
//! character the operator named with `moot admin grant NAME`. Every act is stored in the admin
//! log (with the audit line written as it is stored) before anyone hears of it, like any
//! other change.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, text, whole, word};
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::store::admin;
use crate::world::{AgentId, Cx, Effect, World};

/// What a wizard's act did.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Done {
    pub done: String,
}

fn wizard_only(world: &World, cx: &Cx, verb: &str) -> Result<String, VerbError> {
    let me = world.player(&cx.actor);
    if me.wizard {
        Ok(me.name.clone())
    } else {
        Err(VerbError::refused(format!(
            "Only a wizard may use {verb}. (The operator makes wizards with `moot admin grant NAME`.)"
        )))
    }
}

/// The character called `name` who is in the town now.
fn present(world: &World, name: &str) -> Option<AgentId> {
    world
        .players()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .map(|p| p.id.clone())
}

fn done(text: String) -> Reply<Done> {
    Reply::new(vec![text.clone()], Done { done: text })
}

/// The lines a booted player reads last.
fn booted_lines(by: &str, reason: &str) -> Vec<String> {
    let why = if reason.is_empty() {
        String::new()
    } else {
        format!(": {reason}")
    };
    vec![format!("*** You have been booted by {by}{why} ***")]
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TargetArgs {
    /// A character's name (for `@ban` and `@unban`, or an IP address).
    pub target: String,
    /// Why, for the log and for whoever it is done to.
    #[serde(default)]
    pub reason: String,
}

fn parse_target<V: Verb>(rest: &str) -> Result<TargetArgs, VerbError> {
    whole(rest, (word, opt_text), usage::<V>).map(|(t, r)| TargetArgs {
        target: t.to_owned(),
        reason: r.unwrap_or("").to_owned(),
    })
}

pub struct Boot;

impl Verb for Boot {
    const NAME: &'static str = "boot";
    const ALIASES: &'static [&'static str] = &["@boot"];
    const USAGE: &'static str = "@boot <name> [reason]";
    const SUMMARY: &'static str = "(Wizards) Disconnect someone.";
    const HELP: &'static str = "`@boot Name why` closes Name's connection (an agent leaves the \
town until it acts again); the room hears they are gone. Stored in the admin log.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Wizards only: close the connection of `target`, a \
character in the town, telling them `reason`. Returns what was done, which the admin log keeps.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::WIZARD);
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = TargetArgs;
    type Output = Done;

    fn parse(rest: &str) -> Result<TargetArgs, VerbError> {
        parse_target::<Boot>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TargetArgs) -> Result<Reply<Done>, VerbError> {
        let me = wizard_only(world, cx, Self::ALIASES[0])?;
        let who = present(world, &args.target)
            .ok_or_else(|| VerbError::not_found(format!("{} is not connected.", args.target)))?;
        let name = world.player(&who).name.clone();
        cx.save(
            admin::act(me.clone(), "@boot", name.clone(), args.reason.clone()),
            |_| {},
        );
        cx.effects.push(Effect::Boot {
            agent: who,
            lines: booted_lines(&me, &args.reason),
        });
        Ok(done(format!("You boot {name}.")))
    }
}

pub struct Ban;

impl Verb for Ban {
    const NAME: &'static str = "ban";
    const ALIASES: &'static [&'static str] = &["@ban"];
    const USAGE: &'static str = "@ban <name|address> [reason]";
    const SUMMARY: &'static str = "(Wizards) Keep a character or an address out.";
    const HELP: &'static str = "`@ban Name why` keeps the character Name from connecting through \
any face (telnet, the web, REST and MCP tokens) and boots them if they are here; `@ban 203.0.113.9` \
refuses new connections from that address. `@unban` lifts it. Stored in the admin log.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Wizards only: keep `target` (a character's name, \
booted if here, or an IP address) out of every face, for `reason`. Returns what was done, which \
the admin log keeps.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::WIZARD);
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = TargetArgs;
    type Output = Done;

    fn parse(rest: &str) -> Result<TargetArgs, VerbError> {
        parse_target::<Ban>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TargetArgs) -> Result<Reply<Done>, VerbError> {
        let me = wizard_only(world, cx, Self::ALIASES[0])?;
        let address = args.target.parse::<std::net::IpAddr>().ok();
        // A name is banned as the character is called, and must be one.
        let what = match address {
            Some(ip) => ip.to_string(),
            None => {
                let id = world.directory.id_of(&args.target).ok_or_else(|| {
                    VerbError::not_found(format!(
                        "There is no character called \"{}\" (an address must be an IP address).",
                        args.target
                    ))
                })?;
                world.directory.name_of(&id).unwrap_or(args.target.clone())
            }
        };
        if what.eq_ignore_ascii_case(&me) {
            return Err(VerbError::refused("You cannot ban yourself."));
        }
        if world.directory.is_banned(&what) {
            return Err(VerbError::refused(format!("{what} is already banned.")));
        }
        world.directory.ban(&what);
        let (directory, undo_what) = (world.directory.clone(), what.clone());
        cx.save(
            admin::ban(me.clone(), what.clone(), args.reason.clone()),
            move |_| {
                directory.unban(&undo_what);
            },
        );
        if address.is_none()
            && let Some(who) = present(world, &what)
        {
            cx.effects.push(Effect::Boot {
                agent: who,
                lines: booted_lines(&me, &args.reason),
            });
        }
        Ok(done(match address {
            Some(_) => format!("New connections from {what} are refused from now on."),
            None => format!("{what} is banned."),
        }))
    }
}

pub struct Unban;

impl Verb for Unban {
    const NAME: &'static str = "unban";
    const ALIASES: &'static [&'static str] = &["@unban"];
    const USAGE: &'static str = "@unban <name|address>";
    const SUMMARY: &'static str = "(Wizards) Lift a ban.";
    const HELP: &'static str = "`@unban Name` or `@unban 203.0.113.9` lifts a ban made with `@ban`. Stored in the admin log.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Wizards only: lift the ban on `target`, a character's \
name or an IP address. Returns what was done, which the admin log keeps.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::WIZARD);
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = TargetArgs;
    type Output = Done;

    fn parse(rest: &str) -> Result<TargetArgs, VerbError> {
        whole(rest, word, usage::<Unban>).map(|t| TargetArgs {
            target: t.to_owned(),
            reason: String::new(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: TargetArgs) -> Result<Reply<Done>, VerbError> {
        let me = wizard_only(world, cx, Self::ALIASES[0])?;
        let what = match args.target.parse::<std::net::IpAddr>() {
            Ok(ip) => ip.to_string(),
            Err(_) => args.target.clone(),
        };
        if !world.directory.unban(&what) {
            return Err(VerbError::not_found(format!("{what} is not banned.")));
        }
        let (directory, undo_what) = (world.directory.clone(), what.clone());
        cx.save(admin::unban(me, what.clone()), move |_| {
            directory.ban(&undo_what);
        });
        Ok(done(format!("{what} is no longer banned.")))
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct MessageArgs {
    /// What everyone is told.
    #[serde(default)]
    pub message: String,
}

/// Tells everyone in the town but the actor `line`.
fn tell_everyone(world: &World, cx: &mut Cx, line: &str) {
    let actor = cx.actor.clone();
    let others: Vec<AgentId> = world
        .players()
        .map(|p| p.id.clone())
        .filter(|id| *id != actor)
        .collect();
    for id in &others {
        cx.tell(id, line);
    }
}

pub struct Shutdown;

impl Verb for Shutdown {
    const NAME: &'static str = "shutdown";
    const ALIASES: &'static [&'static str] = &["@shutdown"];
    const USAGE: &'static str = "@shutdown [message]";
    const SUMMARY: &'static str = "(Wizards) Stop moot, telling everyone why.";
    const HELP: &'static str = "`@shutdown Back in five minutes.` tells everyone connected \
`*** Shutting down: <message> ***` and stops moot cleanly: every answer already given is stored, \
and a restart replays it all. Stored in the admin log.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Wizards only: stop moot cleanly, telling everyone \
connected `message`; every answer already given is stored. Returns what was done, which the admin \
log keeps.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::WIZARD);
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = MessageArgs;
    type Output = Done;

    fn parse(rest: &str) -> Result<MessageArgs, VerbError> {
        whole(rest, opt_text, usage::<Shutdown>).map(|m| MessageArgs {
            message: m.unwrap_or("").to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: MessageArgs) -> Result<Reply<Done>, VerbError> {
        let me = wizard_only(world, cx, Self::ALIASES[0])?;
        let message = if args.message.is_empty() {
            format!("shutdown by {me}")
        } else {
            format!("{} (by {me})", args.message)
        };
        cx.save(
            admin::act(me, "@shutdown", String::new(), args.message.clone()),
            |_| {},
        );
        let line = format!("*** Shutting down: {message} ***");
        tell_everyone(world, cx, &line);
        cx.effects.push(Effect::Shutdown);
        Ok(done(line))
    }
}

pub struct Announce;

impl Verb for Announce {
    const NAME: &'static str = "announce";
    const ALIASES: &'static [&'static str] = &["@announce"];
    const USAGE: &'static str = "@announce <message>";
    const SUMMARY: &'static str = "(Wizards) Tell everyone in the town something.";
    const HELP: &'static str = "`@announce The Werewolf tournament starts at eight.` tells \
everyone connected, wherever they are. Stored in the admin log.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Wizards only: tell everyone connected `message`. \
Returns what was done, which the admin log keeps.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::WIZARD);
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = MessageArgs;
    type Output = Done;

    fn parse(rest: &str) -> Result<MessageArgs, VerbError> {
        whole(rest, text, usage::<Announce>).map(|m| MessageArgs {
            message: m.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: MessageArgs) -> Result<Reply<Done>, VerbError> {
        let me = wizard_only(world, cx, Self::ALIASES[0])?;
        if args.message.trim().is_empty() {
            return Err(usage::<Announce>());
        }
        cx.save(
            admin::act(me.clone(), "@announce", String::new(), args.message.clone()),
            |_| {},
        );
        let line = format!("*** Announcement from {me}: {} ***", args.message);
        tell_everyone(world, cx, &line);
        Ok(done(line))
    }
}

pub struct Builder;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct BuilderArgs {
    /// A character's name.
    pub name: String,
    /// Whether they may (true) or no longer (false).
    pub on: bool,
}

/// `<name> [off]`, for `@builder` and `@programmer`.
fn bit_args<V: Verb>(rest: &str) -> Result<BuilderArgs, VerbError> {
    whole(rest, (word, opt_text), usage::<V>).and_then(|(n, off)| match off {
        None => Ok(BuilderArgs {
            name: n.to_owned(),
            on: true,
        }),
        Some(w) if w.eq_ignore_ascii_case("off") => Ok(BuilderArgs {
            name: n.to_owned(),
            on: false,
        }),
        Some(_) => Err(usage::<V>()),
    })
}

/// A bit a wizard grants: the builder's or the programmer's.
#[derive(Clone, Copy)]
enum Bit {
    Builder,
    Programmer,
}

impl Bit {
    fn of(self, p: &mut crate::world::Player) -> &mut bool {
        match self {
            Bit::Builder => &mut p.builder,
            Bit::Programmer => &mut p.programmer,
        }
    }

    fn column(self) -> &'static str {
        match self {
            Bit::Builder => "builder",
            Bit::Programmer => "programmer",
        }
    }

    fn doing(self) -> &'static str {
        match self {
            Bit::Builder => "build",
            Bit::Programmer => "program",
        }
    }
}

/// Gives `args.name` the bit or takes it, as `@builder` and `@programmer` do: at once for
/// someone here, and stored (with the admin log) for their next login.
fn grant(
    world: &mut World,
    cx: &mut Cx,
    verb: &'static str,
    bit: Bit,
    args: BuilderArgs,
) -> Result<Reply<Done>, VerbError> {
    let me = wizard_only(world, cx, verb)?;
    let id = world.directory.id_of(&args.name).ok_or_else(|| {
        VerbError::not_found(format!("There is no character called \"{}\".", args.name))
    })?;
    let name = world.directory.name_of(&id).unwrap_or(args.name.clone());
    let who: AgentId = id.as_str().into();
    // Here now, it holds at once; the store keeps it for their next login.
    let before = world
        .is_present(&who)
        .then(|| std::mem::replace(bit.of(world.player_mut(&who)), args.on));
    let act = if args.on { "grant" } else { "revoke" };
    let stored: crate::world::Save = match bit {
        Bit::Builder => Box::new(crate::store::built::set_builder_bit(id.clone(), args.on)),
        Bit::Programmer => Box::new(crate::store::programs::set_programmer_bit(
            id.clone(),
            args.on,
        )),
    };
    let logged = admin::act(me, act, name.clone(), bit.column().to_owned());
    cx.save(
        move |c| {
            stored(c)?;
            logged(c)
        },
        move |w| {
            if let Some(was) = before
                && w.is_present(&who)
            {
                *bit.of(w.player_mut(&who)) = was;
            }
        },
    );
    let doing = bit.doing();
    Ok(done(match args.on {
        true => format!("{name} may {doing} now."),
        false => format!("{name} may no longer {doing}."),
    }))
}

impl Verb for Builder {
    const NAME: &'static str = "builder";
    const ALIASES: &'static [&'static str] = &["@builder"];
    const USAGE: &'static str = "@builder <name> [off]";
    const SUMMARY: &'static str = "(Wizards) Let someone build, or no longer.";
    const HELP: &'static str = "`@builder Ann` lets Ann build (`@dig`, `@create`…) from now on, \
here and after she next logs in; `@builder Ann off` takes it back (what she built stays hers). \
Stored in the admin log, like `moot admin builder NAME`.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Wizards only: let the character `name` build (`on`), \
or no longer. Returns what was done, which the admin log keeps.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::WIZARD);
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = BuilderArgs;
    type Output = Done;

    fn parse(rest: &str) -> Result<BuilderArgs, VerbError> {
        bit_args::<Builder>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: BuilderArgs) -> Result<Reply<Done>, VerbError> {
        grant(world, cx, Self::ALIASES[0], Bit::Builder, args)
    }
}

pub struct Programmer;

impl Verb for Programmer {
    const NAME: &'static str = "programmer";
    const ALIASES: &'static [&'static str] = &["@programmer"];
    const USAGE: &'static str = "@programmer <name> [off]";
    const SUMMARY: &'static str = "(Wizards) Let someone program, or no longer.";
    const HELP: &'static str = "`@programmer Ann` lets Ann give her things verbs (`@verb`, \
`@program`) from now on; `@programmer Ann off` takes it back (her verbs stay). Stored in the \
admin log, like `moot admin programmer NAME`.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Wizards only: let the character `name` program \
(`on`), or no longer. Returns what was done, which the admin log keeps.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::WIZARD);
    const TOPIC: Topic = Topic::WIZARDS;
    type Args = BuilderArgs;
    type Output = Done;

    fn parse(rest: &str) -> Result<BuilderArgs, VerbError> {
        bit_args::<Programmer>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: BuilderArgs) -> Result<Reply<Done>, VerbError> {
        grant(world, cx, Self::ALIASES[0], Bit::Programmer, args)
    }
}
