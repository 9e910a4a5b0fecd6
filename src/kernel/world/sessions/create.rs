//! Starting a session: the template, who plays which role (each checked), the room it
//! stands in, and its first row in the log.

use std::collections::BTreeMap;

use serde_json::Value;

use super::invite::Plan;
use super::{Created, ErrorCode, HostError, Participant, Session, SessionId, iso};
use crate::game_api::{Reckoning, Template};
use crate::store::sessions::SessionRow;
use crate::store::writes;
use crate::world::{AgentId, Cx, RoomIdx, World};

/// Who has agreed to a session being started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Seating {
    /// Its creator only: anyone else it names is asked first.
    Asked,
    /// Everyone, each earlier and in their own words (a game opened for anyone, joined).
    Agreed,
    /// Each player asked the town to seat them (a Werewolf notice board).
    Town,
    /// Each player joined an event that pairs them, and the event (not one of them) starts
    /// the game: a tournament's round.
    Paired,
}

/// Where a session everyone agreed to may begin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// On one of the town's game worlds, where it has one alive (see [`super::begins`]).
    Anywhere,
    /// In this world: its verb plays it in the same command, or it is begun on behalf of
    /// another world already (a tournament's round, a begin handed over).
    Here,
}

/// A new session a call handed to a game world would begin, as the town weighs it
/// ([`World::admit_handed`]).
#[derive(Debug, Clone, Copy)]
pub struct Begins<'a> {
    /// Its game's template, where the call names it.
    pub template: Option<&'a str>,
}

/// A session a call handed to a game world is making for its caller, admitted by
/// [`World::admit_handed`]: it counts toward their running sessions (and, for a match that
/// keeps its players, as the one they play) until its call is answered ([`World::handed`]),
/// so that many asked at once, on any face, do not pass the limits together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Handing(u64);

/// What the town keeps of a [`Handing`].
#[derive(Debug)]
pub(in crate::world) struct Making {
    handing: Handing,
    secludes: bool,
    /// Its id once placed: from when the town holds its copy, the copy counts instead.
    session: Option<SessionId>,
}

impl World {
    /// The room where sessions of `template` stand: the room with the matching table.
    pub(super) fn room_for(&self, t: &Template) -> Option<RoomIdx> {
        self.map
            .rooms
            .iter()
            .position(|r| r.things.iter().any(|th| th.kind.name() == t.table))
    }

    /// Starts a session. `participants` maps each role to an agent id; the creator must be one.
    pub fn create_session(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        self.create(
            cx,
            None,
            template,
            participants,
            options,
            Seating::Asked,
            None,
            Place::Anywhere,
        )
    }

    /// [`World::create_session`], begun in this world whatever game worlds the town has: for
    /// a verb that plays or reads the new session in the same command (a blackjack deal).
    pub fn create_session_here(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        self.create(
            cx,
            None,
            template,
            participants,
            options,
            Seating::Asked,
            None,
            Place::Here,
        )
    }

    /// Sets aside a session id for a game that begins later (one waiting for its second player).
    pub fn reserve_session_id(&mut self) -> SessionId {
        let id = self.next_session;
        self.next_session = id.next();
        id
    }

    /// The next session made here is `id`: a game world makes each session under the id its
    /// town gave it (the town numbers them all, so that no two worlds give one id twice).
    pub fn next_session_is(&mut self, id: SessionId) {
        self.next_session = id;
    }

    /// Keeps `id` set aside, as it was before a restart: no later session takes it.
    pub fn keep_session_id(&mut self, id: SessionId) {
        self.next_session = self.next_session.max(id.next());
    }

    /// Starts a session everyone in it has already agreed to, under the id set aside when
    /// its first player asked for it: a game someone opened for anyone to join, joined.
    pub fn create_agreed_session(
        &mut self,
        cx: &mut Cx,
        reserved: SessionId,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        let seating = Seating::Agreed;
        self.create(
            cx,
            Some(reserved),
            template,
            participants,
            options,
            seating,
            None,
            Place::Here,
        )
    }

    /// [`World::create_session`] with the verb's own words for whom it invites (a chess
    /// challenge shows each side the other's rating).
    pub fn create_session_worded(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
        wording: String,
    ) -> Result<Created, HostError> {
        let seating = Seating::Asked;
        self.create(
            cx,
            None,
            template,
            participants,
            options,
            seating,
            Some(wording),
            Place::Anywhere,
        )
    }

    /// A session the town itself starts for people who each asked to play (a Werewolf match
    /// from its notice board), where a caller may put nobody but themselves and the house's
    /// players into a game that keeps its players from the town.
    pub fn create_town_session(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        self.create(
            cx,
            None,
            template,
            participants,
            options,
            Seating::Town,
            None,
            Place::Anywhere,
        )
    }

    /// A game of a tournament's round: both players joined the event, which pairs them, so
    /// neither is asked again and the actor (whoever's move ended the last round) need not
    /// be one of them.
    pub fn create_paired_session(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
    ) -> Result<Created, HostError> {
        self.create(
            cx,
            None,
            template,
            participants,
            options,
            Seating::Paired,
            None,
            Place::Here,
        )
    }

    /// Starts the session, or, where it names anyone besides its creator and the house (and
    /// the town did not seat them itself), invites them: see [`super::invite`].
    #[expect(
        clippy::too_many_arguments,
        reason = "each caller's own few, in one place"
    )]
    pub(super) fn create(
        &mut self,
        cx: &mut Cx,
        reserved: Option<SessionId>,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
        seating: Seating,
        wording: Option<String>,
        place: Place,
    ) -> Result<Created, HostError> {
        let plan = self.plan(cx, template, participants, options, seating)?;
        let asks_others = plan
            .participants
            .iter()
            .any(|p| p.agent != cx.actor && !crate::world::is_house(&p.agent));
        if seating != Seating::Paired {
            self.may_start(&cx.actor)?;
        }
        if asks_others && seating == Seating::Asked {
            return self.invite(cx, reserved, plan, wording);
        }
        // Everyone agreed: where the town has game worlds, it begins on one.
        if place == Place::Anywhere && self.places_what_it_seats() {
            return self.begin_elsewhere(cx, reserved, &plan);
        }
        self.start(cx, reserved, &plan)
    }

    /// Whether `agent` may start another session, with as many running as they have: the
    /// sessions of the town's game worlds count too (the town holds a copy of each).
    fn may_start(&self, agent: &str) -> Result<(), HostError> {
        let running = self.running_sessions_of(agent);
        if self.max_sessions > 0 && running >= self.max_sessions {
            return Err(HostError::new(
                ErrorCode::Conflict,
                format!(
                    "You already take part in {running} running sessions; finish some before \
                     you start another"
                ),
            ));
        }
        Ok(())
    }

    /// Whether `who` may do what a call handed to a game world does (a change; a new session,
    /// if it `begins` one): the limits each identity has are the town's, counted across every
    /// world, and so is the match a game that secludes its players keeps them in (one at a
    /// time, on whichever world it is played); a call over them is answered here as it would
    /// be if it stayed. A new session admitted counts from now on: its [`Handing`], to give
    /// back ([`World::handed`]) once its call is answered (or gone with `cx`, if what came
    /// before it is undone: its call is answered as not done, and nobody gives it back).
    pub fn admit_handed(
        &mut self,
        cx: &mut Cx,
        who: &AgentId,
        begins: Option<Begins<'_>>,
    ) -> Result<Option<Handing>, HostError> {
        let now = cx.now;
        let Some(begins) = begins else {
            self.admit_write(who, now)?;
            return Ok(None);
        };
        self.may_start(who)?;
        let secludes = begins
            .template
            .and_then(|t| self.template(t))
            .is_some_and(|t| t.secludes);
        if secludes {
            self.not_kept(who)?;
        }
        self.admit_write(who, now)?;
        let f = &mut self.following;
        f.handings += 1;
        let handing = Handing(f.handings);
        f.making.entry(who.clone()).or_default().push(Making {
            handing,
            secludes,
            session: None,
        });
        let who = who.clone();
        cx.undo(move |w| w.handed(&who, handing));
        Ok(Some(handing))
    }

    /// Notes the id `handing`'s session was placed under.
    pub fn place_handed(&mut self, who: &AgentId, handing: Handing, id: SessionId) {
        if let Some(m) = self
            .following
            .making
            .get_mut(who)
            .and_then(|all| all.iter_mut().find(|m| m.handing == handing))
        {
            m.session = Some(id);
        }
    }

    /// `handing`'s call is answered: it counts no more (its session, if made, counts as the
    /// copy the town holds).
    pub fn handed(&mut self, who: &AgentId, handing: Handing) {
        if let Some(all) = self.following.making.get_mut(who) {
            all.retain(|m| m.handing != handing);
            if all.is_empty() {
                self.following.making.remove(who);
            }
        }
    }

    /// The sessions calls handed to game worlds are making for `agent`, but those the town
    /// holds copies of already (counted as sessions).
    fn making_for<'a>(&'a self, agent: &str) -> impl Iterator<Item = &'a Making> + 'a {
        self.following
            .making
            .get(agent)
            .into_iter()
            .flatten()
            .filter(|m| m.session.is_none_or(|id| !self.sessions.contains_key(&id)))
    }

    /// Whether a call handed to a game world is making `agent` a match that keeps its
    /// players from the town (they play one at a time).
    pub fn making_a_match(&self, agent: &str) -> bool {
        self.making_for(agent).any(|m| m.secludes)
    }

    /// Refused while a match keeps `who` from the town (they play one at a time), or one the
    /// town seated them in waits for its game world to make it, or one is being made for them
    /// on a game world.
    fn not_kept(&self, who: &AgentId) -> Result<(), HostError> {
        let keeping = self.secluded.get(who).copied();
        match keeping.or_else(|| self.secluding_begin_of(who)) {
            Some(sid) => Err(HostError::new(
                ErrorCode::Conflict,
                format!("You are playing in match {sid}; finish it first"),
            )),
            None if self.making_a_match(who) => Err(HostError::new(
                ErrorCode::Conflict,
                "You are starting a match already; finish it first",
            )),
            None => Ok(()),
        }
    }

    /// Tells the town that session `id` (kept already) has begun: whoever stands where it
    /// stands but its maker, its players (woken), everyone who follows it, and what its game
    /// says at the start to whom it may.
    pub(super) fn tell_begun(&mut self, cx: &mut Cx, id: SessionId) {
        let Some(s) = self.sessions.get(&id) else {
            return;
        };
        // Its game by title ("a new chess game"), not the template's id (`chess.v1`).
        let (players, template) = (s.players_line(), s.template.title);
        if let Some(room) = s.room {
            let line = format!("A new {template} game begins here: #{id}, {players}.");
            self.tell_bystanders(cx, s, room, line);
        }
        super::invite::wake_players(cx, &s.participants);
        let maker = cx.actor.clone();
        let news = format!("#{id}: a new {template} game: {players}.");
        self.announce(cx, &maker, id, news, &[]);
        let opening = self
            .session(id)
            .map(|s| s.game.opening_notes())
            .unwrap_or_default();
        self.tell_notes(cx, id, &opening);
    }

    /// How many running sessions `agent` plays in.
    pub(super) fn running_sessions_of(&self, agent: &str) -> usize {
        let running = self
            .sessions_played_by(agent)
            .filter(|s| !s.game.is_terminal())
            .count();
        // Those waiting for a game world to make them count as begun, and so do those being
        // made there.
        running + self.begins_of(agent) + self.making_for(agent).count()
    }

    /// Checks what a session asks for: its template, every role filled by a distinct known
    /// identity, its creator among them, and (if rated) that it can be.
    fn plan(
        &mut self,
        cx: &mut Cx,
        template: &str,
        participants: &BTreeMap<String, String>,
        options: Value,
        seating: Seating,
    ) -> Result<Plan, HostError> {
        let by_town = seating == Seating::Town;
        let invalid = |m: String| HostError::new(ErrorCode::InvalidRequest, m);
        let t = self.template(template).ok_or_else(|| {
            let known: Vec<&str> = self.templates().map(|t| t.id).collect();
            invalid(format!(
                "Unknown template `{template}`; known: {}",
                known.join(", ")
            ))
        })?;
        let (options, rated) = take_rated(options)?;
        let (options, deal) = take_deal(options)?;
        if deal.is_some() && t.reckoning == crate::game_api::Reckoning::Record {
            // A game of luck keeps a record of every game, rated or not: a known deal (the
            // house's every choice, every card) would buy it.
            return Err(invalid(format!(
                "{} keeps a record of every game, so its `deal` cannot be chosen",
                t.id
            )));
        }
        if rated && deal.is_some() {
            // Whoever chose the deal knows it (and the computer's every choice with it): such
            // a game is never rated, or a known line could be bought again and again.
            return Err(invalid(
                "A game whose `deal` was chosen cannot be rated: whoever chose it knows it".into(),
            ));
        }
        // Options are checked now, so that a bad one is refused to whoever asked, not to
        // whoever accepts (the game itself is made when it begins, with its seed).
        let probe = (t.new)(0, &options)?;
        if let Some(extra) = participants.keys().find(|r| !t.roles.contains(&r.as_str())) {
            return Err(invalid(format!(
                "{} has no role `{extra}`; its roles are {}",
                t.id,
                t.roles.join(", ")
            )));
        }
        let mut parts = Vec::new();
        for role in t.roles {
            let agent = participants
                .get(*role)
                .ok_or_else(|| invalid(format!("Role `{role}` is not filled")))?;
            if agent == crate::world::SERVER_ID {
                // The server acts only at deadlines, never for a role: a session waiting on it
                // would wait for good.
                return Err(invalid(format!(
                    "`{agent}` is the server's own identity and cannot take a role"
                )));
            }
            let name = self
                .directory
                .name_of(agent)
                .ok_or_else(|| invalid(format!("Unknown agent `{agent}`")))?;
            if parts
                .iter()
                .any(|p: &Participant| &*p.agent == agent.as_str())
            {
                return Err(invalid(format!("Agent `{agent}` cannot take two roles")));
            }
            parts.push(Participant {
                role,
                agent: agent.as_str().into(),
                name,
            });
        }
        if seating != Seating::Paired && !parts.iter().any(|p| p.agent == cx.actor) {
            return Err(HostError::new(
                ErrorCode::Forbidden,
                "You must be one of the participants",
            ));
        }
        if rated {
            can_be_rated(t, &options, probe.as_ref(), &parts, self.external_engine)?;
        }
        // A game that keeps its players from the town (Werewolf) is joined by each player
        // themselves: nobody can make others deaf to the town, nor be kept by two at once.
        if t.secludes && !by_town {
            if let Some(p) = parts
                .iter()
                .find(|p| p.agent != cx.actor && !crate::world::is_house(&p.agent))
            {
                return Err(HostError::new(
                    ErrorCode::Forbidden,
                    format!(
                        "You cannot put {} in a {} match: its players hear nothing of the town \
                         while it runs, so each joins it themselves (the notice board)",
                        p.name, t.title
                    ),
                ));
            }
            self.not_kept(&cx.actor)?;
        }
        Ok(Plan {
            template: t,
            participants: parts,
            options,
            rated,
            deal,
        })
    }

    /// Begins the session `plan` describes, everyone in it having agreed.
    pub(super) fn start(
        &mut self,
        cx: &mut Cx,
        reserved: Option<SessionId>,
        plan: &Plan,
    ) -> Result<Created, HostError> {
        let (t, rated) = (plan.template, plan.rated);
        let options = plan.options.clone();
        let parts = plan.participants.clone();
        let seed = plan.deal.unwrap_or_else(|| self.draw_seed());
        let game = (t.new)(seed, &options)?;
        let id = reserved.unwrap_or_else(|| self.reserve_session_id());
        let started = self.wall_now();
        let created_at = iso(started);
        let row = SessionRow {
            session_id: id.to_string(),
            template: t.id.to_owned(),
            state: game.state_text(),
            status: "active".into(),
            tick: 0,
            seed,
            options: options.to_string(),
            created_at: created_at.clone(),
            rated,
        };
        let stored_parts = parts
            .iter()
            .map(|p| (p.role.to_owned(), p.agent.to_string()))
            .collect();
        let (write, template) = (writes::create_session(row, stored_parts), t.id);
        cx.save(
            move |c| {
                write(c)?;
                tracing::info!(target: crate::logging::AUDIT, event = "match_start", session = id.number(), template);
                Ok(())
            },
            move |w| {
                w.forget_session(id);
                w.schedule(id);
            },
        );
        let session = Session {
            id,
            template: t,
            game,
            tick: 0,
            seed,
            options,
            rated,
            participants: parts,
            room: self.room_for(t),
            created_at,
            started,
            log: Vec::new(),
            tally: BTreeMap::new(),
            moves: Vec::new(),
        };
        let status = session.status().to_owned();
        self.keep_session(session);
        cx.changed.push(crate::world::Awaited::Session(id));
        self.tell_begun(cx, id);
        self.schedule(id);
        self.computer_turn(cx, id);
        Ok(Created {
            id,
            session_id: id.to_string(),
            template: t.id.to_owned(),
            status,
        })
    }
}

/// Takes the host's own option, `rated` (`true` or `false`, casual by default), out of the
/// template's options: the same word on every face (`challenge … rated`, the tools' options).
fn take_rated(mut options: Value) -> Result<(Value, bool), HostError> {
    let Some(o) = options.as_object_mut() else {
        return Ok((options, false));
    };
    let rated = match o.remove("rated") {
        None => false,
        Some(Value::Bool(b)) => b,
        Some(_) => {
            return Err(HostError::new(
                ErrorCode::InvalidRequest,
                "`rated` is true or false",
            ));
        }
    };
    Ok((options, rated))
}

/// Takes the host's `deal` out of `options`: the seed its maker chose, or none.
fn take_deal(mut options: Value) -> Result<(Value, Option<u64>), HostError> {
    let Some(o) = options.as_object_mut() else {
        return Ok((options, None));
    };
    match o.remove("deal") {
        None | Some(Value::Null) => Ok((options, None)),
        Some(v) => match v.as_u64() {
            Some(deal) => Ok((options, Some(deal))),
            None => Err(HostError::new(
                ErrorCode::InvalidRequest,
                "`deal` is a whole number from 0 to 18446744073709551615",
            )),
        },
    }
}

/// Refuses a rated game that no table can hold: a template that keeps no rating, options no
/// table takes, or a player whose strength is fixed by a setting rather than by their games.
fn can_be_rated(
    t: &Template,
    options: &Value,
    probe: &dyn crate::game_api::AnyGame,
    parts: &[Participant],
    external_engine: bool,
) -> Result<(), HostError> {
    let refuse = |m: String| Err(HostError::new(ErrorCode::InvalidRequest, m));
    match t.reckoning {
        Reckoning::Rating => {}
        Reckoning::Record => {
            return refuse(format!(
                "{} is luck: it keeps each player's record, not a rating, so it is never rated",
                t.title
            ));
        }
        Reckoning::Unrated => return refuse(format!("{} is not rated", t.title)),
    }
    if (t.table_of)(options).is_none() {
        return refuse(format!(
            "This {} game cannot be rated with these options (a game from a set position, or \
             one its spectators follow live)",
            t.title
        ));
    }
    // The house is an anchor or casual, never a player whose rating moves: a rated game
    // against it is played against a strength measured once and fixed (the chess Computer's
    // levels); any other house player (a bot, the house at a table) has none to offer.
    for p in parts.iter().filter(|p| crate::world::is_house(&p.agent)) {
        let computer = &*p.agent == crate::world::COMPUTER_ID;
        if !computer || (t.anchor_of)(options).is_none() {
            let whom = if computer { "the Computer" } else { &p.name };
            return refuse(format!(
                "A {} game against {whom} is casual: it has no fixed rating to play against",
                t.title
            ));
        }
        if external_engine {
            return refuse(
                "A game against the Computer is casual in this town: an external engine plays \
                 its strongest levels, and the levels' fixed ratings are the built-in engine's"
                    .to_owned(),
            );
        }
    }
    // Every rated game ends: one whose rules set no deadline could be dodged by silence (a
    // loser who stops moving would keep a lost game open for ever).
    if probe.deadline().is_none() {
        return refuse(format!(
            "A rated {} game needs a time limit (`clock`: `5+3` for a clock, `3d` or `30s` a \
             move), so that it ends even if a player stops moving",
            t.title
        ));
    }
    Ok(())
}
