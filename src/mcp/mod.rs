//! The MCP face: every verb of the registry is a tool, with the same name, argument schema and
//! handler; verbs with structured results declare an output schema and return matching
//! `structuredContent` beside the text a person would read.
//!
//! Identity never comes from an MCP session (MCP 2026-07-28 has none): over Streamable HTTP it
//! is the bearer token of each request (checked by [`crate::http`] before rmcp sees it), and
//! over stdio it is the one agent the process plays. An agent is a character of the town: on
//! its first call it appears where it last stood, others see it arrive, and what happens
//! around it waits in its mailbox for the `events` tool.

mod across;
pub mod bridge;
mod poll;
pub mod stdio;
mod translate;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ListResourcesResult, MetaObject, Prompt, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, ServerHandler};
use serde_json::Value;

use crate::cluster::Town;
use crate::cluster::calls::{Credential, McpWhat, Plain};
use crate::games;
use moot_kernel::store::Store;
use moot_kernel::verbs::{Json, Reply, Toolset, VerbEntry, VerbError};
use moot_kernel::world::{AgentId, Face, WorldHandle};
use poll::Polls;
use translate::result;
pub use translate::{Answer, tool, tools};

/// Who an MCP request acts for, put in the HTTP request's extensions by the bearer check, with
/// the credential that vouched for them (a host asks the world as that credential, which only
/// the world can judge), and how its text is to read (the address's `?screenreader=`).
#[derive(Debug, Clone)]
pub struct McpAgent(pub AgentId, pub Credential, pub Plain);

/// What a URL's query asks of [`Plain`]: `screenreader=on|off` (or `1`/`0`, `true`/`false`).
pub fn plain_asked(query: Option<&str>) -> Plain {
    form_urlencoded::parse(query?.as_bytes())
        .find(|(k, _)| k == "screenreader")
        .and_then(|(_, v)| match v.as_ref() {
            "on" | "1" | "true" | "yes" => Some(true),
            "off" | "0" | "false" | "no" => Some(false),
            _ => None,
        })
}

/// Runs `f` with `agent` read as `plain` asks, as if they had set `@screenreader` for this one
/// call: the world task runs one call at a time, so nobody else sees the difference, and what
/// they had is put back (unless the call set it itself).
fn read_as<T>(
    w: &mut moot_kernel::world::World,
    agent: &AgentId,
    plain: Plain,
    f: impl FnOnce(&mut moot_kernel::world::World) -> T,
) -> T {
    let Some(plain) = plain.filter(|_| w.is_present(agent)) else {
        return f(w);
    };
    let had = std::mem::replace(&mut w.player_mut(agent).display.screenreader, plain);
    let out = f(w);
    if w.is_present(agent) && w.player(agent).display.screenreader == plain {
        w.player_mut(agent).display.screenreader = had;
    }
    out
}

/// Where a server finds the town.
#[derive(Clone)]
enum Reach {
    /// The world in this process: the server runs each tool's verb there itself.
    World {
        world: WorldHandle,
        store: Arc<Store>,
    },
    /// The world across the broker, on a host: each tool call, and each read of the world, is
    /// asked of the world's own server at the same address as a typed call
    /// ([`crate::cluster::calls::ToolCall`], [`McpRead`]).
    Host(Arc<Town>),
}

/// The MCP server. Cheap to clone: rmcp makes one per session and per stateless request.
#[derive(Clone)]
pub struct MootMcp {
    reach: Reach,
    /// The address it serves (`/mcp`, `/mcp/chess`): a host asks the world's server there.
    path: Arc<str>,
    /// The agent a stdio process plays; over HTTP each request says.
    fixed: Option<AgentId>,
    /// The sets of tools this address serves, and their tools.
    sets: Arc<Vec<Toolset>>,
    tools: Arc<Vec<(Toolset, Tool)>>,
    wait: Duration,
    /// Long polls waiting now, per agent, and how many one agent may have.
    polls: Arc<Polls>,
}

/// One step of a call: done (with a watch on the session when the answer is "not yet"), or
/// the agent must first be brought into the town (the arguments come back for the second
/// try, so that a call need not copy them for a case that is rare).
enum Step {
    Done(
        Result<Reply<Json>, VerbError>,
        Option<tokio::sync::watch::Receiver<u64>>,
    ),
    Absent(Value),
}

/// Runs the verb and, if its answer is "not yet", subscribes to the session's changes in the
/// same world call, so no change can slip in between.
fn attempt(
    w: &mut moot_kernel::world::World,
    cx: &mut moot_kernel::world::Cx,
    e: &'static VerbEntry,
    args: Value,
    first: bool,
) -> Step {
    // A long poll asks again each time its game moves: only the call itself is the agent's
    // doing (a watcher's idle time must not move with a game's hidden actions).
    if first {
        w.heard(&cx.actor, cx.now);
    }
    // Where a game holds the caller, its own verb of that name (the command set).
    let e = games::here(w, &cx.actor, e);
    let r = (e.run_json)(w, cx, args);
    if first && !cx.hidden {
        w.touch(&cx.actor, cx.now);
    }
    let watch = match &r {
        Err(VerbError {
            pending: Some(p), ..
        }) => Some(w.await_change(p.on.clone())),
        _ => None,
    };
    Step::Done(r, watch)
}

/// The MCP Apps page a result names (its `ui`, for `createGame`'s `showUi`).
fn ui_of(data: &serde_json::value::RawValue) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        ui: Option<String>,
    }
    serde_json::from_str::<Named>(data.get()).ok()?.ui
}

/// The MCP resource with `/skill.md`'s text.
pub const SKILL_URI: &str = "moot://skill.md";

/// How long a "not yet" waits before answering (30 seconds, as `waitForNextTurn` promises), and how often it tells
/// a client that gave a progress token that it is still waiting.
pub const WAIT: Duration = Duration::from_secs(30);
pub const PROGRESS_EVERY: Duration = Duration::from_secs(10);

impl MootMcp {
    /// The server of the tools in `sets` (the town's at the plain `/mcp`).
    pub fn new(
        world: WorldHandle,
        store: Arc<Store>,
        fixed: Option<AgentId>,
        sets: Vec<Toolset>,
    ) -> MootMcp {
        MootMcp {
            reach: Reach::World { world, store },
            path: "/mcp".into(),
            fixed,
            tools: Arc::new(tools(&sets)),
            sets: Arc::new(sets),
            wait: WAIT,
            polls: Arc::new(Polls::new(4)),
        }
    }

    /// The same server (its world, its limits, its count of waiting polls) serving `sets` at
    /// `path`.
    pub fn serving(&self, sets: Vec<Toolset>, path: &str) -> MootMcp {
        MootMcp {
            tools: Arc::new(tools(&sets)),
            sets: Arc::new(sets),
            path: path.into(),
            ..self.clone()
        }
    }

    /// The world and its store, where the world is in this process.
    fn world(&self) -> Result<(&WorldHandle, &Arc<Store>), McpError> {
        match &self.reach {
            Reach::World { world, store } => Ok((world, store)),
            Reach::Host(_) => Err(McpError::internal_error("the world is not here", None)),
        }
    }

    /// Whether `agent` is a wizard, as the database says now.
    async fn is_wizard(&self, agent: &AgentId, cx: &RequestContext<RoleServer>) -> bool {
        match &self.reach {
            Reach::World { store, .. } => wizard_in(store, agent).await,
            Reach::Host(_) => self
                .ask(cx, McpWhat::Wizard)
                .await
                .is_ok_and(|wizard: bool| wizard),
        }
    }

    /// Why there is no tool `name` here: where it is served, if it is served elsewhere.
    fn unknown_tool(&self, name: &str) -> String {
        match games::toolset_of(name) {
            Some(t) => format!(
                "the tool `{name}` is served at {} (the `{}` set), not here",
                games::toolset_path(&t),
                t.name
            ),
            None => format!("unknown tool `{name}`"),
        }
    }

    fn agent_of(&self, cx: &RequestContext<RoleServer>) -> Option<AgentId> {
        if let Some(a) = &self.fixed {
            return Some(a.clone());
        }
        caller(cx).map(|a| a.0.clone())
    }

    /// A game's MCP Apps page (`ui://chess/<id>`) as `agent` sees it, if there is one.
    async fn ui_page(
        &self,
        agent: &AgentId,
        uri: &str,
        cx: &RequestContext<RoleServer>,
    ) -> Result<Option<ResourceContents>, McpError> {
        let html = match &self.reach {
            Reach::World { .. } => self.page_html(agent, uri).await?,
            Reach::Host(_) => self.ask(cx, McpWhat::Page(uri.to_owned())).await?,
        };
        Ok(html.map(|html| {
            ResourceContents::text(html, uri)
                .with_mime_type(moot_kernel::verbs::game_module::APP_MIME)
        }))
    }

    /// The HTML of a game's MCP Apps page as `agent` sees it, if there is one.
    async fn page_html(&self, agent: &AgentId, uri: &str) -> Result<Option<String>, McpError> {
        let Some((app, which)) = games::ALL
            .iter()
            .filter_map(|m| m.app.as_ref())
            .find_map(|a| Some((a, uri.strip_prefix(a.prefix)?)))
        else {
            return Ok(None);
        };
        let (me, which) = (agent.clone(), which.to_owned());
        let (world, _) = self.world()?;
        world
            .call(agent.clone(), Face::Mcp, move |w, _| {
                (app.page)(w, &me, &which)
            })
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    /// The MCP Apps pages `agent` may open, as (URI, name).
    async fn pages(&self, agent: AgentId) -> Result<Vec<(String, String)>, McpError> {
        let (world, _) = self.world()?;
        world
            .call(agent.clone(), Face::Mcp, move |w, _| {
                let mut pages = Vec::new();
                for m in games::ALL {
                    if let Some(app) = &m.app {
                        for id in (app.listed)(w, &agent) {
                            pages.push((
                                format!("{}{id}", app.prefix),
                                format!("{} game #{id}", m.name),
                            ));
                        }
                    }
                }
                pages
            })
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))
    }

    /// How many long polls one agent may have waiting at once (0: no limit; 4 by default).
    pub fn with_poll_cap(mut self, max: usize) -> MootMcp {
        self.polls = Arc::new(Polls::new(max));
        self
    }

    /// How long "not yet" answers wait (30 s by default).
    pub fn with_wait(mut self, wait: Duration) -> MootMcp {
        self.wait = wait;
        self
    }

    /// One attempt at verb `e` for `agent`, bringing the agent into the town first if needed;
    /// `first` unless a long poll is asking again.
    async fn once(
        &self,
        agent: &AgentId,
        e: &'static VerbEntry,
        args: Value,
        first: bool,
        plain: Plain,
    ) -> Result<
        (
            Result<Reply<Json>, VerbError>,
            Option<tokio::sync::watch::Receiver<u64>>,
        ),
        McpError,
    > {
        let unavailable =
            |err: moot_kernel::world::Unavailable| McpError::internal_error(err.to_string(), None);
        let (world, store) = self.world()?;
        // A bug met on the way is the tool's answer (`isError`), like any refusal: the call
        // changed nothing, and the agent may go on.
        let bug = || Ok((Err(VerbError::internal()), None));
        let step = match world
            .call(agent.clone(), Face::Mcp, move |w, cx| {
                if w.is_present(&cx.actor) {
                    let who = cx.actor.clone();
                    read_as(w, &who, plain, |w| attempt(w, cx, e, args, first))
                } else {
                    Step::Absent(args)
                }
            })
            .await
        {
            Err(moot_kernel::world::Unavailable::Internal) => return bug(),
            step => step.map_err(unavailable)?,
        };
        let step = match step {
            Step::Absent(args) => {
                let row = store
                    .agent_by_id(agent)
                    .await
                    .map_err(|err| {
                        tracing::error!(%err, "cannot look up an agent");
                        unavailable(moot_kernel::world::Unavailable::Storage)
                    })?
                    .ok_or_else(|| McpError::invalid_request("unknown agent", None))?;
                match world
                    .call(agent.clone(), Face::Mcp, move |w, cx| {
                        w.arrive_agent(cx, row);
                        let who = cx.actor.clone();
                        read_as(w, &who, plain, |w| attempt(w, cx, e, args, first))
                    })
                    .await
                {
                    Err(moot_kernel::world::Unavailable::Internal) => return bug(),
                    step => step.map_err(unavailable)?,
                }
            }
            done => done,
        };
        match step {
            Step::Done(r, watch) => Ok((r, watch)),
            // The agent was just brought in; were it not, that is a bug, not the caller's fault.
            Step::Absent(_) => bug(),
        }
    }

    /// Runs verb `e` for `agent`. A "not yet" answer (waitForNextTurn) waits for the session to
    /// change and asks again, up to the wait; on timeout or cancellation it answers with the
    /// verb's own timeout text. Nothing is changed by waiting, so calling again is always safe.
    pub async fn run(
        &self,
        agent: AgentId,
        e: &'static VerbEntry,
        args: Value,
        cx: Option<&RequestContext<RoleServer>>,
        plain: Plain,
    ) -> Result<Answer, McpError> {
        let started = tokio::time::Instant::now();
        let deadline = started + self.wait;
        let progress = cx.and_then(|c| c.meta.get_progress_token());
        let mut ticks = 0u32;
        let mut first = true;
        loop {
            let (r, watch) = self.once(&agent, e, args.clone(), first, plain).await?;
            first = false;
            let (
                Err(VerbError {
                    pending: Some(p),
                    message,
                    ..
                }),
                Some(mut watch),
            ) = (&r, watch)
            else {
                return Ok(result(r, e.tool.definition.is_some()));
            };
            // The caller may ask to wait less than the face would.
            let deadline = p.wait.map_or(deadline, |w| deadline.min(started + w));
            let timed_out = || Answer::success(message.clone(), translate::json_of(&p.data));
            let Some(_slot) = self.polls.enter(&agent) else {
                let message = format!(
                    "You already have {} calls waiting for a game to move; let them answer first.",
                    self.polls.max
                );
                // For a spec's tool: RATE_LIMITED, worth retrying once a wait has answered.
                let mut busy = VerbError::refused(message);
                busy.code = Some(moot_kernel::game_api::Code::RateLimited);
                return Ok(result(Err(busy), e.tool.definition.is_some()));
            };
            loop {
                // Progress comes every ten seconds from the call's start, whatever woke the
                // wait meanwhile (a change hidden from the caller must not shift it).
                let next_progress =
                    tokio::time::sleep_until(started + PROGRESS_EVERY * (ticks + 1));
                tokio::select! {
                    changed = watch.changed() => {
                        if changed.is_err() {
                            return Ok(timed_out());
                        }
                        break;
                    }
                    _ = tokio::time::sleep_until(deadline) => return Ok(timed_out()),
                    _ = async { match cx { Some(c) => c.ct.cancelled().await, None => std::future::pending().await } } => {
                        return Ok(timed_out());
                    }
                    _ = next_progress => {
                        ticks += 1;
                        if let (Some(token), Some(c)) = (progress.clone(), cx) {
                            let note = rmcp::model::ProgressNotificationParam::new(token, f64::from(ticks))
                                .with_message("still waiting for your opponent");
                            let _ = c.peer.notify_progress(note).await;
                        }
                    }
                }
            }
        }
    }

    /// Calls tool `name` for `agent`: what rmcp's `tools/call` does, and what HTTP's direct
    /// path does for the plain stateless call without rmcp (`cx` is rmcp's request, for
    /// progress and cancellation; the direct path has neither).
    pub async fn call(
        &self,
        agent: AgentId,
        name: &str,
        arguments: Option<JsonObject>,
        cx: Option<&RequestContext<RoleServer>>,
        plain: Plain,
    ) -> Result<Answer, McpError> {
        let entry = games::find_tool(name, &self.sets)
            .ok_or_else(|| McpError::invalid_params(self.unknown_tool(name), None))?;
        let args = Value::Object(arguments.unwrap_or_default());
        // `@screenreader` itself sets what is kept, which a request's asking must not undo.
        let plain = plain.filter(|_| entry.name != "screenreader");
        let mut out = self.run(agent.clone(), entry, args, cx, plain).await?;
        // A result that names a UI resource (chess's `showUi`) carries it, for MCP Apps hosts
        // (`_meta.ui.resourceUri`) and for hosts that show embedded resources.
        let ui = if games::may_name_a_page(entry) {
            out.structured_content.as_deref().and_then(ui_of)
        } else {
            None
        };
        let page = match (ui, &self.reach) {
            (Some(uri), Reach::World { .. }) => {
                self.page_html(&agent, &uri).await?.map(|html| (uri, html))
            }
            _ => None,
        };
        if let Some((uri, html)) = page {
            let page = ResourceContents::text(html, &uri)
                .with_mime_type(moot_kernel::verbs::game_module::APP_MIME);
            out.content.push(ContentBlock::resource(page));
            let mut meta = JsonObject::new();
            meta.insert("ui".into(), serde_json::json!({ "resourceUri": uri }));
            out.meta = Some(MetaObject(meta));
        }
        Ok(out)
    }
}

/// Whether `agent` is a wizard, as the database says now.
async fn wizard_in(store: &Store, agent: &AgentId) -> bool {
    matches!(store.agent_by_id(agent).await, Ok(Some(row)) if row.wizard)
}

/// Who the request acts for, as the bearer check put it in the request (see [`McpAgent`]).
fn caller(cx: &RequestContext<RoleServer>) -> Option<&McpAgent> {
    cx.extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.extensions.get::<McpAgent>())
}

impl ServerHandler for MootMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("moot", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "moot is a MOO-style town shared with people on telnet. You are a character in it: \
                 `look` to see where you are, `say` to talk, `go` to walk, `events` to hear what \
                 happened around you, `help` for everything else.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        // The wizards' tools are listed to wizards only (the verbs refuse anyone else too).
        let wizard = if self.sets.iter().any(|t| t.wizards_only) {
            match self.agent_of(&cx) {
                Some(agent) => self.is_wizard(&agent, &cx).await,
                None => false,
            }
        } else {
            false
        };
        let tools = self
            .tools
            .iter()
            .filter(|(set, _)| wizard || !set.wizards_only)
            .map(|(_, tool)| tool.clone())
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let agent = self
            .agent_of(&cx)
            .ok_or_else(|| McpError::invalid_request("no identity: send a bearer token", None))?;
        if let Reach::Host(town) = &self.reach {
            return self.call_across(town, request, &cx).await;
        }
        let plain = caller(&cx).and_then(|a| a.2);
        self.call(agent, &request.name, request.arguments, Some(&cx), plain)
            .await
            .map(|answer| answer.into_rmcp().into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        cx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let Some(agent) = self.agent_of(&cx) else {
            return Ok(ListResourcesResult::default());
        };
        let pages: Vec<(String, String)> = match &self.reach {
            Reach::World { .. } => self.pages(agent).await?,
            Reach::Host(_) => self.ask(&cx, McpWhat::Pages).await?,
        };
        let mut resources: Vec<Resource> = pages
            .into_iter()
            .map(|(uri, name)| {
                let mut r = Resource::new(uri, name);
                r.mime_type = Some(moot_kernel::verbs::game_module::APP_MIME.into());
                r
            })
            .collect();
        // The page an agent reads first, as /skill.md serves it.
        let mut skill = Resource::new(SKILL_URI, "skill");
        skill.title = Some("How to play in moot".into());
        skill.description = Some(
            "What moot is, how to get a token, which address serves which tools, how to wait \
             instead of polling, and how to play each game."
                .into(),
        );
        skill.mime_type = Some("text/markdown".into());
        resources.push(skill);
        // The games' documents (Werewolf's rules and role cards), for everyone.
        for d in games::documents() {
            let mut r = Resource::new(d.uri, d.name);
            r.title = Some(d.title);
            r.description = Some(d.description);
            r.mime_type = Some("text/plain".into());
            resources.push(r);
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        cx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let agent = self
            .agent_of(&cx)
            .ok_or_else(|| McpError::invalid_request("no identity", None))?;
        if request.uri == SKILL_URI {
            // The addresses as paths: the client knows where it connected.
            let text = ResourceContents::text(games::skill::skill_md(""), SKILL_URI);
            return Ok(ReadResourceResult::new(vec![text]).into());
        }
        if let Some(d) = games::documents()
            .into_iter()
            .find(|d| d.uri == request.uri)
        {
            let text = ResourceContents::text(d.text, d.uri);
            return Ok(ReadResourceResult::new(vec![text]).into());
        }
        match self.ui_page(&agent, &request.uri, &cx).await? {
            Some(page) => Ok(ReadResourceResult::new(vec![page]).into()),
            None => Err(McpError::resource_not_found(
                format!("no resource {}", request.uri),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _cx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let prompts = games::documents()
            .into_iter()
            .map(|d| {
                let mut p = Prompt::new(d.name, Some(d.description), None);
                p.title = Some(d.title);
                p
            })
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _cx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let d = games::documents()
            .into_iter()
            .find(|d| d.name == request.name)
            .ok_or_else(|| McpError::invalid_params(format!("no prompt {}", request.name), None))?;
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, d.text)])
                .with_description(d.description)
                .into(),
        )
    }
}
