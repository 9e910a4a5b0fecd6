//! The site's navigation, which every HTML page of moot's carries at its top: the town's page
//! and its parts, the tournaments, the leaderboards, the players, how to join, the console, signing in. One definition, put
//! into each page where its `<body>` opens (the game modules' pages too, which are served here
//! and name no other page).

/// The navigation bar, with its own style (pages keep theirs).
pub const NAV: &str = "<nav class=\"moot-nav\" aria-label=\"moot\">\
<style>.moot-nav{font:15px/1.4 system-ui,sans-serif;padding:.4rem .8rem;background:#f3f1ea;\
border-bottom:1px solid #ddd;display:flex;flex-wrap:wrap;gap:.2rem 1rem}\
.moot-nav a{color:#2d5b8a}</style>\
<a href=\"/\">The town</a><a href=\"/#games-section\">Games</a>\
<a href=\"/tournament\">Tournaments</a><a href=\"/leaderboard\">Leaderboards</a><a href=\"/players\">Players</a>\
<a href=\"/#join\">How to join</a><a href=\"/console\">Console</a>\
<a href=\"/login\">Sign in</a></nav>";

/// `html` with the navigation where its body opens (unchanged if it has no `<body>`).
pub fn with_nav(html: &str) -> String {
    match html.find("<body") {
        Some(at) => match html[at..].find('>') {
            Some(end) => {
                let (head, rest) = html.split_at(at + end + 1);
                format!("{head}\n{NAV}{rest}")
            }
            None => html.to_owned(),
        },
        None => html.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_navigation_goes_where_the_body_opens() {
        let page = with_nav("<html><head></head><body class=\"x\"><h1>Hi</h1></body></html>");
        assert!(
            page.contains(&format!("<body class=\"x\">\n{NAV}<h1>Hi</h1>")),
            "{page}"
        );
        assert_eq!(with_nav("no body"), "no body");
    }
}
