//! Counters, gauges and histograms for the operator, served as Prometheus text at `/metrics`
//! (see `--metrics-token`). A leaf module of plain atomics: every part of moot counts what it
//! does here without knowing who reads it, and the HTTP face writes the exposition. What the
//! world holds (sessions by template and phase) is read from the world at scrape time instead.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

/// A histogram with fixed upper bounds (Prometheus' cumulative buckets are made at render).
pub struct Histogram {
    bounds: &'static [f64],
    counts: Vec<AtomicU64>,
    /// The sum, in millionths of the unit (so it fits an atomic integer).
    sum_micro: AtomicU64,
    count: AtomicU64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Histogram {
        Histogram {
            bounds,
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_micro: AtomicU64::new(0),
            count: AtomicU64::new(0),
        }
    }

    pub fn observe(&self, v: f64) {
        let i = self
            .bounds
            .iter()
            .position(|b| v <= *b)
            .unwrap_or(self.bounds.len());
        self.counts[i].fetch_add(1, Ordering::Relaxed);
        self.sum_micro
            .fetch_add((v * 1e6).max(0.0) as u64, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} histogram");
        let mut cumulative = 0;
        for (i, b) in self.bounds.iter().enumerate() {
            cumulative += self.counts[i].load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{b}\"}} {cumulative}");
        }
        cumulative += self.counts[self.bounds.len()].load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {cumulative}");
        let sum = self.sum_micro.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(out, "{name}_sum {sum}");
        let _ = writeln!(out, "{name}_count {}", self.count.load(Ordering::Relaxed));
    }
}

/// Every figure moot keeps.
pub struct Metrics {
    pub telnet_connections: AtomicI64,
    pub http_connections: AtomicI64,
    pub web_streams: AtomicI64,
    /// `waitForNextTurn` and other long polls waiting now.
    pub long_polls: AtomicI64,
    /// Notices dropped because a connection or mailbox was too far behind.
    pub backlog_drops: AtomicU64,
    pub unauthorized: AtomicU64,
    pub logins: AtomicU64,
    pub failed_logins: AtomicU64,
    /// Commands that met a bug in moot and were undone (see `world::guard`).
    pub panics: AtomicU64,
    /// Commands undone because the database did not store their writes.
    pub unstored: AtomicU64,
    commands: Commands,
    pub commit_batch: Histogram,
    pub commit_seconds: Histogram,
}

static METRICS: std::sync::LazyLock<Metrics> = std::sync::LazyLock::new(|| Metrics {
    telnet_connections: AtomicI64::new(0),
    http_connections: AtomicI64::new(0),
    web_streams: AtomicI64::new(0),
    long_polls: AtomicI64::new(0),
    backlog_drops: AtomicU64::new(0),
    unauthorized: AtomicU64::new(0),
    logins: AtomicU64::new(0),
    failed_logins: AtomicU64::new(0),
    panics: AtomicU64::new(0),
    unstored: AtomicU64::new(0),
    commands: Commands::new(),
    commit_batch: Histogram::new(&[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0]),
    commit_seconds: Histogram::new(&[
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
    ]),
});

/// The process's figures.
pub fn get() -> &'static Metrics {
    &METRICS
}

impl Metrics {
    /// Counts one command of `verb` from `face` (`telnet`, `mcp`, `rest`).
    pub fn command(&self, face: &'static str, verb: &'static str) {
        self.commands.count(face, verb);
    }

    /// Records one commit: how many jobs it carried and how long it took.
    pub fn commit(&self, jobs: usize, took: Duration) {
        self.commit_batch.observe(jobs as f64);
        self.commit_seconds.observe(took.as_secs_f64());
    }

    /// The Prometheus text exposition, with `sessions` (template, phase → count) read from the
    /// world by the caller.
    pub fn render(&self, sessions: &BTreeMap<(String, String), u64>) -> String {
        let mut out = String::new();
        let gauge = |out: &mut String, name: &str, help: &str, v: i64| {
            let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge\n{name} {v}");
        };
        let counter = |out: &mut String, name: &str, help: &str, v: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {v}"
            );
        };
        let _ = writeln!(
            out,
            "# HELP moot_connections Connections open now, by face.\n# TYPE moot_connections gauge"
        );
        for (face, v) in [
            ("telnet", &self.telnet_connections),
            ("http", &self.http_connections),
            ("web_stream", &self.web_streams),
        ] {
            let _ = writeln!(
                out,
                "moot_connections{{face=\"{face}\"}} {}",
                v.load(Ordering::Relaxed)
            );
        }
        let _ = writeln!(
            out,
            "# HELP moot_commands_total Commands run, by face and verb.\n# TYPE moot_commands_total counter"
        );
        for ((face, verb), n) in self.commands.totals() {
            let _ = writeln!(
                out,
                "moot_commands_total{{face=\"{face}\",verb=\"{verb}\"}} {n}"
            );
        }
        let _ = writeln!(
            out,
            "# HELP moot_sessions Game sessions in the world, by template and phase.\n# TYPE moot_sessions gauge"
        );
        for ((template, phase), n) in sessions {
            let _ = writeln!(
                out,
                "moot_sessions{{template=\"{}\",phase=\"{}\"}} {n}",
                label(template),
                label(phase)
            );
        }
        gauge(
            &mut out,
            "moot_long_polls_waiting",
            "Long polls (waitForNextTurn, waiting reads) waiting now.",
            self.long_polls.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "moot_backlog_drops_total",
            "Notices dropped because a connection or mailbox was too far behind.",
            self.backlog_drops.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "moot_unauthorized_total",
            "Requests refused for a missing or bad token (401).",
            self.unauthorized.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "moot_logins_total",
            "Successful logins with a name and password.",
            self.logins.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "moot_failed_logins_total",
            "Failed logins.",
            self.failed_logins.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "moot_panics_total",
            "Commands that met a bug in moot; each was undone and refused, and the town went on.",
            self.panics.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "moot_unstored_total",
            "Commands undone because the database did not store them (and every command made on top of one).",
            self.unstored.load(Ordering::Relaxed),
        );
        self.commit_batch.render(
            &mut out,
            "moot_commit_batch_jobs",
            "Jobs committed together in one SQLite transaction.",
        );
        self.commit_seconds.render(
            &mut out,
            "moot_commit_seconds",
            "Time to run and commit one batch.",
        );
        out
    }
}

/// How many slots [`Commands`] has: more than faces times verbs, with room for a name that
/// the compiler kept at two addresses (one copy per code-generation unit), and to spare so
/// that a probe stays short.
const COMMAND_SLOTS: usize = 1024;
/// How many copies of the counts [`Commands`] keeps, a thread writing to one of them.
const COMMAND_SHARDS: usize = 8;

/// Commands counted by face and verb, without a lock and without a line of memory the
/// workers write in turn: every command counts, on whichever worker runs it, for a figure
/// read once a scrape (a lock, then one shared count, each cost a command more than the count
/// was worth). Each (face, verb) claims a slot once, found again by the names' addresses
/// (names are the verbs' own `&'static str`s, so finding a slot compares no text), and each
/// thread counts in a copy of its own; a name met at two addresses takes two slots, and
/// everything is summed when read.
struct Commands {
    keys: Box<[OnceLock<(&'static str, &'static str)>]>,
    /// `COMMAND_SHARDS` copies, each its own allocation, of a count per slot.
    counts: Box<[Box<[AtomicU64]>]>,
    /// Counted when every slot is taken (never, with the verbs moot has).
    overflow: AtomicU64,
}

/// The copy of the counts this thread writes to.
fn shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SHARD: usize = NEXT.fetch_add(1, Ordering::Relaxed) % COMMAND_SHARDS;
    }
    SHARD.with(|s| *s)
}

impl Commands {
    fn new() -> Commands {
        Commands {
            keys: (0..COMMAND_SLOTS).map(|_| OnceLock::new()).collect(),
            counts: (0..COMMAND_SHARDS)
                .map(|_| (0..COMMAND_SLOTS).map(|_| AtomicU64::new(0)).collect())
                .collect(),
            overflow: AtomicU64::new(0),
        }
    }

    fn count(&self, face: &'static str, verb: &'static str) {
        let same = |k: &(&str, &str)| std::ptr::eq(k.0, face) && std::ptr::eq(k.1, verb);
        // The addresses are as good a hash as any, and cost nothing to take.
        let start = (face.as_ptr() as usize ^ (verb.as_ptr() as usize).rotate_left(17))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15_u64 as usize)
            >> 7;
        let counts = self.counts.get(shard());
        for i in 0..COMMAND_SLOTS {
            let slot = (start + i) % COMMAND_SLOTS;
            let Some(key) = self.keys.get(slot) else {
                break;
            };
            if same(key.get_or_init(|| (face, verb))) {
                if let Some(n) = counts.and_then(|c| c.get(slot)) {
                    n.fetch_add(1, Ordering::Relaxed);
                }
                return;
            }
        }
        self.overflow.fetch_add(1, Ordering::Relaxed);
    }

    /// Every (face, verb) counted, with its count.
    fn totals(&self) -> BTreeMap<(&'static str, &'static str), u64> {
        let mut totals = BTreeMap::new();
        for (slot, key) in self.keys.iter().enumerate() {
            if let Some(&key) = key.get() {
                let n: u64 = self
                    .counts
                    .iter()
                    .filter_map(|c| c.get(slot))
                    .map(|n| n.load(Ordering::Relaxed))
                    .sum();
                *totals.entry(key).or_default() += n;
            }
        }
        let overflow = self.overflow.load(Ordering::Relaxed);
        if overflow > 0 {
            totals.insert(("other", "other"), overflow);
        }
        totals
    }
}

/// A label value with Prometheus' escapes.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Counts a gauge up for as long as it lives.
pub struct Up(&'static AtomicI64);

impl Up {
    pub fn new(g: &'static AtomicI64) -> Up {
        g.fetch_add(1, Ordering::Relaxed);
        Up(g)
    }
}

impl Drop for Up {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_counted_by_face_and_verb() {
        let c = Commands::new();
        let verbs = ["look", "say", "go", "who"];
        for _ in 0..3 {
            for face in ["telnet", "mcp"] {
                for verb in verbs {
                    c.count(face, verb);
                }
            }
        }
        // The same name at another address is the same verb.
        let again: &'static str = String::from("look").leak();
        c.count("telnet", again);
        let totals = c.totals();
        assert_eq!(totals.len(), 8, "{totals:?}");
        assert_eq!(totals.get(&("telnet", "look")), Some(&4));
        assert_eq!(totals.get(&("mcp", "who")), Some(&3));
    }

    /// More pairs than slots: none is lost, the rest are counted as other.
    #[test]
    fn a_full_table_still_counts() {
        let c = Commands::new();
        let names: Vec<&'static str> = (0..COMMAND_SLOTS + 10)
            .map(|i| &*format!("v{i}").leak())
            .collect();
        for name in &names {
            c.count("rest", name);
        }
        let totals = c.totals();
        assert_eq!(totals.values().sum::<u64>(), names.len() as u64);
        assert_eq!(totals.get(&("other", "other")), Some(&10));
    }

    /// Each thread counts in a copy of its own; every copy is in the total.
    #[test]
    fn counts_from_every_thread_are_summed() {
        let c = Commands::new();
        std::thread::scope(|s| {
            for _ in 0..COMMAND_SHARDS + 3 {
                s.spawn(|| {
                    for _ in 0..100 {
                        c.count("telnet", "say");
                    }
                });
            }
        });
        let totals = c.totals();
        assert_eq!(
            totals.get(&("telnet", "say")),
            Some(&((COMMAND_SHARDS as u64 + 3) * 100))
        );
    }

    #[test]
    fn a_histogram_renders_cumulative_buckets() {
        let h = Histogram::new(&[1.0, 10.0]);
        for v in [0.5, 3.0, 3.0, 50.0] {
            h.observe(v);
        }
        let mut out = String::new();
        h.render(&mut out, "x", "An x.");
        assert!(out.contains("x_bucket{le=\"1\"} 1\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"10\"} 3\n"), "{out}");
        assert!(out.contains("x_bucket{le=\"+Inf\"} 4\n"), "{out}");
        assert!(out.contains("x_sum 56.5\n"), "{out}");
        assert!(out.contains("x_count 4\n"), "{out}");
    }
}
