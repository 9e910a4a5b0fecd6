//! Who may be whom: character names and passwords.
//!
//! Hashing is deliberately slow (argon2id with its default cost), so callers run it on the
//! blocking pool, never on the world's task or an async worker.

use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

use argon2::Argon2;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::store::IdentityRow;
/// Who an identity is (kept with it in the store).
pub use crate::store::Kind;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

pub const NAME_MIN: usize = 2;
pub const NAME_MAX: usize = 20;
/// Short passwords fall to the first guesses of a dictionary; eight is NIST SP 800-63B's floor.
pub const PASSWORD_MIN: usize = 8;
pub const PASSWORD_MAX: usize = 128;

/// How every API token starts.
pub const TOKEN_PREFIX: &str = "moot_";

/// Words a character cannot be called, because verbs use them to mean something else.
const RESERVED: &[&str] = &[
    "me", "here", "home", "everyone", "all", "nobody", "someone", "you", "computer", "server",
];

/// Checks a new character's name; the error says why it is refused, in words for the player.
pub fn validate_name(name: &str) -> Result<(), String> {
    let len = name.chars().count();
    if !(NAME_MIN..=NAME_MAX).contains(&len) {
        return Err(format!(
            "A name must be {NAME_MIN} to {NAME_MAX} characters long."
        ));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return Err("A name must start with a letter.".into());
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
    {
        return Err(format!(
            "A name may hold only letters, digits, '_' and '-', not {bad:?}."
        ));
    }
    if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(name)) {
        return Err(format!(
            "\"{name}\" means something else here; please choose another name."
        ));
    }
    // The house's bots are "Bot-…", so a name that starts so always means a bot.
    if name
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("bot-"))
    {
        return Err("Names starting with \"Bot-\" belong to the house's bots.".into());
    }
    Ok(())
}

pub fn validate_password(password: &str) -> Result<(), String> {
    if password.is_empty() {
        return Err("Please give a password.".into());
    }
    if password.chars().count() < PASSWORD_MIN {
        return Err(format!(
            "A password must be at least {PASSWORD_MIN} characters long."
        ));
    }
    if password.len() > PASSWORD_MAX {
        return Err(format!(
            "A password may be at most {PASSWORD_MAX} bytes long."
        ));
    }
    // `connect` reads a password that starts like an API token as a token, so such a password
    // could never be used to log in.
    if password.starts_with(TOKEN_PREFIX) {
        return Err(format!(
            "A password may not start with \"{TOKEN_PREFIX}\" (that is how API tokens start)."
        ));
    }
    Ok(())
}

/// A PHC string (`$argon2id$v=19$…`) with a fresh random salt.
#[expect(
    clippy::expect_used,
    reason = "Argon2 refuses only passwords over 4 GiB (ours are at most PASSWORD_MAX bytes) or \
              an operating system with no randomness"
)]
pub fn hash_password(password: &str) -> String {
    Argon2::default()
        .hash_password(password.as_bytes())
        .expect("argon2 with default parameters hashes any password")
        .to_string()
}

/// Whether `password` matches the stored PHC string. A malformed stored hash never matches.
pub fn verify_password(password: &str, stored: &str) -> bool {
    PasswordHash::new(stored).is_ok_and(|h| {
        Argon2::default()
            .verify_password(password.as_bytes(), &h)
            .is_ok()
    })
}

/// API tokens look like `moot_<agent id>_<64 hex digits>`: the agent id says whose token it
/// is, and the 256-bit secret is what proves it. Only SHA-256 of the secret is stored (a token
/// has full entropy, so a slow hash adds nothing), and it is compared in constant time.
pub struct IssuedToken {
    pub token: String,
    /// Hex SHA-256 of the secret, as stored.
    pub hash: String,
}

pub fn issue_token(agent_id: &str) -> IssuedToken {
    let secret: [u8; 32] = rand::random();
    let secret = hex::encode(secret);
    IssuedToken {
        token: format!("{TOKEN_PREFIX}{agent_id}_{secret}"),
        hash: hex::encode(Sha256::digest(secret.as_bytes())),
    }
}

/// Who is who, in memory: every identity's name and token hash, so that checking a bearer token
/// costs no database round trip. Loaded at start-up; updated as identities are made and tokens
/// issued (after the database has them).
///
/// A lock that a panic elsewhere left poisoned is used as it is: every change under these
/// locks is one map operation, never half done, and a poisoned directory would refuse every
/// login in the town from then on.
#[derive(Default)]
pub struct Directory {
    by_id: RwLock<HashMap<String, Entry>>,
    /// Banned character names and addresses, lower-cased (see `@ban`): the one list every
    /// face checks, so a ban holds on telnet, the web, REST and MCP alike.
    banned: RwLock<std::collections::HashSet<String>>,
    /// OAuth tokens people let MCP hosts have, by the hash of the token (see `crate::oauth`).
    grants: RwLock<HashMap<String, crate::store::oauth::TokenRow>>,
}

#[derive(Debug, Clone)]
struct Entry {
    name: String,
    token_hash: Option<[u8; 32]>,
    kind: Kind,
    /// Whom it speaks for in ratings, if not itself.
    owner: Option<String>,
    /// Whose token made it: whom it builds for, with their rights.
    maker: Option<String>,
}

fn decode_hash(hex_hash: &str) -> Option<[u8; 32]> {
    hex::decode(hex_hash).ok()?.try_into().ok()
}

impl Directory {
    /// Everything it holds, each map in the order of its keys, for the tests' fingerprint of
    /// the world (see `World::fingerprint`).
    #[cfg(feature = "testing")]
    pub fn fingerprint(&self) -> String {
        use std::collections::{BTreeMap, BTreeSet};
        let Directory {
            by_id,
            banned,
            grants,
        } = self;
        let by_id: BTreeMap<_, _> = by_id
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(k, v)| (k.clone(), format!("{v:?}")))
            .collect();
        let banned: BTreeSet<_> = banned
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .cloned()
            .collect();
        let grants: BTreeMap<_, _> = grants
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(k, v)| (k.clone(), format!("{v:?}")))
            .collect();
        format!("by_id: {by_id:?}\nbanned: {banned:?}\ngrants: {grants:?}")
    }

    pub fn new(rows: Vec<IdentityRow>) -> Directory {
        let d = Directory::default();
        for r in rows {
            d.insert(&r.agent_id, &r.name, r.token_hash.as_deref(), r.kind);
            d.set_owner(&r.agent_id, r.owner);
            d.set_maker(&r.agent_id, r.maker);
        }
        d
    }

    /// Records whose token made `agent_id` (see [`Directory::builds_for`]).
    pub fn set_maker(&self, agent_id: &str, maker: Option<String>) {
        let mut map = self.by_id.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = map.get_mut(agent_id) {
            e.maker = maker;
        }
    }

    /// Whom `agent_id` builds for: the person whose token made it (an agent of theirs has
    /// exactly their rights), or itself.
    pub fn builds_for(&self, agent_id: &str) -> String {
        let map = self.by_id.read().unwrap_or_else(PoisonError::into_inner);
        map.get(agent_id)
            .and_then(|e| e.maker.clone())
            .unwrap_or_else(|| agent_id.to_owned())
    }

    /// Records whom `agent_id` speaks for in ratings (see `store::agents::Origin`).
    pub fn set_owner(&self, agent_id: &str, owner: Option<String>) {
        let mut map = self.by_id.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = map.get_mut(agent_id) {
            e.owner = owner;
        }
    }

    /// Whom `agent_id` speaks for in ratings: its owner, or itself; the house is one.
    pub fn owner_of(&self, agent_id: &str) -> String {
        let map = self.by_id.read().unwrap_or_else(PoisonError::into_inner);
        match map.get(agent_id) {
            Some(e) if e.kind == Kind::House => "house".to_owned(),
            Some(e) => e.owner.clone().unwrap_or_else(|| agent_id.to_owned()),
            None => agent_id.to_owned(),
        }
    }

    pub fn insert(&self, agent_id: &str, name: &str, token_hash: Option<&str>, kind: Kind) {
        let entry = Entry {
            name: name.to_owned(),
            token_hash: token_hash.and_then(decode_hash),
            kind,
            owner: None,
            maker: None,
        };
        self.by_id
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(agent_id.to_owned(), entry);
    }

    /// Sets an identity's token hash (hex, or none) and returns the one it replaces, so that a
    /// write that fails can put it back.
    pub fn set_token(&self, agent_id: &str, token_hash: Option<&str>) -> Option<String> {
        let mut map = self.by_id.write().unwrap_or_else(PoisonError::into_inner);
        let e = map.get_mut(agent_id)?;
        let old = e.token_hash.map(hex::encode);
        e.token_hash = token_hash.and_then(decode_hash);
        old
    }

    pub fn has_token(&self, agent_id: &str) -> bool {
        self.by_id
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent_id)
            .is_some_and(|e| e.token_hash.is_some())
    }

    /// The id of the identity called `name` (any case).
    pub fn id_of(&self, name: &str) -> Option<String> {
        let map = self.by_id.read().unwrap_or_else(PoisonError::into_inner);
        map.iter()
            .find(|(_, e)| e.name.eq_ignore_ascii_case(name))
            .map(|(id, _)| id.clone())
    }

    /// Who `agent_id` is (an agent, where unknown).
    pub fn kind_of(&self, agent_id: &str) -> Kind {
        self.by_id
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent_id)
            .map_or(Kind::Agent, |e| e.kind)
    }

    pub fn name_of(&self, agent_id: &str) -> Option<String> {
        self.by_id
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(agent_id)
            .map(|e| e.name.clone())
    }

    /// Keeps an OAuth token (access or refresh) as good until it expires.
    pub fn keep_grant(&self, row: crate::store::oauth::TokenRow) {
        let mut grants = self.grants.write().unwrap_or_else(PoisonError::into_inner);
        if grants.len() >= 10_000 {
            let now = crate::store::oauth::now_ms();
            grants.retain(|_, g| g.expires_ms >= now);
        }
        grants.insert(row.token_hash.clone(), row);
    }

    /// The OAuth token with this hash, taken out (a refresh token is used once).
    pub fn take_grant(&self, hash: &str) -> Option<crate::store::oauth::TokenRow> {
        self.grants
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(hash)
    }

    /// The agent an OAuth access token acts for, if it is good, unexpired and not banned.
    fn authenticate_oauth(&self, token: &str) -> Option<String> {
        let hash = crate::oauth::token_hash(token);
        let grants = self.grants.read().unwrap_or_else(PoisonError::into_inner);
        let g = grants.get(&hash)?;
        let name = self.name_of(&g.agent_id)?;
        (!g.refresh && g.expires_ms >= crate::store::oauth::now_ms() && !self.is_banned(&name))
            .then(|| g.agent_id.clone())
    }

    /// The agent a bearer token belongs to, if it is valid and they are not banned: a static
    /// token (`moot_<agent>_<secret>`) or an OAuth access token.
    pub fn authenticate(&self, token: &str) -> Option<String> {
        if token.starts_with(crate::oauth::ACCESS_PREFIX) {
            return self.authenticate_oauth(token);
        }
        let rest = token.strip_prefix("moot_")?;
        let (agent_id, secret) = rest.rsplit_once('_')?;
        let presented: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
        let map = self.by_id.read().unwrap_or_else(PoisonError::into_inner);
        let entry = map.get(agent_id)?;
        let stored = entry.token_hash?;
        (bool::from(presented.ct_eq(&stored)) && !self.is_banned(&entry.name))
            .then(|| agent_id.to_owned())
    }

    /// Whether a character name or an address (as text) is banned.
    pub fn is_banned(&self, what: &str) -> bool {
        let banned = self.banned.read().unwrap_or_else(PoisonError::into_inner);
        !banned.is_empty() && banned.contains(&what.to_lowercase())
    }

    /// Bans `what`; false if it already was.
    pub fn ban(&self, what: &str) -> bool {
        self.banned
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(what.to_lowercase())
    }

    /// Lifts a ban; false if there was none.
    pub fn unban(&self, what: &str) -> bool {
        self.banned
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&what.to_lowercase())
    }
}

/// An API agent just made: its identity and its token (shown to it once, stored only hashed).
pub struct Registered {
    pub row: IdentityRow,
    pub token: String,
}

/// Why no agent was made.
#[derive(Debug, thiserror::Error)]
pub enum RegisterError {
    #[error("{0}")]
    BadName(String),
    #[error("The name \"{0}\" is already in use")]
    NameTaken(String),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Makes an API agent (named, or `Agent_xxxx`) standing in `room`, and lets the directory know
/// its token: what `POST /agents` and `moot mcp` both do. Who made it with a token (`made_by`)
/// owns it; else its owner is found from `origin`.
pub async fn register_agent(
    store: &crate::store::Store,
    directory: &Directory,
    name: Option<String>,
    room: &str,
    origin: Option<crate::store::Origin>,
    made_by: crate::store::MadeBy,
) -> Result<Registered, RegisterError> {
    if let Some(n) = &name {
        validate_name(n).map_err(RegisterError::BadName)?;
    }
    let agent_id = crate::store::new_agent_id();
    let token = issue_token(&agent_id);
    let row = store
        .create_agent(agent_id, name.clone(), token.hash, room, origin, made_by)
        .await
        .map_err(|e| match e {
            crate::store::CreateError::NameTaken => {
                RegisterError::NameTaken(name.unwrap_or_default())
            }
            crate::store::CreateError::Store(e) => RegisterError::Store(e),
        })?;
    directory.insert(
        &row.agent_id,
        &row.name,
        row.token_hash.as_deref(),
        row.kind,
    );
    directory.set_owner(&row.agent_id, row.owner.clone());
    directory.set_maker(&row.agent_id, row.maker.clone());
    Ok(Registered {
        row,
        token: token.token,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_authenticate_only_their_agent() {
        let d = Directory::default();
        d.insert("a1", "Ann", None, Kind::Person);
        let t = issue_token("a1");
        assert_eq!(d.authenticate(&t.token), None, "not issued yet");
        d.set_token("a1", Some(&t.hash));
        assert_eq!(d.authenticate(&t.token).as_deref(), Some("a1"));
        let forged = t.token.replace("moot_a1_", "moot_a2_");
        assert_eq!(d.authenticate(&forged), None);
        let mut wrong = t.token.clone();
        wrong.pop();
        wrong.push('x');
        assert_eq!(d.authenticate(&wrong), None);
        assert_eq!(d.authenticate("garbage"), None);
        let t2 = issue_token("a1");
        d.set_token("a1", Some(&t2.hash));
        assert_eq!(
            d.authenticate(&t.token),
            None,
            "a rotated token stops working"
        );
        assert!(
            t2.token.len() >= 5 + 2 + 1 + 64,
            "at least 256 bits of secret"
        );
    }

    #[test]
    fn names_are_checked_with_a_reason() {
        assert!(validate_name("Alice").is_ok());
        assert!(validate_name("bob_2-x").is_ok());
        assert!(
            validate_name("Bot-Abel")
                .unwrap_err()
                .contains("house's bots")
        );
        assert!(validate_name("bot-x").is_err() && validate_name("Botany").is_ok());
        assert!(validate_name("A").unwrap_err().contains("2 to 20"));
        assert!(
            validate_name(&"a".repeat(21))
                .unwrap_err()
                .contains("2 to 20")
        );
        assert!(
            validate_name("2pac")
                .unwrap_err()
                .contains("start with a letter")
        );
        assert!(validate_name("al ice").unwrap_err().contains("' '"));
        assert!(validate_name("Me").unwrap_err().contains("something else"));
    }

    #[test]
    fn passwords_verify_only_themselves() {
        let h = hash_password("hunter42");
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_password("hunter42", &h));
        assert!(!verify_password("hunter43", &h));
        assert!(!verify_password("hunter42", "not a hash"));
    }
}
