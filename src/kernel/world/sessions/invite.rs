//! Invitations: a session that names anyone besides its creator and the house waits until each
//! of them agrees, on any face, before it begins. Until then no clock runs, no deadline falls,
//! no rating or running-session slot is touched, and anyone asked can decline; an invitation
//! nobody answers lapses by itself. So a stranger who learnt an id can no more start a game
//! for its owner (fifty rated one-minute games, lost on time) than take a move for them.
//!
//! An invitation is stored as soon as it is made (in the modules' kept state, under
//! [`KEPT_AS`]), so whoever was told of it finds it after a restart, and it keeps the session
//! id it was given: the game, once everyone agrees, begins under that id.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::{Created, ErrorCode, HostError, Participant, SessionId, StateView, Summary, iso};
use crate::game_api::Template;
use crate::store::keys::{self, StateRow};
use crate::world::{AgentId, Cx, World, is_house};

/// Under this name in the kept state.
pub const KEPT_AS: &str = "invitations";

/// How long an invitation waits for its answers unless the town says otherwise
/// (`--invitation-lapse`): long enough to finish a game first, short enough that a list of
/// them stays a list of people who are still there.
pub const DEFAULT_LAPSE: Duration = Duration::from_secs(600);

/// The status a waiting session reports on every face.
pub const WAITING: &str = "waiting";

/// A session checked and ready to begin: what its creator asked for, every role filled.
pub(super) struct Plan {
    pub template: &'static Template,
    pub participants: Vec<Participant>,
    /// The template's own options (the host's `rated` taken out).
    pub options: Value,
    pub rated: bool,
    /// The deal its maker chose (`deal`), its seed, for a series that must be played again the
    /// same way (`moot arena`); `None`: drawn when it begins. Never shown before the end.
    pub deal: Option<u64>,
}

/// A session that waits for its players' agreement.
pub struct Invitation {
    pub id: SessionId,
    pub(super) plan: Plan,
    /// Who asked.
    pub from: AgentId,
    /// Who has agreed so far, the one who asked first. The house agrees to what it is asked.
    pub agreed: Vec<AgentId>,
    /// When it was made and when it lapses, on the wall (a restart keeps both).
    pub made: SystemTime,
    pub lapses: SystemTime,
}

impl Invitation {
    /// Everything it holds, for the tests' fingerprint of the world.
    #[cfg(feature = "testing")]
    pub fn fingerprint(&self) -> String {
        let Invitation {
            id,
            plan:
                Plan {
                    template,
                    participants,
                    options,
                    rated,
                    deal,
                },
            from,
            agreed,
            made,
            lapses,
        } = self;
        let participants: Vec<String> = participants.iter().map(super::fingerprint_of).collect();
        format!(
            "id: {id:?}, template: {}, participants: {participants:?}, options: {options}, \
             rated: {rated}, deal: {deal:?}, from: {from:?}, agreed: {agreed:?}, made: {made:?}, lapses: {lapses:?}",
            template.id
        )
    }

    /// The players it still waits for.
    pub fn waiting_for(&self) -> impl Iterator<Item = &Participant> {
        self.plan
            .participants
            .iter()
            .filter(|p| !is_house(&p.agent) && !self.agreed.contains(&p.agent))
    }

    pub fn template(&self) -> &'static Template {
        self.plan.template
    }

    /// Who plays what in the game it would begin.
    pub fn participants(&self) -> &[Participant] {
        &self.plan.participants
    }

    /// Whether the game it would begin is rated.
    pub fn rated(&self) -> bool {
        self.plan.rated
    }

    /// The template's options it asks for.
    pub fn options(&self) -> &Value {
        &self.plan.options
    }

    pub fn role_of(&self, agent: &str) -> Option<&'static str> {
        self.plan
            .participants
            .iter()
            .find(|p| &*p.agent == agent)
            .map(|p| p.role)
    }

    /// "Ann (white) vs Bob (black)"
    pub fn players_line(&self) -> String {
        super::players_line(&self.plan.participants)
    }

    fn name_of<'a>(&'a self, agent: &'a AgentId) -> &'a str {
        self.plan
            .participants
            .iter()
            .find(|p| p.agent == *agent)
            .map_or(&**agent, |p| p.name.as_str())
    }

    /// Its terms in a few words: "rated, clock 1+0".
    pub fn terms(&self) -> String {
        let mut terms = vec![if self.plan.rated { "rated" } else { "casual" }.to_owned()];
        // Never the deal itself: only that its maker knows it.
        if self.plan.deal.is_some() {
            terms.push(format!("the deal chosen by {}", self.name_of(&self.from)));
        }
        if let Some(o) = self.plan.options.as_object() {
            for (k, v) in o {
                match v {
                    Value::String(s) => terms.push(format!("{k} {s}")),
                    other => terms.push(format!("{k} {other}")),
                }
            }
        }
        terms.join(", ")
    }

    /// What every face shows of it as its state: who asked, who agreed, who it waits for.
    fn state(&self) -> Value {
        json!({
            "invitation": {
                "from": self.from.to_string(),
                "rated": self.plan.rated,
                "dealt": self.plan.deal.is_some(),
                "options": self.plan.options,
                "agreed": self.agreed.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
                "waiting_for": self.waiting_for().map(|p| p.agent.to_string()).collect::<Vec<_>>(),
                "lapses_at": iso(self.lapses),
            }
        })
    }

    fn kept(&self) -> StateRow {
        let participants: BTreeMap<&str, String> = self
            .plan
            .participants
            .iter()
            .map(|p| (p.role, p.agent.to_string()))
            .collect();
        let value = json!({
            "template": self.plan.template.id,
            "participants": participants,
            "options": self.plan.options,
            "rated": self.plan.rated,
            "deal": self.plan.deal,
            "from": self.from.to_string(),
            "agreed": self.agreed.iter().map(|a| a.to_string()).collect::<Vec<_>>(),
            "made": iso(self.made),
            "lapses": iso(self.lapses),
        });
        StateRow {
            module: KEPT_AS.into(),
            key: self.id.to_string(),
            value: value.to_string(),
        }
    }
}

/// What an answer to an invitation did.
#[derive(Debug, Clone)]
pub enum Answer {
    /// Everyone has agreed: the game began.
    Began(Created),
    /// Agreed; it still waits for others.
    Waiting(Created),
    /// Declined (or withdrawn by the one who asked): it is gone.
    Declined(Created),
}

impl Answer {
    pub fn created(&self) -> &Created {
        match self {
            Answer::Began(c) | Answer::Waiting(c) | Answer::Declined(c) => c,
        }
    }
}

impl World {
    /// Sets how long an invitation waits for its answers.
    pub fn lapse_invitations_after(&mut self, after: Duration) {
        self.invitation_lapse = after;
    }

    /// The invitation `id`, if it is waiting.
    /// Every waiting session that names `agent`, asked by them or of them, oldest first.
    pub fn invitations_naming<'a>(
        &'a self,
        agent: &'a str,
    ) -> impl Iterator<Item = &'a Invitation> {
        self.invitations
            .values()
            .filter(move |i| i.role_of(agent).is_some())
    }

    pub fn invitation(&self, id: SessionId) -> Option<&Invitation> {
        self.invitations.get(&id)
    }

    /// The invitations `agent` takes part in (made or received), oldest first.
    pub fn invitations_of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = &'a Invitation> {
        self.invitations
            .values()
            .filter(move |i| i.role_of(agent).is_some())
    }

    /// Makes `plan` an invitation from `cx.actor`, stored, and tells whom it asks (with
    /// `wording`, where a verb has its own; otherwise in the host's words).
    pub(super) fn invite(
        &mut self,
        cx: &mut Cx,
        reserved: Option<SessionId>,
        plan: Plan,
        wording: Option<String>,
    ) -> Result<Created, HostError> {
        let from = cx.actor.clone();
        if self.max_sessions > 0 {
            let asked = self.invitations.values().filter(|i| i.from == from).count();
            if asked >= self.max_sessions {
                return Err(HostError::new(
                    ErrorCode::Conflict,
                    format!(
                        "You have {asked} invitations waiting for an answer; let them be \
                         answered (or lapse) before you make another"
                    ),
                ));
            }
        }
        // One standing invitation a pair and game: asking again replaces the last.
        let again: Vec<SessionId> = self
            .invitations
            .values()
            .filter(|i| {
                i.from == from
                    && i.plan.template.id == plan.template.id
                    && same_players(&i.plan.participants, &plan.participants)
            })
            .map(|i| i.id)
            .collect();
        for old in again {
            self.drop_invitation(cx, old);
        }
        let id = reserved.unwrap_or_else(|| self.reserve_session_id());
        let made = self.wall_now();
        let invitation = Invitation {
            id,
            plan,
            from: from.clone(),
            agreed: vec![from.clone()],
            made,
            lapses: made + self.invitation_lapse,
        };
        cx.save(keys::put_state(invitation.kept()), move |w| {
            w.invitations.remove(&id);
        });
        let t = invitation.plan.template;
        let from_name = invitation.name_of(&from).to_owned();
        let line = wording.unwrap_or_else(|| {
            format!(
                "{from_name} invites you to a game of {} ({}): #{id}, {}. Type `accept {from_name}` \
                 or `decline {from_name}`; it lapses in {}.",
                t.title,
                invitation.terms(),
                invitation.players_line(),
                humantime::format_duration(self.invitation_lapse),
            )
        });
        let asked: Vec<AgentId> = invitation.waiting_for().map(|p| p.agent.clone()).collect();
        for who in &asked {
            cx.tell(who, line.as_str());
        }
        wake_players(cx, &invitation.plan.participants);
        self.invitations.insert(id, invitation);
        Ok(Created {
            id,
            session_id: id.to_string(),
            template: t.id.to_owned(),
            status: WAITING.to_owned(),
        })
    }

    /// `cx.actor` agrees to invitation `id`; once everyone has, the game begins.
    pub fn accept_invitation(&mut self, cx: &mut Cx, id: SessionId) -> Result<Answer, HostError> {
        let me = cx.actor.clone();
        let inv = self.asked(id, &me)?;
        if inv.agreed.contains(&me) {
            return Err(HostError::new(
                ErrorCode::Conflict,
                format!("You have already accepted {id}; it waits for the others"),
            ));
        }
        let left = inv.waiting_for().filter(|p| p.agent != me).count();
        if left > 0 {
            let inv = self.invitations.get_mut(&id).ok_or_else(|| gone(id))?;
            inv.agreed.push(me.clone());
            let row = inv.kept();
            let who = me.clone();
            cx.save(keys::put_state(row), move |w| {
                if let Some(i) = w.invitations.get_mut(&id) {
                    i.agreed.retain(|a| *a != who);
                }
            });
            let created = self.invitation_created(id)?;
            return Ok(Answer::Waiting(created));
        }
        // Everyone has agreed: each is held to the running-session limit they agreed under.
        self.check_slots(id)?;
        let inv = self.invitations.remove(&id).ok_or_else(|| gone(id))?;
        // Everyone agreed here: where the town has game worlds, it begins on one.
        let began = if self.places_what_it_seats() {
            self.begin_elsewhere(cx, Some(id), &inv.plan)
        } else {
            self.start(cx, Some(id), &inv.plan)
        };
        match began {
            Ok(created) => {
                // Should the start not be stored, the invitation waits again as it was.
                cx.save(keys::drop_state(KEPT_AS, id.to_string()), move |w| {
                    w.invitations.insert(id, inv);
                });
                Ok(Answer::Began(created))
            }
            Err(e) => {
                self.invitations.insert(id, inv);
                Err(e)
            }
        }
    }

    /// `cx.actor` declines invitation `id` (or, if they made it, withdraws it); the others
    /// are told.
    pub fn decline_invitation(&mut self, cx: &mut Cx, id: SessionId) -> Result<Answer, HostError> {
        let me = cx.actor.clone();
        let inv = self.asked(id, &me)?;
        let my_name = inv.name_of(&me).to_owned();
        let title = inv.plan.template.title;
        let others: Vec<AgentId> = inv
            .plan
            .participants
            .iter()
            .filter(|p| p.agent != me && !is_house(&p.agent))
            .map(|p| p.agent.clone())
            .collect();
        let line = if inv.from == me {
            format!("{my_name} withdraws the invitation to a game of {title} (#{id}).")
        } else {
            format!("{my_name} declines the game of {title} (#{id}).")
        };
        let created = self.invitation_created(id)?;
        self.drop_invitation(cx, id);
        for who in others {
            cx.tell(&who, line.as_str());
        }
        Ok(Answer::Declined(Created {
            status: "declined".to_owned(),
            ..created
        }))
    }

    /// The invitations that have waited too long go, and their players are told; called as
    /// time passes.
    pub fn lapse_invitations(&mut self, cx: &mut Cx) {
        let now = self.wall_now();
        let due: Vec<SessionId> = self
            .invitations
            .values()
            .filter(|i| i.lapses <= now)
            .map(|i| i.id)
            .collect();
        for id in due {
            let Some(inv) = self.invitations.get(&id) else {
                continue;
            };
            let line = format!(
                "The invitation to a game of {} (#{id}: {}) has lapsed unanswered.",
                inv.plan.template.title,
                inv.players_line()
            );
            let players: Vec<AgentId> = inv
                .plan
                .participants
                .iter()
                .filter(|p| !is_house(&p.agent))
                .map(|p| p.agent.clone())
                .collect();
            self.drop_invitation(cx, id);
            for who in players {
                cx.tell(&who, line.as_str());
            }
        }
    }

    /// The invitations waiting when moot stopped wait again, under the ids they were given
    /// (those that lapsed meanwhile go at the next tick, with word to their players).
    pub fn restore_invitations(&mut self, kept: &keys::Kept) {
        for (key, value) in kept.state_of(KEPT_AS) {
            let row = StateRow {
                module: KEPT_AS.into(),
                key: key.into(),
                value: value.into(),
            };
            match self.invitation_from_row(&row) {
                Some(inv) => {
                    self.keep_session_id(inv.id);
                    self.invitations.insert(inv.id, inv);
                }
                None => tracing::warn!(key, "a kept invitation could not be read"),
            }
        }
    }

    /// Whether an invitation is waiting: for a face that must tell "not begun" from "none".
    pub fn waiting_state(
        &self,
        id: SessionId,
        agent: &str,
    ) -> Option<Result<StateView, HostError>> {
        let inv = self.invitations.get(&id)?;
        Some(match inv.role_of(agent) {
            Some(role) => Ok(StateView {
                session_id: id.to_string(),
                template: inv.plan.template.id.to_owned(),
                status: WAITING.to_owned(),
                tick: 0,
                state: inv.state(),
                your_role: role.to_owned(),
                legal_actions: Vec::new(),
            }),
            None => Err(not_yours(id)),
        })
    }

    /// An action in a session that has not begun.
    pub(super) fn not_begun(&self, id: SessionId) -> Option<HostError> {
        let inv = self.invitations.get(&id)?;
        let names: Vec<String> = inv.waiting_for().map(|p| p.name.clone()).collect();
        Some(HostError::new(
            ErrorCode::Conflict,
            format!(
                "Session {id} has not begun: it waits for {} to accept",
                crate::text::english_list(&names)
            ),
        ))
    }

    /// `agent`'s invitations as list rows, as [`World::sessions_of`] lists sessions.
    pub(super) fn invitation_rows(&self, agent: &str) -> Vec<Summary> {
        self.invitations_of(agent)
            .filter_map(|i| {
                Some(Summary {
                    session_id: i.id.to_string(),
                    template: i.plan.template.id.to_owned(),
                    status: WAITING.to_owned(),
                    tick: 0,
                    your_role: i.role_of(agent)?.to_owned(),
                    participants: i
                        .plan
                        .participants
                        .iter()
                        .map(|p| (p.role.to_owned(), p.agent.to_string()))
                        .collect(),
                    created_at: iso(i.made),
                })
            })
            .collect()
    }

    /// The invitation `id` to (or from) `me`, or why not.
    fn asked(&self, id: SessionId, me: &str) -> Result<&Invitation, HostError> {
        let Some(inv) = self.invitations.get(&id) else {
            return Err(if self.session(id).is_some() {
                HostError::new(
                    ErrorCode::Conflict,
                    format!("Session {id} has already begun"),
                )
            } else {
                HostError::new(ErrorCode::NotFound, format!("No invitation {id}"))
            });
        };
        if inv.role_of(me).is_none() {
            return Err(not_yours(id));
        }
        Ok(inv)
    }

    fn invitation_created(&self, id: SessionId) -> Result<Created, HostError> {
        let inv = self.invitations.get(&id).ok_or_else(|| gone(id))?;
        Ok(Created {
            id,
            session_id: id.to_string(),
            template: inv.plan.template.id.to_owned(),
            status: WAITING.to_owned(),
        })
    }

    /// Takes invitation `id` away, stored, with what puts it back.
    fn drop_invitation(&mut self, cx: &mut Cx, id: SessionId) {
        let Some(inv) = self.invitations.remove(&id) else {
            return;
        };
        wake_players(cx, &inv.plan.participants);
        cx.save(keys::drop_state(KEPT_AS, id.to_string()), move |w| {
            w.invitations.insert(id, inv);
        });
    }

    /// Refuses a start that would put anyone past the running sessions they may take part in.
    fn check_slots(&self, id: SessionId) -> Result<(), HostError> {
        if self.max_sessions == 0 {
            return Ok(());
        }
        let Some(inv) = self.invitations.get(&id) else {
            return Ok(());
        };
        for p in inv.plan.participants.iter().filter(|p| !is_house(&p.agent)) {
            let running = self.running_sessions_of(&p.agent);
            if running >= self.max_sessions {
                return Err(HostError::new(
                    ErrorCode::Conflict,
                    format!(
                        "{} already takes part in {running} running sessions; the game can \
                         begin once they finish some",
                        p.name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// An invitation as it was kept, if it still names a game and players the town knows.
    fn invitation_from_row(&self, row: &StateRow) -> Option<Invitation> {
        let id: SessionId = row.key.parse().ok()?;
        let v: Value = serde_json::from_str(&row.value).ok()?;
        let template = self.template(v["template"].as_str()?)?;
        let roles = v["participants"].as_object()?;
        let mut participants = Vec::new();
        for role in template.roles {
            let agent = roles.get(*role)?.as_str()?;
            participants.push(Participant {
                role,
                agent: agent.into(),
                name: self.directory.name_of(agent)?,
            });
        }
        let strings = |v: &Value| -> Option<Vec<AgentId>> {
            v.as_array()?
                .iter()
                .map(|a| a.as_str().map(AgentId::from))
                .collect()
        };
        let time = |v: &Value| humantime::parse_rfc3339(v.as_str()?).ok();
        Some(Invitation {
            id,
            plan: Plan {
                template,
                participants,
                options: v["options"].clone(),
                rated: v["rated"].as_bool()?,
                deal: v["deal"].as_u64(),
            },
            from: v["from"].as_str()?.into(),
            agreed: strings(&v["agreed"])?,
            made: time(&v["made"])?,
            lapses: time(&v["lapses"])?,
        })
    }
}

/// Wakes whoever waits on what asks `players` to play (a bot's event stream): an invitation
/// made or gone, a game begun or ended. The house waits on nothing.
pub(super) fn wake_players(cx: &mut Cx, players: &[Participant]) {
    for p in players.iter().filter(|p| !is_house(&p.agent)) {
        cx.changed
            .push(crate::world::Awaited::Agent(p.agent.clone()));
    }
}

/// Whether two casts name the same players in the same roles.
fn same_players(a: &[Participant], b: &[Participant]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.role == y.role && x.agent == y.agent)
}

fn gone(id: SessionId) -> HostError {
    HostError::new(ErrorCode::NotFound, format!("No invitation {id}"))
}

fn not_yours(id: SessionId) -> HostError {
    HostError::new(
        ErrorCode::Forbidden,
        format!("You are not a participant in session {id}"),
    )
}
