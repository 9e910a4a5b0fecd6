//! `who` / `@who`: who is connected, for how long, how idle, and where.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::{NoArgs, Reply, Verb, VerbError, no_args};
use crate::text::duration_phrase;
use crate::world::{Cx, World};

pub struct Who;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct WhoList {
    pub players: Vec<WhoEntry>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct WhoEntry {
    pub name: String,
    pub connected_seconds: u64,
    pub idle_seconds: u64,
    /// The name of the room they are in.
    pub location: String,
}

impl Verb for Who {
    const NAME: &'static str = "who";
    const ALIASES: &'static [&'static str] = &["@who"];
    const USAGE: &'static str = "who";
    const SUMMARY: &'static str = "List who is connected, how long, how idle, and where.";
    const HELP: &'static str = "Shows everyone connected, with how long they have been connected, how \
long since they last did anything, and the room they are in.";
    const READ_ONLY: bool = true;
    type Args = NoArgs;
    type Output = WhoList;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Who>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<WhoList>, VerbError> {
        Ok(Reply::new(table(world, cx.now), list(world, cx.now)))
    }
}

fn list(world: &World, now: Instant) -> WhoList {
    let mut players: Vec<WhoEntry> = world
        .players()
        .map(|p| WhoEntry {
            name: p.name.clone(),
            connected_seconds: now.saturating_duration_since(p.connected_at).as_secs(),
            idle_seconds: now.saturating_duration_since(p.last_active).as_secs(),
            location: world.map.room(p.room).name.clone(),
        })
        .collect();
    players.sort_by_key(|a| a.name.to_lowercase());
    WhoList { players }
}

/// The table as LambdaCore prints it.
pub fn table(world: &World, now: Instant) -> Vec<String> {
    let list = list(world, now);
    let row = |a: &str, b: &str, c: &str, d: &str| format!("{a:<20} {b:<12} {c:<12} {d}");
    let mut lines = vec![
        row("Player name", "Connected", "Idle time", "Location"),
        row("-----------", "---------", "---------", "--------"),
    ];
    for p in &list.players {
        lines.push(row(
            &p.name,
            &duration_phrase(std::time::Duration::from_secs(p.connected_seconds)),
            &duration_phrase(std::time::Duration::from_secs(p.idle_seconds)),
            &p.location,
        ));
    }
    let n = list.players.len();
    lines.push(format!(
        "Total: {n} player{} connected.",
        if n == 1 { "" } else { "s" }
    ));
    lines
}
