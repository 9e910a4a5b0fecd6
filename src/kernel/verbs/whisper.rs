//! `whisper <text> to <name>`: words for one person in the same room.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{text_then_last, whole};
use super::say::Heard;
use super::{Reply, Verb, VerbError, usage};
use crate::world::{Cx, World};

pub struct Whisper;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct WhisperArgs {
    /// What to whisper.
    pub text: String,
    /// Who to whisper to: someone in the same room.
    pub to: String,
}

impl Verb for Whisper {
    const NAME: &'static str = "whisper";
    const USAGE: &'static str = "whisper <text> to <name>";
    const SUMMARY: &'static str = "Whisper to someone here; nobody else hears.";
    const HELP: &'static str = "`whisper the password is swordfish to Bob` is heard by Bob alone, who \
must be in the same room as you.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Whisper `text` to `to`, someone in the same room; \
nobody else hears. Returns the line they heard.";
    type Args = WhisperArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<WhisperArgs, VerbError> {
        whole(rest, text_then_last("to"), usage::<Whisper>).map(|(text, to)| WhisperArgs {
            text: text.to_owned(),
            to: to.to_owned(),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: WhisperArgs) -> Result<Reply<Heard>, VerbError> {
        let me = world.player(&cx.actor);
        let target = super::target::person_here(world, &cx.actor, &args.to)?;
        if let Some(why) = world.deaf_to_town(&target.id) {
            return Err(VerbError::refused(why));
        }
        let line = format!("{} whispers, \"{}\"", me.name, args.text);
        let (to, name) = (target.id.clone(), target.name.clone());
        cx.hear(
            &to,
            crate::world::Said::new("whisper", &me.name, line.as_str()),
        );
        Ok(Reply::new(
            vec![format!("You whisper, \"{}\" to {name}.", args.text)],
            Heard {
                line,
                heard_by: vec![name],
            },
        ))
    }
}
