//! The wizards' records: who is one, who is banned, and every act of theirs (append-only,
//! like the action log), so that what a wizard did can always be read back.

use super::sql::{self, Sql, args};
use super::{Store, StoreError};

/// A ban as stored: a character's name or an address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ban {
    pub what: String,
    pub by_whom: String,
    pub reason: String,
}

/// One wizard's act as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminAct {
    pub at_ms: i64,
    pub by_whom: String,
    pub verb: String,
    pub target: String,
    pub detail: String,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Appends a wizard's act (inside the caller's write, so that the act and its record are
/// stored together or not at all).
pub fn record(
    c: &mut Sql,
    by_whom: &str,
    verb: &str,
    target: &str,
    detail: &str,
) -> sql::Result<()> {
    tracing::info!(target: crate::logging::AUDIT, event = "admin", by = by_whom, verb, target, detail);
    c.execute(
        "INSERT INTO admin_actions (at_ms, by_whom, verb, target, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
        args![now_ms(), by_whom, verb, target, detail],
    )?;
    Ok(())
}

/// The write that bans `what` (and records it).
pub fn ban(
    by_whom: String,
    what: String,
    reason: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "INSERT INTO bans (what, by_whom, reason, at_ms) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (what) DO UPDATE SET by_whom = ?2, reason = ?3, at_ms = ?4",
            args![&what, &by_whom, &reason, now_ms()],
        )?;
        record(c, &by_whom, "@ban", &what, &reason)
    }
}

/// The write that lifts a ban on `what` (and records it).
pub fn unban(
    by_whom: String,
    what: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute("DELETE FROM bans WHERE what = ?1", args![&what])?;
        record(c, &by_whom, "@unban", &what, "")
    }
}

/// The write that records an act that changes nothing else stored (@boot, @announce,
/// @shutdown).
pub fn act(
    by_whom: String,
    verb: &'static str,
    target: String,
    detail: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| record(c, &by_whom, verb, &target, &detail)
}

/// What the operator (or a wizard) lets a character do, beside what everyone may.
#[derive(Debug, Clone, Copy)]
pub(super) enum Role {
    Wizard,
    Builder,
    Programmer,
}

impl Role {
    /// Its column in `agents`, and its word in the admin log.
    fn column(self) -> &'static str {
        match self {
            Role::Wizard => "wizard",
            Role::Builder => "builder",
            Role::Programmer => "programmer",
        }
    }
}

impl Store {
    /// Makes the character `name` a wizard or not; returns their name as stored, or `None` if
    /// there is no such character.
    pub async fn set_wizard(
        &self,
        name: &str,
        on: bool,
        by: &str,
    ) -> Result<Option<String>, StoreError> {
        self.set_role(name, Role::Wizard, on, by).await
    }

    /// Gives the character `name` `role` or takes it away, in the admin log; returns their name
    /// as stored, or `None` if there is no such character.
    pub(super) async fn set_role(
        &self,
        name: &str,
        role: Role,
        on: bool,
        by: &str,
    ) -> Result<Option<String>, StoreError> {
        let (name, by) = (name.to_owned(), by.to_owned());
        self.call(move |c| {
            let found: Option<String> = c
                .first("SELECT name FROM agents WHERE name = ?1", args![name])?
                .map(|r| r.get("name"))
                .transpose()?;
            if let Some(n) = &found {
                let column = role.column();
                c.execute(
                    &format!("UPDATE agents SET {column} = ?1 WHERE name = ?2"),
                    args![on, n],
                )?;
                let verb = if on { "grant" } else { "revoke" };
                record(c, &by, verb, n, column)?;
            }
            Ok(found)
        })
        .await
    }

    /// The wizards' names.
    pub async fn wizards(&self) -> Result<Vec<String>, StoreError> {
        self.call(|c| {
            c.query(
                "SELECT name FROM agents WHERE wizard = 1 ORDER BY name",
                &[],
            )?
            .iter()
            .map(|r| r.get("name"))
            .collect()
        })
        .await
    }

    /// Every ban, for the world to hold.
    pub async fn bans(&self) -> Result<Vec<Ban>, StoreError> {
        self.call(|c| {
            c.query("SELECT what, by_whom, reason FROM bans ORDER BY what", &[])?
                .iter()
                .map(|r| {
                    Ok(Ban {
                        what: r.get("what")?,
                        by_whom: r.get("by_whom")?,
                        reason: r.get("reason")?,
                    })
                })
                .collect()
        })
        .await
    }

    /// The wizards' acts, oldest first.
    pub async fn admin_log(&self) -> Result<Vec<AdminAct>, StoreError> {
        self.call(|c| {
            c.query(
                "SELECT at_ms, by_whom, verb, target, detail FROM admin_actions ORDER BY seq",
                &[],
            )?
            .iter()
            .map(|r| {
                Ok(AdminAct {
                    at_ms: r.get("at_ms")?,
                    by_whom: r.get("by_whom")?,
                    verb: r.get("verb")?,
                    target: r.get("target")?,
                    detail: r.get("detail")?,
                })
            })
            .collect()
        })
        .await
    }
}
