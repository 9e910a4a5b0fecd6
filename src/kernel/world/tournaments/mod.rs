//! Tournaments in the town: who organised each, whom its field admits, who entered, when it
//! starts and ends, and the session each of its pairings is played in. The pure ledger
//! ([`crate::tournament`]) pairs and scores; this plays it: it starts an event when its time
//! comes, makes a session for each pairing (the players agreed when they joined, so nobody is
//! asked again, and nobody is put into a game they did not join the event for), feeds each
//! game's result back as it ends, pairs the next round, and says who won.
//!
//! Each event is kept whole, as one row of `kept_state`, written with the command that changed
//! it: the last move of a game, its result in the event and the next round's sessions are
//! stored together or not at all.

mod play;
pub mod view;

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::sessions::{ErrorCode, HostError, SessionId};
use super::{AgentId, Awaited, Cx, World};
use crate::store::Kind;
use crate::store::keys::{self, Kept, StateRow};
use crate::tournament::{Format, Ledger};

/// The module name its rows are kept under.
const KEPT_AS: &str = "tournament";

/// The most entrants one event takes: a Swiss of 256 pairs in about a millisecond a round; a
/// round-robin of 32 plays 31 rounds; an arena of 1,000 pairs whoever is free at once.
pub fn max_entrants(f: Format) -> usize {
    match f {
        Format::Swiss { .. } => 256,
        Format::RoundRobin => 32,
        Format::Arena => 1000,
    }
}
/// The most events scheduled or running at once, across the town.
pub const MAX_LIVE: usize = 32;
/// The most rounds a Swiss may have.
pub const MAX_ROUNDS: u32 = 15;
/// The longest arena, in minutes of game time.
pub const MAX_ARENA_MINUTES: u32 = 24 * 60;
/// How far ahead an event may be scheduled.
pub const MAX_LEAD: Duration = Duration::from_secs(7 * 24 * 3600);
/// The most games one arena plays: it stops pairing at this many (each event is kept whole,
/// and rewritten as each of its games ends).
pub const MAX_ARENA_GAMES: usize = 4096;
/// How many events one owner (a person and their agents) may schedule in a day, a wizard aside:
/// each is told to the whole town.
pub const SCHEDULED_A_DAY: usize = 3;
/// How long, in game time, an arena past its end waits for its games under way before it ends
/// without them.
pub const ARENA_GRACE: Duration = Duration::from_secs(10 * 60);

/// Whom an event admits: a person can read, before joining, whether agents play in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Field {
    /// People (telnet, the web).
    pub people: bool,
    /// AI agents (tokens made by `POST /agents` or `token`).
    pub agents: bool,
    /// The house's Computer, entered by the organiser as an anchor.
    pub house: bool,
}

impl Field {
    /// Whether someone of `kind` may join.
    pub fn admits(self, kind: Kind) -> bool {
        match kind {
            Kind::Person => self.people,
            Kind::Agent => self.agents,
            Kind::House => self.house,
        }
    }

    /// The field in words ("people and agents, with the house's Computer").
    pub fn words(self) -> String {
        let mut who = match (self.people, self.agents) {
            (true, true) => "people and agents".to_owned(),
            (true, false) => "people only (no agents)".to_owned(),
            (false, true) => "agents only (no people)".to_owned(),
            (false, false) => "nobody but the house".to_owned(),
        };
        if self.house {
            who.push_str(", with the house's Computer");
        }
        who
    }
}

/// Where an event stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Open to join; it starts at its time.
    Scheduled,
    Running,
    Finished,
    /// Its time came with fewer than two players.
    Cancelled,
}

impl Status {
    pub fn word(self) -> &'static str {
        match self {
            Status::Scheduled => "scheduled",
            Status::Running => "running",
            Status::Finished => "finished",
            Status::Cancelled => "cancelled",
        }
    }

    fn live(self) -> bool {
        matches!(self, Status::Scheduled | Status::Running)
    }
}

/// One entrant, in the order they joined (their place in the ledger).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub agent: String,
    pub name: String,
    pub kind: String,
}

/// One event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tournament {
    pub id: u32,
    pub name: String,
    /// The template every game is a session of (`chess.v1`).
    pub template: String,
    /// The template's options every game is made with (its `clock`).
    pub options: Value,
    pub rated: bool,
    /// An arena's length, in minutes of game time.
    pub minutes: Option<u32>,
    pub field: Field,
    pub organizer: String,
    pub organizer_name: String,
    /// When it starts and (an arena) stops pairing, in milliseconds since 1970 on the wall.
    pub starts_at: u64,
    pub ends_at: Option<u64>,
    pub status: Status,
    pub entries: Vec<Entry>,
    pub ledger: Ledger,
    /// The session each pairing is played in, indexed as the ledger's rounds.
    pub sessions: Vec<Vec<Option<u64>>>,
    /// Who won, in words, once it is over.
    pub result: Option<String>,
    /// When it was scheduled, in milliseconds since 1970 (0 for an event kept before this
    /// was).
    #[serde(default)]
    pub created_at: u64,
}

impl Tournament {
    /// The entrant `agent` is, if they entered.
    pub fn entrant_of(&self, agent: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.agent == agent)
    }

    /// Whether any game of it is being played.
    pub fn under_way(&self) -> bool {
        self.ledger
            .games()
            .any(|p| p.second.is_some() && p.outcome.is_none())
    }

    /// The format in words ("Swiss, 5 rounds").
    pub fn format_words(&self) -> String {
        match self.ledger.format {
            Format::Swiss { rounds } => format!("Swiss, {rounds} rounds"),
            Format::RoundRobin => "round-robin".to_owned(),
            Format::Arena => format!("arena, {} minutes", self.minutes.unwrap_or_default()),
        }
    }

    /// Its one-line title ("#3 Friday blitz: chess, Swiss, 5 rounds, rated").
    pub fn title(&self) -> String {
        format!(
            "#{} {}: {}, {}, {}",
            self.id,
            self.name,
            crate::ratings::game_name(&self.template),
            self.format_words(),
            if self.rated { "rated" } else { "casual" }
        )
    }
}

/// The town's tournaments, and which pairing each session plays.
#[derive(Debug, Default)]
pub struct Tournaments {
    by_id: BTreeMap<u32, Tournament>,
    /// Session → (event, round, game), rebuilt from the events whenever one changes.
    by_session: HashMap<SessionId, (u32, usize, usize)>,
}

impl Tournaments {
    /// Whether session `sid` is a game of an event.
    pub(in crate::world) fn plays(&self, sid: SessionId) -> bool {
        self.by_session.contains_key(&sid)
    }

    fn index(&mut self, t: &Tournament) {
        self.by_session.retain(|_, (id, _, _)| *id != t.id);
        for (r, round) in t.sessions.iter().enumerate() {
            for (g, sid) in round.iter().enumerate() {
                if let Some(sid) = sid {
                    self.by_session.insert(SessionId::from(*sid), (t.id, r, g));
                }
            }
        }
    }

    fn put(&mut self, t: Tournament) {
        self.index(&t);
        self.by_id.insert(t.id, t);
    }

    /// What it holds, for the tests' fingerprint of the world (the session index follows
    /// from the events).
    #[cfg(feature = "testing")]
    pub(in crate::world) fn fingerprint(&self) -> String {
        format!("{:?}", self.by_id)
    }

    fn next_id(&self) -> u32 {
        self.by_id.keys().next_back().map_or(1, |n| n + 1)
    }
}

/// What `schedule` asks for, checked by [`World::schedule_tournament`].
#[derive(Debug, Clone)]
pub struct Plan {
    pub name: Option<String>,
    /// The game's word (`chess`) or template id (`chess.v1`).
    pub game: String,
    pub format: Format,
    pub minutes: Option<u32>,
    pub options: Value,
    pub rated: bool,
    pub field: Field,
    /// How long from now it starts, in game time.
    pub starts_in: Duration,
}

/// Milliseconds since 1970 of a wall time.
fn millis(t: SystemTime) -> u64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn refused(code: ErrorCode, message: impl Into<String>) -> HostError {
    HostError::new(code, message)
}

impl World {
    /// Every event, newest first.
    pub fn tournaments(&self) -> impl Iterator<Item = &Tournament> {
        self.tournaments.by_id.values().rev()
    }

    pub fn tournament(&self, id: u32) -> Option<&Tournament> {
        self.tournaments.by_id.get(&id)
    }

    /// The event `id`, or the answer for one that does not exist.
    pub fn tournament_or_not_found(&self, id: u32) -> Result<&Tournament, HostError> {
        self.tournament(id).ok_or_else(|| {
            refused(
                ErrorCode::NotFound,
                format!("There is no tournament #{id}; `tournaments` lists them."),
            )
        })
    }

    /// Milliseconds since 1970, now, on the town's clock.
    pub fn now_millis(&self) -> u64 {
        millis(self.wall_now())
    }

    /// Schedules an event from `plan`, organised by the actor: a wizard's any number, anyone
    /// else's one at a time.
    pub fn schedule_tournament(&mut self, cx: &mut Cx, plan: Plan) -> Result<u32, HostError> {
        let invalid = |m: String| refused(ErrorCode::InvalidRequest, m);
        let t = self
            .templates()
            .find(|t| t.id == plan.game || t.word().eq_ignore_ascii_case(&plan.game))
            .ok_or_else(|| {
                let known: Vec<&str> = self
                    .templates()
                    .filter(|t| playable(t))
                    .map(|t| t.word())
                    .collect();
                invalid(format!(
                    "There is no game `{}` to play a tournament of; these can be: {}.",
                    plan.game,
                    known.join(", ")
                ))
            })?;
        if t.roles.len() != 2 || t.secludes {
            return Err(invalid(format!(
                "A tournament pairs two players a game; {} is not a game for two.",
                t.title
            )));
        }
        let probe = (t.new)(0, &plan.options).map_err(|e| {
            invalid(format!(
                "{} cannot be played with that clock: {}",
                t.title,
                HostError::from(e).message
            ))
        })?;
        if probe.deadline().is_none() {
            return Err(invalid(format!(
                "A tournament's games need a time limit (`clock 5+3` for chess, `clock 30s` a \
                 move), so that a round ends even if a player stops moving: {} as asked has none.",
                t.title
            )));
        }
        if plan.rated {
            if crate::ratings::board(t, &plan.options).is_none() {
                return Err(invalid(format!(
                    "A {} tournament cannot be rated: {} keeps no rating with these options.",
                    t.title, t.title
                )));
            }
            if plan.field.house && self.external_engine {
                return Err(invalid(
                    "A rated tournament cannot take the house in this town: an external engine \
                     plays the Computer, and its fixed ratings are the built-in engine's. Make it \
                     casual, or leave the house out."
                        .to_owned(),
                ));
            }
            if plan.field.house && (t.anchor_of)(&plan.options).is_none() {
                return Err(invalid(format!(
                    "A rated {} tournament cannot take the house: it has no fixed rating to \
                     play at, so its games would not count. Make it casual, or leave the house out.",
                    t.title
                )));
            }
        }
        if plan.field.house && !t.house_plays {
            return Err(invalid(format!("The house does not play {}.", t.title)));
        }
        if !plan.field.people && !plan.field.agents {
            return Err(invalid(
                "A tournament must be open to people, agents, or both.".to_owned(),
            ));
        }
        match plan.format {
            Format::Swiss { rounds } if rounds == 0 || rounds > MAX_ROUNDS => {
                return Err(invalid(format!("A Swiss has 1 to {MAX_ROUNDS} rounds.")));
            }
            Format::Arena
                if !plan
                    .minutes
                    .is_some_and(|m| (1..=MAX_ARENA_MINUTES).contains(&m)) =>
            {
                return Err(invalid(format!(
                    "An arena lasts 1 to {MAX_ARENA_MINUTES} minutes."
                )));
            }
            _ => {}
        }
        if plan.starts_in > MAX_LEAD {
            return Err(invalid(
                "A tournament may be scheduled at most 7 days ahead.".to_owned(),
            ));
        }
        let live = self.tournaments().filter(|t| t.status.live()).count();
        if live >= MAX_LIVE {
            return Err(refused(
                ErrorCode::Conflict,
                format!(
                    "The town has {live} tournaments scheduled or running, as many as it holds; try again when one is over."
                ),
            ));
        }
        let (wizard, organizer_name) = (self.is_wizard(&cx.actor), self.name_of(&cx.actor));
        let now_ms = self.now_millis();
        if !wizard {
            // One owner's identities (a person and their agents) count as one organiser.
            let owner = self.directory.owner_of(&cx.actor);
            let theirs: Vec<&Tournament> = self
                .tournaments()
                .filter(|t| self.directory.owner_of(&t.organizer) == owner)
                .collect();
            if let Some(mine) = theirs.iter().find(|t| t.status.live()) {
                return Err(refused(
                    ErrorCode::Conflict,
                    format!(
                        "You already organise tournament #{}; a player may run one at a time (a \
                         wizard, any number).",
                        mine.id
                    ),
                ));
            }
            let today = theirs
                .iter()
                .filter(|t| t.created_at + 24 * 3600 * 1000 > now_ms)
                .count();
            if today >= SCHEDULED_A_DAY {
                return Err(refused(
                    ErrorCode::Conflict,
                    format!(
                        "You have scheduled {today} tournaments today, as many as a player may; \
                         try again tomorrow."
                    ),
                ));
            }
        }
        let id = self.tournaments.next_id();
        let now = self.wall_now();
        let starts = now + self.time.real(plan.starts_in);
        let name: String = plan
            .name
            .map(|n| crate::text::clean(&n).trim().chars().take(60).collect())
            .filter(|n: &String| !n.is_empty())
            .unwrap_or_else(|| format!("{} {}", t.word(), plan_word(plan.format)));
        let mut ledger = Ledger::new(plan.format);
        let mut entries = Vec::new();
        if plan.field.house {
            ledger.enter(
                (t.anchor_of)(&plan.options).unwrap_or(crate::ratings::glicko2::START.rating),
            );
            entries.push(Entry {
                agent: super::COMPUTER_ID.to_owned(),
                name: self
                    .directory
                    .name_of(super::COMPUTER_ID)
                    .unwrap_or_else(|| "the Computer".to_owned()),
                kind: "house".to_owned(),
            });
        }
        let tournament = Tournament {
            id,
            name,
            template: t.id.to_owned(),
            options: plan.options,
            rated: plan.rated,
            minutes: plan.minutes,
            field: plan.field,
            organizer: cx.actor.to_string(),
            organizer_name,
            starts_at: millis(starts),
            ends_at: None,
            status: Status::Scheduled,
            entries,
            ledger,
            sessions: Vec::new(),
            result: None,
            created_at: now_ms,
        };
        let line = format!(
            "Tournament {} is scheduled by {}, open to {}: `join tournament {id}`.",
            tournament.title(),
            tournament.organizer_name,
            tournament.field.words()
        );
        self.keep_tournament(cx, tournament);
        self.tell_town(cx, &line);
        Ok(id)
    }

    /// Enters the actor in event `id` (or, having withdrawn, back in). A Swiss or an arena
    /// takes players while it runs; a round-robin, whose rounds are fixed, only before.
    pub fn join_tournament(&mut self, cx: &mut Cx, id: u32) -> Result<String, HostError> {
        let t = self.tournament_or_not_found(id)?;
        let me = cx.actor.to_string();
        let kind = self.directory.kind_of(&me);
        if !t.status.live() {
            return Err(refused(
                ErrorCode::Conflict,
                format!("Tournament #{id} is {}.", t.status.word()),
            ));
        }
        if !t.field.admits(kind) {
            return Err(refused(
                ErrorCode::Forbidden,
                format!(
                    "Tournament #{id} is open to {}; you cannot join it.",
                    t.field.words()
                ),
            ));
        }
        let mut next = t.clone();
        let entrant = next.entrant_of(&me);
        if entrant.is_some_and(|e| !next.ledger.withdrawn.contains(&e)) {
            return Err(refused(
                ErrorCode::Conflict,
                format!("You are already in tournament #{id}."),
            ));
        }
        if next.status == Status::Running && next.ledger.format == Format::RoundRobin {
            return Err(refused(
                ErrorCode::Conflict,
                format!(
                    "Tournament #{id} is a round-robin under way: its rounds were drawn for \
                     those who started it."
                ),
            ));
        }
        self.one_of_each_owner(&next, &me)?;
        let line = match entrant {
            Some(e) => {
                next.ledger.withdrawn.remove(&e);
                format!("You are back in tournament {}.", next.title())
            }
            None => {
                let most = max_entrants(next.ledger.format);
                if next.entries.len() >= most {
                    return Err(refused(
                        ErrorCode::Conflict,
                        format!("Tournament #{id} is full ({most} players)."),
                    ));
                }
                let rating = self.seeding_rating(&next, &me);
                next.ledger.enter(rating);
                next.entries.push(Entry {
                    agent: me.clone(),
                    name: self.name_of(&cx.actor),
                    kind: kind.name().to_owned(),
                });
                format!(
                    "You join tournament {} ({} players so far). {}",
                    next.title(),
                    next.ledger.active().len(),
                    match next.status {
                        Status::Running => "It is under way: you are paired from the next round.",
                        _ => "You will be told when your first game begins.",
                    }
                )
            }
        };
        self.keep_tournament(cx, next);
        Ok(line)
    }

    /// Takes the actor out of event `id`'s later pairings; a game of theirs under way is
    /// theirs to finish.
    pub fn withdraw_from_tournament(&mut self, cx: &mut Cx, id: u32) -> Result<String, HostError> {
        let t = self.tournament_or_not_found(id)?;
        let e = t
            .entrant_of(&cx.actor)
            .filter(|e| !t.ledger.withdrawn.contains(e))
            .ok_or_else(|| {
                refused(
                    ErrorCode::Conflict,
                    format!("You are not in tournament #{id}."),
                )
            })?;
        if !t.status.live() {
            return Err(refused(
                ErrorCode::Conflict,
                format!("Tournament #{id} is {}.", t.status.word()),
            ));
        }
        let mut next = t.clone();
        next.ledger.withdraw(e);
        let playing = next
            .ledger
            .games()
            .any(|p| p.outcome.is_none() && p.second.is_some() && p.side_of(e).is_some());
        self.keep_tournament(cx, next);
        Ok(if playing {
            format!(
                "You withdraw from tournament #{id}: you are paired no more. Your game under \
                 way is yours to finish."
            )
        } else {
            format!("You withdraw from tournament #{id}: you are paired no more.")
        })
    }

    /// Starts event `id` now, before its time: its organiser or a wizard may.
    pub fn start_tournament_now(&mut self, cx: &mut Cx, id: u32) -> Result<String, HostError> {
        let t = self.tournament_or_not_found(id)?;
        if t.organizer != *cx.actor && !self.is_wizard(&cx.actor) {
            return Err(refused(
                ErrorCode::Forbidden,
                format!(
                    "Only {} (who organises it) or a wizard may start tournament #{id} early.",
                    t.organizer_name
                ),
            ));
        }
        if t.status != Status::Scheduled {
            return Err(refused(
                ErrorCode::Conflict,
                format!("Tournament #{id} is {}.", t.status.word()),
            ));
        }
        if t.ledger.active().len() < 2 {
            return Err(refused(
                ErrorCode::Conflict,
                format!("Tournament #{id} has fewer than two players; wait for more to join."),
            ));
        }
        self.begin_tournament(cx, id);
        Ok(format!("Tournament #{id} begins."))
    }

    /// Refuses `agent` a place in `t` beside another identity of their owner's: a person and
    /// their agents (or alts of one address) never meet in an event, so none can feed another.
    fn one_of_each_owner(&self, t: &Tournament, agent: &str) -> Result<(), HostError> {
        let owner = self.directory.owner_of(agent);
        let alt = t.ledger.active().into_iter().find(|&e| {
            t.entries[e].agent != agent && self.directory.owner_of(&t.entries[e].agent) == owner
        });
        match alt {
            Some(e) => Err(refused(
                ErrorCode::Conflict,
                format!(
                    "{} is in tournament #{} already, and speaks for the same player as you: \
                     one player enters an event once.",
                    t.entries[e].name, t.id
                ),
            )),
            None => Ok(()),
        }
    }

    /// Whether `agent` is a wizard in the town now (one reached over REST, not present, is
    /// not taken for one).
    fn is_wizard(&self, agent: &AgentId) -> bool {
        self.find_player(agent).is_some_and(|p| p.wizard)
    }

    /// `agent`'s name, present or not.
    fn name_of(&self, agent: &AgentId) -> String {
        self.directory
            .name_of(agent)
            .unwrap_or_else(|| agent.to_string())
    }

    /// The rating `agent` is seeded by in `t`: their rating on its board, or a newcomer's.
    fn seeding_rating(&self, t: &Tournament, agent: &str) -> f64 {
        let start = crate::ratings::glicko2::START.rating;
        let Some(template) = self.template(&t.template) else {
            return start;
        };
        match crate::ratings::board(template, &t.options) {
            Some(board) => {
                let owner = self.directory.owner_of(agent);
                self.ratings.rating_on(&owner, &board).rating
            }
            None => start,
        }
    }

    /// Keeps `t` in place of what was there, stored with the command; its waiters are woken
    /// once it is.
    pub(super) fn keep_tournament(&mut self, cx: &mut Cx, t: Tournament) {
        let id = t.id;
        let row = match serde_json::to_string(&t) {
            Ok(value) => StateRow {
                module: KEPT_AS.to_owned(),
                key: id.to_string(),
                value,
            },
            Err(e) => {
                tracing::error!(error = %e, tournament = id, "a tournament does not serialize");
                return;
            }
        };
        let before = self.tournaments.by_id.get(&id).cloned();
        self.tournaments.put(t);
        cx.save(keys::put_state(row), move |w| match before {
            Some(b) => w.tournaments.put(b),
            None => {
                w.tournaments.by_id.remove(&id);
                w.tournaments.by_session.retain(|_, (t, _, _)| *t != id);
            }
        });
        cx.changed.push(Awaited::Tournament(id));
    }

    /// The events as they were stored (at start-up, before the sessions' deadlines run).
    pub fn restore_tournaments(&mut self, kept: &Kept) {
        for (key, value) in kept.state_of(KEPT_AS) {
            match serde_json::from_str::<Tournament>(value) {
                Ok(t) => self.tournaments.put(t),
                Err(e) => tracing::warn!(key, error = %e, "a kept tournament could not be read"),
            }
        }
    }

    /// Tells everyone in the town `line`.
    fn tell_town(&self, cx: &mut Cx, line: &str) {
        let everyone: Vec<AgentId> = self.players().map(|p| p.id.clone()).collect();
        for id in &everyone {
            cx.tell(id, line);
        }
    }
}

/// Whether `t` can be a tournament's game: two alike players, and a time limit a move.
fn playable(t: &crate::game_api::Template) -> bool {
    t.roles.len() == 2
        && !t.secludes
        && (t.new)(0, &serde_json::json!({ "clock": "1m" })).is_ok_and(|g| g.deadline().is_some())
}

fn plan_word(f: Format) -> &'static str {
    match f {
        Format::Swiss { .. } => "Swiss",
        Format::RoundRobin => "round-robin",
        Format::Arena => "arena",
    }
}
