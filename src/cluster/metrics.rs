//! `/metrics` as a typed call: the face reads the token the scraper sent, the world checks it
//! and counts, so that a host serves the route and the world sees no HTTP.

use std::collections::BTreeMap;

use super::calls::{CallRefused, Called, refused_as};
use super::door::Door;
use moot_kernel::world::Face;
use moot_kernel::world::sessions::ErrorCode;

impl Door {
    /// Prometheus metrics, for a scraper holding `--metrics-token` (they tell how busy moot
    /// is and who plays what, so they are not public): the text, as a JSON string. The world's
    /// sessions are counted at scrape time, by template and by the phase a running one's state
    /// names (a Werewolf match's), or running; finished ones are over.
    pub async fn metrics(&self, given: Option<String>) -> Called {
        use subtle::ConstantTimeEq;
        let Some(token) = self.metrics_token.as_deref() else {
            return Err(refused_as(
                ErrorCode::NotFound,
                "Metrics are off; start moot with --metrics-token to serve them",
            ));
        };
        let given = given.unwrap_or_default();
        if !bool::from(given.as_bytes().ct_eq(token.as_bytes())) {
            return Err(refused_as(
                ErrorCode::Unauthorized,
                "/metrics needs Authorization: Bearer <the --metrics-token>",
            ));
        }
        let by = self
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
            .await
            .map_err(CallRefused::Unavailable)?;
        let mut text = moot_kernel::metrics::get().render(&by);
        text.push_str(&self.game_worlds.metrics(tokio::time::Instant::now()));
        super::calls::written(&text)
    }
}
