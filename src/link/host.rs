//! A host's end of the link: [`Remote`], the [`Town`](super::Town) of a `moot host`.
//!
//! The host keeps its connections whatever the world does. It hears the world say it is up,
//! alive (a beat every quarter second) or going down; when the world stops (an upgrade's
//! SIGTERM, or a kill), its people are told the town pauses and stay connected, a line typed
//! meanwhile is refused as not done, and a line the world had taken but not answered is
//! answered for it (whatever it changed was stored before anyone would have heard). When a
//! world answers again under a new epoch, the host greets it and brings every connection back
//! in, as the character it was: nobody logs in again.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::time::Instant;

use super::CreateRefused;
use super::broker::{LinkError, connect, subscribe};
use super::requests::{InFlight, Passing};
use super::wire::{self, Answer, Ask, FromConn, Hello, News, Taken, ToConn, Welcome};
use crate::logins::Refused;
use crate::store::AgentRow;
use crate::world::{self, AgentId, ConnId, Leaving, Out, Sink, Source};

/// How long a host waits for the world to answer a question before taking it as away.
const ASK_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a host waits for the world to take a line.
const TAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// A line typed while the town is away.
pub const NOT_DONE: &str =
    "*** The town is restarting; that was not done. Please try again in a moment. ***";
/// A line the world took and did not answer before it stopped.
pub const UNANSWERED: &str = "*** The town stopped before answering that. Whatever it changed \
                              was stored before you would have heard of it: look again when \
                              the town is back. ***";
pub const PAUSES: &str = "*** The town pauses while it restarts; stay connected. ***";
pub const AWAY: &str = "*** The town is not answering; stay connected, it will be back. ***";
pub const BACK: &str = "*** The town is back. ***";
pub const GAVE_UP: &str =
    "*** The town has been away too long; goodbye. Please connect again later. ***";

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One of this host's connections in the town.
struct Held {
    sink: Sink,
    agent: AgentId,
    /// The run of the world this connection entered (re-entered only into a later one).
    epoch: u64,
    /// Lines (and entering) the world took, and answers it sent: more taken than answered is
    /// a command in flight.
    taken: u64,
    answered: u64,
}

/// What the host knows of the world and of its own connections.
struct State {
    /// The run of the world this host's connections are in.
    epoch: u64,
    up: bool,
    last_heard: Instant,
    conns: HashMap<ConnId, Held>,
    /// HTTP requests passed to the world and not yet answered.
    requests: InFlight,
    /// How long connections are kept while the world is away.
    wait: Duration,
}

impl State {
    /// Tells every connection `line`.
    fn tell_all(&self, line: &str) {
        for held in self.conns.values() {
            held.sink.pass(Out::Line(line.into()));
        }
    }

    /// Answers every command in flight for the world, which will not.
    fn answer_in_flight(&mut self) {
        for held in self.conns.values_mut() {
            if held.taken > held.answered {
                held.answered = held.taken;
                held.sink.send(Out::Reply {
                    lines: vec![UNANSWERED.into()],
                });
            }
        }
    }

    /// The world has gone quiet or said it stops: its people hear `why`, once.
    /// New requests wait or are refused from now on; those in flight are left to the world,
    /// which answers what it took before it goes (see [`State::gone`]).
    fn away(&mut self, why: &str) {
        self.requests.set_down();
        if self.up {
            self.up = false;
            self.tell_all(why);
        }
    }

    /// The world has been silent too long to answer anything more: what it left unanswered is
    /// answered here (lines), or asked again once it is back (requests that only read).
    fn gone(&mut self) {
        self.away(AWAY);
        self.answer_in_flight();
        self.requests.world_away();
    }
}

/// A host's way to the world across the broker.
pub struct Remote {
    client: async_nats::Client,
    /// This host's name on the broker: random, so two hosts never share one.
    host: String,
    /// Where this host's HTTP listener is, told to the world in each greeting.
    http: Option<SocketAddr>,
    state: Arc<Mutex<State>>,
    /// HTTP requests on their way to the world and back.
    passing: Passing,
}

/// Greets the world; its welcome, or why not.
async fn greet(
    client: &async_nats::Client,
    host: &str,
    http: Option<SocketAddr>,
    url: &str,
) -> Result<Welcome, LinkError> {
    let hello = serde_json::to_vec(&Hello::ours(host, http))
        .map_err(|e| LinkError::Garbled(e.to_string()))?;
    let answer = tokio::time::timeout(ASK_TIMEOUT, client.request(wire::HELLO, hello.into()))
        .await
        .map_err(|_| LinkError::NoWorld { url: url.into() })?
        .map_err(|_| LinkError::NoWorld { url: url.into() })?;
    let welcome: Welcome =
        serde_json::from_slice(&answer.payload).map_err(|e| LinkError::Garbled(e.to_string()))?;
    match wire::mismatch(wire::PROTOCOL, welcome.protocol, &welcome.version) {
        Some(why) => Err(LinkError::Mismatch(why)),
        None => Ok(welcome),
    }
}

impl Remote {
    /// Greets the world at `url` (saying where this host's HTTP listener is, if it has one);
    /// returns the link and the world's welcome, or why not (no world, another protocol).
    /// While the world is away, connections are kept for `wait`, then closed with a message.
    pub async fn open(
        url: &str,
        http: Option<SocketAddr>,
        wait: Duration,
    ) -> Result<(Remote, Welcome), LinkError> {
        let host = format!("{:016x}", rand::random::<u64>());
        let client = connect(url, &format!("moot host {host}")).await?;
        // Heard before the greeting, so that no word of the world's is missed after it.
        let news = subscribe(&client, wire::news()).await?;
        let inbox = subscribe(&client, wire::to_host(&host)).await?;
        let welcome = greet(&client, &host, http, url).await?;
        let (passing, requests) = Passing::open(client.clone(), &host, wait)
            .await
            .map_err(LinkError::Subscribe)?;
        let state = Arc::new(Mutex::new(State {
            epoch: welcome.epoch,
            up: true,
            last_heard: Instant::now(),
            conns: HashMap::new(),
            requests,
            wait,
        }));
        tokio::spawn(deliver(inbox, state.clone()));
        let remote = Remote {
            client,
            host,
            http,
            state,
            passing,
        };
        tokio::spawn(follow(
            news,
            remote.client.clone(),
            remote.host.clone(),
            remote.http,
            url.to_owned(),
            remote.state.clone(),
        ));
        tracing::info!(host = %remote.host, world = %welcome.version, "joined the world");
        Ok((remote, welcome))
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
        {
            let mut state = lock(&self.state);
            let epoch = state.epoch;
            state.conns.insert(
                conn,
                Held {
                    sink,
                    agent: row.agent_id.as_str().into(),
                    epoch,
                    taken: 1,
                    answered: 0,
                },
            );
        }
        let said = FromConn::Enter {
            agent: row.agent_id,
            created,
        };
        if self.say(conn, &said).await {
            Some(source)
        } else {
            lock(&self.state).conns.remove(&conn);
            None
        }
    }

    /// Refuses a line on `conn` for the world: it was not done. `counted`: the line was
    /// counted as taken, and this is its answer.
    fn refuse(&self, conn: ConnId, counted: bool) {
        if let Some(held) = lock(&self.state).conns.get_mut(&conn) {
            if counted {
                held.answered = held.taken.min(held.answered + 1);
            }
            held.sink.send(Out::Reply {
                lines: vec![NOT_DONE.into()],
            });
        }
    }

    /// Sends a line to the world, which says at once whether it took it; a line it did not
    /// take (or that no world was there to take) is refused as not done, and one whose
    /// taking went unanswered is answered when the world is known to be away.
    pub async fn line(&self, agent: &AgentId, conn: ConnId, line: String) -> bool {
        let said = FromConn::Line {
            agent: agent.to_string(),
            line,
        };
        let body = match serde_json::to_vec(&said) {
            Ok(body) if lock(&self.state).up => body,
            _ => {
                self.refuse(conn, false);
                return true;
            }
        };
        // Counted before it is sent: its answer may come before the world's word that it
        // took it.
        if let Some(held) = lock(&self.state).conns.get_mut(&conn) {
            held.taken += 1;
        }
        let asked = self
            .client
            .request(wire::conn(&self.host, conn), body.into());
        match tokio::time::timeout(TAKE_TIMEOUT, asked).await {
            Ok(Ok(msg)) if serde_json::from_slice(&msg.payload).ok() == Some(Taken::Yes) => {}
            Ok(Ok(_)) => self.refuse(conn, true),
            Ok(Err(e)) => {
                if e.kind() == async_nats::RequestErrorKind::NoResponders {
                    lock(&self.state).away(AWAY);
                }
                self.refuse(conn, true);
            }
            // Taken or not, nobody can say: this line is answered as a command in flight (a
            // slow world is not yet an absent one: the beats tell that).
            Err(_) => {
                if let Some(held) = lock(&self.state).conns.get_mut(&conn)
                    && held.taken > held.answered
                {
                    held.answered = held.taken;
                    held.sink.send(Out::Reply {
                        lines: vec![UNANSWERED.into()],
                    });
                }
            }
        }
        true
    }

    pub async fn leave(&self, agent: &AgentId, conn: ConnId, why: Leaving) {
        lock(&self.state).conns.remove(&conn);
        let said = FromConn::Leave {
            agent: agent.to_string(),
            why,
        };
        self.say(conn, &said).await;
    }

    /// Passes an HTTP request from `peer` to the world; its answer, as it comes.
    pub async fn pass(
        &self,
        req: axum::http::Request<axum::body::Body>,
        peer: SocketAddr,
    ) -> axum::http::Response<axum::body::Body> {
        self.passing.pass(req, peer).await
    }
}

/// Hands what the world says to each connection to that connection's queue.
async fn deliver(mut inbox: async_nats::Subscriber, state: Arc<Mutex<State>>) {
    while let Some(msg) = inbox.next().await {
        let Some((_, conn)) = wire::parse_conn(&msg.subject) else {
            continue;
        };
        let Ok(said) = serde_json::from_slice::<ToConn>(&msg.payload) else {
            tracing::warn!(subject = %msg.subject, "the world sent what this host cannot read");
            continue;
        };
        let out = Out::from(said);
        let mut state = lock(&state);
        match out {
            Out::Close(_) => {
                if let Some(held) = state.conns.remove(&conn) {
                    held.sink.pass(out);
                }
            }
            Out::Reply { .. } => {
                if let Some(held) = state.conns.get_mut(&conn) {
                    held.answered = held.taken.min(held.answered + 1);
                    held.sink.pass(out);
                }
            }
            _ => {
                if let Some(held) = state.conns.get(&conn) {
                    held.sink.pass(out);
                }
            }
        }
    }
}

/// Follows what the world says of itself, and notices its silence: tells people when the town
/// pauses and when it is back, and brings every connection into a world that restarted.
async fn follow(
    mut news: async_nats::Subscriber,
    client: async_nats::Client,
    host: String,
    http: Option<SocketAddr>,
    url: String,
    state: Arc<Mutex<State>>,
) {
    let mut check = tokio::time::interval(wire::BEAT);
    loop {
        let heard = tokio::select! {
            n = news.next() => match n {
                Some(msg) => serde_json::from_slice::<News>(&msg.payload).ok(),
                None => return,
            },
            _ = check.tick() => {
                let mut state = lock(&state);
                let silent = state.last_heard.elapsed();
                if silent > wire::AWAY_AFTER {
                    state.gone();
                }
                if silent > state.wait && !state.conns.is_empty() {
                    tracing::warn!(connections = state.conns.len(), "the world has been away too long; closing connections");
                    for (_, held) in state.conns.drain() {
                        held.sink.send(Out::Close(vec![GAVE_UP.into()]));
                    }
                }
                continue;
            }
        };
        let (epoch, down) = match heard {
            Some(News::Up { epoch } | News::Beat { epoch }) => (epoch, false),
            Some(News::Down { epoch }) => (epoch, true),
            None => continue,
        };
        let known = lock(&state).epoch;
        if down {
            if epoch == known {
                lock(&state).away(PAUSES);
            }
            continue;
        }
        if epoch == known {
            let mut state = lock(&state);
            state.last_heard = Instant::now();
            if !state.up {
                state.up = true;
                state.requests.set_up();
                state.tell_all(BACK);
            }
            continue;
        }
        // A new run of the world: greet it, then bring everyone back in.
        match greet(&client, &host, http, &url).await {
            Ok(welcome) if welcome.epoch == epoch => {}
            Ok(_) => continue,
            Err(e) => {
                tracing::warn!(error = %e, "the restarted world would not take this host");
                continue;
            }
        }
        let back: Vec<(ConnId, AgentId)> = {
            let mut state = lock(&state);
            state.answer_in_flight();
            state.requests.world_away();
            state.epoch = epoch;
            state.up = true;
            state.requests.set_up();
            state.last_heard = Instant::now();
            state.tell_all(BACK);
            // Those that entered this run already (a login while the host greeted it) are in.
            state
                .conns
                .iter_mut()
                .filter(|(_, held)| held.epoch != epoch)
                .map(|(conn, held)| {
                    held.epoch = epoch;
                    held.taken += 1;
                    (*conn, held.agent.clone())
                })
                .collect()
        };
        tracing::info!(
            epoch,
            connections = back.len(),
            "the world restarted; bringing connections back"
        );
        for (conn, agent) in back {
            let said = FromConn::Enter {
                agent: agent.to_string(),
                created: false,
            };
            if let Ok(body) = serde_json::to_vec(&said) {
                let _ = client.publish(wire::conn(&host, conn), body.into()).await;
            }
        }
    }
}
