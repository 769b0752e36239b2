//! The entry points: a JSON text parsed and validated, or a serde deserializer read, into a
//! generated type or any schema's value, and [`ParseError`], the verdict when it is not one.
//!
//! One driver serves every schema: the fast reader first (`scan`), then the decoder, the
//! authority, when it is not sure, with the retry of a tagged union streamed from the live map
//! (`union::with_live_tags`); text that only `JSON.parse` reads (see `js`) is read again as
//! JavaScript reads it. It is one copy for every type, behind the small `Reads` trait object.
//!
//! Above the readers it drives (`scan`, `source`, `schema`, `union`) and below the modules that
//! parse with it (`view`, `table`, `typed`); `mod.rs` only declares the modules and re-exports.

use super::issue::{self, Cx, Issue, prettify};
use super::js;
use super::scan::{Scanner, scan_str};
use super::schema::{BoolLit, Decode, DecodeRef, IntLit, Named, RawJson, Schema};
use super::serde_json_internals;
use super::source::{self, Read, Src};
use super::union;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// Why a JSON text is not a valid value.
#[derive(Debug)]
pub struct ParseError {
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// Not JSON at all (or nested deeper than 128).
    Syntax(serde_json::Error),
    /// JSON, but not a valid value: the first [`MAX_ISSUES`](issue::MAX_ISSUES) issues in the order found,
    /// sorted as displayed, and how many more there were.
    Invalid(Vec<Issue>, usize),
}

impl ParseError {
    fn invalid(issues: Vec<Issue>) -> ParseError {
        let (mut issues, more) = issue::cap(issues);
        issue::sort_issues(&mut issues);
        ParseError {
            kind: Kind::Invalid(issues, more),
        }
    }

    /// A JSON syntax error.
    pub fn syntax(e: serde_json::Error) -> ParseError {
        ParseError {
            kind: Kind::Syntax(e),
        }
    }

    /// The issues shown, in display order: at most [`MAX_ISSUES`](issue::MAX_ISSUES) (empty for a syntax
    /// error).
    pub fn issues(&self) -> &[Issue] {
        match &self.kind {
            Kind::Invalid(i, _) => i,
            Kind::Syntax(_) => &[],
        }
    }

    /// How many issues there were beyond those shown ([`ParseError::issues`]).
    pub fn more_issues(&self) -> usize {
        match &self.kind {
            Kind::Invalid(_, more) => *more,
            Kind::Syntax(_) => 0,
        }
    }

    /// Whether this is a syntax error on text `JSON.parse` reads (see `js`).
    fn js_reads(&self) -> bool {
        matches!(&self.kind, Kind::Syntax(e) if serde_json_internals::js_reads(e))
    }

    /// Whether the text was not JSON at all.
    pub fn is_syntax(&self) -> bool {
        matches!(self.kind, Kind::Syntax(_))
    }

    /// The message: the prettified issues, or the JSON parser's own words.
    pub fn message(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Syntax(e) => e.fmt(f),
            Kind::Invalid(issues, 0) => f.write_str(&prettify(issues)),
            Kind::Invalid(issues, more) => {
                write!(f, "{}\n{}", prettify(issues), issue::more_issues(*more))
            }
        }
    }
}

impl std::error::Error for ParseError {}

/// Parses and validates a generated type from JSON text.
#[inline]
pub fn from_str<T: Decode>(json: &str) -> Result<T, ParseError> {
    from_str_with(Named::<T>::new(), json)
}

/// Parses and validates a generated borrowed view (`RequestRef<'a>`) from JSON text: its
/// strings and raw values borrow from `json` when they can. The fast reader first (`scan`),
/// then the decoder, the authority, when it is not sure. Text that only JavaScript reads
/// (see `js`) is parsed as the owned type instead, with the same verdict.
pub fn from_str_ref<'a, T: DecodeRef<'a>>(json: &'a str) -> Result<T, ParseError> {
    if let Some(v) = scan_str(json, T::scan) {
        return Ok(v);
    }
    union::with_live_tags(None, |cx| from_str_ref_once(json, cx))
}

#[inline]
fn from_str_ref_once<'a, T: DecodeRef<'a>>(json: &'a str, cx: &mut Cx) -> Result<T, ParseError> {
    let mut de = serde_json::Deserializer::from_str(json);
    let first =
        source::read_de(&mut de, |src| T::decode(src, cx)).and_then(|v| de.end().map(|()| v));
    match first {
        Ok(Some(v)) if cx.is_empty() => Ok(v),
        Ok(_) => Err(ParseError::invalid(cx.take_issues())),
        Err(e) => {
            let e = ParseError::syntax(e);
            if e.js_reads() {
                from_str::<T::Owned>(json).map(T::from_owned)
            } else {
                Err(e)
            }
        }
    }
}

/// Parses and validates JSON bytes, read as [`text_of_bytes`] reads them (as the ports and a
/// JavaScript host's `TextDecoder` do): the verdict is the one on that text
/// (docs/wire-semantics.md).
pub fn from_slice<T: Decode>(json: &[u8]) -> Result<T, ParseError> {
    from_str(&text_of_bytes(json))
}

/// The UTF-8 byte order mark, which `TextDecoder` drops at the start of what it reads.
const BOM: &[u8] = "\u{feff}".as_bytes();

/// Bytes as text, read as `TextDecoder` reads them (its defaults: `fatal` and `ignoreBOM`
/// off): one byte order mark at the start dropped, each sequence that is not UTF-8 read as
/// U+FFFD. Borrowed when the bytes are UTF-8: the frame is not copied.
pub fn text_of_bytes(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes.strip_prefix(BOM).unwrap_or(bytes))
}

/// [`text_of_bytes`] of an owned buffer: its allocation is the text's when the bytes are
/// UTF-8 (a byte order mark is removed in place).
pub fn text_of_vec(mut bytes: Vec<u8>) -> String {
    if bytes.starts_with(BOM) {
        bytes.drain(..BOM.len());
    }
    String::from_utf8(bytes)
        .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned())
}

impl RawJson {
    /// The value parsed and validated as a generated type.
    pub fn parse<T: Decode>(&self) -> Result<T, ParseError> {
        from_str::<T>(self.get())
    }
}

/// Parses and validates JSON text with any schema (a primitive with limits, an array, ...).
///
/// Where `JSON.parse` reads what serde_json refuses (`1e400`, a lone surrogate escape), the
/// text is read again the way JavaScript reads it (see `js`), so the verdict is Zod's.
pub fn from_str_with<S: Schema>(schema: S, json: &str) -> Result<S::Out, ParseError> {
    parse_with(json, |r| schema.scan(r), |src, cx| schema.decode(src, cx))
}

/// Parses and validates JSON text with a fast reader (`scan`, `None` when it is not sure) and
/// a decoder (`decode`, the authority), as [`from_str_with`] does with a schema's. A table's
/// entry is parsed so (`Request::parse_payload`): a provided method, so an entry's fast reader
/// is compiled only in the crate that parses that entry.
#[inline]
pub fn parse_with<T>(
    json: &str,
    scan: impl FnMut(&mut Scanner<'_>) -> Option<T>,
    decode: impl FnMut(&mut dyn Src<'_>, &mut Cx) -> Read<Option<T>>,
) -> Result<T, ParseError> {
    let mut reads = FnReads {
        scan,
        decode,
        out: None,
    };
    read_text(&mut reads, json)?;
    Ok(reads.value())
}

/// Parses and validates JSON text with a decoder alone, the verdict of [`parse_with`] without
/// the fast reader: what the tables' by-name parse (`RequestPayload::parse`) runs, so that a
/// crate of generated types compiles one reader per type, its decoder.
pub fn decode_with<T>(
    json: &str,
    decode: impl FnMut(&mut dyn Src<'_>, &mut Cx) -> Read<Option<T>>,
) -> Result<T, ParseError> {
    let mut reads = FnReads {
        scan: |_: &mut Scanner<'_>| None,
        decode,
        out: None,
    };
    decode_all(&mut reads, json)?;
    Ok(reads.value())
}

/// The typed half of a parse by [`parse_with`]: the fast reader and the decoder, each leaving
/// what it read in the value. Behind it, the driver ([`read_text`]) and the decoder's passes
/// are one copy for every type, not one per type.
trait Reads {
    /// The fast reader; true when it read a value.
    fn scan(&mut self, r: &mut Scanner<'_>) -> bool;
    /// The decoder; true when it read a valid value.
    fn decode(&mut self, src: &mut dyn Src<'_>, cx: &mut Cx) -> Read<bool>;
}

/// A fast reader and a decoder as [`Reads`], and the value they read.
struct FnReads<T, S, D> {
    scan: S,
    decode: D,
    out: Option<T>,
}

impl<T, S, D> FnReads<T, S, D> {
    /// The value read, after a parse that answered `Ok` (which it does only with one).
    fn value(self) -> T {
        self.out
            .expect("a parse answers Ok only with the value read")
    }
}

impl<T, S, D> Reads for FnReads<T, S, D>
where
    S: FnMut(&mut Scanner<'_>) -> Option<T>,
    D: FnMut(&mut dyn Src<'_>, &mut Cx) -> Read<Option<T>>,
{
    #[inline]
    fn scan(&mut self, r: &mut Scanner<'_>) -> bool {
        self.out = (self.scan)(r);
        self.out.is_some()
    }

    fn decode(&mut self, src: &mut dyn Src<'_>, cx: &mut Cx) -> Read<bool> {
        // A match, not `?`: the error's conversion would be one more instance per type.
        match (self.decode)(src, cx) {
            Ok(out) => {
                self.out = out;
                Ok(self.out.is_some())
            }
            Err(stop) => Err(stop),
        }
    }
}

/// A whole parse: plain, valid text by the fast reader; anything else by the decoder
/// ([`decode_all`]). `Ok` when `reads` holds the value.
fn read_text(reads: &mut dyn Reads, json: &str) -> Result<(), ParseError> {
    if scan_str(json, |r| reads.scan(r).then_some(())).is_some() {
        return Ok(());
    }
    decode_all(reads, json)
}

/// The decoder's parse of `json`; text that only `JSON.parse` reads, rewritten and decoded
/// again. `Ok` when `reads` holds the value.
fn decode_all(reads: &mut dyn Reads, json: &str) -> Result<(), ParseError> {
    match decode_text(reads, json, None) {
        Err(e) if e.is_syntax() => js_again(reads, json, e),
        r => r,
    }
}

/// The decoder's parse of `json` (see `union::with_live_tags`), one copy for the first read
/// and the JavaScript one.
fn decode_text(
    reads: &mut dyn Reads,
    json: &str,
    marks: Option<&Arc<js::Marks>>,
) -> Result<(), ParseError> {
    union::with_live_tags(marks, |cx| decode_once(reads, json, cx))
}

/// One pass of the decoder over `json` in `cx`.
fn decode_once(reads: &mut dyn Reads, json: &str, cx: &mut Cx) -> Result<(), ParseError> {
    let mut de = serde_json::Deserializer::from_str(json);
    let valid =
        source::read_de(&mut de, |src| reads.decode(src, cx)).map_err(ParseError::syntax)?;
    de.end().map_err(ParseError::syntax)?;
    if valid && cx.is_empty() {
        Ok(())
    } else {
        Err(ParseError::invalid(cx.take_issues()))
    }
}

/// The decoder alone on `json`, in `cx` as it is (a test runs it with streaming off).
#[cfg(test)]
pub(crate) fn decode_in<S: Schema>(
    schema: S,
    json: &str,
    cx: &mut Cx,
) -> Result<S::Out, ParseError> {
    let mut reads = FnReads {
        scan: |r: &mut Scanner<'_>| schema.scan(r),
        decode: |src: &mut dyn Src<'_>, cx: &mut Cx| schema.decode(src, cx),
        out: None,
    };
    decode_once(&mut reads, json, cx)?;
    Ok(reads.value())
}

/// A syntax error: when it is text `JSON.parse` reads, the text rewritten as JavaScript reads
/// it (every out-of-range number marked, every lone surrogate replaced), decoded again with
/// the markers in force; else the error. The decoder alone reads the rewritten text.
#[cold]
#[inline(never)]
fn js_again(reads: &mut dyn Reads, json: &str, e: ParseError) -> Result<(), ParseError> {
    let Some((text, marks)) = js_text(json, &e) else {
        return Err(e);
    };
    // The markers travel in the context of the decode of the rewritten text.
    decode_text(reads, &text, marks.as_ref())
}

/// The text of [`js_again`] and its markers: `None` when `e` is not on text `JSON.parse`
/// reads, or the text has nothing to rewrite.
#[cold]
#[inline(never)]
fn js_text<'a>(json: &'a str, e: &ParseError) -> Option<(Cow<'a, str>, Option<Arc<js::Marks>>)> {
    if !e.js_reads() {
        return None;
    }
    let surrogates = js::replace_lone_surrogates(json);
    let marked = js::mark(surrogates.as_deref().unwrap_or(json));
    match (surrogates, marked) {
        (_, Some((marked, marks))) => Some((Cow::Owned(marked), Some(Arc::new(marks)))),
        (Some(replaced), None) => Some((Cow::Owned(replaced), None)),
        (None, None) => None,
    }
}

/// A default value written in the schema, decoded with its field's schema. `check` makes sure
/// it is valid; an invalid one is a bug in the schema compiler.
pub fn default_from_json<S: Schema>(schema: S, json: &str) -> S::Out {
    match from_str_with(schema, json) {
        Ok(v) => v,
        Err(e) => panic!("a schema default the compiler let through is invalid: {e}"),
    }
}

/// The body of a generated type's `serde::Deserialize`: its error is the prettified text.
pub fn deserialize<'de, T: Decode, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    let mut cx = Cx::new();
    match source::read_de(d, |src| T::decode(src, &mut cx))? {
        Some(v) if cx.is_empty() => Ok(v),
        _ => Err(serde::de::Error::custom(ParseError::invalid(
            cx.into_issues(),
        ))),
    }
}

/// An integer literal's type read by serde as a generated type is: `N` or an error.
impl<'de, const N: i64> serde::Deserialize<'de> for IntLit<N> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize(d)
    }
}

/// A boolean literal's type read by serde as a generated type is: `B` or an error.
impl<'de, const B: bool> serde::Deserialize<'de> for BoolLit<B> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        deserialize(d)
    }
}
