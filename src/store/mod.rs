//! The database: one SQLite file behind one writer thread.
//!
//! Every read and write goes through [`Store::submit`], which queues a closure for the writer
//! thread. The thread takes everything queued, runs it in one transaction (each job inside its
//! own savepoint, so one job's failure does not undo another's) and commits once: group commit.
//! A job's answer is delivered only after that commit, so whoever awaits it knows the data is on
//! disk: "acknowledged only once stored" without paying one fsync per action.
//!
//! One thread rather than a pool because SQLite allows one writer at a time anyway, and because a
//! single queue gives every write a total order that matches the order the world made them in.

mod agents;
mod schema;
pub mod sessions;

pub use agents::{AgentRow, CreateError, IdentityRow, new_agent_id, writes};

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;

use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::config::SyncMode;

/// How many queued jobs one transaction takes at most.
const MAX_BATCH: usize = 4096;

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum StoreError {
    #[error("database error: {0}")]
    Db(String),
    #[error("the database is closed")]
    Closed,
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        StoreError::Db(e.to_string())
    }
}

/// Runs inside the transaction; returns what to do once the transaction's fate is known.
type Work = Box<dyn FnOnce(&Connection) -> Deliver + Send>;
type Deliver = Box<dyn FnOnce(Result<(), StoreError>) + Send>;

enum Msg {
    Work(Work),
    Close(oneshot::Sender<()>),
}

pub struct Store {
    tx: mpsc::Sender<Msg>,
    thread: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Store {
    /// Opens (creating when missing) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path, sync: SyncMode) -> Result<Store, StoreError> {
        let conn = Connection::open(path)?;
        Store::start(conn, sync)
    }

    /// A database that lives and dies with the process (for standalone uses and tests).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        Store::start(Connection::open_in_memory()?, SyncMode::Normal)
    }

    fn start(conn: Connection, sync: SyncMode) -> Result<Store, StoreError> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(
            None,
            "synchronous",
            match sync {
                SyncMode::Normal => "NORMAL",
                SyncMode::Full => "FULL",
            },
        )?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        schema::migrate(&conn)?;
        let (tx, rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("moot-store".into())
            .spawn(move || writer(conn, rx))
            .map_err(|e| StoreError::Db(format!("cannot start the writer thread: {e}")))?;
        Ok(Store {
            tx,
            thread: std::sync::Mutex::new(Some(thread)),
        })
    }

    /// Queues `f` for the writer thread. The answer arrives once the transaction that ran it has
    /// committed; if `f` fails, its own changes are rolled back and the error is the answer.
    pub fn submit<T, F>(&self, f: F) -> oneshot::Receiver<Result<T, StoreError>>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let work: Work = Box::new(move |conn| {
            let result = in_savepoint(conn, f);
            Box::new(move |committed: Result<(), StoreError>| {
                let _ = reply.send(committed.and(result.map_err(StoreError::from)));
            })
        });
        if let Err(mpsc::SendError(Msg::Work(work))) = self.tx.send(Msg::Work(work)) {
            // The writer is gone: answer at once rather than leave the caller waiting.
            drop(work);
        }
        answer
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
        let thread = self.thread.lock().expect("store thread lock").take();
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

fn writer(conn: Connection, rx: mpsc::Receiver<Msg>) {
    let mut batch: Vec<Work> = Vec::with_capacity(64);
    // After a failed commit the database may be behind the world's memory; nothing more is
    // written, so that the log on disk stays the truth a restart rebuilds from.
    let mut failed: Option<StoreError> = None;
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
        if let Some(err) = &failed {
            // Dropped unrun: each caller hears that the store is closed.
            tracing::error!(%err, dropped = batch.len(), "not writing after a failed commit");
            batch.clear();
        } else if !batch.is_empty() {
            failed = run_batch(&conn, &mut batch).err();
        }
        if let Some(done) = close {
            let _ = done.send(());
            return;
        }
    }
}

fn run_batch(conn: &Connection, batch: &mut Vec<Work>) -> Result<(), StoreError> {
    let delivers: Vec<Deliver>;
    let outcome = match conn.execute_batch("BEGIN IMMEDIATE") {
        Ok(()) => {
            delivers = batch.drain(..).map(|w| w(conn)).collect();
            conn.execute_batch("COMMIT").map_err(StoreError::from)
        }
        Err(e) => {
            delivers = Vec::new();
            let err = StoreError::from(e);
            tracing::error!(%err, "cannot begin a transaction");
            for w in batch.drain(..) {
                // Jobs never ran; tell their callers.
                drop(w);
            }
            Err(err)
        }
    };
    if let Err(err) = &outcome {
        tracing::error!(%err, "commit failed; the batch is rolled back");
        let _ = conn.execute_batch("ROLLBACK");
    }
    for d in delivers {
        d(outcome.clone());
    }
    outcome
}
