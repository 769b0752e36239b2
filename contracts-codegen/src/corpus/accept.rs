//! corpus::accept: whether a JSON value is a valid value of a type, read off the model. The
//! walk derives a refusal by breaking one place of a valid value; where the rest of the schema
//! still accepts the broken value (another variant of an untagged union reads it, an open
//! object keeps a key another variant needs), the case is recorded as accepted instead, so
//! every derived verdict is the schema's. A `#[table]` field is read as the `unknown` it is
//! declared as (a bare value's verdict; its payload is the table's).

use crate::model::{EnumLit, Format, Literal, Model, Ty, TyKind, TypeDefKind, UnionTag, Width};
use serde_json::Value;

/// Deeper than any value the walk derives: a recursive type is not followed further.
const MAX_DEPTH: usize = 64;

/// The largest integer `int` holds: 2^53 - 1.
const MAX_SAFE: f64 = 9_007_199_254_740_991.0;

/// Whether `v` is a valid value of `ty`, a type expression written in `model`.
pub(super) fn accepts(model: &Model, ty: &Ty, v: &Value) -> bool {
    of(model, ty, v, 0)
}

fn of(model: &Model, ty: &Ty, v: &Value, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    match &ty.kind {
        TyKind::Unknown => true,
        TyKind::Boolean => v.is_boolean(),
        TyKind::Literal(l) => literal(l, v),
        TyKind::Nullable(inner) => v.is_null() || of(model, inner, v, depth + 1),
        TyKind::String(l, format) => v.as_str().is_some_and(|s| {
            let n = s.chars().count() as u64;
            l.min.is_none_or(|m| n >= m)
                && l.max.is_none_or(|m| n <= m)
                && format.is_none_or(|f| formatted(f, s))
        }),
        TyKind::Number(l) => v.as_f64().is_some_and(|x| {
            x.is_finite()
                && l.min.is_none_or(|m| x >= m as f64)
                && l.max.is_none_or(|m| x <= m as f64)
        }),
        TyKind::Int(l, width) => v.as_f64().is_some_and(|x| {
            let in_width = match width {
                Width::Safe => x.abs() <= MAX_SAFE,
                Width::I64 => {
                    (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x)
                }
                Width::U64 => (0.0..18_446_744_073_709_551_616.0).contains(&x),
            };
            x.fract() == 0.0
                && in_width
                && l.min.is_none_or(|m| x >= m as f64)
                && l.max.is_none_or(|m| x <= m as f64)
        }),
        TyKind::Array(inner, l) => v.as_array().is_some_and(|a| {
            let n = a.len() as u64;
            l.min.is_none_or(|m| n >= m)
                && l.max.is_none_or(|m| n <= m)
                && a.iter().all(|x| of(model, inner, x, depth + 1))
        }),
        TyKind::Map(inner) => v
            .as_object()
            .is_some_and(|o| o.values().all(|x| of(model, inner, x, depth + 1))),
        TyKind::Ref(r) => {
            let Some((dm, def)) = model.locate(r) else {
                return true;
            };
            match &def.kind {
                TypeDefKind::Alias(t) => of(dm, t, v, depth + 1),
                TypeDefKind::Enum(e) => {
                    if e.is_int() {
                        let whole = v
                            .as_f64()
                            .is_some_and(|x| x.fract() == 0.0 && x.abs() <= MAX_SAFE);
                        whole && (e.open || e.ints().any(|i| v.as_f64() == Some(i as f64)))
                    } else {
                        v.as_str().is_some_and(|s| {
                            e.open
                                || e.values
                                    .iter()
                                    .any(|x| matches!(&x.value, EnumLit::Str(w) if w == s))
                        })
                    }
                }
                TypeDefKind::Struct(s) => object(dm, s, v, None, depth),
                TypeDefKind::Union(u) => match &u.tag {
                    UnionTag::Untagged => u.variants.iter().any(|x| of(dm, &x.ty, v, depth + 1)),
                    UnionTag::Tagged { field, .. } => {
                        let Some(tag) = v.get(field).and_then(Value::as_str) else {
                            return false;
                        };
                        u.variants
                            .iter()
                            .find(|x| x.tag.as_deref() == Some(tag))
                            .is_some_and(|x| variant(dm, &x.ty, v, field, depth + 1))
                    }
                },
            }
        }
    }
}

/// A tagged union's variant: its object without the union's tag key.
fn variant(model: &Model, ty: &Ty, v: &Value, tag: &str, depth: usize) -> bool {
    match &model.unalias(ty).kind {
        TyKind::Ref(r) => match model.locate(r) {
            Some((dm, def)) => match &def.kind {
                TypeDefKind::Struct(s) => object(dm, s, v, Some(tag), depth),
                _ => of(model, ty, v, depth),
            },
            None => true,
        },
        _ => of(model, ty, v, depth),
    }
}

/// A struct's object: each field by its type and presence, every other key by the rest's
/// type when the struct is open (`skip`: a tagged union's tag, which is the union's).
fn object(
    model: &Model,
    s: &crate::model::Struct,
    v: &Value,
    skip: Option<&str>,
    depth: usize,
) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    for f in &s.fields {
        match o.get(&f.name) {
            None => {
                if !f.optional {
                    return false;
                }
            }
            Some(x) => {
                if f.meta.table.is_some() {
                    continue;
                }
                if !of(model, &f.ty, x, depth + 1) {
                    return false;
                }
            }
        }
    }
    if let Some(rest) = &s.rest {
        let values = match &rest.ty.kind {
            TyKind::Map(inner) => inner.as_ref(),
            _ => &rest.ty,
        };
        for (k, x) in o {
            if Some(k.as_str()) == skip || s.fields.iter().any(|f| f.name == *k) {
                continue;
            }
            if !of(model, values, x, depth + 1) {
                return false;
            }
        }
    }
    true
}

fn literal(l: &Literal, v: &Value) -> bool {
    match l {
        Literal::String(s) => v.as_str() == Some(s),
        Literal::Bool(b) => v.as_bool() == Some(*b),
        Literal::Int(i) => v.as_f64() == Some(*i as f64),
        Literal::Null => v.is_null(),
    }
}

/// A string's format where it is decidable, as docs/wire-semantics.md and Zod read it.
fn formatted(f: Format, s: &str) -> bool {
    match f {
        Format::Uri => {
            let mut chars = s.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.find(':').is_some_and(|colon| {
                    s[1..colon]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
                })
        }
        Format::Byte => {
            let b = s.as_bytes();
            if !b.len().is_multiple_of(4) {
                return false;
            }
            let pad = b.iter().rev().take_while(|c| **c == b'=').count();
            pad <= 2
                && b[..b.len() - pad]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/'))
        }
    }
}
