//! Which game a command means: `#3` by number, or the player's only game of a kind. Every
//! game's verbs ask here, so no game's verbs need another's.

use nom::Parser;
use nom::bytes::complete::tag;
use nom::character::complete::{digit1, multispace0};
use nom::combinator::{map_res, opt};
use nom::sequence::preceded;

use super::VerbError;
use crate::world::sessions::{Session, SessionId};
use crate::world::{AgentId, World};

/// `#3` or `3`.
pub fn game_id(i: &str) -> nom::IResult<&str, SessionId> {
    preceded((multispace0, opt(tag("#"))), map_res(digit1, str::parse)).parse(i)
}

/// `#3` → 3, or a usage-style error.
pub fn parse_game(s: &str) -> Result<SessionId, VerbError> {
    match game_id(s.trim()) {
        Ok((rest, id)) if rest.trim().is_empty() => Ok(id),
        _ => Err(VerbError::usage(format!(
            "\"{}\" is not a game number (like #3).",
            s.trim()
        ))),
    }
}

/// The session of `template` that `actor` plays and means: the one named (`#3`), or their
/// only running one. Verbs that act as a player (`mark`, `choose`, `move`, `resign`…) find
/// games only here, so a game named by a stranger is refused before anything looks for the
/// stranger's role in it. `what` names the game for people ("chess").
pub fn my_session(
    world: &World,
    actor: &AgentId,
    template: &str,
    what: &str,
    game: Option<&str>,
) -> Result<SessionId, VerbError> {
    my_session_where(world, actor, what, game, |s| s.template.id == template)
}

/// [`my_session`] among the sessions `kind` admits (every game that can be resigned, say).
pub fn my_session_where(
    world: &World,
    actor: &AgentId,
    what: &str,
    game: Option<&str>,
    kind: impl Fn(&Session) -> bool,
) -> Result<SessionId, VerbError> {
    if let Some(g) = game {
        let id = parse_game(g)?;
        let s = world
            .session(id)
            .filter(|s| kind(s))
            .ok_or_else(|| VerbError::not_found(format!("There is no {what} game #{id}.")))?;
        return match s.role_of(actor) {
            Some(_) => Ok(id),
            None => Err(VerbError::refused(format!(
                "You are not playing in game #{id}."
            ))),
        };
    }
    let mine: Vec<SessionId> = world
        .session_ids()
        .into_iter()
        .filter_map(|id| world.session(id))
        .filter(|s| kind(s) && !s.game.is_terminal() && s.role_of(actor).is_some())
        .map(|s| s.id)
        .collect();
    match mine.as_slice() {
        [one] => Ok(*one),
        [] => Err(VerbError::not_found(format!(
            "You are not playing any {what} game."
        ))),
        many => Err(VerbError::usage(format!(
            "You are playing several games; say which: {}.",
            many.iter()
                .map(|g| format!("#{g}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// The session of `template` named `game` (`#3`), for verbs anyone may use on any game of
/// that kind (looking at a chess board, reading its PGN).
pub fn game_to_view(
    world: &World,
    template: &str,
    what: &str,
    game: &str,
) -> Result<SessionId, VerbError> {
    let id = parse_game(game)?;
    world
        .session(id)
        .filter(|s| s.template.id == template)
        .map(|s| s.id)
        .ok_or_else(|| VerbError::not_found(format!("There is no {what} game #{id}.")))
}
