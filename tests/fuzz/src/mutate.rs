//! The mutations: on the JSON tree (types changed, keys dropped, duplicated, reordered and
//! added, the tag moved after the payload, deep nesting, numbers at the edges of doubles and
//! safe integers, strings at length limits counted in code points and UTF-16 units, escapes
//! and lone surrogates, prototype names, subtrees spliced from other seeds) and on the bytes.

use crate::json::J;
use crate::rng::Rng;

/// What mutations draw from: the keys and strings of every seed.
pub struct Dict {
    pub keys: Vec<String>,
    pub strings: Vec<String>,
}

/// Keys JavaScript objects have on their prototype, or that are special to `JSON.parse`.
const PROTO: &[&str] = &[
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "valueOf",
    "hasOwnProperty",
    "length",
    "then",
];

/// Numbers at the edges: safe integers, doubles, rounding, signs, spellings.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "0.0",
    "1.0",
    "1e2",
    "1E2",
    "100",
    "100.0",
    "1e-7",
    "0.1",
    "1.5",
    "101",
    "99.99999999999999",
    "100.00000000000001",
    "100.000000000000001",
    "0.9999999999999999",
    "0.99999999999999999",
    "1.0000000000000002",
    "1.00000000000000011102230246251565",
    "9007199254740991",
    "9007199254740992",
    "9007199254740993",
    "-9007199254740991",
    "-9007199254740992",
    "9007199254740991.0",
    "9.007199254740991e15",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "-1.7976931348623158e308",
    "1e308",
    "1e309",
    "1e400",
    "-1e400",
    "2e308",
    "5e-324",
    "4.9e-324",
    "2.4e-324",
    "1e-400",
    "-5e-324",
    "2.2250738585072014e-308",
    "0e0",
    "00",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "-",
    "1e+",
    "0x10",
    "Infinity",
    "NaN",
];

/// Strings that were trouble somewhere: markers, escapes, surrogates, names.
const STRINGS: &[&str] = &[
    "",
    "\\u0000contracts:Infinity",
    "\\u0000contracts:-Infinity",
    "\\u0000",
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\\ud800\\ud800",
    "\\udc00\\ud800",
    "a\\\"b",
    "\\\\",
    "\\/",
    "\\b\\f\\n\\r\\t",
    "\\u0061",
    "\\u00e9",
    "é",
    "e\u{301}",
    "😀",
    "\u{7f}",
    "\\u007f",
    "\\u2028",
    "\\uFFFD",
    "\\uffff",
    "__proto__",
    "constructor",
    "toString",
    "Infinity",
    "-Infinity",
    "NaN",
    "null",
    "true",
    "1",
];

/// Units a string at a length limit is made of: one byte, two, a combining pair, an astral
/// character (one code point, two UTF-16 units), its escapes, a lone surrogate.
const UNITS: &[&str] = &[
    "a",
    "é",
    "e\u{301}",
    "😀",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\n",
];

/// Lengths at and around the schemas' limits.
const LENGTHS: &[usize] = &[
    0, 1, 2, 9, 10, 11, 127, 128, 129, 199, 200, 201, 255, 256, 257, 500, 501,
];

/// Sizes at and around the arrays' limits.
const SIZES: &[usize] = &[0, 1, 2, 3, 499, 500, 501, 1000];

/// One mutated input made from `text` (`other` is another seed, for splices).
pub fn mutate(rng: &mut Rng, dict: &Dict, text: &str, other: &str) -> Vec<u8> {
    let tree = if rng.one_in(6) { None } else { J::parse(text) };
    let Some(mut tree) = tree else {
        let mut bytes = text.as_bytes().to_vec();
        for _ in 0..1 + rng.below(3) {
            bytes_once(rng, &mut bytes);
        }
        return bytes;
    };
    // Read only when a splice needs it (one mutation in twelve).
    let mut other = Other::Text(other);
    for _ in 0..1 + rng.below(3) {
        value_once(rng, dict, &mut tree, &mut other);
    }
    let mut bytes = tree.text().into_bytes();
    if rng.one_in(12) {
        bytes_once(rng, &mut bytes);
    }
    bytes
}

/// The other seed, its tree read on first use.
enum Other<'a> {
    Text(&'a str),
    Tree(Option<J>),
}

impl Other<'_> {
    fn tree(&mut self) -> Option<&J> {
        if let Other::Text(t) = *self {
            *self = Other::Tree(J::parse(t));
        }
        match self {
            Other::Tree(t) => t.as_ref(),
            Other::Text(_) => None,
        }
    }
}

/// A random value of any type, small.
fn scalar(rng: &mut Rng, dict: &Dict) -> J {
    match rng.below(9) {
        0 => J::Null,
        1 => J::Bool(rng.one_in(2)),
        2 | 3 => J::Num((*rng.pick(NUMBERS)).to_owned()),
        4 => J::Str((*rng.pick(STRINGS)).to_owned()),
        5 if !dict.strings.is_empty() => J::Str(rng.pick(&dict.strings).clone()),
        6 => J::Arr(vec![]),
        7 => J::Obj(vec![]),
        _ => J::Obj(vec![(
            "length".to_owned(),
            match rng.below(3) {
                0 => J::Num("5".to_owned()),
                1 => J::Obj(vec![
                    ("toString".to_owned(), J::Num("1".to_owned())),
                    ("valueOf".to_owned(), J::Num("1".to_owned())),
                ]),
                _ => J::Obj(vec![]),
            },
        )]),
    }
}

/// A string of `n` units of one kind.
fn string_of(rng: &mut Rng, n: usize) -> J {
    let unit = rng.pick(UNITS);
    J::Str(unit.repeat(n))
}

fn key(rng: &mut Rng, dict: &Dict) -> String {
    match rng.below(3) {
        0 => (*rng.pick(PROTO)).to_owned(),
        _ if !dict.keys.is_empty() => rng.pick(&dict.keys).clone(),
        _ => "x".to_owned(),
    }
}

/// A random subtree of `t`.
fn subtree(rng: &mut Rng, t: &J) -> J {
    let mut copy = t.clone();
    let n = rng.below(copy.size());
    copy.nth_mut(n).cloned().unwrap_or(J::Null)
}

fn value_once(rng: &mut Rng, dict: &Dict, tree: &mut J, other: &mut Other<'_>) {
    let n = rng.below(tree.size());
    let Some(node) = tree.nth_mut(n) else {
        return;
    };
    match rng.below(12) {
        0 => *node = scalar(rng, dict),
        // The type changed: wrapped, stringified, or made a number.
        1 => {
            let old = std::mem::replace(node, J::Null);
            *node = match rng.below(4) {
                0 => J::Arr(vec![old]),
                1 => J::Obj(vec![(key(rng, dict), old)]),
                2 => J::string(&old.text()),
                _ => J::Num((*rng.pick(NUMBERS)).to_owned()),
            };
        }
        2 | 3 => object_once(rng, dict, node),
        // Deep nesting, around serde_json's limit of 128 and past it.
        4 => {
            let depth = *rng.pick(&[8usize, 60, 126, 127, 128, 129, 200, 600]);
            let mut v = std::mem::replace(node, J::Null);
            let objects = rng.one_in(2);
            for _ in 0..depth {
                v = if objects {
                    J::Obj(vec![("a".to_owned(), v)])
                } else {
                    J::Arr(vec![v])
                };
            }
            *node = v;
        }
        5 => {
            let n = *rng.pick(LENGTHS);
            *node = string_of(rng, n);
        }
        6 => {
            // An escape or a unit in an existing string.
            if let J::Str(s) = node {
                let unit = *rng.pick(STRINGS);
                let at = floor_boundary(s, rng.below(s.len() + 1));
                s.insert_str(at, unit);
            } else {
                *node = J::Str((*rng.pick(STRINGS)).to_owned());
            }
        }
        7 => *node = J::Num((*rng.pick(NUMBERS)).to_owned()),
        8 => {
            // An array at a size edge, made of its own items (or of a scalar).
            let size = *rng.pick(SIZES);
            let item = match node {
                J::Arr(items) if !items.is_empty() => items[rng.below(items.len())].clone(),
                _ => scalar(rng, dict),
            };
            *node = J::Arr(vec![item; size]);
        }
        9 => {
            if let Some(other) = other.tree() {
                *node = subtree(rng, other);
            }
        }
        10 => {
            if let J::Str(s) = node
                && !dict.strings.is_empty()
            {
                *s = rng.pick(&dict.strings).clone();
            } else if let J::Arr(items) = node
                && !items.is_empty()
            {
                let i = rng.below(items.len());
                items.remove(i);
            }
        }
        _ => object_once(rng, dict, tree),
    }
}

/// A mutation of an object's entries: dropped, duplicated, reordered, added; the tag moved
/// last (after the payload).
fn object_once(rng: &mut Rng, dict: &Dict, node: &mut J) {
    let J::Obj(entries) = node else {
        return;
    };
    if entries.is_empty() {
        entries.push((key(rng, dict), scalar(rng, dict)));
        return;
    }
    let i = rng.below(entries.len());
    match rng.below(7) {
        0 => {
            entries.remove(i);
        }
        1 => {
            let dup = entries[i].clone();
            let at = rng.below(entries.len() + 1);
            entries.insert(at, dup);
        }
        2 => {
            let (k, _) = entries[i].clone();
            let at = rng.below(entries.len() + 1);
            entries.insert(at, (k, scalar(rng, dict)));
        }
        3 => entries.reverse(),
        4 => {
            // The first key (a frame's tag, as writers put it) moved last.
            let first = entries.remove(0);
            entries.push(first);
        }
        5 => {
            let at = rng.below(entries.len() + 1);
            entries.insert(at, (key(rng, dict), scalar(rng, dict)));
        }
        _ => {
            let j = rng.below(entries.len());
            entries.swap(i, j);
        }
    }
}

fn floor_boundary(s: &str, mut at: usize) -> usize {
    while at > 0 && !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// Bytes worth inserting: JSON's punctuation, and bytes that are not UTF-8.
const BYTES: &[u8] = b"\x00\"\\{}[],:0-e.\xff\xc3\x80\xed\xa0 \t\n";

fn bytes_once(rng: &mut Rng, b: &mut Vec<u8>) {
    let len = b.len();
    match rng.below(7) {
        0 if len > 0 => {
            let i = rng.below(len);
            b[i] ^= 1 << rng.below(8);
        }
        1 => {
            let i = rng.below(len + 1);
            b.insert(i, *rng.pick(BYTES));
        }
        2 if len > 0 => {
            let i = rng.below(len);
            let n = 1 + rng.below((len - i).min(16));
            b.drain(i..i + n);
        }
        3 if len > 0 => {
            let i = rng.below(len);
            let n = 1 + rng.below((len - i).min(32));
            let chunk: Vec<u8> = b[i..i + n].to_vec();
            let at = rng.below(b.len() + 1);
            b.splice(at..at, chunk);
        }
        4 if len > 0 => b.truncate(rng.below(len)),
        5 if len > 1 => {
            let (i, j) = (rng.below(len), rng.below(len));
            b.swap(i, j);
        }
        _ => {
            let i = rng.below(len + 1);
            b.insert(i, rng.below(256) as u8);
        }
    }
}
