//! Which telnet options a connection has agreed to, and the answer to each negotiation.
//!
//! On the default listener moot never starts a negotiation (tkMOO-light would print it); it only
//! answers: a client that offers NAWS gets `DO NAWS`, so its window width can drive the word
//! wrap, and every other offer is refused. On a listener started with `--telnet-negotiate`
//! (for Mudlet, TinTin++, MUSHclient) moot also offers GMCP and MSSP and asks for NAWS at once.
//! Each answer changes the state it answers, and nothing is answered that would not change it,
//! so no negotiation can loop (RFC 1143).

use super::codec::{Verb, negotiation};

/// Negotiate About Window Size (RFC 1073).
pub const NAWS: u8 = 31;
/// MUD Server Status Protocol: a listing's crawler asks for the server's figures.
pub const MSSP: u8 = 70;
/// Generic MUD Communication Protocol: JSON messages beside the text.
pub const GMCP: u8 = 201;

/// What the client said through the options it agreed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reported {
    /// Its window is this many columns wide.
    Width(u16),
    /// A GMCP message: its package (`Core.Hello`) and JSON body (or "").
    Gmcp(String, String),
}

/// What to do about a negotiation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Send these bytes.
    Send([u8; 3]),
    /// The client agreed to MSSP: send the server's figures.
    SendMssp,
}

#[derive(Debug, Default)]
pub struct Options {
    /// Whether this listener offers GMCP and MSSP and asks for NAWS (`--telnet-negotiate`).
    offering: bool,
    asked_naws: bool,
    naws: bool,
    gmcp: bool,
    /// The GMCP packages the client said it supports (`Core.Supports.Set`).
    supports: Vec<String>,
}

impl Options {
    pub fn new(offering: bool) -> Options {
        Options {
            offering,
            ..Options::default()
        }
    }

    /// What to send first on a new connection: nothing, or (when offering) WILL GMCP,
    /// WILL MSSP and DO NAWS.
    pub fn opening(&mut self) -> Vec<u8> {
        if !self.offering {
            return Vec::new();
        }
        self.asked_naws = true;
        [
            negotiation(Verb::Will, GMCP),
            negotiation(Verb::Will, MSSP),
            negotiation(Verb::Do, NAWS),
        ]
        .concat()
    }

    pub fn gmcp(&self) -> bool {
        self.gmcp
    }

    /// Whether the client takes a GMCP package (by its name or its parent's, e.g. `Room` for
    /// `Room.Info`); a client that named none is sent everything.
    pub fn wants(&self, package: &str) -> bool {
        self.gmcp
            && (self.supports.is_empty()
                || self
                    .supports
                    .iter()
                    .any(|s| package == s || package.starts_with(&format!("{s}."))))
    }

    /// The answer to the client's `IAC <verb> <opt>`, if one is due.
    pub fn negotiate(&mut self, verb: Verb, opt: u8) -> Option<Answer> {
        match (verb, opt) {
            (Verb::Will, NAWS) if !self.naws => {
                self.naws = true;
                // Asked already: this is the client's yes, not an offer to answer.
                (!std::mem::replace(&mut self.asked_naws, true))
                    .then(|| Answer::Send(negotiation(Verb::Do, NAWS)))
            }
            (Verb::Wont, NAWS) => {
                self.naws = false;
                None
            }
            (Verb::Will, NAWS) => None,
            (Verb::Do, GMCP) if self.offering => {
                self.gmcp = true;
                None
            }
            (Verb::Dont, GMCP) => {
                self.gmcp = false;
                None
            }
            (Verb::Do, MSSP) if self.offering => Some(Answer::SendMssp),
            (Verb::Will, o) => Some(Answer::Send(negotiation(Verb::Dont, o))),
            (Verb::Do, o) => Some(Answer::Send(negotiation(Verb::Wont, o))),
            (Verb::Wont | Verb::Dont, _) => None,
        }
    }

    /// What a subnegotiation says, if it is for an option agreed to and well formed.
    pub fn sub(&mut self, opt: u8, data: &[u8]) -> Option<Reported> {
        match (opt, data) {
            (NAWS, &[w1, w2, _, _]) if self.naws => {
                let width = u16::from_be_bytes([w1, w2]);
                // 0 means the client does not know.
                (width > 0).then_some(Reported::Width(width))
            }
            (GMCP, _) if self.gmcp => {
                let text = String::from_utf8_lossy(data);
                let (package, body) = text.split_once(' ').unwrap_or((&text, ""));
                if package.eq_ignore_ascii_case("Core.Supports.Set")
                    || package.eq_ignore_ascii_case("Core.Supports.Add")
                {
                    // ["Room 1", "Comm.Channel 1", …]: names with versions; a few dozen at most.
                    let names: Vec<String> = serde_json::from_str::<Vec<String>>(body)
                        .unwrap_or_default()
                        .into_iter()
                        .filter_map(|s| s.split_whitespace().next().map(str::to_owned))
                        .take(64)
                        .collect();
                    if package.eq_ignore_ascii_case("Core.Supports.Set") {
                        self.supports = names;
                    } else {
                        self.supports.extend(names);
                        self.supports.truncate(64);
                    }
                }
                Some(Reported::Gmcp(package.to_owned(), body.to_owned()))
            }
            _ => None,
        }
    }
}

/// A GMCP message's bytes: `IAC SB GMCP <package> <json> IAC SE`.
pub fn gmcp_message(package: &str, body: &serde_json::Value) -> Vec<u8> {
    super::codec::subnegotiation(GMCP, format!("{package} {body}").as_bytes())
}

/// MSSP's figures (`IAC SB MSSP MSSP_VAR name MSSP_VAL value … IAC SE`), for MUD listings.
pub fn mssp_message(vars: &[(&str, String)]) -> Vec<u8> {
    let mut data = Vec::new();
    for (name, value) in vars {
        data.push(1);
        data.extend_from_slice(name.as_bytes());
        data.push(2);
        data.extend_from_slice(value.as_bytes());
    }
    super::codec::subnegotiation(MSSP, &data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telnet::codec::IAC;

    #[test]
    fn naws_is_accepted_once_and_other_offers_refused() {
        let mut o = Options::default();
        assert_eq!(
            o.opening(),
            Vec::<u8>::new(),
            "the default listener starts nothing"
        );
        assert_eq!(o.sub(NAWS, &[0, 100, 0, 40]), None, "not agreed yet");
        assert_eq!(
            o.negotiate(Verb::Will, NAWS),
            Some(Answer::Send([IAC, Verb::Do.byte(), NAWS]))
        );
        assert_eq!(o.negotiate(Verb::Will, NAWS), None, "no loop");
        assert_eq!(o.sub(NAWS, &[0, 100, 0, 40]), Some(Reported::Width(100)));
        assert_eq!(o.sub(NAWS, &[0, 0, 0, 40]), None, "0 is unknown");
        assert_eq!(o.sub(NAWS, &[0, 100]), None, "malformed");
        assert_eq!(
            o.negotiate(Verb::Will, 24),
            Some(Answer::Send([IAC, Verb::Dont.byte(), 24]))
        );
        assert_eq!(
            o.negotiate(Verb::Do, GMCP),
            Some(Answer::Send([IAC, Verb::Wont.byte(), GMCP])),
            "no GMCP unless the listener offers it"
        );
        assert_eq!(o.negotiate(Verb::Dont, 1), None);
        assert_eq!(o.negotiate(Verb::Wont, NAWS), None);
        assert_eq!(o.sub(NAWS, &[0, 100, 0, 40]), None, "withdrawn");
    }

    #[test]
    fn an_offering_listener_agrees_gmcp_and_mssp_and_hears_what_the_client_supports() {
        let mut o = Options::new(true);
        assert_eq!(
            o.opening(),
            [IAC, 251, GMCP, IAC, 251, MSSP, IAC, 253, NAWS],
            "WILL GMCP, WILL MSSP, DO NAWS"
        );
        assert_eq!(o.negotiate(Verb::Will, NAWS), None, "the client's yes");
        assert_eq!(o.negotiate(Verb::Do, GMCP), None);
        assert!(o.gmcp() && o.wants("Room.Info"), "everything until it says");
        assert_eq!(o.negotiate(Verb::Do, MSSP), Some(Answer::SendMssp));
        let said = o.sub(GMCP, br#"Core.Supports.Set ["Room 1", "Comm.Channel 1"]"#);
        assert!(matches!(said, Some(Reported::Gmcp(p, _)) if p == "Core.Supports.Set"));
        assert!(o.wants("Room.Info") && o.wants("Comm.Channel.Text"));
        assert!(!o.wants("Moot.Chess.Board"));
        o.sub(GMCP, br#"Core.Supports.Add ["Moot.Chess 1"]"#);
        assert!(o.wants("Moot.Chess.Board"));
    }
}
