//! Starting and stopping moot: load the world, open the database, start the world task and the
//! listeners; on shutdown, close the listeners, let connections say goodbye, stop the world and
//! commit what is queued.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::http::{self, Api};
use crate::identity::Directory;
use crate::store::{Store, StoreError, sessions};
use crate::telnet::{self, Shared};
use crate::world::sessions::ReplayError;
use crate::world::{self, World, WorldError};

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("the world files are broken: {0}")]
    World(#[from] WorldError),
    #[error("cannot open the database {path}: {error}")]
    Store { path: String, error: StoreError },
    #[error("cannot listen on {addr}: {error}")]
    Bind {
        addr: SocketAddr,
        error: std::io::Error,
    },
    #[error("a stored game does not replay, so the database and the game rules disagree: {0}")]
    Replay(#[from] ReplayError),
}

/// A running server. Dropping it leaves the server running; call [`RunningServer::shutdown`].
pub struct RunningServer {
    /// Where the telnet listener actually is (useful when configured with port 0).
    pub telnet_addr: SocketAddr,
    /// Where the HTTP listener actually is.
    pub http_addr: SocketAddr,
    shutdown: CancellationToken,
    done: JoinHandle<()>,
}

impl RunningServer {
    /// Stops accepting, disconnects everyone politely, and returns once everything queued for
    /// the database is committed.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        let _ = self.done.await;
    }
}

async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), StartError> {
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|error| StartError::Bind { addr, error })?;
    let local = listener
        .local_addr()
        .map_err(|error| StartError::Bind { addr, error })?;
    Ok((listener, local))
}

pub async fn start(config: Config) -> Result<RunningServer, StartError> {
    let map = world::load(&config.world)?;
    let db_error = |error| StartError::Store {
        path: config.db.display().to_string(),
        error,
    };
    let store = Arc::new(Store::open(&config.db, config.sync).map_err(db_error)?);
    // The house's computer opponent is an identity like any other, so its moves are logged.
    store
        .call(|c| {
            c.execute(
                "INSERT OR IGNORE INTO agents (agent_id, name) VALUES (?1, ?2)",
                [world::chess::COMPUTER_ID, world::chess::COMPUTER_NAME],
            )
        })
        .await
        .map_err(db_error)?;
    let directory = Arc::new(Directory::new(
        store.all_identities().await.map_err(db_error)?,
    ));
    let stored = store.call(sessions::load_all).await.map_err(db_error)?;
    let mut world = World::new(map, directory.clone());
    let restored = stored.len();
    world.restore_sessions(stored)?;
    let (telnet_listener, telnet_addr) = bind(config.telnet).await?;
    let (http_listener, http_addr) = bind(config.http).await?;
    let welcome = format!("{}\n{}", world.map.name, world.map.welcome);
    let start_room = world.map.room(world.map.start).id.clone();
    tracing::info!(rooms = world.map.rooms.len(), sessions = restored, world = %config.world.display(), "world loaded");
    let (handle, world_task) = world::spawn(
        world,
        store.clone(),
        config
            .uci_engine
            .clone()
            .map(|path| crate::engine::uci::UciEngine { path }),
    );
    let shutdown = CancellationToken::new();
    let api = Api {
        world: handle.clone(),
        store: store.clone(),
        directory: directory.clone(),
        start_room: start_room.clone(),
    };
    let shared = Arc::new(Shared::new(
        config,
        handle,
        store.clone(),
        directory,
        welcome,
        start_room,
        shutdown.clone(),
    ));
    tracing::info!(%telnet_addr, %http_addr, "listening");
    let stop = shutdown.clone();
    let http_task = tokio::spawn(async move {
        let served = axum::serve(http_listener, http::router(api))
            .with_graceful_shutdown(stop.cancelled_owned())
            .await;
        if let Err(e) = served {
            tracing::error!(error = %e, "the HTTP server failed");
        }
    });
    let done = tokio::spawn(async move {
        telnet::serve(telnet_listener, shared).await;
        let _ = http_task.await;
        // Every connection is gone, and with the last handle the world task ends.
        let _ = world_task.await;
        store.close().await;
        tracing::info!("stopped");
    });
    Ok(RunningServer {
        telnet_addr,
        http_addr,
        shutdown,
        done,
    })
}
