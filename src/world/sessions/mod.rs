//! Game sessions (seed 004's state-machine host), owned by the world like everything live. This
//! is the generic host: it knows templates only through [`crate::games::AnyGame`].
//!
//! A session is a template's game plus who plays which role and how many actions it has taken
//! (its tick). Every change is checked here (identity, turn, tick, legality), stamped with its
//! game time and written to the append-only log before anyone is told it happened. Errors carry
//! the REST API's codes, so every face (REST, MCP, telnet) answers a bad action the same way.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{AgentId, Cx, RoomIdx, World};
use crate::games::{self, AnyGame, GameError, GameTime, Template};
use crate::store::sessions::{SessionRow, StoredSession};
use crate::store::writes;

pub type SessionId = u64;

/// The error codes of seed 004 (and moot's own), with their HTTP statuses: the one place they
/// are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    Unauthorized,
    Forbidden,
    NotFound,
    InvalidAction,
    Conflict,
    InvalidRequest,
    AlreadyActed,
    /// Too many actions too fast (429, with a retry-after).
    RateLimited,
    /// The database could not store it, so it did not happen (503, retryable).
    StorageUnavailable,
    /// moot is stopping (503).
    Unavailable,
    /// The request met a bug in moot and was undone (500); nothing changed.
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 11] = [
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::InvalidAction,
        ErrorCode::Conflict,
        ErrorCode::InvalidRequest,
        ErrorCode::AlreadyActed,
        ErrorCode::RateLimited,
        ErrorCode::StorageUnavailable,
        ErrorCode::Unavailable,
        ErrorCode::Internal,
    ];

    /// As the API writes it: `NOT_FOUND`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::InvalidAction => "INVALID_ACTION",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::AlreadyActed => "ALREADY_ACTED",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::StorageUnavailable => "STORAGE_UNAVAILABLE",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL",
        }
    }

    pub fn status(self) -> u16 {
        match self {
            ErrorCode::StorageUnavailable | ErrorCode::Unavailable => 503,
            ErrorCode::Internal => 500,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Conflict => 409,
            ErrorCode::RateLimited => 429,
            ErrorCode::InvalidAction | ErrorCode::InvalidRequest | ErrorCode::AlreadyActed => 400,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HostError {
    pub code: ErrorCode,
    pub message: String,
    /// For [`ErrorCode::RateLimited`]: when to try again.
    pub retry_after: Option<std::time::Duration>,
    /// The stable code of a refusal (Werewolf's `WRONG_PHASE`, any game's `NOT_YOUR_TURN`), for
    /// faces that speak those codes; the general code above is what the REST API says.
    pub detail: Option<games::Code>,
}

impl HostError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> HostError {
        HostError {
            code,
            message: message.into(),
            retry_after: None,
            detail: None,
        }
    }
}

impl From<GameError> for HostError {
    fn from(e: GameError) -> HostError {
        let code = match e {
            GameError::AlreadyActed => ErrorCode::AlreadyActed,
            GameError::BadOptions(_) => ErrorCode::InvalidRequest,
            GameError::Refused {
                code: games::Code::RateLimited,
                ..
            } => ErrorCode::RateLimited,
            _ => ErrorCode::InvalidAction,
        };
        let mut h = HostError::new(code, e.to_string());
        if matches!(e, GameError::NotYourTurn) {
            h.detail = Some(games::Code::NotYourTurn);
        }
        if let GameError::Refused {
            code,
            retry_after_ms,
            ..
        } = e
        {
            h.detail = Some(code);
            h.retry_after = retry_after_ms.map(std::time::Duration::from_millis);
        }
        h
    }
}

pub struct Participant {
    pub role: &'static str,
    pub agent: AgentId,
    pub name: String,
}

pub struct Session {
    pub id: SessionId,
    pub template: &'static Template,
    pub game: Box<dyn AnyGame>,
    pub tick: u64,
    pub seed: u64,
    pub options: Value,
    /// In the template's role order.
    pub participants: Vec<Participant>,
    /// Where it stands in the town, if anywhere.
    pub room: Option<RoomIdx>,
    pub created_at: String,
    /// When it began, on the wall: game time counts from here.
    pub started: std::time::SystemTime,
    /// The log as stored (a copy kept for faces that cannot wait on the database).
    pub log: Vec<crate::store::sessions::LogEntry>,
}

impl Session {
    /// The tick as `role` (`None`: a spectator) knows it: while the game runs, how many of its
    /// actions they may see, so that an action hidden from them moves nothing they can read
    /// (a Werewolf night action); once it is over, every action.
    pub fn tick_for(&self, role: Option<&str>) -> u64 {
        if !self.template.hides_actions || self.game.is_terminal() {
            return self.tick;
        }
        self.log
            .iter()
            .filter(|e| self.game.action_view(role, &e.role, &e.action).is_some())
            .count() as u64
    }

    pub fn status(&self) -> &'static str {
        if self.game.is_terminal() {
            "completed"
        } else {
            "active"
        }
    }

    pub fn role_of(&self, agent: &str) -> Option<&'static str> {
        self.participants
            .iter()
            .find(|p| &*p.agent == agent)
            .map(|p| p.role)
    }

    /// "Ann (white) vs Bob (black)"
    pub fn players_line(&self) -> String {
        self.participants
            .iter()
            .map(|p| format!("{} ({})", p.name, p.role))
            .collect::<Vec<_>>()
            .join(" vs ")
    }
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Created {
    /// The new session, for the code that made it (the faces are given `session_id`).
    #[serde(skip)]
    pub id: SessionId,
    pub session_id: String,
    pub template: String,
    pub status: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StateView {
    pub session_id: String,
    pub template: String,
    pub status: String,
    pub tick: u64,
    /// The state as the caller may see it.
    pub state: Value,
    pub your_role: String,
    pub legal_actions: Vec<String>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Acted {
    pub tick: u64,
    pub state: Value,
    pub status: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Summary {
    pub session_id: String,
    pub template: String,
    pub status: String,
    pub tick: u64,
    pub your_role: String,
    /// role → agent id
    pub participants: BTreeMap<String, String>,
    pub created_at: String,
}

/// Why a stored session does not rebuild; start-up stops on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("session {session}: {problem}")]
pub struct ReplayError {
    pub session: String,
    pub problem: String,
}

/// A wall time as the database stores it.
pub fn iso(t: std::time::SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

fn not_found(id: &str) -> HostError {
    HostError::new(ErrorCode::NotFound, format!("No session {id}"))
}

/// What an action did, in words for everyone following the game: the template says what
/// (hidden choices stay hidden), the host says who. Called once the action is applied.
fn headline(s: &Session, agent: &str, role: &str, action: &str) -> String {
    let what = s.game.headline(role, action);
    if what.is_empty() {
        // The template tells its followers everything in its notes.
        return what;
    }
    let mut line = if role == crate::games::SERVER_ROLE {
        // The server actor is nobody: the template's words stand alone.
        format!("#{}: {what}.", s.id)
    } else {
        let who = s
            .participants
            .iter()
            .find(|p| &*p.agent == agent)
            .map_or(agent, |p| p.name.as_str());
        format!("#{}: {who} ({role}) {what}.", s.id)
    };
    if let Some(end) = s.game.ending() {
        line.push_str(&format!(" Game over: {end}."));
    }
    line
}

/// Session ids are decimal numbers (also the town's `#N` for a board), written one way only:
/// `01`, `+1` or ` 1` name no session. Every face parses ids with this, once, at its edge, so
/// the world and the log only ever see the canonical id.
pub fn parse_id(id: &str) -> Result<SessionId, HostError> {
    let canonical = !id.is_empty()
        && id.len() <= 19
        && id.bytes().all(|b| b.is_ascii_digit())
        && !id.starts_with('0');
    canonical
        .then(|| id.parse().ok())
        .flatten()
        .ok_or_else(|| not_found(id))
}

impl World {
    /// The room where sessions of `template` stand: the room with the matching table.
    fn room_for(&self, t: &Template) -> Option<RoomIdx> {
        self.map
            .rooms
            .iter()
            .position(|r| r.things.iter().any(|th| th.kind.name() == t.table))
    }

    /// The template called `id`, if the town has the game.
    pub fn template(&self, id: &str) -> Option<&'static Template> {
        self.templates.iter().copied().find(|t| t.id == id)
    }

    /// Every game the town has, in the order the modules list them.
    pub fn templates(&self) -> impl Iterator<Item = &'static Template> + '_ {
        self.templates.iter().copied()
    }

    pub fn session_ids(&self) -> Vec<SessionId> {
        self.sessions.keys().copied().collect()
    }

    pub fn session(&self, id: SessionId) -> Option<&Session> {
        self.sessions.get(&id)
    }

    /// The sessions standing in `room`.
    pub fn sessions_in(&self, room: RoomIdx) -> impl Iterator<Item = &Session> {
        self.sessions.values().filter(move |s| s.room == Some(room))
    }

    /// Starts a session. `participants` maps each role to an agent id; the creator must be one.
    pub fn create_session(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        self.create_session_as(cx, None, template, participants, options)
    }

    /// Sets aside a session id for a game that begins later (one waiting for its second player).
    pub fn reserve_session_id(&mut self) -> SessionId {
        let id = self.next_session;
        self.next_session += 1;
        id
    }

    /// A receiver whose `changed()` fires at session `sid`'s next change (or its creation, for
    /// a reserved id). Taken in the same world call as the answer it follows, no change can
    /// slip in between. Many may wait on one session without a thread each.
    pub fn watch_session(&mut self, sid: SessionId) -> tokio::sync::watch::Receiver<u64> {
        self.ticks
            .entry(sid)
            .or_insert_with(|| tokio::sync::watch::channel(0).0)
            .subscribe()
    }

    /// Wakes whoever waits on `sid`; called once what changed it is stored.
    pub(super) fn tick_changed(&self, sid: SessionId) {
        if let Some(tx) = self.ticks.get(&sid) {
            tx.send_modify(|version| *version += 1);
        }
    }

    /// [`World::create_session`] with an id set aside earlier, if any.
    pub fn create_session_as(
        &mut self,
        cx: &mut Cx,
        reserved: Option<SessionId>,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        self.create(cx, reserved, template, participants, options, false)
    }

    /// A session the town itself starts for people who each asked to play (a Werewolf match
    /// from its notice board), where a caller may put nobody but themselves and the house's
    /// players into a game that keeps its players from the town.
    pub fn create_town_session(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        self.create(cx, None, template, participants, options, true)
    }

    fn create(
        &mut self,
        cx: &mut Cx,
        reserved: Option<SessionId>,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
        by_town: bool,
    ) -> Result<Created, HostError> {
        let invalid = |m: String| HostError::new(ErrorCode::InvalidRequest, m);
        let t = self.template(template).ok_or_else(|| {
            let known: Vec<&str> = self.templates().map(|t| t.id).collect();
            invalid(format!(
                "Unknown template `{template}`; known: {}",
                known.join(", ")
            ))
        })?;
        if let Some(extra) = participants.keys().find(|r| !t.roles.contains(&r.as_str())) {
            return Err(invalid(format!(
                "{} has no role `{extra}`; its roles are {}",
                t.id,
                t.roles.join(", ")
            )));
        }
        let mut parts = Vec::new();
        for role in t.roles {
            let agent = participants
                .get(*role)
                .ok_or_else(|| invalid(format!("Role `{role}` is not filled")))?;
            if agent == super::SERVER_ID {
                // The server acts only at deadlines, never for a role: a session waiting on it
                // would wait for good.
                return Err(invalid(format!(
                    "`{agent}` is the server's own identity and cannot take a role"
                )));
            }
            let name = self
                .directory
                .name_of(agent)
                .ok_or_else(|| invalid(format!("Unknown agent `{agent}`")))?;
            if parts
                .iter()
                .any(|p: &Participant| &*p.agent == agent.as_str())
            {
                return Err(invalid(format!("Agent `{agent}` cannot take two roles")));
            }
            parts.push(Participant {
                role,
                agent: agent.as_str().into(),
                name,
            });
        }
        if !parts.iter().any(|p| p.agent == cx.actor) {
            return Err(HostError::new(
                ErrorCode::Forbidden,
                "You must be one of the participants",
            ));
        }
        // A game that keeps its players from the town (Werewolf) is joined by each player
        // themselves: nobody can make others deaf to the town, nor be kept by two at once.
        if t.secludes && !by_town {
            if let Some(p) = parts
                .iter()
                .find(|p| p.agent != cx.actor && !super::is_house(&p.agent))
            {
                return Err(HostError::new(
                    ErrorCode::Forbidden,
                    format!(
                        "You cannot put {} in a {} match: its players hear nothing of the town \
                         while it runs, so each joins it themselves (the notice board)",
                        p.name, t.title
                    ),
                ));
            }
            if let Some(sid) = self.secluded.get(&cx.actor) {
                return Err(HostError::new(
                    ErrorCode::Conflict,
                    format!("You are playing in match {sid}; finish it first"),
                ));
            }
        }
        if self.max_sessions > 0 {
            let running = self
                .sessions
                .values()
                .filter(|s| !s.game.is_terminal() && s.role_of(&cx.actor).is_some())
                .count();
            if running >= self.max_sessions {
                return Err(HostError::new(
                    ErrorCode::Conflict,
                    format!(
                        "You already take part in {running} running sessions; finish some \
                         before you start another"
                    ),
                ));
            }
        }
        let seed = self.draw_seed();
        let game = (t.new)(seed, &options)?;
        let id = reserved.unwrap_or_else(|| self.reserve_session_id());
        let started = self.wall_now();
        let created_at = iso(started);
        let row = SessionRow {
            session_id: id.to_string(),
            template: t.id.to_owned(),
            state: game.state().to_string(),
            status: "active".into(),
            tick: 0,
            seed,
            options: options.to_string(),
            created_at: created_at.clone(),
        };
        let stored_parts = parts
            .iter()
            .map(|p| (p.role.to_owned(), p.agent.to_string()))
            .collect();
        let (write, template) = (writes::create_session(row, stored_parts), t.id);
        cx.save(
            move |c| {
                write(c)?;
                tracing::info!(target: crate::logging::AUDIT, event = "match_start", session = id, template);
                Ok(())
            },
            move |w| {
                w.sessions.remove(&id);
                w.schedule(id);
            },
        );
        let session = Session {
            id,
            template: t,
            game,
            tick: 0,
            seed,
            options,
            participants: parts,
            room: self.room_for(t),
            created_at,
            started,
            log: Vec::new(),
        };
        let status = session.status().to_owned();
        if let Some(room) = session.room {
            let line = format!(
                "A new {} game begins here: #{id}, {}.",
                session.template.id,
                session.players_line()
            );
            cx.tell_room(self, room, &cx.actor.clone(), line);
        }
        self.sessions.insert(id, session);
        cx.changed.push(id);
        let players = self.sessions[&id].players_line();
        let creator = cx.actor.clone();
        let news = format!("#{id}: a new {} game: {players}.", t.id);
        self.announce(cx, &creator, id, news, &[]);
        let opening = self
            .session(id)
            .map(|s| s.game.opening_notes())
            .unwrap_or_default();
        self.tell_notes(cx, id, &opening);
        self.schedule(id);
        self.computer_turn(cx, id);
        Ok(Created {
            id,
            session_id: id.to_string(),
            template: t.id.to_owned(),
            status,
        })
    }

    /// Takes an action for `cx.actor` in session `id`. `expected_tick` is required by
    /// turn-based templates and must equal the session's tick.
    pub fn act(
        &mut self,
        cx: &mut Cx,
        id: SessionId,
        action: &str,
        expected_tick: Option<u64>,
    ) -> Result<Acted, HostError> {
        let actor = cx.actor.clone();
        self.act_as(cx, &actor, id, action, expected_tick)
    }

    /// [`World::act`] on behalf of `agent` (the actor, or the computer answering).
    pub fn act_as(
        &mut self,
        cx: &mut Cx,
        agent: &AgentId,
        sid: SessionId,
        action: &str,
        expected_tick: Option<u64>,
    ) -> Result<Acted, HostError> {
        let id = sid;
        let s = self
            .sessions
            .get(&sid)
            .ok_or_else(|| not_found(&id.to_string()))?;
        let Some(role) = s.role_of(agent) else {
            return Err(HostError::new(
                ErrorCode::Forbidden,
                format!("You are not a participant in session {id}"),
            ));
        };
        if s.game.is_terminal() {
            return Err(HostError::new(
                ErrorCode::InvalidAction,
                format!("Session {id} is completed"),
            ));
        }
        if s.template.sequential {
            let expected = expected_tick.ok_or_else(|| {
                HostError::new(
                    ErrorCode::InvalidRequest,
                    format!("expected_tick is required for {}", s.template.id),
                )
            })?;
            let tick = s.tick_for(Some(role));
            if expected != tick {
                return Err(HostError::new(
                    ErrorCode::Conflict,
                    format!("expected_tick {expected} does not match the current tick {tick}"),
                ));
            }
        }
        // Logged as the template spells it (chess: SAN becomes UCI), whatever face it came by.
        let canonical = s.game.canonical(role, action);
        // A deadline that has fallen due comes first: the flag fell before this move arrived.
        let now = self.game_time(s);
        if s.game.deadline().is_some_and(|d| d.at <= now) && self.take_deadline(cx, sid) {
            return self.act_as(cx, agent, sid, action, expected_tick);
        }
        self.record(cx, agent, sid, canonical.as_deref().unwrap_or(action), now)
    }

    /// Applies `action` by `agent` (a participant, or the server actor) at game time `at`,
    /// logs it, and tells everyone who follows the session.
    pub(super) fn record(
        &mut self,
        cx: &mut Cx,
        agent: &AgentId,
        sid: SessionId,
        action: &str,
        at: GameTime,
    ) -> Result<Acted, HostError> {
        let id = sid;
        let s = self
            .sessions
            .get_mut(&sid)
            .ok_or_else(|| not_found(&id.to_string()))?;
        let role = if &**agent == super::SERVER_ID {
            games::SERVER_ROLE
        } else {
            s.role_of(agent).ok_or_else(|| {
                HostError::new(
                    ErrorCode::Forbidden,
                    format!("You are not a participant in session {id}"),
                )
            })?
        };
        let next = s.game.apply(role, action, at).map_err(|e| {
            // A template's wait is in game time; the caller waits in real time.
            let mut h = HostError::from(e);
            h.retry_after = h.retry_after.map(|d| self.time.real(d));
            h
        })?;
        // An action the public may not know was taken leaves no public trace (`Cx::hidden`).
        if role != games::SERVER_ROLE && next.action_view(None, role, action).is_none() {
            cx.hidden = true;
        }
        let tick = s.tick;
        let before = std::mem::replace(&mut s.game, next);
        let headline = headline(s, agent, role, action);
        let notes = s.game.notes(role, action);
        s.tick += 1;
        let status = s.status();
        let created = iso(self.time.wall(cx.now));
        s.log.push(crate::store::sessions::LogEntry {
            tick,
            role: role.to_owned(),
            action: action.to_owned(),
            agent_id: agent.to_string(),
            created_at: created.clone(),
            at_ms: at,
        });
        let ending = s
            .game
            .is_terminal()
            .then(|| (s.template.id, s.game.ending().unwrap_or_default()));
        let write = writes::record_action(
            id.to_string(),
            agent.to_string(),
            role.to_owned(),
            action.to_owned(),
            tick,
            s.game.state().to_string(),
            status,
            created,
            at,
        );
        cx.save(
            move |c| {
                write(c)?;
                if let Some((template, ending)) = ending {
                    tracing::info!(target: crate::logging::AUDIT, event = "match_end", session = sid, template, ending);
                }
                Ok(())
            },
            move |w| {
                if let Some(s) = w.sessions.get_mut(&sid) {
                    s.game = before;
                    s.tick = tick;
                    s.log.pop();
                }
                w.schedule(sid);
            },
        );
        let acted = Acted {
            tick: s.tick_for(Some(role)),
            state: s.game.view(Some(role)),
            status: status.to_owned(),
        };
        cx.changed.push(sid);
        self.announce(cx, agent, sid, headline, &notes);
        self.schedule(sid);
        self.computer_turn(cx, sid);
        self.session_changed(cx, sid);
        Ok(acted)
    }

    /// The session as `agent` may see it; only participants may look.
    pub fn session_state(&self, id: SessionId, agent: &str) -> Result<StateView, HostError> {
        let (s, role) = self.participant_of(id, agent)?;
        Ok(StateView {
            session_id: id.to_string(),
            template: s.template.id.to_owned(),
            status: s.status().to_owned(),
            tick: s.tick_for(Some(role)),
            state: s.game.view(Some(role)),
            your_role: role.to_owned(),
            legal_actions: s.game.legal_actions(role),
        })
    }

    /// The session's log as `agent`, a participant, may read it: while it runs, each entry as
    /// the template lets their role see it, numbered among those alone (a gap would count the
    /// hidden ones); once it is over, all of it.
    pub fn session_log(
        &self,
        id: SessionId,
        agent: &str,
    ) -> Result<Vec<crate::store::sessions::LogEntry>, HostError> {
        let (s, role) = self.participant_of(id, agent)?;
        if s.game.is_terminal() {
            // Every action, each as the template words it for a reader (a Werewolf reply names
            // the event it answers by the reader's own id).
            return Ok(s
                .log
                .iter()
                .map(|e| crate::store::sessions::LogEntry {
                    action: s
                        .game
                        .action_view(Some(role), &e.role, &e.action)
                        .unwrap_or_else(|| e.action.clone()),
                    ..e.clone()
                })
                .collect());
        }
        Ok(s.log
            .iter()
            .filter_map(|e| {
                let action = s.game.action_view(Some(role), &e.role, &e.action)?;
                Some(crate::store::sessions::LogEntry {
                    action,
                    ..e.clone()
                })
            })
            .enumerate()
            .map(|(i, e)| crate::store::sessions::LogEntry {
                tick: i as u64,
                ..e
            })
            .collect())
    }

    /// The session and the role `agent` plays in it, or why not.
    pub fn participant_of(
        &self,
        id: SessionId,
        agent: &str,
    ) -> Result<(&Session, &'static str), HostError> {
        let s = self
            .sessions
            .get(&id)
            .ok_or_else(|| not_found(&id.to_string()))?;
        let role = s.role_of(agent).ok_or_else(|| {
            HostError::new(
                ErrorCode::Forbidden,
                format!("You are not a participant in session {id}"),
            )
        })?;
        Ok((s, role))
    }

    /// Every session `agent` plays in, oldest first.
    pub fn sessions_of(&self, agent: &str) -> Vec<Summary> {
        self.sessions
            .values()
            .filter_map(|s| {
                let role = s.role_of(agent)?;
                Some(Summary {
                    session_id: s.id.to_string(),
                    template: s.template.id.to_owned(),
                    status: s.status().to_owned(),
                    tick: s.tick_for(Some(role)),
                    your_role: role.to_owned(),
                    participants: s
                        .participants
                        .iter()
                        .map(|p| (p.role.to_owned(), p.agent.to_string()))
                        .collect(),
                    created_at: s.created_at.clone(),
                })
            })
            .collect()
    }

    /// Rebuilds stored sessions by replaying each log through its template; the result must
    /// equal the stored state, tick and status, or start-up stops naming the session.
    pub fn restore_sessions(&mut self, stored: Vec<StoredSession>) -> Result<(), ReplayError> {
        for st in stored {
            let sid = st.row.session_id.clone();
            let fail = |problem: String| ReplayError {
                session: sid.clone(),
                problem,
            };
            let id: SessionId = sid
                .parse()
                .map_err(|_| fail("the session id is not a number".into()))?;
            let t = self
                .template(&st.row.template)
                .ok_or_else(|| fail(format!("unknown template `{}`", st.row.template)))?;
            let options: Value = serde_json::from_str(&st.row.options)
                .map_err(|e| fail(format!("bad options: {e}")))?;
            for (i, entry) in st.log.iter().enumerate() {
                if entry.tick != i as u64 {
                    return Err(fail(format!(
                        "the log skips from tick {} to {}",
                        i as i64 - 1,
                        entry.tick
                    )));
                }
            }
            let game = games::replay(
                t,
                st.row.seed,
                &options,
                st.log
                    .iter()
                    .map(|e| (e.role.as_str(), e.action.as_str(), e.at_ms)),
            )
            .map_err(|e| fail(format!("its log does not replay: {e}")))?;
            let stored_state: Value = serde_json::from_str(&st.row.state)
                .map_err(|e| fail(format!("bad stored state: {e}")))?;
            if game.state() != stored_state {
                return Err(fail(format!(
                    "replaying its log gives {} but {} is stored",
                    game.state(),
                    stored_state
                )));
            }
            let tick = st.log.len() as u64;
            if tick != st.row.tick {
                return Err(fail(format!(
                    "its log has {tick} actions but its tick is {}",
                    st.row.tick
                )));
            }
            let status = if game.is_terminal() {
                "completed"
            } else {
                "active"
            };
            if status != st.row.status {
                return Err(fail(format!(
                    "replay says {status} but {} is stored",
                    st.row.status
                )));
            }
            let mut participants = Vec::new();
            for role in t.roles {
                let (_, agent) = st
                    .participants
                    .iter()
                    .find(|(r, _)| r == role)
                    .ok_or_else(|| fail(format!("no participant plays `{role}`")))?;
                let name = self
                    .directory
                    .name_of(agent)
                    .unwrap_or_else(|| agent.clone());
                participants.push(Participant {
                    role,
                    agent: agent.as_str().into(),
                    name,
                });
            }
            self.next_session = self.next_session.max(id + 1);
            let room = self.room_for(t);
            let started = humantime::parse_rfc3339_weak(&st.row.created_at)
                .map_err(|e| fail(format!("bad start time `{}`: {e}", st.row.created_at)))?;
            self.sessions.insert(
                id,
                Session {
                    id,
                    template: t,
                    game,
                    tick,
                    seed: st.row.seed,
                    options,
                    participants,
                    room,
                    created_at: st.row.created_at,
                    started,
                    log: st.log,
                },
            );
        }
        Ok(())
    }
}
