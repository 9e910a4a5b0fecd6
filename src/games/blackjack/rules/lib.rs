//! `blackjack.v1`, the rules the blackjack tools have always played: an infinite deck (13 equally likely ranks, no suits),
//! the dealer's first card face down, a player's natural wins at once, a dealer's 21 after the
//! deal wins, the dealer draws to 17 and stands on every 17, and ties go to the dealer. One role,
//! `player`; actions `deal` (a fresh hand at any time), `hit` and `stand`.
//!
//! Cards come from the session's seed and a count of cards drawn (SplitMix64), so a hand
//! replays exactly from the log and a seeded game is a repeatable experiment.

#![warn(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use moot_game_api::{Game, GameError};

pub const RANKS: [&str; 13] = [
    "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blackjack {
    seed: u64,
    drawn: u64,
    dealer: Vec<u8>,
    player: Vec<u8>,
    /// No hand dealt yet, a hand in play, or over (with its message).
    phase: Phase,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    Idle,
    Playing,
    Over(&'static str),
}

pub const PLAYER_WINS: &str = "Player wins!";
pub const DEALER_WINS: &str = "Dealer wins!";
pub const BUST: &str = "Bust! Dealer wins!";
pub const PUSH: &str = "Push! Dealer wins!";

/// The best total of a hand: aces count 11 unless that would bust.
pub fn total(cards: &[u8]) -> u32 {
    let mut sum: u32 = cards
        .iter()
        .map(|&c| match c {
            0..=8 => u32::from(c) + 2,
            9..=11 => 10,
            _ => 1,
        })
        .sum();
    let mut aces = cards.iter().filter(|&&c| c == 12).count();
    while aces > 0 && sum + 10 <= 21 {
        sum += 10;
        aces -= 1;
    }
    sum
}

fn show(cards: &[u8]) -> String {
    cards
        .iter()
        .map(|&c| RANKS[c as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

impl Blackjack {
    fn draw(&mut self) -> u8 {
        // 13 ranks, equally likely.
        moot_game_api::draw_below(self.seed, &mut self.drawn, 13) as u8
    }

    fn over(&self) -> bool {
        matches!(self.phase, Phase::Over(_))
    }

    /// The tools' fixed response text: `Dealer: …`, `Player: …`, and the message when the hand ended.
    pub fn text(&self) -> Vec<String> {
        if self.phase == Phase::Idle {
            return vec!["No hand has been dealt yet.".into()];
        }
        let dealer = if self.over() {
            show(&self.dealer)
        } else {
            format!("X {}", show(self.dealer.get(1..).unwrap_or_default()))
        };
        let mut lines = vec![
            format!("Dealer: {dealer}"),
            format!("Player: {}", show(&self.player)),
        ];
        if let Phase::Over(m) = self.phase {
            lines.push(m.to_owned());
        }
        lines
    }

    /// [`Blackjack::text`] as a screen reader speaks it: cards by their names, the hole card
    /// said to be face down rather than drawn as an `X`.
    fn spoken(&self) -> Vec<String> {
        if self.phase == Phase::Idle {
            return self.text();
        }
        const NAMES: [&str; 13] = [
            "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king", "ace",
        ];
        let said = |cards: &[u8]| {
            cards
                .iter()
                .map(|&c| NAMES[c as usize])
                .collect::<Vec<_>>()
                .join(", ")
        };
        let dealer = if self.over() {
            format!("{}; total {}", said(&self.dealer), total(&self.dealer))
        } else {
            format!(
                "one card face down, {}",
                said(self.dealer.get(1..).unwrap_or_default())
            )
        };
        let mut lines = vec![
            format!("Dealer: {dealer}."),
            format!(
                "Player: {}; total {}.",
                said(&self.player),
                total(&self.player)
            ),
        ];
        if let Phase::Over(m) = self.phase {
            lines.push(m.to_owned());
        }
        lines
    }

    pub fn message(&self) -> Option<&'static str> {
        match self.phase {
            Phase::Over(m) => Some(m),
            _ => None,
        }
    }

    pub fn in_play(&self) -> bool {
        self.phase == Phase::Playing
    }
}

/// What the player does at the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Play {
    /// A new hand (the one in play, if any, is abandoned).
    Deal,
    Hit,
    Stand,
}

impl std::str::FromStr for Play {
    type Err = GameError;
    fn from_str(s: &str) -> Result<Play, GameError> {
        match s {
            "deal" => Ok(Play::Deal),
            "hit" => Ok(Play::Hit),
            "stand" => Ok(Play::Stand),
            other => Err(GameError::Illegal(format!(
                "`{other}` is not deal, hit or stand"
            ))),
        }
    }
}

impl std::fmt::Display for Play {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Play::Deal => "deal",
            Play::Hit => "hit",
            Play::Stand => "stand",
        })
    }
}

impl Game for Blackjack {
    const TEMPLATE: &'static str = "blackjack.v1";
    const TITLE: &'static str = "blackjack";
    const ROLES: &'static [&'static str] = &["player"];
    const SEQUENTIAL: bool = false;
    const TABLE: &'static str = "blackjack_table";
    type Action = Play;

    fn new(seed: u64, options: &Value) -> Result<Blackjack, GameError> {
        match options {
            Value::Null => {}
            Value::Object(o) if o.is_empty() => {}
            _ => {
                return Err(GameError::BadOptions(
                    "blackjack.v1 takes no options".into(),
                ));
            }
        }
        Ok(Blackjack {
            seed,
            drawn: 0,
            dealer: Vec::new(),
            player: Vec::new(),
            phase: Phase::Idle,
        })
    }

    fn legal_actions(&self, _role: &str) -> Vec<String> {
        if self.in_play() {
            vec!["deal".into(), "hit".into(), "stand".into()]
        } else {
            vec!["deal".into()]
        }
    }

    fn act(&self, _role: &str, play: &Play) -> Result<Blackjack, GameError> {
        let mut g = self.clone();
        match play {
            Play::Deal => {
                g.dealer = vec![g.draw(), g.draw()];
                g.player = vec![g.draw(), g.draw()];
                g.phase = if total(&g.player) == 21 {
                    Phase::Over(PLAYER_WINS)
                } else if total(&g.dealer) == 21 {
                    Phase::Over(DEALER_WINS)
                } else {
                    Phase::Playing
                };
            }
            Play::Hit | Play::Stand if !self.in_play() => {
                return Err(GameError::Illegal(format!(
                    "There is no hand in play to {play}; deal one first."
                )));
            }
            Play::Hit => {
                let card = g.draw();
                g.player.push(card);
                if total(&g.player) > 21 {
                    g.phase = Phase::Over(BUST);
                }
            }
            Play::Stand => {
                while total(&g.dealer) < 17 {
                    let card = g.draw();
                    g.dealer.push(card);
                }
                let (d, p) = (total(&g.dealer), total(&g.player));
                g.phase = Phase::Over(if d > 21 || p > d {
                    PLAYER_WINS
                } else if d == p {
                    PUSH
                } else {
                    DEALER_WINS
                });
            }
        }
        Ok(g)
    }

    /// A blackjack table never closes: `deal` starts the next hand.
    fn is_terminal(&self) -> bool {
        false
    }

    /// The table never closes, so its hands are told apart by where the last one stands.
    fn situation(&self) -> String {
        match self.phase {
            Phase::Idle => "no hand dealt".to_owned(),
            Phase::Playing => format!("a hand in play, the player on {}", total(&self.player)),
            Phase::Over(how) => format!(
                "the hand is over: {how} ({} to {}); `deal` for another",
                total(&self.player),
                total(&self.dealer)
            ),
        }
    }

    /// Luck against the house: a record of hands, not a rating.
    const RECKONING: moot_game_api::Reckoning = moot_game_api::Reckoning::Record;

    /// A hand is decided by the action that ends it (any action after that deals anew).
    fn decided(&self) -> Option<Vec<moot_game_api::SideScore>> {
        let Phase::Over(how) = self.phase else {
            return None;
        };
        // A push goes to the dealer ("Push! Dealer wins!"): only a win is a win.
        let score = if how == PLAYER_WINS { 1.0 } else { 0.0 };
        Some(vec![moot_game_api::SideScore {
            side: "",
            roles: vec!["player"],
            score,
            parts: Vec::new(),
        }])
    }

    fn state(&self) -> Value {
        json!({
            "seed": self.seed,
            "drawn": self.drawn,
            "dealer": self.dealer.iter().map(|&c| RANKS[c as usize]).collect::<Vec<_>>(),
            "player": self.player.iter().map(|&c| RANKS[c as usize]).collect::<Vec<_>>(),
            "phase": match self.phase { Phase::Idle => "idle", Phase::Playing => "playing", Phase::Over(_) => "over" },
            "message": self.message(),
        })
    }

    /// The dealer's first card stays face down, and the seed (which would tell every card to
    /// come) is never shown while a hand is in play.
    fn view(&self, _role: Option<&str>) -> Value {
        let mut v = self.state();
        if let Some(o) = v.as_object_mut() {
            o.remove("seed");
        }
        if self.in_play()
            && let Some(hole) = v["dealer"].get_mut(0)
        {
            *hole = json!("X");
        }
        v["player_total"] = json!(total(&self.player));
        if self.over() {
            v["dealer_total"] = json!(total(&self.dealer));
        }
        v["text"] = json!(self.text().join("\n"));
        v
    }

    fn render(&self, viewer: Option<&str>, r: moot_game_api::Reading) -> Vec<String> {
        if r.plain {
            return self.spoken();
        }
        let view = self.view(viewer);
        view["text"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_count_aces_best() {
        assert_eq!(total(&[12, 9]), 21); // A J
        assert_eq!(total(&[12, 12, 8]), 12); // A A 10
        assert_eq!(total(&[12, 12, 12]), 13);
        assert_eq!(total(&[8, 8, 0]), 22);
    }

    #[test]
    fn no_hand_no_hit() {
        let g = Blackjack::new(1, &Value::Null).unwrap();
        assert!(
            matches!(g.apply("player", "hit"), Err(GameError::Illegal(m)) if m.contains("no hand in play"))
        );
        assert!(matches!(
            g.apply("player", "stand"),
            Err(GameError::Illegal(_))
        ));
    }

    #[test]
    fn the_hidden_card_is_hidden_until_the_hand_ends() {
        let mut seed = 0;
        let g = loop {
            let g = Blackjack::new(seed, &Value::Null)
                .unwrap()
                .apply("player", "deal")
                .unwrap();
            if g.in_play() {
                break g;
            }
            seed += 1;
        };
        let v = g.view(Some("player"));
        assert_eq!(v["dealer"][0], "X");
        assert!(v.get("seed").is_none());
        assert!(g.text()[0].starts_with("Dealer: X "));
        let done = g.apply("player", "stand").unwrap();
        assert_ne!(done.view(Some("player"))["dealer"][0], "X");
        assert!([PLAYER_WINS, DEALER_WINS, PUSH].contains(&done.text()[2].as_str()));
    }

    /// Under these rules a player who hits below 17 wins 0.413416 of hands (the exact value for
    /// the infinite deck, which a 2M-hand simulation confirms); 100,000 seeded hands must land
    /// within four standard errors (±0.0062).
    #[test]
    fn hitting_below_seventeen_wins_as_often_as_it_should() {
        let hands = 100_000u32;
        let mut g = Blackjack::new(20261121, &Value::Null).unwrap();
        let mut wins = 0u32;
        let mut naturals = 0u32;
        for _ in 0..hands {
            g = g.apply("player", "deal").unwrap();
            if g.message() == Some(PLAYER_WINS) {
                naturals += 1;
            }
            while g.in_play() && total(&g.player) < 17 {
                g = g.apply("player", "hit").unwrap();
            }
            if g.in_play() {
                g = g.apply("player", "stand").unwrap();
            }
            if g.message() == Some(PLAYER_WINS) {
                wins += 1;
            }
        }
        let p = f64::from(wins) / f64::from(hands);
        let se = (0.413416f64 * (1.0 - 0.413416) / f64::from(hands)).sqrt();
        assert!(
            (p - 0.413416).abs() <= 4.0 * se,
            "won {p:.6}, expected 0.413416 ± {:.6}",
            4.0 * se
        );
        let natural = f64::from(naturals) / f64::from(hands);
        let se_n = (8.0 / 169.0 * (1.0 - 8.0 / 169.0) / f64::from(hands)).sqrt();
        assert!(
            (natural - 8.0 / 169.0).abs() <= 4.0 * se_n,
            "naturals {natural:.6}"
        );
    }
}
