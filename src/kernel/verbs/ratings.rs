//! `ratings [name]` and `leaderboard <game> [people|agents|all]`: who plays well, from the
//! world's ledger (see [`crate::ratings`]). The views are plain data, so REST serves the same.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Reply, Topic, Verb, VerbError, usage};
use crate::identity::Kind;
use crate::ratings::conduct::Conduct;
use crate::ratings::{Key, Standing};
use crate::world::{Cx, World};

/// At most this many rows of one board are shown (a board's leaders).
pub const BOARD_ROWS: usize = 50;

// One standing, as every face shows it. (Plain comments on the views: schemars would put doc
// comments in every tool listing, and the tools' descriptions say what they are.)
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct StandingView {
    pub board: String,
    pub rules: String,
    pub current: bool,
    #[serde(flatten)]
    pub score: Score,
}

// A standing's rating and record, as a row of `ratings` and of a leaderboard both show it.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
pub struct Score {
    pub rating: Option<f64>,
    pub deviation: Option<f64>,
    pub provisional: bool,
    pub games: u32,
    pub won: u32,
    pub lost: u32,
    pub drawn: u32,
}

impl Score {
    pub fn of(s: &Standing) -> Score {
        Score {
            rating: s.rating.map(|r| r.rating),
            deviation: s.rating.map(|r| r.deviation),
            provisional: s.rating.is_some_and(|r| r.provisional()),
            games: s.games,
            won: s.won,
            lost: s.lost,
            drawn: s.drawn,
        }
    }

    /// "1623" or "1500?" (provisional); "-" for a record.
    pub fn shown(&self) -> String {
        match self.rating {
            Some(r) => format!("{r:.0}{}", if self.provisional { "?" } else { "" }),
            None => "-".to_owned(),
        }
    }

    /// "±180": the half-width of the rating's 95% interval (1.96 deviations either side), as
    /// a reader weighs two ratings by; empty for a record.
    pub fn interval(&self) -> String {
        self.deviation
            .filter(|_| self.rating.is_some())
            .map_or_else(String::new, |d| format!("±{:.0}", 1.96 * d))
    }

    /// The 95% interval's ends, "1443–1803"; none for a record.
    pub fn interval_ends(&self) -> Option<String> {
        let (r, d) = (self.rating?, self.deviation?);
        Some(format!(
            "{:.0}–{:.0}",
            (r - 1.96 * d).max(0.0),
            r + 1.96 * d
        ))
    }

    /// "3 games: 2 won, 1 lost, 0 drawn"
    pub fn record(&self) -> String {
        format!(
            "{} game{}: {} won, {} lost, {} drawn",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.won,
            self.lost,
            self.drawn
        )
    }
}

// Errors apart from skill in one game, over the games of it finished.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ConductView {
    pub game: String,
    pub games: u32,
    // The actions the rules took; those refused are counted apart. (A plain comment: the
    // schema of the town's tools is kept within its budget.)
    pub actions: u32,
    pub refused: u32,
    pub missed: u32,
    pub refused_rate: Option<f64>,
    pub missed_rate: Option<f64>,
}

impl ConductView {
    fn new(game: &str, c: Conduct) -> ConductView {
        ConductView {
            game: game.to_owned(),
            games: c.games,
            actions: c.actions,
            refused: c.refused,
            missed: c.missed,
            refused_rate: c.refused_rate(),
            missed_rate: c.missed_rate(),
        }
    }

    /// "2 of 82 actions refused (2.4%), 1 deadline missed in 6 games"
    pub fn line(&self) -> String {
        let n = |n: u32, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        let refused = if self.refused == 0 {
            "no action refused".to_owned()
        } else {
            format!(
                "{} of {} refused ({:.1}%)",
                self.refused,
                n(self.actions.saturating_add(self.refused), "action"),
                self.refused_rate.unwrap_or(0.0) * 100.0
            )
        };
        let missed = if self.missed == 0 {
            "no deadline missed".to_owned()
        } else {
            format!("{} missed", n(self.missed, "deadline"))
        };
        format!("{refused}, {missed} in {}", n(self.games, "game"))
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct RatingsView {
    pub name: String,
    pub kind: Kind,
    pub standings: Vec<StandingView>,
    pub conduct: Vec<ConductView>,
}

// A row of a board's current season (the board and its rules head the table).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct LeaderRow {
    pub rank: usize,
    pub name: String,
    pub kind: Kind,
    #[serde(flatten)]
    pub score: Score,
    pub refused_rate: Option<f64>,
    pub missed_rate: Option<f64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BoardView {
    pub board: String,
    // (Said in `leaderboard`'s help, not here: every byte of this schema is in every agent's
    // tool list.) The season shown (its rules' hash), whether it is the current one, and every
    // season the board has had, the current first.
    pub rules: String,
    pub current: bool,
    pub seasons: Vec<String>,
    pub rows: Vec<LeaderRow>,
    /// Provisional players not listed.
    pub provisional_left_out: usize,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Leaderboards {
    pub boards: Vec<BoardView>,
}

/// What the leaderboard of `game` says while it has no boards.
pub fn nobody_yet(game: &str) -> String {
    // Not "nobody has finished a game": a casual game ends without reaching the board.
    format!(
        "Nobody is on the {} leaderboard yet: it counts rated games as they end (and every \
         game of luck).",
        game.trim().to_ascii_lowercase()
    )
}

fn view(world: &World, key: &Key, s: &Standing) -> StandingView {
    StandingView {
        board: key.board.clone(),
        rules: key.rules.clone(),
        current: world.ratings().season(&key.board) == Some(key.rules.as_str()),
        score: Score::of(s),
    }
}

/// `name`'s standings (any case), current seasons first.
pub fn ratings_of(world: &World, name: &str) -> Result<RatingsView, VerbError> {
    let agent = world
        .directory
        .id_of(name)
        .ok_or_else(|| VerbError::not_found(format!("There is no one called \"{name}\".")))?;
    let mut standings: Vec<StandingView> = world
        .ratings()
        .of(&agent)
        .map(|(k, s)| view(world, k, s))
        .collect();
    standings.sort_by(|a, b| b.current.cmp(&a.current).then(a.board.cmp(&b.board)));
    let conduct = world
        .conduct()
        .of(&agent)
        .map(|(game, c)| ConductView::new(game, c))
        .collect();
    Ok(RatingsView {
        name: world.directory.name_of(&agent).unwrap_or_default(),
        kind: world.directory.kind_of(&agent),
        standings,
        conduct,
    })
}

/// A game someone played, for their page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlayedView {
    pub session_id: String,
    pub game: String,
    pub role: String,
    pub rated: bool,
    /// How it ended; none while it runs.
    pub ending: Option<String>,
}

/// Someone's standings (as [`ratings_of`]), their id, and their latest `limit` games, newest
/// first: what their page shows.
pub fn player(
    world: &World,
    name: &str,
    limit: usize,
) -> Result<(String, RatingsView, Vec<PlayedView>), VerbError> {
    let view = ratings_of(world, name)?;
    let agent = world.directory.id_of(name).unwrap_or_default();
    let games: Vec<PlayedView> = world
        .sessions_played_by(&agent)
        .filter_map(|s| {
            let role = s.role_of(&agent)?;
            Some(PlayedView {
                session_id: s.id.to_string(),
                game: crate::ratings::game_name(s.template.id).to_owned(),
                role: role.to_owned(),
                rated: s.rated,
                ending: s.ending().filter(|_| s.game.is_terminal()),
            })
        })
        .take(limit)
        .collect();
    Ok((agent, view, games))
}

// Which identities a leaderboard shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Whom {
    People,
    Agents,
    #[default]
    All,
}

impl Whom {
    /// Its word, as a query gives it.
    pub fn word(self) -> &'static str {
        match self {
            Whom::People => "people",
            Whom::Agents => "agents",
            Whom::All => "all",
        }
    }

    fn admits(self, kind: Kind) -> bool {
        match self {
            Whom::All => true,
            Whom::People => kind == Kind::Person,
            Whom::Agents => kind == Kind::Agent,
        }
    }
}

/// The current season of every board of `game` (`chess` gives each chess class; a board's
/// full name gives that one), or the season `season` names (its rules' hash, or the hash's
/// first characters), showing `whom`.
pub fn leaderboards(
    world: &World,
    game: &str,
    whom: Whom,
    season: Option<&str>,
) -> Result<Leaderboards, VerbError> {
    let game = game.trim().to_ascii_lowercase();
    let boards: Vec<(&str, &str)> = world.ratings().boards();
    let chosen: Vec<&str> = boards
        .iter()
        .map(|(b, _)| *b)
        .filter(|b| *b == game || b.split('/').next() == Some(game.as_str()))
        .collect();
    // A game of the town's has its leaderboard from the start, empty until a game ends.
    let known = world.templates().any(|t| t.word() == game);
    if chosen.is_empty() && known {
        return Ok(Leaderboards { boards: Vec::new() });
    }
    if chosen.is_empty() {
        // Every game has one (not only those with a board yet).
        let mut games: Vec<&str> = world.templates().map(|t| t.word()).collect();
        games.sort_unstable();
        games.dedup();
        return Err(VerbError::not_found(format!(
            "No leaderboard for \"{game}\"; the games are: {}.",
            games.join(", ")
        )));
    }
    let mut out = Vec::new();
    let season = season.map(str::trim).filter(|s| !s.is_empty());
    for board in chosen.iter().copied() {
        let seasons = world.ratings().seasons_of(board);
        let rules = match season {
            None => seasons.first().copied(),
            Some(want) => {
                let matching: Vec<&str> = seasons
                    .iter()
                    .copied()
                    .filter(|r| r.starts_with(want))
                    .collect();
                if matching.len() > 1 {
                    return Err(VerbError::usage(format!(
                        "\"{want}\" begins several seasons of {board}: {}; give more of it.",
                        matching.join(", ")
                    )));
                }
                matching.first().copied()
            }
        };
        let Some(rules) = rules else {
            continue;
        };
        let rows = world.ratings().table_in(board, rules);
        let game = board.split('/').next().unwrap_or(board);
        let (rows, provisional): (Vec<_>, Vec<_>) = rows
            .into_iter()
            .map(|(k, s)| (world.directory.kind_of(&k.agent), k, s))
            .filter(|(kind, _, _)| whom.admits(*kind))
            .partition(|(_, _, s)| crate::ratings::established(s));
        let rows = rows
            .into_iter()
            .take(BOARD_ROWS)
            .enumerate()
            .map(|(i, (kind, k, s))| {
                let conduct = world.conduct().get(&k.agent, game).unwrap_or_default();
                LeaderRow {
                    rank: i + 1,
                    name: world.directory.name_of(&k.agent).unwrap_or_default(),
                    kind,
                    score: Score::of(s),
                    refused_rate: conduct.refused_rate(),
                    missed_rate: conduct.missed_rate(),
                }
            })
            .collect();
        out.push(BoardView {
            board: board.to_owned(),
            rules: rules.to_owned(),
            current: world.ratings().season(board) == Some(rules),
            seasons: seasons.iter().map(|s| (*s).to_owned()).collect(),
            rows,
            provisional_left_out: provisional.len(),
        });
    }
    if let (Some(want), true) = (season, out.is_empty()) {
        let had: Vec<String> = chosen
            .iter()
            .map(|b| format!("{b}: {}", world.ratings().seasons_of(b).join(", ")))
            .collect();
        return Err(VerbError::not_found(format!(
            "No season \"{want}\" of {game}; its seasons (the current first): {}.",
            had.join("; ")
        )));
    }
    Ok(Leaderboards { boards: out })
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct RatingsArgs {
    #[serde(default)]
    pub name: Option<String>,
}

pub struct Ratings;

impl Verb for Ratings {
    const NAME: &'static str = "ratings";
    const USAGE: &'static str = "ratings [<name>]";
    const SUMMARY: &'static str = "Someone's ratings and records, game by game.";
    const HELP: &'static str = "`ratings` shows yours; `ratings Ann` shows Ann's. Each board is a \
game and its kind of play (chess by time control: chess/no-clock, chess/blitz…; Werewolf by side, \
werewolf/village and werewolf/wolves, and by part, werewolf/seer and the rest): its Glicko-2 rating (`?` while it is provisional, its \
deviation above 110) and its record. Only rated games move a rating (`challenge … rated`); \
rock-paper-scissors and blackjack are luck, and keep a record only. Beside them, apart from \
skill: how many of their actions the rules refused, and how many deadlines (a clock, a vote, a \
night) they let pass, game by game, counted when each game ends.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Someone's ratings (`name`; yours if left out). \
Returns per board the Glicko-2 rating (none for luck), deviation, record and rules hash; per \
game, refused actions and missed deadlines.";
    const TOPIC: Topic = Topic::TABLES;
    type Args = RatingsArgs;
    type Output = RatingsView;

    fn parse(rest: &str) -> Result<RatingsArgs, VerbError> {
        let name = rest.trim();
        if name.split_whitespace().count() > 1 {
            return Err(usage::<Ratings>());
        }
        Ok(RatingsArgs {
            name: (!name.is_empty()).then(|| name.to_owned()),
        })
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        a: RatingsArgs,
    ) -> Result<Reply<RatingsView>, VerbError> {
        let name = match a.name {
            Some(n) => n,
            None => world.directory.name_of(&cx.actor).unwrap_or_default(),
        };
        let v = ratings_of(world, &name)?;
        let mut lines = vec![format!("Ratings of {} ({}):", v.name, v.kind.name())];
        if v.standings.is_empty() {
            lines.push("  No rated or recorded games yet.".to_owned());
        }
        // As wide as the longest name shown (`chess/correspondence`), so the figures line up.
        let width = (v.standings.iter().map(|s| s.board.len()))
            .chain(v.conduct.iter().map(|c| c.game.len()))
            .fold(18, usize::max);
        for s in &v.standings {
            lines.push(format!(
                "  {:<width$} {:>6} {:>5}  {}{}",
                s.board,
                s.score.shown(),
                s.score.interval(),
                s.score.record(),
                if s.current { "" } else { " (earlier rules)" }
            ));
        }
        if !v.conduct.is_empty() {
            lines.push("Errors apart from skill:".to_owned());
        }
        for c in &v.conduct {
            lines.push(format!("  {:<width$} {}", c.game, c.line()));
        }
        Ok(Reply::new(lines, v))
    }
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct LeaderboardArgs {
    pub game: String,
    #[serde(default)]
    pub whom: Whom,
    /// A past season's hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub season: Option<String>,
}

pub struct Leaderboard;

/// `season <hash>` at the end of a `leaderboard` line, if there.
fn season_word<'a>(words: &mut impl Iterator<Item = &'a str>) -> Result<Option<String>, VerbError> {
    match (words.next(), words.next(), words.next()) {
        (None, _, _) => Ok(None),
        (Some(w), Some(hash), None) if w.eq_ignore_ascii_case("season") => {
            Ok(Some(hash.to_owned()))
        }
        _ => Err(usage::<Leaderboard>()),
    }
}

impl Verb for Leaderboard {
    const NAME: &'static str = "leaderboard";
    const USAGE: &'static str = "leaderboard <game> [people|agents|all] [season <hash>]";
    const SUMMARY: &'static str = "A game's best players: people, agents or both.";
    const HELP: &'static str = "`leaderboard chess` shows each chess board's leaders (one per time \
control class); `leaderboard werewolf/wolves people` only the people among the wolves' best, \
`leaderboard werewolf/seer` the best seers. A \
board shows its current rules' season: a change of rules starts a new table, and the last one \
stays as it was, frozen (`leaderboard werewolf season 1a2b` shows it). Only established \
ratings are listed (deviation at most 110, and 10 games), as on lichess; it says how many \
provisional players it leaves out.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "A game's leaderboards: `game` (`chess`, \
`chess/blitz`, `werewolf`…), `whom` (people, agents, all). Returns each board's best 50.";
    const TOPIC: Topic = Topic::TABLES;
    type Args = LeaderboardArgs;
    type Output = Leaderboards;

    fn parse(rest: &str) -> Result<LeaderboardArgs, VerbError> {
        let mut words = rest.split_whitespace().peekable();
        let game = words.next().ok_or_else(usage::<Leaderboard>)?.to_owned();
        let whom = match words.peek().map(|w| w.to_ascii_lowercase()).as_deref() {
            Some("all") => Whom::All,
            Some("people") => Whom::People,
            Some("agents") => Whom::Agents,
            None | Some("season") => {
                let season = season_word(&mut words)?;
                return Ok(LeaderboardArgs {
                    game,
                    whom: Whom::All,
                    season,
                });
            }
            Some(_) => return Err(usage::<Leaderboard>()),
        };
        words.next();
        let season = season_word(&mut words)?;
        Ok(LeaderboardArgs { game, whom, season })
    }

    fn run(
        world: &mut World,
        _cx: &mut Cx,
        a: LeaderboardArgs,
    ) -> Result<Reply<Leaderboards>, VerbError> {
        let v = leaderboards(world, &a.game, a.whom, a.season.as_deref())?;
        let mut lines = Vec::new();
        if v.boards.is_empty() {
            lines.push(nobody_yet(&a.game));
        }
        for b in &v.boards {
            // The rules' hash is for programs (the data has it); people read the board, and
            // which season when there have been several.
            match (b.current, b.seasons.len()) {
                (true, 1) => lines.push(format!("{}:", b.board)),
                (true, n) => lines.push(format!(
                    "{} (this season; {} past, frozen: `season {}`…):",
                    b.board,
                    n - 1,
                    b.seasons[1].get(..8).unwrap_or(&b.seasons[1])
                )),
                (false, _) => lines.push(format!(
                    "{}, season {} (past, frozen):",
                    b.board,
                    b.rules.get(..8).unwrap_or(&b.rules)
                )),
            }
            if b.rows.is_empty() {
                lines.push("  Nobody with an established rating yet.".to_owned());
            }
            for r in &b.rows {
                let mut row = format!(
                    "  {:>2}. {:<16} {:<6} {:>6} {:>5}  {}",
                    r.rank,
                    r.name,
                    r.kind.name(),
                    r.score.shown(),
                    r.score.interval(),
                    r.score.record(),
                );
                // Errors apart from skill, said in words and only where there are any.
                let refused = r.refused_rate.unwrap_or(0.0);
                let missed = r.missed_rate.unwrap_or(0.0);
                if refused > 0.0 {
                    row.push_str(&format!("; {:.1}% of moves refused", refused * 100.0));
                }
                if missed > 0.0 {
                    row.push_str(&format!("; {missed:.1} deadlines missed a game"));
                }
                lines.push(row);
            }
            match b.provisional_left_out {
                0 => {}
                1 => lines.push("  (1 player with a provisional rating is not listed.)".into()),
                n => lines.push(format!(
                    "  ({n} players with provisional ratings are not listed.)"
                )),
            }
        }
        Ok(Reply::new(lines, v))
    }
}
