//! Enums and unions: closed and open string enums, tagged unions (the tag may be any key of
//! the object) and untagged unions (variants tried in order).

use super::issue::{Cx, Expect, Issue, Seg};
use super::schema::{Accept, Decode, Schema, Visit};
use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// The JSON parser's error type, for values parsed again from buffered text.
pub type JsonError = serde_json::Error;

/// The deepest a value parsed again from buffered text may sit (serde_json's own limit):
/// each re-parse starts a fresh parser, so the depth is counted on the path instead.
pub const MAX_DEPTH: usize = 128;

fn check_depth<E: de::Error>(cx: &Cx) -> Result<(), E> {
    if cx.depth() >= MAX_DEPTH {
        Err(E::custom("recursion limit exceeded"))
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

/// A buffered object: its entries with their raw values, in wire order.
pub struct Entries<'a> {
    items: &'a [(Cow<'a, str>, Box<RawValue>)],
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
    items: std::slice::Iter<'a, (Cow<'a, str>, Box<RawValue>)>,
    value: Option<&'a RawValue>,
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
        seed.deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
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

struct CowKey;

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

/// Picks a tagged union's variant by its tag value and decodes the buffered object into it;
/// `None` for an unknown tag.
pub type PickVariant<T> =
    for<'a> fn(&str, Entries<'a>, &mut Cx) -> Option<Result<Option<T>, JsonError>>;

struct TaggedA<'a, T> {
    cx: &'a mut Cx,
    tag: &'static str,
    tags: &'static [&'static str],
    pick: PickVariant<T>,
}

/// The message of a tag that is absent or unknown.
fn discriminator(tags: &[&str]) -> String {
    let list: Vec<String> = tags.iter().map(|t| format!("'{t}'")).collect();
    format!("Invalid discriminator value. Expected {}", list.join(" | "))
}

impl<'de, T> Accept<'de> for TaggedA<'_, T> {
    type Out = T;
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::Type("object")
    }
    fn map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        let mut items: Vec<(Cow<'de, str>, Box<RawValue>)> = Vec::new();
        while let Some(k) = map.next_key_seed(CowKey)? {
            let v: Box<RawValue> = map.next_value()?;
            items.push((k, v));
        }
        let tag_value = items
            .iter()
            .rev()
            .find(|(k, _)| k == self.tag)
            .and_then(|(_, v)| serde_json::from_str::<String>(v.get()).ok());
        let picked = tag_value.and_then(|t| (self.pick)(&t, Entries { items: &items }, self.cx));
        match picked {
            Some(r) => r.map_err(de::Error::custom),
            None => {
                self.cx.push(Seg::Key(Cow::Borrowed(self.tag)));
                self.cx.issue(discriminator(self.tags), false);
                self.cx.pop();
                Ok(None)
            }
        }
    }
}

/// Decodes a tagged union: finds the tag wherever it is in the object (the last duplicate
/// wins), then decodes the whole object as the variant.
pub fn decode_tagged<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
    tag: &'static str,
    tags: &'static [&'static str],
    pick: PickVariant<T>,
) -> Result<Option<T>, D::Error> {
    check_depth(cx)?;
    d.deserialize_any(Visit(TaggedA {
        cx,
        tag,
        tags,
        pick,
    }))
}

/// One variant of an untagged union, tried on the buffered value.
pub type TryVariant<T> = fn(&RawValue, &mut Cx) -> Result<Option<T>, JsonError>;

/// Decodes `T` from buffered JSON text.
pub fn decode_raw<T: Decode>(raw: &RawValue, cx: &mut Cx) -> Result<Option<T>, JsonError> {
    T::decode(&mut serde_json::Deserializer::from_str(raw.get()), cx)
}

/// Decodes buffered JSON text with a schema.
pub fn decode_raw_with<S: Schema>(
    schema: S,
    raw: &RawValue,
    cx: &mut Cx,
) -> Result<Option<S::Out>, JsonError> {
    schema.decode(&mut serde_json::Deserializer::from_str(raw.get()), cx)
}

/// Decodes an untagged union: the first variant that accepts wins. When none does, the
/// issues of the only variant that failed on limits alone are reported (as Zod does);
/// otherwise `Invalid input` at the union's path.
pub fn decode_untagged<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
    variants: &[TryVariant<T>],
) -> Result<Option<T>, D::Error> {
    check_depth(cx)?;
    let raw: Box<RawValue> = serde::Deserialize::deserialize(d)?;
    let mut failures: Vec<Vec<Issue>> = Vec::with_capacity(variants.len());
    for try_variant in variants {
        let mut sub = cx.scratch();
        let v = try_variant(&raw, &mut sub).map_err(de::Error::custom)?;
        match v {
            Some(v) if sub.is_empty() => return Ok(Some(v)),
            _ => failures.push(sub.into_issues()),
        }
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
