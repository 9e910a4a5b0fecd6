use super::*;

/// A writer on one end of a loopback connection, the other end, and the writer's read
/// half (kept, so that the connection stays open).
async fn connected() -> (Writer, TcpStream, tokio::net::tcp::OwnedReadHalf) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = TcpStream::connect(listener.local_addr().unwrap());
    let ((server, _), client) = tokio::join!(async { listener.accept().await.unwrap() }, async {
        client.await.unwrap()
    });
    let (rd, wr) = server.into_split();
    let out = Writer {
        wr,
        buf: Vec::new(),
        width: None,
    };
    (out, client, rd)
}

/// A crowd's batch is written and its buffer given back; an answer's stays for the next.
#[tokio::test]
async fn a_connection_keeps_no_large_buffer_between_writes() {
    let (mut out, mut client, _rd) = connected().await;
    out.batch();
    while !out.full() {
        out.line("Somebody says, \"a line of the crowd's chatter\"");
    }
    let sent = out.buf.len();
    out.flush().await.unwrap();
    assert_eq!(out.buf.capacity(), 0, "a batch's buffer is given back");
    out.line("An answer.");
    out.flush().await.unwrap();
    assert!(out.buf.capacity() > 0 && out.buf.capacity() <= KEPT_BUFFER);
    let mut got = vec![0; sent + "An answer.\r\n".len()];
    tokio::io::AsyncReadExt::read_exact(&mut client, &mut got)
        .await
        .unwrap();
    assert!(got.ends_with(b"An answer.\r\n"));
}

/// A batch larger than the socket takes is written in part at once and the rest as the
/// reader makes room: every byte arrives, once, in order.
#[tokio::test]
async fn a_write_the_socket_cannot_take_at_once_arrives_whole() {
    let (mut out, mut client, _rd) = connected().await;
    // Far more than loopback's socket buffers hold while nobody reads.
    let lines: Vec<String> = (0..400_000).map(|i| format!("line {i}")).collect();
    for l in &lines {
        out.line(l);
    }
    let expected: Vec<u8> = lines
        .iter()
        .flat_map(|l| format!("{l}\r\n").into_bytes())
        .collect();
    let reader = async {
        // Start late, so that the first try finds the socket full.
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        let mut got = vec![0; expected.len()];
        let read = tokio::io::AsyncReadExt::read_exact(&mut client, &mut got);
        tokio::time::timeout(std::time::Duration::from_secs(20), read)
            .await
            .expect("the rest of the batch came")
            .unwrap();
        got
    };
    let (flushed, got) = tokio::join!(out.flush(), reader);
    flushed.unwrap();
    assert!(got == expected, "the bytes arrived whole and in order");
}

fn rendered(s: &str, width: Option<usize>) -> Vec<String> {
    let mut buf = Vec::new();
    render(s, width, &mut buf);
    let text = String::from_utf8(buf).unwrap();
    let body = text.strip_suffix("\r\n").unwrap();
    body.split("\r\n").map(str::to_owned).collect()
}

/// What nobody's words may start a line with on the wire: the narrator's mark (or any
/// bracket), a notice's stars, or an unquoted out-of-band prefix.
fn forged(line: &str) -> bool {
    ["[Town Crier]", "[", "*", "#$#", "$#$"]
        .iter()
        .any(|m| line.starts_with(m))
        || moot_kernel::wrap::poses_as_mark(line) && !line.starts_with("#$\"")
}

#[test]
fn the_narrators_line_keeps_its_mark_and_nobody_elses_gets_one() {
    let crier = "[Town Crier] Bot-Abel is dead. Bot-Abel was a Werewolf.";
    for width in [None, Some(12), Some(20), Some(79), Some(500)] {
        assert!(rendered(crier, width)[0].starts_with("[Town Crier]"));
    }
    assert_eq!(rendered(crier, Some(10))[..2], ["[Town", "Crier]"]);
    let pad = "a".repeat(79 - "Mallory says, \"".len());
    let say = format!("Mallory says, \"{pad} {crier}\"");
    assert_eq!(
        rendered(&say, Some(79)),
        [format!("Mallory says, \"{pad}"), format!("  {crier}\""),]
    );
    assert_eq!(rendered(&say, None), [say]);
    // Out-of-band lookalikes at a break are set in, and quoted if a line begins with one.
    let oob = format!("Mallory says, \"{pad} #$#mcp-cord 1 x\"");
    assert_eq!(rendered(&oob, Some(79))[1], "  #$#mcp-cord 1 x\"");
    assert_eq!(
        rendered("$#$xmcp version: 1.1", None),
        ["#$\"$#$xmcp version: 1.1"]
    );
    // A Unicode line separator is no way to start a line either.
    let sep = "Mallory says, \"hi\u{2028}[Town Crier] Bot-Abel is dead.\"";
    assert_eq!(rendered(sep, None).len(), 1);
    assert!(!rendered(sep, Some(20)).iter().any(|l| forged(l)));
}

/// Whatever a person says, padded however, at any width from 10 to 500 or unwrapped, no
/// line that reaches the wire starts like the narrator's or like an out-of-band message,
/// and every word arrives whole.
#[test]
fn no_say_makes_a_line_that_starts_like_a_mark() {
    const BITS: &[&str] = &[
        "[Town Crier]",
        "[Town",
        "Crier]",
        "#$#mcp",
        "$#$chess-board",
        "#$\"",
        "***",
        "\u{200B}[",
        "♜é日本",
        "word",
        "a",
        "moot_a1_4f5e9a7c3b2d1e0f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6fc7761c987",
    ];
    let mut seed: u64 = 19;
    let mut next = |n: usize| {
        // xorshift64*
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    };
    for _ in 0..2000 {
        let mut text = String::new();
        for _ in 0..next(30) {
            match next(4) {
                0 => text.push_str(&"x".repeat(next(120))),
                _ => text.push_str(BITS[next(BITS.len())]),
            }
            text.push_str(&" ".repeat(1 + next(2)));
        }
        let line = format!("Mallory says, \"{text}\"");
        let width = 10 + next(491);
        for w in [Some(width), None] {
            let out = rendered(&line, w);
            assert!(out[0].starts_with("Mallory"), "{out:#?}");
            assert!(!out.iter().any(|l| forged(l)), "{w:?} {line:?}: {out:#?}");
            let words: Vec<&str> = out
                .iter()
                .flat_map(|l| l.split(' '))
                .filter(|w| !w.is_empty())
                .collect();
            let want: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
            assert_eq!(words, want, "{w:?}: {out:#?}");
        }
    }
}
