//! The messages between a world process and its hosts, and the subjects they travel on.
//!
//! Every subject but the first greeting's carries the protocol's version (`moot.v6.…`), so a host
//! and a world of different versions never read each other's messages; `moot.hello`, without
//! one, is where they find that out and say so. Everything a host says goes on a subject under
//! its own name, `moot.v6.from.<host>.…`, and everything said to one host under
//! `moot.v6.to.<host>.…`: a broker that gives each host a user of its own and these two subjects
//! (and its reply inbox, `_INBOX.<host>`) vouches for who said what, which a body cannot, since
//! the broker never tells a subscriber who published.
//!
//! What connections say and hear crosses in batches, one message a host's turn each way
//! ([`FromConns`], [`ToConns`]): the broker, the world and the host each handle one message
//! where they handled one a line and one a notice a connection, and a line said in a room
//! crosses once to each host, with the list of its connections that hear it, not once to each
//! of them. Those two are postcard (compact, binary, read with the same types by both sides);
//! the rest (greetings, questions, news) are few and small, and stay JSON that a person
//! debugging a town can read with any NATS client.

use std::borrow::Cow;
use std::net::IpAddr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use super::calls::{
    CallRefused, Called, Credential, McpRead, PageRead, Refusal, ToolCall, VerbCall,
};
use crate::logins::{CreateRefused, Refused};
use moot_kernel::store::AgentRow;
use moot_kernel::world::{BoardMsg, Event, Leaving, Out, Said};
use moot_kernel::wrap::Display;

/// This build's protocol. A change to any message below that an older peer could misread
/// raises it (7: connections' lines and notices cross in batches, [`FromConns`] and
/// [`ToConns`]; 8: so do questions and their answers, [`Question`] and [`AnswerPiece`]; 9: the
/// town hands game worlds the sessions it seats, [`GameAsk::Begin`]; 10: a read's answer is tagged, and not sent again while it
/// stays the same, [`Answer::Tagged`]).
pub const PROTOCOL: u32 = 10;

/// Where hosts and worlds find out whether they speak the same protocol (no version in it: see
/// the module's doc). The world answers anyone here and takes nobody in: a host joins by its
/// greeting on [`greet`].
pub const HELLO: &str = "moot.hello";

/// Everything host `host` says, for a broker's permissions (`moot.v6.from.host1.>`).
pub fn from_host(host: &str) -> String {
    format!("moot.v{PROTOCOL}.from.{host}.>")
}

/// Everything said to host `host`, for a broker's permissions.
pub fn to_host_all(host: &str) -> String {
    format!("moot.v{PROTOCOL}.to.{host}.>")
}

/// Where host `host` greets the world, to join it.
pub fn greet(host: &str) -> String {
    format!("moot.v{PROTOCOL}.from.{host}.hello")
}

/// Every host's greeting, for the world.
pub fn greetings() -> String {
    format!("moot.v{PROTOCOL}.from.*.hello")
}

/// Where host `host` asks the world something that has one answer (a login, the `who` table).
pub fn ask(host: &str) -> String {
    format!("moot.v{PROTOCOL}.from.{host}.ask")
}

/// Every host's questions, for the world.
pub fn asks() -> String {
    format!("moot.v{PROTOCOL}.from.*.ask")
}

/// Where host `host` asks the world the questions answered in pieces (verbs and tools called
/// by name, pages), a batch of [`Question`]s a message.
pub fn questions(host: &str) -> String {
    format!("moot.v{PROTOCOL}.from.{host}.questions")
}

/// Every host's batches of questions, for the world.
pub fn all_questions() -> String {
    format!("moot.v{PROTOCOL}.from.*.questions")
}

/// What host `host`'s connections say to the world ([`FromConns`]).
pub fn conns(host: &str) -> String {
    format!("moot.v{PROTOCOL}.from.{host}.conns")
}

/// Every host's connections, for the world.
pub fn all_conns() -> String {
    format!("moot.v{PROTOCOL}.from.*.conns")
}

/// What the world says to host `host`'s connections ([`ToConns`]).
pub fn to_conns(host: &str) -> String {
    format!("moot.v{PROTOCOL}.to.{host}.conns")
}

/// The host a subject under `moot.v6.from.` or `moot.v6.to.` names.
pub fn host_of(subject: &str) -> Option<&str> {
    let mut parts = subject.split('.');
    let ours = parts.next() == Some("moot")
        && parts.next() == Some(&format!("v{PROTOCOL}"))
        && matches!(parts.next(), Some("from" | "to"));
    ours.then(|| parts.next()).flatten()
}

/// Whether `name` may name a host: one token of a subject, that a broker's permissions can
/// name too (letters, digits, `-` and `_`, at most 64).
pub fn host_name_ok(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The prefix of host `host`'s reply inbox: its requests' answers come under it, and a broker
/// lets only that host read them (`_INBOX.host1.>`).
pub fn inbox(host: &str) -> String {
    format!("_INBOX.{host}")
}

/// Whether `reply` is an inbox of host `host`'s: the broker does not check the reply subject a
/// publisher gives, so the world does before answering there.
pub fn is_inbox_of(reply: &str, host: &str) -> bool {
    reply
        .strip_prefix(&inbox(host))
        .is_some_and(|rest| rest.starts_with('.'))
}

/// A host's greeting, and the world's answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Hello {
    pub protocol: u32,
    /// moot's version, for the message when protocols differ.
    pub version: String,
    pub host: String,
    /// Where the host's HTTP listener is bound, if it has one, for the world's log of who
    /// joined.
    #[serde(default)]
    pub http: Option<std::net::SocketAddr>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Welcome {
    pub protocol: u32,
    pub version: String,
    /// The login screen's text (from `world.toml`).
    pub welcome: String,
    /// This run of the world (see [`News`]).
    #[serde(default)]
    pub epoch: u64,
}

impl Hello {
    pub fn ours(host: &str, http: Option<std::net::SocketAddr>) -> Hello {
        Hello {
            protocol: PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            host: host.to_owned(),
            http,
        }
    }
}

/// Why a host and a world will not work together, said the same way by both.
pub fn mismatch(ours: u32, theirs: u32, their_version: &str) -> Option<String> {
    (ours != theirs).then(|| {
        format!(
            "this moot speaks host protocol {ours} (moot {}); the other side speaks protocol \
             {theirs} (moot {their_version}): run the same moot version for the world and its hosts",
            env!("CARGO_PKG_VERSION")
        )
    })
}

/// Where the world says it is up, alive, or going down (see [`News`]).
pub fn news() -> String {
    format!("moot.v{PROTOCOL}.world.news")
}

/// What the world says of itself. `epoch` names one run of a world process: a host that
/// hears a new one knows the world restarted and brings its connections back in.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum News {
    /// Started, and answering.
    Up { epoch: u64 },
    /// Still here (every [`BEAT`]).
    Beat { epoch: u64 },
    /// Stopping (SIGTERM, a wizard's `@shutdown`): lines are refused from now on.
    Down { epoch: u64 },
    /// The world took `host` for dead (it was silent [`HOST_LOST_AFTER`]) and let its people
    /// go; the host, alive after all, greets the world again and brings them back in. Said at
    /// each of the host's beats until it greets: `time` tells one letting-go from the next.
    Forgot { epoch: u64, host: String, time: u64 },
}

/// Where each game world says it is alive, and how busy it is, every [`BEAT`], as a request
/// the town answers ([`GameBeat`], [`GameHeard`]): one subject for them all, since the town
/// keeps them apart by the name in the body and the run it names.
pub fn game_beats() -> String {
    format!("moot.v{PROTOCOL}.games.beat")
}

/// Where the town's own questions (to its game worlds) are answered: under `moot.`, which
/// the broker's world user may read, and no host may.
pub fn world_inbox() -> String {
    format!("moot.v{PROTOCOL}.world.inbox")
}

/// Where game world `name`'s own questions (its beats) are answered.
pub fn games_inbox(name: &str) -> String {
    format!("moot.v{PROTOCOL}.games.{name}.inbox")
}

/// Where the town hands run `run` of game world `name` the calls of the sessions placed on it
/// ([`GameCall`]), answered with what the verb answered ([`Called`]). The run is in the
/// subject so that only the process the town holds alive under that name takes them: a
/// second one started under the name, refused, hears none meanwhile.
pub fn game_calls(name: &str, run: u64) -> String {
    format!("moot.v{PROTOCOL}.games.{name}.{run:016x}.calls")
}

/// Where the town takes back, from run `run` of game world `name`, a call whose client left
/// (the body is the call's number, [`GameCall::id`]): a long poll nobody waits for holds
/// nothing there for the rest of its wait.
pub fn game_cancels(name: &str, run: u64) -> String {
    format!("moot.v{PROTOCOL}.games.{name}.{run:016x}.cancel")
}

/// Where game world `name` tells the town of its sessions' actions once they are stored
/// ([`moot_kernel::world::sessions::Told`]), for the town's copies of them.
pub fn game_told(name: &str) -> String {
    format!("moot.v{PROTOCOL}.games.{name}.told")
}

/// Where the town hears every game world's [`game_told`].
pub fn games_told() -> String {
    format!("moot.v{PROTOCOL}.games.*.told")
}

/// Where the town asks run `run` of game world `name` for what it missed of a session
/// ([`Since`]), answered with an `Option<Told>`.
pub fn game_since(name: &str, run: u64) -> String {
    format!("moot.v{PROTOCOL}.games.{name}.{run:016x}.since")
}

/// The town's question to a game world: session `id`'s actions from tick `from` on.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Since {
    pub id: u64,
    pub from: u64,
}

/// An identity as the town vouches for it to a game world: who plays there, never a
/// credential.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Card {
    pub id: String,
    pub name: String,
    /// Its kind, as the store spells it (`agent`, `character`, `house`).
    pub kind: String,
    /// Whom it counts as in ratings, if not itself.
    pub owner: Option<String>,
}

/// A call the town hands to the game world that holds (or is to hold) its session: the
/// caller the town vouched for, the cards of everyone else it names, and, for a new session,
/// the id the town gave it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GameCall {
    /// The town's number for it, to take it back by.
    pub id: u64,
    pub caller: Card,
    pub cards: Vec<Card>,
    pub ask: GameAsk,
    pub session: Option<u64>,
}

/// What a [`GameCall`] asks: a verb by name (the REST API's), or an MCP tool (answered by the
/// game world's own server at the same address, as the town's would answer it; its
/// credential is the town's to judge, and crosses as `Nobody`), or a verb typed on telnet in
/// the town, answered with the lines it says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum GameAsk {
    Verb {
        face: moot_kernel::world::Face,
        verb: String,
        args: serde_json::Value,
    },
    Tool(ToolCall),
    Typed {
        verb: String,
        args: serde_json::Value,
    },
    /// A web page's button (the action at `path`, asked for with POST if `post`) on session
    /// `id`, answered with its result or its refusal.
    Web {
        path: String,
        post: bool,
        id: u64,
        args: serde_json::Value,
    },
    /// A session the town seated itself (a Werewolf match from its notice board), to be made
    /// under its id unless it is made already; answered with its `Created`.
    Begin(moot_kernel::world::sessions::Begin),
}

/// A game world's beat: who it is (its name, and this run of it), what it speaks, and how
/// many sessions it runs, which is what the town places new ones by.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GameBeat {
    pub protocol: u32,
    pub version: String,
    pub name: String,
    /// This run of the game world: two runs beating under one name are two processes, and
    /// the second is refused while the first is alive.
    pub run: u64,
    /// Sessions it runs that have not ended.
    pub running: u32,
    /// How many [`Telling`]s this run has sent the town so far: the town asks again for what
    /// it lacks when it has heard fewer (a message the broker lost).
    #[serde(default)]
    pub told: u64,
}

/// What a game world tells the town on [`game_told`]: a session's actions, the run that tells
/// them and the number of this message in that run (from 1).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Telling {
    pub run: u64,
    pub seq: u64,
    pub told: moot_kernel::world::sessions::Told,
}

/// The town's answer to a [`GameBeat`]: heard, or refused and why (another run of that name
/// is alive; another protocol), in words for the game world's operator.
pub type GameHeard = Result<(), String>;

/// Where each host says it is alive (see [`HOST_LOST_AFTER`]); the body is the epoch of the
/// world it is in.
pub fn host_beat(host: &str) -> String {
    format!("moot.v{PROTOCOL}.from.{host}.beat")
}

/// Every host's beats, for the world.
pub fn host_beats() -> String {
    format!("moot.v{PROTOCOL}.from.*.beat")
}

/// How long the world hears nothing from a host, while it hears the broker, before it takes
/// the host for dead and lets its people leave the town (a host killed takes its sockets with
/// it; nobody else will say they left).
pub const HOST_LOST_AFTER: std::time::Duration = std::time::Duration::from_secs(5);

/// How often the world says it is still here.
pub const BEAT: std::time::Duration = std::time::Duration::from_millis(250);

/// How long a host waits without hearing the world before telling its people it is away.
pub const AWAY_AFTER: std::time::Duration = std::time::Duration::from_millis(1500);

/// The most lines of one connection the world holds unanswered (a host sends one at a time;
/// this bounds what a host gone wrong can make the world keep).
pub const LINES_HELD: usize = 16;

/// What a host's connections said since its last batch, each item the host's number for a
/// connection and what it said, in the order they said it.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FromConns(pub Vec<(u64, FromConn)>);

/// What the world said to a host's connections since its last batch, in the order it said it
/// to each.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ToConns(pub Vec<Told>);

/// One thing the world said, and the host's connections it said it to: what a room hears goes
/// once, with everyone of the host's who hears it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Told {
    pub conns: Vec<u64>,
    pub what: ToConn,
}

/// The most items a batch either way holds: what a broker's message carries however long the
/// lines (the world's limit on a line's length, and on a notice's, is far below this a line).
pub const BATCH_ITEMS: usize = 1024;

/// About the most bytes a batch either way holds before it goes (a broker's messages are at
/// most 1 MiB unless it says otherwise).
pub const BATCH_BYTES: usize = 256 * 1024;

/// Takes what is queued on `queue` into `batch`, a batch's worth: waits for the first item;
/// then, if `a_turn`, lets the other tasks this runtime has ready run first, so that one batch
/// carries a turn's worth, not the first item alone; then everything queued, within
/// [`BATCH_ITEMS`] and about [`BATCH_BYTES`] as `bytes` counts each. False once the queue is
/// closed and empty.
pub async fn next_batch<T>(
    queue: &mut tokio::sync::mpsc::UnboundedReceiver<T>,
    batch: &mut Vec<T>,
    a_turn: bool,
    bytes: impl Fn(&T) -> usize,
) -> bool {
    let Some(first) = queue.recv().await else {
        return false;
    };
    if a_turn {
        tokio::task::yield_now().await;
    }
    let (mut next, mut total) = (Some(first), 0);
    while let Some(item) = next {
        total += bytes(&item);
        batch.push(item);
        let full = batch.len() >= BATCH_ITEMS || total >= BATCH_BYTES;
        next = if full { None } else { queue.try_recv().ok() };
    }
    true
}

/// A batch's body; postcard cannot fail on these types but for memory, which is not this.
pub fn encode<T: Serialize>(batch: &T) -> Option<bytes::Bytes> {
    postcard::to_allocvec(batch).ok().map(Into::into)
}

/// Publishes `items` on `subject`, as a batch of them ([`FromConns`] or [`ToConns`], which a
/// slice of their items encodes as): in one message if the broker carries it, or else halved
/// until each part is, in order. An item larger than the broker's limit alone is dropped, and
/// said so (the world's limits on a line and a notice are far below any broker's). Each part
/// names `reply`, if given, as where its answers go. Gives the places in `items` of those not
/// sent, in order (none if all were): a dropped item, and, once the broker cannot be reached,
/// every item from the part it refused on (those before it went, and may be answered).
pub async fn publish<T: Serialize>(
    client: &async_nats::Client,
    subject: &str,
    reply: Option<&str>,
    items: &[T],
) -> Vec<usize> {
    let most = match client.server_info().max_payload {
        0 => 1 << 20,
        most => most,
    };
    publish_with(subject, most, items, |body| async move {
        let sent = match reply {
            Some(reply) => {
                client
                    .publish_with_reply(subject.to_owned(), reply.to_owned(), body)
                    .await
            }
            None => client.publish(subject.to_owned(), body).await,
        };
        sent.map_err(|e| tracing::warn!(error = %e, %subject, "cannot reach the broker"))
    })
    .await
}

/// [`publish`], each part's body of at most `most` bytes given to `send`.
async fn publish_with<T: Serialize, F: std::future::Future<Output = Result<(), ()>>>(
    subject: &str,
    most: usize,
    items: &[T],
    mut send: impl FnMut(bytes::Bytes) -> F,
) -> Vec<usize> {
    let mut unsent = Vec::new();
    // Each part with the place of its first item.
    let mut parts = vec![(0, items)];
    while let Some((at, part)) = parts.pop() {
        let Some(body) = encode(&part) else {
            tracing::error!(%subject, "cannot encode a batch");
            unsent.extend(at..at + part.len());
            continue;
        };
        if body.len() > most {
            match part.len() {
                0 | 1 => {
                    tracing::error!(
                        %subject,
                        bytes = body.len(),
                        most,
                        "an item larger than the broker carries was dropped"
                    );
                    unsent.extend(at..at + part.len());
                }
                n => {
                    let (first, rest) = part.split_at(n / 2);
                    parts.push((at + n / 2, rest));
                    parts.push((at, first));
                }
            }
            continue;
        }
        if send(body).await.is_err() {
            unsent.extend(at..items.len());
            return unsent;
        }
    }
    unsent
}

/// A batch from its body; `None` if it is not one.
pub fn decode<'a, T: Deserialize<'a>>(body: &'a [u8]) -> Option<T> {
    postcard::from_bytes(body).ok()
}

/// Where host `host` takes back a question it asked (its client went away).
pub fn take_back(host: &str) -> String {
    format!("moot.v{PROTOCOL}.from.{host}.cancel")
}

/// Every host's questions taken back, for the world.
pub fn take_backs() -> String {
    format!("moot.v{PROTOCOL}.from.*.cancel")
}

/// A host taking back question `id`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TakeBack {
    pub host: String,
    pub id: u64,
}

/// A question a host asks the world, answered in pieces ([`AnswerPiece`]): the questions a
/// host's clients ask at once cross in one message (postcard, on [`questions`]), whose reply
/// subject is where their answers go, in the host's own inbox. The question itself is the
/// [`Ask`]'s JSON, since a call carries its arguments as free-form JSON, which postcard cannot.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Question {
    /// The host's number for it, which its answer and a take-back ([`TakeBack`]) name.
    pub id: u64,
    pub ask: bytes::Bytes,
}

/// A piece of the answer to question `id` (its [`Answer`]'s JSON, cut where a broker's message
/// ends, however small its limit): the pieces the world has ready for one host's inbox at
/// once cross in one message, in order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnswerPiece {
    pub id: u64,
    /// Whether more pieces of this answer follow.
    pub more: bool,
    pub bytes: bytes::Bytes,
}

/// A question with one answer, from a host to the world.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Ask {
    Banned {
        ip: IpAddr,
    },
    Who,
    Connect {
        ip: IpAddr,
        name: String,
        password: String,
    },
    Create {
        ip: IpAddr,
        name: String,
        password: String,
    },
    /// Whose a credential is (a face checks it before refusing what it read: see
    /// [`super::calls`]).
    Vouch(Credential),
    /// A verb called by name.
    Verb(VerbCall),
    /// A plain MCP tool call.
    Tool(ToolCall),
    /// A game's page or download.
    Page(PageRead),
    /// An agent to make (`POST /agents`).
    Agent(super::agents::AgentCall),
    /// The metrics, for a scraper that sent this token.
    Metrics(Option<String>),
    /// What a host's MCP server reads of the world's.
    Mcp(McpRead),
    /// What a web page asks; `id` is the host's number for it, to take it back if its
    /// browser leaves (a live page's question waits).
    Web {
        id: u64,
        ask: super::visits::WebAsk,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Answer {
    Banned(bool),
    Who(Vec<String>),
    Connect(Result<Character, Refused>),
    Create(Result<Character, CreateRefused>),
    /// Whose the credential is, or the words why not.
    Vouch(Result<String, String>),
    Verb(Called),
    Tool(Called),
    /// A page's text as a JSON string, or `null`.
    Page(Called),
    /// The agent made ([`super::agents::AgentCreated`]).
    Agent(Called),
    /// The metrics' text, as a JSON string.
    Metrics(Called),
    Mcp(Called),
    Web(Called),
    /// A tool's answer that only read, with its tag, for the host to keep: asked again, the
    /// world answers [`Answer::Unchanged`] if it is the same. An agent polling `look` in a
    /// room of a hundred is sent four kilobytes once, not every time.
    Tagged {
        answer: Box<serde_json::value::RawValue>,
        tag: u64,
    },
    /// The answer is the one the host keeps under the tag its question gave.
    Unchanged,
}

/// Who logged in, as a host may know it: never the password's hash; and the pass that lets
/// this host bring them in (see [`super::pass`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Character {
    pub agent_id: String,
    pub name: String,
    pub display: Display,
    pub pass: String,
}

impl Character {
    /// `row`, logged in through `host`, with its pass.
    pub fn vouched(row: AgentRow, passes: &super::pass::Passes, host: &str) -> Character {
        Character {
            pass: passes.issue(host, &row.agent_id),
            agent_id: row.agent_id,
            name: row.name,
            display: row.display,
        }
    }
}

impl From<Character> for AgentRow {
    /// The part of a row a host needs; the world reads the whole row again when the
    /// character enters.
    fn from(c: Character) -> AgentRow {
        AgentRow {
            agent_id: c.agent_id,
            name: c.name,
            password_hash: None,
            description: String::new(),
            room: None,
            display: c.display,
            wizard: false,
            builder: false,
            programmer: false,
        }
    }
}

/// What a host's connection tells the world, in order. `seq` numbers what the world answers
/// (entering and each line) on this connection, for the host to tell which of its requests an
/// answer is for: one the host already answered itself (the world was away) is not taken for
/// the answer to the next.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum FromConn {
    /// The character logged in on this connection enters the town; `again`, as it was before
    /// the world restarted or let its host go (not in place of a newer connection of theirs).
    Enter {
        agent: String,
        /// The world's pass for this host and this character, from its answer to the login.
        pass: String,
        created: bool,
        seq: u64,
        #[serde(default)]
        again: bool,
    },
    Line {
        agent: String,
        line: String,
        seq: u64,
    },
    Leave {
        agent: String,
        why: Leaving,
    },
    /// The host holds no such connection (the world spoke to one that has gone): whoever the
    /// world has on it leaves.
    Gone,
}

/// What the world tells a host's connection: [`Out`] as it crosses the broker.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ToConn {
    Line(String),
    Heard {
        channel: String,
        talker: String,
        line: String,
    },
    /// The answer to what the connection sent as `seq`; with `more`, what it told its typist
    /// follows, up to [`ToConn::Ended`] (see [`Out::Reply`]).
    Reply {
        seq: u64,
        lines: Vec<String>,
        more: bool,
    },
    Ended,
    Close(Vec<String>),
    Board(Board),
    Display(Display),
    Room(moot_kernel::world::views::RoomInfo),
    Said {
        channel: String,
        talker: String,
        line: String,
    },
    /// The world did not take what the connection sent as `seq`: it is stopping, does not know
    /// this connection (it restarted, or let its host go, since), or holds as many of its lines
    /// as it takes. It was not done.
    Refused {
        seq: u64,
    },
}

/// A [`BoardMsg`] on the wire.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Board {
    pub object: u64,
    pub board: String,
    pub your_turn: bool,
    pub colour: String,
    pub sequence: u64,
    pub headline: Option<String>,
    pub text: Vec<String>,
    pub gmcp: Option<String>,
    pub xmcp: Option<String>,
    /// The view's JSON (postcard carries no free-form value).
    pub view: String,
}

impl ToConn {
    /// `out` on the wire; an answer is to what the connection sent as `seq`.
    pub fn new(out: &Out, seq: u64) -> ToConn {
        let said = |s: &Said| (s.channel.to_string(), s.talker.clone(), s.line.to_string());
        match out {
            Out::Line(l) => ToConn::Line(l.to_string()),
            Out::Heard(s) => {
                let (channel, talker, line) = said(s);
                ToConn::Heard {
                    channel,
                    talker,
                    line,
                }
            }
            Out::Reply { lines, more } => ToConn::Reply {
                seq,
                lines: lines.clone(),
                more: *more,
            },
            Out::Ended => ToConn::Ended,
            Out::Close(lines) => ToConn::Close(lines.clone()),
            Out::Board(b) => ToConn::Board(Board {
                object: b.object.number(),
                board: b.board.clone(),
                your_turn: b.your_turn,
                colour: b.colour.to_string(),
                sequence: b.sequence,
                headline: b.headline.clone(),
                text: b.text.clone(),
                gmcp: b.gmcp.as_ref().map(|g| g.to_string()),
                xmcp: b.xmcp.as_ref().map(|x| x.to_string()),
                view: b.view.to_string(),
            }),
            Out::Display(d) => ToConn::Display(*d),
            Out::Event(Event::Room(info)) => ToConn::Room((**info).clone()),
            Out::Event(Event::Said(s)) => {
                let (channel, talker, line) = said(s);
                ToConn::Said {
                    channel,
                    talker,
                    line,
                }
            }
        }
    }
}

impl ToConn {
    /// What the world said, as the connection's queue takes it; none for a refusal, which
    /// the host answers itself.
    pub fn out(self) -> Option<Out> {
        Some(match self {
            ToConn::Line(l) => Out::Line(l.into()),
            ToConn::Heard {
                channel,
                talker,
                line,
            } => Out::Heard(Said::new(channel, &talker, line)),
            ToConn::Reply { lines, more, .. } => Out::Reply { lines, more },
            ToConn::Ended => Out::Ended,
            ToConn::Close(lines) => Out::Close(lines),
            ToConn::Board(b) => Out::Board(Box::new(BoardMsg {
                object: b.object.into(),
                board: b.board,
                your_turn: b.your_turn,
                colour: Cow::Owned(b.colour),
                sequence: b.sequence,
                headline: b.headline,
                text: b.text,
                gmcp: b.gmcp.map(Cow::Owned),
                xmcp: b.xmcp.map(Cow::Owned),
                view: serde_json::from_str(&b.view).unwrap_or_default(),
            })),
            ToConn::Display(d) => Out::Display(d),
            ToConn::Room(info) => Out::Event(Event::Room(Arc::new(info))),
            ToConn::Said {
                channel,
                talker,
                line,
            } => Out::Event(Event::Said(Said::new(channel, &talker, line))),
            ToConn::Refused { .. } => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    /// A batch the broker cannot carry whole goes in parts, in order; an item too large alone
    /// is dropped, and once the broker refuses a part, that part and those after it were not
    /// sent, and only they are said to be: the parts before went, and may be answered.
    #[tokio::test]
    async fn a_batch_that_goes_in_parts_says_which_items_did_not_go() {
        let items: Vec<Vec<u8>> = [10, 10, 10, 10, 200, 10, 10, 10]
            .iter()
            .map(|&n| vec![7u8; n])
            .collect();
        let sent = std::cell::RefCell::new(Vec::<Vec<Vec<u8>>>::new());
        let send = |refuse_from: usize| {
            let sent = &sent;
            move |body: bytes::Bytes| {
                let part: Vec<Vec<u8>> = decode(&body).unwrap();
                let refused = sent.borrow().len() >= refuse_from;
                if !refused {
                    sent.borrow_mut().push(part);
                }
                async move { if refused { Err(()) } else { Ok(()) } }
            }
        };
        // All sent but the one too large alone.
        let unsent = super::publish_with("test", 64, &items, send(usize::MAX)).await;
        assert_eq!(unsent, [4]);
        let went: Vec<usize> = sent.borrow().iter().flatten().map(Vec::len).collect();
        assert_eq!(went, [10, 10, 10, 10, 10, 10, 10]);
        // The broker gone after the first part: the rest were not sent.
        sent.borrow_mut().clear();
        let unsent = super::publish_with("test", 64, &items, send(1)).await;
        let first = sent.borrow()[0].len();
        assert!(
            first > 0 && first < items.len(),
            "{first} in the first part"
        );
        assert_eq!(unsent, (first..items.len()).collect::<Vec<_>>());
    }

    use super::*;

    #[test]
    fn a_subject_names_its_host() {
        for subject in [
            greet("h1"),
            ask("h1"),
            host_beat("h1"),
            take_back("h1"),
            conns("h1"),
            to_conns("h1"),
        ] {
            assert_eq!(host_of(&subject), Some("h1"), "{subject}");
        }
        assert_eq!(host_of("moot.v1.from.h1.conns"), None);
        assert_eq!(host_of("x"), None);
    }

    /// A batch that is not one is refused whole, and a good one reads back as it was sent.
    #[test]
    fn a_batch_of_lines_crosses_whole_or_not_at_all() {
        let batch = FromConns(vec![
            (
                3,
                FromConn::Line {
                    agent: "a1".into(),
                    line: "say hi".into(),
                    seq: 2,
                },
            ),
            (4, FromConn::Gone),
        ]);
        let body = encode(&batch).unwrap();
        let back: FromConns = decode(&body).unwrap();
        assert_eq!(format!("{back:?}"), format!("{batch:?}"));
        assert!(decode::<FromConns>(&body[..body.len() - 1]).is_none());
        // A part of a batch's items is a batch of its own (what `publish` sends when the whole
        // is more than the broker carries).
        let part: FromConns = decode(&encode(&&batch.0[1..]).unwrap()).unwrap();
        assert_eq!(format!("{:?}", part.0), format!("{:?}", &batch.0[1..]));
        assert!(decode::<FromConns>(b"{\"x\": 1}").is_none());
    }

    #[test]
    fn a_host_answers_only_in_its_own_inbox_under_its_own_name() {
        assert!(is_inbox_of("_INBOX.host1.abc.1", "host1"));
        assert!(!is_inbox_of("_INBOX.host10.abc.1", "host1"));
        assert!(!is_inbox_of("_INBOX.abc.1", "host1"));
        assert!(!is_inbox_of("moot.v7.to.host1.conns", "host1"));
        assert!(host_name_ok("host-1_a"));
        for bad in ["", "a.b", "a*", ">", "a b", &"x".repeat(65)] {
            assert!(!host_name_ok(bad), "{bad}");
        }
    }

    #[test]
    fn every_notice_crosses_the_broker_unchanged() {
        let board = BoardMsg {
            object: 7.into(),
            board: "RP".repeat(32),
            your_turn: true,
            colour: "black".into(),
            sequence: 3,
            headline: Some("Bob plays e5.".into()),
            text: vec!["a board".into()],
            gmcp: Some("Moot.Chess".into()),
            xmcp: Some("chess-board".into()),
            view: serde_json::json!({"fen": "x"}),
        };
        let outs = vec![
            Out::Line("hello".into()),
            Out::Heard(Said::new("say", "Ann", "Ann says, \"hi\"")),
            Out::Reply {
                lines: vec!["a".into(), "b".into()],
                more: true,
            },
            Out::Ended,
            Out::Close(vec!["bye".into()]),
            Out::Board(Box::new(board)),
            Out::Display(Display::default()),
            Out::Event(Event::Said(Said::new("page", "Bob", "Bob pages, \"x\""))),
        ];
        for out in outs {
            let batch = ToConns(vec![Told {
                conns: vec![1, 2],
                what: ToConn::new(&out, 9),
            }]);
            let mut back: ToConns = decode(&encode(&batch).unwrap()).unwrap();
            let told = back.0.pop().unwrap();
            assert_eq!(told.conns, [1, 2]);
            let back = told.what.out().unwrap();
            assert_eq!(format!("{back:?}"), format!("{out:?}"));
        }
    }

    #[test]
    fn a_batch_of_answer_pieces_carries_their_bytes_as_they_were() {
        let body = bytes::Bytes::from_static(b"{\"x\": [1, 2]}\xff");
        let pieces = vec![
            AnswerPiece {
                id: 7,
                more: true,
                bytes: body.clone(),
            },
            AnswerPiece {
                id: 7,
                more: false,
                bytes: bytes::Bytes::new(),
            },
        ];
        let back: Vec<AnswerPiece> = decode(&encode(&pieces).unwrap()).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(
            (back[0].id, back[0].more, &back[0].bytes[..]),
            (7, true, &body[..])
        );
        assert!(!back[1].more && back[1].bytes.is_empty());
        for bad in [&b"\x01"[..], b"\x01\x07\x00\xff", b"\x05"] {
            assert!(decode::<Vec<AnswerPiece>>(bad).is_none());
        }
    }

    /// The broker's permissions the docs give an operator to copy name this protocol's
    /// subjects (the README's named `v4` while hosts spoke 5, and a broker set up from it
    /// let no host in).
    #[test]
    fn the_docs_name_this_protocols_subjects() {
        let ours = format!("moot.v{PROTOCOL}.");
        for (doc, text) in [
            ("README.md", include_str!("../../README.md")),
            ("docs/operating.md", include_str!("../../docs/operating.md")),
        ] {
            let named: Vec<&str> = text
                .match_indices("moot.v")
                .map(|(at, _)| &text[at..(at + ours.len()).min(text.len())])
                .collect();
            assert!(!named.is_empty(), "{doc} names no subject");
            for subject in named {
                assert_eq!(subject, ours, "{doc}");
            }
        }
    }

    #[test]
    fn different_protocols_are_told_apart_in_words() {
        assert_eq!(mismatch(1, 1, "0.1.0"), None);
        let said = mismatch(1, 2, "0.2.0").unwrap();
        assert!(said.contains("protocol 1") && said.contains("protocol 2 (moot 0.2.0)"));
    }
}
