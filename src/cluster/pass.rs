//! Passes: what lets a host bring a character into the world.
//!
//! A host asks the world to check a password; the world's answer carries a pass for that host
//! and that character, and the host's `Enter` must show it. So a host, or whoever holds its
//! broker credentials, brings in only characters who logged in through it, whose passwords it
//! saw anyway: never anyone by naming them. A pass is an HMAC under a key the world keeps in
//! its database, so it holds across the world's restarts (hosts bring their connections back in
//! with it) and costs the world no memory per login.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use moot_kernel::store::{Store, StoreError};

/// Where the key is kept (`kept_state`).
const MODULE: &str = "cluster";
const KEY: &str = "pass_key";

/// The world's key for passes.
#[derive(Clone)]
pub struct Passes {
    key: [u8; 32],
}

impl std::fmt::Debug for Passes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Passes { .. }")
    }
}

impl Passes {
    /// The key this database keeps, made the first time a world serves hosts from it.
    pub async fn open(store: &Store) -> Result<Passes, StoreError> {
        let fresh = hex::encode(rand::random::<[u8; 32]>());
        let kept = store.kept_or_keep(MODULE, KEY, fresh).await?;
        let key = hex::decode(kept.trim())
            .ok()
            .and_then(|k| <[u8; 32]>::try_from(k).ok())
            .ok_or_else(|| StoreError::Db("the kept pass key is not 32 bytes of hex".into()))?;
        Ok(Passes { key })
    }

    fn mac(&self, host: &str, agent: &str) -> Hmac<Sha256> {
        // HMAC pads a short key with zeros to the hash's block: done here, the key has the
        // fixed size `KeyInit::new` takes, and nothing can fail.
        let mut block = [0u8; 64];
        block[..32].copy_from_slice(&self.key);
        let mut mac = <Hmac<Sha256> as KeyInit>::new(&block.into());
        // A host's name has no newline (see `wire::host_name_ok`), so the pair reads one way.
        mac.update(host.as_bytes());
        mac.update(b"\n");
        mac.update(agent.as_bytes());
        mac
    }

    /// The pass that lets `host` bring `agent` in.
    pub fn issue(&self, host: &str, agent: &str) -> String {
        hex::encode(self.mac(host, agent).finalize().into_bytes())
    }

    /// Whether `pass` lets `host` bring `agent` in (compared in constant time).
    pub fn admits(&self, host: &str, agent: &str, pass: &str) -> bool {
        hex::decode(pass).is_ok_and(|p| self.mac(host, agent).verify_slice(&p).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_admits_its_own_host_and_character_only() {
        let passes = Passes { key: [7; 32] };
        let pass = passes.issue("host1", "ann");
        assert!(passes.admits("host1", "ann", &pass));
        assert!(!passes.admits("host2", "ann", &pass));
        assert!(!passes.admits("host1", "bob", &pass));
        assert!(!passes.admits("host1", "ann", ""));
        assert!(!passes.admits("host1", "ann", "not hex"));
        let other = Passes { key: [8; 32] };
        assert!(!other.admits("host1", "ann", &pass));
    }
}
