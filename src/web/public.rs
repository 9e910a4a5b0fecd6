//! One live feed per game for everyone watching it signed out (where its page shares one). What the public may see of a
//! match is the same for all of them, so the world is read once per change, not once per
//! spectator, and each frame is serialized once; a thousand spectators cost the world task what
//! one does. A feed starts with its first spectator and ends with its last, or with the match.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use axum::response::{IntoResponse, Response};
use serde_json::value::RawValue;
use tokio::sync::broadcast;

use super::{Web, live, next_frame};
use crate::cluster::visits::{FrameAnswer, FrameAsk, WebAsk};
use moot_kernel::verbs::game_module::Page;

/// Frames a spectator may fall behind by before it is sent the whole match again.
const BEHIND: usize = 64;

/// A game: its page's path and its id.
type Game = (&'static str, String);

#[derive(Default)]
pub struct PublicFeeds {
    feeds: Mutex<HashMap<Game, broadcast::Sender<Arc<str>>>>,
}

impl PublicFeeds {
    /// Frames of game `id` of `page` as the public sees it, from now on (starting its feed if
    /// none runs).
    fn subscribe(&self, web: &Web, page: &'static Page, id: &str) -> broadcast::Receiver<Arc<str>> {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (page.path, id.to_owned());
        if let Some(tx) = feeds.get(&key) {
            return tx.subscribe();
        }
        let (tx, rx) = broadcast::channel(BEHIND);
        feeds.insert(key.clone(), tx.clone());
        tokio::spawn(produce(web.clone(), key, tx));
        rx
    }

    fn end(&self, key: &Game, tx: &broadcast::Sender<Arc<str>>) {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        if feeds.get(key).is_some_and(|t| t.same_channel(tx)) {
            feeds.remove(key);
        }
    }
}

/// The whole game as the public sees it, as the text to send (`None` if the world had none to
/// give); the answer to give instead if there is no such game or the town cannot be asked.
async fn whole(
    web: &Web,
    page: &'static Page,
    id: &str,
) -> Result<Option<(Box<RawValue>, bool)>, Response> {
    let ask = WebAsk::Frame(FrameAsk::first(page.path, id, None));
    match web.ask::<FrameAnswer<Box<RawValue>>>(ask).await? {
        FrameAnswer::Frame(v) => Ok(v.value),
        FrameAnswer::NoGame => Err(super::not_found(id)),
    }
}

/// A game for someone signed out: the whole game as the public sees it, then the shared
/// feed's frames (a spectator that falls too far behind is sent the whole game again). The
/// whole game is read once, after joining the feed (so that nothing falls between), and is
/// both the first frame and the answer to whether there is such a game: a crowd arriving at
/// once costs one read each, not two.
pub async fn live(web: Web, page: &'static Page, id: String) -> Response {
    let mut feed = web.public.subscribe(&web, page, &id);
    let first = match whole(&web, page, &id).await {
        Ok(first) => first,
        Err(refused) => return refused,
    };
    live::stream(move |frames| async move {
        let mut got = first;
        loop {
            if let Some((frame, ended)) = got.take()
                && (!frames.send_text("frame", frame.get()).await || ended)
            {
                return;
            }
            tokio::select! {
                heard = feed.recv() => match heard {
                    Ok(text) => {
                        if !frames.send_text("frame", &text).await {
                            return;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(_)) => match whole(&web, page, &id).await {
                        Ok(Some(again)) => got = Some(again),
                        Ok(None) | Err(_) => return,
                    },
                    Err(broadcast::error::RecvError::Closed) => return,
                },
                () = frames.closed() => return,
                () = web.shutdown.cancelled() => return,
            }
        }
    })
    .into_response()
}

/// Asks for the game after each change and sends the frame (with the events since the last)
/// to every spectator; stops when none is left, when the game ends or is gone, or when moot
/// stops. While the town does not answer (it restarts) it asks again.
async fn produce(web: Web, key: Game, tx: broadcast::Sender<Arc<str>>) {
    let mut ask = FrameAsk::first(key.0, &key.1, None);
    let mut sent = live::Unchanged::default();
    while let Some(got) = next_frame(&web, &mut ask, std::future::pending()).await {
        let Some((frame, ended)) = got else {
            // Nobody left to send to: the feed ends.
            if tx.receiver_count() == 0 {
                break;
            }
            continue;
        };
        ask.after = frame["cursor"].as_u64().map(|n| n as usize);
        // Nothing the public may see happened (a hidden action moved the match): no frame.
        if sent.is_news(&frame) && tx.send(frame.to_string().into()).is_err() || ended {
            break;
        }
    }
    web.public.end(&key, &tx);
}
