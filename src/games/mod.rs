//! The game modules, and the catalog built from them: every verb, the town's templates, and
//! what the faces read to serve each game.
//!
//! A game is one folder here and one line: its rules crate among `Cargo.toml`'s dependencies,
//! from which `build.rs` writes the `games!` list below, declaring the folder's module and
//! putting its [`GameModule`] in [`ALL`]. Its folder holds its pure rules, its verbs, its pages
//! and that declaration. Nothing outside this folder names a game: the host is handed the
//! templates, the faces read the declarations.

pub mod console;
pub mod examine;
pub mod help;
pub mod skill;
pub mod toolsets;
pub mod unknown;

use std::sync::LazyLock;

use moot_kernel::game_api::Template;
use moot_kernel::identity::Directory;
use moot_kernel::verbs::game_module::{CommandSet, GameModule, Settings};
use moot_kernel::verbs::{Document, Toolset, Topic, VerbEntry, VerbError, entry};
use moot_kernel::world::{AgentId, Cx, Map, ThingKind, World};

/// Declares each game's folder as a module, lists its `MODULE` in [`ALL`], and puts its
/// `Flags` on moot's command line in [`Flags`].
macro_rules! games {
    ($($game:ident = $path:literal),* $(,)?) => {
        $(#[path = $path] pub mod $game;)*

        /// Every game the town has, in the order `help` lists their topics.
        pub static ALL: &[&GameModule] = &[$(&$game::MODULE),*];

        /// Every game's own flags, beside the town's on moot's command line.
        #[derive(clap::Args, Debug, Clone)]
        #[group(skip)]
        pub struct Flags {
            $(
                #[command(flatten)]
                pub $game: $game::Flags,
            )*
        }

        impl Flags {
            /// Puts each game's settings where it reads them, before the town opens.
            pub fn apply(&self, world: &mut World) {
                $(Settings::apply(&self.$game, world);)*
            }

            /// The engine a game's flags name for the house's computer, if any.
            pub fn engine(&self) -> Option<std::sync::Arc<dyn moot_kernel::game_api::ExternalEngine>> {
                None$(.or_else(|| Settings::engine(&self.$game)))*
            }
        }
    };
}

include!(concat!(env!("OUT_DIR"), "/games.rs"));

/// The verbs that read this catalog: `examine` (what a thing offers) and `help`.
static CATALOG: &[VerbEntry] = &[
    entry::<examine::Examine>(),
    entry::<help::Help>(),
    entry::<toolsets::Toolsets>(),
];

/// Every verb, declared once, in the order `help` lists them: the town's, the catalog's, each
/// game's, the wizards'. Every face works from this table.
pub static REGISTRY: LazyLock<Vec<&'static VerbEntry>> = LazyLock::new(|| {
    let games = ALL.iter().flat_map(|m| m.verbs.iter());
    let all = moot_kernel::verbs::TOWN
        .iter()
        .chain(CATALOG)
        .chain(games)
        .chain(moot_kernel::verbs::TOURNAMENTS)
        .chain(moot_kernel::verbs::WIZARDS);
    all.collect()
});

/// Every template, as the host is handed them.
pub fn templates() -> Vec<&'static Template> {
    ALL.iter().flat_map(|m| m.templates.iter()).collect()
}

/// A world for `map`, knowing the town's games.
pub fn new_world(map: Map, directory: std::sync::Arc<Directory>) -> World {
    World::new(map, directory, templates())
}

/// The topics `help` lists, in order: moving and talking, each game's, the agents' tools, the
/// wizards'.
pub fn topics() -> Vec<Topic> {
    let mut topics = vec![Topic::BASICS];
    for m in ALL {
        if !topics.contains(&m.topic) {
            topics.push(m.topic);
        }
    }
    topics.extend([
        moot_kernel::verbs::tournaments::TOPIC,
        Topic::AGENTS,
        Topic::WIZARDS,
    ]);
    topics
}

/// The topic `word` names: by one of its words, or by a game's name.
pub fn topic_named(word: &str) -> Option<Topic> {
    topics()
        .into_iter()
        .find(|t| t.answers_to(word))
        .or_else(|| {
            ALL.iter()
                .find(|m| m.name.eq_ignore_ascii_case(word))
                .map(|m| m.topic)
        })
}

/// Whether a thing of `kind` offers verb `e`: by the verb's own list, or as the table of one of
/// the town's games.
pub fn offers(e: &VerbEntry, kind: &ThingKind) -> bool {
    e.offered_by.contains(kind)
        || ALL
            .iter()
            .flat_map(|m| m.templates.iter())
            .any(|t| t.table == kind.name() && e.at_tables.offered_at(t))
}

/// The kinds of thing the town's verbs and games know, for checking the world's files.
pub fn known_kinds() -> Vec<&'static str> {
    static SCENERY: ThingKind = ThingKind::SCENERY;
    let mut known: Vec<&str> = vec![SCENERY.name()];
    known.extend(templates().iter().map(|t| t.table));
    known.extend(
        REGISTRY
            .iter()
            .flat_map(|e| e.offered_by.iter().map(|k| k.name())),
    );
    known.sort_unstable();
    known.dedup();
    known
}

/// The verbs that answer to some word beginning with a byte, by its [`bucket`], each in the
/// registry's order: a typed line's verb is looked for among a handful, not the whole registry.
static BY_FIRST_BYTE: LazyLock<Vec<Vec<&'static VerbEntry>>> = LazyLock::new(|| {
    let mut buckets: Vec<Vec<&'static VerbEntry>> = vec![Vec::new(); 129];
    for &e in REGISTRY.iter() {
        for word in std::iter::once(&e.name).chain(e.aliases) {
            if let Some(b) = buckets.get_mut(bucket(word))
                && !b.iter().any(|&o| std::ptr::eq(o, e))
            {
                b.push(e);
            }
        }
    }
    buckets
});

/// Where the words beginning as `word` does are kept: by the first byte, ASCII letters in
/// either case together, every byte past ASCII in one.
fn bucket(word: &str) -> usize {
    word.as_bytes()
        .first()
        .map_or(0, |&b| usize::from(b.to_ascii_lowercase()).min(128))
}

/// The verb called `word`, by name or alias: a verb's own name wins over another's alias
/// (`drop` is Connect Four's; putting a thing down answers to it too, for lines that are not a
/// column: see [`run_line`]).
pub fn find(word: &str) -> Option<&'static VerbEntry> {
    let candidates: &[&'static VerbEntry] = match BY_FIRST_BYTE.get(bucket(word)) {
        Some(candidates) if !word.is_empty() => candidates,
        _ => &REGISTRY,
    };
    let found = candidates
        .iter()
        .copied()
        .find(|e| e.name.eq_ignore_ascii_case(word))
        .or_else(|| candidates.iter().copied().find(|e| e.answers_to(word)));
    // The faults a test sets off are verbs too, but listed nowhere.
    #[cfg(feature = "testing")]
    let found = found.or_else(|| {
        moot_kernel::verbs::faults::VERBS
            .iter()
            .find(|e| e.answers_to(word))
    });
    found
}

/// Every set of tools, in the order the registry first names them.
pub fn toolsets() -> &'static [Toolset] {
    static SETS: LazyLock<Vec<Toolset>> = LazyLock::new(|| {
        let mut sets: Vec<Toolset> = Vec::new();
        for t in REGISTRY.iter().filter_map(|e| e.toolset) {
            if !sets.contains(&t) {
                sets.push(t);
            }
        }
        sets
    });
    &SETS
}

/// The set called `name`, if there is one.
pub fn toolset_named(name: &str) -> Option<Toolset> {
    toolsets().iter().copied().find(|t| t.name == name)
}

/// The set that serves the tool called `name`, if any does.
pub fn toolset_of(name: &str) -> Option<Toolset> {
    REGISTRY
        .iter()
        .find(|e| e.tool_name() == name)
        .and_then(|e| e.toolset)
}

/// Where set `t` is served over Streamable HTTP.
pub fn toolset_path(t: &Toolset) -> String {
    format!("/mcp/{}", t.name)
}

/// The verbs served as tools in `sets`, in the registry's order.
pub fn tools_in(sets: &[Toolset]) -> impl Iterator<Item = &'static VerbEntry> + '_ {
    REGISTRY
        .iter()
        .copied()
        .filter(|e| e.toolset.is_some_and(|t| sets.contains(&t)))
}

/// Whether tool `e` is a verb of a game with an MCP Apps page, so its result may name one.
pub fn may_name_a_page(e: &VerbEntry) -> bool {
    ALL.iter()
        .filter(|m| m.app.is_some())
        .any(|m| m.verbs.iter().any(|v| v.tool_name() == e.tool_name()))
}

/// The tool called `name` among `sets`.
pub fn find_tool(name: &str, sets: &[Toolset]) -> Option<&'static VerbEntry> {
    let found = tools_in(sets).find(|e| e.tool_name() == name);
    #[cfg(feature = "testing")]
    let found = found.or_else(|| {
        moot_kernel::verbs::faults::VERBS
            .iter()
            .find(|e| e.tool_name() == name)
    });
    found
}

/// Verb `e` as `actor` meets it where they stand: a game's own verb of the same name where
/// that game holds them (Werewolf's `say` in a match's building), else `e` itself. Every face
/// runs a verb through this, so a tool call and a typed line reach the same verb. Only a verb
/// some game overrides costs a look at where the actor stands.
pub fn here(world: &World, actor: &AgentId, e: &'static VerbEntry) -> &'static VerbEntry {
    ALL.iter()
        .filter_map(|m| m.commands.as_ref())
        .find_map(|c: &'static CommandSet| {
            let own = c
                .verbs
                .iter()
                .find(|o| std::ptr::eq(o.name, e.name) || o.name == e.name)?;
            (c.applies)(world, actor).then_some(own)
        })
        .unwrap_or(e)
}

/// A typed line, matched to a verb.
#[derive(Debug, PartialEq, Eq)]
pub enum Resolved<'a> {
    /// Nothing to do (a blank line).
    Nothing,
    /// This verb, with the rest of the line to parse.
    Verb(&'static VerbEntry, &'a str),
    /// No verb matches.
    Unknown,
}

/// Matches a typed line to a verb, with the MOO conventions: `"text` is `say text`, `:text` is
/// `emote text`, and the name of an exit where one stands is `go <exit>` (as is a compass word
/// where there is no such exit, so that it gets "You can't go that way."). `is_exit` tells
/// whether a word names an exit here.
pub fn resolve<'a>(line: &'a str, is_exit: impl Fn(&str) -> bool) -> Resolved<'a> {
    let line = moot_kernel::text::trim(line);
    if line.is_empty() {
        return Resolved::Nothing;
    }
    let verb = |name, rest| find(name).map_or(Resolved::Unknown, |e| Resolved::Verb(e, rest));
    if let Some(rest) = line.strip_prefix('"') {
        return verb("say", rest);
    }
    if let Some(rest) = line.strip_prefix(':') {
        return verb("emote", rest);
    }
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    if let Some(e) = find(word) {
        return Resolved::Verb(e, rest.trim_start());
    }
    if rest.trim().is_empty() && (is_exit(word) || moot_kernel::verbs::go::is_direction(word)) {
        return verb("go", word);
    }
    Resolved::Unknown
}

/// Runs a line typed by `cx.actor`. A blank line answers nothing.
pub fn run_line(world: &mut World, cx: &mut Cx, line: &str) -> Result<Vec<String>, VerbError> {
    if world.find_player(&cx.actor).is_none() {
        return Err(VerbError::refused("You are not in the town."));
    }
    // A verb's code, typed after `@program`, goes to it whatever it says.
    if let Some(lines) = moot_kernel::verbs::program::editing(world, cx, line) {
        return Ok(lines);
    }
    let room = world.map.room(world.player(&cx.actor).room);
    match resolve(line, |w| room.exit(w).is_some()) {
        Resolved::Nothing => Ok(Vec::new()),
        Resolved::Verb(entry, rest) => {
            let mut entry = here(world, &cx.actor, entry);
            // A word two verbs answer (`drop 4` is Connect Four's, `drop lamp` puts a thing
            // down): the line goes to the first whose words it fits.
            if (entry.parse_json)(rest).is_err() {
                let word = moot_kernel::text::trim(line)
                    .split(char::is_whitespace)
                    .next()
                    .unwrap_or("");
                if let Some(other) = REGISTRY.iter().copied().find(|e| {
                    !std::ptr::eq(*e, entry) && e.answers_to(word) && (e.parse_json)(rest).is_ok()
                }) {
                    let first = entry;
                    entry = here(world, &cx.actor, other);
                    // What it names is not there: perhaps the first verb was meant after all.
                    let ran = (entry.run_line)(world, cx, rest);
                    return or_handed(world, cx, entry, rest, ran).map_err(|mut e| {
                        if e.kind == moot_kernel::verbs::ErrorKind::NotFound {
                            e.message =
                                format!("{} (Or `{}`: {})", e.message, first.usage, first.summary);
                        }
                        e
                    });
                }
            }
            let ran = (entry.run_line)(world, cx, rest);
            or_handed(world, cx, entry, rest, ran)
        }
        Resolved::Unknown => {
            // A programmed verb of a thing here (`push button`) is `run button push`.
            let line = moot_kernel::text::trim(line);
            let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            match (world.programmed_verb(&cx.actor, word, rest), find("run")) {
                (Some(num), Some(run)) => {
                    (run.run_line)(world, cx, &format!("#{num} {word} {rest}"))
                }
                _ if let Some(lines) = unknown::habit(world, &cx.actor, word, rest) => Ok(lines),
                _ => match unknown::meant(word, rest).and_then(find) {
                    Some(verb) => (verb.run_line)(world, cx, rest),
                    None => Err(unknown::answer(world, &cx.actor, cx.face, line)),
                },
            }
        }
    }
}

/// A typed verb that reached a session played on a game world (`Cx::elsewhere`) is handed
/// there, with its arguments as the verb reads them, and nothing it did here stands: its
/// answer is the game world's, told when it comes ([`moot_kernel::world::Effect::Hand`]).
fn or_handed(
    world: &mut World,
    cx: &mut Cx,
    entry: &'static VerbEntry,
    rest: &str,
    ran: Result<Vec<String>, VerbError>,
) -> Result<Vec<String>, VerbError> {
    let Some(session) = cx.elsewhere.take() else {
        return ran;
    };
    let (Err(_), Ok(args)) = (&ran, (entry.parse_json)(&moot_kernel::text::clean(rest))) else {
        return ran;
    };
    cx.roll_back(world);
    // Whether what it does may be known is the game world's to find: it leaves no trace here
    // (the typist's idle time moves when the town is told of it, if it is public).
    cx.hidden = true;
    let handed = moot_kernel::world::Handed {
        agent: cx.actor.clone(),
        session,
        verb: entry.name,
        args,
    };
    world.hand(cx, handed);
    Ok(Vec::new())
}

/// [`run_line`] as the world task runs what people type: an error is the answer.
pub fn answer_line(world: &mut World, cx: &mut Cx, line: &str) -> Vec<String> {
    match run_line(world, cx, line) {
        Ok(lines) => lines,
        Err(e) => vec![moot_kernel::text::sentence(e.message)],
    }
}

/// What the web's pages may ask of the world: each game page's buttons, and the console's.
pub fn web_actions() -> impl Iterator<Item = &'static moot_kernel::verbs::game_module::WebAction> {
    ALL.iter()
        .filter_map(|m| m.page.as_ref())
        .flat_map(|p| p.actions)
        .chain(console::ACTIONS)
        .chain(moot_kernel::verbs::tournaments::WEB_ACTIONS)
}

/// Every game's documents.
pub fn documents() -> Vec<Document> {
    ALL.iter()
        .filter_map(|m| m.hooks.documents)
        .flat_map(|d| d())
        .collect()
}

/// Builds what the games derive from the restored sessions (a match's building), and hooks
/// what they must see of every change, before the town opens.
pub fn open_town(world: &mut World, kept: &moot_kernel::store::keys::Kept) {
    for m in ALL {
        if let Some(open) = m.hooks.open {
            open(world, kept);
        }
        if let Some(hook) = m.hooks.on_change {
            world.on_session_change(hook);
        }
        if let Some(hook) = m.hooks.on_tick {
            world.on_tick(hook);
        }
    }
    #[cfg(feature = "testing")]
    world.on_session_change(moot_kernel::verbs::faults::after_change);
}

/// The town for its map on the web: the world's rooms, people and games, and what each game
/// adds under its name (Werewolf's board and its buildings).
pub fn town(world: &World) -> serde_json::Value {
    #[expect(
        clippy::expect_used,
        reason = "the town's view is plain structs with string keys"
    )]
    let mut v = serde_json::to_value(moot_kernel::world::views::town_view(world))
        .expect("the town serializes");
    for m in ALL {
        if let Some(part) = m.hooks.town {
            v[m.name] = (part.data)(world);
        }
    }
    v
}

/// The town's page (`/`), with each game's section and script in their places.
pub fn town_page(page: &str) -> String {
    let parts = ALL.iter().filter_map(|m| m.hooks.town);
    let (sections, scripts): (Vec<&str>, Vec<&str>) = parts.map(|p| (p.section, p.script)).unzip();
    page.replacen("<!-- the games' sections -->", &sections.concat(), 1)
        .replacen("/* the games' scripts */", &scripts.concat(), 1)
}

/// The template called `id`, if the town has the game.
pub fn template(id: &str) -> Option<&'static Template> {
    ALL.iter()
        .flat_map(|m| m.templates.iter())
        .find(|t| t.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The town's page is put together from the games' parts: the page itself names no game,
    /// and every part a game gives is in it once, in its place.
    #[test]
    fn the_town_page_is_put_together_from_the_games_parts() {
        let page = include_str!("../web/town.html");
        for m in ALL {
            assert!(
                !page.to_lowercase().contains(m.name),
                "src/web/town.html names {}",
                m.name
            );
        }
        let whole = town_page(page);
        assert!(!whole.contains("the games' sections") && !whole.contains("the games' scripts"));
        for part in ALL.iter().filter_map(|m| m.hooks.town) {
            assert_eq!(whole.matches(part.section).count(), 1);
            assert_eq!(whole.matches(part.script).count(), 1);
        }
    }

    /// Every name and alias finds, in any case, the verb the registry's first match is (a
    /// verb's own name before another's alias: `drop` is Connect Four's); a word no verb has
    /// finds none.
    #[test]
    fn a_verb_is_found_by_any_of_its_words_as_the_registry_orders_them() {
        for &e in REGISTRY.iter() {
            for word in std::iter::once(&e.name).chain(e.aliases) {
                for w in [word.to_string(), word.to_uppercase(), word.to_lowercase()] {
                    let first = REGISTRY
                        .iter()
                        .copied()
                        .find(|o| o.name.eq_ignore_ascii_case(&w))
                        .or_else(|| REGISTRY.iter().copied().find(|o| o.answers_to(&w)));
                    assert!(
                        find(&w).is_some_and(|f| first.is_some_and(|o| std::ptr::eq(f, o))),
                        "{w:?}"
                    );
                }
            }
        }
        let long = "look".repeat(20);
        for w in ["", "xyzzy", "é", "lo", "looks", "LOOK\u{e9}", &long] {
            assert!(find(w).is_none(), "{w:?}");
        }
    }
}
