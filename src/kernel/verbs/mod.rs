//! The verb registry: every command a player can give, declared once.
//!
//! A verb is a type implementing [`Verb`]: its name, aliases, help, a typed argument struct
//! (serde + JSON Schema), a nom parser from the text a person types, and a handler that returns
//! text for people and a typed result for programs. [`REGISTRY`] erases those types into a
//! table of [`VerbEntry`] rows, and every front end works from that table: the telnet face with
//! [`run_line`] (handed to the world task, which does not import verbs), the MCP face with
//! [`VerbEntry::run_json`] and the schemas. Nothing about a verb is written twice.

pub mod parse;
pub mod schema;

pub mod game_module;
pub mod tables;
pub mod target;
pub mod watch;
pub mod which;

#[cfg(feature = "testing")]
pub mod faults;
#[cfg(feature = "testing")]
pub mod refusals;

pub mod build;
pub mod carry;
pub mod crosstable;
pub mod describe;
pub mod display;
pub mod emote;
mod error;
pub mod events;
pub mod games;
pub mod glance;
pub mod go;
pub mod home;
pub mod inventory;
pub mod invitations;
pub mod look;
pub mod page;
pub mod perms;
pub mod program;
pub mod ratings;
pub mod resign;
pub mod say;
pub mod sessions;
pub mod token;
pub mod toolset;
pub mod tournaments;
pub mod whisper;
pub mod who;
pub mod wizard;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::world::sessions::Cost;
use crate::world::{Cx, ThingKind, World};
pub use error::{ErrorKind, Pending, VerbError, shaped};
pub use toolset::Toolset;

/// What a handler gives back to the one who acted: lines for a person, data for a program.
#[derive(Debug)]
pub struct Reply<T> {
    pub text: Vec<String>,
    pub data: T,
}

impl<T> Reply<T> {
    pub fn new(text: Vec<String>, data: T) -> Reply<T> {
        Reply { text, data }
    }
}

/// The answer to input that matches no verb, as every MOO gives it.
pub const NOT_UNDERSTOOD: &str = "I don't understand that.";

/// One verb, declared once.
pub trait Verb: 'static {
    const NAME: &'static str;
    const ALIASES: &'static [&'static str] = &[];
    /// How to type it, e.g. `page <name> <text>`.
    const USAGE: &'static str;
    /// One line for the verb list.
    const SUMMARY: &'static str;
    /// The rest of `help <verb>`.
    const HELP: &'static str;
    /// True if it never changes anything.
    const READ_ONLY: bool;
    /// It takes an action in a game: called over MCP or REST, it may carry a `reasoning` (why,
    /// in the caller's words), stored with the action and shown to nobody until the game is
    /// over (see [`Cx::reasoning`]).
    const REASONED: bool = false;
    /// It begins a session, or sets aside the id of one to begin later, needing nothing of
    /// where its caller stands: called over MCP or REST in a town with game worlds, it is
    /// placed on one, which then holds the session (the town numbers it, and hands the call
    /// there; see `cluster::games`).
    const PLACED: bool = false;
    /// The kinds of thing that offer this verb (shown by `examine`); empty for verbs that
    /// belong to no thing.
    const OFFERED_BY: &'static [ThingKind] = &[];
    /// Where `help` lists it.
    const TOPIC: Topic = Topic::BASICS;
    /// Whether the tables of the town's games offer it too.
    const AT_TABLES: AtTables = AtTables::No;
    /// How it appears as an MCP tool where a spec fixes that (a dotted name, a title, the exact
    /// description and schemas); otherwise the tool is the verb's name and generated schemas.
    const TOOL: ToolSpec = ToolSpec::GENERATED;
    /// The set of tools it is served in over MCP; none for a verb that only makes sense on
    /// telnet.
    const TOOLSET: Option<Toolset> = Some(Toolset::TOWN);
    /// The JSON arguments that are text of several lines (a verb's code): each line is cleaned
    /// as every text is, and the lines are kept. Every other text is made one line.
    const MULTILINE: &'static [&'static str] = &[];
    /// Its MCP tool's description: what it needs and what comes back, in one or two sentences,
    /// for an agent that reads the schemas beside it (the help above is for someone typing).
    /// Every verb served over MCP has one, unless a spec gives its tool whole.
    const TOOL_DESCRIPTION: &'static str = "";

    // Sent and owned, so that a call's JSON is read and written outside the world task.
    type Args: Serialize + DeserializeOwned + JsonSchema + Send + 'static;
    type Output: Serialize + JsonSchema + Send + 'static;

    /// Reads the arguments from what follows the verb's name on a typed line.
    fn parse(rest: &str) -> Result<Self::Args, VerbError>;

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: Self::Args,
    ) -> Result<Reply<Self::Output>, VerbError>;
}

/// A heading `help` lists verbs under: the town's own (moving and talking, agents' tools,
/// wizards) and one per game module, which declares its own.
#[derive(Debug, Clone, Copy)]
pub struct Topic {
    pub title: &'static str,
    /// The words `help` knows it by; the first is the one it suggests.
    pub words: &'static [&'static str],
    /// What a newcomer should know first.
    pub intro: &'static str,
    /// More to read after the verbs (a game's rules as the town runs them): agents' help and
    /// `/skill.md` print it, its times the wall clock's at the town's pace (`--time-scale`)...
    pub more: Option<fn(f64) -> Vec<String>>,
    /// ...while a person's `help`, which must fit a screen, names the command that prints it
    /// (`werewolf rules`).
    pub more_with: Option<&'static str>,
}

impl PartialEq for Topic {
    fn eq(&self, other: &Topic) -> bool {
        self.title == other.title
    }
}
impl Eq for Topic {}

impl Topic {
    pub const BASICS: Topic = Topic {
        title: "Moving and talking",
        words: &["basics", "talking", "moving"],
        intro: "Look around, walk through exits by name, and talk to whoever is here.",
        more: None,
        more_with: None,
    };

    /// How lines fit the screen, or are read by a screen reader, and the quick questions
    /// about a game that stand in for a glance at its board.
    pub const SCREEN: Topic = Topic {
        title: "Your screen",
        words: &["screen", "screenreader", "display"],
        intro: "How moot's lines fit your screen, or read well with a screen reader.",
        more: None,
        more_with: None,
    };

    /// The two-player games started with `play` at the tables.
    pub const TABLES: Topic = Topic {
        title: "Games at the tables",
        words: &["games", "tables"],
        intro: "The Game Room (south of the square) has tables for two: `play <game> with \
<name|house>` at one starts a game. Anyone may `watch` a game by its number.",
        more: None,
        more_with: None,
    };

    /// The tools AI agents use (the chess tools, the session tools, the mailbox).
    pub const AGENTS: Topic = Topic {
        title: "Agents' tools",
        words: &["agents", "tools", "mcp"],
        intro: "AI agents reach moot over MCP (every verb is a tool) and REST. Besides the \
verbs, they have the chess tools (createGame and the rest), the session tools for any template, and `events` \
for what happened around them. A person can give their own agent a token with `token`.",
        more: None,
        more_with: None,
    };

    /// The operator's helpers (see `moot admin grant`).
    pub const WIZARDS: Topic = Topic {
        title: "Wizards",
        words: &["wizards", "wizard", "admin"],
        intro: "Wizards keep the town: they may boot and ban (a character or an address), \
announce, and shut moot down. Every act is stored in the admin log. The operator makes a \
character a wizard with `moot admin grant NAME`.",
        more: None,
        more_with: None,
    };

    pub fn answers_to(&self, word: &str) -> bool {
        self.words.iter().any(|w| w.eq_ignore_ascii_case(word))
    }
}

/// Where a verb is offered besides the kinds it names: at the tables of the town's games,
/// whichever games the modules bring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtTables {
    No,
    /// At every game's table.
    Every,
    /// At the tables of games for two.
    ForTwo,
}

impl AtTables {
    /// Whether a verb so offered is offered at the table of `template`.
    pub fn offered_at(self, template: &crate::game_api::Template) -> bool {
        match self {
            AtTables::No => false,
            AtTables::Every => true,
            AtTables::ForTwo => template.roles.len() == 2,
        }
    }
}

/// A verb's MCP tool, as a spec fixes it. Every field left `None` is generated from the verb.
#[derive(Debug, Clone, Copy)]
pub struct ToolSpec {
    /// The tool's name, which may be dotted (`et.werewolf.queue.join`) while people type a
    /// short word.
    pub name: Option<&'static str>,
    pub title: Option<&'static str>,
    /// The input and output JSON Schemas, as JSON text, served exactly as written.
    pub input_schema: Option<&'static str>,
    pub output_schema: Option<&'static str>,
    /// The tool's `_meta`, as JSON text (e.g. MCP Apps' `{"ui": {"resourceUri": ...}}`).
    pub meta: Option<&'static str>,
    /// Where a spec fixes the whole tool object (name, title, description, schemas,
    /// annotations): the spec's object for the tool's `name`, served as given; it overrides
    /// every field above.
    pub definition: Option<fn(&str) -> serde_json::Value>,
}

impl ToolSpec {
    pub const GENERATED: ToolSpec = ToolSpec {
        name: None,
        title: None,
        input_schema: None,
        output_schema: None,
        meta: None,
        definition: None,
    };
}

/// A [`Verb`] with its types erased, so that all verbs fit in one table.
pub struct VerbEntry {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub usage: &'static str,
    pub summary: &'static str,
    pub help: &'static str,
    pub read_only: bool,
    pub reasoned: bool,
    pub placed: bool,
    pub offered_by: &'static [ThingKind],
    pub at_tables: AtTables,
    pub topic: Topic,
    pub tool: ToolSpec,
    pub toolset: Option<Toolset>,
    pub tool_description: &'static str,
    /// JSON Schema of the arguments.
    pub args_schema: fn() -> Schema,
    /// JSON Schema of the structured result.
    pub output_schema: fn() -> Schema,
    /// A typed line's arguments, as the JSON a program would send.
    pub parse_json: fn(&str) -> Result<serde_json::Value, VerbError>,
    /// Parses a typed line's arguments and runs the verb; returns the text for the actor.
    pub run_line: fn(&mut World, &mut Cx, &str) -> Result<Vec<String>, VerbError>,
    /// Runs the verb from JSON arguments; returns the text and the structured result.
    pub run_json: fn(&mut World, &mut Cx, serde_json::Value) -> Result<Reply<Json>, VerbError>,
    /// [`run_json`](Self::run_json) in three steps, so that a caller can read the arguments
    /// and write the result outside the world task, which then holds only the verb: reads
    /// JSON arguments for [`run_read`](Self::run_read)...
    pub read_args: fn(serde_json::Value) -> ReadArgs,
    /// ...runs the verb on them in the world, and gives back its result to be written.
    pub run_read: fn(&mut World, &mut Cx, ReadArgs) -> Result<Reply<Written>, VerbError>,
}

/// A verb's JSON arguments as read by its [`VerbEntry::read_args`]: cleaned, the `reasoning`
/// taken off and the rest in the verb's own type, or what was wrong with them, which the world
/// counts, notes and words as it does every refusal.
pub struct ReadArgs(Result<Box<dyn std::any::Any + Send>, VerbError>);

/// A verb's typed result, written as JSON by whoever takes it ([`Written::json`]).
pub struct Written(Box<dyn FnOnce() -> Json + Send>);

impl Written {
    fn of<T: Serialize + Send + 'static>(data: T) -> Written {
        Written(Box::new(move || {
            // A result that did not serialize would be a command done and denied: outputs are
            // plain structs with string keys, which serde_json always writes.
            #[expect(
                clippy::expect_used,
                reason = "outputs are plain structs with string keys, which serde_json always writes"
            )]
            serde_json::value::to_raw_value(&data).expect("results serialize")
        }))
    }

    pub fn json(self) -> Json {
        (self.0)()
    }
}

impl std::fmt::Debug for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Written(..)")
    }
}

/// A structured result as JSON text, written straight from the verb's typed output: a face
/// passes it on as it is (an MCP answer, a REST body) without building a tree of values and
/// walking it again; one that must edit it parses it ([`Reply::value`]).
pub type Json = Box<serde_json::value::RawValue>;

impl Reply<Json> {
    /// The data as a tree of values, for a face that adds to it.
    pub fn value(&self) -> serde_json::Value {
        // The text was written by serde_json from a value of ours: it always reads back.
        serde_json::from_str(self.data.get()).unwrap_or_default()
    }
}

impl VerbEntry {
    /// Its name as an MCP tool.
    pub fn tool_name(&self) -> &'static str {
        self.tool.name.unwrap_or(self.name)
    }

    pub fn answers_to(&self, word: &str) -> bool {
        self.name.eq_ignore_ascii_case(word)
            || self.aliases.iter().any(|a| a.eq_ignore_ascii_case(word))
    }
}

/// A verb's row in the table (public so a test can check one that is not registered).
pub const fn entry<V: Verb>() -> VerbEntry {
    VerbEntry {
        name: V::NAME,
        aliases: V::ALIASES,
        usage: V::USAGE,
        summary: V::SUMMARY,
        help: V::HELP,
        read_only: V::READ_ONLY,
        reasoned: V::REASONED,
        placed: V::PLACED,
        offered_by: V::OFFERED_BY,
        at_tables: V::AT_TABLES,
        topic: V::TOPIC,
        tool: V::TOOL,
        toolset: V::TOOLSET,
        tool_description: V::TOOL_DESCRIPTION,
        args_schema: args_schema_of::<V>,
        output_schema: schema_of::<V::Output>,
        parse_json: parse_json::<V>,
        run_line: run_line_of::<V>,
        run_json: run_json::<V>,
        read_args: read_args::<V>,
        run_read: run_read::<V>,
    }
}

/// A type's JSON Schema, made portable (see [`schema::portable`]).
fn schema_of<T: JsonSchema>() -> Schema {
    let mut v = SchemaGenerator::default()
        .into_root_schema_for::<T>()
        .to_value();
    schema::portable(&mut v);
    #[expect(
        clippy::expect_used,
        reason = "schemars made it an object, and `portable` keeps it one (the registry's tests \
                  build every schema)"
    )]
    Schema::try_from(v).expect("a portable schema is still a schema")
}

/// A verb's arguments' schema: its type's, and for a game action the `reasoning` the host
/// takes off before the verb reads the rest (where a spec fixes the schema, that is served as
/// written, and the argument is taken all the same).
fn args_schema_of<V: Verb>() -> Schema {
    let mut s = schema_of::<V::Args>();
    if V::REASONED
        && let Some(serde_json::Value::Object(props)) = s.get_mut("properties")
    {
        props.insert(
            REASONING.into(),
            serde_json::json!({ "type": "string", "description": "Why; hidden until the game ends." }),
        );
        props.insert(
            COST.into(),
            // Kept short: it is on every game action's tool, the town's set among them.
            serde_json::json!({
                "type": "object",
                "description": "tokens_in, tokens_out, think_ms"
            }),
        );
    }
    s
}

fn parse_json<V: Verb>(rest: &str) -> Result<serde_json::Value, VerbError> {
    let args = V::parse(rest)?;
    serde_json::to_value(args)
        .map_err(|e| VerbError::usage(format!("Bad arguments for {}: {e}", V::NAME)))
}

fn run_line_of<V: Verb>(w: &mut World, cx: &mut Cx, rest: &str) -> Result<Vec<String>, VerbError> {
    counted::<V>(cx);
    let r = V::parse(&crate::text::clean(rest)).and_then(|args| {
        cx.text_only = true;
        admitted::<V>(w, cx, args).map(|r| r.text)
    });
    noted(V::NAME, cx, r)
}

/// Runs verb `V` with arguments a face already holds as their type (REST's bodies, the web's
/// forms): the one way in for a face that does not go by a verb's name, counted, admitted and
/// run as a typed line or a tool call is. The arguments' text must already be cleaned (as
/// every face's extractor does), and only the structured result is read ([`Cx::data_only`]).
pub fn run<V: Verb>(
    w: &mut World,
    cx: &mut Cx,
    args: V::Args,
) -> Result<Reply<V::Output>, VerbError> {
    counted::<V>(cx);
    cx.data_only = true;
    let r = admitted::<V>(w, cx, args);
    in_its_shape::<V, _>(w, noted(V::NAME, cx, r))
}

/// [`run`], its result as JSON (a web page's action answers with it).
pub fn run_value<V: Verb>(
    w: &mut World,
    cx: &mut Cx,
    args: V::Args,
) -> Result<serde_json::Value, VerbError> {
    let reply = run::<V>(w, cx, args)?;
    // A result that does not serialize is a bug the world's boundary undoes (see `run_json`).
    #[expect(
        clippy::expect_used,
        reason = "outputs are plain structs with string keys, which serde_json always writes"
    )]
    Ok(serde_json::to_value(reply.data).expect("results serialize"))
}

/// A spec's tool (a Werewolf tool) answers every refusal in its shape, whatever refused it and
/// whichever face asked.
fn in_its_shape<V: Verb, T>(w: &World, r: Result<T, VerbError>) -> Result<T, VerbError> {
    if V::TOOL.definition.is_some() {
        let now = crate::world::sessions::iso(w.wall_now());
        return r.map_err(|e| shaped(now, e));
    }
    r
}

/// Verb `verb`'s answer, its refusal noted for the tests (see `refusals`); nothing in a
/// release.
fn noted<T>(verb: &'static str, cx: &Cx, r: Result<T, VerbError>) -> Result<T, VerbError> {
    #[cfg(feature = "testing")]
    if let Err(e) = &r {
        refusals::note(&cx.actor, verb, cx.face, &e.message);
    }
    #[cfg(not(feature = "testing"))]
    let _ = (verb, cx);
    r
}

/// The command counted under its face, and the context told which verb it runs.
fn counted<V: Verb>(cx: &mut Cx) {
    crate::metrics::get().command(cx.face.name(), V::NAME);
    cx.verb = Some(V::NAME);
}

/// The verb run on parsed arguments, once the world admits a write from the actor.
fn admitted<V: Verb>(
    w: &mut World,
    cx: &mut Cx,
    args: V::Args,
) -> Result<Reply<V::Output>, VerbError> {
    if !V::READ_ONLY {
        w.admit_write(&cx.actor, cx.now)?;
    }
    V::run(w, cx, args)
}

fn run_json<V: Verb>(
    w: &mut World,
    cx: &mut Cx,
    args: serde_json::Value,
) -> Result<Reply<Json>, VerbError> {
    run_read::<V>(w, cx, read_args::<V>(args)).map(|r| Reply {
        text: r.text,
        data: r.data.json(),
    })
}

/// The arguments with the `reasoning` a game action may carry, as [`read_args`] hands them on.
type Read<V> = (Option<String>, Option<Cost>, <V as Verb>::Args);

fn read_args<V: Verb>(mut args: serde_json::Value) -> ReadArgs {
    let read = || -> Result<Read<V>, VerbError> {
        let lines: Vec<(&str, String)> = V::MULTILINE
            .iter()
            .filter_map(|k| {
                let v = args.as_object_mut()?.remove(*k)?;
                Some((*k, v.as_str()?.to_owned()))
            })
            .collect();
        crate::text::clean_json(&mut args).map_err(|e| VerbError::usage(e.to_string()))?;
        for (k, text) in lines {
            // Text of several lines is code, which may be as long as a verb's code.
            if text.len() > crate::sandbox::MAX_CODE {
                return Err(VerbError::usage(format!(
                    "`{k}` may be at most {} bytes long; this one is {}.",
                    crate::sandbox::MAX_CODE,
                    text.len()
                )));
            }
            let kept: Vec<String> = text
                .lines()
                .map(|l| crate::text::clean(l).into_owned())
                .collect();
            if let Some(a) = args.as_object_mut() {
                a.insert(k.to_owned(), serde_json::Value::String(kept.join("\n")));
            }
        }
        let (mut why, mut spent) = (None, None);
        if V::REASONED
            && let Some(given) = args.as_object_mut().and_then(|a| a.remove(REASONING))
        {
            why = reasoning(given)?;
        }
        if V::REASONED
            && let Some(given) = args.as_object_mut().and_then(|a| a.remove(COST))
        {
            spent = cost(given)?;
        }
        if let (Some(known), Some(given)) = (known_args::<V>(), args.as_object()) {
            // serde passes over a name it does not know: `look {"thing": "board"}` looked at
            // the room. A misspelt argument is refused, naming those the verb takes.
            let unknown = given
                .iter()
                .find(|(k, v)| !v.is_null() && !known.iter().any(|n| n == *k));
            if let Some((k, _)) = unknown {
                let takes = match known.as_ref() {
                    [] => "none".to_owned(),
                    names => names
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                };
                return Err(VerbError::usage(format!(
                    "{} takes no argument `{k}`; it takes {takes}.",
                    V::NAME
                )));
            }
        }
        let args: V::Args = serde_json::from_value(args)
            .map_err(|e| VerbError::usage(format!("Bad arguments for {}: {e}", V::NAME)))?;
        Ok((why, spent, args))
    };
    ReadArgs(read().map(|r| Box::new(r) as Box<dyn std::any::Any + Send>))
}

/// The argument names verb `V` takes, as its generated schema lists them, read once per verb;
/// `None` where the schema does not list them all (a tool whose schema a spec fixes, one that
/// takes any property), which are left to serde as before.
fn known_args<V: Verb>() -> Option<std::sync::Arc<[String]>> {
    type Known = std::collections::HashMap<std::any::TypeId, Option<std::sync::Arc<[String]>>>;
    // Read on every call from every face's tasks, written once a verb: a read lock.
    static KNOWN: std::sync::OnceLock<std::sync::RwLock<Known>> = std::sync::OnceLock::new();
    let known = KNOWN.get_or_init(Default::default);
    let id = std::any::TypeId::of::<V>();
    let read = known
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&id)
        .cloned();
    if let Some(names) = read {
        return names;
    }
    let generated = V::TOOL.definition.is_none() && V::TOOL.input_schema.is_none();
    let names = generated.then(args_schema_of::<V>).and_then(|schema| {
        let open = matches!(
            schema.get("additionalProperties"),
            Some(more) if *more != serde_json::Value::Bool(false)
        );
        let combined = ["anyOf", "oneOf", "allOf", "$ref"]
            .iter()
            .any(|k| schema.get(*k).is_some());
        match schema.get("properties") {
            Some(serde_json::Value::Object(props)) if !open && !combined => {
                Some(props.keys().cloned().collect::<std::sync::Arc<[String]>>())
            }
            _ => None,
        }
    });
    known
        .write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(id, names.clone());
    names
}

fn run_read<V: Verb>(
    w: &mut World,
    cx: &mut Cx,
    read: ReadArgs,
) -> Result<Reply<Written>, VerbError> {
    counted::<V>(cx);
    let r = read.0.and_then(|args| {
        let (why, spent, args) = *args
            .downcast::<Read<V>>()
            .map_err(|_| VerbError::usage(format!("Bad arguments for {}.", V::NAME)))?;
        if why.is_some() {
            cx.reasoning = why;
        }
        if spent.is_some() {
            cx.cost = spent;
        }
        let r = admitted::<V>(w, cx, args)?;
        Ok(Reply {
            text: r.text,
            data: Written::of(r.data),
        })
    });
    in_its_shape::<V, _>(w, noted(V::NAME, cx, r))
}

/// The argument a game action's caller may give its reasons in ([`Verb::REASONED`]).
pub const REASONING: &str = "reasoning";

/// The argument a game action's caller may report its cost in ([`Cost`]).
pub const COST: &str = "cost";

/// A `cost` argument: `{tokens_in, tokens_out, think_ms}`, each a whole number within bounds.
pub fn cost(given: serde_json::Value) -> Result<Option<Cost>, VerbError> {
    if given.is_null() {
        return Ok(None);
    }
    let c: Cost = serde_json::from_value(given).map_err(|_| {
        VerbError::usage(
            "`cost` is {\"tokens_in\", \"tokens_out\", \"think_ms\"}, each a whole number.",
        )
    })?;
    if !c.is_plausible() {
        return Err(VerbError::usage(format!(
            "`cost` reports at most {} tokens each way and {} ms of thought an action.",
            Cost::MAX_TOKENS,
            Cost::MAX_THINK_MS
        )));
    }
    Ok(Some(c))
}

/// A `reasoning` argument, cleaned and bounded like all text already: text, or nothing for an
/// empty one.
pub fn reasoning(why: serde_json::Value) -> Result<Option<String>, VerbError> {
    match why {
        serde_json::Value::Null => Ok(None),
        serde_json::Value::String(s) => {
            let s = s.trim();
            Ok((!s.is_empty()).then(|| s.to_owned()))
        }
        _ => Err(VerbError::usage("`reasoning` is text.")),
    }
}

/// The town's own verbs, which know no game by name, in the order `help` lists them (the
/// catalog of every verb, with the games' and `help`'s, is `games::REGISTRY`).
pub static TOWN: &[VerbEntry] = &[
    entry::<look::Look>(),
    entry::<go::Go>(),
    entry::<home::Home>(),
    entry::<say::Say>(),
    entry::<emote::Emote>(),
    entry::<page::Page>(),
    entry::<whisper::Whisper>(),
    entry::<who::Who>(),
    entry::<inventory::Inventory>(),
    entry::<carry::Take>(),
    entry::<carry::PutDown>(),
    entry::<carry::Give>(),
    entry::<describe::Describe>(),
    entry::<display::Linelength>(),
    entry::<display::Wrap>(),
    entry::<display::Screenreader>(),
    entry::<token::Token>(),
    entry::<events::Events>(),
    entry::<games::Games>(),
    entry::<watch::Watch>(),
    entry::<watch::Unwatch>(),
    entry::<glance::Last>(),
    entry::<glance::Clock>(),
    entry::<glance::Square>(),
    entry::<tables::Play>(),
    entry::<resign::Resign>(),
    entry::<sessions::SessionCreate>(),
    entry::<sessions::SessionList>(),
    entry::<sessions::SessionState>(),
    entry::<sessions::SessionAct>(),
    entry::<sessions::SessionLog>(),
    entry::<invitations::Accept>(),
    entry::<invitations::Decline>(),
    entry::<invitations::SessionAccept>(),
    entry::<invitations::SessionDecline>(),
    entry::<ratings::Ratings>(),
    entry::<ratings::Leaderboard>(),
    entry::<crosstable::Crosstable>(),
    entry::<build::Dig>(),
    entry::<build::Create>(),
    entry::<build::Audit>(),
    entry::<build::Teleport>(),
    entry::<build::Open>(),
    entry::<build::Close>(),
    entry::<build::Rename>(),
    entry::<build::Recycle>(),
    entry::<build::Lock>(),
    entry::<build::Unlock>(),
    entry::<build::PlaceTable>(),
    entry::<build::Set>(),
    entry::<perms::Chmod>(),
    entry::<program::AddVerb>(),
    entry::<program::Program>(),
    entry::<program::List>(),
    entry::<program::Kill>(),
    entry::<program::Run>(),
];

/// The town's verbs served as REST reads, answering anyone (ratings are public).
pub static TOWN_READS: &[game_module::ApiRead] = &[
    game_module::ApiRead {
        path: "/ratings/{name}",
        summary: "Someone's ratings and records, board by board",
        verb: &entry::<ratings::Ratings>(),
        arg: "name",
        public: true,
    },
    game_module::ApiRead {
        path: "/leaderboards/{game}",
        summary: "A game's leaderboards (?whom=people|agents|all)",
        verb: &entry::<ratings::Leaderboard>(),
        arg: "game",
        public: true,
    },
];

/// The tournaments' verbs (their own set of tools, `/mcp/tournaments`).
pub static TOURNAMENTS: &[VerbEntry] = &[
    entry::<tournaments::List>(),
    entry::<tournaments::Show>(),
    entry::<tournaments::Schedule>(),
    entry::<tournaments::Join>(),
    entry::<tournaments::Withdraw>(),
    entry::<tournaments::Start>(),
    entry::<tournaments::Pairing>(),
];

/// The wizards' verbs, listed last.
pub static WIZARDS: &[VerbEntry] = &[
    entry::<wizard::Boot>(),
    entry::<wizard::Ban>(),
    entry::<wizard::Unban>(),
    entry::<wizard::Announce>(),
    entry::<wizard::Shutdown>(),
    entry::<wizard::Builder>(),
    entry::<wizard::Programmer>(),
];

/// A text the games give agents to read (the rules, role cards): an MCP prompt and resource.
pub struct Document {
    /// The prompt's name.
    pub name: &'static str,
    pub uri: String,
    pub title: String,
    pub description: String,
    pub text: String,
}

impl std::fmt::Debug for VerbEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "VerbEntry({})", self.name)
    }
}

impl PartialEq for VerbEntry {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}
impl Eq for VerbEntry {}

// The arguments of a verb that takes none. (Not a doc comment: schemars would write it into
// the schema of every tool that takes none, which an agent reads for nothing.)
#[derive(Debug, Default, Serialize, serde::Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Reads no arguments: anything after the verb is a usage error.
pub fn no_args<V: Verb>(rest: &str) -> Result<NoArgs, VerbError> {
    if rest.trim().is_empty() {
        Ok(NoArgs {})
    } else {
        Err(usage::<V>())
    }
}

/// The usage error of verb `V`.
pub fn usage<V: Verb>() -> VerbError {
    VerbError::usage(format!("Usage: {}", V::USAGE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game_api::{Code, GameError};
    use crate::world::sessions::{ErrorCode, HostError};

    /// A refusal keeps its stable code and when to try again from the rules, through the
    /// host, to the verb that answers (nothing is matched on words on the way).
    #[test]
    fn a_refusal_keeps_its_code_and_its_wait_from_the_rules_to_the_verb() {
        let ruled = GameError::Refused {
            code: Code::RateLimited,
            message: "Too fast".into(),
            retry_after_ms: Some(1500),
        };
        let host = HostError::from(ruled);
        assert_eq!(host.code, ErrorCode::RateLimited);
        let verb = VerbError::from(host);
        assert_eq!(verb.code, Some(Code::RateLimited));
        assert_eq!(
            verb.retry_after,
            Some(std::time::Duration::from_millis(1500))
        );
        let turn = VerbError::from(HostError::from(GameError::NotYourTurn));
        assert_eq!(turn.code, Some(Code::NotYourTurn));
        // A spec tool's shape names the code it was given.
        let shaped = shaped("now".into(), turn);
        let data = shaped.data.unwrap_or_default();
        assert_eq!(data["error"]["code"], "NOT_YOUR_TURN");
    }

    /// An action that meets an ended session (a Werewolf night that ran out and ended the
    /// match just before the seer's inspect was taken) is out of its phase on a spec tool, as
    /// when the tool saw the end itself; REST keeps its INVALID_ACTION.
    #[test]
    fn an_action_in_an_ended_session_is_wrong_phase() {
        let host = HostError::completed(7.into());
        assert_eq!(host.code, ErrorCode::InvalidAction);
        let shaped = shaped("now".into(), VerbError::from(host));
        let data = shaped.data.unwrap_or_default();
        assert_eq!(data["error"]["code"], "WRONG_PHASE");
        assert_eq!(data["error"]["message"], "Session 7 is completed");
    }
}
