//! What a series is: the spec file `moot arena run` reads, and the games it plans from it
//! (pure: the same spec plans the same games, in the same order, with the same deals).

use std::collections::BTreeSet;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};

/// The most agents one series pairs (every pair meets every deal, twice).
pub const MAX_AGENTS: usize = 32;
/// The most deals one series plays.
pub const MAX_DEALS: u32 = 1_000;
/// The most games one series holds, so that a spec's typo cannot plan a year of play.
pub const MAX_GAMES: usize = 10_000;
/// The most games played at once.
pub const MAX_PARALLEL: usize = 64;

/// A series as its spec file (TOML) gives it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The moot it is played on: its HTTP address (`http://127.0.0.1:8080`).
    pub server: String,
    /// The game's template (`tictactoe.v1`, `chess.v1`, `connect4.v1`).
    pub game: String,
    /// The template's options for every game (a chess clock: `clock = "5+3"`).
    #[serde(default)]
    pub options: Map<String, Value>,
    /// How many deals each pair plays; each deal twice, its sides swapped.
    pub deals: u32,
    /// Where the deals come from: the same seed deals the same series.
    pub seed: u64,
    /// Games played at once (never two of one agent's).
    #[serde(default = "one")]
    pub parallel: usize,
    /// How long one game may last before the series stops (`30m`, `2h`).
    #[serde(default = "an_hour")]
    pub game_timeout: String,
    #[serde(rename = "agent", default)]
    pub agents: Vec<Entrant>,
}

fn one() -> usize {
    1
}

fn an_hour() -> String {
    "1h".into()
}

/// One agent in the series, named by the credentials it plays with (a moot token: the same on
/// MCP, REST and the lichess Bot API), or one of the house's players.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entrant {
    /// How the report names it.
    pub name: String,
    /// Its token, written here…
    #[serde(default)]
    pub token: Option<String>,
    /// …or the environment variable holding it (so that the spec can be published).
    #[serde(default)]
    pub token_env: Option<String>,
    /// A house player instead (`computer`): it agrees to what it is asked.
    #[serde(default)]
    pub house: Option<String>,
}

/// How an entrant takes part, once its token is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seat {
    Token(String),
    House(String),
}

impl Spec {
    /// Reads and checks a spec: every refusal names what to change.
    pub fn parse(text: &str, env: impl Fn(&str) -> Option<String>) -> Result<Checked, String> {
        let spec: Spec = toml::from_str(text).map_err(|e| e.to_string())?;
        let template = crate::games::templates()
            .into_iter()
            .find(|t| t.id == spec.game)
            .ok_or_else(|| {
                let known: Vec<&str> = crate::games::templates()
                    .iter()
                    .filter(|t| t.roles.len() == 2)
                    .map(|t| t.id)
                    .collect();
                format!(
                    "`game = \"{}\"` is no template; two-player ones: {}",
                    spec.game,
                    known.join(", ")
                )
            })?;
        if template.reckoning == crate::game_api::Reckoning::Record {
            return Err(format!(
                "{} keeps a record of every game, so a series cannot choose its deals (whoever \
                 chose them would know the house's every choice)",
                template.id
            ));
        }
        let [first, second] = template.roles else {
            return Err(format!(
                "{} has {} roles; a series plays two-player games, each deal from both sides",
                template.id,
                template.roles.len()
            ));
        };
        for reserved in ["deal", "rated"] {
            if spec.options.contains_key(reserved) {
                return Err(format!(
                    "`options.{reserved}` is the series' own: each game's deal comes from `seed`, \
                     and a game with a chosen deal is never rated"
                ));
            }
        }
        if !(1..=MAX_DEALS).contains(&spec.deals) {
            return Err(format!("`deals` is from 1 to {MAX_DEALS}"));
        }
        if !(1..=MAX_PARALLEL).contains(&spec.parallel) {
            return Err(format!("`parallel` is from 1 to {MAX_PARALLEL}"));
        }
        let game_timeout = humantime::parse_duration(&spec.game_timeout).map_err(|_| {
            format!(
                "`game_timeout = \"{}\"`: say `30m` or `2h`",
                spec.game_timeout
            )
        })?;
        if !(2..=MAX_AGENTS).contains(&spec.agents.len()) {
            return Err(format!(
                "a series needs from 2 to {MAX_AGENTS} `[[agent]]`s; it has {}",
                spec.agents.len()
            ));
        }
        let mut names = BTreeSet::new();
        let mut seats = Vec::new();
        for a in &spec.agents {
            if a.name.trim().is_empty() || !names.insert(a.name.to_lowercase()) {
                return Err(format!(
                    "agent `{}`: each agent needs a name of its own",
                    a.name
                ));
            }
            let seat = match (&a.token, &a.token_env, &a.house) {
                (Some(t), None, None) => Seat::Token(t.clone()),
                (None, Some(var), None) => Seat::Token(env(var).ok_or_else(|| {
                    format!("agent `{}`: the environment has no `{var}`", a.name)
                })?),
                (None, None, Some(h)) if crate::world::is_house(h) => Seat::House(h.clone()),
                (None, None, Some(h)) => {
                    return Err(format!(
                        "agent `{}`: `house = \"{h}\"` is none of the house's players (`computer`)",
                        a.name
                    ));
                }
                _ => {
                    return Err(format!(
                        "agent `{}`: give one of `token`, `token_env` or `house`",
                        a.name
                    ));
                }
            };
            seats.push(seat);
        }
        if seats.iter().filter(|s| matches!(s, Seat::House(_))).count() > 1 {
            // Nobody holding a token could start a game between two of the house's players.
            return Err("a series takes at most one of the house's players".into());
        }
        let games = plan(spec.agents.len(), spec.deals, spec.seed);
        if games.len() > MAX_GAMES {
            return Err(format!(
                "{} games is more than a series plays ({MAX_GAMES}): fewer deals or agents",
                games.len()
            ));
        }
        Ok(Checked {
            roles: [first, second],
            seats,
            game_timeout,
            games,
            spec,
        })
    }
}

/// A spec that was read and checked, with its games planned.
#[derive(Debug, Clone)]
pub struct Checked {
    pub spec: Spec,
    /// The template's two roles: the first side (white, X) and the second.
    pub roles: [&'static str; 2],
    /// Each agent's seat, in the spec's order.
    pub seats: Vec<Seat>,
    pub game_timeout: Duration,
    pub games: Vec<Planned>,
}

/// One game of the series, before it is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planned {
    /// Its number in the series, from 1.
    pub n: usize,
    /// Which deal it plays (from 0), and the deal itself: the game's seed.
    pub deal_index: u32,
    pub deal: u64,
    /// The agents (indices into the spec's) playing the first role and the second.
    pub first: usize,
    pub second: usize,
    /// The game it mirrors (the same deal and players, sides swapped), for the second of two.
    pub mirror_of: Option<usize>,
}

/// Every game of a series: for each deal, each pair plays it twice, sides swapped. Every pair
/// meets the same deals, so that one agent's luck of the draw is every agent's.
pub fn plan(agents: usize, deals: u32, seed: u64) -> Vec<Planned> {
    let mut games = Vec::new();
    for deal_index in 0..deals {
        let deal = deal_of(seed, deal_index);
        for a in 0..agents {
            for b in a + 1..agents {
                let n = games.len() + 1;
                games.push(Planned {
                    n,
                    deal_index,
                    deal,
                    first: a,
                    second: b,
                    mirror_of: None,
                });
                games.push(Planned {
                    n: n + 1,
                    deal_index,
                    deal,
                    first: b,
                    second: a,
                    mirror_of: Some(n),
                });
            }
        }
    }
    games
}

/// Deal `index` of the series seeded `seed`: SplitMix64's output, a fixed function that any
/// reader of the report can compute again (a library's generator may change between versions).
pub fn deal_of(seed: u64, index: u32) -> u64 {
    let mut z = seed.wrapping_add(
        u64::from(index)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15),
    );
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_plays_every_deal_from_both_sides() {
        let games = plan(3, 2, 7);
        assert_eq!(games.len(), 2 * 3 * 2);
        for g in games.iter().filter(|g| g.mirror_of.is_some()) {
            let m = games[g.mirror_of.unwrap() - 1];
            assert_eq!((m.first, m.second, m.deal), (g.second, g.first, g.deal));
        }
        // The same deals for every pair; different deals from one another.
        let deal0: BTreeSet<u64> = games
            .iter()
            .filter(|g| g.deal_index == 0)
            .map(|g| g.deal)
            .collect();
        assert_eq!(deal0.len(), 1);
        assert_ne!(games[0].deal, games.last().unwrap().deal);
        assert_eq!(plan(3, 2, 7), games, "the same spec plans the same series");
        assert_ne!(plan(3, 2, 8)[0].deal, games[0].deal);
    }

    #[test]
    fn splitmix_gives_its_published_first_output() {
        // SplitMix64 seeded 0: its first output is 0xE220A8397B1DCDAF.
        assert_eq!(deal_of(0, 0), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn a_spec_that_cannot_be_played_is_refused_with_what_to_change() {
        let env = |_: &str| None;
        let base = "server = \"http://x\"\ngame = \"tictactoe.v1\"\ndeals = 1\nseed = 1\n";
        let two =
            "[[agent]]\nname = \"a\"\ntoken = \"t\"\n[[agent]]\nname = \"b\"\ntoken = \"u\"\n";
        assert!(Spec::parse(&format!("{base}{two}"), env).is_ok());
        let refused = |text: String, says: &str| {
            let e = Spec::parse(&text, env).unwrap_err();
            assert!(e.contains(says), "{e}");
        };
        refused(
            format!("{base}[[agent]]\nname = \"a\"\ntoken = \"t\"\n"),
            "from 2 to",
        );
        refused(
            base.replace("tictactoe.v1", "werewolf.v1") + two,
            "two-player",
        );
        refused(base.replace("tictactoe.v1", "nope") + two, "no template");
        refused(
            base.replace("tictactoe.v1", "rps.v1") + two,
            "keeps a record",
        );
        refused(format!("{base}[options]\ndeal = 3\n{two}"), "series' own");
        refused(base.replace("deals = 1", "deals = 0") + two, "`deals`");
        refused(
            format!("{base}{two}[[agent]]\nname = \"A\"\nhouse = \"computer\"\n"),
            "a name of its own",
        );
        refused(
            format!("{base}{two}[[agent]]\nname = \"c\"\nhouse = \"mallory\"\n"),
            "house's",
        );
        refused(
            format!("{base}{two}[[agent]]\nname = \"c\"\ntoken_env = \"NOPE\"\n"),
            "`NOPE`",
        );
        refused(
            format!("{base}{two}[[agent]]\nname = \"c\"\n"),
            "one of `token`",
        );
    }
}
