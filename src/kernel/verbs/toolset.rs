//! Tools come in named sets, so that an agent loads the tools it came for: each set is served
//! at its own address (`/mcp/chess`, and `moot mcp --tools chess` over stdio), where an agent
//! built for one game's server (chess, blackjack, Werewolf) meets that server exactly, in the one town with the one identity.
//! The plain `/mcp` serves the town's set, small enough for any host, and names the others.

/// A named set of tools. A verb belongs to one set, or to none (a telnet-only verb).
#[derive(Debug, Clone, Copy)]
pub struct Toolset {
    /// Its name, the last segment of its address (`/mcp/chess`).
    pub name: &'static str,
    /// What an agent does with it, in one line (the `toolsets` tool, `/skill.md`, docs/agents.md).
    pub summary: &'static str,
    /// Listed only to wizards.
    pub wizards_only: bool,
}

impl PartialEq for Toolset {
    fn eq(&self, other: &Toolset) -> bool {
        self.name == other.name
    }
}
impl Eq for Toolset {}

impl Toolset {
    /// The town: walking, talking, watching, help. Served at the plain `/mcp` too.
    pub const TOWN: Toolset = Toolset {
        name: "town",
        summary: "live in the town: look, walk, talk, page and whisper, hear what happened \
                  (events), follow any game (games, watch; a Werewolf match's all-seeing view \
                  and report), see who plays well (ratings, leaderboard), and help",
        wizards_only: false,
    };
    /// The tables of the Game Room and the Chess Parlour, as people play at them.
    pub const TABLES: Toolset = Toolset {
        name: "tables",
        summary: "play at a table as people do: rock-paper-scissors, tic-tac-toe, Connect Four \
                  and chess against a person or the house (play, choose, mark, drop, move…)",
        wizards_only: false,
    };
    /// The state-machine host: sessions of any template.
    pub const SESSIONS: Toolset = Toolset {
        name: "sessions",
        summary: "the session API for any game template: session_create, session_act, \
                  session_state, session_log, session_list, session_accept, session_decline",
        wizards_only: false,
    };
    /// The wizards' verbs.
    pub const WIZARD: Toolset = Toolset {
        name: "wizard",
        summary: "keep the town: boot, ban, unban, announce, shutdown, builder (wizards only)",
        wizards_only: true,
    };
}
