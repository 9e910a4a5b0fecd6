use super::*;
use moot_game_api::Mind;

fn played(columns: &[u8]) -> Connect4 {
    let mut g = Connect4::new(0, &Value::Null).unwrap();
    for c in columns {
        let role = g.turn().role();
        g = g.apply(role, &c.to_string()).unwrap();
    }
    g
}

fn house(g: &Connect4) -> String {
    let role = g.turn().role();
    match g.computer(role, &Value::Null, 5) {
        Some(Computer::Think(think)) => think(Mind::UNHURRIED).unwrap().to_string(),
        _ => panic!("the house does not move"),
    }
}

#[test]
fn a_disc_falls_to_the_lowest_empty_cell() {
    let g = played(&[4, 4, 4]);
    assert_eq!(
        g.rows(),
        [
            ".......", ".......", ".......", "...R...", "...Y...", "...R..."
        ]
    );
    assert_eq!(g.turn(), Disc::Yellow);
}

#[test]
fn four_across_wins() {
    // Red 1 2 3 4 along the bottom; yellow above.
    let g = played(&[1, 1, 2, 2, 3, 3, 4]);
    assert_eq!(g.state()["result"], "red_wins");
    assert_eq!(g.state()["line"], json!([[1, 1], [2, 1], [3, 1], [4, 1]]));
    assert!(g.is_terminal() && g.legal_actions("yellow").is_empty());
}

#[test]
fn four_up_wins() {
    let g = played(&[7, 1, 7, 1, 7, 1, 7]);
    assert_eq!(g.state()["result"], "red_wins");
    assert_eq!(g.state()["line"], json!([[7, 1], [7, 2], [7, 3], [7, 4]]));
}

#[test]
fn four_rising_to_the_right_wins() {
    // Red climbs 1,1 2,2 3,3 4,4 on yellow's steps.
    let g = played(&[1, 2, 2, 3, 3, 4, 3, 4, 4, 7, 4]);
    assert_eq!(g.state()["result"], "red_wins");
    assert_eq!(g.state()["line"], json!([[1, 1], [2, 2], [3, 3], [4, 4]]));
}

#[test]
fn four_falling_to_the_right_wins() {
    // The mirror: red on 7,1 6,2 5,3 4,4.
    let g = played(&[7, 6, 6, 5, 5, 4, 5, 4, 4, 1, 4]);
    assert_eq!(g.state()["result"], "red_wins");
    assert_eq!(g.state()["line"], json!([[4, 4], [5, 3], [6, 2], [7, 1]]));
}

#[test]
fn yellow_wins_too() {
    let g = played(&[1, 2, 1, 2, 1, 2, 7, 2]);
    assert_eq!(g.state()["result"], "yellow_wins");
    assert_eq!(g.ending().as_deref(), Some("yellow wins"));
}

#[test]
fn a_full_board_without_four_is_a_draw() {
    // Columns filled in pairs so that no four ever line up: 1 2 1 2 1 2 (then swapped),
    // a pattern of blocks of three that alternate.
    let order: [u8; 42] = [
        1, 2, 1, 2, 1, 2, 2, 1, 2, 1, 2, 1, 3, 4, 3, 4, 3, 4, 4, 3, 4, 3, 4, 3, 5, 6, 5, 6, 5, 6,
        6, 5, 6, 5, 6, 5, 7, 7, 7, 7, 7, 7,
    ];
    let g = played(&order);
    assert!(g.is_terminal());
    assert_eq!(g.state()["result"], "draw");
    assert_eq!(g.ending().as_deref(), Some("a draw"));
}

#[test]
fn a_full_column_an_unknown_column_and_the_wrong_turn_are_refused() {
    let g = played(&[1, 1, 1, 1, 1, 1]);
    assert_eq!(
        g.apply("red", "1").unwrap_err(),
        GameError::Illegal("Column 1 is full".into())
    );
    assert!(matches!(g.apply("red", "8"), Err(GameError::Illegal(_))));
    assert!(matches!(g.apply("red", "0"), Err(GameError::Illegal(_))));
    assert!(matches!(g.apply("red", "x"), Err(GameError::Illegal(_))));
    assert_eq!(g.apply("yellow", "2").unwrap_err(), GameError::NotYourTurn);
    assert!(!g.legal_actions("red").contains(&"1".to_owned()));
    assert_eq!(g.legal_actions("red").len(), 6);
}

#[test]
fn bad_options_are_refused() {
    for o in [json!({"level": 9}), json!({"speed": 1}), json!([1])] {
        assert!(matches!(
            Connect4::new(0, &o),
            Err(GameError::BadOptions(_))
        ));
    }
    assert!(Connect4::new(0, &json!({"level": 3})).is_ok());
}

#[test]
fn the_house_takes_a_win_it_has() {
    // Red has 1 2 3 along the bottom and yellow stacked on them: red wins at 4.
    let g = played(&[1, 1, 2, 2, 3, 3]);
    assert_eq!(house(&g), "4");
}

#[test]
fn the_house_blocks_a_win_it_would_give() {
    // Red threatens 4 along the bottom (1 2 3); yellow, the house, must drop in 4.
    let g = played(&[1, 7, 2, 7, 3]);
    assert_eq!(house(&g), "4");
    // Upward too: red has three in column 5.
    let g = played(&[5, 1, 5, 2, 5]);
    assert_eq!(house(&g), "5");
}

#[test]
fn the_house_opens_in_the_centre_and_always_has_a_legal_drop() {
    let g = played(&[]);
    assert_eq!(house(&g), "4");
    // Any position short of the end: the house's drop is legal.
    let g = played(&[4, 4, 3, 5, 2]);
    let drop = house(&g);
    assert!(g.legal_actions(g.turn().role()).contains(&drop));
}

fn clocked(options: Value) -> Connect4 {
    Connect4::new(0, &options).unwrap()
}

#[test]
fn a_move_limit_falls_due_only_at_its_time_and_a_drop_resets_it() {
    let g = clocked(json!({ "clock": "1m", "level": 3 }));
    assert_eq!(g.level, 3, "the house's level is kept beside the clock");
    assert_eq!(g.deadline().unwrap().at, 60_000);
    let g = g.apply_at("red", "4", 10_000).unwrap();
    assert_eq!(
        g.deadline(),
        Some(Deadline {
            at: 70_000,
            action: DiscDrop::Flag
        })
    );
    assert_eq!(g.owing(), ["yellow"]);
    assert_eq!(
        g.render(None, Reading::at(10_000)).last().unwrap(),
        "Clock 1m per move: Yellow has 1:00 to drop."
    );
    assert!(g.apply_at(SERVER_ROLE, "flag", 69_999).is_err());
    assert_eq!(
        g.apply_at("yellow", "4", 70_000).unwrap_err(),
        GameError::Illegal("Your time has run out".into())
    );
    let g = g.apply_at("yellow", "4", 69_999).unwrap();
    assert_eq!(g.deadline().unwrap().at, 129_999);
    // Without a clock: no deadline, and the stored state has no clock in it.
    let plain = played(&[4]);
    assert_eq!(plain.deadline(), None);
    assert!(plain.state().get("clock").is_none());
    assert!(plain.apply_at(SERVER_ROLE, "flag", u64::MAX).is_err());
}

#[test]
fn the_side_that_runs_out_of_time_loses_and_replays_the_same() {
    let t = &moot_game_api::template::<Connect4>();
    let options = json!({ "clock": "30s" });
    let log = [
        ("red", "4", 5_000),
        ("yellow", "3", 20_000),
        (SERVER_ROLE, "flag", 50_000),
    ];
    let end = moot_game_api::replay(t, 0, &options, log).unwrap();
    assert_eq!(
        end.state_text(),
        moot_game_api::replay(t, 0, &options, log)
            .unwrap()
            .state_text()
    );
    assert!(end.is_terminal() && end.legal_actions("red").is_empty());
    assert_eq!(end.state()["result"], "yellow_wins_on_time");
    assert_eq!(
        end.state()["clock"],
        json!({"per_move_ms": 30_000, "since": 20_000})
    );
    assert_eq!(end.ending().as_deref(), Some("yellow wins on time"));
    assert_eq!(
        end.headline(SERVER_ROLE, &moot_game_api::AnyAction::new(DiscDrop::Flag)),
        "Red runs out of time"
    );
    assert_eq!(
        end.decided(),
        Some(moot_game_api::head_to_head(["red", "yellow"], Some(1)))
    );
    assert!(end.deadline().is_none() && end.owing().is_empty());
    // Yellow idles instead: red wins.
    let g = clocked(json!({ "clock": "30s" }))
        .apply_at("red", "4", 0)
        .unwrap();
    let end = g.apply_at(SERVER_ROLE, "flag", 30_000).unwrap();
    assert_eq!(end.state()["result"], "red_wins_on_time");
    assert_eq!(
        end.render(None, Reading::at(0))[8..],
        ["Red wins on time.", "Clock 30s per move."]
    );
}

#[test]
fn a_bad_clock_is_refused_clearly() {
    match Connect4::new(0, &json!({ "clock": "2 weeks" })) {
        Err(GameError::BadOptions(m)) => assert!(m.contains("30s, 5m, 2h or 3d"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(Connect4::new(0, &json!({ "clock": true })).is_err());
}

#[test]
fn the_text_board_numbers_the_columns() {
    let g = played(&[4]);
    assert_eq!(
        g.render(None, Reading::at(0)),
        [
            "   1 2 3 4 5 6 7",
            "  |. . . . . . .|",
            "  |. . . . . . .|",
            "  |. . . . . . .|",
            "  |. . . . . . .|",
            "  |. . . . . . .|",
            "  |. . . R . . .|",
            "  +-------------+",
            "Yellow (Y) to drop."
        ]
    );
}

/// For a screen reader: a column a line, bottom up, and one column on request.
#[test]
fn a_screen_reader_hears_the_board_a_column_at_a_time() {
    let g = played(&[4, 4, 3]);
    let plain = Reading::at(0).plain();
    assert_eq!(
        g.render(None, plain),
        [
            "Column 1: empty.",
            "Column 2: empty.",
            "Column 3: red; 5 free.",
            "Column 4: red, yellow; 4 free.",
            "Column 5: empty.",
            "Column 6: empty.",
            "Column 7: empty.",
            "Yellow (Y) to drop."
        ]
    );
    assert_eq!(
        g.glance(None, Glance::Square("4"), plain).as_deref(),
        Some("Column 4: red, yellow; 4 free.")
    );
    assert_eq!(g.glance(None, Glance::Square("9"), plain), None);
    assert_eq!(g.glance(None, Glance::Clock, plain), None, "no clock");
}

#[test]
fn either_side_resigns_whoever_is_to_drop_and_the_other_wins() {
    let g = played(&[4]);
    assert!(!g.legal_actions("yellow").contains(&"resign".to_owned()));
    // Red resigns on Yellow's drop.
    let over = g.apply("red", "resign").unwrap();
    assert!(over.is_terminal());
    assert!(over.legal_actions("yellow").is_empty());
    assert_eq!(over.state()["result"], "yellow_wins_by_resignation");
    assert_eq!(over.ending().as_deref(), Some("yellow wins by resignation"));
    assert_eq!(over.headline("red", &DiscDrop::Resign), "resigns");
    assert_eq!(
        over.decided(),
        Some(moot_game_api::head_to_head(["red", "yellow"], Some(1)))
    );
    assert_eq!(
        over.apply("yellow", "resign").unwrap_err(),
        GameError::Finished
    );
    assert!(g.apply("blue", "resign").is_err());
}
