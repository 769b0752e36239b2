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
use super::object::{ObjectCx, ObjectRef, decode_object_ref_into};
use super::scan::{Scanner, scan_str};
use super::schema::{DecodeRef, SchemaRef, UnknownRef};
use super::source::{Map, Read, Src, read_de};
use super::{ParseError, TableError};
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A table's by-name enum (`RequestPayload`, `EventPayload`, or a view such as
/// `EventPayloadRef<'de>`), generated: any entry's value, decoded by the entry's name. `'de`
/// is the input the fast reader may borrow from (a view's strings); the decoder and the table
/// stage build owned values (a view is made from them).
pub trait ByName<'de>: Sized {
    /// Decodes the value of the entry named `name` into `out` (`None` when invalid, its
    /// issues recorded). A name the table does not know records an issue and skips the value.
    fn decode_named<'a>(
        name: &str,
        src: &mut dyn Src<'a>,
        cx: &mut Cx,
        out: &mut Option<Self>,
    ) -> Read<()>;
    /// Parses the value of the entry named `name` from its JSON text (the table stage), by the
    /// decoder alone ([`parse_by_name`]).
    fn parse_named(name: &str, json: &str) -> Result<Self, TableError>;
    /// [`ByName::parse_named`] with the fast reader first: the same verdict, at the fast
    /// reader's speed on plain, valid text. Provided, so the fast readers are compiled only in
    /// a crate that calls it.
    fn read_named(name: &str, json: &'de str) -> Result<Self, TableError> {
        match scan_str(json, |r| scan_entry::<Self>(name, r)) {
            Some(v) => Ok(v),
            None => Self::parse_named(name, json),
        }
    }
    /// Reads the value of the entry named `name` with the fast reader (`wire::scan`); `None`
    /// when not sure, or when the table does not know the name.
    fn scan_named(name: &str, r: &mut Scanner<'de>) -> Option<Self>;
}

/// A generated typed form of a frame (`RequestTyped<'a, E>`): its own loop (an
/// [`ObjectRef`]) reads the payload by name; the view and the table give the same value in
/// two stages.
pub trait ObjectTyped<'de>: ObjectRef<'de> {
    /// The frame's borrowed view, its payload kept as text (`RequestRef<'a>`).
    type View: DecodeRef<'de>;
    /// The table's by-name enum.
    type Entry: ByName<'de>;
    /// The entry's name and the payload's text, as the view holds them.
    fn parts(view: &Self::View) -> (&str, &RawValue);
    /// The typed form of a view whose payload was parsed by the table.
    fn from_view(view: Self::View, entry: Self::Entry) -> Self;
    /// The fast reader (`wire::scan`): the frame when its name comes before its payload, every
    /// key is a field, read once, and the frame and payload are plain and valid; else `None`.
    fn scan(r: &mut Scanner<'de>) -> Option<Self>;
}

/// A generated untagged union one of whose variants has a typed form (`ServerFrameTyped<'a, E>`:
/// its event read with its payload). The emitter writes one only when every variant before the
/// typed one needs a literal key the typed struct does not have, so an object holding only the
/// typed struct's keys can be no earlier variant: the strict one-pass read answers for the union.
pub trait UnionTyped<'de>: Sized {
    /// The union's borrowed view (`ServerFrameRef<'a>`).
    type View: DecodeRef<'de>;
    /// The typed variant's struct (`EventTyped<'a, E>`).
    type Typed: ObjectTyped<'de>;
    /// The union holding the typed variant.
    fn typed(t: Self::Typed) -> Self;
    /// The union from its view: `Err` with the typed variant's view, whose payload the table
    /// still has to parse.
    fn split(view: Self::View) -> Result<Self, <Self::Typed as ObjectTyped<'de>>::View>;
    /// The union's view holding the typed variant's view.
    fn join(view: <Self::Typed as ObjectTyped<'de>>::View) -> Self::View;
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

impl<V> std::fmt::Display for Refused<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Envelope(e) => e.fmt(f),
            Refused::Table(_, e) => e.fmt(f),
        }
    }
}

impl<V: std::fmt::Debug> std::error::Error for Refused<V> {}

/// The slot of a `#[table]` field in the typed loop: the payload read by the name known then
/// (written in place), or as text when the name came later.
pub struct EntrySlot<'de, E> {
    /// The name the payload was read by.
    by: Option<Cow<'de, str>>,
    /// The payload read by `by` (`None` when invalid).
    value: Option<E>,
    /// The payload's text, when no name was known yet.
    text: Option<Cow<'de, RawValue>>,
}

impl<E> EntrySlot<'_, E> {
    /// An empty slot.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn new() -> Self {
        EntrySlot {
            by: None,
            value: None,
            text: None,
        }
    }
}

impl<E> Default for EntrySlot<'_, E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Parses a frame and its payload, the payload by the frame's name through the table: in one
/// pass when it can (see the module), else in two stages with their verdict.
#[inline]
pub fn from_str_typed<'a, T: ObjectTyped<'a>>(json: &'a str) -> Result<T, Refused<T::View>> {
    if let Some(v) = scan_str(json, T::scan) {
        return Ok(v);
    }
    let mut out = None;
    if read_typed_into::<T>(json, &mut out)
        && let Some(v) = out
    {
        return Ok(v);
    }
    read_in_two_stages::<T>(json)
}

/// The one-pass read alone: the frame when it and its payload are valid and it holds no key
/// but its own, else `None` (the caller runs the two stages).
#[inline]
pub fn read_typed_once<'a, T: ObjectTyped<'a>>(json: &'a str) -> Option<T> {
    let mut out = None;
    if read_typed_into::<T>(json, &mut out) {
        out
    } else {
        None
    }
}

/// The one-pass read into `out`: whether it answered.
#[inline]
fn read_typed_into<'a, T: ObjectTyped<'a>>(json: &'a str, out: &mut Option<T>) -> bool {
    super::union::with_live_tags(None, |cx| read_once::<T>(json, out, cx))
}

#[inline]
fn read_once<'a, T: ObjectTyped<'a>>(json: &'a str, out: &mut Option<T>, cx: &mut Cx) -> bool {
    // A run started over (a tagged union's disagreeing duplicate tag) must not see the
    // first run's value.
    *out = None;
    let mut de = serde_json::Deserializer::from_str(json);
    let read = read_de(&mut de, |src| decode_object_ref_into::<T>(src, cx, out));
    read.is_ok() && out.is_some() && cx.is_empty() && de.end().is_ok()
}

#[cold]
#[inline(never)]
fn read_in_two_stages<'a, T: ObjectTyped<'a>>(json: &'a str) -> Result<T, Refused<T::View>> {
    let view = super::from_str_ref::<T::View>(json).map_err(Refused::Envelope)?;
    parse_entry::<T>(view).map_err(|(view, e)| Refused::Table(view, e))
}

/// The table stage on a view: its payload parsed by its name.
fn parse_entry<'a, T: ObjectTyped<'a>>(view: T::View) -> Result<T, (T::View, TableError)> {
    let (name, payload) = T::parts(&view);
    match T::Entry::parse_named(name, payload.get()) {
        Ok(entry) => Ok(T::from_view(view, entry)),
        Err(e) => Err((view, e)),
    }
}

/// Parses an untagged union with a typed variant (see [`UnionTyped`]): the typed variant in one
/// pass when it can (the fast reader, then the decoder's one-pass loop), another variant with
/// the view's fast reader, else the union's view and, for the typed variant, the table, with
/// their verdict.
#[inline]
pub fn from_str_union_typed<'a, U: UnionTyped<'a>>(json: &'a str) -> Result<U, Refused<U::View>> {
    if let Some(t) = scan_str(json, <U::Typed as ObjectTyped<'a>>::scan) {
        return Ok(U::typed(t));
    }
    // Another variant (a reply), read by the union's view with the fast reader.
    if let Some(Ok(u)) = scan_str(json, <U::View as DecodeRef<'a>>::scan).map(U::split) {
        return Ok(u);
    }
    if let Some(t) = read_typed_once::<U::Typed>(json) {
        return Ok(U::typed(t));
    }
    union_in_two_stages::<U>(json)
}

#[cold]
#[inline(never)]
fn union_in_two_stages<'a, U: UnionTyped<'a>>(json: &'a str) -> Result<U, Refused<U::View>> {
    let view = super::from_str_ref::<U::View>(json).map_err(Refused::Envelope)?;
    match U::split(view) {
        Ok(u) => Ok(u),
        Err(view) => match parse_entry::<U::Typed>(view) {
            Ok(t) => Ok(U::typed(t)),
            Err((view, e)) => Err(Refused::Table(U::join(view), e)),
        },
    }
}

/// A generated untagged union some of whose variants are typed frames, wherever they stand
/// (JSON-RPC's `JSONRPCMessageTyped<'a, R, E>`: a request read through the request table, a
/// notification through the event table, the responses as the view reads them). Parsed by
/// [`from_str_variants_typed`].
///
/// A typed variant is read in one pass only when the union would pick it: the first variant,
/// or one such that every earlier variant requires a key it does not have (a request's `id`,
/// which a notification lacks), since its one-pass read answers only for an object holding
/// none but its own keys. The emitter generates the attempts for those variants alone.
pub trait VariantsTyped<'de>: Sized {
    /// The union's borrowed view (`JSONRPCMessageRef<'a>`).
    type View: DecodeRef<'de>;
    /// The fast readers of the typed variants the one pass may answer for, in order.
    fn scan_once(json: &'de str) -> Option<Self>;
    /// The typed variants' one-pass loops ([`read_typed_once`]), in the same order.
    fn read_once(json: &'de str) -> Option<Self>;
    /// The union from its view: a typed variant's payload parsed by the table
    /// ([`typed_from_view`]), every other variant as it was read; `Err` with the view when the
    /// table refuses.
    fn from_view(view: Self::View) -> Result<Self, (Self::View, TableError)>;
}

/// Parses an untagged union whose typed variants carry their payloads by name (see
/// [`VariantsTyped`]): a typed variant in one pass when it can (the fast reader), else the
/// union's view by its fast reader and the table; then the one-pass loops, and last the two
/// stages (the union's view, then the table for a typed variant), with their verdict.
#[inline]
pub fn from_str_variants_typed<'a, U: VariantsTyped<'a>>(
    json: &'a str,
) -> Result<U, Refused<U::View>> {
    if let Some(u) = U::scan_once(json) {
        return Ok(u);
    }
    if let Some(view) = scan_str(json, <U::View as DecodeRef<'a>>::scan) {
        return U::from_view(view).map_err(|(view, e)| Refused::Table(view, e));
    }
    if let Some(u) = U::read_once(json) {
        return Ok(u);
    }
    variants_in_two_stages::<U>(json)
}

#[cold]
#[inline(never)]
fn variants_in_two_stages<'a, U: VariantsTyped<'a>>(json: &'a str) -> Result<U, Refused<U::View>> {
    let view = super::from_str_ref::<U::View>(json).map_err(Refused::Envelope)?;
    U::from_view(view).map_err(|(view, e)| Refused::Table(view, e))
}

/// A typed frame's fast reader alone ([`ObjectTyped::scan`]) on the whole text.
#[inline]
pub fn scan_typed_once<'a, T: ObjectTyped<'a>>(json: &'a str) -> Option<T> {
    scan_str(json, T::scan)
}

/// The table stage on a typed frame's view: its payload parsed by its name, or the view back
/// with the table's error.
pub fn typed_from_view<'a, T: ObjectTyped<'a>>(view: T::View) -> Result<T, (T::View, TableError)> {
    parse_entry::<T>(view)
}

impl ObjectCx<'_> {
    /// The typed loop's strict key: a key that names no field records an issue of the
    /// object's (the two stages take over), its value skipped.
    #[inline]
    pub fn next_key_strict(
        &mut self,
        map: &mut dyn Map<'_>,
        index: super::object::Index,
    ) -> Read<Option<usize>> {
        self.next_key_or::<true>(map, index)
    }

    /// Reads the `#[table]` field `i` into its slot: by the name in `key` when it has been
    /// read, else as text. Its issues are the field's, as [`ObjectCx::value_into`] keeps them.
    #[inline]
    pub fn entry_into<'de, E: ByName<'de>>(
        &mut self,
        map: &mut dyn Map<'de>,
        i: usize,
        key: &Option<Option<Cow<'de, str>>>,
        slot: &mut EntrySlot<'de, E>,
    ) -> Read<()> {
        slot.value = None;
        slot.text = None;
        match key {
            Some(Some(name)) => {
                slot.by = Some(name.clone());
                let out = &mut slot.value;
                self.field(map, i, &mut |value, cx| {
                    E::decode_named(name, value, cx, out)
                })
            }
            _ => {
                slot.by = None;
                let text = &mut slot.text;
                self.field(map, i, &mut |value, cx| {
                    *text = UnknownRef.decode(value, cx)?;
                    Ok(())
                })
            }
        }
    }

    /// The `#[table]` field once the loop ended: the entry, parsed now if it was read as text;
    /// `None` (an issue recorded) when absent, invalid, or read by a name the frame's last
    /// name no longer is.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn entry<'de, E: ByName<'de>>(
        &mut self,
        slot: EntrySlot<'de, E>,
        key: &Option<Cow<'de, str>>,
    ) -> Option<E> {
        let Some(name) = key else {
            // The name is invalid or absent: its issue is recorded.
            return None;
        };
        match slot.by {
            // `None` when invalid: its issues are recorded.
            Some(by) if same_name(&by, name) => slot.value,
            _ => self.entry_late(slot.text, name),
        }
    }

    /// [`ObjectCx::entry`] for an optional `#[table]` field: absent, it is `{}` read by the
    /// name (JSON-RPC's `params`); `None` (an issue recorded) when `{}` is not a valid payload,
    /// and the two stages say why.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn entry_or_empty<'de, E: ByName<'de>>(
        &mut self,
        slot: EntrySlot<'de, E>,
        key: &Option<Cow<'de, str>>,
    ) -> Option<E> {
        if slot.by.is_none() && slot.text.is_none() {
            let Some(name) = key else {
                return None;
            };
            return match E::read_named(name, EMPTY_OBJECT) {
                Ok(e) => Some(e),
                Err(_) => self.fall_back(),
            };
        }
        self.entry(slot, key)
    }

    /// The `#[table]` field read as text (its name came later), or absent, or read by a name
    /// the frame's last name is not.
    #[cold]
    #[inline(never)]
    fn entry_late<'de, E: ByName<'de>>(
        &mut self,
        text: Option<Cow<'de, RawValue>>,
        name: &str,
    ) -> Option<E> {
        // Text borrowed from the frame is read with the fast reader first.
        let parsed = match &text {
            Some(Cow::Borrowed(text)) => E::read_named(name, text.get()),
            Some(Cow::Owned(text)) => E::parse_named(name, text.get()),
            None => return self.fall_back(),
        };
        match parsed {
            Ok(e) => Some(e),
            Err(_) => self.fall_back(),
        }
    }

    /// Records that the typed loop cannot answer, so the two stages will: an issue of the
    /// object itself, which the object's reorder keeps (a field's duplicate never drops it).
    #[cold]
    #[inline(never)]
    fn fall_back<T>(&mut self) -> Option<T> {
        self.object_issue("read in two stages");
        None
    }
}

/// What an optional `#[table]` field that is absent holds, as the table reads it.
const EMPTY_OBJECT: &str = "{}";

/// An absent optional `#[table]` field's text, `{}` (a generated `ObjectTyped::parts`).
pub fn empty_object() -> &'static RawValue {
    static EMPTY: std::sync::LazyLock<Box<RawValue>> = std::sync::LazyLock::new(|| {
        RawValue::from_string(EMPTY_OBJECT.to_owned()).expect("`{}` is JSON")
    });
    &EMPTY
}

/// The fast reader of an absent optional `#[table]` field: `{}` read by `name`; `None` when
/// not sure (the decoder's loop answers).
#[inline(never)]
pub fn scan_empty_entry<'de, E: ByName<'de>>(name: &str) -> Option<E> {
    scan_str(EMPTY_OBJECT, |r| E::scan_named(name, r))
}

/// The issue a by-name decode records for a name its table does not know.
const UNKNOWN_NAME: &str = "unknown name";

/// The issue of a name the table does not know, its value skipped (a generated
/// `decode_named`'s last arm).
#[cold]
#[inline(never)]
pub fn unknown_entry(src: &mut dyn Src<'_>, cx: &mut Cx) -> Read<()> {
    src.skip()?;
    cx.issue(UNKNOWN_NAME, false);
    Ok(())
}

/// A table's by-name parse (`RequestPayload::parse`, generated): the value of the entry named
/// `name`, one of the table's `names`, by the decoder alone (`decode_named`), so a crate of
/// generated types compiles no fast reader for it; [`ByName::read_named`] reads with the fast
/// reader first. A name not in `names` is [`TableError::UnknownName`].
pub fn parse_by_name<'de, B: ByName<'de>>(
    names: &'static [&'static str],
    name: &str,
    json: &str,
) -> Result<B, TableError> {
    let Some(&known) = names.iter().find(|n| **n == name) else {
        return Err(TableError::UnknownName(name.to_owned()));
    };
    super::drive::decode_with(json, |src, cx| {
        let mut out = None;
        B::decode_named(known, src, cx, &mut out)?;
        Ok(out)
    })
    .map_err(|error| match error.issues() {
        // A composed table's name its base's build does not have (a base built from another
        // schema than the one the app's macro read): a name the table does not know.
        [issue] if issue.message() == UNKNOWN_NAME && issue.path().is_empty() => {
            TableError::UnknownName(name.to_owned())
        }
        _ => TableError::Invalid { name: known, error },
    })
}

/// A composed table's entry its base declares (an app's `chat.create`, from the agent's),
/// decoded by the base's by-name enum `B` and made the composed enum's `T` by `into`, a
/// generated match that moves the boxed value from one variant to the other. The composed
/// table's code per base entry is that one arm. `into` answers `None` only for an entry the
/// composed table does not have (a base built from another schema than the one the app's macro
/// read), which is then a name the table does not know.
pub fn decode_from_base<'de, B: ByName<'de>, T>(
    name: &str,
    src: &mut dyn Src<'_>,
    cx: &mut Cx,
    out: &mut Option<T>,
    into: fn(B) -> Option<T>,
) -> Read<()> {
    let mut base = None;
    B::decode_named(name, src, cx, &mut base)?;
    *out = match base {
        Some(v) => match into(v) {
            Some(v) => Some(v),
            None => {
                cx.issue(UNKNOWN_NAME, false);
                None
            }
        },
        None => None,
    };
    Ok(())
}

/// A table's fast reader by name (`ByName::scan_named`, which inlines every entry's fast
/// reader), out of line: one copy per table in a crate, shared by whatever reads by name there
/// (the typed frames, [`ByName::read_named`]). Generic, so it is compiled where it is called.
#[inline(never)]
pub fn scan_entry<'de, E: ByName<'de>>(name: &str, r: &mut Scanner<'de>) -> Option<E> {
    E::scan_named(name, r)
}

/// [`decode_from_base`] for the fast reader: the base's `scan_named`, its value made `T`'s.
#[inline]
pub fn scan_from_base<'de, B: ByName<'de>, T>(
    name: &str,
    r: &mut Scanner<'de>,
    into: fn(B) -> Option<T>,
) -> Option<T> {
    match B::scan_named(name, r) {
        Some(v) => into(v),
        None => None,
    }
}

/// Whether the name a payload was read by is the frame's last name: the same text in the
/// input (the usual case, no bytes compared), or equal text.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn same_name(by: &str, name: &str) -> bool {
    (by.as_ptr() == name.as_ptr() && by.len() == name.len()) || by == name
}

/// A host of a request table as a frame machinery calls it: every protocol with requests
/// generates one, `Dispatcher(&host)`, whose `dispatch_payload` routes every name of its
/// tables (an app's and its bases') and answers failures with the protocol's own error (the
/// agent's `WireError`, a JSON-RPC protocol's error with integer codes).
pub trait Dispatch: Sync {
    /// The request table's by-name enum: this protocol's `RequestPayload` (an app's holds its
    /// bases' entries too).
    type Payload: for<'de> ByName<'de> + Send;
    /// The protocol's `#[error]`: what a failure answers with.
    type Error: super::HostError + Send;
    /// Calls the host's method for a parsed payload and answers its result as raw JSON.
    fn dispatch_payload(
        &self,
        payload: Self::Payload,
    ) -> impl std::future::Future<Output = Result<Box<serde_json::value::RawValue>, Self::Error>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A composed table of two names whose base's build knows only `a`: `b`'s decode goes to a
    /// base that records the unknown name, as `decode_from_base` does.
    #[derive(Debug, PartialEq)]
    struct Composed(u8);

    impl<'de> ByName<'de> for Composed {
        fn decode_named<'a>(
            name: &str,
            src: &mut dyn Src<'a>,
            cx: &mut Cx,
            out: &mut Option<Self>,
        ) -> Read<()> {
            match name {
                "a" => {
                    *out = crate::__private::Schema::decode(
                        crate::__private::Int::default(),
                        src,
                        cx,
                    )?
                    .map(|v| Composed(v as u8));
                    Ok(())
                }
                _ => unknown_entry(src, cx),
            }
        }
        fn parse_named(name: &str, json: &str) -> Result<Self, TableError> {
            parse_by_name(&["a", "b"], name, json)
        }
        fn scan_named(_: &str, _: &mut Scanner<'de>) -> Option<Self> {
            None
        }
    }

    #[test]
    fn a_name_the_base_does_not_know_is_an_unknown_name() {
        assert_eq!(Composed::parse_named("a", "7").unwrap(), Composed(7));
        assert!(matches!(
            Composed::parse_named("a", "\"x\""),
            Err(TableError::Invalid { name: "a", .. })
        ));
        assert!(matches!(
            Composed::parse_named("b", "7"),
            Err(TableError::UnknownName(n)) if n == "b"
        ));
        assert!(matches!(
            Composed::parse_named("c", "7"),
            Err(TableError::UnknownName(n)) if n == "c"
        ));
    }
}
