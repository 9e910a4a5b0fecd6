//! `help [topic|verb]`: the verbs by topic, one topic, or one verb's usage and explanation,
//! all from the registry itself.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{REGISTRY, find, topic_named, topics};
use moot_kernel::verbs::parse::{opt_text, whole};
use moot_kernel::verbs::{Reply, Topic, Verb, VerbEntry, VerbError, usage};
use moot_kernel::world::{Cx, Face, World};

pub struct Help;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct HelpArgs {
    /// A topic (a game's name, `games`, `agents`) or a verb to explain; omit for the verbs by
    /// topic.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HelpText {
    /// The topic or verb explained, or absent for the list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
    pub text: String,
}

/// Commands that belong to a telnet connection rather than to the world, handled by the telnet
/// face before a line reaches the verbs (as LambdaMOO's server handles them before its parser).
pub const TELNET_COMMANDS: &[(&str, &str)] = &[
    ("@quit, QUIT", "Leave moot."),
    (
        "PREFIX <text>, OUTPUTPREFIX <text>",
        "Print <text> on a line before each command's output (bare PREFIX clears it).",
    ),
    (
        "SUFFIX <text>, OUTPUTSUFFIX <text>",
        "Print <text> on a line after each command's output (bare SUFFIX clears it).",
    ),
];

impl Verb for Help {
    const NAME: &'static str = "help";
    const ALIASES: &'static [&'static str] = &["?"];
    const USAGE: &'static str = "help [topic|verb]";
    const SUMMARY: &'static str = "List the verbs by topic, or explain a topic or a verb.";
    const HELP: &'static str = "`help` lists the verbs by topic; `help <topic>` (a game's name, \
`games` or `agents`) shows one topic; `help <verb>` explains one verb.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Explain `topic` (a game's name, `games`, `agents`) or \
a verb; without one, list the verbs by topic. Returns the text.";
    type Args = HelpArgs;
    type Output = HelpText;

    fn parse(rest: &str) -> Result<HelpArgs, VerbError> {
        whole(rest, opt_text, usage::<Help>).map(|t| HelpArgs {
            topic: t.map(str::to_owned),
        })
    }

    fn run(_: &mut World, cx: &mut Cx, args: HelpArgs) -> Result<Reply<HelpText>, VerbError> {
        let lines = match args.topic.as_deref() {
            None => overview(cx.face),
            Some(word) if let Some(t) = topic_named(word) => topic(t),
            Some(topic) => {
                let e = find(topic.trim_start_matches('@'))
                    .or_else(|| find(topic))
                    .ok_or_else(|| {
                        VerbError::not_found(format!(
                            "Sorry, but no help is available on \"{topic}\"."
                        ))
                    })?;
                let mut lines = vec![format!("Usage: {}", e.usage)];
                if !e.aliases.is_empty() {
                    lines.push(format!("Also: {}", e.aliases.join(", ")));
                }
                lines.push(e.help.to_owned());
                lines
            }
        };
        let text = lines.join("\n");
        Ok(Reply::new(
            lines,
            HelpText {
                topic: args.topic,
                text,
            },
        ))
    }
}

/// One line for a verb in a list.
fn line(e: &VerbEntry) -> String {
    format!(
        "  {:<36} {}",
        e.usage.split("   ").next().unwrap_or(e.usage),
        e.summary
    )
}

fn verbs_of(t: Topic) -> impl Iterator<Item = &'static VerbEntry> {
    REGISTRY.iter().copied().filter(move |e| e.topic == t)
}

/// Every topic with its verbs, but the agents' tools only named (a newcomer on telnet does not
/// need them; an agent over MCP gets them all).
fn overview(face: Face) -> Vec<String> {
    let mut lines = vec![
        "Verbs by topic (`help <topic>` for one topic, `help <verb>` for one verb):".to_owned(),
    ];
    for t in topics() {
        if t == Topic::AGENTS && face == Face::Telnet {
            let names: Vec<&str> = verbs_of(t).map(|e| e.name).collect();
            lines.push(format!(
                "{} (`help agents`): {}.",
                t.title,
                names.join(", ")
            ));
            continue;
        }
        match t.words.first() {
            Some(word) if t != Topic::BASICS => {
                lines.push(format!("{} (`help {word}`):", t.title));
            }
            _ => lines.push(format!("{}:", t.title)),
        }
        lines.extend(verbs_of(t).map(line));
    }
    lines.push("Typing the name of an exit (`north`, `n`) walks through it.".into());
    if face == Face::Telnet {
        lines.push("Connection commands:".into());
        for (cmd, what) in TELNET_COMMANDS {
            lines.push(format!("  {cmd:<36} {what}"));
        }
    }
    lines
}

/// One topic: what to know first, then its verbs.
fn topic(t: Topic) -> Vec<String> {
    let mut lines = vec![format!("{}:", t.title), t.intro.to_owned()];
    lines.extend(verbs_of(t).map(line));
    lines.push("`help <verb>` explains one of them.".to_owned());
    if let Some(more) = t.more {
        lines.push(String::new());
        lines.extend(more());
    }
    lines
}
