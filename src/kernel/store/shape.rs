//! What a live database holds, as its engine's own catalogue says: every table's columns (with
//! their types, nullability and defaults), keys, references, indexes and triggers. Read back
//! rather than trusted, for the two checks that keep the description of the tables honest: a
//! database built by every migration must hold what one made from the description holds, and
//! `moot db copy` refuses a database with a column it does not carry.

use super::sql::{self, Engine, Sql};

/// Every column of every table of moot's (PostgreSQL's `moot_schema`, which records the
/// schema's version, aside), as `(table, column)`, sorted.
pub fn columns(c: &mut Sql) -> sql::Result<Vec<(String, String)>> {
    let rows = match c.engine() {
        Engine::Sqlite => c.query(
            "SELECT m.name AS table_name, p.name AS column_name
             FROM sqlite_master m, pragma_table_info(m.name) p
             WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY 1, 2",
            &[],
        )?,
        Engine::Postgres => c.query(
            "SELECT table_name::text AS table_name, column_name::text AS column_name
             FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name <> 'moot_schema'
             ORDER BY 1, 2",
            &[],
        )?,
    };
    rows.iter()
        .map(|r| Ok((r.get("table_name")?, r.get("column_name")?)))
        .collect()
}

/// The whole schema of `c`, a line a fact, sorted: two databases with the same lines have the
/// same tables, columns (in the same order), keys, references, indexes and triggers.
#[cfg(any(test, feature = "testing"))]
pub fn shape(c: &mut Sql) -> sql::Result<Vec<String>> {
    let queries: &[&str] = match c.engine() {
        Engine::Sqlite => &[
            // `wr`: WITHOUT ROWID; AUTOINCREMENT is seen only in the table's text.
            "SELECT 'table ' || m.name || ' without_rowid=' || l.wr || ' autoincrement='
                    || (m.sql LIKE '%AUTOINCREMENT%') AS fact
             FROM sqlite_master m JOIN pragma_table_list l ON l.name = m.name AND l.schema = 'main'
             WHERE m.type = 'table'",
            "SELECT 'column ' || m.name || '.' || p.name || ' #' || p.cid || ' ' || p.type
                    || ' notnull=' || p.\"notnull\" || ' default=' || coalesce(p.dflt_value, '-')
                    || ' pk=' || p.pk AS fact
             FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'",
            "SELECT 'reference ' || m.name || '.' || f.\"from\" || ' -> ' || f.\"table\" || '.'
                    || f.\"to\" || ' on_update=' || f.on_update || ' on_delete=' || f.on_delete
                    AS fact
             FROM sqlite_master m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table'",
            // Keys and unique sets are indexes SQLite made (`origin` says which); the collation
            // of an indexed column is seen here.
            "SELECT 'index ' || m.name || ' ' || l.name || ' unique=' || l.\"unique\" || ' origin='
                    || l.origin || ' partial=' || l.partial || ' (' || (
                        SELECT group_concat(coalesce(x.name, '<rowid>') || ' ' || x.coll
                                            || CASE x.\"desc\" WHEN 1 THEN ' desc' ELSE '' END, ', ')
                        FROM (SELECT * FROM pragma_index_xinfo(l.name) WHERE key ORDER BY seqno) x
                    ) || ')' AS fact
             FROM sqlite_master m, pragma_index_list(m.name) l WHERE m.type = 'table'",
            "SELECT 'trigger ' || tbl_name || ' ' || name || ': ' || sql AS fact
             FROM sqlite_master WHERE type = 'trigger'",
        ],
        Engine::Postgres => &[
            "SELECT 'table ' || table_name AS fact FROM information_schema.tables
             WHERE table_schema = current_schema()",
            "SELECT 'column ' || table_name || '.' || column_name || ' #' || ordinal_position
                    || ' ' || data_type || '/' || udt_name || ' nullable=' || is_nullable
                    || ' default=' || coalesce(column_default, '-') AS fact
             FROM information_schema.columns WHERE table_schema = current_schema()",
            "SELECT 'constraint ' || t.relname || ' ' || c.conname || ': '
                    || pg_get_constraintdef(c.oid) AS fact
             FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
             WHERE t.relnamespace = current_schema()::regnamespace",
            "SELECT 'index ' || tablename || ' ' || indexname || ': ' || indexdef AS fact
             FROM pg_indexes WHERE schemaname = current_schema()",
            "SELECT 'trigger ' || c.relname || ' ' || t.tgname || ': ' || pg_get_triggerdef(t.oid)
                    AS fact
             FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
             WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace",
            "SELECT 'function ' || p.proname || ': ' || pg_get_functiondef(p.oid) AS fact
             FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
                AND p.prokind = 'f' AND NOT EXISTS (
                    SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')",
            "SELECT 'sequence ' || sequence_name || ' ' || data_type AS fact
             FROM information_schema.sequences WHERE sequence_schema = current_schema()",
            "SELECT 'extension ' || extname AS fact FROM pg_extension",
        ],
    };
    let mut facts = Vec::new();
    for q in queries {
        for r in c.query(q, &[])? {
            let fact: String = r.get("fact")?;
            // Statements written by hand differ from made ones in their spaces only.
            facts.push(fact.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    facts.sort();
    Ok(facts)
}
