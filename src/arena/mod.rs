//! `moot arena`: a series of games between named agents, played so that it can be played again
//! and checked. A spec names the game, the agents (by the tokens they play with on MCP, REST or
//! the lichess Bot API, or one of the house's players), how many deals and the seed they come
//! from; every pair plays every deal from both sides. The report (`report.json`, and
//! `report.html` to read) says what each game was, and `moot arena check` holds it against the
//! stored logs, replaying each through its rules.
//!
//! A shell like the faces: it reaches the town through the REST API (to play) and the store
//! (to check), never the world.

pub mod check;
mod page;
pub mod report;
mod run;
pub mod spec;

use std::path::Path;

/// `moot arena run SPEC --out DIR`.
pub async fn run(spec: &Path, out: &Path) -> Result<String, String> {
    let text = std::fs::read_to_string(spec).map_err(|e| format!("{}: {e}", spec.display()))?;
    let checked = spec::Spec::parse(&text, |var| std::env::var(var).ok())
        .map_err(|e| format!("{}: {e}", spec.display()))?;
    eprintln!(
        "arena: {} games of {} ({} agents, {} deal(s) each from both sides) on {}",
        checked.games.len(),
        checked.spec.game,
        checked.seats.len(),
        checked.spec.deals,
        checked.spec.server
    );
    run::run(checked, out, |line| eprintln!("arena: {line}")).await
}

/// `moot arena check REPORT --db DB`.
pub async fn check(report: &Path, db: &crate::store::Database) -> Result<String, String> {
    let text = std::fs::read_to_string(report).map_err(|e| format!("{}: {e}", report.display()))?;
    let r: report::Report =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", report.display()))?;
    let store =
        crate::store::Store::open(db, Default::default()).map_err(|e| format!("{db}: {e}"))?;
    let stored = store.sessions().await.map_err(|e| e.to_string())?;
    check::check(&r, &stored)
}
