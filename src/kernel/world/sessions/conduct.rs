//! Errors apart from skill, as the host sees them happen (see [`crate::ratings::conduct`]): a
//! refusal the rules gave, a deadline that found a player owing, each stored in its session's
//! tally at once and added to the player's conduct when the game ends.

use super::SessionId;
use crate::ratings::conduct::Tally;
use crate::store::writes;
use crate::world::{Cx, World};

impl World {
    /// Adds `n` to `agent`'s tally in `sid`, in memory only; [`World::store_tally`] stores it.
    pub(in crate::world) fn count(&mut self, sid: SessionId, agent: &str, n: Tally) {
        if let Some(s) = self.sessions.get_mut(&sid) {
            s.tally.entry(agent.to_owned()).or_default().add(n);
        }
    }

    /// Takes back what [`World::count`] added.
    pub(in crate::world) fn uncount(&mut self, sid: SessionId, agent: &str, n: Tally) {
        if let Some(t) = self
            .sessions
            .get_mut(&sid)
            .and_then(|s| s.tally.get_mut(agent))
        {
            t.sub(n);
        }
    }

    /// Stores `n`, counted already, in `agent`'s tally in `sid`.
    pub(in crate::world) fn store_tally(
        &mut self,
        cx: &mut Cx,
        sid: SessionId,
        agent: &str,
        n: Tally,
    ) {
        let who = agent.to_owned();
        cx.save(
            writes::tally(sid.to_string(), agent.to_owned(), n),
            move |w| w.uncount(sid, &who, n),
        );
    }

    /// Counts a refusal of `agent`'s action in `sid` by the rules, wherever it was refused:
    /// here, or by a game's verb that checked the move itself first (the same refusal the
    /// rules would give, in its own words). Only a player of a game still running is counted.
    pub fn refused(&mut self, cx: &mut Cx, sid: SessionId, agent: &str) {
        // A copy's refusals are counted where it is played.
        let playing = self.sessions.get(&sid).is_some_and(|s| {
            !s.game.is_terminal() && s.role_of(agent).is_some() && !self.is_copy(sid)
        });
        if playing {
            let n = Tally {
                refused: 1,
                missed: 0,
            };
            self.count(sid, agent, n);
            self.store_tally(cx, sid, agent, n);
        }
    }

    /// Takes `sid` out of the ratings from now on, for something moot did rather than its
    /// players (a deadline that fell while it was down), and tells them so.
    pub(in crate::world) fn unrate(&mut self, cx: &mut Cx, sid: SessionId) {
        let Some(s) = self.sessions.get_mut(&sid) else {
            return;
        };
        s.rated = false;
        cx.save(writes::unrate(sid.to_string()), move |w| {
            if let Some(s) = w.sessions.get_mut(&sid) {
                s.rated = true;
            }
        });
        let line = format!(
            "#{sid}: moot was not running when a deadline of this game fell due; it goes on, \
             but it no longer counts toward ratings."
        );
        for p in &s.participants {
            cx.tell(&p.agent, line.as_str());
        }
    }

    /// Adds the game that just ended in `sid` to its players' conduct, with the undo that
    /// takes it back should the ending not be stored.
    pub(in crate::world) fn fold_conduct(&mut self, cx: &mut Cx, sid: SessionId) {
        let Some(s) = self.sessions.get(&sid) else {
            return;
        };
        let game = crate::ratings::game_name(s.template.id);
        let folded = s.conduct();
        for (agent, c) in &folded {
            self.conduct.add(agent, game, *c);
        }
        cx.undo(move |w| {
            for (agent, c) in &folded {
                w.conduct.sub(agent, game, *c);
            }
        });
    }
}
