//! Broken world files stop start-up with the file, the place and the problem.

use std::path::Path;
use std::process::Command;

use crate::support::world_dir;

/// A copy of the real world in a temporary directory, with `file` replaced by `text`.
fn world_with(file: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rooms")).unwrap();
    for f in [
        "world.toml",
        "rooms/town_square.toml",
        "rooms/town_hall.toml",
        "rooms/chess_parlour.toml",
        "rooms/card_room.toml",
        "rooms/game_room.toml",
        "rooms/workshop.toml",
    ] {
        std::fs::copy(world_dir().join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(dir.path().join(file), text).unwrap();
    dir
}

fn error_of(dir: &Path) -> String {
    moot::world::load(dir).unwrap_err().to_string()
}

#[test]
fn the_shipped_world_loads() {
    let map = moot::world::load(&world_dir()).unwrap();
    for id in [
        "town_square",
        "town_hall",
        "chess_parlour",
        "card_room",
        "game_room",
        "workshop",
    ] {
        assert!(map.room_by_id(id).is_some(), "{id} exists");
    }
    assert_eq!(map.room(map.start).name, "Town Square");
}

#[test]
fn bad_syntax_names_file_line_and_column() {
    let dir = world_with(
        "rooms/game_room.toml",
        "id = \"game_room\"\nname = = \"Game Room\"\n",
    );
    let e = error_of(dir.path());
    assert!(e.contains("rooms/game_room.toml:2:8:"), "{e}");
}

#[test]
fn an_exit_to_nowhere_is_named() {
    let text = "id = \"game_room\"\nname = \"Game Room\"\ndescription = \"x\"\n\n[[exits]]\nname = \"up\"\nto = \"attic\"\n";
    let dir = world_with("rooms/game_room.toml", text);
    let e = error_of(dir.path());
    assert!(e.contains("rooms/game_room.toml:7:6:"), "{e}");
    assert!(
        e.contains("exit `up` of room `game_room` leads to room `attic`, which does not exist"),
        "{e}"
    );
}

#[test]
fn duplicate_ids_are_named() {
    let text = "id = \"town_hall\"\nname = \"Second Hall\"\ndescription = \"x\"\n";
    let dir = world_with("rooms/game_room.toml", text);
    let e = error_of(dir.path());
    // Files are read in name order, so the second one seen is town_hall.toml.
    assert!(
        e.contains("rooms/town_hall.toml:1:6: duplicate room id `town_hall` (also in"),
        "{e}"
    );
    assert!(e.ends_with("rooms/game_room.toml)"), "{e}");

    let thing = "id = \"game_room\"\nname = \"G\"\ndescription = \"x\"\n[[things]]\nid = \"fountain\"\nname = \"a fountain\"\ndescription = \"wet\"\n";
    let dir = world_with("rooms/game_room.toml", thing);
    let e = error_of(dir.path());
    assert!(e.contains("duplicate thing id `fountain`"), "{e}");
}

#[test]
fn unknown_fields_and_start_rooms_are_named() {
    let dir = world_with(
        "world.toml",
        "name = \"m\"\nwelcome = \"hi\"\nstart = \"nowhere\"\n",
    );
    assert!(
        error_of(dir.path()).contains("world.toml:3:9: the start room `nowhere` does not exist")
    );
    let dir = world_with(
        "rooms/card_room.toml",
        "id = \"card_room\"\nname = \"C\"\ndescription = \"x\"\ncolour = \"red\"\n",
    );
    let e = error_of(dir.path());
    assert!(
        e.contains("rooms/card_room.toml:4:1:") && e.contains("colour"),
        "{e}"
    );
}

#[test]
fn the_binary_refuses_to_start_on_a_broken_world() {
    let dir = world_with(
        "rooms/game_room.toml",
        "id = \"game_room\"\nname = \"G\"\ndescription = \"x\"\n[[exits]]\nname = \"up\"\nto = \"attic\"\n",
    );
    let db = dir.path().join("x.db");
    let out = Command::new(env!("CARGO_BIN_EXE_moot"))
        .args([
            "--world",
            dir.path().to_str().unwrap(),
            "--db",
            db.to_str().unwrap(),
            "--telnet",
            "127.0.0.1:0",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("moot: the world files are broken:")
            && stderr.contains("game_room.toml:6:6:")
            && stderr.contains("`attic`"),
        "{stderr}"
    );
}

#[test]
fn a_thing_of_a_kind_nothing_knows_stops_start_up() {
    let room = std::fs::read_to_string(world_dir().join("rooms/game_room.toml"))
        .unwrap()
        .replace("kind = \"rps_table\"", "kind = \"rps_tabel\"");
    let dir = world_with("rooms/game_room.toml", &room);
    let db = dir.path().join("x.db");
    let out = Command::new(env!("CARGO_BIN_EXE_moot"))
        .args(["--world", dir.path().to_str().unwrap()])
        .args(["--db", db.to_str().unwrap(), "--telnet", "127.0.0.1:0"])
        .args(["--http", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr
            .contains("rps_table in game_room is of kind `rps_tabel`, which no game or verb knows")
            && stderr.contains(
                "known: blackjack_table, chess_table, connect4_table, rps_table, scenery, \
                 tictactoe_table"
            ),
        "{stderr}"
    );
}

#[test]
fn a_verb_that_does_not_compile_and_a_bad_property_are_named() {
    let dir = world_with(
        "rooms/workshop.toml",
        "id = \"workshop\"\nname = \"W\"\ndescription = \"x\"\n\n[verbs]\npush = \"say(\"\n",
    );
    let e = error_of(dir.path());
    assert!(
        e.contains("rooms/workshop.toml:6:8:") && e.contains("verb `push` does not compile"),
        "{e}"
    );
    let dir = world_with(
        "rooms/workshop.toml",
        "id = \"workshop\"\nname = \"W\"\ndescription = \"x\"\n\n[props]\n9lives = \"x\"\n",
    );
    let e = error_of(dir.path());
    assert!(e.contains("`9lives` cannot be a property's name"), "{e}");
    let dir = world_with(
        "rooms/workshop.toml",
        "id = \"workshop\"\nname = \"W\"\ndescription = \"x\"\n\n[verbs]\npush = \"say(1);\"\n\n[verb_modes]\npush = \"rw\"\n",
    );
    let e = error_of(dir.path());
    assert!(
        e.contains("rooms/workshop.toml:9:8:")
            && e.contains("verb `push`'s mode must be r, x, rx or \"\""),
        "{e}"
    );
    let dir = world_with(
        "rooms/workshop.toml",
        "id = \"workshop\"\nname = \"W\"\ndescription = \"x\"\n\n[verb_modes]\npull = \"r\"\n",
    );
    let e = error_of(dir.path());
    assert!(e.contains("`pull` has a mode but is no verb here"), "{e}");
}
