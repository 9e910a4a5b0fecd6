//! `@token`: an API token for your character, so that a program (REST now, MCP later) can act
//! as you. Tokens are stored only as hashes, so one is shown once, when it is made.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::parse::{opt_text, whole};
use super::{Reply, Topic, Verb, VerbError, usage};
use crate::identity::issue_token;
use crate::store::writes;
use crate::world::{Cx, World};

pub struct Token;

#[derive(Debug, Default, Serialize, Deserialize, JsonSchema)]
pub struct TokenArgs {
    /// Make a new token even if you have one; the old one stops working.
    #[serde(default)]
    pub new: bool,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct TokenInfo {
    pub agent_id: String,
    /// The new token; absent if you had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl Verb for Token {
    const NAME: &'static str = "token";
    const ALIASES: &'static [&'static str] = &["@token"];
    const USAGE: &'static str = "@token [new]";
    const SUMMARY: &'static str = "An API token for programs that act as you (`new`: another).";
    const HELP: &'static str = "Programs use a bearer token to act as your character through moot's \
HTTP API (`Authorization: Bearer <token>`). `@token` makes one if you have none and shows it; \
tokens are kept only as a hash, so it is shown once: keep it safe. `@token new` makes a new one \
and the old one stops working at once.";
    const READ_ONLY: bool = false;
    const TOOL_DESCRIPTION: &'static str = "Get the bearer token programs use to act as you over \
HTTP, made if you have none; with `new`, a new one replaces it. Returns your agent id and the \
token, which is shown only when it is made.";
    const TOPIC: Topic = Topic::AGENTS;
    type Args = TokenArgs;
    type Output = TokenInfo;

    fn parse(rest: &str) -> Result<TokenArgs, VerbError> {
        match whole(rest, opt_text, usage::<Token>)? {
            None => Ok(TokenArgs { new: false }),
            Some(w) if w.eq_ignore_ascii_case("new") => Ok(TokenArgs { new: true }),
            Some(_) => Err(usage::<Token>()),
        }
    }

    fn run(world: &mut World, cx: &mut Cx, args: TokenArgs) -> Result<Reply<TokenInfo>, VerbError> {
        let agent_id = cx.actor.to_string();
        if world.directory.has_token(&agent_id) && !args.new {
            return Ok(Reply::new(
                vec![
                    "You already have an API token. It is stored only as a hash, so it cannot be \
                     shown again; `@token new` makes a new one (and the old one stops working)."
                        .into(),
                ],
                TokenInfo {
                    agent_id,
                    token: None,
                },
            ));
        }
        let issued = issue_token(&agent_id);
        let old = world.directory.set_token(&agent_id, Some(&issued.hash));
        let who = agent_id.clone();
        let write = writes::set_token_hash(agent_id.clone(), issued.hash.clone());
        let audit_id = agent_id.clone();
        cx.save(
            move |c| {
                write(c)?;
                tracing::info!(target: crate::logging::AUDIT, event = "token_issued", agent_id = %audit_id);
                Ok(())
            },
            move |w| {
                w.directory.set_token(&who, old.as_deref());
            },
        );
        Ok(Reply::new(
            vec![
                format!("Your API token: {}", issued.token),
                "Keep it secret: it lets a program act as you. It will not be shown again.".into(),
            ],
            TokenInfo {
                agent_id,
                token: Some(issued.token),
            },
        ))
    }
}
