//! The programmers' verbs, as LambdaCore has them: `@verb` adds a verb to an object you own,
//! `@program` gives it code (typed line by line and ended with `.`, or in one call), `@list`
//! shows it (an older version too), `@kill` stops a run; and `run`, which anyone uses, most
//! often without knowing it: `push button` is `run button push`. The code is Rhai, run in the
//! sandbox (see `crate::sandbox`), with the rights of the object's owner.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::build::{object, refused};
use super::parse::{opt_text, whole, word};
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::sandbox::MAX_CODE;
use crate::world::map::{Found, ObjNum};
use crate::world::programs::Editing;
use crate::world::{Cx, World};

/// Where `help` lists the programmers' verbs.
pub const TOPIC: Topic = Topic {
    title: "Programming",
    words: &["programming", "program", "code", "rhai"],
    intro: "Programmers give the things they own verbs, written in Rhai: `@verb #1004 push` \
adds one, `@program #1004:push` takes its code, and anyone here may then `push <thing>`. A \
verb sees `this`, `player`, `words`, and can tell(player, text), say(text), read and set \
this[\"prop\"], move(thing, room), look at .contents and .location, random(n) and time().",
    more: None,
    more_with: None,
};

/// `#1004:push` → the object and the verb's name.
pub(super) fn target(world: &World, cx: &Cx, spec: &str) -> Result<(Found, String), VerbError> {
    let (obj, verb) = spec
        .trim()
        .rsplit_once(':')
        .ok_or_else(|| VerbError::usage("Name a verb as <object>:<verb>, e.g. #1004:push."))?;
    let found = object(world, &cx.actor, obj)?;
    Ok((found, verb.trim().to_ascii_lowercase()))
}

/// `<object> <name>` (for `@verb`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct VerbArgs {
    /// `here`, `#1004`, or the name of a thing where you stand.
    pub object: String,
    /// The verb's name: one lowercase word, e.g. `push`.
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct VerbAdded {
    /// The object's number.
    pub object: ObjNum,
    pub verb: String,
}

pub struct AddVerb;

impl Verb for AddVerb {
    const NAME: &'static str = "verb";
    const ALIASES: &'static [&'static str] = &["@verb"];
    const USAGE: &'static str = "@verb <object> <name>";
    const SUMMARY: &'static str = "Add a verb, with no code yet, to a thing or room of yours.";
    const HELP: &'static str = "`@verb #1004 push` (or `@verb lamp push`) adds the verb `push` to \
your thing; `@program #1004:push` then gives it code. Programmers only.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(super::build::TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Add the verb `name` (no code yet) to `object` \
(`#1004`, or a thing where you stand), which you own. Returns the object's number.";
    type Args = VerbArgs;
    type Output = VerbAdded;

    fn parse(rest: &str) -> Result<VerbArgs, VerbError> {
        let rest = rest.trim();
        let (object, name) = rest
            .rsplit_once(char::is_whitespace)
            .ok_or_else(usage::<AddVerb>)?;
        Ok(VerbArgs {
            object: object.trim().to_owned(),
            name: name.trim().to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: VerbArgs) -> Result<Reply<VerbAdded>, VerbError> {
        let found = object(world, &cx.actor, &args.object)?;
        let name = args.name.trim().to_ascii_lowercase();
        let num = world.add_verb(cx, found, &name).map_err(refused)?;
        Ok(Reply::new(
            vec![format!(
                "#{num} has a verb {name} now; `@program #{num}:{name}` gives it code."
            )],
            VerbAdded {
                object: num,
                verb: name,
            },
        ))
    }
}

/// `<object>:<verb> [code]` (for `@program`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ProgramArgs {
    /// The verb, as `#1004:push`.
    pub verb: String,
    /// Its new code, in Rhai. Typed without it, `@program` takes the lines that follow, up to
    /// a `.` alone on a line.
    pub code: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Programmed {
    pub object: ObjNum,
    pub verb: String,
    /// The version the code was stored as; none while lines are still being typed.
    pub version: Option<u32>,
}

pub struct Program;

impl Verb for Program {
    const NAME: &'static str = "program";
    const ALIASES: &'static [&'static str] = &["@program"];
    const USAGE: &'static str = "@program <object>:<verb> [code]";
    const SUMMARY: &'static str = "Give a verb of yours new code.";
    const HELP: &'static str = "`@program #1004:push` takes the lines you type next as the verb's \
code, up to a `.` alone on a line (`@abort` gives up); `@program #1004:push say(\"Click.\");` \
takes one line. Code that does not compile is refused; the last few versions are kept (`@list`).";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(super::build::TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Give the verb `verb` (`#1004:push`) the Rhai `code`, \
checked to compile and stored as its next version. Returns the version.";
    const MULTILINE: &'static [&'static str] = &["code"];
    type Args = ProgramArgs;
    type Output = Programmed;

    fn parse(rest: &str) -> Result<ProgramArgs, VerbError> {
        whole(rest, (word, opt_text), usage::<Program>).map(|(verb, code)| ProgramArgs {
            verb: verb.to_owned(),
            code: code.map(str::to_owned),
        })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: ProgramArgs,
    ) -> Result<Reply<Programmed>, VerbError> {
        let (found, verb) = target(world, cx, &args.verb)?;
        let num = world.num_of(found);
        let Some(code) = args.code else {
            if !cx.text_only {
                return Err(VerbError::usage("`code` is needed: the verb's whole code."));
            }
            // Checked now, so that nobody types a verb's code only to be told at the end.
            world.may_reprogram(cx, found, &verb).map_err(refused)?;
            world.player_mut(&cx.actor).editing = Some(Editing {
                num,
                verb: verb.clone(),
                code: String::new(),
            });
            return Ok(Reply::new(
                vec![format!(
                    "Now programming #{num}:{verb}. Type its code; a `.` alone on a line ends \
                     it, `@abort` gives up."
                )],
                Programmed {
                    object: num,
                    verb,
                    version: None,
                },
            ));
        };
        let version = world.program(cx, found, &verb, &code).map_err(refused)?;
        Ok(Reply::new(
            vec![format!("#{num}:{verb} is stored as version {version}.")],
            Programmed {
                object: num,
                verb,
                version: Some(version),
            },
        ))
    }
}

/// A line typed by someone who is typing a verb's code after `@program`: kept, or, for a `.`
/// alone, the end of it (stored, or refused with why); `@abort` gives up. `None` when they are
/// not typing code.
pub fn editing(world: &mut World, cx: &mut Cx, line: &str) -> Option<Vec<String>> {
    let me = world.find_player(&cx.actor)?;
    me.editing.as_ref()?;
    let trimmed = line.trim();
    if trimmed.eq_ignore_ascii_case("@abort") {
        world.player_mut(&cx.actor).editing = None;
        return Some(vec![
            "Programming given up; the verb's code is as it was.".into(),
        ]);
    }
    if trimmed == "." {
        let edit = world.player_mut(&cx.actor).editing.take()?;
        let Some(found) = world.map.find_num(edit.num) else {
            return Some(vec![format!("#{} is gone; nothing was stored.", edit.num)]);
        };
        return Some(match world.program(cx, found, &edit.verb, &edit.code) {
            Ok(version) => vec![format!(
                "#{}:{} is stored as version {version}.",
                edit.num, edit.verb
            )],
            Err(why) => vec![format!("{} Nothing was stored.", why.0)],
        });
    }
    let edit = world.player_mut(&cx.actor).editing.as_mut()?;
    if edit.code.len() + line.len() + 1 > MAX_CODE {
        world.player_mut(&cx.actor).editing = None;
        return Some(vec![format!(
            "A verb may hold at most {MAX_CODE} bytes of code; programming given up."
        )]);
    }
    edit.code.push_str(line);
    edit.code.push('\n');
    Some(Vec::new())
}

/// `<object>:<verb> [version]` (for `@list`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// The verb, as `#1004:push`.
    pub verb: String,
    /// An older version to show; the newest if none.
    pub version: Option<u32>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Listing {
    pub object: ObjNum,
    pub verb: String,
    pub version: u32,
    /// The versions kept, oldest first.
    pub versions: Vec<u32>,
    /// Who wrote this version.
    pub author: String,
    pub code: String,
}

pub struct List;

impl Verb for List {
    const NAME: &'static str = "list";
    const ALIASES: &'static [&'static str] = &["@list"];
    const USAGE: &'static str = "@list <object>:<verb> [version]";
    const SUMMARY: &'static str = "Show a verb's code, or an older version of it.";
    const HELP: &'static str = "`@list #1004:push` shows the verb's code with its lines numbered; \
`@list #1004:push 2` shows version 2, if it is one of the last few kept. Anyone may read a \
verb's code.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(super::build::TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "The code of the verb `verb` (`#1004:push`): the newest \
version, or `version`. Returns it with the versions kept and its author.";
    type Args = ListArgs;
    type Output = Listing;

    fn parse(rest: &str) -> Result<ListArgs, VerbError> {
        whole(rest, (word, opt_text), usage::<List>).and_then(|(verb, v)| {
            let version = match v {
                None => None,
                Some(v) => Some(v.parse().map_err(|_| usage::<List>())?),
            };
            Ok(ListArgs {
                verb: verb.to_owned(),
                version,
            })
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ListArgs) -> Result<Reply<Listing>, VerbError> {
        let (found, verb) = target(world, cx, &args.verb)?;
        let num = world.num_of(found);
        // A verb kept from others (`-x`) is not there for them; one whose code is hidden
        // (`-r`) says so.
        if !world.may_run_verb(&cx.actor, num, &verb) && !world.may_read_verb(&cx.actor, num, &verb)
        {
            return Err(VerbError::not_found(format!(
                "#{num} has no verb called {verb}."
            )));
        }
        if !world.may_read_verb(&cx.actor, num, &verb) {
            return Err(VerbError::refused(format!(
                "#{num}:{verb}'s code is its owner's to read (it is -r); you may run it."
            )));
        }
        let versions = world.verb_versions(num, &verb);
        let Some((v, _)) = world.verb_code(num, &verb, args.version) else {
            return Err(VerbError::not_found(match args.version {
                None => format!("#{num} has no verb called {verb}."),
                Some(n) => format!(
                    "#{num}:{verb} has no version {n}; those kept are {}.",
                    versions
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }));
        };
        // A verb the world files give was written by nobody in the town.
        let author = match v.author.as_str() {
            "" => "the town's files".to_owned(),
            a => world
                .directory
                .name_of(a)
                .unwrap_or_else(|| "someone gone".to_owned()),
        };
        let mut text = vec![format!(
            "#{num}:{verb}, version {} (of {}), by {author}:",
            v.version,
            versions
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )];
        if v.code.trim().is_empty() {
            text.push("  (no code yet)".into());
        }
        text.extend(
            v.code
                .lines()
                .enumerate()
                .map(|(i, l)| format!("{:>3}: {l}", i + 1)),
        );
        Ok(Reply::new(
            text,
            Listing {
                object: num,
                verb,
                version: v.version,
                versions,
                author,
                code: v.code.to_string(),
            },
        ))
    }
}

/// `[run]` (for `@kill`).
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct KillArgs {
    /// The run to stop; every run of yours if none.
    pub run: Option<u64>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Killed {
    /// How many runs were told to stop.
    pub stopped: usize,
}

pub struct Kill;

impl Verb for Kill {
    const NAME: &'static str = "kill_runs";
    const ALIASES: &'static [&'static str] = &["@kill"];
    const USAGE: &'static str = "@kill [run]";
    const SUMMARY: &'static str = "Stop your programmed verbs that are running.";
    const HELP: &'static str = "`@kill` stops every run of your verbs (and of verbs you typed); \
`@kill 12` only run 12. A stopped run does nothing at all. Wizards may stop anyone's.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(super::build::TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Stop the runs of your programmed verbs (or only \
`run`). Returns how many were stopped.";
    type Args = KillArgs;
    type Output = Killed;

    fn parse(rest: &str) -> Result<KillArgs, VerbError> {
        match rest.trim() {
            "" => Ok(KillArgs { run: None }),
            n => n
                .trim_start_matches('#')
                .parse()
                .map(|n| KillArgs { run: Some(n) })
                .map_err(|_| usage::<Kill>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: KillArgs) -> Result<Reply<Killed>, VerbError> {
        let stopped = world.kill_runs(cx, args.run);
        let line = match stopped {
            0 => "None of your verbs is running.".to_owned(),
            1 => "One run is stopped; it does nothing.".to_owned(),
            n => format!("{n} runs are stopped; they do nothing."),
        };
        Ok(Reply::new(vec![line], Killed { stopped }))
    }
}

// `<object> <verb> [words]` (for `run`). Its fields say little: the tool's description says
// it, and the plain `/mcp` lists it within a budget.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct RunArgs {
    pub object: String,
    pub verb: String,
    pub words: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Started {
    pub run: u64,
    pub object: ObjNum,
    pub verb: String,
}

pub struct Run;

impl Verb for Run {
    const TOPIC: Topic = super::carry::TOPIC;
    const NAME: &'static str = "run";
    const USAGE: &'static str = "run <object> <verb> [words]";
    const SUMMARY: &'static str = "Use a programmed verb of a thing here (or just type it).";
    const HELP: &'static str = "Things may have verbs their builders programmed: `push button` \
runs the button's `push`, as `run button push` does. What it does reaches you as it happens.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Run the programmed verb `verb` (`push`) of `object` \
(`#1004`, `here` or a thing here) with `words`. Returns the run's number; what it does reaches \
you as events.";
    type Args = RunArgs;
    type Output = Started;

    fn parse(rest: &str) -> Result<RunArgs, VerbError> {
        whole(rest, (word, word, opt_text), usage::<Run>).map(|(o, v, w)| RunArgs {
            object: o.to_owned(),
            verb: v.to_owned(),
            words: w.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: RunArgs) -> Result<Reply<Started>, VerbError> {
        let found = object(world, &cx.actor, &args.object)?;
        let here = world.player(&cx.actor).room;
        let pocket = world.pocket_of(&cx.actor);
        let near = match found {
            Found::Room(r) | Found::Exit(r, _) | Found::Thing(r, _) => {
                r == here || Some(r) == pocket
            }
        };
        let num = world.num_of(found);
        let verb = args.verb.trim().to_ascii_lowercase();
        if !near || !world.may_run_verb(&cx.actor, num, &verb) {
            return Err(VerbError::not_found(format!(
                "There is no verb {verb} on {} here.",
                args.object.trim()
            )));
        }
        let words: Vec<String> = args
            .words
            .as_deref()
            .unwrap_or("")
            .split_whitespace()
            .take(32)
            .map(|w| w.chars().take(100).collect())
            .collect();
        let run = world.start_run(cx, found, &verb, words).map_err(refused)?;
        // A typed line says nothing more: what the verb does is what the typist reads.
        let text = if cx.text_only {
            Vec::new()
        } else {
            vec![format!(
                "#{num}:{verb} runs (run {run}); what it does reaches you as events."
            )]
        };
        Ok(Reply::new(
            text,
            Started {
                run,
                object: num,
                verb,
            },
        ))
    }
}
