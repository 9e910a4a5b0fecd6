//! Signed-in visitors of the web pages: a random session id in an HttpOnly, SameSite=Strict
//! cookie, and a CSRF token the page sends back with every change it asks for. Sessions live
//! in memory (a restart signs everyone out), are bounded in number and expire when idle.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use axum::http::HeaderMap;
use tokio::time::Instant;

use moot_kernel::world::AgentId;

/// The cookie's name.
pub const COOKIE: &str = "moot_session";

/// Who a session belongs to.
#[derive(Debug, Clone)]
pub struct Signed {
    pub agent: AgentId,
    pub name: String,
    /// Sent back by the page with each change (header `X-CSRF-Token`, or a form's `csrf`).
    pub csrf: String,
    last: Instant,
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
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
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
        let mut map = self.map.lock().unwrap_or_else(PoisonError::into_inner);
        let s = map.get_mut(id)?;
        if now - s.last >= self.idle {
            map.remove(id);
            return None;
        }
        s.last = now;
        Some(s.clone())
    }

    pub fn close(&self, id: &str) {
        self.map
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }
}

/// The session id a request's cookie carries, if any.
pub fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            let (k, v) = c.trim().split_once('=')?;
            (k == COOKIE && !v.is_empty()).then(|| v.to_owned())
        })
}

/// The `Set-Cookie` value that opens (or, with `None`, ends) a session in the browser.
pub fn set_cookie(id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict"),
        None => format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    }
}

fn random_hex() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_found_among_others_and_sessions_end() {
        let mut h = HeaderMap::new();
        h.insert("cookie", "a=1; moot_session=abc; b=2".parse().unwrap());
        assert_eq!(session_id(&h).as_deref(), Some("abc"));
        let s = Sessions::new(2, Duration::from_secs(60));
        let one = s.open("a1".into(), "Ann".into());
        let two = s.open("b1".into(), "Bob".into());
        assert_eq!(s.get(&one).unwrap().name, "Ann");
        // A third pushes out the least recently used (Bob: Ann was just read).
        let three = s.open("c1".into(), "Cy".into());
        assert!(s.get(&two).is_none());
        assert!(s.get(&one).is_some() && s.get(&three).is_some());
        s.close(&one);
        assert!(s.get(&one).is_none());
        assert!(set_cookie(Some("x")).contains("HttpOnly; SameSite=Strict"));
    }
}
