//! `moot mcp`: the MCP server over stdio, for an agent that runs moot as its own tool server.
//! Standalone: an in-process town (in memory unless `--db`), and the process is one player,
//! the seed's "one session per client connection". Everything it logs goes to stderr.

use std::path::PathBuf;

use rmcp::ServiceExt;

use super::MootMcp;
use crate::store::{CreateError, Store};

#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// Keep the town in this SQLite file (created when missing); in memory when absent.
    #[arg(long, env = "MOOT_DB")]
    pub db: Option<PathBuf>,

    /// Directory holding the town: world.toml and rooms/*.toml.
    #[arg(long, env = "MOOT_WORLD", default_value = "world")]
    pub world: PathBuf,

    /// The character this process plays: found by name in the database, or made.
    #[arg(long, env = "MOOT_NAME")]
    pub name: Option<String>,

    /// Join a running moot instead (its MCP endpoint, e.g. http://127.0.0.1:8080/mcp), so the
    /// agent shares the town with everyone; needs --token.
    #[arg(long, env = "MOOT_SERVER", requires = "token")]
    pub server: Option<String>,

    /// The agent's API token for --server (from POST /agents, or `token` on telnet).
    #[arg(long, env = "MOOT_TOKEN")]
    pub token: Option<String>,
}

/// Serves MCP on stdin/stdout until the client goes away.
pub async fn serve(args: McpArgs) -> Result<(), Box<dyn std::error::Error>> {
    if let (Some(url), Some(token)) = (args.server.clone(), args.token.clone()) {
        return super::bridge::run(url, token).await;
    }
    let (store, db_name) = match &args.db {
        Some(path) => (
            Store::open(path, crate::store::StoreOptions::default())?,
            path.display().to_string(),
        ),
        None => (Store::open_in_memory()?, "(memory)".to_owned()),
    };
    // One process, one agent: it stays as long as the process does.
    let core = crate::server::open(
        &args.world,
        store,
        &db_name,
        crate::world::TaskOptions::default(),
    )
    .await?;
    let existing = match &args.name {
        Some(n) => core.store.agent_by_name(n).await?,
        None => None,
    };
    let agent_id = match existing {
        Some(row) => row.agent_id,
        None => {
            if let Some(n) = &args.name {
                crate::identity::validate_name(n)?;
            }
            let id = crate::store::new_agent_id();
            let token = crate::identity::issue_token(&id);
            let row = core
                .store
                .create_agent(id, args.name.clone(), token.hash, &core.start_room)
                .await
                .map_err(|e| match e {
                    CreateError::NameTaken => "that name is taken".to_owned(),
                    CreateError::Store(e) => e.to_string(),
                })?;
            core.directory
                .insert(&row.agent_id, &row.name, row.token_hash.as_deref());
            tracing::info!(name = %row.name, "playing as a new character");
            row.agent_id
        }
    };
    let server = MootMcp::new(
        core.world.clone(),
        core.store.clone(),
        Some(agent_id.as_str().into()),
    );
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    drop(core.world);
    let _ = core.world_task.await;
    core.store.close().await;
    Ok(())
}
