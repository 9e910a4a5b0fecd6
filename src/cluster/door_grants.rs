//! OAuth's authorization server, the world's side of [`grants`](super::grants) (the rules are
//! `moot_kernel::oauth`'s; the pages and HTTP are the web's): clients registered and stored, a
//! person's name and password checked and a code issued, codes and refresh tokens exchanged
//! for tokens, stored before the client hears of them.

use std::net::IpAddr;
use std::time::Instant;

use serde_json::{Value, json};

use super::calls::{Called, written};
use super::door::Door;
use super::grants::{AllowRefused, AuthRequest, OAuthAsk, OAuthRefused, TokenRequest, refused};
use super::signed::lock;
use moot_kernel::oauth::{self, Client, Grant};
use moot_kernel::store::oauth::{TokenRow, now_ms};

impl Door {
    pub(super) async fn oauth(&self, ask: OAuthAsk) -> Called {
        match ask {
            OAuthAsk::Check(q) => written(&self.checked(&q).await.map(|c| c.client_name)),
            OAuthAsk::Allow {
                request,
                ip,
                name,
                password,
            } => written(&self.allow(request, ip, &name, &password).await),
            OAuthAsk::Register {
                ip,
                client_name,
                redirect_uris,
            } => written(&self.register(ip, client_name, redirect_uris).await),
            OAuthAsk::Token(t) => written(&self.token(t).await),
        }
    }

    /// Checks a request before any page is shown: an unknown client or redirect URI gets an
    /// error page, never a redirect (RFC 6749 §4.1.2.1).
    async fn checked(&self, q: &AuthRequest) -> Result<Client, String> {
        let client = match self.store.client(&q.client_id).await {
            Ok(Some(c)) => c,
            Ok(None) => return Err("This client is not registered with moot.".into()),
            Err(_) => return Err("moot cannot reach its database; try again later.".into()),
        };
        if !client
            .redirect_uris
            .iter()
            .any(|r| oauth::redirect_matches(r, &q.redirect_uri))
        {
            return Err("The redirect URI is not one the client registered.".into());
        }
        if q.response_type != "code" {
            return Err("Only response_type=code is supported.".into());
        }
        if q.code_challenge_method != "S256" || q.code_challenge.len() != 43 {
            return Err("PKCE with code_challenge_method=S256 is required.".into());
        }
        Ok(client)
    }

    async fn allow(
        &self,
        q: AuthRequest,
        ip: IpAddr,
        name: &str,
        password: &str,
    ) -> Result<String, AllowRefused> {
        let client = self.checked(&q).await.map_err(AllowRefused::Request)?;
        let row = self
            .logins
            .check(&self.store, &self.directory, ip, name.trim(), password)
            .await
            .map_err(|why| AllowRefused::SignIn {
                client: client.client_name.clone(),
                why,
            })?;
        let grant = Grant {
            client_id: client.client_id.clone(),
            redirect_uri: q.redirect_uri.clone(),
            challenge: q.code_challenge.clone(),
            agent_id: row.agent_id.clone(),
            resource: q.resource.clone().filter(|r| !r.is_empty()),
        };
        let code = lock(&self.visits.codes)
            .issue(grant, Instant::now())
            .ok_or(AllowRefused::Busy)?;
        tracing::info!(target: moot_kernel::logging::AUDIT, event = "oauth_allowed", name = %row.name, client = %client.client_name, %ip);
        Ok(code)
    }

    async fn register(
        &self,
        ip: Option<IpAddr>,
        client_name: Option<String>,
        redirect_uris: Vec<String>,
    ) -> Result<Value, OAuthRefused> {
        if let Some(ip) = ip
            && self
                .visits
                .registrations
                .take(&ip.into(), tokio::time::Instant::now())
                .is_err()
        {
            return Err(refused(
                429,
                "invalid_request",
                "too many registrations from this address; try again later",
            ));
        }
        let name = oauth::check_registration(client_name.as_deref(), &redirect_uris)
            .map_err(|why| refused(400, "invalid_redirect_uri", &why))?;
        let client = Client {
            client_id: format!("moot-client-{}", oauth::secret()),
            client_name: name,
            redirect_uris,
        };
        if let Err(e) = self.store.register_client(client.clone()).await {
            tracing::error!(error = %e, "cannot store an OAuth client");
            return Err(refused(503, "temporarily_unavailable", "try again"));
        }
        tracing::info!(target: moot_kernel::logging::AUDIT, event = "oauth_client_registered", client = %client.client_name);
        Ok(json!({
            "client_id": client.client_id,
            "client_id_issued_at": now_ms() / 1000,
            "client_name": client.client_name,
            "redirect_uris": client.redirect_uris,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "scope": oauth::SCOPE,
        }))
    }

    async fn token(&self, t: TokenRequest) -> Result<Value, OAuthRefused> {
        let bad = |error: &str, why: &str| refused(400, error, why);
        let (agent_id, client_id, replaced) = match t.grant_type.as_str() {
            "authorization_code" => {
                let Some(grant) = lock(&self.visits.codes).take(&t.code, Instant::now()) else {
                    return Err(bad("invalid_grant", "the code is unknown, used or expired"));
                };
                oauth::exchange_ok(&grant, &t.client_id, &t.redirect_uri, &t.code_verifier)
                    .map_err(|why| bad("invalid_grant", why))?;
                (grant.agent_id, grant.client_id, None)
            }
            "refresh_token" => {
                let hash = oauth::token_hash(&t.refresh_token);
                let Some(old) = self.directory.take_grant(&hash) else {
                    return Err(bad("invalid_grant", "the refresh token is unknown or used"));
                };
                if !old.refresh || old.client_id != t.client_id || old.expires_ms < now_ms() {
                    return Err(bad(
                        "invalid_grant",
                        "the refresh token is not this client's, or expired",
                    ));
                }
                (old.agent_id, old.client_id, Some(hash))
            }
            _ => {
                return Err(bad(
                    "unsupported_grant_type",
                    "grant_type must be authorization_code or refresh_token",
                ));
            }
        };
        let access = format!("{}{}", oauth::ACCESS_PREFIX, oauth::secret());
        let refresh = format!("{}{}", oauth::REFRESH_PREFIX, oauth::secret());
        let row = |token: &str, is_refresh: bool, life: std::time::Duration| TokenRow {
            token_hash: oauth::token_hash(token),
            refresh: is_refresh,
            agent_id: agent_id.clone(),
            client_id: client_id.clone(),
            expires_ms: now_ms() + life.as_millis() as i64,
        };
        let rows = vec![
            row(&access, false, oauth::ACCESS_LIFETIME),
            row(&refresh, true, oauth::REFRESH_LIFETIME),
        ];
        // Stored before the client hears of it, like everything else.
        if let Err(e) = self.store.keep_tokens(rows.clone(), replaced).await {
            tracing::error!(error = %e, "cannot store OAuth tokens");
            return Err(refused(503, "temporarily_unavailable", "try again"));
        }
        for r in rows {
            self.directory.keep_grant(r);
        }
        tracing::info!(target: moot_kernel::logging::AUDIT, event = "token_issued", kind = "oauth", %agent_id, client = %client_id);
        Ok(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": oauth::ACCESS_LIFETIME.as_secs(),
            "refresh_token": refresh,
            "scope": oauth::SCOPE,
        }))
    }
}
