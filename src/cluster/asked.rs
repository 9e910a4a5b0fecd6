//! Questions in flight across the broker, on both sides: the world's questions being answered
//! (each a task a host may take back when its client leaves, and those that only read dropped
//! as the world goes, for the host to ask the next world), and a host's bookkeeping of them
//! (numbers, whether the world answers now, word when a world went with questions unanswered,
//! and the one subscription their answers come to).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::wire::{self, TakeBack};

/// The most of an answer one message carries.
const PIECE: usize = 64 * 1024;

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The most of an answer one message through `client`'s broker carries, whatever its message
/// limit (1 MB unless its operator says otherwise): room is left for a piece's head.
pub(super) fn piece(client: &async_nats::Client) -> usize {
    let most = client.server_info().max_payload;
    if most == 0 {
        PIECE
    } else {
        PIECE.min(most / 2).max(1)
    }
}

/// The world's side: the questions being answered that may wait (tool calls, live pages).
#[derive(Default)]
pub struct Answering {
    running: Running,
    /// How many writes that cannot be taken back are being answered.
    owed: Arc<AtomicUsize>,
    /// Each task's own number, so that one ending late removes its own entry only.
    serial: AtomicU64,
}

/// A write being answered (see [`Answering::owe`]), counted until it is dropped.
pub struct Owed(Arc<AtomicUsize>);

impl Drop for Owed {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Each question being answered, by host and number: its task, and whether it may be asked
/// again.
type Running = Arc<Mutex<HashMap<(String, u64), (tokio::task::AbortHandle, bool, u64)>>>;

impl Answering {
    /// A host taken for dead: the questions it asked are dropped (nobody waits for them).
    pub fn forget(&self, host: &str) {
        lock(&self.running).retain(|(h, _), (task, _, _)| {
            if h == host {
                task.abort();
            }
            h != host
        });
    }

    /// Runs `answer`, the answer to question `id` of `host`'s: the host may take it back, and
    /// one that may be asked `again` is dropped as the world goes.
    pub fn run(
        &self,
        host: &str,
        id: u64,
        again: bool,
        answer: impl std::future::Future<Output = ()> + Send + 'static,
    ) {
        // A read (one that may be asked `again`) is mostly ready at once, the world being
        // free: answered here, it costs no task, no entry and no wake-up of another thread. One
        // that is not goes on in a task, whose first poll looks again at whatever this one
        // waited on. A write waits for its commit, so it goes to its task at once. One that
        // panics (a bug) costs its own answer, as its task's panic would, never the caller's
        // loop.
        let mut answer = Box::pin(answer);
        if again {
            let mut here = std::task::Context::from_waker(std::task::Waker::noop());
            let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                answer.as_mut().poll(&mut here).is_ready()
            }));
            if polled.unwrap_or(true) {
                return;
            }
        }
        let key = (host.to_owned(), id);
        let running = self.running.clone();
        // Entered while the map is held, so that a task done at once (on another thread)
        // removes its entry after it is there, not before (which left it there for ever).
        let mut entries = lock(&self.running);
        // Its entry goes however the task ends (answered, taken back, on a bug), unless a
        // question since asked under its number (a host started again) holds it. Armed once
        // the task runs: a runtime shutting down drops a task it is handed at once, while the
        // map is held here.
        struct Entry(Running, (String, u64), u64, bool);
        impl Drop for Entry {
            fn drop(&mut self) {
                if !self.3 {
                    return;
                }
                let mut running = lock(&self.0);
                if running.get(&self.1).is_some_and(|(_, _, n)| *n == self.2) {
                    running.remove(&self.1);
                }
            }
        }
        let serial = self.serial.fetch_add(1, Ordering::Relaxed);
        let mut entry = Entry(running, key.clone(), serial, false);
        let task = tokio::spawn(async move {
            entry.3 = true;
            answer.await;
            drop(entry);
        });
        entries.insert(key, (task.abort_handle(), again, serial));
    }

    /// The world is going: a question that may be asked again is dropped unanswered, for its
    /// host to ask the next world (the others are answered before the world goes).
    pub fn closing(&self) {
        lock(&self.running).retain(|_, (task, again, _)| {
            if *again {
                task.abort();
            }
            !*again
        });
    }

    /// Counts a write that cannot be taken back as being answered, until the guard is dropped.
    pub fn owe(&self) -> Owed {
        self.owed.fetch_add(1, Ordering::AcqRel);
        Owed(self.owed.clone())
    }

    /// Resolves once no question is being answered but those that may be asked again (a
    /// stopping world's last answers: [`Answering::closing`] dropped the others).
    pub async fn settled(&self) {
        while lock(&self.running).values().any(|(_, again, _)| !again)
            || self.owed.load(Ordering::Acquire) > 0
        {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    /// `host` took a question of its own back: its task is dropped.
    pub fn take_back(&self, host: &str, msg: &async_nats::Message) {
        if let Ok(c) = serde_json::from_slice::<TakeBack>(&msg.payload)
            && c.host == host
            && let Some((task, _, _)) = lock(&self.running).remove(&(c.host, c.id))
        {
            task.abort();
        }
    }
}

/// A host's side: numbers its questions, takes them back, and knows whether the world
/// answers.
#[derive(Clone)]
pub struct Asking {
    client: async_nats::Client,
    host: Arc<str>,
    next: Arc<AtomicU64>,
    /// Whether the world answers now (the host's [`InFlight::set_up`] says).
    up: tokio::sync::watch::Receiver<bool>,
    /// How long a question that may be asked again waits for the world to come back.
    resume_within: Duration,
    /// How many times a world has gone with questions in flight, for a question asked
    /// meanwhile to know it will not be answered.
    lost: tokio::sync::watch::Receiver<u64>,
}

/// What the host's watch on the world says of it, for the questions in flight.
#[derive(Clone)]
pub struct InFlight {
    up: Arc<tokio::sync::watch::Sender<bool>>,
    lost: Arc<tokio::sync::watch::Sender<u64>>,
}

impl InFlight {
    /// The world that was answering every question in flight has stopped: each one that may
    /// be asked again waits for the world to come back, and the others end.
    pub fn world_away(&self) {
        self.up.send_replace(false);
        self.lost.send_modify(|n| *n += 1);
    }

    /// The world answers again.
    pub fn set_up(&self) {
        self.up.send_replace(true);
    }

    /// The world is going: new questions wait for it, or are refused.
    pub fn set_down(&self) {
        self.up.send_replace(false);
    }
}

impl Asking {
    pub fn open(
        client: async_nats::Client,
        host: &str,
        resume_within: Duration,
    ) -> (Asking, InFlight) {
        let (up, up_rx) = tokio::sync::watch::channel(true);
        let (lost, lost_rx) = tokio::sync::watch::channel(0);
        let asking = Asking {
            client,
            host: host.into(),
            next: Arc::new(AtomicU64::new(1)),
            up: up_rx,
            resume_within,
            lost: lost_rx,
        };
        let in_flight = InFlight {
            up: Arc::new(up),
            lost: Arc::new(lost),
        };
        (asking, in_flight)
    }

    /// A number for a question of this host's, unique among its questions.
    pub(super) fn next_id(&self) -> u64 {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Takes back question `id` (its client left).
    pub(super) fn take_back(&self, id: u64) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (client, host) = (self.client.clone(), self.host.clone());
            runtime.spawn(async move {
                let taken_back = TakeBack {
                    host: host.to_string(),
                    id,
                };
                if let Ok(body) = serde_json::to_vec(&taken_back) {
                    let _ = client.publish(wire::take_back(&host), body.into()).await;
                }
            });
        }
    }

    /// Whether the world answers now.
    pub(super) fn up(&self) -> bool {
        *self.up.borrow()
    }

    /// Changes when a world goes with what was asked of it unanswered.
    pub(super) fn lost(&self) -> tokio::sync::watch::Receiver<u64> {
        self.lost.clone()
    }

    /// Waits, within the bound, for the world to answer again.
    pub(super) async fn world_back(&self) -> bool {
        let mut up = self.up.clone();
        tokio::time::timeout(self.resume_within, up.wait_for(|up| *up))
            .await
            .is_ok_and(|r| r.is_ok())
    }
}

/// Where the world's answers come, every question's in one subscription of the host's (in
/// its inbox, `_INBOX.<host>.answers.<run>.<batch>`), each piece handed to the question that
/// waits for it; and the questions themselves, sent a batch a turn (a message and a
/// subscription of its own a question cost the broker and both processes more than the
/// question). `run` is this process's own, random: a host started again under the same name
/// numbers its questions from 1 again, and the world's late answer to the last process's
/// question must not pass for the answer to this one's.
pub(super) struct Answers {
    /// Where they come: `_INBOX.<host>.answers.<run>`.
    inbox: String,
    waiting: Mutex<HashMap<u64, mpsc::UnboundedSender<Got>>>,
    /// The questions in each batch sent lately, by the batch's number, for the broker's word
    /// that nobody took one (no world) to reach each question in it.
    sent: Mutex<VecDeque<(u64, Vec<u64>)>>,
}

/// How many batches' questions are kept for the broker's word that nobody took them: it comes
/// at once, within the next few batches.
const BATCHES_KEPT: usize = 256;

/// What comes to a question waiting for its answer.
pub(super) enum Got {
    /// A piece of its answer ([`wire::AnswerPiece`]).
    Piece { more: bool, bytes: bytes::Bytes },
    /// No world took it.
    NoWorld,
    /// It could not be sent.
    NotSent,
}

impl Answers {
    /// The answers to host `host`'s questions, in this process.
    pub(super) fn new(host: &str) -> Answers {
        let run = rand::random::<u64>();
        Answers {
            inbox: format!("{}.answers.{run:016x}", wire::inbox(host)),
            waiting: Mutex::default(),
            sent: Mutex::default(),
        }
    }

    /// Where they come, for the subscription.
    pub(super) fn subject(&self) -> String {
        format!("{}.*", self.inbox)
    }

    /// Where the answers to batch `batch` come.
    fn reply(&self, batch: u64) -> String {
        format!("{}.{batch}", self.inbox)
    }

    /// Sends the questions queued on `subject`, everything queued since the last batch in one
    /// message, until the host goes (every sender of the queue is dropped). A question whose
    /// asker went before it was sent is not sent: nobody waits for it, and its take-back could
    /// reach the world before it.
    pub(super) async fn send(
        self: Arc<Answers>,
        client: async_nats::Client,
        subject: String,
        mut questions: mpsc::UnboundedReceiver<wire::Question>,
    ) {
        let mut batch = Vec::new();
        let mut number = 0u64;
        // The other clients this runtime has ready to run ask first: one batch carries a
        // turn's worth, not the first question alone.
        let bytes = |q: &wire::Question| 16 + q.ask.len();
        while wire::next_batch(&mut questions, &mut batch, true, bytes).await {
            {
                let waiting = lock(&self.waiting);
                batch.retain(|q| waiting.contains_key(&q.id));
            }
            if batch.is_empty() {
                continue;
            }
            number += 1;
            let ids: Vec<u64> = batch.iter().map(|q| q.id).collect();
            {
                let mut sent = lock(&self.sent);
                if sent.len() >= BATCHES_KEPT {
                    sent.pop_front();
                }
                sent.push_back((number, ids));
            }
            let reply = self.reply(number);
            // Only those that did not go: one sent may be answered, and done.
            for at in wire::publish(&client, &subject, Some(&reply), &batch).await {
                self.tell(batch[at].id, Got::NotSent);
            }
            batch.clear();
        }
    }

    fn tell(&self, id: u64, got: Got) {
        let waiting = lock(&self.waiting).get(&id).cloned();
        if let Some(tx) = waiting {
            let _ = tx.send(got);
        }
    }

    /// Hands each piece that comes to the question it answers, until the subscription ends.
    pub(super) async fn route(
        self: Arc<Answers>,
        mut pieces: async_nats::Subscriber,
        heard: Arc<super::heard::Heard>,
    ) {
        while let Some(msg) = pieces.next().await {
            if msg.status == Some(async_nats::StatusCode::NO_RESPONDERS) {
                let batch = msg
                    .subject
                    .rsplit('.')
                    .next()
                    .and_then(|n| n.parse::<u64>().ok());
                let ids = batch.and_then(|batch| {
                    let sent = lock(&self.sent);
                    sent.iter()
                        .find(|(n, _)| *n == batch)
                        .map(|(_, ids)| ids.clone())
                });
                for id in ids.unwrap_or_default() {
                    self.tell(id, Got::NoWorld);
                }
                continue;
            }
            // Only the world answers here.
            heard.now();
            let Some(batch) = wire::decode::<Vec<wire::AnswerPiece>>(&msg.payload) else {
                tracing::warn!("the world's answers could not be read");
                continue;
            };
            for piece in batch {
                let got = Got::Piece {
                    more: piece.more,
                    bytes: piece.bytes,
                };
                self.tell(piece.id, got);
            }
        }
    }

    /// Waits for question `id`'s pieces from now until the guard returned is dropped.
    pub(super) fn expect(&self, id: u64) -> (Expected<'_>, mpsc::UnboundedReceiver<Got>) {
        let (tx, rx) = mpsc::unbounded_channel();
        lock(&self.waiting).insert(id, tx);
        (Expected { answers: self, id }, rx)
    }
}

/// A question's place among those waiting for pieces, given up when dropped.
pub(super) struct Expected<'a> {
    answers: &'a Answers,
    id: u64,
}

impl Drop for Expected<'_> {
    fn drop(&mut self) {
        lock(&self.answers.waiting).remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host started again under the same name numbers its questions from 1 again: the
    /// world's late answer to the last process's question 1 must not come where this one's
    /// question 1 waits (it would carry another client's answer).
    #[test]
    fn each_run_of_a_host_has_its_answers_come_to_an_inbox_of_its_own() {
        let (before, now) = (Answers::new("host1"), Answers::new("host1"));
        assert_ne!(before.reply(1), now.reply(1));
        assert!(
            now.reply(1)
                .starts_with(&format!("{}.", wire::inbox("host1")))
        );
        let subject = now.subject();
        let mine = subject.strip_suffix('*').unwrap();
        assert!(now.reply(7).starts_with(mine));
        assert!(!before.reply(7).starts_with(mine));
    }

    /// A stopping world waits for the writes it owes and the answers that cannot be asked
    /// again, not for those that may; a task that ends on a bug leaves no entry to wait for.
    #[tokio::test]
    async fn a_stopping_world_waits_only_for_what_it_owes() {
        let answering = Answering::default();
        let (go, gone) = tokio::sync::oneshot::channel::<()>();
        answering.run("h", 1, true, std::future::pending());
        answering.run("h", 2, false, async move {
            let _ = gone.await;
        });
        answering.run("h", 3, false, async { panic!("a bug the test asked for") });
        let owed = answering.owe();
        answering.closing();
        let settled = || tokio::time::timeout(Duration::from_millis(200), answering.settled());
        assert!(settled().await.is_err(), "a write and an answer are owed");
        drop(owed);
        assert!(settled().await.is_err(), "an answer is owed");
        let _ = go.send(());
        assert!(settled().await.is_ok(), "nothing is owed");
    }

    /// A read ready at once is answered where it is asked, leaving nothing behind; one that
    /// waits goes on in a task, which wakes to what it waits on; one that panics costs only
    /// its own answer.
    #[tokio::test]
    async fn a_read_ready_at_once_is_answered_where_it_is_asked() {
        let answering = Answering::default();
        let answered = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let said = answered.clone();
        answering.run("h", 1, true, async move {
            said.store(true, Ordering::SeqCst);
        });
        assert!(
            answered.load(Ordering::SeqCst),
            "answered before run returned"
        );
        assert!(lock(&answering.running).is_empty());
        answering.run("h", 2, true, async { panic!("a bug the test asked for") });
        assert!(lock(&answering.running).is_empty());
        let (go, gone) = tokio::sync::oneshot::channel::<()>();
        let (done, finished) = tokio::sync::oneshot::channel::<()>();
        answering.run("h", 3, true, async move {
            let _ = gone.await;
            let _ = done.send(());
        });
        assert_eq!(lock(&answering.running).len(), 1, "waiting, in its task");
        let _ = go.send(());
        tokio::time::timeout(Duration::from_secs(5), finished)
            .await
            .expect("the task woke to what it waited on")
            .unwrap();
    }

    /// A task that ends after its host started again (and asked a question under the same
    /// number) leaves the new question's entry, so it can still be taken back.
    #[tokio::test]
    async fn a_task_ending_late_leaves_the_entry_of_a_question_asked_since() {
        let answering = Answering::default();
        let (end, ended) = tokio::sync::oneshot::channel::<()>();
        answering.run("h", 1, false, async move {
            let _ = ended.await;
        });
        answering.run("h", 1, false, std::future::pending());
        let _ = end.send(());
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(lock(&answering.running).len(), 1);
    }
}
