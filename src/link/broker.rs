//! The world's end of the link over a NATS broker: [`serve`] runs beside the world task in a
//! world process and answers every host (the host's end is `host::Remote`).
//!
//! Order is what NATS gives one publisher to one subscriber: everything a host's connection
//! says reaches the world in the order it was said (one subscription takes them all), and
//! everything the world says to one connection reaches its host in the order the world
//! decided it (one task a connection publishes it). A connection's queue on the host is
//! bounded as the world's own are, so a broker that delivers faster than a client reads costs
//! the host no more memory than a slow client costs a single process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::Door;
use super::requests::{Answering, MakeRouter};
use super::wire::{self, Answer, Ask, Character, FromConn, Hello, News, Taken, ToConn, Welcome};
use crate::world::{self, AgentId, ConnId, Out, Request, Source};

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("cannot reach the NATS broker at {url}: {error}")]
    Connect { url: String, error: String },
    #[error("the broker would not take a subscription: {0}")]
    Subscribe(String),
    #[error("no world answers on {url} (start `moot world --nats {url}` first)")]
    NoWorld { url: String },
    #[error("{0}")]
    Mismatch(String),
    #[error("the world's greeting could not be read: {0}")]
    Garbled(String),
}

/// Connects to the broker at `url`, naming the connection for the broker's monitoring.
pub async fn connect(url: &str, name: &str) -> Result<async_nats::Client, LinkError> {
    async_nats::ConnectOptions::new()
        .name(name)
        .connect(url)
        .await
        .map_err(|e| LinkError::Connect {
            url: url.to_owned(),
            error: e.to_string(),
        })
}

/// Takes what is published on `subject`.
pub(super) async fn subscribe(
    client: &async_nats::Client,
    subject: String,
) -> Result<async_nats::Subscriber, LinkError> {
    client
        .subscribe(subject)
        .await
        .map_err(|e| LinkError::Subscribe(e.to_string()))
}

/// A connection of a host, as the world knows it.
struct Held {
    conn: ConnId,
    agent: AgentId,
}

type HeldMap = Arc<Mutex<HashMap<(String, u64), Held>>>;

/// Answers hosts for the world behind `door` until `stop`: greetings, questions, and what
/// their connections say.
pub async fn serve(
    client: async_nats::Client,
    door: Arc<Door>,
    welcome: String,
    make_router: MakeRouter,
    stop: CancellationToken,
) -> Result<(), LinkError> {
    let mut hellos = subscribe(&client, wire::HELLO.to_owned()).await?;
    let mut asks = subscribe(&client, wire::ask()).await?;
    let mut conns = subscribe(&client, wire::conns()).await?;
    let mut requests = subscribe(&client, wire::http()).await?;
    let mut cancels = subscribe(&client, wire::http_cancel()).await?;
    let answering = Answering::new(client.clone(), make_router);
    let held: HeldMap = Arc::default();
    // World connection numbers, unique across hosts (0 is agents' without a connection).
    let mut next_conn: ConnId = 1;
    // This run of the world, for hosts to tell a restart by.
    let epoch = rand::random::<u64>();
    let news = |n: News| {
        let client = client.clone();
        async move {
            if let Ok(body) = serde_json::to_vec(&n) {
                let _ = client.publish(wire::news(), body.into()).await;
            }
        }
    };
    news(News::Up { epoch }).await;
    // Beats have a task of their own, so that a busy loop below (a crowd re-entering, each
    // read from the database) never looks to the hosts like a world gone quiet.
    let beating = CancellationToken::new();
    {
        let (client, beating) = (client.clone(), beating.clone());
        tokio::spawn(async move {
            let mut beat = tokio::time::interval(wire::BEAT);
            let Ok(body) = serde_json::to_vec(&News::Beat { epoch }) else {
                return;
            };
            loop {
                tokio::select! {
                    _ = beat.tick() => {
                        let _ = client.publish(wire::news(), body.clone().into()).await;
                    }
                    _ = beating.cancelled() => return,
                }
            }
        });
    }
    // Stopping: hosts are told, and for a moment lines still arriving are refused (not done,
    // and said so) rather than lost with the process.
    let mut closing = false;
    let until_closed = tokio::time::sleep(Duration::MAX / 4);
    tokio::pin!(until_closed);
    tracing::info!(epoch, "serving hosts");
    loop {
        tokio::select! {
            _ = stop.cancelled(), if !closing => {
                beating.cancel();
                answering.closing();
                news(News::Down { epoch }).await;
                closing = true;
                until_closed.as_mut().reset(tokio::time::Instant::now() + CLOSING);
            }
            _ = &mut until_closed, if closing => break,
            Some(msg) = hellos.next() => greet(&client, msg, &welcome, epoch, &answering).await,
            Some(msg) = requests.next() => if closing {
                answering.refuse(msg)
            } else {
                answering.answer(msg)
            },
            Some(msg) = cancels.next() => answering.cancel(&msg),
            Some(msg) = asks.next() => {
                let (client, door) = (client.clone(), door.clone());
                tokio::spawn(async move { answer(&client, &door, msg).await });
            }
            Some(msg) = conns.next() => {
                let Some((host, conn)) = wire::parse_conn(&msg.subject) else { continue };
                let Ok(said) = serde_json::from_slice::<FromConn>(&msg.payload) else {
                    tracing::warn!(subject = %msg.subject, "a host sent what this world cannot read");
                    continue;
                };
                let key = (host.to_owned(), conn);
                match said {
                    FromConn::Enter { agent, created } => {
                        let id = next_conn;
                        next_conn += 1;
                        enter(&client, &door, &held, key, id, &agent, created).await;
                    }
                    FromConn::Line { agent, line } => {
                        let conn = lock(&held).get(&key).filter(|h| *h.agent == *agent).map(|h| h.conn);
                        let taken = match conn {
                            Some(conn) if !closing => {
                                door.world.send(Request::Line { agent: agent.into(), conn, line }).await
                            }
                            _ => false,
                        };
                        reply(&client, &msg, &if taken { Taken::Yes } else { Taken::No }).await;
                    }
                    FromConn::Leave { agent, why } => {
                        let gone = lock(&held).remove(&key);
                        if let Some(h) = gone.filter(|h| *h.agent == *agent) {
                            door.world.send(Request::Leave { agent: h.agent, conn: h.conn, why }).await;
                        }
                    }
                }
            }
            else => break,
        }
    }
    beating.cancel();
    // What was published last (the answers to the lines taken last) reaches the broker
    // before the process may end.
    let _ = client.flush().await;
    Ok(())
}

/// How long a stopping world goes on refusing lines (see `serve`).
const CLOSING: Duration = Duration::from_millis(300);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn reply<T: serde::Serialize>(
    client: &async_nats::Client,
    msg: &async_nats::Message,
    body: &T,
) {
    let Some(to) = msg.reply.clone() else { return };
    match serde_json::to_vec(body) {
        Ok(bytes) => {
            if let Err(e) = client.publish(to, bytes.into()).await {
                tracing::warn!(error = %e, "cannot answer a host");
            }
        }
        Err(e) => tracing::error!(error = %e, "cannot encode an answer to a host"),
    }
}

async fn greet(
    client: &async_nats::Client,
    msg: async_nats::Message,
    welcome: &str,
    epoch: u64,
    answering: &Answering,
) {
    match serde_json::from_slice::<Hello>(&msg.payload) {
        Ok(hello) => match wire::mismatch(wire::PROTOCOL, hello.protocol, &hello.version) {
            Some(why) => tracing::warn!(host = %hello.host, "a host was refused: {why}"),
            None => {
                tracing::info!(host = %hello.host, "a host joined");
                answering.greeted(&hello.host, hello.http);
            }
        },
        Err(e) => tracing::warn!(error = %e, "a greeting this world cannot read"),
    }
    // Answered either way: a host of another protocol learns which, and says so.
    let ours = Welcome {
        protocol: wire::PROTOCOL,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        welcome: welcome.to_owned(),
        epoch,
    };
    reply(client, &msg, &ours).await;
}

async fn answer(client: &async_nats::Client, door: &Door, msg: async_nats::Message) {
    let Ok(ask) = serde_json::from_slice::<Ask>(&msg.payload) else {
        tracing::warn!("a host asked what this world cannot read");
        return;
    };
    let answer = match ask {
        Ask::Banned { ip } => Answer::Banned(door.banned(ip)),
        Ask::Who => Answer::Who(door.world.who().await),
        Ask::Connect { ip, name, password } => Answer::Connect(
            door.connect(ip, &name, &password)
                .await
                .map(Character::from),
        ),
        Ask::Create { ip, name, password } => {
            Answer::Create(door.create(ip, &name, &password).await.map(Character::from))
        }
    };
    reply(client, &msg, &answer).await;
}

/// A host's connection enters: the world reads the character afresh (a host says who logged
/// in, never what they may do), and a task carries what the world says to it across.
async fn enter(
    client: &async_nats::Client,
    door: &Door,
    held: &HeldMap,
    key: (String, u64),
    conn: ConnId,
    agent: &str,
    created: bool,
) {
    let subject = wire::to_conn(&key.0, key.1);
    let row = match door.store.agent_by_id(agent).await {
        Ok(Some(row)) => row,
        found => {
            if let Err(e) = found {
                tracing::error!(error = %e, "cannot read a character that is entering");
            }
            let close = ToConn::Close(vec![
                "*** Sorry, moot cannot reach its database. Please try again later. ***".into(),
            ]);
            if let Ok(bytes) = serde_json::to_vec(&close) {
                let _ = client.publish(subject, bytes.into()).await;
            }
            return;
        }
    };
    let (sink, source) = world::channel();
    lock(held).insert(
        key.clone(),
        Held {
            conn,
            agent: row.agent_id.as_str().into(),
        },
    );
    tokio::spawn(carry(
        client.clone(),
        subject,
        source,
        held.clone(),
        key,
        conn,
    ));
    door.enter_with(row, created, conn, sink).await;
}

/// Carries what the world says to one connection to its host, in order, until the world
/// closes it (or forgets it).
async fn carry(
    client: async_nats::Client,
    subject: String,
    mut source: Source,
    held: HeldMap,
    key: (String, u64),
    conn: ConnId,
) {
    while let Some(out) = source.rx.recv().await {
        source.took(&out);
        let closing = matches!(out, Out::Close(_));
        match serde_json::to_vec(&ToConn::from(&out)) {
            Ok(bytes) => {
                if let Err(e) = client.publish(subject.clone(), bytes.into()).await {
                    tracing::warn!(error = %e, %subject, "cannot reach a host");
                }
            }
            Err(e) => tracing::error!(error = %e, "cannot encode a notice for a host"),
        }
        if closing {
            break;
        }
    }
    // Only its own: the same host connection may have entered again since.
    let mut held = lock(&held);
    if held.get(&key).is_some_and(|h| h.conn == conn) {
        held.remove(&key);
    }
}
