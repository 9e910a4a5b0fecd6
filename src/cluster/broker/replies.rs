//! How the world answers a host: in the host's own inbox only (the broker does not check the
//! reply subject a publisher gives), whole or in pieces the broker carries.

use tokio::sync::mpsc;

use crate::cluster::wire::{self, Answer, AnswerPiece};

/// Answers a request of `host`'s, in its own inbox only: the broker checks who publishes on a
/// subject, never the reply subject a publisher gives, so an answer sent wherever a request
/// said could carry a login's answer to another host.
pub(super) async fn reply<T: serde::Serialize>(
    client: &async_nats::Client,
    msg: &async_nats::Message,
    host: &str,
    body: &T,
) {
    let Some(to) = msg.reply.clone() else { return };
    if !wire::is_inbox_of(&to, host) {
        tracing::warn!(%host, reply = %to, "a host asked for its answer outside its own inbox");
        return;
    }
    send(client, to.to_string(), body).await;
}

pub(super) async fn send<T: serde::Serialize>(client: &async_nats::Client, to: String, body: &T) {
    match serde_json::to_vec(body) {
        Ok(bytes) => {
            if let Err(e) = client.publish(to, bytes.into()).await {
                tracing::warn!(error = %e, "cannot answer a host");
            }
        }
        Err(e) => tracing::error!(error = %e, "cannot encode an answer to a host"),
    }
}

/// A read's answer as a host is sent it: [`Answer::Unchanged`] if its tag is `held`, the tag
/// of the copy the host keeps (see `host::kept`), or else the answer and its tag.
///
/// The tag is a hash keyed at random when this world's process starts (so a host's copies
/// from an earlier process never match, and nobody can make two answers share a tag on
/// purpose); the host keeps each copy under the exact call (credential, address, tool,
/// arguments), so a tag only ever says whether that caller's own answer changed.
pub(super) fn tagged(answer: Box<serde_json::value::RawValue>, held: Option<u64>) -> Answer {
    use std::hash::BuildHasher;
    static KEYS: std::sync::OnceLock<std::collections::hash_map::RandomState> =
        std::sync::OnceLock::new();
    let tag = KEYS
        .get_or_init(std::collections::hash_map::RandomState::new)
        .hash_one(answer.get().as_bytes());
    if held == Some(tag) {
        Answer::Unchanged
    } else {
        Answer::Tagged { answer, tag }
    }
}

/// Where the answers to a host's batch of questions go: its own inbox, the batch's reply
/// subject, checked once for the batch.
pub(super) type Inbox = std::sync::Arc<str>;

/// The world's answers to hosts' questions, each in [`wire::AnswerPiece`]s the broker carries
/// (a verb's result may be larger than one message), sent a batch to each inbox at a time: the
/// pieces ready when the carrier runs go in one message an inbox.
#[derive(Clone)]
pub(super) struct Replies {
    pieces: mpsc::UnboundedSender<Queued>,
    /// The most of an answer one piece carries.
    piece: usize,
}

impl Replies {
    /// Starts the carrier, which sends through `client` until every sender is dropped.
    pub(super) fn start(client: &async_nats::Client) -> Replies {
        let (pieces, queued) = mpsc::unbounded_channel();
        tokio::spawn(carry(client.clone(), queued));
        Replies {
            pieces,
            piece: crate::cluster::asked::piece(client),
        }
    }

    /// Answers question `id`, whose answer goes to `to`.
    pub(super) fn answer(&self, to: &Inbox, id: u64, answer: &Answer) {
        let bytes: bytes::Bytes = match serde_json::to_vec(answer) {
            Ok(bytes) => bytes.into(),
            Err(e) => return tracing::error!(error = %e, "cannot encode an answer to a host"),
        };
        let mut at = 0;
        loop {
            let end = (at + self.piece).min(bytes.len());
            let piece = AnswerPiece {
                id,
                more: end < bytes.len(),
                bytes: bytes.slice(at..end),
            };
            if self.pieces.send(Queued::Piece(to.clone(), piece)).is_err() || end == bytes.len() {
                return;
            }
            at = end;
        }
    }

    /// Resolves once the carrier has handed the broker every piece queued before (or has
    /// ended).
    pub(super) async fn flushed(&self) {
        let (done, sent) = tokio::sync::oneshot::channel();
        if self.pieces.send(Queued::Flushed(done)).is_ok() {
            let _ = sent.await;
        }
    }
}

/// What the carrier takes, in order.
enum Queued {
    Piece(Inbox, AnswerPiece),
    /// Said once what was queued before has gone to the broker.
    Flushed(tokio::sync::oneshot::Sender<()>),
}

/// Sends the pieces queued, a batch to each inbox at a time, in the order they were queued.
/// It waits a turn of the runtime first, so that the answers its other tasks have ready go
/// with the first: measured over six rounds each, `finishTurn` through a host cost a tenth
/// less CPU a call than sending each answer as it came (`look`, whose answers are four times
/// larger, within the noise).
async fn carry(client: async_nats::Client, mut queued: mpsc::UnboundedReceiver<Queued>) {
    let (mut batch, mut inboxes) = (Vec::new(), Vec::<(Inbox, Vec<AnswerPiece>)>::new());
    let mut flushed = Vec::new();
    let bytes = |q: &Queued| match q {
        Queued::Piece(_, piece) => 16 + piece.bytes.len(),
        Queued::Flushed(_) => 0,
    };
    while wire::next_batch(&mut queued, &mut batch, true, bytes).await {
        for queued in batch.drain(..) {
            let (to, piece) = match queued {
                Queued::Piece(to, piece) => (to, piece),
                Queued::Flushed(done) => {
                    flushed.push(done);
                    continue;
                }
            };
            match inboxes.iter_mut().find(|(inbox, _)| *inbox == to) {
                Some((_, pieces)) => pieces.push(piece),
                None => inboxes.push((to, vec![piece])),
            }
        }
        for (to, pieces) in inboxes.drain(..) {
            wire::publish(&client, &to, None, &pieces).await;
        }
        for done in flushed.drain(..) {
            let _ = done.send(());
        }
    }
}
