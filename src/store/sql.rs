//! One way to speak SQL to either engine: the store's statements are written once, with `?N`
//! parameters and the four kinds of value both engines share (integers, reals, text, NULL),
//! and [`Sql`] runs them on an SQLite connection or a PostgreSQL one. What differs between the
//! engines (the schema, how a transaction begins, the lock) is asked of [`Sql::engine`] in the
//! few places that need it, all of them in this module's siblings.

use std::collections::HashMap;

use crate::store::postgres::PgConn;

/// Which database a connection speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// A value as both engines store it. Unsigned 64-bit numbers (seeds) are kept as their bits in
/// a signed integer, and read back the same way.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}
impl From<u64> for Value {
    fn from(v: u64) -> Value {
        Value::Int(v as i64)
    }
}
impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(v.into())
    }
}
impl From<u16> for Value {
    fn from(v: u16) -> Value {
        Value::Int(v.into())
    }
}
impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}
impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Int(v.into())
    }
}
impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}
impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Text(v)
    }
}
impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}
impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_owned())
    }
}
impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// The parameters of one statement: `args![a, b]`.
#[macro_export]
#[doc(hidden)]
macro_rules! sql_args {
    ($($v:expr),* $(,)?) => { &[$($crate::store::sql::Value::from($v)),*][..] };
}
pub use crate::sql_args as args;

/// Why a statement failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DbError {
    /// A uniqueness or foreign-key rule refused the change (a name taken, a key kept twice).
    #[error("{0}")]
    Constraint(String),
    /// A value read back was not of the kind asked for (a bug, or a database edited by hand).
    #[error("column {column}: {message}")]
    Type { column: usize, message: String },
    /// Anything else the engine said, the connection lost included.
    #[error("{0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, DbError>;

impl From<rusqlite::Error> for DbError {
    fn from(e: rusqlite::Error) -> DbError {
        match &e {
            rusqlite::Error::SqliteFailure(f, _)
                if f.code == rusqlite::ErrorCode::ConstraintViolation =>
            {
                DbError::Constraint(e.to_string())
            }
            _ => DbError::Other(e.to_string()),
        }
    }
}

/// A value read back as a Rust type.
pub trait FromValue: Sized {
    fn from_value(v: &Value) -> std::result::Result<Self, String>;
}

fn int(v: &Value) -> std::result::Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        other => Err(format!("expected an integer, found {other:?}")),
    }
}

impl FromValue for i64 {
    fn from_value(v: &Value) -> std::result::Result<i64, String> {
        int(v)
    }
}
impl FromValue for u64 {
    fn from_value(v: &Value) -> std::result::Result<u64, String> {
        int(v).map(|i| i as u64)
    }
}
impl FromValue for u32 {
    fn from_value(v: &Value) -> std::result::Result<u32, String> {
        u32::try_from(int(v)?).map_err(|e| e.to_string())
    }
}
impl FromValue for u16 {
    fn from_value(v: &Value) -> std::result::Result<u16, String> {
        u16::try_from(int(v)?).map_err(|e| e.to_string())
    }
}
impl FromValue for bool {
    fn from_value(v: &Value) -> std::result::Result<bool, String> {
        int(v).map(|i| i != 0)
    }
}
impl FromValue for f64 {
    fn from_value(v: &Value) -> std::result::Result<f64, String> {
        match v {
            Value::Real(f) => Ok(*f),
            Value::Int(i) => Ok(*i as f64),
            other => Err(format!("expected a number, found {other:?}")),
        }
    }
}
impl FromValue for String {
    fn from_value(v: &Value) -> std::result::Result<String, String> {
        match v {
            Value::Text(s) => Ok(s.clone()),
            other => Err(format!("expected text, found {other:?}")),
        }
    }
}
impl<T: FromValue> FromValue for Option<T> {
    fn from_value(v: &Value) -> std::result::Result<Option<T>, String> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(v).map(Some),
        }
    }
}

/// One row read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Row(pub Vec<Value>);

impl Row {
    /// Column `i` as a `T`; a missing column or a value of another kind is an error, never a
    /// panic.
    pub fn get<T: FromValue>(&self, i: usize) -> Result<T> {
        let v = self.0.get(i).ok_or_else(|| DbError::Type {
            column: i,
            message: "no such column".into(),
        })?;
        T::from_value(v).map_err(|message| DbError::Type { column: i, message })
    }
}

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

    /// Runs a statement that may be refused (a name already taken) and goes on either way.
    /// On PostgreSQL a failed statement spoils the transaction around it until it is rolled
    /// back to a savepoint, so it gets one of its own there; on SQLite a statement fails alone.
    pub fn execute_or_refused(&mut self, sql: &str, args: &[Value]) -> Result<u64> {
        if self.engine() == Engine::Sqlite {
            return self.execute(sql, args);
        }
        self.execute("SAVEPOINT attempt", &[])?;
        let outcome = self.execute(sql, args);
        if outcome.is_err() {
            self.execute("ROLLBACK TO attempt", &[])?;
        }
        self.execute("RELEASE attempt", &[])?;
        outcome
    }

    /// Runs one query and reads every row it gives.
    pub fn query(&mut self, sql: &str, args: &[Value]) -> Result<Vec<Row>> {
        match &mut self.conn {
            Conn::Sqlite(c) => {
                let mut q = c.prepare_cached(sql)?;
                let columns = q.column_count();
                let mut rows = q.query(rusqlite::params_from_iter(args))?;
                let mut out = Vec::new();
                while let Some(r) = rows.next()? {
                    let mut row = Vec::with_capacity(columns);
                    for i in 0..columns {
                        row.push(Value::from(r.get_ref(i)?));
                    }
                    out.push(Row(row));
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

impl From<rusqlite::types::ValueRef<'_>> for Value {
    fn from(v: rusqlite::types::ValueRef<'_>) -> Value {
        use rusqlite::types::ValueRef;
        match v {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Int(i),
            ValueRef::Real(f) => Value::Real(f),
            ValueRef::Text(t) | ValueRef::Blob(t) => {
                Value::Text(String::from_utf8_lossy(t).into_owned())
            }
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::{ToSqlOutput, ValueRef};
        Ok(ToSqlOutput::Borrowed(match self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(*i),
            Value::Real(f) => ValueRef::Real(*f),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
        }))
    }
}

/// A statement with SQLite's `?N` parameters written with PostgreSQL's `$N` (a bare `?` takes
/// one more than the largest number so far, as in SQLite). Quoted text is left alone.
pub fn dollar_params(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let (mut quoted, mut largest) = (false, 0usize);
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                out.push(c);
            }
            '?' if !quoted => {
                out.push('$');
                let mut digits = String::new();
                while let Some(d) = chars.next_if(char::is_ascii_digit) {
                    digits.push(d);
                }
                let n = digits.parse().unwrap_or(largest + 1);
                largest = largest.max(n);
                out.push_str(&n.to_string());
            }
            c => out.push(c),
        }
    }
    out
}

/// Prepared statements by their text, per connection.
pub(super) type Cache<S> = HashMap<String, S>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_renumbered_for_postgres_and_quotes_are_kept() {
        assert_eq!(
            dollar_params("SELECT '?1', a FROM t WHERE b = ?1 AND c = ?12 OR d = ?"),
            "SELECT '?1', a FROM t WHERE b = $1 AND c = $12 OR d = $13"
        );
    }

    #[test]
    fn a_value_of_the_wrong_kind_is_an_error_not_a_panic() {
        let row = Row(vec![Value::Text("x".into()), Value::Int(-1)]);
        assert!(row.get::<i64>(0).is_err());
        assert!(row.get::<u32>(1).is_err(), "out of range");
        assert_eq!(row.get::<u64>(1).unwrap(), u64::MAX, "a seed's bits");
        assert!(row.get::<String>(2).is_err(), "no such column");
        assert_eq!(row.get::<Option<String>>(0).unwrap().as_deref(), Some("x"));
    }
}
