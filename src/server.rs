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
use crate::store::{Store, StoreError, StoreOptions, sessions};
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
    /// Resolves when moot stops on its own (the database refused every write for too long).
    pub async fn stopped(&self) {
        self.shutdown.cancelled().await
    }

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

/// The town without any listener: the world task running on a store, the identity directory,
/// and what the faces need to know. Both the server and `moot mcp` start from this.
pub struct Core {
    pub world: world::WorldHandle,
    pub world_task: JoinHandle<World>,
    pub store: Arc<Store>,
    pub directory: Arc<Directory>,
    /// The login screen's text.
    pub welcome: String,
    /// Where new characters appear (a room id).
    pub start_room: String,
}

/// Loads the world, opens `store`, makes sure the computer's identity exists, replays every
/// stored session, and starts the world task.
pub async fn open(
    world_dir: &std::path::Path,
    store: Store,
    db_name: &str,
    options: world::TaskOptions,
) -> Result<Core, StartError> {
    let map = world::load(world_dir)?;
    let db_error = |error| StartError::Store {
        path: db_name.to_owned(),
        error,
    };
    let store = Arc::new(store);
    // The house's computer player and server actor are identities like any other, so what
    // they do is logged.
    store.ensure_house(world::HOUSE).await.map_err(db_error)?;
    let directory = Arc::new(Directory::new(
        store.all_identities().await.map_err(db_error)?,
    ));
    let stored = store.call(sessions::load_all).await.map_err(db_error)?;
    let mut world = World::new(map, directory.clone());
    if let Some(seed) = options.seed {
        world.reproducible(seed);
    }
    if options.time_scale > 0.0 {
        world.scale_time(options.time_scale);
    }
    world.limit_writes(options.write_rate.0, options.write_rate.1);
    world.limit_sessions(options.sessions_per_agent);
    let restored = stored.len();
    world.restore_sessions(stored)?;
    let welcome = format!("{}\n{}", world.map.name, world.map.welcome);
    let start_room = world.map.room(world.map.start).id.clone();
    tracing::info!(rooms = world.map.rooms.len(), sessions = restored, world = %world_dir.display(), "world loaded");
    let (handle, world_task) = world::spawn(world, store.clone(), options);
    Ok(Core {
        world: handle,
        world_task,
        store,
        directory,
        welcome,
        start_room,
    })
}

pub async fn start(config: Config) -> Result<RunningServer, StartError> {
    let db_name = config.db.display().to_string();
    let store = Store::open(
        &config.db,
        StoreOptions {
            sync: config.sync,
            busy_timeout: config.db_busy_timeout.into(),
        },
    )
    .map_err(|error| StartError::Store {
        path: db_name.clone(),
        error,
    })?;
    let shutdown = CancellationToken::new();
    let options = world::TaskOptions {
        engine: config.uci_engine.clone().map(|path| {
            Arc::new(crate::uci::UciEngine { path }) as Arc<dyn crate::games::ExternalEngine>
        }),
        agent_idle: config.idle_timeout(),
        give_up: Some(config.storage_give_up.into()),
        stop: shutdown.clone(),
        seed: config.seed,
        time_scale: config.time_scale,
        write_rate: (config.command_rate, config.command_burst),
        sessions_per_agent: config.sessions_per_agent,
    };
    let Core {
        world: handle,
        world_task,
        store,
        directory,
        welcome,
        start_room,
    } = open(&config.world, store, &db_name, options).await?;
    let (telnet_listener, telnet_addr) = bind(config.telnet).await?;
    let (http_listener, http_addr) = bind(config.http).await?;
    let api = Api {
        world: handle.clone(),
        store: store.clone(),
        directory: directory.clone(),
        start_room: start_room.clone(),
        wait: config.wait_timeout.into(),
        polls_per_agent: config.polls_per_agent,
        mcp_sessions_per_agent: config.mcp_sessions_per_agent,
        agents_by_address: Arc::new(crate::limits::Limiter::new(
            config.agent_rate / 60.0,
            config.agent_rate.ceil() as u32,
        )),
    };
    let bounds = http::listener::Bounds {
        max_connections: config.max_http_connections,
        header_timeout: config.http_header_timeout.into(),
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
    let router = http::router(api, http_addr, &shutdown);
    let http_task = tokio::spawn(async move {
        http::listener::serve(http_listener, router, bounds, stop).await;
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
