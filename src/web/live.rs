//! Server-sent events: a page's live stream, fed by a task that waits for the world to change
//! and sends what its viewer may see. A stream holds one bounded channel; a browser that stops
//! reading stops its task (its frames wait, then the task ends with the connection).

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use tokio::sync::mpsc;

/// Frames waiting for a slow browser before its task waits too.
const QUEUED: usize = 8;

/// Starts `feed` with a sender for its frames and answers with the stream of them. The feed
/// ends when the browser goes (a send fails) or when it returns.
pub fn stream<F, Fut>(feed: F) -> Sse<impl Stream<Item = Result<Event, Infallible>>>
where
    F: FnOnce(Frames) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (tx, rx) = mpsc::channel(QUEUED);
    tokio::spawn(feed(Frames(tx)));
    let events = futures_util::stream::unfold(rx, |mut rx| async move {
        let e = rx.recv().await?;
        Some((Ok(e), rx))
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
}

/// Where a feed sends its frames.
pub struct Frames(mpsc::Sender<Event>);

impl Frames {
    /// Sends one frame named `event` with `data` (JSON); false once the browser has gone.
    pub async fn send(&self, event: &str, data: &serde_json::Value) -> bool {
        let e = Event::default().event(event).data(data.to_string());
        self.0.send(e).await.is_ok()
    }

    /// Sends one frame whose data is already JSON text; false once the browser has gone.
    pub async fn send_text(&self, event: &str, data: &str) -> bool {
        let e = Event::default().event(event).data(data);
        self.0.send(e).await.is_ok()
    }

    /// Resolves when the browser has gone.
    pub async fn closed(&self) {
        self.0.closed().await
    }
}

/// What a stream last sent, so that it sends nothing when nothing its reader may see changed:
/// a frame that differs from the last only in its time and carries no events says nothing,
/// and sending it would tell when something hidden happened (a night action).
#[derive(Default)]
pub struct Unchanged {
    last: Option<serde_json::Value>,
    reader: Option<serde_json::Value>,
}

impl Unchanged {
    /// Whether `frame` has news for its reader; remembers it.
    pub fn is_news(&mut self, frame: &serde_json::Value) -> bool {
        let events = frame
            .get("events")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|e| !e.is_empty());
        let mut bare = frame.clone();
        if let Some(o) = bare.as_object_mut() {
            for field in ["serverTime", "events", "cursor"] {
                o.remove(field);
            }
        }
        let news = events || self.last.as_ref() != Some(&bare);
        self.last = Some(bare);
        news
    }

    /// Whether `frame` is for another reader than the last (whose cursor it cannot use).
    pub fn reader_changed(&mut self, frame: &serde_json::Value) -> bool {
        let reader = frame.get("reader").cloned();
        let changed = self.reader.is_some() && self.reader != reader;
        self.reader = reader;
        changed
    }
}
