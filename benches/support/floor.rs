//! The floor under the telnet face: a server that answers `telnet_load`'s clients as moot does
//! (the same lines, on the same tokio runtime, one read and one write a command) and does
//! nothing else: no world, no verbs, no store. What moot spends per command beyond what this
//! spends is moot's own; what this spends is the sockets' and the runtime's, on this machine.

use std::collections::HashMap;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// Serves on `addr` until killed.
pub fn serve(addr: &str, rooms: usize, room_name: fn(usize) -> String) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async move {
        let listener = TcpListener::bind(addr).await.unwrap();
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(connection(stream, rooms, room_name));
        }
    });
}

async fn connection(stream: TcpStream, rooms: usize, room_name: fn(usize) -> String) {
    let _ = stream.set_nodelay(true);
    let (rd, mut wr) = stream.into_split();
    let mut rd = BufReader::with_capacity(512, rd);
    let exits: HashMap<String, usize> = (1..rooms).map(|i| (format!("r{i:02}"), i)).collect();
    let room_text = |room: usize| {
        format!(
            "{}\r\nA room for load.\r\nExits: {}\r\n",
            room_name(room),
            if room == 0 { "r01 ... " } else { "out" }
        )
    };
    let mut room = 0;
    let mut line = String::new();
    loop {
        line.clear();
        match rd.read_line(&mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let command = line.trim_end();
        let answer = if command.starts_with("connect ") {
            format!("*** Connected ***\r\n{}", room_text(room))
        } else if command == "home" {
            "You are already home.\r\n".to_owned()
        } else if let Some(said) = command.strip_prefix("say ") {
            format!("You say, \"{said}\"\r\n")
        } else if command == "look" {
            room_text(room)
        } else if command == "@quit" {
            let _ = wr.write_all(b"*** Disconnected ***\r\n").await;
            return;
        } else if let Some(&to) = exits.get(command) {
            room = to;
            room_text(room)
        } else if command == "out" {
            room = 0;
            room_text(room)
        } else {
            "I don't understand that.\r\n".to_owned()
        };
        if wr.write_all(answer.as_bytes()).await.is_err() {
            return;
        }
    }
}
