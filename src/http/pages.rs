//! The pages the game modules add beside the session host's routes: each game's page and its
//! downloads (the reads its verbs answer are calls: [`super::calls::read`]). Nothing here
//! names a game: the modules' declarations say what to serve.

use axum::response::IntoResponse;

use super::{Api, ApiError};
use moot_kernel::verbs::game_module::Page;
use moot_kernel::world::Face;
use moot_kernel::world::sessions::{ErrorCode, parse_id};

/// A game's page for a plain browser (a chess board, a Werewolf match), or, with a suffix the
/// game declares after the id, a download (`/chess/<id>.pgn`).
pub(super) async fn page(
    api: Api,
    page: &'static Page,
    id: String,
) -> Result<axum::response::Response, ApiError> {
    let no_game = || ApiError::new(ErrorCode::NotFound, format!("No such game: {id}"));
    let download = page
        .downloads
        .iter()
        .find_map(|d| Some((d, id.strip_suffix(d.suffix)?)));
    if let Some((d, n)) = download {
        let sid = parse_id(n).map_err(|_| no_game())?;
        let text = api
            .world
            .call("".into(), Face::Rest, move |w, _| (d.text)(w, sid))
            .await?
            .ok_or_else(no_game)?;
        let file = format!("inline; filename=\"moot-{sid}{}\"", d.suffix);
        return Ok((
            [
                (axum::http::header::CONTENT_TYPE, d.media_type),
                (axum::http::header::CONTENT_DISPOSITION, file.as_str()),
            ],
            text,
        )
            .into_response());
    }
    let sid = parse_id(&id).map_err(|_| no_game())?;
    let html = api
        .world
        .call("".into(), Face::Rest, move |w, _| (page.html)(w, sid))
        .await?
        .ok_or_else(no_game)?;
    Ok(axum::response::Html(html).into_response())
}
