//! What people carry: things picked up (`take`), put down (`drop`) and handed over (`give`).
//! A person's things are in their pocket, a room of its own that nobody stands in, nothing
//! leads to and no map shows ([`Room::holder`]), so that everything that finds, changes or
//! stores a thing (its number, its verbs, its properties, `@recycle`) works on carried ones
//! too, and a carried thing is stored in its place like any other.

use super::build::Refused;
use super::map::{Found, ObjNum, POCKET, Room, RoomIdx, ThingKind};
use super::{AgentId, Cx, World};
use crate::store::built;

impl World {
    /// The pocket of `who`, if they have ever carried anything.
    pub fn pocket_of(&self, who: &str) -> Option<RoomIdx> {
        self.map.room_by_id(&format!("{POCKET}{who}"))
    }

    /// The pocket of `who`, made if they have none yet; `cx`, if given, takes what undoes
    /// its making (rooms are never removed but by an undo).
    pub(super) fn pocket(&mut self, who: &str, cx: Option<&mut Cx>) -> RoomIdx {
        if let Some(p) = self.pocket_of(who) {
            return p;
        }
        self.occupants.push(Vec::new());
        let idx = self.map.add_pocket(Room {
            num: 0,
            owner: None,
            gone: false,
            holder: Some(who.to_owned()),
            props: Default::default(),
            id: format!("{POCKET}{who}"),
            name: "a pocket".into(),
            description: String::new(),
            exits: Vec::new(),
            things: Vec::new(),
        });
        if let Some(cx) = cx {
            cx.undo(move |w| w.undo_last_room(idx));
        }
        idx
    }

    /// The names of what `who` carries.
    pub fn carried(&self, who: &str) -> Vec<String> {
        self.pocket_of(who)
            .map(|p| {
                self.map
                    .room(p)
                    .things
                    .iter()
                    .map(|t| t.name.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether `who` carries object `num`.
    pub fn carries(&self, who: &str, num: ObjNum) -> bool {
        self.pocket_of(who)
            .is_some_and(|p| self.map.room(p).things.iter().any(|t| t.num == num))
    }

    /// The room a pocket's holder stands in (or the room itself, not a pocket).
    pub fn outside(&self, room: RoomIdx) -> RoomIdx {
        match &self.map.room(room).holder {
            Some(who) if self.is_present(who) => self.player(&AgentId::from(who.as_str())).room,
            _ => room,
        }
    }

    /// Tells everyone in `room` but `except` who may hear the town (a game that keeps someone
    /// apart, a Werewolf match, keeps them from this too).
    pub fn tell_hearers(
        &self,
        cx: &mut Cx,
        room: RoomIdx,
        except: Option<&AgentId>,
        line: impl Into<std::sync::Arc<str>>,
    ) {
        let line = line.into();
        for id in self.occupants(room) {
            if except.is_some_and(|e| super::same_agent(e, id)) || self.deaf_to_town(id).is_some() {
                continue;
            }
            cx.tell(id, line.clone());
        }
    }

    /// Moves thing `k` of room `from` into room `to`, stored, with what puts it back.
    pub(super) fn shift(&mut self, cx: &mut Cx, from: RoomIdx, k: usize, to: RoomIdx) {
        if from == to {
            return;
        }
        let thing = self.map.rooms[from].things.remove(k);
        let num = thing.num;
        self.map.rooms[to].things.push(thing);
        let place = self.map.room(to).id.clone();
        cx.save(built::place(num, place), move |w| {
            if let Some(i) = w.map.rooms[to].things.iter().position(|t| t.num == num) {
                let thing = w.map.rooms[to].things.remove(i);
                let at = k.min(w.map.rooms[from].things.len());
                w.map.rooms[from].things.insert(at, thing);
            }
        });
    }

    /// `cx`'s actor picks up the thing `found` where they stand: something a builder made, no
    /// game's table, and not locked against them.
    pub fn pick_up(&mut self, cx: &mut Cx, found: Found) -> Result<String, Refused> {
        let here = self.player(&cx.actor).room;
        let Found::Thing(r, k) = found else {
            return Err(Refused("You can take only things.".into()));
        };
        if r != here {
            return Err(Refused("You already have that.".into()));
        }
        let t = &self.map.room(r).things[k];
        if t.owner.is_none() || t.kind != ThingKind::SCENERY {
            let the = crate::text::without_article(&t.name).unwrap_or(&t.name);
            return Err(Refused(format!(
                "You can't take the {the}; it stays where it is."
            )));
        }
        if !self.unlocked_for(&cx.actor, t.lock.as_deref(), t.owner.as_deref()) {
            return Err(Refused(format!("{} is locked in place.", capital(&t.name))));
        }
        let name = t.name.clone();
        let pocket = self.pocket(&cx.actor.clone(), Some(cx));
        self.shift(cx, r, k, pocket);
        let me = self.player(&cx.actor).name.clone();
        let actor = cx.actor.clone();
        self.tell_hearers(cx, here, Some(&actor), format!("{me} takes {name}."));
        Ok(format!("You take {name}."))
    }

    /// `cx`'s actor puts down thing `k` of what they carry where they stand.
    pub fn put_down(&mut self, cx: &mut Cx, k: usize) -> Result<String, Refused> {
        let here = self.player(&cx.actor).room;
        let pocket = self
            .pocket_of(&cx.actor)
            .ok_or_else(|| Refused("You carry nothing.".into()))?;
        let name = self.map.room(pocket).things[k].name.clone();
        self.shift(cx, pocket, k, here);
        let me = self.player(&cx.actor).name.clone();
        let actor = cx.actor.clone();
        self.tell_hearers(cx, here, Some(&actor), format!("{me} drops {name}."));
        Ok(format!("You drop {name}."))
    }

    /// `cx`'s actor hands thing `k` of what they carry to `to`, who stands with them.
    pub fn give(&mut self, cx: &mut Cx, k: usize, to: &AgentId) -> Result<String, Refused> {
        let here = self.player(&cx.actor).room;
        if !self.is_present(to) || self.player(to).room != here {
            return Err(Refused("They are not here.".into()));
        }
        if super::same_agent(to, &cx.actor) {
            return Err(Refused("You have it already.".into()));
        }
        let pocket = self
            .pocket_of(&cx.actor)
            .ok_or_else(|| Refused("You carry nothing.".into()))?;
        let name = self.map.room(pocket).things[k].name.clone();
        let theirs = self.pocket(to, Some(cx));
        self.shift(cx, pocket, k, theirs);
        let (me, them) = (
            self.player(&cx.actor).name.clone(),
            self.player(to).name.clone(),
        );
        cx.tell(to, format!("{me} gives you {name}."));
        let line: std::sync::Arc<str> = format!("{me} gives {name} to {them}.").into();
        for id in self.occupants(here) {
            if !super::same_agent(id, to)
                && !super::same_agent(id, &cx.actor)
                && self.deaf_to_town(id).is_none()
            {
                cx.tell(id, line.clone());
            }
        }
        Ok(format!("You give {name} to {them}."))
    }
}

fn capital(name: &str) -> String {
    crate::text::capitalize(name)
}
