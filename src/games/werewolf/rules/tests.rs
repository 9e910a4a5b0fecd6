//! The rules of `werewolf.v1` item by item (the deal is always two werewolves, a seer, a doctor
//! and four villagers; every tool refuses a wrong phase, role or target; timers advance; wins
//! are found; the doctor's rule holds; the feed never leaks), replays, and a leak audit over many
//! bot matches.

use serde_json::{Value, json};

use super::events::{Kind, Reader, Vis};
use super::*;
use moot_game_api::{self, Game, GameError, SERVER_ROLE};

fn code(e: &GameError) -> &'static str {
    match e {
        GameError::Refused { code, .. } => code.name(),
        _ => "OTHER",
    }
}

fn new(seed: u64) -> Werewolf {
    Werewolf::new(seed, &Value::Null).unwrap()
}

fn seats_with(w: &Werewolf, card: Card) -> Vec<Seat> {
    (0..SEATS).filter(|&s| w.players[s].card == card).collect()
}

fn one(w: &Werewolf, card: Card) -> Seat {
    seats_with(w, card)[0]
}

fn villagers(w: &Werewolf) -> Vec<Seat> {
    seats_with(w, Card::Villager)
}

/// `seat` does `action` at the match's current time.
fn act(w: &Werewolf, seat: Seat, action: &str) -> Werewolf {
    w.apply_at(player_id(seat), action, w.now)
        .unwrap_or_else(|e| panic!("{} `{action}`: {e}", player_id(seat)))
}

fn refused(w: &Werewolf, seat: Seat, action: &str) -> &'static str {
    let e = w
        .apply_at(player_id(seat), action, w.now)
        .expect_err(action);
    code(&e)
}

/// The server takes the deadline that is due next, at its time.
fn tick(w: &Werewolf) -> Werewolf {
    let d = w.deadline().expect("a deadline");
    w.act_at(SERVER_ROLE, &d.action, d.at.max(w.now)).unwrap()
}

/// Runs deadlines until the phase is `p`.
fn until(mut w: Werewolf, p: Phase) -> Werewolf {
    let mut guard = 0;
    while w.phase != p {
        w = tick(&w);
        guard += 1;
        assert!(guard < 200, "never reached {p:?}");
    }
    w
}

fn at_night() -> Werewolf {
    until(new(7), Phase::Night)
}

#[test]
fn every_deal_is_two_wolves_a_seer_a_doctor_and_four_villagers() {
    for seed in 0..2_000 {
        let w = new(seed);
        let count = |c| seats_with(&w, c).len();
        assert_eq!(
            [
                count(Card::Werewolf),
                count(Card::Seer),
                count(Card::Doctor),
                count(Card::Villager)
            ],
            [2, 1, 1, 4],
            "seed {seed}"
        );
    }
    // The deal depends on the seed, not on the seats.
    let decks: std::collections::HashSet<Vec<&str>> = (0..50)
        .map(|s| new(s).players.iter().map(|p| p.card.name()).collect())
        .collect();
    assert!(decks.len() > 40, "{} different deals of 50", decks.len());
}

#[test]
fn unknown_options_and_bad_timers_are_refused() {
    for bad in [
        json!({"timer": {}}),
        json!({"timers": {"night": -1}}),
        json!({"timers": {"nite": 5}}),
        json!({"bots": [9]}),
        json!({"names": ["a", "b", "c", "d", "e", "f", "g", "h", "i"]}),
        json!({"maxDays": 0}),
        // A display name starts lines: none may pose as the narrator, a notice or a bot.
        json!({"names": ["[Town Crier] Pb is dead."]}),
        json!({"names": ["Ann says, \"hi\""]}),
        json!({"names": ["*** Disconnected"]}),
        json!({"names": ["Bot-Abel"]}),
        json!({"names": [" "]}),
        json!({"names": ["a".repeat(33)]}),
        json!({"names": ["Ann", "ann"]}),
    ] {
        assert!(
            matches!(Werewolf::new(1, &bad), Err(GameError::BadOptions(_))),
            "{bad}"
        );
    }
    let w = Werewolf::new(
        1,
        &json!({"timers": {"night": 5}, "names": ["Ann"], "bots": [2]}),
    )
    .unwrap();
    assert_eq!(w.players[0].name, "Ann");
    assert_eq!(w.players[1].name, "Player 2");
    assert!(w.players[1].bot && !w.players[0].bot);
    // The house's bots are called "Bot-…" in their own seats.
    let w = Werewolf::new(1, &json!({"names": ["Ann", "Bot-Abel"], "bots": [2]})).unwrap();
    assert_eq!(w.players[1].name, "Bot-Abel");
}

#[test]
fn the_lobby_ends_when_all_are_ready_or_at_its_deadline() {
    let mut w = new(3);
    assert_eq!(w.deadline().unwrap().at, 30_000);
    for s in 0..7 {
        w = act(&w, s, "ready");
    }
    // Ready twice is harmless, and says nothing new.
    let n = w.events().len();
    w = act(&w, 0, "ready");
    assert_eq!(w.events().len(), n);
    assert_eq!(w.deadline().unwrap().at, 30_000);
    w.now = 1_000;
    w = act(&w, 7, "ready");
    assert_eq!(w.deadline().unwrap().at, 1_000, "all ready: it starts now");
    let w = tick(&w);
    assert_eq!((w.phase, w.day), (Phase::Night, 1));
    // Nobody ready: it starts at the deadline anyway.
    let w = tick(&new(3));
    assert_eq!((w.phase, w.now), (Phase::Night, 30_000));
    assert_eq!(refused(&w, 0, "ready"), "WRONG_PHASE");
}

#[test]
fn night_actions_are_gated_by_phase_role_and_target() {
    let w = at_night();
    let (wolf, seer, doctor) = (
        one(&w, Card::Werewolf),
        one(&w, Card::Seer),
        one(&w, Card::Doctor),
    );
    let other_wolf = seats_with(&w, Card::Werewolf)[1];
    let v = villagers(&w)[0];
    assert_eq!(
        refused(&w, v, &format!("kill {}", player_id(seer))),
        "WRONG_ROLE"
    );
    assert_eq!(
        refused(&w, v, &format!("inspect {}", player_id(seer))),
        "WRONG_ROLE"
    );
    assert_eq!(
        refused(&w, v, &format!("protect {}", player_id(seer))),
        "WRONG_ROLE"
    );
    assert_eq!(refused(&w, v, "wolfchat hello"), "WRONG_ROLE");
    assert_eq!(
        refused(&w, wolf, &format!("kill {}", player_id(other_wolf))),
        "INVALID_TARGET"
    );
    assert_eq!(refused(&w, wolf, "kill p9"), "INVALID_TARGET");
    assert_eq!(refused(&w, wolf, "kill Bob"), "INVALID_TARGET");
    assert_eq!(
        refused(&w, seer, &format!("inspect {}", player_id(seer))),
        "INVALID_TARGET"
    );
    assert_eq!(refused(&w, v, "say hello"), "WRONG_PHASE");
    assert_eq!(refused(&w, v, "vote p1"), "WRONG_PHASE");
    assert!(matches!(
        w.apply_at(player_id(v), "dance", w.now),
        Err(GameError::Illegal(_))
    ));
    // The seer inspects once a night, and learns at once, privately.
    let w = act(&w, seer, &format!("inspect {}", player_id(wolf)));
    let e = w.fresh_events()[0].clone();
    assert_eq!(e.kind, Kind::SeerResult);
    assert_eq!(e.vis, Vis::Private(vec![seer]));
    assert_eq!(e.payload["alignment"], "WEREWOLF");
    assert_eq!(
        refused(&w, seer, &format!("inspect {}", player_id(v))),
        "ALREADY_SUBMITTED"
    );
    // A doctor shows as not a werewolf: alignment only.
    let w2 = at_night();
    let w2 = act(&w2, seer, &format!("inspect {}", player_id(doctor)));
    assert_eq!(w2.fresh_events()[0].payload["alignment"], "NOT_WEREWOLF");
    // Wolves may change their pick; the last counts.
    let w = act(&w, wolf, &format!("kill {}", player_id(v)));
    let w = act(&w, wolf, &format!("kill {}", player_id(doctor)));
    assert_eq!(w.night.picks[wolf], Some(doctor));
    // Wolf chat reaches the living wolves only.
    let w = act(&w, wolf, "wolfchat the doctor tonight");
    let e = w.fresh_events()[0].clone();
    assert_eq!(e.kind, Kind::WolfChatMessage);
    assert!(e.admits(Reader::Seat(other_wolf)) && e.admits(Reader::Seat(wolf)));
    assert!(!e.admits(Reader::Seat(v)) && !e.admits(Reader::Public));
    assert!(e.admits(Reader::Omniscient));
}

#[test]
fn chat_is_rate_limited_in_game_time_with_a_retry_after() {
    let w = at_night();
    let wolf = one(&w, Card::Werewolf);
    let w = act(&w, wolf, "wolfchat one");
    let e = w
        .apply_at(player_id(wolf), "wolfchat two", w.now + 500)
        .unwrap_err();
    assert!(
        matches!(
            e,
            GameError::Refused {
                code: moot_game_api::Code::RateLimited,
                retry_after_ms: Some(1500),
                ..
            }
        ),
        "{e:?}"
    );
    w.apply_at(player_id(wolf), "wolfchat two", w.now + 2_000)
        .unwrap();
    assert!(matches!(
        w.apply_at(
            player_id(wolf),
            &format!("wolfchat {}", "x".repeat(401)),
            w.now + 5_000
        ),
        Err(GameError::Illegal(_))
    ));
}

/// Night 1 with these picks, then the day up to `phase`.
fn night(w: &Werewolf, kill: Seat, protect: Option<Seat>) -> Werewolf {
    let mut w = w.clone();
    for wolf in w.living_wolves() {
        w = act(&w, wolf, &format!("kill {}", player_id(kill)));
    }
    if let Some(p) = protect {
        w = act(
            &w,
            one(&w, Card::Doctor),
            &format!("protect {}", player_id(p)),
        );
    }
    until(w, Phase::DayAnnounce)
}

#[test]
fn the_doctor_saves_and_may_not_repeat_on_consecutive_nights() {
    let w = at_night();
    let doctor = one(&w, Card::Doctor);
    let v = villagers(&w)[0];
    let w = night(&w, v, Some(v));
    assert!(w.players[v].alive, "the protected victim survives");
    let result = w
        .events()
        .iter()
        .rev()
        .find(|e| e.kind == Kind::NightResult)
        .unwrap();
    assert_eq!(result.payload_for(Reader::Public)["savedByDoctor"], true);
    assert!(
        result
            .payload_for(Reader::Seat(v))
            .get("savedByDoctor")
            .is_none(),
        "players are not told"
    );
    assert_eq!(result.payload["killedPlayerId"], Value::Null);
    let w = until(w, Phase::Night);
    assert_eq!(
        refused(&w, doctor, &format!("protect {}", player_id(v))),
        "DOCTOR_REPEAT_TARGET"
    );
    // Self-protection is allowed.
    act(&w, doctor, &format!("protect {}", player_id(doctor)));
    // The doctor skips night 2 (the wolves take another villager); on night 3, protecting
    // night 1's choice again is allowed: the rule looks at the previous night only.
    let v2 = villagers(&w)[1];
    let w = night(&w, v2, None);
    assert!(!w.players[v2].alive);
    let w = until(w, Phase::Night);
    assert_eq!(w.day, 3);
    act(&w, doctor, &format!("protect {}", player_id(v)));
}

#[test]
fn wolves_disagreeing_are_settled_by_the_seed_and_silence_picks_a_random_non_wolf() {
    let mut targets = std::collections::HashSet::new();
    for seed in 0..40 {
        let w = until(new(seed), Phase::Night);
        let wolves = seats_with(&w, Card::Werewolf);
        let vs = villagers(&w);
        let w = act(&w, wolves[0], &format!("kill {}", player_id(vs[0])));
        let w = act(&w, wolves[1], &format!("kill {}", player_id(vs[1])));
        let w = until(w, Phase::DayAnnounce);
        let killed = w.nights[0].killed.unwrap();
        assert!(killed == vs[0] || killed == vs[1]);
        targets.insert(killed == vs[0]);
        // Nobody picks: a living non-wolf dies all the same (the server picks), and it is counted as a
        // miss for each silent night actor, shown only to all-seeing spectators.
        let w = until(until(new(seed), Phase::Night), Phase::DayAnnounce);
        let n = &w.nights[0];
        assert!(n.target_by_server && w.players[n.target].card != Card::Werewolf);
        let misses: Vec<_> = w
            .events()
            .iter()
            .filter(|e| e.kind == Kind::ActionMissed)
            .collect();
        assert_eq!(misses.len(), 4, "two wolves, the seer and the doctor");
        assert!(misses.iter().all(|e| e.vis == Vis::Omniscient));
    }
    assert_eq!(targets.len(), 2, "both picks win sometimes");
}

#[test]
fn a_night_ends_early_once_everyone_acted_but_not_before_the_dwell() {
    let w = at_night();
    let start = w.phase_started;
    assert_eq!(w.deadline().unwrap().at, start + 45_000);
    let (wolves, seer, doctor) = (
        seats_with(&w, Card::Werewolf),
        one(&w, Card::Seer),
        one(&w, Card::Doctor),
    );
    let v = villagers(&w)[0];
    let mut w = w;
    for wolf in wolves {
        w = act(&w, wolf, &format!("kill {}", player_id(v)));
    }
    w = act(&w, seer, &format!("inspect {}", player_id(v)));
    assert_eq!(
        w.deadline().unwrap().at,
        start + 45_000,
        "the doctor has not acted"
    );
    w = act(&w, doctor, &format!("protect {}", player_id(doctor)));
    assert_eq!(
        w.deadline().unwrap().at,
        start + 3_000,
        "ends after the minimum dwell"
    );
    w.now = start + 10_000;
    let w = w
        .apply_at(player_id(seer), "inspect p1", start + 10_000)
        .map(|_| ())
        .unwrap_err();
    let _ = w;
}

#[test]
fn openings_go_in_seat_order_from_a_seat_that_moves_each_day() {
    let w = until(at_night(), Phase::DayOpening);
    let first = w.openings.speaker().unwrap();
    let order = w.openings.order.clone();
    assert!(
        order
            .windows(2)
            .all(|p| (p[0] + 1) % SEATS <= p[1] || p[1] < p[0])
    );
    let other = order[1];
    assert_eq!(refused(&w, other, "say me first"), "NOT_YOUR_TURN");
    let req = w.required(first);
    assert_eq!(req.kind, "SPEAK_OPENING");
    assert_eq!(w.required(other).kind, "NONE");
    let w = act(&w, first, "say Hello, I am innocent.");
    assert_eq!(w.openings.speaker(), Some(other));
    let msg = w
        .events()
        .iter()
        .rev()
        .find(|e| e.kind == Kind::PublicMessage)
        .unwrap();
    assert_eq!(msg.payload["kind"], "OPENING");
    // A silent speaker's turn ends at its own deadline and counts as a miss, publicly.
    let d = w.deadline().unwrap();
    assert_eq!(d.at, w.now + 15_000);
    let before = w.players[other].misses;
    let w = tick(&w);
    assert_eq!(w.players[other].misses, before + 1);
    let missed = w
        .events()
        .iter()
        .rev()
        .find(|e| e.kind == Kind::ActionMissed)
        .unwrap();
    assert_eq!(missed.vis, Vis::Public);
    // Everyone else passes: the openings end, and discussion begins.
    let mut w = w;
    while let Some(s) = w.openings.speaker() {
        w = act(&w, s, "pass");
    }
    let w = tick(&w);
    assert_eq!(w.phase, Phase::DayDiscussion);
    // The next day starts one seat later.
    let w = until(w, Phase::DayOpening);
    if w.phase == Phase::DayOpening {
        let next_first = w.openings.order[0];
        assert!(next_first != first || !w.players[(first + 1) % SEATS].alive);
    }
}

#[test]
fn votes_plurality_eliminates_and_a_tie_or_no_votes_spares_everyone() {
    // No votes at all.
    let w = until(at_night(), Phase::DayVote);
    let alive = w.living().count();
    let w = tick(&w);
    assert_eq!(w.living().count(), alive, "no votes: nobody");
    assert!(
        w.days[0].votes.iter().all(|v| v.2),
        "every silent voter missed"
    );
    // A tie.
    let w = until(w, Phase::DayVote);
    let living: Vec<Seat> = w.living().collect();
    let (a, b) = (living[0], living[1]);
    let mut w2 = act(&w, a, &format!("vote {}", player_id(b)));
    w2 = act(&w2, b, &format!("vote {}", player_id(a)));
    assert_eq!(
        refused(&w2, a, &format!("vote {}", player_id(a))),
        "INVALID_TARGET"
    );
    let w2 = tick(&w2);
    assert_eq!(w2.days.last().unwrap().eliminated, None);
    // A plurality, with a changed vote and an abstention.
    let c = living[2];
    let mut w3 = act(&w, a, &format!("vote {}", player_id(c)));
    w3 = act(&w3, b, &format!("vote {}", player_id(a)));
    w3 = act(&w3, b, &format!("vote {} changed my mind", player_id(c)));
    w3 = act(&w3, c, "vote none");
    assert_eq!(
        w3.tally()[player_id(c)],
        json!([player_id(a), player_id(b)])
    );
    let w3 = tick(&w3);
    assert_eq!(w3.days.last().unwrap().eliminated, Some(c));
    assert!(!w3.players[c].alive);
    let gone = w3
        .events()
        .iter()
        .rev()
        .find(|e| e.kind == Kind::PlayerEliminated)
        .unwrap();
    assert_eq!(gone.payload["roleRevealed"], w3.players[c].card.name());
    // The votes are counted before the town hears who dies of them.
    let lines: Vec<&str> = w3.fresh_events().iter().map(|e| e.text.as_str()).collect();
    let counted = lines.iter().position(|l| *l == "The votes are counted.");
    let dead = lines.iter().position(|l| l.contains(" is dead. "));
    if w3.phase == Phase::DayResolution {
        assert!(counted.is_some() && counted < dead, "{lines:#?}");
    } else {
        assert!(counted.is_none() && dead.is_some(), "{lines:#?}");
    }
    if w3.phase == Phase::DayResolution {
        // Last words, once.
        let w4 = act(&w3, c, "say I was innocent!");
        let e = w4.fresh_events()[0].clone();
        assert_eq!(e.payload["kind"], "LAST_WORDS");
        assert_eq!(refused(&w4, c, "say again"), "ALREADY_SUBMITTED");
        assert_eq!(refused(&w4, c, "vote none"), "WRONG_PHASE");
        let w5 = until(w4, Phase::Night);
        // The dead never act again.
        assert_eq!(
            refused(&w5, c, "kill p1"),
            if w5.players[c].card == Card::Werewolf {
                "NOT_YOUR_TURN"
            } else {
                "WRONG_ROLE"
            }
        );
    }
}

#[test]
fn villagers_win_when_the_last_wolf_dies_and_wolves_win_at_parity() {
    // Vote both wolves out on days 1 and 2 (nobody acts at night: the server's picks kill).
    let mut w = at_night();
    let wolves = seats_with(&w, Card::Werewolf);
    for wolf in &wolves {
        w = until(w, Phase::DayVote);
        if w.phase == Phase::Ended {
            break;
        }
        for s in w.living().collect::<Vec<_>>() {
            if s != *wolf {
                w = act(&w, s, &format!("vote {}", player_id(*wolf)));
            }
        }
        w = tick(&w);
    }
    if w.winner.is_some() {
        assert_eq!(w.phase, Phase::Ended);
    }
    let ended = w.events().iter().any(|e| e.kind == Kind::GameEnded);
    assert!(ended || w.phase != Phase::Ended);
    if wolves.iter().all(|&x| !w.players[x].alive) {
        assert_eq!(w.winner, Some(Team::Villagers));
    }
    // Parity: wolves kill every night and villagers vote out villagers.
    let mut w = at_night();
    let mut guard = 0;
    while w.phase != Phase::Ended {
        guard += 1;
        assert!(guard < 500);
        if w.phase == Phase::DayVote {
            let prey = w
                .living()
                .find(|&s| w.players[s].card != Card::Werewolf)
                .unwrap();
            for s in w.living().collect::<Vec<_>>() {
                if s != prey {
                    w = act(&w, s, &format!("vote {}", player_id(prey)));
                }
            }
        }
        w = tick(&w);
    }
    assert_eq!(w.winner, Some(Team::Werewolves));
    let wolves_alive = w.living_wolves().len();
    assert!(wolves_alive >= w.living().count() - wolves_alive);
    let end = w.events().last().unwrap();
    assert_eq!(end.kind, Kind::GameEnded);
    assert_eq!(end.payload["winningTeam"], "WEREWOLVES");
    assert_eq!(w.deadline(), None);
    assert_eq!(refused(&w, 0, "ready"), "WRONG_PHASE");
}

#[test]
fn a_match_nobody_plays_still_ends() {
    for seed in 0..50 {
        let mut w = new(seed);
        let mut steps = 0;
        while w.phase != Phase::Ended {
            w = tick(&w);
            steps += 1;
            assert!(steps < 400, "seed {seed} stalled in {:?}", w.phase);
        }
        // With nobody voting, only the wolves kill: they win.
        assert_eq!(w.winner, Some(Team::Werewolves), "seed {seed}");
        let votes_missed: u32 = w.players.iter().map(|p| p.misses).sum();
        assert!(votes_missed > 0);
    }
}

#[test]
fn the_server_takes_only_the_deadline_that_is_due() {
    let w = new(5);
    let d = w.deadline().unwrap();
    assert!(
        w.act_at(SERVER_ROLE, &d.action, d.at - 1).is_err(),
        "too early"
    );
    assert!(
        w.apply_at(SERVER_ROLE, "end NIGHT 1", d.at).is_err(),
        "not this one"
    );
    assert!(w.act_at(SERVER_ROLE, &d.action, d.at).is_ok());
}

/// Plays a match to its end with bots in every seat, as the host would: a bot acts when it has
/// something to do (seat order), otherwise the server takes the next deadline. Returns the
/// final state and its log.
pub(crate) fn bot_match(seed: u64) -> (Werewolf, Vec<(String, String, GameTime)>) {
    bot_match_seeing(seed, |_| ())
}

/// [`bot_match`], showing `each` the state after every action.
fn bot_match_seeing(
    seed: u64,
    mut each: impl FnMut(&Werewolf),
) -> (Werewolf, Vec<(String, String, GameTime)>) {
    let mut w = Werewolf::new(seed, &json!({"bots": [1, 2, 3, 4, 5, 6, 7, 8]})).unwrap();
    let mut log = Vec::new();
    let mut steps = 0u64;
    while !w.is_terminal() {
        steps += 1;
        assert!(steps < 5_000, "seed {seed}: a match that does not end");
        let bot = (0..SEATS).find_map(|s| {
            let a = bot::choose(&w, s, seed ^ steps.wrapping_mul(0x2545_F491))?;
            Some((s, a))
        });
        let (role, action, at) = match bot {
            // Bots take a moment; a phase's deadline comes first if it is due.
            Some((s, a)) if w.deadline().is_none_or(|d| w.now + 250 < d.at) => {
                (player_id(s).to_owned(), a.to_string(), w.now + 250)
            }
            _ => {
                let d = w.deadline().unwrap();
                (
                    SERVER_ROLE.to_owned(),
                    d.action.to_string(),
                    d.at.max(w.now),
                )
            }
        };
        w = w
            .apply_at(&role, &action, at)
            .unwrap_or_else(|e| panic!("seed {seed}: {role} `{action}` refused: {e}"));
        log.push((role, action, at));
        each(&w);
    }
    (w, log)
}

#[test]
fn a_thousand_bot_matches_replay_exactly_from_seed_and_log() {
    let t = &moot_game_api::template::<Werewolf>();
    let options = json!({"bots": [1, 2, 3, 4, 5, 6, 7, 8]});
    for seed in 0..1_000 {
        let mut states = Vec::new();
        let (_, log) = bot_match_seeing(seed, |w| states.push(w.clone()));
        // Replayed from the seed and the log alone, every state on the way is the same, events
        // and all, not only the last.
        let mut game = (t.new)(seed, &options).unwrap();
        for (step, ((role, action, at), played)) in log.iter().zip(&states).enumerate() {
            game = game.apply_logged(role, action, *at).unwrap();
            let replayed = game.as_any().downcast_ref::<Werewolf>().unwrap();
            assert_eq!(
                replayed, played,
                "seed {seed}, step {step}: `{role}` `{action}`"
            );
        }
        assert_eq!(states.len(), log.len());
        // And the host's own replay agrees.
        let replayed = moot_game_api::replay(
            t,
            seed,
            &options,
            log.iter().map(|(r, a, at)| (r.as_str(), a.as_str(), *at)),
        )
        .unwrap();
        assert_eq!(replayed.state(), game.state(), "seed {seed}");
    }
}

#[test]
fn ten_thousand_bot_matches_never_show_anyone_what_they_may_not_know() {
    let mut village_wins = 0;
    let matches = 10_000;
    for seed in 0..matches {
        let mut w = Werewolf::new(seed, &json!({"bots": [1, 2, 3, 4, 5, 6, 7, 8]})).unwrap();
        let mut steps = 0u64;
        // In eight matches of nine one seat never acts, so misses (by night too) are audited.
        let absent = (seed % 9) as usize;
        while !w.is_terminal() {
            steps += 1;
            let bot = (0..SEATS).filter(|&s| s != absent).find_map(|s| {
                Some((
                    s,
                    bot::choose(&w, s, seed ^ steps.wrapping_mul(0x2545_F491))?.to_string(),
                ))
            });
            let (role, action) = match bot {
                Some((s, a)) if w.deadline().is_none_or(|d| w.now + 250 < d.at) => {
                    // What each reader could read before: an action hidden from them must
                    // change none of it (ids, cursors, state, key moments).
                    let before: Vec<(Reader, Value)> = if seed < 100 {
                        (0..SEATS)
                            .map(Reader::Seat)
                            .chain([Reader::Public])
                            .map(|r| (r, audit::snapshot(&w, r)))
                            .collect()
                    } else {
                        Vec::new()
                    };
                    w = w.apply_at(player_id(s), &a, w.now + 250).unwrap();
                    for (r, was) in before {
                        let viewer = match r {
                            Reader::Seat(v) => Some(player_id(v)),
                            _ => None,
                        };
                        if Game::action_view(&w, viewer, player_id(s), &a.parse().unwrap())
                            .is_none()
                        {
                            assert_eq!(
                                audit::snapshot(&w, r),
                                was,
                                "seed {seed}: {r:?} could tell {} did `{a}`",
                                player_id(s)
                            );
                        }
                    }
                    (player_id(s).to_owned(), a)
                }
                _ => {
                    let d = w.deadline().unwrap();
                    w = tick(&w);
                    (SERVER_ROLE.to_owned(), d.action.to_string())
                }
            };
            let readers = (0..SEATS)
                .map(Reader::Seat)
                .chain([Reader::Public, Reader::Omniscient]);
            let typed: Action = action.parse().unwrap();
            let notes = Game::notes(&w, &role, &typed);
            for reader in readers {
                for e in w.fresh_events() {
                    audit::event(&w, e, reader).unwrap();
                }
                // What the host sends each follower (telnet lines) and shows in the log.
                audit::notes(&w, &notes, reader).unwrap();
                let shown = match reader {
                    Reader::Seat(s) => Game::action_view(&w, Some(player_id(s)), &role, &typed),
                    _ => None,
                };
                audit::log_entry(&w, reader, &role, &action, shown.as_deref()).unwrap();
            }
            // Whole views: every reader after every step in the first twenty matches; after
            // that, one reader in turn at each change of phase (views are costly to build,
            // and between phase changes only events are new, which are all checked above).
            if seed < 20 {
                for s in 0..SEATS {
                    audit::view(&w, Reader::Seat(s)).unwrap();
                }
                audit::view(&w, Reader::Public).unwrap();
            } else if w
                .fresh_events()
                .iter()
                .any(|e| e.kind == Kind::PhaseChanged)
            {
                let r = (steps as usize + seed as usize) % (SEATS + 1);
                audit::view(
                    &w,
                    if r == SEATS {
                        Reader::Public
                    } else {
                        Reader::Seat(r)
                    },
                )
                .unwrap();
            }
        }
        village_wins += usize::from(w.winner == Some(Team::Villagers));
    }
    assert!(
        village_wins > 0 && village_wins < matches as usize,
        "house bots: the village won {village_wins} of {matches} matches"
    );
}

#[test]
fn the_report_tells_everything_once_the_match_is_over_and_nothing_before() {
    let (w, _) = bot_match(11);
    let r = w.report().unwrap();
    assert_eq!(r["players"].as_array().unwrap().len(), 8);
    assert_eq!(r["seed"], "11");
    assert!(r["nights"].as_array().unwrap().len() as u32 >= w.day.saturating_sub(1));
    let early = until(new(11), Phase::Night);
    assert!(early.report().is_none());
    assert!(
        !early
            .state_for(Reader::Public, 5)
            .to_string()
            .contains("seed")
    );
    let lines = text::report_lines(&w);
    assert!(lines[0].contains("win") || lines[0].contains("without"));
}

#[test]
fn the_rules_text_follows_the_configuration_that_runs() {
    let fast = Config::from_options(&json!({"timers": {"night": 20, "dayVote": 60}})).unwrap();
    let text = text::rules(&fast).join("\n");
    assert!(text.contains("NIGHT (20 s)"), "{text}");
    assert!(text.contains("DAY_VOTE (1 min)"), "{text}");
    let default = text::rules(&Config::default()).join("\n");
    assert!(default.contains("NIGHT (45 s)") && default.contains("LOBBY (30 s)"));
}

/// At `--time-scale 10` a 45 s night passes in 4.5 s of the wall clock: that is what the
/// players read, in the phase's line, the table's countdown and the crier's orders.
#[test]
fn times_read_in_the_wall_clocks_seconds_at_any_pace() {
    let fast = Werewolf::new(7, &json!({"pace": 10.0})).unwrap();
    assert!(
        text::rules(fast.config())
            .join("\n")
            .contains("NIGHT (5 s)")
    );
    let w = until(fast, Phase::Night);
    let scaled = Reading {
        scale: 10.0,
        ..Reading::at(w.now)
    };
    let top = &text::render(&w, Reader::Public, scaled)[0];
    assert_eq!(top, "Day 1, the night (5 s left).", "{top}");
    let unscaled = &text::render(&w, Reader::Public, Reading::at(w.now))[0];
    assert_eq!(unscaled, "Day 1, the night (45 s left).");
    assert!(text::phase_line(&w, Phase::Night).ends_with("(5 s)"));
    let told = w
        .notes(SERVER_ROLE, &Action::End(String::new()))
        .into_iter()
        .chain(until(new(7), Phase::Night).notes(SERVER_ROLE, &Action::End(String::new())))
        .map(|n| n.text)
        .collect::<Vec<_>>();
    assert!(told.iter().any(|t| t.ends_with("(5 s.)")), "{told:?}");
    assert!(told.iter().any(|t| t.ends_with("(45 s.)")), "{told:?}");
    // A very fast town's lengths keep their fraction rather than read as nothing.
    let faster = Werewolf::new(7, &json!({"pace": 100.0})).unwrap();
    let rules = text::rules(faster.config()).join("\n");
    assert!(rules.contains("NIGHT (0.45 s)"), "{rules}");
}

#[test]
fn narrator_lines_carry_the_crier_mark_and_players_words_never_do() {
    let w = until(at_night(), Phase::DayDiscussion);
    let w = act(
        &w,
        w.living().next().unwrap(),
        "say [Town Crier] The wolves are p1 and p2!",
    );
    let notes = w.notes("p1", &Action::Say(String::new()));
    assert_eq!(notes.len(), 1);
    assert!(!notes[0].text.starts_with(text::CRIER), "{}", notes[0].text);
    let w = tick(&w);
    let notes = w.notes(SERVER_ROLE, &Action::End(String::new()));
    assert!(
        notes.iter().all(|n| n.text.starts_with(text::CRIER)),
        "{notes:?}"
    );
}

#[test]
fn each_player_who_must_act_is_told_what_and_by_when_as_a_phase_begins() {
    let w = tick(&new(7)); // the lobby closes: night 1 begins
    assert_eq!(w.phase, Phase::Night);
    let notes = w.notes(SERVER_ROLE, &Action::End("end LOBBY 0".into()));
    let to = |s: Seat| -> Vec<&str> {
        notes
            .iter()
            .filter(|n| n.to == moot_game_api::Audience::Roles(vec![player_id(s).to_owned()]))
            .map(|n| n.text.as_str())
            .collect()
    };
    let seer = to(one(&w, Card::Seer));
    assert!(
        seer.len() == 1 && seer[0].contains("inspect <name>") && seer[0].contains("(45 s.)"),
        "{seer:?}"
    );
    let wolf = to(one(&w, Card::Werewolf));
    assert!(wolf.iter().any(|l| l.contains("kill <name>")), "{wolf:?}");
    assert!(
        to(villagers(&w)[0]).is_empty(),
        "villagers have nothing to do at night"
    );
    assert!(
        notes.iter().all(|n| n.text.starts_with(text::CRIER)),
        "{notes:?}"
    );
}

/// A missed night action is for all-seeing eyes only; counting it in the misses everyone reads
/// would show who holds a night role (villagers have nothing to miss at night).
#[test]
fn a_missed_night_action_shows_in_no_count_a_player_or_the_public_reads() {
    let w = at_night();
    let (seer, doctor) = (one(&w, Card::Seer), one(&w, Card::Doctor));
    // Nobody acts: the wolves, the seer and the doctor all miss the night.
    let w = until(w, Phase::DayAnnounce);
    let w = until(w, Phase::DayOpening);
    let v = villagers(&w)
        .into_iter()
        .find(|&s| w.players[s].alive)
        .unwrap();
    for reader in [Reader::Public, Reader::Seat(v)] {
        let state = w.state_for(reader, 10);
        for p in state["players"].as_array().unwrap() {
            let s = seat_of(p["playerId"].as_str().unwrap()).unwrap();
            if w.players[s].alive {
                assert_eq!(p["misses"], 0, "{reader:?} reads {p}");
            }
        }
        for line in text::render(&w, reader, Reading::at(w.now)) {
            if line.contains("alive") {
                assert!(!line.contains("missed"), "{reader:?} reads {line:?}");
            }
        }
    }
    // The all-seeing see them, and each night actor sees their own.
    let all = w.state_for(Reader::Omniscient, 10);
    let seer_row = &all["players"][seer];
    assert!(w.players[seer].alive);
    assert_eq!(seer_row["misses"], 1, "{seer_row}");
    let own = w.state_for(Reader::Seat(doctor), 10);
    if w.players[doctor].alive {
        assert_eq!(own["players"][doctor]["misses"], 1);
    }
    // A public miss by day then counts from zero, not from the hidden night.
    let actor = [seer, doctor]
        .into_iter()
        .find(|&s| w.players[s].alive)
        .unwrap();
    let w = until(w, Phase::DayVote);
    let day_miss = w
        .events()
        .iter()
        .find(|e| {
            e.kind == Kind::ActionMissed
                && e.vis == Vis::Public
                && e.payload["playerId"] == player_id(actor)
        })
        .expect("a missed opening, in public");
    assert_eq!(day_miss.payload["misses"], 1, "{}", day_miss.payload);
}

#[test]
fn actions_are_logged_as_the_rules_read_them() {
    let w = at_night();
    let read = |text: &str| Game::parse(&w, "p1", text).unwrap();
    // A reply names an event by the replier's own id; the log keeps its public place, so a
    // reader's log counts no event hidden from them. Spaces around change nothing.
    assert_eq!(read("  reply e000000 hi").to_string(), "reply @0 hi");
    // An id that names no public event the replier has is kept so that the rules refuse it.
    let unknown = read("reply e999999 hi");
    assert_eq!(unknown.to_string(), "reply ?e999999 hi");
    assert_eq!(
        code(&w.act_at("p1", &unknown, w.now).unwrap_err()),
        "INVALID_TARGET"
    );
    // A night verb with a space before it is logged as the night verb it is.
    assert_eq!(read(" kill p3").to_string(), "kill p3");
    assert_eq!(read(" kill p3"), Action::Kill(Target("p3".into())));
    // Every spelling the log has kept reads back as the action it printed, old logs' whole-feed
    // reply ids among them.
    for logged in [
        "ready",
        "kill p3",
        "inspect p2",
        "protect p4",
        "wolfchat I'm going for Bot-Fionn tonight.",
        "pass",
        "say Let's hear everyone before we decide anything.",
        "reply @0 hi",
        "reply ?e999999 hi",
        "reply e000004 old feed",
        "vote p3",
        "vote none",
        "vote p4 the quiet one",
        "end NIGHT 1",
        "end DAY_OPENING 1 p5",
    ] {
        let action: Action = logged.parse().unwrap();
        assert_eq!(action.to_string(), logged);
    }
    assert_eq!(
        "dance".parse::<Action>().unwrap_err().to_string(),
        "`dance` is not a Werewolf action (ready, kill, inspect, protect, wolfchat, say, \
         reply, pass, vote)"
    );
}

#[test]
fn the_deadline_owes_a_miss_to_exactly_those_it_counts_one_against() {
    let misses = |w: &Werewolf| -> Vec<u32> {
        w.players
            .iter()
            .map(|p| p.misses + p.night_misses)
            .collect()
    };
    let mut w = at_night();
    let wolf = seats_with(&w, Card::Werewolf)[0];
    w = act(&w, wolf, &format!("kill {}", player_id(villagers(&w)[0])));
    // A whole match of deadlines nobody else meets: each owes exactly the misses it counts.
    let (mut guard, mut owed) = (0, 0);
    while w.phase != Phase::Ended {
        let owing: Vec<&str> = Game::owing(&w);
        owed += owing.len();
        let before = misses(&w);
        let next = tick(&w);
        let after = misses(&next);
        let counted: Vec<&str> = (0..SEATS)
            .filter(|&s| after[s] > before[s])
            .map(player_id)
            .collect();
        let mut sorted = owing.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, counted, "{:?}", w.phase);
        w = next;
        guard += 1;
        assert!(guard < 500);
    }
    assert!(Game::owing(&w).is_empty());
    assert!(owed > 0, "some deadline found someone owing");
}

/// A wolf's roster marks its fellow wolf (which the wolf knows from the start), nobody else's
/// does, and the phase is told in plain words.
#[test]
fn a_wolfs_roster_marks_its_partner_and_no_other_reader_sees_it() {
    let w = until(new(11), Phase::Night);
    let wolves = seats_with(&w, Card::Werewolf);
    let (a, b) = (wolves[0], wolves[1]);
    let mine = text::render(&w, Reader::Seat(a), Reading::at(w.now));
    let row = mine.iter().find(|l| l.contains(w.name(b))).unwrap();
    assert!(row.ends_with("Werewolf, your partner"), "{mine:#?}");
    assert!(
        mine[0].starts_with("Day ") && mine[0].contains(", the night"),
        "{mine:#?}"
    );
    for reader in [Reader::Seat(one(&w, Card::Seer)), Reader::Public] {
        let theirs = text::render(&w, reader, Reading::at(w.now)).join("\n");
        assert!(!theirs.contains("Werewolf"), "{theirs}");
    }
}

/// A target that names no one is answered with the players it was likely a slip for, by name
/// or by the name without its prefix (which names a player too).
#[test]
fn a_target_that_names_no_one_is_answered_with_the_likely_players() {
    let names = json!({
        "names": ["Ann", "Bot-Abel", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal"],
        "bots": [2]
    });
    let w = until(Werewolf::new(7, &names).unwrap(), Phase::Night);
    let wolf = one(&w, Card::Werewolf);
    let said = |action: &str| {
        w.apply_at(player_id(wolf), action, w.now)
            .expect_err(action)
            .to_string()
    };
    assert!(
        said("kill Abl").ends_with("Did you mean Abel?"),
        "{}",
        said("kill Abl")
    );
    assert!(
        said("kill Eva").ends_with("Did you mean Eve?"),
        "{}",
        said("kill Eva")
    );
    assert!(!said("kill Zebedee").contains("Did you mean"));
}
