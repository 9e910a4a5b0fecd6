//! The telnet front end: accepts connections, turns bytes into lines and lines into requests
//! for the world, and writes the world's answers back. It holds no game state; what it keeps
//! per connection (PREFIX/SUFFIX, the flood throttle, the login screen) is about the connection.

mod codec;
mod connection;
mod login;
mod options;
mod throttle;
pub mod xmcp;

pub use codec::{Input, TelnetCodec};

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::cluster::Town;
use crate::config::Config;
use moot_kernel::limits::{Occupancy, Seat};

/// What every connection shares.
pub struct Shared {
    pub config: Config,
    /// The town, in this process or across the broker.
    pub town: Arc<Town>,
    /// The login screen's text (from `world.toml`).
    pub welcome: String,
    pub shutdown: CancellationToken,
    next_conn: AtomicU64,
    open: AtomicUsize,
    /// Connections at the login screen, per address.
    at_login: Occupancy,
    /// Whether the town is nearly full, when the login screen's timeout is shorter; those
    /// waiting at it hear when this changes.
    crowded: tokio::sync::watch::Sender<bool>,
    /// When this server started (MSSP's UPTIME).
    pub started: std::time::SystemTime,
}

impl Shared {
    /// MSSP's figures, as a listing's crawler reads them.
    pub fn mssp(&self) -> Vec<(&'static str, String)> {
        let uptime = self
            .started
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let name = self.welcome.lines().next().unwrap_or("moot").to_owned();
        vec![
            ("NAME", name),
            ("PLAYERS", self.open.load(Ordering::Relaxed).to_string()),
            ("UPTIME", uptime.to_string()),
            ("CODEBASE", format!("moot {}", env!("CARGO_PKG_VERSION"))),
            ("PORT", self.config.telnet.port().to_string()),
            ("GAMESYSTEM", "None".into()),
            ("GENRE", "Social".into()),
            ("GAMEPLAY", "Social, Player versus Player".into()),
            ("FAMILY", "LPMud".into()),
            ("LANGUAGE", "English".into()),
            ("GMCP", "1".into()),
            ("MSSP", "1".into()),
            ("ANSI", "0".into()),
            ("UTF-8", "1".into()),
            ("CRAWL DELAY", "-1".into()),
        ]
    }

    pub fn new(
        config: Config,
        town: Arc<Town>,
        welcome: String,
        shutdown: CancellationToken,
    ) -> Shared {
        Shared {
            town,
            welcome,
            shutdown,
            next_conn: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            at_login: Occupancy::new(config.max_logins_per_address),
            crowded: tokio::sync::watch::Sender::new(false),
            config,
            started: std::time::SystemTime::now(),
        }
    }

    /// Whether the town is nearly full: it becomes so at three quarters of `--max-connections`
    /// open, and stays so until under half are. Without the gap, the first idle connection
    /// closed would make the town calm again, and the next newcomer crowded.
    pub fn crowded(&self) -> tokio::sync::watch::Receiver<bool> {
        self.crowded.subscribe()
    }

    /// Tells the login screens when the town becomes, or stops being, nearly full.
    fn recount(&self) {
        let open = self.open.load(Ordering::Relaxed);
        let max = self.config.max_connections;
        self.crowded.send_if_modified(|crowded| {
            let now = match *crowded {
                false => open >= max.saturating_mul(3) / 4,
                true => open >= max / 2,
            };
            std::mem::replace(crowded, now) != now
        });
    }
}

/// Counts a connection as open for as long as it lives.
struct OpenGuard<'a>(&'a Shared);

impl Drop for OpenGuard<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
        self.0.recount();
    }
}

/// The polite refusal past the connection limit.
pub const FULL_MESSAGE: &str = "*** Sorry, moot is full right now. Please try again later. ***";

/// The refusal past one address's connections at the login screen.
pub const ADDRESS_FULL_MESSAGE: &str = "*** Too many connections from your address are waiting \
to log in; log in on one of them, or close some, and try again. ***";

/// Says `message` to a connection turned away, and closes it.
fn turn_away(tracker: &TaskTracker, stream: tokio::net::TcpStream, message: &'static str) {
    tracker.spawn(async move {
        moot_kernel::limits::turn_away(stream, format!("{message}\r\n").as_bytes()).await
    });
}

/// Accepts connections until shutdown; returns once every connection has closed.
pub async fn serve(listener: TcpListener, shared: Arc<Shared>) {
    let tracker = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = shared.shutdown.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of descriptors and the like: pause rather than spin.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(seat) = shared.at_login.take(peer.ip()) else {
            turn_away(&tracker, stream, ADDRESS_FULL_MESSAGE);
            continue;
        };
        let open = shared.open.fetch_add(1, Ordering::Relaxed);
        if open >= shared.config.max_connections {
            shared.open.fetch_sub(1, Ordering::Relaxed);
            turn_away(&tracker, stream, FULL_MESSAGE);
            continue;
        }
        shared.recount();
        let shared = shared.clone();
        tracker.spawn(async move {
            let _guard = OpenGuard(&shared);
            let _counted =
                moot_kernel::metrics::Up::new(&moot_kernel::metrics::get().telnet_connections);
            let conn = shared.next_conn.fetch_add(1, Ordering::Relaxed);
            run(stream, peer, conn, seat, &shared).await;
        });
    }
    tracker.close();
    tracker.wait().await;
}

/// One telnet connection, from accept to goodbye: the login screen, then play.
async fn run(
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    conn_id: moot_kernel::world::ConnId,
    at_login: Seat,
    shared: &Shared,
) {
    let mut conn = connection::Conn::open(stream, peer, shared);
    tracing::debug!(%peer, conn_id, "connected");
    let logged_in = login::screen(&mut conn, shared).await;
    drop(at_login);
    if let Some((row, created)) = logged_in {
        connection::play(&mut conn, row, created, conn_id, shared).await;
    }
    conn.out.close().await;
    tracing::debug!(%peer, conn_id, "closed");
}
