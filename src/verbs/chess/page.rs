//! The interactive chess board of seed 000's `showUi`: one HTML page, served to MCP Apps hosts
//! as the resource `ui://chess/<id>` and to plain browsers at `/chess/<id>`.

/// The MCP Apps media type.
pub const MCP_APP_MIME: &str = "text/html;profile=mcp-app";

pub fn chess_uri(game: u64) -> String {
    format!("ui://chess/{game}")
}

/// The page for game `game`, drawn at `fen` from `colour`'s side (`""` for a browser that will
/// ask the REST API).
pub fn chess_page(game: u64, fen: &str, colour: &str, tick: u64) -> String {
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
pub fn frame(
    world: &crate::world::World,
    sid: crate::world::sessions::SessionId,
) -> Option<serde_json::Value> {
    use crate::games::chess::Side;
    let s = world.session(sid)?;
    let g = super::chess_of(s)?;
    let name = |role: &str| {
        s.participants
            .iter()
            .find(|p| p.role == role)
            .map(|p| p.name.clone())
    };
    let over = s.game.is_terminal();
    let now = world.game_time(s);
    let clocks = g.clock().map(|c| {
        serde_json::json!({
            "control": c.control(),
            "white": c.left_at(Side::White, g.turn(), now),
            "black": c.left_at(Side::Black, g.turn(), now),
            "running": (!over).then(|| g.turn().name()),
        })
    });
    let moves: Vec<&str> = g.moves().into_iter().map(|(_, san)| san).collect();
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
