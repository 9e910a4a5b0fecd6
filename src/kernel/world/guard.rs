//! The panic boundary around every job of the world task. A panic is a bug in moot, and a bug
//! must cost the one command that met it, never the town: the command's changes are undone by
//! the undos it left in its [`Cx`] (every change to the world leaves one as it is made; see
//! [`Cx::save`]), what it left for others is dropped, and its caller hears that nothing
//! changed. Only if putting the world back panics too is the world's state unknown; then the
//! panic goes on up through the world's lock, which it poisons, the world task ends, and the
//! process stops for its supervisor to restart it, replaying the database (see `server`).

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Once;
use std::sync::atomic::Ordering;

use super::{Cx, World};

/// Where the last panic on this thread happened, and its message if it was a fixed text, as
/// the hook saw it (the payload does not carry its location).
struct Seen {
    location: String,
    message: Option<&'static str>,
}

thread_local! {
    /// Set while a guarded job runs on this thread: its panics are reported by the boundary,
    /// not by the default hook.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    static SEEN: Cell<Option<Seen>> = const { Cell::new(None) };
}

/// Installs, once per process, a panic hook that leaves the boundary to report panics inside
/// it (with the verb and the actor, which the hook cannot know) and hands every other panic to
/// the hook that was there before.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let before = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) {
                SEEN.with(|s| {
                    s.set(Some(Seen {
                        location: info
                            .location()
                            .map_or_else(|| "unknown".to_owned(), ToString::to_string),
                        message: info.payload().downcast_ref::<&'static str>().copied(),
                    }))
                });
            } else {
                before(info);
            }
        }));
    });
}

/// A guarded job that panicked, and was undone.
#[derive(Debug)]
pub struct Panicked;

/// Runs `f` (one job of the world task: a command, a call from another face, a deadline) on
/// `world` as `cx.actor`. If it panics, its changes are undone, what it left in `cx` is
/// dropped, the panic is logged and counted, and `Err(Panicked)` says so. If undoing panics
/// as well, that panic goes on up: the world can no longer be trusted.
pub fn guarded<T>(
    world: &mut World,
    cx: &mut Cx,
    f: impl FnOnce(&mut World, &mut Cx) -> T,
) -> Result<T, Panicked> {
    install_hook();
    let was = GUARDED.with(|g| g.replace(true));
    let ran = catch_unwind(AssertUnwindSafe(|| f(world, cx)));
    GUARDED.with(|g| g.set(was));
    let payload = match ran {
        Ok(out) => return Ok(out),
        Err(payload) => payload,
    };
    let seen = SEEN.with(Cell::take);
    crate::metrics::get().panics.fetch_add(1, Ordering::Relaxed);
    // The message is logged only when it is a fixed text written in moot's source: a formatted
    // one may quote what a player sent (a password, a token).
    tracing::error!(
        verb = cx.verb.unwrap_or("-"),
        actor = %cx.actor,
        face = cx.face.name(),
        at = seen.as_ref().map_or("unknown", |s| s.location.as_str()),
        message = seen.as_ref().and_then(|s| s.message).unwrap_or("(not logged)"),
        "a command met a bug in moot; it was undone and refused, and the town goes on"
    );
    undo(world, cx, payload);
    Err(Panicked)
}

/// Puts back what a panicked job changed, newest first, and forgets what it left to send or
/// store.
fn undo(world: &mut World, cx: &mut Cx, payload: Box<dyn Any + Send>) {
    let undos = std::mem::take(&mut cx.undos);
    cx.notices.clear();
    cx.saves.clear();
    cx.changed.clear();
    cx.effects.clear();
    let put_back = catch_unwind(AssertUnwindSafe(|| {
        for undo in undos.into_iter().rev() {
            undo(world);
        }
    }));
    if put_back.is_err() {
        tracing::error!(
            verb = cx.verb.unwrap_or("-"),
            actor = %cx.actor,
            "putting the world back after a bug failed too; moot stops rather than serve a world \
             it cannot vouch for (a restart replays the database)"
        );
        resume_unwind(payload);
    }
}
