//! Round-robin pairing by Berger's tables (the circle method): with `n` players (one more, a
//! rest, when `n` is odd) there are `n - 1` rounds, in which everyone meets everyone once.
//! The first player stays put while the others turn round them a place a round, and sides
//! alternate so that nobody moves first much more often than second. A round's rest scores
//! nothing; a withdrawn player's games are not played, their opponent resting instead.

use std::collections::BTreeSet;

use super::{Entrant, Pairing};

/// Round `round` (from 0) of a round-robin of `n` entrants, or None once all are played.
pub(super) fn pair(n: usize, round: usize, withdrawn: &BTreeSet<Entrant>) -> Option<Vec<Pairing>> {
    // `n` itself stands for the rest when the field is odd.
    let m = n + n % 2;
    if m < 2 || round >= m - 1 {
        return None;
    }
    let turning = m - 1;
    let at = |k: usize| match k {
        0 => 0,
        k => 1 + (k - 1 + round) % turning,
    };
    let mut out = Vec::with_capacity(m / 2);
    for k in 0..m / 2 {
        let (a, b) = (at(k), at(m - 1 - k));
        // The fixed player alternates sides by round, the others by their place in the
        // circle: nobody moves first more than once more (or less) than second.
        let keep = match k {
            0 => round.is_multiple_of(2),
            k => k % 2 == 1,
        };
        let (first, second) = if keep { (a, b) } else { (b, a) };
        let gone = |e: usize| e >= n || withdrawn.contains(&e);
        match (gone(first), gone(second)) {
            (false, false) => out.push(Pairing::game(first, second)),
            (false, true) => out.push(Pairing::bye(first, 0)),
            (true, false) => out.push(Pairing::bye(second, 0)),
            (true, true) => {}
        }
    }
    Some(out)
}
