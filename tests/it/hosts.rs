//! The world apart from its hosts: `moot world --nats` holds the town and its database,
//! `moot host --nats` holds telnet connections, a NATS broker of the test's own between them.

use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::Duration;

use futures_util::StreamExt;
use moot::cluster::nats::Broker as Trust;
use moot::cluster::wire;
use moot::server::{RunningHost, start_host, start_world};

use crate::support::{
    Api, Client, Moot, config, free_port, fresh_db, mcp_tool, player_at, world_dir,
};

/// A `nats-server` of the test's own on a loopback port, stopped when dropped.
pub struct Broker {
    _child: Moot,
    pub url: String,
}

impl Broker {
    pub async fn start() -> Broker {
        Broker::on_port(free_port()).await
    }

    pub async fn on_port(port: u16) -> Broker {
        Broker::run(port, &[]).await
    }

    /// A broker that carries at most `bytes` a message.
    pub async fn with_max_payload(bytes: usize) -> Broker {
        let dir = tempfile::tempdir().unwrap();
        let conf = dir.path().join("nats.conf");
        std::fs::write(&conf, format!("max_payload: {bytes}\n")).unwrap();
        let broker = Broker::run(free_port(), &["-c", conf.to_str().unwrap()]).await;
        drop(dir);
        broker
    }

    async fn run(port: u16, args: &[&str]) -> Broker {
        let program = ["/usr/sbin/nats-server", "/usr/bin/nats-server"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .unwrap_or("nats-server");
        // Killed and waited for when the broker is dropped, a failing test's included.
        let child = Moot(
            Command::new(program)
                .args(args)
                .args(["-a", "127.0.0.1", "-p", &port.to_string()])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("nats-server runs (.ci/run installs it)"),
        );
        let url = format!("nats://127.0.0.1:{port}");
        for _ in 0..200 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .is_ok()
            {
                return Broker { _child: child, url };
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("nats-server did not start on {url}");
    }
}

/// A world in this process for hosts on `url`, on a fresh database in the directory returned
/// (kept as long as it is), its configuration as `tweak` makes it.
pub(crate) async fn world_on(
    url: &str,
    tweak: impl FnOnce(&mut moot::config::Config),
) -> (
    tempfile::TempDir,
    moot::store::Database,
    moot::server::Running,
) {
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(dir.path());
    let mut c = config(&db);
    tweak(&mut c);
    let world = start_world(c, url, Trust::Private)
        .await
        .expect("the world starts");
    (dir, db, world)
}

/// A host in this process for the world on `url`, telnet on an ephemeral port.
pub(crate) async fn host(url: &str, db: &moot::store::Database) -> RunningHost {
    start_host(config(db), url, None)
        .await
        .expect("the host joins")
}

/// A game of chess an agent makes over MCP at `http`, to play black: the answer, the game's id
/// as MCP gives it, and its number as telnet's `joinGame` takes it.
async fn agent_game(
    http: SocketAddr,
    token: &str,
) -> (serde_json::Value, serde_json::Value, String) {
    let made = mcp_tool(
        http,
        token,
        "createGame",
        serde_json::json!({"type": "agent", "color": "black"}),
    )
    .await;
    let game = made["structuredContent"]["game_id"].clone();
    let number = game
        .as_str()
        .unwrap_or("")
        .trim_start_matches('#')
        .to_owned();
    (made, game, number)
}

/// Who `you are x`/`o` in the answer that started a game of tic-tac-toe.
fn side(lines: &[String]) -> char {
    if lines.iter().any(|l| l.contains("you are x.")) {
        'x'
    } else {
        'o'
    }
}

/// Ann on host A and Bob on host B meet in one room, hear each other, and play a game of
/// tic-tac-toe to its end; each sees the other's moves in order, and the world holds it all.
/// An agent made through host B's REST API talks with Ann through a real MCP client, and the
/// town's page is served through a host too.
#[tokio::test]
async fn two_players_on_two_hosts_share_a_room_and_a_game() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let b = host(&broker.url, &db).await;

    let mut ann = player_at(a.telnet_addr, "Ann").await;
    let bot = Api::new(b.http_addr).agent(Some("Robo")).await;
    let url = format!("http://{}/mcp", b.http_addr);
    let conversation = tokio::spawn(async move {
        crate::mcp::agent(&["http", &url, &bot.token, "discover", "converse"]).await
    });
    ann.expect("Robo has connected.").await;
    assert_eq!(ann.line().await.unwrap(), "Robo says, \"hello from mcp\"");
    ann.send("say hi Robo, welcome").await;
    ann.expect("You say, \"hi Robo, welcome\"").await;
    let heard = conversation.await.unwrap();
    assert_eq!(
        heard["heard"],
        serde_json::json!(["Ann says, \"hi Robo, welcome\""])
    );
    let page = reqwest::get(format!("http://{}/", a.http_addr))
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let page = page.text().await.unwrap();
    assert!(page.contains("<title>moot · the town</title>"), "{page}");

    // The town's live stream, through host A: a frame at once, another when Bob arrives
    // through host B.
    let mut live = reqwest::get(format!("http://{}/town/live", a.http_addr))
        .await
        .unwrap();
    assert_eq!(live.headers()["content-type"], "text/event-stream");
    let mut frames = String::new();
    while !frames.contains("\n\n") {
        let chunk = live.chunk().await.unwrap().expect("a first frame");
        frames.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert!(
        frames.contains("Ann") && !frames.contains("Bob"),
        "{frames}"
    );

    let mut bob = player_at(b.telnet_addr, "Bob").await;
    while !frames.contains("Bob") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), live.chunk())
            .await
            .expect("a frame when Bob arrives")
            .unwrap()
            .expect("the stream goes on");
        frames.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(live);
    ann.expect("Bob has connected.").await;
    let look = bob.command("look").await;
    assert!(look.iter().any(|l| l.contains("Ann")), "{look:?}");
    ann.send("say Hello from host A").await;
    bob.expect("Ann says, \"Hello from host A\"").await;
    let who = bob.command("who").await;
    assert!(
        who.iter().any(|l| l.starts_with("Ann")) && who.iter().any(|l| l.starts_with("Bob")),
        "{who:?}"
    );

    for c in [&mut ann, &mut bob] {
        c.command("south").await;
    }
    ann.command("play tictactoe with Bob").await;
    bob.send("play tictactoe with Ann").await;
    let started = bob.expect("game #1").await;
    let (mut x, mut o) = if side(&started) == 'x' {
        (bob, ann)
    } else {
        (ann, bob)
    };
    // x takes the top row while o plays the middle one.
    for (mover, cell) in [('x', 1), ('o', 4), ('x', 2), ('o', 5), ('x', 3)] {
        let (me, them) = if mover == 'x' {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        let answer = me.command(&format!("mark {cell} #1")).await;
        assert!(
            answer
                .iter()
                .any(|l| l == &format!("You mark cell {cell} in game #1.")),
            "{answer:?}"
        );
        let news = them.expect(&format!("({cell}).")).await;
        assert!(news.last().unwrap().contains(" marks "), "{news:?}");
    }
    o.expect("wins").await;
    // What a command told its typist crosses the broker inside its output, after its answer:
    // the board `challenge computer` draws follows "You sit down…" between the markers.
    x.command("north").await;
    x.command("east").await;
    let sat = x.command("challenge computer as white level 1").await;
    assert!(
        sat[0].starts_with("You sit down to play the computer"),
        "{sat:#?}"
    );
    assert!(sat.iter().any(|l| l == "1 R N B Q K B N R 1"), "{sat:#?}");

    for (host, name) in [(a, "A"), (b, "B")] {
        tokio::time::timeout(Duration::from_secs(10), host.running.shutdown())
            .await
            .unwrap_or_else(|_| panic!("host {name} stops"));
    }
    world.shutdown().await;
    // The game was stored by the world: a one-process moot on the same database has it.
    let s = crate::support::TestServer::on_db(&db, |_| {}).await;
    let mut eve = s.player("Eve").await;
    eve.command("south").await;
    let games = eve.command("look").await;
    assert!(
        games.iter().any(|l| l.contains("Game #1 (tic-tac-toe)")),
        "{games:?}"
    );
    s.stop().await;
}

/// The same split as an operator runs it: `moot world --nats` and `moot host --nats --telnet`
/// as processes; a host started before its world says so and exits, and a host of another
/// protocol is refused in words.
#[tokio::test]
async fn moot_world_and_moot_host_as_processes() {
    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(dir.path());
    let moot = env!("CARGO_BIN_EXE_moot");

    let early = Command::new(moot)
        .args(["host", "--nats", &broker.url, "--telnet", "127.0.0.1:0"])
        .args(["--http", "127.0.0.1:0"])
        .env("RUST_LOG", "moot=warn")
        .output()
        .unwrap();
    assert!(!early.status.success());
    let said = String::from_utf8_lossy(&early.stderr);
    assert!(said.contains("no world answers"), "{said}");

    let world = Moot(
        Command::new(moot)
            .args(["--db", &db.address()])
            .args(["--world", world_dir().to_str().unwrap()])
            .args(["world", "--nats", &broker.url, "--broker-is-private"])
            .env("RUST_LOG", "moot=warn")
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    // The world answers greetings once its town is open.
    let client = async_nats::connect(&broker.url).await.unwrap();
    let hello = |protocol: u32| {
        serde_json::to_vec(&wire::Hello {
            protocol,
            version: "9.9.9".into(),
            host: "test".into(),
            http: None,
        })
        .unwrap()
    };
    let mut welcome = None;
    for _ in 0..200 {
        if let Ok(Ok(answer)) = tokio::time::timeout(
            Duration::from_secs(1),
            client.request(wire::HELLO, hello(wire::PROTOCOL).into()),
        )
        .await
        {
            welcome = Some(answer);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let welcome: wire::Welcome =
        serde_json::from_slice(&welcome.expect("a welcome").payload).expect("a welcome");
    assert_eq!(welcome.protocol, wire::PROTOCOL);
    assert!(welcome.welcome.contains("Welcome"), "{}", welcome.welcome);

    let (_host, telnet) = host_process(&broker.url).await;
    let mut ann = player_at(telnet, "Ann").await;
    stands_in_a_room(&mut ann).await;
    // A wrong password is refused by the world, in the words of one process.
    let mut stranger = Client::connect(telnet).await;
    stranger.send("connect Ann not-her-password").await;
    stranger.expect(moot::logins::BAD_LOGIN).await;

    // A host that speaks another protocol hears which, from a world that only says hello.
    let fake = Broker::start().await;
    let fake_world = async_nats::connect(&fake.url).await.unwrap();
    let mut hellos = fake_world.subscribe(wire::HELLO).await.unwrap();
    fake_world.flush().await.unwrap();
    tokio::spawn(async move {
        while let Some(msg) = hellos.next().await {
            let answer = serde_json::to_vec(&wire::Welcome {
                protocol: 99,
                version: "9.9.9".into(),
                welcome: String::new(),
                epoch: 1,
            })
            .unwrap();
            if let Some(to) = msg.reply {
                fake_world.publish(to, answer.into()).await.unwrap();
            }
        }
    });
    let refused = match start_host(config(&db), &fake.url, None).await {
        Ok(_) => panic!("a host joined a world of another protocol"),
        Err(e) => e.to_string(),
    };
    assert!(
        refused.contains(&format!("protocol {}", wire::PROTOCOL))
            && refused.contains("protocol 99 (moot 9.9.9)"),
        "{refused}"
    );
    drop(world);
}

/// `moot host --nats URL --telnet ADDR --http 127.0.0.1:0`, as a process of its own; returns
/// once it listens, with where.
pub(crate) async fn host_process(url: &str) -> (Moot, SocketAddr) {
    host_process_with(url, &[]).await
}

/// [`host_process`] with more in its environment.
async fn host_process_with(url: &str, env: &[(&str, &str)]) -> (Moot, SocketAddr) {
    let telnet: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let http = env
        .iter()
        .find(|(key, _)| *key == "MOOT_HTTP")
        .map_or("127.0.0.1:0", |(_, at)| *at);
    let said = tempfile::NamedTempFile::new().unwrap();
    let mut host = Moot(
        Command::new(env!("CARGO_BIN_EXE_moot"))
            .args(["host", "--nats", url, "--telnet", &telnet.to_string()])
            // Not the default 8080, which another test's host may hold; where `MOOT_HTTP` says,
            // if it does.
            .args(["--http", http])
            .envs(env.iter().copied())
            .env("RUST_LOG", "moot=warn")
            .stdin(Stdio::null())
            .stderr(said.reopen().unwrap())
            .spawn()
            .unwrap(),
    );
    // Its listener takes connections before the host has met the world through the broker:
    // it is up once it says something on one (a test that drops the broker any earlier would
    // find it failing to start, not stopping).
    for _ in 0..600 {
        if let Ok(mut conn) = tokio::net::TcpStream::connect(telnet).await {
            let mut first = [0u8; 1];
            let heard = tokio::time::timeout(
                Duration::from_millis(500),
                tokio::io::AsyncReadExt::read(&mut conn, &mut first),
            )
            .await;
            if matches!(heard, Ok(Ok(1))) {
                return (host, telnet);
            }
        }
        if let Ok(Some(status)) = host.try_wait() {
            let said = std::fs::read_to_string(said.path()).unwrap_or_default();
            panic!("the host exited ({status}): {said}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let said = std::fs::read_to_string(said.path()).unwrap_or_default();
    panic!("the host does not listen on {telnet}: {said}");
}

/// Asserts that `c`'s `look` shows a room: its player is in the town and answered.
async fn stands_in_a_room(c: &mut Client) {
    let room = c.command("look").await;
    assert!(room.iter().any(|l| l.starts_with("Exits:")), "{room:?}");
}

/// Sends `signal` (`STOP`, `CONT`, `KILL`) to a process of the test's.
fn signal(process: &Moot, signal: &str) {
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &process.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
}

/// A host that dies takes its sockets with it and nobody else would say its people left: the
/// world lets them go once it has heard nothing of the host for `HOST_LOST_AFTER`. A host that
/// only stalled (stopped, then continued) hears that it was let go and brings its people back
/// in, in the same connections.
#[tokio::test]
async fn a_host_that_dies_is_let_go_and_one_that_stalls_brings_its_people_back() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let (b, at_b) = host_process(&broker.url).await;
    let mut ann = player_at(a.telnet_addr, "Ann").await;
    let mut bob = player_at(at_b, "Bob").await;
    ann.expect("Bob has connected.").await;

    // Host B stalls past the world's patience: Bob leaves the town, as far as it knows.
    signal(&b, "STOP");
    let stalled = std::time::Instant::now();
    ann.expect("Bob has disconnected.").await;
    assert!(stalled.elapsed() >= wire::HOST_LOST_AFTER - wire::BEAT);
    let who = ann.command("who").await;
    assert!(!who.iter().any(|l| l.contains("Bob")), "{who:?}");
    // It wakes, hears it was let go, and brings Bob back: the same connection, no login.
    signal(&b, "CONT");
    bob.expect(moot::cluster::host::RESUMED).await;
    bob.expect("*** Connected ***").await;
    ann.expect("Bob has connected.").await;
    bob.send("say I was only asleep").await;
    bob.expect("You say, \"I was only asleep\"").await;
    ann.expect("Bob says, \"I was only asleep\"").await;

    // B stalls again, and meanwhile Bob logs in through host A: when B wakes, its stale
    // connection gives way to the newer one rather than displace it.
    signal(&b, "STOP");
    ann.expect("Bob has disconnected.").await;
    let mut bob_at_a = Client::connect(a.telnet_addr).await;
    bob_at_a.send("connect Bob pw-Bob-moot").await;
    bob_at_a.expect("*** Connected ***").await;
    ann.expect("Bob has connected.").await;
    signal(&b, "CONT");
    let last = bob.until_closed().await;
    assert_eq!(
        last.last().map(String::as_str),
        Some(moot::world::ELSEWHERE),
        "{last:?}"
    );
    bob_at_a.send("say the newer one stays").await;
    ann.expect("Bob says, \"the newer one stays\"").await;

    // Bob goes back to host B.
    bob_at_a.send("@quit").await;
    ann.expect("Bob has disconnected.").await;
    let mut bob = Client::connect(at_b).await;
    bob.send("connect Bob pw-Bob-moot").await;
    bob.expect("*** Connected ***").await;
    ann.expect("Bob has connected.").await;

    // Host B dies: Bob leaves the town within the world's patience, and Ann plays on.
    signal(&b, "KILL");
    let killed = std::time::Instant::now();
    ann.expect("Bob has disconnected.").await;
    let waited = killed.elapsed();
    assert!(
        waited >= wire::HOST_LOST_AFTER - wire::BEAT && waited < wire::HOST_LOST_AFTER * 2,
        "{waited:?}"
    );
    let who = ann.command("who").await;
    assert!(!who.iter().any(|l| l.contains("Bob")), "{who:?}");
    stands_in_a_room(&mut ann).await;
    a.running.shutdown().await;
    world.shutdown().await;
}

/// A world that loses its broker goes on: what it took is done and stored while no host can
/// hear it (here a chess flag that falls in the gap), it takes nobody for gone while it
/// cannot hear anyone, and when the broker is back its people are in the town as they were.
#[tokio::test]
async fn a_world_that_loses_its_broker_goes_on_and_keeps_its_people() {
    let mut broker = Broker::start().await;
    // 5+0 at a hundred times the wall clock: each side has 3 real seconds.
    let (_dir, db, world) = world_on(&broker.url, |c| c.time_scale = 100.0).await;
    let a = host(&broker.url, &db).await;
    let mut ann = player_at(a.telnet_addr, "Ann").await;
    let mut bob = player_at(a.telnet_addr, "Bob").await;
    for p in [&mut ann, &mut bob] {
        p.send("east").await;
        p.expect("Exits:").await;
    }
    ann.send("challenge Bob as white clock 5+0").await;
    bob.expect("challenges you to a game of chess").await;
    bob.send("accept Ann").await;
    bob.expect("You accept Ann's challenge").await;
    ann.send("move e2e4").await;
    ann.expect("You play e4 in game #1.").await;

    // The broker goes while Black's clock runs.
    let port: u16 = broker.url.rsplit(':').next().unwrap().parse().unwrap();
    drop(broker);
    let gone = std::time::Instant::now();
    let flag = "SELECT role, agent_id, action FROM actions WHERE session_id = '1' ORDER BY tick DESC LIMIT 1";
    while crate::support::sql_rows(&db, flag) != [["server", "server", "flag"]] {
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "the flag is stored without a broker"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Longer than a host's silence may last, heard by a world that can hear the broker.
    tokio::time::sleep(
        (wire::HOST_LOST_AFTER + Duration::from_secs(1)).saturating_sub(gone.elapsed()),
    )
    .await;
    broker = Broker::on_port(port).await;
    for p in [&mut ann, &mut bob] {
        p.expect(moot::cluster::host::BACK).await;
    }
    let game = bob.command("look #1").await;
    assert!(
        game.iter().any(|l| l.contains("White wins on time (1-0)")),
        "{game:?}"
    );
    ann.send("say still here").await;
    bob.expect("Ann says, \"still here\"").await;
    // Nobody left the town or came into it again.
    for p in [&ann, &bob] {
        assert!(
            !p.seen
                .iter()
                .any(|l| l.contains("has disconnected") || l.contains("*** Connected ***")),
            "{:?}",
            p.seen
        );
    }
    a.running.shutdown().await;
    world.shutdown().await;
    drop(broker);
}

/// A town behind a backlog (thousands talking): beats that come later than either side's
/// patience do not make a world that is speaking, or a host whose people are typing, look
/// gone. First the world's beats are held up 3 s (a host waits 1.5 s), then the host's 6 s
/// (the world waits 5 s); each time Ann types a line every 200 ms for 8 s through the host,
/// each is done and answered, and nobody is told the town went away, or leaves it.
#[tokio::test]
async fn late_beats_from_a_world_and_a_host_that_are_speaking_change_nothing() {
    for (world_late, host_late) in [("3000", "0"), ("0", "6000")] {
        let (_town, telnet) = beating_late(world_late, host_late).await;
        let mut ann = player_at(telnet, "Ann").await;
        let mut bob = player_at(telnet, "Bob").await;
        let typing = std::time::Instant::now();
        let mut n = 0;
        while typing.elapsed() < Duration::from_secs(8) {
            n += 1;
            let said = ann.command(&format!("say {n}")).await;
            assert!(
                said.contains(&format!("You say, \"{n}\"")),
                "world {world_late} ms late, host {host_late} ms: line {n}: {said:?}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        bob.expect(&format!("Ann says, \"{n}\"")).await;
        for p in [&ann, &bob] {
            let told = p
                .seen
                .iter()
                .find(|l| l.starts_with("*** The town") || l.contains("has disconnected"));
            assert!(
                told.is_none(),
                "world {world_late} ms late, host {host_late} ms: {told:?}"
            );
        }
    }
}

/// A world and a host as processes across a broker of their own, the world's beats held up
/// `world_late` ms and the host's `host_late`: what holds them, and the host's telnet address.
async fn beating_late(world_late: &str, host_late: &str) -> (BeatingLate, SocketAddr) {
    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(dir.path());
    let world_env = [("MOOT_TESTING_WORLD_BEATS_LATE_MS", world_late)];
    let world = world_process_env(&broker.url, &db, "60s", &[], &world_env).await;
    let host_env = [("MOOT_TESTING_HOST_BEATS_LATE_MS", host_late)];
    let (host, telnet) = host_process_with(&broker.url, &host_env).await;
    let town = BeatingLate {
        _host: host,
        _world: world,
        _dir: dir,
        _broker: broker,
    };
    (town, telnet)
}

/// What [`beating_late`] started, stopped in this order when dropped.
struct BeatingLate {
    _host: Moot,
    _world: Moot,
    _dir: tempfile::TempDir,
    _broker: Broker,
}

/// Behind a crowd logging in, beats can come later than the other side's patience while the
/// logins' questions and answers keep coming: those show each side alive too. As in
/// [`late_beats_from_a_world_and_a_host_that_are_speaking_change_nothing`], the world's beats
/// are held up 3 s, then the host's 6 s; each time someone at the login screen asks `who`
/// every 200 ms for 8 s, while Ann stays idle in the town. She is told nothing of the town
/// going away, and her next line is done.
#[tokio::test]
async fn logins_answered_while_beats_are_late_change_nothing() {
    for (world_late, host_late) in [("3000", "0"), ("0", "6000")] {
        let (_town, telnet) = beating_late(world_late, host_late).await;
        let mut ann = player_at(telnet, "Ann").await;
        let mut visitor = Client::connect(telnet).await;
        let asking = std::time::Instant::now();
        while asking.elapsed() < Duration::from_secs(8) {
            visitor.send("who").await;
            visitor.expect("Ann").await;
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let said = ann.command("say still here").await;
        assert!(
            said.iter().any(|l| l.contains("You say, \"still here\"")),
            "world {world_late} ms late, host {host_late} ms: {said:?}"
        );
        let told = ann.seen.iter().find(|l| l.starts_with("*** The town"));
        assert!(
            told.is_none(),
            "world {world_late} ms late, host {host_late} ms: {told:?}"
        );
    }
}

/// `moot --db DB --world W world --nats URL`, as a process of its own; returns once it
/// answers greetings.
pub(crate) async fn world_process(url: &str, db: &moot::store::Database, wait: &str) -> Moot {
    world_process_with(url, db, wait, &[]).await
}

/// [`world_process`] with more of the town's flags (`--metrics-token T`).
pub(crate) async fn world_process_with(
    url: &str,
    db: &moot::store::Database,
    wait: &str,
    extra: &[&str],
) -> Moot {
    world_process_env(url, db, wait, extra, &[]).await
}

/// [`world_process_with`], with more in its environment (a test's hold on the town).
pub(crate) async fn world_process_env(
    url: &str,
    db: &moot::store::Database,
    wait: &str,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> Moot {
    let world = Moot(
        Command::new(env!("CARGO_BIN_EXE_moot"))
            .args(extra)
            .args(["--db", &db.address()])
            .args(["--world", world_dir().to_str().unwrap()])
            .args([
                "--login-rate",
                "0",
                "--command-rate",
                "0",
                "--agent-rate",
                "0",
            ])
            .args(["--wait-timeout", wait])
            .args(["world", "--nats", url, "--broker-is-private"])
            .env("RUST_LOG", "moot=warn")
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let client = async_nats::connect(url).await.unwrap();
    let hello = serde_json::to_vec(&wire::Hello::ours("probe", None)).unwrap();
    for _ in 0..400 {
        if let Ok(Ok(_)) = tokio::time::timeout(
            Duration::from_secs(1),
            client.request(wire::HELLO, hello.clone().into()),
        )
        .await
        {
            return world;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the world did not start");
}

/// The towns a live page's server-sent events carry, in order.
fn town_frames(events: &str) -> Vec<serde_json::Value> {
    events
        .split("\n\n")
        .filter(|e| e.contains("event: town"))
        .filter_map(|e| e.lines().find_map(|l| l.strip_prefix("data: ")))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect()
}

/// Who stands in room `id` of a town map.
fn occupants(town: &serde_json::Value, id: &str) -> Vec<String> {
    town["rooms"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["id"] == id)
        .flat_map(|r| r["occupants"].as_array().cloned().unwrap_or_default())
        .filter_map(|o| o["name"].as_str().map(str::to_owned))
        .collect()
}

/// The world stops under its hosts, politely (SIGTERM, as an upgrade does) and then outright
/// (kill -9), and starts again: nobody is dropped, people are told the town pauses and is
/// back, a line typed in the gap is refused as not done, and afterwards everyone is where
/// they were, in the same connection.
#[tokio::test]
async fn the_world_restarts_and_nobody_is_dropped() {
    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(dir.path());
    let mut world = world_process(&broker.url, &db, "60s").await;
    let a = host(&broker.url, &db).await;
    let b = host(&broker.url, &db).await;
    let mut ann = player_at(a.telnet_addr, "Ann").await;
    let mut bob = player_at(b.telnet_addr, "Bob").await;
    ann.expect("Bob has connected.").await;
    ann.command("@describe me as A cartographer of small towns.")
        .await;

    // An agent through host B waits for Ann's move in a game of chess across both restarts.
    let robo = Api::new(b.http_addr).agent(Some("Robo")).await;
    let (made, game, number) = agent_game(b.http_addr, &robo.token).await;
    ann.command("east").await;
    let joined = ann.command(&format!("joinGame {number}")).await;
    assert!(
        joined[0].starts_with("You join game #"),
        "{made} {joined:?}"
    );
    let waiting = {
        let (http, token, game) = (b.http_addr, robo.token.clone(), game.clone());
        tokio::spawn(async move {
            mcp_tool(
                http,
                &token,
                "waitForNextTurn",
                serde_json::json!({"game_id": game}),
            )
            .await
        })
    };
    ann.command("west").await;

    for polite in [true, false] {
        // A live page open through host A carries on across the restart.
        let mut live = reqwest::get(format!("http://{}/town/live", a.http_addr))
            .await
            .unwrap();
        assert!(live.chunk().await.unwrap().is_some());
        if polite {
            let pid = world.id().to_string();
            assert!(
                Command::new("kill")
                    .args(["-TERM", &pid])
                    .status()
                    .unwrap()
                    .success()
            );
            for c in [&mut ann, &mut bob] {
                c.expect(moot::cluster::host::PAUSES).await;
            }
            assert!(world.wait().unwrap().success(), "the world stops cleanly");
        } else {
            world.kill().unwrap();
            world.wait().unwrap();
            // Nobody says goodbye: the hosts notice the silence.
            for c in [&mut ann, &mut bob] {
                c.expect(moot::cluster::host::AWAY).await;
            }
        }
        // A line in the gap is refused as not done, and nobody hears it.
        bob.send("say into the gap").await;
        bob.expect(moot::cluster::host::NOT_DONE).await;
        // So is a request that would change something: to be tried again.
        let gap = reqwest::Client::new()
            .post(format!("http://{}/agents", a.http_addr))
            .json(&serde_json::json!({"name": "Gap"}))
            .send()
            .await
            .unwrap();
        assert_eq!(gap.status(), 503);
        assert_eq!(gap.headers()["retry-after"], "1");
        // One that only reads waits for the town.
        let read = tokio::spawn(reqwest::get(format!("http://{}/town.json", a.http_addr)));

        let started = std::time::Instant::now();
        world = world_process(&broker.url, &db, "60s").await;
        for c in [&mut ann, &mut bob] {
            c.expect(moot::cluster::host::RESUMED).await;
            c.expect("*** Connected ***").await;
        }
        let back = started.elapsed();
        eprintln!("the world was back for its hosts {back:?} after it was started again");
        assert_eq!(read.await.unwrap().unwrap().status(), 200);
        // The live page's next frames come on the same stream: Bob leaves the square. (Whether
        // a frame comes between, the town as it was, is not asked: the page already has it.)
        bob.command("south").await;
        let mut frames = String::new();
        let went = tokio::time::timeout(Duration::from_secs(10), async {
            while let Ok(Some(chunk)) = live.chunk().await {
                frames.push_str(&String::from_utf8_lossy(&chunk));
                if town_frames(&frames)
                    .iter()
                    .any(|town| occupants(town, "game_room").contains(&"Bob".to_owned()))
                {
                    return true;
                }
            }
            false
        })
        .await;
        assert_eq!(went, Ok(true), "{frames}");
        bob.command("north").await;
        // Where they were, as who they were, hearing each other.
        let look = ann.command("look").await;
        assert!(look.iter().any(|l| l.contains("Bob")), "{look:?}");
        ann.send("say still here").await;
        bob.expect("Ann says, \"still here\"").await;
        let seen = bob.command("look Ann").await;
        assert!(
            seen.iter()
                .any(|l| l.contains("A cartographer of small towns.")),
            "{seen:?}"
        );
    }
    // The long poll, asked again by its host after each restart, hears Ann's move.
    ann.command("east").await;
    ann.command(&format!("move e4 #{number}")).await;
    let turn = tokio::time::timeout(Duration::from_secs(30), waiting)
        .await
        .expect("the long poll is answered")
        .unwrap();
    assert_eq!(turn["structuredContent"]["status"], "your_turn", "{turn}");
    assert!(
        !ann.seen
            .iter()
            .chain(&bob.seen)
            .any(|l| l.contains("into the gap")),
        "a refused line was done"
    );
    for host in [a, b] {
        host.running.shutdown().await;
    }
}

/// A crowd through two hosts rides out the world's restart, polite and outright: 100 telnet
/// players and 100 agents (twenty in `waitForNextTurn`, twenty on the town's live page, sixty
/// looking around over MCP). Nobody is dropped; every person hears that the town pauses and is
/// back; no agent's call fails; every live page carries on. The figures are printed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crowd_through_two_hosts_rides_out_restarts() {
    use futures_util::future::join_all;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(dir.path());
    let mut world = world_process(&broker.url, &db, "5s").await;
    let hosts = [host(&broker.url, &db).await, host(&broker.url, &db).await];
    let telnet = [hosts[0].telnet_addr, hosts[1].telnet_addr];
    let http = [hosts[0].http_addr, hosts[1].http_addr];

    let mut people =
        join_all((0..100).map(|i| async move { player_at(telnet[i % 2], &format!("P{i}")).await }))
            .await;
    let agents = join_all((0..100).map(|i| {
        let api = Api::new(http[i % 2]);
        async move { api.agent(Some(&format!("A{i}"))).await }
    }))
    .await;

    // Twenty games of chess, each an agent's (black) joined by a person (white) who never
    // moves: the agent waits for that move across the restarts.
    let mut games = Vec::new();
    for (i, agent) in agents.iter().take(20).enumerate() {
        let (made, game, number) = agent_game(http[i % 2], &agent.token).await;
        people[i].command("east").await;
        let joined = people[i].command(&format!("joinGame {number}")).await;
        assert!(
            joined[0].starts_with("You join game #"),
            "{made} {joined:?}"
        );
        people[i].command("west").await;
        games.push(game);
    }

    let running = Arc::new(AtomicBool::new(true));
    let calls = Arc::new(AtomicU64::new(0));
    let slowest = Arc::new(AtomicU64::new(0));
    let mut tasks = Vec::new();
    for (i, agent) in agents.iter().enumerate() {
        let (addr, token) = (http[i % 2], agent.token.clone());
        let (running, calls, slowest) = (running.clone(), calls.clone(), slowest.clone());
        let game = games.get(i).cloned();
        tasks.push(tokio::spawn(async move {
            let mut failures = Vec::new();
            if let Some(game) = game {
                // Waiting for a move that never comes: each long poll times out and is asked
                // again, the ones in flight across the restarts.
                while running.load(Ordering::Relaxed) {
                    let r = mcp_tool(
                        addr,
                        &token,
                        "waitForNextTurn",
                        serde_json::json!({"game_id": game}),
                    )
                    .await;
                    if r["structuredContent"]["status"] != "timeout" {
                        failures.push(r);
                    }
                    calls.fetch_add(1, Ordering::Relaxed);
                }
            } else if i < 40 {
                // The town's live page: frames keep coming on one stream.
                let mut live = reqwest::get(format!("http://{addr}/town/live"))
                    .await
                    .unwrap();
                let mut frames = 0;
                // Once the rest stop, a page still owed the last change's frame (on a loaded
                // machine) is given ten seconds more to see it.
                let mut grace = 20;
                loop {
                    if !running.load(Ordering::Relaxed) {
                        if frames >= 3 || grace == 0 {
                            break;
                        }
                        grace -= 1;
                    }
                    match tokio::time::timeout(Duration::from_millis(500), live.chunk()).await {
                        Ok(Ok(Some(chunk))) => {
                            frames += String::from_utf8_lossy(&chunk)
                                .matches("event: town")
                                .count()
                        }
                        Ok(other) => {
                            failures
                                .push(serde_json::json!(format!("the stream ended: {other:?}")));
                            break;
                        }
                        Err(_) => {}
                    }
                }
                return (failures, frames);
            } else {
                while running.load(Ordering::Relaxed) {
                    let asked = std::time::Instant::now();
                    let r = mcp_tool(addr, &token, "look", serde_json::json!({})).await;
                    let took = asked.elapsed().as_millis() as u64;
                    slowest.fetch_max(took, Ordering::Relaxed);
                    if r.get("content").is_none() {
                        failures.push(r);
                    }
                    calls.fetch_add(1, Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
            (failures, 0)
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut refused = 0;
    for polite in [true, false] {
        let stopped = std::time::Instant::now();
        if polite {
            let pid = world.id().to_string();
            assert!(
                Command::new("kill")
                    .args(["-TERM", &pid])
                    .status()
                    .unwrap()
                    .success()
            );
            assert!(world.wait().unwrap().success());
        } else {
            world.kill().unwrap();
            world.wait().unwrap();
        }
        let told = if polite {
            moot::cluster::host::PAUSES
        } else {
            moot::cluster::host::AWAY
        };
        join_all(people.iter_mut().map(|p| p.expect(told))).await;
        // Half the people type in the gap: refused, not done.
        for p in people.iter_mut().step_by(2) {
            p.send("say in the gap").await;
        }
        // Each is refused as not done; only where a moment's silence on a loaded machine had
        // told this person the town was away before the kill was noticed, and then that it was
        // back (so the line went to the world), is it answered for the world that stopped
        // before answering it.
        for p in people.iter_mut().step_by(2) {
            let mut back = false;
            loop {
                let l = p.line().await.expect("still connected");
                back |= l == moot::cluster::host::BACK;
                if l == moot::cluster::host::NOT_DONE {
                    break;
                }
                if l == moot::cluster::host::UNANSWERED {
                    assert!(back, "answered for the world without the town back first");
                    break;
                }
            }
            refused += 1;
        }
        let started = std::time::Instant::now();
        world = world_process(&broker.url, &db, "5s").await;
        join_all(people.iter_mut().map(|p| async move {
            p.expect(moot::cluster::host::RESUMED).await;
            p.expect("*** Connected ***").await;
        }))
        .await;
        eprintln!(
            "{}: the town was away {:?}; back for all 100 people {:?} after the world was started",
            if polite { "SIGTERM" } else { "kill -9" },
            stopped.elapsed(),
            started.elapsed()
        );
        // The town changes, for the live pages' next frame.
        people[0].command("south").await;
        people[0].command("north").await;
    }
    tokio::time::sleep(Duration::from_millis(700)).await;
    running.store(false, Ordering::Relaxed);
    let mut frames_after = Vec::new();
    for (i, task) in tasks.into_iter().enumerate() {
        let (failures, frames) = tokio::time::timeout(Duration::from_secs(30), task)
            .await
            .expect("every agent finishes")
            .unwrap();
        assert!(failures.is_empty(), "agent {i}: {failures:?}");
        if (20..40).contains(&i) {
            frames_after.push(frames);
        }
    }
    assert!(
        frames_after.iter().all(|&f| f >= 3),
        "frames on each live page: {frames_after:?}"
    );
    // Everyone is still connected, and answered.
    let answered = join_all(people.iter_mut().map(|p| p.command("look"))).await;
    assert!(
        answered
            .iter()
            .all(|l| l.iter().any(|l| l.starts_with("Exits:")))
    );
    eprintln!(
        "agents' MCP calls: {}, none failed; the slowest look waited {} ms; people's lines refused in the gaps: {refused}",
        calls.load(Ordering::Relaxed),
        slowest.load(Ordering::Relaxed)
    );
    assert!(
        !people
            .iter()
            .any(|p| p.seen.iter().any(|l| l.contains("in the gap")))
    );
    for host in hosts {
        host.running.shutdown().await;
    }
}

/// A host keeps its people through a world's absence for `--world-wait`, then closes their
/// connections with a message; and a broker that goes away and comes back is ridden out like
/// a world that does.
#[tokio::test]
async fn a_host_waits_so_long_for_its_world_and_rides_out_its_broker() {
    let mut broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let mut c = config(&db);
    c.world_wait = Duration::from_secs(3).into();
    let host = start_host(c, &broker.url, None)
        .await
        .expect("the host joins");
    let mut ann = player_at(host.telnet_addr, "Ann").await;

    // The broker goes, and comes back on the same address: both ends connect again.
    let port = broker.url.rsplit(':').next().unwrap().to_owned();
    drop(broker);
    ann.expect(moot::cluster::host::AWAY).await;
    broker = Broker::on_port(port.parse().unwrap()).await;
    ann.expect(moot::cluster::host::BACK).await;
    ann.send("say through a new broker").await;
    ann.expect("You say, \"through a new broker\"").await;

    // The world goes for good: after --world-wait the host says goodbye.
    world.shutdown().await;
    ann.expect(moot::cluster::host::PAUSES).await;
    let last = ann.until_closed().await;
    assert_eq!(
        last.last().map(String::as_str),
        Some(moot::cluster::host::GAVE_UP),
        "{last:?}"
    );
    host.running.shutdown().await;
    drop(broker);
}

/// A client that leaves while the world holds its long poll takes the poll back: the world
/// drops the handler (and the agent's place in its limit of polls) at once, as one process
/// does when hyper drops it, not when the poll would have ended. The limit is one for all
/// hosts.
#[tokio::test]
async fn a_long_poll_whose_client_leaves_is_taken_back_from_the_world() {
    let broker = Broker::start().await;
    let (_dir, db, world) = world_on(&broker.url, |c| {
        c.polls_per_agent = 1;
        c.wait_timeout = Duration::from_secs(60).into();
    })
    .await;
    let a = host(&broker.url, &db).await;
    let agent = Api::new(a.http_addr).agent(Some("Waiter")).await;
    let (_, game, _) = agent_game(a.http_addr, &agent.token).await;
    let wait = |token: String, game: serde_json::Value| {
        tokio::spawn(async move {
            mcp_tool(
                a.http_addr,
                &token,
                "waitForNextTurn",
                serde_json::json!({ "game_id": game }),
            )
            .await
        })
    };
    let first = wait(agent.token.clone(), game.clone());
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!first.is_finished(), "the first poll waits");
    first.abort();
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The agent's one poll is free again: the next one waits too, rather than being refused.
    let second = wait(agent.token.clone(), game.clone());
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert!(
        !second.is_finished(),
        "refused: {:?}",
        second.await.unwrap()
    );
    // The limit is the agent's, whichever host a call comes through.
    let b = host(&broker.url, &db).await;
    let through_b = mcp_tool(
        b.http_addr,
        &agent.token,
        "waitForNextTurn",
        serde_json::json!({ "game_id": game }),
    )
    .await;
    assert!(
        through_b
            .to_string()
            .contains("You already have 1 calls waiting"),
        "{through_b}"
    );
    second.abort();
    b.running.shutdown().await;
    a.running.shutdown().await;
    world.shutdown().await;
}

/// Through a broker that carries small messages, an answer larger than one is passed in
/// pieces and arrives whole, and a request larger than one is refused with why; a header
/// value any HTTP stack takes (a byte past ASCII) passes as it is.
#[tokio::test]
async fn answers_cross_a_small_brokers_limit_and_requests_beyond_it_are_refused() {
    let broker = Broker::with_max_payload(4096).await;
    let (_dir, db, world) = world_on(&broker.url, |_| {}).await;
    let a = host(&broker.url, &db).await;
    let http = reqwest::Client::new();
    let spec = http
        .get(format!("http://{}/openapi.json", a.http_addr))
        .header(
            "x-note",
            reqwest::header::HeaderValue::from_bytes(b"caf\xe9").unwrap(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(spec.status(), 200);
    let spec = spec.bytes().await.unwrap();
    assert!(spec.len() > 3 * 4096, "{} bytes", spec.len());
    let spec: serde_json::Value = serde_json::from_slice(&spec).expect("whole JSON");
    assert!(spec["paths"].is_object());

    // A call that the host reads whole and that is larger than the broker carries.
    let agent = Api::new(a.http_addr).agent(Some("Big")).await;
    let said = http
        .post(format!("http://{}/sessions", a.http_addr))
        .bearer_auth(&agent.token)
        .header("content-type", "application/json")
        .body(
            serde_json::json!({
                "template": "chess.v1",
                "participants": (0..10)
                    .map(|i| (format!("p{i}"), serde_json::json!("x".repeat(1000))))
                    .collect::<serde_json::Map<_, _>>(),
            })
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(said.status(), 413);
    let said = said.text().await.unwrap();
    assert!(said.contains("carries at most 4096 bytes"), "{said}");
    a.running.shutdown().await;
    world.shutdown().await;
}

/// A broker that asks who connects is answered from the URL (`nats://USER:PASSWORD@…`); a
/// wrong password is refused with a message that does not repeat it.
#[tokio::test]
async fn a_broker_with_a_password_is_answered_from_the_url() {
    let port = free_port();
    let broker = Broker::run(port, &["--user", "moot", "--pass", "s3cret@pw"]).await;
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(dir.path());
    // The password's `@` written as URLs write it.
    let good = format!("nats://moot:s3cret%40pw@127.0.0.1:{port}");
    let bad = format!("nats://moot:wrong-pw@127.0.0.1:{port}");
    let refused = match start_world(config(&db), &bad, Trust::Authenticated).await {
        Ok(_) => panic!("a wrong password was taken"),
        Err(e) => e.to_string(),
    };
    assert!(
        refused.contains("cannot reach the NATS broker at nats://…@127.0.0.1")
            && !refused.contains("wrong-pw"),
        "{refused}"
    );
    let world = start_world(config(&db), &good, Trust::Authenticated)
        .await
        .expect("the world starts");
    let a = host(&good, &db).await;
    let mut ann = player_at(a.telnet_addr, "Ann").await;
    stands_in_a_room(&mut ann).await;
    a.running.shutdown().await;
    world.shutdown().await;
    drop(broker);
}

/// A certificate authority of the test's own in `dir` (`ca.pem`), and a broker's certificate
/// for 127.0.0.1 that it signed (`broker.pem`, `broker.key`), made with `openssl`.
fn broker_certificate(dir: &std::path::Path) {
    let at = |f: &str| dir.join(f).to_str().unwrap().to_owned();
    let openssl = |args: &[&str]| {
        let made = Command::new("openssl")
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("openssl runs");
        assert!(made.success(), "openssl {args:?}");
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    openssl(
        &[
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                &at("ca.key"),
                "-out",
                &at("ca.pem"),
                "-days",
                "1",
                "-subj",
                "/CN=moot test CA",
            ],
        ]
        .concat(),
    );
    openssl(
        &[
            &["req"][..],
            &ec,
            &[
                "-keyout",
                &at("broker.key"),
                "-out",
                &at("broker.csr"),
                "-subj",
                "/CN=127.0.0.1",
            ],
        ]
        .concat(),
    );
    std::fs::write(at("san.ext"), "subjectAltName=IP:127.0.0.1\n").unwrap();
    openssl(&[
        "x509",
        "-req",
        "-in",
        &at("broker.csr"),
        "-CA",
        &at("ca.pem"),
        "-CAkey",
        &at("ca.key"),
        "-CAcreateserial",
        "-out",
        &at("broker.pem"),
        "-days",
        "1",
        "-extfile",
        &at("san.ext"),
    ]);
}

/// A broker across a network the town does not trust speaks TLS: moot verifies it against the
/// machine's certificate authorities (here one of the test's own, through `SSL_CERT_FILE`) and
/// a world and a host meet through it.
#[tokio::test]
async fn a_world_and_a_host_meet_through_a_broker_that_speaks_tls() {
    let dir = tempfile::tempdir().unwrap();
    let at = |f: &str| dir.path().join(f).to_str().unwrap().to_owned();
    broker_certificate(dir.path());
    let port = free_port();
    let broker = Broker::run(
        port,
        &[
            "--tls",
            "--tlscert",
            &at("broker.pem"),
            "--tlskey",
            &at("broker.key"),
        ],
    )
    .await;
    let url = format!("tls://127.0.0.1:{port}");
    let db = fresh_db(dir.path());
    let ca = at("ca.pem");
    let env = [("SSL_CERT_FILE", ca.as_str())];
    let _world = Moot(
        Command::new(env!("CARGO_BIN_EXE_moot"))
            .args(["--db", &db.address()])
            .args(["--world", world_dir().to_str().unwrap()])
            .args(["world", "--nats", &url, "--broker-is-private"])
            .envs(env)
            .env("RUST_LOG", "moot=warn")
            .stdin(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let probe = async_nats::ConnectOptions::new()
        .add_root_certificates(ca.clone().into())
        .connect(&url)
        .await
        .expect("the test reaches its broker over TLS");
    let hello = serde_json::to_vec(&wire::Hello::ours("probe", None)).unwrap();
    let mut up = false;
    for _ in 0..400 {
        let asked = probe.request(wire::HELLO, hello.clone().into());
        if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(1), asked).await {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(up, "the world answers over TLS");
    let (_host, telnet) = host_process_with(&url, &env).await;
    let mut ann = player_at(telnet, "Ann").await;
    stands_in_a_room(&mut ann).await;
    drop(broker);
}

/// `moot world` refuses a broker that asks nobody who connects, saying what to do, and serves
/// through one when told it is private.
#[tokio::test]
async fn a_world_refuses_a_broker_that_lets_anyone_in_unless_told_it_is_private() {
    let broker = Broker::start().await;
    let dir = tempfile::tempdir().unwrap();
    let db = fresh_db(dir.path());
    let said = tempfile::NamedTempFile::new().unwrap();
    let mut world = Moot(
        Command::new(env!("CARGO_BIN_EXE_moot"))
            .args(["--db", &db.address()])
            .args(["--world", world_dir().to_str().unwrap()])
            .args(["world", "--nats", &broker.url])
            .env("RUST_LOG", "moot=warn")
            .stdin(Stdio::null())
            .stderr(said.reopen().unwrap())
            .spawn()
            .unwrap(),
    );
    let mut exited = None;
    for _ in 0..400 {
        if let Ok(Some(status)) = world.try_wait() {
            exited = Some(status);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let status = exited.expect("the world refuses a broker that lets anyone in");
    assert!(!status.success());
    let said = std::fs::read_to_string(said.path()).unwrap();
    assert!(
        said.contains("lets anyone in without credentials") && said.contains("--broker-is-private"),
        "{said}"
    );
    // In this process too, and the same world serves once told the broker is private.
    let refused = match start_world(config(&db), &broker.url, Trust::Authenticated).await {
        Ok(_) => panic!("the world served through a broker that lets anyone in"),
        Err(e) => e.to_string(),
    };
    assert!(refused.contains("--broker-is-private"), "{refused}");
    let _world = world_process(&broker.url, &db, "30s").await;
}

/// What docs/operating.md gives an operator: a user for the world and one for each host, each
/// host allowed only its own subjects and its own reply inbox, over TLS with `dir`'s
/// certificate (see [`broker_certificate`]).
fn users_and_permissions(dir: &std::path::Path, hosts: &[&str]) -> String {
    let at = |f: &str| dir.join(f).to_str().unwrap().to_owned();
    let mut users = vec![
        "{ user: world, password: \"world-pw\", permissions: { publish: { allow: [\"moot.>\", \
         \"_INBOX.>\"] }, subscribe: { allow: [\"moot.>\"] } } }"
            .to_owned(),
    ];
    for h in hosts {
        users.push(format!(
            "{{ user: {h}, password: \"{h}-pw\", permissions: {{ \
             publish: {{ allow: [\"{hello}\", \"{from}\"] }}, \
             subscribe: {{ allow: [\"{news}\", \"{to}\", \"{inbox}.>\"] }} }} }}",
            hello = wire::HELLO,
            from = wire::from_host(h),
            news = wire::news(),
            to = wire::to_host_all(h),
            inbox = wire::inbox(h),
        ));
    }
    format!(
        "authorization {{\n  timeout: 2\n  users = [\n    {}\n  ]\n}}\n\
         tls {{ cert_file: \"{}\", key_file: \"{}\", timeout: 2 }}\n",
        users.join("\n    "),
        at("broker.pem"),
        at("broker.key"),
    )
}

/// On a broker with a user for the world and one for each host (over TLS), a client holding
/// another host's credentials reads no password, token or line while a player logs in and
/// talks through host1, cannot subscribe where it would, and cannot log anyone in, greet or
/// ask as host1, nor tell anyone the town is going down.
#[tokio::test]
async fn another_hosts_credentials_read_nothing_and_forge_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let at = |f: &str| dir.path().join(f).to_str().unwrap().to_owned();
    broker_certificate(dir.path());
    let conf = at("nats.conf");
    std::fs::write(
        &conf,
        users_and_permissions(dir.path(), &["host1", "host2"]),
    )
    .unwrap();
    let port = free_port();
    let broker = Broker::run(port, &["-c", &conf]).await;
    let url = |user: &str| format!("tls://{user}:{user}-pw@127.0.0.1:{port}");
    let db = fresh_db(dir.path());
    let ca = at("ca.pem");
    let env = [("SSL_CERT_FILE", ca.as_str())];
    // No --broker-is-private: this broker asks who connects.
    let world_said = tempfile::NamedTempFile::new().unwrap();
    let mut world = Moot(
        Command::new(env!("CARGO_BIN_EXE_moot"))
            .args(["--db", &db.address()])
            .args(["--world", world_dir().to_str().unwrap()])
            .args(["world", "--nats", &url("world")])
            .envs(env)
            .env("RUST_LOG", "moot=warn")
            .stdin(Stdio::null())
            .stderr(world_said.reopen().unwrap())
            .spawn()
            .unwrap(),
    );

    // The spy: host2's user, which the real host1 is not.
    let (errors_tx, mut errors_rx) = tokio::sync::mpsc::unbounded_channel::<String>();
    let spy = async_nats::ConnectOptions::new()
        .user_and_password("host2".into(), "host2-pw".into())
        .add_root_certificates(ca.clone().into())
        .custom_inbox_prefix(wire::inbox("host2"))
        .event_callback(move |event| {
            let tx = errors_tx.clone();
            async move {
                if let async_nats::Event::ServerError(e) = event {
                    let _ = tx.send(e.to_string().to_lowercase());
                }
            }
        })
        .connect(format!("tls://127.0.0.1:{port}"))
        .await
        .expect("the spy connects as host2");
    let heard = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(String, String)>::new()));
    let everywhere = [
        ">".to_owned(),
        "moot.>".to_owned(),
        "_INBOX.>".to_owned(),
        wire::to_host_all("host1"),
        format!("{}.>", wire::inbox("host1")),
        // What host2 may read.
        wire::news(),
        wire::to_host_all("host2"),
        format!("{}.>", wire::inbox("host2")),
    ];
    for subject in everywhere {
        let mut sub = spy.subscribe(subject).await.unwrap();
        let heard = heard.clone();
        tokio::spawn(async move {
            while let Some(msg) = sub.next().await {
                let body = String::from_utf8_lossy(&msg.payload).into_owned();
                heard.lock().unwrap().push((msg.subject.to_string(), body));
            }
        });
    }
    spy.flush().await.unwrap();

    // The world is up once it answers a hello, which host2's user may send.
    let hello = serde_json::to_vec(&wire::Hello::ours("host2", None)).unwrap();
    let mut up = false;
    for _ in 0..400 {
        let asked = spy.request(wire::HELLO, hello.clone().into());
        if let Ok(Ok(_)) = tokio::time::timeout(Duration::from_secs(1), asked).await {
            up = true;
            break;
        }
        if let Ok(Some(status)) = world.try_wait() {
            let said = std::fs::read_to_string(world_said.path()).unwrap_or_default();
            panic!("the world exited ({status}): {said}");
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert!(up, "the world answers through a broker with users");
    let http: SocketAddr = format!("127.0.0.1:{}", free_port()).parse().unwrap();
    let http_at = http.to_string();
    let host1_env = [
        ("SSL_CERT_FILE", ca.as_str()),
        ("MOOT_HOST_NAME", "host1"),
        ("MOOT_HTTP", http_at.as_str()),
    ];
    let (_host1, telnet) = host_process_with(&url("host1"), &host1_env).await;

    // A player logs in through host1 with a password, gets an API token and talks.
    let mut first = player_at(telnet, "Ann").await;
    stands_in_a_room(&mut first).await;
    let mut ann = Client::connect(telnet).await;
    ann.send("connect Ann pw-Ann-moot").await;
    ann.expect("$#$xmcp version: 1.1").await;
    ann.send("@wrap off").await;
    ann.expect("Word wrap is now off.").await;
    let issued = ann.command("@token").await;
    let token = issued
        .iter()
        .find_map(|l| l.strip_prefix("Your API token: "))
        .unwrap_or_else(|| panic!("{issued:?}"))
        .to_owned();
    ann.send("say a-secret-line").await;
    ann.expect("You say, \"a-secret-line\"").await;
    // Calls asked at once cross in one batch, and the world answers them as each is ready,
    // in as many messages into the batch's inbox: the world's user may answer there more than
    // once (a broker's `allow_responses` lets one answer through and drops the rest).
    let looks = (0..8).map(|_| {
        let token = token.clone();
        async move { crate::support::mcp_tool(http, &token, "look", serde_json::json!({})).await }
    });
    let answered = tokio::time::timeout(
        Duration::from_secs(20),
        futures_util::future::join_all(looks),
    )
    .await
    .expect("every call is answered");
    for look in answered {
        assert_eq!(look["structuredContent"]["kind"], "room", "{look}");
    }

    // Forgeries, with what the spy may know: the world's epoch from its beats, Ann's id.
    let epoch = heard
        .lock()
        .unwrap()
        .iter()
        .find_map(|(_, body)| match serde_json::from_str(body) {
            Ok(wire::News::Beat { epoch }) => Some(epoch),
            _ => None,
        })
        .expect("host2 hears the world's beats");
    let store = moot::store::Store::open(&db, moot::store::StoreOptions::default()).unwrap();
    let ann_id = store.agent_by_name("Ann").await.unwrap().unwrap().agent_id;
    let enter = wire::encode(&wire::FromConns(vec![(
        77,
        wire::FromConn::Enter {
            agent: ann_id.clone(),
            pass: String::new(),
            created: false,
            seq: 1,
            again: false,
        },
    )]))
    .unwrap();
    let down = serde_json::to_vec(&wire::News::Down { epoch }).unwrap();
    spy.publish(wire::news(), down.into()).await.unwrap();
    spy.publish(wire::conns("host1"), enter.clone())
        .await
        .unwrap();
    // On host2's own subject, from a host2 that never greeted the world: ignored.
    spy.publish(wire::conns("host2"), enter).await.unwrap();
    let as_host1 = serde_json::to_vec(&wire::Hello::ours("host1", None)).unwrap();
    let connect = serde_json::to_vec(&wire::Ask::Connect {
        ip: "127.0.0.1".parse().unwrap(),
        name: "Ann".into(),
        password: "pw-Ann-moot".into(),
    })
    .unwrap();
    let unanswered = [
        // Greeting as host1, on its subject or in its name on host2's.
        (wire::greet("host1"), as_host1.clone()),
        (wire::greet("host2"), as_host1),
        // Checking a password as host1, or as a host2 that never greeted.
        (wire::ask("host1"), connect.clone()),
        (wire::ask("host2"), connect),
    ];
    for (subject, body) in unanswered {
        let asked = spy.request(subject.clone(), body.into());
        let answer = tokio::time::timeout(Duration::from_secs(2), asked).await;
        assert!(!matches!(answer, Ok(Ok(_))), "the world answered {subject}");
    }
    spy.flush().await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Ann is where she was, told nothing of a town going down, and nobody entered as her.
    stands_in_a_room(&mut ann).await;
    let told: Vec<&String> = ann
        .seen
        .iter()
        .filter(|l| l.contains("pauses") || l.contains("elsewhere"))
        .collect();
    assert!(told.is_empty(), "{told:?}");
    let spied = heard.lock().unwrap().clone();
    for (subject, body) in &spied {
        for secret in ["pw-Ann-moot", token.as_str(), "a-secret-line"] {
            assert!(!body.contains(secret), "host2 read {secret} on {subject}");
        }
        assert!(
            !subject.starts_with(&wire::to_host_all("host2").replace('>', "")),
            "the world spoke to host2, which never greeted it: {subject} {body}"
        );
    }
    let mut errors = Vec::new();
    while let Ok(e) = errors_rx.try_recv() {
        errors.push(e);
    }
    for refused in [
        "subscription to \">\"".to_owned(),
        "subscription to \"moot.>\"".to_owned(),
        "subscription to \"_inbox.>\"".to_owned(),
        format!("subscription to \"{}\"", wire::to_host_all("host1")),
        format!("publish to \"{}\"", wire::news()),
        format!("publish to \"{}\"", wire::conns("host1")),
        format!("publish to \"{}\"", wire::greet("host1")),
        format!("publish to \"{}\"", wire::ask("host1")),
    ] {
        assert!(
            errors
                .iter()
                .any(|e| e.contains("violation") && e.contains(&refused)),
            "the broker did not refuse {refused}: {errors:?}"
        );
    }

    // Greeted under its own name, host2 is a host of this world, and still brings nobody in
    // by naming them: entering needs the world's pass for that host and that character, which
    // only the world's answer to their login through that host carries.
    let as_host2 = serde_json::to_vec(&wire::Hello::ours("host2", None)).unwrap();
    let welcome = spy.request(wire::greet("host2"), as_host2.into());
    let welcome = tokio::time::timeout(Duration::from_secs(5), welcome).await;
    assert!(matches!(welcome, Ok(Ok(_))), "host2 may greet as itself");
    let host1_pass = (0..64).map(|_| 'a').collect::<String>();
    let mut told = spy.subscribe(wire::to_conns("host2")).await.unwrap();
    spy.flush().await.unwrap();
    for (conn, pass) in [(78, String::new()), (79, host1_pass)] {
        let enter = wire::encode(&wire::FromConns(vec![(
            conn,
            wire::FromConn::Enter {
                agent: ann_id.clone(),
                pass,
                created: false,
                seq: 1,
                again: false,
            },
        )]))
        .unwrap();
        spy.publish(wire::conns("host2"), enter).await.unwrap();
        let batch = tokio::time::timeout(Duration::from_secs(5), told.next())
            .await
            .expect("the world answers the forged entry")
            .unwrap();
        let batch: wire::ToConns = wire::decode(&batch.payload).expect("a batch");
        let closed = match &batch.0[..] {
            [
                wire::Told {
                    conns,
                    what: wire::ToConn::Close(lines),
                },
            ] if conns == &[conn] => lines,
            other => panic!("{other:?}"),
        };
        assert!(
            closed
                .iter()
                .any(|l| l.contains("did not let that login through")),
            "{closed:?}"
        );
    }
    // Nobody entered as Ann: she was told nothing, and `who` lists her once.
    stands_in_a_room(&mut ann).await;
    let who = ann.command("who").await;
    assert_eq!(
        who.iter().filter(|l| l.contains("Ann")).count(),
        1,
        "{who:?}"
    );
    assert!(
        !ann.seen.iter().any(|l| l.contains("elsewhere")),
        "{:?}",
        ann.seen
    );
    drop(broker);
}
