//! Connect Four (`connect4.v1`) in the town: a table in the Game Room, `play connect4 with
//! <name|house>` there, `drop <1-7>` from anywhere, the REST and MCP `session_*` tools as for
//! any template, and a live page at `/connect4/<id>`. This folder and one line in
//! `games::ALL` are all of it.

pub mod page;
pub use moot_connect4_rules as rules;

/// It has no flags of its own.
pub use moot_kernel::verbs::game_module::NoFlags as Flags;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use moot_kernel::verbs::game_module::{GameModule, Hooks, Page};
use moot_kernel::verbs::parse::word;
use moot_kernel::verbs::which::my_session;
use moot_kernel::verbs::{Reply, Topic, Verb, VerbError, entry, usage};
use moot_kernel::world::{Cx, ThingKind, World};
use rules::Connect4;

/// Where Connect Four is played (the Game Room's frame).
pub const TABLE: ThingKind = ThingKind::named("connect4_table");

pub struct Drop;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct DropArgs {
    /// The column, 1 (left) to 7 (right).
    #[schemars(range(min = 1, max = 7))]
    pub column: u8,
    /// The game (`#3`), if you play several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Dropped {
    pub session_id: String,
    pub column: u8,
    pub status: String,
}

impl Verb for Drop {
    const NAME: &'static str = "drop";
    const USAGE: &'static str = "drop <1-7> [#<game>]";
    const SUMMARY: &'static str = "Drop a disc into a column in Connect Four.";
    const HELP: &'static str = "In your game of Connect Four (start one with `play connect4 with \
<name|house>` at the Game Room's frame), `drop 4` drops your disc into the middle column, where \
it falls to the lowest empty cell. Columns are numbered 1 to 7 from the left, as the board shows \
them. Red drops first; four in a row in any direction wins. You drop by the game's number, so you \
may do it from anywhere.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Drop your disc into `column`, 1 (left) to 7 (right), \
in your game of Connect Four, started with `play`; it falls to the lowest empty cell. Returns the \
column, the game's id and its status.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = Topic::TABLES;
    const OFFERED_BY: &'static [ThingKind] = &[TABLE];
    type Args = DropArgs;
    type Output = Dropped;

    fn parse(rest: &str) -> Result<DropArgs, VerbError> {
        let (rest, column) = word(rest).map_err(|_| usage::<Drop>())?;
        // `drop lamp` puts a thing down (a line goes to the verb whose words it fits).
        let column = column.parse().map_err(|_| usage::<Drop>())?;
        let game = (!rest.trim().is_empty()).then(|| rest.trim().to_owned());
        Ok(DropArgs { column, game })
    }

    fn run(world: &mut World, cx: &mut Cx, args: DropArgs) -> Result<Reply<Dropped>, VerbError> {
        let actor = cx.actor.clone();
        let template = <Connect4 as moot_kernel::game_api::Game>::TEMPLATE;
        let sid = my_session(
            world,
            &actor,
            template,
            "Connect Four",
            args.game.as_deref(),
        )?;
        if !(1..=7).contains(&args.column) {
            return Err(VerbError::usage(
                "Columns are numbered 1 to 7, from the left.",
            ));
        }
        let tick = moot_kernel::verbs::games::session_of(world, sid)?.tick;
        let acted = world
            .play(cx, sid, &args.column.to_string(), Some(tick))
            .map_err(VerbError::from)?;
        let mut text = vec![format!(
            "You drop a disc into column {} in game #{sid}.",
            args.column
        )];
        // The drop is made: only the board after it is left to show.
        if let Some(s) = world.session(sid) {
            text.extend(world.drawn_for(s, &actor));
        }
        Ok(Reply::new(
            text,
            Dropped {
                session_id: sid.to_string(),
                column: args.column,
                status: acted.status,
            },
        ))
    }
}

/// Each game's page on the web.
const PAGE: &str = "/connect4/{session_id}";

/// Connect Four: a table for two in the Game Room, against a person or the house.
pub static MODULE: GameModule = GameModule {
    name: "connect4",
    templates: &[moot_kernel::game_api::Template {
        page: Some(PAGE),
        ..moot_kernel::game_api::template::<Connect4>()
    }],
    verbs: &[entry::<Drop>()],
    topic: Topic::TABLES,
    start: None,
    commands: None,
    page: Some(Page {
        path: PAGE,
        summary: "A Connect Four game as it happens (HTML)",
        html: page::html,
        frame: page::live,
        shared_feed: false,
        downloads: &[],
        actions: &[],
    }),
    reads: &[],
    app: None,
    skill: None,
    hooks: Hooks::NONE,
};
