//! The rules of chess, checked move by move: perft against the Chess Programming Wiki's
//! counts, every ending, takebacks and the clock.

use super::*;
use shakmaty::perft;

fn play(game: &ChessGame, moves: &str) -> ChessGame {
    let mut g = game.clone();
    for m in moves.split_whitespace() {
        let role = g.turn().name();
        g = g.apply(role, m).unwrap_or_else(|e| panic!("{m}: {e}"));
    }
    g
}

fn from(fen: &str) -> ChessGame {
    ChessGame::new(0, &json!({ "fen": fen })).unwrap()
}

#[test]
fn perft_positions_agree_with_the_wiki() {
    // The Chess Programming Wiki's perft counts, at depths that stay quick in a debug build.
    let cases = [
        (START_FEN, 4, 197_281),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            3,
            97_862,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43_238),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            3,
            9_467,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            3,
            62_379,
        ),
    ];
    for (fen, depth, nodes) in cases {
        assert_eq!(
            perft(from(fen).position(), depth),
            nodes,
            "{fen} at depth {depth}"
        );
    }
}

#[test]
fn the_start_and_a_move() {
    let g = ChessGame::new(0, &Value::Null).unwrap();
    assert_eq!(g.state()["fen"], START_FEN);
    assert_eq!(g.state()["turn"], "white");
    assert_eq!(g.state()["outcome"], Value::Null);
    assert_eq!(Game::legal_actions(&g, "white").len(), 20);
    assert!(Game::legal_actions(&g, "black").is_empty());
    let g = play(&g, "e2e4");
    assert_eq!(
        g.state()["fen"],
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(g.state()["last_move"], "e2e4");
}

#[test]
fn turn_legality_and_notation_are_checked() {
    let g = ChessGame::new(0, &Value::Null).unwrap();
    assert_eq!(
        g.apply("black", "e7e5").unwrap_err(),
        GameError::NotYourTurn
    );
    assert!(
        matches!(g.apply("white", "e2e5"), Err(GameError::Illegal(m)) if m.contains("not a legal move"))
    );
    assert!(
        matches!(g.apply("white", "pawn to e4"), Err(GameError::Illegal(m)) if m.contains("UCI"))
    );
}

#[test]
fn castling_is_logged_in_standard_uci() {
    let g = play(
        &ChessGame::new(0, &Value::Null).unwrap(),
        "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6",
    );
    let castled = play(&g, "e1h1");
    assert_eq!(castled.state()["last_move"], "e1g1");
    assert_eq!(castled.last_san().as_deref(), Some("O-O"));
}

#[test]
fn the_last_move_is_named_in_san_with_its_mark() {
    let g = play(&ChessGame::new(0, &Value::Null).unwrap(), "e2e4 e7e5 d1h5");
    assert_eq!(g.last_san().as_deref(), Some("Qh5"));
    let g = play(&g, "b8c6 f1c4 g8f6");
    assert_eq!(
        g.fen(),
        "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4"
    );
    let mate = play(&g, "h5f7");
    assert_eq!(mate.last_san().as_deref(), Some("Qxf7#"));
    assert_eq!(mate.outcome().map(|o| o.reason), Some(EndReason::Checkmate));
    // Knights on b1 and f3 can both reach d2: SAN names the file.
    let g = play(
        &ChessGame::new(0, &Value::Null).unwrap(),
        "g1f3 e7e5 d2d4 e5d4 b1d2",
    );
    assert_eq!(g.last_san().as_deref(), Some("Nbd2"));
    assert_eq!(play(&g, "f8b4").last_san().as_deref(), Some("Bb4"));
}

#[test]
fn threefold_repetition_ends_the_game_at_ply_eight() {
    let g = play(
        &ChessGame::new(0, &Value::Null).unwrap(),
        "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1",
    );
    assert!(!g.is_terminal());
    let g = play(&g, "f6g8");
    assert_eq!(
        g.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::ThreefoldRepetition
        })
    );
    assert_eq!(
        g.apply("white", "g1f3").map(|_| ()),
        Ok(()),
        "the template itself does not refuse; the host checks terminal"
    );
}

#[test]
fn a_repetition_counts_the_positions_since_the_last_pawn_move_and_survives_a_takeback() {
    let start = ChessGame::new(0, &Value::Null).unwrap();
    let after_e4 = play(&start, "g1f3 g8f6 f3g1 f6g8 e2e4");
    // The knights' dance brings the position after e4 back a second time.
    let twice = play(&after_e4, "g8f6 g1f3 f6g8 f3g1");
    assert!(twice.outcome().is_none());
    // The engine is told what has stood since e4, the position on the board left out.
    let keys = twice.history_keys();
    assert_eq!(keys.len(), 3, "{keys:?}");
    assert!(!keys.contains(&twice.key));
    assert!(!keys.contains(&start.key), "it stood before the pawn moved");
    // Round again: the third time ends the game.
    let g = play(&twice, "g8f6 g1f3 f6g8");
    assert!(g.outcome().is_none());
    let thrice = play(&g, "f3g1");
    assert_eq!(
        thrice.outcome().map(|o| o.reason),
        Some(EndReason::ThreefoldRepetition)
    );
    // Black takes back its last move and plays it again: still the third time.
    let asked = g.apply("black", "request_takeback").unwrap();
    let back = asked.apply("white", "accept_takeback").unwrap();
    assert_eq!(back.turn(), Side::Black);
    assert_eq!(play(&back, "f6g8 f3g1").outcome(), thrice.outcome());
}

#[test]
#[allow(
    clippy::disallowed_types,
    reason = "the test itself needs a thread with a small stack; the rules make none"
)]
fn a_game_thousands_of_moves_long_is_let_go_without_deep_recursion() {
    let mut g = ChessGame::new(0, &Value::Null).unwrap();
    let m = g.parse_move("g1f3").unwrap();
    let san = SanPlus::from_move(g.pos.clone(), m);
    for _ in 0..100_000 {
        g.history = Some(Arc::new(Ply {
            before: g.history.take(),
            mv: m,
            san,
            key: g.key,
            draw_offer: None,
            takeback_request: None,
            clock: None,
        }));
    }
    // A small stack: dropping the chain state by state from within each drop would overflow.
    std::thread::Builder::new()
        .stack_size(64 * 1024)
        .spawn(move || drop(g))
        .unwrap()
        .join()
        .expect("the chain is dropped without overflowing the stack");
}

#[test]
fn mate_on_the_hundredth_half_move_is_mate() {
    let g = from("7k/8/6K1/8/8/8/8/R7 w - - 99 120");
    let mate = play(&g, "a1a8");
    assert_eq!(
        mate.outcome(),
        Some(Outcome {
            winner: Some(Side::White),
            reason: EndReason::Checkmate
        })
    );
    assert_eq!(
        mate.outcome().unwrap().describe(),
        "White wins by checkmate"
    );
    let fifty = play(&g, "a1a2");
    assert_eq!(
        fifty.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::FiftyMoveRule
        })
    );
}

#[test]
fn stalemate_and_insufficient_material() {
    // Qg6 leaves the black king on h8 no move and no check.
    let stale = play(&from("7k/5K2/8/6Q1/8/8/8/8 w - - 0 1"), "g5g6");
    assert_eq!(
        stale.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::Stalemate
        })
    );
    // The white king takes the last black piece: two bare kings.
    let bare = play(&from("k7/8/8/8/8/8/1q6/K7 w - - 0 1"), "a1b2");
    assert_eq!(
        bare.outcome(),
        Some(Outcome {
            winner: None,
            reason: EndReason::InsufficientMaterial
        })
    );
}

#[test]
fn resigning_draws_and_takebacks() {
    let start = ChessGame::new(0, &Value::Null).unwrap();
    let g = play(&start, "e2e4 e7e5");
    let resigned = g.apply("black", "resign").unwrap();
    assert_eq!(
        resigned.outcome(),
        Some(Outcome {
            winner: Some(Side::White),
            reason: EndReason::Resignation
        })
    );

    let offered = g.apply("white", "offer_draw").unwrap();
    assert_eq!(offered.state()["draw_offer"], "white");
    assert!(
        matches!(g.apply("black", "accept_draw"), Err(GameError::Illegal(_))),
        "no offer yet"
    );
    let drawn = offered.apply("black", "accept_draw").unwrap();
    assert_eq!(drawn.outcome().unwrap().describe(), "Draw by agreement");
    // Moving instead of answering declines.
    let moved = offered.apply("white", "g1f3").unwrap();
    assert_eq!(
        moved.state()["draw_offer"],
        "white",
        "the offerer's own move keeps it"
    );
    let answered = moved.apply("black", "b8c6").unwrap();
    assert_eq!(answered.state()["draw_offer"], Value::Null);

    // White asks to take back e2e4 after black replied: both plies go.
    let asked = g.apply("white", "request_takeback").unwrap();
    let back = asked.apply("black", "accept_takeback").unwrap();
    assert_eq!(back.fen(), START_FEN);
    // Black asks to take back e7e5 on white's turn: one ply.
    let back1 = g
        .apply("black", "request_takeback")
        .unwrap()
        .apply("white", "accept_takeback")
        .unwrap();
    assert_eq!(
        back1.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert!(matches!(
        start.apply("white", "request_takeback"),
        Err(GameError::Illegal(_))
    ));
    let declined = asked.apply("black", "decline_takeback").unwrap();
    assert_eq!(declined.fen(), g.fen());
}

#[test]
fn either_side_aborts_until_both_have_moved_and_an_aborted_game_decides_nothing() {
    let start = ChessGame::new(0, &Value::Null).unwrap();
    for (g, by) in [(start.clone(), "black"), (play(&start, "e2e4"), "white")] {
        let aborted = g.apply(by, "abort").unwrap();
        assert_eq!(
            aborted.outcome(),
            Some(Outcome {
                winner: None,
                reason: EndReason::Aborted
            })
        );
        assert!(aborted.is_terminal());
        assert_eq!(aborted.decided(), None, "nobody won, lost or drew");
        assert_eq!(aborted.outcome().unwrap().result(), "*");
    }
    let both = play(&start, "e2e4 e7e5");
    assert!(
        matches!(both.apply("white", "abort"), Err(GameError::Illegal(m)) if m.contains("resign")),
        "once both have moved, resign instead"
    );
}

#[test]
fn bad_options_are_refused() {
    assert!(matches!(
        ChessGame::new(0, &json!({"fen": "nonsense"})),
        Err(GameError::BadOptions(_))
    ));
    assert!(matches!(
        ChessGame::new(0, &json!({"fen": 3})),
        Err(GameError::BadOptions(_))
    ));
    let g = from(START_FEN);
    assert!(g.state().get("start_fen").is_none());
}

fn clocked(control: &str, fen: Option<&str>) -> ChessGame {
    let mut o = json!({ "clock": control });
    if let Some(f) = fen {
        o["fen"] = json!(f);
    }
    ChessGame::new(0, &o).unwrap()
}

#[test]
fn the_clock_charges_the_side_to_move_and_adds_the_increment() {
    let g = clocked("1+2", None);
    assert_eq!(Game::deadline(&g).unwrap().at, 60_000);
    let g = g.apply_at("white", "e2e4", 5_000).unwrap();
    let c = *g.clock().unwrap();
    assert_eq!((c.white_ms, c.black_ms, c.since), (57_000, 60_000, 5_000));
    assert_eq!(
        Game::deadline(&g),
        Some(Deadline {
            at: 65_000,
            action: ChessAction::Flag
        })
    );
    // An offer of a draw is no move: the clock runs on for the side to move.
    let g = g.apply_at("white", "offer_draw", 6_000).unwrap();
    assert_eq!(Game::deadline(&g).unwrap().at, 65_000);
    // Black's time as the board shows it, mid-think.
    assert_eq!(
        g.clock().unwrap().left_at(Side::Black, Side::Black, 15_000),
        50_000
    );
    let text = g.render(None, Reading::at(15_000));
    assert_eq!(text.last().unwrap(), "Clock 1+2: White 0:57, Black 0:50.");
}

#[test]
fn a_flag_falls_only_when_the_time_is_up_and_then_the_game_is_lost() {
    let g = clocked("1+0", None)
        .apply_at("white", "e2e4", 1_000)
        .unwrap();
    // Nobody but the server takes a flag, and not early.
    assert!(g.apply_at("white", "flag", 61_000).is_err());
    assert!(g.apply_at(SERVER_ROLE, "flag", 60_999).is_err());
    // A move after the flag fell is refused.
    assert!(g.apply_at("black", "e7e5", 61_000).is_err());
    let end = g.apply_at(SERVER_ROLE, "flag", 61_000).unwrap();
    assert_eq!(
        end.outcome(),
        Some(Outcome {
            winner: Some(Side::White),
            reason: EndReason::Timeout
        })
    );
    assert_eq!(end.ending().unwrap(), "White wins on time (1-0)");
    assert_eq!(end.clock().unwrap().black_ms, 0);
    assert_eq!(Game::deadline(&end), None);
}

#[test]
fn a_flag_against_a_lone_king_is_a_draw() {
    // White has only its king; black's flag falls, but white could never mate.
    let g = clocked("1+0", Some("4k3/8/8/8/8/8/4p3/4K3 b - - 0 1"));
    let end = g.apply_at(SERVER_ROLE, "flag", 60_000).unwrap();
    assert_eq!(
        end.outcome().unwrap().reason,
        EndReason::TimeoutVsInsufficientMaterial
    );
    assert_eq!(end.outcome().unwrap().winner, None);
}

#[test]
fn a_clocked_game_replays_from_its_log_with_the_times() {
    let t = &moot_game_api::template::<ChessGame>();
    let options = json!({ "clock": "3+1" });
    let log = [
        ("white", "e2e4", 2_000),
        ("black", "e7e5", 9_500),
        ("white", "request_takeback", 12_000),
        ("black", "accept_takeback", 13_000),
        ("white", "g1f3", 30_000),
    ];
    let mut game = (t.new)(0, &options).unwrap();
    for (r, a, at) in log {
        game = game.apply_logged(r, a, at).unwrap();
    }
    let replayed = moot_game_api::replay(t, 0, &options, log).unwrap();
    assert_eq!(replayed.state(), game.state());
    let c = replayed.state()["clock"].clone();
    // White: 180 s - 2 s + 1 s for e4; the takeback of two plies leaves white to move,
    // its clock running since black's e5 (at 9.5 s), so Nf3 costs 20.5 s, + 1 s.
    assert_eq!(c["white_ms"], 180_000 - 2_000 + 1_000 - 20_500 + 1_000);
    assert_eq!(c["black_ms"], 180_000 - 7_500 + 1_000);
}

#[test]
fn clocks_are_checked() {
    for bad in ["5", "0+3", "181+0", "5+181", "a+b", "5+-1"] {
        assert!(
            ChessGame::new(0, &json!({ "clock": bad })).is_err(),
            "{bad}"
        );
    }
    assert!(
        ChessGame::new(0, &json!({ "clock": "none" }))
            .unwrap()
            .clock()
            .is_none()
    );
    assert!(ChessGame::new(0, &json!({ "clock": 5 })).is_err());
}

#[test]
fn the_stored_text_is_the_states_own() {
    let g = ChessGame::new(0, &json!({})).unwrap();
    let mut states = vec![g.clone(), play(&g, "e2e4 e7e5 g1f3")];
    states.push(states[1].apply("black", "offer_draw").unwrap());
    states.push(states[1].apply("black", "request_takeback").unwrap());
    states.push(play(&g, "f2f3 e7e5 g2g4 d8h4"));
    states.push(states[0].apply("white", "resign").unwrap());
    states.push(from("4k3/8/8/8/8/8/4p3/4K3 b - - 0 1"));
    let clocked = clocked("1+2", Some("4k3/8/8/8/8/8/4p3/4K3 b - - 0 1"));
    states.push(clocked.apply_at("black", "e8d8", 3_000).unwrap());
    states.push(clocked);
    for s in &states {
        assert_eq!(s.state_text(), s.state().to_string());
    }
    assert!(states[4].outcome().is_some() && states[7].clock().is_some());
}

/// A takeback rebuilds the earlier state from the moves before it (the states themselves are
/// not kept): along random games, from a set position too, it must give that state exactly.
#[test]
fn a_takeback_gives_back_the_earlier_state_exactly() {
    let same = |a: &ChessGame, b: &ChessGame, at: &str| {
        assert_eq!(a.state_text(), b.state_text(), "{at}");
        assert_eq!(a.key, b.key, "{at}");
        assert_eq!(a.last_san(), b.last_san(), "{at}");
        assert_eq!(a.sans(), b.sans(), "{at}");
        assert_eq!(a.history_keys(), b.history_keys(), "{at}");
        assert_eq!(
            a.pgn("e", "d", "w", "b", &[]),
            b.pgn("e", "d", "w", "b", &[]),
            "{at}"
        );
    };
    let mut seed = 7u64;
    let mut next = move |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let set = json!({"fen": "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R b KQkq - 3 9"});
    for options in [Value::Null, set] {
        for _game in 0..20 {
            let mut states = vec![ChessGame::new(0, &options).unwrap()];
            while states.len() < 120 {
                let Some(g) = states.last_mut().filter(|g| g.outcome().is_none()) else {
                    break;
                };
                let side = g.turn().name();
                let legal = g.legal_actions(side);
                // Now and then a draw offer stands when a move is made: it must come back too.
                if next(7) == 0 && g.draw_offer().is_none() {
                    *g = g.apply(side, "offer_draw").unwrap();
                }
                let after = g.apply(side, &legal[next(legal.len())]).unwrap();
                states.push(after);
            }
            for i in 1..states.len() {
                let g = &states[i];
                if g.outcome().is_some() {
                    continue;
                }
                // The side that just moved asks (one ply back); the side to move asks (two).
                for (asker, plies) in [(g.turn().other(), 1), (g.turn(), 2)] {
                    let Some(earlier) = i.checked_sub(plies) else {
                        continue;
                    };
                    let asked = g.apply(asker.name(), "request_takeback").unwrap();
                    let back = asked
                        .apply(asker.other().name(), "accept_takeback")
                        .unwrap();
                    same(&back, &states[earlier], &format!("ply {i} back {plies}"));
                }
            }
        }
    }
}

const DAY: u64 = 86_400_000;

#[test]
fn a_clocked_games_stored_text_is_as_it_always_was() {
    // Old logs are replayed and their states compared on every start: not a byte may move.
    let g = clocked("1+2", None)
        .apply_at("white", "e2e4", 5_000)
        .unwrap();
    let text = g.state_text();
    assert!(
        text.starts_with(
            r#"{"check":false,"clock":{"black_ms":60000,"increment_ms":2000,"initial_ms":60000,"since":5000,"white_ms":57000},"draw_offer":null,"#
        ),
        "{text}"
    );
    assert_eq!(text, g.state().to_string());
}

#[test]
fn correspondence_gives_each_move_its_own_days() {
    let g = clocked("3d", None);
    assert!(g.clock().is_none(), "no clock each");
    assert_eq!(g.time_control().unwrap().control(), "3d");
    assert_eq!(Game::deadline(&g).unwrap().at, 3 * DAY);
    assert_eq!(Game::owing(&g), ["white"]);
    // White takes two days; black's three start then, not a day later.
    let g = g.apply_at("white", "e2e4", 2 * DAY).unwrap();
    assert_eq!(
        Game::deadline(&g),
        Some(Deadline {
            at: 5 * DAY,
            action: ChessAction::Flag
        })
    );
    // An offer of a draw is no move: black's time runs on.
    let g = g.apply_at("black", "offer_draw", 3 * DAY).unwrap();
    assert_eq!(Game::deadline(&g).unwrap().at, 5 * DAY);
    let c = g.time_control().unwrap();
    assert_eq!(
        c.left_at(Side::Black, Side::Black, 2 * DAY + 3_600_000),
        3 * DAY - 3_600_000
    );
    assert_eq!(c.left_at(Side::White, Side::Black, 4 * DAY), 3 * DAY);
    assert_eq!(
        g.render(None, Reading::at(2 * DAY + 3_600_000))
            .last()
            .unwrap(),
        "Clock 3d per move: Black has 2d 23h to move."
    );
    assert_eq!(
        g.state()["clock"],
        json!({"per_move_ms": 3 * DAY, "since": 2 * DAY})
    );
    assert_eq!(g.state_text(), g.state().to_string());
    // Time saved is not carried over: a quick move gives white three days, no more.
    let g = g.apply_at("black", "e7e5", 2 * DAY + 1_000).unwrap();
    assert_eq!(Game::deadline(&g).unwrap().at, 5 * DAY + 1_000);
}

#[test]
fn a_correspondence_move_too_late_loses_on_time() {
    let g = clocked("1h", None)
        .apply_at("white", "e2e4", 1_000)
        .unwrap();
    let due = 1_000 + 3_600_000;
    assert!(g.apply_at("black", "e7e5", due).is_err(), "at the deadline");
    assert!(
        g.apply_at(SERVER_ROLE, "flag", due - 1).is_err(),
        "not early"
    );
    let end = g.apply_at(SERVER_ROLE, "flag", due).unwrap();
    assert_eq!(
        end.outcome(),
        Some(Outcome {
            winner: Some(Side::White),
            reason: EndReason::Timeout
        })
    );
    assert_eq!(end.ending().unwrap(), "White wins on time (1-0)");
    assert_eq!(
        end.headline(SERVER_ROLE, &ChessAction::Flag),
        "Black's flag falls"
    );
    assert_eq!(Game::deadline(&end), None);
    assert!(Game::owing(&end).is_empty());
    assert_eq!(
        end.render(None, Reading::at(due)).last().unwrap(),
        "Clock 1h per move."
    );
    // As lichess does, a flag against a side that could never mate is a draw.
    let g = clocked("1d", Some("4k3/8/8/8/8/8/4p3/4K3 b - - 0 1"));
    let end = g.apply_at(SERVER_ROLE, "flag", DAY).unwrap();
    assert_eq!(
        end.outcome().unwrap().reason,
        EndReason::TimeoutVsInsufficientMaterial
    );
}

#[test]
fn a_correspondence_game_replays_from_its_log_and_is_rated_apart() {
    let t = &moot_game_api::template::<ChessGame>();
    let options = json!({ "clock": "2d" });
    let log = [
        ("white", "e2e4", 2_000),
        ("black", "e7e5", DAY),
        ("white", "request_takeback", DAY + 5),
        ("black", "accept_takeback", DAY + 9),
        ("white", "g1f3", 2 * DAY),
    ];
    let mut game = (t.new)(0, &options).unwrap();
    for (r, a, at) in log {
        game = game.apply_logged(r, a, at).unwrap();
    }
    let replayed = moot_game_api::replay(t, 0, &options, log).unwrap();
    assert_eq!(replayed.state_text(), game.state_text());
    assert_eq!(replayed.deadline().unwrap().at, 4 * DAY);
    assert_eq!(ChessGame::table(&options).unwrap().class, "correspondence");
    assert_eq!(
        ChessGame::table(&json!({"clock": "5+3"})).unwrap().class,
        "blitz"
    );
}

#[test]
fn a_clock_that_is_neither_form_names_both() {
    for bad in ["0s", "15d", "3w", "3", "d"] {
        match ChessGame::new(0, &json!({ "clock": bad })) {
            Err(GameError::BadOptions(m)) => {
                assert!(
                    m.contains("like 5+3") && m.contains("30s, 5m, 2h or 3d"),
                    "{m}"
                )
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
    assert!(ChessGame::new(0, &json!({ "clock": "1h" })).is_ok());
}

/// A move's comment is written in braces after it, a long one laid out over lines of at most
/// 80 characters, braces in its text made parentheses, and Black's next move numbered again.
#[test]
fn comments_follow_their_moves_within_the_line_length() {
    let g = play(&ChessGame::new(0, &json!({})).unwrap(), "e2e4 e7e5");
    let long = format!(
        "{} {{or}} so",
        "the king's pawn takes the centre;".repeat(6)
    );
    let pgn = g.pgn("e", "d", "w", "b", &[Some(long), None]);
    assert!(pgn.lines().all(|l| l.len() <= 80), "{pgn}");
    let moves: String = pgn
        .lines()
        .skip_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        moves.trim_start().starts_with("1. e4 {the king's pawn"),
        "{moves}"
    );
    assert!(moves.contains("(or) so} 1... e5 *"), "{moves}");
}
