//! The world task, and the lock that makes one place of it where [`World`] is changed. Front
//! ends talk to it through a [`WorldHandle`]; it answers through each connection's [`Sink`].
//!
//! Work that arrives (a line typed on a connection in this process, a call from another face)
//! runs where it arrived, under the world's lock, if the world is free; a line that may be
//! answered at once (it wrote nothing and nothing is in flight) has its answer handed straight
//! back to its connection. Passing each line to the task and its answer back again cost two
//! wake-ups of another thread a command, as much as the command itself. The task does the
//! rest: the database's answers, deadlines, work that found the world busy, lines typed in a
//! crowd (see [`WorldHandle::line`]) and whatever another process sends. Whoever does it, the
//! lock gives the world's work one order, and the outbox keeps what it left until it is
//! stored.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::guard::guarded;
pub use super::lock::{Commands, ELSEWHERE, Env, Job, Request, Taken, TaskOptions};
use super::lock::{Core, QUEUE};
use super::outage::Failing;
use super::outbox::{Answer, Pending, Pushed, Released, Unavailable};
use super::views;
use super::{AgentId, COMPUTER_ID, ConnId, Cx, Effect, Face, Out, SERVER_ID, Sink, World};
use crate::game_api::Mind;
use crate::store::{AgentRow, Store, StoreError, writes};

/// How front ends reach the world. Cheap to clone.
#[derive(Clone)]
pub struct WorldHandle {
    tx: mpsc::Sender<Request>,
    core: Arc<Core>,
}

/// A [`WorldHandle`] that does not keep the world task running, as a handle does: for the tests
/// that look at a running server's town, which must still stop when its faces let go.
#[cfg(feature = "testing")]
#[derive(Clone)]
pub struct WeakWorldHandle {
    tx: mpsc::WeakSender<Request>,
    core: std::sync::Weak<Core>,
}

#[cfg(feature = "testing")]
impl WeakWorldHandle {
    /// The handle, while the world task runs.
    pub fn upgrade(&self) -> Option<WorldHandle> {
        Some(WorldHandle {
            tx: self.tx.upgrade()?,
            core: self.core.upgrade()?,
        })
    }
}

#[cfg(feature = "testing")]
impl WorldHandle {
    pub fn downgrade(&self) -> WeakWorldHandle {
        WeakWorldHandle {
            tx: self.tx.downgrade(),
            core: Arc::downgrade(&self.core),
        }
    }
}

/// A line typed where more than this many others stand goes to the world task (see
/// [`WorldHandle::line`]).
const CROWD: usize = 8;

impl WorldHandle {
    /// Queues a request; false if the world has stopped.
    pub async fn send(&self, r: Request) -> bool {
        /// Counts a request in until it is in the queue; one never put there (the world has
        /// stopped, or the sending was dropped while the queue was full) is counted out.
        struct Counted<'a>(&'a Core, bool);
        impl Drop for Counted<'_> {
            fn drop(&mut self) {
                if !self.1 {
                    self.0.queued.fetch_sub(1, Ordering::AcqRel);
                }
            }
        }
        self.core.queued.fetch_add(1, Ordering::AcqRel);
        let mut counted = Counted(&self.core, false);
        counted.1 = self.tx.send(r).await.is_ok();
        counted.1
    }

    /// Does `requests` in order, in one turn of the world: here and now if the world is free
    /// and nothing sent to its task waits (so that they keep their place after whatever this
    /// caller sent before), or else on the world task. False if the world has stopped.
    /// Another process's connections come in batches: done here, each saves the world task
    /// its wake-up.
    pub async fn batch(&self, requests: Vec<Request>) -> bool {
        {
            // Read under the lock: the task counts a request done while it holds it.
            let world = self
                .core
                .try_world()
                .filter(|_| self.core.queued.load(Ordering::Acquire) == 0);
            if let Some(mut world) = world {
                let timers = timers_of(&world);
                for req in requests {
                    handle(&mut world, &self.core.env, req);
                }
                if timers_of(&world) != timers {
                    self.core.replan.notify_one();
                }
                return true;
            }
        }
        self.send(Request::Batch(requests)).await
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
            Took::Answered { lines, after, then } => Taken::Answered { lines, after, then },
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

    /// Resolves once every request queued before it has run and what they changed is stored
    /// and told (a stopping process's last word goes after theirs). Unlike [`Self::call`], it
    /// never runs ahead of the queue.
    pub async fn drained(&self) -> Result<(), Unavailable> {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |world, env| {
            let cx = Cx::new(SERVER_ID.into(), Face::Rest);
            let _ = tx.send(finish(world, env, cx, None));
        });
        if !self.send(Request::Call(job)).await {
            return Err(Unavailable::Stopped);
        }
        if let Some(released) = rx.await.map_err(|_| Unavailable::Stopped)? {
            released.await.map_err(|_| Unavailable::Stopped)??;
        }
        Ok(())
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
                views::who_table(world, Instant::now(), false)
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

/// The world task ended because a panic left the world half changed (see [`Core::world`]).
#[derive(Debug)]
pub struct Broken;

/// Starts the world task. It runs until every [`WorldHandle`] is dropped and what was in
/// flight has finished, or until the world breaks.
pub fn spawn(
    world: World,
    store: Arc<Store>,
    options: TaskOptions,
    commands: Commands,
) -> (WorldHandle, JoinHandle<Result<(), Broken>>) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let (commits, answers) = mpsc::unbounded_channel();
    let core = Arc::new_cyclic(|core| Core {
        world: std::sync::Mutex::new(world),
        env: Env {
            store,
            me: tx.downgrade(),
            core: core.clone(),
            commits,
            options,
            commands,
        },
        replan: Notify::new(),
        queued: std::sync::atomic::AtomicUsize::new(0),
    });
    let task = tokio::spawn(run(core.clone(), rx, answers));
    (WorldHandle { tx, core }, task)
}

type Answers = mpsc::UnboundedReceiver<(u64, Result<(), StoreError>)>;

async fn run(
    core: Arc<Core>,
    mut rx: mpsc::Receiver<Request>,
    mut answers: Answers,
) -> Result<(), Broken> {
    let env = &core.env;
    // The world for one piece of work, or the end of the task (see `Core::world`).
    macro_rules! world {
        () => {
            match core.world() {
                Some(world) => world,
                None => return Err(Broken),
            }
        };
    }
    {
        let mut world = world!();
        // Games restored from the database resume: the computer thinks where it is to move, and
        // deadlines are queued (those that fell due while moot was down are taken at once).
        for sid in world.session_ids() {
            job(&mut world, env, COMPUTER_ID, |w, cx| {
                w.computer_turn(cx, sid)
            });
        }
        world.schedule_all();
    }
    // Agents without a connection leave once they have been silent for the agents' idle time;
    // a sweep finds them, once a minute or twice within that time if it is shorter.
    let every = env
        .options
        .agent_idle
        .map_or(std::time::Duration::from_secs(60), |idle| {
            (idle / 2).clamp(
                std::time::Duration::from_millis(100),
                std::time::Duration::from_secs(60),
            )
        });
    let mut sweep = tokio::time::interval(every);
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // What waits on time besides deadlines (a queue the house fills), checked once a second.
    let mut ticker = tokio::time::interval(std::time::Duration::from_secs(1));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The current run of failed writes, if any.
    let mut failing = Failing::default();
    // What the loop waits on besides its queues, read after each piece of work under the
    // lock that piece held (work done off the task that moves them says so through
    // `replan`). One timer, moved only when the next deadline (or the hold on it) moves.
    let mut timers = timers_of(&*world!());
    // When the timer is set for: the next deadline, held back while writes fail.
    let mut wake = timers.0;
    let timer = tokio::time::sleep_until(wake.unwrap_or_else(Instant::now));
    tokio::pin!(timer);
    loop {
        let ticking = timers.1;
        let world = tokio::select! {
            // The database's answers first: they let finished work go out.
            biased;
            Some((seq, result)) = answers.recv() => {
                let mut world = world!();
                answer(&mut world, env, seq, result, &mut failing);
                world
            }
            req = rx.recv() => match req {
                Some(req) => {
                    let mut world = world!();
                    handle(&mut world, env, req);
                    core.queued.fetch_sub(1, Ordering::AcqRel);
                    world
                }
                None => break,
            },
            () = core.replan.notified() => world!(),
            () = &mut timer, if wake.is_some() => {
                let mut world = world!();
                let now = Instant::now();
                // Held back while writes fail: what is due stays queued, for the next try.
                let due = if failing.holds(now) { Vec::new() } else { world.due_deadlines(now) };
                for sid in due {
                    let taken = job(&mut world, env, SERVER_ID, |w, cx| w.take_deadline(cx, sid));
                    if taken.is_none() {
                        // A deadline that meets a bug would meet it again at once, for ever:
                        // the game waits for its next move instead of the town spinning.
                        world.park_deadline(sid);
                    }
                }
                world
            }
            _ = ticker.tick(), if ticking => {
                let mut world = world!();
                let now = Instant::now();
                if !failing.holds(now) {
                    job(&mut world, env, SERVER_ID, |w, cx| w.ticked(cx, now));
                }
                world
            }
            _ = sweep.tick() => {
                let mut world = world!();
                if let Some(idle) = env.options.agent_idle {
                    job(&mut world, env, COMPUTER_ID, |w, cx| {
                        w.sweep_idle_agents(cx, Instant::now(), idle)
                    });
                }
                world
            }
        };
        timers = timers_of(&world);
        drop(world);
        let next = failing.hold_back(timers.0);
        if let Some(at) = next
            && next != wake
        {
            timer.as_mut().reset(at);
        }
        wake = next;
    }
    // Everyone has gone; let what is in flight finish, so its callers hear how it ended.
    while !world!().outbox.is_empty() {
        let Some((seq, result)) = answers.recv().await else {
            break;
        };
        answer(&mut *world!(), env, seq, result, &mut failing);
    }
    Ok(())
}

/// Runs work of the world's own (a deadline, a tick) as `actor`, guarded, and sends out what it
/// left; `None` if it met a bug and was undone.
fn job<T>(
    world: &mut World,
    env: &Env,
    actor: &str,
    f: impl FnOnce(&mut World, &mut Cx) -> T,
) -> Option<T> {
    let mut cx = Cx::new(actor.into(), Face::Rest);
    let out = guarded(world, &mut cx, f).ok();
    finish(world, env, cx, None);
    out
}

/// The world's next deadline, and whether anything waits on the ticker.
fn timers_of(world: &World) -> (Option<Instant>, bool) {
    (world.next_deadline(), world.has_tick_hooks())
}

/// The database answered the world's writes `seq`.
fn answer(
    world: &mut World,
    env: &Env,
    seq: u64,
    result: Result<(), StoreError>,
    failing: &mut Failing,
) {
    match &result {
        Ok(()) => failing.stored(),
        Err(StoreError::Refused) => {}
        Err(err) => {
            let now = Instant::now();
            let limit = env.options.give_up.unwrap_or(Duration::MAX);
            let lasted = failing.failed(now, limit);
            failing.tell(now, err, world.outbox.undone_by(seq));
            if env.options.give_up.is_some() && lasted >= limit && !env.options.stop.is_cancelled()
            {
                tracing::error!(
                    failing_for = ?limit,
                    "the database has refused every write for too long; moot stops rather than \
                     serve a world it cannot store"
                );
                env.options.stop.cancel();
            }
        }
    }
    let mut outbox = std::mem::take(&mut world.outbox);
    let ready = outbox.answer(world, seq, result);
    world.outbox = outbox;
    for pending in ready {
        release(world, env, pending);
    }
}

fn handle(world: &mut World, env: &Env, req: Request) {
    match req {
        Request::Enter {
            row,
            created,
            conn,
            sink,
            again,
        } => {
            if again && world.players.contains_key(row.agent_id.as_str()) {
                sink.send(Out::Close(vec![ELSEWHERE.into()]));
            } else {
                enter(world, env, row, created, conn, sink);
            }
        }
        Request::Line { agent, conn, line } => {
            take_line(world, env, &agent, conn, &line, None);
        }
        Request::Leave { agent, conn, why } => {
            let mut cx = Cx::new(agent.clone(), Face::Telnet);
            match guarded(world, &mut cx, |w, cx| w.leave(cx, &agent, conn, why)) {
                Ok(true) => {
                    finish(world, env, cx, None);
                }
                Ok(false) => {}
                // Gone all the same: the connection has ended.
                Err(_) => {
                    world.remove(&agent, conn);
                }
            }
        }
        Request::Call(job) => job(world, env),
        Request::Batch(requests) => {
            for req in requests {
                handle(world, env, req);
            }
        }
    }
}

/// What became of a line [`take_line`] was given.
enum Took {
    /// It ran here; its answer, to be written after the connection has taken `after`, and
    /// what it told its typist up to `then` (see [`Taken::Answered`]).
    Answered {
        lines: Vec<String>,
        after: u64,
        then: u64,
    },
    /// Its answer goes through the connection's queue (or nowhere, the typist being gone).
    Later,
    /// The typist stands among more than the crowd given: the line is left for the world task.
    Crowded,
}

/// Runs a line typed by `agent` on connection `conn` (ignored if that connection is not theirs
/// any more). Run `here` (by the typist's own task: the most that may stand in the room, and
/// when the line was typed), it runs only where at most that many stand, and its answer is
/// returned if the world need not wait for the database, with how much the queue had been
/// sent by then (see [`Taken::Answered`]); run by the world task, the answer is queued.
fn take_line(
    world: &mut World,
    env: &Env,
    agent: &AgentId,
    conn: ConnId,
    line: &str,
    here: Option<(usize, Instant)>,
) -> Took {
    // One look at the typist for all that is asked of them before the command.
    let Some(p) = world.players.get_mut(agent).filter(|p| p.conn == conn) else {
        return Took::Later;
    };
    let around = world.occupants.get(p.room).map_or(0, Vec::len);
    if here.is_some_and(|(most, _)| around > most) {
        return Took::Crowded;
    }
    let now = here.map_or_else(Instant::now, |(_, typed)| typed);
    p.last_heard = now;
    let sink = p.sink.clone();
    // The world's own copy of the name: every later look for the typist (the verb's, its
    // room's) then compares pointers, not names.
    let mut cx = Cx::at(p.id.clone(), Face::Telnet, now);
    let lines = guarded(world, &mut cx, |w, cx| (env.commands)(w, cx, line))
        .unwrap_or_else(|_| vec![Unavailable::Internal.to_string()]);
    if !cx.hidden {
        world.touch(&cx.actor, cx.now);
    }
    // A line that left nothing behind (no write, no news, no wake-up, no work), with nothing
    // in flight before it, is answered as it stands: there is nothing of it to wait for or
    // send out (what `submit` and `release` would find, at a tenth of a command's cost).
    if here.is_some() && cx.left_nothing() && world.outbox.is_empty() {
        let after = sink.sent();
        return Took::Answered {
            after,
            then: after,
            lines,
        };
    }
    let who = cx.actor.clone();
    match submit(world, env, cx, Some(Answer { sink, who, lines })) {
        Pushed::Now(mut pending) => {
            let answer = here.and_then(|_| pending.answer.take());
            // The queue up to here is what came before the command; what `release` adds to
            // it for the typist is the command's own, written after its answer.
            let after = answer.as_ref().map(|a| a.sink.sent());
            release(world, env, pending);
            match (answer, after) {
                (Some(a), Some(after)) => Took::Answered {
                    after,
                    then: a.sink.sent(),
                    lines: a.lines,
                },
                _ => Took::Later,
            }
        }
        Pushed::Held { .. } => Took::Later,
    }
}

fn enter(world: &mut World, env: &Env, row: AgentRow, created: bool, conn: ConnId, sink: Sink) {
    let id: AgentId = row.agent_id.as_str().into();
    let mut cx = Cx::new(id.clone(), Face::Telnet);
    let entered = guarded(world, &mut cx, |world, cx| {
        let entered = world.enter(cx, row, conn, sink.clone());
        let mut lines = Vec::new();
        if let Some(old) = entered.displaced {
            old.send(Out::Close(vec![
                "*** Redirecting connection to new port ***".into(),
            ]));
            lines.push("*** Redirecting old connection to this port ***".to_owned());
        }
        lines.push(
            if created {
                "*** Created ***"
            } else {
                "*** Connected ***"
            }
            .to_owned(),
        );
        lines.extend(views::room_lines(
            world,
            entered.room,
            &id,
            views::Come::Walked,
        ));
        if !entered.known_room {
            // Where they stand in memory is where the database's unknown room puts them anyway.
            cx.save(
                writes::set_room(id.to_string(), world.map.room(entered.room).id.clone()),
                |_| {},
            );
        }
        lines
    });
    match entered {
        Ok(lines) => {
            let who = cx.actor.clone();
            finish(world, env, cx, Some(Answer { sink, who, lines }));
        }
        // Entering is not undone by undos (nothing was stored): they are taken out again, and
        // their connection hears why it closes.
        Err(_) => {
            world.remove(&id, conn);
            sink.send(Out::Close(vec![Unavailable::Internal.to_string()]));
        }
    }
}

/// Submits what a command wrote as one job, and sends out what it left for others once that is
/// committed (at once if it wrote nothing and nothing is in flight). The answer resolves when
/// it has gone out; none means it went out already.
fn finish(world: &mut World, env: &Env, cx: Cx, answer: Option<Answer>) -> Option<Released> {
    match submit(world, env, cx, answer) {
        Pushed::Now(pending) => {
            release(world, env, pending);
            None
        }
        Pushed::Held { released, .. } => Some(released),
    }
}

/// Puts what a command left in the outbox, and its writes on their way to the database; what
/// may go out at once comes back as [`Pushed::Now`], for the caller to release.
fn submit(world: &mut World, env: &Env, mut cx: Cx, answer: Option<Answer>) -> Pushed {
    let saves = std::mem::take(&mut cx.saves);
    let writes = !saves.is_empty();
    let pushed = world.outbox.push(cx, writes, answer);
    if let Pushed::Held { seq, epoch, .. } = &pushed
        && writes
    {
        let (seq, commits) = (*seq, env.commits.clone());
        env.store.submit_world(
            *epoch,
            move |c| saves.into_iter().try_for_each(|s| s(c)),
            move |result| {
                let _ = commits.send((seq, result));
            },
        );
    }
    pushed
}

/// Sends out what a stored command left for others.
fn release(world: &mut World, env: &Env, mut pending: Pending) {
    let opened = pending.open_answer();
    world.deliver(std::mem::take(&mut pending.notices));
    if let Some(sink) = opened {
        sink.send(Out::Ended);
    }
    // A read (a page asking for the town) leaves nothing, and wakes nobody: were it to, each
    // follower's next question would be answered at once, by its own read.
    if pending.left_something {
        world.town_changed();
    }
    for on in pending.changed.drain(..) {
        world.stored_change(&on);
        world.tick_changed(on);
    }
    for effect in pending.effects.drain(..) {
        start(env, effect);
    }
    pending.answer();
}

/// Starts an effect's work off the world task.
fn start(env: &Env, effect: Effect) {
    let (Some(tx), Some(core)) = (env.me.upgrade(), env.core.upgrade()) else {
        return;
    };
    let world = WorldHandle { tx, core };
    match effect {
        Effect::Boot { agent, lines } => {
            tokio::spawn(async move {
                let who = agent.clone();
                let _ = world
                    .call(agent, Face::Rest, move |w, cx| w.boot(cx, &who, lines))
                    .await;
            });
        }
        Effect::Shutdown => env.options.asked_to_stop.cancel(),
        Effect::Think {
            session,
            tick,
            agent,
            thinking,
        } => {
            let engine = env.options.engine.clone();
            tokio::spawn(async move {
                let chosen = tokio::task::spawn_blocking(move || {
                    let began = std::time::Instant::now();
                    thinking(Mind {
                        engine: engine.as_deref(),
                        elapsed: &|| began.elapsed(),
                    })
                })
                .await
                .ok()
                .flatten();
                let Some(action) = chosen else { return };
                // A choice made for a state the game has since left is dropped: whatever moved
                // it on asked the house again.
                let _ = world
                    .call(agent.clone(), Face::Rest, move |w, cx| {
                        if w.session(session).is_some_and(|s| s.tick == tick) {
                            let _ = w.act_as(cx, &agent, session, action, Some(tick));
                        }
                    })
                    .await;
            });
        }
        Effect::Hand(handed) => {
            let full = match &env.options.hand {
                Some(hand) => hand.try_send(handed).err().map(|e| e.into_inner()),
                None => Some(handed),
            };
            if let Some(h) = full {
                tokio::spawn(async move {
                    let _ = world
                        .call(h.agent.clone(), Face::Telnet, move |w, cx| {
                            let line = format!(
                                "#{} is played on one of the town's game worlds, which cannot \
                                 take more just now: nothing was done; try again in a moment.",
                                h.session
                            );
                            w.answered(cx, &h.agent, h.session, vec![line]);
                        })
                        .await;
                });
            }
        }
        Effect::Run(job) => {
            tokio::spawn(async move {
                let (id, owner) = (job.job, job.owner.clone());
                // A run that met a bug in the sandbox did nothing, like any other failure.
                let outcome = tokio::task::spawn_blocking(move || job.run())
                    .await
                    .unwrap_or_else(|_| {
                        Err(crate::sandbox::Failure::Error(
                            "moot met a bug running it".into(),
                        ))
                    });
                // Done as its owner, whose rights the verb has.
                let _ = world
                    .call(owner, Face::Rest, move |w, cx| {
                        w.finish_run(cx, id, outcome)
                    })
                    .await;
            });
        }
    }
}
