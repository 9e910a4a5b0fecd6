//! Start-up: every stored session rebuilt by replaying its log through its template, checked
//! against what was stored.

use serde_json::Value;

use super::{Logged, Participant, Session, SessionId};
use crate::game_api;
use crate::store::sessions::StoredSession;
use crate::world::{AgentId, World};

/// Why a stored session does not rebuild; start-up stops on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("session {session}: {problem}")]
pub struct ReplayError {
    pub session: String,
    pub problem: String,
}

impl World {
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
            let game = game_api::replay(
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
            self.next_session = self.next_session.max(id.next());
            let log = st
                .log
                .into_iter()
                .map(|e| {
                    let role = t
                        .roles
                        .iter()
                        .copied()
                        .chain([game_api::SERVER_ROLE])
                        .find(|r| *r == e.role)
                        .ok_or_else(|| fail(format!("no role `{}` in its game", e.role)))?;
                    // The players' ids are shared with the session's own.
                    let agent = participants
                        .iter()
                        .find(|p: &&Participant| *p.agent == *e.agent_id)
                        .map_or_else(|| AgentId::from(e.agent_id.as_str()), |p| p.agent.clone());
                    Ok(Logged {
                        role,
                        action: e.action.into(),
                        agent,
                        created_at: e.created_at.into(),
                        at_ms: e.at_ms,
                        reasoning: e.reasoning.map(Into::into),
                        cost: e.cost,
                    })
                })
                .collect::<Result<Vec<Logged>, ReplayError>>()?;
            let room = self.room_for(t);
            let started = humantime::parse_rfc3339_weak(&st.row.created_at)
                .map_err(|e| fail(format!("bad start time `{}`: {e}", st.row.created_at)))?;
            self.keep_session(Session {
                id,
                template: t,
                game,
                tick,
                seed: st.row.seed,
                options,
                rated: st.row.rated,
                participants,
                room,
                created_at: st.row.created_at,
                started,
                log,
                tally: st.tallies.into_iter().collect(),
                moves: st.moves,
            });
            if let Some(s) = self.sessions.get(&id)
                && s.game.is_terminal()
            {
                let game = crate::ratings::game_name(t.id);
                for (agent, c) in s.conduct() {
                    self.conduct.add(&agent, game, c);
                }
            }
        }
        Ok(())
    }
}

/// Every result the stored logs decided that counts toward ratings, each with the id of the
/// action that decided it (`<session>.<tick>`), by replaying each counting session's log one
/// action at a time: what `moot ratings rebuild` folds, in the order the actions were logged.
pub fn decisions(
    templates: &[&'static game_api::Template],
    stored: &[StoredSession],
    owner: impl Fn(&str) -> String,
) -> Result<Vec<(String, crate::ratings::Decided)>, ReplayError> {
    let mut out = Vec::new();
    for st in stored {
        let fail = |problem: String| ReplayError {
            session: st.row.session_id.clone(),
            problem,
        };
        let t = templates
            .iter()
            .find(|t| t.id == st.row.template)
            .ok_or_else(|| fail(format!("unknown template `{}`", st.row.template)))?;
        match t.reckoning {
            game_api::Reckoning::Unrated => continue,
            game_api::Reckoning::Rating if !st.row.rated => continue,
            _ => {}
        }
        let options: Value =
            serde_json::from_str(&st.row.options).map_err(|e| fail(format!("bad options: {e}")))?;
        let player = |role: &str| {
            st.participants
                .iter()
                .find(|(r, _)| r == role)
                .map(|(_, a)| a.clone())
        };
        let mut game =
            (t.new)(st.row.seed, &options).map_err(|e| fail(format!("it does not start: {e}")))?;
        for e in &st.log {
            game = game
                .apply_logged(&e.role, &e.action, e.at_ms)
                .map_err(|err| fail(format!("its log does not replay: {err}")))?;
            let cast = crate::ratings::Cast {
                player,
                owner: &owner,
                house: crate::world::is_house,
                day: e.created_at.get(..10).unwrap_or_default().to_owned(),
            };
            if let Some(sides) = game.decided()
                && let Some(d) = crate::ratings::decided(t, &options, st.row.rated, sides, &cast)
            {
                out.push((format!("{}.{}", st.row.session_id, e.tick), d));
            }
        }
    }
    Ok(out)
}
