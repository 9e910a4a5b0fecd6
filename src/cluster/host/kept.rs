//! A host's copies of the answers to tool calls and verbs that only read, each under its exact call, so
//! that the world, asked the same again, need only say the answer is unchanged.
//!
//! The world still answers every call (it runs the verb, counts the caller active, applies its
//! limits): only the bytes of an answer the host already holds stay home. An agent polling
//! `look` in a room of a hundred is otherwise sent four kilobytes each time, and the broker's
//! CPU follows the bytes. A copy is found only under the same credential, address, tool,
//! arguments and reading, and given only when the world says its tag is the one it would send,
//! so no caller is ever given what the world would not answer it now.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::value::RawValue;

use crate::cluster::calls::{Credential, ToolCall, VerbCall};

/// The most one copy holds; a larger answer is not kept.
const LARGEST: usize = 64 * 1024;
/// The most all copies hold, keys included; past it they are all let go.
const MOST: usize = 16 * 1024 * 1024;

/// The call an answer is kept under: everything in it but the host's number for it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct Key {
    credential: Credential,
    /// A tool's address (`/mcp`), or the face a verb is called through.
    place: String,
    name: String,
    arguments: String,
    plain: crate::cluster::calls::Plain,
}

impl Key {
    pub(super) fn of_tool(call: &ToolCall) -> Key {
        Key {
            credential: call.credential.clone(),
            place: call.path.clone(),
            name: call.name.clone(),
            arguments: call.arguments.as_ref().map_or_else(String::new, |a| {
                serde_json::Value::Object(a.clone()).to_string()
            }),
            plain: call.plain,
        }
    }

    pub(super) fn of_verb(call: &VerbCall) -> Key {
        Key {
            credential: call.credential.clone(),
            place: format!("{:?}", call.face),
            name: call.verb.clone(),
            arguments: call.args.to_string(),
            plain: None,
        }
    }

    fn size(&self) -> usize {
        let credential = match &self.credential {
            Credential::Bearer(token) => token.len(),
            _ => 0,
        };
        // The table's slot and the strings' own allocations, besides their text.
        credential + self.place.len() + self.name.len() + self.arguments.len() + 256
    }
}

/// The copies, and the bytes they hold.
#[derive(Default)]
pub(super) struct Kept {
    copies: Mutex<Copies>,
}

#[derive(Default)]
struct Copies {
    by_call: HashMap<Key, (u64, Box<RawValue>)>,
    bytes: usize,
}

impl Kept {
    /// The tag of the copy kept for `key`, to ask with.
    pub(super) fn tag(&self, key: &Key) -> Option<u64> {
        self.lock().by_call.get(key).map(|(tag, _)| *tag)
    }

    /// The copy kept for `key`, if its tag is still `tag`.
    pub(super) fn get(&self, key: &Key, tag: u64) -> Option<Box<RawValue>> {
        let copies = self.lock();
        let (kept, answer) = copies.by_call.get(key)?;
        (*kept == tag).then(|| answer.clone())
    }

    /// Keeps `answer`, tagged `tag`, for `key` (in place of what was kept for it).
    pub(super) fn keep(&self, key: &Key, tag: u64, answer: &RawValue) {
        let size = answer.get().len() + key.size();
        if answer.get().len() > LARGEST {
            return;
        }
        let mut copies = self.lock();
        if copies.bytes + size > MOST {
            // A new table: a cleared one keeps its capacity.
            copies.by_call = HashMap::new();
            copies.bytes = 0;
        }
        let copy = (tag, answer.to_owned());
        if let Some((_, old)) = copies.by_call.insert(key.clone(), copy) {
            copies.bytes -= old.get().len() + key.size();
        }
        copies.bytes += size;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Copies> {
        self.copies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(token: &str, args: serde_json::Value) -> ToolCall {
        ToolCall {
            credential: Credential::Bearer(token.into()),
            path: "/mcp".into(),
            name: "look".into(),
            arguments: args.as_object().cloned(),
            id: 0,
            plain: None,
            held: None,
        }
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(serde_json::to_string(text).unwrap()).unwrap()
    }

    #[test]
    fn a_copy_is_given_only_for_its_own_call_and_tag() {
        let kept = Kept::default();
        let ann = Key::of_tool(&call("ann", serde_json::json!({})));
        kept.keep(&ann, 7, &raw("the square, for Ann"));
        assert_eq!(kept.tag(&ann), Some(7));
        assert_eq!(kept.get(&ann, 7).unwrap().get(), "\"the square, for Ann\"");
        assert!(kept.get(&ann, 8).is_none(), "another tag");
        let bob = Key::of_tool(&call("bob", serde_json::json!({})));
        assert_eq!(kept.tag(&bob), None, "another credential");
        let at = Key::of_tool(&call("ann", serde_json::json!({"target": "me"})));
        assert_eq!(kept.tag(&at), None, "other arguments");
        kept.keep(&ann, 9, &raw("the square, Bob in it"));
        assert!(kept.get(&ann, 7).is_none(), "replaced");
        assert_eq!(kept.tag(&ann), Some(9));
    }

    #[test]
    fn what_is_kept_is_bounded() {
        let kept = Kept::default();
        let big = raw(&"x".repeat(LARGEST + 1));
        let key = Key::of_tool(&call("ann", serde_json::json!({})));
        kept.keep(&key, 1, &big);
        assert_eq!(kept.tag(&key), None, "too large to keep");
        let answer = raw(&"y".repeat(LARGEST - 2));
        for i in 0..(MOST / LARGEST) * 2 {
            let key = Key::of_tool(&call(&format!("agent{i}"), serde_json::json!({})));
            kept.keep(&key, 1, &answer);
            assert!(kept.lock().bytes <= MOST);
        }
        let copies = kept.lock();
        let counted: usize = copies
            .by_call
            .iter()
            .map(|(k, (_, a))| k.size() + a.get().len())
            .sum();
        assert_eq!(copies.bytes, counted);
    }
}
