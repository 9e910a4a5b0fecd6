//! What the games keep besides their sessions, read back when the town opens: answers kept
//! under idempotency keys (a call retried with its key, even after a restart, is answered as
//! the first time and changes nothing), and state a module keeps under keys of its own.

use super::sql::{self, Sql, args};

/// How many keys each identity keeps; the oldest go first.
pub const KEPT_PER_IDENTITY: usize = 256;

/// One kept answer as stored: `args` and `answer` are JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptRow {
    pub agent_id: String,
    pub tool: String,
    pub key: String,
    pub args: String,
    pub answer: String,
}

/// Keeps an answer, and forgets the identity's oldest beyond [`KEPT_PER_IDENTITY`].
pub fn keep(row: KeptRow) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "INSERT INTO idempotency_keys (agent_id, tool, key, args, answer)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            args![&row.agent_id, row.tool, row.key, row.args, row.answer],
        )?;
        c.execute(
            "DELETE FROM idempotency_keys WHERE agent_id = ?1 AND seq NOT IN
                (SELECT seq FROM idempotency_keys WHERE agent_id = ?1 ORDER BY seq DESC LIMIT ?2)",
            args![row.agent_id, KEPT_PER_IDENTITY],
        )?;
        Ok(())
    }
}

/// Every kept answer, oldest first.
pub fn load_all(c: &mut Sql) -> sql::Result<Vec<KeptRow>> {
    c.query(
        "SELECT agent_id, tool, key, args, answer FROM idempotency_keys ORDER BY seq",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok(KeptRow {
            agent_id: r.get("agent_id")?,
            tool: r.get("tool")?,
            key: r.get("key")?,
            args: r.get("args")?,
            answer: r.get("answer")?,
        })
    })
    .collect()
}

/// One piece of a module's kept state: `value` is JSON text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateRow {
    pub module: String,
    pub key: String,
    pub value: String,
}

/// Keeps `value` as `module`'s state under `key`, in place of what was there.
pub fn put_state(row: StateRow) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "DELETE FROM kept_state WHERE module = ?1 AND key = ?2",
            args![&row.module, &row.key],
        )?;
        c.execute(
            "INSERT INTO kept_state (module, key, value) VALUES (?1, ?2, ?3)",
            args![row.module, row.key, row.value],
        )?;
        Ok(())
    }
}

/// Forgets `module`'s state under `key`.
pub fn drop_state(
    module: &'static str,
    key: String,
) -> impl FnOnce(&mut Sql) -> sql::Result<()> + Send + 'static {
    move |c| {
        c.execute(
            "DELETE FROM kept_state WHERE module = ?1 AND key = ?2",
            args![module, key],
        )?;
        Ok(())
    }
}

fn load_state(c: &mut Sql) -> sql::Result<Vec<StateRow>> {
    c.query(
        "SELECT module, key, value FROM kept_state ORDER BY module, key",
        &[],
    )?
    .iter()
    .map(|r| {
        Ok(StateRow {
            module: r.get("module")?,
            key: r.get("key")?,
            value: r.get("value")?,
        })
    })
    .collect()
}

/// Everything kept, for the modules as the town opens.
#[derive(Debug, Default)]
pub struct Kept {
    /// Every kept answer, oldest first.
    pub answers: Vec<KeptRow>,
    /// Every module's kept state.
    pub state: Vec<StateRow>,
}

impl Kept {
    /// `module`'s kept state, by key.
    pub fn state_of<'a>(&'a self, module: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.state
            .iter()
            .filter(move |r| r.module == module)
            .map(|r| (r.key.as_str(), r.value.as_str()))
    }
}

impl super::Store {
    /// Every kept answer, oldest first (see [`load_all`]).
    pub async fn kept_answers(&self) -> Result<Vec<KeptRow>, super::StoreError> {
        self.call(load_all).await
    }

    /// `module`'s state under `key`, if it keeps any: or else `value`, kept there now. The read
    /// and the write are one transaction, so two callers end up with the same value.
    pub async fn kept_or_keep(
        &self,
        module: &'static str,
        key: &'static str,
        value: String,
    ) -> Result<String, super::StoreError> {
        self.call(move |c| {
            let found = c.first(
                "SELECT value FROM kept_state WHERE module = ?1 AND key = ?2",
                args![module, key],
            )?;
            if let Some(row) = found {
                return row.get("value");
            }
            c.execute(
                "INSERT INTO kept_state (module, key, value) VALUES (?1, ?2, ?3)",
                args![module, key, &value],
            )?;
            Ok(value)
        })
        .await
    }

    /// Everything kept (see [`Kept`]).
    pub async fn kept(&self) -> Result<Kept, super::StoreError> {
        self.call(|c| {
            Ok(Kept {
                answers: load_all(c)?,
                state: load_state(c)?,
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[tokio::test]
    async fn each_identity_keeps_only_its_newest_answers() {
        let store = Store::open_in_memory().unwrap();
        store
            .call(|c| {
                c.batch("INSERT INTO agents (agent_id, name) VALUES ('a', 'Ann'), ('b', 'Bob');")
            })
            .await
            .unwrap();
        let row = |agent: &str, n: usize| KeptRow {
            agent_id: agent.into(),
            tool: "t".into(),
            key: format!("key-{n:04}"),
            args: "{}".into(),
            answer: "[[],null]".into(),
        };
        store.call(keep(row("b", 0))).await.unwrap();
        for n in 0..KEPT_PER_IDENTITY + 4 {
            store.call(keep(row("a", n))).await.unwrap();
        }
        let all = store.kept_answers().await.unwrap();
        let ann: Vec<&KeptRow> = all.iter().filter(|r| r.agent_id == "a").collect();
        assert_eq!(ann.len(), KEPT_PER_IDENTITY);
        assert_eq!(ann[0].key, "key-0004", "the oldest four went");
        assert!(all.iter().any(|r| r.agent_id == "b"), "Bob's are his own");
        // A key is kept once per identity and tool.
        assert!(store.call(keep(row("b", 0))).await.is_err());
    }

    #[tokio::test]
    async fn a_modules_state_is_kept_replaced_and_dropped_by_key() {
        let store = Store::open_in_memory().unwrap();
        let row = |key: &str, value: &str| StateRow {
            module: "chess".into(),
            key: key.into(),
            value: value.into(),
        };
        store.call(put_state(row("7", "{\"a\":1}"))).await.unwrap();
        store.call(put_state(row("7", "{\"a\":2}"))).await.unwrap();
        store.call(put_state(row("9", "{}"))).await.unwrap();
        store.call(drop_state("chess", "9".into())).await.unwrap();
        let kept = store.kept().await.unwrap();
        assert_eq!(kept.state, [row("7", "{\"a\":2}")]);
        assert_eq!(
            kept.state_of("chess").collect::<Vec<_>>(),
            [("7", "{\"a\":2}")]
        );
        assert_eq!(kept.state_of("werewolf").count(), 0);
    }
}
