//! emit::rust's type items: each alias, struct, enum and union of the schema as a Rust item
//! with its doc comments and derives, a struct's constructor and setters, a union's `From`
//! each variant's type, and how each is written (`Serialize`, `WriteFields`) and handed to
//! serde (`Deserialize`).

use super::block;
use super::docs::{docs_attrs, meta_attrs};
use super::paths::{open_variant, setter_ident, value_ident, variant_ident};
use super::scan::scan_keys;
use super::schema::literal_value;
use super::{At, Emitter, FieldCx, Store};
use crate::model::{Enum, Model, Struct, Ty, TyKind, TypeDef, TypeDefKind, Union, UnionTag};
use crate::names::rust_type_name;
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
    fn builder_impl(&self, name: &Ident, fields: &[FieldCx<'_>], open: bool) -> TokenStream {
        let mut params = Vec::new();
        let mut inits = Vec::new();
        if open {
            let rt = &self.rt;
            inits.push(quote!(extra: #rt::Rest::new(),));
        }
        let mut setters = Vec::new();
        for c in fields {
            let (f, ident, ty) = (c.f, &c.ident, &c.ty);
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
            match c.store {
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
                    let d = self.default_expr(f, &c.schema);
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

    /// A struct: its item (every field a member but a required literal's), its constructor and
    /// setters, its decoder and fast reader (`decode.rs`), how it is written; and apart, its
    /// view (for the module's `views`).
    pub(super) fn struct_def(
        &self,
        def: &TypeDef,
        s: &Struct,
        at: At<'_>,
    ) -> (TokenStream, TokenStream) {
        let rt = &self.rt;
        let docs = self.def_docs(def);
        let meta = meta_attrs(&def.meta);
        let name = format_ident!("{}", rust_type_name(&def.name));
        let fields = self.fields(def, s, at);
        let rest = self.rest(s, at);
        let mut members: Vec<TokenStream> = fields.iter().filter_map(|c| self.member(c)).collect();
        let builder = self.builder_impl(&name, &fields, rest.is_some());
        let object = self.object_impl(s, &name, &fields, rest.as_ref());
        let decode = self.decode_impl(
            &name,
            quote!(#rt::Expect::Type("object")),
            quote!(#rt::decode_object::<Self>(d, cx)),
            Some(quote!(#rt::scan_object::<Self>(r))),
        );
        let mut writes: Vec<TokenStream> = fields.iter().map(|c| self.write(c)).collect();
        if let Some(r) = &rest {
            let doc = match s.rest.as_ref().map(|r| r.docs.text()) {
                Some(d) if !d.trim().is_empty() => format!(" {}", d.trim()),
                _ => " Every other key of the object, with its value, in the order read (an open \
                       object: written back after the fields)."
                    .to_owned(),
            };
            let vty = &r.ty;
            members.push(quote!(#[doc = #doc] pub extra: #rt::Rest<#vty>,));
            let value = if r.number {
                quote!(&#rt::AsJs(v))
            } else {
                quote!(v)
            };
            // A key that names a field is the field's: never written twice.
            writes.push(quote! {
                for (k, v) in &self.extra {
                    if <Self as #rt::Object>::index(k).is_none() {
                        map.serialize_entry(k, #value)?;
                    }
                }
            });
        }
        let write_param = if writes.is_empty() {
            quote!(_map)
        } else {
            quote!(map)
        };
        let common = self.common_impls(&name);
        // The view's struct goes to the module's `views`, its impls to this type's block.
        let (view, view_impls) = block::split_impls(self.struct_view(def, s, at, &fields));
        let consts = fields.iter().filter_map(|c| c.schema_const.as_ref());
        let keys = scan_keys(rt, s);
        let item = quote! {
            #docs
            #meta
            #[derive(Debug, Clone, PartialEq)]
            #[non_exhaustive]
            #[allow(deprecated)]
            pub struct #name {
                #(#members)*
            }
        };
        let impls = quote! {
            #(#consts)*

            #keys

            #builder

            #object

            #decode

            /// The writer: each field present, in the schema's order.
            #[doc(hidden)]
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

            #view_impls
        };
        let block = self.impls_block(impls);
        (quote!(#item #block), view)
    }

    /// A struct's member for a field, by how it is stored (a required literal has none).
    fn member(&self, c: &FieldCx<'_>) -> Option<TokenStream> {
        let (ident, ty) = (&c.ident, &c.ty);
        let docs = self.field_docs(c.f);
        let meta = meta_attrs(&c.f.meta);
        Some(match c.store {
            Store::Literal => return None,
            Store::Presence => quote!(#docs #meta pub #ident: bool,),
            Store::Optional => quote!(#docs #meta pub #ident: ::core::option::Option<#ty>,),
            Store::Defaulted | Store::Required => quote!(#docs #meta pub #ident: #ty,),
        })
    }

    /// How `write_fields` writes a field: a literal as its value (an optional one when
    /// present), an optional field when set, any other as its member.
    fn write(&self, c: &FieldCx<'_>) -> TokenStream {
        let (key, ident) = (c.f.name.as_str(), &c.ident);
        let lit = || literal_value(self.model.unalias(&c.f.ty));
        match c.store {
            Store::Literal => {
                let lit = lit();
                quote!(map.serialize_entry(#key, &#lit)?;)
            }
            Store::Presence => {
                let lit = lit();
                quote!(if self.#ident { map.serialize_entry(#key, &#lit)?; })
            }
            Store::Optional if self.holds_number(self.model, &c.f.ty) => {
                let rt = &self.rt;
                quote!(if let ::core::option::Option::Some(v) = &self.#ident { map.serialize_entry(#key, &#rt::AsJs(v))?; })
            }
            Store::Optional => {
                quote!(if let ::core::option::Option::Some(v) = &self.#ident { map.serialize_entry(#key, v)?; })
            }
            Store::Defaulted | Store::Required if self.holds_number(self.model, &c.f.ty) => {
                let rt = &self.rt;
                quote!(map.serialize_entry(#key, &#rt::AsJs(&self.#ident))?;)
            }
            Store::Defaulted | Store::Required => {
                quote!(map.serialize_entry(#key, &self.#ident)?;)
            }
        }
    }

    /// Whether `ty` (written in `owner`) holds a `number` outside a named struct or union:
    /// such a value is written through `AsJs`, an integral number as an integer.
    pub(super) fn holds_number(&self, owner: &Model, ty: &Ty) -> bool {
        match &ty.kind {
            TyKind::Number(_) => true,
            TyKind::Array(inner, _) | TyKind::Map(inner) | TyKind::Nullable(inner) => {
                self.holds_number(owner, inner)
            }
            TyKind::Ref(r) => match owner.locate(r) {
                Some((m, def)) => match &def.kind {
                    TypeDefKind::Alias(inner) => self.holds_number(m, inner),
                    _ => false,
                },
                None => false,
            },
            _ => false,
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

    /// An enum: its item (a closed one `Copy`, an open one with a variant for a value it does
    /// not list), its values as they travel, its decoder (`decode.rs`) and how it is written.
    pub(super) fn enum_def(&self, def: &TypeDef, e: &Enum) -> TokenStream {
        let rt = &self.rt;
        let grows = self.grows(def);
        let docs = self.def_docs(def);
        let meta = meta_attrs(&def.meta);
        let name = format_ident!("{}", rust_type_name(&def.name));
        let values: Vec<&str> = e.strs().collect();
        let variants: Vec<Ident> = e.values.iter().map(value_ident).collect();
        let vdocs = e.values.iter().map(|v| {
            let mut d = if v.docs.is_empty() {
                let line = match v.as_str() {
                    Some(s) => format!(" `\"{s}\"` on the wire."),
                    None => format!(" `{}` on the wire.", v.shown()),
                };
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
        let decode_impl = self.enum_decode(e, &name);
        if e.is_int() {
            let vdocs: Vec<TokenStream> = vdocs.collect();
            let parts = EnumParts {
                name: &name,
                docs,
                meta,
                grows,
                vdocs: &vdocs,
                variants: &variants,
            };
            return self.int_enum_def(e, &parts, decode_impl, common);
        }
        // The item and its inherent impl; an open enum also converts from any `&str`.
        let (item, from_str) = if e.open {
            let other = open_variant(e);
            let other_doc = " A value this schema does not list (the set is open).";
            let item = quote! {
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
            };
            let from_str = quote! {
                impl ::core::convert::From<&str> for #name {
                    fn from(s: &str) -> Self {
                        match s {
                            #(#values => Self::#variants,)*
                            _ => Self::#other(s.to_owned()),
                        }
                    }
                }
            };
            (item, from_str)
        } else {
            let as_str_body = if variants.is_empty() {
                quote!(match *self {})
            } else {
                quote!(match self { #(Self::#variants => #values,)* })
            };
            let item = quote! {
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
            };
            (item, TokenStream::new())
        };
        let block = self.impls_block(quote! {
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

            #from_str

            #common
        });
        quote!(#item #block)
    }

    /// An integer enum (`enum Severity { Error = 1 }`): a `Copy` enum, its values as they
    /// travel (`value()`), an open one with `Other(i64)`; written as its integer.
    fn int_enum_def(
        &self,
        e: &Enum,
        p: &EnumParts<'_>,
        decode_impl: TokenStream,
        common: TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let EnumParts {
            name,
            docs,
            meta,
            grows,
            vdocs,
            variants,
        } = p;
        let ints: Vec<Lit> = e.ints().map(Lit::i64_unsuffixed).collect();
        let (other_variant, other_arm, from_int) = if e.open {
            let other = open_variant(e);
            let other_doc = " A value this schema does not list (the set is open).";
            (
                quote! {
                    #[doc = #other_doc]
                    #other(i64),
                },
                quote!(Self::#other(i) => *i,),
                quote! {
                    #[allow(deprecated)]
                    impl ::core::convert::From<i64> for #name {
                        fn from(i: i64) -> Self {
                            match i {
                                #(#ints => Self::#variants,)*
                                _ => Self::#other(i),
                            }
                        }
                    }
                },
            )
        } else {
            (TokenStream::new(), TokenStream::new(), TokenStream::new())
        };
        let value_body = if variants.is_empty() && !e.open {
            quote!(match *self {})
        } else {
            quote!(match self { #(Self::#variants => #ints,)* #other_arm })
        };
        let values_doc = if e.open {
            " The values this schema lists, as they travel."
        } else {
            " Every value, as it travels."
        };
        let item = quote! {
            #docs
            #meta
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #grows
            pub enum #name {
                #(#vdocs #variants,)*
                #other_variant
            }

            #[allow(deprecated)]
            impl #name {
                #[doc = #values_doc]
                pub const VALUES: &'static [i64] = &[#(#ints),*];

                /// The value as it travels.
                pub const fn value(&self) -> i64 {
                    #value_body
                }
            }
        };
        let block = self.impls_block(quote! {
            #decode_impl

            #[allow(deprecated)]
            impl #rt::serde::Serialize for #name {
                fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                    s.serialize_i64(self.value())
                }
            }

            impl ::core::fmt::Display for #name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::core::fmt::Display::fmt(&self.value(), f)
                }
            }

            impl ::core::convert::From<#name> for i64 {
                fn from(v: #name) -> i64 {
                    v.value()
                }
            }

            #from_int

            #common
        });
        quote!(#item #block)
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

    /// A union: its item (a variant per schema variant, a recursive one boxed), a tagged
    /// union's tags and capabilities, its decoder (`decode.rs`), how it is written; and apart,
    /// its view.
    pub(super) fn union_def(
        &self,
        def: &TypeDef,
        u: &Union,
        at: At<'_>,
    ) -> (TokenStream, TokenStream) {
        let rt = &self.rt;
        let grows = self.grows(def);
        let docs = self.def_docs(def);
        let meta = meta_attrs(&def.meta);
        let name = format_ident!("{}", rust_type_name(&def.name));
        let common = self.common_impls(&name);
        let vcs = self.variants(def, u, at);
        let variants = vcs.iter().map(|c| {
            let (ident, ty) = (&c.ident, &c.ty);
            let docs = self.variant_docs(u, c.v);
            let meta = meta_attrs(&c.v.meta);
            quote!(#docs #meta #ident(#ty),)
        });
        let idents: Vec<Ident> = vcs.iter().map(|c| c.ident.clone()).collect();
        let derefs = vcs
            .iter()
            .map(|c| if c.boxed { quote!(&**v) } else { quote!(v) });
        let empty = u.variants.is_empty();
        // A tagged union's inherent impl (its tags and capabilities), the arms of how each
        // variant is written, its decoder and its view.
        let (inherent, ser_arms, decode, view) = match &u.tag {
            UnionTag::Tagged { field, .. } => {
                let view = self.union_view(def, u, at, &vcs);
                let tags: Vec<&str> = u
                    .variants
                    .iter()
                    .map(|v| v.tag.as_deref().unwrap_or_default())
                    .collect();
                let ser_arms: Vec<TokenStream> = idents
                    .iter()
                    .zip(&tags)
                    .zip(derefs)
                    .zip(&u.variants)
                    .map(|(((id, t), d), v)| {
                        if self.is_open_struct(&v.ty) {
                            // The tag is written once, as the union's, even when code put the
                            // key in the variant's rest.
                            quote!(Self::#id(v) => if v.extra.contains_key(#field) {
                                let mut v = ::core::clone::Clone::clone(#d);
                                v.extra.shift_remove(#field);
                                #rt::serialize_tagged(#field, #t, &v, s)
                            } else {
                                #rt::serialize_tagged(#field, #t, #d, s)
                            },)
                        } else {
                            quote!(Self::#id(v) => #rt::serialize_tagged(#field, #t, #d, s),)
                        }
                    })
                    .collect();
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
                let decode = self.tagged_decode(&name, field, &tags, &vcs, at);
                let inherent = quote! {
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
                };
                (inherent, ser_arms, decode, view)
            }
            UnionTag::Untagged => {
                let ser_arms = idents
                    .iter()
                    .zip(&u.variants)
                    .map(|(id, v)| {
                        if self.holds_number(self.model, &v.ty) {
                            quote!(Self::#id(v) => #rt::serde::Serialize::serialize(&#rt::AsJs(v), s),)
                        } else {
                            quote!(Self::#id(v) => #rt::serde::Serialize::serialize(v, s),)
                        }
                    })
                    .collect();
                let objects = !empty && u.variants.iter().all(|v| self.is_struct(&v.ty));
                let mut view = if objects {
                    self.untagged_ref(def, u, at, &vcs)
                } else {
                    TokenStream::new()
                };
                if view.is_empty() {
                    view = self.union_view(def, u, at, &vcs);
                }
                let decode = self.untagged_decode(def, &name, objects, &vcs, at);
                (TokenStream::new(), ser_arms, decode, view)
            }
        };
        let ser_body = if empty {
            quote!(match *self {})
        } else {
            quote!(match self { #(#ser_arms)* })
        };
        let item = quote! {
            #docs
            #meta
            #[derive(Debug, Clone, PartialEq)]
            #grows
            #[allow(deprecated)]
            pub enum #name {
                #(#variants)*
            }
        };
        let froms = self.union_froms(def, u, at);
        // The view's enum goes to the module's `views`, its impls to this type's block.
        let (view, view_impls) = block::split_impls(view);
        let impls = quote! {
            #inherent

            #decode

            #[allow(deprecated)]
            impl #rt::serde::Serialize for #name {
                fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                    #ser_body
                }
            }

            #common

            #froms

            #view_impls
        };
        let block = self.impls_block(impls);
        (quote!(#item #block), view)
    }
}

/// What [`Emitter::enum_def`] made of an enum before it tells strings from integers.
struct EnumParts<'a> {
    name: &'a Ident,
    docs: TokenStream,
    meta: TokenStream,
    grows: TokenStream,
    vdocs: &'a [TokenStream],
    variants: &'a [Ident],
}
