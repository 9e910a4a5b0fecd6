//! Who plays well, on the web: a page per game's leaderboard (`/leaderboard/<game>`) and a page
//! per player (`/players/<name>`) with their rating history drawn as a chart. Both are drawn on
//! the server from the same views as `leaderboard` and `ratings` (and the stored changes, for
//! the history), as plain HTML with an inline SVG: nothing to fetch, no script, no external
//! asset.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};

use super::Web;
use super::signin::escape;
use crate::cluster::visits::{PlayerPage, WebAsk};
use moot_kernel::verbs::ratings::{Leaderboards, PlayedView, RatingsView, Whom, nobody_yet};

const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:52rem;margin:1rem auto;\
padding:0 .75rem;color:#222}table{border-collapse:collapse;margin:.5rem 0 1.5rem;\
display:block;overflow-x:auto;max-width:100%}\
th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #ddd}td.n{text-align:right;\
font-variant-numeric:tabular-nums}svg{width:100%;height:auto;background:#fafafa;\
border:1px solid #ddd}polyline{fill:none;stroke:#2a6;stroke-width:2}text{font-size:11px;\
fill:#666}nav a{margin-right:1rem}";

fn page(title: &str, body: &str) -> Response {
    Html(format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>{t} · moot</title><style>{STYLE}</style></head><body>\
{NAV}<main><h1>{t}</h1>{body}</main></body></html>",
        t = escape(title),
        NAV = crate::http::nav::NAV,
    ))
    .into_response()
}

fn missing(status: StatusCode, why: &str) -> Response {
    (
        status,
        page("Not found", &format!("<p>{}</p>", escape(why))),
    )
        .into_response()
}

fn percent(r: Option<f64>) -> String {
    r.map_or("–".to_owned(), |r| format!("{:.1}%", r * 100.0))
}

#[derive(serde::Deserialize)]
pub(super) struct WhomQuery {
    #[serde(default)]
    whom: Whom,
    /// A past season (its rules' hash).
    #[serde(default)]
    season: Option<String>,
}

#[derive(serde::Deserialize)]
pub(super) struct Find {
    name: Option<String>,
}

/// `/players`: find a player by name (their page is `/players/<name>`); the leaderboards list
/// the best of each game.
pub(super) async fn players(Query(q): Query<Find>) -> Response {
    if let Some(name) = q.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        let to: String = form_urlencoded::byte_serialize(name.as_bytes()).collect();
        return axum::response::Redirect::to(&format!("/players/{to}")).into_response();
    }
    page(
        "Players",
        "<form method=\"get\" action=\"/players\"><label for=\"name\">A player's name</label> \
<input id=\"name\" name=\"name\" required> <button type=\"submit\">Show their page</button></form>\
<p>The best of each game are on the <a href=\"/leaderboard\">leaderboards</a>.</p>",
    )
}

/// `/leaderboard`: every game's leaderboard, by its name.
pub(super) async fn leaderboards() -> Response {
    let mut h = String::from("<ul>");
    for m in crate::games::ALL {
        let title = m.templates.first().map_or(m.name, |t| t.title);
        let _ = write!(
            h,
            "<li><a href=\"/leaderboard/{name}\">{title}</a></li>",
            name = escape(m.name),
            title = escape(title)
        );
    }
    h.push_str("</ul>");
    page("Leaderboards", &h)
}

/// `/leaderboard/<game>?whom=people|agents|all`
pub(super) async fn leaderboard(
    State(web): State<Web>,
    Path(game): Path<String>,
    query: Result<Query<WhomQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let Ok(Query(q)) = query else {
        return missing(StatusCode::BAD_REQUEST, "whom is people, agents or all.");
    };
    let ask = WebAsk::Leaderboard {
        game: game.clone(),
        whom: q.whom,
        season: q.season,
    };
    match web.ask::<Result<Leaderboards, String>>(ask).await {
        Ok(Ok(boards)) => page(
            &format!("Leaderboard: {game}"),
            &board_html(&game, &boards, q.whom),
        ),
        Ok(Err(why)) => missing(StatusCode::NOT_FOUND, &why),
        Err(r) => r,
    }
}

fn board_html(game: &str, v: &Leaderboards, whom: Whom) -> String {
    let mut h = String::new();
    let shown = match whom {
        Whom::All => "everyone",
        Whom::People => "people only",
        Whom::Agents => "agents only",
    };
    let _ = write!(
        h,
        "<p>Showing {shown}: <a href=\"?whom=all\">all</a> · <a href=\"?whom=people\">people</a> · \
<a href=\"?whom=agents\">agents</a>. Only established ratings are listed (deviation at most \
110, and 10 games).</p>"
    );
    if v.boards.is_empty() {
        let _ = write!(h, "<p>{}</p>", escape(&nobody_yet(game)));
    }
    for b in &v.boards {
        let _ = write!(
            h,
            "<h2>{}</h2><p>{} {}{}</p><table class=\"board\"><tr><th>#</th><th>Name</th>\
<th>Kind</th><th>Rating</th><th>95% interval</th><th>Games</th><th>Won</th><th>Lost</th><th>Drawn</th>\
<th>Refused</th><th>Missed a game</th></tr>",
            escape(&b.board),
            if b.current {
                "This season: rules"
            } else {
                "A past season, frozen: rules"
            },
            escape(&b.rules),
            seasons_html(b, whom)
        );
        if b.rows.is_empty() {
            h.push_str("<tr><td colspan=\"11\">Nobody with an established rating yet.</td></tr>");
        }
        for r in &b.rows {
            let name = escape(&r.name);
            let _ = write!(
                h,
                "<tr><td class=\"n\">{}</td><td><a href=\"/players/{name}\">{name}</a></td>\
<td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                r.rank,
                r.kind.name(),
                r.score.shown(),
                r.score.interval_ends().unwrap_or_default(),
                r.score.games,
                r.score.won,
                r.score.lost,
                r.score.drawn,
                percent(r.refused_rate),
                r.missed_rate.map_or("–".to_owned(), |m| format!("{m:.2}")),
            );
        }
        h.push_str("</table>");
        match b.provisional_left_out {
            0 => {}
            1 => h.push_str("<p>1 player with a provisional rating is not listed.</p>"),
            n => {
                let _ = write!(
                    h,
                    "<p>{n} players with provisional ratings are not listed.</p>"
                );
            }
        }
    }
    h
}

/// Links to a board's other seasons, if it has had any.
fn seasons_html(b: &moot_kernel::verbs::ratings::BoardView, whom: Whom) -> String {
    let others: Vec<String> = b
        .seasons
        .iter()
        .enumerate()
        .filter(|(_, s)| **s != b.rules)
        .map(|(i, s)| {
            let short = escape(s.get(..8).unwrap_or(s));
            let label = if i == 0 {
                format!("{short} (this season)")
            } else {
                short.clone()
            };
            format!(
                "<a href=\"?whom={}&amp;season={}\">{label}</a>",
                whom.word(),
                escape(s)
            )
        })
        .collect();
    if others.is_empty() {
        String::new()
    } else {
        format!(". Other seasons: {}", others.join(" · "))
    }
}

/// `/players/<name>`
pub(super) async fn player(State(web): State<Web>, Path(name): Path<String>) -> Response {
    match web
        .ask::<Result<PlayerPage, String>>(WebAsk::Player { name })
        .await
    {
        Ok(Ok(p)) => page(&p.view.name, &player_html(&p.view, &p.games, &p.history)),
        Ok(Err(why)) => missing(StatusCode::NOT_FOUND, &why),
        Err(r) => r,
    }
}

fn player_html(
    v: &RatingsView,
    games: &[PlayedView],
    history: &[moot_kernel::store::standings::Point],
) -> String {
    let kind = v.kind.name();
    let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "An"
    } else {
        "A"
    };
    let mut h = format!("<p>{article} {kind}.</p><h2>Ratings</h2>");
    if v.standings.is_empty() {
        h.push_str("<p>No rated or recorded games yet.</p>");
    } else {
        h.push_str(
            "<table class=\"standings\"><tr><th>Board</th><th>Rating</th><th>95% interval</th>\
<th>Deviation</th><th>Games</th><th>Won</th><th>Lost</th><th>Drawn</th></tr>",
        );
        for s in &v.standings {
            let board = escape(&s.board);
            let game = board.split('/').next().unwrap_or_default();
            let _ = write!(
                h,
                "<tr><td><a href=\"/leaderboard/{game}\">{board}</a>{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{}</td></tr>",
                if s.current { "" } else { " (earlier rules)" },
                s.score.shown(),
                s.score.interval_ends().unwrap_or_else(|| "-".to_owned()),
                s.score
                    .deviation
                    .map_or("-".to_owned(), |d| format!("{d:.0}")),
                s.score.games,
                s.score.won,
                s.score.lost,
                s.score.drawn
            );
        }
        h.push_str("</table>");
    }
    // One chart per board and season, in the order the boards were first played.
    let mut series: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for p in history {
        series
            .entry((p.board.clone(), p.rules.clone()))
            .or_default()
            .push(p.rating);
    }
    for ((board, rules), points) in &series {
        let _ = write!(
            h,
            "<h3>{} <small>(rules {})</small></h3>{}",
            escape(board),
            escape(rules),
            chart(points)
        );
    }
    h.push_str("<h2>Errors apart from skill</h2>");
    if v.conduct.is_empty() {
        h.push_str("<p>No game finished yet.</p>");
    } else {
        h.push_str(
            "<table class=\"conduct\"><tr><th>Game</th><th>Games</th><th>Actions</th>\
<th>Refused</th><th>Refused share</th><th>Deadlines missed</th><th>Missed a game</th></tr>",
        );
        for c in &v.conduct {
            let _ = write!(
                h,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
<td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                escape(&c.game),
                c.games,
                // Every action tried: the share beside it is of these.
                c.actions.saturating_add(c.refused),
                c.refused,
                percent(c.refused_rate),
                c.missed,
                c.missed_rate.map_or("–".to_owned(), |m| format!("{m:.2}")),
            );
        }
        h.push_str("</table>");
    }
    h.push_str("<h2>Games</h2>");
    if games.is_empty() {
        h.push_str("<p>None yet.</p>");
    } else {
        h.push_str(
            "<table class=\"games\"><tr><th>Game</th><th></th><th>Played as</th><th></th>\
<th>Result</th></tr>",
        );
        for g in games {
            let _ = write!(
                h,
                "<tr><td>#{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&g.session_id),
                escape(&g.game),
                escape(&g.role),
                if g.rated { "rated" } else { "casual" },
                g.ending.as_deref().map_or("in play".to_owned(), escape),
            );
        }
        h.push_str("</table>");
    }
    h
}

/// A rating's history as an SVG line: one point per result, oldest at the left, the lowest and
/// highest ratings marked.
pub fn chart(points: &[f64]) -> String {
    const W: f64 = 600.0;
    const H: f64 = 160.0;
    const PAD: f64 = 24.0;
    let (lo, hi) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), &p| (lo.min(p), hi.max(p)));
    // A flat line still needs a height to sit in.
    let (lo, hi) = if hi - lo < 1.0 {
        (lo - 10.0, hi + 10.0)
    } else {
        (lo, hi)
    };
    let step = if points.len() > 1 {
        (W - 2.0 * PAD) / (points.len() - 1) as f64
    } else {
        0.0
    };
    let mut line = String::new();
    for (i, p) in points.iter().enumerate() {
        let x = PAD + step * i as f64;
        let y = PAD + (hi - p) / (hi - lo) * (H - 2.0 * PAD);
        let _ = write!(line, "{}{x:.1},{y:.1}", if i == 0 { "" } else { " " });
    }
    format!(
        "<svg viewBox=\"0 0 {W} {H}\" role=\"img\" aria-label=\"rating over {n} results\">\
<text x=\"2\" y=\"{top}\">{hi:.0}</text><text x=\"2\" y=\"{bottom}\">{lo:.0}</text>\
<polyline points=\"{line}\"/></svg>",
        n = points.len(),
        top = PAD - 6.0,
        bottom = H - PAD + 14.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_spans_its_box_from_the_oldest_result_to_the_newest() {
        let svg = chart(&[1500.0, 1662.0, 1580.0]);
        assert!(
            svg.contains("points=\"24.0,136.0 300.0,24.0 576.0,80.7\""),
            "{svg}"
        );
        assert!(svg.contains(">1662<") && svg.contains(">1500<"), "{svg}");
        // One result, or several equal ones, still draw.
        assert!(chart(&[1500.0]).contains("points=\"24.0,80.0\""));
    }
}
