//! Who follows a session (its players and its watchers) and how they hear of it: a drawn board
//! for clients that draw one, the template's text for people, the headline alone for agents,
//! whose tools give them the state.

use super::sessions::{Session, SessionId};
use super::{AgentId, BoardMsg, Cx, Sink, World};

impl World {
    /// The board of session `s` as `viewer` sees it, if its template draws one.
    pub fn board_msg(
        &self,
        s: &Session,
        viewer: &AgentId,
        headline: Option<String>,
    ) -> Option<BoardMsg> {
        let role = s.role_of(viewer);
        let picture = s.game.picture(role)?;
        let mut text = vec![format!(
            "Game #{} ({}): {}",
            s.id,
            s.template.id,
            s.players_line()
        )];
        text.extend(s.game.render(role, self.game_time(s)));
        Some(BoardMsg {
            object: s.id,
            board: picture.board,
            your_turn: picture.your_turn,
            colour: picture.side,
            sequence: s.tick + 1,
            headline,
            text,
        })
    }

    /// Starts `who` watching `sid`; false if they already were.
    pub fn watch(&mut self, sid: SessionId, who: &AgentId) -> bool {
        let list = self.watchers.entry(sid).or_default();
        if list.contains(who) {
            return false;
        }
        list.push(who.clone());
        true
    }

    /// Stops `who` watching `sid`; false if they were not.
    pub fn unwatch(&mut self, sid: SessionId, who: &AgentId) -> bool {
        self.watchers.get_mut(&sid).is_some_and(|l| {
            let before = l.len();
            l.retain(|w| w != who);
            l.len() != before
        })
    }

    /// Whether `who` watches `sid`.
    pub fn watches(&self, sid: SessionId, who: &AgentId) -> bool {
        self.watchers.get(&sid).is_some_and(|l| l.contains(who))
    }

    /// Everyone who follows session `sid`: its players and its watchers.
    fn followers(&self, sid: SessionId) -> Vec<AgentId> {
        let mut who: Vec<AgentId> = self
            .session(sid)
            .map(|s| s.participants.iter().map(|p| p.agent.clone()).collect())
            .unwrap_or_default();
        for w in self.watchers.get(&sid).into_iter().flatten() {
            if !who.contains(w) {
                who.push(w.clone());
            }
        }
        who
    }

    /// Tells everyone who follows `sid` what happened, with the board or the table.
    pub fn announce(&self, cx: &mut Cx, sid: SessionId, headline: String) {
        let Some(s) = self.session(sid) else { return };
        let now = self.game_time(s);
        for who in self.followers(sid) {
            // An agent's mailbox gets the news, not a drawn board: its tools give the state.
            let mailbox =
                self.is_present(&who) && matches!(self.player(&who).sink_kind(), Sink::Mailbox);
            if mailbox {
                if who != cx.actor {
                    cx.tell(&who, headline.as_str());
                }
                continue;
            }
            match self.board_msg(s, &who, Some(headline.clone())) {
                Some(board) => cx.show_board(&who, board),
                // The actor has the verb's own answer; others are told.
                None if who == cx.actor => {}
                None => {
                    cx.tell(&who, headline.as_str());
                    for line in s.game.render(s.role_of(&who), now) {
                        cx.tell(&who, line);
                    }
                }
            }
        }
    }

    /// Sends `viewer` the board of `sid` (after a look, or on joining).
    pub fn send_board(&self, cx: &mut Cx, sid: SessionId, viewer: &AgentId) {
        if let Some(b) = self
            .session(sid)
            .and_then(|s| self.board_msg(s, viewer, None))
        {
            cx.show_board(viewer, b);
        }
    }
}
