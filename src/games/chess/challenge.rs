//! `challenge`, `accept` and `decline`: starting a chess game with someone here, or with the
//! computer at once.

use std::collections::BTreeMap;

use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::at_chess_table;
use super::rules::computer::DEFAULT_LEVEL;
use super::rules::engine::{MAX_LEVEL, MIN_LEVEL};
use super::rules::{ChessGame, Side};
use moot_kernel::game_api::Game;
use moot_kernel::verbs::parse::{text, whole, word};
use moot_kernel::verbs::{Reply, Topic, Verb, VerbError, usage};
use moot_kernel::world::{AgentId, COMPUTER_ID, Cx, ThingKind, World};

pub struct ChallengeVerb;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ChallengeArgs {
    /// Someone here, or `computer`.
    pub opponent: String,
    /// The colour you want; random when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<Side>,
    /// The computer's strength, 1 (weakest) to 10; only against the computer. Default 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// A position to start from, in FEN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// A time control, minutes+increment in seconds (`5+3`), or a time per move (`3d`, `1h`);
    /// no clock when absent or `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
    /// Whether the game moves both players' ratings (`rated`), or not (`casual`, the default).
    #[serde(default)]
    pub rated: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Challenged {
    pub opponent: String,
    /// The game, when it began at once (against the computer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// `white`, `black`, or `random` (no preference).
fn colour_word(w: &str) -> Option<Option<Side>> {
    match w.to_ascii_lowercase().as_str() {
        "white" | "w" => Some(Some(Side::White)),
        "black" | "b" => Some(Some(Side::Black)),
        "random" | "either" | "any" => Some(None),
        _ => None,
    }
}

/// The challenger's side once a random choice is made.
fn resolve(c: Option<Side>) -> Side {
    c.unwrap_or_else(|| {
        if rand::rng().random_bool(0.5) {
            Side::White
        } else {
            Side::Black
        }
    })
}

/// Starts a chess game between `me` (playing `side`) and `them`.
fn start(
    world: &mut World,
    cx: &mut Cx,
    me: &AgentId,
    side: Side,
    them: &str,
    options: serde_json::Value,
) -> Result<String, VerbError> {
    let participants = BTreeMap::from([
        (side.name().to_owned(), me.to_string()),
        (side.other().name().to_owned(), them.to_owned()),
    ]);
    let created = world.create_session(cx, "chess.v1", &participants, options)?;
    Ok(created.session_id)
}

/// The game's options from a challenge's words, checked now so that a bad FEN or clock is
/// refused to the challenger, not to whoever accepts.
fn options_of(args: &ChallengeArgs) -> Result<serde_json::Value, VerbError> {
    let mut options = json!({});
    if let Some(f) = &args.fen {
        options["fen"] = json!(f);
    }
    if let Some(c) = args.clock.as_deref().filter(|c| *c != "none") {
        options["clock"] = json!(c);
    }
    ChessGame::new(0, &options).map_err(|e| VerbError::usage(e.to_string()))?;
    if args.rated {
        if ChessGame::table(&options).is_none() {
            return Err(VerbError::usage(
                "A game from a set position is casual: it cannot be rated.",
            ));
        }
        options["rated"] = json!(true);
    }
    Ok(options)
}

impl Verb for ChallengeVerb {
    const NAME: &'static str = "challenge";
    const USAGE: &'static str = "challenge <name|computer> [as white|black|random] [level 1-10] [clock 5+3|3d|none] [rated|casual] [from <FEN>]";
    const SUMMARY: &'static str = "Challenge someone here, or the computer.";
    const HELP: &'static str = "At a chess table: `challenge Bob` asks Bob (who must be here) to play; he \
answers with `accept` or `decline`. `challenge computer level 3 as black` starts a game with the \
house's computer at once (levels 1 to 10, default 5). `clock 5+3` plays with a clock: 5 minutes \
each and 3 seconds more after each move; `clock 3d` is correspondence, 3 days for each move (or \
`30s`, `5m`, `2h`: seconds, minutes, hours); whoever runs out of time loses (or draws, if the \
other side has too little left to mate). `from <FEN>` starts from a position instead of the usual \
start. Colours are random unless you say `as white` or `as black`. `rated` makes the game count \
toward both players' ratings (see `ratings`); games are casual otherwise, and against the \
computer always.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Challenge `opponent` at a chess table here: someone \
here, who answers with accept or decline, or `computer`, which starts at once; `colour`, `level` \
(1 to 10), `clock` (`5+3`, or `3d` per move), `fen` and `rated` (true: the game moves both ratings; never against \
the computer) are optional. Returns the opponent and, once it starts, the \
game's id.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = ChallengeArgs;
    type Output = Challenged;

    fn parse(rest: &str) -> Result<ChallengeArgs, VerbError> {
        let (mut left, opponent) = word(rest).map_err(|_| usage::<ChallengeVerb>())?;
        let mut args = ChallengeArgs {
            opponent: opponent.to_owned(),
            colour: None,
            level: None,
            fen: None,
            clock: None,
            rated: false,
        };
        while !left.trim().is_empty() {
            let (after, kw) = word(left).map_err(|_| usage::<ChallengeVerb>())?;
            match kw.to_ascii_lowercase().as_str() {
                "as" => {
                    let (after, c) = word(after).map_err(|_| usage::<ChallengeVerb>())?;
                    args.colour = colour_word(c).ok_or_else(usage::<ChallengeVerb>)?;
                    left = after;
                }
                "level" => {
                    let (after, n) = word(after).map_err(|_| usage::<ChallengeVerb>())?;
                    args.level = Some(n.parse().map_err(|_| usage::<ChallengeVerb>())?);
                    left = after;
                }
                "clock" => {
                    let (after, c) = word(after).map_err(|_| usage::<ChallengeVerb>())?;
                    args.clock = Some(c.to_ascii_lowercase());
                    left = after;
                }
                "rated" | "casual" => {
                    args.rated = kw.eq_ignore_ascii_case("rated");
                    left = after;
                }
                "from" => {
                    args.fen = Some(whole(after, text, usage::<ChallengeVerb>)?.to_owned());
                    left = "";
                }
                _ => return Err(usage::<ChallengeVerb>()),
            }
        }
        Ok(args)
    }

    fn run(
        world: &mut World,
        cx: &mut Cx,
        args: ChallengeArgs,
    ) -> Result<Reply<Challenged>, VerbError> {
        let me = cx.actor.clone();
        if !at_chess_table(world, &me) {
            return Err(VerbError::refused(
                "You need to be at a chess table (in the Chess Parlour) to challenge someone.",
            ));
        }
        let mut options = options_of(&args)?;
        if args.opponent.eq_ignore_ascii_case("computer") {
            let level = args.level.unwrap_or(DEFAULT_LEVEL);
            if !(MIN_LEVEL..=MAX_LEVEL).contains(&level) {
                return Err(VerbError::usage("The computer plays at levels 1 to 10."));
            }
            let side = resolve(args.colour);
            options["computer_level"] = json!(level);
            let id = start(world, cx, &me, side, COMPUTER_ID, options)?;
            // A rated game is played against the level's fixed rating.
            let rated = if args.rated {
                super::rules::computer::anchor(level)
                    .map(|r| format!(", rated against its {r:.0}"))
                    .unwrap_or_default()
            } else {
                String::new()
            };
            return Ok(Reply::new(
                vec![format!(
                    "You sit down to play the computer (level {level}{rated}) as {}: game #{id}.",
                    side.name()
                )],
                Challenged {
                    opponent: "Computer".into(),
                    session_id: Some(id),
                },
            ));
        }
        if args.level.is_some() {
            return Err(VerbError::usage(
                "Levels are for the computer; people play as well as they play.",
            ));
        }
        let them = moot_kernel::verbs::target::person_here(world, &me, &args.opponent)?;
        if them.id == me {
            return Err(VerbError::refused("You cannot challenge yourself."));
        }
        let (them_id, them_name) = (them.id.clone(), them.name.clone());
        let my_name = world.player(&me).name.clone();
        // Each sees the other's rating on the board the game would be played on.
        let board = world
            .template("chess.v1")
            .and_then(|t| moot_kernel::ratings::board(t, &options));
        let rating = |who: &AgentId| {
            board.as_deref().map_or(String::new(), |b| {
                format!(" ({})", world.ratings().rating_on(who, b).shown())
            })
        };
        let (my_rating, their_rating) = (rating(&me), rating(&them_id));
        let side = resolve(args.colour);
        let mut terms = vec![format!("you would play {}", side.other().name())];
        if let Some(c) = args.clock.as_deref().filter(|c| *c != "none") {
            terms.push(format!("clock {c}"));
        }
        if args.fen.is_some() {
            terms.push("from a set position".to_owned());
        }
        if args.rated {
            terms.push("rated".to_owned());
        }
        let terms = terms.join(", ");
        let line = format!(
            "{my_name}{my_rating} challenges you to a game of chess ({terms}). Type `accept {my_name}` or `decline {my_name}`."
        );
        let participants = BTreeMap::from([
            (side.name().to_owned(), me.to_string()),
            (side.other().name().to_owned(), them_id.to_string()),
        ]);
        world.create_session_worded(cx, "chess.v1", &participants, options, line)?;
        Ok(Reply::new(
            vec![format!(
                "You challenge {them_name}{their_rating} to a game of chess."
            )],
            Challenged {
                opponent: them_name,
                session_id: None,
            },
        ))
    }
}
