//! The thirteen Werewolf tools, served exactly as their original definitions write them
//! (`seed_tools.json`, kept verbatim beside this file, a copy in `tests/data`) except where a
//! definition has a defect. The defects and moot's fixes, numbered as the code and tests name them:
//!
//! 1. Error results could not conform (every success field required, no extra properties): only
//!    `ok`, `serverTime` and `error` are required, the success fields stay, optional.
//! 2. Results must be readable as text: the text content carries the structured JSON too.
//! 3. Dotted names are legal MCP, though some model APIs take only `[a-zA-Z0-9_-]`: the names
//!    are kept as written.
//! 4. The eighth joiner is matched at once: the queue's `position` and estimate may be null, and
//!    `MATCHED` is a status.
//! 5. Input that fails the schema is an `isError` result a model can read, not a JSON-RPC error.
//! 6. Refusals carry stable codes (`WRONG_PHASE`, `RATE_LIMITED` with `retryAfterMs`, …).
//! 7. The night tools say they are not destructive, so hosts do not ask a person to confirm
//!    every kill.
//! 8. Events: WOLVES visibility beside PUBLIC and PRIVATE, every type the match uses, paging
//!    (`nextCursor`, `hasMore`, `INVALID_CURSOR`).
//! 9. `get_state`: `phaseEndsAt` null once ENDED, one encoding of "nothing to do", and
//!    `canAbstain` and a deadline on `requiredAction`.
//! 10. `say_public`: the kind follows the phase; `replyToEventId` names a public event of the
//!     same match.
//! 11. Idempotency keys are scoped (identity, tool, key) for the match's life; the same key
//!     with other arguments is `IDEMPOTENCY_KEY_REUSED`, not the old result.
//! 12. Rate limits are per identity, not per connection.
//! 13. Agents need not spin: `events.get` may wait (a long poll), and the rules and role cards
//!     are MCP prompts and resources.
//!
//! Fixes 1, 4, 7, 8 and 9 change the definitions: each is one function below, applied at
//! start-up; the others are in the code that answers. A test compares `tools/list` with the
//! original field by field and admits only these differences.

use std::sync::LazyLock;

use serde_json::{Map, Value, json};

/// The original tool list, byte for byte.
pub const SEED: &str = include_str!("seed_tools.json");

/// Every tool, fixed.
#[expect(
    clippy::expect_used,
    reason = "the original JSON is built in, and a test reads it"
)]
static CATALOG: LazyLock<Vec<Value>> = LazyLock::new(|| {
    let mut tools: Vec<Value> = serde_json::from_str(SEED).expect("the original tools parse");
    for t in &mut tools {
        errors_can_conform(t);
        queue_position_nullable(t);
        night_tools_not_destructive(t);
        events_paging_and_visibility(t);
        state_nothing_to_do_once(t);
    }
    tools
});

/// The fixed definition of the tool called `name`.
/// The Werewolf tool defined as `name`: its name written here once, its object from the
/// original list.
pub const fn seed(name: &'static str) -> moot_kernel::verbs::ToolSpec {
    moot_kernel::verbs::ToolSpec {
        name: Some(name),
        definition: Some(definition),
        ..moot_kernel::verbs::ToolSpec::GENERATED
    }
}

pub fn definition(name: &str) -> Value {
    CATALOG
        .iter()
        .find(|t| t["name"] == name)
        .cloned()
        .unwrap_or_else(|| panic!("the Werewolf tool list has no tool {name}"))
}

#[expect(
    clippy::expect_used,
    reason = "only the built-in list's object schemas come here, and a test reads them all"
)]
fn props(schema: &mut Value) -> &mut Map<String, Value> {
    schema["properties"]
        .as_object_mut()
        .expect("an object schema")
}

/// Fix 1: an error result is `{ok: false, serverTime, error}`, which the original output schemas
/// (every success field required) would reject: only `ok`, `serverTime` and `error` are
/// required; the success fields stay, optional.
fn errors_can_conform(t: &mut Value) {
    t["outputSchema"]["required"] = json!(["ok", "serverTime", "error"]);
}

/// Fix 4: the eighth joiner is matched at once, so `position` may be null, `MATCHED` is a
/// status, and the estimate may be unknown.
fn queue_position_nullable(t: &mut Value) {
    if !matches!(
        t["name"].as_str(),
        Some("et.werewolf.queue.join" | "et.werewolf.queue.status")
    ) {
        return;
    }
    let queue = &mut props(&mut t["outputSchema"])["queue"];
    let q = props(queue);
    q["position"]["type"] = json!(["integer", "null"]);
    q["status"]["enum"] = json!(["WAITING", "STARTING", "MATCHED"]);
    q["estimatedStartSeconds"]["type"] = json!(["integer", "null"]);
}

/// Fix 7: the night tools say they are not destructive (MCP's default is destructive, and some
/// hosts ask a person to confirm every destructive call), and which of them may be repeated.
fn night_tools_not_destructive(t: &mut Value) {
    let idempotent = match t["name"].as_str() {
        Some("et.werewolf.match.night.wolf_kill")
        | Some("et.werewolf.match.night.seer_inspect")
        | Some("et.werewolf.match.night.doctor_protect") => true,
        Some("et.werewolf.match.night.wolf_chat") => false,
        _ => return,
    };
    let a = &mut t["annotations"];
    a["destructiveHint"] = json!(false);
    a["idempotentHint"] = json!(idempotent);
}

/// Fix 8: events are PUBLIC, PRIVATE or WOLVES; the types the match uses besides the original
/// nine are listed; pages carry `nextCursor` and `hasMore`; and a caller may wait for the next
/// event instead of asking again (fix 13's long poll).
fn events_paging_and_visibility(t: &mut Value) {
    if t["name"] != "et.werewolf.match.events.get" {
        return;
    }
    let input = props(&mut t["inputSchema"]);
    input.insert(
        "waitSeconds".into(),
        json!({
            "type": "integer", "minimum": 0, "maximum": 30, "default": 0,
            "description": "If no event follows the cursor yet, wait up to this long for one (a long poll)."
        }),
    );
    let out = props(&mut t["outputSchema"]);
    let item = &mut out["events"]["items"];
    let ip = props(item);
    ip["visibility"]["enum"] = json!(["PUBLIC", "PRIVATE", "WOLVES"]);
    ip["type"]["enum"] = json!(
        super::rules::events::Kind::ALL
            .iter()
            .map(|k| k.name())
            .collect::<Vec<_>>()
    );
    ip.insert(
        "source".into(),
        json!({ "type": "string", "description": "NARRATOR for the Town Crier and the server, else the playerId who caused it." }),
    );
    out.insert(
        "nextCursor".into(),
        json!({ "type": ["string", "null"], "description": "Pass as afterEventId to read on." }),
    );
    out.insert("hasMore".into(), json!({ "type": "boolean" }));
}

/// Fix 9: `phaseEndsAt` is null once the match has ENDED; "nothing to do" is always a
/// `requiredAction` of type NONE (never null), which also says whether one may abstain and by
/// when.
fn state_nothing_to_do_once(t: &mut Value) {
    if t["name"] != "et.werewolf.match.get_state" {
        return;
    }
    let state = &mut props(&mut t["outputSchema"])["state"];
    let sp = props(state);
    sp["phaseEndsAt"]["type"] = json!(["string", "null"]);
    let you = &mut sp["you"];
    let req = &mut props(you)["requiredAction"];
    req["type"] = json!("object");
    let rp = props(req);
    rp.insert("canAbstain".into(), json!({ "type": "boolean" }));
    rp.insert(
        "deadline".into(),
        json!({ "type": ["string", "null"], "description": "ISO 8601: when this action is due." }),
    );
}
