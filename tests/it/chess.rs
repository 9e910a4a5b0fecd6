//! Chess in the town over real sockets: XMCP/1.1 exactly as tkMOO-light reads it, drags, the
//! computer opponent, and a differential test against python-chess.

use std::time::Duration;

use moot::games::chess::rules::tkmoo::board64;
use serde_json::json;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

use crate::support::{Client, TestServer, python};

const START: &str = "RP....prNP....pnBP....pbKP....pkQP....pqBP....pbNP....pnRP....pr";

/// A player at the chess tables whose client set an XMCP key.
async fn keyed(s: &TestServer, name: &str, key: &str) -> Client {
    let mut c = s.player(name).await;
    c.send(&format!("@xmcp_authentication_key {key}")).await;
    assert_eq!(c.line().await.unwrap(), "XMCP/1.1 Authentication set.");
    c.send("east").await;
    c.expect("Exits:").await;
    c
}

/// Reads to the next chess-board message.
async fn board_line(c: &mut Client) -> String {
    c.expect("$#$chess-board").await.pop().unwrap()
}

fn board_after(fen: Option<&str>, moves: &[&str]) -> String {
    let mut pos: Chess = match fen {
        Some(f) => f
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap(),
        None => Chess::default(),
    };
    for m in moves {
        let mv = m
            .parse::<shakmaty::uci::UciMove>()
            .unwrap()
            .to_move(&pos)
            .unwrap();
        pos = pos.play(mv).unwrap();
    }
    board64(&pos)
}

/// Ann (white, key ka) and Bob (black, key kb) start game #1.
async fn game(s: &TestServer, fen: Option<&str>) -> (Client, Client) {
    let mut ann = keyed(s, "Ann", "ka").await;
    let mut bob = keyed(s, "Bob", "kb").await;
    ann.expect("Bob has arrived.").await;
    let from = fen.map(|f| format!(" from {f}")).unwrap_or_default();
    ann.send(&format!("challenge Bob as white{from}")).await;
    bob.expect("challenges you to a game of chess").await;
    bob.send("accept Ann").await;
    (ann, bob)
}

#[tokio::test]
async fn the_handshake_and_the_start_position_from_each_side() {
    let s = TestServer::start().await;
    let mut ann = keyed(&s, "Ann", "2097171").await;
    ann.send("@xmcp_challenge").await;
    assert_eq!(ann.line().await.unwrap(), "$#$xmcp version: 1.1");
    let mut bob = keyed(&s, "Bob", "kb").await;
    ann.send("challenge Bob as white").await;
    bob.send("accept Ann").await;
    assert_eq!(
        board_line(&mut ann).await,
        format!(
            "$#$chess-board 2097171 object: #1 board: {START} turn: 1 colour: white sequence: 1"
        )
    );
    assert_eq!(
        board_line(&mut bob).await,
        format!("$#$chess-board kb object: #1 board: {START} turn: 0 colour: black sequence: 1")
    );
}

/// What a command shows its typist is part of its output, after its answer: looking at a game
/// gives a keyed client its text and then its board, all between PREFIX and SUFFIX (the board
/// once came before PREFIX, where a client cutting out the command's output lost it).
#[tokio::test]
async fn the_board_a_look_shows_comes_inside_its_output_after_its_answer() {
    let s = TestServer::start().await;
    let (mut ann, mut bob) = game(&s, None).await;
    board_line(&mut ann).await;
    board_line(&mut bob).await;
    ann.send("PREFIX <<<").await;
    ann.send("SUFFIX >>>").await;
    for _ in 0..10 {
        ann.send("look #1").await;
        let got = ann.expect(">>>").await;
        let board = got
            .iter()
            .position(|l| l.starts_with("$#$chess-board ka object: #1"));
        let prefix = got.iter().position(|l| l == "<<<");
        assert!(
            matches!((prefix, board), (Some(p), Some(b)) if p + 1 < b),
            "{got:#?}"
        );
    }
}

#[tokio::test]
async fn the_seeds_example_position_byte_for_byte() {
    let s = TestServer::start().await;
    let (mut ann, mut bob) = game(&s, None).await;
    board_line(&mut ann).await;
    board_line(&mut bob).await;
    // 1. g4 b6 2. Bg2 Ba6 3. Nc3, by drags (x counts from the h-file: h=1 ... a=8).
    let drags = ["2 2 2 4", "7 7 7 6", "3 1 2 2", "6 8 8 6", "7 1 6 3"];
    for (seq, d) in drags.into_iter().enumerate() {
        let who = if seq % 2 == 0 { &mut ann } else { &mut bob };
        who.send(&format!("move {d} {} on #1", seq + 1)).await;
        who.expect("You play").await;
    }
    let seed = "RP....prNB.P..pn.P....pbKP....pkQP....pqBPN...p..P...p.nRP...bpr";
    ann.send("board").await;
    assert_eq!(
        board_line(&mut ann).await,
        format!("$#$chess-board ka object: #1 board: {seed} turn: 0 colour: white sequence: 6")
    );
    assert_eq!(
        seed,
        board_after(None, &["g2g4", "b7b6", "f1g2", "c8a6", "b1c3"])
    );
}

#[tokio::test]
async fn stale_sequences_wrong_turns_and_watchers_get_a_warning_and_a_fresh_board() {
    let s = TestServer::start().await;
    let (mut ann, mut bob) = game(&s, None).await;
    board_line(&mut ann).await;
    board_line(&mut bob).await;
    // Out of turn: Bob (black) drags first.
    // The refusal, then the board it brings (the command's output, in that order).
    bob.send("move 4 7 4 5 1 on #1").await;
    assert_eq!(bob.line().await.unwrap(), "It is not your move in game #1.");
    let fresh = board_line(&mut bob).await;
    assert_eq!(
        fresh,
        format!("$#$chess-board kb object: #1 board: {START} turn: 0 colour: black sequence: 1")
    );
    ann.send("move 4 2 4 4 1 on #1").await;
    ann.expect("You play e4 in game #1.").await;
    // A stale sequence: Ann's board said 1, the game is at 2.
    ann.send("move 5 2 5 4 1 on #1").await;
    ann.expect(
        "Your board of game #1 was out of date (sequence 1, now 2); here is the current one.",
    )
    .await;
    let fresh = board_line(&mut ann).await;
    assert!(
        fresh.ends_with("turn: 0 colour: white sequence: 2"),
        "{fresh}"
    );
    // A watcher's drag moves nothing.
    let mut cy = keyed(&s, "Cy", "kc").await;
    cy.send("watch #1").await;
    let watched = board_line(&mut cy).await;
    assert_eq!(
        watched,
        format!(
            "$#$chess-board kc object: #1 board: {} turn: 0 colour: white sequence: 2",
            board_after(None, &["e2e4"])
        )
    );
    cy.send("move 4 7 4 5 2 on #1").await;
    assert_eq!(
        cy.line().await.unwrap(),
        "You are only watching game #1; you cannot move its pieces."
    );
    board_line(&mut cy).await;
    bob.send("moves").await;
    let moves = bob.expect("Legal moves for black in game #1").await;
    let moves = moves.last().unwrap();
    // In SAN as people write them, then UCI for programs.
    assert!(
        moves.contains(": ") && moves.contains(" d5 ") && moves.contains(" Nf6 "),
        "{moves}"
    );
    assert!(
        moves.contains("(in UCI: ") && moves.contains("d7d5"),
        "{moves}"
    );
}

#[tokio::test]
async fn castling_and_promotion_by_drag() {
    let s = TestServer::start().await;
    let fen = "r3k2r/P7/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let (mut ann, mut bob) = game(&s, Some(fen)).await;
    board_line(&mut ann).await;
    board_line(&mut bob).await;
    // The king two squares towards the h-rook: e1 (x 4) to g1 (x 2).
    ann.send("move 4 1 2 1 1 on #1").await;
    ann.expect("You play O-O in game #1.").await;
    assert!(
        board_line(&mut bob)
            .await
            .contains(&board_after(Some(fen), &["e1g1"]))
    );
    bob.send("move 4 8 6 8 2 on #1").await;
    bob.expect("You play O-O-O in game #1.").await;
    // His own board follows his answer.
    board_line(&mut bob).await;
    // The a8 rook has gone to d8: a pawn dropped on a8 becomes a queen.
    ann.send("move 8 7 8 8 3 on #1").await;
    ann.expect("You play a8=Q").await;
    let after = board_after(Some(fen), &["e1g1", "e8c8", "a7a8q"]);
    assert!(board_line(&mut bob).await.contains(&after));
}

#[tokio::test]
async fn nobodys_words_pose_as_out_of_band_lines() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    ann.expect("Bob has connected.").await;
    ann.send("say $#$chess-board kb object: #1 board: x").await;
    let heard = bob.line().await.unwrap();
    assert_eq!(heard, "Ann says, \"$#$chess-board kb object: #1 board: x\"");
    ann.send("@describe me as $#$chess-board kb object: #1 board: x")
        .await;
    ann.expect("Description set.").await;
    bob.send("look Ann").await;
    bob.expect("Ann").await;
    // A description that begins like an out-of-band line is set in, as `look` sets in every
    // description that poses as a mark; the connection's `#$"` quote is then not needed.
    assert_eq!(
        bob.line().await.unwrap(),
        "  $#$chess-board kb object: #1 board: x"
    );
    ann.send("@describe me as #$#mcp-negotiate-can 1 package: x")
        .await;
    ann.expect("Description set.").await;
    bob.send("look Ann").await;
    bob.expect("Ann").await;
    assert_eq!(
        bob.line().await.unwrap(),
        "  #$#mcp-negotiate-can 1 package: x"
    );
    // MCP 2.1 out-of-band input never reaches the parser.
    ann.send("#$#mcp authentication-key: 2097171 version: 2.1 to: 2.1")
        .await;
    ann.send("say after").await;
    assert_eq!(ann.line().await.unwrap(), "You say, \"after\"");
}

#[tokio::test]
async fn a_client_without_a_key_gets_text_boards_and_no_oob_lines() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    // A command's output is all between its PREFIX and SUFFIX, its answer first: the board
    // it draws follows "You sit down…" (it once came before it, outside the markers).
    let lines = ann.command("challenge computer as white level 1").await;
    assert_eq!(
        lines[0], "You sit down to play the computer (level 1) as white: game #1.",
        "{lines:#?}"
    );
    assert!(
        lines.iter().any(|l| l == "1 R N B Q K B N R 1"),
        "{lines:#?}"
    );
    // A bare move is answered with the verb that makes it, and is not made.
    assert_eq!(
        ann.command("e4").await,
        ["To play e4 in game #1, type `move e4`."]
    );
    // Not a legal move (black's) is not taken for one.
    assert_eq!(
        ann.command("e5").await,
        ["I don't understand that. `help` lists what you can do."]
    );
    ann.send("move e4").await;
    let lines = ann.expect("#1: Computer (black) plays").await;
    assert!(lines.iter().all(|l| !l.starts_with("$#$")), "{lines:#?}");
    ann.send("takeback").await;
    ann.expect("#1: Computer (black) agrees to take back.")
        .await;
    let board = ann.expect("White to move.").await;
    assert!(
        board.iter().any(|l| l == "2 P P P P P P P P 2"),
        "back to the start: {board:#?}"
    );
}

/// An agent plays random legal moves against the computer at `level` over the REST API,
/// waiting for each reply, until the game ends.
async fn against_the_computer(level: u8) -> serde_json::Value {
    let s = TestServer::start().await;
    let api = s.api();
    let me = api.agent(None).await;
    let (status, v) = api
        .post("/sessions", &me.token, json!({"template": "chess.v1", "participants": {"white": me.id, "black": "computer"}, "options": {"computer_level": level}}))
        .await;
    assert_eq!(status, 201, "{v}");
    let id = v["session_id"].as_str().unwrap().to_owned();
    let mut n = 0usize;
    for _ in 0..2000 {
        let (_, st) = api.get(&format!("/sessions/{id}/state"), &me.token).await;
        if st["status"] == "completed" {
            return st;
        }
        if st["state"]["turn"] == "white" {
            let legal = st["legal_actions"].as_array().unwrap();
            n += 1;
            let mv = legal[(n * 7919) % legal.len()].clone();
            let (status, v) = api
                .post(
                    &format!("/sessions/{id}/actions"),
                    &me.token,
                    json!({"action": mv, "expected_tick": st["tick"]}),
                )
                .await;
            assert_eq!(status, 200, "{v}");
        } else {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    panic!("the game against level {level} never ended");
}

#[tokio::test]
async fn a_game_against_the_computer_at_level_1_ends() {
    let end = against_the_computer(1).await;
    assert!(end["state"]["outcome"]["reason"].is_string(), "{end}");
}

#[tokio::test]
async fn a_game_against_the_computer_at_level_10_ends_and_the_computer_wins() {
    let end = against_the_computer(10).await;
    assert_eq!(
        end["state"]["outcome"]["winner"], "black",
        "level 10 beats a random mover: {end}"
    );
}

#[tokio::test]
async fn differential_against_python_chess() {
    let python = python();
    let s = TestServer::start().await;
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/differential/chess_vs_python_chess.py"
    );
    let port = s.addr.port().to_string();
    let out = tokio::process::Command::new(&python)
        .args([script, "127.0.0.1", &port, "30", "7"])
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "python-chess disagrees: {stdout}");
    assert!(stdout.contains("30 passed, 0 failed"), "{stdout}");
    assert!(
        stdout.contains("threefold repetition") && stdout.contains("the fifty-move rule"),
        "{stdout}"
    );
}

/// The computer's first reply to 1. e4 at `level`, with `engine` as --uci-engine.
async fn first_reply(level: u8, engine: Option<std::path::PathBuf>) -> String {
    let s = TestServer::start_with(|c| c.games.chess.uci_engine = engine).await;
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    ann.send(&format!("challenge computer as white level {level}"))
        .await;
    ann.expect("You sit down").await;
    ann.send("move e2e4").await;
    let line = ann
        .expect("#1: Computer (black) plays")
        .await
        .pop()
        .unwrap();
    line.trim_start_matches("#1: Computer (black) plays ")
        .trim_end_matches('.')
        .to_owned()
}

#[tokio::test]
async fn an_external_uci_engine_plays_the_top_levels_and_its_failure_is_survived() {
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("engine");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/differential/fake_uci.py"
    );
    std::fs::write(&engine, format!("#!/bin/sh\nexec {} {script}\n", python())).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
    // After 1. e4 the first legal move in sorted UCI is a7a5: the fake engine's choice.
    assert_eq!(first_reply(10, Some(engine.clone())).await, "a5");
    // An engine that cannot run: the built-in engine answers instead (and does not play a5).
    let reply = first_reply(10, Some(dir.path().join("no-such-engine"))).await;
    assert!(!reply.is_empty() && reply != "a5", "{reply}");
}

/// Ann (white) and Bob (black) in the parlour, without XMCP: they read text boards.
async fn clocked_game(s: &TestServer, clock: &str) -> (Client, Client) {
    let mut ann = s.player("Ann").await;
    ann.send("east").await;
    ann.expect("Exits:").await;
    let mut bob = s.player("Bob").await;
    bob.send("east").await;
    bob.expect("Exits:").await;
    ann.expect("Bob has arrived.").await;
    ann.send(&format!("challenge Bob as white clock {clock}"))
        .await;
    bob.expect(&format!(
        "Ann (1500?) challenges you to a game of chess (you would play black, clock {clock})."
    ))
    .await;
    bob.send("accept Ann").await;
    (ann, bob)
}

#[tokio::test]
async fn a_flag_falls_at_time_scale_100_and_the_game_is_lost_on_time() {
    // 5+0 at a hundred times the wall clock: each side has 3 real seconds.
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let (mut ann, mut bob) = clocked_game(&s, "5+0").await;
    let begun = ann.expect("Clock 5+0: White 4:").await;
    // A player standing where the game begins hears of it once, as its player (she once
    // heard it as a bystander too).
    let told: Vec<_> = begun
        .iter()
        .filter(|l| l.contains("new chess game"))
        .collect();
    assert_eq!(
        told,
        ["#1: a new chess game: Ann (white) vs Bob (black)."],
        "{begun:?}"
    );
    bob.expect("You accept Ann's challenge").await;
    ann.send("move e2e4").await;
    ann.expect("You play e4 in game #1.").await;
    // Bob thinks for ever: the server actor takes his flag, and both hear it.
    let end = "#1: Black's flag falls. Game over: White wins on time (1-0).";
    ann.expect(end).await;
    bob.expect(end).await;
    let shown = bob.expect("Clock 5+0:").await;
    assert!(
        shown.last().unwrap().ends_with("Black 0:00.0."),
        "{shown:?}"
    );
    // Too late for a move.
    bob.send("move e7e5 on #1").await;
    bob.expect("Game #1 is over: White wins on time (1-0).")
        .await;
    // The flag is a logged action of the server, and the game replays after a restart.
    let db = s.db.clone();
    let dir = s.stop().await;
    let last = crate::support::sql_rows(
        &db,
        "SELECT role, agent_id, action FROM actions WHERE session_id = '1' ORDER BY tick DESC LIMIT 1",
    );
    assert_eq!(last, [["server", "server", "flag"]]);
    let s = TestServer::on_db(&db, |c| c.time_scale = 100.0).await;
    let mut cy = s.player("Cy").await;
    cy.send("east").await;
    cy.expect("Exits:").await;
    cy.send("look #1").await;
    cy.expect("Game over: White wins on time (1-0).").await;
    s.stop().await;
    drop(dir);
}

#[tokio::test]
async fn a_correspondence_move_not_made_in_time_is_lost_on_time() {
    // An hour a move at a thousand times the wall clock: 3.6 real seconds.
    let s = TestServer::start_with(|c| c.time_scale = 1000.0).await;
    let (mut ann, mut bob) = clocked_game(&s, "1h").await;
    ann.expect("Clock 1h per move: White has ").await;
    bob.expect("You accept Ann's challenge").await;
    ann.send("move e2e4").await;
    ann.expect("You play e4 in game #1.").await;
    let end = "#1: Black's flag falls. Game over: White wins on time (1-0).";
    ann.expect(end).await;
    bob.expect(end).await;
    bob.expect("Clock 1h per move.").await;
}

#[tokio::test]
async fn a_clock_that_does_not_run_out_is_charged_and_shown() {
    let s = TestServer::start_with(|c| c.time_scale = 100.0).await;
    let (mut ann, mut bob) = clocked_game(&s, "5+0").await;
    bob.expect("You accept Ann's challenge").await;
    ann.expect("Clock 5+0: White ").await;
    // A bad clock is refused to the challenger.
    ann.send("challenge Bob clock 0+5").await;
    ann.expect("`0+5` is not a clock").await;
    ann.send("move e2e4").await;
    ann.expect("You play e4 in game #1.").await;
    bob.send("move e7e5").await;
    let board = ann.expect("Clock 5+0:").await;
    let line = board.last().unwrap();
    // Both have used some of their five minutes, and neither flag has fallen.
    assert!(!line.contains("White 5:00,"), "{line}");
    assert!(!line.contains("Black 5:00."), "{line}");
    assert!(!board.iter().any(|l| l.contains("flag falls")), "{board:?}");
}

#[tokio::test]
async fn a_flag_that_fell_while_moot_was_down_is_taken_on_start() {
    let s = TestServer::start_with(|c| c.time_scale = 1.0).await;
    let (mut ann, mut bob) = clocked_game(&s, "5+0").await;
    bob.expect("You accept Ann's challenge").await;
    ann.send("move e2e4").await;
    ann.expect("You play e4 in game #1.").await;
    let db = s.db.clone();
    let dir = s.stop().await;
    // Restarted with time running a million times faster, black's five minutes are long gone:
    // the deadline is rebuilt from the log and taken at once, at the instant it fell.
    let s = TestServer::on_db(&db, |c| c.time_scale = 1e6).await;
    let mut cy = s.player("Cy").await;
    cy.send("east").await;
    cy.expect("Exits:").await;
    cy.send("look #1").await;
    cy.expect("Game over: White wins on time (1-0).").await;
    s.stop().await;
    let at = crate::support::sql_rows(
        &db,
        "SELECT (SELECT at_ms FROM actions WHERE session_id = '1' AND tick = 0),
                (SELECT at_ms FROM actions WHERE session_id = '1' AND tick = 1)",
    );
    let (e4, flag): (i64, i64) = (at[0][0].parse().unwrap(), at[0][1].parse().unwrap());
    assert_eq!(
        flag,
        e4 + 300_000,
        "the flag fell exactly five minutes after e4"
    );
    drop(dir);
}

/// Reads lines until `n` board ranks (lines like `4 . . . P . . . . 4`) have come, and returns
/// everything read.
async fn until_ranks(c: &mut Client, n: usize) -> Vec<String> {
    let mut seen = Vec::new();
    let mut ranks = 0;
    while ranks < n {
        let l = c.line().await.unwrap();
        if l.len() == 19 && l.starts_with(|ch: char| ch.is_ascii_digit()) {
            ranks += 1;
        }
        seen.push(l);
    }
    seen
}

/// On telnet, a move shows one compact board, seen from the player's side, with coordinates:
/// no second board, no title repeated under the headline.
#[tokio::test]
async fn a_telnet_player_sees_one_compact_board_per_move_from_their_side() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    for c in [&mut ann, &mut bob] {
        c.command("east").await;
    }
    ann.command("challenge Bob as white").await;
    let start = bob.command("accept Ann").await;
    assert!(
        start[0].starts_with("You accept Ann's challenge"),
        "{start:#?}"
    );
    // Bob plays black: black at the bottom, files from h to a.
    let files = start
        .iter()
        .position(|l| l == "  h g f e d c b a")
        .expect("files");
    assert_eq!(start[files + 1], "1 R N B K Q B N R 1", "{start:#?}");
    assert_eq!(start[files + 8], "8 r n b k q b n r 8", "{start:#?}");
    ann.expect("White to move.").await;
    let mine = ann.command("move e4").await;
    assert_eq!(mine[0], "You play e4 in game #1.", "{mine:#?}");
    let boards = mine
        .iter()
        .filter(|l| l.as_str() == "  a b c d e f g h")
        .count();
    assert_eq!(boards, 2, "one board (files above and below): {mine:#?}");
    assert!(
        mine.contains(&"4 . . . . P . . . 4".to_owned()),
        "{mine:#?}"
    );
    assert!(
        mine.contains(&"Last move: e4 (e2e4). Black to move.".to_owned()),
        "{mine:#?}"
    );
    assert!(!mine.iter().any(|l| l.starts_with("Game #1")), "{mine:#?}");
    assert!(
        !mine.iter().any(|l| l.contains("Ann (white) plays")),
        "{mine:#?}"
    );
    // Bob reads the headline, then his board, once.
    let his = until_ranks(&mut bob, 8).await;
    assert!(
        his.contains(&"#1: Ann (white) plays e4.".to_owned()),
        "{his:#?}"
    );
    assert!(his.contains(&"4 . . . P . . . . 4".to_owned()), "{his:#?}");
    assert_eq!(
        his.iter()
            .filter(|l| l.as_str() == "  h g f e d c b a")
            .count(),
        1,
        "{his:#?}"
    );
    s.stop().await;
}

/// A person who joins an agent's game on telnet reads words and a board, not the
/// markdown board for agents.
#[tokio::test]
async fn a_telnet_player_who_joins_an_agents_game_reads_words_not_markdown() {
    let s = TestServer::start().await;
    let robo = s.api().agent(Some("Robo")).await;
    let r = crate::support::mcp_tool(
        s.http,
        &robo.token,
        "createGame",
        json!({"type": "agent", "color": "white"}),
    )
    .await;
    let game = r["structuredContent"]["game_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut ann = s.player("Ann").await;
    let joined = ann.command(&format!("joinGame {game}")).await;
    let all = joined.join("\n");
    assert!(
        all.contains(&format!(
            "You join game #{game} as black: Robo (white) vs Ann (black). White to move."
        )),
        "{all}"
    );
    assert!(all.contains("8 r n b k q b n r 8"), "black's board: {all}");
    assert!(
        !all.contains("**") && !all.contains("| "),
        "no markdown: {all}"
    );
    let r = crate::support::mcp_tool(
        s.http,
        &robo.token,
        "finishTurn",
        json!({"game_id": game, "move": "e2e4"}),
    )
    .await;
    assert_ne!(r["isError"], true, "{r}");
    until_ranks(&mut ann, 8).await;
    let moved = ann.command(&format!("finishTurn {game} e5")).await;
    assert_eq!(
        moved[0],
        format!("You play e5 in game #{game}."),
        "{moved:#?}"
    );
    let all = moved.join("\n");
    assert!(!all.contains("**") && !all.contains("Next Action"), "{all}");
    s.stop().await;
}
