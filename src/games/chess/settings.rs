//! The operator's settings for chess: an external engine for the computer's top levels.

use std::path::PathBuf;
use std::sync::Arc;

use moot_kernel::game_api::ExternalEngine;
use moot_kernel::verbs::game_module::Settings;

#[derive(clap::Args, Debug, Clone)]
#[group(skip)]
pub struct Flags {
    /// An external UCI chess engine (e.g. /usr/games/stockfish) for the computer's levels 8 to
    /// 10; the built-in engine plays every level when absent, or when the engine fails.
    #[arg(long = "uci-engine", env = "MOOT_UCI_ENGINE")]
    pub uci_engine: Option<PathBuf>,
}

impl Settings for Flags {
    fn engine(&self) -> Option<Arc<dyn ExternalEngine>> {
        let path = self.uci_engine.clone()?;
        Some(Arc::new(super::uci::UciEngine { path }))
    }
}
