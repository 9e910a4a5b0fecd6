//! Why a verb did not do what was asked: a kind every face can answer in its own way (a line,
//! an HTTP status, a tool's `isError`), the stable code the rules or the host gave, the wait
//! before trying again, and the Werewolf tools' refusal shape, built here and nowhere else.

/// Why a verb did nothing. The message is written for a person and is the whole answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerbError {
    pub kind: ErrorKind,
    pub message: String,
    /// For [`ErrorKind::Pending`]: the session whose next change may give a different answer,
    /// the tick it is at now, and the structured result to give if the wait runs out.
    pub pending: Option<Box<Pending>>,
    /// The refusal as structured data, for tools whose spec gives errors a shape (the
    /// Werewolf tools' `{ok: false, serverTime, error}`).
    pub data: Option<serde_json::Value>,
    /// The refusal's stable code, where it has one, as the rules or the host gave it.
    pub code: Option<crate::game_api::Code>,
    /// When trying again may succeed (a rate limit), as the host gave it.
    pub retry_after: Option<std::time::Duration>,
    /// The session host's own code, where the host refused: a face with codes of its own (REST's
    /// statuses) answers with exactly the one the host gave, whichever verb met it.
    pub host: Option<crate::world::sessions::ErrorCode>,
}

/// "Not yet": a face that can wait (MCP's long poll) waits for the session to change and asks
/// again; one that cannot (telnet) shows the message at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub on: crate::world::Awaited,
    pub tick: u64,
    pub data: serde_json::Value,
    /// The caller's own limit on the wait, if shorter than the face's.
    pub wait: Option<std::time::Duration>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ErrorKind {
    /// The command could not be read: wrong arguments. The message gives the usage.
    Usage,
    /// It names something or someone that is not there.
    NotFound,
    /// It is understood but refused.
    Refused,
    /// Nothing has happened yet; see [`Pending`].
    Pending,
    /// It met a bug in moot, and was undone.
    Internal,
}

impl VerbError {
    pub fn usage(message: impl Into<String>) -> VerbError {
        VerbError {
            kind: ErrorKind::Usage,
            message: message.into(),
            pending: None,
            data: None,
            code: None,
            retry_after: None,
            host: None,
        }
    }
    pub fn not_found(message: impl Into<String>) -> VerbError {
        VerbError {
            kind: ErrorKind::NotFound,
            message: message.into(),
            pending: None,
            data: None,
            code: None,
            retry_after: None,
            host: None,
        }
    }
    pub fn pending(message: impl Into<String>, pending: Pending) -> VerbError {
        VerbError {
            kind: ErrorKind::Pending,
            message: message.into(),
            pending: Some(Box::new(pending)),
            data: None,
            code: None,
            retry_after: None,
            host: None,
        }
    }

    /// The answer when the command met a bug in moot and was undone (see `world::guard`).
    pub fn internal() -> VerbError {
        VerbError {
            kind: ErrorKind::Internal,
            message: crate::world::Unavailable::Internal.to_string(),
            pending: None,
            data: None,
            code: None,
            retry_after: None,
            host: None,
        }
    }

    pub fn refused(message: impl Into<String>) -> VerbError {
        VerbError {
            kind: ErrorKind::Refused,
            message: message.into(),
            pending: None,
            data: None,
            code: None,
            retry_after: None,
            host: None,
        }
    }
}

impl From<crate::world::sessions::HostError> for VerbError {
    fn from(e: crate::world::sessions::HostError) -> VerbError {
        use crate::world::sessions::ErrorCode;
        let kind = match e.code {
            ErrorCode::NotFound => ErrorKind::NotFound,
            ErrorCode::InvalidRequest => ErrorKind::Usage,
            _ => ErrorKind::Refused,
        };
        // The rules' own code where they gave one, else the stable code that says the same.
        use crate::game_api::Code;
        let code = e.detail.unwrap_or(match e.code {
            ErrorCode::Forbidden | ErrorCode::Unauthorized => Code::NotInMatch,
            ErrorCode::NotFound => Code::MatchNotFound,
            ErrorCode::AlreadyActed => Code::AlreadySubmitted,
            ErrorCode::Conflict => Code::AlreadyInMatch,
            ErrorCode::RateLimited => Code::RateLimited,
            ErrorCode::StorageUnavailable | ErrorCode::Unavailable => Code::StorageUnavailable,
            ErrorCode::Internal | ErrorCode::OutcomeUnknown => Code::Internal,
            ErrorCode::InvalidAction | ErrorCode::InvalidRequest => Code::InvalidRequest,
        });
        VerbError {
            kind,
            message: e.message,
            pending: None,
            data: None,
            code: Some(code),
            retry_after: e.retry_after,
            host: Some(e.code),
        }
    }
}

/// A refusal in a spec tool's shape (Werewolf's fixes 1 and 6: `{ok: false, serverTime,
/// error: {code, message, retryable}}`, with `retryAfterMs` when waiting helps), if it has
/// none yet: the one place that shape is built. Without a code of its own (its arguments did
/// not parse, it named nothing there, it met a bug) it gets the stable code that says so.
pub fn shaped(server_time: String, mut e: VerbError) -> VerbError {
    use crate::game_api::Code;
    if e.data.is_some() || e.kind == ErrorKind::Pending {
        return e;
    }
    let code = e.code.unwrap_or(match e.kind {
        ErrorKind::NotFound => Code::MatchNotFound,
        ErrorKind::Internal => Code::Internal,
        _ => Code::InvalidRequest,
    });
    let retryable =
        e.retry_after.is_some() || matches!(code, Code::RateLimited | Code::StorageUnavailable);
    let mut error = serde_json::json!({
        "code": code.name(),
        "message": e.message,
        "retryable": retryable,
    });
    if let Some(wait) = e.retry_after {
        error["retryAfterMs"] = serde_json::json!(wait.as_millis() as u64);
    }
    e.data = Some(serde_json::json!({ "ok": false, "serverTime": server_time, "error": error }));
    e.code = Some(code);
    e
}
