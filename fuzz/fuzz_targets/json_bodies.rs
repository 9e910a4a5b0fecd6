//! The JSON bodies of REST and MCP: the MCP gate's JSON-RPC check, and every REST body as the
//! extractor reads it (cleaned, bounded, then typed), never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moot::http::{CreateAgent, SubmitAction, check_envelope};
use moot::verbs::sessions::CreateArgs;

fuzz_target!(|data: &[u8]| {
    let _ = check_envelope(data);
    let Ok(mut v) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    if moot::text::clean_json(&mut v).is_err() {
        return;
    }
    let _ = serde_json::from_value::<CreateArgs>(v.clone());
    let _ = serde_json::from_value::<SubmitAction>(v.clone());
    let _ = serde_json::from_value::<CreateAgent>(v);
});
