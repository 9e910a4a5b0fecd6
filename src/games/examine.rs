//! `examine <thing>` / `x`: a closer look than `look`, with what a thing is called and which
//! verbs it offers.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{REGISTRY, offers};
use moot_kernel::text::{capitalize, english_list};
use moot_kernel::verbs::parse::{text, whole};
use moot_kernel::verbs::target::{Target, find_here};
use moot_kernel::verbs::{Reply, Verb, VerbError, usage};
use moot_kernel::world::{Cx, ThingKind, World};

pub struct Examine;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ExamineArgs {
    /// A thing or person here, `me` or `here`.
    pub target: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Examined {
    pub name: String,
    /// The other names it answers to.
    pub aliases: Vec<String>,
    pub description: String,
    /// What kind of thing it is; absent for people and rooms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ThingKind>,
    /// The verbs it offers.
    pub verbs: Vec<String>,
}

/// Verbs every thing offers, and those its kind adds from the registry.
fn verbs_of(kind: Option<&ThingKind>) -> Vec<String> {
    let mut verbs = vec!["look".to_owned(), "examine".to_owned()];
    if let Some(k) = kind {
        verbs.extend(
            REGISTRY
                .iter()
                .filter(|e| offers(e, k))
                .map(|e| e.name.to_owned()),
        );
    }
    verbs
}

impl Verb for Examine {
    const NAME: &'static str = "examine";
    const ALIASES: &'static [&'static str] = &["x", "exam"];
    const USAGE: &'static str = "examine <thing>";
    const SUMMARY: &'static str = "A thing's names, description and verbs.";
    const HELP: &'static str = "Shows everything about a thing or person here: the names it answers to, \
its description, and the verbs you can use on it.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Examine `target`, a thing or person here (or `me`, \
`here`). Returns its kind, name, aliases, description and the verbs you can use on it.";
    type Args = ExamineArgs;
    type Output = Examined;

    fn parse(rest: &str) -> Result<ExamineArgs, VerbError> {
        whole(rest, text, usage::<Examine>).map(|t| ExamineArgs {
            target: t.to_owned(),
        })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: ExamineArgs,
    ) -> Result<Reply<Examined>, VerbError> {
        let found = find_here(world, &cx.actor, &args.target)?;
        // An object's number, its builder and its properties, for the text (the data keeps
        // its shape: an agent reads them with `look`'s numbers and the builders' tools).
        let (num, owner, props) = match &found {
            Target::Room(room) => {
                let r = world.map.room(*room);
                (Some(r.num), r.owner.clone(), r.props.clone())
            }
            Target::Thing(room, i) => world
                .map
                .room(*room)
                .things
                .get(*i)
                .map_or((None, None, Default::default()), |t| {
                    (Some(t.num), t.owner.clone(), t.props.clone())
                }),
            _ => (None, None, Default::default()),
        };
        let mut e = match found {
            Target::Room(room) => {
                let r = world.map.room(room);
                Examined {
                    name: r.name.clone(),
                    aliases: vec![],
                    description: r.description.clone(),
                    kind: None,
                    verbs: vec!["look".into()],
                }
            }
            Target::Thing(room, i) => {
                let t = world
                    .map
                    .room(room)
                    .things
                    .get(i)
                    .ok_or_else(|| VerbError::not_found("I see no such thing here."))?;
                Examined {
                    name: t.name.clone(),
                    aliases: t.aliases.clone(),
                    // As for a person: an empty line said nothing at all.
                    description: if t.description.trim().is_empty() {
                        "You see nothing special.".into()
                    } else {
                        t.description.clone()
                    },
                    kind: Some(t.kind.clone()),
                    verbs: verbs_of(Some(&t.kind)),
                }
            }
            Target::Session(id) => {
                let s = moot_kernel::verbs::games::session_of(world, id)?;
                Examined {
                    name: format!("game #{id}"),
                    aliases: vec![
                        format!("#{id}"),
                        format!("game {id}"),
                        format!("board {id}"),
                    ],
                    description: format!(
                        "A {} game: {}, {}.",
                        s.template.title,
                        s.players_line(),
                        s.status()
                    ),
                    kind: None,
                    verbs: vec!["look".into(), "examine".into()],
                }
            }
            Target::Person(id) => {
                let p = world.player(&id);
                Examined {
                    name: p.name.clone(),
                    aliases: vec![],
                    description: if p.description.is_empty() {
                        "You see nothing special.".into()
                    } else {
                        p.description.clone()
                    },
                    kind: None,
                    verbs: vec![
                        "look".into(),
                        "examine".into(),
                        "page".into(),
                        "whisper".into(),
                    ],
                }
            }
        };
        // The verbs its programmers gave it, which `push <thing>` runs.
        if let Some(n) = num {
            e.verbs
                .extend(world.verbs_for(&cx.actor, n).into_iter().map(str::to_owned));
        }
        let mut text = vec![capitalize(&e.name)];
        if !e.aliases.is_empty() {
            text.push(format!("Also called: {}.", english_list(&e.aliases)));
        }
        text.push(moot_kernel::wrap::set_in_if_marked(e.description.trim_end()).into_owned());
        if let Some(n) = num {
            let maker = owner
                .as_deref()
                .and_then(|o| world.directory.name_of(o))
                .map_or_else(
                    || "the town's own".to_owned(),
                    |who| format!("built by {who}"),
                );
            text.push(format!("Number #{n}, {maker}."));
        }
        for (k, v) in &props {
            text.push(format!("  .{k} = \"{v}\""));
        }
        // A person reads the words they type (`deal`), an agent's data the tools' names
        // (`blackjack_deal`).
        let typed: Vec<&str> = e
            .verbs
            .iter()
            .map(|v| match REGISTRY.iter().find(|r| r.name == v.as_str()) {
                Some(r) if r.name.contains('_') => r.aliases.first().copied().unwrap_or(r.name),
                _ => v.as_str(),
            })
            .collect();
        text.push(format!("Verbs: {}.", typed.join(", ")));
        Ok(Reply::new(text, e))
    }
}
