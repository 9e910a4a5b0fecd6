//! What MUD players expect of any good server, through a real telnet socket: lines that fit
//! the screen (79 columns, `@linelength`, `@wrap`, NAWS) without cutting a word (a token comes
//! whole) or letting anyone's words start a line like the narrator's, "You can't go that
//! way.", passwords with a reason, help for every verb, and game lists that do not pile up.

use crate::support::{Client, TestServer};

const IAC: u8 = 255;
const WILL: u8 = 251;
const DO: u8 = 253;
const SB: u8 = 250;
const SE: u8 = 240;
const NAWS: u8 = 31;

fn widest(lines: &[String]) -> usize {
    lines.iter().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// Words in order, whatever the line breaks.
fn words(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .flat_map(|l| l.split_whitespace().map(str::to_owned))
        .collect()
}

#[tokio::test]
async fn lines_wrap_at_79_and_at_the_width_the_character_chose_and_it_is_kept() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    // (The test harness turns wrapping off for the tests that compare whole lines.)
    assert_eq!(ann.command("@wrap on").await, ["Word wrap is now on."]);
    // The help of `@token` is one long paragraph: it comes in lines of at most 79 columns,
    // broken between words (the same words, in the same order, as one line).
    let help = ann.command("help @token").await;
    assert_eq!(help[0], "Usage: @token [new]", "{help:?}");
    assert!(widest(&help) <= 79, "{help:#?}");
    assert!(help.len() >= 5, "the paragraph was wrapped: {help:#?}");
    let one_line = words(&help).join(" ");
    assert!(
        one_line.contains("`@token new` makes a new one and the old one stops working at once."),
        "no word was cut: {one_line}"
    );

    assert_eq!(
        ann.command("@linelength").await,
        [
            "Your line length follows your client's width (79 if it reports none).",
            "Word wrap is on."
        ]
    );
    assert_eq!(
        ann.command("@linelength 5").await,
        ["A line length must be from 10 to 500 (or 0 for your client's width)."]
    );
    assert_eq!(
        ann.command("@linelength 40").await,
        ["Line length is now 40."]
    );
    let look = ann.command("look").await;
    assert!(widest(&look) <= 40, "{look:#?}");
    assert!(
        look.iter()
            .any(|l| l.starts_with("Exits: north (Town Hall)")),
        "{look:#?}"
    );
    // `@wrap off` sends lines whole, for clients that wrap by themselves.
    assert_eq!(ann.command("@wrap off").await, ["Word wrap is now off."]);
    let whole = ann.command("look").await;
    assert!(widest(&whole) > 79, "{whole:#?}");

    // Both are stored with the character: a new connection wraps at 40 again after `@wrap on`.
    ann.send("@quit").await;
    ann.until_closed().await;
    let mut again = s.client().await;
    again.expect("quit").await;
    again.send("connect Ann pw-Ann-moot").await;
    again.expect("*** Connected ***").await;
    again.expect("$#$xmcp").await;
    assert_eq!(again.command("@wrap").await, ["Word wrap is off."]);
    again.command("@wrap on").await;
    let look = again.command("look").await;
    assert!(widest(&look) <= 40, "{look:#?}");
    assert_eq!(
        again.command("@linelength").await,
        ["Your line length is 40.", "Word wrap is on."]
    );
    s.stop().await;
}

#[tokio::test]
async fn a_client_that_offers_naws_is_wrapped_at_its_window_width() {
    let s = TestServer::start().await;
    let mut c = s.client().await;
    c.expect("quit").await;
    // The client offers NAWS (as TinTin++ and Mudlet do); moot asks for it, and the client
    // reports a 50-column window.
    c.send_raw(&[IAC, WILL, NAWS]).await;
    let got = c.read_bytes_until(|b| b.len() >= 3).await;
    assert_eq!(got, [IAC, DO, NAWS], "DO NAWS, and nothing else");
    c.send_raw(&[IAC, SB, NAWS, 0, 50, 0, 24, IAC, SE]).await;
    c.send("create Nora pw-Nora-moot").await;
    c.expect("*** Created ***").await;
    c.expect("$#$xmcp").await;
    let look = c.command("look").await;
    assert!(widest(&look) <= 50, "{look:#?}");
    assert!(widest(&look) > 40, "it uses the width it has: {look:#?}");
    // The window grows: lines follow.
    c.send_raw(&[IAC, SB, NAWS, 0, 120, 0, 24, IAC, SE]).await;
    let look = c.command("look").await;
    assert!(widest(&look) > 79, "{look:#?}");
    // A width the character chose wins over the window's.
    c.command("@linelength 30").await;
    let look = c.command("look").await;
    assert!(widest(&look) <= 30, "{look:#?}");
    s.stop().await;
}

/// The narrator's line, as a Werewolf match announces a death.
const CRIER_LINE: &str = "[Town Crier] Bot-Abel is dead. Bot-Abel was a Werewolf.";

/// What `say` must say for the listener's wrap at `width` to fall just before `tail`:
/// `Ann says, "` and padding fill the first row exactly.
fn padded_for(width: usize, tail: &str) -> String {
    let pad = "a".repeat(width - "Ann says, \"".len());
    format!("{pad} {tail}")
}

/// Reads the listener's lines up to Ann's `say` ending in `end`. None may start like the
/// narrator's (or like an out-of-band message); every row fits `width` but for a single word
/// longer than that; and the row the wrap started with the mark, `set_in`, is there.
async fn heard(c: &mut Client, width: usize, end: &str, set_in: Option<&str>) -> Vec<String> {
    let lines = c.expect(end).await;
    let said = lines
        .iter()
        .rposition(|l| l.starts_with("Ann says,"))
        .expect("Ann's say");
    let said = &lines[said..];
    for l in said {
        assert!(
            !l.starts_with("[Town Crier]") && !l.starts_with('[') && !l.starts_with("#$#"),
            "at {width}: {said:#?}"
        );
        assert!(
            l.chars().count() <= width || !l.trim().contains(' '),
            "at {width}: {said:#?}"
        );
    }
    if let Some(set_in) = set_in {
        assert!(
            said.iter().any(|l| l.starts_with(set_in)),
            "at {width}: {said:#?}"
        );
    }
    said.to_vec()
}

#[tokio::test]
async fn nobody_can_pad_a_say_into_a_line_that_starts_like_the_town_crier() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    // Cleo's client reports a 50-column window (NAWS) and keeps moot's default, wrap on.
    let mut cleo = s.client().await;
    cleo.expect("quit").await;
    cleo.send_raw(&[IAC, WILL, NAWS]).await;
    assert_eq!(
        cleo.read_bytes_until(|b| b.len() >= 3).await,
        [IAC, DO, NAWS]
    );
    cleo.send_raw(&[IAC, SB, NAWS, 0, 50, 0, 24, IAC, SE]).await;
    cleo.send("create Cleo pw-Cleo-moot").await;
    cleo.expect("$#$xmcp").await;
    bob.command("@wrap on").await;
    for width in [79, 40, 20] {
        if width != 79 {
            bob.command(&format!("@linelength {width}")).await;
        }
        let said = padded_for(width, CRIER_LINE);
        ann.command(&format!("say {said}")).await;
        let got = heard(&mut bob, width, "Werewolf.\"", Some("  [Town Crier]")).await;
        heard(&mut cleo, 50, "Werewolf.\"", None).await;
        assert_eq!(got[0], format!("Ann says, \"{}", "a".repeat(width - 11)));
        assert_eq!(
            words(&got).join(" "),
            format!("Ann says, \"{said}\""),
            "every word arrives, whole and in order"
        );
        if width == 79 {
            assert_eq!(got[1], format!("  {CRIER_LINE}\""));
        }
    }
    // The listener with NAWS, and an out-of-band lookalike at the break.
    let said = padded_for(50, CRIER_LINE);
    ann.command(&format!("say {said}")).await;
    heard(&mut cleo, 50, "Werewolf.\"", Some("  [Town Crier]")).await;
    let said = padded_for(50, "#$#mcp-negotiate-end 2097171");
    ann.command(&format!("say {said}")).await;
    heard(&mut cleo, 50, "2097171\"", Some("  #$#mcp")).await;
    // The speaker's own echo is wrapped by the same rule.
    ann.command("@wrap on").await;
    let echo = ann
        .command(&format!("say {}", padded_for(79, CRIER_LINE)))
        .await;
    assert!(echo.len() >= 2, "{echo:#?}");
    assert!(!echo.iter().any(|l| l.starts_with('[')), "{echo:#?}");
    s.stop().await;
}

#[tokio::test]
async fn a_token_longer_than_the_line_arrives_whole_and_works() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    ann.command("@wrap on").await;
    ann.command("@linelength 20").await;
    let got = ann.command("@token").await;
    assert_eq!(got[0], "Your API token:", "{got:#?}");
    let token = &got[1];
    assert!(
        token.starts_with("moot_") && token.chars().count() > 20,
        "the token stands whole on its own line: {got:#?}"
    );
    assert!(got[2..].iter().all(|l| l.chars().count() <= 20), "{got:#?}");
    // Copied off the screen, it is a token that works.
    assert_eq!(s.api().get("/sessions", token).await.0, 200);
    s.stop().await;
}

/// A slip or another MUD's habit gets an answer that helps: the verb or exit it was likely
/// meant for, the exits here, the way to leave, what a verb is for, the game's word.
#[tokio::test]
async fn a_slip_is_answered_with_what_was_likely_meant() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let _bob = s.player("Bob").await;
    ann.command("@wrap off").await;
    let cases = [
        ("lok", "I don't understand \"lok\". Did you mean `look`?"),
        ("nrth", "I don't understand \"nrth\". Did you mean `north`?"),
        (
            "go nrth",
            "You can't go that way. Did you mean `north`? Exits: north, east, west, south.",
        ),
        (
            "exit",
            "To leave moot, type `@quit`. To walk out of here, type an exit's name: north, \
             east, west, south.",
        ),
        (
            "get fountain",
            "You can't take the stone fountain; it stays where it is.",
        ),
        ("take unicorn", "I see no \"unicorn\" here."),
        // Things and people are answered with the names they were likely a slip for.
        (
            "look fountian",
            "I see no \"fountian\" here. Did you mean fountain?",
        ),
        (
            "page Bbo hello",
            "No one called \"Bbo\" is connected. Did you mean Bob?",
        ),
        (
            "whisper hello to Bbo",
            "I don't see \"Bbo\" here. Did you mean Bob?",
        ),
    ];
    for (line, answer) in cases {
        assert_eq!(ann.command(line).await, [answer], "{line}");
    }
    let dropped = ann.command("drop fountain").await;
    assert_eq!(
        dropped,
        [
            "You are not carrying \"fountain\". (Or `drop <1-7> [#<game>]`: Drop a disc into a \
             column in Connect Four.)"
        ]
    );
    // The signpost points to every game, tic-tac-toe and Connect Four too.
    let sign = ann.command("look sign").await.join(" ");
    for game in [
        "Werewolf",
        "Chess",
        "blackjack",
        "tic-tac-toe",
        "Connect Four",
    ] {
        assert!(sign.contains(game), "{game}: {sign}");
    }
    ann.command("s").await;
    // A game of the tables is found by its name as well as its word, and a game that is not
    // here is answered with the words of those that are.
    let started = ann.command("play rock-paper-scissors with house").await;
    assert!(
        started.iter().any(|l| l.contains("rock-paper-scissors")),
        "{started:?}"
    );
    assert_eq!(
        ann.command("play chess with house").await,
        [
            "There is no \"chess\" to play here; here you can play `rps`, `tictactoe` or \
          `connect4` (`play rps with house`)."
        ]
    );
    s.stop().await;
}

#[tokio::test]
async fn a_compass_word_with_no_exit_there_cannot_be_gone() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let no_way = "You can't go that way. Exits: north, east, west, south.";
    for word in ["sw", "up", "northwest", "D", "out"] {
        assert_eq!(ann.command(word).await, [no_way], "{word}");
    }
    assert_eq!(ann.command("go sw").await, [no_way]);
    // A word that is no direction is still not understood.
    assert_eq!(
        ann.command("xyzzy").await,
        ["I don't understand that. `help` lists what you can do."]
    );
    // And an exit here still works by its alias.
    assert_eq!(ann.command("s").await[0], "Game Room");
    s.stop().await;
}

/// Plays one round of rock-paper-scissors against the house, to its end.
async fn one_finished_game(ann: &mut Client, n: usize) {
    ann.send("play rps with house").await;
    ann.expect(&format!("game #{n}.")).await;
    ann.expect("now you choose").await;
    let answer = ann.command("choose rock").await;
    assert!(answer.join("\n").contains("Result: "), "{answer:?}");
}

#[tokio::test]
async fn finished_games_do_not_pile_up_in_look_and_games() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    ann.command("south").await;
    for n in 1..=5 {
        one_finished_game(&mut ann, n).await;
    }
    // The last three finished games, and a word on the rest.
    let games = ann.command("games").await;
    let listed: Vec<&String> = games.iter().filter(|l| l.starts_with('#')).collect();
    assert_eq!(listed.len(), 3, "{games:#?}");
    assert!(listed[0].starts_with("#3 "), "{games:#?}");
    assert!(listed[2].starts_with("#5 "), "{games:#?}");
    assert_eq!(
        games.last().unwrap(),
        "2 older finished games are left out (`games all` lists them)."
    );
    let all = ann.command("games all").await;
    assert_eq!(
        all.iter().filter(|l| l.starts_with('#')).count(),
        5,
        "{all:#?}"
    );
    assert!(!all.iter().any(|l| l.contains("left out")), "{all:#?}");
    assert_eq!(
        ann.command("games everything").await,
        ["Usage: games [all]"]
    );
    let look = ann.command("look").await;
    assert_eq!(
        look.iter().filter(|l| l.starts_with("Game #")).count(),
        3,
        "{look:#?}"
    );
    assert!(
        look.iter()
            .any(|l| l == "2 older finished games are here too (`games all` lists them)."),
        "{look:#?}"
    );
    // A running game is always listed, however many finished before it.
    ann.send("play rps with house").await;
    ann.expect("game #6.").await;
    let games = ann.command("games").await;
    assert!(games.iter().any(|l| l.starts_with("#6 ")), "{games:#?}");
    s.stop().await;
}

const GMCP: u8 = 201;
const MSSP: u8 = 70;

/// Every GMCP message in `bytes`: (package, JSON body).
fn gmcp_messages(bytes: &[u8]) -> Vec<(String, serde_json::Value)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 3 <= bytes.len() {
        if bytes[i..i + 3] == [IAC, SB, GMCP] {
            let start = i + 3;
            let end = (start..bytes.len() - 1)
                .find(|&j| bytes[j] == IAC && bytes[j + 1] == SE)
                .expect("a whole message");
            let text = String::from_utf8_lossy(&bytes[start..end]).into_owned();
            let (package, body) = text.split_once(' ').unwrap_or((&text, "null"));
            out.push((package.to_owned(), serde_json::from_str(body).unwrap()));
            i = end + 2;
        } else {
            i += 1;
        }
    }
    out
}

/// Reads until a GMCP message of `package` has come; returns everything read so far with it.
async fn until_gmcp(c: &mut Client, seen: &mut Vec<u8>, package: &str) -> serde_json::Value {
    loop {
        if let Some((_, body)) = gmcp_messages(seen).into_iter().rfind(|(p, _)| p == package) {
            seen.clear();
            return body;
        }
        let more = c.read_bytes_until(|b| !b.is_empty()).await;
        seen.extend_from_slice(&more);
    }
}

/// A client may agree to GMCP after it has logged in: from then on it gets the news of what
/// it does (its queue, which took none while it had not asked, takes news again).
#[tokio::test]
async fn gmcp_agreed_after_login_brings_the_news_from_then_on() {
    let s = TestServer::start_with(|c| c.telnet_negotiate = true).await;
    let mut ann = s.client().await;
    // She lets the offers go unanswered, and logs in.
    ann.read_bytes_until(|b| b.len() >= 9).await;
    ann.send("create Ann pw-Ann-moot").await;
    ann.expect("$#$xmcp version: 1.1").await;
    ann.command("say Before anything was agreed").await;
    // Now she agrees, and says something else.
    ann.send_raw(&[IAC, DO, GMCP]).await;
    ann.send("say hello").await;
    let mut seen = Vec::new();
    let said = until_gmcp(&mut ann, &mut seen, "Comm.Channel.Text").await;
    assert_eq!(
        said,
        serde_json::json!({"channel": "say", "talker": "Ann", "text": "Ann says, \"hello\""})
    );
    ann.send("east").await;
    let room = until_gmcp(&mut ann, &mut seen, "Room.Info").await;
    assert_eq!(room["num"], "chess_parlour", "{room}");
    s.stop().await;
}

#[tokio::test]
async fn a_negotiating_listener_speaks_gmcp_and_mssp_to_mud_clients() {
    let s = TestServer::start_with(|c| c.telnet_negotiate = true).await;
    let mut ann = s.client().await;
    // moot offers first: WILL GMCP, WILL MSSP, DO NAWS.
    let opening = ann.read_bytes_until(|b| b.len() >= 9).await;
    assert_eq!(
        &opening[..9],
        &[IAC, WILL, GMCP, IAC, WILL, MSSP, IAC, DO, NAWS]
    );
    let mut seen = opening[9..].to_vec();
    // The client agrees to all three, says hello and what it supports.
    let mut hello = vec![IAC, DO, GMCP, IAC, DO, MSSP, IAC, WILL, NAWS];
    hello.extend_from_slice(&[IAC, SB, NAWS, 0, 100, 0, 40, IAC, SE]);
    for msg in [
        r#"Core.Hello {"client": "test", "version": "1"}"#,
        r#"Core.Supports.Set ["Room 1", "Comm.Channel 1", "Moot.Chess 1"]"#,
    ] {
        hello.extend_from_slice(&[IAC, SB, GMCP]);
        hello.extend_from_slice(msg.as_bytes());
        hello.extend_from_slice(&[IAC, SE]);
    }
    ann.send_raw(&hello).await;
    // MSSP's figures come back at once.
    let mssp = loop {
        if let Some(i) = seen.windows(3).position(|w| w == [IAC, SB, MSSP])
            && let Some(j) = seen[i..].windows(2).position(|w| w == [IAC, SE])
        {
            break String::from_utf8_lossy(&seen[i + 3..i + j]).replace(['\x01', '\x02'], "|");
        }
        let more = ann.read_bytes_until(|b| !b.is_empty()).await;
        seen.extend_from_slice(&more);
    };
    assert!(mssp.contains("|NAME|moot"), "{mssp:?}");
    assert!(mssp.contains("|PLAYERS|"), "{mssp:?}");
    assert!(mssp.contains("|CODEBASE|moot "), "{mssp:?}");
    assert!(mssp.contains("|GMCP|1"), "{mssp:?}");

    ann.send("create Ann pw-Ann-moot").await;
    // Everything up to a marker after the login's answer: a GMCP client is not offered
    // XMCP/1.1 (tkMOO-light's board), which it would only print.
    ann.send("PREFIX <<<").await;
    ann.send("who").await;
    let mut login = seen.clone();
    while !login.windows(3).any(|w| w == b"<<<") {
        login.extend(ann.read_bytes_until(|b| !b.is_empty()).await);
    }
    assert!(
        !login.windows(7).any(|w| w == b"$#$xmcp"),
        "{}",
        String::from_utf8_lossy(&login)
    );
    ann.send("PREFIX").await;
    seen = login;
    let room = until_gmcp(&mut ann, &mut seen, "Room.Info").await;
    assert_eq!(room["num"], "town_square", "{room}");
    assert_eq!(room["name"], "Town Square");
    assert_eq!(room["exits"]["east"], "chess_parlour", "{room}");
    ann.send("east").await;
    let room = until_gmcp(&mut ann, &mut seen, "Room.Info").await;
    assert_eq!(room["num"], "chess_parlour", "{room}");

    // Speech comes as Comm.Channel.Text besides the line.
    // (Bob's client, a plain one, skips the offers.)
    let mut bob = s.client().await;
    bob.read_bytes_until(|b| b.len() >= 9).await;
    bob.send("create Bob pw-Bob-moot").await;
    bob.expect("$#$xmcp version: 1.1").await;
    bob.command("east").await;
    bob.command("say Shall we play?").await;
    let said = until_gmcp(&mut ann, &mut seen, "Comm.Channel.Text").await;
    assert_eq!(
        said,
        serde_json::json!({"channel": "say", "talker": "Bob", "text": "Bob says, \"Shall we play?\""})
    );

    // A page is a channel too, heard by the one paged only.
    bob.command("page Ann Your move soon?").await;
    let paged = until_gmcp(&mut ann, &mut seen, "Comm.Channel.Text").await;
    assert_eq!(paged["channel"], "page", "{paged}");
    assert_eq!(paged["text"], "Bob pages, \"Your move soon?\"");

    // A chess board comes as Moot.Chess.Board: the FEN, whose turn, her colour, the sequence.
    bob.command("challenge Ann as black").await;
    ann.send("accept Bob").await;
    let board = until_gmcp(&mut ann, &mut seen, "Moot.Chess.Board").await;
    assert_eq!(
        board["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "{board}"
    );
    assert_eq!(board["colour"], "white");
    assert_eq!(board["yourTurn"], true);
    assert_eq!(board["turn"], "white");
    assert_eq!(board["sequence"], 1);
    ann.send("move e4").await;
    let board = until_gmcp(&mut ann, &mut seen, "Moot.Chess.Board").await;
    assert_eq!(board["yourTurn"], false, "{board}");
    assert_eq!(board["last_move"], "e2e4", "{board}");
    s.stop().await;
}

#[tokio::test]
async fn the_default_listener_starts_nothing_and_refuses_gmcp() {
    let s = TestServer::start().await;
    let mut c = s.client().await;
    let first = c.read_bytes_until(|b| b.len() >= 4).await;
    assert_eq!(
        &first[..4],
        b"moot",
        "the welcome text first, no negotiation"
    );
    c.send_raw(&[IAC, DO, GMCP]).await;
    let got = c
        .read_bytes_until(|b| b.windows(3).any(|w| w == [IAC, 252, GMCP]))
        .await;
    assert!(got.windows(3).any(|w| w == [IAC, 252, GMCP]), "WONT GMCP");
    s.stop().await;
}

/// TinTin++ itself (Debian's `/usr/games/tt++`, in a 60-column pseudo-terminal) with
/// `clients/tintin/moot.tin` as written, the port given as its variable: it logs in, walks,
/// talks and reads help, wrapped at the width it reported, and its GMCP event shows the room.
/// The transcript goes to target/tintin-transcript.txt (the folder made if the build's
/// target is elsewhere: `CARGO_TARGET_DIR`).
#[tokio::test]
async fn tintin_plays_with_the_clients_settings_file() {
    let s = TestServer::start_with(|c| c.telnet_negotiate = true).await;
    let transcript = concat!(env!("CARGO_MANIFEST_DIR"), "/target/tintin-transcript.txt");
    std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
    let seen = crate::support::run_python(
        "clients/tintin.py",
        &[&s.addr.port().to_string(), "60", transcript],
    )
    .await;
    for step in ["created", "walked", "said", "help", "quit", "naws"] {
        assert_eq!(seen[step], true, "{step}: {seen}");
    }
    assert!(seen["widest_help"].as_u64().unwrap() <= 60, "{seen}");
    let text = std::fs::read_to_string(transcript).unwrap();
    assert!(text.contains("SENT IAC SB NAWS 0 60"), "{text}");
    assert!(text.contains("IAC SB GMCP Room.Info IAC SE"), "{text}");
    assert!(
        text.contains("[Chess Parlour]"),
        "moot.tin's Room.Info event drew the room: {text}"
    );
    s.stop().await;
}

/// `@screenreader on`, kept with the character: a game is read as a list of what stands where
/// (never drawn), a room walked into is brief and its lists come one item a line, and `last`,
/// `clock` and `square` answer about the game in one line each.
#[tokio::test]
async fn a_screen_reader_user_hears_lists_and_asks_short_questions() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let on = ann.command("@screenreader on").await;
    assert!(on[0].starts_with("Screen-reader mode is on"), "{on:?}");
    let looked = ann.command("look").await;
    let description = looked[1].clone();
    assert!(
        looked.iter().any(|l| l.starts_with("Exit north to ")),
        "{looked:?}"
    );
    assert!(
        !looked.iter().any(|l| l.starts_with("Exits:")),
        "{looked:?}"
    );
    // Walked into, a room is its name, what is in it and the exits; `look` says the rest.
    let walked = ann.command("east").await;
    let here = ann.command("look").await;
    assert!(!walked.contains(&here[1]), "{walked:?} {here:?}");
    assert!(walked.iter().all(|l| *l != description));
    ann.send("challenge computer as white level 1").await;
    let started = ann.expect("White to move.").await;
    let joined = started.join("\n");
    assert!(
        joined.contains("White: king e1, queen d1, rooks a1 h1, bishops c1 f1, knights b1 g1, pawns a2 b2 c2 d2 e2 f2 g2 h2."),
        "{joined}"
    );
    assert!(
        !joined.contains("R N B Q K B N R"),
        "no drawn board: {joined}"
    );
    ann.send("move e4").await;
    ann.expect("#1: Computer (black) plays").await;
    assert_eq!(ann.command("square e4").await, ["#1: e4: white pawn."]);
    assert_eq!(ann.command("square e2").await, ["#1: e2: empty."]);
    // A rank or a file, square by square: the board read a line at a time.
    assert_eq!(
        ann.command("square 4").await,
        [
            "#1: Rank 4: a4: empty, b4: empty, c4: empty, d4: empty, e4: white pawn, f4: empty, \
          g4: empty, h4: empty."
        ]
    );
    let file = ann.command("square e").await;
    assert!(
        file[0].starts_with("#1: File e: e1: white king, e2: empty, e3: empty, e4: white pawn"),
        "{file:?}"
    );
    let last = ann.command("last").await;
    assert!(
        last[0].starts_with("#1: Computer (black) plays "),
        "{last:?}"
    );
    assert_eq!(
        ann.command("clock").await,
        ["This game has no clock (game #1, chess)."]
    );
    assert_eq!(
        ann.command("square z9").await,
        ["There is no square \"z9\" here (game #1, chess)."]
    );
    // Cards by name, the hole card said to be face down, with the totals.
    ann.command("west").await;
    ann.command("west").await;
    // A person is told the words they type, not the agents' tools' names.
    let table = ann.command("examine table").await;
    let verbs = table.last().unwrap();
    assert!(
        verbs.contains("deal, hit, stand") && !verbs.contains("blackjack_"),
        "{table:?}"
    );
    assert_eq!(
        ann.command("stand").await,
        ["There is no hand in play; deal one first (`deal`)."]
    );
    // (A natural 21 ends the hand at once, the dealer's cards shown: deal again.)
    let mut dealt = ann.command("deal").await;
    while dealt
        .iter()
        .any(|l| l.starts_with("`deal` for another hand"))
    {
        dealt = ann.command("deal").await;
    }
    assert!(
        dealt[0].starts_with("Dealer: one card face down, "),
        "{dealt:?}"
    );
    assert!(
        dealt[1].starts_with("Player: ") && dealt[1].contains("; total "),
        "{dealt:?}"
    );
    assert!(!dealt.join(" ").contains(" X "), "{dealt:?}");
    // Beside a blackjack table, which has no squares, a square is the chess game's (it once
    // asked which of the two was meant).
    assert_eq!(ann.command("square e4").await, ["#1: e4: white pawn."]);
    // Kept with the character: the next login reads the same way, and `who` is a sentence
    // a player.
    ann.send("@quit").await;
    ann.until_closed().await;
    let mut again = Client::connect(s.addr).await;
    again.send("connect Ann pw-Ann-moot").await;
    again.expect("$#$xmcp version: 1.1").await;
    again.send("@wrap off").await;
    again.expect("Word wrap is now off.").await;
    let who = again.command("who").await;
    assert!(
        who[0].starts_with("Ann, in Card Room, connected"),
        "{who:?}"
    );
    assert_eq!(who.last().unwrap(), "1 connected.");
    let off = again.command("@screenreader off").await;
    assert_eq!(off, ["Screen-reader mode is off: boards are drawn again."]);
    let board = again.command("board").await;
    assert!(
        board.iter().any(|l| l == "2 P P P P . P P P 2"),
        "drawn again, after e4: {board:?}"
    );
    // The same short questions at a table's game with a clock: Connect Four, a day a move.
    again.command("@screenreader on").await;
    again.command("east").await;
    again.command("south").await;
    let started = again.command("play connect4 with house clock 1d").await;
    let id = started
        .iter()
        .find_map(|l| l.split('#').nth(1))
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .map(str::to_owned)
        .unwrap_or_else(|| panic!("{started:?}"));
    again.send(&format!("drop 4 #{id}")).await;
    // (The house answers at once; its clock line may read 1d 0h or 23h 59m.)
    again.expect("Red (R) to drop.").await;
    let clock = again.command(&format!("clock #{id}")).await;
    assert!(
        clock[0].starts_with(&format!("#{id}: Clock 1d per move: Red has "))
            && clock[0].ends_with(" to drop."),
        "{clock:?}"
    );
    let last = again.command(&format!("last #{id}")).await;
    assert!(
        last[0].starts_with(&format!(
            "#{id}: Computer (yellow) drops a disc in column 4"
        )),
        "{last:?}"
    );
    let column = again.command(&format!("square 4 #{id}")).await;
    assert_eq!(column, [format!("#{id}: Column 4: red, yellow; 4 free.")]);
}
