//! `games`: the games at the tables where you stand, and your own, in a list.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, whole};
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::world::sessions::{Session, SessionId};
use crate::world::views::{RECENT_FINISHED, worth_listing};
use crate::world::{Cx, World};

/// Game `sid`, for a verb that found its number a moment ago: a refusal rather than a panic
/// should it not be there, so that no command can stop the town.
pub fn session_of(world: &World, sid: SessionId) -> Result<&Session, VerbError> {
    world
        .session(sid)
        .ok_or_else(|| VerbError::not_found(format!("There is no game #{sid}.")))
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct GamesArgs {
    /// Every finished game too, not only the last few.
    #[serde(default)]
    pub all: bool,
}

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
    /// Finished games left out (ask with `all`).
    pub older_finished: usize,
}

fn line_of(s: &Session) -> GameLine {
    GameLine {
        session_id: s.id.to_string(),
        template: s.template.id.to_owned(),
        players: s.players_line(),
        status: s.status().to_owned(),
        state: s.situation(),
    }
}

pub struct Games;

impl Verb for Games {
    const NAME: &'static str = "games";
    const USAGE: &'static str = "games [all]";
    const SUMMARY: &'static str = "The games at the tables here, and your own.";
    const HELP: &'static str = "Lists the games at the tables where you stand, and every game you play, \
with whose move it is or how it ended: all that are running, and the last few that finished. \
`games all` lists every finished game too.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "List the games at the tables where you stand and every \
game you play; `all` adds every finished one. Returns each game's id, template, players and status \
(whose move, or how it ended).";
    const TOPIC: Topic = Topic::TABLES;
    const AT_TABLES: crate::verbs::AtTables = crate::verbs::AtTables::Every;
    type Args = GamesArgs;
    type Output = GameList;

    fn parse(rest: &str) -> Result<GamesArgs, VerbError> {
        match whole(rest, opt_text, usage::<Games>)? {
            None => Ok(GamesArgs { all: false }),
            Some(w) if w.eq_ignore_ascii_case("all") => Ok(GamesArgs { all: true }),
            Some(_) => Err(usage::<Games>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: GamesArgs) -> Result<Reply<GameList>, VerbError> {
        let room = world.player(&cx.actor).room;
        let mine = world
            .session_ids()
            .into_iter()
            .filter_map(|id| world.session(id))
            .filter(|s| s.room == Some(room) || s.role_of(&cx.actor).is_some());
        let keep = if args.all {
            usize::MAX
        } else {
            RECENT_FINISHED
        };
        let (shown, older_finished) = worth_listing(mine, keep);
        let games: Vec<GameLine> = shown.into_iter().map(line_of).collect();
        let mut text: Vec<String> = if games.is_empty() {
            vec!["There are no games here or of yours. `help games` tells how to start one.".into()]
        } else {
            games
                .iter()
                .map(|g| {
                    // People read the game's name; the data keeps its template's id.
                    let title = world
                        .templates()
                        .find(|t| t.id == g.template)
                        .map_or(g.template.as_str(), |t| t.title);
                    format!("#{} ({title}): {}, {}.", g.session_id, g.players, g.state)
                })
                .collect()
        };
        match older_finished {
            0 => {}
            1 => text.push("One older finished game is left out (`games all` lists it).".into()),
            n => text.push(format!(
                "{n} older finished games are left out (`games all` lists them)."
            )),
        }
        Ok(Reply::new(
            text,
            GameList {
                games,
                older_finished,
            },
        ))
    }
}
