//! Frames read with their payload in one pass. A field marked `#[table = "requests[type]"]`
//! in the schema (a request's `payload`, an event's) gets a typed form of its struct,
//! `RequestTyped<'a, E>` (generated): when the name has been read by the time the payload
//! comes, the payload is decoded by that name through the table as the frame is read, instead
//! of being captured as text and parsed a second time.
//!
//! It is a fast path only. It answers when the frame and its payload are both valid and the
//! frame holds no key but its own; anything else (an issue, a name the table does not know, a
//! name that changes after the payload was read, an extra key, text only JavaScript reads)
//! runs the two stages instead (`from_str_ref`, then the table's `parse`), so the verdict and
//! the messages are theirs by construction.

use super::issue::Cx;
use super::object::{ObjectCx, ObjectRef, decode_object_ref};
use super::schema::{DecodeRef, Seed, SeedRef, UnknownRef};
use super::{ParseError, TableError};
use serde::de::{DeserializeSeed, Deserializer, MapAccess};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A table's by-name enum (`RequestPayload`, `EventPayload`), generated: any entry's value,
/// decoded by the entry's name.
pub trait ByName: Sized {
    /// Decodes the value of the entry named `name`. A name the table does not know records an
    /// issue and skips the value.
    fn decode_named<'de, D: Deserializer<'de>>(
        name: &str,
        d: D,
        cx: &mut Cx,
    ) -> Result<Option<Self>, D::Error>;
    /// Parses the value of the entry named `name` from its JSON text (the table stage).
    fn parse_named(name: &str, json: &str) -> Result<Self, TableError>;
}

/// A generated typed form of a frame (`RequestTyped<'a, E>`): its own loop (an
/// [`ObjectRef`]) reads the payload by name; the view and the table give the same value in
/// two stages.
pub trait ObjectTyped<'de>: ObjectRef<'de> {
    /// The frame's borrowed view, its payload kept as text (`RequestRef<'a>`).
    type View: DecodeRef<'de>;
    /// The table's by-name enum.
    type Entry: ByName;
    /// The entry's name and the payload's text, as the view holds them.
    fn parts(view: &Self::View) -> (&str, &RawValue);
    /// The typed form of a view whose payload was parsed by the table.
    fn from_view(view: Self::View, entry: Self::Entry) -> Self;
}

/// Why a frame read with its payload was refused: at the envelope, or by the table (the
/// frame itself is valid, and its view is kept, with the payload as text).
#[derive(Debug)]
pub enum Refused<V> {
    /// The frame is not valid (the payload unchecked).
    Envelope(ParseError),
    /// The frame is valid; the table refused its name or its payload.
    Table(V, TableError),
}

/// A payload as the typed loop read it: by the name known then, or as text when the name came
/// later.
pub enum EntryRead<'de, E> {
    /// Decoded by this name.
    Typed(Cow<'de, str>, E),
    /// Captured as text, to be parsed once the name is known.
    Raw(Cow<'de, RawValue>),
}

/// Parses a frame and its payload, the payload by the frame's name through the table: in one
/// pass when it can (see the module), else in two stages with their verdict.
pub fn from_str_typed<'a, T: ObjectTyped<'a>>(json: &'a str) -> Result<T, Refused<T::View>> {
    match read_typed_once::<T>(json) {
        Some(v) => Ok(v),
        None => read_in_two_stages::<T>(json),
    }
}

/// The one-pass read alone: the frame when it and its payload are valid and it holds no key
/// but its own, else `None` (the caller runs the two stages).
#[inline]
pub fn read_typed_once<'a, T: ObjectTyped<'a>>(json: &'a str) -> Option<T> {
    super::union::with_live_tags(|| read_once::<T>(json))
}

#[inline]
fn read_once<'a, T: ObjectTyped<'a>>(json: &'a str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(json);
    let mut cx = Cx::new();
    match decode_object_ref::<T, _>(&mut de, &mut cx) {
        Ok(Some(v)) if cx.is_empty() && de.end().is_ok() => Some(v),
        _ => None,
    }
}

#[cold]
#[inline(never)]
fn read_in_two_stages<'a, T: ObjectTyped<'a>>(json: &'a str) -> Result<T, Refused<T::View>> {
    let view = super::from_str_ref::<T::View>(json).map_err(Refused::Envelope)?;
    let (name, payload) = T::parts(&view);
    match T::Entry::parse_named(name, payload.get()) {
        Ok(entry) => Ok(T::from_view(view, entry)),
        Err(e) => Err(Refused::Table(view, e)),
    }
}

/// The seed of a `#[table]` field: by the name when it is known, else as text.
struct EntrySeed<'k, 'de, 'c, E> {
    name: Option<&'k Cow<'de, str>>,
    cx: &'c mut Cx,
    _e: std::marker::PhantomData<fn() -> E>,
}

impl<'de, E: ByName> DeserializeSeed<'de> for EntrySeed<'_, 'de, '_, E> {
    type Value = Option<EntryRead<'de, E>>;
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        match self.name {
            Some(name) => {
                Ok(E::decode_named(name, d, self.cx)?.map(|e| EntryRead::Typed(name.clone(), e)))
            }
            None => Ok(SeedRef(UnknownRef, self.cx)
                .deserialize(d)?
                .map(EntryRead::Raw)),
        }
    }
}

impl ObjectCx<'_> {
    /// The typed loop's strict key: a key that names no field records an issue (the two
    /// stages take over), its value skipped.
    #[inline]
    pub fn next_key_strict<'de, A: MapAccess<'de>, F: Fn(&str) -> Option<usize> + Copy>(
        &mut self,
        map: &mut A,
        index: F,
    ) -> Result<Option<usize>, A::Error> {
        loop {
            match map.next_key_seed(super::object::KeySeed(index))? {
                None => return Ok(None),
                Some(Some(i)) => return Ok(Some(i)),
                Some(None) => {
                    self.fall_back::<()>();
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
        }
    }

    /// Reads the `#[table]` field `i` into its slot: by the name in `key` when it has been
    /// read, else as text.
    #[inline(always)]
    pub fn entry_into<'de, A: MapAccess<'de>, E: ByName>(
        &mut self,
        map: &mut A,
        key: &Option<Option<Cow<'de, str>>>,
        slot: &mut Option<Option<EntryRead<'de, E>>>,
    ) -> Result<(), A::Error> {
        let name = match key {
            Some(Some(name)) => Some(name),
            _ => None,
        };
        let cx = self.cx_mut();
        *slot = Some(map.next_value_seed(EntrySeed {
            name,
            cx,
            _e: std::marker::PhantomData,
        })?);
        Ok(())
    }

    /// The `#[table]` field once the loop ended: the entry, parsed now if it was read as text;
    /// `None` (an issue recorded) when absent, invalid, or read by a name the frame's last
    /// name no longer is.
    #[inline]
    pub fn entry<'de, E: ByName>(
        &mut self,
        slot: Option<Option<EntryRead<'de, E>>>,
        key: &Option<Cow<'de, str>>,
    ) -> Option<E> {
        let Some(name) = key else {
            // The name is invalid or absent: its issue is recorded.
            return None;
        };
        match slot {
            Some(Some(EntryRead::Typed(used, e))) if used == *name => Some(e),
            Some(Some(EntryRead::Raw(text))) => match E::parse_named(name, text.get()) {
                Ok(e) => Some(e),
                Err(_) => self.fall_back(),
            },
            Some(None) => None,
            _ => self.fall_back(),
        }
    }

    /// Records that the typed loop cannot answer: the two stages will.
    #[cold]
    #[inline(never)]
    fn fall_back<T>(&mut self) -> Option<T> {
        self.cx_mut().issue("read in two stages", false);
        None
    }
}

/// Decodes a schema's value for a table entry: the body of a generated `decode_named` arm.
#[inline(always)]
pub fn decode_entry<'de, S: super::Schema, D: Deserializer<'de>>(
    schema: S,
    d: D,
    cx: &mut Cx,
) -> Result<Option<S::Out>, D::Error> {
    Seed(schema, cx).deserialize(d)
}

/// The issue of a name the table does not know, its value skipped (a generated
/// `decode_named`'s last arm).
#[cold]
#[inline(never)]
pub fn unknown_entry<'de, T, D: Deserializer<'de>>(
    d: D,
    cx: &mut Cx,
) -> Result<Option<T>, D::Error> {
    d.deserialize_ignored_any(serde::de::IgnoredAny)?;
    cx.issue("unknown name", false);
    Ok(None)
}
