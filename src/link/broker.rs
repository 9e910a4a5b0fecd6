//! The two ends of the link over a NATS broker: [`serve`] runs beside the world task in a world
//! process and answers every host; [`Remote`] is a host's [`Town`](super::Town).
//!
//! Order is what NATS gives one publisher to one subscriber: everything a host's connection
//! says reaches the world in the order it was said (one subscription takes them all), and
//! everything the world says to one connection reaches its host in the order the world
//! decided it (one task a connection publishes it). A connection's queue on the host is
//! bounded as the world's own are, so a broker that delivers faster than a client reads costs
//! the host no more memory than a slow client costs a single process.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::requests::{Answering, MakeRouter, Passing};
use super::wire::{self, Answer, Ask, Character, FromConn, Hello, ToConn, Welcome};
use super::{CreateRefused, Door};
use crate::logins::Refused;
use crate::store::AgentRow;
use crate::world::{self, AgentId, ConnId, Leaving, Out, Request, Sink, Source};

/// How long a host waits for the world to answer a question before taking it as away.
const ASK_TIMEOUT: Duration = Duration::from_secs(10);

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
    let sub = |subject: String| {
        let client = client.clone();
        async move {
            client
                .subscribe(subject)
                .await
                .map_err(|e| LinkError::Subscribe(e.to_string()))
        }
    };
    let mut hellos = sub(wire::HELLO.to_owned()).await?;
    let mut asks = sub(wire::ask()).await?;
    let mut conns = sub(wire::conns()).await?;
    let mut requests = sub(wire::http()).await?;
    let mut cancels = sub(wire::http_cancel()).await?;
    let answering = Answering::new(client.clone(), make_router);
    let held: HeldMap = Arc::default();
    // World connection numbers, unique across hosts (0 is agents' without a connection).
    let mut next_conn: ConnId = 1;
    tracing::info!("serving hosts");
    loop {
        tokio::select! {
            Some(msg) = hellos.next() => greet(&client, msg, &welcome, &answering).await,
            Some(msg) = requests.next() => answering.answer(msg),
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
                        if let Some(conn) = conn {
                            door.world.send(Request::Line { agent: agent.into(), conn, line }).await;
                        }
                    }
                    FromConn::Leave { agent, why } => {
                        let gone = lock(&held).remove(&key);
                        if let Some(h) = gone.filter(|h| *h.agent == *agent) {
                            door.world.send(Request::Leave { agent: h.agent, conn: h.conn, why }).await;
                        }
                    }
                }
            }
            _ = stop.cancelled() => break,
            else => break,
        }
    }
    Ok(())
}

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
    tokio::spawn(carry(client.clone(), subject, source, held.clone(), key));
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
    lock(&held).remove(&key);
}

/// A host's way to the world across the broker.
pub struct Remote {
    client: async_nats::Client,
    /// This host's name on the broker: random, so two hosts never share one.
    host: String,
    /// The queue of each of this host's connections in the town.
    sinks: Arc<Mutex<HashMap<ConnId, Sink>>>,
    /// HTTP requests on their way to the world and back.
    passing: Passing,
}

impl Remote {
    /// Greets the world at `url` (saying where this host's HTTP listener is, if it has one);
    /// returns the link and the world's welcome, or why not (no world, another protocol).
    pub async fn open(
        url: &str,
        http: Option<std::net::SocketAddr>,
    ) -> Result<(Remote, Welcome), LinkError> {
        let host = format!("{:016x}", rand::random::<u64>());
        let client = connect(url, &format!("moot host {host}")).await?;
        let hello = serde_json::to_vec(&Hello::ours(&host, http))
            .map_err(|e| LinkError::Garbled(e.to_string()))?;
        let answer = tokio::time::timeout(ASK_TIMEOUT, client.request(wire::HELLO, hello.into()))
            .await
            .map_err(|_| LinkError::NoWorld { url: url.into() })?
            .map_err(|_| LinkError::NoWorld { url: url.into() })?;
        let welcome: Welcome = serde_json::from_slice(&answer.payload)
            .map_err(|e| LinkError::Garbled(e.to_string()))?;
        if let Some(why) = wire::mismatch(wire::PROTOCOL, welcome.protocol, &welcome.version) {
            return Err(LinkError::Mismatch(why));
        }
        let sinks: Arc<Mutex<HashMap<ConnId, Sink>>> = Arc::default();
        let mut inbox = client
            .subscribe(wire::to_host(&host))
            .await
            .map_err(|e| LinkError::Subscribe(e.to_string()))?;
        {
            let sinks = sinks.clone();
            tokio::spawn(async move {
                while let Some(msg) = inbox.next().await {
                    let Some((_, conn)) = wire::parse_conn(&msg.subject) else {
                        continue;
                    };
                    let Ok(said) = serde_json::from_slice::<ToConn>(&msg.payload) else {
                        tracing::warn!(subject = %msg.subject, "the world sent what this host cannot read");
                        continue;
                    };
                    let out = Out::from(said);
                    let mut sinks = lock(&sinks);
                    if matches!(out, Out::Close(_)) {
                        if let Some(sink) = sinks.remove(&conn) {
                            sink.pass(out);
                        }
                    } else if let Some(sink) = sinks.get(&conn) {
                        sink.pass(out);
                    }
                }
            });
        }
        let passing = Passing::open(client.clone(), &host)
            .await
            .map_err(LinkError::Subscribe)?;
        tracing::info!(%host, world = %welcome.version, "joined the world");
        Ok((
            Remote {
                client,
                host,
                sinks,
                passing,
            },
            welcome,
        ))
    }

    /// Passes an HTTP request from `peer` to the world; its answer, as it comes.
    pub async fn pass(
        &self,
        req: axum::http::Request<axum::body::Body>,
        peer: std::net::SocketAddr,
    ) -> axum::http::Response<axum::body::Body> {
        self.passing.pass(req, peer).await
    }

    async fn ask(&self, ask: &Ask) -> Option<Answer> {
        let body = serde_json::to_vec(ask).ok()?;
        let answer =
            tokio::time::timeout(ASK_TIMEOUT, self.client.request(wire::ask(), body.into()))
                .await
                .ok()?
                .ok()?;
        serde_json::from_slice(&answer.payload).ok()
    }

    async fn say(&self, conn: ConnId, what: &FromConn) -> bool {
        let Ok(body) = serde_json::to_vec(what) else {
            return false;
        };
        self.client
            .publish(wire::conn(&self.host, conn), body.into())
            .await
            .is_ok()
    }

    pub async fn banned(&self, ip: IpAddr) -> bool {
        matches!(
            self.ask(&Ask::Banned { ip }).await,
            Some(Answer::Banned(true))
        )
    }

    pub async fn who(&self) -> Vec<String> {
        match self.ask(&Ask::Who).await {
            Some(Answer::Who(table)) => table,
            _ => vec!["*** The town does not answer; please try again later. ***".into()],
        }
    }

    pub async fn connect(
        &self,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<AgentRow, Refused> {
        let ask = Ask::Connect {
            ip,
            name: name.to_owned(),
            password: password.to_owned(),
        };
        match self.ask(&ask).await {
            Some(Answer::Connect(answer)) => answer.map(AgentRow::from),
            _ => Err(Refused::Unavailable),
        }
    }

    pub async fn create(
        &self,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<AgentRow, CreateRefused> {
        let ask = Ask::Create {
            ip,
            name: name.to_owned(),
            password: password.to_owned(),
        };
        match self.ask(&ask).await {
            Some(Answer::Create(answer)) => answer.map(AgentRow::from),
            _ => Err(CreateRefused::Unavailable),
        }
    }

    pub async fn enter(&self, row: AgentRow, created: bool, conn: ConnId) -> Option<Source> {
        let (sink, source) = world::channel();
        lock(&self.sinks).insert(conn, sink);
        let said = FromConn::Enter {
            agent: row.agent_id,
            created,
        };
        if self.say(conn, &said).await {
            Some(source)
        } else {
            lock(&self.sinks).remove(&conn);
            None
        }
    }

    pub async fn line(&self, agent: &AgentId, conn: ConnId, line: String) -> bool {
        let said = FromConn::Line {
            agent: agent.to_string(),
            line,
        };
        self.say(conn, &said).await
    }

    pub async fn leave(&self, agent: &AgentId, conn: ConnId, why: Leaving) {
        lock(&self.sinks).remove(&conn);
        let said = FromConn::Leave {
            agent: agent.to_string(),
            why,
        };
        self.say(conn, &said).await;
    }
}
