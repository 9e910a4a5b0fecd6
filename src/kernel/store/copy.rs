//! `moot db copy FROM TO`: a whole town moved from one database to another (SQLite to
//! PostgreSQL, or back), table by table, then read back from both and compared.
//!
//! Both are opened as moot opens them (so both have the newest schema, and a PostgreSQL source
//! or target is locked against a moot serving it), the target must be empty, and the logs keep
//! their order: the columns a log is read in order by (`rowid`, `seq`) are copied with it.
//!
//! What is copied, in which order and by which pages, and what the checksum covers, all come
//! from the description of the tables ([`tables`](super::tables)), the one that makes a new
//! database: a column there is a column copied and checked. A source with a column the
//! description lacks is refused (see [`uncopied`]).

use sha2::{Digest, Sha256};

use super::sql::{self, Row, Sql, Value};
use super::tables::{Kind, Rowid, TABLES, Table};
use super::{Database, Store, StoreError, StoreOptions};

/// The columns a copy reads, writes and checks: every column of the table's description, and
/// first, where the rows' order is kept (see [`Rowid::Order`]), the `rowid` that keeps it, so
/// that a log reads back in the order it was written and new rows go on after it.
fn carried(t: &Table) -> Vec<&'static str> {
    let order = (t.rowid == Rowid::Order).then_some("rowid");
    order
        .into_iter()
        .chain(t.columns.iter().map(|c| c.name))
        .collect()
}

/// How a table is read in pages: after the last row of the page before, by the order its rows
/// were written in or by a key of one column; or whole, for the small tables keyed by several.
enum Paging {
    /// The column, and a value before any it holds.
    After(&'static str, Value),
    Whole,
}

fn paging(t: &Table) -> Paging {
    if t.rowid == Rowid::Order {
        return Paging::After("rowid", Value::Int(i64::MIN));
    }
    match t.key {
        [key] => {
            let text = t
                .column(key)
                .is_some_and(|c| matches!(c.kind, Kind::Text | Kind::CaseFree));
            let first = if text {
                Value::Text(String::new())
            } else {
                Value::Int(i64::MIN)
            };
            Paging::After(key, first)
        }
        _ => Paging::Whole,
    }
}

/// The columns PostgreSQL numbers with a sequence of its own, which must go on after the
/// copied rows (SQLite's follow the largest there).
fn counters(t: &Table) -> impl Iterator<Item = &'static str> {
    let order = (t.rowid == Rowid::Order).then_some("rowid");
    let counters = t.columns.iter().filter(|c| c.kind == Kind::Counter);
    order.into_iter().chain(counters.map(|c| c.name))
}

/// Rows a page holds.
const PAGE: usize = 2000;

/// What the database holds that the copy does not carry: `table.column` for a column the
/// description of its table lacks, `table` for a table it does not describe. A column added
/// to a database by a migration and not to the description would be dropped by a copy whose
/// checksum, made from the same columns, still passed; so a copy refuses a source with any,
/// and a test asks a database brought forward by every migration.
pub fn uncopied(c: &mut Sql) -> sql::Result<Vec<String>> {
    let mut missing = Vec::new();
    for (table, column) in super::shape::columns(c)? {
        let Some(t) = super::tables::table(&table) else {
            if !missing.contains(&table) {
                missing.push(table);
            }
            continue;
        };
        if !carried(t).contains(&column.as_str()) {
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

/// One page of `t` after `after` (none: the first).
fn page(c: &mut Sql, t: &Table, after: &Value) -> sql::Result<Vec<Row>> {
    let (table, columns) = (t.name, carried(t).join(", "));
    match paging(t) {
        Paging::After(key, _) => c.query(
            &format!("SELECT {columns} FROM {table} WHERE {key} > ?1 ORDER BY {key} LIMIT {PAGE}"),
            std::slice::from_ref(after),
        ),
        Paging::Whole => c.query(&format!("SELECT {columns} FROM {table}"), &[]),
    }
}

/// Reads a whole table a page at a time, giving each page to `each`.
async fn each_page(
    store: &Store,
    t: &'static Table,
    mut each: impl AsyncFnMut(Vec<Row>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let (key, mut after) = match paging(t) {
        Paging::After(key, first) => (Some(key), first),
        Paging::Whole => (None, Value::Null),
    };
    loop {
        let from = after.clone();
        let rows = store.read(move |c| page(c, t, &from)).await?;
        let last = key.and_then(|k| rows.last()?.value(k).cloned());
        let full = rows.len() >= PAGE;
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
    for t in TABLES {
        let mut tally = Tally::default();
        each_page(store, t, async |rows| {
            rows.iter().for_each(|r| tally.add(r));
            Ok(())
        })
        .await?;
        out.push(tally);
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
    if let Some((t, tally)) = TABLES.iter().zip(&existing).find(|(_, t)| t.rows > 0) {
        return Err(CopyError::NotEmpty {
            db: to.to_string(),
            table: t.name,
            rows: tally.rows,
        });
    }
    for t in TABLES {
        let (table, mut copied) = (t.name, 0u64);
        let insert = {
            let columns = carried(t);
            let marks: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
            format!(
                "INSERT INTO {table} ({}) VALUES ({})",
                columns.join(", "),
                marks.join(", ")
            )
        };
        each_page(&source, t, async |rows| {
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
        if target.engine() == super::Engine::Postgres {
            for key in counters(t) {
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
    for ((t, a), b) in TABLES.iter().zip(&was).zip(&now) {
        if a != b {
            return Err(CopyError::Differs {
                table: t.name,
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
        .find(|(t, _)| t.name == "actions")
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
    use crate::store::schema;
    use crate::store::tables::Column;

    fn sqlite() -> Sql {
        Sql::sqlite(rusqlite::Connection::open_in_memory().unwrap())
    }

    /// Every column of a database brought forward by every migration, and of one made from the
    /// description, is one the copy reads, writes and checksums; and one it does not know is
    /// named, so that the copy refuses rather than drops it.
    #[test]
    fn the_copy_carries_every_column_a_database_has_and_names_any_it_would_not() {
        let mut history = sqlite();
        schema::migrate_by_history(&mut history).unwrap();
        let mut described = sqlite();
        schema::migrate(&mut described).unwrap();
        for c in [&mut history, &mut described] {
            assert_eq!(uncopied(c).unwrap(), Vec::<String>::new());
            // And nothing the copy names is missing from the database.
            let live = crate::store::shape::columns(c).unwrap();
            for t in TABLES {
                for column in carried(t).into_iter().filter(|c| *c != "rowid") {
                    let found = (t.name.to_owned(), column.to_owned());
                    assert!(live.contains(&found), "{found:?}");
                }
            }
        }
        history
            .batch(
                "ALTER TABLE agents ADD COLUMN shoe_size INTEGER;
                 CREATE TABLE hats (agent_id TEXT, hat TEXT);",
            )
            .unwrap();
        assert_eq!(
            uncopied(&mut history).unwrap(),
            ["agents.shoe_size", "hats"]
        );
    }

    /// A value for `c` of `t` no other column has, or the value of the column it refers to.
    fn sample(t: &Table, c: &Column) -> Value {
        if let Some((parent, column)) = c.references {
            let p = crate::store::tables::table(parent).unwrap();
            return sample(p, p.column(column).unwrap());
        }
        let n = t.columns.iter().position(|d| d.name == c.name).unwrap() as i64;
        match c.kind {
            Kind::Text | Kind::CaseFree => Value::Text(format!("{}.{}", t.name, c.name)),
            Kind::Int | Kind::Counter => Value::Int(40 + n),
            Kind::Real => Value::Real(0.5 + n as f64),
        }
    }

    /// Every table's rows as stored, each with its `rowid` where it has one.
    fn everything(path: &std::path::Path) -> Vec<(String, Vec<Vec<Value>>)> {
        let mut c = Sql::sqlite(rusqlite::Connection::open(path).unwrap());
        let mut tables: Vec<String> = crate::store::shape::columns(&mut c)
            .unwrap()
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        tables.dedup();
        tables
            .into_iter()
            .map(|t| {
                let has_rowid =
                    crate::store::tables::table(&t).is_some_and(|d| d.rowid != Rowid::Without);
                let rowid = if has_rowid { "rowid, " } else { "" };
                let rows = c
                    .query(&format!("SELECT {rowid}* FROM {t} ORDER BY 1"), &[])
                    .unwrap();
                (t, rows.iter().map(|r| r.values().to_vec()).collect())
            })
            .collect()
    }

    /// A town with every column of every table set (none left to its default or NULL) copies
    /// to a new file value for value, and the copy's checksum sees a change to the column added
    /// last (`agents.origin`).
    #[tokio::test]
    async fn a_copy_carries_every_value_of_every_column() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("from.db"), dir.path().join("to.db"));
        let store = Store::open(&Database::Sqlite(from.clone()), StoreOptions::default()).unwrap();
        store
            .call(|c| {
                for t in TABLES {
                    let columns: Vec<&str> = t.columns.iter().map(|c| c.name).collect();
                    let marks: Vec<String> = (1..=columns.len()).map(|i| format!("?{i}")).collect();
                    let values: Vec<Value> = t.columns.iter().map(|c| sample(t, c)).collect();
                    c.execute(
                        &format!(
                            "INSERT INTO {} ({}) VALUES ({})",
                            t.name,
                            columns.join(", "),
                            marks.join(", ")
                        ),
                        &values,
                    )?;
                }
                Ok(())
            })
            .await
            .unwrap();
        store.close().await;
        let said = copy(
            &Database::Sqlite(from.clone()),
            &Database::Sqlite(to.clone()),
            |_, _| {},
        )
        .await
        .unwrap();
        assert!(said.contains("reads back the same"), "{said}");
        let (was, is) = (everything(&from), everything(&to));
        for (table, rows) in &was {
            assert_eq!(rows.len(), 1, "{table}");
            assert!(!rows[0].contains(&Value::Null), "{table}: {rows:?}");
        }
        assert_eq!(was, is);

        let open = |p: &std::path::Path| {
            Store::open(&Database::Sqlite(p.into()), StoreOptions::default()).unwrap()
        };
        let (a, b) = (open(&from), open(&to));
        b.call(|c| c.execute("UPDATE agents SET origin = 'elsewhere'", &[]))
            .await
            .unwrap();
        let (ta, tb) = (tally(&a).await.unwrap(), tally(&b).await.unwrap());
        assert_eq!(ta[1..], tb[1..]);
        assert_ne!(ta[0], tb[0], "agents.origin is in the checksum");
        a.close().await;
        b.close().await;
    }
}
