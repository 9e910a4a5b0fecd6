//! `look`: the room, or something or someone in it. Also the room view that `go`, `home` and
//! connecting show.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::games::session_of;
use super::parse::{keyword, opt_text, whole};
use super::target::{Target, find_here};
use super::{Reply, Verb, VerbError, usage};
use crate::text::capitalize;
use crate::world::views::{Come, RoomView, room_seen};
use crate::world::{AgentId, Cx, World};

pub struct Look;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct LookArgs {
    /// What to look at: a thing or person here, `me` or `here`. Omit to look around.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// What someone saw.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Seen {
    Room(RoomView),
    Thing {
        id: String,
        name: String,
        description: String,
    },
    Person {
        name: String,
        description: String,
    },
    /// A game session standing in the room, as the viewer may see it.
    Session {
        session_id: String,
        template: String,
        players: String,
        status: String,
        view: serde_json::Value,
    },
}

// Its own type so that `go` and `home` do not describe to an agent the shapes only `look`
// returns; its doc comment is its schema's description, read by agents.
/// Where someone arrived: the room, as `look` shows it.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Arrived {
    Room(RoomView),
}

impl Verb for Look {
    const NAME: &'static str = "look";
    const ALIASES: &'static [&'static str] = &["l"];
    const USAGE: &'static str = "look [thing]";
    const SUMMARY: &'static str = "Look around, or at something or someone here.";
    const HELP: &'static str = "With nothing after it, describes the room you are in: what is here, who is \
here, and the exits. `look <thing>` (or `look at <thing>`) describes a thing or person here; \
`look me` shows how others see you; `read <thing>` is `look <thing>` where the thing has no `read` of its own.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Look at the room you are in, or at `target` (a thing \
or person here, `me`, `here`). Returns the room (its description, exits, things, people and games) \
or what you looked at, its `kind` saying which.";
    type Args = LookArgs;
    type Output = Seen;

    fn parse(rest: &str) -> Result<LookArgs, VerbError> {
        let target = whole(
            rest,
            (nom::combinator::opt(keyword("at")), opt_text),
            usage::<Look>,
        )?
        .1;
        Ok(LookArgs {
            target: target.map(str::to_owned),
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: LookArgs) -> Result<Reply<Seen>, VerbError> {
        let here = world.player(&cx.actor).room;
        let target = match args.target.as_deref() {
            None => Target::Room(here),
            Some(word) => find_here(world, &cx.actor, word)?,
        };
        if let Target::Session(sid) = target {
            // Looking at a board gives a tkMOO-light client a fresh one (the text is the answer).
            let actor = cx.actor.clone();
            if let Some(b) = world
                .session(sid)
                .and_then(|s| world.board_msg(s, &actor, None, true))
            {
                cx.show_board(
                    &actor,
                    crate::world::BoardMsg {
                        text: Vec::new(),
                        ..b
                    },
                );
            }
        }
        see(world, &cx.actor, &target, cx.text_only)
    }
}

/// Text and data for `viewer` looking at `target`; refused if it is no longer there.
/// `text_only`: see [`Cx::text_only`](crate::world::Cx::text_only).
pub fn see(
    world: &World,
    viewer: &AgentId,
    target: &Target,
    text_only: bool,
) -> Result<Reply<Seen>, VerbError> {
    Ok(match target {
        Target::Room(room) => {
            let (lines, view) = room_seen(world, *room, viewer, text_only, Come::Looked);
            Reply::new(lines, Seen::Room(view))
        }
        Target::Thing(room, i) => {
            let t = world
                .map
                .room(*room)
                .things
                .get(*i)
                .ok_or_else(|| VerbError::not_found("I see no such thing here."))?;
            Reply::new(
                vec![
                    capitalize(&t.name),
                    // A builder's words never begin a line as the narrator would.
                    crate::wrap::set_in_if_marked(t.description.trim_end()).into_owned(),
                ],
                Seen::Thing {
                    id: t.id.clone(),
                    name: t.name.clone(),
                    description: t.description.clone(),
                },
            )
        }
        Target::Session(id) => {
            let s = session_of(world, *id)?;
            let view = s.game.view(s.role_of(viewer));
            let mut text = vec![format!(
                "Game #{id} ({}): {}",
                s.template.title,
                s.players_line()
            )];
            text.extend(world.drawn_for(s, viewer));
            Reply::new(
                text,
                Seen::Session {
                    session_id: id.to_string(),
                    template: s.template.id.to_owned(),
                    players: s.players_line(),
                    status: s.status().to_owned(),
                    view,
                },
            )
        }
        Target::Person(id) => {
            let p = world.player(id);
            let description = if p.description.is_empty() {
                "You see nothing special.".to_owned()
            } else {
                p.description.clone()
            };
            let shown = crate::wrap::set_in_if_marked(&description).into_owned();
            Reply::new(
                vec![p.name.clone(), shown],
                Seen::Person {
                    name: p.name.clone(),
                    description,
                },
            )
        }
    })
}
