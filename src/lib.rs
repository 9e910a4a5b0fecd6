//! moot: a MOO-style text world where people on telnet and AI agents share one town.
//!
//! A functional core with thin shells; imports only run down this list:
//!
//! - [`server`] starts the listeners (`main` parses the flags); [`startup`] opens the
//!   town (world files, database, replay, world task) for the server and `moot mcp` alike;
//! - the faces translate and hold no game state: [`telnet`] (bytes in, lines out), [`http`]
//!   (seed 004's REST API and the `/mcp` gate) and [`mcp`] (every verb as a tool);
//! - [`verbs`] is the one registry of commands, each declared once for every face; a game's
//!   verbs live in its own folder there (`verbs/chess/`: challenges, play, watching, seed 000's
//!   agent tools, the board page);
//! - [`world`] owns the live town in one task: players and rooms, the generic session host
//!   (turns, ticks, the log, deadlines, the house's computer and server actor), the outbox that
//!   holds news until the database has it, and the views of a room and of `who`;
//! - [`identity`] checks names, passwords and tokens; [`store`] is SQLite behind one
//!   group-committing writer and one reader; [`uci`] drives an external chess engine;
//! - [`games`] are the pure templates (state + action → state, no I/O, no clock): chess with
//!   its engine, text board and tkMOO-light encoding in `games/chess/`, and rps, tic-tac-toe and
//!   blackjack;
//! - [`text`] cleans and bounds text from every face, [`limits`] holds the shared rate limits,
//!   and [`config`] says how moot runs.
//!
//! Adding a game is a template in `games/<game>` (registered in `games::TEMPLATES`) and, if
//! people are to play it by name, its verbs in `verbs/<game>`; the host needs nothing else.

#![warn(clippy::unwrap_used, clippy::expect_used)]

pub mod config;
#[cfg(feature = "testing")]
pub mod drill;
pub mod games;
pub mod http;
pub mod identity;
pub mod limits;
pub mod logging;
pub mod logins;
pub mod mcp;
pub mod metrics;
pub mod oauth;
pub mod server;
pub mod startup;
pub mod store;
pub mod telnet;
pub mod text;
pub mod uci;
pub mod verbs;
pub mod web;
pub mod world;
pub mod wrap;

pub use config::Config;
pub use server::{RunningServer, start};
