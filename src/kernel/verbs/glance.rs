//! `last`, `clock` and `square`: the quick questions of lichess's blind mode, for every game.
//! A person whose screen reader speaks the board cannot glance at it for the last move, the
//! time left or what stands on one square; these answer in one line, from the same view the
//! board is drawn from, so they tell nobody more than the board does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, text, whole};
use super::which::parse_game;
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::game_api::Glance;
use crate::world::sessions::{Session, SessionId};
use crate::world::{AgentId, Cx, World};

/// The game a glance is about: the one named, or the one the asker plays (or else watches),
/// among those that `answers` the question if any does (`clock` in a chess game beside a
/// blackjack table, which has none, means the chess game).
fn the_game(
    world: &World,
    actor: &AgentId,
    game: Option<&str>,
    answers: impl Fn(&Session) -> bool,
) -> Result<SessionId, VerbError> {
    if let Some(g) = game {
        let id = parse_game(g)?;
        return world
            .session(id)
            .map(|s| s.id)
            .ok_or_else(|| VerbError::not_found(format!("There is no game #{id}.")));
    }
    let running = |id: &SessionId| world.session(*id).is_some_and(|s| !s.game.is_terminal());
    let ids = world.session_ids();
    let played: Vec<SessionId> = ids
        .iter()
        .copied()
        .filter(|id| running(id) && world.session(*id).and_then(|s| s.role_of(actor)).is_some())
        .collect();
    let watched: Vec<SessionId> = ids
        .iter()
        .copied()
        .filter(|id| running(id) && world.watches(*id, actor))
        .collect();
    let mine = if played.is_empty() { watched } else { played };
    let answering: Vec<SessionId> = mine
        .iter()
        .copied()
        .filter(|id| world.session(*id).is_some_and(&answers))
        .collect();
    let mine = if answering.is_empty() {
        mine
    } else {
        answering
    };
    match mine.as_slice() {
        [one] => Ok(*one),
        [] => Err(VerbError::not_found(
            "You are not playing or watching a game; name one, like `clock #3`.",
        )),
        many => Err(VerbError::usage(format!(
            "You follow several games; say which: {}.",
            many.iter()
                .map(|g| format!("#{g}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// One glance's answer.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Glanced {
    pub session_id: String,
    /// The answer, in a sentence.
    pub answer: String,
}

/// `[#game]`, for `last` and `clock`.
#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct GlanceArgs {
    /// The game (`#3`); leave it out for the one you play or watch.
    #[serde(default)]
    pub game: Option<String>,
}

fn answered(sid: SessionId, answer: String) -> Reply<Glanced> {
    Reply::new(
        vec![answer.clone()],
        Glanced {
            session_id: sid.to_string(),
            answer,
        },
    )
}

/// A glance the game answers (the clock, a square): `None` from it is `missing`.
fn ask(
    world: &World,
    actor: &AgentId,
    game: Option<&str>,
    glance: Glance<'_>,
    missing: &str,
) -> Result<Reply<Glanced>, VerbError> {
    let sid = the_game(world, actor, game, |s| {
        s.game
            .glance(s.role_of(actor), glance, world.reading(s, actor))
            .is_some()
    })?;
    let s = world
        .session(sid)
        .ok_or_else(|| VerbError::not_found(format!("There is no game #{sid}.")))?;
    let answer = s
        .game
        .glance(s.role_of(actor), glance, world.reading(s, actor))
        .ok_or_else(|| {
            VerbError::refused(format!("{missing} (game #{sid}, {}).", s.template.title))
        })?;
    let answer = crate::world::sessions::with_names(&answer, &s.participants);
    Ok(answered(sid, format!("#{sid}: {answer}")))
}

pub struct Last;

impl Verb for Last {
    const NAME: &'static str = "last";
    const USAGE: &'static str = "last [#<game>]";
    const SUMMARY: &'static str = "The last move you can see in your game.";
    const HELP: &'static str = "Says the latest move (or choice, or vote) in the game you play or \
watch, or in `#3`, and who made it: what a glance at the board would tell. With `clock` and \
`square` it is for reading a game by ear (see `@screenreader`).";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::SCREEN;
    const TOOLSET: Option<super::Toolset> = Some(super::Toolset::TABLES);
    const TOOL_DESCRIPTION: &'static str = "The latest action you may see in `game` (`#3`), or \
in the one game you play or watch. Returns who took it and what, in a sentence.";
    type Args = GlanceArgs;
    type Output = Glanced;

    fn parse(rest: &str) -> Result<GlanceArgs, VerbError> {
        whole(rest, opt_text, usage::<Last>).map(|g| GlanceArgs {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GlanceArgs) -> Result<Reply<Glanced>, VerbError> {
        let sid = the_game(world, &cx.actor, args.game.as_deref(), |_| true)?;
        let s = world
            .session(sid)
            .ok_or_else(|| VerbError::not_found(format!("There is no game #{sid}.")))?;
        let answer = s
            .last_seen(s.role_of(&cx.actor))
            .unwrap_or_else(|| format!("#{sid}: nothing has happened yet."));
        Ok(answered(sid, answer))
    }
}

pub struct Clock;

impl Verb for Clock {
    const NAME: &'static str = "clock";
    const USAGE: &'static str = "clock [#<game>]";
    const SUMMARY: &'static str = "The time left in your game.";
    const HELP: &'static str = "Says how much time is left in the game you play or watch, or in \
`#3`: both chess clocks, a move's time limit, or a Werewolf phase's seconds.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::SCREEN;
    const TOOLSET: Option<super::Toolset> = Some(super::Toolset::TABLES);
    const TOOL_DESCRIPTION: &'static str = "The time left in `game` (`#3`), or in the one game \
you play or watch. Returns the clocks or the phase's seconds, in a sentence.";
    type Args = GlanceArgs;
    type Output = Glanced;

    fn parse(rest: &str) -> Result<GlanceArgs, VerbError> {
        whole(rest, opt_text, usage::<Clock>).map(|g| GlanceArgs {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: GlanceArgs) -> Result<Reply<Glanced>, VerbError> {
        ask(
            world,
            &cx.actor,
            args.game.as_deref(),
            Glance::Clock,
            "This game has no clock",
        )
    }
}

pub struct Square;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct SquareArgs {
    /// The square, cell or column: `e4` in chess, `5` or `centre` in tic-tac-toe, `4` in
    /// Connect Four.
    pub square: String,
    /// The game (`#3`); leave it out for the one you play or watch.
    #[serde(default)]
    pub game: Option<String>,
}

impl Verb for Square {
    const NAME: &'static str = "square";
    const USAGE: &'static str = "square <square> [#<game>]";
    const SUMMARY: &'static str = "What is on one square (cell, column) of your game.";
    const HELP: &'static str = "Says what stands on one square of the board: `square e4` in \
chess (a rank, `square 4`, or a file, `square e`, reads the board a line at a time), `square 5` \
(or `square centre`) in tic-tac-toe, `square 4` for a Connect Four column, from the bottom up.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::SCREEN;
    const TOOLSET: Option<super::Toolset> = Some(super::Toolset::TABLES);
    const TOOL_DESCRIPTION: &'static str = "What is on `square` (chess `e4`, tic-tac-toe `5`, a \
Connect Four column `4`) of `game` (`#3`), or of the one game you play or watch. Returns what \
stands there, in a sentence.";
    type Args = SquareArgs;
    type Output = Glanced;

    fn parse(rest: &str) -> Result<SquareArgs, VerbError> {
        let words = whole(rest, text, usage::<Square>)?;
        let (square, game) = match words.rsplit_once(char::is_whitespace) {
            Some((sq, g)) if g.starts_with('#') => (sq.trim(), Some(g.to_owned())),
            _ => (words, None),
        };
        Ok(SquareArgs {
            square: square.to_owned(),
            game,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: SquareArgs) -> Result<Reply<Glanced>, VerbError> {
        ask(
            world,
            &cx.actor,
            args.game.as_deref(),
            Glance::Square(&args.square),
            &format!("There is no square \"{}\" here", args.square),
        )
    }
}
