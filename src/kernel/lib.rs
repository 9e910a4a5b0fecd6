//! moot's kernel: the live town and everything it keeps, apart from the faces that reach it and
//! from the games that play in it. The faces (telnet, HTTP, MCP, the web, the hosts across NATS)
//! and the games' verbs live in the `moot` crate above; this crate names none of them, and the
//! compiler keeps it so: it cannot use what its manifest does not name.
//!
//! Imports only run down this list:
//!
//! - [`verbs`] is the verb kernel (a verb declared once for every face, the `GameModule` a
//!   game declares itself with) and the town's own verbs;
//! - [`world`] owns the live town in one task: players and rooms, the generic session host
//!   (turns, ticks, the log, deadlines, the house's computer and server actor), the outbox that
//!   holds news until the database has it, and the views of a room and of `who`;
//! - [`identity`] checks names, passwords and tokens; [`store`] is SQLite or PostgreSQL
//!   behind one group-committing writer and one reader; [`oauth`] the grants agents sign in
//!   with;
//! - [`sandbox`] runs programmed verbs (Rhai, with hard limits) on a snapshot of the objects
//!   around them, giving back the deeds the world then does or refuses;
//! - [`ratings`] keeps who plays well (Glicko-2 per board, records for games of luck) as a
//!   pure ledger the world feeds each decided result; [`tournament`] pairs and ranks an
//!   event's entrants (Swiss, round-robin, arena), as a pure ledger too;
//! - [`text`] (from `moot-game-api`) cleans and bounds text from every face, [`limits`] holds the
//!   shared rate limits, [`wrap`] fits text to a screen, [`metrics`] counts, and [`logging`]
//!   says where log lines go.

#![warn(clippy::unwrap_used, clippy::expect_used)]

pub use moot_game_api as game_api;
pub use moot_game_api::text;

pub mod identity;
pub mod limits;
pub mod logging;
pub mod metrics;
pub mod oauth;
pub mod ratings;
pub mod sandbox;
pub mod store;
pub mod tournament;
pub mod verbs;
pub mod world;
pub mod wrap;
