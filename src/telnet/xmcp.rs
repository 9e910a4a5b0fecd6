//! XMCP/1.1, as tkMOO-light speaks it: the `$#$xmcp` handshake, a game's board message (the
//! name is the game module's: chess's `chess-board`), and the rule that nobody's words may pose
//! as an out-of-band line.
//!
//! A message is one line, `$#$<name> <key> <keyword>: <value> …`, parsed by the client as a Tcl
//! list: a value is bare if it holds only `[A-Za-z0-9#._-]`, otherwise quoted with `\` and `"`
//! escaped (an unbalanced quote makes the client throw).

use std::borrow::Cow;

use moot_kernel::world::BoardMsg;

pub const VERSION_LINE: &str = "$#$xmcp version: 1.1";
pub const AUTH_SET: &str = "XMCP/1.1 Authentication set.";

/// A value by Tcl list rules.
pub fn tcl_value(v: &str) -> Cow<'_, str> {
    let bare = !v.is_empty()
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || "#._-".contains(c));
    if bare {
        Cow::Borrowed(v)
    } else {
        let mut q = String::with_capacity(v.len() + 2);
        q.push('"');
        for c in v.chars() {
            if c == '\\' || c == '"' {
                q.push('\\');
            }
            q.push(c);
        }
        q.push('"');
        Cow::Owned(q)
    }
}

/// `$#$<name> <key> object: #<id> board: <board> turn: <0|1> colour: <colour> sequence: <n>`
/// (`$#$chess-board`, the board 64 characters).
pub fn board(name: &str, key: &str, b: &BoardMsg) -> String {
    format!(
        "$#${} {} object: {} board: {} turn: {} colour: {} sequence: {}",
        tcl_value(name),
        tcl_value(key),
        tcl_value(&format!("#{}", b.object)),
        tcl_value(&b.board),
        u8::from(b.your_turn),
        tcl_value(&b.colour),
        b.sequence
    )
}

/// A line that would begin like an out-of-band message (XMCP's `$#$`, MCP 2.1's `#$#`, or
/// MCP 2.1's own quote `#$"`) gets MCP 2.1's quote prefix `#$"`, so no user's words can pose
/// as one. Every line moot writes passes through here except its own out-of-band messages.
pub fn quote(line: &str) -> Cow<'_, str> {
    if line.starts_with("$#$") || line.starts_with("#$#") || line.starts_with("#$\"") {
        Cow::Owned(format!("#$\"{line}"))
    } else {
        Cow::Borrowed(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcl_quoting() {
        assert_eq!(tcl_value("#269"), "#269");
        assert_eq!(tcl_value("RP....pr"), "RP....pr");
        assert_eq!(tcl_value(""), "\"\"");
        assert_eq!(tcl_value("a b"), "\"a b\"");
        assert_eq!(tcl_value(r#"say "hi" \o/"#), r#""say \"hi\" \\o/""#);
    }

    #[test]
    fn the_start_position_byte_for_byte() {
        let b = BoardMsg {
            object: 269.into(),
            board: "RP....prNP....pnBP....pbKP....pkQP....pqBP....pbNP....pnRP....pr".into(),
            your_turn: true,
            colour: "white".into(),
            sequence: 1,
            headline: None,
            text: vec![],
            gmcp: Some("Moot.Chess".into()),
            xmcp: Some("chess-board".into()),
            view: serde_json::Value::Null,
        };
        assert_eq!(
            board("chess-board", "2097171", &b),
            "$#$chess-board 2097171 object: #269 board: RP....prNP....pnBP....pbKP....pkQP....pqBP....pbNP....pnRP....pr turn: 1 colour: white sequence: 1"
        );
    }

    #[test]
    fn out_of_band_lookalikes_are_quoted() {
        assert_eq!(
            quote("$#$chess-board 1 object: #1"),
            "#$\"$#$chess-board 1 object: #1"
        );
        assert_eq!(quote("#$#mcp version: 2.1"), "#$\"#$#mcp version: 2.1");
        assert_eq!(quote("Ann says, \"$#$\""), "Ann says, \"$#$\"");
    }
}
