//! The writes the world makes as it goes, each a closure for the writer thread: submitted by
//! the world with the undo that puts it back, awaited by whoever is answered.

use rusqlite::{Connection, params};

use super::sessions::SessionRow;

pub fn set_room(
    agent_id: String,
    room: String,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached("UPDATE agents SET room = ?1 WHERE agent_id = ?2")?
            .execute(params![room, agent_id])?;
        Ok(())
    }
}

pub fn set_token_hash(
    agent_id: String,
    token_hash: String,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached("UPDATE agents SET token_hash = ?1 WHERE agent_id = ?2")?
            .execute(params![token_hash, agent_id])?;
        Ok(())
    }
}

pub fn set_description(
    agent_id: String,
    description: String,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached("UPDATE agents SET description = ?1 WHERE agent_id = ?2")?
            .execute(params![description, agent_id])?;
        Ok(())
    }
}

pub fn set_display(
    agent_id: String,
    display: crate::wrap::Display,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached("UPDATE agents SET linelength = ?1, wrap = ?2 WHERE agent_id = ?3")?
            .execute(params![display.linelength, display.wrap, agent_id])?;
        Ok(())
    }
}

pub fn create_session(
    row: SessionRow,
    participants: Vec<(String, String)>,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached(
                "INSERT INTO sessions (session_id, template, state, status, tick, seed, options, created_at, updated_at, rated)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9)",
            )?
            .execute(params![
                row.session_id,
                row.template,
                row.state,
                row.status,
                row.tick as i64,
                row.seed as i64,
                row.options,
                row.created_at,
                row.rated
            ])?;
        let mut p = c.prepare_cached(
            "INSERT INTO participants (session_id, agent_id, role) VALUES (?1, ?2, ?3)",
        )?;
        for (role, agent) in &participants {
            p.execute(params![row.session_id, agent, role])?;
        }
        Ok(())
    }
}

/// Appends an action at `tick` (the tick before it) and stores the state it led to.
#[allow(clippy::too_many_arguments)]
pub fn record_action(
    session_id: String,
    agent_id: String,
    role: String,
    action: String,
    tick: u64,
    state: String,
    status: &'static str,
    at: String,
    at_ms: u64,
    reasoning: Option<String>,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached(
                "INSERT INTO actions (action_id, session_id, agent_id, role, action, tick, created_at, at_ms, reasoning)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![format!("{session_id}.{tick}"), session_id, agent_id, role, action, tick as i64, at, at_ms as i64, reasoning])?;
        c.prepare_cached("UPDATE sessions SET state = ?1, status = ?2, tick = ?3, updated_at = ?4 WHERE session_id = ?5")?
                .execute(params![state, status, (tick + 1) as i64, at, session_id])?;
        Ok(())
    }
}

/// Adds to a player's refused actions and missed deadlines in a running session.
pub fn tally(
    session_id: String,
    agent_id: String,
    add: crate::ratings::conduct::Tally,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached(
            "INSERT INTO session_conduct (session_id, agent_id, refused, missed) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (session_id, agent_id)
             DO UPDATE SET refused = refused + excluded.refused, missed = missed + excluded.missed",
        )?
        .execute(params![session_id, agent_id, add.refused, add.missed])?;
        Ok(())
    }
}

/// Takes a session out of the ratings (something moot did, not its players, decided it).
pub fn unrate(
    session_id: String,
) -> impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static {
    move |c| {
        c.prepare_cached("UPDATE sessions SET rated = 0 WHERE session_id = ?1")?
            .execute(params![session_id])?;
        Ok(())
    }
}
