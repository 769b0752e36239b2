//! emit::rust's fast readers (`wire::scan`): the pieces of a generated `scan`, which reads a
//! valid value straight from the input and answers `None` for anything it is not sure of (the
//! decoder then reads the value and says what is wrong): a struct's key loop, an enum's value,
//! a tagged union's tag, an untagged union's pick, a table's dispatch by name.

use super::paths::{map_some, open_variant, value_ident};
use super::{At, Emitter, FieldCx, Store, VariantCx};
use crate::model::{Enum, Field, Struct, TyKind, TypeDef};
use crate::names::{rust_field, rust_ident};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

impl Emitter<'_> {
    /// An enum's fast reader: the string matched against the values as words (`wire::Key`); an
    /// open enum keeps a value it does not list.
    pub(super) fn enum_scan(&self, e: &Enum) -> TokenStream {
        let rt = &self.rt;
        let values = e.strs();
        let variants: Vec<Ident> = e.values.iter().map(value_ident).collect();
        if e.is_int() {
            // An integer written plainly; anything else (`1.0`, `1e0`) is the decoder's.
            return if e.open {
                quote! {
                    ::core::option::Option::Some(<Self as ::core::convert::From<i64>>::from(r.int()?))
                }
            } else {
                let ints = e.ints().map(Lit::i64_unsuffixed);
                quote! {
                    match r.int()? {
                        #(#ints => ::core::option::Option::Some(Self::#variants),)*
                        _ => ::core::option::Option::None,
                    }
                }
            };
        }
        let idx = (0..variants.len()).map(Lit::usize_unsuffixed);
        let keys = quote!(const VALUES: &[#rt::Key] = &[#(#rt::Key::value(#values)),*];);
        if e.open {
            let other = open_variant(e);
            quote! {
                #keys
                ::core::option::Option::Some(match r.one_of(VALUES)? {
                    #(::core::result::Result::Ok(#idx) => Self::#variants,)*
                    ::core::result::Result::Ok(_) => return ::core::option::Option::None,
                    ::core::result::Result::Err(s) => Self::#other(s.into_owned()),
                })
            }
        } else {
            quote! {
                #keys
                match r.one_of(VALUES)? {
                    #(::core::result::Result::Ok(#idx) => ::core::option::Option::Some(Self::#variants),)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    }

    /// A struct's fast reader once its object is open: each field read by its schema, an
    /// absent defaulted one at its default.
    pub(super) fn struct_scan(&self, s: &Struct, fields: &[FieldCx<'_>]) -> TokenStream {
        let rt = &self.rt;
        let slots: Vec<Ident> = fields.iter().map(|c| c.slot.clone()).collect();
        let scans: Vec<TokenStream> = fields
            .iter()
            .map(|c| {
                let schema = &c.schema;
                quote!(#rt::Schema::scan(#schema, r))
            })
            .collect();
        scan_fields_body(
            s,
            &slots,
            &scans,
            |f| self.store(f),
            |i| self.default_expr(fields[i].f, &fields[i].schema),
        )
    }

    /// A tagged union's fast reader: the tag found (first, or looked ahead for), then the
    /// object handed to the variant's own key loop, which skips the tag key once. A variant
    /// that is not a struct is left to the decoder.
    pub(super) fn tagged_scan(
        &self,
        field: &str,
        tags: &[&str],
        variants: &[VariantCx<'_>],
        at: At<'_>,
    ) -> TokenStream {
        let rt = &self.rt;
        let arms = variants.iter().map(|c| match &c.v.ty.kind {
            TyKind::Ref(r) if self.is_struct(&c.v.ty) => {
                let path = self.type_path(self.model, r, at);
                let wrap = boxed_if(c.boxed);
                let (i, id) = (Lit::usize_unsuffixed(c.i), &c.ident);
                let read = map_some(
                    quote!(<#path as #rt::Object>::scan_fields(r, keys)),
                    quote!(Self::#id(#wrap)),
                );
                quote!(#i => #read,)
            }
            _ => TokenStream::new(),
        });
        let variant_keys = scan_variant_keys(rt, field, tags);
        quote! {
            #variant_keys
            let mut keys = r.object()?;
            match r.variant(&mut keys, &TAG, VALUES)? {
                #(#arms)*
                _ => ::core::option::Option::None,
            }
        }
    }

    /// The fast reader of an untagged union of structs (`paths`, the variants' types): see
    /// [`untagged_scan_body`].
    pub(super) fn untagged_objects_scan(
        &self,
        def: &TypeDef,
        variants: &[VariantCx<'_>],
        paths: &[TokenStream],
    ) -> TokenStream {
        let rt = &self.rt;
        let literals: Vec<TokenStream> = paths
            .iter()
            .map(|p| quote!(<#p as #rt::Object>::LITERALS))
            .collect();
        let scans: Vec<TokenStream> = paths
            .iter()
            .zip(variants)
            .map(|(p, c)| {
                let (id, wrap) = (&c.ident, boxed_if(c.boxed));
                map_some(
                    quote!(<#p as #rt::Decode>::scan(r)),
                    quote!(Self::#id(#wrap)),
                )
            })
            .collect();
        untagged_scan_body(
            &literals,
            &scans,
            !self.model.analysis().recursion.is_recursive(&def.name),
        )
    }
}

/// A value `v` read for a variant, boxed when the variant is.
fn boxed_if(boxed: bool) -> TokenStream {
    if boxed {
        quote!(::std::boxed::Box::new(v))
    } else {
        quote!(v)
    }
}

/// A fast reader's arm for field `i` (`wire::scan`): a duplicate key leaves the object to
/// the decoder; else the value read by `scan` goes into `slot`.
pub(super) fn scan_arm(i: usize, slot: &Ident, scan: TokenStream) -> TokenStream {
    let i = Lit::usize_unsuffixed(i);
    quote! {
        ::core::result::Result::Ok(#i) => {
            if #slot.is_some() {
                return ::core::option::Option::None;
            }
            // Read straight into the slot (no move of a large value through a temporary).
            #slot = #scan;
            #slot.as_ref()?;
        }
    }
}

/// The body of a struct's fast reader once its object is open (`keys` in scope): its keys
/// read into the slots by the fields' `scans`, a key of no field skipped, then the value built
/// from the slots by how each field is stored (`default(i)`: field `i`'s default).
pub(super) fn scan_fields_body(
    s: &Struct,
    slots: &[Ident],
    scans: &[TokenStream],
    store: impl Fn(&Field) -> Store,
    default: impl Fn(usize) -> TokenStream,
) -> TokenStream {
    if s.fields.is_empty() {
        return quote! {
            while let ::core::option::Option::Some(k) = r.key(&mut keys)? {
                r.skip_unknown(k, &mut keys)?;
            }
            ::core::option::Option::Some(Self {})
        };
    }
    let mut arms = Vec::new();
    let mut finish = Vec::new();
    let mut build = Vec::new();
    for (i, ((f, slot), scan)) in s.fields.iter().zip(slots).zip(scans).enumerate() {
        arms.push(scan_arm(i, slot, scan.clone()));
        let (check, value) = scan_finish_of(store(f), slot, || default(i));
        finish.push(check);
        if let Some(value) = value {
            let ident = rust_ident(&rust_field(&f.name));
            build.push(quote!(#ident: #value,));
        }
    }
    quote! {
        let mut next = 0;
        #(let mut #slots = ::core::option::Option::None;)*
        while let ::core::option::Option::Some(k) = r.field(&mut keys, KEYS, &mut next)? {
            match k {
                #(#arms)*
                ::core::result::Result::Err(k) => r.skip_unknown(k, &mut keys)?,
                ::core::result::Result::Ok(_) => return ::core::option::Option::None,
            }
        }
        #(#finish)*
        ::core::option::Option::Some(Self { #(#build)* })
    }
}

/// The fast reader's dispatch on a table entry's name (`name` in scope): `arms[i]` for
/// `names[i]`, `rest` (the value) for any other name. The names are compared by length first,
/// then as words (`wire::same_name`), with no call to `memcmp`.
pub(super) fn match_name(
    rt: &TokenStream,
    names: &[&str],
    arms: &[TokenStream],
    rest: &TokenStream,
) -> TokenStream {
    let mut by_len: BTreeMap<usize, Vec<(&str, &TokenStream)>> = BTreeMap::new();
    for (n, arm) in names.iter().zip(arms) {
        by_len.entry(n.len()).or_default().push((n, arm));
    }
    let groups = by_len.iter().map(|(len, entries)| {
        let len = Lit::usize_unsuffixed(*len);
        let tests = entries
            .iter()
            .map(|(n, arm)| quote!(if #rt::same_name(name, #n) { return #arm; }));
        quote!(#len => { #(#tests)* })
    });
    quote! {
        match name.len() {
            #(#groups)*
            _ => {}
        }
        #rest
    }
}

/// A tagged union's tag key and tag values as its fast reader matches them (`wire::Key`):
/// `TAG` and `VALUES`, in variant order.
pub(super) fn scan_variant_keys(rt: &TokenStream, tag: &str, values: &[&str]) -> TokenStream {
    quote! {
        const TAG: #rt::Key = #rt::Key::new(#tag);
        const VALUES: &[#rt::Key] = &[#(#rt::Key::value(#values)),*];
    }
}

/// The struct's keys as its fast readers match them (`wire::Key`), in field order: `KEYS`,
/// once in the type's block for the owned reader, the view's and the typed form's; nothing
/// for a struct no fast reader reads by key (no field, or open: its readers are never sure).
pub(super) fn scan_keys(rt: &TokenStream, s: &Struct) -> TokenStream {
    if s.fields.is_empty() || s.rest.is_some() {
        return TokenStream::new();
    }
    let names = s.fields.iter().map(|f| f.name.as_str());
    quote! {
        /// The fields' keys, as the fast readers match them.
        const KEYS: &[#rt::Key] = &[#(#rt::Key::new(#names)),*];
    }
}

/// The fast reader of an untagged union of structs (`wire::scan`): the variant the decoder
/// tries first (the first whose required literal keys hold, `Scanner::pick`, one look-ahead)
/// is read, and is the union's value when it answers. When it does not, no other is tried (the
/// reader is not sure of it), so a union that holds itself is read once per level, never a
/// variant at a time all the way down. A union that cannot hold itself (`first_directly`)
/// first reads its first variant on a copy of the cursor: when that answers, it is the
/// decoder's pick whatever the literals say, and the look-ahead is saved. `scans` read `r`.
pub(super) fn untagged_scan_body(
    literals: &[TokenStream],
    scans: &[TokenStream],
    first_directly: bool,
) -> TokenStream {
    let arms = scans.iter().enumerate().map(|(i, scan)| {
        let i = Lit::usize_unsuffixed(i);
        quote!(::core::option::Option::Some(#i) => #scan,)
    });
    let first = match scans.first() {
        Some(scan) if first_directly => quote! {
            let start = *r;
            if let v @ ::core::option::Option::Some(_) = #scan {
                return v;
            }
            *r = start;
        },
        _ => TokenStream::new(),
    };
    quote! {
        #first
        match r.pick(&[#(#literals),*])? {
            #(#arms)*
            _ => ::core::option::Option::None,
        }
    }
}

/// A fast reader's slot once the keys ended, by how the field is stored: a check of a required
/// literal, or the member's value (built in the struct literal, so a large value is moved once).
/// An absent required key leaves the object to the decoder.
pub(super) fn scan_finish_of(
    store: Store,
    slot: &Ident,
    default: impl FnOnce() -> TokenStream,
) -> (TokenStream, Option<TokenStream>) {
    let value = match store {
        Store::Literal => return (quote!(#slot?;), None),
        Store::Required => quote!(#slot?),
        Store::Presence => quote!(#slot.is_some()),
        Store::Optional => quote!(#slot),
        Store::Defaulted => {
            let d = default();
            quote! {
                match #slot {
                    ::core::option::Option::Some(v) => v,
                    ::core::option::Option::None => #d,
                }
            }
        }
    };
    (TokenStream::new(), Some(value))
}
