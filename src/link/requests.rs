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

use super::wire::{self, HttpCancel, HttpPart, HttpRequest};

/// The most a request's body may hold on its way to the world (the MCP endpoint's own limit,
/// the largest of moot's).
pub const BODY_LIMIT: usize = 1 << 20;

/// Parts of one answer a host holds for a client that reads slowly, before letting it go.
const PARTS_HELD: usize = 256;

/// How long a host waits for the head of an answer: longer than any long poll moot holds.
const HEAD_TIMEOUT: Duration = Duration::from_secs(300);

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
    running: Arc<Mutex<HashMap<(String, u64), tokio::task::AbortHandle>>>,
}

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

    fn router(&self, host: &str) -> axum::Router {
        let mut routers = lock(&self.routers);
        // A host that greeted an earlier world process: loopback, until it greets again.
        let fallback = || (self.make)(SocketAddr::from(([127, 0, 0, 1], 0)));
        routers
            .entry(host.to_owned())
            .or_insert_with(fallback)
            .clone()
    }

    /// Answers one request a host passed, in parts, on the subject it gave.
    pub fn answer(&self, msg: async_nats::Message) {
        let Some((head, body)) = wire::unframe::<HttpRequest>(&msg.payload) else {
            tracing::warn!("a host passed a request this world cannot read");
            return;
        };
        let Some(reply) = msg.reply.clone() else {
            return;
        };
        let key = (head.host.clone(), head.id);
        let router = self.router(&head.host);
        let client = self.client.clone();
        let running = self.running.clone();
        let task = tokio::spawn({
            let key = key.clone();
            async move {
                let parts = Parts {
                    client: &client,
                    to: reply.to_string(),
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
        lock(&self.running).insert(key, task.abort_handle());
    }

    /// A host took a request back: its handler is dropped.
    pub fn cancel(&self, msg: &async_nats::Message) {
        if let Ok(c) = serde_json::from_slice::<HttpCancel>(&msg.payload)
            && let Some(task) = lock(&self.running).remove(&(c.host, c.id))
        {
            task.abort();
        }
    }
}

/// The request a host passed, as the router takes it.
fn request(head: HttpRequest, body: Bytes) -> Result<Request<Body>, String> {
    let mut req = Request::builder()
        .method(head.method.as_str())
        .uri(head.uri.as_str());
    for (name, value) in &head.headers {
        req = req.header(name.as_str(), value.as_str());
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

impl Parts<'_> {
    async fn send(&self, part: &HttpPart, bytes: &[u8]) -> bool {
        let Some(message) = wire::frame(part, bytes) else {
            return false;
        };
        self.client.publish(self.to.clone(), message).await.is_ok()
    }

    async fn send_response(&self, response: Response<Body>) {
        let (head, body) = response.into_parts();
        let headers = head
            .headers
            .iter()
            .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
            .collect();
        let part = HttpPart::Head {
            status: head.status.as_u16(),
            headers,
        };
        if !self.send(&part, &[]).await {
            return;
        }
        let mut stream = body.into_data_stream();
        while let Some(chunk) = stream.next().await {
            match chunk {
                Ok(bytes) => {
                    if !self.send(&HttpPart::Body, &bytes).await {
                        return;
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
pub struct Passing {
    client: async_nats::Client,
    host: String,
    next: AtomicU64,
    waiting: Waiting,
}

/// The clients waiting for an answer, by request: where its parts go.
type Waiting = Arc<Mutex<HashMap<u64, mpsc::Sender<(HttpPart, Bytes)>>>>;

/// The requests a host has passed and not seen answered, to end when the world is away.
#[derive(Clone)]
pub struct InFlight(Waiting);

impl InFlight {
    /// Ends every request in flight: the world that was answering them has stopped. One
    /// still waiting for its head is answered 503, one whose body was flowing ends there.
    pub fn world_away(&self) {
        for (_, tx) in lock(&self.0).drain() {
            let _ = tx.try_send((HttpPart::Failed("the town stopped".into()), Bytes::new()));
        }
    }
}

impl Passing {
    /// Takes the answers to this host's requests off the broker.
    pub async fn open(client: async_nats::Client, host: &str) -> Result<Passing, String> {
        let mut answers = client
            .subscribe(wire::http_replies(host))
            .await
            .map_err(|e| e.to_string())?;
        let waiting: Waiting = Arc::default();
        let passing = Passing {
            client: client.clone(),
            host: host.to_owned(),
            next: AtomicU64::new(1),
            waiting: waiting.clone(),
        };
        let host = host.to_owned();
        tokio::spawn(async move {
            while let Some(msg) = answers.next().await {
                let Some(id) = msg.subject.rsplit('.').next().and_then(|n| n.parse().ok()) else {
                    continue;
                };
                let Some(part) = wire::unframe::<HttpPart>(&msg.payload) else {
                    tracing::warn!("the world answered what this host cannot read");
                    continue;
                };
                let last = matches!(part.0, HttpPart::End | HttpPart::Failed(_));
                let gone = {
                    let mut waiting = lock(&waiting);
                    let Some(tx) = waiting.get(&id) else { continue };
                    // A client gone, or too far behind: its request is taken back.
                    let gone = tx.try_send(part).is_err();
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
        Ok(passing)
    }

    /// What to end when the world is away.
    pub fn in_flight(&self) -> InFlight {
        InFlight(self.waiting.clone())
    }

    /// Passes `req` from `peer` to the world; the answer, as it comes.
    pub async fn pass(&self, req: Request<Body>, peer: SocketAddr) -> Response<Body> {
        let (head, body) = req.into_parts();
        let Ok(body) = axum::body::to_bytes(body, BODY_LIMIT).await else {
            return refusal(
                StatusCode::PAYLOAD_TOO_LARGE,
                "The request's body is too large.",
            );
        };
        let mut headers = Vec::with_capacity(head.headers.len());
        for (k, v) in &head.headers {
            let Ok(v) = v.to_str() else {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    "A header's value is not visible ASCII.",
                );
            };
            headers.push((k.as_str().to_owned(), v.to_owned()));
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let passed = HttpRequest {
            host: self.host.clone(),
            id,
            method: head.method.to_string(),
            uri: head.uri.to_string(),
            headers,
            peer,
        };
        let Some(message) = wire::frame(&passed, &body) else {
            return refusal(StatusCode::BAD_REQUEST, "The request cannot be passed on.");
        };
        let (tx, mut rx) = mpsc::channel(PARTS_HELD);
        lock(&self.waiting).insert(id, tx);
        let sent = self
            .client
            .publish_with_reply(wire::http(), wire::http_reply(&self.host, id), message)
            .await;
        let first = match sent {
            Ok(()) => tokio::time::timeout(HEAD_TIMEOUT, rx.recv())
                .await
                .ok()
                .flatten(),
            Err(_) => None,
        };
        let Some((HttpPart::Head { status, headers }, _)) = first else {
            lock(&self.waiting).remove(&id);
            cancel(&self.client, &self.host, id).await;
            return away();
        };
        let mut response = Response::builder()
            .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
        for (k, v) in headers {
            if let (Ok(k), Ok(v)) = (HeaderName::try_from(k), HeaderValue::try_from(v)) {
                response = response.header(k, v);
            }
        }
        let body = futures_util::stream::unfold(rx, |mut rx| async move {
            match rx.recv().await? {
                (HttpPart::Body, bytes) => Some((Ok::<_, std::io::Error>(bytes), rx)),
                (HttpPart::Failed(why), _) => Some((Err(std::io::Error::other(why)), rx)),
                _ => None,
            }
        });
        response
            .body(Body::from_stream(body))
            .unwrap_or_else(|_| refusal(StatusCode::BAD_GATEWAY, "The town's answer was garbled."))
    }
}

/// The answer while the town is away: to be tried again in a moment.
pub fn away() -> Response<Body> {
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "The town does not answer; please try again in a moment.",
    )
}

async fn cancel(client: &async_nats::Client, host: &str, id: u64) {
    let taken_back = HttpCancel {
        host: host.to_owned(),
        id,
    };
    if let Ok(body) = serde_json::to_vec(&taken_back) {
        let _ = client.publish(wire::http_cancel(), body.into()).await;
    }
}

/// The REST API's error shape, for what a host answers itself.
fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    let code = if status == StatusCode::SERVICE_UNAVAILABLE {
        "UNAVAILABLE"
    } else {
        "INVALID_REQUEST"
    };
    let body = serde_json::json!({ "error": { "code": code, "message": message } });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            HeaderValue::from_static("1"),
        );
    }
    response
}
