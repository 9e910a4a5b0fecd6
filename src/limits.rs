//! Keyed rate limits: how often one identity may act, one address may try to log in or make
//! agents, one name may be guessed at. Every face asks the same limiter, so that opening more
//! connections, or using another face, buys nobody more turns.
//!
//! A token bucket per key: a burst goes through at once, then one action per `1/rate` seconds.
//! The map of keys is bounded: past its size, keys whose buckets have refilled (whom the limiter
//! has nothing to hold against) are forgotten, and if that is not enough the newcomer is
//! refused, so a stranger with many addresses cannot make the limiter itself grow without end.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

/// How many keys one limiter remembers at most.
const MAX_KEYS: usize = 100_000;

#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    last: Instant,
}

/// A rate limit per key.
#[derive(Debug)]
pub struct Limiter<K> {
    /// Actions per second; 0 means no limit.
    rate: f64,
    burst: f64,
    buckets: Mutex<HashMap<K, Bucket>>,
}

impl<K: Hash + Eq + Clone> Limiter<K> {
    pub fn new(rate: f64, burst: u32) -> Limiter<K> {
        Limiter {
            rate,
            burst: f64::from(burst.max(1)),
            buckets: Mutex::default(),
        }
    }

    /// Takes one action's token for `key`, or says how long until one is there.
    pub fn take(&self, key: &K, now: Instant) -> Result<(), Duration> {
        if self.rate <= 0.0 {
            return Ok(());
        }
        let mut map = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if !map.contains_key(key) && map.len() >= MAX_KEYS {
            let full = self.burst;
            let rate = self.rate;
            map.retain(|_, b| {
                b.tokens + now.saturating_duration_since(b.last).as_secs_f64() * rate < full
            });
            if map.len() >= MAX_KEYS {
                return Err(Duration::from_secs_f64(1.0 / self.rate));
            }
        }
        let b = map.entry(key.clone()).or_insert(Bucket {
            tokens: self.burst,
            last: now,
        });
        let elapsed = now.saturating_duration_since(b.last).as_secs_f64();
        b.tokens = (b.tokens + elapsed * self.rate).min(self.burst);
        b.last = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - b.tokens) / self.rate))
        }
    }

    /// Forgets what `key` has used (a successful login clears its own name's count).
    pub fn forgive(&self, key: &K) {
        self.buckets
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
    }
}

/// "0.4 s", "12 s": a wait as a person reads it.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 10.0 {
        format!("{:.1} s", s.max(0.1))
    } else {
        format!("{} s", s.ceil() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_passes_then_the_rate_holds() {
        let l = Limiter::new(2.0, 3);
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(l.take(&"a", t0), Ok(()));
        }
        let wait = l.take(&"a", t0).unwrap_err();
        assert!(wait > Duration::from_millis(400) && wait <= Duration::from_millis(500));
        // Another key is not held back by the first.
        assert_eq!(l.take(&"b", t0), Ok(()));
        // Half a second later one more token is there.
        assert_eq!(l.take(&"a", t0 + Duration::from_millis(500)), Ok(()));
        assert!(l.take(&"a", t0 + Duration::from_millis(500)).is_err());
        l.forgive(&"a");
        assert_eq!(l.take(&"a", t0 + Duration::from_millis(500)), Ok(()));
    }

    #[test]
    fn a_zero_rate_is_no_limit() {
        let l = Limiter::new(0.0, 1);
        let t0 = Instant::now();
        for _ in 0..100 {
            assert_eq!(l.take(&1, t0), Ok(()));
        }
    }
}
