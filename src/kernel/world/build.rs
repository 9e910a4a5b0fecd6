//! Building: rooms, exits and things that builders add to the town (`@dig`, `@open`,
//! `@create`) and change (`@describe`, `@rename`), each stored before anyone hears of it and
//! put back as it was if the store refuses it. Who may change what is decided here, once: a
//! builder changes what they own, a wizard anything (the world files' objects are the wizards').

use super::map::{Exit, Found, ObjNum, Room, RoomIdx, Thing, ThingKind};
use super::{AgentId, Cx, World};
use crate::store::built::{self, BuiltKind, BuiltRow};

/// The prefix of a built room's id (`built-1000`): no world file's id has it.
pub const BUILT_ROOM: &str = "built-";

/// The most objects one builder may own, and what they may have written in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    pub objects: usize,
    /// Bytes of names and descriptions, over everything they own.
    pub text_bytes: usize,
}

impl Default for Quota {
    fn default() -> Quota {
        Quota {
            objects: 200,
            text_bytes: 64 * 1024,
        }
    }
}

/// An object's names and description, as `@rename` and `@describe` change them.
#[derive(Debug, Clone)]
struct Words {
    name: String,
    aliases: Vec<String>,
    description: String,
}

/// Why something cannot be built or changed, in words for whoever asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused(pub String);

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl World {
    /// How much one builder may own (`--builder-objects`, `--builder-text`).
    pub fn limit_building(&mut self, quota: Quota) {
        self.build_quota = quota;
    }

    /// Puts what builders made into the map, as the town opens: rooms first (a row of a room
    /// always comes before the rows of what is in it), then exits and things where their rooms
    /// are. A row whose room is gone from the world files is left in the store, unseen.
    pub fn restore_built(&mut self, rows: Vec<BuiltRow>) {
        for r in rows.iter().filter(|r| r.kind == BuiltKind::Room) {
            self.add_room(Room {
                num: r.num,
                owner: Some(r.owner.clone()),
                gone: false,
                holder: None,
                props: r.props.clone(),
                id: format!("{BUILT_ROOM}{}", r.num),
                name: r.name.clone(),
                description: r.description.clone(),
                exits: Vec::new(),
                things: Vec::new(),
            });
        }
        // Every stored number stays taken, even one whose room is gone: a new object given it
        // could not be stored beside the old row.
        for r in &rows {
            self.map.reserve(r.num);
            if r.writable {
                self.writable.insert(r.num);
            }
        }
        for r in rows.iter().filter(|r| r.kind != BuiltKind::Room) {
            // A thing someone carries is in their pocket, made as it is first needed.
            if let Some(who) = r
                .place
                .as_deref()
                .and_then(|p| p.strip_prefix(super::map::POCKET))
            {
                self.pocket(who, None);
            }
            let Some(at) = r.place.as_deref().and_then(|p| self.map.room_by_id(p)) else {
                continue;
            };
            match r.kind {
                BuiltKind::Exit => {
                    let Some(to) = r.dest.as_deref().and_then(|d| self.map.room_by_id(d)) else {
                        continue;
                    };
                    self.map.add_exit(at, exit_of(r, to));
                }
                BuiltKind::Thing => self.map.add_thing(at, thing_of(r)),
                BuiltKind::Room => {}
            }
        }
    }

    /// Whether `who` may build at all: a builder, or a wizard.
    pub fn may_build(&self, who: &AgentId) -> bool {
        self.is_present(who) && {
            let p = self.player(who);
            p.builder || p.wizard
        }
    }

    /// Whether `who` may change something `owner` owns: its owner (or an agent made with the
    /// owner's token, which builds as they do), or a wizard (who owns the world files' objects
    /// too).
    pub fn may_change(&self, who: &AgentId, owner: Option<&str>) -> bool {
        (self.is_present(who) && self.player(who).wizard)
            || owner.is_some_and(|o| o == who.as_ref() || o == &*self.builder_of(who))
    }

    /// Whether `who` may change the object `found`: its owner may (see [`World::may_change`]),
    /// and every builder may where its owner made it writable (`@chmod +w`), as LambdaCore's
    /// `w` bit lets them.
    pub fn may_alter(&self, who: &AgentId, found: Found) -> bool {
        self.may_change(who, self.owner_of(found))
            || (self.writable.contains(&self.num_of(found)) && self.may_build(who))
    }

    /// Whether every builder may change `num` (`@chmod +w`).
    pub fn is_writable(&self, num: ObjNum) -> bool {
        self.writable.contains(&num)
    }

    /// Lets every builder change the built object `found`, or its owner alone, as `cx`'s
    /// actor, who must own it.
    pub fn set_writable(&mut self, cx: &mut Cx, found: Found, on: bool) -> Result<(), Refused> {
        let owner = self.owner_of(found).map(str::to_owned);
        if owner.is_none() || !self.may_change(&cx.actor, owner.as_deref()) {
            return Err(Refused("That is not yours to open to others.".into()));
        }
        let num = self.num_of(found);
        let was = self.writable.contains(&num);
        if on {
            self.writable.insert(num);
        } else {
            self.writable.remove(&num);
        }
        cx.save(built::set_writable(num, on), move |w| {
            if was {
                w.writable.insert(num);
            } else {
                w.writable.remove(&num);
            }
        });
        Ok(())
    }

    /// Whose objects `who` builds and changes: the person an agent was made for with their
    /// token (the agent has exactly their rights), or themselves.
    pub fn builder_of(&self, who: &AgentId) -> AgentId {
        match self.directory.builds_for(who) {
            o if o == who.as_ref() => who.clone(),
            o => o.into(),
        }
    }

    /// How many objects `who` owns now.
    pub fn owned_count(&self, who: &AgentId) -> usize {
        self.owned_by(who).len()
    }

    /// What `who` owns: each object's number, kind, name and the room it is (or is in).
    pub fn owned_by(&self, who: &AgentId) -> Vec<(ObjNum, BuiltKind, String, RoomIdx)> {
        let mine = |o: &Option<String>| o.as_deref() == Some(who.as_ref());
        let mut owned = Vec::new();
        for (i, r) in self.map.rooms.iter().enumerate().filter(|(_, r)| !r.gone) {
            if mine(&r.owner) {
                owned.push((r.num, BuiltKind::Room, r.name.clone(), i));
            }
            for e in r.exits.iter().filter(|e| mine(&e.owner)) {
                owned.push((e.num, BuiltKind::Exit, e.name.clone(), i));
            }
            for t in r.things.iter().filter(|t| mine(&t.owner)) {
                owned.push((t.num, BuiltKind::Thing, t.name.clone(), i));
            }
        }
        owned.sort_by_key(|o| o.0);
        owned
    }

    /// The bytes of names, aliases, descriptions, properties and kept code in what `who` owns.
    pub fn owned_text(&self, who: &AgentId) -> usize {
        let mine = |o: &Option<String>| o.as_deref() == Some(who.as_ref());
        let words = |name: &str, aliases: &[String], description: &str| {
            name.len() + aliases.iter().map(String::len).sum::<usize>() + description.len()
        };
        let props = |p: &std::collections::BTreeMap<String, String>| {
            p.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
        };
        let mut bytes = 0;
        let mut nums = Vec::new();
        for r in self.map.rooms.iter().filter(|r| !r.gone) {
            if mine(&r.owner) {
                bytes += words(&r.name, &[], &r.description) + props(&r.props);
                nums.push(r.num);
            }
            for e in r.exits.iter().filter(|e| mine(&e.owner)) {
                bytes += words(&e.name, &e.aliases, "");
            }
            for t in r.things.iter().filter(|t| mine(&t.owner)) {
                bytes += words(&t.name, &t.aliases, &t.description) + props(&t.props);
                nums.push(t.num);
            }
        }
        bytes + nums.into_iter().map(|n| self.code_bytes(n)).sum::<usize>()
    }

    /// Refuses `who` text that would take what they own past their quota of bytes: `adding`
    /// bytes more, `dropping` fewer (what a change replaces).
    pub fn within_text(
        &self,
        who: &AgentId,
        adding: usize,
        dropping: usize,
    ) -> Result<(), Refused> {
        let quota = self.build_quota;
        let wizard = self.is_present(who) && self.player(who).wizard;
        let have = self.owned_text(&self.builder_of(who));
        if !wizard && (have + adding).saturating_sub(dropping) > quota.text_bytes {
            return Err(Refused(format!(
                "What you built holds {have} bytes of names and descriptions, and a builder may \
                 have {}: shorten or `@recycle` something first.",
                quota.text_bytes
            )));
        }
        Ok(())
    }

    /// Refuses `who` `more` objects past their quota. A command that makes several asks for
    /// them all before it makes any, so that a refusal leaves nothing made.
    pub fn within_quota(&self, who: &AgentId, more: usize) -> Result<(), Refused> {
        let quota = self.build_quota;
        let wizard = self.is_present(who) && self.player(who).wizard;
        let have = self.owned_count(&self.builder_of(who));
        if !wizard && have + more > quota.objects {
            let owned = match have {
                1 => "1 object".to_owned(),
                n => format!("{n} objects"),
            };
            return Err(Refused(format!(
                "You own {owned}, and a builder may own {}: `@recycle` one first.",
                quota.objects
            )));
        }
        Ok(())
    }

    /// Makes a room owned by `cx`'s actor, reached from nowhere yet; its index and number.
    pub fn dig(&mut self, cx: &mut Cx, name: &str) -> Result<(RoomIdx, ObjNum), Refused> {
        self.within_quota(&cx.actor, 1)?;
        self.within_text(&cx.actor, name.len(), 0)?;
        let num = self.map.take_num();
        let owner = self.builder_of(&cx.actor).to_string();
        let idx = self.add_room(Room {
            num,
            owner: Some(owner.clone()),
            gone: false,
            holder: None,
            props: Default::default(),
            id: format!("{BUILT_ROOM}{num}"),
            name: name.to_owned(),
            description: String::new(),
            exits: Vec::new(),
            things: Vec::new(),
        });
        let row = BuiltRow {
            num,
            kind: BuiltKind::Room,
            owner,
            name: name.to_owned(),
            aliases: Vec::new(),
            description: String::new(),
            place: None,
            dest: None,
            lock: None,
            thing_kind: None,
            props: Default::default(),
            created_ms: now_ms(),
            writable: false,
        };
        cx.save(built::build(row), move |w| w.undo_last_room(idx));
        Ok((idx, num))
    }

    /// Opens an exit `name` (with `aliases`) from room `from` to room `to`, owned by `cx`'s
    /// actor; its number.
    pub fn open_exit(
        &mut self,
        cx: &mut Cx,
        from: RoomIdx,
        name: &str,
        aliases: &[String],
        to: RoomIdx,
    ) -> Result<ObjNum, Refused> {
        self.within_quota(&cx.actor, 1)?;
        self.exit_free(from, name, aliases)?;
        let room = self.map.room(from);
        let place = room.id.clone();
        let num = self.map.take_num();
        let owner = self.builder_of(&cx.actor).to_string();
        let row = BuiltRow {
            num,
            kind: BuiltKind::Exit,
            owner,
            name: name.to_owned(),
            aliases: aliases.to_vec(),
            description: String::new(),
            place: Some(place),
            dest: Some(self.map.room(to).id.clone()),
            lock: None,
            thing_kind: None,
            props: Default::default(),
            created_ms: now_ms(),
            writable: false,
        };
        self.map.add_exit(from, exit_of(&row, to));
        cx.save(built::build(row), move |w| {
            w.map.rooms[from].exits.retain(|e| e.num != num);
            w.map.give_back(num);
        });
        Ok(num)
    }

    /// Refuses an exit from `room` called `name` or any of `aliases` where one is called so.
    pub fn exit_free(&self, room: RoomIdx, name: &str, aliases: &[String]) -> Result<(), Refused> {
        let room = self.map.room(room);
        match std::iter::once(name)
            .chain(aliases.iter().map(String::as_str))
            .find(|w| room.exit(w).is_some())
        {
            Some(taken) => Err(Refused(format!(
                "{} already has an exit called \"{taken}\".",
                room.name
            ))),
            None => Ok(()),
        }
    }

    /// Makes a thing called `name` in room `at`, owned by `cx`'s actor; its number.
    pub fn make_thing(
        &mut self,
        cx: &mut Cx,
        at: RoomIdx,
        name: &str,
        aliases: &[String],
        kind: Option<&str>,
    ) -> Result<ObjNum, Refused> {
        self.within_quota(&cx.actor, 1)?;
        let text = name.len() + aliases.iter().map(String::len).sum::<usize>();
        self.within_text(&cx.actor, text, 0)?;
        let num = self.map.take_num();
        let row = BuiltRow {
            num,
            kind: BuiltKind::Thing,
            owner: self.builder_of(&cx.actor).to_string(),
            name: name.to_owned(),
            aliases: aliases.to_vec(),
            description: String::new(),
            place: Some(self.map.room(at).id.clone()),
            dest: None,
            lock: None,
            thing_kind: kind.map(str::to_owned),
            props: Default::default(),
            created_ms: now_ms(),
            writable: false,
        };
        self.map.add_thing(at, thing_of(&row));
        cx.save(built::build(row), move |w| {
            w.map.rooms[at].things.retain(|t| t.num != num);
            w.map.give_back(num);
        });
        Ok(num)
    }

    /// Who owns the object `found` names (none: the town's own).
    pub fn owner_of(&self, found: Found) -> Option<&str> {
        match found {
            Found::Room(r) => self.map.room(r).owner.as_deref(),
            Found::Exit(r, k) => self.map.room(r).exits[k].owner.as_deref(),
            Found::Thing(r, k) => self.map.room(r).things[k].owner.as_deref(),
        }
    }

    /// Gives a built object `found` a new name or description (as `cx`'s actor, who may).
    /// The world files' own objects are the files': a wizard changes those in the files.
    pub fn reword(
        &mut self,
        cx: &mut Cx,
        found: Found,
        name: Option<&str>,
        description: Option<&str>,
    ) -> Result<(), Refused> {
        let owner = self.owner_of(found).map(str::to_owned);
        if !self.may_alter(&cx.actor, found) {
            return Err(Refused("That is not yours to change.".into()));
        }
        if owner.is_none() {
            return Err(Refused(
                "That is part of the town's own files: change it there (`moot world export`)."
                    .into(),
            ));
        }
        let (old_name, old_description): (&str, &str) = match found {
            Found::Room(r) => (&self.map.room(r).name, &self.map.room(r).description),
            // An exit has no description of its own.
            Found::Exit(r, k) => (&self.map.room(r).exits[k].name, ""),
            Found::Thing(r, k) => (
                &self.map.room(r).things[k].name,
                &self.map.room(r).things[k].description,
            ),
        };
        let adding = name.map_or(0, str::len) + description.map_or(0, str::len);
        let dropping =
            name.map_or(0, |_| old_name.len()) + description.map_or(0, |_| old_description.len());
        self.within_text(&cx.actor, adding, dropping)?;
        let num = self.num_of(found);
        let before = self.words_of(found);
        let after = Words {
            name: name.map_or_else(|| before.name.clone(), str::to_owned),
            aliases: before.aliases.clone(),
            // An exit has no description of its own to change.
            description: match found {
                Found::Exit(..) => before.description.clone(),
                _ => description.map_or_else(|| before.description.clone(), str::to_owned),
            },
        };
        self.set_words(found, after.clone());
        cx.save(
            built::reword(num, after.name, after.aliases, after.description),
            move |w| w.set_words(found, before),
        );
        Ok(())
    }

    /// The number of the object `found` names.
    pub fn num_of(&self, found: Found) -> ObjNum {
        match found {
            Found::Room(r) => self.map.room(r).num,
            Found::Exit(r, k) => self.map.room(r).exits[k].num,
            Found::Thing(r, k) => self.map.room(r).things[k].num,
        }
    }

    /// What `found` is called and how it reads (an exit: no description).
    fn words_of(&self, found: Found) -> Words {
        match found {
            Found::Room(r) => {
                let room = self.map.room(r);
                Words {
                    name: room.name.clone(),
                    aliases: Vec::new(),
                    description: room.description.clone(),
                }
            }
            Found::Exit(r, k) => {
                let exit = &self.map.room(r).exits[k];
                Words {
                    name: exit.name.clone(),
                    aliases: exit.aliases.clone(),
                    description: String::new(),
                }
            }
            Found::Thing(r, k) => {
                let thing = &self.map.room(r).things[k];
                Words {
                    name: thing.name.clone(),
                    aliases: thing.aliases.clone(),
                    description: thing.description.clone(),
                }
            }
        }
    }

    fn set_words(&mut self, found: Found, words: Words) {
        match found {
            Found::Room(r) => {
                let room = &mut self.map.rooms[r];
                room.name = words.name;
                room.description = words.description;
            }
            Found::Exit(r, k) => {
                let exit = &mut self.map.rooms[r].exits[k];
                exit.name = words.name;
                exit.aliases = words.aliases;
            }
            Found::Thing(r, k) => {
                let thing = &mut self.map.rooms[r].things[k];
                thing.name = words.name;
                thing.aliases = words.aliases;
                thing.description = words.description;
            }
        }
    }

    /// Takes back the room just added at `idx` (a dig whose write failed): it is the last
    /// room, since the world task undoes a command's changes before it runs another.
    pub(super) fn undo_last_room(&mut self, idx: RoomIdx) {
        if idx + 1 == self.map.rooms.len() {
            self.map.remove_last_room();
            self.occupants.pop();
        }
    }
}

fn exit_of(r: &BuiltRow, to: RoomIdx) -> Exit {
    Exit {
        num: r.num,
        owner: Some(r.owner.clone()),
        lock: r.lock.clone(),
        name: r.name.clone(),
        aliases: r.aliases.clone(),
        to,
    }
}

fn thing_of(r: &BuiltRow) -> Thing {
    Thing {
        num: r.num,
        owner: Some(r.owner.clone()),
        lock: r.lock.clone(),
        props: r.props.clone(),
        id: format!("built-thing-{}", r.num),
        name: r.name.clone(),
        aliases: r.aliases.clone(),
        description: r.description.clone(),
        kind: r
            .thing_kind
            .clone()
            .map_or(ThingKind::SCENERY, ThingKind::owned),
    }
}

impl World {
    /// Recycles the object `found` (as `cx`'s actor, who may): a thing or an exit goes; a room
    /// goes with its exits, the things of its owner's in it, and every exit that leads to it,
    /// once nobody is in it and nobody else's thing stands there. Its numbers are not given
    /// again. Everything taken is put back if the store refuses.
    pub fn recycle(&mut self, cx: &mut Cx, found: Found) -> Result<String, Refused> {
        let owner = self.owner_of(found).map(str::to_owned);
        if owner.is_none() {
            return Err(Refused(
                "That is part of the town's own files: it cannot be recycled.".into(),
            ));
        }
        if !self.may_change(&cx.actor, owner.as_deref()) {
            return Err(Refused("That is not yours to recycle.".into()));
        }
        // The rooms whose lists change, as they were, for the undo.
        let mut touched: Vec<RoomIdx> = Vec::new();
        let mut nums: Vec<ObjNum> = Vec::new();
        let said = match found {
            Found::Thing(r, k) => {
                touched.push(r);
                let t = &self.map.room(r).things[k];
                nums.push(t.num);
                format!("{} (#{}) is recycled.", t.name, t.num)
            }
            Found::Exit(r, k) => {
                touched.push(r);
                let e = &self.map.room(r).exits[k];
                nums.push(e.num);
                format!("Exit {} (#{}) is recycled.", e.name, e.num)
            }
            Found::Room(r) => {
                let room = self.map.room(r);
                if !self.occupants(r).is_empty() {
                    return Err(Refused(format!(
                        "Someone is in {}: it can be recycled once it is empty.",
                        room.name
                    )));
                }
                if let Some(t) = room.things.iter().find(|t| t.owner != owner) {
                    return Err(Refused(format!(
                        "{} is in {} and is not yours: it must go first.",
                        t.name, room.name
                    )));
                }
                if self.bound_rooms.values().any(|b| *b == r) {
                    return Err(Refused("That room belongs to a game.".into()));
                }
                nums.push(room.num);
                nums.extend(room.exits.iter().map(|e| e.num));
                nums.extend(room.things.iter().map(|t| t.num));
                touched.push(r);
                for (i, other) in self.map.rooms.iter().enumerate() {
                    if i != r && other.exits.iter().any(|e| e.to == r) {
                        touched.push(i);
                        nums.extend(other.exits.iter().filter(|e| e.to == r).map(|e| e.num));
                    }
                }
                format!("{} (#{}) is recycled, with its exits.", room.name, room.num)
            }
        };
        let before: Vec<(RoomIdx, Vec<Exit>, Vec<Thing>)> = touched
            .iter()
            .map(|&r| {
                let room = self.map.room(r);
                (r, room.exits.clone(), room.things.clone())
            })
            .collect();
        match found {
            Found::Thing(r, k) => {
                self.map.rooms[r].things.remove(k);
            }
            Found::Exit(r, k) => {
                self.map.rooms[r].exits.remove(k);
            }
            Found::Room(r) => {
                for room in &mut self.map.rooms {
                    room.exits.retain(|e| e.to != r);
                }
                let room = &mut self.map.rooms[r];
                room.exits.clear();
                room.things.clear();
                room.gone = true;
                self.map.forget_id(r);
            }
        }
        let verbs = self.drop_verbs(&nums);
        let forget = crate::store::programs::forget(nums.clone());
        let unbuild = built::unbuild(nums);
        cx.save(
            move |c| {
                unbuild(c)?;
                forget(c)
            },
            move |w| {
                w.put_back_verbs(verbs);
                for (r, exits, things) in before {
                    let room = &mut w.map.rooms[r];
                    room.exits = exits;
                    room.things = things;
                }
                if let Found::Room(r) = found {
                    w.map.rooms[r].gone = false;
                    w.map.remember_id(r);
                }
            },
        );
        Ok(said)
    }

    /// Moves the thing `found` into room `to`, as `cx`'s actor, who must own it.
    pub fn move_thing(&mut self, cx: &mut Cx, found: Found, to: RoomIdx) -> Result<(), Refused> {
        let Found::Thing(r, k) = found else {
            return Err(Refused("Only things can be moved.".into()));
        };
        let owner = self.owner_of(found).map(str::to_owned);
        if owner.is_none() || !self.may_change(&cx.actor, owner.as_deref()) {
            return Err(Refused("That is not yours to move.".into()));
        }
        if self.map.room(to).gone {
            return Err(Refused("That room is gone.".into()));
        }
        self.shift(cx, r, k, to);
        Ok(())
    }
}

impl World {
    /// Locks the exit or thing `found` to `to` (an agent id, or a key `#1004`: only they, or
    /// whoever carries the key, pass it or pick it up, besides its owner and the wizards), or
    /// unlocks it (`None`), as `cx`'s actor, who must own it.
    pub fn lock_exit(
        &mut self,
        cx: &mut Cx,
        found: Found,
        to: Option<String>,
    ) -> Result<(), Refused> {
        let owner = self.owner_of(found).map(str::to_owned);
        if owner.is_none() || !self.may_change(&cx.actor, owner.as_deref()) {
            return Err(Refused("That is not yours to lock.".into()));
        }
        let (num, lock) = match found {
            Found::Exit(r, k) => {
                let e = &mut self.map.rooms[r].exits[k];
                (e.num, &mut e.lock)
            }
            Found::Thing(r, k) => {
                let t = &mut self.map.rooms[r].things[k];
                (t.num, &mut t.lock)
            }
            Found::Room(_) => {
                return Err(Refused("A room cannot be locked; lock its exits.".into()));
            }
        };
        let before = std::mem::replace(lock, to.clone());
        cx.save(built::set_lock(num, to), move |w| {
            if let Some(found) = w.map.find_num(num) {
                match found {
                    Found::Exit(r, k) => w.map.rooms[r].exits[k].lock = before,
                    Found::Thing(r, k) => w.map.rooms[r].things[k].lock = before,
                    Found::Room(_) => {}
                }
            }
        });
        Ok(())
    }

    /// Whether `who` may pass `exit`: it is not locked, or its lock lets them by, or it is
    /// theirs, or they are a wizard.
    pub fn may_pass(&self, who: &AgentId, exit: &Exit) -> bool {
        self.unlocked_for(who, exit.lock.as_deref(), exit.owner.as_deref())
    }

    /// Whether a lock (`None`: none) lets `who` by: it names them, or a key (`#1004`) they
    /// carry; or what it locks is theirs, or they are a wizard.
    pub fn unlocked_for(&self, who: &AgentId, lock: Option<&str>, owner: Option<&str>) -> bool {
        let Some(k) = lock else { return true };
        let opens = match k.strip_prefix('#').and_then(|n| n.parse::<ObjNum>().ok()) {
            Some(key) => self.carries(who, key),
            None => k == who.as_ref(),
        };
        opens || self.may_change(who, owner)
    }
}

/// The most properties one object may hold.
pub const MAX_PROPS: usize = 32;
/// The longest a property's value may be, in characters.
pub const MAX_VALUE: usize = 1000;

impl World {
    /// Sets property `key` of the room or thing `found` to `value` (or removes it: `None`), as
    /// `cx`'s actor, who must own it.
    pub fn set_prop(
        &mut self,
        cx: &mut Cx,
        found: Found,
        key: &str,
        value: Option<&str>,
    ) -> Result<(), Refused> {
        let owner = self.owner_of(found).map(str::to_owned);
        if owner.is_none() || !self.may_alter(&cx.actor, found) {
            return Err(Refused("That is not yours to change.".into()));
        }
        self.write_prop(cx, found, key, value, owner.as_deref())
    }

    /// Sets a property of `found` for whoever may (checked by the caller): its owner's quota
    /// holds (`owner`; none for the town's own objects, whose properties the world files give
    /// and the `town_props` table keeps as they change).
    pub(super) fn write_prop(
        &mut self,
        cx: &mut Cx,
        found: Found,
        key: &str,
        value: Option<&str>,
        owner: Option<&str>,
    ) -> Result<(), Refused> {
        if value.is_some_and(|v| v.chars().count() > MAX_VALUE || v.chars().any(char::is_control)) {
            return Err(Refused(format!(
                "A property's value is one line of at most {MAX_VALUE} characters."
            )));
        }
        let (num, props) = match found {
            Found::Room(r) => (self.map.room(r).num, &self.map.room(r).props),
            Found::Thing(r, k) => {
                let t = &self.map.room(r).things[k];
                (t.num, &t.props)
            }
            Found::Exit(..) => return Err(Refused("An exit has no properties.".into())),
        };
        if value.is_some() && !props.contains_key(key) && props.len() >= MAX_PROPS {
            return Err(Refused(format!(
                "An object may hold at most {MAX_PROPS} properties."
            )));
        }
        let dropping = props.get(key).map_or(0, |v| key.len() + v.len());
        let adding = value.map_or(0, |v| key.len() + v.len());
        if let Some(owner) = owner {
            self.within_text(&AgentId::from(owner), adding, dropping)?;
        }
        let town_key = match found {
            _ if owner.is_some() => None,
            Found::Room(r) => Some(format!("room:{}", self.map.room(r).id)),
            Found::Thing(r, k) => Some(format!("thing:{}", self.map.room(r).things[k].id)),
            Found::Exit(..) => None,
        };
        let props = match found {
            Found::Room(r) => &mut self.map.rooms[r].props,
            Found::Thing(r, k) => &mut self.map.rooms[r].things[k].props,
            Found::Exit(..) => return Err(Refused("An exit has no properties.".into())),
        };
        let before = props.clone();
        match value {
            Some(v) => {
                props.insert(key.to_owned(), v.to_owned());
            }
            None => {
                props.remove(key);
            }
        }
        let now = props.clone();
        // Found again by its number: a thing may have moved since (carried, or moved by a verb).
        let undo = move |w: &mut World| match w.map.find_num(num) {
            Some(Found::Room(r)) => w.map.rooms[r].props = before,
            Some(Found::Thing(r, k)) => w.map.rooms[r].things[k].props = before,
            _ => {}
        };
        match town_key {
            Some(object) => cx.save(crate::store::built::set_town_props(object, now), undo),
            None => cx.save(built::set_props(num, now), undo),
        }
        Ok(())
    }

    /// Puts back what the town's own objects' properties became (`town_props`), as the town
    /// opens; an object the world files no longer have is passed over.
    pub fn restore_town_props(
        &mut self,
        rows: Vec<(String, std::collections::BTreeMap<String, String>)>,
    ) {
        for (object, props) in rows {
            let held = match object.split_once(':') {
                Some(("room", id)) => super::map::Held::Room(id.to_owned()),
                Some(("thing", id)) => super::map::Held::Thing(id.to_owned()),
                _ => continue,
            };
            match self.map.held(&held) {
                Some(Found::Room(r)) => self.map.rooms[r].props = props,
                Some(Found::Thing(r, k)) => self.map.rooms[r].things[k].props = props,
                _ => {}
            }
        }
    }
}
