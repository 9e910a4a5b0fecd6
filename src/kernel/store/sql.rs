//! One way to speak SQL to either engine: the store's statements are written once, with `?N`
//! parameters and the four kinds of value both engines share (see [`value`](super::value)),
//! and [`Sql`] runs them on an SQLite connection or a PostgreSQL one. What differs between the
//! engines (the schema, how a transaction begins, the lock) is asked of [`Sql::engine`] in the
//! few places that need it, all of them in this module's siblings.

pub(crate) use super::value::args;
pub use super::value::{DbError, Engine, FromValue, Names, Result, Row, Value};
use crate::store::postgres::PgConn;

enum Conn {
    Sqlite(rusqlite::Connection),
    Postgres(PgConn),
}

/// A connection to either engine.
pub struct Sql {
    conn: Conn,
}

impl Sql {
    pub fn sqlite(c: rusqlite::Connection) -> Sql {
        Sql {
            conn: Conn::Sqlite(c),
        }
    }

    pub(super) fn postgres(c: PgConn) -> Sql {
        Sql {
            conn: Conn::Postgres(c),
        }
    }

    pub fn engine(&self) -> Engine {
        match self.conn {
            Conn::Sqlite(_) => Engine::Sqlite,
            Conn::Postgres(_) => Engine::Postgres,
        }
    }

    /// Runs one statement; returns how many rows it changed.
    pub fn execute(&mut self, sql: &str, args: &[Value]) -> Result<u64> {
        match &mut self.conn {
            Conn::Sqlite(c) => {
                let n = c
                    .prepare_cached(sql)?
                    .execute(rusqlite::params_from_iter(args))?;
                Ok(n as u64)
            }
            Conn::Postgres(c) => c.execute(sql, args),
        }
    }

    /// Transaction control (a savepoint, its release, a rollback to it). On PostgreSQL it goes
    /// out with the next statement rather than waiting for an answer of its own; an error in
    /// it is that statement's.
    pub fn control(&mut self, sql: &'static str) -> Result<()> {
        match &mut self.conn {
            Conn::Sqlite(_) => self.execute(sql, &[]).map(drop),
            Conn::Postgres(c) => {
                c.control(sql);
                Ok(())
            }
        }
    }

    /// Runs statements in order; on PostgreSQL they are sent together, one round trip for all.
    pub fn execute_all(&mut self, statements: &[(&str, &[Value])]) -> Result<()> {
        match &mut self.conn {
            Conn::Sqlite(_) => statements
                .iter()
                .try_for_each(|(sql, args)| self.execute(sql, args).map(drop)),
            Conn::Postgres(c) => c.execute_all(statements),
        }
    }

    /// Runs a statement that may be refused (a name already taken) and goes on either way.
    /// On PostgreSQL a failed statement spoils the transaction around it until it is rolled
    /// back to a savepoint, so it gets one of its own there; on SQLite a statement fails alone.
    pub fn execute_or_refused(&mut self, sql: &str, args: &[Value]) -> Result<u64> {
        if self.engine() == Engine::Sqlite {
            return self.execute(sql, args);
        }
        self.control("SAVEPOINT attempt")?;
        let outcome = self.execute(sql, args);
        if outcome.is_err() {
            self.control("ROLLBACK TO attempt")?;
        }
        self.control("RELEASE attempt")?;
        outcome
    }

    /// Runs one query and reads every row it gives.
    pub fn query(&mut self, sql: &str, args: &[Value]) -> Result<Vec<Row>> {
        match &mut self.conn {
            Conn::Sqlite(c) => {
                let mut q = c.prepare_cached(sql)?;
                let names: Names = q.column_names().map(String::from).collect();
                let mut rows = q.query(rusqlite::params_from_iter(args))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    let mut row = Vec::with_capacity(names.len());
                    for i in 0..names.len() {
                        row.push(Value::from(r.get_ref(i)?));
                    }
                    out.push(Row::new(names.clone(), row));
                }
                Ok(out)
            }
            Conn::Postgres(c) => c.query(sql, args),
        }
    }

    /// The first row of a query, if it gives any.
    pub fn first(&mut self, sql: &str, args: &[Value]) -> Result<Option<Row>> {
        Ok(self.query(sql, args)?.into_iter().next())
    }

    /// Runs several statements without parameters (schema changes, transaction control).
    pub fn batch(&mut self, sql: &str) -> Result<()> {
        match &mut self.conn {
            Conn::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Conn::Postgres(c) => c.batch(sql),
        }
    }

    /// Begins the writer's transaction: SQLite takes its write lock at once, so that a
    /// writer elsewhere is met here (with the busy timeout) rather than halfway through.
    pub fn begin(&mut self) -> Result<()> {
        match self.engine() {
            Engine::Sqlite => self.batch("BEGIN IMMEDIATE"),
            Engine::Postgres => self.batch("BEGIN"),
        }
    }

    /// Whether the connection is known to be gone (PostgreSQL's; an SQLite file never goes).
    pub fn is_closed(&self) -> bool {
        match &self.conn {
            Conn::Sqlite(_) => false,
            Conn::Postgres(c) => c.is_closed(),
        }
    }
}
