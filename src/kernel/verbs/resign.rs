//! `resign`: giving up a game, any game whose rules let a player do so (chess, tic-tac-toe,
//! Connect Four: [`crate::game_api::Game::RESIGNS`]), so that nobody is held in a game they
//! no longer want, and one left running does not stand forever.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, whole};
use super::which::{my_session_where, parse_game};
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::world::sessions::Session;
use crate::world::{Cx, World};

pub struct Resign;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct ResignArgs {
    /// The game (`#3`); your only game in play that can be resigned when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Resigned {
    pub session_id: String,
    /// The action taken, as logged: `resign`.
    pub action: String,
    pub status: String,
}

fn resigns(s: &Session) -> bool {
    s.template.resigns
}

impl Verb for Resign {
    const NAME: &'static str = "resign";
    const USAGE: &'static str = "resign [#<game>]";
    const SUMMARY: &'static str = "Give up a game: chess, tic-tac-toe or Connect Four.";
    const HELP: &'static str = "Gives up your game (name it with `#3` if you play several); \
your opponent wins. Any game of chess, tic-tac-toe or Connect Four may be resigned, whoever is \
to move.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Resign your game (`game` if you play several: chess, \
tic-tac-toe or Connect Four, whoever is to move); your opponent wins. Returns the game's id and \
status.";
    const TOOLSET: Option<super::Toolset> = Some(super::Toolset::TABLES);
    const TOPIC: Topic = Topic::TABLES;
    type Args = ResignArgs;
    type Output = Resigned;

    fn parse(rest: &str) -> Result<ResignArgs, VerbError> {
        whole(rest, opt_text, usage::<Resign>).map(|g| ResignArgs {
            game: g.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ResignArgs) -> Result<Reply<Resigned>, VerbError> {
        let actor = cx.actor.clone();
        // A game named that cannot be resigned says what it is, not that it is not there.
        if let Some(g) = args.game.as_deref() {
            let id = parse_game(g)?;
            if let Some(s) = world.session(id).filter(|s| !resigns(s)) {
                return Err(VerbError::refused(format!(
                    "A game of {} cannot be resigned.",
                    s.template.title
                )));
            }
        }
        let sid = my_session_where(world, &actor, "resignable", args.game.as_deref(), resigns)?;
        let tick = world.session(sid).map(|s| s.tick);
        let played = world.play(cx, sid, "resign", tick)?;
        Ok(Reply::new(
            vec![format!("You resign game #{sid}.")],
            Resigned {
                session_id: sid.to_string(),
                action: "resign".into(),
                status: played.status,
            },
        ))
    }
}
