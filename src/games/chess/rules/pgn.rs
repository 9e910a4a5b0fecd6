//! A game's export in PGN (the standard's export format), as scalachess keeps it apart from the
//! rules.

use shakmaty::Position;

use super::ChessGame;

impl ChessGame {
    /// The game in PGN: the seven-tag roster (with `SetUp` and `FEN` for a set position), the
    /// moves in SAN, each with its comment from `comments` (by ply; the reason its player gave
    /// for it), and the result; `date` is `YYYY.MM.DD`.
    pub fn pgn(
        &self,
        event: &str,
        date: &str,
        white: &str,
        black: &str,
        comments: &[Option<String>],
    ) -> String {
        let result = self.outcome.map_or("*", |o| o.result());
        let tag = |k: &str, v: &str| {
            format!(
                "[{k} \"{}\"]\n",
                v.replace('\\', "\\\\").replace('"', "\\\"")
            )
        };
        let mut out = String::new();
        for (k, v) in [
            ("Event", event),
            ("Site", "moot"),
            ("Date", date),
            ("Round", "-"),
            ("White", white),
            ("Black", black),
            ("Result", result),
        ] {
            out.push_str(&tag(k, v));
        }
        let first = self.start().unwrap_or_else(|| self.pos.clone());
        if let Some(f) = &self.start_fen {
            out.push_str(&tag("SetUp", "1"));
            out.push_str(&tag("FEN", f));
        }
        out.push('\n');
        let mut number = first.fullmoves().get();
        let mut white_to_move = first.turn() == shakmaty::Color::White;
        let mut words: Vec<String> = Vec::new();
        // After a comment, Black's move is numbered again, as the standard writes it.
        let mut renumber = false;
        for (i, san) in self.sans().into_iter().enumerate() {
            if white_to_move {
                words.push(format!("{number}. {san}"));
            } else if i == 0 || renumber {
                words.push(format!("{number}... {san}"));
            } else {
                words.push(san);
            }
            renumber = false;
            if let Some(Some(c)) = comments.get(i) {
                // A comment ends at the first `}`: braces in the text become parentheses. Its
                // words are laid out with the moves', so that no line passes 80 characters.
                let said: Vec<&str> = c.split_whitespace().collect();
                let n = said.len();
                for (k, w) in said.into_iter().enumerate() {
                    let w = w.replace('}', ")").replace('{', "(");
                    words.push(match (k == 0, k + 1 == n) {
                        (true, true) => format!("{{{w}}}"),
                        (true, false) => format!("{{{w}"),
                        (false, true) => format!("{w}}}"),
                        (false, false) => w,
                    });
                }
                renumber = n > 0;
            }
            if !white_to_move {
                number += 1;
            }
            white_to_move = !white_to_move;
        }
        words.push(result.to_owned());
        // Export format: lines of at most 80 characters.
        let mut line = String::new();
        for w in words {
            if !line.is_empty() && line.len() + 1 + w.len() > 80 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&w);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }
}
