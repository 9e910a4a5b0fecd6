//! Bytes from a telnet or MUD client → lines. Telnet sequences are always parsed and removed,
//! whether or not the client negotiates, because MUD clients and raw sockets both send them:
//!
//! - `IAC IAC` is a literal 0xFF byte;
//! - `IAC SB <opt> … IAC SE` (subnegotiation) is reported with its payload, up to
//!   [`MAX_SUB`] bytes (a longer one is dropped whole);
//! - `IAC WILL/WONT/DO/DONT <opt>` is reported; [`super::options`] decides the answer;
//! - other `IAC <cmd>` (NOP, GA, AYT…) are dropped;
//! - CR LF, CR NUL, a lone CR and a lone LF all end a line.
//!
//! A line longer than the limit is not kept: its bytes are discarded as they arrive and, at its
//! end, [`Input::TooLong`] is reported once, so a huge line costs no memory.

use bytes::{Buf, BytesMut};
use tokio_util::codec::Decoder;

pub const IAC: u8 = 255;
const DONT: u8 = 254;
const DO: u8 = 253;
const WONT: u8 = 252;
const WILL: u8 = 251;
const SB: u8 = 250;
const SE: u8 = 240;

/// The largest subnegotiation kept (a GMCP message from a client is small).
pub const MAX_SUB: usize = 8 * 1024;

/// One of the four negotiation verbs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Will,
    Wont,
    Do,
    Dont,
}

impl Verb {
    pub fn byte(self) -> u8 {
        match self {
            Verb::Will => WILL,
            Verb::Wont => WONT,
            Verb::Do => DO,
            Verb::Dont => DONT,
        }
    }

    fn of(b: u8) -> Option<Verb> {
        match b {
            WILL => Some(Verb::Will),
            WONT => Some(Verb::Wont),
            DO => Some(Verb::Do),
            DONT => Some(Verb::Dont),
            _ => None,
        }
    }
}

/// `IAC <verb> <opt>`, ready to send.
pub fn negotiation(verb: Verb, opt: u8) -> [u8; 3] {
    [IAC, verb.byte(), opt]
}

/// `IAC SB <opt> <data> IAC SE`, with any 0xFF in `data` doubled.
pub fn subnegotiation(opt: u8, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 6);
    out.extend_from_slice(&[IAC, SB, opt]);
    for &b in data {
        out.push(b);
        if b == IAC {
            out.push(IAC);
        }
    }
    out.extend_from_slice(&[IAC, SE]);
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// A complete line, decoded as UTF-8 (invalid sequences replaced by U+FFFD).
    Line(String),
    /// A line over the limit ended; it was dropped.
    TooLong,
    /// The client negotiated an option.
    Negotiate(Verb, u8),
    /// The client sent a subnegotiation: the option and its payload (IAC IAC undoubled).
    Sub(u8, Vec<u8>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Data,
    /// Just ended a line with CR: a following LF or NUL belongs to it.
    Cr,
    Iac,
    /// Read `IAC <verb>`, waiting for the option byte.
    Verb(Verb),
    /// After `IAC SB`, waiting for the option byte.
    SbOpt,
    Sb,
    SbIac,
}

#[derive(Debug)]
pub struct TelnetCodec {
    state: State,
    line: Vec<u8>,
    max: usize,
    overflow: bool,
    /// The subnegotiation being read: its option and payload (`None` once it outgrew
    /// [`MAX_SUB`]).
    sub: Option<(u8, Vec<u8>)>,
}

impl TelnetCodec {
    pub fn new(max_line: usize) -> TelnetCodec {
        TelnetCodec {
            state: State::Data,
            line: Vec::new(),
            max: max_line,
            overflow: false,
            sub: None,
        }
    }

    fn push(&mut self, b: u8) {
        if self.overflow {
            return;
        }
        if self.line.len() >= self.max {
            self.overflow = true;
            self.line = Vec::new();
        } else {
            self.line.push(b);
        }
    }

    /// [`push`](Self::push) for a run of plain bytes at once.
    fn push_run(&mut self, run: &[u8]) {
        if self.overflow || run.is_empty() {
            return;
        }
        if self.line.len() + run.len() > self.max {
            self.overflow = true;
            self.line = Vec::new();
        } else if self.line.is_empty() {
            // A line that comes in one piece, as nearly every one does, is copied once at its
            // size (growing an empty buffer took twice the instructions).
            self.line = run.to_vec();
        } else {
            self.line.extend_from_slice(run);
        }
    }

    fn end_line(&mut self) -> Input {
        if std::mem::take(&mut self.overflow) {
            Input::TooLong
        } else {
            // The bytes become the line as they are, without a copy, when they are UTF-8.
            let line = match String::from_utf8(std::mem::take(&mut self.line)) {
                Ok(valid) => valid,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            };
            // Each invalid byte becomes a three-byte U+FFFD: the limit holds for the line as
            // decoded, so that no text argument from telnet outgrows the one from any face.
            if line.len() > self.max {
                Input::TooLong
            } else {
                Input::Line(line)
            }
        }
    }

    fn sub_push(&mut self, b: u8) {
        if let Some((_, data)) = &mut self.sub {
            if data.len() >= MAX_SUB {
                self.sub = None;
            } else {
                data.push(b);
            }
        }
    }

    /// Feeds one byte; returns what it completes, if anything.
    fn byte(&mut self, b: u8) -> Option<Input> {
        match self.state {
            State::Cr => {
                self.state = State::Data;
                if b == b'\n' || b == 0 {
                    return None;
                }
                self.byte(b)
            }
            State::Data => match b {
                IAC => {
                    self.state = State::Iac;
                    None
                }
                b'\r' => {
                    self.state = State::Cr;
                    Some(self.end_line())
                }
                b'\n' => Some(self.end_line()),
                _ => {
                    self.push(b);
                    None
                }
            },
            State::Iac => {
                self.state = match b {
                    IAC => {
                        self.push(IAC);
                        State::Data
                    }
                    SB => State::SbOpt,
                    _ => Verb::of(b).map_or(State::Data, State::Verb),
                };
                None
            }
            State::Verb(verb) => {
                self.state = State::Data;
                Some(Input::Negotiate(verb, b))
            }
            State::SbOpt => {
                self.state = State::Sb;
                self.sub = Some((b, Vec::new()));
                None
            }
            State::Sb => {
                if b == IAC {
                    self.state = State::SbIac;
                } else {
                    self.sub_push(b);
                }
                None
            }
            State::SbIac => match b {
                SE => {
                    self.state = State::Data;
                    self.sub.take().map(|(opt, data)| Input::Sub(opt, data))
                }
                IAC => {
                    self.state = State::Sb;
                    self.sub_push(IAC);
                    None
                }
                _ => {
                    self.state = State::Sb;
                    None
                }
            },
        }
    }
}

impl Decoder for TelnetCodec {
    type Item = Input;
    type Error = std::io::Error;

    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Input>, std::io::Error> {
        // Asked again after every line, before the connection reads: nothing to do.
        if src.is_empty() {
            return Ok(None);
        }
        let mut used = 0;
        let mut found = None;
        while let Some(rest) = src.get(used..) {
            // Between a line's ends and telnet's commands, bytes are only kept: a run of them
            // is taken in one go, and the state machine sees only the byte that ends it.
            if self.state == State::Data {
                let run = rest
                    .iter()
                    .position(|&b| matches!(b, IAC | b'\r' | b'\n'))
                    .unwrap_or(rest.len());
                self.push_run(rest.get(..run).unwrap_or_default());
                used += run;
            }
            let Some(&b) = src.get(used) else {
                break;
            };
            used += 1;
            if let Some(input) = self.byte(b) {
                // The LF (or NUL) after a CR that came with it is taken now, not on the next
                // call, which then finds nothing left.
                if self.state == State::Cr
                    && let Some(b'\n' | 0) = src.get(used)
                {
                    used += 1;
                    self.state = State::Data;
                }
                found = Some(input);
                break;
            }
        }
        src.advance(used);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8], max: usize) -> Vec<Input> {
        let mut codec = TelnetCodec::new(max);
        let mut buf = BytesMut::from(bytes);
        let mut out = Vec::new();
        while let Some(i) = codec.decode(&mut buf).unwrap() {
            out.push(i);
        }
        out
    }

    /// The same bytes arriving `step` at a time, as a slow link or a client's keystrokes bring
    /// them.
    fn in_steps(bytes: &[u8], max: usize, step: usize) -> Vec<Input> {
        let mut codec = TelnetCodec::new(max);
        let mut buf = BytesMut::new();
        let mut out = Vec::new();
        for chunk in bytes.chunks(step) {
            buf.extend_from_slice(chunk);
            while let Some(i) = codec.decode(&mut buf).unwrap() {
                out.push(i);
            }
        }
        out
    }

    /// Runs of plain bytes are taken whole: however the bytes arrive, the lines and commands
    /// are the same, and a line of exactly the limit is kept while one byte more is not.
    #[test]
    fn bytes_decode_the_same_however_they_arrive() {
        let input = [
            b"look\r\n".as_slice(),
            b"say caf\xc3\xa9\r\0",
            &[IAC, DO, 1, b'a', IAC, IAC, b'b', IAC, 241, b'\n'],
            &[IAC, SB, 24, 0, b'v', b't', IAC, SE],
            b"1234567890\n12345678901\n\r\n",
            b"x\ry\n\nlast without end",
        ]
        .concat();
        let whole = all(&input, 10);
        assert_eq!(
            whole,
            [
                line("look"),
                line("say caf\u{e9}"),
                Input::Negotiate(Verb::Do, 1),
                line("a\u{fffd}b"),
                Input::Sub(24, vec![0, b'v', b't']),
                line("1234567890"),
                Input::TooLong,
                line(""),
                line("x"),
                line("y"),
                line(""),
            ]
        );
        for step in 1..input.len() {
            assert_eq!(in_steps(&input, 10, step), whole, "{step} bytes at a time");
        }
    }

    fn line(s: &str) -> Input {
        Input::Line(s.into())
    }

    #[test]
    fn every_line_ending_ends_a_line() {
        assert_eq!(
            all(b"a\r\nb\nc\r\0d\re\n", 100),
            [line("a"), line("b"), line("c"), line("d"), line("e")]
        );
    }

    #[test]
    fn telnet_sequences_are_removed_and_reported() {
        let input = [
            b"lo".as_slice(),
            &[IAC, DO, 1],
            b"ok",
            &[IAC, WILL, 31],
            &[IAC, IAC],
            b"!\n",
        ]
        .concat();
        assert_eq!(
            all(&input, 100),
            [
                Input::Negotiate(Verb::Do, 1),
                Input::Negotiate(Verb::Will, 31),
                Input::Line("look\u{fffd}!".into())
            ]
        );
        // A literal 0xFF alone is invalid UTF-8; inside a valid sequence it could never occur.
        let sub = [
            b"a".as_slice(),
            &[IAC, SB, 24, 0, b'x', IAC, IAC, b'y', IAC, SE],
            b"b\n",
        ]
        .concat();
        assert_eq!(
            all(&sub, 100),
            [Input::Sub(24, vec![0, b'x', IAC, b'y']), line("ab")]
        );
        assert_eq!(
            all(&[IAC, WONT, 1, IAC, DONT, 3, IAC, 241, b'z', b'\n'], 100),
            [
                Input::Negotiate(Verb::Wont, 1),
                Input::Negotiate(Verb::Dont, 3),
                line("z")
            ]
        );
    }

    #[test]
    fn sequences_split_across_reads_still_parse() {
        let mut codec = TelnetCodec::new(100);
        let mut buf = BytesMut::from(&[b'h', IAC][..]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        buf.extend_from_slice(&[DO]);
        assert_eq!(codec.decode(&mut buf).unwrap(), None);
        buf.extend_from_slice(&[24, b'i', b'\r']);
        assert_eq!(
            codec.decode(&mut buf).unwrap(),
            Some(Input::Negotiate(Verb::Do, 24))
        );
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(line("hi")));
        buf.extend_from_slice(b"\nnext\n");
        assert_eq!(codec.decode(&mut buf).unwrap(), Some(line("next")));
    }

    #[test]
    fn an_overlong_line_is_dropped_once() {
        let mut input = vec![b'x'; 5000];
        input.extend_from_slice(b"\nshort\n");
        assert_eq!(all(&input, 4096), [Input::TooLong, line("short")]);
        let exact = [vec![b'y'; 4096], b"\n".to_vec()].concat();
        assert_eq!(all(&exact, 4096), [line(&"y".repeat(4096))]);
    }

    #[test]
    fn a_subnegotiation_past_the_bound_is_dropped_and_its_end_found() {
        let mut input = vec![IAC, SB, 201];
        input.extend(std::iter::repeat_n(b'x', MAX_SUB + 10));
        input.extend_from_slice(&[IAC, SE, b'o', b'k', b'\n']);
        assert_eq!(all(&input, 100), [line("ok")]);
    }

    #[test]
    fn a_subnegotiation_doubles_its_iacs_on_the_way_out() {
        let out = subnegotiation(31, &[0, 255, 0, 24]);
        assert_eq!(out, [IAC, SB, 31, 0, IAC, IAC, 0, 24, IAC, SE]);
        assert_eq!(all(&out, 100), [Input::Sub(31, vec![0, 255, 0, 24])]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(all(b"caf\xc3\xa9 \xc3(\n", 100), [line("café \u{fffd}(")]);
    }

    /// Found by the `telnet_codec` fuzz target: 85 invalid bytes fit a 256-byte limit, but
    /// decoded to 255 bytes of U+FFFD and more.
    #[test]
    fn the_limit_holds_for_the_decoded_line() {
        let mut input = vec![0xCF; 200];
        input.extend_from_slice(b"\r\nok\r\n");
        assert_eq!(all(&input, 256), [Input::TooLong, line("ok")]);
    }
}
