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
    lines.push(status(view, last_san));
    lines
}

/// The board as a screen reader speaks it (lichess's blind mode): each side's pieces by kind,
/// king first, with their squares, a line a side; then the same status line as [`board`].
pub fn listed(view: &Value, last_san: Option<&str>) -> Vec<String> {
    let fen = view["fen"].as_str().unwrap_or("");
    let placement = fen.split(' ').next().unwrap_or("");
    // Squares by piece letter, in the order a reader finds them: rank 1 up, a to h.
    let mut on: Vec<(char, String)> = Vec::new();
    for (i, rank) in placement.split('/').enumerate() {
        let mut file = 0u8;
        for c in rank.chars() {
            match c.to_digit(10) {
                Some(n) => file += n as u8,
                None => {
                    on.push((c, format!("{}{}", (b'a' + file) as char, 8 - i)));
                    file += 1;
                }
            }
        }
    }
    on.sort_by(|a, b| {
        (a.1.as_bytes()[1], a.1.as_bytes()[0]).cmp(&(b.1.as_bytes()[1], b.1.as_bytes()[0]))
    });
    const KINDS: [(char, &str, &str); 6] = [
        ('k', "king", "kings"),
        ('q', "queen", "queens"),
        ('r', "rook", "rooks"),
        ('b', "bishop", "bishops"),
        ('n', "knight", "knights"),
        ('p', "pawn", "pawns"),
    ];
    let side = |white: bool, name: &str| {
        let parts: Vec<String> = KINDS
            .iter()
            .filter_map(|(k, one, many)| {
                let squares: Vec<&str> = on
                    .iter()
                    .filter(|(c, _)| {
                        c.to_ascii_lowercase() == *k && c.is_ascii_uppercase() == white
                    })
                    .map(|(_, sq)| sq.as_str())
                    .collect();
                match squares.len() {
                    0 => None,
                    1 => Some(format!("{one} {}", squares[0])),
                    _ => Some(format!("{many} {}", squares.join(" "))),
                }
            })
            .collect();
        format!("{name}: {}.", parts.join(", "))
    };
    vec![
        side(true, "White"),
        side(false, "Black"),
        status(view, last_san),
    ]
}

/// What a square holds, in words: "e4: white pawn", "e5: empty"; or a whole rank ("4") or file
/// ("e"), square by square, for reading the board a line at a time as lichess's blind mode
/// does; `None` for none of those.
pub fn square(view: &Value, name: &str) -> Option<String> {
    let name = name.trim().to_ascii_lowercase();
    let line = |squares: Vec<String>| -> Option<String> {
        let said: Vec<String> = squares
            .iter()
            .filter_map(|sq| square(view, sq))
            .map(|s| s.trim_end_matches('.').to_owned())
            .collect();
        Some(format!("{}.", said.join(", ")))
    };
    match name.as_bytes() {
        [r @ b'1'..=b'8'] => {
            let squares = (b'a'..=b'h').map(|f| format!("{}{}", f as char, *r as char));
            return line(squares.collect()).map(|l| format!("Rank {}: {l}", *r as char));
        }
        [f @ b'a'..=b'h'] => {
            let squares = (b'1'..=b'8').map(|r| format!("{}{}", *f as char, r as char));
            return line(squares.collect()).map(|l| format!("File {}: {l}", *f as char));
        }
        _ => {}
    }
    let b = name.as_bytes();
    if b.len() != 2 || !(b'a'..=b'h').contains(&b[0]) || !(b'1'..=b'8').contains(&b[1]) {
        return None;
    }
    let fen = view["fen"].as_str().unwrap_or("");
    let placement = fen.split(' ').next().unwrap_or("");
    let rank = placement.split('/').nth(usize::from(b'8' - b[1]))?;
    let mut file = 0u8;
    for c in rank.chars() {
        match c.to_digit(10) {
            Some(n) => file += n as u8,
            None => {
                if file == b[0] - b'a' {
                    let colour = if c.is_ascii_uppercase() {
                        "white"
                    } else {
                        "black"
                    };
                    let kind = match c.to_ascii_lowercase() {
                        'k' => "king",
                        'q' => "queen",
                        'r' => "rook",
                        'b' => "bishop",
                        'n' => "knight",
                        _ => "pawn",
                    };
                    return Some(format!("{name}: {colour} {kind}."));
                }
                file += 1;
            }
        }
        if file > b[0] - b'a' {
            break;
        }
    }
    Some(format!("{name}: empty."))
}

/// The last move, whose move it is or how it ended, and check: one line.
fn status(view: &Value, last_san: Option<&str>) -> String {
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
    status.join(" ")
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
