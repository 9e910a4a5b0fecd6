//! `choose rock|paper|scissors`: playing rock-paper-scissors (rps.v1) at the Game Room's table.
//! The choice stays the chooser's until both are in; the table then shows both.

pub use moot_rps_rules as rules;

/// It has no flags of its own.
pub use moot_kernel::verbs::game_module::NoFlags as Flags;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use moot_kernel::verbs::parse::word;
use moot_kernel::verbs::which::my_session;
use moot_kernel::verbs::{Reply, Topic, Verb, VerbError, usage};
use moot_kernel::world::{Cx, ThingKind, World};

/// Where rock-paper-scissors is played (the Game Room).
pub const RPS_TABLE: ThingKind = ThingKind::named("rps_table");

pub struct Choose;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ChooseArgs {
    /// `rock`, `paper` or `scissors`.
    pub choice: String,
    /// The game (`#3`), if you play several.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Chosen {
    pub session_id: String,
    pub choice: String,
    /// `active` until both have chosen, then `completed`.
    pub status: String,
}

impl Verb for Choose {
    const NAME: &'static str = "choose";
    const ALIASES: &'static [&'static str] = &["throw"];
    const USAGE: &'static str = "choose rock|paper|scissors [#<game>]";
    const SUMMARY: &'static str = "Choose in a game of rock-paper-scissors.";
    const HELP: &'static str = "In your game of rock-paper-scissors (start one with `play rps with \
<name|house>` at the Game Room's table), `choose rock` (or `paper`, or `scissors`; `throw` works \
too) makes your choice. Nobody sees it until both of you have chosen; then the table shows both \
and who won. You choose by the game's number, so you may do it from anywhere.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Choose `choice` (`rock`, `paper` or `scissors`) in \
your game of rock-paper-scissors, started with `play`; nobody sees it until both have chosen. \
Returns your choice, the game's id and its status.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = Topic::TABLES;
    const OFFERED_BY: &'static [ThingKind] = &[self::RPS_TABLE];
    type Args = ChooseArgs;
    type Output = Chosen;

    fn parse(rest: &str) -> Result<ChooseArgs, VerbError> {
        let (rest, choice) = word(rest).map_err(|_| usage::<Choose>())?;
        let game = (!rest.trim().is_empty()).then(|| rest.trim().to_owned());
        Ok(ChooseArgs {
            choice: choice.to_ascii_lowercase(),
            game,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: ChooseArgs) -> Result<Reply<Chosen>, VerbError> {
        let actor = cx.actor.clone();
        let sid = my_session(
            world,
            &actor,
            "rps.v1",
            "rock-paper-scissors",
            args.game.as_deref(),
        )?;
        let choice = args.choice.to_ascii_lowercase();
        if !["rock", "paper", "scissors"].contains(&choice.as_str()) {
            return Err(VerbError::usage("Choose rock, paper or scissors."));
        }
        let acted = world.play(cx, sid, &choice, None)?;
        let mut text = vec![format!("You choose {choice} in game #{sid}.")];
        // The choice is made: only the table after it is left to show.
        if let Some(s) = world.session(sid) {
            text.extend(world.drawn_for(s, &actor));
        }
        Ok(Reply::new(
            text,
            Chosen {
                session_id: sid.to_string(),
                choice,
                status: acted.status,
            },
        ))
    }
}

/// Rock-paper-scissors: one verb, played at the Game Room's table.
pub static MODULE: moot_kernel::verbs::game_module::GameModule =
    moot_kernel::verbs::game_module::GameModule::plain(
        "rps",
        &[moot_kernel::game_api::template::<rules::Rps>()],
        &[moot_kernel::verbs::entry::<Choose>()],
        Topic::TABLES,
    );
