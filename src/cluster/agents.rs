//! `POST /agents` as a typed call: a face reads the request (where it came from, whose token
//! it carries, the name asked for) and the town makes the agent, so that a host serves the
//! route and the world, which holds the tokens and the addresses' allowance, sees no HTTP (it
//! makes the agent in `door_calls`).

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::calls::Credential;

/// An agent to make: from `ip` (where the listener knows it), named `name` (or given a name),
/// by whoever `maker` vouches for, whose it then is (one owner, one voice in ratings).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AgentCall {
    pub ip: Option<IpAddr>,
    pub maker: Option<Credential>,
    pub name: Option<String>,
}

/// The agent made: its id, its token (shown once, stored only as a hash) and its name.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AgentCreated {
    pub agent_id: String,
    /// The bearer token; shown once, stored only as a hash.
    pub token: String,
    pub name: String,
}
