//! Ratings on disk: each identity's standing per board and season, and every change a decided
//! result made, kept under the id of the action that decided it. Both are derived from the
//! action log; `moot ratings rebuild` writes them anew from it.

use std::collections::{BTreeSet, HashMap};

use super::sql::{self, Row, Sql, args};

use crate::ratings::{Change, Key, Moved, Rating, Standing};

/// Every standing, and each board's season (the rules of its latest change).
pub type Stored = (Vec<(Key, Standing)>, Vec<(String, String)>);

/// The rating stored in a row's `rating`, `deviation` and `volatility`; none for a record.
fn rating_of(r: &Row) -> sql::Result<Option<Rating>> {
    Ok(
        match (r.get("rating")?, r.get("deviation")?, r.get("volatility")?) {
            (Some(rating), Some(deviation), Some(volatility)) => Some(Rating {
                rating,
                deviation,
                volatility,
            }),
            _ => None,
        },
    )
}

pub fn load(c: &mut Sql) -> sql::Result<Stored> {
    let standings = c
        .query(
            "SELECT agent_id, board, rules, rating, deviation, volatility, games, won, lost, drawn
             FROM standings",
            &[],
        )?
        .iter()
        .map(|r| {
            Ok((
                Key {
                    agent: r.get("agent_id")?,
                    board: r.get("board")?,
                    rules: r.get("rules")?,
                },
                Standing {
                    rating: rating_of(r)?,
                    games: r.get("games")?,
                    won: r.get("won")?,
                    lost: r.get("lost")?,
                    drawn: r.get("drawn")?,
                },
            ))
        })
        .collect::<sql::Result<_>>()?;
    // The latest change per board names its season.
    let seasons = c
        .query(
            "SELECT board, rules FROM standing_changes
             WHERE rowid IN (SELECT max(rowid) FROM standing_changes GROUP BY board)",
            &[],
        )?
        .iter()
        .map(|r| Ok((r.get("board")?, r.get("rules")?)))
        .collect::<sql::Result<_>>()?;
    Ok((standings, seasons))
}

/// Stores what the action `action_id` (`<session>.<tick>`) did to its players' standings, in
/// the same transaction as the action.
pub fn record(
    action_id: String,
    changes: Vec<Change>,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| write_changes(c, &action_id, &changes)
}

pub(super) fn write_changes(c: &mut Sql, action_id: &str, changes: &[Change]) -> sql::Result<()> {
    for ch in changes {
        let (k, a) = (&ch.key, &ch.after);
        let r = a.rating;
        c.execute(
            "INSERT INTO standings
                 (agent_id, board, rules, rating, deviation, volatility, games, won, lost, drawn)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
             ON CONFLICT (agent_id, board, rules) DO UPDATE SET
                 rating = excluded.rating, deviation = excluded.deviation,
                 volatility = excluded.volatility, games = excluded.games, won = excluded.won,
                 lost = excluded.lost, drawn = excluded.drawn",
            args![
                &k.agent,
                &k.board,
                &k.rules,
                r.map(|r| r.rating),
                r.map(|r| r.deviation),
                r.map(|r| r.volatility),
                a.games,
                a.won,
                a.lost,
                a.drawn
            ],
        )?;
        let before = ch.before.and_then(|b| b.rating);
        c.execute(
            "INSERT INTO standing_changes
                 (action_id, agent_id, board, rules, score, rating_before, deviation_before,
                  rating, deviation, volatility)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            args![
                action_id,
                &k.agent,
                &k.board,
                &k.rules,
                ch.score,
                before.map(|b| b.rating),
                before.map(|b| b.deviation),
                r.map(|r| r.rating),
                r.map(|r| r.deviation),
                r.map(|r| r.volatility)
            ],
        )?;
    }
    Ok(())
}

/// Replaces every standing and change with `decided` (action id and its changes, in the order
/// they were decided): what a rebuild from the logs gives.
pub fn replace_all(c: &mut Sql, decided: &[(String, Vec<Change>)]) -> sql::Result<()> {
    c.execute("DELETE FROM standings", &[])?;
    c.execute("DELETE FROM standing_changes", &[])?;
    for (action_id, changes) in decided {
        write_changes(c, action_id, changes)?;
    }
    Ok(())
}

/// Each session's latest decided result's changes (`Moved`), by session id: what a game's
/// report shows once it is over.
pub fn latest_moves(c: &mut Sql) -> sql::Result<HashMap<String, Vec<Moved>>> {
    Ok(recorded_all(c)?
        .into_iter()
        .map(|(session, (_, moves))| (session, moves))
        .collect())
}

/// What is stored of a session's decided results: the ticks of the actions that decided
/// them, and the latest one's changes (what its report shows).
pub type Counted = (BTreeSet<u64>, Vec<Moved>);

/// What is stored of session `session`'s decided results.
pub fn recorded(c: &mut Sql, session: &str) -> sql::Result<Counted> {
    let rows = c.query(
        "SELECT action_id, agent_id, board, rating_before, deviation_before, rating, deviation,
                volatility
         FROM standing_changes WHERE action_id LIKE ?1 ORDER BY rowid",
        args![format!("{session}.%")],
    )?;
    Ok(recorded_of(&rows, Some(session))?
        .remove(session)
        .unwrap_or_default())
}

/// [`recorded`] for every session at once, by id: one reading of the table, for a town that
/// rebuilds all its copies.
pub fn recorded_all(c: &mut Sql) -> sql::Result<HashMap<String, Counted>> {
    let rows = c.query(
        "SELECT action_id, agent_id, board, rating_before, deviation_before, rating, deviation,
                volatility
         FROM standing_changes ORDER BY rowid",
        &[],
    )?;
    recorded_of(&rows, None)
}

/// The rows' decided results by session (only `only`'s, if given).
fn recorded_of(rows: &[Row], only: Option<&str>) -> sql::Result<HashMap<String, Counted>> {
    // Each session's ticks, and its latest result's tick and changes.
    type Latest = (BTreeSet<u64>, (u64, Vec<Moved>));
    let mut out: HashMap<String, Latest> = HashMap::new();
    for r in rows {
        let action_id: String = r.get("action_id")?;
        let Some((session, tick)) = action_id
            .split_once('.')
            .filter(|(s, _)| only.is_none_or(|o| o == *s))
            .and_then(|(s, t)| Some((s, t.parse::<u64>().ok()?)))
        else {
            continue;
        };
        let (ticks, latest) = out.entry(session.to_owned()).or_default();
        ticks.insert(tick);
        let before = match (r.get("rating_before")?, r.get("deviation_before")?) {
            (Some(rating), Some(deviation)) => Some((rating, deviation)),
            _ => None,
        };
        let moved = Moved {
            agent: r.get("agent_id")?,
            board: r.get("board")?,
            before,
            after: rating_of(r)?,
        };
        if tick > latest.0 || latest.1.is_empty() {
            *latest = (tick, Vec::new());
        }
        if tick == latest.0 {
            latest.1.push(moved);
        }
    }
    Ok(out
        .into_iter()
        .map(|(s, (ticks, (_, moves)))| (s, (ticks, moves)))
        .collect())
}

/// One point of a rating's history: the rating a decided result left on a board.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Point {
    pub board: String,
    pub rules: String,
    pub rating: f64,
}

/// The latest `limit` rated results of `agent` (oldest first): what a player's page charts.
pub fn history(c: &mut Sql, agent: &str, limit: usize) -> sql::Result<Vec<Point>> {
    let mut points: Vec<Point> = c
        .query(
            "SELECT board, rules, rating FROM standing_changes
             WHERE agent_id = ?1 AND rating IS NOT NULL ORDER BY rowid DESC LIMIT ?2",
            args![agent, limit],
        )?
        .iter()
        .map(|r| {
            Ok(Point {
                board: r.get("board")?,
                rules: r.get("rules")?,
                rating: r.get("rating")?,
            })
        })
        .collect::<sql::Result<_>>()?;
    points.reverse();
    Ok(points)
}

impl super::Store {
    /// Every standing and each board's season (see [`load`]).
    pub async fn standings(&self) -> Result<Stored, super::StoreError> {
        self.call(load).await
    }

    /// `agent`'s latest `limit` rated results (see [`history`]).
    pub async fn rating_history(
        &self,
        agent: &str,
        limit: usize,
    ) -> Result<Vec<Point>, super::StoreError> {
        let agent = agent.to_owned();
        self.read(move |c| history(c, &agent, limit)).await
    }

    /// Replaces every standing and change (see [`replace_all`]).
    pub async fn replace_standings(
        &self,
        decided: Vec<(String, Vec<Change>)>,
    ) -> Result<(), super::StoreError> {
        self.call(move |c| replace_all(c, &decided)).await
    }
}
