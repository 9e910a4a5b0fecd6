//! The writer thread: it takes everything queued, runs each job in its own savepoint inside
//! one transaction, commits once, and only then answers each job (see the module above for
//! why); a failure is told once and then about once a second, never stops it, and refuses the
//! world's writes made on top of the failed one.

use super::*;

/// The writer thread's memory of the world's failures.
#[derive(Default)]
struct Writer {
    /// The world's epochs up to this one are refused (see [`Work::epoch`]).
    broken: Option<u64>,
    /// The batches refused since the last one written, if any were.
    outage: Option<Outage>,
}

/// A run of refused batches, for the log. An outage of the database refuses every batch until
/// it is back, and the world tries its due work again all along (less often the longer it
/// lasts): one line for each refusal filled the log with the same words, so its first is told,
/// then at most one line a [`OUTAGE_REPORT`], then its end.
struct Outage {
    since: Instant,
    said: Instant,
    refused: u64,
}

/// How often a run of refused batches is told in the log while it lasts.
const OUTAGE_REPORT: Duration = Duration::from_secs(1);

impl Writer {
    /// A batch of `jobs` was not written, for `err`.
    fn failed(&mut self, err: &StoreError, jobs: usize) {
        let now = Instant::now();
        match &mut self.outage {
            None => {
                tracing::error!(%err, jobs, "cannot write a batch");
                self.outage = Some(Outage {
                    since: now,
                    said: now,
                    refused: 1,
                });
            }
            Some(o) => {
                o.refused += 1;
                if now.duration_since(o.said) >= OUTAGE_REPORT {
                    o.said = now;
                    tracing::warn!(
                        %err,
                        failing_for = ?now.duration_since(o.since),
                        batches = o.refused,
                        "still cannot write"
                    );
                }
            }
        }
    }

    /// A batch was written: whatever failed before has passed.
    fn wrote(&mut self) {
        if let Some(o) = self.outage.take() {
            tracing::info!(
                failed_for = ?o.since.elapsed(),
                batches = o.refused,
                "batches are written again"
            );
        }
    }

    fn refuses(&self, w: &Work) -> bool {
        matches!((w.epoch, self.broken), (Some(e), Some(b)) if e <= b)
    }

    fn break_epoch(&mut self, epoch: Option<u64>) {
        if let Some(e) = epoch {
            self.broken = Some(self.broken.map_or(e, |b| b.max(e)));
        }
    }
}

pub(super) fn writer(mut conn: Sql, mut reconnect: Option<Reconnect>, rx: mpsc::Receiver<Msg>) {
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
            match reconnected(&mut conn, &mut reconnect) {
                Ok(()) => run_batch(&mut conn, &mut reconnect, &mut state, &mut batch),
                Err(err) => refuse_batch(&mut state, &mut batch, &err),
            }
        }
        if let Some(done) = close {
            let _ = done.send(());
            return;
        }
    }
}

/// A connection lost (PostgreSQL gone away) is opened again before the next batch; until it
/// can be, every batch is refused, and nothing is acknowledged.
fn reconnected(conn: &mut Sql, reconnect: &mut Option<Reconnect>) -> Result<(), StoreError> {
    let Some(again) = reconnect.as_mut() else {
        return Ok(());
    };
    if !conn.is_closed() {
        return Ok(());
    }
    *conn = again()?;
    tracing::info!("the database is back: writing again");
    Ok(())
}

/// How long the writer waits for the database to say whether a commit whose answer was lost
/// was made.
const LOST_COMMIT_WAIT: Duration = Duration::from_secs(10);

/// A COMMIT sent on a connection that went before its answer came may have been made all the
/// same. Asked once the database answers again (`txid_status`), so that what is acknowledged
/// is what is stored, either way. If it cannot be asked in time the batch counts as failed:
/// should it have been made after all, the world's next writes to the same sessions meet it
/// (the log's keys are unique) and fail, until `--storage-give-up` stops moot and a restart
/// replays what the database holds.
fn lost_commit(
    conn: &mut Sql,
    reconnect: &mut Option<Reconnect>,
    xid: i64,
) -> Result<(), StoreError> {
    let again = reconnect
        .as_mut()
        .ok_or_else(|| StoreError::Db("the connection went during a commit".into()))?;
    let deadline = Instant::now() + LOST_COMMIT_WAIT;
    loop {
        let status = again().and_then(|mut c| {
            let status: Option<String> = c
                .first("SELECT txid_status(?1) AS status", sql::args![xid])?
                .map(|r| r.get("status"))
                .transpose()?;
            *conn = c;
            Ok(status)
        });
        match status.as_ref().map(Option::as_deref) {
            Ok(Some("committed")) => return Ok(()),
            Ok(Some("aborted")) => {
                return Err(StoreError::Db(
                    "the connection went during a commit, which was not made".into(),
                ));
            }
            // Not known yet (the database is away, or the commit is still being made).
            _ if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(200));
            }
            _ => {
                tracing::error!(
                    "whether a commit was made cannot be known; if it was, the next writes to its sessions fail until a restart"
                );
                return Err(StoreError::Db(
                    "the connection went during a commit, and whether it was made is unknown"
                        .into(),
                ));
            }
        }
    }
}

fn refuse_batch(state: &mut Writer, batch: &mut Vec<Work>, err: &StoreError) {
    state.failed(err, batch.len());
    for w in batch.drain(..) {
        state.break_epoch(w.epoch);
        w.job.refuse(err.clone());
    }
}

/// Runs one transaction of queued jobs. A failure is never the end of the writer: the next
/// batch tries again, so persistence comes back by itself when the database does.
fn run_batch(
    conn: &mut Sql,
    reconnect: &mut Option<Reconnect>,
    state: &mut Writer,
    batch: &mut Vec<Work>,
) {
    let (started, jobs) = (Instant::now(), batch.len());
    if let Err(e) = conn.begin() {
        refuse_batch(state, batch, &StoreError::from(e));
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
    // PostgreSQL's id for the transaction, to ask after a COMMIT whose answer is lost.
    let xid = match conn.engine() {
        Engine::Postgres => conn
            .first("SELECT txid_current() AS xid", &[])
            .ok()
            .flatten()
            .and_then(|r| r.get::<i64>("xid").ok()),
        Engine::Sqlite => None,
    };
    let mut outcome = conn.batch("COMMIT").map_err(StoreError::from);
    if let (Err(err), Some(xid)) = (&outcome, xid)
        && conn.is_closed()
    {
        tracing::warn!(%err, "the connection went during a commit; asking whether it was made");
        outcome = lost_commit(conn, reconnect, xid);
    }
    crate::metrics::get().commit(jobs, started.elapsed());
    match &outcome {
        Ok(()) => state.wrote(),
        Err(err) => {
            tracing::error!(%err, "commit failed; the batch is rolled back");
            let _ = conn.batch("ROLLBACK");
        }
    }
    for (epoch, d) in delivers {
        if outcome.is_err() {
            state.break_epoch(epoch);
        }
        d(outcome.clone());
    }
}
