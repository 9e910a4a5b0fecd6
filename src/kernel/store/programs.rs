//! Programmed verbs' code (`@verb`, `@program`): one row a version, the last few of each verb
//! kept, read once at start and written as each version is stored.

use super::sql::{self, Sql, args};

/// Who besides a verb's owner (and the wizards) may read its code and run it: LambdaCore's `r`
/// and `x` bits, both on for a new verb. (LambdaMOO's `x` lets other code call a verb; moot's
/// verbs do not call each other, so here it says who may run it at all.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VerbMode {
    pub readable: bool,
    pub runnable: bool,
}

impl Default for VerbMode {
    fn default() -> VerbMode {
        VerbMode {
            readable: true,
            runnable: true,
        }
    }
}

impl VerbMode {
    /// As LambdaCore writes the bits: `rx`, `r`, `x`, or `""`.
    pub fn letters(self) -> &'static str {
        match (self.readable, self.runnable) {
            (true, true) => "rx",
            (true, false) => "r",
            (false, true) => "x",
            (false, false) => "",
        }
    }

    /// The bits from their letters (in any order; nothing else), as stored and as files give.
    pub fn from_letters(s: &str) -> Option<VerbMode> {
        s.chars().all(|c| c == 'r' || c == 'x').then(|| VerbMode {
            readable: s.contains('r'),
            runnable: s.contains('x'),
        })
    }
}

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
    /// The verb's bits, the same on each of its versions (`@chmod #12:push -r`).
    pub mode: VerbMode,
}

/// Stores a new version, and forgets those older than the last `kept`.
pub fn write(
    row: VerbRow,
    kept: usize,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "INSERT INTO verbs (num, name, version, code, author, created_ms, mode)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            args![
                row.num,
                &row.name,
                row.version,
                &row.code,
                &row.author,
                row.created_ms,
                row.mode.letters()
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

/// Gives every version of verb `name` on `num` the bits `mode`.
pub fn set_mode(
    num: u64,
    name: String,
    mode: VerbMode,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "UPDATE verbs SET mode = ?1 WHERE num = ?2 AND name = ?3",
            args![mode.letters(), num, name],
        )?;
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
        "SELECT num, name, version, code, author, created_ms, mode FROM verbs
         ORDER BY num, name, version",
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
            // Only the letters this moot knows open a verb: any other a later one wrote is
            // passed over, and does not make a hidden verb readable or runnable.
            mode: {
                let letters: String = r.get("mode")?;
                VerbMode {
                    readable: letters.contains('r'),
                    runnable: letters.contains('x'),
                }
            },
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
