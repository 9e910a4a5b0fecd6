//! Where log lines go and how they look: stderr always (stdout is MCP's channel under
//! `moot mcp`), colour only when stderr is a terminal and NO_COLOR is unset (a log file or an
//! MCP host's pipe gets no escape codes), and one JSON object per line with `--log-format json`.
//! Audit events (logins, tokens, wizards' acts, matches) are ordinary events on the
//! `moot::audit` target, so a collector can pick them out by it.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// How log lines are written to stderr (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One readable line per event (coloured on a terminal).
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// The target of audit lines: `RUST_LOG=moot::audit=info` shows them alone.
pub const AUDIT: &str = "moot::audit";

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("moot=info"));
    let builder = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter);
    match format {
        LogFormat::Text => {
            let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            builder.with_ansi(colour).init();
        }
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_current_span(false)
            .init(),
    }
}
