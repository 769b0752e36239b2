//! Schemas: small `Copy` values that decode one JSON value, record issues in a [`Cx`] instead
//! of failing, and yield `None` when the value is invalid. Only JSON syntax errors abort.
//!
//! Invariant: a schema that yields `None` has recorded at least one issue.
//!
//! An `unknown` value is read as its text (`raw_value`); the typed parse of a [`RawJson`]
//! (`RawJson::parse`) is in `drive`, with the other entry points.

use super::issue::{Cx, Expect, Seg};
use super::scan::{MAX_SAFE, Scanner, scan_entries, scan_items, within};
use super::source::{Accept, Map as Entries, Num, Read, Seq, Src, Stop, accept, skip_seq};
use serde::de::Deserializer;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// A type expression that decodes a JSON value into `Out`.
pub trait Schema: Copy {
    /// The Rust value a valid input becomes.
    type Out;
    /// How a mismatch (or an absent key) is described.
    fn expect(self) -> Expect;
    /// Decodes one value; `Ok(None)` when it is invalid (issues recorded), `Err` only for
    /// JSON syntax errors.
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>>;
    /// Reads one plain, valid value with the fast reader; `None` when it is not sure (the
    /// caller runs [`Schema::decode`]). See `wire::scan`.
    fn scan(self, r: &mut Scanner<'_>) -> Option<Self::Out>;
}

/// A generated type that decodes itself (structs, enums, unions).
pub trait Decode: Sized {
    /// How a mismatch (or an absent key) is described.
    const EXPECT: Expect;
    /// Decodes one value; see [`Schema::decode`].
    fn decode<'de>(src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self>>;
    /// Reads one plain, valid value with the fast reader; see [`Schema::scan`]. A type without
    /// a scanner of its own (an untagged union) leaves every value to `decode`.
    #[inline]
    fn scan(r: &mut Scanner<'_>) -> Option<Self> {
        let _ = r;
        None
    }
}

fn too_small_len(cx: &mut Cx, what: &str, unit: &str, min: u64) {
    cx.issue(
        format!("Too small: expected {what} to have >={min} {unit}"),
        true,
    );
}

fn too_big_len(cx: &mut Cx, what: &str, unit: &str, max: u64) {
    cx.issue(
        format!("Too big: expected {what} to have <={max} {unit}"),
        true,
    );
}

/// The bound of a string a [`too_big_len`] issue names, read back from its message: how a
/// store cuts a value it wrote before the schema bounded it.
#[cfg(feature = "sqlite")]
pub(crate) fn string_bound_of(message: &str) -> Option<usize> {
    message
        .strip_prefix("Too big: expected string to have <=")?
        .strip_suffix(" characters")?
        .parse()
        .ok()
}

/// Checks a count against limits; false when an issue was recorded.
fn check_len(
    cx: &mut Cx,
    what: &str,
    unit: &str,
    n: u64,
    min: Option<u64>,
    max: Option<u64>,
) -> bool {
    let mut ok = true;
    if let Some(min) = min.filter(|&m| n < m) {
        too_small_len(cx, what, unit, min);
        ok = false;
    }
    if let Some(max) = max.filter(|&m| n > m) {
        too_big_len(cx, what, unit, max);
        ok = false;
    }
    ok
}

/// Checks a number against inclusive bounds; false when an issue was recorded.
fn check_range(cx: &mut Cx, v: f64, min: Option<i64>, max: Option<i64>) -> bool {
    let mut ok = true;
    if let Some(min) = min.filter(|&m| v < m as f64) {
        cx.issue(format!("Too small: expected number to be >={min}"), true);
        ok = false;
    }
    if let Some(max) = max.filter(|&m| v > m as f64) {
        cx.issue(format!("Too big: expected number to be <={max}"), true);
        ok = false;
    }
    ok
}

macro_rules! accept_head {
    ($out:ty, |$s:ident| $expect:expr) => {
        type Out = $out;
        #[inline]
        fn cx(&mut self) -> &mut Cx {
            self.cx
        }
        #[inline]
        fn expect(&self) -> Expect {
            let $s = self;
            $expect
        }
    };
    ($out:ty, $expect:expr) => {
        accept_head!($out, |_s| $expect);
    };
}

/// `string`, `string(min = 1, max = 128)`: lengths in Unicode code points.
#[derive(Clone, Copy, Debug, Default)]
pub struct Str {
    pub min: Option<u64>,
    pub max: Option<u64>,
}

struct StrA<'a> {
    s: Str,
    cx: &'a mut Cx,
}

impl Str {
    /// Whether `v` is within the limits without counting its code points: a string of n
    /// bytes has between ceil(n / 4) and n of them.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn surely_fits(self, v: &str) -> bool {
        let bytes = v.len() as u64;
        self.min.is_none_or(|min| bytes.div_ceil(4) >= min)
            && self.max.is_none_or(|max| bytes <= max)
    }

    /// Whether `v` is within the limits, in code points.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn fits(self, v: &str) -> bool {
        self.surely_fits(v) || within(v.chars().count() as u64, self.min, self.max)
    }
}

impl StrA<'_> {
    #[inline]
    fn check(&mut self, v: &str) -> bool {
        if self.s.surely_fits(v) {
            return true;
        }
        let n = v.chars().count() as u64;
        check_len(self.cx, "string", "characters", n, self.s.min, self.s.max)
    }
}

impl<'de> Accept<'de> for StrA<'_> {
    accept_head!(String, Expect::Type("string"));
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn str(mut self, v: &str) -> Option<String> {
        self.check(v).then(|| v.to_owned())
    }
    #[inline]
    fn string(mut self, v: String) -> Option<String> {
        self.check(&v).then_some(v)
    }
}

impl Schema for Str {
    type Out = String;
    fn expect(self) -> Expect {
        Expect::Type("string")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<String>> {
        accept(src, StrA { s: self, cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<String> {
        let (min, max) = self.bounds();
        scan_string(r, min, max)
    }
}

impl Str {
    /// The limits as the out-of-line readers take them, in registers: none is `0` and `u64::MAX`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bounds(self) -> (u64, u64) {
        (self.min.unwrap_or(0), self.max.unwrap_or(u64::MAX))
    }
}

/// [`Str`]'s fast reader, out of line: every string field calls this one function (a string's
/// reader inlined into every field costs more to build than the call costs to run).
#[inline(never)]
fn scan_string(r: &mut Scanner<'_>, min: u64, max: u64) -> Option<String> {
    scan_within(r, min, max).map(Cow::into_owned)
}

/// A string of `min..=max` code points, borrowed when it has no escape: the body of both
/// out-of-line string readers.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn scan_within<'de>(r: &mut Scanner<'de>, min: u64, max: u64) -> Option<Cow<'de, str>> {
    let v = r.string()?;
    let limits = Str {
        min: Some(min),
        max: Some(max),
    };
    limits.fits(&v).then_some(v)
}

/// A string's format, `string(format = "byte")`: checked before its lengths, with Zod's
/// message (docs/wire-semantics.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrFormat {
    /// `uri`: an RFC 3986 scheme and its colon first, `^[A-Za-z][A-Za-z0-9+.-]*:` (Zod's
    /// `.regex`); the rest is not checked.
    Uri,
    /// `byte`: base64, the standard alphabet with padding, as `z.base64()` reads it.
    Byte,
}

impl StrFormat {
    /// Whether `v` is of the format.
    pub fn accepts(self, v: &str) -> bool {
        let b = v.as_bytes();
        match self {
            StrFormat::Uri => {
                let end = b
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')));
                b.first().is_some_and(u8::is_ascii_alphabetic) && end.is_some_and(|i| b[i] == b':')
            }
            StrFormat::Byte => {
                // Whole groups of four, with `=` only as the last one or two.
                let body = b.strip_suffix(b"==").or(b.strip_suffix(b"=")).unwrap_or(b);
                b.len().is_multiple_of(4)
                    && body
                        .iter()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/'))
            }
        }
    }

    /// Zod's message for a value not of the format.
    pub fn message(self) -> &'static str {
        match self {
            StrFormat::Uri => "Invalid string: must match pattern /^[A-Za-z][A-Za-z0-9+.-]*:/",
            StrFormat::Byte => "Invalid base64-encoded string",
        }
    }
}

/// `string(format = "uri")`: the format, then the lengths in code points.
#[derive(Clone, Copy, Debug)]
pub struct FormatStr {
    pub format: StrFormat,
    pub min: Option<u64>,
    pub max: Option<u64>,
}

struct FormatStrA<'a> {
    s: FormatStr,
    cx: &'a mut Cx,
}

impl FormatStrA<'_> {
    fn check(&mut self, v: &str) -> bool {
        let mut ok = true;
        if !self.s.format.accepts(v) {
            self.cx.issue(self.s.format.message(), true);
            ok = false;
        }
        let n = v.chars().count() as u64;
        check_len(self.cx, "string", "characters", n, self.s.min, self.s.max) && ok
    }
}

impl<'de> Accept<'de> for FormatStrA<'_> {
    accept_head!(String, Expect::Type("string"));
    #[inline]
    fn str(mut self, v: &str) -> Option<String> {
        self.check(v).then(|| v.to_owned())
    }
    #[inline]
    fn string(mut self, v: String) -> Option<String> {
        self.check(&v).then_some(v)
    }
}

impl Schema for FormatStr {
    type Out = String;
    fn expect(self) -> Expect {
        Expect::Type("string")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<String>> {
        accept(src, FormatStrA { s: self, cx })
    }
    #[inline]
    fn scan(self, r: &mut Scanner<'_>) -> Option<String> {
        let v = r.string()?;
        let limits = Str {
            min: self.min,
            max: self.max,
        };
        (self.format.accepts(&v) && limits.fits(&v)).then(|| v.into_owned())
    }
}

/// `boolean`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bool;

struct BoolA<'a> {
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for BoolA<'_> {
    accept_head!(bool, Expect::Type("boolean"));
    #[inline]
    fn bool(self, v: bool) -> Option<bool> {
        Some(v)
    }
}

impl Schema for Bool {
    type Out = bool;
    fn expect(self) -> Expect {
        Expect::Type("boolean")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<bool>> {
        accept(src, BoolA { cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<bool> {
        r.bool()
    }
}

/// `int`, `int(1..=100)`: an integral JSON number in the safe range, then the bounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Int {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

struct IntA<'a> {
    s: Int,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for IntA<'_> {
    accept_head!(i64, Expect::Type("number"));
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn num(self, n: Num) -> Option<i64> {
        // A safe integer within the bounds: accepted with no float work (the general path
        // below gives the same verdict for it; anything else takes that path).
        let whole = match n {
            Num::U(u) if u <= MAX_SAFE as u64 => Some(u as i64),
            Num::I(i) if (-MAX_SAFE..=MAX_SAFE).contains(&i) => Some(i),
            _ => None,
        };
        if let Some(i) = whole
            && self.s.min.is_none_or(|m| i >= m)
            && self.s.max.is_none_or(|m| i <= m)
        {
            return Some(i);
        }
        self.num_checked(n)
    }
}

impl IntA<'_> {
    #[inline(never)]
    fn num_checked(self, n: Num) -> Option<i64> {
        let v = n.as_f64();
        if !v.is_finite() || v.fract() != 0.0 {
            self.cx
                .issue("Invalid input: expected int, received number", false);
            return None;
        }
        let mut ok = true;
        if v > MAX_SAFE as f64 {
            self.cx
                .issue(format!("Too big: expected int to be <={MAX_SAFE}"), true);
            ok = false;
        } else if v < -MAX_SAFE as f64 {
            self.cx
                .issue(format!("Too small: expected int to be >=-{MAX_SAFE}"), true);
            ok = false;
        }
        ok &= check_range(self.cx, v, self.s.min, self.s.max);
        ok.then_some(v as i64)
    }
}

impl Schema for Int {
    type Out = i64;
    fn expect(self) -> Expect {
        Expect::Type("number")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<i64>> {
        accept(src, IntA { s: self, cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<i64> {
        let i = r.int()?;
        within(i, self.min, self.max).then_some(i)
    }
}

/// `int64`, `uint64` (`int64(0..)`): an integral JSON number in the width's range, then the
/// bounds. The verdict is on the number as `JSON.parse` reads it (a double), so Rust and Zod
/// agree on every text: a value whose double is `2^63` (`9223372036854775807` itself) is
/// refused as an `int64`. The value is the text's own integer, exact where JavaScript rounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Int64 {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// `uint64`: see [`Int64`]; `0 <= v < 2^64`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Uint64 {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

/// 2^63 and 2^64 as doubles, exactly.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

/// The checks of a 64-bit integer on its double: integral, then `lo <= v < hi` (each issue
/// worded as the runtime's Zod words it), then the bounds. False when an issue was recorded.
fn check_wide(
    cx: &mut Cx,
    v: f64,
    lo: &str,
    hi: &str,
    range: (f64, f64),
    min: Option<i64>,
    max: Option<i64>,
) -> bool {
    if !v.is_finite() || v.fract() != 0.0 {
        cx.issue("Invalid input: expected int, received number", false);
        return false;
    }
    let mut ok = true;
    if v < range.0 {
        cx.issue(format!("Too small: expected int to be >={lo}"), true);
        ok = false;
    } else if v >= range.1 {
        cx.issue(format!("Too big: expected int to be <{hi}"), true);
        ok = false;
    }
    check_range(cx, v, min, max) && ok
}

struct Int64A<'a> {
    s: Int64,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for Int64A<'_> {
    accept_head!(i64, Expect::Type("number"));
    #[inline]
    fn num(self, n: Num) -> Option<i64> {
        let v = n.as_f64();
        let range = (-TWO_63, TWO_63);
        let lo = "-9223372036854775808";
        if !check_wide(
            self.cx,
            v,
            lo,
            "9223372036854775808",
            range,
            self.s.min,
            self.s.max,
        ) {
            return None;
        }
        // In range as a double, so the exact integer fits too (below 2^63 - 512).
        Some(match n {
            Num::I(i) => i,
            Num::U(u) => u as i64,
            Num::F(f) => f as i64,
        })
    }
}

impl Schema for Int64 {
    type Out = i64;
    fn expect(self) -> Expect {
        Expect::Type("number")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<i64>> {
        accept(src, Int64A { s: self, cx })
    }
    /// Plain safe integers only; any other number is the decoder's.
    #[inline]
    fn scan(self, r: &mut Scanner<'_>) -> Option<i64> {
        let i = r.int()?;
        within(i, self.min, self.max).then_some(i)
    }
}

struct Uint64A<'a> {
    s: Uint64,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for Uint64A<'_> {
    accept_head!(u64, Expect::Type("number"));
    #[inline]
    fn num(self, n: Num) -> Option<u64> {
        let v = n.as_f64();
        let range = (0.0, TWO_64);
        if !check_wide(
            self.cx,
            v,
            "0",
            "18446744073709551616",
            range,
            self.s.min,
            self.s.max,
        ) {
            return None;
        }
        // In range as a double: a `Num::I` is then `0` or above, and a float is exact.
        Some(match n {
            Num::U(u) => u,
            Num::I(i) => i as u64,
            Num::F(f) => f as u64,
        })
    }
}

impl Schema for Uint64 {
    type Out = u64;
    fn expect(self) -> Expect {
        Expect::Type("number")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<u64>> {
        accept(src, Uint64A { s: self, cx })
    }
    /// Plain safe integers only; any other number is the decoder's.
    #[inline]
    fn scan(self, r: &mut Scanner<'_>) -> Option<u64> {
        let i = r.int()?;
        (i >= 0 && within(i, self.min, self.max)).then_some(i as u64)
    }
}

/// `number`, `number(min = 0)`: any finite JSON number, then the bounds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Number {
    pub min: Option<i64>,
    pub max: Option<i64>,
}

struct NumberA<'a> {
    s: Number,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for NumberA<'_> {
    accept_head!(f64, Expect::Type("number"));
    #[inline]
    fn num(self, n: Num) -> Option<f64> {
        let v = n.as_f64();
        check_range(self.cx, v, self.s.min, self.s.max).then_some(v)
    }
}

impl Schema for Number {
    type Out = f64;
    fn expect(self) -> Expect {
        Expect::Type("number")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<f64>> {
        accept(src, NumberA { s: self, cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<f64> {
        let v = r.number()?;
        let bound = |m: i64| m as f64;
        within(v, self.min.map(bound), self.max.map(bound)).then_some(v)
    }
}

/// `unknown`: any JSON value, kept as its raw text ([`RawJson`]) so it is parsed once, by
/// whoever knows what it holds. Absent, it is refused.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unknown;

/// The message for an absent required `unknown` key.
pub const NONOPTIONAL: &str = "Invalid input: expected nonoptional, received undefined";

impl Schema for Unknown {
    type Out = RawJson;
    fn expect(self) -> Expect {
        Expect::Fixed(NONOPTIONAL)
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<RawJson>> {
        // A number JavaScript reads as Infinity keeps its text (see `js`).
        let raw = raw_value(src.text()?)?;
        Ok(Some(RawJson(super::js::restore_raw(
            cx.marks(),
            raw.into_owned(),
        ))))
    }
    /// The value's text as the fast reader read it (as strictly as serde_json), copied, not
    /// read again. The fast reader never reads a text rewritten for JavaScript (only the
    /// decoder does), so no marker needs restoring here.
    #[inline]
    fn scan(self, r: &mut Scanner<'_>) -> Option<RawJson> {
        super::serde_json_internals::lend_scanned(r.raw()?).map(|raw| RawJson(raw.to_owned()))
    }
}

/// One JSON value's text (`serde_json_internals::capture`) as a raw value: borrowed from the
/// input when it is.
pub(super) fn raw_value(text: Cow<'_, str>) -> Read<Cow<'_, RawValue>> {
    match text {
        // The text serde_json captured is one JSON value: handed over with no second scan.
        Cow::Borrowed(text) => super::serde_json_internals::lend_scanned(text)
            .map(Cow::Borrowed)
            .ok_or_else(|| Stop::with("serde_json's raw value protocol refused the text")),
        Cow::Owned(text) => RawValue::from_string(text)
            .map(Cow::Owned)
            .map_err(Stop::with),
    }
}

/// Any JSON value, kept as the text it arrived as: no tree is built, and a typed parse later
/// reads it once (`RawJson::parse`). Two values are equal when their texts are.
#[derive(Clone)]
pub struct RawJson(pub Box<serde_json::value::RawValue>);

impl RawJson {
    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// `null`.
    pub fn null() -> RawJson {
        RawJson(serde_json::value::RawValue::from_string("null".to_owned()).expect("null is JSON"))
    }

    /// A value serialised to JSON text.
    pub fn from_value<T: serde::Serialize + ?Sized>(
        value: &T,
    ) -> Result<RawJson, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(RawJson)
    }

    /// The value as an untyped tree.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::from_str(self.get()).unwrap_or(serde_json::Value::Null)
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl std::fmt::Debug for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}

impl std::fmt::Display for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.get())
    }
}

impl serde::Serialize for RawJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

/// Plain serde, outside a wire decode: no markers are in force there (the wire decoder reads
/// an `unknown` value through [`Unknown`], which restores them).
impl<'de> serde::Deserialize<'de> for RawJson {
    #[inline]
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawJson, D::Error> {
        <Box<serde_json::value::RawValue> as serde::Deserialize>::deserialize(d).map(RawJson)
    }
}

impl From<Box<serde_json::value::RawValue>> for RawJson {
    fn from(raw: Box<serde_json::value::RawValue>) -> RawJson {
        RawJson(raw)
    }
}

/// A string literal: exactly this string.
#[derive(Clone, Copy, Debug)]
pub struct LitStr(pub &'static str);

struct LitStrA<'a> {
    s: &'static str,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for LitStrA<'_> {
    accept_head!(&'static str, |s| Expect::LitStr(s.s));
    #[inline]
    fn str(self, v: &str) -> Option<&'static str> {
        if v == self.s {
            Some(self.s)
        } else {
            self.reject("string")
        }
    }
}

impl Schema for LitStr {
    type Out = &'static str;
    fn expect(self) -> Expect {
        Expect::LitStr(self.0)
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<&'static str>> {
        accept(src, LitStrA { s: self.0, cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<&'static str> {
        (r.string()? == self.0).then_some(self.0)
    }
}

/// A boolean literal: exactly `true` or exactly `false`.
#[derive(Clone, Copy, Debug)]
pub struct LitBool(pub bool);

struct LitBoolA<'a> {
    b: bool,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for LitBoolA<'_> {
    accept_head!(bool, |s| Expect::LitBool(s.b));
    #[inline]
    fn bool(self, v: bool) -> Option<bool> {
        if v == self.b {
            Some(v)
        } else {
            self.reject("boolean")
        }
    }
}

impl Schema for LitBool {
    type Out = bool;
    fn expect(self) -> Expect {
        Expect::LitBool(self.0)
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<bool>> {
        accept(src, LitBoolA { b: self.0, cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<bool> {
        (r.bool()? == self.0).then_some(self.0)
    }
}

/// An integer literal: exactly this number (`1.0` is `1`).
#[derive(Clone, Copy, Debug)]
pub struct LitInt(pub i64);

struct LitIntA<'a> {
    i: i64,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for LitIntA<'_> {
    accept_head!(i64, |s| Expect::LitInt(s.i));
    #[inline]
    fn num(self, n: Num) -> Option<i64> {
        if n.as_f64() == self.i as f64 {
            Some(self.i)
        } else {
            self.reject("number")
        }
    }
}

impl Schema for LitInt {
    type Out = i64;
    fn expect(self) -> Expect {
        Expect::LitInt(self.0)
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<i64>> {
        accept(src, LitIntA { i: self.0, cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<i64> {
        (r.int()? == self.0).then_some(self.0)
    }
}

/// An integer literal as a type, `IntLit<1>` for `type One = 1;` (and `[1]`, `1 | null`, a
/// union's variant): zero-sized, so it holds no other value. Written as `N`; read as
/// [`LitInt`] reads `N`, with its verdict and message (`Invalid input: expected 1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct IntLit<const N: i64>;

impl<const N: i64> IntLit<N> {
    /// The literal's value.
    pub const VALUE: i64 = N;

    /// The literal's value, `N`.
    pub const fn value(self) -> i64 {
        N
    }
}

impl<const N: i64> serde::Serialize for IntLit<N> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i64(N)
    }
}

impl<const N: i64> Decode for IntLit<N> {
    const EXPECT: Expect = Expect::LitInt(N);
    #[inline]
    fn decode<'de>(src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self>> {
        Ok(LitInt(N).decode(src, cx)?.map(|_| IntLit))
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(r: &mut Scanner<'_>) -> Option<Self> {
        LitInt(N).scan(r).map(|_| IntLit)
    }
}

/// A boolean literal as a type, `BoolLit<true>` for `type Yes = true;`: zero-sized, so it
/// holds no other value. Written as `B`; read as [`LitBool`] reads `B`, with its verdict and
/// message (`Invalid input: expected true`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoolLit<const B: bool>;

impl<const B: bool> BoolLit<B> {
    /// The literal's value.
    pub const VALUE: bool = B;

    /// The literal's value, `B`.
    pub const fn value(self) -> bool {
        B
    }
}

impl<const B: bool> serde::Serialize for BoolLit<B> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(B)
    }
}

impl<const B: bool> Decode for BoolLit<B> {
    const EXPECT: Expect = Expect::LitBool(B);
    #[inline]
    fn decode<'de>(src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self>> {
        Ok(LitBool(B).decode(src, cx)?.map(|_| BoolLit))
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(r: &mut Scanner<'_>) -> Option<Self> {
        LitBool(B).scan(r).map(|_| BoolLit)
    }
}

/// `null` as a type (`-> null`, `type Nothing = null;`, a union's variant): exactly `null`,
/// held as `()` (which serde writes as `null`). Anything else is
/// `Invalid input: expected null, received <received>`, as Zod's `z.null()` says.
#[derive(Clone, Copy, Debug)]
pub struct LitNull;

struct LitNullA<'a> {
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for LitNullA<'_> {
    accept_head!((), Expect::Type("null"));
    #[inline]
    fn null(self) -> Option<()> {
        Some(())
    }
}

impl Schema for LitNull {
    type Out = ();
    fn expect(self) -> Expect {
        Expect::Type("null")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<()>> {
        accept(src, LitNullA { cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<()> {
        r.null()?.then_some(())
    }
}

/// `null` as a named type's value (`Named::<()>`): read as [`LitNull`] reads it.
impl Decode for () {
    const EXPECT: Expect = Expect::Type("null");
    #[inline]
    fn decode<'de>(src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self>> {
        LitNull.decode(src, cx)
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(r: &mut Scanner<'_>) -> Option<Self> {
        LitNull.scan(r)
    }
}

/// `[T]`, `[T](min = 1, max = 500)`.
#[derive(Clone, Copy, Debug)]
pub struct Array<S> {
    pub item: S,
    pub min: Option<u64>,
    pub max: Option<u64>,
}

/// An array being decoded: its limits, and `item`, which reads one item into the vector
/// being built (true when it is valid). One type for every array, so the decoder's handling
/// of its shapes is one copy, not one per item type.
struct ArrayA<'a, 'de> {
    min: Option<u64>,
    max: Option<u64>,
    cx: &'a mut Cx,
    item: &'a mut dyn FnMut(&mut dyn Src<'de>, &mut Cx) -> Read<bool>,
}

impl<'de> Accept<'de> for ArrayA<'_, 'de> {
    accept_head!((), Expect::Type("array"));
    /// An array over its `max` is refused with that one issue, its items unread (Zod 4 checks
    /// the size before the items, and reports nothing else): once past `max`, the issues of
    /// the items already read are dropped and the rest are skipped.
    fn seq(self, seq: &mut dyn Seq<'de>) -> Read<Option<()>> {
        let mut ok = true;
        let mut i = 0usize;
        let base = self.cx.len();
        let max = self
            .max
            .map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
        loop {
            if i == max {
                if !seq.next(&mut |item| item.skip())? {
                    break;
                }
                skip_seq(seq)?;
                self.cx.truncate(base);
                // Zod aborts on it: an untagged union does not report this variant's issues.
                self.cx.issue(
                    format!("Too big: expected array to have <={max} items"),
                    false,
                );
                return Ok(None);
            }
            self.cx.push(Seg::Index(i));
            let (read, cx) = (&mut *self.item, &mut *self.cx);
            let mut valid = false;
            let next = seq.next(&mut |item| {
                valid = read(item, cx)?;
                Ok(())
            });
            self.cx.pop();
            if !next? {
                break;
            }
            ok &= valid;
            i += 1;
            // The items' issues come in their final order: only the first can be shown.
            self.cx.compact(base);
        }
        ok &= check_len(self.cx, "array", "items", i as u64, self.min, None);
        Ok(ok.then_some(()))
    }
}

impl<S: Schema> Schema for Array<S> {
    type Out = Vec<S::Out>;
    fn expect(self) -> Expect {
        Expect::Type("array")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>> {
        let mut out = Vec::new();
        let item = &mut |src: &mut dyn Src<'de>, cx: &mut Cx| {
            let v = self.item.decode(src, cx)?;
            Ok(v.map(|v| out.push(v)).is_some())
        };
        let (min, max) = (self.min, self.max);
        let valid = accept(src, ArrayA { min, max, cx, item })?;
        Ok(valid.map(|()| out))
    }
    #[inline]
    fn scan(self, r: &mut Scanner<'_>) -> Option<Vec<S::Out>> {
        scan_items(r, self.min, self.max, |r| self.item.scan(r))
    }
}

/// `map<T>`: any string keys, values of `T`. Issues follow JavaScript's key order: integer
/// keys ascending, then the others in the order they first appear.
#[derive(Clone, Copy, Debug)]
pub struct Map<S>(pub S);

/// A map being decoded: `value` reads the value of a key into the map being built (true when
/// it is valid; an invalid one removes the key). One type for every map, as [`ArrayA`].
struct MapA<'a, 'de> {
    cx: &'a mut Cx,
    value: &'a mut dyn FnMut(&str, &mut dyn Src<'de>, &mut Cx) -> Read<bool>,
}

/// A key's place in JavaScript's own-key order.
fn js_key_order(key: &str, first_seen: usize) -> (u8, u64, usize) {
    let is_index = !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'))
        && key.len() <= 10;
    match key.parse::<u64>() {
        Ok(n) if is_index && n < u32::MAX as u64 => (0, n, 0),
        _ => (1, 0, first_seen),
    }
}

impl<'de> Accept<'de> for MapA<'_, 'de> {
    accept_head!((), Expect::Type("record"));
    fn map(self, map: &mut dyn Entries<'de>) -> Read<Option<()>> {
        let base = self.cx.len();
        // Every key whose last value had issues, or whose earlier value had some.
        let mut spans: Vec<KeySpan> = Vec::new();
        let mut seen = 0usize;
        loop {
            let mut key = String::new();
            if !map.next_key(&mut |k| key = k.into_cow().into_owned())? {
                break;
            }
            let start = self.cx.len();
            self.cx.push(Seg::Key(Cow::Owned(key.clone())));
            let (read, cx) = (&mut *self.value, &mut *self.cx);
            let mut valid = false;
            let next = map.next_value(&mut |value| {
                valid = read(&key, value, cx)?;
                Ok(())
            });
            self.cx.pop();
            next?;
            let end = self.cx.len();
            let prior = spans.iter().position(|s| s.key == key);
            if valid {
                if let Some(p) = prior {
                    spans[p].live = None;
                }
            } else {
                match prior {
                    Some(p) => spans[p].live = Some((start, end)),
                    None => spans.push(KeySpan {
                        key,
                        first: seen,
                        live: Some((start, end)),
                    }),
                }
            }
            seen += 1;
        }
        if self.cx.len() == base {
            return Ok(Some(()));
        }
        spans.sort_by_key(|s| js_key_order(&s.key, s.first));
        let live: Vec<(usize, usize)> = spans.iter().filter_map(|s| s.live).collect();
        self.cx.reorder(base, &live);
        self.cx.compact(base);
        Ok(live.is_empty().then_some(()))
    }
}

/// The issues of one map key: where it first appeared and the span of its last value's
/// issues (`None` once a later duplicate was valid).
struct KeySpan {
    key: String,
    first: usize,
    live: Option<(usize, usize)>,
}

impl<S: Schema> Schema for Map<S> {
    type Out = BTreeMap<String, S::Out>;
    fn expect(self) -> Expect {
        Expect::Type("record")
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>> {
        let mut out = BTreeMap::new();
        let value = &mut |key: &str, src: &mut dyn Src<'de>, cx: &mut Cx| {
            let v = self.0.decode(src, cx)?;
            Ok(match v {
                Some(v) => {
                    out.insert(key.to_owned(), v);
                    true
                }
                None => {
                    out.remove(key);
                    false
                }
            })
        };
        let valid = accept(src, MapA { cx, value })?;
        Ok(valid.map(|()| out))
    }
    /// A duplicate key, or `__proto__` (which JavaScript objects treat apart), is left to
    /// `decode`.
    #[inline]
    fn scan(self, r: &mut Scanner<'_>) -> Option<Self::Out> {
        scan_entries(r, |r| self.0.scan(r))
    }
}

/// `T | null`.
#[derive(Clone, Copy, Debug)]
pub struct Nullable<S>(pub S);

impl<S: Schema> Schema for Nullable<S> {
    type Out = Option<S::Out>;
    fn expect(self) -> Expect {
        self.0.expect()
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>> {
        let mut v = None;
        let null = src.option(&mut |some| {
            v = self.0.decode(some, cx)?;
            Ok(())
        })?;
        Ok(if null { Some(None) } else { v.map(Some) })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<Self::Out> {
        if r.null()? {
            Some(None)
        } else {
            self.0.scan(r).map(Some)
        }
    }
}

/// A value kept on the heap (a recursive type).
#[derive(Clone, Copy, Debug)]
pub struct Boxed<S>(pub S);

impl<S: Schema> Schema for Boxed<S> {
    type Out = Box<S::Out>;
    fn expect(self) -> Expect {
        self.0.expect()
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>> {
        Ok(self.0.decode(src, cx)?.map(Box::new))
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<Self::Out> {
        self.0.scan(r).map(Box::new)
    }
}

/// A generated type, as a schema.
pub struct Named<T>(PhantomData<fn() -> T>);

impl<T> Named<T> {
    /// The schema of `T`.
    pub const fn new() -> Self {
        Named(PhantomData)
    }
}

impl<T> Default for Named<T> {
    fn default() -> Self {
        Named::new()
    }
}

impl<T> Clone for Named<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for Named<T> {}

impl<T: Decode> Schema for Named<T> {
    type Out = T;
    fn expect(self) -> Expect {
        T::EXPECT
    }
    #[inline]
    fn decode<'de>(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<T>> {
        T::decode(src, cx)
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'_>) -> Option<T> {
        T::scan(r)
    }
}

/// A schema whose value may borrow from the input (`'de`): the borrowed views of structs.
pub trait SchemaRef<'de>: Copy {
    /// The value a valid input becomes.
    type Out;
    /// Decodes one value; see [`Schema::decode`].
    fn decode(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>>;
    /// Reads one plain, valid value with the fast reader; see [`Schema::scan`].
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out>;
}

/// A generated borrowed view (`RequestRef<'a>`): decodes itself, borrowing strings and raw
/// values from the input, and is made from its owned type when it cannot borrow.
pub trait DecodeRef<'de>: Sized {
    /// The owned type this views.
    type Owned: Decode;
    /// The view of an owned value (every field owned).
    fn from_owned(owned: Self::Owned) -> Self;
    /// The owned value.
    fn into_owned(self) -> Self::Owned;
    /// Decodes one value; see [`Schema::decode`]. By default the owned type's decoder, the
    /// value viewed (a frame's view borrows from the input instead). A default method is
    /// compiled only for the views that are decoded, not for every view.
    #[inline]
    fn decode(src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self>> {
        Ok(<Self::Owned as Decode>::decode(src, cx)?.map(Self::from_owned))
    }
    /// Reads one plain, valid value with the fast reader, borrowing its strings; `None` when
    /// not sure (the caller runs `decode`). See `wire::scan`.
    #[inline]
    fn scan(r: &mut Scanner<'de>) -> Option<Self> {
        let _ = r;
        None
    }
}

/// [`Str`], borrowed from the input when it has no escapes.
#[derive(Clone, Copy, Debug, Default)]
pub struct StrRef(pub Str);

struct StrRefA<'a> {
    s: Str,
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for StrRefA<'_> {
    accept_head!(Cow<'de, str>, Expect::Type("string"));
    #[inline]
    fn str(self, v: &str) -> Option<Cow<'de, str>> {
        StrA {
            s: self.s,
            cx: &mut *self.cx,
        }
        .check(v)
        .then(|| Cow::Owned(v.to_owned()))
    }
    #[inline]
    fn string(self, v: String) -> Option<Cow<'de, str>> {
        StrA {
            s: self.s,
            cx: &mut *self.cx,
        }
        .check(&v)
        .then_some(Cow::Owned(v))
    }
    #[inline]
    fn borrowed_str(self, v: &'de str) -> Option<Cow<'de, str>> {
        StrA {
            s: self.s,
            cx: &mut *self.cx,
        }
        .check(v)
        .then_some(Cow::Borrowed(v))
    }
}

impl<'de> SchemaRef<'de> for StrRef {
    type Out = Cow<'de, str>;
    #[inline]
    fn decode(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>> {
        accept(src, StrRefA { s: self.0, cx })
    }
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        let (min, max) = self.0.bounds();
        scan_str_ref(r, min, max)
    }
}

/// [`StrRef`]'s fast reader, out of line as [`scan_string`] is.
#[inline(never)]
fn scan_str_ref<'de>(r: &mut Scanner<'de>, min: u64, max: u64) -> Option<Cow<'de, str>> {
    scan_within(r, min, max)
}

/// A raw value with the tokens of the markers in it put back (see `js`).
#[inline]
fn restore_cow<'a>(
    cx: &Cx,
    raw: Cow<'a, serde_json::value::RawValue>,
) -> Cow<'a, serde_json::value::RawValue> {
    match super::js::restore(cx.marks(), raw.get())
        .and_then(|t| serde_json::value::RawValue::from_string(t).ok())
    {
        Some(restored) => Cow::Owned(restored),
        None => raw,
    }
}

/// [`Unknown`], its text borrowed from the input when the input lends it.
#[derive(Clone, Copy, Debug, Default)]
pub struct UnknownRef;

impl<'de> SchemaRef<'de> for UnknownRef {
    type Out = Cow<'de, serde_json::value::RawValue>;
    #[inline]
    fn decode(self, src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<Self::Out>> {
        let raw = raw_value(src.text()?)?;
        Ok(Some(restore_cow(cx, raw)))
    }
    /// The value's text as the fast reader read it, not read again (no marker to restore:
    /// see [`Unknown::scan`]).
    #[inline]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        super::serde_json_internals::lend_scanned(r.raw()?).map(Cow::Borrowed)
    }
}
