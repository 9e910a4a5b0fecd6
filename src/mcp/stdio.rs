//! `moot mcp`: the MCP server over stdio, for an agent that runs moot as its own tool server.
//! Standalone: an in-process town (in memory unless `--db`), and the process is one player,
//! one game session per client connection, as the blackjack tools expect. Everything it logs goes to stderr.

use rmcp::ServiceExt;

use super::MootMcp;
use crate::config::McpArgs;
use moot_kernel::store::Store;
use moot_kernel::verbs::Toolset;

/// Serves MCP on stdin/stdout until the client goes away.
pub async fn serve(args: McpArgs) -> Result<(), Box<dyn std::error::Error>> {
    if let (Some(url), Some(token)) = (args.server.clone(), args.token.clone()) {
        return super::bridge::run(url, token).await;
    }
    let sets = toolsets(&args.tools)?;
    let (store, db_name) = match &args.db {
        Some(db) => (
            Store::open(
                db,
                moot_kernel::store::StoreOptions {
                    exclusive: true,
                    ..Default::default()
                },
            )?,
            db.to_string(),
        ),
        None => (Store::open_in_memory()?, "(memory)".to_owned()),
    };
    // One process, one agent: it stays as long as the process does.
    let core = crate::startup::open(
        args.world.as_deref(),
        store,
        &db_name,
        moot_kernel::world::TaskOptions::default(),
        None,
    )
    .await?;
    let existing = match &args.name {
        Some(n) => core.store.agent_by_name(n).await?,
        None => None,
    };
    let agent_id = match existing {
        Some(row) => row.agent_id,
        None => {
            let made = moot_kernel::identity::register_agent(
                &core.store,
                &core.directory,
                args.name.clone(),
                &core.start_room,
                // Made by whoever runs the process on this machine: its own owner and maker.
                None,
                Default::default(),
            )
            .await?;
            tracing::info!(name = %made.row.name, "playing as a new character");
            made.row.agent_id
        }
    };
    let server = MootMcp::new(
        core.world.clone(),
        core.store.clone(),
        Some(agent_id.as_str().into()),
        sets,
    );
    let running = server.serve(rmcp::transport::stdio()).await?;
    let mut world_task = core.world_task;
    tokio::select! {
        served = running.waiting() => {
            served?;
        }
        // A world that ended unasked (a bug it could not undo) leaves nothing to serve: the
        // host sees the server exit with a failure instead of tools that never answer.
        _ = &mut world_task => {
            return Err("the world task ended unasked; moot stops (a restart replays the database)".into());
        }
    }
    drop(core.world);
    let _ = world_task.await;
    core.store.close().await;
    Ok(())
}

/// The sets named by `--tools`, or the town's when none is named.
fn toolsets(names: &[String]) -> Result<Vec<Toolset>, String> {
    if names.is_empty() {
        return Ok(vec![Toolset::TOWN]);
    }
    names
        .iter()
        .map(|n| {
            crate::games::toolset_named(n.trim()).ok_or_else(|| {
                let known: Vec<&str> = crate::games::toolsets().iter().map(|t| t.name).collect();
                format!(
                    "There is no set of tools called `{n}`; the sets are {}.",
                    known.join(", ")
                )
            })
        })
        .collect()
}
