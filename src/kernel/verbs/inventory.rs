//! `inventory` / `i`: what you carry (see [`super::carry`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{NoArgs, Reply, Verb, VerbError, no_args};
use crate::world::{Cx, World};

pub struct Inventory;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Carried {
    /// The names of what you carry.
    pub items: Vec<String>,
}

impl Verb for Inventory {
    const NAME: &'static str = "inventory";
    const ALIASES: &'static [&'static str] = &["i", "inv"];
    const USAGE: &'static str = "inventory";
    const SUMMARY: &'static str = "List what you are carrying.";
    const HELP: &'static str = "Lists what you carry.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str =
        "List what you carry; needs nothing. Returns the names of what you carry.";
    type Args = NoArgs;
    type Output = Carried;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Inventory>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<Carried>, VerbError> {
        let items = world.carried(&cx.actor);
        let text = match items.as_slice() {
            [] => vec!["You are empty-handed.".into()],
            _ => std::iter::once("You are carrying:".to_owned())
                .chain(items.iter().map(|i| format!("  {i}")))
                .collect(),
        };
        Ok(Reply::new(text, Carried { items }))
    }
}
