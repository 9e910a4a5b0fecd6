//! Programmed verbs' code (`@verb`, `@program`): one row a version, the last few of each verb
//! kept, read once at start and written as each version is stored.

use super::sql::{self, Sql, args};

/// One version of one verb as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerbRow {
    /// The object it is on (`#1000`).
    pub num: u64,
    pub name: String,
    pub version: u32,
    pub code: String,
    /// The agent id of whoever wrote this version.
    pub author: String,
    /// When (milliseconds since the Unix epoch).
    pub created_ms: u64,
}

/// Stores a new version, and forgets those older than the last `kept`.
pub fn write(
    row: VerbRow,
    kept: usize,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "INSERT INTO verbs (num, name, version, code, author, created_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            args![
                row.num,
                &row.name,
                row.version,
                &row.code,
                &row.author,
                row.created_ms
            ],
        )?;
        // Versions are numbered from 0 without gaps: those `kept` back and more go.
        if let Some(gone) = u64::from(row.version).checked_sub(kept as u64) {
            c.execute(
                "DELETE FROM verbs WHERE num = ?1 AND name = ?2 AND version <= ?3",
                args![row.num, row.name, gone],
            )?;
        }
        Ok(())
    }
}

/// Forgets every verb of objects `nums` (recycled).
pub fn forget(nums: Vec<u64>) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        for num in nums {
            c.execute("DELETE FROM verbs WHERE num = ?1", args![num])?;
        }
        Ok(())
    }
}

/// Lets an agent program, or no longer (a wizard's `@programmer`).
pub fn set_programmer_bit(
    agent_id: String,
    on: bool,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE agents SET programmer = ?1 WHERE agent_id = ?2",
            args![on, agent_id],
        )?;
        Ok(())
    }
}

fn load(c: &mut Sql) -> sql::Result<Vec<VerbRow>> {
    c.query(
        "SELECT num, name, version, code, author, created_ms FROM verbs ORDER BY num, name, version",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok(VerbRow {
            num: r.get("num")?,
            name: r.get("name")?,
            version: r.get("version")?,
            code: r.get("code")?,
            author: r.get("author")?,
            created_ms: r.get("created_ms")?,
        })
    })
    .collect()
}

impl super::Store {
    /// Every stored version of every verb.
    pub async fn programs(&self) -> Result<Vec<VerbRow>, super::StoreError> {
        self.call(load).await
    }

    /// Lets the character `name` program or not; returns their name as stored, or `None` if
    /// there is no such character.
    pub async fn set_programmer(
        &self,
        name: &str,
        on: bool,
        by: &str,
    ) -> Result<Option<String>, super::StoreError> {
        self.set_role(name, super::admin::Role::Programmer, on, by)
            .await
    }
}
