//! SQLite's checkpoints, made beside the writer rather than inside its commits.
//!
//! In WAL mode a commit appends the pages it changed to the log, and a checkpoint copies them
//! back into the database file. SQLite's own checkpoint runs inside the commit that takes the
//! log past 1,000 pages: that commit's jobs, and every job queued behind them, wait for it, and
//! the pages every move touches (a running game's row, the log's last page) are copied back
//! again at every mark. Here a thread of its own, on a connection of its own, copies them once
//! the log holds [`StoreOptions::checkpoint_pages`](super::StoreOptions) pages not yet copied:
//! fewer and larger checkpoints, beside the commits rather than inside them. The writer then
//! copies the few pages its commits added meanwhile, between two transactions, which is what
//! lets the next one start the log over: the file stays near that size. Should the
//! checkpointer fall behind (a reader holding an old snapshot), the writer copies everything
//! once the log passes [`BACKSTOP`] times the mark, as SQLite would.

use std::ffi::c_int;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use rusqlite::Connection;
use rusqlite::wal::CheckpointMode;

use super::StoreError;

/// How many marks' worth of pages the log may reach before the writer checkpoints itself.
const BACKSTOP: u32 = 4;

/// The checkpointer's last answer: pages in the log (high half) and pages copied (low half).
#[derive(Default)]
struct Progress(AtomicU64);

impl Progress {
    fn store(&self, log: c_int, copied: c_int) {
        let (log, copied) = (log.max(0) as u64, copied.max(0) as u64);
        self.0.store(log << 32 | copied, Ordering::Relaxed);
    }

    /// Of a log now `pages` long, how many pages no checkpoint has copied.
    fn uncopied(&self, pages: u32) -> u32 {
        let v = self.0.load(Ordering::Relaxed);
        let (log, copied) = ((v >> 32) as u32, v as u32);
        // A log shorter than the one the checkpoint saw has started over: none of it is copied.
        if pages < log {
            pages
        } else {
            pages.saturating_sub(copied)
        }
    }
}

/// Starts the checkpointer on its own connection to `path`, and installs on the writer's
/// connection the hook that wakes it. The thread ends once the writer's connection is closed.
pub fn start(
    writer: &mut Connection,
    path: &Path,
    pages: u32,
) -> Result<JoinHandle<()>, StoreError> {
    let conn = connect(path)?;
    let progress = Arc::new(Progress::default());
    // One wake-up waiting is enough: the checkpointer copies the whole log when it runs.
    let (wake, woken) = mpsc::sync_channel::<()>(1);
    let thread = {
        let progress = progress.clone();
        std::thread::Builder::new()
            .name("moot-checkpoint".into())
            .spawn(move || run(&conn, &progress, &woken))
            .map_err(|e| StoreError::Db(format!("cannot start the checkpoint thread: {e}")))?
    };
    let pages = pages.max(1);
    writer.wal_hook(Some(move |wal: &mut rusqlite::hooks::Wal, log: c_int| {
        let log = u32::try_from(log).unwrap_or(0);
        match next_step(log, progress.uncopied(log), pages) {
            Step::Wait => {}
            Step::Wake => {
                let _ = wake.try_send(());
            }
            Step::Finish => match wal.checkpoint_v2(CheckpointMode::PASSIVE) {
                Ok((log, copied)) if copied >= log => progress.store(0, 0),
                Ok((log, copied)) => progress.store(log, copied),
                // Busy (the checkpointer is copying) is no failure: the commit is made either
                // way, and the next one tries again.
                Err(err) => tracing::debug!(%err, "the writer could not checkpoint"),
            },
        }
        Ok(())
    }))?;
    Ok(thread)
}

/// The checkpointer's connection, which knows the log.
fn connect(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path)?;
    // A connection opens its database at its first statement: before that it knows no log, and
    // a checkpoint on it copies nothing.
    let mode: String = conn.pragma_query_value(None, "journal_mode", |r| r.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Db(format!(
            "the checkpointer found the database in journal mode {mode}, not WAL"
        )));
    }
    Ok(conn)
}

/// What the writer does after a commit that leaves the log `log` pages long, `uncopied` of them
/// not yet copied, with checkpoints every `pages`.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Wait,
    /// Wake the checkpointer: a mark's worth is waiting.
    Wake,
    /// Checkpoint here, between two transactions: only then does the next one start the log
    /// over (a transaction that began while the checkpointer copied goes on writing after the
    /// pages it copied, and so does every one after it). Either what is left is a small part of
    /// what the checkpointer copied, or the log has grown to the backstop.
    Finish,
}

fn next_step(log: u32, uncopied: u32, pages: u32) -> Step {
    if log >= pages.saturating_mul(BACKSTOP) || (log >= pages && uncopied <= pages / 8) {
        Step::Finish
    } else if uncopied >= pages {
        Step::Wake
    } else {
        Step::Wait
    }
}

/// Checkpoints at each wake-up; returns when the writer's connection (and its hook) is gone.
fn run(conn: &Connection, progress: &Progress, woken: &mpsc::Receiver<()>) {
    while woken.recv().is_ok() {
        if let Copied::Failed(err) = copy(conn, progress) {
            tracing::warn!(%err, "a checkpoint failed; the next will try again");
        }
    }
}

#[derive(Debug)]
enum Copied {
    /// As far as the log's readers allow; how far is in the progress.
    Done,
    /// Another connection was checkpointing (the writer finishing what this began): the log
    /// is in hand, and nothing is wrong.
    Busy,
    Failed(rusqlite::Error),
}

fn copy(conn: &Connection, progress: &Progress) -> Copied {
    match conn.wal_checkpoint_v2(None::<&str>, CheckpointMode::PASSIVE) {
        Ok((log, copied)) => {
            progress.store(log, copied);
            Copied::Done
        }
        Err(rusqlite::Error::SqliteFailure(e, _))
            if e.code == rusqlite::ErrorCode::DatabaseBusy =>
        {
            Copied::Busy
        }
        Err(err) => Copied::Failed(err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sql::args;
    use crate::store::{Database, Store, StoreOptions};

    /// Thousands of commits of rows and of one row written again and again (a running game's),
    /// with a mark of 64 pages: the log starts over again and again, and everything is there
    /// after a restart.
    #[test]
    fn under_steady_writes_the_log_stays_near_its_mark_and_nothing_is_lost() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("town.db");
        let db = Database::Sqlite(path.clone());
        let options = StoreOptions {
            checkpoint_pages: 64,
            ..Default::default()
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let store = Store::open(&db, options).unwrap();
        let (rows, at_once) = (6000_i64, 10_i64);
        rt.block_on(store.call(|c| {
            c.batch(
                "CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL);
                 CREATE TABLE hot (k INTEGER PRIMARY KEY, n INTEGER NOT NULL);
                 INSERT INTO hot VALUES (1, 0);",
            )
        }))
        .unwrap();
        let wal = dir.path().join("town.db-wal");
        let mut largest = 0;
        let (mut first, mut last) = (None, 0_u32);
        for wave in 0..rows / at_once {
            let answers: Vec<_> = (0..at_once)
                .map(|i| {
                    let k = wave * at_once + i;
                    store.submit(move |c| {
                        c.execute(
                            "INSERT INTO t (k, v) VALUES (?1, ?2)",
                            args![k, "x".repeat(600)],
                        )?;
                        c.execute("UPDATE hot SET n = n + 1 WHERE k = 1", &[])
                    })
                })
                .collect();
            for a in answers {
                a.blocking_recv().unwrap().unwrap();
            }
            largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
            // The log's header counts the times it has started over.
            let header = std::fs::read(&wal).unwrap_or_default();
            if let Some(seq) = header.get(12..16) {
                let seq = u32::from_be_bytes([seq[0], seq[1], seq[2], seq[3]]);
                first.get_or_insert(seq);
                last = seq;
            }
        }
        let restarts = last - first.unwrap_or(last);
        // Every 64 pages or so it starts over: thirteen to sixteen times here, so that the log
        // holds about a backstop's pages on average. SQLite's own checkpoints, every 1,000
        // pages, let it start over three times. (The file's size is no measure: it keeps its
        // largest size, and a machine busy enough to stop the checkpointer halfway through a
        // copy lets the log grow until it runs again: 3.8 MB once, in a full parallel test run.)
        assert!(restarts >= 6, "the log started over {restarts} times");
        assert!(largest > 0, "the log was never written");
        rt.block_on(store.close());

        let store = Store::open(&db, options).unwrap();
        let (count, n) = rt
            .block_on(store.call(|c| {
                let count = c
                    .first("SELECT count(*) AS count FROM t", &[])?
                    .map(|r| r.get::<i64>("count"));
                let n = c
                    .first("SELECT n FROM hot", &[])?
                    .map(|r| r.get::<i64>("n"));
                Ok((count, n))
            }))
            .unwrap();
        assert_eq!(count.transpose().unwrap(), Some(rows));
        assert_eq!(n.transpose().unwrap(), Some(rows));
        rt.block_on(store.close());
    }

    #[test]
    fn the_writer_waits_wakes_then_finishes_what_is_left() {
        let t = 4000;
        // A young log: nothing to do.
        assert_eq!(next_step(100, 100, t), Step::Wait);
        // A mark's worth uncopied: the checkpointer's turn.
        assert_eq!(next_step(4000, 4000, t), Step::Wake);
        // Copied but for the last few commits: the writer finishes, and the log starts over.
        assert_eq!(next_step(4300, 300, t), Step::Finish);
        // Half copied (the checkpointer is behind): wait for it, not copy it all here.
        assert_eq!(next_step(6000, 2000, t), Step::Wait);
        // Too far behind: the writer copies, as SQLite would.
        assert_eq!(next_step(16000, 9000, t), Step::Finish);
    }

    /// Busy is another connection checkpointing, which happens in a running town whenever
    /// the writer finishes what the checkpointer began: no warning for it (there was one).
    #[test]
    fn a_checkpoint_already_running_elsewhere_is_no_failure() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("town.db");
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch("PRAGMA journal_mode=WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        // A reader on an old snapshot, so that a RESTART checkpoint must wait for it...
        let reader = Connection::open(&path).unwrap();
        reader.execute_batch("BEGIN; SELECT * FROM t;").unwrap();
        writer.execute_batch("INSERT INTO t VALUES (2);").unwrap();
        // ...and while it waits (holding the checkpoint lock), ours runs.
        let ours = connect(&path).unwrap();
        let seen = Arc::new(std::sync::Mutex::new(None));
        let mut other = Connection::open(&path).unwrap();
        // (A connection knows the log once it has read.)
        let _: i64 = other
            .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
            .unwrap();
        {
            let seen = seen.clone();
            let mut ours = Some(ours);
            other
                .busy_handler(Some(move |_| {
                    if let Some(c) = ours.take() {
                        let got = copy(&c, &Progress::default());
                        *seen.lock().unwrap() = Some(format!("{got:?}"));
                    }
                    false
                }))
                .unwrap();
        }
        let _ = other.wal_checkpoint_v2(None::<&str>, CheckpointMode::RESTART);
        assert_eq!(seen.lock().unwrap().as_deref(), Some("Busy"));
        // Alone, it copies.
        reader.execute_batch("COMMIT;").unwrap();
        let again = connect(&path).unwrap();
        assert!(matches!(copy(&again, &Progress::default()), Copied::Done));
    }

    #[test]
    fn a_log_shorter_than_the_last_checkpoint_saw_has_started_over() {
        let p = Progress::default();
        p.store(4300, 4300);
        assert_eq!(p.uncopied(4400), 100);
        assert_eq!(p.uncopied(50), 50);
        p.store(0, 0);
        assert_eq!(p.uncopied(4400), 4400);
    }
}
