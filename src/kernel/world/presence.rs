//! Who is in the town: a character arriving (from telnet, or an agent's first call), moving,
//! leaving or being booted, an agent gone idle, and what each has last done (an idle time is
//! only ever moved by the player's own doing).

use std::sync::Arc;

use tokio::time::Instant;

use super::{
    AGENT_CONN, AgentId, ConnId, Cx, Delivery, Event, MAX_BACKLOG, MAX_BACKLOG_BYTES, Out, Player,
    RoomIdx, Sink, World, views,
};

impl World {
    /// The connected player called `name` (any case), anywhere.
    pub fn connected_named(&self, name: &str) -> Option<&Player> {
        self.players
            .values()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    /// Moves a player between rooms, keeping the occupant lists in step: they arrive last.
    /// Someone who is not here, or a room that is not, is left alone. Returns where they
    /// stood in the order of arrival of the room they left, for [`World::move_back`].
    pub fn move_player(&mut self, id: &AgentId, to: RoomIdx) -> Option<usize> {
        self.place_player(id, to, None)
    }

    /// Undoes [`World::move_player`]: the player goes back to `to` and stands at `place` in
    /// its order of arrival, where they stood before they left (so the room lists them as it
    /// did), not last as a newcomer.
    pub fn move_back(&mut self, id: &AgentId, to: RoomIdx, place: Option<usize>) {
        self.place_player(id, to, place);
    }

    fn place_player(&mut self, id: &AgentId, to: RoomIdx, place: Option<usize>) -> Option<usize> {
        if to >= self.occupants.len() {
            return None;
        }
        let p = self.players.get_mut(id)?;
        let from = std::mem::replace(&mut p.room, to);
        let left = self.occupants.get_mut(from).and_then(|there| {
            let at = there.iter().position(|x| x == id)?;
            there.remove(at);
            Some(at)
        });
        if let Some(here) = self.occupants.get_mut(to) {
            let at = place.map_or(here.len(), |at| at.min(here.len()));
            here.insert(at, id.clone());
        }
        left
    }

    /// Places a newly connected player, or replaces the connection of one already here.
    /// Returns the sink of the connection that was displaced, if any.
    pub fn admit(&mut self, player: Player) -> Option<Sink> {
        let (id, room) = (player.id.clone(), player.room);
        let old = self.players.insert(id.clone(), player);
        if let Some(old) = &old {
            if old.room == room {
                return Some(old.sink.clone());
            }
            if let Some(there) = self.occupants.get_mut(old.room) {
                there.retain(|x| *x != id);
            }
        }
        if let Some(here) = self.occupants.get_mut(room) {
            here.push(id);
        }
        old.map(|o| o.sink)
    }

    /// Removes a player if `conn` is still theirs.
    pub(super) fn remove(&mut self, id: &AgentId, conn: ConnId) -> Option<Player> {
        if self.players.get(id)?.conn != conn {
            return None;
        }
        let p = self.players.remove(id)?;
        if let Some(there) = self.occupants.get_mut(p.room) {
            there.retain(|x| x != id);
        }
        Some(p)
    }

    /// Puts taken notices back at the front of a mailbox (the answer that took them failed).
    pub fn return_to_mailbox(&mut self, id: &AgentId, taken: Vec<Delivery>) {
        if let Some(p) = self.players.get_mut(id) {
            for d in taken.into_iter().rev() {
                p.mailbox_bytes += d.weight();
                p.mailbox.push_front(d);
            }
            while p.mailbox.len() > MAX_BACKLOG || p.mailbox_bytes > MAX_BACKLOG_BYTES {
                let Some(newest) = p.mailbox.pop_back() else {
                    break;
                };
                p.mailbox_bytes -= newest.weight();
            }
        }
    }

    /// Marks a player as active now, as others see it: after each command that left a trace
    /// everyone may know of (not after a hidden one, such as a Werewolf night action, which
    /// would tell who holds a night role).
    pub fn touch(&mut self, id: &AgentId, now: Instant) {
        if let Some(p) = self.players.get_mut(id) {
            p.last_active = now;
        }
    }

    /// Notes that `id` sent something, for the sweep of silent agents alone: what others may
    /// see (`who`'s idle time) moves with [`World::touch`], after a command that left a
    /// public trace.
    pub fn heard(&mut self, id: &AgentId, now: Instant) {
        if let Some(p) = self.players.get_mut(id) {
            p.last_heard = now;
        }
    }

    /// Agents without a connection that have been silent for `idle` leave; their rooms see it.
    pub fn sweep_idle_agents(&mut self, cx: &mut Cx, now: Instant, idle: std::time::Duration) {
        let gone: Vec<AgentId> = self
            .players
            .values()
            .filter(|p| {
                matches!(p.sink, Sink::Mailbox)
                    && now.saturating_duration_since(p.last_heard) >= idle
            })
            .map(|p| p.id.clone())
            .collect();
        for id in gone {
            self.leave(cx, &id, AGENT_CONN, Leaving::Idle);
        }
    }

    /// Brings someone into the town where they last stood (or at the start), in place of any
    /// older connection of theirs; the room hears of it. Every face enters this way.
    pub fn enter(
        &mut self,
        cx: &mut Cx,
        row: crate::store::AgentRow,
        conn: ConnId,
        sink: Sink,
    ) -> Entered {
        let known = row.room.as_deref().and_then(|r| self.map.room_by_id(r));
        let room = known.unwrap_or(self.map.start);
        let id: AgentId = row.agent_id.as_str().into();
        let name = row.name.clone();
        let mut player = Player::new(id.clone(), row.name, row.description, room, conn, sink);
        player.display = row.display;
        player.wizard = row.wizard;
        player.builder = row.builder;
        player.programmer = row.programmer;
        let displaced = self.admit(player);
        let what = if displaced.is_some() {
            "reconnected"
        } else {
            "connected"
        };
        cx.tell_room(self, room, &id, format!("{name} has {what}."));
        cx.event(&id, Event::Room(Arc::new(views::room_info(self, room))));
        Entered {
            room,
            known_room: known.is_some(),
            displaced,
        }
    }

    /// Takes `id` out of the town if `conn` is still theirs (a newer connection may have taken
    /// their place); the room hears why, and games forget them. False if they were not here.
    pub fn leave(&mut self, cx: &mut Cx, id: &AgentId, conn: ConnId, why: Leaving) -> bool {
        let Some(p) = self.remove(id, conn) else {
            return false;
        };
        self.forget(id);
        let what = match why {
            Leaving::Quit | Leaving::Lost => "has disconnected.",
            Leaving::Idle => "has been disconnected for inactivity.",
        };
        cx.tell_room(self, p.room, id, format!("{} {what}", p.name));
        true
    }

    /// Takes someone out of the town at a wizard's word: their connection is closed after
    /// `lines`, and the room hears they are gone. False if they had left already.
    pub fn boot(&mut self, cx: &mut Cx, id: &AgentId, lines: Vec<String>) -> bool {
        let Some(conn) = self.players.get(id).map(|p| p.conn) else {
            return false;
        };
        let Some(p) = self.remove(id, conn) else {
            return false;
        };
        p.sink.send(Out::Close(lines));
        self.forget(id);
        cx.tell_room(
            self,
            p.room,
            id,
            format!("{} has been disconnected.", p.name),
        );
        true
    }

    pub fn is_present(&self, id: &str) -> bool {
        self.players.contains_key(id)
    }

    /// Brings an agent without a connection (MCP, REST) into the town, where it was last, if
    /// it is not here already. Others in the room see it arrive.
    pub fn arrive_agent(&mut self, cx: &mut Cx, row: crate::store::AgentRow) {
        if !self.players.contains_key(row.agent_id.as_str()) {
            self.enter(cx, row, AGENT_CONN, Sink::Mailbox);
        }
    }
}

/// Where someone who entered stands, and what they displaced.
pub struct Entered {
    pub room: RoomIdx,
    /// False if the room they were last in is gone from the world files (they start over).
    pub known_room: bool,
    /// The sink of an older connection of theirs, now closed out.
    pub displaced: Option<Sink>,
}

/// Why a player leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Leaving {
    /// They typed `@quit`.
    Quit,
    /// The connection dropped.
    Lost,
    /// They were idle too long.
    Idle,
}
