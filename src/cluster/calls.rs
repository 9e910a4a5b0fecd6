//! Verbs called by name: how a face that holds no connection of the world's (the REST API
//! today) reaches the town, in this process or across the broker, as the same typed messages.
//!
//! A face reads a request (its route, its path, its body within its bounds) and hands the town
//! a [`VerbCall`]: the caller's credential as the request carried it, the face, the verb's name
//! and its arguments as the verb's JSON. The town vouches for the credential (only it holds the
//! tokens), runs the verb through the registry, as an MCP tool or a typed line runs, and answers
//! with the verb's structured result or its refusal ([`Called`]). So a host can serve a new face
//! by translating its requests into calls, and the world learns nothing of HTTP.
//!
//! What the HTTP faces need from the world, and how each reaches it now:
//!
//! - the REST API's session routes (`/sessions…`) and the reads the town and the games add
//!   (`/ratings/{name}`, `/leaderboards/{game}`, a chess game's PGN, a Werewolf match's
//!   report): verbs by name, typed ([`VerbCall`]; a public read as [`Credential::Nobody`]);
//! - MCP's plain tool calls (2026-07-28, stateless: what agents send all the time, long polls
//!   such as `waitForNextTurn` among them): typed too ([`ToolCall`]), answered in the world by
//!   the MCP endpoint's own server, which runs the tool's verb by name and waits where a verb
//!   says "not yet";
//! - the games' pages and downloads (`/chess/7`, `/chess/7.pgn`): typed ([`PageRead`]);
//! - `POST /agents` and `/metrics`: typed ([`super::agents`], [`super::metrics`]);
//! - `/health` and `/openapi.json`: answered by whoever holds the socket, asking nothing;
//! - what an MCP server on a host reads of the world's (whether the caller is a wizard, the MCP
//!   Apps pages): typed ([`McpRead`]); MCP's sessions of the 2025 revision are the host's own;
//! - the web's pages (the town map and its live stream, a game's frames, sign-in and OAuth, the
//!   pages' buttons, the ratings pages): typed questions of their own ([`super::visits`]).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use moot_kernel::identity::Directory;
use moot_kernel::verbs::{ErrorKind, VerbError};
use moot_kernel::world::sessions::ErrorCode;
use moot_kernel::world::{Face, Unavailable};

/// Whether a request asks for its answers' text as a screen reader reads it (`?screenreader=on`
/// or `off` on the address), whatever the agent's stored `@screenreader`; `None` keeps theirs.
pub type Plain = Option<bool>;

/// Who a request says sends it: its `Authorization` header as the face read it. The face reads
/// only its shape; which tokens are good only the town knows (a host holds no directory).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Credential {
    /// No `Authorization` header.
    Missing,
    /// One that is not `Bearer <token>`.
    Malformed,
    Bearer(String),
    /// None asked for: a read anyone may make (`GET /ratings/{name}`), asked as nobody, as
    /// the web's pages are. It vouches for nobody, and calls only verbs that change nothing.
    Nobody,
}

/// Whose `credential` is, as every face checks it; a refusal, in words for the caller, is
/// counted and logged where the town is.
pub fn vouch(directory: &Directory, credential: &Credential) -> Result<String, String> {
    let refused = |why: &str| {
        moot_kernel::metrics::get()
            .unauthorized
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::info!(target: moot_kernel::logging::AUDIT, event = "unauthorized", reason = why);
        Err(why.to_owned())
    };
    match credential {
        Credential::Missing => refused("Missing token: send Authorization: Bearer <token>"),
        Credential::Malformed => refused("The Authorization header must be `Bearer <token>`"),
        Credential::Bearer(token) => match directory.authenticate(token.trim()) {
            Some(agent) => Ok(agent),
            None => refused("Invalid token"),
        },
        Credential::Nobody => refused("Missing token: send Authorization: Bearer <token>"),
    }
}

/// Who calls a verb: whoever `credential` vouches for, or nobody for a verb that changes
/// nothing (a public read).
pub(super) fn caller(
    directory: &Directory,
    credential: &Credential,
    read_only: bool,
) -> Result<String, String> {
    match credential {
        Credential::Nobody if read_only => Ok(String::new()),
        credential => vouch(directory, credential),
    }
}

/// A verb called by name, by whoever `credential` vouches for, through `face`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct VerbCall {
    pub credential: Credential,
    pub face: Face,
    /// The verb's name in the registry.
    pub verb: String,
    /// Its arguments as the verb's JSON (an MCP tool's), a game action's `reasoning` among
    /// them; already read and cleaned by the face, which answers bad input itself.
    pub args: serde_json::Value,
    /// For a verb that only reads, the tag of the answer its host keeps, as a
    /// [`ToolCall`]'s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<u64>,
}

/// The verb's structured result, as the verb wrote it (a face passes it on as it is), or why
/// it did nothing. Only the result crosses: the faces that call verbs by name read no text.
pub type Called = Result<Box<RawValue>, CallRefused>;

/// Why a verb called by name did nothing.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum CallRefused {
    /// The credential vouches for nobody (the words say why).
    Unvouched(String),
    /// The registry has no verb of that name.
    NoSuchVerb(String),
    /// The verb's own refusal.
    Verb(Refusal),
    /// The world could not do it: stopping, its database, a bug (undone).
    Unavailable(Unavailable),
    /// No world answered: nothing was done, and it may be tried again in a moment.
    Away,
    /// A world took it and stopped before answering: whether it was done nobody can say.
    Unknown,
    /// The call is larger than the broker carries in a message (this many bytes).
    TooLarge(usize),
    /// An MCP tool call's error, as the MCP endpoint gives it (an unknown tool, say).
    Tool(rmcp::ErrorData),
}

/// A game's page or one of its downloads (`/chess/7`, `/chess/7.pgn`), as anyone may read it:
/// named by the path its module declares, not by HTTP, so that a host serves the pages and the
/// world only reads the game.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PageRead {
    /// The page's path as its module declares it (`/chess/{session_id}`).
    pub page: String,
    /// The download's suffix (`.pgn`), or none for the page itself.
    pub download: Option<String>,
    /// The game's id, as the path gave it.
    pub id: String,
}

/// A plain MCP tool call a host read (the 2026-07-28 revision's stateless `tools/call`), for
/// the world to answer as its MCP endpoint at `path` answers one: the long polls among them
/// wait in the world, beside the sessions they wait on.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolCall {
    pub credential: Credential,
    /// The address it was sent to (`/mcp`, `/mcp/chess`): which tools it may call.
    pub path: String,
    pub name: String,
    pub arguments: Option<serde_json::Map<String, serde_json::Value>>,
    /// The host's number for it, to take it back if its client leaves.
    pub id: u64,
    /// How its answer's text is to read (the address's `?screenreader=`).
    #[serde(default)]
    pub plain: Plain,
    /// For a tool that only reads: the tag of this same call's answer its host keeps (see
    /// `host::kept`). If the world's answer is that one again it says so
    /// ([`super::wire::Answer::Unchanged`]) rather than send it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<u64>,
}

/// What an MCP server on a host asks the world's server at the same address besides a tool
/// call, for whoever `credential` is.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct McpRead {
    pub credential: Credential,
    /// The address (`/mcp`, `/mcp/chess`).
    pub path: String,
    pub what: McpWhat,
}

/// What an [`McpRead`] asks.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum McpWhat {
    /// Whether the caller is a wizard (the wizards' tools are listed to wizards only): a bool.
    Wizard,
    /// The MCP Apps pages the caller may open: (URI, name) pairs.
    Pages,
    /// One MCP Apps page's HTML as the caller sees it, or `null`.
    Page(String),
}

/// What a host's MCP server asks of the world's.
pub enum McpAsk {
    Tool(ToolCall),
    Read(McpRead),
}

/// How the world's MCP endpoint answers an [`McpAsk`] (for the agent the town vouched for):
/// a tool's answer as the JSON of MCP's `CallToolResult`, a read's as [`McpWhat`] says, or the
/// endpoint's error. The faces give it to the world process.
pub type Tools = std::sync::Arc<
    dyn Fn(
            moot_kernel::world::AgentId,
            McpAsk,
        )
            -> futures_util::future::BoxFuture<'static, Result<Box<RawValue>, rmcp::ErrorData>>
        + Send
        + Sync,
>;

/// A verb's refusal as it crosses the broker: [`VerbError`] but for a "not yet", which only
/// MCP's answers read (no face that calls verbs by name waits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub kind: ErrorKind,
    /// The rules' or the host's stable code (the REST reads answer `MATCH_NOT_FOUND` as 404).
    pub code: Option<moot_kernel::game_api::Code>,
    pub message: String,
    pub data: Option<serde_json::Value>,
    pub retry_after: Option<std::time::Duration>,
    pub host: Option<ErrorCode>,
}

impl From<VerbError> for Refusal {
    fn from(e: VerbError) -> Refusal {
        Refusal {
            kind: e.kind,
            code: e.code,
            message: e.message,
            data: e.data,
            retry_after: e.retry_after,
            host: e.host,
        }
    }
}

impl From<Refusal> for VerbError {
    fn from(r: Refusal) -> VerbError {
        let mut e = VerbError::usage(r.message);
        e.kind = r.kind;
        e.code = r.code;
        e.data = r.data;
        e.retry_after = r.retry_after;
        e.host = r.host;
        e
    }
}

/// A refusal with the REST API's own code (a call that is no verb's: making an agent, the
/// metrics).
pub(super) fn refused_as(code: ErrorCode, message: impl Into<String>) -> CallRefused {
    let mut e = VerbError::refused(message);
    e.host = Some(code);
    CallRefused::Verb(e.into())
}

/// `value` as the JSON a call answers with.
pub(super) fn written<T: Serialize>(value: &T) -> Called {
    serde_json::value::to_raw_value(value)
        .map_err(|_| CallRefused::Unavailable(Unavailable::Internal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nobody_may_only_read() {
        let directory = Directory::new(Vec::new());
        assert_eq!(
            caller(&directory, &Credential::Nobody, true),
            Ok(String::new())
        );
        let refused = Err("Missing token: send Authorization: Bearer <token>".to_owned());
        assert_eq!(caller(&directory, &Credential::Nobody, false), refused);
        // A tool call is vouched for as a whole: nobody calls no tool.
        assert_eq!(vouch(&directory, &Credential::Nobody), refused);
        assert_eq!(
            caller(&directory, &Credential::Bearer("moot_x_y".into()), true),
            Err("Invalid token".to_owned())
        );
    }

    #[test]
    fn a_call_and_its_answers_cross_the_broker_unchanged() {
        let call = VerbCall {
            credential: Credential::Bearer("moot_a_b".into()),
            face: Face::Rest,
            verb: "session_act".into(),
            args: serde_json::json!({"session_id": "s1", "action": "e4", "reasoning": "why"}),
            held: None,
        };
        let back: VerbCall = serde_json::from_slice(&serde_json::to_vec(&call).unwrap()).unwrap();
        assert_eq!(back.credential, call.credential);
        assert_eq!(
            (back.face, back.verb, back.args),
            (call.face, call.verb, call.args)
        );

        let done: Called = Ok(RawValue::from_string(r#"{"tick":3,"ok":true}"#.into()).unwrap());
        let back: Called = serde_json::from_slice(&serde_json::to_vec(&done).unwrap()).unwrap();
        assert_eq!(back.unwrap().get(), r#"{"tick":3,"ok":true}"#);

        let mut refused = VerbError::refused("Not your turn.");
        refused.host = Some(ErrorCode::InvalidAction);
        refused.retry_after = Some(std::time::Duration::from_millis(1500));
        let crossed: Called = Err(CallRefused::Verb(refused.clone().into()));
        let back: Called = serde_json::from_slice(&serde_json::to_vec(&crossed).unwrap()).unwrap();
        let Err(CallRefused::Verb(r)) = back else {
            panic!("{back:?}")
        };
        assert_eq!(VerbError::from(r), refused);
    }
}
