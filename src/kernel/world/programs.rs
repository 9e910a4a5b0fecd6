//! Programmed verbs: code a programmer puts on an object they own (`@verb`, `@program`), kept
//! with its last few versions, and run when someone types it (`push button`).
//!
//! A run has three steps. Here, in the world: the verb is found, its owner's rate and the
//! number of runs at once are checked, and the objects around it are copied into a
//! [`Snapshot`]. Off the world task: the sandbox runs the code on the copy, within its limits,
//! so that a verb that loops until it is stopped holds up no one else ([`RunJob`]). Here again,
//! as one command: its deeds are done, each checked anew with its owner's rights, or, if one
//! cannot be done, none of them ([`World::finish_run`]). A verb acts with the rights of the
//! object's owner, never of whoever typed it.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::build::Refused;
use super::map::{Found, ObjNum, RoomIdx};
use super::{AgentId, Cx, Effect, World};
use crate::limits::Limiter;
use crate::sandbox::{self, Deed, Failure, Limits, Seen, Snapshot};
use crate::store::programs::{self as stored, VerbMode, VerbRow};

/// How many versions of a verb are kept (`@list #12:push 3` shows an older one).
pub const KEPT: usize = 5;
/// The most verbs one object may have.
pub const MAX_VERBS: usize = 20;
/// The most runs going at once in the town, and for one owner's verbs.
pub const MAX_RUNNING: usize = 8;
pub const MAX_RUNNING_EACH: usize = 2;

/// One version of a verb's code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub version: u32,
    pub code: Arc<str>,
    /// The agent id of whoever wrote it.
    pub author: String,
    pub created_ms: u64,
}

/// A verb: who may read and run it, and its kept versions, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeptVerb {
    pub mode: VerbMode,
    pub versions: Vec<Version>,
}

/// Code being typed after `@program #12:push`, a line at a time until a `.` alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editing {
    pub num: ObjNum,
    pub verb: String,
    pub code: String,
}

/// A run under way, that `@kill` can stop.
#[derive(Debug)]
pub struct Running {
    pub num: ObjNum,
    pub verb: String,
    /// Whose rights it acts with (the object's owner; none: the town's, for a verb the world
    /// files give), and who typed it.
    pub owner: Option<String>,
    pub player: AgentId,
    pub stop: Arc<AtomicBool>,
}

/// The town's programmed verbs and the runs under way.
pub struct Programs {
    /// By object and verb name.
    verbs: BTreeMap<(ObjNum, String), KeptVerb>,
    running: BTreeMap<u64, Running>,
    pub(super) limits: Limits,
    /// Runs per second of one owner's verbs, whoever typed them.
    rate: Limiter<String>,
}

impl std::fmt::Debug for Programs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // What a test's fingerprint compares: the verbs, not the runs under way (a run that
        // was refused leaves none).
        f.debug_struct("Programs")
            .field("verbs", &self.verbs)
            .field("limits", &self.limits)
            .finish()
    }
}

impl Default for Programs {
    fn default() -> Programs {
        Programs {
            verbs: BTreeMap::new(),
            running: BTreeMap::new(),
            limits: Limits::default(),
            rate: Limiter::new(5.0, 10),
        }
    }
}

/// How far programmed verbs may go: the sandbox's limits, and runs a second per owner (0: no
/// limit) with the burst.
#[derive(Debug, Clone, Copy)]
pub struct ProgramLimits {
    pub sandbox: Limits,
    pub rate: f64,
    pub burst: u32,
}

impl Default for ProgramLimits {
    fn default() -> ProgramLimits {
        ProgramLimits {
            sandbox: Limits::default(),
            rate: 5.0,
            burst: 10,
        }
    }
}

/// A run handed to the sandbox, off the world task.
pub struct RunJob {
    pub job: u64,
    pub code: Arc<str>,
    pub snapshot: Snapshot,
    pub limits: Limits,
    pub stop: Arc<AtomicBool>,
    /// Who does what it did: the object's owner, or the server for the town's own.
    pub owner: AgentId,
}

impl RunJob {
    /// Runs the code; what it would do, or why it did nothing.
    pub fn run(self) -> Result<Vec<Deed>, Failure> {
        sandbox::run(&self.code, self.snapshot, &self.limits, self.stop)
    }
}

/// A verb's name: a word of lowercase letters, digits and `_`, starting with a letter.
pub fn verb_name_ok(name: &str) -> bool {
    name.len() <= 20
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl World {
    /// How far programmed verbs may go (`--verb-ops`, `--verb-time`, `--verb-memory`,
    /// `--verb-rate`).
    pub fn limit_programs(&mut self, limits: ProgramLimits) {
        self.programs.limits = limits.sandbox;
        self.programs.rate = Limiter::new(limits.rate, limits.burst);
    }

    /// Puts the stored verbs back, as the town opens (a verb of an object that is gone stays
    /// in the store, unseen).
    pub fn restore_programs(&mut self, rows: Vec<VerbRow>) {
        for r in rows {
            let kept = self.programs.verbs.entry((r.num, r.name)).or_default();
            kept.mode = r.mode;
            kept.versions.push(Version {
                version: r.version,
                code: r.code.into(),
                author: r.author,
                created_ms: r.created_ms,
            });
            kept.versions.sort_by_key(|v| v.version);
        }
    }

    /// Puts the verbs the world files give their rooms and things into the town (version 1,
    /// written by nobody: the files).
    pub(super) fn restore_file_verbs(&mut self, verbs: Vec<super::map::FileVerb>) {
        for v in verbs {
            if let Some(found) = self.map.held(&v.held) {
                let num = self.num_of(found);
                self.programs.verbs.insert(
                    (num, v.name),
                    KeptVerb {
                        mode: v.mode,
                        versions: vec![Version {
                            version: 1,
                            code: v.code.into(),
                            author: String::new(),
                            created_ms: 0,
                        }],
                    },
                );
            }
        }
    }

    /// Whether `who` may program: a programmer, or a wizard.
    pub fn may_program(&self, who: &AgentId) -> bool {
        self.is_present(who) && {
            let p = self.player(who);
            p.programmer || p.wizard
        }
    }

    /// The names of the verbs on object `num`.
    pub fn verbs_on(&self, num: ObjNum) -> Vec<&str> {
        self.verbs_of(num).map(|(name, _)| name).collect()
    }

    /// The names of the verbs on object `num` that `who` may run.
    pub fn verbs_for(&self, who: &AgentId, num: ObjNum) -> Vec<&str> {
        let theirs = self.verb_is_theirs(who, num);
        self.verbs_of(num)
            .filter(|(_, k)| theirs || k.mode.runnable)
            .map(|(name, _)| name)
            .collect()
    }

    fn verbs_of(&self, num: ObjNum) -> impl Iterator<Item = (&str, &KeptVerb)> {
        self.programs
            .verbs
            .range((num, String::new())..)
            .take_while(move |((n, _), _)| *n == num)
            .map(|((_, name), kept)| (name.as_str(), kept))
    }

    /// Whether the verbs on `num` are `who`'s to read and run whatever their bits say: its
    /// owner's (or their agents'), and every wizard's.
    fn verb_is_theirs(&self, who: &AgentId, num: ObjNum) -> bool {
        let owner = self.map.find_num(num).and_then(|f| self.owner_of(f));
        self.may_change(who, owner)
    }

    /// Verb `name` on `num`'s bits (none: no such verb).
    pub fn verb_mode(&self, num: ObjNum, name: &str) -> Option<VerbMode> {
        self.programs
            .verbs
            .get(&(num, name.to_owned()))
            .map(|k| k.mode)
    }

    /// Whether `who` may read verb `name` on `num`'s code (`@list`).
    pub fn may_read_verb(&self, who: &AgentId, num: ObjNum, name: &str) -> bool {
        self.verb_mode(num, name)
            .is_some_and(|m| m.readable || self.verb_is_theirs(who, num))
    }

    /// Whether `who` may run verb `name` on `num` (there is one, and it is runnable or theirs).
    pub fn may_run_verb(&self, who: &AgentId, num: ObjNum, name: &str) -> bool {
        self.verb_mode(num, name)
            .is_some_and(|m| m.runnable || self.verb_is_theirs(who, num))
    }

    /// Sets who besides its owner may read and run verb `name` on `found`, as `cx`'s actor,
    /// who must be a programmer and own it (or a wizard).
    pub fn set_verb_mode(
        &mut self,
        cx: &mut Cx,
        found: Found,
        name: &str,
        mode: VerbMode,
    ) -> Result<(), Refused> {
        let num = self.may_program_on(cx, found)?;
        if !self.may_change(&cx.actor, self.owner_of(found)) {
            return Err(Refused(
                "Only the verb's owner (or a wizard) sets who may read and run it.".into(),
            ));
        }
        let key = (num, name.to_owned());
        let Some(kept) = self.programs.verbs.get_mut(&key) else {
            return Err(Refused(format!("#{num} has no verb called {name}.")));
        };
        let before = std::mem::replace(&mut kept.mode, mode);
        if before == mode {
            return Ok(());
        }
        cx.save(stored::set_mode(num, name.to_owned(), mode), move |w| {
            if let Some(k) = w.programs.verbs.get_mut(&key) {
                k.mode = before;
            }
        });
        Ok(())
    }

    /// Verb `name` on `num`: version `version` (the newest if none), and how many are kept.
    pub fn verb_code(
        &self,
        num: ObjNum,
        name: &str,
        version: Option<u32>,
    ) -> Option<(&Version, usize)> {
        let versions = &self.programs.verbs.get(&(num, name.to_owned()))?.versions;
        let v = match version {
            None => versions.last()?,
            Some(n) => versions.iter().find(|v| v.version == n)?,
        };
        Some((v, versions.len()))
    }

    /// The bytes of code kept for the verbs on `num`, every kept version counted.
    pub fn code_bytes(&self, num: ObjNum) -> usize {
        self.verbs_of(num)
            .flat_map(|(_, kept)| kept.versions.iter().map(|v| v.code.len()))
            .sum()
    }

    /// The versions of verb `name` on `num` that are kept, oldest first.
    pub fn verb_versions(&self, num: ObjNum, name: &str) -> Vec<u32> {
        self.programs
            .verbs
            .get(&(num, name.to_owned()))
            .map(|k| k.versions.iter().map(|v| v.version).collect())
            .unwrap_or_default()
    }

    /// Refuses `cx`'s actor a change to the code on `found` unless they may program and own it.
    pub fn may_program_on(&self, cx: &Cx, found: Found) -> Result<ObjNum, Refused> {
        if !self.may_program(&cx.actor) {
            return Err(Refused(
                "Only programmers may do that; a wizard can make you one.".into(),
            ));
        }
        if let Found::Exit(..) = found {
            return Err(Refused(
                "Exits have no verbs: put it on a thing or a room.".into(),
            ));
        }
        let owner = self.owner_of(found).map(str::to_owned);
        if owner.is_none() {
            return Err(Refused(
                "That is part of the town's own files: its verbs are written there.".into(),
            ));
        }
        if !self.may_alter(&cx.actor, found) {
            return Err(Refused("That is not yours to program.".into()));
        }
        Ok(self.num_of(found))
    }

    /// Refuses `cx`'s actor new code for verb `name` on `found` unless they may program it
    /// (see [`World::may_program_on`]) and the verb is there for them: one kept from them
    /// (`-r -x`) is not, and one whose code is hidden (`-r`) is its owner's alone to rewrite,
    /// whoever else may change the object (`+w`).
    pub fn may_reprogram(&self, cx: &Cx, found: Found, name: &str) -> Result<ObjNum, Refused> {
        let num = self.may_program_on(cx, found)?;
        let reads = self.may_read_verb(&cx.actor, num, name);
        if !reads && !self.may_run_verb(&cx.actor, num, name) {
            return Err(Refused(format!(
                "#{num} has no verb called {name}: `@verb #{num} {name}` adds it."
            )));
        }
        if !reads {
            return Err(Refused(format!(
                "#{num}:{name}'s code is its owner's (it is -r): only they rewrite it."
            )));
        }
        Ok(num)
    }

    /// Adds verb `name` (with no code yet) to `found`.
    pub fn add_verb(&mut self, cx: &mut Cx, found: Found, name: &str) -> Result<ObjNum, Refused> {
        let num = self.may_program_on(cx, found)?;
        if !verb_name_ok(name) {
            return Err(Refused(format!(
                "\"{name}\" cannot be a verb's name: one word of lowercase letters, digits and _, \
                 at most 20."
            )));
        }
        if self.verb_code(num, name, None).is_some() {
            return Err(Refused(format!("#{num} already has a verb called {name}.")));
        }
        if self.verbs_on(num).len() >= MAX_VERBS {
            return Err(Refused(format!(
                "An object may have at most {MAX_VERBS} verbs."
            )));
        }
        self.write_version(cx, num, name, String::new())?;
        Ok(num)
    }

    /// Gives verb `name` on `found` new code, checked to compile; its version number.
    pub fn program(
        &mut self,
        cx: &mut Cx,
        found: Found,
        name: &str,
        code: &str,
    ) -> Result<u32, Refused> {
        let num = self.may_reprogram(cx, found, name)?;
        sandbox::check(code).map_err(|e| Refused(format!("That does not compile: {e}")))?;
        self.write_version(cx, num, name, code.to_owned())
    }

    /// Stores `code` as the next version of `num:name`, keeping the last [`KEPT`].
    fn write_version(
        &mut self,
        cx: &mut Cx,
        num: ObjNum,
        name: &str,
        code: String,
    ) -> Result<u32, Refused> {
        let key = (num, name.to_owned());
        let before = self.programs.verbs.get(&key).cloned();
        // Every kept version counts against the quota; the oldest goes when one more is kept.
        let dropping = before
            .as_ref()
            .filter(|k| k.versions.len() >= KEPT)
            .and_then(|k| k.versions.first())
            .map_or(0, |v| v.code.len());
        self.within_text(&cx.actor, code.len(), dropping)?;
        // `@verb` stores version 0, with no code; each `@program` the next.
        let version = before
            .as_ref()
            .and_then(|k| k.versions.last())
            .map_or(0, |v| v.version + 1);
        let row = VerbRow {
            num,
            name: name.to_owned(),
            version,
            code: code.clone(),
            author: cx.actor.to_string(),
            created_ms: now_ms(),
            mode: before.as_ref().map(|k| k.mode).unwrap_or_default(),
        };
        let versions = &mut self.programs.verbs.entry(key.clone()).or_default().versions;
        versions.push(Version {
            version,
            code: code.into(),
            author: row.author.clone(),
            created_ms: row.created_ms,
        });
        let excess = versions.len().saturating_sub(KEPT);
        versions.drain(..excess);
        cx.save(stored::write(row, KEPT), move |w| match before {
            Some(v) => {
                w.programs.verbs.insert(key, v);
            }
            None => {
                w.programs.verbs.remove(&key);
            }
        });
        Ok(version)
    }

    /// Takes away the verbs of objects `nums` (recycled), with what puts them back.
    pub(super) fn drop_verbs(&mut self, nums: &[ObjNum]) -> Vec<((ObjNum, String), KeptVerb)> {
        let keys: Vec<(ObjNum, String)> = self
            .programs
            .verbs
            .keys()
            .filter(|(n, _)| nums.contains(n))
            .cloned()
            .collect();
        keys.into_iter()
            .filter_map(|k| self.programs.verbs.remove(&k).map(|v| (k, v)))
            .collect()
    }

    pub(super) fn put_back_verbs(&mut self, verbs: Vec<((ObjNum, String), KeptVerb)>) {
        self.programs.verbs.extend(verbs);
    }

    /// The programmed verb `word` that a line typed by `actor` names, if any: on the thing the
    /// rest of the line names here (`push button`), else on the room they stand in.
    pub fn programmed_verb(&self, actor: &AgentId, word: &str, rest: &str) -> Option<ObjNum> {
        let word = word.to_ascii_lowercase();
        let room = self.find_player(actor)?.room;
        let r = self.map.room(room);
        // A verb its owner keeps to themself (`-x`) is no verb to anyone else.
        let has = |num: ObjNum| self.may_run_verb(actor, num, &word);
        let rest = rest.trim();
        if !rest.is_empty() {
            // The thing is named by all the words, or the first (`push button hard`), or the
            // last (`write hello on board`).
            let first = rest.split_whitespace().next().unwrap_or("");
            let last = rest.split_whitespace().last().unwrap_or("");
            // What they carry, then what stands here.
            let carried = self
                .pocket_of(actor)
                .map(|p| self.map.room(p).things.as_slice())
                .unwrap_or_default();
            let named = carried.iter().chain(&r.things).find(|t| {
                has(t.num)
                    && (t.names().any(|n| {
                        n.eq_ignore_ascii_case(rest)
                            || n.eq_ignore_ascii_case(first)
                            || n.eq_ignore_ascii_case(last)
                    }) || rest.strip_prefix('#').and_then(|n| n.parse().ok()) == Some(t.num))
            });
            if let Some(t) = named {
                return Some(t.num);
            }
        }
        has(r.num).then_some(r.num)
    }

    /// Starts verb `name` of object `found` for `cx`'s actor with `words`; the run's number.
    /// What it does arrives later, as one command ([`World::finish_run`]).
    pub fn start_run(
        &mut self,
        cx: &mut Cx,
        found: Found,
        name: &str,
        words: Vec<String>,
    ) -> Result<u64, Refused> {
        let num = self.num_of(found);
        let Some((version, _)) = self
            .verb_code(num, name, None)
            .filter(|_| self.may_run_verb(&cx.actor, num, name))
        else {
            return Err(Refused(format!("#{num} has no verb called {name}.")));
        };
        // A game that keeps someone apart from the town (a Werewolf match) keeps their verbs in.
        if let Some(why) = self.kept_from_town(&cx.actor) {
            return Err(Refused(why));
        }
        let code = version.code.clone();
        // The town's own verbs (the world files') are each their own owner, for the limits.
        let owner = self.owner_of(found).map(str::to_owned);
        let key = owner.clone().unwrap_or_else(|| format!("#{num}"));
        let alike = |r: &&Running| r.owner == owner && (owner.is_some() || r.num == num);
        let typed = |r: &&Running| super::same_agent(&r.player, &cx.actor);
        if self.programs.running.len() >= MAX_RUNNING
            || self.programs.running.values().filter(alike).count() >= MAX_RUNNING_EACH
            || self.programs.running.values().filter(typed).count() >= MAX_RUNNING_EACH
        {
            return Err(Refused(
                "Too many verbs are running just now; try again in a moment.".into(),
            ));
        }
        if let Err(wait) = self.programs.rate.take(&key, cx.now) {
            return Err(Refused(format!(
                "This object's owner's verbs have run too often; try again in {}.",
                crate::limits::seconds(wait)
            )));
        }
        let snapshot = self.snapshot(&cx.actor, found, owner.as_deref(), name, words);
        // A run's number is drawn at random: counted up, it would tell anyone how many verbs
        // the town runs.
        let mut job = u64::from(rand::random::<u32>());
        while self.programs.running.contains_key(&job) {
            job = u64::from(rand::random::<u32>());
        }
        let stop = Arc::new(AtomicBool::new(false));
        self.programs.running.insert(
            job,
            Running {
                num,
                verb: name.to_owned(),
                owner: owner.clone(),
                player: cx.actor.clone(),
                stop: stop.clone(),
            },
        );
        cx.undo(move |w| {
            w.programs.running.remove(&job);
        });
        cx.effects.push(Effect::Run(Box::new(RunJob {
            job,
            code,
            snapshot,
            limits: self.programs.limits,
            stop,
            owner: owner.as_deref().unwrap_or(super::SERVER_ID).into(),
        })));
        Ok(job)
    }

    /// The objects a run of a verb on `found`, typed by `actor`, may see.
    fn snapshot(
        &mut self,
        actor: &AgentId,
        found: Found,
        owner: Option<&str>,
        verb: &str,
        words: Vec<String>,
    ) -> Snapshot {
        let this_room = match found {
            Found::Room(r) | Found::Exit(r, _) | Found::Thing(r, _) => r,
        };
        let player_room = self.player(actor).room;
        let mut snap = Snapshot {
            this: self.num_of(found),
            player: self.player(actor).name.clone(),
            player_room: self.map.room(player_room).num,
            verb: verb.to_owned(),
            words,
            now: (now_ms() / 1000) as i64,
            seed: self.draw_seed(),
            ..Snapshot::default()
        };
        let mine = |o: &Option<String>| o.as_deref() == owner;
        let mut rooms: Vec<RoomIdx> = vec![this_room];
        if player_room != this_room {
            rooms.push(player_room);
        }
        for r in rooms {
            let room = self.map.room(r);
            let mut contents = Vec::new();
            for t in &room.things {
                contents.push(t.num);
                snap.objects.insert(
                    t.num,
                    Seen {
                        kind: "thing",
                        name: t.name.clone(),
                        description: t.description.clone(),
                        props: t.props.clone(),
                        location: Some(room.num),
                        contents: Vec::new(),
                        writable: mine(&t.owner),
                    },
                );
            }
            for e in &room.exits {
                contents.push(e.num);
                snap.objects.insert(
                    e.num,
                    Seen {
                        kind: "exit",
                        name: e.name.clone(),
                        location: Some(room.num),
                        ..Seen::default()
                    },
                );
            }
            snap.objects.insert(
                room.num,
                Seen {
                    kind: if room.holder.is_some() {
                        "pocket"
                    } else {
                        "room"
                    },
                    name: room.name.clone(),
                    description: room.description.clone(),
                    props: room.props.clone(),
                    location: None,
                    contents,
                    writable: mine(&room.owner),
                },
            );
            let people = self
                .occupants(r)
                .iter()
                .map(|id| self.player(id).name.clone())
                .collect();
            snap.people.insert(room.num, people);
        }
        snap
    }

    /// Does what run `job` would do, as one command with its owner's rights (`cx`'s actor is
    /// the owner), or nothing if any of it cannot be done; tells whoever typed it (and the
    /// owner) why not.
    pub fn finish_run(&mut self, cx: &mut Cx, job: u64, outcome: Result<Vec<Deed>, Failure>) {
        let Some(run) = self.programs.running.remove(&job) else {
            return;
        };
        let failure = match outcome {
            Ok(deeds) => match self.do_deeds(cx, &run, deeds) {
                Ok(()) => return,
                Err(Refused(why)) => {
                    cx.roll_back(self);
                    Failure::Error(why)
                }
            },
            Err(f) => f,
        };
        let what = format!("#{}:{}", run.num, run.verb);
        // Why, in words the code may have chosen (`throw`): one short line, cleaned.
        let why: String = crate::text::clean(&failure.to_string())
            .chars()
            .take(300)
            .collect();
        if self.is_present(&run.player) && self.deaf_to_town(&run.player).is_none() {
            cx.tell(&run.player, format!("[{what} did nothing: {why}.]"));
        }
        if let Some(owner) = run.owner.as_deref().map(AgentId::from)
            && !super::same_agent(&owner, &run.player)
            && self.is_present(&owner)
            && self.deaf_to_town(&owner).is_none()
        {
            let who = self
                .directory
                .name_of(&run.player)
                .unwrap_or_else(|| "someone gone".to_owned());
            cx.tell(
                &owner,
                format!("[Your {what}, typed by {who}, did nothing: {why}.]"),
            );
        }
    }

    fn do_deeds(&mut self, cx: &mut Cx, run: &Running, deeds: Vec<Deed>) -> Result<(), Refused> {
        for deed in deeds {
            match deed {
                Deed::Tell { to, line } => {
                    let Some(id) = self.directory.id_of(&to) else {
                        continue;
                    };
                    let id: AgentId = id.as_str().into();
                    // Nobody a game keeps apart from the town hears a verb.
                    if self.is_present(&id) && self.deaf_to_town(&id).is_none() {
                        cx.tell(&id, crate::wrap::set_in_if_marked(&line).into_owned());
                    }
                }
                Deed::Say { room, line } => {
                    let Some(Found::Room(r)) = self.map.find_num(room) else {
                        return Err(Refused(format!("#{room} is gone")));
                    };
                    let r = self.outside(r);
                    let line: Arc<str> = crate::wrap::set_in_if_marked(&line).into_owned().into();
                    self.tell_hearers(cx, r, None, line);
                }
                Deed::Set { obj, key, value } => {
                    let found = self.reach(obj, run.owner.as_deref())?;
                    self.write_prop(cx, found, &key, value.as_deref(), run.owner.as_deref())?;
                }
                Deed::Move { obj, to } => {
                    let found = self.reach(obj, run.owner.as_deref())?;
                    if run.owner.is_none() {
                        return Err(Refused(format!(
                            "#{obj} is the town's own: it stays where the world files put it"
                        )));
                    }
                    let Some(Found::Room(to)) = self.map.find_num(to) else {
                        return Err(Refused(format!("#{to} is not a room any more")));
                    };
                    self.move_thing(cx, found, to)?;
                }
            }
        }
        Ok(())
    }

    /// Object `num`, if it is still there and `owner`'s (none: the town's own).
    fn reach(&self, num: ObjNum, owner: Option<&str>) -> Result<Found, Refused> {
        let found = self
            .map
            .find_num(num)
            .ok_or_else(|| Refused(format!("#{num} is gone")))?;
        if self.owner_of(found) != owner {
            return Err(Refused(format!("#{num} is not the verb's owner's")));
        }
        Ok(found)
    }

    /// Stops the runs `cx`'s actor may stop (their own verbs', or any, for a wizard), or only
    /// run `job`; how many.
    pub fn kill_runs(&mut self, cx: &Cx, job: Option<u64>) -> usize {
        let wizard = self.is_present(&cx.actor) && self.player(&cx.actor).wizard;
        let mine = self.builder_of(&cx.actor);
        let mut n = 0;
        for (j, r) in &self.programs.running {
            let theirs = wizard
                || r.owner.as_deref() == Some(&*mine)
                || super::same_agent(&r.player, &cx.actor);
            if theirs && job.is_none_or(|k| k == *j) {
                r.stop.store(true, Ordering::Relaxed);
                n += 1;
            }
        }
        n
    }
}
