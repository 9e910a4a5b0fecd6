//! Which verbs refused whom, for the tests that drive every verb into its refusals through a
//! live town's faces (built only with the `testing` feature). A telnet line's answer is text
//! either way; this says whether the verb refused it, and which verb did. Kept by actor, so
//! that tests running side by side in one process read only their own.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use crate::world::Face;

/// One refusal: the verb that gave it, the face it came through, and what it said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub verb: &'static str,
    pub face: Face,
    pub message: String,
}

static REFUSED: Mutex<Option<HashMap<String, Vec<Refusal>>>> = Mutex::new(None);

/// Notes that `verb` refused `actor` on `face`.
pub fn note(actor: &str, verb: &'static str, face: Face, message: &str) {
    let mut map = REFUSED.lock().unwrap_or_else(PoisonError::into_inner);
    map.get_or_insert_with(HashMap::new)
        .entry(actor.to_owned())
        .or_default()
        .push(Refusal {
            verb,
            face,
            message: message.to_owned(),
        });
}

/// The refusals `actor` has met since this was last asked, oldest first.
pub fn take(actor: &str) -> Vec<Refusal> {
    let mut map = REFUSED.lock().unwrap_or_else(PoisonError::into_inner);
    map.as_mut()
        .and_then(|m| m.remove(actor))
        .unwrap_or_default()
}
