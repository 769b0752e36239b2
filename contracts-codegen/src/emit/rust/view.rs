//! Borrowed views of whole values (`wire::view`): `NameRef<'a>` beside every struct and union
//! that holds text (a string, an `unknown` value, a map's keys), and `EventPayloadRef<'a>`,
//! `RequestPayloadRef<'a>` beside the tables' by-name enums.
//!
//! A view has the owned type's shape with every string a `Cow<'a, str>`, every `unknown` a
//! `Cow<'a, RawValue>` and every value of a type that holds text that type's view. Its fast
//! reader is written from the same schema values as the owned type's (`ScanRef`s instead of
//! `Schema`s); its decoder is the owned type's, the view made from the result. The flat views
//! of the frame envelopes (`RequestRef`, `ServerFrameRef`, see `struct_ref`) are views too:
//! a view that holds one uses it.

use super::paths::map_some;
use super::scan::{match_name, scan_fields_body, scan_variant_keys, untagged_scan_body};
use super::tables::{BaseTable, ByName, scan_bases};
use super::{At, Emitter, FieldCx, RestCx, Store, VariantCx};
use crate::model::{Model, Struct, Ty, TyKind, TypeDef, TypeDefKind, TypeRef, Union, UnionTag};
use crate::names::rust_type_name;
use crate::names::view_name;
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::{format_ident, quote};

/// Which way [`Emitter::convert`] converts a value.
#[derive(Clone, Copy)]
pub(super) enum Convert {
    /// A view's value to the owned value.
    IntoOwned,
    /// An owned value to its view.
    FromOwned,
}

impl Emitter<'_> {
    /// Whether the type `r` names has a view, `NameRef<'a>`: a struct or a union that holds
    /// text, whose view's name its protocol does not take for a type of its own.
    fn has_any_view(&self, owner: &Model, r: &TypeRef) -> bool {
        let Some(def) = owner.resolve(r) else {
            return false;
        };
        matches!(def.kind, TypeDefKind::Struct(_) | TypeDefKind::Union(_))
            && self.model.named(&owner.name).holds_text(r)
    }

    /// The path to the view of the type `r` names, from `at`.
    pub(super) fn view_path(&self, owner: &Model, r: &TypeRef, at: At<'_>) -> TokenStream {
        self.type_path_as(owner, r, at, &view_name(&r.name))
    }

    /// Whether this model's `def` gets a view.
    pub(super) fn def_has_view(&self, def: &TypeDef) -> bool {
        let r = TypeRef {
            name: def.name.clone(),
            protocol: None,
        };
        self.has_any_view(self.model, &r)
    }

    /// The view's type of `ty`, `None` when `ty` holds no text (the view holds the owned type).
    pub(super) fn view_ty(
        &self,
        owner: &Model,
        ty: &Ty,
        at: At<'_>,
        boxed: bool,
    ) -> Option<TokenStream> {
        let cow = quote!(::std::borrow::Cow);
        let rt = &self.rt;
        Some(match &ty.kind {
            TyKind::String(_, None) => quote!(#cow<'a, str>),
            TyKind::Unknown => quote!(#cow<'a, #rt::RawValue>),
            // A string with a format is held owned: its schema checks it.
            TyKind::String(_, Some(_))
            | TyKind::Boolean
            | TyKind::Int(..)
            | TyKind::Number(_)
            | TyKind::Literal(_) => {
                return None;
            }
            TyKind::Array(inner, _) => {
                let inner = self.view_ty(owner, inner, at, false)?;
                quote!(::std::vec::Vec<#inner>)
            }
            TyKind::Map(inner) => {
                let inner = self
                    .view_ty(owner, inner, at, false)
                    .unwrap_or_else(|| self.rust_ty(owner, inner, at, false));
                quote!(::std::collections::BTreeMap<#cow<'a, str>, #inner>)
            }
            TyKind::Nullable(inner) => {
                let inner = self.view_ty(owner, inner, at, boxed)?;
                quote!(::core::option::Option<#inner>)
            }
            TyKind::Ref(r) => {
                if let Some((def_owner, inner, alias_at)) = self.alias_of(owner, r, at) {
                    return self.view_ty(def_owner, inner, alias_at, boxed);
                }
                if !self.has_any_view(owner, r) {
                    return None;
                }
                let path = self.view_path(owner, r, at);
                if boxed {
                    quote!(::std::boxed::Box<#path<'a>>)
                } else {
                    quote!(#path<'a>)
                }
            }
        })
    }

    /// The type a view holds for `ty`: its view, or the owned type.
    fn view_or_owned(&self, owner: &Model, ty: &Ty, at: At<'_>, boxed: bool) -> TokenStream {
        self.view_ty(owner, ty, at, boxed)
            .unwrap_or_else(|| self.rust_ty(owner, ty, at, boxed))
    }

    /// The value `v` of `ty` converted: a view's to its owned value (`into_owned`), or an
    /// owned value to its view (`from_owned`: every string owned).
    fn convert(
        &self,
        to: Convert,
        owner: &Model,
        ty: &Ty,
        at: At<'_>,
        boxed: bool,
        v: &TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let cow = quote!(::std::borrow::Cow);
        if self.view_ty(owner, ty, at, boxed).is_none() {
            return v.clone();
        }
        let item = |inner: &Ty, boxed: bool| self.convert(to, owner, inner, at, boxed, &quote!(v));
        match (&ty.kind, to) {
            (TyKind::String(..), Convert::IntoOwned) => quote!(#v.into_owned()),
            (TyKind::String(..), Convert::FromOwned) => quote!(#cow::Owned(#v)),
            (TyKind::Unknown, Convert::IntoOwned) => quote!(#rt::RawJson(#v.into_owned())),
            (TyKind::Unknown, Convert::FromOwned) => quote!(#cow::Owned(#v.0)),
            (TyKind::Array(inner, _), _) => {
                let item = item(inner, false);
                quote!(#rt::convert_vec(#v, |v| #item))
            }
            (TyKind::Map(inner), _) => {
                let item = item(inner, false);
                let key = match to {
                    Convert::IntoOwned => quote!(k.into_owned()),
                    Convert::FromOwned => quote!(#cow::Owned(k)),
                };
                quote!(#v.into_iter().map(|(k, v)| (#key, #item)).collect())
            }
            (TyKind::Nullable(inner), _) => {
                let item = item(inner, boxed);
                quote!(#v.map(|v| #item))
            }
            (TyKind::Ref(r), _) => {
                if let Some((def_owner, inner, alias_at)) = self.alias_of(owner, r, at) {
                    return self.convert(to, def_owner, inner, alias_at, boxed, v);
                }
                let one = |x: TokenStream| match to {
                    Convert::IntoOwned => quote!(#rt::DecodeRef::into_owned(#x)),
                    Convert::FromOwned => {
                        let path = self.view_path(owner, r, at);
                        quote!(<#path<'_> as #rt::DecodeRef<'_>>::from_owned(#x))
                    }
                };
                if boxed {
                    let one = one(quote!(*#v));
                    quote!(::std::boxed::Box::new(#one))
                } else {
                    one(v.clone())
                }
            }
            (TyKind::Boolean | TyKind::Int(..) | TyKind::Number(_) | TyKind::Literal(_), _) => {
                v.clone()
            }
        }
    }

    /// `ObjectView` for a struct's view: its key loop once the object is open, `body` (`r` and
    /// `keys` in scope).
    pub(super) fn object_view_impl(&self, view: &Ident, body: TokenStream) -> TokenStream {
        let rt = &self.rt;
        quote! {
            #[doc(hidden)]
            #[allow(deprecated)]
            impl<'de> #rt::ObjectView<'de> for #view<'de> {
                #[inline]
                fn scan_fields(
                    r: &mut #rt::Scanner<'de>,
                    mut keys: #rt::Keys,
                ) -> ::core::option::Option<Self> {
                    #body
                }
            }
        }
    }

    /// A view's member for the field `c`: its value's view, or the owned value when that holds
    /// no text (none for a required literal).
    /// The owned value's member when `owned` (a typed frame's field that is no string,
    /// `unknown` or literal: `emit::rust::envelope`).
    pub(super) fn view_member_as(
        &self,
        c: &FieldCx<'_>,
        at: At<'_>,
        owned: bool,
    ) -> Option<TokenStream> {
        let (docs, ident) = (self.field_docs(c.f), &c.ident);
        let ty = if owned {
            self.rust_ty(self.model, &c.f.ty, at, c.boxed)
        } else {
            self.view_or_owned(self.model, &c.f.ty, at, c.boxed)
        };
        Some(match c.store {
            Store::Literal => return None,
            Store::Presence => quote!(#docs pub #ident: bool,),
            Store::Optional => quote!(#docs pub #ident: ::core::option::Option<#ty>,),
            Store::Defaulted | Store::Required => quote!(#docs pub #ident: #ty,),
        })
    }

    /// The member for the field `c` of the value a view converts to (`to`): the owned value's,
    /// from `self` (`into_owned`), or the view's, from `owned` (`from_owned`). None for a
    /// required literal; `owned` when the view holds the owned value.
    fn converted_member(
        &self,
        to: Convert,
        c: &FieldCx<'_>,
        at: At<'_>,
        owned: bool,
    ) -> Option<TokenStream> {
        let ident = &c.ident;
        let from = match to {
            Convert::IntoOwned => quote!(self),
            Convert::FromOwned => quote!(owned),
        };
        // A value that holds no text is the same in the view and the owned value.
        if owned || self.view_ty(self.model, &c.f.ty, at, c.boxed).is_none() {
            return (!matches!(c.store, Store::Literal)).then(|| quote!(#ident: #from.#ident,));
        }
        let v = self.convert(to, self.model, &c.f.ty, at, c.boxed, &quote!(v));
        let rt = &self.rt;
        Some(match c.store {
            Store::Literal => return None,
            Store::Presence => quote!(#ident: #from.#ident,),
            // An optional string, the commonest: one runtime function, not a closure a field.
            Store::Optional if self.is_string(self.model, &c.f.ty, at) => match to {
                Convert::IntoOwned => quote!(#ident: #rt::owned_str(#from.#ident),),
                Convert::FromOwned => quote!(#ident: #rt::lent_str(#from.#ident),),
            },
            Store::Optional => quote!(#ident: #from.#ident.map(|v| #v),),
            Store::Defaulted | Store::Required => quote!(#ident: { let v = #from.#ident; #v },),
        })
    }

    /// Whether `ty` is a string, through aliases.
    fn is_string(&self, owner: &Model, ty: &Ty, at: At<'_>) -> bool {
        match &ty.kind {
            TyKind::String(_, None) => true,
            TyKind::Ref(r) => self
                .alias_of(owner, r, at)
                .is_some_and(|(owner, inner, at)| self.is_string(owner, inner, at)),
            _ => false,
        }
    }

    /// A struct's view item (`doc` its doc comment) with a member for each of `fields`, and
    /// the bodies of its `into_owned` and `from_owned` (`name` the owned type); a field
    /// `owned` names is held owned, and so is an open typed frame's `rest` (`extra`, as in the
    /// owned struct).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn view_struct(
        &self,
        doc: &str,
        name: &Ident,
        view: &Ident,
        fields: &[&FieldCx<'_>],
        at: At<'_>,
        owned: &dyn Fn(&FieldCx<'_>) -> bool,
        rest: Option<&RestCx>,
    ) -> [TokenStream; 3] {
        let rt = &self.rt;
        let mut members: Vec<TokenStream> = fields
            .iter()
            .filter_map(|c| self.view_member_as(c, at, owned(c)))
            .collect();
        let converted = |to| {
            fields
                .iter()
                .filter_map(move |c| self.converted_member(to, c, at, owned(c)))
        };
        let mut owned: Vec<TokenStream> = converted(Convert::IntoOwned).collect();
        let mut from_owned: Vec<TokenStream> = converted(Convert::FromOwned).collect();
        if let Some(r) = rest {
            let vty = &r.ty;
            members.push(quote! {
                /// Every other key of the object, with its value, in the order read, as the
                /// owned struct's `extra` (held owned).
                pub extra: #rt::Rest<#vty>,
            });
            owned.push(quote!(extra: self.extra,));
            from_owned.push(quote!(extra: owned.extra,));
        }
        [
            quote! {
                #[doc = #doc]
                #[derive(Debug, Clone)]
                #[non_exhaustive]
                #[allow(deprecated)]
                pub struct #view<'a> {
                    #(#members)*
                }
            },
            quote!(#name { #(#owned)* }),
            quote!(Self { #(#from_owned)* }),
        ]
    }

    /// A union's view item, `doc` its doc comment and `grows` its `#[non_exhaustive]`.
    pub(super) fn view_enum(
        &self,
        doc: &str,
        grows: &TokenStream,
        view: &Ident,
        members: &[TokenStream],
    ) -> TokenStream {
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone)]
            #grows
            #[allow(deprecated)]
            pub enum #view<'a> {
                #(#members)*
            }
        }
    }

    /// A view's inherent `into_owned`, `body` its body. The conversions between a view and its
    /// owned value are `#[inline]`: compiled in the crate that calls them, not for every view in
    /// the generated crate (where, out of line, they were a fifth of its optimised code).
    pub(super) fn inherent_impl(
        &self,
        name: &Ident,
        view: &Ident,
        body: TokenStream,
    ) -> TokenStream {
        quote! {
            #[allow(deprecated)]
            impl #view<'_> {
                /// The owned value.
                #[inline]
                pub fn into_owned(self) -> #name {
                    #body
                }
            }
        }
    }

    /// `DecodeRef` for a view: `from_owned`, `decode` and `scan` the bodies of its conversion
    /// from the owned value (`owned` in scope), its decoder (`d`, `cx`) and its fast reader
    /// (`r`). Without a `decode`, the view's decoder is the trait's: its owned type's, viewed
    /// (compiled only where it is used).
    pub(super) fn decode_ref_impl(
        &self,
        name: &Ident,
        view: &Ident,
        from_owned: TokenStream,
        decode: Option<TokenStream>,
        scan: TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let decode = decode.map(|decode| {
            quote! {
                fn decode(
                    d: &mut dyn #rt::Src<'de>,
                    cx: &mut #rt::Cx,
                ) -> #rt::Read<::core::option::Option<Self>> {
                    #decode
                }
            }
        });
        quote! {
            /// The view's readers: the fast reader, borrowing, then the owned decoder.
            #[doc(hidden)]
            #[allow(deprecated)]
            impl<'de> #rt::DecodeRef<'de> for #view<'de> {
                type Owned = #name;
                #[inline]
                fn into_owned(self) -> #name {
                    Self::into_owned(self)
                }
                #[inline]
                fn from_owned(owned: #name) -> Self {
                    #from_owned
                }
                #decode
                #[inline]
                fn scan(r: &mut #rt::Scanner<'de>) -> ::core::option::Option<Self> {
                    #scan
                }
            }
        }
    }

    /// `DecodeRef` for a view whose decoder is its owned type's, and its inherent
    /// `into_owned`. `scan` is the body of its fast reader.
    fn view_impls(
        &self,
        name: &Ident,
        view: &Ident,
        into_owned: TokenStream,
        from_owned: TokenStream,
        scan: TokenStream,
    ) -> TokenStream {
        let inherent = self.inherent_impl(name, view, into_owned);
        let decode_ref = self.decode_ref_impl(name, view, from_owned, None, scan);
        quote!(#inherent #decode_ref)
    }

    /// The `ScanRef` value that reads a stored field into its view: through the field's
    /// schema constant when the view reads it as it is (`Own`) or as borrowed text
    /// (`StrRef`), else written out.
    fn field_view_schema(&self, c: &FieldCx<'_>, at: At<'_>) -> TokenStream {
        let rt = &self.rt;
        let schema = &c.schema;
        if c.schema_const.is_some() {
            if self.view_ty(self.model, &c.f.ty, at, c.boxed).is_none() {
                return quote!(#rt::Own(#schema));
            }
            if matches!(self.model.unalias(&c.f.ty).kind, TyKind::String(_, None)) {
                return quote!(#rt::StrRef(#schema));
            }
        }
        self.schema_as(true, self.model, &c.f.ty, at, c.boxed)
    }

    /// A struct's view, `fields` its fields: the envelopes' flat view when it has one
    /// (`struct_ref`), else one whose decoder is the owned type's (empty when it has none).
    pub(super) fn struct_view(
        &self,
        def: &TypeDef,
        s: &Struct,
        at: At<'_>,
        fields: &[FieldCx<'_>],
    ) -> TokenStream {
        if let Some(flat) = self.flat_view(def, s, fields) {
            return self.struct_ref(at, &flat);
        }
        if !self.def_has_view(def) {
            return TokenStream::new();
        }
        let rt = &self.rt;
        let name = format_ident!("{}", rust_type_name(&def.name));
        let view = format_ident!("{}", rust_type_name(&view_name(&def.name)));
        let doc = format!(
            " A borrowed view of [`{name}`]: its strings and raw values borrow from the input \
             when the fast reader reads it (`wire::view`), else they are the decoder's, owned. \
             Same keys, limits and verdict."
        );
        let slots: Vec<Ident> = fields.iter().map(|c| c.slot.clone()).collect();
        let scans: Vec<TokenStream> = fields
            .iter()
            .map(|c| {
                let vschema = match c.store {
                    Store::Literal | Store::Presence => {
                        let schema = &c.schema;
                        quote!(#rt::Own(#schema))
                    }
                    _ => self.field_view_schema(c, at),
                };
                quote!(#rt::ScanRef::scan(#vschema, r))
            })
            .collect();
        let defaults: Vec<TokenStream> = fields
            .iter()
            .map(|c| {
                let default = self.default_expr(c.f, &c.schema);
                self.convert(
                    Convert::FromOwned,
                    self.model,
                    &c.f.ty,
                    at,
                    c.boxed,
                    &default,
                )
            })
            .collect();
        let cxs: Vec<&FieldCx> = fields.iter().collect();
        let [item, owned, from_owned] =
            self.view_struct(&doc, &name, &view, &cxs, at, &|_| false, None);
        let scan_body = scan_fields_body(
            s,
            &slots,
            &scans,
            |f| self.store(f),
            |i| defaults[i].clone(),
        );
        let object_view = self.object_view_impl(&view, scan_body);
        let scan = quote!(#rt::scan_object_view::<Self>(r));
        let impls = self.view_impls(&name, &view, owned, from_owned, scan);
        quote! {
            #item

            #impls

            #object_view
        }
    }

    /// A union's view (empty when it has none, or has the envelopes' flat view): each variant
    /// its type's view, or the owned type when that holds no text.
    pub(super) fn union_view(
        &self,
        def: &TypeDef,
        u: &Union,
        at: At<'_>,
        variants: &[VariantCx<'_>],
    ) -> TokenStream {
        if u.variants.is_empty() || !self.def_has_view(def) {
            return TokenStream::new();
        }
        let rt = &self.rt;
        let grows = self.grows(def);
        let name = format_ident!("{}", rust_type_name(&def.name));
        let view = format_ident!("{}", rust_type_name(&view_name(&def.name)));
        let doc = format!(
            " A borrowed view of [`{name}`]: each variant its value's view, whose strings and \
             raw values borrow from the input when the fast reader reads it (`wire::view`). \
             Same verdict."
        );
        let mut members = Vec::new();
        let mut owned = Vec::new();
        let mut from_owned = Vec::new();
        let mut scans = Vec::new();
        let mut literals = Vec::new();
        let all_structs = u.variants.iter().all(|v| self.is_struct(&v.ty));
        for c in variants {
            let (v, id, boxed) = (c.v, &c.ident, c.boxed);
            let vdocs = self.variant_docs(u, v);
            let ty = self.view_or_owned(self.model, &v.ty, at, boxed);
            members.push(quote!(#vdocs #id(#ty),));
            let to_owned =
                self.convert(Convert::IntoOwned, self.model, &v.ty, at, boxed, &quote!(v));
            let to_view =
                self.convert(Convert::FromOwned, self.model, &v.ty, at, boxed, &quote!(v));
            owned.push(variant_arm(Convert::IntoOwned, &name, id, to_owned));
            from_owned.push(variant_arm(Convert::FromOwned, &name, id, to_view));
            let wrap = if boxed {
                quote!(::std::boxed::Box::new(v))
            } else {
                quote!(v)
            };
            let TyKind::Ref(r) = &v.ty.kind else {
                scans.push(quote!(::core::option::Option::None));
                continue;
            };
            let path = self.type_path(self.model, r, at);
            let has_view = self.view_ty(self.model, &v.ty, at, false).is_some();
            let vpath = self.view_path(self.model, r, at);
            scans.push(match (&u.tag, has_view) {
                (UnionTag::Tagged { .. }, true) => map_some(
                    quote!(<#vpath<'de> as #rt::ObjectView<'de>>::scan_fields(r, keys)),
                    quote!(Self::#id(#wrap)),
                ),
                (UnionTag::Tagged { .. }, false) => map_some(
                    quote!(<#path as #rt::Object>::scan_fields(r, keys)),
                    quote!(Self::#id(#wrap)),
                ),
                (UnionTag::Untagged, true) => map_some(
                    quote!(<#vpath<'de> as #rt::DecodeRef<'de>>::scan(r)),
                    quote!(Self::#id(#wrap)),
                ),
                (UnionTag::Untagged, false) => map_some(
                    quote!(<#path as #rt::Decode>::scan(r)),
                    quote!(Self::#id(#wrap)),
                ),
            });
            literals.push(quote!(<#path as #rt::Object>::LITERALS));
        }
        let scan = match &u.tag {
            UnionTag::Tagged { field, .. } if all_structs => {
                let tags: Vec<&str> = u
                    .variants
                    .iter()
                    .map(|v| v.tag.as_deref().unwrap_or_default())
                    .collect();
                let keys = scan_variant_keys(rt, field, &tags);
                let i = (0..scans.len()).map(Lit::usize_unsuffixed);
                quote! {
                    #keys
                    let mut keys = r.object()?;
                    match r.variant(&mut keys, &TAG, VALUES)? {
                        #(#i => #scans,)*
                        _ => ::core::option::Option::None,
                    }
                }
            }
            UnionTag::Untagged if all_structs => untagged_scan_body(
                &literals,
                &scans,
                !self.model.analysis().recursion.is_recursive(&def.name),
            ),
            // A variant that is not a struct: every value is left to the decoder.
            _ => quote!({
                let _ = r;
                ::core::option::Option::None
            }),
        };
        let impls = self.view_impls(
            &name,
            &view,
            quote!(match self { #(#owned)* }),
            quote!(match owned { #(#from_owned)* }),
            scan,
        );
        let item = self.view_enum(&doc, &grows, &view, &members);
        quote! {
            #item

            #impls
        }
    }

    /// A table's by-name view (`EventPayloadRef<'a>` beside `EventPayload`): each entry's
    /// value as its view, read by the fast reader by name (`ByName::scan_named`) with its
    /// strings borrowed; the decoder and the table stage are the owned enum's. Empty when no
    /// entry holds text. `b`: the owned enum it views.
    pub(super) fn by_name_view(&self, b: ByName) -> TokenStream {
        let owned = &b.name();
        let doc = b.doc(true);
        let role = b.role();
        let at = At::Root;
        let entries: Vec<_> = b
            .entries(self.model)
            .into_iter()
            .map(|(wire, owner, ty)| (wire, format_ident!("{}", rust_type_name(wire)), owner, ty))
            .collect();
        if !entries
            .iter()
            .any(|(_, _, owner, ty)| self.view_ty(owner, ty, at, false).is_some())
        {
            return TokenStream::new();
        }
        let rt = &self.rt;
        let view = format_ident!("{owned}Ref");
        let mut members = Vec::new();
        let mut names: Vec<&str> = Vec::new();
        let mut idents = Vec::new();
        let mut to_owned = Vec::new();
        let mut from_owned = Vec::new();
        let mut scans = Vec::new();
        let mut own: Vec<&str> = Vec::new();
        for (wire, id, owner, ty) in entries {
            let vty = self.view_or_owned(owner, ty, at, false);
            let edoc = format!(" {} `{wire}`, as a view.", role);
            members.push(quote!(#[doc = #edoc] #id(::std::boxed::Box<#vty>),));
            let o = self.convert(Convert::IntoOwned, owner, ty, at, false, &quote!((*v)));
            let w = self.convert(Convert::FromOwned, owner, ty, at, false, &quote!((*v)));
            let (o, w) = (
                quote!(::std::boxed::Box::new(#o)),
                quote!(::std::boxed::Box::new(#w)),
            );
            to_owned.push(variant_arm(Convert::IntoOwned, owned, &id, o));
            from_owned.push(variant_arm(Convert::FromOwned, owned, &id, w));
            // A base's entries are read through the base's enum (`scan_bases`).
            if std::ptr::eq(owner, self.model.model()) {
                let vschema = self.schema_as(true, owner, ty, at, false);
                scans.push(map_some(
                    quote!(#rt::ScanRef::scan(#vschema, r)),
                    quote!(Self::#id(::std::boxed::Box::new(v))),
                ));
                own.push(wire);
            }
            names.push(wire);
            idents.push(id);
        }
        let bases = self.base_tables(b, true);
        let from_fns = (!bases.is_empty()).then(|| {
            let fns = bases.iter().map(BaseTable::conversion);
            quote! {
                #[allow(deprecated)]
                impl<'de> #view<'de> {
                    #(#fns)*
                }
            }
        });
        let scan_by_name = match_name(rt, &own, &scans, &scan_bases(rt, &bases));
        quote! {
            #[doc = #doc]
            ///
            /// Each value is boxed, as in the owned enum.
            #[derive(Debug, Clone)]
            #[non_exhaustive]
            #[allow(deprecated)]
            pub enum #view<'a> {
                #(#members)*
            }

            #[allow(deprecated)]
            impl #view<'_> {
                /// The entry's name.
                pub const fn name(&self) -> &'static str {
                    match self { #(Self::#idents(_) => #names,)* }
                }

                /// The owned value.
                #[inline]
                pub fn into_owned(self) -> #owned {
                    match self { #(#to_owned)* }
                }

                /// The view of an owned value (every string owned).
                #[inline]
                pub fn from_owned(owned: #owned) -> Self {
                    match owned { #(#from_owned)* }
                }
            }

            #from_fns

            #[allow(deprecated)]
            impl<'de> #rt::ByName<'de> for #view<'de> {
                fn decode_named<'a>(
                    name: &str,
                    d: &mut dyn #rt::Src<'a>,
                    cx: &mut #rt::Cx,
                    out: &mut ::core::option::Option<Self>,
                ) -> #rt::Read<()> {
                    let mut owned = ::core::option::Option::None;
                    <#owned as #rt::ByName<'de>>::decode_named(name, d, cx, &mut owned)?;
                    *out = owned.map(Self::from_owned);
                    ::core::result::Result::Ok(())
                }
                fn parse_named(name: &str, json: &str) -> ::core::result::Result<Self, #rt::TableError> {
                    #owned::parse(name, json).map(Self::from_owned)
                }
                #[inline]
                fn scan_named(name: &str, r: &mut #rt::Scanner<'de>) -> ::core::option::Option<Self> {
                    #scan_by_name
                }
            }
        }
    }
}

/// A view's match arm for the variant `id` of the owned enum `name`: the view's into the owned
/// value's (`into_owned`) or the owned value's into the view's (`from_owned`), `value` the
/// converted `v`.
pub(super) fn variant_arm(
    to: Convert,
    name: &Ident,
    id: &Ident,
    value: TokenStream,
) -> TokenStream {
    match to {
        Convert::IntoOwned => quote!(Self::#id(v) => #name::#id(#value),),
        Convert::FromOwned => quote!(#name::#id(v) => Self::#id(#value),),
    }
}
