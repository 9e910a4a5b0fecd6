//! A host's verbs and tool calls: asked of the world as typed questions, answered in pieces
//! in an inbox of the host's own, asked again across a restart of the world when they only
//! read, and taken back when their client leaves.

use std::time::Duration;

use super::Remote;
use super::kept::Key;
use crate::cluster::asked::{Asking, Got};
use crate::cluster::wire::{
    self, Answer, Ask, CallRefused, Called, Credential, PageRead, ToolCall, VerbCall,
};
use moot_kernel::world::Unavailable;

/// How long a host waits for the world to answer a verb called by name (longer than any
/// command takes; a write unanswered by then is answered as unknown).
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

/// A question asked and not yet answered: dropped (its client left), it is taken back from
/// the world, which drops its work rather than hold a long poll for nobody.
struct Asked<'a> {
    asking: &'a Asking,
    id: Option<u64>,
}

impl Drop for Asked<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.asking.take_back(id);
        }
    }
}

/// Why a question asked in pieces has no answer.
enum Unasked {
    /// Larger than the broker carries in a message (this many bytes).
    TooLarge(usize),
    /// It could not be sent.
    NotSent,
    /// Nobody serves questions: no world is there.
    NoWorld,
    /// The world fell silent (for [`CALL_TIMEOUT`]) with it.
    Silent,
    /// The world went with it.
    Lost,
    /// What came back is not an answer.
    Garbled,
}

impl Remote {
    /// The agent the world vouches `credential` is, or the words why not.
    pub async fn vouch(&self, credential: &Credential) -> Result<String, CallRefused> {
        match self.ask(&Ask::Vouch(credential.clone())).await {
            Some(Answer::Vouch(vouched)) => vouched.map_err(CallRefused::Unvouched),
            _ => Err(CallRefused::Away),
        }
    }

    /// Calls a verb by name in the world. One that only reads outlives a restart of the
    /// world: asked again once the world is back, and its answer is kept, as a tool's
    /// ([`Remote::tool`]). One that writes is not done while the world is away, and one the
    /// world took and never answered is answered as unknown.
    pub async fn call(&self, call: &VerbCall) -> Called {
        let read_only = crate::games::find(&call.verb).is_some_and(|e| e.read_only);
        let key = read_only.then(|| Key::of_verb(call));
        self.kept_or_called(read_only, key, |_, held| {
            Ask::Verb(VerbCall {
                held,
                ..call.clone()
            })
        })
        .await
    }

    /// Makes an agent in the world: a write, not made while the world is away.
    pub async fn make_agent(&self, call: &crate::cluster::agents::AgentCall) -> Called {
        self.called(false, |_| Ask::Agent(call.clone())).await
    }

    /// The world's metrics, for a scraper that sent `token`; a read, asked again across a
    /// restart.
    pub async fn metrics(&self, token: Option<String>) -> Called {
        self.called(true, |_| Ask::Metrics(token.clone())).await
    }

    /// What this host's MCP server reads of the world's; asked again across a restart.
    pub async fn mcp_read(&self, read: &crate::cluster::calls::McpRead) -> Called {
        self.called(true, |_| Ask::Mcp(read.clone())).await
    }

    /// Reads a game's page or download in the world; asked again across a restart, as any
    /// read is.
    pub async fn page(&self, read: &PageRead) -> Called {
        self.called(true, |_| Ask::Page(read.clone())).await
    }

    /// What a web page asks of the world: a live page's long poll outlives a restart of the
    /// world, as any read does, and one whose browser leaves is taken back.
    pub async fn web(&self, ask: crate::cluster::visits::WebAsk) -> Called {
        self.called(ask.read_only(), |id| Ask::Web {
            id,
            ask: ask.clone(),
        })
        .await
    }

    /// Calls an MCP tool in the world, as [`Remote::call`] calls a verb: a long poll outlives
    /// a restart of the world, and one whose client leaves is taken back.
    pub async fn tool(&self, mut call: ToolCall) -> Called {
        let sets = crate::games::toolsets();
        let read_only = crate::games::find_tool(&call.name, sets).is_some_and(|e| e.read_only);
        let key = read_only.then(|| Key::of_tool(&call));
        self.kept_or_called(read_only, key, |id, held| {
            call.id = id;
            call.held = held;
            Ask::Tool(call.clone())
        })
        .await
    }

    /// Asks what `ask` makes of a number and a tag, as [`Remote::called`] does; a read (one
    /// with a `key`) with the tag of the answer this host keeps for it, which the world then
    /// sends only if it changed ([`super::kept`]).
    async fn kept_or_called(
        &self,
        read_only: bool,
        key: Option<Key>,
        mut ask: impl FnMut(u64, Option<u64>) -> Ask,
    ) -> Called {
        let Some(key) = key else {
            return self.called(read_only, |id| ask(id, None)).await;
        };
        // Asked at most twice: again, whole (with no tag, so the world sends the answer), if
        // the copy the world found unchanged went meanwhile (another call of the same key
        // replaced it, or the host let it go).
        for again in [false, true] {
            let held = if again { None } else { self.kept.tag(&key) };
            match self.asked(read_only, |id| ask(id, held)).await? {
                Answer::Tagged { answer, tag } => {
                    self.kept.keep(&key, tag, &answer);
                    return Ok(answer);
                }
                Answer::Unchanged => {
                    if let Some(answer) = held.and_then(|tag| self.kept.get(&key, tag)) {
                        return Ok(answer);
                    }
                }
                answer => return called(answer),
            }
        }
        Err(CallRefused::Unavailable(Unavailable::Internal))
    }

    /// Asks the world what `ask` makes (given a new number each time) until it is answered:
    /// again after the world is back, if it `read_only`.
    async fn called(&self, read_only: bool, ask: impl FnMut(u64) -> Ask) -> Called {
        called(self.asked(read_only, ask).await?)
    }

    /// The world's answer to what `ask` makes, asked as [`Remote::called`] asks it.
    async fn asked(
        &self,
        read_only: bool,
        mut ask: impl FnMut(u64) -> Ask,
    ) -> Result<Answer, CallRefused> {
        loop {
            if !(self.asking.up() || read_only && self.asking.world_back().await) {
                return Err(CallRefused::Away);
            }
            let id = self.asking.next_id();
            let body: bytes::Bytes = serde_json::to_vec(&ask(id))
                .map_err(|_| CallRefused::Away)?
                .into();
            // Taken back if this is dropped before the answer (the client left).
            let mut asked = Asked {
                asking: &self.asking,
                id: Some(id),
            };
            let answered = self.ask_in_pieces(id, body).await;
            asked.id = None;
            // What went wrong, and whether a read may be asked again.
            let (refused, again) = match answered {
                // A world on its way out: nothing was done.
                Ok(
                    Answer::Verb(Err(CallRefused::Unavailable(Unavailable::Stopped)))
                    | Answer::Page(Err(CallRefused::Unavailable(Unavailable::Stopped)))
                    | Answer::Web(Err(CallRefused::Unavailable(Unavailable::Stopped))),
                ) => (CallRefused::Away, true),
                Ok(answer) => return Ok(answer),
                Err(Unasked::Garbled) => {
                    return Err(CallRefused::Unavailable(Unavailable::Internal));
                }
                Err(Unasked::TooLarge(most)) => return Err(CallRefused::TooLarge(most)),
                Err(Unasked::NoWorld) => (CallRefused::Away, true),
                Err(Unasked::Silent) if read_only => (CallRefused::Away, false),
                Err(Unasked::Silent) => (CallRefused::Unknown, false),
                Err(Unasked::Lost) => (CallRefused::Unknown, true),
                Err(Unasked::NotSent) => (CallRefused::Away, false),
            };
            if !(read_only && again) {
                return Err(refused);
            }
            // Asked again once the host has heard the world is away, or back.
            tokio::time::sleep(wire::BEAT).await;
        }
    }

    /// Asks the world `ask`, numbered `id`, and gathers its answer's pieces
    /// ([`wire::AnswerPiece`]) as they come to this host's inbox (`asked::Answers`).
    async fn ask_in_pieces(&self, id: u64, ask: bytes::Bytes) -> Result<Answer, Unasked> {
        // Room for the question's place in its batch.
        let most = self.client.server_info().max_payload;
        if most > 0 && ask.len() + 32 > most {
            return Err(Unasked::TooLarge(most));
        }
        let mut lost = self.asking.lost();
        lost.mark_unchanged();
        let (_expected, mut pieces) = self.answers.expect(id);
        if self.questions.send(wire::Question { id, ask }).is_err() {
            return Err(Unasked::NotSent);
        }
        let mut whole = Vec::new();
        loop {
            let next = tokio::select! {
                next = tokio::time::timeout(CALL_TIMEOUT, pieces.recv()) => next,
                _ = lost.changed() => return Err(Unasked::Lost),
            };
            match next {
                Ok(Some(Got::Piece { more, bytes })) => {
                    if !more && whole.is_empty() {
                        return serde_json::from_slice(&bytes).map_err(|_| Unasked::Garbled);
                    }
                    whole.extend_from_slice(&bytes);
                    if !more {
                        return serde_json::from_slice(&whole).map_err(|_| Unasked::Garbled);
                    }
                }
                Ok(Some(Got::NoWorld)) => return Err(Unasked::NoWorld),
                Ok(Some(Got::NotSent) | None) => return Err(Unasked::NotSent),
                Err(_) => return Err(Unasked::Silent),
            }
        }
    }
}

/// What a call's answer says, as [`Called`].
fn called(answer: Answer) -> Called {
    match answer {
        Answer::Verb(called)
        | Answer::Tool(called)
        | Answer::Page(called)
        | Answer::Agent(called)
        | Answer::Metrics(called)
        | Answer::Mcp(called)
        | Answer::Web(called) => called,
        Answer::Tagged { answer, .. } => Ok(answer),
        _ => Err(CallRefused::Unavailable(Unavailable::Internal)),
    }
}
