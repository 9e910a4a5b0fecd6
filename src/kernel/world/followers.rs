//! Who follows a session (its players and its watchers) and how they hear of it: a drawn board
//! for clients that draw one, the template's text for people, the headline alone for agents,
//! whose tools give them the state. A template's notes reach only the audience they name: this
//! is the one place that decides, for every face.

use super::sessions::{Session, SessionId};
use super::{AgentId, BoardMsg, Cx, RoomIdx, Sink, Undo, World};
use crate::game_api::{Note, Viewer};

/// Someone watching a session they do not play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Watcher {
    who: AgentId,
    /// The server lets them see everything (a game's all-seeing spectators); only the host's
    /// own code grants it, never a face.
    sees_all: bool,
}

impl World {
    /// The board of session `s` as `viewer` sees it, if its template draws one.
    pub fn board_msg(
        &self,
        s: &Session,
        viewer: &AgentId,
        headline: Option<String>,
        titled: bool,
    ) -> Option<BoardMsg> {
        let role = s.role_of(viewer);
        let picture = s.game.picture(role)?;
        // A board asked for is titled; after a move, the headline (or the mover's answer) says
        // which game it is.
        let mut text = Vec::new();
        if titled {
            text.push(format!(
                "Game #{} ({}): {}",
                s.id,
                s.template.title,
                s.players_line()
            ));
        }
        text.extend(s.drawn(role, self.reading(s, viewer)));
        Some(BoardMsg {
            gmcp: s.template.gmcp.map(Into::into),
            xmcp: s.template.xmcp.map(Into::into),
            view: s.game.view(role),
            object: s.id,
            board: picture.board,
            your_turn: picture.your_turn,
            colour: picture.side.into(),
            sequence: s.tick_for(role) + 1,
            headline,
            text,
        })
    }

    /// Starts `who` watching `sid`; the undo, or `None` if they already were. `sees_all` is
    /// the right to see everything the game hides, which the host grants to spectators it
    /// trusts (a face passes false).
    pub fn watch(&mut self, sid: SessionId, who: &AgentId, sees_all: bool) -> Option<Undo> {
        let list = self.watchers.entry(sid).or_default();
        if list.iter().any(|w| &w.who == who) {
            return None;
        }
        list.push(Watcher {
            who: who.clone(),
            sees_all,
        });
        let who = who.clone();
        Some(Box::new(move |w: &mut World| {
            w.unwatch(sid, &who);
        }))
    }

    /// Stops `who` watching `sid`; the undo, or `None` if they were not watching. The undo
    /// puts them back as they were: in their place among the watchers (the order notes go out
    /// in) and with their right to see everything, or without it.
    pub fn unwatch(&mut self, sid: SessionId, who: &AgentId) -> Option<Undo> {
        let list = self.watchers.get_mut(&sid)?;
        let at = list.iter().position(|w| &w.who == who)?;
        let was = list.remove(at);
        if list.is_empty() {
            self.watchers.remove(&sid);
        }
        Some(Box::new(move |w: &mut World| {
            let list = w.watchers.entry(sid).or_default();
            list.insert(at.min(list.len()), was);
        }))
    }

    /// Whether `who` watches `sid` with the right to see everything.
    pub fn sees_all(&self, sid: SessionId, who: &AgentId) -> bool {
        self.watchers
            .get(&sid)
            .is_some_and(|l| l.iter().any(|w| &w.who == who && w.sees_all))
    }

    /// Whether `who` watches `sid`.
    pub fn watches(&self, sid: SessionId, who: &AgentId) -> bool {
        self.watchers
            .get(&sid)
            .is_some_and(|l| l.iter().any(|w| &w.who == who))
    }

    /// Stops `who` watching anything (they left the town).
    pub(super) fn unwatch_all(&mut self, who: &AgentId) {
        for l in self.watchers.values_mut() {
            l.retain(|w| &w.who != who);
        }
    }

    /// Everyone who follows session `s`, as notes see them: its players, then its watchers.
    fn followers<'a>(&self, s: &'a Session) -> Vec<(AgentId, Viewer<'a>)> {
        let mut who: Vec<(AgentId, Viewer<'a>)> = s
            .participants
            .iter()
            .map(|p| {
                let v = Viewer {
                    role: Some(p.role),
                    sees_all: false,
                };
                (p.agent.clone(), v)
            })
            .collect();
        for w in self.watchers.get(&s.id).into_iter().flatten() {
            if !who.iter().any(|(a, _)| *a == w.who) {
                let v = Viewer {
                    role: None,
                    sees_all: w.sees_all,
                };
                who.push((w.who.clone(), v));
            }
        }
        // Whoever stands in the session's building watches it, as any spectator.
        if let Some(room) = self.session_room(s.id) {
            for a in self.occupants(room) {
                if !who.iter().any(|(x, _)| x == a) {
                    let v = Viewer {
                        role: None,
                        sees_all: false,
                    };
                    who.push((a.clone(), v));
                }
            }
        }
        who
    }

    /// Tells those in `room` who do not follow `s` `line`, the actor aside: its followers
    /// hear the session's own news (and see its board), and would otherwise hear it twice.
    pub(super) fn tell_bystanders(&self, cx: &mut Cx, s: &Session, room: RoomIdx, line: String) {
        let follows = self.followers(s);
        let line: std::sync::Arc<str> = line.into();
        for id in self.occupants(room) {
            if *id != cx.actor && !follows.iter().any(|(f, _)| f == id) {
                cx.tell(id, line.clone());
            }
        }
    }

    /// Tells everyone who follows `sid` what `actor` did, with the board or the table, and each
    /// the notes whose audience admits them. The actor has their verb's own answer instead
    /// (the house's computer may act inside someone else's command: that someone is told).
    pub fn announce(
        &self,
        cx: &mut Cx,
        actor: &AgentId,
        sid: SessionId,
        headline: String,
        notes: &[Note],
    ) {
        let Some(s) = self.session(sid) else { return };
        // A template that says everything in notes (Werewolf) has no headline, and its
        // followers read the notes alone, not a redrawn table after every word.
        let quiet = headline.is_empty();
        for (who, viewer) in self.followers(s) {
            let actor = who == *actor;
            let theirs = notes
                .iter()
                .filter(|n| n.to.admits(viewer))
                .map(|n| addressed(s, viewer, n));
            // An agent's mailbox gets the news, not a drawn board: its tools give the state.
            let mailbox =
                self.is_present(&who) && matches!(self.player(&who).sink_kind(), Sink::Mailbox);
            if mailbox || quiet {
                if !actor || quiet {
                    if !quiet {
                        cx.tell(&who, headline.as_str());
                    }
                    theirs.for_each(|n| cx.tell(&who, n));
                }
                continue;
            }
            // The one who moved reads their own answer ("You play e4 in game #1.") and the
            // board, not a headline about themselves.
            let told = (!actor).then(|| headline.clone());
            match self.board_msg(s, &who, told, false) {
                Some(board) => cx.show_board(&who, board),
                None if actor => {}
                None => {
                    cx.tell(&who, headline.as_str());
                    for line in s.drawn(viewer.role, self.reading(s, &who)) {
                        cx.tell(&who, line);
                    }
                }
            }
            if !actor {
                theirs.for_each(|n| cx.tell(&who, n));
            }
        }
    }

    /// Tells everyone who follows `sid` the notes whose audience admits them, whoever acted.
    pub fn tell_notes(&self, cx: &mut Cx, sid: SessionId, notes: &[Note]) {
        let Some(s) = self.session(sid) else { return };
        for (who, viewer) in self.followers(s) {
            for n in notes.iter().filter(|n| n.to.admits(viewer)) {
                cx.tell(&who, addressed(s, viewer, n));
            }
        }
    }

    /// Sends `viewer` the board of `sid` (after a look, or on joining).
    pub fn send_board(&self, cx: &mut Cx, sid: SessionId, viewer: &AgentId) {
        if let Some(b) = self
            .session(sid)
            .and_then(|s| self.board_msg(s, viewer, None, true))
        {
            cx.show_board(viewer, b);
        }
    }
}

/// A note's text as `viewer` reads it. An all-seeing watcher reads what was said to some players
/// only, so they are told to whom ("(to Clara) You are the Seer…"), or a "you" would seem to
/// mean them.
fn addressed(s: &Session, viewer: Viewer<'_>, note: &Note) -> String {
    match &note.to {
        crate::game_api::Audience::Roles(roles) if viewer.role.is_none() => {
            let names: Vec<&str> = s
                .participants
                .iter()
                .filter(|p| roles.iter().any(|r| r == p.role))
                .map(|p| p.name.as_str())
                .collect();
            format!("(to {}) {}", names.join(", "), note.text)
        }
        _ => note.text.clone(),
    }
}
