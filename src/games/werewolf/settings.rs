//! The operator's settings for Werewolf: its flags on moot's command line, kept in the town's
//! Werewolf state ([`WerewolfTown`]) where the notice board reads them.

use std::time::Duration;

use super::WerewolfTown;
use moot_kernel::verbs::game_module::Settings;
use moot_kernel::world::World;

#[derive(clap::Args, Debug, Clone)]
#[group(skip)]
pub struct Flags {
    /// How long the first name on the Werewolf notice board waits before the house's bots fill
    /// the empty seats and the match begins (0s: never).
    #[arg(
        long = "werewolf-fill-after",
        env = "MOOT_WEREWOLF_FILL_AFTER",
        default_value = "5m"
    )]
    pub fill_after: humantime::Duration,

    /// When spectators of a match from the notice board may see everything (every card, the
    /// wolves' talk, the seer's visions): `after` it has ended, or `live` while it runs, which
    /// lets anyone, a throwaway identity too, read the cards of a match in play. Practice
    /// matches are always `live`.
    #[arg(
        long = "werewolf-omniscient",
        env = "MOOT_WEREWOLF_OMNISCIENT",
        value_enum,
        default_value_t = Omniscient::After
    )]
    pub omniscient: Omniscient,
}

/// When spectators may see a match from the notice board whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Omniscient {
    /// While it runs.
    Live,
    /// Once it has ended.
    After,
}

impl Settings for Flags {
    fn apply(&self, world: &mut World) {
        let fill_after: Duration = self.fill_after.into();
        let town = world.ext::<WerewolfTown>();
        town.fill_after = (!fill_after.is_zero()).then_some(fill_after);
        town.all_seeing_live = self.omniscient == Omniscient::Live;
    }
}

/// Whether the board's matches may be watched whole while they run.
pub fn all_seeing_live(world: &World) -> bool {
    world
        .ext_ref::<WerewolfTown>()
        .is_some_and(|t| t.all_seeing_live)
}

/// How long the board waits before the house fills it, if ever.
pub fn fill_after(world: &World) -> Option<Duration> {
    world.ext_ref::<WerewolfTown>().and_then(|t| t.fill_after)
}
