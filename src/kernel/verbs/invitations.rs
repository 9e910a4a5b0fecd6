//! Answering an invitation to a game: `accept`/`decline` as people say it (by the name of who
//! asked, anywhere in the town), and `session_accept`/`session_decline` by the session's id,
//! as the session tools and the REST API do. Each is [`World::accept_invitation`] or
//! [`World::decline_invitation`], so an invitation made on one face is answered on any.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{whole, word};
use super::sessions::{SessionArg, session_arg};
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::world::sessions::invite::{Answer, Invitation};
use crate::world::sessions::{SessionId, parse_id};
use crate::world::{Cx, World};

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Whom {
    /// Who asked you (their name), or the game's id (`#12`).
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Answered {
    /// Who asked.
    pub name: String,
    /// The game's id.
    pub session_id: String,
    /// The game's template (`chess.v1`).
    pub template: String,
    /// `active` once it began, `waiting` while others must still accept, `declined`.
    pub status: String,
}

/// The invitation `name` (a name, or an id) made to the actor: the newest, where there are
/// several from one person.
fn invitation_named(world: &World, cx: &Cx, name: &str) -> Result<SessionId, VerbError> {
    let id = name.trim_start_matches('#');
    if id.bytes().all(|b| b.is_ascii_digit()) && !id.is_empty() {
        return Ok(parse_id(id)?);
    }
    let from_them = |i: &&Invitation| {
        i.from != cx.actor
            && world
                .directory
                .name_of(&i.from)
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
    };
    world
        .invitations_of(&cx.actor)
        .filter(from_them)
        .map(|i| i.id)
        .last()
        .ok_or_else(|| VerbError::not_found(format!("\"{name}\" has not invited you to a game.")))
}

fn asker(world: &World, id: SessionId) -> String {
    world
        .invitation(id)
        .and_then(|i| world.directory.name_of(&i.from))
        .unwrap_or_default()
}

/// The words for an answer, and its data.
pub fn answered(world: &World, cx: &Cx, from: String, answer: &Answer) -> Reply<Answered> {
    let c = answer.created();
    let id = &c.session_id;
    let line = match answer {
        Answer::Began(_) => {
            // (As it is to begin, where it begins on a game world.)
            // A seat's bare number (`player_2`) tells a person nothing: the game alone.
            match world
                .role_in(c.id, &cx.actor)
                .and_then(crate::world::sessions::shown_role)
            {
                Some(role) => {
                    format!("You accept {from}'s challenge: game #{id}, you play {role}.")
                }
                None => format!("You accept {from}'s challenge: game #{id}."),
            }
        }
        Answer::Waiting(_) => {
            format!("You accept {from}'s invitation to game #{id}; it begins once everyone has.")
        }
        Answer::Declined(_) if world.directory.name_of(&cx.actor).as_deref() == Some(&*from) => {
            format!("You withdraw your invitation to game #{id}.")
        }
        Answer::Declined(_) => format!("You decline {from}'s challenge."),
    };
    Reply::new(
        vec![line],
        Answered {
            name: from,
            session_id: c.session_id.clone(),
            template: c.template.clone(),
            status: c.status.clone(),
        },
    )
}

pub struct Accept;

impl Verb for Accept {
    const NAME: &'static str = "accept";
    const USAGE: &'static str = "accept <name|#id>";
    const SUMMARY: &'static str = "Accept someone's invitation to a game.";
    const HELP: &'static str = "`accept Ann` starts the game Ann invited you to (her chess challenge, \
a session she made naming you); `accept #12` names the game. An invitation lapses if nobody \
answers it.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Accept the invitation to a game (a challenge) from \
`name`, or the game `#id`; the game begins once every player has accepted. Returns who asked, \
the game's id and its status.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::TABLES);
    const TOPIC: Topic = Topic::TABLES;
    type Args = Whom;
    type Output = Answered;

    fn parse(rest: &str) -> Result<Whom, VerbError> {
        whole(rest, word, usage::<Accept>).map(|n| Whom { name: n.to_owned() })
    }

    fn run(world: &mut World, cx: &mut Cx, args: Whom) -> Result<Reply<Answered>, VerbError> {
        let id = invitation_named(world, cx, &args.name)?;
        let from = asker(world, id);
        let answer = world.accept_invitation(cx, id)?;
        Ok(answered(world, cx, from, &answer))
    }
}

pub struct Decline;

impl Verb for Decline {
    const NAME: &'static str = "decline";
    const USAGE: &'static str = "decline <name|#id>";
    const SUMMARY: &'static str = "Decline an invitation (or withdraw your own).";
    const HELP: &'static str = "`decline Ann` turns down Ann's invitation (her chess challenge); she \
is told. `decline #12` names the game, and withdraws an invitation you made.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Turn down the invitation to a game from `name` (or the \
game `#id`, which withdraws one you made); the others are told. Returns who asked.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::TABLES);
    const TOPIC: Topic = Topic::TABLES;
    type Args = Whom;
    type Output = Answered;

    fn parse(rest: &str) -> Result<Whom, VerbError> {
        whole(rest, word, usage::<Decline>).map(|n| Whom { name: n.to_owned() })
    }

    fn run(world: &mut World, cx: &mut Cx, args: Whom) -> Result<Reply<Answered>, VerbError> {
        let id = invitation_named(world, cx, &args.name)?;
        let from = asker(world, id);
        let answer = world.decline_invitation(cx, id)?;
        Ok(answered(world, cx, from, &answer))
    }
}

pub struct SessionAccept;

impl Verb for SessionAccept {
    const NAME: &'static str = "session_accept";
    const USAGE: &'static str = "session_accept <session id>";
    const SUMMARY: &'static str = "Accept a session someone made with you in it.";
    const HELP: &'static str = "A session that names you waits (`waiting` in `session_list`) until you \
accept it; it begins once every player named has. `session_decline` turns it down.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Accept the session `session_id` that someone made with \
you in it (its status is `waiting`); it begins once every player named has accepted. Returns \
who asked, the id and the status (`active` once it began).";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::SESSIONS);
    const TOPIC: Topic = Topic::AGENTS;
    type Args = SessionArg;
    type Output = Answered;

    fn parse(rest: &str) -> Result<SessionArg, VerbError> {
        session_arg::<SessionAccept>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, a: SessionArg) -> Result<Reply<Answered>, VerbError> {
        let id = parse_id(&a.session_id)?;
        let from = asker(world, id);
        let answer = world.accept_invitation(cx, id)?;
        Ok(answered(world, cx, from, &answer))
    }
}

pub struct SessionDecline;

impl Verb for SessionDecline {
    const NAME: &'static str = "session_decline";
    const USAGE: &'static str = "session_decline <session id>";
    const SUMMARY: &'static str = "Turn down (or withdraw) a session that waits for its players.";
    const HELP: &'static str = "Turns down a `waiting` session that names you, or withdraws one you \
made; the others are told.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Turn down the waiting session `session_id` that names \
you, or withdraw one you made; the others are told. Returns who asked, the id and `declined`.";
    const TOOLSET: Option<crate::verbs::Toolset> = Some(crate::verbs::Toolset::SESSIONS);
    const TOPIC: Topic = Topic::AGENTS;
    type Args = SessionArg;
    type Output = Answered;

    fn parse(rest: &str) -> Result<SessionArg, VerbError> {
        session_arg::<SessionDecline>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, a: SessionArg) -> Result<Reply<Answered>, VerbError> {
        let id = parse_id(&a.session_id)?;
        let from = asker(world, id);
        let answer = world.decline_invitation(cx, id)?;
        Ok(answered(world, cx, from, &answer))
    }
}
