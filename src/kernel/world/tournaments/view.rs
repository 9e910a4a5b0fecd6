//! An event as every face shows it: a line in the list, its page (standings with their
//! tie-breaks, every round's games linking to their sessions), and a player's own pairing.
//! Built once here, so telnet, MCP, REST and the web say the same thing.

use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::play::trim;
use super::{Field, Status, Tournament};
use crate::tournament::{Format, Outcome, Pairing};
use crate::world::World;
use crate::world::sessions::iso;

/// How many of an arena's latest pairings its page shows.
pub const ARENA_ROUNDS_SHOWN: usize = 50;

/// An event in a list.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Summary {
    pub id: u32,
    pub name: String,
    /// The game's word (`chess`).
    pub game: String,
    pub template: String,
    /// `swiss`, `round_robin` or `arena`.
    pub format: String,
    /// A Swiss's rounds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// An arena's minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes: Option<u32>,
    pub rated: bool,
    /// Each game's time limit, as the game takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
    /// Whom it admits.
    pub field: Field,
    /// The field in words.
    pub open_to: String,
    pub status: Status,
    pub organizer: String,
    /// How many are in (withdrawn players aside).
    pub players: usize,
    pub starts_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_at: Option<String>,
    /// Who won, once it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
    /// Its live page on the web.
    pub page: String,
}

/// One line of the standings.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StandingRow {
    pub rank: usize,
    pub name: String,
    /// `person`, `agent` or `house`.
    pub kind: String,
    /// Points: a Swiss's or round-robin's wins and half its draws, an arena's lichess points.
    pub score: f64,
    pub buchholz: f64,
    pub sonneborn_berger: f64,
    pub games: u32,
    pub withdrawn: bool,
}

/// One game of a round (or a bye).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GameRow {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The first player (white, red, X).
    pub first: String,
    /// The second, none for a bye.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<String>,
    /// `1-0`, `0-1`, `½-½`, `1-0 forfeit`, `bye`, `rest`, or `playing`.
    pub result: String,
    /// The game's page on the web, if its game has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<String>,
}

/// A round (an arena's games as they were paired).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RoundRow {
    pub number: usize,
    pub games: Vec<GameRow>,
}

/// An event, whole.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Detail {
    #[serde(flatten)]
    pub summary: Summary,
    pub standings: Vec<StandingRow>,
    /// Every round of a Swiss or round-robin; an arena's latest 50 pairings.
    pub rounds: Vec<RoundRow>,
}

/// A player's game in an event, as the long poll gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Paired {
    pub tournament: u32,
    /// `playing` (a game under way: play it by `session_id`), `waiting` (for the next round
    /// or a free opponent), `withdrawn` or `over`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opponent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub your_role: Option<String>,
    /// The event's result, once it is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

fn when(ms: u64) -> String {
    iso(SystemTime::UNIX_EPOCH + Duration::from_millis(ms))
}

/// The line in the list.
pub fn summary(t: &Tournament) -> Summary {
    let (format, rounds) = match t.ledger.format {
        Format::Swiss { rounds } => ("swiss", Some(rounds)),
        Format::RoundRobin => ("round_robin", None),
        Format::Arena => ("arena", None),
    };
    Summary {
        id: t.id,
        name: t.name.clone(),
        game: crate::ratings::game_name(&t.template).to_owned(),
        template: t.template.clone(),
        format: format.to_owned(),
        rounds,
        minutes: t.minutes,
        rated: t.rated,
        clock: t
            .options
            .get("clock")
            .and_then(|c| c.as_str())
            .map(str::to_owned),
        field: t.field,
        open_to: t.field.words(),
        status: t.status,
        organizer: t.organizer_name.clone(),
        players: t.ledger.active().len(),
        starts_at: when(t.starts_at),
        ends_at: t.ends_at.map(when),
        result: t.result.clone(),
        page: format!("/tournament/{}", t.id),
    }
}

fn result_of(p: &Pairing) -> String {
    if p.second.is_none() {
        return if p.bye_halves > 0 { "bye" } else { "rest" }.to_owned();
    }
    match p.outcome {
        None => "playing".to_owned(),
        Some(Outcome::FirstWins) => "1-0".to_owned(),
        Some(Outcome::SecondWins) => "0-1".to_owned(),
        Some(Outcome::Draw) => "½-½".to_owned(),
        Some(Outcome::Forfeit { absent }) => match absent {
            crate::tournament::Side::First => "0-1 forfeit".to_owned(),
            crate::tournament::Side::Second => "1-0 forfeit".to_owned(),
        },
    }
}

/// The whole event.
pub fn detail(world: &World, t: &Tournament) -> Detail {
    let standings = crate::tournament::standings::standings(&t.ledger)
        .into_iter()
        .enumerate()
        .map(|(i, s)| StandingRow {
            rank: i + 1,
            name: t.entries[s.entrant].name.clone(),
            kind: t.entries[s.entrant].kind.clone(),
            score: s.score,
            buchholz: s.buchholz,
            sonneborn_berger: s.sonneborn_berger,
            games: s.games,
            withdrawn: s.withdrawn,
        })
        .collect();
    let page_of = |sid: u64| world.template(&t.template).and_then(|tpl| tpl.page_of(sid));
    // An arena's games are many: its newest pairings are shown (the standings count them all).
    let shown_from = match t.ledger.format {
        Format::Arena => t.ledger.rounds.len().saturating_sub(ARENA_ROUNDS_SHOWN),
        _ => 0,
    };
    let rounds = t
        .ledger
        .rounds
        .iter()
        .enumerate()
        .skip(shown_from)
        .map(|(r, round)| RoundRow {
            number: r + 1,
            games: round
                .iter()
                .enumerate()
                .map(|(g, p)| {
                    let sid = t.sessions.get(r).and_then(|s| s.get(g)).copied().flatten();
                    GameRow {
                        session_id: sid.map(|s| s.to_string()),
                        first: t.entries[p.first].name.clone(),
                        second: p.second.map(|s| t.entries[s].name.clone()),
                        result: result_of(p),
                        page: sid.and_then(page_of),
                    }
                })
                .collect(),
        })
        .collect();
    Detail {
        summary: summary(t),
        standings,
        rounds,
    }
}

/// `agent`'s game in `t` now, if any, or where they stand.
pub fn paired(world: &World, t: &Tournament, agent: &str) -> Option<Paired> {
    let me = t.entrant_of(agent)?;
    let bare = |status: &str| Paired {
        tournament: t.id,
        status: status.to_owned(),
        session_id: None,
        round: None,
        opponent: None,
        your_role: None,
        result: None,
    };
    if matches!(t.status, Status::Finished | Status::Cancelled) {
        return Some(Paired {
            result: t.result.clone(),
            ..bare("over")
        });
    }
    for (r, round) in t.ledger.rounds.iter().enumerate() {
        for (g, p) in round.iter().enumerate() {
            let (Some(side), Some(_), None) = (p.side_of(me), p.second, p.outcome) else {
                continue;
            };
            let Some(sid) = t.sessions.get(r).and_then(|s| s.get(g)).copied().flatten() else {
                continue;
            };
            let role = world.template(&t.template).map(|tpl| match side {
                crate::tournament::Side::First => tpl.roles[0],
                crate::tournament::Side::Second => tpl.roles[1],
            });
            return Some(Paired {
                session_id: Some(sid.to_string()),
                round: Some(r + 1),
                opponent: p.opponent_of(me).map(|o| t.entries[o].name.clone()),
                your_role: role.map(str::to_owned),
                ..bare("playing")
            });
        }
    }
    if t.ledger.withdrawn.contains(&me) {
        return Some(bare("withdrawn"));
    }
    Some(bare("waiting"))
}

/// The standings as lines of text, for telnet.
pub fn lines(d: &Detail) -> Vec<String> {
    let s = &d.summary;
    let mut out = vec![
        format!(
            "Tournament #{} {}: {}, {}{}, {}.",
            s.id,
            s.name,
            s.game,
            match s.format.as_str() {
                "swiss" => format!("Swiss, {} rounds", s.rounds.unwrap_or_default()),
                "arena" => format!("arena, {} minutes", s.minutes.unwrap_or_default()),
                _ => "round-robin".to_owned(),
            },
            s.clock
                .as_deref()
                .map(|c| format!(", clock {c}"))
                .unwrap_or_default(),
            if s.rated { "rated" } else { "casual" }
        ),
        format!(
            "Open to {}. Organised by {}. {} ({} players); starts {}{}.",
            s.open_to,
            s.organizer,
            capital(s.status.word()),
            s.players,
            s.starts_at,
            s.ends_at
                .as_deref()
                .map(|e| format!(", ends {e}"))
                .unwrap_or_default()
        ),
    ];
    if let Some(r) = &s.result {
        out.push(format!("Result: {r}."));
    }
    if !d.standings.is_empty() {
        out.push(format!(
            "{:>3}  {:<20} {:<6} {:>6} {:>8} {:>8} {:>5}",
            "#", "Name", "Kind", "Score", "Buchholz", "S-B", "Games"
        ));
        for r in &d.standings {
            out.push(format!(
                "{:>3}  {:<20} {:<6} {:>6} {:>8} {:>8} {:>5}{}",
                r.rank,
                r.name,
                r.kind,
                trim(r.score),
                trim(r.buchholz),
                trim(r.sonneborn_berger),
                r.games,
                if r.withdrawn { "  (withdrawn)" } else { "" }
            ));
        }
    }
    // The latest round, or an arena's games under way: the whole history is on the page.
    if let Some(last) = d.rounds.last() {
        out.push(format!("Round {}:", last.number));
        for g in &last.games {
            out.push(format!(
                "  {}{} {} {}",
                g.session_id
                    .as_deref()
                    .map(|s| format!("#{s} "))
                    .unwrap_or_default(),
                g.first,
                g.result,
                g.second.as_deref().unwrap_or("")
            ));
        }
    }
    out.push(format!("Live on the web: {}", s.page));
    out
}

fn capital(w: &str) -> String {
    let mut c = w.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
