//! Sessions played on a game world, followed by the town.
//!
//! A game world owns the sessions placed on it: it takes their actions, stores them and
//! answers for them. Once an action is stored there, the game world tells the town of it
//! ([`Told`]), and the town keeps a copy of the session, replayed action by action through
//! the same template: its rooms, its web pages, its watchers and the people standing by the
//! table then see a placed game as they see one of the town's own, through the one filter
//! (`followers`) that decides what each of them may know. The copy is never played here (an
//! action, a deadline or the house's turn is the game world's to take), and it is not
//! stored: the town asks the game world again for what it misses, at start or after a gap.

use std::collections::{BTreeSet, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Cost, ErrorCode, HostError, Logged, Participant, Session, SessionId};
use crate::game_api;
use crate::world::{AgentId, Awaited, Cx, World};

/// The most actions one [`Told`] carries: a long game crosses the broker in parts, none near
/// the size it carries.
pub const MOST_TOLD: usize = 64;

/// A session as its game world tells the town of it: how it began, and its actions from tick
/// `from` on (at most [`MOST_TOLD`]), as its log stores them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Told {
    pub id: u64,
    pub template: String,
    pub seed: u64,
    pub options: Value,
    pub rated: bool,
    /// Each role and the id of its player, in the template's role order.
    pub participants: Vec<(String, String)>,
    pub created_at: String,
    /// The tick of the first action of `log`.
    pub from: u64,
    pub log: Vec<ToldAction>,
    /// How many actions the session has taken there: more than `from` and `log` hold when it
    /// is told in parts.
    pub tick: u64,
    /// Whether it began in this run of its game world: one that was there when it started
    /// (the town may have heard of it before, and counted its results) is news to nobody.
    pub fresh: bool,
    /// Each player's refusals and missed deadlines so far (their conduct's once it ends).
    #[serde(default)]
    pub tally: std::collections::BTreeMap<String, crate::ratings::conduct::Tally>,
}

/// One stored action, as [`Told`] carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToldAction {
    pub role: String,
    pub agent: String,
    pub action: String,
    pub created_at: String,
    pub at_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// What the town has stored of a copy's results already (`store::standings::recorded`): the
/// ticks whose decisions it has counted, and the latest one's changes (the game's report).
/// None of them is counted again when the copy is rebuilt.
#[derive(Debug, Clone, Default)]
pub struct Recorded {
    pub ticks: BTreeSet<u64>,
    pub moves: Vec<crate::ratings::Moved>,
}

/// What [`World::follow`] tells everyone as it takes a session in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Announce {
    /// The game's beginning, if the copy begins with it.
    pub begun: bool,
    /// Each action from this tick on.
    pub from: u64,
}

impl Announce {
    /// Everything: a session that is news here.
    pub const ALL: Announce = Announce {
        begun: true,
        from: 0,
    };

    /// The actions from tick `from` on, and the beginning if that is the first.
    pub fn from(from: u64) -> Announce {
        Announce {
            begun: from == 0,
            from,
        }
    }

    /// Of a copy rebuilt after the town started, which may have told its beginning and any
    /// action before then: the actions from tick `news` on alone, those its game world stored
    /// since.
    pub fn rebuilt(news: u64) -> Announce {
        Announce {
            begun: false,
            from: news,
        }
    }
}

/// What [`World::follow`] made of what it was told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Followed {
    /// The copy holds everything told.
    Kept,
    /// Actions before those told are missing here: the town asks for them.
    Behind,
}

/// The copies the town follows, and, in a game world, what it has yet to tell the town.
#[derive(Debug, Default)]
pub struct Following {
    copies: HashSet<SessionId>,
    /// Every id the town placed on a game world: a copy once begun there, or an id set aside
    /// there for a game that begins later (one waiting for its second player).
    placed: HashSet<SessionId>,
    /// In a game world: what it has yet to tell the town.
    telling: Option<Telling>,
    /// In the town: the sessions it seated, waiting for a game world to make them.
    pub(in crate::world) beginning: super::begins::Beginning,
    /// In the town: the sessions calls handed to game worlds are making for each identity
    /// (see [`super::create::Handing`]).
    pub(in crate::world) making: std::collections::HashMap<AgentId, Vec<super::create::Making>>,
    /// The number of the last [`super::create::Handing`] given.
    pub(in crate::world) handings: u64,
    /// In the town: the verbs typed for each copy that are on their way to its game world
    /// ([`World::hand`]), by typist.
    answering: std::collections::HashMap<SessionId, std::collections::HashMap<AgentId, Answering>>,
}

/// A typist's verbs on their way to the game world that plays a session, and what the town's
/// copy of it told them meanwhile. The game world's word of the action (and of the house's
/// reply to it) may reach the town before its answer: it is held until the answer is told, so
/// that whoever acted hears their own answer first, as in a game the town plays itself.
#[derive(Debug, Default)]
struct Answering {
    handed: usize,
    held: Vec<crate::world::Notice>,
}

/// The most notices held for one typist of one session: past them (a game world that answers
/// nothing for long while its session goes on), the rest go out as they come.
const MOST_HELD: usize = 256;

/// A game world's record of what it has yet to tell the town.
#[derive(Debug)]
struct Telling {
    /// The sessions changed and stored since the town was last told.
    changed: BTreeSet<SessionId>,
    /// What wakes the teller.
    wake: tokio::sync::watch::Sender<u64>,
    /// The sessions that were here when this run began (see [`Told::fresh`]).
    restored: HashSet<SessionId>,
}

impl Following {
    /// The copies held and the ids placed, in order, for the tests' fingerprint of the world (what is yet to be
    /// told is the teller's, and a test sees it told).
    #[cfg(feature = "testing")]
    pub(in crate::world) fn fingerprint(&self) -> String {
        let sorted = |ids: &HashSet<SessionId>| {
            let mut ids: Vec<u64> = ids.iter().map(|id| id.number()).collect();
            ids.sort_unstable();
            ids
        };
        let mut answering: Vec<(u64, &str, usize, usize)> = self
            .answering
            .iter()
            .flat_map(|(id, typists)| {
                typists
                    .iter()
                    .map(|(who, a)| (id.number(), &**who, a.handed, a.held.len()))
            })
            .collect();
        answering.sort_unstable();
        format!(
            "copies: {:?}, placed: {:?}, beginning: {:?}, answering: {answering:?}",
            sorted(&self.copies),
            sorted(&self.placed),
            self.beginning.ids()
        )
    }
}

impl World {
    /// Whether session `id` here is a copy of one a game world plays.
    pub fn is_copy(&self, id: SessionId) -> bool {
        self.following.copies.contains(&id)
    }

    /// Notes that the town placed session `id` on a game world.
    pub fn place(&mut self, id: SessionId) {
        self.following.placed.insert(id);
        self.keep_session_id(id);
    }

    /// Forgets that it did (the game world refused to make it).
    pub fn unplace(&mut self, id: SessionId) {
        self.following.placed.remove(&id);
    }

    /// Refuses, handing the command to the game world that holds it ([`Cx::elsewhere`]), what
    /// would begin or play session `id` if the town placed it on a game world: a copy, or an
    /// id set aside there for a game that has not begun.
    pub fn held_elsewhere(&self, cx: &mut Cx, id: SessionId) -> Result<(), HostError> {
        if self.is_copy(id) || self.following.placed.contains(&id) {
            cx.elsewhere = Some(id);
            return Err(World::played_elsewhere(id));
        }
        Ok(())
    }

    /// Hands a verb typed for `h.session`, a copy or an id placed on a game world, to the game
    /// world that plays it ([`crate::world::Effect::Hand`]). Until its answer is told
    /// ([`World::answered`]), what the copy tells the typist waits behind it.
    pub fn hand(&mut self, cx: &mut Cx, h: crate::world::Handed) {
        let (id, who) = (h.session, h.agent.clone());
        self.following
            .answering
            .entry(id)
            .or_default()
            .entry(who.clone())
            .or_default()
            .handed += 1;
        cx.undo(move |w| {
            w.unhand(id, &who);
        });
        cx.effects.push(crate::world::Effect::Hand(h));
    }

    /// Counts one verb `who` handed for `id` answered, forgetting them once none is left.
    fn unhand(&mut self, id: SessionId, who: &AgentId) -> Option<Answering> {
        let typists = self.following.answering.get_mut(&id)?;
        let a = typists.get_mut(who)?;
        a.handed = a.handed.saturating_sub(1);
        if a.handed > 0 {
            return None;
        }
        let a = typists.remove(who);
        if typists.is_empty() {
            self.following.answering.remove(&id);
        }
        a
    }

    /// Tells `who` the game world's answer to a verb they typed for `id` ([`World::hand`]),
    /// then, once none of theirs is on its way there any more, what the copy told them
    /// meanwhile.
    pub fn answered(&mut self, cx: &mut Cx, who: &AgentId, id: SessionId, lines: Vec<String>) {
        for line in lines {
            cx.tell(who, line);
        }
        let handed = self
            .following
            .answering
            .get(&id)
            .and_then(|typists| typists.get(who))
            .is_some();
        if !handed {
            return;
        }
        let done = self.unhand(id, who);
        if let Some(done) = &done {
            cx.notices.extend(done.held.iter().cloned());
        }
        let who = who.clone();
        cx.undo(move |w| {
            let a = w
                .following
                .answering
                .entry(id)
                .or_default()
                .entry(who)
                .or_insert_with(|| done.unwrap_or_default());
            a.handed += 1;
        });
    }

    /// Takes out of `cx`, from its notice `from` on, what copy `id` told someone whose verb
    /// for it is on its way to its game world, to be told after its answer.
    fn hold_for_answers(&mut self, cx: &mut Cx, id: SessionId, from: usize) {
        let Some(typists) = self.following.answering.get_mut(&id) else {
            return;
        };
        if cx.notices.len() <= from {
            return;
        }
        let mut held: Vec<AgentId> = Vec::new();
        for n in cx.notices.split_off(from) {
            match typists.get_mut(&n.to) {
                Some(a) if a.held.len() < MOST_HELD => {
                    held.push(n.to.clone());
                    a.held.push(n);
                }
                _ => cx.notices.push(n),
            }
        }
        if held.is_empty() {
            return;
        }
        cx.undo(move |w| {
            for who in held.iter().rev() {
                if let Some(a) = w
                    .following
                    .answering
                    .get_mut(&id)
                    .and_then(|typists| typists.get_mut(who))
                {
                    a.held.pop();
                }
            }
        });
    }

    /// The refusal of anything that would play copy `id` here.
    pub(in crate::world) fn played_elsewhere(id: SessionId) -> HostError {
        HostError::new(
            ErrorCode::Unavailable,
            format!(
                "#{id} is played on one of the town's game worlds, which this command cannot \
                 reach: play it through the REST API or MCP"
            ),
        )
    }

    /// Starts keeping, in a game world, which sessions change: what the receiver's next
    /// change says is stored, for [`World::changed_since_told`] to give.
    pub fn tell_the_town(&mut self) -> tokio::sync::watch::Receiver<u64> {
        let restored = self.sessions.keys().copied().collect();
        let telling = self.following.telling.get_or_insert_with(|| Telling {
            changed: BTreeSet::new(),
            wake: tokio::sync::watch::channel(0).0,
            restored,
        });
        // Those still running: the town may have missed their last actions (this world
        // stopped between storing and telling), and asks again for any other it lacks.
        telling.changed.extend(
            self.sessions
                .values()
                .filter(|s| !s.game.is_terminal())
                .map(|s| s.id),
        );
        let mut wake = telling.wake.subscribe();
        wake.mark_changed();
        wake
    }

    /// The sessions changed and stored since the last asking (all of them when `all`).
    pub fn changed_since_told(&mut self, all: bool) -> Vec<SessionId> {
        let Some(telling) = self.following.telling.as_mut() else {
            return Vec::new();
        };
        if all {
            telling.changed.extend(self.sessions.keys().copied());
        }
        std::mem::take(&mut telling.changed).into_iter().collect()
    }

    /// Notes, once it is stored, that what `on` names changed (see [`World::tell_the_town`]).
    pub(in crate::world) fn stored_change(&mut self, on: &Awaited) {
        if let (Awaited::Session(sid), Some(telling)) = (on, self.following.telling.as_mut()) {
            telling.changed.insert(*sid);
            telling.wake.send_modify(|n| *n += 1);
        }
    }

    /// Session `id` as a game world tells the town of it, from tick `from`; `None` if it has
    /// no such session.
    pub fn told(&self, id: SessionId, from: u64) -> Option<Told> {
        let s = self.sessions.get(&id)?;
        let from = from.min(s.tick);
        let log = s
            .log
            .iter()
            .skip(usize::try_from(from).unwrap_or(usize::MAX))
            .take(MOST_TOLD)
            .map(|e| ToldAction {
                role: e.role.to_owned(),
                agent: e.agent.to_string(),
                action: e.action.to_string(),
                created_at: e.created_at.to_string(),
                at_ms: e.at_ms,
                reasoning: e.reasoning.as_deref().map(str::to_owned),
                cost: e.cost,
            })
            .collect();
        Some(Told {
            id: id.number(),
            template: s.template.id.to_owned(),
            seed: s.seed,
            options: s.options.clone(),
            rated: s.rated,
            participants: s
                .participants
                .iter()
                .map(|p| (p.role.to_owned(), p.agent.to_string()))
                .collect(),
            created_at: s.created_at.clone(),
            from,
            log,
            tick: s.tick,
            fresh: self
                .following
                .telling
                .as_ref()
                .is_none_or(|t| !t.restored.contains(&id)),
            tally: s.tally.clone(),
        })
    }

    /// Takes what a game world told of one of its sessions into the copy here: begun if it
    /// is new, and each action not yet held replayed through the template. What `announce`
    /// names is told to everyone who follows the session, as the town tells of its own (the
    /// headline, each notice to whom it may reach; the room's line for a game begun); the rest
    /// is replayed in silence (a copy rebuilt after the town started: nobody here missed it).
    /// Whether a copy not held is news is the caller's to know (whether it began since the
    /// town started). Each result an action decided moves its players' standings here, where
    /// the town's ratings are kept, unless `recorded` says it has already. Refused if `told`
    /// does not replay, or names a session of this world's own.
    pub fn follow(
        &mut self,
        cx: &mut Cx,
        told: Told,
        announce: Announce,
        recorded: &Recorded,
    ) -> Result<Followed, String> {
        let (id, from) = (SessionId::from(told.id), cx.notices.len());
        let followed = self.follow_told(cx, told, announce, recorded);
        self.hold_for_answers(cx, id, from);
        followed
    }

    /// [`World::follow`], telling everyone what it tells.
    fn follow_told(
        &mut self,
        cx: &mut Cx,
        told: Told,
        announce: Announce,
        recorded: &Recorded,
    ) -> Result<Followed, String> {
        let id = SessionId::from(told.id);
        let t = self
            .template(&told.template)
            .ok_or_else(|| format!("#{id}: no game `{}` here", told.template))?;
        if self.sessions.contains_key(&id) {
            if !self.is_copy(id) {
                return Err(format!("#{id} is this world's own session"));
            }
        } else {
            // Begun only from its beginning: a copy missing the start is caught up first.
            if told.from != 0 {
                return Ok(Followed::Behind);
            }
            self.begin_copy(cx, t, &told, announce.begun, recorded)?;
        }
        let tick = match self.sessions.get_mut(&id) {
            Some(s) => {
                // A game its world took out of the ratings (a deadline fell while it was down).
                s.rated = told.rated;
                s.tally = told.tally.clone();
                s.tick
            }
            None => 0,
        };
        if told.from > tick {
            return Ok(Followed::Behind);
        }
        let held = usize::try_from(tick - told.from).unwrap_or(usize::MAX);
        for (tick, action) in (told.from..).zip(told.log).skip(held) {
            let counted = recorded.ticks.contains(&tick);
            self.follow_action(cx, id, action, tick >= announce.from, counted)?;
        }
        Ok(Followed::Kept)
    }

    /// Begins the copy of a session a game world has just begun (or that the town has not
    /// held since it started).
    fn begin_copy(
        &mut self,
        cx: &mut Cx,
        t: &'static game_api::Template,
        told: &Told,
        announce: bool,
        recorded: &Recorded,
    ) -> Result<(), String> {
        let id = SessionId::from(told.id);
        let game = (t.new)(told.seed, &told.options).map_err(|e| format!("#{id}: {e}"))?;
        let mut participants = Vec::new();
        for role in t.roles {
            let (_, agent) = told
                .participants
                .iter()
                .find(|(r, _)| r == role)
                .ok_or_else(|| format!("#{id}: nobody plays `{role}`"))?;
            participants.push(Participant {
                role,
                agent: agent.as_str().into(),
                name: self
                    .directory
                    .name_of(agent)
                    .unwrap_or_else(|| agent.clone()),
            });
        }
        let started = humantime::parse_rfc3339_weak(&told.created_at)
            .map_err(|e| format!("#{id}: bad start time `{}`: {e}", told.created_at))?;
        let session = Session {
            id,
            template: t,
            game,
            tick: 0,
            seed: told.seed,
            options: told.options.clone(),
            rated: told.rated,
            participants,
            room: self.room_for(t),
            created_at: told.created_at.clone(),
            started,
            log: Vec::new(),
            tally: Default::default(),
            moves: recorded.moves.clone(),
        };
        self.following.copies.insert(id);
        self.following.placed.insert(id);
        self.keep_session(session);
        self.keep_session_id(id);
        // It waits no more, however the town heard it was made.
        self.begun_elsewhere(cx, id);
        cx.changed.push(Awaited::Session(id));
        if announce {
            self.tell_begun(cx, id);
        }
        self.schedule(id);
        // What the games do with a session that changed (a Werewolf match's building, for a
        // copy the town did not seat itself, or rebuilt after it started again).
        self.session_changed(cx, id);
        Ok(())
    }

    /// Replays one action of copy `id` as its game world stored it; what it decided is
    /// counted in the ratings unless it was `counted` already.
    fn follow_action(
        &mut self,
        cx: &mut Cx,
        id: SessionId,
        told: ToldAction,
        announce: bool,
        counted: bool,
    ) -> Result<(), String> {
        let s = self
            .sessions
            .get_mut(&id)
            .ok_or_else(|| format!("#{id} is not here"))?;
        let role = s
            .template
            .roles
            .iter()
            .copied()
            .chain([game_api::SERVER_ROLE])
            .find(|r| *r == told.role)
            .ok_or_else(|| format!("#{id}: no role `{}` in its game", told.role))?;
        let tick = s.tick;
        let action = s
            .game
            .read_logged(&told.action)
            .map_err(|e| format!("#{id} at tick {tick}: {e}"))?;
        let next = s
            .game
            .apply(role, &action, told.at_ms)
            .map_err(|e| format!("#{id} at tick {tick} does not replay: {e}"))?;
        let before = std::mem::replace(&mut s.game, next);
        // Undone with the command that took it (its result's record not stored): the copy is
        // behind again, and asks for it with the next it is told.
        cx.undo(move |w| {
            if let Some(s) = w.sessions.get_mut(&id) {
                s.game = before;
                s.tick = tick;
                s.log.pop();
            }
        });
        // The players' ids are shared with the session's own.
        let agent = s
            .participants
            .iter()
            .find(|p| *p.agent == *told.agent)
            .map_or_else(|| AgentId::from(told.agent.as_str()), |p| p.agent.clone());
        let day = told.created_at.get(..10).unwrap_or_default().to_owned();
        s.log.push(Logged {
            role,
            action: told.action.into(),
            agent: agent.clone(),
            created_at: told.created_at.into(),
            at_ms: told.at_ms,
            reasoning: told.reasoning.map(Into::into),
            cost: told.cost,
        });
        s.tick += 1;
        let ended = s.game.is_terminal();
        // A player's action others may know of moves their idle time here, as one played in
        // the town does; a hidden one (a night action) leaves no trace.
        let public =
            role != game_api::SERVER_ROLE && s.game.action_view_of(None, role, &action).is_some();
        cx.changed.push(Awaited::Session(id));
        if announce && public {
            self.touch(&agent, cx.now);
        }
        if counted {
            // Counted before the town started again: still one of the day's few for its pair.
            let decided = self
                .sessions
                .get(&id)
                .and_then(|s| s.decision(|agent| self.directory.owner_of(agent), &day));
            if let Some(d) = decided {
                self.ratings.met(&d);
                cx.undo(move |w| w.ratings.unmet(&d));
            }
        } else {
            let decided = self.decide(id, &day);
            match decided.write(format!("{id}.{tick}")) {
                Some(write) => cx.save(write, move |w| decided.undo(w, id)),
                None => cx.undo(move |w| decided.undo(w, id)),
            }
        }
        if ended {
            self.fold_conduct(cx, id);
        }
        if announce && let Some(s) = self.sessions.get(&id) {
            let headline = super::act::headline(s, &agent, role, &action);
            let notes = s.game.notes(role, &action);
            if ended {
                super::invite::wake_players(cx, &s.participants);
            }
            self.announce(cx, &agent, id, headline, &notes);
        }
        self.schedule(id);
        self.session_changed(cx, id);
        Ok(())
    }
}
