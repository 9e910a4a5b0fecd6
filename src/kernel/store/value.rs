//! The values and rows both engines share, and the errors they give: what the store's
//! statements are written in, whichever engine runs them.

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
macro_rules! args {
    ($($v:expr),* $(,)?) => { &[$($crate::store::sql::Value::from($v)),*][..] };
}
pub(crate) use args;

/// Why a statement failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DbError {
    /// A uniqueness or foreign-key rule refused the change (a name taken, a key kept twice).
    #[error("{0}")]
    Constraint(String),
    /// A value read back was not of the kind asked for, or a column the query does not give
    /// was asked for (a bug, or a database edited by hand).
    #[error("column {column}: {message}")]
    Type { column: String, message: String },
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

/// The names of a query's columns, shared by its rows.
pub type Names = std::sync::Arc<[String]>;

/// One row read back. Its values are read by their columns' names, so that a query that
/// gains a column, or lists them in another order, reads the same; a copy takes them whole.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    names: Names,
    values: Vec<Value>,
}

impl Row {
    pub fn new(names: Names, values: Vec<Value>) -> Row {
        Row { names, values }
    }

    /// The column called `column` as a `T`; a column the query does not give, or a value of
    /// another kind, is an error, never a panic.
    pub fn get<T: FromValue>(&self, column: &str) -> Result<T> {
        let error = |message: String| DbError::Type {
            column: column.to_owned(),
            message,
        };
        let v = self
            .value(column)
            .ok_or_else(|| error("no such column".into()))?;
        T::from_value(v).map_err(error)
    }

    /// The column called `column` as it was stored.
    pub fn value(&self, column: &str) -> Option<&Value> {
        let i = self.names.iter().position(|n| n == column)?;
        self.values.get(i)
    }

    /// Every value, in the order of the query's columns.
    pub fn values(&self) -> &[Value] {
        &self.values
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_of_the_wrong_kind_is_an_error_not_a_panic() {
        let names: Names = ["name".to_owned(), "seed".to_owned()].into();
        let row = Row::new(names, vec![Value::Text("x".into()), Value::Int(-1)]);
        assert!(row.get::<i64>("name").is_err());
        assert!(row.get::<u32>("seed").is_err(), "out of range");
        assert_eq!(row.get::<u64>("seed").unwrap(), u64::MAX, "a seed's bits");
        let e = row.get::<String>("tick").unwrap_err().to_string();
        assert_eq!(e, "column tick: no such column");
        assert_eq!(
            row.get::<Option<String>>("name").unwrap().as_deref(),
            Some("x")
        );
    }
}
