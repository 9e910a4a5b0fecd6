//! The sessions the town seats itself (a Werewolf match from its notice board, a practice
//! match), handed to its game worlds: the world stores each as a begin waiting (see
//! `moot_kernel::world::sessions`' `begins`) and answers its verb at once; this makes it on a
//! game world, or in the town where none will.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::calls::CallRefused;
use super::door::Door;
use super::game_worlds::lock;
use super::games::{Known, card, catch_up, forget_placed, keep_placed};
use super::wire::{GameAsk, GameCall};
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{AgentId, Face, Unavailable};

/// How often the town hands over again what it seated that no game world has yet made.
const BEGIN_AGAIN: Duration = Duration::from_secs(1);

/// Whether a world call's refusal means the town is stopping (anything else passes: a write
/// that failed is tried again later).
fn stopping(e: &Unavailable) -> bool {
    matches!(e, Unavailable::Stopped)
}

/// The town's side of the sessions it begins itself (see `moot_kernel::world::sessions`'
/// `begins`): while a game world is alive (as the town last heard, looked at each
/// [`super::wire::BEAT`]) each goes to one, and this hands each one over once it is stored,
/// and again every [`BEGIN_AGAIN`] until it is made there (or here), until `stop`. Those
/// restored at start wait until the game worlds alive have been heard.
pub async fn begin_seated(door: Arc<Door>, stop: CancellationToken) {
    let server = || AgentId::from(moot_kernel::world::SERVER_ID);
    let Ok(mut ids) = door
        .world
        .call(server(), Face::Rest, |w, _| w.place_what_the_town_seats())
        .await
    else {
        return;
    };
    let _ = door.game_worlds.beginning.set(ids.clone());
    let started = Instant::now();
    let mut again = tokio::time::interval(BEGIN_AGAIN);
    again.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut look = tokio::time::interval(super::wire::BEAT);
    look.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let handing: Arc<Mutex<std::collections::HashSet<SessionId>>> = Arc::default();
    let mut placing = false;
    loop {
        tokio::select! {
            _ = stop.cancelled() => return,
            changed = ids.changed() => if changed.is_err() { return },
            _ = again.tick() => {}
            _ = look.tick() => {
                // With none alive, the town makes what it begins itself, at once.
                let alive = !door.game_worlds.alive(Instant::now()).is_empty();
                if alive != placing {
                    let set = door
                        .world
                        .call(server(), Face::Rest, move |w, _| w.place_while(alive))
                        .await;
                    match set {
                        Ok(()) => placing = alive,
                        Err(e) if stopping(&e) => return,
                        Err(_) => {}
                    }
                }
                continue;
            }
        }
        let waiting: Vec<SessionId> = ids.borrow_and_update().iter().copied().collect();
        if started.elapsed() < super::wire::AWAY_AFTER {
            continue;
        }
        for id in waiting {
            if !lock(&handing).insert(id) {
                continue;
            }
            let (door, handing, stop) = (door.clone(), handing.clone(), stop.clone());
            tokio::spawn(async move {
                tokio::select! {
                    _ = stop.cancelled() => {}
                    _ = begin_one(&door, id) => {}
                }
                lock(&handing).remove(&id);
            });
        }
    }
}

/// Hands begin `id` to the game world it was placed on (choosing one first if none was yet):
/// made there, it waits no more; refused there, or with no game world alive, it is begun
/// here; with no answer, it is handed over again later, to the same one.
async fn begin_one(door: &Door, id: SessionId) {
    let server = AgentId::from(moot_kernel::world::SERVER_ID);
    // Read through the world: after whatever set it aside is stored (or undone), and after
    // any hand-over of it before this one was settled, so that it is made once.
    let Ok(Some(begin)) = door
        .world
        .call(server, Face::Rest, move |w, _| w.begin_waiting(id))
        .await
    else {
        return;
    };
    let worlds = &door.game_worlds;
    let maker = AgentId::from(begin.maker.as_str());
    let here = |door: &Door| {
        let world = door.world.clone();
        let maker = maker.clone();
        async move {
            let done = world
                .call(maker, Face::Rest, move |w, cx| w.begin_here(cx, id))
                .await;
            if let Err(e) = done {
                tracing::warn!(error = %e, session = id.number(), "cannot begin a seated session here");
            }
        }
    };
    let placed = worlds.placed_on(id);
    let Some(caller) = card(door, &begin.maker) else {
        // Nobody to make it as (the directory forgets nobody): here, unless a game world
        // may have it already.
        if placed.is_none() {
            here(door).await;
        }
        return;
    };
    let to = match placed {
        Some(to) => to,
        None => {
            let Some(to) = worlds.choose(Instant::now()) else {
                return here(door).await;
            };
            // Where it goes is stored before it goes, as for any session placed.
            if keep_placed(door, id, &to).await.is_err() {
                return;
            }
            to
        }
    };
    let cards = begin
        .participants
        .values()
        .filter_map(|a| card(door, a))
        .collect();
    let call = GameCall {
        id: 0,
        caller,
        cards,
        ask: GameAsk::Begin(begin),
        session: Some(id.number()),
    };
    match worlds.forward(&to, call).await {
        Ok(_) => {
            // The town holds it before it stops counting it as a begin waiting, so that its
            // players are counted in it all along (one match at a time, among them).
            catch_up(door, &to, id, Known::Made).await;
            let done = door
                .world
                .call(maker, Face::Rest, move |w, cx| w.begun_elsewhere(cx, id))
                .await;
            if let Err(e) = done {
                tracing::warn!(error = %e, session = id.number(), "cannot note a seated session begun");
            }
        }
        Err(CallRefused::Verb(refusal)) => {
            tracing::warn!(to, session = id.number(), why = %refusal.message, "a game world refused a session the town seated; it begins here");
            forget_placed(door, id).await;
            here(door).await;
        }
        // Away, or no answer yet: handed over again, to the same game world.
        Err(_) => {}
    }
}
