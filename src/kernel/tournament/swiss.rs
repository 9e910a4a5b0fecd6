//! Swiss pairing, after the Dutch system's main rules: players are ranked by score, then
//! seeding rating; each score group's top half meets its bottom half; nobody meets anyone
//! twice; an odd field's bye goes to the lowest-ranked player who has not had one; and the
//! player who has moved first less often moves first. A depth-first search with the preferred
//! partner tried first finds a pairing with no rematch whenever one exists (within a bound on
//! the search, which a sane field never nears).

use std::collections::BTreeSet;

use super::{Entrant, Ledger, Pairing, Side};

/// The most positions the search tries before it says no pairing exists.
const SEARCH: u32 = 200_000;

/// What pairing needs to know of one player.
struct Seat {
    who: Entrant,
    halves: u32,
    met: BTreeSet<Entrant>,
    /// Games moved first less games moved second.
    balance: i32,
    last: Option<Side>,
    had_bye: bool,
}

/// The next round's pairings for `active`, or None if every pairing would have a rematch.
pub(super) fn pair(l: &Ledger, active: &[Entrant]) -> Option<Vec<Pairing>> {
    let mut seats: Vec<Seat> = active
        .iter()
        .map(|&who| {
            let mut balance = 0;
            let mut last = None;
            let mut had_bye = false;
            for p in l.games() {
                match (p.side_of(who), p.second) {
                    (Some(_), None) => had_bye = true,
                    (Some(side), Some(_)) => {
                        balance += if side == Side::First { 1 } else { -1 };
                        last = Some(side);
                    }
                    _ => {}
                }
            }
            Seat {
                who,
                halves: l.halves(who),
                met: l.opponents(who),
                balance,
                last,
                had_bye,
            }
        })
        .collect();
    // By score, then rating, then who entered first.
    seats.sort_by(|a, b| {
        b.halves
            .cmp(&a.halves)
            .then(l.ratings[b.who].total_cmp(&l.ratings[a.who]))
            .then(a.who.cmp(&b.who))
    });
    let round = l.rounds.len();
    let mut budget = SEARCH;
    if seats.len().is_multiple_of(2) {
        let pairs = search(&seats, &mut budget)?;
        return Some(finish(&seats, pairs, None, round));
    }
    // The bye: the lowest-ranked who has not had one such that the rest can be paired, or
    // failing that the lowest-ranked who has (a second bye rather than no round).
    let order: Vec<usize> = (0..seats.len())
        .rev()
        .filter(|&i| !seats[i].had_bye)
        .chain((0..seats.len()).rev().filter(|&i| seats[i].had_bye))
        .collect();
    for i in order {
        let mut rest: Vec<Seat> = Vec::with_capacity(seats.len() - 1);
        let mut bye = None;
        for (k, s) in std::mem::take(&mut seats).into_iter().enumerate() {
            if k == i {
                bye = Some(s);
            } else {
                rest.push(s);
            }
        }
        if let Some(pairs) = search(&rest, &mut budget) {
            return Some(finish(&rest, pairs, bye.map(|b| b.who), round));
        }
        // Put the field back as it was for the next try.
        seats = rest;
        if let Some(b) = bye {
            seats.insert(i, b);
        }
    }
    None
}

/// Pairs of places in `seats`, each meeting for the first time, the preferred partner first.
fn search(seats: &[Seat], budget: &mut u32) -> Option<Vec<(usize, usize)>> {
    let mut used = vec![false; seats.len()];
    let mut pairs = Vec::with_capacity(seats.len() / 2);
    go(seats, &mut used, &mut pairs, budget).then_some(pairs)
}

fn go(
    seats: &[Seat],
    used: &mut [bool],
    pairs: &mut Vec<(usize, usize)>,
    budget: &mut u32,
) -> bool {
    let Some(i) = used.iter().position(|u| !u) else {
        return true;
    };
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    used[i] = true;
    // Those left of the same score, in rank order: the top half meets the bottom half, so
    // the first of them prefers the one half the group below.
    let group: Vec<usize> = (i..seats.len())
        .filter(|&j| !used[j] && seats[j].halves == seats[i].halves)
        .collect();
    let ideal_at = match group.len() {
        0 | 1 => i + 1,
        k => group[k / 2],
    };
    let mut candidates: Vec<usize> = (i + 1..seats.len())
        .filter(|&j| !used[j] && !seats[i].met.contains(&seats[j].who))
        .collect();
    candidates.sort_by_key(|&j| {
        (
            seats[i].halves.abs_diff(seats[j].halves),
            j.abs_diff(ideal_at),
        )
    });
    for j in candidates {
        used[j] = true;
        pairs.push((i, j));
        if go(seats, used, pairs, budget) {
            return true;
        }
        pairs.pop();
        used[j] = false;
    }
    used[i] = false;
    false
}

/// The round's pairings, each pair's sides chosen to even out who moves first.
fn finish(
    seats: &[Seat],
    pairs: Vec<(usize, usize)>,
    bye: Option<Entrant>,
    round: usize,
) -> Vec<Pairing> {
    let mut out: Vec<Pairing> = pairs
        .into_iter()
        .map(|(a, b)| {
            let (sa, sb) = (&seats[a], &seats[b]);
            let a_first = if sa.balance != sb.balance {
                sa.balance < sb.balance
            } else if sa.last != sb.last {
                sa.last == Some(Side::Second) || sb.last == Some(Side::First)
            } else {
                // Alike: the higher-ranked alternates, round by round.
                round.is_multiple_of(2)
            };
            match a_first {
                true => Pairing::game(sa.who, sb.who),
                false => Pairing::game(sb.who, sa.who),
            }
        })
        .collect();
    if let Some(b) = bye {
        out.push(Pairing::bye(b, 2));
    }
    out
}
