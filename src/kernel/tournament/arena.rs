//! An arena, as lichess runs one: for a fixed time, whoever is free is paired at once with
//! another free player of a like score (not the one they just played, where another is free),
//! and games score 2 a win and 1 a draw, doubled while a player is on a streak (after two wins
//! in a row, until a game is not won). Nobody waits for a round to end; someone left alone
//! waits for the next to come free.

use super::{Entrant, Ledger, Outcome, Pairing, Side};

/// Pairings for those of `active` who are free now, best scores together.
pub(super) fn pair(l: &Ledger, active: &[Entrant]) -> Vec<Pairing> {
    let mut free: Vec<Entrant> = active
        .iter()
        .copied()
        .filter(|&e| !l.is_playing(e))
        .collect();
    free.sort_by(|&a, &b| {
        points(l, b)
            .cmp(&points(l, a))
            .then(l.ratings[b].total_cmp(&l.ratings[a]))
            .then(a.cmp(&b))
    });
    let last_opponent = |e: Entrant| l.games().filter_map(|p| p.opponent_of(e)).last();
    let firsts = |e: Entrant| {
        l.games()
            .filter(|p| p.second.is_some() && p.first == e)
            .count()
    };
    let mut out = Vec::new();
    while free.len() >= 2 {
        let a = free.remove(0);
        // The nearest in score who is not the one they just played, if there is such.
        let k = free
            .iter()
            .position(|&b| Some(b) != last_opponent(a))
            .unwrap_or(0);
        let b = free.remove(k);
        out.push(match firsts(a) <= firsts(b) {
            true => Pairing::game(a, b),
            false => Pairing::game(b, a),
        });
    }
    out
}

/// `who`'s arena points: 2 a win and 1 a draw, doubled after two wins in a row.
pub fn points(l: &Ledger, who: Entrant) -> u32 {
    let mut streak = 0;
    let mut total = 0;
    for p in l.games() {
        let (Some(side), Some(_), Some(outcome)) = (p.side_of(who), p.second, p.outcome) else {
            continue;
        };
        let fire = if streak >= 2 { 2 } else { 1 };
        let won = matches!(
            (outcome, side),
            (Outcome::FirstWins, Side::First) | (Outcome::SecondWins, Side::Second)
        ) || matches!(outcome, Outcome::Forfeit { absent } if absent != side);
        if won {
            total += 2 * fire;
            streak += 1;
        } else {
            if outcome == Outcome::Draw {
                total += fire;
            }
            streak = 0;
        }
    }
    total
}
