//! Sessions the town begins itself, everyone in them agreed (a Werewolf match from its notice
//! board, a practice match, a game whose invitation everyone accepted here), begun on a game
//! world where the town has them.
//!
//! The verb that seats the players answers at once ("Werewolf Game #12 begins"), in the world
//! task, while only the cluster can reach a game world. So the town stores what is to begin
//! ([`Begin`], kept state, in the same commit as the verb) under an id it sets aside and
//! places; once that is stored, whoever hands sessions over (the world process's
//! `cluster::games`) is woken, makes it on a game world under that id, and says so
//! ([`World::begun_elsewhere`]), or makes it here ([`World::begin_here`]) where no game world
//! will. A begin still waiting when the town stops is handed over again when it starts: an
//! acknowledged match is never lost, and a game world makes one id once however often it is
//! asked ([`World::begin_placed`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::invite::Plan;
use super::{
    Created, HostError, SessionId,
    create::{Place, Seating},
};
use crate::store::keys::{self, StateRow};
use crate::world::{AgentId, Awaited, Cx, World};

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

/// The town's begins waiting for a game world, and whom to wake when one is stored.
#[derive(Debug, Default)]
pub(in crate::world) struct Beginning {
    /// Set once a world process hands its town-seated sessions over
    /// ([`World::place_what_the_town_seats`]).
    wake: Option<tokio::sync::watch::Sender<u64>>,
    /// Whether a game world is alive to take them ([`World::place_while`]).
    alive: bool,
    waiting: BTreeMap<SessionId, Begin>,
}

impl Beginning {
    /// The ids waiting, for the tests' fingerprint of the world.
    #[cfg(feature = "testing")]
    pub(in crate::world) fn ids(&self) -> Vec<u64> {
        self.waiting.keys().map(|id| id.number()).collect()
    }
}

impl World {
    /// From now on, while a game world is alive ([`Self::place_while`]), a session the town
    /// seats itself is placed on one rather than begun here; the receiver changes each time
    /// a new one is stored (and at once, for those restored).
    pub fn place_what_the_town_seats(&mut self) -> tokio::sync::watch::Receiver<u64> {
        let beginning = &mut self.following.beginning;
        let wake = beginning
            .wake
            .get_or_insert_with(|| tokio::sync::watch::channel(0).0);
        let mut woken = wake.subscribe();
        woken.mark_changed();
        woken
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
        beginning.wake.is_some() && beginning.alive
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
        self.following.beginning.waiting.insert(id, begin);
        cx.save(keys::put_state(row), move |w| {
            w.following.beginning.waiting.remove(&id);
            w.unplace(id);
        });
        // Stored, this wakes whoever hands it over (see `stored_begin`).
        cx.changed.push(Awaited::Session(id));
        Ok(Created {
            id,
            session_id: id.to_string(),
            template: template.to_owned(),
            status: "active".to_owned(),
        })
    }

    /// Wakes whoever hands begins over, once begin `id` is stored.
    pub(in crate::world) fn stored_begin(&mut self, id: SessionId) {
        let beginning = &self.following.beginning;
        if let (true, Some(wake)) = (beginning.waiting.contains_key(&id), &beginning.wake) {
            wake.send_modify(|n| *n += 1);
        }
    }

    /// The begins waiting for a game world, oldest first.
    pub fn begins_waiting(&self) -> Vec<Begin> {
        self.following.beginning.waiting.values().cloned().collect()
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
        if let Some(begin) = self.following.beginning.waiting.remove(&id) {
            cx.save(keys::drop_state(KEPT_AS, id.to_string()), move |w| {
                w.following.beginning.waiting.insert(id, begin);
            });
        }
    }

    /// Begins `id` here after all (no game world would make it): as the town would have,
    /// under the id it was given; if it cannot be begun now, its players are told why.
    pub fn begin_here(&mut self, cx: &mut Cx, id: SessionId) {
        let Some(begin) = self.following.beginning.waiting.get(&id).cloned() else {
            return;
        };
        self.unplace(id);
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
            self.unplace(id);
            let line = format!("#{id} could not begin: {}", e.message);
            for agent in begin.participants.values() {
                cx.tell(&AgentId::from(agent.as_str()), line.as_str());
            }
        }
        cx.undo(move |w| w.place(id));
        self.begun_elsewhere(cx, id);
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
                    self.following.beginning.waiting.insert(id, begin);
                }
                Err(e) => tracing::warn!(key, error = %e, "a kept begin could not be read"),
            }
        }
    }

    /// A copy of `id` has begun: it waits no more, however the town heard.
    pub(super) fn copy_begun(&mut self, cx: &mut Cx, id: SessionId) {
        self.begun_elsewhere(cx, id);
    }
}
