//! The database schema, as an ordered list of migrations. `PRAGMA user_version` records how many
//! have run, so an old database is brought forward on start and a new one is built from scratch.

use rusqlite::Connection;

const MIGRATIONS: &[&str] = &[
    // 1: one identity table for everyone: telnet characters (with a password) and, later, API
    // agents (with a token). Names are unique regardless of case.
    "CREATE TABLE agents (
        agent_id      TEXT PRIMARY KEY,
        name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT,
        description   TEXT NOT NULL DEFAULT '',
        room          TEXT,
        created_at    TEXT NOT NULL DEFAULT (datetime('now'))
    );",
];

pub fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let done: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(done as usize) {
        conn.execute_batch(&format!(
            "BEGIN; {sql} PRAGMA user_version = {}; COMMIT;",
            i + 1
        ))?;
    }
    Ok(())
}
