//! Fingerprints: a name-free canonical form of what a type accepts on the wire.
//!
//! Two types with the same fingerprint accept the same JSON. Names of named types, docs,
//! locations, field order and the order of enum values and tagged variants do not count; aliases
//! are transparent. The differ uses it for two things: finding a renamed field (same type) and
//! the fail-closed net (a root whose fingerprint changed with no finding is `unmodelled-change`).
//! Bounds the type implies and the spelling of a default do not count either ([`kinds`]).

use super::kinds;
use crate::model::{DefKey, def_key};
use crate::model::{
    EnumLit, Limits, Literal, Model, Ty, TyKind, TypeDef, TypeDefKind, UnionTag, Width,
};
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::fmt::{Debug, Write as _};
use std::hash::{Hash, Hasher};

/// Computes fingerprints over one model (and its bases), remembering named types.
#[derive(Default)]
pub struct Printer {
    memo: HashMap<DefKey, u64>,
    stack: Vec<DefKey>,
}

impl Printer {
    pub fn new() -> Printer {
        Printer::default()
    }

    /// The fingerprint of `ty`, written in `m`.
    pub fn ty(&mut self, m: &Model, ty: &Ty) -> String {
        self.ty_inner(m, ty).0
    }

    /// The fingerprint and the lowest stack index a back reference in it points at.
    fn ty_inner(&mut self, m: &Model, ty: &Ty) -> (String, usize) {
        match &ty.kind {
            TyKind::String(l, f) => {
                let format = f.map(|f| format!("/{}", f.name())).unwrap_or_default();
                (
                    format!("s{format}{}", limits(&kinds::lengths(l))),
                    usize::MAX,
                )
            }
            TyKind::Boolean => ("b".into(), usize::MAX),
            TyKind::Int(l, w) => {
                let width = match w {
                    Width::Safe => "",
                    Width::I64 => "/64",
                    Width::U64 => "/u64",
                };
                (format!("i{width}{}", limits(&kinds::ints(l))), usize::MAX)
            }
            TyKind::Number(l) => (format!("n{}", limits(l)), usize::MAX),
            TyKind::Unknown => ("u".into(), usize::MAX),
            TyKind::Literal(l) => (format!("l:{}", literal(l)), usize::MAX),
            TyKind::Array(t, l) => {
                let (s, low) = self.ty_inner(m, t);
                (format!("[{s}]{}", limits(&kinds::lengths(l))), low)
            }
            TyKind::Map(t) => {
                let (s, low) = self.ty_inner(m, t);
                (format!("map<{s}>"), low)
            }
            TyKind::Nullable(t) => {
                let (s, low) = self.ty_inner(m, t);
                // Null admitted twice (around an alias of `T | null`), or by `unknown`, is
                // admitted once.
                if s == "u" || s.starts_with("null|") {
                    return (s, low);
                }
                (format!("null|{s}"), low)
            }
            TyKind::Ref(r) => match m.locate(r) {
                Some((dm, def)) => self.def(dm, def),
                None => (format!("unresolved:{}", r.name), usize::MAX),
            },
        }
    }

    fn def(&mut self, m: &Model, def: &TypeDef) -> (String, usize) {
        let key = def_key(m, &def.name);
        if let Some(i) = self.stack.iter().position(|k| *k == key) {
            return (format!("@{}", self.stack.len() - i), i);
        }
        if let Some(h) = self.memo.get(&key) {
            return (format!("#{h:x}"), usize::MAX);
        }
        let me = self.stack.len();
        self.stack.push(key.clone());
        let mut low = usize::MAX;
        let mut text = String::new();
        match &def.kind {
            TypeDefKind::Alias(t) => {
                let (s, l) = self.ty_inner(m, t);
                low = low.min(l);
                text.push_str(&s);
            }
            TypeDefKind::Struct(s) => {
                let mut fields: Vec<String> = Vec::new();
                for f in &s.fields {
                    let (t, l) = self.ty_inner(m, &f.ty);
                    low = low.min(l);
                    let opt = if f.optional { "?" } else { "" };
                    let default = f
                        .default
                        .as_ref()
                        .map(|d| format!("={}", kinds::value(d)))
                        .unwrap_or_default();
                    fields.push(format!("{:?}{opt}{default}:{t}", f.name));
                }
                fields.sort();
                if let Some(rest) = &s.rest {
                    let (t, l) = self.ty_inner(m, &rest.ty);
                    low = low.min(l);
                    fields.push(format!("..:{t}"));
                }
                let _ = write!(text, "{{{}}}", fields.join(","));
            }
            TypeDefKind::Enum(e) => {
                // What travels: the strings, or the integers (an integer value's name does
                // not travel).
                let mut values: Vec<String> = e
                    .values
                    .iter()
                    .map(|v| match &v.value {
                        EnumLit::Str(s) => format!("{s:?}"),
                        EnumLit::Int { value, .. } => value.to_string(),
                    })
                    .collect();
                values.sort();
                let _ = write!(
                    text,
                    "enum{}{}({})",
                    if e.is_int() { "-int" } else { "" },
                    if e.open { "+open" } else { "" },
                    values.join(",")
                );
            }
            TypeDefKind::Union(u) => {
                let mut vs: Vec<String> = Vec::new();
                for v in &u.variants {
                    let (t, l) = self.ty_inner(m, &v.ty);
                    low = low.min(l);
                    vs.push(format!("{:?}=>{t}", v.tag));
                }
                match &u.tag {
                    UnionTag::Tagged { field, .. } => {
                        vs.sort();
                        let _ = write!(text, "tag({field:?})({})", vs.join(","));
                    }
                    UnionTag::Untagged => {
                        let _ = write!(text, "untagged({})", vs.join(","));
                    }
                }
            }
        }
        self.stack.pop();
        if matches!(def.kind, TypeDefKind::Alias(_)) {
            // An alias is transparent: the type it names, written out.
            return (text, if low >= me { usize::MAX } else { low });
        }
        let mut h = DefaultHasher::new();
        text.hash(&mut h);
        let h = h.finish();
        if low >= me {
            // Nothing in it points above it: the form is the same wherever it is reached.
            self.memo.insert(key, h);
            return (format!("#{h:x}"), usize::MAX);
        }
        (format!("#{h:x}"), low)
    }
}

fn limits<T: Debug>(l: &Limits<T>) -> String {
    match (&l.min, &l.max) {
        (None, None) => String::new(),
        (a, b) => format!("({a:?}..{b:?})"),
    }
}

fn literal(l: &Literal) -> String {
    match l {
        Literal::String(s) => format!("{s:?}"),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Null => "null".to_owned(),
    }
}
