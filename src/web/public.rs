//! One live feed per game for everyone watching it signed out (where its page shares one). What the public may see of a
//! match is the same for all of them, so the world is read once per change, not once per
//! spectator, and each frame is serialized once; a thousand spectators cost the world task what
//! one does. A feed starts with its first spectator and ends with its last, or with the match.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::broadcast;

use super::Web;
use moot_kernel::verbs::game_module::Page;
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{Face, SERVER_ID};

/// Frames a spectator may fall behind by before it is sent the whole match again.
const BEHIND: usize = 64;

#[derive(Default)]
pub struct PublicFeeds {
    feeds: Mutex<HashMap<SessionId, broadcast::Sender<Arc<str>>>>,
}

impl PublicFeeds {
    /// Frames of match `sid` as the public sees it, from now on (starting its feed if none
    /// runs).
    pub fn subscribe(
        &self,
        web: &Web,
        page: &'static Page,
        sid: SessionId,
    ) -> broadcast::Receiver<Arc<str>> {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(tx) = feeds.get(&sid) {
            return tx.subscribe();
        }
        let (tx, rx) = broadcast::channel(BEHIND);
        feeds.insert(sid, tx.clone());
        tokio::spawn(produce(web.clone(), page, sid, tx));
        rx
    }

    fn end(&self, sid: SessionId, tx: &broadcast::Sender<Arc<str>>) {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if feeds.get(&sid).is_some_and(|t| t.same_channel(tx)) {
            feeds.remove(&sid);
        }
    }
}

/// Reads the match after each change and sends the frame (with the events since the last) to
/// every spectator; stops when none is left, when the match ends, or when moot stops.
async fn produce(web: Web, page: &'static Page, sid: SessionId, tx: broadcast::Sender<Arc<str>>) {
    let mut after: Option<usize> = None;
    let mut sent = super::live::Unchanged::default();
    loop {
        let read = web
            .world
            .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                ((page.frame)(w, None, sid, after), w.watch_session(sid))
            })
            .await;
        let Ok((Some((frame, ended)), mut changed)) = read else {
            break;
        };
        after = frame["cursor"].as_u64().map(|n| n as usize);
        // Nothing the public may see happened (a hidden action moved the match): no frame.
        if sent.is_news(&frame) && tx.send(frame.to_string().into()).is_err() || ended {
            break;
        }
        tokio::select! {
            r = changed.changed() => if r.is_err() { break },
            () = web.shutdown.cancelled() => break,
        }
    }
    web.public.end(sid, &tx);
}
