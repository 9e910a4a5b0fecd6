//! `/metrics`: Prometheus text for a scraper that holds the operator's token, which the town
//! checks ([`crate::cluster::metrics`]).

use axum::extract::State;
use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};

use super::ApiError;
use super::calls::Calls;
use moot_kernel::world::sessions::ErrorCode;

pub(super) async fn metrics(State(c): State<Calls>, headers: HeaderMap, uri: Uri) -> Response {
    let given = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_owned);
    let called = match c.town().metrics(given).await {
        Ok(called) => called,
        Err(why) => return c.refused(why, &headers, &uri),
    };
    match serde_json::from_str::<String>(called.get()) {
        Ok(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Err(_) => ApiError::new(ErrorCode::Internal, "Something went wrong.").into_response(),
    }
}
