//! Programming the town from inside, as a LambdaCore programmer does: verbs added to things one
//! owns, code typed line by line (or given in one MCP call), listed with its versions, run by
//! anyone who types them, and a sandbox that holds: limits that stop a runaway, `@kill`, a run
//! that fails leaving nothing, and lines that cannot pose as the narrator.

use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::support::{Client, TestServer, mcp_tool};

const MOOT: &str = env!("CARGO_BIN_EXE_moot");

/// `name`, a builder and a programmer from the operator, logged in again, wrapping off.
async fn programmer(s: &TestServer, name: &str) -> Client {
    let mut c = s.player(name).await;
    s.admin("builder", name);
    s.admin("programmer", name);
    c.send("@quit").await;
    c.until_closed().await;
    s.again(name).await
}

const SWITCH: &[&str] = &[
    "let lit = this[\"lit\"] == \"yes\";",
    "this[\"lit\"] = if lit { \"no\" } else { \"yes\" };",
    "if lit {",
    "    say(player.name + \" switches the lamp off.\");",
    "} else {",
    "    say(player.name + \" switches the lamp on; it glows.\");",
    "}",
];

#[tokio::test]
async fn a_programmer_gives_a_thing_a_verb_that_anyone_here_runs_and_it_outlives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = programmer(&s, "Ann").await;
    let mut bob = s.player("Bob").await;
    assert_eq!(
        ann.command("@create a brass lamp").await,
        ["You make a brass lamp (#1000)."]
    );
    assert_eq!(
        bob.command("@verb lamp switch").await,
        ["Only programmers may do that; a wizard can make you one."]
    );
    assert_eq!(
        ann.command("@verb lamp 9lives").await,
        [
            "\"9lives\" cannot be a verb's name: one word of lowercase letters, digits and _, at most 20."
        ]
    );
    assert_eq!(
        ann.command("@verb lamp switch").await,
        ["#1000 has a verb switch now; `@program #1000:switch` gives it code."]
    );
    // Code typed line by line, up to a `.` alone; nobody hears the lines meanwhile.
    assert_eq!(
        ann.command("@program #1000:switch").await,
        [
            "Now programming #1000:switch. Type its code; a `.` alone on a line ends it, `@abort` gives up."
        ]
    );
    for line in SWITCH {
        assert_eq!(ann.command(line).await, Vec::<String>::new());
    }
    assert_eq!(
        ann.command(".").await,
        ["#1000:switch is stored as version 1."]
    );
    // Anyone here types it: `switch lamp`.
    bob.send("switch lamp").await;
    bob.expect("Bob switches the lamp on; it glows.").await;
    ann.expect("Bob switches the lamp on; it glows.").await;
    let examined = ann.command("examine lamp").await;
    assert!(
        examined.contains(&"  .lit = \"yes\"".to_owned())
            && examined.contains(&"Verbs: look, examine, switch.".to_owned()),
        "{examined:?}"
    );
    // Undescribed, it says so, as a person does (it was an empty line).
    assert!(
        examined.contains(&"You see nothing special.".to_owned())
            && !examined.iter().any(|l| l.trim().is_empty()),
        "{examined:?}"
    );
    bob.send("switch lamp").await;
    bob.expect("Bob switches the lamp off.").await;
    // Code that does not compile is refused, and the verb keeps its code.
    let refused = ann.command("@program #1000:switch say(\"oops\"").await;
    assert!(
        refused[0].starts_with("That does not compile:"),
        "{refused:?}"
    );
    // One line in one command, and the versions listed.
    assert_eq!(
        ann.command("@program #1000:switch say(\"Click.\");").await,
        ["#1000:switch is stored as version 2."]
    );
    assert_eq!(
        bob.command("@list #1000:switch").await,
        [
            "#1000:switch, version 2 (of 0, 1, 2), by Ann:",
            "  1: say(\"Click.\");"
        ]
    );
    let old = bob.command("@list #1000:switch 1").await;
    assert_eq!(old[0], "#1000:switch, version 1 (of 0, 1, 2), by Ann:");
    assert_eq!(old.len(), SWITCH.len() + 1, "{old:?}");
    assert_eq!(old[1], format!("  1: {}", SWITCH[0]));
    // After a restart the verb, its versions and the lamp's state are all there.
    drop(ann);
    drop(bob);
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut bob = s.again("Bob").await;
    bob.send("switch lamp").await;
    bob.expect("Click.").await;
    // A thing's verbs go with it: carried, it is switched all the same.
    assert_eq!(bob.command("take lamp").await, ["You take a brass lamp."]);
    bob.send("switch lamp").await;
    bob.expect("Click.").await;
    assert_eq!(
        bob.command("@list #1000:switch").await[0],
        "#1000:switch, version 2 (of 0, 1, 2), by Ann:"
    );
    drop(dir2);
}

#[tokio::test]
async fn the_sandbox_stops_a_runaway_and_a_failed_run_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |c| {
        c.verb_time = Duration::from_secs(60).into();
        c.verb_ops = 1_000_000_000;
    })
    .await;
    let mut ann = programmer(&s, "Ann").await;
    let mut bob = s.player("Bob").await;
    ann.command("@create a wind-up toy").await;
    ann.command("@verb toy spin").await;
    ann.command("@program toy:spin let n = 0; loop { n += 1; }")
        .await;
    // While it spins, the town answers everyone else; `@kill` stops it, and it did nothing.
    bob.send("spin toy").await;
    let looked = bob.command("look").await;
    assert_eq!(looked[0], "Town Square", "{looked:?}");
    let who = ann.command("who").await;
    assert!(who.iter().any(|l| l.contains("Bob")), "{who:?}");
    assert_eq!(
        ann.command("@kill").await,
        ["One run is stopped; it does nothing."]
    );
    bob.expect("[#1000:spin did nothing: it was killed.]").await;
    ann.expect("[Your #1000:spin, typed by Bob, did nothing: it was killed.]")
        .await;
    assert_eq!(
        ann.command("@kill").await,
        ["None of your verbs is running."]
    );
    drop(ann);
    drop(bob);
    s.stop().await;

    // With the default limits: operations, depth and memory, each stops its runaway.
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.again("Ann").await;
    let mut bob = s.again("Bob").await;
    let fingerprint = s.fingerprint().await;
    let cases = [
        (
            "let n = 0; loop { n += 1; }",
            "it took more than 100000 operations",
        ),
        (
            "fn f(n) { f(n + 1) } f(0);",
            "its calls went deeper than 32",
        ),
        (
            "let s = \"xx\"; loop { s += s; }",
            "grew past its limit (65536 bytes)",
        ),
        // One change: what it set before it failed is not kept, nor said.
        (
            "this[\"wound\"] = \"yes\"; say(\"Whirr.\"); throw \"the spring snaps\";",
            "it failed: the spring snaps",
        ),
        // It acts with its owner's rights: the Town Square's fountain is not Ann's.
        (
            "say(\"Splash.\"); for t in here.contents { if t.kind == \"thing\" && t != this { t[\"wet\"] = \"yes\"; } }",
            "is not this verb's owner's to change",
        ),
    ];
    for (code, why) in cases {
        let stored = ann.command(&format!("@program toy:spin {code}")).await;
        assert!(stored[0].contains("is stored as version"), "{stored:?}");
        bob.send("spin toy").await;
        let heard = bob.expect("[#1000:spin did nothing:").await;
        let last = heard.last().unwrap();
        assert!(last.contains(why), "{code}: {heard:?}");
        assert!(
            !heard
                .iter()
                .any(|l| l.contains("Whirr") || l.contains("Splash")),
            "{heard:?}"
        );
    }
    // Nothing any of them did stayed: every room, exit and thing is as it was, the toy's
    // properties too.
    assert_eq!(s.fingerprint().await["map"], fingerprint["map"]);
    // Its lines never pose as the narrator or an out-of-band line.
    ann.command("@program toy:spin say(\"*** Shutting down ***\"); say(\"#$#mcp-cord\");")
        .await;
    bob.send("spin toy").await;
    bob.expect("  *** Shutting down ***").await;
    let next = bob.expect("mcp-cord").await;
    assert!(!next.last().unwrap().starts_with("#$#"), "{next:?}");
}

#[tokio::test]
async fn an_agent_programs_through_mcp_and_another_runs_the_verb_there() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let ada = s.api().agent(Some("Ada")).await;
    let eve = s.api().agent(Some("Eve")).await;
    s.admin("builder", "ada");
    s.admin("programmer", "ada");
    let made = mcp_tool(s.http, &ada.token, "create", json!({ "name": "a bell" })).await;
    assert_eq!(made["structuredContent"]["thing"], 1000, "{made}");
    let refused = mcp_tool(
        s.http,
        &eve.token,
        "verb",
        json!({ "object": "#1000", "name": "ring" }),
    )
    .await;
    assert_eq!(refused["isError"], true, "{refused}");
    let added = mcp_tool(
        s.http,
        &ada.token,
        "verb",
        json!({ "object": "#1000", "name": "ring" }),
    )
    .await;
    assert_eq!(added["structuredContent"]["object"], 1000, "{added}");
    let code = "let n = parse_int(this[\"rung\"] ?? \"0\") + 1;\nthis[\"rung\"] = n;\nsay(\"Ding! (\" + n + \")\");\ntell(player, \"Your hand tingles.\");";
    let programmed = mcp_tool(
        s.http,
        &ada.token,
        "program",
        json!({ "verb": "#1000:ring", "code": code }),
    )
    .await;
    assert_eq!(
        programmed["structuredContent"]["version"], 1,
        "{programmed}"
    );
    // Eve runs it with the tool naming the object, the verb and its words.
    let ran = mcp_tool(
        s.http,
        &eve.token,
        "run",
        json!({ "object": "bell", "verb": "ring" }),
    )
    .await;
    assert_eq!(ran["structuredContent"]["object"], 1000, "{ran}");
    // What it did reaches her as events, once stored.
    let mut heard = String::new();
    for _ in 0..50 {
        let events = mcp_tool(s.http, &eve.token, "events", json!({})).await;
        heard.push_str(&events.to_string());
        if heard.contains("Your hand tingles.") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        heard.contains("Ding! (1)") && heard.contains("Your hand tingles."),
        "{heard}"
    );
    let listed = mcp_tool(s.http, &eve.token, "list", json!({ "verb": "#1000:ring" })).await;
    assert_eq!(listed["structuredContent"]["code"], code, "{listed}");
    let looked = mcp_tool(s.http, &eve.token, "examine", json!({ "target": "bell" })).await;
    assert!(looked.to_string().contains("rung"), "{looked}");
}

/// The example in `world/`: the Tinkers' Workshop, off the Card Room, whose lamp is switched
/// and whose notice board keeps notes, by verbs the world files give them; what they keep
/// outlives a restart (the town's own objects' properties, stored as they change).
#[tokio::test]
async fn the_workshops_lamp_and_notice_board_work_and_keep_what_they_were_told() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    for c in [&mut ann, &mut bob] {
        c.command("west").await;
        assert_eq!(c.command("north").await[0], "The Tinkers' Workshop");
    }
    ann.send("switch lamp").await;
    bob.expect("Ann switches the lamp on; warm light fills the workshop.")
        .await;
    ann.send("read board").await;
    ann.expect("The board is bare; `write <words> on board` pins a note.")
        .await;
    // Named by the words that end its name ("a cork notice board"), as `read` names it (it
    // once was not found).
    let examined = ann.command("examine notice board").await;
    assert_eq!(examined[0], "A cork notice board", "{examined:?}");
    ann.send("write meet me at the fountain on board").await;
    ann.expect("You pin your note to the board.").await;
    bob.expect("Ann pins a note to the board.").await;
    bob.send("read board").await;
    bob.expect("Pinned to the board:").await;
    bob.expect("  1. Ann: meet me at the fountain").await;
    let listed = ann.command("@list lamp:switch").await;
    assert!(
        listed[0].ends_with(":switch, version 1 (of 1), by the town's files:"),
        "{listed:?}"
    );
    assert_eq!(
        ann.command("@program lamp:switch say(\"mine\");").await,
        ["Only programmers may do that; a wizard can make you one."]
    );
    drop((ann, bob));
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut cid = s.player("Cid").await;
    cid.command("west").await;
    cid.command("north").await;
    let lamp = cid.command("examine lamp").await;
    assert!(lamp.contains(&"  .lit = \"yes\"".to_owned()), "{lamp:?}");
    cid.send("read board").await;
    cid.expect("  1. Ann: meet me at the fountain").await;
    drop((dir, dir2));
}

/// What was built and programmed is written out by `moot world export` as world files, which
/// serve a new town (a fresh database) with all of it there, its verbs running as the town's.
#[tokio::test]
async fn a_built_and_programmed_town_exports_as_files_and_serves_again() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.player("Ann").await;
    s.admin("grant", "Ann");
    ann.send("@quit").await;
    ann.until_closed().await;
    let mut ann = s.again("Ann").await;
    ann.command("@dig up|down to The Loft").await;
    ann.command("up").await;
    ann.command("@create a rusty lever").await;
    ann.command("@set lever.pulled to 0").await;
    ann.command("@verb lever pull").await;
    ann.command(
        "@program lever:pull this[\"pulled\"] = parse_int(this[\"pulled\"]) + 1; say(\"Clunk! (\" + this[\"pulled\"] + \")\");",
    )
    .await;
    drop(ann);
    let db_address = s.db.address();
    let dir2 = s.stop().await;
    let out = Command::new(MOOT)
        .args(["--db", &db_address, "world", "export"])
        .arg(dir.path().join("town"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("with what was built in"),
        "{out:?}"
    );
    let town = dir.path().join("town");
    let fresh = tempfile::tempdir().unwrap();
    let fresh_db = crate::support::fresh_db(fresh.path());
    let s = TestServer::on_db(&fresh_db, |c| c.world = Some(town.clone())).await;
    let mut bob = s.player("Bob").await;
    assert_eq!(bob.command("up").await[0], "The Loft");
    bob.send("pull lever").await;
    bob.expect("Clunk! (1)").await;
    assert!(bob.command("@list lever:pull").await[0].ends_with("by the town's files:"),);
    drop((dir2, fresh));
}

/// LambdaCore's verb bits: `-r` hides a verb's code from everyone but its owner (and the
/// wizards), who may still run it; `-x` keeps it to its owner: to others it is no verb at
/// all, neither typed, run by name, nor listed by `examine`. A new version keeps the bits, and
/// so does a restart; only the owner sets them.
#[tokio::test]
async fn a_verbs_r_and_x_bits_hide_its_code_and_keep_it_to_its_owner() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = programmer(&s, "Ann").await;
    let mut bob = programmer(&s, "Bob").await;
    assert_eq!(
        ann.command("@create a music box").await,
        ["You make a music box (#1000)."]
    );
    ann.command("@verb box tune").await;
    ann.command("@program box:tune say(\"Hum.\");").await;
    assert_eq!(
        bob.command("@chmod box:tune").await,
        ["#1000:tune is rx: anyone may read its code, and anyone here may run it."]
    );
    assert_eq!(
        bob.command("@list box:tune").await[1],
        "  1: say(\"Hum.\");"
    );
    // Bits that are not a verb's, or not an object's, are refused with the way to say it.
    assert_eq!(
        ann.command("@chmod box:tune +w").await,
        ["A verb's bits are r and x; w is its object's (`@chmod lamp +w`)."]
    );
    assert_eq!(
        ann.command("@chmod box -x").await,
        ["r and x are a verb's bits: name it as <object>:<verb> (`@chmod lamp:tune -x`)."]
    );
    // Only its owner sets them.
    assert_eq!(
        bob.command("@chmod box:tune -r").await,
        ["That is not yours to program."]
    );
    assert_eq!(
        ann.command("@chmod box:tune -r").await,
        ["#1000:tune is x: only its owner reads its code, and anyone here may run it."]
    );
    assert_eq!(
        bob.command("@list box:tune").await,
        ["#1000:tune's code is its owner's to read (it is -r); you may run it."]
    );
    assert_eq!(
        ann.command("@list box:tune").await[1],
        "  1: say(\"Hum.\");"
    );
    bob.send("tune box").await;
    bob.expect("Hum.").await;
    ann.expect("Hum.").await;
    assert_eq!(
        ann.command("@chmod #1000:tune -x").await,
        ["#1000:tune is none: only its owner reads its code, and only its owner runs it."]
    );
    // A new version keeps the bits.
    ann.command("@program box:tune say(\"Hum hum.\");").await;
    kept_from(&mut bob).await;
    let examined = ann.command("examine box").await;
    assert!(
        examined.contains(&"Verbs: look, examine, tune.".to_owned()),
        "{examined:?}"
    );
    ann.send("tune box").await;
    ann.expect("Hum hum.").await;
    // After a restart the bits hold, until the owner opens the verb again.
    drop((ann, bob));
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut bob = s.again("Bob").await;
    let mut ann = s.again("Ann").await;
    kept_from(&mut bob).await;
    assert_eq!(
        ann.command("@chmod box:tune +rx").await,
        ["#1000:tune is rx: anyone may read its code, and anyone here may run it."]
    );
    bob.send("tune box").await;
    bob.expect("Hum hum.").await;
    // Bits said twice: the last said wins.
    assert_eq!(
        ann.command("@chmod box:tune -x +x").await,
        ["#1000:tune is rx: anyone may read its code, and anyone here may run it."]
    );
    // `-x` alone: Bob reads the code but may not run it.
    assert_eq!(
        ann.command("@chmod box:tune -x").await,
        ["#1000:tune is r: anyone may read its code, and only its owner runs it."]
    );
    assert_eq!(
        bob.command("@list box:tune").await[1],
        "  1: say(\"Hum hum.\");"
    );
    assert_eq!(
        bob.command("run box tune").await,
        ["There is no verb tune on box here."]
    );
    // Writable, the box is Bob's to change too, but not a verb whose code is hidden from him,
    // and one kept from him is not there to rewrite, nor to ask the bits of.
    ann.command("@chmod box +w").await;
    ann.command("@chmod box:tune -r +x").await;
    assert_eq!(
        bob.command("@program box:tune say(\"mine\");").await,
        ["#1000:tune's code is its owner's (it is -r): only they rewrite it."]
    );
    ann.command("@chmod box:tune -x").await;
    let none = ["#1000 has no verb called tune: `@verb #1000 tune` adds it."];
    assert_eq!(bob.command("@program box:tune say(\"mine\");").await, none);
    assert_eq!(bob.command("@program box:tune").await, none);
    assert_eq!(
        bob.command("@chmod box:tune").await,
        ["#1000 has no verb called tune."]
    );
    ann.send("tune box").await;
    ann.expect("Hum hum.").await;
    drop(dir2);
}

/// What `bob` sees of the music box's `tune` once it is `-x`: no verb.
async fn kept_from(bob: &mut Client) {
    let typed = bob.command("tune box").await;
    assert!(!typed.iter().any(|l| l.contains("Hum")), "{typed:?}");
    assert_eq!(
        bob.command("run box tune").await,
        ["There is no verb tune on box here."]
    );
    assert_eq!(
        bob.command("@list #1000:tune").await,
        ["#1000 has no verb called tune."]
    );
    let examined = bob.command("examine box").await;
    assert!(
        examined.contains(&"Verbs: look, examine.".to_owned()),
        "{examined:?}"
    );
}

/// A programmer playing in a Werewolf match is kept from the town's verbs, their own among
/// them, and told so as themself (they were once told that they could not hear themself).
#[tokio::test]
async fn a_player_in_a_werewolf_match_is_told_their_own_verbs_wait() {
    let s = TestServer::start_with(|c| c.time_scale = 1.0).await;
    let mut ann = programmer(&s, "Ann").await;
    assert_eq!(
        ann.command("@create a brass lamp").await,
        ["You make a brass lamp (#1000)."]
    );
    ann.command("@verb lamp rub").await;
    ann.command("@program #1000:rub").await;
    ann.command("tell(player, \"The lamp is warm.\");").await;
    assert_eq!(
        ann.command(".").await,
        ["#1000:rub is stored as version 1."]
    );
    assert_eq!(ann.command("take lamp").await, ["You take a brass lamp."]);
    ann.send("rub lamp").await;
    ann.expect("The lamp is warm.").await;
    ann.command("north").await;
    ann.send("werewolf practice").await;
    ann.expect("begins: you and seven house bots").await;
    assert_eq!(
        ann.command("rub lamp").await,
        ["You are playing Werewolf; the town's verbs wait until the match ends."]
    );
    s.stop().await;
}
