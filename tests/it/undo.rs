//! Undo you can trust: every verb of the registry, on every face that has it (a telnet line, an
//! MCP tool, a REST route, a web page's action), is driven into its refusals in a live town, and
//! after each refusal the town (its fingerprint: every player, session, invitation, watcher,
//! queue, rating and game's own state; see `World::fingerprint`) and what is stored (every row
//! of every table of the SQLite file) are exactly as they were. The refusals are made from each
//! verb's declared arguments (none where some are required, a value of the wrong type, names
//! of nothing, text over the limit, a wizard's verb by someone who is not one) and from the
//! town as it stands (a chess game where it is not your move, each room's tables, everyone at
//! their one running session, a Werewolf match by night). A verb added to the registry is
//! driven the same way, and the test fails if a verb, on any face it has, was never refused.
//! A refusal by the face itself (an HTTP error, a body that is not one) is held to the same.
//! A verb that changes the town and then meets a bug is undone as whole.
//!
//! Whether the verb refused (a telnet line's answer is text either way) is read from the
//! refusals the kernel notes in test builds (`moot::verbs::refusals`), per actor.
//!
//! What a refusal may change, on purpose, is named in [`allowed`], each with its reason.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::{Agent, Client, TestServer, mcp_tool, sql_exec, sql_rows, sqlite_dump};
use moot::games::REGISTRY;
use moot::verbs::refusals;

/// The town and what is stored, as a test compares them.
#[derive(Clone)]
struct Snapshot {
    world: BTreeMap<String, String>,
    stored: BTreeMap<String, Vec<String>>,
}

/// The town and what is stored, read through `db` (a connection to the server's file).
async fn snapshot(s: &TestServer, db: &rusqlite::Connection) -> Snapshot {
    // The fingerprint is asked behind whatever is in flight, so what it waited for is stored.
    let world = s.fingerprint().await;
    Snapshot {
        world,
        stored: sqlite_dump(db),
    }
}

/// A name, session id or thing that is nowhere in the town.
const NOBODY: &str = "zzNobody";

/// Over the longest text any face takes in one argument.
fn too_long() -> String {
    "z".repeat(moot::text::MAX_TEXT_BYTES + 1)
}

/// What a refusal may change on purpose, by the key of the fingerprint or the table.
///
/// - A player's idle clocks (`players/<id>/last_active`, `…/last_heard`): every line typed and
///   every call is activity, refused or not (`who`'s idle time, the sweep of silent agents).
/// - A running session's `tally`, and the `session_conduct` table that stores it: a move the
///   rules refuse counts against its player's conduct (see `ratings::conduct`), which is what
///   the tally is for: one refusal more for the one refused, in one game, and nothing else
///   (checked by [`counted_once`]).
fn allowed(key: &str, before: Option<&str>, after: Option<&str>) -> Option<&'static str> {
    if key.starts_with("players/")
        && (key.ends_with("/last_active") || key.ends_with("/last_heard"))
    {
        return Some("activity");
    }
    if key == "stored/session_conduct" {
        return Some("conduct");
    }
    if key.starts_with("sessions/")
        && let (Some(b), Some(a)) = (before, after)
    {
        let differ: Vec<(&str, &str)> = b.lines().zip(a.lines()).filter(|(x, y)| x != y).collect();
        if b.lines().count() == a.lines().count()
            && differ
                .iter()
                .all(|(x, y)| x.starts_with("tally:") && y.starts_with("tally:"))
        {
            return Some("conduct");
        }
    }
    None
}

/// What changed between two snapshots that no refusal may change; and the allowed changes'
/// names.
fn changes(before: &Snapshot, after: &Snapshot) -> (Vec<String>, BTreeSet<&'static str>) {
    let mut wrong = Vec::new();
    let mut allowed_seen = BTreeSet::new();
    let keys: BTreeSet<&String> = before.world.keys().chain(after.world.keys()).collect();
    for k in keys {
        let (b, a) = (before.world.get(k), after.world.get(k));
        if b == a {
            continue;
        }
        match allowed(k, b.map(String::as_str), a.map(String::as_str)) {
            Some(why) => {
                allowed_seen.insert(why);
            }
            None => wrong.push(format!("world {k}:\n  before: {b:?}\n  after:  {a:?}")),
        }
    }
    let tables: BTreeSet<&String> = before.stored.keys().chain(after.stored.keys()).collect();
    for t in tables {
        let (b, a) = (before.stored.get(t), after.stored.get(t));
        if b == a {
            continue;
        }
        let key = format!("stored/{t}");
        match allowed(&key, None, None) {
            Some(why) => {
                allowed_seen.insert(why);
            }
            None => {
                let b: BTreeSet<&String> = b.into_iter().flatten().collect();
                let a: BTreeSet<&String> = a.into_iter().flatten().collect();
                let gone: Vec<_> = b.difference(&a).collect();
                let came: Vec<_> = a.difference(&b).collect();
                wrong.push(format!("table {t}:\n  gone: {gone:?}\n  came: {came:?}"));
            }
        }
    }
    (wrong, allowed_seen)
}

/// The refusals and missed deadlines a session's fingerprint counts, by agent, from its
/// `tally:` line (`{"<agent>": Tally {refused: 1, missed: 0}, …}`).
fn tallies(session: &str) -> BTreeMap<String, (u64, u64)> {
    let line = session
        .lines()
        .find_map(|l| l.strip_prefix("tally: "))
        .expect("a session shows its tally");
    let number = |s: &str, after: &str| -> u64 {
        let s = &s[s.find(after).expect("a count") + after.len()..];
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        s[..end].parse().unwrap()
    };
    let mut out = BTreeMap::new();
    let mut rest = line;
    while let Some(open) = rest.find('"') {
        rest = &rest[open + 1..];
        let close = rest.find('"').unwrap();
        let agent = rest[..close].to_owned();
        rest = &rest[close + 1..];
        let end = rest.find('}').unwrap();
        let tally = &rest[..end];
        out.insert(
            agent,
            (number(tally, "refused: "), number(tally, "missed: ")),
        );
        rest = &rest[end..];
    }
    out
}

/// A refusal counted in its player's conduct counted exactly that: one game's tally shows
/// one refusal more for `actor` and nothing else, and the stored tally moved with it, for
/// `actor` alone.
fn counted_once(before: &Snapshot, after: &Snapshot, actor: &str, sent: &Sent) {
    let case = format!("{:?} {} ({})", sent.face, sent.target, sent.what);
    let moved: Vec<&String> = after
        .world
        .keys()
        .filter(|k| k.starts_with("sessions/") && before.world.get(*k) != after.world.get(*k))
        .collect();
    assert_eq!(moved.len(), 1, "{case}: tallies moved in {moved:?}");
    let mut expected = tallies(&before.world[moved[0]]);
    let count = expected.entry(actor.to_owned()).or_default();
    count.0 += 1;
    let now = *count;
    assert_eq!(tallies(&after.world[moved[0]]), expected, "{case}");
    let rows = |s: &Snapshot| -> BTreeSet<String> {
        s.stored
            .get("session_conduct")
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    };
    let (b, a) = (rows(before), rows(after));
    let mine = format!("agent_id={actor:?}");
    for row in b.symmetric_difference(&a) {
        assert!(
            row.contains(&mine),
            "{case}: another's stored tally moved: {row}"
        );
    }
    let stored = format!("{mine} refused={} missed={}", now.0, now.1);
    assert!(a.iter().any(|r| r.contains(&stored)), "{case}: {a:?}");
}

/// The faces a case can come through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Face {
    Telnet,
    Mcp,
    Rest,
    Web,
}

/// One thing sent, and where: what it is for the report, and the face's own answer.
struct Sent {
    face: Face,
    /// The verb, route or action it drives.
    target: String,
    what: String,
    /// The face's answer, for the failure message.
    answer: String,
    /// The face itself refused it (an HTTP error status, an MCP error), whether or not a verb
    /// did.
    face_refused: bool,
}

/// The town the cases run in, and who sends them.
struct Town {
    s: TestServer,
    /// A connection of the test's own to the server's SQLite file.
    db: rusqlite::Connection,
    /// A person on telnet, who plays black in a chess game with `ugo`.
    uma: Client,
    uma_id: String,
    /// A wizard on telnet.
    wiz: Client,
    wiz_id: String,
    /// An agent over MCP, REST and (signed in with its token) the web; white in the game.
    ugo: Agent,
    web: reqwest::Client,
    cookie: String,
    csrf: String,
    chess: String,
    /// A game of tic-tac-toe Uma asked Ugo to, waiting for him.
    invitation: String,
    /// Every verb, route and action each face was refused, and the cases that were.
    refused: BTreeMap<(Face, String), usize>,
    cases: usize,
    allowed: BTreeMap<&'static str, usize>,
    base: Snapshot,
    /// How long the town must stand still after something done before it is the base: a
    /// moment where nothing answers on its own (no game of the house's is played), longer
    /// where the house's players answer.
    quiet: Duration,
}

/// A chess game Ugo (white) makes with Uma (black), who accepts it; without a clock, nothing
/// moves in it unless someone moves.
async fn chess_game(s: &TestServer, ugo: &Agent, uma: &mut Client, uma_id: &str) -> String {
    let (status, v) = s
        .api()
        .post(
            "/sessions",
            &ugo.token,
            json!({"template": "chess.v1", "participants": {"white": ugo.id, "black": uma_id}}),
        )
        .await;
    assert_eq!(status, 201, "{v}");
    let chess = v["session_id"].as_str().unwrap().to_owned();
    let out = uma.command(&format!("session_accept {chess}")).await;
    assert!(out.iter().any(|l| l.contains("accept")), "{out:?}");
    chess
}

fn id_of(s: &TestServer, name: &str) -> String {
    let rows = sql_rows(
        &s.db,
        &format!("SELECT agent_id FROM agents WHERE name = '{name}'"),
    );
    rows[0][0].clone()
}

impl Town {
    async fn new() -> Town {
        Town::new_with(|_| {}).await
    }

    /// [`Town::new`], its configuration changed by `tweak` after the town's own.
    async fn new_with(tweak: impl FnOnce(&mut moot::Config)) -> Town {
        // The notice board fills with the house only after an hour: a case that signs it must
        // not start a match whose timers would move the town on its own. What is stored is read
        // from the SQLite file itself, so the town keeps one on PostgreSQL runs too.
        let s = TestServer::start_sqlite_with(|c| {
            c.games.werewolf.fill_after = Duration::from_secs(3600).into();
            // One running session each: Uma and Ugo have theirs, so whatever would start
            // another is refused, after it has looked at everything else.
            c.sessions_per_agent = 1;
            tweak(c);
        })
        .await;
        let mut uma = s.player("Uma").await;
        let uma_id = id_of(&s, "Uma");
        // Wiz is made a wizard by the operator, which holds from the next login.
        let mut wiz = s.player("Wiz").await;
        wiz.send("@quit").await;
        wiz.until_closed().await;
        sql_exec(&s.db, "UPDATE agents SET wizard = 1 WHERE name = 'Wiz'").unwrap();
        let mut wiz = Client::connect(s.addr).await;
        wiz.expect("quit").await;
        wiz.send("connect Wiz pw-Wiz-moot").await;
        wiz.expect("$#$xmcp version: 1.1").await;
        wiz.command("@wrap off").await;
        let wiz_id = id_of(&s, "Wiz");
        let api = s.api();
        let ugo = api.agent(Some("Ugo")).await;
        // Uma asks Ugo to a game of tic-tac-toe, which waits for his answer: once the chess
        // game below is running, his accepting it would take him past his one running session.
        let out = uma.command("session_create tictactoe.v1 x=Uma o=Ugo").await;
        let (status, v) = api.get("/sessions", &ugo.token).await;
        assert_eq!(status, 200, "{v}");
        let invitation = v["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["status"] == "waiting")
            .unwrap_or_else(|| panic!("{out:?} {v}"))["session_id"]
            .as_str()
            .unwrap()
            .to_owned();
        let chess = chess_game(&s, &ugo, &mut uma, &uma_id).await;
        // Ugo is in the town (an MCP call brings an agent in) and signed in on the web.
        let look = mcp_tool(s.http, &ugo.token, "look", json!({})).await;
        assert_ne!(look["isError"], true, "{look}");
        let web = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let (cookie, csrf) = crate::web::sign_in(s.http, "Ugo", &ugo.token).await;
        let moot::store::Database::Sqlite(path) = &s.db else {
            panic!("the test reads an SQLite file");
        };
        let db = rusqlite::Connection::open(path).unwrap();
        let base = snapshot(&s, &db).await;
        Town {
            s,
            db,
            uma,
            uma_id,
            wiz,
            wiz_id,
            ugo,
            web,
            cookie,
            csrf,
            chess,
            invitation,
            refused: BTreeMap::new(),
            cases: 0,
            allowed: BTreeMap::new(),
            base,
            quiet: Duration::from_millis(30),
        }
    }

    /// Checks what `sent` did: if a verb or the face refused it, nothing may have changed
    /// beyond what [`allowed`] names; if not, the town as it now is becomes the base.
    async fn check(&mut self, actor: &str, verb: Option<&str>, sent: Sent) {
        self.cases += 1;
        let noted = refusals::take(actor);
        let after = snapshot(&self.s, &self.db).await;
        let by_verb = noted.iter().any(|r| verb.is_none_or(|v| r.verb == v));
        if !by_verb && !sent.face_refused {
            // Done, not refused: whatever it changed is the town now (and if it ended the
            // game, a new one begins, for the refusals only a game in play gives).
            self.base = after;
            self.settle().await;
            self.ensure_game().await;
            return;
        }
        let (wrong, allowed) = changes(&self.base, &after);
        if allowed.contains("conduct") {
            counted_once(&self.base, &after, actor, &sent);
        }
        assert!(
            wrong.is_empty(),
            "{:?} {} ({}) was refused ({noted:?}; the face answered {}) yet changed:\n{}",
            sent.face,
            sent.target,
            sent.what,
            sent.answer,
            wrong.join("\n")
        );
        for a in allowed {
            *self.allowed.entry(a).or_default() += 1;
        }
        // The next case compares with the town as it is, allowed changes included.
        self.base = after;
        *self.refused.entry((sent.face, sent.target)).or_default() += 1;
    }

    /// Waits until the town stands still after something that was done (the house's players
    /// answer a move of the game they play a moment later, off the world): unchanged for
    /// `self.quiet`, looked at every 30 ms; and takes it as the base.
    async fn settle(&mut self) {
        let step = Duration::from_millis(30);
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        let mut still = Duration::ZERO;
        while still < self.quiet {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the town does not stand still"
            );
            tokio::time::sleep(step).await;
            let now = snapshot(&self.s, &self.db).await;
            let (moved, _) = changes(&self.base, &now);
            self.base = now;
            still = if moved.is_empty() {
                still + step
            } else {
                Duration::ZERO
            };
        }
    }

    /// A chess game in play between Ugo (white) and Uma (black): the one there is, or a new
    /// one if a case that was not refused ended it (a resignation, say).
    async fn ensure_game(&mut self) {
        let (_, v) = self
            .s
            .api()
            .get(&format!("/sessions/{}/state", self.chess), &self.ugo.token)
            .await;
        if v["status"] == "active" {
            return;
        }
        self.chess = chess_game(&self.s, &self.ugo, &mut self.uma, &self.uma_id).await;
        refusals::take(&self.uma_id);
        refusals::take(&self.ugo.id);
        self.base = snapshot(&self.s, &self.db).await;
    }

    /// Uma (on telnet) and Ugo (over MCP) walk through `exit`; the town they leave behind is
    /// the base from then on.
    async fn walk(&mut self, exit: &str) {
        let out = self.uma.command(exit).await;
        assert!(!out.is_empty(), "{out:?}");
        let out = mcp_tool(self.s.http, &self.ugo.token, "go", json!({ "exit": exit })).await;
        assert_ne!(out["isError"], true, "{out}");
        refusals::take(&self.uma_id);
        refusals::take(&self.ugo.id);
        self.base = snapshot(&self.s, &self.db).await;
    }

    /// A line typed by `who` (Uma, or the wizard).
    async fn line(&mut self, wizard: bool, verb: &str, line: &str) {
        let (client, actor) = if wizard {
            (&mut self.wiz, self.wiz_id.clone())
        } else {
            (&mut self.uma, self.uma_id.clone())
        };
        let answer = client.command(line).await;
        let what = if line.len() > 60 {
            format!("{}… ({} bytes)", &line[..60], line.len())
        } else {
            line.to_owned()
        };
        let sent = Sent {
            face: Face::Telnet,
            target: verb.to_owned(),
            what,
            answer: format!("{answer:?}"),
            face_refused: false,
        };
        self.check(&actor, Some(verb), sent).await;
    }

    /// Tool `tool` (verb `verb`) called by Ugo with `args`.
    async fn tool(&mut self, verb: &str, tool: &str, what: &str, args: Value) {
        let (token, actor) = (self.ugo.token.clone(), self.ugo.id.clone());
        self.tool_as(&token, &actor, verb, tool, what, args).await;
    }

    /// Tool `tool` (verb `verb`) called with `args` by `actor`, whose token is `token`.
    async fn tool_as(
        &mut self,
        token: &str,
        actor: &str,
        verb: &str,
        tool: &str,
        what: &str,
        args: Value,
    ) {
        let answer = mcp_tool(self.s.http, token, tool, args).await;
        let face_refused = answer.get("code").is_some();
        let sent = Sent {
            face: Face::Mcp,
            target: verb.to_owned(),
            what: what.to_owned(),
            answer: short(&answer),
            face_refused,
        };
        self.check(actor, Some(verb), sent).await;
    }

    /// A REST request by Ugo (the route `route`, run by verb `verb` if one does).
    async fn rest(
        &mut self,
        route: &str,
        verb: Option<&str>,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) {
        let (token, actor) = (self.ugo.token.clone(), self.ugo.id.clone());
        self.rest_as(&token, &actor, route, verb, method, path, body)
            .await;
    }

    /// [`Town::rest`] by `actor`, whose token is `token`.
    #[expect(clippy::too_many_arguments, reason = "a request, and who sends it")]
    async fn rest_as(
        &mut self,
        token: &str,
        actor: &str,
        route: &str,
        verb: Option<&str>,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) {
        let body = body.map(|b| b.to_string());
        let (status, answer) = self
            .s
            .api()
            .send(method, path, Some(token), body.as_deref())
            .await;
        let sent = Sent {
            face: Face::Rest,
            target: route.to_owned(),
            what: format!(
                "{method} {path} {}",
                body.as_deref().map(short_str).unwrap_or_default()
            ),
            answer: format!("{status} {}", short(&answer)),
            face_refused: status >= 400,
        };
        self.check(actor, verb, sent).await;
    }

    /// A web page's action, asked by Ugo signed in (or by nobody, `signed` false).
    async fn web(&mut self, action: &str, method: &str, path: &str, body: Value, signed: bool) {
        let url = format!("http://{}{path}", self.s.http);
        let mut req = match method {
            "GET" => self.web.get(url),
            _ => self
                .web
                .post(url)
                .header("content-type", "application/json")
                .body(body.to_string()),
        };
        if signed {
            req = req
                .header("cookie", &self.cookie)
                .header("x-csrf-token", &self.csrf);
        }
        let r = req.send().await.unwrap();
        let status = r.status().as_u16();
        let text = r.text().await.unwrap();
        let sent = Sent {
            face: Face::Web,
            target: action.to_owned(),
            what: format!("{method} {path} {body} signed in: {signed}"),
            answer: format!("{status} {}", short_str(&text)),
            face_refused: status >= 400,
        };
        let actor = self.ugo.id.clone();
        self.check(&actor, None, sent).await;
    }
}

/// A verb, and a line that runs it.
type Typed = (&'static str, &'static str);

/// `path` with its `{…}` segment (a game's id) filled with `id`.
fn with_id(path: &str, id: &str) -> String {
    match path.split_once('{') {
        Some((head, tail)) => format!("{head}{id}{}", tail.split_once('}').unwrap().1),
        None => path.to_owned(),
    }
}

fn short(v: &Value) -> String {
    short_str(&v.to_string())
}

fn short_str(s: &str) -> String {
    if s.len() > 300 {
        let mut end = 300;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    } else {
        s.to_owned()
    }
}

/// A verb's argument properties from its schema: each name, its JSON types, and whether it is
/// required.
fn properties(schema: &Value) -> Vec<(String, BTreeSet<String>, bool)> {
    let required: BTreeSet<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, p)| {
            let mut types = BTreeSet::new();
            collect_types(p, &mut types);
            (name.clone(), types, required.contains(name.as_str()))
        })
        .collect()
}

fn collect_types(p: &Value, types: &mut BTreeSet<String>) {
    match &p["type"] {
        Value::String(t) => {
            types.insert(t.clone());
        }
        Value::Array(ts) => types.extend(ts.iter().filter_map(Value::as_str).map(str::to_owned)),
        _ => {}
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for alt in p[key].as_array().into_iter().flatten() {
            collect_types(alt, types);
        }
    }
    if p.get("enum").is_some() || p.get("const").is_some() {
        types.insert("string".into());
    }
}

/// A value of none of `types` (none if the property takes anything).
fn wrong_type(types: &BTreeSet<String>) -> Option<Value> {
    if types.is_empty() {
        return None;
    }
    if !types.contains("object") {
        Some(json!({ "zz": [1] }))
    } else if !types.contains("array") {
        Some(json!([[1]]))
    } else {
        None
    }
}

/// The arguments that name nothing: every text `NOBODY`, every number far too large.
fn naming_nothing(props: &[(String, BTreeSet<String>, bool)]) -> Option<Value> {
    let mut args = serde_json::Map::new();
    for (name, types, _) in props {
        if types.contains("string") {
            args.insert(name.clone(), json!(NOBODY));
        } else if types.contains("integer") || types.contains("number") {
            args.insert(name.clone(), json!(987_654_321));
        }
    }
    (!args.is_empty()).then_some(Value::Object(args))
}

/// A verb's refusals on telnet, typed by Uma: nothing after it where it needs something;
/// words that name nothing; a game that is nothing; text over the limit; in the game she plays,
/// where it is not her turn. A wizard's verb is typed by the wizard too, naming nothing (never
/// `@shutdown`, which nothing after it stops).
async fn telnet_cases(t: &mut Town, e: &moot::verbs::VerbEntry) {
    let chess = t.chess.clone();
    let props = properties(&(e.args_schema)().to_value());
    let name = e.name;
    if props.iter().any(|(_, _, required)| *required) {
        t.line(false, name, name).await;
    }
    t.line(false, name, &format!("{name} {NOBODY} {NOBODY} {NOBODY}"))
        .await;
    t.line(false, name, &format!("{name} #{NOBODY}")).await;
    t.line(
        false,
        name,
        &format!("{name} {NOBODY} {}", "z".repeat(2000)),
    )
    .await;
    t.line(false, name, &format!("{name} #{chess}")).await;
    let wizards = moot::verbs::WIZARDS;
    if wizards.iter().any(|w| w.name == name) && name != "shutdown" {
        t.line(true, name, &format!("{name} {NOBODY}.example"))
            .await;
        t.line(true, name, name).await;
    }
}

/// A verb's refusals as an MCP tool, called by Ugo: no arguments where some are required;
/// each argument of the wrong type; names of nothing; text over the limit; in the game he
/// plays, nonsense for every text.
async fn mcp_cases(t: &mut Town, e: &moot::verbs::VerbEntry) {
    let chess = t.chess.clone();
    let props = properties(&(e.args_schema)().to_value());
    let (name, tool) = (e.name, e.tool_name());
    if props.iter().any(|(_, _, required)| *required) {
        t.tool(name, tool, "no arguments", json!({})).await;
    }
    for (p, types, _) in &props {
        if let Some(v) = wrong_type(types) {
            let what = format!("{p} of the wrong type");
            t.tool(name, tool, &what, json!({ p.as_str(): v })).await;
        }
    }
    if let Some(args) = naming_nothing(&props) {
        t.tool(name, tool, "names of nothing", args).await;
    }
    t.tool(
        name,
        tool,
        "text over the limit",
        json!({ "zz": too_long() }),
    )
    .await;
    let mut in_game = serde_json::Map::new();
    for (p, types, _) in &props {
        if types.contains("string") {
            let v = if p.contains("game") || p.contains("session") || p.contains("match") {
                chess.clone()
            } else {
                "zz9".to_owned()
            };
            in_game.insert(p.clone(), json!(v));
        }
    }
    if !in_game.is_empty() {
        t.tool(name, tool, "in the game, nonsense", Value::Object(in_game))
            .await;
    }
}

/// Drives every verb into its refusals on telnet and over MCP, every REST route and every web
/// action into theirs, and checks after each that nothing changed.
#[tokio::test]
async fn every_refusal_on_every_face_leaves_the_town_and_the_store_as_they_were() {
    let mut t = Town::new().await;
    let mut mcp_verbs = BTreeSet::new();

    for &e in REGISTRY.iter() {
        telnet_cases(&mut t, e).await;
        if e.toolset.is_some() {
            mcp_verbs.insert(e.name);
            mcp_cases(&mut t, e).await;
        }
    }
    // Where a verb is offered (a table, the notice board), it gets further before it refuses:
    // Uma and Ugo go to each room from the square and give each verb offered there its cases
    // again.
    let placed: Vec<&moot::verbs::VerbEntry> = REGISTRY
        .iter()
        .copied()
        .filter(|e| !e.offered_by.is_empty() || e.at_tables != moot::verbs::AtTables::No)
        .collect();
    // And there, starting a game of what is played there goes as far as Uma's one running
    // session, which refuses it.
    let starts: [(&str, &str, &[Typed]); 4] = [
        (
            "north",
            "south",
            &[("practice", "practice"), ("werewolf", "werewolf practice")],
        ),
        (
            "east",
            "west",
            &[
                ("challenge", "challenge computer"),
                ("challenge", "challenge Ugo as white"),
            ],
        ),
        (
            "west",
            "east",
            &[
                ("blackjack_deal", "deal"),
                ("blackjack_deal", "blackjack_deal"),
            ],
        ),
        (
            "south",
            "north",
            &[
                ("play", "play tictactoe with house"),
                ("play", "play rps with house"),
                ("play", "play connect4 with Ugo"),
                ("play", "play tictactoe with Uma"),
            ],
        ),
    ];
    for (there, back, games) in starts {
        t.walk(there).await;
        for &e in &placed {
            telnet_cases(&mut t, e).await;
            if e.toolset.is_some() {
                mcp_cases(&mut t, e).await;
            }
        }
        for (verb, line) in games {
            t.line(false, verb, line).await;
        }
        t.walk(back).await;
    }
    // Games Ugo may not start, and one Uma may not begin by accepting it: each has one running.
    let tool_of = |verb: &str| {
        REGISTRY
            .iter()
            .find(|e| e.name == verb)
            .unwrap()
            .tool_name()
    };
    for args in [json!({"type": "computer"}), json!({"type": "agent"})] {
        let tool = tool_of("createGame");
        t.tool("createGame", tool, "at the session limit", args)
            .await;
    }
    let tool = tool_of("practice");
    t.tool("practice", tool, "at the session limit", json!({}))
        .await;
    let invitation = t.invitation.clone();
    let tool = tool_of("accept");
    t.tool(
        "accept",
        tool,
        "at the session limit",
        json!({"name": "Uma"}),
    )
    .await;
    let tool = tool_of("session_accept");
    let args = json!({ "session_id": invitation });
    t.tool("session_accept", tool, "at the session limit", args)
        .await;
    let route = "POST /sessions/{session_id}/accept";
    let path = format!("/sessions/{invitation}/accept");
    t.rest(route, Some("session_accept"), "POST", &path, None)
        .await;
    // Uma's own invitation is not hers to accept; and in chess it is not her move.
    t.line(
        false,
        "session_accept",
        &format!("session_accept {invitation}"),
    )
    .await;
    t.line(false, "move", "move e7e5").await;

    // REST: every route of the API.
    let sessions: [(&str, Option<&str>); 7] = [
        ("POST /sessions", Some("session_create")),
        ("GET /sessions", Some("session_list")),
        ("POST /sessions/{session_id}/accept", Some("session_accept")),
        (
            "POST /sessions/{session_id}/decline",
            Some("session_decline"),
        ),
        ("GET /sessions/{session_id}/state", Some("session_state")),
        ("POST /sessions/{session_id}/actions", Some("session_act")),
        ("GET /sessions/{session_id}/log", Some("session_log")),
    ];
    let mut rest_routes = BTreeSet::new();
    for r in moot::http::routes() {
        let route = format!("{} {}", r.method, r.path);
        match route.as_str() {
            // Not the world's: liveness, the API's own description, a game's page (a read
            // that refuses nothing but a missing game, below), and agents' registration
            // (its refusals below).
            "GET /health" | "GET /openapi.json" => continue,
            // Lists anyone may read, which take nothing that could be refused.
            "GET /tournaments" | "GET /crosstable.json" => continue,
            _ => {}
        }
        rest_routes.insert(route);
    }
    let s_id = |path: &str, id: &str| path.replace("{session_id}", id);
    for (route, verb) in sessions {
        let (method, path) = route.split_once(' ').unwrap();
        let chess = t.chess.clone();
        for id in [NOBODY, "987654321", chess.as_str()] {
            let path = s_id(path, id);
            match method {
                "GET" if path == "/sessions" => {
                    let other = format!("/sessions?agent_id={}", t.uma_id);
                    t.rest(route, verb, "GET", &other, None).await;
                    t.rest(route, verb, "GET", "/sessions?zz=1&agent_id=", None)
                        .await;
                    break;
                }
                "GET" => t.rest(route, verb, "GET", &path, None).await,
                _ if path == "/sessions" => {
                    t.rest(route, verb, "POST", &path, Some(json!({}))).await;
                    t.rest(route, verb, "POST", &path, Some(json!({"template": 5})))
                        .await;
                    let body = json!({"template": NOBODY, "participants": {}});
                    t.rest(route, verb, "POST", &path, Some(body)).await;
                    let body = json!({"template": "chess.v1", "participants": {"white": t.ugo.id, "black": NOBODY}});
                    t.rest(route, verb, "POST", &path, Some(body)).await;
                    let body = json!({"template": "chess.v1", "participants": {"white": t.ugo.id, "black": too_long()}});
                    t.rest(route, verb, "POST", &path, Some(body)).await;
                    break;
                }
                _ => {
                    let body = if route.ends_with("actions") {
                        for b in [
                            json!({}),
                            json!({"action": 5}),
                            json!({"action": too_long()}),
                        ] {
                            t.rest(route, verb, "POST", &path, Some(b)).await;
                        }
                        json!({"action": "zz9", "expected_tick": 0})
                    } else {
                        json!({})
                    };
                    t.rest(route, verb, "POST", &path, Some(body)).await;
                }
            }
        }
    }
    // The tournaments' routes: an event that is not there, and schedules that cannot be.
    for (route, verb) in [
        ("GET /tournaments/{id}", "tournament"),
        ("GET /tournaments/{id}/pairing", "pairing"),
        ("POST /tournaments/{id}/join", "join"),
        ("POST /tournaments/{id}/withdraw", "withdraw"),
        ("POST /tournaments/{id}/start", "start"),
    ] {
        let (method, path) = route.split_once(' ').unwrap();
        for id in [NOBODY, "987654321"] {
            let path = path.replace("{id}", id);
            let body = (method == "POST").then(|| json!({}));
            t.rest(route, Some(verb), method, &path, body).await;
        }
    }
    for body in [
        json!({}),
        json!({"game": "chess", "format": "swiss", "clock": "5+3"}),
        json!({"game": NOBODY, "format": "arena", "minutes": 5, "clock": "1m"}),
        json!({"game": "chess", "format": "arena", "minutes": 0, "clock": "5+3"}),
        json!({"game": "rps", "format": "round_robin", "clock": "1m"}),
    ] {
        t.rest(
            "POST /tournaments",
            Some("schedule"),
            "POST",
            "/tournaments",
            Some(body),
        )
        .await;
    }
    // The reads the games and the town serve by their verbs, with an id that is nothing.
    let mut read_routes = Vec::new();
    for m in moot::games::ALL {
        read_routes.extend(m.reads.iter());
    }
    read_routes.extend(moot::verbs::TOWN_READS.iter());
    for read in &read_routes {
        let route = format!("GET {}", read.path);
        for id in [NOBODY, "987654321"] {
            let path = with_id(read.path, id);
            t.rest(&route, Some(read.verb.name), "GET", &path, None)
                .await;
            let path = format!("{path}?zz={}", too_long());
            t.rest(&route, Some(read.verb.name), "GET", &path, None)
                .await;
        }
    }
    // The games' pages, and agents' registration.
    for m in moot::games::ALL {
        if let Some(page) = &m.page {
            let route = format!("GET {}", page.path);
            let path = with_id(page.path, "987654321");
            t.rest(&route, None, "GET", &path, None).await;
        }
    }
    for body in [
        json!({"name": "x"}),
        json!({"name": 5}),
        json!({"name": too_long()}),
        json!({"name": "Uma"}),
    ] {
        t.rest("POST /agents", None, "POST", "/agents", Some(body))
            .await;
    }

    // The web's actions, each asked by nobody, with a body that is not one, and of a match
    // that is nothing.
    let mut web_actions = BTreeSet::new();
    for m in moot::games::ALL {
        let Some(page) = &m.page else { continue };
        for a in page.actions {
            let method = match a.method {
                moot::verbs::game_module::WebMethod::Get => "GET",
                moot::verbs::game_module::WebMethod::Post => "POST",
            };
            let action = format!("{method} {}", a.path);
            web_actions.insert(action.clone());
            let path = with_id(a.path, "987654321");
            t.web(&action, method, &path, json!({}), false).await;
            t.web(
                &action,
                method,
                &path,
                json!({"sign": "zz", "on": "zz"}),
                true,
            )
            .await;
            t.web(
                &action,
                method,
                &path,
                json!({"sign": false, "on": true}),
                true,
            )
            .await;
            if a.path.contains('{') {
                let path = with_id(a.path, NOBODY);
                t.web(&action, method, &path, json!({"on": true}), true)
                    .await;
            }
        }
    }

    // Every verb was refused on every face it has; every route and action was refused.
    let mut missing = Vec::new();
    for &e in REGISTRY.iter() {
        if !t.refused.contains_key(&(Face::Telnet, e.name.to_owned())) {
            missing.push(format!("telnet {}", e.name));
        }
        if mcp_verbs.contains(e.name) && !t.refused.contains_key(&(Face::Mcp, e.name.to_owned())) {
            missing.push(format!("mcp {}", e.tool_name()));
        }
    }
    for r in &rest_routes {
        if !t.refused.contains_key(&(Face::Rest, r.clone())) {
            missing.push(format!("rest {r}"));
        }
    }
    for a in &web_actions {
        if !t.refused.contains_key(&(Face::Web, a.clone())) {
            missing.push(format!("web {a}"));
        }
    }
    assert!(missing.is_empty(), "never refused: {missing:#?}");
    let mut figures = String::new();
    let by_face = |f: Face| t.refused.iter().filter(move |((g, _), _)| *g == f);
    for f in [Face::Telnet, Face::Mcp, Face::Rest, Face::Web] {
        let targets = by_face(f).count();
        let cases: usize = by_face(f).map(|(_, n)| n).sum();
        let _ = write!(figures, "{f:?}: {targets} verbs/routes, {cases} refusals; ");
    }
    eprintln!(
        "undo: {} cases sent; {figures}allowed changes seen: {:?}",
        t.cases, t.allowed
    );
    t.s.stop().await;
}

/// What changed from the town's base to now, beyond what [`allowed`] names and `also` (keys
/// of the fingerprint this check allows, each for a reason its caller gives).
async fn changed_since_base(t: &mut Town, also: &[&str]) -> Vec<String> {
    let after = snapshot(&t.s, &t.db).await;
    let (wrong, _) = changes(&t.base, &after);
    t.base = after;
    wrong
        .into_iter()
        .filter(|w| !also.iter().any(|k| w.starts_with(&format!("world {k}:"))))
        .collect()
}

/// A verb that changes the town and then meets a bug is undone whole, on every face, and
/// nothing of it is stored: `@fault panic` (which sets the actor's description, a stored
/// change, and walks them to another room, which that room hears of, before it panics) typed
/// on telnet and called over MCP; and a chess move over REST that is made and recorded before
/// a session hook panics (`@fault arm`). What the fault changes is what the fingerprint
/// watches: the same changes made by the plain verbs show in it.
#[tokio::test]
async fn a_verb_that_changes_the_town_and_then_meets_a_bug_is_undone_whole() {
    const BUG: &str = "Something went wrong; nothing changed.";
    let mut t = Town::new().await;

    // Telnet.
    assert_eq!(t.uma.command("@fault panic").await, [BUG]);
    let wrong = changed_since_base(&mut t, &[]).await;
    assert!(
        wrong.is_empty(),
        "@fault panic on telnet left:\n{}",
        wrong.join("\n")
    );
    // MCP.
    let out = mcp_tool(t.s.http, &t.ugo.token, "@fault", json!({"kind": "panic"})).await;
    assert_eq!(out["isError"], true, "{out}");
    let wrong = changed_since_base(&mut t, &[]).await;
    assert!(
        wrong.is_empty(),
        "@fault panic over MCP left:\n{}",
        wrong.join("\n")
    );

    // REST: Ugo arms the trap (a change of its own, the new base), then moves; the move is
    // undone, and only the trap is spent, on purpose: the same move then goes through.
    let out = mcp_tool(t.s.http, &t.ugo.token, "@fault", json!({"kind": "arm"})).await;
    assert_ne!(out["isError"], true, "{out}");
    let _ = changed_since_base(&mut t, &[]).await;
    let path = format!("/sessions/{}/actions", t.chess);
    let e4 = json!({"action": "e2e4", "expected_tick": 0});
    let (status, body) = t.s.api().post(&path, &t.ugo.token, e4.clone()).await;
    assert_eq!(status, 500, "{body}");
    let wrong = changed_since_base(&mut t, &["extensions/Armed"]).await;
    assert!(
        wrong.is_empty(),
        "a move that met a bug left:\n{}",
        wrong.join("\n")
    );
    let (status, body) = t.s.api().post(&path, &t.ugo.token, e4).await;
    assert_eq!(status, 200, "{body}");
    let moved = changed_since_base(&mut t, &[]).await;
    let chess = format!("world sessions/{}:", t.chess);
    assert!(moved.iter().any(|w| w.starts_with(&chess)), "{moved:?}");
    assert!(
        moved.iter().any(|w| w.starts_with("table actions:")),
        "{moved:?}"
    );

    // What `@fault panic` does before its bug, done by the plain verbs, shows.
    t.uma.command("@describe me as Changed by a command.").await;
    t.uma.command("north").await;
    let changed = changed_since_base(&mut t, &[]).await;
    let uma = format!("world players/{}:", t.uma_id);
    for part in [uma.as_str(), "world occupants:", "table agents:"] {
        assert!(
            changed.iter().any(|w| w.starts_with(part)),
            "{part}: {changed:#?}"
        );
    }
    t.s.stop().await;
}

/// The refusals only a game in play gives, in a Werewolf match: the wizard (who plays in
/// nothing else) starts a practice match with seven of the house's bots and goes into its
/// building, where every verb of the game, and each the game puts in the place of the town's
/// own (`say` in the building), is typed with nothing, with names of nothing, with every seat's
/// name, and with words; each that is a tool is called over MCP with the same, and the match's
/// session is sent actions over REST; before and after the wizard is ready, by night. Game time runs a
/// thousand times slower than the clock, so no deadline moves the match while it is watched.
#[tokio::test]
async fn every_refusal_in_a_werewolf_match_leaves_the_town_and_the_store_as_they_were() {
    let mut t = Town::new_with(|c| c.time_scale = 0.001).await;
    // The bots answer what the wizard does a moment later: the town must be still for a
    // while before it is the base.
    t.quiet = Duration::from_millis(600);
    let werewolf = moot::games::ALL
        .iter()
        .find(|m| m.commands.is_some())
        .expect("the game with its own building");
    let mut verbs: Vec<&moot::verbs::VerbEntry> = werewolf.verbs.iter().collect();
    verbs.extend(werewolf.commands.as_ref().unwrap().verbs.iter());
    t.wiz.command("north").await;
    let started = t.wiz.command("werewolf practice").await;
    // One number for the match: its door is `game<number>`.
    let number = started[0]
        .strip_prefix("Werewolf Game #")
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("{started:?}"))
        .to_owned();
    let inside = t.wiz.command(&format!("game{number}")).await;
    assert!(inside.iter().any(|l| l.contains("bot")), "{inside:?}");
    // The wizard's token, for the same verbs as tools and the match's session over REST.
    let issued = t.wiz.command("@token").await;
    let token = issued
        .iter()
        .find_map(|l| l.strip_prefix("Your API token: "))
        .unwrap_or_else(|| panic!("{issued:?}"))
        .trim()
        .to_owned();
    let status = mcp_tool(t.s.http, &token, "et.werewolf.queue.status", json!({})).await;
    let id = status["structuredContent"]["matchAssignment"]["matchId"]
        .as_str()
        .unwrap_or_else(|| panic!("{status}"))
        .to_owned();
    refusals::take(&t.wiz_id);
    t.settle().await;
    let wiz = t.wiz_id.clone();
    let mut refused = BTreeSet::new();
    let mut refused_as_tools = BTreeSet::new();
    for round in ["before ready", "by night"] {
        if round == "by night" {
            t.line(true, "ready", "ready").await;
        }
        // Each verb that is a tool, called with nothing, with the match and with a match that
        // is not there, at every seat and at words.
        for &e in verbs.iter().filter(|e| e.toolset.is_some()) {
            let (name, tool) = (e.name, e.tool_name());
            let mut cases = vec![
                ("nothing", json!({})),
                ("the match", json!({ "matchId": id })),
                ("no such match", json!({ "matchId": NOBODY })),
                ("words", json!({ "matchId": id, "text": "words of no one" })),
                (
                    "no seat",
                    json!({ "matchId": id, "targetPlayerId": NOBODY }),
                ),
            ];
            for seat in 1..=8 {
                cases.push((
                    "a seat",
                    json!({ "matchId": id, "targetPlayerId": format!("p{seat}") }),
                ));
            }
            for (what, args) in cases {
                let before = t.refused.get(&(Face::Mcp, name.to_owned())).copied();
                t.tool_as(&token, &wiz, name, tool, what, args).await;
                if t.refused.get(&(Face::Mcp, name.to_owned())).copied() != before {
                    refused_as_tools.insert(name);
                }
            }
        }
        // The match's session over REST: actions out of turn, of no one, and nonsense.
        let acts = with_id("/sessions/{id}/actions", &id);
        for action in [
            "vote p1",
            "kill p2",
            "inspect p3",
            "protect p4",
            "nonsense",
            "",
        ] {
            let body = json!({ "action": action });
            t.rest_as(
                &token,
                &wiz,
                "POST /sessions/{id}/actions",
                Some("session_act"),
                "POST",
                &acts,
                Some(body),
            )
            .await;
        }
        for &e in &verbs {
            let name = e.name;
            let mut lines = vec![
                name.to_owned(),
                format!("{name} {NOBODY}"),
                format!("{name} #{NOBODY}"),
                format!("{name} words of no one"),
            ];
            lines.extend((1..=8).map(|seat| format!("{name} p{seat}")));
            for line in lines {
                let before = t.refused.get(&(Face::Telnet, name.to_owned())).copied();
                t.line(true, name, &line).await;
                if t.refused.get(&(Face::Telnet, name.to_owned())).copied() != before {
                    refused.insert(name);
                }
            }
        }
    }
    let never: Vec<&str> = verbs
        .iter()
        .map(|e| e.name)
        .filter(|n| !refused.contains(n))
        .collect();
    assert!(never.is_empty(), "never refused in the match: {never:?}");
    let never: Vec<&str> = verbs
        .iter()
        .filter(|e| e.toolset.is_some())
        .map(|e| e.name)
        .filter(|n| !refused_as_tools.contains(n))
        .collect();
    assert!(
        never.is_empty(),
        "never refused as tools in the match: {never:?}"
    );
    eprintln!(
        "undo in a match: {} cases sent, {} verbs refused on telnet and {} as tools; allowed \
         changes seen: {:?}",
        t.cases,
        refused.len(),
        refused_as_tools.len(),
        t.allowed
    );
    t.s.stop().await;
}

/// Stopping and starting to watch, undone, leave the watchers exactly as they were: each in
/// their place (the order a game's notes go out in), an all-seeing watcher still all-seeing,
/// and no empty list behind. (Found by reading: `unwatch`'s undo put the watcher back last and
/// without the right to see everything, and `omniscient` had no undo at all.)
#[test]
fn watching_and_unwatching_undone_leave_the_watchers_as_they_were() {
    use moot::verbs::Verb as _;
    use moot::verbs::watch::{GameRequired, Unwatch};
    use moot::world::{AgentId, Cx, Face};
    let map = moot::world::load::load_built_in().unwrap();
    let directory = std::sync::Arc::new(moot::identity::Directory::new(Vec::new()));
    let mut world = moot::games::new_world(map, directory);
    let sid = moot::world::sessions::SessionId::from(7);
    let [ann, bob, cat]: [AgentId; 3] = ["ann".into(), "bob".into(), "cat".into()];
    for (who, all) in [(&ann, false), (&bob, true), (&cat, false)] {
        assert!(world.watch(sid, who, all).is_some());
    }
    let undo_all = |world: &mut moot::world::World, cx: &mut Cx| {
        while let Some(undo) = cx.undos.pop() {
            undo(world);
        }
    };
    let game = || GameRequired { game: "#7".into() };
    let before = world.fingerprint();
    let mut cx = Cx::new(bob.clone(), Face::Telnet);
    Unwatch::run(&mut world, &mut cx, game()).unwrap();
    assert_ne!(world.fingerprint(), before, "bob stopped watching");
    undo_all(&mut world, &mut cx);
    assert_eq!(world.fingerprint(), before);
    // A watch undone leaves no list behind for a game nobody watched (the `watch` verb's own
    // undo; the verb itself refuses a game that is not there).
    let before = world.fingerprint();
    let undo = world.watch(8.into(), &ann, false).unwrap();
    undo(&mut world);
    assert_eq!(world.fingerprint(), before);
}
