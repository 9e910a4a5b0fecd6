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

use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::Config;
use crate::link::Town;

/// What every connection shares.
pub struct Shared {
    pub config: Config,
    /// The town, in this process or across the broker.
    pub town: Town,
    /// The login screen's text (from `world.toml`).
    pub welcome: String,
    pub shutdown: CancellationToken,
    next_conn: AtomicU64,
    open: AtomicUsize,
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

    pub fn new(config: Config, town: Town, welcome: String, shutdown: CancellationToken) -> Shared {
        Shared {
            config,
            town,
            welcome,
            shutdown,
            next_conn: AtomicU64::new(1),
            open: AtomicUsize::new(0),
            started: std::time::SystemTime::now(),
        }
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
            let _counted = crate::metrics::Up::new(&crate::metrics::get().telnet_connections);
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
