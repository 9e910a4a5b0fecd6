//! Tournaments, as a pure ledger: who entered, each round's pairings and their results, and
//! the standings they give. The server pairs; nobody picks their opponent, so an event cannot
//! be arranged between friends (or one person's alts). No clock and no I/O here: the world
//! feeds it entries, withdrawals and decided games, and asks it for the next pairings.
//!
//! Three formats, as lichess and the over-the-board world run them:
//! - [`Format::Swiss`]: a fixed number of rounds, players of equal score meet, nobody meets
//!   anyone twice, colours kept balanced, a bye (a point) to the lowest-placed player who has
//!   not had one when the field is odd ([`swiss`]);
//! - [`Format::RoundRobin`]: everyone meets everyone once, by Berger's tables ([`round_robin`]);
//! - [`Format::Arena`]: for a fixed time, whoever is free is paired at once with another free
//!   player of a like score, scored as lichess scores an arena: 2 a win, 1 a draw, doubled
//!   after two wins in a row until a game is not won ([`arena`]).
//!
//! Standings break ties by Buchholz (the sum of one's opponents' scores) and then
//! Sonneborn-Berger (the scores of those one beat, and half of those one drew with)
//! ([`standings`]).

pub mod arena;
pub mod round_robin;
pub mod standings;
pub mod swiss;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// An entrant's place in the event's list (they keep it after withdrawing).
pub type Entrant = usize;

/// How the event pairs and scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Format {
    Swiss { rounds: u32 },
    RoundRobin,
    Arena,
}

/// Who moves first in a game: the first of a pair (white at chess, red at Connect Four).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Side {
    First,
    Second,
}

/// How a game of the event ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    FirstWins,
    SecondWins,
    Draw,
    /// One of them did not come (or left): the other wins without a game.
    Forfeit {
        absent: Side,
    },
}

impl Outcome {
    /// The side that won (a forfeit: the one that came), or None for a draw.
    pub fn winner(self) -> Option<Side> {
        match self {
            Outcome::FirstWins => Some(Side::First),
            Outcome::SecondWins => Some(Side::Second),
            Outcome::Draw => None,
            Outcome::Forfeit {
                absent: Side::First,
            } => Some(Side::Second),
            Outcome::Forfeit {
                absent: Side::Second,
            } => Some(Side::First),
        }
    }
}

/// One pairing of a round: two entrants, the first moving first, or one with a bye.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    pub first: Entrant,
    /// None: a bye.
    pub second: Option<Entrant>,
    pub outcome: Option<Outcome>,
    /// What a bye scores, in halves: a Swiss's bye a point (2), a round-robin's rest nothing.
    pub bye_halves: u32,
}

impl Pairing {
    /// A game between `first` and `second`, undecided.
    pub fn game(first: Entrant, second: Entrant) -> Pairing {
        Pairing {
            first,
            second: Some(second),
            outcome: None,
            bye_halves: 0,
        }
    }

    /// A bye for `who`, worth `halves`.
    pub fn bye(who: Entrant, halves: u32) -> Pairing {
        Pairing {
            first: who,
            second: None,
            outcome: None,
            bye_halves: halves,
        }
    }

    /// Points in halves (a win 2, a draw 1) for `who`, once decided.
    pub fn halves_for(&self, who: Entrant) -> Option<u32> {
        let Some(_) = self.second else {
            return (self.first == who).then_some(self.bye_halves);
        };
        let side = self.side_of(who)?;
        Some(match self.outcome?.winner() {
            None => 1,
            Some(w) if w == side => 2,
            Some(_) => 0,
        })
    }

    /// Which side `who` plays, if they are in this pairing (a bye has only a first).
    pub fn side_of(&self, who: Entrant) -> Option<Side> {
        if self.first == who {
            Some(Side::First)
        } else if self.second == Some(who) {
            Some(Side::Second)
        } else {
            None
        }
    }

    /// `who`'s opponent, if they had one.
    pub fn opponent_of(&self, who: Entrant) -> Option<Entrant> {
        match self.side_of(who)? {
            Side::First => self.second,
            Side::Second => Some(self.first),
        }
    }
}

/// Why the ledger refused something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The round under way is not finished.
    RoundUnderWay,
    /// Every round the format has is played.
    Finished,
    /// Fewer than two entrants are still in.
    TooFew,
    /// No pairing of the players left avoids a rematch (a Swiss with too many rounds for its
    /// field).
    NoPairing,
    /// There is no such game, or it is decided already.
    NoSuchGame,
    /// Nobody in an arena is free to be paired now (everyone else is playing).
    NobodyFree,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refused::RoundUnderWay => "the round under way has games still to finish",
            Refused::Finished => "every round is played",
            Refused::TooFew => "fewer than two players are left",
            Refused::NoPairing => "no pairing of those left avoids a rematch",
            Refused::NoSuchGame => "there is no such game to decide",
            Refused::NobodyFree => "fewer than two players are free",
        })
    }
}

/// An event's ledger: its entrants, in the order they joined, with their seeding ratings, and
/// its rounds (an arena's games, each a round of its own pairings as they were made).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ledger {
    pub format: Format,
    /// Each entrant's rating when they joined, for seeding (higher first).
    pub ratings: Vec<f64>,
    /// Those who left: no longer paired, their games kept.
    pub withdrawn: BTreeSet<Entrant>,
    pub rounds: Vec<Vec<Pairing>>,
}

impl Ledger {
    pub fn new(format: Format) -> Ledger {
        Ledger {
            format,
            ratings: Vec::new(),
            withdrawn: BTreeSet::new(),
            rounds: Vec::new(),
        }
    }

    /// Enters someone with `rating` for seeding; their place in the list.
    pub fn enter(&mut self, rating: f64) -> Entrant {
        self.ratings.push(rating);
        self.ratings.len() - 1
    }

    /// Takes `who` out of later pairings; a game of theirs under way is theirs to finish or
    /// forfeit.
    pub fn withdraw(&mut self, who: Entrant) {
        self.withdrawn.insert(who);
    }

    /// Those still in.
    pub fn active(&self) -> Vec<Entrant> {
        (0..self.ratings.len())
            .filter(|e| !self.withdrawn.contains(e))
            .collect()
    }

    /// Every pairing of every round, in order.
    pub fn games(&self) -> impl Iterator<Item = &Pairing> {
        self.rounds.iter().flatten()
    }

    /// `who`'s points so far, in halves.
    pub fn halves(&self, who: Entrant) -> u32 {
        self.games().filter_map(|p| p.halves_for(who)).sum()
    }

    /// Those `who` has met (byes aside).
    pub fn opponents(&self, who: Entrant) -> BTreeSet<Entrant> {
        self.games().filter_map(|p| p.opponent_of(who)).collect()
    }

    /// Decides game `game` of round `round`.
    pub fn decide(&mut self, round: usize, game: usize, outcome: Outcome) -> Result<(), Refused> {
        let p = self
            .rounds
            .get_mut(round)
            .and_then(|r| r.get_mut(game))
            .filter(|p| p.second.is_some() && p.outcome.is_none())
            .ok_or(Refused::NoSuchGame)?;
        p.outcome = Some(outcome);
        Ok(())
    }

    /// Pairs the next round of a Swiss or a round-robin, once the last is decided, or (an
    /// arena) whoever is free now; its index.
    pub fn next_round(&mut self) -> Result<usize, Refused> {
        let under_way = self
            .rounds
            .last()
            .is_some_and(|r| r.iter().any(|p| p.second.is_some() && p.outcome.is_none()));
        if under_way && self.format != Format::Arena {
            return Err(Refused::RoundUnderWay);
        }
        let active = self.active();
        if active.len() < 2 {
            return Err(Refused::TooFew);
        }
        let pairings = match self.format {
            Format::Swiss { rounds } if self.rounds.len() >= rounds as usize => {
                return Err(Refused::Finished);
            }
            Format::Swiss { .. } => swiss::pair(self, &active).ok_or(Refused::NoPairing)?,
            Format::RoundRobin => {
                round_robin::pair(self.ratings.len(), self.rounds.len(), &self.withdrawn)
                    .ok_or(Refused::Finished)?
            }
            Format::Arena => arena::pair(self, &active),
        };
        // An arena pairs whenever a game ends: a moment with nobody to pair makes no round.
        if pairings.is_empty() {
            return Err(Refused::NobodyFree);
        }
        self.rounds.push(pairings);
        Ok(self.rounds.len() - 1)
    }
}

#[cfg(test)]
mod tests;
