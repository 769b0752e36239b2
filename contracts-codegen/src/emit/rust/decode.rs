//! emit::rust's decoders: `Decode` for every generated type (what a value must look like and
//! how it is read into the runtime's `Cx`, every issue with its path), and the end of a
//! generated field loop.

use super::Emitter;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

impl Emitter<'_> {
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
            #[allow(deprecated)]
            impl #rt::Decode for #name {
                const EXPECT: #rt::Expect = #expect;
                fn decode<'de, D: #rt::serde::Deserializer<'de>>(
                    d: D,
                    cx: &mut #rt::Cx,
                ) -> ::core::result::Result<::core::option::Option<Self>, D::Error> {
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
