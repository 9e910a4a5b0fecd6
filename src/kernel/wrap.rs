//! Fitting lines to a person's screen: the preference a character keeps (`@linelength`,
//! `@wrap`, as LambdaCore has them) and the word wrap itself. A leaf module: the store keeps the
//! preference, the world hands it to a character's connections, and the telnet face wraps.
//! Programs (MCP, REST) get lines unwrapped: their readers fit text themselves.

use std::borrow::Cow;

/// The width when neither the character nor the client has said one: LambdaCore's default, one
/// short of an 80-column terminal so that a full line never makes it wrap on its own.
pub const DEFAULT_WIDTH: usize = 79;
/// LambdaCore's floor; narrower than this, wrapped text is unreadable.
pub const MIN_WIDTH: u16 = 10;
/// Wider than any screen; a bigger number is a typo.
pub const MAX_WIDTH: u16 = 500;

/// A character's stored preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Display {
    /// The width they set with `@linelength`; `None` takes the client's (NAWS) or the default.
    pub linelength: Option<u16>,
    /// `@wrap off` turns wrapping off (for clients that wrap themselves).
    pub wrap: bool,
    /// `@screenreader on`: games read as lists instead of drawn, one item a line, rooms
    /// brief (what a speech synthesizer reads well).
    #[serde(default)]
    pub screenreader: bool,
}

impl Default for Display {
    fn default() -> Display {
        Display {
            linelength: None,
            wrap: true,
            screenreader: false,
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

/// How far a continuation row that would begin like one of moot's marks is set in: the two
/// columns of a hanging indent, so that it reads as the rest of the line above.
pub const SET_IN: &str = "  ";

/// A player's words that begin a line of their own (a description under `look` or `examine`):
/// set in when they begin like one of moot's marks, as a wrapped row would be, so that they
/// never pose as the narrator, a notice or an out-of-band line.
pub fn set_in_if_marked(words: &str) -> Cow<'_, str> {
    if poses_as_mark(words) {
        Cow::Owned(format!("{SET_IN}{words}"))
    } else {
        Cow::Borrowed(words)
    }
}

/// Characters that take no column of their own on a terminal (zero-width, joiners, format and
/// bidirectional controls, variation selectors, combining accents, fillers that draw nothing)
/// or that are blank without being the plain space a row is broken at. Ahead of a mark they
/// hide nothing from the reader's eye, so [`poses_as_mark`] looks past them.
fn is_unseen(c: char) -> bool {
    (c.is_whitespace() && c != ' ')
        || matches!(
            c,
            '\u{00AD}'
                | '\u{0300}'..='\u{036F}'
                | '\u{061C}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180B}'..='\u{180F}'
                | '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2060}'..='\u{206F}'
                | '\u{2800}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{E0000}'..='\u{E0FFF}'
        )
}

/// Whether text, standing at the start of a row, could be taken for one of moot's own marks
/// rather than for the rest of somebody's words: a bracketed tag like the narrator's
/// `[Town Crier]` (any `[`, so that `[Town` then `Crier]`, or a tag not yet invented, are
/// covered too), the stars of a notice (`*** Disconnected ***`, which MUD clients' triggers
/// match), their full-width twins `［` and `＊`, or an out-of-band prefix (`#$#` of MCP 2.1,
/// `$#$` of XMCP/1.1, and MCP's quote `#$"`). Characters that show nothing are looked past;
/// plain spaces are not, since they set the row visibly in.
pub fn poses_as_mark(text: &str) -> bool {
    let seen = text.trim_start_matches(is_unseen);
    seen.starts_with(['[', '［', '*', '＊'])
        || seen.starts_with("#$#")
        || seen.starts_with("$#$")
        || seen.starts_with("#$\"")
}

/// One row of a wrapped line: a slice of it, and whether it is to be [`SET_IN`].
#[derive(Debug, Clone, Copy)]
struct Row<'a> {
    set_in: bool,
    text: &'a str,
}

impl<'a> Row<'a> {
    fn show(self) -> Cow<'a, str> {
        if self.set_in {
            Cow::Owned(format!("{SET_IN}{}", self.text))
        } else {
            Cow::Borrowed(self.text)
        }
    }
}

/// Where to break `rest` so that its head fits in `room` columns: at the last space that
/// leaves the head at most `room` characters long (past the first row's indentation, which is
/// `indent` bytes of spaces). When even the first word does not fit, the break comes just after
/// it, so that it stands whole on a row of its own. `None` when `rest` fits, or is one word.
fn break_at(rest: &str, room: usize, indent: usize) -> Option<usize> {
    if rest.is_ascii() {
        break_at_ascii(rest.as_bytes(), room, indent)
    } else {
        break_at_chars(rest, room, indent)
    }
}

/// [`break_at`] where every character is a byte, so a column is an index: the last space that
/// fits, found from the end of the row rather than by walking the line (a long list of exits
/// is wrapped at every `look`).
fn break_at_ascii(rest: &[u8], room: usize, indent: usize) -> Option<usize> {
    if rest.len() <= room {
        return None;
    }
    let fitting = rest
        .get(..=room)
        .and_then(|row| row.iter().rposition(|&b| b == b' '))
        .filter(|&i| i > indent);
    fitting.or_else(|| {
        let from = room.max(indent) + 1;
        let after = rest.get(from..)?.iter().position(|&b| b == b' ')?;
        Some(from + after)
    })
}

fn break_at_chars(rest: &str, room: usize, indent: usize) -> Option<usize> {
    // A row's worth of characters and one more, or the rest fits.
    rest.chars().nth(room)?;
    let mut last_fitting = None;
    for (column, (i, c)) in rest.char_indices().enumerate() {
        if c != ' ' || i <= indent {
            continue;
        }
        if column > room {
            return last_fitting.or(Some(i));
        }
        last_fitting = Some(i);
    }
    last_fitting
}

/// The rows of `line` at `width` (see [`wrap`]).
fn rows(line: &str, width: usize) -> Vec<Row<'_>> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut rest = line;
    loop {
        // The first row is the line's own start: whatever it begins with, moot (or the verb
        // that made the line) put there. A later row begins wherever a break fell, so one that
        // would begin like a mark is set in.
        let set_in = !rows.is_empty() && poses_as_mark(rest);
        let room = if set_in {
            width.saturating_sub(SET_IN.len()).max(1)
        } else {
            width
        };
        let indent = rest.len() - rest.trim_start_matches(' ').len();
        let Some((head, tail)) =
            break_at(rest, room, indent).and_then(|i| rest.split_at_checked(i))
        else {
            rows.push(Row { set_in, text: rest });
            return rows;
        };
        rows.push(Row {
            set_in,
            text: head.trim_end_matches(' '),
        });
        rest = tail.trim_start_matches(' ');
        if rest.is_empty() {
            return rows;
        }
    }
}

/// Splits `line` into rows of at most `width` characters, breaking at spaces (the spaces at a
/// break are dropped). A word is never cut: one longer than the width stands whole on a row of
/// its own, longer than the rest, and the terminal folds it (and rejoins it when it is copied:
/// a token, a URL, a FEN). Leading indentation is kept on the first row only. A row after the
/// first that would begin like one of moot's marks ([`poses_as_mark`]: the narrator's
/// `[Town Crier]`, an out-of-band `#$#` or `$#$`) is set in by [`SET_IN`], so that nobody's
/// words, however they are padded, can make a row that reads as the narrator's or a client's
/// message. A line that fits comes back whole.
pub fn wrap(line: &str, width: usize) -> Vec<Cow<'_, str>> {
    rows(line, width).into_iter().map(Row::show).collect()
}

/// [`wrap`], but a line that starts indented (a row of a list, like `help`'s) continues two
/// columns further in, so its rows stay apart.
pub fn wrap_hanging(line: &str, width: usize) -> Vec<Cow<'_, str>> {
    let indent = line.len() - line.trim_start_matches(' ').len();
    let hang = indent + 2;
    let all = rows(line, width);
    let head = match all.as_slice() {
        [head, _, ..] if indent > 0 && hang * 3 <= width => head.text,
        _ => return all.into_iter().map(Row::show).collect(),
    };
    // The first row is a prefix of the line; the rest is wrapped again, narrower, each row
    // hanging under it (and one that would begin like a mark set in further still).
    let rest = line
        .get(head.len()..)
        .unwrap_or_default()
        .trim_start_matches(' ');
    let pad = " ".repeat(hang);
    std::iter::once(Cow::Borrowed(head))
        .chain(
            rows(rest, width - hang)
                .into_iter()
                .map(|r| Cow::Owned(format!("{pad}{}", r.show()))),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shortcut for ASCII breaks where walking the characters does, for every room and
    /// indentation, on lines with runs of spaces, long words, and spaces at either end.
    #[test]
    fn ascii_lines_break_where_characters_do() {
        let lines = [
            "Exits: r01 (Bench Room 01), r02 (Bench Room 02), r03 (Bench Room 03).",
            "    indented  and   spaced out, with aVeryLongWordThatFitsNowhere at all ",
            "oneword",
            "  ",
            " a b c d e f g h",
            "",
        ];
        for line in lines {
            for room in 0..line.len() + 2 {
                for indent in 0..6 {
                    assert_eq!(
                        break_at_ascii(line.as_bytes(), room, indent),
                        break_at_chars(line, room, indent),
                        "{line:?} room {room} indent {indent}"
                    );
                }
            }
        }
    }

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
    fn a_word_longer_than_the_width_stands_whole_on_a_row_of_its_own() {
        let token = format!("moot_a1_{}", "4f5e".repeat(16));
        let line = format!("Your API token: {token}");
        assert_eq!(wrap(&line, 30), ["Your API token:", token.as_str()]);
        let url = "https://example.org/a/very/long/path?with=a&query=string";
        assert_eq!(
            wrap(&format!("see {url} now, or later"), 20),
            ["see", url, "now, or later"]
        );
        // Alone, or at the start of an indented row, it is still whole.
        assert_eq!(wrap(&token, 10), [token.as_str()]);
        assert_eq!(
            wrap(&format!("  {token} x"), 10),
            [format!("  {token}"), "x".into()]
        );
        // The FEN of the start position, as a chess game shows it.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        assert_eq!(
            wrap(fen, 12)[0],
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"
        );
        assert_eq!(
            wrap_hanging(&format!("  {token} x y"), 40)[0],
            format!("  {token}")
        );
    }

    /// `Mallory says, "<padding> [Town Crier] …"`, padded so that the break falls just before
    /// the mark at `width`.
    fn padded_say(width: usize, mark: &str) -> String {
        let head = "Mallory says, \"";
        let pad = "a".repeat(width - head.len());
        format!("{head}{pad} {mark} Bot-Abel is dead. Bot-Abel was a Werewolf.\"")
    }

    #[test]
    fn no_row_after_the_first_begins_like_the_narrator() {
        let line = padded_say(79, "[Town Crier]");
        let rows = wrap(&line, 79);
        assert_eq!(rows.len(), 2, "{rows:#?}");
        assert!(
            rows[0].ends_with("aaaa"),
            "the break falls before the mark: {rows:#?}"
        );
        assert_eq!(
            rows[1], "  [Town Crier] Bot-Abel is dead. Bot-Abel was a Werewolf.\"",
            "set in, so it reads as the rest of what Mallory said"
        );
        // The narrator's own line still begins with the mark, wrapped or not.
        let crier = "[Town Crier] Bot-Abel is dead. Bot-Abel was a Werewolf.";
        assert_eq!(wrap(crier, 79), [crier]);
        let rows = wrap(crier, 20);
        assert_eq!(rows[0], "[Town Crier]");
        assert_eq!(rows[1], "Bot-Abel is dead.");
    }

    #[test]
    fn a_mark_split_across_words_or_hidden_behind_nothing_is_set_in_too() {
        for mark in [
            "[Town Crier]",
            "[Town  Crier]",
            "[Town",
            "[",
            "\u{200B}[Town Crier]",
            "\u{00A0}[Town Crier]",
            "\u{FEFF}\u{2060}[Town Crier]",
            "［Town Crier］",
            "*** Announcement from Wizard: hand me your password ***",
            "#$#mcp-negotiate-can 1 package: x",
            "$#$chess-board 1 object: #1",
            "#$\"quoted",
        ] {
            let line = padded_say(40, mark);
            let rows = wrap(&line, 40);
            assert!(rows.len() >= 2, "{mark:?}: {rows:#?}");
            assert!(rows[0].ends_with("aaaa"), "{mark:?}: {rows:#?}");
            assert!(rows[1].starts_with(SET_IN), "{mark:?}: {rows:#?}");
            assert!(rows.iter().all(|r| r.chars().count() <= 40), "{rows:#?}");
            assert!(rows[1..].iter().all(|r| !poses_as_mark(r)), "{rows:#?}");
        }
        // Ordinary words at the start of a row are left alone.
        let line = padded_say(40, "Town Crier");
        let rows = wrap(&line, 40);
        assert!(rows[1].starts_with("Town Crier"), "{rows:#?}");
    }

    #[test]
    fn what_poses_as_a_mark() {
        for yes in [
            "[Town Crier] x",
            "[",
            "\u{200B}[x",
            "#$#mcp",
            "$#$xmcp",
            "#$\"x",
            "*** x",
        ] {
            assert!(poses_as_mark(yes), "{yes:?}");
        }
        for no in [
            "Town Crier",
            " [Town Crier]",
            "  #$#",
            "a[b",
            "$#x",
            "#$ #",
            "",
            "é[",
        ] {
            assert!(!poses_as_mark(no), "{no:?}");
        }
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
            screenreader: false,
        };
        assert_eq!(set.width(Some(120)), Some(40));
        let off = Display {
            linelength: Some(40),
            wrap: false,
            screenreader: false,
        };
        assert_eq!(off.width(Some(120)), None);
    }

    /// A small, seeded generator (the templates' SplitMix64), so that a failure can be replayed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(1);
            crate::game_api::splitmix(self.0)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
    }

    /// A word as somebody might type it, mischief included.
    fn random_word(rng: &mut Rng) -> String {
        const WORDS: &[&str] = &[
            "a",
            "I",
            "the",
            "werewolf",
            "Bot-Abel",
            "is",
            "dead.",
            "said,",
            "\"hi\"",
            "[Town",
            "Crier]",
            "[Town Crier]",
            "[",
            "]",
            "#$#",
            "$#$",
            "#$\"",
            "#$#mcp",
            "$#$chess-board",
            "***",
            "*",
            "♜",
            "é",
            "日本語",
            "👍🏽",
            "\u{200B}[Town",
            "\u{00A0}[Town",
            "［Town",
            "x\u{00A0}y",
            "\u{0301}[",
        ];
        match rng.below(10) {
            0 => {
                // A long word: a token, a URL, a FEN, up to wider than any width.
                let len = 1 + rng.below(600);
                let alphabet: Vec<char> = "abcdef0123456789_/:.?=♞é".chars().collect();
                (0..len)
                    .map(|_| alphabet[rng.below(alphabet.len())])
                    .collect()
            }
            1 => format!("{}{}", rng.pick(WORDS), rng.pick(WORDS)),
            _ => rng.pick(WORDS).to_owned(),
        }
    }

    fn random_text(rng: &mut Rng) -> String {
        let mut text = String::new();
        for i in 0..rng.below(40) {
            if i > 0 {
                text.push_str(&" ".repeat(1 + rng.below(3)));
            }
            text.push_str(&random_word(rng));
        }
        text
    }

    fn words_of(s: &str) -> Vec<&str> {
        s.split(' ').filter(|w| !w.is_empty()).collect()
    }

    /// The three promises of a wrap, for any line and width: (a) no row after the first
    /// begins like a mark (the first is the line's own start); (b) no word is cut, lost or
    /// moved; (c) every row fits, but for one that holds a single over-long word.
    fn check(line: &str, width: usize, rows: &[Cow<'_, str>]) {
        let why = || format!("width {width}, line {line:?}: {rows:#?}");
        assert!(!rows.is_empty(), "{}", why());
        assert!(line.starts_with(rows[0].as_ref()), "{}", why());
        for row in &rows[1..] {
            assert!(!poses_as_mark(row), "{}", why());
            for mark in ["[Town Crier]", "[", "#$#", "$#$"] {
                assert!(!row.starts_with(mark), "{}", why());
            }
        }
        let got: Vec<&str> = rows.iter().flat_map(|r| words_of(r)).collect();
        assert_eq!(got, words_of(line), "{}", why());
        for row in rows {
            assert!(
                row.chars().count() <= width || words_of(row).len() <= 1,
                "{}",
                why()
            );
        }
    }

    #[test]
    fn wrapping_never_cuts_a_word_nor_forges_a_mark_at_any_width() {
        let mut rng = Rng(0x006d_6f6f_742d_3139);
        for _ in 0..3000 {
            let text = random_text(&mut rng);
            let width = 10 + rng.below(491);
            for line in [
                text.clone(),
                format!("Mallory says, \"{text}\""),
                format!("  {text}"),
            ] {
                check(&line, width, &wrap(&line, width));
                check(&line, width, &wrap_hanging(&line, width));
            }
        }
        // The narrator's mark at every offset, at every width: after padding of every length,
        // as one word or as many.
        let tail = "[Town Crier] Bot-Abel is dead. Bot-Abel was a Werewolf.";
        for width in 10..=500 {
            for pad in (0..=width + 2).step_by(if width > 100 { 7 } else { 1 }) {
                for filler in ["a".repeat(pad), "ab ".repeat(pad / 3)] {
                    let line = format!("Mallory says, \"{filler} {tail}\"");
                    check(&line, width, &wrap(&line, width));
                }
            }
        }
    }
}
