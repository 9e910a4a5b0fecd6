//! `page <name> <text>`: a message to someone connected, wherever they are.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{text, whole, word};
use super::say::Heard;
use super::{Reply, Verb, VerbError, usage};
use crate::world::{Cx, World};

pub struct Page;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PageArgs {
    /// Who to page: the name of a connected character.
    pub name: String,
    /// The message.
    pub text: String,
}

impl Verb for Page {
    const NAME: &'static str = "page";
    const USAGE: &'static str = "page <name> <text>";
    const SUMMARY: &'static str = "Message someone connected, wherever they are.";
    const HELP: &'static str = "`page Alice meet me in the Town Hall` reaches Alice in whatever room she \
is; she is also told where you are.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Send `text` to `name`, a character connected anywhere, \
who is told where you are. Returns the line they were shown.";
    type Args = PageArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<PageArgs, VerbError> {
        whole(rest, (word, text), usage::<Page>).map(|(name, text)| PageArgs {
            name: name.to_owned(),
            text: text.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: PageArgs) -> Result<Reply<Heard>, VerbError> {
        let target = world.connected_named(&args.name).ok_or_else(|| {
            VerbError::not_found(format!(
                "No one called \"{}\" is connected.{}",
                args.name,
                crate::text::did_you_mean(&args.name, world.players().map(|p| p.name.as_str()))
            ))
        })?;
        if let Some(why) = world.deaf_to_town(&target.id) {
            return Err(VerbError::refused(why));
        }
        let me = world.player(&cx.actor);
        let where_ = &world.map.room(me.room).name;
        let line = format!("{} pages, \"{}\"", me.name, args.text);
        let (to, heard_by) = (target.id.clone(), vec![target.name.clone()]);
        cx.tell(
            &to,
            format!("You sense that {} is looking for you in {where_}.", me.name),
        );
        cx.hear(
            &to,
            crate::world::Said::new("page", &me.name, line.as_str()),
        );
        Ok(Reply::new(
            vec!["Your message has been sent.".into()],
            Heard { line, heard_by },
        ))
    }
}
