//! `emote <action>`, also typed `:action`: show everyone in the room what you do.

use super::say::{Heard, TextArgs, text_args};
use super::{Reply, Verb, VerbError};
use crate::world::{Cx, World};

pub struct Emote;

impl Verb for Emote {
    const NAME: &'static str = "emote";
    const ALIASES: &'static [&'static str] = &[":"];
    const USAGE: &'static str = "emote <action>   or   :<action>";
    const SUMMARY: &'static str = "Act something out for everyone in the room.";
    const HELP: &'static str = "`:waves.` shows `<your name> waves.` to everyone in the room, you \
included. Text that starts with punctuation follows your name directly: `:'s tired.` shows \
`<your name>'s tired.`";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Act out `text` for everyone in the room: `waves.` is \
shown as `<your name> waves.` Returns the line shown and who saw it.";
    type Args = TextArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<TextArgs, VerbError> {
        text_args::<Emote>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TextArgs) -> Result<Reply<Heard>, VerbError> {
        let args = args.said::<Emote>()?;
        let me = world.player(&cx.actor);
        let glue = if args.text.starts_with(|c: char| c.is_ascii_punctuation()) {
            ""
        } else {
            " "
        };
        let line = format!("{}{glue}{}", me.name, args.text);
        let spoken = cx.speak(world, "emote", |_| line.as_str().into());
        Ok(Reply::new(
            std::iter::once(line.clone())
                .chain(spoken.unheard)
                .collect(),
            Heard {
                line,
                heard_by: spoken.heard_by,
            },
        ))
    }
}
