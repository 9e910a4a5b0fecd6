//! HTTP across the broker: a host passes each request whole to the world, which answers it
//! with the same router a one-process moot serves (the REST API, MCP, the web) and sends the
//! answer back in parts, so that a long poll or a page's live stream flows as it is written.
//!
//! The host holds the socket and reads the request within its bounds; the world runs every
//! handler, so the faces' code is the same in both arrangements and a host opens no database.
//! A client that goes away takes its request back (the world drops the handler, as hyper
//! would); a client that reads slower than the world writes is let go, as a connection that
//! does not read is, rather than held in memory.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Request, Response, StatusCode};
use bytes::Bytes;
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::answers::{away, refusal, too_large, unknown};
use super::wire::{self, HttpCancel, HttpPart, HttpRequest};

/// The most a request's body may hold on its way to the world (the MCP endpoint's own limit,
/// the largest of moot's).
pub const BODY_LIMIT: usize = 1 << 20;

/// Parts of one answer a host holds for a client that reads slowly, before letting it go.
const PARTS_HELD: usize = 256;

/// How long a host waits for the head of an answer: longer than any long poll moot holds.
const HEAD_TIMEOUT: Duration = Duration::from_secs(300);

/// The most of an answer's body one message carries.
const PIECE: usize = 64 * 1024;

/// Headers that describe one hop, not the message (RFC 9110 §7.6.1): each side's HTTP stack
/// writes its own.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "proxy-authorization",
];

/// A message's headers as they cross the broker: every one but the hop's own, each value's
/// bytes as the characters of the same numbers (a value may hold any byte but a control, and
/// JSON carries text).
fn carried(headers: &axum::http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(k, _)| !HOP_BY_HOP.contains(&k.as_str()))
        .map(|(k, v)| {
            let value = v.as_bytes().iter().map(|&b| char::from(b)).collect();
            (k.as_str().to_owned(), value)
        })
        .collect()
}

/// A header value's bytes back from [`carried`]'s text.
fn unlatin(value: &str) -> Result<HeaderValue, String> {
    let bytes: Vec<u8> = value
        .chars()
        .map(|c| u8::try_from(u32::from(c)).map_err(|_| "a header value is garbled".to_owned()))
        .collect::<Result<_, _>>()?;
    HeaderValue::from_bytes(&bytes).map_err(|e| e.to_string())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Makes the router that answers one host's requests, given the address that host's HTTP
/// listener is bound to (the MCP endpoint's gate accepts it as a `Host`).
pub type MakeRouter = Arc<dyn Fn(SocketAddr) -> axum::Router + Send + Sync>;

/// The world's side: the router of each host, and the requests being answered.
pub struct Answering {
    client: async_nats::Client,
    make: MakeRouter,
    routers: Mutex<HashMap<String, axum::Router>>,
    running: Running,
}

/// Each request being answered, by host and number: its task, and whether it may be asked
/// again.
type Running = Arc<Mutex<HashMap<(String, u64), (tokio::task::AbortHandle, bool)>>>;

impl Answering {
    pub fn new(client: async_nats::Client, make: MakeRouter) -> Answering {
        Answering {
            client,
            make,
            routers: Mutex::default(),
            running: Arc::default(),
        }
    }

    /// A host greeted: its router, for its listener's address.
    pub fn greeted(&self, host: &str, http: Option<SocketAddr>) {
        if let Some(addr) = http {
            lock(&self.routers).insert(host.to_owned(), (self.make)(addr));
        }
    }

    /// A host taken for dead: the requests it passed are dropped (nobody waits for them), and
    /// its router with them.
    pub fn forget(&self, host: &str) {
        lock(&self.routers).remove(host);
        lock(&self.running).retain(|(h, _), (task, _)| {
            if h == host {
                task.abort();
            }
            h != host
        });
    }

    fn router(&self, host: &str) -> axum::Router {
        let mut routers = lock(&self.routers);
        // A host that greeted an earlier world process: loopback, until it greets again.
        let fallback = || (self.make)(SocketAddr::from(([127, 0, 0, 1], 0)));
        routers
            .entry(host.to_owned())
            .or_insert_with(fallback)
            .clone()
    }

    /// Answers one request `host` passed, in parts, on that host's own subject for it.
    pub fn answer(&self, host: &str, msg: async_nats::Message) {
        let Some((head, body, reply)) = passed(host, &msg) else {
            return;
        };
        let key = (head.host.clone(), head.id);
        let again = passed_again(&head, &body);
        let router = self.router(&head.host);
        let client = self.client.clone();
        let running = self.running.clone();
        let task = tokio::spawn({
            let key = key.clone();
            async move {
                let parts = Parts {
                    client: &client,
                    to: reply,
                };
                match request(head, body) {
                    Ok(req) => {
                        use tower_service::Service;
                        let mut router = router;
                        match router.call(req).await {
                            Ok(response) => parts.send_response(response).await,
                            Err(never) => match never {},
                        }
                    }
                    Err(why) => {
                        parts.send(&HttpPart::Failed(why), &[]).await;
                    }
                }
                lock(&running).remove(&key);
            }
        });
        lock(&self.running).insert(key, (task.abort_handle(), again));
    }

    /// Runs `answer`, the answer to question `id` of `host`'s, as a request of its: the host may
    /// take it back, and one that may be asked `again` is dropped as the world goes.
    pub fn run(
        &self,
        host: &str,
        id: u64,
        again: bool,
        answer: impl std::future::Future<Output = ()> + Send + 'static,
    ) {
        let key = (host.to_owned(), id);
        let running = self.running.clone();
        let task = tokio::spawn({
            let key = key.clone();
            async move {
                answer.await;
                lock(&running).remove(&key);
            }
        });
        lock(&self.running).insert(key, (task.abort_handle(), again));
    }

    /// The world is going: a request that may be asked again is dropped unanswered, for its
    /// host to ask the next world (the others are answered before the world goes).
    pub fn closing(&self) {
        lock(&self.running).retain(|_, (task, again)| {
            if *again {
                task.abort();
            }
            !*again
        });
    }

    /// A request that arrives while the world is going: one that may be asked again is left
    /// for its host to ask the next world; another is refused, not done, to be tried again.
    /// So is one from a host that has not greeted this world (it will, and ask again).
    pub fn refuse(&self, host: &str, msg: async_nats::Message) {
        let Some((head, body, reply)) = passed(host, &msg) else {
            return;
        };
        if passed_again(&head, &body) {
            return;
        }
        let client = self.client.clone();
        tokio::spawn(async move {
            let parts = Parts {
                client: &client,
                to: reply,
            };
            parts.send_response(away()).await;
        });
    }

    /// `host` took a request of its own back: its handler is dropped.
    pub fn cancel(&self, host: &str, msg: &async_nats::Message) {
        if let Ok(c) = serde_json::from_slice::<HttpCancel>(&msg.payload)
            && c.host == host
            && let Some((task, _)) = lock(&self.running).remove(&(c.host, c.id))
        {
            task.abort();
        }
    }
}

/// A request `host` passed, and where its answer goes: the host's own subject for it, never
/// the reply subject it came with, which the broker does not check. One naming another host in
/// its body is nobody's.
fn passed(host: &str, msg: &async_nats::Message) -> Option<(HttpRequest, Bytes, String)> {
    let Some((head, body)) = wire::unframe::<HttpRequest>(&msg.payload) else {
        tracing::warn!(%host, "a host passed a request this world cannot read");
        return None;
    };
    if head.host != host {
        tracing::warn!(%host, claimed = %head.host, "a host passed a request in another host's name");
        return None;
    }
    let reply = wire::http_reply(host, head.id);
    Some((head, body, reply))
}

/// The request a host passed, as the router takes it.
fn request(head: HttpRequest, body: Bytes) -> Result<Request<Body>, String> {
    let mut req = Request::builder()
        .method(head.method.as_str())
        .uri(head.uri.as_str());
    for (name, value) in &head.headers {
        req = req.header(name.as_str(), unlatin(value)?);
    }
    let mut req = req.body(Body::from(body)).map_err(|e| e.to_string())?;
    req.extensions_mut()
        .insert(axum::extract::ConnectInfo(head.peer));
    Ok(req)
}

/// Where the parts of one answer go.
struct Parts<'a> {
    client: &'a async_nats::Client,
    to: String,
}

/// The most of a body one message through `client`'s broker carries, whatever its message
/// limit (1 MB unless its operator says otherwise): room is left for a part's head.
pub(super) fn piece(client: &async_nats::Client) -> usize {
    let most = client.server_info().max_payload;
    if most == 0 {
        PIECE
    } else {
        PIECE.min(most / 2).max(1)
    }
}

impl Parts<'_> {
    fn piece(&self) -> usize {
        piece(self.client)
    }

    async fn send(&self, part: &HttpPart, bytes: &[u8]) -> bool {
        let Some(message) = wire::frame(part, bytes) else {
            return false;
        };
        self.client.publish(self.to.clone(), message).await.is_ok()
    }

    async fn send_response(&self, response: Response<Body>) {
        let (head, body) = response.into_parts();
        let part = HttpPart::Head {
            status: head.status.as_u16(),
            headers: carried(&head.headers),
        };
        if !self.send(&part, &[]).await {
            return;
        }
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(bytes) => {
                    // In pieces the broker takes, whatever its message limit (1 MB unless
                    // its operator says otherwise).
                    for piece in bytes.chunks(self.piece()) {
                        if !self.send(&HttpPart::Body, piece).await {
                            return;
                        }
                    }
                }
                Err(e) => {
                    self.send(&HttpPart::Failed(e.to_string()), &[]).await;
                    return;
                }
            }
        }
        self.send(&HttpPart::End, &[]).await;
    }
}

/// A host's side: passes requests and hands their answers to the clients waiting for them.
#[derive(Clone)]
pub struct Passing {
    client: async_nats::Client,
    host: Arc<str>,
    next: Arc<AtomicU64>,
    waiting: Waiting,
    /// Whether the world answers now (the host's [`InFlight::set_up`] says).
    up: tokio::sync::watch::Receiver<bool>,
    /// How long a request that may be asked again waits for the world to come back.
    resume_within: Duration,
    /// How many times a world has gone with requests in flight, for a question asked
    /// meanwhile to know it will not be answered.
    lost: tokio::sync::watch::Receiver<u64>,
}

/// What reaches a client waiting for an answer: a part of it, or word that the world that
/// was answering is away.
enum Part {
    From(HttpPart, Bytes),
    Away,
}

/// The clients waiting for an answer, by request: where its parts go.
type Waiting = Arc<Mutex<HashMap<u64, mpsc::Sender<Part>>>>;

/// The requests a host has passed and not seen answered, to tell when the world is away.
#[derive(Clone)]
pub struct InFlight {
    waiting: Waiting,
    up: Arc<tokio::sync::watch::Sender<bool>>,
    lost: Arc<tokio::sync::watch::Sender<u64>>,
}

impl InFlight {
    /// The world that was answering every request in flight has stopped: each one that may
    /// be asked again waits for the world to come back, and the others end (one still
    /// waiting for its head is answered 503).
    pub fn world_away(&self) {
        self.up.send_replace(false);
        self.lost.send_modify(|n| *n += 1);
        for (_, tx) in lock(&self.waiting).drain() {
            let _ = tx.try_send(Part::Away);
        }
    }

    /// The world answers again.
    pub fn set_up(&self) {
        self.up.send_replace(true);
    }

    /// The world is going: new requests wait for it, or are refused.
    pub fn set_down(&self) {
        self.up.send_replace(false);
    }
}

/// An answer's status and headers, and where the rest of it will come.
type Headed = (u16, Vec<(String, String)>, mpsc::Receiver<Part>);

/// Why a request has no answer from the world.
enum Unanswered {
    /// It was not done: no world took it, or one that may be asked again found none.
    NotDone,
    /// A world took it and stopped before answering: it may or may not have been done.
    Unknown,
    /// It is larger than the broker carries in a message (this many bytes).
    TooLarge(usize),
}

/// A request as passed, kept to pass again.
struct Passed {
    head: HttpRequest,
    body: Bytes,
    /// Whether asking the world again can change nothing it would not have changed once: a
    /// GET, or an MCP call of a tool that only reads (a long poll such as `waitForNextTurn`).
    repeatable: bool,
}

/// Whether a request a host passed only reads (see [`repeatable`]).
fn passed_again(head: &HttpRequest, body: &[u8]) -> bool {
    let path = head.uri.split('?').next().unwrap_or("");
    head.method
        .parse()
        .is_ok_and(|m| repeatable(&m, path, body))
}

/// Whether `body`, sent to `path` with `method`, only reads.
fn repeatable(method: &axum::http::Method, path: &str, body: &[u8]) -> bool {
    if method == axum::http::Method::GET || method == axum::http::Method::HEAD {
        return true;
    }
    if method != axum::http::Method::POST || !path.starts_with("/mcp") {
        return false;
    }
    let Ok(call) = serde_json::from_slice::<serde_json::Value>(body) else {
        return false;
    };
    call["method"] == "tools/call"
        && call["params"]["name"].as_str().is_some_and(|name| {
            crate::games::find_tool(name, crate::games::toolsets()).is_some_and(|e| e.read_only)
        })
}

impl Passing {
    /// Takes the answers to this host's requests off the broker.
    pub async fn open(
        client: async_nats::Client,
        host: &str,
        resume_within: Duration,
    ) -> Result<(Passing, InFlight), String> {
        let mut answers = client
            .subscribe(wire::http_replies(host))
            .await
            .map_err(|e| e.to_string())?;
        let waiting: Waiting = Arc::default();
        let (up, up_rx) = tokio::sync::watch::channel(true);
        let (lost, lost_rx) = tokio::sync::watch::channel(0);
        let passing = Passing {
            client: client.clone(),
            host: host.into(),
            next: Arc::new(AtomicU64::new(1)),
            waiting: waiting.clone(),
            up: up_rx,
            resume_within,
            lost: lost_rx,
        };
        let in_flight = InFlight {
            waiting: waiting.clone(),
            up: Arc::new(up),
            lost: Arc::new(lost),
        };
        let host = host.to_owned();
        tokio::spawn(async move {
            while let Some(msg) = answers.next().await {
                let Some(id) = msg.subject.rsplit('.').next().and_then(|n| n.parse().ok()) else {
                    continue;
                };
                let Some((part, bytes)) = wire::unframe::<HttpPart>(&msg.payload) else {
                    tracing::warn!("the world answered what this host cannot read");
                    continue;
                };
                let last = matches!(part, HttpPart::End | HttpPart::Failed(_));
                let gone = {
                    let mut waiting = lock(&waiting);
                    let Some(tx) = waiting.get(&id) else { continue };
                    // A client gone, or too far behind: its request is taken back.
                    let gone = tx.try_send(Part::From(part, bytes)).is_err();
                    if gone || last {
                        waiting.remove(&id);
                    }
                    gone && !last
                };
                if gone {
                    cancel(&client, &host, id).await;
                }
            }
        });
        Ok((passing, in_flight))
    }

    /// Passes `passed` under a new number; where its parts will come.
    async fn send(&self, passed: &mut Passed) -> Result<mpsc::Receiver<Part>, Unanswered> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        passed.head.id = id;
        let message = wire::frame(&passed.head, &passed.body).ok_or(Unanswered::NotDone)?;
        let most = self.client.server_info().max_payload;
        if most > 0 && message.len() > most {
            return Err(Unanswered::TooLarge(most));
        }
        let (tx, rx) = mpsc::channel(PARTS_HELD);
        lock(&self.waiting).insert(id, tx);
        let sent = self.client.publish(wire::http(&self.host), message).await;
        if sent.is_err() {
            lock(&self.waiting).remove(&id);
            return Err(Unanswered::NotDone);
        }
        Ok(rx)
    }

    /// A number for a question of this host's, unique among its requests.
    pub(super) fn next_id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Takes back question `id` (its client left).
    pub(super) fn take_back(&self, id: u64) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (client, host) = (self.client.clone(), self.host.clone());
            runtime.spawn(async move { cancel(&client, &host, id).await });
        }
    }

    /// Whether the world answers now.
    pub(super) fn up(&self) -> bool {
        *self.up.borrow()
    }

    /// Changes when a world goes with what was asked of it unanswered.
    pub(super) fn lost(&self) -> tokio::sync::watch::Receiver<u64> {
        self.lost.clone()
    }

    /// Waits, within the bound, for the world to answer again.
    pub(super) async fn world_back(&self) -> bool {
        let mut up = self.up.clone();
        tokio::time::timeout(self.resume_within, up.wait_for(|up| *up))
            .await
            .is_ok_and(|r| r.is_ok())
    }

    /// Passes `passed` until the world answers with a head: again after the world comes
    /// back, if the request may be asked again.
    async fn head(&self, passed: &mut Passed) -> Result<Headed, Unanswered> {
        // While the world is away, only a request that may be asked again waits for it.
        let up = *self.up.borrow();
        if !(up || passed.repeatable && self.world_back().await) {
            return Err(Unanswered::NotDone);
        }
        loop {
            let mut rx = self.send(passed).await?;
            // Taken back if this is dropped before the head comes (the client left).
            let mut asked = TakeBack {
                passing: self.clone(),
                id: Some(passed.head.id),
            };
            match tokio::time::timeout(HEAD_TIMEOUT, rx.recv()).await {
                Ok(Some(Part::From(HttpPart::Head { status, headers }, _))) => {
                    asked.done();
                    return Ok((status, headers, rx));
                }
                // The world that had it is gone, and it with it.
                Ok(Some(Part::Away)) => {
                    asked.done();
                    if !passed.repeatable {
                        // A write the world had and never answered: done or not, nobody can
                        // say, so it is not offered to be tried again.
                        return Err(Unanswered::Unknown);
                    }
                    if !self.world_back().await {
                        return Err(Unanswered::NotDone);
                    }
                }
                _ => return Err(Unanswered::NotDone),
            }
        }
    }

    /// Passes `req` from `peer` to the world; the answer, as it comes. A request that only
    /// reads outlives a restart of the world: asked again once the world is back, its answer
    /// carries on where it was (a live page's next frame, a long poll's result).
    pub async fn pass(&self, req: Request<Body>, peer: SocketAddr) -> Response<Body> {
        let (head, body) = req.into_parts();
        let Ok(body) = axum::body::to_bytes(body, BODY_LIMIT).await else {
            return refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                "The request's body is too large.",
            );
        };
        let headers = carried(&head.headers);
        let mut passed = Passed {
            repeatable: repeatable(&head.method, head.uri.path(), &body),
            head: HttpRequest {
                host: self.host.to_string(),
                id: 0,
                method: head.method.to_string(),
                uri: head.uri.to_string(),
                headers,
                peer,
            },
            body,
        };
        let (status, headers, rx) = match self.head(&mut passed).await {
            Ok(headed) => headed,
            Err(Unanswered::NotDone) => return away(),
            Err(Unanswered::Unknown) => return unknown(),
            Err(Unanswered::TooLarge(most)) => return too_large(most),
        };
        let mut response = Response::builder()
            .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
        // An answer of a known length cannot be carried on by another: it ends with its world.
        let sized = headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-length"));
        passed.repeatable &= !sized;
        for (k, v) in headers {
            if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), unlatin(&v)) {
                response = response.header(k, v);
            }
        }
        // Taken back if the client leaves before the end.
        let asked = TakeBack {
            passing: self.clone(),
            id: Some(passed.head.id),
        };
        // After an error the stream ends (`None` for its state).
        let body =
            futures_util::stream::unfold(Some((rx, passed, asked)), move |state| async move {
                let (mut rx, mut passed, mut asked) = state?;
                let fail = |why: &str| Some((Err(std::io::Error::other(why.to_owned())), None));
                loop {
                    // Closed before its end: the client fell too far behind, or the world
                    // went and the word of it could not be queued. Cut short, said so (and
                    // taken back, as `asked` is dropped).
                    let Some(part) = rx.recv().await else {
                        return fail("the town's answer was cut short");
                    };
                    match part {
                        Part::From(HttpPart::Body, bytes) => {
                            return Some((Ok(bytes), Some((rx, passed, asked))));
                        }
                        Part::From(HttpPart::Failed(why), _) => {
                            asked.done();
                            return fail(&why);
                        }
                        Part::Away if passed.repeatable && asked.passing.world_back().await => {
                            // Asked again; the new answer's head is the client's already, so
                            // only an answer like the first carries it on.
                            asked.done();
                            let Ok((again, _, next)) = asked.passing.head(&mut passed).await else {
                                return fail("the town did not answer again");
                            };
                            asked.id = Some(passed.head.id);
                            if again != status {
                                return fail("the town answered otherwise");
                            }
                            rx = next;
                        }
                        Part::Away => {
                            asked.done();
                            return fail("the town stopped");
                        }
                        _ => {
                            asked.done();
                            return None;
                        }
                    }
                }
            });
        response
            .body(Body::from_stream(body))
            .unwrap_or_else(|_| refusal(StatusCode::BAD_GATEWAY, "The town's answer was garbled."))
    }
}

/// A request passed and not yet answered whole: dropped (its client left), it is taken back
/// from the world, which drops its handler rather than hold a long poll for nobody.
struct TakeBack {
    passing: Passing,
    id: Option<u64>,
}

impl TakeBack {
    /// Nothing is left to take back: the answer came whole, or its world is gone.
    fn done(&mut self) {
        self.id = None;
    }
}

impl Drop for TakeBack {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        lock(&self.passing.waiting).remove(&id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (client, host) = (self.passing.client.clone(), self.passing.host.clone());
            runtime.spawn(async move { cancel(&client, &host, id).await });
        }
    }
}

async fn cancel(client: &async_nats::Client, host: &str, id: u64) {
    let taken_back = HttpCancel {
        host: host.to_owned(),
        id,
    };
    if let Ok(body) = serde_json::to_vec(&taken_back) {
        let _ = client.publish(wire::http_cancel(host), body.into()).await;
    }
}
