//! The world task: the one place where [`World`] is changed. Front ends talk to it through a
//! [`WorldHandle`]; it answers through each connection's [`Sink`].

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::chess::{COMPUTER_ID, Effect, Think};
use super::{AgentId, ConnId, Cx, Face, Out, Player, Sink, World};
use crate::engine::uci::{UciEngine, elo_for};
use crate::store::{AgentRow, Store, StoreError, writes};

use crate::verbs;

/// Why a player leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaving {
    /// They typed `@quit`.
    Quit,
    /// The connection dropped.
    Lost,
    /// They were idle too long.
    Idle,
}

pub enum Request {
    /// A connection has logged in as `row` (just created, or an existing character).
    Enter {
        row: AgentRow,
        created: bool,
        conn: ConnId,
        sink: Sink,
    },
    /// A command line typed by a logged-in player.
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
    /// The `who` table, for the login screen.
    Who { reply: oneshot::Sender<Vec<String>> },
    /// Work for the world from another face (see [`WorldHandle::call`]).
    Call(Job),
}

/// A closure run on the world task with the world and its surroundings.
pub type Job = Box<dyn FnOnce(&mut World, &Env) + Send>;

/// What the world task works with besides the world: the store, and a way back to itself for
/// work that finishes later (the computer's moves).
pub struct Env {
    pub store: Arc<Store>,
    me: mpsc::WeakSender<Request>,
    /// The external engine for the computer's top levels, if configured.
    uci: Option<UciEngine>,
    /// How long an agent without a connection may be silent before it leaves the town.
    agent_idle: Option<std::time::Duration>,
}

/// The world has stopped, or what a call changed could not be stored.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    #[error("moot is shutting down")]
    Stopped,
    #[error("what you did could not be stored: {0}")]
    Storage(StoreError),
}

/// How front ends reach the world. Cheap to clone.
#[derive(Clone)]
pub struct WorldHandle {
    tx: mpsc::Sender<Request>,
}

/// Requests queued for the world before senders are made to wait.
const QUEUE: usize = 16 * 1024;

impl WorldHandle {
    /// Queues a request; false if the world has stopped.
    pub async fn send(&self, r: Request) -> bool {
        self.tx.send(r).await.is_ok()
    }

    /// Runs `f` on the world task on behalf of `agent`, delivers what it left for others, and
    /// returns its result once everything it changed is committed to the database.
    pub async fn call<T, F>(&self, agent: AgentId, face: Face, f: F) -> Result<T, Unavailable>
    where
        T: Send + 'static,
        F: FnOnce(&mut World, &mut Cx) -> T + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |world, env| {
            let mut cx = Cx::new(agent, face);
            let out = f(world, &mut cx);
            let saved = finish(world, env, cx);
            let _ = tx.send((out, saved));
        });
        if !self.send(Request::Call(job)).await {
            return Err(Unavailable::Stopped);
        }
        let (out, saved) = rx.await.map_err(|_| Unavailable::Stopped)?;
        if let Some(saved) = saved {
            saved
                .await
                .map_err(|_| Unavailable::Stopped)?
                .map_err(Unavailable::Storage)?;
        }
        Ok(out)
    }

    pub async fn who(&self) -> Vec<String> {
        let (reply, rx) = oneshot::channel();
        if !self.send(Request::Who { reply }).await {
            return Vec::new();
        }
        rx.await.unwrap_or_default()
    }
}

/// Starts the world task. It runs until every [`WorldHandle`] is dropped, then hands the world
/// back.
pub fn spawn(
    world: World,
    store: Arc<Store>,
    uci: Option<UciEngine>,
    agent_idle: Option<std::time::Duration>,
) -> (WorldHandle, JoinHandle<World>) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let env = Env {
        store,
        me: tx.downgrade(),
        uci,
        agent_idle,
    };
    let task = tokio::spawn(run(world, env, rx));
    (WorldHandle { tx }, task)
}

async fn run(mut world: World, env: Env, mut rx: mpsc::Receiver<Request>) -> World {
    // Games restored from the database in which the computer is to move resume.
    let mut cx = Cx::new(COMPUTER_ID.into(), Face::Rest);
    for sid in world.session_ids() {
        world.computer_turn(&mut cx, sid);
    }
    finish(&mut world, &env, cx);
    // Agents without a connection leave once they have been silent as long as a telnet
    // character may be; a sweep a minute finds them.
    let mut sweep = tokio::time::interval(std::time::Duration::from_secs(60));
    sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            req = rx.recv() => match req {
                Some(req) => handle(&mut world, &env, req),
                None => break,
            },
            _ = sweep.tick() => {
                if let Some(idle) = env.agent_idle {
                    let mut cx = Cx::new(COMPUTER_ID.into(), Face::Rest);
                    world.sweep_idle_agents(&mut cx, Instant::now(), idle);
                    finish(&mut world, &env, cx);
                }
            }
        }
    }
    world
}

fn handle(world: &mut World, env: &Env, req: Request) {
    match req {
        Request::Enter {
            row,
            created,
            conn,
            sink,
        } => enter(world, env, row, created, conn, sink),
        Request::Line { agent, conn, line } => {
            let Some(p) = world.players.get_mut(&agent).filter(|p| p.conn == conn) else {
                return;
            };
            p.last_active = Instant::now();
            let sink = p.sink.clone();
            let mut cx = Cx::new(agent, Face::Telnet);
            let lines = match verbs::run_line(world, &mut cx, &line) {
                Ok(lines) => lines,
                Err(e) => vec![e.message],
            };
            let saved = finish(world, env, cx);
            sink.send(Out::Reply { lines, saved });
        }
        Request::Leave { agent, conn, why } => {
            if let Some(p) = world.remove(&agent, conn) {
                world.forget_chess(&agent);
                let mut cx = Cx::new(agent, Face::Telnet);
                let what = match why {
                    Leaving::Quit | Leaving::Lost => "has disconnected.",
                    Leaving::Idle => "has been disconnected for inactivity.",
                };
                cx.tell_room(world, p.room, &p.id, format!("{} {what}", p.name));
                finish(world, env, cx);
            }
        }
        Request::Who { reply } => {
            let _ = reply.send(verbs::who::table(world, Instant::now()));
        }
        Request::Call(job) => job(world, env),
    }
}

fn enter(world: &mut World, env: &Env, row: AgentRow, created: bool, conn: ConnId, sink: Sink) {
    let known_room = row.room.as_deref().and_then(|r| world.map.room_by_id(r));
    let room = known_room.unwrap_or(world.map.start);
    let id: AgentId = row.agent_id.into();
    let player = Player::new(
        id.clone(),
        row.name,
        row.description,
        room,
        conn,
        sink.clone(),
    );
    let name = player.name.clone();
    let displaced = world.admit(player);
    let mut cx = Cx::new(id.clone(), Face::Telnet);
    let mut lines = Vec::new();
    match displaced {
        Some(old) => {
            old.send(Out::Close(vec![
                "*** Redirecting connection to new port ***".into(),
            ]));
            lines.push("*** Redirecting old connection to this port ***".to_owned());
            cx.tell_room(world, room, &id, format!("{name} has reconnected."));
        }
        None => cx.tell_room(world, room, &id, format!("{name} has connected.")),
    }
    lines.push(
        if created {
            "*** Created ***"
        } else {
            "*** Connected ***"
        }
        .to_owned(),
    );
    lines.extend(verbs::look::room_lines(world, room, &id));
    if known_room.is_none() {
        cx.save(writes::set_room(
            id.to_string(),
            world.map.room(room).id.clone(),
        ));
    }
    let saved = finish(world, env, cx);
    sink.send(Out::Reply { lines, saved });
}

/// Delivers what a command left for others and submits its writes as one job.
fn finish(
    world: &mut World,
    env: &Env,
    cx: Cx,
) -> Option<oneshot::Receiver<Result<(), StoreError>>> {
    world.deliver(cx.notices);
    for effect in cx.effects {
        start(env, effect);
    }
    if cx.saves.is_empty() {
        return None;
    }
    let saves = cx.saves;
    Some(
        env.store
            .submit(move |c| saves.into_iter().try_for_each(|s| s(c))),
    )
}

/// The computer's move for `t`: the external engine's for the levels it plays (if it gives a
/// legal one), the built-in engine's otherwise.
fn think(t: &Think, uci: Option<&UciEngine>) -> Option<String> {
    use shakmaty::CastlingMode;
    if let Some(engine) = uci {
        let fen =
            shakmaty::fen::Fen::from_position(&t.pos, shakmaty::EnPassantMode::Legal).to_string();
        match engine.level_move(&fen, t.level, crate::engine::Level::new(t.level).time) {
            Ok(m)
                if m.parse::<shakmaty::uci::UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(&t.pos).ok())
                    .is_some() =>
            {
                return Some(m);
            }
            Ok(m) => {
                tracing::warn!(%m, "the UCI engine gave an illegal move; the built-in engine answers")
            }
            Err(e) => {
                tracing::warn!(error = %e, "the UCI engine failed; the built-in engine answers")
            }
        }
    }
    crate::engine::choose(&t.pos, t.level, t.seed, &t.history)
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
}

/// Starts an effect's work off the world task.
fn start(env: &Env, effect: Effect) {
    let Some(tx) = env.me.upgrade() else { return };
    let world = WorldHandle { tx };
    match effect {
        Effect::Think(t) => {
            let engine = env.uci.clone().filter(|_| elo_for(t.level).is_some());
            tokio::spawn(async move {
                let (sid, tick) = (t.session, t.tick);
                let chosen = tokio::task::spawn_blocking(move || think(&t, engine.as_ref()))
                    .await
                    .ok()
                    .flatten();
                let Some(uci) = chosen else { return };
                // A stale choice (the game moved on meanwhile) is refused like any stale move.
                let _ = world
                    .call(COMPUTER_ID.into(), Face::Rest, move |w, cx| {
                        let _ = w.act(cx, &sid.to_string(), &uci, Some(tick));
                    })
                    .await;
            });
        }
    }
}
