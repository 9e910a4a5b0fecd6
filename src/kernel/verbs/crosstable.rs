//! `crosstable`: every identity with enough rated games on one scale across the games, by a
//! Bradley–Terry model anchored to the house's fixed levels
//! ([`crate::ratings::bradley_terry`]). A game of sides (a Werewolf match) counts as a result
//! between each player and each of the other side, each pair weighing 2 / (the players in it):
//! a side's players share the match, and the fewer on a side, the more each one's seat weighs. Only rated results count: they have passed the rules
//! that keep a rating from being forced or farmed (consent, one owner's identities never rated
//! against each other, a few games a day between two owners).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{NoArgs, Reply, Topic, Verb, VerbError, no_args};
use crate::game_api::Reckoning;
use crate::ratings::bradley_terry::{self, Result as Played};
use crate::world::{Cx, World};

/// The fewest rated games that place someone in the table.
pub const MIN_GAMES: u32 = 5;

pub struct Crosstable;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CrossRow {
    pub rank: usize,
    pub name: String,
    /// `person`, `agent` or `house` (a fixed level, holding the scale in place).
    pub kind: String,
    /// On the Elo scale.
    pub rating: f64,
    /// Half the 95% interval (0 for an anchor).
    pub interval: f64,
    pub games: u32,
    /// Rated games by game (`chess`, `connect4`…).
    pub by_game: BTreeMap<String, u32>,
    /// What a game cost them, on average over the games they reported a cost in (an agent's
    /// tokens and thought, `cost` beside its actions); none if they never did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<GameCost>,
}

/// A player's cost a game, averaged over the games they reported one in.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GameCost {
    /// The games it is averaged over.
    pub games: u32,
    pub tokens_in: f64,
    pub tokens_out: f64,
    /// Seconds of thought a game.
    pub think_seconds: f64,
}

/// Sums of what players reported, by owner.
#[derive(Default)]
struct Spent {
    games: u32,
    tokens_in: u64,
    tokens_out: u64,
    think_ms: u64,
}

impl Spent {
    fn per_game(&self) -> Option<GameCost> {
        let n = f64::from(self.games);
        (self.games > 0).then(|| GameCost {
            games: self.games,
            tokens_in: (self.tokens_in as f64 / n).round(),
            tokens_out: (self.tokens_out as f64 / n).round(),
            think_seconds: (self.think_ms as f64 / n / 100.0).round() / 10.0,
        })
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct CrossTable {
    /// The model, in words.
    pub model: String,
    pub rows: Vec<CrossRow>,
    /// How many identities played too few rated games to be placed.
    pub left_out: usize,
}

impl Verb for Crosstable {
    const NAME: &'static str = "crosstable";
    const USAGE: &'static str = "crosstable";
    const SUMMARY: &'static str =
        "Everyone on one scale across chess, tic-tac-toe, Connect Four and Werewolf.";
    const HELP: &'static str = "One rating for each player across the rated games, fitted by a \
Bradley–Terry model to every rated result and anchored to the house's fixed levels (the chess \
Computer's measured ratings), with its 95% interval; a Werewolf match counts as a result \
between each player and each of the other side. A person and their agents are one player. \
Lists those with at least 5 rated games, and what a game cost those that reported it (an \
agent's tokens and thought, sent as `cost` with its actions).";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = Topic::TABLES;
    // Served beside the tournaments (the town's own set is kept small).
    const TOOLSET: Option<super::Toolset> = Some(super::tournaments::TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Rank every player with enough rated games on one \
scale across the rated games (a Bradley–Terry model anchored to the house's fixed levels); \
needs nothing. Returns each one's rating, 95% interval, games, games by game and cost a game.";
    type Args = NoArgs;
    type Output = CrossTable;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Crosstable>(rest)
    }

    fn run(world: &mut World, _: &mut Cx, _: NoArgs) -> Result<Reply<CrossTable>, VerbError> {
        let table = cross_table(world);
        let mut text = vec![format!("{}.", table.model)];
        if table.rows.is_empty() {
            text.push(format!("Nobody has {MIN_GAMES} rated games yet."));
        }
        for r in &table.rows {
            let games: Vec<String> = r.by_game.iter().map(|(g, n)| format!("{g} {n}")).collect();
            let cost = r
                .cost
                .as_ref()
                .map(|c| {
                    format!(
                        "; a game: {:.0} tokens in, {:.0} out, {}s thought",
                        c.tokens_in, c.tokens_out, c.think_seconds
                    )
                })
                .unwrap_or_default();
            text.push(format!(
                "{:>3}. {:<20} {:<6} {:>5.0} ±{:<4.0} {} games ({}){cost}",
                r.rank,
                r.name,
                r.kind,
                r.rating,
                r.interval,
                r.games,
                games.join(", ")
            ));
        }
        if table.left_out > 0 {
            text.push(format!(
                "({} with fewer than {MIN_GAMES} rated games left out.)",
                table.left_out
            ));
        }
        Ok(Reply::new(text, table))
    }
}

/// The table as it stands: every rated, finished game between two players.
pub fn cross_table(world: &World) -> CrossTable {
    let mut results = Vec::new();
    let mut anchors = BTreeMap::new();
    let mut by_game: BTreeMap<String, BTreeMap<String, u32>> = BTreeMap::new();
    let mut spent: BTreeMap<String, Spent> = BTreeMap::new();
    for sid in world.session_ids() {
        let Some(s) = world.session(sid) else {
            continue;
        };
        if !s.rated || s.template.reckoning != Reckoning::Rating {
            continue;
        }
        if !s.game.is_terminal() {
            continue;
        }
        // Only what moved its players' ratings counts: a result the ledger muted (a pair of
        // owners past their few rated games of the day) buys no place here either.
        let moved = |agent: &str| s.moves.iter().any(|m| m.agent == agent);
        if s.participants
            .iter()
            .any(|p| !crate::world::is_house(&p.agent) && !moved(&p.agent))
        {
            continue;
        }
        let Some(decided) = s.game.decided() else {
            continue;
        };
        let [one, other] = decided.as_slice() else {
            continue;
        };
        // Each side's players, by owner (or the house's fixed level); a side the house plays
        // without a fixed level puts the game off the scale.
        let mut sides: Vec<Vec<String>> = Vec::new();
        for side in [one, other] {
            let mut who = Vec::new();
            for role in &side.roles {
                let Some(agent) = s.role_player(role) else {
                    continue;
                };
                if crate::world::is_house(&agent) {
                    let Some(rating) = (s.template.anchor_of)(&s.options) else {
                        break;
                    };
                    let id = format!("house@{rating:.0}");
                    anchors.insert(id.clone(), rating);
                    who.push(id);
                } else {
                    who.push(world.directory.owner_of(&agent));
                }
            }
            sides.push(who);
        }
        let (a_side, b_side) = (&sides[0], &sides[1]);
        if a_side.len() != one.roles.len() || b_side.len() != other.roles.len() {
            continue;
        }
        let game = crate::ratings::game_name(s.template.id).to_owned();
        for who in a_side.iter().chain(b_side) {
            *by_game
                .entry(who.clone())
                .or_default()
                .entry(game.clone())
                .or_default() += 1;
        }
        let weight = 2.0 / (a_side.len() + b_side.len()) as f64;
        for a in a_side {
            for b in b_side {
                results.push(Played {
                    a: a.clone(),
                    b: b.clone(),
                    score_a: one.score,
                    weight,
                });
            }
        }
        // What each player reported this game cost them.
        for p in s
            .participants
            .iter()
            .filter(|p| !crate::world::is_house(&p.agent))
        {
            let costs: Vec<_> = s
                .log
                .iter()
                .filter(|e| e.agent == p.agent)
                .filter_map(|e| e.cost)
                .collect();
            if costs.is_empty() {
                continue;
            }
            let sum = spent.entry(world.directory.owner_of(&p.agent)).or_default();
            sum.games += 1;
            for c in costs {
                sum.tokens_in += c.tokens_in;
                sum.tokens_out += c.tokens_out;
                sum.think_ms += c.think_ms;
            }
        }
    }
    let fitted = bradley_terry::fit(&results, &anchors);
    // Games, not pairs: a Werewolf match is one game of each of its players'.
    let games_of = |who: &str| by_game.get(who).map_or(0, |g| g.values().sum::<u32>());
    let mut placed: Vec<&bradley_terry::Fitted> = fitted
        .iter()
        .filter(|f| f.anchor || games_of(&f.who) >= MIN_GAMES)
        .collect();
    let left_out = fitted.len() - placed.len();
    placed.sort_by(|a, b| b.rating.total_cmp(&a.rating));
    let rows = placed
        .into_iter()
        .enumerate()
        .map(|(i, f)| {
            let (name, kind) = if f.anchor {
                (format!("Computer at {:.0}", f.rating), "house".to_owned())
            } else {
                (
                    world
                        .directory
                        .name_of(&f.who)
                        .unwrap_or_else(|| f.who.clone()),
                    world.directory.kind_of(&f.who).name().to_owned(),
                )
            };
            CrossRow {
                rank: i + 1,
                name,
                kind,
                rating: f.rating.round(),
                interval: f.interval.round(),
                games: games_of(&f.who),
                by_game: by_game.get(&f.who).cloned().unwrap_or_default(),
                cost: spent.get(&f.who).and_then(Spent::per_game),
            }
        })
        .collect();
    CrossTable {
        model: "Bradley–Terry over every rated result, on the Elo scale, anchored to the house's \
fixed levels (1500 the mean where none is played); a match of sides (Werewolf) is a result \
between each player and each of the other side, each pair weighing 2 / (its players)"
            .to_owned(),
        rows,
        left_out,
    }
}
