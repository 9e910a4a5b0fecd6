//! The world's end of the link over a NATS broker: [`serve`] runs beside the world task in a
//! world process and answers every host (the host's end is `host::Remote`).
//!
//! Order is what NATS gives one publisher to one subscriber: everything a host's connections
//! say reaches the world in the order it was said (the host sends it in batches, in order, and
//! one subscription takes them all), and everything the world says to a host's connections
//! reaches it in the order the world decided it: every connection of a host has its notices
//! put in that host's one queue ([`HostQueue`]), and one task sends them, a batch at a time.
//! A connection's queue on the host is bounded as the world's own are, so a broker that
//! delivers faster than a client reads costs the host no more memory than a slow client costs
//! a single process.
//!
//! The world hears each host's beat, and its own: a host silent for `HOST_LOST_AFTER` while
//! the world hears itself is taken for dead and its people leave the town, since nobody else
//! would say they left.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::asked::Answering;
use super::calls::Tools;
use super::door::Door;
use super::nats::{LinkError, subscribe};
use super::pass::Passes;
use super::wire::{
    self, Answer, Ask, CallRefused, Character, FromConn, Hello, News, ToConn, Told, Welcome,
};
use moot_kernel::world::{self, AgentId, Carrier, ConnId, Drained, Leaving, Out, Request};
use replies::{Inbox, Replies, reply, send};

/// A connection of a host, as the world knows it.
struct Held {
    conn: ConnId,
    agent: AgentId,
    link: Arc<Link>,
    /// Its host's queue.
    queue: Arc<HostQueue>,
}

impl Held {
    /// Nothing more is carried to the connection; the request that has it leave the town.
    fn leaving(self, why: Leaving) -> Request {
        self.link.retire();
        self.queue.send(Carried::Retired(self.conn));
        Request::Leave {
            agent: self.agent,
            conn: self.conn,
            why,
        }
    }
}

/// One host's queue: what the world says to any of that host's connections, in the world's
/// order, for [`carry`] to send across a batch at a time.
#[derive(Debug)]
struct HostQueue(mpsc::UnboundedSender<Carried>);

impl HostQueue {
    fn send(&self, carried: Carried) {
        let _ = self.0.send(carried);
    }

    /// Says `what` to the host's connection `conn`, which the world holds no queue for (a
    /// refused line, a refused login).
    fn tell(&self, conn: u64, what: ToConn) {
        self.send(Carried::Told(conn, what));
    }

    /// Resolves once the carrier has handed the broker all that was queued before (or has
    /// ended).
    async fn flushed(&self) {
        let (done, sent) = tokio::sync::oneshot::channel();
        self.send(Carried::Flushed(done));
        let _ = sent.await;
    }
}

impl Carrier for HostQueue {
    fn carry(&self, conn: ConnId, out: Out) {
        self.send(Carried::Out(conn, out));
    }
}

/// What goes in a host's queue.
#[derive(Debug)]
enum Carried {
    /// A connection of the host's enters the world as `conn`: what the world says to it is
    /// carried from now on.
    Enter {
        conn: ConnId,
        host_conn: u64,
        link: Arc<Link>,
        drained: Drained,
    },
    /// What the world says to connection `conn`.
    Out(ConnId, Out),
    /// Said to the host's connection, outside the world.
    Told(u64, ToConn),
    /// The world has let connection `conn` go: nothing more is carried to it.
    Retired(ConnId),
    /// Said once what was queued before has gone to the broker.
    Flushed(tokio::sync::oneshot::Sender<()>),
}

/// What the world's side of one host connection shares with the task carrying its notices.
#[derive(Debug, Default)]
struct Link {
    /// The host's numbers of what the world has taken and not yet answered, oldest first: the
    /// world answers in order, so each answer is to the first.
    asked: Mutex<VecDeque<u64>>,
    /// Set when the world lets this connection go (its host forgotten, or the same host
    /// connection entering again): nothing more is carried for it.
    retired: AtomicBool,
}

impl Link {
    /// Counts `seq` as taken, unless the connection already has as many lines held as the
    /// world takes.
    fn ask(&self, seq: u64) -> bool {
        let mut asked = lock(&self.asked);
        let room = asked.len() < wire::LINES_HELD;
        if room {
            asked.push_back(seq);
        }
        room
    }

    /// Takes back the last request counted: the world did not take it after all.
    fn unask(&self) {
        lock(&self.asked).pop_back();
    }

    /// Which of the connection's requests the world's next answer is for.
    fn answered(&self) -> u64 {
        lock(&self.asked).pop_front().unwrap_or(0)
    }

    fn retire(&self) {
        self.retired.store(true, Ordering::Relaxed);
    }

    fn retired(&self) -> bool {
        self.retired.load(Ordering::Relaxed)
    }
}

/// Each host's connections, by the host's number for them.
type HeldMap = Arc<Mutex<HashMap<String, HashMap<u64, Held>>>>;

/// Each greeted host's queue.
type Queues = HashMap<String, Arc<HostQueue>>;

/// The hosts the world has heard from lately, kept apart from the loop that answers them so
/// that a busy world never takes a live host for dead.
#[derive(Default)]
struct Hosts {
    /// When each host last said it was alive.
    heard: HashMap<String, Instant>,
    /// Hosts let go for their silence (numbered, and when), told so at each beat of theirs
    /// until they greet the world again; forgotten in turn after [`FORGOTTEN_FOR`].
    forgotten: HashMap<String, (u64, Instant)>,
    /// When the world last heard its own beat through the broker: a world that cannot hear
    /// itself cannot hear anyone.
    own: Option<Instant>,
    /// Hosts let go so far.
    times_let_go: u64,
}

/// How long a host let go may come back and be told so: longer than any host waits for a
/// world it cannot hear (`--world-wait`) before closing its connections.
const FORGOTTEN_FOR: Duration = Duration::from_secs(3600);

impl Hosts {
    /// The world heard its own beat.
    fn own_beat(&mut self, now: Instant) {
        self.own = Some(now);
    }

    fn hears_itself(&self, now: Instant) -> bool {
        self.own
            .is_some_and(|t| now.saturating_duration_since(t) <= wire::AWAY_AFTER)
    }

    /// The hosts silent for too long, let go. Silence counts only while the world hears
    /// itself: hosts that lost the broker with it have as long again to find it once it is
    /// back (they retry at most 4 s apart), and one that misses that is told, and comes back.
    fn lost(&mut self, now: Instant) -> Vec<String> {
        self.forgotten
            .retain(|_, (_, at)| now.saturating_duration_since(*at) < FORGOTTEN_FOR);
        if !self.hears_itself(now) {
            for heard in self.heard.values_mut() {
                *heard = now;
            }
            return Vec::new();
        }
        let lost: Vec<String> = self
            .heard
            .iter()
            .filter(|(_, heard)| now.saturating_duration_since(**heard) > wire::HOST_LOST_AFTER)
            .map(|(host, _)| host.clone())
            .collect();
        for host in &lost {
            self.heard.remove(host);
            self.times_let_go += 1;
            self.forgotten
                .insert(host.clone(), (self.times_let_go, now));
        }
        lost
    }

    /// A host greeted the world: alive, and in it.
    fn greeted(&mut self, host: String, now: Instant) {
        self.forgotten.remove(&host);
        self.heard.insert(host, now);
    }
}

/// Hears the world's own beats and the hosts'; tells a host the world let go of that it was,
/// at each beat of its until it greets the world again (a message through the broker may be
/// lost; the next one is not).
async fn hear_hosts(
    client: async_nats::Client,
    mut beats: async_nats::Subscriber,
    mut news: async_nats::Subscriber,
    hosts: Arc<Mutex<Hosts>>,
    epoch: u64,
) {
    loop {
        tokio::select! {
            Some(msg) = news.next() => {
                if let Ok(News::Beat { epoch: beat }) = serde_json::from_slice(&msg.payload)
                    && beat == epoch
                {
                    lock(&hosts).own_beat(Instant::now());
                }
            }
            Some(msg) = beats.next() => {
                let Some(host) = wire::host_of(&msg.subject) else {
                    continue;
                };
                // Only a host that greeted keeps itself alive by beating; one let go is told
                // so, and any other is nobody this world knows.
                let told = {
                    let mut hosts = lock(&hosts);
                    if let Some(heard) = hosts.heard.get_mut(host) {
                        *heard = Instant::now();
                    }
                    hosts.forgotten.get(host).map(|(time, _)| *time)
                };
                let ours = serde_json::from_slice::<u64>(&msg.payload).ok() == Some(epoch);
                if let Some(time) = told
                    && ours
                {
                    let forgot = News::Forgot {
                        epoch,
                        host: host.to_owned(),
                        time,
                    };
                    if let Ok(body) = serde_json::to_vec(&forgot) {
                        let _ = client.publish(wire::news(), body.into()).await;
                    }
                }
            }
            else => return,
        }
    }
}

/// What the world hears on the broker, subscribed to before it says it has started: a host
/// greeting it the moment it has is answered, not told that nobody listens.
pub struct Listening {
    hellos: async_nats::Subscriber,
    greetings: async_nats::Subscriber,
    asks: async_nats::Subscriber,
    questions: async_nats::Subscriber,
    conns: async_nats::Subscriber,
    take_backs: async_nats::Subscriber,
    beats: async_nats::Subscriber,
    own_beats: async_nats::Subscriber,
}

/// Subscribes to everything the world answers, and waits until the broker has them all (a
/// flush: the broker has read every subscription once it answers).
pub async fn listen(client: &async_nats::Client) -> Result<Listening, LinkError> {
    let listening = Listening {
        hellos: subscribe(client, wire::HELLO.to_owned()).await?,
        greetings: subscribe(client, wire::greetings()).await?,
        asks: subscribe(client, wire::asks()).await?,
        questions: subscribe(client, wire::all_questions()).await?,
        conns: subscribe(client, wire::all_conns()).await?,
        take_backs: subscribe(client, wire::take_backs()).await?,
        beats: subscribe(client, wire::host_beats()).await?,
        own_beats: subscribe(client, wire::news()).await?,
    };
    client
        .flush()
        .await
        .map_err(|e| LinkError::Subscribe(e.to_string()))?;
    Ok(listening)
}

/// Answers hosts for the world behind `door` until `stop`: greetings, questions, and what
/// their connections say, as `listening` hears them.
pub async fn serve(
    client: async_nats::Client,
    listening: Listening,
    door: Arc<Door>,
    welcome: String,
    tools: Tools,
    stop: CancellationToken,
) -> Result<(), LinkError> {
    let Listening {
        mut hellos,
        mut greetings,
        mut asks,
        mut questions,
        mut conns,
        mut take_backs,
        beats,
        own_beats,
    } = listening;
    let passes = Passes::open(&door.store).await.map_err(LinkError::Passes)?;
    let answering = Answering::default();
    let replies = Replies::start(&client);
    let held: HeldMap = Arc::default();
    let mut queues = Queues::new();
    let hosts: Arc<Mutex<Hosts>> = Arc::default();
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
                        #[cfg(feature = "testing")]
                        super::late("MOOT_TESTING_WORLD_BEATS_LATE_MS").await;
                        let _ = client.publish(wire::news(), body.clone().into()).await;
                    }
                    _ = beating.cancelled() => return,
                }
            }
        });
    }
    let hearing = tokio::spawn(hear_hosts(
        client.clone(),
        beats,
        own_beats,
        hosts.clone(),
        epoch,
    ));
    let mut check = tokio::time::interval(wire::BEAT);
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
                // Bounded: with the broker gone a while, the client's queue is full and a
                // publish waits for a broker that may never come back.
                let _ = tokio::time::timeout(ANSWERED_WITHIN, news(News::Down { epoch })).await;
                closing = true;
                until_closed.as_mut().reset(tokio::time::Instant::now() + CLOSING);
            }
            _ = &mut until_closed, if closing => break,
            _ = check.tick() => {
                // Hosts are told they were let go only once this has run (the loop does
                // nothing else meanwhile), so none comes back before its people have left.
                let lost = lock(&hosts).lost(Instant::now());
                for host in lost {
                    queues.remove(&host);
                    forget(&door, &held, &answering, &host).await;
                }
            }
            Some(msg) = hellos.next() => say_hello(&client, &msg, &welcome, epoch).await,
            Some(msg) = greetings.next() => {
                let Some(hello) = greeting(&msg) else { continue };
                let host = hello.host.clone();
                // Greeting a world that holds its connections, the host started again under
                // the same name: nobody else will say its people left.
                let restarted = lock(&held).get(&host).is_some_and(|conns| !conns.is_empty());
                if restarted {
                    tracing::warn!(%host, "a host greeted again; its earlier connections leave");
                    queues.remove(&host);
                    forget(&door, &held, &answering, &host).await;
                }
                tracing::info!(%host, http = ?hello.http, "a host joined");
                // Whatever a host of that name asked before it greeted is nobody's now: a host
                // greets when it starts, and after this world let it go (which dropped them).
                answering.forget(&host);
                lock(&hosts).greeted(host.clone(), Instant::now());
                if let Entry::Vacant(vacant) = queues.entry(host.clone()) {
                    let (tx, rx) = mpsc::unbounded_channel();
                    vacant.insert(Arc::new(HostQueue(tx)));
                    tokio::spawn(carry(client.clone(), host.clone(), rx, held.clone()));
                }
                reply(&client, &msg, &host, &welcome_of(&welcome, epoch)).await;
            }
            Some(msg) = take_backs.next() => {
                if let Some(host) = wire::host_of(&msg.subject) {
                    answering.take_back(host, &msg);
                }
            }
            Some(msg) = asks.next() => {
                let Some(host) = wire::host_of(&msg.subject).map(str::to_owned) else { continue };
                if !heard_from(&hosts, &host) {
                    tracing::warn!(%host, "a host that has not greeted this world asked it something");
                    continue;
                }
                let Ok(ask) = serde_json::from_slice::<Ask>(&msg.payload) else {
                    tracing::warn!(%host, "a host asked what this world cannot read");
                    continue;
                };
                let (client, door, passes) = (client.clone(), door.clone(), passes.clone());
                tokio::spawn(async move { answer(&client, &door, &passes, &host, ask, msg).await });
            }
            Some(msg) = questions.next() => {
                let Some(host) = wire::host_of(&msg.subject).map(str::to_owned) else { continue };
                if !heard_from(&hosts, &host) {
                    tracing::warn!(%host, "a host that has not greeted this world asked it something");
                    continue;
                }
                let to: Inbox = match &msg.reply {
                    Some(to) if wire::is_inbox_of(to, &host) => to.as_str().into(),
                    to => {
                        tracing::warn!(%host, reply = ?to, "a host asked for its answers outside its own inbox");
                        continue;
                    }
                };
                let batch = wire::decode::<Vec<wire::Question>>(&msg.payload)
                    .filter(|b| b.len() <= wire::BATCH_ITEMS);
                let Some(batch) = batch else {
                    tracing::warn!(%host, "a host asked what this world cannot read");
                    continue;
                };
                for question in batch {
                    let id = question.id;
                    let Ok(ask) = serde_json::from_slice::<Ask>(&question.ask) else {
                        tracing::warn!(%host, "a host asked what this world cannot read");
                        replies.answer(&to, id, &not_answered());
                        continue;
                    };
                    let (door, replies, to, tools) = (door.clone(), replies.clone(), to.clone(), tools.clone());
                    // A tool call or a page's question may wait (a long poll): its host may
                    // take it back, and one that only reads is left, while the world goes, for
                    // the host to ask the next.
                    // Whether it only reads, looked up once: for what is taken back and owed
                    // here, and for the answer's tag (`answer_question`).
                    let reads = match &ask {
                        Ask::Tool(call) => crate::games::find_tool(&call.name, crate::games::toolsets())
                            .is_some_and(|e| e.read_only),
                        Ask::Verb(call) => crate::games::find(&call.verb).is_some_and(|e| e.read_only),
                        Ask::Web { ask, .. } => ask.read_only(),
                        _ => false,
                    };
                    let again = matches!(&ask, Ask::Tool(_) | Ask::Web { .. }).then_some(reads);
                    let Some(again) = again else {
                        // Never taken back: a write the world began is finished and answered,
                        // and a stopping world waits for it (see below).
                        let owed = match &ask {
                            Ask::Verb(_) => !reads,
                            Ask::Agent(_) => true,
                            _ => false,
                        };
                        let owed = owed.then(|| answering.owe());
                        // Boxed, as below: a task's future is moved whole when spawned and
                        // when it ends, and a question's is kilobytes.
                        tokio::spawn(async move {
                            let answer = Box::pin(answer_question(&door, &tools, ask, reads)).await;
                            replies.answer(&to, id, &answer);
                            drop(owed);
                        });
                        continue;
                    };
                    if closing && again {
                        continue;
                    }
                    answering.run(&host, id, again, async move {
                        let answer = match (closing, ask) {
                            (true, Ask::Web { .. }) => Answer::Web(Err(CallRefused::Away)),
                            (true, _) => Answer::Tool(Err(CallRefused::Away)),
                            (false, ask) => Box::pin(answer_question(&door, &tools, ask, reads)).await,
                        };
                        replies.answer(&to, id, &answer);
                    });
                }
            }
            Some(msg) = conns.next() => {
                let Some(host) = wire::host_of(&msg.subject) else { continue };
                // Only a host that greeted has a queue: one that never did, or that this
                // world let go since, is told nothing (the latter hears at its next beat).
                let Some(queue) = queues.get(host).cloned() else {
                    tracing::warn!(%host, "a host that has not greeted this world spoke for its connections");
                    continue;
                };
                let batch = wire::decode::<wire::FromConns>(&msg.payload)
                    .filter(|b| b.0.len() <= wire::BATCH_ITEMS);
                let Some(batch) = batch else {
                    tracing::warn!(%host, "a host sent what this world cannot read");
                    continue;
                };
                let host = host.to_owned();
                heard_from(&hosts, &host);
                let mut requests = Vec::new();
                // The lines among them, to refuse if the world has stopped.
                let mut lines = Vec::new();
                for (conn, said) in batch.0 {
                    match said {
                        FromConn::Enter { agent, pass, .. } if !passes.admits(&host, &agent, &pass) => {
                            tracing::warn!(target: moot_kernel::logging::AUDIT, event = "entry_refused", %host, %agent, "a host would bring in a character without the world's pass");
                            queue.tell(conn, ToConn::Close(vec![
                                "*** This town did not let that login through; please log in again. ***".into(),
                            ]));
                        }
                        FromConn::Enter { agent, created, seq, again, .. } => {
                            let id = next_conn;
                            next_conn += 1;
                            let entering = Entering { host: &host, host_conn: conn, agent: &agent, created, seq, again };
                            enter(&door, &held, &queue, id, entering, &mut requests).await;
                        }
                        FromConn::Line { agent, line, seq } => {
                            let link = lock(&held)
                                .get(&host)
                                .and_then(|conns| conns.get(&conn))
                                .filter(|h| *h.agent == *agent)
                                .map(|h| (h.conn, h.link.clone()));
                            match link {
                                Some((id, link)) if !closing && link.ask(seq) => {
                                    requests.push(Request::Line { agent: agent.into(), conn: id, line });
                                    lines.push((link, conn, seq));
                                }
                                _ => queue.tell(conn, ToConn::Refused { seq }),
                            }
                        }
                        FromConn::Leave { agent, why } => {
                            let gone = take_held(&held, &host, conn, Some(&agent));
                            if let Some(h) = gone {
                                requests.push(h.leaving(why));
                            }
                        }
                        FromConn::Gone => {
                            if let Some(h) = take_held(&held, &host, conn, None) {
                                requests.push(h.leaving(Leaving::Lost));
                            }
                        }
                    }
                }
                if !requests.is_empty() && !door.world.batch(requests).await {
                    for (link, conn, seq) in lines {
                        link.unask();
                        queue.tell(conn, ToConn::Refused { seq });
                    }
                }
            }
            else => break,
        }
    }
    beating.cancel();
    hearing.abort();
    // What the world did last is told before the process may end: the questions it took that
    // cannot be asked again are answered (within a bound: one that outlasts it is the host's
    // "unknown"), and what its carriers hold (those answers, and the notices of the lines it
    // took last) is handed to the broker, and reaches it.
    let _ = tokio::time::timeout(ANSWERED_WITHIN, answering.settled()).await;
    // The lines the world took last have run and their notices are in the carriers' queues,
    // ahead of the markers below.
    let _ = tokio::time::timeout(ANSWERED_WITHIN, door.world.drained()).await;
    let carried = queues.values().map(|q| q.flushed());
    let _ = tokio::time::timeout(
        ANSWERED_WITHIN,
        futures_util::future::join(replies.flushed(), futures_util::future::join_all(carried)),
    )
    .await;
    // Bounded too: a world told to stop after its broker went would otherwise wait for it
    // for ever (and its supervisor would have to kill it).
    let _ = tokio::time::timeout(ANSWERED_WITHIN, client.flush()).await;
    Ok(())
}

/// How long a stopping world waits for the answers it owes, and then for its carriers.
const ANSWERED_WITHIN: Duration = Duration::from_secs(3);

/// Lets go of a host taken for dead: its people leave the town as if their connections had
/// dropped, and the requests it passed are dropped unanswered.
async fn forget(door: &Door, held: &HeldMap, answering: &Answering, host: &str) {
    let gone: Vec<Held> = lock(held)
        .remove(host)
        .map(|conns| conns.into_values().collect())
        .unwrap_or_default();
    if !gone.is_empty() {
        tracing::warn!(%host, connections = gone.len(), "a host has been silent too long; its people leave");
    }
    answering.forget(host);
    // Nothing more is carried to any of them from here (the host may be a new process
    // numbering its connections from 1 again), before the world is told they left.
    let leaving: Vec<Request> = gone.into_iter().map(|h| h.leaving(Leaving::Lost)).collect();
    if !leaving.is_empty() {
        door.world.batch(leaving).await;
    }
}

/// How long a stopping world goes on refusing lines (see `serve`).
const CLOSING: Duration = Duration::from_millis(300);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `host` has greeted this world (and not been let go since); if it has, what it just
/// said shows it alive as its beats do. Behind a backlog (thousands talking or logging in), a
/// beat can come later than the world's patience while its words keep coming.
fn heard_from(hosts: &Mutex<Hosts>, host: &str) -> bool {
    match lock(hosts).heard.get_mut(host) {
        Some(heard) => {
            *heard = Instant::now();
            true
        }
        None => false,
    }
}

fn welcome_of(welcome: &str, epoch: u64) -> Welcome {
    Welcome {
        protocol: wire::PROTOCOL,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        welcome: welcome.to_owned(),
        epoch,
    }
}

/// Answers a hello on the subject without a version: says which protocol this world speaks,
/// to a host of any, and takes nobody in (a host joins by its greeting on its own subject).
async fn say_hello(
    client: &async_nats::Client,
    msg: &async_nats::Message,
    welcome: &str,
    epoch: u64,
) {
    // Only into an inbox: a made-up reply subject does not turn this world's answer into
    // something said on one of its own subjects.
    match &msg.reply {
        Some(to) if to.starts_with("_INBOX.") => {
            send(client, to.to_string(), &welcome_of(welcome, epoch)).await;
        }
        _ => {}
    }
}

/// A host's greeting on its own subject, if it may join: the name in its body is the one its
/// subject gives (which the broker vouches for), and it speaks this world's protocol.
fn greeting(msg: &async_nats::Message) -> Option<Hello> {
    let host = wire::host_of(&msg.subject)?;
    let hello = match serde_json::from_slice::<Hello>(&msg.payload) {
        Ok(hello) => hello,
        Err(e) => {
            tracing::warn!(error = %e, %host, "a greeting this world cannot read");
            return None;
        }
    };
    if hello.host != host {
        tracing::warn!(%host, claimed = %hello.host, "a host greeted in another host's name");
        return None;
    }
    if let Some(why) = wire::mismatch(wire::PROTOCOL, hello.protocol, &hello.version) {
        tracing::warn!(%host, "a host was refused: {why}");
        return None;
    }
    Some(hello)
}

/// Answers a question asked whole (a login, the `who` table), in `host`'s inbox.
async fn answer(
    client: &async_nats::Client,
    door: &Door,
    passes: &Passes,
    host: &str,
    ask: Ask,
    msg: async_nats::Message,
) {
    let answer = match ask {
        Ask::Banned { ip } => Answer::Banned(door.banned(ip)),
        Ask::Who => Answer::Who(door.world.who().await),
        Ask::Connect { ip, name, password } => Answer::Connect(
            door.connect(ip, &name, &password)
                .await
                .map(|row| Character::vouched(row, passes, host)),
        ),
        Ask::Create { ip, name, password } => Answer::Create(
            door.create(ip, &name, &password)
                .await
                .map(|row| Character::vouched(row, passes, host)),
        ),
        Ask::Vouch(credential) => Answer::Vouch(super::calls::vouch(&door.directory, &credential)),
        // Asked in batches, answered in pieces (see `serve`).
        _ => {
            return tracing::warn!(%host, "a host asked whole what is answered in pieces");
        }
    };
    reply(client, &msg, host, &answer).await;
}

/// The answer to a question asked in a batch (its answer in pieces; a tool call or a page's
/// may wait, and is taken back if its host says so: see `serve`). The answer of a verb or tool
/// that `reads` goes tagged ([`replies::tagged`]).
async fn answer_question(door: &Arc<Door>, tools: &Tools, ask: Ask, reads: bool) -> Answer {
    match ask {
        Ask::Verb(mut call) => {
            let held = call.held.take();
            match super::games::call(door, call).await {
                Ok(answer) if reads => replies::tagged(answer, held),
                called => Answer::Verb(called),
            }
        }
        Ask::Agent(call) => Answer::Agent(door.make_agent(call).await),
        Ask::Metrics(token) => Answer::Metrics(door.metrics(token).await),
        Ask::Page(read) => Answer::Page(door.page(read).await),
        Ask::Mcp(read) => Answer::Mcp(door.mcp_read(tools, read).await),
        Ask::Tool(mut call) => {
            let held = call.held.take();
            match super::games::tool(door, tools, call).await {
                Ok(answer) if reads => replies::tagged(answer, held),
                called => Answer::Tool(called),
            }
        }
        Ask::Web { ask, .. } => Answer::Web(super::games::web(door, ask).await),
        // Asked whole, never in a batch by a host of this protocol (see [`answer`]).
        Ask::Banned { .. }
        | Ask::Who
        | Ask::Connect { .. }
        | Ask::Create { .. }
        | Ask::Vouch(_) => not_answered(),
    }
}

/// What a question the world cannot answer in a batch gets: nothing was done.
fn not_answered() -> Answer {
    Answer::Verb(Err(CallRefused::Unavailable(world::Unavailable::Internal)))
}

/// Host `host`'s connection `conn`, taken out of those the world holds: if `agent` is
/// given, only if it is theirs.
fn take_held(held: &HeldMap, host: &str, conn: u64, agent: Option<&str>) -> Option<Held> {
    let mut held = lock(held);
    let conns = held.get_mut(host)?;
    let theirs = conns
        .get(&conn)
        .is_some_and(|h| agent.is_none_or(|a| *h.agent == *a));
    theirs.then(|| conns.remove(&conn)).flatten()
}

/// A host's connection entering, as it said so.
struct Entering<'a> {
    host: &'a str,
    host_conn: u64,
    agent: &'a str,
    created: bool,
    seq: u64,
    again: bool,
}

/// A host's connection enters as the world's connection `conn`: the world reads the
/// character afresh (a host says who logged in, never what they may do), and what the world
/// says to it joins its host's queue. What has it enter, if it may, goes in `requests`, after
/// what is there.
async fn enter(
    door: &Door,
    held: &HeldMap,
    queue: &Arc<HostQueue>,
    conn: ConnId,
    entering: Entering<'_>,
    requests: &mut Vec<Request>,
) {
    let Entering {
        host,
        host_conn,
        agent,
        created,
        seq,
        again,
    } = entering;
    let row = match door.store.agent_by_id(agent).await {
        Ok(Some(row)) => row,
        found => {
            if let Err(e) = found {
                tracing::error!(error = %e, "cannot read a character that is entering");
            }
            let close = ToConn::Close(vec![
                "*** Sorry, moot cannot reach its database. Please try again later. ***".into(),
            ]);
            queue.tell(host_conn, close);
            return;
        }
    };
    let (sink, drained) = world::hosted(queue.clone(), conn);
    let link = Arc::new(Link::default());
    link.ask(seq);
    queue.send(Carried::Enter {
        conn,
        host_conn,
        link: link.clone(),
        drained,
    });
    let before = lock(held).entry(host.to_owned()).or_default().insert(
        host_conn,
        Held {
            conn,
            agent: row.agent_id.as_str().into(),
            link,
            queue: queue.clone(),
        },
    );
    // The same host connection entering again (its host was let go and came back as the world
    // let go of it): the earlier one leaves first, and nothing more is carried for it.
    if let Some(before) = before {
        requests.push(before.leaving(Leaving::Lost));
    }
    requests.push(Request::Enter {
        row,
        created,
        conn,
        sink,
        again,
    });
}

/// What one host's connection is, to the task carrying the world's notices to its host.
struct Carrying {
    host_conn: u64,
    link: Arc<Link>,
    drained: Drained,
}

/// Carries what the world says to host `host`'s connections across, a batch at a time, in
/// the order the world said it, until every connection's queue and the world's own hold on
/// the host's queue have gone.
async fn carry(
    client: async_nats::Client,
    host: String,
    mut queue: mpsc::UnboundedReceiver<Carried>,
    held: HeldMap,
) {
    let subject = wire::to_conns(&host);
    let mut carrying: HashMap<ConnId, Carrying> = HashMap::new();
    let mut batch = Batch::default();
    while let Some(first) = queue.recv().await {
        let mut next = Some(first);
        // Everything queued by now goes in this batch (the world's turn that woke this task
        // has put all it said), in as many messages as it takes. (Waiting a turn of the
        // runtime first, as a host does for its lines, made batches no larger here and cost
        // a fifth more CPU a command: `telnet_load --hosts 1`.)
        while let Some(carried) = next {
            match carried {
                Carried::Enter {
                    conn,
                    host_conn,
                    link,
                    drained,
                } => {
                    let entering = Carrying {
                        host_conn,
                        link,
                        drained,
                    };
                    carrying.insert(conn, entering);
                }
                Carried::Retired(conn) => {
                    carrying.remove(&conn);
                }
                Carried::Told(host_conn, what) => batch.tell(host_conn, what),
                Carried::Flushed(done) => {
                    batch.send(&client, &subject).await;
                    let _ = done.send(());
                }
                Carried::Out(conn, out) => {
                    let Some(to) = carrying.get(&conn) else {
                        next = queue.try_recv().ok();
                        continue;
                    };
                    to.drained.took(&out);
                    let host_conn = to.host_conn;
                    match out {
                        _ if to.link.retired() => {
                            carrying.remove(&conn);
                        }
                        Out::Reply { lines, more } => {
                            let seq = to.link.answered();
                            batch.tell(host_conn, ToConn::Reply { seq, lines, more });
                        }
                        Out::Close(lines) => {
                            batch.tell(host_conn, ToConn::Close(lines));
                            carrying.remove(&conn);
                            // Only its own: the same host connection may have entered again.
                            let mut held = lock(&held);
                            if let Some(conns) = held.get_mut(&host)
                                && conns.get(&host_conn).is_some_and(|h| h.conn == conn)
                            {
                                conns.remove(&host_conn);
                            }
                        }
                        out => batch.add(host_conn, out),
                    }
                }
            }
            if batch.full() {
                batch.send(&client, &subject).await;
            }
            next = queue.try_recv().ok();
        }
        batch.send(&client, &subject).await;
    }
}

/// What a host's connections are told next, as it builds up (see [`carry`]).
#[derive(Default)]
struct Batch {
    told: Vec<(Vec<u64>, Telling)>,
    /// Where each shared notice (a line, a `say`, made once by the world for everyone who
    /// hears it) is in `told`, by what it points at: the next connection that hears it joins
    /// its list, unless something told to that connection after it stands between.
    shared: HashMap<(u8, usize), usize>,
    /// Each connection's last place in `told`.
    last: HashMap<u64, usize>,
    /// About how many bytes it holds.
    bytes: usize,
}

/// One thing told: a notice as the world made it (kept as it is until it is sent, so that what
/// it points at names it in the batch), or one made for the wire.
enum Telling {
    Out(Out),
    Wire(ToConn),
}

impl Batch {
    fn full(&self) -> bool {
        self.told.len() >= wire::BATCH_ITEMS || self.bytes >= wire::BATCH_BYTES
    }

    fn tell(&mut self, conn: u64, what: ToConn) {
        self.bytes += 64;
        if let ToConn::Reply { lines, .. } | ToConn::Close(lines) = &what {
            self.bytes += lines.iter().map(String::len).sum::<usize>();
        }
        self.push(conn, Telling::Wire(what));
    }

    fn add(&mut self, conn: u64, out: Out) {
        let shared = match &out {
            Out::Line(line) => Some((0, Arc::as_ptr(line).cast::<u8>() as usize)),
            Out::Heard(said) => Some((1, Arc::as_ptr(said) as usize)),
            Out::Event(world::Event::Said(said)) => Some((2, Arc::as_ptr(said) as usize)),
            Out::Event(world::Event::Room(room)) => Some((3, Arc::as_ptr(room) as usize)),
            _ => None,
        };
        if let Some(key) = shared
            && let Some(&at) = self.shared.get(&key)
            && self.last.get(&conn).is_none_or(|&last| last < at)
        {
            self.told[at].0.push(conn);
            self.last.insert(conn, at);
            self.bytes += 8;
            return;
        }
        self.bytes += 64
            + match &out {
                Out::Line(line) => line.len(),
                Out::Heard(said) | Out::Event(world::Event::Said(said)) => said.line.len(),
                Out::Board(board) => 1024 + board.text.iter().map(String::len).sum::<usize>(),
                _ => 128,
            };
        if let Some(key) = shared {
            self.shared.insert(key, self.told.len());
        }
        self.push(conn, Telling::Out(out));
    }

    fn push(&mut self, conn: u64, telling: Telling) {
        self.last.insert(conn, self.told.len());
        self.told.push((vec![conn], telling));
    }

    /// Sends what it holds, and starts afresh.
    async fn send(&mut self, client: &async_nats::Client, subject: &str) {
        if self.told.is_empty() {
            return;
        }
        let told: Vec<Told> = std::mem::take(&mut self.told)
            .into_iter()
            .map(|(conns, telling)| Told {
                conns,
                what: match telling {
                    Telling::Out(out) => ToConn::new(&out, 0),
                    Telling::Wire(what) => what,
                },
            })
            .collect();
        self.shared.clear();
        self.last.clear();
        self.bytes = 0;
        // A host cut off from the broker stops hearing the world's beats, and answers what
        // it had in flight itself.
        wire::publish(client, subject, None, &told).await;
    }
}

mod replies;
#[cfg(test)]
mod tests;
