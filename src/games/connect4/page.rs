//! Connect Four on the web: one page that draws the board from the game's live frames (a
//! Connect Four board is public: it stands in the Game Room for anyone to look at).

use serde_json::{Value, json};

use super::rules::Connect4;
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, World};

/// The page for game `sid`, if it is a Connect Four game.
pub fn html(world: &World, sid: SessionId) -> Option<String> {
    game_of(world, sid)?;
    Some(include_str!("page.html").replace("__GAME_ID__", &sid.to_string()))
}

fn game_of(world: &World, sid: SessionId) -> Option<&Connect4> {
    world.session(sid)?.game.as_any().downcast_ref::<Connect4>()
}

/// Game `sid` as anyone may watch it: the players, the rows, whose turn, the winning line and
/// the result; and whether it is over (the last frame).
pub fn live(
    world: &World,
    _viewer: Option<&AgentId>,
    sid: SessionId,
    _after: Option<usize>,
) -> Option<(Value, bool)> {
    let s = world.session(sid)?;
    game_of(world, sid)?;
    let name = |role: &str| s.name_in(role);
    let state = s.game.view(None);
    let over = s.game.is_terminal();
    let frame = json!({
        "gameId": sid.to_string(),
        "tick": s.tick,
        "red": name("red"),
        "yellow": name("yellow"),
        "rows": state["rows"],
        "turn": state["turn"],
        "line": state["line"],
        "over": over,
        "result": s.game.ending(),
    });
    Some((frame, over))
}
