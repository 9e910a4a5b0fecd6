//! Logging in with a character's name and password (or an API token), for every face that
//! offers it (telnet's `connect`, the web's login form). One instance is shared, so guesses
//! made through one face count against the same limits as guesses through the other; and why a
//! login or a new character is refused, in the same words on every face.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{OnceLock, PoisonError};
use std::time::Duration;

use tokio::time::Instant;

use moot_kernel::identity::{self, Directory};
use moot_kernel::limits::{Address, Limiter};
use moot_kernel::store::{AgentRow, Store};

/// Why a character was not made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum CreateRefused {
    /// The name or the password breaks a rule; the text says which.
    Invalid(String),
    /// Somebody has that name, whatever its case.
    Taken,
    /// The database could not be reached.
    Unavailable,
}

/// What every failed login is told, whether the name or the password was wrong.
pub const BAD_LOGIN: &str = "Either that player does not exist, or has a different password.";

/// Failed logins are forgotten after this long without another.
const FAILURES_FORGOTTEN: Duration = Duration::from_secs(15 * 60);

pub struct Logins {
    failures: std::sync::Mutex<HashMap<Address, Failures>>,
    /// Login attempts admitted per address, and per name guessed at, across connections.
    by_address: Limiter<Address>,
    by_name: Limiter<String>,
    /// How long a first failure waits before it is answered (it doubles after the third).
    fail_delay: Duration,
    /// Password hashing runs at most this many at once: each argon2 run holds 19 MiB, and a
    /// crowd logging in together must not exhaust memory or starve the blocking pool.
    password_work: tokio::sync::Semaphore,
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
}

/// Why a login did not succeed.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Refused {
    /// Too many attempts from this address or at this name: wait this long.
    TooMany(Duration),
    /// A wrong name or password ([`BAD_LOGIN`]); the answer was held back as failures mount.
    Bad,
    /// The database could not be read.
    Unavailable,
    /// The character, or the address, is banned ([`BANNED`]).
    Banned,
}

/// What a banned character or address is told.
pub const BANNED: &str = "*** That character, or your address, is banned from moot. ***";

impl Logins {
    /// `rate`: attempts a minute per address (half that per name); `fail_delay`: the wait
    /// before a failure is answered.
    pub fn new(rate: f64, fail_delay: Duration) -> Logins {
        Logins {
            failures: Default::default(),
            by_address: Limiter::new(rate / 60.0, rate.ceil() as u32),
            by_name: Limiter::new(rate / 120.0, (rate / 2.0).ceil() as u32),
            fail_delay,
            password_work: tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(2, |n| n.get()),
            ),
        }
    }

    /// Checks `name` and `password` (or an API token in its place, so agents made over HTTP
    /// can walk the town and use its pages). A wrong name costs as much time as a wrong
    /// password, and both get one answer.
    pub async fn check(
        &self,
        store: &Store,
        directory: &Directory,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<AgentRow, Refused> {
        let row = store.agent_by_name(name).await.map_err(|e| {
            tracing::error!(error = %e, "cannot look up a character");
            Refused::Unavailable
        })?;
        self.admit(ip, name).map_err(Refused::TooMany)?;
        let ok = if password.starts_with(identity::TOKEN_PREFIX) {
            let owner = directory.authenticate(password);
            row.as_ref()
                .is_some_and(|r| owner.as_deref() == Some(r.agent_id.as_str()))
        } else {
            let stored = row.as_ref().and_then(|r| r.password_hash.clone());
            let password = password.to_owned();
            self.password_work(move || {
                let hash = stored.as_deref().unwrap_or_else(|| decoy_hash());
                identity::verify_password(&password, hash) && stored.is_some()
            })
            .await
            .unwrap_or(false)
        };
        match row {
            Some(row) if ok => {
                // A success clears the count of its own name only: logging in to one's own
                // character must not buy more guesses at somebody else's.
                self.by_name.forgive(&name.to_lowercase());
                if directory.is_banned(&row.name) || directory.is_banned(&ip.to_string()) {
                    tracing::warn!(target: moot_kernel::logging::AUDIT, event = "login_banned", name = %row.name, %ip);
                    return Err(Refused::Banned);
                }
                tracing::info!(target: moot_kernel::logging::AUDIT, event = "login", name = %row.name, %ip);
                moot_kernel::metrics::get()
                    .logins
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(row)
            }
            _ => {
                tracing::warn!(target: moot_kernel::logging::AUDIT, event = "login_failed", %name, %ip);
                moot_kernel::metrics::get()
                    .failed_logins
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                tokio::time::sleep(self.failed(ip)).await;
                Err(Refused::Bad)
            }
        }
    }

    /// Admits one login attempt from `ip` for `name`, or says how long to wait: guessing
    /// from many connections at once, or at one name from many addresses, gains nothing.
    fn admit(&self, ip: IpAddr, name: &str) -> Result<(), Duration> {
        let now = Instant::now();
        self.by_address.take(&ip.into(), now)?;
        self.by_name.take(&name.to_lowercase(), now)
    }

    /// Records a failed login from `ip`; returns how long to wait before answering.
    fn failed(&self, ip: IpAddr) -> Duration {
        let now = Instant::now();
        let mut map = self.failures.lock().unwrap_or_else(PoisonError::into_inner);
        if map.len() > 10_000 {
            map.retain(|_, f| now - f.last < FAILURES_FORGOTTEN);
        }
        let f = map.entry(Address::of(ip)).or_insert(Failures {
            count: 0,
            last: now,
        });
        if now - f.last >= FAILURES_FORGOTTEN {
            f.count = 0;
        }
        f.count += 1;
        f.last = now;
        let factor = 1u32 << f.count.saturating_sub(3).min(5);
        (self.fail_delay * factor).min(self.fail_delay * 30)
    }

    /// Runs password hashing or checking on the blocking pool, a bounded number at a time.
    pub async fn password_work<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let _permit = self.password_work.acquire().await.ok()?;
        tokio::task::spawn_blocking(f).await.ok()
    }
}

/// A hash to check wrong names against, so that an unknown name costs as much time as a wrong
/// password and timing tells nothing.
fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| identity::hash_password("decoy password, never matches"))
}
