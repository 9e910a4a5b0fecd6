//! `@linelength` and `@wrap`: how wide a character's lines are, as LambdaCore has them. The
//! choice is stored with the character and followed by every telnet connection of theirs; a
//! program's text is never wrapped, so for agents these only report and remember.
//! `@screenreader`: text for a speech synthesizer rather than the eye, on every face.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, whole};
use super::{Reply, Verb, VerbError, usage};
use crate::store::writes;
use crate::world::{Cx, World};
use crate::wrap::{DEFAULT_WIDTH, Display, MAX_WIDTH, MIN_WIDTH};

/// A character's display preference, as the verbs report it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DisplaySetting {
    /// The line length they set; `null` means the client's width (NAWS) or 79.
    pub linelength: Option<u16>,
    pub wrap: bool,
    /// Games read as lists, rooms brief, one item a line (`@screenreader`).
    pub screenreader: bool,
}

impl From<Display> for DisplaySetting {
    fn from(d: Display) -> DisplaySetting {
        DisplaySetting {
            linelength: d.linelength,
            wrap: d.wrap,
            screenreader: d.screenreader,
        }
    }
}

/// "is 40", or "follows your client's width" when the character set none.
fn length_phrase(d: Display) -> String {
    match d.linelength {
        Some(n) => format!("is {n}"),
        None => format!("follows your client's width ({DEFAULT_WIDTH} if it reports none)"),
    }
}

/// Stores `new` for the actor and tells their connections; the old value comes back if the
/// write fails.
fn set(world: &mut World, cx: &mut Cx, new: Display) {
    let old = std::mem::replace(&mut world.player_mut(&cx.actor).display, new);
    let who = cx.actor.clone();
    cx.save(writes::set_display(who.to_string(), new), move |w| {
        if w.is_present(&who) {
            w.player_mut(&who).display = old;
        }
    });
    let actor = cx.actor.clone();
    cx.set_display(&actor, new);
}

pub struct Linelength;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct LinelengthArgs {
    /// The new line length (10 to 500); leave it out to see the current one, or give 0 to
    /// follow the client's width again.
    #[serde(default)]
    pub length: Option<u16>,
}

impl Verb for Linelength {
    const NAME: &'static str = "linelength";
    const ALIASES: &'static [&'static str] = &["@linelength", "@ll"];
    const USAGE: &'static str = "@linelength [number]";
    const SUMMARY: &'static str = "See or set how wide your lines are.";
    const HELP: &'static str = "If the lines you see get cut off at the edge of your screen, \
moot can split them for you: `@linelength` tells it how many columns your screen has (79 unless \
your client reports its width), and `@wrap on` that you want it to. `@linelength` alone tells \
you what it is now; `@linelength 0` follows your client's width again. The smallest is 10.";
    const READ_ONLY: bool = false;
    const TOOLSET: Option<crate::verbs::Toolset> = None;
    const TOPIC: super::Topic = super::Topic::SCREEN;
    type Args = LinelengthArgs;
    type Output = DisplaySetting;

    fn parse(rest: &str) -> Result<LinelengthArgs, VerbError> {
        let bad = || {
            VerbError::usage(format!(
                "Usage: {} (a number from {MIN_WIDTH} to {MAX_WIDTH}, or 0)",
                Self::USAGE
            ))
        };
        match whole(rest, opt_text, usage::<Linelength>)? {
            None => Ok(LinelengthArgs { length: None }),
            Some(n) => n
                .parse()
                .map(|n| LinelengthArgs { length: Some(n) })
                .map_err(|_| bad()),
        }
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: LinelengthArgs,
    ) -> Result<Reply<DisplaySetting>, VerbError> {
        let now = world.player(&cx.actor).display;
        let Some(n) = args.length else {
            let wrap = if now.wrap { "on" } else { "off" };
            return Ok(Reply::new(
                vec![
                    format!("Your line length {}.", length_phrase(now)),
                    format!("Word wrap is {wrap}."),
                ],
                now.into(),
            ));
        };
        if n != 0 && !(MIN_WIDTH..=MAX_WIDTH).contains(&n) {
            return Err(VerbError::refused(format!(
                "A line length must be from {MIN_WIDTH} to {MAX_WIDTH} (or 0 for your client's width)."
            )));
        }
        let new = Display {
            linelength: (n != 0).then_some(n),
            ..now
        };
        set(world, cx, new);
        let mut text = vec![match new.linelength {
            Some(n) => format!("Line length is now {n}."),
            None => format!("Line length now {}.", length_phrase(new)),
        }];
        if !new.wrap {
            text.push("Word wrap is off; `@wrap on` turns it on.".into());
        }
        Ok(Reply::new(text, new.into()))
    }
}

pub struct Wrap;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct WrapArgs {
    /// Turn word wrap on (true) or off (false); leave it out to see which it is.
    #[serde(default)]
    pub on: Option<bool>,
}

impl Verb for Wrap {
    const NAME: &'static str = "wrap";
    const ALIASES: &'static [&'static str] = &["@wrap"];
    const USAGE: &'static str = "@wrap [on|off]";
    const SUMMARY: &'static str = "Turn word wrap on or off.";
    const HELP: &'static str = "`@wrap on` has moot split long lines between words at your line \
length (see `@linelength`); `@wrap off` sends every line whole, for clients that wrap by \
themselves. `@wrap` alone tells you which it is. It is on unless you turn it off.";
    const READ_ONLY: bool = false;
    const TOOLSET: Option<crate::verbs::Toolset> = None;
    const TOPIC: super::Topic = super::Topic::SCREEN;
    type Args = WrapArgs;
    type Output = DisplaySetting;

    fn parse(rest: &str) -> Result<WrapArgs, VerbError> {
        match whole(rest, opt_text, usage::<Wrap>)? {
            None => Ok(WrapArgs { on: None }),
            Some(w) if w.eq_ignore_ascii_case("on") => Ok(WrapArgs { on: Some(true) }),
            Some(w) if w.eq_ignore_ascii_case("off") => Ok(WrapArgs { on: Some(false) }),
            Some(_) => Err(usage::<Wrap>()),
        }
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: WrapArgs,
    ) -> Result<Reply<DisplaySetting>, VerbError> {
        let now = world.player(&cx.actor).display;
        let word = |on: bool| if on { "on" } else { "off" };
        let Some(on) = args.on else {
            return Ok(Reply::new(
                vec![format!("Word wrap is {}.", word(now.wrap))],
                now.into(),
            ));
        };
        let new = Display { wrap: on, ..now };
        set(world, cx, new);
        Ok(Reply::new(
            vec![format!("Word wrap is now {}.", word(on))],
            new.into(),
        ))
    }
}

pub struct Screenreader;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct ScreenreaderArgs {
    /// Turn screen-reader mode on (true) or off (false); leave it out to see which it is.
    #[serde(default)]
    pub on: Option<bool>,
}

/// What screen-reader mode does, said when it is turned on.
const SCREENREADER_ON: &str = "Screen-reader mode is on: games are read as lists (no drawn boards), rooms are brief, lists come one item a line. `last`, `clock` and `square e4` answer about your game. `@screenreader off` turns it off.";

impl Verb for Screenreader {
    const NAME: &'static str = "screenreader";
    const ALIASES: &'static [&'static str] = &["@screenreader"];
    const USAGE: &'static str = "@screenreader [on|off]";
    const SUMMARY: &'static str = "Text for a screen reader: no drawings, one item a line.";
    const HELP: &'static str = "`@screenreader on` has moot write for a screen reader: boards are read as lists of what stands where (\"White: king g1, rook f1\"), never drawn; rooms are brief (`look` gives the whole description); lists come one item a line. `last`, `clock` and `square <square>` answer about your game in a line. It is kept with your character, on every face; `@screenreader off` turns it off.";
    const READ_ONLY: bool = false;
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::TABLES);
    const TOOL_DESCRIPTION: &'static str = "See or set (`on`) screen-reader mode for your \
character: boards as lists, rooms brief, one item a line, in every answer's text. Returns the \
display settings now.";
    const TOPIC: super::Topic = super::Topic::SCREEN;
    type Args = ScreenreaderArgs;
    type Output = DisplaySetting;

    fn parse(rest: &str) -> Result<ScreenreaderArgs, VerbError> {
        match whole(rest, opt_text, usage::<Screenreader>)? {
            None => Ok(ScreenreaderArgs { on: None }),
            Some(w) if w.eq_ignore_ascii_case("on") => Ok(ScreenreaderArgs { on: Some(true) }),
            Some(w) if w.eq_ignore_ascii_case("off") => Ok(ScreenreaderArgs { on: Some(false) }),
            Some(_) => Err(usage::<Screenreader>()),
        }
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: ScreenreaderArgs,
    ) -> Result<Reply<DisplaySetting>, VerbError> {
        let now = world.player(&cx.actor).display;
        let Some(on) = args.on else {
            let line = match now.screenreader {
                true => SCREENREADER_ON.to_owned(),
                false => "Screen-reader mode is off; `@screenreader on` turns it on.".to_owned(),
            };
            return Ok(Reply::new(vec![line], now.into()));
        };
        let new = Display {
            screenreader: on,
            ..now
        };
        set(world, cx, new);
        let line = match on {
            true => SCREENREADER_ON,
            false => "Screen-reader mode is off: boards are drawn again.",
        };
        Ok(Reply::new(vec![line.to_owned()], new.into()))
    }
}
