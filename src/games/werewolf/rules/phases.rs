//! How a match moves from phase to phase: every phase ends at a deadline the state names (or
//! early, once everyone has acted), taken by the server actor; the night is resolved, the vote
//! counted and the winner checked here.

use serde_json::{Value, json};

use super::config::Config;
use super::events::{Kind, Vis};
use super::{
    Action, Card, DayLog, Death, Night, NightLog, Openings, Phase, SEATS, Seat, Team, Werewolf,
    player_id, text,
};
use moot_game_api::{Deadline, GameTime};

impl Werewolf {
    pub(super) fn enter(&mut self, phase: Phase, at: GameTime, length: f64) {
        let from = self.phase;
        self.phase = phase;
        self.phase_started = at;
        self.phase_ends = at + Config::ms(length);
        self.settled_at = None;
        let payload = json!({
            "from": from.name(),
            "to": phase.name(),
            "dayNumber": self.day,
            "phaseEndsAt": if phase == Phase::Ended { Value::Null } else { json!(self.phase_ends) },
        });
        let text = text::phase_line(self, phase);
        self.emit(at, Vis::Public, Kind::PhaseChanged, payload, text);
    }

    pub(super) fn enter_night(&mut self, at: GameTime) {
        self.day += 1;
        self.night = Night::default();
        let t = self.config.timers.night;
        self.enter(Phase::Night, at, t);
        // Nobody alive has anything to do (no seer, no doctor, and the wolves are gone: the
        // game would have ended): nothing to wait for.
        self.check_settled(at);
    }

    pub(super) fn end_night(&mut self, at: GameTime) {
        let wolves = self.living_wolves();
        // Misses first: a living night actor who did nothing (all-seeing spectators only).
        for s in self.night_owing() {
            self.miss(at, s, Vis::Omniscient);
        }
        // The victim: one pick is the target; different picks are settled by the secret seed;
        // no pick, a random living non-wolf (a night always
        // has a victim, so silent wolves gain nothing).
        let picks: Vec<(Seat, Seat)> = wolves
            .iter()
            .filter_map(|&w| Some((w, self.night.picks[w]?)))
            .collect();
        let mut choices: Vec<Seat> = picks.iter().map(|p| p.1).collect();
        choices.sort_unstable();
        choices.dedup();
        let by_server = choices.is_empty();
        if by_server {
            choices = self
                .living()
                .filter(|&s| self.players[s].card != Card::Werewolf)
                .collect();
        }
        let target = if choices.len() == 1 {
            choices[0]
        } else {
            let i = self.random(choices.len());
            choices[i]
        };
        let saved = self.night.protected == Some(target);
        let killed = (!saved).then_some(target);
        // Only the seer inspects, so there is one whenever someone was inspected.
        let inspected = self.night.inspected.and_then(|t| {
            let seer = self.seat_with(Card::Seer)?;
            Some((seer, t, self.players[t].card == Card::Werewolf))
        });
        self.nights.push(NightLog {
            night: self.day,
            picks,
            target,
            target_by_server: by_server,
            protected: self.night.protected,
            inspected,
            killed,
        });
        self.last_protected = self.night.protected;
        let text = text::night_result(self, killed);
        self.emit_with(
            at,
            Vis::Public,
            Kind::NightResult,
            json!({ "killedPlayerId": killed.map(player_id) }),
            Some(json!({ "savedByDoctor": saved })),
            text,
        );
        if saved {
            let line = format!(
                "(Spoiler) The wolves came for {}, but the doctor was there.",
                self.name(target)
            );
            self.narrate(at, Vis::Omniscient, line);
        }
        if let Some(k) = killed {
            self.eliminate(at, k, Death::Night(self.day));
        }
        if !self.check_win(at) {
            let t = self.config.timers.day_announce;
            self.enter(Phase::DayAnnounce, at, t);
        }
    }

    pub(super) fn enter_opening(&mut self, at: GameTime) {
        // Seat order, the first speaker moving one seat on each day.
        let start = (self.day as usize + SEATS - 1) % SEATS;
        let order: Vec<Seat> = (0..SEATS)
            .map(|i| (start + i) % SEATS)
            .filter(|&s| self.players[s].alive)
            .collect();
        let each = self.config.timers.opening_each;
        let n = order.len() as f64;
        self.openings = Openings {
            order,
            next: 0,
            turn_started: at,
        };
        self.enter(Phase::DayOpening, at, each * n);
        self.announce_speaker(at);
    }

    pub(super) fn announce_speaker(&mut self, at: GameTime) {
        match self.openings.speaker() {
            Some(s) => {
                let line = format!("{}, the floor is yours.", self.name(s));
                self.narrate(at, Vis::Public, line);
            }
            None => self.settled_at = Some(at),
        }
    }

    pub(super) fn next_speaker(&mut self, at: GameTime) {
        self.openings.next += 1;
        self.openings.turn_started = at;
        self.announce_speaker(at);
    }

    pub(super) fn end_vote(&mut self, at: GameTime) {
        let living: Vec<Seat> = self.living().collect();
        let mut votes = Vec::new();
        for &s in &living {
            let missed = !self.votes.contains_key(&s);
            if missed {
                self.miss(at, s, Vis::Public);
            }
            votes.push((s, self.votes.get(&s).copied().flatten(), missed));
        }
        // Plurality of the votes cast; a tie, or no votes, eliminates nobody.
        let mut tally = [0u32; SEATS];
        for (_, t, _) in &votes {
            if let Some(t) = t {
                tally[*t] += 1;
            }
        }
        let top = tally.iter().copied().max().unwrap_or(0);
        let leaders: Vec<Seat> = (0..SEATS).filter(|&s| top > 0 && tally[s] == top).collect();
        let eliminated = (leaders.len() == 1).then(|| leaders[0]);
        self.days.push(DayLog {
            day: self.day,
            votes,
            eliminated,
        });
        self.condemned = eliminated.map(|s| (s, false));
        // The votes are counted before anyone hears who dies of them; an elimination that
        // ends the match goes straight to its end, with no resolution to announce.
        let ends = self.winner_without(eliminated).is_some();
        if !ends {
            let t = self.config.timers.day_resolution;
            self.enter(Phase::DayResolution, at, t);
        }
        match eliminated {
            Some(s) => self.eliminate(at, s, Death::Vote(self.day)),
            None => {
                let line = if top == 0 {
                    "Nobody voted. Nobody is eliminated today.".to_owned()
                } else {
                    "The vote is tied. Nobody is eliminated today.".to_owned()
                };
                self.narrate(at, Vis::Public, line);
            }
        }
        if ends {
            self.check_win(at);
        } else if let Some(s) = eliminated {
            let line = format!("{}, you may say your last words.", self.name(s));
            self.narrate(at, Vis::Public, line);
        }
    }

    pub(super) fn end_day(&mut self, at: GameTime) {
        self.condemned = None;
        if self.day >= self.config.max_days {
            self.finish(at, None);
        } else {
            self.enter_night(at);
        }
    }

    pub(super) fn miss(&mut self, at: GameTime, seat: Seat, vis: Vis) {
        let what = match self.phase {
            Phase::Night => "NIGHT_ACTION",
            Phase::DayOpening => "OPENING",
            _ => "VOTE",
        };
        // Each count goes only where its misses are seen.
        let p = &mut self.players[seat];
        let count = if what == "NIGHT_ACTION" {
            p.night_misses += 1;
            p.night_misses
        } else {
            p.misses += 1;
            p.misses
        };
        let line = format!(
            "{} did not {} in time.",
            self.name(seat),
            match what {
                "NIGHT_ACTION" => "act",
                "OPENING" => "speak",
                _ => "vote",
            }
        );
        self.emit(
            at,
            vis,
            Kind::ActionMissed,
            json!({ "playerId": player_id(seat), "action": what, "misses": count }),
            line,
        );
    }

    pub(super) fn eliminate(&mut self, at: GameTime, seat: Seat, how: Death) {
        self.players[seat].alive = false;
        self.players[seat].death = Some(how);
        let card = self.players[seat].card;
        let line = format!(
            "{} is dead. {} was a {}.",
            self.name(seat),
            self.name(seat),
            card.title()
        );
        self.emit(
            at,
            Vis::Public,
            Kind::PlayerEliminated,
            json!({
                "playerId": player_id(seat),
                "roleRevealed": card.name(),
                "cause": match how { Death::Night(_) => "NIGHT_KILL", Death::Vote(_) => "VOTE" },
            }),
            line,
        );
    }

    /// Which team has won, if `seat` (still alive) were dead.
    fn winner_without(&self, seat: Option<Seat>) -> Option<Team> {
        let living: Vec<Seat> = self.living().filter(|&s| Some(s) != seat).collect();
        let wolves = living
            .iter()
            .filter(|&&s| self.players[s].card == Card::Werewolf)
            .count();
        let others = living.len() - wolves;
        if wolves == 0 {
            Some(Team::Villagers)
        } else if wolves >= others {
            Some(Team::Werewolves)
        } else {
            None
        }
    }

    /// The win check, after every elimination (night or vote), so a match ends the moment it is
    /// decided: true if the match ended.
    pub(super) fn check_win(&mut self, at: GameTime) -> bool {
        match self.winner_without(None) {
            Some(w) => {
                self.finish(at, Some(w));
                true
            }
            None => false,
        }
    }

    pub(super) fn finish(&mut self, at: GameTime, winner: Option<Team>) {
        self.winner = winner;
        self.enter(Phase::Ended, at, 0.0);
        let roles: Vec<Value> = (0..SEATS)
            .map(|s| json!({ "playerId": player_id(s), "role": self.players[s].card.name() }))
            .collect();
        let line = text::ending(self);
        self.emit(
            at,
            Vis::Public,
            Kind::GameEnded,
            json!({
                "winningTeam": winner.map(Team::name),
                "reason": if winner.is_some() { "WIN" } else { "DAY_LIMIT" },
                "roles": roles,
            }),
            line,
        );
    }

    /// Notes when every action the phase requires is in: it may then end early.
    pub(super) fn check_settled(&mut self, at: GameTime) {
        if self.settled_at.is_some() {
            return;
        }
        let done = match self.phase {
            Phase::Lobby => self.players.iter().all(|p| p.ready),
            Phase::Night => {
                let wolves_done = self
                    .living_wolves()
                    .iter()
                    .all(|&w| self.night.picks[w].is_some());
                let alive = |c| self.seat_with(c).is_some_and(|s| self.players[s].alive);
                wolves_done
                    && (!alive(Card::Seer) || self.night.inspected.is_some())
                    && (!alive(Card::Doctor) || self.night.protected.is_some())
            }
            Phase::DayVote => self.living().all(|s| self.votes.contains_key(&s)),
            _ => false,
        };
        if done {
            self.settled_at = Some(at);
        }
    }

    /// The living night actors who have not acted: the wolves without a pick, the seer and
    /// the doctor without their choice.
    fn night_owing(&self) -> Vec<Seat> {
        let mut owing: Vec<Seat> = self
            .living_wolves()
            .into_iter()
            .filter(|&w| self.night.picks[w].is_none())
            .collect();
        for (card, done) in [
            (Card::Seer, self.night.inspected.is_some()),
            (Card::Doctor, self.night.protected.is_some()),
        ] {
            if let Some(s) = self
                .seat_with(card)
                .filter(|&s| self.players[s].alive && !done)
            {
                owing.push(s);
            }
        }
        owing
    }

    /// Who the phase's deadline would count a miss against (the lobby's readiness is asked
    /// of nobody): the night's actors, the living without a vote, the speaker holding the
    /// floor.
    pub(super) fn owing_seats(&self) -> Vec<Seat> {
        match self.phase {
            Phase::Night => self.night_owing(),
            Phase::DayVote => self
                .living()
                .filter(|s| !self.votes.contains_key(s))
                .collect(),
            Phase::DayOpening => self.openings.speaker().into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// The server actor's action: the phase (or the speaker's turn) is over.
    pub(super) fn timeout(&mut self, at: GameTime) {
        match self.phase {
            Phase::Lobby => {
                let line = if self.players.iter().all(|p| p.ready) {
                    "Everyone is ready. The match begins.".to_owned()
                } else {
                    "The lobby closes. The match begins.".to_owned()
                };
                self.narrate(at, Vis::Public, line);
                self.enter_night(at);
            }
            Phase::Night => self.end_night(at),
            Phase::DayAnnounce => self.enter_opening(at),
            Phase::DayOpening => match self.openings.speaker() {
                Some(s) => {
                    self.miss(at, s, Vis::Public);
                    self.next_speaker(at);
                }
                None => {
                    let t = self.config.timers.day_discussion;
                    self.enter(Phase::DayDiscussion, at, t);
                }
            },
            Phase::DayDiscussion => {
                self.votes.clear();
                let t = self.config.timers.day_vote;
                self.enter(Phase::DayVote, at, t);
            }
            Phase::DayVote => self.end_vote(at),
            Phase::DayResolution => self.end_day(at),
            Phase::Ended => {}
        }
    }

    /// When the current phase (or speaker's turn) ends, and the server actor's words for it.
    pub(super) fn next_deadline(&self) -> Option<Deadline<Action>> {
        let dwell = self.phase_started + Config::ms(self.config.timers.min_dwell);
        let (at, what) = match self.phase {
            Phase::Ended => return None,
            Phase::Lobby => (self.settled_at.unwrap_or(self.phase_ends), String::new()),
            Phase::Night | Phase::DayVote => (
                self.settled_at
                    .map_or(self.phase_ends, |t| t.max(dwell).min(self.phase_ends)),
                String::new(),
            ),
            Phase::DayOpening => match self.openings.speaker() {
                Some(s) => (
                    self.openings.turn_started + Config::ms(self.config.timers.opening_each),
                    format!(" {}", player_id(s)),
                ),
                None => (
                    self.settled_at.unwrap_or(self.phase_ends).max(dwell),
                    String::new(),
                ),
            },
            _ => (self.phase_ends, String::new()),
        };
        Some(Deadline {
            at,
            action: Action::End(format!("end {} {}{what}", self.phase.name(), self.day)),
        })
    }
}
