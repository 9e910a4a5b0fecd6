//! A match's event feed (for pages and agents alike) and who may read each event: the one filter every face
//! goes through. An event is stored once, with the audience it was made for; a reader sees it
//! only if that audience admits them, and sees the payload meant for their kind of reader.

use serde_json::{Value, json};

use super::{SEATS, Seat};
use moot_game_api::GameTime;

/// Who an event was made for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vis {
    /// Everyone: players, the dead, spectators.
    Public,
    /// These seats only (a seer's result, a player's own night action, their role card).
    Private(Vec<Seat>),
    /// The wolves alive when it happened (wolf chat, their picks).
    Wolves(Vec<Seat>),
    /// All-seeing spectators only (a missed night action, a spoiler from the narrator).
    Omniscient,
}

impl Vis {
    /// The `visibility` word `events.get` gives it (WOLVES beside PUBLIC and PRIVATE: fix 8 in
    /// `catalog`).
    pub fn label(&self) -> &'static str {
        match self {
            Vis::Public => "PUBLIC",
            Vis::Wolves(_) => "WOLVES",
            Vis::Private(_) | Vis::Omniscient => "PRIVATE",
        }
    }
}

/// Who is reading: one of the match's players, a spectator, or a spectator the server lets see
/// everything. Nobody else exists: a face that cannot tell reads as `Public`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    Seat(Seat),
    Public,
    Omniscient,
}

impl Reader {
    /// What a viewer may be named, for the refusal of a name that is none.
    pub const NAMES: &'static str = "viewer is PUBLIC, OMNISCIENT or a player id (p1 to p8)";

    /// The reader a report or a replay asks for by name: `PUBLIC`, `OMNISCIENT` or a player's
    /// id.
    pub fn named(viewer: &str) -> Option<Reader> {
        match viewer {
            "PUBLIC" => Some(Reader::Public),
            "OMNISCIENT" => Some(Reader::Omniscient),
            id => super::seat_of(id).map(Reader::Seat),
        }
    }
}

/// The kinds of event: the original nine of the `events.get` tool, and those moot adds (fix 8
/// in `catalog`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    MatchCreated,
    PhaseChanged,
    PublicMessage,
    WolfChatMessage,
    VoteCast,
    NightResult,
    PlayerEliminated,
    GameEnded,
    Narrator,
    /// Private: a role card, at the start.
    RoleAssigned,
    /// Private: the seer's answer.
    SeerResult,
    /// Wolves: one wolf's pick for the night.
    WolfKillSelected,
    /// Private: the doctor's protection.
    DoctorProtected,
    /// Public: a player is ready in the lobby.
    PlayerReady,
    /// A required action not taken by its deadline (public by day; all-seeing only by night,
    /// where it would tell whose role acts at night).
    ActionMissed,
}

impl Kind {
    pub const ALL: [Kind; 15] = [
        Kind::MatchCreated,
        Kind::PhaseChanged,
        Kind::PublicMessage,
        Kind::WolfChatMessage,
        Kind::VoteCast,
        Kind::NightResult,
        Kind::PlayerEliminated,
        Kind::GameEnded,
        Kind::Narrator,
        Kind::RoleAssigned,
        Kind::SeerResult,
        Kind::WolfKillSelected,
        Kind::DoctorProtected,
        Kind::PlayerReady,
        Kind::ActionMissed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::MatchCreated => "MATCH_CREATED",
            Kind::PhaseChanged => "PHASE_CHANGED",
            Kind::PublicMessage => "PUBLIC_MESSAGE",
            Kind::WolfChatMessage => "WOLF_CHAT_MESSAGE",
            Kind::VoteCast => "VOTE_CAST",
            Kind::NightResult => "NIGHT_RESULT",
            Kind::PlayerEliminated => "PLAYER_ELIMINATED",
            Kind::GameEnded => "GAME_ENDED",
            Kind::Narrator => "NARRATOR",
            Kind::RoleAssigned => "ROLE_ASSIGNED",
            Kind::SeerResult => "SEER_RESULT",
            Kind::WolfKillSelected => "WOLF_KILL_SELECTED",
            Kind::DoctorProtected => "DOCTOR_PROTECTED",
            Kind::PlayerReady => "PLAYER_READY",
            Kind::ActionMissed => "ACTION_MISSED",
        }
    }
}

/// Where an event stands in each reader's feed: the events a reader may see are numbered
/// among themselves, so that the ids and cursors they are given count nothing hidden from
/// them (a skipped id would count the night's actions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    /// Its place in the whole feed, from 0: the all-seeing reader's numbering.
    pub n: usize,
    /// Its place among the events each seat may see (indexed by seat), and the public (last).
    pub seen: [Option<usize>; SEATS + 1],
}

impl Place {
    pub fn of(&self, reader: Reader) -> Option<usize> {
        match reader {
            Reader::Omniscient => Some(self.n),
            Reader::Public => self.seen[SEATS],
            Reader::Seat(s) if s < SEATS => self.seen.get(s).copied().flatten(),
            Reader::Seat(_) => None,
        }
    }

    /// Its id for `reader`, if they may see it.
    pub fn id_for(&self, reader: Reader) -> Option<String> {
        self.of(reader).map(event_id)
    }
}

/// Each reader's count of the events they may see so far: where the next one they see goes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts([usize; SEATS + 1]);

impl Counts {
    /// Places an event made for `vis` as the `n`-th of the feed, and counts it.
    pub fn place(&mut self, n: usize, vis: &Vis) -> Place {
        let mut seen = [None; SEATS + 1];
        for (i, (count, slot)) in self.0.iter_mut().zip(seen.iter_mut()).enumerate() {
            let reader = if i == SEATS {
                Reader::Public
            } else {
                Reader::Seat(i)
            };
            if vis.admits(reader) {
                *slot = Some(*count);
                *count += 1;
            }
        }
        Place { n, seen }
    }
}

/// One event, as stored in the match.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// Its place in the match's feed, from 0.
    pub n: usize,
    /// Its place in each reader's feed (`n` is the all-seeing reader's).
    pub place: Place,
    /// The public event it answers (a reply), which every reader has, at its place.
    pub reply_to: Option<Place>,
    /// Game time.
    pub at: GameTime,
    pub vis: Vis,
    pub kind: Kind,
    /// What every reader it admits sees.
    pub payload: Value,
    /// Fields only spectators see besides (whether the doctor saved someone: players
    /// learn only who died, and the role is revealed).
    pub for_spectators: Option<Value>,
    /// The line a person reads, for the readers it admits (a narrator's words, "Anna says, …").
    pub text: String,
}

impl Vis {
    /// Whether `reader` may see an event made for this audience.
    pub fn admits(&self, reader: Reader) -> bool {
        match (self, reader) {
            (_, Reader::Omniscient) | (Vis::Public, _) => true,
            (Vis::Private(seats) | Vis::Wolves(seats), Reader::Seat(s)) => seats.contains(&s),
            _ => false,
        }
    }
}

impl Event {
    /// The event's id for `reader`: sortable as text within a match, counting only what they
    /// may see. Empty for a reader it does not admit (who is never shown it).
    pub fn id_for(&self, reader: Reader) -> String {
        self.place.id_for(reader).unwrap_or_default()
    }

    /// Whether `reader` may see this event.
    pub fn admits(&self, reader: Reader) -> bool {
        self.vis.admits(reader)
    }

    /// The payload as `reader` sees it (spectators see a little more of some events; a reply
    /// names the event it answers by the reader's own id for it).
    pub fn payload_for(&self, reader: Reader) -> Value {
        let mut p = self.payload.clone();
        if let (Some(to), Value::Object(o)) = (self.reply_to, &mut p) {
            o.insert(
                "replyToEventId".into(),
                json!(to.id_for(reader).unwrap_or_default()),
            );
        }
        if let (Some(Value::Object(extra)), Reader::Public | Reader::Omniscient, Value::Object(o)) =
            (&self.for_spectators, reader, &mut p)
        {
            o.extend(extra.clone());
        }
        p
    }

    /// The event envelope the tools serve (`eventId`, `at`, `visibility`, `type`, `payload`) for
    /// `reader`, with the game time in `at`; the face puts a wall-clock time there.
    pub fn envelope(&self, reader: Reader) -> Value {
        json!({
            "eventId": self.id_for(reader),
            "at": self.at,
            "visibility": self.vis.label(),
            "type": self.kind.name(),
            "payload": self.payload_for(reader),
        })
    }
}

pub fn event_id(n: usize) -> String {
    format!("e{n:06}")
}

/// The index an event id names, if it is one.
pub fn parse_event_id(id: &str) -> Option<usize> {
    let digits = id.strip_prefix('e')?;
    (digits.len() == 6 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}
