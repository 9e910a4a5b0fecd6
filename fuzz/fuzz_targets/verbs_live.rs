//! Verbs against a living town (`moot_testkit::drill`): every template's games running and
//! finished, Werewolf matches in several phases, players, strangers, spectators, a wizard and an
//! identity nobody knows. An input is a run of steps split at 0xFF: a typed line, a verb's
//! JSON arguments (shaped by its schema), a host call, time passing, or code a programmer gives
//! a gadget of theirs and runs (random code and random calls of the sandbox's API). After each step the
//! drill checks that nothing panicked, that every session replays from its log to the state it
//! is in, and that no Werewolf player was told what their seat may not know.
#![no_main]

use std::sync::{Mutex, OnceLock};

use libfuzzer_sys::fuzz_target;
use moot_testkit::drill::{Drill, Op, Who, json_args};

/// The town, and how many inputs it has taken: building it costs a few hundred steps, so it is
/// shared, and built anew every so often so that no input's ground is everything before it.
static TOWN: OnceLock<Mutex<Option<(Drill, u32)>>> = OnceLock::new();

fn op(chunk: &[u8], drill: &Drill) -> Option<Op> {
    let (&kind, rest) = chunk.split_first()?;
    let (&who, rest) = rest.split_first().unwrap_or((&0, &[]));
    let who = if who == 0xfe {
        Who::Stranger
    } else {
        Who::Player(usize::from(who))
    };
    let sessions = drill.sessions();
    let sid = |b: u8| {
        sessions
            .get(usize::from(b) % sessions.len().max(1))
            .copied()
            .unwrap_or_else(|| u64::from(b).into())
    };
    let text = || String::from_utf8_lossy(rest.get(1..).unwrap_or(&[])).into_owned();
    let b = rest.first().copied().unwrap_or(0);
    Some(match kind % 11 {
        0..=4 => Op::Line(who, String::from_utf8_lossy(rest).into_owned()),
        5 | 6 => Op::Json(who, usize::from(b), json_args(usize::from(b), &sessions, rest)),
        7 => Op::Act(who, sid(b), text(), Some(u64::from(b % 8)).filter(|_| b & 0x80 == 0)),
        8 => {
            if b & 1 == 0 {
                Op::State(who, sid(b))
            } else {
                Op::Log(who, sid(b))
            }
        }
        9 => Op::Wait(u64::from(b) * 500),
        _ => Op::Program(who, String::from_utf8_lossy(rest).into_owned()),
    })
}

fuzz_target!(|data: &[u8]| {
    let town = TOWN.get_or_init(|| Mutex::new(None));
    let mut town = town.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if town.as_ref().is_none_or(|(_, n)| *n >= 2000) {
        *town = Some((Drill::new(7).expect("the drill's town builds"), 0));
    }
    let Some((drill, taken)) = town.as_mut() else {
        return;
    };
    *taken += 1;
    for chunk in data.split(|b| *b == 0xff).take(64) {
        if let Some(op) = op(chunk, drill)
            && let Err(broken) = drill.step(op)
        {
            panic!("{}", broken.0);
        }
    }
});
