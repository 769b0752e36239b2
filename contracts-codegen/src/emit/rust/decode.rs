//! emit::rust's decoders: `Decode` for every generated type (what a value must look like and
//! how it is read into the runtime's `Cx`, every issue with its path): a struct's `Object` (its
//! keys and its field loop; its fast reader's key loop from `scan.rs`), an enum's values, a
//! tagged union's `Tagged` (the tag picks the variant), an untagged union's tries; and the end
//! of a generated field loop.

use super::paths::{map_read, open_variant, value_ident};
use super::{At, Emitter, FieldCx, RestCx, Store, VariantCx};
use crate::model::{Enum, Struct, TyKind, TypeDef};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::quote;

impl Emitter<'_> {
    /// `Object` for a struct: its keys and required literals, the index of a key, the field
    /// loop that reads every key into its slot and checks the slots once the keys ended
    /// (`visit`), and the fast reader's key loop (`scan_fields`).
    pub(super) fn object_impl(
        &self,
        s: &Struct,
        name: &Ident,
        fields: &[FieldCx<'_>],
        rest: Option<&RestCx>,
    ) -> TokenStream {
        let rt = &self.rt;
        let wire = fields.iter().map(|c| c.f.name.as_str());
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
        let index_body = if fields.is_empty() {
            quote!(let _ = key; ::core::option::Option::None)
        } else {
            let keys = fields.iter().map(|c| c.f.name.as_str());
            let idx = fields.iter().map(|c| Lit::usize_unsuffixed(c.i));
            quote! {
                match key {
                    #(#keys => ::core::option::Option::Some(#idx),)*
                    _ => ::core::option::Option::None,
                }
            }
        };
        let slots: Vec<&Ident> = fields.iter().map(|c| &c.slot).collect();
        // An open struct's key loop reads every other key into its rest.
        let next = match rest {
            Some(r) => {
                let schema = &r.schema;
                quote!(o.next_key_rest(map, <Self as #rt::Object>::index, &#schema, &mut rest)?)
            }
            None => quote!(o.next_key(map, <Self as #rt::Object>::index)?),
        };
        let (rest_let, rest_finish, rest_build) = match rest {
            Some(_) => (
                quote!(let mut rest = #rt::RestSlot::default();),
                quote! {
                    let ::core::option::Option::Some(extra) = rest.finish() else {
                        return ::core::result::Result::Ok(());
                    };
                },
                quote!(extra,),
            ),
            None => (quote!(), quote!(), quote!()),
        };
        let loop_ = if fields.is_empty() {
            quote!(while #next.is_some() {})
        } else {
            let arms = fields.iter().map(|c| {
                let (i, slot, schema) = (Lit::usize_unsuffixed(c.i), &c.slot, &c.schema);
                quote!(#i => o.value_into(map, #i, #schema, &mut #slot),)
            });
            quote! {
                while let ::core::option::Option::Some(i) = #next {
                    match i {
                        #(#arms)*
                        _ => ::core::result::Result::Ok(()),
                    }?;
                }
            }
        };
        let finish = fields.iter().map(|c| self.finish(c));
        let kept = fields.iter().map(|c| !matches!(c.store, Store::Literal));
        let owned_slots: Vec<Ident> = slots.iter().map(|s| (*s).clone()).collect();
        let destructure =
            lets_else_with(&owned_slots, kept, &quote!(::core::result::Result::Ok(())));
        let build = fields
            .iter()
            .filter(|c| !matches!(c.store, Store::Literal))
            .map(|c| {
                let (ident, slot) = (&c.ident, &c.slot);
                quote!(#ident: #slot,)
            });
        // An open struct's fast reader is never sure: its decoder keeps the other keys.
        let scan_body = if rest.is_some() {
            quote!(let _ = (r, &mut keys); ::core::option::Option::None)
        } else {
            self.struct_scan(s, fields)
        };
        quote! {
            /// The decoder's key loop: the fields by key, each read into its slot.
            #[doc(hidden)]
            #[allow(deprecated)]
            impl #rt::Object for #name {
                const FIELDS: &'static [&'static str] = &[#(#wire),*];
                #literals
                fn index(key: &str) -> ::core::option::Option<usize> {
                    #index_body
                }
                fn visit<'de>(
                    o: &mut #rt::ObjectCx<'_>,
                    map: &mut dyn #rt::SrcMap<'de>,
                    out: &mut ::core::option::Option<Self>,
                ) -> #rt::Read<()> {
                    #(let mut #slots = ::core::option::Option::None;)*
                    #rest_let
                    #loop_
                    #(#finish)*
                    #destructure
                    #rest_finish
                    *out = ::core::option::Option::Some(Self { #(#build)* #rest_build });
                    ::core::result::Result::Ok(())
                }
                #[inline]
                fn scan_fields(
                    r: &mut #rt::Scanner<'_>,
                    mut keys: #rt::Keys,
                ) -> ::core::option::Option<Self> {
                    #scan_body
                }
            }
        }
    }

    /// `Decode` for an enum: one of its values (an open enum's any string, a value it does not
    /// list kept as it travels); the fast reader matches the value as words (`scan.rs`).
    pub(super) fn enum_decode(&self, e: &Enum, name: &Ident) -> TokenStream {
        let rt = &self.rt;
        let values = e.strs();
        let variants = e.values.iter().map(value_ident);
        let scan = Some(self.enum_scan(e));
        if e.is_int() {
            // An open one reads as `int` does, and keeps any integer; a closed one takes only
            // the listed integers (`1.0` and `1e0` are 1).
            let ints = e.ints().map(proc_macro2::Literal::i64_unsuffixed);
            return if e.open {
                self.decode_impl(
                    name,
                    quote!(#rt::Expect::Type("number")),
                    quote!(#rt::decode_open_int_enum(d, cx, <Self as ::core::convert::From<i64>>::from)),
                    scan,
                )
            } else {
                self.decode_impl(
                    name,
                    quote!(#rt::Expect::OneOfInt(Self::VALUES)),
                    quote! {
                        #rt::decode_int_enum(d, cx, Self::VALUES, |i| match i {
                            #(#ints => ::core::option::Option::Some(Self::#variants),)*
                            _ => ::core::option::Option::None,
                        })
                    },
                    scan,
                )
            };
        }
        if e.open {
            let other = open_variant(e);
            self.decode_impl(
                name,
                quote!(#rt::Expect::Type("string")),
                quote! {
                    #rt::decode_open_enum(d, cx, |s| match &*s {
                        #(#values => Self::#variants,)*
                        _ => Self::#other(s.into_owned()),
                    })
                },
                scan,
            )
        } else {
            self.decode_impl(
                name,
                quote!(#rt::Expect::OneOf(Self::VALUES)),
                quote! {
                    #rt::decode_enum(d, cx, Self::VALUES, |s| match s {
                        #(#values => ::core::option::Option::Some(Self::#variants),)*
                        _ => ::core::option::Option::None,
                    })
                },
                scan,
            )
        }
    }

    /// `Tagged` and `Decode` for a tagged union: the tag picks the variant's decoder; the fast
    /// reader finds the tag and hands the object to the variant's key loop (`scan.rs`).
    pub(super) fn tagged_decode(
        &self,
        name: &Ident,
        field: &str,
        tags: &[&str],
        variants: &[VariantCx<'_>],
        at: At<'_>,
    ) -> TokenStream {
        let rt = &self.rt;
        let picks = variants.iter().map(|c| {
            let (schema, ident) = (&c.schema, &c.ident);
            // An open variant read the tag key as one of its other keys: the key is the
            // union's, so it is taken out of the rest again.
            let body = if self.is_open_struct(&c.v.ty) {
                quote!({
                    let mut v = v;
                    v.extra.shift_remove(#field);
                    Self::#ident(v)
                })
            } else {
                quote!(Self::#ident(v))
            };
            map_read(quote!(#rt::Schema::decode(#schema, d, cx)), body)
        });
        let decode = self.decode_impl(
            name,
            quote!(#rt::Expect::Type("object")),
            quote!(#rt::decode_tagged::<Self>(d, cx)),
            Some(self.tagged_scan(field, tags, variants, at)),
        );
        quote! {
            /// The tagged union's reader: its tag key first, then the variant it names.
            #[doc(hidden)]
            #[allow(deprecated)]
            impl #rt::Tagged for #name {
                const TAG_KEY: &'static str = Self::TAG;
                const TAG_VALUES: &'static [&'static str] = Self::TAGS;
                #[allow(unused_variables)]
                fn pick<'de>(
                    tag: &str,
                    d: &mut dyn #rt::Src<'de>,
                    cx: &mut #rt::Cx,
                ) -> ::core::option::Option<#rt::Read<::core::option::Option<Self>>> {
                    match tag {
                        #(#tags => ::core::option::Option::Some(#picks),)*
                        _ => ::core::option::Option::None,
                    }
                }
            }

            #decode
        }
    }

    /// `Decode` for an untagged union: the first variant that reads the value. A union of
    /// structs (`objects`) reads the object once and tries only the variants its literal keys
    /// allow, and has a fast reader (`scan.rs`); any other reads the value raw, once per try.
    pub(super) fn untagged_decode(
        &self,
        def: &TypeDef,
        name: &Ident,
        objects: bool,
        variants: &[VariantCx<'_>],
        at: At<'_>,
    ) -> TokenStream {
        let rt = &self.rt;
        // Each variant's decode, its value wrapped as the union's: `read` the variant's.
        let wrapped = |read: &dyn Fn(&TokenStream) -> TokenStream| -> Vec<TokenStream> {
            variants
                .iter()
                .map(|c| {
                    let ident = &c.ident;
                    map_read(read(&c.schema), quote!(Self::#ident(v)))
                })
                .collect()
        };
        // One variant that names a type: the union is that type, as Zod runs a one-option
        // union's option alone (its issues, its expectation), not `Invalid input`.
        if let [only] = variants
            && let TyKind::Ref(r) = &only.v.ty.kind
        {
            let path = self.type_path(self.model, r, at);
            let (ident, schema) = (&only.ident, &only.schema);
            let body = map_read(
                quote!(#rt::Schema::decode(#schema, d, cx)),
                quote!(Self::#ident(v)),
            );
            let scan = quote!(#rt::Schema::scan(#schema, r).map(Self::#ident));
            return self.decode_impl(
                name,
                quote!(<#path as #rt::Decode>::EXPECT),
                body,
                Some(scan),
            );
        }
        let (body, scan) = if objects {
            let paths: Vec<TokenStream> = variants
                .iter()
                .map(|c| match &c.v.ty.kind {
                    TyKind::Ref(r) => self.type_path(self.model, r, at),
                    _ => unreachable!("checked by is_struct"),
                })
                .collect();
            // Every variant is a struct: read the object once, try only the variants its
            // literal keys allow.
            let decodes = wrapped(&|schema| quote!(e.decode_with(#schema, cx)));
            let body = quote! {
                #rt::decode_untagged_objects(d, cx, &[
                    #(#rt::ObjectVariant {
                        literals: <#paths as #rt::Object>::LITERALS,
                        decode: |e, cx| #decodes,
                    },)*
                ])
            };
            (
                body,
                Some(self.untagged_objects_scan(def, variants, &paths)),
            )
        } else {
            let tries = wrapped(&|schema| quote!(#rt::decode_raw_with(#schema, raw, cx)));
            let body = quote! {
                #rt::decode_untagged(d, cx, &[
                    #(|raw, cx| #tries,)*
                ])
            };
            (body, None)
        };
        self.decode_impl(
            name,
            quote!(#rt::Expect::Fixed("Invalid input")),
            body,
            scan,
        )
    }

    /// The field loop's check of a field's slot once the keys ended, by how it is stored: a
    /// required one (a literal too) must be there, an optional literal is whether it was, a
    /// defaulted one is its default when absent.
    fn finish(&self, c: &FieldCx<'_>) -> TokenStream {
        let (i, slot, schema) = (Lit::usize_unsuffixed(c.i), &c.slot, &c.schema);
        match c.store {
            Store::Literal | Store::Required => quote!(let #slot = o.required(#i, #slot, #schema);),
            Store::Presence => quote!(let #slot = o.present(#slot);),
            Store::Defaulted => {
                let d = self.default_expr(c.f, schema);
                quote!(let #slot = o.or_default(#slot, || #d);)
            }
            Store::Optional => quote!(let #slot = o.optional(#slot);),
        }
    }

    /// `Decode` for a generated type: what its value must look like (`expect`, the message of a
    /// value of the wrong JSON type) and the body of `decode`, which reads `d` into `cx`.
    /// `scan` is the body of the fast reader (`wire::scan`), which reads `r`; `None` leaves
    /// every value to `decode` (an untagged union).
    pub(super) fn decode_impl(
        &self,
        name: &Ident,
        expect: TokenStream,
        body: TokenStream,
        scan: Option<TokenStream>,
    ) -> TokenStream {
        let rt = &self.rt;
        let scan = scan.map(|scan| {
            quote! {
                #[inline]
                fn scan(r: &mut #rt::Scanner<'_>) -> ::core::option::Option<Self> {
                    #scan
                }
            }
        });
        quote! {
            /// Readers: the decoder (every issue, with its path) and the fast reader.
            #[doc(hidden)]
            #[allow(deprecated)]
            impl #rt::Decode for #name {
                const EXPECT: #rt::Expect = #expect;
                fn decode<'de>(
                    d: &mut dyn #rt::Src<'de>,
                    cx: &mut #rt::Cx,
                ) -> #rt::Read<::core::option::Option<Self>> {
                    #body
                }
                #scan
            }
        }
    }
}

/// The end of a generated field loop: one `let else` per slot, `kept` saying which hold a
/// member (every issue is recorded by now). No tuple of the slots, so a large value is not
/// copied into one and out again.
pub(super) fn lets_else(slots: &[Ident], kept: impl IntoIterator<Item = bool>) -> TokenStream {
    lets_else_with(
        slots,
        kept,
        &quote!(::core::result::Result::Ok(::core::option::Option::None)),
    )
}

/// [`lets_else`] with what an invalid object returns.
pub(super) fn lets_else_with(
    slots: &[Ident],
    kept: impl IntoIterator<Item = bool>,
    invalid: &TokenStream,
) -> TokenStream {
    let lets = slots.iter().zip(kept).map(|(s, k)| {
        let pat = if k {
            quote!(::core::option::Option::Some(#s))
        } else {
            quote!(::core::option::Option::Some(_))
        };
        quote! {
            let #pat = #s else {
                return #invalid;
            };
        }
    });
    quote!(#(#lets)*)
}
