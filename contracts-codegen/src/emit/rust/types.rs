//! emit::rust's type items: each alias, struct, enum and union of the schema as a Rust item
//! with its doc comments and derives, a struct's constructor and setters, a union's `From`
//! each variant's type, and how each is written (`Serialize`, `WriteFields`) and handed to
//! serde (`Deserialize`).

use super::decode::lets_else;
use super::docs::{docs_attrs, meta_attrs};
use super::paths::{open_variant, rust_type_name, setter_ident, variant_ident};
use super::scan::{scan_fields_body, scan_variant_keys, untagged_scan_body};
use super::schema::literal_value;
use super::{At, Emitter, Store};
use crate::model::{Enum, Struct, TyKind, TypeDef, TypeDefKind, Union, UnionTag};
use crate::names::{rust_field, rust_ident};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// A struct's constructor and setters, the one way to build it that survives growth (its
    /// type is `#[non_exhaustive]`): `new` takes the required fields, each `impl Into` of its
    /// type, and starts every other field absent (a defaulted one at its default); each
    /// optional field has a setter `fn field(mut self, value: impl Into<T>) -> Self` (a flag
    /// for an optional literal). A number or a boolean (or a nullable one) is taken as its own
    /// type: `impl Into<i64>` would read an integer literal as an `i32`. `Default` when no
    /// field is required.
    fn builder_impl(&self, def: &TypeDef, s: &Struct, at: At<'_>, name: &Ident) -> TokenStream {
        let mut params = Vec::new();
        let mut inits = Vec::new();
        let mut setters = Vec::new();
        for (i, f) in s.fields.iter().enumerate() {
            let boxed = self.model.analysis().recursion.is_boxed(&def.name, i);
            let ident = rust_ident(&rust_field(&f.name));
            let ty = self.rust_ty(self.model, &f.ty, at, boxed);
            let fmeta = meta_attrs(&f.meta);
            let wire = f.name.as_str();
            let setter = setter_ident(&f.name);
            let (arg, value) = if self.is_scalar(&f.ty) {
                (ty.clone(), quote!(value))
            } else {
                (
                    quote!(impl ::core::convert::Into<#ty>),
                    quote!(value.into()),
                )
            };
            let mut sdocs = self.field_docs(f);
            if !sdocs.is_empty() {
                sdocs.extend(quote!(#[doc = ""]));
            }
            match self.store(f) {
                Store::Literal => continue,
                Store::Required => {
                    params.push(quote!(#ident: #arg));
                    if self.is_scalar(&f.ty) {
                        inits.push(quote!(#ident,));
                    } else {
                        inits.push(quote!(#ident: #ident.into(),));
                    }
                    continue;
                }
                Store::Presence => {
                    let lit = literal_value(self.model.unalias(&f.ty));
                    let doc = format!(" Whether `{wire}` is sent (as `{lit}`); absent by default.");
                    inits.push(quote!(#ident: false,));
                    setters.push(quote! {
                        #sdocs
                        #[doc = #doc]
                        #fmeta
                        #[must_use]
                        pub fn #setter(mut self, present: bool) -> Self {
                            self.#ident = present;
                            self
                        }
                    });
                }
                Store::Defaulted => {
                    let schema = self.schema(self.model, &f.ty, at, boxed);
                    let d = self.default_expr(f, &schema);
                    let shown = f
                        .default
                        .as_ref()
                        .map(ToString::to_string)
                        .unwrap_or_default();
                    let doc = format!(" Sets `{wire}`; `{shown}` unless set.");
                    inits.push(quote!(#ident: #d,));
                    setters.push(quote! {
                        #sdocs
                        #[doc = #doc]
                        #fmeta
                        #[must_use]
                        pub fn #setter(mut self, value: #arg) -> Self {
                            self.#ident = #value;
                            self
                        }
                    });
                }
                Store::Optional => {
                    let doc = format!(" Sets `{wire}`; absent unless set.");
                    inits.push(quote!(#ident: ::core::option::Option::None,));
                    setters.push(quote! {
                        #sdocs
                        #[doc = #doc]
                        #fmeta
                        #[must_use]
                        pub fn #setter(mut self, value: #arg) -> Self {
                            self.#ident = ::core::option::Option::Some(#value);
                            self
                        }
                    });
                }
            }
        }
        let new_doc = if params.is_empty() {
            format!(" A [`{name}`] with every field absent (a defaulted field at its default).")
        } else {
            format!(
                " A [`{name}`] with its required fields; every optional field starts absent (a \
                 defaulted one at its default) and is set by its setter."
            )
        };
        let many = (params.len() > 7).then(|| quote!(#[allow(clippy::too_many_arguments)]));
        let default = params.is_empty().then(|| {
            quote! {
                #[allow(deprecated)]
                impl ::core::default::Default for #name {
                    fn default() -> Self {
                        Self::new()
                    }
                }
            }
        });
        quote! {
            #[allow(deprecated)]
            impl #name {
                #[doc = #new_doc]
                #[must_use]
                #many
                pub fn new(#(#params),*) -> Self {
                    Self { #(#inits)* }
                }

                #(#setters)*
            }

            #default
        }
    }

    pub(super) fn struct_def(&self, def: &TypeDef, s: &Struct, at: At<'_>) -> TokenStream {
        let rt = &self.rt;
        let docs = self.def_docs(def);
        let meta = meta_attrs(&def.meta);
        let name = format_ident!("{}", rust_type_name(&def.name));
        let wire: Vec<&str> = s.fields.iter().map(|f| f.name.as_str()).collect();
        let idx: Vec<Lit> = (0..s.fields.len()).map(Lit::usize_unsuffixed).collect();
        let slots: Vec<Ident> = (0..s.fields.len()).map(|i| format_ident!("f{i}")).collect();
        let mut members = Vec::new();
        let mut finish = Vec::new();
        let mut build = Vec::new();
        let mut writes = Vec::new();
        let mut schemas = Vec::new();
        let mut kept = Vec::new();
        for (i, f) in s.fields.iter().enumerate() {
            let boxed = self.model.analysis().recursion.is_boxed(&def.name, i);
            let schema = self.schema(self.model, &f.ty, at, boxed);
            let slot = &slots[i];
            let key = f.name.as_str();
            let ident = rust_ident(&rust_field(&f.name));
            let fdocs = self.field_docs(f);
            let fmeta = meta_attrs(&f.meta);
            let ty = self.rust_ty(self.model, &f.ty, at, boxed);
            let i_lit = &idx[i];
            match self.store(f) {
                Store::Literal => {
                    finish.push(quote!(let #slot = o.required(#i_lit, #slot, #schema);));
                    let lit = literal_value(self.model.unalias(&f.ty));
                    writes.push(quote!(map.serialize_entry(#key, &#lit)?;));
                    kept.push(false);
                }
                Store::Presence => {
                    finish.push(quote!(let #slot = o.present(#slot);));
                    members.push(quote!(#fdocs #fmeta pub #ident: bool,));
                    let lit = literal_value(self.model.unalias(&f.ty));
                    writes.push(quote!(if self.#ident { map.serialize_entry(#key, &#lit)?; }));
                    kept.push(true);
                }
                Store::Defaulted => {
                    let d = self.default_expr(f, &schema);
                    finish.push(quote!(let #slot = o.or_default(#slot, || #d);));
                    members.push(quote!(#fdocs #fmeta pub #ident: #ty,));
                    writes.push(quote!(map.serialize_entry(#key, &self.#ident)?;));
                    kept.push(true);
                }
                Store::Optional => {
                    finish.push(quote!(let #slot = o.optional(#slot);));
                    members.push(quote! {
                        #fdocs #fmeta pub #ident: ::core::option::Option<#ty>,
                    });
                    writes.push(quote!(if let ::core::option::Option::Some(v) = &self.#ident { map.serialize_entry(#key, v)?; }));
                    kept.push(true);
                }
                Store::Required => {
                    finish.push(quote!(let #slot = o.required(#i_lit, #slot, #schema);));
                    members.push(quote!(#fdocs #fmeta pub #ident: #ty,));
                    writes.push(quote!(map.serialize_entry(#key, &self.#ident)?;));
                    kept.push(true);
                }
            }
            if kept[i] {
                build.push(quote!(#ident: #slot,));
            }
            schemas.push(schema);
        }
        let lets = slots
            .iter()
            .map(|s| quote!(let mut #s = ::core::option::Option::None;));
        let arms = slots.iter().zip(&idx).zip(&schemas).map(
            |((slot, i), schema)| quote!(#i => o.value_into(&mut map, #i, #schema, &mut #slot)?,),
        );
        let loop_ = if s.fields.is_empty() {
            quote!(while o.next_key(&mut map, <Self as #rt::Object>::index)?.is_some() {})
        } else {
            quote! {
                while let ::core::option::Option::Some(i) = o.next_key(&mut map, <Self as #rt::Object>::index)? {
                    match i {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        };
        let destructure = lets_else(&slots, kept.iter().copied());
        let write_param = if writes.is_empty() {
            quote!(_map)
        } else {
            quote!(map)
        };
        let index_body = if s.fields.is_empty() {
            quote!(let _ = key; ::core::option::Option::None)
        } else {
            quote! {
                match key {
                    #(#wire => ::core::option::Option::Some(#idx),)*
                    _ => ::core::option::Option::None,
                }
            }
        };
        let common = self.common_impls(&name);
        let builder = self.builder_impl(def, s, at, &name);
        let mut view = self.struct_ref(def, s, at);
        if view.is_empty() {
            view = self.struct_view(def, s, at);
        }
        let literals: Vec<TokenStream> = self
            .model
            .required_literals(s)
            .into_iter()
            .map(|(key, l)| self.runtime_literal(key, l))
            .collect();
        let literals = if literals.is_empty() {
            quote!()
        } else {
            quote!(const LITERALS: &'static [(&'static str, #rt::Literal)] = &[#(#literals),*];)
        };
        let decode_impl = self.decode_impl(
            &name,
            quote!(#rt::Expect::Type("object")),
            quote!(#rt::decode_object::<Self, D>(d, cx)),
            Some(quote!(#rt::scan_object::<Self>(r))),
        );
        let scans: Vec<TokenStream> = schemas
            .iter()
            .map(|schema| quote!(#rt::Schema::scan(#schema, r)))
            .collect();
        let scan_body = scan_fields_body(
            rt,
            s,
            &slots,
            &scans,
            |f| self.store(f),
            |i| self.default_expr(&s.fields[i], &schemas[i]),
        );
        quote! {
            #docs
            #meta
            #[derive(Debug, Clone, PartialEq)]
            #[non_exhaustive]
            #[allow(deprecated)]
            pub struct #name {
                #(#members)*
            }

            #builder

            #[allow(deprecated)]
            impl #rt::Object for #name {
                const FIELDS: &'static [&'static str] = &[#(#wire),*];
                #literals
                fn index(key: &str) -> ::core::option::Option<usize> {
                    #index_body
                }
                fn visit<'de, A: #rt::serde::de::MapAccess<'de>>(
                    o: &mut #rt::ObjectCx<'_>,
                    mut map: A,
                ) -> ::core::result::Result<::core::option::Option<Self>, A::Error> {
                    #(#lets)*
                    #loop_
                    #(#finish)*
                    #destructure
                    ::core::result::Result::Ok(::core::option::Option::Some(Self { #(#build)* }))
                }
                #[inline]
                fn scan_fields(
                    r: &mut #rt::Scanner<'_>,
                    mut keys: #rt::Keys,
                ) -> ::core::option::Option<Self> {
                    #scan_body
                }
            }

            #decode_impl

            #[allow(deprecated)]
            impl #rt::WriteFields for #name {
                fn write_fields<M: #rt::serde::ser::SerializeMap>(&self, #write_param: &mut M) -> ::core::result::Result<(), M::Error> {
                    #(#writes)*
                    ::core::result::Result::Ok(())
                }
            }

            #[allow(deprecated)]
            impl #rt::serde::Serialize for #name {
                fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                    #rt::serialize_object(self, s)
                }
            }

            #common

            #view
        }
    }

    /// `Deserialize` (through the runtime, errors prettified) for a generated type.
    fn common_impls(&self, name: &Ident) -> TokenStream {
        let rt = &self.rt;
        quote! {
            #[allow(deprecated)]
            impl<'de> #rt::serde::Deserialize<'de> for #name {
                fn deserialize<D: #rt::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                    #rt::deserialize::<Self, D>(d)
                }
            }
        }
    }

    pub(super) fn enum_def(&self, def: &TypeDef, e: &Enum) -> TokenStream {
        let rt = &self.rt;
        let grows = self.grows(def);
        let docs = self.def_docs(def);
        let meta = meta_attrs(&def.meta);
        let name = format_ident!("{}", rust_type_name(&def.name));
        let values: Vec<&str> = e.values.iter().map(|v| v.value.as_str()).collect();
        let variants: Vec<Ident> = e
            .values
            .iter()
            .map(|v| format_ident!("{}", rust_type_name(&v.value)))
            .collect();
        let idx: Vec<Lit> = (0..values.len()).map(Lit::usize_unsuffixed).collect();
        let vdocs = e.values.iter().map(|v| {
            let mut d = if v.docs.is_empty() {
                let line = format!(" `\"{}\"` on the wire.", v.value);
                quote!(#[doc = #line])
            } else {
                docs_attrs(&v.docs)
            };
            if v.meta.legacy {
                let note =
                    " Legacy: accepted and written back unchanged; never produced by new code.";
                d.extend(quote!(#[doc = #note]));
            }
            d.extend(meta_attrs(&v.meta));
            d
        });
        let common = self.common_impls(&name);
        let other = open_variant(e);
        if e.open {
            let other_doc = " A value this schema does not list (the set is open).";
            let decode_impl = self.decode_impl(
                &name,
                quote!(#rt::Expect::Type("string")),
                quote! {
                    #rt::decode_open_enum(d, cx, |s| match &*s {
                        #(#values => Self::#variants,)*
                        _ => Self::#other(s.into_owned()),
                    })
                },
                Some(quote! {
                    const VALUES: &[#rt::Key] = &[#(#rt::Key::value(#values)),*];
                    ::core::option::Option::Some(match r.one_of(VALUES)? {
                        #(::core::result::Result::Ok(#idx) => Self::#variants,)*
                        ::core::result::Result::Ok(_) => return ::core::option::Option::None,
                        ::core::result::Result::Err(s) => Self::#other(s.into_owned()),
                    })
                }),
            );
            quote! {
                #docs
                #meta
                #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
                #grows
                pub enum #name {
                    #(#vdocs #variants,)*
                    #[doc = #other_doc]
                    #other(::std::string::String),
                }

                #[allow(deprecated)]
                impl #name {
                    /// The values this schema lists, as they travel.
                    pub const VALUES: &'static [&'static str] = &[#(#values),*];

                    /// The value as it travels.
                    pub fn as_str(&self) -> &str {
                        match self {
                            #(Self::#variants => #values,)*
                            Self::#other(s) => s,
                        }
                    }
                }

                #decode_impl

                #[allow(deprecated)]
                impl #rt::serde::Serialize for #name {
                    fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                        s.serialize_str(self.as_str())
                    }
                }

                impl ::core::fmt::Display for #name {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(self.as_str())
                    }
                }

                impl ::core::convert::From<&str> for #name {
                    fn from(s: &str) -> Self {
                        match s {
                            #(#values => Self::#variants,)*
                            _ => Self::#other(s.to_owned()),
                        }
                    }
                }

                #common
            }
        } else {
            let as_str_body = if variants.is_empty() {
                quote!(match *self {})
            } else {
                quote!(match self { #(Self::#variants => #values,)* })
            };
            let decode_impl = self.decode_impl(
                &name,
                quote!(#rt::Expect::OneOf(Self::VALUES)),
                quote! {
                    #rt::decode_enum(d, cx, Self::VALUES, |s| match s {
                        #(#values => ::core::option::Option::Some(Self::#variants),)*
                        _ => ::core::option::Option::None,
                    })
                },
                Some(quote! {
                    const VALUES: &[#rt::Key] = &[#(#rt::Key::value(#values)),*];
                    match r.one_of(VALUES)? {
                        #(::core::result::Result::Ok(#idx) => ::core::option::Option::Some(Self::#variants),)*
                        _ => ::core::option::Option::None,
                    }
                }),
            );
            quote! {
                #docs
                #meta
                #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
                #grows
                pub enum #name {
                    #(#vdocs #variants,)*
                }

                #[allow(deprecated)]
                impl #name {
                    /// Every value, as it travels.
                    pub const VALUES: &'static [&'static str] = &[#(#values),*];

                    /// The value as it travels.
                    pub const fn as_str(&self) -> &'static str {
                        #as_str_body
                    }
                }

                #decode_impl

                #[allow(deprecated)]
                impl #rt::serde::Serialize for #name {
                    fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                        s.serialize_str(self.as_str())
                    }
                }

                impl ::core::fmt::Display for #name {
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(self.as_str())
                    }
                }

                #common
            }
        }
    }

    /// `From` each variant's type for a union, so a value goes where the union is wanted
    /// (`.into()`, a setter's `impl Into`): for every variant that holds a named struct, union
    /// or enum no other variant holds (a hoisted inline object is always one).
    pub(super) fn union_froms(&self, def: &TypeDef, u: &Union, at: At<'_>) -> TokenStream {
        let name = format_ident!("{}", rust_type_name(&def.name));
        let mut held: Vec<(usize, String, TokenStream)> = Vec::new();
        for (i, v) in u.variants.iter().enumerate() {
            let TyKind::Ref(r) = &v.ty.kind else {
                continue;
            };
            let Some(target) = self.model.resolve(r) else {
                continue;
            };
            if matches!(target.kind, TypeDefKind::Alias(_)) {
                continue;
            }
            let path = self.type_path(self.model, r, at);
            let key = format!(
                "{}.{}",
                r.protocol.as_deref().unwrap_or(&self.model.name),
                r.name
            );
            held.push((i, key, path));
        }
        let mut out = TokenStream::new();
        for (i, key, path) in &held {
            if held.iter().filter(|(_, k, _)| k == key).count() > 1 {
                continue;
            }
            let v = &u.variants[*i];
            let ident = variant_ident(v, *i);
            let value = if self.model.analysis().recursion.is_boxed(&def.name, *i) {
                quote!(::std::boxed::Box::new(value))
            } else {
                quote!(value)
            };
            out.extend(quote! {
                #[allow(deprecated)]
                impl ::core::convert::From<#path> for #name {
                    fn from(value: #path) -> Self {
                        Self::#ident(#value)
                    }
                }
            });
        }
        out
    }

    pub(super) fn union_def(&self, def: &TypeDef, u: &Union, at: At<'_>) -> TokenStream {
        let rt = &self.rt;
        let grows = self.grows(def);
        let docs = self.def_docs(def);
        let meta = meta_attrs(&def.meta);
        let name = format_ident!("{}", rust_type_name(&def.name));
        let common = self.common_impls(&name);
        let mut variants = Vec::new();
        let mut idents = Vec::new();
        let mut schemas = Vec::new();
        let mut boxes = Vec::new();
        for (i, v) in u.variants.iter().enumerate() {
            let boxed = self.model.analysis().recursion.is_boxed(&def.name, i);
            let ident = variant_ident(v, i);
            let vdocs = self.variant_docs(u, v);
            let vmeta = meta_attrs(&v.meta);
            let ty = self.rust_ty(self.model, &v.ty, at, boxed);
            variants.push(quote!(#vdocs #vmeta #ident(#ty),));
            schemas.push(self.schema(self.model, &v.ty, at, boxed));
            idents.push(ident);
            boxes.push(boxed);
        }
        let derefs = boxes
            .iter()
            .map(|b| if *b { quote!(&**v) } else { quote!(v) });
        let empty = u.variants.is_empty();
        match &u.tag {
            UnionTag::Tagged { field, .. } => {
                let view = self.union_view(def, u, at, &idents, &boxes);
                let tags: Vec<&str> = u
                    .variants
                    .iter()
                    .map(|v| v.tag.as_deref().unwrap_or_default())
                    .collect();
                let ser_arms = idents.iter().zip(&tags).zip(derefs).map(|((id, t), d)| {
                    quote!(Self::#id(v) => #rt::serialize_tagged(#field, #t, #d, s),)
                });
                let ser_body = if empty {
                    quote!(match *self {})
                } else {
                    quote!(match self { #(#ser_arms)* })
                };
                let tag_body = if empty {
                    quote!(match *self {})
                } else {
                    quote!(match self { #(Self::#idents(_) => #tags,)* })
                };
                // The capability (`#[accepts]`) that gates each variant, and every distinct one.
                let mut accepts_all: Vec<&str> = Vec::new();
                let accepts_arms = u
                    .variants
                    .iter()
                    .filter_map(|v| {
                        let a = v.meta.accepts.as_deref()?;
                        if !accepts_all.contains(&a) {
                            accepts_all.push(a);
                        }
                        let t = v.tag.as_deref().unwrap_or_default();
                        Some(quote!(#t => ::core::option::Option::Some(#a),))
                    })
                    .collect::<Vec<_>>();
                // The fast reader finds the tag (first, or looked ahead for), then hands the
                // object to the variant's own key loop, which skips the tag key once.
                let scan_arms = u.variants.iter().enumerate().zip(&idents).zip(&boxes).map(
                    |(((i, v), id), boxed)| match &v.ty.kind {
                        TyKind::Ref(r) if self.is_struct(&v.ty) => {
                            let path = self.type_path(self.model, r, at);
                            let wrap = if *boxed {
                                quote!(::std::boxed::Box::new(v))
                            } else {
                                quote!(v)
                            };
                            let i = Lit::usize_unsuffixed(i);
                            quote! {
                                #i => <#path as #rt::Object>::scan_fields(r, keys).map(|v| Self::#id(#wrap)),
                            }
                        }
                        _ => TokenStream::new(),
                    },
                );
                let variant_keys = scan_variant_keys(rt, field, &tags);
                let decode_impl = self.decode_impl(
                    &name,
                    quote!(#rt::Expect::Type("object")),
                    quote!(#rt::decode_tagged::<Self, D>(d, cx)),
                    Some(quote! {
                        #variant_keys
                        let mut keys = r.object()?;
                        match r.variant(&mut keys, &TAG, VALUES)? {
                            #(#scan_arms)*
                            _ => ::core::option::Option::None,
                        }
                    }),
                );
                quote! {
                    #docs
                    #meta
                    #[derive(Debug, Clone, PartialEq)]
                    #grows
                    #[allow(deprecated)]
                    pub enum #name {
                        #(#variants)*
                    }

                    #[allow(deprecated)]
                    impl #name {
                        /// The key whose value picks the variant.
                        pub const TAG: &'static str = #field;
                        /// Every tag value, in order.
                        pub const TAGS: &'static [&'static str] = &[#(#tags),*];

                        /// This variant's tag value.
                        pub const fn tag(&self) -> &'static str {
                            #tag_body
                        }

                        /// Every capability (`#[accepts]`) that gates a variant, in order.
                        pub const ACCEPTS: &'static [&'static str] = &[#(#accepts_all),*];

                        /// The capability a peer must announce to receive the variant tagged
                        /// `tag`; `None` for the base set.
                        pub fn accepts_of(tag: &str) -> ::core::option::Option<&'static str> {
                            match tag {
                                #(#accepts_arms)*
                                _ => ::core::option::Option::None,
                            }
                        }

                        /// The capability a peer must announce to receive this variant.
                        pub fn accepts(&self) -> ::core::option::Option<&'static str> {
                            Self::accepts_of(self.tag())
                        }
                    }

                    #[allow(deprecated)]
                    impl #rt::Tagged for #name {
                        const TAG_KEY: &'static str = Self::TAG;
                        const TAG_VALUES: &'static [&'static str] = Self::TAGS;
                        #[allow(unused_variables)]
                        fn pick<'de, D: #rt::serde::Deserializer<'de>>(
                            tag: &str,
                            d: D,
                            cx: &mut #rt::Cx,
                        ) -> ::core::option::Option<::core::result::Result<::core::option::Option<Self>, D::Error>> {
                            match tag {
                                #(#tags => ::core::option::Option::Some(#rt::Schema::decode(#schemas, d, cx).map(|v| v.map(Self::#idents))),)*
                                _ => ::core::option::Option::None,
                            }
                        }
                    }

                    #decode_impl

                    #[allow(deprecated)]
                    impl #rt::serde::Serialize for #name {
                        fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                            #ser_body
                        }
                    }

                    #common

                    #view
                }
            }
            UnionTag::Untagged => {
                let ser_arms = idents
                    .iter()
                    .map(|id| quote!(Self::#id(v) => #rt::serde::Serialize::serialize(v, s),));
                let ser_body = if empty {
                    quote!(match *self {})
                } else {
                    quote!(match self { #(#ser_arms)* })
                };
                let objects = !empty && u.variants.iter().all(|v| self.is_struct(&v.ty));
                let mut view = if objects {
                    self.untagged_ref(def, u, at, &idents, &boxes)
                } else {
                    TokenStream::new()
                };
                if view.is_empty() {
                    view = self.union_view(def, u, at, &idents, &boxes);
                }
                let paths: Vec<TokenStream> = if objects {
                    u.variants
                        .iter()
                        .map(|v| match &v.ty.kind {
                            TyKind::Ref(r) => self.type_path(self.model, r, at),
                            _ => unreachable!("checked by is_struct"),
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                let scan = objects.then(|| {
                    let literals: Vec<TokenStream> = paths
                        .iter()
                        .map(|p| quote!(<#p as #rt::Object>::LITERALS))
                        .collect();
                    let scans: Vec<TokenStream> = paths
                        .iter()
                        .zip(&idents)
                        .zip(&boxes)
                        .map(|((p, id), boxed)| {
                            let wrap = if *boxed {
                                quote!(::std::boxed::Box::new(v))
                            } else {
                                quote!(v)
                            };
                            quote!(<#p as #rt::Decode>::scan(r).map(|v| Self::#id(#wrap)))
                        })
                        .collect();
                    untagged_scan_body(
                        &literals,
                        &scans,
                        !self.model.analysis().recursion.is_recursive(&def.name),
                    )
                });
                let decode_body = if objects {
                    // Every variant is a struct: read the object once, try only the variants
                    // its literal keys allow.
                    quote! {
                        #rt::decode_untagged_objects(d, cx, &[
                            #(#rt::ObjectVariant {
                                literals: <#paths as #rt::Object>::LITERALS,
                                decode: |e, cx| e.decode_with(#schemas, cx).map(|v| v.map(Self::#idents)),
                            },)*
                        ])
                    }
                } else {
                    quote! {
                        #rt::decode_untagged(d, cx, &[
                            #(|raw, cx| #rt::decode_raw_with(#schemas, raw, cx).map(|v| v.map(Self::#idents)),)*
                        ])
                    }
                };
                let decode_impl = self.decode_impl(
                    &name,
                    quote!(#rt::Expect::Fixed("Invalid input")),
                    decode_body,
                    scan,
                );
                quote! {
                    #docs
                    #meta
                    #[derive(Debug, Clone, PartialEq)]
                    #grows
                    #[allow(deprecated)]
                    pub enum #name {
                        #(#variants)*
                    }

                    #decode_impl

                    #[allow(deprecated)]
                    impl #rt::serde::Serialize for #name {
                        fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                            #ser_body
                        }
                    }

                    #common

                    #view
                }
            }
        }
    }
}
