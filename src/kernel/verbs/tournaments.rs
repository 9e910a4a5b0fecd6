//! Tournaments on every face: `tournaments` lists them, `tournament 3` shows one, `schedule`
//! makes one, `join tournament 3` and `withdraw from tournament 3` enter and leave, `start
//! tournament 3` begins one early, and `pairing` says (or, over MCP, waits for) your game.
//! The server pairs every round; a player agrees to every game of an event by joining it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::game_module::{Access, WebAction, WebMethod};
use super::{NoArgs, Pending, Reply, Topic, Verb, VerbError, no_args, usage};
use crate::tournament::Format;
use crate::world::sessions::SessionId;
use crate::world::tournaments::view::{self, Detail, Paired, Summary};
use crate::world::tournaments::{Field, Plan, Status};
use crate::world::{Awaited, Cx, World};

/// Where `help` lists them.
pub const TOPIC: Topic = Topic {
    title: "Tournaments",
    words: &["tournaments", "tournament", "events"],
    intro: "Swiss, round-robin and arena tournaments of the two-player games, for people, \
agents and the house together (each event says whom it admits). The server pairs every round; \
you agree to each game by joining.",
    more: None,
    more_with: None,
};

/// The set of MCP tools they are served in.
pub const TOOLSET: super::Toolset = super::Toolset {
    name: "tournaments",
    summary: "tournaments: list, schedule, join and withdraw, and pairing, a long poll that \
              returns your next game; and the cross-game table (crosstable)",
    wizards_only: false,
};

/// Reads `3`, `#3`, `tournament 3` or `tournament #3`.
fn event_number(rest: &str) -> Option<u32> {
    let rest = rest.trim();
    let rest = strip_word(rest, "tournament").unwrap_or(rest);
    rest.trim().trim_start_matches('#').parse().ok()
}

/// `rest` without its first word if that word is `w` (any case).
fn strip_word<'a>(rest: &'a str, w: &str) -> Option<&'a str> {
    let (first, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    first.eq_ignore_ascii_case(w).then_some(after.trim_start())
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EventArg {
    /// The tournament's number.
    pub tournament: u32,
}

pub struct List;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct EventList {
    /// Scheduled and running first, then the latest finished, newest first.
    pub tournaments: Vec<Summary>,
}

/// How many finished events the list shows.
const FINISHED_LISTED: usize = 10;

impl Verb for List {
    const NAME: &'static str = "tournaments";
    const USAGE: &'static str = "tournaments";
    const SUMMARY: &'static str = "The tournaments scheduled, running and lately finished.";
    const HELP: &'static str = "Lists each tournament: its number, game, format, whom it is open \
to (people, agents, the house), its players and when it starts. `tournament <n>` shows one.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "List the tournaments scheduled, running and lately \
finished; needs nothing. Returns each one's number, game, format, whom it admits, its players, \
status and times.";
    type Args = NoArgs;
    type Output = EventList;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<List>(rest)
    }

    fn run(world: &mut World, _: &mut Cx, _: NoArgs) -> Result<Reply<EventList>, VerbError> {
        let mut live: Vec<Summary> = Vec::new();
        let mut done: Vec<Summary> = Vec::new();
        for t in world.tournaments() {
            match t.status {
                Status::Scheduled | Status::Running => live.push(view::summary(t)),
                _ if done.len() < FINISHED_LISTED => done.push(view::summary(t)),
                _ => {}
            }
        }
        live.extend(done);
        let mut text = Vec::new();
        if live.is_empty() {
            text.push("No tournaments yet. `schedule` makes one (`help schedule`).".to_owned());
        }
        for s in &live {
            text.push(format!(
                "#{:<3} {:<24} {:<8} {:<22} {:<9} {:>3} players  open to {}{}",
                s.id,
                s.name,
                s.game,
                format_words(s),
                s.status.word(),
                s.players,
                s.open_to,
                match s.status {
                    Status::Scheduled => format!("; starts {}", s.starts_at),
                    _ => s
                        .result
                        .as_deref()
                        .map(|r| format!("; {r}"))
                        .unwrap_or_default(),
                }
            ));
        }
        Ok(Reply::new(text, EventList { tournaments: live }))
    }
}

fn format_words(s: &Summary) -> String {
    let rated = if s.rated { "rated" } else { "casual" };
    match s.format.as_str() {
        "swiss" => format!("Swiss {}r, {rated}", s.rounds.unwrap_or_default()),
        "arena" => format!("arena {}m, {rated}", s.minutes.unwrap_or_default()),
        _ => format!("round-robin, {rated}"),
    }
}

pub struct Show;

impl Verb for Show {
    const NAME: &'static str = "tournament";
    const USAGE: &'static str = "tournament <n>";
    const SUMMARY: &'static str = "One tournament: its standings and its latest round.";
    const HELP: &'static str = "Shows tournament <n>: whom it admits, its standings (score, then \
Buchholz, then Sonneborn-Berger) and its latest round's games by number (`watch <n>` follows one). \
Its page on the web, /tournament/<n>, is live and shows every round.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Show one tournament by number. Returns whom it \
admits, its standings with their tie-breaks, and every round's games with their session ids and \
results.";
    type Args = EventArg;
    type Output = Detail;

    fn parse(rest: &str) -> Result<EventArg, VerbError> {
        event_number(rest)
            .map(|tournament| EventArg { tournament })
            .ok_or_else(usage::<Show>)
    }

    fn run(world: &mut World, _: &mut Cx, a: EventArg) -> Result<Reply<Detail>, VerbError> {
        let t = world.tournament_or_not_found(a.tournament)?;
        let d = view::detail(world, t);
        Ok(Reply::new(view::lines(&d), d))
    }
}

pub struct Schedule;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleArgs {
    /// The game: `chess`, `tictactoe`, `connect4` or `rps`.
    pub game: String,
    /// `swiss`, `round_robin` or `arena`.
    pub format: String,
    /// A Swiss's rounds (1 to 15).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rounds: Option<u32>,
    /// An arena's length in minutes (1 to 1440).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes: Option<u32>,
    /// Each game's time limit as the game takes it: `5+3` for chess, `30s` a move.
    pub clock: String,
    #[serde(default)]
    pub rated: bool,
    /// Open to people (default true).
    #[serde(default = "yes")]
    pub people: bool,
    /// Open to agents (default true).
    #[serde(default = "yes")]
    pub agents: bool,
    /// The house's Computer plays too.
    #[serde(default)]
    pub house: bool,
    /// When it starts, from now: `10m`, `2h` (default 5m).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_in: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

fn yes() -> bool {
    true
}

impl Verb for Schedule {
    const NAME: &'static str = "schedule";
    const USAGE: &'static str = "schedule <game> swiss <rounds>|roundrobin|arena <minutes> clock \
<limit> [rated] [people only|agents only] [house] [in <time>] [called <name>]";
    const SUMMARY: &'static str = "Schedule a tournament (anyone, one at a time; wizards, any).";
    const HELP: &'static str = "Schedules a tournament of a two-player game, open to join until \
it starts (5 minutes from now unless `in 30m` says when), e.g. `schedule chess swiss 5 clock 5+3 \
rated`, `schedule connect4 arena 30 clock 30s agents only`, `schedule tictactoe roundrobin clock \
1m house called Noughts night`. It is open to people and agents unless `people only` or `agents \
only`; `house` enters the house's Computer. Every game has a time limit, so a round always ends.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Schedule a tournament of a two-player game: its \
format (swiss with rounds, round_robin, arena with minutes), each game's clock, whom it admits \
and when it starts. Returns the new tournament as listed.";
    type Args = ScheduleArgs;
    type Output = Summary;

    fn parse(rest: &str) -> Result<ScheduleArgs, VerbError> {
        parse_schedule(rest).ok_or_else(usage::<Schedule>)
    }

    fn run(world: &mut World, cx: &mut Cx, a: ScheduleArgs) -> Result<Reply<Summary>, VerbError> {
        let format = match a
            .format
            .to_ascii_lowercase()
            .replace(['-', ' '], "_")
            .as_str()
        {
            "swiss" => Format::Swiss {
                rounds: a.rounds.ok_or_else(|| {
                    VerbError::usage("A Swiss needs its number of rounds (`swiss 5`).")
                })?,
            },
            "round_robin" | "roundrobin" => Format::RoundRobin,
            "arena" => Format::Arena,
            other => {
                return Err(VerbError::usage(format!(
                    "`{other}` is no format: swiss, round_robin or arena."
                )));
            }
        };
        if format != Format::Arena && a.minutes.is_some() {
            return Err(VerbError::usage(
                "`minutes` is an arena's length; this is no arena.",
            ));
        }
        if !matches!(format, Format::Swiss { .. }) && a.rounds.is_some() {
            return Err(VerbError::usage("`rounds` is a Swiss's; this is no Swiss."));
        }
        if format == Format::Arena && a.minutes.is_none() {
            return Err(VerbError::usage(
                "An arena needs its length (`arena 30`, in minutes).",
            ));
        }
        let starts_in = match a.starts_in.as_deref() {
            None => std::time::Duration::from_secs(300),
            Some(t) => humantime::parse_duration(t.trim()).map_err(|_| {
                VerbError::usage(format!(
                    "`{t}` is not a time from now: say `10m`, `2h` or `0s`."
                ))
            })?,
        };
        let plan = Plan {
            name: a.name,
            game: a.game,
            format,
            minutes: (format == Format::Arena).then_some(a.minutes).flatten(),
            options: serde_json::json!({ "clock": a.clock }),
            rated: a.rated,
            field: Field {
                people: a.people,
                agents: a.agents,
                house: a.house,
            },
            starts_in,
        };
        let id = world.schedule_tournament(cx, plan)?;
        let t = world.tournament_or_not_found(id)?;
        let s = view::summary(t);
        let text = vec![format!(
            "You schedule tournament {}, open to {}, starting {}. `join tournament {id}` to play \
             in it; `start tournament {id}` begins it early.",
            t.title(),
            s.open_to,
            s.starts_at
        )];
        Ok(Reply::new(text, s))
    }
}

/// Reads `chess swiss 5 clock 5+3 rated agents only house in 10m called Friday blitz`.
fn parse_schedule(rest: &str) -> Option<ScheduleArgs> {
    let (rest, name) = match rest.split_once(" called ") {
        Some((head, name)) => (head, Some(name.trim().to_owned())),
        None => (rest, None),
    };
    let mut words = rest.split_whitespace().peekable();
    let game = words.next()?.to_owned();
    let format = words.next()?.to_ascii_lowercase();
    let mut a = ScheduleArgs {
        game,
        format: format.clone(),
        rounds: None,
        minutes: None,
        clock: String::new(),
        rated: false,
        people: true,
        agents: true,
        house: false,
        starts_in: None,
        name,
    };
    match format.as_str() {
        "swiss" => a.rounds = Some(words.next()?.parse().ok()?),
        "arena" => a.minutes = Some(words.next()?.parse().ok()?),
        "roundrobin" | "round-robin" | "round_robin" => a.format = "round_robin".into(),
        _ => return None,
    }
    while let Some(w) = words.next() {
        match w.to_ascii_lowercase().as_str() {
            "clock" => a.clock = words.next()?.to_owned(),
            "rated" => a.rated = true,
            "casual" => a.rated = false,
            "house" => a.house = true,
            "in" => a.starts_in = Some(words.next()?.to_owned()),
            "now" => a.starts_in = Some("0s".to_owned()),
            "people" | "agents" => {
                if !words.next()?.eq_ignore_ascii_case("only") {
                    return None;
                }
                let people = w.eq_ignore_ascii_case("people");
                a.people = people;
                a.agents = !people;
            }
            _ => return None,
        }
    }
    (!a.clock.is_empty()).then_some(a)
}

pub struct Join;

impl Verb for Join {
    const NAME: &'static str = "join";
    const USAGE: &'static str = "join tournament <n>";
    const SUMMARY: &'static str = "Enter a tournament (you agree to each game it pairs you in).";
    const HELP: &'static str = "Enters tournament <n>, if it admits you (`tournament <n>` says \
whom it is open to). You agree to every game it pairs you in: each begins by itself, and you are \
told its number. Joining again after `withdraw` brings you back. A Swiss or an arena takes \
players while it runs; a round-robin, only before.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Enter tournament `tournament`, agreeing to every \
game it pairs you in; call `pairing` to wait for each. Returns where you stand in it.";
    type Args = EventArg;
    type Output = Paired;

    fn parse(rest: &str) -> Result<EventArg, VerbError> {
        let rest = rest.trim();
        strip_word(rest, "tournament")
            .and_then(event_number)
            .map(|tournament| EventArg { tournament })
            .ok_or_else(usage::<Join>)
    }

    fn run(world: &mut World, cx: &mut Cx, a: EventArg) -> Result<Reply<Paired>, VerbError> {
        let line = world.join_tournament(cx, a.tournament)?;
        let t = world.tournament_or_not_found(a.tournament)?;
        let p =
            view::paired(world, t, &cx.actor).ok_or_else(|| VerbError::refused(line.clone()))?;
        Ok(Reply::new(vec![line], p))
    }
}

pub struct Withdraw;

impl Verb for Withdraw {
    const NAME: &'static str = "withdraw";
    const USAGE: &'static str = "withdraw from tournament <n>";
    const SUMMARY: &'static str = "Leave a tournament: you are paired no more.";
    const HELP: &'static str = "Takes you out of tournament <n>'s later pairings; a game of \
yours under way is yours to finish, and your results stay in the standings. `join tournament <n>` \
brings you back (not in a round-robin under way).";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Leave tournament `tournament`: you are paired no \
more, and a game under way is yours to finish. Returns where you stand in it.";
    type Args = EventArg;
    type Output = Paired;

    fn parse(rest: &str) -> Result<EventArg, VerbError> {
        let rest = rest.trim();
        let rest = strip_word(rest, "from").unwrap_or(rest);
        event_number(rest)
            .map(|tournament| EventArg { tournament })
            .ok_or_else(usage::<Withdraw>)
    }

    fn run(world: &mut World, cx: &mut Cx, a: EventArg) -> Result<Reply<Paired>, VerbError> {
        let line = world.withdraw_from_tournament(cx, a.tournament)?;
        let t = world.tournament_or_not_found(a.tournament)?;
        let p =
            view::paired(world, t, &cx.actor).ok_or_else(|| VerbError::refused(line.clone()))?;
        Ok(Reply::new(vec![line], p))
    }
}

pub struct Start;

impl Verb for Start {
    const NAME: &'static str = "start";
    const USAGE: &'static str = "start tournament <n>";
    const SUMMARY: &'static str = "Begin your tournament before its time.";
    const HELP: &'static str = "Begins tournament <n> now, if you organise it (or are a wizard) \
and two or more have joined; otherwise it begins at its time.";
    const READ_ONLY: bool = false;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Begin tournament `tournament` now, before its time \
(its organiser or a wizard). Returns the tournament as listed.";
    type Args = EventArg;
    type Output = Summary;

    fn parse(rest: &str) -> Result<EventArg, VerbError> {
        let rest = rest.trim();
        strip_word(rest, "tournament")
            .and_then(event_number)
            .map(|tournament| EventArg { tournament })
            .ok_or_else(usage::<Start>)
    }

    fn run(world: &mut World, cx: &mut Cx, a: EventArg) -> Result<Reply<Summary>, VerbError> {
        let line = world.start_tournament_now(cx, a.tournament)?;
        let t = world.tournament_or_not_found(a.tournament)?;
        Ok(Reply::new(vec![line], view::summary(t)))
    }
}

pub struct Pairing;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PairingArgs {
    /// The tournament's number; by default the latest you are in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<u32>,
    /// How long to wait for a game, at most 30 seconds (default 30); 0 answers at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_seconds: Option<u64>,
}

impl Verb for Pairing {
    const NAME: &'static str = "pairing";
    const USAGE: &'static str = "pairing [<n>]";
    const SUMMARY: &'static str = "Your game in a tournament now, if you have one.";
    const HELP: &'static str = "Says your game under way in tournament <n> (by default the \
latest you are in): its number, your opponent and your side, or that you wait for the next \
round. On telnet you are told as each game begins; over MCP this waits for it.";
    const READ_ONLY: bool = true;
    const TOPIC: Topic = TOPIC;
    const TOOLSET: Option<super::Toolset> = Some(TOOLSET);
    const TOOL_DESCRIPTION: &'static str = "Wait (up to 30 seconds) for your next game in a \
tournament you joined and return it: its session_id, your opponent and your role; or `waiting`, \
`withdrawn` or `over` with the result. Returns at once while a game of yours is under way.";
    type Args = PairingArgs;
    type Output = Paired;

    fn parse(rest: &str) -> Result<PairingArgs, VerbError> {
        let rest = rest.trim();
        if rest.is_empty() {
            return Ok(PairingArgs {
                tournament: None,
                wait_seconds: Some(0),
            });
        }
        event_number(rest)
            .map(|n| PairingArgs {
                tournament: Some(n),
                wait_seconds: Some(0),
            })
            .ok_or_else(usage::<Pairing>)
    }

    fn run(world: &mut World, cx: &mut Cx, a: PairingArgs) -> Result<Reply<Paired>, VerbError> {
        let id = match a.tournament {
            Some(id) => id,
            None => world
                .tournaments()
                .find(|t| t.entrant_of(&cx.actor).is_some())
                .map(|t| t.id)
                .ok_or_else(|| {
                    VerbError::not_found(
                        "You are in no tournament; `tournaments` lists them, `join tournament \
                         <n>` enters one.",
                    )
                })?,
        };
        let t = world.tournament_or_not_found(id)?;
        let p = view::paired(world, t, &cx.actor).ok_or_else(|| {
            VerbError::refused(format!(
                "You are not in tournament #{id}; `join tournament {id}` enters it."
            ))
        })?;
        let line = match p.status.as_str() {
            "playing" => format!(
                "Tournament #{id}, round {}: your game is #{} against {} (you play {}).",
                p.round.unwrap_or_default(),
                p.session_id.as_deref().unwrap_or_default(),
                p.opponent.as_deref().unwrap_or_default(),
                p.your_role.as_deref().unwrap_or_default()
            ),
            "over" => format!(
                "Tournament #{id} is over: {}.",
                p.result.as_deref().unwrap_or("no result")
            ),
            "withdrawn" => format!(
                "You have withdrawn from tournament #{id}; `join tournament {id}` brings you back."
            ),
            _ => format!(
                "No game for you in tournament #{id} yet: you are told when your next begins."
            ),
        };
        // Nothing to play yet: a face that can wait waits for the event to change.
        if p.status == "waiting" && a.wait_seconds != Some(0) {
            return Err(VerbError::pending(
                line,
                Pending {
                    on: Awaited::Tournament(id),
                    tick: 0,
                    data: serde_json::to_value(&p).unwrap_or_default(),
                    wait: a
                        .wait_seconds
                        .map(|s| std::time::Duration::from_secs(s.min(30))),
                },
            ));
        }
        Ok(Reply::new(vec![line], p))
    }
}

/// What the tournaments' web page asks of the world: an event (or the list) for anyone, and
/// joining or withdrawing for whoever is signed in, through the same verbs as every face.
pub static WEB_ACTIONS: &[WebAction] = &[
    WebAction {
        method: WebMethod::Get,
        path: "/tournament/data",
        access: Access::Public,
        refused: 404,
        run: web_data,
    },
    WebAction {
        method: WebMethod::Post,
        path: "/tournament/join",
        access: Access::SignedIn {
            unsigned: "Sign in to join a tournament.",
            arrive: true,
        },
        refused: 409,
        run: web_join,
    },
    WebAction {
        method: WebMethod::Post,
        path: "/tournament/withdraw",
        access: Access::SignedIn {
            unsigned: "Sign in to withdraw from a tournament.",
            arrive: true,
        },
        refused: 409,
        run: web_withdraw,
    },
];

/// The event a page names (`?id=3`, or `{"tournament": 3}`).
fn web_event(v: &serde_json::Value) -> Result<EventArg, VerbError> {
    let n = v
        .get("tournament")
        .or_else(|| v.get("id"))
        .and_then(|n| n.as_u64().or_else(|| n.as_str()?.trim().parse().ok()))
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| VerbError::usage("Which tournament? Give its number."))?;
    Ok(EventArg { tournament: n })
}

/// `GET /tournament/data?id=3`: the event whole; with no id, the list.
fn web_data(
    w: &mut World,
    cx: &mut Cx,
    _: Option<SessionId>,
    q: serde_json::Value,
) -> Result<serde_json::Value, VerbError> {
    if q.get("id").is_none() {
        return super::run_value::<List>(w, cx, NoArgs {});
    }
    super::run_value::<Show>(w, cx, web_event(&q)?)
}

fn web_join(
    w: &mut World,
    cx: &mut Cx,
    _: Option<SessionId>,
    body: serde_json::Value,
) -> Result<serde_json::Value, VerbError> {
    super::run_value::<Join>(w, cx, web_event(&body)?)
}

fn web_withdraw(
    w: &mut World,
    cx: &mut Cx,
    _: Option<SessionId>,
    body: serde_json::Value,
) -> Result<serde_json::Value, VerbError> {
    super::run_value::<Withdraw>(w, cx, web_event(&body)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_schedule_reads_every_option() {
        let a = parse_schedule(
            "chess swiss 5 clock 5+3 rated agents only house in 10m called Friday blitz",
        )
        .unwrap();
        assert_eq!(a.game, "chess");
        assert_eq!(a.format, "swiss");
        assert_eq!(a.rounds, Some(5));
        assert_eq!(a.clock, "5+3");
        assert!(a.rated && a.house && a.agents && !a.people);
        assert_eq!(a.starts_in.as_deref(), Some("10m"));
        assert_eq!(a.name.as_deref(), Some("Friday blitz"));
        let b = parse_schedule("connect4 roundrobin clock 30s people only").unwrap();
        assert_eq!(b.format, "round_robin");
        assert!(b.people && !b.agents && !b.rated);
        // No clock, a Swiss with no rounds, or a word it does not know: the usage.
        assert!(parse_schedule("chess swiss 5").is_none());
        assert!(parse_schedule("chess swiss clock 5+3").is_none());
        assert!(parse_schedule("chess arena 10 clock 1+0 sometimes").is_none());
    }

    #[test]
    fn an_event_is_named_by_its_number_with_or_without_its_word() {
        assert_eq!(event_number("3"), Some(3));
        assert_eq!(event_number("#3"), Some(3));
        assert_eq!(event_number("tournament #12"), Some(12));
        assert_eq!(event_number("Tournament 4"), Some(4));
        assert_eq!(event_number("three"), None);
    }
}
