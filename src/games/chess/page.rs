//! The interactive chess board that `createGame` with `showUi` links: one HTML page, served to MCP Apps hosts
//! as the resource `ui://chess/<id>` and to plain browsers at `/chess/<id>`.

use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, World};

pub fn chess_uri(game: SessionId) -> String {
    format!("ui://chess/{game}")
}

/// The page for game `game`, drawn at `fen` from `colour`'s side (`""` for a browser that will
/// ask the REST API).
pub fn chess_page(game: SessionId, fen: &str, colour: &str, tick: u64) -> String {
    // The values are ids, a FEN and a colour; none can hold a quote or a tag.
    let safe = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric() || " /-".contains(*c))
            .collect::<String>()
    };
    include_str!("page.html")
        .replace("__GAME_ID__", &game.to_string())
        .replace("__FEN__", &safe(fen))
        .replace("__COLOUR__", &safe(colour))
        .replace("__TICK__", &tick.to_string())
}

/// Game `sid` as anyone may watch it (a chess position is public), for the board page's live
/// stream: the players, the position, the last move, the moves in SAN, whose turn, the clocks
/// (game milliseconds left now) and the result; `None` if it is not a chess game.
pub fn frame(world: &World, sid: SessionId) -> Option<serde_json::Value> {
    use super::rules::Side;
    let s = world.session(sid)?;
    let g = super::chess_of(s)?;
    let name = |role: &str| s.name_in(role);
    let over = s.game.is_terminal();
    let now = world.game_time(s);
    let clocks = g.time_control().map(|c| {
        serde_json::json!({
            "control": c.control(),
            "white": c.left_at(Side::White, g.turn(), now),
            "black": c.left_at(Side::Black, g.turn(), now),
            "running": (!over).then(|| g.turn().name()),
        })
    });
    let moves = g.sans();
    Some(serde_json::json!({
        "gameId": sid.to_string(),
        "tick": s.tick,
        "white": name("white"),
        "black": name("black"),
        "fen": g.fen(),
        "turn": g.turn().name(),
        "lastMove": g.last_move(),
        "moves": moves,
        "clocks": clocks,
        "over": over,
        "result": s.game.ending(),
    }))
}

/// The board page of game `sid` for a plain browser, which reads and plays the game through the
/// REST API with the token the player types into it; `None` if it is not a chess game.
pub fn html(world: &World, sid: SessionId) -> Option<String> {
    let s = world.session(sid)?;
    let g = super::chess_of(s)?;
    Some(chess_page(sid, g.fen(), "", s.tick))
}

/// [`frame`] for the page's live stream, which ends with the game.
pub fn live(
    world: &World,
    _viewer: Option<&AgentId>,
    sid: SessionId,
    _after: Option<usize>,
) -> Option<(serde_json::Value, bool)> {
    let frame = frame(world, sid)?;
    let over = frame["over"] == true;
    Some((frame, over))
}

/// The page `ui://chess/<which>` shows `me`: game `<which>`, or for `board` (what createGame
/// declares) the newest game that asked for the board, or else their newest chess game.
pub fn app_page(w: &mut World, me: &AgentId, which: &str) -> Option<String> {
    let id = match moot_kernel::world::sessions::parse_id(which) {
        Ok(id) => id,
        Err(_) if which == "board" => newest_board(w, me)?,
        Err(_) => return None,
    };
    if let Some(open) = w.ext::<super::ChessRoom>().open_games.get(&id) {
        return Some(chess_page(id, super::rules::START_FEN, open.side.name(), 0));
    }
    let s = w.session(id)?;
    let g = super::chess_of(s)?;
    Some(chess_page(
        id,
        g.fen(),
        s.role_of(me).unwrap_or("white"),
        s.tick,
    ))
}

/// The games whose board `me` asked for (`showUi`), oldest first.
pub fn app_listed(w: &mut World, me: &AgentId) -> Vec<SessionId> {
    let mut ids: Vec<SessionId> = w
        .ext::<super::ChessRoom>()
        .ui
        .iter()
        .filter(|(_, a)| a == me)
        .map(|(id, _)| *id)
        .collect();
    ids.sort_unstable();
    ids
}

/// The newest game `me` asked the board of, or else the newest chess game they play.
fn newest_board(w: &mut World, me: &AgentId) -> Option<SessionId> {
    let asked = app_listed(w, me).last().copied();
    asked.or_else(|| {
        w.session_ids().into_iter().rev().find(|id| {
            w.session(*id)
                .is_some_and(|s| super::chess_of(s).is_some() && s.role_of(me).is_some())
        })
    })
}
