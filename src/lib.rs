//! moot: a MOO-style text world where people on telnet and AI agents share one town.
//!
//! A functional core with thin shells; imports only run down this list:
//!
//! - [`server`] starts the listeners (`main` parses the flags); [`startup`] opens the
//!   town (world files, database, replay, world task) for the server and `moot mcp` alike;
//!   [`uci`] drives an external chess engine, for chess's computer player's top levels;
//! - the faces translate and hold no game state: [`telnet`] (bytes in, lines out), [`http`]
//!   (the sessions' REST API and the `/mcp` gate) and [`mcp`] (every verb as a tool);
//! - [`cluster`] is what a face needs from the town wherever it runs: in this process, or in a
//!   world process across a NATS broker (`moot world` and `moot host`);
//! - [`games`] holds the games, one folder each (its pure rules, its verbs, its
//!   pages), named once in its `games!` line, and the catalog built from them (every verb,
//!   `help`, `examine`, the templates the host runs);
//! - [`verbs`] is the verb kernel (a verb declared once for every face, the `GameModule` a
//!   game declares itself with) and the town's own verbs;
//! - [`world`] owns the live town in one task: players and rooms, the generic session host
//!   (turns, ticks, the log, deadlines, the house's computer and server actor), the outbox that
//!   holds news until the database has it, and the views of a room and of `who`;
//! - [`identity`] checks names, passwords and tokens; [`store`] is SQLite behind one
//!   group-committing writer and one reader;
//! - [`ratings`] keeps who plays well (Glicko-2 per board, records for games of luck) as a
//!   pure ledger the world feeds each decided result;
//! - [`game_api`] (the `moot-game-api` crate) says what a template is: the [`game_api::Game`]
//!   trait that each game's pure rules (a crate each, in the game's `rules/` folder) implement
//!   (state + action → state, no I/O, no clock), and the host's row for one;
//! - [`text`] cleans and bounds text from every face, [`limits`] holds the shared rate limits,
//!   and [`config`] says how moot runs.
//!
//! Adding a game is one folder in `games/` (its pure rules' crate, its verbs, its page, its
//! `GameModule`), its name in the `games!` line and its rules crate among `Cargo.toml`'s
//! dependencies, and its table in a room's file.

#![warn(clippy::unwrap_used, clippy::expect_used)]

pub mod cluster;
pub mod config;
#[cfg(feature = "testing")]
pub mod drill;
pub use moot_game_api as game_api;
pub mod games;
pub mod http;
pub mod identity;
pub mod limits;
pub mod logging;
pub mod logins;
pub mod mcp;
pub mod metrics;
pub mod oauth;
pub mod ratings;
pub mod server;
pub mod startup;
pub mod store;
pub mod telnet;
pub use moot_game_api::text;
pub mod uci;
pub mod verbs;
pub mod web;
pub mod world;
pub mod wrap;

pub use config::Config;
pub use server::{RunningServer, start};
