//! The routes the game modules add beside the session host's: each game's page (and its downloads),
//! and reads answered by one of its verbs (a Werewolf match's report, a chess game's PGN).
//! Nothing here names a game: the modules' declarations say what to serve.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::Query;
use axum::response::IntoResponse;
use serde_json::Value;

use super::{Api, ApiError};
use moot_kernel::verbs::ErrorKind;
use moot_kernel::verbs::game_module::{ApiRead, Page};
use moot_kernel::world::sessions::{ErrorCode, parse_id};
use moot_kernel::world::{AgentId, Face};

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

/// A read a game adds to the API, answered by its verb as the MCP tool answers: the path's id
/// is the verb's argument `read.arg`, the query gives the others.
pub(super) async fn read(
    api: Api,
    read: &'static ApiRead,
    me: AgentId,
    id: String,
    query: Result<Query<BTreeMap<String, String>>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<moot_kernel::verbs::Json>, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::invalid(e.body_text()))?;
    let mut args = serde_json::Map::new();
    for (k, v) in query {
        // `true` and `false` are flags (`?export=true`); anything else is text, as the path's
        // id is, and the verb's own arguments refuse what they do not take.
        let v = match v.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(v),
        };
        args.insert(k, v);
    }
    args.insert(read.arg.to_owned(), Value::String(id));
    let answer = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            (read.verb.run_json)(w, cx, Value::Object(args))
        })
        .await?;
    match answer {
        Ok(reply) => Ok(Json(reply.data)),
        Err(e) => {
            // The refusal's typed code (MATCH_NOT_FOUND, WRONG_PHASE…) says which REST code fits.
            use moot_kernel::game_api::Code;
            let rest = match (e.code, e.kind) {
                (Some(Code::MatchNotFound | Code::NotInMatch), _) | (None, ErrorKind::NotFound) => {
                    ErrorCode::NotFound
                }
                (Some(Code::RateLimited), _) => ErrorCode::RateLimited,
                (Some(Code::InvalidRequest), _) | (None, ErrorKind::Usage) => {
                    ErrorCode::InvalidRequest
                }
                _ => ErrorCode::InvalidAction,
            };
            Err(ApiError::new(rest, e.message))
        }
    }
}
