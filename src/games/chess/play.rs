//! `move`, `resign`, `draw` and `takeback`: playing a chess game from telnet or tkMOO-light.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use shakmaty::CastlingMode;
use shakmaty::san::SanPlus;

use super::rules::tkmoo::drag_square;
use super::rules::{ChessAction, ChessGame, Control};
use super::{chess_game, chess_of, game_to_see, my_game};
use moot_kernel::game_api::AnyAction;
use moot_kernel::verbs::games::session_of;
use moot_kernel::verbs::parse::{opt_text, whole, word};
use moot_kernel::verbs::{Reply, Topic, Verb, VerbError, usage};
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, Cx, ThingKind, World};

pub struct Move;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct MoveArgs {
    /// The move, in UCI (`e2e4`, `e7e8q`) or SAN (`Nf3`, `O-O`).
    #[serde(rename = "move")]
    pub mv: String,
    /// The game (`#3`); your only game in play when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// The board sequence the move was made on (tkMOO-light sends it); a stale one is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Moved {
    pub session_id: String,
    /// The move in UCI, as logged.
    pub uci: String,
    pub san: String,
    pub tick: u64,
    pub status: String,
}

/// tkMOO-light's drag: `<x1> <y1> <x2> <y2> <sequence> on #<id>`, x counted from the h-file.
fn drag(rest: &str) -> Option<MoveArgs> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let [x1, y1, x2, y2, seq, on, game] = words.as_slice() else {
        return None;
    };
    if !on.eq_ignore_ascii_case("on") {
        return None;
    }
    let n = |w: &str| w.parse::<u32>().ok();
    let from = drag_square(n(x1)?, n(y1)?)?;
    let to = drag_square(n(x2)?, n(y2)?)?;
    Some(MoveArgs {
        mv: format!("{from}{to}"),
        game: Some((*game).to_owned()),
        sequence: Some(seq.parse().ok()?),
    })
}

/// Splits an optional trailing `on #3` (or `#3`) off a line.
fn with_game(rest: &str) -> (&str, Option<String>) {
    let t = rest.trim();
    if let Some((head, tail)) = t.rsplit_once(char::is_whitespace)
        && tail.starts_with('#')
    {
        let head = head.trim_end();
        let head = head
            .strip_suffix(" on")
            .or_else(|| head.strip_suffix(" ON"))
            .unwrap_or(head);
        return (head.trim(), Some(tail.to_owned()));
    }
    (t, None)
}

impl Verb for Move {
    const NAME: &'static str = "move";
    const ALIASES: &'static [&'static str] = &["mv"];
    const USAGE: &'static str = "move <move> [on #<game>]";
    const SUMMARY: &'static str = "Make a move: e2e4, Nf3 or O-O.";
    const HELP: &'static str = "`move e2e4` or `move Nf3` plays in your game (name it with `on #3` if \
you play several). Castle with `O-O`/`O-O-O` or by moving the king two squares; a pawn reaching \
the last rank becomes a queen unless you add the piece (`e7e8n`). tkMOO-light's board sends \
`move <x1> <y1> <x2> <y2> <sequence> on #<game>` itself; a move made on an out-of-date board is \
refused and the current board sent again.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Play `move`, in UCI (`e2e4`, `e7e8n`) or SAN (`Nf3`, \
`O-O`), in your chess game (`game` if you play several); a pawn on the last rank becomes a queen \
unless you name the piece. Returns the move in UCI and SAN, the game's tick and its status.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = MoveArgs;
    type Output = Moved;

    fn parse(rest: &str) -> Result<MoveArgs, VerbError> {
        if let Some(d) = drag(rest) {
            return Ok(d);
        }
        let (mv, game) = with_game(rest);
        let mv = whole(mv, word, usage::<Move>)?;
        Ok(MoveArgs {
            mv: mv.to_owned(),
            game,
            sequence: None,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, args: MoveArgs) -> Result<Reply<Moved>, VerbError> {
        let actor = cx.actor.clone();
        // Any game named, so that a watcher's drag is answered with the board.
        let sid = game_to_see(world, &actor, args.game.as_deref())?;
        let (s, g) = chess_game(world, sid)?;
        let Some(role) = s.role_of(&actor) else {
            world.send_board(cx, sid, &actor);
            return Err(VerbError::refused(format!(
                "You are only watching game #{sid}; you cannot move its pieces."
            )));
        };
        if let Some(end) = s.game.ending() {
            return Err(VerbError::refused(format!("Game #{sid} is over: {end}.")));
        }
        if let Some(seq) = args.sequence
            && seq != s.tick + 1
        {
            world.send_board(cx, sid, &actor);
            return Err(VerbError::refused(format!(
                "Your board of game #{sid} was out of date (sequence {seq}, now {}); here is the current one.",
                s.tick + 1
            )));
        }
        if g.turn().name() != role && !s.game.is_terminal() {
            world.refused(cx, sid, &actor);
            if args.sequence.is_some() {
                world.send_board(cx, sid, &actor);
            }
            return Err(VerbError::refused(format!(
                "It is not your move in game #{sid}."
            )));
        }
        // UCI (a missing promotion piece means a queen, as a drag cannot choose), then SAN.
        let legal = g
            .parse_move(&args.mv)
            .or_else(|e| {
                if args.mv.len() == 4 {
                    g.parse_move(&format!("{}q", args.mv))
                } else {
                    Err(e)
                }
            })
            .ok()
            .or_else(|| {
                args.mv
                    .parse::<SanPlus>()
                    .ok()
                    .and_then(|san| san.san.to_move(g.position()).ok())
            });
        let Some(m) = legal else {
            world.refused(cx, sid, &actor);
            if args.sequence.is_some() {
                world.send_board(cx, sid, &actor);
            }
            return Err(VerbError::refused(format!(
                "{} is not a legal move in game #{sid} (give UCI like e2e4, or SAN like Nf3).",
                args.mv
            )));
        };
        let uci = m.to_uci(CastlingMode::Standard);
        let tick = s.tick;
        let action = AnyAction::new(ChessAction::Move(uci));
        let uci = uci.to_string();
        let acted = world.play(cx, sid, action, Some(tick)).map_err(|e| {
            // A flag that fell before the move arrived ends the game first.
            match world.session(sid).and_then(|s| s.game.ending()) {
                Some(end) => VerbError::refused(format!("Game #{sid} is over: {end}.")),
                None => e.into(),
            }
        })?;
        // The game names the move as it plays it (the computer's answer comes later).
        let san = world
            .session(sid)
            .and_then(chess_of)
            .and_then(|g| g.last_san())
            .unwrap_or_else(|| uci.clone());
        Ok(Reply::new(
            vec![format!("You play {san} in game #{sid}.")],
            Moved {
                session_id: sid.to_string(),
                uci,
                san,
                tick: acted.tick,
                status: acted.status,
            },
        ))
    }
}

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct GameArg {
    /// The game (`#3`); your only game in play when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Done {
    pub session_id: String,
    /// The action taken, as logged.
    pub action: String,
    pub status: String,
}

fn optional_game<V: Verb>(rest: &str) -> Result<GameArg, VerbError> {
    whole(rest, opt_text, usage::<V>).map(|g| GameArg {
        game: g.map(str::to_owned),
    })
}

/// Takes a game-control action in the actor's game.
fn control(
    world: &mut World,
    cx: &mut Cx,
    game: Option<&str>,
    pick: impl FnOnce(&World, SessionId, &str) -> Control,
) -> Result<(SessionId, Control, String), VerbError> {
    let actor = cx.actor.clone();
    let sid = my_game(world, &actor, game)?;
    let s = session_of(world, sid)?;
    let tick = s.tick;
    let role = s
        .role_of(&actor)
        .ok_or_else(|| VerbError::refused(format!("You are not playing in game #{sid}.")))?;
    let action = pick(world, sid, role);
    let acted = world.play(
        cx,
        sid,
        AnyAction::new(ChessAction::Control(action)),
        Some(tick),
    )?;
    Ok((sid, action, acted.status))
}

/// Takes `action` in the actor's game, answering with `said` of it.
fn take(
    world: &mut World,
    cx: &mut Cx,
    args: GameArg,
    action: Control,
    said: fn(SessionId) -> String,
) -> Result<Reply<Done>, VerbError> {
    let (sid, action, status) = control(world, cx, args.game.as_deref(), |_, _, _| action)?;
    Ok(Reply::new(
        vec![said(sid)],
        Done {
            session_id: sid.to_string(),
            action: action.name().into(),
            status,
        },
    ))
}

/// Agrees to what the opponent asked for (a draw, a takeback), or asks for it: `standing` says
/// which side, if any, has asked; `actions` and `texts` are (agree, ask).
fn agree_or_ask(
    world: &mut World,
    cx: &mut Cx,
    game: Option<&str>,
    standing: fn(&ChessGame) -> Option<super::rules::Side>,
    actions: (Control, Control),
    texts: (&str, &str),
) -> Result<Reply<Done>, VerbError> {
    let (sid, action, status) = control(world, cx, game, |w, sid, role| {
        let asked = w.session(sid).and_then(chess_of).and_then(standing);
        if asked.is_some_and(|side| side.name() != role) {
            actions.0
        } else {
            actions.1
        }
    })?;
    let said = if action == actions.0 {
        texts.0
    } else {
        texts.1
    };
    Ok(Reply::new(
        vec![format!("{said} in game #{sid}.")],
        Done {
            session_id: sid.to_string(),
            action: action.name().into(),
            status,
        },
    ))
}

pub struct Abort;

impl Verb for Abort {
    const NAME: &'static str = "abort";
    const USAGE: &'static str = "abort [#<game>]";
    const SUMMARY: &'static str = "Call off a chess game before both sides have moved.";
    const HELP: &'static str = "Ends your game with no result, as if it had not been played: \
nobody wins, nothing is rated. Either player may, until both have made a move (then resign \
instead). A tournament's game cannot be aborted.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Abort your chess game (`game` if you play several) \
before both sides have moved: it ends with no result and nothing is rated. Returns the game's id \
and status.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = GameArg;
    type Output = Done;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        optional_game::<Abort>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<Done>, VerbError> {
        take(world, cx, args, Control::Abort, |sid| {
            format!("You abort game #{sid}: it ends with no result.")
        })
    }
}

pub struct Draw;

impl Verb for Draw {
    const NAME: &'static str = "draw";
    const USAGE: &'static str = "draw [#<game>]";
    const SUMMARY: &'static str = "Offer a draw, or accept the one offered.";
    const HELP: &'static str = "Offers your opponent a draw; if they offered one first, accepts it and the \
game is drawn. Making a move instead of answering declines an offer. The computer accepts only \
when it stands clearly worse.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Offer a draw in your chess game (`game` if you play \
several), or accept the one your opponent offered. Returns what was done and the game's status.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = GameArg;
    type Output = Done;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        optional_game::<Draw>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<Done>, VerbError> {
        let texts = ("You accept the draw", "You offer a draw");
        agree_or_ask(
            world,
            cx,
            args.game.as_deref(),
            ChessGame::draw_offer,
            (Control::AcceptDraw, Control::OfferDraw),
            texts,
        )
    }
}

pub struct Takeback;

impl Verb for Takeback {
    const NAME: &'static str = "takeback";
    const ALIASES: &'static [&'static str] = &["undo"];
    const USAGE: &'static str = "takeback [#<game>]";
    const SUMMARY: &'static str = "Ask to take back a move, or agree to it.";
    const HELP: &'static str = "Asks your opponent to let you take back your last move (and their reply, \
if they have made it); if they asked first, agrees. Against the computer it happens at once.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Ask to take back your last move in your chess game \
(`game` if you play several), or agree to your opponent's asking; against the computer it happens \
at once. Returns what was done and the game's status.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = GameArg;
    type Output = Done;

    fn parse(rest: &str) -> Result<GameArg, VerbError> {
        optional_game::<Takeback>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: GameArg) -> Result<Reply<Done>, VerbError> {
        let texts = (
            "You agree to take back",
            "You ask to take back your last move",
        );
        let actions = (Control::AcceptTakeback, Control::RequestTakeback);
        agree_or_ask(
            world,
            cx,
            args.game.as_deref(),
            ChessGame::takeback_request,
            actions,
            texts,
        )
    }
}

/// A move made on the game's page by the person signed in (`{"move": "e2e4"}`): the `move` verb,
/// as they would type it, in game `sid`.
pub fn web_move(
    world: &mut World,
    cx: &mut Cx,
    sid: Option<SessionId>,
    body: serde_json::Value,
) -> Result<serde_json::Value, VerbError> {
    let Some(mv) = body["move"].as_str() else {
        return Err(VerbError::usage(
            "move is a move, in UCI (e2e4) or SAN (Nf3)",
        ));
    };
    let args = MoveArgs {
        mv: mv.to_owned(),
        game: sid.map(|s| format!("#{s}")),
        sequence: None,
    };
    moot_kernel::verbs::run_value::<Move>(world, cx, args)
}

/// A line that is a legal move in the typist's one chess game (`e4`, `Nf3`, `e2e4`): what to
/// type to make it. (It is not made: a stray word is not a move anyone agreed to.)
pub fn bare_move(world: &World, actor: &AgentId, line: &str) -> Option<String> {
    let word = line.trim();
    if word.is_empty() || word.len() > 8 || word.contains(char::is_whitespace) {
        return None;
    }
    let sid = my_game(world, actor, None).ok()?;
    let (_, g) = chess_game(world, sid).ok()?;
    let legal = g.parse_move(word).is_ok()
        || word
            .parse::<SanPlus>()
            .ok()
            .is_some_and(|san| san.san.to_move(g.position()).is_ok());
    legal.then(|| format!("To play {word} in game #{sid}, type `move {word}`."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_parse_in_every_form() {
        let m = Move::parse("e2e4").unwrap();
        assert_eq!((m.mv.as_str(), m.game, m.sequence), ("e2e4", None, None));
        let m = Move::parse("Nf3 on #12").unwrap();
        assert_eq!((m.mv.as_str(), m.game.as_deref()), ("Nf3", Some("#12")));
        let m = Move::parse("O-O #3").unwrap();
        assert_eq!((m.mv.as_str(), m.game.as_deref()), ("O-O", Some("#3")));
        // tkMOO-light's drag of e2 to e4 on board #269 at sequence 1.
        let m = Move::parse("4 2 4 4 1 on #269").unwrap();
        assert_eq!(
            (m.mv.as_str(), m.game.as_deref(), m.sequence),
            ("e2e4", Some("#269"), Some(1))
        );
        assert!(Move::parse("").is_err());
        assert!(Move::parse("e2 e4").is_err());
    }
}
