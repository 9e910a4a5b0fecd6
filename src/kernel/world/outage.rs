//! A run of failed writes to the database, and how the world's due work backs off while it
//! lasts: a deadline whose write failed was queued again as it was, due at once, and met the
//! same outage ten thousand times a second (a core's work, and a log line each time).

use std::time::Duration;

use tokio::time::Instant;

use crate::store::StoreError;

/// How long the world's due work (deadlines, ticks) waits after a failed write before it is
/// tried again, at first; each failure after it doubles the wait, up to [`RETRY_MOST`]. A
/// deadline whose write fails is queued again as it was, due at once: tried again at once, it
/// met the same outage ten thousand times a second, a core's work and a log line each time.
const RETRY_FIRST: Duration = Duration::from_millis(25);
/// The longest wait between tries, so that due work is done within a second of the
/// database's return.
const RETRY_MOST: Duration = Duration::from_millis(800);
/// How often the world tells the log, while writes keep failing, that they still do: the
/// store already says so about once a second (see `store::writer`).
const FAILING_REPORT: Duration = Duration::from_secs(10);

/// A run of failed writes with no success between them.
#[derive(Default)]
pub(super) struct Failing {
    /// The first and the latest failure of the run.
    run: Option<(Instant, Instant)>,
    /// How many failures the run has had.
    count: u32,
    /// Due work waits until then.
    hold: Option<Instant>,
    /// When the run was last told in the log.
    said: Option<Instant>,
}

impl Failing {
    /// Counts a failure at `now`, and holds due work back the longer the more failures the
    /// run has had; returns how long the run has lasted. Failures further apart than `limit`
    /// are separate runs: two failed writes an hour apart are no outage.
    pub(super) fn failed(&mut self, now: Instant, limit: Duration) -> Duration {
        let first = match self.run {
            Some((first, last)) if now.saturating_duration_since(last) < limit => first,
            _ => {
                self.count = 0;
                now
            }
        };
        self.run = Some((first, now));
        self.count = self.count.saturating_add(1);
        self.hold = Some(now + self.wait());
        now.saturating_duration_since(first)
    }

    /// How long due work waits after the run's latest failure.
    pub(super) fn wait(&self) -> Duration {
        let doublings = self.count.saturating_sub(1).min(16);
        (RETRY_FIRST * 2u32.pow(doublings)).min(RETRY_MOST)
    }

    /// Whether due work waits at `now`.
    pub(super) fn holds(&self, now: Instant) -> bool {
        self.hold.is_some_and(|h| now < h)
    }

    /// When the world task must wake for `deadline`: not before due work may be tried again.
    pub(super) fn hold_back(&self, deadline: Option<Instant>) -> Option<Instant> {
        deadline.map(|d| self.hold.map_or(d, |h| d.max(h)))
    }

    /// Tells the log of a failure just counted at `now`: the run's first, then at most one line
    /// a [`FAILING_REPORT`].
    pub(super) fn tell(&mut self, now: Instant, err: &StoreError, undone: usize) {
        if self.count == 1 {
            tracing::error!(
                %err,
                undone,
                "a write failed; undoing it and what came after (due work is tried again, less \
                 often while writes keep failing)"
            );
        } else if self
            .said
            .is_some_and(|said| now.saturating_duration_since(said) < FAILING_REPORT)
        {
            tracing::debug!(%err, undone, failures = self.count, "a write failed again");
            return;
        } else {
            let lasted = self.run.map_or(Duration::ZERO, |(first, _)| {
                now.saturating_duration_since(first)
            });
            tracing::warn!(
                %err,
                failing_for = ?lasted,
                failures = self.count,
                retry_every = ?self.wait(),
                "writes still fail; the world's due work waits and is tried again"
            );
        }
        self.said = Some(now);
    }

    /// A write was stored: the run, if any, is over.
    pub(super) fn stored(&mut self) {
        if let Some((first, _)) = self.run.take() {
            if self.count > 1 {
                tracing::info!(
                    failed_for = ?first.elapsed(),
                    failures = self.count,
                    "writes are stored again"
                );
            }
            *self = Failing::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_run_of_failures_close_together_is_an_outage() {
        let limit = Duration::from_secs(60);
        let t0 = Instant::now();
        let mut f = Failing::default();
        assert_eq!(f.failed(t0, limit), Duration::ZERO);
        // An hour later: a new run, not an hour-long outage.
        let t1 = t0 + Duration::from_secs(3600);
        assert_eq!(f.failed(t1, limit), Duration::ZERO);
        // Failures every 10 s add up.
        let mut t = t1;
        for _ in 0..6 {
            t += Duration::from_secs(10);
            f.failed(t, limit);
        }
        assert_eq!(f.failed(t, limit), Duration::from_secs(60));
    }

    #[test]
    fn due_work_waits_longer_after_each_failure_up_to_a_bound_and_not_once_writes_are_stored() {
        let t0 = Instant::now();
        let mut f = Failing::default();
        assert!(!f.holds(t0));
        assert_eq!(f.hold_back(Some(t0)), Some(t0));
        let mut waits = Vec::new();
        let mut t = t0;
        for _ in 0..8 {
            f.failed(t, Duration::MAX);
            waits.push(f.wait().as_millis());
            assert!(f.holds(t));
            // A deadline already due waits for the hold; one after it keeps its own time.
            assert_eq!(f.hold_back(Some(t)), Some(t + f.wait()));
            let late = t + Duration::from_secs(5);
            assert_eq!(f.hold_back(Some(late)), Some(late));
            t += f.wait();
            assert!(!f.holds(t));
        }
        assert_eq!(waits, [25, 50, 100, 200, 400, 800, 800, 800]);
        f.stored();
        assert!(!f.holds(t0));
        f.failed(t, Duration::MAX);
        assert_eq!(f.wait(), RETRY_FIRST, "a new run starts small again");
    }
}
