//! The pages the game modules add beside the session host's routes: each game's page and its
//! downloads, read from the [`Town`](crate::cluster::Town) wherever it is (the reads its verbs
//! answer are calls: [`super::calls::read`]). Nothing here names a game: the modules'
//! declarations say what to serve.

use axum::http::{HeaderMap, Uri};
use axum::response::{IntoResponse, Response};

use super::ApiError;
use super::calls::Calls;
use crate::cluster::calls::PageRead;
use moot_kernel::verbs::game_module::Page;
use moot_kernel::world::sessions::{ErrorCode, parse_id};

/// A game's page for a plain browser (a chess board, a Werewolf match), or, with a suffix the
/// game declares after the id, a download (`/chess/<id>.pgn`).
pub(super) async fn page(
    c: Calls,
    page: &'static Page,
    id: String,
    (headers, uri): (HeaderMap, Uri),
) -> Response {
    let download = page
        .downloads
        .iter()
        .find_map(|d| Some((d, id.strip_suffix(d.suffix)?)));
    let (n, d) = match download {
        Some((d, n)) => (n, Some(d)),
        None => (id.as_str(), None),
    };
    // A browser's page is answered as a page; a download, and whatever does not ask for
    // HTML (a client of the API), in the API's shape.
    let browser = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|a| a.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    let no_game = || {
        let mut r = match d {
            None if browser => no_such_page(parse_id(n).ok()),
            _ => ApiError::new(ErrorCode::NotFound, format!("No such game: {id}")).into_response(),
        };
        // Which one depends on what was accepted: a cache must not hand one the other's.
        r.headers_mut().insert(
            axum::http::header::VARY,
            axum::http::HeaderValue::from_static("Accept"),
        );
        r
    };
    let Ok(sid) = parse_id(n) else {
        return no_game();
    };
    let read = PageRead {
        page: page.path.to_owned(),
        download: d.map(|d| d.suffix.to_owned()),
        id: n.to_owned(),
    };
    let text = match c.town().page(read).await {
        Ok(Some(text)) => text,
        Ok(None) => return no_game(),
        Err(why) => return c.refused(why, &headers, &uri),
    };
    let Some(d) = d else {
        return axum::response::Html(super::nav::with_nav(&text)).into_response();
    };
    let file = format!("inline; filename=\"moot-{sid}{}\"", d.suffix);
    (
        [
            (axum::http::header::CONTENT_TYPE, d.media_type),
            (axum::http::header::CONTENT_DISPOSITION, file.as_str()),
        ],
        text,
    )
        .into_response()
}

/// The page for a game that is not there: HTML, with the site's navigation, as a browser
/// expects (it once had the API's JSON). Only a number it was asked for is repeated.
fn no_such_page(sid: Option<moot_kernel::world::sessions::SessionId>) -> Response {
    let what = sid.map_or_else(|| "No such game.".to_owned(), |n| format!("No game #{n}."));
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>No such game</title></head><body><main><h1>No such game</h1><p>{what} \
<a href=\"/#games-section\">The games being played</a>.</p></main></body></html>"
    );
    (
        axum::http::StatusCode::NOT_FOUND,
        axum::response::Html(super::nav::with_nav(&html)),
    )
        .into_response()
}
