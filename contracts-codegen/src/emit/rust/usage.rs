//! Usage code: what a user writes against a protocol's generated Rust, generated from the model.
//!
//! For every type the protocol owns it writes what a careful user would: a struct built by
//! `new` and its setters from values of the fields' types and each field read back at its
//! type; an enum, a union and the by-name enums (`RequestPayload`, `RequestResult`,
//! `EventPayload`) matched arm by arm, with a wildcard arm exactly where the type is
//! `#[non_exhaustive]` (exhaustive otherwise); an alias used as its type; each table entry's
//! payload and result named through `Request`/`Event`; a `Host` that answers every request.
//! Every type is named by its path from the protocol's module. The code is meant to be compiled
//! (never run) in a crate of its own, after `use <protocol module>::*;`: compiled against the
//! protocol it was written from it must build, and compiled against a later version of the
//! schema it builds exactly when that version keeps Rust source compatibility
//! (`contracts-codegen/tests/compat_rust.rs`).

use super::paths::{open_variant, setter_ident, variant_ident};
use super::{At, Emitter, Store};
use crate::model::{Struct, TyKind, TypeDef, TypeDefKind};
use crate::names::rust_type_name;
use crate::names::{rust_field, rust_ident};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// Every use of the protocol's own types and tables, as items of one module.
    pub(super) fn usage(&self) -> TokenStream {
        let mut items = Vec::new();
        for (i, def) in self.model.types.iter().enumerate() {
            items.push(self.use_type(i, def));
        }
        items.push(self.use_tables());
        quote!(#(#items)*)
    }

    fn use_type(&self, i: usize, def: &TypeDef) -> TokenStream {
        let r = crate::model::TypeRef {
            name: def.name.clone(),
            protocol: None,
        };
        let path = self.type_path(self.model, &r, At::Root);
        let at = At::Root;
        match &def.kind {
            TypeDefKind::Alias(ty) => {
                let f = format_ident!("__alias_{i}");
                let ty = self.rust_ty(self.model, ty, at, false);
                quote!(pub fn #f(v: #path) -> #ty { v })
            }
            TypeDefKind::Struct(s) => self.use_struct(i, def, s, &path),
            TypeDefKind::Enum(e) => {
                let f = format_ident!("__match_{i}");
                let mut arms: Vec<TokenStream> = e
                    .values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        let id = format_ident!("{}", rust_type_name(v.name()));
                        let k = Lit::usize_unsuffixed(k);
                        quote!(#path::#id => #k,)
                    })
                    .collect();
                if e.open {
                    let other = open_variant(e);
                    arms.push(if e.is_int() {
                        quote!(#path::#other(i) => usize::from(*i < 0),)
                    } else {
                        quote!(#path::#other(s) => s.len(),)
                    });
                }
                if self.model.analysis().growth.may_grow(self.model, def) {
                    arms.push(quote!(_ => usize::MAX,));
                }
                quote! {
                    pub fn #f(v: &#path) -> usize {
                        match v { #(#arms)* }
                    }
                }
            }
            TypeDefKind::Union(u) => {
                let f = format_ident!("__match_{i}");
                let mut arms: Vec<TokenStream> = u
                    .variants
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        let id = variant_ident(v, k);
                        let boxed = self.model.analysis().recursion.is_boxed(&def.name, k);
                        let ty = self.rust_ty(self.model, &v.ty, at, boxed);
                        let k = Lit::usize_unsuffixed(k);
                        quote!(#path::#id(x) => { let _: &#ty = x; #k })
                    })
                    .collect();
                if self.model.analysis().growth.may_grow(self.model, def) {
                    arms.push(quote!(_ => usize::MAX,));
                }
                quote! {
                    pub fn #f(v: &#path) -> usize {
                        match v { #(#arms)* }
                    }
                }
            }
        }
    }

    /// Build by `new` and the setters from values of the fields' types; read every field.
    fn use_struct(&self, i: usize, def: &TypeDef, s: &Struct, path: &TokenStream) -> TokenStream {
        let build = format_ident!("__build_{i}");
        let read = format_ident!("__read_{i}");
        let mut params = Vec::new();
        let mut args = Vec::new();
        let mut setters = Vec::new();
        let mut reads = Vec::new();
        for (k, f) in s.fields.iter().enumerate() {
            let boxed = self.model.analysis().recursion.is_boxed(&def.name, k);
            let ty = self.rust_ty(self.model, &f.ty, At::Root, boxed);
            let ident = rust_ident(&rust_field(&f.name));
            let setter = setter_ident(&f.name);
            let p: Ident = format_ident!("f{k}");
            let (param, stored) = match self.store(f) {
                Store::Literal => continue,
                Store::Presence => (quote!(bool), quote!(bool)),
                Store::Defaulted | Store::Required => (ty.clone(), ty.clone()),
                Store::Optional => (ty.clone(), quote!(::core::option::Option<#ty>)),
            };
            params.push(quote!(#p: #param));
            match self.store(f) {
                Store::Required => args.push(quote!(#p)),
                _ => setters.push(quote!(.#setter(#p))),
            }
            reads.push(quote!(let _: &#stored = &v.#ident;));
        }
        // An open struct's rest is read as the map it is.
        if let Some(rest) = &s.rest
            && let TyKind::Map(inner) = &rest.ty.kind
        {
            let vty = self.rust_ty(self.model, inner, At::Root, false);
            reads.push(quote!(let _: &::contracts::wire::Rest<#vty> = &v.extra;));
        }
        quote! {
            pub fn #build(#(#params),*) -> #path {
                #path::new(#(#args),*) #(#setters)*
            }
            pub fn #read(v: &#path) {
                #(#reads)*
            }
        }
    }

    /// Each table entry's types by `Request`/`Event`, a `Host` answering every own request, and
    /// the by-name enums matched.
    fn use_tables(&self) -> TokenStream {
        let mut items = Vec::new();
        let mut req_arms = Vec::new();
        let mut res_arms = Vec::new();
        let mut methods = Vec::new();
        let err = self.error_path();
        for (k, (owner, r)) in self.model.all_requests().into_iter().enumerate() {
            let id = format_ident!("{}", rust_type_name(&r.name));
            let f = format_ident!("__request_{k}");
            let payload = self.rust_ty(owner, &r.payload, At::Root, false);
            let result = self.rust_ty(owner, &r.result, At::Root, false);
            items.push(quote! {
                pub fn #f(
                    p: <requests::#id as ::contracts::Request>::Payload,
                    r: <requests::#id as ::contracts::Request>::Result,
                ) -> (#payload, #result) {
                    (p, r)
                }
            });
            if std::ptr::eq(owner, self.model.model()) && r.sender().from_client() {
                let method = rust_ident(&rust_field(&r.name));
                methods.push(quote! {
                    async fn #method(&self, payload: #payload) -> ::core::result::Result<#result, #err> {
                        let _ = payload;
                        ::core::todo!()
                    }
                });
            }
            req_arms.push(quote!(RequestPayload::#id(p) => { let _: &#payload = p; }));
            res_arms.push(quote!(RequestResult::#id(r) => { let _: &#result = r; }));
        }
        let mut ev_arms = Vec::new();
        for (k, (owner, e)) in self.model.all_events().into_iter().enumerate() {
            let id = format_ident!("{}", rust_type_name(&e.name));
            let f = format_ident!("__event_{k}");
            let payload = self.rust_ty(owner, &e.payload, At::Root, false);
            items.push(quote! {
                pub fn #f(p: <events::#id as ::contracts::Event>::Payload) -> #payload {
                    p
                }
            });
            ev_arms.push(quote!(EventPayload::#id(p) => { let _: &#payload = p; }));
        }
        quote! {
            #(#items)*
            pub struct __UsageHost;
            impl Host for __UsageHost {
                #(#methods)*
            }
            pub fn __match_request(v: &RequestPayload) {
                match v { #(#req_arms)* _ => {} }
            }
            pub fn __match_result(v: &RequestResult) {
                match v { #(#res_arms)* _ => {} }
            }
            pub fn __match_event(v: &EventPayload) {
                match v { #(#ev_arms)* _ => {} }
            }
        }
    }
}
