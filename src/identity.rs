//! Who may be whom: character names and passwords.
//!
//! Hashing is deliberately slow (argon2id with its default cost), so callers run it on the
//! blocking pool, never on the world's task or an async worker.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

pub const NAME_MIN: usize = 2;
pub const NAME_MAX: usize = 20;
pub const PASSWORD_MAX: usize = 128;

/// Words a character cannot be called, because verbs use them to mean something else.
const RESERVED: &[&str] = &[
    "me", "here", "home", "everyone", "all", "nobody", "someone", "you",
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
    Ok(())
}

pub fn validate_password(password: &str) -> Result<(), String> {
    if password.is_empty() {
        return Err("Please give a password.".into());
    }
    if password.len() > PASSWORD_MAX {
        return Err(format!(
            "A password may be at most {PASSWORD_MAX} bytes long."
        ));
    }
    Ok(())
}

/// A PHC string (`$argon2id$v=19$…`) with a fresh random salt.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_with_a_reason() {
        assert!(validate_name("Alice").is_ok());
        assert!(validate_name("bob_2-x").is_ok());
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
