use super::*;

fn duel(a: &str, b: &str, score_a: f64) -> Decided {
    Decided {
        board: "chess/blitz".into(),
        rules: "r1".into(),
        reckoning: Reckoning::Rating,
        sides: vec![
            DecidedSide {
                side: "",
                players: vec![a.into()],
                score: score_a,
                anchor: None,
                owners: vec![a.into()],
                parts: Vec::new(),
            },
            DecidedSide {
                side: "",
                players: vec![b.into()],
                score: 1.0 - score_a,
                anchor: None,
                owners: vec![b.into()],
                parts: Vec::new(),
            },
        ],
        day: "2026-11-28".into(),
    }
}

/// `d` decided, as the world takes it: its changes applied, and counted for the day.
fn take(l: &mut Ledger, d: &Decided) -> Vec<Change> {
    let c = l.changes(d);
    l.apply(&c);
    l.met(d);
    c
}

#[test]
fn identities_of_one_owner_never_rate_each_other() {
    let mut l = Ledger::default();
    let mut d = duel("main", "alt", 1.0);
    d.sides[1].owners = vec!["main".into()];
    assert_eq!(
        take(&mut l, &d),
        [],
        "a game against one's own alt moves nothing"
    );
    // A team game: the seat beside an alt is unrated; the others are rated as usual.
    let mut team = duel("ann", "bob", 1.0);
    team.sides[0].players.push("ann2".into());
    team.sides[0].owners.push("ann".into());
    team.sides[1].players.push("cy".into());
    team.sides[1].owners.push("cy".into());
    let moved: Vec<String> = take(&mut l, &team)
        .into_iter()
        .map(|c| c.key.agent)
        .collect();
    assert_eq!(moved, ["bob", "cy"]);
}

#[test]
fn only_the_first_games_of_a_day_between_two_owners_move_ratings() {
    let mut l = Ledger::default();
    for n in 0..PAIR_LIMIT {
        assert_eq!(take(&mut l, &duel("ann", "bob", 1.0)).len(), 2, "game {n}");
    }
    // The same two owners, whichever identities and sides they use, are spent for the day.
    let mut d = duel("bob", "ann-alt", 0.0);
    d.sides[1].owners = vec!["ann".into()];
    assert_eq!(take(&mut l, &d), []);
    assert_eq!(
        take(&mut l, &duel("ann", "cy", 1.0)).len(),
        2,
        "other pairs are not"
    );
    // A new day, a new count.
    let mut next = duel("ann", "bob", 1.0);
    next.day = "2026-11-29".into();
    assert_eq!(take(&mut l, &next).len(), 2);
    // Undone (not stored), a game does not count.
    let mut l = Ledger::default();
    for _ in 0..PAIR_LIMIT {
        let d = duel("ann", "bob", 1.0);
        take(&mut l, &d);
        l.unmet(&d);
    }
    assert_eq!(take(&mut l, &duel("ann", "bob", 1.0)).len(), 2);
}

fn key(agent: &str, board: &str) -> Key {
    Key {
        agent: agent.into(),
        board: board.into(),
        rules: "r1".into(),
    }
}

#[test]
fn a_first_win_between_newcomers_moves_both_alike_and_the_record_with_them() {
    let mut l = Ledger::default();
    let c = l.changes(&duel("ann", "bob", 1.0));
    l.apply(&c);
    let ann = l
        .get(&key("ann", "chess/blitz"))
        .copied()
        .unwrap_or_default();
    let bob = l
        .get(&key("bob", "chess/blitz"))
        .copied()
        .unwrap_or_default();
    let (ra, rb) = (
        ann.rating.unwrap_or(glicko2::START),
        bob.rating.unwrap_or(glicko2::START),
    );
    assert!(ra.rating > 1500.0 && rb.rating < 1500.0);
    assert!(((ra.rating - 1500.0) + (rb.rating - 1500.0)).abs() < 1e-9);
    assert_eq!((ann.won, ann.lost, bob.won, bob.lost), (1, 0, 0, 1));
    assert!(ra.provisional());
    let (rules, rows) = l.table("chess/blitz").unwrap_or(("", Vec::new()));
    assert_eq!(rules, "r1");
    assert_eq!(
        rows.iter().map(|r| r.0.agent.as_str()).collect::<Vec<_>>(),
        ["ann", "bob"]
    );
}

#[test]
fn undo_puts_back_the_standings_and_the_season() {
    let mut l = Ledger::default();
    let first = l.changes(&duel("ann", "bob", 0.5));
    l.apply(&first);
    let kept = l.clone();
    let mut d = duel("ann", "cy", 0.0);
    d.rules = "r2".into();
    let second = l.changes(&d);
    let seasons = l.seasons_before(&second);
    l.apply(&second);
    assert_ne!(l, kept);
    l.undo(&second, seasons);
    assert_eq!(l, kept);
}

#[test]
fn each_werewolf_side_has_its_own_board_and_meets_the_other_sides_average() {
    let l = Ledger::default();
    let d = Decided {
        board: "werewolf".into(),
        rules: "r1".into(),
        reckoning: Reckoning::Rating,
        sides: vec![
            DecidedSide {
                side: "village",
                players: vec!["a".into(), "b".into(), "c".into()],
                score: 0.0,
                anchor: None,
                owners: vec!["a".into(), "b".into(), "c".into()],
                parts: Vec::new(),
            },
            DecidedSide {
                side: "wolves",
                players: vec!["w".into()],
                score: 1.0,
                anchor: None,
                owners: vec!["w".into()],
                parts: Vec::new(),
            },
        ],
        day: "2026-11-28".into(),
    };
    let c = l.changes(&d);
    assert_eq!(c.len(), 4);
    assert!(
        c.iter()
            .filter(|c| c.key.board == "werewolf/village")
            .all(|c| { c.after.lost == 1 && c.after.rating.is_some_and(|r| r.rating < 1500.0) })
    );
    let wolf = c.iter().find(|c| c.key.board == "werewolf/wolves");
    assert!(
        wolf.is_some_and(|w| w.after.won == 1 && w.after.rating.is_some_and(|r| r.rating > 1500.0))
    );
}

#[test]
fn luck_keeps_a_record_and_no_rating_even_alone_against_the_house() {
    let l = Ledger::default();
    let hand = |score| Decided {
        board: "blackjack".into(),
        rules: "r1".into(),
        reckoning: Reckoning::Record,
        sides: vec![DecidedSide {
            side: "",
            players: vec!["ann".into()],
            score,
            anchor: None,
            owners: vec!["ann".into()],
            parts: Vec::new(),
        }],
        day: "2026-11-28".into(),
    };
    let won = l.changes(&hand(1.0));
    let lost = l.changes(&hand(0.0));
    assert_eq!((won[0].after.won, won[0].after.rating), (1, None));
    assert_eq!((lost[0].after.lost, lost[0].after.games), (1, 1));
}

#[test]
fn a_board_is_the_game_and_its_class_and_a_rules_hash_is_short_and_stable() {
    assert_eq!(game_name("chess.v1"), "chess");
    assert_eq!(game_name("werewolf.v1"), "werewolf");
    let h = rules_hash("chess.v1", &serde_json::json!({"class": "blitz"}));
    assert_eq!(h.len(), 8);
    assert_eq!(
        h,
        rules_hash("chess.v1", &serde_json::json!({"class": "blitz"}))
    );
    assert_ne!(
        h,
        rules_hash("chess.v1", &serde_json::json!({"class": "rapid"}))
    );
}

#[test]
fn an_anchor_rates_its_opponent_and_never_moves() {
    let l = Ledger::default();
    let d = Decided {
        board: "chess/no-clock".into(),
        rules: "r1".into(),
        reckoning: Reckoning::Rating,
        sides: vec![
            DecidedSide {
                side: "",
                players: vec!["ann".into()],
                score: 1.0,
                anchor: None,
                owners: vec!["ann".into()],
                parts: Vec::new(),
            },
            DecidedSide {
                side: "",
                players: vec!["computer".into()],
                score: 0.0,
                anchor: Some(1900.0),
                owners: vec!["house".into()],
                parts: Vec::new(),
            },
        ],
        day: "2026-11-28".into(),
    };
    let c = l.changes(&d);
    assert_eq!(c.len(), 1, "the computer's standing does not move: {c:?}");
    let beat_anchor = c[0].after.rating.unwrap().rating;
    let beat_newcomer = glicko2::START
        .after(&[glicko2::Game {
            opponent: glicko2::START,
            score: 1.0,
        }])
        .rating;
    assert!(
        beat_anchor > beat_newcomer,
        "{beat_anchor} > {beat_newcomer}"
    );
}

/// A Werewolf seat is rated twice: on its side's board and on its part's (`werewolf/seer`),
/// against the same opponents; a part nobody played moves nothing.
#[test]
fn each_werewolf_part_has_its_own_board_beside_its_sides() {
    let l = Ledger::default();
    let d = Decided {
        board: "werewolf".into(),
        rules: "r1".into(),
        reckoning: Reckoning::Rating,
        sides: vec![
            DecidedSide {
                side: "village",
                players: vec!["a".into(), "s".into()],
                score: 1.0,
                anchor: None,
                owners: vec!["a".into(), "s".into()],
                parts: vec!["villager", "seer"],
            },
            DecidedSide {
                side: "wolves",
                players: vec!["w".into()],
                score: 0.0,
                anchor: None,
                owners: vec!["w".into()],
                parts: vec!["wolf"],
            },
        ],
        day: "2026-11-28".into(),
    };
    let c = l.changes(&d);
    let boards: Vec<(&str, &str)> = c
        .iter()
        .map(|c| (c.key.agent.as_str(), c.key.board.as_str()))
        .collect();
    assert_eq!(
        boards,
        [
            ("a", "werewolf/village"),
            ("a", "werewolf/villager"),
            ("s", "werewolf/village"),
            ("s", "werewolf/seer"),
            ("w", "werewolf/wolves"),
            ("w", "werewolf/wolf"),
        ]
    );
    // The seer's two ratings move alike: the same result against the same wolves.
    let seer: Vec<f64> = c
        .iter()
        .filter(|c| c.key.agent == "s")
        .map(|c| c.after.rating.unwrap().rating)
        .collect();
    assert!(
        seer[0] > 1500.0 && (seer[0] - seer[1]).abs() < 1e-9,
        "{seer:?}"
    );
    let wolf = c.iter().find(|c| c.key.board == "werewolf/wolf").unwrap();
    assert_eq!((wolf.after.lost, wolf.after.games), (1, 1));
}
