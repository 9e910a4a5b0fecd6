//! The OAuth 2.1 endpoints remote MCP hosts look for (MCP's authorization spec): protected
//! resource metadata (RFC 9728), authorization server metadata (RFC 8414), dynamic client
//! registration (RFC 7591), the authorization page where a person signs in with their
//! character's name and password and allows the client, and the token endpoint (code + PKCE,
//! refresh). The rules are in `moot_kernel::oauth`; this only translates HTTP.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use serde_json::json;

use super::Web;
use super::signin::{escape, refusal};
use crate::cluster::visits::{
    AllowRefused, AuthRequest, OAuthAsk, OAuthRefused, TokenRequest, WebAsk,
};
use moot_kernel::oauth;

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

impl IntoResponse for OAuthRefusedAnswer {
    fn into_response(self) -> Response {
        let r = self.0;
        let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::BAD_REQUEST);
        oauth_error(status, &r.error, &r.description)
    }
}

/// An [`OAuthRefused`] as its answer.
struct OAuthRefusedAnswer(OAuthRefused);

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
    let ask = WebAsk::OAuth(OAuthAsk::Register {
        ip: crate::http::listener::peer(&extensions).map(|p| p.ip()),
        client_name: r.client_name,
        redirect_uris: r.redirect_uris,
    });
    match web
        .ask::<Result<serde_json::Value, OAuthRefused>>(ask)
        .await
    {
        Ok(Ok(client)) => (StatusCode::CREATED, Json(client)).into_response(),
        Ok(Err(why)) => OAuthRefusedAnswer(why).into_response(),
        Err(r) => r,
    }
}

/// An error page, never a redirect, for a request whose client or redirect is not known
/// good (RFC 6749 §4.1.2.1).
fn cannot(why: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Html(page(
            "Cannot authorize",
            &format!("<p class=\"error\">{}</p>", escape(why)),
        )),
    )
        .into_response()
}

/// Checks a request before any page is shown: its client's name, or the error page.
async fn checked(web: &Web, q: &AuthRequest) -> Result<String, Response> {
    match web
        .ask::<Result<String, String>>(WebAsk::OAuth(OAuthAsk::Check(q.clone())))
        .await?
    {
        Ok(name) => Ok(name),
        Err(why) => Err(cannot(&why)),
    }
}

fn page(title: &str, body: &str) -> String {
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title} · moot</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}}
label{{display:block;margin:.8rem 0 .2rem}}input{{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}}
button{{margin:1rem .5rem 0 0;padding:.5rem 1.2rem;font:inherit}}.error{{color:#b00020}}</style></head>
<body>{nav}<main><h1>{title}</h1>{body}</main></body></html>"#,
        title = escape(title),
        nav = crate::http::nav::NAV,
    )
}

fn consent_page(client: &str, q: &AuthRequest, error: Option<&str>) -> String {
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
            client = escape(client),
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
    if !web.same_origin(&headers) {
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
    let state = q.state.clone().filter(|s| !s.is_empty());
    let with_state = |mut params: Vec<(&'static str, String)>| {
        if let Some(s) = &state {
            params.push(("state", s.clone()));
        }
        params
    };
    if d.decision != "allow" {
        // Sent back only to a redirect the client registered.
        if let Err(r) = checked(&web, &q).await {
            return r;
        }
        let params = with_state(vec![("error", "access_denied".into())]);
        let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
        return back_to(&q.redirect_uri, &refs);
    }
    let ip = super::signin::peer_ip(&extensions);
    let ask = WebAsk::OAuth(OAuthAsk::Allow {
        request: q.clone(),
        ip,
        name: d.name,
        password: d.password,
    });
    let code = match web.ask::<Result<String, AllowRefused>>(ask).await {
        Ok(Ok(code)) => code,
        Ok(Err(AllowRefused::Request(why))) => return cannot(&why),
        Ok(Err(AllowRefused::SignIn { client, why })) => {
            return (
                StatusCode::UNAUTHORIZED,
                Html(consent_page(&client, &q, Some(&refusal(why)))),
            )
                .into_response();
        }
        Ok(Err(AllowRefused::Busy)) => {
            return (
                StatusCode::SERVICE_UNAVAILABLE,
                Html(page(
                    "Cannot authorize",
                    "<p>Too many sign-ins at once; try again in a minute.</p>",
                )),
            )
                .into_response();
        }
        Err(r) => return r,
    };
    let params = with_state(vec![("code", code)]);
    let refs: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
    back_to(&q.redirect_uri, &refs)
}

pub(super) async fn token(
    State(web): State<Web>,
    axum::Form(t): axum::Form<TokenRequest>,
) -> Response {
    let ask = WebAsk::OAuth(OAuthAsk::Token(t));
    match web
        .ask::<Result<serde_json::Value, OAuthRefused>>(ask)
        .await
    {
        Ok(Ok(tokens)) => ([(header::CACHE_CONTROL, "no-store")], Json(tokens)).into_response(),
        Ok(Err(why)) => OAuthRefusedAnswer(why).into_response(),
        Err(r) => r,
    }
}
