//! The OAuth 2.1 endpoints remote MCP hosts look for (MCP's authorization spec): protected
//! resource metadata (RFC 9728), authorization server metadata (RFC 8414), dynamic client
//! registration (RFC 7591), the authorization page where a person signs in with their
//! character's name and password and allows the client, and the token endpoint (code + PKCE,
//! refresh). The rules are in `moot_kernel::oauth`; this only translates HTTP.

use std::sync::PoisonError;
use std::time::Instant;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use serde_json::json;

use super::Web;
use super::signin::{escape, refusal, same_origin};
use moot_kernel::oauth::{self, Client, Grant};
use moot_kernel::store::oauth::{TokenRow, now_ms};

pub(super) fn base(web: &Web, headers: &HeaderMap) -> String {
    oauth::public_base(
        web.public_url.as_deref(),
        headers.get(header::HOST).and_then(|v| v.to_str().ok()),
    )
}

pub(super) async fn protected_resource(State(web): State<Web>, headers: HeaderMap) -> Response {
    resource_metadata(&web, &headers, "/mcp")
}

/// The metadata of a set's own address (`/mcp/chess`), as RFC 9728 places it.
pub(super) async fn toolset_resource(
    State(web): State<Web>,
    Path(set): Path<String>,
    headers: HeaderMap,
) -> Response {
    match crate::games::toolset_named(&set) {
        Some(t) => resource_metadata(&web, &headers, &crate::games::toolset_path(&t)),
        None => super::refused(
            StatusCode::NOT_FOUND,
            &format!("There is no set of tools called `{set}`."),
        ),
    }
}

fn resource_metadata(web: &Web, headers: &HeaderMap, path: &str) -> Response {
    let base = base(web, headers);
    Json(json!({
        "resource": format!("{base}{path}"),
        "authorization_servers": [base],
        "bearer_methods_supported": ["header"],
        "scopes_supported": [oauth::SCOPE],
        "resource_name": "moot",
    }))
    .into_response()
}

pub(super) async fn server_metadata(State(web): State<Web>, headers: HeaderMap) -> Response {
    let base = base(&web, &headers);
    Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "registration_endpoint": format!("{base}/oauth/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": [oauth::SCOPE],
    }))
    .into_response()
}

/// An OAuth error answer (RFC 6749 §5.2).
fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        Json(json!({ "error": error, "error_description": description })),
    )
        .into_response()
}

#[derive(Deserialize)]
pub(super) struct Registration {
    #[serde(default)]
    redirect_uris: Vec<String>,
    client_name: Option<String>,
}

pub(super) async fn register(
    State(web): State<Web>,
    extensions: axum::http::Extensions,
    Json(r): Json<Registration>,
) -> Response {
    if let Some(peer) = crate::http::listener::peer(&extensions)
        && web
            .registrations
            .take(&peer.ip().into(), tokio::time::Instant::now())
            .is_err()
    {
        return oauth_error(
            StatusCode::TOO_MANY_REQUESTS,
            "invalid_request",
            "too many registrations from this address; try again later",
        );
    }
    let name = match oauth::check_registration(r.client_name.as_deref(), &r.redirect_uris) {
        Ok(name) => name,
        Err(why) => return oauth_error(StatusCode::BAD_REQUEST, "invalid_redirect_uri", &why),
    };
    let client = Client {
        client_id: format!("moot-client-{}", oauth::secret()),
        client_name: name,
        redirect_uris: r.redirect_uris,
    };
    if let Err(e) = web.store.register_client(client.clone()).await {
        tracing::error!(error = %e, "cannot store an OAuth client");
        return oauth_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "temporarily_unavailable",
            "try again",
        );
    }
    tracing::info!(target: moot_kernel::logging::AUDIT, event = "oauth_client_registered", client = %client.client_name);
    (
        StatusCode::CREATED,
        Json(json!({
            "client_id": client.client_id,
            "client_id_issued_at": now_ms() / 1000,
            "client_name": client.client_name,
            "redirect_uris": client.redirect_uris,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
            "scope": oauth::SCOPE,
        })),
    )
        .into_response()
}

/// What an authorization request carries (in the query, then in the form's hidden fields).
#[derive(Deserialize, Clone, Default)]
pub(super) struct AuthRequest {
    #[serde(default)]
    response_type: String,
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    redirect_uri: String,
    #[serde(default)]
    code_challenge: String,
    #[serde(default)]
    code_challenge_method: String,
    state: Option<String>,
    resource: Option<String>,
    scope: Option<String>,
}

/// Checks a request before any page is shown: an unknown client or redirect URI gets an error
/// page, never a redirect (RFC 6749 §4.1.2.1).
async fn checked(web: &Web, q: &AuthRequest) -> Result<Client, Response> {
    let page = |why: &str| {
        (
            StatusCode::BAD_REQUEST,
            Html(page(
                "Cannot authorize",
                &format!("<p class=\"error\">{}</p>", escape(why)),
            )),
        )
            .into_response()
    };
    let client = match web.store.client(&q.client_id).await {
        Ok(Some(c)) => c,
        Ok(None) => return Err(page("This client is not registered with moot.")),
        Err(_) => return Err(page("moot cannot reach its database; try again later.")),
    };
    if !client
        .redirect_uris
        .iter()
        .any(|r| oauth::redirect_matches(r, &q.redirect_uri))
    {
        return Err(page("The redirect URI is not one the client registered."));
    }
    if q.response_type != "code" {
        return Err(page("Only response_type=code is supported."));
    }
    if q.code_challenge_method != "S256" || q.code_challenge.len() != 43 {
        return Err(page("PKCE with code_challenge_method=S256 is required."));
    }
    Ok(client)
}

fn page(title: &str, body: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title} · moot</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}}
label{{display:block;margin:.8rem 0 .2rem}}input{{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}}
button{{margin:1rem .5rem 0 0;padding:.5rem 1.2rem;font:inherit}}.error{{color:#b00020}}</style></head>
<body><h1>{title}</h1>{body}</body></html>"#,
        title = escape(title)
    )
}

fn consent_page(client: &Client, q: &AuthRequest, error: Option<&str>) -> String {
    let hidden = |name: &str, value: &str| {
        format!(
            "<input type=\"hidden\" name=\"{name}\" value=\"{}\">",
            escape(value)
        )
    };
    let error = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e)))
        .unwrap_or_default();
    let fields = [
        hidden("response_type", &q.response_type),
        hidden("client_id", &q.client_id),
        hidden("redirect_uri", &q.redirect_uri),
        hidden("code_challenge", &q.code_challenge),
        hidden("code_challenge_method", &q.code_challenge_method),
        hidden("state", q.state.as_deref().unwrap_or("")),
        hidden("resource", q.resource.as_deref().unwrap_or("")),
        hidden("scope", q.scope.as_deref().unwrap_or("")),
    ]
    .concat();
    page(
        "Allow access to moot",
        &format!(
            r#"{error}<p><strong>{client}</strong> asks to act as your character in moot: to
look, talk, walk and play through every tool, as you would on telnet. It gets no password;
you can sign it out by changing your token with <code>@token new</code>.</p>
<form method="post" action="/oauth/authorize">{fields}
<label for="name">Character name</label><input id="name" name="name" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></form>"#,
            client = escape(&client.client_name),
        ),
    )
}

pub(super) async fn authorize_page(
    State(web): State<Web>,
    Query(q): Query<AuthRequest>,
) -> Response {
    match checked(&web, &q).await {
        Ok(client) => Html(consent_page(&client, &q, None)).into_response(),
        Err(r) => r,
    }
}

#[derive(Deserialize)]
pub(super) struct Decision {
    #[serde(flatten)]
    request: AuthRequest,
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    decision: String,
}

/// The redirect back to the client, with `params` added to its URI.
fn back_to(redirect_uri: &str, params: &[(&str, &str)]) -> Response {
    let mut url = redirect_uri.to_owned();
    let mut sep = if url.contains('?') { '&' } else { '?' };
    for (k, v) in params {
        url.push(sep);
        url.push_str(k);
        url.push('=');
        url.extend(form_urlencoded::byte_serialize(v.as_bytes()));
        sep = '&';
    }
    Redirect::to(&url).into_response()
}

pub(super) async fn authorize(
    State(web): State<Web>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    axum::Form(d): axum::Form<Decision>,
) -> Response {
    // Only moot's own page may answer for a person.
    if !same_origin(&headers) {
        return (
            StatusCode::FORBIDDEN,
            Html(page(
                "Cannot authorize",
                "<p>Answer from moot's own page.</p>",
            )),
        )
            .into_response();
    }
    let q = d.request;
    let client = match checked(&web, &q).await {
        Ok(c) => c,
        Err(r) => return r,
    };
    let state = q.state.clone().filter(|s| !s.is_empty());
    let with_state = |mut params: Vec<(&'static str, String)>| {
        if let Some(s) = &state {
            params.push(("state", s.clone()));
        }
        params
    };
    if d.decision != "allow" {
        let params = with_state(vec![("error", "access_denied".into())]);
        let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        return back_to(&q.redirect_uri, &refs);
    }
    let ip = crate::http::listener::peer(&extensions)
        .map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), |a| {
            a.ip()
        });
    let row = match web
        .logins
        .check(&web.store, &web.directory, ip, d.name.trim(), &d.password)
        .await
    {
        Ok(row) => row,
        Err(why) => {
            return (
                StatusCode::UNAUTHORIZED,
                Html(consent_page(&client, &q, Some(&refusal(why)))),
            )
                .into_response();
        }
    };
    let grant = Grant {
        client_id: client.client_id.clone(),
        redirect_uri: q.redirect_uri.clone(),
        challenge: q.code_challenge.clone(),
        agent_id: row.agent_id.clone(),
        resource: q.resource.clone().filter(|r| !r.is_empty()),
    };
    let Some(code) = web
        .codes
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .issue(grant, Instant::now())
    else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            Html(page(
                "Cannot authorize",
                "<p>Too many sign-ins at once; try again in a minute.</p>",
            )),
        )
            .into_response();
    };
    tracing::info!(target: moot_kernel::logging::AUDIT, event = "oauth_allowed", name = %row.name, client = %client.client_name, %ip);
    let params = with_state(vec![("code", code)]);
    let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    back_to(&q.redirect_uri, &refs)
}

#[derive(Deserialize)]
pub(super) struct TokenRequest {
    #[serde(default)]
    grant_type: String,
    #[serde(default)]
    code: String,
    #[serde(default)]
    redirect_uri: String,
    #[serde(default)]
    client_id: String,
    #[serde(default)]
    code_verifier: String,
    #[serde(default)]
    refresh_token: String,
}

pub(super) async fn token(
    State(web): State<Web>,
    axum::Form(t): axum::Form<TokenRequest>,
) -> Response {
    let bad = |error: &str, why: &str| oauth_error(StatusCode::BAD_REQUEST, error, why);
    let (agent_id, client_id, replaced) = match t.grant_type.as_str() {
        "authorization_code" => {
            let Some(grant) = web
                .codes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(&t.code, Instant::now())
            else {
                return bad("invalid_grant", "the code is unknown, used or expired");
            };
            if let Err(why) =
                oauth::exchange_ok(&grant, &t.client_id, &t.redirect_uri, &t.code_verifier)
            {
                return bad("invalid_grant", why);
            }
            (grant.agent_id, grant.client_id, None)
        }
        "refresh_token" => {
            let hash = oauth::token_hash(&t.refresh_token);
            let Some(old) = web.directory.take_grant(&hash) else {
                return bad("invalid_grant", "the refresh token is unknown or used");
            };
            if !old.refresh || old.client_id != t.client_id || old.expires_ms < now_ms() {
                return bad(
                    "invalid_grant",
                    "the refresh token is not this client's, or expired",
                );
            }
            (old.agent_id, old.client_id, Some(hash))
        }
        _ => {
            return bad(
                "unsupported_grant_type",
                "grant_type must be authorization_code or refresh_token",
            );
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
    if let Err(e) = web.store.keep_tokens(rows.clone(), replaced).await {
        tracing::error!(error = %e, "cannot store OAuth tokens");
        return oauth_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "temporarily_unavailable",
            "try again",
        );
    }
    for r in rows {
        web.directory.keep_grant(r);
    }
    tracing::info!(target: moot_kernel::logging::AUDIT, event = "token_issued", kind = "oauth", %agent_id, client = %client_id);
    (
        [(header::CACHE_CONTROL, "no-store")],
        Json(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": oauth::ACCESS_LIFETIME.as_secs(),
            "refresh_token": refresh,
            "scope": oauth::SCOPE,
        })),
    )
        .into_response()
}
