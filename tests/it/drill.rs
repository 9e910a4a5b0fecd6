//! Verbs fed at random to a living town (`moot::drill`): typed lines, MCP-style JSON and seed
//! 004's host calls from players, strangers to a game, the dead, spectators, a wizard and an
//! identity nobody knows, with time passing. After every step: nothing panicked, every session
//! replays from its log to the state it is in, and no Werewolf player was told what their seat
//! may not know. Seeded, so a failure names the seed that finds it again; the fuzz target
//! `verbs_live` explores the same town without end.

use moot::world::sessions::SessionId;
use moot_testkit::drill::{Drill, Op, Who, json_args};

/// The test's own reproducible randomness (the templates' SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(1);
        moot::game_api::splitmix(self.0)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        from[self.below(from.len())]
    }
}

/// The verbs that name a game: half the lines start with one.
const GAME_VERBS: &[&str] = &[
    "mark",
    "choose",
    "move",
    "resign",
    "draw",
    "takeback",
    "hit",
    "stand",
    "board",
    "moves",
    "pgn",
    "watch",
    "unwatch",
    "vote",
    "kill",
    "inspect",
    "protect",
    "growl",
    "speak",
    "pass",
    "ready",
    "report",
    "omniscient",
    "wwevents",
    "finishTurn",
    "joinGame",
    "waitForNextTurn",
    "werewolf",
];

const WORDS: &[&str] = &[
    "look",
    "say",
    "emote",
    "go",
    "north",
    "south",
    "east",
    "west",
    "home",
    "who",
    "page",
    "whisper",
    "examine",
    "games",
    "board",
    "moves",
    "pgn",
    "move",
    "resign",
    "draw",
    "takeback",
    "watch",
    "unwatch",
    "challenge",
    "accept",
    "decline",
    "play",
    "choose",
    "mark",
    "deal",
    "hit",
    "stand",
    "werewolf",
    "sign",
    "unsign",
    "queue",
    "ready",
    "speak",
    "pass",
    "vote",
    "kill",
    "inspect",
    "protect",
    "growl",
    "matches",
    "wwevents",
    "omniscient",
    "report",
    "events",
    "session_state",
    "session_act",
    "session_log",
    "session_list",
    "joinGame",
    "finishTurn",
    "waitForNextTurn",
    "createGame",
    "@describe",
    "@linelength",
    "@wrap",
    "@token",
    "@boot",
    "@ban",
    "@unban",
    "@announce",
    "help",
    "inventory",
    "\"",
    ":",
];

const ARGS: &[&str] = &[
    "Ann",
    "Bob",
    "Cid",
    "Dee",
    "Eve",
    "Fay",
    "Gus",
    "Hal",
    "Ivy",
    "Wiz",
    "house",
    "computer",
    "#1",
    "#2",
    "#3",
    "#4",
    "#5",
    "#6",
    "#7",
    "#8",
    "#9",
    "#10",
    "#11",
    "#12",
    "#0",
    "#99999999999999999999",
    "1",
    "5",
    "9",
    "0",
    "10",
    "-1",
    "e2e4",
    "Nf3",
    "e7e5",
    "O-O",
    "rock",
    "paper",
    "scissors",
    "p1",
    "p2",
    "p5",
    "Bot-Abel",
    "Bot-Hugh",
    "none",
    "board",
    "on",
    "as",
    "me",
    "with",
    "clock",
    "5+3",
    "level",
    "all",
    "ended",
    "rules",
    "practice",
    "off",
    "[Town Crier]",
    "#$#mcp",
    "$#$",
    "ünïcödé",
    "🐺",
    "\u{202e}",
    "x x x x",
    "",
];

/// A typed line: a verb, then arguments of the kinds verbs take (often a game's number of a
/// game that exists, whoever plays it), now and then far too long.
fn line(rng: &mut Rng, sessions: &[SessionId]) -> String {
    let verbs = if rng.below(2) == 0 { GAME_VERBS } else { WORDS };
    let mut l = rng.pick(verbs).to_owned();
    // Most verbs read `<what> [#<game>]`: a cell, a move, a name, then which game.
    for i in 0..rng.below(4) {
        l.push(' ');
        match (i, rng.below(4)) {
            (0, 0 | 1) => l.push_str(&(1 + rng.below(9)).to_string()),
            (1.., 0 | 1) if !sessions.is_empty() => {
                l.push_str(&format!("#{}", sessions[rng.below(sessions.len())]));
            }
            _ => l.push_str(rng.pick(ARGS)),
        }
    }
    if GAME_VERBS.contains(&verbs[0]) && !sessions.is_empty() && rng.below(2) == 0 {
        l.push_str(&format!(" #{}", sessions[rng.below(sessions.len())]));
    }
    if rng.below(40) == 0 {
        l.push_str(&"long ".repeat(rng.below(400)));
    }
    l
}

fn op(rng: &mut Rng, drill: &Drill) -> Op {
    let who = if rng.below(12) == 0 {
        Who::Stranger
    } else {
        Who::Player(rng.below(drill.people()))
    };
    let sessions = drill.sessions();
    let sid = if sessions.is_empty() || rng.below(10) == 0 {
        SessionId::from(rng.next() % 20)
    } else {
        sessions[rng.below(sessions.len())]
    };
    match rng.below(20) {
        0..=11 => Op::Line(who, line(rng, &sessions)),
        12..=15 => {
            let verb = rng.below(1000);
            let bytes: Vec<u8> = (0..rng.below(16)).map(|_| rng.next() as u8).collect();
            Op::Json(who, verb, json_args(verb, &sessions, &bytes))
        }
        16 => Op::Act(
            who,
            sid,
            rng.pick(ARGS).to_owned(),
            Some(rng.next() % 8).filter(|_| rng.below(3) != 0),
        ),
        17 => Op::State(who, sid),
        18 => Op::Log(who, sid),
        19 if rng.below(2) == 0 => Op::Program(who, code(rng)),
        _ => Op::Wait(rng.next() % 20_000),
    }
}

/// A verb's code, made of the API's calls on the objects around it, some of them wrong.
fn code(rng: &mut Rng) -> String {
    const CALLS: &[&str] = &[
        "say(this.name);",
        "tell(player, \"hi\");",
        "this[\"n\"] = random(6);",
        "this[\"n\"] = ();",
        "for t in here.contents { if t.kind == \"thing\" { t[\"seen\"] = 1; } }",
        "move(this, here);",
        "move(this, object(1));",
        "let o = object(1000); say(o.name);",
        "tell(player, words[0]);",
        "for p in here.people { tell(p, \"psst\"); }",
        "loop {}",
        "let s = \"x\"; loop { s += s; }",
        "throw \"no\";",
        "say(\"*** fake ***\");",
        "print(time());",
        "this.location.contents.len();",
    ];
    (0..1 + rng.below(4))
        .map(|_| rng.pick(CALLS))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn verbs_fed_at_random_to_a_living_town_break_no_promise() {
    let steps: usize = std::env::var("MOOT_DRILL_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    let started = std::time::Instant::now();
    let mut total = 0;
    // The phases Werewolf matches were in when a step was fed to the town.
    let mut fed_in = std::collections::BTreeSet::new();
    for seed in 0..4u64 {
        let mut drill = Drill::new(seed).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
        let games = drill.games();
        for t in moot::games::templates() {
            let of: Vec<&str> = games
                .iter()
                .filter(|(id, _)| *id == t.id)
                .map(|(_, at)| at.as_str())
                .collect();
            assert!(of.contains(&"over"), "a finished {}: {games:?}", t.id);
            assert!(
                of.iter().any(|at| *at != "over"),
                "a running {}: {games:?}",
                t.id
            );
        }
        let phases: std::collections::BTreeSet<&str> = games
            .iter()
            .filter(|(id, at)| *id == "werewolf.v1" && at != "over")
            .map(|(_, at)| at.as_str())
            .collect();
        assert!(phases.len() >= 2, "Werewolf in several phases: {games:?}");
        let mut rng = Rng(seed);
        for _ in 0..steps {
            fed_in.extend(
                drill
                    .games()
                    .into_iter()
                    .filter(|(id, _)| *id == "werewolf.v1")
                    .map(|(_, at)| at),
            );
            let op = op(&mut rng, &drill);
            if let Err(broken) = drill.step(op) {
                panic!("seed {seed}: {}", broken.0);
            }
        }
        total += drill.figures().0;
    }
    for phase in moot::games::werewolf::rules::Phase::ALL {
        let name = match phase.name() {
            "ENDED" => "over",
            name => name,
        };
        assert!(
            fed_in.contains(name),
            "no step met a match in {name}: {fed_in:?}"
        );
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "drill: {total} steps in {secs:.1} s ({:.0} a second, setup included)",
        total as f64 / secs
    );
}
