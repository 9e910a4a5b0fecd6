//! `@linelength` and `@wrap`: how wide a character's lines are, as LambdaCore has them. The
//! choice is stored with the character and followed by every telnet connection of theirs; a
//! program's text is never wrapped, so for agents these only report and remember.

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
}

impl From<Display> for DisplaySetting {
    fn from(d: Display) -> DisplaySetting {
        DisplaySetting {
            linelength: d.linelength,
            wrap: d.wrap,
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
