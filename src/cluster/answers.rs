//! What a face answers itself when the town cannot: in the REST API's error shape, which every
//! HTTP face gives alike.

use axum::body::Body;
use axum::http::{HeaderValue, Response, StatusCode};

/// The answer to a write the world took and never answered: not to be tried again blindly.
pub fn unknown() -> Response<Body> {
    let body = serde_json::json!({ "error": { "code": "OUTCOME_UNKNOWN", "message":
        "The town stopped before answering. If that changed anything it was stored: look \
         before trying again." } });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = StatusCode::BAD_GATEWAY;
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// The answer while the town is away: to be tried again in a moment.
pub fn away() -> Response<Body> {
    refusal(
        StatusCode::SERVICE_UNAVAILABLE,
        "The town does not answer; please try again in a moment.",
    )
}

/// The answer to a request larger than the broker carries in a message (`most` bytes).
pub fn too_large(most: usize) -> Response<Body> {
    let why = format!(
        "The request is too large to pass to the town: its broker carries at most {most} bytes \
         a message."
    );
    refusal(StatusCode::PAYLOAD_TOO_LARGE, &why)
}

/// The REST API's error shape, for what a host answers itself.
fn refusal(status: StatusCode, message: &str) -> Response<Body> {
    let code = if status == StatusCode::SERVICE_UNAVAILABLE {
        "UNAVAILABLE"
    } else {
        "INVALID_REQUEST"
    };
    let body = serde_json::json!({ "error": { "code": code, "message": message } });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            HeaderValue::from_static("1"),
        );
    }
    response
}
