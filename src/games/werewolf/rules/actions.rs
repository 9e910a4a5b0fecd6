//! What players do, each action checked in one fixed order, so a wrong call always gets the same
//! code: the phase, the role, the actor alive, the target; public chat and wolf chat are rate-limited in game time.

use serde_json::json;

use super::action::{Action, Target};
use super::config::Config;
use super::events::{self, Kind, Reader, Vis};
use super::{
    Card, PUBLIC_TEXT_MAX, Phase, REASON_MAX, SEATS, Seat, WOLF_TEXT_MAX, Werewolf, player_id,
    rate_limited, refuse, seat_of, text, text_of,
};
use moot_game_api::Code;
use moot_game_api::{GameError, GameTime};

impl Werewolf {
    pub(super) fn check_alive(&self, seat: Seat) -> Result<(), GameError> {
        if self.players[seat].alive {
            Ok(())
        } else {
            Err(refuse(
                Code::NotYourTurn,
                "You have been eliminated: the dead watch, they do not act",
            ))
        }
    }

    pub(super) fn check_phase(&self, allowed: &[Phase], what: &str) -> Result<(), GameError> {
        if allowed.contains(&self.phase) {
            return Ok(());
        }
        let names: Vec<String> = allowed.iter().map(|p| p.told()).collect();
        Err(refuse(
            Code::WrongPhase,
            format!(
                "You can {what} only during {}; it is {} now",
                names.join(" or "),
                self.phase.told()
            ),
        ))
    }

    pub(super) fn check_card(&self, seat: Seat, card: Card, what: &str) -> Result<(), GameError> {
        if self.players[seat].card == card {
            Ok(())
        } else {
            Err(refuse(
                Code::WrongRole,
                format!("Only the {} can {what}", card.title().to_lowercase()),
            ))
        }
    }

    /// A living player named by id.
    pub(super) fn target(&self, id: &str) -> Result<Seat, GameError> {
        let t = seat_of(id.trim()).ok_or_else(|| {
            // A living player's name, or its last part (`Abel` for `Bot-Abel`), which names
            // them too: the dead are no targets.
            let names: Vec<&str> = (0..SEATS)
                .filter(|&s| self.players[s].alive)
                .map(|s| self.name(s))
                .flat_map(|n| [n, n.rsplit('-').next().unwrap_or(n)])
                .collect();
            refuse(
                Code::InvalidTarget,
                format!(
                    "`{id}` is not a player of this match (p1 to p8).{}",
                    moot_game_api::text::did_you_mean(id.trim(), names)
                ),
            )
        })?;
        if !self.players[t].alive {
            return Err(refuse(
                Code::TargetDead,
                format!("{} is dead", self.name(t)),
            ));
        }
        Ok(t)
    }

    /// Whether `seat` may speak in public now, as far as the rate limit goes (a player who
    /// waits for it, as the house's bots do, is never refused).
    pub fn may_speak(&self, seat: Seat) -> bool {
        self.last_public[seat]
            .is_none_or(|t| self.now >= t + Config::ms(self.config.public_chat_gap))
    }

    /// Whether `seat` has spoken in public since the phase began.
    pub fn spoke_since_phase_began(&self, seat: Seat) -> bool {
        self.last_public[seat].is_some_and(|t| t > self.phase_started)
    }

    /// Whether `seat` has talked with the pack since the phase began.
    pub fn chatted_since_phase_began(&self, seat: Seat) -> bool {
        self.last_wolf_chat[seat].is_some_and(|t| t > self.phase_started)
    }

    pub(super) fn chat_gap(
        last: &mut [Option<GameTime>; SEATS],
        seat: Seat,
        at: GameTime,
        gap: f64,
    ) -> Result<(), GameError> {
        let gap = Config::ms(gap);
        if let Some(t) = last[seat] {
            let next = t + gap;
            if at < next {
                return Err(rate_limited(next - at));
            }
        }
        last[seat] = Some(at);
        Ok(())
    }

    pub(super) fn perform(
        &mut self,
        seat: Seat,
        action: &Action,
        at: GameTime,
    ) -> Result<(), GameError> {
        let who = player_id(seat);
        match action {
            Action::Ready => {
                self.check_phase(&[Phase::Lobby], "ready up")?;
                if !self.players[seat].ready {
                    self.players[seat].ready = true;
                    let line = format!("{} is ready.", self.name(seat));
                    self.emit(
                        at,
                        Vis::Public,
                        Kind::PlayerReady,
                        json!({ "playerId": who }),
                        line,
                    );
                }
            }
            Action::Kill(target) => {
                self.check_phase(&[Phase::Night], "choose a victim")?;
                self.check_card(seat, Card::Werewolf, "choose a victim")?;
                self.check_alive(seat)?;
                let t = self.target(&target.0)?;
                if self.players[t].card == Card::Werewolf {
                    return Err(refuse(
                        Code::InvalidTarget,
                        "Wolves hunt villagers, not each other",
                    ));
                }
                self.night.picks[seat] = Some(t);
                let line = format!("{} wants {} tonight.", self.name(seat), self.name(t));
                let vis = self.wolves_vis();
                self.emit(
                    at,
                    vis,
                    Kind::WolfKillSelected,
                    json!({ "byPlayerId": who, "targetPlayerId": player_id(t) }),
                    line,
                );
            }
            Action::Inspect(target) => {
                self.check_phase(&[Phase::Night], "inspect")?;
                self.check_card(seat, Card::Seer, "inspect")?;
                self.check_alive(seat)?;
                if self.night.inspected.is_some() {
                    return Err(refuse(
                        Code::AlreadySubmitted,
                        "You have already inspected someone tonight",
                    ));
                }
                let t = self.target(&target.0)?;
                if t == seat {
                    return Err(refuse(Code::InvalidTarget, "You know yourself already"));
                }
                self.night.inspected = Some(t);
                let wolf = self.players[t].card == Card::Werewolf;
                let line = format!(
                    "Your vision shows {}: {}.",
                    self.name(t),
                    if wolf { "a WEREWOLF" } else { "not a werewolf" }
                );
                self.emit(
                    at,
                    Vis::Private(vec![seat]),
                    Kind::SeerResult,
                    json!({
                        "night": self.day,
                        "targetPlayerId": player_id(t),
                        "alignment": if wolf { "WEREWOLF" } else { "NOT_WEREWOLF" },
                    }),
                    line,
                );
            }
            Action::Protect(target) => {
                self.check_phase(&[Phase::Night], "protect")?;
                self.check_card(seat, Card::Doctor, "protect")?;
                self.check_alive(seat)?;
                let t = self.target(&target.0)?;
                if self.last_protected == Some(t) {
                    return Err(refuse(
                        Code::DoctorRepeatTarget,
                        format!(
                            "You protected {} last night; choose someone else tonight",
                            self.name(t)
                        ),
                    ));
                }
                self.night.protected = Some(t);
                let line = format!("You will watch over {} tonight.", self.name(t));
                self.emit(
                    at,
                    Vis::Private(vec![seat]),
                    Kind::DoctorProtected,
                    json!({ "byPlayerId": who, "targetPlayerId": player_id(t) }),
                    line,
                );
            }
            Action::WolfChat(rest) => {
                self.check_phase(&[Phase::Night], "talk with the pack")?;
                self.check_card(seat, Card::Werewolf, "talk with the pack")?;
                self.check_alive(seat)?;
                let text = text_of(rest, WOLF_TEXT_MAX)?;
                let gap = self.config.wolf_chat_gap;
                Self::chat_gap(&mut self.last_wolf_chat, seat, at, gap)?;
                let line = format!("{} growls to the pack, \"{text}\"", self.name(seat));
                let vis = self.wolves_vis();
                self.emit(
                    at,
                    vis,
                    Kind::WolfChatMessage,
                    json!({ "fromWolfId": who, "text": text }),
                    line,
                );
            }
            Action::Pass => {
                self.check_phase(&[Phase::DayOpening], "pass")?;
                self.check_alive(seat)?;
                if self.openings.speaker() != Some(seat) {
                    return Err(self.not_your_turn());
                }
                let line = format!("{} passes.", self.name(seat));
                self.narrate(at, Vis::Public, line);
                self.next_speaker(at);
            }
            Action::Say(rest) => self.say(seat, None, rest, at)?,
            Action::Reply { to, text } => {
                let reply_to = self.public_event(to)?;
                self.say(seat, Some(reply_to), text, at)?;
            }
            Action::Vote { target, reason } => {
                self.check_phase(&[Phase::DayVote], "vote")?;
                self.check_alive(seat)?;
                let target = match target {
                    None => None,
                    Some(Target(id)) => {
                        let t = self.target(id)?;
                        if t == seat {
                            return Err(refuse(
                                Code::InvalidTarget,
                                "You cannot vote for yourself",
                            ));
                        }
                        Some(t)
                    }
                };
                let reason = reason.trim();
                if reason.chars().count() > REASON_MAX {
                    return Err(GameError::Illegal(format!(
                        "A reason is at most {REASON_MAX} characters"
                    )));
                }
                self.votes.insert(seat, target);
                let line = text::vote_line(self, seat, target, reason);
                self.emit(
                    at,
                    Vis::Public,
                    Kind::VoteCast,
                    json!({
                        "voterPlayerId": who,
                        "targetPlayerId": target.map(player_id),
                        "reason": (!reason.is_empty()).then_some(reason),
                    }),
                    line,
                );
            }
            Action::End(_) => {
                return Err(GameError::Illegal(
                    "`end` is not a Werewolf action (ready, kill, inspect, protect, wolfchat, \
                     say, reply, pass, vote)"
                        .into(),
                ));
            }
        }
        self.check_settled(at);
        Ok(())
    }

    pub(super) fn not_your_turn(&self) -> GameError {
        let who = self
            .openings
            .speaker()
            .map_or("nobody".to_owned(), |s| self.name(s).to_owned());
        refuse(
            Code::NotYourTurn,
            format!("It is {who}'s turn to speak; wait for yours"),
        )
    }

    /// A public event of this match, as a reply names it (it must be public and of this match:
    /// fix 10 in `catalog`): `@k`, its place in the public feed (as the log keeps it, see
    /// `canonical`), or `e…`, its place in the whole feed (as logs kept it before ids counted
    /// per reader). Its index in the whole feed.
    pub(super) fn public_event(&self, id: &str) -> Result<usize, GameError> {
        let found = match id.strip_prefix('@') {
            Some(k) => k
                .parse()
                .ok()
                .and_then(|k| self.event_at(Reader::Public, k))
                .map(|e| e.n),
            None => events::parse_event_id(id)
                .filter(|&n| self.events.get(n).is_some_and(|e| e.vis == Vis::Public)),
        };
        found.ok_or_else(|| {
            let shown = id.strip_prefix('?').unwrap_or(id);
            refuse(
                Code::InvalidTarget,
                format!("`{shown}` is not a public event of this match"),
            )
        })
    }

    pub(super) fn say(
        &mut self,
        seat: Seat,
        reply_to: Option<usize>,
        rest: &str,
        at: GameTime,
    ) -> Result<(), GameError> {
        let kind = match self.phase {
            Phase::DayOpening => {
                self.check_alive(seat)?;
                if self.openings.speaker() != Some(seat) {
                    return Err(self.not_your_turn());
                }
                "OPENING"
            }
            Phase::DayDiscussion => {
                self.check_alive(seat)?;
                "DISCUSSION"
            }
            Phase::DayResolution if self.condemned.is_some_and(|(s, _)| s == seat) => {
                if self.condemned == Some((seat, true)) {
                    return Err(refuse(
                        Code::AlreadySubmitted,
                        "You have said your last words",
                    ));
                }
                "LAST_WORDS"
            }
            _ => {
                return Err(refuse(
                    Code::WrongPhase,
                    format!(
                        "You can speak to the match only during the openings (DAY_OPENING, on \
                         your turn) and the discussion (DAY_DISCUSSION); it is {} now",
                        self.phase.told()
                    ),
                ));
            }
        };
        let text = text_of(rest, PUBLIC_TEXT_MAX)?;
        let gap = self.config.public_chat_gap;
        Self::chat_gap(&mut self.last_public, seat, at, gap)?;
        let line = match kind {
            "LAST_WORDS" => format!("{}'s last words: \"{text}\"", self.name(seat)),
            _ => format!("{} says, \"{text}\"", self.name(seat)),
        };
        // A reply's `replyToEventId` is filled in for each reader, by their own id for it.
        let payload = json!({ "playerId": player_id(seat), "text": text, "kind": kind });
        self.emit_reply(
            at,
            Vis::Public,
            Kind::PublicMessage,
            payload,
            None,
            line,
            reply_to,
        );
        match kind {
            "OPENING" => self.next_speaker(at),
            "LAST_WORDS" => self.condemned = Some((seat, true)),
            _ => {}
        }
        Ok(())
    }
}
