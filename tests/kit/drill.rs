//! A living town in one process, for the fuzz target `verbs_live` and the seeded property test
//! (`tests/it/drill.rs`): the town's rooms, players of every kind, and running games of every
//! template (chess with a clock and against the computer, rock-paper-scissors, tic-tac-toe,
//! blackjack, Werewolf practice matches in each phase) beside a finished game of each. Built
//! only with the `testing` feature.
//!
//! Commands are fed as the faces feed them (a typed line, a verb's JSON arguments, the session
//! host's calls) by anyone: players, strangers to a game, the dead, spectators, a wizard, an
//! identity nobody knows. The house's thinking and the deadlines are run at once, on a paused
//! game clock that only [`Op::Wait`] moves. After each step the drill checks what moot promises:
//! nothing panicked (the boundary would have hidden it, so commands run here without one);
//! every session still replays from its log to the state it is in; and, by the rules' own
//! audit of hidden information, no line reached a player of a running Werewolf match that their
//! seat may not know, nor did the state or log the host hands a player or the public.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use moot::games::werewolf::rules::audit;
use moot::games::werewolf::rules::events::Reader;
use moot::games::werewolf::rules::{Card, Werewolf, seat_of};
use moot::games::{self, REGISTRY};
use moot::identity::Directory;
use moot::store::AgentRow;
use moot::world::sessions::SessionId;
use moot::world::{AgentId, Cx, Delivery, Effect, Event, Face, Sink, World};

/// Who acts: a player of the town by number, or an identity nobody knows.
#[derive(Debug, Clone, Copy)]
pub enum Who {
    Player(usize),
    Stranger,
}

/// One step.
#[derive(Debug, Clone)]
pub enum Op {
    /// A typed line, as telnet sends it.
    Line(Who, String),
    /// A verb (by its place in the registry, modulo its length) with JSON arguments, as MCP.
    Json(Who, usize, Value),
    /// The session host's calls, as REST: an action, the state, the log.
    Act(Who, SessionId, String, Option<u64>),
    State(Who, SessionId),
    Log(Who, SessionId),
    /// Time passes (milliseconds of the runtime's clock).
    Wait(u64),
    /// A programmer's gadget, where they stand, given this code as its verb `poke`, and
    /// poked: random code and random API calls run in the sandbox against the living town.
    Program(Who, String),
}

/// What went wrong: the promise broken, and the step that broke it.
#[derive(Debug)]
pub struct Broken(pub String);

pub struct Drill {
    town: Town,
}

struct Town {
    world: World,
    players: Vec<AgentId>,
    /// The tick at which each running match's views were last audited.
    audited: BTreeMap<SessionId, u64>,
    /// Steps taken, and lines delivered, for the figures.
    steps: u64,
    lines: u64,
}

/// The town's people: those who play, those who watch, a wizard.
const PEOPLE: [&str; 10] = [
    "Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Wiz",
];

impl Drill {
    /// The town, with its games set up by `seed` (which also seeds every session).
    pub fn new(seed: u64) -> Result<Drill, Broken> {
        let mut drill = Drill {
            town: Town::new(seed)?,
        };
        drill.setup()?;
        Ok(drill)
    }

    /// How many people there are to act as ([`Who::Player`] takes them modulo this).
    pub fn people(&self) -> usize {
        self.town.players.len()
    }

    /// The sessions there are to name.
    pub fn sessions(&self) -> Vec<SessionId> {
        self.town.world.session_ids()
    }

    /// Each session's template, and where it stands: `over`, or its phase if the template
    /// has phases (Werewolf's), else `running`.
    pub fn games(&self) -> Vec<(&'static str, String)> {
        let w = &self.town.world;
        w.session_ids()
            .into_iter()
            .filter_map(|sid| w.session(sid))
            .map(|s| {
                let stands = if s.game.is_terminal() {
                    "over".to_owned()
                } else {
                    s.game.state()["phase"]
                        .as_str()
                        .unwrap_or("running")
                        .to_owned()
                };
                (s.template.id, stands)
            })
            .collect()
    }

    /// (steps taken, lines delivered)
    pub fn figures(&self) -> (u64, u64) {
        (self.town.steps, self.town.lines)
    }

    /// Takes one step and checks every promise after it.
    pub fn step(&mut self, op: Op) -> Result<(), Broken> {
        let shown = format!("{op:?}");
        match catch_unwind(AssertUnwindSafe(|| self.town.run(&op))) {
            Ok(r) => r,
            Err(_) => Err(Broken("panicked".into())),
        }
        .map_err(|Broken(why)| Broken(format!("{why} (at {shown})")))
    }

    /// Plays the town into shape: games of every template, running and finished, and Werewolf
    /// matches left in different phases.
    fn setup(&mut self) -> Result<(), Broken> {
        let script: [(usize, &str); 52] = [
            // Rock-paper-scissors and tic-tac-toe between people, and against the house to
            // the end; blackjack running and over.
            (0, "south"),
            (1, "south"),
            (2, "south"),
            (3, "south"),
            (4, "south"),
            (0, "play rps with Bob"),
            (1, "play rps with Ann"),
            (2, "play tictactoe with Dee"),
            (3, "play tictactoe with Cid"),
            (4, "play rps with house"),
            (4, "choose rock"),
            (4, "play tictactoe with house"),
            (4, "mark 1"),
            (4, "mark 2"),
            (4, "mark 3"),
            (4, "mark 4"),
            (4, "mark 5"),
            (4, "mark 6"),
            (4, "mark 7"),
            (4, "mark 8"),
            (4, "mark 9"),
            (5, "deal"),
            (6, "deal"),
            (6, "stand"),
            // Connect Four: one running, one won in a column, one against the house.
            (0, "play connect4 with Bob"),
            (1, "play connect4 with Ann"),
            (2, "play connect4 with Dee"),
            (3, "play connect4 with Cid"),
            (2, "drop 1"),
            (3, "drop 2"),
            (2, "drop 1"),
            (3, "drop 2"),
            (2, "drop 1"),
            (3, "drop 2"),
            (2, "drop 1"),
            (4, "play connect4 with house"),
            (4, "drop 4"),
            // Chess: with a clock between people, against the computer, and one resigned.
            (0, "north"),
            (1, "north"),
            (2, "north"),
            (3, "north"),
            (0, "east"),
            (1, "east"),
            (2, "east"),
            (3, "east"),
            (0, "challenge Bob clock 5+3"),
            (1, "accept Ann"),
            (2, "challenge computer level 1"),
            (3, "challenge computer level 1"),
            (3, "resign"),
            // Werewolf: one practice match played to its end first.
            (5, "north"),
            (5, "werewolf practice"),
        ];
        for (who, line) in script {
            self.step(Op::Line(Who::Player(who), line.to_owned()))?;
        }
        for _ in 0..80 {
            self.step(Op::Wait(30_000))?;
        }
        // Then three left running, in different phases; Wiz watches the last.
        for (who, wait) in [(6, 40_000), (7, 50_000), (8, 0)] {
            self.step(Op::Line(Who::Player(who), "north".into()))?;
            self.step(Op::Line(Who::Player(who), "werewolf practice".into()))?;
            self.step(Op::Wait(wait))?;
        }
        let ivy = self.town.who(Who::Player(8));
        if let Some(sid) = moot::games::werewolf::my_match(&self.town.world, &ivy) {
            self.step(Op::Line(Who::Player(9), format!("watch #{sid}")))?;
        }
        Ok(())
    }
}

impl Town {
    fn new(seed: u64) -> Result<Town, Broken> {
        let map = moot::world::load::load_built_in().map_err(|e| Broken(e.to_string()))?;
        let directory = Arc::new(Directory::new(Vec::new()));
        for (id, name) in moot::world::HOUSE {
            directory.insert(id, name, None, moot::identity::Kind::House);
        }
        let mut world = games::new_world(map, directory.clone());
        world.reproducible(seed);
        // Short limits, so that a runaway verb costs a fuzzer little.
        world.limit_programs(moot::world::programs::ProgramLimits {
            sandbox: moot::sandbox::Limits {
                operations: 5_000,
                time: Duration::from_millis(200),
                memory: 4096,
            },
            rate: 0.0,
            burst: 1,
        });
        games::open_town(&mut world, &Default::default());
        let mut players = Vec::new();
        for (i, name) in PEOPLE.iter().enumerate() {
            let id: AgentId = format!("drill-{i}").into();
            directory.insert(&id, name, None, moot::identity::Kind::Person);
            let row = AgentRow {
                agent_id: id.to_string(),
                name: (*name).to_owned(),
                password_hash: None,
                description: String::new(),
                room: None,
                display: moot::wrap::Display::default(),
                wizard: *name == "Wiz",
                // Half of them build and program, so that the drill's commands dig, make things
                // and give them verbs too.
                builder: i % 2 == 0,
                programmer: i % 2 == 0,
            };
            // People at keyboards and agents with mailboxes, as they come.
            let sink = if i % 2 == 0 {
                moot::world::channel().0
            } else {
                Sink::Mailbox
            };
            let mut cx = Cx::new(id.clone(), Face::Telnet);
            world.enter(&mut cx, row, i as u64 + 1, sink);
            players.push(id);
        }
        Ok(Town {
            world,
            players,
            audited: BTreeMap::new(),
            steps: 0,
            lines: 0,
        })
    }

    fn who(&self, who: Who) -> AgentId {
        match who {
            Who::Player(i) => self.players[i % self.players.len()].clone(),
            Who::Stranger => "drill-stranger".into(),
        }
    }

    fn run(&mut self, op: &Op) -> Result<(), Broken> {
        if let Op::Program(who, code) = op {
            let program = REGISTRY
                .iter()
                .position(|e| e.name == "program")
                .unwrap_or_default();
            for step in [
                Op::Line(*who, "@create a gadget".into()),
                Op::Line(*who, "@verb gadget poke".into()),
                Op::Json(
                    *who,
                    program,
                    serde_json::json!({ "verb": "gadget:poke", "code": code }),
                ),
                // Its bits now and then kept from others, whom the drill's lines then meet.
                Op::Line(
                    *who,
                    format!("@chmod gadget:poke {}", ["-r", "-x", "+rx"][code.len() % 3]),
                ),
                Op::Line(*who, "poke gadget".into()),
            ] {
                self.run(&step)?;
            }
            return Ok(());
        }
        self.steps += 1;
        let face = match op {
            Op::Line(..) => Face::Telnet,
            Op::Json(..) => Face::Mcp,
            _ => Face::Rest,
        };
        let actor = match op {
            Op::Line(w, _) | Op::Json(w, ..) | Op::Act(w, ..) | Op::State(w, _) | Op::Log(w, _) => {
                self.who(*w)
            }
            Op::Wait(_) | Op::Program(..) => moot::world::SERVER_ID.into(),
        };
        let mut cx = Cx::new(actor.clone(), face);
        let present = self.world.is_present(&actor);
        match op {
            // Each face reaches the verbs only for someone in the town (telnet after a login,
            // MCP after bringing its caller in); strangers reach the host calls alone.
            Op::Line(_, line) if present => {
                games::answer_line(&mut self.world, &mut cx, line);
            }
            Op::Json(_, verb, args) if present => {
                if let Some(e) = REGISTRY.get(verb % REGISTRY.len()) {
                    let _ = (e.run_json)(&mut self.world, &mut cx, args.clone());
                }
            }
            Op::Act(_, sid, action, tick) => {
                let _ = self.world.act(&mut cx, *sid, action, *tick);
            }
            Op::State(_, sid) => {
                let _ = self.world.session_state(*sid, &actor);
            }
            Op::Log(_, sid) => {
                let _ = self.world.session_log(*sid, &actor);
            }
            // What waits on time besides deadlines (the house filling a queue).
            Op::Wait(ms) => {
                self.world
                    .pass_time(Duration::from_millis((*ms).min(600_000)));
                self.world.ticked(&mut cx, tokio::time::Instant::now());
            }
            _ => {}
        }
        self.settle(cx)
    }

    /// Checks and delivers what a step left, then runs what it set going (the house's
    /// thinking, deadlines now due) as the world task would, until nothing is left.
    fn settle(&mut self, first: Cx) -> Result<(), Broken> {
        let mut queue = vec![first];
        let mut rounds = 0;
        while let Some(cx) = queue.pop() {
            rounds += 1;
            if rounds > 10_000 {
                return Err(Broken("the house never settles".into()));
            }
            self.audit(&cx)?;
            self.lines += cx.notices.len() as u64;
            for effect in cx.effects {
                // A programmed verb runs here and now, and what it did is done as its owner.
                if let Effect::Run(job) = effect {
                    let (id, owner) = (job.job, job.owner.clone());
                    let outcome = job.run();
                    let mut next = Cx::new(owner, Face::Rest);
                    self.world.finish_run(&mut next, id, outcome);
                    queue.push(next);
                    continue;
                }
                if let Effect::Think {
                    session,
                    tick,
                    agent,
                    thinking,
                } = effect
                    && let Some(action) = thinking(moot::game_api::Mind::UNHURRIED)
                    && self.world.session(session).is_some_and(|s| s.tick == tick)
                {
                    let mut next = Cx::new(agent.clone(), Face::Rest);
                    let _ = self
                        .world
                        .act_as(&mut next, &agent, session, action, Some(tick));
                    queue.push(next);
                }
            }
            if queue.is_empty() {
                for sid in self.world.due_deadlines(tokio::time::Instant::now()) {
                    let mut next = Cx::new(moot::world::SERVER_ID.into(), Face::Rest);
                    self.world.take_deadline(&mut next, sid);
                    queue.push(next);
                }
            }
        }
        self.replays()
    }

    /// Every session's state is the one its log implies.
    fn replays(&self) -> Result<(), Broken> {
        for sid in self.world.session_ids() {
            let Some(s) = self.world.session(sid) else {
                continue;
            };
            let replayed = moot::game_api::replay(
                s.template,
                s.seed,
                &s.options,
                s.log.iter().map(|e| (e.role, &*e.action, e.at_ms)),
            )
            .map_err(|e| Broken(format!("session {sid} no longer replays: {e}")))?;
            if replayed.state() != s.game.state() {
                return Err(Broken(format!(
                    "session {sid} replays to another state than it is in"
                )));
            }
        }
        Ok(())
    }

    /// Nothing a step leaves tells anyone what the rules hide from them, by the rules' own
    /// audit (`games::werewolf::rules::audit`): no line or spoken event for a player of a running
    /// Werewolf match says what their seat may not know (another's card, the wolves' talk and
    /// choice, the seer's vision, the doctor's watch); and whenever a match moved, the state
    /// and the log the host hands each of its players, and the state it shows the public,
    /// hold no more than their place allows.
    fn audit(&mut self, cx: &Cx) -> Result<(), Broken> {
        let matches: BTreeMap<SessionId, &Werewolf> = self
            .world
            .session_ids()
            .into_iter()
            .filter_map(|sid| {
                let s = self.world.session(sid)?;
                let w = moot::games::werewolf::game_in(s)?;
                (!s.game.is_terminal()).then_some((sid, w))
            })
            .collect();
        for n in &cx.notices {
            let line = match &n.what {
                Delivery::Line(line) => &**line,
                Delivery::Heard(said) | Delivery::Event(Event::Said(said)) => &*said.line,
                _ => continue,
            };
            // A notice does not say which match it is about: it leaks only if no seat its
            // reader holds may know it (the house's bots sit in every practice match).
            let cards: Vec<Card> = matches
                .iter()
                .filter_map(|(sid, w)| {
                    let role = self.world.session(*sid)?.role_of(&n.to)?;
                    Some(w.players.get(seat_of(role)?)?.card)
                })
                .collect();
            if cards.is_empty() {
                continue;
            }
            // A reader who watches another match than theirs with the right to see all of it
            // (which the host grants an outsider) may read anything of that one, and a notice
            // does not say which match it is about.
            if matches.keys().any(|sid| self.world.sees_all(*sid, &n.to)) {
                continue;
            }
            if cards.iter().all(|&c| audit::line(Some(c), line).is_err()) {
                return Err(Broken(format!("{} ({cards:?}) was told {line:?}", n.to)));
            }
        }
        for (&sid, w) in &matches {
            let Some(s) = self.world.session(sid) else {
                continue;
            };
            if self.audited.get(&sid) == Some(&s.tick) {
                continue;
            }
            let leak = |why: String| Broken(format!("match {sid}: {why}"));
            audit::state(w, Reader::Public, &s.game.view(None)).map_err(leak)?;
            for p in &s.participants {
                let Some(seat) = seat_of(p.role) else {
                    continue;
                };
                let reader = Reader::Seat(seat);
                let shown = self
                    .world
                    .session_state(sid, &p.agent)
                    .map_err(|e| leak(format!("{} cannot read their state: {e:?}", p.agent)))?;
                audit::state(w, reader, &shown.state).map_err(leak)?;
                let log = self
                    .world
                    .session_log(sid, &p.agent)
                    .map_err(|e| leak(format!("{} cannot read their log: {e:?}", p.agent)))?;
                for e in &log {
                    audit::log_entry(w, reader, &e.role, &e.action, Some(&e.action))
                        .map_err(leak)?;
                }
            }
        }
        self.audited = matches
            .keys()
            .filter_map(|&sid| Some((sid, self.world.session(sid)?.tick)))
            .collect();
        Ok(())
    }
}

/// JSON arguments for verb `verb` (its place in the registry, modulo its length), from bytes:
/// its schema's own keys, mostly with values of the kinds it asks for (a game's number, a
/// small count, a name), sometimes of the wrong kind or missing, and now and then a key it
/// does not know.
pub fn json_args(verb: usize, sessions: &[SessionId], bytes: &[u8]) -> Value {
    const NAMES: [&str; 8] = [
        "Ann", "Bob", "Wiz", "house", "computer", "Bot-Abel", "p3", "",
    ];
    let Some(e) = REGISTRY.get(verb % REGISTRY.len()) else {
        return json!({});
    };
    let schema = (e.args_schema)().to_value();
    let keys: Vec<String> = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut bytes = bytes.iter().copied();
    let mut next = || bytes.next().unwrap_or(0);
    let mut args = serde_json::Map::new();
    for key in &keys {
        let (kind, v) = (next(), next());
        let game = sessions
            .get(usize::from(v) % sessions.len().max(1))
            .copied()
            .unwrap_or(SessionId::FIRST);
        let value = match kind % 10 {
            0 => continue,
            1 | 2 => json!(format!("#{game}")),
            3 => json!(game.to_string()),
            4 => json!(v % 12),
            5 => json!(NAMES[usize::from(v) % NAMES.len()]),
            6 => json!(i64::from(v) - 128),
            7 => json!("x".repeat(usize::from(v) * 8)),
            8 => Value::Null,
            _ => json!([v, "e2e4", { "a": v }]),
        };
        args.insert(key.clone(), value);
    }
    if next() % 8 == 0 {
        args.insert("unheard_of".into(), json!(next()));
    }
    Value::Object(args)
}
