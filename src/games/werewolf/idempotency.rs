//! Idempotency keys for the Werewolf tools (fix 11 in `catalog`): the one wrapper every tool that
//! takes an `idempotencyKey` runs through, and the answers kept under the keys, which a restart
//! takes back from the database.

use serde_json::Value;

use super::{WerewolfTown, refusal};
use moot_kernel::game_api::Code;
use moot_kernel::verbs::VerbError;
use moot_kernel::world::{AgentId, Cx, World};

use moot_kernel::store::keys::{KEPT_PER_IDENTITY, KeptRow};

/// A call made with an idempotency key, and the answer it got.
#[derive(Debug)]
pub struct Keyed {
    tool: String,
    key: String,
    args: Value,
    answer: (Vec<String>, Value),
}

/// Takes back the answers kept under idempotency keys before a restart.
pub fn keep_answers(world: &mut World, kept: &[KeptRow]) {
    let keys = &mut world.ext::<WerewolfTown>().keys;
    for row in kept {
        let (Ok(args), Ok(answer)) = (
            serde_json::from_str(&row.args),
            serde_json::from_str(&row.answer),
        ) else {
            tracing::warn!(agent = %row.agent_id, key = %row.key, "an unreadable kept answer is skipped");
            continue;
        };
        let list = keys.entry(AgentId::from(row.agent_id.clone())).or_default();
        list.push_back(Keyed {
            tool: row.tool.clone(),
            key: row.key.clone(),
            args,
            answer,
        });
        if list.len() > KEPT_PER_IDENTITY {
            list.pop_front();
        }
    }
}

/// Runs `f` once per (caller, tool, key), for the match's life: a retry with the same key and the
/// same arguments gets the first answer again and changes nothing; the same key with other
/// arguments is `IDEMPOTENCY_KEY_REUSED`. Only answers that did something are kept (a refused
/// call may be retried), the newest [`KEPT_PER_IDENTITY`] of each identity. The answer is
/// stored with the change it answers, and forgotten with it if that is not stored; a restart
/// takes it back ([`keep_answers`]).
pub fn once<V: moot_kernel::verbs::Verb>(
    world: &mut World,
    cx: &mut Cx,
    key: Option<String>,
    args: V::Args,
    f: impl FnOnce(&mut World, &mut Cx, V::Args) -> Result<moot_kernel::verbs::Reply<Value>, VerbError>,
) -> Result<moot_kernel::verbs::Reply<Value>, VerbError> {
    let tool = V::TOOL.name.unwrap_or(V::NAME);
    let Some(key) = key else {
        return f(world, cx, args);
    };
    let key = key.as_str();
    if !(8..=128).contains(&key.chars().count()) {
        return Err(refusal(
            world,
            Code::InvalidRequest,
            "An idempotencyKey is 8 to 128 characters",
            None,
        ));
    }
    #[expect(
        clippy::expect_used,
        reason = "the tools' arguments are plain structs of strings, numbers and flags"
    )]
    let mut seen = serde_json::to_value(&args).expect("arguments serialize");
    if let Some(o) = seen.as_object_mut() {
        o.remove("idempotencyKey");
    }
    let me = cx.actor.clone();
    let town = world.ext::<WerewolfTown>();
    let earlier = town
        .keys
        .get(&me)
        .and_then(|l| l.iter().find(|k| k.tool == tool && k.key == key))
        .map(|k| (k.args == seen, k.answer.clone()));
    match earlier {
        Some((true, (text, data))) => return Ok(moot_kernel::verbs::Reply::new(text, data)),
        Some((false, _)) => {
            return Err(refusal(
                world,
                Code::IdempotencyKeyReused,
                &format!("The key `{key}` was used for {tool} with other arguments"),
                None,
            ));
        }
        None => {}
    }
    let reply = f(world, cx, args)?;
    let answer = (reply.text.clone(), reply.data.clone());
    #[expect(
        clippy::expect_used,
        reason = "lines and a JSON value always serialize"
    )]
    let row = KeptRow {
        agent_id: me.to_string(),
        tool: tool.to_owned(),
        key: key.to_owned(),
        args: seen.to_string(),
        answer: serde_json::to_string(&answer).expect("an answer serializes"),
    };
    let list = world
        .ext::<WerewolfTown>()
        .keys
        .entry(me.clone())
        .or_default();
    list.push_back(Keyed {
        tool: tool.to_owned(),
        key: key.to_owned(),
        args: seen,
        answer,
    });
    if list.len() > KEPT_PER_IDENTITY {
        list.pop_front();
    }
    let key = key.to_owned();
    cx.save(moot_kernel::store::keys::keep(row), move |w| {
        if let Some(l) = w.ext::<WerewolfTown>().keys.get_mut(&me) {
            l.retain(|k| !(k.tool == tool && k.key == key));
        }
    });
    Ok(reply)
}
