//! `watch` and `unwatch`: following any game by its number, as a spectator.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{text, whole};
use super::which::parse_game;
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::world::{Cx, World};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GameRequired {
    /// The game (`#3`).
    pub game: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Watching {
    pub session_id: String,
    pub watching: bool,
}

pub struct Watch;

impl Verb for Watch {
    const NAME: &'static str = "watch";
    const USAGE: &'static str = "watch #<game>";
    const SUMMARY: &'static str = "Watch a game: you are shown every move.";
    const HELP: &'static str = "`watch #3` shows you game #3's board now and after every move, until you \
`unwatch #3`. Any game may be watched, from anywhere (you follow it by its number); you see what \
its rules let a spectator see, and never a player's hidden cards or choices.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Follow the game `game` (`#3`) from anywhere: its moves \
come to you as a spectator sees them, never hidden cards or choices. Returns the game's id and \
that you are watching.";
    const TOPIC: Topic = Topic::TABLES;
    const AT_TABLES: crate::verbs::AtTables = crate::verbs::AtTables::Every;
    type Args = GameRequired;
    type Output = Watching;

    fn parse(rest: &str) -> Result<GameRequired, VerbError> {
        whole(rest, text, usage::<Watch>).map(|g| GameRequired { game: g.to_owned() })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: GameRequired,
    ) -> Result<Reply<Watching>, VerbError> {
        let sid = parse_game(&args.game)?;
        if world.session(sid).is_none() {
            return Err(VerbError::not_found(format!("There is no game #{sid}.")));
        }
        let actor = cx.actor.clone();
        if let Some(undo) = world.watch(sid, &actor, false) {
            cx.undo(undo);
        }
        world.send_board(cx, sid, &actor);
        Ok(Reply::new(
            vec![format!("You are watching game #{sid}.")],
            Watching {
                session_id: sid.to_string(),
                watching: true,
            },
        ))
    }
}

pub struct Unwatch;

impl Verb for Unwatch {
    const NAME: &'static str = "unwatch";
    const USAGE: &'static str = "unwatch #<game>";
    const SUMMARY: &'static str = "Stop watching a game.";
    const HELP: &'static str = "`unwatch #3` stops showing you game #3's moves.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Stop following the game `game` (`#3`). Returns the \
game's id and that you no longer watch it.";
    const TOPIC: Topic = Topic::TABLES;
    const AT_TABLES: crate::verbs::AtTables = crate::verbs::AtTables::Every;
    type Args = GameRequired;
    type Output = Watching;

    fn parse(rest: &str) -> Result<GameRequired, VerbError> {
        whole(rest, text, usage::<Unwatch>).map(|g| GameRequired { game: g.to_owned() })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: GameRequired,
    ) -> Result<Reply<Watching>, VerbError> {
        let sid = parse_game(&args.game)?;
        let Some(undo) = world.unwatch(sid, &cx.actor) else {
            return Err(VerbError::not_found(format!(
                "You are not watching game #{sid}."
            )));
        };
        cx.undo(undo);
        Ok(Reply::new(
            vec![format!("You stop watching game #{sid}.")],
            Watching {
                session_id: sid.to_string(),
                watching: false,
            },
        ))
    }
}
