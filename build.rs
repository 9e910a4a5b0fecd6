//! A game is one folder (`src/games/<name>/`, its rules crate in `rules/`) and one line: its
//! rules crate among `Cargo.toml`'s dependencies, which cargo needs and cannot find by itself.
//! This reads those lines, in their order, and writes the `games!` list that declares each
//! folder's module and puts the game in the catalog, so that the game is named once.

use std::{env, fs, path::Path};

fn main() {
    println!("cargo:rerun-if-changed=Cargo.toml");
    println!("cargo:rerun-if-changed=src/games");
    let manifest = fs::read_to_string("Cargo.toml").expect("read Cargo.toml");
    let games = listed(&manifest);
    for game in &games {
        if !Path::new(&format!("src/games/{game}/mod.rs")).is_file() {
            panic!(
                "Cargo.toml names the rules of `{game}`, but src/games/{game}/mod.rs is missing"
            );
        }
    }
    // A folder with rules that is not listed would compile as nothing at all: say so.
    for entry in fs::read_dir("src/games").expect("read src/games").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().join("rules/Cargo.toml").is_file() && !games.contains(&name) {
            panic!(
                "src/games/{name} has rules but Cargo.toml does not list them: add\n\
                 moot-{name}-rules = {{ path = \"src/games/{name}/rules\" }}"
            );
        }
    }
    // Each folder's module by its path: a `mod` in a file under OUT_DIR would be looked for
    // there.
    let root = env::var("CARGO_MANIFEST_DIR").unwrap();
    let list: Vec<String> = games
        .iter()
        .map(|g| format!("{g} = {:?}", format!("{root}/src/games/{g}/mod.rs")))
        .collect();
    let out = Path::new(&env::var("OUT_DIR").unwrap()).join("games.rs");
    fs::write(out, format!("games!({});\n", list.join(", "))).expect("write games.rs");
}

/// The games whose rules `[dependencies]` lists, as `moot-<name>-rules = { path =
/// "src/games/<name>/rules" }`, in order.
fn listed(manifest: &str) -> Vec<String> {
    let mut games = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        let Some(rest) = line.strip_prefix("moot-").filter(|_| in_dependencies) else {
            continue;
        };
        let Some((name, _)) = rest.split_once("-rules") else {
            continue;
        };
        let path = format!("path = \"src/games/{name}/rules\"");
        assert!(
            line.contains(&path),
            "Cargo.toml: moot-{name}-rules must be at src/games/{name}/rules ({line})"
        );
        games.push(name.to_owned());
    }
    assert!(!games.is_empty(), "Cargo.toml lists no game's rules");
    games
}
