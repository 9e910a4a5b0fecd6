//! A time limit per move (`30s`, `3d`), shared by the templates that offer one: the side to
//! move has that long for this move, and time not used is not carried over (lichess's
//! correspondence, "days per move"). Like every template's state it is pure: the time of each
//! move comes in as the game time of [`super::Game::apply_at`], and nothing here reads a clock.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Deadline, GameError, GameTime};

const SECOND: u64 = 1000;
const MINUTE: u64 = 60 * SECOND;
const HOUR: u64 = 60 * MINUTE;
const DAY: u64 = 24 * HOUR;

/// Units from the largest, so a limit shows itself in the largest that divides it.
const UNITS: [(char, u64); 4] = [('d', DAY), ('h', HOUR), ('m', MINUTE), ('s', SECOND)];

/// Under ten seconds nobody can type a move, and past a fortnight a game would outlive its
/// players' interest (lichess's correspondence goes to fourteen days).
const SHORTEST: u64 = 10 * SECOND;
const LONGEST: u64 = 14 * DAY;

/// The forms [`MoveLimit::parse`] reads, for a refusal to name.
pub const FORMS: &str = "a whole number of seconds, minutes, hours or days per move, like 30s, \
                         5m, 2h or 3d (10 seconds to 14 days)";

/// How long each move may take, and when the side to move began its turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MoveLimit {
    pub per_move_ms: u64,
    /// The game time at which the side to move began its turn.
    pub since: GameTime,
}

impl MoveLimit {
    /// Reads `30s`, `5m`, `2h` or `3d`: a whole number and one unit, from 10 seconds to 14
    /// days. The game starts its first turn at game time 0.
    pub fn parse(text: &str) -> Result<MoveLimit, GameError> {
        let bad =
            || GameError::BadOptions(format!("`{text}` is not a time per move; write {FORMS}"));
        let t = text.trim().to_ascii_lowercase();
        let unit = t.chars().last().ok_or_else(bad)?;
        let &(_, size) = UNITS.iter().find(|(u, _)| *u == unit).ok_or_else(bad)?;
        let n: u64 = t[..t.len() - 1].trim().parse().map_err(|_| bad())?;
        let per_move_ms = n.checked_mul(size).ok_or_else(bad)?;
        if !(SHORTEST..=LONGEST).contains(&per_move_ms) {
            return Err(bad());
        }
        Ok(MoveLimit {
            per_move_ms,
            since: 0,
        })
    }

    /// A template's `clock` option as a per-move limit: none when absent or `none`.
    pub fn option(value: Option<&Value>) -> Result<Option<MoveLimit>, GameError> {
        match value {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(c)) if c.trim() == "none" => Ok(None),
            Some(Value::String(c)) => MoveLimit::parse(c).map(Some),
            Some(_) => Err(GameError::BadOptions(format!(
                "`clock` must be a string: {FORMS}"
            ))),
        }
    }

    /// When the side to move runs out of time.
    pub fn due(&self) -> GameTime {
        self.since.saturating_add(self.per_move_ms)
    }

    /// The deadline the server actor takes with `action` when the side to move runs out.
    pub fn deadline<A>(&self, action: A) -> Deadline<A> {
        Deadline {
            at: self.due(),
            action,
        }
    }

    /// Whether a move at game time `at` comes too late: at the deadline itself it does, as a
    /// flag that has fallen has fallen.
    pub fn expired(&self, at: GameTime) -> bool {
        at >= self.due()
    }

    /// The limit after a move made at game time `at`: the next side's turn begins then.
    pub fn moved(self, at: GameTime) -> MoveLimit {
        MoveLimit { since: at, ..self }
    }

    /// Checks the server actor's `action` (`flag`, if `is_flag`) against a game with `clock`,
    /// for templates that give each move a limit: only `flag`, and only once the side to move
    /// is out of time.
    pub fn check_flag(
        clock: Option<MoveLimit>,
        is_flag: bool,
        action: &str,
        at: GameTime,
    ) -> Result<(), GameError> {
        match (is_flag, clock) {
            (true, Some(l)) if l.expired(at) => Ok(()),
            (true, Some(_)) => Err(GameError::Illegal("The time has not run out".into())),
            (true, None) => Err(GameError::Illegal("This game has no clock".into())),
            _ => Err(GameError::Illegal(format!("The server cannot `{action}`"))),
        }
    }

    /// A game's `clock` after a move made at game time `at`, or the refusal of a move that
    /// came too late.
    pub fn after_move(
        clock: Option<MoveLimit>,
        at: GameTime,
    ) -> Result<Option<MoveLimit>, GameError> {
        match clock {
            Some(l) if l.expired(at) => Err(GameError::Illegal("Your time has run out".into())),
            Some(l) => Ok(Some(l.moved(at))),
            None => Ok(None),
        }
    }

    /// The time the side to move has left at game time `now`.
    pub fn left_at(&self, now: GameTime) -> u64 {
        self.due().saturating_sub(now)
    }

    /// The limit as a player reads it: "Clock 90s per move: Red has 1:23 to drop." while the
    /// game runs (`mover` has what is left, `to` is the move's verb), and "Clock 90s per move."
    /// once it is over. The time left is the wall clock's, whatever `--time-scale` does.
    pub fn line(&self, over: bool, mover: &str, to: &str, r: crate::Reading) -> String {
        match over {
            true => format!("Clock {} per move.", self.text()),
            false => format!(
                "Clock {} per move: {mover} has {} to {to}.",
                self.text(),
                left_text(r.wall_ms(self.left_at(r.now)))
            ),
        }
    }

    /// The limit as [`MoveLimit::parse`] reads it: `3d`, `90s`.
    pub fn text(&self) -> String {
        let (unit, size) = UNITS
            .iter()
            .copied()
            .find(|(_, size)| self.per_move_ms.is_multiple_of(*size))
            .unwrap_or(('s', SECOND));
        format!("{}{unit}", self.per_move_ms / size)
    }
}

/// Time left for a move, as people read it: `2d 23h`, `5h 12m`, `4:59`.
pub fn left_text(ms: u64) -> String {
    let s = ms / SECOND;
    if ms >= DAY {
        format!("{}d {}h", ms / DAY, (ms % DAY) / HOUR)
    } else if ms >= HOUR {
        format!("{}h {}m", ms / HOUR, (ms % HOUR) / MINUTE)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_reads_each_unit_and_shows_itself_back() {
        for (text, ms, shown) in [
            ("30s", 30_000, "30s"),
            ("5m", 300_000, "5m"),
            ("2h", 7_200_000, "2h"),
            ("3d", 259_200_000, "3d"),
            (" 1D ", 86_400_000, "1d"),
            ("90s", 90_000, "90s"),
            ("120s", 120_000, "2m"),
            ("14d", 14 * 86_400_000, "14d"),
            ("10s", 10_000, "10s"),
        ] {
            let l = MoveLimit::parse(text).unwrap();
            assert_eq!((l.per_move_ms, l.since), (ms, 0), "{text}");
            assert_eq!(l.text(), shown);
            assert_eq!(MoveLimit::parse(&l.text()).unwrap(), l);
        }
    }

    #[test]
    fn a_limit_out_of_bounds_or_misspelt_names_the_forms() {
        for text in [
            "9s", "15d", "0m", "3", "d", "", "3w", "1.5h", "-1d", "5+3", "3 days",
        ] {
            match MoveLimit::parse(text) {
                Err(GameError::BadOptions(m)) => {
                    assert!(m.contains("30s, 5m, 2h or 3d"), "{text}: {m}");
                    assert!(m.contains("10 seconds to 14 days"), "{text}: {m}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        assert!(MoveLimit::parse("99999999999999999999d").is_err());
        assert!(MoveLimit::option(Some(&serde_json::json!(30))).is_err());
        assert_eq!(
            MoveLimit::option(Some(&serde_json::json!("none"))),
            Ok(None)
        );
        assert_eq!(MoveLimit::option(None), Ok(None));
    }

    #[test]
    fn the_deadline_is_a_move_s_length_after_the_turn_began_and_a_move_resets_it() {
        let l = MoveLimit::parse("30s").unwrap();
        assert_eq!(l.deadline("flag").at, 30_000);
        assert!(!l.expired(29_999) && l.expired(30_000));
        let l = l.moved(25_000);
        assert_eq!(l.due(), 55_000);
        assert_eq!(l.left_at(40_000), 15_000);
        assert_eq!(l.left_at(60_000), 0);
        assert!(!l.expired(54_999));
    }

    #[test]
    fn time_left_reads_in_days_hours_or_minutes() {
        assert_eq!(left_text(3 * DAY - HOUR), "2d 23h");
        assert_eq!(left_text(5 * HOUR + 12 * MINUTE + 7 * SECOND), "5h 12m");
        assert_eq!(left_text(4 * MINUTE + 59 * SECOND + 900), "4:59");
        assert_eq!(left_text(0), "0:00");
    }

    #[test]
    fn a_limit_is_stored_as_its_two_numbers() {
        let l = MoveLimit::parse("1d").unwrap().moved(5);
        let v = serde_json::to_value(l).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"per_move_ms": 86_400_000, "since": 5})
        );
        assert_eq!(serde_json::from_value::<MoveLimit>(v).unwrap(), l);
    }
}

/// How a two-player game was lost other than on its board: the side to move ran out of time
/// (the server's `flag`), or a side gave it up (`resign`, see [`crate::Game::RESIGNS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Forfeit {
    Time,
    Resignation,
}

impl Forfeit {
    /// How the state's `result` ends: `x_wins_on_time`, `red_wins_by_resignation`.
    pub fn result_suffix(self) -> &'static str {
        match self {
            Forfeit::Time => "_on_time",
            Forfeit::Resignation => "_by_resignation",
        }
    }

    /// How a sentence says it: "O wins on time", "Red wins by resignation".
    pub fn words(self) -> &'static str {
        match self {
            Forfeit::Time => "on time",
            Forfeit::Resignation => "by resignation",
        }
    }
}
