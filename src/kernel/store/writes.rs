//! The writes the world makes as it goes, each a closure for the writer thread: submitted by
//! the world with the undo that puts it back, awaited by whoever is answered.

use super::sql::{self, Sql, args};

use super::sessions::SessionRow;

/// A write, as the world leaves it for the writer thread.
pub type Write = Box<dyn FnOnce(&mut Sql) -> sql::Result<()> + Send>;

pub fn set_room(
    agent_id: String,
    room: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE agents SET room = ?1 WHERE agent_id = ?2",
            args![room, agent_id],
        )?;
        Ok(())
    }
}

pub fn set_token_hash(
    agent_id: String,
    token_hash: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE agents SET token_hash = ?1 WHERE agent_id = ?2",
            args![token_hash, agent_id],
        )?;
        Ok(())
    }
}

pub fn set_description(
    agent_id: String,
    description: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE agents SET description = ?1 WHERE agent_id = ?2",
            args![description, agent_id],
        )?;
        Ok(())
    }
}

pub fn set_display(
    agent_id: String,
    display: crate::wrap::Display,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE agents SET linelength = ?1, wrap = ?2, screenreader = ?3 WHERE agent_id = ?4",
            args![
                display.linelength,
                display.wrap,
                display.screenreader,
                agent_id
            ],
        )?;
        Ok(())
    }
}

pub fn create_session(
    row: SessionRow,
    participants: Vec<(String, String)>,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "INSERT INTO sessions (session_id, template, state, status, tick, seed, options, created_at, updated_at, rated)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9)",
            args![
                &row.session_id,
                row.template,
                row.state,
                row.status,
                row.tick,
                row.seed,
                row.options,
                row.created_at,
                row.rated
            ],
        )?;
        for (role, agent) in &participants {
            c.execute(
                "INSERT INTO participants (session_id, agent_id, role) VALUES (?1, ?2, ?3)",
                args![&row.session_id, agent, role],
            )?;
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
    cost: Option<String>,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        // Sent together: one round trip on PostgreSQL.
        c.execute_all(&[
            (
                "INSERT INTO actions (action_id, session_id, agent_id, role, action, tick, created_at, at_ms, reasoning, cost)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                args![
                    format!("{session_id}.{tick}"),
                    &session_id,
                    agent_id,
                    role,
                    action,
                    tick,
                    &at,
                    at_ms,
                    reasoning,
                    cost
                ],
            ),
            (
                "UPDATE sessions SET state = ?1, status = ?2, tick = ?3, updated_at = ?4 WHERE session_id = ?5",
                args![state, status, tick + 1, at, session_id],
            ),
        ])
    }
}

/// Adds to a player's refused actions and missed deadlines in a running session.
pub fn tally(
    session_id: String,
    agent_id: String,
    add: crate::ratings::conduct::Tally,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute("INSERT INTO session_conduct (session_id, agent_id, refused, missed) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (session_id, agent_id)
             DO UPDATE SET refused = session_conduct.refused + excluded.refused,
                           missed = session_conduct.missed + excluded.missed", args![session_id, agent_id, add.refused, add.missed])?;
        Ok(())
    }
}

/// Takes a session out of the ratings (something moot did, not its players, decided it).
pub fn unrate(session_id: String) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE sessions SET rated = 0 WHERE session_id = ?1",
            args![session_id],
        )?;
        Ok(())
    }
}
