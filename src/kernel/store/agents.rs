//! Identities: who can log in, how they are described and where they were last.

use super::sql::{self, DbError, Row, Sql, args};
use super::{Store, StoreError};
use crate::wrap::Display;

/// One identity as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow {
    pub agent_id: String,
    pub name: String,
    pub password_hash: Option<String>,
    pub description: String,
    /// The id of the room they were last in (a room id from `world/`, which may have vanished).
    pub room: Option<String>,
    /// How their lines are fitted to their screen.
    pub display: Display,
    /// Whether they may use the wizards' verbs (`moot admin grant`).
    pub wizard: bool,
    /// Whether they may build (`moot admin builder`, or a wizard's `@builder`).
    pub builder: bool,
    /// Whether they may program (`moot admin programmer`, or a wizard's `@programmer`).
    pub programmer: bool,
}

// Who an identity is, for leaderboards that show people, agents or both: a character made at
// the login screen (a person), by `POST /agents` or `moot mcp` (an agent), or the town's own
// players (the house). (Not doc comments: schemars would list them in every tool.)
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Person,
    Agent,
    House,
}

impl Kind {
    pub fn from_stored(s: &str) -> Kind {
        match s {
            "person" => Kind::Person,
            "house" => Kind::House,
            _ => Kind::Agent,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Person => "person",
            Kind::Agent => "agent",
            Kind::House => "house",
        }
    }
}

/// What the in-memory directory of identities needs of each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdentityRow {
    pub agent_id: String,
    pub name: String,
    /// SHA-256 of the secret part of the API token, hex; none until one is issued.
    pub token_hash: Option<String>,
    pub kind: Kind,
    /// The identity it speaks for in ratings, if not itself (see [`Origin`]).
    pub owner: Option<String>,
    /// The person whose token made it, for whom it builds (an agent of theirs).
    pub maker: Option<String>,
}

/// Where an anonymous identity was made, and how close together two made from one address
/// must be to count as one owner's: identities of one owner never rate each other, so a
/// farm of fresh accounts from one address buys nobody a rating.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The address (IPv4, or an IPv6 address's /64: one home or one machine).
    pub address: String,
    /// Made within this long after the last identity from the same address, it is that
    /// identity's owner's (zero: every identity its own).
    pub window: std::time::Duration,
}

impl Origin {
    /// The origin of an identity made from `ip`.
    pub fn of(ip: std::net::IpAddr, window: std::time::Duration) -> Origin {
        let address = crate::limits::Address::of(ip).to_string();
        Origin { address, window }
    }
}

/// Who an agent made with someone's token belongs to: the identity it speaks for in ratings
/// (`owner`), and the person it builds for (`maker`); both none for an agent made without one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MadeBy {
    pub owner: Option<String>,
    pub maker: Option<String>,
}

/// The owner an identity made now from `origin` takes: that of the latest identity made from
/// the same address, if it was made within the window; none (itself) otherwise.
fn owner_from(c: &mut Sql, origin: Option<&Origin>) -> sql::Result<Option<String>> {
    let Some(o) = origin.filter(|o| !o.window.is_zero()) else {
        return Ok(None);
    };
    let latest = c.first(
        "SELECT agent_id, owner, created_at FROM agents WHERE origin = ?1
         ORDER BY created_at DESC, agent_id LIMIT 1",
        args![&o.address],
    )?;
    let Some(r) = latest else { return Ok(None) };
    let (id, owner, made): (String, Option<String>, String) =
        (r.get("agent_id")?, r.get("owner")?, r.get("created_at")?);
    let recent = humantime::parse_rfc3339_weak(&made)
        .ok()
        .and_then(|t| std::time::SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age <= o.window);
    Ok(recent.then(|| owner.unwrap_or(id)))
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CreateError {
    #[error("the name is already in use")]
    NameTaken,
    #[error(transparent)]
    Store(#[from] StoreError),
}

fn row(r: &Row) -> sql::Result<AgentRow> {
    Ok(AgentRow {
        agent_id: r.get("agent_id")?,
        name: r.get("name")?,
        password_hash: r.get("password_hash")?,
        description: r.get("description")?,
        room: r.get("room")?,
        display: Display {
            linelength: r.get("linelength")?,
            wrap: r.get("wrap")?,
            screenreader: r.get("screenreader")?,
        },
        wizard: r.get("wizard")?,
        builder: r.get("builder")?,
        programmer: r.get("programmer")?,
    })
}

/// An agent made with a person's token (`maker`) builds and programs as that person may: the
/// bits are its own or its maker's.
const COLUMNS: &str = "agent_id, name, password_hash, description, room, linelength, wrap, screenreader, wizard, \
     CASE WHEN builder = 1 OR EXISTS (SELECT 1 FROM agents o WHERE o.agent_id = agents.maker AND o.builder = 1) THEN 1 ELSE 0 END AS builder, \
     CASE WHEN programmer = 1 OR EXISTS (SELECT 1 FROM agents o WHERE o.agent_id = agents.maker AND o.programmer = 1) THEN 1 ELSE 0 END AS programmer";

pub fn new_agent_id() -> String {
    format!("{:016x}", rand::random::<u64>())
}

impl Store {
    /// Creates a character with a password hash, standing in `room`.
    pub async fn create_character(
        &self,
        name: &str,
        password_hash: String,
        room: &str,
        origin: Option<Origin>,
    ) -> Result<(AgentRow, Option<String>), CreateError> {
        let (name, room) = (name.to_owned(), room.to_owned());
        let created = self
            .call(move |c| {
                let agent_id = new_agent_id();
                let owner = owner_from(c, origin.as_ref())?;
                let address = origin.map(|o| o.address);
                let inserted = c.execute_or_refused(
                    "INSERT INTO agents (agent_id, name, password_hash, room, kind, owner, origin) VALUES (?1, ?2, ?3, ?4, 'person', ?5, ?6)",
                    args![&agent_id, &name, &password_hash, &room, owner.as_deref(), address.as_deref()],
                );
                match inserted {
                    Ok(_) => Ok(Some((
                        AgentRow {
                            agent_id,
                            name,
                            password_hash: Some(password_hash),
                            description: String::new(),
                            room: Some(room),
                            display: Display::default(),
                            wizard: false,
                            builder: false,
                            programmer: false,
                        },
                        owner,
                    ))),
                    Err(DbError::Constraint(_)) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .await?;
        created.ok_or(CreateError::NameTaken)
    }

    /// Creates an API agent: a character with a token instead of a password. Without a name,
    /// one is made up (`Agent_` and four hex digits) until a free one is found. Its owner is
    /// `owner`, given by whoever made it with their token, or else is found from `origin`.
    pub async fn create_agent(
        &self,
        agent_id: String,
        name: Option<String>,
        token_hash: String,
        room: &str,
        origin: Option<Origin>,
        made_by: MadeBy,
    ) -> Result<IdentityRow, CreateError> {
        let MadeBy { owner, maker } = made_by;
        let room = room.to_owned();
        let created = self
            .call(move |c| {
                let owner = match owner {
                    Some(o) => Some(o),
                    None => owner_from(c, origin.as_ref())?,
                };
                let address = origin.map(|o| o.address);
                for _ in 0..32 {
                    let candidate = name
                        .clone()
                        .unwrap_or_else(|| format!("Agent_{:04x}", rand::random::<u16>()));
                    let inserted = c.execute_or_refused(
                        "INSERT INTO agents (agent_id, name, token_hash, room, kind, owner, origin, maker) VALUES (?1, ?2, ?3, ?4, 'agent', ?5, ?6, ?7)",
                        args![&agent_id, &candidate, &token_hash, &room, owner.as_deref(), address.as_deref(), maker.as_deref()],
                    );
                    match inserted {
                        Ok(_) => {
                            return Ok(Some(IdentityRow {
                                agent_id,
                                name: candidate,
                                token_hash: Some(token_hash),
                                kind: Kind::Agent,
                                owner,
                                maker,
                            }));
                        }
                        Err(DbError::Constraint(_)) if name.is_none() => {}
                        Err(DbError::Constraint(_)) => return Ok(None),
                        Err(e) => return Err(e),
                    }
                }
                Ok(None)
            })
            .await?;
        created.ok_or(CreateError::NameTaken)
    }

    /// Makes sure the house's own identities exist (the computer player, the server actor),
    /// so that their actions are logged like anyone's. Their names are reserved, so no
    /// character can hold them first.
    pub async fn ensure_house(
        &self,
        house: &[(&'static str, &'static str)],
    ) -> Result<(), StoreError> {
        let house = house.to_vec();
        self.call(move |c| {
            for (id, name) in house {
                c.execute(
                    "INSERT INTO agents (agent_id, name, kind) VALUES (?1, ?2, 'house') ON CONFLICT DO NOTHING",
                    args![id, name],
                )?;
                // Those made before identities had kinds.
                c.execute(
                    "UPDATE agents SET kind = 'house' WHERE agent_id = ?1",
                    args![id],
                )?;
            }
            Ok(())
        })
        .await
    }

    /// Keeps identities another process vouched for (a game world's players, as its town
    /// sends them): their names, kinds and owners, never a credential, so that what they play
    /// here is stored as theirs. One already here is left as it is.
    pub async fn keep_identities(&self, rows: Vec<IdentityRow>) -> Result<(), StoreError> {
        self.call(move |c| {
            for r in rows {
                c.execute(
                    "INSERT INTO agents (agent_id, name, kind, owner, maker) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
                    args![&r.agent_id, &r.name, r.kind.name(), r.owner.as_deref(), r.maker.as_deref()],
                )?;
            }
            Ok(())
        })
        .await
    }

    /// Every identity, for the directory built at start-up.
    pub async fn all_identities(&self) -> Result<Vec<IdentityRow>, StoreError> {
        self.read(|c| {
            c.query(
                "SELECT agent_id, name, token_hash, kind, owner, maker FROM agents",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(IdentityRow {
                    agent_id: r.get("agent_id")?,
                    name: r.get("name")?,
                    token_hash: r.get("token_hash")?,
                    kind: Kind::from_stored(&r.get::<String>("kind")?),
                    owner: r.get("owner")?,
                    maker: r.get("maker")?,
                })
            })
            .collect()
        })
        .await
    }

    /// The identity with `agent_id`.
    pub async fn agent_by_id(&self, agent_id: &str) -> Result<Option<AgentRow>, StoreError> {
        let id = agent_id.to_owned();
        self.read(move |c| {
            c.first(
                &format!("SELECT {COLUMNS} FROM agents WHERE agent_id = ?1"),
                args![id],
            )?
            .as_ref()
            .map(row)
            .transpose()
        })
        .await
    }

    /// The identity called `name`, in any case.
    pub async fn agent_by_name(&self, name: &str) -> Result<Option<AgentRow>, StoreError> {
        let name = name.to_owned();
        self.read(move |c| find_by_name(c, &name)).await
    }
}

fn find_by_name(c: &mut Sql, name: &str) -> sql::Result<Option<AgentRow>> {
    c.first(
        &format!("SELECT {COLUMNS} FROM agents WHERE name = ?1"),
        args![name],
    )?
    .as_ref()
    .map(row)
    .transpose()
}
