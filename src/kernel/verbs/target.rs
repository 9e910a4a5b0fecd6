//! What a word names, from where a player stands: `me`, `here`, a thing in the room or a person
//! in it. Exact names win over prefixes, as in LambdaMOO's matcher.

use crate::world::Player;
use crate::world::map::Found;
use crate::world::sessions::SessionId;
use crate::world::{AgentId, RoomIdx, World};

use super::VerbError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Room(RoomIdx),
    /// A thing: its room and its index in that room's things.
    Thing(RoomIdx, usize),
    Person(AgentId),
    /// A game session standing here (`#3`, `game 3`, `board 3`, or `game` if there is one).
    Session(SessionId),
}

/// `#3`, `game 3`, `board 3`, `match 3` → 3.
fn session_number(word: &str) -> Option<SessionId> {
    let w = word.trim();
    let n = w.strip_prefix('#').or_else(|| {
        ["game ", "board ", "match "]
            .iter()
            .find_map(|p| w.strip_prefix(p))
            .map(|r| r.trim_start_matches('#'))
    })?;
    n.trim().parse().ok()
}

/// The person called `name` where `actor` stands, or why not, with the names here it was likely
/// a slip for (to whisper to, play or challenge).
pub fn person_here<'w>(
    world: &'w World,
    actor: &AgentId,
    name: &str,
) -> Result<&'w Player, VerbError> {
    let name = name.trim();
    let here = || {
        world
            .occupants(world.player(actor).room)
            .iter()
            .map(|id| world.player(id))
    };
    here()
        .find(|p| p.name.eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            VerbError::not_found(format!(
                "I don't see \"{name}\" here.{}",
                crate::text::did_you_mean(name, here().map(|p| p.name.as_str()))
            ))
        })
}

/// Where a word's thing is sought. A verb that acts on a thing you carry (`drop`, `give`), or
/// on one you pick up (`take`), asks the whole reach first (an exact name wins there) and
/// only where that is ambiguous its own side: a lamp in hand and another on the floor are
/// not one ambiguous "lamp" to either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Within {
    /// What the viewer carries, what stands here, who is here, and the games here.
    Reach,
    /// Only the things the viewer carries.
    Carried,
    /// Only the things that stand here.
    Floor,
}

/// What `word` names from where `viewer` stands: among what they carry and what stands here.
pub fn find_here(world: &World, viewer: &AgentId, word: &str) -> Result<Target, VerbError> {
    find_within(world, viewer, word, Within::Reach)
}

/// What `word` names from where `viewer` stands, its things sought only `within`.
pub fn find_within(
    world: &World,
    viewer: &AgentId,
    word: &str,
    within: Within,
) -> Result<Target, VerbError> {
    let word = word.trim();
    let room = world.player(viewer).room;
    let reach = within == Within::Reach;
    if reach
        && ["me", "myself"]
            .iter()
            .any(|w| w.eq_ignore_ascii_case(word))
    {
        return Ok(Target::Person(viewer.clone()));
    }
    if reach && word.eq_ignore_ascii_case("here") {
        return Ok(Target::Room(room));
    }
    if let Some(n) = session_number(word) {
        if reach && world.session(n).is_some_and(|s| s.room == Some(room)) {
            return Ok(Target::Session(n));
        }
        // Else an object's number (a game here wins: `look #3` has always meant game #3).
        return match world.map.find_num(n.number()) {
            Some(Found::Room(r)) if r == room => Ok(Target::Room(room)),
            Some(Found::Thing(r, k))
                if (r == room && within != Within::Carried)
                    || (Some(r) == world.pocket_of(viewer) && within != Within::Floor) =>
            {
                Ok(Target::Thing(r, k))
            }
            _ if within == Within::Carried => Err(not_carried(word)),
            _ => Err(VerbError::not_found(format!("There is no game #{n} here."))),
        };
    }
    if reach
        && ["game", "board", "match"]
            .iter()
            .any(|w| w.eq_ignore_ascii_case(word))
    {
        let here: Vec<SessionId> = world.sessions_in(room).map(|s| s.id).collect();
        if let [one] = here.as_slice() {
            return Ok(Target::Session(*one));
        }
        if here.len() > 1 {
            return Err(VerbError::not_found(format!(
                "Which game? Say `look #<number>`; games here: {}.",
                here.iter()
                    .map(|n| format!("#{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    // What they carry, then what stands here.
    let pocket = world.pocket_of(viewer).filter(|_| within != Within::Floor);
    let floor: &[_] = match within {
        Within::Carried => &[],
        _ => &world.map.room(room).things,
    };
    let carried = pocket
        .map(|p| world.map.room(p).things.as_slice())
        .unwrap_or_default()
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((Target::Thing(pocket?, i), t.names().collect())));
    let candidates: Vec<(Target, Vec<&str>)> = carried
        .chain(
            floor
                .iter()
                .enumerate()
                .map(|(i, t)| (Target::Thing(room, i), t.names().collect())),
        )
        .chain(world.occupants(room).iter().filter(|_| reach).map(|id| {
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
                // What was typed begins the name or one of its words, and may run on over
                // the words after it (`notice board` of "a cork notice board").
                names.iter().any(|n| {
                    let n = n.to_lowercase();
                    n.match_indices(&lower)
                        .any(|(i, _)| i == 0 || n.as_bytes()[i - 1] == b' ')
                })
            })
            .map(|(t, _)| t)
            .collect()
    } else {
        exact
    };
    match matches.as_slice() {
        [one] => Ok((*one).clone()),
        [] => {
            let names = candidates.iter().flat_map(|(_, n)| n.iter().copied());
            let slip = crate::text::did_you_mean(word, names);
            let mut e = match within {
                Within::Carried => not_carried(word),
                _ => VerbError::not_found(format!("I see no \"{word}\" here.")),
            };
            e.message.push_str(&slip);
            Err(e)
        }
        _ => Err(VerbError::not_found(format!(
            "I don't know which \"{word}\" you mean."
        ))),
    }
}

/// The refusal of a verb that acts on a thing you carry, for a word naming none.
pub fn not_carried(word: &str) -> VerbError {
    VerbError::not_found(format!("You are not carrying \"{}\".", word.trim()))
}
