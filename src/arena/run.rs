//! `moot arena run`: plays a planned series on a running moot over its REST API, as the agents
//! whose tokens the spec gives (each agent's maker lent its token for this, so each game is
//! one its players agreed to), and writes the report after every game.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, SystemTime};

use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use tokio::task::JoinSet;

use super::report::{self, Agent, Game, Line, Report};
use super::spec::{Checked, Planned, Seat};

/// How often a game's state is asked for while it runs.
const POLL: Duration = Duration::from_millis(200);

/// One agent as the server knows it.
#[derive(Debug, Clone)]
struct Known {
    /// The name the server gives it (how a session names it before its id is known).
    name: String,
    token: Option<String>,
}

/// Plays the series and writes `report.json` and `report.html` into `out`; returns the last
/// line to print.
pub async fn run(c: Checked, out: &Path, progress: impl Fn(&str)) -> Result<String, String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let http = Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| e.to_string())?;
    let base = c.spec.server.trim_end_matches('/').to_owned();
    let mut known = Vec::new();
    for (entrant, seat) in c.spec.agents.iter().zip(&c.seats) {
        known.push(match seat {
            Seat::House(id) => Known {
                name: id.clone(),
                token: None,
            },
            Seat::Token(t) => {
                let account = call(&http, &base, t, Method::GET, "/api/account", None)
                    .await
                    .map_err(|e| format!("agent `{}`: {e}", entrant.name))?;
                Known {
                    name: account["username"].as_str().unwrap_or_default().to_owned(),
                    token: Some(t.clone()),
                }
            }
        });
    }
    let mut report = Report {
        format: report::FORMAT,
        server: base.clone(),
        game: c.spec.game.clone(),
        options: Value::Object(c.spec.options.clone()),
        seed: c.spec.seed,
        deals: c.spec.deals,
        started_at: now(),
        finished_at: None,
        complete: false,
        planned_games: c.games.len(),
        agents: c
            .spec
            .agents
            .iter()
            .zip(&c.seats)
            .map(|(a, seat)| Agent {
                name: a.name.clone(),
                agent_id: match seat {
                    Seat::House(id) => id.clone(),
                    Seat::Token(_) => String::new(),
                },
                house: matches!(seat, Seat::House(_)),
            })
            .collect(),
        games: Vec::new(),
        standings: Vec::new(),
    };
    let mut queue: Vec<Planned> = c.games.clone();
    queue.reverse();
    let mut busy = vec![false; known.len()];
    let mut playing = JoinSet::new();
    let outcome = loop {
        // Start what may start: the next games whose agents are free, up to `parallel`.
        while playing.len() < c.spec.parallel {
            let Some(i) = queue
                .iter()
                .rposition(|g| !busy[g.first] && !busy[g.second])
            else {
                break;
            };
            let g = queue.remove(i);
            busy[g.first] = true;
            busy[g.second] = true;
            let job = Job {
                http: http.clone(),
                base: base.clone(),
                template: c.spec.game.clone(),
                options: c.spec.options.clone(),
                roles: c.roles,
                first: known[g.first].clone(),
                second: known[g.second].clone(),
                timeout: c.game_timeout,
            };
            playing.spawn(async move { (g, job.play(g).await) });
        }
        let Some(done) = playing.join_next().await else {
            break Ok(());
        };
        let (g, played) = done.map_err(|e| format!("a game's task failed: {e}"))?;
        busy[g.first] = false;
        busy[g.second] = false;
        let played = match played {
            Ok(p) => p,
            Err(e) => break Err(format!("game {} of {}: {e}", g.n, c.games.len())),
        };
        for (role, agent) in &played.roles {
            let i = if role == c.roles[0] {
                g.first
            } else {
                g.second
            };
            report.agents[i].agent_id.clone_from(agent);
        }
        progress(&describe(&report, &played, c.games.len()));
        report.games.push(played);
        report.games.sort_by_key(|g| g.n);
        report.standings = report::standings(&report.agents, &report.games);
        write(out, &report)?;
    };
    playing.abort_all();
    report.complete = outcome.is_ok() && report.games.len() == c.games.len();
    report.finished_at = Some(now());
    write(out, &report)?;
    outcome?;
    Ok(format!(
        "{} games played; the report is {} (and report.html beside it). `moot arena check {}` \
         holds it against the stored logs.",
        report.games.len(),
        out.join("report.json").display(),
        out.join("report.json").display()
    ))
}

/// What one game needs to be played.
struct Job {
    http: Client,
    base: String,
    template: String,
    options: serde_json::Map<String, Value>,
    roles: [&'static str; 2],
    first: Known,
    second: Known,
    timeout: Duration,
}

impl Job {
    /// Starts game `g` (asked by one of its players, agreed by the other), waits for its end
    /// and reads its log.
    async fn play(&self, g: Planned) -> Result<Game, String> {
        let (asker, other) = if self.first.token.is_some() {
            (&self.first, &self.second)
        } else {
            (&self.second, &self.first)
        };
        let token = asker.token.as_deref().unwrap_or_default();
        let mut options = self.options.clone();
        options.insert("deal".into(), json!(g.deal));
        let body = json!({
            "template": self.template,
            "participants": {
                self.roles[0]: self.first.name,
                self.roles[1]: self.second.name,
            },
            "options": options,
        });
        let created = self
            .call(token, Method::POST, "/sessions", Some(body))
            .await?;
        let sid = created["session_id"]
            .as_str()
            .ok_or("the server's answer named no session")?
            .to_owned();
        if let Some(t) = &other.token {
            self.call(t, Method::POST, &format!("/sessions/{sid}/accept"), None)
                .await?;
        }
        let listed = self.call(token, Method::GET, "/sessions", None).await?;
        let roles: BTreeMap<String, String> = listed["sessions"]
            .as_array()
            .and_then(|l| l.iter().find(|s| s["session_id"] == sid.as_str()))
            .and_then(|s| serde_json::from_value(s["participants"].clone()).ok())
            .ok_or_else(|| format!("session {sid} is not among its maker's"))?;
        let until = tokio::time::Instant::now() + self.timeout;
        loop {
            let state = self
                .call(token, Method::GET, &format!("/sessions/{sid}/state"), None)
                .await?;
            if state["status"] == "completed" {
                break;
            }
            if tokio::time::Instant::now() >= until {
                return Err(format!(
                    "session {sid} did not end within {}; are its agents playing?",
                    humantime::format_duration(self.timeout)
                ));
            }
            tokio::time::sleep(POLL).await;
        }
        let log = self
            .call(token, Method::GET, &format!("/sessions/{sid}/log"), None)
            .await?;
        let actions = log["actions"].as_array().cloned().unwrap_or_default();
        let ending = &log["ending"];
        let scores: BTreeMap<String, f64> = serde_json::from_value(ending["scores"].clone())
            .map_err(|e| format!("session {sid}'s scores: {e}"))?;
        if scores.is_empty() {
            // An aborted game: a series counts only games played to a result, and one side
            // must not void a game it was losing.
            return Err(format!(
                "session {sid} ended with no result (aborted); a series plays every game to one"
            ));
        }
        let log_sha256 = report::log_digest(actions.iter().map(|a| Line {
            tick: a["tick"].as_u64().unwrap_or_default(),
            role: a["role"].as_str().unwrap_or_default(),
            agent_id: a["agent_id"].as_str().unwrap_or_default(),
            action: a["action"].as_str().unwrap_or_default(),
        }));
        Ok(Game {
            n: g.n,
            deal_index: g.deal_index,
            deal: g.deal,
            mirror_of: g.mirror_of,
            session_id: sid,
            roles,
            scores,
            actions: actions.len(),
            log_sha256,
        })
    }

    async fn call(
        &self,
        token: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        call(&self.http, &self.base, token, method, path, body).await
    }
}

/// One call of the REST API; a refusal is its error's message.
async fn call(
    http: &Client,
    base: &str,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> Result<Value, String> {
    let mut req = http
        .request(method.clone(), format!("{base}{path}"))
        .bearer_auth(token);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let r = req
        .send()
        .await
        .map_err(|e| format!("{method} {base}{path}: {e}"))?;
    let status = r.status();
    let v: Value = r.json().await.unwrap_or(Value::Null);
    if status.is_success() {
        return Ok(v);
    }
    let said = v["error"]["message"]
        .as_str()
        .or_else(|| v["error"].as_str())
        .map_or_else(|| v.to_string(), str::to_owned);
    Err(match status {
        StatusCode::UNAUTHORIZED => {
            format!("{method} {path}: the server refused the token ({said})")
        }
        _ => format!("{method} {path}: {status}: {said}"),
    })
}

/// A progress line: who played which side of which deal, and how it went.
fn describe(r: &Report, g: &Game, of: usize) -> String {
    let name = |agent: &str| {
        r.agents
            .iter()
            .find(|a| a.agent_id == agent)
            .map_or_else(|| agent.to_owned(), |a| a.name.clone())
    };
    let sides: Vec<String> = g
        .roles
        .iter()
        .map(|(role, agent)| {
            let p = g.scores.get(role).map_or("-".into(), |p| p.to_string());
            format!("{} ({role}) {p}", name(agent))
        })
        .collect();
    format!(
        "game {}/{of}, deal {}: {}; session {}",
        g.n,
        g.deal_index + 1,
        sides.join(", "),
        g.session_id
    )
}

fn write(out: &Path, r: &Report) -> Result<(), String> {
    let json = serde_json::to_string_pretty(r).map_err(|e| e.to_string())?;
    let put = |name: &str, text: &str| {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    put("report.json", &json)?;
    put("report.html", &super::page::html(r))
}

fn now() -> String {
    humantime::format_rfc3339_seconds(SystemTime::now()).to_string()
}
