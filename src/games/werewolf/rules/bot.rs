//! The house's Werewolf players: simple, rule-abiding, and fair. A bot decides only from what
//! its seat may see (the events [`Event::admits`] for it), never from the state's secrets, so a
//! bot is an opponent a person could be, and a fixed reference for agents.
//!
//! Strategy, in short: the seer inspects unknown players and claims once it finds a wolf; the
//! doctor guards a claimed seer, else itself or someone at random; villagers vote with a seer's
//! claim, else with the crowd; wolves hunt claimed seers first, agree with their partner, and
//! vote with the crowd against villagers.

use super::events::{Kind, Reader};
use super::{Action, Card, Phase, SEATS, Seat, Target, Werewolf, player_id, seat_of};
use moot_game_api::draw_below;

/// What one seat knows.
struct Knowledge {
    card: Card,
    wolves: Vec<Seat>,
    /// The seer's findings: (target, is a wolf).
    seen: Vec<(Seat, bool)>,
    /// Public claims "pX is a werewolf" by a self-declared seer: (claimer, accused).
    accusations: Vec<(Seat, Seat)>,
}

fn learn(w: &Werewolf, seat: Seat) -> Knowledge {
    let card = w.players[seat].card;
    let mut k = Knowledge {
        card,
        wolves: Vec::new(),
        seen: Vec::new(),
        accusations: Vec::new(),
    };
    for e in w.events_for(Reader::Seat(seat)) {
        match e.kind {
            Kind::RoleAssigned => {
                if let Some(list) = e.payload["knownWolves"].as_array() {
                    k.wolves = list.iter().filter_map(|v| seat_of(v.as_str()?)).collect();
                }
            }
            Kind::SeerResult => {
                if let Some(t) = e.payload["targetPlayerId"].as_str().and_then(seat_of) {
                    k.seen.push((t, e.payload["alignment"] == "WEREWOLF"));
                }
            }
            Kind::PublicMessage => {
                let by = e.payload["playerId"].as_str().and_then(seat_of);
                let text = e.payload["text"].as_str().unwrap_or("");
                if let (Some(by), Some(accused)) = (by, claimed_wolf(text)) {
                    k.accusations.push((by, accused));
                }
            }
            _ => {}
        }
    }
    k
}

/// "I am the seer … p3 is a werewolf": the player a seer's claim accuses.
fn claimed_wolf(text: &str) -> Option<Seat> {
    let mentions = |word: &str| {
        text.as_bytes()
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
    };
    if !mentions("seer") || !mentions(" is a werewolf") {
        return None;
    }
    let text = text.to_lowercase();
    let at = text.find(" is a werewolf")?;
    let word = text[..at]
        .rsplit(|c: char| !c.is_ascii_alphanumeric())
        .next()?;
    seat_of(word)
}

struct Dice {
    seed: u64,
    n: u64,
}

impl Dice {
    fn pick(&mut self, from: &[Seat]) -> Option<Seat> {
        if from.is_empty() {
            return None;
        }
        Some(from[draw_below(self.seed, &mut self.n, from.len() as u64) as usize])
    }

    fn chance(&mut self, in_100: u64) -> bool {
        draw_below(self.seed, &mut self.n, 100) < in_100
    }
}

/// The action the bot in `seat` takes now, if any. `seed` varies with the match's tick.
pub fn choose(w: &Werewolf, seat: Seat, seed: u64) -> Option<Action> {
    let me = &w.players[seat];
    if w.phase == Phase::Lobby {
        return (!me.ready).then_some(Action::Ready);
    }
    if !me.alive && w.phase != Phase::DayResolution {
        return None;
    }
    let req = w.required(seat);
    let spoke = w.spoke_since_phase_began(seat);
    let busy = match w.phase {
        Phase::Night => {
            !req.done
                || (me.card == Card::Werewolf
                    && w.living_wolves().len() > 1
                    && !w.chatted_since_phase_began(seat))
        }
        Phase::DayOpening => req.kind == "SPEAK_OPENING",
        Phase::DayDiscussion => !spoke && w.may_speak(seat),
        Phase::DayVote => !req.done,
        Phase::DayResolution => w.condemned == Some((seat, false)) && w.may_speak(seat),
        _ => false,
    };
    if !busy || req.kind == "NONE" && matches!(w.phase, Phase::Night) {
        return None;
    }
    let k = learn(w, seat);
    let mut dice = Dice {
        seed: seed ^ (seat as u64).wrapping_mul(0x9E37_79B9),
        n: 0,
    };
    let living: Vec<Seat> = w.living().collect();
    let others: Vec<Seat> = living.iter().copied().filter(|&s| s != seat).collect();
    let is_wolf = |s: Seat| k.wolves.contains(&s);
    // The living a seer's claim accused (and nobody has shown to be innocent).
    let accused: Vec<Seat> = k
        .accusations
        .iter()
        .map(|a| a.1)
        .filter(|&s| w.players[s].alive && s != seat)
        .collect();
    let claimers: Vec<Seat> = k
        .accusations
        .iter()
        .map(|a| a.0)
        .filter(|&s| w.players[s].alive)
        .collect();
    match w.phase {
        Phase::Night => match k.card {
            Card::Werewolf if !req.done => {
                let partner_pick = k
                    .wolves
                    .iter()
                    .filter(|&&o| o != seat)
                    .find_map(|&o| w.night.picks[o]);
                let prey: Vec<Seat> = others.iter().copied().filter(|&s| !is_wolf(s)).collect();
                let threat: Vec<Seat> = claimers.iter().copied().filter(|&s| !is_wolf(s)).collect();
                let t = partner_pick
                    .or_else(|| dice.pick(&threat))
                    .or_else(|| dice.pick(&prey))?;
                Some(Action::Kill(Target::seat(t)))
            }
            Card::Werewolf => {
                let t = w.night.picks[seat]?;
                Some(Action::WolfChat(format!(
                    "I'm going for {} tonight.",
                    w.name(t)
                )))
            }
            Card::Seer if !req.done => {
                let unknown: Vec<Seat> = others
                    .iter()
                    .copied()
                    .filter(|s| !k.seen.iter().any(|x| x.0 == *s))
                    .collect();
                let t = dice.pick(&unknown).or_else(|| dice.pick(&others))?;
                Some(Action::Inspect(Target::seat(t)))
            }
            Card::Doctor if !req.done => {
                let allowed = |s: &Seat| req.targets.contains(s);
                let seer = claimers.iter().copied().find(|s| allowed(s));
                let t = seer
                    .or_else(|| (allowed(&seat) && dice.chance(40)).then_some(seat))
                    .or_else(|| dice.pick(&req.targets))?;
                Some(Action::Protect(Target::seat(t)))
            }
            _ => None,
        },
        Phase::DayOpening if req.kind == "SPEAK_OPENING" => {
            let line = opening(w, &k, &mut dice);
            Some(if w.may_speak(seat) {
                line
            } else {
                Action::Pass
            })
        }
        Phase::DayDiscussion => {
            let line = match k.card {
                Card::Seer => match found_wolf(w, &k) {
                    Some(wolf) => claim(wolf),
                    None => "I have no proof yet. Watch who votes together.".to_owned(),
                },
                Card::Werewolf => match accused.iter().find(|&&s| is_wolf(s)) {
                    Some(_) => {
                        let liar = claimers.iter().copied().find(|&s| !is_wolf(s));
                        match liar {
                            Some(l) => format!("{} is lying about being the seer.", player_id(l)),
                            None => "Don't rush this vote.".to_owned(),
                        }
                    }
                    None => {
                        let prey: Vec<Seat> =
                            others.iter().copied().filter(|&s| !is_wolf(s)).collect();
                        let t = dice.pick(&prey)?;
                        format!("I don't trust {} ({}).", w.name(t), player_id(t))
                    }
                },
                _ => match accused.first() {
                    Some(&a) => format!("I believe the seer: let's vote {}.", player_id(a)),
                    None => {
                        let t = dice.pick(&others)?;
                        format!("{} ({}) has been very quiet.", w.name(t), player_id(t))
                    }
                },
            };
            Some(Action::Say(line))
        }
        Phase::DayVote if !req.done => {
            let leader = crowd_leader(w, seat);
            let t = match k.card {
                Card::Seer => found_wolf(w, &k).or_else(|| {
                    let suspects: Vec<Seat> = others
                        .iter()
                        .copied()
                        .filter(|s| !k.seen.iter().any(|x| x.0 == *s && !x.1))
                        .collect();
                    leader
                        .filter(|l| suspects.contains(l))
                        .or_else(|| dice.pick(&suspects))
                }),
                Card::Werewolf => {
                    let prey: Vec<Seat> = others.iter().copied().filter(|&s| !is_wolf(s)).collect();
                    let threat = claimers.iter().copied().find(|&s| !is_wolf(s));
                    threat
                        .or_else(|| leader.filter(|l| !is_wolf(*l)))
                        .or_else(|| dice.pick(&prey))
                }
                _ => accused
                    .first()
                    .copied()
                    .or(leader)
                    .or_else(|| dice.pick(&others)),
            };
            Some(Action::Vote {
                target: t.map(Target::seat),
                reason: String::new(),
            })
        }
        Phase::DayResolution => Some(Action::Say(
            "Farewell, village. Choose wisely tonight.".to_owned(),
        )),
        _ => None,
    }
}

fn opening(w: &Werewolf, k: &Knowledge, dice: &mut Dice) -> Action {
    if k.card == Card::Seer
        && let Some(wolf) = found_wolf(w, k)
    {
        return Action::Say(claim(wolf));
    }
    if dice.chance(20) {
        return Action::Pass;
    }
    let lines = [
        "I'm just a villager trying to survive. Let's find the wolves.",
        "I slept badly. Someone here is not who they say they are.",
        "Let's hear everyone before we decide anything.",
        "I have nothing to hide. Ask me anything.",
    ];
    let i = draw_below(dice.seed, &mut dice.n, lines.len() as u64) as usize;
    Action::Say(lines[i].to_owned())
}

fn claim(wolf: Seat) -> String {
    format!("I am the seer: {} is a werewolf.", player_id(wolf))
}

/// A living wolf the seer has found.
fn found_wolf(w: &Werewolf, k: &Knowledge) -> Option<Seat> {
    k.seen
        .iter()
        .find(|(s, wolf)| *wolf && w.players[*s].alive)
        .map(|x| x.0)
}

/// Whoever has the most votes so far (not `seat`).
fn crowd_leader(w: &Werewolf, seat: Seat) -> Option<Seat> {
    let mut tally = [0u32; SEATS];
    for t in w.votes.values().flatten() {
        tally[*t] += 1;
    }
    (0..SEATS)
        .filter(|&s| s != seat && tally[s] > 0 && w.players[s].alive)
        .max_by_key(|&s| tally[s])
}
