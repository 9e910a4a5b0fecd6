//! One telnet connection, from accept to close: the login screen, then the loop that passes
//! typed lines to the world and the world's output back to the socket.

use std::borrow::Cow;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::Poll;

use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::time::{Instant, sleep_until};
use tokio_util::codec::FramedRead;

use super::codec::{Input, TelnetCodec};
use super::options::{Answer, Options, Reported, gmcp_message, mssp_message};
use super::throttle::Throttle;
use super::{Shared, xmcp};
use crate::cluster::LoggedIn;
use crate::config::MAX_LINE_BYTES;
use moot_kernel::text::clean;
use moot_kernel::world::{AgentId, ConnId, Leaving, Out, Source, Taken};
use moot_kernel::wrap::{Display, wrap_hanging};

pub const DISCONNECTED: &str = "*** Disconnected ***";
pub const TOO_LONG: &str = "*** Your line was longer than 4096 bytes and was ignored. ***";
pub const IDLE: &str = "*** Disconnected for inactivity ***";
pub const SHUTTING_DOWN: &str = "*** moot is shutting down. Goodbye! ***";

/// The socket's two halves and what the connection remembers about itself.
pub(super) struct Conn {
    pub input: FramedRead<OwnedReadHalf, TelnetCodec>,
    pub out: Writer,
    pub peer: SocketAddr,
    prefix: Option<String>,
    suffix: Option<String>,
    /// An answer is being written whose SUFFIX waits for what its command told the typist.
    answering: bool,
    throttle: Throttle,
    /// The XMCP/1.1 key the client set; without one, no `$#$` line is ever sent.
    xmcp_key: Option<String>,
    options: Options,
    /// MSSP's figures, as of the connection's start.
    mssp: Vec<(&'static str, String)>,
    /// The character's choice of width (the default before login).
    display: Display,
    /// The width the client reported (NAWS).
    client_width: Option<u16>,
}

/// How much the drain of a connection's notices queues before it writes (see [`Writer::full`]).
const WRITE_BATCH: usize = 16 * 1024;

/// The most a connection's output buffer keeps between writes: an answer's worth.
const KEPT_BUFFER: usize = 4 * 1024;

/// Output, gathered so that each batch of lines goes out in one write.
pub(super) struct Writer {
    wr: OwnedWriteHalf,
    buf: Vec<u8>,
    /// Lines are word-wrapped to this many columns; `None` sends them whole.
    width: Option<usize>,
}

impl Writer {
    /// Queues a line (a `\n` inside it starts another line), word-wrapped to the width; lines
    /// end in CRLF. Any line that could pose as an out-of-band message is quoted.
    pub fn line(&mut self, s: &str) {
        render(s, self.width, &mut self.buf);
    }

    /// Queues one of moot's own out-of-band lines, unquoted.
    pub fn oob(&mut self, line: &str) {
        self.buf.extend_from_slice(line.as_bytes());
        self.buf.extend_from_slice(b"\r\n");
    }

    pub fn raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Whether enough is queued to write now rather than take more first: a crowd's chatter
    /// is written in pieces of this size, so no connection's buffer grows with its backlog.
    pub fn full(&self) -> bool {
        self.buf.len() >= WRITE_BATCH
    }

    /// Makes room for a batch at once, rather than growing through a dozen sizes on the way.
    fn batch(&mut self) {
        self.buf
            .reserve((WRITE_BATCH + 1024).saturating_sub(self.buf.len()));
    }

    pub async fn flush(&mut self) -> std::io::Result<()> {
        if !self.buf.is_empty() {
            // Nearly every batch fits in the socket's buffer: it is written at once, and only
            // what is left (a full buffer, a slow reader) waits for the socket.
            let sent = match self.wr.try_write(&self.buf) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => 0,
                Err(e) => return Err(e),
            };
            if let Some(rest) = self.buf.get(sent..)
                && !rest.is_empty()
            {
                self.wr.write_all(rest).await?;
            }
            self.buf.clear();
            // A buffer a crowd's backlog grew is given back once written: five hundred
            // connections each keeping one at its largest was a third of the server's memory.
            if self.buf.capacity() > KEPT_BUFFER {
                self.buf = Vec::new();
            }
        }
        Ok(())
    }

    pub async fn close(&mut self) {
        let _ = self.flush().await;
        let _ = self.wr.shutdown().await;
    }
}

/// Lays out one of moot's lines for the screen, into `buf`: a `\n` inside it starts another
/// line, each is word-wrapped to `width` (or sent whole when `None`) and ends in CRLF. moot's
/// own text may span lines; nobody else's can (the verbs [`clean`] what people send), so a
/// line's first row is moot's, and the rows a wrap starts are where somebody's words could be
/// made to fall: [`wrap_hanging`] sets in any that would begin like a mark (the narrator's
/// `[Town Crier]`, `#$#`, `$#$`). Then every row is quoted ([`xmcp::quote`]), so none can pass
/// for an out-of-band message. A CR (which ends a line for tkMOO-light) never starts one, and
/// the Unicode line and paragraph separators (which some clients break lines at) are spaces.
fn render(s: &str, width: Option<usize>, buf: &mut Vec<u8>) {
    // Most lines are one row with nothing to take out: none of LF, CR, or the lead byte of the
    // Unicode separators (0xE2, which other characters share; those go the long way).
    // (Looked for in every byte rather than up to the first: the loop runs many bytes a step.)
    if !s
        .bytes()
        .fold(false, |seen, b| seen | matches!(b, b'\n' | b'\r' | 0xE2))
    {
        return render_row(s, width, buf);
    }
    for part in s.split('\n') {
        let part: Cow<str> = if part.contains(['\r', '\u{2028}', '\u{2029}']) {
            part.replace('\r', "")
                .replace(['\u{2028}', '\u{2029}'], " ")
                .into()
        } else {
            part.into()
        };
        render_row(&part, width, buf);
    }
}

/// One line without line breaks, laid out for `width`.
fn render_row(part: &str, width: Option<usize>, buf: &mut Vec<u8>) {
    // Most lines fit (no more bytes than columns means no more characters either): they are
    // written as they are, with nothing to lay out.
    match width {
        Some(w) if part.len() > w => {
            for piece in wrap_hanging(part, w) {
                buf.extend_from_slice(xmcp::quote(&piece).as_bytes());
                buf.extend_from_slice(b"\r\n");
            }
        }
        _ => {
            buf.extend_from_slice(xmcp::quote(part).as_bytes());
            buf.extend_from_slice(b"\r\n");
        }
    }
}

/// What became of a line once the connection's own commands were taken out.
pub(super) enum Typed {
    /// A command for the login screen or the world.
    Command(String),
    /// Handled here (a connection command, a telnet reply, an ignored line).
    Handled,
}

impl Conn {
    /// A board: tkMOO-light's message for a client with a key, the text board otherwise.
    pub fn board(&mut self, b: &moot_kernel::world::BoardMsg) {
        if let Some(h) = &b.headline {
            self.out.line(h);
        }
        // A GMCP client's script may draw the board itself (`Moot.Chess.Board` for chess.v1),
        // with the state as this player may see it.
        if let Some(package) = &b.gmcp
            && self.options.gmcp()
        {
            self.gmcp(&format!("{package}.Board"), || {
                let mut body = serde_json::json!({
                    "game": b.object,
                    "colour": b.colour,
                    "yourTurn": b.your_turn,
                    "sequence": b.sequence,
                });
                if let (Some(out), Some(view)) = (body.as_object_mut(), b.view.as_object()) {
                    for (k, v) in view {
                        out.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
                body
            });
        }
        match (&self.xmcp_key, &b.xmcp) {
            (Some(key), Some(name)) => {
                let msg = xmcp::board(name, key, b);
                self.out.oob(&msg);
            }
            _ => {
                for l in &b.text {
                    self.out.line(l);
                }
            }
        }
    }

    /// Queues `lines` as the answer to one command, between PREFIX and SUFFIX if set.
    pub fn answer<S: AsRef<str>>(&mut self, lines: &[S]) {
        self.begin_answer(lines);
        self.end_answer();
    }

    /// Queues `lines` as the answer to one command after its PREFIX, if set; what the
    /// command told its typist follows, and [`Conn::end_answer`] ends it.
    pub fn begin_answer<S: AsRef<str>>(&mut self, lines: &[S]) {
        // An answer left open (its world went before ending it) is ended first.
        self.end_answer();
        if let Some(p) = &self.prefix {
            self.out.line(p);
        }
        for l in lines {
            self.out.line(l.as_ref());
        }
        self.answering = true;
    }

    /// Ends the answer being written with its SUFFIX, if set; nothing if none is open.
    pub fn end_answer(&mut self) {
        if std::mem::take(&mut self.answering)
            && let Some(s) = &self.suffix
        {
            self.out.line(s);
        }
    }

    /// Sends a GMCP message, if the client agreed to GMCP and takes this package; the body is
    /// made only then, so a client that did not ask costs nothing.
    pub fn gmcp(&mut self, package: &str, body: impl FnOnce() -> serde_json::Value) {
        if self.options.wants(package) {
            self.out.raw(&gmcp_message(package, &body()));
        }
    }

    /// Structured news, for a GMCP client (others have the text already).
    pub fn event(&mut self, e: &moot_kernel::world::Event) {
        use moot_kernel::world::Event;
        match e {
            Event::Room(info) => self.gmcp("Room.Info", || serde_json::json!(info)),
            Event::Said(said) => self.said(said),
        }
    }

    /// Someone's words as news (`Comm.Channel.Text`).
    fn said(&mut self, said: &moot_kernel::world::Said) {
        const PACKAGE: &str = "Comm.Channel.Text";
        if self.options.wants(PACKAGE) {
            let message = said.encoded(|said| {
                let body = serde_json::json!({
                    "channel": &said.channel,
                    "talker": said.talker,
                    "text": &*said.line,
                });
                gmcp_message(PACKAGE, &body)
            });
            self.out.raw(message);
        }
    }

    /// Someone's words as this player hears them: the line, and the news for a GMCP client.
    pub fn heard(&mut self, said: &moot_kernel::world::Said) {
        let laid_out = said.laid_out(self.out.width, |line, width| {
            let mut buf = Vec::new();
            render(line, width, &mut buf);
            buf
        });
        self.out.raw(&laid_out);
        self.said(said);
    }

    /// Wraps by `display` from now on (the character's choice, or the default before login).
    pub fn set_display(&mut self, display: Display) {
        self.display = display;
        self.out.width = display.width(self.client_width);
    }

    /// Takes an input frame: answers telnet negotiation, reports over-long lines, and handles
    /// the connection commands (PREFIX and friends). A command it leaves is to be paced
    /// ([`Conn::pace`]) before it runs.
    pub fn take(&mut self, input: Input) -> Typed {
        let line = match input {
            Input::Negotiate(verb, opt) => {
                match self.options.negotiate(verb, opt) {
                    Some(Answer::Send(bytes)) => self.out.raw(&bytes),
                    Some(Answer::SendMssp) => self.out.raw(&mssp_message(&self.mssp)),
                    None => {}
                }
                return Typed::Handled;
            }
            Input::Sub(opt, data) => {
                match self.options.sub(opt, &data) {
                    Some(Reported::Width(w)) => {
                        self.client_width = Some(w);
                        self.set_display(self.display);
                    }
                    Some(Reported::Gmcp(package, body)) => {
                        if package.eq_ignore_ascii_case("Core.Ping") {
                            self.out
                                .raw(&gmcp_message("Core.Ping", &serde_json::Value::Null));
                        } else if package.eq_ignore_ascii_case("Core.Hello") {
                            tracing::debug!(client = %body, "GMCP hello");
                        }
                    }
                    None => {}
                }
                return Typed::Handled;
            }
            Input::TooLong => {
                self.answer(&[TOO_LONG]);
                return Typed::Handled;
            }
            Input::Line(line) => match clean(&line) {
                Cow::Borrowed(_) => line,
                Cow::Owned(cleaned) => cleaned,
            },
        };
        let trimmed = moot_kernel::text::trim(&line);
        let (word, rest) = moot_kernel::text::split_at_space(trimmed);
        let setting = match word {
            "PREFIX" | "OUTPUTPREFIX" => Some(&mut self.prefix),
            "SUFFIX" | "OUTPUTSUFFIX" => Some(&mut self.suffix),
            _ => None,
        };
        if let Some(setting) = setting {
            let rest = rest.trim();
            *setting = (!rest.is_empty()).then(|| rest.to_owned());
            return Typed::Handled;
        }
        if trimmed.is_empty() || line.starts_with("#$#") {
            // Blank, or MCP 2.1 out-of-band: never a command.
            return Typed::Handled;
        }
        match word {
            "@xmcp_authentication_key" => {
                let key = rest.trim();
                if key.is_empty() {
                    self.out.line("Usage: @xmcp_authentication_key <key>");
                } else {
                    self.xmcp_key = Some(key.to_owned());
                    self.out.line(xmcp::AUTH_SET);
                }
                return Typed::Handled;
            }
            "@xmcp_challenge" => {
                self.out.oob(xmcp::VERSION_LINE);
                return Typed::Handled;
            }
            _ => {}
        }
        Typed::Command(line)
    }

    /// Slows a flood down: how long a command typed at `typed` must wait, if it came faster
    /// than the rate allowed. (Not itself a wait: as an `async` step, every command paid a
    /// fifth of what reading its line costs.)
    pub fn pace(&mut self, typed: Instant) -> Option<std::time::Duration> {
        self.throttle.take(typed)
    }

    /// Waits out `wait`, once what is written so far is sent; answers when it ends.
    pub async fn wait(&mut self, wait: std::time::Duration) -> Instant {
        let _ = self.out.flush().await;
        tokio::time::sleep(wait).await;
        Instant::now()
    }
}

pub(super) fn is_quit(line: &str) -> bool {
    let line = moot_kernel::text::trim(line);
    line == "QUIT" || line.eq_ignore_ascii_case("@quit")
}

impl Conn {
    /// A new connection's state, before login.
    pub(super) fn open(stream: TcpStream, peer: SocketAddr, shared: &Shared) -> Conn {
        let _ = stream.set_nodelay(true);
        let (rd, wr) = stream.into_split();
        let mut options = Options::new(shared.config.telnet_negotiate);
        let opening = options.opening();
        let mut conn = Conn {
            input: FramedRead::with_capacity(rd, TelnetCodec::new(MAX_LINE_BYTES), 512),
            out: Writer {
                wr,
                buf: Vec::new(),
                width: Display::default().width(None),
            },
            peer,
            prefix: None,
            suffix: None,
            answering: false,
            xmcp_key: None,
            options,
            mssp: if shared.config.telnet_negotiate {
                shared.mssp()
            } else {
                Vec::new()
            },
            display: Display::default(),
            client_width: None,
            throttle: Throttle::new(shared.config.command_rate, shared.config.command_burst),
        };
        conn.out.raw(&opening);
        conn
    }
}

/// The connected loop: typed lines go to the world one at a time, and whatever the world sends
/// is written as it comes.
pub(super) async fn play(
    conn: &mut Conn,
    who: LoggedIn,
    created: bool,
    conn_id: ConnId,
    shared: &Shared,
) {
    let agent: AgentId = who.row.agent_id.as_str().into();
    conn.set_display(who.row.display);
    let Some(mut source) = shared.town.enter(who, created, conn_id).await else {
        return;
    };
    source.take_events(conn.options.gmcp());
    // Entering is answered like a command: wait for it before reading input.
    let mut awaiting = true;
    // After the login answer, offer XMCP/1.1 (tkMOO-light answers with its key).
    // A client that took GMCP is a modern MUD client, which would only print the offer.
    let mut announce_xmcp = !conn.options.gmcp();
    let idle = shared.config.idle_timeout();
    let mut last_input = Instant::now();
    // One timer for the connection's life, moved on only when it goes off early: a timer made
    // afresh at every turn of the loop cost a twentieth of a command's CPU.
    let idle_timer = sleep_until(last_input + idle.unwrap_or_default());
    tokio::pin!(idle_timer);
    let mut idle_waits = false;
    // The connection's own child of the server's token: waiting on the server's itself locked
    // the same two mutexes from every connection on every worker, at each turn of the loop.
    let stop = shared.shutdown.child_token();
    let shutdown = stop.cancelled();
    tokio::pin!(shutdown);
    let mut shutdown_waits = false;
    let leave = |why| shared.town.leave(&agent, conn_id, why);
    loop {
        // Input first: a typed line is what wakes the loop, and polling the queue before it
        // found the queue empty and took the task's waker twice a command. Nothing the world
        // sent waits on input: an answer writes what was queued before it, whatever else is
        // queued goes out after every input (`queued`, below), and a line not answered at once
        // stops input until its answer comes (`awaiting`).
        tokio::select! {
            biased;
            input = conn.input.next(), if !awaiting => {
                let Some(Ok(input)) = input else {
                    leave(Leaving::Lost).await;
                    return;
                };
                last_input = Instant::now();
                let typed = conn.take(input);
                // GMCP may be agreed (or refused) at any time.
                source.take_events(conn.options.gmcp());
                if let Typed::Command(line) = typed {
                    if is_quit(&line) {
                        conn.answer(&[DISCONNECTED]);
                        leave(Leaving::Quit).await;
                        return;
                    }
                    let at = match conn.pace(last_input) {
                        None => last_input,
                        Some(wait) => conn.wait(wait).await,
                    };
                    match shared.town.line(&agent, conn_id, line, at).await {
                        Taken::Answered { lines, after, then } => {
                            // What the world sent before the answer comes before it, and
                            // what the line told its typist after it, before its SUFFIX:
                            // nothing else, each written a batch at a time.
                            let mut drained = drain(conn, &mut source, after, &mut announce_xmcp).await;
                            if drained.is_ok() {
                                conn.begin_answer(&lines);
                                drained = drain(conn, &mut source, then, &mut announce_xmcp).await;
                                conn.end_answer();
                            }
                            match drained {
                                Ok(()) => {}
                                Err(Drained::Closed(lines)) => {
                                    conn.answer(&lines);
                                    return;
                                }
                                Err(Drained::Lost) => {
                                    leave(Leaving::Lost).await;
                                    return;
                                }
                            }
                        }
                        Taken::Queued => awaiting = true,
                        Taken::Stopped => return,
                    }
                }
                // Input is polled first, and a line handled here (a blank one, a telnet
                // command) drains no answer: what the world queued goes out with it, or a
                // client that kept sending such lines would keep the queue (a `Close` among
                // it) waiting.
                if let Some(lines) = queued(conn, &mut source, None, &mut awaiting, &mut announce_xmcp) {
                    conn.answer(&lines);
                    return;
                }
                if conn.out.flush().await.is_err() {
                    leave(Leaving::Lost).await;
                    return;
                }
            }
            out = source.rx.recv() => {
                let Some(out) = out else { return };
                if let Some(lines) = queued(conn, &mut source, Some(out), &mut awaiting, &mut announce_xmcp) {
                    conn.answer(&lines);
                    return;
                }
                if conn.out.flush().await.is_err() {
                    leave(Leaving::Lost).await;
                    return;
                }
            }
            () = seldom(idle_timer.as_mut(), &mut idle_waits, |t| t.is_elapsed()),
                if idle.is_some() && !awaiting =>
            {
                let due = last_input + idle.unwrap_or_default();
                if Instant::now() < due {
                    // Moved on, it holds no waker until it is polled again.
                    idle_timer.as_mut().reset(due);
                    idle_waits = false;
                    continue;
                }
                conn.answer(&[IDLE]);
                leave(Leaving::Idle).await;
                return;
            }
            () = seldom(shutdown.as_mut(), &mut shutdown_waits, |_| stop.is_cancelled()) => {
                conn.answer(&[SHUTTING_DOWN]);
                leave(Leaving::Lost).await;
                return;
            }
        }
    }
}

/// Why [`drain`] stopped short: the world closed the connection (with these words), or the
/// client is gone.
enum Drained {
    Closed(Vec<String>),
    Lost,
}

/// Puts what the world queued on the screen until the connection has taken `upto` in all.
async fn drain(
    conn: &mut Conn,
    source: &mut Source,
    upto: u64,
    announce_xmcp: &mut bool,
) -> Result<(), Drained> {
    while source.taken() < upto
        && let Ok(out) = source.rx.try_recv()
    {
        source.took(&out);
        if let Some(lines) = show(conn, out, announce_xmcp) {
            return Err(Drained::Closed(lines));
        }
        if conn.out.full() && conn.out.flush().await.is_err() {
            return Err(Drained::Lost);
        }
    }
    Ok(())
}

/// Puts what the world has queued (after `first`, if the queue gave one already) on the screen,
/// up to a buffer's worth; the closing words, if the world closed the connection.
fn queued(
    conn: &mut Conn,
    source: &mut Source,
    first: Option<Out>,
    awaiting: &mut bool,
    announce_xmcp: &mut bool,
) -> Option<Vec<String>> {
    let mut next = first.or_else(|| source.try_next());
    while let Some(out) = next.take() {
        source.took(&out);
        if matches!(out, Out::Reply { .. }) {
            *awaiting = false;
        }
        if let Some(lines) = show(conn, out, announce_xmcp) {
            return Some(lines);
        }
        next = if conn.out.full() {
            None
        } else {
            source.try_next()
        };
        if next.is_some() && conn.out.buf.capacity() <= KEPT_BUFFER {
            conn.out.batch();
        }
    }
    None
}

/// `future`, for the connected loop to wait on beside its input and its queue when it seldom
/// happens (the idle timer, the shutdown): once polled, it has left this task's waker where it
/// will be woken from (`waits`), and it is polled again only when `may_be_ready` says so.
/// tokio takes the waker afresh at every poll (a clone and an atomic swap for a timer, two
/// mutexes for a token), and the loop turns twice a command.
fn seldom<'a, F: Future + ?Sized>(
    mut future: Pin<&'a mut F>,
    waits: &'a mut bool,
    may_be_ready: impl Fn(&F) -> bool + 'a,
) -> impl Future<Output = F::Output> + 'a {
    std::future::poll_fn(move |cx| {
        if *waits && !may_be_ready(&future) {
            return Poll::Pending;
        }
        // A poll that tokio refuses for want of budget (its cooperative scheduling) leaves no
        // waker behind, and so counts only when the budget allows it.
        *waits = tokio::task::coop::has_budget_remaining();
        future.as_mut().poll(cx)
    })
}

/// Queues what the world sent for the screen; the closing words, if it was told to close.
fn show(conn: &mut Conn, out: Out, announce_xmcp: &mut bool) -> Option<Vec<String>> {
    match out {
        Out::Line(line) => conn.out.line(&line),
        Out::Heard(said) => conn.heard(&said),
        Out::Reply { lines, more } => {
            conn.begin_answer(&lines);
            if !more {
                conn.end_answer();
            }
            if std::mem::take(announce_xmcp) {
                conn.out.oob(xmcp::VERSION_LINE);
            }
        }
        Out::Ended => conn.end_answer(),
        Out::Board(b) => conn.board(&b),
        Out::Display(d) => conn.set_display(d),
        Out::Event(e) => conn.event(&e),
        Out::Close(lines) => return Some(lines),
    }
    None
}

#[cfg(test)]
mod tests;
