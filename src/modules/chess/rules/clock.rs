//! A chess clock: a time control (`5+3`) and each side's time, charged from the game time of
//! each action (the rules never read a clock), as lichess's `Clock` is apart from its game.

use serde::{Deserialize, Serialize};

use super::Side;
use crate::games::{GameError, GameTime};

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
        let bad = || {
            GameError::BadOptions(format!(
                "`{text}` is not a clock; write minutes+increment, like 5+3 (minutes 1 to 180, \
                 increment 0 to 180 seconds)"
            ))
        };
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
