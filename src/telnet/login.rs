//! The login screen, as on LambdaCore: `connect`, `create`, `who`, `help`, `quit`. Passwords are
//! checked on the blocking pool, and a wrong name or password gets one answer for both, so the
//! screen tells a stranger nothing about who exists.

use futures_util::StreamExt;
use tokio::time::{Instant, sleep_until};

use super::Shared;
use super::connection::{Conn, DISCONNECTED, SHUTTING_DOWN, Typed, is_quit};
use crate::cluster::LoggedIn;
pub use crate::logins::BAD_LOGIN;
use crate::logins::CreateRefused;
use crate::logins::Refused;
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
pub(super) async fn screen(conn: &mut Conn, shared: &Shared) -> Option<(LoggedIn, bool)> {
    if shared.town.banned(conn.peer.ip()).await {
        tracing::warn!(target: moot_kernel::logging::AUDIT, event = "connection_banned", ip = %conn.peer.ip());
        conn.answer(&[crate::logins::BANNED]);
        return None;
    }
    conn.out.line(&shared.welcome);
    conn.out.line("");
    for l in commands() {
        conn.out.line(&l);
    }
    // Counted from the connection's start, and worked out again whenever the town fills or
    // empties: a connection idle for longer than the crowded timeout is closed as the town fills.
    let opened = Instant::now();
    let mut crowded = shared.crowded();
    let timeout = |crowded: bool| shared.config.login_timeout(crowded).map(|d| opened + d);
    let mut deadline = timeout(*crowded.borrow_and_update());
    loop {
        conn.out.flush().await.ok()?;
        let input = tokio::select! {
            input = conn.input.next() => input?.ok()?,
            Ok(()) = crowded.changed() => {
                deadline = timeout(*crowded.borrow_and_update());
                continue;
            }
            _ = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() => {
                conn.answer(&[LOGIN_TIMEOUT]);
                return None;
            }
            _ = shared.shutdown.cancelled() => {
                conn.answer(&[SHUTTING_DOWN]);
                return None;
            }
        };
        let Typed::Command(line) = conn.take(input) else {
            continue;
        };
        if let Some(wait) = conn.pace(Instant::now()) {
            conn.wait(wait).await;
        }
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
                let table = shared.town.who().await;
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

async fn connect(conn: &mut Conn, shared: &Shared, name: &str, password: &str) -> Option<LoggedIn> {
    if name.is_empty() || password.is_empty() {
        conn.answer(&["Usage: connect <name> <password>"]);
        return None;
    }
    let ip = conn.peer.ip();
    // Whatever was on its way goes out before a failure's wait.
    let _ = conn.out.flush().await;
    match shared.town.connect(ip, name, password).await {
        Ok(row) => Some(row),
        Err(Refused::TooMany(wait)) => {
            conn.answer(&[format!(
                "*** Too many login attempts; try again in {}. ***",
                moot_kernel::limits::seconds(wait)
            )]);
            None
        }
        Err(Refused::Bad) => {
            conn.answer(&[BAD_LOGIN]);
            None
        }
        Err(Refused::Unavailable) => {
            conn.answer(&[
                "*** Sorry, moot cannot reach its database. Please try again later. ***",
            ]);
            None
        }
        Err(Refused::Banned) => {
            conn.answer(&[crate::logins::BANNED]);
            None
        }
    }
}

async fn create(conn: &mut Conn, shared: &Shared, name: &str, password: &str) -> Option<LoggedIn> {
    if name.is_empty() || password.is_empty() {
        conn.answer(&["Usage: create <name> <password>"]);
        return None;
    }
    let taken = format!("The name \"{name}\" is already in use; please choose another.");
    match shared.town.create(conn.peer.ip(), name, password).await {
        Ok(row) => Some(row),
        Err(CreateRefused::Invalid(why)) => {
            conn.answer(&[why]);
            None
        }
        Err(CreateRefused::Taken) => {
            conn.answer(&[taken]);
            None
        }
        Err(CreateRefused::Unavailable) => {
            conn.answer(&[
                "*** Sorry, moot cannot reach its database. Please try again later. ***",
            ]);
            None
        }
    }
}
