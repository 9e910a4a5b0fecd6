//! Game sessions (the state-machine host: any template, played by actions into a log), owned by the world like everything live. This
//! is the generic host: it knows templates only through [`crate::game_api::AnyGame`].
//!
//! A session is a template's game plus who plays which role and how many actions it has taken
//! (its tick). Every change is checked here (identity, turn, tick, legality), stamped with its
//! game time and written to the append-only log before anyone is told it happened. Errors carry
//! the REST API's codes, so every face (REST, MCP, telnet) answers a bad action the same way.

mod act;
pub use act::Submitted;
pub use begins::Begin;
mod begins;
pub use create::{Begins, Handing};
mod conduct;
mod create;
mod error;
pub(in crate::world) mod follow;
pub mod invite;
mod restore;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{AgentId, RoomIdx, World};
use crate::game_api::{AnyGame, Template};
use crate::store::sessions::LogEntry;
use error::not_found;
pub use error::{ErrorCode, HostError};
pub use follow::{Announce, Followed, MOST_TOLD, Recorded, Told, ToldAction};
pub use restore::{ReplayError, decisions};

pub use crate::store::sessions::Cost;

/// A session's id. It is parsed once, at a face's edge ([`parse_id`]), and never confused with
/// the other numbers a session carries (its tick, a cursor, a game time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct SessionId(u64);

impl SessionId {
    /// The first id a town gives.
    pub const FIRST: SessionId = SessionId(1);

    /// The number, where a log records it as one.
    pub const fn number(self) -> u64 {
        self.0
    }

    /// The id after this one.
    pub fn next(self) -> SessionId {
        SessionId(self.0.saturating_add(1))
    }
}

/// A number the town itself gave or stored as an id (a text from outside goes through
/// [`parse_id`]).
impl From<u64> for SessionId {
    fn from(n: u64) -> SessionId {
        SessionId(n)
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::str::FromStr for SessionId {
    type Err = HostError;

    fn from_str(id: &str) -> Result<SessionId, HostError> {
        parse_id(id)
    }
}

#[derive(Clone)]
pub struct Participant {
    pub role: &'static str,
    pub agent: AgentId,
    pub name: String,
}

pub struct Session {
    pub id: SessionId,
    pub template: &'static Template,
    pub game: Box<dyn AnyGame>,
    pub tick: u64,
    pub seed: u64,
    pub options: Value,
    /// Whether its results move ratings (see [`crate::ratings`]).
    pub rated: bool,
    /// In the template's role order.
    pub participants: Vec<Participant>,
    /// Where it stands in the town, if anywhere.
    pub room: Option<RoomIdx>,
    pub created_at: String,
    /// When it began, on the wall: game time counts from here.
    pub started: std::time::SystemTime,
    /// The log as stored (a copy kept for faces that cannot wait on the database), an
    /// action's tick its index.
    pub log: Vec<Logged>,
    /// Each player's refused actions and missed deadlines so far (by agent id): their
    /// conduct's once the game ends.
    pub tally: BTreeMap<String, crate::ratings::conduct::Tally>,
    /// What its latest decided result did to its players' ratings (its report shows it).
    pub moves: Vec<crate::ratings::Moved>,
}

/// One action of a session's log as the world holds it for as long as the town runs: its
/// role and its player are shared with the session, so that a long game costs a few words a
/// move. The faces read [`LogEntry`]s, made when asked.
#[derive(Debug, Clone)]
pub struct Logged {
    pub role: &'static str,
    /// What the action cost its actor, as they reported it (see [`Cost`]).
    pub cost: Option<Cost>,
    pub action: Box<str>,
    pub agent: AgentId,
    pub created_at: Box<str>,
    /// Game time.
    pub at_ms: u64,
    pub reasoning: Option<Box<str>>,
}

impl Logged {
    /// The action as the store and the faces spell it, at `tick`.
    pub fn entry(&self, tick: u64) -> LogEntry {
        LogEntry {
            tick,
            role: self.role.to_owned(),
            action: self.action.to_string(),
            agent_id: self.agent.to_string(),
            created_at: self.created_at.to_string(),
            at_ms: self.at_ms,
            reasoning: self.reasoning.as_deref().map(str::to_owned),
            cost: self.cost,
        }
    }
}

/// A participant as the tests' fingerprint of the world shows one.
#[cfg(feature = "testing")]
pub(crate) fn fingerprint_of(p: &Participant) -> String {
    let Participant { role, agent, name } = p;
    format!("{role}: {agent} ({name})")
}

impl Session {
    /// Everything it holds, its game's whole state included, for the tests' fingerprint of the
    /// world. Every field is named, so that a new one is shown or left out on purpose.
    #[cfg(feature = "testing")]
    pub fn fingerprint(&self) -> String {
        let Session {
            id,
            template,
            game,
            tick,
            seed,
            options,
            rated,
            participants,
            room,
            created_at,
            started,
            log,
            tally,
            moves,
        } = self;
        let participants: Vec<String> = participants.iter().map(fingerprint_of).collect();
        format!(
            "id: {id:?}\ntemplate: {}\ngame: {}\ntick: {tick}\nseed: {seed}\noptions: {options}\n\
             rated: {rated}\nparticipants: {participants:?}\nroom: {room:?}\n\
             created_at: {created_at}\nstarted: {started:?}\nlog: {log:?}\ntally: {tally:?}\n\
             moves: {moves:?}",
            template.id,
            game.state(),
        )
    }

    /// The tick as `role` (`None`: a spectator) knows it: while the game runs, how many of its
    /// actions they may see, so that an action hidden from them moves nothing they can read
    /// (a Werewolf night action); once it is over, every action.
    pub fn tick_for(&self, role: Option<&str>) -> u64 {
        if !self.template.hides_actions || self.game.is_terminal() {
            return self.tick;
        }
        self.log
            .iter()
            .filter(|e| self.game.action_view(role, e.role, &e.action).is_some())
            .count() as u64
    }

    pub fn status(&self) -> &'static str {
        if self.game.is_terminal() {
            "completed"
        } else {
            "active"
        }
    }

    /// The name of whoever plays `role`, as the game's pages and its PGN show it.
    pub fn name_in(&self, role: &str) -> Option<String> {
        self.participants
            .iter()
            .find(|p| p.role == role)
            .map(|p| p.name.clone())
    }

    /// The agent playing `role`.
    pub fn role_player(&self, role: &str) -> Option<String> {
        self.participants
            .iter()
            .find(|p| p.role == role)
            .map(|p| p.agent.to_string())
    }

    pub fn role_of(&self, agent: &str) -> Option<&'static str> {
        self.participants
            .iter()
            .find(|p| &*p.agent == agent)
            .map(|p| p.role)
    }

    /// What this game adds to each of its players' conduct once it has ended: their logged
    /// actions and their tally, once per player however many roles they held.
    pub fn conduct(&self) -> Vec<(String, crate::ratings::conduct::Conduct)> {
        let mut out: Vec<(String, crate::ratings::conduct::Conduct)> = Vec::new();
        for p in &self.participants {
            if out.iter().any(|(a, _)| *a == *p.agent) {
                continue;
            }
            let actions = self.log.iter().filter(|e| e.agent == p.agent).count();
            let tally = self.tally.get(&*p.agent).copied().unwrap_or_default();
            out.push((
                p.agent.to_string(),
                crate::ratings::conduct::Conduct::of_game(
                    u32::try_from(actions).unwrap_or(u32::MAX),
                    tally,
                ),
            ));
        }
        out
    }

    /// The reasons its players gave with their actions ([`crate::world::Cx::reasoning`]),
    /// in the order the actions were taken: none while the game runs, whoever asks (the one
    /// place they are held back), every one once it is over.
    pub fn reasons(&self) -> Vec<Reason> {
        if !self.game.is_terminal() {
            return Vec::new();
        }
        self.log
            .iter()
            .zip(0..)
            .filter_map(|(e, tick)| {
                let reasoning = e.reasoning.as_deref()?.to_owned();
                let name = self
                    .participants
                    .iter()
                    .find(|p| p.agent == e.agent)
                    .map_or_else(|| e.agent.to_string(), |p| p.name.clone());
                Some(Reason {
                    tick,
                    role: e.role.to_owned(),
                    name,
                    action: e.action.to_string(),
                    at_ms: e.at_ms,
                    reasoning,
                })
            })
            .collect()
    }

    /// "Ann (white) vs Bob (black)"
    pub fn players_line(&self) -> String {
        players_line(&self.participants)
    }

    /// Where its game stands ("black to move", how it ended), its seats given as their
    /// players' names ("paper beats rock: Ann wins", not "player_2 wins").
    pub fn situation(&self) -> String {
        with_names(&self.game.situation(), &self.participants)
    }

    /// How its game ended, if it has, its seats given as their players' names.
    pub fn ending(&self) -> Option<String> {
        self.game
            .ending()
            .map(|e| with_names(&e, &self.participants))
    }

    /// The game drawn as text for a reader in `role` (none: a watcher), its seats' bare numbers
    /// given as their players' names: what people read of it.
    pub fn drawn(&self, role: Option<&str>, r: crate::game_api::Reading) -> Vec<String> {
        let lines = self.game.render(role, r);
        lines
            .iter()
            .map(|l| with_names(l, &self.participants))
            .collect()
    }

    /// What its game's state decided toward ratings, if anything: on `day` (the UTC date of
    /// the deciding action), with whom each player speaks for (`owner`).
    pub fn decision(
        &self,
        owner: impl Fn(&str) -> String,
        day: &str,
    ) -> Option<crate::ratings::Decided> {
        let cast = crate::ratings::Cast {
            player: |role: &str| self.role_player(role),
            owner,
            house: crate::world::is_house,
            day: day.to_owned(),
        };
        let sides = self.game.decided()?;
        crate::ratings::decided(self.template, &self.options, self.rated, sides, &cast)
    }
}

/// "Ann (white) vs Bob (black)": a cast in a line, for a game or an invitation to one.
pub fn players_line(participants: &[Participant]) -> String {
    participants
        .iter()
        .map(|p| match shown_role(p.role) {
            Some(role) => format!("{} ({role})", p.name),
            None => p.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(" vs ")
}

/// A role as people are shown it beside a name: "white", "X", "wolf"; none for a seat's bare
/// number (`player_1`, `player`), which tells a person nothing their name does not.
pub fn shown_role(role: &str) -> Option<&str> {
    let bare = role == "player"
        || role
            .strip_prefix("player_")
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (!bare).then_some(role)
}

/// A game's words with each bare seat number (`player_2 wins`) given as its player's name
/// (`Bob wins`), for people. One pass over the words as the game wrote them: a name that is
/// itself a seat's number (a character may be called `player_1`) is not replaced again.
pub fn with_names(text: &str, participants: &[Participant]) -> String {
    let seats: Vec<&Participant> = participants
        .iter()
        .filter(|p| p.role != "player" && shown_role(p.role).is_none())
        .collect();
    if !seats.iter().any(|p| text.contains(p.role)) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        // The longest seat named here (`player_10` before `player_1`).
        let seat = seats
            .iter()
            .filter(|p| rest.starts_with(p.role))
            .max_by_key(|p| p.role.len());
        match seat {
            Some(p) => {
                out.push_str(&p.name);
                rest = &rest[p.role.len()..];
            }
            None => {
                let c = rest.chars().next().unwrap_or_default();
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

/// A reason a player gave with an action, shown once the game is over.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    pub tick: u64,
    pub role: String,
    pub name: String,
    pub action: String,
    /// Game time.
    #[serde(rename = "gameTimeMs")]
    pub at_ms: u64,
    pub reasoning: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Created {
    /// The new session, for the code that made it (the faces are given `session_id`).
    #[serde(skip)]
    pub id: SessionId,
    pub session_id: String,
    pub template: String,
    pub status: String,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StateView {
    pub session_id: String,
    pub template: String,
    pub status: String,
    pub tick: u64,
    /// The state as the caller may see it.
    pub state: Value,
    pub your_role: String,
    pub legal_actions: Vec<String>,
}

#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Acted {
    pub tick: u64,
    pub state: Value,
    pub status: String,
}

/// What [`World::play`] answers: an action's tick and status, without the state.
#[derive(Debug)]
pub struct Played {
    pub tick: u64,
    pub status: String,
}

#[derive(Debug, Clone, Serialize, serde::Deserialize, schemars::JsonSchema)]
pub struct Summary {
    pub session_id: String,
    pub template: String,
    pub status: String,
    pub tick: u64,
    pub your_role: String,
    /// role → agent id
    pub participants: BTreeMap<String, String>,
    pub created_at: String,
}

/// A wall time as the database stores it.
pub fn iso(t: std::time::SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}

/// Session ids are decimal numbers (also the town's `#N` for a board), written one way only:
/// `01`, `+1` or ` 1` name no session. Every face parses ids with this, once, at its edge, so
/// the world and the log only ever see the canonical id.
pub fn parse_id(id: &str) -> Result<SessionId, HostError> {
    let canonical = !id.is_empty()
        && id.len() <= 19
        && id.bytes().all(|b| b.is_ascii_digit())
        && !id.starts_with('0');
    canonical
        .then(|| id.parse().ok())
        .flatten()
        .map(SessionId)
        .ok_or_else(|| not_found(id))
}

impl World {
    /// The template called `id`, if the town has the game.
    pub fn template(&self, id: &str) -> Option<&'static Template> {
        self.templates.iter().copied().find(|t| t.id == id)
    }

    /// Every game the town has, in the order the modules list them.
    pub fn templates(&self) -> impl Iterator<Item = &'static Template> + '_ {
        self.templates.iter().copied()
    }

    pub fn session_ids(&self) -> Vec<SessionId> {
        self.sessions.keys().copied().collect()
    }

    /// The sessions `agent` plays in, newest first.
    pub fn sessions_played_by(&self, agent: &str) -> impl Iterator<Item = &Session> {
        self.played
            .get(agent)
            .into_iter()
            .flat_map(|ids| ids.iter().rev())
            .filter_map(|id| self.sessions.get(id))
    }

    /// Puts `s` among the sessions, and among each of its players' (once each).
    fn keep_session(&mut self, s: Session) {
        let mut players: Vec<&str> = s.participants.iter().map(|p| &*p.agent).collect();
        players.sort_unstable();
        players.dedup();
        for p in players {
            self.played.entry(p.to_owned()).or_default().push(s.id);
        }
        self.sessions.insert(s.id, s);
    }

    /// Takes back the session [`World::keep_session`] kept last (its creation was not stored).
    fn forget_session(&mut self, id: SessionId) {
        let Some(s) = self.sessions.remove(&id) else {
            return;
        };
        for p in &s.participants {
            if let Some(ids) = self.played.get_mut(&*p.agent) {
                ids.retain(|i| *i != id);
                if ids.is_empty() {
                    self.played.remove(&*p.agent);
                }
            }
        }
    }

    pub fn session(&self, id: SessionId) -> Option<&Session> {
        self.sessions.get(&id)
    }

    /// The sessions standing in `room`.
    pub fn sessions_in(&self, room: RoomIdx) -> impl Iterator<Item = &Session> {
        self.sessions.values().filter(move |s| s.room == Some(room))
    }

    /// A receiver whose `changed()` fires at session `sid`'s next change (or its creation, for
    /// a reserved id). Taken in the same world call as the answer it follows, no change can
    /// slip in between. Many may wait on one session without a thread each.
    pub fn watch_session(&mut self, sid: SessionId) -> tokio::sync::watch::Receiver<u64> {
        self.await_change(crate::world::Awaited::Session(sid))
    }

    /// A receiver that changes whenever what `on` names changes, once stored.
    pub fn await_change(&mut self, on: crate::world::Awaited) -> tokio::sync::watch::Receiver<u64> {
        // A channel nobody waits on any more is dropped once they pile up (one per session
        // and agent ever awaited), so that what strangers once waited on is not kept for good.
        if !self.ticks.contains_key(&on) {
            prune_unawaited(&mut self.ticks, &mut self.ticks_pruned_at);
        }
        self.ticks
            .entry(on)
            .or_insert_with(|| tokio::sync::watch::channel(0).0)
            .subscribe()
    }

    /// Wakes whoever waits on `sid`; called once what changed it is stored.
    pub(in crate::world) fn tick_changed(&self, on: crate::world::Awaited) {
        if let Some(tx) = self.ticks.get(&on) {
            tx.send_modify(|version| *version += 1);
        }
    }

    /// The session as `agent` may see it; only participants may look.
    pub fn session_state(&self, id: SessionId, agent: &str) -> Result<StateView, HostError> {
        if let Some(waiting) = self.waiting_state(id, agent) {
            return waiting;
        }
        let (s, role) = self.participant_of(id, agent)?;
        Ok(StateView {
            session_id: id.to_string(),
            template: s.template.id.to_owned(),
            status: s.status().to_owned(),
            tick: s.tick_for(Some(role)),
            state: s.game.view(Some(role)),
            your_role: role.to_owned(),
            legal_actions: s.game.legal_actions(role),
        })
    }

    /// The session's log as `agent`, a participant, may read it: while it runs, each entry as
    /// the template lets their role see it, numbered among those alone (a gap would count the
    /// hidden ones); once it is over, all of it.
    pub fn session_log(&self, id: SessionId, agent: &str) -> Result<Vec<LogEntry>, HostError> {
        if let Some(waiting) = self.waiting_state(id, agent) {
            // Nothing has happened in a game that has not begun.
            return waiting.map(|_| Vec::new());
        }
        let (s, role) = self.participant_of(id, agent)?;
        if s.game.is_terminal() {
            // Every action, each as the template words it for a reader (a Werewolf reply names
            // the event it answers by the reader's own id).
            return Ok(s
                .log
                .iter()
                .zip(0..)
                .map(|(e, tick)| LogEntry {
                    action: s
                        .game
                        .action_view(Some(role), e.role, &e.action)
                        .unwrap_or_else(|| e.action.to_string()),
                    ..e.entry(tick)
                })
                .collect());
        }
        // Nobody's reasons (nor costs) are shown while the game runs, the reader's own neither
        // (one rule for every reader, so that nothing is told by which entries carry one); each is
        // numbered among those the reader may see.
        Ok(s.log
            .iter()
            .filter_map(|e| Some((e, s.game.action_view(Some(role), e.role, &e.action)?)))
            .zip(0..)
            .map(|((e, action), tick)| LogEntry {
                action,
                reasoning: None,
                cost: None,
                ..e.entry(tick)
            })
            .collect())
    }

    /// How the session ended, for a participant, once it is over: what each role scored, so
    /// that a series (`moot arena`) can say what happened. (Never the seed, even then: which
    /// seeds a town draws is nobody's to study; `moot arena check` reads a series' seeds from
    /// the store.)
    pub fn session_ending(&self, id: SessionId, agent: &str) -> Option<Ending> {
        let (s, _) = self.participant_of(id, agent).ok()?;
        if !s.game.is_terminal() {
            return None;
        }
        let scores = crate::game_api::role_scores(s.game.decided().unwrap_or_default());
        Some(Ending { scores })
    }

    /// The session and the role `agent` plays in it, or why not.
    pub fn participant_of(
        &self,
        id: SessionId,
        agent: &str,
    ) -> Result<(&Session, &'static str), HostError> {
        let s = self
            .sessions
            .get(&id)
            .ok_or_else(|| not_found(&id.to_string()))?;
        let role = s.role_of(agent).ok_or_else(|| {
            HostError::new(
                ErrorCode::Forbidden,
                format!("You are not a participant in session {id}"),
            )
        })?;
        Ok((s, role))
    }

    /// Every session `agent` plays in, oldest first, then those that wait for someone's
    /// agreement (`waiting`).
    pub fn sessions_of(&self, agent: &str) -> Vec<Summary> {
        let mut mine: Vec<&Session> = self.sessions_played_by(agent).collect();
        mine.reverse();
        let mut rows: Vec<Summary> = mine
            .into_iter()
            .filter_map(|s| {
                let role = s.role_of(agent)?;
                Some(Summary {
                    session_id: s.id.to_string(),
                    template: s.template.id.to_owned(),
                    status: s.status().to_owned(),
                    tick: s.tick_for(Some(role)),
                    your_role: role.to_owned(),
                    participants: s
                        .participants
                        .iter()
                        .map(|p| (p.role.to_owned(), p.agent.to_string()))
                        .collect(),
                    created_at: s.created_at.clone(),
                })
            })
            .collect();
        rows.extend(self.invitation_rows(agent));
        rows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(role: &'static str, name: &str) -> Participant {
        Participant {
            role,
            agent: name.into(),
            name: name.to_owned(),
        }
    }

    /// Channels nobody waits on go once they pile up; those waited on stay, and the next mark
    /// is twice what stayed.
    #[test]
    fn unawaited_channels_are_dropped_past_the_mark() {
        let mut ticks = std::collections::HashMap::new();
        let mut held = Vec::new();
        for i in 0..AWAITED_KEPT + 10 {
            let tx = tokio::sync::watch::channel(0u64).0;
            if i % 1000 == 0 {
                held.push(tx.subscribe());
            }
            ticks.insert(i, tx);
        }
        let mut mark = AWAITED_KEPT * 4;
        prune_unawaited(&mut ticks, &mut mark);
        assert_eq!(
            ticks.len(),
            AWAITED_KEPT + 10,
            "below its mark, nothing goes"
        );
        mark = AWAITED_KEPT;
        prune_unawaited(&mut ticks, &mut mark);
        assert_eq!(ticks.len(), held.len());
        assert!(ticks.keys().all(|k| k % 1000 == 0));
        assert_eq!(mark, AWAITED_KEPT);
    }

    /// Seats' bare numbers become names in one pass: a player called after a seat's number is
    /// not renamed again, and `player_10` is not read as `player_1` and a 0.
    #[test]
    fn seat_numbers_become_names_once() {
        let ps = [seat("player_1", "player_2"), seat("player_2", "Bob")];
        assert_eq!(
            with_names("player_1: rock   player_2: paper", &ps),
            "player_2: rock   Bob: paper"
        );
        let many = [seat("player_1", "Ann"), seat("player_10", "Tia")];
        assert_eq!(with_names("player_10 wins", &many), "Tia wins");
        // Roles that say something stay; so does "player" (blackjack's, as in "Player wins!").
        let chess = [seat("white", "Ann"), seat("black", "Bob")];
        assert_eq!(with_names("white to move", &chess), "white to move");
        assert_eq!(
            with_names("Player wins!", &[seat("player", "Ann")]),
            "Player wins!"
        );
    }
}

/// Channels of things awaited kept, at least, before those nobody waits on are dropped.
const AWAITED_KEPT: usize = 4_096;

/// Drops the channels nobody waits on once `ticks` holds `pruned_at`, and sets the next mark
/// at twice what is left: dropping costs a constant a channel made, however many wait.
fn prune_unawaited<K>(
    ticks: &mut std::collections::HashMap<K, tokio::sync::watch::Sender<u64>>,
    pruned_at: &mut usize,
) {
    if ticks.len() >= *pruned_at {
        ticks.retain(|_, tx| tx.receiver_count() > 0);
        *pruned_at = (ticks.len() * 2).max(AWAITED_KEPT);
    }
}

/// How a session ended (see [`World::session_ending`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, schemars::JsonSchema)]
pub struct Ending {
    /// What each role scored: 1 won, 0.5 drawn, 0 lost; empty when nobody won or lost (an
    /// abandoned game).
    pub scores: BTreeMap<String, f64>,
}
