//! The verb registry: every verb is complete, and a typed line reaches the same handler, with
//! the same arguments, as the JSON a program would send.

use moot::games::{REGISTRY, Resolved, resolve};
use moot::world::{self, Cx, Face, Player, World};
use serde_json::json;

use crate::support::world_dir;

#[test]
fn every_verb_has_help_and_schemas_and_a_unique_name() {
    let mut words = std::collections::HashSet::new();
    for e in REGISTRY.iter() {
        assert!(
            !e.summary.is_empty() && !e.help.is_empty() && !e.usage.is_empty(),
            "{} lacks help",
            e.name
        );
        let args = serde_json::to_value((e.args_schema)()).unwrap();
        assert_eq!(
            args["type"], "object",
            "{}'s arguments are an object: {args}",
            e.name
        );
        let out = serde_json::to_value((e.output_schema)()).unwrap();
        assert!(
            out.get("type").is_some() || out.get("oneOf").is_some(),
            "{} has an output schema: {out}",
            e.name
        );
        for w in std::iter::once(&e.name).chain(e.aliases) {
            // `drop 4` is Connect Four's, `drop lamp` puts a thing down: the one word that
            // names two verbs, told apart by what follows it (`games::run_line`).
            let shared = *w == "drop";
            assert!(
                words.insert(w.to_lowercase()) || shared,
                "`{w}` names two verbs"
            );
        }
    }
}

fn town() -> (World, world::AgentId) {
    let map = world::load(&world_dir()).unwrap();
    let start = map.start;
    let mut w = moot::games::new_world(map, Default::default());
    let (sink, source) = world::channel();
    std::mem::forget(source);
    let id: world::AgentId = "ann".into();
    w.admit(Player::new(
        id.clone(),
        "Ann".into(),
        String::new(),
        start,
        1,
        sink,
    ));
    (w, id)
}

#[test]
fn typed_lines_parse_into_the_arguments_they_should() {
    let (w, me) = town();
    let room = w.map.room(w.player(&me).room);
    let cases = [
        ("look", "look", json!({})),
        ("l at fountain", "look", json!({"target": "fountain"})),
        (
            "look   the stone fountain ",
            "look",
            json!({"target": "the stone fountain"}),
        ),
        ("\"hi there", "say", json!({"text": "hi there"})),
        ("say   spaced  out ", "say", json!({"text": "spaced  out"})),
        (":waves.", "emote", json!({"text": "waves."})),
        (
            "page Bob meet me later",
            "page",
            json!({"name": "Bob", "text": "meet me later"}),
        ),
        (
            "whisper go to the hall to Cy",
            "whisper",
            json!({"text": "go to the hall", "to": "Cy"}),
        ),
        (
            "@describe me as very tall",
            "describe",
            json!({"description": "very tall"}),
        ),
        ("n", "go", json!({"exit": "n"})),
        ("NORTH", "go", json!({"exit": "NORTH"})),
        ("go east", "go", json!({"exit": "east"})),
        ("help page", "help", json!({"topic": "page"})),
        ("@who", "who", json!({})),
        ("x fountain", "examine", json!({"target": "fountain"})),
        ("i", "inventory", json!({})),
        ("home", "home", json!({})),
    ];
    for (line, verb, args) in cases {
        let Resolved::Verb(e, rest) = resolve(line, |x| room.exit(x).is_some()) else {
            panic!("{line:?} matches no verb");
        };
        assert_eq!(e.name, verb, "{line:?}");
        assert_eq!((e.parse_json)(rest).unwrap(), args, "{line:?}");
    }
    assert_eq!(resolve("dance wildly", |_| false), Resolved::Unknown);
    // A compass word is `go` even where there is no such exit (which then says "You can't go
    // that way."); any other word that is no exit here is not understood.
    assert!(
        matches!(resolve("north", |_| false), Resolved::Verb(e, "north") if e.name == "go"),
        "a direction, though not an exit here"
    );
    assert_eq!(resolve("portal", |_| false), Resolved::Unknown);
    assert_eq!(resolve("   ", |_| false), Resolved::Nothing);
    let Resolved::Verb(page, rest) = resolve("page Bob", |_| false) else {
        panic!()
    };
    assert_eq!(
        (page.parse_json)(rest).unwrap_err().message,
        "Usage: page <name> <text>"
    );
}

#[test]
fn a_line_and_its_json_reach_the_same_handler() {
    for line in [
        "look",
        "look fountain",
        "x signpost",
        "who",
        "i",
        "help",
        "help say",
        "say hi",
        ":nods",
        "n",
    ] {
        let (mut w, me) = town();
        let (mut w2, _) = town();
        // Someone else stands here too, for the text to name.
        for w in [&mut w, &mut w2] {
            let (sink, source) = world::channel();
            std::mem::forget(source);
            let start = w.player(&me).room;
            w.admit(Player::new(
                "bob".into(),
                "Bob".into(),
                String::new(),
                start,
                1,
                sink,
            ));
        }
        let mut cx = Cx::new(me.clone(), Face::Mcp);
        let text = moot::games::run_line(&mut w, &mut cx, line).unwrap();
        let room = w2.map.room(w2.player(&me).room);
        let Resolved::Verb(e, rest) = resolve(line, |x| room.exit(x).is_some()) else {
            panic!()
        };
        let args = (e.parse_json)(rest).unwrap();
        let mut cx2 = Cx::new(me.clone(), Face::Mcp);
        let reply = (e.run_json)(&mut w2, &mut cx2, args).unwrap();
        assert_eq!(reply.text, text, "{line:?}");
        if line == "look" {
            assert!(text.contains(&"Bob is here.".to_owned()), "{text:?}");
            assert_eq!(reply.value()["people"], json!(["Bob"]));
        }
        assert_eq!(cx.notices.len(), cx2.notices.len(), "{line:?}");
        assert_eq!(cx.saves.len(), cx2.saves.len(), "{line:?}");
    }
}

#[test]
fn structured_results_carry_what_the_text_says() {
    let (mut w, me) = town();
    let mut cx = Cx::new(me, Face::Mcp);
    let e = moot::games::find("look").unwrap();
    let r = (e.run_json)(&mut w, &mut cx, json!({})).unwrap().value();
    assert_eq!(r["kind"], "room");
    assert_eq!(r["name"], "Town Square");
    assert_eq!(r["exits"][0]["name"], "north");
    assert_eq!(r["exits"][0]["to"], "town_hall");
    let bad = (e.run_json)(&mut w, &mut cx, json!({"target": 7})).unwrap_err();
    assert!(
        bad.message.starts_with("Bad arguments for look"),
        "{}",
        bad.message
    );
}

#[test]
fn silent_agents_leave_and_people_on_connections_stay() {
    let (mut w, ann) = town();
    let row = moot::store::AgentRow {
        agent_id: "robo".into(),
        name: "Robo".into(),
        password_hash: None,
        description: String::new(),
        room: None,
        display: Default::default(),
        wizard: false,
        builder: false,
        programmer: false,
    };
    let mut cx = Cx::new(ann.clone(), Face::Mcp);
    w.arrive_agent(&mut cx, row);
    assert!(w.is_present("robo"));
    let later = tokio::time::Instant::now() + std::time::Duration::from_secs(3600);
    let mut cx = Cx::new(ann.clone(), Face::Mcp);
    w.sweep_idle_agents(&mut cx, later, std::time::Duration::from_secs(1800));
    assert!(!w.is_present("robo"), "the silent agent left");
    assert!(w.is_present(&ann), "Ann has a connection and stays");
    assert!(cx.notices.iter().any(|n| matches!(&n.what, world::Delivery::Line(l) if &**l == "Robo has been disconnected for inactivity.")));
}

/// Words said in a crowded room are made once: every hearer gets one notice, the same shared
/// words (its line and its news together), and the talker's client the news alone; the line a
/// face lays out for one width is laid out once for all at that width.
#[test]
fn words_said_in_a_crowd_are_made_once_and_each_hearer_gets_one_notice() {
    let (mut w, ann) = town();
    let start = w.player(&ann).room;
    // Alone, and taking no news: the words are not made at all.
    let made = std::cell::Cell::new(0);
    let words = |name: &str| {
        made.set(made.get() + 1);
        format!("{name} says, \"hello\"").into()
    };
    let (sink, source) = world::channel();
    source.take_events(false);
    std::mem::forget(source);
    let eve: world::AgentId = "eve".into();
    let hall = w.map.room_by_id("town_hall").unwrap();
    w.admit(Player::new(
        eve.clone(),
        "Eve".into(),
        String::new(),
        hall,
        1,
        sink,
    ));
    let mut alone = Cx::new(eve, Face::Telnet);
    let spoken = alone.speak(&w, "say", words);
    assert_eq!(made.get(), 0, "words nobody hears are not made");
    assert!(spoken.line.is_none() && alone.notices.is_empty());
    let mut hearers = Vec::new();
    for name in ["Bob", "Cy", "Di"] {
        let (sink, source) = world::channel();
        std::mem::forget(source);
        let id: world::AgentId = name.to_lowercase().into();
        w.admit(Player::new(
            id.clone(),
            name.into(),
            String::new(),
            start,
            1,
            sink,
        ));
        hearers.push(id);
    }
    let mut cx = Cx::new(ann.clone(), Face::Telnet);
    let spoken = cx.speak(&w, "say", words);
    assert_eq!(made.get(), 1, "made once for every hearer");
    assert_eq!(spoken.line.as_deref(), Some("Ann says, \"hello\""));
    assert!(spoken.unheard.is_empty());
    assert_eq!(
        spoken.heard_by,
        ["Bob", "Cy", "Di"],
        "who heard, from the same pass"
    );
    let mut shared = Vec::new();
    for n in &cx.notices {
        match &n.what {
            world::Delivery::Heard(said) => {
                assert!(hearers.contains(&n.to), "{} hears", n.to);
                shared.push(said.clone());
            }
            world::Delivery::Event(world::Event::Said(said)) => {
                assert_eq!(n.to, ann, "only the talker gets the news alone");
                shared.push(said.clone());
            }
            other => panic!("{} was sent {other:?}", n.to),
        }
    }
    assert_eq!(cx.notices.len(), hearers.len() + 1, "one notice each");
    assert!(
        shared.iter().all(|s| std::sync::Arc::ptr_eq(s, &shared[0])),
        "one set of words, shared"
    );
    let said = &shared[0];
    assert_eq!(&*said.line, "Ann says, \"hello\"");
    let laid = std::cell::Cell::new(0);
    let lay = |line: &str, _: Option<usize>| {
        laid.set(laid.get() + 1);
        line.as_bytes().to_vec()
    };
    let first = said.laid_out(Some(79), lay).as_ptr();
    assert_eq!(said.laid_out(Some(79), lay).as_ptr(), first);
    assert_eq!(
        laid.get(),
        1,
        "laid out once for the width most hearers share"
    );
    said.laid_out(Some(40), lay);
    assert_eq!(laid.get(), 2, "and afresh for another");
    // Said on a typed line, which prints no list of hearers: all hear, and no names are made.
    let mut typed = Cx::new(ann.clone(), Face::Telnet);
    typed.text_only = true;
    let spoken = typed.speak(&w, "say", |name| format!("{name} says, \"again\"").into());
    assert!(spoken.heard_by.is_empty());
    assert_eq!(typed.notices.len(), hearers.len() + 1);
}
