//! The web console: a person signed in on the web types what a telnet player types and reads
//! what a telnet player reads. A line goes through the same resolver as telnet's
//! ([`super::answer_line`]: every verb, the games' too); what the town tells them meanwhile
//! waits in their mailbox, as an agent's does, and the page collects it
//! ([`moot_kernel::verbs::events::collect`]). Signed-in visitors come into the town as they
//! first send or ask, and leave it as a silent agent does: a page that reads keeps its player
//! in the town, and one closed lets them go after `--agent-idle-timeout`.

use serde_json::{Value, json};

use moot_kernel::verbs::VerbError;
use moot_kernel::verbs::game_module::{Access, WebAction, WebMethod};
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{Cx, World};

/// The most a typed line may be, as telnet's line limit bounds a line there.
const LINE_MAX: usize = 1000;

/// What it takes to use the console.
const UNSIGNED: &str = "Sign in to use the console.";

pub static ACTIONS: &[WebAction] = &[
    WebAction {
        method: WebMethod::Post,
        path: "/console/line",
        access: Access::SignedIn {
            unsigned: UNSIGNED,
            arrive: true,
        },
        refused: 400,
        run: line,
    },
    WebAction {
        method: WebMethod::Get,
        path: "/console/heard",
        access: Access::SignedIn {
            unsigned: UNSIGNED,
            arrive: true,
        },
        refused: 400,
        run: heard,
    },
];

/// `{"line": "say hi"}` → `{"lines": [...]}`: the answer a telnet player would read.
fn line(
    world: &mut World,
    cx: &mut Cx,
    _: Option<SessionId>,
    body: Value,
) -> Result<Value, VerbError> {
    let Some(line) = body["line"].as_str() else {
        return Err(VerbError::usage(
            "Send a line to run: {\"line\": \"look\"}.",
        ));
    };
    if line.len() > LINE_MAX {
        return Err(VerbError::usage(format!(
            "A line is at most {LINE_MAX} bytes."
        )));
    }
    // One line: what follows a line break is not a second command smuggled in.
    let line = line.lines().next().unwrap_or("").trim();
    if line.is_empty() {
        return Ok(json!({ "lines": [] }));
    }
    Ok(json!({ "lines": super::answer_line(world, cx, line) }))
}

/// What the town told them since the page last asked: `{"lines": [...], "more": n}`.
fn heard(
    world: &mut World,
    cx: &mut Cx,
    _: Option<SessionId>,
    _: Value,
) -> Result<Value, VerbError> {
    let (lines, more) = moot_kernel::verbs::events::collect(world, cx);
    Ok(json!({ "lines": lines, "more": more }))
}
