//! `moot mcp --server URL --token T`: stdio on one side, a running moot's Streamable HTTP
//! endpoint on the other, so an agent that can only start a process still shares the town with
//! everyone else. Each JSON-RPC message from stdin is posted as it comes (a long poll does not
//! hold up the others), with the headers the server checks (the bearer token, the protocol
//! version, SEP-2243's `Mcp-Method` and `Mcp-Name`, the session id of a 2025-11-25 session);
//! every message of the answer, progress included, is written to stdout as soon as it arrives.
//! A `notifications/cancelled` aborts the request it names, which the server sees as a cancel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

struct Shared {
    url: String,
    token: String,
    http: reqwest::Client,
    /// The protocol version the client settled on (from initialize, or each request's _meta).
    version: Mutex<Option<String>>,
    session: Mutex<Option<String>>,
    in_flight: Mutex<HashMap<String, tokio::task::AbortHandle>>,
}

/// The headers SEP-2243 wants for a message: its method, and the name it acts on.
fn standard_headers(msg: &Value) -> Vec<(&'static str, String)> {
    let mut h = Vec::new();
    if let Some(method) = msg["method"].as_str() {
        h.push(("Mcp-Method", method.to_owned()));
        let name = match method {
            "tools/call" | "prompts/get" => msg["params"]["name"].as_str(),
            "resources/read" => msg["params"]["uri"].as_str(),
            _ => None,
        };
        if let Some(n) = name {
            h.push(("Mcp-Name", n.to_owned()));
        }
    }
    h
}

async fn forward(shared: Arc<Shared>, msg: Value, out: mpsc::UnboundedSender<String>) {
    if let Some(v) = msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str() {
        *shared
            .version
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(v.to_owned());
    }
    let mut req = shared
        .http
        .post(&shared.url)
        .bearer_auth(&shared.token)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json");
    let version = shared
        .version
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone();
    let is_initialize = msg["method"] == "initialize";
    if let Some(v) = version.filter(|_| !is_initialize) {
        req = req.header("MCP-Protocol-Version", v);
    }
    if let Some(s) = shared
        .session
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
    {
        req = req.header("Mcp-Session-Id", s);
    }
    for (k, v) in standard_headers(&msg) {
        req = req.header(k, v);
    }
    let id = msg.get("id").cloned();
    let fail = |message: String| {
        if let Some(id) = &id {
            let e = serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": message}});
            let _ = out.send(e.to_string());
        }
    };
    let mut resp = match req.body(msg.to_string()).send().await {
        Ok(r) => r,
        Err(e) => return fail(format!("cannot reach moot: {e}")),
    };
    if let Some(s) = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
    {
        *shared
            .session
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(s.to_owned());
    }
    if resp.status() == reqwest::StatusCode::ACCEPTED {
        return;
    }
    let sse = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/event-stream"));
    let status = resp.status();
    let mut buf = String::new();
    while let Ok(Some(chunk)) = resp.chunk().await {
        buf.push_str(&String::from_utf8_lossy(&chunk));
        if sse {
            // Events end with a blank line; each `data:` line is one JSON-RPC message.
            while let Some(end) = buf.find("\n\n") {
                let event: String = buf.drain(..end + 2).collect();
                for line in event.lines() {
                    if let Some(data) = line.strip_prefix("data:") {
                        let data = data.trim();
                        if !data.is_empty() {
                            remember_version(&shared, data);
                            let _ = out.send(data.to_owned());
                        }
                    }
                }
            }
        }
    }
    if !sse {
        let body = buf.trim();
        if body.is_empty() {
            if !status.is_success() {
                fail(format!("moot answered {status}"));
            }
        } else {
            remember_version(&shared, body);
            let _ = out.send(body.to_owned());
        }
    }
}

/// After initialize, the version it settled on goes on every later request.
fn remember_version(shared: &Shared, message: &str) {
    if let Ok(v) = serde_json::from_str::<Value>(message)
        && let Some(version) = v["result"]["protocolVersion"].as_str()
    {
        *shared
            .version
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(version.to_owned());
    }
}

pub async fn run(url: String, token: String) -> Result<(), Box<dyn std::error::Error>> {
    let shared = Arc::new(Shared {
        url,
        token,
        http: reqwest::Client::new(),
        version: Mutex::new(None),
        session: Mutex::new(None),
        in_flight: Mutex::new(HashMap::new()),
    });
    let (out_tx, mut out_rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = out_rx.recv().await {
            if stdout
                .write_all(format!("{line}\n").as_bytes())
                .await
                .is_err()
                || stdout.flush().await.is_err()
            {
                return;
            }
        }
    });
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut tasks = tokio::task::JoinSet::new();
    while let Some(line) = lines.next_line().await? {
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            tracing::warn!("not JSON on stdin; ignored");
            continue;
        };
        if msg["method"] == "notifications/cancelled"
            && let Some(id) = msg["params"]["requestId"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| msg["params"]["requestId"].as_i64().map(|i| i.to_string()))
            && let Some(handle) = shared
                .in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&id)
        {
            handle.abort();
        }
        let key = msg.get("id").map(|i| {
            i.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| i.to_string())
        });
        let handle = tasks.spawn(forward(shared.clone(), msg, out_tx.clone()));
        if let Some(k) = key {
            shared
                .in_flight
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert(k, handle);
        }
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
    drop(out_tx);
    let _ = writer.await;
    Ok(())
}
