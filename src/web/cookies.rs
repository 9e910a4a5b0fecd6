//! The web's cookie: a random session id (the world holds whose it is: see
//! `cluster::signed`) in an HttpOnly, SameSite=Strict cookie; where moot is reached over https
//! (`--public-url https://…`) it is also `Secure`, under a `__Host-` name, which a browser
//! keeps only from a secure page of this very host (no subdomain or plain-http page can set or
//! shadow it).

use axum::http::HeaderMap;

/// The cookie's name over plain http.
pub const COOKIE: &str = "moot_session";

/// The cookie's name over https.
pub const SECURE_COOKIE: &str = "__Host-moot_session";

/// The cookie's name where the public URL is (`secure`) or is not https.
fn name(secure: bool) -> &'static str {
    if secure { SECURE_COOKIE } else { COOKIE }
}

/// The session id a request's cookie carries, if any.
pub fn session_id(headers: &HeaderMap, secure: bool) -> Option<String> {
    let cookie = name(secure);
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            let (k, v) = c.trim().split_once('=')?;
            (k == cookie && !v.is_empty()).then(|| v.to_owned())
        })
}

/// The `Set-Cookie` value that opens (or, with `None`, ends) a session in the browser.
pub fn set_cookie(id: Option<&str>, secure: bool) -> String {
    let (cookie, secure) = (name(secure), if secure { "; Secure" } else { "" });
    match id {
        Some(id) => format!("{cookie}={id}; Path=/; HttpOnly; SameSite=Strict{secure}"),
        None => format!("{cookie}=; Path=/; HttpOnly; SameSite=Strict{secure}; Max-Age=0"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert("cookie", "a=1; moot_session=abc; b=2".parse().unwrap());
        assert_eq!(session_id(&h, false).as_deref(), Some("abc"));
        assert!(set_cookie(Some("x"), false).contains("HttpOnly; SameSite=Strict"));
        assert!(!set_cookie(Some("x"), false).contains("Secure"));
    }

    /// Over https the cookie is `Secure` and `__Host-`, and the plain one is not read (a
    /// plain-http page could have set it).
    #[test]
    fn over_https_the_cookie_is_secure_and_host_only() {
        let set = set_cookie(Some("x"), true);
        assert!(set.starts_with("__Host-moot_session=x; Path=/;"), "{set}");
        assert!(set.contains("; Secure") && !set.contains("Domain"), "{set}");
        let mut h = HeaderMap::new();
        h.insert("cookie", "moot_session=plain".parse().unwrap());
        assert_eq!(session_id(&h, true), None);
        h.insert(
            "cookie",
            "moot_session=plain; __Host-moot_session=s".parse().unwrap(),
        );
        assert_eq!(session_id(&h, true).as_deref(), Some("s"));
    }
}
