//! OAuth clients and tokens as stored (see `crate::oauth`): clients so that a host registered
//! once keeps working across restarts, tokens (as hashes) so that a restart signs nobody out.

use super::sql::{DbError, args};
use super::{Store, StoreError};
use crate::oauth::{Client, MAX_CLIENTS};

/// A token as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRow {
    pub token_hash: String,
    pub refresh: bool,
    pub agent_id: String,
    pub client_id: String,
    pub expires_ms: i64,
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

impl Store {
    /// Keeps a new client, dropping the oldest past [`MAX_CLIENTS`].
    pub async fn register_client(&self, client: Client) -> Result<(), StoreError> {
        let uris = serde_json::to_string(&client.redirect_uris)
            .map_err(|e| StoreError::Db(e.to_string()))?;
        self.call(move |c| {
            c.execute(
                "INSERT INTO oauth_clients (client_id, client_name, redirect_uris, created_ms)
                 VALUES (?1, ?2, ?3, ?4)",
                args![client.client_id, client.client_name, uris, now_ms()],
            )?;
            c.execute(
                "DELETE FROM oauth_clients WHERE client_id NOT IN (SELECT client_id FROM oauth_clients
                 ORDER BY created_ms DESC LIMIT ?1)",
                args![MAX_CLIENTS],
            )?;
            Ok(())
        })
        .await
    }

    pub async fn client(&self, client_id: &str) -> Result<Option<Client>, StoreError> {
        let id = client_id.to_owned();
        self.call(move |c| {
            c.first(
                "SELECT client_id, client_name, redirect_uris FROM oauth_clients WHERE client_id = ?1",
                args![id],
            )?
            .map(|r| -> Result<Client, DbError> {
                let uris: String = r.get("redirect_uris")?;
                Ok(Client {
                    client_id: r.get("client_id")?,
                    client_name: r.get("client_name")?,
                    redirect_uris: serde_json::from_str(&uris).unwrap_or_default(),
                })
            })
            .transpose()
        })
        .await
    }

    /// Stores new tokens and forgets `replaced` (a refresh token used up), in one write.
    pub async fn keep_tokens(
        &self,
        rows: Vec<TokenRow>,
        replaced: Option<String>,
    ) -> Result<(), StoreError> {
        self.call(move |c| {
            if let Some(old) = replaced {
                c.execute("DELETE FROM oauth_tokens WHERE token_hash = ?1", args![old])?;
            }
            c.execute(
                "DELETE FROM oauth_tokens WHERE expires_ms < ?1",
                args![now_ms()],
            )?;
            for t in rows {
                c.execute(
                    "INSERT INTO oauth_tokens (token_hash, kind, agent_id, client_id, expires_ms)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                    args![
                        t.token_hash,
                        if t.refresh { "refresh" } else { "access" },
                        t.agent_id,
                        t.client_id,
                        t.expires_ms
                    ],
                )?;
            }
            Ok(())
        })
        .await
    }

    /// Every token still good, for the directory at start-up.
    pub async fn live_tokens(&self) -> Result<Vec<TokenRow>, StoreError> {
        self.call(|c| {
            c.query(
                "SELECT token_hash, kind, agent_id, client_id, expires_ms FROM oauth_tokens
                 WHERE expires_ms >= ?1",
                args![now_ms()],
            )?
            .iter()
            .map(|r| {
                let kind: String = r.get("kind")?;
                Ok(TokenRow {
                    token_hash: r.get("token_hash")?,
                    refresh: kind == "refresh",
                    agent_id: r.get("agent_id")?,
                    client_id: r.get("client_id")?,
                    expires_ms: r.get("expires_ms")?,
                })
            })
            .collect()
        })
        .await
    }
}
