//! Who is signed in on the web: cookie sessions, held by the world (so that every host's
//! pages know the same visitors, and a host restarted signs nobody out), bounded in number
//! and ended when idle; and the OAuth grants waiting to be exchanged beside them.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use moot_kernel::world::AgentId;

/// Who a session belongs to.
#[derive(Debug, Clone)]
pub struct Signed {
    pub agent: AgentId,
    pub name: String,
    /// Sent back by the page with each change (header `X-CSRF-Token`, or a form's `csrf`).
    pub csrf: String,
    last: Instant,
}

impl Signed {
    /// Whether `token` is this session's CSRF token (compared in constant time).
    pub fn csrf_ok(&self, token: &str) -> bool {
        use subtle::ConstantTimeEq;
        !token.is_empty() && bool::from(self.csrf.as_bytes().ct_eq(token.as_bytes()))
    }
}

/// The web's state the world holds for every host.
pub struct Visits {
    pub sessions: Sessions,
    /// OAuth authorization codes waiting to be exchanged.
    pub codes: Mutex<moot_kernel::oauth::Codes>,
    /// OAuth client registrations per address.
    pub registrations: moot_kernel::limits::Limiter<moot_kernel::limits::Address>,
    /// Added to every version a live page is told, so that a version from an earlier run of
    /// the world (whose counters started again at 0) is never taken for one of this run's.
    pub run: u64,
}

impl Default for Visits {
    fn default() -> Visits {
        Visits {
            // A week idle ends a session; ten thousand at once is plenty for one town.
            sessions: Sessions::new(10_000, Duration::from_secs(7 * 24 * 3600)),
            codes: Mutex::default(),
            // Ten registrations a minute per address, in bursts of ten.
            registrations: moot_kernel::limits::Limiter::new(10.0 / 60.0, 10),
            run: rand::random(),
        }
    }
}

pub struct Sessions {
    map: Mutex<HashMap<String, Signed>>,
    /// At most this many at once; the least recently used goes first.
    max: usize,
    /// A session unused this long is over.
    idle: Duration,
}

impl Sessions {
    pub fn new(max: usize, idle: Duration) -> Sessions {
        Sessions {
            map: Mutex::new(HashMap::new()),
            max,
            idle,
        }
    }

    /// Opens a session for `agent`; its id goes in the cookie.
    pub fn open(&self, agent: AgentId, name: String) -> String {
        let id = random_hex();
        let now = Instant::now();
        let mut map = lock(&self.map);
        map.retain(|_, s| now - s.last < self.idle);
        if map.len() >= self.max
            && let Some(oldest) = map
                .iter()
                .min_by_key(|(_, s)| s.last)
                .map(|(k, _)| k.clone())
        {
            map.remove(&oldest);
        }
        map.insert(
            id.clone(),
            Signed {
                agent,
                name,
                csrf: random_hex(),
                last: now,
            },
        );
        id
    }

    /// The session `id` names, if it is open (and now used again).
    pub fn get(&self, id: &str) -> Option<Signed> {
        let now = Instant::now();
        let mut map = lock(&self.map);
        let s = map.get_mut(id)?;
        if now - s.last >= self.idle {
            map.remove(id);
            return None;
        }
        s.last = now;
        Some(s.clone())
    }

    pub fn close(&self, id: &str) {
        lock(&self.map).remove(id);
    }
}

/// Locks `m`, whoever panicked holding it.
pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn random_hex() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_are_bounded_and_end() {
        let s = Sessions::new(2, Duration::from_secs(60));
        let one = s.open("a1".into(), "Ann".into());
        let two = s.open("b1".into(), "Bob".into());
        assert_eq!(s.get(&one).unwrap().name, "Ann");
        // A third pushes out the least recently used (Bob: Ann was just read).
        let three = s.open("c1".into(), "Cy".into());
        assert!(s.get(&two).is_none());
        assert!(s.get(&one).is_some() && s.get(&three).is_some());
        let csrf = s.get(&one).unwrap().csrf;
        assert!(s.get(&one).unwrap().csrf_ok(&csrf));
        assert!(!s.get(&one).unwrap().csrf_ok("") && !s.get(&one).unwrap().csrf_ok("x"));
        s.close(&one);
        assert!(s.get(&one).is_none());
    }
}
