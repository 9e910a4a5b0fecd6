//! The games as the host holds them: every template's states and actions behind one trait
//! object each, so that sessions of every template live side by side and an action crosses
//! from the face or verb that made it to its session without the host knowing its type.

use std::any::Any;

use serde_json::Value;

use super::{
    Computer, Deadline, Game, GameError, GameTime, Glance, Note, Picture, Reading, SERVER_ROLE,
    SideScore,
};

/// An action of some template with its type erased, as the host carries it from the face or
/// the verb that made it to the session it is for (as [`AnyGame`] carries a state). It prints
/// as the log spells it.
pub struct AnyAction(Box<dyn ActionObject>);

trait ActionObject: Any + Send + Sync + std::fmt::Display + std::fmt::Debug {
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any + Send + Sync + std::fmt::Display + std::fmt::Debug> ActionObject for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl AnyAction {
    pub fn new<A: Any + Send + Sync + std::fmt::Display + std::fmt::Debug>(action: A) -> Self {
        AnyAction(Box::new(action))
    }

    /// The action, if it is one of `A`'s.
    pub fn get<A: Any>(&self) -> Option<&A> {
        // Through the box: the box itself is an `ActionObject` too, and would answer as one.
        (*self.0).as_any().downcast_ref()
    }
}

impl std::fmt::Display for AnyAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Debug for AnyAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// A [`Game`] with its type erased, so that sessions of every template live side by side.
pub trait AnyGame: Send + Sync {
    fn legal_actions(&self, role: &str) -> Vec<String>;
    /// See [`Game::parse`].
    fn parse(&self, role: &str, text: &str) -> Result<AnyAction, GameError>;
    /// Applies an action of this template (anything else is refused) at game time `at`.
    fn apply(
        &self,
        role: &str,
        action: &AnyAction,
        at: GameTime,
    ) -> Result<Box<dyn AnyGame>, GameError>;
    /// An action as the log spells it (its `FromStr`), read back.
    fn read_logged(&self, logged: &str) -> Result<AnyAction, GameError>;
    /// Applies an action as the log spells it: a replay.
    fn apply_logged(
        &self,
        role: &str,
        logged: &str,
        at: GameTime,
    ) -> Result<Box<dyn AnyGame>, GameError>;
    fn deadline(&self) -> Option<Deadline<AnyAction>>;
    fn owing(&self) -> Vec<&'static str>;
    fn is_terminal(&self) -> bool;
    fn state(&self) -> Value;
    fn state_text(&self) -> String;
    fn view(&self, role: Option<&str>) -> Value;
    /// [`Game::action_view`] of an action as the log spells it. One the template cannot read
    /// back shows as it is once the game is over, and not at all before: what cannot be
    /// read cannot be shown to be harmless.
    fn action_view(&self, viewer: Option<&str>, actor: &str, logged: &str) -> Option<String>;
    /// [`Game::action_view`] of an action just taken, read as it is (an action of another
    /// template is shown to nobody).
    fn action_view_of(
        &self,
        viewer: Option<&str>,
        actor: &str,
        action: &AnyAction,
    ) -> Option<String>;
    fn headline(&self, role: &str, action: &AnyAction) -> String;
    fn notes(&self, role: &str, action: &AnyAction) -> Vec<Note>;
    fn opening_notes(&self) -> Vec<Note>;
    fn secluded(&self, role: &str) -> bool;
    fn situation(&self) -> String;
    fn ending(&self) -> Option<String>;
    fn render(&self, viewer: Option<&str>, r: Reading) -> Vec<String>;
    fn glance(&self, viewer: Option<&str>, ask: Glance<'_>, r: Reading) -> Option<String>;
    fn picture(&self, viewer: Option<&str>) -> Option<Picture>;
    fn computer(&self, role: &str, options: &Value, seed: u64) -> Option<Computer<AnyAction>>;
    fn decided(&self) -> Option<Vec<SideScore>>;
    fn as_any(&self) -> &dyn Any;
}

impl<G: Game> AnyGame for G {
    fn legal_actions(&self, role: &str) -> Vec<String> {
        Game::legal_actions(self, role)
    }
    fn parse(&self, role: &str, text: &str) -> Result<AnyAction, GameError> {
        Game::parse(self, role, text).map(AnyAction::new)
    }
    fn apply(
        &self,
        role: &str,
        action: &AnyAction,
        at: GameTime,
    ) -> Result<Box<dyn AnyGame>, GameError> {
        if !G::ROLES.contains(&role) && role != SERVER_ROLE {
            return Err(GameError::UnknownRole(role.to_owned()));
        }
        if Game::is_terminal(self) {
            return Err(GameError::Finished);
        }
        let action = action.get::<G::Action>().ok_or_else(|| {
            GameError::Illegal(format!("`{action}` is not an action of {}", G::TITLE))
        })?;
        Game::act_at(self, role, action, at).map(|g| Box::new(g) as Box<dyn AnyGame>)
    }
    fn apply_logged(
        &self,
        role: &str,
        logged: &str,
        at: GameTime,
    ) -> Result<Box<dyn AnyGame>, GameError> {
        let action = AnyGame::read_logged(self, logged)?;
        AnyGame::apply(self, role, &action, at)
    }
    fn read_logged(&self, logged: &str) -> Result<AnyAction, GameError> {
        logged.parse::<G::Action>().map(AnyAction::new)
    }
    fn deadline(&self) -> Option<Deadline<AnyAction>> {
        Game::deadline(self)
            .filter(|_| !Game::is_terminal(self))
            .map(|d| Deadline {
                at: d.at,
                action: AnyAction::new(d.action),
            })
    }
    fn owing(&self) -> Vec<&'static str> {
        Game::owing(self)
    }
    fn headline(&self, role: &str, action: &AnyAction) -> String {
        match action.get::<G::Action>() {
            Some(a) => Game::headline(self, role, a),
            None => "has moved".to_owned(),
        }
    }
    fn notes(&self, role: &str, action: &AnyAction) -> Vec<Note> {
        match action.get::<G::Action>() {
            Some(a) => Game::notes(self, role, a),
            None => Vec::new(),
        }
    }
    fn opening_notes(&self) -> Vec<Note> {
        Game::opening_notes(self)
    }
    fn secluded(&self, role: &str) -> bool {
        !Game::is_terminal(self) && Game::secluded(self, role)
    }
    fn situation(&self) -> String {
        Game::situation(self)
    }
    fn ending(&self) -> Option<String> {
        Game::ending(self)
    }
    fn render(&self, viewer: Option<&str>, r: Reading) -> Vec<String> {
        Game::render(self, viewer, r)
    }
    fn glance(&self, viewer: Option<&str>, ask: Glance<'_>, r: Reading) -> Option<String> {
        Game::glance(self, viewer, ask, r)
    }
    fn picture(&self, viewer: Option<&str>) -> Option<Picture> {
        Game::picture(self, viewer)
    }
    fn computer(&self, role: &str, options: &Value, seed: u64) -> Option<Computer<AnyAction>> {
        Game::computer(self, role, options, seed).map(|c| match c {
            Computer::Act(action) => Computer::Act(AnyAction::new(action)),
            Computer::Think(thinking) => {
                Computer::Think(Box::new(move |mind| thinking(mind).map(AnyAction::new)))
            }
        })
    }
    fn is_terminal(&self) -> bool {
        Game::is_terminal(self)
    }
    fn state(&self) -> Value {
        Game::state(self)
    }
    fn state_text(&self) -> String {
        Game::state_text(self)
    }
    fn view(&self, role: Option<&str>) -> Value {
        Game::view(self, role)
    }
    fn action_view(&self, viewer: Option<&str>, actor: &str, logged: &str) -> Option<String> {
        match logged.parse::<G::Action>() {
            Ok(a) => Game::action_view(self, viewer, actor, &a),
            Err(_) => Game::is_terminal(self).then(|| logged.to_owned()),
        }
    }
    fn action_view_of(
        &self,
        viewer: Option<&str>,
        actor: &str,
        action: &AnyAction,
    ) -> Option<String> {
        Game::action_view(self, viewer, actor, action.get::<G::Action>()?)
    }
    fn decided(&self) -> Option<Vec<SideScore>> {
        Game::decided(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}
