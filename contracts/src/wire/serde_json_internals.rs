//! Everything the runtime relies on in serde_json beyond its documented API, in one place:
//!
//! - **The raw value protocol.** `serde_json::value::RawValue` deserialises through a private
//!   marker: it asks for a newtype struct named [`RAW_TOKEN`], and serde_json answers with a
//!   map of one entry, the marker as its key and the value's text (borrowed from the input
//!   when it can be) as its value. [`capture`] asks serde_json for a value's text that way (no
//!   tree built, nothing copied), and [`lend_raw`] answers a `RawValue` the same way from
//!   text the runtime holds.
//! - **Its wording.** A JSON syntax error is told apart only by its message: [`js_reads`]
//!   picks out the errors of text `JSON.parse` reads (a number beyond a double, a lone
//!   surrogate escape), and a value parsed again from buffered text is refused beyond
//!   serde_json's nesting limit ([`MAX_DEPTH`]) in serde_json's own words
//!   ([`RECURSION_LIMIT`]).
//!
//! Beside them, [`CowKey`], the seed that reads a string borrowed when the deserializer lends
//! it: the raw value protocol's entry is read with it, and `union` reads keys with it.
//!
//! The tests below check each of these against the serde_json this crate is built with, and
//! name what changed when an upgrade changes one.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// serde_json's marker for a raw value (`serde_json::value::RawValue` deserialises through
/// it). Asking for it lets a raw value be borrowed from the input when the input can lend
/// it, and owned otherwise; a deserializer that does not know the marker is asked for a
/// `Box<RawValue>` instead.
pub(crate) const RAW_TOKEN: &str = "$serde_json::private::RawValue";

/// The deepest a value parsed again from buffered text may sit: serde_json's own nesting
/// limit (it reads 127 nested arrays and refuses 128). Each re-parse starts a fresh parser,
/// so the depth is counted on the path instead.
pub const MAX_DEPTH: usize = 128;

/// How serde_json words a value nested deeper than [`MAX_DEPTH`].
pub(crate) const RECURSION_LIMIT: &str = "recursion limit exceeded";

/// The starts of serde_json's messages for valid JSON it refuses and `JSON.parse` reads: a
/// number beyond a double's range (`1e400`); a lone surrogate escape, worded by what follows
/// it (`"\udc00"`, `"\ud800\u0041"`: lone leading surrogate; `"\ud800"` at the end of a
/// string or before another character: unexpected end of hex escape). See `js`.
const JS_READS: [&str; 3] = [
    "number out of range",
    "lone leading surrogate",
    "unexpected end of hex escape",
];

/// Whether serde_json refused the text for something `JSON.parse` reads (see [`JS_READS`]).
pub(crate) fn js_reads(e: &serde_json::Error) -> bool {
    let message = e.to_string();
    JS_READS.iter().any(|words| message.starts_with(words))
}

/// Whether a deserializer is asked for a newtype struct by `RawValue` (see [`RAW_TOKEN`]).
#[inline]
pub(crate) fn is_raw_value(name: &str) -> bool {
    name == RAW_TOKEN
}

/// Answers `RawValue`'s request (see [`is_raw_value`]) with `text`, one JSON value already
/// read, as serde_json answers it: no second scan.
#[inline]
pub(crate) fn lend_raw<'de, V: Visitor<'de>>(
    text: &'de str,
    visitor: V,
) -> Result<V::Value, serde_json::Error> {
    visitor.visit_map(RawMap(Some(text), true))
}

/// serde_json's raw value protocol: one entry, the marker key, then the text.
struct RawMap<'a>(Option<&'a str>, bool);

impl<'de> MapAccess<'de> for RawMap<'de> {
    type Error = serde_json::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, serde_json::Error> {
        if !std::mem::take(&mut self.1) {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_TOKEN))
            .map(Some)
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, serde_json::Error> {
        let text = self
            .0
            .take()
            .ok_or_else(|| de::Error::custom("value without a key"))?;
        seed.deserialize(BorrowedStrDeserializer::new(text))
    }
}

/// One JSON value, captured as its text: borrowed from the input when it can be.
#[inline]
pub(crate) fn capture<'de, D: Deserializer<'de>>(d: D) -> Result<Cow<'de, str>, D::Error> {
    d.deserialize_newtype_struct(RAW_TOKEN, CaptureV)
}

/// A value's text already read as one JSON value, by serde_json ([`capture`]) or by the fast
/// reader (`Scanner::raw`, as strict as serde_json: JSON's grammar, no lone surrogate), as a
/// raw value, with no second scan. `None` only if serde_json's raw value protocol changed (the
/// tests below name it).
#[inline]
pub(crate) fn lend_scanned(text: &str) -> Option<&RawValue> {
    <&RawValue as serde::Deserialize>::deserialize(Lent(text)).ok()
}

/// A value's text as a deserializer that only answers `RawValue`'s request.
struct Lent<'a>(&'a str);

impl<'de> Deserializer<'de> for Lent<'de> {
    type Error = serde_json::Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        (&mut serde_json::Deserializer::from_str(self.0)).deserialize_any(visitor)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if is_raw_value(name) {
            return lend_raw(self.0, visitor);
        }
        (&mut serde_json::Deserializer::from_str(self.0)).deserialize_newtype_struct(name, visitor)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct seq tuple tuple_struct map struct enum identifier ignored_any
    }
}

/// [`capture`]'s visitor: the marker's entry (serde_json), or a `Box<RawValue>` from a
/// deserializer that does not know the marker.
struct CaptureV;

/// [`capture`] as a seed, for a map's values.
pub(crate) struct CaptureSeed;

impl<'de> DeserializeSeed<'de> for CaptureSeed {
    type Value = Cow<'de, str>;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        capture(d)
    }
}

impl<'de> Visitor<'de> for CaptureV {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Cow<'de, str>, A::Error> {
        match map.next_key_seed(CowKey)? {
            Some(k) if k == RAW_TOKEN => map.next_value_seed(CowKey),
            _ => Err(de::Error::custom("expected a JSON value from serde_json")),
        }
    }
    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        let raw: Box<RawValue> = serde::Deserialize::deserialize(d)?;
        Ok(Cow::Owned(String::from(Box::<str>::from(raw))))
    }
}

/// A string read as a `Cow`: borrowed when the deserializer lends it (a key, the raw value
/// protocol's entry).
pub(super) struct CowKey;

impl<'de> DeserializeSeed<'de> for CowKey {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for CowKey {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

/// These fail when a serde_json upgrade changes what the runtime relies on; each names what
/// changed. Fix the constant (or the protocol code) above, then run every wire test.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::schema::raw_value;

    /// A deserializer that records the newtype name `RawValue` asks for.
    struct Probe<'a>(&'a mut Option<&'static str>);

    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = serde_json::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a newtype struct"))
        }
        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            name: &'static str,
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = Some(name);
            Err(de::Error::custom("probed"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct seq tuple tuple_struct map struct enum
            identifier ignored_any
        }
    }

    #[test]
    fn raw_value_asks_for_the_marker() {
        let mut asked = None;
        let _ = <Box<RawValue> as serde::Deserialize>::deserialize(Probe(&mut asked));
        assert_eq!(
            asked,
            Some(RAW_TOKEN),
            "serde_json's RawValue no longer deserialises through the private marker \
             {RAW_TOKEN:?}: update RAW_TOKEN in wire/serde_json_internals.rs"
        );
    }

    #[test]
    fn serde_json_lends_the_text_through_the_marker() {
        let text = r#"  {"a": [1, "x"]}  "#;
        let got = capture(&mut serde_json::Deserializer::from_str(text)).unwrap();
        assert!(
            matches!(got, Cow::Borrowed(r#"{"a": [1, "x"]}"#)),
            "serde_json no longer answers the raw value marker with the borrowed text: {got:?}"
        );
        // A reader cannot lend: the text is owned, the same.
        let got = capture(&mut serde_json::Deserializer::from_reader(text.as_bytes())).unwrap();
        assert!(
            matches!(&got, Cow::Owned(t) if t == r#"{"a": [1, "x"]}"#),
            "serde_json no longer answers the raw value marker from a reader: {got:?}"
        );
        // A deserializer that does not know the marker: through `Box<RawValue>`.
        let value = serde_json::json!({"a": 1});
        assert_eq!(capture(value).unwrap(), r#"{"a":1}"#);
    }

    #[test]
    fn raw_value_accepts_the_text_lent_through_the_marker() {
        let text = capture(&mut serde_json::Deserializer::from_str(
            r#" [1,{"b":null}] "#,
        ));
        let raw = raw_value(text.unwrap()).unwrap();
        assert!(
            matches!(&raw, Cow::Borrowed(r) if r.get() == r#"[1,{"b":null}]"#),
            "RawValue no longer takes its text from the marker's entry: {raw:?}"
        );
    }

    /// serde_json's message for `text`, which it must refuse.
    fn refusal(text: &str) -> serde_json::Error {
        match serde_json::from_str::<serde_json::Value>(text) {
            Err(e) => e,
            Ok(v) => panic!("serde_json now accepts {text}: {v}; see js.rs and JS_READS"),
        }
    }

    #[test]
    fn the_errors_of_text_javascript_reads_are_worded_as_listed() {
        for (text, words) in [
            ("[1e400]", JS_READS[0]),
            ("[-1e400]", JS_READS[0]),
            (r#"["\udc00"]"#, JS_READS[1]),
            (r#"["\ud800\u0041"]"#, JS_READS[1]),
            (r#"["\ud800"]"#, JS_READS[2]),
            (r#"["\ud800x"]"#, JS_READS[2]),
            (r#"["\ud800\n"]"#, JS_READS[2]),
        ] {
            let e = refusal(text);
            assert!(
                e.to_string().starts_with(words) && js_reads(&e),
                "serde_json's wording changed: {text} is refused with \"{e}\", not \"{words} \
                 ...\": update JS_READS in wire/serde_json_internals.rs"
            );
        }
        // Other syntax errors are not text JavaScript reads.
        for text in ["[1,]", "{", r#"["\x"]"#, "[1] 2"] {
            assert!(!js_reads(&refusal(text)), "{text}");
        }
    }

    #[test]
    fn the_nesting_limit_is_as_listed() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(
            serde_json::from_str::<serde_json::Value>(&nested(MAX_DEPTH - 1)).is_ok(),
            "serde_json no longer reads {} nested arrays: update MAX_DEPTH",
            MAX_DEPTH - 1
        );
        let e = refusal(&nested(MAX_DEPTH));
        assert!(
            e.to_string().starts_with(RECURSION_LIMIT),
            "serde_json's nesting limit changed: {MAX_DEPTH} nested arrays are refused with \
             \"{e}\", not \"{RECURSION_LIMIT} ...\": update MAX_DEPTH and RECURSION_LIMIT"
        );
    }
}
