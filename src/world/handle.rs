//! How the faces reach the world: a [`WorldHandle`] runs work on the world where it arrives if
//! the world is free (see [`super::task`] for why), and hands it to the world task if not.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use tokio::sync::{Notify, mpsc, oneshot};
use tokio::time::Instant;

use super::guard::guarded;
use super::outbox::Unavailable;
use super::task::{Env, Job, Request, Taken, Took, finish, take_line, timers_of};
use super::views;
use super::{AgentId, ConnId, Cx, Face, SERVER_ID, World};

/// How front ends reach the world. Cheap to clone.
#[derive(Clone)]
pub struct WorldHandle {
    pub(super) tx: mpsc::Sender<Request>,
    pub(super) core: Arc<Core>,
}

/// The world and what work on it needs, shared by the world task and every handle.
pub(super) struct Core {
    pub(super) world: Mutex<World>,
    pub(super) env: Env,
    /// Tells the world task that its timers may have moved (work done elsewhere set a
    /// deadline, or a hook that waits on time), or that the world is broken.
    pub(super) replan: Notify,
}

/// How many times a connection tries the world's lock, a moment apart, before it gives its
/// work to the world task: most work holds the world for a microsecond or two, so it is
/// usually free again within a few tries; while a `say` tells a crowd it is not, and a worker
/// that waited would leave its own connections unwritten meanwhile.
const TRIES: usize = 64;

/// A line typed where more than this many others stand goes to the world task (see
/// [`WorldHandle::line`]).
const CROWD: usize = 8;

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

impl WorldHandle {
    /// Queues a request; false if the world has stopped.
    pub async fn send(&self, r: Request) -> bool {
        self.tx.send(r).await.is_ok()
    }

    /// Runs a line typed by `agent` on connection `conn`: here and now if the world is free,
    /// or else on the world task. A line typed in a crowd goes to the task too: there one
    /// `say` after another is told to the crowd while its members' connections write, so
    /// each of them writes many lines at once; said here, each `say` woke them all for one
    /// line, and they wrote half as much with each write (a fifth more CPU a line for 500 in
    /// one room).
    /// A line run here runs at `typed`, the moment it was read; one sent to the task runs at
    /// the moment the task takes it.
    pub async fn line(&self, agent: &AgentId, conn: ConnId, line: String, typed: Instant) -> Taken {
        let here = self
            .here(|world, env| take_line(world, env, agent, conn, &line, Some((CROWD + 1, typed))))
            .unwrap_or(Took::Crowded);
        match here {
            Took::Answered { lines, after } => Taken::Answered { lines, after },
            Took::Later => Taken::Queued,
            Took::Crowded => {
                let agent = agent.clone();
                match self.send(Request::Line { agent, conn, line }).await {
                    true => Taken::Queued,
                    false => Taken::Stopped,
                }
            }
        }
    }

    /// Runs `f` on behalf of `agent`, delivers what it left for others, and returns its result
    /// once everything it changed is committed to the database. It runs here if the world is
    /// free, on the world task if not.
    pub async fn call<T, F>(&self, agent: AgentId, face: Face, f: F) -> Result<T, Unavailable>
    where
        T: Send + 'static,
        F: FnOnce(&mut World, &mut Cx) -> T + Send + 'static,
    {
        let work = move |world: &mut World, env: &Env| {
            let mut cx = Cx::new(agent, face);
            match guarded(world, &mut cx, f) {
                Ok(out) => Ok((out, finish(world, env, cx, None))),
                Err(_) => Err(Unavailable::Internal),
            }
        };
        let (out, released) = match self.here(work) {
            Ok(done) => done?,
            Err(work) => {
                let (tx, rx) = oneshot::channel();
                let job: Job = Box::new(move |world, env| {
                    let _ = tx.send(work(world, env));
                });
                if !self.send(Request::Call(job)).await {
                    return Err(Unavailable::Stopped);
                }
                rx.await.map_err(|_| Unavailable::Stopped)??
            }
        };
        if let Some(released) = released {
            released.await.map_err(|_| Unavailable::Stopped)??;
        }
        Ok(out)
    }

    /// Does `work` on the world here and now, if it is free (see [`Core::try_world`]), and
    /// tells the world task if that moved its timers; gives `work` back if the world is busy.
    fn here<W, T>(&self, work: W) -> Result<T, W>
    where
        W: FnOnce(&mut World, &Env) -> T,
    {
        let Some(mut world) = self.core.try_world() else {
            return Err(work);
        };
        let timers = timers_of(&world);
        let out = work(&mut world, &self.core.env);
        if timers_of(&world) != timers {
            self.core.replan.notify_one();
        }
        Ok(out)
    }

    /// The `who` table, for the login screen. It is answered like any command, so it waits
    /// behind whatever is not stored yet and never shows a walk the database has not taken.
    /// A table read on top of writes that failed showed what was undone: it is read again.
    pub async fn who(&self) -> Vec<String> {
        let mut failed = Unavailable::Stopped;
        for _ in 0..3 {
            let table = self.call(SERVER_ID.into(), Face::Telnet, |world, _| {
                views::who_table(world, Instant::now())
            });
            match table.await {
                Ok(table) => return table,
                Err(Unavailable::Stopped) => return Vec::new(),
                Err(e) => failed = e,
            }
        }
        vec![format!("*** {failed}. ***")]
    }
}
