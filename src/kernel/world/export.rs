//! `moot world export`: the town as files, to keep in version control and serve again with
//! `--world`. The world files it was served from are written as they are, and what builders
//! made is added to them: each built room a file of its own (`rooms/built_1000.toml`), each
//! built exit and thing appended to its room's file, with its properties and its programmed
//! verbs (the newest version of each). In the files they are the town's own: a town served
//! from them starts with everything there and no builder owning any of it.
//!
//! What stays with the database: who owns what, locks (they name people and keys by the
//! database's numbers), what people carry, and what the town's own objects' properties became
//! as verbs ran (`town_props`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::store::built::{BuiltKind, BuiltRow};
use crate::store::programs::{VerbMode, VerbRow};

/// What an export wrote besides the files it started from.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Exported {
    pub rooms: usize,
    pub exits: usize,
    pub things: usize,
    pub verbs: usize,
    /// Built objects left out: carried things, and exits or things whose room is gone.
    pub left_out: usize,
}

#[derive(Serialize)]
struct RoomOut {
    id: String,
    name: String,
    description: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    props: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    verbs: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    verb_modes: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    exits: Vec<ExitOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    things: Vec<ThingOut>,
}

#[derive(Serialize)]
struct ExitOut {
    name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aliases: Vec<String>,
    to: String,
}

#[derive(Serialize)]
struct ThingOut {
    id: String,
    name: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    aliases: Vec<String>,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    props: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    verbs: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    verb_modes: BTreeMap<String, String>,
}

/// An object's verbs as the files write them: each one's newest code, and the modes of those
/// kept from some (`@chmod #12:push -x`: in the files, only the wizards may then run it).
#[derive(Default, Clone)]
struct Verbs {
    code: BTreeMap<String, String>,
    modes: BTreeMap<String, String>,
}

/// What is appended to a room file that is already there.
#[derive(Serialize)]
struct Added {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    exits: Vec<ExitOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    things: Vec<ThingOut>,
}

/// A room's id in the files: a built room's `built-1000` is `built_1000` there (the files' ids
/// are lowercase letters, digits and `_`).
fn file_id(room_id: &str) -> String {
    match room_id.strip_prefix(super::build::BUILT_ROOM) {
        Some(num) => format!("built_{num}"),
        None => room_id.to_owned(),
    }
}

/// The town's files (`base`: each file's path under the town's directory and its text, as
/// read) with everything `built` added, and the newest version of each verb in `verbs`.
pub fn export(
    base: Vec<(String, String)>,
    built: &[BuiltRow],
    verbs: &[VerbRow],
) -> Result<(Vec<(String, String)>, Exported), String> {
    let mut newest: BTreeMap<u64, Verbs> = BTreeMap::new();
    for v in verbs {
        let on = newest.entry(v.num).or_default();
        on.code.insert(v.name.clone(), v.code.clone());
        if v.mode != VerbMode::default() {
            on.modes.insert(v.name.clone(), v.mode.letters().to_owned());
        }
    }
    let mut done = Exported::default();
    // The rooms the files have, by id, and the built ones, by their files' id.
    let base_rooms: BTreeMap<String, usize> = base
        .iter()
        .enumerate()
        .filter(|(_, (path, _))| path.starts_with("rooms/"))
        .filter_map(|(i, (_, text))| {
            let id = toml::from_str::<toml::Table>(text)
                .ok()?
                .get("id")?
                .as_str()?
                .to_owned();
            Some((id, i))
        })
        .collect();
    let mut new_rooms: BTreeMap<String, RoomOut> = BTreeMap::new();
    for r in built.iter().filter(|r| r.kind == BuiltKind::Room) {
        let id = file_id(&format!("{}{}", super::build::BUILT_ROOM, r.num));
        let verbs = newest.remove(&r.num).unwrap_or_default();
        new_rooms.insert(
            id.clone(),
            RoomOut {
                id,
                name: r.name.clone(),
                description: r.description.clone(),
                props: r.props.clone(),
                verbs: verbs.code,
                verb_modes: verbs.modes,
                exits: Vec::new(),
                things: Vec::new(),
            },
        );
        done.rooms += 1;
    }
    let mut added: BTreeMap<usize, Added> = BTreeMap::new();
    let ids: std::collections::BTreeSet<String> =
        base_rooms.keys().chain(new_rooms.keys()).cloned().collect();
    let known = |id: &str| ids.contains(id);
    for r in built.iter().filter(|r| r.kind != BuiltKind::Room) {
        let Some(place) = r.place.as_deref().map(file_id).filter(|p| known(p)) else {
            done.left_out += 1;
            continue;
        };
        let exit = match r.kind {
            BuiltKind::Exit => match r.dest.as_deref().map(file_id).filter(|d| known(d)) {
                Some(to) => Some(ExitOut {
                    name: r.name.clone(),
                    aliases: r.aliases.clone(),
                    to,
                }),
                None => {
                    done.left_out += 1;
                    continue;
                }
            },
            _ => None,
        };
        let thing = || {
            let verbs = newest.get(&r.num).cloned().unwrap_or_default();
            ThingOut {
                id: format!("built_thing_{}", r.num),
                name: r.name.clone(),
                aliases: r.aliases.clone(),
                description: r.description.clone(),
                kind: r.thing_kind.clone(),
                props: r.props.clone(),
                verbs: verbs.code,
                verb_modes: verbs.modes,
            }
        };
        match (new_rooms.get_mut(&place), base_rooms.get(&place)) {
            (Some(room), _) => match exit {
                Some(e) => room.exits.push(e),
                None => room.things.push(thing()),
            },
            (None, Some(&i)) => {
                let a = added.entry(i).or_insert_with(|| Added {
                    exits: Vec::new(),
                    things: Vec::new(),
                });
                match exit {
                    Some(e) => a.exits.push(e),
                    None => a.things.push(thing()),
                }
            }
            (None, None) => unreachable!("the place is known"),
        }
        match r.kind {
            BuiltKind::Exit => done.exits += 1,
            _ => {
                done.things += 1;
                done.verbs += newest.get(&r.num).map_or(0, |v| v.code.len());
            }
        }
    }
    done.verbs += new_rooms.values().map(|r| r.verbs.len()).sum::<usize>();
    let mut files = base;
    for (i, a) in added {
        let text = toml::to_string(&a).map_err(|e| e.to_string())?;
        let (path, file) = &mut files[i];
        let appended =
            format!("{file}\n# What builders made here, as `moot world export` wrote it.\n{text}");
        // Appended tables are good TOML unless the file wrote its exits or things inline
        // (`exits = [...]`): then the whole file is written anew, its lists joined.
        *file = match toml::from_str::<toml::Table>(&appended) {
            Ok(_) => appended,
            Err(_) => rewritten(file, &a).map_err(|e| format!("{path}: {e}"))?,
        };
    }
    for (id, room) in new_rooms {
        let text = toml::to_string(&room).map_err(|e| e.to_string())?;
        files.push((
            format!("rooms/{id}.toml"),
            format!("# Built in the town, as `moot world export` wrote it.\n{text}"),
        ));
    }
    Ok((files, done))
}

/// A room file's text with `added` joined to its lists, written anew.
fn rewritten(text: &str, added: &Added) -> Result<String, String> {
    let mut table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let added = toml::Table::try_from(added).map_err(|e| e.to_string())?;
    for (key, value) in added {
        let list = table
            .entry(key.clone())
            .or_insert_with(|| toml::Value::Array(Vec::new()));
        match (list, value) {
            (toml::Value::Array(list), toml::Value::Array(more)) => list.extend(more),
            _ => return Err(format!("`{key}` is not a list")),
        }
    }
    toml::to_string(&table).map_err(|e| e.to_string())
}

/// Writes `files` into `dir` (made if missing), refusing to overwrite a town already there.
pub fn write(dir: &std::path::Path, files: &[(String, String)]) -> std::io::Result<()> {
    if dir.join("world.toml").exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{} already holds a town (world.toml)", dir.display()),
        ));
    }
    std::fs::create_dir_all(dir.join("rooms"))?;
    for (name, text) in files {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}

/// The files of the town in `dir` (`world.toml` and `rooms/*.toml`), as `export` takes them.
pub fn read(dir: &std::path::Path) -> std::io::Result<Vec<(String, String)>> {
    let mut files = vec![(
        "world.toml".to_owned(),
        std::fs::read_to_string(dir.join("world.toml"))?,
    )];
    let mut rooms: Vec<_> = std::fs::read_dir(dir.join("rooms"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    rooms.sort();
    for p in rooms {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        files.push((format!("rooms/{name}"), std::fs::read_to_string(&p)?));
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(
        num: u64,
        kind: BuiltKind,
        name: &str,
        place: Option<&str>,
        dest: Option<&str>,
    ) -> BuiltRow {
        BuiltRow {
            num,
            kind,
            owner: "ann-id".into(),
            name: name.into(),
            aliases: vec![],
            description: format!("{name}, described."),
            place: place.map(Into::into),
            dest: dest.map(Into::into),
            lock: None,
            thing_kind: None,
            props: BTreeMap::from([("lit".into(), "no".into())]),
            created_ms: 0,
            writable: false,
        }
    }

    /// An exported town loads, with everything built in it, the verbs compiled and the
    /// properties set; what people carry is left out.
    #[test]
    fn an_exported_town_loads_with_what_was_built() {
        let base: Vec<(String, String)> = super::super::built_in::FILES
            .iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect();
        let built = vec![
            row(1000, BuiltKind::Room, "The Garden", None, None),
            row(
                1001,
                BuiltKind::Exit,
                "garden",
                Some("town_square"),
                Some("built-1000"),
            ),
            row(
                1002,
                BuiltKind::Exit,
                "out",
                Some("built-1000"),
                Some("town_square"),
            ),
            row(
                1003,
                BuiltKind::Thing,
                "a brass lamp",
                Some("built-1000"),
                None,
            ),
            row(1004, BuiltKind::Thing, "a bench", Some("town_square"), None),
            row(1005, BuiltKind::Thing, "a key", Some("pocket-bob-id"), None),
        ];
        let verbs = vec![
            VerbRow {
                num: 1003,
                name: "switch".into(),
                version: 1,
                code: "say(\"old\");".into(),
                author: "ann-id".into(),
                created_ms: 0,
                mode: VerbMode::default(),
            },
            VerbRow {
                num: 1003,
                name: "switch".into(),
                version: 2,
                code: "let lit = this[\"lit\"] == \"yes\";\nsay(\"Click.\");".into(),
                author: "ann-id".into(),
                created_ms: 0,
                mode: VerbMode::default(),
            },
            // Kept from the others by its owner: in the files, by the wizards.
            VerbRow {
                num: 1003,
                name: "tune".into(),
                version: 0,
                code: "say(\"Hum.\");".into(),
                author: "ann-id".into(),
                created_ms: 0,
                mode: VerbMode {
                    readable: false,
                    runnable: false,
                },
            },
        ];
        let (files, done) = export(base, &built, &verbs).unwrap();
        assert_eq!(
            done,
            Exported {
                rooms: 1,
                exits: 2,
                things: 2,
                verbs: 2,
                left_out: 1
            }
        );
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &files).unwrap();
        let mut map = super::super::load(dir.path()).unwrap();
        let garden = map.room_by_id("built_1000").unwrap();
        let square = map.room_by_id("town_square").unwrap();
        assert!(
            map.room(square)
                .exits
                .iter()
                .any(|e| e.name == "garden" && e.to == garden)
        );
        assert!(map.room(square).things.iter().any(|t| t.name == "a bench"));
        let lamp = &map.room(garden).things[0];
        assert_eq!(
            (lamp.name.as_str(), lamp.props["lit"].as_str()),
            ("a brass lamp", "no")
        );
        let verbs = std::mem::take(&mut map.verbs);
        let lamp = super::super::map::Held::Thing("built_thing_1003".into());
        let lamps: Vec<_> = verbs.iter().filter(|v| v.held == lamp).collect();
        assert_eq!(lamps.len(), 2);
        assert_eq!(
            (
                lamps[0].name.as_str(),
                lamps[0].code.as_str(),
                lamps[0].mode
            ),
            (
                "switch",
                "let lit = this[\"lit\"] == \"yes\";\nsay(\"Click.\");",
                VerbMode::default()
            )
        );
        assert_eq!(
            (lamps[1].name.as_str(), lamps[1].mode.letters()),
            ("tune", "")
        );
        assert!(!files.iter().any(|(_, t)| t.contains("a key")));
    }

    /// A room file that writes its exits inline is written anew, its list joined.
    #[test]
    fn a_file_with_inline_lists_is_joined_not_broken() {
        let base = vec![
            (
                "world.toml".to_owned(),
                "name = \"t\"\nwelcome = \"w\"\nstart = \"a\"\n".to_owned(),
            ),
            (
                "rooms/a.toml".to_owned(),
                "id = \"a\"\nname = \"A\"\ndescription = \"d\"\nexits = [{ name = \"loop\", to = \"a\" }]\n"
                    .to_owned(),
            ),
        ];
        let built = vec![row(1000, BuiltKind::Exit, "back", Some("a"), Some("a"))];
        let (files, _) = export(base, &built, &[]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &files).unwrap();
        let map = super::super::load(dir.path()).unwrap();
        let a = map.room(map.room_by_id("a").unwrap());
        let names: Vec<&str> = a.exits.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["loop", "back"]);
    }
}
