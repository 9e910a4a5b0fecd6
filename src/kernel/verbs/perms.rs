//! `@chmod`, LambdaCore's permission bits: an object's `w` (every builder may change it, not
//! its owner alone), and a verb's `r` (others may read its code) and `x` (others may run it).
//! A new verb has `r` and `x`; LambdaMOO's `x` lets other code call a verb, and since moot's
//! verbs do not call each other, here it says who may run it at all.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::build::{TOOLSET, TOPIC, builder, object, refused};
use super::program::target;
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::store::programs::VerbMode;
use crate::world::Cx;
use crate::world::World;
use crate::world::map::ObjNum;

pub struct Chmod;

/// `<object> [+w|-w]` or `<object>:<verb> [+r|-r] [+x|-x]` (for `@chmod`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ChmodArgs {
    /// `here`, `#1004`, or a thing or exit where you stand; `#1004:push` for a verb.
    pub object: String,
    /// An object: `true` lets every builder change it, `false` its owner alone.
    #[serde(default)]
    pub writable: Option<bool>,
    /// A verb: whether others may read its code.
    #[serde(default)]
    pub readable: Option<bool>,
    /// A verb: whether others may run it.
    #[serde(default)]
    pub runnable: Option<bool>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Permissions {
    pub object: ObjNum,
    /// Whether every builder may change it.
    pub writable: bool,
    /// For a verb: its name, and whether others may read and run it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verb: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readable: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runnable: Option<bool>,
}

impl Verb for Chmod {
    const NAME: &'static str = "chmod";
    const ALIASES: &'static [&'static str] = &["@chmod"];
    const USAGE: &'static str = "@chmod <object> [+w|-w] | <object>:<verb> [+r|-r] [+x|-x]";
    const SUMMARY: &'static str = "Let others change a thing of yours, or read or run a verb.";
    const HELP: &'static str = "`@chmod lamp +w` lets every builder describe, rename, set and \
program your lamp (and dig exits from a room of yours), as LambdaCore's `w` bit does; `-w` makes \
it yours alone again. A verb has `r` (others may read its code) and `x` (others may run it): \
`@chmod lamp:tune -r` hides its code, `-x` keeps it to you. Without a bit, it says which are set.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Let every builder change `object`, which you built \
(`writable`), or, for a verb (`#1004:push`), let others read its code (`readable`) and run it \
(`runnable`); leave them out to only ask. Returns the bits as they stand.";
    type Args = ChmodArgs;
    type Output = Permissions;

    fn parse(rest: &str) -> Result<ChmodArgs, VerbError> {
        let mut words: Vec<&str> = rest.split_whitespace().collect();
        let mut args = ChmodArgs {
            object: String::new(),
            writable: None,
            readable: None,
            runnable: None,
        };
        // The bits are the last words: `+w`, `-r`, `-rx`, `+x`; read from the end, so the
        // words are turned round to apply them left to right (the last said wins).
        let mut bits = Vec::new();
        while let Some(w) = words.last().copied() {
            let Some((on, letters)) = w
                .strip_prefix('+')
                .map(|b| (true, b))
                .or_else(|| w.strip_prefix('-').map(|b| (false, b)))
                .filter(|(_, b)| !b.is_empty() && b.chars().all(|c| "rwx".contains(c)))
            else {
                break;
            };
            bits.push((on, letters));
            words.pop();
        }
        for (on, letters) in bits.into_iter().rev() {
            for c in letters.chars() {
                match c {
                    'w' => args.writable = Some(on),
                    'r' => args.readable = Some(on),
                    _ => args.runnable = Some(on),
                }
            }
        }
        args.object = words.join(" ");
        if args.object.is_empty() {
            return Err(usage::<Chmod>());
        }
        Ok(args)
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: ChmodArgs,
    ) -> Result<Reply<Permissions>, VerbError> {
        builder(world, &cx.actor)?;
        let on_verb = args.object.contains(':');
        // Check every part before changing any: a refusal changes nothing.
        match (on_verb, args.writable, args.readable.or(args.runnable)) {
            (true, Some(_), _) => {
                return Err(VerbError::usage(
                    "A verb's bits are r and x; w is its object's (`@chmod lamp +w`).",
                ));
            }
            (false, _, Some(_)) => {
                return Err(VerbError::usage(
                    "r and x are a verb's bits: name it as <object>:<verb> (`@chmod lamp:tune -x`).",
                ));
            }
            _ => {}
        }
        if on_verb {
            let (found, verb) = target(world, cx, &args.object)?;
            let num = world.num_of(found);
            // A verb kept from the asker is no verb to them, asked of or not.
            let hidden = !world.may_read_verb(&cx.actor, num, &verb)
                && !world.may_run_verb(&cx.actor, num, &verb);
            let Some(mut mode) = world.verb_mode(num, &verb).filter(|_| !hidden) else {
                return Err(VerbError::not_found(format!(
                    "#{num} has no verb called {verb}."
                )));
            };
            if args.readable.is_some() || args.runnable.is_some() {
                mode = VerbMode {
                    readable: args.readable.unwrap_or(mode.readable),
                    runnable: args.runnable.unwrap_or(mode.runnable),
                };
                world
                    .set_verb_mode(cx, found, &verb, mode)
                    .map_err(refused)?;
            }
            let read = match mode.readable {
                true => "anyone may read its code",
                false => "only its owner reads its code",
            };
            let run = match mode.runnable {
                true => "anyone here may run it",
                false => "only its owner runs it",
            };
            let letters = match mode.letters() {
                "" => "none",
                l => l,
            };
            return Ok(Reply::new(
                vec![format!("#{num}:{verb} is {letters}: {read}, and {run}.")],
                Permissions {
                    object: num,
                    writable: world.is_writable(num),
                    verb: Some(verb),
                    readable: Some(mode.readable),
                    runnable: Some(mode.runnable),
                },
            ));
        }
        let found = object(world, &cx.actor, &args.object)?;
        let num = world.num_of(found);
        if let Some(on) = args.writable {
            world.set_writable(cx, found, on).map_err(refused)?;
        }
        let writable = world.is_writable(num);
        let said = match writable {
            true => format!("#{num} is writable: every builder may change it."),
            false => format!("#{num} is its owner's alone to change."),
        };
        Ok(Reply::new(
            vec![said],
            Permissions {
                object: num,
                writable,
                verb: None,
                readable: None,
                runnable: None,
            },
        ))
    }
}
