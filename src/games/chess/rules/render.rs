//! A chess board as text for people, drawn from a viewer's `view` (never the raw state).

use serde_json::Value;

use super::Outcome;

/// The board as `view` shows it, compact (a line a rank, coordinates on all four sides), seen
/// from the viewer's chair: black at the bottom for black, white for white and spectators.
/// Then the last move (SAN, with its UCI) and whose move it is, or how it ended.
pub fn board(view: &Value, from_black: bool, last_san: Option<&str>) -> Vec<String> {
    let fen = view["fen"].as_str().unwrap_or("");
    let placement = fen.split(' ').next().unwrap_or("");
    // rows[0] is rank 8, each a..h.
    let rows: Vec<Vec<char>> = placement
        .split('/')
        .map(|rank| {
            rank.chars()
                .flat_map(|c| match c.to_digit(10) {
                    Some(n) => vec!['.'; n as usize],
                    None => vec![c],
                })
                .collect()
        })
        .collect();
    let mut files: Vec<char> = ('a'..='h').collect();
    let mut ranks: Vec<usize> = (0..rows.len()).collect();
    if from_black {
        files.reverse();
        ranks.reverse();
    }
    let spaced =
        |cs: &mut dyn Iterator<Item = char>| cs.map(String::from).collect::<Vec<_>>().join(" ");
    let edge = format!("  {}", spaced(&mut files.iter().copied()));
    let mut lines = vec![edge.clone()];
    for i in ranks {
        let n = 8 - i;
        let mut row = rows[i].clone();
        if from_black {
            row.reverse();
        }
        lines.push(format!("{n} {} {n}", spaced(&mut row.into_iter())));
    }
    lines.push(edge);
    let mut status = Vec::new();
    if let Some(last) = view["last_move"].as_str() {
        match last_san {
            Some(san) => status.push(format!("Last move: {san} ({last}).")),
            None => status.push(format!("Last move: {last}.")),
        }
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
    use crate::ChessGame;
    use moot_game_api::Game;

    #[test]
    fn a_chess_board_reads_well() {
        let g = ChessGame::new(0, &Value::Null)
            .unwrap()
            .apply("white", "e2e4")
            .unwrap();
        let lines = board(&g.view(None), false, g.last_san().as_deref());
        assert_eq!(lines[0], "  a b c d e f g h");
        assert_eq!(lines[1], "8 r n b q k b n r 8");
        assert_eq!(lines[5], "4 . . . . P . . . 4");
        assert_eq!(lines[8], "1 R N B Q K B N R 1");
        assert_eq!(lines.len(), 11, "ten lines of board and a status line");
        assert_eq!(
            lines.last().unwrap(),
            "Last move: e4 (e2e4). Black to move."
        );
        // Black sits at the bottom of black's board, and the files run h to a.
        let black = board(&g.view(Some("black")), true, g.last_san().as_deref());
        assert_eq!(black[0], "  h g f e d c b a");
        assert_eq!(black[1], "1 R N B K Q B N R 1");
        assert_eq!(black[4], "4 . . . P . . . . 4");
        assert_eq!(black[8], "8 r n b k q b n r 8");
    }
}
