//! `@describe me as <text>`: how others see you when they look at you; and, for a builder,
//! `@describe <object> as <text>` for a room, exit or thing of theirs (`here`, `#1000`, a
//! thing's name).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{keyword, text, whole};
use super::{Reply, Verb, VerbError, usage};
use crate::store::writes;
use crate::world::{Cx, World};

pub struct Describe;

/// The longest description accepted, in characters.
pub const MAX_DESCRIPTION: usize = 1000;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DescribeArgs {
    /// Your new description, as others will see it when they look at you.
    pub description: String,
    /// `me` (the default), or a builder's `here`, `#1000` or thing here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Described {
    pub description: String,
}

impl Verb for Describe {
    const NAME: &'static str = "describe";
    const ALIASES: &'static [&'static str] = &["@describe"];
    const USAGE: &'static str = "@describe <me|here|#num|thing> as <text>";
    const SUMMARY: &'static str = "Set how others see you when they look at you.";
    const HELP: &'static str = "`@describe me as A tall figure in a green coat.` sets your description; \
others see it when they `look` at you. It is kept across visits. A builder describes what they \
built the same way: `@describe here as …`, `@describe lamp as …`, `@describe #1003 as …`.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Set `description`, what others see when they look at \
you (or the `object` you built), kept across visits. Returns the description as stored.";
    // With the builders' tools: an agent rarely describes itself, and the plain `/mcp` keeps
    // within its budget.
    const TOOLSET: Option<super::Toolset> = Some(super::build::TOOLSET);
    type Args = DescribeArgs;
    type Output = Described;

    fn parse(rest: &str) -> Result<DescribeArgs, VerbError> {
        if let Ok((_, _, t)) = whole(
            rest,
            (keyword("me"), keyword("as"), text),
            usage::<Describe>,
        ) {
            return Ok(DescribeArgs {
                description: t.to_owned(),
                object: None,
            });
        }
        // `<object> as <text>`: the first ` as ` ends the object's name.
        let all = whole(rest, text, usage::<Describe>)?;
        match all.split_once(" as ") {
            Some((object, t)) if !object.trim().is_empty() && !t.trim().is_empty() => {
                Ok(DescribeArgs {
                    description: t.trim().to_owned(),
                    object: Some(object.trim().to_owned()),
                })
            }
            _ => Err(usage::<Describe>()),
        }
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: DescribeArgs,
    ) -> Result<Reply<Described>, VerbError> {
        let description = args.description.trim().to_owned();
        if description.chars().count() > MAX_DESCRIPTION {
            return Err(VerbError::refused(format!(
                "A description may be at most {MAX_DESCRIPTION} characters long."
            )));
        }
        if let Some(object) = args
            .object
            .as_deref()
            .filter(|o| !o.eq_ignore_ascii_case("me"))
        {
            if !world.may_build(&cx.actor) {
                return Err(VerbError::refused(
                    "You may describe only yourself: `@describe me as <text>`.",
                ));
            }
            let found = super::build::object(world, &cx.actor, object)?;
            if matches!(found, crate::world::map::Found::Exit(..)) {
                return Err(VerbError::refused(
                    "An exit has no description of its own: describe the room it leads to.",
                ));
            }
            world
                .reword(cx, found, None, Some(&description))
                .map_err(|r| VerbError::refused(r.0))?;
            let num = world.num_of(found);
            super::build::show_here(world, cx, |me| format!("{me} describes #{num} anew."));
            return Ok(Reply::new(
                vec!["Description set.".into()],
                Described { description },
            ));
        }
        let old = std::mem::replace(
            &mut world.player_mut(&cx.actor).description,
            description.clone(),
        );
        let who = cx.actor.clone();
        cx.save(
            writes::set_description(cx.actor.to_string(), description.clone()),
            move |w| {
                if w.is_present(&who) {
                    w.player_mut(&who).description = old;
                }
            },
        );
        Ok(Reply::new(
            vec!["Description set.".into()],
            Described { description },
        ))
    }
}
