//! Text that came from a peer (a request, a switch's answer), made safe to log or to put
//! in a metric label: control characters (newlines, NUL, ANSI escapes) shown escaped,
//! and the length bounded.

use std::borrow::Cow;

/// Most characters of peer text kept in a log line or a label.
pub const MAX_SHOWN: usize = 256;

/// `s` as it can be shown: every control character escaped (`\n`, `\u{1b}`, ...), at
/// most [`MAX_SHOWN`] characters (then `…` and how many more bytes there were).
/// Borrowed when `s` is already fine.
pub fn printable(s: &str) -> Cow<'_, str> {
    let fine = s.len() <= MAX_SHOWN && !s.chars().any(char::is_control);
    if fine {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len().min(MAX_SHOWN * 2));
    for (shown, (i, c)) in s.char_indices().enumerate() {
        if shown == MAX_SHOWN {
            out.push_str(&format!("… ({} more bytes)", s.len() - i));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped_and_length_bounded() {
        assert!(matches!(printable("edge-p0-e0"), Cow::Borrowed(_)));
        assert_eq!(printable("a\nb\0c\u{1b}[31m"), "a\\nb\\u{0}c\\u{1b}[31m");
        let huge = "x".repeat(10 << 20);
        let p = printable(&huge);
        assert!(p.len() < 400, "{}", p.len());
        assert!(
            p.ends_with(&format!("… ({} more bytes)", (10 << 20) - MAX_SHOWN)),
            "{p}"
        );
        // multi-byte characters are cut on a character boundary
        let accents = "é".repeat(1000);
        let p = printable(&accents);
        assert!(p.starts_with("éé") && p.contains('…'));
    }
}
