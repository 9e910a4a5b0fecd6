//! What people type: any line resolves to a verb or to nothing, and every verb's parser (the
//! XMCP drag `move 5 2 5 4 1 on #1` included) reads it or refuses it, without panicking; what
//! a parser accepts is clean text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moot::games::{REGISTRY, Resolved, resolve};

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let line = moot::text::clean(line);
    let _ = resolve(&line, |w| w == "north");
    for e in REGISTRY.iter() {
        let _ = (e.parse_json)(&line);
    }
    if let Resolved::Verb(e, rest) = resolve(&line, |_| false) {
        let _ = (e.parse_json)(rest);
    }
});
