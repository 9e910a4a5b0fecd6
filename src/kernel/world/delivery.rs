//! How news reaches a player: what a verb leaves for someone ([`Delivery`]), what a connection
//! is sent ([`Out`]), and the queue between them, bounded so that a client that does not read
//! cannot make the server hold unbounded memory for it.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::sync::mpsc;

use super::{ConnId, views};
/// How many notices may wait for a slow connection (or in an agent's mailbox) before further
/// ones are dropped...
pub const MAX_BACKLOG: usize = 2048;
/// ...and how many bytes of them: a client that does not read must not make the server hold
/// unbounded memory for it, however long the lines.
pub const MAX_BACKLOG_BYTES: usize = 256 * 1024;

/// What the world sends to a connection, in the order the world decided it.
#[derive(Debug, Clone)]
pub enum Out {
    /// Something happened that this player should hear about.
    Line(Arc<str>),
    /// Someone's words, as this player hears them: one message, its line for everyone and its
    /// `Comm.Channel.Text` for a client that asked for GMCP.
    Heard(Arc<Said>),
    /// The answer to this connection's own command, sent once what the command changed is
    /// committed (or, if it could not be, saying that it did not happen). With `more`, what
    /// the command told its typist besides follows, up to [`Out::Ended`]: a client that cuts a
    /// command's output out of the stream with `PREFIX` and `SUFFIX` gets all of it, the
    /// answer first ("You sit down to play…", then the board).
    Reply { lines: Vec<String>, more: bool },
    /// The end of a command's output that its [`Out::Reply`] began with `more`.
    Ended,
    /// Close the connection after showing these lines.
    Close(Vec<String>),
    /// A board changed, or was looked at: a structured board for clients that draw one (a
    /// template's `Picture`, which telnet sends as XMCP/1.1), with text for those that don't.
    Board(Box<BoardMsg>),
    /// Wrap by this from now on.
    Display(crate::wrap::Display),
    /// Structured news (see [`Event`]).
    Event(Event),
}

/// A session's board as one recipient should see it (turn and side are theirs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardMsg {
    /// The session id, shown to MOO clients as the object `#<id>`.
    pub object: crate::world::sessions::SessionId,
    /// 64 characters, file by file from the h-file, rank 1 to 8 within each (tkMOO-light's order).
    pub board: String,
    /// Whether it is this recipient's move.
    pub your_turn: bool,
    /// The recipient's colour (white for watchers).
    pub colour: Cow<'static, str>,
    /// The session's tick + 1; a client's move must quote it.
    pub sequence: u64,
    /// What happened, for everyone.
    pub headline: Option<String>,
    /// The board as text, for clients that draw no board.
    pub text: Vec<String>,
    /// The GMCP package the board goes out in (`Moot.Chess`, as the game's module names it),
    /// and the state as this recipient may see it, for clients that draw their own board from
    /// data (`Moot.Chess.Board`).
    pub gmcp: Option<Cow<'static, str>>,
    /// The XMCP/1.1 message the board goes out in to tkMOO-light (`chess-board`, as the game's
    /// module names it); without one, such a client reads the board as text.
    pub xmcp: Option<Cow<'static, str>>,
    pub view: serde_json::Value,
}

/// What a notice carries.
#[derive(Debug, Clone)]
pub enum Delivery {
    Line(Arc<str>),
    /// Words someone said (see [`Out::Heard`]).
    Heard(Arc<Said>),
    Board(Box<BoardMsg>),
    /// The character's display preference changed: their connections wrap by it from now on.
    Display(crate::wrap::Display),
    /// Structured news for clients that take it besides the text (GMCP on telnet).
    Event(Event),
}

/// What a client that reads structured data (a MUD client over GMCP) learns besides the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Where they stand now (on arriving anywhere, and on logging in).
    Room(Arc<views::RoomInfo>),
    /// They spoke or emoted (`say`, `emote`): what those who heard them read. (Those who heard
    /// it get it as [`Delivery::Heard`], the line and the news in one.)
    Said(Arc<Said>),
}

/// Someone spoke or emoted where they are (`say`, `emote`), or to one person (`page`,
/// `whisper`): made once, and shared by everyone who hears it, however many they are.
#[derive(Debug)]
pub struct Said {
    pub channel: Cow<'static, str>,
    pub talker: String,
    /// The text as its hearers read it.
    pub line: Arc<str>,
    /// The line as a face laid it out for the first width asked, kept for every other hearer
    /// at that width (most clients keep the default): a crowded room lays it out once.
    laid_out: OnceLock<(Option<usize>, Box<[u8]>)>,
    /// Its structured news as a face encodes it (GMCP's `Comm.Channel.Text`), made for the
    /// first hearer that takes it and the same for every other.
    encoded: OnceLock<Box<[u8]>>,
}

impl PartialEq for Said {
    fn eq(&self, other: &Said) -> bool {
        (&self.channel, &self.talker, &self.line) == (&other.channel, &other.talker, &other.line)
    }
}
impl Eq for Said {}

impl Said {
    pub fn new(
        channel: impl Into<Cow<'static, str>>,
        talker: &str,
        line: impl Into<Arc<str>>,
    ) -> Arc<Said> {
        Arc::new(Said {
            channel: channel.into(),
            talker: talker.to_owned(),
            line: line.into(),
            laid_out: OnceLock::new(),
            encoded: OnceLock::new(),
        })
    }

    /// Its news encoded by `encode`, the first time it is asked for; the same bytes after.
    pub fn encoded(&self, encode: impl FnOnce(&Said) -> Vec<u8>) -> &[u8] {
        self.encoded.get_or_init(|| encode(self).into_boxed_slice())
    }

    /// The line laid out for `width` by `lay`: made by the first hearer, shared by every other
    /// one at the same width, made afresh for a hearer at another.
    pub fn laid_out(
        &self,
        width: Option<usize>,
        lay: impl Fn(&str, Option<usize>) -> Vec<u8>,
    ) -> std::borrow::Cow<'_, [u8]> {
        let (first, bytes) = self
            .laid_out
            .get_or_init(|| (width, lay(&self.line, width).into_boxed_slice()));
        if *first == width {
            std::borrow::Cow::Borrowed(bytes)
        } else {
            std::borrow::Cow::Owned(lay(&self.line, width))
        }
    }

    /// About how many bytes a hearer's queue holds for it (the line; the rest is shared).
    fn weight(&self) -> usize {
        self.line.len() + 64
    }
}

impl Delivery {
    /// About how many bytes it holds, for the backlog's bound.
    pub fn weight(&self) -> usize {
        match self {
            Delivery::Line(l) => l.len(),
            Delivery::Heard(s) => s.weight(),
            Delivery::Board(b) => b.weight(),
            Delivery::Display(_) => 8,
            Delivery::Event(_) => 256,
        }
    }
}

impl BoardMsg {
    /// About how many bytes it holds (see [`Delivery::weight`]).
    pub(super) fn weight(&self) -> usize {
        128 + self.board.len()
            + 512
            + self.headline.as_ref().map_or(0, String::len)
            + self.text.iter().map(String::len).sum::<usize>()
    }
}

/// The world's end of a connection's queue.
#[derive(Debug, Clone)]
pub enum Sink {
    /// A live connection (telnet): notices are written to it as they happen.
    Connection { to: To, backlog: Arc<Backlog> },
    /// No connection (an agent over MCP or REST): notices wait in the player's mailbox until
    /// the `events` verb collects them.
    Mailbox,
}

/// Where a live connection's notices go.
#[derive(Debug, Clone)]
pub enum To {
    /// Its own queue, read by the task that writes to its socket in this process.
    Queue(mpsc::UnboundedSender<Out>),
    /// Its host's one queue, shared by every connection that host holds (the connection is
    /// `conn` there): a world in another process sends what many connections hear in one
    /// message, and one task, not one a connection, does the sending.
    Host(Arc<dyn Carrier>, ConnId),
}

/// The one queue of a host's connections (see [`To::Host`]).
pub trait Carrier: Send + Sync + std::fmt::Debug {
    /// Carries `out` for connection `conn`, after everything carried before it.
    fn carry(&self, conn: ConnId, out: Out);
}

impl To {
    fn send(&self, out: Out) {
        match self {
            To::Queue(tx) => {
                let _ = tx.send(out);
            }
            To::Host(carrier, conn) => carrier.carry(*conn, out),
        }
    }
}

/// What waits in a connection's queue, counted as it goes in and comes out.
#[derive(Debug)]
pub struct Backlog {
    notices: AtomicUsize,
    bytes: AtomicUsize,
    /// Everything ever put in the queue, counted as it goes in: see [`Sink::sent`]. For a
    /// connection in this process that is only ever done by work holding the world, so the
    /// count follows the world's order (a host's queues, fed by [`Sink::pass`], get no answer
    /// beside them).
    sent: AtomicU64,
    /// Whether the connection takes structured news ([`Delivery::Event`]): a client that
    /// asked for none is not sent any, so news nobody reads costs no queueing and no wake-up.
    events: AtomicBool,
}

/// The connection's end.
#[derive(Debug)]
pub struct Source {
    pub rx: mpsc::UnboundedReceiver<Out>,
    backlog: Arc<Backlog>,
    /// Everything taken off the queue so far.
    taken: u64,
}

/// A connection's queue. It takes structured news until its connection says otherwise (see
/// [`Source::take_events`]).
pub fn channel() -> (Sink, Source) {
    let (tx, rx) = mpsc::unbounded_channel();
    let backlog = Arc::new(Backlog {
        notices: AtomicUsize::new(0),
        bytes: AtomicUsize::new(0),
        sent: AtomicU64::new(0),
        events: AtomicBool::new(true),
    });
    (
        Sink::Connection {
            to: To::Queue(tx),
            backlog: backlog.clone(),
        },
        Source {
            rx,
            backlog,
            taken: 0,
        },
    )
}

/// A queue for connection `conn` of a host in another process, whose notices join that
/// host's one queue, `carrier`: the world's end, and the count its carrier takes them off by.
pub fn hosted(carrier: Arc<dyn Carrier>, conn: ConnId) -> (Sink, Drained) {
    let backlog = Arc::new(Backlog {
        notices: AtomicUsize::new(0),
        bytes: AtomicUsize::new(0),
        sent: AtomicU64::new(0),
        events: AtomicBool::new(true),
    });
    let sink = Sink::Connection {
        to: To::Host(carrier, conn),
        backlog: backlog.clone(),
    };
    (sink, Drained { backlog })
}

/// How a host's carrier counts one connection's notices off its queue (see [`hosted`]): its
/// bound holds until they have crossed to the host, which bounds them again for its client.
#[derive(Debug)]
pub struct Drained {
    backlog: Arc<Backlog>,
}

impl Drained {
    /// Marks `out` as carried.
    pub fn took(&self, out: &Out) {
        self.backlog.took(out);
    }
}

impl Backlog {
    /// One notice has left the queue.
    fn took(&self, out: &Out) {
        let weight = match out {
            Out::Line(l) => l.len(),
            Out::Heard(s) => s.weight(),
            Out::Board(b) => b.weight(),
            Out::Display(_) => 8,
            Out::Event(_) => 256,
            Out::Reply { .. } | Out::Ended | Out::Close(_) => return,
        };
        self.notices.fetch_sub(1, Ordering::Relaxed);
        self.bytes.fetch_sub(weight, Ordering::Relaxed);
    }
}

impl Sink {
    /// Queues a notice unless the connection is too far behind, in which case it is dropped: a
    /// client that does not read must not make the server hold unbounded memory for it.
    pub(super) fn notice(&self, what: Delivery) {
        let Sink::Connection { to, backlog } = self else {
            return;
        };
        if matches!(what, Delivery::Event(_)) && !backlog.events.load(Ordering::Relaxed) {
            return;
        }
        let weight = what.weight();
        if backlog.notices.load(Ordering::Relaxed) < MAX_BACKLOG
            && backlog.bytes.load(Ordering::Relaxed) + weight <= MAX_BACKLOG_BYTES
        {
            backlog.notices.fetch_add(1, Ordering::Relaxed);
            backlog.bytes.fetch_add(weight, Ordering::Relaxed);
            backlog.sent.fetch_add(1, Ordering::Relaxed);
            to.send(match what {
                Delivery::Line(line) => Out::Line(line),
                Delivery::Heard(said) => Out::Heard(said),
                Delivery::Board(b) => Out::Board(b),
                Delivery::Display(d) => Out::Display(d),
                Delivery::Event(e) => Out::Event(e),
            });
        } else {
            crate::metrics::get()
                .backlog_drops
                .fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Queues what a world in another process said to this connection, as that world queued
    /// it: answers and closing words always, notices within the same bounds.
    pub fn pass(&self, out: Out) {
        match out {
            Out::Line(l) => self.notice(Delivery::Line(l)),
            Out::Heard(s) => self.notice(Delivery::Heard(s)),
            Out::Board(b) => self.notice(Delivery::Board(b)),
            Out::Display(d) => self.notice(Delivery::Display(d)),
            Out::Event(e) => self.notice(Delivery::Event(e)),
            Out::Reply { .. } | Out::Ended | Out::Close(_) => self.send(out),
        }
    }

    /// Answers and closing words are never dropped: each connection has at most one command in
    /// flight, so they cannot pile up.
    pub fn send(&self, out: Out) {
        if let Sink::Connection { to, backlog } = self {
            backlog.sent.fetch_add(1, Ordering::Relaxed);
            to.send(out);
        }
    }

    /// Whether structured news ([`Delivery::Event`]) would reach anyone here: news for a
    /// client that takes none need not be made.
    pub fn takes_events(&self) -> bool {
        match self {
            Sink::Connection { backlog, .. } => backlog.events.load(Ordering::Relaxed),
            Sink::Mailbox => false,
        }
    }

    /// How much has been put in the queue so far: an answer handed back beside the queue goes
    /// after exactly that much (see [`Source::taken`]).
    pub fn sent(&self) -> u64 {
        match self {
            Sink::Connection { backlog, .. } => backlog.sent.load(Ordering::Relaxed),
            Sink::Mailbox => 0,
        }
    }
}

impl Source {
    /// How much has been taken off the queue so far (see [`Sink::sent`]).
    pub fn taken(&self) -> u64 {
        self.taken
    }

    /// Whether structured news is to be queued for this connection from now on: a client
    /// that did not ask for it (no GMCP) reads only the text, which comes anyway.
    pub fn take_events(&self, yes: bool) {
        self.backlog.events.store(yes, Ordering::Relaxed);
    }

    /// The next thing queued, if there is one yet; without a look at the queue when nothing
    /// was put in since the last was taken. (Only a shortcut before a real `recv`: a count
    /// read too early leaves the thing for it. Skipping `recv` itself the same way, once it
    /// had left the waker, lost wake-ups under load, for a cause not found: see the test
    /// `a_crowd_talking_in_turn_gets_every_answer`.)
    pub fn try_next(&mut self) -> Option<Out> {
        if self.backlog.sent.load(Ordering::Relaxed) == self.taken {
            return None;
        }
        self.rx.try_recv().ok()
    }

    /// Marks one notice as taken off the queue.
    pub fn took(&mut self, out: &Out) {
        self.taken += 1;
        self.backlog.took(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize) -> Delivery {
        Delivery::Line("x".repeat(n).into())
    }

    /// News for a client that takes none is not queued: no wake-up, and the count an answer
    /// waits for does not move.
    #[test]
    fn a_connection_that_takes_no_news_is_sent_none() {
        let (sink, mut source) = channel();
        let said = Delivery::Event(Event::Said(Said::new("say", "Ann", "Ann says, \"hi\"")));
        sink.notice(said.clone());
        assert_eq!(sink.sent(), 1);
        assert!(matches!(source.rx.try_recv(), Ok(Out::Event(_))));
        source.take_events(false);
        sink.notice(said);
        sink.notice(line(3));
        assert_eq!(sink.sent(), 2);
        assert!(matches!(source.rx.try_recv(), Ok(Out::Line(_))));
        assert!(source.rx.try_recv().is_err());
    }

    #[test]
    fn a_connection_that_does_not_read_holds_bounded_bytes() {
        let (sink, source) = channel();
        for _ in 0..1000 {
            sink.notice(line(4096));
        }
        let held = source.backlog.bytes.load(Ordering::Relaxed);
        assert!(held <= MAX_BACKLOG_BYTES, "{held}");
        assert_eq!(
            source.backlog.notices.load(Ordering::Relaxed),
            MAX_BACKLOG_BYTES / 4096
        );
        // Small notices are bounded by count.
        let (sink, source) = channel();
        for _ in 0..5000 {
            sink.notice(line(10));
        }
        assert_eq!(source.backlog.notices.load(Ordering::Relaxed), MAX_BACKLOG);
    }
}
