//! Tic-tac-toe on the web: a page that draws the board from the game's live frames (the board
//! stands in the Game Room for anyone to look at), whose players mark a cell with a click.

use serde_json::{Value, json};

use super::rules::TicTacToe;
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, World};

/// The page for game `sid`, if it is a tic-tac-toe game.
pub fn html(world: &World, sid: SessionId) -> Option<String> {
    game_of(world, sid)?;
    Some(include_str!("page.html").replace("__GAME_ID__", &sid.to_string()))
}

fn game_of(world: &World, sid: SessionId) -> Option<&TicTacToe> {
    world
        .session(sid)?
        .game
        .as_any()
        .downcast_ref::<TicTacToe>()
}

/// Game `sid` as anyone may watch it: the players, the cells, whose turn and the result; and
/// whether it is over (the last frame).
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
        "x": name("x"),
        "o": name("o"),
        "board": state["board"],
        "turn": state["turn"],
        "over": over,
        "result": s.game.ending(),
    });
    Some((frame, over))
}
