//! Game worlds: processes apart from the town that own game sessions (`moot games --nats URL
//! --name NAME`), each with a database of its own, so that the matches a town plays are not
//! all played on the one process that holds its rooms and people.
//!
//! What the two sides share so far is the beat. Every [`wire::BEAT`] a game world says, as a
//! request on [`wire::game_beats`], who it is and how many sessions it runs; the town answers,
//! and keeps which game worlds are alive and how busy ([`GameWorlds`]): `/metrics` shows them,
//! and new sessions will be placed by it. A name is one process's at a time. Sessions will be
//! placed by name, so a second process beating under a name that is alive is refused, and
//! stops, rather than take sessions meant for the other.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::wire::{self, GameBeat, GameHeard};
use moot_kernel::world::{Face, WorldHandle};

/// How long a game world refused its name keeps asking before it stops: long enough for a
/// process killed and started again at once to outlast its earlier run's last beat.
const REFUSED_FOR: Duration = Duration::from_secs(5);

/// The most game worlds the town keeps track of: names come only from the town's own
/// processes (a game world holds the broker's world credentials), but a fault that made up
/// names must not grow the town without end.
const MOST: usize = 1024;

/// The game worlds the town has heard, for as long as it runs.
#[derive(Default)]
pub struct GameWorlds {
    seen: Mutex<BTreeMap<String, Seen>>,
}

struct Seen {
    run: u64,
    heard: Instant,
    running: u32,
}

impl Seen {
    fn alive(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.heard) <= wire::AWAY_AFTER
    }
}

impl GameWorlds {
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
        seen.insert(
            beat.name.clone(),
            Seen {
                run: beat.run,
                heard: now,
                running: beat.running,
            },
        );
        Ok(joined)
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

/// The town's side: answers the game worlds' beats heard on `beats` (subscribed to
/// [`wire::game_beats`]) until the subscription ends with the town.
pub async fn hear(
    client: async_nats::Client,
    mut beats: async_nats::Subscriber,
    worlds: Arc<GameWorlds>,
) {
    while let Some(msg) = beats.next().await {
        let Some(reply) = msg.reply.clone() else {
            continue;
        };
        let heard: GameHeard = match serde_json::from_slice::<GameBeat>(&msg.payload) {
            Ok(beat) => match worlds.heard(&beat, Instant::now()) {
                Ok(joined) => {
                    if joined {
                        tracing::info!(name = %beat.name, running = beat.running, "a game world is alive");
                    }
                    Ok(())
                }
                Err(why) => {
                    tracing::warn!(name = %beat.name, %why, "a game world was refused");
                    Err(why)
                }
            },
            Err(_) => Err("the town cannot read this beat: run the same moot version".into()),
        };
        if let Ok(body) = serde_json::to_vec(&heard) {
            let _ = client.publish(reply, body.into()).await;
        }
    }
}

/// A game world's side: beats as `name` until `stop`, saying how many sessions `world` runs.
/// It ends with why it must stop if the town refuses it for [`REFUSED_FOR`] (another process
/// has its name; another protocol); a town that does not answer is waited for.
pub async fn beat(
    client: async_nats::Client,
    name: String,
    world: WorldHandle,
    stop: CancellationToken,
) -> Result<(), String> {
    let run = rand::random::<u64>();
    let mut tick = tokio::time::interval(wire::BEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut refused_since: Option<Instant> = None;
    let mut heard = false;
    loop {
        tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            _ = tick.tick() => {}
        }
        let running = world
            .call(moot_kernel::world::SERVER_ID.into(), Face::Rest, |w, _| {
                w.session_ids()
                    .into_iter()
                    .filter(|&id| w.session(id).is_some_and(|s| !s.game.is_terminal()))
                    .count()
            })
            .await
            .unwrap_or_default();
        let beat = GameBeat {
            protocol: wire::PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            name: name.clone(),
            run,
            running: u32::try_from(running).unwrap_or(u32::MAX),
        };
        let Ok(body) = serde_json::to_vec(&beat) else {
            return Err("cannot write a beat".into());
        };
        let asked = client.request(wire::game_beats(), body.into());
        let answer = tokio::time::timeout(wire::AWAY_AFTER, asked)
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|m| serde_json::from_slice::<GameHeard>(&m.payload).ok());
        match answer {
            Some(Ok(())) => {
                if !heard {
                    tracing::info!(%name, "the town hears this game world");
                }
                heard = true;
                refused_since = None;
            }
            Some(Err(why)) => {
                let since = *refused_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= REFUSED_FOR {
                    return Err(why);
                }
                tracing::warn!(%name, %why, "the town refuses this game world for now");
                heard = false;
            }
            None => {
                if heard {
                    tracing::warn!(%name, "the town does not answer; beating on until it does");
                }
                heard = false;
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
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
