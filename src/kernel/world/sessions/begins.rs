//! Sessions the town begins itself, everyone in them agreed (a Werewolf match from its notice
//! board, a practice match, a game whose invitation everyone accepted here), begun on a game
//! world where the town has them.
//!
//! The verb that seats the players answers at once ("Werewolf Game #12 begins"), in the world
//! task, while only the cluster can reach a game world. So the town stores what is to begin
//! ([`Begin`], kept state, in the same commit as the verb) under an id it sets aside and
//! places; whoever hands sessions over (the world process's `cluster::seated`) sees its id
//! among those waiting ([`World::place_what_the_town_seats`]), reads it once it is stored,
//! makes it on a game world under that id, and says so
//! ([`World::begun_elsewhere`]), or makes it here ([`World::begin_here`]) where no game world
//! will. A begin still waiting when the town stops is handed over again when it starts: an
//! acknowledged match is never lost, and a game world makes one id once however often it is
//! asked ([`World::begin_placed`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::invite::Plan;
use super::{
    Created, HostError, SessionId,
    create::{Place, Seating},
};
use crate::store::keys::{self, StateRow};
use crate::world::{AgentId, Cx, World};

/// The module its kept state is stored under.
const KEPT_AS: &str = "begins";

/// A session the town has seated and placed, to be made on a game world: what its verb
/// asked, as the verb asked it (the game world checks it again, as it would its own).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Begin {
    pub id: u64,
    pub template: String,
    /// Each role and the id of its player.
    pub participants: BTreeMap<String, String>,
    pub options: Value,
    /// The one whose command seated them (the signer who filled the board).
    pub maker: String,
}

/// The town's begins waiting for a game world.
#[derive(Debug)]
pub(in crate::world) struct Beginning {
    /// Set once a world process hands its town-seated sessions over
    /// ([`World::place_what_the_town_seats`]).
    handing: bool,
    /// Whether a game world is alive to take them ([`World::place_while`]).
    alive: bool,
    waiting: BTreeMap<SessionId, Begin>,
    /// The ids of `waiting`, for whoever hands them over and whoever must wait for one to be
    /// made before calling it (kept in step by [`Beginning::hold`] and [`Beginning::release`]).
    ids: tokio::sync::watch::Sender<BTreeSet<SessionId>>,
}

impl Default for Beginning {
    fn default() -> Self {
        Beginning {
            handing: false,
            alive: false,
            waiting: BTreeMap::new(),
            ids: tokio::sync::watch::channel(BTreeSet::new()).0,
        }
    }
}

impl Beginning {
    fn hold(&mut self, id: SessionId, begin: Begin) {
        self.waiting.insert(id, begin);
        self.ids.send_modify(|ids| {
            ids.insert(id);
        });
    }

    fn release(&mut self, id: SessionId) -> Option<Begin> {
        let begin = self.waiting.remove(&id)?;
        self.ids.send_modify(|ids| {
            ids.remove(&id);
        });
        Some(begin)
    }

    /// The ids waiting, for the tests' fingerprint of the world.
    #[cfg(feature = "testing")]
    pub(in crate::world) fn ids(&self) -> Vec<u64> {
        self.waiting.keys().map(|id| id.number()).collect()
    }
}

impl World {
    /// From now on, while a game world is alive ([`Self::place_while`]), a session the town
    /// begins itself is placed on one rather than begun here. The receiver holds the ids
    /// waiting, changed as each is set aside (before it is stored: a read of it through the
    /// world, [`Self::begin_waiting`], comes after its write) and as each is made; it is
    /// marked changed at once, for those restored.
    pub fn place_what_the_town_seats(
        &mut self,
    ) -> tokio::sync::watch::Receiver<BTreeSet<SessionId>> {
        let beginning = &mut self.following.beginning;
        beginning.handing = true;
        let mut ids = beginning.ids.subscribe();
        ids.mark_changed();
        ids
    }

    /// Whether a game world is alive to take what the town seats (as whoever hands them over
    /// last heard).
    pub fn place_while(&mut self, alive: bool) {
        self.following.beginning.alive = alive;
    }

    /// Whether a session the town begins itself, everyone agreed, would be placed (see
    /// [`Self::place_what_the_town_seats`]).
    pub(super) fn places_what_it_seats(&self) -> bool {
        let beginning = &self.following.beginning;
        beginning.handing && beginning.alive
    }

    /// Places the session `plan` describes, which everyone in it has agreed to (the town
    /// seated them, or each accepted), under `reserved` or an id set aside now, and stores what
    /// is to begin: the game world checks it again as it would its own.
    pub(super) fn begin_elsewhere(
        &mut self,
        cx: &mut Cx,
        reserved: Option<SessionId>,
        plan: &Plan,
    ) -> Result<Created, HostError> {
        let id = reserved.unwrap_or_else(|| self.reserve_session_id());
        // The options as they were asked for: the host's own put back.
        let mut options = plan.options.clone();
        if plan.rated || plan.deal.is_some() {
            if !options.is_object() {
                options = Value::Object(Default::default());
            }
            if plan.rated {
                options["rated"] = Value::Bool(true);
            }
            if let Some(deal) = plan.deal {
                options["deal"] = Value::from(deal);
            }
        }
        let template = plan.template.id;
        let begin = Begin {
            id: id.number(),
            template: template.to_owned(),
            participants: plan
                .participants
                .iter()
                .map(|p| (p.role.to_owned(), p.agent.to_string()))
                .collect(),
            options,
            maker: cx.actor.to_string(),
        };
        let row = StateRow {
            module: KEPT_AS.to_owned(),
            key: id.to_string(),
            value: serde_json::to_string(&begin).map_err(|e| {
                HostError::new(
                    super::ErrorCode::Internal,
                    format!("cannot keep #{id}: {e}"),
                )
            })?,
        };
        self.place(id);
        self.following.beginning.hold(id, begin);
        cx.save(keys::put_state(row), move |w| {
            w.following.beginning.release(id);
            w.unplace(id);
        });
        Ok(Created {
            id,
            session_id: id.to_string(),
            template: template.to_owned(),
            status: "active".to_owned(),
        })
    }

    /// Every begin waiting for a game world, in the order of their ids.
    pub fn begins_waiting(&self) -> Vec<Begin> {
        self.following.beginning.waiting.values().cloned().collect()
    }

    /// Begin `id`, while it waits for a game world.
    pub fn begin_waiting(&self, id: SessionId) -> Option<Begin> {
        self.following.beginning.waiting.get(&id).cloned()
    }

    /// Whether session `id` waits to be made on a game world.
    pub fn is_beginning(&self, id: SessionId) -> bool {
        self.following.beginning.waiting.contains_key(&id)
    }

    /// How many begins waiting `agent` is to play in (they count as running sessions), but
    /// those whose copies the town holds already (counted as sessions).
    pub(super) fn begins_of(&self, agent: &str) -> usize {
        self.following
            .beginning
            .waiting
            .iter()
            .filter(|(id, b)| {
                !self.sessions.contains_key(id) && b.participants.values().any(|a| a == agent)
            })
            .count()
    }

    /// A begin waiting that `agent` is to play in, of a game that keeps its players from the
    /// town (a Werewolf match), if any.
    pub(super) fn secluding_begin_of(&self, agent: &str) -> Option<SessionId> {
        self.following
            .beginning
            .waiting
            .iter()
            .find(|(_, b)| {
                b.participants.values().any(|a| a == agent)
                    && self.template(&b.template).is_some_and(|t| t.secludes)
            })
            .map(|(&id, _)| id)
    }

    /// The role `agent` has in session `id`: as it is played, or as it is to begin.
    pub fn role_in(&self, id: SessionId, agent: &str) -> Option<&str> {
        if let Some(s) = self.sessions.get(&id) {
            return s.role_of(agent);
        }
        let begin = self.following.beginning.waiting.get(&id)?;
        begin
            .participants
            .iter()
            .find(|(_, a)| *a == agent)
            .map(|(role, _)| role.as_str())
    }

    /// The sessions of `template` waiting to begin elsewhere that `agent` is to play in.
    pub fn beginning_for(&self, agent: &str, template: &str) -> Option<SessionId> {
        self.following
            .beginning
            .waiting
            .iter()
            .find(|(_, b)| b.template == template && b.participants.values().any(|a| a == agent))
            .map(|(&id, _)| id)
    }

    /// Begin `id` was made on its game world: it waits no more.
    pub fn begun_elsewhere(&mut self, cx: &mut Cx, id: SessionId) {
        if let Some(begin) = self.following.beginning.release(id) {
            cx.save(keys::drop_state(KEPT_AS, id.to_string()), move |w| {
                w.following.beginning.hold(id, begin);
            });
        }
    }

    /// Begins `id` here after all (no game world would make it): as the town would have,
    /// under the id it was given; if it cannot be begun now, its maker is told why, and the
    /// others that it did not begin.
    pub fn begin_here(&mut self, cx: &mut Cx, id: SessionId) {
        let Some(begin) = self.begin_waiting(id) else {
            return;
        };
        // It waits no more, whatever becomes of it (and counts no more toward its players'
        // running sessions, which it would otherwise count twice here).
        let settle = |w: &mut World, cx: &mut Cx| {
            w.begun_elsewhere(cx, id);
            w.unplace(id);
            cx.undo(move |w| w.place(id));
        };
        settle(self, cx);
        let made = self.create(
            cx,
            Some(id),
            &begin.template,
            &begin.participants,
            begin.options.clone(),
            Seating::Town,
            None,
            Place::Here,
        );
        if let Err(e) = made {
            cx.roll_back(self);
            settle(self, cx);
            // Why is the maker's (their own limits, say); the others hear only that.
            tracing::warn!(session = id.number(), why = %e.message, "a session the town began could not begin");
            for agent in begin.participants.values() {
                let line = match *agent == begin.maker {
                    true => format!("#{id} could not begin: {}", e.message),
                    false => format!("#{id} could not begin; nothing was played."),
                };
                cx.tell(&AgentId::from(agent.as_str()), line);
            }
        }
    }

    /// In a game world: makes the session the town seated and placed here, unless it is made
    /// already (the town asks again until it hears it was).
    pub fn begin_placed(&mut self, cx: &mut Cx, begin: Begin) -> Result<Created, HostError> {
        let id = SessionId::from(begin.id);
        if let Some(s) = self.sessions.get(&id) {
            return Ok(Created {
                id,
                session_id: id.to_string(),
                template: s.template.id.to_owned(),
                status: s.status().to_owned(),
            });
        }
        self.keep_session_id(id);
        self.create(
            cx,
            Some(id),
            &begin.template,
            &begin.participants,
            begin.options,
            Seating::Town,
            None,
            Place::Here,
        )
    }

    /// The begins waiting when the town stopped wait again, each placed under its id.
    pub fn restore_begins(&mut self, kept: &keys::Kept) {
        for (key, value) in kept.state_of(KEPT_AS) {
            match serde_json::from_str::<Begin>(value) {
                Ok(begin) => {
                    let id = SessionId::from(begin.id);
                    self.place(id);
                    self.following.beginning.hold(id, begin);
                }
                Err(e) => tracing::warn!(key, error = %e, "a kept begin could not be read"),
            }
        }
    }
}
