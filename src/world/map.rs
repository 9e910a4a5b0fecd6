//! The town's fixed geography: rooms, their exits and the things standing in them, as loaded
//! from `world/`. The map never changes while the server runs; who is where lives in
//! [`super::World`].

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

/// What a thing is for. Games attach their verbs to a kind, so `examine` can list what a thing
/// offers without the world files repeating the verb table.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ThingKind {
    /// Something to look at and nothing more.
    #[default]
    Scenery,
    /// Where chess games are played (the Chess Parlour).
    ChessTable,
    /// Where blackjack is dealt (the Card Room).
    BlackjackTable,
    /// Where rock-paper-scissors is played (the Game Room).
    RpsTable,
    /// Where tic-tac-toe is played (the Game Room).
    TictactoeTable,
    /// The Werewolf notice board in the Town Hall, where matches are joined.
    WerewolfBoard,
}

impl ThingKind {
    /// Its name in the world files (`chess_table`), which templates name their table by.
    pub fn name(self) -> &'static str {
        match self {
            ThingKind::Scenery => "scenery",
            ThingKind::ChessTable => "chess_table",
            ThingKind::BlackjackTable => "blackjack_table",
            ThingKind::RpsTable => "rps_table",
            ThingKind::TictactoeTable => "tictactoe_table",
            ThingKind::WerewolfBoard => "werewolf_board",
        }
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

    pub fn room_by_id(&self, id: &str) -> Option<RoomIdx> {
        self.index.get(id).copied()
    }

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
