//! What builders made (`@dig`, `@open`, `@create`): one row an object, read once at start and
//! put into the town's map, and written as each is made, changed or recycled. The world files
//! make the rest of the town; these rows add to it.

use super::sql::{self, Sql, args};

/// What kind of object a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuiltKind {
    Room,
    Exit,
    Thing,
}

impl BuiltKind {
    pub fn name(self) -> &'static str {
        match self {
            BuiltKind::Room => "room",
            BuiltKind::Exit => "exit",
            BuiltKind::Thing => "thing",
        }
    }

    fn from_name(name: &str) -> Option<BuiltKind> {
        match name {
            "room" => Some(BuiltKind::Room),
            "exit" => Some(BuiltKind::Exit),
            "thing" => Some(BuiltKind::Thing),
            _ => None,
        }
    }
}

/// One built object as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuiltRow {
    /// Its number (`#1000`).
    pub num: u64,
    pub kind: BuiltKind,
    /// The agent id of whoever made it (and may change it).
    pub owner: String,
    pub name: String,
    pub aliases: Vec<String>,
    pub description: String,
    /// The room it stands in (a thing) or leads from (an exit), by room id; none for a room.
    pub place: Option<String>,
    /// The room an exit leads to, by room id.
    pub dest: Option<String>,
    /// An exit's lock: the agent id of the one person (besides its owner) it lets by.
    pub lock: Option<String>,
    /// A thing's kind, if it is more than scenery (`chess_table`: a game's table).
    pub thing_kind: Option<String>,
    /// Its properties (`@set`).
    pub props: std::collections::BTreeMap<String, String>,
    /// When it was made (milliseconds since the Unix epoch).
    pub created_ms: u64,
    /// Whether every builder may change it (`@chmod +w`).
    pub writable: bool,
}

/// Stores a new object.
pub fn build(row: BuiltRow) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        let aliases = serde_json::to_string(&row.aliases).unwrap_or_else(|_| "[]".to_owned());
        c.execute(
            "INSERT INTO built (num, kind, owner, name, aliases, description, place, dest, lock, thing_kind, props, created_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            args![
                row.num,
                row.kind.name(),
                &row.owner,
                &row.name,
                aliases,
                &row.description,
                row.place.clone(),
                row.dest.clone(),
                row.lock.clone(),
                row.thing_kind.clone(),
                serde_json::to_string(&row.props).unwrap_or_else(|_| "{}".to_owned()),
                row.created_ms
            ],
        )?;
        Ok(())
    }
}

/// Changes an object's name, aliases and description.
pub fn reword(
    num: u64,
    name: String,
    aliases: Vec<String>,
    description: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        let aliases = serde_json::to_string(&aliases).unwrap_or_else(|_| "[]".to_owned());
        c.execute(
            "UPDATE built SET name = ?1, aliases = ?2, description = ?3 WHERE num = ?4",
            args![name, aliases, description, num],
        )?;
        Ok(())
    }
}

/// Locks an exit to one person (an agent id), or unlocks it.
pub fn set_lock(
    num: u64,
    lock: Option<String>,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE built SET lock = ?1 WHERE num = ?2",
            args![lock, num],
        )?;
        Ok(())
    }
}

/// Sets an object's properties (all of them, as they are now).
pub fn set_props(
    num: u64,
    props: std::collections::BTreeMap<String, String>,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        let props = serde_json::to_string(&props).unwrap_or_else(|_| "{}".to_owned());
        c.execute(
            "UPDATE built SET props = ?1 WHERE num = ?2",
            args![props, num],
        )?;
        Ok(())
    }
}

/// Keeps what a property of the town's own objects (the world files') became: `object` is
/// `room:<id>` or `thing:<id>`, as the files name it.
pub fn set_town_props(
    object: String,
    props: std::collections::BTreeMap<String, String>,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        let props = serde_json::to_string(&props).unwrap_or_else(|_| "{}".to_owned());
        c.execute(
            "INSERT INTO town_props (object, props) VALUES (?1, ?2)
             ON CONFLICT (object) DO UPDATE SET props = excluded.props",
            args![object, props],
        )?;
        Ok(())
    }
}

/// Lets every builder change an object, or its owner alone (`@chmod`).
pub fn set_writable(
    num: u64,
    on: bool,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE built SET writable = ?1 WHERE num = ?2",
            args![on, num],
        )?;
        Ok(())
    }
}

/// Puts a thing in another room (by the room's id).
pub fn place(num: u64, room: String) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE built SET place = ?1 WHERE num = ?2",
            args![room, num],
        )?;
        Ok(())
    }
}

/// Lets an agent build, or no longer (a wizard's `@builder`).
pub fn set_builder_bit(
    agent_id: String,
    on: bool,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE agents SET builder = ?1 WHERE agent_id = ?2",
            args![on, agent_id],
        )?;
        Ok(())
    }
}

/// Takes objects away (recycled: a room with its exits and what stood in it).
pub fn unbuild(nums: Vec<u64>) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        for num in nums {
            c.execute("DELETE FROM built WHERE num = ?1", args![num])?;
        }
        Ok(())
    }
}

fn load(c: &mut Sql) -> sql::Result<Vec<BuiltRow>> {
    let rows = c.query(
        "SELECT num, kind, owner, name, aliases, description, place, dest, lock, thing_kind, props, created_ms, writable
         FROM built ORDER BY num",
        &[],
    )?;
    let mut built = Vec::with_capacity(rows.len());
    for r in rows {
        let kind: String = r.get("kind")?;
        // A kind this moot does not know (written by a newer one) is left where it is.
        let Some(kind) = BuiltKind::from_name(&kind) else {
            continue;
        };
        let aliases: String = r.get("aliases")?;
        built.push(BuiltRow {
            num: r.get("num")?,
            kind,
            owner: r.get("owner")?,
            name: r.get("name")?,
            aliases: serde_json::from_str(&aliases).unwrap_or_default(),
            description: r.get("description")?,
            place: r.get("place")?,
            dest: r.get("dest")?,
            lock: r.get("lock")?,
            thing_kind: r.get("thing_kind")?,
            props: serde_json::from_str(&r.get::<String>("props")?).unwrap_or_default(),
            created_ms: r.get("created_ms")?,
            writable: r.get("writable")?,
        });
    }
    Ok(built)
}

impl super::Store {
    /// What the town's own objects' properties became, by object (`room:<id>`, `thing:<id>`).
    pub async fn town_props(
        &self,
    ) -> Result<Vec<(String, std::collections::BTreeMap<String, String>)>, super::StoreError> {
        self.call(|c| {
            c.query("SELECT object, props FROM town_props ORDER BY object", &[])?
                .iter()
                .map(|r| {
                    let props: String = r.get("props")?;
                    Ok((
                        r.get("object")?,
                        serde_json::from_str(&props).unwrap_or_default(),
                    ))
                })
                .collect()
        })
        .await
    }

    /// Everything built, by number: rooms before what stands in them, since a room is always
    /// made before its exits and things.
    pub async fn built(&self) -> Result<Vec<BuiltRow>, super::StoreError> {
        self.call(load).await
    }

    /// Lets the character `name` build or not; returns their name as stored, or `None` if there
    /// is no such character.
    pub async fn set_builder(
        &self,
        name: &str,
        on: bool,
        by: &str,
    ) -> Result<Option<String>, super::StoreError> {
        self.set_role(name, super::admin::Role::Builder, on, by)
            .await
    }
}
