//! What a series did: the report `moot arena run` writes (`report.json`) and `moot arena check`
//! holds against the stored logs. Its standings are computed from its games alone, so that a
//! reader can compute them again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The report's format, for readers that outlive this one.
pub const FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub format: u32,
    pub server: String,
    pub game: String,
    pub options: Value,
    pub seed: u64,
    pub deals: u32,
    pub started_at: String,
    pub finished_at: Option<String>,
    /// Whether every planned game was played.
    pub complete: bool,
    pub planned_games: usize,
    pub agents: Vec<Agent>,
    pub games: Vec<Game>,
    pub standings: Vec<Standing>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Agent {
    pub name: String,
    /// Its id in the town (what the stored logs name).
    pub agent_id: String,
    pub house: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Game {
    pub n: usize,
    pub deal_index: u32,
    /// The game's seed.
    pub deal: u64,
    pub mirror_of: Option<usize>,
    pub session_id: String,
    /// Role → agent id.
    pub roles: BTreeMap<String, String>,
    /// Role → what it scored (1 won, 0.5 drawn, 0 lost).
    pub scores: BTreeMap<String, f64>,
    pub actions: usize,
    /// SHA-256 of the log, one line per action (see [`log_digest`]).
    pub log_sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Standing {
    pub name: String,
    pub agent_id: String,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub points: f64,
    /// Each deal two agents played from both sides, as one match: won (more than half the
    /// points), split, or lost. Luck of the deal cancels out here.
    pub mirrored_won: u32,
    pub mirrored_split: u32,
    pub mirrored_lost: u32,
}

/// One logged action, as the digest reads it.
pub struct Line<'a> {
    pub tick: u64,
    pub role: &'a str,
    pub agent_id: &'a str,
    pub action: &'a str,
}

/// The log's fingerprint: SHA-256 over `tick TAB role TAB agent TAB action LF` per action,
/// which a reader of the stored log computes the same way.
pub fn log_digest<'a>(lines: impl IntoIterator<Item = Line<'a>>) -> String {
    let mut h = Sha256::new();
    for l in lines {
        h.update(format!(
            "{}\t{}\t{}\t{}\n",
            l.tick, l.role, l.agent_id, l.action
        ));
    }
    hex::encode(h.finalize())
}

/// The standings the games make, best first (points, then mirrored deals won, then name).
pub fn standings(agents: &[Agent], games: &[Game]) -> Vec<Standing> {
    let mut rows: Vec<Standing> = agents
        .iter()
        .map(|a| Standing {
            name: a.name.clone(),
            agent_id: a.agent_id.clone(),
            games: 0,
            wins: 0,
            draws: 0,
            losses: 0,
            points: 0.0,
            mirrored_won: 0,
            mirrored_split: 0,
            mirrored_lost: 0,
        })
        .collect();
    let row_of =
        |rows: &mut Vec<Standing>, agent: &str| rows.iter().position(|r| r.agent_id == agent);
    let points_of = |g: &Game, agent: &str| -> Option<f64> {
        let role = g.roles.iter().find(|(_, a)| *a == agent)?.0;
        g.scores.get(role).copied()
    };
    for g in games {
        for (role, agent) in &g.roles {
            let (Some(i), Some(&p)) = (row_of(&mut rows, agent), g.scores.get(role)) else {
                continue;
            };
            let r = &mut rows[i];
            r.games += 1;
            r.points += p;
            if p > 0.5 {
                r.wins += 1;
            } else if p < 0.5 {
                r.losses += 1;
            } else {
                r.draws += 1;
            }
        }
        let Some(m) = g.mirror_of.and_then(|n| games.iter().find(|o| o.n == n)) else {
            continue;
        };
        for agent in g.roles.values() {
            let (Some(i), Some(a), Some(b)) = (
                row_of(&mut rows, agent),
                points_of(g, agent),
                points_of(m, agent),
            ) else {
                continue;
            };
            let r = &mut rows[i];
            match (a + b).partial_cmp(&1.0) {
                Some(std::cmp::Ordering::Greater) => r.mirrored_won += 1,
                Some(std::cmp::Ordering::Less) => r.mirrored_lost += 1,
                _ => r.mirrored_split += 1,
            }
        }
    }
    rows.sort_by(|a, b| {
        b.points
            .total_cmp(&a.points)
            .then(b.mirrored_won.cmp(&a.mirrored_won))
            .then(a.name.cmp(&b.name))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(n: usize, mirror_of: Option<usize>, x: &str, o: &str, sx: f64) -> Game {
        Game {
            n,
            deal_index: 0,
            deal: 1,
            mirror_of,
            session_id: n.to_string(),
            roles: [("o".into(), o.into()), ("x".into(), x.into())].into(),
            scores: [("o".into(), 1.0 - sx), ("x".into(), sx)].into(),
            actions: 5,
            log_sha256: String::new(),
        }
    }

    #[test]
    fn standings_count_games_and_each_mirrored_deal_as_a_match() {
        let agents: Vec<Agent> = ["a", "b"]
            .iter()
            .map(|n| Agent {
                name: n.to_uppercase(),
                agent_id: (*n).into(),
                house: false,
            })
            .collect();
        // a wins as X and draws as O: a takes the mirrored deal; then each wins as X: split.
        let games = [
            game(1, None, "a", "b", 1.0),
            game(2, Some(1), "b", "a", 0.5),
            game(3, None, "a", "b", 1.0),
            game(4, Some(3), "b", "a", 1.0),
        ];
        let s = standings(&agents, &games);
        assert_eq!(s[0].name, "A");
        assert_eq!(
            (s[0].games, s[0].wins, s[0].draws, s[0].losses),
            (4, 2, 1, 1)
        );
        assert_eq!(s[0].points, 2.5);
        assert_eq!(
            (s[0].mirrored_won, s[0].mirrored_split, s[0].mirrored_lost),
            (1, 1, 0)
        );
        assert_eq!(
            (s[1].mirrored_won, s[1].mirrored_split, s[1].mirrored_lost),
            (0, 1, 1)
        );
        assert_eq!(s[1].points, 1.5);
    }

    #[test]
    fn the_digest_is_sha256_of_the_lines() {
        let d = log_digest([Line {
            tick: 0,
            role: "x",
            agent_id: "a1",
            action: "0",
        }]);
        let want = hex::encode(Sha256::digest(b"0\tx\ta1\t0\n"));
        assert_eq!(d, want);
        assert_ne!(log_digest([]), d);
    }
}
