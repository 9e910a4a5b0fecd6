//! `connect4.v1`: Connect Four, pure. Seven columns of six; red drops first; a disc falls to
//! the lowest empty cell of its column; four in a row in any direction wins; a full board
//! without one is a draw. An action is a column, `1` to `7`, as people count them.
//!
//! The house looks a few drops ahead (a small negamax with alpha-beta): it always takes a win
//! it has and blocks one it would give; its level (options `{"level": 1..3}`) says how far.
//!
//! With `{"clock": "1d"}` (any [`MoveLimit`]) each drop must come within that time of the
//! last; when it does not, the server actor's `flag` gives the game to the other side. Either
//! side may `resign` at any time.

#![warn(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use moot_game_api::{
    Computer, Deadline, Forfeit, Game, GameError, GameTime, Glance, MoveLimit, Reading, SERVER_ROLE,
};

pub const COLS: usize = 7;
pub const ROWS: usize = 6;

/// One of the two players' discs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disc {
    Red,
    Yellow,
}

impl Disc {
    pub fn role(self) -> &'static str {
        match self {
            Disc::Red => "red",
            Disc::Yellow => "yellow",
        }
    }

    fn letter(self) -> char {
        match self {
            Disc::Red => 'R',
            Disc::Yellow => 'Y',
        }
    }

    fn other(self) -> Disc {
        match self {
            Disc::Red => Disc::Yellow,
            Disc::Yellow => Disc::Red,
        }
    }

    fn named(role: &str) -> Option<Disc> {
        match role {
            "red" => Some(Disc::Red),
            "yellow" => Some(Disc::Yellow),
            _ => None,
        }
    }
}

/// The board, column by column from the left, each from the bottom up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connect4 {
    columns: [[Option<Disc>; ROWS]; COLS],
    /// The columns dropped into, in order (1 to 7).
    drops: Vec<u8>,
    /// How far the house looks ahead (1 to 3).
    level: u8,
    clock: Option<MoveLimit>,
    /// The side that lost other than on the board, and how.
    forfeit: Option<(Disc, Forfeit)>,
}

/// The four directions a line may run in: across, up, and both diagonals.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (1, 1), (1, -1)];

impl Connect4 {
    pub fn turn(&self) -> Disc {
        if self.drops.len().is_multiple_of(2) {
            Disc::Red
        } else {
            Disc::Yellow
        }
    }

    fn at(&self, col: i32, row: i32) -> Option<Disc> {
        let c = usize::try_from(col).ok()?;
        let r = usize::try_from(row).ok()?;
        self.columns.get(c)?.get(r).copied().flatten()
    }

    /// The lowest empty row of column `col` (0-based), if it is not full.
    fn free_row(&self, col: usize) -> Option<usize> {
        self.columns.get(col)?.iter().position(Option::is_none)
    }

    /// The four cells of a line that wins, if there is one.
    pub fn winning_line(&self) -> Option<(Disc, [(usize, usize); 4])> {
        for col in 0..COLS as i32 {
            for row in 0..ROWS as i32 {
                let Some(d) = self.at(col, row) else {
                    continue;
                };
                for (dc, dr) in DIRECTIONS {
                    if (1..4).all(|k| self.at(col + dc * k, row + dr * k) == Some(d)) {
                        let cell = |k: i32| ((col + dc * k) as usize, (row + dr * k) as usize);
                        return Some((d, [cell(0), cell(1), cell(2), cell(3)]));
                    }
                }
            }
        }
        None
    }

    fn winner(&self) -> Option<Disc> {
        self.winning_line().map(|(d, _)| d)
    }

    /// The winner, on the board or on time.
    fn victor(&self) -> Option<Disc> {
        self.winner().or(self.forfeit.map(|(l, _)| l.other()))
    }

    fn full(&self) -> bool {
        self.drops.len() == COLS * ROWS
    }

    /// The columns (0-based) a disc may be dropped into now.
    fn open_columns(&self) -> Vec<usize> {
        if self.winner().is_some() {
            return Vec::new();
        }
        (0..COLS).filter(|&c| self.free_row(c).is_some()).collect()
    }

    fn dropped(&self, col: usize) -> Option<Connect4> {
        let row = self.free_row(col)?;
        let mut next = self.clone();
        let cell = next.columns.get_mut(col)?.get_mut(row)?;
        *cell = Some(self.turn());
        next.drops.push(col as u8 + 1);
        Some(next)
    }

    /// A column as a screen reader speaks it, from the bottom up: "Column 4: red, yellow;
    /// 4 free."
    fn column_text(&self, col: usize) -> String {
        let discs: Vec<&str> = self.columns[col]
            .iter()
            .flatten()
            .map(|d| d.role())
            .collect();
        let free = ROWS - discs.len();
        match (discs.is_empty(), free) {
            (true, _) => format!("Column {}: empty.", col + 1),
            (false, 0) => format!("Column {}: {}; full.", col + 1, discs.join(", ")),
            (false, n) => format!("Column {}: {}; {n} free.", col + 1, discs.join(", ")),
        }
    }

    /// The per-move limit, if the game has one, with the time left in the wall clock's time.
    fn clock_line(&self, r: Reading) -> Option<String> {
        let mover = moot_game_api::text::capitalize(self.turn().role());
        Some(self.clock?.line(self.is_terminal(), &mover, "drop", r))
    }

    /// The rows from the top, `.` for empty, `R` and `Y` for the discs.
    pub fn rows(&self) -> Vec<String> {
        (0..ROWS)
            .rev()
            .map(|r| {
                (0..COLS)
                    .map(|c| self.at(c as i32, r as i32).map_or('.', Disc::letter))
                    .collect()
            })
            .collect()
    }

    /// A column's number from an action (`4`), checked.
    /// How good the board is for `me`, without looking ahead: lines of four that only one
    /// side can still make count by how full they are, and the centre column counts a little.
    fn score(&self, me: Disc) -> i32 {
        let mut score = 0;
        for col in 0..COLS as i32 {
            for row in 0..ROWS as i32 {
                for (dc, dr) in DIRECTIONS {
                    let (end_c, end_r) = (col + dc * 3, row + dr * 3);
                    if !(0..COLS as i32).contains(&end_c) || !(0..ROWS as i32).contains(&end_r) {
                        continue;
                    }
                    let (mut mine, mut theirs) = (0, 0);
                    for k in 0..4 {
                        match self.at(col + dc * k, row + dr * k) {
                            Some(d) if d == me => mine += 1,
                            Some(_) => theirs += 1,
                            None => {}
                        }
                    }
                    score += match (mine, theirs) {
                        (3, 0) => 5,
                        (2, 0) => 2,
                        (0, 3) => -5,
                        (0, 2) => -2,
                        _ => 0,
                    };
                }
            }
        }
        for row in 0..ROWS as i32 {
            match self.at(COLS as i32 / 2, row) {
                Some(d) if d == me => score += 3,
                Some(_) => score -= 3,
                None => {}
            }
        }
        score
    }

    /// Negamax with alpha-beta: the value of the board for the side to move, `depth` drops
    /// ahead. A win sooner is worth more than a win later.
    fn negamax(&self, depth: u8, mut alpha: i32, beta: i32) -> i32 {
        const WIN: i32 = 100_000;
        if let Some(w) = self.winner() {
            // The side that just dropped has won.
            let sooner = i32::from(depth);
            return if w == self.turn() {
                WIN + sooner
            } else {
                -WIN - sooner
            };
        }
        if self.full() {
            return 0;
        }
        if depth == 0 {
            return self.score(self.turn());
        }
        let mut best = i32::MIN + 1;
        for col in ORDER {
            let Some(next) = self.dropped(col) else {
                continue;
            };
            let v = -next.negamax(depth - 1, -beta, -alpha);
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// The house's column (0-based): a win now, else a block, else the best by a short search,
    /// choosing among equals by the seed.
    pub fn house_column(&self, seed: u64) -> Option<usize> {
        let open = self.open_columns();
        let me = self.turn();
        let wins = |who: Disc| {
            open.iter().copied().find(|&c| {
                // The disc dropped is `who`'s, whoever's turn it is.
                let mut g = self.clone();
                let Some(cell) = g.free_row(c).and_then(|r| g.columns.get_mut(c)?.get_mut(r))
                else {
                    return false;
                };
                *cell = Some(who);
                g.winner() == Some(who)
            })
        };
        if let Some(c) = wins(me).or_else(|| wins(me.other())) {
            return Some(c);
        }
        let depth = 2 * self.level.clamp(1, 3);
        let mut best: Vec<usize> = Vec::new();
        let mut best_value = i32::MIN;
        for c in ORDER {
            let Some(next) = self.dropped(c) else {
                continue;
            };
            let v = -next.negamax(depth - 1, -i32::MAX, i32::MAX);
            if v > best_value {
                best_value = v;
                best.clear();
            }
            if v == best_value {
                best.push(c);
            }
        }
        let n = best.len().max(1) as u64;
        best.get((seed % n) as usize).copied()
    }
}

/// Columns from the centre out, so the search cuts off sooner.
const ORDER: [usize; COLS] = [3, 2, 4, 1, 5, 0, 6];

/// A disc dropped in a column (0 to 6 here; the log and people count 1 to 7), a side's
/// `resign`, or the server actor's `flag` when the side to move runs out of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscDrop {
    Column(usize),
    Resign,
    Flag,
}

impl std::str::FromStr for DiscDrop {
    type Err = GameError;
    fn from_str(s: &str) -> Result<DiscDrop, GameError> {
        match s.trim() {
            "flag" => return Ok(DiscDrop::Flag),
            "resign" => return Ok(DiscDrop::Resign),
            _ => {}
        }
        s.trim()
            .parse::<usize>()
            .ok()
            .filter(|c| (1..=COLS).contains(c))
            .map(|c| DiscDrop::Column(c - 1))
            .ok_or_else(|| GameError::Illegal(format!("`{s}` is not a column 1 to 7")))
    }
}

impl std::fmt::Display for DiscDrop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiscDrop::Column(c) => write!(f, "{}", c + 1),
            DiscDrop::Resign => f.write_str("resign"),
            DiscDrop::Flag => f.write_str("flag"),
        }
    }
}

impl Game for Connect4 {
    type Action = DiscDrop;
    const TEMPLATE: &'static str = "connect4.v1";
    const ROLES: &'static [&'static str] = &["red", "yellow"];
    const SEQUENTIAL: bool = true;
    const TABLE: &'static str = "connect4_table";
    const HOUSE_PLAYS: bool = true;
    const RESIGNS: bool = true;
    const TITLE: &'static str = "Connect Four";

    /// Options: the house's `level`, and `clock`, a time per move (`30s`, `1d`).
    fn new(_seed: u64, options: &Value) -> Result<Connect4, GameError> {
        let bad = |why: &str| GameError::BadOptions(format!("connect4.v1: {why}"));
        let (level, clock) = match options {
            Value::Null => (2, None),
            Value::Object(o) => {
                if let Some(k) = o.keys().find(|k| *k != "level" && *k != "clock") {
                    return Err(bad(&format!(
                        "unknown option `{k}` (only `level` and `clock`)"
                    )));
                }
                let level = match o.get("level") {
                    None => 2,
                    Some(l) => l
                        .as_u64()
                        .filter(|l| (1..=3).contains(l))
                        .map(|l| l as u8)
                        .ok_or_else(|| bad("`level` is 1, 2 or 3"))?,
                };
                (level, MoveLimit::option(o.get("clock"))?)
            }
            _ => return Err(bad("options are an object")),
        };
        Ok(Connect4 {
            columns: [[None; ROWS]; COLS],
            drops: Vec::new(),
            level,
            clock,
            forfeit: None,
        })
    }

    fn legal_actions(&self, role: &str) -> Vec<String> {
        if self.forfeit.is_some() || Disc::named(role) != Some(self.turn()) {
            return Vec::new();
        }
        self.open_columns()
            .into_iter()
            .map(|c| (c + 1).to_string())
            .collect()
    }

    fn act(&self, role: &str, drop: &DiscDrop) -> Result<Connect4, GameError> {
        // Either side gives the game up whenever it likes, whoever is to drop.
        if *drop == DiscDrop::Resign {
            let side = Disc::named(role).ok_or_else(|| GameError::UnknownRole(role.to_owned()))?;
            if self.is_terminal() {
                return Err(GameError::Finished);
            }
            return Ok(Connect4 {
                forfeit: Some((side, Forfeit::Resignation)),
                ..self.clone()
            });
        }
        if Disc::named(role) != Some(self.turn()) {
            return Err(GameError::NotYourTurn);
        }
        let DiscDrop::Column(col) = *drop else {
            return Err(GameError::Illegal(format!(
                "`{drop}` is not a column 1 to 7"
            )));
        };
        self.dropped(col)
            .ok_or_else(|| GameError::Illegal(format!("Column {} is full", col + 1)))
    }

    /// A drop starts the next side's time; one that comes at the deadline or after is too
    /// late. The server actor's only action is `flag`, once the side to move is out of time.
    fn act_at(&self, role: &str, drop: &DiscDrop, at: GameTime) -> Result<Connect4, GameError> {
        if role == SERVER_ROLE {
            MoveLimit::check_flag(self.clock, *drop == DiscDrop::Flag, &drop.to_string(), at)?;
            return Ok(Connect4 {
                forfeit: Some((self.turn(), Forfeit::Time)),
                ..self.clone()
            });
        }
        let next = self.act(role, drop)?;
        if *drop == DiscDrop::Resign {
            return Ok(next);
        }
        let clock = MoveLimit::after_move(self.clock, at)?;
        Ok(Connect4 { clock, ..next })
    }

    fn deadline(&self) -> Option<Deadline<DiscDrop>> {
        let l = self.clock.filter(|_| !self.is_terminal())?;
        Some(l.deadline(DiscDrop::Flag))
    }

    /// The side to move, whose time runs out.
    fn owing(&self) -> Vec<&'static str> {
        match self.deadline() {
            Some(_) => vec![self.turn().role()],
            None => Vec::new(),
        }
    }

    fn is_terminal(&self) -> bool {
        self.winner().is_some() || self.full() || self.forfeit.is_some()
    }

    const RECKONING: moot_game_api::Reckoning = moot_game_api::Reckoning::Rating;

    /// The computer's `level` is no rule of the game: every game shares one table.
    fn decided(&self) -> Option<Vec<moot_game_api::SideScore>> {
        let winner = match (self.victor(), self.full()) {
            (Some(w), _) => Some(usize::from(w.role() != Self::ROLES[0])),
            (None, true) => None,
            (None, false) => return None,
        };
        Some(moot_game_api::head_to_head(["red", "yellow"], winner))
    }

    fn state(&self) -> Value {
        let result = match (self.winner(), self.full(), self.forfeit) {
            (Some(w), _, _) => json!(format!("{}_wins", w.role())),
            (None, true, _) => json!("draw"),
            (None, false, Some((l, how))) => {
                json!(format!("{}_wins{}", l.other().role(), how.result_suffix()))
            }
            (None, false, None) => Value::Null,
        };
        let line = self
            .winning_line()
            .map(|(_, cells)| cells.map(|(c, r)| json!([c + 1, r + 1])).to_vec());
        let mut s = json!({
            "rows": self.rows(),
            "turn": self.turn().role(),
            "drops": self.drops,
            "result": result,
            "line": line,
            "level": self.level,
        });
        // Only when set: a game without a clock is stored as it always was.
        if let Some(l) = self.clock {
            s["clock"] = json!(l);
        }
        s
    }

    fn view(&self, _role: Option<&str>) -> Value {
        self.state()
    }

    fn render(&self, _viewer: Option<&str>, r: Reading) -> Vec<String> {
        let mut lines = match r.plain {
            true => (0..COLS).map(|c| self.column_text(c)).collect(),
            false => {
                let mut lines = vec!["   1 2 3 4 5 6 7".to_owned()];
                for row in self.rows() {
                    let cells: Vec<String> = row.chars().map(String::from).collect();
                    lines.push(format!("  |{}|", cells.join(" ")));
                }
                lines.push("  +-------------+".to_owned());
                lines
            }
        };
        lines.push(match self.ending() {
            Some(end) => format!("{}.", moot_game_api::text::capitalize(&end)),
            None => format!(
                "{} ({}) to drop.",
                moot_game_api::text::capitalize(self.turn().role()),
                self.turn().letter()
            ),
        });
        lines.extend(self.clock_line(r));
        lines
    }

    fn glance(&self, _viewer: Option<&str>, ask: Glance<'_>, r: Reading) -> Option<String> {
        match ask {
            Glance::Clock => self.clock_line(r),
            Glance::Square(name) => {
                let n: usize = name
                    .trim()
                    .trim_start_matches("column")
                    .trim()
                    .parse()
                    .ok()?;
                (1..=COLS).contains(&n).then(|| self.column_text(n - 1))
            }
        }
    }

    /// "drops a disc in column 4"; the server's flag: "Red runs out of time".
    fn headline(&self, role: &str, drop: &DiscDrop) -> String {
        if role == SERVER_ROLE {
            return match self.forfeit {
                Some((l, Forfeit::Time)) => format!(
                    "{} runs out of time",
                    moot_game_api::text::capitalize(l.role())
                ),
                _ => "has moved".to_owned(),
            };
        }
        match drop {
            DiscDrop::Column(c) => format!("drops a disc in column {}", c + 1),
            DiscDrop::Resign => "resigns".to_owned(),
            DiscDrop::Flag => "has moved".to_owned(),
        }
    }

    fn situation(&self) -> String {
        self.ending().unwrap_or_else(|| {
            format!(
                "{} to drop, move {}",
                self.turn().role(),
                self.drops.len() + 1
            )
        })
    }

    fn ending(&self) -> Option<String> {
        match (self.winner(), self.full(), self.forfeit) {
            (Some(w), _, _) => Some(format!("{} wins", w.role())),
            (None, true, _) => Some("a draw".to_owned()),
            (None, false, Some((l, how))) => {
                Some(format!("{} wins {}", l.other().role(), how.words()))
            }
            (None, false, None) => None,
        }
    }

    fn computer(&self, role: &str, _options: &Value, seed: u64) -> Option<Computer<DiscDrop>> {
        if self.is_terminal() || Disc::named(role) != Some(self.turn()) {
            return None;
        }
        let game = self.clone();
        Some(Computer::Think(Box::new(move |_| {
            game.house_column(seed).map(DiscDrop::Column)
        })))
    }
}

#[cfg(test)]
mod tests;
