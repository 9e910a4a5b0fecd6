//! The town moot ships with, compiled into the binary so that `moot` and `moot mcp` run from
//! any directory. `--world DIR` serves another; `moot world export DIR` writes this one out to
//! edit. A test keeps this list and `world/` the same.

/// Each file's path under the town's directory and its text; `world.toml` first.
pub const FILES: &[(&str, &str)] = &[
    ("world.toml", include_str!("../../../world/world.toml")),
    (
        "rooms/card_room.toml",
        include_str!("../../../world/rooms/card_room.toml"),
    ),
    (
        "rooms/chess_parlour.toml",
        include_str!("../../../world/rooms/chess_parlour.toml"),
    ),
    (
        "rooms/game_room.toml",
        include_str!("../../../world/rooms/game_room.toml"),
    ),
    (
        "rooms/town_hall.toml",
        include_str!("../../../world/rooms/town_hall.toml"),
    ),
    (
        "rooms/town_square.toml",
        include_str!("../../../world/rooms/town_square.toml"),
    ),
];

/// Writes the built-in town into `dir` (made if missing), refusing to overwrite a town that is
/// already there.
pub fn export(dir: &std::path::Path) -> std::io::Result<()> {
    if dir.join("world.toml").exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("{} already holds a town (world.toml)", dir.display()),
        ));
    }
    std::fs::create_dir_all(dir.join("rooms"))?;
    for (name, text) in FILES {
        std::fs::write(dir.join(name), text)?;
    }
    Ok(())
}
