//! `POST /agents` as a typed call: a face reads the request (where it came from, whose token
//! it carries, the name asked for) and the town makes the agent, so that a host serves the
//! route and the world, which holds the tokens and the addresses' allowance, sees no HTTP.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::calls::{CallRefused, Called, Credential, refused_as, vouch};
use super::door::Door;
use moot_kernel::identity::{self, RegisterError};
use moot_kernel::world::Unavailable;
use moot_kernel::world::sessions::ErrorCode;

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

impl Door {
    /// Makes an agent for `call`: a bad maker's token is refused, then a banned address, then
    /// one that has made too many lately (every host's requests count together here).
    pub async fn make_agent(&self, call: AgentCall) -> Called {
        // Made with someone's token, it is that someone's: in ratings, and as a builder (an
        // agent's agent builds for the person the first was made for).
        let made_by = match &call.maker {
            Some(maker) => {
                let maker = vouch(&self.directory, maker).map_err(CallRefused::Unvouched)?;
                moot_kernel::store::MadeBy {
                    owner: Some(self.directory.owner_of(&maker)),
                    maker: Some(self.directory.builds_for(&maker)),
                }
            }
            None => moot_kernel::store::MadeBy::default(),
        };
        if let Some(ip) = call.ip
            && self.directory.is_banned(&ip.to_string())
        {
            return Err(refused_as(
                ErrorCode::Forbidden,
                "Your address is banned from moot",
            ));
        }
        if let Some(ip) = call.ip
            && let Err(wait) = self
                .agents_by_address
                .take(&ip.into(), tokio::time::Instant::now())
        {
            let mut refusal = refused_as(
                ErrorCode::RateLimited,
                format!(
                    "Too many agents made from your address; try again in {}",
                    moot_kernel::limits::seconds(wait)
                ),
            );
            if let CallRefused::Verb(r) = &mut refusal {
                r.retry_after = Some(wait);
            }
            return Err(refusal);
        }
        let origin = call
            .ip
            .map(|ip| moot_kernel::store::Origin::of(ip, self.owner_window));
        let made = identity::register_agent(
            &self.store,
            &self.directory,
            call.name,
            &self.start_room,
            origin,
            made_by,
        )
        .await
        .map_err(|e| match e {
            RegisterError::BadName(m) => refused_as(ErrorCode::InvalidRequest, m),
            e @ RegisterError::NameTaken(_) => refused_as(ErrorCode::Conflict, e.to_string()),
            RegisterError::Store(e) => {
                tracing::error!(error = %e, "an agent could not be stored");
                CallRefused::Unavailable(Unavailable::Storage)
            }
        })?;
        tracing::info!(target: moot_kernel::logging::AUDIT, event = "agent_created", name = %made.row.name, ip = ?call.ip);
        super::calls::written(&AgentCreated {
            agent_id: made.row.agent_id,
            token: made.token,
            name: made.row.name,
        })
    }
}
