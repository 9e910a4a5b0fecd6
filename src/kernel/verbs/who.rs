//! `who` / `@who`: who is connected, for how long, how idle, and where.

use super::{NoArgs, Reply, Verb, VerbError, no_args};
use crate::world::views::{WhoList, who_list, who_table};
use crate::world::{Cx, World};

pub struct Who;

impl Verb for Who {
    const NAME: &'static str = "who";
    const ALIASES: &'static [&'static str] = &["@who"];
    const USAGE: &'static str = "who";
    const SUMMARY: &'static str = "Who is connected, for how long, and where.";
    const HELP: &'static str = "Shows everyone connected, with how long they have been connected, how \
long since they last did anything, the rating they are best known by (on the board they have \
played most; `?` while provisional: `ratings <name>` shows them all) and the room they are in.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "List everyone connected; needs nothing. Returns each \
one's name, seconds connected, seconds idle and room.";
    type Args = NoArgs;
    type Output = WhoList;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Who>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<WhoList>, VerbError> {
        Ok(Reply::new(
            who_table(world, cx.now, world.player(&cx.actor).display.screenreader),
            who_list(world, cx.now),
        ))
    }
}
