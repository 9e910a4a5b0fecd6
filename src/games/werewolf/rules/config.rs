//! What a match runs by: its timers (all tunable), the players' names and which
//! seats the house's bots take. Read from a session's options, strictly: an unknown key is
//! refused, so a typo never runs a match on defaults nobody asked for.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::SEATS;
use moot_game_api::{GameError, GameTime};

/// Each phase's length, in seconds of game time (`--time-scale` makes them pass faster).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Timers {
    pub lobby: f64,
    pub night: f64,
    pub day_announce: f64,
    /// Each speaker's turn in DAY_OPENING (the phase is at most this times the living).
    pub opening_each: f64,
    pub day_discussion: f64,
    pub day_vote: f64,
    pub day_resolution: f64,
    /// How long NIGHT, DAY_OPENING and DAY_VOTE last at least, even once everyone has acted,
    /// so spectators can follow.
    pub min_dwell: f64,
}

impl Default for Timers {
    fn default() -> Timers {
        Timers {
            lobby: 30.0,
            night: 45.0,
            day_announce: 10.0,
            opening_each: 15.0,
            day_discussion: 90.0,
            day_vote: 45.0,
            day_resolution: 10.0,
            min_dwell: 3.0,
        }
    }
}

/// When spectators may see everything of a match (every card, the wolves' talk, the seer's
/// visions): while it runs, or once it has ended. `live` lets anyone, a throwaway identity too,
/// read the cards of a match in play; a player with a second identity could read their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Spectating {
    Live,
    #[default]
    After,
}

impl Spectating {
    pub fn name(self) -> &'static str {
        match self {
            Spectating::Live => "LIVE",
            Spectating::After => "AFTER",
        }
    }
}

/// A match's configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct Config {
    pub timers: Timers,
    /// Display names by seat (seat 1 first); "Player N" where missing.
    pub names: Vec<String>,
    /// Seats (1 to 8) the house's bots take: labelled as bots everywhere.
    pub bots: Vec<u8>,
    /// Seconds between one player's public messages (default 3: one message / 3 s, so nobody
    /// drowns the day).
    pub public_chat_gap: f64,
    /// Seconds between one wolf's chat messages (default 2: one message / 2 s).
    pub wolf_chat_gap: f64,
    /// Days after which a match that nobody has won ends without a winner, so no match can be
    /// kept going for ever (the rules set no limit; eight players rarely pass day 5).
    pub max_days: u32,
    /// When spectators may see everything (`"live"` or `"after"`, the default).
    pub spectating: Spectating,
    /// How many times faster than the wall clock the town ran game time when the match began
    /// (`--time-scale`): the lengths the match's lines name are divided by it, so that a
    /// person reads the seconds they will wait. It changes no rule.
    pub pace: f64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            timers: Timers::default(),
            names: Vec::new(),
            bots: Vec::new(),
            public_chat_gap: 3.0,
            wolf_chat_gap: 2.0,
            max_days: 20,
            spectating: Spectating::After,
            pace: 1.0,
        }
    }
}

/// The longest display name (the queue's `preferredDisplayName`).
pub const NAME_MAX: usize = 32;

/// A display name, which players read at the start of lines ("Ann votes to eliminate Bob."):
/// one word of letters, digits, `_` and `-` that starts with a letter, as a character's name is,
/// so that none can pose as the Town Crier, a notice or another's words; and "Bot-…" only for
/// the house's bots, so that no person passes for one.
pub fn check_name(name: &str, bot: bool) -> Result<(), String> {
    let word = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !word || name.chars().count() > NAME_MAX {
        return Err(format!(
            "A display name is 1 to {NAME_MAX} letters, digits, '_' or '-', starting with a letter"
        ));
    }
    if !bot
        && name
            .get(..4)
            .is_some_and(|p| p.eq_ignore_ascii_case("bot-"))
    {
        return Err("Display names starting with \"Bot-\" belong to the house's bots".into());
    }
    Ok(())
}

impl Config {
    pub fn from_options(options: &Value) -> Result<Config, GameError> {
        let bad = |m: String| GameError::BadOptions(m);
        let c: Config = match options {
            Value::Null => Config::default(),
            v => serde_json::from_value(v.clone()).map_err(|e| bad(e.to_string()))?,
        };
        let t = &c.timers;
        let all = [
            t.lobby,
            t.night,
            t.day_announce,
            t.opening_each,
            t.day_discussion,
            t.day_vote,
            t.day_resolution,
            t.min_dwell,
            c.public_chat_gap,
            c.wolf_chat_gap,
        ];
        if all
            .iter()
            .any(|s| !s.is_finite() || *s < 0.0 || *s > 86_400.0)
        {
            return Err(bad("timers are seconds from 0 to 86400".into()));
        }
        if c.names.len() > SEATS {
            return Err(bad(format!("at most {SEATS} names")));
        }
        if c.bots.iter().any(|&b| b == 0 || usize::from(b) > SEATS) {
            return Err(bad(format!("bots are seats 1 to {SEATS}")));
        }
        for (i, name) in c.names.iter().enumerate() {
            let bot = c.bots.iter().any(|&b| usize::from(b) == i + 1);
            check_name(name, bot).map_err(bad)?;
            // Players tell each other apart by name alone.
            if c.names.iter().take(i).any(|n| n.eq_ignore_ascii_case(name)) {
                return Err(bad(format!("the display name {name} is given twice")));
            }
        }
        if !(c.pace.is_finite() && c.pace > 0.0 && c.pace <= 1e6) {
            return Err(bad("pace is a number above 0".into()));
        }
        if !(1..=100).contains(&c.max_days) {
            return Err(bad("maxDays is 1 to 100".into()));
        }
        Ok(c)
    }

    pub fn ms(seconds: f64) -> GameTime {
        (seconds * 1000.0).round() as GameTime
    }
}
