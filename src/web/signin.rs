//! Signing in and out of the web pages with a character's name and password (or an API token),
//! and the checks every change a page asks for must pass: the session's CSRF token and an
//! Origin from this site.

use axum::Json;
use axum::extract::rejection::FormRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use serde::Deserialize;
use serde_json::json;

use super::cookies;
use super::{Web, refused};
use crate::cluster::visits::{NotMade, WebAsk};
use crate::logins::CreateRefused;
use crate::logins::{BAD_LOGIN, Refused};

#[derive(Deserialize, Default)]
pub(super) struct Next {
    next: Option<String>,
}

pub(super) async fn login_page(Query(q): Query<Next>) -> Html<String> {
    Html(login_html(q.next.as_deref().unwrap_or("/"), None))
}

fn login_html(next: &str, error: Option<&str>) -> String {
    let error = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", escape(e)))
        .unwrap_or_default();
    format!(
        r#"<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in · moot</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:26rem;margin:2rem auto;padding:0 1rem}}
label{{display:block;margin:.8rem 0 .2rem}}input{{width:100%;padding:.5rem;font:inherit;box-sizing:border-box}}
button{{margin-top:1rem;padding:.5rem 1.2rem;font:inherit}}.error{{color:#b00020}}</style></head>
<body>{nav}<main><h1>Sign in</h1>{error}
<form method="post" action="/login">
<input type="hidden" name="next" value="{next}">
<label for="name">Character name</label><input id="name" name="name" autocomplete="username" required>
<label for="password">Password (or API token)</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<h2>New here? Make a character</h2>
<form method="post" action="/signup">
<input type="hidden" name="next" value="{next}">
<label for="new-name">Character name (2 to 20 letters, digits, _ or -)</label><input id="new-name" name="name" autocomplete="username" required>
<label for="new-password">Password</label><input id="new-password" name="password" type="password" autocomplete="new-password" required>
<button type="submit">Make my character</button></form>
<p>The same character plays by telnet too (<a href="/#join">how to connect</a>).</p>
<p><a href="/">Back to the town</a></p></main></body></html>"#,
        next = escape(&local(next)),
        nav = crate::http::nav::NAV,
    )
}

#[derive(Deserialize)]
pub(super) struct LoginForm {
    name: String,
    password: String,
    next: Option<String>,
}

/// Signs in with a character's name and password (or an API token): the same check, and the
/// same limits on guessing, as telnet's `connect`.
pub(super) async fn login(
    State(web): State<Web>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    form: Result<axum::Form<LoginForm>, FormRejection>,
) -> Response {
    let form = match form {
        Ok(axum::Form(form)) => form,
        Err(e) => return unreadable(&e),
    };
    let next = local(form.next.as_deref().unwrap_or("/"));
    if !web.same_origin(&headers) {
        return refused(StatusCode::FORBIDDEN, "Sign in from moot's own page.");
    }
    let ip = peer_ip(&extensions);
    let ask = WebAsk::SignIn {
        ip,
        name: form.name.trim().to_owned(),
        password: form.password,
    };
    let why = match web.ask::<Result<String, Refused>>(ask).await {
        Ok(Ok(id)) => return signed_in(&web, &id, next),
        Ok(Err(why)) => refusal(why),
        Err(r) => return r,
    };
    (
        StatusCode::UNAUTHORIZED,
        Html(login_html(&next, Some(&why))),
    )
        .into_response()
}

/// A sign-in or sign-up form that cannot be read (a field missing, not a form at all): the
/// login page again, saying so, rather than axum's plain text.
fn unreadable(e: &FormRejection) -> Response {
    tracing::debug!(error = %e, "a sign-in form could not be read");
    let (status, why) = match e.status() {
        StatusCode::PAYLOAD_TOO_LARGE => (e.status(), "That is more than a sign-in form holds."),
        _ => (StatusCode::BAD_REQUEST, "Fill in a name and a password."),
    };
    (status, Html(login_html("/", Some(why)))).into_response()
}

/// Makes a character from the web, as telnet's `create` does (the same rules, and the limit
/// on what one address may make), and signs them in.
pub(super) async fn signup(
    State(web): State<Web>,
    headers: HeaderMap,
    extensions: axum::http::Extensions,
    form: Result<axum::Form<LoginForm>, FormRejection>,
) -> Response {
    let form = match form {
        Ok(axum::Form(form)) => form,
        Err(e) => return unreadable(&e),
    };
    let next = local(form.next.as_deref().unwrap_or("/"));
    if !web.same_origin(&headers) {
        return refused(
            StatusCode::FORBIDDEN,
            "Make a character from moot's own page.",
        );
    }
    let ip = peer_ip(&extensions);
    let name = form.name.trim().to_owned();
    let ask = WebAsk::SignUp {
        ip,
        name: name.clone(),
        password: form.password,
    };
    let why = match web.ask::<Result<String, NotMade>>(ask).await {
        Ok(Ok(id)) => return signed_in(&web, &id, next),
        Ok(Err(NotMade::Refused(CreateRefused::Invalid(why)))) => why,
        Ok(Err(NotMade::Refused(CreateRefused::Taken))) => {
            format!("The name \"{name}\" is already in use; please choose another.")
        }
        Ok(Err(NotMade::Refused(CreateRefused::Unavailable))) => {
            "Sorry, moot cannot reach its database. Please try again later.".to_owned()
        }
        Ok(Err(NotMade::TooMany(wait))) => format!(
            "Too many characters made from your address; try again in {}.",
            moot_kernel::limits::seconds(wait)
        ),
        Ok(Err(NotMade::Banned)) => {
            "That character, or your address, is banned from moot.".to_owned()
        }
        Err(r) => return r,
    };
    (StatusCode::BAD_REQUEST, Html(login_html(&next, Some(&why)))).into_response()
}

/// The answer that opens a session in the browser (its cookie) and leads on to `next`.
fn signed_in(web: &Web, id: &str, next: String) -> Response {
    (
        StatusCode::SEE_OTHER,
        [
            (
                header::SET_COOKIE,
                cookies::set_cookie(Some(id), web.secure),
            ),
            (header::LOCATION, next),
        ],
    )
        .into_response()
}

/// The address the listener saw (loopback when it knows none, as in tests in-process).
pub(super) fn peer_ip(extensions: &axum::http::Extensions) -> std::net::IpAddr {
    crate::http::listener::peer(extensions)
        .map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST), |a| {
            a.ip()
        })
}

#[derive(Deserialize)]
pub(super) struct LogoutForm {
    csrf: String,
}

pub(super) async fn logout(
    State(web): State<Web>,
    headers: HeaderMap,
    axum::Form(form): axum::Form<LogoutForm>,
) -> Response {
    let Some(id) = cookies::session_id(&headers, web.secure) else {
        return Redirect::to("/").into_response();
    };
    // One from another site's page shows no token of moot's: refused if someone is signed in.
    let csrf = if web.same_origin(&headers) {
        form.csrf
    } else {
        String::new()
    };
    let forbidden = match web.ask::<bool>(WebAsk::SignOut { cookie: id, csrf }).await {
        Ok(refused) => refused,
        Err(r) => return r,
    };
    if forbidden {
        return refused(
            StatusCode::FORBIDDEN,
            "This sign-out did not come from moot's own page.",
        );
    }
    (
        StatusCode::SEE_OTHER,
        [
            (header::SET_COOKIE, cookies::set_cookie(None, web.secure)),
            (header::LOCATION, "/".to_owned()),
        ],
    )
        .into_response()
}

/// Who is signed in, for the pages' scripts (and the token they send back with changes).
pub(super) async fn me(State(web): State<Web>, headers: HeaderMap) -> Response {
    match web.visitor(&headers).await {
        Ok(Some(s)) => Json(json!({ "signedIn": true, "name": s.name, "csrf": s.csrf })),
        Ok(None) => Json(json!({ "signedIn": false })),
        Err(r) => return r,
    }
    .into_response()
}

/// What a page says when a sign-in is refused (the login form and OAuth's consent page).
pub(super) fn refusal(why: Refused) -> String {
    match why {
        Refused::Bad => BAD_LOGIN.to_owned(),
        Refused::TooMany(wait) => format!(
            "Too many login attempts; try again in {}.",
            moot_kernel::limits::seconds(wait)
        ),
        Refused::Unavailable => {
            "Sorry, moot cannot reach its database. Please try again later.".to_owned()
        }
        Refused::Banned => "That character, or your address, is banned from moot.".to_owned(),
    }
}

impl Web {
    /// A browser says where a request came from; one from another site's page is refused
    /// (the SameSite cookie already keeps it signed out, and this keeps it from signing in).
    /// The page's origin must be moot's exactly, scheme and all: the public URL's
    /// (`--public-url`, as a TLS proxy in front is reached), or else `http://` and the
    /// request's own host.
    pub(super) fn same_origin(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else {
            return true;
        };
        match &self.public_url {
            Some(url) => origin_of(url).is_some_and(|o| o == origin_of(origin).unwrap_or_default()),
            None => headers
                .get(header::HOST)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|host| origin.eq_ignore_ascii_case(&format!("http://{host}"))),
        }
    }
}

/// The origin of a URL as a browser sends it: scheme and host in lower case, and the port
/// only where it is not the scheme's own (`https://Moot.example:443/x` →
/// `https://moot.example`); none for what is not an http(s) URL.
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let authority = rest.split(['/', '?', '#']).next()?.to_ascii_lowercase();
    if authority.is_empty() || authority.contains('@') {
        return None;
    }
    let authority = match (scheme.as_str(), authority.rsplit_once(':')) {
        ("https", Some((host, "443"))) | ("http", Some((host, "80"))) => host.to_owned(),
        ("https" | "http", _) => authority,
        _ => return None,
    };
    Some(format!("{scheme}://{authority}"))
}

/// Only a path on this site may be where signing in leads: one `/`, then no second `/` or
/// `\\`, and no whitespace or control character anywhere (a browser drops a tab or a line
/// break from a URL, so `/<tab>/evil.example/` would lead to `//evil.example/`, another site).
fn local(next: &str) -> String {
    let safe = next.starts_with('/')
        && !next[1..].starts_with(['/', '\\'])
        && !next.contains('\\')
        && !next.chars().any(|c| c.is_whitespace() || c.is_control());
    if safe {
        next.to_owned()
    } else {
        "/".to_owned()
    }
}

/// `s` made safe to put in HTML text or a quoted attribute.
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_origin_is_scheme_host_and_a_port_not_the_schemes_own() {
        assert_eq!(
            origin_of("https://Moot.example:443/x?y").as_deref(),
            Some("https://moot.example")
        );
        assert_eq!(
            origin_of("http://127.0.0.1:8080").as_deref(),
            Some("http://127.0.0.1:8080")
        );
        assert_eq!(origin_of("http://h:80").as_deref(), Some("http://h"));
        assert_eq!(
            origin_of("https://h:8443").as_deref(),
            Some("https://h:8443")
        );
        for not in ["null", "ftp://h", "https://", "https://u@h", "h"] {
            assert_eq!(origin_of(not), None, "{not}");
        }
    }

    #[test]
    fn signing_in_leads_only_to_a_path_here() {
        for ok in ["/", "/werewolf/board", "/chess/3?x=1#y", "/%2F%2Fevil"] {
            assert_eq!(local(ok), ok);
        }
        for bad in [
            "//evil",
            "/\\evil",
            "/\t/evil",
            "/x\ny",
            "https://evil",
            "",
            "evil",
            "/\u{7f}",
        ] {
            assert_eq!(local(bad), "/", "{bad:?}");
        }
    }
}
