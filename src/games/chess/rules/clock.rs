//! A chess clock: a time control (`5+3`) and each side's time, charged from the game time of
//! each action (the rules never read a clock), as lichess's `Clock` is apart from its game; or
//! a correspondence game's time per move (`3d`), the limit every template shares.

use serde::{Deserialize, Serialize};

use super::Side;
use moot_game_api::{GameError, GameTime, MoveLimit, limit};

/// A game's time control: a clock each (`5+3`), or a time per move (`3d`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
// Untagged, so a clocked game's stored state is the clock as it always was, byte for byte.
#[serde(untagged)]
pub enum TimeControl {
    Fischer(Clock),
    PerMove(MoveLimit),
}

impl TimeControl {
    /// Reads `5+3` (minutes each, seconds added per move) or `3d` (a time per move).
    pub fn parse(text: &str) -> Result<TimeControl, GameError> {
        if text.contains('+') {
            return Clock::parse(text).map(TimeControl::Fischer);
        }
        MoveLimit::parse(text)
            .map(TimeControl::PerMove)
            .map_err(|_| not_a_clock(text))
    }

    /// The game time at which `to_move`'s flag falls.
    pub fn due(&self, to_move: Side) -> GameTime {
        match self {
            TimeControl::Fischer(c) => c.since + c.left(to_move),
            TimeControl::PerMove(l) => l.due(),
        }
    }

    /// `side`'s time at game time `now`, when `to_move` is thinking: a correspondence side
    /// not to move has its whole time per move ahead of it.
    pub fn left_at(&self, side: Side, to_move: Side, now: GameTime) -> u64 {
        match self {
            TimeControl::Fischer(c) => c.left_at(side, to_move, now),
            TimeControl::PerMove(l) if side == to_move => l.left_at(now),
            TimeControl::PerMove(l) => l.per_move_ms,
        }
    }

    /// Charges `mover`, who acted at game time `at`, when the turn passes: a clock loses the
    /// time spent and gains the increment for a move; a time per move starts again.
    pub(super) fn charge(&mut self, mover: Side, at: GameTime, moved: bool) {
        match self {
            TimeControl::Fischer(clock) => {
                let (since, increment) = (clock.since, clock.increment_ms);
                let left = clock.left_mut(mover);
                *left = left.saturating_sub(at.saturating_sub(since));
                if moved {
                    *left += increment;
                }
                clock.since = at;
            }
            TimeControl::PerMove(l) => *l = l.moved(at),
        }
    }

    /// `loser`'s flag has fallen at game time `due`. A time per move keeps the turn's start,
    /// so the loser's time left reads zero from then on.
    pub(super) fn fall(&mut self, loser: Side, due: GameTime) {
        if let TimeControl::Fischer(clock) = self {
            *clock.left_mut(loser) = 0;
            clock.since = due;
        }
    }

    /// Its rating class: the clock's band, or `correspondence`.
    pub fn class(&self) -> &'static str {
        match self {
            TimeControl::Fischer(c) => c.class(),
            TimeControl::PerMove(_) => "correspondence",
        }
    }

    /// "5+3", "3d"
    pub fn control(&self) -> String {
        match self {
            TimeControl::Fischer(c) => c.control(),
            TimeControl::PerMove(l) => l.text(),
        }
    }
}

fn not_a_clock(text: &str) -> GameError {
    GameError::BadOptions(format!(
        "`{text}` is not a clock; write minutes+increment, like 5+3 (minutes 1 to 180, \
         increment 0 to 180 seconds), or {}",
        limit::FORMS
    ))
}

/// A time control and where it stands: each side's time left when its turn began.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Clock {
    /// Each side's time at the start, in milliseconds.
    pub initial_ms: u64,
    /// Added to a side's time after each of its moves.
    pub increment_ms: u64,
    pub white_ms: u64,
    pub black_ms: u64,
    /// The game time at which the side to move began its turn.
    pub since: GameTime,
}

impl Clock {
    /// Reads a time control, `"5+3"`: minutes each (1 to 180), seconds added per move (0 to
    /// 180).
    pub fn parse(text: &str) -> Result<Clock, GameError> {
        let bad = || not_a_clock(text);
        let (m, i) = text.trim().split_once('+').ok_or_else(bad)?;
        let m: u64 = m.trim().parse().map_err(|_| bad())?;
        let i: u64 = i.trim().parse().map_err(|_| bad())?;
        if !(1..=180).contains(&m) || i > 180 {
            return Err(bad());
        }
        Ok(Clock {
            initial_ms: m * 60_000,
            increment_ms: i * 1000,
            white_ms: m * 60_000,
            black_ms: m * 60_000,
            since: 0,
        })
    }

    /// `side`'s time left when its turn began (or its time now, if it is not to move).
    pub fn left(&self, side: Side) -> u64 {
        match side {
            Side::White => self.white_ms,
            Side::Black => self.black_ms,
        }
    }

    pub(super) fn left_mut(&mut self, side: Side) -> &mut u64 {
        match side {
            Side::White => &mut self.white_ms,
            Side::Black => &mut self.black_ms,
        }
    }

    /// `side`'s time left at game time `now`, when `to_move` is thinking.
    pub fn left_at(&self, side: Side, to_move: Side, now: GameTime) -> u64 {
        let left = self.left(side);
        if side == to_move {
            left.saturating_sub(now.saturating_sub(self.since))
        } else {
            left
        }
    }

    /// Its class by lichess's bands of estimated game time (the initial time plus forty
    /// increments): bullet under 3 minutes, blitz under 8, rapid under 25, classical beyond.
    /// (Ultrabullet, under 30 seconds, cannot be set here: a clock has a minute at least.)
    pub fn class(&self) -> &'static str {
        let estimate_s = (self.initial_ms + 40 * self.increment_ms) / 1000;
        match estimate_s {
            0..29 => "ultrabullet",
            29..179 => "bullet",
            179..479 => "blitz",
            479..1499 => "rapid",
            _ => "classical",
        }
    }

    /// "5+3"
    pub fn control(&self) -> String {
        format!("{}+{}", self.initial_ms / 60_000, self.increment_ms / 1000)
    }
}

/// "4:59", or "0:07.3" under ten seconds, as clocks show it.
pub fn clock_text(ms: u64) -> String {
    let s = ms / 1000;
    if ms < 10_000 {
        format!("0:{:02}.{}", s, (ms % 1000) / 100)
    } else if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}
