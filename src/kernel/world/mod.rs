//! The live town: who is connected, where everyone stands, and how news reaches them.
//!
//! **One owner.** All live state belongs to a single [`World`] value, owned by one task
//! (`task::run`) that takes [`Request`]s from a queue and handles them one at a time. We chose
//! this over shared state behind locks because every interesting action touches several players
//! at once (a `say` reads a room and writes to everyone in it, a `go` changes two rooms): with
//! one owner each action is atomic by construction, there is no lock order to get wrong, and the
//! order in which the world handled things is the order in which everyone sees them. Handling a
//! verb takes microseconds, so one task is not the bottleneck; slow work (password hashing,
//! disk I/O, the computer's thinking) is sent elsewhere and never awaited on this task.
//!
//! Verbs never write to sockets. A verb handler gets `&mut World` and a [`Cx`] in which it leaves
//! notices for other players, and writes for the database each paired with the undo that puts
//! the world back; the task delivers the notices once the writes are committed, and runs the
//! undos if they are not (see `outbox`). That keeps every handler a plain function that tests
//! can call directly, and keeps the world from running ahead of its database.

pub mod build;
pub mod built_in;
pub mod carry;
mod context;
mod delivery;
pub mod export;
#[cfg(feature = "testing")]
pub mod fingerprint;
mod followers;
mod guard;
pub mod house;
pub mod load;
mod lock;
pub mod map;
mod outage;
mod outbox;
mod players;
mod presence;
pub mod programs;
pub mod sessions;
mod task;
pub mod tournaments;
pub mod views;

pub use context::{Cx, Effect, Extension, Handed, Notice, Save, Spoken, Undo};
pub use delivery::{
    Backlog, BoardMsg, Carrier, Delivery, Drained, Event, MAX_BACKLOG, MAX_BACKLOG_BYTES, Out,
    Said, Sink, Source, To, channel, hosted,
};
pub use house::{COMPUTER_ID, COMPUTER_NAME, HOUSE, SERVER_ID, SERVER_NAME, is_house};
pub use load::{WorldError, load, load_town};
pub use map::{Map, RoomIdx, ThingKind};
pub use outbox::{Released, Unavailable};
pub use players::Player;
pub use presence::{Entered, Leaving};
#[cfg(feature = "testing")]
pub use task::WeakWorldHandle;
pub use task::{
    Broken, Commands, ELSEWHERE, Env, Job, Request, Taken, TaskOptions, WorldHandle, spawn,
};

use std::any::Any;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use tokio::time::Instant;

use crate::game_api::Template;
use crate::identity::Directory;
use sessions::{Session, SessionId};

/// An identity's id, as stored (`agents.agent_id`). Shared cheaply because notices carry it.
pub type AgentId = Arc<str>;

/// Whether two ids name the same agent. Most ids the world compares are copies of the one it
/// keeps (a command's actor, a room's occupants), and `Arc<str>`'s own `==` compares the text
/// even then.
pub fn same_agent(a: &AgentId, b: &AgentId) -> bool {
    Arc::ptr_eq(a, b) || a == b
}

/// What a long poll waits on: a session's moves, a tournament's rounds, or what asks an
/// agent to play (an invitation naming them made or answered, a game of theirs begun or ended:
/// a lichess bot's event stream). Each has its own channel, so a change wakes only those who
/// wait on it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Awaited {
    Session(SessionId),
    Tournament(u32),
    Agent(AgentId),
}

/// One front-end connection, numbered so a stale connection can be told from its successor.
pub type ConnId = u64;

/// Which front end a command came through, for the few answers that differ (e.g. `help`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Face {
    Telnet,
    Mcp,
    Rest,
}

impl Face {
    pub fn name(self) -> &'static str {
        match self {
            Face::Telnet => "telnet",
            Face::Mcp => "mcp",
            Face::Rest => "rest",
        }
    }
}

/// The connection number of agents present without a connection.
pub const AGENT_CONN: ConnId = 0;

/// What a verb does after a change to a session (a match's door becoming a plaque).
pub type SessionHook = fn(&mut World, &mut Cx, SessionId);

/// What a verb does as time passes (the house filling a queue that has waited long enough).
pub type TickHook = fn(&mut World, &mut Cx, Instant);

/// The live state of the town.
pub struct World {
    pub map: Map,
    /// The games the town knows, as the game modules listed them (the world names none).
    templates: Vec<&'static Template>,
    /// Looked up for every hearer of every line: foldhash, seeded at random, is several times
    /// quicker than SipHash and still no map a stranger can choose names to flood.
    players: HashMap<AgentId, Player, foldhash::fast::RandomState>,
    /// Who is in each room, in order of arrival; indexed like `map.rooms`.
    occupants: Vec<Vec<AgentId>>,
    pub directory: Arc<Directory>,
    sessions: BTreeMap<SessionId, Session>,
    /// Each player's sessions, oldest first (a player's page and `GET /sessions` read these,
    /// not the whole town's).
    played: HashMap<String, Vec<SessionId>>,
    /// Who hears no one from the town now, and which game keeps them ([`Game::secluded`]):
    /// kept with each session's deadline, so an undone command puts it back too.
    ///
    /// [`Game::secluded`]: crate::game_api::Game::secluded
    secluded: HashMap<AgentId, SessionId>,
    next_session: SessionId,
    /// Sessions that wait for their players' agreement (see [`sessions::invite`]).
    invitations: BTreeMap<SessionId, sessions::invite::Invitation>,
    /// How long an invitation waits for its answers.
    invitation_lapse: std::time::Duration,
    /// How much one builder may own.
    build_quota: build::Quota,
    /// The built objects their owners let every builder change (`@chmod +w`).
    writable: std::collections::BTreeSet<map::ObjNum>,
    /// Programmed verbs, and the runs of them under way.
    programs: programs::Programs,
    /// Who waits for which session to change (see `watch_session`).
    ticks: HashMap<Awaited, tokio::sync::watch::Sender<u64>>,
    /// How many `ticks` may hold before those nobody waits on are dropped (twice what was
    /// left the last time, so that dropping costs little however many wait).
    ticks_pruned_at: usize,
    /// Wakes whoever follows the whole town (its map on the web); see [`World::watch_town`].
    town: tokio::sync::watch::Sender<u64>,
    /// How many commands may have changed the town (see [`World::town_version`]).
    town_version: u64,
    /// Who watches which session (besides its players).
    watchers: HashMap<SessionId, Vec<followers::Watcher>>,
    /// Rooms whose occupants follow a session as watchers (a match's building).
    bound_rooms: HashMap<SessionId, RoomIdx>,
    /// What verbs must do after any change to a session (see [`World::on_session_change`]).
    session_hooks: Vec<SessionHook>,
    /// What verbs must do as time passes, once a second (see [`World::on_tick`]).
    tick_hooks: Vec<TickHook>,
    /// Games' own state in the town (see [`Extension`]).
    extensions: Vec<Box<dyn Extension>>,
    /// The game clock: how fast game time runs, and where wall time stood when the world began
    /// (game time follows the runtime's clock, so tests may pause or scale it).
    time: house::GameClock,
    /// When each session's next deadline falls due.
    deadlines: house::Deadlines,
    /// Commands whose writes are on their way to the database.
    outbox: outbox::Outbox,
    /// Where sessions' seeds come from.
    seeds: Seeds,
    /// How often each identity may change anything, whatever the face.
    writes: crate::limits::Limiter<AgentId>,
    /// How often each identity may read a game's state, whatever the face.
    reads: crate::limits::Limiter<AgentId>,
    /// Running sessions an identity may take part in and still start another (0: no limit).
    max_sessions: usize,
    /// An external engine plays some of the computer's levels (`--engine`): its anchored
    /// ratings, the built-in engine's, do not hold, so it plays casual games only.
    external_engine: bool,
    /// Who plays well: every rated and recorded result so far.
    ratings: crate::ratings::Ledger,
    /// Errors apart from skill, per identity and game (games that have ended).
    conduct: crate::ratings::conduct::Book,
    /// The town's tournaments (see [`tournaments`]).
    tournaments: tournaments::Tournaments,
    /// The sessions here that copy a game world's (see [`sessions::follow`]).
    following: sessions::follow::Following,
}

/// Where sessions' randomness comes from. A seed decides hidden things (the cards to come, the
/// computer's choices), so it is drawn by the server alone, never taken from a caller.
enum Seeds {
    /// The operating system's CSPRNG: nobody can predict it.
    Os,
    /// An operator's fixed seed (`--seed`), so that a run can be reproduced.
    Reproducible(Box<rand::rngs::StdRng>),
}

impl World {
    /// Takes the ratings as stored (at start-up).
    pub fn restore_ratings(&mut self, ledger: crate::ratings::Ledger) {
        self.ratings = ledger;
        // The day's rated games between each pair of owners are counted again from the games
        // that ended, so a restart grants no pair more than its daily few.
        let decisions: Vec<crate::ratings::Decided> = self
            .sessions
            .values()
            .filter(|s| s.rated && s.game.is_terminal())
            .filter_map(|s| {
                let day = s.log.last()?.created_at.get(..10)?;
                s.decision(|agent| self.directory.owner_of(agent), day)
            })
            .collect();
        for d in &decisions {
            self.ratings.met(d);
        }
    }

    pub fn ratings(&self) -> &crate::ratings::Ledger {
        &self.ratings
    }

    pub fn conduct(&self) -> &crate::ratings::conduct::Book {
        &self.conduct
    }

    /// Lets each identity make `rate` changes a second, in bursts of `burst` (0: no limit).
    pub fn limit_writes(&mut self, rate: f64, burst: u32) {
        self.writes = crate::limits::Limiter::new(rate, burst);
    }

    /// Admits one change by `who`, from any face, or says when to try again: opening another
    /// connection or using another face buys nobody more turns.
    pub fn admit_write(&self, who: &AgentId, now: Instant) -> Result<(), sessions::HostError> {
        self.writes
            .take(who, now)
            .map_err(|wait| sessions::HostError {
                code: sessions::ErrorCode::RateLimited,
                message: format!(
                    "You are acting too fast; try again in {}.",
                    crate::limits::seconds(wait)
                ),
                retry_after: Some(wait),
                detail: None,
            })
    }

    /// Lets each identity read a game's state `rate` times a second, in bursts of `burst`
    /// (0: no limit).
    pub fn limit_reads(&mut self, rate: f64, burst: u32) {
        self.reads = crate::limits::Limiter::new(rate, burst);
    }

    /// Admits one read of a game's state by `who`, or says when to try again.
    pub fn admit_read(&self, who: &AgentId, now: Instant) -> Result<(), sessions::HostError> {
        self.reads
            .take(who, now)
            .map_err(|wait| sessions::HostError {
                code: sessions::ErrorCode::RateLimited,
                message: format!(
                    "You are reading too fast; try again in {}.",
                    crate::limits::seconds(wait)
                ),
                retry_after: Some(wait),
                detail: None,
            })
    }

    /// Says an external engine plays some of the computer's levels (see `external_engine`).
    pub fn consult_external_engine(&mut self, on: bool) {
        self.external_engine = on;
    }

    /// Lets an identity that takes part in `max` running sessions start no more (0: no limit).
    pub fn limit_sessions(&mut self, max: usize) {
        self.max_sessions = max;
    }

    /// How many running sessions an identity may take part in (0: no limit); a game's own
    /// waiting rooms are held to it too.
    pub fn sessions_limit(&self) -> usize {
        self.max_sessions
    }

    /// Draws sessions' seeds from `seed` from now on, reproducibly.
    pub fn reproducible(&mut self, seed: u64) {
        use rand::SeedableRng;
        self.seeds = Seeds::Reproducible(Box::new(rand::rngs::StdRng::seed_from_u64(seed)));
    }

    /// A seed for a new session.
    fn draw_seed(&mut self) -> u64 {
        use rand::Rng;
        match &mut self.seeds {
            Seeds::Os => rand::rand_core::UnwrapErr(rand::rngs::SysRng).next_u64(),
            Seeds::Reproducible(rng) => rng.next_u64(),
        }
    }
}

impl World {
    /// The game's own state of type `T`, made on first use.
    pub fn ext<T: Extension + Default>(&mut self) -> &mut T {
        let i = match self
            .extensions
            .iter()
            .position(|e| (&**e as &dyn Any).is::<T>())
        {
            Some(i) => i,
            None => {
                self.extensions.push(Box::new(T::default()));
                self.extensions.len() - 1
            }
        };
        #[expect(
            clippy::expect_used,
            reason = "`i` was found, or pushed, as a `T` just above"
        )]
        (&mut *self.extensions[i] as &mut dyn Any)
            .downcast_mut()
            .expect("the type was checked")
    }

    /// The game's own state of type `T`, if it has any yet.
    pub fn ext_ref<T: Extension>(&self) -> Option<&T> {
        self.extensions
            .iter()
            .find_map(|e| (&**e as &dyn Any).downcast_ref())
    }

    /// Forgets someone who left the town: what they watched, and whatever games kept for them.
    pub fn forget(&mut self, who: &AgentId) {
        self.unwatch_all(who);
        for e in &mut self.extensions {
            e.forget(who);
        }
    }

    /// Makes every game timer run `scale` times faster (`--time-scale`), for tests and demos.
    pub fn scale_time(&mut self, scale: f64) {
        self.time = house::GameClock::new(scale);
    }
}
impl World {
    pub fn new(
        mut map: Map,
        directory: Arc<Directory>,
        templates: Vec<&'static Template>,
    ) -> World {
        let occupants = vec![Vec::new(); map.rooms.len()];
        let file_verbs = std::mem::take(&mut map.verbs);
        let mut world = World {
            map,
            templates,
            players: HashMap::default(),
            occupants,
            directory,
            sessions: BTreeMap::new(),
            played: HashMap::new(),
            secluded: HashMap::new(),
            next_session: SessionId::FIRST,
            invitations: BTreeMap::new(),
            invitation_lapse: sessions::invite::DEFAULT_LAPSE,
            build_quota: build::Quota::default(),
            writable: Default::default(),
            programs: programs::Programs::default(),
            ticks: HashMap::new(),
            ticks_pruned_at: 4_096,
            town: tokio::sync::watch::channel(0).0,
            town_version: 0,
            watchers: HashMap::new(),
            bound_rooms: HashMap::new(),
            // Tournaments take their games' results, whatever games the town has.
            session_hooks: vec![World::tournament_game_changed],
            // Invitations lapse, and tournaments begin and pair, as time passes.
            tick_hooks: vec![|w, cx, _| w.lapse_invitations(cx), World::tournaments_tick],
            extensions: Vec::new(),
            time: house::GameClock::new(1.0),
            deadlines: Default::default(),
            outbox: Default::default(),
            seeds: Seeds::Os,
            writes: crate::limits::Limiter::new(0.0, 1),
            reads: crate::limits::Limiter::new(0.0, 1),
            max_sessions: 0,
            external_engine: false,
            ratings: crate::ratings::Ledger::default(),
            conduct: crate::ratings::conduct::Book::default(),
            tournaments: Default::default(),
            following: Default::default(),
        };
        world.restore_file_verbs(file_verbs);
        world
    }

    /// A player who is here. Verbs run only for an actor who is here (the verb table checks
    /// before it runs one, on every face), and look up anyone else with
    /// [`World::find_player`]; a miss is a bug in moot, which the world task's panic boundary
    /// turns into one refused command.
    pub fn player(&self, id: &AgentId) -> &Player {
        match self.players.get(id) {
            Some(p) => p,
            None => panic!("a player who must be here is not"),
        }
    }

    /// A receiver whose `changed()` fires after the town may have changed (anything was
    /// done and stored); its followers read it again, as often as they like to.
    pub fn watch_town(&self) -> tokio::sync::watch::Receiver<u64> {
        self.town.subscribe()
    }

    /// How many commands may have changed the town so far: a follower across the broker asks
    /// "after version n", holding no watch between its questions, so the count goes on whether
    /// anyone follows or not.
    pub fn town_version(&self) -> u64 {
        self.town_version
    }

    /// Counts a change to the town and wakes its followers; called once what changed it is
    /// stored. With nobody following (the usual case) there is nobody to wake.
    pub(super) fn town_changed(&mut self) {
        self.town_version += 1;
        if self.town.receiver_count() > 0 {
            self.town.send_replace(self.town_version);
        }
    }

    /// The player `id`, if connected (an agent between calls may not be).
    pub fn find_player(&self, id: &AgentId) -> Option<&Player> {
        self.players.get(id)
    }

    /// [`World::player`], to change.
    pub fn player_mut(&mut self, id: &AgentId) -> &mut Player {
        match self.players.get_mut(id) {
            Some(p) => p,
            None => panic!("a player who must be here is not"),
        }
    }

    pub fn players(&self) -> impl Iterator<Item = &Player> {
        self.players.values()
    }

    /// Who is in `room` (nobody, in a room that does not exist).
    pub fn occupants(&self, room: RoomIdx) -> &[AgentId] {
        self.occupants.get(room).map_or(&[], Vec::as_slice)
    }

    /// Adds a room to the town while it runs (a match's building); rooms are never removed, so
    /// indexes stay valid.
    pub fn add_room(&mut self, room: map::Room) -> RoomIdx {
        self.occupants.push(Vec::new());
        self.map.add_room(room)
    }

    /// Calls `hook` after every change to any session (a game's action, a deadline), inside
    /// the same command, so what it changes is stored or undone with the change.
    pub fn on_session_change(&mut self, hook: SessionHook) {
        self.session_hooks.push(hook);
    }

    /// Calls `hook` once a second, as the server.
    pub fn on_tick(&mut self, hook: TickHook) {
        self.tick_hooks.push(hook);
    }

    /// Whether anything must happen as time passes.
    pub fn has_tick_hooks(&self) -> bool {
        !self.tick_hooks.is_empty()
    }

    /// Runs the hooks that wait on time.
    pub fn ticked(&mut self, cx: &mut Cx, now: Instant) {
        for hook in self.tick_hooks.clone() {
            hook(self, cx, now);
        }
    }

    /// Runs the hooks for a change to `sid`.
    pub(crate) fn session_changed(&mut self, cx: &mut Cx, sid: SessionId) {
        for hook in self.session_hooks.clone() {
            hook(self, cx, sid);
        }
    }

    /// Makes everyone in `room` follow session `sid` as a watcher, for as long as they are in
    /// it (a match's building: walking in is watching).
    pub fn bind_room(&mut self, room: RoomIdx, sid: SessionId) {
        self.bound_rooms.insert(sid, room);
    }

    /// The session `room` follows, if any.
    pub fn room_session(&self, room: RoomIdx) -> Option<SessionId> {
        self.bound_rooms
            .iter()
            .find(|(_, r)| **r == room)
            .map(|(s, _)| *s)
    }

    /// The room that follows session `sid`, if any.
    pub fn session_room(&self, sid: SessionId) -> Option<RoomIdx> {
        self.bound_rooms.get(&sid).copied()
    }

    fn deliver(&mut self, notices: Vec<Notice>) {
        for n in notices {
            if let Some(p) = self.players.get_mut(&n.to) {
                match (&p.sink, &n.what) {
                    (Sink::Connection { .. }, _) => p.sink.notice(n.what),
                    // A program's text is not wrapped: nothing to tell it.
                    (Sink::Mailbox, Delivery::Display(_) | Delivery::Event(_)) => {}
                    // A program reads the line; the news is for clients that draw it.
                    (Sink::Mailbox, Delivery::Heard(said)) => {
                        p.post(Delivery::Line(said.line.clone()))
                    }
                    (Sink::Mailbox, _) => p.post(n.what),
                }
            }
        }
    }
}
