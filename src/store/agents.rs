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
}

// Who an identity is, for leaderboards that show people, agents or both: a character made at
// the login screen (a person), by `POST /agents` or `moot mcp` (an agent), or the town's own
// players (the house). (Not doc comments: schemars would list them in every tool.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
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
        agent_id: r.get(0)?,
        name: r.get(1)?,
        password_hash: r.get(2)?,
        description: r.get(3)?,
        room: r.get(4)?,
        display: Display {
            linelength: r.get(5)?,
            wrap: r.get(6)?,
        },
        wizard: r.get(7)?,
    })
}

const COLUMNS: &str = "agent_id, name, password_hash, description, room, linelength, wrap, wizard";

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
    ) -> Result<AgentRow, CreateError> {
        let (name, room) = (name.to_owned(), room.to_owned());
        let created = self
            .call(move |c| {
                let agent_id = new_agent_id();
                let inserted = c.execute_or_refused(
                    "INSERT INTO agents (agent_id, name, password_hash, room, kind) VALUES (?1, ?2, ?3, ?4, 'person')",
                    args![&agent_id, &name, &password_hash, &room],
                );
                match inserted {
                    Ok(_) => Ok(Some(AgentRow {
                        agent_id,
                        name,
                        password_hash: Some(password_hash),
                        description: String::new(),
                        room: Some(room),
                        display: Display::default(),
                        wizard: false,
                    })),
                    Err(DbError::Constraint(_)) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .await?;
        created.ok_or(CreateError::NameTaken)
    }

    /// Creates an API agent: a character with a token instead of a password. Without a name,
    /// one is made up (`Agent_` and four hex digits) until a free one is found.
    pub async fn create_agent(
        &self,
        agent_id: String,
        name: Option<String>,
        token_hash: String,
        room: &str,
    ) -> Result<IdentityRow, CreateError> {
        let room = room.to_owned();
        let created = self
            .call(move |c| {
                for _ in 0..32 {
                    let candidate = name
                        .clone()
                        .unwrap_or_else(|| format!("Agent_{:04x}", rand::random::<u16>()));
                    let inserted = c.execute_or_refused(
                        "INSERT INTO agents (agent_id, name, token_hash, room, kind) VALUES (?1, ?2, ?3, ?4, 'agent')",
                        args![&agent_id, &candidate, &token_hash, &room],
                    );
                    match inserted {
                        Ok(_) => {
                            return Ok(Some(IdentityRow {
                                agent_id,
                                name: candidate,
                                token_hash: Some(token_hash),
                                kind: Kind::Agent,
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

    /// Every identity, for the directory built at start-up.
    pub async fn all_identities(&self) -> Result<Vec<IdentityRow>, StoreError> {
        self.read(|c| {
            c.query("SELECT agent_id, name, token_hash, kind FROM agents", &[])?
                .iter()
                .map(|r| {
                    Ok(IdentityRow {
                        agent_id: r.get(0)?,
                        name: r.get(1)?,
                        token_hash: r.get(2)?,
                        kind: Kind::from_stored(&r.get::<String>(3)?),
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
