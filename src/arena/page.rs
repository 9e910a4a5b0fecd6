//! The report as a web page: one file, no script, readable offline and linking each game to
//! the server it was played on.

use super::report::Report;
use crate::web::escape;

/// `report.html`.
pub fn html(r: &Report) -> String {
    let name = |agent: &str| {
        r.agents
            .iter()
            .find(|a| a.agent_id == agent)
            .map_or(agent, |a| a.name.as_str())
            .to_owned()
    };
    let page = crate::games::ALL
        .iter()
        .find(|m| m.templates.iter().any(|t| t.id == r.game))
        .and_then(|m| m.page.as_ref())
        .map(|p| p.path);
    let mut standings = String::new();
    for (i, s) in r.standings.iter().enumerate() {
        standings += &format!(
            "<tr><td>{}</td><th scope=\"row\">{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}–{}–{}</td></tr>\n",
            i + 1,
            escape(&s.name),
            s.games,
            s.points,
            s.wins,
            s.draws,
            s.losses,
            s.mirrored_won,
            s.mirrored_split,
            s.mirrored_lost
        );
    }
    let mut games = String::new();
    for g in &r.games {
        let sides: Vec<String> = g
            .roles
            .iter()
            .map(|(role, agent)| {
                let p = g.scores.get(role).map_or("–".into(), |p| p.to_string());
                format!("{} ({}) {p}", escape(&name(agent)), escape(role))
            })
            .collect();
        let link = match page {
            Some(path) => {
                let at = path
                    .split_once('{')
                    .map_or(path.to_owned(), |(head, _)| head.to_owned());
                format!("{}{at}{}", r.server, g.session_id)
            }
            None => format!("{}/sessions/{}/log", r.server, g.session_id),
        };
        games += &format!(
            "<tr><td>{}</td><td>{}{}</td><td>{}</td><td>{}</td><td><a href=\"{}\">{}</a></td>\
             <td><code>{}</code></td></tr>\n",
            g.n,
            g.deal_index + 1,
            g.mirror_of
                .map_or(String::new(), |m| format!(" (mirrors {m})")),
            sides.join("<br>"),
            g.actions,
            escape(&link),
            escape(&g.session_id),
            &g.log_sha256[..g.log_sha256.len().min(16)]
        );
    }
    let state = if r.complete {
        format!("complete: {} games", r.games.len())
    } else {
        format!("{} of {} games played", r.games.len(), r.planned_games)
    };
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>Arena: {game}</title>\
         <style>body{{font:16px system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}\
         table{{border-collapse:collapse;margin:1rem 0}}td,th{{border-bottom:1px solid #ccc;padding:.3rem .6rem;text-align:left}}\
         code{{font-size:.85em}}</style></head><body>\n\
         <h1>Arena: {game}</h1>\n\
         <p>On {server}, seed {seed}, {deals} deal(s), each played by every pair from both sides; {state}. \
         Started {started}{finished}.</p>\n\
         <p>Options: <code>{options}</code>. Every game's log can be checked against the stored \
         logs with <code>moot arena check report.json --db DB</code>.</p>\n\
         <h2>Standings</h2>\n<table><thead><tr><th scope=\"col\">#</th><th scope=\"col\">Agent</th>\
         <th scope=\"col\">Games</th><th scope=\"col\">Points</th><th scope=\"col\">Won</th>\
         <th scope=\"col\">Drawn</th><th scope=\"col\">Lost</th>\
         <th scope=\"col\">Mirrored deals won–split–lost</th></tr></thead><tbody>\n{standings}</tbody></table>\n\
         <h2>Games</h2>\n<table><thead><tr><th scope=\"col\">#</th><th scope=\"col\">Deal</th>\
         <th scope=\"col\">Sides and points</th><th scope=\"col\">Actions</th><th scope=\"col\">Session</th>\
         <th scope=\"col\">Log SHA-256</th></tr></thead><tbody>\n{games}</tbody></table>\n</body></html>\n",
        game = escape(&r.game),
        server = escape(&r.server),
        seed = r.seed,
        deals = r.deals,
        started = escape(&r.started_at),
        finished = r
            .finished_at
            .as_deref()
            .map_or(String::new(), |f| format!(", finished {}", escape(f))),
        options = escape(&r.options.to_string()),
    )
}
