//! `mark <1-9>`: playing tic-tac-toe (tictactoe.v1) at the Game Room's board. Cells are
//! numbered as the text board shows them, 1 to 9 from the top left. A live page at
//! `/tictactoe/<id>` draws it, and its players mark a cell there with a click.

pub mod page;
pub use moot_tictactoe_rules as rules;

/// It has no flags of its own.
pub use moot_kernel::verbs::game_module::NoFlags as Flags;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use moot_kernel::verbs::games::session_of;
use moot_kernel::verbs::parse::word;
use moot_kernel::verbs::which::my_session;
use moot_kernel::verbs::{Reply, Topic, Verb, VerbError, usage};
use moot_kernel::world::{Cx, ThingKind, World};

/// Where tic-tac-toe is played (the Game Room).
pub const TICTACTOE_TABLE: ThingKind = ThingKind::named("tictactoe_table");

pub struct Mark;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct MarkArgs {
    /// The cell, 1 (top left) to 9 (bottom right).
    #[schemars(range(min = 1, max = 9))]
    pub cell: u8,
    /// The game (`#3`), if you play several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Marked {
    pub session_id: String,
    pub cell: u8,
    pub status: String,
}

impl Verb for Mark {
    const NAME: &'static str = "mark";
    const USAGE: &'static str = "mark <1-9> [#<game>]";
    const SUMMARY: &'static str = "Mark a cell in a game of tic-tac-toe.";
    const HELP: &'static str = "In your game of tic-tac-toe (start one with `play tictactoe with \
<name|house>` at the Game Room's board), `mark 5` puts your X or O in the centre: cells are \
numbered 1 to 9 from the top left, as the board shows them. X moves first. You mark by the \
game's number, so you may do it from anywhere.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Mark `cell`, 1 (top left) to 9 (bottom right), in your \
game of tic-tac-toe, started with `play`. Returns the cell, the game's id and its status.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = Topic::TABLES;
    const OFFERED_BY: &'static [ThingKind] = &[self::TICTACTOE_TABLE];
    type Args = MarkArgs;
    type Output = Marked;

    fn parse(rest: &str) -> Result<MarkArgs, VerbError> {
        let (rest, cell) = word(rest).map_err(|_| usage::<Mark>())?;
        let cell = cell.parse().map_err(|_| usage::<Mark>())?;
        let game = (!rest.trim().is_empty()).then(|| rest.trim().to_owned());
        Ok(MarkArgs { cell, game })
    }

    fn run(world: &mut World, cx: &mut Cx, args: MarkArgs) -> Result<Reply<Marked>, VerbError> {
        let actor = cx.actor.clone();
        let sid = my_session(
            world,
            &actor,
            "tictactoe.v1",
            "tic-tac-toe",
            args.game.as_deref(),
        )?;
        if !(1..=9).contains(&args.cell) {
            return Err(VerbError::usage(
                "Cells are numbered 1 to 9, from the top left.",
            ));
        }
        let s = session_of(world, sid)?;
        if let Some(end) = s.game.ending() {
            return Err(VerbError::refused(format!("Game #{sid} is over: {end}.")));
        }
        let Some(role) = s.role_of(&actor) else {
            return Err(VerbError::refused(format!(
                "You are not playing in game #{sid}."
            )));
        };
        if !s.game.legal_actions(role).is_empty()
            && !s
                .game
                .legal_actions(role)
                .contains(&(args.cell - 1).to_string())
        {
            world.refused(cx, sid, &actor);
            return Err(VerbError::refused(format!("Cell {} is taken.", args.cell)));
        }
        let tick = s.tick;
        let acted = world
            .play(cx, sid, &(args.cell - 1).to_string(), Some(tick))
            .map_err(|e| {
                if e.detail == Some(moot_kernel::game_api::Code::NotYourTurn) {
                    VerbError::refused(format!("It is not your turn in game #{sid}."))
                } else {
                    e.into()
                }
            })?;
        let mut text = vec![format!("You mark cell {} in game #{sid}.", args.cell)];
        // The mark is made: only the board after it is left to show.
        if let Some(s) = world.session(sid) {
            text.extend(world.drawn_for(s, &actor));
        }
        Ok(Reply::new(
            text,
            Marked {
                session_id: sid.to_string(),
                cell: args.cell,
                status: acted.status,
            },
        ))
    }
}

/// Each game's page on the web.
const PAGE: &str = "/tictactoe/{session_id}";

/// Tic-tac-toe: one verb, played at the Game Room's board, and a page.
pub static MODULE: moot_kernel::verbs::game_module::GameModule =
    moot_kernel::verbs::game_module::GameModule {
        page: Some(moot_kernel::verbs::game_module::Page {
            path: PAGE,
            summary: "A tic-tac-toe game as it happens (HTML)",
            html: page::html,
            frame: page::live,
            shared_feed: false,
            downloads: &[],
            actions: &[],
        }),
        ..moot_kernel::verbs::game_module::GameModule::plain(
            "tictactoe",
            &[moot_kernel::game_api::Template {
                page: Some(PAGE),
                ..moot_kernel::game_api::template::<rules::TicTacToe>()
            }],
            &[moot_kernel::verbs::entry::<Mark>()],
            Topic::TABLES,
        )
    };
