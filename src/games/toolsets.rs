//! `toolsets`: the sets of tools and where each is served, so an agent at the plain `/mcp`
//! (the town's set) finds the rest one address away.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use moot_kernel::verbs::{NoArgs, Reply, Verb, VerbError, no_args};
use moot_kernel::world::{Cx, World};

pub struct Toolsets;

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ToolsetList {
    pub toolsets: Vec<ToolsetInfo>,
}

#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct ToolsetInfo {
    pub name: String,
    /// Its address over Streamable HTTP, after moot's own (`/mcp/chess`).
    pub path: String,
    /// How to serve it over stdio.
    pub stdio: String,
    pub summary: String,
    /// Its tools' names.
    pub tools: Vec<String>,
    /// Only wizards may use it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wizards_only: bool,
}

impl Verb for Toolsets {
    const NAME: &'static str = "toolsets";
    const USAGE: &'static str = "toolsets";
    const SUMMARY: &'static str = "Where each set of MCP tools is served (chess, blackjack, \
werewolf…).";
    const HELP: &'static str = "Agents load tools by set: the town's at /mcp, each other set at \
its own address, /mcp/<set> (or `moot mcp --tools <set>` over stdio). Lists each set, its \
address and its tools.";
    const READ_ONLY: bool = true;
    const TOOL_DESCRIPTION: &'static str = "List the sets of MCP tools and where each is served \
(`/mcp/<set>` over HTTP, `moot mcp --tools <set>` over stdio); needs nothing. Returns each set's \
name, what it is for, its address and its tools.";
    const TOPIC: moot_kernel::verbs::Topic = moot_kernel::verbs::Topic::AGENTS;
    type Args = NoArgs;
    type Output = ToolsetList;

    fn parse(rest: &str) -> Result<NoArgs, VerbError> {
        no_args::<Toolsets>(rest)
    }

    fn run(_: &mut World, _: &mut Cx, _: NoArgs) -> Result<Reply<ToolsetList>, VerbError> {
        let toolsets: Vec<ToolsetInfo> = super::toolsets()
            .iter()
            .copied()
            .map(|t| ToolsetInfo {
                name: t.name.to_owned(),
                path: super::toolset_path(&t),
                stdio: format!("moot mcp --tools {}", t.name),
                summary: t.summary.to_owned(),
                tools: super::tools_in(&[t])
                    .map(|e| e.tool_name().to_owned())
                    .collect(),
                wizards_only: t.wizards_only,
            })
            .collect();
        let mut text = vec!["Sets of MCP tools (the town's is also at /mcp):".to_owned()];
        for t in &toolsets {
            text.push(format!(
                "  {:<10} {:<14} {} ({} tools)",
                t.name,
                t.path,
                t.summary,
                t.tools.len()
            ));
        }
        Ok(Reply::new(text, ToolsetList { toolsets }))
    }
}
