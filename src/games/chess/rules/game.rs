//! A chess game as the host sees any template: the [`Game`] contract, answered from the rules
//! next door.

use super::*;

impl Game for ChessGame {
    const TEMPLATE: &'static str = "chess.v1";
    const TITLE: &'static str = "chess";
    const ROLES: &'static [&'static str] = &["white", "black"];
    const SEQUENTIAL: bool = true;
    const TABLE: &'static str = "chess_table";
    const HOUSE_PLAYS: bool = true;
    const RESIGNS: bool = true;
    type Action = ChessAction;

    /// `options` may hold `{"fen": "<FEN>"}` to start from a given position, `clock` (`5+3`, or
    /// `3d` per move), and `computer_level` (1 to 10) for a game against the house's computer.
    /// Nothing else: a misspelt option is refused rather than silently ignored.
    fn new(_seed: u64, options: &Value) -> Result<ChessGame, GameError> {
        const OPTIONS: [&str; 3] = ["fen", "computer_level", "clock"];
        match options {
            Value::Null => {}
            Value::Object(o) => {
                if let Some(k) = o.keys().find(|k| !OPTIONS.contains(&k.as_str())) {
                    return Err(GameError::BadOptions(format!(
                        "chess.v1 has no option `{k}`; its options are fen, computer_level and clock"
                    )));
                }
                if let Some(l) = o.get("computer_level")
                    && !l.as_u64().is_some_and(|l| (1..=10).contains(&l))
                {
                    return Err(GameError::BadOptions(
                        "`computer_level` must be a whole number from 1 to 10".into(),
                    ));
                }
            }
            _ => {
                return Err(GameError::BadOptions(
                    "chess.v1's options must be an object".into(),
                ));
            }
        }
        let fen = match options.get("fen") {
            None | Some(Value::Null) => None,
            Some(Value::String(f)) => Some(f.trim().to_owned()),
            Some(_) => return Err(GameError::BadOptions("`fen` must be a string".into())),
        };
        let pos: shakmaty::Chess = match &fen {
            None => shakmaty::Chess::default(),
            Some(f) => f
                .parse::<Fen>()
                .map_err(|e| GameError::BadOptions(format!("`{f}` is not a FEN: {e}")))?
                .into_position(CastlingMode::Standard)
                .map_err(|e| {
                    GameError::BadOptions(format!("`{f}` is not a legal position: {e}"))
                })?,
        };
        let mut game = ChessGame {
            start_fen: fen.filter(|f| f != START_FEN).map(Arc::from),
            key: zobrist(&pos),
            fen: fen_of(&pos),
            pos,
            outcome: None,
            draw_offer: None,
            takeback_request: None,
            history: None,
            clock: match options.get("clock") {
                None | Some(Value::Null) => None,
                Some(Value::String(c)) if c == "none" => None,
                Some(Value::String(c)) => Some(TimeControl::parse(c)?),
                Some(_) => {
                    return Err(GameError::BadOptions(
                        "`clock` must be a string such as \"5+3\" or \"3d\"".into(),
                    ));
                }
            },
        };
        // A position given with no legal move is already over.
        if game.pos.is_checkmate() {
            game.outcome = Some(Outcome {
                winner: Some((!game.pos.turn()).into()),
                reason: EndReason::Checkmate,
            });
        } else if game.pos.is_stalemate() {
            game.outcome = Some(Outcome {
                winner: None,
                reason: EndReason::Stalemate,
            });
        } else if game.pos.is_insufficient_material() {
            game.outcome = Some(Outcome {
                winner: None,
                reason: EndReason::InsufficientMaterial,
            });
        }
        Ok(game)
    }

    fn legal_actions(&self, role: &str) -> Vec<String> {
        if self.outcome.is_some() || role != self.turn().name() {
            return Vec::new();
        }
        self.pos
            .legal_moves()
            .iter()
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect()
    }

    /// Besides the log's spelling (UCI, the control actions' names), a move in SAN (`Nf3`,
    /// `exd5`, `O-O`, `e8=Q+`), read against the position: the UCI move it means. SAN sent out
    /// of turn is refused as out of turn, as UCI is.
    fn parse(&self, role: &str, text: &str) -> Result<ChessAction, GameError> {
        let logged = text.parse::<ChessAction>();
        if logged.is_ok() {
            return logged;
        }
        let Ok(san) = text.trim().parse::<SanPlus>() else {
            return logged;
        };
        if Side::from_role(role).is_some_and(|side| side != self.turn()) {
            return Err(GameError::NotYourTurn);
        }
        let m = san
            .san
            .to_move(&self.pos)
            .map_err(|_| action::not_a_move(text))?;
        Ok(ChessAction::Move(m.to_uci(CastlingMode::Standard)))
    }

    /// Besides moves: `resign`, `offer_draw`, `accept_draw`, `decline_draw`,
    /// `request_takeback`, `accept_takeback`, `decline_takeback` (any time, either side).
    fn act(&self, role: &str, action: &ChessAction) -> Result<ChessGame, GameError> {
        let side = Side::from_role(role).ok_or_else(|| GameError::UnknownRole(role.to_owned()))?;
        match action {
            ChessAction::Control(c) => self.control(side, *c),
            _ if side != self.turn() => Err(GameError::NotYourTurn),
            ChessAction::Move(uci) => Ok(self.play(self.legal(uci, &uci.to_string())?)),
            ChessAction::Flag => Err(action::not_a_move("flag")),
        }
    }

    /// With a clock, the side to move is charged the time since its turn began, and gains the
    /// increment when it moves; with a time per move, the next side's time starts afresh. The
    /// server actor's only action is `flag`.
    fn act_at(
        &self,
        role: &str,
        action: &ChessAction,
        at: GameTime,
    ) -> Result<ChessGame, GameError> {
        if role == SERVER_ROLE {
            return match action {
                ChessAction::Flag => self.flag(at),
                _ => Err(GameError::Illegal(format!("The server cannot `{action}`"))),
            };
        }
        let mut next = self.act(role, action)?;
        let Some(mut clock) = self.clock else {
            return Ok(next);
        };
        if Game::deadline(self).is_some_and(|d| at >= d.at) {
            return Err(GameError::Illegal("Your time has run out".into()));
        }
        let mover = self.turn();
        let moved = matches!(action, ChessAction::Move(_));
        if moved || next.turn() != mover {
            clock.charge(mover, at, moved);
        }
        next.clock = Some(clock);
        Ok(next)
    }

    /// A clocked game's next flag-fall.
    fn deadline(&self) -> Option<Deadline<ChessAction>> {
        let clock = self.clock.as_ref()?;
        if self.outcome.is_some() {
            return None;
        }
        Some(Deadline {
            at: clock.due(self.turn()),
            action: ChessAction::Flag,
        })
    }

    /// The side to move, whose flag falls.
    fn owing(&self) -> Vec<&'static str> {
        match (&self.clock, self.outcome) {
            (Some(_), None) => vec![self.turn().name()],
            _ => Vec::new(),
        }
    }

    fn is_terminal(&self) -> bool {
        self.outcome.is_some()
    }

    const RECKONING: moot_game_api::Reckoning = moot_game_api::Reckoning::Rating;

    /// A table per time-control class (`no-clock`, `bullet`, `blitz`, `rapid`, `classical`,
    /// `correspondence`), as lichess keeps them. A game from a set position is never rated.
    fn table(options: &Value) -> Option<moot_game_api::Table> {
        let fen = options.get("fen").and_then(Value::as_str);
        if fen.is_some_and(|f| f.trim() != START_FEN) {
            return None;
        }
        let class = match options.get("clock").and_then(Value::as_str) {
            None => "no-clock",
            Some(c) => TimeControl::parse(c).ok()?.class(),
        };
        Some(moot_game_api::Table {
            class: class.to_owned(),
            rules: json!({ "class": class }),
        })
    }

    /// The computer's level's anchored rating (`computer::ANCHORS`).
    fn anchor(options: &Value) -> Option<f64> {
        let level = options
            .get("computer_level")
            .and_then(Value::as_u64)
            .map_or(computer::DEFAULT_LEVEL, |l| u8::try_from(l).unwrap_or(0));
        computer::anchor(level)
    }

    fn decided(&self) -> Option<Vec<moot_game_api::SideScore>> {
        // An aborted game decided nothing: nobody's rating, record or standing moves.
        let o = self.outcome.filter(|o| o.reason != EndReason::Aborted)?;
        let winner = o.winner.map(|w| usize::from(w == Side::Black));
        Some(moot_game_api::head_to_head(["white", "black"], winner))
    }

    fn state(&self) -> Value {
        let mut s = json!({
            "fen": self.fen(),
            "turn": self.turn().name(),
            "outcome": self.outcome,
            "last_move": self.last_move(),
            "check": self.pos.is_check(),
            "draw_offer": self.draw_offer,
            "takeback_request": self.takeback_request,
        });
        if let Some(f) = &self.start_fen {
            s["start_fen"] = json!(f);
        }
        if let Some(c) = &self.clock {
            s["clock"] = json!(c);
        }
        s
    }

    /// The text of [`Game::state`], written straight: every move stores it, and building the
    /// tree only to print it was a tenth of the move's cost. The keys go in the order the tree
    /// keeps them (sorted), and the rare nested values (a clock, an outcome) go through the tree,
    /// so the text is the same, byte for byte.
    fn state_text(&self) -> String {
        fn field(out: &mut Vec<u8>, key: &str, value: &impl Serialize) -> serde_json::Result<()> {
            out.push(if out.is_empty() { b'{' } else { b',' });
            serde_json::to_writer(&mut *out, key)?;
            out.push(b':');
            serde_json::to_writer(out, value)
        }
        let write = |out: &mut Vec<u8>| -> serde_json::Result<()> {
            field(out, "check", &self.pos.is_check())?;
            if let Some(c) = &self.clock {
                field(out, "clock", &serde_json::to_value(c)?)?;
            }
            field(out, "draw_offer", &self.draw_offer)?;
            field(out, "fen", &self.fen)?;
            field(out, "last_move", &self.last_move())?;
            field(out, "outcome", &serde_json::to_value(self.outcome)?)?;
            if let Some(f) = &self.start_fen {
                field(out, "start_fen", f)?;
            }
            field(out, "takeback_request", &self.takeback_request)?;
            field(out, "turn", &self.turn().name())?;
            out.push(b'}');
            Ok(())
        };
        let mut out = Vec::with_capacity(192);
        match write(&mut out).map(|()| String::from_utf8(out)) {
            Ok(Ok(text)) => text,
            _ => self.state().to_string(),
        }
    }

    /// Chess hides nothing: everyone sees the whole state.
    fn view(&self, _role: Option<&str>) -> Value {
        self.state()
    }

    fn headline(&self, role: &str, action: &ChessAction) -> String {
        match action {
            ChessAction::Control(c) => match c {
                Control::Resign => "resigns",
                Control::Abort => "aborts the game",
                Control::OfferDraw => "offers a draw",
                Control::AcceptDraw => "accepts the draw",
                Control::DeclineDraw => "declines the draw",
                Control::RequestTakeback => "asks to take back a move",
                Control::AcceptTakeback => "agrees to take back",
                Control::DeclineTakeback => "refuses to take back",
            }
            .to_owned(),
            ChessAction::Flag if role == SERVER_ROLE => match self.turn() {
                Side::White => "White's flag falls".to_owned(),
                Side::Black => "Black's flag falls".to_owned(),
            },
            _ => match self.last_san() {
                Some(san) => format!("plays {san}"),
                None => "has moved".to_owned(),
            },
        }
    }

    fn ending(&self) -> Option<String> {
        self.outcome
            .map(|o| format!("{} ({})", o.describe(), o.result()))
    }

    fn situation(&self) -> String {
        match self.ending() {
            Some(end) => end,
            None => format!(
                "{} to move, move {}",
                self.turn().name(),
                self.pos.fullmoves()
            ),
        }
    }

    fn render(&self, viewer: Option<&str>, r: Reading) -> Vec<String> {
        let from_black = viewer == Some(Side::Black.name());
        let mut lines = match r.plain {
            true => render::listed(&self.state(), self.last_san().as_deref()),
            false => render::board(&self.state(), from_black, self.last_san().as_deref()),
        };
        lines.extend(self.clock_lines(r));
        lines
    }

    fn glance(&self, _viewer: Option<&str>, ask: Glance<'_>, r: Reading) -> Option<String> {
        match ask {
            Glance::Clock => {
                let lines = self.clock_lines(r);
                (!lines.is_empty()).then(|| lines.join(" "))
            }
            Glance::Square(name) => render::square(&self.state(), name),
        }
    }
    fn picture(&self, viewer: Option<&str>) -> Option<Picture> {
        Some(Picture {
            board: tkmoo::board64(&self.pos),
            your_turn: self.outcome.is_none() && viewer == Some(self.turn().name()),
            side: viewer
                .and_then(Side::from_role)
                .unwrap_or(Side::White)
                .name(),
        })
    }

    fn computer(&self, role: &str, options: &Value, seed: u64) -> Option<Computer<ChessAction>> {
        computer::turn(self, role, options, seed)
    }
}

impl ChessGame {
    /// The clock as the viewer reads it: a per-move limit's time left (in the wall clock's
    /// time), or both sides' clocks (the time control's own); none for an untimed game.
    fn clock_lines(&self, r: Reading) -> Vec<String> {
        let now = r.now;
        let mut lines = Vec::new();
        if let Some(TimeControl::PerMove(l)) = &self.clock {
            // Only the side to move has a deadline; once over, there is none to show.
            lines.push(l.line(self.outcome.is_some(), self.turn().title(), "move", r));
        }
        if let Some(c) = self.clock() {
            let to_move = self.turn();
            let (w, b) = if self.outcome.is_some() {
                (c.white_ms, c.black_ms)
            } else {
                (
                    c.left_at(Side::White, to_move, now),
                    c.left_at(Side::Black, to_move, now),
                )
            };
            lines.push(format!(
                "Clock {}: White {}, Black {}.",
                c.control(),
                clock_text(w),
                clock_text(b)
            ));
        }
        lines
    }
}
