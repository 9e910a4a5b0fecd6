//! `help [topic|verb]`: the verbs by topic, one topic, or one verb's usage and explanation,
//! all from the registry itself.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{ALL, REGISTRY, find, topic_named, topics};
use moot_kernel::verbs::game_module::GameModule;
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
        "PREFIX, OUTPUTPREFIX <text>",
        "Print <text> before each command's output.",
    ),
    (
        "SUFFIX, OUTPUTSUFFIX <text>",
        "Print <text> after each command's output.",
    ),
];

/// `help @quit`, `help PREFIX`: a connection's own command, as `help basics` lists it.
fn telnet_command(word: &str) -> Option<String> {
    TELNET_COMMANDS.iter().find_map(|&(names, what)| {
        let named = names.split(',').any(|n| {
            n.split_whitespace()
                .next()
                .is_some_and(|n| n.eq_ignore_ascii_case(word))
        });
        named.then(|| format!("{names}: {what} (typed on a telnet connection)"))
    })
}

impl Verb for Help {
    const NAME: &'static str = "help";
    const ALIASES: &'static [&'static str] = &["?"];
    const USAGE: &'static str = "help [topic|verb]";
    const SUMMARY: &'static str = "This list, or one topic or verb explained.";
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

    fn run(world: &mut World, cx: &mut Cx, args: HelpArgs) -> Result<Reply<HelpText>, VerbError> {
        let reader = Reader {
            person: cx.face == Face::Telnet,
            tools: cx.face == Face::Mcp,
            wizard: world.find_player(&cx.actor).is_some_and(|p| p.wizard),
            pace: world.time_scale(),
        };
        let lines = match args.topic.as_deref() {
            None if reader.person => first_screen(reader),
            None => overview(reader),
            Some(word) if let Some(m) = table_game_named(word) => table_game(m),
            Some(word) if let Some(t) = topic_named(word) => topic(t, reader),
            Some(word) if let Some(line) = telnet_command(word) => vec![line],
            Some(topic) => {
                let e = find(topic.trim_start_matches('@'))
                    .or_else(|| find(topic))
                    .ok_or_else(|| {
                        VerbError::not_found(format!(
                            "Sorry, but no help is available on \"{topic}\". `help` lists the topics."
                        ))
                    })?;
                let mut lines = vec![format!("Usage: {}", e.usage)];
                // Not the name the usage already shows (`@dig` is the usage's own word).
                let typed = e.usage.split_whitespace().next();
                let also: Vec<&str> = e
                    .aliases
                    .iter()
                    .copied()
                    .filter(|a| Some(*a) != typed)
                    .collect();
                if !also.is_empty() {
                    lines.push(format!("Also: {}", also.join(", ")));
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

/// Who reads the help: a person at a terminal (whose screen is 24 lines and who has no use for
/// agents' tool names), or an agent; a wizard or not (only wizards are shown wizards' verbs).
#[derive(Debug, Clone, Copy)]
struct Reader {
    person: bool,
    /// An agent over MCP, which calls tools: a verb that is no tool (telnet's `@wrap`, the
    /// lichess Bot API's reads) is not listed to it.
    tools: bool,
    wizard: bool,
    /// The town's pace (`--time-scale`), for rules that name their times.
    pace: f64,
}

/// The verbs a person meets first, in the order `help` lists them.
const FIRST: &[&str] = &["look", "go", "say", "page", "who", "examine", "home"];

/// A list of verbs, each on one row where it fits a screen, their summaries in a column.
fn list<'a>(entries: impl IntoIterator<Item = &'a VerbEntry>) -> Vec<String> {
    rows(
        entries
            .into_iter()
            .map(|e| (short_usage(e.usage), e.summary)),
    )
}

/// A usage as a list shows it: the first of its forms, without its options if it is long
/// (`help <verb>` gives it whole).
fn short_usage(usage: &str) -> &str {
    let first = usage.split("   ").next().unwrap_or(usage);
    match first.find(" [") {
        Some(i) if first.chars().count() > WIDEST => &first[..i],
        _ => first,
    }
}

/// The widest usage a list sets its summaries beside; a longer one takes more of its row.
const WIDEST: usize = 30;

/// Rows of a list: each name, then its summary in a column as wide as the widest name needs.
fn rows<'a>(pairs: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let pairs: Vec<(&str, &str)> = pairs.collect();
    let width = pairs
        .iter()
        .map(|(u, _)| u.chars().count())
        .filter(|&n| n <= WIDEST)
        .max()
        .unwrap_or(0);
    pairs
        .into_iter()
        .map(|(usage, summary)| format!("  {usage:<width$}  {summary}"))
        .collect()
}

/// The verbs of topic `t` that `reader` can use where they read.
fn verbs_of(t: Topic, reader: Reader) -> impl Iterator<Item = &'static VerbEntry> {
    REGISTRY
        .iter()
        .copied()
        .filter(move |e| e.topic == t && (!reader.tools || e.toolset.is_some()))
}

/// The topics a reader is shown: not the agents' to a person, not the wizards' to anyone else.
fn shown(reader: Reader) -> impl Iterator<Item = Topic> {
    topics().into_iter().filter(move |t| {
        (*t != Topic::AGENTS || !reader.person) && (*t != Topic::WIZARDS || reader.wizard)
    })
}

/// A person's `help`: one screen with the verbs to start with, the games by the words that
/// start them, and the topics.
fn first_screen(reader: Reader) -> Vec<String> {
    let mut lines =
        vec!["moot is a town to talk and play games in. Verbs to start with:".to_owned()];
    let first = FIRST.iter().filter_map(|name| find(name));
    lines.extend(rows(
        first
            .map(|e| (short_usage(e.usage), e.summary))
            .chain(TELNET_COMMANDS.first().map(|&(cmd, what)| {
                // `@quit, QUIT`: its first name.
                (cmd.split(',').next().unwrap_or(cmd), what)
            })),
    ));
    lines.extend(games_lines());
    let names: Vec<&str> = shown(reader)
        .filter_map(|t| t.words.first().copied())
        .collect();
    lines.push(format!("Topics (`help <topic>`): {}.", names.join(", ")));
    lines.push(
        "Type an exit's name (`north`, `n`) to walk; `help <verb>` explains a verb.".to_owned(),
    );
    lines
}

/// The games by their words, and what to type to start one.
fn games_lines() -> Vec<String> {
    let names: Vec<&str> = ALL.iter().map(|m| m.name).collect();
    let mut tries: Vec<String> = Vec::new();
    if let Some(m) = ALL
        .iter()
        .find(|m| m.topic == Topic::TABLES && m.templates.iter().any(|t| t.house_plays))
    {
        tries.push(format!("`play {} with house`", m.name));
    }
    tries.extend(ALL.iter().filter_map(|m| m.start).map(|s| format!("`{s}`")));
    vec![
        format!("Games: {} (`help <game>`).", names.join(", ")),
        format!("Try: {}.", tries.join(", ")),
    ]
}

/// Every topic a reader may see with its verbs (what an agent's `help` gives: it reads it
/// whole, and is not on a 24-line screen).
fn overview(reader: Reader) -> Vec<String> {
    let mut lines = vec![
        "Verbs by topic (`help <topic>` for one topic, `help <verb>` for one verb):".to_owned(),
    ];
    for t in shown(reader) {
        match t.words.first() {
            Some(word) if t != Topic::BASICS => {
                lines.push(format!("{} (`help {word}`):", t.title));
            }
            _ => lines.push(format!("{}:", t.title)),
        }
        lines.extend(list(verbs_of(t, reader)));
    }
    lines.extend(games_lines());
    lines.push("Typing the name of an exit (`north`, `n`) walks through it.".into());
    lines
}

/// One topic: what to know first, then its verbs. A person is not shown the agents' tools
/// (but where agents learn them), nor anyone but a wizard the wizards' verbs.
fn topic(t: Topic, reader: Reader) -> Vec<String> {
    let mut lines = vec![format!("{}:", t.title), t.intro.to_owned()];
    if t == Topic::AGENTS && reader.person {
        // What an agent calls is for the agent to read; a person learns where it reads it,
        // and the verb that gives their own agent its token.
        return vec![
            format!("{}:", t.title),
            "AI agents play here too, over MCP and the REST API; `/skill.md` on moot's web \
             address tells them how."
                .to_owned(),
        ]
        .into_iter()
        .chain(list(find("token")))
        .collect();
    }
    if t == Topic::WIZARDS && !reader.wizard {
        return lines;
    }
    lines.extend(list(verbs_of(t, reader)));
    if t == Topic::TABLES {
        let games: Vec<String> = ALL
            .iter()
            .filter(|m| m.topic == Topic::TABLES)
            .map(|m| match m.templates.first() {
                Some(g) if !g.title.eq_ignore_ascii_case(m.name) => {
                    format!("{} ({})", m.name, g.title)
                }
                _ => m.name.to_owned(),
            })
            .collect();
        lines.push(format!(
            "The games at the tables: {}. `help <game>` for one.",
            games.join(", ")
        ));
    }
    if t == Topic::BASICS && reader.person {
        lines.push("Your connection's own commands:".into());
        lines.extend(rows(TELNET_COMMANDS.iter().copied()));
    }
    match (t.more_with, t.more) {
        (Some(with), Some(_)) if reader.person => lines.push(format!(
            "`{with}` gives the rules as played here; `help <verb>` explains a verb."
        )),
        (_, Some(more)) => {
            lines.push(String::new());
            lines.extend(more(reader.pace));
            lines.push("`help <verb>` explains one of them.".to_owned());
        }
        _ => lines.push("`help <verb>` explains one of them.".to_owned()),
    }
    lines
}

/// The game of the tables called `word` (by its name, as `play` takes it, or its title: `rps`,
/// `rock-paper-scissors`).
fn table_game_named(word: &str) -> Option<&'static GameModule> {
    ALL.iter().copied().find(|m| {
        m.topic == Topic::TABLES
            && (m.name.eq_ignore_ascii_case(word)
                || m.templates
                    .iter()
                    .any(|t| moot_kernel::text::same_words(t.title, word)))
    })
}

/// One game of the tables: how to start it, and its own verbs.
fn table_game(m: &'static GameModule) -> Vec<String> {
    let title = m.templates.first().map_or(m.name, |t| t.title);
    let mut lines = vec![format!(
        "{} (`{}`), at the tables:",
        capitalized(title),
        m.name
    )];
    let house = format!("play {} with house", m.name);
    let person = format!("play {} with <name>", m.name);
    let mut starts = Vec::new();
    if m.templates.iter().any(|t| t.house_plays) {
        starts.push((house.as_str(), "Play the house's computer, at once."));
    }
    starts.push((person.as_str(), "Invite someone here, who says it back."));
    let own = m.verbs.iter().map(|e| (short_usage(e.usage), e.summary));
    lines.extend(rows(starts.into_iter().chain(own)));
    lines.push("`help games` for watching, invitations, clocks and ratings.".to_owned());
    lines
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
