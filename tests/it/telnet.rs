//! The town over raw TCP: logging in, talking, moving, and bad input of every kind.

use std::time::Duration;

use tokio::time::Instant;

use crate::support::{Client, TestServer};

const IAC: u8 = 255;

#[tokio::test]
async fn the_login_screen_welcomes_and_lists_commands() {
    let s = TestServer::start().await;
    let mut c = s.client().await;
    let welcome = c.expect("quit").await;
    assert_eq!(welcome[0], "moot");
    // The welcome names every game, tic-tac-toe and Connect Four too (the lines are wrapped).
    let said = welcome.join(" ");
    for game in [
        "chess",
        "blackjack",
        "rock-paper-scissors",
        "tic-tac-toe",
        "Connect Four",
        "Werewolf",
    ] {
        assert!(said.contains(game), "{game}: {welcome:?}");
    }
    assert!(
        welcome
            .iter()
            .any(|l| l.contains("connect <name> <password>"))
    );
    assert!(
        welcome
            .iter()
            .any(|l| l.contains("create <name> <password>"))
    );
    c.send("dance").await;
    let lines = c.expect("quit").await;
    assert_eq!(lines[0], "Please connect or create a character first:");
    c.send("help").await;
    c.expect("unique whatever their case").await;
    c.send("who").await;
    c.expect("Total: 0 players connected.").await;
    c.send("quit").await;
    assert_eq!(
        c.until_closed().await.last().unwrap(),
        "*** Disconnected ***"
    );
}

#[tokio::test]
async fn create_and_connect_with_their_errors() {
    let s = TestServer::start().await;
    let mut c = s.client().await;
    c.expect("quit").await;
    c.send("create x pw").await;
    assert_eq!(
        c.line().await.unwrap(),
        "A name must be 2 to 20 characters long."
    );
    c.send("create 9lives pw").await;
    assert_eq!(c.line().await.unwrap(), "A name must start with a letter.");
    c.send("create Ann").await;
    assert_eq!(c.line().await.unwrap(), "Usage: create <name> <password>");
    c.send("create Ann short").await;
    assert_eq!(
        c.line().await.unwrap(),
        "A password must be at least 8 characters long."
    );
    c.send("create Ann s3cret-pw").await;
    assert_eq!(c.line().await.unwrap(), "*** Created ***");
    assert_eq!(c.line().await.unwrap(), "Town Square");
    c.send("@quit").await;
    c.until_closed().await;

    let mut d = s.client().await;
    d.expect("quit").await;
    d.send("create ANN other-password").await;
    assert_eq!(
        d.line().await.unwrap(),
        "The name \"ANN\" is already in use; please choose another."
    );
    d.send("connect Ann wrong").await;
    let wrong_password = d.line().await.unwrap();
    d.send("connect Nobody s3cret-pw").await;
    let no_such_player = d.line().await.unwrap();
    assert_eq!(
        wrong_password,
        "Either that player does not exist, or has a different password."
    );
    assert_eq!(no_such_player, wrong_password, "one answer for both");
    d.send("connect ann s3cret-pw").await;
    assert_eq!(d.line().await.unwrap(), "*** Connected ***");
    assert_eq!(d.line().await.unwrap(), "Town Square");
}

#[tokio::test]
async fn repeated_login_failures_are_slowed() {
    let s =
        TestServer::start_with(|c| c.login_fail_delay = Duration::from_millis(100).into()).await;
    let mut c = s.client().await;
    c.expect("quit").await;
    let mut took = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        c.send("connect Ghost nope").await;
        c.expect("does not exist").await;
        took.push(t.elapsed());
    }
    // 1, 1, 1, 2 and 4 times the configured pause.
    assert!(took[0] >= Duration::from_millis(100), "{took:?}");
    assert!(took[3] >= Duration::from_millis(200), "{took:?}");
    assert!(took[4] >= Duration::from_millis(400), "{took:?}");
}

#[tokio::test]
async fn two_players_see_each_other_talk_arrive_and_leave() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    ann.expect("Bob has connected.").await;

    bob.send("say hello there").await;
    assert_eq!(bob.line().await.unwrap(), "You say, \"hello there\"");
    assert_eq!(ann.line().await.unwrap(), "Bob says, \"hello there\"");
    ann.send("\"hi Bob").await;
    assert_eq!(ann.line().await.unwrap(), "You say, \"hi Bob\"");
    assert_eq!(bob.line().await.unwrap(), "Ann says, \"hi Bob\"");

    ann.send(":waves.").await;
    assert_eq!(ann.line().await.unwrap(), "Ann waves.");
    assert_eq!(bob.line().await.unwrap(), "Ann waves.");
    bob.send("emote 's pleased.").await;
    assert_eq!(bob.line().await.unwrap(), "Bob's pleased.");
    assert_eq!(ann.line().await.unwrap(), "Bob's pleased.");

    let look = ann.command("look").await;
    assert!(look.contains(&"Bob is here.".to_owned()), "{look:?}");

    bob.send("north").await;
    assert_eq!(bob.line().await.unwrap(), "Town Hall");
    bob.expect("Exits:").await;
    assert_eq!(ann.line().await.unwrap(), "Bob goes north.");
    ann.send("go n").await;
    assert_eq!(ann.line().await.unwrap(), "Town Hall");
    assert!(
        ann.expect("Exits:")
            .await
            .contains(&"Bob is here.".to_owned())
    );
    assert_eq!(bob.line().await.unwrap(), "Ann has arrived.");
    bob.send("go up").await;
    bob.expect("You can't go that way.").await;

    bob.send("QUIT").await;
    assert_eq!(
        bob.until_closed().await.last().unwrap(),
        "*** Disconnected ***"
    );
    ann.expect("Bob has disconnected.").await;
}

/// Talkers in one room at once, on a runtime with several workers, so that lines meet the
/// world busy with another's (and wait for the world task) as well as free (and are answered
/// where they were read): each hears its own answers in the order it spoke and every line of
/// everyone else, and all of them hear the room's talk in one order, the world's (an answer
/// handed straight back is written where the world put it among what others said).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn talkers_at_once_each_get_their_answers_in_turn_and_hear_everyone() {
    const TALKERS: usize = 8;
    const LINES: usize = 40;
    let s = TestServer::start_with(|c| c.command_rate = 0.0).await;
    let clients = gathered(&s, "Talker", TALKERS).await;
    let mut talking = tokio::task::JoinSet::new();
    for (i, mut c) in clients.into_iter().enumerate() {
        talking.spawn(async move {
            let lines: String = (0..LINES).map(|n| format!("say {i}:{n}\r\n")).collect();
            c.send_raw(lines.as_bytes()).await;
            // Who said what, in the order this talker heard it (its own answers among them).
            let mut heard: Vec<(usize, usize)> = Vec::new();
            while heard.len() < TALKERS * LINES {
                let line = c.line().await.unwrap();
                let said = if let Some(said) = line.strip_prefix("You say, \"") {
                    said
                } else if let Some((_, said)) = line.split_once(" says, \"") {
                    said
                } else {
                    continue;
                };
                let (from, n) = said.trim_end_matches('"').split_once(':').unwrap();
                let (from, n) = (from.parse().unwrap(), n.parse().unwrap());
                if line.starts_with("You say") {
                    assert_eq!(from, i, "{line}");
                } else {
                    assert!(line.starts_with(&format!("Talker{from} says")), "{line}");
                }
                heard.push((from, n));
            }
            heard
        });
    }
    let heard = talking.join_all().await;
    for (i, mine) in heard.iter().enumerate() {
        // Each talker's lines, its own included, in the order they were said.
        for from in 0..TALKERS {
            let said: Vec<usize> = mine.iter().filter(|w| w.0 == from).map(|w| w.1).collect();
            assert_eq!(
                said,
                (0..LINES).collect::<Vec<_>>(),
                "talker {i}, from {from}"
            );
        }
        assert_eq!(
            mine, &heard[0],
            "talker {i} heard the room in another order"
        );
    }
}

/// `n` players called `<name>0`, `<name>1`…, in the start room, each having heard the last
/// of them arrive: everyone is in before anyone speaks.
async fn gathered(s: &TestServer, name: &str, n: usize) -> Vec<Client> {
    let mut clients = Vec::new();
    for i in 0..n {
        clients.push(s.player(&format!("{name}{i}")).await);
    }
    for c in &mut clients[..n - 1] {
        c.expect(&format!("{name}{} has connected.", n - 1)).await;
    }
    clients
}

/// More talkers than a room's crowd (their lines run on the world task, and each answer comes
/// back through its connection's queue), each waiting for its answer before it speaks again,
/// as someone at a MUD client does: every answer comes. (A queue polled again only when its
/// count of what was sent had moved lost wake-ups under this load, as `telnet_load`'s spread500
/// found: connections waited for ever, and this test timed out.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_crowd_talking_in_turn_gets_every_answer() {
    const TALKERS: usize = 100;
    const LINES: usize = 40;
    let s = TestServer::start_with(|c| c.command_rate = 0.0).await;
    let clients = gathered(&s, "Crowd", TALKERS).await;
    let mut talking = tokio::task::JoinSet::new();
    for (i, mut c) in clients.into_iter().enumerate() {
        talking.spawn(async move {
            for n in 0..LINES {
                c.send(&format!("say {i}:{n}")).await;
                c.expect(&format!("You say, \"{i}:{n}\"")).await;
            }
        });
    }
    talking.join_all().await;
}

#[tokio::test]
async fn page_reaches_another_room_and_whisper_only_its_target() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    let mut cy = s.player("Cy").await;
    ann.expect("Cy has connected.").await;
    bob.expect("Cy has connected.").await;

    bob.send("east").await;
    bob.expect("Exits:").await;
    ann.expect("Bob goes east.").await;
    cy.expect("Bob goes east.").await;
    ann.send("page bob meet me at the fountain").await;
    assert_eq!(ann.line().await.unwrap(), "Your message has been sent.");
    assert_eq!(
        bob.line().await.unwrap(),
        "You sense that Ann is looking for you in Town Square."
    );
    assert_eq!(
        bob.line().await.unwrap(),
        "Ann pages, \"meet me at the fountain\""
    );
    ann.send("page Zed hello").await;
    assert_eq!(
        ann.line().await.unwrap(),
        "No one called \"Zed\" is connected."
    );

    ann.send("whisper the key is under the mat to Cy").await;
    assert_eq!(
        ann.line().await.unwrap(),
        "You whisper, \"the key is under the mat\" to Cy."
    );
    assert_eq!(
        cy.line().await.unwrap(),
        "Ann whispers, \"the key is under the mat\""
    );
    ann.send("whisper psst to Bob").await;
    assert_eq!(ann.line().await.unwrap(), "I don't see \"Bob\" here.");
    bob.silent_for(Duration::from_millis(300)).await;
}

#[tokio::test]
async fn who_lists_everyone_with_location() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    bob.send("w").await;
    bob.expect("Exits:").await;
    ann.expect("Bob goes west.").await;
    let table = ann.command("@who").await;
    assert_eq!(
        table[0],
        format!(
            "{:<20} {:<12} {:<12} {:<6} {}",
            "Player name", "Connected", "Idle time", "Rating", "Location"
        )
    );
    let ann_row = table
        .iter()
        .find(|l| l.starts_with("Ann "))
        .expect("Ann listed");
    assert!(ann_row.ends_with("Town Square"), "{ann_row}");
    assert!(ann_row.contains("seconds"), "{ann_row}");
    let bob_row = table
        .iter()
        .find(|l| l.starts_with("Bob "))
        .expect("Bob listed");
    assert!(bob_row.ends_with("Card Room"), "{bob_row}");
    assert_eq!(table.last().unwrap(), "Total: 2 players connected.");
}

#[tokio::test]
async fn prefix_and_suffix_frame_each_command() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    ann.send("PREFIX -=start=-").await;
    ann.send("OUTPUTSUFFIX -=end=-").await;
    ann.send("inventory").await;
    assert_eq!(ann.line().await.unwrap(), "-=start=-");
    assert_eq!(ann.line().await.unwrap(), "You are empty-handed.");
    assert_eq!(ann.line().await.unwrap(), "-=end=-");
    ann.send("xyzzy").await;
    assert_eq!(ann.line().await.unwrap(), "-=start=-");
    assert_eq!(
        ann.line().await.unwrap(),
        "I don't understand that. `help` lists what you can do."
    );
    assert_eq!(ann.line().await.unwrap(), "-=end=-");
    ann.send("PREFIX").await;
    ann.send("SUFFIX").await;
    ann.send("i").await;
    assert_eq!(ann.line().await.unwrap(), "You are empty-handed.");
}

#[tokio::test]
async fn connecting_again_takes_the_character_over() {
    let s = TestServer::start().await;
    let mut old = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    old.expect("Bob has connected.").await;
    let mut new = s.client().await;
    new.expect("quit").await;
    new.send("connect Ann pw-Ann-moot").await;
    assert_eq!(
        new.line().await.unwrap(),
        "*** Redirecting old connection to this port ***"
    );
    assert_eq!(new.line().await.unwrap(), "*** Connected ***");
    let closed = old.until_closed().await;
    assert_eq!(
        closed.last().unwrap(),
        "*** Redirecting connection to new port ***"
    );
    bob.expect("Ann has reconnected.").await;
    // The new connection is the character now: Bob hears it, and only once.
    new.expect("Exits:").await;
    new.send("say still me").await;
    assert_eq!(bob.line().await.unwrap(), "Ann says, \"still me\"");
}

#[tokio::test]
async fn an_overlong_line_is_refused_and_the_connection_lives() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    ann.expect("Bob has connected.").await;
    let long = format!("say {}\r\n", "x".repeat(10 * 1024));
    bob.send_raw(long.as_bytes()).await;
    assert_eq!(
        bob.line().await.unwrap(),
        "*** Your line was longer than 4096 bytes and was ignored. ***"
    );
    bob.send("say after").await;
    assert_eq!(bob.line().await.unwrap(), "You say, \"after\"");
    assert_eq!(
        ann.line().await.unwrap(),
        "Bob says, \"after\"",
        "the long line reached nobody"
    );
}

#[tokio::test]
async fn telnet_sequences_in_input_are_removed_and_refused() {
    let s = TestServer::start().await;
    let mut c = s.client().await;
    c.expect("quit").await;
    // No negotiation of our own: the first bytes are the welcome text.
    let mut bytes = b"cre".to_vec();
    bytes.extend_from_slice(&[IAC, 253, 31]); // DO NAWS
    bytes.extend_from_slice(b"ate Ti");
    bytes.extend_from_slice(&[IAC, 250, 24, 0, b'x', b't', b'e', b'r', b'm', IAC, 240]); // SB TTYPE ... SE
    bytes.extend_from_slice(b"m pw-for-tim");
    bytes.extend_from_slice(&[IAC, 251, 1]); // WILL ECHO
    bytes.extend_from_slice(b"\r\0");
    c.send_raw(&bytes).await;
    let got = c
        .read_bytes_until(|b| b.windows(13).any(|w| w == b"*** Created *"))
        .await;
    assert_eq!(
        &got[..6],
        &[IAC, 252, 31, IAC, 254, 1],
        "WONT NAWS, DONT ECHO, before anything else"
    );
}

#[tokio::test]
async fn invalid_utf8_is_replaced() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    ann.expect("Bob has connected.").await;
    // (0xFF would be telnet's IAC, so the invalid bytes here are others.)
    bob.send_raw(b"say caf\xc3\xa9 \xc3( \x80 ok\r\n").await;
    assert_eq!(
        bob.line().await.unwrap(),
        "You say, \"café \u{fffd}( \u{fffd} ok\""
    );
    assert_eq!(
        ann.line().await.unwrap(),
        "Bob says, \"café \u{fffd}( \u{fffd} ok\""
    );
}

#[tokio::test]
async fn a_client_that_vanishes_mid_line_disturbs_nobody() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    ann.expect("Bob has connected.").await;
    bob.send_raw(b"say half a thou").await;
    drop(bob);
    assert_eq!(ann.line().await.unwrap(), "Bob has disconnected.");
    ann.send("say still here").await;
    assert_eq!(ann.line().await.unwrap(), "You say, \"still here\"");
    let mut cy = s.player("Cy").await;
    cy.send("who").await;
    cy.expect("Total: 2 players connected.").await;
}

#[tokio::test]
async fn a_flood_is_slowed_to_the_configured_rate() {
    let s = TestServer::start_with(|c| {
        c.command_rate = 20.0;
        c.command_burst = 5;
    })
    .await;
    let mut ann = s.player("Ann").await;
    let t = Instant::now();
    let burst: String = (0..25).map(|i| format!("say {i}\r\n")).collect();
    ann.send_raw(burst.as_bytes()).await;
    ann.expect("You say, \"24\"").await;
    // 5 at once, then 20 more at 20 per second: at least a second.
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "took {:?}",
        t.elapsed()
    );
}

#[tokio::test]
async fn idle_and_never_logged_in_connections_time_out() {
    let s = TestServer::start_with(|c| {
        c.login_timeout = Duration::from_millis(300).into();
        c.idle_timeout = Duration::from_millis(600).into();
    })
    .await;
    let mut lurker = s.client().await;
    assert_eq!(
        lurker.until_closed().await.last().unwrap(),
        "*** Timed-out waiting for login. ***"
    );
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    bob.send("say keeping awake").await;
    ann.expect("keeping awake").await;
    assert_eq!(
        ann.until_closed().await.last().unwrap(),
        "*** Disconnected for inactivity ***"
    );
    bob.expect("Ann has been disconnected for inactivity.")
        .await;
}

/// The idle timer is set once and moved on when it goes off early: each line typed puts the
/// disconnection off by the whole idle time from that line.
#[tokio::test]
async fn each_line_typed_puts_off_the_idle_timeout() {
    let s = TestServer::start_with(|c| c.idle_timeout = Duration::from_millis(600).into()).await;
    let mut ann = s.player("Ann").await;
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        ann.send("look").await;
        ann.expect("Exits").await;
    }
    let last = std::time::Instant::now();
    assert_eq!(
        ann.until_closed().await.last().unwrap(),
        "*** Disconnected for inactivity ***"
    );
    let quiet = last.elapsed();
    assert!(
        quiet >= Duration::from_millis(550) && quiet < Duration::from_millis(3000),
        "disconnected {quiet:?} after the last line"
    );
}

/// Lines sent with the login, more than the connection reads in one turn of its task, run
/// tokio's budget out while the idle timer is first waited on: the timer still goes off once
/// the client falls silent.
#[tokio::test]
async fn the_idle_timeout_holds_after_a_flood_sent_with_the_login() {
    let s = TestServer::start_with(|c| c.idle_timeout = Duration::from_millis(600).into()).await;
    let mut ann = s.client().await;
    let mut flood = b"create Ann pw-Ann-moot\r\n".to_vec();
    flood.extend(b"\r\n".repeat(100_000));
    ann.send_raw(&flood).await;
    ann.expect("*** Created ***").await;
    assert_eq!(
        ann.until_closed().await.last().unwrap(),
        "*** Disconnected for inactivity ***"
    );
}

/// Blank lines are handled by the connection and never reach the world; a client that keeps
/// sending them, and reads meanwhile, still hears what the world sends it.
#[tokio::test]
async fn a_flood_of_blank_lines_holds_nothing_the_world_sends_back() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let s = TestServer::start().await;
    let (rd, mut wr) = tokio::net::TcpStream::connect(s.addr)
        .await
        .unwrap()
        .into_split();
    wr.write_all(b"create Ann pw-Ann-moot\r\n").await.unwrap();
    let mut rd = BufReader::new(rd);
    let mut line = Vec::new();
    let mut read_until = async |needle: &[u8]| loop {
        line.clear();
        let n = rd.read_until(b'\n', &mut line).await.unwrap();
        assert!(n > 0, "closed");
        if line.windows(needle.len()).any(|w| w == needle) {
            return;
        }
    };
    read_until(b"Exits:").await;
    let heard = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flooding = heard.clone();
    let flood = tokio::spawn(async move {
        while !flooding.load(std::sync::atomic::Ordering::Relaxed) {
            if wr.write_all(&b"\r\n".repeat(4096)).await.is_err() {
                break;
            }
        }
    });
    let mut bob = s.player("Bob").await;
    bob.send("say over the noise").await;
    bob.expect("You say, \"over the noise\"").await;
    let got = tokio::time::timeout(
        Duration::from_secs(10),
        read_until(b"Bob says, \"over the noise\""),
    )
    .await;
    heard.store(true, std::sync::atomic::Ordering::Relaxed);
    flood.await.unwrap();
    assert!(
        got.is_ok(),
        "Ann never heard Bob while she sent blank lines"
    );
}

#[tokio::test]
async fn past_the_connection_limit_a_newcomer_is_turned_away() {
    let s = TestServer::start_with(|c| c.max_connections = 2).await;
    let mut a = s.client().await;
    let mut b = s.client().await;
    a.expect("quit").await;
    b.expect("quit").await;
    let mut c = s.client().await;
    assert_eq!(
        c.until_closed().await,
        ["*** Sorry, moot is full right now. Please try again later. ***"]
    );
    drop(a);
    // Once one leaves there is room again.
    let mut tries = 0;
    loop {
        let mut d = s.client().await;
        let first = d.line().await.unwrap();
        if first == "moot" {
            break;
        }
        tries += 1;
        assert!(tries < 50, "never got back in");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `help` and each of its pages fit a 24-line terminal of 80 columns as telnet sends them
/// (with the line typed still on screen), name the games by the words that start them, and show
/// a person neither agents' tool names nor seeds.
#[tokio::test]
async fn help_fits_a_screen_and_names_the_games_and_no_agents_tools() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    // As a terminal shows it: wrapped at 79 columns.
    ann.command("@wrap on").await;
    let tools = [
        "createGame",
        "finishTurn",
        "session_act",
        "blackjack_deal",
        "waitForNextTurn",
    ];
    let pages = [
        "help",
        "help basics",
        "help games",
        "help chess",
        "help blackjack",
        "help cards",
        "help werewolf",
        "help rps",
        "help tictactoe",
        "help connect4",
        "help agents",
        "help wizards",
        "help screen",
        "help building",
    ];
    for page in pages {
        let rows = ann.command(page).await;
        assert!(rows.len() <= 22, "{page}: {} rows: {rows:#?}", rows.len());
        for row in &rows {
            assert!(row.chars().count() <= 79, "{page}: {row:?}");
            assert!(!row.contains("seed"), "{page}: {row:?}");
            for tool in tools {
                assert!(!row.contains(tool), "{page} names {tool}: {row:?}");
            }
            assert!(!row.contains("@boot"), "{page}: {row:?}");
        }
    }
    let help = ann.command("help").await.join("\n");
    for word in [
        "rps",
        "tictactoe",
        "connect4",
        "chess",
        "blackjack",
        "werewolf",
        "`play rps with house`",
        "`challenge computer`",
        "`werewolf practice`",
    ] {
        assert!(help.contains(word), "help lacks {word}: {help}");
    }
    // Each game of the tables has its own page, by its word or its name.
    let rps = ann.command("help rps").await;
    assert!(rps[0].starts_with("Rock-paper-scissors (`rps`)"), "{rps:?}");
    assert!(rps.iter().any(|l| l.contains("choose rock|paper|scissors")));
    assert_eq!(ann.command("help rock-paper-scissors").await, rps);
    let c4 = ann.command("help Connect Four").await;
    assert!(c4.iter().any(|l| l.contains("drop <1-7>")), "{c4:?}");
    assert_ne!(ann.command("help tictactoe").await, rps);
    let games = ann.command("help games").await.join("\n");
    assert!(
        games.contains("rps (rock-paper-scissors)") && games.contains("connect4"),
        "{games}"
    );
    // The rules are a command away, not on the page.
    let ww = ann.command("help werewolf").await;
    assert!(ww.last().unwrap().contains("`werewolf rules`"), "{ww:?}");
    // A connection's own commands have help as `help basics` lists them (it once had none),
    // and a verb's usage is not named again as its alias (`Also: @dig` under `@dig`).
    assert_eq!(
        ann.command("help @quit").await,
        ["@quit, QUIT: Leave moot. (typed on a telnet connection)"]
    );
    // Each of a command's names finds it (`help OUTPUTPREFIX` once found nothing).
    assert_eq!(
        ann.command("help OUTPUTPREFIX").await.join(" "),
        "PREFIX, OUTPUTPREFIX <text>: Print <text> before each command's output. \
(typed on a telnet connection)"
    );
    // A signpost is read (`read signpost` once suggested Werewolf's `ready`).
    let read = ann.command("read signpost").await;
    assert!(
        read.iter().any(|l| l.contains("Painted arrows point")),
        "{read:?}"
    );
    // Other MUDs' habits: `exits` says the ways out, `score` is `ratings` (each once said
    // "I don't understand that.").
    let exits = ann.command("exits").await.join(" ");
    assert_eq!(
        exits,
        "Exits: north (Town Hall), east (Chess Parlour), west (Card Room), south (Game Room)."
    );
    assert_eq!(ann.command("score").await, ann.command("ratings").await);
    let dig = ann.command("help @dig").await;
    assert!(dig[0].starts_with("Usage: @dig"), "{dig:?}");
    assert!(!dig.iter().any(|l| l.starts_with("Also:")), "{dig:?}");
    s.stop().await;
}

#[tokio::test]
async fn look_examine_describe_help_and_home() {
    let s = TestServer::start().await;
    let mut ann = s.player("Ann").await;
    let look = ann.command("l").await;
    assert_eq!(look[0], "Town Square");
    assert!(
        look.contains(&"You see a stone fountain and a signpost here.".to_owned()),
        "{look:?}"
    );
    assert_eq!(
        look.last().unwrap(),
        "Exits: north (Town Hall), east (Chess Parlour), west (Card Room), south (Game Room)."
    );
    let fountain = ann.command("look at fountain").await;
    assert_eq!(fountain[0], "A stone fountain");
    let x = ann.command("x sign").await;
    assert_eq!(x[0], "A signpost");
    assert_eq!(x[1], "Also called: sign and post.");
    assert_eq!(x.last().unwrap(), "Verbs: look, examine.");
    assert_eq!(
        ann.command("look unicorn").await,
        ["I see no \"unicorn\" here."]
    );
    assert_eq!(ann.command("examine").await, ["Usage: examine <thing>"]);

    assert_eq!(
        ann.command("@describe me as A woman in a green coat.")
            .await,
        ["Description set."]
    );
    assert_eq!(
        ann.command("look me").await,
        ["Ann", "A woman in a green coat."]
    );
    assert_eq!(
        ann.command("@describe Bob as a fool").await,
        ["You may describe only yourself: `@describe me as <text>`."]
    );

    let help = ann.command("help basics").await;
    for verb in [
        "look",
        "go",
        "say",
        "emote",
        "page",
        "whisper",
        "who",
        "inventory",
        "examine",
        "home",
        "@describe",
        "help",
    ] {
        assert!(
            help.iter().any(|l| l.trim_start().starts_with(verb)),
            "help lacks {verb}: {help:?}"
        );
    }
    assert!(help.iter().any(|l| l.contains("PREFIX")));
    assert_eq!(
        ann.command("help whisper").await[0],
        "Usage: whisper <text> to <name>"
    );
    assert_eq!(
        ann.command("help frob").await,
        ["Sorry, but no help is available on \"frob\". `help` lists the topics."]
    );

    ann.send("e").await;
    ann.expect("Chess Parlour").await;
    let home = ann.command("home").await;
    assert_eq!(home[0], "You click your heels three times.");
    assert_eq!(home[1], "Town Square");
    assert_eq!(ann.command("home").await, ["You are already home."]);
}

#[tokio::test]
async fn a_restart_keeps_characters_descriptions_and_locations() {
    let s = TestServer::start().await;
    let db = s.db.clone();
    let mut ann = s.player("Ann").await;
    ann.send("@describe me as Freckled and cheerful.").await;
    ann.expect("Description set.").await;
    ann.send("south").await;
    ann.expect("Game Room").await;
    let dir = s.stop().await;
    assert_eq!(
        ann.until_closed().await.last().unwrap(),
        "*** moot is shutting down. Goodbye! ***"
    );

    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.client().await;
    ann.expect("quit").await;
    ann.send("connect Ann pw-Ann-moot").await;
    assert_eq!(ann.line().await.unwrap(), "*** Connected ***");
    assert_eq!(ann.line().await.unwrap(), "Game Room");
    ann.expect("Exits:").await;
    assert_eq!(
        ann.command("look me").await,
        ["Ann", "Freckled and cheerful."]
    );
    let mut again = Client::connect(s.addr).await;
    again.expect("quit").await;
    again.send("create ann another-password").await;
    again.expect("already in use").await;
    s.stop().await;
    drop(dir);
}

/// A crowd arriving at once (a town's MUD clients reconnecting after a restart) waits in the
/// kernel's queue while moot is busy, rather than having its handshakes dropped. The listener
/// held 128 (a listener's usual queue): the rest of a crowd of 500 waited a second for a
/// retried handshake, and the load benchmark saw resets. moot is stopped (SIGSTOP) while the
/// crowd connects, so none is accepted before the queue is full.
#[tokio::test]
async fn a_crowd_connecting_while_moot_is_busy_is_queued_not_dropped() {
    use crate::support::{free_port, spawn_moot};
    const CROWD: usize = 300;
    let dir = tempfile::tempdir().unwrap();
    let http: std::net::SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let telnet: std::net::SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let telnet_arg = telnet.to_string();
    let moot = spawn_moot(
        &crate::support::fresh_db(dir.path()),
        http,
        &["--telnet", &telnet_arg],
    )
    .await;
    let signal = |sig: &str| {
        let ok = std::process::Command::new("kill")
            .args([sig, &moot.id().to_string()])
            .status()
            .unwrap()
            .success();
        assert!(ok, "kill {sig}");
    };
    signal("-STOP");
    // A handshake the kernel queues completes at once; a dropped one is retried after a
    // second, far past this wait.
    let mut connects = tokio::task::JoinSet::new();
    for _ in 0..CROWD {
        connects.spawn(tokio::time::timeout(
            Duration::from_millis(500),
            tokio::net::TcpStream::connect(telnet),
        ));
    }
    let streams: Vec<_> = connects.join_all().await;
    let queued = streams.iter().filter(|s| matches!(s, Ok(Ok(_)))).count();
    signal("-CONT");
    assert_eq!(queued, CROWD, "connections queued while moot was stopped");
    // Each is then welcomed.
    let mut welcomes = tokio::task::JoinSet::new();
    for mut s in streams.into_iter().flatten().flatten() {
        welcomes.spawn(async move {
            use tokio::io::AsyncReadExt;
            let mut first = [0u8; 64];
            let read = tokio::time::timeout(Duration::from_secs(20), s.read(&mut first)).await;
            matches!(read, Ok(Ok(n)) if n > 0)
        });
    }
    let welcomed = welcomes.join_all().await.into_iter().filter(|w| *w).count();
    assert_eq!(welcomed, CROWD);
}
