//! The sandbox programmed verbs run in: Rhai, a well-kept embeddable language, with hard limits
//! on operations, time, call depth and the size of every string, array and map, and no way out
//! but the API below. A leaf module: it knows no world, no store and no socket.
//!
//! A run reads a [`Snapshot`] (the objects around the verb, taken by the world when it began)
//! and gives back the [`Deed`]s it would do, in order. It runs off the world task, so that a
//! verb that loops until its limit holds up nobody else; the world then does the deeds as one
//! command, checked again there, or none of them. A verb that fails (an error, a limit, `@kill`)
//! does nothing at all: a run is one change, as every command is.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rhai::{Array, Dynamic, Engine, EvalAltResult, Position};

/// An object's number (`#1000`), as the world numbers its rooms, exits and things.
pub type Num = u64;

/// How far one run may go; each is a flag of `moot`'s (`--verb-ops`, `--verb-time`,
/// `--verb-memory`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Rhai's operations (roughly an expression node, a loop turn or a call each).
    pub operations: u64,
    /// Wall-clock time.
    pub time: Duration,
    /// Bytes any one string may hold; arrays and maps are held to a share of it (see
    /// [`Limits::apply`]).
    pub memory: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            operations: 100_000,
            time: Duration::from_secs(1),
            memory: 64 * 1024,
        }
    }
}

/// The most deeds one run may leave, and the longest line one may say.
pub const MAX_DEEDS: usize = 64;
pub const MAX_LINE: usize = 1000;
/// The most bytes of code one verb may have.
pub const MAX_CODE: usize = 16 * 1024;
/// How deep calls may go (scripted functions calling themselves).
const MAX_CALLS: usize = 32;

impl Limits {
    /// Sets every limit on `engine`. Arrays and maps are counted by their elements (a string
    /// inside one by its bytes as well, by Rhai's own sums), so a share of the memory each.
    fn apply(&self, engine: &mut Engine) {
        engine.set_max_operations(self.operations.max(1));
        engine.set_max_call_levels(MAX_CALLS);
        engine.set_max_expr_depths(64, 32);
        engine.set_max_string_size(self.memory.max(1));
        engine.set_max_array_size((self.memory / 16).max(1));
        engine.set_max_map_size((self.memory / 64).max(1));
        engine.set_max_variables(256);
        engine.set_max_functions(64);
    }
}

/// What a run may read: the objects around it, as they were when it began.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The object the verb is on.
    pub this: Num,
    /// Who typed it: their name, and the room they stand in.
    pub player: String,
    pub player_room: Num,
    /// The verb's name as typed, and the words after it.
    pub verb: String,
    pub words: Vec<String>,
    /// Every object the run may see: `this`, the rooms of `this` and the player, and what is
    /// in those rooms.
    pub objects: BTreeMap<Num, Seen>,
    /// Who stands in each of those rooms, by name.
    pub people: BTreeMap<Num, Vec<String>>,
    /// The time it began, in seconds since the Unix epoch.
    pub now: i64,
    /// A seed for `random`, drawn by the world.
    pub seed: u64,
}

/// An object as a run sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Seen {
    /// `room`, `exit`, `thing`, or `pocket` (what someone carries is in theirs).
    pub kind: &'static str,
    pub name: String,
    pub description: String,
    pub props: BTreeMap<String, String>,
    /// The room it is in (an exit: the room it leads from); none for a room.
    pub location: Option<Num>,
    /// What is in it (a room: its things and exits).
    pub contents: Vec<Num>,
    /// Whether the verb's owner may change it (its properties, where it is).
    pub writable: bool,
}

/// What a run would do, in the order it asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deed {
    /// A line for one person in a room the run can see.
    Tell { to: String, line: String },
    /// A line for everyone in a room.
    Say { room: Num, line: String },
    /// A property set (or, `None`, taken away).
    Set {
        obj: Num,
        key: String,
        value: Option<String>,
    },
    /// A thing moved into a room.
    Move { obj: Num, to: Num },
}

/// Why a run did nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The code does not compile.
    Compile(String),
    /// It ran into one of its limits.
    Limit(String),
    /// It was stopped (`@kill`, or the town stopping).
    Killed,
    /// It failed: a runtime error, or an API call it may not make.
    Error(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Compile(e) => write!(f, "it does not compile: {e}"),
            Failure::Limit(e) => write!(f, "it was stopped at its limit: {e}"),
            Failure::Killed => f.write_str("it was killed"),
            Failure::Error(e) => write!(f, "it failed: {e}"),
        }
    }
}

/// Checks that `code` compiles, as `@program` stores it; the error, in words.
pub fn check(code: &str) -> Result<(), String> {
    if code.len() > MAX_CODE {
        return Err(format!("a verb may hold at most {MAX_CODE} bytes of code"));
    }
    engine(&Limits::default())
        .compile(code)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// The engine every check and run uses: Rhai's standard functions, the limits, and nothing
/// that compiles more code (`eval`) or holds values out of the limits' sight (`curry`: Rhai
/// does not count what a function pointer carries; closures are not built in at all).
fn engine(limits: &Limits) -> Engine {
    let mut engine = Engine::new();
    limits.apply(&mut engine);
    engine.disable_symbol("eval");
    engine.disable_symbol("curry");
    this_is_a_name(&mut engine);
    engine
}

/// An object, as a run holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Obj(pub Num);

/// A person, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Person(pub String);

/// What the API calls share while a run goes: what it may read, and what it has done so far.
struct State {
    snap: Snapshot,
    deeds: Vec<Deed>,
    rng: u64,
}

type Shared = Rc<RefCell<State>>;

fn fail<T>(message: impl Into<String>) -> Result<T, Box<EvalAltResult>> {
    Err(Box::new(EvalAltResult::ErrorRuntime(
        Dynamic::from(message.into()),
        Position::NONE,
    )))
}

/// Where a run was stopped, as `on_progress` says it: by `@kill`, or by the clock.
const KILLED: &str = "killed";
const OUT_OF_TIME: &str = "out of time";

impl State {
    fn seen(&self, o: &Obj) -> Result<&Seen, Box<EvalAltResult>> {
        match self.snap.objects.get(&o.0) {
            Some(s) => Ok(s),
            None => fail(format!("#{} is out of this verb's reach", o.0)),
        }
    }

    fn seen_mut(&mut self, o: &Obj) -> Result<&mut Seen, Box<EvalAltResult>> {
        match self.snap.objects.get_mut(&o.0) {
            Some(s) => Ok(s),
            None => fail(format!("#{} is out of this verb's reach", o.0)),
        }
    }

    fn deed(&mut self, deed: Deed) -> Result<(), Box<EvalAltResult>> {
        if self.deeds.len() >= MAX_DEEDS {
            return fail(format!(
                "a verb may do at most {MAX_DEEDS} things in one run"
            ));
        }
        self.deeds.push(deed);
        Ok(())
    }

    /// The room `this` is in (or `this`, a room); for a thing someone carries, the room the
    /// typist stands in.
    fn here(&self) -> Num {
        match self.snap.objects.get(&self.snap.this) {
            Some(Seen {
                location: Some(r), ..
            }) if self.snap.objects.get(r).is_none_or(|s| s.kind != "pocket") => *r,
            Some(Seen {
                location: Some(_), ..
            }) => self.snap.player_room,
            _ => self.snap.this,
        }
    }

    /// A line as a run may say it: one line, no control or bidirectional characters, not too
    /// long (as every face cleans what people type).
    fn line(text: &str) -> Result<String, Box<EvalAltResult>> {
        let line = crate::text::clean(text).into_owned();
        if line.chars().count() > MAX_LINE {
            return fail(format!("a line may be at most {MAX_LINE} characters long"));
        }
        Ok(line)
    }

    /// A number from the run's own generator (splitmix64, seeded by the world).
    fn next(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// Runs `code` on `snap`, within `limits`, until it ends or `stop` is set; the deeds it would
/// do, or why it did nothing.
pub fn run(
    code: &str,
    snap: Snapshot,
    limits: &Limits,
    stop: Arc<AtomicBool>,
) -> Result<Vec<Deed>, Failure> {
    let state: Shared = Rc::new(RefCell::new(State {
        rng: snap.seed,
        snap,
        deeds: Vec::new(),
    }));
    let mut engine = engine(limits);
    let began = Instant::now();
    let time = limits.time;
    engine.on_progress(move |ops| {
        // Looked at every 256 operations: a clock read costs more than an operation.
        if ops % 256 != 0 {
            return None;
        }
        if stop.load(Ordering::Relaxed) {
            return Some(Dynamic::from(KILLED));
        }
        (began.elapsed() > time).then(|| Dynamic::from(OUT_OF_TIME))
    });
    api(&mut engine, &state);
    let ast = engine
        .compile(code)
        .map_err(|e| Failure::Compile(e.to_string()))?;
    let mut scope = rhai::Scope::new();
    {
        let s = state.borrow();
        // Variables, not constants, so that `this["lit"] = "yes"` may write through them.
        scope.push("this", Obj(s.snap.this));
        scope.push("player", Person(s.snap.player.clone()));
        scope.push("here", Obj(s.snap.player_room));
        scope.push_constant("verb", s.snap.verb.clone());
        let words: Array = s.snap.words.iter().cloned().map(Dynamic::from).collect();
        scope.push_constant("words", words);
        scope.push_constant("argstr", s.snap.words.join(" "));
    }
    let outcome = engine.run_ast_with_scope(&mut scope, &ast);
    drop(engine);
    match outcome {
        Ok(()) => {}
        Err(e) => return Err(failure(*e, limits)),
    }
    let state = Rc::try_unwrap(state)
        .map(RefCell::into_inner)
        .map_err(|_| Failure::Error("the run still held its state".into()))?;
    Ok(state.deeds)
}

/// `this` is the verb's object, as in MOO: a name like any other in a verb's code. (Rhai keeps
/// the word for methods, and refuses it outside one.)
fn this_is_a_name(engine: &mut Engine) {
    #[expect(
        deprecated,
        reason = "Rhai marks the token mapper volatile, not deprecated"
    )]
    engine.on_parse_token(|token, _, _| match token {
        rhai::Token::Reserved(s) if s.as_str() == "this" => rhai::Token::Identifier(s),
        other => other,
    });
}

/// A Rhai error, as a [`Failure`] in words for the programmer.
fn failure(e: EvalAltResult, limits: &Limits) -> Failure {
    match e {
        EvalAltResult::ErrorTerminated(token, _) => {
            if token.clone().into_string().is_ok_and(|t| t == KILLED) {
                Failure::Killed
            } else {
                Failure::Limit(format!("it ran for longer than {:?}", limits.time))
            }
        }
        EvalAltResult::ErrorTooManyOperations(_) => Failure::Limit(format!(
            "it took more than {} operations",
            limits.operations
        )),
        EvalAltResult::ErrorStackOverflow(_) => {
            Failure::Limit(format!("its calls went deeper than {MAX_CALLS}"))
        }
        EvalAltResult::ErrorDataTooLarge(what, _) => Failure::Limit(format!(
            "{what} grew past its limit ({} bytes)",
            limits.memory
        )),
        EvalAltResult::ErrorTooManyVariables(_) => {
            Failure::Limit("it made too many variables".into())
        }
        EvalAltResult::ErrorInFunctionCall(_, _, inner, _) => failure(*inner, limits),
        // `throw`, and the API's refusals: their words, and where.
        EvalAltResult::ErrorRuntime(value, pos) => Failure::Error(match pos.line() {
            Some(line) => format!("{value} (line {line})"),
            None => value.to_string(),
        }),
        other => Failure::Error(other.to_string()),
    }
}

/// The API: everything a verb can reach, each call checked against what the run may see.
fn api(engine: &mut Engine, state: &Shared) {
    engine.register_type_with_name::<Obj>("Obj");
    engine.register_type_with_name::<Person>("Person");
    // `print` and `debug` tell the one who typed the verb, as `tell(player, ...)` does.
    let s = state.clone();
    engine.on_print(move |text| {
        let mut st = s.borrow_mut();
        let to = st.snap.player.clone();
        if let Ok(line) = State::line(text) {
            let _ = st.deed(Deed::Tell { to, line });
        }
    });
    engine.on_debug(|_, _, _| {});

    engine.register_fn("to_string", |o: &mut Obj| format!("#{}", o.0));
    engine.register_fn("to_string", |p: &mut Person| p.0.clone());
    engine.register_fn("==", |a: Obj, b: Obj| a == b);
    engine.register_fn("!=", |a: Obj, b: Obj| a != b);
    engine.register_fn("==", |a: Person, b: Person| a.0.eq_ignore_ascii_case(&b.0));
    engine.register_fn("!=", |a: Person, b: Person| !a.0.eq_ignore_ascii_case(&b.0));
    engine.register_get("name", |p: &mut Person| p.0.clone());
    engine.register_get("num", |o: &mut Obj| o.0 as i64);

    let s = state.clone();
    engine.register_get(
        "name",
        move |o: &mut Obj| -> Result<String, Box<EvalAltResult>> {
            Ok(s.borrow().seen(o)?.name.clone())
        },
    );
    let s = state.clone();
    engine.register_get(
        "description",
        move |o: &mut Obj| -> Result<String, Box<EvalAltResult>> {
            Ok(s.borrow().seen(o)?.description.clone())
        },
    );
    let s = state.clone();
    engine.register_get(
        "kind",
        move |o: &mut Obj| -> Result<String, Box<EvalAltResult>> {
            Ok(s.borrow().seen(o)?.kind.to_owned())
        },
    );
    let s = state.clone();
    engine.register_get(
        "location",
        move |o: &mut Obj| -> Result<Dynamic, Box<EvalAltResult>> {
            Ok(s.borrow()
                .seen(o)?
                .location
                .map_or(Dynamic::UNIT, |r| Dynamic::from(Obj(r))))
        },
    );
    let s = state.clone();
    engine.register_get(
        "contents",
        move |o: &mut Obj| -> Result<Array, Box<EvalAltResult>> {
            Ok(s.borrow()
                .seen(o)?
                .contents
                .iter()
                .map(|n| Dynamic::from(Obj(*n)))
                .collect())
        },
    );
    let s = state.clone();
    engine.register_get(
        "people",
        move |o: &mut Obj| -> Result<Array, Box<EvalAltResult>> {
            let st = s.borrow();
            st.seen(o)?;
            Ok(st
                .snap
                .people
                .get(&o.0)
                .into_iter()
                .flatten()
                .map(|n| Dynamic::from(Person(n.clone())))
                .collect())
        },
    );

    // Properties: `get(obj, key)` (or `obj["key"]`) is the string stored, or `()`.
    let s = state.clone();
    let get = move |o: &mut Obj, key: &str| -> Result<Dynamic, Box<EvalAltResult>> {
        Ok(s.borrow()
            .seen(o)?
            .props
            .get(key)
            .map_or(Dynamic::UNIT, |v| Dynamic::from(v.clone())))
    };
    engine.register_fn("get", get.clone());
    engine.register_indexer_get(get);
    let s = state.clone();
    let set = move |o: &mut Obj, key: &str, value: Dynamic| -> Result<(), Box<EvalAltResult>> {
        let value = if value.is_unit() {
            None
        } else {
            Some(value.to_string())
        };
        let mut st = s.borrow_mut();
        let seen = st.seen_mut(o)?;
        if !seen.writable {
            return fail(format!("#{} is not this verb's owner's to change", o.0));
        }
        let key = prop_key(key)?;
        match &value {
            Some(v) => seen.props.insert(key.clone(), v.clone()),
            None => seen.props.remove(&key),
        };
        st.deed(Deed::Set {
            obj: o.0,
            key,
            value,
        })
    };
    engine.register_fn("set", set.clone());
    engine.register_indexer_set(set);

    let s = state.clone();
    engine.register_fn(
        "tell",
        move |p: Person, text: &str| -> Result<(), Box<EvalAltResult>> {
            let mut st = s.borrow_mut();
            let known = st
                .snap
                .people
                .values()
                .flatten()
                .any(|n| n.eq_ignore_ascii_case(&p.0));
            if !known {
                return fail(format!("{} is not here to be told", p.0));
            }
            let line = State::line(text)?;
            st.deed(Deed::Tell { to: p.0, line })
        },
    );
    let s = state.clone();
    engine.register_fn("say", move |text: &str| -> Result<(), Box<EvalAltResult>> {
        let mut st = s.borrow_mut();
        let room = st.here();
        let line = State::line(text)?;
        st.deed(Deed::Say { room, line })
    });
    let s = state.clone();
    engine.register_fn(
        "move",
        move |o: Obj, to: Obj| -> Result<(), Box<EvalAltResult>> {
            let mut st = s.borrow_mut();
            if st.seen(&to)?.kind != "room" {
                return fail(format!("#{} is not a room", to.0));
            }
            let from = {
                let seen = st.seen(&o)?;
                if seen.kind != "thing" {
                    return fail(format!("#{} is not a thing: only things move", o.0));
                }
                if !seen.writable {
                    return fail(format!("#{} is not this verb's owner's to move", o.0));
                }
                seen.location
            };
            if let Some(from) = from.and_then(|f| st.snap.objects.get_mut(&f)) {
                from.contents.retain(|n| *n != o.0);
            }
            if let Some(dest) = st.snap.objects.get_mut(&to.0) {
                dest.contents.push(o.0);
            }
            if let Some(seen) = st.snap.objects.get_mut(&o.0) {
                seen.location = Some(to.0);
            }
            st.deed(Deed::Move { obj: o.0, to: to.0 })
        },
    );
    let s = state.clone();
    engine.register_fn("object", move |n: i64| -> Result<Obj, Box<EvalAltResult>> {
        let o = Obj(n.max(0) as Num);
        s.borrow().seen(&o)?;
        Ok(o)
    });
    let s = state.clone();
    engine.register_fn("random", move |n: i64| -> Result<i64, Box<EvalAltResult>> {
        if n < 1 {
            return fail("random(n) needs n of 1 or more");
        }
        Ok((s.borrow_mut().next() % n as u64) as i64 + 1)
    });
    let s = state.clone();
    engine.register_fn("time", move || s.borrow().snap.now);
}

/// Whether `key` may name a property: a letter, then letters, digits or `_`, 32 at most (as
/// `@set` takes it too).
pub fn prop_name_ok(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_alphabetic())
        && key.len() <= 32
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn prop_key(key: &str) -> Result<String, Box<EvalAltResult>> {
    if prop_name_ok(key) {
        Ok(key.to_owned())
    } else {
        fail(format!("\"{key}\" cannot be a property's name"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap() -> Snapshot {
        let mut objects = BTreeMap::new();
        objects.insert(
            1,
            Seen {
                kind: "room",
                name: "Garden".into(),
                contents: vec![2, 3],
                writable: true,
                ..Seen::default()
            },
        );
        objects.insert(
            2,
            Seen {
                kind: "thing",
                name: "a lamp".into(),
                location: Some(1),
                writable: true,
                ..Seen::default()
            },
        );
        objects.insert(
            3,
            Seen {
                kind: "thing",
                name: "a statue".into(),
                location: Some(1),
                writable: false,
                ..Seen::default()
            },
        );
        Snapshot {
            this: 2,
            player: "Ann".into(),
            player_room: 1,
            verb: "push".into(),
            words: vec!["lamp".into()],
            objects,
            people: BTreeMap::from([(1, vec!["Ann".into(), "Bob".into()])]),
            now: 1_800_000_000,
            seed: 7,
        }
    }

    fn go(code: &str) -> Result<Vec<Deed>, Failure> {
        run(
            code,
            snap(),
            &Limits::default(),
            Arc::new(AtomicBool::new(false)),
        )
    }

    #[test]
    fn the_api_reads_the_snapshot_and_leaves_deeds_in_order() {
        let deeds = go(r#"
            let on = this["on"] == "yes";
            this["on"] = if on { "no" } else { "yes" };
            say(this.name + " is " + this["on"] + " in " + this.location.name);
            tell(player, "You push it.");
            print(words[0]);
        "#)
        .unwrap();
        assert_eq!(
            deeds,
            vec![
                Deed::Set {
                    obj: 2,
                    key: "on".into(),
                    value: Some("yes".into())
                },
                Deed::Say {
                    room: 1,
                    line: "a lamp is yes in Garden".into()
                },
                Deed::Tell {
                    to: "Ann".into(),
                    line: "You push it.".into()
                },
                Deed::Tell {
                    to: "Ann".into(),
                    line: "lamp".into()
                },
            ]
        );
    }

    #[test]
    fn what_the_owner_may_not_change_and_what_is_out_of_reach_fail_the_run() {
        assert!(matches!(
            go(r#"let o = object(3); o["x"] = 1;"#),
            Err(Failure::Error(_))
        ));
        assert!(matches!(go("object(99).name"), Err(Failure::Error(_))));
        assert!(matches!(
            go(r#"tell(player, "a"); move(object(3), object(1));"#),
            Err(Failure::Error(_))
        ));
        assert!(matches!(
            go(r#"move(this, object(2));"#),
            Err(Failure::Error(_))
        ));
    }

    #[test]
    fn every_limit_stops_its_runaway() {
        let limit = |code: &str| matches!(go(code), Err(Failure::Limit(_)));
        assert!(limit("loop {}"));
        assert!(limit("fn f(n) { f(n + 1) } f(0)"));
        assert!(limit(r#"let s = "x"; loop { s += s; }"#));
        assert!(limit("let a = []; loop { a.push(1); }"));
        assert!(limit(
            "let a = []; loop { a.push([1, 2, 3, 4, 5, 6, 7, 8]); }"
        ));
        let slow = Limits {
            operations: u64::MAX / 2,
            time: Duration::from_millis(50),
            ..Limits::default()
        };
        assert!(matches!(
            run("loop {}", snap(), &slow, Arc::new(AtomicBool::new(false))),
            Err(Failure::Limit(_))
        ));
        assert_eq!(
            run("loop {}", snap(), &slow, Arc::new(AtomicBool::new(true))),
            Err(Failure::Killed)
        );
    }

    #[test]
    fn nothing_reaches_out_of_the_sandbox() {
        assert!(matches!(
            go(r#"import "x" as x;"#),
            Err(Failure::Compile(_))
        ));
        assert!(matches!(
            go(r#"eval("1")"#),
            Err(Failure::Error(_)) | Err(Failure::Compile(_))
        ));
        assert!(go("say(\"a\\u001b[2Jb\\nc\")").is_ok_and(|d| d
            == vec![Deed::Say {
                room: 1,
                line: "a[2Jb c".into()
            }]));
    }

    /// What a function pointer would carry is out of the limits' sight: none can be made to
    /// carry anything.
    #[test]
    fn no_closure_or_curried_pointer_holds_values() {
        assert!(go(r#"let s = "x"; let f = || s; f.call();"#).is_err());
        assert!(go(r#"fn f(a) { a } let g = Fn("f").curry("x"); g.call();"#).is_err());
    }

    #[test]
    fn a_random_number_is_in_range_and_time_is_the_snapshots() {
        let deeds = go("let r = random(6); if r < 1 || r > 6 { throw 1 } print(time());").unwrap();
        assert_eq!(
            deeds,
            vec![Deed::Tell {
                to: "Ann".into(),
                line: "1800000000".into()
            }]
        );
    }
}
