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
