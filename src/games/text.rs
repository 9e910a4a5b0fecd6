//! Sessions as text for people, drawn from a viewer's `view` (never the raw state), so that
//! what a template hides stays hidden here too.

use serde_json::Value;

use super::chess::Outcome;

/// The board or table of a session, as `view` shows it.
pub fn render(template: &str, view: &Value) -> Vec<String> {
    match template {
        "chess.v1" => chess(view),
        "rps.v1" => rps(view),
        "tictactoe.v1" => tictactoe(view),
        "blackjack.v1" => view["text"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect(),
        _ => vec![view.to_string()],
    }
}

fn chess(view: &Value) -> Vec<String> {
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

fn rps(view: &Value) -> Vec<String> {
    let show = |role: &str| match (&view["choices"][role], &view["chosen"][role]) {
        (Value::String(c), _) => c.clone(),
        (_, Value::Bool(true)) => "(chosen, hidden)".into(),
        _ => "(choosing)".into(),
    };
    let mut lines = vec![format!(
        "player_1: {}   player_2: {}",
        show("player_1"),
        show("player_2")
    )];
    if let Some(r) = view["result"].as_str() {
        lines.push(format!("Result: {}.", r.replace('_', " ")));
    }
    lines
}

fn tictactoe(view: &Value) -> Vec<String> {
    let board: Vec<char> = view["board"]
        .as_str()
        .unwrap_or(".........")
        .chars()
        .collect();
    let mut lines: Vec<String> = board
        .chunks(3)
        .map(|r| format!("  {} | {} | {}", r[0], r[1], r[2]))
        .collect();
    lines.push(match view["result"].as_str() {
        Some(r) => format!("Result: {}.", r.replace('_', " ")),
        None => format!("{} to move.", view["turn"].as_str().unwrap_or("?")),
    });
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
        let lines = render("chess.v1", &g.view(None));
        assert_eq!(lines[1], "  8   r  n  b  q  k  b  n  r  8");
        assert_eq!(lines[4], "  5   .  .  .  .  .  .  .  .  5");
        assert_eq!(lines[5], "  4   .  .  .  .  P  .  .  .  4");
        assert_eq!(lines.last().unwrap(), "Last move: e2e4. Black to move.");
    }
}
