//! `moot db copy FROM TO`: a whole town moved from one database to another (SQLite to
//! PostgreSQL, or back), table by table, then read back from both and compared.
//!
//! Both are opened as moot opens them (so both have the newest schema, and a PostgreSQL source
//! or target is locked against a moot serving it), the target must be empty, and the logs keep
//! their order: the columns a log is read in order by (`rowid`, `seq`) are copied with it.

use sha2::{Digest, Sha256};

use super::sql::{self, Row, Sql, Value};
use super::{Database, Store, StoreError, StoreOptions};

/// How a table is read in pages: by a column that orders it, or whole (small tables with a
/// key of several columns).
enum Order {
    /// An integer column (SQLite's `rowid` or an autoincrement `seq`) copied with the rows.
    Int(&'static str),
    /// A text primary key.
    Text(&'static str),
    Whole,
}

/// Every table, parents before children, with its columns.
const TABLES: &[(&str, Order, &str)] = &[
    (
        "agents",
        Order::Text("agent_id"),
        "agent_id, name, password_hash, description, room, created_at, token_hash, linelength, wrap, wizard, kind, owner, origin",
    ),
    (
        "sessions",
        Order::Text("session_id"),
        "session_id, template, state, status, tick, seed, options, created_at, updated_at, rated",
    ),
    (
        "participants",
        Order::Int("rowid"),
        "session_id, agent_id, role",
    ),
    (
        "actions",
        Order::Int("rowid"),
        "action_id, session_id, agent_id, role, action, tick, created_at, at_ms, reasoning",
    ),
    (
        "idempotency_keys",
        Order::Int("seq"),
        "agent_id, tool, key, args, answer",
    ),
    ("kept_state", Order::Whole, "module, key, value"),
    ("bans", Order::Text("what"), "what, by_whom, reason, at_ms"),
    (
        "admin_actions",
        Order::Int("seq"),
        "at_ms, by_whom, verb, target, detail",
    ),
    (
        "oauth_clients",
        Order::Text("client_id"),
        "client_id, client_name, redirect_uris, created_ms",
    ),
    (
        "oauth_tokens",
        Order::Text("token_hash"),
        "token_hash, kind, agent_id, client_id, expires_ms",
    ),
    (
        "standings",
        Order::Whole,
        "agent_id, board, rules, rating, deviation, volatility, games, won, lost, drawn",
    ),
    (
        "standing_changes",
        Order::Int("rowid"),
        "action_id, agent_id, board, rules, score, rating_before, deviation_before, rating, deviation, volatility",
    ),
    (
        "session_conduct",
        Order::Whole,
        "session_id, agent_id, refused, missed",
    ),
];

/// Rows a page holds.
const PAGE: usize = 2000;

/// What the database holds that [`TABLES`] does not carry: `table.column` for a column it does
/// not list, `table` for a table it does not know. A column added to the schema and forgotten
/// here would be dropped by a copy whose checksum, made from the same list, still passed; so
/// a copy refuses a source with any, and a test asks the newest schema of both engines.
pub fn uncopied(c: &mut Sql) -> sql::Result<Vec<String>> {
    let mut missing = Vec::new();
    for (table, column) in super::shape::columns(c)? {
        let Some((_, order, cols)) = TABLES.iter().find(|(t, _, _)| *t == table) else {
            if !missing.contains(&table) {
                missing.push(table);
            }
            continue;
        };
        let carried = cols.split(',').map(str::trim).any(|c| c == column)
            || matches!(order, Order::Int(key) if *key == column);
        if !carried {
            missing.push(format!("{table}.{column}"));
        }
    }
    Ok(missing)
}

/// What one table holds, in a form both engines give alike: how many rows, and the sum of
/// their digests (so that the order rows come in does not matter).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Tally {
    rows: u64,
    sum: u64,
}

impl Tally {
    fn add(&mut self, row: &Row) {
        let mut h = Sha256::new();
        for v in row.values() {
            match v {
                Value::Null => h.update(b"n"),
                Value::Int(i) => {
                    h.update(b"i");
                    h.update(i.to_le_bytes());
                }
                Value::Real(f) => {
                    h.update(b"r");
                    h.update(f.to_bits().to_le_bytes());
                }
                Value::Text(s) => {
                    h.update(b"t");
                    h.update((s.len() as u64).to_le_bytes());
                    h.update(s.as_bytes());
                }
            }
        }
        let d = h.finalize();
        let mut first = [0u8; 8];
        first.copy_from_slice(&d[..8]);
        self.rows += 1;
        self.sum = self.sum.wrapping_add(u64::from_le_bytes(first));
    }
}

/// The columns read and written: the ordering column first where it is copied.
fn columns(order: &Order, cols: &str) -> String {
    match order {
        Order::Int(c) => format!("{c}, {cols}"),
        _ => cols.to_owned(),
    }
}

/// One page of `table` after `after` (none: the first).
fn page(
    c: &mut Sql,
    table: &str,
    order: &Order,
    cols: &str,
    after: &Value,
) -> sql::Result<Vec<Row>> {
    let cols = columns(order, cols);
    match order {
        Order::Int(key) | Order::Text(key) => c.query(
            &format!("SELECT {cols} FROM {table} WHERE {key} > ?1 ORDER BY {key} LIMIT {PAGE}"),
            std::slice::from_ref(after),
        ),
        Order::Whole => c.query(&format!("SELECT {cols} FROM {table}"), &[]),
    }
}

fn start(order: &Order) -> Value {
    match order {
        Order::Int(_) => Value::Int(i64::MIN),
        _ => Value::Text(String::new()),
    }
}

/// Reads a whole table a page at a time, giving each page to `each`.
async fn each_page(
    store: &Store,
    table: &'static str,
    order: &'static Order,
    cols: &'static str,
    mut each: impl AsyncFnMut(Vec<Row>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut after = start(order);
    loop {
        let from = after.clone();
        let rows = store
            .read(move |c| page(c, table, order, cols, &from))
            .await?;
        let last = rows.last().and_then(|r| r.values().first().cloned());
        let full = rows.len() >= PAGE && !matches!(order, Order::Whole);
        each(rows).await?;
        match last {
            Some(v) if full => after = v,
            _ => return Ok(()),
        }
    }
}

/// What every table of `store` holds.
async fn tally(store: &Store) -> Result<Vec<Tally>, StoreError> {
    let mut out = Vec::with_capacity(TABLES.len());
    for (table, order, cols) in TABLES {
        let mut t = Tally::default();
        each_page(store, table, order, cols, async |rows| {
            rows.iter().for_each(|r| t.add(r));
            Ok(())
        })
        .await?;
        out.push(t);
    }
    Ok(out)
}

#[derive(Debug, thiserror::Error)]
pub enum CopyError {
    #[error("{db}: {error}")]
    Open { db: String, error: StoreError },
    #[error(
        "{db} is not empty ({rows} rows in {table}): moot db copy never writes over a town; \
         give it a new file or an empty database"
    )]
    NotEmpty {
        db: String,
        table: &'static str,
        rows: u64,
    },
    #[error("copying {table}: {error}")]
    Copy {
        table: &'static str,
        error: StoreError,
    },
    #[error(
        "{db} holds what this moot's copy does not carry ({0}): it was written by a moot whose \
         copy is out of date; nothing was copied",
        .missing.join(", ")
    )]
    Uncopied { db: String, missing: Vec<String> },
    #[error(
        "the copy differs from the original in {table} ({copied} rows copied, {original} there): \
         do not use it"
    )]
    Differs {
        table: &'static str,
        original: u64,
        copied: u64,
    },
}

/// Copies the town in `from` to `to`, telling `progress` each table's rows as it goes.
pub async fn copy(
    from: &Database,
    to: &Database,
    mut progress: impl FnMut(&str, u64),
) -> Result<String, String> {
    copy_town(from, to, &mut progress)
        .await
        .map_err(|e| e.to_string())
}

async fn copy_town(
    from: &Database,
    to: &Database,
    progress: &mut impl FnMut(&str, u64),
) -> Result<String, CopyError> {
    let open = |db: &Database| {
        let options = StoreOptions {
            exclusive: true,
            ..Default::default()
        };
        Store::open(db, options).map_err(|error| CopyError::Open {
            db: db.to_string(),
            error,
        })
    };
    let source = open(from)?;
    let missing = source
        .read(uncopied)
        .await
        .map_err(|error| CopyError::Open {
            db: from.to_string(),
            error,
        })?;
    if !missing.is_empty() {
        return Err(CopyError::Uncopied {
            db: from.to_string(),
            missing,
        });
    }
    let target = open(to)?;
    let existing = tally(&target).await.map_err(|error| CopyError::Open {
        db: to.to_string(),
        error,
    })?;
    if let Some(((table, _, _), t)) = TABLES.iter().zip(&existing).find(|(_, t)| t.rows > 0) {
        return Err(CopyError::NotEmpty {
            db: to.to_string(),
            table,
            rows: t.rows,
        });
    }
    for (table, order, cols) in TABLES {
        let mut copied = 0u64;
        let insert = {
            let cols = columns(order, cols);
            let marks: Vec<String> = (1..=cols.split(',').count())
                .map(|i| format!("?{i}"))
                .collect();
            format!("INSERT INTO {table} ({cols}) VALUES ({})", marks.join(", "))
        };
        each_page(&source, table, order, cols, async |rows| {
            copied += rows.len() as u64;
            let insert = insert.clone();
            target
                .call(move |c| {
                    for r in &rows {
                        c.execute(&insert, r.values())?;
                    }
                    Ok(())
                })
                .await
        })
        .await
        .map_err(|error| CopyError::Copy { table, error })?;
        if let Order::Int(key) = order {
            // PostgreSQL's counters go on after the copied rows (SQLite's follow the largest).
            if target.engine() == super::Engine::Postgres {
                let bump = format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', '{key}'),
                                   coalesce((SELECT max({key}) FROM {table}), 0) + 1, false)"
                );
                target
                    .call(move |c| c.query(&bump, &[]).map(drop))
                    .await
                    .map_err(|error| CopyError::Copy { table, error })?;
            }
        }
        progress(table, copied);
    }
    let (was, now) = (
        tally(&source).await.map_err(|error| CopyError::Open {
            db: from.to_string(),
            error,
        })?,
        tally(&target).await.map_err(|error| CopyError::Open {
            db: to.to_string(),
            error,
        })?,
    );
    for (((table, _, _), a), b) in TABLES.iter().zip(&was).zip(&now) {
        if a != b {
            return Err(CopyError::Differs {
                table,
                original: a.rows,
                copied: b.rows,
            });
        }
    }
    source.close().await;
    target.close().await;
    let rows: u64 = was.iter().map(|t| t.rows).sum();
    let actions = TABLES
        .iter()
        .zip(&was)
        .find(|((t, _, _), _)| *t == "actions")
        .map_or(0, |(_, t)| t.rows);
    Ok(format!(
        "Copied {from} to {to}: {rows} rows in {} tables ({actions} logged actions); the copy \
         reads back the same.",
        TABLES.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_copy_carries_every_column_of_the_newest_schema_and_says_which_it_would_not() {
        let mut c = Sql::sqlite(rusqlite::Connection::open_in_memory().unwrap());
        super::super::schema::migrate(&mut c).unwrap();
        assert_eq!(uncopied(&mut c).unwrap(), Vec::<String>::new());
        c.batch(
            "ALTER TABLE agents ADD COLUMN shoe_size INTEGER;
             CREATE TABLE hats (agent_id TEXT, hat TEXT);",
        )
        .unwrap();
        assert_eq!(uncopied(&mut c).unwrap(), ["agents.shoe_size", "hats"]);
    }
}
