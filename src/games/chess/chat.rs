//! `chat`: the players of a chess game talking to each other (lichess's player chat), or to
//! those watching (its spectator chat). Each game keeps its last lines, so that a bot on the
//! lichess Bot API reads them as `chatLine`s in its game stream, and a person is told them as
//! they come. Nothing here is hidden: what a player says, they say to be heard.

use std::collections::{BTreeMap, VecDeque};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::my_game;
use moot_kernel::verbs::games::session_of;
use moot_kernel::verbs::{Reply, Topic, Verb, VerbError, usage};
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, Awaited, Cx, Extension, ThingKind, World};

/// lichess's longest chat line, in characters.
pub const MAX_CHARS: usize = 140;
/// Lines a game keeps (the older go).
const LINES_KEPT: usize = 100;
/// Games whose chat is kept (those of games over go first, then the oldest).
const GAMES_KEPT: usize = 1_000;

/// One line of a game's chat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ChatLine {
    /// Its number in the game's chat, from 0.
    pub n: u64,
    /// `player` or `spectator`.
    pub room: String,
    pub username: String,
    pub text: String,
}

/// Every kept game's chat.
#[derive(Debug, Default)]
pub struct GameChats {
    games: BTreeMap<SessionId, (u64, VecDeque<ChatLine>)>,
}

impl Extension for GameChats {
    /// What was said stays said.
    fn forget(&mut self, _: &AgentId) {}
}

impl GameChats {
    /// Whether a new game's chat would find no room.
    fn full(&self, sid: SessionId) -> bool {
        !self.games.contains_key(&sid) && self.games.len() >= GAMES_KEPT
    }

    /// Keeps a line of game `sid`'s, making room (the chats of games `over` first, then the
    /// oldest game's), and gives it back as kept.
    fn add(
        &mut self,
        sid: SessionId,
        over: &[SessionId],
        room: &str,
        username: String,
        text: String,
    ) -> ChatLine {
        if self.full(sid) {
            for g in over {
                self.games.remove(g);
            }
            if self.full(sid) {
                self.games.pop_first();
            }
        }
        let (next, lines) = self.games.entry(sid).or_default();
        if lines.len() >= LINES_KEPT {
            lines.pop_front();
        }
        let line = ChatLine {
            n: *next,
            room: room.to_owned(),
            username,
            text,
        };
        lines.push_back(line.clone());
        *next += 1;
        line
    }

    /// Game `sid`'s kept lines, and the number its next will have.
    pub fn of(&self, sid: SessionId) -> (Vec<ChatLine>, u64) {
        self.games
            .get(&sid)
            .map(|(next, lines)| (lines.iter().cloned().collect(), *next))
            .unwrap_or_default()
    }
}

pub struct Chat;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatArgs {
    /// What to say (at most 140 characters).
    pub text: String,
    /// The game (`#3`); your only game in play when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// `player` (your opponent; the default) or `spectator` (those watching).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Said {
    pub session_id: String,
    pub line: ChatLine,
}

impl Verb for Chat {
    const NAME: &'static str = "chat";
    const USAGE: &'static str = "chat [#<game>] <text>";
    const SUMMARY: &'static str = "Say something to your chess opponent.";
    const HELP: &'static str = "Tells your opponent in your chess game (name it with `#3` if you \
play several) what you say, wherever they are, while the game runs; a bot playing over the \
lichess Bot API reads it in its game's chat. At most 140 characters; not while either of you \
is in a Werewolf match.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Say `text` (at most 140 characters) to your \
opponent in your chess game (`game` if you play several; `room`: `spectator` for those \
watching). Returns the line as the game's chat keeps it.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(moot_kernel::verbs::Toolset::TABLES);
    const TOPIC: Topic = super::TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[super::CHESS_TABLE];
    type Args = ChatArgs;
    type Output = Said;

    fn parse(rest: &str) -> Result<ChatArgs, VerbError> {
        let rest = rest.trim();
        let (game, text) = match rest.strip_prefix('#') {
            Some(after) => {
                let (n, text) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
                (Some(format!("#{n}")), text.trim())
            }
            None => (None, rest),
        };
        if text.is_empty() {
            return Err(usage::<Chat>());
        }
        Ok(ChatArgs {
            text: text.to_owned(),
            game,
            room: None,
        })
    }

    fn run(world: &mut World, cx: &mut Cx, a: ChatArgs) -> Result<Reply<Said>, VerbError> {
        let text = a.text.trim().to_owned();
        if text.is_empty() || text.chars().count() > MAX_CHARS {
            return Err(VerbError::usage(format!(
                "Say something of at most {MAX_CHARS} characters."
            )));
        }
        let room = match a.room.as_deref() {
            None | Some("player") => "player",
            Some("spectator") => "spectator",
            Some(other) => {
                return Err(VerbError::usage(format!(
                    "`{other}` is no chat: `player` (your opponent) or `spectator`."
                )));
            }
        };
        let actor = cx.actor.clone();
        let sid = my_game(world, &actor, a.game.as_deref())?;
        let s = session_of(world, sid)?;
        if s.game.is_terminal() {
            return Err(VerbError::refused(format!("Game #{sid} is over.")));
        }
        let me = s
            .participants
            .iter()
            .find(|p| p.agent == actor)
            .ok_or_else(|| VerbError::refused(format!("You are not playing in game #{sid}.")))?;
        let name = me.name.clone();
        // A game that keeps its players from the town (a Werewolf match) keeps them from this
        // too, either way: no private line into a match, nor out of one.
        if world.deaf_to_town(&actor).is_some() {
            return Err(VerbError::refused(
                "You are in a match that keeps its players from the town: nothing you say \
                 leaves it until it ends.",
            ));
        }
        let opponents: Vec<AgentId> = s
            .participants
            .iter()
            .filter(|p| p.agent != actor)
            .map(|p| p.agent.clone())
            .collect();
        if let Some(why) = opponents.iter().find_map(|o| world.deaf_to_town(o)) {
            return Err(VerbError::refused(why));
        }
        let heard = format!("{name} (game #{sid}): {text}");
        match room {
            "player" => {
                for o in opponents.iter().filter(|o| world.find_player(o).is_some()) {
                    cx.tell(o, heard.as_str());
                }
            }
            _ => {
                if let Some(r) = s.room {
                    world.tell_hearers(cx, r, Some(&actor), heard.as_str());
                }
            }
        }
        // Room for this game's lines: those of games that are over go first.
        let over: Vec<SessionId> = match world.ext_ref::<GameChats>() {
            Some(c) if c.full(sid) => c
                .games
                .keys()
                .copied()
                .filter(|g| world.session(*g).is_none_or(|s| s.game.is_terminal()))
                .collect(),
            _ => Vec::new(),
        };
        let line = world.ext::<GameChats>().add(sid, &over, room, name, text);
        // Wakes a bot's game stream waiting on the game.
        cx.changed.push(Awaited::Session(sid));
        Ok(Reply::new(
            vec![format!("You say to game #{sid}'s {room}s: {}", line.text)],
            Said {
                session_id: sid.to_string(),
                line,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A full store makes room with the chats of games that are over, and only failing those
    /// with the oldest game's; a game keeps its last lines, numbered on.
    #[test]
    fn room_is_made_from_games_over_first_and_lines_stay_bounded() {
        let mut c = GameChats::default();
        let said = |c: &mut GameChats, sid: u64, over: &[SessionId]| {
            c.add(
                SessionId::from(sid),
                over,
                "player",
                "A".into(),
                "hi".into(),
            )
        };
        for sid in 1..=GAMES_KEPT as u64 {
            said(&mut c, sid, &[]);
        }
        said(&mut c, 5_000, &[SessionId::from(7)]);
        assert!(c.of(SessionId::from(1)).1 == 1 && c.of(SessionId::from(7)).1 == 0);
        said(&mut c, 5_001, &[]);
        assert_eq!(c.of(SessionId::from(1)).1, 0, "then the oldest goes");
        for _ in 0..LINES_KEPT + 5 {
            said(&mut c, 2, &[]);
        }
        let (lines, next) = c.of(SessionId::from(2));
        assert_eq!((lines.len(), next), (LINES_KEPT, LINES_KEPT as u64 + 6));
        assert_eq!(lines[0].n, 6);
    }
}
