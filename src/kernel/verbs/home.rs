//! `home`: back to the Town Square (the world's start room) from anywhere.

use super::go::travel;
use super::look::Arrived;
use super::{NoArgs, Reply, Verb, VerbError, no_args};
use crate::world::{Cx, World};

pub struct Home;

impl Verb for Home {
    const NAME: &'static str = "home";
    const USAGE: &'static str = "home";
    const SUMMARY: &'static str = "Go back to where you began, from anywhere.";
    const HELP: &'static str =
        "Takes you straight back to the start room (the Town Square), wherever you are.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Go back to the Town Square from anywhere; needs \
nothing. Returns the room you arrive in, as `look` does.";
    type Args = NoArgs;
    type Output = Arrived;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Home>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<Arrived>, VerbError> {
        let start = world.map.start;
        if world.player(&cx.actor).room == start {
            return Err(VerbError::refused("You are already home."));
        }
        let who = world.player(&cx.actor).name.clone();
        let mut reply = travel(
            world,
            cx,
            start,
            format!("{who} goes home."),
            format!("{who} comes home."),
        );
        reply
            .text
            .insert(0, "You click your heels three times.".into());
        Ok(reply)
    }
}
