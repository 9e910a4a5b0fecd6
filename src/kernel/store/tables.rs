//! Every table moot keeps, declared once: the one place to read the schema.
//!
//! A new database is made from this description, in either engine's words (see [`ddl`]);
//! `moot db copy` reads and writes exactly these columns, and checks them (see [`copy`]); the
//! store reads rows by these columns' names. An old database is brought forward by the
//! migrations in [`schema`], which are history: written once and never changed, because old
//! databases have run them.
//!
//! Adding a column therefore means two edits: the column here (at the end of its table, where
//! `ALTER TABLE ... ADD COLUMN` puts it), and a migration that adds it to old databases, in
//! each engine's words. A test builds one database from every migration and one from this
//! description and compares what each engine says it holds, so that forgetting either fails.
//!
//! [`ddl`]: super::ddl
//! [`copy`]: super::copy
//! [`schema`]: super::schema

use DefaultValue::{Int, Now, Text};

/// One table.
#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    /// In the order the table has them (a column added later comes last).
    pub columns: &'static [Column],
    /// The primary key's columns: one is declared on its column, several after the columns.
    pub key: &'static [&'static str],
    /// Other sets of columns no two rows share, each like the key.
    pub unique: &'static [&'static [&'static str]],
    pub indexes: &'static [Index],
    pub rowid: Rowid,
    /// For a log nobody may change or empty: its name in the refusal ("the action log is
    /// append-only"). Enforced by the database, so that no bug and no hand at a prompt can
    /// rewrite history.
    pub append_only: Option<&'static str>,
}

/// Whether rows have a number for the order they were written in, and who reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rowid {
    /// SQLite's implicit `rowid`, which nothing reads.
    Unread,
    /// The order the rows were written in, which a log is read back in: SQLite's implicit
    /// `rowid`, and on PostgreSQL (which has none) a `rowid BIGSERIAL` column before the
    /// others, so that one statement (`ORDER BY rowid`) serves both. A copy carries it.
    Order,
    /// None (SQLite's `WITHOUT ROWID`): a small table read by its key, which is then where the
    /// rows are kept rather than in a second tree beside them.
    Without,
}

/// One column.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    pub not_null: bool,
    pub default: Option<DefaultValue>,
    /// The table and column it refers to (a foreign key).
    pub references: Option<(&'static str, &'static str)>,
}

/// What a column holds: the four kinds of value both engines share (see `value::Value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    /// Text compared and kept unique regardless of case (names, so that "Ann" and "ann" are
    /// one): SQLite's `COLLATE NOCASE`, PostgreSQL's `citext`.
    CaseFree,
    /// A 64-bit integer (flags are 0 and 1).
    Int,
    Real,
    /// The key that numbers rows as they are written, never reused (SQLite's `AUTOINCREMENT`,
    /// PostgreSQL's `BIGSERIAL`).
    Counter,
}

/// The value a row gets where its insert names none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultValue {
    Text(&'static str),
    Int(i64),
    /// The time of the insert, as text in UTC.
    Now(Clock),
}

/// How a time is written: each table kept the form it was made with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    /// `2026-01-02 03:04:05`
    Seconds,
    /// `2026-01-02T03:04:05.678Z`
    Millis,
}

/// An index beside the keys, for a lookup the keys do not serve.
#[derive(Debug)]
pub struct Index {
    pub name: &'static str,
    pub columns: &'static [&'static str],
}

impl Column {
    const fn of(name: &'static str, kind: Kind) -> Column {
        Column {
            name,
            kind,
            not_null: false,
            default: None,
            references: None,
        }
    }

    const fn not_null(self) -> Column {
        Column {
            not_null: true,
            ..self
        }
    }

    const fn default(self, value: DefaultValue) -> Column {
        Column {
            default: Some(value),
            ..self
        }
    }

    const fn references(self, table: &'static str, column: &'static str) -> Column {
        Column {
            references: Some((table, column)),
            ..self
        }
    }
}

const fn text(name: &'static str) -> Column {
    Column::of(name, Kind::Text)
}
const fn case_free(name: &'static str) -> Column {
    Column::of(name, Kind::CaseFree)
}
const fn int(name: &'static str) -> Column {
    Column::of(name, Kind::Int)
}
const fn real(name: &'static str) -> Column {
    Column::of(name, Kind::Real)
}
const fn counter(name: &'static str) -> Column {
    Column::of(name, Kind::Counter)
}

/// A column that names an identity.
const fn agent_id() -> Column {
    text("agent_id").not_null().references("agents", "agent_id")
}

/// A table of these columns under this key, and nothing else: no other unique set, no index,
/// no trigger, SQLite's rowid unread. A table with more says so over it (`..plain(...)`).
const fn plain(
    name: &'static str,
    key: &'static [&'static str],
    columns: &'static [Column],
) -> Table {
    Table {
        name,
        columns,
        key,
        unique: &[],
        indexes: &[],
        rowid: Rowid::Unread,
        append_only: None,
    }
}

/// Every table, each before the tables that refer to it: the order they are made and copied in.
pub const TABLES: &[Table] = &[
    // One identity for everyone: people on telnet or the web (with a password), API agents and
    // MCP hosts (with a token), the town's own players.
    Table {
        indexes: &[Index {
            name: "agents_by_origin",
            columns: &["origin", "created_at"],
        }],
        unique: &[&["name"]],
        ..plain(
            "agents",
            &["agent_id"],
            &[
                text("agent_id"),
                case_free("name").not_null(),
                text("password_hash"),
                text("description").not_null().default(Text("")),
                // The room they were last in (a room id from `world/`, which may have vanished).
                text("room"),
                text("created_at").not_null().default(Now(Clock::Seconds)),
                // SHA-256 of the secret part of the API token, hex.
                text("token_hash"),
                // How their lines are fitted to their screen (`@linelength`, `@wrap`); no line
                // length takes the client's width or the default.
                int("linelength"),
                int("wrap").not_null().default(Int(1)),
                int("wizard").not_null().default(Int(0)),
                // `person`, `agent` or `house` (see `agents::Kind`).
                text("kind").not_null().default(Text("agent")),
                // The identity it speaks for in ratings, if not itself.
                text("owner"),
                // The address an anonymous one was made from (IPv4, or an IPv6 /64).
                text("origin"),
                // `@screenreader on`: games as lists, rooms brief.
                int("screenreader").not_null().default(Int(0)),
                // May build (`@dig`, `@create`…): a bit a wizard grants.
                int("builder").not_null().default(Int(0)),
                // May program (`@verb`, `@program`): another bit a wizard grants.
                int("programmer").not_null().default(Int(0)),
                // The person whose token made this agent, for whom it builds with their
                // rights (not the ratings' owner, which an address may give too).
                text("maker"),
            ],
        )
    },
    // Game sessions, with their current state so that reading one needs no replay.
    plain(
        "sessions",
        &["session_id"],
        &[
            text("session_id"),
            text("template").not_null(),
            text("state").not_null(),
            text("status").not_null().default(Text("active")),
            int("tick").not_null().default(Int(0)),
            // A u64's bits.
            int("seed").not_null(),
            text("options").not_null().default(Text("null")),
            text("created_at").not_null().default(Now(Clock::Millis)),
            text("updated_at").not_null().default(Now(Clock::Millis)),
            int("rated").not_null().default(Int(0)),
        ],
    ),
    // Who plays which role, in the order they took their seats.
    Table {
        indexes: &[Index {
            name: "participants_by_agent",
            columns: &["agent_id"],
        }],
        rowid: Rowid::Order,
        ..plain(
            "participants",
            &["session_id", "agent_id"],
            &[
                text("session_id")
                    .not_null()
                    .references("sessions", "session_id"),
                agent_id(),
                text("role").not_null(),
            ],
        )
    },
    // The action log, the real truth: every session is its replay. Keyed `<session>.<tick>`;
    // read once, at start, in the order it was written (no index by session: it cost a page
    // written per action).
    Table {
        rowid: Rowid::Order,
        append_only: Some("action"),
        ..plain(
            "actions",
            &["action_id"],
            &[
                text("action_id"),
                text("session_id")
                    .not_null()
                    .references("sessions", "session_id"),
                agent_id(),
                text("role").not_null(),
                text("action").not_null(),
                int("tick").not_null(),
                text("created_at").not_null().default(Now(Clock::Millis)),
                // The game time it was taken at (milliseconds since its session began, scaled
                // by --time-scale), so that clocks and deadlines replay exactly.
                int("at_ms").not_null().default(Int(0)),
                // Why its actor took it, shown to nobody until its game has ended.
                text("reasoning"),
                // What it cost its actor (tokens, thought), as JSON; shown as its reasoning is.
                text("cost"),
            ],
        )
    },
    // Answers kept under idempotency keys, so that a retry after a restart is still answered
    // and still changes nothing; `args` and `answer` are JSON.
    Table {
        unique: &[&["agent_id", "tool", "key"]],
        ..plain(
            "idempotency_keys",
            &["seq"],
            &[
                counter("seq"),
                agent_id(),
                text("tool").not_null(),
                text("key").not_null(),
                text("args").not_null(),
                text("answer").not_null(),
            ],
        )
    },
    // What builders made: rooms, exits and things, by number (`#1000`), with their owner (an
    // agent id), their names (`aliases` is JSON), and where they stand (`place`, a room's id:
    // a thing's room or an exit's) and lead (`dest`, an exit's room id). A built room's id is
    // `built-<num>`.
    plain(
        "built",
        &["num"],
        &[
            int("num"),
            text("kind").not_null(),
            text("owner").not_null(),
            text("name").not_null(),
            text("aliases").not_null().default(Text("[]")),
            text("description").not_null().default(Text("")),
            text("place"),
            text("dest"),
            // An exit's lock: the agent id of the one person (besides its owner) it lets by.
            text("lock"),
            // A thing's kind, if it is more than scenery (`chess_table`: a game's table).
            text("thing_kind"),
            // Its properties (`@set`), a JSON object of strings.
            text("props").not_null().default(Text("{}")),
            int("created_ms").not_null(),
            // Whether every builder may change it (`@chmod +w`), not its owner alone.
            int("writable").not_null().default(Int(0)),
        ],
    ),
    // Programmed verbs' code: the last few versions of each verb on an object (`num`), with
    // who wrote each (`author`, an agent id).
    plain(
        "verbs",
        &["num", "name", "version"],
        &[
            int("num").not_null(),
            text("name").not_null(),
            int("version").not_null(),
            text("code").not_null(),
            text("author").not_null(),
            int("created_ms").not_null(),
            // Who besides its owner may read it (`r`) and run it (`x`).
            text("mode").not_null().default(Text("rx")),
        ],
    ),
    // What the town's own objects' properties (the world files') became: by `object`,
    // `room:<id>` or `thing:<id>` as the files name it; `props` is a JSON object of strings.
    plain(
        "town_props",
        &["object"],
        &[text("object"), text("props").not_null()],
    ),
    // What a game keeps besides its sessions and must find again after a restart, as JSON
    // under the module's name and a key of its own.
    plain(
        "kept_state",
        &["module", "key"],
        &[
            text("module").not_null(),
            text("key").not_null(),
            text("value").not_null(),
        ],
    ),
    // Who is banned: a character's name or an address.
    plain(
        "bans",
        &["what"],
        &[
            case_free("what"),
            text("by_whom").not_null(),
            text("reason").not_null(),
            int("at_ms").not_null(),
        ],
    ),
    // Every wizard's act, kept like the action log.
    Table {
        append_only: Some("admin"),
        ..plain(
            "admin_actions",
            &["seq"],
            &[
                counter("seq"),
                int("at_ms").not_null(),
                text("by_whom").not_null(),
                text("verb").not_null(),
                text("target").not_null(),
                text("detail").not_null(),
            ],
        )
    },
    // The OAuth clients remote MCP hosts registered (`redirect_uris` is JSON)...
    plain(
        "oauth_clients",
        &["client_id"],
        &[
            text("client_id"),
            text("client_name").not_null(),
            text("redirect_uris").not_null(),
            int("created_ms").not_null(),
        ],
    ),
    // ...and the tokens people let them have, as hashes (`kind` is `access` or `refresh`).
    plain(
        "oauth_tokens",
        &["token_hash"],
        &[
            text("token_hash"),
            text("kind").not_null(),
            agent_id(),
            text("client_id").not_null(),
            int("expires_ms").not_null(),
        ],
    ),
    // Each identity's standing per board and season (`rules`); no rating for a record kept
    // without one. Derived from the action log: `moot ratings rebuild` writes it anew.
    Table {
        rowid: Rowid::Without,
        ..plain(
            "standings",
            &["agent_id", "board", "rules"],
            &[
                agent_id(),
                text("board").not_null(),
                text("rules").not_null(),
                real("rating"),
                real("deviation"),
                real("volatility"),
                int("games").not_null(),
                int("won").not_null(),
                int("lost").not_null(),
                int("drawn").not_null(),
            ],
        )
    },
    // Every change a decided result made to a standing, under the action that decided it;
    // derived like the standings.
    Table {
        indexes: &[Index {
            name: "standing_changes_by_agent",
            columns: &["agent_id"],
        }],
        rowid: Rowid::Order,
        ..plain(
            "standing_changes",
            &["action_id", "agent_id", "board"],
            &[
                text("action_id").not_null(),
                agent_id(),
                text("board").not_null(),
                text("rules").not_null(),
                real("score").not_null(),
                real("rating_before"),
                real("deviation_before"),
                real("rating"),
                real("deviation"),
                real("volatility"),
            ],
        )
    },
    // Errors apart from skill, per session and player while it runs (refused actions, missed
    // deadlines; see `ratings::conduct`).
    Table {
        rowid: Rowid::Without,
        ..plain(
            "session_conduct",
            &["session_id", "agent_id"],
            &[
                text("session_id").not_null(),
                text("agent_id").not_null(),
                int("refused").not_null().default(Int(0)),
                int("missed").not_null().default(Int(0)),
            ],
        )
    },
];

impl Table {
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }
}

/// The table called `name`.
pub fn table(name: &str) -> Option<&'static Table> {
    TABLES.iter().find(|t| t.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the engines would refuse, or what would make a copy or a key mean nothing, is
    /// refused here first: every key, unique set, index and reference names a column that is
    /// there, and every table is made after those it refers to.
    #[test]
    fn the_description_names_only_columns_it_has_and_parents_come_first() {
        for (i, t) in TABLES.iter().enumerate() {
            assert!(!t.key.is_empty(), "{}: every table has a key", t.name);
            let named = t
                .key
                .iter()
                .chain(t.unique.iter().flat_map(|u| u.iter()))
                .chain(t.indexes.iter().flat_map(|x| x.columns.iter()));
            for c in named {
                assert!(t.column(c).is_some(), "{}.{c}", t.name);
            }
            for (n, c) in t.columns.iter().enumerate() {
                assert!(
                    !t.columns[..n].iter().any(|d| d.name == c.name),
                    "{}.{} twice",
                    t.name,
                    c.name
                );
                assert!(c.name != "rowid", "{}: rowid is Rowid's", t.name);
                if c.kind == Kind::Counter {
                    assert_eq!(t.key, [c.name], "{}: a counter is the key", t.name);
                }
                if let Some((parent, column)) = c.references {
                    let p = TABLES[..i]
                        .iter()
                        .find(|p| p.name == parent)
                        .unwrap_or_else(|| panic!("{}.{} refers to a later table", t.name, c.name));
                    assert!(p.column(column).is_some(), "{parent}.{column}");
                }
            }
        }
    }
}
