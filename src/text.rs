//! Small text helpers shared by the verbs and the front ends: English lists, durations in the
//! MOO style, and cleaning what people type before anyone else sees it.

use std::time::Duration;

/// `"a stone fountain"` → `Some("stone fountain")`: people type names without articles.
pub fn without_article(name: &str) -> Option<&str> {
    ["a ", "an ", "the ", "A ", "An ", "The "]
        .iter()
        .find_map(|a| name.strip_prefix(a))
}

/// `["a", "b", "c"]` → `"a, b and c"`.
pub fn english_list<S: AsRef<str>>(items: &[S]) -> String {
    match items {
        [] => String::new(),
        [one] => one.as_ref().to_owned(),
        [init @ .., last] => {
            let init: Vec<&str> = init.iter().map(AsRef::as_ref).collect();
            format!("{} and {}", init.join(", "), last.as_ref())
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

/// Makes a typed line safe to show to others: tabs become spaces and every other control
/// character (which could drive someone else's terminal) is removed.
pub fn clean_input(line: &str) -> String {
    line.chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// Upper-cases the first letter: `"a fountain"` → `"A fountain"`.
pub fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
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

    #[test]
    fn control_characters_are_removed() {
        assert_eq!(clean_input("hi\x1b[31m\tthere\x07"), "hi[31m there");
    }

    #[test]
    fn articles_are_optional() {
        assert_eq!(without_article("a stone fountain"), Some("stone fountain"));
        assert_eq!(without_article("Town Hall"), None);
    }
}
