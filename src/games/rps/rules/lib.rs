//! `rps.v1`, exactly as REST clients of the session host know it (roles `player_1` and
//! `player_2`, state `phase`, `choices`, `result`): both players choose in a hidden commit
//! phase; once both have chosen, the phase is `reveal`, both choices show, and the result is
//! set.
//! Ticks: 0 before anyone chose, 1 after one, 2 after both (the host counts actions).
//!
//! With `{"clock": "30s"}` (any [`MoveLimit`]) both must choose within that time of the game's
//! start; when it runs out the server actor's `flag` ends the game: whoever had not chosen
//! loses, and if neither had, it is a draw. So a game always ends (a tournament can pair it).

#![warn(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use moot_game_api::{
    Audience, Computer, Deadline, Game, GameError, GameTime, MoveLimit, Note, SERVER_ROLE,
};

const CHOICES: [&str; 3] = ["rock", "paper", "scissors"];
/// The server actor's action once the time is up; no player's.
const FLAG: &str = "flag";

/// A player's choice: rock, paper or scissors, as the log spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice(&'static str);

impl std::str::FromStr for Choice {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Choice, GameError> {
        if s == FLAG {
            return Ok(Choice(FLAG));
        }
        CHOICES
            .iter()
            .find(|c| **c == s)
            .map(|c| Choice(c))
            .ok_or_else(|| GameError::Illegal(format!("`{s}` is not rock, paper or scissors")))
    }
}

impl std::fmt::Display for Choice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rps {
    choices: [Option<&'static str>; 2],
    /// The time both have to choose, from the game's start, if any.
    clock: Option<MoveLimit>,
    /// The time ran out before both had chosen.
    flagged: bool,
}

fn seat(role: &str) -> Option<usize> {
    match role {
        "player_1" => Some(0),
        "player_2" => Some(1),
        _ => None,
    }
}

/// Whether `a` beats `b`.
fn beats(a: &str, b: &str) -> bool {
    matches!(
        (a, b),
        ("rock", "scissors") | ("paper", "rock") | ("scissors", "paper")
    )
}

impl Rps {
    fn revealed(&self) -> bool {
        self.choices.iter().all(Option::is_some)
    }

    fn result(&self) -> Option<&'static str> {
        let [Some(a), Some(b)] = self.choices else {
            // Out of time: whoever chose wins; nobody did, a draw.
            return self.flagged.then_some(match self.choices {
                [Some(_), None] => "player_1_wins",
                [None, Some(_)] => "player_2_wins",
                _ => "draw",
            });
        };
        Some(if beats(a, b) {
            "player_1_wins"
        } else if beats(b, a) {
            "player_2_wins"
        } else {
            "draw"
        })
    }
}

impl Game for Rps {
    const TEMPLATE: &'static str = "rps.v1";
    const TITLE: &'static str = "rock-paper-scissors";
    const ROLES: &'static [&'static str] = &["player_1", "player_2"];
    const SEQUENTIAL: bool = false;
    const TABLE: &'static str = "rps_table";
    const HOUSE_PLAYS: bool = true;
    type Action = Choice;

    /// One option: `clock`, the time both have to choose (`30s`, `1d`).
    fn new(_seed: u64, options: &Value) -> Result<Rps, GameError> {
        match options {
            Value::Null => Ok(Rps::default()),
            Value::Object(o) if o.keys().all(|k| k == "clock") => Ok(Rps {
                clock: MoveLimit::option(o.get("clock"))?,
                ..Rps::default()
            }),
            _ => Err(GameError::BadOptions(
                "rps.v1's only option is `clock`, the time to choose such as \"30s\"".into(),
            )),
        }
    }

    fn legal_actions(&self, role: &str) -> Vec<String> {
        match seat(role) {
            Some(i) if self.choices[i].is_none() => CHOICES.map(str::to_owned).to_vec(),
            _ => Vec::new(),
        }
    }

    fn act(&self, role: &str, choice: &Choice) -> Result<Rps, GameError> {
        let i = seat(role).ok_or_else(|| GameError::UnknownRole(role.to_owned()))?;
        if choice.0 == FLAG {
            return Err(GameError::Illegal(format!(
                "`{FLAG}` is not rock, paper or scissors"
            )));
        }
        if self.is_terminal() {
            return Err(GameError::Illegal("The game is over".into()));
        }
        if self.choices[i].is_some() {
            return Err(GameError::AlreadyActed);
        }
        let mut next = self.clone();
        next.choices[i] = Some(choice.0);
        Ok(next)
    }

    /// A choice after the time is up is too late; the server actor's only action is `flag`,
    /// once it is.
    fn act_at(&self, role: &str, choice: &Choice, at: GameTime) -> Result<Rps, GameError> {
        if role == SERVER_ROLE {
            MoveLimit::check_flag(self.clock, choice.0 == FLAG, choice.0, at)?;
            if self.is_terminal() {
                return Err(GameError::Illegal("The game is over".into()));
            }
            return Ok(Rps {
                flagged: true,
                ..self.clone()
            });
        }
        if self.clock.is_some_and(|l| l.expired(at)) {
            return Err(GameError::Illegal("Your time has run out".into()));
        }
        self.act(role, choice)
    }

    fn deadline(&self) -> Option<Deadline<Choice>> {
        let l = self.clock.filter(|_| !self.is_terminal())?;
        Some(l.deadline(Choice(FLAG)))
    }

    /// Whoever has yet to choose, while a clock runs.
    fn owing(&self) -> Vec<&'static str> {
        if self.deadline().is_none() {
            return Vec::new();
        }
        Self::ROLES
            .iter()
            .zip(self.choices)
            .filter(|(_, c)| c.is_none())
            .map(|(r, _)| *r)
            .collect()
    }

    fn is_terminal(&self) -> bool {
        self.revealed() || self.flagged
    }

    /// Luck, with the best of play: a record, not a rating.
    const RECKONING: moot_game_api::Reckoning = moot_game_api::Reckoning::Record;

    fn decided(&self) -> Option<Vec<moot_game_api::SideScore>> {
        let winner = match self.result()? {
            "player_1_wins" => Some(0),
            "player_2_wins" => Some(1),
            _ => None,
        };
        Some(moot_game_api::head_to_head(
            ["player_1", "player_2"],
            winner,
        ))
    }

    fn state(&self) -> Value {
        let mut s = json!({
            "phase": if self.is_terminal() { "reveal" } else { "commit" },
            "choices": { "player_1": self.choices[0], "player_2": self.choices[1] },
            "result": self.result(),
        });
        // Only when set: a game without a clock is stored as it always was.
        if let Some(l) = self.clock {
            s["clock"] = json!(l);
        }
        if self.flagged {
            s["flagged"] = json!(true);
        }
        s
    }

    /// While choosing, each player sees their own choice only; spectators see neither.
    fn view(&self, role: Option<&str>) -> Value {
        let mut s = self.state();
        if !self.is_terminal() {
            for (i, r) in Self::ROLES.iter().enumerate() {
                if role != Some(*r) {
                    s["choices"][*r] = Value::Null;
                }
                // Whether the other has chosen is public: it is what the tick says.
                s["chosen"][*r] = json!(self.choices[i].is_some());
            }
        }
        s
    }

    /// A choice is the chooser's secret until both have chosen.
    fn action_view(&self, viewer: Option<&str>, actor: &str, choice: &Choice) -> Option<String> {
        Some(if self.is_terminal() || viewer == Some(actor) {
            choice.to_string()
        } else {
            "hidden".to_owned()
        })
    }

    fn render(&self, viewer: Option<&str>, r: moot_game_api::Reading) -> Vec<String> {
        let mut lines = table(&self.view(viewer));
        if let Some(l) = self.clock {
            let who = match self.owing().as_slice() {
                [one] => (*one).to_owned(),
                _ => "each".to_owned(),
            };
            lines.push(l.line(self.is_terminal(), &who, "choose", r));
        }
        if r.plain {
            // One player a line, the way a screen reader reads a list.
            let both = lines.remove(0);
            lines.splice(0..0, both.split("   ").map(str::to_owned));
        }
        lines
    }

    /// A choice is named only once both are in.
    fn headline(&self, role: &str, choice: &Choice) -> String {
        if role == SERVER_ROLE {
            return format!(
                "Time is up: {}",
                self.ending().unwrap_or_else(|| "the game ends".into())
            );
        }
        match self.result() {
            None => "has chosen".to_owned(),
            Some(r) => format!("chooses {choice}; {}", result_words(self, r)),
        }
    }

    /// The player still to choose is told it is up to them; nobody learns what was chosen.
    fn notes(&self, role: &str, _choice: &Choice) -> Vec<Note> {
        if self.is_terminal() {
            return Vec::new();
        }
        let other = if role == "player_1" {
            "player_2"
        } else {
            "player_1"
        };
        vec![Note::new(
            Audience::Roles(vec![other.to_owned()]),
            "Your opponent has chosen; now you choose: rock, paper or scissors.",
        )]
    }

    fn ending(&self) -> Option<String> {
        self.result().map(|r| result_words(self, r))
    }

    fn situation(&self) -> String {
        self.ending().unwrap_or_else(|| {
            match self.choices.iter().flatten().count() {
                0 => "both choosing",
                _ => "one has chosen",
            }
            .to_owned()
        })
    }

    /// The house chooses from the seed alone: it never looks at the other choice.
    fn computer(&self, role: &str, _options: &Value, seed: u64) -> Option<Computer<Choice>> {
        let i = seat(role)?;
        if self.choices[i].is_some() || self.is_terminal() {
            return None;
        }
        Some(Computer::Act(Choice(CHOICES[(seed % 3) as usize])))
    }
}

/// "rock beats scissors: player_1 wins", or "a draw".
fn result_words(g: &Rps, result: &str) -> String {
    let [Some(a), Some(b)] = g.choices else {
        return match result {
            "player_1_wins" => "player_2 did not choose in time: player_1 wins".to_owned(),
            "player_2_wins" => "player_1 did not choose in time: player_2 wins".to_owned(),
            _ if g.flagged => "neither chose in time: a draw".to_owned(),
            _ => result.replace('_', " "),
        };
    };
    match result {
        "player_1_wins" => format!("{a} beats {b}: player_1 wins"),
        "player_2_wins" => format!("{b} beats {a}: player_2 wins"),
        _ => format!("{a} and {b}: a draw"),
    }
}

/// Both choices as `view` shows them, and the result once there is one.
fn table(view: &Value) -> Vec<String> {
    let show = |role: &str| match (&view["choices"][role], &view["chosen"][role]) {
        (Value::String(c), _) => c.clone(),
        (_, Value::Bool(true)) => "(chosen, hidden)".into(),
        _ => "(choosing)".into(),
    };
    let mut lines = vec![format!(
        "player_1: {}   player_2: {}",
        show("player_1"),
        show("player_2")
    )];
    // "player_2 wins": the host puts the player's name for the seat's.
    if let Some(r) = view["result"].as_str() {
        lines.push(format!("Result: {}.", r.replacen("_wins", " wins", 1)));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_hides_then_reveal_shows() {
        let g = Rps::new(0, &Value::Null).unwrap();
        let g = g.apply("player_1", "rock").unwrap();
        assert_eq!(g.view(Some("player_2"))["choices"]["player_1"], Value::Null);
        assert_eq!(g.view(Some("player_2"))["chosen"]["player_1"], true);
        assert_eq!(g.view(Some("player_1"))["choices"]["player_1"], "rock");
        assert_eq!(g.view(None)["choices"]["player_1"], Value::Null);
        assert_eq!(g.state()["phase"], "commit");
        assert_eq!(
            g.apply("player_1", "paper").unwrap_err(),
            GameError::AlreadyActed
        );
        let g = g.apply("player_2", "paper").unwrap();
        assert!(g.is_terminal());
        assert_eq!(
            g.view(Some("player_1")),
            json!({
                "phase": "reveal",
                "choices": { "player_1": "rock", "player_2": "paper" },
                "result": "player_2_wins",
            })
        );
    }

    /// With a clock, both have its time from the start; when it runs out, whoever chose wins,
    /// and if nobody did it is a draw; a choice at the deadline is too late.
    #[test]
    fn the_time_to_choose_runs_out_for_whoever_has_not() {
        let g = Rps::new(0, &json!({ "clock": "30s" })).unwrap();
        assert_eq!(g.deadline().unwrap().at, 30_000);
        assert_eq!(g.owing(), ["player_1", "player_2"]);
        assert!(g.apply_at(SERVER_ROLE, "flag", 29_999).is_err(), "not yet");
        assert!(
            g.apply_at("player_1", "flag", 0).is_err(),
            "the server's alone"
        );
        let one = g.apply_at("player_1", "rock", 10_000).unwrap();
        assert_eq!(one.deadline().unwrap().at, 30_000, "one clock for both");
        assert_eq!(one.owing(), ["player_2"]);
        assert!(
            one.apply_at("player_2", "paper", 30_000).is_err(),
            "too late"
        );
        let over = one.apply_at(SERVER_ROLE, "flag", 30_000).unwrap();
        assert!(over.is_terminal() && over.deadline().is_none());
        assert_eq!(over.state()["result"], "player_1_wins");
        assert_eq!(
            over.decided().unwrap()[0].score,
            1.0,
            "player_1 scores the win"
        );
        assert_eq!(
            over.ending().unwrap(),
            "player_2 did not choose in time: player_1 wins"
        );
        let none = g.apply_at(SERVER_ROLE, "flag", 30_000).unwrap();
        assert_eq!(none.state()["result"], "draw");
        assert!(over.apply_at("player_2", "paper", 40_000).is_err());
        // Without a clock, the state is stored as it always was.
        assert_eq!(
            Rps::new(0, &Value::Null).unwrap().state().get("clock"),
            None
        );
        assert!(Rps::new(0, &json!({ "clock": "2s" })).is_err());
        assert!(Rps::new(0, &json!({ "best_of": 3 })).is_err());
    }

    #[test]
    fn every_pairing_scores_right() {
        for a in CHOICES {
            for b in CHOICES {
                let g = Rps::default()
                    .apply("player_1", a)
                    .unwrap()
                    .apply("player_2", b)
                    .unwrap();
                let want = if a == b {
                    "draw"
                } else if beats(a, b) {
                    "player_1_wins"
                } else {
                    "player_2_wins"
                };
                assert_eq!(g.state()["result"], want, "{a} vs {b}");
            }
        }
        assert!(matches!(
            Rps::default().apply("player_1", "lizard"),
            Err(GameError::Illegal(_))
        ));
    }
}
