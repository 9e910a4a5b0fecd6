//! The REST API's routes: each reads its request and asks the [`Town`], the world in this
//! process or across the broker, with a typed call ([`crate::cluster::calls`]): its verb by
//! name (the session routes, the reads the town and the games add), an agent to make. So a
//! host serves them itself and the world sees calls, never HTTP.
//!
//! A request's credential is judged by the town with the call. What the route could not read
//! is refused only once the town has vouched for the credential, as a one-process moot checks
//! the token before it reads the rest.

use std::sync::Arc;

use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::extract::{Body, credential, unauthorized};
use super::{ApiError, ListQuery, SubmitAction};
use crate::cluster::Town;
use crate::cluster::calls::Credential;
use crate::cluster::calls::{CallRefused, VerbCall};
use moot_kernel::verbs::VerbError;
use moot_kernel::verbs::game_module::ApiRead;
use moot_kernel::verbs::invitations::{SessionAccept, SessionDecline};
use moot_kernel::verbs::sessions::{
    ActArgs, CreateArgs, SessionAct, SessionArg, SessionCreate, SessionList, SessionLog,
    SessionState,
};
use moot_kernel::verbs::tournaments;
use moot_kernel::verbs::{NoArgs, REASONING, Verb};
use moot_kernel::world::Face;
use moot_kernel::world::sessions::ErrorCode;

/// What the API's routes and the MCP endpoint share: the town, and where moot is reached from
/// outside (a 401's pointer to the authorization server).
#[derive(Clone)]
pub struct Calls(Arc<CallsState>);

pub struct CallsState {
    pub town: Arc<Town>,
    pub public_url: Option<Arc<str>>,
}

impl Calls {
    pub(super) fn town(&self) -> &Town {
        &self.0.town
    }

    pub fn new(town: Arc<Town>, public_url: Option<Arc<str>>) -> Calls {
        Calls(Arc::new(CallsState { town, public_url }))
    }

    /// The answer to a call the town did not do.
    pub(super) fn refused(&self, why: CallRefused, headers: &HeaderMap, uri: &Uri) -> Response {
        match why {
            CallRefused::Unvouched(why) => {
                unauthorized(why, self.0.public_url.as_deref(), headers, uri.path()).into_response()
            }
            CallRefused::NoSuchVerb(verb) => {
                tracing::error!(%verb, "the town has no verb a route calls");
                ApiError::new(
                    ErrorCode::Internal,
                    "Something went wrong; nothing changed.",
                )
                .into_response()
            }
            CallRefused::Verb(refusal) => {
                ApiError::from(moot_kernel::verbs::VerbError::from(refusal)).into_response()
            }
            CallRefused::Unavailable(why) => ApiError::from(why).into_response(),
            CallRefused::Away => ApiError::away().into_response(),
            CallRefused::Unknown => ApiError::outcome_unknown().into_response(),
            CallRefused::TooLarge(most) => ApiError::too_large(most).into_response(),
            CallRefused::Tool(e) => {
                tracing::error!(error = ?e, "a REST route was answered as a tool");
                ApiError::new(
                    ErrorCode::Internal,
                    "Something went wrong; nothing changed.",
                )
                .into_response()
            }
        }
    }

    /// Who the request's credential is (the town vouches), or its 401.
    pub(super) async fn caller(&self, headers: &HeaderMap, uri: &Uri) -> Result<String, Response> {
        self.0
            .town
            .vouch(&credential(headers))
            .await
            .map_err(|why| self.refused(why, headers, uri))
    }

    /// Verb `verb` with what the route read of the request (`args`, or its refusal, given
    /// once the credential is known good), as whoever the request's credential is.
    async fn call<A: Serialize>(
        &self,
        at: (&HeaderMap, &Uri),
        verb: &str,
        args: Result<A, Unread>,
        reasoning: Option<String>,
    ) -> Result<Response, Response> {
        let credential = credential(at.0);
        self.call_as(credential, at, verb, args, reasoning, ApiError::from)
            .await
    }

    /// [`call`](Self::call) as `credential` says, the verb's own refusals answered by
    /// `refusal`.
    async fn call_as<A: Serialize>(
        &self,
        credential: Credential,
        (headers, uri): (&HeaderMap, &Uri),
        verb: &str,
        args: Result<A, Unread>,
        reasoning: Option<String>,
        refusal: fn(VerbError) -> ApiError,
    ) -> Result<Response, Response> {
        let args = match args {
            Ok(args) => args,
            // A read anyone may make has no credential to judge first.
            Err(unread) if credential == Credential::Nobody => return Err(*unread),
            Err(unread) => {
                self.caller(headers, uri).await?;
                return Err(*unread);
            }
        };
        let mut args = serde_json::to_value(args).map_err(|e| {
            tracing::error!(error = %e, "a route's arguments do not serialize");
            ApiError::new(
                ErrorCode::Internal,
                "Something went wrong; nothing changed.",
            )
            .into_response()
        })?;
        if let (Some(why), Some(object)) = (reasoning, args.as_object_mut()) {
            object.insert(REASONING.into(), Value::String(why));
        }
        let call = VerbCall {
            credential,
            face: Face::Rest,
            verb: verb.to_owned(),
            args,
            held: None,
        };
        match self.0.town.call(call).await {
            Ok(data) => Ok(json(data)),
            Err(CallRefused::Verb(r)) => Err(refusal(VerbError::from(r)).into_response()),
            Err(why) => Err(self.refused(why, headers, uri)),
        }
    }
}

/// A verb's result as the body, as the verb wrote it.
fn json(data: Box<RawValue>) -> Response {
    let text: Box<str> = data.into();
    (
        [(header::CONTENT_TYPE, "application/json")],
        String::from(text),
    )
        .into_response()
}

/// Why a route could not read what it was sent: its answer, once the credential is good.
type Unread = Box<Response>;

fn unread(why: impl IntoResponse) -> Unread {
    Box::new(why.into_response())
}

/// A session named in the path, or why the path could not be read.
fn session(path: Result<Path<String>, PathRejection>) -> Result<SessionArg, Unread> {
    path.map(|Path(session_id)| SessionArg { session_id })
        .map_err(unread)
}

type Answer = Result<Response, Response>;

pub(super) async fn create_session(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Body<CreateArgs>, ApiError>,
) -> Answer {
    let args = body.map(|Body(args)| args).map_err(unread);
    let created = c
        .call((&headers, &uri), SessionCreate::NAME, args, None)
        .await?;
    Ok((StatusCode::CREATED, created).into_response())
}

/// A player named in a waiting session agrees to it (`status` says whether it began).
pub(super) async fn accept_session(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
) -> Answer {
    c.call((&headers, &uri), SessionAccept::NAME, session(path), None)
        .await
}

/// A player named in a waiting session turns it down (its maker withdraws it).
pub(super) async fn decline_session(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
) -> Answer {
    c.call((&headers, &uri), SessionDecline::NAME, session(path), None)
        .await
}

pub(super) async fn list_sessions(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    query: Result<Query<ListQuery>, QueryRejection>,
) -> Answer {
    let args = match query {
        Err(e) => Err(unread(ApiError::invalid(e.body_text()))),
        // Only the caller's own: the town says who that is.
        Ok(Query(ListQuery {
            agent_id: Some(asked),
        })) if c.caller(&headers, &uri).await? != asked => Err(unread(ApiError::new(
            ErrorCode::Forbidden,
            "You may list only your own sessions",
        ))),
        Ok(_) => Ok(NoArgs {}),
    };
    c.call((&headers, &uri), SessionList::NAME, args, None)
        .await
}

pub(super) async fn session_state(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
) -> Answer {
    c.call((&headers, &uri), SessionState::NAME, session(path), None)
        .await
}

pub(super) async fn submit_action(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
    body: Result<Body<SubmitAction>, ApiError>,
) -> Answer {
    let read = session(path).and_then(|SessionArg { session_id }| {
        let Body(req) = body.map_err(unread)?;
        Ok((session_id, req))
    });
    let (args, reasoning) = match read {
        Ok((session_id, req)) => {
            let act = ActArgs {
                session_id,
                action: req.action,
                expected_tick: req.expected_tick,
            };
            // The cost rides beside the verb's arguments, as the reasoning does.
            let mut args = serde_json::to_value(act).unwrap_or_default();
            if let (Some(cost), Some(o)) = (req.cost, args.as_object_mut()) {
                o.insert(
                    moot_kernel::verbs::COST.into(),
                    serde_json::to_value(cost).unwrap_or_default(),
                );
            }
            (Ok(args), req.reasoning)
        }
        Err(unread) => (Err(unread), None),
    };
    c.call((&headers, &uri), SessionAct::NAME, args, reasoning)
        .await
}

pub(super) async fn session_log(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
) -> Answer {
    c.call((&headers, &uri), SessionLog::NAME, session(path), None)
        .await
}

/// A read a game or the town adds to the API (`GET /ratings/{name}`), answered by its verb as
/// the MCP tool answers: the path's id is the verb's argument `read.arg`, the query gives the
/// others. A public one is asked as nobody, as the web's pages are.
pub(super) async fn read(
    c: Calls,
    read: &'static ApiRead,
    (headers, uri): (HeaderMap, Uri),
    id: Result<Path<String>, PathRejection>,
    query: Result<Query<std::collections::BTreeMap<String, String>>, QueryRejection>,
) -> Answer {
    let args = id.map_err(unread).and_then(|Path(id)| {
        let Query(query) = query.map_err(|e| unread(ApiError::invalid(e.body_text())))?;
        let mut args = serde_json::Map::new();
        for (k, v) in query {
            // `true` and `false` are flags (`?export=true`); anything else is text, as the
            // path's id is, and the verb's own arguments refuse what they do not take.
            let v = match v.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                _ => Value::String(v),
            };
            args.insert(k, v);
        }
        args.insert(read.arg.to_owned(), Value::String(id));
        Ok(Value::Object(args))
    });
    let credential = match read.public {
        true => Credential::Nobody,
        false => credential(&headers),
    };
    let at = (&headers, &uri);
    c.call_as(credential, at, read.verb.name, args, None, read_refusal)
        .await
}

/// A read's refusal: its typed code (`MATCH_NOT_FOUND`, `WRONG_PHASE`…) says which REST code
/// fits.
fn read_refusal(e: VerbError) -> ApiError {
    use moot_kernel::game_api::Code;
    use moot_kernel::verbs::ErrorKind;
    let rest = match (e.code, e.kind) {
        (Some(Code::MatchNotFound | Code::NotInMatch), _) | (None, ErrorKind::NotFound) => {
            ErrorCode::NotFound
        }
        (Some(Code::RateLimited), _) => ErrorCode::RateLimited,
        (Some(Code::InvalidRequest), _) | (None, ErrorKind::Usage) => ErrorCode::InvalidRequest,
        _ => ErrorCode::InvalidAction,
    };
    ApiError::new(rest, e.message)
}

/// `POST /agents`: makes an agent, with a token, from this address; made with someone's token,
/// it is theirs. A token that is there but not good is refused before anything else.
pub(super) async fn create_agent(
    State(c): State<Calls>,
    super::extract::Peer(ip): super::extract::Peer,
    headers: HeaderMap,
    uri: Uri,
    body: Result<super::extract::OptionalBody<super::CreateAgent>, ApiError>,
) -> Answer {
    let maker = headers
        .contains_key(header::AUTHORIZATION)
        .then(|| credential(&headers));
    let name = match body {
        Ok(super::extract::OptionalBody(req)) => req.name,
        Err(unread) => {
            if maker.is_some() {
                c.caller(&headers, &uri).await?;
            }
            return Err(unread.into_response());
        }
    };
    let call = crate::cluster::agents::AgentCall { ip, maker, name };
    match c.town().make_agent(call).await {
        Ok(made) => Ok((StatusCode::CREATED, json(made)).into_response()),
        Err(why) => Err(c.refused(why, &headers, &uri)),
    }
}

/// A tournament named in the path, or why the path could not be read.
fn event(path: Result<Path<String>, PathRejection>) -> Result<tournaments::EventArg, Unread> {
    let Path(id) = path.map_err(unread)?;
    id.trim()
        .parse()
        .map(|tournament| tournaments::EventArg { tournament })
        .map_err(|_| {
            unread(ApiError::new(
                ErrorCode::NotFound,
                format!("There is no tournament {id}; GET /tournaments lists them."),
            ))
        })
}

/// `GET /tournaments`: the events scheduled, running and lately finished, to anyone.
pub(super) async fn list_tournaments(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
) -> Answer {
    let at = (&headers, &uri);
    c.call_as(
        Credential::Nobody,
        at,
        tournaments::List::NAME,
        Ok(NoArgs {}),
        None,
        read_refusal,
    )
    .await
}

/// `GET /tournaments/{id}`: one event whole, to anyone.
pub(super) async fn tournament(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
) -> Answer {
    let at = (&headers, &uri);
    c.call_as(
        Credential::Nobody,
        at,
        tournaments::Show::NAME,
        event(path),
        None,
        read_refusal,
    )
    .await
}

/// `POST /tournaments`: schedules one.
pub(super) async fn schedule_tournament(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    body: Result<Body<tournaments::ScheduleArgs>, ApiError>,
) -> Answer {
    let args = body.map(|Body(args)| args).map_err(unread);
    let made = c
        .call((&headers, &uri), tournaments::Schedule::NAME, args, None)
        .await?;
    Ok((StatusCode::CREATED, made).into_response())
}

/// `POST /tournaments/{id}/join`, `…/withdraw` and `…/start`: the caller's verb of that name.
pub(super) async fn tournament_verb(
    c: Calls,
    verb: &'static str,
    (headers, uri): (HeaderMap, Uri),
    path: Result<Path<String>, PathRejection>,
) -> Answer {
    c.call((&headers, &uri), verb, event(path), None).await
}

/// `GET /tournaments/{id}/pairing`: the caller's game in it now (REST does not wait; MCP's
/// `pairing` does).
pub(super) async fn tournament_pairing(
    State(c): State<Calls>,
    headers: HeaderMap,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
) -> Answer {
    let args = event(path).map(|e| tournaments::PairingArgs {
        tournament: Some(e.tournament),
        wait_seconds: Some(0),
    });
    c.call((&headers, &uri), tournaments::Pairing::NAME, args, None)
        .await
}

/// `GET /crosstable.json`: everyone on one scale across the two-player games, to anyone.
pub(super) async fn crosstable(State(c): State<Calls>, headers: HeaderMap, uri: Uri) -> Answer {
    let at = (&headers, &uri);
    let verb = <moot_kernel::verbs::crosstable::Crosstable as Verb>::NAME;
    c.call_as(
        Credential::Nobody,
        at,
        verb,
        Ok(NoArgs {}),
        None,
        read_refusal,
    )
    .await
}
