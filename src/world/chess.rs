//! Chess in the town: boards as each person sees them (text, and tkMOO-light's `chess-board`),
//! who watches which game, open challenges, and the house's computer opponent.
//!
//! The computer is an identity like any other (`computer`), so its moves are ordinary logged
//! actions. When it is to move, the world leaves an [`Effect::Think`]; the world task runs the
//! engine on the blocking pool and sends the chosen move back as an action with the tick it
//! was chosen for, so a move chosen for a position that has since changed (a takeback) is
//! refused like any stale move.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use shakmaty::{Chess, File, Position, Rank, Square};

use super::sessions::{Session, SessionId};
use super::{AgentId, BoardMsg, Cx, World};
use crate::games::chess::{ChessGame, Side};

pub const COMPUTER_ID: &str = "computer";
pub const COMPUTER_NAME: &str = "Computer";
pub const DEFAULT_LEVEL: u8 = 5;

/// Live chess state that is not part of any game: watchers and challenges.
#[derive(Default)]
pub struct ChessRoom {
    pub watchers: HashMap<SessionId, Vec<AgentId>>,
    pub challenges: Vec<Challenge>,
    /// Games made with `createGame` for another agent, waiting for `joinGame` (by a reserved id).
    pub open_games: HashMap<SessionId, OpenGame>,
    /// (game, agent) pairs that asked for the interactive board (`showUi`).
    pub ui: std::collections::HashSet<(SessionId, AgentId)>,
}

/// A game waiting for its second player.
#[derive(Debug, Clone)]
pub struct OpenGame {
    pub creator: AgentId,
    /// The creator's colour.
    pub colour: &'static str,
}

/// A challenge from one player to another, waiting for an answer.
#[derive(Debug, Clone)]
pub struct Challenge {
    pub from: AgentId,
    pub to: AgentId,
    /// The challenger's colour.
    pub colour: Colour,
    pub fen: Option<String>,
}

#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Colour {
    White,
    Black,
    #[default]
    Random,
}

/// Work the world task starts after a command.
#[derive(Debug)]
pub enum Effect {
    /// The computer is to move in `session` at `tick`.
    Think(Think),
}

#[derive(Debug)]
pub struct Think {
    pub session: SessionId,
    pub tick: u64,
    pub pos: Chess,
    pub history: Vec<u64>,
    pub level: u8,
    pub seed: u64,
}

/// The board in tkMOO-light's order: file by file from the h-file, rank 1 to 8 within each,
/// `.` for empty, upper case white: `index = (7 - file) * 8 + (rank - 1)`.
pub fn board64(pos: &Chess) -> String {
    let board = pos.board();
    let mut s = String::with_capacity(64);
    for file in (0..8).rev() {
        for rank in 0..8 {
            let sq = Square::from_coords(File::new(file), Rank::new(rank));
            s.push(board.piece_at(sq).map_or('.', |p| p.char()));
        }
    }
    s
}

/// tkMOO-light's drag coordinates (x = 1 is the h-file, y the rank) as a square name.
pub fn drag_square(x: u32, y: u32) -> Option<String> {
    if !(1..=8).contains(&x) || !(1..=8).contains(&y) {
        return None;
    }
    let file = char::from(b'h' - (x as u8 - 1));
    Some(format!("{file}{y}"))
}

/// The game of a chess session.
pub fn chess_of(s: &Session) -> Option<&ChessGame> {
    s.game.as_any().downcast_ref::<ChessGame>()
}

fn side_name(role: &str) -> &'static str {
    if role == "black" { "black" } else { "white" }
}

impl World {
    /// The board of chess session `s` as `viewer` sees it.
    pub fn board_msg(
        &self,
        s: &Session,
        viewer: &AgentId,
        headline: Option<String>,
    ) -> Option<BoardMsg> {
        let g = chess_of(s)?;
        let role = s.role_of(viewer);
        let mut text = vec![format!("Game #{} (chess.v1): {}", s.id, s.players_line())];
        text.extend(crate::games::text::render(
            s.template.id,
            &s.game.view(role),
        ));
        Some(BoardMsg {
            object: s.id,
            board: board64(g.position()),
            your_turn: !s.game.is_terminal() && role == Some(g.turn().name()),
            colour: role.map_or("white", side_name),
            sequence: s.tick + 1,
            headline,
            text,
        })
    }

    /// Everyone who follows session `sid`: its players and its watchers.
    fn followers(&self, sid: SessionId) -> Vec<AgentId> {
        let mut who: Vec<AgentId> = self
            .session(sid)
            .map(|s| s.participants.iter().map(|p| p.agent.clone()).collect())
            .unwrap_or_default();
        for w in self.chess.watchers.get(&sid).into_iter().flatten() {
            if !who.contains(w) {
                who.push(w.clone());
            }
        }
        who
    }

    /// Tells everyone who follows `sid` what happened, with the board (chess) or the table.
    pub fn announce(&self, cx: &mut Cx, sid: SessionId, headline: String) {
        let Some(s) = self.session(sid) else { return };
        for who in self.followers(sid) {
            // An agent's mailbox gets the news, not a drawn board: its tools give the position.
            let mailbox = self.is_present(&who)
                && matches!(self.player(&who).sink_kind(), super::Sink::Mailbox);
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
                    for line in
                        crate::games::text::render(s.template.id, &s.game.view(s.role_of(&who)))
                    {
                        cx.tell(&who, line);
                    }
                }
            }
        }
    }

    /// After a change in `sid`: the computer answers any request made of it, and if it is to
    /// move, starts thinking.
    pub fn computer_turn(&mut self, cx: &mut Cx, sid: SessionId) {
        let computer: AgentId = COMPUTER_ID.into();
        let Some(s) = self.session(sid) else { return };
        let Some(role) = s.role_of(COMPUTER_ID) else {
            return;
        };
        let Some(g) = chess_of(s) else { return };
        if s.game.is_terminal() {
            return;
        }
        let me = Side::from_role(role).expect("chess roles are sides");
        let answer = if g.takeback_request() == Some(me.other()) {
            // A takeback against the computer is granted at once.
            Some("accept_takeback")
        } else if g.draw_offer() == Some(me.other()) {
            // It accepts a draw only when it stands clearly worse.
            let mut eval = crate::engine::eval::evaluate(g.position());
            if g.turn() != me {
                eval = -eval;
            }
            Some(if eval < -300 {
                "accept_draw"
            } else {
                "decline_draw"
            })
        } else {
            None
        };
        if let Some(action) = answer {
            let tick = s.tick;
            if self.act_as(cx, &computer, sid, action, Some(tick)).is_ok() {
                return; // act_as calls back here for the position that follows.
            }
        }
        let Some(s) = self.session(sid) else { return };
        let Some(g) = chess_of(s) else { return };
        if g.turn() == me && !s.game.is_terminal() {
            let level = s
                .options
                .get("computer_level")
                .and_then(serde_json::Value::as_u64)
                .map_or(DEFAULT_LEVEL, |l| l as u8);
            cx.effects.push(Effect::Think(Think {
                session: sid,
                tick: s.tick,
                pos: g.position().clone(),
                history: g.history_keys(),
                level,
                seed: s.seed.wrapping_add(s.tick),
            }));
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

    /// Forgets someone who left: their challenges and what they watched.
    /// Stops `who` watching `sid`; false if they were not.
    pub fn unwatch(&mut self, sid: SessionId, who: &AgentId) -> bool {
        self.chess.watchers.get_mut(&sid).is_some_and(|l| {
            let before = l.len();
            l.retain(|w| w != who);
            l.len() != before
        })
    }

    pub fn forget_chess(&mut self, who: &AgentId) {
        self.chess
            .challenges
            .retain(|c| &c.from != who && &c.to != who);
        for w in self.chess.watchers.values_mut() {
            w.retain(|x| x != who);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_position_in_tkmoo_order() {
        assert_eq!(
            board64(&Chess::default()),
            "RP....prNP....pnBP....pbKP....pkQP....pqBP....pbNP....pnRP....pr"
        );
    }

    #[test]
    fn drag_coordinates_count_from_the_h_file() {
        assert_eq!(drag_square(4, 2).as_deref(), Some("e2"));
        assert_eq!(drag_square(1, 1).as_deref(), Some("h1"));
        assert_eq!(drag_square(8, 8).as_deref(), Some("a8"));
        assert_eq!(drag_square(0, 1), None);
        assert_eq!(drag_square(9, 1), None);
        // Every square, both ways: x is 8 minus the file index, y the rank.
        for x in 1..=8u32 {
            for y in 1..=8u32 {
                let sq = drag_square(x, y).unwrap();
                let file = sq.as_bytes()[0] - b'a';
                assert_eq!(u32::from(8 - file), x, "{sq}");
                assert_eq!(sq[1..].parse::<u32>().unwrap(), y, "{sq}");
                // And the board string puts that square where tkMOO-light reads it.
                let idx = (7 - usize::from(file)) * 8 + (y as usize - 1);
                assert_eq!(idx, (x as usize - 1) * 8 + (y as usize - 1));
            }
        }
    }
}
