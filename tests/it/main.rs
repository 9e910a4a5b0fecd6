//! moot's integration tests: one binary, so the world is linked once. Every test here talks to a
//! real server through real sockets.

mod support;

mod arena;
mod bugs;
mod building;
mod chess;
mod clients;
mod connect4;
mod consent;
mod drill;
mod durability;
mod farming;
mod foundation;
mod game_worlds;
mod hosts;
mod hosts_calls;
mod http;
mod lichess;
mod limits;
mod mcp;
mod oauth;
mod operators;
mod postgres;
mod programming;
mod ratings;
mod registry;
mod side_channels;
mod tables;
mod telnet;
mod toolsets;
mod tournaments;
mod undo;
mod web;
mod werewolf;
mod werewolf_audit;
mod world_files;
