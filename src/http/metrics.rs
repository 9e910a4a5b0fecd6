//! `/metrics`: Prometheus text for a scraper that holds the operator's token.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::response::IntoResponse;

use super::{Api, ApiError};
use moot_kernel::world::Face;
use moot_kernel::world::sessions::ErrorCode;

/// Prometheus metrics, for a scraper holding `--metrics-token` (they tell how busy moot is and
/// who plays what, so they are not public). The world's sessions are counted at scrape time,
/// by template and by the phase a running one's state names (a Werewolf match's), or
/// running; finished ones are over.
pub(super) async fn metrics(
    State(api): State<Api>,
    headers: axum::http::HeaderMap,
) -> axum::response::Response {
    use subtle::ConstantTimeEq;
    let Some(token) = api.metrics_token.clone() else {
        return ApiError::new(
            ErrorCode::NotFound,
            "Metrics are off; start moot with --metrics-token to serve them",
        )
        .into_response();
    };
    let given = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    if !bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
        return ApiError::new(
            ErrorCode::Unauthorized,
            "/metrics needs Authorization: Bearer <the --metrics-token>",
        )
        .into_response();
    }
    let counted = api
        .world
        .call(moot_kernel::world::SERVER_ID.into(), Face::Rest, |w, _| {
            let mut by: BTreeMap<(String, String), u64> = BTreeMap::new();
            for id in w.session_ids() {
                let Some(s) = w.session(id) else { continue };
                let phase = if s.game.is_terminal() {
                    "over".to_owned()
                } else {
                    let state = s.game.state();
                    state["phase"].as_str().unwrap_or("running").to_owned()
                };
                *by.entry((s.template.id.to_owned(), phase)).or_default() += 1;
            }
            by
        })
        .await;
    match counted {
        Ok(by) => (
            [(
                axum::http::header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            moot_kernel::metrics::get().render(&by),
        )
            .into_response(),
        Err(e) => ApiError::new(ErrorCode::StorageUnavailable, e.to_string()).into_response(),
    }
}
