//! Tables: where games are played in the town. `play <game> with <name|house>` starts a
//! two-player game of whatever the table here holds (the table's kind names the template, so
//! a new game needs no new verb to start); a person agrees by asking the same back, as MUD
//! duels are accepted, and the house's computer sits down at once.
//!
//! A game stands at its table, whoever starts it and from wherever. People start one at the
//! table, with whoever is there; the agents' tools (`deal`, `createGame`, `joinGame`) start one
//! from anywhere, because agents that only call those tools do not walk, and say so. Moves in a
//! game you play are made by its number from anywhere, as by correspondence.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::word;

use super::{AtTables, Reply, Topic, Verb, VerbError, usage};
use crate::game_api::Template;
use crate::world::{AgentId, COMPUTER_ID, Cx, RoomIdx, ThingKind, World};

/// The room where the table of `kind` stands, and the table's name.
pub fn table_room(world: &World, kind: ThingKind) -> Option<(RoomIdx, String)> {
    world.map.rooms.iter().enumerate().find_map(|(i, r)| {
        r.things.iter().find(|t| t.kind == kind).map(|t| {
            let bare = crate::text::without_article(&t.name).unwrap_or(&t.name);
            (i, format!("the {bare}"))
        })
    })
}

/// Tells the actor, if they are away from the table of `kind`, that the game they start is
/// played there all the same: the agents' tools start games from anywhere (agents that only
/// call them do not walk), and the game stands at its table, where anyone may watch it.
pub fn from_afar(world: &World, cx: &mut Cx, kind: ThingKind) {
    let Some((room, table)) = table_room(world, kind) else {
        return;
    };
    if world.player(&cx.actor).room == room {
        return;
    }
    let place = world.map.room(room).name.clone();
    let actor = cx.actor.clone();
    cx.tell(
        &actor,
        format!(
            "You play from afar: the game stands at {table} in the {place}, where anyone may \
             watch it."
        ),
    );
}

pub struct Play;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct PlayArgs {
    /// The game or table here (`rps`, `tictactoe`, `chess`).
    pub game: String,
    /// Someone here, or `house` for the house's computer.
    pub with: String,
    /// Whether the game moves ratings; a rated game needs a `clock`.
    #[serde(default)]
    pub rated: bool,
    /// The game's time limit, as the game takes it: a chess clock (`5+3`, or `3d` a move), or
    /// a limit a move (`1d`, `30s`) for tic-tac-toe and Connect Four.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

impl PlayArgs {
    /// The session's options these ask for.
    fn options(&self) -> serde_json::Value {
        let mut options = serde_json::Map::new();
        if self.rated {
            options.insert("rated".into(), true.into());
        }
        if let Some(clock) = &self.clock {
            options.insert("clock".into(), clock.clone().into());
        }
        options.into()
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Playing {
    pub template: String,
    pub opponent: String,
    /// The game, once it has begun (at once against the house; when a person asks back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// The rooms where the town's games have tables ("the Game Room, the Chess Parlour and the
/// Card Room"), in the map's order.
fn table_rooms(world: &World) -> String {
    let rooms: Vec<String> = world
        .map
        .rooms
        .iter()
        .filter(|r| {
            r.things
                .iter()
                .any(|t| world.templates().any(|g| g.table == t.kind.name()))
        })
        .map(|r| {
            format!(
                "the {}",
                crate::text::without_article(&r.name).unwrap_or(&r.name)
            )
        })
        .collect();
    crate::text::english_list(&rooms)
}

/// ", you are white" (nothing for a seat's bare number, which says nothing).
fn you_are(role: &str) -> String {
    crate::world::sessions::shown_role(role).map_or_else(String::new, |r| format!(", you are {r}"))
}

/// The template whose table here answers to `word`.
fn table_here(world: &World, actor: &AgentId, word: &str) -> Result<&'static Template, VerbError> {
    let room = world.map.room(world.player(actor).room);
    // A table answers to its names, its game's word (`rps`, as `help` gives it) and its game's
    // name (`rock-paper-scissors`, `Connect Four`).
    let found = room.things.iter().find_map(|t| {
        let template = world.templates().find(|g| g.table == t.kind.name())?;
        let named = t.names().any(|n| n.eq_ignore_ascii_case(word))
            || template.word().eq_ignore_ascii_case(word)
            || crate::text::same_words(template.title, word);
        named.then_some(template)
    });
    found.ok_or_else(|| {
        // The games here by the word that starts them.
        let words: Vec<&str> = room
            .things
            .iter()
            .filter_map(|t| world.templates().find(|g| g.table == t.kind.name()))
            .map(Template::word)
            .collect();
        let here: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
        VerbError::not_found(if here.is_empty() {
            format!(
                "There is no \"{word}\" to play here; games are played at the tables of {}.",
                table_rooms(world)
            )
        } else {
            format!(
                "There is no \"{word}\" to play here; here you can play {} (`play {} with house`).",
                crate::text::english_list_or(&here),
                words[0],
            )
        })
    })
}

impl Verb for Play {
    const NAME: &'static str = "play";
    const USAGE: &'static str = "play <game> with <name|house> [rated] [clock <limit>]";
    const SUMMARY: &'static str = "Start a game for two here, with someone or the house.";
    const HELP: &'static str = "At a table, `play <game> with house` starts that table's game against \
the house's computer at once (`play rps with house`); `play <game> with Bob` invites Bob (who must \
be here), and the game begins when he types `play <game> with <you>` back. The one who asked \
first takes the first role (player_1, or X, who moves first), and their words set the game: \
`clock 1d` gives each move a day (`clock 5+3` a chess clock), and `rated` makes it count for \
ratings, which needs a clock (`play connect4 with Bob rated clock 1d`). Then the game's own \
verbs: `help games` lists them.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Start the two-player `game` of a table here (`rps`, \
`tictactoe`, `connect4`, `chess`) `with` someone here, who must ask you back, or `house`, the \
computer, at once; `rated` and a `clock` (`5+3`, or `1d` a move) as with sessions. Returns the \
game's id and template and your opponent.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::TABLES);
    const TOPIC: Topic = Topic::TABLES;
    const AT_TABLES: AtTables = AtTables::ForTwo;
    type Args = PlayArgs;
    type Output = Playing;

    fn parse(rest: &str) -> Result<PlayArgs, VerbError> {
        let (rest, game) = word(rest).map_err(|_| usage::<Play>())?;
        let (rest, mut with) = word(rest).map_err(|_| usage::<Play>())?;
        let mut rest = rest;
        if ["with", "against", "vs"]
            .iter()
            .any(|w| w.eq_ignore_ascii_case(with))
        {
            let (r, w) = word(rest).map_err(|_| usage::<Play>())?;
            (rest, with) = (r, w);
        }
        let (mut rated, mut clock) = (false, None);
        while let Ok((r, w)) = word(rest) {
            if w.eq_ignore_ascii_case("rated") {
                rated = true;
                rest = r;
            } else if w.eq_ignore_ascii_case("clock") {
                let (r, limit) = word(r).map_err(|_| usage::<Play>())?;
                clock = Some(limit.to_owned());
                rest = r;
            } else {
                return Err(usage::<Play>());
            }
        }
        Ok(PlayArgs {
            game: game.to_owned(),
            with: with.to_owned(),
            rated,
            clock,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: PlayArgs) -> Result<Reply<Playing>, VerbError> {
        let me = cx.actor.clone();
        let t = table_here(world, &me, &args.game)?;
        let [first, second] = t.roles else {
            return Err(VerbError::refused(format!(
                "{} is not a game for two; see `help games`.",
                t.id
            )));
        };
        let start = |world: &mut World, cx: &mut Cx, a: &str, b: &str| {
            let parts = BTreeMap::from([
                (first.to_string(), a.to_owned()),
                (second.to_string(), b.to_owned()),
            ]);
            world.create_session(cx, t.id, &parts, args.options())
        };
        if ["house", "computer"]
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&args.with))
        {
            if !t.house_plays {
                return Err(VerbError::refused(format!(
                    "The house does not play {}; find a partner here.",
                    t.title
                )));
            }
            let created = start(world, cx, &me, COMPUTER_ID)?;
            let id = created.session_id;
            let mut lines = vec![format!(
                "You sit down to play {} with the house: game #{id}{}.",
                t.title,
                you_are(first)
            )];
            // The board they sit down to, with the time a move has, where no client draws it
            // (chess's comes drawn): it once began unseen, and a clock ran out unannounced.
            if let Some(s) = world.session(created.id)
                && t.sequential
                && s.game.picture(s.role_of(&me)).is_none()
            {
                lines.extend(s.drawn(s.role_of(&me), world.reading(s, &me)));
            }
            return Ok(Reply::new(
                lines,
                Playing {
                    template: t.id.to_owned(),
                    opponent: "house".into(),
                    session_id: Some(id),
                },
            ));
        }
        let them = super::target::person_here(world, &me, &args.with)?;
        if them.id == me {
            return Err(VerbError::refused("You cannot play against yourself."));
        }
        let (them_id, them_name) = (them.id.clone(), them.name.clone());
        let my_name = world.player(&me).name.clone();
        // Their invitation to this game, if they asked first: asking back accepts it.
        let asked = world
            .invitations_of(&me)
            .filter(|i| i.from == them_id && i.template().id == t.id)
            .map(|i| i.id)
            .last();
        if let Some(id) = asked {
            world.accept_invitation(cx, id)?;
            return Ok(Reply::new(
                vec![format!(
                    "You accept {them_name}'s invitation: game #{id} of {}{}.",
                    t.title,
                    you_are(second)
                )],
                Playing {
                    template: t.id.to_owned(),
                    opponent: them_name,
                    session_id: Some(id.to_string()),
                },
            ));
        }
        let mut terms = if args.rated { "rated" } else { "casual" }.to_owned();
        if let Some(clock) = &args.clock {
            terms.push_str(&format!(", clock {clock}"));
        }
        let line = format!(
            "{my_name} invites you to a game of {} ({terms}). Type `accept {my_name}` to accept \
             (from anywhere), or `decline {my_name}`.",
            t.title
        );
        let parts = BTreeMap::from([
            (first.to_string(), me.to_string()),
            (second.to_string(), them_id.to_string()),
        ]);
        world.create_session_worded(cx, t.id, &parts, args.options(), line)?;
        Ok(Reply::new(
            vec![format!("You invite {them_name} to a game of {}.", t.title)],
            Playing {
                template: t.id.to_owned(),
                opponent: them_name,
                session_id: None,
            },
        ))
    }
}
