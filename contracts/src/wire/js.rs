//! Valid JSON that `JSON.parse` reads and serde_json refuses, read the way JavaScript reads
//! it, so Rust and Zod give the same verdict. Both rewrites run only after serde_json refused
//! the text with that error, so valid input never pays for them.
//!
//! - A number beyond a double's range (`1e400`) is `Infinity` (or `-Infinity`) to JavaScript,
//!   which Zod refuses at the value's path (`expected number, received Infinity`) and
//!   `z.unknown()` accepts. Each such token is replaced by a marker: a finite number token
//!   that no number of the text equals (a tiny subnormal, written with an exponent so the
//!   fast reader never reads it), and the decode of the rewritten text carries the markers
//!   out of band, in its context's mode (`Cx`). A number visitor that meets a marker reports
//!   `Infinity`; a raw `unknown` value that holds one gets its original token back
//!   ([`restore`]). No wire value can equal a marker: strings are never markers, and the
//!   numbers of the text are all different from them.
//! - A lone UTF-16 surrogate escape (`"\ud800"`) is a one-unit string to JavaScript; it
//!   becomes U+FFFD, one code point like the surrogate, so every length check agrees.

/// One out-of-range token and the marker that stands for it.
#[derive(Debug)]
struct Mark {
    /// The marker's bits: a positive subnormal double.
    bits: u64,
    /// The token as written (`1e400`, `-1E+999`).
    token: Box<str>,
}

/// The markers a rewrite chose ([`mark`]). The decode of the rewritten text carries them in
/// its context's mode (`Cx`), never in state of the thread.
#[derive(Debug)]
pub(crate) struct Marks(Vec<Mark>);

/// `Some("Infinity")` or `Some("-Infinity")` when `v` is one of `marks`, the markers of the
/// text being decoded. Markers are subnormal, so any other number is answered without
/// looking.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn infinity(marks: Option<&Marks>, v: f64) -> Option<&'static str> {
    if !v.is_subnormal() {
        return None;
    }
    infinity_slow(marks?, v)
}

#[cold]
#[inline(never)]
fn infinity_slow(marks: &Marks, v: f64) -> Option<&'static str> {
    let bits = v.to_bits();
    marks.0.iter().find(|k| k.bits == bits).map(|k| {
        if k.token.starts_with('-') {
            "-Infinity"
        } else {
            "Infinity"
        }
    })
}

/// What a number's text says it is, as `received` (a tagged union refusing a value it
/// captured as text): `Infinity` or `-Infinity` for a token beyond a double's range (a capture
/// lets it through unread, so no syntax error started the JavaScript reading) or a marker,
/// else `number`.
pub(crate) fn received_number(marks: Option<&Marks>, text: &str) -> &'static str {
    match text.trim().parse::<f64>() {
        Ok(f64::INFINITY) => "Infinity",
        Ok(f64::NEG_INFINITY) => "-Infinity",
        Ok(v) => infinity(marks, v).unwrap_or("number"),
        Err(_) => "number",
    }
}

/// A raw value's text with every marker replaced by the token it stands for; `None` when it
/// holds none (or no markers are in force).
#[inline]
pub(crate) fn restore(marks: Option<&Marks>, raw: &str) -> Option<String> {
    restore_slow(marks?, raw)
}

#[cold]
#[inline(never)]
fn restore_slow(marks: &Marks, raw: &str) -> Option<String> {
    rewrite_numbers(raw, |token| {
        let bits = token.parse::<f64>().ok()?.to_bits();
        marks
            .0
            .iter()
            .find(|k| k.bits == bits)
            .map(|k| k.token.to_string())
    })
}

/// A raw value restored (see [`restore`]): the same value when it holds no marker.
#[inline]
pub(crate) fn restore_raw(
    marks: Option<&Marks>,
    raw: Box<serde_json::value::RawValue>,
) -> Box<serde_json::value::RawValue> {
    match restore(marks, raw.get()).and_then(|t| serde_json::value::RawValue::from_string(t).ok()) {
        Some(restored) => restored,
        None => raw,
    }
}

/// The text with every out-of-range number replaced by a marker, and the markers; `None`
/// when there is none (the syntax error was something else).
pub(crate) fn mark(text: &str) -> Option<(String, Marks)> {
    // Every number of the text, as JavaScript (and serde_json with float_roundtrip) reads it.
    let mut taken = std::collections::HashSet::new();
    let _ = rewrite_numbers(text, |token| {
        if let Ok(v) = token.parse::<f64>() {
            taken.insert(v.to_bits());
        }
        None
    });
    let mut next = 0u64;
    let mut marks = Vec::new();
    let out = rewrite_numbers(text, |token| {
        // Only a number as JSON writes it: Rust reads `1.e400` too, `JSON.parse` refuses it.
        if !is_json_number(token) {
            return None;
        }
        let v = token.parse::<f64>().ok()?;
        if !v.is_infinite() {
            return None;
        }
        next += 1;
        while taken.contains(&next) {
            next += 1;
        }
        marks.push(Mark {
            bits: next,
            token: token.into(),
        });
        Some(marker_token(next))
    })?;
    Some((out, Marks(marks)))
}

/// Whether `token` is a number in JSON's grammar, whole (the fast reader's grammar).
fn is_json_number(token: &str) -> bool {
    super::scan::json_number_end(token.as_bytes(), 0) == Some(token.len())
}

/// A marker's text: the shortest exponent form that reads back as the same double.
fn marker_token(bits: u64) -> String {
    format!("{:e}", f64::from_bits(bits))
}

/// The text with each number token outside strings that `f` answers replaced by its
/// answer; `None` when `f` answered none.
fn rewrite_numbers(text: &str, mut f: impl FnMut(&str) -> Option<String>) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut last = 0;
    let mut i = 0;
    let mut changed = false;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => i = skip_string(bytes, i),
            b'-' | b'0'..=b'9' => {
                let end = number_end(bytes, i);
                if let Some(new) = f(&text[i..end]) {
                    if !changed {
                        out.reserve(text.len() + 16);
                    }
                    out.push_str(&text[last..i]);
                    out.push_str(&new);
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

/// A value holding `number`s, written as JavaScript's `JSON.stringify` writes them: a finite
/// integral `f64` below 1e21 as an integer (`50`, where serde_json writes `50.0`), so a value
/// read as `50` is written back as `50` and a peer that reads the field as an integer accepts
/// it. Generated code writes through it every field and untagged variant whose type holds a
/// `number` outside a named struct or union (an `f64`, or one in an `Option`, a `Vec`, a map).
pub struct AsJs<'a, T: ?Sized>(pub &'a T);

impl serde::Serialize for AsJs<'_, f64> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = *self.0;
        if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e21 {
            // Exact: an integral f64 below 1e21 fits an i128. `-0.0` is written `0`, as in
            // JavaScript.
            s.serialize_i128(v as i128)
        } else {
            s.serialize_f64(v)
        }
    }
}

impl<T> serde::Serialize for AsJs<'_, Option<T>>
where
    for<'b> AsJs<'b, T>: serde::Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(v) => s.serialize_some(&AsJs(v)),
            None => s.serialize_none(),
        }
    }
}

impl<T> serde::Serialize for AsJs<'_, Vec<T>>
where
    for<'b> AsJs<'b, T>: serde::Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(AsJs))
    }
}

impl<T> serde::Serialize for AsJs<'_, std::collections::BTreeMap<String, T>>
where
    for<'b> AsJs<'b, T>: serde::Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, AsJs(v))))
    }
}

impl<T> serde::Serialize for AsJs<'_, Box<T>>
where
    for<'b> AsJs<'b, T>: serde::Serialize,
{
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        AsJs(&**self.0).serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_only_numbers_out_of_range_outside_strings() {
        let text = r#"{"a":1e400,"b":"1e400","c":-1E+999,"d":1.5,"e":[2e308]}"#;
        let (marked_text, marks) = mark(text).unwrap();
        assert_eq!(
            marked_text,
            r#"{"a":5e-324,"b":"1e400","c":1e-323,"d":1.5,"e":[1.5e-323]}"#
        );
        assert_eq!(mark(r#"{"a":1e300}"#).map(|m| m.0), None);
        // Not JSON, though Rust's f64 parse reads them: left for the syntax error.
        assert_eq!(mark("[1.e400,1e,01e400,-e400]").map(|m| m.0), None);
        assert!(is_json_number("-0.5e+400") && is_json_number("0") && !is_json_number("1."));
        let marks = Some(&marks);
        assert_eq!(infinity(marks, 5e-324), Some("Infinity"));
        // Captured unread, as a tagged union captures a value: what JavaScript reads.
        assert_eq!(received_number(None, "-1e400"), "-Infinity");
        assert_eq!(received_number(None, " 1E+999"), "Infinity");
        assert_eq!(received_number(marks, "5e-324"), "Infinity");
        assert_eq!(received_number(None, "1.5"), "number");
        assert_eq!(infinity(marks, 1e-323), Some("-Infinity"));
        assert_eq!(infinity(marks, 2e-323), None);
        assert_eq!(infinity(marks, 1.0), None);
        assert_eq!(
            restore(marks, r#"[5e-324,"5e-324",{"x":1.5e-323}]"#).as_deref(),
            Some(r#"[1e400,"5e-324",{"x":2e308}]"#)
        );
        // Outside the rewrite nothing is a marker.
        assert_eq!(infinity(None, 5e-324), None);
        assert_eq!(restore(None, "5e-324"), None);
    }

    #[test]
    fn a_marker_is_no_number_of_the_text() {
        // The text already holds the first two candidates: the markers skip them.
        let text = r#"[5e-324,1e400,0.1e-322,-1e999]"#;
        let (marked_text, marks) = mark(text).unwrap();
        assert_eq!(marked_text, r#"[5e-324,1.5e-323,0.1e-322,2e-323]"#);
        let marks = Some(&marks);
        assert_eq!(infinity(marks, 5e-324), None);
        assert_eq!(infinity(marks, 1e-323), None);
        assert_eq!(infinity(marks, 1.5e-323), Some("Infinity"));
        assert_eq!(infinity(marks, 2e-323), Some("-Infinity"));
    }

    #[test]
    fn markers_read_back_exactly() {
        for bits in 1..2000u64 {
            let token = marker_token(bits);
            assert!(token.contains('e'), "{token}");
            let v: f64 = serde_json::from_str(&token).unwrap();
            assert_eq!(v.to_bits(), bits, "{token}");
        }
    }

    #[test]
    fn numbers_are_written_as_javascript_writes_them() {
        let write = |v: f64| serde_json::to_string(&AsJs(&v)).unwrap();
        assert_eq!(write(50.0), "50");
        assert_eq!(write(-0.0), "0");
        assert_eq!(write(0.5), "0.5");
        assert_eq!(write(-12.0), "-12");
        assert_eq!(write(9007199254740993.0), "9007199254740992");
        assert_eq!(write(1e20), "100000000000000000000");
        assert_eq!(write(1e21), "1e+21");
        let nested = vec![Some(1.0), None, Some(2.5)];
        assert_eq!(
            serde_json::to_string(&AsJs(&nested)).unwrap(),
            "[1,null,2.5]"
        );
        let map: std::collections::BTreeMap<String, Vec<f64>> =
            [("a".to_owned(), vec![3.0])].into();
        assert_eq!(serde_json::to_string(&AsJs(&map)).unwrap(), r#"{"a":[3]}"#);
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
