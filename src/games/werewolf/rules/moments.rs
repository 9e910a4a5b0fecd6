//! Key moments of a match for spectators: accusations, claims, vote swings and
//! deaths, found in the public events alone, so anyone may be shown them at any time.

use serde_json::{Value, json};

use super::events::{Kind, Reader, Vis};
use super::{SEATS, Seat, Werewolf, player_id, seat_of};

/// Words that make a message naming another player an accusation.
const ACCUSING: &[&str] = &[
    "wolf", "suspect", "trust", "lying", "liar", "quiet", "vote", "sus",
];

/// Claims of a role, as players make them.
const CLAIMS: &[(&str, &str)] = &[
    ("i am the seer", "SEER"),
    ("i'm the seer", "SEER"),
    ("i am the doctor", "DOCTOR"),
    ("i'm the doctor", "DOCTOR"),
    ("i am a villager", "VILLAGER"),
    ("i'm a villager", "VILLAGER"),
    ("i'm just a villager", "VILLAGER"),
    ("i am a plain villager", "VILLAGER"),
];

impl Werewolf {
    /// The match's key moments so far, oldest first: `{eventId, day, kind, text}` with `kind`
    /// one of `CLAIM`, `ACCUSATION`, `VOTE_SWING`, `DEATH`, and each id as `reader` numbers it.
    pub fn key_moments(&self, reader: Reader) -> Vec<Value> {
        let mut out = Vec::new();
        let mut day = 0u32;
        // The vote's leader as the tally stood, to see it swing.
        let mut votes: Vec<(Seat, Option<Seat>)> = Vec::new();
        let mut leader: Option<Seat> = None;
        for e in self.events.iter().filter(|e| e.vis == Vis::Public) {
            let moment = |kind: &str, text: String| json!({ "eventId": e.id_for(reader), "day": day, "kind": kind, "text": text });
            match e.kind {
                Kind::PhaseChanged => {
                    if let Some(d) = e.payload["dayNumber"].as_u64() {
                        day = d as u32;
                    }
                    votes.clear();
                    leader = None;
                }
                Kind::PublicMessage => {
                    let Some(by) = e.payload["playerId"].as_str().and_then(seat_of) else {
                        continue;
                    };
                    let text = e.payload["text"].as_str().unwrap_or("");
                    let lower = text.to_lowercase();
                    if let Some((_, role)) = CLAIMS.iter().find(|(c, _)| lower.contains(c)) {
                        let what = format!("{} claims {}: \"{text}\"", self.name(by), role);
                        out.push(moment("CLAIM", what));
                    } else if let Some(t) = self.named_in(&lower, by)
                        && ACCUSING.iter().any(|w| lower.contains(w))
                    {
                        let what =
                            format!("{} points at {}: \"{text}\"", self.name(by), self.name(t));
                        out.push(moment("ACCUSATION", what));
                    }
                }
                Kind::VoteCast => {
                    let voter = e.payload["voterPlayerId"].as_str().and_then(seat_of);
                    let target = e.payload["targetPlayerId"].as_str().and_then(seat_of);
                    let Some(voter) = voter else { continue };
                    votes.retain(|v| v.0 != voter);
                    votes.push((voter, target));
                    let now = plurality(&votes);
                    if let Some(t) = now
                        && now != leader
                    {
                        // The count as the lead changes hands, not the vote's end: said as such,
                        // lest "(1)" read as the day's tally.
                        let n = votes.iter().filter(|v| v.1 == Some(t)).count();
                        let so_far = match n {
                            1 => "1 vote so far".to_owned(),
                            n => format!("{n} votes so far"),
                        };
                        let what = match leader {
                            Some(was) => format!(
                                "The vote swings from {} to {} ({so_far}).",
                                self.name(was),
                                self.name(t)
                            ),
                            None => {
                                format!("{} takes the lead in the vote ({so_far}).", self.name(t))
                            }
                        };
                        out.push(moment("VOTE_SWING", what));
                    }
                    if now.is_some() {
                        leader = now;
                    }
                }
                Kind::PlayerEliminated => {
                    let Some(s) = e.payload["playerId"].as_str().and_then(seat_of) else {
                        continue;
                    };
                    let role = e.payload["roleRevealed"].as_str().unwrap_or("?");
                    let how = match e.payload["cause"].as_str() {
                        Some("VOTE") => "voted out",
                        _ => "killed in the night",
                    };
                    out.push(moment(
                        "DEATH",
                        format!("{} was {how}: a {}.", self.name(s), role.to_lowercase()),
                    ));
                }
                _ => {}
            }
        }
        out
    }

    /// The other player a message names (by name or id), if exactly one.
    fn named_in(&self, lower: &str, by: Seat) -> Option<Seat> {
        let named: Vec<Seat> = (0..SEATS)
            .filter(|&s| s != by)
            .filter(|&s| {
                let name = self.name(s).to_lowercase();
                contains_word(lower, &name) || contains_word(lower, player_id(s))
            })
            .collect();
        (named.len() == 1).then(|| named[0])
    }
}

/// The one seat with the most votes, if one leads alone.
fn plurality(votes: &[(Seat, Option<Seat>)]) -> Option<Seat> {
    let mut counts = [0usize; SEATS];
    for t in votes.iter().filter_map(|v| v.1) {
        counts[t] += 1;
    }
    let most = *counts.iter().max()?;
    let top: Vec<Seat> = (0..SEATS).filter(|&s| counts[s] == most).collect();
    (most > 0 && top.len() == 1).then(|| top[0])
}

/// Whether `word` stands in `text` as a word of its own.
fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::bot_match;
    use super::*;

    #[test]
    fn moments_come_from_public_events_and_tell_claims_swings_and_deaths() {
        let mut kinds = std::collections::BTreeSet::new();
        for seed in 0..40 {
            let (w, _) = bot_match(seed);
            let public: Vec<String> = w
                .events
                .iter()
                .filter(|e| e.vis == Vis::Public)
                .map(|e| e.id_for(Reader::Public))
                .collect();
            for m in w.key_moments(Reader::Public) {
                // Only from public events: nothing a spectator could not have read.
                assert!(public.contains(&m["eventId"].as_str().unwrap().to_owned()));
                kinds.insert(m["kind"].as_str().unwrap().to_owned());
                // A swing's count is the count then, and says so (a first vote's "(1)" once
                // read as the day's tally).
                if m["kind"] == "VOTE_SWING" {
                    let text = m["text"].as_str().unwrap();
                    assert!(text.ends_with(" so far)."), "{text}");
                }
            }
            let deaths = w.players.iter().filter(|p| !p.alive).count();
            let told = w
                .key_moments(Reader::Public)
                .iter()
                .filter(|m| m["kind"] == "DEATH")
                .count();
            assert_eq!(told, deaths, "seed {seed}");
        }
        for k in ["CLAIM", "ACCUSATION", "VOTE_SWING", "DEATH"] {
            assert!(kinds.contains(k), "no {k} in forty bot matches: {kinds:?}");
        }
    }

    #[test]
    fn a_name_is_a_word_not_a_part_of_one() {
        assert!(contains_word("i don't trust anna.", "anna"));
        assert!(!contains_word("hannah is fine", "anna"));
        assert!(contains_word("p3 is a wolf", "p3"));
        assert!(!contains_word("p30", "p3"));
    }
}
