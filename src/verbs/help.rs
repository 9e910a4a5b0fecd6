//! `help [verb]`: the verb list, or one verb's usage and explanation, from the registry itself.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, whole};
use super::{REGISTRY, Reply, Verb, VerbError, find, usage};
use crate::world::{Cx, Face, World};

pub struct Help;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct HelpArgs {
    /// A verb to explain; omit for the list of verbs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct HelpText {
    /// The verb explained, or absent for the list.
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
    const USAGE: &'static str = "help [verb]";
    const SUMMARY: &'static str = "List the verbs, or explain one.";
    const HELP: &'static str = "`help` lists every verb; `help <verb>` explains one.";
    const READ_ONLY: bool = true;
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

fn overview(face: Face) -> Vec<String> {
    let mut lines = vec!["Verbs (type `help <verb>` for more):".to_owned()];
    for e in REGISTRY {
        lines.push(format!(
            "  {:<36} {}",
            e.usage.split("   ").next().unwrap_or(e.usage),
            e.summary
        ));
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
