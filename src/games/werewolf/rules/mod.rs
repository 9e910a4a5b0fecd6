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

mod actions;
#[cfg(any(test, feature = "testing"))]
pub mod audit;
pub mod bot;
pub mod config;
pub mod events;
mod moments;
mod phases;
pub mod text;
mod view;

use crate::game_api::Code;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};

use self::config::Config;
use self::events::{Event, Kind, Reader, Vis};
use crate::game_api::{Audience, Computer, Deadline, Game, GameError, GameTime, Note, SERVER_ROLE};

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
        crate::game_api::draw_below(self.seed, &mut self.draws, bound as u64) as usize
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

impl Game for Werewolf {
    const TEMPLATE: &'static str = "werewolf.v1";
    const ROLES: &'static [&'static str] = &ROLES;
    const SEQUENTIAL: bool = false;
    const TABLE: &'static str = "werewolf_hall";
    const HOUSE_PLAYS: bool = true;
    const TITLE: &'static str = "Werewolf";
    const HIDES_ACTIONS: bool = true;
    const SECLUDES: bool = true;
    const RECKONING: crate::game_api::Reckoning = crate::game_api::Reckoning::Rating;

    /// A configuration is a season: the timers, the chat gaps and the day limit make the table
    /// (the players' names and the bots' seats do not). A match whose spectators see everything
    /// live cannot be rated: a player could learn from a friend watching.
    fn table(options: &Value) -> Option<crate::game_api::Table> {
        let mut config = Config::from_options(options).ok()?;
        if config.spectating == config::Spectating::Live {
            return None;
        }
        config.names.clear();
        config.bots.clear();
        Some(crate::game_api::Table {
            class: String::new(),
            rules: serde_json::to_value(config).ok()?,
        })
    }

    /// Each side is rated on its own table (`werewolf/village`, `werewolf/wolves`); a match
    /// that reached the day limit is drawn.
    fn decided(&self) -> Option<Vec<crate::game_api::SideScore>> {
        if self.phase != Phase::Ended {
            return None;
        }
        let (village, wolves) = match self.winner {
            Some(Team::Villagers) => (1.0, 0.0),
            Some(Team::Werewolves) => (0.0, 1.0),
            None => (0.5, 0.5),
        };
        let (mut v, mut w) = (Vec::new(), Vec::new());
        for (player, role) in self.players.iter().zip(ROLES) {
            if player.card == Card::Werewolf {
                w.push(role);
            } else {
                v.push(role);
            }
        }
        Some(vec![
            crate::game_api::SideScore {
                side: "village",
                roles: v,
                score: village,
            },
            crate::game_api::SideScore {
                side: "wolves",
                roles: w,
                score: wolves,
            },
        ])
    }

    fn new(seed: u64, options: &Value) -> Result<Werewolf, GameError> {
        let config = Config::from_options(options)?;
        let mut w = Werewolf {
            players: Vec::new(),
            config: Arc::new(config),
            seed,
            draws: 0,
            phase: Phase::Lobby,
            day: 0,
            phase_started: 0,
            phase_ends: 0,
            settled_at: None,
            night: Night::default(),
            last_protected: None,
            openings: Openings::default(),
            votes: BTreeMap::new(),
            condemned: None,
            last_public: [None; SEATS],
            last_wolf_chat: [None; SEATS],
            winner: None,
            nights: Vec::new(),
            days: Vec::new(),
            events: Vec::new(),
            counts: events::Counts::default(),
            fresh: 0,
            now: 0,
        };
        // Fisher–Yates from the secret seed.
        let mut deck = DECK;
        for i in (1..SEATS).rev() {
            let j = w.random(i + 1);
            deck.swap(i, j);
        }
        w.players = (0..SEATS)
            .map(|s| Player {
                name: w
                    .config
                    .names
                    .get(s)
                    .cloned()
                    .unwrap_or_else(|| format!("Player {}", s + 1)),
                card: deck[s],
                alive: true,
                ready: false,
                misses: 0,
                night_misses: 0,
                bot: w.config.bots.contains(&(s as u8 + 1)),
                death: None,
            })
            .collect();
        w.phase_ends = Config::ms(w.config.timers.lobby);
        let seated: Vec<Value> = (0..SEATS)
            .map(|s| {
                json!({
                    "playerId": player_id(s),
                    "displayName": w.players[s].name,
                    "seat": s + 1,
                    "bot": w.players[s].bot,
                })
            })
            .collect();
        let line = text::created_line(&w);
        w.emit(
            0,
            Vis::Public,
            Kind::MatchCreated,
            json!({ "players": seated, "phaseEndsAt": w.phase_ends }),
            line,
        );
        let wolves: Vec<Seat> = (0..SEATS).filter(|&s| deck[s] == Card::Werewolf).collect();
        for (s, &card) in deck.iter().enumerate() {
            let mut payload = json!({ "playerId": player_id(s), "role": card.name() });
            if card == Card::Werewolf {
                payload["knownWolves"] =
                    json!(wolves.iter().map(|&x| player_id(x)).collect::<Vec<_>>());
            }
            let line = text::role_card_line(&w, s);
            w.emit(0, Vis::Private(vec![s]), Kind::RoleAssigned, payload, line);
        }
        Ok(w)
    }

    fn legal_actions(&self, role: &str) -> Vec<String> {
        let Some(seat) = seat_of(role) else {
            return Vec::new();
        };
        let p = &self.players[seat];
        let ids = |v: Vec<Seat>| v.into_iter().map(player_id);
        match self.phase {
            Phase::Lobby if !p.ready => vec!["ready".to_owned()],
            Phase::Night | Phase::DayVote => {
                let req = self.required(seat);
                let verb = match req.kind {
                    "WOLF_KILL" => "kill",
                    "SEER_INSPECT" if !req.done => "inspect",
                    "DOCTOR_PROTECT" => "protect",
                    "VOTE" => "vote",
                    _ => return Vec::new(),
                };
                let mut v: Vec<String> = ids(req.targets).map(|t| format!("{verb} {t}")).collect();
                if req.can_abstain {
                    v.push("vote none".to_owned());
                }
                v
            }
            Phase::DayOpening if self.openings.speaker() == Some(seat) => {
                vec!["say <text>".to_owned(), "pass".to_owned()]
            }
            Phase::DayDiscussion if p.alive => vec!["say <text>".to_owned()],
            Phase::DayResolution if self.condemned == Some((seat, false)) => {
                vec!["say <text>".to_owned()]
            }
            _ => Vec::new(),
        }
    }

    fn apply(&self, role: &str, action: &str) -> Result<Werewolf, GameError> {
        self.apply_at(role, action, self.now)
    }

    fn apply_at(&self, role: &str, action: &str, at: GameTime) -> Result<Werewolf, GameError> {
        let mut next = self.clone();
        next.fresh = next.events.len();
        next.now = at.max(self.now);
        let at = next.now;
        if role == SERVER_ROLE {
            let due = self
                .next_deadline()
                .filter(|d| d.action == action && at >= d.at);
            if due.is_none() {
                return Err(GameError::Illegal(format!(
                    "`{action}` is not the deadline that is due"
                )));
            }
            next.timeout(at);
        } else {
            let seat = seat_of(role).ok_or_else(|| GameError::UnknownRole(role.to_owned()))?;
            next.act(seat, action, at)?;
        }
        Ok(next)
    }

    fn deadline(&self) -> Option<Deadline> {
        self.next_deadline()
    }

    fn owing(&self) -> Vec<&'static str> {
        self.owing_seats().into_iter().map(player_id).collect()
    }

    fn is_terminal(&self) -> bool {
        self.phase == Phase::Ended
    }

    fn state(&self) -> Value {
        text::stored_state(self)
    }

    fn view(&self, role: Option<&str>) -> Value {
        let reader = role.and_then(seat_of).map_or(Reader::Public, Reader::Seat);
        self.state_for(reader, 20)
    }

    /// A reply names the event it answers by the replier's own id for it; the log keeps its
    /// place in the public feed (`reply @k …`), the same for everyone and counting nothing
    /// hidden. An id that names no public event the replier has is kept so that the rules
    /// refuse it (`?…`).
    fn canonical(&self, role: &str, action: &str) -> Option<String> {
        // Logged as the rules read it (trimmed), so that every reader's view of the log reads
        // its verb as the rules did: ` kill p3` is a night action too.
        let trimmed = action.trim();
        let Some(rest) = trimmed.strip_prefix("reply ") else {
            return (trimmed.len() != action.len()).then(|| trimmed.to_owned());
        };
        let rest = rest.trim_start();
        let (id, text) = rest.split_once(' ').unwrap_or((rest, ""));
        let seat = seat_of(role)?;
        let public = self
            .event_named(Reader::Seat(seat), id)
            .filter(|e| e.vis == Vis::Public)
            .and_then(|e| e.place.of(Reader::Public));
        Some(match public {
            Some(k) => format!("reply @{k} {text}"),
            None => format!("reply ?{id} {text}"),
        })
    }

    fn action_view(&self, viewer: Option<&str>, actor: &str, action: &str) -> Option<String> {
        // Night actions and wolf chat are the actor's secret (and the wolves' for theirs).
        // Even that one was taken is: only a night role acts at night.
        let verb = action.split_whitespace().next().unwrap_or("");
        // Once the match is over, everyone may read everything.
        let secret = matches!(verb, "kill" | "inspect" | "protect" | "wolfchat")
            && self.phase != Phase::Ended;
        // A reply reads with the reader's own id for the event it answers.
        if let Some((k, text)) = action
            .strip_prefix("reply @")
            .and_then(|r| r.split_once(' ').or(Some((r, ""))))
        {
            let reader = viewer
                .and_then(seat_of)
                .map_or(Reader::Public, Reader::Seat);
            let id = k
                .parse()
                .ok()
                .and_then(|k| self.event_at(Reader::Public, k))
                .and_then(|e| e.place.id_for(reader))
                .unwrap_or_default();
            return Some(format!("reply {id} {text}"));
        }
        if !secret || viewer == Some(actor) {
            return Some(action.to_owned());
        }
        let both_wolves = [Some(actor), viewer].iter().all(|r| {
            r.and_then(seat_of)
                .is_some_and(|s| self.players[s].card == Card::Werewolf)
        });
        (matches!(verb, "kill" | "wolfchat") && both_wolves).then(|| action.to_owned())
    }

    fn headline(&self, _role: &str, _action: &str) -> String {
        // Everything a match says goes out as its events, each to its own audience.
        String::new()
    }

    /// The match's opening and each player's card, told as the match is made (a villager
    /// has no night brief to learn it from).
    fn opening_notes(&self) -> Vec<Note> {
        Game::notes(self, SERVER_ROLE, "")
    }

    /// The living hear the match alone while it runs: the cards are dealt from the start.
    fn secluded(&self, role: &str) -> bool {
        self.phase != Phase::Ended
            && seat_of(role)
                .and_then(|s| self.players.get(s))
                .is_some_and(|p| p.alive)
    }

    fn notes(&self, _role: &str, _action: &str) -> Vec<Note> {
        let mut notes: Vec<Note> = self
            .fresh_events()
            .iter()
            .map(|e| {
                let to = match &e.vis {
                    Vis::Public => Audience::Everyone,
                    Vis::Private(seats) | Vis::Wolves(seats) => {
                        Audience::Roles(seats.iter().map(|&s| player_id(s).to_owned()).collect())
                    }
                    Vis::Omniscient => Audience::AllSeeing,
                };
                Note::new(to, text::mark(e))
            })
            .collect();
        // When a phase (or a speaker's turn) begins, each player who must act is told what
        // to do and by when, privately: nobody has to ask.
        let fresh = self.fresh_events();
        let new_phase = fresh.iter().any(|e| e.kind == Kind::PhaseChanged);
        let new_turn = self.phase == Phase::DayOpening
            && !fresh.is_empty()
            && self.openings.turn_started == self.now;
        if new_phase || new_turn {
            let left = self
                .next_deadline()
                .map_or(0, |d| d.at.saturating_sub(self.now) / 1000);
            for s in self.living() {
                let r = self.required(s);
                if r.kind == "NONE" || r.done {
                    continue;
                }
                let line = format!("{} {} ({left} s.)", text::CRIER, text::brief(self, s));
                notes.push(Note::new(
                    Audience::Roles(vec![player_id(s).to_owned()]),
                    line,
                ));
            }
        }
        notes
    }

    fn situation(&self) -> String {
        match self.phase {
            Phase::Ended => self.ending().unwrap_or_default(),
            p => format!(
                "{}, day {}, {} alive",
                p.name().to_lowercase().replace('_', " "),
                self.day,
                self.living().count()
            ),
        }
    }

    fn ending(&self) -> Option<String> {
        (self.phase == Phase::Ended).then(|| match self.winner {
            Some(Team::Villagers) => "the villagers win".to_owned(),
            Some(Team::Werewolves) => "the werewolves win".to_owned(),
            None => "no winner (day limit)".to_owned(),
        })
    }

    fn render(&self, viewer: Option<&str>, now: GameTime) -> Vec<String> {
        let reader = viewer
            .and_then(seat_of)
            .map_or(Reader::Public, Reader::Seat);
        text::render(self, reader, now)
    }

    fn computer(&self, role: &str, _options: &Value, seed: u64) -> Option<Computer> {
        let seat = seat_of(role)?;
        bot::choose(self, seat, seed).map(Computer::Act)
    }
}

#[cfg(test)]
mod tests;
