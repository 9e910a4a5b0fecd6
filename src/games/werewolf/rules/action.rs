//! What a player does in a match, as a value, and the server actor's deadlines. Read once where
//! it comes in; printed in the log's spelling (`vote p3 reason`, `reply @4 text`,
//! `end NIGHT 1`), which reads back as the same action.
//!
//! A target is kept as it was named (`p3`, or anything else): the rules refuse one who is no
//! player only after the phase, the role and the actor, in their fixed order, so that a wrong
//! call always gets the same code.

use std::fmt;
use std::str::FromStr;

use moot_game_api::GameError;

use super::events::{Reader, Vis};
use super::{Seat, Werewolf, player_id};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Ready,
    Kill(Target),
    Inspect(Target),
    Protect(Target),
    /// Talk with the pack by night; the words as given.
    WolfChat(String),
    Pass,
    Say(String),
    /// A public message answering an event: `to` is the event as the log names it (`@k`, its
    /// place in the public feed; `?id`, an id that named none; `e…`, its place in the whole
    /// feed, as logs kept it before ids counted per reader).
    Reply {
        to: String,
        text: String,
    },
    /// `None`: no one.
    Vote {
        target: Option<Target>,
        reason: String,
    },
    /// The server actor's: the end of a phase or a speaker's turn, as the deadline names it.
    End(String),
}

/// A player as an action names them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target(pub String);

impl Target {
    pub fn seat(seat: Seat) -> Target {
        Target(player_id(seat).to_owned())
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Action {
    /// The word it starts with in the log.
    pub fn verb(&self) -> &'static str {
        match self {
            Action::Ready => "ready",
            Action::Kill(_) => "kill",
            Action::Inspect(_) => "inspect",
            Action::Protect(_) => "protect",
            Action::WolfChat(_) => "wolfchat",
            Action::Pass => "pass",
            Action::Say(_) => "say",
            Action::Reply { .. } => "reply",
            Action::Vote { .. } => "vote",
            Action::End(_) => "end",
        }
    }

    /// Whether it is a night role's secret: even that it was taken is.
    pub fn is_night_work(&self) -> bool {
        matches!(
            self,
            Action::Kill(_) | Action::Inspect(_) | Action::Protect(_) | Action::WolfChat(_)
        )
    }
}

impl FromStr for Action {
    type Err = GameError;

    fn from_str(s: &str) -> Result<Action, GameError> {
        let t = s.trim();
        let (verb, rest) = t.split_once(' ').unwrap_or((t, ""));
        let target = || Target(rest.trim().to_owned());
        Ok(match verb {
            "ready" => Action::Ready,
            "kill" => Action::Kill(target()),
            "inspect" => Action::Inspect(target()),
            "protect" => Action::Protect(target()),
            "wolfchat" => Action::WolfChat(rest.to_owned()),
            "pass" => Action::Pass,
            "say" => Action::Say(rest.to_owned()),
            "reply" => {
                let (to, text) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
                Action::Reply {
                    to: to.to_owned(),
                    text: text.to_owned(),
                }
            }
            "vote" => {
                let (who, reason) = rest.trim().split_once(' ').unwrap_or((rest.trim(), ""));
                Action::Vote {
                    target: match who {
                        "none" | "abstain" => None,
                        id => Some(Target(id.to_owned())),
                    },
                    reason: reason.trim().to_owned(),
                }
            }
            "end" => Action::End(t.to_owned()),
            _ => {
                return Err(GameError::Illegal(format!(
                    "`{verb}` is not a Werewolf action (ready, kill, inspect, protect, wolfchat, \
                     say, reply, pass, vote)"
                )));
            }
        })
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Ready | Action::Pass => f.write_str(self.verb()),
            Action::Kill(t) | Action::Inspect(t) | Action::Protect(t) => {
                write!(f, "{} {t}", self.verb())
            }
            Action::WolfChat(text) | Action::Say(text) => write!(f, "{} {text}", self.verb()),
            Action::Reply { to, text } => write!(f, "reply {to} {text}"),
            Action::Vote { target, reason } => {
                match target {
                    Some(t) => write!(f, "vote {t}")?,
                    None => f.write_str("vote none")?,
                }
                if reason.is_empty() {
                    Ok(())
                } else {
                    write!(f, " {reason}")
                }
            }
            Action::End(words) => f.write_str(words),
        }
    }
}

impl Werewolf {
    /// A reply by `seat` to the event they name by their own id, as the log keeps it: by its
    /// place in the public feed, the same for everyone and counting nothing hidden. An id that
    /// names no public event the replier has is kept so that the rules refuse it (`?…`).
    pub fn reply(&self, seat: Seat, id: &str, text: &str) -> Action {
        let public = self
            .event_named(Reader::Seat(seat), id)
            .filter(|e| e.vis == Vis::Public)
            .and_then(|e| e.place.of(Reader::Public));
        Action::Reply {
            to: match public {
                Some(k) => format!("@{k}"),
                None => format!("?{id}"),
            },
            text: text.to_owned(),
        }
    }
}
