//! A Werewolf match as the host sees any template: the [`Game`] contract, answered from the
//! rules in this folder.

use super::*;

impl Game for Werewolf {
    const TEMPLATE: &'static str = "werewolf.v1";
    const ROLES: &'static [&'static str] = &ROLES;
    const SEQUENTIAL: bool = false;
    const TABLE: &'static str = "werewolf_hall";
    const HOUSE_PLAYS: bool = true;
    const TITLE: &'static str = "Werewolf";
    const HIDES_ACTIONS: bool = true;
    const SECLUDES: bool = true;
    type Action = Action;
    const RECKONING: moot_game_api::Reckoning = moot_game_api::Reckoning::Rating;

    /// A configuration is a season: the timers, the chat gaps and the day limit make the table
    /// (the players' names and the bots' seats do not). A match whose spectators see everything
    /// live cannot be rated: a player could learn from a friend watching.
    fn table(options: &Value) -> Option<moot_game_api::Table> {
        let mut config = Config::from_options(options).ok()?;
        if config.spectating == config::Spectating::Live {
            return None;
        }
        config.names.clear();
        config.bots.clear();
        Some(moot_game_api::Table {
            class: String::new(),
            rules: serde_json::to_value(config).ok()?,
        })
    }

    /// Each side is rated on its own table (`werewolf/village`, `werewolf/wolves`); a match
    /// that reached the day limit is drawn.
    fn decided(&self) -> Option<Vec<moot_game_api::SideScore>> {
        if self.phase != Phase::Ended {
            return None;
        }
        let (village, wolves) = match self.winner {
            Some(Team::Villagers) => (1.0, 0.0),
            Some(Team::Werewolves) => (0.0, 1.0),
            None => (0.5, 0.5),
        };
        // Each seat is rated on its side's board, and on its card's (`werewolf/seer`) too.
        let (mut v, mut w) = ((Vec::new(), Vec::new()), (Vec::new(), Vec::new()));
        for (player, role) in self.players.iter().zip(ROLES) {
            let part = match player.card {
                Card::Werewolf => "wolf",
                Card::Seer => "seer",
                Card::Doctor => "doctor",
                Card::Villager => "villager",
            };
            let side = if player.card == Card::Werewolf {
                &mut w
            } else {
                &mut v
            };
            side.0.push(role);
            side.1.push(part);
        }
        Some(vec![
            moot_game_api::SideScore {
                side: "village",
                roles: v.0,
                score: village,
                parts: v.1,
            },
            moot_game_api::SideScore {
                side: "wolves",
                roles: w.0,
                score: wolves,
                parts: w.1,
            },
        ])
    }

    fn new(seed: u64, options: &Value) -> Result<Werewolf, GameError> {
        let config = Config::from_options(options)?;
        let mut w = Werewolf {
            players: Vec::new(),
            config: Arc::new(config),
            seed,
            draws: 0,
            phase: Phase::Lobby,
            day: 0,
            phase_started: 0,
            phase_ends: 0,
            settled_at: None,
            night: Night::default(),
            last_protected: None,
            openings: Openings::default(),
            votes: BTreeMap::new(),
            condemned: None,
            last_public: [None; SEATS],
            last_wolf_chat: [None; SEATS],
            winner: None,
            nights: Vec::new(),
            days: Vec::new(),
            events: Vec::new(),
            counts: events::Counts::default(),
            fresh: 0,
            now: 0,
        };
        // Fisher–Yates from the secret seed.
        let mut deck = DECK;
        for i in (1..SEATS).rev() {
            let j = w.random(i + 1);
            deck.swap(i, j);
        }
        w.players = (0..SEATS)
            .map(|s| Player {
                name: w
                    .config
                    .names
                    .get(s)
                    .cloned()
                    .unwrap_or_else(|| format!("Player {}", s + 1)),
                card: deck[s],
                alive: true,
                ready: false,
                misses: 0,
                night_misses: 0,
                bot: w.config.bots.contains(&(s as u8 + 1)),
                death: None,
            })
            .collect();
        w.phase_ends = Config::ms(w.config.timers.lobby);
        let seated: Vec<Value> = (0..SEATS)
            .map(|s| {
                json!({
                    "playerId": player_id(s),
                    "displayName": w.players[s].name,
                    "seat": s + 1,
                    "bot": w.players[s].bot,
                })
            })
            .collect();
        let line = text::created_line(&w);
        w.emit(
            0,
            Vis::Public,
            Kind::MatchCreated,
            json!({ "players": seated, "phaseEndsAt": w.phase_ends }),
            line,
        );
        let wolves: Vec<Seat> = (0..SEATS).filter(|&s| deck[s] == Card::Werewolf).collect();
        for (s, &card) in deck.iter().enumerate() {
            let mut payload = json!({ "playerId": player_id(s), "role": card.name() });
            if card == Card::Werewolf {
                payload["knownWolves"] =
                    json!(wolves.iter().map(|&x| player_id(x)).collect::<Vec<_>>());
            }
            let line = text::role_card_line(&w, s);
            w.emit(0, Vis::Private(vec![s]), Kind::RoleAssigned, payload, line);
        }
        Ok(w)
    }

    fn legal_actions(&self, role: &str) -> Vec<String> {
        let Some(seat) = seat_of(role) else {
            return Vec::new();
        };
        let p = &self.players[seat];
        let ids = |v: Vec<Seat>| v.into_iter().map(player_id);
        match self.phase {
            Phase::Lobby if !p.ready => vec!["ready".to_owned()],
            Phase::Night | Phase::DayVote => {
                let req = self.required(seat);
                let verb = match req.kind {
                    "WOLF_KILL" => "kill",
                    "SEER_INSPECT" if !req.done => "inspect",
                    "DOCTOR_PROTECT" => "protect",
                    "VOTE" => "vote",
                    _ => return Vec::new(),
                };
                let mut v: Vec<String> = ids(req.targets).map(|t| format!("{verb} {t}")).collect();
                if req.can_abstain {
                    v.push("vote none".to_owned());
                }
                v
            }
            Phase::DayOpening if self.openings.speaker() == Some(seat) => {
                vec!["say <text>".to_owned(), "pass".to_owned()]
            }
            Phase::DayDiscussion if p.alive => vec!["say <text>".to_owned()],
            Phase::DayResolution if self.condemned == Some((seat, false)) => {
                vec!["say <text>".to_owned()]
            }
            _ => Vec::new(),
        }
    }

    /// Besides the log's spelling, a reply names the event it answers by the replier's own
    /// id for it (see [`Werewolf::reply`]).
    fn parse(&self, role: &str, text: &str) -> Result<Action, GameError> {
        let action = text.parse::<Action>()?;
        match (&action, seat_of(role)) {
            (Action::Reply { to, text }, Some(seat)) => Ok(self.reply(seat, to, text)),
            _ => Ok(action),
        }
    }

    fn act(&self, role: &str, action: &Action) -> Result<Werewolf, GameError> {
        self.act_at(role, action, self.now)
    }

    fn act_at(&self, role: &str, action: &Action, at: GameTime) -> Result<Werewolf, GameError> {
        let mut next = self.clone();
        next.fresh = next.events.len();
        next.now = at.max(self.now);
        let at = next.now;
        if role == SERVER_ROLE {
            let due = self
                .next_deadline()
                .filter(|d| *action == d.action && at >= d.at);
            if due.is_none() {
                return Err(GameError::Illegal(format!(
                    "`{action}` is not the deadline that is due"
                )));
            }
            next.timeout(at);
        } else {
            let seat = seat_of(role).ok_or_else(|| GameError::UnknownRole(role.to_owned()))?;
            next.perform(seat, action, at)?;
        }
        Ok(next)
    }

    fn deadline(&self) -> Option<Deadline<Action>> {
        self.next_deadline()
    }

    fn owing(&self) -> Vec<&'static str> {
        self.owing_seats().into_iter().map(player_id).collect()
    }

    fn is_terminal(&self) -> bool {
        self.phase == Phase::Ended
    }

    fn state(&self) -> Value {
        text::stored_state(self)
    }

    fn view(&self, role: Option<&str>) -> Value {
        let reader = role.and_then(seat_of).map_or(Reader::Public, Reader::Seat);
        self.state_for(reader, 20)
    }

    fn action_view(&self, viewer: Option<&str>, actor: &str, action: &Action) -> Option<String> {
        // Night actions and wolf chat are the actor's secret (and the wolves' for theirs).
        // Even that one was taken is: only a night role acts at night.
        // Once the match is over, everyone may read everything.
        let secret = action.is_night_work() && self.phase != Phase::Ended;
        // A reply reads with the reader's own id for the event it answers.
        if let Action::Reply { to, text } = action
            && let Some(k) = to.strip_prefix('@')
        {
            let reader = viewer
                .and_then(seat_of)
                .map_or(Reader::Public, Reader::Seat);
            let id = k
                .parse()
                .ok()
                .and_then(|k| self.event_at(Reader::Public, k))
                .and_then(|e| e.place.id_for(reader))
                .unwrap_or_default();
            return Some(format!("reply {id} {text}"));
        }
        if !secret || viewer == Some(actor) {
            return Some(action.to_string());
        }
        let both_wolves = [Some(actor), viewer].iter().all(|r| {
            r.and_then(seat_of)
                .is_some_and(|s| self.players[s].card == Card::Werewolf)
        });
        (matches!(action, Action::Kill(_) | Action::WolfChat(_)) && both_wolves)
            .then(|| action.to_string())
    }

    fn headline(&self, _role: &str, _action: &Action) -> String {
        // Everything a match says goes out as its events, each to its own audience.
        String::new()
    }

    /// The match's opening and each player's card, told as the match is made (a villager
    /// has no night brief to learn it from).
    fn opening_notes(&self) -> Vec<Note> {
        self.fresh_notes()
    }

    /// The living hear the match alone while it runs: the cards are dealt from the start.
    fn secluded(&self, role: &str) -> bool {
        self.phase != Phase::Ended
            && seat_of(role)
                .and_then(|s| self.players.get(s))
                .is_some_and(|p| p.alive)
    }

    fn notes(&self, _role: &str, _action: &Action) -> Vec<Note> {
        self.fresh_notes()
    }

    fn situation(&self) -> String {
        match self.phase {
            Phase::Ended => self.ending().unwrap_or_default(),
            p => format!(
                "{}, day {}, {} alive",
                p.name().to_lowercase().replace('_', " "),
                self.day,
                self.living().count()
            ),
        }
    }

    fn ending(&self) -> Option<String> {
        (self.phase == Phase::Ended).then(|| match self.winner {
            Some(Team::Villagers) => "the villagers win".to_owned(),
            Some(Team::Werewolves) => "the werewolves win".to_owned(),
            None => "no winner (day limit)".to_owned(),
        })
    }

    fn render(&self, viewer: Option<&str>, r: Reading) -> Vec<String> {
        let reader = viewer
            .and_then(seat_of)
            .map_or(Reader::Public, Reader::Seat);
        text::render(self, reader, r)
    }

    fn glance(&self, viewer: Option<&str>, ask: Glance<'_>, r: Reading) -> Option<String> {
        let reader = viewer
            .and_then(seat_of)
            .map_or(Reader::Public, Reader::Seat);
        match ask {
            Glance::Clock => Some(text::clock_line(self, reader, r)),
            Glance::Square(_) => None,
        }
    }

    fn computer(&self, role: &str, _options: &Value, seed: u64) -> Option<Computer<Action>> {
        let seat = seat_of(role)?;
        bot::choose(self, seat, seed).map(Computer::Act)
    }
}

impl Werewolf {
    /// What the events the last action made tell whom, and each player's orders when a phase
    /// or a speaker's turn begins.
    fn fresh_notes(&self) -> Vec<Note> {
        let mut notes: Vec<Note> = self
            .fresh_events()
            .iter()
            .map(|e| {
                let to = match &e.vis {
                    Vis::Public => Audience::Everyone,
                    Vis::Private(seats) | Vis::Wolves(seats) => {
                        Audience::Roles(seats.iter().map(|&s| player_id(s).to_owned()).collect())
                    }
                    Vis::Omniscient => Audience::AllSeeing,
                };
                Note::new(to, text::mark(e))
            })
            .collect();
        // When a phase (or a speaker's turn) begins, each player who must act is told what
        // to do and by when, privately: nobody has to ask.
        let fresh = self.fresh_events();
        let new_phase = fresh.iter().any(|e| e.kind == Kind::PhaseChanged);
        let new_turn = self.phase == Phase::DayOpening
            && !fresh.is_empty()
            && self.openings.turn_started == self.now;
        if new_phase || new_turn {
            // In the wall clock's seconds, which the player waits.
            let left = self.next_deadline().map_or(0, |d| {
                (d.at.saturating_sub(self.now) as f64 / 1000.0 / self.config().pace).round() as u64
            });
            for s in self.living() {
                let r = self.required(s);
                if r.kind == "NONE" || r.done {
                    continue;
                }
                let line = format!("{} {} ({left} s.)", text::CRIER, text::brief(self, s));
                notes.push(Note::new(
                    Audience::Roles(vec![player_id(s).to_owned()]),
                    line,
                ));
            }
        }
        notes
    }
}
