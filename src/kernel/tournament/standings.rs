//! The standings: score first, then Buchholz (the sum of one's opponents' scores: who met the
//! stronger field), then Sonneborn-Berger (the scores of those one beat, and half those of
//! whom one drew with: who beat the stronger players), then the seeding rating. An arena's
//! score is its points ([`super::arena::points`]); a Swiss's or round-robin's, its wins and
//! half its draws. Byes and rests count in the score but bring no opponent's.

use super::{Entrant, Format, Ledger};

/// One line of the standings.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub entrant: Entrant,
    pub score: f64,
    pub buchholz: f64,
    pub sonneborn_berger: f64,
    /// Games decided (byes aside).
    pub games: u32,
    pub withdrawn: bool,
}

/// `who`'s score.
fn score(l: &Ledger, who: Entrant) -> f64 {
    match l.format {
        Format::Arena => f64::from(super::arena::points(l, who)),
        _ => f64::from(l.halves(who)) / 2.0,
    }
}

/// Everyone, best first.
pub fn standings(l: &Ledger) -> Vec<Standing> {
    let scores: Vec<f64> = (0..l.ratings.len()).map(|e| score(l, e)).collect();
    let mut out: Vec<Standing> = (0..l.ratings.len())
        .map(|who| {
            let mut s = Standing {
                entrant: who,
                score: scores[who],
                buchholz: 0.0,
                sonneborn_berger: 0.0,
                games: 0,
                withdrawn: l.withdrawn.contains(&who),
            };
            for p in l.games() {
                let (Some(opp), Some(halves)) = (p.opponent_of(who), p.halves_for(who)) else {
                    continue;
                };
                s.games += 1;
                s.buchholz += scores[opp];
                s.sonneborn_berger += scores[opp] * f64::from(halves) / 2.0;
            }
            s
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(b.buchholz.total_cmp(&a.buchholz))
            .then(b.sonneborn_berger.total_cmp(&a.sonneborn_berger))
            .then(l.ratings[b.entrant].total_cmp(&l.ratings[a.entrant]))
            .then(a.entrant.cmp(&b.entrant))
    });
    out
}
