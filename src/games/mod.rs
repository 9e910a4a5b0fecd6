//! Game templates: pure, deterministic state machines, apart from the server (as lichess's
//! scalachess is apart from lila).
//!
//! A template is a [`Game`]: a value that knows its roles, the actions legal for each role, how
//! an action turns it into a new value (or a typed error), when it has ended, and what each
//! role may see of it. Templates do no I/O, read no clock, and draw any randomness from a seed
//! kept in their own state, so replaying a session's log from its seed always gives the same
//! state; the server checks exactly that on every start.

pub mod blackjack;
pub mod chess;
pub mod rps;
pub mod text;
pub mod tictactoe;

use std::any::Any;

use serde_json::Value;

/// Why an action was refused. Each maps to one error code of the REST API.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    #[error("Not your turn")]
    NotYourTurn,
    #[error("Illegal action: {0}")]
    Illegal(String),
    #[error("You have already acted in this phase")]
    AlreadyActed,
    #[error("The game is over")]
    Finished,
    #[error("Unknown role `{0}`")]
    UnknownRole(String),
    #[error("Bad options: {0}")]
    BadOptions(String),
}

/// One template's rules.
pub trait Game: Clone + Send + Sync + 'static {
    const TEMPLATE: &'static str;
    const ROLES: &'static [&'static str];
    /// Turn-based games require `expected_tick` with each action; simultaneous ones don't.
    const SEQUENTIAL: bool;

    /// The starting state. `options` are template-specific (e.g. a chess FEN).
    fn new(seed: u64, options: &Value) -> Result<Self, GameError>;
    fn legal_actions(&self, role: &str) -> Vec<String>;
    fn apply(&self, role: &str, action: &str) -> Result<Self, GameError>;
    fn is_terminal(&self) -> bool;
    /// The whole state, as stored.
    fn state(&self) -> Value;
    /// The state as `role` may see it (`None`: a spectator).
    fn view(&self, role: Option<&str>) -> Value;
    /// What `viewer` (`None`: a spectator) may see of an action `actor` took earlier in this
    /// game, now that the game is in this state. Templates that hide choices (rps.v1) hide them
    /// here too, so the log tells no more than the state. The host shows the whole log once
    /// the game is over.
    fn action_view(&self, viewer: Option<&str>, actor: &str, action: &str) -> String {
        let _ = (viewer, actor);
        action.to_owned()
    }
}

/// A [`Game`] with its type erased, so that sessions of every template live side by side.
pub trait AnyGame: Send + Sync {
    fn template(&self) -> &'static Template;
    fn legal_actions(&self, role: &str) -> Vec<String>;
    fn apply(&self, role: &str, action: &str) -> Result<Box<dyn AnyGame>, GameError>;
    fn is_terminal(&self) -> bool;
    fn state(&self) -> Value;
    fn view(&self, role: Option<&str>) -> Value;
    fn action_view(&self, viewer: Option<&str>, actor: &str, action: &str) -> String;
    fn as_any(&self) -> &dyn Any;
}

impl<G: Game> AnyGame for G {
    fn template(&self) -> &'static Template {
        find(G::TEMPLATE).expect("every game is registered")
    }
    fn legal_actions(&self, role: &str) -> Vec<String> {
        Game::legal_actions(self, role)
    }
    fn apply(&self, role: &str, action: &str) -> Result<Box<dyn AnyGame>, GameError> {
        if !G::ROLES.contains(&role) {
            return Err(GameError::UnknownRole(role.to_owned()));
        }
        if Game::is_terminal(self) {
            return Err(GameError::Finished);
        }
        Game::apply(self, role, action).map(|g| Box::new(g) as Box<dyn AnyGame>)
    }
    fn is_terminal(&self) -> bool {
        Game::is_terminal(self)
    }
    fn state(&self) -> Value {
        Game::state(self)
    }
    fn view(&self, role: Option<&str>) -> Value {
        Game::view(self, role)
    }
    fn action_view(&self, viewer: Option<&str>, actor: &str, action: &str) -> String {
        Game::action_view(self, viewer, actor, action)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Makes a template's starting game from a seed and options.
pub type NewGame = fn(u64, &Value) -> Result<Box<dyn AnyGame>, GameError>;

/// A template as the host sees it.
pub struct Template {
    pub id: &'static str,
    pub roles: &'static [&'static str],
    pub sequential: bool,
    pub new: NewGame,
}

const fn template<G: Game>() -> Template {
    Template {
        id: G::TEMPLATE,
        roles: G::ROLES,
        sequential: G::SEQUENTIAL,
        new: new_boxed::<G>,
    }
}

fn new_boxed<G: Game>(seed: u64, options: &Value) -> Result<Box<dyn AnyGame>, GameError> {
    G::new(seed, options).map(|g| Box::new(g) as Box<dyn AnyGame>)
}

pub static TEMPLATES: &[Template] = &[
    template::<chess::ChessGame>(),
    template::<rps::Rps>(),
    template::<tictactoe::TicTacToe>(),
    template::<blackjack::Blackjack>(),
];

pub fn find(id: &str) -> Option<&'static Template> {
    TEMPLATES.iter().find(|t| t.id == id)
}

/// Replays `actions` (role, action) from a template's start: the state a log implies.
pub fn replay<'a>(
    template: &Template,
    seed: u64,
    options: &Value,
    actions: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Box<dyn AnyGame>, GameError> {
    let mut game = (template.new)(seed, options)?;
    for (role, action) in actions {
        game = game.apply(role, action)?;
    }
    Ok(game)
}
