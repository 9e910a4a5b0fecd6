//! How a database comes to hold the tables of [`tables`](super::tables): a new one is made
//! from that description, an old one is brought forward by the migrations it has not run.
//!
//! The migrations are the schema's history, kept for the databases that were made before each
//! of them: written once and never changed, since old databases have run them. A database
//! records how many it has run; a new one, made from the description, records them all. A test
//! runs every migration in turn and checks that the outcome is what the description makes, so
//! that a column added to one and not the other fails it.

use super::ddl;
use super::sql::{self, Engine, Sql};

/// SQLite's history: the `n`th entry takes a database from version `n - 1` to `n`.
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
    // 2: the state-machine host: sessions, who plays which role, and the append-only
    // log of actions. Agents get API tokens (stored as SHA-256 hashes).
    "ALTER TABLE agents ADD COLUMN token_hash TEXT;
    CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        template   TEXT NOT NULL,
        state      TEXT NOT NULL,
        status     TEXT NOT NULL DEFAULT 'active',
        tick       INTEGER NOT NULL DEFAULT 0,
        seed       INTEGER NOT NULL,
        options    TEXT NOT NULL DEFAULT 'null',
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
    );
    CREATE TABLE participants (
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        role       TEXT NOT NULL,
        PRIMARY KEY (session_id, agent_id)
    );
    CREATE INDEX participants_by_agent ON participants(agent_id);
    CREATE TABLE actions (
        action_id  TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        role       TEXT NOT NULL,
        action     TEXT NOT NULL,
        tick       INTEGER NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        UNIQUE (session_id, tick)
    );
    CREATE TRIGGER actions_are_append_only_update BEFORE UPDATE ON actions
        BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;
    CREATE TRIGGER actions_are_append_only_delete BEFORE DELETE ON actions
        BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;",
    // 3: the game time of each action (milliseconds since its session began, scaled by
    // --time-scale), so that templates with clocks and deadlines replay exactly.
    "ALTER TABLE actions ADD COLUMN at_ms INTEGER NOT NULL DEFAULT 0;",
    // 4: answers kept under idempotency keys (Werewolf's tools), so that a retry after a
    // restart is still answered and still changes nothing. `args` and `answer` are JSON; the
    // newest few hundred of each identity are kept (see `keys::KEPT_PER_IDENTITY`).
    "CREATE TABLE idempotency_keys (
        seq      INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL REFERENCES agents(agent_id),
        tool     TEXT NOT NULL,
        key      TEXT NOT NULL,
        args     TEXT NOT NULL,
        answer   TEXT NOT NULL,
        UNIQUE (agent_id, tool, key)
    );",
    // 5: how a character's lines are fitted to their screen (`@linelength`, `@wrap`; a NULL
    // line length takes the client's width or the default); who is a wizard; who is banned (by
    // character or by address); and every wizard's act, kept like the action log.
    "ALTER TABLE agents ADD COLUMN linelength INTEGER;
    ALTER TABLE agents ADD COLUMN wrap INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE agents ADD COLUMN wizard INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE bans (
        what      TEXT PRIMARY KEY COLLATE NOCASE,
        by_whom   TEXT NOT NULL,
        reason    TEXT NOT NULL,
        at_ms     INTEGER NOT NULL
    );
    CREATE TABLE admin_actions (
        seq       INTEGER PRIMARY KEY AUTOINCREMENT,
        at_ms     INTEGER NOT NULL,
        by_whom   TEXT NOT NULL,
        verb      TEXT NOT NULL,
        target    TEXT NOT NULL,
        detail    TEXT NOT NULL
    );
    CREATE TRIGGER admin_actions_are_append_only_update BEFORE UPDATE ON admin_actions
        BEGIN SELECT RAISE(ABORT, 'the admin log is append-only'); END;
    CREATE TRIGGER admin_actions_are_append_only_delete BEFORE DELETE ON admin_actions
        BEGIN SELECT RAISE(ABORT, 'the admin log is append-only'); END;",
    // 6: OAuth for remote MCP hosts: the clients they registered, and the tokens people let
    // them have (kept as hashes; `kind` is `access` or `refresh`).
    "CREATE TABLE oauth_clients (
        client_id     TEXT PRIMARY KEY,
        client_name   TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,
        created_ms    INTEGER NOT NULL
    );
    CREATE TABLE oauth_tokens (
        token_hash TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        client_id  TEXT NOT NULL,
        expires_ms INTEGER NOT NULL
    );",
    // 7: the action log without its (session_id, tick) index. The key `<session>.<tick>` is
    // unique already, and the index cost a page written per action (a third of what a move
    // wrote); the log is read once, at start, in one pass in the order it was written. The
    // table is built anew (a UNIQUE constraint cannot be dropped), rowids and all.
    "CREATE TABLE actions_new (
        action_id  TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        role       TEXT NOT NULL,
        action     TEXT NOT NULL,
        tick       INTEGER NOT NULL,
        created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
        at_ms      INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO actions_new (rowid, action_id, session_id, agent_id, role, action, tick, created_at, at_ms)
        SELECT rowid, action_id, session_id, agent_id, role, action, tick, created_at, at_ms FROM actions;
    DROP TABLE actions;
    ALTER TABLE actions_new RENAME TO actions;
    CREATE TRIGGER actions_are_append_only_update BEFORE UPDATE ON actions
        BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;
    CREATE TRIGGER actions_are_append_only_delete BEFORE DELETE ON actions
        BEGIN SELECT RAISE(ABORT, 'the action log is append-only'); END;",
    // 8: ratings. Who each identity is (`person`: made at the login screen or on the web;
    // `agent`: made by `POST /agents` or an OAuth registration; `house`: the town's own
    // players), whether a session is rated, and the standings the rated and recorded results
    // gave: derived from the action log (`moot ratings rebuild` gives them again), each change
    // stored with the action that decided it.
    "ALTER TABLE agents ADD COLUMN kind TEXT NOT NULL DEFAULT 'agent';
    UPDATE agents SET kind = 'person' WHERE password_hash IS NOT NULL;
    ALTER TABLE sessions ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE standings (
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        board      TEXT NOT NULL,
        rules      TEXT NOT NULL,
        rating     REAL,
        deviation  REAL,
        volatility REAL,
        games      INTEGER NOT NULL,
        won        INTEGER NOT NULL,
        lost       INTEGER NOT NULL,
        drawn      INTEGER NOT NULL,
        PRIMARY KEY (agent_id, board, rules)
    ) WITHOUT ROWID;
    CREATE TABLE standing_changes (
        action_id  TEXT NOT NULL,
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        board      TEXT NOT NULL,
        rules      TEXT NOT NULL,
        score      REAL NOT NULL,
        rating_before    REAL,
        deviation_before REAL,
        rating     REAL,
        deviation  REAL,
        volatility REAL,
        PRIMARY KEY (action_id, agent_id)
    );
    CREATE INDEX standing_changes_by_agent ON standing_changes(agent_id);",
    // 9: errors apart from skill, per session and player while it runs (refused actions,
    // missed deadlines; see `ratings::conduct`), and the reasoning an agent may give with an
    // action, shown to nobody until its game has ended.
    "CREATE TABLE session_conduct (
        session_id TEXT NOT NULL,
        agent_id   TEXT NOT NULL,
        refused    INTEGER NOT NULL DEFAULT 0,
        missed     INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, agent_id)
    ) WITHOUT ROWID;
    ALTER TABLE actions ADD COLUMN reasoning TEXT;",
    // 10: what a game keeps in the town besides its sessions and must find again after a
    // restart (chess's games made with `createGame` and waiting for their second player), as
    // JSON under the module's name and a key of its own.
    KEPT_STATE,
    // 11: whose voice an identity is, for ratings (`ratings`: identities of one owner never
    // rate each other): the identity it speaks for, where it was made by another's hand, and
    // the address an anonymous one was made from (IPv4, or an IPv6 /64), so that many made
    // from one address in a short while count as one owner.
    OWNERS,
    // 12: whether a character reads with a screen reader (`@screenreader on`).
    "ALTER TABLE agents ADD COLUMN screenreader INTEGER NOT NULL DEFAULT 0;",
    // 13: who may build (the builder bit a wizard grants), and what they built: rooms, exits
    // and things, each with its number, its owner and where it stands.
    built_migration!("INTEGER"),
    // 14: who may program (the programmer bit a wizard grants), and the programmed verbs'
    // code, the last few versions of each.
    programs_migration!("INTEGER"),
    // 15: what the town's own objects' properties (the world files') became as programmed
    // verbs changed them; whose token made an agent (it builds as they may); and which built
    // objects their owners made writable (`@chmod +w`).
    town_props_migration!("INTEGER"),
    // 16: who besides its owner may read a verb's code and run it (`@chmod #12:push -r`), on
    // each of its versions.
    VERB_MODES,
    // 17: a result may change one player's standing on two boards (a Werewolf seer's side's,
    // `werewolf/village`, and its part's, `werewolf/seer`), so a change is keyed by its board
    // too. SQLite cannot change a key: the table is built anew, rowids (its order) and all.
    "CREATE TABLE standing_changes_new (
        action_id  TEXT NOT NULL,
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        board      TEXT NOT NULL,
        rules      TEXT NOT NULL,
        score      REAL NOT NULL,
        rating_before    REAL,
        deviation_before REAL,
        rating     REAL,
        deviation  REAL,
        volatility REAL,
        PRIMARY KEY (action_id, agent_id, board)
    );
    INSERT INTO standing_changes_new (rowid, action_id, agent_id, board, rules, score,
            rating_before, deviation_before, rating, deviation, volatility)
        SELECT rowid, action_id, agent_id, board, rules, score, rating_before,
            deviation_before, rating, deviation, volatility FROM standing_changes;
    DROP TABLE standing_changes;
    ALTER TABLE standing_changes_new RENAME TO standing_changes;
    CREATE INDEX standing_changes_by_agent ON standing_changes(agent_id);",
    // 18: what an action cost the agent that took it, as it reported it (tokens, thought),
    // as JSON beside its reasoning.
    ACTION_COST,
];

/// Migration 18, the same words for both engines.
const ACTION_COST: &str = "ALTER TABLE actions ADD COLUMN cost TEXT;";

/// Migration 16, the same words for both engines.
const VERB_MODES: &str = "ALTER TABLE verbs ADD COLUMN mode TEXT NOT NULL DEFAULT 'rx';";

/// Migration 15, the same words for both engines but each one's integer type.
macro_rules! town_props_migration {
    ($int:literal) => {
        concat!(
            "CREATE TABLE town_props (
        object TEXT PRIMARY KEY,
        props  TEXT NOT NULL
    );
    ALTER TABLE agents ADD COLUMN maker TEXT;
    ALTER TABLE built ADD COLUMN writable ",
            $int,
            " NOT NULL DEFAULT 0;"
        )
    };
}
use town_props_migration;

/// Migration 14, the same words for both engines but each one's integer type.
macro_rules! programs_migration {
    ($int:literal) => {
        concat!(
            "ALTER TABLE agents ADD COLUMN programmer ",
            $int,
            " NOT NULL DEFAULT 0;
    CREATE TABLE verbs (
        num        ",
            $int,
            " NOT NULL,
        name       TEXT NOT NULL,
        version    ",
            $int,
            " NOT NULL,
        code       TEXT NOT NULL,
        author     TEXT NOT NULL,
        created_ms ",
            $int,
            " NOT NULL,
        PRIMARY KEY (num, name, version)
    );"
        )
    };
}
use programs_migration;

/// Migration 13, the same words for both engines but each one's integer type.
macro_rules! built_migration {
    ($int:literal) => {
        concat!(
            "ALTER TABLE agents ADD COLUMN builder ",
            $int,
            " NOT NULL DEFAULT 0;
    CREATE TABLE built (
        num         ",
            $int,
            " PRIMARY KEY,
        kind        TEXT NOT NULL,
        owner       TEXT NOT NULL,
        name        TEXT NOT NULL,
        aliases     TEXT NOT NULL DEFAULT '[]',
        description TEXT NOT NULL DEFAULT '',
        place       TEXT,
        dest        TEXT,
        lock        TEXT,
        thing_kind  TEXT,
        props       TEXT NOT NULL DEFAULT '{}',
        created_ms  ",
            $int,
            " NOT NULL
    );"
        )
    };
}
use built_migration;

/// Migration 11, the same words for both engines.
const OWNERS: &str = "ALTER TABLE agents ADD COLUMN owner TEXT;
    ALTER TABLE agents ADD COLUMN origin TEXT;
    CREATE INDEX agents_by_origin ON agents(origin, created_at);";

/// Migration 10, the same words for both engines.
const KEPT_STATE: &str = "CREATE TABLE kept_state (
        module TEXT NOT NULL,
        key    TEXT NOT NULL,
        value  TEXT NOT NULL,
        PRIMARY KEY (module, key)
    );";

/// PostgreSQL's history, by the version of [`MIGRATIONS`] each step reaches: PostgreSQL came
/// when SQLite had reached version 9, so its first step makes that version at once, and later
/// migrations are written for both. (A new database of either is made from the description.)
const POSTGRES: &[(usize, &str)] = &[
    (
        9,
        r#"CREATE EXTENSION IF NOT EXISTS citext;
    CREATE TABLE agents (
        agent_id      TEXT PRIMARY KEY,
        name          CITEXT NOT NULL UNIQUE,
        password_hash TEXT,
        description   TEXT NOT NULL DEFAULT '',
        room          TEXT,
        created_at    TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'),
        token_hash    TEXT,
        linelength    BIGINT,
        wrap          BIGINT NOT NULL DEFAULT 1,
        wizard        BIGINT NOT NULL DEFAULT 0,
        kind          TEXT NOT NULL DEFAULT 'agent'
    );
    CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        template   TEXT NOT NULL,
        state      TEXT NOT NULL,
        status     TEXT NOT NULL DEFAULT 'active',
        tick       BIGINT NOT NULL DEFAULT 0,
        seed       BIGINT NOT NULL,
        options    TEXT NOT NULL DEFAULT 'null',
        created_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        updated_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        rated      BIGINT NOT NULL DEFAULT 0
    );
    CREATE TABLE participants (
        rowid      BIGSERIAL NOT NULL,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        role       TEXT NOT NULL,
        PRIMARY KEY (session_id, agent_id)
    );
    CREATE INDEX participants_by_agent ON participants(agent_id);
    CREATE TABLE actions (
        rowid      BIGSERIAL NOT NULL,
        action_id  TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(session_id),
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        role       TEXT NOT NULL,
        action     TEXT NOT NULL,
        tick       BIGINT NOT NULL,
        created_at TEXT NOT NULL DEFAULT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        at_ms      BIGINT NOT NULL DEFAULT 0,
        reasoning  TEXT
    );
    CREATE FUNCTION moot_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'the % log is append-only', TG_ARGV[0]; END $$;
    CREATE TRIGGER actions_are_append_only BEFORE UPDATE OR DELETE ON actions
        FOR EACH ROW EXECUTE FUNCTION moot_append_only('action');
    CREATE TRIGGER actions_are_never_emptied BEFORE TRUNCATE ON actions
        FOR EACH STATEMENT EXECUTE FUNCTION moot_append_only('action');
    CREATE TABLE idempotency_keys (
        seq      BIGSERIAL PRIMARY KEY,
        agent_id TEXT NOT NULL REFERENCES agents(agent_id),
        tool     TEXT NOT NULL,
        key      TEXT NOT NULL,
        args     TEXT NOT NULL,
        answer   TEXT NOT NULL,
        UNIQUE (agent_id, tool, key)
    );
    CREATE TABLE bans (
        what      CITEXT PRIMARY KEY,
        by_whom   TEXT NOT NULL,
        reason    TEXT NOT NULL,
        at_ms     BIGINT NOT NULL
    );
    CREATE TABLE admin_actions (
        seq       BIGSERIAL PRIMARY KEY,
        at_ms     BIGINT NOT NULL,
        by_whom   TEXT NOT NULL,
        verb      TEXT NOT NULL,
        target    TEXT NOT NULL,
        detail    TEXT NOT NULL
    );
    CREATE TRIGGER admin_actions_are_append_only BEFORE UPDATE OR DELETE ON admin_actions
        FOR EACH ROW EXECUTE FUNCTION moot_append_only('admin');
    CREATE TRIGGER admin_actions_are_never_emptied BEFORE TRUNCATE ON admin_actions
        FOR EACH STATEMENT EXECUTE FUNCTION moot_append_only('admin');
    CREATE TABLE oauth_clients (
        client_id     TEXT PRIMARY KEY,
        client_name   TEXT NOT NULL,
        redirect_uris TEXT NOT NULL,
        created_ms    BIGINT NOT NULL
    );
    CREATE TABLE oauth_tokens (
        token_hash TEXT PRIMARY KEY,
        kind       TEXT NOT NULL,
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        client_id  TEXT NOT NULL,
        expires_ms BIGINT NOT NULL
    );
    CREATE TABLE standings (
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        board      TEXT NOT NULL,
        rules      TEXT NOT NULL,
        rating     DOUBLE PRECISION,
        deviation  DOUBLE PRECISION,
        volatility DOUBLE PRECISION,
        games      BIGINT NOT NULL,
        won        BIGINT NOT NULL,
        lost       BIGINT NOT NULL,
        drawn      BIGINT NOT NULL,
        PRIMARY KEY (agent_id, board, rules)
    );
    CREATE TABLE standing_changes (
        rowid      BIGSERIAL NOT NULL,
        action_id  TEXT NOT NULL,
        agent_id   TEXT NOT NULL REFERENCES agents(agent_id),
        board      TEXT NOT NULL,
        rules      TEXT NOT NULL,
        score      DOUBLE PRECISION NOT NULL,
        rating_before    DOUBLE PRECISION,
        deviation_before DOUBLE PRECISION,
        rating     DOUBLE PRECISION,
        deviation  DOUBLE PRECISION,
        volatility DOUBLE PRECISION,
        PRIMARY KEY (action_id, agent_id)
    );
    CREATE INDEX standing_changes_by_agent ON standing_changes(agent_id);
    CREATE TABLE session_conduct (
        session_id TEXT NOT NULL,
        agent_id   TEXT NOT NULL,
        refused    BIGINT NOT NULL DEFAULT 0,
        missed     BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (session_id, agent_id)
    );"#,
    ),
    (10, KEPT_STATE),
    (11, OWNERS),
    (
        12,
        "ALTER TABLE agents ADD COLUMN screenreader BIGINT NOT NULL DEFAULT 0;",
    ),
    (13, built_migration!("BIGINT")),
    (14, programs_migration!("BIGINT")),
    (15, town_props_migration!("BIGINT")),
    (16, VERB_MODES),
    (
        17,
        "ALTER TABLE standing_changes DROP CONSTRAINT standing_changes_pkey;
        ALTER TABLE standing_changes ADD PRIMARY KEY (action_id, agent_id, board);",
    ),
    (18, ACTION_COST),
];

/// The version of the schema [`tables`](super::tables) describes: that of every migration.
const VERSION: usize = MIGRATIONS.len();

/// The schema version the database has: SQLite keeps it in `PRAGMA user_version`, PostgreSQL
/// in a table of ours (none yet is version 0).
fn version(conn: &mut Sql) -> sql::Result<usize> {
    let found: i64 = match conn.engine() {
        Engine::Sqlite => conn.first("PRAGMA user_version", &[])?,
        Engine::Postgres => {
            let exists = conn
                .first(
                    "SELECT to_regclass('moot_schema') IS NOT NULL AS user_version",
                    &[],
                )?
                .map(|r| r.get::<bool>("user_version"))
                .transpose()?
                .unwrap_or(false);
            if !exists {
                return Ok(0);
            }
            conn.first("SELECT version AS user_version FROM moot_schema", &[])?
        }
    }
    .map(|r| r.get::<i64>("user_version"))
    .transpose()?
    .unwrap_or(0);
    Ok(usize::try_from(found).unwrap_or(usize::MAX))
}

/// Refuses a database written by a newer moot: migrating "forward" from a version we do not
/// know would misread its tables, and writing to it could break the newer moot's data.
pub fn check_version(conn: &mut Sql) -> Result<(), super::StoreError> {
    let found = version(conn)?;
    let known = MIGRATIONS.len();
    if found > known {
        return Err(super::StoreError::TooNew {
            found: i64::try_from(found).unwrap_or(i64::MAX),
            known: known as i64,
        });
    }
    Ok(())
}

/// Makes a new database's tables from their description, or brings an old one's forward.
pub fn migrate(conn: &mut Sql) -> sql::Result<()> {
    match version(conn)? {
        0 => {
            let tables = ddl::create(conn.engine());
            step(conn, &tables, 0, VERSION)
        }
        _ => migrate_to(conn, VERSION),
    }
}

/// Builds the schema of a new database by running every migration in turn, as the oldest
/// database was brought forward, rather than from the description: what a test compares.
#[cfg(any(test, feature = "testing"))]
pub fn migrate_by_history(conn: &mut Sql) -> sql::Result<()> {
    migrate_to(conn, VERSION)
}

/// Runs the migrations not yet run, up to the `upto`th (a test builds an older database so),
/// each in its own transaction with the version it leads to.
fn migrate_to(conn: &mut Sql, upto: usize) -> sql::Result<()> {
    let done = version(conn)?;
    match conn.engine() {
        Engine::Sqlite => {
            for (i, sql) in MIGRATIONS.iter().enumerate().take(upto).skip(done) {
                step(conn, sql, i, i + 1)?;
            }
        }
        Engine::Postgres => {
            let mut current = done;
            for (version, sql) in POSTGRES.iter().filter(|(v, _)| *v > done && *v <= upto) {
                step(conn, sql, current, *version)?;
                current = *version;
            }
        }
    }
    Ok(())
}

/// Runs `sql`, which takes a database from version `from` to `to`, in one transaction with the
/// record of `to`: a database is at one version or the next, never between.
fn step(conn: &mut Sql, sql: &str, from: usize, to: usize) -> sql::Result<()> {
    let record = match conn.engine() {
        Engine::Sqlite => format!("PRAGMA user_version = {to};"),
        Engine::Postgres if from == 0 => format!(
            "CREATE TABLE moot_schema (version BIGINT NOT NULL); INSERT INTO moot_schema VALUES ({to});"
        ),
        Engine::Postgres => format!("UPDATE moot_schema SET version = {to};"),
    };
    let outcome = conn.batch(&format!("BEGIN; {sql} {record} COMMIT;"));
    if outcome.is_err() {
        let _ = conn.batch("ROLLBACK");
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::shape::shape;
    use crate::store::tables::TABLES;

    fn sqlite() -> Sql {
        Sql::sqlite(rusqlite::Connection::open_in_memory().unwrap())
    }

    /// The description is the schema: a database brought forward through every migration holds
    /// exactly what one made from the description holds, in SQLite's own words (each column's
    /// place, type, nullability and default; keys, unique sets and their collations;
    /// references; indexes; triggers). A column added to one and not the other fails here.
    /// (PostgreSQL's twin is in the integration tests, which have a cluster.)
    #[test]
    fn every_migration_in_turn_makes_what_the_description_makes() {
        let (mut history, mut described) = (sqlite(), sqlite());
        migrate_by_history(&mut history).unwrap();
        migrate(&mut described).unwrap();
        assert_eq!(version(&mut history).unwrap(), VERSION);
        assert_eq!(version(&mut described).unwrap(), VERSION);
        let (was, is) = (shape(&mut history).unwrap(), shape(&mut described).unwrap());
        let only = |a: &[String], b: &[String]| -> Vec<String> {
            a.iter().filter(|f| !b.contains(f)).cloned().collect()
        };
        assert_eq!(
            (only(&was, &is), only(&is, &was)),
            (vec![], vec![]),
            "(only in the migrated database, only in the described one)"
        );
        // What it compared: every described column, and what only a key shows (a collation).
        for t in TABLES {
            for c in t.columns {
                let line = format!("column {}.{} #", t.name, c.name);
                assert!(is.iter().any(|f| f.starts_with(&line)), "{line}");
            }
        }
        assert!(
            is.iter().any(
                |f| f.starts_with("index agents sqlite_autoindex_agents_2 unique=1")
                    && f.ends_with("(name NOCASE)")
            ),
            "{is:#?}"
        );
    }

    /// A database made by any older moot, at any version, is brought to the schema the
    /// description makes (by the migrations it has not run, not made anew).
    #[test]
    fn a_database_of_any_older_version_is_brought_to_the_described_schema() {
        let described = {
            let mut c = sqlite();
            migrate(&mut c).unwrap();
            shape(&mut c).unwrap()
        };
        for old in 1..VERSION {
            let mut c = sqlite();
            migrate_to(&mut c, old).unwrap();
            assert_eq!(version(&mut c).unwrap(), old);
            migrate(&mut c).unwrap();
            assert_eq!(version(&mut c).unwrap(), VERSION);
            assert_eq!(shape(&mut c).unwrap(), described, "from version {old}");
        }
    }

    /// The comparison above sees what a forgotten migration would leave out.
    #[test]
    fn a_column_index_or_collation_of_one_database_alone_is_told() {
        let base = {
            let mut c = sqlite();
            migrate(&mut c).unwrap();
            shape(&mut c).unwrap()
        };
        for change in [
            "ALTER TABLE agents ADD COLUMN shoe_size INTEGER",
            "CREATE INDEX sessions_by_status ON sessions(status)",
            "DROP TRIGGER actions_are_append_only_delete",
            // The same columns, names compared with case.
            "CREATE TABLE bans2 (what TEXT PRIMARY KEY, by_whom TEXT NOT NULL,
                                 reason TEXT NOT NULL, at_ms INTEGER NOT NULL);
             DROP TABLE bans; ALTER TABLE bans2 RENAME TO bans",
        ] {
            let mut c = sqlite();
            migrate(&mut c).unwrap();
            c.batch(change).unwrap();
            assert_ne!(shape(&mut c).unwrap(), base, "{change}");
        }
    }

    /// Schema 7 rebuilds the action log without its second index: a database written before
    /// it keeps every action, each session's log in order, its key unique and its log
    /// append-only.
    #[test]
    fn the_action_log_loses_its_index_and_nothing_else() {
        let mut c = Sql::sqlite(rusqlite::Connection::open_in_memory().unwrap());
        migrate_to(&mut c, 6).unwrap();
        c.batch(
            "INSERT INTO agents (agent_id, name) VALUES ('a', 'Ann'), ('b', 'Bo');
             INSERT INTO sessions (session_id, template, state, seed) VALUES
                 ('1', 'chess.v1', '{}', 7), ('2', 'rps.v1', '{}', 8);
             INSERT INTO actions (action_id, session_id, agent_id, role, action, tick, created_at, at_ms) VALUES
                 ('1.0', '1', 'a', 'white', 'e2e4', 0, 't0', 10),
                 ('2.0', '2', 'b', 'player_2', 'rock', 0, 't1', 20),
                 ('1.1', '1', 'b', 'black', 'e7e5', 1, 't2', 30),
                 ('1.2', '1', 'a', 'white', 'g1f3', 2, 't3', 40);",
        )
        .unwrap();
        let indexes = |c: &mut Sql| -> Vec<String> {
            c.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'actions' ORDER BY name", &[])
                .unwrap()
                .iter()
                .map(|r| r.get("name").unwrap())
                .collect()
        };
        assert_eq!(
            indexes(&mut c).len(),
            2,
            "the key's and (session_id, tick)'s"
        );
        migrate(&mut c).unwrap();
        assert_eq!(indexes(&mut c), ["sqlite_autoindex_actions_1"]);
        let all = crate::store::sessions::load_all(&mut c).unwrap();
        let logs: Vec<Vec<(u64, &str, u64)>> = all
            .iter()
            .map(|s| {
                s.log
                    .iter()
                    .map(|e| (e.tick, e.action.as_str(), e.at_ms))
                    .collect()
            })
            .collect();
        assert_eq!(
            logs,
            [
                vec![(0, "e2e4", 10), (1, "e7e5", 30), (2, "g1f3", 40)],
                vec![(0, "rock", 20)]
            ]
        );
        let again = "INSERT INTO actions (action_id, session_id, agent_id, role, action, tick)
                     VALUES ('1.1', '1', 'b', 'black', 'd7d5', 1)";
        assert!(c.execute(again, &[]).is_err(), "one action a tick");
        for change in [
            "UPDATE actions SET action = 'e7e6' WHERE action_id = '1.1'",
            "DELETE FROM actions WHERE action_id = '1.1'",
        ] {
            let e = c.execute(change, &[]).unwrap_err().to_string();
            assert!(e.contains("append-only"), "{change}: {e}");
        }
    }
}
