//! A match's building's own `say`, `emote` and `whisper` (evennia's command set on a room):
//! inside, words belong to the match. They take the town's verbs' place there, on every face,
//! with the same names, arguments and results.

use crate::verbs::emote::Emote;
use crate::verbs::say::{Heard, Say, TextArgs, text_args};
use crate::verbs::whisper::{Whisper, WhisperArgs};
use crate::verbs::{Reply, Verb, VerbEntry, VerbError, entry};
use crate::world::{AgentId, Cx, World};

/// The building's verbs, for whoever stands in a match's building.
pub const SET: crate::verbs::module::CommandSet = crate::verbs::module::CommandSet {
    applies: inside,
    verbs: VERBS,
};

static VERBS: &[VerbEntry] = &[
    entry::<MatchSay>(),
    entry::<MatchEmote>(),
    entry::<MatchWhisper>(),
];

fn inside(world: &World, actor: &AgentId) -> bool {
    super::building_match(world, actor).is_some()
}

/// `say` in the building: a living player's words (and the condemned's last words) go to the
/// match, as `speak`; the dead and the watchers talk among themselves from the graveyard.
pub struct MatchSay;

impl Verb for MatchSay {
    const NAME: &'static str = Say::NAME;
    const ALIASES: &'static [&'static str] = Say::ALIASES;
    const USAGE: &'static str = Say::USAGE;
    const SUMMARY: &'static str = Say::SUMMARY;
    const HELP: &'static str = Say::HELP;
    const READ_ONLY: bool = false;
    type Args = TextArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<TextArgs, VerbError> {
        text_args::<Say>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TextArgs) -> Result<Reply<Heard>, VerbError> {
        let Some(said) = super::floor(world, cx, &args.text) else {
            return Say::run(world, cx, args);
        };
        said.map(|text| {
            let heard = Heard {
                line: text.join(" "),
                heard_by: Vec::new(),
            };
            Reply::new(text, heard)
        })
    }
}

/// `emote` in the building: refused to a living player, who talks with `say`.
pub struct MatchEmote;

impl Verb for MatchEmote {
    const NAME: &'static str = Emote::NAME;
    const ALIASES: &'static [&'static str] = Emote::ALIASES;
    const USAGE: &'static str = Emote::USAGE;
    const SUMMARY: &'static str = Emote::SUMMARY;
    const HELP: &'static str = Emote::HELP;
    const READ_ONLY: bool = false;
    type Args = TextArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<TextArgs, VerbError> {
        Emote::parse(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TextArgs) -> Result<Reply<Heard>, VerbError> {
        super::check_quiet(world, cx)?;
        Emote::run(world, cx, args)
    }
}

/// `whisper` in the building: refused to a living player, who talks with `say`.
pub struct MatchWhisper;

impl Verb for MatchWhisper {
    const NAME: &'static str = Whisper::NAME;
    const ALIASES: &'static [&'static str] = Whisper::ALIASES;
    const USAGE: &'static str = Whisper::USAGE;
    const SUMMARY: &'static str = Whisper::SUMMARY;
    const HELP: &'static str = Whisper::HELP;
    const READ_ONLY: bool = false;
    type Args = WhisperArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<WhisperArgs, VerbError> {
        Whisper::parse(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: WhisperArgs) -> Result<Reply<Heard>, VerbError> {
        super::check_quiet(world, cx)?;
        Whisper::run(world, cx, args)
    }
}
