//! The login screen, as on LambdaCore: `connect`, `create`, `who`, `help`, `quit`. Passwords are
//! checked on the blocking pool, and a wrong name or password gets one answer for both, so the
//! screen tells a stranger nothing about who exists.

use std::sync::OnceLock;

use futures_util::StreamExt;
use tokio::time::{Instant, sleep_until};

use super::Shared;
use super::connection::{Conn, DISCONNECTED, SHUTTING_DOWN, Typed, is_quit};
use crate::identity;
use crate::store::{AgentRow, CreateError};

pub const BAD_LOGIN: &str = "Either that player does not exist, or has a different password.";
pub const LOGIN_TIMEOUT: &str = "*** Timed-out waiting for login. ***";

fn commands() -> Vec<String> {
    [
        "To connect to your character:  connect <name> <password>",
        "To create a new character:     create <name> <password>",
        "To see who is connected:       who",
        "For help:                      help",
        "To leave:                      quit",
    ]
    .map(str::to_owned)
    .to_vec()
}

const HELP: &str = "Names are 2 to 20 letters, digits, '_' or '-', starting with a letter, and are \
unique whatever their case. Your password is everything after your name; an agent made through \
the HTTP API connects with its API token instead. Once connected, type `help` for the verbs of \
the town.";

/// Runs the login screen; returns the character logged in (and whether it was just created),
/// or `None` if the connection ended first.
pub(super) async fn screen(conn: &mut Conn, shared: &Shared) -> Option<(AgentRow, bool)> {
    conn.out.line(&shared.welcome);
    conn.out.line("");
    for l in commands() {
        conn.out.line(&l);
    }
    let deadline = shared.config.login_timeout().map(|d| Instant::now() + d);
    loop {
        conn.out.flush().await.ok()?;
        let input = tokio::select! {
            input = conn.input.next() => input?.ok()?,
            _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                conn.answer(&[LOGIN_TIMEOUT]);
                return None;
            }
            _ = shared.shutdown.cancelled() => {
                conn.answer(&[SHUTTING_DOWN]);
                return None;
            }
        };
        let Typed::Command(line) = conn.take(input).await else {
            continue;
        };
        if is_quit(&line) || line.trim().eq_ignore_ascii_case("quit") {
            conn.answer(&[DISCONNECTED]);
            return None;
        }
        let mut words = line.trim().splitn(3, char::is_whitespace);
        let verb = words.next().unwrap_or("").to_lowercase();
        let name = words.next().unwrap_or("");
        let password = words.next().unwrap_or("").trim();
        match verb.as_str() {
            "connect" | "co" | "con" => match connect(conn, shared, name, password).await {
                Some(row) => return Some((row, false)),
                None => continue,
            },
            "create" | "cr" => match create(conn, shared, name, password).await {
                Some(row) => return Some((row, true)),
                None => continue,
            },
            "who" | "@who" => {
                let table = shared.world.who().await;
                conn.answer(&table);
            }
            "help" | "?" => {
                let mut lines = commands();
                lines.push(HELP.to_owned());
                conn.answer(&lines);
            }
            _ => {
                let mut lines = vec!["Please connect or create a character first:".to_owned()];
                lines.extend(commands());
                conn.answer(&lines);
            }
        }
    }
}

/// A hash to check wrong names against, so that an unknown name costs as much time as a wrong
/// password and timing tells nothing.
fn decoy_hash() -> &'static str {
    static DECOY: OnceLock<String> = OnceLock::new();
    DECOY.get_or_init(|| identity::hash_password("decoy password, never matches"))
}

async fn connect(conn: &mut Conn, shared: &Shared, name: &str, password: &str) -> Option<AgentRow> {
    if name.is_empty() || password.is_empty() {
        conn.answer(&["Usage: connect <name> <password>"]);
        return None;
    }
    let row = match shared.store.agent_by_name(name).await {
        Ok(row) => row,
        Err(e) => {
            tracing::error!(error = %e, "cannot look up a character");
            conn.answer(&[
                "*** Sorry, moot cannot reach its database. Please try again later. ***",
            ]);
            return None;
        }
    };
    let ip = conn.peer.ip();
    if let Err(wait) = shared.admit_login(ip, name) {
        conn.answer(&[format!(
            "*** Too many login attempts; try again in {}. ***",
            crate::limits::seconds(wait)
        )]);
        return None;
    }
    let ok = if password.starts_with(identity::TOKEN_PREFIX) {
        // An API token works as a password too, so agents made over HTTP can walk the town.
        let owner = shared.directory.authenticate(password);
        row.as_ref()
            .is_some_and(|r| owner.as_deref() == Some(r.agent_id.as_str()))
    } else {
        let stored = row.as_ref().and_then(|r| r.password_hash.clone());
        let password = password.to_owned();
        shared
            .password_work(move || {
                let hash = stored.as_deref().unwrap_or_else(|| decoy_hash());
                identity::verify_password(&password, hash) && stored.is_some()
            })
            .await
            .unwrap_or(false)
    };
    if ok {
        shared.login_succeeded(name);
        row
    } else {
        let wait = shared.login_failed(ip);
        let _ = conn.out.flush().await;
        tokio::time::sleep(wait).await;
        conn.answer(&[BAD_LOGIN]);
        None
    }
}

async fn create(conn: &mut Conn, shared: &Shared, name: &str, password: &str) -> Option<AgentRow> {
    if name.is_empty() || password.is_empty() {
        conn.answer(&["Usage: create <name> <password>"]);
        return None;
    }
    if let Err(why) =
        identity::validate_name(name).and_then(|()| identity::validate_password(password))
    {
        conn.answer(&[why]);
        return None;
    }
    let taken = format!("The name \"{name}\" is already in use; please choose another.");
    if let Ok(Some(_)) = shared.store.agent_by_name(name).await {
        conn.answer(&[taken]);
        return None;
    }
    let password = password.to_owned();
    let hash = shared
        .password_work(move || identity::hash_password(&password))
        .await?;
    match shared
        .store
        .create_character(name, hash, &shared.start_room)
        .await
    {
        Ok(row) => {
            shared.directory.insert(&row.agent_id, &row.name, None);
            Some(row)
        }
        Err(CreateError::NameTaken) => {
            conn.answer(&[taken]);
            None
        }
        Err(CreateError::Store(e)) => {
            tracing::error!(error = %e, "cannot create a character");
            conn.answer(&[
                "*** Sorry, moot cannot reach its database. Please try again later. ***",
            ]);
            None
        }
    }
}
