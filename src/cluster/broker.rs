//! The world's end of the link over a NATS broker: [`serve`] runs beside the world task in a
//! world process and answers every host (the host's end is `host::Remote`).
//!
//! Order is what NATS gives one publisher to one subscriber: everything a host's connection
//! says reaches the world in the order it was said (one subscription takes them all), and
//! everything the world says to one connection reaches its host in the order the world
//! decided it (one task a connection publishes it). A connection's queue on the host is
//! bounded as the world's own are, so a broker that delivers faster than a client reads costs
//! the host no more memory than a slow client costs a single process.
//!
//! The world hears each host's beat, and its own: a host silent for `HOST_LOST_AFTER` while
//! the world hears itself is taken for dead and its people leave the town, since nobody else
//! would say they left.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use super::Door;
use super::asked::Answering;
use super::calls::Tools;
use super::nats::{LinkError, subscribe};
use super::pass::Passes;
use super::wire::{
    self, Answer, Ask, CallRefused, Character, FromConn, Hello, News, Taken, ToConn, Welcome,
};
use moot_kernel::world::{self, AgentId, ConnId, Leaving, Out, Request, Source};
use replies::{reply, reply_in_pieces, send};

/// A connection of a host, as the world knows it.
struct Held {
    conn: ConnId,
    agent: AgentId,
    link: Arc<Link>,
}

impl Held {
    /// The connection leaves the town, and nothing more is carried to it.
    async fn let_go(self, door: &Door, why: Leaving) {
        self.link.retire();
        let leave = Request::Leave {
            agent: self.agent,
            conn: self.conn,
            why,
        };
        door.world.send(leave).await;
    }
}

/// What the world's side of one host connection shares with the task carrying its notices.
#[derive(Default)]
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

type HeldMap = Arc<Mutex<HashMap<(String, u64), Held>>>;

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
        conns: subscribe(client, wire::conns()).await?,
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
        mut conns,
        mut take_backs,
        beats,
        own_beats,
    } = listening;
    let passes = Passes::open(&door.store).await.map_err(LinkError::Passes)?;
    let answering = Answering::default();
    let held: HeldMap = Arc::default();
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
                news(News::Down { epoch }).await;
                closing = true;
                until_closed.as_mut().reset(tokio::time::Instant::now() + CLOSING);
            }
            _ = &mut until_closed, if closing => break,
            _ = check.tick() => {
                // Hosts are told they were let go only once this has run (the loop does
                // nothing else meanwhile), so none comes back before its people have left.
                let lost = lock(&hosts).lost(Instant::now());
                for host in lost {
                    forget(&door, &held, &answering, &host).await;
                }
            }
            Some(msg) = hellos.next() => say_hello(&client, &msg, &welcome, epoch).await,
            Some(msg) = greetings.next() => {
                let Some(hello) = greeting(&msg) else { continue };
                let host = hello.host.clone();
                // Greeting a world that holds its connections, the host started again under
                // the same name: nobody else will say its people left.
                let restarted = lock(&held).keys().any(|(h, _)| *h == host);
                if restarted {
                    tracing::warn!(%host, "a host greeted again; its earlier connections leave");
                    forget(&door, &held, &answering, &host).await;
                }
                tracing::info!(%host, http = ?hello.http, "a host joined");
                lock(&hosts).greeted(host.clone(), Instant::now());
                reply(&client, &msg, &host, &welcome_of(&welcome, epoch)).await;
            }
            Some(msg) = take_backs.next() => {
                if let Some(host) = wire::host_of(&msg.subject) {
                    answering.take_back(host, &msg);
                }
            }
            Some(msg) = asks.next() => {
                let Some(host) = wire::host_of(&msg.subject).map(str::to_owned) else { continue };
                if !greeted(&hosts, &host) {
                    tracing::warn!(%host, "a host that has not greeted this world asked it something");
                    continue;
                }
                let Ok(ask) = serde_json::from_slice::<Ask>(&msg.payload) else {
                    tracing::warn!(%host, "a host asked what this world cannot read");
                    continue;
                };
                let (client, door, passes) = (client.clone(), door.clone(), passes.clone());
                let ask = match ask {
                    Ask::Mcp(read) => {
                        let tools = tools.clone();
                        tokio::spawn(async move {
                            let answer = Answer::Mcp(door.mcp_read(&tools, read).await);
                            reply_in_pieces(&client, &msg, &host, &answer).await;
                        });
                        continue;
                    }
                    // A page's question may wait (a live page's long poll), as a tool call
                    // may: its host may take it back.
                    Ask::Web { id, ask } => {
                        let again = ask.read_only();
                        if closing && again {
                            continue;
                        }
                        let asker = host.clone();
                        answering.run(&host, id, again, async move {
                            let answer = match closing {
                                false => Answer::Web(door.web(ask).await),
                                true => Answer::Web(Err(CallRefused::Away)),
                            };
                            reply_in_pieces(&client, &msg, &asker, &answer).await;
                        });
                        continue;
                    }
                    ask => ask,
                };
                let Ask::Tool(call) = ask else {
                    tokio::spawn(async move { answer(&client, &door, &passes, &host, ask, msg).await });
                    continue;
                };
                // A tool call may wait (a long poll): its host may take it back, and one that
                // only reads is left, while the world goes, for the host to ask the next.
                let again = crate::games::find_tool(&call.name, crate::games::toolsets())
                    .is_some_and(|e| e.read_only);
                if closing && again {
                    continue;
                }
                let (id, tools) = (call.id, tools.clone());
                let asker = host.clone();
                answering.run(&host, id, again, async move {
                    let answer = match closing {
                        false => Answer::Tool(door.tool(&tools, call).await),
                        true => Answer::Tool(Err(CallRefused::Away)),
                    };
                    reply_in_pieces(&client, &msg, &asker, &answer).await;
                });
            }
            Some(msg) = conns.next() => {
                let Some((host, conn)) = wire::parse_conn(&msg.subject) else { continue };
                let Ok(said) = serde_json::from_slice::<FromConn>(&msg.payload) else {
                    tracing::warn!(subject = %msg.subject, "a host sent what this world cannot read");
                    continue;
                };
                let key = (host.to_owned(), conn);
                match said {
                    FromConn::Enter { .. } if !greeted(&hosts, host) => {
                        tracing::warn!(%host, "a host that has not greeted this world said who logged in");
                    }
                    FromConn::Enter { agent, pass, .. } if !passes.admits(host, &agent, &pass) => {
                        tracing::warn!(target: moot_kernel::logging::AUDIT, event = "entry_refused", %host, %agent, "a host would bring in a character without the world's pass");
                        refuse_entry(&client, host, conn).await;
                    }
                    FromConn::Enter { agent, created, seq, again, .. } => {
                        let id = next_conn;
                        next_conn += 1;
                        let entering = Entering { key, agent: &agent, created, seq, again };
                        enter(&client, &door, &held, id, entering).await;
                    }
                    FromConn::Line { agent, line, seq } => {
                        let link = lock(&held)
                            .get(&key)
                            .filter(|h| *h.agent == *agent)
                            .map(|h| (h.conn, h.link.clone()));
                        let taken = match link {
                            Some((conn, link)) if !closing && link.ask(seq) => {
                                let line = Request::Line { agent: agent.into(), conn, line };
                                let sent = door.world.send(line).await;
                                if !sent {
                                    link.unask();
                                }
                                sent
                            }
                            _ => false,
                        };
                        let taken = if taken { Taken::Yes } else { Taken::No };
                        reply(&client, &msg, &key.0, &taken).await;
                    }
                    FromConn::Leave { agent, why } => {
                        let gone = lock(&held).remove(&key);
                        if let Some(h) = gone.filter(|h| *h.agent == *agent) {
                            h.let_go(&door, why).await;
                        }
                    }
                    FromConn::Gone => {
                        let gone = lock(&held).remove(&key);
                        if let Some(h) = gone {
                            h.let_go(&door, Leaving::Lost).await;
                        }
                    }
                }
            }
            else => break,
        }
    }
    beating.cancel();
    hearing.abort();
    // What was published last (the answers to the lines taken last) reaches the broker
    // before the process may end.
    let _ = client.flush().await;
    Ok(())
}

/// Lets go of a host taken for dead: its people leave the town as if their connections had
/// dropped, and the requests it passed are dropped unanswered.
async fn forget(door: &Door, held: &HeldMap, answering: &Answering, host: &str) {
    let gone: Vec<Held> = lock(held)
        .extract_if(|(h, _), _| h == host)
        .map(|(_, h)| h)
        .collect();
    if !gone.is_empty() {
        tracing::warn!(%host, connections = gone.len(), "a host has been silent too long; its people leave");
    }
    answering.forget(host);
    for h in gone {
        h.let_go(door, Leaving::Lost).await;
    }
}

/// How long a stopping world goes on refusing lines (see `serve`).
const CLOSING: Duration = Duration::from_millis(300);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `host` has greeted this world (and not been let go since).
fn greeted(hosts: &Mutex<Hosts>, host: &str) -> bool {
    lock(hosts).heard.contains_key(host)
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
        Ask::Verb(call) => Answer::Verb(door.call(call).await),
        Ask::Agent(call) => Answer::Agent(door.make_agent(call).await),
        Ask::Metrics(token) => Answer::Metrics(door.metrics(token).await),
        Ask::Page(read) => Answer::Page(door.page(read).await),
        // Answered as they come in (see `serve`).
        Ask::Tool(_) | Ask::Mcp(_) | Ask::Web { .. } => return,
    };
    // The calls' answers may be large (a page, a verb's result): they go in pieces.
    match answer {
        Answer::Verb(_) | Answer::Agent(_) | Answer::Metrics(_) | Answer::Page(_) => {
            reply_in_pieces(client, &msg, host, &answer).await;
        }
        _ => reply(client, &msg, host, &answer).await,
    }
}

/// Closes a host's connection that would enter without the world's pass.
async fn refuse_entry(client: &async_nats::Client, host: &str, conn: u64) {
    let close = ToConn::Close(vec![
        "*** This town did not let that login through; please log in again. ***".into(),
    ]);
    if let Ok(bytes) = serde_json::to_vec(&close) {
        let _ = client
            .publish(wire::to_conn(host, conn), bytes.into())
            .await;
    }
}

/// A host's connection entering, as it said so.
struct Entering<'a> {
    key: (String, u64),
    agent: &'a str,
    created: bool,
    seq: u64,
    again: bool,
}

/// A host's connection enters: the world reads the character afresh (a host says who logged
/// in, never what they may do), and a task carries what the world says to it across.
async fn enter(
    client: &async_nats::Client,
    door: &Door,
    held: &HeldMap,
    conn: ConnId,
    entering: Entering<'_>,
) {
    let Entering {
        key,
        agent,
        created,
        seq,
        again,
    } = entering;
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
    let link = Arc::new(Link::default());
    link.ask(seq);
    let before = lock(held).insert(
        key.clone(),
        Held {
            conn,
            agent: row.agent_id.as_str().into(),
            link: link.clone(),
        },
    );
    // The same host connection entering again (its host was let go and came back as the world
    // let go of it): the earlier one leaves first, and nothing more is carried for it.
    if let Some(before) = before {
        before.let_go(door, Leaving::Lost).await;
    }
    tokio::spawn(carry(
        client.clone(),
        subject,
        source,
        link,
        held.clone(),
        key,
        conn,
    ));
    door.enter_with(row, created, conn, sink, again).await;
}

/// Carries what the world says to one connection to its host, in order, until the world
/// closes it (or lets it go).
async fn carry(
    client: async_nats::Client,
    subject: String,
    mut source: Source,
    link: Arc<Link>,
    held: HeldMap,
    key: (String, u64),
    conn: ConnId,
) {
    while let Some(out) = source.rx.recv().await {
        source.took(&out);
        if link.retired() {
            return;
        }
        let closing = matches!(out, Out::Close(_));
        let seq = match out {
            Out::Reply { .. } => link.answered(),
            _ => 0,
        };
        match serde_json::to_vec(&ToConn::new(&out, seq)) {
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

mod replies;
#[cfg(test)]
mod tests;
