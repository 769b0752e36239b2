//! emit::rust's names and paths: a schema name as a Rust type name, a setter's, a variant's
//! and an open enum's catch-all variant's name; the path to a named type from the module the
//! code sits in (or in a base's module); the Rust type of a schema type (a boolean or integer
//! literal the runtime's zero-sized `BoolLit<B>` or `IntLit<N>`, which hold no other value).

use super::{At, Emitter};
use crate::model::{
    Enum, EnumValue, Literal, Model, Ty, TyKind, TypeDefKind, TypeRef, Variant, Width,
};
use crate::names::{rust_field, rust_ident, rust_type_name};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The path to a named type from the module `at` (own types) or from anywhere (bases).
    pub(super) fn type_path(&self, owner: &Model, r: &TypeRef, at: At<'_>) -> TokenStream {
        self.type_path_as(owner, r, at, &r.name)
    }

    /// [`Self::type_path`] of a type generated beside `r`'s, called `name` (its view).
    pub(super) fn type_path_as(
        &self,
        owner: &Model,
        r: &TypeRef,
        at: At<'_>,
        name: &str,
    ) -> TokenStream {
        let protocol = r.protocol.as_deref().unwrap_or(&owner.name);
        let name = format_ident!("{}", rust_type_name(name));
        let def = owner.resolve(r);
        let module = def.and_then(|d| d.module.as_deref()).map(module_ident);
        if protocol == self.model.name {
            let up = match at {
                At::Root => quote!(),
                At::Module(_) => quote!(super::),
            };
            return match (module, at) {
                (Some(m), At::Module(cur)) if module_ident(cur) == m => quote!(#name),
                (Some(m), _) => quote!(#up #m::#name),
                (None, _) => quote!(#up #name),
            };
        }
        let base = match self.bases.get(protocol) {
            Some(p) => parse_path(p),
            None => {
                let p = format_ident!("{}", rust_field(protocol));
                quote!(::contracts::#p)
            }
        };
        match module {
            Some(m) => quote!(#base::#m::#name),
            None => quote!(#base::#name),
        }
    }

    pub(super) fn rust_ty(&self, owner: &Model, ty: &Ty, at: At<'_>, boxed: bool) -> TokenStream {
        let rt = &self.rt;
        match &ty.kind {
            TyKind::String(..) => quote!(::std::string::String),
            TyKind::Boolean => quote!(bool),
            TyKind::Int(_, Width::U64) => quote!(u64),
            TyKind::Int(..) => quote!(i64),
            TyKind::Number(_) => quote!(f64),
            TyKind::Unknown => quote!(#rt::RawJson),
            // A string cannot be a const generic on stable Rust: a string literal is its text.
            TyKind::Literal(Literal::String(_)) => quote!(&'static str),
            TyKind::Literal(Literal::Bool(b)) => quote!(#rt::BoolLit<#b>),
            // `null` is held as `()`, which serde writes as `null`.
            TyKind::Literal(Literal::Null) => quote!(()),
            TyKind::Literal(Literal::Int(i)) => {
                let i = int_arg(*i);
                quote!(#rt::IntLit<#i>)
            }
            TyKind::Array(inner, _) => {
                let inner = self.rust_ty(owner, inner, at, false);
                quote!(::std::vec::Vec<#inner>)
            }
            TyKind::Map(inner) => {
                let inner = self.rust_ty(owner, inner, at, false);
                quote!(::std::collections::BTreeMap<::std::string::String, #inner>)
            }
            TyKind::Nullable(inner) => {
                let inner = self.rust_ty(owner, inner, at, boxed);
                quote!(::core::option::Option<#inner>)
            }
            TyKind::Ref(r) => {
                let path = self.type_path(owner, r, at);
                if boxed {
                    quote!(::std::boxed::Box<#path>)
                } else {
                    path
                }
            }
        }
    }

    /// Whether a type is a number or a boolean (through aliases and nullable), which the
    /// builder takes as is.
    pub(super) fn is_scalar(&self, ty: &Ty) -> bool {
        match &self.model.unalias(ty).kind {
            TyKind::Int(..) | TyKind::Number(_) | TyKind::Boolean => true,
            TyKind::Nullable(inner) => self.is_scalar(inner),
            _ => false,
        }
    }

    /// Whether a type names an open struct (`..: T`, through aliases): one with `extra`.
    pub(super) fn is_open_struct(&self, ty: &Ty) -> bool {
        let TyKind::Ref(r) = &self.model.unalias(ty).kind else {
            return false;
        };
        matches!(
            self.model.resolve(r).map(|d| &d.kind),
            Some(TypeDefKind::Struct(s)) if s.rest.is_some()
        )
    }

    /// Whether a union variant is a struct (its own type or a base's), so the union can
    /// read the object once and pick variants by their literal keys.
    pub(super) fn is_struct(&self, ty: &Ty) -> bool {
        match &ty.kind {
            TyKind::Ref(r) => matches!(
                self.model.resolve(r).map(|d| &d.kind),
                Some(TypeDefKind::Struct(_))
            ),
            _ => false,
        }
    }

    pub(super) fn base_path(&self, protocol: &str) -> TokenStream {
        match self.bases.get(protocol) {
            Some(p) => parse_path(p),
            None => {
                let p = format_ident!("{}", rust_field(protocol));
                quote!(::contracts::#p)
            }
        }
    }

    /// The alias `r` names, with the model and place its target's refs are written from (an
    /// alias's refs are written relative to where the alias sits).
    pub(super) fn alias_of<'m>(
        &'m self,
        owner: &'m Model,
        r: &TypeRef,
        at: At<'m>,
    ) -> Option<(&'m Model, &'m Ty, At<'m>)> {
        let def_owner = owner.declaring(r);
        match owner.resolve(r).map(|d| &d.kind) {
            Some(TypeDefKind::Alias(inner)) => {
                let alias_at = if std::ptr::eq(def_owner, self.model.model()) {
                    at
                } else {
                    At::Root
                };
                Some((def_owner, inner, alias_at))
            }
            _ => None,
        }
    }
}

/// A Rust path written in the options (a base's module), as tokens.
fn parse_path(s: &str) -> TokenStream {
    s.parse().unwrap_or_else(|_| quote!(::contracts::__private))
}

/// The Rust module of a schema directory.
pub(super) fn module_ident(m: &str) -> Ident {
    rust_ident(&rust_field(m))
}

/// The variant an open enum keeps an unlisted value in: `Other`, or `Unlisted` when the enum
/// lists a value called `Other` itself.
pub(super) fn open_variant(e: &Enum) -> Ident {
    if e.values.iter().any(|v| rust_type_name(v.name()) == "Other") {
        format_ident!("Unlisted")
    } else {
        format_ident!("Other")
    }
}

/// The Rust name of an enum's value (its variant).
pub(super) fn value_ident(v: &EnumValue) -> Ident {
    format_ident!("{}", rust_type_name(v.name()))
}

/// The Rust name of a union's variant `i`: its tag, else its type's name.
pub(super) fn variant_ident(v: &Variant, _i: usize) -> Ident {
    match &v.tag {
        Some(tag) => format_ident!("{}", rust_type_name(tag)),
        None => format_ident!("{}", rust_type_name(&v.name_source())),
    }
}

/// Methods a setter must not take the name of: the constructor, and what the derived and
/// serde traits are called with method syntax (an inherent method would shadow them). A field
/// of one of these names gets the setter `with_<name>`.
const SETTER_RESERVED: &[&str] = &[
    "new",
    "clone",
    "clone_from",
    "eq",
    "ne",
    "fmt",
    "serialize",
    "into",
    "try_into",
    "to_owned",
    "write_fields",
];

/// The setter of the field `wire` (its Rust field name, or `with_<name>` when that is taken).
pub(super) fn setter_ident(wire: &str) -> Ident {
    let field = rust_field(wire);
    if SETTER_RESERVED.contains(&field.as_str()) {
        format_ident!("with_{}", field)
    } else {
        rust_ident(&field)
    }
}

/// `expr`, an `Option`, with its value `v` made `body`: a `match`, not `Option::map` and a
/// closure, each of which is a generic instance per call site in every build of the app.
pub(super) fn map_some(expr: TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        match #expr {
            ::core::option::Option::Some(v) => ::core::option::Option::Some(#body),
            ::core::option::Option::None => ::core::option::Option::None,
        }
    }
}

/// `expr`, a decoder's `Read<Option<_>>`, with its value `v` made `body` (see [`map_some`]).
pub(super) fn map_read(expr: TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        match #expr {
            ::core::result::Result::Ok(::core::option::Option::Some(v)) => {
                ::core::result::Result::Ok(::core::option::Option::Some(#body))
            }
            ::core::result::Result::Ok(::core::option::Option::None) => {
                ::core::result::Result::Ok(::core::option::Option::None)
            }
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    }
}

/// An integer as a const generic argument: a negative one in braces (`IntLit<{ -1i64 }>`).
pub(super) fn int_arg(i: i64) -> TokenStream {
    let lit = proc_macro2::Literal::i64_suffixed(i);
    if i < 0 {
        quote!({ #lit })
    } else {
        quote!(#lit)
    }
}
