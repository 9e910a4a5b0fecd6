//! moot: a MOO-style text world where people on telnet and AI agents share one town.
//!
//! A functional core with thin shells; imports only run down this list:
//!
//! - [`server`] starts the listeners (`main` parses the flags); [`startup`] opens the
//!   town (world files, database, replay, world task) for the server and `moot mcp` alike;
//! - the faces translate and hold no game state: [`telnet`] (bytes in, lines out), [`http`]
//!   (the sessions' REST API and the `/mcp` gate) and [`mcp`] (every verb as a tool);
//! - [`cluster`] is what a face needs from the town wherever it runs: in this process, or in a
//!   world process across a NATS broker (`moot world` and `moot host`);
//! - [`games`] holds the games, one folder each (its pure rules, its verbs, its
//!   pages), named once in its `games!` line, and the catalog built from them (every verb,
//!   `help`, `examine`, the templates the host runs);
//! - below them all, the kernel (the `moot-kernel` crate, re-exported here under its own
//!   names: [`world`], [`store`], [`verbs`], [`identity`], [`ratings`], [`limits`], …): the live
//!   town and what it keeps, which names no game and no face; and [`game_api`] (the
//!   `moot-game-api` crate), the [`game_api::Game`] trait each game's pure rules (a crate each,
//!   in the game's `rules/` folder) implement (state + action → state, no I/O, no clock);
//! - [`arena`] plays a series of games between named agents over the REST API and checks its
//!   report against the store: a shell beside the faces;
//! - [`config`] says how moot runs, and [`logins`] is the one name-and-password check for
//!   telnet and the web.
//!
//! Adding a game is one folder in `games/` (its pure rules' crate, its verbs, its page, its
//! `GameModule`), its name in the `games!` line and its rules crate among `Cargo.toml`'s
//! dependencies, and its table in a room's file.

#![warn(clippy::unwrap_used, clippy::expect_used)]

pub mod arena;
pub mod cluster;
pub mod config;
pub use moot_kernel::game_api;
pub mod games;
pub mod http;
pub use moot_kernel::identity;
pub use moot_kernel::limits;
pub use moot_kernel::logging;
pub mod logins;
pub mod mcp;
pub use moot_kernel::metrics;
pub use moot_kernel::oauth;
pub use moot_kernel::ratings;
pub use moot_kernel::sandbox;
pub mod server;
pub mod startup;
pub use moot_kernel::store;
pub mod telnet;
pub use moot_kernel::text;
pub use moot_kernel::verbs;
pub mod web;
pub use moot_kernel::world;
pub use moot_kernel::wrap;

pub use config::Config;
pub use server::{RunningServer, start};
