//! A connected character, and the mailbox that holds an agent's news until it asks for it.

use std::collections::VecDeque;
use std::sync::atomic::Ordering;

use tokio::time::Instant;

use super::delivery::{Delivery, MAX_BACKLOG, MAX_BACKLOG_BYTES, Sink};
use super::{AgentId, ConnId, RoomIdx};
/// A connected character.
#[derive(Debug)]
pub struct Player {
    pub id: AgentId,
    pub name: String,
    pub description: String,
    pub room: RoomIdx,
    pub connected_at: Instant,
    /// When they last did something others may know of (`who`'s idle time).
    pub last_active: Instant,
    /// When they last sent anything (the sweep of silent agents).
    pub(super) last_heard: Instant,
    /// How their lines are fitted to their screen (telnet wraps by it).
    pub display: crate::wrap::Display,
    /// May use the wizards' verbs (as of their login).
    pub wizard: bool,
    /// May build (as of their login, or since a wizard's `@builder`).
    pub builder: bool,
    /// May program (as of their login, or since a wizard's `@programmer`).
    pub programmer: bool,
    /// The verb whose code they are typing, line by line, after `@program` (until `.`).
    pub editing: Option<super::programs::Editing>,
    pub(super) conn: ConnId,
    pub(super) sink: Sink,
    /// What happened while a mailbox player was not looking (oldest first, bounded).
    pub(super) mailbox: VecDeque<Delivery>,
    /// The mailbox's size in bytes (see [`Delivery::weight`]).
    pub(super) mailbox_bytes: usize,
}

impl Player {
    pub fn new(
        id: AgentId,
        name: String,
        description: String,
        room: RoomIdx,
        conn: ConnId,
        sink: Sink,
    ) -> Player {
        let now = Instant::now();
        Player {
            id,
            name,
            description,
            room,
            connected_at: now,
            last_active: now,
            last_heard: now,
            display: crate::wrap::Display::default(),
            wizard: false,
            builder: false,
            programmer: false,
            editing: None,
            conn,
            sink,
            mailbox: VecDeque::new(),
            mailbox_bytes: 0,
        }
    }

    /// Whether this player has a live connection (a person at a keyboard) or a mailbox (an agent).
    pub fn sink_kind(&self) -> &Sink {
        &self.sink
    }

    /// Takes the oldest notices waiting in the mailbox, up to `bytes` of them (at least one);
    /// says how many are left.
    pub fn take_mailbox(&mut self, bytes: usize) -> (Vec<Delivery>, usize) {
        let mut taken = Vec::new();
        let mut size = 0;
        while let Some(d) = self.mailbox.front() {
            let w = d.weight();
            if !taken.is_empty() && size + w > bytes {
                break;
            }
            let Some(d) = self.mailbox.pop_front() else {
                break;
            };
            size += w;
            self.mailbox_bytes -= w;
            taken.push(d);
        }
        (taken, self.mailbox.len())
    }

    /// Adds a notice to the mailbox, dropping the oldest past its bounds.
    pub(super) fn post(&mut self, d: Delivery) {
        self.mailbox_bytes += d.weight();
        self.mailbox.push_back(d);
        while self.mailbox.len() > MAX_BACKLOG || self.mailbox_bytes > MAX_BACKLOG_BYTES {
            crate::metrics::get()
                .backlog_drops
                .fetch_add(1, Ordering::Relaxed);
            let Some(old) = self.mailbox.pop_front() else {
                break;
            };
            self.mailbox_bytes -= old.weight();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::channel;

    fn line(n: usize) -> Delivery {
        Delivery::Line("x".repeat(n).into())
    }

    #[test]
    fn a_mailbox_keeps_the_newest_within_bounds_and_answers_in_slices() {
        let (sink, _) = channel();
        let mut p = Player::new("a".into(), "A".into(), String::new(), 0, 1, sink);
        for i in 0..1000 {
            p.post(Delivery::Line(format!("{i:04}{}", "x".repeat(4092)).into()));
        }
        assert!(p.mailbox_bytes <= MAX_BACKLOG_BYTES);
        let newest = match p.mailbox.back() {
            Some(Delivery::Line(l)) => l[..4].to_owned(),
            _ => unreachable!(),
        };
        assert_eq!(newest, "0999", "the newest are kept");
        let (first, left) = p.take_mailbox(64 * 1024);
        assert_eq!(first.len(), 16);
        assert_eq!(left, p.mailbox.len());
        assert!(left > 0);
        // One notice larger than the slice still comes out.
        p.post(line(8192));
        let (all, _) = p.take_mailbox(usize::MAX);
        assert!(!all.is_empty());
        assert_eq!(p.mailbox_bytes, 0);
    }
}
