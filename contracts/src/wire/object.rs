//! Objects: the generated structs decode through [`decode_object`], which keeps the issues of
//! each field in declaration order and drops those of an earlier duplicate key.

use super::issue::{Cx, Expect, Seg};
use super::scan::{Keys, Scanner};
use super::schema::{Schema, SchemaRef};
use super::source::{Accept, Map, Read, Src, accept};
use super::union::Literal;
use serde::ser::{SerializeMap, Serializer};
use std::borrow::Cow;

/// A generated struct: its wire keys and the loop that fills it.
pub trait Object: Sized {
    /// The wire keys, in declaration order.
    const FIELDS: &'static [&'static str];
    /// The required literal keys (`ok: true`, `type: "event"`): an object that does not hold
    /// each of them (its last occurrence) is refused on a non-continuing issue.
    const LITERALS: &'static [(&'static str, Literal)] = &[];
    /// The index in [`Object::FIELDS`] of a wire key.
    fn index(key: &str) -> Option<usize>;
    /// Reads the entries of a map into the fields (see [`ObjectCx`]), the value written into
    /// `out` (left `None` when invalid): a large struct is built in place, not moved up
    /// through a result.
    fn visit<'de>(o: &mut ObjectCx<'_>, map: &mut dyn Map<'de>, out: &mut Option<Self>)
    -> Read<()>;
    /// The fast reader's key loop, the object opened (`wire::scan`): the value when every key
    /// is a field, read once, and valid; `None` when not sure.
    fn scan_fields(r: &mut Scanner<'_>, keys: Keys) -> Option<Self>;
}

/// The fast reader of a struct (its `Decode::scan`): the object opened, then its key loop.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn scan_object<T: Object>(r: &mut Scanner<'_>) -> Option<T> {
    let keys = r.object()?;
    T::scan_fields(r, keys)
}

/// A generated borrowed view of a struct (`RequestRef<'de>`): the struct's keys, a loop that
/// borrows from the input.
pub trait ObjectRef<'de>: Sized {
    /// The wire keys, in declaration order.
    const FIELDS: &'static [&'static str];
    /// The index in [`ObjectRef::FIELDS`] of a wire key.
    fn index(key: &str) -> Option<usize>;
    /// Reads the entries of a map into the fields (see [`ObjectCx`]).
    fn visit(o: &mut ObjectCx<'_>, map: &mut dyn Map<'de>) -> Read<Option<Self>>;
    /// [`ObjectRef::visit`] into `out` (`None` when invalid); a large value can be built in
    /// place instead of moved up through the result.
    #[inline]
    fn visit_into(
        o: &mut ObjectCx<'_>,
        map: &mut dyn Map<'de>,
        out: &mut Option<Self>,
    ) -> Read<()> {
        *out = Self::visit(o, map)?;
        Ok(())
    }
}

/// The rest of an open object (`..: T`): every key that is not a field, with its value, in
/// the order the keys first came.
pub type Rest<T> = indexmap::IndexMap<String, T>;

/// An open object's rest as its key loop reads it: the valid values, and the keys (by their
/// first place) whose last value was not.
pub struct RestSlot<T> {
    map: Rest<T>,
    invalid: Vec<usize>,
}

impl<T> Default for RestSlot<T> {
    fn default() -> Self {
        RestSlot {
            map: Rest::new(),
            invalid: Vec::new(),
        }
    }
}

impl<T> RestSlot<T> {
    /// The rest, `None` when a key's value was invalid (the object has its issue).
    pub fn finish(self) -> Option<Rest<T>> {
        self.invalid.is_empty().then_some(self.map)
    }
}

/// A generated struct's fields, written into a map (shared by structs and tagged unions).
pub trait WriteFields {
    /// Writes every present field as a map entry.
    fn write_fields<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error>;
}

/// Serialises an object as a map of its fields.
pub fn serialize_object<T: WriteFields, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    value.write_fields(&mut map)?;
    map.end()
}

/// Serialises a tagged union's variant: the tag entry, then the variant's fields.
pub fn serialize_tagged<T: WriteFields, S: Serializer>(
    tag: &'static str,
    value: &'static str,
    fields: &T,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    map.serialize_entry(tag, value)?;
    fields.write_fields(&mut map)?;
    map.end()
}

/// The state of one object being decoded: where its issues start and which field owns which.
pub struct ObjectCx<'a> {
    pub(super) cx: &'a mut Cx,
    pub(super) fields: &'static [&'static str],
    base: usize,
    /// (field, start, end) of the issues of the last occurrence of each field that had some;
    /// field `fields.len()` for an issue of the object itself (sorted after the fields', never
    /// dropped); `fields.len() + 1 + n` for the `n`th other key of an open object.
    pub(super) spans: Vec<(usize, usize, usize)>,
    /// An open object's other keys, in the order they first came.
    others: Vec<String>,
}

/// A struct's generated `index`: the field a wire key names. A function pointer, not a type
/// of its own per struct: the decoder's key loop is one copy for every struct.
pub type Index = fn(&str) -> Option<usize>;

impl<'a> ObjectCx<'a> {
    #[inline]
    fn new(cx: &'a mut Cx, fields: &'static [&'static str]) -> ObjectCx<'a> {
        let base = cx.len();
        ObjectCx {
            cx,
            fields,
            base,
            spans: Vec::new(),
            others: Vec::new(),
        }
    }

    /// The next key that names a field; the values of other keys are skipped (`STRICT`: with
    /// an issue of the object's, see `wire::typed`).
    #[inline]
    pub fn next_key(&mut self, map: &mut dyn Map<'_>, index: Index) -> Read<Option<usize>> {
        self.next_key_or::<false>(map, index)
    }

    pub(super) fn next_key_or<const STRICT: bool>(
        &mut self,
        map: &mut dyn Map<'_>,
        index: Index,
    ) -> Read<Option<usize>> {
        loop {
            let mut field = None;
            if !map.next_key(&mut |key| field = index(key.as_str()))? {
                return Ok(None);
            }
            if field.is_some() {
                return Ok(field);
            }
            if STRICT {
                self.object_issue("read in two stages");
            }
            map.next_value(&mut |value| value.skip())?;
        }
    }

    /// Reads field `i`'s value with `read`, its issues kept as the field's: a later duplicate
    /// replaces an earlier one, issues included. Out of line: one copy serves every field of
    /// every struct, and a struct's field loop is a call per field (valid frames are read by
    /// the fast readers; this is the decoder's path, for what they refuse or are not sure of).
    #[inline(never)]
    pub(super) fn field<'de>(
        &mut self,
        map: &mut dyn Map<'de>,
        i: usize,
        read: &mut dyn FnMut(&mut dyn Src<'de>, &mut Cx) -> Read<()>,
    ) -> Read<()> {
        let start = self.enter_field(i);
        let cx = &mut *self.cx;
        let r = map.next_value(&mut |value| read(value, cx));
        self.leave_field(i, start, r.is_ok());
        r
    }

    /// Before field `i`'s value: the issues of an earlier occurrence dropped, the key entered;
    /// where its issues start. Not generic, so one copy serves every field.
    #[inline]
    fn enter_field(&mut self, i: usize) -> usize {
        if !self.spans.is_empty() {
            self.drop_field(i);
        }
        let start = self.cx.len();
        self.cx.enter_key();
        start
    }

    /// The spans of an earlier occurrence of field `i` forgotten (a duplicate key).
    #[cold]
    #[inline(never)]
    fn drop_field(&mut self, i: usize) {
        self.spans.retain(|s| s.0 != i);
    }

    /// After field `i`'s value: the key left; when it was read (`ok`), its issues since
    /// `start`, if any, kept as the field's.
    #[inline]
    fn leave_field(&mut self, i: usize, start: usize, ok: bool) {
        self.cx.leave_key(start, self.fields[i]);
        if !ok {
            return;
        }
        let end = self.cx.len();
        if end > start {
            self.spans.push((i, start, end));
        }
    }

    /// Decodes the value of field `i` into its slot: `Some(None)` when present but invalid,
    /// written in place rather than moved through the return.
    #[inline]
    pub fn value_into<'de, S: Schema>(
        &mut self,
        map: &mut dyn Map<'de>,
        i: usize,
        schema: S,
        slot: &mut Option<Option<S::Out>>,
    ) -> Read<()> {
        self.field(map, i, &mut |value, cx| {
            *slot = Some(schema.decode(value, cx)?);
            Ok(())
        })
    }

    /// Decodes the value of field `i` into its slot with a schema that may borrow; see
    /// [`ObjectCx::value_into`].
    #[inline]
    pub fn value_ref_into<'de, S: SchemaRef<'de>>(
        &mut self,
        map: &mut dyn Map<'de>,
        i: usize,
        schema: S,
        slot: &mut Option<Option<S::Out>>,
    ) -> Read<()> {
        self.field(map, i, &mut |value, cx| {
            *slot = Some(schema.decode(value, cx)?);
            Ok(())
        })
    }

    /// The next key that names a field, for an open object (`..: T`): the value of every
    /// other key is decoded with `schema` into `rest`, in the order the keys first came (a
    /// later duplicate replaces the value and the issues of an earlier one, as `JSON.parse`
    /// keeps the last). Its issues are the key's, after the fields'.
    #[inline(never)]
    pub fn next_key_rest<'de, S: Schema>(
        &mut self,
        map: &mut dyn Map<'de>,
        index: Index,
        schema: &S,
        rest: &mut RestSlot<S::Out>,
    ) -> Read<Option<usize>> {
        loop {
            let mut field = None;
            let mut other = None;
            let more = map.next_key(&mut |key| {
                field = index(key.as_str());
                if field.is_none() {
                    other = Some(key.as_str().to_owned());
                }
            })?;
            if !more {
                return Ok(None);
            }
            let Some(key) = other else {
                return Ok(field);
            };
            // Spans after the fields' (and the object's own), by the key's first place.
            let place = match self.others.iter().position(|k| *k == key) {
                Some(p) => p,
                None => {
                    self.others.push(key.clone());
                    self.others.len() - 1
                }
            };
            let i = self.fields.len() + 1 + place;
            if !self.spans.is_empty() {
                self.drop_field(i);
            }
            let start = self.cx.len();
            self.cx.push(Seg::Key(Cow::Owned(key.clone())));
            let cx = &mut *self.cx;
            let mut value = None;
            let r = map.next_value(&mut |src| {
                value = schema.decode(src, cx)?;
                Ok(())
            });
            self.cx.pop();
            r?;
            let end = self.cx.len();
            if end > start {
                self.spans.push((i, start, end));
            }
            // An invalid value gives the object its issue; a later valid duplicate takes it
            // back, as it takes back the issue.
            rest.invalid.retain(|&p| p != place);
            match value {
                Some(v) => {
                    rest.map.insert(key, v);
                }
                None => {
                    rest.map.shift_remove(&key);
                    rest.invalid.push(place);
                }
            }
        }
    }

    /// A required field: refused when absent, as its schema refuses `undefined`.
    #[inline]
    pub fn required<T, S: Schema>(
        &mut self,
        i: usize,
        slot: Option<Option<T>>,
        schema: S,
    ) -> Option<T> {
        match slot {
            Some(v) => v,
            None => {
                self.missing(i, schema.expect());
                None
            }
        }
    }

    /// Records that field `i` is absent (not generic: one copy for every field).
    #[cold]
    #[inline(never)]
    fn missing(&mut self, i: usize, expect: Expect) {
        let start = self.cx.len();
        self.cx.push(Seg::Key(Cow::Borrowed(self.fields[i])));
        self.cx.mismatch(expect, "undefined");
        self.cx.pop();
        self.spans.push((i, start, start + 1));
    }

    /// An optional field: `Some(None)` when absent, `None` when present but invalid.
    #[inline]
    pub fn optional<T>(&mut self, slot: Option<Option<T>>) -> Option<Option<T>> {
        match slot {
            None => Some(None),
            Some(v) => v.map(Some),
        }
    }

    /// An optional field with a default used when absent.
    #[inline]
    pub fn or_default<T>(
        &mut self,
        slot: Option<Option<T>>,
        default: impl FnOnce() -> T,
    ) -> Option<T> {
        match slot {
            None => Some(default()),
            Some(v) => v,
        }
    }

    /// An optional literal field: whether it was present; `None` when invalid.
    #[inline]
    pub fn present<T>(&mut self, slot: Option<Option<T>>) -> Option<bool> {
        match slot {
            None => Some(false),
            Some(v) => v.map(|_| true),
        }
    }

    #[inline]
    fn finish(self) {
        if self.cx.len() == self.base {
            // No issue since the object began: nothing to reorder or drop.
            return;
        }
        self.reorder();
    }

    /// Records an issue of the object itself: kept through the reorder (sorted after the
    /// fields), never dropped by a field's duplicate.
    #[cold]
    #[inline(never)]
    pub(super) fn object_issue(&mut self, message: &'static str) {
        let start = self.cx.len();
        self.cx.issue(message, false);
        self.spans.push((self.fields.len(), start, start + 1));
    }

    #[cold]
    #[inline(never)]
    fn reorder(self) {
        let mut spans = self.spans;
        spans.sort_by_key(|s| s.0);
        let live: Vec<(usize, usize)> = spans.iter().map(|s| (s.1, s.2)).collect();
        self.cx.reorder(self.base, &live);
        // The object's issues are in their final order: only the first can be shown.
        self.cx.compact(self.base);
    }
}

/// An object being decoded: the struct's key loop (`slot`), run on its entries, writes the
/// value (a large struct is not moved back up through the parser's layers). One type for
/// every struct, so the decoder's handling of its shapes is one copy.
struct ObjectA<'a, 'de> {
    cx: &'a mut Cx,
    slot: &'a mut dyn Slot<'de>,
}

/// Where a struct's key loop writes its value: `Option<T>` for every struct and view.
trait Slot<'de> {
    /// The struct's wire keys.
    fn fields(&self) -> &'static [&'static str];
    /// Runs the struct's key loop on `map`, writing the value (`None` when invalid).
    fn visit(&mut self, o: &mut ObjectCx<'_>, map: &mut dyn Map<'de>) -> Read<()>;
}

impl<'de, T: Object> Slot<'de> for Option<T> {
    fn fields(&self) -> &'static [&'static str] {
        T::FIELDS
    }
    fn visit(&mut self, o: &mut ObjectCx<'_>, map: &mut dyn Map<'de>) -> Read<()> {
        T::visit(o, map, self)
    }
}

/// A borrowed view's slot (the view's key loop), apart from [`Slot`] for `Option<T>`, which
/// the owned structs take.
struct ViewSlot<'a, T>(&'a mut Option<T>);

impl<'de, T: ObjectRef<'de>> Slot<'de> for ViewSlot<'_, T> {
    fn fields(&self) -> &'static [&'static str] {
        T::FIELDS
    }
    fn visit(&mut self, o: &mut ObjectCx<'_>, map: &mut dyn Map<'de>) -> Read<()> {
        T::visit_into(o, map, self.0)
    }
}

impl<'de> Accept<'de> for ObjectA<'_, 'de> {
    type Out = ();
    fn cx(&mut self) -> &mut Cx {
        self.cx
    }
    fn expect(&self) -> Expect {
        Expect::Type("object")
    }
    fn map(self, map: &mut dyn Map<'de>) -> Read<Option<()>> {
        // The object's issues kept in field order (see `ObjectCx::finish`), also on an error.
        let mut o = ObjectCx::new(self.cx, self.slot.fields());
        let read = self.slot.visit(&mut o, map);
        o.finish();
        read?;
        Ok(Some(()))
    }
}

/// Decodes a generated struct into `out`: `Invalid input: expected object` for anything but
/// an object. Not generic: the struct's key loop is reached through `out`.
fn decode_object_into<'de>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    out: &mut dyn Slot<'de>,
) -> Read<()> {
    accept(src, ObjectA { cx, slot: out }).map(|_| ())
}

/// Decodes a generated struct: `Invalid input: expected object` for anything but an object.
#[inline]
pub fn decode_object<'de, T: Object>(src: &mut dyn Src<'de>, cx: &mut Cx) -> Read<Option<T>> {
    let mut out = None;
    match decode_object_into(src, cx, &mut out) {
        Ok(()) => Ok(out),
        Err(stop) => Err(stop),
    }
}

/// Decodes a generated borrowed view into `out` (a large value is not moved back up through
/// the parser's layers); `out` stays `None` when it is invalid.
#[inline]
pub fn decode_object_ref_into<'de, T: ObjectRef<'de>>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
    out: &mut Option<T>,
) -> Read<()> {
    decode_object_into(src, cx, &mut ViewSlot(out))
}

/// Decodes a generated borrowed view: as [`decode_object`], borrowing from the input.
#[inline]
pub fn decode_object_ref<'de, T: ObjectRef<'de>>(
    src: &mut dyn Src<'de>,
    cx: &mut Cx,
) -> Read<Option<T>> {
    let mut out = None;
    decode_object_ref_into(src, cx, &mut out)?;
    Ok(out)
}
