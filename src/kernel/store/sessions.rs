//! Game sessions on disk: the session row (with its current state, for reading without a
//! replay), its participants, and the append-only action log that is the real truth.

use std::collections::HashMap;

use serde::Serialize;

use super::sql::{self, Row, Sql};

/// A session as stored.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub session_id: String,
    pub template: String,
    pub state: String,
    pub status: String,
    pub tick: u64,
    pub seed: u64,
    pub options: String,
    pub created_at: String,
    /// Whether its results move ratings (games of luck keep a record either way).
    pub rated: bool,
}

/// One logged action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct LogEntry {
    pub tick: u64,
    pub role: String,
    pub action: String,
    pub agent_id: String,
    pub created_at: String,
    /// The game time it was taken at (see `games::GameTime`); the replay needs it, readers
    /// of the API's log do not.
    #[serde(skip)]
    pub at_ms: u64,
    /// Why its actor took it, in their words, if they said: shown once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// What it cost its actor, if they said: shown once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// What an action cost the agent that took it, as it reports it beside the action (`cost`):
/// the tokens its model read and wrote, and how long it thought. Shown, like reasons, once the
/// game is over, and summed per game beside each rating (`crosstable`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    /// Tokens the model read.
    #[serde(default)]
    pub tokens_in: u64,
    /// Tokens the model wrote.
    #[serde(default)]
    pub tokens_out: u64,
    /// Milliseconds it thought, on the wall.
    #[serde(default)]
    pub think_ms: u64,
}

impl Cost {
    /// The most tokens one action may report (a bound, not a price).
    pub const MAX_TOKENS: u64 = 1_000_000_000;
    /// The longest thought one action may report: a day.
    pub const MAX_THINK_MS: u64 = 86_400_000;

    /// Whether it is within the bounds.
    pub fn is_plausible(&self) -> bool {
        self.tokens_in <= Self::MAX_TOKENS
            && self.tokens_out <= Self::MAX_TOKENS
            && self.think_ms <= Self::MAX_THINK_MS
    }
}

/// Everything needed to rebuild one session at start-up.
#[derive(Debug, Clone)]
pub struct StoredSession {
    pub row: SessionRow,
    /// (role, agent_id)
    pub participants: Vec<(String, String)>,
    pub log: Vec<LogEntry>,
    /// Each player's refused actions and missed deadlines in it.
    pub tallies: Vec<(String, crate::ratings::conduct::Tally)>,
    /// What its latest decided result did to its players' ratings.
    pub moves: Vec<crate::ratings::Moved>,
}

fn log_entry(r: &Row) -> sql::Result<LogEntry> {
    Ok(LogEntry {
        tick: r.get("tick")?,
        role: r.get("role")?,
        action: r.get("action")?,
        agent_id: r.get("agent_id")?,
        created_at: r.get("created_at")?,
        at_ms: r.get("at_ms")?,
        reasoning: r.get("reasoning")?,
        // Written by moot as JSON; a text it cannot read is no cost reported.
        cost: r
            .get::<Option<String>>("cost")?
            .and_then(|t| serde_json::from_str(&t).ok()),
    })
}

/// Every session's log, each in tick order: one pass over the table (it has no index by
/// session, see schema 7), in the order the actions were written.
fn read_logs(c: &mut Sql) -> sql::Result<HashMap<String, Vec<LogEntry>>> {
    let mut logs: HashMap<String, Vec<LogEntry>> = HashMap::new();
    let rows = c.query(
        "SELECT tick, role, action, agent_id, created_at, at_ms, reasoning, cost, session_id FROM actions ORDER BY rowid",
        &[],
    )?;
    for r in &rows {
        logs.entry(r.get("session_id")?)
            .or_default()
            .push(log_entry(r)?);
    }
    // Written in order, so this finds them sorted; it is what the replay relies on, though.
    for log in logs.values_mut() {
        log.sort_by_key(|e| e.tick);
    }
    Ok(logs)
}

/// Every session with its participants and log, for the replay at start-up.
pub fn load_all(c: &mut Sql) -> sql::Result<Vec<StoredSession>> {
    let rows: Vec<SessionRow> = c
        .query(
            "SELECT session_id, template, state, status, tick, seed, options, created_at, rated
             FROM sessions ORDER BY CAST(session_id AS BIGINT)",
            &[],
        )?
        .iter()
        .map(|r| {
            Ok(SessionRow {
                session_id: r.get("session_id")?,
                template: r.get("template")?,
                state: r.get("state")?,
                status: r.get("status")?,
                tick: r.get("tick")?,
                seed: r.get("seed")?,
                options: r.get("options")?,
                created_at: r.get("created_at")?,
                rated: r.get("rated")?,
            })
        })
        .collect::<sql::Result<_>>()?;
    let mut logs = read_logs(c)?;
    let mut participants: HashMap<String, Vec<(String, String)>> = HashMap::new();
    for r in c.query(
        "SELECT session_id, role, agent_id FROM participants ORDER BY rowid",
        &[],
    )? {
        participants
            .entry(r.get("session_id")?)
            .or_default()
            .push((r.get("role")?, r.get("agent_id")?));
    }
    let mut tallies: HashMap<String, Vec<(String, crate::ratings::conduct::Tally)>> =
        HashMap::new();
    for r in c.query(
        "SELECT session_id, agent_id, refused, missed FROM session_conduct",
        &[],
    )? {
        let tally = crate::ratings::conduct::Tally {
            refused: r.get("refused")?,
            missed: r.get("missed")?,
        };
        tallies
            .entry(r.get("session_id")?)
            .or_default()
            .push((r.get("agent_id")?, tally));
    }
    let mut moves = super::standings::latest_moves(c)?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let participants = participants.remove(&row.session_id).unwrap_or_default();
            let log = logs.remove(&row.session_id).unwrap_or_default();
            let tallies = tallies.remove(&row.session_id).unwrap_or_default();
            let moves = moves.remove(&row.session_id).unwrap_or_default();
            StoredSession {
                row,
                participants,
                log,
                tallies,
                moves,
            }
        })
        .collect())
}

impl super::Store {
    /// Every session with its participants and log (see [`load_all`]).
    pub async fn sessions(&self) -> Result<Vec<StoredSession>, super::StoreError> {
        self.call(load_all).await
    }

    /// Every action's id, in the order they were logged.
    pub async fn action_order(&self) -> Result<Vec<String>, super::StoreError> {
        self.read(|c| {
            c.query("SELECT action_id FROM actions ORDER BY rowid", &[])?
                .iter()
                .map(|r| r.get("action_id"))
                .collect()
        })
        .await
    }
}
