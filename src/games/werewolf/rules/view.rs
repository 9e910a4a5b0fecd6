//! What a reader may see of a match: a player's brief (`requiredAction`), the tools'
//! `get_state`, the live tally and, once it is over, the report.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::events::{Kind, Reader};
use super::{Card, Phase, Required, SEATS, Seat, Werewolf, player_id, text};

impl Werewolf {
    /// What `seat` must do now: `get_state`'s `requiredAction`, with the `canAbstain` and
    /// deadline moot adds (fix 9 in `catalog`).
    pub fn required(&self, seat: Seat) -> Required {
        let p = &self.players[seat];
        let none = Required::none();
        if !p.alive && self.phase != Phase::Lobby {
            return none;
        }
        let others = |pred: &dyn Fn(Seat) -> bool| -> Vec<Seat> {
            self.living().filter(|&s| pred(s)).collect()
        };
        let deadline = self.shown_end(Reader::Seat(seat));
        let r = |kind, targets, done, abstain| Required {
            kind,
            targets,
            done,
            can_abstain: abstain,
            deadline,
        };
        match (self.phase, p.card) {
            (Phase::Night, Card::Werewolf) => r(
                "WOLF_KILL",
                others(&|s| self.players[s].card != Card::Werewolf),
                self.night.picks[seat].is_some(),
                false,
            ),
            (Phase::Night, Card::Seer) => r(
                "SEER_INSPECT",
                others(&|s| s != seat),
                self.night.inspected.is_some(),
                false,
            ),
            (Phase::Night, Card::Doctor) => r(
                "DOCTOR_PROTECT",
                others(&|s| Some(s) != self.last_protected),
                self.night.protected.is_some(),
                false,
            ),
            (Phase::DayOpening, _) if self.openings.speaker() == Some(seat) => {
                r("SPEAK_OPENING", Vec::new(), false, true)
            }
            (Phase::DayDiscussion, _) => r("SPEAK_DISCUSSION", Vec::new(), false, true),
            (Phase::DayVote, _) => r(
                "VOTE",
                others(&|s| s != seat),
                self.votes.contains_key(&seat),
                true,
            ),
            _ => none,
        }
    }

    /// The match as `reader` may see it: the `get_state` tool's `state`, with game times (the
    /// face turns them into wall-clock times and adds the match id).
    pub fn state_for(&self, reader: Reader, recent: usize) -> Value {
        let omniscient = reader == Reader::Omniscient;
        let players: Vec<Value> = (0..SEATS)
            .map(|s| {
                let p = &self.players[s];
                let shown = !p.alive
                    || omniscient
                    || self.phase == Phase::Ended
                    || reader == Reader::Seat(s);
                json!({
                    "playerId": player_id(s),
                    "displayName": p.name,
                    "seat": s + 1,
                    "alive": p.alive,
                    "revealedRole": shown.then(|| p.card.name()),
                    "bot": p.bot,
                    "misses": p.misses + if shown { p.night_misses } else { 0 },
                })
            })
            .collect();
        let recent_messages: Vec<Value> = self
            .events
            .iter()
            .filter(|e| e.kind == Kind::PublicMessage)
            .rev()
            .take(recent)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .map(|e| {
                json!({
                    "eventId": e.id_for(reader),
                    "at": e.at,
                    "playerId": e.payload["playerId"],
                    "text": e.payload["text"],
                })
            })
            .collect();
        let you = match reader {
            Reader::Seat(s) => {
                let p = &self.players[s];
                let known_wolves: Vec<&str> = if p.card == Card::Werewolf {
                    (0..SEATS)
                        .filter(|&w| self.players[w].card == Card::Werewolf)
                        .map(player_id)
                        .collect()
                } else {
                    Vec::new()
                };
                let seer_history: Vec<Value> = if p.card == Card::Seer {
                    self.seer_history()
                } else {
                    Vec::new()
                };
                let req = self.required(s);
                json!({
                    "playerId": player_id(s),
                    "role": p.card.name(),
                    "alive": p.alive,
                    "knownWolves": known_wolves,
                    "seerHistory": seer_history,
                    "requiredAction": req.to_json(),
                })
            }
            _ => Value::Null,
        };
        let mut state = json!({
            "phase": self.phase.name(),
            "dayNumber": self.day,
            "phaseEndsAt": (self.phase != Phase::Ended).then(|| self.shown_end(reader).unwrap_or(self.phase_ends)),
            "players": players,
            "publicSummary": text::summary(self),
            "recentPublicMessages": recent_messages,
            "you": you,
            "voteTally": self.tally(),
            "spectating": self.config().spectating.name(),
        });
        if let Some(s) = self
            .openings
            .speaker()
            .filter(|_| self.phase == Phase::DayOpening)
        {
            state["currentSpeaker"] = json!(player_id(s));
        }
        if let Some(w) = self.winner {
            state["winningTeam"] = json!(w.name());
        }
        if omniscient {
            state["night"] = json!({
                "wolfPicks": (0..SEATS).filter_map(|w| Some(json!({"byPlayerId": player_id(w), "targetPlayerId": player_id(self.night.picks[w]?)}))).collect::<Vec<_>>(),
                "inspected": self.night.inspected.map(player_id),
                "protected": self.night.protected.map(player_id),
            });
        }
        state
    }

    /// The seer's findings so far (night, target, result).
    pub(super) fn seer_history(&self) -> Vec<Value> {
        let mut h: Vec<Value> = self
            .nights
            .iter()
            .filter_map(|n| n.inspected)
            .zip(self.nights.iter().map(|n| n.night))
            .map(|((_, t, wolf), night)| seer_entry(night, t, wolf))
            .collect();
        // Tonight's answer came at once.
        if let (Phase::Night, Some(t)) = (self.phase, self.night.inspected) {
            h.push(seer_entry(
                self.day,
                t,
                self.players[t].card == Card::Werewolf,
            ));
        }
        h
    }

    /// Today's votes as everyone sees them (votes are public: the `vote` tool says so).
    pub fn tally(&self) -> Value {
        if self.phase != Phase::DayVote {
            return Value::Null;
        }
        let mut counts: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (voter, t) in &self.votes {
            counts
                .entry(t.map_or("ABSTAIN", player_id))
                .or_default()
                .push(player_id(*voter));
        }
        json!(counts)
    }

    /// The report for everyone once the match is over (issue 11, "After the match"), or
    /// nothing while it runs.
    pub fn report(&self) -> Option<Value> {
        (self.phase == Phase::Ended).then(|| text::report(self))
    }
}

fn seer_entry(night: u32, t: Seat, wolf: bool) -> Value {
    json!({
        "night": night,
        "targetPlayerId": player_id(t),
        "result": if wolf { "WEREWOLF" } else { "NOT_WEREWOLF" },
    })
}
