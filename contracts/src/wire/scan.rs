//! The fast reader: valid frames decoded straight from their bytes, with no serde machinery.
//!
//! Every generated type gets a `scan` next to its `decode` (the emitter writes it from the same
//! schema values): a loop over the object's keys that reads each field's value with the
//! [`Scanner`] below. It answers only for plain, valid input, and says `None` ("not sure") for
//! anything else: a key it does not know, a duplicate key, an issue of any kind, a number that
//! is not a plain safe integer, nesting deeper than [`MAX_SCAN_DEPTH`], text that is not JSON.
//! The caller then runs the full decoder (`decode`, through serde_json), which gives the
//! verdict and the messages. So a `None` is never an answer, and the full decoder stays the
//! authority on every input: what the scanner accepts, the decoder accepts with the same value
//! (differential tests check it on the corpus and on mutated frames).
//!
//! It is what makes a valid frame cheap: the keys are matched as bytes, strings are found 16
//! bytes at a time (SSE2) or a word at a time and borrowed when they hold no escape, and no
//! context, path or issue list is built.
//!
//! Its steps, and the schemas' and views' readers built on them, are inlined by force in an
//! optimised build (`#[cfg_attr(not(debug_assertions), inline(always))]`) and left to the
//! compiler in a debug one (`#[cfg_attr(debug_assertions, inline)]`), here and in the modules
//! beside it. Forced inlining is what the fast reader's speed is made of, and in a debug build
//! it is only a cost: it copied each step into every generated reader of the app that calls
//! them (docs/benchmarks-history.md, "the apps in use"). One step is out of line in every build: a
//! string's reader (`schema::scan_string`, `scan_str_ref`), the step every field of text
//! takes. Inlined, it was more than a quarter of what an app compiles for the readers it calls;
//! as a call, it costs a valid frame 6-11% more instructions (docs/benchmarks-history.md,
//! 2026-12-06, third stop).
//!
//! The bottom of the wire modules: it uses none of them. So [`MAX_SAFE`] is here, and the
//! readers of an array's items and a map's entries ([`scan_items`], [`scan_entries`]) that the
//! schemas and the views share. `Scanner::pick`, the look-ahead of an untagged union of
//! structs, is in `union`, beside the decoder's pick whose rule (`literals_hold`) it shares.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// How deep the scanner nests before it gives up: well inside serde_json's limit of 128, so
/// a value the scanner reads is never one the decoder refuses for its depth.
pub const MAX_SCAN_DEPTH: u32 = 64;

/// The largest integer JSON and JavaScript agree on: `2^53 - 1`.
pub const MAX_SAFE: i64 = 9_007_199_254_740_991;

/// A cursor over JSON text. Every method returns `None` when the input is not what it reads
/// (the caller gives up); whitespace before a token is skipped. A copy is a cursor at the same
/// place (`pick` looks ahead on one).
#[derive(Clone, Copy)]
pub struct Scanner<'a> {
    text: &'a str,
    at: usize,
    depth: u32,
}

/// The state of an object's key loop: whether the next key is the first, and the key of the
/// tagged union the object is a variant of (with whether it was read), which the variant's own
/// loop must not take for an unknown key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Keys {
    first: bool,
    tag: Option<&'static str>,
    tag_seen: bool,
}

/// A struct's key as the fast reader matches it first: the bytes `"name":` compared with the
/// input 16 at a time, no string scanned. A name that does not fit in 16 bytes that way, or
/// that JSON cannot hold as it is (a `"`, a `\` or a control character, which a writer
/// escapes), is never matched so (`len` 0): it is read as a string, as every key written
/// otherwise is.
#[derive(Clone, Copy, Debug)]
pub struct Key {
    /// `"name":`, then zeros.
    word: u128,
    /// The bytes of `word` that count.
    mask: u128,
    len: u8,
    name: &'static str,
}

impl Key {
    /// The key `name`, as a struct's field has it: `"name":`.
    pub const fn new(name: &'static str) -> Key {
        Key::written(name, true)
    }

    /// The string value `name`, as a tagged union's tag has it: `"name"`.
    pub const fn value(name: &'static str) -> Key {
        Key::written(name, false)
    }

    const fn written(name: &'static str, colon: bool) -> Key {
        let b = name.as_bytes();
        let len = b.len() + 2 + colon as usize;
        let mut plain = true;
        let mut i = 0;
        while i < b.len() {
            plain &= b[i] != b'"' && b[i] != b'\\' && b[i] >= 0x20;
            i += 1;
        }
        if len > 16 || !plain {
            return Key {
                word: 0,
                mask: 0,
                len: 0,
                name,
            };
        }
        let mut bytes = [0u8; 16];
        bytes[0] = b'"';
        let mut i = 0;
        while i < b.len() {
            bytes[i + 1] = b[i];
            i += 1;
        }
        bytes[b.len() + 1] = b'"';
        if colon {
            bytes[len - 1] = b':';
        }
        Key {
            word: u128::from_le_bytes(bytes),
            mask: u128::MAX >> (8 * (16 - len)),
            len: len as u8,
            name,
        }
    }

    /// Whether `b` holds this key, written `"name":`, at `at`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn at(&self, b: &[u8], at: usize) -> bool {
        if self.len == 0 {
            return false;
        }
        match b.get(at..at + 16) {
            Some(w) => {
                let mut word = [0u8; 16];
                word.copy_from_slice(w);
                (u128::from_le_bytes(word) ^ self.word) & self.mask == 0
            }
            None => self.at_end(b, at),
        }
    }

    /// [`Key::at`] near the end of the text, where 16 bytes cannot be read: byte by byte, out
    /// of line (inlined, the loop was unrolled for every key of every reader).
    #[cold]
    #[inline(never)]
    fn at_end(&self, b: &[u8], at: usize) -> bool {
        let n = self.len as usize;
        let word = self.word.to_le_bytes();
        b.len() >= at + n && (0..n).all(|i| b[at + i] == word[i])
    }
}

/// Whether `name` is `known` (a table entry's name): lengths first, then up to 16 bytes as
/// two words, inline (a `match` on strings calls `memcmp` for each candidate).
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn same_name(name: &str, known: &'static str) -> bool {
    let (a, b) = (name.as_bytes(), known.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    if (8..=16).contains(&n) {
        let word = |s: &[u8], i: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&s[i..i + 8]);
            u64::from_le_bytes(w)
        };
        return word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
    }
    a == b
}

/// The state of an array's item loop: whether the next item is the first.
#[derive(Clone, Copy, Debug)]
pub struct Items {
    first: bool,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The bytes of `w` (little-endian) that are `"`, `\` or a control character (below 0x20),
/// the bytes that end a run of plain string contents, as the high bit of each: zero when there
/// is none. Bytes above the first such byte may be flagged wrongly (a borrow runs up), the
/// first never is, so `trailing_zeros / 8` is its place.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn special_bytes(w: u64) -> u64 {
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let quote = zero(w ^ (ONES * b'"' as u64));
    let backslash = zero(w ^ (ONES * b'\\' as u64));
    // `w - 0x20` per byte borrows first at a byte below 0x20 (whose high bit is clear).
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    quote | backslash | control
}

/// The place of the first `"`, `\` or control character at or after `i`: 16 bytes at a time
/// where SSE2 is (every x86_64), then a word at a time, then a byte at a time.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
fn next_special(b: &[u8], mut i: usize) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        while i + 16 <= b.len() {
            // SAFETY: SSE2 is in every x86_64 target's baseline; `i + 16 <= b.len()`, so the
            // 16 bytes read are inside `b`, and the load takes any alignment.
            let m = unsafe {
                let v = _mm_loadu_si128(b.as_ptr().add(i).cast());
                let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
                let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
                // A byte is below 0x20 when the larger of it and 0x1f (unsigned) is 0x1f.
                let low = _mm_set1_epi8(0x1f);
                let control = _mm_cmpeq_epi8(_mm_max_epu8(v, low), low);
                _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
            };
            if m != 0 {
                return Some(i + m.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    while let Some(chunk) = b.get(i..i + 8) {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let m = special_bytes(u64::from_le_bytes(w));
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return Some(i);
        }
        i += 1;
    }
    None
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `text`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn new(text: &'a str) -> Self {
        Scanner {
            text,
            at: 0,
            depth: 0,
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    #[cold]
    fn skip_ws(&mut self) {
        let b = self.bytes();
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = b.get(self.at) {
            self.at += 1;
        }
    }

    /// The next byte after whitespace, not consumed.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn peek(&mut self) -> Option<u8> {
        // Every token starts above the space: no whitespace, one comparison.
        match self.bytes().get(self.at) {
            Some(&c) if c > b' ' => Some(c),
            _ => {
                self.skip_ws();
                self.bytes().get(self.at).copied()
            }
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn eat(&mut self, c: u8) -> Option<()> {
        if self.peek()? == c {
            self.at += 1;
            Some(())
        } else {
            None
        }
    }

    /// A string with no escape (a key): borrowed; `None` for anything else.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn plain_string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let b = self.bytes();
        let start = self.at;
        let i = next_special(b, start)?;
        if b[i] != b'"' {
            return None;
        }
        self.at = i + 1;
        // SAFETY: `start` follows a `"` and `i` is at one: both are ASCII bytes, so both are
        // character boundaries of `text`, and `start <= i <= text.len()`.
        Some(unsafe { self.text.get_unchecked(start..i) })
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_SCAN_DEPTH).then_some(())
    }

    /// Whether only whitespace is left: the whole text was one value.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn end(mut self) -> bool {
        self.skip_ws();
        self.at == self.text.len()
    }

    // ----- objects and arrays -----

    /// Opens an object (`{`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn object(&mut self) -> Option<Keys> {
        self.eat(b'{')?;
        self.enter()?;
        Some(Keys {
            first: true,
            tag: None,
            tag_seen: false,
        })
    }

    /// A key no field of the struct has: its value skipped (unknown keys are accepted and
    /// ignored). The tagged union's key seen a second time is left to the decoder, which has
    /// a rule for a duplicate tag.
    #[inline]
    pub fn skip_unknown(&mut self, key: &str, keys: &mut Keys) -> Option<()> {
        if keys.tag == Some(key) {
            if keys.tag_seen {
                return None;
            }
            keys.tag_seen = true;
        }
        self.skip_value()
    }

    /// The value of a tagged union's key `tag` in the object just opened, the scanner left
    /// where the variant's own key loop goes on: after the tag when it is the first key (as
    /// the writers put it), else at the object's start, the object read again with the tag
    /// now a key to skip once.
    #[inline]
    pub fn tag(&mut self, keys: &mut Keys, tag: &'static str) -> Option<Cow<'a, str>> {
        let (start, opened) = (self.at, *keys);
        keys.tag = Some(tag);
        if self.key(keys)?? == tag {
            keys.tag_seen = true;
            return self.string();
        }
        self.skip_value()?;
        loop {
            if self.key(keys)?? == tag {
                let value = self.string()?;
                self.at = start;
                *keys = Keys {
                    tag: Some(tag),
                    ..opened
                };
                return Some(value);
            }
            self.skip_value()?;
        }
    }

    /// The variant of a tagged union whose tag key is `tag` and whose tag values are
    /// `values`, in the object just opened: its index, the scanner left where the variant's
    /// key loop goes on (see [`Scanner::tag`]); `None` when not sure or for a value no variant
    /// has. A tag written first, `"type":"item"`, is matched as bytes, no string read.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn variant(&mut self, keys: &mut Keys, tag: &Key, values: &[Key]) -> Option<usize> {
        let b = self.bytes();
        if keys.first && tag.at(b, self.at) {
            let v = self.at + tag.len as usize;
            for (i, value) in values.iter().enumerate() {
                if value.at(b, v) {
                    self.at = v + value.len as usize;
                    *keys = Keys {
                        first: false,
                        tag: Some(tag.name),
                        tag_seen: true,
                    };
                    return Some(i);
                }
            }
        }
        let value = self.tag(keys, tag.name)?;
        values.iter().position(|k| k.name == value)
    }

    /// A string that is one of `values` (an enum's): `Ok(i)` for `values[i]`, else `Err` with
    /// the string read. A value written plainly is matched as bytes, no string read.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn one_of(&mut self, values: &[Key]) -> Option<Result<usize, Cow<'a, str>>> {
        self.peek()?;
        let b = self.bytes();
        for (i, value) in values.iter().enumerate() {
            if value.at(b, self.at) {
                self.at += value.len as usize;
                return Some(Ok(i));
            }
        }
        self.one_of_read(values)
    }

    /// [`Scanner::one_of`] for a value not matched as bytes: read as a string, out of line.
    #[inline(never)]
    fn one_of_read(&mut self, values: &[Key]) -> Option<Result<usize, Cow<'a, str>>> {
        let s = self.string()?;
        Some(match values.iter().position(|k| k.name == s) {
            Some(i) => Ok(i),
            None => Err(s),
        })
    }

    /// Whether another member of an object or an array follows (its `,` consumed);
    /// `Some(false)` at the closing byte `close`, the container left.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn more(&mut self, first: &mut bool, close: u8) -> Option<bool> {
        let c = self.peek()?;
        if c == close {
            // After a `,` the caller reads a member, so `[1,]` and `{"a":1,}` fail there.
            self.at += 1;
            self.depth = self.depth.checked_sub(1)?;
            return Some(false);
        }
        if std::mem::take(first) {
            return Some(true);
        }
        if c != b',' {
            return None;
        }
        self.at += 1;
        Some(true)
    }

    /// Whether another entry of an object follows (its `,` consumed); `Some(false)` at the
    /// closing `}`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn entry(&mut self, keys: &mut Keys) -> Option<bool> {
        self.more(&mut keys.first, b'}')
    }

    /// The next key of an object, its `:` consumed; `Some(None)` at the closing `}`. A key
    /// with an escape is not read (`None`): the decoder compares keys after unescaping.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn key(&mut self, keys: &mut Keys) -> Option<Option<&'a str>> {
        if !self.entry(keys)? {
            return Some(None);
        }
        let key = self.plain_string()?;
        self.eat(b':')?;
        Some(Some(key))
    }

    /// The next key of a struct whose keys are `fields`, its `:` consumed: `Ok(i)` for
    /// `fields[i]`, `Err(key)` for a key of no field; `Some(None)` at the closing `}`. The
    /// fields from `next` on (the field after the last one read: writers put them in order)
    /// are compared with the input as bytes first; any other key is read as a string. A key
    /// with an escape is not read (`None`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn field(
        &mut self,
        keys: &mut Keys,
        fields: &[Key],
        next: &mut usize,
    ) -> Option<Option<Result<usize, &'a str>>> {
        if !self.entry(keys)? {
            return Some(None);
        }
        if let Some(j) = self.field_at(fields, *next) {
            *next = j + 1;
            return Some(Some(Ok(j)));
        }
        self.field_named(fields, next)
    }

    /// The first of `fields[next..]` written at the cursor, which it passes.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn field_at(&mut self, fields: &[Key], next: usize) -> Option<usize> {
        let b = self.bytes();
        let mut j = next;
        while let Some(k) = fields.get(j) {
            if k.at(b, self.at) {
                self.at += k.len as usize;
                return Some(j);
            }
            j += 1;
        }
        None
    }

    /// [`Scanner::field`] for a key after whitespace, out of order or of no field: read as a
    /// string after the bytes are tried past the whitespace.
    #[inline(never)]
    fn field_named(
        &mut self,
        fields: &[Key],
        next: &mut usize,
    ) -> Option<Option<Result<usize, &'a str>>> {
        if self.bytes().get(self.at).is_some_and(|&c| c <= b' ') {
            self.skip_ws();
            if let Some(j) = self.field_at(fields, *next) {
                *next = j + 1;
                return Some(Some(Ok(j)));
            }
        }
        let key = self.plain_string()?;
        self.eat(b':')?;
        Some(Some(match fields.iter().position(|k| k.name == key) {
            Some(i) => {
                *next = i + 1;
                Ok(i)
            }
            None => Err(key),
        }))
    }

    /// The next key of an object whose keys are data (a `map<T>`): escapes decoded.
    #[inline]
    pub fn map_key(&mut self, keys: &mut Keys) -> Option<Option<Cow<'a, str>>> {
        if !self.entry(keys)? {
            return Some(None);
        }
        let key = self.string()?;
        self.eat(b':')?;
        Some(Some(key))
    }

    /// Opens an array (`[`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn array(&mut self) -> Option<Items> {
        self.eat(b'[')?;
        self.enter()?;
        Some(Items { first: true })
    }

    /// Whether another item follows (its `,` consumed); `Some(false)` at the closing `]`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn item(&mut self, items: &mut Items) -> Option<bool> {
        self.more(&mut items.first, b']')
    }

    // ----- scalars -----

    /// A string, its escapes decoded; borrowed from the input when it has none. A string that
    /// decodes to text starting with NUL is not read: the decoder gives such text a meaning
    /// of its own (see `js`).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let b = self.bytes();
        let start = self.at;
        let i = next_special(b, start)?;
        match b[i] {
            b'"' => {
                self.at = i + 1;
                // SAFETY: `start` follows a `"` and `i` is at one: both are ASCII bytes, so
                // both are character boundaries of `text`, and `start <= i <= text.len()`.
                Some(Cow::Borrowed(unsafe { self.text.get_unchecked(start..i) }))
            }
            b'\\' => {
                self.at = i;
                self.escaped(start).map(Cow::Owned)
            }
            _ => None,
        }
    }

    /// The rest of a string from its first escape (at the cursor); `start` is where its
    /// contents began.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, start: usize) -> Option<String> {
        let b = self.bytes();
        let mut out = String::with_capacity(self.at - start + 16);
        out.push_str(self.text.get(start..self.at)?);
        let mut i = self.at;
        let mut run = i;
        loop {
            i = next_special(b, i)?;
            match b[i] {
                b'"' => {
                    out.push_str(self.text.get(run..i)?);
                    self.at = i + 1;
                    return (!out.starts_with('\0')).then_some(out);
                }
                b'\\' => {
                    out.push_str(self.text.get(run..i)?);
                    let c = match *b.get(i + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let unit = hex4(b.get(i + 2..i + 6)?)?;
                            i += 6;
                            match unit {
                                // A surrogate pair; a lone surrogate is read by the decoder.
                                0xD800..=0xDBFF => {
                                    if b.get(i..i + 2)? != b"\\u" {
                                        return None;
                                    }
                                    let low = hex4(b.get(i + 2..i + 6)?)?;
                                    if !(0xDC00..=0xDFFF).contains(&low) {
                                        return None;
                                    }
                                    i += 6;
                                    let c = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                                    out.push(char::from_u32(c)?);
                                }
                                0xDC00..=0xDFFF => return None,
                                _ => out.push(char::from_u32(unit)?),
                            }
                            run = i;
                            continue;
                        }
                        _ => return None,
                    };
                    out.push(c);
                    i += 2;
                    run = i;
                }
                _ => return None,
            }
        }
    }

    /// `true` or `false`.
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn bool(&mut self) -> Option<bool> {
        match self.peek()? {
            b't' => self.word(b"true").map(|()| true),
            b'f' => self.word(b"false").map(|()| false),
            _ => None,
        }
    }

    /// Whether the next value is `null` (consumed when it is).
    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub fn null(&mut self) -> Option<bool> {
        if self.peek()? == b'n' {
            self.word(b"null").map(|()| true)
        } else {
            Some(false)
        }
    }

    #[cfg_attr(debug_assertions, inline)]
    #[cfg_attr(not(debug_assertions), inline(always))]
    fn word(&mut self, w: &[u8]) -> Option<()> {
        if self.bytes().get(self.at..self.at + w.len())? == w {
            self.at += w.len();
            Some(())
        } else {
            None
        }
    }

    /// An integer written plainly (`0`, `-12`, `1769813400000`) within `±(2^53 - 1)`. A
    /// fraction, an exponent, `-0` or a leading zero is not read (the byte after the digits is
    /// left for the caller, which expects `,`, `}` or `]` there).
    #[inline]
    pub fn int(&mut self) -> Option<i64> {
        let mut c = self.peek()?;
        let b = self.bytes();
        let neg = c == b'-';
        if neg {
            self.at += 1;
            c = *b.get(self.at)?;
        }
        if !c.is_ascii_digit() {
            return None;
        }
        if c == b'0' {
            self.at += 1;
            // `-0` is a float to serde_json.
            return (!neg).then_some(0);
        }
        let start = self.at;
        let mut v: u64 = 0;
        while let Some(&d) = b.get(self.at) {
            if !d.is_ascii_digit() {
                break;
            }
            v = v * 10 + (d - b'0') as u64;
            self.at += 1;
            // 16 digits cannot overflow, and 2^53 has 16.
            if self.at - start > 16 {
                return None;
            }
        }
        if v > MAX_SAFE as u64 {
            return None;
        }
        Some(if neg { -(v as i64) } else { v as i64 })
    }

    /// A number written plainly, with at most 15 digits in all and no exponent (`0.8123`,
    /// `-12.5`, `42`): its value is one exact division of two exactly held integers, so it is
    /// rounded once, as serde_json's decoder and JavaScript round it. Anything else is left to
    /// the decoder.
    #[inline]
    pub fn number(&mut self) -> Option<f64> {
        const POW10: [f64; 16] = [
            1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
        ];
        let mut c = self.peek()?;
        let b = self.bytes();
        let neg = c == b'-';
        if neg {
            self.at += 1;
            c = *b.get(self.at)?;
        }
        if !c.is_ascii_digit() {
            return None;
        }
        let mut m: u64 = 0;
        let mut digits = 0usize;
        let mut fraction = 0usize;
        if c == b'0' {
            self.at += 1;
        } else {
            while let Some(&d) = b.get(self.at).filter(|d| d.is_ascii_digit()) {
                m = m * 10 + (d - b'0') as u64;
                digits += 1;
                self.at += 1;
                if digits > 15 {
                    return None;
                }
            }
        }
        if b.get(self.at) == Some(&b'.') {
            self.at += 1;
            while let Some(&d) = b.get(self.at).filter(|d| d.is_ascii_digit()) {
                m = m * 10 + (d - b'0') as u64;
                digits += 1;
                fraction += 1;
                self.at += 1;
                if digits > 15 {
                    return None;
                }
            }
            if fraction == 0 {
                return None;
            }
        }
        if digits > 15 {
            return None;
        }
        let v = m as f64 / POW10[fraction];
        Some(if neg { -v } else { v })
    }

    /// A value of any kind, skipped and validated as far as its structure goes: its text,
    /// borrowed. Numbers are only checked for their characters (whoever keeps the text parses
    /// it again).
    pub fn raw(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let start = self.at;
        self.skip_value()?;
        self.text.get(start..self.at)
    }

    pub(super) fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'{' => {
                let mut keys = self.object()?;
                while self.map_key(&mut keys)?.is_some() {
                    self.skip_value()?;
                }
                Some(())
            }
            b'[' => {
                let mut items = self.array()?;
                while self.item(&mut items)? {
                    self.skip_value()?;
                }
                Some(())
            }
            b'"' => self.string().map(drop),
            b't' => self.word(b"true"),
            b'f' => self.word(b"false"),
            b'n' => self.word(b"null"),
            b'-' | b'0'..=b'9' => self.skip_number(),
            _ => None,
        }
    }

    /// A number's characters in JSON's grammar.
    fn skip_number(&mut self) -> Option<()> {
        self.at = json_number_end(self.bytes(), self.at)?;
        Some(())
    }
}

/// Where the number that starts at `at` ends, its characters in JSON's grammar
/// (`-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`); `None` when they are not.
pub(crate) fn json_number_end(b: &[u8], at: usize) -> Option<usize> {
    let digits = |at: &mut usize| {
        let s = *at;
        while b.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at > s
    };
    let mut i = at;
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    if b.get(i) == Some(&b'0') {
        i += 1;
    } else if !digits(&mut i) {
        return None;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return None;
        }
    }
    Some(i)
}

/// Whether `v` is within the inclusive bounds (`None`: unbounded): the fast reader's check of
/// every limit, whose decoder words the issue instead.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn within<T: PartialOrd>(v: T, min: Option<T>, max: Option<T>) -> bool {
    min.is_none_or(|m| v >= m) && max.is_none_or(|m| v <= m)
}

fn hex4(h: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in h {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// An array's items read by `item`, its length within `min..=max`: the fast reader of every
/// array, owned or viewed.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn scan_items<'de, T>(
    r: &mut Scanner<'de>,
    min: Option<u64>,
    max: Option<u64>,
    mut item: impl FnMut(&mut Scanner<'de>) -> Option<T>,
) -> Option<Vec<T>> {
    let mut items = r.array()?;
    let mut out = Vec::new();
    while r.item(&mut items)? {
        out.push(item(r)?);
    }
    within(out.len() as u64, min, max).then_some(out)
}

/// A map's entries, each value read by `value`: the fast reader of every map, owned or
/// viewed. A duplicate key, or `__proto__` (which JavaScript objects treat apart), is left to
/// the decoder.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub(crate) fn scan_entries<'de, K: From<Cow<'de, str>> + Ord, T>(
    r: &mut Scanner<'de>,
    mut value: impl FnMut(&mut Scanner<'de>) -> Option<T>,
) -> Option<BTreeMap<K, T>> {
    let mut keys = r.object()?;
    let mut out = BTreeMap::new();
    while let Some(key) = r.map_key(&mut keys)? {
        if key == "__proto__" {
            return None;
        }
        let v = value(r)?;
        if out.insert(K::from(key), v).is_some() {
            return None;
        }
    }
    Some(out)
}

/// Reads a whole text with `scan`: the value when it answered and nothing but whitespace
/// follows it.
#[cfg_attr(debug_assertions, inline)]
#[cfg_attr(not(debug_assertions), inline(always))]
pub fn scan_str<'a, T>(
    json: &'a str,
    scan: impl FnOnce(&mut Scanner<'a>) -> Option<T>,
) -> Option<T> {
    #[cfg(test)]
    if OFF.get() {
        return None;
    }
    let mut r = Scanner::new(json);
    // The value is handed back in the slot it was read into (no move through a new one).
    let v = scan(&mut r);
    if v.is_some() && !r.end() {
        return None;
    }
    v
}

#[cfg(test)]
thread_local! {
    static OFF: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` with the fast reader turned off on this thread: every parse is the decoder's, the
/// authority the differential tests compare the fast reader with.
#[cfg(test)]
pub(crate) fn without_scanner<R>(f: impl FnOnce() -> R) -> R {
    /// Puts the switch back as it was, also when `f` panics.
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            OFF.set(self.0);
        }
    }
    let _restore = Restore(OFF.replace(true));
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(json: &str) -> Option<Cow<'_, str>> {
        scan_str(json, |r| r.string())
    }

    /// Every key of `{"id":..,"idx":..,"a_key_too_long_for_a_word":..}` read by `field`,
    /// with the fields in `fields` order: `Ok(i)` or the key of no field.
    fn fields_read(json: &str, fields: &[Key]) -> Option<Vec<Result<usize, String>>> {
        scan_str(json, |r| {
            let mut keys = r.object()?;
            let mut next = 0;
            let mut out = Vec::new();
            while let Some(k) = r.field(&mut keys, fields, &mut next)? {
                out.push(k.map_err(str::to_owned));
                r.skip_value()?;
            }
            Some(out)
        })
    }

    #[test]
    fn keys_are_matched_as_bytes_in_any_order_and_near_the_end() {
        const FIELDS: &[Key] = &[
            Key::new("id"),
            Key::new("idx"),
            Key::new("a_key_too_long_for_a_word"),
        ];
        let read = |json: &str| fields_read(json, FIELDS);
        let ok = |i: usize| Ok::<usize, String>(i);
        // In order, out of order, a field absent, an unknown key, a long key (read as a
        // string), whitespace, and the last key within 16 bytes of the end.
        assert_eq!(
            read(r#"{"id":1,"idx":2,"a_key_too_long_for_a_word":3}"#),
            Some(vec![ok(0), ok(1), ok(2)])
        );
        assert_eq!(read(r#"{"idx":2,"id":1}"#), Some(vec![ok(1), ok(0)]));
        assert_eq!(
            read(r#"{"id":1,"zz":0,"a_key_too_long_for_a_word":3}"#),
            Some(vec![ok(0), Err("zz".to_owned()), ok(2)])
        );
        assert_eq!(
            read("{ \"id\" : 1 ,\n \"idx\":2}"),
            Some(vec![ok(0), ok(1)])
        );
        assert_eq!(read(r#"{"i":1}"#), Some(vec![Err("i".to_owned())]));
        assert_eq!(read(r#"{"id":1,"idx":2}"#), Some(vec![ok(0), ok(1)]));
        // A key whose bytes start like a field's is not that field.
        assert_eq!(
            read(r#"{"idy":1,"id\"":2}"#),
            None,
            "an escape in a key is left to the decoder"
        );
        assert_eq!(read(r#"{"idy":1}"#), Some(vec![Err("idy".to_owned())]));
        // Cut short anywhere: not read.
        let full = r#"{"id":1,"idx":2}"#;
        for end in 0..full.len() {
            assert_eq!(read(&full[..end]), None, "{}", &full[..end]);
        }
    }

    #[test]
    fn tags_and_enum_values_are_matched_as_bytes() {
        const TAG: Key = Key::new("type");
        const VALUES: &[Key] = &[Key::value("item"), Key::value("items")];
        let variant = |json: &str| {
            let mut r = Scanner::new(json);
            let mut keys = r.object()?;
            let v = r.variant(&mut keys, &TAG, VALUES)?;
            Some((v, keys.tag_seen))
        };
        assert_eq!(variant(r#"{"type":"item","x":1}"#), Some((0, true)));
        assert_eq!(variant(r#"{"type":"items"}"#), Some((1, true)));
        assert_eq!(variant(r#"{"x":1,"type":"items"}"#), Some((1, false)));
        assert_eq!(variant(r#"{ "type" : "item" }"#), Some((0, true)));
        assert_eq!(variant(r#"{"type":"itemz"}"#), None);
        assert_eq!(variant(r#"{"type":"ite\u006d"}"#), Some((0, true)));
        fn one_of(json: &str) -> Option<Result<usize, Cow<'_, str>>> {
            scan_str(json, |r| r.one_of(VALUES))
        }
        assert_eq!(one_of(r#""item""#), Some(Ok(0)));
        assert_eq!(one_of(r#" "items""#), Some(Ok(1)));
        assert_eq!(one_of(r#""it\u0065m""#), Some(Ok(0)));
        assert_eq!(one_of(r#""other""#), Some(Err(Cow::Borrowed("other"))));
        assert_eq!(one_of(r#""item"#), None);
    }

    #[test]
    fn a_key_matches_its_own_bytes_only() {
        let at = |k: Key, text: &str| k.at(text.as_bytes(), 0);
        // 13 characters make `"name":` 16 bytes, the most a word holds.
        let thirteen = "abcdefghijklm";
        assert!(at(Key::new(thirteen), r#""abcdefghijklm":1"#));
        assert!(
            at(Key::new(thirteen), r#""abcdefghijklm":"#),
            "at the end of the text"
        );
        assert!(!at(Key::new(thirteen), r#""abcdefghijklx":1"#));
        assert!(!at(Key::new(thirteen), r#""abcdefghijklm" :1"#));
        // 14 characters do not fit: never matched as bytes, read as a string instead.
        assert!(!at(Key::new("abcdefghijklmn"), r#""abcdefghijklmn":1"#));
        assert!(at(
            Key::new("id"),
            r#""id":1,"more":"text past sixteen bytes""#
        ));
        assert!(!at(Key::new("id"), r#""idx":1"#));
        assert!(!at(Key::new("id"), r#""i"#));
        assert!(at(Key::value("item"), r#""item","#));
        assert!(!at(Key::value("item"), r#""items""#));
        // A name JSON cannot hold as it is never matches its raw bytes, which mean something
        // else in JSON (or are not JSON at all).
        for name in ["a\\b", "q\"", "x\n", "t\\u"] {
            let raw = format!("\"{name}\":1");
            assert!(!at(Key::new(name.to_owned().leak()), &raw), "{name:?}");
            let raw = format!("\"{name}\"");
            assert!(!at(Key::value(name.to_owned().leak()), &raw), "{name:?}");
        }
    }

    #[test]
    fn a_tag_matched_as_bytes_leaves_the_state_a_tag_read_as_a_string_does() {
        const TAG: Key = Key::new("type");
        const VALUES: &[Key] = &[Key::value("item")];
        fn read(json: &str) -> Option<(usize, Cow<'_, str>, usize)> {
            let mut r = Scanner::new(json);
            let mut keys = r.object()?;
            let fast = r.variant(&mut keys, &TAG, VALUES)?;
            let mut s = Scanner::new(json);
            let mut skeys = s.object()?;
            let slow = s.tag(&mut skeys, "type")?;
            assert_eq!((keys, r.at), (skeys, s.at), "{json}");
            Some((fast, slow, r.at))
        }
        assert_eq!(
            read(r#"{"type":"item","x":1}"#),
            Some((0, Cow::Borrowed("item"), 14))
        );
        // After whitespace the tag is read as a string both ways: the fallback's state.
        assert_eq!(
            read(r#"{ "type":"item"}"#),
            Some((0, Cow::Borrowed("item"), 15))
        );
    }

    #[test]
    fn names_compare_as_strings_do() {
        // Names of one length differing at every place, each length from 1 to 20 (a word, two
        // overlapping words, past two words).
        for len in 1..=20 {
            let base = "n".repeat(len);
            for i in 0..len {
                let mut other = base.clone().into_bytes();
                other[i] = b'm';
                let other = String::from_utf8(other).unwrap();
                assert!(!same_name(&other, base.clone().leak()), "{other} {base}");
                assert!(same_name(&base, base.clone().leak()), "{base}");
            }
        }
        let names = [
            "",
            "a",
            "chat.ev",
            "chat.eve",
            "chat.event",
            "chat.events.long",
            &*"x".repeat(17).leak(),
        ];
        for a in names {
            for b in names {
                assert_eq!(same_name(a, b), a == b, "{a} {b}");
            }
        }
        assert!(!same_name("chat.evenT", "chat.event"));
        assert!(!same_name("Chat.event", "chat.event"));
    }

    #[test]
    fn strings_agree_with_serde_json() {
        let cases = [
            r#""""#,
            r#""plain""#,
            r#""a long plain string past a word or two""#,
            r#""quote \" and backslash \\ and slash \/""#,
            r#""\b\f\n\r\t""#,
            r#""\u00e9 and \u20ac""#,
            r#""😀 \ud83d\ude00""#,
            r#""é — ✨""#,
            r#""12345678\"12345678""#,
        ];
        for c in cases {
            let want: String = serde_json::from_str(c).unwrap();
            assert_eq!(string(c).as_deref(), Some(want.as_str()), "{c}");
        }
    }

    #[test]
    fn strings_it_leaves_to_the_decoder() {
        for c in [
            r#""\ud800""#,
            r#""\udc00""#,
            r#""\ud800\u0041""#,
            r#""\u0000x""#,
            r#""\x""#,
            r#""\u12""#,
            "\"tab\tinside\"",
            "\"a long string with a raw newline\n inside it\"",
            r#""unterminated"#,
            r#""unterminated and longer than one word"#,
        ] {
            assert_eq!(string(c), None, "{c:?}");
        }
    }

    #[test]
    fn the_word_scan_finds_the_first_special_byte() {
        let specials = [b'"', b'\\', 0x00, 0x01, 0x1f, b'\n'];
        let plains = [
            b'a', b' ', b'!', b'#', b'[', b']', b'~', 0x7f, 0x80, 0xe2, 0xff,
        ];
        // Past two 16-byte blocks, so each of the block, word and byte loops finds one, from
        // starts that put the blocks at other places.
        for len in 0..40 {
            for start in 0..3.min(len + 1) {
                for at in start..len {
                    for &special in &specials {
                        for &plain in &plains {
                            // Specials after the first one too, to catch a borrow that runs
                            // down, and before the start, which must not count.
                            let mut s = vec![plain; len];
                            s[..start].fill(b'"');
                            s[at] = special;
                            for later in s.iter_mut().skip(at + 1).step_by(3) {
                                *later = specials[(at + len) % specials.len()];
                            }
                            assert_eq!(next_special(&s, start), Some(at), "{start} {s:?}");
                        }
                    }
                }
                for &plain in &plains {
                    let mut s = vec![plain; len];
                    s[..start].fill(b'"');
                    assert_eq!(next_special(&s, start), None, "{len} {start} {plain}");
                }
            }
        }
    }

    #[test]
    fn ints_are_plain_and_safe() {
        let int = |s: &str| scan_str(s, |r| r.int());
        assert_eq!(int("0"), Some(0));
        assert_eq!(int(" -12 "), Some(-12));
        assert_eq!(int("9007199254740991"), Some(9_007_199_254_740_991));
        assert_eq!(int("-9007199254740991"), Some(-9_007_199_254_740_991));
        for s in [
            "9007199254740992",
            "12345678901234567",
            "-0",
            "01",
            "1.0",
            "1e2",
            "-",
            "+1",
            "",
        ] {
            assert_eq!(int(s), None, "{s}");
        }
    }

    #[test]
    fn numbers_agree_with_serde_json() {
        let number = |s: &str| scan_str(s, |r| r.number());
        for s in [
            "0",
            "-0",
            "0.8123",
            "-12.5",
            "1769813400000",
            "0.1",
            "0.30000000000000004",
            "123456789012345",
            "1.23456789012345",
            "0.000000000000001",
            "-0.0",
        ] {
            let want: f64 = serde_json::from_str(s).unwrap();
            match number(s) {
                Some(v) => assert_eq!(v.to_bits(), want.to_bits(), "{s}"),
                None => assert!(s.len() > 16, "{s} is plain"),
            }
        }
        for s in [
            "1e2",
            "1.",
            ".5",
            "01",
            "1234567890123456",
            "0.1234567890123456",
            "-",
            "+1",
            "123456789012345678901234567890",
        ] {
            assert_eq!(number(s), None, "{s}");
        }
    }

    #[test]
    fn raw_values_are_the_decoders_text() {
        for c in [
            r#"{"a":[1,-2.5e+3,true,false,null,"x\"y"],"b":{}}"#,
            "[]",
            "[ 1 , 2 ]",
            "0",
            "1e400",
            r#"["\u00e9\ud83d\ude00\n"]"#,
        ] {
            // What the fast reader reads as a raw value is handed over without serde_json
            // reading it again (`lend_scanned`), so serde_json must read it the same.
            let raw: &serde_json::value::RawValue = serde_json::from_str(c).unwrap();
            assert_eq!(scan_str(c, |r| r.raw()), Some(raw.get()), "{c}");
        }
        // A lone surrogate inside is left to the decoder too, though serde_json keeps it.
        for c in [
            "[1,]",
            "{,}",
            r#"{"a":1,}"#,
            "[1 2]",
            "01",
            "1.",
            "-",
            "tru",
            "{\"a\"}",
            r#"["\ud800"]"#,
            "\"a\u{1}b\"",
            r#""\x""#,
            r#""\u12G4""#,
            "1e",
            ".5",
            "[1]]",
            "{\"a\":1 \"b\":2}",
        ] {
            assert_eq!(scan_str(c, |r| r.raw()), None, "{c}");
        }
    }

    #[test]
    fn nesting_past_the_limit_is_left_to_the_decoder() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(scan_str(&deep(MAX_SCAN_DEPTH as usize), |r| r.raw()).is_some());
        assert!(scan_str(&deep(MAX_SCAN_DEPTH as usize + 1), |r| r.raw()).is_none());
    }
}
