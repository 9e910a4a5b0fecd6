//! `blackjack_deal`, `blackjack_hit`, `blackjack_stand`: the blackjack server's MCP tools, and the Card Room
//! table's verbs (`deal`, `hit`, `stand` on telnet). Each player has one blackjack.v1 session
//! at the table, made on their first deal; its log holds every card.

pub use moot_blackjack_rules as rules;

/// It has no flags of its own.
pub use moot_kernel::verbs::game_module::NoFlags as Flags;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use moot_kernel::verbs::{NoArgs, Reply, Topic, Verb, VerbError, no_args};
use moot_kernel::world::sessions::SessionId;
use moot_kernel::world::{Cx, Face, ThingKind, World};

/// Where blackjack is dealt (the Card Room's table).
pub const CARD_TABLE: ThingKind = ThingKind::named("blackjack_table");

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct Hand {
    pub session_id: String,
    /// The dealer's cards; `X` is the face-down card while the hand is in play.
    pub dealer: Vec<String>,
    pub player: Vec<String>,
    pub player_total: u32,
    /// Shown once the hand is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealer_total: Option<u32>,
    /// `playing` or `over`.
    pub phase: String,
    /// `Player wins!`, `Dealer wins!`, `Bust! Dealer wins!` or `Push! Dealer wins!` once over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

fn my_table(world: &World, cx: &Cx) -> Option<SessionId> {
    world
        .session_ids()
        .into_iter()
        .filter_map(|id| world.session(id))
        .find(|s| s.template.id == "blackjack.v1" && s.role_of(&cx.actor).is_some())
        .map(|s| s.id)
}

/// Takes `action` at the actor's table (made first for a deal) and answers in the tools' fixed
/// text format (`Dealer: …`, `Player: …`, the outcome).
fn play(world: &mut World, cx: &mut Cx, action: &str) -> Result<Reply<Hand>, VerbError> {
    let sid = match my_table(world, cx) {
        Some(id) => id,
        None if action == "deal" => {
            let me = BTreeMap::from([("player".to_owned(), cx.actor.to_string())]);
            let created =
                world.create_session_here(cx, "blackjack.v1", &me, serde_json::Value::Null)?;
            created.id
        }
        None => {
            // Each in their face's words: a person types `deal`, an agent calls the tool.
            return Err(VerbError::refused(match cx.face {
                moot_kernel::world::Face::Mcp => {
                    "There is no hand in play; deal one first (the tool blackjack_deal)."
                }
                _ => "There is no hand in play; deal one first (`deal`).",
            }));
        }
    };
    let acted = world.act(cx, sid, action, None)?;
    if action == "deal" {
        // Played at the table, where others may watch it, wherever it was dealt from.
        moot_kernel::verbs::tables::from_afar(world, cx, CARD_TABLE);
    }
    let v = acted.state;
    let strings = |key: &str| {
        v[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|c| c.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    // The tools answer in seed 001's words exactly; a screen reader's user hears the cards by
    // name with the totals, and a person at a terminal is told the totals and what to type next.
    let plain = world.is_present(&cx.actor) && world.player(&cx.actor).display.screenreader;
    let mut text: Vec<String> = match world.session(sid) {
        Some(s) if plain => world.drawn_for(s, &cx.actor),
        _ => v["text"]
            .as_str()
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect(),
    };
    if plain && cx.face == Face::Telnet {
        text.push(match v["dealer_total"].as_u64() {
            Some(_) => "`deal` for another hand.".to_owned(),
            None => "`hit` or `stand`.".to_owned(),
        });
    } else if cx.face == Face::Telnet {
        let player = v["player_total"].as_u64().unwrap_or(0);
        text.push(match v["dealer_total"].as_u64() {
            Some(dealer) => {
                format!("(You had {player}, the dealer {dealer}. `deal` for another hand.)")
            }
            None => format!("(You have {player}. `hit` or `stand`.)"),
        });
    }
    Ok(Reply::new(
        text,
        Hand {
            session_id: sid.to_string(),
            dealer: strings("dealer"),
            player: strings("player"),
            player_total: v["player_total"].as_u64().unwrap_or(0) as u32,
            dealer_total: v["dealer_total"].as_u64().map(|t| t as u32),
            phase: v["phase"].as_str().unwrap_or_default().to_owned(),
            message: v["message"].as_str().map(str::to_owned),
        },
    ))
}

pub struct Deal;

impl Verb for Deal {
    const NAME: &'static str = "blackjack_deal";
    const ALIASES: &'static [&'static str] = &["deal"];
    const USAGE: &'static str = "deal   or   blackjack_deal";
    const SUMMARY: &'static str = "Deal a new hand (the old one is abandoned).";
    const HELP: &'static str = "Deals you two cards face up and the dealer two, the first face down \
(shown as X). A two-card 21 wins at once; a dealer's 21 wins at once. Then `hit` or `stand`. Infinite deck: every card is equally likely each time; no betting, splits or \
doubles; the dealer draws to 17 and wins ties.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Deal a new hand of blackjack, abandoning the old one; \
needs nothing. Returns the hands (the dealer's first card hidden), their totals and the message; a \
two-card 21 ends the hand at once.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(TOOLSET);
    const TOPIC: Topic = TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[self::CARD_TABLE];
    type Args = NoArgs;
    type Output = Hand;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Deal>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<Hand>, VerbError> {
        play(world, cx, "deal")
    }
}

pub struct Hit;

impl Verb for Hit {
    const NAME: &'static str = "blackjack_hit";
    const ALIASES: &'static [&'static str] = &["hit"];
    const USAGE: &'static str = "hit   or   blackjack_hit";
    const SUMMARY: &'static str = "Take another card in your blackjack hand.";
    const HELP: &'static str = "Deals you one more card. Over 21 is a bust and the dealer wins.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Take another card in your blackjack hand; over 21 is a \
bust. Returns the hands, their totals and the message.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(TOOLSET);
    const TOPIC: Topic = TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[self::CARD_TABLE];
    type Args = NoArgs;
    type Output = Hand;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Hit>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<Hand>, VerbError> {
        play(world, cx, "hit")
    }
}

pub struct Stand;

impl Verb for Stand {
    const NAME: &'static str = "blackjack_stand";
    const ALIASES: &'static [&'static str] = &["stand"];
    const USAGE: &'static str = "stand   or   blackjack_stand";
    const SUMMARY: &'static str = "Stand: the dealer plays out the hand.";
    const HELP: &'static str = "The dealer turns over the hidden card and draws until 17 or more; the \
higher total without going over 21 wins, and a tie goes to the dealer.";
    const READ_ONLY: bool = false;
    const REASONED: bool = true;
    const TOOL_DESCRIPTION: &'static str = "Stand: the dealer shows the hidden card and draws to \
17, and a tie goes to the dealer. Returns the final hands, their totals and who won.";
    const TOOLSET: Option<moot_kernel::verbs::Toolset> = Some(TOOLSET);
    const TOPIC: Topic = TOPIC;
    const OFFERED_BY: &'static [ThingKind] = &[self::CARD_TABLE];
    type Args = NoArgs;
    type Output = Hand;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Stand>(rest)
    }

    fn run(world: &mut World, cx: &mut Cx, _: NoArgs) -> Result<Reply<Hand>, VerbError> {
        play(world, cx, "stand")
    }
}

/// The three blackjack tools, at `/mcp/blackjack`: exactly the blackjack server agents expect
/// (those names, arguments and answer texts), nothing else.
pub const TOOLSET: moot_kernel::verbs::Toolset = moot_kernel::verbs::Toolset {
    name: "blackjack",
    summary: "the blackjack server's three tools: blackjack_deal, blackjack_hit, blackjack_stand",
    wizards_only: false,
};

/// Where `help blackjack` leads.
pub const TOPIC: Topic = Topic {
    title: "Cards",
    words: &["blackjack", "cards"],
    intro: "Blackjack against the house, at the Card Room's table (west of the square), \
where anyone may watch; you may deal from anywhere. Get close to 21 without going over; the \
dealer draws to 17.",
    more: None,
    more_with: None,
};

/// Blackjack against the house: the Card Room's table and the three blackjack tools.
pub static MODULE: moot_kernel::verbs::game_module::GameModule =
    moot_kernel::verbs::game_module::GameModule {
        start: Some("deal"),
        skill: Some(
            "At `/mcp/blackjack`, `blackjack_deal` deals a hand against the house, `blackjack_hit` \
         draws a card and `blackjack_stand` lets the dealer play out; each answers in seed \
         001's words (`Dealer: …`, `Player: …`, then `Player wins!`, `Dealer wins!`, `Bust! \
         Dealer wins!` or `Push! Dealer wins!` when the hand ends).",
        ),
        ..moot_kernel::verbs::game_module::GameModule::plain(
            "blackjack",
            &[moot_kernel::game_api::template::<rules::Blackjack>()],
            &[
                moot_kernel::verbs::entry::<Deal>(),
                moot_kernel::verbs::entry::<Hit>(),
                moot_kernel::verbs::entry::<Stand>(),
            ],
            TOPIC,
        )
    };
