use clap::Parser;
use tracing_subscriber::EnvFilter;

use moot::Config;

fn main() -> std::process::ExitCode {
    let config = Config::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("moot=info")),
        )
        .init();
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    if let Some(moot::config::Command::Mcp(args)) = config.command.clone() {
        return runtime.block_on(async move {
            match moot::mcp::stdio::serve(args).await {
                Ok(()) => std::process::ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("moot mcp: {e}");
                    std::process::ExitCode::FAILURE
                }
            }
        });
    }
    runtime.block_on(async move {
        let server = match moot::start(config).await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("moot: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        let code = tokio::select! {
            _ = wait_for_signal() => std::process::ExitCode::SUCCESS,
            _ = server.stopped() => std::process::ExitCode::FAILURE,
        };
        tracing::info!("shutting down");
        server.shutdown().await;
        code
    })
}

async fn wait_for_signal() {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .expect("a SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

/// mimalloc: every request allocates and frees small buffers on several threads, where glibc's
/// allocator showed up at about 15% of the server's time in profiles.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
