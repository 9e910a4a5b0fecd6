//! The house's own actors and its clock: the computer, who plays any role a template lets it
//! play, and the server actor, who takes a template's deadlines (a flag-fall, a phase's end).
//! Both are identities like any other, so everything they do is an ordinary logged action and
//! a replay meets it at the same point.
//!
//! Game time is measured per session from its start, on the runtime's clock (so tests can
//! pause it) and scaled by `--time-scale`. Each session's next deadline waits in a queue the
//! world task sleeps on; it is rebuilt from the games themselves on start, and checked again
//! when it falls due, so a deadline that a later action moved or undid is never taken.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, SystemTime};

use tokio::time::Instant;

use super::sessions::{Session, SessionId};
use super::{AgentId, Cx, Effect, World};
use crate::game_api::{Computer, GameTime, Reading};

pub const COMPUTER_ID: &str = "computer";
pub const COMPUTER_NAME: &str = "Computer";
pub const SERVER_ID: &str = "server";
pub const SERVER_NAME: &str = "Server";
/// The house's bots, for games with many seats the house may fill (a Werewolf practice
/// match): identities like the computer's, each a player of its own.
pub const BOTS: &[(&str, &str)] = &[
    ("bot-1", "Bot-Abel"),
    ("bot-2", "Bot-Brigid"),
    ("bot-3", "Bot-Cormac"),
    ("bot-4", "Bot-Dervla"),
    ("bot-5", "Bot-Eamon"),
    ("bot-6", "Bot-Fionn"),
    ("bot-7", "Bot-Grainne"),
    ("bot-8", "Bot-Hugh"),
];

/// The house's identities, made at start-up if missing.
pub const HOUSE: &[(&str, &str)] = &[
    (COMPUTER_ID, COMPUTER_NAME),
    (SERVER_ID, SERVER_NAME),
    BOTS[0],
    BOTS[1],
    BOTS[2],
    BOTS[3],
    BOTS[4],
    BOTS[5],
    BOTS[6],
    BOTS[7],
];

/// Whether `agent` is one of the house's players (the computer or a bot): the host acts for
/// them.
pub fn is_house(agent: &str) -> bool {
    agent == COMPUTER_ID || BOTS.iter().any(|b| b.0 == agent)
}

/// Game time, from the runtime's clock.
#[derive(Debug)]
pub(super) struct GameClock {
    /// Game milliseconds per real millisecond.
    scale: f64,
    /// The same moment on the runtime's clock and on the wall.
    origin: (Instant, SystemTime),
    /// How far game time has been moved on by hand (the drill's waits), beyond the clock.
    skew: Duration,
}

impl GameClock {
    pub(super) fn new(scale: f64) -> GameClock {
        GameClock {
            scale: if scale.is_finite() && scale > 0.0 {
                scale
            } else {
                1.0
            },
            origin: (Instant::now(), SystemTime::now()),
            skew: Duration::ZERO,
        }
    }

    /// The wall time at `now`, on the runtime's clock.
    pub(super) fn wall(&self, now: Instant) -> SystemTime {
        self.origin.1 + now.saturating_duration_since(self.origin.0) + self.skew
    }

    /// When this run of moot began, on the wall.
    pub(super) fn began(&self) -> SystemTime {
        self.origin.1
    }

    /// How long `game` of game time lasts on the wall.
    pub(super) fn real(&self, game: Duration) -> Duration {
        game.div_f64(self.scale)
    }

    /// The game time at `now` of a session that began at `started`.
    fn at(&self, started: SystemTime, now: Instant) -> GameTime {
        let real = self.wall(now).duration_since(started).unwrap_or_default();
        (real.as_secs_f64() * 1000.0 * self.scale) as GameTime
    }

    /// When, on the runtime's clock, a session that began at `started` reaches game time `at`.
    fn instant(&self, started: SystemTime, at: GameTime) -> Instant {
        let real = Duration::from_secs_f64(at as f64 / 1000.0 / self.scale);
        let wall = started + real;
        match wall
            .duration_since(self.origin.1)
            .map(|after| after.saturating_sub(self.skew))
        {
            Ok(after) => self.origin.0 + after,
            // Due before this run began: due now.
            Err(_) => self.origin.0,
        }
    }
}

/// Each session's next deadline, by when it falls due.
#[derive(Debug, Default)]
pub(super) struct Deadlines {
    queue: BTreeSet<(Instant, SessionId)>,
    due: HashMap<SessionId, Instant>,
}

impl Deadlines {
    fn set(&mut self, sid: SessionId, when: Option<Instant>) {
        if let Some(old) = self.due.remove(&sid) {
            self.queue.remove(&(old, sid));
        }
        if let Some(w) = when {
            self.due.insert(sid, w);
            self.queue.insert((w, sid));
        }
    }

    fn next(&self) -> Option<Instant> {
        self.queue.first().map(|(w, _)| *w)
    }

    fn take_due(&mut self, now: Instant) -> Vec<SessionId> {
        let mut due = Vec::new();
        while let Some(&(w, sid)) = self.queue.first() {
            if w > now {
                break;
            }
            self.queue.pop_first();
            self.due.remove(&sid);
            due.push(sid);
        }
        due
    }
}

impl World {
    /// Session `s`'s game time now.
    pub fn game_time(&self, s: &Session) -> GameTime {
        self.time.at(s.started, Instant::now())
    }

    /// How many times faster than the wall clock game time runs (`--time-scale`).
    pub fn time_scale(&self) -> f64 {
        self.time.scale
    }

    /// How `viewer` reads session `s` now: its game time, at the town's pace, drawn or as
    /// their screen reader has it.
    pub fn reading(&self, s: &Session, viewer: &AgentId) -> Reading {
        Reading {
            now: self.game_time(s),
            scale: self.time_scale(),
            plain: self.is_present(viewer) && self.player(viewer).display.screenreader,
        }
    }

    /// Session `s` as `viewer` reads it (see [`Session::drawn`]).
    pub fn drawn_for(&self, s: &Session, viewer: &AgentId) -> Vec<String> {
        s.drawn(s.role_of(viewer), self.reading(s, viewer))
    }

    /// When, on the wall, session `s` reached (or will reach) game time `at`.
    pub fn wall_at(&self, s: &Session, at: GameTime) -> SystemTime {
        s.started + self.time.real(Duration::from_millis(at))
    }

    /// The wall time now, on the runtime's clock (what new sessions record as their start).
    pub fn wall_now(&self) -> SystemTime {
        self.time.wall(Instant::now())
    }

    /// Puts session `sid`'s next deadline (if any) in the queue, replacing what was there.
    pub(super) fn schedule(&mut self, sid: SessionId) {
        // A copy's deadlines are its game world's to take.
        let when = self
            .session(sid)
            .filter(|s| !self.is_copy(s.id))
            .and_then(|s| Some((s.started, s.game.deadline()?)))
            .map(|(started, d)| self.time.instant(started, d.at));
        self.deadlines.set(sid, when);
        self.seclude(sid);
    }

    /// Marks who `sid` keeps from hearing the town now, and frees those it no longer keeps.
    fn seclude(&mut self, sid: SessionId) {
        self.secluded.retain(|_, s| *s != sid);
        let Some(s) = self.sessions.get(&sid) else {
            return;
        };
        for p in &s.participants {
            if s.game.secluded(p.role) {
                self.secluded.insert(p.agent.clone(), sid);
            }
        }
    }

    /// The session that keeps `agent` from the town now (a living player's Werewolf match),
    /// if one does.
    pub fn secluded_in(&self, agent: &AgentId) -> Option<SessionId> {
        self.secluded.get(agent).copied()
    }

    /// Why `listener` cannot hear anyone from the town now (a `say` where they stand, a
    /// `page`, a `whisper`), if they cannot: a game they play keeps them.
    pub fn deaf_to_town(&self, listener: &AgentId) -> Option<String> {
        let s = self.session(*self.secluded.get(listener)?)?;
        let name = self
            .find_player(listener)
            .map_or("They", |p| p.name.as_str());
        Some(format!(
            "{name} is playing {} and cannot hear you until the match ends.",
            s.template.title
        ))
    }

    /// Why `actor`'s own programmed verbs cannot run now, if they cannot: the game they play
    /// keeps them apart from the town, in both directions.
    pub fn kept_from_town(&self, actor: &AgentId) -> Option<String> {
        let s = self.session(*self.secluded.get(actor)?)?;
        Some(format!(
            "You are playing {}; the town's verbs wait until the match ends.",
            s.template.title
        ))
    }

    /// Queues every session's deadline (at start, after the replay).
    pub fn schedule_all(&mut self) {
        for sid in self.session_ids() {
            self.schedule(sid);
        }
    }

    /// When the world task must next wake for a deadline.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.deadlines.next()
    }

    /// The sessions whose deadlines have fallen due by `now`, taken off the queue: the world
    /// task takes each as its own job ([`World::take_deadline`]).
    pub fn due_deadlines(&mut self, now: Instant) -> Vec<SessionId> {
        self.deadlines.take_due(now)
    }

    /// Moves every clock of the town on by `by` at once (the drill's waits, which cannot
    /// sleep): what falls due in that time is due now.
    #[cfg(feature = "testing")]
    pub fn pass_time(&mut self, by: Duration) {
        self.time.skew += by;
        self.schedule_all();
    }

    /// Leaves `sid` without a queued deadline until its next change (its deadline met a bug).
    pub fn park_deadline(&mut self, sid: SessionId) {
        self.deadlines.set(sid, None);
    }

    /// Takes session `sid`'s deadline if its game time has come (whatever the queue said:
    /// the game decides), or queues it again. True if it was taken.
    pub fn take_deadline(&mut self, cx: &mut Cx, sid: SessionId) -> bool {
        let Some(s) = self.session(sid).filter(|_| !self.is_copy(sid)) else {
            return false;
        };
        let Some(d) = s.game.deadline() else {
            return false;
        };
        if self.game_time(s) < d.at {
            self.schedule(sid);
            return false;
        }
        // A deadline that fell due while moot was not running is moot's doing, not the
        // players': it is taken all the same (the rules decide), but nobody missed it and the
        // game no longer counts toward ratings.
        let while_away = self.wall_at(s, d.at) < self.time.began();
        // Whoever the deadline finds owing missed it: counted before the server acts, so
        // that a game it ends has it in its players' conduct.
        let owing: Vec<String> = if while_away {
            Vec::new()
        } else {
            s.game
                .owing()
                .into_iter()
                .filter_map(|role| s.role_player(role))
                .collect()
        };
        if while_away && s.rated {
            self.unrate(cx, sid);
        }
        let missed = crate::ratings::conduct::Tally {
            refused: 0,
            missed: 1,
        };
        for agent in &owing {
            self.count(sid, agent, missed);
        }
        let server: AgentId = super::SERVER_ID.into();
        let taken = self
            .record(cx, &server, sid, d.action.into(), d.at, false)
            .is_ok();
        for agent in &owing {
            if taken {
                self.store_tally(cx, sid, agent, missed);
            } else {
                self.uncount(sid, agent, missed);
            }
        }
        taken
    }

    /// After a change in `sid`: the first of the house's players in it (in role order) with
    /// something to do starts on it. One at a time: the next is asked once that one's action
    /// is stored, and sees it.
    pub fn computer_turn(&mut self, cx: &mut Cx, sid: SessionId) {
        // The house plays a copy's game on its game world.
        let Some(s) = self.session(sid).filter(|_| !self.is_copy(sid)) else {
            return;
        };
        if s.game.is_terminal() {
            return;
        }
        let tick = s.tick;
        // The house is told whether the game is rated (the host's own option, kept apart from
        // the template's): it grants no retry of a rated game (a takeback).
        let rated_options;
        let options = if s.rated {
            let mut o = s.options.clone();
            if let Some(map) = o.as_object_mut() {
                map.insert("rated".into(), serde_json::Value::Bool(true));
            }
            rated_options = o;
            &rated_options
        } else {
            &s.options
        };
        for p in s.participants.iter().filter(|p| is_house(&p.agent)) {
            // Even an answer the computer knows at once is taken as its own action after this
            // command, as a person's would be: whoever acted hears their own answer first.
            let thinking: crate::game_api::Thinking<crate::game_api::AnyAction> =
                match s.game.computer(p.role, options, s.seed.wrapping_add(tick)) {
                    None => continue,
                    Some(Computer::Act(action)) => Box::new(move |_| Some(action)),
                    Some(Computer::Think(thinking)) => thinking,
                };
            cx.effects.push(Effect::Think {
                session: sid,
                tick,
                agent: p.agent.clone(),
                thinking,
            });
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_come_out_in_order_and_a_new_one_replaces_the_old() {
        let t0 = Instant::now();
        let mut d = Deadlines::default();
        d.set(1.into(), Some(t0 + Duration::from_secs(5)));
        d.set(2.into(), Some(t0 + Duration::from_secs(2)));
        d.set(1.into(), Some(t0 + Duration::from_secs(1)));
        d.set(3.into(), Some(t0 + Duration::from_secs(9)));
        d.set(3.into(), None);
        assert_eq!(d.next(), Some(t0 + Duration::from_secs(1)));
        assert_eq!(
            d.take_due(t0 + Duration::from_secs(3)),
            vec![SessionId::from(1), SessionId::from(2)]
        );
        assert_eq!(d.next(), None);
    }

    #[test]
    fn game_time_runs_at_the_scale_and_maps_back_to_the_runtime_clock() {
        let clock = GameClock::new(100.0);
        let started = clock.origin.1;
        let later = clock.origin.0 + Duration::from_millis(30);
        assert_eq!(clock.at(started, later), 3000);
        assert_eq!(clock.instant(started, 3000), later);
        // A deadline from before this run began is due at once.
        let long_ago = started - Duration::from_secs(3600);
        assert_eq!(clock.instant(long_ago, 1000), clock.origin.0);
    }
}
