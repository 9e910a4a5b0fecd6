//! Who plays well: a Glicko-2 rating per board for games of skill, a record (won, lost, drawn)
//! for games of luck. Pure: the world hands the ledger each decided result in the order the
//! deciding actions were logged, and stores the changes it gives back with that action; `moot
//! ratings rebuild` hands it the same results replayed from the logs and must get the same.
//!
//! A **rating period is one game** (Glickman's step 1 with a single result): the town has no
//! natural day, players come and go, and a period per game keeps every rating a pure function
//! of the log in order. A deviation therefore does not grow with idle time.
//!
//! A **board** is a game's table for one kind of play: the template's name, its class (a chess
//! time control's band) and, where sides are rated apart, the side (`werewolf/village`). Its
//! **rules** are hashed: a game records the hash, and a change of rules starts a new season (a
//! new table) rather than mixing two.
//!
//! A **team result** (Werewolf) is applied to each player as one game against the other side's
//! average player: the mean of their ratings, with the root mean square of their deviations.

pub mod bradley_terry;
pub mod conduct;
pub mod glicko2;

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;
use sha2::{Digest, Sha256};

pub use glicko2::Rating;

use crate::game_api::{Reckoning, SideScore, Template};

/// Where a standing is kept: whose, on which board, under which rules.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub agent: String,
    pub board: String,
    pub rules: String,
}

/// A player's standing on one board: a rating (games of skill) and the record.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Standing {
    pub rating: Option<Rating>,
    pub games: u32,
    pub won: u32,
    pub lost: u32,
    pub drawn: u32,
}

/// A result decided by one action, as the ledger reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decided {
    /// The game's board, before a side is added (`chess/blitz`, `werewolf`).
    pub board: String,
    pub rules: String,
    pub reckoning: Reckoning,
    pub sides: Vec<DecidedSide>,
    /// The UTC day of the action that decided it (`2026-11-28`): the daily limit's day.
    pub day: String,
}

/// How many rated results a day between the same two owners move ratings: the first few,
/// as friends play a few games; past them a pair's games are casual until the next day, so a
/// thousand games lost on purpose buy no more than three.
pub const PAIR_LIMIT: u32 = 3;

impl Decided {
    /// The owners of a rated game between two players, neither an anchor, in order: what the
    /// daily limit counts.
    fn pair(&self) -> Option<(String, String)> {
        if self.reckoning != Reckoning::Rating {
            return None;
        }
        let [a, b] = &self.sides[..] else {
            return None;
        };
        if a.anchor.is_some() || b.anchor.is_some() {
            return None;
        }
        let ([x], [y]) = (&a.owners[..], &b.owners[..]) else {
            return None;
        };
        Some(if x <= y {
            (x.clone(), y.clone())
        } else {
            (y.clone(), x.clone())
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct DecidedSide {
    pub side: &'static str,
    /// Agent ids.
    pub players: Vec<String>,
    pub score: f64,
    /// A side the house plays at a fixed rating (a chess computer level): its opponents are
    /// rated against this, and it does not move.
    pub anchor: Option<f64>,
    /// Whom each player speaks for (`players`' owners, in their order): identities of one
    /// owner never rate each other.
    pub owners: Vec<String>,
    /// Each player's part, in `players`' order, where parts are rated on boards of their own
    /// (a Werewolf seer's `werewolf/seer`); empty where they are not.
    pub parts: Vec<&'static str>,
}

/// The games a rating needs, beside a deviation no longer provisional, to be listed on a
/// leaderboard: a newcomer's first lucky results, or a farm of fresh accounts, list nobody.
pub const ESTABLISHED_GAMES: u32 = 10;

/// Whether a standing belongs on a leaderboard: a record always; a rating once it is no longer
/// provisional and has [`ESTABLISHED_GAMES`] behind it (lichess's rule).
pub fn established(s: &Standing) -> bool {
    match s.rating {
        None => true,
        Some(r) => !r.provisional() && s.games >= ESTABLISHED_GAMES,
    }
}

/// How sure an anchor's rating is: the deviation its opponents play it at (about what some
/// sixty measured games allow).
pub const ANCHOR_DEVIATION: f64 = 60.0;

/// What one decided result did to one player's standing.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    pub key: Key,
    /// Their side's score: 1 won, 0.5 drawn, 0 lost.
    pub score: f64,
    pub before: Option<Standing>,
    pub after: Standing,
}

/// What a decided result did to one player's rating, as a game's report shows it afterwards
/// ("1500? → 1540?"): what the stored change keeps.
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    pub agent: String,
    pub board: String,
    /// None for a newcomer (the start).
    pub before: Option<(f64, f64)>,
    /// None for a record.
    pub after: Option<Rating>,
}

impl Moved {
    pub fn of(c: &Change) -> Moved {
        Moved {
            agent: c.key.agent.clone(),
            board: c.key.board.clone(),
            before: c
                .before
                .and_then(|b| b.rating)
                .map(|r| (r.rating, r.deviation)),
            after: c.after.rating,
        }
    }

    /// The rating before, as shown ("1500?").
    pub fn before_shown(&self) -> String {
        let (rating, deviation) = self
            .before
            .unwrap_or((glicko2::START.rating, glicko2::START.deviation));
        Rating {
            rating,
            deviation,
            volatility: glicko2::START.volatility,
        }
        .shown()
    }

    /// "1500? → 1540? (+40)"; none for a record.
    pub fn line(&self) -> Option<String> {
        let after = self.after?;
        let was = self.before.map_or(glicko2::START.rating, |b| b.0);
        Some(format!(
            "{} → {} ({:+.0})",
            self.before_shown(),
            after.shown(),
            after.rating.round() - was.round()
        ))
    }
}

/// The game's name in a board: the template's id without its version (`chess.v1` → `chess`).
pub fn game_name(template: &str) -> &str {
    template.split_once(".v").map_or(template, |(name, _)| name)
}

/// The short hash of a template's rules that names a season.
pub fn rules_hash(template: &str, rules: &Value) -> String {
    let digest = Sha256::digest(format!("{template}\n{rules}").as_bytes());
    hex::encode(&digest[..4])
}

fn board_name(template: &Template, table: &crate::game_api::Table) -> String {
    let game = game_name(template.id);
    if table.class.is_empty() {
        game.to_owned()
    } else {
        format!("{game}/{}", table.class)
    }
}

/// The board a game of `template` with `options` is rated on (before a side is added), if it
/// can be: a challenge shows its players' ratings there.
pub fn board(template: &Template, options: &Value) -> Option<String> {
    (template.reckoning == Reckoning::Rating)
        .then(|| (template.table_of)(options))
        .flatten()
        .map(|t| board_name(template, &t))
}

/// Who took part in a decided result, and when: each role's agent, whom each agent speaks
/// for, which are the house's, and the UTC day of the deciding action.
pub struct Cast<P, O, H> {
    pub player: P,
    pub owner: O,
    pub house: H,
    pub day: String,
}

/// The result `sides` decided in a session of `template` with `options`, if it counts: games
/// of luck always keep a record; games of skill are rated when the session is `rated` and
/// its options have a table. `cast.player` names the agent in each role; a side played wholly
/// by the house at a fixed rating (the template's anchor) is that anchor.
pub fn decided<P, O, H>(
    template: &Template,
    options: &Value,
    rated: bool,
    sides: Vec<SideScore>,
    cast: &Cast<P, O, H>,
) -> Option<Decided>
where
    P: Fn(&str) -> Option<String>,
    O: Fn(&str) -> String,
    H: Fn(&str) -> bool,
{
    let (player, house) = (&cast.player, &cast.house);
    match template.reckoning {
        Reckoning::Unrated => return None,
        Reckoning::Rating if !rated => return None,
        Reckoning::Rating | Reckoning::Record => {}
    }
    let table = (template.table_of)(options)?;
    let board = board_name(template, &table);
    let sides = sides
        .into_iter()
        .map(|s| {
            let (mut players, mut parts) = (Vec::new(), Vec::new());
            for (i, r) in s.roles.iter().enumerate() {
                if let Some(p) = player(r) {
                    players.push(p);
                    if let Some(part) = s.parts.get(i) {
                        parts.push(*part);
                    }
                }
            }
            let anchor = (!players.is_empty() && players.iter().all(|p| house(p)))
                .then(|| (template.anchor_of)(options))
                .flatten();
            let owners = players.iter().map(|p| (cast.owner)(p)).collect();
            DecidedSide {
                side: s.side,
                players,
                score: s.score,
                anchor,
                owners,
                parts,
            }
        })
        .collect();
    Some(Decided {
        board,
        rules: rules_hash(template.id, &table.rules),
        reckoning: template.reckoning,
        sides,
        day: cast.day.clone(),
    })
}

/// Every standing, and each board's current season.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ledger {
    standings: BTreeMap<Key, Standing>,
    /// Each board's rules as of its latest game: the season its leaderboard shows.
    seasons: HashMap<String, String>,
    /// Rated games between each pair of owners on `day` (see [`PAIR_LIMIT`]).
    pairs: HashMap<(String, String), u32>,
    day: String,
}

impl Ledger {
    /// A ledger holding what was stored.
    pub fn from_stored(
        standings: impl IntoIterator<Item = (Key, Standing)>,
        seasons: impl IntoIterator<Item = (String, String)>,
    ) -> Ledger {
        Ledger {
            standings: standings.into_iter().collect(),
            seasons: seasons.into_iter().collect(),
            ..Ledger::default()
        }
    }

    /// Whether `owner`'s player in `d` is left unrated: another player in it has the same
    /// owner (a Werewolf seat beside an alt, two accounts of one person), or its pair of owners
    /// has had its rated games for the day.
    fn muted(&self, d: &Decided, owner: &str) -> bool {
        let same = d
            .sides
            .iter()
            .flat_map(|s| &s.owners)
            .filter(|o| *o == owner)
            .count();
        same > 1
            || d.pair().is_some_and(|p| {
                self.day == d.day && self.pairs.get(&p).copied().unwrap_or(0) >= PAIR_LIMIT
            })
    }

    /// Counts `d` toward its pair of owners' games of the day (once its changes are applied).
    pub fn met(&mut self, d: &Decided) {
        let Some(p) = d.pair() else { return };
        if d.day > self.day {
            self.day = d.day.clone();
            self.pairs.clear();
        }
        if d.day == self.day {
            *self.pairs.entry(p).or_insert(0) += 1;
        }
    }

    /// Takes back [`Ledger::met`] (the store refused the result).
    pub fn unmet(&mut self, d: &Decided) {
        let Some(p) = d.pair().filter(|_| d.day == self.day) else {
            return;
        };
        if let Some(n) = self.pairs.get_mut(&p) {
            *n = n.saturating_sub(1);
        }
    }

    pub fn get(&self, key: &Key) -> Option<&Standing> {
        self.standings.get(key)
    }

    /// What `d` does to each of its players, from the standings now (everyone's before
    /// the game: the players are updated together).
    pub fn changes(&self, d: &Decided) -> Vec<Change> {
        let mut changes = Vec::new();
        for (i, side) in d.sides.iter().enumerate() {
            let board = board_of(d, side);
            let others: Vec<&DecidedSide> = d
                .sides
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, s)| s)
                .collect();
            // Against the best of the others: a win beats them all, a loss is to one of them.
            let best_other = others.iter().map(|s| s.score).max_by(f64::total_cmp);
            let opponents: Vec<glicko2::Game> = match d.reckoning {
                Reckoning::Rating => others
                    .iter()
                    .filter_map(|o| {
                        self.average(o, d, &board_of(d, o))
                            .map(|opponent| glicko2::Game {
                                opponent,
                                score: compare(side.score, o.score),
                            })
                    })
                    .collect(),
                _ => Vec::new(),
            };
            // An anchor does not move.
            let players = if side.anchor.is_some() {
                &[][..]
            } else {
                &side.players[..]
            };
            for (i, (agent, owner)) in players.iter().zip(&side.owners).enumerate() {
                if d.reckoning == Reckoning::Rating && self.muted(d, owner) {
                    continue;
                }
                // A player with a part of their own (a Werewolf seer) is rated for it too, on
                // its board, against the same opponents as their side.
                let part_board = side.parts.get(i).map(|part| format!("{}/{part}", d.board));
                for board in std::iter::once(board.clone()).chain(part_board) {
                    let key = Key {
                        agent: agent.clone(),
                        board,
                        rules: d.rules.clone(),
                    };
                    let before = self.standings.get(&key).copied();
                    let mut after = before.unwrap_or_default();
                    after.games += 1;
                    // A game against nobody (a hand against the house) is won or lost outright.
                    let result =
                        best_other.map_or(compare(side.score, 0.5), |b| compare(side.score, b));
                    if result > 0.5 {
                        after.won += 1;
                    } else if result < 0.5 {
                        after.lost += 1;
                    } else {
                        after.drawn += 1;
                    }
                    if d.reckoning == Reckoning::Rating && !opponents.is_empty() {
                        let now = after.rating.unwrap_or(glicko2::START);
                        after.rating = Some(now.after(&opponents));
                    }
                    changes.push(Change {
                        key,
                        score: side.score,
                        before,
                        after,
                    });
                }
            }
        }
        changes
    }

    /// The other side's average player, on their own board.
    fn average(&self, side: &DecidedSide, d: &Decided, board: &str) -> Option<Rating> {
        if let Some(rating) = side.anchor {
            return Some(Rating {
                rating,
                deviation: ANCHOR_DEVIATION,
                volatility: glicko2::START.volatility,
            });
        }
        let ratings: Vec<Rating> = side
            .players
            .iter()
            .map(|agent| {
                let key = Key {
                    agent: agent.clone(),
                    board: board.to_owned(),
                    rules: d.rules.clone(),
                };
                self.standings
                    .get(&key)
                    .and_then(|s| s.rating)
                    .unwrap_or(glicko2::START)
            })
            .collect();
        if ratings.is_empty() {
            return None;
        }
        let n = ratings.len() as f64;
        Some(Rating {
            rating: ratings.iter().map(|r| r.rating).sum::<f64>() / n,
            deviation: (ratings
                .iter()
                .map(|r| r.deviation * r.deviation)
                .sum::<f64>()
                / n)
                .sqrt(),
            volatility: ratings.iter().map(|r| r.volatility).sum::<f64>() / n,
        })
    }

    /// Makes `changes` so, and the board's season theirs.
    pub fn apply(&mut self, changes: &[Change]) {
        for c in changes {
            self.seasons
                .insert(c.key.board.clone(), c.key.rules.clone());
            self.standings.insert(c.key.clone(), c.after);
        }
    }

    /// Takes `changes` back (the store refused them), seasons as they were.
    pub fn undo(&mut self, changes: &[Change], seasons: Vec<(String, Option<String>)>) {
        for c in changes {
            match c.before {
                Some(b) => self.standings.insert(c.key.clone(), b),
                None => self.standings.remove(&c.key),
            };
        }
        for (board, rules) in seasons {
            match rules {
                Some(r) => self.seasons.insert(board, r),
                None => self.seasons.remove(&board),
            };
        }
    }

    /// The seasons `changes` would replace, for [`Ledger::undo`].
    pub fn seasons_before(&self, changes: &[Change]) -> Vec<(String, Option<String>)> {
        changes
            .iter()
            .map(|c| (c.key.board.clone(), self.seasons.get(&c.key.board).cloned()))
            .collect()
    }

    /// `agent`'s standings, board by board.
    pub fn of<'a>(&'a self, agent: &'a str) -> impl Iterator<Item = (&'a Key, &'a Standing)> {
        let first = Key {
            agent: agent.to_owned(),
            board: String::new(),
            rules: String::new(),
        };
        // Keys sort by agent first: theirs are one run.
        self.standings
            .range(first..)
            .take_while(move |(k, _)| k.agent == agent)
    }

    /// The rules hash of `board`'s current season.
    pub fn season(&self, board: &str) -> Option<&str> {
        self.seasons.get(board).map(String::as_str)
    }

    /// The boards with a season, by name.
    pub fn boards(&self) -> Vec<(&str, &str)> {
        let mut b: Vec<(&str, &str)> = self
            .seasons
            .iter()
            .map(|(b, r)| (b.as_str(), r.as_str()))
            .collect();
        b.sort_unstable();
        b
    }

    /// The current season of `board`: its rules and every standing in it, best first (by
    /// rating where rated, else by wins).
    pub fn table(&self, board: &str) -> Option<(&str, Vec<(&Key, &Standing)>)> {
        let rules = self.seasons.get(board)?;
        Some((rules.as_str(), self.table_in(board, rules)))
    }

    /// Season `rules` of `board`, current or past (frozen: its rules no longer play), best
    /// first as [`Ledger::table`].
    pub fn table_in(&self, board: &str, rules: &str) -> Vec<(&Key, &Standing)> {
        let mut rows: Vec<(&Key, &Standing)> = self
            .standings
            .iter()
            .filter(|(k, _)| k.board == board && k.rules == rules)
            .collect();
        rows.sort_by(|a, b| {
            let r = |s: &Standing| s.rating.map_or(f64::MIN, |r| r.rating);
            r(b.1)
                .total_cmp(&r(a.1))
                .then(b.1.won.cmp(&a.1.won))
                .then(a.1.lost.cmp(&b.1.lost))
                .then(a.0.agent.cmp(&b.0.agent))
        });
        rows
    }

    /// Every season `board` has had: the current first, then the past ones by their hash.
    pub fn seasons_of(&self, board: &str) -> Vec<&str> {
        let current = self.seasons.get(board).map(String::as_str);
        let mut past: Vec<&str> = self
            .standings
            .keys()
            .filter(|k| k.board == board && Some(k.rules.as_str()) != current)
            .map(|k| k.rules.as_str())
            .collect();
        past.sort_unstable();
        past.dedup();
        current.into_iter().chain(past).collect()
    }

    /// `agent`'s rating on `board` in its current season; a newcomer's is the start (1500,
    /// provisional).
    pub fn rating_on(&self, agent: &str, board: &str) -> Rating {
        self.seasons
            .get(board)
            .and_then(|rules| {
                self.standings.get(&Key {
                    agent: agent.to_owned(),
                    board: board.to_owned(),
                    rules: rules.clone(),
                })
            })
            .and_then(|s| s.rating)
            .unwrap_or(glicko2::START)
    }

    /// The rating `agent` is best known by: on the current board they have played most
    /// (the higher rating on a tie), with its board; none before a rated game.
    pub fn headline<'a>(&'a self, agent: &'a str) -> Option<(&'a str, Rating)> {
        self.of(agent)
            .filter(|(k, _)| self.season(&k.board) == Some(k.rules.as_str()))
            .filter_map(|(k, s)| Some((k.board.as_str(), s.games, s.rating?)))
            .max_by(|a, b| a.1.cmp(&b.1).then(a.2.rating.total_cmp(&b.2.rating)))
            .map(|(board, _, r)| (board, r))
    }

    /// Every standing, in key order (for comparing a rebuild with what is stored).
    pub fn all(&self) -> impl Iterator<Item = (&Key, &Standing)> {
        self.standings.iter()
    }
}

fn board_of(d: &Decided, side: &DecidedSide) -> String {
    if side.side.is_empty() {
        d.board.clone()
    } else {
        format!("{}/{}", d.board, side.side)
    }
}

/// 1 when `mine` beat `theirs`, 0.5 level, 0 behind.
fn compare(mine: f64, theirs: f64) -> f64 {
    match mine.total_cmp(&theirs) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
    }
}

#[cfg(test)]
mod tests;
