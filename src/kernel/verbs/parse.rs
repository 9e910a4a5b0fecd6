//! nom parsers for the argument shapes that typed commands share. Each verb's `parse` combines
//! these and runs them with [`whole`], which turns any failure into that verb's usage message.

use nom::bytes::complete::{tag_no_case, take_till1};
use nom::character::complete::{multispace0, multispace1};
use nom::combinator::{map_opt, opt, rest};
use nom::sequence::preceded;
use nom::{IResult, Parser};

use super::VerbError;

type In<'a> = &'a str;

/// One word, after any spaces.
pub fn word(i: In<'_>) -> IResult<In<'_>, &str> {
    preceded(multispace0, take_till1(char::is_whitespace)).parse(i)
}

/// All that is left, trimmed; fails when nothing is.
pub fn text(i: In<'_>) -> IResult<In<'_>, &str> {
    map_opt(rest, |s: &str| {
        let t = crate::text::trim(s);
        (!t.is_empty()).then_some(t)
    })
    .parse(i)
}

/// All that is left, trimmed, or nothing.
pub fn opt_text(i: In<'_>) -> IResult<In<'_>, Option<&str>> {
    opt(text).parse(i)
}

/// A keyword followed by spaces, e.g. `at ` in `look at fountain`.
pub fn keyword<'a>(
    kw: &'static str,
) -> impl Parser<In<'a>, Output = (), Error = nom::error::Error<In<'a>>> {
    (multispace0, tag_no_case(kw), multispace1).map(|_| ())
}

/// `<text> <kw> <word>` where `<word>` is the last word and `<kw>` the one before it, so the
/// text itself may contain the keyword: `whisper meet me to the left to Bob`.
pub fn text_then_last<'a>(
    kw: &'static str,
) -> impl Fn(In<'a>) -> IResult<In<'a>, (&'a str, &'a str)> {
    move |i: In<'a>| {
        let fail = || nom::Err::Error(nom::error::Error::new(i, nom::error::ErrorKind::Verify));
        let trimmed = i.trim_end();
        let (before, last) = trimmed.rsplit_once(char::is_whitespace).ok_or_else(fail)?;
        let before = before.trim_end();
        let (head, k) = before.rsplit_once(char::is_whitespace).ok_or_else(fail)?;
        if !k.eq_ignore_ascii_case(kw) || head.trim().is_empty() {
            return Err(fail());
        }
        Ok(("", (head.trim(), last)))
    }
}

/// Runs `p` over all of `i`; if it fails or leaves anything, the answer is `usage()`.
pub fn whole<'a, O>(
    i: In<'a>,
    mut p: impl Parser<In<'a>, Output = O, Error = nom::error::Error<In<'a>>>,
    usage: impl FnOnce() -> VerbError,
) -> Result<O, VerbError> {
    match p.parse(i) {
        Ok((left, out)) if crate::text::trim(left).is_empty() => Ok(out),
        _ => Err(usage()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_text() {
        assert_eq!(word("  Alice hi there"), Ok((" hi there", "Alice")));
        assert_eq!(text("  hi there "), Ok(("", "hi there")));
        assert!(text("   ").is_err());
        assert_eq!(opt_text("  "), Ok(("  ", None)));
    }

    #[test]
    fn the_last_keyword_splits() {
        let p = text_then_last("to");
        assert_eq!(
            p("meet me to the left to Bob"),
            Ok(("", ("meet me to the left", "Bob")))
        );
        assert_eq!(p("hi TO Bob"), Ok(("", ("hi", "Bob"))));
        assert!(p("to Bob").is_err());
        assert!(p("hi Bob").is_err());
    }
}
