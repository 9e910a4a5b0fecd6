//! An arena, as lichess runs one: for a fixed time, whoever is free is paired at once with
//! another free player of a like score (not the one they just played, where another is free),
//! and games score 2 a win and 1 a draw, doubled while a player is on a streak (after two wins
//! in a row, until a game is not won). Nobody waits for a round to end; someone left alone
//! waits for the next to come free.

use super::{Entrant, Ledger, Outcome, Pairing, Side};

/// What pairing needs of each entrant, read in one pass over the games (an arena's games
/// grow all the time, and it is paired whenever one ends).
#[derive(Clone, Copy, Default)]
struct Seen {
    points: u32,
    streak: u32,
    playing: bool,
    last: Option<Entrant>,
    firsts: u32,
}

fn seen(l: &Ledger) -> Vec<Seen> {
    let mut out = vec![Seen::default(); l.ratings.len()];
    for p in l.games() {
        let Some(second) = p.second else { continue };
        for (who, side, other) in [
            (p.first, Side::First, second),
            (second, Side::Second, p.first),
        ] {
            let s = &mut out[who];
            s.last = Some(other);
            if side == Side::First {
                s.firsts += 1;
            }
            match p.outcome {
                None => s.playing = true,
                Some(o) => score(s, o, side),
            }
        }
    }
    out
}

/// Adds a decided game to `s`: 2 a win and 1 a draw, doubled after two wins in a row.
fn score(s: &mut Seen, outcome: Outcome, side: Side) {
    let fire = if s.streak >= 2 { 2 } else { 1 };
    if outcome.winner() == Some(side) {
        s.points += 2 * fire;
        s.streak += 1;
    } else {
        if outcome == Outcome::Draw {
            s.points += fire;
        }
        s.streak = 0;
    }
}

/// Pairings for those of `active` who are free now, best scores together.
pub(super) fn pair(l: &Ledger, active: &[Entrant]) -> Vec<Pairing> {
    let seen = seen(l);
    let mut free: Vec<Entrant> = active
        .iter()
        .copied()
        .filter(|&e| !seen[e].playing)
        .collect();
    free.sort_by(|&a, &b| {
        seen[b]
            .points
            .cmp(&seen[a].points)
            .then(l.ratings[b].total_cmp(&l.ratings[a]))
            .then(a.cmp(&b))
    });
    let mut out = Vec::new();
    let mut free = std::collections::VecDeque::from(free);
    while free.len() >= 2 {
        let Some(a) = free.pop_front() else { break };
        // The nearest in score who is not the one they just played. With nobody else free,
        // they wait: two who end their games at once are never paired back to back (a pair
        // trading quick wins would otherwise farm a streak).
        let Some(k) = free.iter().position(|&b| Some(b) != seen[a].last) else {
            continue;
        };
        let Some(b) = free.remove(k) else { break };
        out.push(match seen[a].firsts <= seen[b].firsts {
            true => Pairing::game(a, b),
            false => Pairing::game(b, a),
        });
    }
    out
}

/// `who`'s arena points: 2 a win and 1 a draw, doubled after two wins in a row.
pub fn points(l: &Ledger, who: Entrant) -> u32 {
    let mut s = Seen::default();
    for p in l.games() {
        if let (Some(side), Some(_), Some(outcome)) = (p.side_of(who), p.second, p.outcome) {
            score(&mut s, outcome, side);
        }
    }
    s.points
}
