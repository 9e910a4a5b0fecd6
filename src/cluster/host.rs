//! A host's end of the link: [`Remote`], the [`Town`](super::Town) of a `moot host`.
//!
//! The host keeps its connections whatever the world does. It hears the world say it is up,
//! alive (a beat every quarter second) or going down; when the world stops (an upgrade's
//! SIGTERM, or a kill), its people are told the town pauses and stay connected, a line typed
//! meanwhile is refused as not done, and a line the world had taken but not answered is
//! answered for it (whatever it changed was stored before anyone would have heard). When a
//! world answers again under a new epoch, the host greets it and brings every connection back
//! in, as the character it was: nobody logs in again. The host beats too, so that a world can
//! tell it gone from quiet; one the world let go for its silence is told so, and comes back in
//! the same way.

use std::collections::{HashMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

mod calls;
mod kept;

use super::asked::{Answers, Asking};
use super::heard::Heard;
pub use super::held::{AWAY, BACK, GAVE_UP, NOT_DONE, PAUSES, RESUMED, UNANSWERED};
use super::held::{Back, Held, State};
use super::nats::{LinkError, connect, subscribe};
use super::wire::{self, Answer, Ask, FromConn, Hello, News, ToConn, Welcome};
use crate::logins::{CreateRefused, Refused};
use moot_kernel::store::AgentRow;
use moot_kernel::world::{self, AgentId, ConnId, Leaving, Out, Source};

/// How long a host waits for the world to answer a question before taking it as away.
const ASK_TIMEOUT: Duration = Duration::from_secs(10);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A host's way to the world across the broker.
pub struct Remote {
    client: async_nats::Client,
    /// This host's name on the broker: given (`--host-name`, as the broker's permissions name
    /// it), or random; two hosts never share one.
    host: String,
    /// Where this host's HTTP listener is, told to the world in each greeting.
    http: Option<SocketAddr>,
    state: Arc<Mutex<State>>,
    /// Its questions in flight.
    asking: Asking,
    /// Where their answers come.
    answers: Arc<Answers>,
    /// The questions to send, a batch a turn ([`Answers::send`]).
    questions: mpsc::UnboundedSender<wire::Question>,
    /// What its connections say, for [`send_batches`] to send to the world in order.
    saying: Saying,
    /// Its copies of reads' answers, which the world need not send again ([`kept`]).
    kept: kept::Kept,
    /// When the world last said anything ([`Heard`]); the state holds it too.
    heard: Arc<Heard>,
    /// Ends the host's own tasks (its beats, following the world) when it is dropped.
    stop: CancellationToken,
}

impl Drop for Remote {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Greets the world on this host's own subject; its welcome, or why not. A greeting that
/// nobody answers is followed by a hello on the subject without a version, to tell a world of
/// another protocol, and one that did not let this host in, from none at all.
async fn greet(
    client: &async_nats::Client,
    host: &str,
    http: Option<SocketAddr>,
    url: &str,
) -> Result<Welcome, LinkError> {
    let hello = serde_json::to_vec(&Hello::ours(host, http))
        .map_err(|e| LinkError::Garbled(e.to_string()))?;
    let asked = client.request(wire::greet(host), hello.clone().into());
    let answer = match tokio::time::timeout(ASK_TIMEOUT, asked).await {
        Ok(Ok(answer)) => answer,
        _ => {
            let asked = client.request(wire::HELLO, hello.into());
            let no_world = || LinkError::NoWorld {
                url: super::nats::redacted(url),
            };
            let answer = tokio::time::timeout(ASK_TIMEOUT, asked)
                .await
                .map_err(|_| no_world())?
                .map_err(|_| no_world())?;
            let welcome: Welcome = serde_json::from_slice(&answer.payload)
                .map_err(|e| LinkError::Garbled(e.to_string()))?;
            if let Some(why) = wire::mismatch(wire::PROTOCOL, welcome.protocol, &welcome.version) {
                return Err(LinkError::Mismatch(why));
            }
            return Err(LinkError::NotLetIn {
                url: super::nats::redacted(url),
                host: host.to_owned(),
                from: wire::from_host(host),
                inbox: wire::inbox(host),
            });
        }
    };
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
    /// The host is `name` on the broker (what a broker's permissions for it name), or a random
    /// name without one.
    pub async fn open(
        url: &str,
        name: Option<&str>,
        http: Option<SocketAddr>,
        wait: Duration,
    ) -> Result<(Remote, Welcome), LinkError> {
        let host = match name {
            Some(name) if wire::host_name_ok(name) => name.to_owned(),
            Some(name) => return Err(LinkError::HostName(name.to_owned())),
            None => format!("{:016x}", rand::random::<u64>()),
        };
        let inbox = wire::inbox(&host);
        let client = connect(url, &format!("moot host {host}"), Some(&inbox)).await?;
        // Heard before the greeting, so that no word of the world's is missed after it.
        let news = subscribe(&client, wire::news()).await?;
        let inbox = subscribe(&client, wire::to_conns(&host)).await?;
        let heard = Arc::new(Heard::new());
        let answers = Arc::new(Answers::new(&host));
        let pieces = subscribe(&client, answers.subject()).await?;
        tokio::spawn(answers.clone().route(pieces, heard.clone()));
        let (questions, queued) = mpsc::unbounded_channel();
        let to = wire::questions(&host);
        tokio::spawn(answers.clone().send(client.clone(), to, queued));
        let welcome = greet(&client, &host, http, url).await?;
        // Its welcome is the world's latest word, however long the greeting took.
        heard.now();
        let (asking, requests) = Asking::open(client.clone(), &host, wait);
        let state = Arc::new(Mutex::new(State {
            epoch: welcome.epoch,
            up: true,
            heard: heard.clone(),
            conns: HashMap::new(),
            requests,
            wait,
            forgot: 0,
        }));
        let (tx, rx) = mpsc::unbounded_channel();
        let saying = Saying(tx);
        tokio::spawn(send_batches(client.clone(), wire::conns(&host), rx));
        tokio::spawn(deliver(inbox, state.clone(), saying.clone()));
        let remote = Remote {
            client,
            host,
            http,
            state,
            asking,
            answers,
            questions,
            saying,
            kept: kept::Kept::default(),
            heard,
            stop: CancellationToken::new(),
        };
        tokio::spawn(beat(
            remote.client.clone(),
            remote.host.clone(),
            remote.state.clone(),
            remote.stop.clone(),
        ));
        let following = follow(
            news,
            remote.client.clone(),
            remote.host.clone(),
            remote.http,
            url.to_owned(),
            remote.state.clone(),
            remote.saying.clone(),
        );
        let stop = remote.stop.clone();
        tokio::spawn(async move {
            tokio::select! {
                _ = following => {}
                _ = stop.cancelled() => {}
            }
        });
        tracing::info!(host = %remote.host, world = %welcome.version, "joined the world");
        Ok((remote, welcome))
    }

    async fn ask(&self, ask: &Ask) -> Option<Answer> {
        let body = serde_json::to_vec(ask).ok()?;
        let answer = tokio::time::timeout(
            ASK_TIMEOUT,
            self.client.request(wire::ask(&self.host), body.into()),
        )
        .await
        .ok()?
        .ok()?;
        self.heard.now();
        serde_json::from_slice(&answer.payload).ok()
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
    ) -> Result<wire::Character, Refused> {
        let ask = Ask::Connect {
            ip,
            name: name.to_owned(),
            password: password.to_owned(),
        };
        match self.ask(&ask).await {
            Some(Answer::Connect(answer)) => answer,
            _ => Err(Refused::Unavailable),
        }
    }

    pub async fn create(
        &self,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<wire::Character, CreateRefused> {
        let ask = Ask::Create {
            ip,
            name: name.to_owned(),
            password: password.to_owned(),
        };
        match self.ask(&ask).await {
            Some(Answer::Create(answer)) => answer,
            _ => Err(CreateRefused::Unavailable),
        }
    }

    pub async fn enter(
        &self,
        row: AgentRow,
        pass: String,
        created: bool,
        conn: ConnId,
    ) -> Option<Source> {
        let (sink, source) = world::channel();
        {
            let mut state = lock(&self.state);
            let epoch = state.epoch;
            state.conns.insert(
                conn,
                Held {
                    sink,
                    agent: row.agent_id.as_str().into(),
                    pass: pass.clone(),
                    epoch,
                    sent: 1,
                    settled: 0,
                },
            );
        }
        let said = FromConn::Enter {
            agent: row.agent_id,
            pass,
            created,
            seq: 1,
            again: false,
        };
        if self.saying.say(conn, said) {
            Some(source)
        } else {
            lock(&self.state).conns.remove(&conn);
            None
        }
    }

    /// Sends a line to the world. Its answer comes through the connection's queue: the
    /// world's, or the host's for it: not done, if the world did not take it (or no world was
    /// there to take it), and unanswered if the world went away before answering.
    pub async fn line(&self, agent: &AgentId, conn: ConnId, line: String) -> bool {
        // Numbered before it is sent: its answer may come before the world's word that it
        // took it.
        let seq = {
            let mut state = lock(&self.state);
            let up = state.up;
            match state.conns.get_mut(&conn) {
                Some(held) if up => held.next(),
                Some(held) => {
                    let seq = held.next();
                    held.settle(seq, NOT_DONE);
                    return true;
                }
                None => return true,
            }
        };
        let said = FromConn::Line {
            agent: agent.to_string(),
            line,
            seq,
        };
        self.saying.say(conn, said)
    }

    pub async fn leave(&self, agent: &AgentId, conn: ConnId, why: Leaving) {
        lock(&self.state).conns.remove(&conn);
        let said = FromConn::Leave {
            agent: agent.to_string(),
            why,
        };
        self.saying.say(conn, said);
    }
}

/// The queue of what this host's connections say to the world, in the order they said it.
/// It holds at most a line a connection besides their comings and goings: a connection sends
/// its next line only once the last is answered.
#[derive(Clone)]
struct Saying(mpsc::UnboundedSender<(ConnId, FromConn)>);

impl Saying {
    /// Queues `said` for the world; false if the host is going.
    fn say(&self, conn: ConnId, said: FromConn) -> bool {
        self.0.send((conn, said)).is_ok()
    }
}

/// Sends what the connections say to the world on `subject`, everything queued since the last
/// batch in one message.
async fn send_batches(
    client: async_nats::Client,
    subject: String,
    mut saying: mpsc::UnboundedReceiver<(ConnId, FromConn)>,
) {
    let mut batch = Vec::new();
    // The other connections this runtime has ready to run read their lines first: one batch
    // carries a turn's worth, not the first line alone.
    let bytes = |(_, said): &(ConnId, FromConn)| {
        64 + match said {
            FromConn::Line { line, .. } => line.len(),
            _ => 128,
        }
    };
    while wire::next_batch(&mut saying, &mut batch, true, bytes).await {
        // A batch the broker does not take is lost with the world's link: what it held is
        // answered when the world is known to be away.
        wire::publish(&client, &subject, None, &batch).await;
        batch.clear();
    }
}

/// Hands what the world says to each connection to that connection's queue.
async fn deliver(mut inbox: async_nats::Subscriber, state: Arc<Mutex<State>>, saying: Saying) {
    // Connections told lately to the world as gone, so that a burst for one is told once.
    let mut told: VecDeque<ConnId> = VecDeque::new();
    while let Some(msg) = inbox.next().await {
        let Some(batch) = wire::decode::<wire::ToConns>(&msg.payload) else {
            tracing::warn!(subject = %msg.subject, "the world sent what this host cannot read");
            continue;
        };
        let mut unheld = Vec::new();
        {
            let mut state = lock(&state);
            // Only the world speaks on this subject.
            state.heard.now();
            for wire::Told { conns, what } in batch.0 {
                if let [conn] = conns[..] {
                    hand(&mut state, conn, what, &mut unheld);
                    continue;
                }
                match what {
                    ToConn::Reply { .. } | ToConn::Refused { .. } | ToConn::Close(_) => {
                        for conn in conns {
                            hand(&mut state, conn, what.clone(), &mut unheld);
                        }
                    }
                    // What many hear is made once here too, and shared as the world shared it.
                    what => {
                        let Some(out) = what.out() else { continue };
                        for conn in conns {
                            match state.conns.get(&conn) {
                                Some(held) => held.sink.pass(out.clone()),
                                None => unheld.push(conn),
                            }
                        }
                    }
                }
            }
        }
        // The world speaks to a connection this host no longer holds (it left while the world
        // was letting it back in): whoever the world has there leaves.
        for conn in unheld {
            if told.contains(&conn) {
                continue;
            }
            if told.len() == 64 {
                told.pop_front();
            }
            told.push_back(conn);
            saying.say(conn, FromConn::Gone);
        }
    }
}

/// Hands `what` to connection `conn`'s queue; notes the connection in `unheld` if this host
/// holds no such connection.
fn hand(state: &mut State, conn: ConnId, what: ToConn, unheld: &mut Vec<ConnId>) {
    let held = match what {
        ToConn::Reply { seq, lines, more } => state
            .conns
            .get_mut(&conn)
            .map(|held| held.answered(seq, lines, more))
            .is_some(),
        ToConn::Refused { seq } => state
            .conns
            .get_mut(&conn)
            .map(|held| held.settle(seq, NOT_DONE))
            .is_some(),
        ToConn::Close(lines) => {
            if let Some(held) = state.conns.remove(&conn) {
                held.sink.pass(Out::Close(lines));
            }
            true
        }
        what => match (state.conns.get(&conn), what.out()) {
            (Some(held), Some(out)) => {
                held.sink.pass(out);
                true
            }
            (held, _) => held.is_some(),
        },
    };
    if !held {
        unheld.push(conn);
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
    saying: Saying,
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
                let silent = state.heard.silent();
                if silent > wire::AWAY_AFTER {
                    if state.up {
                        tracing::warn!(?silent, connections = state.conns.len(), "the world has been silent too long; telling this host's people the town is not answering");
                    }
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
            Some(News::Forgot {
                epoch,
                host: forgotten,
                time,
            }) => {
                if forgotten != host {
                    continue;
                }
                let before = {
                    let mut state = lock(&state);
                    if state.epoch != epoch || time <= state.forgot {
                        continue;
                    }
                    std::mem::replace(&mut state.forgot, time)
                };
                // Greeted again first: the world has dropped what it kept of this host.
                match greet(&client, &host, http, &url).await {
                    Ok(welcome) if welcome.epoch == epoch => {}
                    _ => {
                        // Told again at the next beat.
                        lock(&state).forgot = before;
                        continue;
                    }
                }
                let back = lock(&state).rejoin(epoch, true);
                tracing::warn!(
                    connections = back.len(),
                    "the world took this host for dead; bringing its connections back"
                );
                reenter(&saying, back);
                continue;
            }
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
            state.heard.now();
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
        let back = lock(&state).rejoin(epoch, false);
        tracing::info!(
            epoch,
            connections = back.len(),
            "the world restarted; bringing connections back"
        );
        reenter(&saying, back);
    }
}

/// Brings connections back into the world, each as the character it was.
fn reenter(saying: &Saying, back: Vec<Back>) {
    for Back {
        conn,
        agent,
        pass,
        seq,
    } in back
    {
        let said = FromConn::Enter {
            agent: agent.to_string(),
            pass,
            created: false,
            seq,
            again: true,
        };
        saying.say(conn, said);
    }
}

/// Says, every beat, that this host is alive (and which run of the world it is in), for the
/// world to tell a host gone from one that is quiet.
async fn beat(
    client: async_nats::Client,
    host: String,
    state: Arc<Mutex<State>>,
    stop: CancellationToken,
) {
    let mut beat = tokio::time::interval(wire::BEAT);
    let subject = wire::host_beat(&host);
    loop {
        tokio::select! {
            _ = beat.tick() => {}
            _ = stop.cancelled() => return,
        }
        #[cfg(feature = "testing")]
        super::late("MOOT_TESTING_HOST_BEATS_LATE_MS").await;
        let epoch = lock(&state).epoch;
        if let Ok(body) = serde_json::to_vec(&epoch) {
            let _ = client.publish(subject.clone(), body.into()).await;
        }
    }
}
