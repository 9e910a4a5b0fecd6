//! A match's building: raised off the Town Hall when the match begins, with a door anyone may
//! walk through to watch, which becomes a plaque with the result when it ends; and its own
//! `say`, `emote` and `whisper` (evennia's command set on a room): inside, words belong to the
//! match. They take the town's verbs' place there, on every face, with the same names,
//! arguments and results.

use super::{Building, WerewolfTown, game_of, hall, play, rules};
use moot_kernel::verbs::emote::Emote;
use moot_kernel::verbs::say::{Heard, Say, TextArgs, text_args};
use moot_kernel::verbs::whisper::{Whisper, WhisperArgs};
use moot_kernel::verbs::{Reply, Verb, VerbEntry, VerbError, entry};
use moot_kernel::world::map::{Exit, Room, Thing};
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, Cx, RoomIdx, ThingKind, World};

/// The building's verbs, for whoever stands in a match's building, and for a living player of
/// a running match wherever they stand (their words belong to the match, which keeps them from
/// the town: said in the square, they would reach nobody who plays).
pub const SET: moot_kernel::verbs::game_module::CommandSet =
    moot_kernel::verbs::game_module::CommandSet {
        applies: inside_or_playing,
        verbs: VERBS,
    };

static VERBS: &[VerbEntry] = &[
    entry::<MatchSay>(),
    entry::<MatchEmote>(),
    entry::<MatchWhisper>(),
];

fn inside_or_playing(world: &World, actor: &AgentId) -> bool {
    playing(world, actor).is_some() || building_match(world, actor).is_some()
}

/// The running match that keeps `agent` from the town (they play in it, alive).
fn playing(world: &World, agent: &AgentId) -> Option<SessionId> {
    world
        .secluded_in(agent)
        .filter(|&sid| game_of(world, sid).is_some())
}

/// `say` in the building: a living player's words (and the condemned's last words) go to the
/// match, as `speak`; the dead and the watchers talk among themselves from the graveyard.
pub struct MatchSay;

impl Verb for MatchSay {
    const NAME: &'static str = Say::NAME;
    const ALIASES: &'static [&'static str] = Say::ALIASES;
    const USAGE: &'static str = Say::USAGE;
    const SUMMARY: &'static str = Say::SUMMARY;
    const HELP: &'static str = Say::HELP;
    const READ_ONLY: bool = false;
    type Args = TextArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<TextArgs, VerbError> {
        text_args::<Say>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TextArgs) -> Result<Reply<Heard>, VerbError> {
        // Nothing said is refused here too, the graveyard's talk as the town's.
        let args = args.said::<Say>()?;
        let Some(said) = floor(world, cx, &args.text) else {
            return Say::run(world, cx, args);
        };
        said.map(|text| {
            let heard = Heard {
                line: text.join(" "),
                heard_by: Vec::new(),
            };
            Reply::new(text, heard)
        })
    }
}

/// `emote` in the building: refused to a living player, who talks with `say`.
pub struct MatchEmote;

impl Verb for MatchEmote {
    const NAME: &'static str = Emote::NAME;
    const ALIASES: &'static [&'static str] = Emote::ALIASES;
    const USAGE: &'static str = Emote::USAGE;
    const SUMMARY: &'static str = Emote::SUMMARY;
    const HELP: &'static str = Emote::HELP;
    const READ_ONLY: bool = false;
    type Args = TextArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<TextArgs, VerbError> {
        Emote::parse(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: TextArgs) -> Result<Reply<Heard>, VerbError> {
        check_quiet(world, cx)?;
        Emote::run(world, cx, args)
    }
}

/// `whisper` in the building: refused to a living player, who talks with `say`.
pub struct MatchWhisper;

impl Verb for MatchWhisper {
    const NAME: &'static str = Whisper::NAME;
    const ALIASES: &'static [&'static str] = Whisper::ALIASES;
    const USAGE: &'static str = Whisper::USAGE;
    const SUMMARY: &'static str = Whisper::SUMMARY;
    const HELP: &'static str = Whisper::HELP;
    const READ_ONLY: bool = false;
    type Args = WhisperArgs;
    type Output = Heard;

    fn parse(rest: &str) -> Result<WhisperArgs, VerbError> {
        Whisper::parse(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, args: WhisperArgs) -> Result<Reply<Heard>, VerbError> {
        check_quiet(world, cx)?;
        Whisper::run(world, cx, args)
    }
}

/// The door to match `sid`'s building from the Town Hall (`game3`), if it has one.
pub fn door_of(world: &World, sid: SessionId) -> Option<String> {
    let b = world.ext_ref::<WerewolfTown>()?.buildings.get(&sid)?;
    Some(format!("game{}", b.number))
}

/// Puts up match `sid`'s building, unless it stands already (undone with the command).
pub(super) fn raise(world: &mut World, cx: &mut Cx, sid: SessionId) {
    if world.ext::<WerewolfTown>().buildings.contains_key(&sid) {
        return;
    }
    build(world, sid, number_of(sid));
    // A town without a Town Hall puts up no building (`werewolf practice` works anywhere).
    if let Some(b) = world.ext::<WerewolfTown>().buildings.get(&sid).copied() {
        cx.undo(move |w| {
            if let Some(hall) = hall(w) {
                w.map.rooms[hall].exits.retain(|e| e.to != b.room);
            }
            w.ext::<WerewolfTown>().buildings.remove(&sid);
        });
    }
}

/// Puts up match `sid`'s building: a room off the hall with a door (or, if it is over, a
/// plaque in the hall). `number` is its "Werewolf Game #N".
pub(super) fn build(world: &mut World, sid: SessionId, number: usize) {
    let Some(hall) = hall(world) else { return };
    let name = format!("Werewolf Game #{number}");
    let room = world.add_room(Room {
        num: 0,
        owner: None,
        gone: false,
        holder: None,
        props: Default::default(),
        id: format!("werewolf_game_{sid}"),
        name: name.clone(),
        description: format!(
            "A timber meeting house raised for {name}. Eight chairs stand in a \
             ring; the Town Crier keeps the time. Whoever stands here watches the match; the \
             players may be anywhere. `look` shows how it stands; `out` leads back to the Town \
             Hall."
        ),
        exits: vec![Exit {
            num: 0,
            owner: None,
            lock: None,
            name: "out".into(),
            aliases: vec!["hall".into(), "leave".into()],
            to: hall,
        }],
        things: Vec::new(),
    });
    world.bind_room(room, sid);
    let ended = world.session(sid).is_some_and(|s| s.game.is_terminal());
    world.ext::<WerewolfTown>().buildings.insert(
        sid,
        Building {
            number,
            room,
            ended: false,
        },
    );
    if ended {
        put_up_plaque(world, sid);
    } else {
        world.map.add_exit(hall, door(number, room));
    }
}

fn door(number: usize, room: RoomIdx) -> Exit {
    Exit {
        num: 0,
        owner: None,
        lock: None,
        name: format!("game{number}"),
        aliases: vec![format!("#{number}"), format!("werewolf{number}")],
        to: room,
    }
}

/// A plaque's id in the hall, before its match's number.
const PLAQUE: &str = "werewolf_plaque_";

/// How many finished matches' plaques the hall shows.
pub const PLAQUES_KEPT: usize = 3;

/// Match `sid` is over: its door in the hall becomes a plaque with the result (and the oldest
/// plaque beyond [`PLAQUES_KEPT`] is taken down).
fn put_up_plaque(world: &mut World, sid: SessionId) {
    let (Some(hall), Some(b)) = (
        hall(world),
        world.ext::<WerewolfTown>().buildings.get(&sid).copied(),
    ) else {
        return;
    };
    if b.ended {
        return;
    }
    let Some(w) = game_of(world, sid) else { return };
    let mut text = vec![format!("Werewolf Game #{}", b.number)];
    text.extend(rules::text::report_lines(w));
    let n = b.number;
    let hall_room = &mut world.map.rooms[hall];
    hall_room.exits.retain(|e| e.to != b.room);
    // The hall keeps the latest few results; older matches are in `matches ended`, on the web
    // and in their reports, not piled up in everyone's `look`.
    let plaques: Vec<usize> = (0..hall_room.things.len())
        .filter(|&i| hall_room.things[i].id.starts_with(PLAQUE))
        .collect();
    let extra = (plaques.len() + 1).saturating_sub(PLAQUES_KEPT);
    for &i in plaques[..extra].iter().rev() {
        hall_room.things.remove(i);
    }
    let plaque = Thing {
        num: 0,
        owner: None,
        lock: None,
        props: Default::default(),
        id: format!("{PLAQUE}{sid}"),
        name: format!("a plaque for Werewolf Game #{n}"),
        aliases: vec![
            format!("plaque{n}"),
            format!("plaque #{n}"),
            format!("#{n} plaque"),
            "plaque".into(),
        ],
        description: text.join("\n"),
        kind: ThingKind::SCENERY,
    };
    world.map.add_thing(hall, plaque);
    if let Some(b) = world.ext::<WerewolfTown>().buildings.get_mut(&sid) {
        b.ended = true;
    }
}

/// After any change to a session: a Werewolf match that has just ended gets its plaque (undone
/// with the change if the change is not stored).
pub fn after_change(world: &mut World, cx: &mut Cx, sid: SessionId) {
    // A match this world did not begin itself (a copy of one a game world plays, rebuilt
    // after the town started again) gets its building when first heard of.
    if game_of(world, sid).is_some() {
        raise(world, cx, sid);
    }
    let over = game_of(world, sid).is_some_and(|w| w.phase == rules::Phase::Ended);
    let building = world.ext::<WerewolfTown>().buildings.get(&sid).copied();
    if let (true, Some(b)) = (over, building)
        && !b.ended
    {
        let before = hall(world).map(|h| world.map.rooms[h].things.clone());
        put_up_plaque(world, sid);
        cx.undo(move |w| {
            let Some(hall) = hall(w) else { return };
            let room = &mut w.map.rooms[hall];
            if let Some(things) = before {
                room.things = things;
            }
            room.exits.push(door(b.number, b.room));
            if let Some(x) = w.ext::<WerewolfTown>().buildings.get_mut(&sid) {
                x.ended = false;
            }
        });
    }
}

/// At start-up, after the sessions are restored: every match's building, in the order the
/// matches began.
pub fn restore(world: &mut World) {
    let matches: Vec<SessionId> = world
        .session_ids()
        .into_iter()
        .filter(|&sid| game_of(world, sid).is_some())
        .collect();
    for sid in matches {
        build(world, sid, number_of(sid));
    }
}

/// A match's number, the one its players, its door and its page use: its session's.
pub fn number_of(sid: SessionId) -> usize {
    usize::try_from(sid.number()).unwrap_or(usize::MAX)
}

/// The running match whose building `agent` stands in, if any.
pub(crate) fn building_match(world: &World, agent: &AgentId) -> Option<SessionId> {
    building_of(world, agent)
        .filter(|&sid| game_of(world, sid).is_some_and(|w| w.phase != rules::Phase::Ended))
}

/// The match whose building `agent` stands in.
pub(super) fn building_of(world: &World, agent: &AgentId) -> Option<SessionId> {
    let room = world.find_player(agent)?.room;
    world
        .room_session(room)
        .filter(|&sid| game_of(world, sid).is_some())
}

/// The role `agent` plays in match `sid`, while the match keeps them from hearing the town
/// (a living player of a running match).
fn secluded_role(world: &World, sid: SessionId, agent: &AgentId) -> Option<&'static str> {
    let s = world.session(sid)?;
    s.role_of(agent).filter(|r| s.game.secluded(r))
}

/// The role `agent` speaks in match `sid` with now: a living player's, or the condemned's for
/// their last words.
fn speaking_role(world: &World, sid: SessionId, agent: &AgentId) -> Option<&'static str> {
    let s = world.session(sid)?;
    s.role_of(agent).filter(|r| {
        s.game.secluded(r)
            || s.game
                .legal_actions(r)
                .iter()
                .any(|a| a.starts_with("say "))
    })
}

/// `say` in a running match's building: a living player's words (and the condemned's last
/// words) go to the match (as `speak`); the dead and the watchers talk among themselves, from
/// the graveyard, and the living do not hear them. None outside a building.
pub fn floor(world: &mut World, cx: &mut Cx, text: &str) -> Option<Result<Vec<String>, VerbError>> {
    // A living player speaks to their match wherever they stand.
    let sid = playing(world, &cx.actor).or_else(|| building_match(world, &cx.actor))?;
    Some(match speaking_role(world, sid, &cx.actor) {
        Some(role) => {
            let args = play::SpeakArgs {
                text: text.to_owned(),
                ..play::SpeakArgs::default()
            };
            play::speak(world, cx, sid, role, &args).map(|r| r.text)
        }
        None => {
            // The living there hear none of it; telling the speaker so each time is noise.
            cx.speak(world, "graveyard", |name| {
                format!("{name} says from the graveyard, \"{text}\"").into()
            });
            Ok(vec![format!("You say from the graveyard, \"{text}\"")])
        }
    })
}

/// Emotes and whispers of a living player are refused (in their match's building or
/// anywhere while the match keeps them): they talk with `say`, to the match. (The dead and the watchers may; the living do not hear them.)
pub fn check_quiet(world: &World, cx: &Cx) -> Result<(), VerbError> {
    let sid = playing(world, &cx.actor).or_else(|| building_match(world, &cx.actor));
    match sid {
        Some(sid) if secluded_role(world, sid, &cx.actor).is_some() => Err(VerbError::refused(
            "In your match, speak with `say` (or `speak`) when it is your time.",
        )),
        _ => Ok(()),
    }
}
