//! The tests' fingerprint of the live town: everything a command could change, as text, so that
//! a test can take it before and after a refused command and ask that nothing moved (built only
//! with the `testing` feature).
//!
//! It is complete by construction rather than by a list of fields someone remembered: the
//! world, each player and each session are taken apart by a `let` that names every field, so a
//! field added to them does not compile until it is shown here or left out with its reason;
//! a game's own state is shown through [`Extension`](super::Extension)'s `Debug`, which every
//! extension must have. Maps and sets whose order is the hasher's are written in a canonical
//! order (see [`canonical`]), so that a map put back as it was reads as it was.

use std::collections::BTreeMap;

use super::{Player, Seeds, World};

impl World {
    /// The town as a test compares it: one entry per part, named (`players/<id>`,
    /// `sessions/<id>`, `extensions/<type>`), so that a difference says where it is. A player's
    /// idle clocks are entries of their own (`players/<id>/last_active`, `…/last_heard`):
    /// every line typed moves them, refused or not, and a test names them when it allows that.
    pub fn fingerprint(&self) -> BTreeMap<String, String> {
        let World {
            map,
            templates,
            players,
            occupants,
            directory,
            sessions,
            played,
            secluded,
            next_session,
            invitations,
            invitation_lapse,
            build_quota,
            writable,
            programs,
            ticks,
            ticks_pruned_at: _,
            town,
            town_version,
            watchers,
            bound_rooms,
            session_hooks,
            tick_hooks,
            extensions,
            time,
            deadlines,
            outbox,
            seeds,
            writes,
            reads,
            max_sessions,
            external_engine,
            ratings,
            conduct,
            tournaments,
            following,
        } = self;
        let mut out = BTreeMap::new();
        let mut put = |key: String, value: String| {
            out.insert(key, canonical(&value));
        };
        put("map".into(), format!("{map:?}"));
        let templates: Vec<&str> = templates.iter().map(|t| t.id).collect();
        put("templates".into(), format!("{templates:?}"));
        for (id, p) in players {
            let Player {
                id: _,
                name,
                description,
                room,
                connected_at,
                last_active,
                last_heard,
                display,
                wizard,
                builder,
                programmer,
                editing,
                conn,
                // The connection's end of its queue: what went down it is what the test hears,
                // not the town's state.
                sink: _,
                mailbox,
                mailbox_bytes,
            } = p;
            put(
                format!("players/{id}"),
                format!(
                    "name: {name:?}, description: {description:?}, room: {room}, \
                     connected_at: {connected_at:?}, display: {display:?}, wizard: {wizard}, \
                     builder: {builder}, programmer: {programmer}, editing: {editing:?}, conn: {conn}, kind: {}, mailbox: {mailbox:?}, mailbox_bytes: {mailbox_bytes}",
                    if p.sink.takes_events() {
                        "takes events"
                    } else {
                        "no events"
                    }
                ),
            );
            put(
                format!("players/{id}/last_active"),
                format!("{last_active:?}"),
            );
            put(
                format!("players/{id}/last_heard"),
                format!("{last_heard:?}"),
            );
        }
        put("occupants".into(), format!("{occupants:?}"));
        put("directory".into(), directory.fingerprint());
        for (sid, s) in sessions {
            put(format!("sessions/{sid}"), s.fingerprint());
        }
        put("played".into(), format!("{played:?}"));
        put("secluded".into(), format!("{secluded:?}"));
        put("next_session".into(), format!("{next_session:?}"));
        for (sid, i) in invitations {
            put(format!("invitations/{sid}"), i.fingerprint());
        }
        put("invitation_lapse".into(), format!("{invitation_lapse:?}"));
        put("build_quota".into(), format!("{build_quota:?}"));
        put("programs".into(), format!("{programs:?}"));
        put("writable".into(), format!("{writable:?}"));
        // The counters waiters follow: a refused command must wake nobody.
        let ticks: BTreeMap<_, u64> = ticks
            .iter()
            .map(|(s, t)| (s.clone(), *t.borrow()))
            .collect();
        put("ticks".into(), format!("{ticks:?}"));
        // The town's counter is not compared: it counts the commands that left a write or news
        // for others, which a refusal may (what was stored is compared on its own), and whoever
        // follows the town map is sent a map only when it differs from the last.
        let _ = (town, town_version);
        put("watchers".into(), format!("{watchers:?}"));
        put("tournaments".into(), tournaments.fingerprint());
        put("following".into(), following.fingerprint());
        put("bound_rooms".into(), format!("{bound_rooms:?}"));
        // Functions, set once before the town opens: only how many there are can be shown.
        put(
            "hooks".into(),
            format!(
                "session: {}, tick: {}",
                session_hooks.len(),
                tick_hooks.len()
            ),
        );
        for e in extensions {
            let name = format!("{e:?}");
            let name = name.split([' ', '(', '{']).next().unwrap_or("?").to_owned();
            put(format!("extensions/{name}"), format!("{e:?}"));
        }
        put("time".into(), format!("{time:?}"));
        put("deadlines".into(), format!("{deadlines:?}"));
        // At rest (every answer given), nothing is in flight.
        put("outbox".into(), format!("empty: {}", outbox.is_empty()));
        let seeds = match seeds {
            // Nobody can read the operating system's generator; it keeps nothing of the town.
            Seeds::Os => "os",
            // The generator hides where it stands; a seed is drawn only for a session that is
            // made, which shows here itself.
            Seeds::Reproducible(_) => "reproducible",
        };
        put("seeds".into(), seeds.to_owned());
        put("limits/writes".into(), format!("{writes:?}"));
        put("limits/reads".into(), format!("{reads:?}"));
        put("max_sessions".into(), format!("{max_sessions}"));
        put("external_engine".into(), format!("{external_engine}"));
        put("ratings".into(), format!("{ratings:?}"));
        put("conduct".into(), format!("{conduct:?}"));
        out
    }
}

/// `Debug` text with the items of every map and set written in order: a `{…}` that does not
/// follow a type's name (`Name { field: … }`, whose fields keep their order) has its items
/// sorted, wherever it is nested. Text in quotes is copied as it is.
pub fn canonical(debug: &str) -> String {
    let chars: Vec<char> = debug.chars().collect();
    let mut at = 0;
    items(&chars, &mut at, None).join(", ")
}

/// The comma-separated items up to `close` (or the end), each canonical.
fn items(chars: &[char], at: &mut usize, close: Option<char>) -> Vec<String> {
    let mut found = Vec::new();
    let mut item = String::new();
    while let Some(&c) = chars.get(*at) {
        *at += 1;
        match c {
            '"' => {
                item.push(c);
                while let Some(&q) = chars.get(*at) {
                    *at += 1;
                    item.push(q);
                    if q == '\\' {
                        if let Some(&next) = chars.get(*at) {
                            *at += 1;
                            item.push(next);
                        }
                    } else if q == '"' {
                        break;
                    }
                }
            }
            '{' | '[' | '(' => {
                let closer = match c {
                    '{' => '}',
                    '[' => ']',
                    _ => ')',
                };
                let named = item
                    .trim_end()
                    .ends_with(|ch: char| ch.is_alphanumeric() || ch == '_');
                let mut inner = items(chars, at, Some(closer));
                if c == '{' && !named {
                    inner.sort();
                }
                item.push(c);
                item.push_str(&inner.join(", "));
                item.push(closer);
            }
            ',' if close.is_some() => {
                found.push(item.trim().to_owned());
                item.clear();
            }
            c if Some(c) == close => break,
            c => item.push(c),
        }
    }
    if !item.trim().is_empty() {
        found.push(item.trim().to_owned());
    }
    found
}

#[cfg(test)]
mod tests {
    use super::canonical;

    /// Maps and sets read the same whatever order their hasher gave; a struct's fields, a
    /// list's items and quoted text keep theirs.
    #[test]
    fn maps_and_sets_are_written_in_order_and_nothing_else_moves() {
        assert_eq!(
            canonical(r#"{"b": [2, 1], "a": P { y: 1, x: "}, {" }}"#),
            canonical(r#"{"a": P { y: 1, x: "}, {" }, "b": [2, 1]}"#),
        );
        assert_ne!(canonical("[2, 1]"), canonical("[1, 2]"));
        assert_ne!(canonical("P { y: 1, x: 2 }"), canonical("P { x: 2, y: 1 }"));
        assert_eq!(
            canonical(r#"W { s: {3, 1}, t: Some({"k": 1, "j": 2}) }"#),
            canonical(r#"W { s: {1, 3}, t: Some({"j": 2, "k": 1}) }"#),
        );
    }
}
