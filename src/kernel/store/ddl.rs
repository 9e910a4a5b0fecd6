//! The description of the tables ([`tables`](super::tables)) in each engine's words: what
//! makes a new database. Where the engines differ, the description says what is meant and
//! this says how: names regardless of case (`COLLATE NOCASE`, `citext`, a trusted extension a
//! database's owner may create), integers (64-bit in both), the order rows were written in
//! (SQLite's `rowid`, a `BIGSERIAL` column on PostgreSQL), the time of an insert, and the
//! triggers that keep a log append-only.

use super::sql::Engine;
use super::tables::{Clock, Column, DefaultValue, Kind, Rowid, TABLES, Table};

/// Every table, index and trigger, in the order they must be made.
pub fn create(engine: Engine) -> String {
    let mut out = String::new();
    if engine == Engine::Postgres {
        if TABLES
            .iter()
            .any(|t| t.columns.iter().any(|c| c.kind == Kind::CaseFree))
        {
            out.push_str("CREATE EXTENSION IF NOT EXISTS citext;\n");
        }
        if TABLES.iter().any(|t| t.append_only.is_some()) {
            out.push_str(
                "CREATE FUNCTION moot_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'the % log is append-only', TG_ARGV[0]; END $$;\n",
            );
        }
    }
    for t in TABLES {
        out.push_str(&table(t, engine));
        for i in t.indexes {
            out.push_str(&format!(
                "CREATE INDEX {} ON {}({});\n",
                i.name,
                t.name,
                i.columns.join(", ")
            ));
        }
        if let Some(log) = t.append_only {
            out.push_str(&append_only(t.name, log, engine));
        }
    }
    out
}

fn table(t: &Table, engine: Engine) -> String {
    let mut lines = Vec::new();
    if t.rowid == Rowid::Order && engine == Engine::Postgres {
        lines.push("rowid BIGSERIAL NOT NULL".to_owned());
    }
    lines.extend(t.columns.iter().map(|c| column(t, c, engine)));
    if t.key.len() > 1 {
        lines.push(format!("PRIMARY KEY ({})", t.key.join(", ")));
    }
    for u in t.unique.iter().filter(|u| u.len() > 1) {
        lines.push(format!("UNIQUE ({})", u.join(", ")));
    }
    let without = if t.rowid == Rowid::Without && engine == Engine::Sqlite {
        " WITHOUT ROWID"
    } else {
        ""
    };
    format!(
        "CREATE TABLE {} (\n    {}\n){without};\n",
        t.name,
        lines.join(",\n    ")
    )
}

/// One column's definition, as `CREATE TABLE` lists it (and as a migration that adds it to
/// old databases writes it after `ALTER TABLE ... ADD COLUMN`).
fn column(t: &Table, c: &Column, engine: Engine) -> String {
    let sqlite = engine == Engine::Sqlite;
    let mut out = format!(
        "{} {}",
        c.name,
        match (c.kind, sqlite) {
            (Kind::Text | Kind::CaseFree, true) | (Kind::Text, false) => "TEXT",
            (Kind::CaseFree, false) => "CITEXT",
            (Kind::Int | Kind::Counter, true) => "INTEGER",
            (Kind::Int, false) => "BIGINT",
            (Kind::Counter, false) => "BIGSERIAL",
            (Kind::Real, true) => "REAL",
            (Kind::Real, false) => "DOUBLE PRECISION",
        }
    );
    if c.not_null {
        out.push_str(" NOT NULL");
    }
    if t.key == [c.name] {
        out.push_str(" PRIMARY KEY");
        if c.kind == Kind::Counter && sqlite {
            out.push_str(" AUTOINCREMENT");
        }
    }
    if t.unique.iter().any(|u| *u == [c.name]) {
        out.push_str(" UNIQUE");
    }
    if c.kind == Kind::CaseFree && sqlite {
        out.push_str(" COLLATE NOCASE");
    }
    if let Some(d) = c.default {
        out.push_str(" DEFAULT ");
        out.push_str(&default(d, engine));
    }
    if let Some((table, column)) = c.references {
        out.push_str(&format!(" REFERENCES {table}({column})"));
    }
    out
}

fn default(d: DefaultValue, engine: Engine) -> String {
    match (d, engine) {
        (DefaultValue::Text(s), _) => format!("'{}'", s.replace('\'', "''")),
        (DefaultValue::Int(i), _) => i.to_string(),
        (DefaultValue::Now(Clock::Seconds), Engine::Sqlite) => "(datetime('now'))".into(),
        (DefaultValue::Now(Clock::Millis), Engine::Sqlite) => {
            "(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))".into()
        }
        (DefaultValue::Now(Clock::Seconds), Engine::Postgres) => {
            "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')".into()
        }
        (DefaultValue::Now(Clock::Millis), Engine::Postgres) => {
            r#"to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')"#.into()
        }
    }
}

/// The triggers that refuse to change or remove a row of the log `log` (and on PostgreSQL to
/// empty it, which skips row triggers).
fn append_only(table: &str, log: &str, engine: Engine) -> String {
    match engine {
        Engine::Sqlite => ["update", "delete"]
            .iter()
            .map(|what| {
                format!(
                    "CREATE TRIGGER {table}_are_append_only_{what} BEFORE {} ON {table}
    BEGIN SELECT RAISE(ABORT, 'the {log} log is append-only'); END;\n",
                    what.to_uppercase()
                )
            })
            .collect(),
        Engine::Postgres => format!(
            "CREATE TRIGGER {table}_are_append_only BEFORE UPDATE OR DELETE ON {table}
    FOR EACH ROW EXECUTE FUNCTION moot_append_only('{log}');
CREATE TRIGGER {table}_are_never_emptied BEFORE TRUNCATE ON {table}
    FOR EACH STATEMENT EXECUTE FUNCTION moot_append_only('{log}');\n"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_as_it_was_written_by_hand() {
        let actions = super::super::tables::table("actions").unwrap();
        assert_eq!(
            table(actions, Engine::Sqlite),
            "CREATE TABLE actions (
    action_id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(session_id),
    agent_id TEXT NOT NULL REFERENCES agents(agent_id),
    role TEXT NOT NULL,
    action TEXT NOT NULL,
    tick INTEGER NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    at_ms INTEGER NOT NULL DEFAULT 0,
    reasoning TEXT,
    cost TEXT
);
"
        );
        let keys = super::super::tables::table("idempotency_keys").unwrap();
        assert_eq!(
            table(keys, Engine::Postgres),
            "CREATE TABLE idempotency_keys (
    seq BIGSERIAL PRIMARY KEY,
    agent_id TEXT NOT NULL REFERENCES agents(agent_id),
    tool TEXT NOT NULL,
    key TEXT NOT NULL,
    args TEXT NOT NULL,
    answer TEXT NOT NULL,
    UNIQUE (agent_id, tool, key)
);
"
        );
    }
}
