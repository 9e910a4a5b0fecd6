//! The database: one SQLite file behind one writer thread, and one reader beside it.
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
//! in. Reads ([`Store::read`]) use their own read-only connection, so that a lock held by a
//! writer elsewhere does not stop logins and lookups.

pub mod admin;
mod agents;
pub mod backup;
pub mod keys;
pub mod oauth;
mod schema;
pub mod sessions;
pub mod standings;
pub mod writes;

pub use agents::{AgentRow, CreateError, IdentityRow, Kind, new_agent_id};

use std::path::Path;
use std::sync::{PoisonError, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::config::SyncMode;

/// How many queued jobs one transaction takes at most.
const MAX_BATCH: usize = 4096;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum StoreError {
    /// SQLite's own words: for the log, never for a player (see [`StoreError::Refused`]).
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
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Db(e.to_string())
    }
}

/// How the database is opened.
#[derive(Debug, Clone, Copy)]
pub struct StoreOptions {
    pub sync: SyncMode,
    /// How long a write waits for another process's lock before it fails (SQLite's busy
    /// timeout). Bounded, so that a stuck lock costs one refused action, not a stalled town.
    pub busy_timeout: Duration,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            sync: SyncMode::Normal,
            busy_timeout: Duration::from_secs(2),
        }
    }
}

type Deliver = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

/// One queued job.
trait Job: Send {
    /// Runs inside the transaction; says whether its own work succeeded, and returns what to
    /// do once the transaction's fate is known.
    fn run(self: Box<Self>, conn: &Connection) -> (bool, Deliver);
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
    F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
{
    fn run(self: Box<Self>, conn: &Connection) -> (bool, Deliver) {
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
    F: FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static,
    D: FnOnce(Result<(), StoreError>) + Send + 'static,
{
    fn run(self: Box<Self>, conn: &Connection) -> (bool, Deliver) {
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

pub struct Store {
    tx: mpsc::Sender<Msg>,
    thread: std::sync::Mutex<Option<JoinHandle<()>>>,
    /// A second connection for reads, so that a write lock held elsewhere (or a slow commit)
    /// does not stop logins and lookups. None for a database in memory, which has one
    /// connection: reads go through the writer there.
    reader: Option<std::sync::Mutex<mpsc::Sender<ReadJob>>>,
}

type ReadJob = Box<dyn FnOnce(&Connection) + Send>;

impl Store {
    /// Opens (creating when missing) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path, options: StoreOptions) -> Result<Store, StoreError> {
        let conn = Connection::open(path)?;
        let mut store = Store::start(conn, options)?;
        let reader = Connection::open_with_flags(
            path,
            rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        reader.busy_timeout(options.busy_timeout)?;
        let (tx, rx) = mpsc::channel::<ReadJob>();
        std::thread::Builder::new()
            .name("moot-store-read".into())
            .spawn(move || {
                while let Ok(job) = rx.recv() {
                    job(&reader);
                }
            })
            .map_err(|e| StoreError::Db(format!("cannot start the reader thread: {e}")))?;
        store.reader = Some(std::sync::Mutex::new(tx));
        Ok(store)
    }

    /// Runs a read on the reader connection: it sees what is committed, and waits for no
    /// writer. (In memory, it goes through the writer.)
    pub async fn read<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
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
        Store::start(Connection::open_in_memory()?, StoreOptions::default())
    }

    fn start(conn: Connection, options: StoreOptions) -> Result<Store, StoreError> {
        conn.busy_timeout(options.busy_timeout)?;
        schema::check_version(&conn)?;
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
        schema::migrate(&conn)?;
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("moot-store".into())
            .spawn(move || writer(conn, rx))
            .map_err(|e| StoreError::Db(format!("cannot start the writer thread: {e}")))?;
        Ok(Store {
            tx,
            thread: std::sync::Mutex::new(Some(thread)),
            reader: None,
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
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
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
        f: impl FnOnce(&Connection) -> rusqlite::Result<()> + Send + 'static,
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
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        self.submit(f).await.unwrap_or(Err(StoreError::Closed))
    }

    /// Commits everything queued so far and stops the writer thread.
    pub async fn close(&self) {
        let (done, wait) = oneshot::channel();
        if self.tx.send(Msg::Close(done)).is_ok() {
            let _ = wait.await;
        }
        let thread = self
            .thread
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(t) = thread {
            let _ = tokio::task::spawn_blocking(move || t.join()).await;
        }
    }
}

fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached("SAVEPOINT job")?.execute([])?;
    let result = f(conn);
    if result.is_err() {
        conn.prepare_cached("ROLLBACK TO job")?.execute([])?;
    }
    conn.prepare_cached("RELEASE job")?.execute([])?;
    result
}

/// The writer thread's memory of the world's failures.
#[derive(Default)]
struct Writer {
    /// The world's epochs up to this one are refused (see [`Work::epoch`]).
    broken: Option<u64>,
}

impl Writer {
    fn refuses(&self, w: &Work) -> bool {
        matches!((w.epoch, self.broken), (Some(e), Some(b)) if e <= b)
    }

    fn break_epoch(&mut self, epoch: Option<u64>) {
        if let Some(e) = epoch {
            self.broken = Some(self.broken.map_or(e, |b| b.max(e)));
        }
    }
}

fn writer(conn: Connection, rx: mpsc::Receiver<Msg>) {
    let mut batch: Vec<Work> = Vec::with_capacity(64);
    let mut state = Writer::default();
    while let Ok(first) = rx.recv() {
        let mut close = None;
        match first {
            Msg::Work(w) => batch.push(w),
            Msg::Close(c) => close = Some(c),
        }
        while close.is_none() && batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(Msg::Work(w)) => batch.push(w),
                Ok(Msg::Close(c)) => close = Some(c),
                Err(_) => break,
            }
        }
        if !batch.is_empty() {
            run_batch(&conn, &mut state, &mut batch);
        }
        if let Some(done) = close {
            let _ = done.send(());
            return;
        }
    }
}

/// Runs one transaction of queued jobs. A failure is never the end of the writer: the next
/// batch tries again, so persistence comes back by itself when the database does.
fn run_batch(conn: &Connection, state: &mut Writer, batch: &mut Vec<Work>) {
    let (started, jobs) = (std::time::Instant::now(), batch.len());
    if let Err(e) = conn.execute_batch("BEGIN IMMEDIATE") {
        let err = StoreError::from(e);
        tracing::error!(%err, jobs = batch.len(), "cannot begin a transaction");
        for w in batch.drain(..) {
            state.break_epoch(w.epoch);
            w.job.refuse(err.clone());
        }
        return;
    }
    let mut delivers: Vec<(Option<u64>, Deliver)> = Vec::with_capacity(batch.len());
    for w in batch.drain(..) {
        if state.refuses(&w) {
            // Answered in its turn, after the failure that caused it.
            let job = w.job;
            delivers.push((None, Box::new(move |_| job.refuse(StoreError::Refused))));
            continue;
        }
        let (ok, deliver) = w.job.run(conn);
        if !ok {
            // Later world jobs of this epoch were made on top of this one.
            state.break_epoch(w.epoch);
        }
        delivers.push((w.epoch, deliver));
    }
    let outcome = conn.execute_batch("COMMIT").map_err(StoreError::from);
    crate::metrics::get().commit(jobs, started.elapsed());
    if let Err(err) = &outcome {
        tracing::error!(%err, "commit failed; the batch is rolled back");
        let _ = conn.execute_batch("ROLLBACK");
    }
    for (epoch, d) in delivers {
        if outcome.is_err() {
            state.break_epoch(epoch);
        }
        d(outcome.clone());
    }
}
