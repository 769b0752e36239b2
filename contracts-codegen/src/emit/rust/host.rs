//! emit::rust's host: the `Host` trait (one async method per own request, each refusing as
//! unsupported unless implemented; a base's requests are its `Host`, a supertrait), `dispatch`
//! and `dispatch_payload`, which route a request to its method and check the result as the
//! client will read it, and `Dispatcher`, the host as the runtime's frame machinery calls it.

use super::docs::docs_attrs;
use super::{At, Emitter};
use crate::model::{Model, Request};
use crate::names::rust_type_name;
use crate::names::{rust_field, rust_ident};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The host trait, the dispatch functions and the `Dispatcher`.
    pub(super) fn host(&self) -> TokenStream {
        let rt = &self.rt;
        let requests = self.model.all_requests();
        let methods = requests
            .iter()
            .filter(|(owner, _)| std::ptr::eq(*owner, self.model.model()))
            .map(|(owner, r)| self.host_method(owner, r));
        let arms: Vec<TokenStream> = requests
            .iter()
            .map(|(owner, r)| self.dispatch_arm(owner, r))
            .collect();
        let dispatch_body = if arms.is_empty() {
            quote! {
                let _ = host;
                match payload {}
            }
        } else {
            quote! {
                match payload {
                    #(#arms)*
                }
            }
        };
        let supers = self.model.bases.iter().map(|b| {
            let base = self.base_path(&b.name);
            quote!(#base::Host)
        });
        quote! {
            /// What a host does: one method per request of this protocol. Every method refuses
            /// as unsupported unless the host implements it. The requests of a base protocol are
            /// the methods of its `Host`, a supertrait: a host implements both, and [`dispatch`]
            /// routes every name.
            #[allow(deprecated)]
            pub trait Host: #(#supers +)* ::core::marker::Sync {
                #(#methods)*
            }

            /// Parses a request's payload by its name, straight into the typed payload (the fast
            /// reader first, `ByName::read_named`), and calls the host's method (see
            /// [`dispatch_payload`]). An unknown name and an invalid payload are refused.
            #[allow(deprecated)]
            pub async fn dispatch<H: Host + ?::core::marker::Sized>(
                host: &H,
                name: &str,
                payload: &#rt::RawValue,
            ) -> ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #rt::WireError> {
                match <RequestPayload as #rt::ByName<'_>>::read_named(name, payload.get()) {
                    ::core::result::Result::Ok(payload) => dispatch_payload(host, payload).await,
                    ::core::result::Result::Err(e) => ::core::result::Result::Err(#rt::table_refusal(&e)),
                }
            }

            /// Calls the host's method for a parsed payload; the result is written as raw JSON,
            /// checked first as the client will read it: a result the client would refuse is
            /// answered as an `internal` failure naming the field and its limit, never sent.
            #[allow(deprecated)]
            pub async fn dispatch_payload<H: Host + ?::core::marker::Sized>(
                host: &H,
                payload: RequestPayload,
            ) -> ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #rt::WireError> {
                #dispatch_body
            }

            /// A host as the runtime's frame machinery calls it (`serve`, `dispatch_frame`):
            /// every name of this protocol's tables goes to [`dispatch`].
            pub struct Dispatcher<'h, H: ?::core::marker::Sized>(
                /// The host every request goes to.
                pub &'h H,
            );

            impl<H: Host + ?::core::marker::Sized> #rt::Dispatch for Dispatcher<'_, H> {
                type Payload = RequestPayload;
                fn dispatch_payload(
                    &self,
                    payload: RequestPayload,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #rt::WireError>,
                > + ::core::marker::Send {
                    dispatch_payload(self.0, payload)
                }
            }
        }
    }

    /// The host's method for an own request: it refuses as unsupported by default.
    fn host_method(&self, owner: &Model, r: &Request) -> TokenStream {
        let rt = &self.rt;
        let ident = format_ident!("{}", rust_type_name(&r.name));
        let name = r.name.as_str();
        let method = rust_ident(&rust_field(&r.name));
        let docs = docs_attrs(&r.docs);
        let doc_default = format!(
            " Answers [`{ident}`](requests::{ident}) (`{name}`); the default refuses it as \
             unsupported."
        );
        let docs = if r.docs.is_empty() {
            docs
        } else {
            quote!(#docs #[doc = ""])
        };
        // The payload and result by their own types, as the request table has them (a
        // reader of the trait sees `ChatCreatePayload`, not `<ChatCreate as Request>::Payload`).
        let payload_ty = self.rust_ty(owner, &r.payload, At::Root, false);
        let result_ty = self.rust_ty(owner, &r.result, At::Root, false);
        quote! {
            #docs
            #[doc = #doc_default]
            fn #method(
                &self,
                payload: #payload_ty,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#result_ty, #rt::WireError>,
            > + ::core::marker::Send {
                async move {
                    let _ = payload;
                    ::core::result::Result::Err(#rt::unsupported(<requests::#ident as #rt::Request>::METHOD))
                }
            }
        }
    }

    /// `dispatch_payload`'s arm for a request: its host method called, the result written. A
    /// base's request is a method of the base's host trait, a supertrait.
    fn dispatch_arm(&self, owner: &Model, r: &Request) -> TokenStream {
        let rt = &self.rt;
        let ident = format_ident!("{}", rust_type_name(&r.name));
        let method = rust_ident(&rust_field(&r.name));
        if std::ptr::eq(owner, self.model.model()) {
            quote! {
                RequestPayload::#ident(payload) => {
                    #rt::result_to_raw::<requests::#ident>(&host.#method(*payload).await?)
                }
            }
        } else {
            let base = self.base_path(&owner.name);
            quote! {
                RequestPayload::#ident(payload) => {
                    #rt::result_to_raw::<requests::#ident>(
                        &<H as #base::Host>::#method(host, *payload).await?,
                    )
                }
            }
        }
    }
}
