//! The game worlds a town has heard, and where its sessions are: which game worlds are alive
//! and how busy (their beats, and what was placed on them since), which sessions each holds,
//! how much of what each told the town it has heard, and the link that hands them calls.
//! Bookkeeping the door holds; what the town and the game worlds do with it is `games`.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use super::calls::{CallRefused, Called};
use super::wire::{self, GameBeat, GameCall};
use moot_kernel::world::Unavailable;
use moot_kernel::world::sessions::{SessionId, Told};

/// The most game worlds the town keeps track of: names come only from the town's own
/// processes (a game world holds the broker's world credentials), but a fault that made up
/// names must not grow the town without end.
const MOST: usize = 1024;

/// The kept state's module under which the town stores where each placed session is.
pub(super) const PLACED: &str = "game_worlds";

/// How long the town waits for a game world's answer to a call: longer than the longest wait
/// of a long poll (an MCP tool's is 30 s), so that one that runs its course is answered as
/// "not yet", not as unknown.
const ANSWER_WITHIN: Duration = Duration::from_secs(45);

/// The longest a call naming a session the town began waits for a game world to make it.
const BEGUN_WITHIN: Duration = Duration::from_secs(10);

/// The game worlds the town has heard, for as long as it runs, and where its sessions are.
#[derive(Default)]
pub struct GameWorlds {
    /// Verbs typed for sessions placed on game worlds, to hand there (taken by the town's
    /// [`hand_over`]; in one process or a game world none is ever sent).
    pub(super) handed: Mutex<Option<tokio::sync::mpsc::Receiver<moot_kernel::world::Handed>>>,
    seen: Mutex<BTreeMap<String, Seen>>,
    /// Each session placed on a game world, by id: the game world's name.
    pub(super) placed: Mutex<std::collections::HashMap<u64, String>>,
    /// The broker, in a world process (none in one process, where no session is placed).
    pub(super) link: std::sync::OnceLock<async_nats::Client>,
    /// The number of the last call handed to a game world.
    calls: std::sync::atomic::AtomicU64,
    /// The sessions whose copies are being caught up now.
    pub(super) catching: Mutex<std::collections::HashSet<u64>>,
    /// Told each time a catch-up ends.
    pub(super) caught: tokio::sync::Notify,
    /// The sessions whose copies are being rebuilt from nothing and are not yet whole: what
    /// they take in was told before the town started again, however many catch-ups it takes.
    pub(super) rebuilding: Arc<Mutex<std::collections::HashSet<u64>>>,
    /// When the town started (the wall clock's time, as game worlds date their sessions),
    /// and the sessions placed before (see [`GameWorlds::new_here`]).
    started: std::sync::OnceLock<std::time::SystemTime>,
    restored: std::sync::OnceLock<std::collections::HashSet<u64>>,
    /// What each game world's run has told the town, as heard (see [`GameBeat::told`]).
    told: Mutex<std::collections::HashMap<String, ToldHeard>>,
    /// The ids of the sessions the town began that wait for a game world to make them (see
    /// [`super::seated`]): a call naming one waits for it ([`GameWorlds::until_begun`]).
    pub(super) beginning:
        std::sync::OnceLock<tokio::sync::watch::Receiver<std::collections::BTreeSet<SessionId>>>,
}

/// How much of what a game world's run told the town it has heard.
#[derive(Default)]
struct ToldHeard {
    run: u64,
    /// The number of the last message heard.
    heard: u64,
    /// Beats in a row that said more was told than that, while nothing more was heard.
    short: u8,
    /// What had been heard at the last of those beats.
    heard_then: u64,
}

struct Seen {
    run: u64,
    heard: Instant,
    running: u32,
    /// When each session placed on it lately was placed: a beat's count may not hold them yet
    /// (the game world counted before it made them, or its beat crossed the call), so they are
    /// counted beside it for [`PLACED_COUNTED_FOR`]. A beat forgetting them all let the next
    /// session go where the last one had just gone.
    placed: std::collections::VecDeque<Instant>,
}

/// How long a session placed on a game world is counted beside the game world's own count:
/// it has made the session, and said so in a beat, well within it.
const PLACED_COUNTED_FOR: Duration = Duration::from_secs(1);

impl Seen {
    fn alive(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.heard) <= wire::AWAY_AFTER
    }

    /// Its load at `now`: what it said it runs, and what was placed on it lately.
    fn load(&mut self, now: Instant) -> u32 {
        while self
            .placed
            .front()
            .is_some_and(|at| now.saturating_duration_since(*at) > PLACED_COUNTED_FOR)
        {
            self.placed.pop_front();
        }
        let lately = u32::try_from(self.placed.len()).unwrap_or(u32::MAX);
        self.running.saturating_add(lately)
    }
}

impl GameWorlds {
    /// Game worlds yet unheard, and the verbs typed for their sessions to hand over.
    pub fn handing(handed: tokio::sync::mpsc::Receiver<moot_kernel::world::Handed>) -> GameWorlds {
        GameWorlds {
            handed: Mutex::new(Some(handed)),
            ..GameWorlds::default()
        }
    }

    /// Takes `beat`, heard at `now`: whether its game world has just become alive (joined, or
    /// back), or why it is refused (another protocol; a name another run holds alive).
    pub fn heard(&self, beat: &GameBeat, now: Instant) -> Result<bool, String> {
        if let Some(why) = wire::mismatch(wire::PROTOCOL, beat.protocol, &beat.version) {
            return Err(why);
        }
        if !wire::host_name_ok(&beat.name) {
            return Err(format!(
                "`{}` cannot name a game world: letters, digits, `-` and `_`, at most 64",
                beat.name
            ));
        }
        let mut seen = lock(&self.seen);
        let joined = match seen.get(&beat.name) {
            Some(s) if s.run != beat.run && s.alive(now) => {
                return Err(format!(
                    "another game world named {} is alive; each needs a name of its own",
                    beat.name
                ));
            }
            Some(s) => s.run != beat.run || !s.alive(now),
            None if seen.len() >= MOST => {
                return Err(format!("this town keeps at most {MOST} game worlds"));
            }
            None => true,
        };
        let placed = seen
            .remove(&beat.name)
            .map(|s| s.placed)
            .unwrap_or_default();
        seen.insert(
            beat.name.clone(),
            Seen {
                run: beat.run,
                heard: now,
                running: beat.running,
                placed,
            },
        );
        Ok(joined)
    }

    /// Reaches the game worlds through `client` (the world process's), and knows again where
    /// the sessions `kept` says were placed are.
    pub fn link(&self, client: async_nats::Client, kept: &moot_kernel::store::keys::Kept) {
        let _ = self.link.set(client);
        // Numbered from a place of this run's own: a game world still answering the last run's
        // calls must not take this run's call 1 for that run's when one is taken back.
        self.calls.store(
            u64::from(rand::random::<u32>()) << 32,
            std::sync::atomic::Ordering::Relaxed,
        );
        // To the millisecond, as sessions are dated.
        let now = std::time::SystemTime::now();
        let millis = humantime::format_rfc3339_millis(now).to_string();
        let _ = self
            .started
            .set(humantime::parse_rfc3339_weak(&millis).unwrap_or(now));
        let mut placed = lock(&self.placed);
        for (id, name) in kept.state_of(PLACED) {
            if let Ok(id) = id.parse() {
                placed.insert(id, name.to_owned());
            }
        }
        let _ = self.restored.set(placed.keys().copied().collect());
    }

    /// Where a new session goes at `now`: the game world alive that runs the fewest
    /// (counting those placed on it lately, see [`Seen::placed`]), the first by name among
    /// equals; none while none is alive.
    pub(super) fn choose(&self, now: Instant) -> Option<String> {
        let mut seen = lock(&self.seen);
        let (name, s) = seen
            .iter_mut()
            .filter(|(_, s)| s.alive(now))
            .map(|(name, s)| (s.load(now), name, s))
            .min_by(|(a, an, _), (b, bn, _)| (a, an).cmp(&(b, bn)))
            .map(|(_, name, s)| (name, s))?;
        s.placed.push_back(now);
        Some(name.clone())
    }

    /// Waits, at most [`BEGUN_WITHIN`], while session `id` waits for a game world to make it
    /// (its verb answered at once): a call naming it goes where it was made, once it is.
    pub(super) async fn until_begun(&self, id: SessionId) {
        let Some(ids) = self.beginning.get() else {
            return;
        };
        if !ids.borrow().contains(&id) {
            return;
        }
        let mut ids = ids.clone();
        let _ = tokio::time::timeout(BEGUN_WITHIN, ids.wait_for(|ids| !ids.contains(&id))).await;
    }

    /// Whether the town, not holding a copy of session `told`, cannot have told anything of
    /// it before it started: placed in this run (a copy is never let go), or begun on its game
    /// world since it started (a game set aside there before, joined since; as the clocks of
    /// the two machines say). A session the town began itself and still waits for is news too
    /// (see [`moot_kernel::world::World::is_beginning`]). Anything else may have been told,
    /// and is rebuilt in silence.
    pub(super) fn new_here(&self, told: &Told) -> bool {
        let placed_before = self
            .restored
            .get()
            .is_some_and(|restored| restored.contains(&told.id));
        let started = self.started.get().copied();
        !placed_before
            || started.is_some_and(|started| {
                humantime::parse_rfc3339_weak(&told.created_at).is_ok_and(|at| at >= started)
            })
    }

    /// The first tick of `told` its game world stored since the town started (as the clocks
    /// of the two machines say), which the town cannot have told before: a copy rebuilt in
    /// silence tells those as it takes them in. `u64::MAX` if none.
    pub(super) fn news_from(&self, told: &Told) -> u64 {
        let Some(started) = self.started.get().copied() else {
            return u64::MAX;
        };
        (told.from..)
            .zip(&told.log)
            .find(|(_, a)| {
                humantime::parse_rfc3339_weak(&a.created_at).is_ok_and(|at| at >= started)
            })
            .map_or(u64::MAX, |(tick, _)| tick)
    }

    /// The game world session `id` was placed on, if any.
    pub(super) fn placed_on(&self, id: SessionId) -> Option<String> {
        lock(&self.placed).get(&id.number()).cloned()
    }

    /// Every id placed on a game world, as stored: the town numbers past them after a
    /// restart, and hands over what would begin one.
    pub fn all_placed(&self) -> Vec<SessionId> {
        lock(&self.placed)
            .keys()
            .copied()
            .map(SessionId::from)
            .collect()
    }

    /// Forgets that session `id` was placed (its game world refused to make it).
    pub(super) fn unplace(&self, id: SessionId) {
        lock(&self.placed).remove(&id.number());
    }

    /// Notes that message `seq` of run `run` of game world `name` was heard.
    pub(super) fn told_heard(&self, name: &str, run: u64, seq: u64) {
        let mut told = lock(&self.told);
        let t = told.entry(name.to_owned()).or_default();
        if t.run != run {
            *t = ToldHeard {
                run,
                ..ToldHeard::default()
            };
        }
        t.heard = t.heard.max(seq);
    }

    /// Whether `beat` says its run told more than the town heard, at two beats in a row with
    /// nothing more heard between them (a message on its way at the first has arrived by the
    /// second, and a town still taking what it was told is not short of it): the town then
    /// asks again for what its copies lack, and counts it all heard.
    pub(super) fn short_of_told(&self, beat: &GameBeat) -> bool {
        let mut told = lock(&self.told);
        let t = told.entry(beat.name.clone()).or_default();
        if t.run != beat.run {
            *t = ToldHeard {
                run: beat.run,
                ..ToldHeard::default()
            };
        }
        if beat.told <= t.heard {
            t.short = 0;
            return false;
        }
        if t.short == 0 || t.heard != t.heard_then {
            (t.short, t.heard_then) = (1, t.heard);
            return false;
        }
        t.short = 0;
        t.heard = beat.told;
        true
    }

    /// The run of game world `name` alive now, if it is.
    pub(super) fn alive_run(&self, name: &str, now: Instant) -> Option<u64> {
        lock(&self.seen)
            .get(name)
            .filter(|s| s.alive(now))
            .map(|s| s.run)
    }

    /// Hands `call` to game world `to` (its run alive now), and gives its answer: `Away`
    /// (nothing done) if it is not alive or nothing of it listens, `TooLarge` if the call is
    /// larger than the broker carries, `Unknown` if it took the call and said nothing in time.
    ///
    /// Dropped before the answer (its client left), the call is taken back from the game
    /// world; a call that makes a session never is dropped so (see [`elsewhere`]).
    pub(super) async fn forward(&self, to: &str, mut call: GameCall) -> Called {
        let client = self.link.get().ok_or(CallRefused::Away)?;
        let run = self
            .alive_run(to, Instant::now())
            .ok_or(CallRefused::Away)?;
        call.id = self
            .calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            + 1;
        let mut taken = TakeBack {
            client: client.clone(),
            subject: wire::game_cancels(to, run),
            id: Some(call.id),
        };
        let body = serde_json::to_vec(&call)
            .map_err(|_| CallRefused::Unavailable(Unavailable::Internal))?;
        let most = client.server_info().max_payload;
        if most > 0 && body.len() > most {
            return Err(CallRefused::TooLarge(most));
        }
        let request = async_nats::Request::new()
            .payload(body.into())
            .timeout(Some(ANSWER_WITHIN));
        let answered = client
            .send_request(wire::game_calls(to, run), request)
            .await;
        taken.id = None;
        match answered {
            Ok(answer) => serde_json::from_slice(&answer.payload)
                .unwrap_or(Err(CallRefused::Unavailable(Unavailable::Internal))),
            Err(e) if e.kind() == async_nats::RequestErrorKind::NoResponders => {
                Err(CallRefused::Away)
            }
            Err(_) => Err(CallRefused::Unknown),
        }
    }
    /// The game worlds alive at `now`, by name, with how many sessions each said it runs.
    pub fn alive(&self, now: Instant) -> Vec<(String, u32)> {
        lock(&self.seen)
            .iter()
            .filter(|(_, s)| s.alive(now))
            .map(|(name, s)| (name.clone(), s.running))
            .collect()
    }

    /// `/metrics`' lines for them: how many are alive and how many away, and the sessions
    /// each one alive runs.
    pub fn metrics(&self, now: Instant) -> String {
        let alive = self.alive(now);
        let away = lock(&self.seen).len() - alive.len();
        let mut out = String::from(
            "# HELP moot_game_worlds Game worlds the town has heard from, by whether they are alive now.\n\
             # TYPE moot_game_worlds gauge\n",
        );
        let _ = writeln!(out, "moot_game_worlds{{state=\"alive\"}} {}", alive.len());
        let _ = writeln!(out, "moot_game_worlds{{state=\"away\"}} {away}");
        out.push_str(
            "# HELP moot_game_world_sessions Sessions each game world alive runs, as it last said.\n\
             # TYPE moot_game_world_sessions gauge\n",
        );
        for (name, running) in alive {
            let _ = writeln!(out, "moot_game_world_sessions{{name=\"{name}\"}} {running}");
        }
        out
    }
}

/// A call handed to a game world and not yet answered: dropped so (its client left), it is
/// taken back there.
struct TakeBack {
    client: async_nats::Client,
    subject: String,
    id: Option<u64>,
}

impl Drop for TakeBack {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let (client, subject) = (self.client.clone(), std::mem::take(&mut self.subject));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = client.publish(subject, id.to_string().into()).await;
            });
        }
    }
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beat(name: &str, run: u64, running: u32) -> GameBeat {
        GameBeat {
            protocol: wire::PROTOCOL,
            version: "test".into(),
            name: name.into(),
            run,
            running,
            told: 0,
        }
    }

    #[test]
    fn a_name_is_one_runs_while_it_is_alive_and_anothers_once_it_is_silent() {
        let worlds = GameWorlds::default();
        let t0 = Instant::now();
        assert_eq!(worlds.heard(&beat("g1", 1, 0), t0), Ok(true));
        assert_eq!(worlds.heard(&beat("g1", 1, 3), t0), Ok(false));
        // A second process under the same name, while the first beats: refused.
        let taken = worlds.heard(&beat("g1", 2, 0), t0 + Duration::from_millis(100));
        assert!(taken.unwrap_err().contains("another game world named g1"));
        assert_eq!(worlds.alive(t0), vec![("g1".to_owned(), 3)]);
        // Silent past AWAY_AFTER, it is away; a new run (it was restarted) takes the name.
        let later = t0 + wire::AWAY_AFTER + Duration::from_millis(1);
        assert!(worlds.alive(later).is_empty());
        assert!(
            worlds
                .metrics(later)
                .contains("moot_game_worlds{state=\"away\"} 1")
        );
        assert_eq!(worlds.heard(&beat("g1", 2, 0), later), Ok(true));
        assert!(
            worlds
                .metrics(later)
                .contains("moot_game_worlds{state=\"alive\"} 1")
        );
    }

    /// A beat counted before its game world made the session just placed there does not make
    /// the town forget it: the next session goes to the other game world, until the placement
    /// is old enough for every beat since to hold it.
    #[test]
    fn a_session_placed_lately_is_counted_until_a_beat_must_hold_it() {
        let worlds = GameWorlds::default();
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(worlds.heard(&beat("g1", 1, 0), t0), Ok(true));
        assert_eq!(worlds.heard(&beat("g2", 2, 0), t0), Ok(true));
        assert_eq!(
            worlds.choose(at(10)).as_deref(),
            Some("g1"),
            "first by name"
        );
        // g1's beat, counted before it made that session, says it runs none.
        assert_eq!(worlds.heard(&beat("g1", 1, 0), at(20)), Ok(false));
        assert_eq!(worlds.choose(at(30)).as_deref(), Some("g2"));
        // Both beat holding theirs; a second later neither placement counts beside them.
        let later = at(10) + PLACED_COUNTED_FOR + Duration::from_millis(100);
        for (name, run) in [("g1", 1), ("g2", 2)] {
            assert_eq!(worlds.heard(&beat(name, run, 1), later), Ok(false));
        }
        assert_eq!(worlds.choose(later).as_deref(), Some("g1"));
        assert_eq!(worlds.choose(later).as_deref(), Some("g2"));
    }

    #[test]
    fn a_game_world_that_told_more_than_was_heard_is_asked_again_at_its_second_beat() {
        let worlds = GameWorlds::default();
        let mut b = beat("g1", 7, 0);
        b.told = 3;
        worlds.told_heard("g1", 7, 3);
        assert!(!worlds.short_of_told(&b), "all heard");
        b.told = 5;
        assert!(
            !worlds.short_of_told(&b),
            "the fourth and fifth may be on their way"
        );
        worlds.told_heard("g1", 7, 4);
        assert!(!worlds.short_of_told(&b), "the town is still taking them");
        assert!(
            worlds.short_of_told(&b),
            "nothing more a beat later: asked again"
        );
        assert!(!worlds.short_of_told(&b), "and counted heard since");
        // A new run counts from its own first message; one heard of nothing is short too.
        let mut c = beat("g1", 8, 0);
        c.told = 2;
        assert!(!worlds.short_of_told(&c));
        assert!(worlds.short_of_told(&c));
        worlds.told_heard("g1", 9, 1);
        c.run = 9;
        c.told = 1;
        assert!(!worlds.short_of_told(&c));
    }

    #[test]
    fn another_protocol_or_a_name_no_subject_can_hold_is_refused() {
        let worlds = GameWorlds::default();
        let mut old = beat("g1", 1, 0);
        old.protocol = wire::PROTOCOL - 1;
        assert!(worlds.heard(&old, Instant::now()).is_err());
        assert!(worlds.heard(&beat("g.1", 1, 0), Instant::now()).is_err());
        assert!(worlds.alive(Instant::now()).is_empty());
    }
}
