//! `tictactoe.v1`: a small proof that the template interface is
//! general. Roles `x` and `o`, x first; an action is a cell `0`–`8`, row by row.
//!
//! With `{"clock": "30s"}` (any [`MoveLimit`]) each move must come within that time of the
//! last; when it does not, the server actor's `flag` gives the game to the other side. Either
//! side may `resign` at any time.

#![warn(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use moot_game_api::{
    Computer, Deadline, Forfeit, Game, GameError, GameTime, Glance, MoveLimit, Reading, Reckoning,
    SERVER_ROLE, SideScore, head_to_head,
};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TicTacToe {
    cells: [Option<char>; 9],
    clock: Option<MoveLimit>,
    /// The side that lost other than on the board, and how.
    forfeit: Option<(char, Forfeit)>,
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

    /// The winner, on the board, on time or by resignation.
    fn victor(&self) -> Option<char> {
        self.winner().or(self.forfeit.map(|(l, _)| other(l)))
    }
}

/// A mark in a cell (0 to 8, as the log counts them), a side's `resign`, or the server actor's
/// `flag` when the side to move runs out of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Cell(usize),
    Resign,
    Flag,
}

impl std::str::FromStr for Mark {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Mark, GameError> {
        match s.trim() {
            "flag" => return Ok(Mark::Flag),
            "resign" => return Ok(Mark::Resign),
            _ => {}
        }
        s.trim()
            .parse()
            .ok()
            .filter(|&c| c < 9)
            .map(Mark::Cell)
            .ok_or_else(|| GameError::Illegal(format!("`{s}` is not a cell 0 to 8")))
    }
}

impl std::fmt::Display for Mark {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mark::Cell(c) => write!(f, "{c}"),
            Mark::Resign => f.write_str("resign"),
            Mark::Flag => f.write_str("flag"),
        }
    }
}

fn other(side: char) -> char {
    if side == 'x' { 'o' } else { 'x' }
}

fn role_of(side: char) -> &'static str {
    if side == 'x' { "x" } else { "o" }
}

impl Game for TicTacToe {
    const TEMPLATE: &'static str = "tictactoe.v1";
    const TITLE: &'static str = "tic-tac-toe";
    const ROLES: &'static [&'static str] = &["x", "o"];
    const SEQUENTIAL: bool = true;
    const TABLE: &'static str = "tictactoe_table";
    const HOUSE_PLAYS: bool = true;
    const RESIGNS: bool = true;
    type Action = Mark;

    /// One option: `clock`, a time per move (`30s`, `1d`).
    fn new(_seed: u64, options: &Value) -> Result<TicTacToe, GameError> {
        match options {
            Value::Null => Ok(TicTacToe::default()),
            Value::Object(o) if o.keys().all(|k| k == "clock") => Ok(TicTacToe {
                clock: MoveLimit::option(o.get("clock"))?,
                ..TicTacToe::default()
            }),
            _ => Err(GameError::BadOptions(
                "tictactoe.v1's only option is `clock`, a time per move such as \"30s\"".into(),
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

    fn act(&self, role: &str, mark: &Mark) -> Result<TicTacToe, GameError> {
        // Either side gives the game up whenever it likes, whoever is to move.
        if *mark == Mark::Resign {
            let side = ['x', 'o']
                .into_iter()
                .find(|&s| role.starts_with(s))
                .ok_or_else(|| GameError::UnknownRole(role.to_owned()))?;
            if self.is_terminal() {
                return Err(GameError::Finished);
            }
            return Ok(TicTacToe {
                forfeit: Some((side, Forfeit::Resignation)),
                ..self.clone()
            });
        }
        if !role.starts_with(self.turn()) {
            return Err(GameError::NotYourTurn);
        }
        let Mark::Cell(cell) = *mark else {
            return Err(GameError::Illegal(format!("`{mark}` is not a cell 0 to 8")));
        };
        if self.cells[cell].is_some() {
            return Err(GameError::Illegal(format!("Cell {cell} is taken")));
        }
        let mut next = self.clone();
        next.cells[cell] = Some(self.turn());
        Ok(next)
    }

    /// A move starts the next side's time; one that comes at the deadline or after is too
    /// late. The server actor's only action is `flag`, once the side to move is out of time.
    fn act_at(&self, role: &str, mark: &Mark, at: GameTime) -> Result<TicTacToe, GameError> {
        if role == SERVER_ROLE {
            MoveLimit::check_flag(self.clock, *mark == Mark::Flag, &mark.to_string(), at)?;
            return Ok(TicTacToe {
                forfeit: Some((self.turn(), Forfeit::Time)),
                ..self.clone()
            });
        }
        let next = self.act(role, mark)?;
        if *mark == Mark::Resign {
            return Ok(next);
        }
        let clock = MoveLimit::after_move(self.clock, at)?;
        Ok(TicTacToe { clock, ..next })
    }

    fn deadline(&self) -> Option<Deadline<Mark>> {
        let l = self.clock.filter(|_| !self.is_terminal())?;
        Some(l.deadline(Mark::Flag))
    }

    /// The side to move, whose time runs out.
    fn owing(&self) -> Vec<&'static str> {
        match self.deadline() {
            Some(_) => vec![role_of(self.turn())],
            None => Vec::new(),
        }
    }

    fn is_terminal(&self) -> bool {
        self.winner().is_some() || self.full() || self.forfeit.is_some()
    }

    const RECKONING: Reckoning = Reckoning::Rating;

    fn decided(&self) -> Option<Vec<SideScore>> {
        let winner = match (self.victor(), self.full()) {
            (Some('x'), _) => Some(0),
            (Some(_), _) => Some(1),
            (None, true) => None,
            (None, false) => return None,
        };
        Some(head_to_head(["x", "o"], winner))
    }

    fn state(&self) -> Value {
        let board: String = self.cells.iter().map(|c| c.unwrap_or('.')).collect();
        let result = match (self.winner(), self.full(), self.forfeit) {
            (Some(w), _, _) => json!(format!("{w}_wins")),
            (None, true, _) => json!("draw"),
            (None, false, Some((l, how))) => {
                json!(format!("{}_wins{}", other(l), how.result_suffix()))
            }
            (None, false, None) => Value::Null,
        };
        let mut s = json!({ "board": board, "turn": self.turn().to_string(), "result": result });
        // Only when set: a game without a clock is stored as it always was.
        if let Some(l) = self.clock {
            s["clock"] = json!(l);
        }
        s
    }

    fn view(&self, _role: Option<&str>) -> Value {
        self.state()
    }

    fn render(&self, viewer: Option<&str>, r: Reading) -> Vec<String> {
        let view = self.view(viewer);
        let mut lines = match r.plain {
            true => listed(&view),
            false => board(&view),
        };
        lines.extend(self.clock_line(r));
        lines
    }

    fn glance(&self, _viewer: Option<&str>, ask: Glance<'_>, r: Reading) -> Option<String> {
        match ask {
            Glance::Clock => self.clock_line(r),
            Glance::Square(name) => {
                let name = name.trim().to_ascii_lowercase();
                let i = match name.parse::<usize>() {
                    Ok(n @ 1..=9) => n - 1,
                    _ => CELL_NAMES.iter().position(|c| {
                        c.trim_start_matches("the ") == name.trim_start_matches("the ")
                    })?,
                };
                let holds = match self.cells[i] {
                    Some(m) => m.to_ascii_uppercase().to_string(),
                    None => "empty".to_owned(),
                };
                Some(format!("{} ({}): {holds}.", capital(CELL_NAMES[i]), i + 1))
            }
        }
    }

    /// "marks the centre" (cells as people count them, 1 to 9); the server's flag: "X runs
    /// out of time".
    fn headline(&self, role: &str, mark: &Mark) -> String {
        if role == SERVER_ROLE {
            return match self.forfeit {
                Some((l, Forfeit::Time)) => format!("{} runs out of time", l.to_ascii_uppercase()),
                _ => "has moved".to_owned(),
            };
        }
        let cell = match *mark {
            Mark::Cell(cell) => cell,
            Mark::Resign => return "resigns".to_owned(),
            Mark::Flag => return "has moved".to_owned(),
        };
        match CELL_NAMES.get(cell) {
            Some(n) => format!("marks {n} ({})", cell + 1),
            None => "has moved".to_owned(),
        }
    }

    fn situation(&self) -> String {
        self.ending()
            .unwrap_or_else(|| format!("{} to move", self.turn().to_ascii_uppercase()))
    }

    fn ending(&self) -> Option<String> {
        match (self.winner(), self.full(), self.forfeit) {
            (Some(w), _, _) => Some(format!("{} wins", w.to_ascii_uppercase())),
            (None, true, _) => Some("a draw".to_owned()),
            (None, false, Some((l, how))) => Some(format!(
                "{} wins {}",
                other(l).to_ascii_uppercase(),
                how.words()
            )),
            (None, false, None) => None,
        }
    }

    /// The house wins if it can, blocks if it must, and otherwise takes the centre, a corner or
    /// a side, choosing among equals by the seed.
    fn computer(&self, role: &str, _options: &Value, seed: u64) -> Option<Computer<Mark>> {
        if self.is_terminal() || !role.starts_with(self.turn()) {
            return None;
        }
        let me = self.turn();
        let them = other(me);
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
        Some(Computer::Act(Mark::Cell(cell)))
    }
}

/// The grid as `view` shows it, and whose move it is or the result.
/// The cells as people name them, 1 to 9.
const CELL_NAMES: [&str; 9] = [
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

fn capital(s: &str) -> String {
    moot_game_api::text::capitalize(s)
}

impl TicTacToe {
    /// The per-move limit, if the game has one, with the time left in the wall clock's time.
    fn clock_line(&self, r: Reading) -> Option<String> {
        let mover = self.turn().to_ascii_uppercase().to_string();
        Some(self.clock?.line(self.is_terminal(), &mover, "move", r))
    }
}

/// The board as a screen reader speaks it: each mark's cells, the empty ones, and the status.
fn listed(view: &Value) -> Vec<String> {
    let board: Vec<char> = view["board"]
        .as_str()
        .unwrap_or(".........")
        .chars()
        .collect();
    let cells = |mark: char| {
        let named: Vec<String> = (0..9)
            .filter(|i| board.get(*i).copied() == Some(mark))
            .map(|i| format!("{} ({})", CELL_NAMES[i].trim_start_matches("the "), i + 1))
            .collect();
        match named.is_empty() {
            true => "none".to_owned(),
            false => named.join(", "),
        }
    };
    vec![
        format!("X: {}.", cells('x')),
        format!("O: {}.", cells('o')),
        format!("Empty: {}.", cells('.')),
        status(view),
    ]
}

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
    lines.push(status(view));
    lines
}

/// Whose move it is, or how it ended.
fn status(view: &Value) -> String {
    match view["result"].as_str() {
        Some("draw") => "A draw.".to_owned(),
        // `x_wins`, `o_wins_on_time`, `x_wins_by_resignation`.
        Some(r) => {
            let (w, how) = r.split_once("_wins").unwrap_or((r, ""));
            let how = how.replace('_', " ");
            format!("{} wins{how}.", w.to_ascii_uppercase())
        }
        None => format!(
            "{} to move.",
            view["turn"].as_str().unwrap_or("?").to_ascii_uppercase()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn either_side_resigns_whoever_is_to_move_and_the_other_wins() {
        let g = TicTacToe::default().apply("x", "4").unwrap();
        // X resigns on O's move; it is no move of the board's, and not among the cells.
        assert!(!g.legal_actions("o").contains(&"resign".to_owned()));
        let over = g.apply("x", "resign").unwrap();
        assert!(over.is_terminal());
        assert_eq!(over.state()["result"], "o_wins_by_resignation");
        assert_eq!(over.ending().as_deref(), Some("O wins by resignation"));
        assert_eq!(over.headline("x", &Mark::Resign), "resigns");
        assert_eq!(
            over.render(None, Reading::at(0)).last().unwrap(),
            "O wins by resignation."
        );
        assert_eq!(over.decided(), Some(head_to_head(["x", "o"], Some(1))));
        assert_eq!(over.apply("o", "resign").unwrap_err(), GameError::Finished);
        assert!(g.apply("z", "resign").is_err());
    }

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
            Some(Computer::Act(a)) => a.to_string(),
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

    fn clocked(limit: &str) -> TicTacToe {
        TicTacToe::new(0, &json!({ "clock": limit })).unwrap()
    }

    #[test]
    fn a_move_limit_falls_due_only_at_its_time_and_a_move_resets_it() {
        let g = clocked("30s");
        assert_eq!(
            g.deadline(),
            Some(Deadline {
                at: 30_000,
                action: Mark::Flag
            })
        );
        assert_eq!(g.owing(), ["x"]);
        let g = g.apply_at("x", "4", 20_000).unwrap();
        assert_eq!(g.deadline().unwrap().at, 50_000);
        assert_eq!(g.owing(), ["o"]);
        assert_eq!(
            g.render(None, Reading::at(26_000)).last().unwrap(),
            "Clock 30s per move: O has 0:24 to move."
        );
        // Early, the server cannot take it, and only the server can.
        assert_eq!(
            g.apply_at(SERVER_ROLE, "flag", 49_999).unwrap_err(),
            GameError::Illegal("The time has not run out".into())
        );
        assert!(g.apply_at("x", "flag", 50_000).is_err());
        // A move at the deadline is too late; one just before it is in time.
        assert_eq!(
            g.apply_at("o", "0", 50_000).unwrap_err(),
            GameError::Illegal("Your time has run out".into())
        );
        assert!(g.apply_at("o", "0", 49_999).is_ok());
        // A game without a clock has no deadline, and the server has nothing to take.
        let plain = TicTacToe::default();
        assert_eq!(plain.deadline(), None);
        assert!(plain.owing().is_empty());
        assert!(plain.apply_at(SERVER_ROLE, "flag", u64::MAX).is_err());
        assert_eq!(plain.apply_at("x", "4", u64::MAX).unwrap().deadline(), None);
    }

    #[test]
    fn the_side_that_runs_out_of_time_loses() {
        let g = clocked("1d").apply_at("x", "4", 1_000).unwrap();
        let end = g.apply_at(SERVER_ROLE, "flag", 1_000 + 86_400_000).unwrap();
        assert!(end.is_terminal());
        assert_eq!(end.state()["result"], "x_wins_on_time");
        assert_eq!(end.ending().as_deref(), Some("X wins on time"));
        assert_eq!(end.headline(SERVER_ROLE, &Mark::Flag), "O runs out of time");
        assert_eq!(end.decided(), Some(head_to_head(["x", "o"], Some(0))));
        assert_eq!(end.deadline(), None);
        assert!(end.owing().is_empty() && end.legal_actions("o").is_empty());
        assert!(end.computer("o", &Value::Null, 1).is_none());
        let shown = end.render(None, Reading::at(0));
        assert_eq!(
            shown[shown.len() - 2..],
            ["X wins on time.", "Clock 1d per move."]
        );
        // X, first to move, idles: O wins.
        let end = clocked("10s")
            .apply_at(SERVER_ROLE, "flag", 10_000)
            .unwrap();
        assert_eq!(end.state()["result"], "o_wins_on_time");
        assert_eq!(end.decided(), Some(head_to_head(["x", "o"], Some(1))));
        assert_eq!(end.headline(SERVER_ROLE, &Mark::Flag), "X runs out of time");
    }

    #[test]
    fn a_clocked_game_replays_from_its_times_and_an_unclocked_one_is_stored_as_before() {
        let t = &moot_game_api::template::<TicTacToe>();
        let options = json!({ "clock": "5m" });
        let log = [
            ("x", "4", 1_000),
            ("o", "0", 200_000),
            ("x", "8", 350_000),
            (SERVER_ROLE, "flag", 650_000),
        ];
        let once = moot_game_api::replay(t, 0, &options, log).unwrap();
        let twice = moot_game_api::replay(t, 0, &options, log).unwrap();
        assert_eq!(once.state_text(), twice.state_text());
        assert_eq!(
            once.state(),
            json!({"board": "o...x...x", "turn": "o", "result": "x_wins_on_time",
                   "clock": {"per_move_ms": 300_000, "since": 350_000}})
        );
        // A flag a moment early does not replay.
        let early = [log[0], log[1], log[2], (SERVER_ROLE, "flag", 649_999)];
        assert!(moot_game_api::replay(t, 0, &options, early).is_err());
        let plain = moot_game_api::replay(t, 0, &json!({}), [("x", "4", 5)]).unwrap();
        assert_eq!(
            plain.state_text(),
            r#"{"board":"....x....","result":null,"turn":"o"}"#
        );
    }

    #[test]
    fn a_bad_clock_or_option_is_refused_clearly() {
        match TicTacToe::new(0, &json!({ "clock": "5+3" })) {
            Err(GameError::BadOptions(m)) => assert!(m.contains("30s, 5m, 2h or 3d"), "{m}"),
            other => panic!("{other:?}"),
        }
        for o in [json!({ "clock": 30 }), json!({ "speed": 1 }), json!([1])] {
            assert!(matches!(
                TicTacToe::new(0, &o),
                Err(GameError::BadOptions(_))
            ));
        }
        assert_eq!(
            TicTacToe::new(0, &json!({ "clock": "none" })),
            Ok(TicTacToe::default())
        );
    }

    #[test]
    fn the_text_board_numbers_the_empty_cells() {
        let g = TicTacToe::default().apply("x", "4").unwrap();
        assert_eq!(
            g.render(None, Reading::at(0)),
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

    /// For a screen reader: each mark's cells by name, the empty ones, and one cell on request
    /// by its number or its name.
    #[test]
    fn a_screen_reader_hears_the_cells_by_name() {
        let g = TicTacToe::new(0, &Value::Null)
            .unwrap()
            // The log's spelling counts cells from 0.
            .apply("x", "4")
            .unwrap()
            .apply("o", "0")
            .unwrap();
        let plain = Reading::at(0).plain();
        assert_eq!(
            g.render(None, plain),
            [
                "X: centre (5).",
                "O: top left (1).",
                "Empty: top (2), top right (3), left (4), right (6), bottom left (7), bottom (8), \
                 bottom right (9).",
                "X to move."
            ]
        );
        for asked in ["5", "centre", "the centre"] {
            assert_eq!(
                g.glance(None, Glance::Square(asked), plain).as_deref(),
                Some("The centre (5): X."),
                "{asked}"
            );
        }
        assert_eq!(g.glance(None, Glance::Square("e4"), plain), None);
    }
}
