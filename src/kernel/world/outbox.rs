//! What the world has done but not yet told anyone: commands whose writes are on their way to
//! the database, in the order the world made them.
//!
//! A command changes the world at once, because the next command must see what it did; but
//! nothing it leaves for others goes out (notices, wake-ups of waiting agents, the computer's
//! thinking, the answer to its caller) until its writes are committed, and until every command
//! before it has gone out. If a write fails, the world is put back: that command and every
//! command after it (made on top of it) are undone newest first, their callers hear that
//! nothing happened, and nobody else hears anything. The store refuses the world's later
//! writes of the same epoch unrun (see [`Store::submit_world`]), so the database and the world
//! agree again.
//!
//! A command that writes nothing, with nothing in flight before it, goes out at once: chat costs
//! no round trip to the database.
//!
//! [`Store::submit_world`]: crate::store::Store::submit_world

use std::collections::VecDeque;

use tokio::sync::oneshot;

use super::Effect;
use super::{Cx, Notice, Out, Sink, Undo, World};
use crate::store::StoreError;

/// Why a command's answer is "nothing happened".
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum Unavailable {
    #[error("moot is shutting down")]
    Stopped,
    /// The database did not store it. SQLite's own words go to the log, not to players.
    #[error("moot could not store that just now, so it did not happen; please try again")]
    Storage,
    /// The command hit a bug in moot and was undone (see `task::guarded`). The bug's own words
    /// go to the log, never to the caller.
    #[error("Something went wrong; nothing changed.")]
    Internal,
}

/// Resolves once the command's effects have gone out, or with why they never will.
pub type Released = oneshot::Receiver<Result<(), Unavailable>>;

/// The answer to a typed command, for the connection that typed it: it goes out after what
/// came before the command and ahead of what the command told its typist (see
/// [`Pending::open_answer`]), so "You play e4" comes before the board it draws.
pub struct Answer {
    pub sink: Sink,
    /// Who typed the command: what it tells them goes out inside its answer.
    pub who: super::AgentId,
    pub lines: Vec<String>,
}

/// What a command left to send out, held until it may go.
pub struct Pending {
    /// Whether the command left anything the town's followers may need to see (a write, a
    /// change to a game, work, news for someone but its actor).
    pub left_something: bool,
    pub notices: Vec<Notice>,
    pub changed: Vec<super::Awaited>,
    pub effects: Vec<Effect>,
    pub answer: Option<Answer>,
    done: Option<oneshot::Sender<Result<(), Unavailable>>>,
}

struct Record {
    seq: u64,
    /// False while its writes are on their way; true once committed, or if it had none.
    committed: bool,
    undos: Vec<Undo>,
    pending: Pending,
}

/// The commands in flight, oldest first.
#[derive(Default)]
pub struct Outbox {
    records: VecDeque<Record>,
    next_seq: u64,
    epoch: u64,
}

/// What [`Outbox::push`] decided.
pub enum Pushed {
    /// Nothing is in flight and the command wrote nothing: send it out now.
    Now(Pending),
    /// Held; if it wrote anything, submit those writes as `seq` in `epoch`.
    Held {
        seq: u64,
        epoch: u64,
        released: Released,
    },
}

impl Outbox {
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Takes what `cx` left, and the answer to a typed command if it was one. `writes` says
    /// whether it left writes for the database.
    pub fn push(&mut self, cx: Cx, writes: bool, answer: Option<Answer>) -> Pushed {
        // What the town shows changes only with a write, a game, work to do or news for
        // someone else; a refusal told to its typist alone changes nothing of it.
        let left_something = writes
            || !cx.undos.is_empty()
            || !cx.changed.is_empty()
            || !cx.effects.is_empty()
            || cx.notices.iter().any(|n| n.to != cx.actor);
        let mut pending = Pending {
            left_something,
            notices: cx.notices,
            changed: cx.changed,
            effects: cx.effects,
            answer,
            done: None,
        };
        if !writes && self.records.is_empty() {
            return Pushed::Now(pending);
        }
        // Only what waits has anyone to tell when it goes out.
        let (done, released) = oneshot::channel();
        pending.done = Some(done);
        let seq = self.next_seq;
        self.next_seq += 1;
        self.records.push_back(Record {
            seq,
            committed: !writes,
            undos: cx.undos,
            pending,
        });
        Pushed::Held {
            seq,
            epoch: self.epoch,
            released,
        }
    }

    /// How many commands a failure of `seq` undoes: it and every command after it.
    pub fn undone_by(&self, seq: u64) -> usize {
        self.records
            .iter()
            .position(|r| r.seq == seq)
            .map_or(0, |pos| self.records.len() - pos)
    }

    /// The database's answer for `seq`. Returns what may now go out, in order; on a failure,
    /// undoes in `world` everything from `seq` on and tells their callers.
    pub fn answer(
        &mut self,
        world: &mut World,
        seq: u64,
        result: Result<(), StoreError>,
    ) -> Vec<Pending> {
        let Some(pos) = self.records.iter().position(|r| r.seq == seq) else {
            // Already undone, with the failure before it.
            return Vec::new();
        };
        match result {
            Ok(()) => {
                if let Some(r) = self.records.get_mut(pos) {
                    r.committed = true;
                }
                let mut out = Vec::new();
                while let Some(r) = self.records.pop_front_if(|r| r.committed) {
                    out.push(r.pending);
                }
                out
            }
            Err(_) => {
                let undone = (self.records.len() - pos) as u64;
                crate::metrics::get()
                    .unstored
                    .fetch_add(undone, std::sync::atomic::Ordering::Relaxed);
                while self.records.len() > pos {
                    let Some(mut r) = self.records.pop_back() else {
                        break;
                    };
                    while let Some(undo) = r.undos.pop() {
                        undo(world);
                    }
                    if let Some(done) = r.pending.done.take() {
                        let _ = done.send(Err(Unavailable::Storage));
                    }
                    if let Some(a) = r.pending.answer.take() {
                        a.sink.send(Out::Reply {
                            lines: vec![format!("*** {}. ***", Unavailable::Storage)],
                            more: false,
                        });
                    }
                }
                self.epoch += 1;
                Vec::new()
            }
        }
    }
}

impl Pending {
    /// Sends the typist their answer ahead of what the command told them, when it told them
    /// anything; the connection to end that output on once it has gone out.
    pub fn open_answer(&mut self) -> Option<Sink> {
        let a = self
            .answer
            .take_if(|a| self.notices.iter().any(|n| n.to == a.who))?;
        a.sink.send(Out::Reply {
            lines: a.lines,
            more: true,
        });
        Some(a.sink)
    }

    /// Answers the command's caller, now that it has gone out.
    pub fn answer(&mut self) {
        if let Some(a) = self.answer.take() {
            a.sink.send(Out::Reply {
                lines: a.lines,
                more: false,
            });
        }
        if let Some(done) = self.done.take() {
            let _ = done.send(Ok(()));
        }
    }
}
