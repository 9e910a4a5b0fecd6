//! The web's cookie: a random session id (the world holds whose it is: see
//! `cluster::signed`) in an HttpOnly, SameSite=Strict cookie.

use axum::http::HeaderMap;

/// The cookie's name.
pub const COOKIE: &str = "moot_session";

/// The session id a request's cookie carries, if any.
pub fn session_id(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(axum::http::header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|c| {
            let (k, v) = c.trim().split_once('=')?;
            (k == COOKIE && !v.is_empty()).then(|| v.to_owned())
        })
}

/// The `Set-Cookie` value that opens (or, with `None`, ends) a session in the browser.
pub fn set_cookie(id: Option<&str>) -> String {
    match id {
        Some(id) => format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict"),
        None => format!("{COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_is_found_among_others() {
        let mut h = HeaderMap::new();
        h.insert("cookie", "a=1; moot_session=abc; b=2".parse().unwrap());
        assert_eq!(session_id(&h).as_deref(), Some("abc"));
        assert!(set_cookie(Some("x")).contains("HttpOnly; SameSite=Strict"));
    }
}
