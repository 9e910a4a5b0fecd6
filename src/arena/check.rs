//! `moot arena check`: holds a series' report against the stored logs. Each game is replayed
//! from the database through its rules, with its seed, so that what the report says happened
//! is what the stored actions do, not what a server answered.

use std::collections::BTreeMap;

use super::report::{self, Line, Report};
use crate::store::sessions::StoredSession;

/// Every way the report and the stored logs differ, or `Ok` with the line to print.
pub fn check(r: &Report, stored: &[StoredSession]) -> Result<String, String> {
    let mut wrong = against_the_plan(r);
    for g in &r.games {
        let at = format!("game {} (session {})", g.n, g.session_id);
        let Some(st) = stored.iter().find(|s| s.row.session_id == g.session_id) else {
            wrong.push(format!("{at}: no such session is stored"));
            continue;
        };
        if let Err(e) = check_game(r, g, st) {
            wrong.push(format!("{at}: {e}"));
        }
    }
    let standings = report::standings(&r.agents, &r.games);
    if standings != r.standings {
        wrong.push("the standings are not what its games make".into());
    }
    if wrong.is_empty() {
        Ok(format!(
            "All {} games of the report match the stored logs (seeds, players, every action, \
             results), and so do its standings.",
            r.games.len()
        ))
    } else {
        Err(format!(
            "the report does not match the stored logs:\n  {}",
            wrong.join("\n  ")
        ))
    }
}

/// How the report's games differ from the series its spec plans (the same agents, deals and
/// seed plan the same games): each game its planned number, deal and sides, none twice, none
/// left out of a report that says it is complete.
fn against_the_plan(r: &Report) -> Vec<String> {
    let mut wrong = Vec::new();
    // A report is a stranger's file: its sizes are held to a spec's before anything is planned.
    if r.agents.len() > super::spec::MAX_AGENTS || r.deals > super::spec::MAX_DEALS {
        return vec![format!(
            "it names {} agents and {} deals; a series has at most {} and {}",
            r.agents.len(),
            r.deals,
            super::spec::MAX_AGENTS,
            super::spec::MAX_DEALS
        )];
    }
    let plan = super::spec::plan(r.agents.len(), r.deals, r.seed);
    let Some(t) = crate::games::templates()
        .into_iter()
        .find(|t| t.id == r.game)
    else {
        return vec![format!("`{}` is not a game this moot knows", r.game)];
    };
    let [first, second] = t.roles else {
        return vec![format!("{} is not a two-player game", r.game)];
    };
    let mut numbers = std::collections::BTreeSet::new();
    let mut sessions = std::collections::BTreeSet::new();
    for g in &r.games {
        let at = format!("game {}", g.n);
        if !numbers.insert(g.n) {
            wrong.push(format!("{at} is in the report twice"));
        }
        if !sessions.insert(g.session_id.as_str()) {
            wrong.push(format!("session {} is in the report twice", g.session_id));
        }
        let Some(p) = plan.iter().find(|p| p.n == g.n) else {
            wrong.push(format!("{at} is not one the series plans"));
            continue;
        };
        if (g.deal_index, g.deal, g.mirror_of) != (p.deal_index, p.deal, p.mirror_of) {
            wrong.push(format!(
                "{at} is not the planned deal {} ({}){}",
                p.deal_index + 1,
                p.deal,
                p.mirror_of
                    .map_or(String::new(), |m| format!(", mirroring game {m}"))
            ));
        }
        let id = |i: usize| r.agents.get(i).map(|a| a.agent_id.as_str());
        let sides = (
            g.roles.get(*first).map(String::as_str),
            g.roles.get(*second).map(String::as_str),
        );
        if sides != (id(p.first), id(p.second)) || g.roles.len() != 2 {
            wrong.push(format!("{at} is not played by the planned sides"));
        }
    }
    if r.planned_games != plan.len() {
        wrong.push(format!(
            "it says {} games are planned; its spec plans {}",
            r.planned_games,
            plan.len()
        ));
    }
    if r.complete && r.games.len() != plan.len() {
        wrong.push(format!(
            "it says it is complete with {} of the {} planned games",
            r.games.len(),
            plan.len()
        ));
    }
    wrong
}

fn check_game(r: &Report, g: &report::Game, st: &StoredSession) -> Result<(), String> {
    if st.row.template != r.game {
        return Err(format!("it is a {} game, not {}", st.row.template, r.game));
    }
    if st.row.seed != g.deal {
        return Err(format!("it was dealt {}, not {}", st.row.seed, g.deal));
    }
    if st.row.rated {
        return Err("it is rated; a series' games never are".into());
    }
    let players: BTreeMap<String, String> = st.participants.iter().cloned().collect();
    if players != g.roles {
        return Err(format!("its players are {players:?}, not {:?}", g.roles));
    }
    let options: serde_json::Value =
        serde_json::from_str(&st.row.options).map_err(|e| format!("its options: {e}"))?;
    if options != r.options {
        return Err(format!(
            "it was played with options {options}, not {}",
            r.options
        ));
    }
    let digest = report::log_digest(st.log.iter().map(|e| Line {
        tick: e.tick,
        role: &e.role,
        agent_id: &e.agent_id,
        action: &e.action,
    }));
    if st.log.len() != g.actions || digest != g.log_sha256 {
        return Err(format!(
            "its stored log ({} actions, SHA-256 {digest}) is not the report's ({} actions, {})",
            st.log.len(),
            g.actions,
            g.log_sha256
        ));
    }
    let t = crate::games::templates()
        .into_iter()
        .find(|t| t.id == st.row.template)
        .ok_or("its template is not one this moot knows")?;
    let mut game = (t.new)(st.row.seed, &options).map_err(|e| e.to_string())?;
    for e in &st.log {
        game = game
            .apply_logged(&e.role, &e.action, e.at_ms)
            .map_err(|err| format!("its log does not replay at tick {}: {err}", e.tick))?;
    }
    let scores =
        crate::game_api::role_scores(game.decided().ok_or("its log does not end the game")?);
    if scores != g.scores {
        return Err(format!(
            "its log scores {scores:?}, not the report's {:?}",
            g.scores
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report's sizes are held to a spec's before its series is planned: a forged one asking
    /// for four billion deals is refused, not planned.
    #[test]
    fn a_report_larger_than_any_series_is_refused_unplanned() {
        let r = Report {
            format: report::FORMAT,
            server: String::new(),
            game: "tictactoe.v1".into(),
            options: serde_json::json!({}),
            seed: 1,
            deals: u32::MAX,
            started_at: String::new(),
            finished_at: None,
            complete: false,
            planned_games: 0,
            agents: Vec::new(),
            games: Vec::new(),
            standings: Vec::new(),
        };
        let wrong = check(&r, &[]).unwrap_err();
        assert!(wrong.contains("a series has at most"), "{wrong}");
    }
}
