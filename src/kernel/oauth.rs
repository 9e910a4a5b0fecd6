//! OAuth 2.1 for remote MCP hosts, the pure parts: what a client may register, which redirect
//! URIs are acceptable, PKCE, the short-lived authorization codes, and the shape of tokens. The
//! web face (`web::oauth`) serves the endpoints; the store keeps clients and tokens; the
//! directory checks tokens as it checks every other.
//!
//! moot is its own authorization server: a person signs in with their character's name and
//! password and allows a client, which then acts as that character. Only public clients
//! (authorization code + PKCE S256, no client secret), as MCP hosts are.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::Engine;
use sha2::{Digest, Sha256};

/// How every OAuth access token starts (and refresh token: `moot_oauth_r_`); distinct from the
/// static `moot_<agent>_<secret>` tokens, which keep working beside them.
pub const ACCESS_PREFIX: &str = "moot_oauth_a_";
pub const REFRESH_PREFIX: &str = "moot_oauth_r_";
/// An access token lives an hour; a refresh token thirty days (each use replaces it).
pub const ACCESS_LIFETIME: Duration = Duration::from_secs(3600);
pub const REFRESH_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);
/// An authorization code must be exchanged within a minute, once.
pub const CODE_LIFETIME: Duration = Duration::from_secs(60);
/// Codes waiting at once, across all clients: a stranger cannot make us hold more.
pub const MAX_CODES: usize = 10_000;
/// Registered clients kept; past it the oldest unused go.
pub const MAX_CLIENTS: usize = 10_000;
pub const MAX_REDIRECT_URIS: usize = 8;
pub const MAX_URI_BYTES: usize = 2048;
pub const MAX_NAME_CHARS: usize = 100;
/// The one scope: acting as the character.
pub const SCOPE: &str = "moot";

/// Where this server is, as a client reached it: the operator's `--public-url`, or the
/// request's `Host` (when it is a bare host and port) over http.
pub fn public_base(public_url: Option<&str>, host: Option<&str>) -> String {
    if let Some(url) = public_url {
        return url.trim_end_matches('/').to_owned();
    }
    let host = host
        .filter(|h| {
            !h.is_empty()
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .unwrap_or("127.0.0.1");
    format!("http://{host}")
}

/// A client as registered (RFC 7591).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Client {
    pub client_id: String,
    pub client_name: String,
    pub redirect_uris: Vec<String>,
}

/// Checks a registration request's fields; the reason is for the client's developer.
pub fn check_registration(name: Option<&str>, redirect_uris: &[String]) -> Result<String, String> {
    if redirect_uris.is_empty() {
        return Err("redirect_uris must name at least one URI".into());
    }
    if redirect_uris.len() > MAX_REDIRECT_URIS {
        return Err(format!("at most {MAX_REDIRECT_URIS} redirect_uris"));
    }
    for uri in redirect_uris {
        redirect_ok(uri)?;
    }
    let name = crate::text::clean(name.unwrap_or("An MCP client"))
        .trim()
        .to_owned();
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(format!(
            "client_name may be at most {MAX_NAME_CHARS} characters"
        ));
    }
    Ok(if name.is_empty() {
        "An MCP client".into()
    } else {
        name
    })
}

/// A redirect URI a public client may use: https anywhere, or http on loopback (any port, as
/// RFC 8252 has native apps listen); no fragment.
pub fn redirect_ok(uri: &str) -> Result<(), String> {
    if uri.len() > MAX_URI_BYTES {
        return Err(format!(
            "a redirect URI may be at most {MAX_URI_BYTES} bytes"
        ));
    }
    let bad = || {
        Err(format!(
            "{uri} is not an acceptable redirect URI (https, or http on loopback)"
        ))
    };
    if uri.contains('#') || uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad();
    }
    let Some((scheme, rest)) = uri.split_once("://") else {
        return bad();
    };
    let authority = rest.split(['/', '?']).next().unwrap_or("");
    let host = host_in(authority);
    match scheme {
        "https" if !host.is_empty() && !authority.contains('@') => Ok(()),
        "http" if ["localhost", "127.0.0.1", "::1"].contains(&host) && !authority.contains('@') => {
            Ok(())
        }
        _ => bad(),
    }
}

/// Whether an authorization request's `requested` redirect URI is the `registered` one. A
/// loopback one may name any port (RFC 8252 §7.3, OAuth 2.1): a native client listens on
/// whatever port the system gives it when the person signs in, after it registered.
pub fn redirect_matches(registered: &str, requested: &str) -> bool {
    registered == requested
        || matches!(
            (loopback_parts(registered), loopback_parts(requested)),
            (Some(a), Some(b)) if a == b
        )
}

/// An http loopback URI's host and what follows its authority (path and query); its port,
/// if it names one, must be a number.
fn loopback_parts(uri: &str) -> Option<(&str, &str)> {
    let rest = uri.strip_prefix("http://")?;
    let (authority, tail) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => v6.split_once(']')?,
        None => authority
            .find(':')
            .map_or((authority, ""), |i| authority.split_at(i)),
    };
    let port_ok = match port.strip_prefix(':') {
        Some(p) => (1..=5).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()),
        None => port.is_empty(),
    };
    (port_ok && ["localhost", "127.0.0.1", "::1"].contains(&host)).then_some((host, tail))
}

/// PKCE S256: whether `verifier` hashes to `challenge` (RFC 7636). A verifier is 43 to 128
/// characters of the unreserved set.
pub fn pkce_ok(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b));
    let hashed = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier));
    well_formed && constant_eq(hashed.as_bytes(), challenge.as_bytes())
}

fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    use subtle::ConstantTimeEq;
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// A fresh random secret (256 bits, URL-safe).
pub fn secret() -> String {
    let bytes: [u8; 32] = rand::random();
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// How a token is kept: SHA-256 of the whole token, hex.
pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// What a person allowed, waiting for the client to exchange it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub client_id: String,
    pub redirect_uri: String,
    pub challenge: String,
    pub agent_id: String,
    pub resource: Option<String>,
}

/// Authorization codes waiting to be exchanged: bounded, short-lived, each good once.
#[derive(Default)]
pub struct Codes {
    waiting: HashMap<String, (Grant, Instant)>,
}

impl Codes {
    /// A new code for `grant`; `None` when too many wait (the person is asked to try again).
    pub fn issue(&mut self, grant: Grant, now: Instant) -> Option<String> {
        self.waiting
            .retain(|_, (_, at)| now.duration_since(*at) < CODE_LIFETIME);
        if self.waiting.len() >= MAX_CODES {
            return None;
        }
        let code = secret();
        self.waiting.insert(code.clone(), (grant, now));
        Some(code)
    }

    /// The grant behind `code`, taken (a second exchange finds nothing), if it is still fresh.
    pub fn take(&mut self, code: &str, now: Instant) -> Option<Grant> {
        let (grant, at) = self.waiting.remove(code)?;
        (now.duration_since(at) < CODE_LIFETIME).then_some(grant)
    }
}

/// Checks an exchange of `grant` against what the client sends: the same client and redirect
/// URI, and the PKCE verifier.
pub fn exchange_ok(
    grant: &Grant,
    client_id: &str,
    redirect_uri: &str,
    verifier: &str,
) -> Result<(), &'static str> {
    if grant.client_id != client_id || grant.redirect_uri != redirect_uri {
        return Err("the code was issued to another client or redirect URI");
    }
    if !pkce_ok(verifier, &grant.challenge) {
        return Err("the code_verifier does not match the code_challenge");
    }
    Ok(())
}

/// The host of a URL's authority (`[::1]:8080` → `::1`, `moot.example:443` → `moot.example`),
/// without its port or brackets.
pub fn host_in(authority: &str) -> &str {
    match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => authority.rsplit_once(':').map_or(authority, |(h, _)| h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_or_loopback_http() {
        assert!(redirect_ok("http://127.0.0.1:33418/callback").is_ok());
        assert!(redirect_ok("http://localhost:6274/oauth/callback").is_ok());
        assert!(redirect_ok("http://[::1]:9000/cb").is_ok());
        assert!(redirect_ok("https://claude.ai/api/mcp/auth_callback").is_ok());
        assert!(redirect_ok("http://evil.example/cb").is_err());
        assert!(redirect_ok("http://localhost.evil.example/cb").is_err());
        assert!(redirect_ok("https://a.example/cb#frag").is_err());
        assert!(redirect_ok("javascript:alert(1)").is_err());
        assert!(redirect_ok("https://user@evil.example/").is_err());
        assert!(redirect_ok("http://127.0.0.1:1@evil.example/cb").is_err());
        assert!(redirect_ok("http://localhost:@evil.example/").is_err());
    }

    #[test]
    fn a_loopback_redirect_may_name_any_port() {
        let registered = "http://127.0.0.1:0/oauth/callback";
        assert!(redirect_matches(
            registered,
            "http://127.0.0.1:33441/oauth/callback"
        ));
        assert!(redirect_matches(
            registered,
            "http://127.0.0.1/oauth/callback"
        ));
        assert!(redirect_matches(
            "http://[::1]:9000/cb?x=1",
            "http://[::1]:41000/cb?x=1"
        ));
        assert!(redirect_matches(
            "https://a.example/cb",
            "https://a.example/cb"
        ));
        // Only the port: not the path, the query, the host, or anything on another site.
        assert!(!redirect_matches(
            registered,
            "http://127.0.0.1:33441/other"
        ));
        assert!(!redirect_matches(
            "http://[::1]:9000/cb?x=1",
            "http://[::1]:9000/cb?x=2"
        ));
        assert!(!redirect_matches(
            registered,
            "http://localhost:33441/oauth/callback"
        ));
        assert!(!redirect_matches(
            registered,
            "http://127.0.0.1:1@evil.example/oauth/callback"
        ));
        assert!(!redirect_matches(
            registered,
            "http://127.0.0.1:99999999/oauth/callback"
        ));
        assert!(!redirect_matches(
            registered,
            "https://127.0.0.1:443/oauth/callback"
        ));
        assert!(!redirect_matches(
            "https://a.example/cb",
            "https://a.example:8443/cb"
        ));
        assert!(!redirect_matches(
            "http://127.0.0.1:80/cb",
            "http://127.0.0.1.evil.example/cb"
        ));
    }

    #[test]
    fn pkce_s256_matches_rfc_7636s_example() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_ok(verifier, challenge));
        assert!(!pkce_ok(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj",
            challenge
        ));
        assert!(!pkce_ok("short", challenge));
    }

    #[test]
    fn a_code_is_good_once_for_a_minute() {
        let grant = Grant {
            client_id: "c".into(),
            redirect_uri: "http://127.0.0.1/cb".into(),
            challenge: "x".into(),
            agent_id: "a".into(),
            resource: None,
        };
        let mut codes = Codes::default();
        let now = Instant::now();
        let code = codes.issue(grant.clone(), now).unwrap();
        assert_eq!(codes.take(&code, now), Some(grant.clone()));
        assert_eq!(codes.take(&code, now), None, "once");
        let late = codes.issue(grant, now).unwrap();
        assert_eq!(codes.take(&late, now + CODE_LIFETIME), None, "stale");
    }

    #[test]
    fn registrations_are_bounded_and_cleaned() {
        let ok = vec!["http://127.0.0.1:1/cb".to_owned()];
        assert_eq!(
            check_registration(Some(" Inspector\u{7} "), &ok).unwrap(),
            "Inspector"
        );
        assert!(check_registration(None, &[]).is_err());
        assert!(check_registration(Some(&"n".repeat(101)), &ok).is_err());
        assert!(check_registration(None, &vec![ok[0].clone(); 9]).is_err());
    }
}
