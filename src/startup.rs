//! Opening the town: load the world files, open the database, make sure the house's identities
//! exist, replay every stored session, and start the world task. The server and `moot mcp`
//! both begin here, and put their own faces on what it returns.

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::task::JoinHandle;

use crate::games;
use moot_kernel::identity::Directory;
use moot_kernel::store::{Store, StoreError};
use moot_kernel::world::sessions::ReplayError;
use moot_kernel::world::{self, WorldError};

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
    #[error(transparent)]
    Link(#[from] crate::cluster::nats::LinkError),
    #[error("`{0}` cannot name a game world: letters, digits, `-` and `_`, at most 64")]
    Name(String),
    #[error("a stored game does not replay, so the database and the game rules disagree: {0}")]
    Replay(#[from] ReplayError),
    #[error(
        "the world files are broken: {thing} in {room} is of kind `{kind}`, which no game or verb \
         knows (known: {known})"
    )]
    UnknownKind {
        room: String,
        thing: String,
        kind: String,
        known: String,
    },
}

/// Refuses a thing whose kind nothing knows (a misspelt table would otherwise stand there
/// offering nothing): a kind is scenery, the table of a template, or offered verbs by one.
fn check_kinds(map: &world::Map) -> Result<(), StartError> {
    let known = games::known_kinds();
    for room in &map.rooms {
        for t in &room.things {
            if !known.contains(&t.kind.name()) {
                return Err(StartError::UnknownKind {
                    room: room.id.clone(),
                    thing: t.id.clone(),
                    kind: t.kind.name().to_owned(),
                    known: known.join(", "),
                });
            }
        }
    }
    Ok(())
}

/// The town without any listener: the world task running on a store, the identity directory,
/// and what the faces need to know. Both the server and `moot mcp` start from this.
pub struct Core {
    pub world: world::WorldHandle,
    pub world_task: JoinHandle<Result<(), world::Broken>>,
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
    world_dir: Option<&std::path::Path>,
    store: Store,
    db_name: &str,
    options: world::TaskOptions,
    games: Option<&games::Flags>,
) -> Result<Core, StartError> {
    let map = world::load_town(world_dir)?;
    check_kinds(&map)?;
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
    for ban in store.bans().await.map_err(db_error)? {
        directory.ban(&ban.what);
    }
    for grant in store.live_tokens().await.map_err(db_error)? {
        directory.keep_grant(grant);
    }
    let stored = store.sessions().await.map_err(db_error)?;
    let (standings, seasons) = store.standings().await.map_err(db_error)?;
    let kept = store.kept().await.map_err(db_error)?;
    let built = store.built().await.map_err(db_error)?;
    let programs = store.programs().await.map_err(db_error)?;
    let town_props = store.town_props().await.map_err(db_error)?;
    let mut world = games::new_world(map, directory.clone());
    // What builders made, before anyone comes back to a room of theirs.
    world.restore_built(built);
    world.restore_programs(programs);
    world.restore_town_props(town_props);
    if let Some(seed) = options.seed {
        world.reproducible(seed);
    }
    if options.time_scale > 0.0 {
        world.scale_time(options.time_scale);
    }
    world.limit_writes(options.write_rate.0, options.write_rate.1);
    // A state read and an events read together, twice, before the rate applies.
    world.limit_reads(options.read_rate, 4);
    if let Some(games) = games {
        games.apply(&mut world);
    }
    world.limit_sessions(options.sessions_per_agent);
    world.limit_building(options.build_quota);
    world.limit_programs(options.programs);
    if let Some(lapse) = options.invitation_lapse {
        world.lapse_invitations_after(lapse);
    }
    world.consult_external_engine(options.engine.is_some());
    let restored = stored.len();
    world.restore_sessions(stored)?;
    world.restore_invitations(&kept);
    world.restore_begins(&kept);
    world.restore_tournaments(&kept);
    world.restore_ratings(moot_kernel::ratings::Ledger::from_stored(
        standings, seasons,
    ));
    games::open_town(&mut world, &kept);
    let welcome = format!("{}\n{}", world.map.name, world.map.welcome);
    let start_room = world.map.room(world.map.start).id.clone();
    tracing::info!(rooms = world.map.rooms.len(), sessions = restored, world = %world_dir.map_or("(built in)".into(), |d| d.display().to_string()), "world loaded");
    let (handle, world_task) = world::spawn(world, store.clone(), options, games::answer_line);
    Ok(Core {
        world: handle,
        world_task,
        store,
        directory,
        welcome,
        start_room,
    })
}

/// `moot ratings rebuild`: every rating and record computed anew from the action logs, in the
/// order the deciding actions were logged, compared with what is stored, and stored.
pub async fn rebuild_ratings(db: &moot_kernel::store::Database) -> Result<String, String> {
    let options = moot_kernel::store::StoreOptions {
        exclusive: true,
        ..Default::default()
    };
    let store = Store::open(db, options).map_err(|e| format!("{db}: {e}"))?;
    let stored = store.sessions().await.map_err(|e| e.to_string())?;
    let order: std::collections::HashMap<String, usize> = store
        .action_order()
        .await
        .map_err(|e| e.to_string())?
        .into_iter()
        .enumerate()
        .map(|(i, id)| (id, i))
        .collect();
    let owners = Directory::new(store.all_identities().await.map_err(|e| e.to_string())?);
    let mut decided =
        world::sessions::decisions(&games::templates(), &stored, |a| owners.owner_of(a))
            .map_err(|e| e.to_string())?;
    decided.sort_by_key(|(action, _)| order.get(action).copied().unwrap_or(usize::MAX));
    let games = decided.len();
    let mut ledger = moot_kernel::ratings::Ledger::default();
    let mut changes = Vec::with_capacity(games);
    for (action, d) in decided {
        let c = ledger.changes(&d);
        ledger.apply(&c);
        ledger.met(&d);
        changes.push((action, c));
    }
    let (standings, seasons) = store.standings().await.map_err(|e| e.to_string())?;
    let was = moot_kernel::ratings::Ledger::from_stored(standings, seasons);
    let differ = ledger.all().filter(|(k, s)| was.get(k) != Some(s)).count()
        + was.all().filter(|(k, _)| ledger.get(k).is_none()).count();
    let rows = ledger.all().count();
    store
        .replace_standings(changes)
        .await
        .map_err(|e| e.to_string())?;
    Ok(if differ == 0 {
        format!(
            "Rebuilt {rows} standings from {games} decided results: identical to what was stored."
        )
    } else {
        format!(
            "Rebuilt {rows} standings from {games} decided results: {differ} differed from what \
             was stored, and were replaced."
        )
    })
}
