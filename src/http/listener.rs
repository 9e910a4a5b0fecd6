//! The HTTP listener: hyper's HTTP/1 connections under moot's own accept loop.
//!
//! Not `axum::serve`, because it offers no bounds: hyper's header read timeout does nothing
//! without a timer, which `axum::serve` does not set, so a client that sends half a request
//! holds its socket for ever, and a thousand of them exhaust the process's descriptors and lock
//! telnet users out too. Here every connection must send its first byte, and then each request
//! head, within the header timeout; connections past the cap are answered 503 and closed, and
//! those past one address's own cap 429, so that one address cannot take every slot; and each
//! request carries the peer's address, for limits per address.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use moot_kernel::limits::{Occupancy, turn_away};

/// What bounds the listener.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Connections open at once.
    pub max_connections: usize,
    /// Connections one address may hold open at once (0: no limit).
    pub per_address: usize,
    /// How long a client may take to send its first byte, and each request's head.
    pub header_timeout: Duration,
}

/// The answer past a cap, in the REST API's error shape.
fn refusal(status: &str, code: &str, message: &str) -> Vec<u8> {
    let body = serde_json::json!({"error": {"code": code, "message": message}}).to_string();
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n\
         retry-after: 5\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Serves `router` on `listener` until `shutdown`; then lets open requests finish.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    bounds: Bounds,
    shutdown: CancellationToken,
) {
    let slots = Arc::new(Semaphore::new(bounds.max_connections));
    let per_address = Occupancy::new(bounds.per_address);
    let tracker = TaskTracker::new();
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors and the like: pause rather than spin.
                    tracing::warn!(error = %e, "HTTP accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = shutdown.cancelled() => break,
        };
        let Some(seat) = per_address.take(peer.ip()) else {
            let message = "Too many connections from your address; close some and try again.";
            let answer = refusal("429 Too Many Requests", "RATE_LIMITED", message);
            tracker.spawn(async move { turn_away(stream, &answer).await });
            continue;
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            let message = "Too many connections; please try again later.";
            let answer = refusal("503 Service Unavailable", "UNAVAILABLE", message);
            tracker.spawn(async move { turn_away(stream, &answer).await });
            continue;
        };
        let router = router.clone();
        let shutdown = shutdown.clone();
        tracker.spawn(async move {
            let _held = (slot, seat);
            let _counted =
                moot_kernel::metrics::Up::new(&moot_kernel::metrics::get().http_connections);
            // A connection that says nothing at all is closed too (hyper's timer starts at the
            // first byte).
            let mut first = [0u8; 1];
            match tokio::time::timeout(bounds.header_timeout, stream.peek(&mut first)).await {
                Ok(Ok(n)) if n > 0 => {}
                _ => return,
            }
            let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
                req.extensions_mut().insert(ConnectInfo(peer));
                let mut router = router.clone();
                async move {
                    use tower_service::Service;
                    router.call(req.map(axum::body::Body::new)).await
                }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(bounds.header_timeout)
                .serve_connection(TokioIo::new(stream), service);
            let mut conn = std::pin::pin!(conn);
            tokio::select! {
                _ = conn.as_mut() => {}
                _ = shutdown.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
        });
    }
    tracker.close();
    tracker.wait().await;
}

/// The peer of a request served by [`serve`].
pub fn peer(req: &axum::http::Extensions) -> Option<SocketAddr> {
    req.get::<ConnectInfo<SocketAddr>>().map(|c| c.0)
}
