//! `tictactoe.v1` (the seed's future work): a small proof that the template interface is
//! general. Roles `x` and `o`, x first; an action is a cell `0`–`8`, row by row.

use serde_json::{Value, json};

use crate::games::{Computer, Game, GameError, Reckoning, SideScore, head_to_head};

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
    const HOUSE_PLAYS: bool = true;

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

    const RECKONING: Reckoning = Reckoning::Rating;

    fn decided(&self) -> Option<Vec<SideScore>> {
        let winner = match (self.winner(), self.full()) {
            (Some('x'), _) => Some(0),
            (Some(_), _) => Some(1),
            (None, true) => None,
            (None, false) => return None,
        };
        Some(head_to_head(["x", "o"], winner))
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

    fn render(&self, viewer: Option<&str>, _now: crate::games::GameTime) -> Vec<String> {
        board(&self.view(viewer))
    }

    /// "marks the centre" (cells as people count them, 1 to 9).
    fn headline(&self, _role: &str, action: &str) -> String {
        let cell = action.trim().parse::<usize>().unwrap_or(9);
        const NAMES: [&str; 9] = [
            "the top left",
            "the top",
            "the top right",
            "the left",
            "the centre",
            "the right",
            "the bottom left",
            "the bottom",
            "the bottom right",
        ];
        match NAMES.get(cell) {
            Some(n) => format!("marks {n} ({})", cell + 1),
            None => "has moved".to_owned(),
        }
    }

    fn situation(&self) -> String {
        self.ending()
            .unwrap_or_else(|| format!("{} to move", self.turn().to_ascii_uppercase()))
    }

    fn ending(&self) -> Option<String> {
        match (self.winner(), self.full()) {
            (Some(w), _) => Some(format!("{} wins", w.to_ascii_uppercase())),
            (None, true) => Some("a draw".to_owned()),
            (None, false) => None,
        }
    }

    /// The house wins if it can, blocks if it must, and otherwise takes the centre, a corner or
    /// a side, choosing among equals by the seed.
    fn computer(&self, role: &str, _options: &Value, seed: u64) -> Option<Computer> {
        if self.is_terminal() || !role.starts_with(self.turn()) {
            return None;
        }
        let me = self.turn();
        let them = if me == 'x' { 'o' } else { 'x' };
        let free: Vec<usize> = (0..9).filter(|&i| self.cells[i].is_none()).collect();
        let completes = |who: char| {
            free.iter().copied().find(|&i| {
                let mut g = self.clone();
                g.cells[i] = Some(who);
                g.winner() == Some(who)
            })
        };
        let pick = |among: &[usize]| {
            let open: Vec<usize> = among.iter().copied().filter(|i| free.contains(i)).collect();
            (!open.is_empty()).then(|| open[(seed % open.len() as u64) as usize])
        };
        let cell = completes(me)
            .or_else(|| completes(them))
            .or_else(|| pick(&[4]))
            .or_else(|| pick(&[0, 2, 6, 8]))
            .or_else(|| pick(&[1, 3, 5, 7]))?;
        Some(Computer::Act(cell.to_string()))
    }
}

/// The grid as `view` shows it, and whose move it is or the result.
fn board(view: &Value) -> Vec<String> {
    let board: Vec<char> = view["board"]
        .as_str()
        .unwrap_or(".........")
        .chars()
        .collect();
    // Empty cells show their number (1 to 9), which is what a person types to mark one.
    let cell = |i: usize| match board.get(i).copied() {
        Some('.') | None => char::from(b'1' + i as u8),
        Some(c) => c.to_ascii_uppercase(),
    };
    let mut lines = Vec::new();
    for row in 0..3 {
        if row > 0 {
            lines.push("  ---+---+---".to_owned());
        }
        let i = row * 3;
        lines.push(format!(
            "   {} | {} | {}",
            cell(i),
            cell(i + 1),
            cell(i + 2)
        ));
    }
    lines.push(match view["result"].as_str() {
        Some("draw") => "A draw.".to_owned(),
        Some(r) => format!("{} wins.", r.trim_end_matches("_wins").to_ascii_uppercase()),
        None => format!(
            "{} to move.",
            view["turn"].as_str().unwrap_or("?").to_ascii_uppercase()
        ),
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

    #[test]
    fn the_house_wins_when_it_can_and_blocks_when_it_must() {
        let play = |cells: &[usize]| {
            let mut g = TicTacToe::default();
            for (i, c) in cells.iter().enumerate() {
                let role = if i % 2 == 0 { "x" } else { "o" };
                g = g.apply(role, &c.to_string()).unwrap();
            }
            g
        };
        let act = |g: &TicTacToe, role: &str| match g.computer(role, &Value::Null, 7) {
            Some(Computer::Act(a)) => a,
            _ => panic!("no move"),
        };
        // x: 0, 1; o: 4 — o must block at 2.
        assert_eq!(act(&play(&[0, 4, 1]), "o"), "2");
        // x: 0, 1, 8; o: 4, 5 — o wins at 3 rather than block anything.
        assert_eq!(act(&play(&[0, 4, 1, 5, 8]), "o"), "3");
        // An empty board: the centre.
        assert_eq!(act(&TicTacToe::default(), "x"), "4");
        // Not its turn: nothing.
        assert!(
            TicTacToe::default()
                .computer("o", &Value::Null, 7)
                .is_none()
        );
    }

    #[test]
    fn the_text_board_numbers_the_empty_cells() {
        let g = TicTacToe::default().apply("x", "4").unwrap();
        assert_eq!(
            g.render(None, 0),
            [
                "   1 | 2 | 3",
                "  ---+---+---",
                "   4 | X | 6",
                "  ---+---+---",
                "   7 | 8 | 9",
                "O to move."
            ]
        );
    }
}
