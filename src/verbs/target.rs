//! What a word names, from where a player stands: `me`, `here`, a thing in the room or a person
//! in it. Exact names win over prefixes, as in LambdaMOO's matcher.

use crate::world::{AgentId, RoomIdx, World};

use super::VerbError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Room(RoomIdx),
    /// A thing: its room and its index in that room's things.
    Thing(RoomIdx, usize),
    Person(AgentId),
}

pub fn find_here(world: &World, viewer: &AgentId, word: &str) -> Result<Target, VerbError> {
    let word = word.trim();
    let room = world.player(viewer).room;
    if ["me", "myself"]
        .iter()
        .any(|w| w.eq_ignore_ascii_case(word))
    {
        return Ok(Target::Person(viewer.clone()));
    }
    if word.eq_ignore_ascii_case("here") {
        return Ok(Target::Room(room));
    }
    let candidates: Vec<(Target, Vec<&str>)> = world
        .map
        .room(room)
        .things
        .iter()
        .enumerate()
        .map(|(i, t)| (Target::Thing(room, i), t.names().collect()))
        .chain(world.occupants(room).iter().map(|id| {
            (
                Target::Person(id.clone()),
                vec![world.player(id).name.as_str()],
            )
        }))
        .collect();
    let exact: Vec<&Target> = candidates
        .iter()
        .filter(|(_, names)| names.iter().any(|n| n.eq_ignore_ascii_case(word)))
        .map(|(t, _)| t)
        .collect();
    let matches = if exact.is_empty() {
        let lower = word.to_lowercase();
        candidates
            .iter()
            .filter(|(_, names)| {
                names.iter().any(|n| {
                    let n = n.to_lowercase();
                    n.starts_with(&lower) || n.split_whitespace().any(|w| w.starts_with(&lower))
                })
            })
            .map(|(t, _)| t)
            .collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(VerbError::not_found(format!("I see no \"{word}\" here."))),
        _ => Err(VerbError::not_found(format!(
            "I don't know which \"{word}\" you mean."
        ))),
    }
}
