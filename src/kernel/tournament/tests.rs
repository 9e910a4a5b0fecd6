use std::collections::BTreeSet;

use super::standings::standings;
use super::*;

/// A ledger of `n` entrants rated 2000, 1990, ... (the first the top seed).
fn field(format: Format, n: usize) -> Ledger {
    let mut l = Ledger::new(format);
    for i in 0..n {
        l.enter(2000.0 - 10.0 * i as f64);
    }
    l
}

/// Decides every open game of the last round: the first of each pair wins, or as `decide` says.
fn play(l: &mut Ledger, decide: impl Fn(&Pairing) -> Outcome) {
    let round = l.rounds.len() - 1;
    for g in 0..l.rounds[round].len() {
        let p = l.rounds[round][g].clone();
        if p.second.is_some() && p.outcome.is_none() {
            l.decide(round, g, decide(&p)).unwrap();
        }
    }
}

/// The unordered pairs that met in `l`.
fn met(l: &Ledger) -> Vec<(Entrant, Entrant)> {
    l.games()
        .filter_map(|p| p.second.map(|s| (p.first.min(s), p.first.max(s))))
        .collect()
}

fn balance(l: &Ledger, who: Entrant) -> i32 {
    l.games()
        .filter(|p| p.second.is_some())
        .map(|p| match p.side_of(who) {
            Some(Side::First) => 1,
            Some(Side::Second) => -1,
            None => 0,
        })
        .sum()
}

#[test]
fn a_swiss_pairs_the_top_half_with_the_bottom_never_twice_and_balances_sides() {
    let mut l = field(Format::Swiss { rounds: 5 }, 8);
    l.next_round().unwrap();
    // Round one: the top half meets the bottom half, seed 1 against seed 5.
    let mut first: Vec<(Entrant, Entrant)> = met(&l);
    first.sort();
    assert_eq!(first, [(0, 4), (1, 5), (2, 6), (3, 7)]);
    assert_eq!(l.next_round(), Err(Refused::RoundUnderWay));
    play(&mut l, |_| Outcome::FirstWins);
    for _ in 1..5 {
        l.next_round().unwrap();
        // Winners meet winners: in each game the two had the same score, or the nearest.
        play(&mut l, |p| match (p.first + p.second.unwrap_or(0)) % 3 {
            0 => Outcome::Draw,
            1 => Outcome::FirstWins,
            _ => Outcome::SecondWins,
        });
    }
    let pairs = met(&l);
    let distinct: BTreeSet<_> = pairs.iter().collect();
    assert_eq!(pairs.len(), 20);
    assert_eq!(distinct.len(), 20, "nobody meets anyone twice: {pairs:?}");
    for who in 0..8 {
        assert!(balance(&l, who).abs() <= 1, "{who}: {}", balance(&l, who));
    }
    assert_eq!(l.next_round(), Err(Refused::Finished));
}

#[test]
fn an_odd_swiss_gives_each_bye_to_a_different_player_low_in_the_standings() {
    let mut l = field(Format::Swiss { rounds: 3 }, 5);
    let mut byes = Vec::new();
    for _ in 0..3 {
        let r = l.next_round().unwrap();
        let bye: Vec<Entrant> = l.rounds[r]
            .iter()
            .filter(|p| p.second.is_none())
            .map(|p| p.first)
            .collect();
        assert_eq!(bye.len(), 1);
        byes.push(bye[0]);
        play(&mut l, |_| Outcome::FirstWins);
    }
    // The first round's bye is the lowest seed's; nobody has two.
    assert_eq!(byes[0], 4);
    assert_eq!(byes.iter().collect::<BTreeSet<_>>().len(), 3, "{byes:?}");
    // A bye is a point.
    assert!(l.halves(4) >= 2);
}

#[test]
fn a_swiss_with_more_rounds_than_opponents_says_so_and_pairs_nobody() {
    let mut l = field(Format::Swiss { rounds: 4 }, 4);
    for _ in 0..3 {
        l.next_round().unwrap();
        play(&mut l, |_| Outcome::Draw);
    }
    assert_eq!(l.next_round(), Err(Refused::NoPairing));
    assert_eq!(l.rounds.len(), 3);
}

#[test]
fn withdrawn_players_are_paired_no_more_and_too_few_stops_the_event() {
    let mut l = field(Format::Swiss { rounds: 3 }, 4);
    l.next_round().unwrap();
    play(&mut l, |_| Outcome::FirstWins);
    l.withdraw(1);
    let r = l.next_round().unwrap();
    assert!(l.rounds[r].iter().all(|p| p.side_of(1).is_none()));
    play(&mut l, |_| Outcome::FirstWins);
    l.withdraw(0);
    l.withdraw(2);
    assert_eq!(l.next_round(), Err(Refused::TooFew));
}

#[test]
fn a_round_robin_meets_everyone_once_with_a_rest_that_scores_nothing() {
    let mut l = field(Format::RoundRobin, 5);
    for _ in 0..5 {
        l.next_round().unwrap();
        play(&mut l, |_| Outcome::Draw);
    }
    assert_eq!(l.next_round(), Err(Refused::Finished));
    let pairs = met(&l);
    let distinct: BTreeSet<_> = pairs.iter().collect();
    assert_eq!((pairs.len(), distinct.len()), (10, 10), "{pairs:?}");
    let rests: Vec<Entrant> = l
        .games()
        .filter(|p| p.second.is_none())
        .map(|p| p.first)
        .collect();
    assert_eq!(rests.iter().collect::<BTreeSet<_>>().len(), 5, "{rests:?}");
    // Four draws each: two points, the rest nothing.
    assert!((0..5).all(|e| l.halves(e) == 4));
    let mut even = field(Format::RoundRobin, 6);
    for _ in 0..5 {
        even.next_round().unwrap();
        play(&mut even, |_| Outcome::FirstWins);
    }
    for who in 0..6 {
        assert!(
            balance(&even, who).abs() <= 1,
            "{who}: {}",
            balance(&even, who)
        );
    }
}

#[test]
fn an_arena_scores_streaks_double_and_pairs_only_who_is_free() {
    let mut l = field(Format::Arena, 4);
    let r = l.next_round().unwrap();
    assert_eq!(l.rounds[r].len(), 2);
    // One game ends; only its two are free, and they are not paired together again: they
    // wait for someone else to come free.
    l.decide(r, 0, Outcome::FirstWins).unwrap();
    assert_eq!(l.next_round(), Err(Refused::NobodyFree));
    l.decide(r, 1, Outcome::Draw).unwrap();
    // Now all four are free: nobody meets the one they just played.
    let r3 = l.next_round().unwrap();
    for p in &l.rounds[r3] {
        let (x, y) = (p.first, p.second.unwrap());
        let last = |e: Entrant| {
            l.rounds[..r3]
                .iter()
                .flatten()
                .rev()
                .find_map(|q| q.opponent_of(e))
        };
        assert!(last(x) != Some(y), "{:?}", l.rounds);
    }
    // Streaks: W W W D L W is 2 + 2 + 4 + 2 + 0 + 2 (entrant 0 as first, then as second).
    let mut s = field(Format::Arena, 2);
    for (i, outcome) in [
        Outcome::FirstWins,
        Outcome::SecondWins,
        Outcome::FirstWins,
        Outcome::Draw,
        Outcome::SecondWins,
        Outcome::SecondWins,
    ]
    .into_iter()
    .enumerate()
    {
        let mut p = if i % 2 == 0 {
            Pairing::game(0, 1)
        } else {
            Pairing::game(1, 0)
        };
        p.outcome = Some(outcome);
        s.rounds.push(vec![p]);
    }
    assert_eq!(arena::points(&s, 0), 12);
    assert_eq!(arena::points(&s, 1), 3);
}

#[test]
fn standings_break_ties_by_buchholz_then_sonneborn_berger() {
    // Four players, three rounds by hand: 0 beats 1, 2 draws 3; 0 beats 2, 1 beats 3;
    // 3 beats 0, 1 draws 2.
    let mut l = field(Format::Swiss { rounds: 3 }, 4);
    l.rounds = vec![
        vec![Pairing::game(0, 1), Pairing::game(2, 3)],
        vec![Pairing::game(0, 2), Pairing::game(1, 3)],
        vec![Pairing::game(3, 0), Pairing::game(1, 2)],
    ];
    for (r, g, o) in [
        (0, 0, Outcome::FirstWins),
        (0, 1, Outcome::Draw),
        (1, 0, Outcome::FirstWins),
        (1, 1, Outcome::FirstWins),
        (2, 0, Outcome::FirstWins),
        (2, 1, Outcome::Draw),
    ] {
        l.decide(r, g, o).unwrap();
    }
    assert_eq!(l.decide(0, 0, Outcome::Draw), Err(Refused::NoSuchGame));
    let table = standings(&l);
    // Scores: 0 has 2, 1 has 1.5, 3 has 1.5, 2 has 1.
    let order: Vec<Entrant> = table.iter().map(|s| s.entrant).collect();
    let scores: Vec<f64> = table.iter().map(|s| s.score).collect();
    assert_eq!(scores, [2.0, 1.5, 1.5, 1.0]);
    // 1 and 3 tie on 1.5; 1 met 0 (2), 3 (1.5) and 2 (1): 4.5; 3 met 2 (1), 1 (1.5), 0 (2):
    // 4.5 too. Sonneborn-Berger: 1 beat 3 (1.5) and drew 2 (0.5): 2; 3 beat 0 (2) and drew
    // 2 (0.5): 2.5. So 3 is second.
    assert_eq!(order, [0, 3, 1, 2], "{table:?}");
    assert_eq!((table[1].buchholz, table[1].sonneborn_berger), (4.5, 2.5));
    assert_eq!((table[2].buchholz, table[2].sonneborn_berger), (4.5, 2.0));
    // A forfeit is a win for who came.
    let mut f = field(Format::Swiss { rounds: 1 }, 2);
    f.next_round().unwrap();
    let absent = f.rounds[0][0].side_of(1).unwrap();
    f.decide(0, 0, Outcome::Forfeit { absent }).unwrap();
    assert_eq!((f.halves(0), f.halves(1)), (2, 0));
}

#[test]
fn a_big_swiss_pairs_every_round_quickly_enough_to_be_sure() {
    // 256 players, 9 rounds, results by a fixed rule: every round pairs everyone, no rematch.
    let mut l = field(Format::Swiss { rounds: 9 }, 256);
    for _ in 0..9 {
        l.next_round().unwrap();
        play(&mut l, |p| {
            match (p.first * 7 + p.second.unwrap_or(0) * 3) % 5 {
                0 => Outcome::Draw,
                1 | 2 => Outcome::FirstWins,
                _ => Outcome::SecondWins,
            }
        });
    }
    let pairs = met(&l);
    assert_eq!(pairs.len(), 128 * 9);
    assert_eq!(pairs.iter().collect::<BTreeSet<_>>().len(), pairs.len());
}
