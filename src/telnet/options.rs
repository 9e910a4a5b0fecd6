//! Which telnet options a connection has agreed to, and the answer to each negotiation. moot
//! never starts a negotiation on the default listener (tkMOO-light would print it); it only
//! answers. A client that offers NAWS gets `DO NAWS`, so its window width can drive the word
//! wrap; every other offer is refused. Each answer changes the state it answers, and nothing is
//! answered that would not change it, so no negotiation can loop (RFC 1143).

use super::codec::{Verb, negotiation};

/// Negotiate About Window Size (RFC 1073).
pub const NAWS: u8 = 31;

/// What the client reported through the options it agreed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reported {
    /// Its window is this many columns wide.
    Width(u16),
}

#[derive(Debug, Default)]
pub struct Options {
    naws: bool,
}

impl Options {
    /// The answer to the client's `IAC <verb> <opt>`, if one is due.
    pub fn negotiate(&mut self, verb: Verb, opt: u8) -> Option<[u8; 3]> {
        match (verb, opt) {
            (Verb::Will, NAWS) if !self.naws => {
                self.naws = true;
                Some(negotiation(Verb::Do, NAWS))
            }
            (Verb::Wont, NAWS) => {
                self.naws = false;
                None
            }
            (Verb::Will, NAWS) => None,
            (Verb::Will, o) => Some(negotiation(Verb::Dont, o)),
            (Verb::Do, o) => Some(negotiation(Verb::Wont, o)),
            (Verb::Wont | Verb::Dont, _) => None,
        }
    }

    /// What a subnegotiation says, if it is for an option agreed to and well formed.
    pub fn sub(&self, opt: u8, data: &[u8]) -> Option<Reported> {
        match (opt, data) {
            (NAWS, &[w1, w2, _, _]) if self.naws => {
                let width = u16::from_be_bytes([w1, w2]);
                // 0 means the client does not know.
                (width > 0).then_some(Reported::Width(width))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telnet::codec::IAC;

    #[test]
    fn naws_is_accepted_once_and_other_offers_refused() {
        let mut o = Options::default();
        assert_eq!(o.sub(NAWS, &[0, 100, 0, 40]), None, "not agreed yet");
        assert_eq!(
            o.negotiate(Verb::Will, NAWS),
            Some([IAC, Verb::Do.byte(), NAWS])
        );
        assert_eq!(o.negotiate(Verb::Will, NAWS), None, "no loop");
        assert_eq!(o.sub(NAWS, &[0, 100, 0, 40]), Some(Reported::Width(100)));
        assert_eq!(o.sub(NAWS, &[0, 0, 0, 40]), None, "0 is unknown");
        assert_eq!(o.sub(NAWS, &[0, 100]), None, "malformed");
        assert_eq!(
            o.negotiate(Verb::Will, 24),
            Some([IAC, Verb::Dont.byte(), 24])
        );
        assert_eq!(o.negotiate(Verb::Do, 1), Some([IAC, Verb::Wont.byte(), 1]));
        assert_eq!(o.negotiate(Verb::Dont, 1), None);
        assert_eq!(o.negotiate(Verb::Wont, NAWS), None);
        assert_eq!(o.sub(NAWS, &[0, 100, 0, 40]), None, "withdrawn");
    }
}
