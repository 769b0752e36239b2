//! emit::rust's runtime schema values: the value of the runtime's schema types that reads a
//! schema type (`Str { min, max }`, `Named::<T>`, `Array { .. }`), its `ScanRef` form for a
//! view (`StrRef`, `NamedRef`; a boolean or integer literal's `Named::<IntLit<1>>`), and the
//! constants beside them: a literal's value, a field's default, a required literal key as the
//! untagged unions test it.
//!
//! A schema with limits is written once: an alias's as a hidden constant beside it, named as
//! the alias (`ChatId`), which every reader of the protocol's own types names; a field's as a
//! constant of its type's block, named as the field (`TEXT`, `mod.rs`'s `fields`).

use super::{At, Emitter};
use crate::model::{Field, Format, Literal, Model, Ty, TyKind, Width};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::quote;

impl Emitter<'_> {
    /// The runtime schema value that decodes `ty`; aliases are unfolded so their
    /// constraints apply at every use.
    pub(super) fn schema(&self, owner: &Model, ty: &Ty, at: At<'_>, boxed: bool) -> TokenStream {
        self.schema_as(false, owner, ty, at, boxed)
    }

    /// [`Self::schema`], or with `view` the `ScanRef` value that reads `ty` into its view
    /// (`wire::view`): strings and `unknown` values borrowed, a named type that holds text by
    /// its view, a value without text by its owned schema (`Own`).
    pub(super) fn schema_as(
        &self,
        view: bool,
        owner: &Model,
        ty: &Ty,
        at: At<'_>,
        boxed: bool,
    ) -> TokenStream {
        let rt = &self.rt;
        if view && self.view_ty(owner, ty, at, boxed).is_none() {
            let schema = self.schema_as(false, owner, ty, at, boxed);
            return quote!(#rt::Own(#schema));
        }
        match &ty.kind {
            TyKind::String(l, Some(f)) => {
                let (min, max) = (u64_lit(l.min), u64_lit(l.max));
                let format = match f {
                    Format::Uri => quote!(#rt::StrFormat::Uri),
                    Format::Byte => quote!(#rt::StrFormat::Byte),
                };
                quote!(#rt::FormatStr { format: #format, min: #min, max: #max })
            }
            TyKind::String(l, None) => {
                let (min, max) = (u64_lit(l.min), u64_lit(l.max));
                let schema = quote!(#rt::Str { min: #min, max: #max });
                if view {
                    quote!(#rt::StrRef(#schema))
                } else {
                    schema
                }
            }
            TyKind::Boolean => quote!(#rt::Bool),
            TyKind::Int(l, w) => {
                let (min, max) = (i64_lit(l.min), i64_lit(l.max));
                let schema = match w {
                    Width::Safe => quote!(#rt::Int),
                    Width::I64 => quote!(#rt::Int64),
                    Width::U64 => quote!(#rt::Uint64),
                };
                quote!(#schema { min: #min, max: #max })
            }
            TyKind::Number(l) => {
                let (min, max) = (i64_lit(l.min), i64_lit(l.max));
                quote!(#rt::Number { min: #min, max: #max })
            }
            TyKind::Unknown if view => quote!(#rt::UnknownRef),
            TyKind::Unknown => quote!(#rt::Unknown),
            TyKind::Literal(Literal::String(s)) => quote!(#rt::LitStr(#s)),
            // A boolean or an integer literal decodes into its zero-sized type (`IntLit<1>`).
            TyKind::Literal(Literal::Bool(b)) => quote!(#rt::Named::<#rt::BoolLit<#b>>::new()),
            TyKind::Literal(Literal::Null) => quote!(#rt::LitNull),
            TyKind::Literal(Literal::Int(i)) => {
                let i = super::paths::int_arg(*i);
                quote!(#rt::Named::<#rt::IntLit<#i>>::new())
            }
            TyKind::Array(inner, l) => {
                let inner = self.schema_as(view, owner, inner, at, false);
                let (min, max) = (u64_lit(l.min), u64_lit(l.max));
                quote!(#rt::Array { item: #inner, min: #min, max: #max })
            }
            TyKind::Map(inner) => {
                let inner = self.schema_as(view, owner, inner, at, false);
                quote!(#rt::Map(#inner))
            }
            TyKind::Nullable(inner) => {
                let inner = self.schema_as(view, owner, inner, at, boxed);
                quote!(#rt::Nullable(#inner))
            }
            TyKind::Ref(r) => {
                if let Some((def_owner, inner, alias_at)) = self.alias_of(owner, r, at) {
                    // This protocol's alias with limits is its constant (`alias_const`); a
                    // base's is unfolded, so no app depends on a base's hidden items.
                    let own = std::ptr::eq(def_owner, self.model.model());
                    if own && !boxed && has_const(inner) {
                        let path = self.type_path(owner, r, at);
                        let text =
                            matches!(self.model.unalias(inner).kind, TyKind::String(_, None));
                        match (view, text) {
                            (false, _) => return path,
                            (true, true) => return quote!(#rt::StrRef(#path)),
                            (true, false) => {}
                        }
                    }
                    return self.schema_as(view, def_owner, inner, alias_at, boxed);
                }
                let named = if view {
                    let path = self.view_path(owner, r, at);
                    quote!(#rt::NamedRef::<#path<'_>>::new())
                } else {
                    let path = self.type_path(owner, r, at);
                    quote!(#rt::Named::<#path>::new())
                };
                if boxed {
                    quote!(#rt::Boxed(#named))
                } else {
                    named
                }
            }
        }
    }

    /// The Rust type of [`Self::schema`]'s value, for a constant that holds it.
    pub(super) fn schema_type(
        &self,
        owner: &Model,
        ty: &Ty,
        at: At<'_>,
        boxed: bool,
    ) -> TokenStream {
        let rt = &self.rt;
        match &ty.kind {
            TyKind::String(_, Some(_)) => quote!(#rt::FormatStr),
            TyKind::String(_, None) => quote!(#rt::Str),
            TyKind::Boolean => quote!(#rt::Bool),
            TyKind::Int(_, Width::Safe) => quote!(#rt::Int),
            TyKind::Int(_, Width::I64) => quote!(#rt::Int64),
            TyKind::Int(_, Width::U64) => quote!(#rt::Uint64),
            TyKind::Number(_) => quote!(#rt::Number),
            TyKind::Unknown => quote!(#rt::Unknown),
            TyKind::Literal(Literal::String(_)) => quote!(#rt::LitStr),
            TyKind::Literal(Literal::Bool(b)) => quote!(#rt::Named<#rt::BoolLit<#b>>),
            TyKind::Literal(Literal::Null) => quote!(#rt::LitNull),
            TyKind::Literal(Literal::Int(i)) => {
                let i = super::paths::int_arg(*i);
                quote!(#rt::Named<#rt::IntLit<#i>>)
            }
            TyKind::Array(inner, _) => {
                let inner = self.schema_type(owner, inner, at, false);
                quote!(#rt::Array<#inner>)
            }
            TyKind::Map(inner) => {
                let inner = self.schema_type(owner, inner, at, false);
                quote!(#rt::Map<#inner>)
            }
            TyKind::Nullable(inner) => {
                let inner = self.schema_type(owner, inner, at, boxed);
                quote!(#rt::Nullable<#inner>)
            }
            TyKind::Ref(r) => {
                if let Some((def_owner, inner, alias_at)) = self.alias_of(owner, r, at) {
                    return self.schema_type(def_owner, inner, alias_at, boxed);
                }
                let path = self.type_path(owner, r, at);
                if boxed {
                    quote!(#rt::Boxed<#rt::Named<#path>>)
                } else {
                    quote!(#rt::Named<#path>)
                }
            }
        }
    }

    /// The Rust type of [`Self::literal_check`]'s value.
    pub(super) fn literal_check_type(&self, ty: &Ty) -> TokenStream {
        let rt = &self.rt;
        match &ty.kind {
            TyKind::Literal(Literal::Bool(_)) => quote!(#rt::LitBool),
            TyKind::Literal(Literal::Int(_)) => quote!(#rt::LitInt),
            TyKind::Literal(Literal::String(_)) => quote!(#rt::LitStr),
            TyKind::Literal(Literal::Null) => quote!(#rt::LitNull),
            _ => quote!(#rt::Unknown),
        }
    }

    /// An alias's schema as a constant beside its type alias, named as the alias (a value
    /// and a type do not clash, and no constant of the schema is named as a type), which every
    /// reader of the protocol's own types names; nothing for an alias without limits of its
    /// own (`has_const`).
    pub(super) fn alias_const(&self, name: &Ident, ty: &Ty, at: At<'_>) -> TokenStream {
        if !has_const(ty) {
            return TokenStream::new();
        }
        let schema_ty = self.schema_type(self.model, ty, at, false);
        let schema = self.schema(self.model, ty, at, false);
        let doc = format!(" What every reader checks of a `{name}`: the schema's one copy.");
        quote! {
            #[doc = #doc]
            #[doc(hidden)]
            #[allow(non_upper_case_globals, deprecated)]
            pub const #name: #schema_ty = #schema;
        }
    }

    /// The schema that checks a literal field that is not stored (a required one, or an
    /// optional one held as whether it was there): the literal as a value, `LitInt(1)`, whose
    /// result is dropped, rather than its type (`IntLit<1>`), which a stored one decodes into.
    pub(super) fn literal_check(&self, ty: &Ty) -> TokenStream {
        let rt = &self.rt;
        match &ty.kind {
            TyKind::Literal(Literal::Bool(b)) => quote!(#rt::LitBool(#b)),
            TyKind::Literal(Literal::Int(i)) => {
                let i = Lit::i64_suffixed(*i);
                quote!(#rt::LitInt(#i))
            }
            TyKind::Literal(Literal::String(s)) => quote!(#rt::LitStr(#s)),
            TyKind::Literal(Literal::Null) => quote!(#rt::LitNull),
            _ => quote!(#rt::Unknown),
        }
    }

    /// The Rust expression of a field's default value.
    pub(super) fn default_expr(&self, f: &Field, schema: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let Some(value) = &f.default else {
            return quote!(::core::default::Default::default());
        };
        match (&self.model.unalias(&f.ty).kind, value) {
            (TyKind::String(..), serde_json::Value::String(s)) => {
                quote!(::std::string::String::from(#s))
            }
            (TyKind::Boolean, serde_json::Value::Bool(b)) => quote!(#b),
            // A default is valid (`check`): a literal's is its one value.
            (TyKind::Literal(Literal::Bool(_) | Literal::Int(_) | Literal::Null), _) => {
                quote!(::core::default::Default::default())
            }
            (TyKind::Int(_, Width::U64), serde_json::Value::Number(n)) if n.as_u64().is_some() => {
                let n = Lit::u64_suffixed(n.as_u64().unwrap_or_default());
                quote!(#n)
            }
            (TyKind::Int(..), serde_json::Value::Number(n)) if n.as_i64().is_some() => {
                let n = Lit::i64_suffixed(n.as_i64().unwrap_or_default());
                quote!(#n)
            }
            (TyKind::Number(_), serde_json::Value::Number(n)) if n.as_f64().is_some() => {
                let n = Lit::f64_suffixed(n.as_f64().unwrap_or_default());
                quote!(#n)
            }
            _ => {
                let json = value.to_string();
                quote!(#rt::default_from_json(#schema, #json))
            }
        }
    }

    /// A required literal key as the runtime's untagged unions test it: `("ok", Bool(true))`.
    pub(super) fn runtime_literal(&self, key: &str, l: &Literal) -> TokenStream {
        let rt = &self.rt;
        let lit = match l {
            Literal::String(s) => quote!(#rt::Literal::Str(#s)),
            Literal::Bool(b) => quote!(#rt::Literal::Bool(#b)),
            Literal::Int(i) => {
                let i = Lit::i64_suffixed(*i);
                quote!(#rt::Literal::Int(#i))
            }
            Literal::Null => {
                unreachable!("`null` is no required literal (`Model::required_literals`)")
            }
        };
        quote!((#key, #lit))
    }
}

/// Whether the schema of `ty` is worth a constant: it holds limits, a literal or a shape
/// (strings, numbers, literals, arrays, maps, nullables), not only a name (`Named::<T>`, an
/// alias's constant) or a schema without parameters (`Bool`, `Unknown`).
pub(super) fn has_const(ty: &Ty) -> bool {
    !matches!(ty.kind, TyKind::Ref(_) | TyKind::Boolean | TyKind::Unknown)
}

/// `Some(v)` or `None` as tokens.
fn opt<T: quote::ToTokens>(v: Option<T>) -> TokenStream {
    match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    }
}

/// An optional limit as a `u64` literal.
fn u64_lit(v: Option<u64>) -> TokenStream {
    opt(v.map(Lit::u64_suffixed))
}

/// An optional limit as an `i64` literal.
fn i64_lit(v: Option<i64>) -> TokenStream {
    opt(v.map(Lit::i64_suffixed))
}

/// A literal's value as a Rust expression.
pub(super) fn literal_value(ty: &Ty) -> TokenStream {
    match &ty.kind {
        TyKind::Literal(Literal::String(s)) => quote!(#s),
        TyKind::Literal(Literal::Bool(b)) => quote!(#b),
        TyKind::Literal(Literal::Int(i)) => {
            let i = Lit::i64_suffixed(*i);
            quote!(#i)
        }
        _ => quote!(()),
    }
}
