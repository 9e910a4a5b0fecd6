//! One scale across games: a Bradley–Terry model fitted to every rated result, as
//! Kaggle's Game Arena places its models across chess, Werewolf and Four-in-a-Row. Each
//! identity (an owner: a person and their agents are one) has one strength; the chance that `a`
//! beats `b` is `γa / (γa + γb)`, a draw half a win each. Strengths are shown on the Elo scale
//! (400 · log10 γ), where the house's fixed levels (the chess Computer's, measured against
//! Stockfish) stand at their measured ratings and hold the scale in place; where no anchor is
//! played, the mean is 1500.
//!
//! Fitted by Hunter's MM iterations (each strength set to its wins over its expected games),
//! with one virtual draw against a 1500 player for everyone, so that a player who has only won
//! or only lost has a finite strength (as BayesElo's prior does). Each strength's 95% interval
//! comes from the model's Fisher information.

use std::collections::BTreeMap;

/// One result: who played whom, `a`'s score (1 won, 0.5 drew, 0 lost), and how much it
/// weighs (1 a game between two; a share of one where sides of several met: a Werewolf match
/// is a result between each player and each of the other side).
#[derive(Debug, Clone, PartialEq)]
pub struct Result {
    pub a: String,
    pub b: String,
    pub score_a: f64,
    pub weight: f64,
}

/// One identity's place on the scale.
#[derive(Debug, Clone, PartialEq)]
pub struct Fitted {
    pub who: String,
    pub rating: f64,
    /// Half the 95% interval, in rating points.
    pub interval: f64,
    /// The results it took part in (pairs, for a team game).
    pub games: u32,
    /// Whether it is an anchor (held at its fixed rating).
    pub anchor: bool,
}

/// Elo points per natural-log unit of strength.
const SCALE: f64 = 400.0 / std::f64::consts::LN_10;
/// The prior's one virtual draw, against this rating.
const PRIOR_RATING: f64 = 1500.0;
const ROUNDS: usize = 500;

/// Fits `results`, holding each of `anchors` (identity → rating) fixed.
pub fn fit(results: &[Result], anchors: &BTreeMap<String, f64>) -> Vec<Fitted> {
    // Each pair's games and each identity's score.
    let mut ids: Vec<String> = results
        .iter()
        .flat_map(|r| [r.a.clone(), r.b.clone()])
        .collect();
    ids.sort();
    ids.dedup();
    let index: BTreeMap<&str, usize> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_str(), i))
        .collect();
    let n = ids.len();
    let mut games = vec![BTreeMap::<usize, f64>::new(); n];
    let mut wins = vec![0.0f64; n];
    let mut played = vec![0u32; n];
    for r in results {
        let (a, b) = (index[r.a.as_str()], index[r.b.as_str()]);
        if a == b {
            continue;
        }
        *games[a].entry(b).or_default() += r.weight;
        *games[b].entry(a).or_default() += r.weight;
        wins[a] += r.weight * r.score_a;
        wins[b] += r.weight * (1.0 - r.score_a);
        played[a] += 1;
        played[b] += 1;
    }
    let fixed: Vec<Option<f64>> = ids
        .iter()
        .map(|id| anchors.get(id).map(|r| (r / SCALE).exp()))
        .collect();
    let prior = (PRIOR_RATING / SCALE).exp();
    let mut gamma: Vec<f64> = fixed.iter().map(|f| f.unwrap_or(prior)).collect();
    for _ in 0..ROUNDS {
        let mut moved = 0.0f64;
        for i in 0..n {
            if fixed[i].is_some() {
                continue;
            }
            // The prior: half a win in one game against a 1500 player.
            let mut expected = 1.0 / (gamma[i] + prior);
            for (&j, &m) in &games[i] {
                expected += m / (gamma[i] + gamma[j]);
            }
            let next = (wins[i] + 0.5) / expected;
            moved = moved.max((next.ln() - gamma[i].ln()).abs());
            gamma[i] = next;
        }
        if moved < 1e-9 {
            break;
        }
    }
    // With no anchor, the mean of the played is 1500 (the prior holds it near there already;
    // this keeps it exactly there).
    if fixed.iter().all(Option::is_none) && n > 0 {
        let mean = gamma.iter().map(|g| g.ln()).sum::<f64>() / n as f64;
        let shift = PRIOR_RATING / SCALE - mean;
        for g in &mut gamma {
            *g = (g.ln() + shift).exp();
        }
    }
    (0..n)
        .map(|i| {
            // Fisher information of log γi: Σ n p (1 − p) over its games, the prior's too.
            let mut info = {
                let p = gamma[i] / (gamma[i] + prior);
                p * (1.0 - p)
            };
            for (&j, &m) in &games[i] {
                let p = gamma[i] / (gamma[i] + gamma[j]);
                info += m * p * (1.0 - p);
            }
            let se = if info > 0.0 { 1.0 / info.sqrt() } else { 0.0 };
            Fitted {
                who: ids[i].clone(),
                rating: gamma[i].ln() * SCALE,
                interval: if fixed[i].is_some() {
                    0.0
                } else {
                    1.96 * se * SCALE
                },
                games: played[i],
                anchor: fixed[i].is_some(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(a: &str, b: &str, s: f64) -> Result {
        Result {
            a: a.into(),
            b: b.into(),
            score_a: s,
            weight: 1.0,
        }
    }

    fn rating(f: &[Fitted], who: &str) -> f64 {
        f.iter().find(|x| x.who == who).unwrap().rating
    }

    /// Who beats whom orders the scale; an anchor stays where it is and places the others
    /// around it; more games narrow an interval.
    #[test]
    fn results_order_the_scale_around_the_anchors() {
        let mut results = Vec::new();
        for _ in 0..30 {
            // Ann beats the 1800 anchor three times in four; Bob loses three in four to it.
            results.extend([r("ann", "house@1800", 1.0), r("bob", "house@1800", 0.0)]);
        }
        for i in 0..30 {
            let s = if i % 4 == 0 { 0.0 } else { 1.0 };
            results.push(r("ann", "house@1800", s));
            results.push(r("bob", "house@1800", 1.0 - s));
        }
        let anchors = BTreeMap::from([("house@1800".to_owned(), 1800.0)]);
        let f = fit(&results, &anchors);
        assert_eq!(rating(&f, "house@1800"), 1800.0);
        let (ann, bob) = (rating(&f, "ann"), rating(&f, "bob"));
        assert!(ann > 1800.0 + 150.0 && bob < 1800.0 - 150.0, "{f:?}");
        let few = fit(&results[..8], &anchors);
        let interval = |f: &[Fitted]| f.iter().find(|x| x.who == "ann").unwrap().interval;
        assert!(interval(&few) > interval(&f), "{few:?} {f:?}");
    }

    /// Weight counts as games do: one result of weight 2 is two results of weight 1.
    #[test]
    fn a_result_weighs_as_its_weight_says() {
        let two = fit(&[r("a", "b", 1.0), r("a", "b", 1.0)], &BTreeMap::new());
        let mut heavy = r("a", "b", 1.0);
        heavy.weight = 2.0;
        let one = fit(&[heavy], &BTreeMap::new());
        assert!(
            (rating(&two, "a") - rating(&one, "a")).abs() < 1e-6,
            "{two:?} {one:?}"
        );
        assert!((two[0].interval - one[0].interval).abs() < 1e-6);
    }

    /// A player who has only won is strong, not infinitely so; with no anchor the mean is 1500.
    #[test]
    fn an_unbeaten_player_is_finite_and_an_unanchored_scale_centres_on_1500() {
        let results: Vec<Result> = (0..10).map(|_| r("a", "b", 1.0)).collect();
        let f = fit(&results, &BTreeMap::new());
        let (a, b) = (rating(&f, "a"), rating(&f, "b"));
        assert!(a.is_finite() && b.is_finite() && a > b + 200.0, "{f:?}");
        assert!(((a + b) / 2.0 - 1500.0).abs() < 1e-6, "{f:?}");
    }
}
