//! `@describe me as <text>`: how others see you when they look at you.

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
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Described {
    pub description: String,
}

impl Verb for Describe {
    const NAME: &'static str = "describe";
    const ALIASES: &'static [&'static str] = &["@describe"];
    const USAGE: &'static str = "@describe me as <text>";
    const SUMMARY: &'static str = "Set how others see you when they look at you.";
    const HELP: &'static str = "`@describe me as A tall figure in a green coat.` sets your description; \
others see it when they `look` at you. It is kept across visits.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Set `description`, what others see when they look at \
you, kept across visits. Returns the description as stored.";
    type Args = DescribeArgs;
    type Output = Described;

    fn parse(rest: &str) -> Result<DescribeArgs, VerbError> {
        whole(
            rest,
            (keyword("me"), keyword("as"), text),
            usage::<Describe>,
        )
        .map(|(_, _, t)| DescribeArgs {
            description: t.to_owned(),
        })
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
