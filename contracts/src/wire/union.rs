//! Enums and unions: closed and open string enums, tagged unions (the tag may be any key of
//! the object) and untagged unions (variants tried in order).

use super::issue::Mode;
use super::issue::{Cx, Expect, Issue, Seg};
use super::js::Marks;
use super::schema::{Accept, Decode, LitInt, LitStr, Schema, Visit};
use super::serde_json_internals::{self as internals, CaptureSeed, MAX_DEPTH, capture};
use serde::de::value::{BorrowedStrDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

/// The JSON parser's error type, for values parsed again from buffered text.
pub type JsonError = serde_json::Error;

/// Refuses a value parsed again from buffered text beyond serde_json's nesting limit, in
/// its words: each re-parse starts a fresh parser, so the depth is counted on the path.
fn check_depth<E: de::Error>(cx: &Cx) -> Result<(), E> {
    if cx.depth() >= MAX_DEPTH {
        Err(E::custom(internals::RECURSION_LIMIT))
    } else {
        Ok(())
    }
}

struct EnumA<'a, T> {
    cx: &'a mut Cx,
    values: &'static [&'static str],
    pick: fn(&str) -> Option<T>,
}

impl<'de, T> Accept<'de> for EnumA<'_, T> {
    type Out = T;
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::OneOf(self.values)
    }
    fn str(self, v: &str) -> Option<T> {
        match (self.pick)(v) {
            Some(t) => Some(t),
            None => self.reject("string"),
        }
    }
}

/// Decodes a closed enum: `pick` maps a listed value to its variant.
pub fn decode_enum<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
    values: &'static [&'static str],
    pick: fn(&str) -> Option<T>,
) -> Result<Option<T>, D::Error> {
    d.deserialize_any(Visit(EnumA { cx, values, pick }))
}

struct OpenEnumA<'a, T> {
    cx: &'a mut Cx,
    pick: fn(Cow<'_, str>) -> T,
}

impl<'de, T> Accept<'de> for OpenEnumA<'_, T> {
    type Out = T;
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::Type("string")
    }
    fn str(self, v: &str) -> Option<T> {
        Some((self.pick)(Cow::Borrowed(v)))
    }
    fn string(self, v: String) -> Option<T> {
        Some((self.pick)(Cow::Owned(v)))
    }
}

/// Decodes an open enum: any string; `pick` keeps unknown ones.
pub fn decode_open_enum<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
    pick: fn(Cow<'_, str>) -> T,
) -> Result<Option<T>, D::Error> {
    d.deserialize_any(Visit(OpenEnumA { cx, pick }))
}

/// A tagged union's object, handed to its variant: its entries with their raw values, in
/// wire order.
pub struct Entries<'a> {
    items: &'a [(Cow<'a, str>, Cow<'a, str>)],
}

impl<'a> Entries<'a> {
    /// Decodes the whole object as `T` (a tagged union's variant).
    pub fn decode<T: Decode>(self, cx: &mut Cx) -> Result<Option<T>, JsonError> {
        T::decode(self, cx)
    }

    /// Decodes the whole object with a schema.
    pub fn decode_with<S: Schema>(
        self,
        schema: S,
        cx: &mut Cx,
    ) -> Result<Option<S::Out>, JsonError> {
        schema.decode(self, cx)
    }
}

struct EntriesAccess<'a> {
    items: std::slice::Iter<'a, (Cow<'a, str>, Cow<'a, str>)>,
    value: Option<&'a str>,
}

impl<'de> MapAccess<'de> for EntriesAccess<'de> {
    type Error = JsonError;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, JsonError> {
        match self.items.next() {
            None => Ok(None),
            Some((k, v)) => {
                self.value = Some(v);
                seed.deserialize(BorrowedStrDeserializer::new(k.as_ref()))
                    .map(Some)
            }
        }
    }
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, JsonError> {
        let raw = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("value without a key"))?;
        seed.deserialize(RawText(raw))
    }
}

/// A value's JSON text as a deserializer: parsed by serde_json, except that a raw value
/// (`unknown`) is handed the text as it is, with no second scan.
struct RawText<'a>(&'a str);

impl<'de> Deserializer<'de> for RawText<'de> {
    type Error = JsonError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, JsonError> {
        // The text is one value serde_json already read: a string without escapes is its
        // contents, as serde_json would hand them over.
        if let Some(inner) = plain_str(self.0) {
            return visitor.visit_borrowed_str(inner);
        }
        (&mut serde_json::Deserializer::from_str(self.0)).deserialize_any(visitor)
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, JsonError> {
        (&mut serde_json::Deserializer::from_str(self.0)).deserialize_option(visitor)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, JsonError> {
        if internals::is_raw_value(name) {
            return internals::lend_raw(self.0, visitor);
        }
        (&mut serde_json::Deserializer::from_str(self.0)).deserialize_newtype_struct(name, visitor)
    }
    /// An unknown key's value: serde_json already read it, so nothing is read again. Read
    /// again as any value, a number beyond a double (`1e400`) would fail where the streamed
    /// path's skip does not, and the text's JavaScript rewrite would then change the
    /// `unknown` values elsewhere in it.
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, JsonError> {
        visitor.visit_unit()
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct enum identifier
    }
}

impl<'de> Deserializer<'de> for Entries<'de> {
    type Error = JsonError;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, JsonError> {
        visitor.visit_map(EntriesAccess {
            items: self.items.iter(),
            value: None,
        })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

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

/// A generated tagged union: its tag key, its tag values, and the decode of the variant a
/// tag value names.
pub trait Tagged: Sized {
    /// The key whose value picks the variant.
    const TAG_KEY: &'static str;
    /// Every tag value, in order.
    const TAG_VALUES: &'static [&'static str];
    /// Decodes the whole object (`d`) as the variant tagged `tag`; `None` for an unknown tag
    /// (before `d` is read).
    fn pick<'de, D: Deserializer<'de>>(
        tag: &str,
        d: D,
        cx: &mut Cx,
    ) -> Option<Result<Option<Self>, D::Error>>;
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
pub fn decode_tagged<'de, T: Tagged, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
) -> Result<Option<T>, D::Error> {
    check_depth(cx)?;
    if cx.live_tags() {
        let mut out = None;
        d.deserialize_any(Visit(TaggedA::<T> { cx, out: &mut out }))?;
        return Ok(out);
    }
    let text = capture(d)?;
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
        .map_err(de::Error::custom)?;
    decode_items::<T>(&items, cx).map_err(de::Error::custom)
}

/// The buffered path: every entry with its raw value, then the variant of the last tag.
fn decode_items<T: Tagged>(
    items: &[(Cow<'_, str>, Cow<'_, str>)],
    cx: &mut Cx,
) -> Result<Option<T>, JsonError> {
    let tag = T::TAG_KEY;
    let tag_value = items
        .iter()
        .rev()
        .find(|(k, _)| k == tag)
        .and_then(|(_, v)| serde_json::from_str::<String>(v).ok());
    let picked = tag_value.and_then(|t| T::pick(&t, Entries { items }, cx));
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
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<()>, A::Error> {
        let (cx, out) = (self.cx, self.out);
        let mut items: Items<'de> = Vec::new();
        if let Some(key) = map.next_key_seed(CowKey)? {
            let raw = map.next_value_seed(CaptureSeed)?;
            if key == T::TAG_KEY
                && let Some(value) = plain_str(&raw).filter(|v| T::TAG_VALUES.contains(v))
            {
                let conflict = Cell::new(false);
                let live = LiveDe {
                    map: &mut map,
                    tag: T::TAG_KEY,
                    value,
                    conflict: &conflict,
                };
                if let Some(r) = T::pick(value, live, cx) {
                    if conflict.get() {
                        cx.note_conflict();
                    }
                    *out = r?;
                    return Ok(Some(()));
                }
            }
            items.push((key, raw));
            while let Some(k) = map.next_key_seed(CowKey)? {
                let v = map.next_value_seed(CaptureSeed)?;
                items.push((k, v));
            }
        }
        *out = decode_items::<T>(&items, cx).map_err(de::Error::custom)?;
        Ok(Some(()))
    }
}

/// A JSON string's text without escapes: its contents.
#[inline]
fn plain_str(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (!inner.contains(['"', '\\'])).then_some(inner)
}

/// The rest of a live map whose first entry (the tag, with `value`) was read, as the whole
/// object for the variant: the tag entry is replayed first.
struct LiveDe<'m, 'v, A> {
    map: &'m mut A,
    tag: &'static str,
    value: &'v str,
    /// Set when a later duplicate of the tag disagrees (the parse is to start over).
    conflict: &'v Cell<bool>,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for LiveDe<'_, '_, A> {
    type Error = A::Error;
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(LiveMap {
            map: self.map,
            tag: self.tag,
            value: self.value,
            conflict: self.conflict,
            replay: Replay::Key,
            at_tag: false,
        })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
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
struct LiveMap<'m, 'v, A> {
    map: &'m mut A,
    tag: &'static str,
    value: &'v str,
    conflict: &'v Cell<bool>,
    replay: Replay,
    /// The last key read was the tag.
    at_tag: bool,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for LiveMap<'_, '_, A> {
    type Error = A::Error;
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        if self.replay == Replay::Key {
            self.replay = Replay::Value;
            return seed
                .deserialize(BorrowedStrDeserializer::<A::Error>::new(self.tag))
                .map(Some);
        }
        let tag = self.tag;
        let at_tag = &mut self.at_tag;
        self.map.next_key_seed(KeyCheck { seed, tag, at_tag })
    }
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        if self.replay == Replay::Value {
            self.replay = Replay::Done;
            return seed.deserialize(StrDeserializer::<A::Error>::new(self.value));
        }
        if !std::mem::take(&mut self.at_tag) {
            return self.map.next_value_seed(seed);
        }
        match self.map.next_value_seed(TagSeed)? {
            Some(v) if v == self.value => seed.deserialize(StrDeserializer::new(self.value)),
            _ => {
                self.conflict.set(true);
                Err(de::Error::custom(
                    "the tag changed; reading the input again",
                ))
            }
        }
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

/// A key, passed on to the variant's own key seed after noting whether it is the tag.
struct KeyCheck<'b, K> {
    seed: K,
    tag: &'static str,
    at_tag: &'b mut bool,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeyCheck<'_, K> {
    type Value = K::Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<K::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for KeyCheck<'_, K> {
    type Value = K::Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<K::Value, E> {
        *self.at_tag = v == self.tag;
        self.seed.deserialize(BorrowedStrDeserializer::new(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<K::Value, E> {
        *self.at_tag = v == self.tag;
        self.seed.deserialize(StrDeserializer::new(v))
    }
}

/// A tag's value: the string, or `None` for any other JSON value (skipped).
struct TagSeed;

impl<'de> DeserializeSeed<'de> for TagSeed {
    type Value = Option<Cow<'de, str>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TagSeed {
    type Value = Option<Cow<'de, str>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(v.to_owned())))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// One variant of an untagged union, tried on the value's JSON text.
pub type TryVariant<T> = fn(&str, &mut Cx) -> Result<Option<T>, JsonError>;

/// Decodes `T` from buffered JSON text.
pub fn decode_raw<T: Decode>(raw: &str, cx: &mut Cx) -> Result<Option<T>, JsonError> {
    T::decode(&mut serde_json::Deserializer::from_str(raw), cx)
}

/// Decodes buffered JSON text with a schema.
pub fn decode_raw_with<S: Schema>(
    schema: S,
    raw: &str,
    cx: &mut Cx,
) -> Result<Option<S::Out>, JsonError> {
    schema.decode(&mut serde_json::Deserializer::from_str(raw), cx)
}

/// Decodes an untagged union: the first variant that accepts wins. When none does, the
/// issues of the only variant that failed on limits alone are reported (as Zod does);
/// otherwise `Invalid input` at the union's path.
///
/// The value is captured as text (borrowed when the input lends it) and each variant is
/// tried quietly: its issues are counted, not worded. Only when every variant failed are
/// they tried again to word the issues.
pub fn decode_untagged<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
    variants: &[TryVariant<T>],
) -> Result<Option<T>, D::Error> {
    check_depth(cx)?;
    let raw = capture(d)?;
    let quiet = cx.is_quiet();
    for try_variant in variants {
        let mut sub = cx.quiet_scratch();
        let r = try_variant(&raw, &mut sub);
        cx.absorb(&sub);
        match r.map_err(de::Error::custom)? {
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
        let _ = r.map_err(de::Error::custom)?;
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

/// One variant of an untagged union whose variants are all structs.
pub struct ObjectVariant<T> {
    /// The variant's required literal keys ([`Object::LITERALS`](super::Object::LITERALS)).
    pub literals: &'static [(&'static str, Literal)],
    /// Decodes the object as this variant.
    pub decode: for<'a> fn(Entries<'a>, &mut Cx) -> Result<Option<T>, JsonError>,
}

/// An object's entries in wire order with their values' JSON text, or `None` for any other
/// JSON value (skipped).
struct IndexV;

impl<'de> Visitor<'de> for IndexV {
    type Value = Option<Items<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        BufferV.visit_map(map).map(Some)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, seq: S) -> Result<Self::Value, S::Error> {
        TagSeed.visit_seq(seq).map(|_| None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Decodes an untagged union whose variants are all structs, with the same verdict and
/// messages as [`decode_untagged`].
///
/// The object is read once into its entries (each value's text, borrowed when the input
/// lends it). A variant whose required literal key (`ok: true`, `type: "event"`) holds
/// something else, or is absent, fails on a non-continuing issue whatever the rest holds, so
/// it is not tried: only the variants the literals allow are, in order. Anything but an
/// object fails every variant on its type: `Invalid input`.
pub fn decode_untagged_objects<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
    variants: &[ObjectVariant<T>],
) -> Result<Option<T>, D::Error> {
    check_depth(cx)?;
    let Some(items) = d.deserialize_any(IndexV)? else {
        cx.issue("Invalid input", false);
        return Ok(None);
    };
    let entries = || Entries { items: &items };
    pick_object(
        &items,
        cx,
        variants.len(),
        |i| variants[i].literals,
        |i, cx| (variants[i].decode)(entries(), cx),
    )
    .map_err(de::Error::custom)
}

/// One variant of an untagged union of structs, as its borrowed view decodes it: `decode`
/// reads entries that lend the input, `owned` decodes the owned variant (entries that do not
/// lend, such as a key with escapes) and views it.
pub struct ObjectVariantRef<'de, T> {
    /// The variant's required literal keys ([`Object::LITERALS`](super::Object::LITERALS)).
    pub literals: &'static [(&'static str, Literal)],
    /// Decodes the object as this variant's view, borrowing from the input.
    pub decode: for<'s> fn(LentEntries<'s, 'de>, &mut Cx) -> Result<Option<T>, JsonError>,
    /// Decodes the object as the owned variant, viewed.
    pub owned: for<'a> fn(Entries<'a>, &mut Cx) -> Result<Option<T>, JsonError>,
}

/// [`decode_untagged_objects`] into a borrowed view of the union, with the same verdict and
/// messages: when every key and value of the object is borrowed from the input, the chosen
/// variant's view borrows them too.
pub fn decode_untagged_objects_ref<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
    variants: &[ObjectVariantRef<'de, T>],
) -> Result<Option<T>, D::Error> {
    check_depth(cx)?;
    let Some(items) = d.deserialize_any(IndexV)? else {
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
                (variants[i].decode)(LentEntries { items: &items }, cx)
            } else {
                (variants[i].owned)(Entries { items: &items }, cx)
            }
        },
    )
    .map_err(de::Error::custom)
}

/// The choice among the variants of an untagged union of structs, on the object's entries:
/// see [`decode_untagged_objects`].
#[inline]
fn pick_object<T>(
    items: &Items<'_>,
    cx: &mut Cx,
    n: usize,
    literals: impl Fn(usize) -> &'static [(&'static str, Literal)],
    decode: impl Fn(usize, &mut Cx) -> Result<Option<T>, JsonError>,
) -> Result<Option<T>, JsonError> {
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

/// An object's entries, every key and value borrowed from the input, handed to a variant's
/// borrowed view ([`decode_untagged_objects_ref`]).
pub struct LentEntries<'s, 'de> {
    items: &'s [(Cow<'de, str>, Cow<'de, str>)],
}

struct LentAccess<'s, 'de> {
    items: std::slice::Iter<'s, (Cow<'de, str>, Cow<'de, str>)>,
    value: Option<&'de str>,
}

/// The borrowed text of an entry: every entry of a [`LentEntries`] is.
fn lent<'de>(c: &Cow<'de, str>) -> Result<&'de str, JsonError> {
    match c {
        Cow::Borrowed(s) => Ok(s),
        Cow::Owned(_) => Err(de::Error::custom("an entry not borrowed from the input")),
    }
}

impl<'de> MapAccess<'de> for LentAccess<'_, 'de> {
    type Error = JsonError;
    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, JsonError> {
        match self.items.next() {
            None => Ok(None),
            Some((k, v)) => {
                self.value = Some(lent(v)?);
                seed.deserialize(BorrowedStrDeserializer::new(lent(k)?))
                    .map(Some)
            }
        }
    }
    #[inline]
    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, JsonError> {
        let raw = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("value without a key"))?;
        seed.deserialize(RawText(raw))
    }
}

impl<'de> Deserializer<'de> for LentEntries<'_, 'de> {
    type Error = JsonError;
    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, JsonError> {
        visitor.visit_map(LentAccess {
            items: self.items.iter(),
            value: None,
        })
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
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
            crate::wire::Named::<T>::new(),
            json,
            &mut crate::wire::Cx::new(),
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
        const EXPECT: crate::wire::Expect = crate::wire::Expect::Fixed("Invalid input");
        fn decode<'de, D: serde::Deserializer<'de>>(
            d: D,
            cx: &mut crate::wire::Cx,
        ) -> Result<Option<Self>, D::Error> {
            let v = super::decode_untagged(
                d,
                cx,
                &[|raw, cx| crate::wire::decode_raw::<ChatEvent>(raw, cx)],
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
        const EXPECT: crate::wire::Expect = crate::wire::Expect::Fixed("Invalid input");
        fn decode<'de, D: serde::Deserializer<'de>>(
            d: D,
            cx: &mut crate::wire::Cx,
        ) -> Result<Option<Self>, D::Error> {
            use crate::agent::{Event, ReplyError, ReplyOk};
            use crate::wire::{Named, decode_raw_with};
            let v = super::decode_untagged(
                d,
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
