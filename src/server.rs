//! Starting and stopping moot: load the world, open the database, start the world task and the
//! listeners; on shutdown, close the listeners, let connections say goodbye, stop the world and
//! commit what is queued.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::store::{Store, StoreError};
use crate::telnet::{self, Shared};
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
}

/// A running server. Dropping it leaves the server running; call [`RunningServer::shutdown`].
pub struct RunningServer {
    /// Where the telnet listener actually is (useful when configured with port 0).
    pub telnet_addr: SocketAddr,
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

pub async fn start(config: Config) -> Result<RunningServer, StartError> {
    let map = world::load(&config.world)?;
    let store =
        Arc::new(
            Store::open(&config.db, config.sync).map_err(|error| StartError::Store {
                path: config.db.display().to_string(),
                error,
            })?,
        );
    let listener = TcpListener::bind(config.telnet)
        .await
        .map_err(|error| StartError::Bind {
            addr: config.telnet,
            error,
        })?;
    let telnet_addr = listener.local_addr().map_err(|error| StartError::Bind {
        addr: config.telnet,
        error,
    })?;
    let welcome = format!("{}\n{}", map.name, map.welcome);
    let start_room = map.room(map.start).id.clone();
    tracing::info!(rooms = map.rooms.len(), world = %config.world.display(), "world loaded");
    let (handle, world_task) = world::spawn(World::new(map), store.clone());
    let shutdown = CancellationToken::new();
    let shared = Arc::new(Shared::new(
        config,
        handle,
        store.clone(),
        welcome,
        start_room,
        shutdown.clone(),
    ));
    tracing::info!(%telnet_addr, "telnet listening");
    let done = tokio::spawn(async move {
        telnet::serve(listener, shared).await;
        // Every connection is gone, and with the last handle the world task ends.
        let _ = world_task.await;
        store.close().await;
        tracing::info!("stopped");
    });
    Ok(RunningServer {
        telnet_addr,
        shutdown,
        done,
    })
}
