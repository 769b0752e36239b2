//! emit::rust's fast readers (`wire::scan`): the pieces of a generated `scan`, which reads a
//! valid value straight from the input and answers `None` for anything it is not sure of (the
//! decoder then reads the value and says what is wrong): a struct's key loop, a tagged union's
//! tag, an untagged union's pick, a table's dispatch by name.

use super::Store;
use crate::model::{Field, Struct};
use crate::names::{rust_field, rust_ident};
use proc_macro2::{Ident, Literal as Lit, TokenStream};
use quote::quote;
use std::collections::BTreeMap;

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
    rt: &TokenStream,
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
    let keys_const = scan_keys(rt, s);
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
        #keys_const
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
/// `names[i]`, `None` for a name the table does not have. The names are compared by length
/// first, then as words (`wire::same_name`), with no call to `memcmp`.
pub(super) fn match_name(rt: &TokenStream, names: &[&str], arms: &[TokenStream]) -> TokenStream {
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
        let _ = r;
        ::core::option::Option::None
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

/// The struct's keys as its fast reader matches them (`wire::Key`), in field order: `KEYS`.
pub(super) fn scan_keys(rt: &TokenStream, s: &Struct) -> TokenStream {
    let names = s.fields.iter().map(|f| f.name.as_str());
    quote! {
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
