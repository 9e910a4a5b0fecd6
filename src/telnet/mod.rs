//! The telnet front end: accepts connections, turns bytes into lines and lines into requests
//! for the world, and writes the world's answers back. It holds no game state; what it keeps
//! per connection (PREFIX/SUFFIX, the flood throttle, the login screen) is about the connection.

mod codec;
mod connection;
mod login;
mod throttle;
pub mod xmcp;

pub use codec::{Input, TelnetCodec};

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::identity::Directory;
use crate::limits::Limiter;
use crate::store::Store;
use crate::world::WorldHandle;

/// What every connection shares.
pub struct Shared {
    pub config: Config,
    pub world: WorldHandle,
    pub store: Arc<Store>,
    pub directory: Arc<Directory>,
    /// The login screen's text (from `world.toml`).
    pub welcome: String,
    /// Where new characters appear (a room id).
    pub start_room: String,
    pub shutdown: CancellationToken,
    next_conn: AtomicU64,
    open: AtomicUsize,
    failures: std::sync::Mutex<HashMap<IpAddr, Failures>>,
    /// Login attempts admitted per address, and per name guessed at, across connections.
    logins_by_address: Limiter<IpAddr>,
    logins_by_name: Limiter<String>,
    /// Password hashing runs at most this many at once: each argon2 run holds 19 MiB, and a
    /// crowd logging in together must not exhaust memory or starve the blocking pool.
    password_work: tokio::sync::Semaphore,
}

#[derive(Debug, Clone, Copy)]
struct Failures {
    count: u32,
    last: Instant,
}

/// Failed logins are forgotten after this long without another.
const FAILURES_FORGOTTEN: Duration = Duration::from_secs(15 * 60);

impl Shared {
    pub fn new(
        config: Config,
        world: WorldHandle,
        store: Arc<Store>,
        directory: Arc<Directory>,
        welcome: String,
        start_room: String,
        shutdown: CancellationToken,
    ) -> Shared {
        let rate = config.login_rate;
        Shared {
            config,
            world,
            store,
            directory,
            welcome,
            start_room,
            shutdown,
            next_conn: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            failures: Default::default(),
            logins_by_address: Limiter::new(rate / 60.0, rate.ceil() as u32),
            logins_by_name: Limiter::new(rate / 120.0, (rate / 2.0).ceil() as u32),
            password_work: tokio::sync::Semaphore::new(
                std::thread::available_parallelism().map_or(2, |n| n.get()),
            ),
        }
    }

    /// Records a failed login from `ip`; returns how long to wait before answering.
    fn login_failed(&self, ip: IpAddr) -> Duration {
        let now = Instant::now();
        let mut map = self.failures.lock().expect("failures lock");
        if map.len() > 10_000 {
            map.retain(|_, f| now - f.last < FAILURES_FORGOTTEN);
        }
        let f = map.entry(ip).or_insert(Failures {
            count: 0,
            last: now,
        });
        if now - f.last >= FAILURES_FORGOTTEN {
            f.count = 0;
        }
        f.count += 1;
        f.last = now;
        let base = Duration::from(self.config.login_fail_delay);
        let factor = 1u32 << f.count.saturating_sub(3).min(5);
        (base * factor).min(base * 30)
    }

    /// Runs password hashing or checking on the blocking pool, a bounded number at a time.
    async fn password_work<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let _permit = self.password_work.acquire().await.ok()?;
        tokio::task::spawn_blocking(f).await.ok()
    }

    /// Admits one login attempt from `ip` for `name`, or says how long to wait: guessing
    /// from many connections at once, or at one name from many addresses, gains nothing.
    fn admit_login(&self, ip: IpAddr, name: &str) -> Result<(), Duration> {
        let now = Instant::now();
        self.logins_by_address.take(&ip, now)?;
        self.logins_by_name.take(&name.to_lowercase(), now)
    }

    /// A success clears the count of its own name only: logging in to one's own character
    /// must not buy more guesses at somebody else's.
    fn login_succeeded(&self, name: &str) {
        self.logins_by_name.forgive(&name.to_lowercase());
    }
}

/// Counts a connection as open for as long as it lives.
struct OpenGuard<'a>(&'a AtomicUsize);

impl Drop for OpenGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The polite refusal past the connection limit.
pub const FULL_MESSAGE: &str = "*** Sorry, moot is full right now. Please try again later. ***";

/// Accepts connections until shutdown; returns once every connection has closed.
pub async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let tracker = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = shared.shutdown.cancelled() => break,
        };
        let (mut stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors and the like: pause rather than spin.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let open = shared.open.fetch_add(1, Ordering::Relaxed);
        if open >= shared.config.max_connections {
            shared.open.fetch_sub(1, Ordering::Relaxed);
            tracker.spawn(async move {
                let _ = stream
                    .write_all(format!("{FULL_MESSAGE}\r\n").as_bytes())
                    .await;
                let _ = stream.shutdown().await;
            });
            continue;
        }
        let shared = shared.clone();
        tracker.spawn(async move {
            let _guard = OpenGuard(&shared.open);
            let conn = shared.next_conn.fetch_add(1, Ordering::Relaxed);
            run(stream, peer, conn, &shared).await;
        });
    }
    tracker.close();
    tracker.wait().await;
}

/// One telnet connection, from accept to goodbye: the login screen, then play.
async fn run(
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    conn_id: crate::world::ConnId,
    shared: &Shared,
) {
    let mut conn = connection::Conn::open(stream, peer, shared);
    tracing::debug!(%peer, conn_id, "connected");
    if let Some((row, created)) = login::screen(&mut conn, shared).await {
        connection::play(&mut conn, row, created, conn_id, shared).await;
    }
    conn.out.close().await;
    tracing::debug!(%peer, conn_id, "closed");
}
