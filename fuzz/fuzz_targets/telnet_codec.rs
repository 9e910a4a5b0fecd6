//! The telnet codec: any bytes, cut into any chunks, decode without panicking, and no line it
//! yields is longer than the limit.
#![no_main]

use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use moot::telnet::{Input, TelnetCodec};
use tokio_util::codec::Decoder;

const MAX: usize = 256;

fuzz_target!(|data: &[u8]| {
    let Some((&cut, data)) = data.split_first() else {
        return;
    };
    let step = usize::from(cut).max(1);
    let mut codec = TelnetCodec::new(MAX);
    let mut buf = BytesMut::new();
    for chunk in data.chunks(step) {
        buf.extend_from_slice(chunk);
        while let Ok(Some(input)) = codec.decode(&mut buf) {
            if let Input::Line(line) = input {
                assert!(line.len() <= MAX, "a line of {} bytes", line.len());
            }
        }
    }
    let _ = codec.decode_eof(&mut buf);
});
