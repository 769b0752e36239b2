//! Valid JSON that `JSON.parse` reads and serde_json refuses, read the way JavaScript reads
//! it, so Rust and Zod give the same verdict. Both rewrites run only after serde_json refused
//! the text with that error, so valid input never pays for them.
//!
//! - A number beyond a double's range (`1e400`) is `Infinity` (or `-Infinity`) to JavaScript,
//!   which Zod refuses at the value's path (`expected number, received Infinity`). Each is
//!   replaced by a marker string that the value visitor reports as `Infinity`.
//! - A lone UTF-16 surrogate escape (`"\ud800"`) is a one-unit string to JavaScript; it
//!   becomes U+FFFD, one code point like the surrogate, so every length check agrees.

/// The markers: strings no real input holds (they start with a NUL character).
const POSITIVE: &str = "\u{0}contracts:Infinity";
const NEGATIVE: &str = "\u{0}contracts:-Infinity";

/// `Some("Infinity")` or `Some("-Infinity")` when `s` is a marker.
#[inline]
pub(crate) fn sentinel(s: &str) -> Option<&'static str> {
    if !s.starts_with('\u{0}') {
        return None;
    }
    match s {
        POSITIVE => Some("Infinity"),
        NEGATIVE => Some("-Infinity"),
        _ => None,
    }
}

/// The text with every out-of-range number replaced by a marker string; `None` when there is
/// none (the syntax error was something else).
pub(crate) fn mark(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 32);
    let mut last = 0;
    let mut i = 0;
    let mut changed = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, i);
                let token = &text[i..end];
                if let Ok(v) = token.parse::<f64>()
                    && v.is_infinite()
                {
                    out.push_str(&text[last..i]);
                    let marker = if v > 0.0 { POSITIVE } else { NEGATIVE };
                    out.push_str(&serde_json::to_string(marker).unwrap_or_default());
                    last = end;
                    changed = true;
                }
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// The text with every lone surrogate escape replaced by `\ufffd`; `None` when there is none.
pub(crate) fn replace_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut i = 0;
    let mut in_string = false;
    let mut changed = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                in_string = !in_string;
                i += 1;
            }
            b'\\' if in_string => {
                let Some(unit) = hex_escape(bytes, i) else {
                    i += 2;
                    continue;
                };
                let paired = (0xD800..=0xDBFF).contains(&unit)
                    && hex_escape(bytes, i + 6)
                        .is_some_and(|next| (0xDC00..=0xDFFF).contains(&next));
                if paired {
                    i += 12;
                } else if (0xD800..=0xDFFF).contains(&unit) {
                    out.push_str(&text[last..i]);
                    out.push_str("\\ufffd");
                    i += 6;
                    last = i;
                    changed = true;
                } else {
                    i += 6;
                }
            }
            _ => i += 1,
        }
    }
    if !changed {
        return None;
    }
    out.push_str(&text[last..]);
    Some(out)
}

/// The code unit of a `\uXXXX` escape starting at `at`.
fn hex_escape(bytes: &[u8], at: usize) -> Option<u32> {
    let esc = bytes.get(at..at + 6)?;
    if esc[0] != b'\\' || esc[1] != b'u' {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(&esc[2..]).ok()?, 16).ok()
}

/// The index just past a string that starts at `start` (its opening quote).
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The index just past a number token that starts at `start`.
fn number_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start;
    while i < bytes.len() && matches!(bytes[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_only_numbers_out_of_range_outside_strings() {
        let text = r#"{"a":1e400,"b":"1e400","c":-1E+999,"d":1.5,"e":[2e308]}"#;
        let marked = mark(text).unwrap();
        assert_eq!(
            marked,
            r#"{"a":"\u0000contracts:Infinity","b":"1e400","c":"\u0000contracts:-Infinity","d":1.5,"e":["\u0000contracts:Infinity"]}"#
        );
        assert_eq!(mark(r#"{"a":1e300}"#), None);
        assert_eq!(sentinel(POSITIVE), Some("Infinity"));
        assert_eq!(sentinel("Infinity"), None);
    }

    #[test]
    fn replaces_only_lone_surrogates() {
        let text = r#"{"a":"x\ud800y","b":"\ud83d\ude00","c":"\udc00","d":"\\ud800"}"#;
        assert_eq!(
            replace_lone_surrogates(text).unwrap(),
            r#"{"a":"x\ufffdy","b":"\ud83d\ude00","c":"\ufffd","d":"\\ud800"}"#
        );
        assert_eq!(replace_lone_surrogates(r#"{"b":"\ud83d\ude00"}"#), None);
    }
}
