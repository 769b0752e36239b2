//! emit::rust's flat borrowed views of the frame envelopes (`RequestRef<'a>`,
//! `ServerFrameRef<'a>`): a struct whose fields are strings, `unknown` values and literals, one
//! of them `unknown`, gets a view that decodes itself with the struct's keys, limits and
//! messages, its strings and raw values borrowed; an untagged union of such structs gets one
//! whose variants are their views.

use super::decode::lets_else;
use super::paths::rust_type_name;
use super::scan::{scan_fields_body, untagged_scan_body};
use super::{At, Emitter, Store};
use crate::model::{Struct, TyKind, TypeDef, TypeDefKind, Union};
use crate::names::{rust_field, rust_ident, view_name};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// A struct's borrowed view, `NameRef<'a>`, when every field is a string, `unknown` or a
    /// literal and one is `unknown` (the frame envelopes): its strings are `Cow<'a, str>` and
    /// its raw values `Cow<'a, RawValue>`, borrowed from the input when it lends them, so the
    /// envelope stage copies nothing. It decodes with the struct's own keys, limits and
    /// messages. Empty when the struct does not qualify or the name is taken.
    pub(super) fn struct_ref(&self, def: &TypeDef, s: &Struct, at: At<'_>) -> TokenStream {
        enum Kind {
            Str,
            Unknown,
            Literal,
        }
        let mut kinds = Vec::new();
        for f in &s.fields {
            let kind = match (&self.model.unalias(&f.ty).kind, self.store(f)) {
                (TyKind::Literal(_), Store::Literal | Store::Presence) => Kind::Literal,
                (TyKind::String(_), Store::Required | Store::Optional) => Kind::Str,
                (TyKind::Unknown, Store::Required | Store::Optional) => Kind::Unknown,
                _ => return TokenStream::new(),
            };
            kinds.push(kind);
        }
        let view_name = view_name(&def.name);
        if !self.has_view(def, s) {
            return TokenStream::new();
        }
        let rt = &self.rt;
        let name = format_ident!("{}", rust_type_name(&def.name));
        let view = format_ident!("{}", rust_type_name(&view_name));
        let doc = format!(
            " A borrowed view of [`{name}`]: its strings and raw values borrow from the input \
             when it lends them. Same keys, limits and messages."
        );
        let cow = quote!(::std::borrow::Cow);
        let mut members = Vec::new();
        let mut arms = Vec::new();
        let mut finish = Vec::new();
        let mut build = Vec::new();
        let mut owned = Vec::new();
        let mut from_owned = Vec::new();
        let mut scans = Vec::new();
        let slots: Vec<Ident> = (0..s.fields.len()).map(|i| format_ident!("f{i}")).collect();
        for (i, (f, kind)) in s.fields.iter().zip(&kinds).enumerate() {
            let schema = self.schema(self.model, &f.ty, at, false);
            let slot = &slots[i];
            let i_lit = Lit::usize_unsuffixed(i);
            let ident = rust_ident(&rust_field(&f.name));
            let fdocs = self.field_docs(f);
            let (ty, value, to_owned, to_view) = match kind {
                Kind::Literal => {
                    scans.push(quote!(#rt::Schema::scan(#schema, r)));
                    arms.push(
                        quote!(#i_lit => o.value_into(&mut map, #i_lit, #schema, &mut #slot)?,),
                    );
                    if let Store::Literal = self.store(f) {
                        finish.push(quote!(let #slot = o.required(#i_lit, #slot, #schema);));
                    } else {
                        finish.push(quote!(let #slot = o.present(#slot);));
                        members.push(quote!(#fdocs pub #ident: bool,));
                        build.push(quote!(#ident: #slot,));
                        owned.push(quote!(#ident: self.#ident,));
                        from_owned.push(quote!(#ident: owned.#ident,));
                    }
                    continue;
                }
                Kind::Str => (
                    quote!(#cow<'a, str>),
                    quote!(#rt::StrRef(#schema)),
                    quote!(v.into_owned()),
                    quote!(#cow::Owned(v)),
                ),
                Kind::Unknown => (
                    quote!(#cow<'a, #rt::RawValue>),
                    quote!(#rt::UnknownRef),
                    quote!(#rt::RawJson(v.into_owned())),
                    quote!(#cow::Owned(v.0)),
                ),
            };
            arms.push(quote!(#i_lit => o.value_ref_into(&mut map, #i_lit, #value, &mut #slot)?,));
            scans.push(quote!(#rt::SchemaRef::scan(#value, r)));
            if f.optional {
                finish.push(quote!(let #slot = o.optional(#slot);));
                members.push(quote!(#fdocs pub #ident: ::core::option::Option<#ty>,));
                owned.push(quote!(#ident: self.#ident.map(|v| #to_owned),));
                from_owned.push(quote!(#ident: owned.#ident.map(|v| #to_view),));
            } else {
                finish.push(quote!(let #slot = o.required(#i_lit, #slot, #schema);));
                members.push(quote!(#fdocs pub #ident: #ty,));
                owned.push(quote!(#ident: { let v = self.#ident; #to_owned },));
                from_owned.push(quote!(#ident: { let v = owned.#ident; #to_view },));
            }
            build.push(quote!(#ident: #slot,));
        }
        let kept = s
            .fields
            .iter()
            .map(|f| !matches!(self.store(f), Store::Literal));
        let lets_else = lets_else(&slots, kept);
        let view_scan = scan_fields_body(
            rt,
            s,
            &slots,
            &scans,
            |f| self.store(f),
            |_| {
                // A view's fields are strings, `unknown` values and literals: none has a default.
                TokenStream::new()
            },
        );
        let typed = self.struct_typed(
            def, s, at, &name, &view, &slots, &arms, &finish, &members, &scans,
        );
        let object_view = self.object_view_impl(&view, view_scan);
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            #[non_exhaustive]
            #[allow(deprecated)]
            pub struct #view<'a> {
                #(#members)*
            }

            #typed

            #[allow(deprecated)]
            impl #view<'_> {
                /// The owned value.
                pub fn into_owned(self) -> #name {
                    #name { #(#owned)* }
                }
            }

            #[allow(deprecated)]
            impl<'de> #rt::ObjectRef<'de> for #view<'de> {
                const FIELDS: &'static [&'static str] = <#name as #rt::Object>::FIELDS;
                fn index(key: &str) -> ::core::option::Option<usize> {
                    <#name as #rt::Object>::index(key)
                }
                fn visit<A: #rt::serde::de::MapAccess<'de>>(
                    o: &mut #rt::ObjectCx<'_>,
                    mut map: A,
                ) -> ::core::result::Result<::core::option::Option<Self>, A::Error> {
                    #(let mut #slots = ::core::option::Option::None;)*
                    while let ::core::option::Option::Some(i) = o.next_key(&mut map, <Self as #rt::ObjectRef<'de>>::index)? {
                        match i {
                            #(#arms)*
                            _ => {}
                        }
                    }
                    #(#finish)*
                    #lets_else
                    ::core::result::Result::Ok(::core::option::Option::Some(Self { #(#build)* }))
                }
            }

            #[allow(deprecated)]
            impl<'de> #rt::DecodeRef<'de> for #view<'de> {
                type Owned = #name;
                fn into_owned(self) -> #name {
                    Self::into_owned(self)
                }
                fn from_owned(owned: #name) -> Self {
                    Self { #(#from_owned)* }
                }
                fn decode<D: #rt::serde::Deserializer<'de>>(
                    d: D,
                    cx: &mut #rt::Cx,
                ) -> ::core::result::Result<::core::option::Option<Self>, D::Error> {
                    #rt::decode_object_ref::<Self, D>(d, cx)
                }
                #[inline]
                fn scan(r: &mut #rt::Scanner<'de>) -> ::core::option::Option<Self> {
                    #rt::scan_object_view::<Self>(r)
                }
            }

            #object_view
        }
    }

    /// Whether a struct gets a borrowed view (see [`Self::struct_ref`]).
    pub(super) fn has_view(&self, def: &TypeDef, s: &Struct) -> bool {
        let mut unknown = false;
        for f in &s.fields {
            match (&self.model.unalias(&f.ty).kind, self.store(f)) {
                (TyKind::Literal(_), Store::Literal | Store::Presence) => {}
                (TyKind::String(_), Store::Required | Store::Optional) => {}
                (TyKind::Unknown, Store::Required | Store::Optional) => unknown = true,
                _ => return false,
            }
        }
        unknown && self.def_has_view(def)
    }

    /// An untagged union of structs gets a borrowed view, `NameRef<'a>`, when its variants
    /// are this model's own structs and one of them has a view: each variant is its struct's
    /// view, or the owned struct when it has none. It decodes with the union's own verdict
    /// and messages. Empty otherwise.
    pub(super) fn untagged_ref(
        &self,
        def: &TypeDef,
        u: &Union,
        at: At<'_>,
        idents: &[Ident],
        boxes: &[bool],
    ) -> TokenStream {
        let view_name = view_name(&def.name);
        let grows = self.grows(def);
        if u.variants.is_empty() || boxes.iter().any(|b| *b) || !self.def_has_view(def) {
            return TokenStream::new();
        }
        let mut parts = Vec::new();
        let mut structs = Vec::new();
        for (v, id) in u.variants.iter().zip(idents) {
            let TyKind::Ref(r) = &v.ty.kind else {
                return TokenStream::new();
            };
            if r.protocol.as_deref().is_some_and(|p| p != self.model.name) {
                return TokenStream::new();
            }
            let Some(vdef) = self.model.own_type(&r.name) else {
                return TokenStream::new();
            };
            let TypeDefKind::Struct(vs) = &vdef.kind else {
                return TokenStream::new();
            };
            let path = self.type_path(self.model, r, at);
            let view = self
                .has_view(vdef, vs)
                .then(|| self.view_path(self.model, r, at));
            parts.push((id, path, view));
            structs.push((r, vdef, vs));
        }
        if parts.iter().all(|(_, _, v)| v.is_none()) {
            return TokenStream::new();
        }
        let rt = &self.rt;
        let name = format_ident!("{}", rust_type_name(&def.name));
        let view = format_ident!("{}", rust_type_name(&view_name));
        let doc = format!(
            " A borrowed view of [`{name}`]: each variant is its struct's view, borrowing from \
             the input when it lends it (the owned struct when it has no view). Same verdict \
             and messages."
        );
        let mut members = Vec::new();
        let mut to_owned = Vec::new();
        let mut from_owned = Vec::new();
        let mut variants = Vec::new();
        let mut literals = Vec::new();
        let mut scans = Vec::new();
        for (id, path, vpath) in &parts {
            literals.push(quote!(<#path as #rt::Object>::LITERALS));
            let vdoc = format!(" [`{name}::{id}`], borrowed where it can be.");
            match vpath {
                Some(vp) => {
                    scans.push(quote!(<#vp<'de> as #rt::DecodeRef<'de>>::scan(r).map(Self::#id)));
                    members.push(quote!(#[doc = #vdoc] #id(#vp<'a>),));
                    to_owned.push(quote!(Self::#id(v) => #name::#id(v.into_owned()),));
                    from_owned.push(quote!(
                        #name::#id(v) => Self::#id(<#vp<'de> as #rt::DecodeRef<'de>>::from_owned(v)),
                    ));
                    variants.push(quote!(#rt::ObjectVariantRef {
                        literals: <#path as #rt::Object>::LITERALS,
                        decode: |e, cx| <#vp<'de> as #rt::DecodeRef<'de>>::decode(e, cx).map(|v| v.map(Self::#id)),
                        owned: |e, cx| <#path as #rt::Decode>::decode(e, cx)
                            .map(|v| v.map(|v| Self::#id(<#vp<'de> as #rt::DecodeRef<'de>>::from_owned(v)))),
                    },));
                }
                None => {
                    scans.push(quote!(<#path as #rt::Decode>::scan(r).map(Self::#id)));
                    members.push(quote!(#[doc = #vdoc] #id(#path),));
                    to_owned.push(quote!(Self::#id(v) => #name::#id(v),));
                    from_owned.push(quote!(#name::#id(v) => Self::#id(v),));
                    variants.push(quote!(#rt::ObjectVariantRef {
                        literals: <#path as #rt::Object>::LITERALS,
                        decode: |e, cx| <#path as #rt::Decode>::decode(e, cx).map(|v| v.map(Self::#id)),
                        owned: |e, cx| <#path as #rt::Decode>::decode(e, cx).map(|v| v.map(Self::#id)),
                    },));
                }
            }
        }
        let scan = untagged_scan_body(
            &literals,
            &scans,
            !self.model.analysis().recursion.is_recursive(&def.name),
        );
        let typed = self.untagged_typed(&name, &view, &parts, &structs, at, &grows);
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            #grows
            #[allow(deprecated)]
            pub enum #view<'a> {
                #(#members)*
            }

            #typed

            #[allow(deprecated)]
            impl #view<'_> {
                /// The owned value.
                pub fn into_owned(self) -> #name {
                    match self { #(#to_owned)* }
                }
            }

            #[allow(deprecated)]
            impl<'de> #rt::DecodeRef<'de> for #view<'de> {
                type Owned = #name;
                fn into_owned(self) -> #name {
                    Self::into_owned(self)
                }
                fn from_owned(owned: #name) -> Self {
                    match owned { #(#from_owned)* }
                }
                fn decode<D: #rt::serde::Deserializer<'de>>(
                    d: D,
                    cx: &mut #rt::Cx,
                ) -> ::core::result::Result<::core::option::Option<Self>, D::Error> {
                    #rt::decode_untagged_objects_ref(d, cx, &[#(#variants)*])
                }
                #[inline]
                fn scan(r: &mut #rt::Scanner<'de>) -> ::core::option::Option<Self> {
                    #scan
                }
            }
        }
    }
}
