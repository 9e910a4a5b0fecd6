//! The world's side of the web's questions ([`visits`](super::visits)), answered through its
//! [`Door`]: the world alone holds the cookie sessions, the logins and the database, whichever
//! process holds the browser.

use tokio::sync::watch;

use super::calls::{CallRefused, Called, Refusal, written};
use super::door::Door;
use super::visits::{
    ActionCall, ActionRefused, FrameAnswer, FrameAsk, GAMES_LISTED, LONG_POLL, NotMade,
    POINTS_CHARTED, PlayerPage, Pressed, Versioned, Visitor, WebAsk, action_at, page_at,
};
use moot_kernel::verbs::game_module::Access;
use moot_kernel::verbs::ratings::{self as views, Leaderboards};
use moot_kernel::world::sessions::parse_id;
use moot_kernel::world::{AgentId, Face, SERVER_ID, Unavailable, World};

impl Door {
    /// The world's side of a [`WebAsk`].
    pub async fn web(&self, ask: WebAsk) -> Called {
        match ask {
            WebAsk::Town { seen } => {
                let town = self
                    .after_change(
                        seen,
                        |w| (w.watch_town(), w.town_version()),
                        |w| Some(crate::games::town(w)),
                    )
                    .await?;
                let (value, version) = match town.flatten() {
                    Some((town, version)) => (Some(town), version),
                    None => (None, seen.unwrap_or_default()),
                };
                written(&Versioned { value, version })
            }
            WebAsk::Frame(ask) => written(&self.frame(ask).await?),
            WebAsk::Visitor { cookie } => {
                written(&self.visits.sessions.get(&cookie).map(|s| Visitor {
                    name: s.name,
                    csrf: s.csrf,
                }))
            }
            WebAsk::SignIn { ip, name, password } => {
                let checked = self
                    .logins
                    .check(&self.store, &self.directory, ip, name.trim(), &password)
                    .await;
                written(&checked.map(|row| {
                    tracing::info!(agent = %row.agent_id, "signed in on the web");
                    self.visits
                        .sessions
                        .open(row.agent_id.as_str().into(), row.name)
                }))
            }
            WebAsk::SignUp { ip, name, password } => {
                let made = match self
                    .agents_by_address
                    .take(&ip.into(), tokio::time::Instant::now())
                {
                    Err(wait) => Err(NotMade::TooMany(wait)),
                    Ok(()) if self.banned(ip) => Err(NotMade::Banned),
                    Ok(()) => self
                        .create(ip, name.trim(), &password)
                        .await
                        .map_err(NotMade::Refused),
                };
                written(&made.map(|row| {
                    tracing::info!(agent = %row.agent_id, "made a character on the web");
                    self.visits
                        .sessions
                        .open(row.agent_id.as_str().into(), row.name)
                }))
            }
            WebAsk::SignOut { cookie, csrf } => {
                let refused = match self.visits.sessions.get(&cookie) {
                    Some(s) if s.csrf_ok(&csrf) => {
                        self.visits.sessions.close(&cookie);
                        false
                    }
                    Some(_) => true,
                    None => false,
                };
                written(&refused)
            }
            // A button on a game played on a game world is the broker's to hand over
            // (`games::web`); in one process no game is.
            WebAsk::Action(call) => match self.action(call).await? {
                Pressed::Here(done) => written(&done),
                Pressed::Elsewhere { .. } => Err(CallRefused::Unavailable(Unavailable::Internal)),
            },
            WebAsk::Leaderboard { game, whom, season } => {
                let boards: Result<Leaderboards, String> = self
                    .world
                    .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                        views::leaderboards(w, &game, whom, season.as_deref())
                    })
                    .await
                    .map_err(CallRefused::Unavailable)?
                    .map_err(|e| e.message);
                written(&boards)
            }
            WebAsk::Player { name } => written(&self.player(name).await?),
            WebAsk::OAuth(ask) => self.oauth(ask).await,
        }
    }

    /// What `read` reads of the world once the version `watch` gives is no longer `seen` (at once if
    /// it is not now), with the version it read at; `None` if it was still `seen` after
    /// [`LONG_POLL`], or `read` found nothing. The version is read in the same turn of the
    /// world task as what `read` reads, and the watch is taken before the turn ends, so that no
    /// change falls between one question and the next; it is this run's ([`Visits::run`]), so
    /// that a question asked again of a restarted world is answered at once.
    async fn after_change<T, W, R>(
        &self,
        seen: Option<u64>,
        watch: W,
        read: R,
    ) -> Result<Option<Option<(T, u64)>>, CallRefused>
    where
        T: Send + 'static,
        W: Fn(&mut World) -> (watch::Receiver<u64>, u64) + Clone + Send + 'static,
        R: Fn(&World) -> Option<T> + Clone + Send + 'static,
    {
        let deadline = tokio::time::Instant::now() + LONG_POLL;
        let run = self.visits.run;
        loop {
            let (watch, read) = (watch.clone(), read.clone());
            let turn = self
                .world
                .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                    let (rx, version) = watch(w);
                    let version = run.wrapping_add(version);
                    if seen == Some(version) {
                        Err(rx)
                    } else {
                        Ok(read(w).map(|t| (t, version)))
                    }
                })
                .await
                .map_err(CallRefused::Unavailable)?;
            let mut rx = match turn {
                Ok(read) => return Ok(Some(read)),
                Err(rx) => rx,
            };
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => {}
                // Unchanged all along (or the world stopped, which the next turn says).
                Ok(Err(_)) | Err(_) => return Ok(None),
            }
        }
    }

    async fn frame(&self, ask: FrameAsk) -> Result<FrameAnswer, CallRefused> {
        let (Some((module, page)), Ok(sid)) = (page_at(&ask.page), parse_id(&ask.id)) else {
            return Ok(FrameAnswer::NoGame);
        };
        let viewer: Option<AgentId> = ask
            .cookie
            .and_then(|c| self.visits.sessions.get(&c))
            .map(|s| s.agent);
        let after = ask.after;
        let ours = move |w: &World| {
            w.session(sid)
                .is_some_and(|s| module.templates.iter().any(|t| t.id == s.template.id))
        };
        // Whether it is a game of this module, without drawing a frame only to throw it away
        // (every spectator of a crowded match asks this).
        let read = move |w: &World| match ours(w) {
            true => (page.frame)(w, viewer.as_ref(), sid, after),
            false => None,
        };
        let answer = match self
            .after_change(
                ask.seen,
                move |w| {
                    let mut rx = w.watch_session(sid);
                    let version = *rx.borrow_and_update();
                    (rx, version)
                },
                read,
            )
            .await?
        {
            None => FrameAnswer::Frame(Versioned {
                value: None,
                version: ask.seen.unwrap_or_default(),
            }),
            Some(None) => FrameAnswer::NoGame,
            Some(Some((frame, version))) => FrameAnswer::Frame(Versioned {
                value: Some(frame),
                version,
            }),
        };
        Ok(answer)
    }

    /// Presses the button `call` asks for, here, or says where it is to be pressed.
    pub async fn action(&self, call: ActionCall) -> Result<Pressed, CallRefused> {
        let Some(action) = action_at(&call.path, call.post.is_some()) else {
            return Err(CallRefused::NoSuchVerb(call.path));
        };
        let sid = match call.id.as_deref().map(parse_id) {
            None => None,
            Some(Ok(sid)) => Some(sid),
            Some(Err(_)) => {
                return Ok(Pressed::Here(Err(ActionRefused::NoGame(
                    call.id.unwrap_or_default(),
                ))));
            }
        };
        let (actor, row) = match action.access {
            Access::Public => (AgentId::from(SERVER_ID), None),
            Access::SignedIn { unsigned, arrive } => {
                let Some(s) = call.cookie.and_then(|c| self.visits.sessions.get(&c)) else {
                    return Ok(Pressed::Here(Err(ActionRefused::Unsigned(
                        unsigned.to_owned(),
                    ))));
                };
                if let Some(posted) = &call.post
                    && !(s.csrf_ok(&posted.csrf) && posted.same_origin)
                {
                    return Ok(Pressed::Here(Err(ActionRefused::Forbidden)));
                }
                // Someone not in the town comes into it first, as an agent does (until
                // `--idle-timeout` passes without a word from them).
                let row = if arrive {
                    match self.store.agent_by_id(&s.agent).await {
                        Ok(Some(row)) => Some(row),
                        Ok(None) => return Ok(Pressed::Here(Err(ActionRefused::SignInAgain))),
                        Err(_) => return Err(CallRefused::Unavailable(Unavailable::Storage)),
                    }
                } else {
                    None
                };
                (s.agent, row)
            }
        };
        let args = call.args;
        let (done, handed) = self
            .world
            .call(actor.clone(), Face::Rest, move |w, cx| {
                if let Some(row) = row {
                    w.arrive_agent(cx, row);
                    // A page that asks is a client still there, as an agent's call is: its
                    // person is not swept away as silent while it reads.
                    w.heard(&cx.actor, cx.now);
                }
                let kept = args.clone();
                let done = (action.run)(w, cx, sid, args);
                // A button on a game played on a game world is pressed there: nothing of it
                // stands here.
                match (cx.elsewhere.take(), &done) {
                    (Some(id), Err(_)) => {
                        cx.roll_back(w);
                        (done, Some((id, kept)))
                    }
                    _ => (done, None),
                }
            })
            .await
            .map_err(CallRefused::Unavailable)?;
        if let Some((id, args)) = handed {
            return Ok(Pressed::Elsewhere {
                agent: actor,
                id,
                args,
                status: action.refused,
            });
        }
        Ok(Pressed::Here(done.map_err(|e| ActionRefused::Verb {
            refusal: Refusal::from(e),
            status: action.refused,
        })))
    }

    async fn player(&self, name: String) -> Result<Result<PlayerPage, String>, CallRefused> {
        let found = self
            .world
            .call(SERVER_ID.into(), Face::Rest, move |w, _| {
                views::player(w, &name, GAMES_LISTED)
            })
            .await
            .map_err(CallRefused::Unavailable)?;
        let (agent, view, games) = match found {
            Ok(found) => found,
            Err(e) => return Ok(Err(e.message)),
        };
        let history = self
            .store
            .rating_history(&agent, POINTS_CHARTED)
            .await
            .unwrap_or_default();
        Ok(Ok(PlayerPage {
            view,
            games,
            history,
        }))
    }
}
