//! `challenge`, `accept` and `decline`: starting a chess game with someone here, or with the
//! computer at once.

use std::collections::BTreeMap;

use rand::RngExt;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::at_chess_table;
use crate::games::Game;
use crate::games::chess::ChessGame;
use crate::verbs::parse::{text, whole, word};
use crate::verbs::{Reply, Verb, VerbError, usage};
use crate::world::chess::{COMPUTER_ID, Challenge, Colour, DEFAULT_LEVEL};
use crate::world::{AgentId, Cx, ThingKind, World};

pub struct ChallengeVerb;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ChallengeArgs {
    /// Someone here, or `computer`.
    pub opponent: String,
    /// The colour you want; random when absent.
    #[serde(default)]
    pub colour: Colour,
    /// The computer's strength, 1 (weakest) to 10; only against the computer. Default 5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u8>,
    /// A position to start from, in FEN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Challenged {
    pub opponent: String,
    /// The game, when it began at once (against the computer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

fn colour_word(w: &str) -> Option<Colour> {
    match w.to_ascii_lowercase().as_str() {
        "white" | "w" => Some(Colour::White),
        "black" | "b" => Some(Colour::Black),
        "random" | "either" | "any" => Some(Colour::Random),
        _ => None,
    }
}

/// The challenger's side once a random choice is made.
fn resolve(c: Colour) -> &'static str {
    match c {
        Colour::White => "white",
        Colour::Black => "black",
        Colour::Random => {
            if rand::rng().random_bool(0.5) {
                "white"
            } else {
                "black"
            }
        }
    }
}

fn other(side: &str) -> &'static str {
    if side == "white" { "black" } else { "white" }
}

/// Starts a chess game between `me` (playing `side`) and `them`.
fn start(
    world: &mut World,
    cx: &mut Cx,
    me: &AgentId,
    side: &str,
    them: &str,
    options: serde_json::Value,
) -> Result<String, VerbError> {
    let participants = BTreeMap::from([
        (side.to_owned(), me.to_string()),
        (other(side).to_owned(), them.to_owned()),
    ]);
    let created = world.create_session(cx, "chess.v1", &participants, options)?;
    Ok(created.session_id)
}

fn check_fen(fen: &Option<String>) -> Result<(), VerbError> {
    if let Some(f) = fen {
        ChessGame::new(0, &json!({ "fen": f })).map_err(|e| VerbError::usage(e.to_string()))?;
    }
    Ok(())
}

impl Verb for ChallengeVerb {
    const NAME: &'static str = "challenge";
    const USAGE: &'static str =
        "challenge <name|computer> [as white|black|random] [level 1-10] [from <FEN>]";
    const SUMMARY: &'static str = "Challenge someone here, or the computer, to a game of chess.";
    const HELP: &'static str = "At a chess table: `challenge Bob` asks Bob (who must be here) to play; he \
answers with `accept` or `decline`. `challenge computer level 3 as black` starts a game with the \
house's computer at once (levels 1 to 10, default 5). `from <FEN>` starts from a position instead \
of the usual start. Colours are random unless you say `as white` or `as black`.";
    const READ_ONLY: bool = false;
    const OFFERED_BY: &'static [ThingKind] = &[ThingKind::ChessTable];
    type Args = ChallengeArgs;
    type Output = Challenged;

    fn parse(rest: &str) -> Result<ChallengeArgs, VerbError> {
        let (mut left, opponent) = word(rest).map_err(|_| usage::<ChallengeVerb>())?;
        let mut args = ChallengeArgs {
            opponent: opponent.to_owned(),
            colour: Colour::Random,
            level: None,
            fen: None,
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
        check_fen(&args.fen)?;
        if args.opponent.eq_ignore_ascii_case("computer") {
            let level = args.level.unwrap_or(DEFAULT_LEVEL);
            if !(crate::engine::MIN_LEVEL..=crate::engine::MAX_LEVEL).contains(&level) {
                return Err(VerbError::usage("The computer plays at levels 1 to 10."));
            }
            let side = resolve(args.colour);
            let mut options = json!({ "computer_level": level });
            if let Some(f) = &args.fen {
                options["fen"] = json!(f);
            }
            let id = start(world, cx, &me, side, COMPUTER_ID, options)?;
            return Ok(Reply::new(
                vec![format!(
                    "You sit down to play the computer (level {level}) as {side}: game #{id}."
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
        let room = world.player(&me).room;
        let them = world
            .occupants(room)
            .iter()
            .map(|id| world.player(id))
            .find(|p| p.name.eq_ignore_ascii_case(&args.opponent))
            .ok_or_else(|| {
                VerbError::not_found(format!("I don't see \"{}\" here.", args.opponent))
            })?;
        if them.id == me {
            return Err(VerbError::refused("You cannot challenge yourself."));
        }
        let (them_id, them_name) = (them.id.clone(), them.name.clone());
        let my_name = world.player(&me).name.clone();
        let before = world.chess.challenges.clone();
        cx.undo(move |w| w.chess.challenges = before);
        world
            .chess
            .challenges
            .retain(|c| !(c.from == me && c.to == them_id));
        world.chess.challenges.push(Challenge {
            from: me.clone(),
            to: them_id.clone(),
            colour: args.colour,
            fen: args.fen.clone(),
        });
        let theirs = match args.colour {
            Colour::White => "you would play black",
            Colour::Black => "you would play white",
            Colour::Random => "colours drawn at random",
        };
        let from = if args.fen.is_some() {
            ", from a set position"
        } else {
            ""
        };
        cx.tell(&them_id, format!("{my_name} challenges you to a game of chess ({theirs}{from}). Type `accept {my_name}` or `decline {my_name}`."));
        Ok(Reply::new(
            vec![format!("You challenge {them_name} to a game of chess.")],
            Challenged {
                opponent: them_name,
                session_id: None,
            },
        ))
    }
}

pub struct Accept;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Whom {
    /// Who challenged you.
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Answered {
    pub name: String,
    /// The game that began, if accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// The challenge `name` made to the actor, taken out of the list.
fn take_challenge(
    world: &mut World,
    cx: &mut Cx,
    name: &str,
) -> Result<(Challenge, String), VerbError> {
    let pos = world
        .chess
        .challenges
        .iter()
        .position(|c| c.to == cx.actor && world.player(&c.from).name.eq_ignore_ascii_case(name))
        .ok_or_else(|| VerbError::not_found(format!("\"{name}\" has not challenged you.")))?;
    let c = world.chess.challenges.remove(pos);
    let back = c.clone();
    cx.undo(move |w| w.chess.challenges.insert(pos, back));
    let from_name = world.player(&c.from).name.clone();
    Ok((c, from_name))
}

impl Verb for Accept {
    const NAME: &'static str = "accept";
    const USAGE: &'static str = "accept <name>";
    const SUMMARY: &'static str = "Accept someone's chess challenge.";
    const HELP: &'static str = "`accept Ann` starts the game Ann challenged you to.";
    const READ_ONLY: bool = false;
    const OFFERED_BY: &'static [ThingKind] = &[ThingKind::ChessTable];
    type Args = Whom;
    type Output = Answered;

    fn parse(rest: &str) -> Result<Whom, VerbError> {
        whole(rest, word, usage::<Accept>).map(|n| Whom { name: n.to_owned() })
    }

    fn run(world: &mut World, cx: &mut Cx, args: Whom) -> Result<Reply<Answered>, VerbError> {
        let (c, from_name) = take_challenge(world, cx, &args.name)?;
        let their_side = resolve(c.colour);
        let mut options = json!({});
        if let Some(f) = &c.fen {
            options["fen"] = json!(f);
        }
        let me = cx.actor.clone();
        let id = start(world, cx, &me, other(their_side), &c.from, options)?;
        Ok(Reply::new(
            vec![format!(
                "You accept {from_name}'s challenge: game #{id}, you play {}.",
                other(their_side)
            )],
            Answered {
                name: from_name,
                session_id: Some(id),
            },
        ))
    }
}

pub struct Decline;

impl Verb for Decline {
    const NAME: &'static str = "decline";
    const USAGE: &'static str = "decline <name>";
    const SUMMARY: &'static str = "Decline someone's chess challenge.";
    const HELP: &'static str = "`decline Ann` turns down Ann's challenge; she is told.";
    const READ_ONLY: bool = false;
    const OFFERED_BY: &'static [ThingKind] = &[ThingKind::ChessTable];
    type Args = Whom;
    type Output = Answered;

    fn parse(rest: &str) -> Result<Whom, VerbError> {
        whole(rest, word, usage::<Decline>).map(|n| Whom { name: n.to_owned() })
    }

    fn run(world: &mut World, cx: &mut Cx, args: Whom) -> Result<Reply<Answered>, VerbError> {
        let (c, from_name) = take_challenge(world, cx, &args.name)?;
        let my_name = world.player(&cx.actor).name.clone();
        cx.tell(&c.from, format!("{my_name} declines your chess challenge."));
        Ok(Reply::new(
            vec![format!("You decline {from_name}'s challenge.")],
            Answered {
                name: from_name,
                session_id: None,
            },
        ))
    }
}
