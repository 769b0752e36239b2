//! The decoder's reader behind trait objects: every generated decoder reads a [`Src`] (one
//! JSON value), a [`Map`] (an object's entries) or a [`Seq`] (an array's items), never a
//! serde `Deserializer` of its own type.
//!
//! serde's reading is generic over the deserializer and over the visitor: a decoder per
//! type, each with its visitor, costs a copy of serde_json's whole `deserialize_any` per
//! type. Here a schema hands its shape methods to the reader as a [`Sink`], and one visitor
//! ([`DynVisit`]) forwards what serde_json reads to it: serde_json's reading is one copy per
//! deserializer type, and each decoder is one copy, whatever reads it.
//!
//! Errors travel out of band. A reader that meets serde's error keeps it (the adapters over
//! serde: [`DeSrc`], [`DeMap`], [`DeSeq`]) and answers [`Stop`]; the stop goes up through the
//! decoders to the adapter that entered them, which hands serde its own error back. So
//! serde_json's message and position are the ones it wrote. A stop the decoder raises
//! itself (a nesting limit, a tag that changed) carries its message, made serde's error by
//! the first adapter it reaches.
//!
//! A number reaches a [`Sink`] as a [`Num`], as the parser saw it.

use super::issue::{Cx, Expect};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;

/// Why a read stopped: a JSON syntax error or one of the parser's limits. The error waits in
/// the reader that met it; a stop the decoder raised carries its own message.
#[derive(Debug)]
pub struct Stop(Option<Box<str>>);

/// What a read answers: the value, or where it stopped.
pub type Read<T> = Result<T, Stop>;

/// A JSON number as the parser saw it.
#[derive(Clone, Copy, Debug)]
pub enum Num {
    U(u64),
    I(i64),
    F(f64),
}

impl Num {
    /// The number as JavaScript holds it.
    pub fn as_f64(self) -> f64 {
        match self {
            Num::U(u) => u as f64,
            Num::I(i) => i as f64,
            Num::F(f) => f,
        }
    }
}

impl Stop {
    /// A stop the decoder raises, with its message (serde's `Error::custom`).
    pub fn with(message: impl fmt::Display) -> Stop {
        Stop(Some(message.to_string().into_boxed_str()))
    }

    /// A stop whose error waits in the reader that met it.
    fn parked() -> Stop {
        Stop(None)
    }

    /// serde's error for this stop: its message, or the error `parked` holds.
    fn into_error<E: de::Error>(self, parked: &mut Option<E>) -> E {
        match (self.0, parked.take()) {
            (Some(message), _) => E::custom(message),
            (None, Some(e)) => e,
            (None, None) => E::custom("the decoder stopped without an error"),
        }
    }
}

/// One JSON value to read.
pub trait Src<'de> {
    /// Reads the value, handing its shape to `sink`.
    fn any(&mut self, sink: &mut dyn Sink<'de>) -> Read<()>;
    /// Reads the value unless it is `null`: true for `null`, else `some` reads it.
    fn option(&mut self, some: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<bool>;
    /// The value's JSON text, borrowed from the input when it can be, with no tree built.
    fn text(&mut self) -> Read<Cow<'de, str>>;
    /// Skips the value (an unknown key's).
    fn skip(&mut self) -> Read<()>;
}

/// What a schema does with each JSON shape (object-safe, one per value read).
pub trait Sink<'de> {
    /// A string that lives only as long as the call.
    fn str(&mut self, v: &str);
    /// A string the reader built (an escaped one).
    fn string(&mut self, v: String);
    /// A string borrowed from the input.
    fn borrowed_str(&mut self, v: &'de str);
    fn bool(&mut self, v: bool);
    /// An integer.
    fn num(&mut self, n: Num);
    /// A number with a fraction or an exponent (or a marker of one JavaScript reads as
    /// Infinity, see `js`).
    fn f64(&mut self, v: f64);
    fn null(&mut self);
    /// An array: its items, read or skipped by the sink, to the end.
    fn seq(&mut self, seq: &mut dyn Seq<'de>) -> Read<()>;
    /// An object: its entries, read or skipped by the sink, to the end.
    fn map(&mut self, map: &mut dyn Map<'de>) -> Read<()>;
}

/// An array's items.
pub trait Seq<'de> {
    /// The next item, handed to `item`; false at the end of the array.
    fn next(&mut self, item: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<bool>;
}

/// An object's entries.
pub trait Map<'de> {
    /// The next key, handed to `key`; false at the end of the object.
    fn next_key(&mut self, key: &mut dyn FnMut(Key<'_, 'de>)) -> Read<bool>;
    /// The value of the key just read, handed to `value`.
    fn next_value(&mut self, value: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<()>;
}

/// A key as the reader has it.
pub enum Key<'a, 'de> {
    /// Borrowed from the input.
    Lent(&'de str),
    /// Alive only for the call (unescaped into the reader's scratch).
    Brief(&'a str),
    /// Built by the reader.
    Owned(String),
}

impl<'de> Key<'_, 'de> {
    /// The key's text.
    #[inline]
    pub fn as_str(&self) -> &str {
        match self {
            Key::Lent(s) => s,
            Key::Brief(s) => s,
            Key::Owned(s) => s,
        }
    }

    /// The key, borrowed from the input when it is.
    #[inline]
    pub fn into_cow(self) -> Cow<'de, str> {
        match self {
            Key::Lent(s) => Cow::Borrowed(s),
            Key::Brief(s) => Cow::Owned(s.to_owned()),
            Key::Owned(s) => Cow::Owned(s),
        }
    }
}

/// Skips the rest of an array.
pub(crate) fn skip_seq<'de>(seq: &mut dyn Seq<'de>) -> Read<()> {
    while seq.next(&mut |item| item.skip())? {}
    Ok(())
}

/// Skips the rest of an object.
pub(crate) fn skip_map<'de>(map: &mut dyn Map<'de>) -> Read<()> {
    while map.next_key(&mut |_| {})? {
        map.next_value(&mut |value| value.skip())?;
    }
    Ok(())
}

/// A serde deserializer as a [`Src`]: the one adapter between serde and the decoders. Its
/// error, when serde answers one, waits here (see [`DeSrc::finish`]).
pub struct DeSrc<'de, D: Deserializer<'de>> {
    d: Option<D>,
    err: Option<D::Error>,
    _de: std::marker::PhantomData<&'de ()>,
}

impl<'de, D: Deserializer<'de>> DeSrc<'de, D> {
    /// The value `d` will read.
    #[inline]
    pub fn new(d: D) -> Self {
        DeSrc {
            d: Some(d),
            err: None,
            _de: std::marker::PhantomData,
        }
    }

    /// What a read of this value answers, as serde's result: a stop becomes the error that
    /// waits here, or the stop's message.
    #[inline]
    pub fn finish<T>(mut self, read: Read<T>) -> Result<T, D::Error> {
        read.map_err(|stop| stop.into_error(&mut self.err))
    }

    #[inline]
    fn take(&mut self) -> Read<D> {
        self.d
            .take()
            .ok_or_else(|| Stop::with("a value read twice"))
    }

    #[inline]
    fn park<T>(&mut self, r: Result<T, D::Error>) -> Read<T> {
        r.map_err(|e| {
            self.err = Some(e);
            Stop::parked()
        })
    }
}

impl<'de, D: Deserializer<'de>> Src<'de> for DeSrc<'de, D> {
    fn any(&mut self, sink: &mut dyn Sink<'de>) -> Read<()> {
        let d = self.take()?;
        let r = d.deserialize_any(DynVisit(sink));
        self.park(r)
    }

    fn option(&mut self, some: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<bool> {
        let d = self.take()?;
        let r = d.deserialize_option(OptionV(some));
        self.park(r)
    }

    fn text(&mut self) -> Read<Cow<'de, str>> {
        let d = self.take()?;
        let r = super::serde_json_internals::capture(d);
        self.park(r)
    }

    fn skip(&mut self) -> Read<()> {
        let d = self.take()?;
        let r = d.deserialize_ignored_any(IgnoredAny).map(|_| ());
        self.park(r)
    }
}

/// A value read from `d` by `read`, as serde's result (see [`DeSrc::finish`]).
#[inline]
pub fn read_de<'de, D: Deserializer<'de>, T>(
    d: D,
    read: impl FnOnce(&mut dyn Src<'de>) -> Read<T>,
) -> Result<T, D::Error> {
    let mut src = DeSrc::new(d);
    let r = read(&mut src);
    src.finish(r)
}

/// A value read from JSON text by a fresh parser, as the decoder's result: the parser's
/// error becomes a stop with its message (buffered text read again).
pub(crate) fn read_text<'de, T>(
    text: &'de str,
    read: impl FnOnce(&mut dyn Src<'de>) -> Read<T>,
) -> Read<T> {
    read_de(&mut serde_json::Deserializer::from_str(text), read).map_err(Stop::with)
}

/// A reader for `deserialize_seed`: the value handed to the decoders' function.
struct SrcSeed<'f, 'de>(&'f mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>);

impl<'de> DeserializeSeed<'de> for SrcSeed<'_, 'de> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        read_de(d, |src| (self.0)(src))
    }
}

/// The one visitor: forwards every JSON shape to a [`Sink`].
struct DynVisit<'a, 'de>(&'a mut dyn Sink<'de>);

impl<'de> Visitor<'de> for DynVisit<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.0.bool(v);
        Ok(())
    }
    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.0.num(Num::I(v));
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.0.num(Num::U(v));
        Ok(())
    }
    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.0.f64(v);
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.0.str(v);
        Ok(())
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        self.0.borrowed_str(v);
        Ok(())
    }
    fn visit_string<E>(self, v: String) -> Result<(), E> {
        self.0.string(v);
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.null();
        Ok(())
    }
    fn visit_none<E>(self) -> Result<(), E> {
        self.0.null();
        Ok(())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        let mut seq = DeSeq { a: seq, err: None };
        let r = self.0.seq(&mut seq);
        r.map_err(|stop| stop.into_error(&mut seq.err))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        let mut map = DeMap { a: map, err: None };
        let r = self.0.map(&mut map);
        r.map_err(|stop| stop.into_error(&mut map.err))
    }
}

/// `deserialize_option`'s visitor: `null`, or the value handed to the decoders' function.
struct OptionV<'f, 'de>(&'f mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>);

impl<'de> Visitor<'de> for OptionV<'_, 'de> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_none<E>(self) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_unit<E>(self) -> Result<bool, E> {
        Ok(true)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        read_de(d, |src| (self.0)(src)).map(|()| false)
    }
}

/// A serde `SeqAccess` as a [`Seq`].
struct DeSeq<'de, A: SeqAccess<'de>> {
    a: A,
    err: Option<A::Error>,
}

impl<'de, A: SeqAccess<'de>> Seq<'de> for DeSeq<'de, A> {
    fn next(&mut self, item: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<bool> {
        match self.a.next_element_seed(SrcSeed(item)) {
            Ok(v) => Ok(v.is_some()),
            Err(e) => {
                self.err = Some(e);
                Err(Stop::parked())
            }
        }
    }
}

/// A serde `MapAccess` as a [`Map`].
struct DeMap<'de, A: MapAccess<'de>> {
    a: A,
    err: Option<A::Error>,
}

impl<'de, A: MapAccess<'de>> Map<'de> for DeMap<'de, A> {
    fn next_key(&mut self, key: &mut dyn FnMut(Key<'_, 'de>)) -> Read<bool> {
        match self.a.next_key_seed(KeyV(key)) {
            Ok(v) => Ok(v.is_some()),
            Err(e) => {
                self.err = Some(e);
                Err(Stop::parked())
            }
        }
    }

    fn next_value(&mut self, value: &mut dyn FnMut(&mut dyn Src<'de>) -> Read<()>) -> Read<()> {
        self.a.next_value_seed(SrcSeed(value)).map_err(|e| {
            self.err = Some(e);
            Stop::parked()
        })
    }
}

/// A key handed to the decoders' function as the reader has it.
struct KeyV<'f, 'de>(&'f mut dyn FnMut(Key<'_, 'de>));

impl<'de> DeserializeSeed<'de> for KeyV<'_, 'de> {
    type Value = ();
    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyV<'_, 'de> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<(), E> {
        (self.0)(Key::Lent(v));
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        (self.0)(Key::Brief(v));
        Ok(())
    }
    fn visit_string<E>(self, v: String) -> Result<(), E> {
        (self.0)(Key::Owned(v));
        Ok(())
    }
}

/// What a schema does with each JSON shape, consumed by the one it meets: by default it
/// refuses it. Each is a [`Sink`] through [`accept`].
pub(crate) trait Accept<'de>: Sized {
    type Out;
    fn cx(&mut self) -> &mut Cx;
    fn expect(&self) -> Expect;
    fn reject(mut self, received: &'static str) -> Option<Self::Out> {
        let e = self.expect();
        self.cx().mismatch(e, received);
        None
    }
    #[inline]
    fn str(self, _v: &str) -> Option<Self::Out> {
        self.reject("string")
    }
    #[inline]
    fn string(self, v: String) -> Option<Self::Out> {
        self.str(&v)
    }
    /// A string borrowed from the input.
    #[inline]
    fn borrowed_str(self, v: &'de str) -> Option<Self::Out> {
        self.str(v)
    }
    #[inline]
    fn bool(self, _v: bool) -> Option<Self::Out> {
        self.reject("boolean")
    }
    #[inline]
    fn num(self, _n: Num) -> Option<Self::Out> {
        self.reject("number")
    }
    #[inline]
    fn null(self) -> Option<Self::Out> {
        self.reject("null")
    }
    fn seq(self, seq: &mut dyn Seq<'de>) -> Read<Option<Self::Out>> {
        skip_seq(seq)?;
        Ok(self.reject("array"))
    }
    fn map(self, map: &mut dyn Map<'de>) -> Read<Option<Self::Out>> {
        skip_map(map)?;
        Ok(self.reject("object"))
    }
}

/// An [`Accept`] as a [`Sink`]: the shape met consumes it, its value kept.
struct Accepting<A, O> {
    a: Option<A>,
    out: Option<O>,
}

impl<A, O> Accepting<A, O> {
    #[inline]
    fn take(&mut self) -> A {
        self.a.take().expect("a reader hands a sink one value")
    }
}

impl<'de, A: Accept<'de>> Sink<'de> for Accepting<A, A::Out> {
    fn str(&mut self, v: &str) {
        self.out = self.take().str(v);
    }
    fn string(&mut self, v: String) {
        self.out = self.take().string(v);
    }
    fn borrowed_str(&mut self, v: &'de str) {
        self.out = self.take().borrowed_str(v);
    }
    fn bool(&mut self, v: bool) {
        self.out = self.take().bool(v);
    }
    fn num(&mut self, n: Num) {
        self.out = self.take().num(n);
    }
    fn f64(&mut self, v: f64) {
        // A number JavaScript reads as Infinity arrives as a marker (see `js`).
        let mut a = self.take();
        self.out = match super::js::infinity(a.cx().marks(), v) {
            Some(received) => a.reject(received),
            None => a.num(Num::F(v)),
        };
    }
    fn null(&mut self) {
        self.out = self.take().null();
    }
    fn seq(&mut self, seq: &mut dyn Seq<'de>) -> Read<()> {
        self.out = self.take().seq(seq)?;
        Ok(())
    }
    fn map(&mut self, map: &mut dyn Map<'de>) -> Read<()> {
        self.out = self.take().map(map)?;
        Ok(())
    }
}

/// Reads one value from `src` with `a`: its value, `None` when it is invalid.
#[inline]
pub(crate) fn accept<'de, A: Accept<'de>>(src: &mut dyn Src<'de>, a: A) -> Read<Option<A::Out>> {
    let mut sink = Accepting {
        a: Some(a),
        out: None,
    };
    src.any(&mut sink)?;
    Ok(sink.out)
}
