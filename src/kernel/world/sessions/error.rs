//! A session host's refusals: the REST API's error codes (and moot's own), with their HTTP
//! statuses, spelled in one place; the rules' own refusals keep their typed code.

use crate::game_api::{self, GameError};

/// The REST API's error codes (its published contract: clients match on them) and moot's own,
/// with their HTTP statuses: the one place they are spelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum ErrorCode {
    Unauthorized,
    Forbidden,
    NotFound,
    InvalidAction,
    Conflict,
    InvalidRequest,
    AlreadyActed,
    /// Too many actions too fast (429, with a retry-after).
    RateLimited,
    /// The database could not store it, so it did not happen (503, retryable).
    StorageUnavailable,
    /// moot is stopping (503).
    Unavailable,
    /// The request met a bug in moot and was undone (500); nothing changed.
    Internal,
    /// The town stopped after taking a write and before answering it (502): whatever it did
    /// was stored, so the caller looks before trying again.
    OutcomeUnknown,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 12] = [
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::InvalidAction,
        ErrorCode::Conflict,
        ErrorCode::InvalidRequest,
        ErrorCode::AlreadyActed,
        ErrorCode::RateLimited,
        ErrorCode::StorageUnavailable,
        ErrorCode::Unavailable,
        ErrorCode::Internal,
        ErrorCode::OutcomeUnknown,
    ];

    /// As the API writes it: `NOT_FOUND`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::InvalidAction => "INVALID_ACTION",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::InvalidRequest => "INVALID_REQUEST",
            ErrorCode::AlreadyActed => "ALREADY_ACTED",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::StorageUnavailable => "STORAGE_UNAVAILABLE",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::OutcomeUnknown => "OUTCOME_UNKNOWN",
        }
    }

    pub fn status(self) -> u16 {
        match self {
            ErrorCode::StorageUnavailable | ErrorCode::Unavailable => 503,
            ErrorCode::Internal => 500,
            ErrorCode::OutcomeUnknown => 502,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Conflict => 409,
            ErrorCode::RateLimited => 429,
            ErrorCode::InvalidAction | ErrorCode::InvalidRequest | ErrorCode::AlreadyActed => 400,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HostError {
    pub code: ErrorCode,
    pub message: String,
    /// For [`ErrorCode::RateLimited`]: when to try again.
    pub retry_after: Option<std::time::Duration>,
    /// The stable code of a refusal (Werewolf's `WRONG_PHASE`, any game's `NOT_YOUR_TURN`), for
    /// faces that speak those codes; the general code above is what the REST API says.
    pub detail: Option<game_api::Code>,
}

impl HostError {
    /// An action in a session that has ended (perhaps just now, by a deadline that fell due
    /// before the action arrived): for the tools' stable codes, an action out of its phase.
    pub fn completed(id: super::SessionId) -> HostError {
        HostError {
            detail: Some(game_api::Code::WrongPhase),
            ..HostError::new(
                ErrorCode::InvalidAction,
                format!("Session {id} is completed"),
            )
        }
    }

    pub fn new(code: ErrorCode, message: impl Into<String>) -> HostError {
        HostError {
            code,
            message: message.into(),
            retry_after: None,
            detail: None,
        }
    }
}

impl From<GameError> for HostError {
    fn from(e: GameError) -> HostError {
        let code = match e {
            GameError::AlreadyActed => ErrorCode::AlreadyActed,
            GameError::BadOptions(_) => ErrorCode::InvalidRequest,
            GameError::Refused {
                code: game_api::Code::RateLimited,
                ..
            } => ErrorCode::RateLimited,
            _ => ErrorCode::InvalidAction,
        };
        let mut h = HostError::new(code, e.to_string());
        if matches!(e, GameError::NotYourTurn) {
            h.detail = Some(game_api::Code::NotYourTurn);
        }
        if let GameError::Refused {
            code,
            retry_after_ms,
            ..
        } = e
        {
            h.detail = Some(code);
            h.retry_after = retry_after_ms.map(std::time::Duration::from_millis);
        }
        h
    }
}

pub(super) fn not_found(id: &str) -> HostError {
    HostError::new(ErrorCode::NotFound, format!("No session {id}"))
}
