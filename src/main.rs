use clap::Parser;

use moot::Config;
use moot::config::{
    AdminCommand, ArenaCommand, Command, DbCommand, RatingsCommand, WorldArgs, WorldCommand,
};

fn main() -> std::process::ExitCode {
    let config = Config::parse();
    moot::logging::init(config.log_format);
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    let done = |what: &str, r: Result<String, String>| match r {
        Ok(said) => {
            if !said.is_empty() {
                println!("{said}");
            }
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("moot {what}: {e}");
            std::process::ExitCode::FAILURE
        }
    };
    match config.command.clone() {
        Some(Command::Mcp(args)) => {
            return runtime.block_on(async move {
                done(
                    "mcp",
                    moot::mcp::stdio::serve(args)
                        .await
                        .map(|()| String::new())
                        .map_err(|e| e.to_string()),
                )
            });
        }
        Some(Command::World(WorldArgs {
            command: Some(WorldCommand::Export { dir, db }),
            ..
        })) => {
            let db = db.or(&config);
            return done(
                "world export",
                runtime.block_on(export(config.world.as_deref(), &db, &dir)),
            );
        }
        Some(Command::Backup { db, file }) => {
            let db = db.or(&config);
            return done(
                "backup",
                match db.sqlite_path() {
                    Some(db) => moot::store::backup::backup(db, &file, |p| {
                        eprintln!("backup: {} of {} pages copied", p.copied, p.total)
                    })
                    .map(|p| {
                        format!(
                            "Backed up {} ({} pages) to {}.",
                            db.display(),
                            p.total,
                            file.display()
                        )
                    })
                    .map_err(|e| e.to_string()),
                    None => Err("moot backup copies an SQLite file; back up a PostgreSQL \
                                 database with pg_dump (see docs/operating.md)"
                        .into()),
                },
            );
        }
        Some(Command::Admin { db, command }) => {
            return done("admin", runtime.block_on(admin(&db.or(&config), command)));
        }
        Some(Command::Db(DbCommand::Copy { from, to })) => {
            return done(
                "db copy",
                runtime.block_on(moot::store::copy::copy(&from, &to, |table, rows| {
                    eprintln!("db copy: {table}: {rows} rows")
                })),
            );
        }
        Some(Command::Ratings {
            db,
            command: RatingsCommand::Rebuild,
        }) => {
            return done(
                "ratings rebuild",
                runtime.block_on(moot::startup::rebuild_ratings(&db.or(&config))),
            );
        }
        Some(Command::World(WorldArgs {
            command: None,
            nats: None,
            ..
        })) => {
            return done(
                "world",
                Err("give --nats URL to run the world for hosts, or `export DIR`".into()),
            );
        }
        Some(Command::World(WorldArgs {
            command: None,
            nats: Some(nats),
            broker_is_private,
        })) => {
            let broker = if broker_is_private {
                moot::cluster::nats::Broker::Private
            } else {
                moot::cluster::nats::Broker::Authenticated
            };
            return runtime.block_on(serve(moot::server::start_world(config, &nats, broker)));
        }
        Some(Command::Arena(ArenaCommand::Run { spec, out })) => {
            return done("arena run", runtime.block_on(moot::arena::run(&spec, &out)));
        }
        Some(Command::Arena(ArenaCommand::Check { db, report })) => {
            return done(
                "arena check",
                runtime.block_on(moot::arena::check(&report, &db.or(&config))),
            );
        }
        Some(Command::Games(args)) => {
            let broker = if args.broker_is_private {
                moot::cluster::nats::Broker::Private
            } else {
                moot::cluster::nats::Broker::Authenticated
            };
            return runtime.block_on(serve(moot::server::start_games(
                config, &args.nats, &args.name, broker,
            )));
        }
        Some(Command::Host(args)) => {
            return runtime.block_on(serve(async move {
                moot::server::start_host(config, &args.nats, args.host_name.as_deref())
                    .await
                    .map(|host| host.running)
            }));
        }
        None => {}
    }
    runtime.block_on(serve(async move {
        moot::start(config).await.map(|server| server.running)
    }))
}

/// Runs a moot until a signal, a wizard's `@shutdown` or a failure stops it.
async fn serve(
    started: impl std::future::Future<Output = Result<moot::server::Running, moot::server::StartError>>,
) -> std::process::ExitCode {
    {
        let server = match started.await {
            Ok(s) => s,
            Err(e) => {
                eprintln!("moot: {e}");
                return std::process::ExitCode::FAILURE;
            }
        };
        let code = tokio::select! {
            _ = wait_for_signal() => std::process::ExitCode::SUCCESS,
            // A wizard's @shutdown is a clean stop; a database that refused every write is not.
            _ = server.stopped() => if server.asked_to_stop() {
                std::process::ExitCode::SUCCESS
            } else {
                std::process::ExitCode::FAILURE
            },
        };
        tracing::info!("shutting down");
        if server.failed() {
            // Without a world, saying goodbye could wait on what will never answer: a
            // supervisor is better served by a prompt exit than a polite one.
            let _ =
                tokio::time::timeout(std::time::Duration::from_secs(5), server.shutdown()).await;
        } else {
            server.shutdown().await;
        }
        code
    }
}

/// `moot world export DIR`: the town's files (`world`, or the built-in ones) with what was
/// built in `db` added, if there is such a database.
async fn export(
    world: Option<&std::path::Path>,
    db: &moot::store::Database,
    dir: &std::path::Path,
) -> Result<String, String> {
    let base = match world {
        Some(w) => moot::world::export::read(w).map_err(|e| format!("{}: {e}", w.display()))?,
        None => moot::world::built_in::FILES
            .iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
            .collect(),
    };
    let from = match world {
        Some(w) => w.display().to_string(),
        None => "the built-in town".to_owned(),
    };
    // An SQLite file that is not there is no town to read (and is not made by reading it).
    let (built, verbs) = match db.sqlite_path() {
        Some(p) if !p.exists() => (Vec::new(), Vec::new()),
        _ => {
            let store = moot::store::Store::open(db, moot::store::StoreOptions::default())
                .map_err(|e| format!("{db}: {e}"))?;
            (
                store.built().await.map_err(|e| e.to_string())?,
                store.programs().await.map_err(|e| e.to_string())?,
            )
        }
    };
    let (files, done) = moot::world::export::export(base, &built, &verbs)?;
    moot::world::export::write(dir, &files).map_err(|e| e.to_string())?;
    let mut said = format!("Wrote {from} to {}", dir.display());
    if done != moot::world::export::Exported::default() {
        let count = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        said.push_str(&format!(
            ", with what was built in {db}: {}, {}, {}, {}",
            count(done.rooms, "room", "rooms"),
            count(done.exits, "exit", "exits"),
            count(done.things, "thing", "things"),
            count(done.verbs, "verb", "verbs")
        ));
        if done.left_out > 0 {
            said.push_str(&format!(
                " ({} carried or stranded things left out)",
                done.left_out
            ));
        }
    }
    said.push('.');
    Ok(said)
}

/// `moot admin …`: the wizards' and builders' roles, in the database given by --db.
async fn admin(db: &moot::store::Database, cmd: AdminCommand) -> Result<String, String> {
    let store = moot::store::Store::open(db, moot::store::StoreOptions::default())
        .map_err(|e| format!("{db}: {e}"))?;
    let on = matches!(
        cmd,
        AdminCommand::Grant { .. } | AdminCommand::Builder { .. } | AdminCommand::Programmer { .. }
    );
    let result = match cmd {
        AdminCommand::Grant { name } | AdminCommand::Revoke { name } => {
            return match store.set_wizard(&name, on, "command line").await {
                Ok(Some(n)) if on => Ok(format!("{n} is a wizard now (from their next login).")),
                Ok(Some(n)) => Ok(format!("{n} is no longer a wizard.")),
                Ok(None) => Err(format!("there is no character called \"{name}\"")),
                Err(e) => Err(e.to_string()),
            };
        }
        AdminCommand::Builder { name } | AdminCommand::Unbuilder { name } => {
            return match store.set_builder(&name, on, "command line").await {
                Ok(Some(n)) if on => Ok(format!("{n} may build now (from their next login).")),
                Ok(Some(n)) => Ok(format!("{n} may no longer build.")),
                Ok(None) => Err(format!("there is no character called \"{name}\"")),
                Err(e) => Err(e.to_string()),
            };
        }
        AdminCommand::Programmer { name } | AdminCommand::Unprogrammer { name } => {
            return match store.set_programmer(&name, on, "command line").await {
                Ok(Some(n)) if on => Ok(format!("{n} may program now (from their next login).")),
                Ok(Some(n)) => Ok(format!("{n} may no longer program.")),
                Ok(None) => Err(format!("there is no character called \"{name}\"")),
                Err(e) => Err(e.to_string()),
            };
        }
        AdminCommand::List => store.wizards().await.map(|w| {
            if w.is_empty() {
                "There are no wizards.".to_owned()
            } else {
                w.join("\n")
            }
        }),
    };
    result.map_err(|e| e.to_string())
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
