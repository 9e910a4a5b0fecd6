//! A host's clock of the world's last word, which every task that hears the world sets: the
//! one thing the host's bookkeeping ([`held`](super::held)) and its questions in flight
//! ([`asked`](super::asked)) both need, kept below them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

/// When the world last said anything to this host: a beat, a word to a connection, an answer
/// to a question or to a login. Any of them shows it alive: behind a crowd logging in, its
/// beats can come later than a host's patience while its answers keep coming, and a host that
/// heard only beats told everyone the town was away while it was answering them.
pub(super) struct Heard {
    since: Instant,
    /// Milliseconds from `since`; a clock every task that hears the world sets without a lock.
    at: AtomicU64,
}

impl Heard {
    pub(super) fn new() -> Heard {
        Heard {
            since: Instant::now(),
            at: AtomicU64::new(0),
        }
    }

    /// The world spoke just now.
    pub(super) fn now(&self) {
        let at = u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.at.fetch_max(at, Ordering::Relaxed);
    }

    /// How long it has been silent.
    pub(super) fn silent(&self) -> Duration {
        let at = Duration::from_millis(self.at.load(Ordering::Relaxed));
        self.since.elapsed().saturating_sub(at)
    }
}
