//! moot: a MOO-style text world where people on telnet and AI agents share one town.
//!
//! The crate is laid out as a functional core with thin shells:
//!
//! - [`world`] owns the live state of the town (one task, one owner) and the static map loaded
//!   from `world/`;
//! - [`verbs`] is the one registry of verbs: each verb is declared once and every front end
//!   (telnet now, MCP later) dispatches through it;
//! - [`store`] is the SQLite database behind a single group-committing writer thread;
//! - [`text`] cleans and bounds the text that comes in through every face, and [`limits`]
//!   holds the rate limits every face shares;
//! - [`telnet`] is the telnet front end: bytes in, lines out, nothing else;
//! - [`server`] wires them together, and [`config`] says how.

pub mod config;
pub mod games;
pub mod http;
pub mod identity;
pub mod limits;
pub mod mcp;
pub mod server;
pub mod store;
pub mod telnet;
pub mod text;
pub mod uci;
pub mod ui;
pub mod verbs;
pub mod world;

pub use config::Config;
pub use server::{RunningServer, start};
