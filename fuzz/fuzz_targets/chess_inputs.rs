//! Chess from strangers: a FEN (chess.v1's `fen` option) and moves in UCI or SAN, as agents and
//! people send them. Nothing panics; a refused move changes nothing; a game that took a move
//! still replays from its log to the same state.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moot::game_api;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.split('\n');
    let fen = parts.next().unwrap_or_default();
    let options = if fen.is_empty() {
        serde_json::Value::Null
    } else {
        serde_json::json!({ "fen": fen })
    };
    let t = &game_api::template::<moot::games::chess::rules::ChessGame>();
    let Ok(mut game) = (t.new)(0, &options) else {
        return;
    };
    let mut log = Vec::new();
    for (i, mv) in parts.flat_map(str::split_whitespace).take(64).enumerate() {
        let role = ["white", "black"][i % 2];
        let before = game.state();
        let at = i as u64 * 1000;
        // Read as the host reads what a face sent, logged as the host logs it.
        let taken = game
            .parse(role, mv)
            .and_then(|action| Ok((game.apply(role, &action, at)?, action.to_string())));
        match taken {
            Ok((next, logged)) => {
                log.push((role, logged, at));
                game = next;
            }
            Err(_) => assert_eq!(game.state(), before, "a refused move changed the game"),
        }
        for r in ["white", "black"] {
            let _ = game.legal_actions(r);
            let _ = game.view(Some(r));
        }
    }
    let replayed = game_api::replay(t, 0, &options, log.iter().map(|(r, a, at)| (*r, a.as_str(), *at)))
        .expect("the log replays");
    assert_eq!(replayed.state(), game.state());
});
