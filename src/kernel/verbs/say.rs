//! `say <text>`, also typed `"text`: speak to everyone in the room.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{text, whole};
use super::{Reply, Verb, VerbError, usage};
use crate::world::{Cx, World};

pub struct Say;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TextArgs {
    /// What to say.
    pub text: String,
}

/// Who heard something said.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Heard {
    /// The line as the others saw it.
    pub line: String,
    /// The names of those who heard it.
    pub heard_by: Vec<String>,
}

impl TextArgs {
    /// `self`, if it says something: a call's `{"text": ""}` is refused with verb `V`'s usage,
    /// as a typed `say` with nothing after it is.
    pub fn said<V: Verb>(self) -> Result<TextArgs, VerbError> {
        if self.text.trim().is_empty() {
            return Err(usage::<V>());
        }
        Ok(self)
    }
}

/// Reads "the rest of the line", required.
pub fn text_args<V: Verb>(rest: &str) -> Result<TextArgs, VerbError> {
    whole(rest, text, usage::<V>).map(|t| TextArgs { text: t.to_owned() })
}

impl Verb for Say {
    const NAME: &'static str = "say";
    const ALIASES: &'static [&'static str] = &["\""];
    const USAGE: &'static str = "say <text>   or   \"<text>";
    const SUMMARY: &'static str = "Say something to everyone in the room.";
    const HELP: &'static str = "Everyone in the room hears you: `say hello` (or `\"hello`) shows \
`You say, \"hello\"` to you and `<your name> says, \"hello\"` to the others.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Say `text` to everyone in the room you are in. Returns \
the line they heard and who heard it.";
    type Args = TextArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<TextArgs, VerbError> {
        text_args::<Say>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TextArgs) -> Result<Reply<Heard>, VerbError> {
        let args = args.said::<Say>()?;
        let says = |name: &str| quoted(name, " says, \"", &args.text);
        let spoken = cx.speak(world, "say", |name| says(name).into());
        // A typed line prints only the speaker's own words: what the others heard is made for
        // the JSON faces alone, and only if nobody heard it (the hearers' copy serves).
        let line = match spoken.line {
            _ if cx.text_only => String::new(),
            Some(heard) => heard.to_string(),
            None => says(&world.player(&cx.actor).name),
        };
        Ok(Reply::new(
            std::iter::once(quoted("You", " say, \"", &args.text))
                .chain(spoken.unheard)
                .collect(),
            Heard {
                line,
                heard_by: spoken.heard_by,
            },
        ))
    }
}

/// `who` `says, "` `text` `"`, made in one allocation: every `say` makes two.
fn quoted(who: &str, says: &str, text: &str) -> String {
    let mut line = String::with_capacity(who.len() + says.len() + text.len() + 1);
    line.push_str(who);
    line.push_str(says);
    line.push_str(text);
    line.push('"');
    line
}
