//! The town moot ships with, compiled into the binary so that `moot` and `moot mcp` run from
//! any directory. `--world DIR` serves another; `moot world export DIR` writes this one out to
//! edit (see [`super::export`]). A test keeps this list and `world/` the same.

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
    (
        "rooms/workshop.toml",
        include_str!("../../../world/rooms/workshop.toml"),
    ),
];
