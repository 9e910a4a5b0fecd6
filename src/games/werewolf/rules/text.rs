//! What a match says in words: the Town Crier's lines, the rules and role cards (rendered from
//! the configuration that runs, so they can never describe other rules), the text view of a
//! match, its public summary, its stored state and its report.

use serde_json::{Value, json};

use super::config::Config;
use super::events::{Event, Reader};
use super::{Card, Death, Phase, SEATS, Seat, Team, Werewolf, player_id};
use moot_game_api::{GameTime, Reading};

/// The mark that starts every narrator line a person reads. No player's words can start a
/// line with it: what players say arrives as "Name says, …", and names are single words.
pub const CRIER: &str = "[Town Crier]";

/// An event as one line for a person: narrator lines carry the crier's mark.
pub fn mark(e: &Event) -> String {
    if Werewolf::is_narrator(e.kind) {
        format!("{CRIER} {}", e.text)
    } else {
        e.text.clone()
    }
}

/// A length of the match's, `seconds` of game time, as the wall clock's seconds at `pace`.
/// Under a second a fraction shows (a fast town's 45 s night is 0.45 s, not 0 s).
fn secs_at(seconds: f64, pace: f64) -> String {
    let wall = seconds / pace;
    // (Below 0.995, so that rounding to two places cannot make it "1.00", read "1." trimmed.)
    if (0.005..0.995).contains(&wall) {
        let shown = format!("{wall:.2}");
        return format!("{} s", shown.trim_end_matches('0'));
    }
    let s = wall.round() as u64;
    if s.is_multiple_of(60) && s >= 60 {
        format!("{} min", s / 60)
    } else {
        format!("{s} s")
    }
}

pub fn created_line(w: &Werewolf) -> String {
    let names: Vec<String> = (0..SEATS).map(|s| seat_label(w, s)).collect();
    format!(
        "A Werewolf match gathers eight: {}. Ready up: the lobby closes in {}.",
        names.join(", "),
        secs_at(w.config().timers.lobby, w.config().pace)
    )
}

/// "Anna (p1)", or "Bot Bea (p2, bot)".
pub fn seat_label(w: &Werewolf, s: Seat) -> String {
    let p = &w.players[s];
    if p.bot {
        format!("{} ({}, bot)", p.name, player_id(s))
    } else {
        format!("{} ({})", p.name, player_id(s))
    }
}

pub fn role_card_line(w: &Werewolf, s: Seat) -> String {
    let card = w.players[s].card;
    let mut line = format!("You are {}. {}", article(card), role_card(card, w.config()));
    if card == Card::Werewolf {
        let partner: Vec<&str> = (0..SEATS)
            .filter(|&o| o != s && w.players[o].card == Card::Werewolf)
            .map(|o| w.name(o))
            .collect();
        line.push_str(&format!(" Your partner is {}.", partner.join(", ")));
    }
    line
}

pub(super) fn article(card: Card) -> &'static str {
    match card {
        Card::Villager => "a Villager",
        Card::Werewolf => "a Werewolf",
        Card::Seer => "the Seer",
        Card::Doctor => "the Doctor",
    }
}

pub fn phase_line(w: &Werewolf, phase: Phase) -> String {
    let c = w.config();
    let t = &c.timers;
    let secs = |seconds| secs_at(seconds, c.pace);
    match phase {
        Phase::Lobby => "The lobby is open.".to_owned(),
        Phase::Night => format!(
            "Night {} falls. Wolves, choose your victim; Seer, Doctor, act. ({})",
            w.day,
            secs(t.night)
        ),
        Phase::DayAnnounce => format!("Day {} dawns on the village.", w.day),
        Phase::DayOpening => format!(
            "Openings: each living player in turn has {} to speak.",
            secs(t.opening_each)
        ),
        Phase::DayDiscussion => {
            format!("The floor is open: discuss for {}.", secs(t.day_discussion))
        }
        Phase::DayVote => format!(
            "Vote now: who should be eliminated? ({}; a tie spares everyone.)",
            secs(t.day_vote)
        ),
        Phase::DayResolution => "The votes are counted.".to_owned(),
        Phase::Ended => "The match is over.".to_owned(),
    }
}

pub fn night_result(w: &Werewolf, killed: Option<Seat>) -> String {
    match killed {
        Some(k) => format!("Morning comes: {} was killed in the night.", w.name(k)),
        None => "Morning comes, and everyone is alive.".to_owned(),
    }
}

pub fn vote_line(w: &Werewolf, voter: Seat, target: Option<Seat>, reason: &str) -> String {
    let mut line = match target {
        Some(t) => format!("{} votes to eliminate {}.", w.name(voter), w.name(t)),
        None => format!("{} abstains.", w.name(voter)),
    };
    if !reason.is_empty() {
        line.push_str(&format!(" (\"{reason}\")"));
    }
    line
}

pub fn ending(w: &Werewolf) -> String {
    let roles: Vec<String> = (0..SEATS)
        .map(|s| format!("{} {}", w.name(s), w.players[s].card.title()))
        .collect();
    let who = match w.winner {
        Some(Team::Villagers) => "The villagers win: every werewolf is dead.",
        Some(Team::Werewolves) => "The werewolves win: they are as many as the villagers.",
        None => "The match ends without a winner: the day limit is reached.",
    };
    format!("{who} Roles: {}.", roles.join(", "))
}

/// The rules, as the configuration `c` runs them: the MCP prompt, `help werewolf` and the
/// web page all show this text.
pub fn rules(c: &Config) -> Vec<String> {
    let t = &c.timers;
    let secs = |seconds| secs_at(seconds, c.pace);
    vec![
        "Werewolf Rules v1 (werewolf.v1)".to_owned(),
        String::new(),
        "Eight players: 2 Werewolves, 1 Seer, 1 Doctor, 4 Villagers. Roles are dealt in secret \
         from the match's seed, which is published when the match ends."
            .to_owned(),
        "Villagers win when every werewolf is dead. Werewolves win as soon as they are at least \
         as many as everyone else alive. The check runs after every death."
            .to_owned(),
        String::new(),
        format!(
            "LOBBY ({}): say you are ready. It ends when all eight are, or when time runs out.",
            secs(t.lobby)
        ),
        format!(
            "NIGHT ({}): each werewolf picks a living non-wolf; a wolf's last pick counts. One \
             pick is the victim; two different picks are settled at random; no pick at all, the \
             server picks a random non-wolf. The Seer inspects one living player (not \
             themselves) and learns at once: werewolf or not. The Doctor protects one living \
             player, themselves allowed, but not the one they protected the night before; a \
             protected victim survives. Wolves may talk in private (one message per {} each).",
            secs(t.night),
            secs(c.wolf_chat_gap)
        ),
        format!(
            "DAY_ANNOUNCE ({}): the night's victim is named and their role shown.",
            secs(t.day_announce)
        ),
        format!(
            "DAY_OPENING (up to {} each): the living speak once each, in seat order, starting \
             one seat later every day; you may pass.",
            secs(t.opening_each)
        ),
        format!(
            "DAY_DISCUSSION ({}): anyone alive may speak, one message per {}.",
            secs(t.day_discussion),
            secs(c.public_chat_gap)
        ),
        format!(
            "DAY_VOTE ({}): vote for a living player other than yourself, or abstain; you may \
             change your vote until the end. Votes are public. Most votes is eliminated and \
             their role shown; a tie, or no votes, eliminates nobody.",
            secs(t.day_vote)
        ),
        format!(
            "DAY_RESOLUTION ({}): whoever was voted out may say last words. Then night falls.",
            secs(t.day_resolution)
        ),
        String::new(),
        format!(
            "NIGHT and DAY_VOTE end early, after at least {}, once everyone has acted; the \
             openings end once everyone has spoken. Nobody waits for a silent player: at each \
             deadline a missing night action is skipped (a wolf's, as above), a missing vote \
             abstains, a missing opening passes, and the miss is counted for all to see.",
            secs(t.min_dwell)
        ),
        format!(
            "The dead see everything public but never act again. A match with no winner after \
             day {} ends without one.",
            c.max_days
        ),
        "Your role is secret: the server tells nobody, but what you say is up to you.".to_owned(),
    ]
}

/// A role card as a prompt (what the role is, wins by and may do), for the configuration `c`.
pub fn role_card(card: Card, c: &Config) -> String {
    let _ = c;
    match card {
        Card::Villager => "You win by eliminating the werewolves. You have no night action: \
                           reason from what people say and how they vote, persuade, and vote."
            .to_owned(),
        Card::Werewolf => "You win when the wolves are as many as everyone else. Each night, \
                           pick a victim with your partner (you may talk in private). By day, \
                           seem innocent and steer the vote away from wolves."
            .to_owned(),
        Card::Seer => "Each night you may inspect one living player and learn at once whether \
                       they are a werewolf. Use what you learn carefully: claiming the role \
                       makes you the wolves' next target."
            .to_owned(),
        Card::Doctor => "Each night you may protect one living player (yourself too) from the \
                         wolves, but not the same player two nights running. Protect who the \
                         wolves most want dead."
            .to_owned(),
    }
}

/// A short public recap: no hidden information (`get_state`'s `publicSummary`).
pub fn summary(w: &Werewolf) -> String {
    let dead: Vec<String> = (0..SEATS)
        .filter_map(|s| {
            let p = &w.players[s];
            let how = match p.death? {
                Death::Night(n) => format!("killed on night {n}"),
                Death::Vote(d) => format!("voted out on day {d}"),
            };
            Some(format!("{} ({}, {how})", p.name, p.card.title()))
        })
        .collect();
    let alive: Vec<&str> = w.living().map(|s| w.name(s)).collect();
    let mut s = match w.phase {
        Phase::Lobby => "The match has not begun.".to_owned(),
        Phase::Ended => format!("The match is over: {}.", w.situation_words()),
        _ => format!("Day {}, {}.", w.day, w.phase.words()),
    };
    s.push_str(&format!(" Alive: {}.", alive.join(", ")));
    if !dead.is_empty() {
        s.push_str(&format!(" Dead: {}.", dead.join("; ")));
    }
    s
}

impl Werewolf {
    fn situation_words(&self) -> &'static str {
        match self.winner {
            Some(Team::Villagers) => "the villagers won",
            Some(Team::Werewolves) => "the werewolves won",
            None => "no winner",
        }
    }
}

/// What is stored after each action: the state the log implies, without the event feed (which
/// the log rebuilds), so each row stays small.
pub fn stored_state(w: &Werewolf) -> Value {
    json!({
        "phase": w.phase.name(),
        "day": w.day,
        "phaseStarted": w.phase_started,
        "players": (0..SEATS).map(|s| {
            let p = &w.players[s];
            json!([p.card.name(), p.alive, p.ready, p.misses, p.night_misses])
        }).collect::<Vec<_>>(),
        "night": {
            "picks": w.night.picks,
            "inspected": w.night.inspected,
            "protected": w.night.protected,
        },
        "lastProtected": w.last_protected,
        "votes": w.votes.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
        "winner": w.winner.map(Team::name),
        "events": w.events().len(),
    })
}

/// The match report (the winner, every role, each night's actions, the votes day by day, and
/// per-player figures as werewolf arenas publish them).
pub fn report(w: &Werewolf) -> Value {
    let nights: Vec<Value> = w
        .nights
        .iter()
        .map(|n| {
            json!({
                "night": n.night,
                "wolfPicks": n.picks.iter().map(|(a, b)| json!({"byPlayerId": player_id(*a), "targetPlayerId": player_id(*b)})).collect::<Vec<_>>(),
                "target": player_id(n.target),
                "targetChosenByServer": n.target_by_server,
                "protected": n.protected.map(player_id),
                "inspected": n.inspected.map(|(_, t, wolf)| json!({"targetPlayerId": player_id(t), "alignment": if wolf {"WEREWOLF"} else {"NOT_WEREWOLF"}})),
                "killed": n.killed.map(player_id),
            })
        })
        .collect();
    let days: Vec<Value> = w
        .days
        .iter()
        .map(|d| {
            json!({
                "day": d.day,
                "votes": d.votes.iter().map(|(v, t, missed)| json!({"voterPlayerId": player_id(*v), "targetPlayerId": t.map(player_id), "missed": missed})).collect::<Vec<_>>(),
                "eliminated": d.eliminated.map(player_id),
            })
        })
        .collect();
    let players: Vec<Value> = (0..SEATS)
        .map(|s| {
            let p = &w.players[s];
            let my_votes: Vec<Option<Seat>> = w
                .days
                .iter()
                .filter_map(|d| d.votes.iter().find(|v| v.0 == s).map(|v| v.1))
                .collect();
            let cast = my_votes.iter().flatten().count();
            let on_wolves = my_votes
                .iter()
                .flatten()
                .filter(|&&t| w.players[t].card == Card::Werewolf)
                .count();
            let survived = match p.death {
                None => w.day,
                Some(Death::Night(n)) => n.saturating_sub(1),
                Some(Death::Vote(d)) => d,
            };
            let mut v = json!({
                "playerId": player_id(s),
                "displayName": p.name,
                "bot": p.bot,
                "role": p.card.name(),
                "team": if p.card == Card::Werewolf { "WEREWOLVES" } else { "VILLAGERS" },
                "won": w.winner.is_some_and(|t| (t == Team::Werewolves) == (p.card == Card::Werewolf)),
                "alive": p.alive,
                "daysSurvived": survived,
                "misses": p.misses + p.night_misses,
                "nightMisses": p.night_misses,
                "votesCast": cast,
            });
            if p.card != Card::Werewolf {
                v["votesOnWolves"] = json!(on_wolves);
            }
            if p.card == Card::Seer {
                v["wolvesFound"] = json!(w.nights.iter().filter(|n| n.inspected.is_some_and(|i| i.2)).count());
            }
            if p.card == Card::Doctor {
                v["saves"] = json!(w.nights.iter().filter(|n| n.protected == Some(n.target) ).count());
            }
            v
        })
        .collect();
    json!({
        "winningTeam": w.winner.map(Team::name),
        "days": w.day,
        "seed": w.seed().to_string(),
        "players": players,
        "nights": nights,
        "votes": days,
    })
}

/// The report in words, for the plaque.
pub fn report_lines(w: &Werewolf) -> Vec<String> {
    let mut lines = vec![ending(w)];
    for n in &w.nights {
        let mut l = format!(
            "Night {}: the wolves went for {}",
            n.night,
            w.name(n.target)
        );
        if n.target_by_server {
            l.push_str(" (chosen by the server)");
        }
        if let Some(p) = n.protected {
            l.push_str(&format!("; the doctor protected {}", w.name(p)));
        }
        if let Some((_, t, wolf)) = n.inspected {
            l.push_str(&format!(
                "; the seer saw {}: {}",
                w.name(t),
                if wolf { "a werewolf" } else { "not a werewolf" }
            ));
        }
        l.push_str(&match n.killed {
            Some(k) => format!("; {} died.", w.name(k)),
            None => "; nobody died.".to_owned(),
        });
        lines.push(l);
    }
    for d in &w.days {
        let votes: Vec<String> = d
            .votes
            .iter()
            .map(|(v, t, missed)| {
                let t = t.map_or("nobody".to_owned(), |t| w.name(t).to_owned());
                format!(
                    "{}→{t}{}",
                    w.name(*v),
                    if *missed { " (missed)" } else { "" }
                )
            })
            .collect();
        lines.push(format!(
            "Day {} votes: {}; {}.",
            d.day,
            votes.join(", "),
            d.eliminated
                .map_or("nobody was eliminated".to_owned(), |e| format!(
                    "{} was eliminated",
                    w.name(e)
                ))
        ));
    }
    lines.push(format!(
        "Seed: {} (replay the log from it to check).",
        w.seed()
    ));
    lines
}

/// Where the match is, in plain words: "Day 2, the vote", "In the lobby".
fn when(w: &Werewolf) -> String {
    match w.phase {
        Phase::Lobby => "In the lobby".to_owned(),
        Phase::Ended => "The match is over".to_owned(),
        p => format!("Day {}, {}", w.day, p.words()),
    }
}

/// Where the match is and how long the phase has left for `reader`, in the wall clock's
/// seconds (the ones they wait, whatever `--time-scale` does to game time).
pub fn clock_line(w: &Werewolf, reader: Reader, r: Reading) -> String {
    let left = w
        .shown_end(reader)
        .map(|at| r.wall_ms(at.saturating_sub(r.now)).div_ceil(1000))
        .filter(|_| w.phase != Phase::Ended);
    match left {
        Some(s) => format!("{} ({s} s left).", when(w)),
        None => format!("{}.", when(w)),
    }
}

/// The match as text for `reader`, as `r` reads it.
pub fn render(w: &Werewolf, reader: Reader, r: Reading) -> Vec<String> {
    let mut lines = vec![clock_line(w, reader, r)];
    for s in 0..SEATS {
        let p = &w.players[s];
        let shown = !p.alive
            || w.phase == Phase::Ended
            || reader == Reader::Omniscient
            || reader == Reader::Seat(s);
        // A wolf knows its fellow wolf (the state it is shown names them too).
        let partner = matches!(reader, Reader::Seat(r) if r != s
            && w.players[r].card == Card::Werewolf
            && p.card == Card::Werewolf);
        // Drawn as columns; for a screen reader, a sentence a player.
        let (gap, mut l) = match r.plain {
            true => (", ", format!("{}: ", seat_label(w, s))),
            false => ("  ", format!("  {:<24}", seat_label(w, s))),
        };
        l.push_str(match (p.alive, r.plain) {
            (true, _) => "alive",
            (false, true) => "dead",
            (false, false) => "dead ",
        });
        if shown {
            l.push_str(&format!("{gap}{}", p.card.title()));
        } else if partner {
            l.push_str(&format!("{gap}Werewolf, your partner"));
        }
        let misses = p.misses + if shown { p.night_misses } else { 0 };
        if misses > 0 {
            l.push_str(&format!("{gap}{misses} missed"));
        }
        if r.plain {
            l.push('.');
        }
        lines.push(l);
    }
    if w.phase == Phase::DayVote && !w.votes.is_empty() {
        let votes: Vec<String> = w
            .votes
            .iter()
            .map(|(v, t)| match (r.plain, t) {
                (false, t) => format!(
                    "{}→{}",
                    w.name(*v),
                    t.map_or("abstain".to_owned(), |t| w.name(t).to_owned())
                ),
                (true, Some(t)) => format!("{} votes for {}.", w.name(*v), w.name(*t)),
                (true, None) => format!("{} abstains.", w.name(*v)),
            })
            .collect();
        match r.plain {
            true => lines.extend(votes),
            false => lines.push(format!("Votes: {}.", votes.join(", "))),
        }
    }
    if let Reader::Seat(s) = reader {
        lines.push(brief(w, s));
    }
    if w.phase == Phase::Ended {
        lines.extend(report_lines(w));
    }
    lines
}

/// What `seat` must do now, in words.
pub fn brief(w: &Werewolf, seat: Seat) -> String {
    let r = w.required(seat);
    let names = |v: &[Seat]| -> String {
        v.iter()
            .map(|&s| format!("{} ({})", w.name(s), player_id(s)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let card = w.players[seat].card.title();
    match r.kind {
        _ if !w.players[seat].alive && w.phase != Phase::Lobby => {
            "You are dead: you may watch, but not act.".to_owned()
        }
        "WOLF_KILL" if r.done => format!("You are a {card}. Your pick is in; you may change it."),
        "WOLF_KILL" => format!(
            "You are a {card}. Choose a victim: kill <name>. ({})",
            names(&r.targets)
        ),
        "SEER_INSPECT" if r.done => {
            "You are the Seer. You have had your vision tonight.".to_owned()
        }
        "SEER_INSPECT" => format!(
            "You are the Seer. Inspect someone: inspect <name>. ({})",
            names(&r.targets)
        ),
        "DOCTOR_PROTECT" if r.done => {
            "You are the Doctor. Your protection is set; you may change it.".to_owned()
        }
        "DOCTOR_PROTECT" => format!(
            "You are the Doctor. Protect someone: protect <name>. ({})",
            names(&r.targets)
        ),
        "SPEAK_OPENING" => "It is your turn to speak: say <words>, or pass.".to_owned(),
        "SPEAK_DISCUSSION" => "Discuss: say <words>.".to_owned(),
        "VOTE" if r.done => {
            "Your vote is in; you may change it: vote <name> or vote none.".to_owned()
        }
        "VOTE" => format!("Vote: vote <name> or vote none. ({})", names(&r.targets)),
        _ if w.phase == Phase::Lobby && !w.players[seat].ready => {
            format!("You are in the lobby: type ready. (Your role: {card}.)")
        }
        _ if w.condemned == Some((seat, false)) => {
            "You may say your last words: say <words>.".to_owned()
        }
        _ => format!("You are a {card}. Nothing to do right now."),
    }
}

impl Werewolf {
    /// When the current phase or turn ends.
    pub fn deadline_at(&self) -> Option<GameTime> {
        moot_game_api::Game::deadline(self).map(|d| d.at)
    }

    /// When `reader` is told the current phase or turn ends. A night ends early once every
    /// night role has acted; only the all-seeing are shown that end, since for anyone else it
    /// would move with each hidden action.
    pub fn shown_end(&self, reader: Reader) -> Option<GameTime> {
        if self.phase == Phase::Night && reader != Reader::Omniscient {
            return Some(self.phase_ends);
        }
        self.deadline_at()
    }
}
