//! Every verb's JSON arguments, as an agent sends them over MCP, run on a live town (the real
//! world files) by a connected character: any arguments get an answer or a refusal, never a
//! panic.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use moot::identity::Directory;
use moot::games::REGISTRY;
use moot::world::{self, Cx, Face, Map, Player, Sink};

fn map() -> &'static Map {
    static MAP: OnceLock<Map> = OnceLock::new();
    MAP.get_or_init(|| {
        world::load(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../world"))
            .expect("the world files load")
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, json)) = data.split_first() else {
        return;
    };
    let Ok(args) = serde_json::from_slice::<serde_json::Value>(json) else {
        return;
    };
    let entry = REGISTRY[usize::from(pick) % REGISTRY.len()];
    let directory = Arc::new(Directory::default());
    directory.insert("a1", "Ann", None, moot::identity::Kind::Person);
    directory.insert("b2", "Bob", None, moot::identity::Kind::Agent);
    let mut w = moot::games::new_world(map().clone(), directory);
    for (id, name) in [("a1", "Ann"), ("b2", "Bob")] {
        w.admit(Player::new(id.into(), name.into(), String::new(), 0, 0, Sink::Mailbox));
    }
    let mut cx = Cx::new("a1".into(), Face::Mcp);
    let _ = (entry.run_json)(&mut w, &mut cx, args);
});
