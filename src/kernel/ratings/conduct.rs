//! Errors apart from skill: how often the rules refused a player's actions, and how often a
//! deadline found them owing, per identity and game, kept beside the rating and never in it.
//! An agent that breaks rules or times out is shown doing so, rather than climbing a table by
//! outlasting those that do (MindGames' finding about its Mafia ratings).
//!
//! A game's counts join its player's conduct when the game ends, never while it runs: a
//! refusal or a missed night action shown mid-game would say who has a night to act in.

use std::collections::BTreeMap;

/// One player's counts in one session while it runs (stored as they happen, so a restart
/// keeps them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Tally {
    /// Actions the game's rules refused.
    pub refused: u32,
    /// Deadlines that fell while they owed an action.
    pub missed: u32,
}

impl Tally {
    pub fn add(&mut self, n: Tally) {
        self.refused = self.refused.saturating_add(n.refused);
        self.missed = self.missed.saturating_add(n.missed);
    }

    pub fn sub(&mut self, n: Tally) {
        self.refused = self.refused.saturating_sub(n.refused);
        self.missed = self.missed.saturating_sub(n.missed);
    }
}

/// A player's conduct in one game, over the games of it they finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Conduct {
    pub games: u32,
    /// Actions taken (logged).
    pub actions: u32,
    pub refused: u32,
    pub missed: u32,
}

impl Conduct {
    /// One finished game: `actions` logged, with its tally.
    pub fn of_game(actions: u32, tally: Tally) -> Conduct {
        Conduct {
            games: 1,
            actions,
            refused: tally.refused,
            missed: tally.missed,
        }
    }

    /// The share of their attempted actions that were refused (none attempted: none).
    pub fn refused_rate(&self) -> Option<f64> {
        let tried = self.actions.saturating_add(self.refused);
        (tried > 0).then(|| f64::from(self.refused) / f64::from(tried))
    }

    /// Deadlines missed per game.
    pub fn missed_rate(&self) -> Option<f64> {
        (self.games > 0).then(|| f64::from(self.missed) / f64::from(self.games))
    }

    fn add(&mut self, o: Conduct) {
        self.games = self.games.saturating_add(o.games);
        self.actions = self.actions.saturating_add(o.actions);
        self.refused = self.refused.saturating_add(o.refused);
        self.missed = self.missed.saturating_add(o.missed);
    }

    fn sub(&mut self, o: Conduct) {
        self.games = self.games.saturating_sub(o.games);
        self.actions = self.actions.saturating_sub(o.actions);
        self.refused = self.refused.saturating_sub(o.refused);
        self.missed = self.missed.saturating_sub(o.missed);
    }
}

/// Everyone's conduct, by (agent id, game name).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Book {
    rows: BTreeMap<(String, String), Conduct>,
}

impl Book {
    /// Adds a finished game's conduct.
    pub fn add(&mut self, agent: &str, game: &str, c: Conduct) {
        self.rows
            .entry((agent.to_owned(), game.to_owned()))
            .or_default()
            .add(c);
    }

    /// Takes back what [`Book::add`] added (its write was not stored).
    pub fn sub(&mut self, agent: &str, game: &str, c: Conduct) {
        let key = (agent.to_owned(), game.to_owned());
        if let Some(row) = self.rows.get_mut(&key) {
            row.sub(c);
            if *row == Conduct::default() {
                self.rows.remove(&key);
            }
        }
    }

    pub fn get(&self, agent: &str, game: &str) -> Option<Conduct> {
        self.rows.get(&(agent.to_owned(), game.to_owned())).copied()
    }

    /// `agent`'s conduct, game by game.
    pub fn of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = (&'a str, Conduct)> {
        self.rows
            .range((agent.to_owned(), String::new())..)
            .take_while(move |((a, _), _)| a == agent)
            .map(|((_, g), c)| (g.as_str(), *c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_shares_of_attempts_and_per_game_and_a_taken_back_game_leaves_nothing() {
        let mut b = Book::default();
        let g = |actions, refused, missed| Conduct::of_game(actions, Tally { refused, missed });
        b.add("a", "chess", g(30, 10, 1));
        b.add("a", "chess", g(10, 0, 0));
        b.add("a", "werewolf", g(5, 0, 2));
        b.add("b", "chess", g(1, 0, 0));
        let c = b.get("a", "chess").unwrap();
        assert_eq!(c.games, 2);
        assert_eq!(c.refused_rate(), Some(0.2), "10 refused of 50 tried");
        assert_eq!(c.missed_rate(), Some(0.5));
        let games: Vec<&str> = b.of("a").map(|(g, _)| g).collect();
        assert_eq!(games, ["chess", "werewolf"]);
        b.sub("a", "werewolf", g(5, 0, 2));
        assert_eq!(b.get("a", "werewolf"), None);
        assert_eq!(Conduct::default().refused_rate(), None);
    }
}
