//! Taking an action in a session: identity, turn, tick and legality checked, the action
//! stamped with its game time and logged before anyone hears of it, then the headline.

use super::{Acted, ErrorCode, HostError, Played, Session, SessionId, iso, not_found};
use crate::game_api::{self, AnyAction, GameTime};
use crate::store::writes;
use crate::world::{AgentId, Cx, World};

/// What an action did, in words for everyone following the game: the template says what
/// (hidden choices stay hidden), the host says who. Called once the action is applied.
pub(super) fn headline(s: &Session, agent: &str, role: &str, action: &AnyAction) -> String {
    let what = s.game.headline(role, action);
    if what.is_empty() {
        // The template tells its followers everything in its notes.
        return what;
    }
    let mut line = if role == crate::game_api::SERVER_ROLE {
        // The server actor is nobody: the template's words stand alone.
        format!("#{}: {what}.", s.id)
    } else {
        let who = s
            .participants
            .iter()
            .find(|p| &*p.agent == agent)
            .map_or(agent, |p| p.name.as_str());
        match super::shown_role(role) {
            Some(role) => format!("#{}: {who} ({role}) {what}.", s.id),
            None => format!("#{}: {who} {what}.", s.id),
        }
    };
    // Said once: a headline that tells the end already ("paper beats rock: Bob wins") is not
    // followed by it again.
    if let Some(end) = s.game.ending()
        && !what.contains(&end)
    {
        line.push_str(&format!(" Game over: {end}."));
    }
    super::with_names(&line, &s.participants)
}

/// An action on its way into a session: as someone typed or sent it, which the session's
/// template reads as the actor means it (once any deadline due before it has fallen), or made
/// by a game's own verb as the template's action.
pub enum Submitted<'a> {
    Text(&'a str),
    Typed(AnyAction),
}

impl<'a> From<&'a str> for Submitted<'a> {
    fn from(text: &'a str) -> Self {
        Submitted::Text(text)
    }
}

impl<'a> From<&'a String> for Submitted<'a> {
    fn from(text: &'a String) -> Self {
        Submitted::Text(text)
    }
}

impl From<AnyAction> for Submitted<'_> {
    fn from(action: AnyAction) -> Self {
        Submitted::Typed(action)
    }
}

impl World {
    /// Takes an action for `cx.actor` in session `id`. `expected_tick` is required by
    /// turn-based templates and must equal the session's tick.
    pub fn act<'a>(
        &mut self,
        cx: &mut Cx,
        id: SessionId,
        action: impl Into<Submitted<'a>>,
        expected_tick: Option<u64>,
    ) -> Result<Acted, HostError> {
        let actor = cx.actor.clone();
        self.act_as(cx, &actor, id, action, expected_tick)
    }

    /// [`World::act`] for a caller that shows the game its own way: the state as the actor
    /// sees it (a tree built to be dropped, on every move) is not made.
    pub fn play<'a>(
        &mut self,
        cx: &mut Cx,
        id: SessionId,
        action: impl Into<Submitted<'a>>,
        expected_tick: Option<u64>,
    ) -> Result<Played, HostError> {
        let actor = cx.actor.clone();
        self.take(cx, &actor, id, action.into(), expected_tick, false)
            .map(|a| Played {
                tick: a.tick,
                status: a.status,
            })
    }

    /// [`World::act`] on behalf of `agent` (the actor, or the computer answering).
    pub fn act_as<'a>(
        &mut self,
        cx: &mut Cx,
        agent: &AgentId,
        sid: SessionId,
        action: impl Into<Submitted<'a>>,
        expected_tick: Option<u64>,
    ) -> Result<Acted, HostError> {
        self.take(cx, agent, sid, action.into(), expected_tick, true)
    }

    /// Takes the action; the answer holds the state as the actor sees it if `view` (else
    /// null, and [`World::play`] drops it).
    fn take(
        &mut self,
        cx: &mut Cx,
        agent: &AgentId,
        sid: SessionId,
        action: Submitted<'_>,
        expected_tick: Option<u64>,
        view: bool,
    ) -> Result<Acted, HostError> {
        let id = sid;
        // (One waiting to be made on its game world is played there, once it is.)
        if self.is_copy(sid) || self.is_beginning(sid) {
            self.held_elsewhere(cx, sid)?;
        }
        let Some(s) = self.sessions.get(&sid) else {
            let asked = self.invitation(sid).and_then(|i| i.role_of(agent));
            if let Some(e) = asked.and_then(|_| self.not_begun(sid)) {
                return Err(e);
            }
            return Err(not_found(&id.to_string()));
        };
        let Some(role) = s.role_of(agent) else {
            return Err(HostError::new(
                ErrorCode::Forbidden,
                format!("You are not a participant in session {id}"),
            ));
        };
        if s.game.is_terminal() {
            return Err(HostError::completed(id));
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
        // A deadline that has fallen due comes first: the flag fell before this move arrived.
        let now = self.game_time(s);
        if s.game.deadline().is_some_and(|d| d.at <= now) && self.take_deadline(cx, sid) {
            return self.take(cx, agent, sid, action, expected_tick, view);
        }
        self.record(cx, agent, sid, action, now, view)
    }

    /// Applies `action` by `agent` (a participant, or the server actor) at game time `at`,
    /// logs it as the template spells it (chess: SAN becomes UCI), whatever face it came by,
    /// and tells everyone who follows the session.
    pub(in crate::world) fn record(
        &mut self,
        cx: &mut Cx,
        agent: &AgentId,
        sid: SessionId,
        action: Submitted<'_>,
        at: GameTime,
        view: bool,
    ) -> Result<Acted, HostError> {
        let id = sid;
        let of_an_event = self.tournaments.plays(sid);
        let s = self
            .sessions
            .get_mut(&sid)
            .ok_or_else(|| not_found(&id.to_string()))?;
        let role = if &**agent == crate::world::SERVER_ID {
            game_api::SERVER_ROLE
        } else {
            s.role_of(agent).ok_or_else(|| {
                HostError::new(
                    ErrorCode::Forbidden,
                    format!("You are not a participant in session {id}"),
                )
            })?
        };
        // Read where it comes in: a refusal to read it is a refusal like any other.
        let taken = match action {
            Submitted::Text(text) => s.game.parse(role, text),
            Submitted::Typed(action) => Ok(action),
        }
        .and_then(|action| Ok((s.game.apply(role, &action, at)?, action)))
        .and_then(|(next, action)| {
            // An event's game ends with a result: one that ended none (an aborted chess game)
            // would be a draw nobody played, and two friends could trade them.
            if of_an_event && next.is_terminal() && next.decided().is_none() {
                return Err(game_api::GameError::Illegal(
                    "A tournament's game cannot end without a result: resign it instead".into(),
                ));
            }
            Ok((next, action))
        });
        let (next, action) = match taken {
            Ok(taken) => taken,
            Err(e) => {
                // A rule broken counts against its sender, beside their rating.
                let counts = role != game_api::SERVER_ROLE && e.breaks_rules();
                // A template's wait is in game time; the caller waits in real time.
                let mut h = HostError::from(e);
                h.retry_after = h.retry_after.map(|d| self.time.real(d));
                if counts {
                    self.refused(cx, sid, agent);
                }
                return Err(h);
            }
        };
        // An action the public may not know was taken leaves no public trace (`Cx::hidden`).
        if role != game_api::SERVER_ROLE && next.action_view_of(None, role, &action).is_none() {
            cx.hidden = true;
        }
        let logged = action.to_string();
        let tick = s.tick;
        let before = std::mem::replace(&mut s.game, next);
        let headline = headline(s, agent, role, &action);
        let notes = s.game.notes(role, &action);
        s.tick += 1;
        let status = s.status();
        let created = iso(self.time.wall(cx.now));
        // The actor's reasons go with their own action (not a deadline's, nor the house's).
        let (reasoning, cost) = if *agent == cx.actor {
            (cx.reasoning.take(), cx.cost.take())
        } else {
            (None, None)
        };
        s.log.push(super::Logged {
            role,
            action: logged.as_str().into(),
            agent: agent.clone(),
            created_at: created.as_str().into(),
            at_ms: at,
            reasoning: reasoning.as_deref().map(Into::into),
            cost,
        });
        let ending = s
            .game
            .is_terminal()
            .then(|| (s.template.id, s.game.ending().unwrap_or_default()));
        let ended = ending.is_some();
        let state_text = s.game.state_text();
        // What the action decided (a game's end, a hand) moves its players' standings, stored
        // with the action itself.
        let day = created.get(..10).unwrap_or_default().to_owned();
        let decided = self.decide(sid, &day);
        let rate = decided.write(format!("{id}.{tick}"));
        let write = writes::record_action(
            id.to_string(),
            agent.to_string(),
            role.to_owned(),
            logged,
            tick,
            state_text,
            status,
            created,
            at,
            reasoning,
            cost.and_then(|c| serde_json::to_string(&c).ok()),
        );
        cx.save(
            move |c| {
                write(c)?;
                if let Some(rate) = rate {
                    rate(c)?;
                }
                if let Some((template, ending)) = ending {
                    tracing::info!(target: crate::logging::AUDIT, event = "match_end", session = sid.number(), template, ending);
                }
                Ok(())
            },
            move |w| {
                decided.undo(w, sid);
                if let Some(s) = w.sessions.get_mut(&sid) {
                    s.game = before;
                    s.tick = tick;
                    s.log.pop();
                }
                w.schedule(sid);
            },
        );
        let Some(s) = self.sessions.get(&sid) else {
            return Err(not_found(&id.to_string()));
        };
        let acted = Acted {
            tick: s.tick_for(Some(role)),
            state: if view {
                s.game.view(Some(role))
            } else {
                serde_json::Value::Null
            },
            status: status.to_owned(),
        };
        if ended {
            self.fold_conduct(cx, sid);
            if let Some(s) = self.sessions.get(&sid) {
                super::invite::wake_players(cx, &s.participants);
            }
        }
        cx.changed.push(crate::world::Awaited::Session(sid));
        self.announce(cx, agent, sid, headline, &notes);
        self.schedule(sid);
        self.computer_turn(cx, sid);
        self.session_changed(cx, sid);
        Ok(acted)
    }
}

/// What an action just taken in a session decided (a game's end, a hand), moved in its
/// players' standings ([`World::decide`]): applied to the ledger at once, stored beside the
/// deciding action ([`Decision::write`]) and taken back should that not be stored.
#[derive(Default)]
pub(in crate::world) struct Decision {
    decided: Option<crate::ratings::Decided>,
    changes: Vec<crate::ratings::Change>,
    seasons: Vec<(String, Option<String>)>,
    moves_before: Option<Vec<crate::ratings::Moved>>,
}

impl Decision {
    /// The write that stores it under the deciding action's id (`<session>.<tick>`), if it
    /// moved anyone.
    pub(in crate::world) fn write(
        &self,
        action: String,
    ) -> Option<impl FnOnce(&mut crate::store::Sql) -> crate::store::sql::Result<()> + Send + 'static>
    {
        (!self.changes.is_empty())
            .then(|| crate::store::standings::record(action, self.changes.clone()))
    }

    /// Takes it back from the ledger and from session `sid`'s report.
    pub(in crate::world) fn undo(self, w: &mut World, sid: SessionId) {
        if let (Some(moves), Some(s)) = (self.moves_before, w.sessions.get_mut(&sid)) {
            s.moves = moves;
        }
        w.ratings.undo(&self.changes, self.seasons);
        if let Some(d) = &self.decided {
            w.ratings.unmet(d);
        }
    }
}

impl World {
    /// Moves the standings of session `sid`'s players by what its latest action decided, on
    /// `day` (the action's): a result counts once a day per pair of owners beyond the first
    /// few, as the ledger says.
    pub(in crate::world) fn decide(&mut self, sid: SessionId, day: &str) -> Decision {
        let Some(s) = self.sessions.get_mut(&sid) else {
            return Decision::default();
        };
        let decided = s.decision(|agent| self.directory.owner_of(agent), day);
        let changes = decided
            .as_ref()
            .map(|d| self.ratings.changes(d))
            .unwrap_or_default();
        let moves_before = (!changes.is_empty()).then(|| {
            std::mem::replace(
                &mut s.moves,
                changes.iter().map(crate::ratings::Moved::of).collect(),
            )
        });
        let seasons = self.ratings.seasons_before(&changes);
        self.ratings.apply(&changes);
        if let Some(d) = &decided {
            self.ratings.met(d);
        }
        Decision {
            decided,
            changes,
            seasons,
            moves_before,
        }
    }
}

impl Session {
    /// The latest action `role` (`None`: a watcher) may see, in words: the headline its
    /// followers read when it was the last, or else how the log shows it to them (an earlier
    /// one, when later ones are hidden from them: a Werewolf night's).
    pub fn last_seen(&self, role: Option<&str>) -> Option<String> {
        let whole = self.game.is_terminal();
        let (i, e) = self
            .log
            .iter()
            .enumerate()
            .rev()
            .find(|(_, e)| whole || self.game.action_view(role, e.role, &e.action).is_some())?;
        let shown = self.game.action_view(role, e.role, &e.action);
        if i + 1 == self.log.len()
            && let Ok(action) = self.game.read_logged(&e.action)
        {
            let line = headline(self, &e.agent, e.role, &action);
            if !line.is_empty() {
                return Some(line);
            }
        }
        let who = self
            .participants
            .iter()
            .find(|p| p.agent == e.agent)
            .map_or("The game", |p| p.name.as_str());
        let what = shown.unwrap_or_else(|| e.action.to_string());
        Some(super::with_names(
            &format!("#{}: {who}: {what}.", self.id),
            &self.participants,
        ))
    }
}
