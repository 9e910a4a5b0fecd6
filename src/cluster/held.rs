//! What a host remembers of its connections and of the world: which run of the world they are
//! in, what each has asked and what was answered, and what each hears when the world goes
//! away and comes back. Bookkeeping only; the host's tasks (`host`) do the talking.

use std::collections::HashMap;
use std::time::Duration;

use super::asked::InFlight;
use super::heard::Heard;
use moot_kernel::world::{AgentId, ConnId, Out, Sink};

/// A line typed while the town is away.
pub const NOT_DONE: &str =
    "*** The town is restarting; that was not done. Please try again in a moment. ***";
/// A line the world took and did not answer before it stopped.
pub const UNANSWERED: &str = "*** The town stopped before answering that. Whatever it changed \
                              was stored before you would have heard of it: look again when \
                              the town is back. ***";
pub const PAUSES: &str = "*** The town pauses while it restarts; stay connected. ***";
pub const AWAY: &str = "*** The town is not answering; stay connected, it will be back. ***";
pub const BACK: &str = "*** The town is back. ***";
/// Back after the world restarted (or let this host go): what the world keeps only while
/// someone is connected went as it does when they leave.
pub const RESUMED: &str = "*** The town is back. It restarted: challenges, games you were \
                           watching and places on the notice board were withdrawn, as when \
                           you leave. ***";
pub const GAVE_UP: &str =
    "*** The town has been away too long; goodbye. Please connect again later. ***";

/// One of this host's connections in the town.
pub(super) struct Held {
    pub(super) sink: Sink,
    pub(super) agent: AgentId,
    /// The world's pass for this character through this host, shown again to bring them back
    /// in after the world restarts.
    pub(super) pass: String,
    /// The run of the world this connection entered (re-entered only into a later one).
    pub(super) epoch: u64,
    /// The number of the last request (entering, or a line) sent to the world, and of the last
    /// one answered, by the world or by the host for it: a command is in flight while they
    /// differ, and an answer to one already answered is no longer an answer.
    pub(super) sent: u64,
    pub(super) settled: u64,
}

impl Held {
    /// Numbers the next request.
    pub(super) fn next(&mut self) -> u64 {
        self.sent += 1;
        self.sent
    }

    /// Answers request `seq` for the world (it was not done, or the world went before
    /// answering it), unless it has its answer.
    pub(super) fn settle(&mut self, seq: u64, why: &str) {
        if seq > self.settled {
            self.settled = seq;
            self.sink.send(Out::Reply {
                lines: vec![why.into()],
                more: false,
            });
        }
    }

    /// The world's answer to request `seq`. One the host answered already (the world was
    /// away, and came back) is news, not the answer to whatever was typed since (and the
    /// [`Out::Ended`] that may follow it ends nothing: no answer is open).
    pub(super) fn answered(&mut self, seq: u64, lines: Vec<String>, more: bool) {
        if seq > self.settled {
            self.settled = seq;
            self.sink.pass(Out::Reply { lines, more });
        } else {
            for line in lines {
                self.sink.pass(Out::Line(line.into()));
            }
        }
    }
}

/// What the host knows of the world and of its own connections.
pub(super) struct State {
    /// The run of the world this host's connections are in.
    pub(super) epoch: u64,
    pub(super) up: bool,
    pub(super) heard: std::sync::Arc<Heard>,
    pub(super) conns: HashMap<ConnId, Held>,
    /// The questions asked of the world and not yet answered.
    pub(super) requests: InFlight,
    /// How long connections are kept while the world is away.
    pub(super) wait: Duration,
    /// The last time the world let this host go that it has come back from (see
    /// [`News::Forgot`]).
    pub(super) forgot: u64,
}

impl State {
    /// Tells every connection `line`.
    pub(super) fn tell_all(&self, line: &str) {
        for held in self.conns.values() {
            held.sink.pass(Out::Line(line.into()));
        }
    }

    /// Answers every command in flight for the world, which will not (or not in time: an
    /// answer that comes after all is shown, as what it is).
    pub(super) fn answer_in_flight(&mut self) {
        for held in self.conns.values_mut() {
            held.settle(held.sent, UNANSWERED);
        }
    }

    /// The world restarted (a new `epoch`), or let this host go (`everyone`: the same one):
    /// what was in flight is answered here, and every connection not in the world yet is
    /// numbered to enter it again; which, and who.
    pub(super) fn rejoin(&mut self, epoch: u64, everyone: bool) -> Vec<Back> {
        self.answer_in_flight();
        self.requests.world_away();
        self.epoch = epoch;
        self.up = true;
        self.requests.set_up();
        self.heard.now();
        self.tell_all(RESUMED);
        // Those that entered this run already (a login while the host greeted it) are in.
        self.conns
            .iter_mut()
            .filter(|(_, held)| everyone || held.epoch != epoch)
            .map(|(conn, held)| {
                held.epoch = epoch;
                Back {
                    conn: *conn,
                    agent: held.agent.clone(),
                    pass: held.pass.clone(),
                    seq: held.next(),
                }
            })
            .collect()
    }

    /// The world has gone quiet or said it stops: its people hear `why`, once.
    /// New requests wait or are refused from now on; those in flight are left to the world,
    /// which answers what it took before it goes (see [`State::gone`]).
    pub(super) fn away(&mut self, why: &str) {
        self.requests.set_down();
        if self.up {
            self.up = false;
            self.tell_all(why);
        }
    }

    /// The world has been silent too long to answer anything more: what it left unanswered is
    /// answered here (lines), or asked again once it is back (requests that only read).
    pub(super) fn gone(&mut self) {
        self.away(AWAY);
        self.answer_in_flight();
        self.requests.world_away();
    }
}

/// A connection to bring back into the world.
pub(super) struct Back {
    pub(super) conn: ConnId,
    pub(super) agent: AgentId,
    pub(super) pass: String,
    /// The number of its entering.
    pub(super) seq: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use moot_kernel::world::{self, Source};

    fn replies(source: &mut Source) -> Vec<String> {
        let mut seen = Vec::new();
        while let Ok(out) = source.rx.try_recv() {
            seen.push(match out {
                Out::Reply { lines, .. } => format!("reply {}", lines.join("|")),
                Out::Line(l) => format!("line {l}"),
                other => format!("{other:?}"),
            });
        }
        seen
    }

    #[test]
    fn an_answer_the_host_gave_for_the_world_is_not_the_next_lines() {
        let (sink, mut source) = world::channel();
        let mut held = Held {
            sink,
            agent: "a".into(),
            pass: String::new(),
            epoch: 1,
            sent: 1,
            settled: 0,
        };
        held.answered(1, vec!["*** Connected ***".into()], false);
        // A line the world took, and went quiet: the host answers it.
        let line = held.next();
        held.settle(line, UNANSWERED);
        // The world's own answer comes after all; then the next line's.
        held.answered(line, vec!["You say, \"hi\"".into()], false);
        let next = held.next();
        held.answered(next, vec!["Exits: east".into()], false);
        // Settling what has its answer changes nothing.
        held.settle(next, NOT_DONE);
        assert_eq!(
            replies(&mut source),
            [
                "reply *** Connected ***".to_owned(),
                format!("reply {UNANSWERED}"),
                "line You say, \"hi\"".to_owned(),
                "reply Exits: east".to_owned(),
            ]
        );
    }
}
