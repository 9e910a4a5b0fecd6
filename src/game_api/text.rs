//! Small text helpers shared by the verbs and the front ends: English lists, durations in the
//! MOO style, and cleaning what anyone sends before anyone else sees it.

use std::borrow::Cow;
use std::time::Duration;

use serde_json::Value;

/// The longest text moot takes in one argument, in bytes: a telnet line's worth, whichever face
/// it came through.
pub const MAX_TEXT_BYTES: usize = 4096;

/// `"a stone fountain"` → `Some("stone fountain")`: people type names without articles.
pub fn without_article(name: &str) -> Option<&str> {
    ["a ", "an ", "the ", "A ", "An ", "The "]
        .iter()
        .find_map(|a| name.strip_prefix(a))
}

/// `["a", "b", "c"]` → `"a, b and c"`.
pub fn english_list<S: AsRef<str>>(items: &[S]) -> String {
    joined(items, "and")
}

/// `["a", "b", "c"]` → `"a, b or c"`.
pub fn english_list_or<S: AsRef<str>>(items: &[S]) -> String {
    joined(items, "or")
}

fn joined<S: AsRef<str>>(items: &[S], last_with: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} {last_with} {}", init.join(", "), last.as_ref())
        }
    }
}

/// A duration as LambdaCore's `@who` shows it: the largest whole unit, `"3 minutes"`.
pub fn duration_phrase(d: Duration) -> String {
    let s = d.as_secs();
    let (n, unit) = match s {
        0..60 => (s, "second"),
        60..3600 => (s / 60, "minute"),
        3600..86400 => (s / 3600, "hour"),
        _ => (s / 86400, "day"),
    };
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

/// Bidirectional formatting characters, which can make text read in another order than it is
/// written (U+202E turns `exe.txt` into `txt.exe`).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

fn needs_cleaning(c: char) -> bool {
    c.is_control() || is_bidi_control(c)
}

/// Makes text from any face safe to store and to show to others, on a terminal or in a MUD
/// client: one line (tab, CR and LF become spaces, so nobody can start a line of their own,
/// such as a forged `$#$` out-of-band message), and no control characters (C0, DEL, C1: they
/// drive terminals) or bidirectional controls. Every verb's arguments, from every face, pass
/// through here before the verb sees them ([`clean_json`] for the JSON faces).
pub fn clean(text: &str) -> Cow<'_, str> {
    // Printable ASCII, as nearly every line is, needs nothing: checked without decoding
    // characters, every byte (not up to the first other one), many bytes a step.
    let printable = text
        .bytes()
        .fold(true, |all, b| all & matches!(b, b' '..=b'~'));
    if printable || !text.chars().any(needs_cleaning) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .filter_map(|c| match c {
                '\t' | '\r' | '\n' => Some(' '),
                c if needs_cleaning(c) => None,
                c => Some(c),
            })
            .collect(),
    )
}

/// `text.split_once(' ')`, or the whole text and nothing: the searcher behind `split_once`
/// cost five times this byte loop on a typed line's few bytes.
pub fn split_at_space(text: &str) -> (&str, &str) {
    match text.bytes().position(|b| b == b' ') {
        // A space is one byte, so both sides are whole characters.
        Some(at) => (
            text.get(..at).unwrap_or(text),
            text.get(at + 1..).unwrap_or_default(),
        ),
        None => (text, ""),
    }
}

/// `str::trim`, with the answer found at once where both ends are visible ASCII, as they are
/// on nearly every typed line: the general trim decodes a character at each end to test it,
/// and a command trims its line several times over.
pub fn trim(text: &str) -> &str {
    match (text.as_bytes().first(), text.as_bytes().last()) {
        (None, _) => text,
        (Some(a), Some(z)) if a.is_ascii_graphic() && z.is_ascii_graphic() => text,
        _ => text.trim(),
    }
}

/// A text argument over [`MAX_TEXT_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("A text may be at most {MAX_TEXT_BYTES} bytes long; this one is {0}.")]
pub struct TooLong(pub usize);

/// [`clean`]s every string in a JSON value, object keys included; refuses one that is too long.
pub fn clean_json(value: &mut Value) -> Result<(), TooLong> {
    match value {
        Value::String(s) => {
            if s.len() > MAX_TEXT_BYTES {
                return Err(TooLong(s.len()));
            }
            if let Cow::Owned(c) = clean(s) {
                *s = c;
            }
        }
        Value::Array(items) => items.iter_mut().try_for_each(clean_json)?,
        Value::Object(map) => {
            if map
                .keys()
                .any(|k| k.len() > MAX_TEXT_BYTES || k.chars().any(needs_cleaning))
            {
                let old = std::mem::take(map);
                for (k, v) in old {
                    if k.len() > MAX_TEXT_BYTES {
                        return Err(TooLong(k.len()));
                    }
                    map.insert(clean(&k).into_owned(), v);
                }
            }
            map.values_mut().try_for_each(clean_json)?;
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
    Ok(())
}

/// Upper-cases the first letter: `"a fountain"` → `"A fountain"`.
pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `message` as a sentence a person reads: a full stop after a last word that has none. The
/// host's refusals are written without one, as the REST API's seed writes its messages ("Not
/// your turn"), and a typed line's answer reads them as a sentence.
pub fn sentence(mut message: String) -> String {
    if message
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
    {
        message.push('.');
    }
    message
}

/// The words among `known` that `typed` is likely a slip for, nearest first, at most three: a
/// word one edit away (a letter wrong, missing or extra, or two swapped), two in a word of
/// five letters or more, or one that `typed` (three letters or more) begins. Case is ignored.
/// A typo is answered with these ("did you mean `look`?") rather than with nothing.
pub fn closest<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let typed: Vec<char> = typed.chars().flat_map(char::to_lowercase).collect();
    if typed.len() < 2 || typed.len() > 40 {
        return Vec::new();
    }
    let most = if typed.len() >= 5 { 2 } else { 1 };
    let mut near: Vec<(usize, &str)> = known
        .into_iter()
        .filter_map(|word| {
            let w: Vec<char> = word.chars().flat_map(char::to_lowercase).collect();
            let d = if typed.len() >= 3 && w.starts_with(&typed) {
                1
            } else {
                edits(&typed, &w)
            };
            (d <= most).then_some((d, word))
        })
        .collect();
    near.sort_by_key(|&(d, _)| d);
    let mut out: Vec<&str> = Vec::new();
    for (_, w) in near {
        if !out.iter().any(|o| o.eq_ignore_ascii_case(w)) {
            out.push(w);
        }
    }
    out.truncate(3);
    out
}

/// ` Did you mean Bob?`: the names among `known` that `typed` is likely a slip for, as the
/// end of a line that says it names nothing; empty when none is near.
pub fn did_you_mean<'a>(typed: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    let near = closest(typed, known);
    match near.is_empty() {
        true => String::new(),
        false => format!(" Did you mean {}?", english_list_or(&near)),
    }
}

/// Edits from `a` to `b`: letters put in, taken out or changed, and two side by side swapped
/// (the optimal string alignment distance).
fn edits(a: &[char], b: &[char]) -> usize {
    if a.len().abs_diff(b.len()) > 2 {
        return usize::MAX;
    }
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for i in 0..=a.len() {
        d[i * w] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(w) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = best;
        }
    }
    d[a.len() * w + b.len()]
}

/// Whether two names are the same but for case, spaces and hyphens (`Connect Four`,
/// `connect-four`).
pub fn same_words(a: &str, b: &str) -> bool {
    let letters = |s: &str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<String>()
    };
    letters(a) == letters(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_english() {
        assert_eq!(english_list::<&str>(&[]), "");
        assert_eq!(english_list(&["Ann"]), "Ann");
        assert_eq!(english_list(&["Ann", "Bob"]), "Ann and Bob");
        assert_eq!(english_list(&["Ann", "Bob", "Cy"]), "Ann, Bob and Cy");
    }

    #[test]
    fn durations_use_the_largest_unit() {
        assert_eq!(duration_phrase(Duration::from_secs(1)), "1 second");
        assert_eq!(duration_phrase(Duration::from_secs(59)), "59 seconds");
        assert_eq!(duration_phrase(Duration::from_secs(185)), "3 minutes");
        assert_eq!(duration_phrase(Duration::from_secs(7200)), "2 hours");
        assert_eq!(duration_phrase(Duration::from_secs(86400)), "1 day");
    }

    /// The quick trim agrees with `str::trim` on every kind of end.
    #[test]
    fn trim_agrees_with_the_general_trim() {
        for s in [
            "",
            " ",
            "look",
            " look",
            "look ",
            "\tsay hi\r\n",
            "\u{3000}x\u{3000}",
            "é",
            "x\u{a0}",
            "\u{a0}x",
            "a",
            "ab",
            " a b ",
            "~!",
            "\u{85}",
            "@who",
        ] {
            assert_eq!(trim(s), s.trim(), "{s:?}");
        }
    }

    /// The byte split agrees with `split_once(' ')`, whatever is around the space.
    #[test]
    fn split_at_space_agrees_with_split_once() {
        for s in [
            "",
            " ",
            "look",
            "say hi",
            " x",
            "x ",
            "é ü",
            "a  b",
            "\u{3000}x y",
            "PREFIX >>",
        ] {
            assert_eq!(
                split_at_space(s),
                s.split_once(' ').unwrap_or((s, "")),
                "{s:?}"
            );
        }
    }

    #[test]
    fn control_characters_are_removed() {
        assert_eq!(clean("hi\x1b[31m\tthere\x07"), "hi[31m there");
        assert_eq!(clean("hi\r$#$chess-board"), "hi $#$chess-board");
        assert_eq!(clean("a\nb\u{0}c\u{7f}d\u{9b}e\u{8}f"), "a bcdef");
        assert_eq!(clean("abc\u{202E}fed\u{2066}\u{200F}"), "abcfed");
        assert!(matches!(clean("plain text, é ü 象"), Cow::Borrowed(_)));
    }

    #[test]
    fn json_is_cleaned_throughout_and_bounded() {
        let mut v = serde_json::json!({"a\u{1b}": ["x\ny", {"k": "\u{202E}z"}], "n": 3});
        clean_json(&mut v).unwrap();
        assert_eq!(v, serde_json::json!({"a": ["x y", {"k": "z"}], "n": 3}));
        let mut long = serde_json::json!({"text": "x".repeat(MAX_TEXT_BYTES + 1)});
        assert_eq!(clean_json(&mut long), Err(TooLong(MAX_TEXT_BYTES + 1)));
        let mut fits = serde_json::json!({"text": "x".repeat(MAX_TEXT_BYTES)});
        assert!(clean_json(&mut fits).is_ok());
    }

    #[test]
    fn articles_are_optional() {
        assert_eq!(without_article("a stone fountain"), Some("stone fountain"));
        assert_eq!(without_article("Town Hall"), None);
    }

    #[test]
    fn a_slip_finds_the_word_meant_and_a_stranger_word_finds_none() {
        assert_eq!(sentence("Not your turn".into()), "Not your turn.");
        assert_eq!(sentence("Gone.".into()), "Gone.");
        assert_eq!(sentence("Try `look`".into()), "Try `look`");
        assert_eq!(sentence(String::new()), "");
        let verbs = ["look", "go", "say", "examine", "north", "who", "home"];
        assert_eq!(closest("lok", verbs), ["look"]);
        assert_eq!(closest("LOOK", verbs), ["look"]);
        assert_eq!(closest("nrth", verbs), ["north"]);
        assert_eq!(closest("nroth", verbs), ["north"]);
        assert_eq!(closest("exa", verbs), ["examine"]);
        assert_eq!(closest("examnie", verbs), ["examine"]);
        assert!(closest("xyzzy", verbs).is_empty());
        assert!(closest("get", verbs).is_empty());
        assert!(closest("x", verbs).is_empty());
        assert!(closest(&"a".repeat(100), verbs).is_empty());
    }
}
