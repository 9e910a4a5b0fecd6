//! The town's geography: rooms, their exits and the things standing in them, as loaded from
//! `world/`. Rooms may be added while the server runs (a match's building), never removed, so
//! a room's index never changes; who is where lives in [`super::World`].

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Index of a room in [`Map::rooms`]. Rooms are addressed by index at run time and by their
/// textual id on disk, so that editing the world files never invalidates stored locations.
pub type RoomIdx = usize;

#[derive(Debug, Clone)]
pub struct Map {
    /// The town's name, shown on the login screen.
    pub name: String,
    /// The login screen's welcome text.
    pub welcome: String,
    /// Where new characters appear, and where `home` leads.
    pub start: RoomIdx,
    pub rooms: Vec<Room>,
    index: HashMap<String, RoomIdx>,
}

#[derive(Debug, Clone)]
pub struct Room {
    pub id: String,
    pub name: String,
    pub description: String,
    pub exits: Vec<Exit>,
    pub things: Vec<Thing>,
}

#[derive(Debug, Clone)]
pub struct Exit {
    pub name: String,
    pub aliases: Vec<String>,
    pub to: RoomIdx,
}

#[derive(Debug, Clone)]
pub struct Thing {
    pub id: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub description: String,
    pub kind: ThingKind,
}

/// What a thing is for, as the world files name it (`chess_table`). The world does not know
/// the kinds: a template names the table it stands at, and verbs name the kinds that offer them
/// (so `examine` can list what a thing offers without the world files repeating the verb
/// table); start-up refuses a kind that nothing knows.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ThingKind(std::borrow::Cow<'static, str>);

impl ThingKind {
    /// Something to look at and nothing more.
    pub const SCENERY: ThingKind = ThingKind::named("scenery");

    pub const fn named(name: &'static str) -> ThingKind {
        ThingKind(std::borrow::Cow::Borrowed(name))
    }

    pub fn name(&self) -> &str {
        &self.0
    }
}

impl Default for ThingKind {
    fn default() -> ThingKind {
        ThingKind::SCENERY
    }
}

impl<'de> Deserialize<'de> for ThingKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ThingKind, D::Error> {
        Ok(ThingKind(std::borrow::Cow::Owned(String::deserialize(d)?)))
    }
}

impl Serialize for ThingKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl schemars::JsonSchema for ThingKind {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ThingKind".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "description": "What the thing is for, e.g. chess_table." })
    }
}

impl Map {
    pub(super) fn new(name: String, welcome: String, start: RoomIdx, rooms: Vec<Room>) -> Map {
        let index = rooms
            .iter()
            .enumerate()
            .map(|(i, r)| (r.id.clone(), i))
            .collect();
        Map {
            name,
            welcome,
            start,
            rooms,
            index,
        }
    }

    pub(super) fn add_room(&mut self, room: Room) -> RoomIdx {
        let idx = self.rooms.len();
        self.index.insert(room.id.clone(), idx);
        self.rooms.push(room);
        idx
    }

    pub fn room_by_id(&self, id: &str) -> Option<RoomIdx> {
        self.index.get(id).copied()
    }

    /// The room at `idx`. Indexes come only from the map itself (where someone stands, an
    /// exit's target, a match's new building), never from what anyone sends, and rooms are
    /// never removed, so every index the world holds stays valid.
    pub fn room(&self, idx: RoomIdx) -> &Room {
        &self.rooms[idx]
    }
}

impl Room {
    /// The exit called `word` (by name or alias, any case).
    pub fn exit(&self, word: &str) -> Option<&Exit> {
        self.exits.iter().find(|e| e.answers_to(word))
    }
}

impl Exit {
    pub fn answers_to(&self, word: &str) -> bool {
        self.name.eq_ignore_ascii_case(word)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(word))
    }
}

impl Thing {
    /// The names a player may use for this thing: its name, its name without an article, and
    /// its aliases.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.name.as_str())
            .chain(crate::text::without_article(&self.name))
            .chain(self.aliases.iter().map(String::as_str))
    }
}
