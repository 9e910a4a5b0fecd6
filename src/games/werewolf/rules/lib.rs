//! `werewolf.v1`: classic Werewolf for eight (two werewolves, a seer, a doctor, four villagers;
//! night, then a day of announcement, openings, discussion, vote and resolution), as a pure
//! state machine. Where the classic rules leave a choice, the decision is written where it is
//! made (the win check after every elimination, the doctor's no-repeat rule, ties and the
//! server's pick of a victim nobody chose).
//!
//! The host's roles are the seats, `p1` to `p8`, which are also the match's pseudonymous player
//! ids; the cards (two werewolves, a seer, a doctor, four villagers) are dealt from the match's
//! secret seed and live only in this state. Every phase ends by an action of the server actor
//! at a deadline the state names, so a match replays exactly from its seed and log. Each
//! action appends events to the match's feed, each made for an audience ([`events::Vis`]);
//! everything any face shows of a match comes through [`Werewolf::events_for`],
//! [`Werewolf::state_for`] or the host's notes, which all ask the same [`Event::admits`].

#![warn(clippy::unwrap_used, clippy::expect_used)]

mod action;
mod actions;
#[cfg(any(test, feature = "testing"))]
pub mod audit;
pub mod bot;
pub mod config;
pub mod events;
mod game;
mod moments;
mod phases;
pub mod text;
mod view;

pub use action::{Action, Target};
use moot_game_api::Code;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use self::config::Config;
use self::events::{Event, Kind, Reader, Vis};
use moot_game_api::{
    Audience, Computer, Deadline, Game, GameError, GameTime, Glance, Note, Reading, SERVER_ROLE,
};

pub const SEATS: usize = 8;
/// A seat, from 0; its player id is `p1` for seat 0.
pub type Seat = usize;

pub const ROLES: [&str; SEATS] = ["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"];

pub fn player_id(seat: Seat) -> &'static str {
    ROLES[seat]
}

pub fn seat_of(id: &str) -> Option<Seat> {
    ROLES.iter().position(|r| *r == id)
}

/// The longest public message, wolf chat message and vote reason (the tools' input schemas).
pub const PUBLIC_TEXT_MAX: usize = 500;
pub const WOLF_TEXT_MAX: usize = 400;
pub const REASON_MAX: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Card {
    Villager,
    Werewolf,
    Seer,
    Doctor,
}

impl Card {
    pub fn name(self) -> &'static str {
        match self {
            Card::Villager => "VILLAGER",
            Card::Werewolf => "WEREWOLF",
            Card::Seer => "SEER",
            Card::Doctor => "DOCTOR",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Card::Villager => "Villager",
            Card::Werewolf => "Werewolf",
            Card::Seer => "Seer",
            Card::Doctor => "Doctor",
        }
    }
}

/// The deck, before the match's secret seed shuffles it.
pub const DECK: [Card; SEATS] = [
    Card::Werewolf,
    Card::Werewolf,
    Card::Seer,
    Card::Doctor,
    Card::Villager,
    Card::Villager,
    Card::Villager,
    Card::Villager,
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    Lobby,
    Night,
    DayAnnounce,
    DayOpening,
    DayDiscussion,
    DayVote,
    DayResolution,
    Ended,
}

impl Phase {
    pub const ALL: [Phase; 8] = [
        Phase::Lobby,
        Phase::Night,
        Phase::DayAnnounce,
        Phase::DayOpening,
        Phase::DayDiscussion,
        Phase::DayVote,
        Phase::DayResolution,
        Phase::Ended,
    ];

    /// The phase in plain words, as people are told it ("the vote").
    pub fn words(self) -> &'static str {
        match self {
            Phase::Lobby => "the lobby",
            Phase::Night => "the night",
            Phase::DayAnnounce => "the dawn",
            Phase::DayOpening => "the openings",
            Phase::DayDiscussion => "the discussion",
            Phase::DayVote => "the vote",
            Phase::DayResolution => "the verdict",
            Phase::Ended => "the end of the match",
        }
    }

    /// The phase in plain words with its name in the state (`DAY_VOTE`), for people and
    /// programs alike: "the vote (DAY_VOTE)".
    pub fn told(self) -> String {
        format!("{} ({})", self.words(), self.name())
    }

    pub fn name(self) -> &'static str {
        match self {
            Phase::Lobby => "LOBBY",
            Phase::Night => "NIGHT",
            Phase::DayAnnounce => "DAY_ANNOUNCE",
            Phase::DayOpening => "DAY_OPENING",
            Phase::DayDiscussion => "DAY_DISCUSSION",
            Phase::DayVote => "DAY_VOTE",
            Phase::DayResolution => "DAY_RESOLUTION",
            Phase::Ended => "ENDED",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Team {
    Villagers,
    Werewolves,
}

impl Team {
    pub fn name(self) -> &'static str {
        match self {
            Team::Villagers => "VILLAGERS",
            Team::Werewolves => "WEREWOLVES",
        }
    }
}

/// How a player died.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Death {
    /// Killed by the wolves in this night.
    Night(u32),
    /// Voted out on this day.
    Vote(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Player {
    pub name: String,
    pub card: Card,
    pub alive: bool,
    pub ready: bool,
    /// Openings and votes not made by their deadline: public.
    pub misses: u32,
    /// Night actions not taken: only the all-seeing and the player may know of them, since only
    /// a wolf, the seer or the doctor can miss one.
    pub night_misses: u32,
    /// A house bot, labelled as one everywhere.
    pub bot: bool,
    pub death: Option<Death>,
}

/// What one night's actors chose so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Night {
    /// Each wolf's last pick.
    pub picks: [Option<Seat>; SEATS],
    pub inspected: Option<Seat>,
    pub protected: Option<Seat>,
}

/// A night, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct NightLog {
    pub night: u32,
    pub picks: Vec<(Seat, Seat)>,
    /// The wolves' victim, after any disagreement or default was settled.
    pub target: Seat,
    /// True when no wolf picked and the server chose a living non-wolf.
    pub target_by_server: bool,
    pub protected: Option<Seat>,
    pub inspected: Option<(Seat, Seat, bool)>,
    pub killed: Option<Seat>,
}

/// A day's vote, for the report.
#[derive(Debug, Clone, PartialEq)]
pub struct DayLog {
    pub day: u32,
    /// Each living player's final vote (None: abstained), and whether they missed it.
    pub votes: Vec<(Seat, Option<Seat>, bool)>,
    pub eliminated: Option<Seat>,
}

/// The day's openings: who speaks, in order, and whose turn it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Openings {
    pub order: Vec<Seat>,
    pub next: usize,
    pub turn_started: GameTime,
}

impl Openings {
    pub fn speaker(&self) -> Option<Seat> {
        self.order.get(self.next).copied()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Werewolf {
    config: Arc<Config>,
    /// The match's secret: deals the cards and settles every random choice.
    seed: u64,
    draws: u64,
    pub players: Vec<Player>,
    pub phase: Phase,
    /// 0 in the lobby; N from night N through day N.
    pub day: u32,
    pub phase_started: GameTime,
    pub phase_ends: GameTime,
    /// When every required action of the phase was in (it may then end early).
    settled_at: Option<GameTime>,
    pub night: Night,
    /// The doctor's protection on the previous night, if they protected anyone.
    pub last_protected: Option<Seat>,
    pub openings: Openings,
    /// This day's votes, by voter (None: abstain).
    pub votes: BTreeMap<Seat, Option<Seat>>,
    /// Who was voted out today, and whether they have said their last words.
    pub condemned: Option<(Seat, bool)>,
    last_public: [Option<GameTime>; SEATS],
    last_wolf_chat: [Option<GameTime>; SEATS],
    pub winner: Option<Team>,
    pub nights: Vec<NightLog>,
    pub days: Vec<DayLog>,
    events: Vec<Arc<Event>>,
    /// How many events each reader may see so far (see [`events::Place`]).
    counts: events::Counts,
    /// The first event the latest action made.
    fresh: usize,
    /// The game time of the latest action.
    pub now: GameTime,
}

/// A refusal with one of the stable codes clients match on (fix 6 in `catalog`).
pub fn refuse(code: Code, message: impl Into<String>) -> GameError {
    GameError::Refused {
        code,
        message: message.into(),
        retry_after_ms: None,
    }
}

fn rate_limited(wait: GameTime) -> GameError {
    GameError::Refused {
        code: Code::RateLimited,
        // The wait is in game time, which `--time-scale` may run faster than the wall clock:
        // the host gives it in real time (`retryAfterMs`), so the words name no number.
        message: "Too fast: wait a moment before you speak again".to_owned(),
        retry_after_ms: Some(wait),
    }
}

/// The words of an action after its verb, bounded and non-empty.
fn text_of(rest: &str, max: usize) -> Result<String, GameError> {
    let t = rest.trim();
    if t.is_empty() {
        return Err(GameError::Illegal("Say something".into()));
    }
    if t.chars().count() > max {
        return Err(GameError::Illegal(format!(
            "At most {max} characters, please"
        )));
    }
    Ok(t.to_owned())
}

impl Werewolf {
    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    fn random(&mut self, bound: usize) -> usize {
        moot_game_api::draw_below(self.seed, &mut self.draws, bound as u64) as usize
    }

    pub fn living(&self) -> impl Iterator<Item = Seat> + '_ {
        (0..SEATS).filter(|&s| self.players[s].alive)
    }

    pub fn living_wolves(&self) -> Vec<Seat> {
        self.living()
            .filter(|&s| self.players[s].card == Card::Werewolf)
            .collect()
    }

    fn seat_with(&self, card: Card) -> Option<Seat> {
        (0..SEATS).find(|&s| self.players[s].card == card)
    }

    pub fn name(&self, seat: Seat) -> &str {
        &self.players[seat].name
    }

    pub fn events(&self) -> &[Arc<Event>] {
        &self.events
    }

    /// The events the latest action made.
    pub fn fresh_events(&self) -> &[Arc<Event>] {
        &self.events[self.fresh..]
    }

    /// The event `reader` knows by id `id` (their own numbering), if they may see one so named.
    pub fn event_named(&self, reader: Reader, id: &str) -> Option<&Event> {
        let k = events::parse_event_id(id)?;
        self.event_at(reader, k)
    }

    /// The `k`-th event `reader` may see.
    pub fn event_at(&self, reader: Reader, k: usize) -> Option<&Event> {
        // Places only grow along the feed, and the k-th seen is at least the k-th of all.
        self.events
            .get(k..)?
            .iter()
            .map(|e| &**e)
            .find(|e| e.place.of(reader) == Some(k))
    }

    /// How many events `reader` may see.
    pub fn seen_by(&self, reader: Reader) -> usize {
        self.events
            .iter()
            .rev()
            .find_map(|e| e.place.of(reader))
            .map_or(0, |k| k + 1)
    }

    /// The events `reader` may see, in order.
    pub fn events_for(&self, reader: Reader) -> impl Iterator<Item = &Event> {
        self.events
            .iter()
            .map(|e| &**e)
            .filter(move |e| e.admits(reader))
    }

    /// Events with no player behind them: the narrator's (and the server's), which faces mark
    /// so that no player can imitate them.
    pub fn is_narrator(kind: Kind) -> bool {
        !matches!(
            kind,
            Kind::PublicMessage | Kind::WolfChatMessage | Kind::VoteCast | Kind::PlayerReady
        )
    }

    fn emit(&mut self, at: GameTime, vis: Vis, kind: Kind, payload: Value, text: String) {
        self.emit_with(at, vis, kind, payload, None, text);
    }

    fn emit_with(
        &mut self,
        at: GameTime,
        vis: Vis,
        kind: Kind,
        payload: Value,
        for_spectators: Option<Value>,
        text: String,
    ) {
        self.emit_reply(at, vis, kind, payload, for_spectators, text, None);
    }

    /// [`Werewolf::emit_with`] for an event that answers event `reply_to` (a public one).
    #[expect(
        clippy::too_many_arguments,
        reason = "an event's fields, named at each call"
    )]
    fn emit_reply(
        &mut self,
        at: GameTime,
        vis: Vis,
        kind: Kind,
        payload: Value,
        for_spectators: Option<Value>,
        text: String,
        reply_to: Option<usize>,
    ) {
        let n = self.events.len();
        let place = self.counts.place(n, &vis);
        let reply_to = reply_to.and_then(|r| self.events.get(r)).map(|e| e.place);
        self.events.push(Arc::new(Event {
            n,
            place,
            reply_to,
            at,
            vis,
            kind,
            payload,
            for_spectators,
            text,
        }));
    }

    fn narrate(&mut self, at: GameTime, vis: Vis, text: String) {
        self.emit(
            at,
            vis,
            Kind::Narrator,
            json!({ "text": text.clone() }),
            text,
        );
    }

    fn wolves_vis(&self) -> Vis {
        Vis::Wolves(self.living_wolves())
    }
}

/// A player's brief for the phase: what they must do, on whom, by when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Required {
    pub kind: &'static str,
    pub targets: Vec<Seat>,
    pub done: bool,
    pub can_abstain: bool,
    pub deadline: Option<GameTime>,
}

impl Required {
    fn none() -> Required {
        Required {
            kind: "NONE",
            targets: Vec::new(),
            done: false,
            can_abstain: false,
            deadline: None,
        }
    }

    pub fn to_json(&self) -> Value {
        json!({
            "type": self.kind,
            "allowedTargets": self.targets.iter().map(|&s| player_id(s)).collect::<Vec<_>>(),
            "alreadySubmitted": self.done,
            "canAbstain": self.can_abstain,
            "deadline": self.deadline,
        })
    }
}

#[cfg(test)]
mod tests;
