//! What a face needs from the town, wherever the town runs: in this process (the default: one
//! `moot` holds the world and every connection) or in a world process across a NATS broker
//! (`moot world --nats` and any number of `moot host --nats`).
//!
//! The faces speak to a [`Town`] and never learn which they have: a [`Door`] in this
//! process (the world task's queue, the store and the login checks), or a [`host::Remote`]
//! that sends the same requests to a world process as typed, versioned messages
//! ([`wire`]) and hands its answers back as the same [`Source`] of [`Out`]s. A host therefore
//! holds connections and touches no database; the world holds the database and no socket.
//! Telnet's connections cross as lines and what the world says to them; every route of the
//! REST API as typed calls (verbs by name, a game's page, an agent to make: [`calls`],
//! [`agents`], [`metrics`]), MCP's tool calls and reads too, and the web's pages as typed
//! questions ([`visits`]). No HTTP crosses: a host can serve a new face by translating its
//! requests into these.
//!
//! [`Out`]: moot_kernel::world::Out

pub mod agents;
mod asked;
pub mod broker;
pub mod calls;
mod door;
mod door_calls;
mod door_grants;
mod door_visits;
pub mod game_worlds;
pub mod games;
mod grants;
mod heard;
mod held;
pub mod host;
pub mod metrics;
pub mod nats;
pub mod pass;
pub mod seated;
mod signed;
pub mod visits;
pub mod wire;

pub use door::Door;

use std::net::IpAddr;

use tokio::time::Instant;

use crate::logins::{CreateRefused, Refused};
use moot_kernel::store::AgentRow;
use moot_kernel::world::{AgentId, ConnId, Leaving, Source, Taken};

/// For the tests of what reaches the town in which order, and when: waits as long as the
/// environment's `var` says, in milliseconds, as a busy town or broker might.
#[cfg(feature = "testing")]
async fn late(var: &str) {
    let late = std::env::var(var).ok().and_then(|ms| ms.parse().ok());
    if let Some(ms) = late {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
}

/// Who logged in on a connection, as the town vouched for them: what a face brings into the
/// town with [`Town::enter`].
pub struct LoggedIn {
    pub row: AgentRow,
    /// Across the broker, the world's pass that lets this host bring them in ([`pass`]).
    pass: Option<String>,
}

impl LoggedIn {
    fn here(row: AgentRow) -> LoggedIn {
        LoggedIn { row, pass: None }
    }
}

impl From<wire::Character> for LoggedIn {
    fn from(mut c: wire::Character) -> LoggedIn {
        let pass = Some(std::mem::take(&mut c.pass));
        LoggedIn {
            row: c.into(),
            pass,
        }
    }
}

/// The town as a face sees it.
pub enum Town {
    /// The world in this process.
    Local(Door),
    /// The world in another process, across the broker.
    Remote(Box<host::Remote>),
}

impl Town {
    /// Whether connections from `ip` are turned away at once.
    pub async fn banned(&self, ip: IpAddr) -> bool {
        match self {
            Town::Local(door) => door.banned(ip),
            Town::Remote(remote) => remote.banned(ip).await,
        }
    }

    /// The `who` table for the login screen.
    pub async fn who(&self) -> Vec<String> {
        match self {
            Town::Local(door) => door.world.who().await,
            Town::Remote(remote) => remote.who().await,
        }
    }

    /// Checks a name and a password (or an API token) from `ip`.
    pub async fn connect(
        &self,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<LoggedIn, Refused> {
        match self {
            Town::Local(door) => door.connect(ip, name, password).await.map(LoggedIn::here),
            Town::Remote(remote) => remote.connect(ip, name, password).await.map(LoggedIn::from),
        }
    }

    /// Makes a character.
    pub async fn create(
        &self,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<LoggedIn, CreateRefused> {
        match self {
            Town::Local(door) => door.create(ip, name, password).await.map(LoggedIn::here),
            Town::Remote(remote) => remote.create(ip, name, password).await.map(LoggedIn::from),
        }
    }

    /// Brings the character logged in on connection `conn` into the town; what the world says
    /// to that connection from then on comes out of the returned [`Source`], the answer to
    /// entering first. `None` if the town has stopped.
    pub async fn enter(&self, who: LoggedIn, created: bool, conn: ConnId) -> Option<Source> {
        match self {
            Town::Local(door) => door.enter(who.row, created, conn).await,
            Town::Remote(remote) => {
                let pass = who.pass.unwrap_or_default();
                remote.enter(who.row, pass, created, conn).await
            }
        }
    }

    /// A line typed on connection `conn` at `typed` (the connection's clock reading serves the
    /// world's too, where the line runs at once).
    pub async fn line(&self, agent: &AgentId, conn: ConnId, line: String, typed: Instant) -> Taken {
        match self {
            // Run here if the world is free (see `world::task`).
            Town::Local(door) => door.world.line(agent, conn, line, typed).await,
            Town::Remote(remote) => match remote.line(agent, conn, line).await {
                true => Taken::Queued,
                false => Taken::Stopped,
            },
        }
    }

    /// The agent the town vouches `credential` is (a face asks before refusing what it read,
    /// so that a bad token is refused first, whatever else is wrong).
    pub async fn vouch(
        &self,
        credential: &calls::Credential,
    ) -> Result<String, calls::CallRefused> {
        match self {
            Town::Local(door) => {
                calls::vouch(&door.directory, credential).map_err(calls::CallRefused::Unvouched)
            }
            Town::Remote(remote) => remote.vouch(credential).await,
        }
    }

    /// Calls a verb by name ([`calls`]).
    pub async fn call(&self, call: calls::VerbCall) -> calls::Called {
        match self {
            Town::Local(door) => door.call(call).await,
            Town::Remote(remote) => remote.call(&call).await,
        }
    }

    /// A game's page or download ([`calls::PageRead`]): its text, or none where there is no
    /// such game.
    pub async fn page(&self, read: calls::PageRead) -> Result<Option<String>, calls::CallRefused> {
        let called = match self {
            Town::Local(door) => door.page(read).await,
            Town::Remote(remote) => remote.page(&read).await,
        }?;
        serde_json::from_str(called.get())
            .map_err(|_| calls::CallRefused::Unavailable(moot_kernel::world::Unavailable::Internal))
    }

    /// The metrics, for a scraper that sent `token` ([`metrics`]).
    pub async fn metrics(&self, token: Option<String>) -> calls::Called {
        match self {
            Town::Local(door) => door.metrics(token).await,
            Town::Remote(remote) => remote.metrics(token).await,
        }
    }

    /// What a host's MCP server reads of the world's ([`calls::McpRead`]). One process's
    /// server reads its world itself, and never asks this.
    pub async fn mcp_read(&self, read: calls::McpRead) -> calls::Called {
        match self {
            Town::Local(_) => Err(calls::CallRefused::NoSuchVerb("MCP".into())),
            Town::Remote(remote) => remote.mcp_read(&read).await,
        }
    }

    /// What a web page asks ([`visits::WebAsk`]), its answer's JSON. The answering is boxed:
    /// its future holds every kind of question's work, and a live page that held it inline
    /// would keep that room for as long as it is open (`web_spectators` measures it).
    pub async fn web(&self, ask: visits::WebAsk) -> calls::Called {
        match self {
            Town::Local(door) => Box::pin(door.web(ask)).await,
            Town::Remote(remote) => Box::pin(remote.web(ask)).await,
        }
    }

    /// Makes an agent ([`agents::AgentCall`]).
    pub async fn make_agent(&self, call: agents::AgentCall) -> calls::Called {
        match self {
            Town::Local(door) => door.make_agent(call).await,
            Town::Remote(remote) => remote.make_agent(&call).await,
        }
    }

    /// Calls an MCP tool ([`calls::ToolCall`]). A one-process moot's MCP endpoint answers its
    /// tool calls itself, with the same server, and never asks this.
    pub async fn tool(&self, call: calls::ToolCall) -> calls::Called {
        match self {
            Town::Local(_) => Err(calls::CallRefused::NoSuchVerb(call.name)),
            Town::Remote(remote) => remote.tool(call).await,
        }
    }

    /// Connection `conn` has ended.
    pub async fn leave(&self, agent: &AgentId, conn: ConnId, why: Leaving) {
        match self {
            Town::Local(door) => {
                door.world
                    .send(moot_kernel::world::Request::Leave {
                        agent: agent.clone(),
                        conn,
                        why,
                    })
                    .await;
            }
            Town::Remote(remote) => remote.leave(agent, conn, why).await,
        }
    }
}
