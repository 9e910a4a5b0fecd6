//! A minimal HTTP/1.1 client on one keep-alive connection, shared by the benchmarks: the load
//! generator shares the machine's two cores with the server, so it should spend as little of
//! them as it can (no pool, no generic JSON on the hot path).

use std::io::Write as _;
use std::net::SocketAddr;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

pub struct Conn {
    addr: SocketAddr,
    rd: BufReader<tokio::net::tcp::OwnedReadHalf>,
    wr: tokio::net::tcp::OwnedWriteHalf,
    req: Vec<u8>,
    line: Vec<u8>,
    /// The last answer's payload (for an event stream, its first event's data).
    pub body: Vec<u8>,
}

impl Conn {
    pub async fn open(addr: SocketAddr) -> Conn {
        let s = tokio::net::TcpStream::connect(addr).await.expect("connect");
        s.set_nodelay(true).unwrap();
        let (rd, wr) = s.into_split();
        Conn {
            addr,
            rd: BufReader::with_capacity(16 * 1024, rd),
            wr,
            req: Vec::new(),
            line: Vec::new(),
            body: Vec::new(),
        }
    }

    async fn chunk(&mut self) -> Vec<u8> {
        self.line.clear();
        self.rd
            .read_until(b'\n', &mut self.line)
            .await
            .expect("chunk size");
        let size =
            usize::from_str_radix(std::str::from_utf8(&self.line).unwrap().trim(), 16).unwrap();
        let mut chunk = vec![0; size + 2];
        self.rd.read_exact(&mut chunk).await.expect("chunk");
        chunk.truncate(size);
        chunk
    }

    /// POSTs `body` with `headers`; returns the status, with the payload in `self.body`.
    pub async fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &str) -> u16 {
        self.send("POST", path, headers, body).await
    }

    /// GETs `path`; returns the status, with the payload in `self.body`.
    #[allow(dead_code)]
    pub async fn get(&mut self, path: &str, headers: &[(&str, &str)]) -> u16 {
        self.send("GET", path, headers, "").await
    }

    async fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> u16 {
        self.req.clear();
        write!(
            self.req,
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            self.addr,
            body.len()
        )
        .unwrap();
        for (k, v) in headers {
            write!(self.req, "{k}: {v}\r\n").unwrap();
        }
        self.req.extend_from_slice(b"\r\n");
        self.req.extend_from_slice(body.as_bytes());
        self.wr.write_all(&self.req).await.expect("write");
        let (mut status, mut length, mut chunked, mut sse) = (0u16, 0usize, false, false);
        loop {
            self.line.clear();
            self.rd
                .read_until(b'\n', &mut self.line)
                .await
                .expect("read");
            let l = std::str::from_utf8(&self.line).unwrap().trim_end();
            if l.is_empty() {
                break;
            }
            if let Some(rest) = l.strip_prefix("HTTP/1.1 ") {
                status = rest[..3].parse().unwrap();
            } else if let Some((k, v)) = l.split_once(':') {
                let v = v.trim();
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.parse().unwrap();
                } else if k.eq_ignore_ascii_case("transfer-encoding") {
                    chunked = v.contains("chunked");
                } else if k.eq_ignore_ascii_case("content-type") {
                    sse = v.starts_with("text/event-stream");
                }
            }
        }
        self.body.clear();
        if chunked {
            // Read the whole stream (it ends after the answer), then keep the first event's data.
            let mut all = Vec::new();
            loop {
                let c = self.chunk().await;
                if c.is_empty() {
                    break;
                }
                all.extend_from_slice(&c);
            }
            let text = String::from_utf8_lossy(&all);
            let data = if sse {
                text.lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .unwrap_or("")
            } else {
                &text
            };
            self.body.extend_from_slice(data.as_bytes());
        } else {
            self.body.resize(length, 0);
            self.rd.read_exact(&mut self.body).await.expect("body");
        }
        status
    }

    /// The last answer as JSON (Null if it was none).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}
