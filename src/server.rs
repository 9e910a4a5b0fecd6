//! Starting and stopping moot: load the world, open the database, start the world task and the
//! listeners; on shutdown, close the listeners, let connections say goodbye, stop the world and
//! commit what is queued.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::cluster::{Door, Town};
use crate::config::Config;
use crate::http::{self, Api};
use crate::logins::Logins;
pub use crate::startup::StartError;
use crate::startup::{Core, open};
use crate::telnet::{self, Shared};
use moot_kernel::store::{Store, StoreOptions};
use moot_kernel::world;

/// A running server. Dropping it leaves the server running; call [`RunningServer::shutdown`].
pub struct RunningServer {
    /// Where the telnet listener actually is (useful when configured with port 0).
    pub telnet_addr: SocketAddr,
    /// Where the HTTP listener actually is.
    pub http_addr: SocketAddr,
    pub running: Running,
    /// The town itself, for the tests that look at it behind the faces' backs (weak: the
    /// world task still ends once the faces let go).
    #[cfg(feature = "testing")]
    pub world: world::WeakWorldHandle,
}

impl RunningServer {
    /// See [`Running::stopped`].
    pub async fn stopped(&self) {
        self.running.stopped().await
    }

    /// See [`Running::asked_to_stop`].
    pub fn asked_to_stop(&self) -> bool {
        self.running.asked_to_stop()
    }

    /// See [`Running::failed`].
    pub fn failed(&self) -> bool {
        self.running.failed()
    }

    /// See [`Running::shutdown`].
    pub async fn shutdown(self) {
        self.running.shutdown().await
    }
}

/// A running moot of any kind (one process, a world, a host), for whoever stops it.
pub struct Running {
    shutdown: CancellationToken,
    /// Cancelled by a wizard's `@shutdown`.
    asked_to_stop: CancellationToken,
    /// Cancelled if the world task ended when nobody asked it to (see [`Running::failed`]).
    world_failed: CancellationToken,
    done: JoinHandle<()>,
}

impl Running {
    /// Resolves when moot stops on its own: a wizard's `@shutdown`, or the database refused
    /// every write for too long.
    pub async fn stopped(&self) {
        self.shutdown.cancelled().await
    }

    /// Whether it stopped because a wizard asked (a clean stop, not a failure).
    pub fn asked_to_stop(&self) -> bool {
        self.asked_to_stop.is_cancelled() && !self.failed()
    }

    /// Whether the world task ended on its own (a bug it could not undo): moot cannot serve
    /// anyone any more, and must stop with a failure so that its supervisor restarts it. A
    /// process that kept its listeners open with no world behind them would answer nothing,
    /// for ever, and look alive to a supervisor.
    pub fn failed(&self) -> bool {
        self.world_failed.is_cancelled()
    }

    /// Stops accepting, disconnects everyone politely, and returns once everything queued for
    /// the database is committed.
    pub async fn shutdown(self) {
        self.shutdown.cancel();
        let _ = self.done.await;
    }
}

/// How many connections the kernel holds for moot while it is busy, before accepting them.
/// A listener made the usual way holds 128, fewer than a town's crowd reconnecting at once
/// after a restart: past that the kernel drops their handshakes, and they wait a second for
/// a retry, or meet a reset. (The kernel caps it at `net.core.somaxconn`.)
const BACKLOG: u32 = 1024;

async fn bind(addr: SocketAddr) -> Result<(TcpListener, SocketAddr), StartError> {
    let error = |error| StartError::Bind { addr, error };
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()
    } else {
        tokio::net::TcpSocket::new_v6()
    }
    .map_err(error)?;
    // As a listener bound the usual way: a restart may bind while the old connections linger.
    socket.set_reuseaddr(true).map_err(error)?;
    socket.bind(addr).map_err(error)?;
    let listener = socket.listen(BACKLOG).map_err(error)?;
    let local = listener.local_addr().map_err(error)?;
    Ok((listener, local))
}

/// What stops a town: moot's own stop, a wizard's `@shutdown`, and the world task ending
/// on a bug.
struct Stops {
    shutdown: CancellationToken,
    asked_to_stop: CancellationToken,
    world_failed: CancellationToken,
}

impl Stops {
    fn new() -> Stops {
        let stops = Stops {
            shutdown: CancellationToken::new(),
            asked_to_stop: CancellationToken::new(),
            world_failed: CancellationToken::new(),
        };
        let (asked, shutdown) = (stops.asked_to_stop.clone(), stops.shutdown.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = asked.cancelled() => {
                    tracing::info!(target: moot_kernel::logging::AUDIT, event = "shutdown", "a wizard shut moot down");
                    shutdown.cancel();
                }
                _ = shutdown.cancelled() => {}
            }
        });
        stops
    }

    fn running(self, done: JoinHandle<()>) -> Running {
        Running {
            shutdown: self.shutdown,
            asked_to_stop: self.asked_to_stop,
            world_failed: self.world_failed,
            done,
        }
    }
}

/// Opens the town in `config` (its database, its world task) behind its front door, with the
/// login checks every face shares, so that guesses through any face count against the same
/// limits; and the login screen's text.
async fn open_town(
    config: &Config,
    stops: &Stops,
) -> Result<(Door, JoinHandle<Result<(), world::Broken>>, String), StartError> {
    let db_name = config.db.to_string();
    let store = Store::open(
        &config.db,
        StoreOptions {
            sync: config.sync,
            busy_timeout: config.db_busy_timeout.into(),
            exclusive: true,
            ..Default::default()
        },
    )
    .map_err(|error| StartError::Store {
        path: db_name.clone(),
        error,
    })?;
    // Verbs typed for sessions placed on game worlds, on their way there (a town's).
    let (hand, handed) = tokio::sync::mpsc::channel(crate::cluster::games::HANDED_AT_ONCE);
    let options = world::TaskOptions {
        hand: Some(hand),
        engine: config.games.engine(),
        agent_idle: config.agent_idle_timeout(),
        give_up: Some(config.storage_give_up.into()),
        stop: stops.shutdown.clone(),
        asked_to_stop: stops.asked_to_stop.clone(),
        seed: config.seed,
        time_scale: config.time_scale,
        write_rate: (config.command_rate, config.command_burst),
        read_rate: config.read_rate,
        sessions_per_agent: config.sessions_per_agent,
        invitation_lapse: Some(config.invitation_lapse.into()),
        build_quota: world::build::Quota {
            objects: config.builder_objects,
            text_bytes: config.builder_text,
        },
        programs: world::programs::ProgramLimits {
            sandbox: moot_kernel::sandbox::Limits {
                operations: config.verb_ops,
                time: config.verb_time.into(),
                memory: config.verb_memory,
            },
            rate: config.verb_rate,
            burst: config.verb_burst,
        },
    };
    let Core {
        world,
        world_task,
        store,
        directory,
        welcome,
        start_room,
    } = open(
        config.world.as_deref(),
        store,
        &db_name,
        options,
        Some(&config.games),
    )
    .await?;
    let door = Door {
        world,
        store,
        directory,
        logins: Arc::new(Logins::new(
            config.login_rate,
            config.login_fail_delay.into(),
        )),
        start_room,
        owner_window: config.owner_window.into(),
        metrics_token: metrics_token(config),
        agents_by_address: Arc::new(moot_kernel::limits::Limiter::new(
            config.agent_rate / 60.0,
            config.agent_rate.ceil() as u32,
        )),
        visits: Arc::default(),
        game_worlds: Arc::new(crate::cluster::game_worlds::GameWorlds::handing(handed)),
    };
    Ok((door, world_task, welcome))
}

/// What the MCP endpoint reads of the town behind `door`, and its settings.
fn api(config: &Config, door: &Door) -> Api {
    Api::new(crate::http::ApiState {
        world: door.world.clone(),
        store: door.store.clone(),
        directory: door.directory.clone(),
        wait: config.wait_timeout.into(),
        polls_per_agent: config.polls_per_agent,
        mcp_sessions_per_agent: config.mcp_sessions_per_agent,
        public_url: config.public_url.as_deref().map(Arc::from),
    })
}

/// The HTTP faces (the REST API, MCP, the web) of a one-process moot, for a listener bound to
/// `bound` (MCP's gate accepts that address as a `Host`).
fn http_faces(
    config: &Config,
    door: &Door,
    shutdown: &CancellationToken,
    (bound, telnet): (SocketAddr, SocketAddr),
) -> axum::Router {
    let town = Arc::new(Town::Local(door.clone()));
    let calls = http::Calls::new(town.clone(), config.public_url.as_deref().map(Arc::from));
    let api = api(config, door);
    let mut web = crate::web::Web::new(town, config.public_url.clone(), shutdown.clone());
    web.telnet = Some(telnet);
    let mcp = http::McpShared::new(&api);
    http::router(api, calls, bound, shutdown, crate::web::router(web), &mcp)
}

/// Says, once moot listens, where a person opens it: the telnet address, the web page and
/// MCP's URL (the public URL's where there is one).
fn say_where(telnet: SocketAddr, http: SocketAddr, public_url: Option<&str>) {
    let web = public_url.map_or_else(
        || format!("http://{http}"),
        |u| u.trim_end_matches('/').to_owned(),
    );
    tracing::info!(
        "moot is open: telnet {} {}, the web at {web}/, MCP at {web}/mcp, agents read {web}/skill.md",
        telnet.ip(),
        telnet.port()
    );
}

/// The token `/metrics` asks for, if it is served. An empty one (`MOOT_METRICS_TOKEN=`, a
/// blank line in a unit file) would be a token anyone has: it means off, and says so.
fn metrics_token(config: &Config) -> Option<Arc<str>> {
    let token = config.metrics_token.as_deref()?;
    if token.trim().is_empty() {
        tracing::warn!("the metrics token is empty, so /metrics stays off");
        return None;
    }
    Some(Arc::from(token))
}

fn http_bounds(config: &Config) -> http::listener::Bounds {
    http::listener::Bounds {
        max_connections: config.max_http_connections,
        per_address: config.max_http_connections_per_address,
        header_timeout: config.http_header_timeout.into(),
    }
}

/// Watches the world task: if it ends unasked, moot stops with a failure.
fn watch_world(world_task: JoinHandle<Result<(), world::Broken>>, stops: &Stops) -> JoinHandle<()> {
    let (shutdown, failed) = (stops.shutdown.clone(), stops.world_failed.clone());
    tokio::spawn(async move {
        let ended = world_task.await;
        if !matches!(ended, Ok(Ok(()))) || !shutdown.is_cancelled() {
            tracing::error!(
                "the world task has ended unasked; moot stops, so that its supervisor \
                 restarts it and the restart replays the database"
            );
            failed.cancel();
            shutdown.cancel();
        }
    })
}

/// Makes here what a world process left waiting for its game worlds (the sessions it began
/// itself, answered and stored, not yet made on one): one process has none to make them, and
/// none is lost. The record of where each was to go is forgotten with it.
async fn begin_left_waiting(door: &crate::cluster::Door) {
    let server = || moot_kernel::world::AgentId::from(moot_kernel::world::SERVER_ID);
    let waiting = door
        .world
        .call(server(), world::Face::Rest, |w, _| w.begins_waiting())
        .await
        .unwrap_or_default();
    for begin in waiting {
        let id = moot_kernel::world::sessions::SessionId::from(begin.id);
        let maker = moot_kernel::world::AgentId::from(begin.maker.as_str());
        let made = door
            .world
            .call(maker, world::Face::Rest, move |w, cx| w.begin_here(cx, id))
            .await;
        match made {
            Ok(()) => crate::cluster::games::forget_placed(door, id).await,
            Err(e) => {
                tracing::warn!(error = %e, session = begin.id, "cannot begin a session left waiting")
            }
        }
    }
}

/// One process: the town, and every face listening.
pub async fn start(config: Config) -> Result<RunningServer, StartError> {
    let stops = Stops::new();
    let (door, world_task, welcome) = open_town(&config, &stops).await?;
    begin_left_waiting(&door).await;
    let store = door.store.clone();
    #[cfg(feature = "testing")]
    let town = door.world.downgrade();
    let (telnet_listener, telnet_addr) = bind(config.telnet).await?;
    let (http_listener, http_addr) = bind(config.http).await?;
    let router = http_faces(&config, &door, &stops.shutdown, (http_addr, telnet_addr));
    let bounds = http_bounds(&config);
    let shutdown = stops.shutdown.clone();
    let shared = Arc::new(Shared::new(
        config,
        Arc::new(Town::Local(door)),
        welcome,
        shutdown.clone(),
    ));
    tracing::info!(%telnet_addr, %http_addr, "listening");
    say_where(telnet_addr, http_addr, shared.config.public_url.as_deref());
    let http_task = tokio::spawn(async move {
        http::listener::serve(http_listener, router, bounds, shutdown).await;
    });
    let world_ended = watch_world(world_task, &stops);
    let done = tokio::spawn(async move {
        telnet::serve(telnet_listener, shared).await;
        let _ = http_task.await;
        // Every connection is gone, and with the last handle the world task ends.
        let _ = world_ended.await;
        store.close().await;
        tracing::info!("stopped");
    });
    Ok(RunningServer {
        telnet_addr,
        http_addr,
        running: stops.running(done),
        #[cfg(feature = "testing")]
        world: town,
    })
}

/// `moot world --nats URL`: the town and its database, serving hosts across the broker and
/// listening on no socket of its own; through a broker that lets anyone in only if `broker`
/// says it is private.
pub async fn start_world(
    config: Config,
    nats: &str,
    broker: crate::cluster::nats::Broker,
) -> Result<Running, StartError> {
    let stops = Stops::new();
    let client = crate::cluster::nats::connect_world(
        nats,
        broker,
        "moot world",
        &crate::cluster::wire::world_inbox(),
    )
    .await?;
    let (door, world_task, welcome) = open_town(&config, &stops).await?;
    let store = door.store.clone();
    let door = Arc::new(door);
    // Hosts' MCP tool calls are answered by the MCP endpoint's own server, as here.
    let tools = http::McpShared::new(&api(&config, &door)).tools();
    // Hosts are answered from the moment this returns, and game worlds' beats too.
    let listening = crate::cluster::broker::listen(&client).await?;
    let game_beats = client
        .subscribe(crate::cluster::wire::game_beats())
        .await
        .map_err(|e| crate::cluster::nats::LinkError::Subscribe(e.to_string()))?;
    // Where the sessions placed on game worlds are, as stored.
    let kept = door.store.kept().await.map_err(|error| StartError::Store {
        path: config.db.to_string(),
        error,
    })?;
    door.game_worlds.link(client.clone(), &kept);
    // The town numbers every session, those it placed on game worlds included, and hands over
    // what would begin or play one of those.
    let placed = door.game_worlds.all_placed();
    let _ = door
        .world
        .call(
            moot_kernel::world::SERVER_ID.into(),
            world::Face::Rest,
            move |w, _| placed.into_iter().for_each(|id| w.place(id)),
        )
        .await;
    let told = client
        .subscribe(crate::cluster::wire::games_told())
        .await
        .map_err(|e| crate::cluster::nats::LinkError::Subscribe(e.to_string()))?;
    // These hold the door: they end with the town, so that the world task may.
    tokio::spawn(crate::cluster::games::hand_over(
        door.clone(),
        stops.shutdown.clone(),
    ));
    tokio::spawn(crate::cluster::seated::begin_seated(
        door.clone(),
        stops.shutdown.clone(),
    ));
    tokio::spawn(crate::cluster::games::follow(
        told,
        door.clone(),
        stops.shutdown.clone(),
    ));
    tokio::spawn(crate::cluster::games::hear(
        client.clone(),
        game_beats,
        door.clone(),
        stops.shutdown.clone(),
    ));
    let serving = tokio::spawn(crate::cluster::broker::serve(
        client,
        listening,
        door,
        welcome,
        tools,
        stops.shutdown.clone(),
    ));
    let world_ended = watch_world(world_task, &stops);
    let shutdown = stops.shutdown.clone();
    let done = tokio::spawn(async move {
        match serving.await {
            Ok(Err(e)) => tracing::error!(error = %e, "cannot serve hosts"),
            Err(e) => tracing::error!(error = %e, "serving hosts ended on a bug"),
            Ok(Ok(())) => {}
        }
        // Whatever else holds the door (the copies of the game worlds' sessions) lets go.
        shutdown.cancel();
        // With the door gone, the last handle goes and the world task ends.
        let _ = world_ended.await;
        store.close().await;
        tracing::info!("stopped");
    });
    Ok(stops.running(done))
}

/// `moot games --nats URL --name NAME`: a game world, its own database and world task, telling
/// the town across the broker that it is alive and how many sessions it runs; it stops with a
/// failure if the town refuses it (another process alive under its name).
pub async fn start_games(
    config: Config,
    nats: &str,
    name: &str,
    broker: crate::cluster::nats::Broker,
) -> Result<Running, StartError> {
    if !crate::cluster::wire::host_name_ok(name) {
        return Err(StartError::Name(name.to_owned()));
    }
    let stops = Stops::new();
    let client = crate::cluster::nats::connect_world(
        nats,
        broker,
        &format!("moot games {name}"),
        &crate::cluster::wire::games_inbox(name),
    )
    .await?;
    let (door, world_task, _) = open_town(&config, &stops).await?;
    let store = door.store.clone();
    let door = Arc::new(door);
    // This run of it: the town hands its calls to the run it holds alive under the name, from
    // the moment it hears it.
    let run = rand::random::<u64>();
    let calls = client
        .subscribe(crate::cluster::wire::game_calls(name, run))
        .await
        .map_err(|e| crate::cluster::nats::LinkError::Subscribe(e.to_string()))?;
    let cancels = client
        .subscribe(crate::cluster::wire::game_cancels(name, run))
        .await
        .map_err(|e| crate::cluster::nats::LinkError::Subscribe(e.to_string()))?;
    let since = client
        .subscribe(crate::cluster::wire::game_since(name, run))
        .await
        .map_err(|e| crate::cluster::nats::LinkError::Subscribe(e.to_string()))?;
    client
        .flush()
        .await
        .map_err(|e| crate::cluster::nats::LinkError::Subscribe(e.to_string()))?;
    // Tool calls are answered by the MCP endpoint's own server, as the town's are.
    let tools = http::McpShared::new(&api(&config, &door)).tools();
    let serving = tokio::spawn(crate::cluster::games::serve_calls(
        client.clone(),
        calls,
        cancels,
        door.clone(),
        tools,
        stops.shutdown.clone(),
    ));
    // The town's copies of this world's sessions: each action told once stored, and what
    // the town missed told again when it asks.
    tokio::spawn(crate::cluster::games::answer_since(
        client.clone(),
        since,
        door.world.clone(),
        stops.shutdown.clone(),
    ));
    // How many messages it has told the town, which its beats say.
    let told = Arc::new(std::sync::atomic::AtomicU64::new(0));
    tokio::spawn(crate::cluster::games::tell(
        client.clone(),
        name.to_owned(),
        run,
        door.world.clone(),
        told.clone(),
        stops.shutdown.clone(),
    ));
    let beating = tokio::spawn(crate::cluster::games::beat(
        client,
        name.to_owned(),
        run,
        door.world.clone(),
        told,
        stops.shutdown.clone(),
    ));
    let (shutdown, failed) = (stops.shutdown.clone(), stops.world_failed.clone());
    let world_ended = watch_world(world_task, &stops);
    tracing::info!(%name, "a game world, beating for the town");
    let done = tokio::spawn(async move {
        if let Ok(Err(why)) = beating.await {
            tracing::error!(%why, "this game world stops");
            eprintln!("moot: {why}");
            failed.cancel();
            shutdown.cancel();
        }
        let _ = serving.await;
        // With the door gone, the last handle goes and the world task ends.
        drop(door);
        let _ = world_ended.await;
        store.close().await;
        tracing::info!("stopped");
    });
    Ok(stops.running(done))
}

/// `moot host --nats URL`: the faces, holding their connections (telnet, the REST API, MCP and
/// the web, each asking the world typed questions), for the world across the broker, named
/// `name` there (random without one); it opens no database.
pub async fn start_host(
    config: Config,
    nats: &str,
    name: Option<&str>,
) -> Result<RunningHost, StartError> {
    let stops = Stops::new();
    let (telnet_listener, telnet_addr) = bind(config.telnet).await?;
    let (http_listener, http_addr) = bind(config.http).await?;
    let wait = config.world_wait.into();
    let (remote, welcome) =
        crate::cluster::host::Remote::open(nats, name, Some(http_addr), wait).await?;
    let bounds = http_bounds(&config);
    let town = Arc::new(Town::Remote(Box::new(remote)));
    let calls = http::Calls::new(town.clone(), config.public_url.as_deref().map(Arc::from));
    let shared = Arc::new(Shared::new(
        config,
        town.clone(),
        welcome.welcome,
        stops.shutdown.clone(),
    ));
    // Every route served here, by typed calls on the town: the REST API's, MCP's (whose
    // sessions of the 2025 revision are this host's) and the web's.
    let mcp = http::McpShared::on_host(town.clone(), shared.config.mcp_sessions_per_agent);
    let mut web = crate::web::Web::new(
        town,
        shared.config.public_url.clone(),
        stops.shutdown.clone(),
    );
    web.telnet = Some(telnet_addr);
    let router = http::calls_router(calls.clone())
        .merge(http::mcp_router(&calls, http_addr, &stops.shutdown, &mcp))
        .merge(crate::web::router(web))
        .fallback(|| async {
            crate::http::ApiError::new(
                moot_kernel::world::sessions::ErrorCode::NotFound,
                "No such path; see /openapi.json",
            )
        });
    let router = http::guarded(router);
    tracing::info!(%telnet_addr, %http_addr, "listening");
    say_where(telnet_addr, http_addr, shared.config.public_url.as_deref());
    let stop = stops.shutdown.clone();
    let http_task = tokio::spawn(async move {
        http::listener::serve(http_listener, router, bounds, stop).await;
    });
    let done = tokio::spawn(async move {
        telnet::serve(telnet_listener, shared).await;
        let _ = http_task.await;
        tracing::info!("stopped");
    });
    Ok(RunningHost {
        telnet_addr,
        http_addr,
        running: stops.running(done),
    })
}

/// A running host: where its listeners are, and how to stop it.
pub struct RunningHost {
    pub telnet_addr: SocketAddr,
    pub http_addr: SocketAddr,
    pub running: Running,
}
