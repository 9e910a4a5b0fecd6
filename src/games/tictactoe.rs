//! `tictactoe.v1` (the seed's future work): a small proof that the template interface is
//! general. Roles `x` and `o`, x first; an action is a cell `0`–`8`, row by row.

use serde_json::{Value, json};

use super::{Game, GameError};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TicTacToe {
    cells: [Option<char>; 9],
}

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

impl TicTacToe {
    fn turn(&self) -> char {
        if self.cells.iter().flatten().count().is_multiple_of(2) {
            'x'
        } else {
            'o'
        }
    }

    fn winner(&self) -> Option<char> {
        LINES.iter().find_map(|l| {
            let [a, b, c] = l.map(|i| self.cells[i]);
            (a.is_some() && a == b && b == c).then_some(a).flatten()
        })
    }

    fn full(&self) -> bool {
        self.cells.iter().all(Option::is_some)
    }
}

impl Game for TicTacToe {
    const TEMPLATE: &'static str = "tictactoe.v1";
    const ROLES: &'static [&'static str] = &["x", "o"];
    const SEQUENTIAL: bool = true;
    const TABLE: &'static str = "tictactoe_table";

    fn new(_seed: u64, options: &Value) -> Result<TicTacToe, GameError> {
        match options {
            Value::Null => Ok(TicTacToe::default()),
            Value::Object(o) if o.is_empty() => Ok(TicTacToe::default()),
            _ => Err(GameError::BadOptions(
                "tictactoe.v1 takes no options".into(),
            )),
        }
    }

    fn legal_actions(&self, role: &str) -> Vec<String> {
        if self.is_terminal() || !role.starts_with(self.turn()) {
            return Vec::new();
        }
        (0..9)
            .filter(|&i| self.cells[i].is_none())
            .map(|i| i.to_string())
            .collect()
    }

    fn apply(&self, role: &str, action: &str) -> Result<TicTacToe, GameError> {
        if !role.starts_with(self.turn()) {
            return Err(GameError::NotYourTurn);
        }
        let cell: usize = action
            .trim()
            .parse()
            .ok()
            .filter(|&c| c < 9)
            .ok_or_else(|| GameError::Illegal(format!("`{action}` is not a cell 0 to 8")))?;
        if self.cells[cell].is_some() {
            return Err(GameError::Illegal(format!("cell {cell} is taken")));
        }
        let mut next = self.clone();
        next.cells[cell] = Some(self.turn());
        Ok(next)
    }

    fn is_terminal(&self) -> bool {
        self.winner().is_some() || self.full()
    }

    fn state(&self) -> Value {
        let board: String = self.cells.iter().map(|c| c.unwrap_or('.')).collect();
        let result = match (self.winner(), self.full()) {
            (Some(w), _) => json!(format!("{w}_wins")),
            (None, true) => json!("draw"),
            (None, false) => Value::Null,
        };
        json!({ "board": board, "turn": self.turn().to_string(), "result": result })
    }

    fn view(&self, _role: Option<&str>) -> Value {
        self.state()
    }

    fn render(&self, viewer: Option<&str>, _now: super::GameTime) -> Vec<String> {
        board(&self.view(viewer))
    }
}

/// The grid as `view` shows it, and whose move it is or the result.
fn board(view: &Value) -> Vec<String> {
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

    #[test]
    fn a_row_wins_and_turns_alternate() {
        let mut g = TicTacToe::default();
        for (role, cell) in [("x", "0"), ("o", "3"), ("x", "1"), ("o", "4")] {
            g = g.apply(role, cell).unwrap();
        }
        assert_eq!(g.apply("o", "5").unwrap_err(), GameError::NotYourTurn);
        assert!(matches!(g.apply("x", "3"), Err(GameError::Illegal(_))));
        assert!(matches!(g.apply("x", "9"), Err(GameError::Illegal(_))));
        let g = g.apply("x", "2").unwrap();
        assert!(g.is_terminal());
        assert_eq!(
            g.state(),
            json!({"board": "xxxoo....", "turn": "o", "result": "x_wins"})
        );
    }

    #[test]
    fn a_full_board_without_a_line_is_a_draw() {
        let mut g = TicTacToe::default();
        for c in ["0", "1", "2", "4", "3", "5", "7", "6", "8"] {
            let role = if g.turn() == 'x' { "x" } else { "o" };
            g = g.apply(role, c).unwrap();
        }
        assert_eq!(g.state()["result"], "draw");
    }
}
