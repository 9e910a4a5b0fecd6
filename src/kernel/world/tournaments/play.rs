//! Playing an event: it begins at its time, each round's pairings become sessions, each
//! game's end is its result in the ledger, and the last result (or an arena's bell) ends it.

use std::collections::BTreeMap;

use super::{Status, Tournament};
use crate::tournament::{Format, Outcome, Refused, Side};
use crate::world::sessions::SessionId;
use crate::world::{AgentId, Cx, World};

impl World {
    /// Once a second: events whose time has come begin, arenas pair whoever is free, and an
    /// arena whose time is up ends once its last games do.
    pub(crate) fn tournaments_tick(&mut self, cx: &mut Cx, _: tokio::time::Instant) {
        let now = self.now_millis();
        let due: Vec<(u32, Status)> = self
            .tournaments()
            .filter(|t| match t.status {
                Status::Scheduled => t.starts_at <= now,
                Status::Running => t.ledger.format == Format::Arena,
                _ => false,
            })
            .map(|t| (t.id, t.status))
            .collect();
        for (id, status) in due {
            match status {
                Status::Scheduled => self.begin_tournament(cx, id),
                _ => self.arena_tick(cx, id, now),
            }
        }
    }

    /// Begins event `id`: cancelled with fewer than two players; else its first round (an
    /// arena: its clock, and pairing from the next tick).
    pub(super) fn begin_tournament(&mut self, cx: &mut Cx, id: u32) {
        let Some(t) = self.tournament(id) else { return };
        let mut next = t.clone();
        let players = next.ledger.active().len();
        if players < 2 {
            next.status = Status::Cancelled;
            next.result = Some(format!(
                "Cancelled: {players} player{} joined, and a tournament needs two.",
                if players == 1 { "" } else { "s" }
            ));
            let line = format!(
                "Tournament {} is cancelled: fewer than two players joined.",
                next.title()
            );
            let told = entrants(&next);
            self.keep_tournament(cx, next);
            for who in told {
                cx.tell(&who, line.as_str());
            }
            return;
        }
        next.status = Status::Running;
        let now = self.now_millis();
        next.starts_at = next.starts_at.min(now);
        if let Some(minutes) = next.minutes {
            let game = std::time::Duration::from_secs(u64::from(minutes) * 60);
            let real = u64::try_from(self.time.real(game).as_millis()).unwrap_or(u64::MAX);
            next.ends_at = Some(now.saturating_add(real));
        }
        let line = format!(
            "Tournament {} begins: {players} players. `tournament {id}` shows its standings.",
            next.title()
        );
        for who in entrants(&next) {
            cx.tell(&who, line.as_str());
        }
        if next.ledger.format == Format::Arena {
            self.keep_tournament(cx, next);
            self.arena_tick(cx, id, now);
        } else {
            self.next_round(cx, next);
        }
    }

    /// An arena, at a tick: past its end, it ends once no game is under way; before, whoever
    /// is free is paired.
    fn arena_tick(&mut self, cx: &mut Cx, id: u32, now: u64) {
        let Some(t) = self.tournament(id) else { return };
        if let Some(end) = t.ends_at.filter(|&end| end <= now) {
            // Its games under way are waited for, a while: one whose end never comes (a clock
            // stopped by a fault) does not keep the event open for good.
            let grace =
                u64::try_from(self.time.real(super::ARENA_GRACE).as_millis()).unwrap_or(u64::MAX);
            if !t.under_way() || end.saturating_add(grace) <= now {
                let t = t.clone();
                self.finish_tournament(cx, t);
            }
            return;
        }
        if t.ledger.games().count() >= super::MAX_ARENA_GAMES {
            return;
        }
        // Nobody free to pair is nothing to do this second.
        let mut next = t.clone();
        if let Ok(round) = next.ledger.next_round() {
            self.seat_round(cx, next, round);
        }
    }

    /// Pairs `t`'s next round (a Swiss or a round-robin whose last round is decided) and
    /// seats it, or ends the event when the ledger has no more rounds to give.
    fn next_round(&mut self, cx: &mut Cx, mut t: Tournament) {
        match t.ledger.next_round() {
            Ok(round) => self.seat_round(cx, t, round),
            Err(Refused::RoundUnderWay) => self.keep_tournament(cx, t),
            Err(Refused::Finished) => self.finish_tournament(cx, t),
            Err(why @ (Refused::TooFew | Refused::NoPairing)) => {
                let played = t.ledger.rounds.len();
                t.result = Some(format!("it ends after {played} rounds: {why}"));
                self.finish_tournament(cx, t)
            }
            Err(Refused::NoSuchGame | Refused::NobodyFree) => self.keep_tournament(cx, t),
        }
    }

    /// Makes a session for each game of `t`'s round `round`, tells each player theirs (and
    /// those with a bye theirs), and keeps the event.
    fn seat_round(&mut self, cx: &mut Cx, mut t: Tournament, round: usize) {
        let Some(template) = self.template(&t.template) else {
            tracing::error!(
                tournament = t.id,
                template = t.template,
                "a tournament's game is gone"
            );
            return self.keep_tournament(cx, t);
        };
        let pairings = t.ledger.rounds.get(round).cloned().unwrap_or_default();
        let mut sessions = vec![None; pairings.len()];
        let mut options = t.options.clone();
        if t.rated
            && let Some(o) = options.as_object_mut()
        {
            o.insert("rated".into(), true.into());
        }
        let heading = match t.ledger.format {
            Format::Arena => format!("Tournament #{}", t.id),
            _ => format!("Tournament #{}, round {}", t.id, round + 1),
        };
        let mut told: Vec<(AgentId, String)> = Vec::new();
        for (g, p) in pairings.iter().enumerate() {
            let first = &t.entries[p.first];
            let Some(second) = p.second.map(|s| &t.entries[s]) else {
                let what = match p.bye_halves {
                    0 => "you rest this round".to_owned(),
                    h => format!("you have a bye, worth {}", points(h)),
                };
                told.push((first.agent.as_str().into(), format!("{heading}: {what}.")));
                continue;
            };
            let participants = BTreeMap::from([
                (template.roles[0].to_owned(), first.agent.clone()),
                (template.roles[1].to_owned(), second.agent.clone()),
            ]);
            match self.create_paired_session(cx, template.id, &participants, options.clone()) {
                Ok(created) => {
                    sessions[g] = Some(created.id.number());
                    for (me, them, role) in [
                        (first, second, template.roles[0]),
                        (second, first, template.roles[1]),
                    ] {
                        told.push((
                            me.agent.as_str().into(),
                            format!(
                                "{heading}: your game against {} begins: #{} ({}, you play {role}).",
                                them.name, created.id, template.title
                            ),
                        ));
                    }
                }
                Err(e) => {
                    // A pairing no session can hold (a player gone from the directory) is
                    // nobody's win: it is scored a draw, and said so.
                    tracing::warn!(tournament = t.id, round, error = %e.message, "a pairing could not be seated");
                    if let Some(r) = t.ledger.rounds.get_mut(round)
                        && let Some(p) = r.get_mut(g)
                    {
                        p.outcome = Some(Outcome::Draw);
                    }
                    for who in [first, second] {
                        told.push((
                            who.agent.as_str().into(),
                            format!(
                                "{heading}: your game could not be made ({}); it counts as a draw.",
                                e.message
                            ),
                        ));
                    }
                }
            }
        }
        if t.sessions.len() <= round {
            t.sessions.resize(round + 1, Vec::new());
        }
        t.sessions[round] = sessions;
        let all_decided = pairings.iter().all(|p| p.second.is_none())
            || t.ledger.rounds[round]
                .iter()
                .all(|p| p.second.is_none() || p.outcome.is_some());
        self.keep_tournament(cx, t.clone());
        for (who, line) in told {
            cx.tell(&who, line);
        }
        // A round that nothing is left to play in (all byes, or games that could not be made)
        // is over at once.
        if all_decided && t.ledger.format != Format::Arena {
            self.next_round(cx, t);
        }
    }

    /// After any change to session `sid`: if it is a game of an event and it has just ended,
    /// its result goes into the ledger, and the round, or the event, moves on.
    pub(crate) fn tournament_game_changed(&mut self, cx: &mut Cx, sid: SessionId) {
        let Some(&(id, round, game)) = self.tournaments.by_session.get(&sid) else {
            return;
        };
        let (Some(s), Some(t)) = (self.session(sid), self.tournament(id)) else {
            return;
        };
        if !s.game.is_terminal() {
            return;
        }
        let Some(p) = t.ledger.rounds.get(round).and_then(|r| r.get(game)) else {
            return;
        };
        if p.outcome.is_some() {
            return;
        }
        let roles = s.template.roles;
        let first_score = s.game.decided().and_then(|sides| {
            sides
                .iter()
                .find(|side| side.roles.contains(&roles[0]))
                .map(|side| side.score)
        });
        let outcome = match first_score {
            Some(x) if x > 0.5 => Outcome::FirstWins,
            Some(x) if x < 0.5 => Outcome::SecondWins,
            _ => Outcome::Draw,
        };
        // A game its deadline ended while moot was not running is nobody's result: a draw.
        let while_away = s.log.last().is_some_and(|e| {
            e.role == crate::game_api::SERVER_ROLE && self.wall_at(s, e.at_ms) < self.time.began()
        });
        let outcome = if while_away { Outcome::Draw } else { outcome };
        // A loser who never moved did not come: a forfeit, and (as lichess's Swiss does) out
        // of the later rounds until they join again. The house always comes.
        let absent = match outcome.winner() {
            Some(Side::First) => Some((Side::Second, roles[1])),
            Some(Side::Second) => Some((Side::First, roles[0])),
            None => None,
        }
        .filter(|(_, role)| !s.log.iter().any(|e| e.role == *role))
        .filter(|(_, role)| {
            !s.role_player(role)
                .is_some_and(|a| crate::world::is_house(&a))
        });
        let mut next = t.clone();
        let mut line = None;
        let outcome = match absent {
            Some((side, _)) => {
                let who = match side {
                    Side::First => p.first,
                    Side::Second => p.second.unwrap_or(p.first),
                };
                next.ledger.withdraw(who);
                line = Some((
                    AgentId::from(next.entries[who].agent.as_str()),
                    format!(
                        "You did not play your game #{sid} in tournament #{id}, so it is lost by \
                         forfeit and you are paired no more; `join tournament {id}` brings you back."
                    ),
                ));
                Outcome::Forfeit { absent: side }
            }
            None => outcome,
        };
        if next.ledger.decide(round, game, outcome).is_err() {
            return;
        }
        if let Some((who, line)) = line {
            cx.tell(&who, line);
        }
        let round_done = next.ledger.rounds[round]
            .iter()
            .all(|p| p.second.is_none() || p.outcome.is_some());
        match next.ledger.format {
            Format::Arena => {
                let over = next.ends_at.is_some_and(|end| end <= self.now_millis());
                if over && !next.under_way() {
                    self.finish_tournament(cx, next);
                } else if over || next.ledger.games().count() >= super::MAX_ARENA_GAMES {
                    self.keep_tournament(cx, next);
                } else {
                    // Those this game freed are paired at once with whoever else is free (the
                    // tick pairs the rest, once a second).
                    match next.ledger.next_round() {
                        Ok(r) => self.seat_round(cx, next, r),
                        Err(_) => self.keep_tournament(cx, next),
                    }
                }
            }
            _ if round_done && round + 1 == next.ledger.rounds.len() => self.next_round(cx, next),
            _ => self.keep_tournament(cx, next),
        }
    }

    /// Ends `t`: its standings' first is the winner, told to the whole town.
    fn finish_tournament(&mut self, cx: &mut Cx, mut t: Tournament) {
        let standings = crate::tournament::standings::standings(&t.ledger);
        // Why it ended early, if it did, is said after who won.
        let early = t
            .result
            .take()
            .map(|why| format!("; {why}"))
            .unwrap_or_default();
        let result = match standings.first() {
            Some(top) if top.games > 0 || top.score > 0.0 => {
                let of = match t.ledger.format {
                    Format::Arena => String::new(),
                    _ => format!(" of {}", t.ledger.rounds.len()),
                };
                format!(
                    "{} wins with {} point{}{of}",
                    t.entries[top.entrant].name,
                    trim(top.score),
                    if (top.score - 1.0).abs() < f64::EPSILON {
                        ""
                    } else {
                        "s"
                    },
                )
            }
            _ => "nobody won a game".to_owned(),
        } + early.as_str();
        t.status = Status::Finished;
        t.result = Some(result.clone());
        let line = format!("*** Tournament {} is over: {result}. ***", t.title());
        self.keep_tournament(cx, t);
        self.tell_town(cx, &line);
    }
}

/// Everyone in `t`, as ids to tell.
fn entrants(t: &Tournament) -> Vec<AgentId> {
    t.entries
        .iter()
        .map(|e| AgentId::from(e.agent.as_str()))
        .collect()
}

/// Halves as points in words ("1 point", "½ point").
fn points(halves: u32) -> String {
    let p = f64::from(halves) / 2.0;
    format!("{} point{}", trim(p), if halves == 2 { "" } else { "s" })
}

/// A score without a needless ".0" ("3", "2.5").
pub fn trim(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x}")
    }
}
