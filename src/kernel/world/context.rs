//! What a command may do while it runs: the [`Cx`] a verb leaves its notices, writes and undos
//! in, for the world task to deliver, store or run once the command is done.

use std::any::Any;
use std::sync::Arc;

use tokio::time::Instant;

use super::delivery::{BoardMsg, Delivery, Event, Said};
use super::sessions::SessionId;
use super::{AgentId, Face, RoomIdx, World};
/// A line for one player, left by a verb for the task to deliver.
#[derive(Debug, Clone)]
pub struct Notice {
    pub to: AgentId,
    pub what: Delivery,
}

/// A database write left by a verb.
pub type Save = crate::store::writes::Write;

/// Puts back what a command changed in memory, should its writes not be stored.
pub type Undo = Box<dyn FnOnce(&mut World) + Send>;

/// The context of one command: who acts, and what it leaves behind for others and for the disk.
///
/// A command changes the world at once (the next command must see it), but nothing it leaves
/// for others (notices, wake-ups, effects) goes out until its writes are committed; if they
/// are not, its undos put the world back as it was. See `task`.
pub struct Cx {
    pub actor: AgentId,
    pub face: Face,
    /// The verb being run, if it is one (for the log, should it meet a bug).
    pub verb: Option<&'static str>,
    pub now: Instant,
    /// The command did something some may not know was done (an action a game hides, such
    /// as a night action): it must leave no public trace, not even the actor's idle time.
    pub hidden: bool,
    /// Only the answer's text will be read (a typed line): a verb may leave its data empty
    /// rather than build it for nobody.
    pub text_only: bool,
    /// Only the structured result will be read (a REST route, a web page's button): a verb may
    /// leave its text empty rather than build it for nobody (a session's whole state, printed).
    pub data_only: bool,
    /// Why the actor takes the game action this command takes, in their words (an agent's,
    /// over MCP or REST): stored with the action, shown once the game is over.
    pub reasoning: Option<String>,
    /// What this action cost its actor, as they reported it (an agent's tokens and thought),
    /// stored with it and shown once the game is over.
    pub cost: Option<super::sessions::Cost>,
    pub notices: Vec<Notice>,
    pub saves: Vec<Save>,
    /// In the order the changes were made; run backwards.
    pub undos: Vec<Undo>,
    /// Sessions whose waiters are to be woken (see [`World::watch_session`]).
    pub changed: Vec<super::Awaited>,
    /// Work to start once the command is done (e.g. the computer thinking about a move).
    pub effects: Vec<Effect>,
    /// A session this command would have played is a copy of one a game world plays (see
    /// [`super::sessions::follow`]): a typed verb is handed there ([`Effect::Hand`]).
    pub elsewhere: Option<super::sessions::SessionId>,
}

/// What became of words said in a room ([`Cx::speak`]).
pub struct Spoken {
    /// The names of those who heard them (none for a typed line: see [`Cx::text_only`]).
    pub heard_by: Vec<String>,
    /// Why each of the others did not.
    pub unheard: Vec<String>,
    /// The words as they were made for whoever heard them; none if nobody did.
    pub line: Option<Arc<str>>,
}

/// Work the world task starts, off the world, once a command is stored.
pub enum Effect {
    /// A wizard booted `agent`: their connection is closed with `lines`, once the act is
    /// stored.
    Boot { agent: AgentId, lines: Vec<String> },
    /// A wizard shut moot down.
    Shutdown,
    /// One of the house's players (`agent`) thinks about its action in `session` at `tick`;
    /// the action comes back as an ordinary one, dropped if the game has moved on.
    Think {
        session: SessionId,
        tick: u64,
        agent: AgentId,
        thinking: crate::game_api::Thinking<crate::game_api::AnyAction>,
    },
    /// A programmed verb runs in the sandbox; what it does comes back as a command of its own
    /// (see [`super::programs`]).
    Run(Box<super::programs::RunJob>),
    /// A typed verb for a session a game world plays goes there ([`TaskOptions::hand`]).
    ///
    /// [`TaskOptions::hand`]: super::TaskOptions::hand
    Hand(Handed),
}

/// A verb typed for a session played on one of the town's game worlds (see
/// [`super::sessions::follow`]), with its arguments as the verb reads them: whoever reaches
/// that game world runs it there as `agent`, and tells them its answer.
#[derive(Debug, Clone)]
pub struct Handed {
    pub agent: AgentId,
    pub session: super::sessions::SessionId,
    pub verb: &'static str,
    pub args: serde_json::Value,
}

/// State that belongs to a game's verbs rather than to the host (open challenges, say),
/// kept in the world by its type so that the host need not know it. `forget` is told when
/// someone leaves the town. It shows what it holds (`Debug`), so that the tests' fingerprint of
/// the world sees every game's state without being told of it.
pub trait Extension: Any + Send + std::fmt::Debug {
    fn forget(&mut self, who: &AgentId);
}

impl Cx {
    pub fn new(actor: AgentId, face: Face) -> Cx {
        Cx::at(actor, face, Instant::now())
    }

    /// Whether the command left nothing to store, undo, send or start.
    pub fn left_nothing(&self) -> bool {
        self.notices.is_empty()
            && self.saves.is_empty()
            && self.undos.is_empty()
            && self.changed.is_empty()
            && self.effects.is_empty()
    }

    /// [`Cx::new`], for a command taken at `now`.
    pub fn at(actor: AgentId, face: Face, now: Instant) -> Cx {
        Cx {
            actor,
            face,
            verb: None,
            now,
            hidden: false,
            text_only: false,
            data_only: false,
            reasoning: None,
            cost: None,
            notices: Vec::new(),
            saves: Vec::new(),
            undos: Vec::new(),
            changed: Vec::new(),
            effects: Vec::new(),
            elsewhere: None,
        }
    }

    pub fn show_board(&mut self, to: &AgentId, board: BoardMsg) {
        self.notices.push(Notice {
            to: to.clone(),
            what: Delivery::Board(Box::new(board)),
        });
    }

    /// Tells `to`'s connections to wrap by `display` from now on.
    pub fn set_display(&mut self, to: &AgentId, display: crate::wrap::Display) {
        self.notices.push(Notice {
            to: to.clone(),
            what: Delivery::Display(display),
        });
    }

    pub fn tell(&mut self, to: &AgentId, line: impl Into<Arc<str>>) {
        self.notices.push(Notice {
            to: to.clone(),
            what: Delivery::Line(line.into()),
        });
    }

    /// Sends `to` structured news (see [`Event`]).
    pub fn event(&mut self, to: &AgentId, event: Event) {
        self.notices.push(Notice {
            to: to.clone(),
            what: Delivery::Event(event),
        });
    }

    /// `to` hears `said`: its line, and its structured news for a client that takes it.
    pub fn hear(&mut self, to: &AgentId, said: Arc<Said>) {
        self.notices.push(Notice {
            to: to.clone(),
            what: Delivery::Heard(said),
        });
    }

    /// The actor speaks (or emotes) where they stand on `channel`: everyone else there who
    /// may hear the town hears the line `words` makes of the speaker's name, and the actor's
    /// client, if it takes structured news, gets it as [`Event::Said`]. The words are made
    /// once and shared by every hearer, so a crowded room costs a notice a hearer and nothing
    /// more. Answers who heard, and why each of the others did not, from the same one pass
    /// over the room.
    pub fn speak(
        &mut self,
        world: &World,
        channel: &'static str,
        words: impl Fn(&str) -> Arc<str>,
    ) -> Spoken {
        let me = world.player(&self.actor);
        // Made for the first who hears them: words nobody hears (the speaker alone, and taking
        // no news) are not made at all.
        let mut said: Option<Arc<Said>> = None;
        let mut made = || {
            said.get_or_insert_with(|| Said::new(channel, &me.name, words(&me.name)))
                .clone()
        };
        let occupants = world.occupants(me.room);
        self.notices.reserve(occupants.len().saturating_sub(1));
        let mut spoken = Spoken {
            heard_by: if self.text_only {
                Vec::new()
            } else {
                Vec::with_capacity(occupants.len())
            },
            unheard: Vec::new(),
            line: None,
        };
        for id in occupants {
            if super::same_agent(id, &self.actor) {
                if me.sink.takes_events() {
                    self.event(id, Event::Said(made()));
                }
            } else if let Some(why) = world.deaf_to_town(id) {
                spoken.unheard.push(why);
            } else {
                // A typed line prints no list of hearers: in a crowd that is a name each.
                if !self.text_only {
                    spoken.heard_by.push(world.player(id).name.clone());
                }
                self.hear(id, made());
            }
        }
        spoken.line = said.map(|s| s.line.clone());
        spoken
    }

    /// Tells everyone in `room` but `except`.
    pub fn tell_room(
        &mut self,
        world: &World,
        room: RoomIdx,
        except: &AgentId,
        line: impl Into<Arc<str>>,
    ) {
        let line = line.into();
        for id in world.occupants(room).iter().filter(|id| *id != except) {
            self.notices.push(Notice {
                to: id.clone(),
                what: Delivery::Line(line.clone()),
            });
        }
    }

    /// Leaves a write for the database, with what puts the world back if it is not stored.
    /// Every change the database holds is made this way, so none can outlive a failed write.
    pub fn save(
        &mut self,
        write: impl FnOnce(&mut crate::store::Sql) -> crate::store::sql::Result<()> + Send + 'static,
        undo: impl FnOnce(&mut World) + Send + 'static,
    ) {
        self.saves.push(Box::new(write));
        self.undos.push(Box::new(undo));
    }

    /// Takes back everything this command did so far (its changes put back, its writes and
    /// news dropped), for work that finds, part way, that it cannot be done after all.
    pub fn roll_back(&mut self, world: &mut World) {
        while let Some(undo) = self.undos.pop() {
            undo(world);
        }
        self.saves.clear();
        self.notices.clear();
        self.changed.clear();
        self.effects.clear();
    }

    /// Puts back a change that only lives in memory but goes with this command's writes (an
    /// answered challenge), should they not be stored.
    pub fn undo(&mut self, undo: impl FnOnce(&mut World) + Send + 'static) {
        self.undos.push(Box::new(undo));
    }
}
