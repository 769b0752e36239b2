//! Enums and unions: closed and open string and integer enums, tagged unions (the tag may be any key of
//! the object) and untagged unions (variants tried in order).
//!
//! An untagged union of structs tries first the variant its required literal keys allow
//! ([`Literal`], `literals_hold`): the decoder's pick, and the fast reader's, `Scanner::pick`,
//! written here as a method of the scanner, since a literal is matched as its schema decodes
//! it.

use super::issue::Mode;
use super::issue::{Cx, Expect, Issue, Seg};
use super::js::Marks;
use super::scan::Scanner;
use super::schema::{Decode, Int, LitInt, LitStr, Schema};
use super::serde_json_internals::{self as internals, CaptureSeed, CowKey, MAX_DEPTH};
use super::source::{
    Accept, Key, Map, Num, Read, Seq, Sink, Src, Stop, accept, read_text, skip_map, skip_seq,
};
use serde::de::{Deserializer, MapAccess, Visitor};
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

/// Refuses a value parsed again from buffered text beyond serde_json's nesting limit, in
/// its words: each re-parse starts a fresh parser, so the depth is counted on the path.
fn check_depth(cx: &Cx) -> Read<()> {
    if cx.depth() >= MAX_DEPTH {
        Err(Stop::with(internals::RECURSION_LIMIT))
    } else {
        Ok(())
    }
}

/// A closed enum being decoded: the index of the listed value a string is. One type for
/// every enum, so the decoder's handling of its shapes is one copy.
struct EnumA<'a> {
    cx: &'a mut Cx,
    values: &'static [&'static str],
}

impl<'de> Accept<'de> for EnumA<'_> {
    type Out = usize;
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::OneOf(self.values)
    }
    fn str(self, v: &str) -> Option<usize> {
        match self.values.iter().position(|value| *value == v) {
            Some(i) => Some(i),
            None => self.reject("string"),
        }
    }
}

/// Decodes a closed enum: `pick` maps a listed value to its variant.
pub fn decode_enum<'de, T>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    values: &'static [&'static str],
    pick: fn(&str) -> Option<T>,
) -> Read<Option<T>> {
    let i = accept(src, EnumA { cx, values })?;
    Ok(i.and_then(|i| pick(values[i])))
}

/// A closed integer enum being decoded: the listed integer a number is (`1.0` and `1e0` are
/// 1, as `JSON.parse` reads them). Anything else is `Invalid option: expected one of 1|2`,
/// as Zod's `z.enum` says it whatever the value's type.
struct IntEnumA<'a> {
    cx: &'a mut Cx,
    values: &'static [i64],
}

impl<'de> Accept<'de> for IntEnumA<'_> {
    type Out = i64;
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::OneOfInt(self.values)
    }
    fn num(self, n: Num) -> Option<i64> {
        let whole = match n {
            Num::U(u) => i64::try_from(u).ok(),
            Num::I(i) => Some(i),
            Num::F(_) => None,
        };
        let found = match whole {
            Some(i) => self.values.iter().copied().find(|v| *v == i),
            // Every listed value is a safe integer, which a double holds exactly.
            None => self
                .values
                .iter()
                .copied()
                .find(|v| n.as_f64() == *v as f64),
        };
        match found {
            Some(i) => Some(i),
            None => self.reject("number"),
        }
    }
}

/// Decodes a closed integer enum: `pick` maps a listed value to its variant.
pub fn decode_int_enum<'de, T>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    values: &'static [i64],
    pick: fn(i64) -> Option<T>,
) -> Read<Option<T>> {
    let i = accept(src, IntEnumA { cx, values })?;
    Ok(i.and_then(pick))
}

/// Decodes an open integer enum: any `int` (its messages), `pick` keeping an unlisted one.
pub fn decode_open_int_enum<'de, T>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    pick: fn(i64) -> T,
) -> Read<Option<T>> {
    let i = Int::default().decode(src, cx)?;
    Ok(i.map(pick))
}

/// An open enum being decoded: any string, owned (the decoder's path only).
struct OpenEnumA<'a> {
    cx: &'a mut Cx,
}

impl<'de> Accept<'de> for OpenEnumA<'_> {
    type Out = String;
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::Type("string")
    }
    fn str(self, v: &str) -> Option<String> {
        Some(v.to_owned())
    }
    fn string(self, v: String) -> Option<String> {
        Some(v)
    }
}

/// Decodes an open enum: any string; `pick` keeps unknown ones.
pub fn decode_open_enum<'de, T>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    pick: fn(Cow<'_, str>) -> T,
) -> Read<Option<T>> {
    let v = accept(src, OpenEnumA { cx })?;
    Ok(v.map(|v| pick(Cow::Owned(v))))
}

/// An object's entries with their values' JSON text, in wire order, handed to a variant as
/// the whole object. `lend` gives an entry's text as the reader lends it (`'x`): any entry's
/// for [`Entries`], only one borrowed from the input for [`LentEntries`].
pub struct EntriesOf<'s, 'de, 'x> {
    items: &'s [(Cow<'de, str>, Cow<'de, str>)],
    lend: fn(&'s Cow<'de, str>) -> Read<&'x str>,
}

/// A tagged union's object, handed to its variant: its entries with their raw values, in
/// wire order.
pub type Entries<'a> = EntriesOf<'a, 'a, 'a>;

/// An object's entries, every key and value borrowed from the input, handed to a variant's
/// borrowed view ([`decode_untagged_objects_ref`]).
pub type LentEntries<'s, 'de> = EntriesOf<'s, 'de, 'de>;

/// The text of any entry of an [`Entries`].
fn any_entry<'a>(c: &'a Cow<'a, str>) -> Read<&'a str> {
    Ok(c)
}

/// The borrowed text of an entry: every entry of a [`LentEntries`] is.
fn lent<'de>(c: &Cow<'de, str>) -> Read<&'de str> {
    match c {
        Cow::Borrowed(s) => Ok(s),
        Cow::Owned(_) => Err(Stop::with("an entry not borrowed from the input")),
    }
}

impl<'a> Entries<'a> {
    /// The entries `items`, each lent as the buffer holds it.
    fn new(items: &'a [(Cow<'a, str>, Cow<'a, str>)]) -> Self {
        EntriesOf {
            items,
            lend: any_entry,
        }
    }
}

impl<'s, 'de> LentEntries<'s, 'de> {
    /// The entries `items`, every one borrowed from the input.
    fn lent(items: &'s [(Cow<'de, str>, Cow<'de, str>)]) -> Self {
        EntriesOf { items, lend: lent }
    }
}

impl<'a> Entries<'a> {
    /// Decodes the whole object as `T` (a tagged union's variant).
    pub fn decode<T: Decode>(mut self, cx: &mut Cx) -> Read<Option<T>> {
        T::decode(&mut self, cx)
    }

    /// Decodes the whole object with a schema.
    pub fn decode_with<S: Schema>(mut self, schema: S, cx: &mut Cx) -> Read<Option<S::Out>> {
        schema.decode(&mut self, cx)
    }
}

/// The message of a request for the text of a value that has none of its own (an object
/// rebuilt from its entries), as serde_json's raw value protocol words it.
const NO_TEXT: &str = "expected a JSON value from serde_json";

impl<'s, 'de, 'x> Src<'x> for EntriesOf<'s, 'de, 'x> {
    fn any(&mut self, sink: &mut dyn Sink<'x>) -> Read<()> {
        sink.map(&mut EntriesMap {
            items: self.items.iter(),
            value: None,
            lend: self.lend,
        })
    }
    fn option(&mut self, some: &mut dyn FnMut(&mut dyn Src<'x>) -> Read<()>) -> Read<bool> {
        some(self).map(|()| false)
    }
    fn text(&mut self) -> Read<Cow<'x, str>> {
        Err(Stop::with(NO_TEXT))
    }
    fn skip(&mut self) -> Read<()> {
        Ok(())
    }
}

/// The entries of an [`EntriesOf`], each value its text.
struct EntriesMap<'s, 'de, 'x> {
    items: std::slice::Iter<'s, (Cow<'de, str>, Cow<'de, str>)>,
    value: Option<&'x str>,
    lend: fn(&'s Cow<'de, str>) -> Read<&'x str>,
}

impl<'x> Map<'x> for EntriesMap<'_, '_, 'x> {
    fn next_key(&mut self, key: &mut dyn FnMut(Key<'_, 'x>)) -> Read<bool> {
        match self.items.next() {
            None => Ok(false),
            Some((k, v)) => {
                self.value = Some((self.lend)(v)?);
                key(Key::Lent((self.lend)(k)?));
                Ok(true)
            }
        }
    }
    fn next_value(&mut self, value: &mut dyn FnMut(&mut dyn Src<'x>) -> Read<()>) -> Read<()> {
        let text = self
            .value
            .take()
            .ok_or_else(|| Stop::with("value without a key"))?;
        value(&mut RawText(text))
    }
}

/// A value's JSON text as a reader: parsed by serde_json, except that a raw value (`unknown`)
/// is handed the text as it is, with no second scan.
struct RawText<'a>(&'a str);

impl<'a> Src<'a> for RawText<'a> {
    fn any(&mut self, sink: &mut dyn Sink<'a>) -> Read<()> {
        // The text is one value serde_json already read: a string without escapes is its
        // contents, as serde_json would hand them over.
        if let Some(inner) = plain_str(self.0) {
            sink.borrowed_str(inner);
            return Ok(());
        }
        read_text(self.0, |src| src.any(sink))
    }
    fn option(&mut self, some: &mut dyn FnMut(&mut dyn Src<'a>) -> Read<()>) -> Read<bool> {
        read_text(self.0, |src| src.option(some))
    }
    fn text(&mut self) -> Read<Cow<'a, str>> {
        Ok(Cow::Borrowed(self.0))
    }
    /// An unknown key's value: serde_json already read it, so nothing is read again. Read
    /// again as any value, a number beyond a double (`1e400`) would fail where the streamed
    /// path's skip does not, and the text's JavaScript rewrite would then change the
    /// `unknown` values elsewhere in it.
    fn skip(&mut self) -> Read<()> {
        Ok(())
    }
}

/// A generated tagged union: its tag key, its tag values, and the decode of the variant a
/// tag value names.
pub trait Tagged: Sized {
    /// The key whose value picks the variant.
    const TAG_KEY: &'static str;
    /// Every tag value, in order.
    const TAG_VALUES: &'static [&'static str];
    /// Decodes the whole object (`src`) as the variant tagged `tag`; `None` for an unknown
    /// tag (before `src` is read).
    fn pick<'de>(tag: &str, src: &mut dyn Src<'de>, cx: &mut Cx) -> Option<Read<Option<Self>>>;
}

/// The message of a tag that is absent or unknown.
fn discriminator(tags: &[&str]) -> String {
    let list: Vec<String> = tags.iter().map(|t| format!("'{t}'")).collect();
    format!("Invalid discriminator value. Expected {}", list.join(" | "))
}

/// The JSON type of a value's text, as a failure message names it.
fn json_type(text: &str) -> &'static str {
    match text.as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// Runs a whole parse (`f` starts from the text each time, in the context it is handed)
/// with tagged unions read straight from the live map when their first key is the tag. When
/// one met a later duplicate of its tag with another value (its variant was already being
/// read), the parse is run again with every tagged union captured first, so the last tag
/// wins. Only a caller that can start the parse over may stream, so a context is made
/// streaming only here. `marks`: those of a text rewritten as JavaScript reads it (`js`).
#[inline]
pub(crate) fn with_live_tags<R>(marks: Option<&Arc<Marks>>, mut f: impl FnMut(&mut Cx) -> R) -> R {
    let mut cx = Cx::with_mode(Mode {
        live: true,
        marks: marks.cloned(),
    });
    let r = f(&mut cx);
    if cx.conflict() { again(marks, f) } else { r }
}

/// The parse again, every tagged union captured first.
#[cold]
#[inline(never)]
fn again<R>(marks: Option<&Arc<Marks>>, mut f: impl FnMut(&mut Cx) -> R) -> R {
    f(&mut Cx::with_mode(Mode {
        live: false,
        marks: marks.cloned(),
    }))
}

/// Decodes a tagged union: finds the tag wherever it is in the object (the last duplicate
/// wins), then decodes the whole object as the variant.
///
/// Inside `with_live_tags` (a parse that can start over), when the object's first key is the
/// tag (as every writer of these frames puts it), the variant is read straight from the live
/// map, the tag entry replayed to it; a later duplicate of the tag only needs to agree with the
/// first, else the parse starts over with streaming off. When the first key is not the tag, the entries are
/// buffered (borrowed `(key, value text)`) and the last tag wins.
///
/// Outside it (a parse read again after a conflict, or a generated type's `Deserialize` run
/// by another deserializer), the object is captured as text (borrowed from the input when it
/// can be), its entries buffered, and the last tag wins. One path, not a second one for a tag
/// that comes first: it would cost every variant two more copies of its decoder (a guarded
/// map and a visitor over it), for speed on a path that only odd input takes.
pub fn decode_tagged<'de, T: Tagged>(src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<T>> {
    check_depth(cx)?;
    if cx.live_tags() {
        let mut out = None;
        accept(src, TaggedA::<T> { cx, out: &mut out })?;
        return Ok(out);
    }
    let text = src.text()?;
    let received = json_type(&text);
    if received != "object" {
        // A number JavaScript reads as Infinity arrives as a marker (see `js`).
        let received = match received {
            "number" => super::js::received_number(cx.marks(), &text),
            _ => received,
        };
        cx.mismatch(Expect::Type("object"), received);
        return Ok(None);
    }
    let items = serde_json::Deserializer::from_str(&text)
        .deserialize_map(BufferV)
        .map_err(Stop::with)?;
    decode_items::<T>(&items, cx)
}

/// The buffered path: every entry with its raw value, then the variant of the last tag.
fn decode_items<T: Tagged>(items: &[(Cow<'_, str>, Cow<'_, str>)], cx: &mut Cx) -> Read<Option<T>> {
    let tag = T::TAG_KEY;
    let tag_value = items
        .iter()
        .rev()
        .find(|(k, _)| k == tag)
        .and_then(|(_, v)| serde_json::from_str::<String>(v).ok());
    let picked = tag_value.and_then(|t| T::pick(&t, &mut Entries::new(items), cx));
    match picked {
        Some(r) => r,
        None => {
            cx.push(Seg::Key(Cow::Borrowed(tag)));
            cx.issue(discriminator(T::TAG_VALUES), false);
            cx.pop();
            Ok(None)
        }
    }
}

/// A tagged union read from the live map (see [`decode_tagged`]).
struct TaggedA<'a, T> {
    cx: &'a mut Cx,
    /// The variant, written in place (not moved back up through the parser's layers).
    out: &'a mut Option<T>,
}

impl<'de, T: Tagged> Accept<'de> for TaggedA<'_, T> {
    type Out = ();
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::Type("object")
    }
    fn map(self, map: &mut dyn Map<'de>) -> Read<Option<()>> {
        let (cx, out) = (self.cx, self.out);
        let mut items: Items<'de> = Vec::new();
        if let Some(key) = next_cow_key(map)? {
            let raw = next_text(map)?;
            if key == T::TAG_KEY
                && let Some(value) = plain_str(&raw).filter(|v| T::TAG_VALUES.contains(v))
            {
                let conflict = Cell::new(false);
                let mut live = LiveSrc {
                    map: &mut *map,
                    tag: T::TAG_KEY,
                    value,
                    conflict: &conflict,
                };
                if let Some(r) = T::pick(value, &mut live, cx) {
                    if conflict.get() {
                        cx.note_conflict();
                    }
                    *out = r?;
                    return Ok(Some(()));
                }
            }
            items.push((key, raw));
            while let Some(k) = next_cow_key(map)? {
                let v = next_text(map)?;
                items.push((k, v));
            }
        }
        *out = decode_items::<T>(&items, cx)?;
        Ok(Some(()))
    }
}

/// The next key of `map`, borrowed from the input when it is; `None` at the end.
fn next_cow_key<'de>(map: &mut dyn Map<'de>) -> Read<Option<Cow<'de, str>>> {
    let mut key = None;
    map.next_key(&mut |k| key = Some(k.into_cow()))?;
    Ok(key)
}

/// The text of the value of the key just read.
fn next_text<'de>(map: &mut dyn Map<'de>) -> Read<Cow<'de, str>> {
    let mut text = None;
    map.next_value(&mut |value| {
        text = Some(value.text()?);
        Ok(())
    })?;
    text.ok_or_else(|| Stop::with("value without a key"))
}

/// A JSON string's text without escapes: its contents.
#[inline]
fn plain_str(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then_some(inner)
}

/// The rest of a live map whose first entry (the tag, with `value`) was read, as the whole
/// object for the variant: the tag entry is replayed first.
struct LiveSrc<'m, 'v, 'de> {
    map: &'m mut dyn Map<'de>,
    tag: &'static str,
    value: &'v str,
    /// Set when a later duplicate of the tag disagrees (the parse is to start over).
    conflict: &'v Cell<bool>,
}

impl<'de> LiveSrc<'_, '_, 'de> {
    fn entries(&mut self) -> LiveMap<'_, '_, 'de> {
        LiveMap {
            map: &mut *self.map,
            tag: self.tag,
            value: self.value,
            conflict: self.conflict,
            replay: Replay::Key,
            at_tag: false,
        }
    }
}

impl<'de> Src<'de> for LiveSrc<'_, '_, 'de> {
    fn any(&mut self, sink: &mut dyn Sink<'de>) -> Read<()> {
        sink.map(&mut self.entries())
    }
    fn option(&mut self, some: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<bool> {
        some(self).map(|()| false)
    }
    fn text(&mut self) -> Read<Cow<'de, str>> {
        Err(Stop::with(NO_TEXT))
    }
    fn skip(&mut self) -> Read<()> {
        skip_map(&mut self.entries())
    }
}

/// Where [`LiveMap`] is in replaying the tag entry it was handed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Replay {
    Key,
    Value,
    Done,
}

/// The live map as the variant reads it: the tag entry first, then every later key checked
/// against the tag, whose duplicates must hold the same value.
struct LiveMap<'m, 'v, 'de> {
    map: &'m mut dyn Map<'de>,
    tag: &'static str,
    value: &'v str,
    conflict: &'v Cell<bool>,
    replay: Replay,
    /// The last key read was the tag.
    at_tag: bool,
}

impl<'de> Map<'de> for LiveMap<'_, '_, 'de> {
    fn next_key(&mut self, key: &mut dyn FnMut(Key<'_, 'de>)) -> Read<bool> {
        if self.replay == Replay::Key {
            self.replay = Replay::Value;
            key(Key::Lent(self.tag));
            return Ok(true);
        }
        let (tag, at_tag) = (self.tag, &mut self.at_tag);
        self.map.next_key(&mut |k| {
            *at_tag = k.as_str() == tag;
            key(k)
        })
    }
    fn next_value(&mut self, value: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<()> {
        if self.replay == Replay::Value {
            self.replay = Replay::Done;
            return value(&mut StrSrc(self.value));
        }
        if !std::mem::take(&mut self.at_tag) {
            return self.map.next_value(value);
        }
        let mut sink = TagSink(None);
        self.map.next_value(&mut |v| v.any(&mut sink))?;
        match sink.0 {
            Some(v) if v == self.value => value(&mut StrSrc(self.value)),
            _ => {
                self.conflict.set(true);
                Err(Stop::with("the tag changed; reading the input again"))
            }
        }
    }
}

/// A string the runtime holds, as a reader (a tag value replayed).
struct StrSrc<'v>(&'v str);

impl<'de> Src<'de> for StrSrc<'_> {
    fn any(&mut self, sink: &mut dyn Sink<'de>) -> Read<()> {
        sink.str(self.0);
        Ok(())
    }
    fn option(&mut self, some: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<bool> {
        some(self).map(|()| false)
    }
    fn text(&mut self) -> Read<Cow<'de, str>> {
        serde_json::to_string(self.0)
            .map(Cow::Owned)
            .map_err(Stop::with)
    }
    fn skip(&mut self) -> Read<()> {
        Ok(())
    }
}

type Items<'a> = Vec<(Cow<'a, str>, Cow<'a, str>)>;

struct BufferV;

impl<'de> Visitor<'de> for BufferV {
    type Value = Items<'de>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Items<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(k) = map.next_key_seed(CowKey)? {
            let v = map.next_value_seed(CaptureSeed)?;
            items.push((k, v));
        }
        Ok(items)
    }
}

/// A tag's value: the string, or `None` for any other JSON value (skipped).
struct TagSink<'de>(Option<Cow<'de, str>>);

impl<'de> Sink<'de> for TagSink<'de> {
    fn str(&mut self, v: &str) {
        self.0 = Some(Cow::Owned(v.to_owned()));
    }
    fn string(&mut self, v: String) {
        self.0 = Some(Cow::Owned(v));
    }
    fn borrowed_str(&mut self, v: &'de str) {
        self.0 = Some(Cow::Borrowed(v));
    }
    fn bool(&mut self, _: bool) {}
    fn num(&mut self, _: Num) {}
    fn f64(&mut self, _: f64) {}
    fn null(&mut self) {}
    fn seq(&mut self, seq: &mut dyn Seq<'de>) -> Read<()> {
        skip_seq(seq)
    }
    fn map(&mut self, map: &mut dyn Map<'de>) -> Read<()> {
        skip_map(map)
    }
}

/// One variant of an untagged union, tried on the value's JSON text.
pub type TryVariant<T> = fn(&str, &mut Cx) -> Read<Option<T>>;

/// Decodes `T` from buffered JSON text.
pub fn decode_raw<T: Decode>(raw: &str, cx: &mut Cx) -> Read<Option<T>> {
    read_text(raw, |src| T::decode(src, cx))
}

/// Decodes buffered JSON text with a schema.
pub fn decode_raw_with<S: Schema>(schema: S, raw: &str, cx: &mut Cx) -> Read<Option<S::Out>> {
    read_text(raw, |src| schema.decode(src, cx))
}

/// Decodes an untagged union: the first variant that accepts wins. When none does, the
/// issues of the only variant that failed on limits alone are reported (as Zod does);
/// otherwise `Invalid input` at the union's path.
///
/// The value is captured as text (borrowed when the input lends it) and each variant is
/// tried quietly: its issues are counted, not worded. Only when every variant failed are
/// they tried again to word the issues.
pub fn decode_untagged<'de, T>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    variants: &[TryVariant<T>],
) -> Read<Option<T>> {
    check_depth(cx)?;
    let raw = src.text()?;
    let quiet = cx.is_quiet();
    for try_variant in variants {
        let mut sub = cx.quiet_scratch();
        let r = try_variant(&raw, &mut sub);
        cx.absorb(&sub);
        match r? {
            Some(v) if sub.is_empty() => return Ok(Some(v)),
            _ => {}
        }
    }
    if quiet {
        // An enclosing trial only counts: one issue says this value failed.
        cx.issue("", false);
        return Ok(None);
    }
    let mut failures: Vec<Vec<Issue>> = Vec::with_capacity(variants.len());
    for try_variant in variants {
        let mut sub = cx.scratch();
        let r = try_variant(&raw, &mut sub);
        cx.absorb(&sub);
        let _ = r?;
        failures.push(sub.into_issues());
    }
    let mut nonaborted = failures
        .into_iter()
        .filter(|f| f.iter().all(Issue::continues));
    match (nonaborted.next(), nonaborted.next()) {
        (Some(only), None) if !only.is_empty() => cx.extend(only),
        _ => cx.issue("Invalid input", false),
    }
    Ok(None)
}

/// Whether a struct's required literal keys all hold in an object, `last(key)` giving the text
/// of the key's last value (`None`: absent). When one does not, the struct refuses the object
/// whatever the rest holds: the decoder's pick and the fast reader's (`Scanner::pick`) both
/// rule a variant out by this.
pub(crate) fn literals_hold<'v>(
    literals: &[(&str, Literal)],
    last: impl Fn(&str) -> Option<&'v str>,
) -> bool {
    literals
        .iter()
        .all(|&(key, lit)| last(key).is_some_and(|raw| lit.matches(raw)))
}

/// A literal a struct requires at one of its keys (`ok: true`, `type: "event"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Literal {
    Str(&'static str),
    Bool(bool),
    Int(i64),
}

impl Literal {
    /// Whether a value's JSON text is this literal, as its schema decides.
    fn matches(self, raw: &str) -> bool {
        match self {
            Literal::Str(s) => {
                let b = raw.as_bytes();
                if b.len() == s.len() + 2 && &raw[1..b.len() - 1] == s {
                    return true;
                }
                // Only an escape can spell it another way.
                raw.contains('\\') && Self::decodes(LitStr(s), raw)
            }
            Literal::Bool(v) => raw == if v { "true" } else { "false" },
            Literal::Int(i) => Self::decodes(LitInt(i), raw),
        }
    }

    fn decodes<S: Schema>(schema: S, raw: &str) -> bool {
        let mut cx = Cx::new();
        matches!(decode_raw_with(schema, raw, &mut cx), Ok(Some(_))) && cx.is_empty()
    }
}

/// The fast reader's pick (see the module's header): here, not in `scan`, since it matches a
/// literal with the decoder.
impl<'a> Scanner<'a> {
    /// The variant of an untagged union of structs that the decoder tries first on the object
    /// at the cursor: the first whose required literal keys (`variants[i]`: `ok: true`,
    /// `type: "event"`) all hold, each by its last value. A variant with one absent or holding
    /// another value is refused by the decoder whatever the rest holds (see
    /// `decode_untagged_objects`). `Some(None)` when no variant is left; `None` when not sure
    /// (not an object, a key with an escape, more than eight distinct literal keys, not JSON).
    /// One look-ahead over the object, its values skipped, not read; the cursor does not move.
    pub fn pick(&self, variants: &[&[(&'static str, Literal)]]) -> Option<Option<usize>> {
        // The distinct literal keys, and the last value of each in the object.
        let mut keys: [&str; 8] = [""; 8];
        let mut found: [Option<&'a str>; 8] = [None; 8];
        let mut n = 0;
        for &(key, _) in variants.iter().flat_map(|v| v.iter()) {
            if !keys[..n].contains(&key) {
                *keys.get_mut(n)? = key;
                n += 1;
            }
        }
        if n > 0 {
            let mut r = *self;
            let mut entries = r.object()?;
            while let Some(k) = r.key(&mut entries)? {
                match keys[..n].iter().position(|&key| key == k) {
                    Some(i) => found[i] = Some(r.raw()?),
                    None => r.skip_value()?,
                }
            }
        }
        let last = |key: &str| {
            let i = keys[..n].iter().position(|&k| k == key)?;
            found[i]
        };
        Some(variants.iter().position(|v| literals_hold(v, last)))
    }
}

/// One variant of an untagged union whose variants are all structs.
pub struct ObjectVariant<T> {
    /// The variant's required literal keys ([`Object::LITERALS`](super::object::Object::LITERALS)).
    pub literals: &'static [(&'static str, Literal)],
    /// Decodes the object as this variant.
    pub decode: for<'a> fn(Entries<'a>, &mut Cx) -> Read<Option<T>>,
}

/// An object's entries in wire order with their values' JSON text, or `None` for any other
/// JSON value (skipped).
struct IndexSink<'de>(Option<Items<'de>>);

impl<'de> Sink<'de> for IndexSink<'de> {
    fn str(&mut self, _: &str) {}
    fn string(&mut self, _: String) {}
    fn borrowed_str(&mut self, _: &'de str) {}
    fn bool(&mut self, _: bool) {}
    fn num(&mut self, _: Num) {}
    fn f64(&mut self, _: f64) {}
    fn null(&mut self) {}
    fn seq(&mut self, seq: &mut dyn Seq<'de>) -> Read<()> {
        skip_seq(seq)
    }
    fn map(&mut self, map: &mut dyn Map<'de>) -> Read<()> {
        let mut items = Vec::new();
        while let Some(k) = next_cow_key(map)? {
            let v = next_text(map)?;
            items.push((k, v));
        }
        self.0 = Some(items);
        Ok(())
    }
}

/// The entries of the object `src` holds ([`IndexSink`]).
fn read_entries<'de>(src: &mut dyn Src<'de>) -> Read<Option<Items<'de>>> {
    let mut sink = IndexSink(None);
    src.any(&mut sink)?;
    Ok(sink.0)
}

/// Decodes an untagged union whose variants are all structs, with the same verdict and
/// messages as [`decode_untagged`].
///
/// The object is read once into its entries (each value's text, borrowed when the input
/// lends it). A variant whose required literal key (`ok: true`, `type: "event"`) holds
/// something else, or is absent, fails on a non-continuing issue whatever the rest holds, so
/// it is not tried: only the variants the literals allow are, in order. Anything but an
/// object fails every variant on its type: `Invalid input`.
pub fn decode_untagged_objects<'de, T>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    variants: &[ObjectVariant<T>],
) -> Read<Option<T>> {
    check_depth(cx)?;
    let Some(items) = read_entries(src)? else {
        cx.issue("Invalid input", false);
        return Ok(None);
    };
    let entries = || Entries::new(&items);
    pick_object(
        &items,
        cx,
        variants.len(),
        |i| variants[i].literals,
        |i, cx| (variants[i].decode)(entries(), cx),
    )
}

/// One variant of an untagged union of structs, as its borrowed view decodes it: `decode`
/// reads entries that lend the input, `owned` decodes the owned variant (entries that do not
/// lend, such as a key with escapes) and views it.
pub struct ObjectVariantRef<'de, T> {
    /// The variant's required literal keys ([`Object::LITERALS`](super::object::Object::LITERALS)).
    pub literals: &'static [(&'static str, Literal)],
    /// Decodes the object as this variant's view, borrowing from the input.
    pub decode: for<'s> fn(LentEntries<'s, 'de>, &mut Cx) -> Read<Option<T>>,
    /// Decodes the object as the owned variant, viewed.
    pub owned: for<'a> fn(Entries<'a>, &mut Cx) -> Read<Option<T>>,
}

/// [`decode_untagged_objects`] into a borrowed view of the union, with the same verdict and
/// messages: when every key and value of the object is borrowed from the input, the chosen
/// variant's view borrows them too.
pub fn decode_untagged_objects_ref<'de, T>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    variants: &[ObjectVariantRef<'de, T>],
) -> Read<Option<T>> {
    check_depth(cx)?;
    let Some(items) = read_entries(src)? else {
        cx.issue("Invalid input", false);
        return Ok(None);
    };
    let lent = items
        .iter()
        .all(|(k, v)| matches!((k, v), (Cow::Borrowed(_), Cow::Borrowed(_))));
    pick_object(
        &items,
        cx,
        variants.len(),
        |i| variants[i].literals,
        |i, cx| {
            if lent {
                (variants[i].decode)(LentEntries::lent(&items), cx)
            } else {
                (variants[i].owned)(Entries::new(&items), cx)
            }
        },
    )
}

/// The choice among the variants of an untagged union of structs, on the object's entries:
/// see [`decode_untagged_objects`].
#[inline]
fn pick_object<T>(
    items: &Items<'_>,
    cx: &mut Cx,
    n: usize,
    literals: impl Fn(usize) -> &'static [(&'static str, Literal)],
    decode: impl Fn(usize, &mut Cx) -> Read<Option<T>>,
) -> Read<Option<T>> {
    let last = |key: &str| {
        items
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| &**v)
    };
    let fits = |i: &usize| literals_hold(literals(*i), last);
    let candidates = || (0..n).filter(fits);
    let mut fitting = candidates();
    if let (Some(only), None) = (fitting.next(), fitting.next()) {
        // The only variant that can accept: decoded once, in place. Its issues stand when
        // they are all limit checks (Zod's rule), else `Invalid input`.
        let base = cx.len();
        let v = decode(only, cx)?;
        if let Some(v) = v.filter(|_| cx.len() == base) {
            return Ok(Some(v));
        }
        let issues = &cx.issues()[base..];
        if cx.is_quiet() || issues.is_empty() || !issues.iter().all(Issue::continues) {
            cx.truncate(base);
            cx.issue("Invalid input", false);
        }
        return Ok(None);
    }
    for i in candidates() {
        let mut sub = cx.quiet_scratch();
        let r = decode(i, &mut sub);
        cx.absorb(&sub);
        match r? {
            Some(v) if sub.is_empty() => return Ok(Some(v)),
            _ => {}
        }
    }
    if cx.is_quiet() {
        cx.issue("", false);
        return Ok(None);
    }
    let mut failures: Vec<Vec<Issue>> = Vec::new();
    for i in candidates() {
        let mut sub = cx.scratch();
        let r = decode(i, &mut sub);
        cx.absorb(&sub);
        let _ = r?;
        failures.push(sub.into_issues());
    }
    let mut nonaborted = failures
        .into_iter()
        .filter(|f| f.iter().all(Issue::continues));
    match (nonaborted.next(), nonaborted.next()) {
        (Some(only), None) if !only.is_empty() => cx.extend(only),
        _ => cx.issue("Invalid input", false),
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use crate::agent::{ChatEvent, ServerFrame};
    use crate::wire::from_str;

    fn event(json: &str) -> Result<ChatEvent, String> {
        from_str::<ChatEvent>(json).map_err(|e| e.to_string())
    }

    #[test]
    fn tag_first_streams_and_a_later_equal_tag_is_fine() {
        let e = event(r#"{"type":"delta","itemId":"i","text":"x","type":"delta"}"#).unwrap();
        assert!(matches!(e, ChatEvent::Delta(d) if d.text == "x"));
        let e = event(r#"{ "type" : "delta" , "itemId":"i","text":"x"}"#).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
    }

    #[test]
    fn a_later_tag_that_disagrees_wins() {
        let item = r#"{"kind":"notice","id":"n","level":"info","text":"t"}"#;
        let e = event(&format!(
            r#"{{"type":"delta","itemId":"i","item":{item},"type":"item"}}"#
        ))
        .unwrap();
        assert!(matches!(e, ChatEvent::Item(_)));
        let e = event(r#"{"type":"nope","itemId":"i","text":"x","type":"delta"}"#).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
        let e = event(r#"{"type":7,"itemId":"i","text":"x","type":"delta"}"#).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
        assert_eq!(
            event(r#"{"type":"delta","itemId":"i","text":"x","type":"nope"}"#).unwrap_err(),
            "✖ Invalid discriminator value. Expected 'item' | 'delta' | 'info' | 'reset'\n  → at type"
        );
        // The issues of the abandoned streaming parse are not kept.
        assert_eq!(
            event(r#"{"type":"delta","itemId":"","type":"item"}"#).unwrap_err(),
            "✖ Invalid input: expected object, received undefined\n  → at item"
        );
    }

    /// The verdict of a parse with every tagged union captured first (streaming off).
    fn captured<T: crate::wire::Decode>(json: &str) -> Result<T, String> {
        crate::wire::decode_in(
            crate::__private::Named::<T>::new(),
            json,
            &mut crate::__private::Cx::new(),
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn streamed_unions_give_the_captured_verdicts() {
        let user = r#"{"kind":"user","id":"u","text":"t","createdAt":1}"#;
        let cases = [
            format!(r#"{{"type":"item","item":{user}}}"#),
            format!(r#"{{"type":"item","item":{user},"type":"item"}}"#),
            // The inner tag disagrees later: the parse starts over, the last tag wins.
            r#"{"type":"item","item":{"kind":"user","id":"u","text":"t","createdAt":1,"kind":"notice","level":"info"}}"#.to_owned(),
            r#"{"type":"item","item":{"kind":"user","id":"","text":"t","createdAt":1,"kind":"nope"}}"#.to_owned(),
            r#"{"type":"item","item":{"kind":"user","id":"","kind":"reply"}}"#.to_owned(),
            // The outer tag disagrees after an inner union was streamed.
            format!(r#"{{"type":"item","item":{user},"type":"delta","itemId":"i","text":"x"}}"#),
            format!(r#"{{"type":"item","item":{user},"type":"delta"}}"#),
            format!(r#"{{"item":{user},"type":"item"}}"#),
            r#"{"type":"item","item":{"id":"u","kind":"user","text":5}}"#.to_owned(),
            r#"{"type":"item","item":[]}"#.to_owned(),
            r#"{"type":"item","item":"1e400"}"#.to_owned(),
            r#"{"type":"item","item":{}}"#.to_owned(),
            r#"{"type":"item","item":{"kind":7}}"#.to_owned(),
            r#"{"type":"item","item":{"kind":"user","id":"u","text":"t","createdAt":1},"item":{"kind":"user"}}"#.to_owned(),
            r#"{"type":"item","item":{"kind":"user","id":"u","text":"t","createdAt":1"#.to_owned(),
            r#"{"type":"delta","itemId":"","text":4,"type":"delta","itemId":5}"#.to_owned(),
        ];
        for json in &cases {
            assert_eq!(
                from_str::<ChatEvent>(json).map_err(|e| e.to_string()),
                captured::<ChatEvent>(json),
                "{json}"
            );
        }
        // A conflict deep in a streamed parse leaves streaming on for the next parse, and
        // a parse through serde (no start-over possible) captures.
        let json = &cases[2];
        let e: ChatEvent = serde_json::from_str(json).unwrap();
        assert!(matches!(e, ChatEvent::Item(_)));
        assert!(matches!(
            from_str::<ChatEvent>(json),
            Ok(ChatEvent::Item(_))
        ));
    }

    /// `ChatEvent` as the one variant of an untagged union: decoded in a union's trial, in a
    /// scratch context.
    #[derive(Debug)]
    struct InTrial(ChatEvent);

    impl crate::wire::Decode for InTrial {
        const EXPECT: crate::__private::Expect = crate::__private::Expect::Fixed("Invalid input");
        fn decode<'de>(
            src: &mut dyn crate::__private::Src<'de>,
            cx: &mut crate::__private::Cx,
        ) -> crate::__private::Read<Option<Self>> {
            let v = super::decode_untagged(
                src,
                cx,
                &[|raw, cx| crate::__private::decode_raw::<ChatEvent>(raw, cx)],
            )?;
            Ok(v.map(InTrial))
        }
    }

    #[test]
    fn a_conflict_met_in_a_unions_trial_starts_the_parse_over() {
        // The streamed variant meets the later tag in a scratch context: the conflict is
        // handed back to the parse, which starts over captured, and the last tag wins.
        let item = r#"{"kind":"notice","id":"n","level":"info","text":"t"}"#;
        let json = format!(r#"{{"type":"delta","itemId":"i","item":{item},"type":"item"}}"#);
        assert!(matches!(
            from_str::<InTrial>(&json).map(|t| t.0),
            Ok(ChatEvent::Item(_))
        ));
        // Refused as the captured parse refuses it, not with the abandoned parse's error.
        let e = from_str::<InTrial>(r#"{"type":"delta","itemId":"","type":"item"}"#).unwrap_err();
        assert_eq!(e.to_string(), "✖ Invalid input");
    }

    #[test]
    fn tag_not_first_or_escaped_is_buffered() {
        let e = event(r#"{"itemId":"i","text":"x","type":"delta"}"#).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
        let e = event(r#"{"\u0074ype":"delta","itemId":"i","text":"x"}"#).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
        let e = event(r#"{"type":"d\u0065lta","itemId":"i","text":"x"}"#).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
        assert_eq!(
            event(r#"[1]"#).unwrap_err(),
            "✖ Invalid input: expected object, received array"
        );
        assert_eq!(
            event(r#"{}"#).unwrap_err(),
            "✖ Invalid discriminator value. Expected 'item' | 'delta' | 'info' | 'reset'\n  → at type"
        );
    }

    #[test]
    fn values_that_cannot_be_borrowed_are_owned() {
        let v = serde_json::json!({"type":"delta","itemId":"i","text":"x"});
        let e: ChatEvent = serde_json::from_value(v).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
        let e: ChatEvent =
            serde_json::from_reader(&br#"{"itemId":"i","type":"delta","text":"x"}"#[..]).unwrap();
        assert!(matches!(e, ChatEvent::Delta(_)));
        let f: ServerFrame =
            serde_json::from_reader(&br#"{"type":"event","event":"e","payload":1}"#[..]).unwrap();
        assert!(matches!(f, ServerFrame::Event(_)));
    }

    /// `ServerFrame` decoded by trying every variant in order (the general path).
    struct TryAll(ServerFrame);

    impl crate::wire::Decode for TryAll {
        const EXPECT: crate::__private::Expect = crate::__private::Expect::Fixed("Invalid input");
        fn decode<'de>(
            src: &mut dyn crate::__private::Src<'de>,
            cx: &mut crate::__private::Cx,
        ) -> crate::__private::Read<Option<Self>> {
            use crate::__private::{Named, decode_raw_with};
            use crate::agent::{Event, ReplyError, ReplyOk};
            let v = super::decode_untagged(
                src,
                cx,
                &[
                    |raw, cx| {
                        decode_raw_with(Named::<ReplyOk>::new(), raw, cx)
                            .map(|v| v.map(ServerFrame::ReplyOk))
                    },
                    |raw, cx| {
                        decode_raw_with(Named::<ReplyError>::new(), raw, cx)
                            .map(|v| v.map(ServerFrame::ReplyError))
                    },
                    |raw, cx| {
                        decode_raw_with(Named::<Event>::new(), raw, cx)
                            .map(|v| v.map(ServerFrame::Event))
                    },
                ],
            )?;
            Ok(v.map(TryAll))
        }
    }

    #[test]
    fn literal_keys_pick_the_same_variant_with_the_same_messages() {
        let cases = [
            r#"{"id":"1","ok":true,"result":null}"#,
            r#"{"id":"1","ok":true}"#,
            r#"{"id":"","ok":true,"result":1}"#,
            r#"{"id":"","ok":false,"error":{"code":"internal","message":"m"}}"#,
            r#"{"id":null,"ok":false,"error":{"code":"internal","message":"m"}}"#,
            r#"{"id":"1","ok":false,"error":{"code":7,"message":"m"}}"#,
            r#"{"id":"1","ok":false,"ok":true,"result":2}"#,
            r#"{"id":"1","ok":true,"ok":false,"result":2}"#,
            r#"{"id":"1","ok":"true","result":2}"#,
            r#"{"type":"event","event":"e","payload":1}"#,
            r#"{"type":"\u0065vent","event":"e","payload":1}"#,
            r#"{"type":"event","event":"","payload":1}"#,
            r#"{"type":"event","event":""}"#,
            r#"{"type":"events","event":"e","payload":1}"#,
            r#"{"type":"event","type":"x","event":"e","payload":1}"#,
            r#"{"type":"x","type":"event","event":"e","payload":1}"#,
            r#"{"type":"event","event":"e","payload":1,"ok":true,"id":"1","result":1}"#,
            r#"{"type":"event","event":"","payload":1,"ok":true,"id":"","result":1}"#,
            r#"{"type":"event","event":"","payload":1,"ok":true,"id":"1"}"#,
            r#"{}"#,
            r#"[]"#,
            r#"[{"ok":true}]"#,
            r#""event""#,
            r#"null"#,
            r#"1e400"#,
            r#"{"id":"1","ok":true,"result":1e400}"#,
            r#"{"id":1e400,"ok":true,"result":1}"#,
        ];
        for case in cases {
            let fast = from_str::<ServerFrame>(case).map_err(|e| e.to_string());
            let all = from_str::<TryAll>(case)
                .map(|t| t.0)
                .map_err(|e| e.to_string());
            assert_eq!(fast, all, "{case}");
        }
    }

    #[test]
    fn untagged_failures_are_worded_after_quiet_trials() {
        let e = from_str::<ServerFrame>(r#"{"id":"1","ok":true}"#).unwrap_err();
        assert_eq!(e.to_string(), "✖ Invalid input");
        let e = from_str::<ServerFrame>(r#"{"type":"event","event":"","payload":1}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            "✖ Too small: expected string to have >=1 characters\n  → at event"
        );
    }
}
