//! How the world answers a host: in the host's own inbox only (the broker does not check the
//! reply subject a publisher gives), whole or in pieces the broker carries.

use crate::cluster::wire::{self, Answer};

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

/// Answers a question in [`wire::Piece`]s the broker carries (a verb's result may be larger
/// than one message), in the asker's own inbox.
pub(super) async fn reply_in_pieces(
    client: &async_nats::Client,
    msg: &async_nats::Message,
    host: &str,
    answer: &Answer,
) {
    let Some(to) = msg.reply.clone() else { return };
    if !wire::is_inbox_of(&to, host) {
        tracing::warn!(%host, reply = %to, "a host asked for its answer outside its own inbox");
        return;
    }
    let bytes = match serde_json::to_vec(answer) {
        Ok(bytes) => bytes,
        Err(e) => return tracing::error!(error = %e, "cannot encode an answer to a host"),
    };
    let mut pieces = bytes
        .chunks(crate::cluster::asked::piece(client))
        .peekable();
    while let Some(piece) = pieces.next() {
        let head = wire::Piece {
            more: pieces.peek().is_some(),
        };
        let Some(message) = wire::frame(&head, piece) else {
            return;
        };
        if let Err(e) = client.publish(to.clone(), message).await {
            return tracing::warn!(error = %e, "cannot answer a host");
        }
    }
}
