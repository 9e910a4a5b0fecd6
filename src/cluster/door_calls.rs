//! The world's side of the calls in [`calls`](super::calls), answered through its [`Door`]:
//! a verb by name (vouched for, run as a tool runs it, waited on while it says "not yet"), an
//! MCP tool or read, a game's page. The same in one process and for a host's questions.

use super::agents::{AgentCall, AgentCreated};
use super::calls::{
    CallRefused, Called, McpAsk, McpRead, PageRead, ToolCall, Tools, VerbCall, caller, refused_as,
    vouch, written,
};
use super::door::Door;
use moot_kernel::identity::{self, RegisterError};
use moot_kernel::world::sessions::ErrorCode;
use moot_kernel::world::{Face, Unavailable};

/// The longest a verb called by name waits for what it waits on: within a host's call's own
/// time limit, as the web's long polls are.
const LONGEST_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

impl Door {
    /// The world's side of a [`ToolCall`], for `agent` (vouched for already, by
    /// `super::games::tool` in the world process): the call answered by `tools`.
    pub async fn tool_as(
        &self,
        tools: &Tools,
        agent: moot_kernel::world::AgentId,
        call: ToolCall,
    ) -> Called {
        tools(agent, McpAsk::Tool(call))
            .await
            .map_err(CallRefused::Tool)
    }

    /// The world's side of an [`McpRead`], as [`Door::tool_as`] answers a tool call.
    pub async fn mcp_read(&self, tools: &Tools, read: McpRead) -> Called {
        let agent = vouch(&self.directory, &read.credential).map_err(CallRefused::Unvouched)?;
        tools(agent.into(), McpAsk::Read(read))
            .await
            .map_err(CallRefused::Tool)
    }

    /// The world's side of a [`VerbCall`], the same in this process and for a host: the
    /// credential vouched for, the verb run from its JSON as a tool call runs it (counted,
    /// admitted, undone if it fails), only its structured result read.
    ///
    /// A verb that answers "not yet" (a long poll: a game stream's next move) is asked again
    /// each time what it waits on changes, up to its own wait and at most
    /// [`LONGEST_WAIT`]; then its "not yet" answer is given as the result.
    pub async fn call(&self, call: VerbCall) -> Called {
        let (entry, agent) = self.vouched(&call)?;
        self.call_as(entry, agent, call.face, call.args, None).await
    }

    /// The verb `call` names, and who its credential vouches for.
    pub fn vouched(
        &self,
        call: &VerbCall,
    ) -> Result<
        (
            &'static moot_kernel::verbs::VerbEntry,
            moot_kernel::world::AgentId,
        ),
        CallRefused,
    > {
        let entry = crate::games::find(&call.verb)
            .filter(|e| e.name == call.verb)
            .ok_or_else(|| CallRefused::NoSuchVerb(call.verb.clone()))?;
        let agent = caller(&self.directory, &call.credential, entry.read_only)
            .map_err(CallRefused::Unvouched)?;
        Ok((entry, agent.into()))
    }

    /// [`Door::call`] for `agent`, vouched for already (by this process, or by the town that
    /// hands a game world the call); a new session it makes is numbered `session` if given.
    pub async fn call_as(
        &self,
        entry: &'static moot_kernel::verbs::VerbEntry,
        agent: moot_kernel::world::AgentId,
        face: Face,
        args: serde_json::Value,
        session: Option<moot_kernel::world::sessions::SessionId>,
    ) -> Called {
        let started = tokio::time::Instant::now();
        loop {
            // The JSON is read and written here, so that the world task holds only the verb.
            let args = (entry.read_args)(args.clone());
            let (done, waits) = self
                .world
                .call(agent.clone(), face, move |w, cx| {
                    if let Some(id) = session {
                        w.next_session_is(id);
                    }
                    cx.data_only = true;
                    let done = (entry.run_read)(w, cx, args);
                    // Subscribed in the same turn of the world, so no change slips between.
                    let waits = match &done {
                        Err(moot_kernel::verbs::VerbError {
                            pending: Some(p), ..
                        }) => Some((w.await_change(p.on.clone()), p.wait, p.data.clone())),
                        _ => None,
                    };
                    (done, waits)
                })
                .await
                .map_err(CallRefused::Unavailable)?;
            let Some((mut changed, wait, data)) = waits else {
                return done
                    .map(|reply| reply.data.json())
                    .map_err(|e| CallRefused::Verb(e.into()));
            };
            let most = wait.map_or(LONGEST_WAIT, |w| w.min(LONGEST_WAIT));
            match tokio::time::timeout_at(started + most, changed.changed()).await {
                Ok(Ok(())) => continue,
                // Unchanged all along: the verb's own answer for a wait that ran out.
                _ => return written(&data),
            }
        }
    }

    /// The world's side of a [`PageRead`]: the text (as a JSON string), or `null` where there
    /// is no such game or page.
    pub async fn page(&self, read: PageRead) -> Called {
        let Some(page) = crate::games::ALL
            .iter()
            .filter_map(|m| m.page.as_ref())
            .find(|p| p.path == read.page)
        else {
            return written(&None::<String>);
        };
        let Ok(sid) = moot_kernel::world::sessions::parse_id(&read.id) else {
            return written(&None::<String>);
        };
        // The page itself, or the download its suffix names.
        let text: fn(&moot_kernel::world::World, _) -> Option<String> = match read.download {
            None => page.html,
            Some(suffix) => match page.downloads.iter().find(|d| d.suffix == suffix) {
                Some(d) => d.text,
                None => return written(&None::<String>),
            },
        };
        let text = self
            .world
            .call("".into(), Face::Rest, move |w, _| text(w, sid))
            .await;
        written(&text.map_err(CallRefused::Unavailable)?)
    }
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
