//! Fitting lines to a person's screen: the preference a character keeps (`@linelength`,
//! `@wrap`, as LambdaCore has them) and the word wrap itself. A leaf module: the store keeps the
//! preference, the world hands it to a character's connections, and the telnet face wraps.
//! Programs (MCP, REST) get lines unwrapped: their readers fit text themselves.

/// The width when neither the character nor the client has said one: LambdaCore's default, one
/// short of an 80-column terminal so that a full line never makes it wrap on its own.
pub const DEFAULT_WIDTH: usize = 79;
/// LambdaCore's floor; narrower than this, wrapped text is unreadable.
pub const MIN_WIDTH: u16 = 10;
/// Wider than any screen; a bigger number is a typo.
pub const MAX_WIDTH: u16 = 500;

/// A character's stored preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Display {
    /// The width they set with `@linelength`; `None` takes the client's (NAWS) or the default.
    pub linelength: Option<u16>,
    /// `@wrap off` turns wrapping off (for clients that wrap themselves).
    pub wrap: bool,
}

impl Default for Display {
    fn default() -> Display {
        Display {
            linelength: None,
            wrap: true,
        }
    }
}

impl Display {
    /// The width to wrap at, given what the client reported (NAWS), or `None` for no wrapping.
    /// A width the character chose wins over the client's, as in LambdaCore.
    pub fn width(&self, client: Option<u16>) -> Option<usize> {
        if !self.wrap {
            return None;
        }
        let w = self
            .linelength
            .or(client.filter(|w| *w >= MIN_WIDTH).map(|w| w.min(MAX_WIDTH)))
            .map_or(DEFAULT_WIDTH, usize::from);
        Some(w)
    }
}

/// Splits `line` into pieces of at most `width` characters, breaking at spaces (the spaces at
/// a break are dropped) and cutting a word longer than the width. Leading indentation is kept
/// on the first piece only. A line that fits comes back whole.
pub fn wrap(line: &str, width: usize) -> Vec<&str> {
    let width = width.max(1);
    let mut pieces = Vec::new();
    let mut rest = line;
    while rest.chars().count() > width {
        // The byte index just past `width` characters.
        let limit = rest
            .char_indices()
            .nth(width)
            .map_or(rest.len(), |(i, _)| i);
        let head = &rest[..limit];
        // Break at the last space within the limit (or the space right after it), but not at
        // the indentation before the first word.
        let indent = head.len() - head.trim_start().len();
        let cut = if rest[limit..].starts_with(' ') {
            Some(limit)
        } else {
            head.rfind(' ').filter(|&i| i > indent)
        };
        let (piece, next) = match cut {
            Some(i) => (rest[..i].trim_end(), rest[i..].trim_start()),
            None => (head, &rest[limit..]),
        };
        pieces.push(piece);
        rest = next;
    }
    if !rest.is_empty() || pieces.is_empty() {
        pieces.push(rest);
    }
    pieces
}

/// [`wrap`], but a line that starts indented (a row of a list, like `help`'s) continues two
/// columns further in, so its rows stay apart.
pub fn wrap_hanging(line: &str, width: usize) -> Vec<std::borrow::Cow<'_, str>> {
    use std::borrow::Cow;
    let indent = line.len() - line.trim_start_matches(' ').len();
    let hang = indent + 2;
    let pieces = wrap(line, width);
    if indent == 0 || pieces.len() == 1 || hang * 3 > width {
        return pieces.into_iter().map(Cow::Borrowed).collect();
    }
    // The first piece is a prefix of the line; the rest is wrapped again, narrower.
    let head = pieces[0];
    let rest = line[head.len()..].trim_start();
    let pad = " ".repeat(hang);
    std::iter::once(Cow::Borrowed(head))
        .chain(
            wrap(rest, width - hang)
                .into_iter()
                .map(|p| Cow::Owned(format!("{pad}{p}"))),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_that_fits_is_whole() {
        assert_eq!(wrap("hello world", 11), vec!["hello world"]);
        assert_eq!(wrap("", 10), vec![""]);
    }

    #[test]
    fn lines_break_between_words_never_inside() {
        let text = "You see a rock-paper-scissors table and a tic-tac-toe board here, and more.";
        let lines = wrap(text, 20);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
        assert_eq!(lines.join(" "), text, "only the spaces at breaks are gone");
        assert_eq!(lines[0], "You see a");
    }

    #[test]
    fn a_word_longer_than_the_width_is_cut() {
        let token = format!("moot_{}", "a".repeat(70));
        let lines = wrap(&token, 30);
        assert_eq!(lines.concat(), token);
        assert!(lines.iter().all(|l| l.chars().count() <= 30));
    }

    #[test]
    fn width_counts_characters_not_bytes() {
        let rank = "8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜";
        assert_eq!(wrap(rank, 17), vec![rank]);
    }

    #[test]
    fn a_break_exactly_at_the_width_keeps_the_word_whole() {
        assert_eq!(wrap("abcde fghij", 5), vec!["abcde", "fghij"]);
        assert_eq!(
            wrap("  indented words here", 10),
            vec!["  indented", "words here"]
        );
    }

    #[test]
    fn an_indented_row_hangs_under_itself() {
        let row =
            "  move <move> [on #<game>]   Make a chess move, in UCI (e2e4) or SAN (Nf3, O-O).";
        let lines = wrap_hanging(row, 40);
        assert_eq!(lines[0], "  move <move> [on #<game>]   Make a");
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.starts_with("    ") && l.len() <= 40),
            "{lines:?}"
        );
        let words: Vec<&str> = lines.iter().flat_map(|l| l.split_whitespace()).collect();
        assert_eq!(
            words.join(" "),
            row.split_whitespace().collect::<Vec<_>>().join(" ")
        );
        assert_eq!(
            wrap_hanging("plain text here", 5),
            ["plain", "text", "here"]
        );
    }

    #[test]
    fn the_characters_choice_beats_the_clients_and_off_is_off() {
        let d = Display::default();
        assert_eq!(d.width(None), Some(79));
        assert_eq!(d.width(Some(120)), Some(120));
        assert_eq!(d.width(Some(3)), Some(79), "a silly NAWS width is ignored");
        let set = Display {
            linelength: Some(40),
            wrap: true,
        };
        assert_eq!(set.width(Some(120)), Some(40));
        let off = Display {
            linelength: Some(40),
            wrap: false,
        };
        assert_eq!(off.width(Some(120)), None);
    }
}
