//! Building the town from inside, as a LambdaCore builder does: the builder's bit from the
//! operator, rooms dug with exits both ways, things made and described, objects by number, and
//! all of it stored: it is there after a restart, and what a refused command tried is not.

use std::process::Command;

use serde_json::{Value, json};

use crate::support::{Client, TestServer, mcp_tool};

const MOOT: &str = env!("CARGO_BIN_EXE_moot");

/// `name`, made a builder by the operator and logged in again (the bit holds from the next
/// login), wrapping off.
async fn builder(s: &TestServer, name: &str) -> Client {
    let mut c = s.player(name).await;
    let out = Command::new(MOOT)
        .args(["--db", &s.db.address(), "admin", "builder", name])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    c.send("@quit").await;
    c.until_closed().await;
    s.again(name).await
}

#[tokio::test]
async fn a_builder_digs_and_makes_things_and_they_outlive_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    assert_eq!(
        ann.command("@dig The Garden").await,
        ["Only builders may do that; a wizard can make you one."]
    );
    // The operator lets Ann build; it holds from her next login.
    let out = Command::new(MOOT)
        .args(["--db", &db.address(), "admin", "builder", "ann"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "Ann may build now (from their next login)."
    );
    ann.send("@quit").await;
    ann.until_closed().await;
    let mut ann = s.again("Ann").await;
    // The Town Square is the wizards': no exit of hers may start there.
    assert_eq!(
        ann.command("@dig north to The Garden").await,
        ["You may open exits only from rooms you own."]
    );
    // A half-typed exit makes no room called "to" (it once did).
    for half in ["@dig to", "@dig north to", "@dig to The Garden"] {
        assert_eq!(
            ann.command(half).await,
            [
                "Name the exit before `to` and the room after it (`@dig north to The Garden`), \
or give only the room's name (`@dig The Garden`)."
            ],
            "{half}"
        );
    }
    assert_eq!(
        ann.command("@dig The Workshop").await,
        ["The Workshop (#1000) is dug."]
    );
    ann.command("@go #1000").await;
    bob.expect("Ann vanishes.").await;
    assert_eq!(
        ann.command("@dig north,n|south,s to The Garden").await,
        [
            "The Garden (#1001) is dug.",
            "Exit north (#1002) leads from The Workshop to The Garden.",
            "Exit south (#1003) leads back from The Garden to The Workshop."
        ]
    );
    assert_eq!(
        ann.command("@dig n to Elsewhere").await,
        ["The Workshop already has an exit called \"n\"."]
    );
    ann.command("n").await;
    assert_eq!(
        ann.command("@describe here as Roses climb the old brick walls.")
            .await,
        ["Description set."]
    );
    assert_eq!(
        ann.command("@create a brass lamp").await,
        ["You make a brass lamp (#1004)."]
    );
    // A builder's words never begin a line as the narrator or a notice would.
    ann.command("@describe lamp as *** Shutting down now ***")
        .await;
    assert_eq!(
        ann.command("look lamp").await,
        ["A brass lamp", "  *** Shutting down now ***"]
    );
    assert_eq!(
        ann.command("@describe lamp as A lamp of dull brass.").await,
        ["Description set."]
    );
    assert_eq!(
        ann.command("look #1004").await,
        ["A brass lamp", "A lamp of dull brass."]
    );
    // Properties: set, shown by `examine` with the object's number and builder, removed.
    assert_eq!(
        ann.command("@set lamp.colour to brass").await,
        ["#1004.colour is now \"brass\"."]
    );
    assert_eq!(
        ann.command("@set #1004.lit to no").await,
        ["#1004.lit is now \"no\"."]
    );
    assert_eq!(
        ann.command("@set lamp.lit to").await,
        ["#1004.lit is gone."]
    );
    let examined = ann.command("examine lamp").await;
    assert!(
        examined.contains(&"Number #1004, built by Ann.".to_owned())
            && examined.contains(&"  .colour = \"brass\"".to_owned())
            && !examined.iter().any(|l| l.contains(".lit")),
        "{examined:?}"
    );
    assert_eq!(
        ann.command("@set lamp.9lives to x").await,
        [
            "\"9lives\" cannot be a property's name: a letter, then letters, digits or `_`, 32 at most."
        ]
    );
    // What the town's files made is theirs to change, and another's things are theirs.
    assert_eq!(
        ann.command("@describe #1 as Mine now.").await,
        ["That is not yours to change."]
    );
    let audit = ann.command("@audit").await;
    assert_eq!(
        audit,
        [
            "#1000 The Workshop (a room)",
            "#1001 The Garden (a room)",
            "#1002 north (an exit in The Workshop)",
            "#1003 south (an exit in The Garden)",
            "#1004 a brass lamp (a thing in The Garden)",
            "5 objects."
        ]
    );
    // After a restart, everything she built is where she left it, and she too.
    ann.send("@quit").await;
    ann.until_closed().await;
    drop(bob);
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.again("Ann").await;
    let here = ann.command("look").await;
    assert_eq!(here[0], "The Garden", "{here:?}");
    assert_eq!(here[1], "Roses climb the old brick walls.");
    assert!(
        here.iter().any(|l| l == "You see a brass lamp here."),
        "{here:?}"
    );
    assert!(
        here.iter()
            .any(|l| l.starts_with("Exits: south (The Workshop)")),
        "{here:?}"
    );
    assert_eq!(ann.command("@audit").await, audit);
    let examined = ann.command("examine lamp").await;
    assert!(
        examined.contains(&"  .colour = \"brass\"".to_owned()),
        "{examined:?}"
    );
    ann.command("s").await;
    assert_eq!(ann.command("look").await[0], "The Workshop");
    // Someone who does not build describes only themselves.
    let mut bob = s.again("Bob").await;
    assert_eq!(
        bob.command("@describe #1004 as Bob's lamp.").await,
        ["You may describe only yourself: `@describe me as <text>`."]
    );
    // Renamed, an exit opened and closed, and a room recycled with its exits and her lamp.
    assert_eq!(
        ann.command("@rename #1004 to a silver lamp").await,
        ["It is called a silver lamp now."]
    );
    assert_eq!(
        ann.command("@open east,e to #1001").await,
        ["Exit east (#1005) leads from The Workshop to The Garden."]
    );
    assert_eq!(
        ann.command("@close east").await,
        ["Exit east (#1005) is recycled."]
    );
    assert_eq!(
        ann.command("@recycle #1001").await,
        ["The Garden (#1001) is recycled, with its exits."]
    );
    let here = ann.command("look").await;
    assert!(
        here.iter().any(|l| l == "There are no obvious exits."),
        "{here:?}"
    );
    assert_eq!(
        ann.command("@audit").await,
        ["#1000 The Workshop (a room)", "One object."]
    );
    assert_eq!(
        ann.command("@recycle #1").await,
        ["That is part of the town's own files: it cannot be recycled."]
    );
    s.stop().await;
    drop((dir, dir2));
}

/// An agent builds through the builders' tools (`/mcp/build`) with its own permissions:
/// refused until the operator lets it build, then it digs, goes there and makes a thing, and
/// the town's map on the web shows the room at once.
#[tokio::test]
async fn an_agent_builds_through_mcp_and_the_town_map_shows_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let ada = s.api().agent(Some("Ada")).await;
    let eve = s.api().agent(Some("Eve")).await;
    let refused = mcp_tool(s.http, &eve.token, "dig", json!({ "room": "Eve's Den" })).await;
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["content"][0]["text"],
        "Only builders may do that; a wizard can make you one."
    );
    let out = Command::new(MOOT)
        .args(["--db", &db.address(), "admin", "builder", "ada"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let dug = mcp_tool(
        s.http,
        &ada.token,
        "dig",
        json!({ "room": "The Observatory" }),
    )
    .await;
    assert_eq!(dug["structuredContent"]["room"], 1000, "{dug}");
    let went = mcp_tool(s.http, &ada.token, "teleport", json!({ "room": "#1000" })).await;
    assert_eq!(
        went["structuredContent"]["name"], "The Observatory",
        "{went}"
    );
    let made = mcp_tool(
        s.http,
        &ada.token,
        "create",
        json!({ "name": "a brass telescope" }),
    )
    .await;
    assert_eq!(made["structuredContent"]["thing"], 1001, "{made}");
    let looked = mcp_tool(s.http, &ada.token, "look", json!({})).await;
    assert!(
        looked["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("You see a brass telescope here."),
        "{looked}"
    );
    let town: Value = reqwest::get(format!("http://{}/town.json", s.http))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        town["rooms"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "The Observatory"),
        "{town}"
    );
    // Eve, no builder, cannot describe Ada's telescope.
    let theirs = mcp_tool(
        s.http,
        &eve.token,
        "describe",
        json!({ "object": "#1001", "description": "Mine." }),
    )
    .await;
    assert_eq!(
        theirs["content"][0]["text"],
        "You may describe only yourself: `@describe me as <text>`."
    );
    s.stop().await;
}

/// A builder's quotas (`--builder-objects`, `--builder-text`) refuse clearly and make nothing;
/// what is recycled frees its share.
#[tokio::test]
async fn a_builder_is_held_to_their_quotas() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |c| {
        c.builder_objects = 3;
        c.builder_text = 120;
    })
    .await;
    let mut ann = builder(&s, "Ann").await;
    ann.command("@dig The Cellar").await;
    ann.command("@go #1000").await;
    // A room and two exits would pass three: refused whole, nothing made.
    assert_eq!(
        ann.command("@dig down,d|up,u to The Deep").await,
        ["You own 1 object, and a builder may own 3: `@recycle` one first."]
    );
    assert_eq!(ann.command("@audit").await.last().unwrap(), "One object.");
    ann.command("@create a barrel").await;
    assert_eq!(
        ann.command("@describe barrel as An oak barrel, bound in iron hoops, smelling of old ale and older secrets, stood on end, longer than anyone here remembers.").await,
        ["What you built holds 24 bytes of names and descriptions, and a builder may have 120: shorten or `@recycle` something first."]
    );
    assert_eq!(
        ann.command("@describe barrel as An oak barrel.").await,
        ["Description set."]
    );
    ann.command("@create a stool").await;
    assert_eq!(
        ann.command("@create a lantern").await,
        ["You own 3 objects, and a builder may own 3: `@recycle` one first."]
    );
    ann.command("@recycle stool").await;
    assert_eq!(
        ann.command("@create a lantern").await,
        ["You make a lantern (#1003)."]
    );
    s.stop().await;
}

/// An exit locked to one person lets them (and its owner) by and tells anyone else the way is
/// locked; the lock lasts through a restart, and unlocking opens it to all.
#[tokio::test]
async fn a_locked_exit_lets_by_only_whom_it_names() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.player("Ann").await;
    let mut bob = s.player("Bob").await;
    let mut cid = s.player("Cid").await;
    let out = Command::new(MOOT)
        .args(["--db", &db.address(), "admin", "grant", "ann"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    ann.send("@quit").await;
    ann.until_closed().await;
    // A wizard builds anywhere: an exit from the Town Square to a room of hers, and back.
    let mut ann = s.again("Ann").await;
    ann.command("@dig vault|out to The Vault").await;
    assert_eq!(
        ann.command("@lock vault to bob").await,
        ["vault (#1001) now lets by only Bob, and you."]
    );
    assert_eq!(cid.command("vault").await, ["The way vault is locked."]);
    assert_eq!(bob.command("vault").await[0], "The Vault");
    bob.command("out").await;
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut cid = s.again("Cid").await;
    assert_eq!(cid.command("go vault").await, ["The way vault is locked."]);
    let mut ann = s.again("Ann").await;
    assert_eq!(
        ann.command("@unlock vault").await,
        ["vault (#1001) is open to all."]
    );
    assert_eq!(cid.command("vault").await[0], "The Vault");
    cid.command("out").await;
    // Locked to a key, it lets by whoever carries the key.
    assert_eq!(
        ann.command("@create a brass key").await,
        ["You make a brass key (#1003)."]
    );
    assert_eq!(
        ann.command("@lock vault to key").await,
        ["vault (#1001) now lets by only whoever carries a brass key (#1003), and you."]
    );
    assert_eq!(cid.command("vault").await, ["The way vault is locked."]);
    ann.command("take key").await;
    ann.command("give key to Cid").await;
    assert_eq!(cid.command("vault").await[0], "The Vault");
    s.stop().await;
    drop((dir, dir2));
}

/// Things a builder made are picked up, put down and handed over by anyone, and stay where they
/// were left through a restart; the town's own things and tables stay put; a thing or an exit
/// locked to a key moves (or lets by) only whoever carries it, on telnet and over MCP alike.
#[tokio::test]
async fn things_are_carried_given_and_locked_to_a_key() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = builder(&s, "Ann").await;
    let mut bob = s.player("Bob").await;
    let eve = s.api().agent(Some("Eve")).await;
    assert_eq!(
        bob.command("take fountain").await,
        ["You can't take the stone fountain; it stays where it is."]
    );
    // The town's own exit is refused in `@close`'s words (once `@recycle`'s).
    assert_eq!(
        ann.command("@close north").await,
        ["That exit is part of the town's own files: it cannot be closed."]
    );
    ann.command("@create a brass lamp").await;
    ann.command("@create a small key").await;
    ann.command("@create an iron chest").await;
    assert_eq!(
        ann.command("@lock chest to key").await,
        ["an iron chest (#1002) now moves for only whoever carries a small key (#1001), and you."]
    );
    // Bob takes the lamp; the room sees it; he carries it and Ann does not see it here.
    assert_eq!(bob.command("get lamp").await, ["You take a brass lamp."]);
    ann.expect("Bob takes a brass lamp.").await;
    assert_eq!(
        bob.command("i").await,
        ["You are carrying:", "  a brass lamp"]
    );
    assert_eq!(ann.command("take lamp").await, ["I see no \"lamp\" here."]);
    // A lamp in hand and another on the floor are not one ambiguous "lamp": `take` looks on the
    // floor, `drop` and `give` in hand (they once answered "I don't know which" and "You are
    // not carrying").
    ann.command("@create an oil lamp").await;
    assert_eq!(bob.command("take lamp").await, ["You take an oil lamp."]);
    ann.expect("Bob takes an oil lamp.").await;
    let which = bob.command("drop lamp").await;
    assert!(
        which[0].starts_with("I don't know which \"lamp\" you mean."),
        "{which:?}"
    );
    assert_eq!(
        bob.command("drop oil lamp").await,
        ["You drop an oil lamp."]
    );
    ann.expect("Bob drops an oil lamp.").await;
    assert_eq!(
        bob.command("give lamp to Ann").await,
        ["You give a brass lamp to Ann."]
    );
    ann.expect("Bob gives you a brass lamp.").await;
    assert_eq!(
        ann.command("give lamp to Bob").await,
        ["You give a brass lamp to Bob."]
    );
    bob.expect("Ann gives you a brass lamp.").await;
    // An exact name in hand wins over a longer one on the floor: `take brass lamp` is had
    // already, not the brass lamp stand.
    ann.command("@create a brass lamp stand").await;
    assert_eq!(
        bob.command("take brass lamp").await,
        ["You already have that."]
    );
    assert_eq!(
        bob.command("take chest").await,
        ["An iron chest is locked in place."]
    );
    assert_eq!(bob.command("pick up key").await, ["You take a small key."]);
    assert_eq!(bob.command("take chest").await, ["You take an iron chest."]);
    // `drop 4` would be Connect Four's; `drop chest` puts it down.
    assert_eq!(bob.command("drop chest").await, ["You drop an iron chest."]);
    assert_eq!(
        bob.command("give key to Ann").await,
        ["You give a small key to Ann."]
    );
    ann.expect("Bob gives you a small key.").await;
    // Over MCP, Eve (no key) cannot take the chest, and takes what is free.
    let refused = mcp_tool(s.http, &eve.token, "take", json!({ "thing": "chest" })).await;
    assert_eq!(refused["isError"], true, "{refused}");
    // Bob walks off with the lamp; after a restart it is still his, the key Ann's.
    bob.command("north").await;
    bob.command("drop lamp").await;
    drop((ann, bob));
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.again("Ann").await;
    assert_eq!(
        ann.command("i").await,
        ["You are carrying:", "  a small key"]
    );
    let mut bob = s.again("Bob").await;
    let hall = bob.command("look").await;
    assert!(hall.iter().any(|l| l.contains("a brass lamp")), "{hall:?}");
    drop(bob);
    s.stop().await;
    drop((dir, dir2));
}

/// A builder sets up a game's table in a room of theirs, and anyone plays there as at the
/// town's own tables, after a restart too; a game whose matches have buildings of their own
/// (Werewolf) gets none.
#[tokio::test]
async fn a_builder_sets_up_a_game_table_and_people_play_there() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = builder(&s, "Ann").await;
    ann.command("@dig The Den").await;
    assert_eq!(
        ann.command("@table connect4").await,
        ["You may set up tables only in rooms you own."]
    );
    ann.command("@go #1000").await;
    assert_eq!(
        ann.command("@table connect4").await,
        ["You set up a Connect Four table (#1001)."]
    );
    assert_eq!(
        ann.command("@table connect4").await,
        ["There is a Connect Four table here already."]
    );
    let werewolf = ann.command("@table werewolf").await;
    assert!(
        werewolf[0].starts_with("There is no game \"werewolf\" to set a table for"),
        "{werewolf:?}"
    );
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.again("Ann").await;
    ann.send("play connect4 with house").await;
    ann.expect("You sit down to play Connect Four with the house: game #1, you are red.")
        .await;
    assert_eq!(
        ann.command("drop 4").await[0],
        "You drop a disc into column 4 in game #1."
    );
    s.stop().await;
    drop((dir, dir2));
}

/// A wizard lets someone build from inside the town (`@builder`), at once, and takes it back;
/// both are in the admin log and hold after a restart.
#[tokio::test]
async fn a_wizard_makes_a_builder_in_the_town() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut wiz = s.player("Wiz").await;
    let mut bob = s.player("Bob").await;
    let out = Command::new(MOOT)
        .args(["--db", &db.address(), "admin", "grant", "wiz"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    wiz.send("@quit").await;
    wiz.until_closed().await;
    let mut wiz = s.again("Wiz").await;
    assert_eq!(
        bob.command("@builder Bob").await,
        [
            "Only a wizard may use @builder. (The operator makes wizards with `moot admin grant NAME`.)"
        ]
    );
    assert_eq!(wiz.command("@builder bob").await, ["Bob may build now."]);
    assert_eq!(
        bob.command("@dig The Loft").await,
        ["The Loft (#1000) is dug."]
    );
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut bob = s.again("Bob").await;
    assert_eq!(
        bob.command("@create a rug").await,
        ["You make a rug (#1001)."]
    );
    let mut wiz = s.again("Wiz").await;
    assert_eq!(
        wiz.command("@builder Bob off").await,
        ["Bob may no longer build."]
    );
    assert_eq!(
        bob.command("@create a rug").await,
        ["Only builders may do that; a wizard can make you one."]
    );
    let log = crate::support::sql_rows(
        &db,
        "SELECT verb, target, detail FROM admin_actions WHERE detail = 'builder' ORDER BY seq",
    );
    assert_eq!(
        log,
        [
            vec!["grant".to_owned(), "Bob".to_owned(), "builder".to_owned()],
            vec!["revoke".to_owned(), "Bob".to_owned(), "builder".to_owned()]
        ]
    );
    s.stop().await;
    drop((dir, dir2));
}

/// An agent made with a person's token builds with exactly her rights: it may build because
/// she may, what it makes is hers, it changes what she owns; and the two, building one room
/// together, see each other's work as it happens. An agent nobody made may not build.
#[tokio::test]
async fn a_person_and_her_agent_build_one_room_together() {
    let s = TestServer::start().await;
    let mut ann = builder(&s, "Ann").await;
    let token = ann.command("@token").await[0]
        .strip_prefix("Your API token: ")
        .unwrap()
        .to_owned();
    let body = json!({ "name": "Easel" }).to_string();
    let (status, v) = s
        .api()
        .send("POST", "/agents", Some(&token), Some(&body))
        .await;
    assert_eq!(status, 201, "{v}");
    let easel = v["token"].as_str().unwrap().to_owned();
    let stranger = s.api().agent(Some("Zed")).await;
    assert_eq!(
        ann.command("@dig The Studio").await,
        ["The Studio (#1000) is dug."]
    );
    ann.command("@go #1000").await;
    let went = mcp_tool(s.http, &easel, "teleport", json!({ "room": "#1000" })).await;
    assert_eq!(went["structuredContent"]["name"], "The Studio", "{went}");
    let made = mcp_tool(s.http, &easel, "create", json!({ "name": "a tall easel" })).await;
    assert_eq!(made["structuredContent"]["thing"], 1001, "{made}");
    ann.expect("Easel makes a tall easel.").await;
    // She describes what her agent made; it describes her room.
    assert_eq!(
        ann.command("@describe easel as Paint-spattered pine.")
            .await,
        ["Description set."]
    );
    let described = mcp_tool(
        s.http,
        &easel,
        "describe",
        json!({ "object": "here", "description": "North light through a skylight." }),
    )
    .await;
    assert_eq!(described["isError"], false, "{described}");
    ann.expect("Easel describes #1000 anew.").await;
    let mut heard = String::new();
    for _ in 0..50 {
        heard.push_str(
            &mcp_tool(s.http, &easel, "events", json!({}))
                .await
                .to_string(),
        );
        if heard.contains("Ann describes #1001 anew.") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(heard.contains("Ann describes #1001 anew."), "{heard}");
    assert_eq!(
        ann.command("@audit").await,
        [
            "#1000 The Studio (a room)",
            "#1001 a tall easel (a thing in The Studio)",
            "2 objects."
        ]
    );
    assert_eq!(
        ann.command("look").await[1],
        "North light through a skylight."
    );
    let refused = mcp_tool(
        s.http,
        &stranger.token,
        "create",
        json!({ "name": "a stool" }),
    )
    .await;
    assert_eq!(
        refused["content"][0]["text"], "Only builders may do that; a wizard can make you one.",
        "{refused}"
    );
}

/// Building rights pass only through a token: an identity made from the same address soon
/// after a builder (which ratings count as one owner's) builds nothing and changes nothing of
/// hers.
#[tokio::test]
async fn a_neighbour_on_the_same_address_gets_no_builders_rights() {
    let s =
        TestServer::start_with(|c| c.owner_window = std::time::Duration::from_secs(86_400).into())
            .await;
    let mut ann = builder(&s, "Ann").await;
    ann.command("@create a brass lamp").await;
    let mallory = s.api().agent(Some("Mallory")).await;
    let refused = mcp_tool(
        s.http,
        &mallory.token,
        "create",
        json!({ "name": "a stool" }),
    )
    .await;
    assert_eq!(
        refused["content"][0]["text"], "Only builders may do that; a wizard can make you one.",
        "{refused}"
    );
    let renamed = mcp_tool(
        s.http,
        &mallory.token,
        "describe",
        json!({ "object": "#1000", "description": "Mine now." }),
    )
    .await;
    assert_eq!(renamed["isError"], true, "{renamed}");
}

/// As LambdaCore's `w` bit: what its owner makes writable every builder may change (describe,
/// set, program, dig exits from), but only its owner locks or recycles it; made hers alone
/// again, it is; and the bit outlives a restart.
#[tokio::test]
async fn what_its_owner_made_writable_every_builder_may_change() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::support::fresh_db(dir.path());
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = builder(&s, "Ann").await;
    let mut bob = builder(&s, "Bob").await;
    ann.command("@create a shared easel").await;
    assert_eq!(
        bob.command("@describe easel as Bob was here.").await,
        ["That is not yours to change."]
    );
    assert_eq!(
        bob.command("@chmod easel +w").await,
        ["That is not yours to open to others."]
    );
    assert_eq!(
        ann.command("@chmod easel +w").await,
        ["#1000 is writable: every builder may change it."]
    );
    assert_eq!(
        bob.command("@describe easel as Bob was here.").await,
        ["Description set."]
    );
    assert_eq!(
        bob.command("@set easel.colour to red").await,
        ["#1000.colour is now \"red\"."]
    );
    assert_eq!(
        bob.command("@recycle easel").await,
        ["That is not yours to recycle."]
    );
    drop((ann, bob));
    let dir2 = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let mut ann = s.again("Ann").await;
    let mut bob = s.again("Bob").await;
    assert_eq!(
        bob.command("@chmod easel").await,
        ["#1000 is writable: every builder may change it."]
    );
    ann.command("@chmod easel -w").await;
    assert_eq!(
        bob.command("@rename easel to Bob's easel").await,
        ["That is not yours to change."]
    );
    s.stop().await;
    drop((dir, dir2));
}
