//! The world, and the lock that makes one place of it where [`World`] is changed: what the
//! world task and every handle share ([`Core`]), what work on the world gets besides it
//! ([`Env`]), and the requests the task takes from its queue.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;

use super::{AgentId, ConnId, Cx, Leaving, Sink, World};
use crate::game_api::ExternalEngine;
use crate::store::{AgentRow, Store, StoreError};

pub enum Request {
    /// A connection has logged in as `row` (just created, or an existing character); `again`:
    /// it is coming back after its host lost the world, and gives way to a newer connection of
    /// the same character rather than displace it.
    Enter {
        row: AgentRow,
        created: bool,
        conn: ConnId,
        sink: Sink,
        again: bool,
    },
    /// A command line typed by a logged-in player, that could not run where it was typed
    /// (see [`WorldHandle::line`]).
    Line {
        agent: AgentId,
        conn: ConnId,
        line: String,
    },
    /// A connection ends.
    Leave {
        agent: AgentId,
        conn: ConnId,
        why: Leaving,
    },
    /// Work for the world from another face (see [`WorldHandle::call`]).
    Call(Job),
    /// Requests that came together (a host's connections, a turn's worth): done in one turn
    /// of the world, in order.
    Batch(Vec<Request>),
}

/// What a connection coming back hears when its character has connected again elsewhere
/// meanwhile: the newer connection stays.
pub const ELSEWHERE: &str =
    "*** You have connected again elsewhere; this connection is closed. ***";

/// What became of a line typed on a connection.
pub enum Taken {
    /// It ran, and this is its answer: to be written once the connection has taken `after`
    /// things off its queue in all (what the world sent it before the answer; see
    /// [`Source::taken`](super::Source::taken)), and followed by what the command told its
    /// typist, up to `then` in all: the command's output, all of it between the
    /// connection's `PREFIX` and `SUFFIX`.
    Answered {
        lines: Vec<String>,
        after: u64,
        then: u64,
    },
    /// Its answer will come through the connection's queue.
    Queued,
    /// The town has stopped.
    Stopped,
}

/// A closure run on the world task with the world and its surroundings.
pub type Job = Box<dyn FnOnce(&mut World, &Env) + Send>;

/// What the world task works with besides the world: the store, and a way back to itself for
/// work that finishes later (the computer's moves).
pub struct Env {
    pub store: Arc<Store>,
    pub(super) me: mpsc::WeakSender<Request>,
    pub(super) core: std::sync::Weak<Core>,
    /// The database's answers to the world's writes: (sequence number, outcome).
    pub(super) commits: mpsc::UnboundedSender<(u64, Result<(), StoreError>)>,
    pub(super) options: TaskOptions,
    pub(super) commands: Commands,
}

/// What runs a line a person typed, and gives the lines of its answer (the verbs, which live
/// above the world and are handed in).
pub type Commands = fn(&mut World, &mut Cx, &str) -> Vec<String>;

/// How the world task behaves.
#[derive(Clone, Default)]
pub struct TaskOptions {
    /// The external engine the computer may consult, if a game's flags named one.
    pub engine: Option<Arc<dyn ExternalEngine>>,
    /// How long an agent without a connection may be silent before it leaves the town.
    pub agent_idle: Option<std::time::Duration>,
    /// How long every write may keep failing before moot gives up and stops.
    pub give_up: Option<std::time::Duration>,
    /// Cancelled when moot must stop (the database cannot be written any more).
    pub stop: CancellationToken,
    /// Cancelled when a wizard shuts moot down (`@shutdown`): a stop that is no failure.
    pub asked_to_stop: CancellationToken,
    /// The operator's reproducible seed (`--seed`), if any.
    pub seed: Option<u64>,
    /// How much faster than the wall clock game timers run (`--time-scale`; 0 means 1).
    pub time_scale: f64,
    /// Changes per second each identity may make, and the burst (a rate of 0: no limit).
    pub write_rate: (f64, u32),
    /// Reads of a game's state per second each identity may make (0: no limit).
    pub read_rate: f64,
    /// Running sessions one identity may take part in when it starts another (0: no limit).
    pub sessions_per_agent: usize,
    /// How long an invitation to a game waits for its answers (`None`: ten minutes).
    pub invitation_lapse: Option<std::time::Duration>,
    /// How much one builder may own.
    pub build_quota: super::build::Quota,
    /// How far programmed verbs may go.
    pub programs: super::programs::ProgramLimits,
    /// Where verbs typed for sessions played on game worlds go (a town with game worlds);
    /// bounded, so that typing cannot pile them up.
    pub hand: Option<tokio::sync::mpsc::Sender<super::Handed>>,
}

/// The world and what work on it needs, shared by the world task and every handle.
pub(super) struct Core {
    pub(super) world: Mutex<World>,
    pub(super) env: Env,
    /// Tells the world task that its timers may have moved (work done elsewhere set a
    /// deadline, or a hook that waits on time), or that the world is broken.
    pub(super) replan: Notify,
    /// Requests sent to the world task and not yet done: work that must keep its place after
    /// them runs here only while there are none (see [`WorldHandle::batch`]).
    pub(super) queued: std::sync::atomic::AtomicUsize,
}

/// How many times a connection tries the world's lock, a moment apart, before it gives its
/// work to the world task: most work holds the world for a microsecond or two, so it is
/// usually free again within a few tries; while a `say` tells a crowd it is not, and a worker
/// that waited would leave its own connections unwritten meanwhile.
const TRIES: usize = 64;

impl Core {
    /// The world, if it is free now or within [`TRIES`].
    pub(super) fn try_world(&self) -> Option<Held<'_>> {
        for _ in 0..TRIES {
            match self.world.try_lock() {
                Ok(world) => return Some(self.held(world)),
                Err(TryLockError::WouldBlock) => std::hint::spin_loop(),
                // The world task ends, and moot with it (see `Core::world`).
                Err(TryLockError::Poisoned(_)) => return None,
            }
        }
        None
    }

    /// The world, for a piece of the world task's work. Work that panics is caught inside it
    /// and undone (see [`guarded`]); a panic that got through the lock poisoned it, having
    /// left the world half changed (putting it back failed too), and then there is no world:
    /// the world task ends, and moot stops with a failure, for its supervisor to restart it
    /// and replay the database.
    pub(super) fn world(&self) -> Option<Held<'_>> {
        match self.world.lock() {
            Ok(world) => Some(self.held(world)),
            Err(poisoned) => {
                // What waits on the world hears that it has stopped: callers waiting for their
                // writes (their senders go with the outbox), and connections (with the sinks).
                let mut world = poisoned.into_inner();
                drop(std::mem::take(&mut world.outbox));
                world.players.clear();
                None
            }
        }
    }

    fn held<'a>(&'a self, world: MutexGuard<'a, World>) -> Held<'a> {
        Held {
            world,
            _watch: Watch(&self.replan),
        }
    }
}

/// The world, while one piece of work holds it.
pub(super) struct Held<'a> {
    /// Dropped after the lock is let go (and poisoned, if the work panicked).
    world: MutexGuard<'a, World>,
    _watch: Watch<'a>,
}

impl std::ops::Deref for Held<'_> {
    type Target = World;
    fn deref(&self) -> &World {
        &self.world
    }
}

impl std::ops::DerefMut for Held<'_> {
    fn deref_mut(&mut self) -> &mut World {
        &mut self.world
    }
}

/// Wakes the world task, to find the lock poisoned and end, if the work that holds the world
/// panics (see [`Core::world`]).
struct Watch<'a>(&'a Notify);

impl Drop for Watch<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            tracing::error!("a panic left the world half changed; the world task ends");
            self.0.notify_one();
        }
    }
}

/// Requests queued for the world before senders are made to wait.
pub(super) const QUEUE: usize = 16 * 1024;
