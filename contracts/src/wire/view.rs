//! Borrowed views of whole values: what the fast reader needs to read a generated type's view
//! (`ChatEventPayloadRef<'a>`, `EventPayloadRef<'a>`) with its strings and raw values borrowed
//! from the input.
//!
//! A view is generated beside every type that holds text (a string, an `unknown` value, a
//! map's keys): each string is a `Cow<'a, str>`, each `unknown` a `Cow<'a, RawValue>`, each
//! field of a type that holds text that type's view, everything else the owned type. It is
//! read by the fast reader alone (`wire::scan`), through the [`ScanRef`] schemas below; when
//! the reader is not sure, the owned type's decoder gives the value and the verdict, and the
//! view is made from it (`DecodeRef::from_owned`). So a view accepts exactly what its owned
//! type accepts, with the same value (`into_owned`), by construction.

use super::scan::{Keys, Scanner, scan_entries, scan_items};
use super::schema::{
    Array, Boxed, DecodeRef, Map, Nullable, Schema, SchemaRef, StrRef, UnknownRef,
};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::marker::PhantomData;

/// A type expression the fast reader reads into a value that may borrow from the input
/// (`'de`): the fields of a generated view.
pub trait ScanRef<'de>: Copy {
    /// The value a plain, valid input becomes.
    type Out;
    /// Reads one plain, valid value; `None` when not sure (see `wire::scan`).
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out>;
}

/// A vector's items converted one by one, between a view and its owned value (a view's
/// `into_owned` and `from_owned`): a plain loop, so each field's conversion compiles to a
/// small function rather than to the standard library's in-place `collect` machinery.
pub fn convert_vec<T, U>(items: Vec<T>, mut convert: impl FnMut(T) -> U) -> Vec<U> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        out.push(convert(item));
    }
    out
}

/// A view's optional string, owned (a view's `into_owned`): one function for every such
/// field, not a closure each.
pub fn owned_str(v: Option<Cow<'_, str>>) -> Option<String> {
    v.map(Cow::into_owned)
}

/// An owned optional string, as a view holds it (a view's `from_owned`).
pub fn lent_str<'a>(v: Option<String>) -> Option<Cow<'a, str>> {
    v.map(Cow::Owned)
}

/// A generated struct's view, read field by field once its object is opened: what a tagged
/// union's view hands the object to after reading the tag.
pub trait ObjectView<'de>: Sized {
    /// The fast reader's key loop, the object opened; `None` when not sure.
    fn scan_fields(r: &mut Scanner<'de>, keys: Keys) -> Option<Self>;
}

/// The fast reader of a struct's view: the object opened, then its key loop.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn scan_object_view<'de, T: ObjectView<'de>>(r: &mut Scanner<'de>) -> Option<T> {
    let keys = r.object()?;
    T::scan_fields(r, keys)
}

/// A schema whose value holds no text, read as the owned type reads it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Own<S>(pub S);

impl<'de, S: Schema> ScanRef<'de> for Own<S> {
    type Out = S::Out;
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'de>) -> Option<S::Out> {
        self.0.scan(r)
    }
}

impl<'de> ScanRef<'de> for StrRef {
    type Out = Cow<'de, str>;
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        SchemaRef::scan(self, r)
    }
}

impl<'de> ScanRef<'de> for UnknownRef {
    type Out = Cow<'de, serde_json::value::RawValue>;
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        SchemaRef::scan(self, r)
    }
}

impl<'de, S: ScanRef<'de>> ScanRef<'de> for Array<S> {
    type Out = Vec<S::Out>;
    #[inline]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        scan_items(r, self.min, self.max, |r| self.item.scan(r))
    }
}

impl<'de, S: ScanRef<'de>> ScanRef<'de> for Map<S> {
    type Out = BTreeMap<Cow<'de, str>, S::Out>;
    #[inline]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        scan_entries(r, |r| self.0.scan(r))
    }
}

impl<'de, S: ScanRef<'de>> ScanRef<'de> for Nullable<S> {
    type Out = Option<S::Out>;
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        if r.null()? {
            Some(None)
        } else {
            self.0.scan(r).map(Some)
        }
    }
}

impl<'de, S: ScanRef<'de>> ScanRef<'de> for Boxed<S> {
    type Out = Box<S::Out>;
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'de>) -> Option<Self::Out> {
        self.0.scan(r).map(Box::new)
    }
}

/// A generated view, as a schema.
pub struct NamedRef<T>(PhantomData<fn() -> T>);

impl<T> NamedRef<T> {
    /// The schema of `T`.
    pub const fn new() -> Self {
        NamedRef(PhantomData)
    }
}

impl<T> Default for NamedRef<T> {
    fn default() -> Self {
        NamedRef::new()
    }
}

impl<T> Clone for NamedRef<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for NamedRef<T> {}

impl<'de, T: DecodeRef<'de>> ScanRef<'de> for NamedRef<T> {
    type Out = T;
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn scan(self, r: &mut Scanner<'de>) -> Option<T> {
        T::scan(r)
    }
}

/// Test support for generated code (`check_type_view`): reads `json` as the view `V` and as
/// its owned type, and panics unless they agree: the same verdict and message, the same value
/// (`into_owned`), and the view's fast reader answering where the owned type's does, with the
/// same value. Whether the owned type accepts, and whether the view's fast reader answered.
#[doc(hidden)]
pub fn view_agrees<'a, V: DecodeRef<'a>>(json: &'a str) -> (bool, bool)
where
    V::Owned: PartialEq + std::fmt::Debug,
{
    let name = std::any::type_name::<V>();
    let owned = super::from_str::<V::Owned>(json).map_err(|e| e.to_string());
    let view = super::from_str_ref::<V>(json)
        .map(V::into_owned)
        .map_err(|e| e.to_string());
    assert_eq!(view, owned, "{name}: {json}");
    let fast = super::scan::scan_str(json, V::scan).map(V::into_owned);
    if let Some(v) = &fast {
        assert_eq!(Ok(v), owned.as_ref(), "{name}'s fast reader: {json}");
    }
    let fast_owned = super::scan::scan_str(json, <V::Owned as super::Decode>::scan);
    assert_eq!(
        fast.is_some(),
        fast_owned.is_some(),
        "{name}'s fast reader answers where the owned type's does: {json}"
    );
    (owned.is_ok(), fast.is_some())
}
