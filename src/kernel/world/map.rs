//! The town's geography: rooms, their exits and the things standing in them, as loaded from
//! `world/` and as builders add to it. Rooms may be added while the server runs (a match's
//! building, a builder's `@dig`), never removed (a recycled room is left empty and unreachable),
//! so a room's index never changes; who is where lives in [`super::World`].
//!
//! Every room, exit and thing has a number (`#1000`), as in a MOO: the world files' objects
//! from 1 in the order they are read (so editing the files may renumber them), built ones as
//! they were stored, anything added while the town runs from the next free number.

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
    /// The next number to give an object.
    next_num: u64,
    /// The programmed verbs the world files give their rooms and things, for the world to
    /// take as it opens.
    pub verbs: Vec<FileVerb>,
}

/// A verb a world file gives a room or thing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileVerb {
    pub held: Held,
    pub name: String,
    /// Its Rhai code, checked to compile.
    pub code: String,
    /// Who besides the wizards may read and run it (`[verb_modes]`; `rx` unless it says).
    pub mode: crate::store::programs::VerbMode,
}

/// Which of the world files' objects a verb is on: a room or a thing, by its id in the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    Room(String),
    Thing(String),
}

/// The prefix of a pocket's room id (`pocket-<agent id>`; see [`Room::holder`]): no world
/// file's id has it.
pub const POCKET: &str = "pocket-";

/// An object's number (`#1000`).
pub type ObjNum = u64;

/// The first number a builder's object may have: the world files' own come below it.
pub const FIRST_BUILT: ObjNum = 1000;

#[derive(Debug, Clone)]
pub struct Room {
    /// Its number; 0 until the map gives it one.
    pub num: ObjNum,
    /// Who built it (an agent id); none for the world files' rooms and the town's own.
    pub owner: Option<String>,
    /// Recycled: nobody is in it and nothing leads to it; its index stays taken.
    pub gone: bool,
    /// A pocket: what this person (an agent id) carries, wherever they are. Nobody stands in
    /// it, nothing leads to it, it has no number, and no map shows it.
    pub holder: Option<String>,
    /// Its properties (`@set`), for a built room.
    pub props: std::collections::BTreeMap<String, String>,
    pub id: String,
    pub name: String,
    pub description: String,
    pub exits: Vec<Exit>,
    pub things: Vec<Thing>,
}

#[derive(Debug, Clone)]
pub struct Exit {
    pub num: ObjNum,
    pub owner: Option<String>,
    /// Who alone (besides its owner and the wizards) may pass: an agent id, or `#1004`,
    /// whoever carries that key.
    pub lock: Option<String>,
    pub name: String,
    pub aliases: Vec<String>,
    pub to: RoomIdx,
}

#[derive(Debug, Clone)]
pub struct Thing {
    pub num: ObjNum,
    pub owner: Option<String>,
    /// Who alone (besides its owner and the wizards) may pick it up: an agent id, or `#1004`,
    /// whoever carries that key.
    pub lock: Option<String>,
    /// Its properties (`@set`), for a built thing.
    pub props: std::collections::BTreeMap<String, String>,
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

    /// A kind read from the store (a builder's game table).
    pub fn owned(name: String) -> ThingKind {
        ThingKind(std::borrow::Cow::Owned(name))
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
        let mut map = Map {
            name,
            welcome,
            start,
            rooms: Vec::new(),
            index,
            next_num: 1,
            verbs: Vec::new(),
        };
        for mut room in rooms {
            map.number_room(&mut room);
            map.rooms.push(room);
        }
        map.next_num = map.next_num.max(FIRST_BUILT);
        map
    }

    /// Gives an object the next number if it has none (0), or keeps its own and gives none
    /// below it again.
    fn number(&mut self, num: &mut ObjNum) {
        if *num == 0 {
            *num = self.take_num();
        } else {
            self.next_num = self.next_num.max(*num + 1);
        }
    }

    /// Gives `room`, its exits and its things numbers where they have none.
    fn number_room(&mut self, room: &mut Room) {
        self.number(&mut room.num);
        room.exits.iter_mut().for_each(|e| self.number(&mut e.num));
        room.things.iter_mut().for_each(|t| self.number(&mut t.num));
    }

    /// Keeps number `num` from ever being given (an object stored with it).
    pub fn reserve(&mut self, num: ObjNum) {
        self.next_num = self.next_num.max(num + 1);
    }

    /// The next free number, taken.
    pub fn take_num(&mut self) -> ObjNum {
        let n = self.next_num;
        self.next_num += 1;
        n
    }

    pub(super) fn add_room(&mut self, mut room: Room) -> RoomIdx {
        self.number_room(&mut room);
        let idx = self.rooms.len();
        self.index.insert(room.id.clone(), idx);
        self.rooms.push(room);
        idx
    }

    /// Adds a pocket (see [`Room::holder`]): numbered never, since nothing names it.
    pub(super) fn add_pocket(&mut self, room: Room) -> RoomIdx {
        let idx = self.rooms.len();
        self.index.insert(room.id.clone(), idx);
        self.rooms.push(room);
        idx
    }

    /// Takes the last room away again (an addition undone), and its number back.
    pub(super) fn remove_last_room(&mut self) {
        if let Some(room) = self.rooms.pop() {
            self.index.remove(&room.id);
            self.give_back(room.num);
        }
    }

    /// A recycled room's id names nothing any more (someone stored as standing there starts
    /// over, an exit read from the store cannot lead there).
    pub(super) fn forget_id(&mut self, idx: RoomIdx) {
        let id = self.rooms[idx].id.clone();
        if self.index.get(&id) == Some(&idx) {
            self.index.remove(&id);
        }
    }

    /// The id of room `idx` names it again (a recycling undone).
    pub(super) fn remember_id(&mut self, idx: RoomIdx) {
        self.index.insert(self.rooms[idx].id.clone(), idx);
    }

    /// Takes back number `num`, the last one given, for an addition undone: a command that
    /// changed nothing leaves the numbering as it was.
    pub(super) fn give_back(&mut self, num: ObjNum) {
        if self.next_num == num + 1 {
            self.next_num = num;
        }
    }

    /// Adds `exit` to room `at`, numbered if it has no number.
    pub fn add_exit(&mut self, at: RoomIdx, mut exit: Exit) {
        self.number(&mut exit.num);
        self.rooms[at].exits.push(exit);
    }

    /// Adds `thing` to room `at`, numbered if it has no number.
    pub fn add_thing(&mut self, at: RoomIdx, mut thing: Thing) {
        self.number(&mut thing.num);
        self.rooms[at].things.push(thing);
    }

    /// Where object `num` is: a room, or an exit or thing in a room (with its place there).
    pub fn find_num(&self, num: ObjNum) -> Option<Found> {
        for (i, r) in self.rooms.iter().enumerate().filter(|(_, r)| !r.gone) {
            if r.num == num && r.holder.is_none() {
                return Some(Found::Room(i));
            }
            if let Some(k) = r.exits.iter().position(|e| e.num == num) {
                return Some(Found::Exit(i, k));
            }
            if let Some(k) = r.things.iter().position(|t| t.num == num) {
                return Some(Found::Thing(i, k));
            }
        }
        None
    }

    /// The world files' object `held` names.
    pub fn held(&self, held: &Held) -> Option<Found> {
        match held {
            Held::Room(id) => self.room_by_id(id).map(Found::Room),
            Held::Thing(id) => self.rooms.iter().enumerate().find_map(|(i, r)| {
                r.things
                    .iter()
                    .position(|t| &t.id == id)
                    .map(|k| Found::Thing(i, k))
            }),
        }
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

/// Where [`Map::find_num`] found an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Room(RoomIdx),
    /// An exit of a room, by its place in the room's list.
    Exit(RoomIdx, usize),
    /// A thing in a room, by its place in the room's list.
    Thing(RoomIdx, usize),
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
