//! The database: an SQLite file (the default) or a PostgreSQL database, behind one writer
//! thread, with readers beside it. Nothing outside this module knows which engine runs: the
//! statements are written once (see [`sql`]), and what differs (the schema's dialect, how a
//! transaction begins, the lock that keeps a second moot out) is decided here.
//!
//! Every write goes through [`Store::submit`] (or [`Store::submit_world`] for the world's),
//! which queues a closure for the writer thread. The thread takes everything queued, runs it in
//! one transaction (each job inside its own savepoint, so one job's failure does not undo
//! another's) and commits once: group commit. A job's answer is delivered only after that
//! commit, so whoever awaits it knows the data is on disk: "acknowledged only once stored"
//! without paying one fsync per action.
//!
//! A failure never stops the writer: the next batch tries again, so persistence comes back by
//! itself when the database does. The world's jobs carry its epoch, so that the writer can
//! refuse the ones the world made on top of a failed one (see `world::outbox`).
//!
//! One writer rather than a pool because SQLite allows one writer at a time anyway, and because
//! a single queue gives every write a total order that matches the order the world made them
//! in (on PostgreSQL too, where the order of the log is what the replay trusts). Reads
//! ([`Store::read`]) use their own connections (one on SQLite, a few on PostgreSQL), so that
//! a lock or a slow commit does not stop logins and lookups.

pub mod admin;
mod agents;
pub mod backup;
pub mod built;
mod checkpoint;
pub mod copy;
mod ddl;
mod holder;
pub mod keys;
pub mod oauth;
mod postgres;
pub mod programs;
mod schema;
pub mod sessions;
mod shape;
pub mod sql;
pub mod standings;
pub mod tables;
mod value;
mod writer;
pub mod writes;

pub use agents::{AgentRow, CreateError, IdentityRow, Kind, MadeBy, Origin, new_agent_id};
pub use sql::{DbError, Engine, Sql};

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::Connection;
use tokio::sync::oneshot;

use postgres::{PgConn, PgRuntime, PgTarget};

/// How many queued jobs one transaction takes at most.
const MAX_BATCH: usize = 4096;
/// How many connections serve reads on PostgreSQL (SQLite has one reader: its reads are
/// local and short).
const PG_READERS: usize = 4;
/// The key of the advisory lock a moot holds on its PostgreSQL database while it serves it
/// ("moot" in ASCII).
pub const PG_LOCK: i64 = 0x6d6f_6f74;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum StoreError {
    /// The database's own words: for the log, never for a player (see [`StoreError::Refused`]).
    #[error("database error: {0}")]
    Db(String),
    #[error("the database is closed")]
    Closed,
    /// Not run: an earlier write of the world failed, and the world is undoing everything that
    /// came after it (see [`Store::submit_world`]).
    #[error("not written: an earlier write failed")]
    Refused,
    /// The database was written by a newer moot whose schema this one does not know.
    #[error(
        "the database has schema version {found}, but this moot knows versions up to {known}: \
         it was written by a newer moot; run that one, or point --db at another file"
    )]
    TooNew { found: i64, known: i64 },
    /// Another moot serves this database (PostgreSQL's advisory lock is held).
    #[error(
        "another moot is serving this database ({holder}); two must never write one town: \
         stop it first, or point --db elsewhere"
    )]
    Taken { holder: String },
}

impl From<DbError> for StoreError {
    fn from(e: DbError) -> Self {
        StoreError::Db(e.to_string())
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Db(e.to_string())
    }
}

/// Where the town is kept: `--db` is an SQLite file's path or a `postgres://` URL.
#[derive(Clone)]
pub enum Database {
    Sqlite(PathBuf),
    Postgres(PgTarget),
}

impl Database {
    /// `postgres://…` and `postgresql://…` are PostgreSQL; anything else is a file.
    pub fn parse(s: &str) -> Database {
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            Database::Postgres(PgTarget { url: s.to_owned() })
        } else {
            Database::Sqlite(PathBuf::from(s))
        }
    }

    /// The file, for what only an SQLite database has (a backup by SQLite's API).
    pub fn sqlite_path(&self) -> Option<&Path> {
        match self {
            Database::Sqlite(p) => Some(p),
            Database::Postgres(_) => None,
        }
    }

    pub fn engine(&self) -> Engine {
        match self {
            Database::Sqlite(_) => Engine::Sqlite,
            Database::Postgres(_) => Engine::Postgres,
        }
    }

    /// As given to `--db`, password and all (for passing on, never for showing).
    pub fn address(&self) -> String {
        match self {
            Database::Sqlite(p) => p.display().to_string(),
            Database::Postgres(t) => t.url.clone(),
        }
    }
}

impl std::str::FromStr for Database {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Database, Self::Err> {
        Ok(Database::parse(s))
    }
}

/// Shown without a password.
impl std::fmt::Display for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Database::Sqlite(p) => write!(f, "{}", p.display()),
            Database::Postgres(t) => f.write_str(&t.shown()),
        }
    }
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl From<&Path> for Database {
    fn from(p: &Path) -> Database {
        Database::Sqlite(p.to_owned())
    }
}

/// SQLite's durability (`--sync`); PostgreSQL's is its server's `synchronous_commit`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SyncMode {
    /// `PRAGMA synchronous=NORMAL`: committed data survives the process being killed.
    Normal,
    /// `PRAGMA synchronous=FULL`: committed data also survives a power cut.
    Full,
}

/// How the database is opened.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    /// SQLite's durability; PostgreSQL's is the server's `synchronous_commit`.
    pub sync: SyncMode,
    /// How long a write waits for another process's lock before it fails (SQLite's busy
    /// timeout). Bounded, so that a stuck lock costs one refused action, not a stalled town.
    pub busy_timeout: Duration,
    /// Whether this process serves the town (or must have it to itself, as a copy does): it
    /// holds the database's lock (see [`holder`]), so that a second one is refused. `moot
    /// admin`'s short writes go beside a running moot.
    pub exclusive: bool,
    /// How many pages SQLite's log gathers before a checkpoint copies them into the database
    /// file, beside the writer (see [`checkpoint`]). Larger: fewer copies of the pages every
    /// move touches, and a larger log file.
    pub checkpoint_pages: u32,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            sync: SyncMode::Normal,
            busy_timeout: Duration::from_secs(2),
            exclusive: false,
            checkpoint_pages: CHECKPOINT_PAGES,
        }
    }
}

/// The default [`StoreOptions::checkpoint_pages`]: 16 MB of 4 KiB pages.
pub const CHECKPOINT_PAGES: u32 = 4000;

type Deliver = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

/// One queued job.
trait Job: Send {
    /// Runs inside the transaction; says whether its own work succeeded, and returns what to
    /// do once the transaction's fate is known.
    fn run(self: Box<Self>, conn: &mut Sql) -> (bool, Deliver);
    /// Tells the caller that the job was not run.
    fn refuse(self: Box<Self>, err: StoreError);
}

/// A job and, for the world's, the world's epoch: once one of the world's jobs fails, its
/// later jobs of that epoch were made on top of a change that is not stored, so they are
/// refused unrun until the world has undone them and moved to a new epoch.
struct Work {
    epoch: Option<u64>,
    job: Box<dyn Job>,
}

/// Anyone's read or write, answered on a channel.
struct Call<F, T> {
    f: F,
    reply: oneshot::Sender<Result<T, StoreError>>,
}

impl<F, T> Job for Call<F, T>
where
    T: Send + 'static,
    F: FnOnce(&mut Sql) -> sql::Result<T> + Send + 'static,
{
    fn run(self: Box<Self>, conn: &mut Sql) -> (bool, Deliver) {
        let Call { f, reply } = *self;
        let result = in_savepoint(conn, f);
        let ok = result.is_ok();
        let deliver: Deliver = Box::new(move |committed| {
            let _ = reply.send(committed.and(result.map_err(StoreError::from)));
        });
        (ok, deliver)
    }

    fn refuse(self: Box<Self>, err: StoreError) {
        let _ = self.reply.send(Err(err));
    }
}

/// The world's writes for one command, answered through a callback on the writer thread.
struct WorldWrite<F, D> {
    f: F,
    done: D,
}

impl<F, D> Job for WorldWrite<F, D>
where
    F: FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static,
    D: FnOnce(Result<(), StoreError>) + Send + 'static,
{
    fn run(self: Box<Self>, conn: &mut Sql) -> (bool, Deliver) {
        let WorldWrite { f, done } = *self;
        let result = in_savepoint(conn, f).map_err(StoreError::from);
        if let Err(err) = &result {
            tracing::error!(%err, "a write of the world failed");
        }
        let ok = result.is_ok();
        (ok, Box::new(move |committed| done(committed.and(result))))
    }

    fn refuse(self: Box<Self>, err: StoreError) {
        (self.done)(Err(err))
    }
}

enum Msg {
    Work(Work),
    Close(oneshot::Sender<()>),
}

/// A read, run on a reader's connection.
type ReadJob = Box<dyn FnOnce(&mut Sql) + Send>;

/// Opens a connection again once it is lost (PostgreSQL's, after an outage).
type Reconnect = Box<dyn FnMut() -> Result<Sql, StoreError> + Send>;

pub struct Store {
    tx: mpsc::Sender<Msg>,
    /// The writer thread, then SQLite's checkpointer (see [`checkpoint`]), which ends with the
    /// writer's connection: joined in that order when the store closes.
    threads: std::sync::Mutex<Vec<JoinHandle<()>>>,
    /// The readers' queue, so that a write lock held elsewhere (or a slow commit) does not
    /// stop logins and lookups. None for a database in memory, which has one connection:
    /// reads go through the writer there.
    reader: Option<std::sync::Mutex<mpsc::Sender<ReadJob>>>,
    engine: Engine,
    /// SQLite's serving lock (see [`holder`]), let go when the store closes.
    held: std::sync::Mutex<Option<std::fs::File>>,
}

impl Store {
    /// Opens (creating when missing) the database and brings its schema up to date.
    pub fn open(db: &Database, options: StoreOptions) -> Result<Store, StoreError> {
        match db {
            Database::Sqlite(path) => Store::open_sqlite(path, options),
            // On a thread of its own: the connections are driven by blocking on them, which a
            // caller inside an async runtime (the server's start) may not do.
            Database::Postgres(target) => std::thread::scope(|s| {
                s.spawn(|| Store::open_postgres(target, options.exclusive))
                    .join()
                    .unwrap_or_else(|_| Err(StoreError::Db("opening PostgreSQL panicked".into())))
            }),
        }
    }

    fn open_sqlite(path: &Path, options: StoreOptions) -> Result<Store, StoreError> {
        let held = options
            .exclusive
            .then(|| holder::lock_file(path))
            .transpose()?;
        let mut conn = Connection::open(path)?;
        sqlite_settings(&conn, options)?;
        let checkpointer = checkpoint::start(&mut conn, path, options.checkpoint_pages)?;
        let mut store = Store::start(Sql::sqlite(conn), None)?;
        store.held = std::sync::Mutex::new(held);
        store
            .threads
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .push(checkpointer);
        let path = path.to_owned();
        let connect = move || -> Result<Sql, StoreError> {
            let reader = Connection::open_with_flags(
                &path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            reader.busy_timeout(options.busy_timeout)?;
            Ok(Sql::sqlite(reader))
        };
        store.reader = Some(std::sync::Mutex::new(readers(1, connect)?));
        Ok(store)
    }

    fn open_postgres(target: &PgTarget, exclusive: bool) -> Result<Store, StoreError> {
        let rt = PgRuntime::new()?;
        let connect = {
            let (target, rt) = (target.clone(), rt.clone());
            move || -> Result<Sql, StoreError> { Ok(Sql::postgres(PgConn::connect(&target, &rt)?)) }
        };
        let mut writer = connect()?;
        if exclusive {
            lock(&mut writer)?;
        }
        // Lost with its connection in an outage: the writer takes it again when it is back.
        let again = connect.clone();
        let reconnect: Reconnect = Box::new(move || {
            let mut conn = again()?;
            if exclusive {
                lock(&mut conn)?;
            }
            Ok(conn)
        });
        let mut store = Store::start(writer, Some(reconnect))?;
        store.reader = Some(std::sync::Mutex::new(readers(PG_READERS, connect)?));
        Ok(store)
    }

    /// Which engine it is (for what only one has, such as SQLite's online backup).
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// Runs a read on a reader connection: it sees what is committed, and waits for no
    /// writer. (In memory, it goes through the writer.)
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Sql) -> sql::Result<T> + Send + 'static,
    {
        let Some(reader) = &self.reader else {
            return self.call(f).await;
        };
        let (reply, answer) = oneshot::channel();
        let job: ReadJob = Box::new(move |c| {
            let _ = reply.send(f(c).map_err(StoreError::from));
        });
        if reader
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .send(job)
            .is_err()
        {
            return Err(StoreError::Closed);
        }
        answer.await.unwrap_or(Err(StoreError::Closed))
    }

    /// A database that lives and dies with the process (for standalone uses and tests).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let conn = Connection::open_in_memory()?;
        sqlite_settings(&conn, StoreOptions::default())?;
        Store::start(Sql::sqlite(conn), None)
    }

    fn start(mut conn: Sql, reconnect: Option<Reconnect>) -> Result<Store, StoreError> {
        schema::check_version(&mut conn)?;
        schema::migrate(&mut conn)?;
        let engine = conn.engine();
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("moot-store".into())
            .spawn(move || writer::writer(conn, reconnect, rx))
            .map_err(|e| StoreError::Db(format!("cannot start the writer thread: {e}")))?;
        Ok(Store {
            tx,
            threads: std::sync::Mutex::new(vec![thread]),
            reader: None,
            engine,
            held: std::sync::Mutex::new(None),
        })
    }

    fn queue(&self, work: Work) {
        if let Err(mpsc::SendError(Msg::Work(work))) = self.tx.send(Msg::Work(work)) {
            // The writer is gone: answer at once rather than leave the caller waiting.
            work.job.refuse(StoreError::Closed);
        }
    }

    /// Queues `f` for the writer thread. The answer arrives once the transaction that ran it has
    /// committed; if `f` fails, its own changes are rolled back and the error is the answer.
    pub fn submit<T, F>(&self, f: F) -> oneshot::Receiver<Result<T, StoreError>>
    where
        T: Send + 'static,
        F: FnOnce(&mut Sql) -> sql::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        self.queue(Work {
            epoch: None,
            job: Box::new(Call { f, reply }),
        });
        answer
    }

    /// Queues the world's writes for one command, in the world's `epoch`. `done` hears, on the
    /// writer thread, whether they are committed. If they fail, or the commit does, the
    /// writer refuses the world's later jobs of the same epoch unrun, since the world made them
    /// on top of this one: the world undoes them all and goes on in the next epoch.
    pub fn submit_world(
        &self,
        epoch: u64,
        f: impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static,
        done: impl FnOnce(Result<(), StoreError>) + Send + 'static,
    ) {
        self.queue(Work {
            epoch: Some(epoch),
            job: Box::new(WorldWrite { f, done }),
        });
    }

    /// [`Store::submit`] and wait for the committed answer.
    pub async fn call<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Sql) -> sql::Result<T> + Send + 'static,
    {
        self.submit(f).await.unwrap_or(Err(StoreError::Closed))
    }

    /// Commits everything queued so far and stops the writer thread.
    pub async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.tx.send(Msg::Close(done)).is_ok() {
            let _ = wait.await;
        }
        let threads =
            std::mem::take(&mut *self.threads.lock().unwrap_or_else(PoisonError::into_inner));
        for t in threads {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
        // Written and closed: another moot may serve it now.
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
    }
}

/// Runs `f` on a connection of its own to `db`, outside any store: its schema is neither
/// checked nor brought forward.
#[cfg(any(test, feature = "testing"))]
fn bare<T: Send>(
    db: &Database,
    f: impl FnOnce(&mut Sql) -> sql::Result<T> + Send,
) -> Result<T, StoreError> {
    match db {
        Database::Sqlite(path) => Ok(f(&mut Sql::sqlite(Connection::open(path)?))?),
        // On a thread of its own, as in `Store::open`.
        Database::Postgres(target) => std::thread::scope(|s| {
            s.spawn(|| {
                let rt = PgRuntime::new()?;
                let mut c = Sql::postgres(PgConn::connect(target, &rt)?);
                Ok(f(&mut c)?)
            })
            .join()
            .unwrap_or_else(|_| Err(StoreError::Db("PostgreSQL's connection panicked".into())))
        }),
    }
}

/// Builds the schema of the new database `db` by running every migration in turn, rather than
/// from the description of the tables, for a test to compare the two (see [`schema_facts`]).
#[cfg(any(test, feature = "testing"))]
pub fn build_by_history(db: &Database) -> Result<(), StoreError> {
    bare(db, schema::migrate_by_history)
}

/// The schema of `db`, a line a fact, as its engine's catalogue says (see `shape::shape`):
/// two databases with equal facts have the same tables, columns, keys, indexes and triggers.
#[cfg(any(test, feature = "testing"))]
pub fn schema_facts(db: &Database) -> Result<Vec<String>, StoreError> {
    bare(db, shape::shape)
}

/// What `moot db copy` would not carry out of `db` (see [`copy::uncopied`]).
#[cfg(any(test, feature = "testing"))]
pub fn uncopied(db: &Database) -> Result<Vec<String>, StoreError> {
    bare(db, copy::uncopied)
}

fn sqlite_settings(conn: &Connection, options: StoreOptions) -> Result<(), StoreError> {
    conn.busy_timeout(options.busy_timeout)?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    conn.pragma_update(
        None,
        "synchronous",
        match options.sync {
            SyncMode::Normal => "NORMAL",
            SyncMode::Full => "FULL",
        },
    )?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// How long moot waits for the lock (starting, or its writer connecting again after an outage)
/// before saying who has it. A session's lock goes only when its backend sees that its client
/// has gone, a few milliseconds after that moot exited: a moot restarted at once (by a
/// supervisor, or after `moot db copy`) would otherwise be refused by one that is no more.
const PG_LOCK_PATIENCE: Duration = Duration::from_secs(2);

/// Takes the database for this process, or says who has it. The lock is a session's: it
/// goes when this connection does, so a moot killed outright never leaves it behind.
fn lock(conn: &mut Sql) -> Result<(), StoreError> {
    let since = Instant::now();
    loop {
        let got = conn
            .first(
                "SELECT pg_try_advisory_lock(?1) AS got",
                sql::args![PG_LOCK],
            )?
            .map(|r| r.get::<bool>("got"))
            .transpose()?
            .unwrap_or(false);
        if got {
            return Ok(());
        }
        if since.elapsed() >= PG_LOCK_PATIENCE {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let holder = conn
        .first(
            "SELECT a.application_name, coalesce(host(a.client_addr), 'a local socket') AS client,
                    a.pid
             FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
             WHERE l.locktype = 'advisory' AND l.granted AND l.objid = ?1
               AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            sql::args![PG_LOCK],
        )?
        .map(|r| -> Result<String, StoreError> {
            Ok(format!(
                "{}, connected from {}, server process {}",
                r.get::<String>("application_name")?,
                r.get::<String>("client")?,
                r.get::<i64>("pid")?
            ))
        })
        .transpose()?
        .unwrap_or_else(|| "a process that has just gone".into());
    Err(StoreError::Taken { holder })
}

/// Starts `n` reader threads sharing one queue; each opens its connection with `connect`,
/// and opens it again when it is lost.
fn readers(
    n: usize,
    connect: impl FnMut() -> Result<Sql, StoreError> + Clone + Send + 'static,
) -> Result<mpsc::Sender<ReadJob>, StoreError> {
    let (tx, rx) = mpsc::channel::<ReadJob>();
    let rx = Arc::new(std::sync::Mutex::new(rx));
    for i in 0..n {
        let mut connect = connect.clone();
        let mut conn = Some(connect()?);
        let rx = rx.clone();
        std::thread::Builder::new()
            .name(format!("moot-store-read-{i}"))
            .spawn(move || {
                loop {
                    let job = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                    let Ok(job) = job else { return };
                    if conn.as_ref().is_none_or(Sql::is_closed) {
                        conn = connect()
                            .inspect_err(|err| tracing::warn!(%err, "a reader cannot connect"))
                            .ok();
                    }
                    // Without a connection the job is dropped, and its caller hears Closed.
                    if let Some(c) = conn.as_mut() {
                        job(c);
                    }
                }
            })
            .map_err(|e| StoreError::Db(format!("cannot start a reader thread: {e}")))?;
    }
    Ok(tx)
}

fn in_savepoint<T>(conn: &mut Sql, f: impl FnOnce(&mut Sql) -> sql::Result<T>) -> sql::Result<T> {
    conn.control("SAVEPOINT job")?;
    let result = f(conn);
    if result.is_err() {
        conn.control("ROLLBACK TO job")?;
    }
    conn.control("RELEASE job")?;
    result
}
