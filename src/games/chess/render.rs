//! A chess board as text for people, drawn from a viewer's `view` (never the raw state).

use serde_json::Value;

use super::Outcome;

/// The board as `view` shows it, with whose move it is or how it ended.
pub fn board(view: &Value) -> Vec<String> {
    let fen = view["fen"].as_str().unwrap_or("");
    let placement = fen.split(' ').next().unwrap_or("");
    let files = "     a  b  c  d  e  f  g  h";
    let mut lines = vec![files.to_owned()];
    for (i, rank) in placement.split('/').enumerate() {
        let n = 8 - i;
        let mut row = String::new();
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(empty) => (0..empty).for_each(|_| row.push_str("  .")),
                None => {
                    row.push_str("  ");
                    row.push(c);
                }
            }
        }
        lines.push(format!("  {n} {row}  {n}"));
    }
    lines.push(files.to_owned());
    lines.push("  (White is upper case, black lower case.)".to_owned());
    let mut status = Vec::new();
    if let Some(last) = view["last_move"].as_str() {
        status.push(format!("Last move: {last}."));
    }
    match serde_json::from_value::<Option<Outcome>>(view["outcome"].clone())
        .ok()
        .flatten()
    {
        Some(o) => status.push(format!("Game over: {} ({}).", o.describe(), o.result())),
        None => {
            let turn = if view["turn"] == "white" {
                "White"
            } else {
                "Black"
            };
            status.push(format!("{turn} to move."));
            if view["check"] == true {
                status.push("Check!".into());
            }
        }
    }
    lines.push(status.join(" "));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::chess::ChessGame;

    #[test]
    fn a_chess_board_reads_well() {
        let g = ChessGame::new(0, &Value::Null)
            .unwrap()
            .apply("white", "e2e4")
            .unwrap();
        let lines = board(&g.view(None));
        assert_eq!(lines[1], "  8   r  n  b  q  k  b  n  r  8");
        assert_eq!(lines[4], "  5   .  .  .  .  .  .  .  .  5");
        assert_eq!(lines[5], "  4   .  .  .  .  P  .  .  .  4");
        assert_eq!(lines.last().unwrap(), "Last move: e2e4. Black to move.");
    }
}
