//! `games`: the games at the tables where you stand, and your own, in a list.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{NoArgs, Reply, Topic, Verb, VerbError, no_args};
use crate::world::sessions::Session;
use crate::world::{Cx, ThingKind, World};

/// One game in a list.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GameLine {
    pub session_id: String,
    pub template: String,
    pub players: String,
    pub status: String,
    /// Whose move, or how it ended.
    pub state: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct GameList {
    pub games: Vec<GameLine>,
}

fn line_of(s: &Session) -> GameLine {
    GameLine {
        session_id: s.id.to_string(),
        template: s.template.id.to_owned(),
        players: s.players_line(),
        status: s.status().to_owned(),
        state: s.game.situation(),
    }
}

pub struct Games;

impl Verb for Games {
    const NAME: &'static str = "games";
    const USAGE: &'static str = "games";
    const SUMMARY: &'static str = "List the games at the tables here and your own.";
    const HELP: &'static str = "Lists the games at the tables where you stand, and every game you play, \
with whose move it is or how it ended.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::Games;
    const OFFERED_BY: &'static [ThingKind] = &[
        crate::verbs::chess::CHESS_TABLE,
        crate::verbs::rps::RPS_TABLE,
        crate::verbs::tictactoe::TICTACTOE_TABLE,
        crate::verbs::blackjack::CARD_TABLE,
    ];
    type Args = NoArgs;
    type Output = GameList;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Games>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<GameList>, VerbError> {
        let room = world.player(&cx.actor).room;
        let games: Vec<GameLine> = world
            .session_ids()
            .into_iter()
            .filter_map(|id| world.session(id))
            .filter(|s| s.room == Some(room) || s.role_of(&cx.actor).is_some())
            .map(line_of)
            .collect();
        let text = if games.is_empty() {
            vec!["There are no games here or of yours. `help games` tells how to start one.".into()]
        } else {
            games
                .iter()
                .map(|g| {
                    format!(
                        "#{} ({}): {}, {}.",
                        g.session_id, g.template, g.players, g.state
                    )
                })
                .collect()
        };
        Ok(Reply::new(text, GameList { games }))
    }
}
