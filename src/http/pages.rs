//! The REST routes a game adds beside seed 004's: a Werewolf match's report, a chess game's
//! PGN and its board page.

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::extract::Caller;
use super::{Api, ApiError};
use crate::world::Face;
use crate::world::sessions::ErrorCode;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReportQuery {
    pub export: Option<bool>,
    pub viewer: Option<String>,
}

/// A Werewolf match's report: the `report` verb's answer, as the MCP tool gives it.
pub(super) async fn werewolf_report(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
    query: Result<Query<ReportQuery>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(q) = query.map_err(|e| ApiError::invalid(e.body_text()))?;
    let args = serde_json::json!({ "matchId": id, "export": q.export, "viewer": q.viewer });
    let answer = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            let verb =
                crate::verbs::find("report").ok_or_else(crate::verbs::VerbError::internal)?;
            (verb.run_json)(w, cx, args)
        })
        .await?;
    match answer {
        Ok(reply) => Ok(Json(reply.data)),
        Err(e) => {
            // The tool's error code (MATCH_NOT_FOUND, WRONG_PHASE…) says which REST code fits.
            use crate::games::Code;
            let rest = match e.code {
                Some(Code::MatchNotFound | Code::NotInMatch) => ErrorCode::NotFound,
                Some(Code::RateLimited) => ErrorCode::RateLimited,
                Some(Code::InvalidRequest) => ErrorCode::InvalidRequest,
                _ => ErrorCode::InvalidAction,
            };
            Err(ApiError::new(rest, e.message))
        }
    }
}

/// A chess game in PGN, as the `pgn` verb gives it (a chess position is public: any caller may
/// ask for any game).
pub(super) async fn session_pgn(
    State(api): State<Api>,
    Caller(me): Caller,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    let args = serde_json::json!({ "game": id });
    let answer = api
        .world
        .call(me, Face::Rest, move |w, cx| {
            let verb = crate::verbs::find("pgn").ok_or_else(crate::verbs::VerbError::internal)?;
            (verb.run_json)(w, cx, args)
        })
        .await?;
    answer
        .map(|reply| Json(reply.data))
        .map_err(|e| ApiError::new(ErrorCode::NotFound, e.message))
}

/// The interactive board of a chess game, for a plain browser: it reads and plays the game
/// through this API with the token the player types into it. (A chess position is public: it
/// stands in the parlour for anyone to look at.)
pub(super) async fn chess_page(
    State(api): State<Api>,
    Path(id): Path<String>,
) -> Result<axum::response::Response, ApiError> {
    let no_game = || ApiError::new(ErrorCode::NotFound, format!("No chess game {id}"));
    // `/chess/<id>.pgn`: the game in PGN.
    if let Some(n) = id.strip_suffix(".pgn") {
        let sid: u64 = n.parse().map_err(|_| no_game())?;
        let pgn = api
            .world
            .call("".into(), Face::Rest, move |w, _| {
                crate::verbs::chess::board::pgn_of(w, sid)
            })
            .await?
            .ok_or_else(no_game)?;
        return Ok((
            [
                (
                    axum::http::header::CONTENT_TYPE,
                    "application/x-chess-pgn; charset=utf-8",
                ),
                (
                    axum::http::header::CONTENT_DISPOSITION,
                    &format!("inline; filename=\"moot-{sid}.pgn\""),
                ),
            ],
            pgn,
        )
            .into_response());
    }
    let sid: u64 = id.parse().map_err(|_| no_game())?;
    let found = api
        .world
        .call("".into(), Face::Rest, move |w, _| {
            let s = w.session(sid)?;
            let g = crate::verbs::chess::chess_of(s)?;
            Some((g.fen().to_owned(), s.tick))
        })
        .await?;
    let (fen, tick) = found.ok_or_else(no_game)?;
    Ok(
        axum::response::Html(crate::verbs::chess::page::chess_page(sid, &fen, "", tick))
            .into_response(),
    )
}
