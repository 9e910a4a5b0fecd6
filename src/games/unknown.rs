//! What a line no verb takes may have meant, so that a slip gets an answer that helps rather
//! than "I don't understand that.": a game's own shorthand (a bare `e4` in a chess game), a
//! MUD habit moot spells otherwise (`exit`, `quit`), or a word a letter or two from a verb or an
//! exit here ("did you mean `look`?").

use super::{ALL, REGISTRY};
use moot_kernel::text::{closest, english_list_or};
use moot_kernel::verbs::{NOT_UNDERSTOOD, VerbError};
use moot_kernel::world::{AgentId, Face, World};

/// Words other MUDs use to leave, which here would leave nothing, and telnet's own way out
/// (which only a telnet connection takes).
const LEAVING: &[&str] = &["exit", "quit", "logout", "logoff", "leave", "bye", "@quit"];

/// Words other MOOs and MUDs give verbs of their own, the verb that does it here, and whether
/// the word means it alone too: `read signpost` is a look at it (where no thing here programs
/// its own `read`, as a notice board may), `score` is your `ratings`.
const MEANT: &[(&str, &str, bool)] = &[("read", "look", false), ("score", "ratings", true)];

/// The verb `word` means here, if it is another MOO's word for one (and `rest` names something
/// where the word alone means nothing).
pub fn meant(word: &str, rest: &str) -> Option<&'static str> {
    MEANT
        .iter()
        .find(|(w, _, bare)| w.eq_ignore_ascii_case(word) && (*bare || !rest.trim().is_empty()))
        .map(|&(_, verb, _)| verb)
}

/// A MUD habit answered as it stands: `exits` says the ways out of here.
pub fn habit(world: &World, actor: &AgentId, word: &str, rest: &str) -> Option<Vec<String>> {
    (word.eq_ignore_ascii_case("exits") && rest.trim().is_empty()).then(|| {
        let p = world.player(actor);
        moot_kernel::world::views::exit_lines(world, p.room, p.display.screenreader)
    })
}

/// How to leave the town from `face`: only telnet has `@quit`.
fn how_to_leave(face: Face) -> &'static str {
    match face {
        Face::Telnet => "To leave moot, type `@quit`.",
        Face::Rest => "To leave moot, sign out on the page, or close it.",
        Face::Mcp => {
            "An agent leaves the town by going quiet: it goes after a while without a \
call, and comes back with its next."
        }
    }
}

/// The answer to `line`, which no verb takes, typed by `actor` through `face`.
pub fn answer(world: &World, actor: &AgentId, face: Face, line: &str) -> VerbError {
    for read in ALL.iter().filter_map(|m| m.hooks.unknown) {
        if let Some(hint) = read(world, actor, line) {
            return VerbError::not_found(hint);
        }
    }
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let rest = rest.trim();
    let room = world.map.room(world.player(actor).room);
    let exits: Vec<&str> = room.exits.iter().map(|e| e.name.as_str()).collect();
    let word_is = |list: &[&str]| list.iter().any(|w| w.eq_ignore_ascii_case(word));
    if word_is(LEAVING) && rest.is_empty() {
        let walk = match exits.as_slice() {
            [] => String::new(),
            _ => format!(
                " To walk out of here, type an exit's name: {}.",
                exits.join(", ")
            ),
        };
        return VerbError::not_found(format!("{}{walk}", how_to_leave(face)));
    }
    // Only verbs the typist may use are suggested: a wizard's or a builder's to them alone.
    let wizard = world.is_present(actor) && world.player(actor).wizard;
    let builds = world.may_build(actor);
    let programs = world.may_program(actor);
    let verbs = REGISTRY
        .iter()
        .filter(|e| {
            (e.topic != moot_kernel::verbs::Topic::WIZARDS || wizard)
                && (e.topic != moot_kernel::verbs::build::TOPIC || builds)
                && (e.topic != moot_kernel::verbs::program::TOPIC || programs)
        })
        .flat_map(|e| std::iter::once(e.name).chain(e.aliases.iter().copied()));
    let exit_words = room
        .exits
        .iter()
        .flat_map(|e| std::iter::once(e.name.as_str()).chain(e.aliases.iter().map(String::as_str)));
    // A bare word may be a slip for an exit too; a word with more after it is a verb.
    let near = if rest.is_empty() {
        closest(word, verbs.chain(exit_words))
    } else {
        closest(word, verbs)
    };
    if near.is_empty() {
        return VerbError::not_found(format!("{NOT_UNDERSTOOD} `help` lists what you can do."));
    }
    let near: Vec<String> = near.iter().map(|w| format!("`{w}`")).collect();
    VerbError::not_found(format!(
        "I don't understand \"{word}\". Did you mean {}?",
        english_list_or(&near)
    ))
}
