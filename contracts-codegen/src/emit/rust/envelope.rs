//! emit::rust's flat borrowed views of the frame envelopes (`RequestRef<'a>`,
//! `ServerFrameRef<'a>`): a struct whose fields are strings, `unknown` values and literals, one
//! of them `unknown`, gets a view that decodes itself with the struct's keys, limits and
//! messages, its strings and raw values borrowed; an untagged union of such structs gets one
//! whose variants are their views. A typed frame's other fields (JSON-RPC's `id`) are held
//! owned, read by their own decoder and fast reader.

use super::decode::lets_else;
use super::paths::{map_read, map_some};
use super::scan::{scan_fields_body, untagged_scan_body};
use super::view::{Convert, variant_arm};
use super::{At, Emitter, FieldCx, RestCx, Store, VariantCx};
use crate::model::{Struct, TyKind, TypeDef, TypeDefKind, Union};
use crate::names::rust_type_name;
use crate::names::view_name;
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};
use std::ops::Deref;

/// How a flat view holds a field's value.
#[derive(Clone, Copy)]
enum Kind {
    /// A string, as `Cow<'a, str>`.
    Str,
    /// An `unknown` value, as `Cow<'a, RawValue>`.
    Unknown,
    /// A literal: checked, and held as whether it was there when optional.
    Literal,
    /// Any other value (a typed frame's `id: RequestId`): the owned value, read by its schema.
    Owned,
}

/// A struct's flat view as its jobs see it: the struct, the owned type's name, the view's, and
/// each field.
pub(super) struct FlatView<'a> {
    pub(super) def: &'a TypeDef,
    pub(super) s: &'a Struct,
    pub(super) name: Ident,
    pub(super) view: Ident,
    pub(super) fields: Vec<FlatField<'a>>,
}

/// One field of a flat view (the struct's field, [`FieldCx`]), with the templates of what the
/// view's decoder and fast reader hold for it.
pub(super) struct FlatField<'a> {
    rt: &'a TokenStream,
    c: &'a FieldCx<'a>,
    kind: Kind,
}

impl<'a> Deref for FlatField<'a> {
    type Target = FieldCx<'a>;

    fn deref(&self) -> &FieldCx<'a> {
        self.c
    }
}

impl FlatField<'_> {
    fn index(&self) -> Lit {
        Lit::usize_unsuffixed(self.i)
    }

    /// Whether the view has a member for the field (a required literal has none).
    pub(super) fn kept(&self) -> bool {
        !matches!(self.store, Store::Literal)
    }

    /// Whether the view holds the field's owned value.
    pub(super) fn owned(&self) -> bool {
        matches!(self.kind, Kind::Owned)
    }

    /// A string's or raw value's `SchemaRef` value; `None` for a literal or an owned value.
    fn value_ref(&self) -> Option<TokenStream> {
        let (rt, schema) = (self.rt, &self.schema);
        match self.kind {
            Kind::Literal | Kind::Owned => None,
            Kind::Str => Some(quote!(#rt::StrRef(#schema))),
            Kind::Unknown => Some(quote!(#rt::UnknownRef)),
        }
    }

    /// The decoder's arm for the field's key: its value read into the slot.
    pub(super) fn arm(&self) -> TokenStream {
        let (i, slot) = (self.index(), &self.slot);
        match self.value_ref() {
            None => {
                let schema = &self.schema;
                quote!(#i => o.value_into(map, #i, #schema, &mut #slot),)
            }
            Some(value) => {
                quote!(#i => o.value_ref_into(map, #i, #value, &mut #slot),)
            }
        }
    }

    /// The decoder's check of the slot once the keys ended.
    pub(super) fn finish(&self) -> TokenStream {
        let (i, slot, schema) = (self.index(), &self.slot, &self.schema);
        match (self.kind, self.store) {
            (Kind::Literal, Store::Literal) => quote!(let #slot = o.required(#i, #slot, #schema);),
            (Kind::Literal, _) => quote!(let #slot = o.present(#slot);),
            _ if self.f.optional => quote!(let #slot = o.optional(#slot);),
            _ => quote!(let #slot = o.required(#i, #slot, #schema);),
        }
    }

    /// The fast reader of the field's value.
    pub(super) fn scan(&self) -> TokenStream {
        let rt = self.rt;
        match self.value_ref() {
            None => {
                let schema = &self.schema;
                quote!(#rt::Schema::scan(#schema, r))
            }
            Some(value) => quote!(#rt::SchemaRef::scan(#value, r)),
        }
    }
}

impl Emitter<'_> {
    /// Whether this model's struct `def` has a flat view (`analysis::text::flats`).
    pub(super) fn has_flat_view(&self, def: &TypeDef) -> bool {
        self.model.analysis().flats.contains(&def.name)
    }

    /// The flat view of the struct `def` (`s`), if it has one, `fields` its fields.
    pub(super) fn flat_view<'a>(
        &'a self,
        def: &'a TypeDef,
        s: &'a Struct,
        fields: &'a [FieldCx<'a>],
    ) -> Option<FlatView<'a>> {
        if !self.has_flat_view(def) {
            return None;
        }
        let fields = fields
            .iter()
            .map(|c| FlatField {
                rt: &self.rt,
                c,
                kind: match self.model.unalias(&c.f.ty).kind {
                    TyKind::String(_, None) => Kind::Str,
                    TyKind::Unknown => Kind::Unknown,
                    TyKind::Literal(_) => Kind::Literal,
                    _ => Kind::Owned,
                },
            })
            .collect();
        Some(FlatView {
            def,
            s,
            name: format_ident!("{}", rust_type_name(&def.name)),
            view: format_ident!("{}", rust_type_name(&view_name(&def.name))),
            fields,
        })
    }

    /// A struct's borrowed view, `NameRef<'a>`, when it is flat (the frame envelopes), `flat`:
    /// its strings are `Cow<'a, str>` and its raw values `Cow<'a, RawValue>`, borrowed from
    /// the input when it lends them, so the envelope stage copies nothing. It decodes with the
    /// struct's own keys, limits and messages.
    pub(super) fn struct_ref(&self, at: At<'_>, flat: &FlatView<'_>) -> TokenStream {
        let rt = &self.rt;
        let FlatView {
            s,
            name,
            view,
            fields,
            ..
        } = flat;
        let doc = format!(
            " A borrowed view of [`{name}`]: its strings and raw values borrow from the input \
             when it lends them. Same keys, limits and messages."
        );
        let cxs: Vec<&FieldCx> = fields.iter().map(|f| f.c).collect();
        let owned_at: Vec<usize> = fields.iter().filter(|f| f.owned()).map(|f| f.i).collect();
        let held_owned = |c: &FieldCx<'_>| owned_at.contains(&c.i);
        // An open frame's view holds its rest owned, read by the rest-collecting key loop.
        let rest = self.rest(s, at);
        let [item, owned, from_owned] =
            self.view_struct(&doc, name, view, &cxs, at, &held_owned, rest.as_ref());
        let slots: Vec<Ident> = fields.iter().map(|f| f.slot.clone()).collect();
        let arms = fields.iter().map(FlatField::arm);
        let finish = fields.iter().map(FlatField::finish);
        let kept: Vec<&FlatField> = fields.iter().filter(|f| f.kept()).collect();
        let build = kept.iter().map(|f| {
            let (ident, slot) = (&f.ident, &f.slot);
            quote!(#ident: #slot,)
        });
        let lets_else = lets_else(&slots, fields.iter().map(FlatField::kept));
        let scans: Vec<TokenStream> = fields.iter().map(FlatField::scan).collect();
        // An open frame's fast reader is never sure, as the owned struct's: its decoder keeps
        // the other keys.
        let view_scan = if rest.is_some() {
            quote!(let _ = (r, &mut keys); ::core::option::Option::None)
        } else {
            scan_fields_body(
                s,
                &slots,
                &scans,
                |f| self.store(f),
                |_| {
                    // A view's fields are strings, `unknown` values and literals: none has a
                    // default.
                    TokenStream::new()
                },
            )
        };
        let typed = self.struct_typed(at, flat);
        let object_view = self.object_view_impl(view, view_scan);
        let inherent = self.inherent_impl(name, view, owned);
        let decode = Some(quote!(#rt::decode_object_ref::<Self>(d, cx)));
        let scan = if rest.is_some() {
            quote!(let _ = r; ::core::option::Option::None)
        } else {
            quote!(#rt::scan_object_view::<Self>(r))
        };
        let [rest_let, next, rest_finish, rest_build] = rest_loop(
            rt,
            rest.as_ref(),
            &quote!(<Self as #rt::ObjectRef<'de>>::index),
            &quote!(::core::option::Option::None),
        );
        let decode_ref = self.decode_ref_impl(name, view, from_owned, decode, scan);
        quote! {
            #item

            #typed

            #inherent

            #[doc(hidden)]
            #[allow(deprecated)]
            impl<'de> #rt::ObjectRef<'de> for #view<'de> {
                const FIELDS: &'static [&'static str] = <#name as #rt::Object>::FIELDS;
                fn index(key: &str) -> ::core::option::Option<usize> {
                    <#name as #rt::Object>::index(key)
                }
                fn visit(
                    o: &mut #rt::ObjectCx<'_>,
                    map: &mut dyn #rt::SrcMap<'de>,
                ) -> #rt::Read<::core::option::Option<Self>> {
                    #(let mut #slots = ::core::option::Option::None;)*
                    #rest_let
                    while let ::core::option::Option::Some(i) = #next {
                        match i {
                            #(#arms)*
                            _ => ::core::result::Result::Ok(()),
                        }?;
                    }
                    #(#finish)*
                    #lets_else
                    #rest_finish
                    ::core::result::Result::Ok(::core::option::Option::Some(Self { #(#build)* #rest_build }))
                }
            }

            #decode_ref

            #object_view
        }
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
        variants: &[VariantCx<'_>],
    ) -> TokenStream {
        let view_name = view_name(&def.name);
        let grows = self.grows(def);
        if u.variants.is_empty() || variants.iter().any(|c| c.boxed) || !self.def_has_view(def) {
            return TokenStream::new();
        }
        let mut parts = Vec::new();
        let mut structs = Vec::new();
        for c in variants {
            let (v, id) = (c.v, &c.ident);
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
                .has_flat_view(vdef)
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
                    scans.push(map_some(
                        quote!(<#vp<'de> as #rt::DecodeRef<'de>>::scan(r)),
                        quote!(Self::#id(v)),
                    ));
                    members.push(quote!(#[doc = #vdoc] #id(#vp<'a>),));
                    let view = quote!(<#vp<'de> as #rt::DecodeRef<'de>>::from_owned(v));
                    let view_decode = map_read(
                        quote!(<#vp<'de> as #rt::DecodeRef<'de>>::decode(&mut e, cx)),
                        quote!(Self::#id(v)),
                    );
                    let owned_decode = map_read(
                        quote!(<#path as #rt::Decode>::decode(&mut e, cx)),
                        quote!(Self::#id(#view)),
                    );
                    to_owned.push(variant_arm(
                        Convert::IntoOwned,
                        &name,
                        id,
                        quote!(v.into_owned()),
                    ));
                    from_owned.push(variant_arm(Convert::FromOwned, &name, id, view));
                    variants.push(quote!(#rt::ObjectVariantRef {
                        literals: <#path as #rt::Object>::LITERALS,
                        decode: |mut e, cx| #view_decode,
                        owned: |mut e, cx| #owned_decode,
                    },));
                }
                None => {
                    scans.push(map_some(
                        quote!(<#path as #rt::Decode>::scan(r)),
                        quote!(Self::#id(v)),
                    ));
                    members.push(quote!(#[doc = #vdoc] #id(#path),));
                    to_owned.push(variant_arm(Convert::IntoOwned, &name, id, quote!(v)));
                    from_owned.push(variant_arm(Convert::FromOwned, &name, id, quote!(v)));
                    let owned_decode = map_read(
                        quote!(<#path as #rt::Decode>::decode(&mut e, cx)),
                        quote!(Self::#id(v)),
                    );
                    variants.push(quote!(#rt::ObjectVariantRef {
                        literals: <#path as #rt::Object>::LITERALS,
                        decode: |mut e, cx| #owned_decode,
                        owned: |mut e, cx| #owned_decode,
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
        let item = self.view_enum(&doc, &grows, &view, &members);
        let inherent = self.inherent_impl(&name, &view, quote!(match self { #(#to_owned)* }));
        let decode_ref = self.decode_ref_impl(
            &name,
            &view,
            quote!(match owned { #(#from_owned)* }),
            Some(quote!(#rt::decode_untagged_objects_ref(d, cx, &[#(#variants)*]))),
            scan,
        );
        quote! {
            #item

            #typed

            #inherent

            #decode_ref
        }
    }
}

/// The parts of a view's or typed form's key loop for an open frame's rest (`rest`), as the
/// owned struct's decoder has them (`emit::rust::decode`): the rest's slot, the key loop's
/// next key (`index` the struct's index; a closed frame's `o.next_key`), the rest checked
/// once the keys ended (`invalid` what an invalid one returns) and its member.
pub(super) fn rest_loop(
    rt: &TokenStream,
    rest: Option<&RestCx>,
    index: &TokenStream,
    invalid: &TokenStream,
) -> [TokenStream; 4] {
    match rest {
        Some(r) => {
            let schema = &r.schema;
            [
                quote!(let mut rest = #rt::RestSlot::default();),
                quote!(o.next_key_rest(map, #index, &#schema, &mut rest)?),
                quote! {
                    let ::core::option::Option::Some(extra) = rest.finish() else {
                        return ::core::result::Result::Ok(#invalid);
                    };
                },
                quote!(extra,),
            ]
        }
        None => [
            TokenStream::new(),
            quote!(o.next_key(map, #index)?),
            TokenStream::new(),
            TokenStream::new(),
        ],
    }
}
