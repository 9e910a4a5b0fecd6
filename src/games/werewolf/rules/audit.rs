//! What each reader of a match may know, checked against what they were shown: the one audit
//! of hidden information, shared by the rules' tests (ten thousand bot matches) and by the
//! drill that feeds verbs to a living town (`moot_testkit::drill`, in `tests/kit/`), so that
//! both hold every face to the same rule. Each check answers with what leaked, for the caller to report where.

use serde_json::Value;

use super::events::{Event, Kind, Reader, Vis};
use super::{Card, DECK, Phase, SEATS, Seat, Werewolf, player_id, seat_of, text};
use moot_game_api::{Note, SERVER_ROLE, Viewer};

/// Whether `reader` may know seat `s`'s card: their own, the dead's, everyone's once the
/// match is over, and every card for an all-seeing spectator.
fn entitled(w: &Werewolf, reader: Reader, s: Seat) -> bool {
    w.players.get(s).is_some_and(|p| !p.alive)
        || w.phase == Phase::Ended
        || match reader {
            Reader::Omniscient => true,
            Reader::Public => false,
            Reader::Seat(me) => me == s,
        }
}

fn card_of(w: &Werewolf, reader: Reader) -> Option<Card> {
    match reader {
        Reader::Seat(s) => w.players.get(s).map(|p| p.card),
        _ => None,
    }
}

fn seats_with(w: &Werewolf, card: Card) -> Vec<Seat> {
    (0..SEATS)
        .filter(|&s| w.players.get(s).is_some_and(|p| p.card == card))
        .collect()
}

/// A state `reader` was shown (built by the rules, or handed out by the host): no card they
/// may not know, no count of misses that betrays a night role, no wolves named to a
/// non-wolf, no seer's history to a non-seer, the night's secrets to nobody but the
/// all-seeing.
pub fn state(w: &Werewolf, reader: Reader, state: &Value) -> Result<(), String> {
    let leak = |what: String| Err(format!("{reader:?} {what}: {state}"));
    for p in state["players"].as_array().into_iter().flatten() {
        let Some(s) = p["playerId"].as_str().and_then(seat_of) else {
            return leak(format!("reads a player with no seat: {p}"));
        };
        if p["revealedRole"].is_null() == entitled(w, reader, s) {
            return leak(format!("is shown {}'s role wrongly", player_id(s)));
        }
        // A count of misses counts only what the reader saw missed.
        if !entitled(w, reader, s) {
            let seen = w
                .events()
                .iter()
                .filter(|e| {
                    e.kind == Kind::ActionMissed
                        && e.admits(reader)
                        && e.payload["playerId"] == player_id(s)
                })
                .count();
            if p["misses"] != seen {
                return leak(format!("reads {p}, having seen {seen} misses"));
            }
        }
    }
    let wolves = seats_with(w, Card::Werewolf);
    match reader {
        Reader::Seat(me) => {
            let you = &state["you"];
            let known = you["knownWolves"].as_array().map_or(0, Vec::len);
            if known != if wolves.contains(&me) { 2 } else { 0 } {
                return leak(format!("knows {known} wolves"));
            }
            let seen = you["seerHistory"].as_array().map_or(0, Vec::len);
            if card_of(w, reader) != Some(Card::Seer) && seen > 0 {
                return leak("reads a seer's history".into());
            }
        }
        _ if !state["you"].is_null() => return leak("is told who they are".into()),
        _ => {}
    }
    if reader != Reader::Omniscient && state.get("night").is_some() {
        return leak("reads the night".into());
    }
    Ok(())
}

/// The text view `reader` gets (telnet's `werewolf`): no card beside a name they may not know,
/// but for a wolf's fellow wolf (whom the state names to it too, in `knownWolves`), marked as
/// its partner and nothing more. Both as drawn and as a screen reader has it.
pub fn text_view(w: &Werewolf, reader: Reader) -> Result<(), String> {
    let drawn = moot_game_api::Reading::at(w.now);
    text_read(w, reader, drawn)?;
    text_read(w, reader, drawn.plain())
}

fn text_read(w: &Werewolf, reader: Reader, r: moot_game_api::Reading) -> Result<(), String> {
    let lines = text::render(w, reader, r);
    let wolf = card_of(w, reader) == Some(Card::Werewolf);
    for s in (0..SEATS).filter(|&s| !entitled(w, reader, s)) {
        let label = text::seat_label(w, s);
        let Some(row) = lines.iter().find(|l| l.trim_start().starts_with(&label)) else {
            return Err(format!("{reader:?}: no row for {label}"));
        };
        let partner = wolf && w.players.get(s).is_some_and(|p| p.card == Card::Werewolf);
        let mark = if r.plain {
            ", Werewolf, your partner"
        } else {
            "  Werewolf, your partner"
        };
        if partner && !row.contains(mark) {
            return Err(format!("{reader:?}: its partner unmarked: {row}"));
        }
        let row = if partner {
            row.replacen(mark, "", 1)
        } else {
            row.clone()
        };
        if DECK.iter().any(|card| row.contains(card.title())) {
            return Err(format!("{reader:?}: {row}"));
        }
    }
    Ok(())
}

/// Both views the rules build for `reader`.
pub fn view(w: &Werewolf, reader: Reader) -> Result<(), String> {
    state(w, reader, &w.state_for(reader, 50))?;
    text_view(w, reader)
}

/// An event, if `reader` is let see it at all: of a kind and about seats their place allows.
pub fn event(w: &Werewolf, e: &Event, reader: Reader) -> Result<(), String> {
    if !e.admits(reader) {
        return Ok(());
    }
    let ok = match reader {
        Reader::Omniscient => true,
        Reader::Public => matches!(e.vis, Vis::Public),
        Reader::Seat(me) => {
            let card = card_of(w, reader);
            match e.kind {
                Kind::RoleAssigned => e.payload["playerId"] == player_id(me),
                Kind::SeerResult => card == Some(Card::Seer),
                Kind::WolfKillSelected | Kind::WolfChatMessage => card == Some(Card::Werewolf),
                Kind::DoctorProtected => card == Some(Card::Doctor),
                Kind::ActionMissed => e.payload["action"] != "NIGHT_ACTION",
                Kind::NightResult => e.payload_for(reader).get("savedByDoctor").is_none(),
                _ => e.vis == Vis::Public,
            }
        }
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{reader:?} saw {:?}: {}", e.kind, e.payload))
    }
}

/// A line of text that reaches a reader holding `card` (`None`: no seat), against what the
/// lines of each secret say: the wolves' talk and choice, the seer's vision, the doctor's
/// watch, a spectator's spoiler, somebody else's card.
pub fn line(card: Option<Card>, t: &str) -> Result<(), String> {
    let is = |c: Card| card == Some(c);
    let secret = [
        (t.contains("growls to the pack"), is(Card::Werewolf)),
        (
            t.contains(" wants ") && t.ends_with(" tonight."),
            is(Card::Werewolf),
        ),
        (t.contains("Your vision shows"), is(Card::Seer)),
        (t.contains("You will watch over"), is(Card::Doctor)),
        (t.contains("(Spoiler)"), false),
    ];
    let told_card = t
        .strip_prefix(text::CRIER)
        .and_then(|rest| rest.strip_prefix(" You are "))
        .and_then(|rest| {
            [Card::Villager, Card::Werewolf, Card::Seer, Card::Doctor]
                .into_iter()
                .find(|&c| rest.starts_with(text::article(c)))
        });
    if secret.iter().any(|(shown, allowed)| *shown && !allowed) || told_card.is_some_and(|c| !is(c))
    {
        return Err(format!("({card:?}) was told {t:?}"));
    }
    Ok(())
}

/// The notes the host delivers of an action, as `reader` gets them.
pub fn notes(w: &Werewolf, notes: &[Note], reader: Reader) -> Result<(), String> {
    let viewer = match reader {
        Reader::Seat(s) => Viewer {
            role: Some(player_id(s)),
            sees_all: false,
        },
        Reader::Public => Viewer {
            role: None,
            sees_all: false,
        },
        Reader::Omniscient => return Ok(()),
    };
    notes
        .iter()
        .filter(|n| n.to.admits(viewer))
        .try_for_each(|n| line(card_of(w, reader), &n.text))
        .map_err(|leak| format!("{reader:?} {leak}"))
}

/// Whether `reader` was rightly shown `role`'s `action` in the log (`shown`: what they read of
/// it, if anything): another's night action, or even that they took one, only to their pack.
pub fn log_entry(
    w: &Werewolf,
    reader: Reader,
    role: &str,
    action: &str,
    shown: Option<&str>,
) -> Result<(), String> {
    let Reader::Seat(s) = reader else {
        return Ok(());
    };
    if role == player_id(s) || role == SERVER_ROLE {
        return Ok(());
    }
    let verb = action.split(' ').next().unwrap_or("");
    let night = matches!(verb, "kill" | "inspect" | "protect" | "wolfchat");
    let pack = card_of(w, reader) == Some(Card::Werewolf) && matches!(verb, "kill" | "wolfchat");
    if shown.is_some() == (!night || pack) {
        Ok(())
    } else {
        Err(format!("{reader:?} reads {role} `{action}` as {shown:?}"))
    }
}

/// Everything `reader` can read of the match but its time: their state, how many events they
/// have (their ids and cursors), the key moments. An action hidden from them changes none of
/// it.
pub fn snapshot(w: &Werewolf, reader: Reader) -> Value {
    serde_json::json!({
        "state": w.state_for(reader, 50),
        "seen": w.seen_by(reader),
        "moments": w.key_moments(reader),
    })
}
