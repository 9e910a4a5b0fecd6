//! OAuth's asks of the world as typed messages, from whichever process holds the browser or
//! the client (the world answers them in `door_grants`): a client to check or register, a
//! person's consent, a code or a refresh token to exchange for tokens.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use crate::logins::Refused;

/// What the web's OAuth endpoints ask of the world.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum OAuthAsk {
    /// Whether an authorization request may be shown its consent page:
    /// `Result<String, String>`, the client's name or why not.
    Check(AuthRequest),
    /// A person allows (with their name and password) the request:
    /// `Result<String, AllowRefused>`, the code.
    Allow {
        request: AuthRequest,
        ip: IpAddr,
        name: String,
        password: String,
    },
    /// A client registers (RFC 7591): `Result<Value, OAuthRefused>`, the registration.
    Register {
        ip: Option<IpAddr>,
        client_name: Option<String>,
        redirect_uris: Vec<String>,
    },
    /// A code or a refresh token exchanged: `Result<Value, OAuthRefused>`, the tokens.
    Token(TokenRequest),
}

/// What an authorization request carries (in the query, then in the form's hidden fields).
#[derive(Debug, Serialize, Deserialize, Clone, Default)]
pub struct AuthRequest {
    #[serde(default)]
    pub response_type: String,
    #[serde(default)]
    pub client_id: String,
    #[serde(default)]
    pub redirect_uri: String,
    #[serde(default)]
    pub code_challenge: String,
    #[serde(default)]
    pub code_challenge_method: String,
    pub state: Option<String>,
    pub resource: Option<String>,
    pub scope: Option<String>,
}

#[derive(Debug, Serialize, Deserialize, Clone, Default)]
pub struct TokenRequest {
    #[serde(default)]
    pub grant_type: String,
    #[serde(default)]
    pub code: String,
    #[serde(default)]
    pub redirect_uri: String,
    #[serde(default)]
    pub client_id: String,
    #[serde(default)]
    pub code_verifier: String,
    #[serde(default)]
    pub refresh_token: String,
}

/// Why an authorization was not given.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum AllowRefused {
    /// The request itself is bad: an error page, never a redirect (RFC 6749 §4.1.2.1).
    Request(String),
    /// The name or password was refused; the consent page for this client is shown again.
    SignIn { client: String, why: Refused },
    /// Too many codes wait.
    Busy,
}

/// An OAuth error answer (RFC 6749 §5.2), with its HTTP status.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OAuthRefused {
    pub status: u16,
    pub error: String,
    pub description: String,
}

pub(super) fn refused(status: u16, error: &str, description: &str) -> OAuthRefused {
    OAuthRefused {
        status,
        error: error.to_owned(),
        description: description.to_owned(),
    }
}
