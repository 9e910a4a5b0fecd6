//! Game worlds: processes apart from the town that own game sessions (`moot games --nats URL
//! --name NAME`), each with a database of its own, so that the matches a town plays are not
//! all played on the one process that holds its rooms and people.
//!
//! Every [`wire::BEAT`] a game world says, as a request on [`wire::game_beats`], who it is and
//! how many sessions it runs; the town answers, and keeps which game worlds are alive and how
//! busy ([`GameWorlds`]), which `/metrics` shows. A name is one process's at a time: sessions
//! are placed by name, so a second process beating under a name that is alive is refused, and
//! stops, rather than take sessions meant for the other.
//!
//! A session made by name (`session_create`, from any face) while a game world is alive is
//! placed on the one running the fewest: the town numbers it (the town numbers every
//! session, so no two worlds give one id), stores where it went, and hands the call over
//! ([`wire::GameCall`]) with the cards of everyone it names, vouched for by the town; the game
//! world keeps those identities (never a credential), makes the session under that id, stores
//! it in its own database and answers once it is stored. Every later call naming the session
//! (`session_id`) goes to the same game world the same way, long polls included.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::StreamExt;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::calls::{CallRefused, Called, Credential, McpAsk, ToolCall, Tools, VerbCall};
use super::door::Door;
use super::game_worlds::{GameWorlds, PLACED, lock};
use super::wire::{self, Card, GameAsk, GameBeat, GameCall, GameHeard};
use moot_kernel::store::IdentityRow;
use moot_kernel::store::keys::{self, StateRow};
use moot_kernel::verbs::sessions::{SessionList, SessionListView};
use moot_kernel::verbs::{Verb, VerbEntry};
use moot_kernel::world::sessions::{Announce, Followed, Recorded, SessionId, Told, parse_id};
use moot_kernel::world::{AgentId, Face, Unavailable, WorldHandle};

/// How long a game world refused its name keeps asking before it stops: long enough for a
/// process killed and started again at once to outlast its earlier run's last beat.
const REFUSED_FOR: Duration = Duration::from_secs(5);

/// The arguments by which a call names the session it is about: the sessions' verbs', the
/// chess tools' and the Bot API's, the Werewolf tools' and its REST reads', and the games'
/// moves (`game`, a session's number where it is one).
const SESSION_ARGS: [&str; 5] = ["session_id", "game_id", "matchId", "match_id", "game"];

/// The most verbs typed for placed sessions that may be on their way to their game worlds at
/// once, and as many again waiting to go; one more is refused, saying so.
pub const HANDED_AT_ONCE: usize = 1024;

/// The most verbs one typist may have waiting behind the one a game world is answering.
const TYPED_AHEAD: usize = 16;

/// A session a call handed to a game world is making for its caller, counted by the town
/// ([`moot_kernel::world::sessions::Handing`]) until its answer: given back at the end of the
/// call, or when the call is dropped (the town stopping with it under way: a call that makes
/// a session is never taken back, see [`elsewhere`]).
struct Making {
    world: WorldHandle,
    who: AgentId,
    handing: Option<moot_kernel::world::sessions::Handing>,
}

impl Making {
    /// Gives it back, once the call is answered (and the town holds the session's copy).
    async fn done(mut self) {
        if let Some(handing) = self.handing.take() {
            let who = self.who.clone();
            let _ = self
                .world
                .call(self.who.clone(), Face::Rest, move |w, _| {
                    w.handed(&who, handing)
                })
                .await;
        }
    }
}

impl Drop for Making {
    fn drop(&mut self) {
        if let Some(handing) = self.handing.take() {
            let (world, who) = (self.world.clone(), self.who.clone());
            tokio::spawn(async move {
                let _ = world
                    .call(who.clone(), Face::Rest, move |w, _| w.handed(&who, handing))
                    .await;
            });
        }
    }
}

/// Whoever `id` is, as the town's directory vouches for them to a game world.
pub(super) fn card(door: &Door, id: &str) -> Option<Card> {
    let name = door.directory.name_of(id)?;
    let owner = door.directory.owner_of(id);
    Some(Card {
        id: id.to_owned(),
        name,
        kind: door.directory.kind_of(id).name().to_owned(),
        owner: (owner != id).then_some(owner),
    })
}

/// A host's verb call, in the world process: answered by the game world that holds (or is to
/// hold) its session, or else here ([`Door::call`]).
pub async fn call(door: &Arc<Door>, call: VerbCall) -> Called {
    let (entry, agent) = door.vouched(&call)?;
    if let Some(called) = verb_elsewhere(door, entry, &agent, &call).await {
        return called;
    }
    door.call_as(entry, agent, call.face, call.args, None).await
}

/// A host's MCP tool call, in the world process: answered as [`call`] answers a verb call,
/// here by the MCP endpoint's own server (`tools`, [`Door::tool_as`]).
pub async fn tool(door: &Arc<Door>, tools: &Tools, call: ToolCall) -> Called {
    let agent =
        super::calls::vouch(&door.directory, &call.credential).map_err(CallRefused::Unvouched)?;
    let agent = AgentId::from(agent);
    if let Some(called) = tool_elsewhere(door, tools, &agent, &call).await {
        return called;
    }
    door.tool_as(tools, agent, call).await
}

/// The town's side of a verb call that a game world answers: a new session (`session_create`)
/// while one is alive, or any call naming a session placed on one; `None` for a call this
/// town answers itself (and in a game world, for every call).
async fn verb_elsewhere(
    door: &Arc<Door>,
    entry: &'static VerbEntry,
    agent: &AgentId,
    call: &VerbCall,
) -> Option<Called> {
    if entry.name == SessionList::NAME {
        return verb_listed_everywhere(door, entry, agent, call).await;
    }
    // Arguments that are no object name no session: the town refuses them itself.
    let args = call.args.as_object()?;
    let ask = || {
        let (face, verb) = (call.face, call.verb.clone());
        move |args| GameAsk::Verb {
            face,
            verb,
            args: serde_json::Value::Object(args),
        }
    };
    let refuse = |e| {
        Err(CallRefused::Verb(
            moot_kernel::verbs::VerbError::from(e).into(),
        ))
    };
    elsewhere(
        door,
        entry.placed,
        !entry.read_only,
        agent,
        args,
        ask,
        refuse,
    )
    .await
}

/// The caller's sessions (`session_list`) wherever they are: the town's own (`own`) and each
/// game world's alive (one away cannot say, and its sessions are missing until it is back),
/// each asked with `ask`, in the order of their ids; `None` while no game world is alive.
/// `read` finds the list in an answer, and `write` puts the merged list in the town's.
async fn listed_everywhere(
    door: &Door,
    agent: &AgentId,
    own: impl std::future::Future<Output = Called>,
    ask: GameAsk,
    read: fn(&serde_json::value::RawValue) -> Option<SessionListView>,
    write: fn(Box<serde_json::value::RawValue>, SessionListView) -> Called,
) -> Option<Called> {
    let worlds = &door.game_worlds;
    worlds.link.get()?;
    let alive = worlds.alive(Instant::now());
    if alive.is_empty() {
        return None;
    }
    let caller = card(door, agent)?;
    let asked = alive.iter().map(|(name, _)| {
        let call = GameCall {
            id: 0,
            caller: caller.clone(),
            cards: Vec::new(),
            ask: ask.clone(),
            session: None,
        };
        async move { worlds.forward(name, call).await }
    });
    let theirs = futures_util::future::join_all(asked);
    let (own, theirs) = tokio::join!(own, theirs);
    let own = match own {
        Ok(raw) => raw,
        Err(refused) => return Some(Err(refused)),
    };
    // A placed session is listed by its game world; the town's copy of it only if that one
    // could not say.
    let lists = theirs
        .iter()
        .flatten()
        .map(|raw| read(raw))
        .chain([read(&own)]);
    Some(write(own, SessionListView::merged(lists.flatten())))
}

/// [`listed_everywhere`] for a verb call: its answer is the list.
async fn verb_listed_everywhere(
    door: &Door,
    entry: &'static VerbEntry,
    agent: &AgentId,
    call: &VerbCall,
) -> Option<Called> {
    let ask = GameAsk::Verb {
        face: call.face,
        verb: call.verb.clone(),
        args: call.args.clone(),
    };
    let own = door.call_as(entry, agent.clone(), call.face, call.args.clone(), None);
    let read = |raw: &serde_json::value::RawValue| serde_json::from_str(raw.get()).ok();
    let write = |_, merged: SessionListView| super::calls::written(&merged);
    listed_everywhere(door, agent, own, ask, read, write).await
}

/// [`listed_everywhere`] for an MCP tool call: its answer is a tool result, the list its
/// structured content and its text.
async fn tool_listed_everywhere(
    door: &Door,
    tools: &Tools,
    agent: &AgentId,
    call: &ToolCall,
) -> Option<Called> {
    let ask = GameAsk::Tool(ToolCall {
        credential: Credential::Nobody,
        ..call.clone()
    });
    let own = door.tool_as(tools, agent.clone(), call.clone());
    let read = |raw: &serde_json::value::RawValue| {
        let result: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
        serde_json::from_value(result.get("structuredContent")?.clone()).ok()
    };
    let write = |own: Box<serde_json::value::RawValue>, merged: SessionListView| {
        let Ok(mut result) = serde_json::from_str::<serde_json::Value>(own.get()) else {
            return Ok(own);
        };
        if result.get("structuredContent").is_none() {
            return Ok(own);
        }
        result["content"] =
            serde_json::json!([{ "type": "text", "text": merged.text().join("\n") }]);
        result["structuredContent"] = serde_json::json!(merged);
        super::calls::written(&result)
    };
    listed_everywhere(door, agent, own, ask, read, write).await
}

/// [`verb_elsewhere`] for an MCP tool call: the same verbs, placed and handed over the same
/// way, and answered by the game world's own MCP server.
async fn tool_elsewhere(
    door: &Arc<Door>,
    tools: &Tools,
    agent: &AgentId,
    call: &ToolCall,
) -> Option<Called> {
    let none = serde_json::Map::new();
    let args = call.arguments.as_ref().unwrap_or(&none);
    let entry = crate::games::find_tool(&call.name, crate::games::toolsets());
    if entry.is_some_and(|e| e.name == SessionList::NAME) {
        return tool_listed_everywhere(door, tools, agent, call).await;
    }
    let creates = entry.is_some_and(|e| e.placed);
    let writes = entry.is_none_or(|e| !e.read_only);
    let ask = || {
        let call = call.clone();
        move |args| {
            GameAsk::Tool(ToolCall {
                credential: Credential::Nobody,
                arguments: Some(args),
                ..call
            })
        }
    };
    let refuse = |e: moot_kernel::world::sessions::HostError| {
        super::calls::written(&crate::mcp::Answer::refused(e.message))
    };
    elsewhere(door, creates, writes, agent, args, ask, refuse).await
}

/// Where a call with `args` by `agent` goes (a new session if it `creates` one; a change if
/// it `writes`), and its answer from there; `ask` gives what makes what crosses from the
/// arguments as the town leaves them (participants named by id). They are copied only for a
/// call that may be handed over (one naming a session placed on a game world, or a new one
/// while one is alive): most calls stay.
///
/// A change goes only within the limits the town keeps for each identity across every world
/// ([`moot_kernel::world::World::admit_handed`]); one over them stays, and is refused here as
/// it would be anywhere.
async fn elsewhere<ToAsk>(
    door: &Arc<Door>,
    creates: bool,
    writes: bool,
    agent: &AgentId,
    args: &serde_json::Map<String, serde_json::Value>,
    ask: impl FnOnce() -> ToAsk,
    refuse: impl FnOnce(moot_kernel::world::sessions::HostError) -> Called + Send + 'static,
) -> Option<Called>
where
    ToAsk: FnOnce(serde_json::Map<String, serde_json::Value>) -> GameAsk + Send + 'static,
{
    let worlds = &door.game_worlds;
    worlds.link.get()?;
    // The game world that holds the session the call names; for a new one, none yet.
    let holder = match creates {
        true if worlds.alive(Instant::now()).is_empty() => return None,
        true => None,
        false => {
            let id = SESSION_ARGS
                .iter()
                .find_map(|key| args.get(*key).and_then(serde_json::Value::as_str))
                .and_then(|s| parse_id(s).ok())?;
            worlds.until_begun(id).await;
            Some(worlds.placed_on(id)?)
        }
    };
    let over = handed_over(
        door.clone(),
        (creates, writes),
        holder,
        agent.clone(),
        args.clone(),
        ask(),
        refuse,
    );
    // A call that makes a session is seen through whatever its caller does, in a task of its
    // own: taken back (its client left) between its admission and its answer, it would leave
    // the session counted for its maker for good, or stop counting it while its game world
    // may still make it (the one match a player plays at a time), or leave it placed and
    // never made.
    match creates {
        true => tokio::spawn(over)
            .await
            .unwrap_or(Some(Err(CallRefused::Unavailable(Unavailable::Internal)))),
        false => over.await,
    }
}

/// [`elsewhere`] once it knows where the call goes (`holder`, or none yet for a new session):
/// admitted within the town's limits, placed if it is new, handed over and settled.
async fn handed_over(
    door: Arc<Door>,
    (creates, writes): (bool, bool),
    holder: Option<String>,
    agent: AgentId,
    args: serde_json::Map<String, serde_json::Value>,
    ask: impl FnOnce(serde_json::Map<String, serde_json::Value>) -> GameAsk,
    refuse: impl FnOnce(moot_kernel::world::sessions::HostError) -> Called,
) -> Option<Called> {
    let (door, agent, worlds) = (&door, &agent, &door.game_worlds);
    // A new session counts for its caller from its admission (see `Making`).
    let mut making = None;
    if writes {
        let who = agent.clone();
        let template = creates.then(|| {
            args.get("template")
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        });
        let admitted = door
            .world
            .call(agent.clone(), Face::Rest, move |w, cx| {
                let begins = template
                    .as_ref()
                    .map(|t| moot_kernel::world::sessions::Begins {
                        template: t.as_deref(),
                    });
                w.admit_handed(cx, &who, begins)
            })
            .await;
        match admitted {
            Ok(Ok(handing)) => {
                making = Some(Making {
                    world: door.world.clone(),
                    who: agent.clone(),
                    handing,
                });
            }
            // Over its running sessions, counting those on their way: the town's answer (it
            // would take the session itself if asked, not counting those).
            Ok(Err(e)) if e.code == moot_kernel::world::sessions::ErrorCode::Conflict => {
                return Some(refuse(e));
            }
            // Too fast: the town's verb refuses it as it would anywhere, with when to try again.
            _ => return None,
        }
    }
    let (to, cards, session, args) = match holder {
        Some(to) => (to, Vec::new(), None, args),
        None => {
            // None alive any more: the town makes it itself, which counts it afresh.
            let Some(to) = worlds.choose(Instant::now()) else {
                given_back(making).await;
                return None;
            };
            let mut args = args;
            let handing = making.as_ref().and_then(|m| m.handing);
            let (cards, id) = match placing(door, &to, &mut args, (agent, handing)).await {
                Ok(placed) => placed,
                Err(refused) => {
                    given_back(making).await;
                    return Some(Err(refused));
                }
            };
            (to, cards, Some(id), args)
        }
    };
    let Some(caller) = card(door, agent) else {
        // Only the directory's word that the caller is gone: nothing was handed over.
        if let Some(id) = session {
            unplaced(door, id).await;
        }
        given_back(making).await;
        return Some(Err(CallRefused::Unavailable(Unavailable::Internal)));
    };
    let call = GameCall {
        id: 0,
        caller,
        cards,
        ask: ask(args),
        session: session.map(SessionId::number),
    };
    Some(forwarded(door, &to, call, session, making).await)
}

/// Hands `call` to game world `to` and settles what it leaves: a session it did not make
/// (refused, or never handed over) is not placed; one it made (or may have) the town holds
/// before the caller hears of it; the session counted for its maker meanwhile (`making`) is
/// given back last.
async fn forwarded(
    door: &Door,
    to: &str,
    call: GameCall,
    session: Option<SessionId>,
    making: Option<Making>,
) -> Called {
    let answered = door.game_worlds.forward(to, call).await;
    // A session its game world did not make (refused, or never handed over) was not placed;
    // a tool refuses with a result that says it is an error.
    let refused = match &answered {
        Err(CallRefused::Verb(_) | CallRefused::Away | CallRefused::TooLarge(_)) => true,
        Ok(raw) if session.is_some() => serde_json::from_str::<serde_json::Value>(raw.get())
            .is_ok_and(|v| v.get("isError") == Some(&serde_json::Value::Bool(true))),
        _ => false,
    };
    if let Some(id) = session
        && refused
    {
        unplaced(door, id).await;
    }
    // One it made (or may have: no answer came) is the town's to know before its maker hears
    // of it: the limits of the next call (the one match a player plays at a time among them)
    // count it from the copy, and the game world's own word of it may come later than its
    // answer.
    if let Some(id) = session
        && (answered.is_ok() || matches!(answered, Err(CallRefused::Unknown)))
        && !refused
    {
        catch_up(door, to, id, Known::Made).await;
    }
    given_back(making).await;
    answered
}

/// Gives back what `making` counted for its caller, if anything, before what follows.
async fn given_back(making: Option<Making>) {
    if let Some(making) = making {
        making.done().await;
    }
}

/// Session `id`, placed on a game world that did not make it, is no longer placed: in the
/// world, in the store and as held.
async fn unplaced(door: &Door, id: SessionId) {
    let _ = door
        .world
        .call(
            moot_kernel::world::SERVER_ID.into(),
            Face::Rest,
            move |w, _| w.unplace(id),
        )
        .await;
    forget_placed(door, id).await;
}

/// Places a new session on game world `to`: numbers it, writes the participants `args` names
/// as the ids they are (a name is the town's to read), stores where it goes (before anyone
/// hears of it), and gives the cards of those it names with the id.
async fn placing(
    door: &Door,
    to: &str,
    args: &mut serde_json::Map<String, serde_json::Value>,
    (who, handing): (&AgentId, Option<moot_kernel::world::sessions::Handing>),
) -> Result<(Vec<Card>, SessionId), CallRefused> {
    let who = who.clone();
    let id = door
        .world
        .call(
            moot_kernel::world::SERVER_ID.into(),
            Face::Rest,
            move |w, _| {
                let id = w.reserve_session_id();
                w.place(id);
                if let Some(handing) = handing {
                    w.place_handed(&who, handing, id);
                }
                id
            },
        )
        .await
        .map_err(CallRefused::Unavailable)?;
    let mut cards = Vec::new();
    if let Some(serde_json::Value::Object(named)) = args.get_mut("participants") {
        for who in named.values_mut() {
            let Some(name) = who.as_str() else { continue };
            let found = match door.directory.name_of(name) {
                Some(_) => Some(name.to_owned()),
                None => door.directory.id_of(name),
            };
            if let Some(found) = found {
                cards.extend(card(door, &found));
                *who = serde_json::Value::String(found);
            }
        }
    }
    if keep_placed(door, id, to).await.is_err() {
        unplaced(door, id).await;
        return Err(CallRefused::Unavailable(Unavailable::Storage));
    }
    Ok((cards, id))
}

/// Stores that session `id` goes to game world `to` (before it goes, and anyone hears of it),
/// and holds it so.
pub(super) async fn keep_placed(
    door: &Door,
    id: SessionId,
    to: &str,
) -> Result<(), moot_kernel::store::StoreError> {
    let row = StateRow {
        module: PLACED.to_owned(),
        key: id.to_string(),
        value: to.to_owned(),
    };
    door.store.call(keys::put_state(row)).await?;
    lock(&door.game_worlds.placed).insert(id.number(), to.to_owned());
    Ok(())
}

/// Forgets that session `id` was placed on a game world (it refused to make it), as stored
/// and as held.
pub(crate) async fn forget_placed(door: &Door, id: SessionId) {
    door.game_worlds.unplace(id);
    let forgot = door
        .store
        .call(keys::drop_state(PLACED, id.to_string()))
        .await;
    if let Err(e) = forgot {
        tracing::warn!(error = %e, session = id.number(), "cannot forget a session not placed");
    }
}

/// A game world's side of the town's calls: answers each one heard on `calls` (subscribed to
/// [`wire::game_calls`] before its first beat, so that none the town hands it is missed), and
/// drops each one the town takes back on `cancels` ([`wire::game_cancels`]), until `stop`.
pub async fn serve_calls(
    client: async_nats::Client,
    mut calls: async_nats::Subscriber,
    mut cancels: async_nats::Subscriber,
    door: std::sync::Arc<Door>,
    tools: Tools,
    stop: CancellationToken,
) {
    // Calls that make a session go one at a time: each sets the id its session is made
    // under, and another's must not come between.
    let making = Arc::new(tokio::sync::Mutex::new(()));
    // The calls being answered, by the town's number, to take back.
    let running: Arc<Mutex<std::collections::HashMap<u64, tokio::task::AbortHandle>>> =
        Arc::default();
    loop {
        let msg = tokio::select! {
            _ = stop.cancelled() => return,
            Some(taken) = cancels.next() => {
                let id = std::str::from_utf8(&taken.payload)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok());
                if let Some(task) = id.and_then(|id| lock(&running).remove(&id)) {
                    task.abort();
                }
                continue;
            }
            msg = calls.next() => match msg {
                Some(msg) => msg,
                None => return,
            },
        };
        let Ok(call) = serde_json::from_slice::<GameCall>(&msg.payload) else {
            tracing::warn!("the town handed this game world a call it cannot read");
            continue;
        };
        let (client, door, tools) = (client.clone(), door.clone(), tools.clone());
        let (making, done, id) = (making.clone(), running.clone(), call.id);
        // Held while the task is spawned and kept, so that it cannot forget itself first.
        let mut kept = lock(&running);
        let task = tokio::spawn(async move {
            let called = {
                let _one_at_a_time = match call.session {
                    Some(_) => Some(making.lock().await),
                    None => None,
                };
                // Boxed: a task's future is moved whole when spawned and when it ends (see
                // `broker::serve`).
                Box::pin(take(&door, &tools, call)).await
            };
            lock(&done).remove(&id);
            let Some(reply) = msg.reply else { return };
            let Ok(mut body) = serde_json::to_vec(&called) else {
                return;
            };
            // An answer larger than the broker carries is answered as such, not lost.
            let most = client.server_info().max_payload;
            if most > 0 && body.len() > most {
                let refused: Called = Err(CallRefused::TooLarge(most));
                let Ok(said) = serde_json::to_vec(&refused) else {
                    return;
                };
                body = said;
            }
            let _ = client.publish(reply, body.into()).await;
        });
        kept.insert(id, task.abort_handle());
    }
}

/// Takes a call the town handed this game world: the identities it names kept first (in the
/// store, then the directory; a call that only reads keeps none), then the verb or the tool
/// run as its caller.
async fn take(door: &Door, tools: &Tools, call: GameCall) -> Called {
    let reads = match &call.ask {
        GameAsk::Verb { verb, .. } | GameAsk::Typed { verb, .. } => {
            crate::games::find(verb).is_some_and(|e| e.read_only)
        }
        GameAsk::Web { post, .. } => !post,
        GameAsk::Tool(tool) => crate::games::find_tool(&tool.name, crate::games::toolsets())
            .is_some_and(|e| e.read_only),
        GameAsk::Begin(_) => false,
    };
    let new: Vec<IdentityRow> = std::iter::once(&call.caller)
        .chain(&call.cards)
        .filter(|c| !reads && door.directory.name_of(&c.id).is_none())
        .map(|c| IdentityRow {
            agent_id: c.id.clone(),
            name: c.name.clone(),
            token_hash: None,
            kind: moot_kernel::store::Kind::from_stored(&c.kind),
            owner: c.owner.clone(),
            maker: None,
        })
        .collect();
    if !new.is_empty() {
        door.store
            .keep_identities(new.clone())
            .await
            .map_err(|_| CallRefused::Unavailable(Unavailable::Storage))?;
        for r in new {
            door.directory.insert(&r.agent_id, &r.name, None, r.kind);
            door.directory.set_owner(&r.agent_id, r.owner);
        }
    }
    let (agent, session) = (
        AgentId::from(call.caller.id),
        call.session.map(SessionId::from),
    );
    match call.ask {
        GameAsk::Verb { face, verb, args } => {
            let entry = crate::games::find(&verb)
                .filter(|e| e.name == verb)
                .ok_or(CallRefused::NoSuchVerb(verb))?;
            door.call_as(entry, agent, face, args, session).await
        }
        GameAsk::Typed { verb, args } => {
            let entry = crate::games::find(&verb)
                .filter(|e| e.name == verb)
                .ok_or(CallRefused::NoSuchVerb(verb))?;
            bring_in(door, &agent).await?;
            // Its refusal is its answer, as it would be where it was typed.
            let lines = door
                .world
                .call(agent, Face::Telnet, move |w, cx| {
                    cx.text_only = true;
                    // Where the game holds the typist, its own verb of that name, as where it
                    // was typed (Werewolf's `say` in a match is the match's, not the room's).
                    let entry = crate::games::here(w, &cx.actor, entry);
                    match (entry.run_read)(w, cx, (entry.read_args)(args)) {
                        Ok(reply) => reply.text,
                        Err(e) => vec![moot_kernel::text::sentence(e.message)],
                    }
                })
                .await
                .map_err(CallRefused::Unavailable)?;
            super::calls::written(&lines)
        }
        GameAsk::Web {
            path,
            post,
            id,
            args,
        } => {
            let action =
                super::visits::action_at(&path, post).ok_or(CallRefused::NoSuchVerb(path))?;
            bring_in(door, &agent).await?;
            let done = door
                .world
                .call(agent, Face::Rest, move |w, cx| {
                    (action.run)(w, cx, Some(SessionId::from(id)), args)
                })
                .await
                .map_err(CallRefused::Unavailable)?;
            super::calls::written(&done.map_err(super::calls::Refusal::from))
        }
        GameAsk::Begin(begin) => {
            let made = door
                .world
                .call(agent, Face::Rest, move |w, cx| w.begin_placed(cx, begin))
                .await
                .map_err(CallRefused::Unavailable)?;
            made.map_err(|e| CallRefused::Verb(moot_kernel::verbs::VerbError::from(e).into()))
                .and_then(|created| super::calls::written(&created))
        }
        GameAsk::Tool(tool) => {
            if let Some(id) = session {
                door.world
                    .call(agent.clone(), Face::Mcp, move |w, _| w.next_session_is(id))
                    .await
                    .map_err(CallRefused::Unavailable)?;
            }
            tools(agent, McpAsk::Tool(tool))
                .await
                .map_err(CallRefused::Tool)
        }
    }
}

/// Brings `agent` into this game world if it is not here, as an agent's first tool call
/// brings it in: a verb or a button handed over from the town may ask where they stand.
async fn bring_in(door: &Door, agent: &AgentId) -> Result<(), CallRefused> {
    let here = door
        .world
        .call(agent.clone(), Face::Rest, |w, cx| w.is_present(&cx.actor))
        .await
        .map_err(CallRefused::Unavailable)?;
    if here {
        return Ok(());
    }
    let row = door
        .store
        .agent_by_id(agent)
        .await
        .ok()
        .flatten()
        .ok_or(CallRefused::Unavailable(Unavailable::Storage))?;
    door.world
        .call(agent.clone(), Face::Rest, move |w, cx| {
            if !w.is_present(&cx.actor) {
                w.arrive_agent(cx, row);
            }
        })
        .await
        .map_err(CallRefused::Unavailable)
}

/// A host's web ask, in the world process: answered here ([`Door::web`]), but for a button on
/// a session placed on a game world, which is pressed there.
pub async fn web(door: &Door, ask: super::visits::WebAsk) -> Called {
    let super::visits::WebAsk::Action(call) = ask else {
        return door.web(ask).await;
    };
    let (path, post) = (call.path.clone(), call.post.is_some());
    match door.action(call).await? {
        super::visits::Pressed::Here(done) => super::calls::written(&done),
        super::visits::Pressed::Elsewhere {
            agent,
            id,
            args,
            status,
        } => {
            let done = pressed_there(door, &agent, id, path, post, args).await?;
            super::calls::written(
                &done.map_err(|refusal| super::visits::ActionRefused::Verb { refusal, status }),
            )
        }
    }
}

/// A web page's button pressed on a session placed on a game world: pressed there by
/// `agent`, and its result or refusal from there.
async fn pressed_there(
    door: &Door,
    agent: &AgentId,
    id: SessionId,
    path: String,
    post: bool,
    args: serde_json::Value,
) -> Result<Result<serde_json::Value, super::calls::Refusal>, CallRefused> {
    let worlds = &door.game_worlds;
    worlds.until_begun(id).await;
    let (Some(to), Some(caller)) = (worlds.placed_on(id), card(door, agent)) else {
        return Err(CallRefused::Away);
    };
    let call = GameCall {
        id: 0,
        caller,
        cards: Vec::new(),
        ask: GameAsk::Web {
            path,
            post,
            id: id.number(),
            args,
        },
        session: None,
    };
    let raw = worlds.forward(&to, call).await?;
    serde_json::from_str(raw.get()).map_err(|_| CallRefused::Unavailable(Unavailable::Internal))
}

/// The town's side: answers the game worlds' beats heard on `beats` (subscribed to
/// [`wire::game_beats`]) until the subscription ends with the town, and brings its copies of
/// a game world's sessions up to date each time it is heard alive again.
pub async fn hear(
    client: async_nats::Client,
    mut beats: async_nats::Subscriber,
    door: Arc<Door>,
    stop: CancellationToken,
) {
    let worlds = door.game_worlds.clone();
    loop {
        let msg = tokio::select! {
            _ = stop.cancelled() => return,
            msg = beats.next() => match msg {
                Some(msg) => msg,
                None => return,
            },
        };
        let Some(reply) = msg.reply.clone() else {
            continue;
        };
        let heard: GameHeard = match serde_json::from_slice::<GameBeat>(&msg.payload) {
            Ok(beat) => match worlds.heard(&beat, Instant::now()) {
                Ok(joined) => {
                    // A game world heard again, or one whose telling the town missed some of.
                    let missed = worlds.short_of_told(&beat);
                    if missed && !joined {
                        tracing::warn!(name = %beat.name, "the town missed some of what a game world told; asking again");
                        let (door, name, stop) = (door.clone(), beat.name.clone(), stop.clone());
                        tokio::spawn(async move {
                            tokio::select! {
                                _ = stop.cancelled() => {}
                                _ = catch_up_all(door, name) => {}
                            }
                        });
                    }
                    if joined {
                        tracing::info!(name = %beat.name, running = beat.running, "a game world is alive");
                        // What the town seats goes to it from now on, not from the next look
                        // (`seated::begin_seated`).
                        let placing = door.world.call(
                            moot_kernel::world::SERVER_ID.into(),
                            Face::Rest,
                            |w, _| w.place_while(true),
                        );
                        let _ = placing.await;
                        let (door, name, stop) = (door.clone(), beat.name.clone(), stop.clone());
                        tokio::spawn(async move {
                            tokio::select! {
                                _ = stop.cancelled() => {}
                                _ = catch_up_all(door, name) => {}
                            }
                        });
                    }
                    Ok(())
                }
                Err(why) => {
                    tracing::warn!(name = %beat.name, %why, "a game world was refused");
                    Err(why)
                }
            },
            Err(_) => Err("the town cannot read this beat: run the same moot version".into()),
        };
        if let Ok(body) = serde_json::to_vec(&heard) {
            let _ = client.publish(reply, body.into()).await;
        }
    }
}

/// A game world's side: beats as `name` until `stop`, saying how many sessions `world` runs.
/// It ends with why it must stop if the town refuses it for [`REFUSED_FOR`] (another process
/// has its name; another protocol); a town that does not answer is waited for.
pub async fn beat(
    client: async_nats::Client,
    name: String,
    run: u64,
    world: WorldHandle,
    told: Arc<std::sync::atomic::AtomicU64>,
    stop: CancellationToken,
) -> Result<(), String> {
    let mut tick = tokio::time::interval(wire::BEAT);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut refused_since: Option<Instant> = None;
    let mut heard = false;
    loop {
        tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            _ = tick.tick() => {}
        }
        let running = world
            .call(moot_kernel::world::SERVER_ID.into(), Face::Rest, |w, _| {
                w.session_ids()
                    .into_iter()
                    .filter(|&id| w.session(id).is_some_and(|s| !s.game.is_terminal()))
                    .count()
            })
            .await
            .unwrap_or_default();
        let beat = GameBeat {
            protocol: wire::PROTOCOL,
            version: env!("CARGO_PKG_VERSION").to_owned(),
            name: name.clone(),
            run,
            running: u32::try_from(running).unwrap_or(u32::MAX),
            told: told.load(std::sync::atomic::Ordering::Relaxed),
        };
        let Ok(body) = serde_json::to_vec(&beat) else {
            return Err("cannot write a beat".into());
        };
        let asked = client.request(wire::game_beats(), body.into());
        let answer = tokio::time::timeout(wire::AWAY_AFTER, asked)
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|m| serde_json::from_slice::<GameHeard>(&m.payload).ok());
        match answer {
            Some(Ok(())) => {
                if !heard {
                    tracing::info!(%name, "the town hears this game world");
                }
                heard = true;
                refused_since = None;
            }
            Some(Err(why)) => {
                let since = *refused_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= REFUSED_FOR {
                    return Err(why);
                }
                tracing::warn!(%name, %why, "the town refuses this game world for now");
                heard = false;
            }
            None => {
                if heard {
                    tracing::warn!(%name, "the town does not answer; beating on until it does");
                }
                heard = false;
            }
        }
    }
}

/// The town's side of a verb typed for a session placed on a game world: each is run there as
/// its typist, and they are told its answer (or why it was not done), until `stop`.
pub async fn hand_over(door: Arc<Door>, stop: CancellationToken) {
    let Some(mut handed) = lock(&door.game_worlds.handed).take() else {
        return;
    };
    // Each typist's verbs go one after another, in the order typed, as the town takes their
    // lines; so many typists' at once, the rest waiting in the channel (and past it refused,
    // saying so).
    let in_flight = Arc::new(tokio::sync::Semaphore::new(HANDED_AT_ONCE));
    let lanes: Lanes = Arc::default();
    loop {
        let h = tokio::select! {
            _ = stop.cancelled() => return,
            h = handed.recv() => match h {
                Some(h) => h,
                None => return,
            },
        };
        let agent = h.agent.clone();
        let fresh = {
            let mut open = lock(&lanes);
            match open.get(&agent) {
                Some(lane) => {
                    if let Err(full) = lane.try_send(h) {
                        let h = full.into_inner();
                        let line = format!(
                            "#{} is played on one of the town's game worlds, which has not yet \
                             answered what you typed before: nothing was done; try again in a \
                             moment.",
                            h.session
                        );
                        let world = door.world.clone();
                        tokio::spawn(async move {
                            tell_typist(&world, h.agent, h.session, vec![line]).await
                        });
                    }
                    None
                }
                None => {
                    let (lane, rx) = tokio::sync::mpsc::channel(TYPED_AHEAD);
                    let _ = lane.try_send(h);
                    open.insert(agent.clone(), lane);
                    Some(rx)
                }
            }
        };
        let Some(rx) = fresh else { continue };
        let permit = tokio::select! {
            _ = stop.cancelled() => return,
            permit = in_flight.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => return,
            },
        };
        let (door, stop, lanes) = (door.clone(), stop.clone(), lanes.clone());
        tokio::spawn(async move {
            let _permit = permit;
            tokio::select! {
                _ = stop.cancelled() => {}
                _ = typist_lane(&door, &lanes, agent, rx) => {}
            }
        });
    }
}

/// The verbs each typist has on their way to game worlds, by typist.
type Lanes = Arc<
    Mutex<
        std::collections::HashMap<AgentId, tokio::sync::mpsc::Sender<moot_kernel::world::Handed>>,
    >,
>;

/// Hands `agent`'s verbs over one after another, telling them each answer, until none waits.
async fn typist_lane(
    door: &Door,
    lanes: &Lanes,
    agent: AgentId,
    mut rx: tokio::sync::mpsc::Receiver<moot_kernel::world::Handed>,
) {
    loop {
        let h = match rx.try_recv() {
            Ok(h) => h,
            Err(_) => {
                // Closed under the lock, so that nothing is sent to a lane nobody reads.
                let mut open = lock(lanes);
                match rx.try_recv() {
                    Ok(h) => h,
                    Err(_) => {
                        open.remove(&agent);
                        return;
                    }
                }
            }
        };
        let session = h.session;
        let lines = typed_there(door, h).await;
        #[cfg(feature = "testing")]
        super::late("MOOT_TESTING_ANSWER_LATE_MS").await;
        tell_typist(&door.world, agent.clone(), session, lines).await;
    }
}

/// For the tests of a town that asks again: whether a game world leaves this question about
/// a session unanswered, as it does one asked while the file `MOOT_TESTING_SINCE_UNANSWERED_IF`
/// names is there (it takes the file away).
#[cfg(feature = "testing")]
fn unanswered_on_purpose() -> bool {
    std::env::var_os("MOOT_TESTING_SINCE_UNANSWERED_IF")
        .is_some_and(|file| std::fs::remove_file(file).is_ok())
}

/// Tells `agent` what became of a verb they typed for placed session `session`, then what
/// the session told them while it was on its way ([`moot_kernel::world::World::answered`]).
async fn tell_typist(world: &WorldHandle, agent: AgentId, session: SessionId, lines: Vec<String>) {
    let to = agent.clone();
    let told = world
        .call(agent, Face::Telnet, move |w, cx| {
            w.answered(cx, &to, session, lines)
        })
        .await;
    if let Err(e) = told {
        tracing::warn!(error = %e, "cannot tell a typist what a game world answered");
    }
}

/// The answer of the game world that plays `h.session` to the verb typed for it: its lines,
/// or why it was not done there.
async fn typed_there(door: &Door, h: moot_kernel::world::Handed) -> Vec<String> {
    let worlds = &door.game_worlds;
    worlds.until_begun(h.session).await;
    let (Some(to), Some(caller)) = (worlds.placed_on(h.session), card(door, &h.agent)) else {
        return vec![moot_kernel::world::Unavailable::Internal.to_string()];
    };
    let call = GameCall {
        id: 0,
        caller,
        cards: Vec::new(),
        ask: GameAsk::Typed {
            verb: h.verb.to_owned(),
            args: h.args,
        },
        session: None,
    };
    let game = h.session;
    match worlds.forward(&to, call).await {
        Ok(raw) => serde_json::from_str(raw.get()).unwrap_or_default(),
        Err(CallRefused::Verb(r)) => vec![moot_kernel::text::sentence(r.message)],
        Err(CallRefused::Unavailable(u)) => vec![u.to_string()],
        Err(CallRefused::Away) => vec![format!(
            "The game world that plays #{game} is away: nothing was done. Try again in a moment."
        )],
        Err(CallRefused::Unknown) => vec![format!(
            "The game world that plays #{game} did not answer in time: look at the game to see \
             whether that was done."
        )],
        Err(refused) => {
            tracing::warn!(
                ?refused,
                "a game world refused a typed verb as none is refused"
            );
            vec![moot_kernel::world::Unavailable::Internal.to_string()]
        }
    }
}

/// The most [`Told`]s the town takes into its copies in one turn of its world.
const MOST_AT_ONCE: usize = 256;

/// How long the town waits for a game world to say what it missed of a session.
const SINCE_WITHIN: Duration = Duration::from_secs(5);

/// A game world's side: tells the town, on [`wire::game_told`], of every action of its
/// sessions once it is stored (and of each session it begins), until `stop`. Each session is
/// told from where its telling stopped, in parts of at most
/// [`moot_kernel::world::sessions::MOST_TOLD`] actions.
pub async fn tell(
    client: async_nats::Client,
    name: String,
    run: u64,
    world: WorldHandle,
    sent: Arc<std::sync::atomic::AtomicU64>,
    stop: CancellationToken,
) {
    let server = || AgentId::from(moot_kernel::world::SERVER_ID);
    let Ok(mut wake) = world
        .call(server(), Face::Rest, |w, _| w.tell_the_town())
        .await
    else {
        return;
    };
    // How far each session has been told in this run (an ended one too, so that a word said
    // at its table, which changes nothing of its log, is not told again from its beginning).
    let told: Arc<Mutex<std::collections::HashMap<SessionId, u64>>> = Arc::default();
    let mut sweep = false;
    let subject = wire::game_told(&name);
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            changed = wake.changed() => if changed.is_err() { return },
        }
        let (all, reading) = (std::mem::take(&mut sweep), told.clone());
        let asked = world
            .call(server(), Face::Rest, move |w, _| {
                let told = lock(&reading);
                let mut out = Vec::new();
                for id in w.changed_since_told(all) {
                    let Some(s) = w.session(id) else { continue };
                    let tick = s.tick;
                    let mut from = match told.get(&id) {
                        Some(&from) if from >= tick => continue,
                        Some(&from) => from,
                        None => 0,
                    };
                    while let Some(t) = w.told(id, from) {
                        // One that ended before this run began is the town's already, or
                        // caught up when it asks.
                        if from == 0 && !t.fresh && s.game.is_terminal() {
                            break;
                        }
                        from = t.from + t.log.len() as u64;
                        let whole = from >= t.tick;
                        out.push(t);
                        if whole {
                            break;
                        }
                    }
                }
                out
            })
            .await;
        // What was read belonged to a command undone: every session is looked at again.
        let Ok(out) = asked else {
            sweep = true;
            continue;
        };
        for t in out {
            lock(&told).insert(SessionId::from(t.id), t.from + t.log.len() as u64);
            let (id, seq) = (t.id, sent.load(std::sync::atomic::Ordering::Relaxed) + 1);
            let Ok(body) = serde_json::to_vec(&wire::Telling { run, seq, told: t }) else {
                continue;
            };
            // Counted as told whether or not the broker takes it: the town, hearing fewer,
            // asks again.
            sent.store(seq, std::sync::atomic::Ordering::Relaxed);
            if let Err(e) = client.publish(subject.clone(), body.into()).await {
                tracing::warn!(error = %e, session = id, "cannot tell the town of a session");
            }
        }
    }
}

/// A game world's side: answers the town's questions on `since` ([`wire::game_since`]) with
/// what it asks of a session, until `stop`.
pub async fn answer_since(
    client: async_nats::Client,
    mut since: async_nats::Subscriber,
    world: WorldHandle,
    stop: CancellationToken,
) {
    loop {
        let msg = tokio::select! {
            _ = stop.cancelled() => return,
            msg = since.next() => match msg {
                Some(msg) => msg,
                None => return,
            },
        };
        let (Some(reply), Ok(asked)) = (
            msg.reply,
            serde_json::from_slice::<wire::Since>(&msg.payload),
        ) else {
            continue;
        };
        let told = world
            .call(
                moot_kernel::world::SERVER_ID.into(),
                Face::Rest,
                move |w, _| w.told(SessionId::from(asked.id), asked.from),
            )
            .await;
        let Ok(told) = told else { continue };
        #[cfg(feature = "testing")]
        if unanswered_on_purpose() {
            continue;
        }
        if let Ok(body) = serde_json::to_vec(&told) {
            let _ = client.publish(reply, body.into()).await;
        }
    }
}

/// The town's side: takes what the game worlds tell on `told` ([`wire::games_told`]) into
/// its copies of the sessions placed on them, many in one turn of the world, and asks a game
/// world again for a session whose copy here missed some of it.
pub async fn follow(mut told: async_nats::Subscriber, door: Arc<Door>, stop: CancellationToken) {
    use futures_util::FutureExt;
    loop {
        let first = tokio::select! {
            _ = stop.cancelled() => return,
            first = told.next() => match first {
                Some(first) => first,
                None => return,
            },
        };
        let mut batch = vec![first];
        while batch.len() < MOST_AT_ONCE {
            match told.next().now_or_never() {
                Some(Some(msg)) => batch.push(msg),
                _ => break,
            }
        }
        // Only a session placed on the game world that tells of it is taken.
        let heard: Vec<(String, Told, bool, u64)> = batch
            .into_iter()
            .filter_map(|msg| {
                let name = msg.subject.split('.').nth(3)?.to_owned();
                let t = serde_json::from_slice::<wire::Telling>(&msg.payload).ok()?;
                let placed = door.game_worlds.placed_on(SessionId::from(t.told.id));
                if placed.as_deref() != Some(name.as_str()) {
                    return None;
                }
                door.game_worlds.told_heard(&name, t.run, t.seq);
                let new_here = door.game_worlds.new_here(&t.told);
                let news = door.game_worlds.news_from(&t.told);
                Some((name, t.told, new_here, news))
            })
            .collect();
        if heard.is_empty() {
            continue;
        }
        let rebuilding = door.game_worlds.rebuilding.clone();
        let behind = door
            .world
            .call(
                moot_kernel::world::SERVER_ID.into(),
                Face::Rest,
                move |w, cx| {
                    let mut behind = Vec::new();
                    for (name, t, new_here, news) in heard {
                        let id = SessionId::from(t.id);
                        // What a copy being rebuilt takes in was told before the town started
                        // again (read in the world's order, with the catch-ups').
                        let held = w.session(id).is_some();
                        // One not held is begun here only if it is news; one the town may
                        // have told (and counted) before it started is caught up first.
                        if !(held || new_here || w.is_beginning(id)) {
                            behind.push((name, id));
                            continue;
                        }
                        // Of a copy being rebuilt, only what was stored since is news.
                        let silent = held && lock(&rebuilding).contains(&t.id);
                        let announce = if silent {
                            Announce::rebuilt(news)
                        } else {
                            Announce::ALL
                        };
                        // What is told as news has not been counted here yet.
                        match w.follow(cx, t, announce, &Recorded::default()) {
                            Ok(Followed::Kept) => {}
                            Ok(Followed::Behind) => behind.push((name, id)),
                            Err(why) => {
                                tracing::warn!(%name, %why, "a game world told of a session that does not replay here")
                            }
                        }
                    }
                    behind
                },
            )
            .await
            .unwrap_or_default();
        for (name, id) in behind {
            let (door, stop) = (door.clone(), stop.clone());
            tokio::spawn(async move {
                tokio::select! {
                    _ = stop.cancelled() => {}
                    _ = catch_up(&door, &name, id, Known::Unread) => {}
                }
            });
        }
    }
}

/// What the town knows of a session a catch-up asks for ([`catch_up`]).
pub(super) enum Known {
    /// Nothing yet: what it counted of its results is read from the store.
    Unread,
    /// What it counted, read with the other sessions' of the same game world.
    Counted(Recorded),
    /// The game world has just made it at the town's asking: nothing is counted yet.
    Made,
}

/// Asks game world `name` for what the town's copy of session `id` lacks, until it has it
/// all. A copy rebuilt from nothing (the town has started again) is taken in silence until it
/// is whole: what it lacks was told before, and is shown by the game itself (its board, its
/// page), not told twice; but what its game world stored since the town started is news
/// ([`GameWorlds::news_from`]), told as it is taken in. What a whole copy lacked is told as it is taken, the last few of it:
/// the town told only what its copy held, and a catch-up may overtake the game world's own
/// word of a move (two catch-ups after a restart, one late), which then finds it held and
/// tells nothing. A copy of a session the town cannot have told before it started
/// ([`GameWorlds::new_here`]) is news: told as it is taken in, the last few of it. A result is
/// counted unless the town has stored it.
pub(super) async fn catch_up(door: &Door, name: &str, id: SessionId, known: Known) {
    /// The most of what a copy the town holds lacked that is told as it is taken in.
    const MISSED_TOLD: u64 = 16;
    let worlds = &door.game_worlds;
    let Some(client) = worlds.link.get() else {
        return;
    };
    // One at a time: one asked while another is under way waits for it (which asks the
    // game world for a part at a time, each within `SINCE_WITHIN`), then asks for what that
    // one did not take (a move told while it was under way; its maker is answered once the
    // town holds a session just made).
    loop {
        let caught = worlds.caught.notified();
        tokio::pin!(caught);
        caught.as_mut().enable();
        if lock(&worlds.catching).insert(id.number()) {
            break;
        }
        caught.await;
    }
    struct Caught<'a>(&'a GameWorlds, u64);
    impl Drop for Caught<'_> {
        fn drop(&mut self) {
            lock(&self.0.catching).remove(&self.1);
            self.0.caught.notify_waiters();
        }
    }
    let _caught = Caught(worlds, id.number());
    let held = door
        .world
        .call(
            moot_kernel::world::SERVER_ID.into(),
            Face::Rest,
            move |w, _| w.session(id).map(|s| s.tick),
        )
        .await
        .unwrap_or_default();
    let mut from = held.unwrap_or(0);
    // The results the town counted before it started again are not counted twice.
    let session = id.to_string();
    let made = matches!(known, Known::Made);
    let recorded = match known {
        Known::Counted(known) => Arc::new(known),
        Known::Made => Arc::new(Recorded::default()),
        Known::Unread => match door
            .store
            .read(move |c| moot_kernel::store::standings::recorded(c, &session))
            .await
        {
            Ok((ticks, moves)) => Arc::new(Recorded { ticks, moves }),
            Err(e) => {
                tracing::warn!(error = %e, session = id.number(), "cannot read what the town counted of a placed session");
                return;
            }
        },
    };
    // The questions in a row its game world did not answer.
    let mut unanswered = 0u32;
    loop {
        let Some(run) = worlds.alive_run(name, Instant::now()) else {
            return;
        };
        let Ok(body) = serde_json::to_vec(&wire::Since {
            id: id.number(),
            from,
        }) else {
            return;
        };
        let asked = client.request(wire::game_since(name, run), body.into());
        let told = match tokio::time::timeout(SINCE_WITHIN, asked).await {
            Ok(Ok(m)) => serde_json::from_slice::<Option<Told>>(&m.payload)
                .ok()
                .flatten(),
            // Not answered (its world busy, or its store failing): asked again while it is
            // alive, or nothing would ask for the copy of a session that does not move again.
            // One that goes away is asked for everything once it is back (`catch_up_all`).
            _ => {
                if unanswered == 0 {
                    tracing::warn!(%name, session = id.number(), "a game world did not say what the town's copy of a session lacks; asking again");
                }
                unanswered = unanswered.saturating_add(1);
                let backoff = Duration::from_millis(100)
                    .saturating_mul(1 << unanswered.min(6))
                    .min(SINCE_WITHIN);
                tokio::time::sleep(backoff).await;
                continue;
            }
        };
        let Some(told) = told else {
            return;
        };
        let next = told.from + told.log.len() as u64;
        let whole = next >= told.tick;
        let (recorded, rebuilding) = (recorded.clone(), worlds.rebuilding.clone());
        // Just made at the town's asking, or placed or begun since it started: never told.
        let new_here = made || worlds.new_here(&told);
        let news = worlds.news_from(&told);
        let taken = door
            .world
            .call(
                moot_kernel::world::SERVER_ID.into(),
                Face::Rest,
                move |w, cx| {
                    // Decided in the world's order, with the live path's: a copy not begun
                    // is rebuilt from nothing, in silence, until a catch-up finds it whole;
                    // of a whole copy's long gap only the last few are told.
                    let n = id.number();
                    let announce = {
                        let mut rebuilding = lock(&rebuilding);
                        match w.session(id).map(|s| s.tick) {
                            Some(held) if !rebuilding.contains(&n) => {
                                Announce::from(held.max(told.tick.saturating_sub(MISSED_TOLD)))
                            }
                            Some(_) => Announce::rebuilt(news),
                            None if new_here || w.is_beginning(id) => {
                                Announce::from(told.tick.saturating_sub(MISSED_TOLD))
                            }
                            None => {
                                rebuilding.insert(n);
                                Announce::rebuilt(news)
                            }
                        }
                    };
                    let taken = w.follow(cx, told, announce, &recorded);
                    if whole && matches!(taken, Ok(Followed::Kept)) {
                        lock(&rebuilding).remove(&n);
                    }
                    taken
                },
            )
            .await;
        match taken {
            Ok(Ok(Followed::Kept)) if !whole && next > from => from = next,
            Ok(Ok(_)) => return,
            Ok(Err(why)) => {
                tracing::warn!(%name, %why, "a session a game world holds does not replay here");
                return;
            }
            Err(_) => return,
        }
    }
}

/// Brings the town's copies of the sessions placed on game world `name` up to date (it has
/// just been heard: the town, or it, has started), each but those the town holds ended.
async fn catch_up_all(door: Arc<Door>, name: String) {
    #[cfg(feature = "testing")]
    super::late("MOOT_TESTING_CATCH_UP_LATE_MS").await;
    let mut ids: Vec<SessionId> = lock(&door.game_worlds.placed)
        .iter()
        .filter(|(_, on)| **on == name)
        .map(|(id, _)| SessionId::from(*id))
        .collect();
    ids.sort_unstable();
    let (asking, world) = (ids.clone(), door.world.clone());
    let ended: std::collections::HashSet<SessionId> = world
        .call(
            moot_kernel::world::SERVER_ID.into(),
            Face::Rest,
            move |w, _| {
                asking
                    .into_iter()
                    .filter(|&id| w.session(id).is_some_and(|s| s.game.is_terminal()))
                    .collect()
            },
        )
        .await
        .unwrap_or_default();
    // What the town counted of them all, read once.
    let mut counted = match door
        .store
        .read(moot_kernel::store::standings::recorded_all)
        .await
    {
        Ok(counted) => counted,
        Err(e) => {
            tracing::warn!(error = %e, %name, "cannot read what the town counted of its placed sessions");
            return;
        }
    };
    for id in ids.into_iter().filter(|id| !ended.contains(id)) {
        let (ticks, moves) = counted.remove(&id.to_string()).unwrap_or_default();
        catch_up(&door, &name, id, Known::Counted(Recorded { ticks, moves })).await;
    }
}
