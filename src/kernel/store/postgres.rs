//! PostgreSQL connections for the store's threads, through `tokio-postgres`.
//!
//! The store's writer and readers are plain threads that run one job after another (see the
//! module above), so each connection here is used by blocking on its futures from that thread.
//! The connections' own tasks (the socket, the protocol) run on a small runtime the store owns,
//! so that they keep going whatever the caller's runtime does, and a store can be opened and
//! closed from synchronous code (`moot admin`, `moot db copy`) as well as from the server.

use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::types::{FromSql, IsNull, ToSql, Type};
use tokio_postgres::{NoTls, Statement};

use super::value::{DbError, Names, Result, Row, Value};

/// How long one statement may take before the store gives up on it and on its connection: a
/// database that stops answering costs refused actions, never a writer stuck for good.
const STATEMENT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The runtime the connections' tasks run on.
pub struct PgRuntime {
    rt: Option<tokio::runtime::Runtime>,
}

impl PgRuntime {
    pub fn new() -> Result<Arc<PgRuntime>> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("moot-pg")
            .enable_all()
            .build()
            .map_err(|e| DbError::Other(format!("cannot start PostgreSQL's runtime: {e}")))?;
        Ok(Arc::new(PgRuntime { rt: Some(rt) }))
    }

    fn block_on<F: std::future::Future>(&self, f: F) -> Result<F::Output> {
        let rt = self
            .rt
            .as_ref()
            .ok_or_else(|| DbError::Other("PostgreSQL's runtime is gone".into()))?;
        rt.block_on(async { tokio::time::timeout(STATEMENT_TIMEOUT, f).await })
            .map_err(|_| DbError::Other("PostgreSQL did not answer in time".into()))
    }
}

impl Drop for PgRuntime {
    fn drop(&mut self) {
        // Dropped wherever the last connection goes, perhaps inside the server's runtime,
        // where waiting for these tasks is not allowed.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// Where a PostgreSQL database is: a `postgres://` URL (or a key=value string), kept with
/// its password so it can connect, shown without it.
#[derive(Clone)]
pub struct PgTarget {
    pub url: String,
}

impl PgTarget {
    fn config(&self) -> Result<tokio_postgres::Config> {
        let mut config: tokio_postgres::Config = self
            .url
            .parse()
            .map_err(|e| DbError::Other(format!("not a PostgreSQL address: {e}")))?;
        if config.get_application_name().is_none() {
            config.application_name(super::holder::this_process());
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        Ok(config)
    }

    /// The address without its password, for logs and messages.
    pub fn shown(&self) -> String {
        match self.url.split_once("://") {
            Some((scheme, rest)) => match rest.split_once('@') {
                Some((user, host)) => {
                    let user = user.split(':').next().unwrap_or("");
                    format!("{scheme}://{user}@{host}")
                }
                None => self.url.clone(),
            },
            None => "a PostgreSQL database".into(),
        }
    }
}

fn pg_error(e: tokio_postgres::Error) -> DbError {
    match e.as_db_error() {
        Some(db) if db.code().code().starts_with("23") => DbError::Constraint(db.message().into()),
        Some(db) => DbError::Other(format!("{}: {}", db.code().code(), db.message())),
        None => {
            let source = std::error::Error::source(&e)
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            DbError::Other(format!("{e}{source}"))
        }
    }
}

/// One connection, used from one thread.
pub struct PgConn {
    client: tokio_postgres::Client,
    rt: Arc<PgRuntime>,
    /// Prepared statements by their text, with the names of their columns (which every row of
    /// theirs shares).
    statements: std::collections::HashMap<String, (Statement, Names)>,
    /// Transaction control (savepoints) waiting to go out ahead of the next statement, without
    /// a wait for its own answer: a round trip is most of what a statement costs here.
    pending: Vec<&'static str>,
}

/// Waits for `controls` (if any) and `then`, sent in that order before either answer is
/// awaited: tokio-postgres sends a request when its future is first polled, and `join` polls
/// them in order (unlike `tokio::join!`, which rotates).
fn pipelined<T>(
    rt: &PgRuntime,
    client: &tokio_postgres::Client,
    controls: Option<String>,
    then: impl std::future::Future<Output = std::result::Result<T, tokio_postgres::Error>>,
) -> Result<T> {
    match controls {
        None => rt.block_on(then)?.map_err(pg_error),
        Some(c) => {
            let (first, then) =
                rt.block_on(futures_util::future::join(client.batch_execute(&c), then))?;
            first.map_err(pg_error)?;
            then.map_err(pg_error)
        }
    }
}

impl PgConn {
    pub fn connect(target: &PgTarget, rt: &Arc<PgRuntime>) -> Result<PgConn> {
        let config = target.config()?;
        let (client, connection) = rt.block_on(config.connect(NoTls))?.map_err(pg_error)?;
        if let Some(r) = &rt.rt {
            r.spawn(async move {
                if let Err(e) = connection.await {
                    tracing::warn!(error = %e, "a PostgreSQL connection ended");
                }
            });
        }
        Ok(PgConn {
            client,
            rt: rt.clone(),
            statements: std::collections::HashMap::new(),
            pending: Vec::new(),
        })
    }

    pub fn is_closed(&self) -> bool {
        self.client.is_closed()
    }

    /// Queues a transaction control statement to go out with the next statement.
    pub fn control(&mut self, sql: &'static str) {
        self.pending.push(sql);
    }

    fn take_pending(&mut self) -> Option<String> {
        (!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending).join("; "))
    }

    fn statement(&mut self, sql: &str) -> Result<(Statement, Names)> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        // A statement is not prepared in a transaction that waits for its ROLLBACK TO.
        if let Some(controls) = self.take_pending() {
            self.rt
                .block_on(self.client.batch_execute(&controls))?
                .map_err(pg_error)?;
        }
        let text = dollar_params(sql);
        let s = self
            .rt
            .block_on(self.client.prepare(&text))?
            .map_err(pg_error)?;
        let names: Names = s.columns().iter().map(|c| c.name().to_owned()).collect();
        self.statements
            .insert(sql.to_owned(), (s.clone(), names.clone()));
        Ok((s, names))
    }

    pub fn execute(&mut self, sql: &str, args: &[Value]) -> Result<u64> {
        let (s, _) = self.statement(sql)?;
        let controls = self.take_pending();
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as _).collect();
        pipelined(
            &self.rt,
            &self.client,
            controls,
            self.client.execute(&s, &params),
        )
    }

    /// Runs statements one after another, sent together: one round trip for all of them. The
    /// first error is the answer (the ones after it fail with it, in PostgreSQL's transaction).
    pub fn execute_all(&mut self, statements: &[(&str, &[Value])]) -> Result<()> {
        let prepared = statements
            .iter()
            .map(|(sql, _)| self.statement(sql).map(|(s, _)| s))
            .collect::<Result<Vec<Statement>>>()?;
        let controls = self.take_pending();
        let params: Vec<Vec<&(dyn ToSql + Sync)>> = statements
            .iter()
            .map(|(_, args)| args.iter().map(|a| a as _).collect())
            .collect();
        let all = futures_util::future::join_all(
            prepared
                .iter()
                .zip(&params)
                .map(|(s, p)| self.client.execute(s, p)),
        );
        let answers = pipelined(&self.rt, &self.client, controls, async {
            Ok::<_, tokio_postgres::Error>(all.await)
        })?;
        for a in answers {
            a.map_err(pg_error)?;
        }
        Ok(())
    }

    pub fn query(&mut self, sql: &str, args: &[Value]) -> Result<Vec<Row>> {
        let (s, names) = self.statement(sql)?;
        let controls = self.take_pending();
        let params: Vec<&(dyn ToSql + Sync)> = args.iter().map(|a| a as _).collect();
        let rows = pipelined(
            &self.rt,
            &self.client,
            controls,
            self.client.query(&s, &params),
        )?;
        rows.iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| r.try_get::<_, Value>(i).map_err(pg_error))
                    .collect::<Result<Vec<Value>>>()
                    .map(|values| Row::new(names.clone(), values))
            })
            .collect()
    }

    pub fn batch(&mut self, sql: &str) -> Result<()> {
        let sql = match self.take_pending() {
            Some(controls) => format!("{controls}; {sql}"),
            None => sql.to_owned(),
        };
        self.rt
            .block_on(self.client.batch_execute(&sql))?
            .map_err(pg_error)
    }
}

type BoxError = Box<dyn std::error::Error + Sync + Send>;

impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> std::result::Result<IsNull, BoxError> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => match *ty {
                Type::INT2 => i16::try_from(*i)?.to_sql(ty, out),
                Type::INT4 => i32::try_from(*i)?.to_sql(ty, out),
                Type::OID => u32::try_from(*i)?.to_sql(ty, out),
                Type::BOOL => (*i != 0).to_sql(ty, out),
                Type::FLOAT8 => (*i as f64).to_sql(ty, out),
                _ => i.to_sql(&Type::INT8, out),
            },
            Value::Real(f) => match *ty {
                Type::FLOAT4 => (*f as f32).to_sql(ty, out),
                _ => f.to_sql(&Type::FLOAT8, out),
            },
            // Text, and text-like types of extensions (citext), whose binary form is the same.
            Value::Text(s) => {
                out.extend_from_slice(s.as_bytes());
                Ok(IsNull::No)
            }
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn to_sql_checked(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> std::result::Result<IsNull, BoxError> {
        self.to_sql(ty, out)
    }
}

impl<'a> FromSql<'a> for Value {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> std::result::Result<Value, BoxError> {
        Ok(match *ty {
            Type::INT8 => Value::Int(i64::from_sql(ty, raw)?),
            Type::INT4 => Value::Int(i32::from_sql(ty, raw)?.into()),
            Type::INT2 => Value::Int(i16::from_sql(ty, raw)?.into()),
            Type::OID => Value::Int(u32::from_sql(ty, raw)?.into()),
            Type::BOOL => Value::Int(bool::from_sql(ty, raw)?.into()),
            Type::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            Type::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            _ => Value::Text(String::from_utf8(raw.to_vec())?),
        })
    }

    fn from_sql_null(_: &Type) -> std::result::Result<Value, BoxError> {
        Ok(Value::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// A statement with SQLite's `?N` parameters written with PostgreSQL's `$N` (a bare `?` takes
/// one more than the largest number so far, as in SQLite). Quoted text is left alone.
fn dollar_params(sql: &str) -> String {
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
}
