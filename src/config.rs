//! How moot is configured: every setting is a command-line flag with a `MOOT_…` environment
//! variable behind it and an embedded default, so `moot` with no arguments runs a local town.

pub use moot_kernel::logging::LogFormat;
pub use moot_kernel::store::SyncMode;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

/// The longest input line moot accepts, in bytes (before telnet sequences are removed).
pub const MAX_LINE_BYTES: usize = 4096;

#[derive(Debug, Clone, Parser)]
#[command(
    name = "moot",
    version,
    about = "A MOO-style text world where people on telnet and AI agents share one town.",
    long_about = "A MOO-style text world where people on telnet and AI agents share one town.\n\n\
        With no arguments moot serves telnet on 127.0.0.1:7777, keeps its database in ./moot.db \
        (created when missing) and serves the town built into it (--world DIR serves another; \
        `moot world export DIR` writes the built-in one out to edit). Connect with \
        `telnet localhost 7777`.\n\n\
        Logs go to stderr, coloured only on a terminal; set RUST_LOG (e.g. RUST_LOG=moot=debug) \
        to choose what is logged."
)]
pub struct Config {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// Serve Prometheus metrics at /metrics to requests bearing this token
    /// (`Authorization: Bearer TOKEN`); without it, or with an empty one, /metrics is off.
    #[arg(long, env = "MOOT_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,

    /// The URL people and MCP hosts reach moot's HTTP listener at (e.g. https://moot.example,
    /// behind a TLS proxy), for OAuth's metadata; without it, the request's own host.
    #[arg(long, env = "MOOT_PUBLIC_URL", value_parser = public_url)]
    pub public_url: Option<String>,

    /// How log lines are written: `text` or `json` (one object per line).
    #[arg(long, env = "MOOT_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text, global = true)]
    pub log_format: LogFormat,

    /// Address of the telnet listener.
    #[arg(
        long,
        env = "MOOT_TELNET",
        default_value = "127.0.0.1:7777",
        global = true
    )]
    pub telnet: SocketAddr,

    /// Offer modern MUD clients (Mudlet, TinTin++, MUSHclient) GMCP and MSSP and ask for NAWS on
    /// every telnet connection. Off by default: tkMOO-light prints any negotiation as garbage.
    #[arg(long, env = "MOOT_TELNET_NEGOTIATE")]
    pub telnet_negotiate: bool,

    /// Address of the HTTP listener (the REST API).
    #[arg(
        long,
        env = "MOOT_HTTP",
        default_value = "127.0.0.1:8080",
        global = true
    )]
    pub http: SocketAddr,

    /// Where the town is kept: an SQLite file (created when missing) or a PostgreSQL
    /// database's URL, `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (the database must
    /// exist; moot makes its tables).
    #[arg(long, env = "MOOT_DB", default_value = "moot.db")]
    pub db: moot_kernel::store::Database,

    /// Directory holding the town: world.toml and rooms/*.toml; without it, the town built
    /// into moot.
    #[arg(long, env = "MOOT_WORLD")]
    pub world: Option<PathBuf>,

    /// SQLite durability: `normal` survives a killed process, `full` also a power cut.
    /// (PostgreSQL's is its server's `synchronous_commit`.)
    #[arg(long, env = "MOOT_SYNC", value_enum, default_value_t = SyncMode::Normal)]
    pub sync: SyncMode,

    /// How long a write waits for another process holding the database's lock before the
    /// action is refused as STORAGE_UNAVAILABLE (nothing changes; the caller may retry).
    #[arg(long, env = "MOOT_DB_BUSY_TIMEOUT", default_value = "2s")]
    pub db_busy_timeout: humantime::Duration,

    /// How long a host (`moot host`) keeps its connections while the world is away (restarting,
    /// or the broker unreachable), before closing them with a message.
    #[arg(long, env = "MOOT_WORLD_WAIT", default_value = "5m", global = true)]
    pub world_wait: humantime::Duration,

    /// How long the database may keep refusing every write before moot stops, rather than
    /// serve a world it cannot store.
    #[arg(long, env = "MOOT_STORAGE_GIVE_UP", default_value = "60s")]
    pub storage_give_up: humantime::Duration,

    /// Draw every session's randomness (cards, the computer's choices) from this seed instead
    /// of the operating system's, so that a run can be reproduced: for tests and demonstrations,
    /// never for a town whose players must not predict the cards.
    #[arg(long, env = "MOOT_SEED")]
    pub seed: Option<u64>,

    /// Run every game timer (chess clocks, phase deadlines) this many times faster than the
    /// wall clock: for tests and demonstrations.
    #[arg(long, env = "MOOT_TIME_SCALE", default_value_t = 1.0, value_parser = time_scale)]
    pub time_scale: f64,

    /// Connections served at once; past it a newcomer is told the town is full and closed.
    #[arg(long, env = "MOOT_MAX_CONNECTIONS", default_value_t = 10_000)]
    pub max_connections: usize,

    /// Telnet connections one address (an IPv4 address, or an IPv6 /64) may hold at the login
    /// screen at once; past it that address's newcomer is told so and closed, so that idle
    /// connections from one address cannot fill the town (0: no limit). Logged-in connections
    /// do not count.
    #[arg(long, env = "MOOT_MAX_LOGINS_PER_ADDRESS", default_value_t = 64)]
    pub max_logins_per_address: usize,

    /// HTTP connections open at once; past it a newcomer gets 503 and is closed.
    #[arg(long, env = "MOOT_MAX_HTTP_CONNECTIONS", default_value_t = 2048)]
    pub max_http_connections: usize,

    /// HTTP connections one address (an IPv4 address, or an IPv6 /64) may hold open at once;
    /// past it that address's newcomer gets 429 and is closed, so that one address cannot take
    /// every connection (0: no limit). A browser holds a handful per tab.
    #[arg(
        long,
        env = "MOOT_MAX_HTTP_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256
    )]
    pub max_http_connections_per_address: usize,

    /// How long an HTTP client may take to send a request's head (and its first byte); a
    /// kept-alive connection idle this long is closed too.
    #[arg(long, env = "MOOT_HTTP_HEADER_TIMEOUT", default_value = "10s")]
    pub http_header_timeout: humantime::Duration,

    /// Running game sessions one identity may take part in and still start another, and chess
    /// games made with `createGame` it may have waiting for an opponent (0: no limit); each
    /// holds memory until it ends.
    #[arg(long, env = "MOOT_SESSIONS_PER_AGENT", default_value_t = 50)]
    pub sessions_per_agent: usize,

    /// Rooms, exits and things one builder may own (wizards: no limit).
    #[arg(long, env = "MOOT_BUILDER_OBJECTS", default_value_t = 200)]
    pub builder_objects: usize,

    /// Bytes of names and descriptions one builder's objects may hold in all (wizards: no
    /// limit).
    #[arg(long, env = "MOOT_BUILDER_TEXT", default_value_t = 65536)]
    pub builder_text: usize,

    /// Operations one run of a programmed verb may take before it is stopped (Rhai's count: an
    /// expression, a loop's turn, a call).
    #[arg(long, env = "MOOT_VERB_OPS", default_value_t = 100_000)]
    pub verb_ops: u64,

    /// How long one run of a programmed verb may take before it is stopped.
    #[arg(long, env = "MOOT_VERB_TIME", default_value = "1s")]
    pub verb_time: humantime::Duration,

    /// Bytes any one string a programmed verb makes may hold (its arrays and maps are held to a
    /// share of it).
    #[arg(long, env = "MOOT_VERB_MEMORY", default_value_t = 65536)]
    pub verb_memory: usize,

    /// Runs a second of one owner's programmed verbs, whoever types them (0: no limit), and
    /// the burst.
    #[arg(long, env = "MOOT_VERB_RATE", default_value_t = 5.0)]
    pub verb_rate: f64,
    #[arg(long, env = "MOOT_VERB_BURST", default_value_t = 10)]
    pub verb_burst: u32,

    /// How long an invitation to a game (a session naming someone besides its creator, a
    /// challenge) waits for every player's answer before it lapses.
    #[arg(long, env = "MOOT_INVITATION_LAPSE", default_value = "10m")]
    pub invitation_lapse: humantime::Duration,

    /// Identities made anonymously (a character at the login screen, `POST /agents`) from one
    /// address within this long of the last one made there count as one owner's: they never
    /// rate each other, and their games against anyone count as one owner's toward the daily
    /// limit (0s: each its own owner).
    #[arg(long, env = "MOOT_OWNER_WINDOW", default_value = "1d")]
    pub owner_window: humantime::Duration,

    /// MCP sessions (of the 2025-11-25 revision, opened by `initialize`) one agent may hold
    /// open at once (0: no limit).
    #[arg(long, env = "MOOT_MCP_SESSIONS_PER_AGENT", default_value_t = 8)]
    pub mcp_sessions_per_agent: usize,

    /// Long polls (`waitForNextTurn`) one agent may have waiting at once (0: no limit).
    #[arg(long, env = "MOOT_POLLS_PER_AGENT", default_value_t = 4)]
    pub polls_per_agent: usize,

    /// Commands per second a connection may sustain before moot slows it down (0: no limit).
    #[arg(long, env = "MOOT_COMMAND_RATE", default_value_t = 10.0)]
    pub command_rate: f64,

    /// Reads of a game's state and events (Werewolf's get_state, events.get, matches.list,
    /// queue.status) one identity may make a second, whatever the face (2 by default;
    /// 0: no limit). A long poll is one read.
    #[arg(long, env = "MOOT_READ_RATE", default_value_t = 2.0)]
    pub read_rate: f64,

    /// Commands a connection may send in a burst above the sustained rate.
    #[arg(long, env = "MOOT_COMMAND_BURST", default_value_t = 30)]
    pub command_burst: u32,

    /// A connected character silent this long is disconnected (0s: never).
    #[arg(long, env = "MOOT_IDLE_TIMEOUT", default_value = "1h")]
    pub idle_timeout: humantime::Duration,

    /// An agent without a connection (over MCP or REST) that has sent nothing this long
    /// leaves the town, and `who` and its room see it go (0s: never). One whose client ends
    /// its MCP session leaves at once.
    #[arg(long, env = "MOOT_AGENT_IDLE_TIMEOUT", default_value = "10m")]
    pub agent_idle_timeout: humantime::Duration,

    /// A connection that has not logged in within this time is closed (0s: never).
    #[arg(long, env = "MOOT_LOGIN_TIMEOUT", default_value = "5m")]
    pub login_timeout: humantime::Duration,

    /// While the town is nearly full (from three quarters of --max-connections open until
    /// under half are), a connection that has not logged in within this time is closed
    /// instead, those already at the login screen too: idle connections give way to people
    /// who log in.
    #[arg(long, env = "MOOT_CROWDED_LOGIN_TIMEOUT", default_value = "30s")]
    pub crowded_login_timeout: humantime::Duration,

    /// How long an MCP long poll (waitForNextTurn) waits before answering "call again".
    #[arg(long, env = "MOOT_WAIT_TIMEOUT", default_value = "30s")]
    pub wait_timeout: humantime::Duration,

    /// Login attempts (`connect`) admitted per minute from one address, in a burst of as many;
    /// one name may be tried half as often, from anywhere. Further attempts are refused until
    /// the count recovers (0: no limit).
    #[arg(long, env = "MOOT_LOGIN_RATE", default_value_t = 10.0)]
    pub login_rate: f64,

    /// Agents one address may make per minute through `POST /agents`, in a burst of as many
    /// (0: no limit).
    #[arg(long, env = "MOOT_AGENT_RATE", default_value_t = 30.0)]
    pub agent_rate: f64,

    /// Pause before answering a failed login, doubled for each further failure from the same
    /// address (after the third), up to 30 times this.
    #[arg(long, env = "MOOT_LOGIN_FAIL_DELAY", default_value = "1s")]
    pub login_fail_delay: humantime::Duration,

    /// Each game's own flags (`--werewolf-fill-after`, `--uci-engine`…), declared in its
    /// folder.
    #[command(flatten)]
    pub games: crate::games::Flags,
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum Command {
    /// Serve MCP over stdio: an in-process town for one agent (see `moot mcp --help`).
    Mcp(McpArgs),
    /// Run the world alone, for hosts across a NATS broker (`moot world --nats URL`), or
    /// work with the town's files (`moot world export DIR`).
    World(WorldArgs),
    /// Hold connections for a world across a NATS broker: telnet, the REST API, MCP and the
    /// web, each asking the world typed questions; no database (`moot host --nats URL --telnet
    /// ADDR --http ADDR`).
    Host(HostArgs),
    /// Own game sessions for a town across a NATS broker, with a database of its own (`moot
    /// --db games1.db games --nats URL --name games1`): it tells the town every moment that it
    /// is alive and how many sessions it runs.
    Games(GamesArgs),
    /// Copy the database (--db) to FILE while moot runs: a consistent snapshot, by SQLite's
    /// online backup. Restore by stopping moot and putting the copy in the database's place.
    Backup {
        #[command(flatten)]
        db: DbArg,
        /// Where to write the copy (must not exist yet).
        file: PathBuf,
    },
    /// Who may use the wizards' verbs (@boot, @ban, @shutdown, @announce).
    Admin {
        #[command(flatten)]
        db: DbArg,
        #[command(subcommand)]
        command: AdminCommand,
    },
    /// Ratings and records, derived from the action logs.
    Ratings {
        #[command(flatten)]
        db: DbArg,
        #[command(subcommand)]
        command: RatingsCommand,
    },
    /// The database as a whole.
    #[command(subcommand)]
    Db(DbCommand),
    /// A series of games between named agents, played reproducibly on a running moot (seeded
    /// deals, each from both sides), and its report checked against the stored logs
    /// (docs/arena.md).
    #[command(subcommand)]
    Arena(ArenaCommand),
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum ArenaCommand {
    /// Play the series SPEC (a TOML file) describes, over the server's REST API, and write
    /// report.json and report.html into --out (after every game, so a stopped series keeps
    /// what it played).
    Run {
        /// The series: the server, the game, the agents and their tokens, the deals and seed.
        spec: PathBuf,
        /// The folder the report is written to (made if missing).
        #[arg(long, default_value = "arena-report")]
        out: PathBuf,
    },
    /// Hold REPORT (a report.json) against the stored logs in --db: each game replayed from the
    /// database through its rules, with its seed.
    Check {
        #[command(flatten)]
        db: DbArg,
        /// The report to check.
        report: PathBuf,
    },
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum DbCommand {
    /// Copy a whole town from one database to another (SQLite to PostgreSQL, or back), with
    /// moot stopped; check that the copy reads back the same. TO must be empty.
    Copy {
        /// The database to copy: an SQLite file or a postgres:// URL.
        from: moot_kernel::store::Database,
        /// Where to copy it: a new SQLite file or an empty PostgreSQL database.
        to: moot_kernel::store::Database,
    },
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum RatingsCommand {
    /// Recompute every rating and record from the action logs in --db (moot stopped), say
    /// whether they equal what was stored, and store them.
    Rebuild,
}

#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WorldArgs {
    #[command(subcommand)]
    pub command: Option<WorldCommand>,

    /// The NATS broker the hosts reach this world through, e.g. nats://127.0.0.1:4222 (with
    /// nats://USER:PASSWORD@… or nats://TOKEN@… where the broker asks). The world takes the
    /// town's flags as one process does (--db, --world, --sync…), given before `world`.
    #[arg(long, env = "MOOT_NATS", hide_env_values = true)]
    pub nats: Option<String>,

    /// Serve through a broker that lets anyone connect without credentials, because nothing but
    /// this town's own processes can reach it. Without this the world refuses such a broker:
    /// whoever reaches it reads every password typed at a host and can log in as anyone.
    #[arg(long, env = "MOOT_BROKER_IS_PRIVATE")]
    pub broker_is_private: bool,
}

#[derive(Debug, Clone, clap::Args)]
pub struct HostArgs {
    /// The NATS broker the world serves on, e.g. nats://127.0.0.1:4222 (with
    /// nats://USER:PASSWORD@… or nats://TOKEN@… where the broker asks).
    #[arg(long, env = "MOOT_NATS", hide_env_values = true)]
    pub nats: String,

    /// This host's name on the broker, as the broker's permissions for its user name it
    /// (`moot.v10.from.NAME.>`, `_INBOX.NAME.>`): letters, digits, `-` and `_`. Random without
    /// it. Each host needs its own: a host greeting under a name the world holds connections
    /// for is taken for that host restarted.
    #[arg(long, env = "MOOT_HOST_NAME")]
    pub host_name: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
pub struct GamesArgs {
    /// The NATS broker the town serves on, e.g. nats://127.0.0.1:4222 (with
    /// nats://USER:PASSWORD@… or nats://TOKEN@… where the broker asks: a game world holds a
    /// database, and is trusted as the world is). It takes the town's flags as the world does
    /// (--db, --world…), given before `games`; its database is its own, never the town's.
    #[arg(long, env = "MOOT_NATS", hide_env_values = true)]
    pub nats: String,

    /// This game world's name in the town (letters, digits, `-` and `_`): sessions are placed
    /// by it, so it stays the same across restarts, and two processes alive never share one.
    #[arg(long, env = "MOOT_GAMES_NAME")]
    pub name: String,

    /// As `moot world --broker-is-private`: serve through a broker that lets anyone connect,
    /// because nothing but this town's own processes can reach it.
    #[arg(long, env = "MOOT_BROKER_IS_PRIVATE")]
    pub broker_is_private: bool,
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum WorldCommand {
    /// Write the town into DIR (world.toml and rooms/), to edit, keep in version control and
    /// serve with --world: the world files it is served from (--world, or the built-in town)
    /// with everything builders made in the database (--db, if it exists) added.
    Export {
        dir: PathBuf,
        #[command(flatten)]
        db: DbArg,
    },
}

/// The database a subcommand works on, which may also be given after it, as people type it
/// (`moot backup --db moot.db copy.db`); moot's own `--db` (or `MOOT_DB`) otherwise.
#[derive(Debug, Clone, clap::Args)]
pub struct DbArg {
    /// Where the town is kept: an SQLite file or a postgres:// URL (moot's --db, if not given
    /// here).
    #[arg(long = "db", value_name = "DB", global = true)]
    pub db: Option<moot_kernel::store::Database>,
}

impl DbArg {
    /// The database given here, or `moot`'s own.
    pub fn or(&self, config: &Config) -> moot_kernel::store::Database {
        self.db.clone().unwrap_or_else(|| config.db.clone())
    }
}

#[derive(Debug, Clone, clap::Subcommand)]
pub enum AdminCommand {
    /// Make the character NAME a wizard (in the database given by --db).
    Grant { name: String },
    /// Take the wizard's role from NAME.
    Revoke { name: String },
    /// List the wizards.
    List,
    /// Let the character NAME build (`@dig`, `@create`…); wizards always may.
    Builder { name: String },
    /// Take the builder's bit from NAME (what they built stays theirs).
    Unbuilder { name: String },
    /// Let the character NAME program (`@verb`, `@program`); wizards always may.
    Programmer { name: String },
    /// Take the programmer's bit from NAME (their verbs stay).
    Unprogrammer { name: String },
}

impl Config {
    /// The defaults, as `moot` with no arguments and no environment would use them.
    pub fn defaults() -> Config {
        Config::parse_from(["moot"])
    }

    pub fn idle_timeout(&self) -> Option<Duration> {
        nonzero(self.idle_timeout.into())
    }

    pub fn agent_idle_timeout(&self) -> Option<Duration> {
        nonzero(self.agent_idle_timeout.into())
    }

    /// How long a connection may stay at the login screen: the shorter of the two timeouts
    /// while the town is `crowded`.
    pub fn login_timeout(&self, crowded: bool) -> Option<Duration> {
        let calm = nonzero(self.login_timeout.into());
        let short = nonzero(self.crowded_login_timeout.into()).filter(|_| crowded);
        match (calm, short) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

fn nonzero(d: Duration) -> Option<Duration> {
    (!d.is_zero()).then_some(d)
}

/// A time scale: a positive, finite number.
/// A public URL: http or https, a host, nothing after the path (no trailing `/` kept). The web
/// pages' requests must come from its origin exactly.
fn public_url(s: &str) -> Result<String, String> {
    let url = s.trim().trim_end_matches('/');
    let host = ["https://", "http://"].iter().find_map(|p| {
        url.get(..p.len())
            .filter(|h| h.eq_ignore_ascii_case(p))
            .map(|_| &url[p.len()..])
    });
    match host {
        Some(rest)
            if !rest.is_empty()
                && !rest.starts_with('/')
                && !rest.contains(['@', '?', '#', ' ']) =>
        {
            Ok(url.to_owned())
        }
        _ => Err(format!(
            "`{s}` is not a public URL (https://host or http://host[:port])"
        )),
    }
}

fn time_scale(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 1e6 => Ok(x),
        _ => Err(format!(
            "`{s}` is not a time scale (a number above 0, up to 1000000)"
        )),
    }
}

/// `moot mcp`'s settings: the MCP server over stdio, for an agent that runs moot as its own
/// tool server.
#[derive(Debug, Clone, clap::Args)]
pub struct McpArgs {
    /// Keep the town in this SQLite file (created when missing) or PostgreSQL database; in
    /// memory when absent.
    #[arg(long, env = "MOOT_DB")]
    pub db: Option<moot_kernel::store::Database>,

    /// Directory holding the town: world.toml and rooms/*.toml; without it, the town built
    /// into moot.
    #[arg(long, env = "MOOT_WORLD")]
    pub world: Option<PathBuf>,

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

    /// The sets of tools to serve, by name, comma-separated (`chess`, or `blackjack,werewolf`);
    /// the town's when absent (the `toolsets` tool lists them all). With --server, give the
    /// set's own address instead (…/mcp/chess).
    #[arg(
        long,
        env = "MOOT_TOOLS",
        value_delimiter = ',',
        conflicts_with = "server"
    )]
    pub tools: Vec<String>,
}
