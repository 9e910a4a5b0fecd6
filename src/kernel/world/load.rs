//! Reading the town from `world/`: `world.toml` (the town's name, welcome text and start room)
//! and one `rooms/*.toml` file per room. Every problem is reported with the file, the line and
//! column, and what is wrong, because the people who edit these files are builders, not
//! programmers, and a server that starts with a half-broken map is worse than one that refuses.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::map::{Exit, FileVerb, Held, Map, Room, Thing, ThingKind};
use crate::store::programs::VerbMode;

/// A problem in the world files: where it is and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldError {
    pub file: PathBuf,
    /// 1-based line and column, when the problem has a place in the file.
    pub at: Option<(usize, usize)>,
    pub problem: String,
}

impl fmt::Display for WorldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some((line, col)) => {
                write!(f, "{}:{line}:{col}: {}", self.file.display(), self.problem)
            }
            None => write!(f, "{}: {}", self.file.display(), self.problem),
        }
    }
}

impl std::error::Error for WorldError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TownFile {
    name: String,
    welcome: String,
    start: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RoomFile {
    id: Spanned<String>,
    name: String,
    description: String,
    #[serde(default)]
    exits: Vec<ExitFile>,
    #[serde(default)]
    things: Vec<ThingFile>,
    /// Its properties, as `@set` gives them.
    #[serde(default)]
    props: BTreeMap<String, Spanned<String>>,
    /// Its programmed verbs: each one's name and its Rhai code.
    #[serde(default)]
    verbs: BTreeMap<String, Spanned<String>>,
    /// Who besides the wizards may read and run a verb, where not everyone (`push = "x"`).
    #[serde(default)]
    verb_modes: BTreeMap<String, Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExitFile {
    name: Spanned<String>,
    #[serde(default)]
    aliases: Vec<Spanned<String>>,
    to: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThingFile {
    id: Spanned<String>,
    name: String,
    #[serde(default)]
    aliases: Vec<String>,
    description: String,
    #[serde(default)]
    kind: ThingKind,
    #[serde(default)]
    props: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    verbs: BTreeMap<String, Spanned<String>>,
    #[serde(default)]
    verb_modes: BTreeMap<String, Spanned<String>>,
}

/// One parsed file, kept with its text so that spans can be turned into lines and columns.
struct Source<T> {
    path: PathBuf,
    text: String,
    data: T,
}

impl<T> Source<T> {
    fn error_at<U>(&self, span: &Spanned<U>, problem: impl Into<String>) -> WorldError {
        WorldError {
            file: self.path.clone(),
            at: Some(line_col(&self.text, span.span().start)),
            problem: problem.into(),
        }
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
    (line, col)
}

fn parse<T: for<'de> Deserialize<'de>>(
    path: PathBuf,
    text: String,
) -> Result<Source<T>, WorldError> {
    let data = toml::from_str(&text).map_err(|e: toml::de::Error| WorldError {
        file: path.clone(),
        at: e.span().map(|s| line_col(&text, s.start)),
        problem: e.message().to_owned(),
    })?;
    Ok(Source { path, text, data })
}

fn read(path: &Path) -> Result<(PathBuf, String), WorldError> {
    let text = std::fs::read_to_string(path).map_err(|e| WorldError {
        file: path.to_owned(),
        at: None,
        problem: format!("cannot read the file: {e}"),
    })?;
    Ok((path.to_owned(), text))
}

/// Loads and checks the town in `dir`.
pub fn load(dir: &Path) -> Result<Map, WorldError> {
    let town = read(&dir.join("world.toml"))?;
    let rooms_dir = dir.join("rooms");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&rooms_dir)
        .map_err(|e| WorldError {
            file: rooms_dir.clone(),
            at: None,
            problem: format!("cannot read the rooms directory: {e}"),
        })?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    paths.sort();
    let rooms = paths
        .iter()
        .map(|p| read(p))
        .collect::<Result<Vec<_>, _>>()?;
    if rooms.is_empty() {
        return Err(WorldError {
            file: rooms_dir,
            at: None,
            problem: "there are no rooms (*.toml files)".into(),
        });
    }
    from_texts(town, rooms)
}

/// The town compiled into moot (see [`super::built_in`]), checked like any other.
pub fn load_built_in() -> Result<Map, WorldError> {
    let named =
        |(name, text): &(&str, &str)| (Path::new("(built-in town)").join(name), (*text).to_owned());
    let Some((town, rooms)) = super::built_in::FILES.split_first() else {
        return Err(WorldError {
            file: "(built-in town)".into(),
            at: None,
            problem: "it has no files".into(),
        });
    };
    from_texts(named(town), rooms.iter().map(named).collect())
}

/// The town in `dir`, or the built-in one without a directory.
pub fn load_town(dir: Option<&Path>) -> Result<Map, WorldError> {
    match dir {
        Some(dir) => load(dir),
        None => load_built_in(),
    }
}

fn from_texts(town: (PathBuf, String), rooms: Vec<(PathBuf, String)>) -> Result<Map, WorldError> {
    let town: Source<TownFile> = parse(town.0, town.1)?;
    let files = rooms
        .into_iter()
        .map(|(p, t)| parse::<RoomFile>(p, t))
        .collect::<Result<Vec<_>, _>>()?;
    build(town, files)
}

fn build(town: Source<TownFile>, files: Vec<Source<RoomFile>>) -> Result<Map, WorldError> {
    // First pass: room ids, so exits can point forwards.
    let mut room_index: HashMap<&str, (usize, &Source<RoomFile>)> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        let id = f.data.id.get_ref();
        check_id(f, &f.data.id, "room")?;
        if let Some((_, first)) = room_index.insert(id, (i, f)) {
            return Err(f.error_at(
                &f.data.id,
                format!(
                    "duplicate room id `{id}` (also in {})",
                    first.path.display()
                ),
            ));
        }
    }
    let mut thing_ids: HashMap<&str, &Path> = HashMap::new();
    let mut rooms = Vec::with_capacity(files.len());
    let mut verbs = Vec::new();
    for f in &files {
        let room_id = f.data.id.get_ref();
        let mut exits: Vec<Exit> = Vec::new();
        for e in &f.data.exits {
            let to = e.to.get_ref();
            let Some(&(to_idx, _)) = room_index.get(to.as_str()) else {
                return Err(f.error_at(
                    &e.to,
                    format!(
                        "exit `{}` of room `{room_id}` leads to room `{to}`, which does not exist",
                        e.name.get_ref()
                    ),
                ));
            };
            for word in std::iter::once(&e.name).chain(&e.aliases) {
                if word.get_ref().trim().is_empty() || word.get_ref().contains(char::is_whitespace)
                {
                    return Err(f.error_at(word, "an exit name or alias must be one word"));
                }
                if let Some(other) = exits.iter().find(|x| x.answers_to(word.get_ref())) {
                    return Err(f.error_at(
                        word,
                        format!(
                            "room `{room_id}` has two exits called `{}` (`{}` is another)",
                            word.get_ref(),
                            other.name
                        ),
                    ));
                }
            }
            exits.push(Exit {
                num: 0,
                owner: None,
                lock: None,
                name: e.name.get_ref().clone(),
                aliases: e.aliases.iter().map(|a| a.get_ref().clone()).collect(),
                to: to_idx,
            });
        }
        let mut things = Vec::new();
        for t in &f.data.things {
            let id = t.id.get_ref();
            check_id(f, &t.id, "thing")?;
            if let Some(first) = thing_ids.insert(id, &f.path) {
                return Err(f.error_at(
                    &t.id,
                    format!("duplicate thing id `{id}` (also in {})", first.display()),
                ));
            }
            let props = checked_props(f, &t.props)?;
            verbs.extend(checked_verbs(
                f,
                Held::Thing(id.clone()),
                &t.verbs,
                &t.verb_modes,
            )?);
            things.push(Thing {
                num: 0,
                owner: None,
                lock: None,
                props,
                id: id.clone(),
                name: t.name.clone(),
                aliases: t.aliases.clone(),
                description: reflow(&t.description),
                kind: t.kind.clone(),
            });
        }
        let props = checked_props(f, &f.data.props)?;
        verbs.extend(checked_verbs(
            f,
            Held::Room(room_id.clone()),
            &f.data.verbs,
            &f.data.verb_modes,
        )?);
        rooms.push(Room {
            num: 0,
            owner: None,
            gone: false,
            holder: None,
            props,
            id: room_id.clone(),
            name: f.data.name.clone(),
            description: reflow(&f.data.description),
            exits,
            things,
        });
    }
    let start = town.data.start.get_ref();
    let Some(&(start_idx, _)) = room_index.get(start.as_str()) else {
        return Err(town.error_at(
            &town.data.start,
            format!("the start room `{start}` does not exist"),
        ));
    };
    let mut map = Map::new(
        town.data.name.clone(),
        reflow(&town.data.welcome),
        start_idx,
        rooms,
    );
    map.verbs = verbs;
    Ok(map)
}

/// A room's or thing's properties from its file: each name as `@set` takes it, at most
/// [`MAX_PROPS`](super::build::MAX_PROPS).
fn checked_props(
    f: &Source<RoomFile>,
    props: &BTreeMap<String, Spanned<String>>,
) -> Result<BTreeMap<String, String>, WorldError> {
    if let Some((_, v)) = props.iter().nth(super::build::MAX_PROPS) {
        return Err(f.error_at(v, format!("at most {} properties", super::build::MAX_PROPS)));
    }
    props
        .iter()
        .map(|(k, v)| {
            if crate::sandbox::prop_name_ok(k) {
                Ok((k.clone(), v.get_ref().clone()))
            } else {
                Err(f.error_at(
                    v,
                    format!(
                        "`{k}` cannot be a property's name: a letter, then letters, digits or _"
                    ),
                ))
            }
        })
        .collect()
}

/// A room's or thing's verbs from its file, each name checked, its code compiled and its
/// mode read.
fn checked_verbs(
    f: &Source<RoomFile>,
    held: Held,
    verbs: &BTreeMap<String, Spanned<String>>,
    modes: &BTreeMap<String, Spanned<String>>,
) -> Result<Vec<FileVerb>, WorldError> {
    if let Some((name, m)) = modes.iter().find(|(name, _)| !verbs.contains_key(*name)) {
        return Err(f.error_at(m, format!("`{name}` has a mode but is no verb here")));
    }
    verbs
        .iter()
        .map(|(name, code)| {
            if !super::programs::verb_name_ok(name) {
                return Err(f.error_at(
                    code,
                    format!("`{name}` cannot be a verb's name: lowercase letters, digits and _"),
                ));
            }
            crate::sandbox::check(code.get_ref())
                .map_err(|e| f.error_at(code, format!("verb `{name}` does not compile: {e}")))?;
            let mode = match modes.get(name) {
                None => VerbMode::default(),
                Some(m) => VerbMode::from_letters(m.get_ref()).ok_or_else(|| {
                    f.error_at(m, format!("verb `{name}`'s mode must be r, x, rx or \"\""))
                })?,
            };
            Ok(FileVerb {
                held: held.clone(),
                name: name.clone(),
                code: code.get_ref().clone(),
                mode,
            })
        })
        .collect()
}

/// A description (or the welcome) as written in a file, with its lines joined into paragraphs (a blank line
/// between paragraphs stays): how wide a line is belongs to the reader's screen, which the
/// telnet face wraps to, not to the file.
fn reflow(text: &str) -> String {
    text.trim()
        .split("\n\n")
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn check_id<T>(f: &Source<T>, id: &Spanned<String>, what: &str) -> Result<(), WorldError> {
    let s = id.get_ref();
    let ok = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(f.error_at(
            id,
            format!("{what} id `{s}` must be lowercase letters, digits and underscores"),
        ))
    }
}
