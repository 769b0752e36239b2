//! emit::rust's tables: one type per request and event (`requests::ChatCreate`, with its wire
//! name, payload and result), the name lists, the by-name enums (`RequestPayload`,
//! `RequestResult`, `EventPayload`) that parse a value by its entry's name, and `check_type`,
//! which reads a type no entry reaches by its name.

use super::docs::{capitalized, docs_attrs, meta_attrs};
use super::paths::rust_type_name;
use super::scan::match_name;
use super::{At, Emitter};
use crate::model::{TypeDef, TypeRef};
use crate::names::{rust_field, rust_ident};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// `check_type`: the types no table entry reaches (`Model::outside_tables`), each read from
    /// JSON by its schema name, so the corpus checks them as bare values (`"as": "type"`).
    pub(super) fn check_type(&self) -> TokenStream {
        let rt = &self.rt;
        let outside = self.model.outside_tables();
        let names = outside.iter().map(|d| d.name.as_str());
        let paths = outside.iter().map(|d| {
            let r = TypeRef {
                name: d.name.clone(),
                protocol: None,
            };
            self.type_path(self.model, &r, At::Root)
        });
        let viewed: Vec<&TypeDef> = outside
            .iter()
            .copied()
            .filter(|d| self.def_has_view(d))
            .collect();
        let view_names = viewed.iter().map(|d| d.name.as_str());
        let view_paths = viewed.iter().map(|d| {
            let r = TypeRef {
                name: d.name.clone(),
                protocol: None,
            };
            self.view_path(self.model, &r, At::Root)
        });
        quote! {
            /// [`check_type`] through the type's borrowed view, for the tests: panics unless
            /// the view agrees with the owned type (`wire::view_agrees`). Whether the value is
            /// valid and whether the view's fast reader answered; `None`: no such type with a
            /// view.
            #[cfg(test)]
            #[allow(dead_code, deprecated)]
            pub(crate) fn check_type_view(
                name: &str,
                json: &str,
            ) -> ::core::option::Option<(bool, bool)> {
                match name {
                    #(#view_names => ::core::option::Option::Some(#rt::view_agrees::<#view_paths<'_>>(json)),)*
                    _ => {
                        let _ = json;
                        ::core::option::Option::None
                    }
                }
            }

            /// Reads `json` as the type called `name`, one of the types no table entry reaches
            /// (the frames, and the contracts kept outside the tables on purpose): its verdict
            /// as a bare value. `None`: no such type.
            #[allow(deprecated)]
            pub fn check_type(
                name: &str,
                json: &str,
            ) -> ::core::option::Option<::core::result::Result<(), #rt::ParseError>> {
                match name {
                    #(#names => ::core::option::Option::Some(#rt::from_str::<#paths>(json).map(drop)),)*
                    _ => {
                        let _ = json;
                        ::core::option::Option::None
                    }
                }
            }
        }
    }

    pub(super) fn tables(&self) -> TokenStream {
        let rt = &self.rt;
        let at = At::Module("requests");
        let mut req_items = Vec::new();
        let mut req_names = Vec::new();
        let mut req_idents = Vec::new();
        let mut methods = Vec::new();
        let mut arms = Vec::new();
        for (owner, r) in self.model.all_requests() {
            let ident = format_ident!("{}", rust_type_name(&r.name));
            let name = r.name.as_str();
            let own = std::ptr::eq(owner, self.model);
            if own {
                let docs = docs_attrs(&r.docs);
                let wire = format!(" Wire name: `{name}`.");
                let docs = if r.docs.is_empty() {
                    quote!(#[doc = #wire])
                } else {
                    quote!(#docs #[doc = ""] #[doc = #wire])
                };
                let meta = meta_attrs(&r.meta);
                let payload = self.rust_ty(owner, &r.payload, at, false);
                let result = self.rust_ty(owner, &r.result, at, false);
                let ps = self.schema(owner, &r.payload, at, false);
                let rs = self.schema(owner, &r.result, at, false);
                let payload_fns = self.entry_fns("payload", &ps);
                let result_fns = self.entry_fns("result", &rs);
                req_items.push(quote! {
                    #docs
                    #meta
                    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
                    pub struct #ident;

                    #[allow(deprecated)]
                    impl #rt::Request for #ident {
                        const METHOD: &'static str = #name;
                        type Payload = #payload;
                        type Result = #result;
                        #payload_fns
                        #result_fns
                    }
                });
            } else {
                let base = self.base_path(&owner.name);
                req_items.push(quote!(pub use #base::requests::#ident;));
            }
            let method = rust_ident(&rust_field(&r.name));
            req_names.push(name);
            req_idents.push(ident.clone());
            if !own {
                // A base's request is a method of the base's host trait, a supertrait.
                let base = self.base_path(&owner.name);
                arms.push(quote! {
                    RequestPayload::#ident(payload) => {
                        #rt::result_to_raw::<requests::#ident>(
                            &<H as #base::Host>::#method(host, *payload).await?,
                        )
                    }
                });
                continue;
            }
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
            methods.push(quote! {
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
            });
            arms.push(quote! {
                RequestPayload::#ident(payload) => {
                    #rt::result_to_raw::<requests::#ident>(&host.#method(*payload).await?)
                }
            });
        }

        let eat = At::Module("events");
        let mut ev_items = Vec::new();
        let mut ev_names = Vec::new();
        let mut ev_idents = Vec::new();
        for (owner, ev) in self.model.all_events() {
            let ident = format_ident!("{}", rust_type_name(&ev.name));
            let name = ev.name.as_str();
            if std::ptr::eq(owner, self.model) {
                let docs = docs_attrs(&ev.docs);
                let wire = format!(" Wire name: `{name}`.");
                let docs = if ev.docs.is_empty() {
                    quote!(#[doc = #wire])
                } else {
                    quote!(#docs #[doc = ""] #[doc = #wire])
                };
                let meta = meta_attrs(&ev.meta);
                let payload = self.rust_ty(owner, &ev.payload, eat, false);
                let ps = self.schema(owner, &ev.payload, eat, false);
                let payload_fns = self.entry_fns("payload", &ps);
                ev_items.push(quote! {
                    #docs
                    #meta
                    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
                    pub struct #ident;

                    #[allow(deprecated)]
                    impl #rt::Event for #ident {
                        const NAME: &'static str = #name;
                        type Payload = #payload;
                        #payload_fns
                    }
                });
            } else {
                let base = self.base_path(&owner.name);
                ev_items.push(quote!(pub use #base::events::#ident;));
            }
            ev_names.push(name);
            ev_idents.push(ident);
        }

        // `decode_payload` and `decode_named` are out of line: the by-name match stays a small
        // dispatch instead of every payload's decoder inlined into it, which keeps a mixed run
        // of frames in the instruction cache (docs/benchmarks.md).
        let request_payload = self.by_name_enum(
            &format_ident!("RequestPayload"),
            " Any request's payload, by the request's name.",
            "the payload of request",
            &req_names,
            &req_idents,
            &quote!(requests),
            &quote!(#rt::Request),
            &quote!(Payload),
            &quote!(parse_payload),
            &quote!(decode_payload),
            &quote!(scan_payload),
        );
        let request_result = self.by_name_enum(
            &format_ident!("RequestResult"),
            " Any request's result, by the request's name.",
            "the result of request",
            &req_names,
            &req_idents,
            &quote!(requests),
            &quote!(#rt::Request),
            &quote!(Result),
            &quote!(parse_result),
            &quote!(decode_result),
            &quote!(scan_result),
        );
        let event_payload = self.by_name_enum(
            &format_ident!("EventPayload"),
            " Any event's payload, by the event's name.",
            "the payload of event",
            &ev_names,
            &ev_idents,
            &quote!(events),
            &quote!(#rt::Event),
            &quote!(Payload),
            &quote!(parse_payload),
            &quote!(decode_payload),
            &quote!(scan_payload),
        );
        let request_payload_view = self.by_name_view(
            &format_ident!("RequestPayload"),
            " Any request's payload, by the request's name, as a borrowed view.",
            "the payload of request",
            self.model
                .all_requests()
                .into_iter()
                .map(|(owner, r)| (r.name.as_str(), owner, &r.payload)),
        );
        let event_payload_view = self.by_name_view(
            &format_ident!("EventPayload"),
            " Any event's payload, by the event's name, as a borrowed view.",
            "the payload of event",
            self.model
                .all_events()
                .into_iter()
                .map(|(owner, ev)| (ev.name.as_str(), owner, &ev.payload)),
        );
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
        let supers: Vec<TokenStream> = self
            .model
            .bases
            .iter()
            .map(|b| {
                let base = self.base_path(&b.name);
                quote!(#base::Host)
            })
            .collect();
        quote! {
            /// The request table: one type per request, with its wire name, payload and result.
            #[allow(deprecated)]
            pub mod requests {
                #(#req_items)*
            }

            /// The event table: one type per event, with its wire name and payload.
            #[allow(deprecated)]
            pub mod events {
                #(#ev_items)*
            }

            /// Every request name, in table order.
            pub const REQUEST_NAMES: &[&str] = &[#(#req_names),*];

            /// Every event name, in table order.
            pub const EVENT_NAMES: &[&str] = &[#(#ev_names),*];

            #request_payload
            #request_result
            #event_payload
            #request_payload_view
            #event_payload_view

            /// What a host does: one method per request of this protocol. Every method refuses
            /// as unsupported unless the host implements it. The requests of a base protocol are
            /// the methods of its `Host`, a supertrait: a host implements both, and [`dispatch`]
            /// routes every name.
            #[allow(deprecated)]
            pub trait Host: #(#supers +)* ::core::marker::Sync {
                #(#methods)*
            }

            /// Parses a request's payload by its name, straight into the typed payload, and calls
            /// the host's method (see [`dispatch_payload`]). An unknown name and an invalid
            /// payload are refused.
            #[allow(deprecated)]
            pub async fn dispatch<H: Host + ?::core::marker::Sized>(
                host: &H,
                name: &str,
                payload: &#rt::RawValue,
            ) -> ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #rt::WireError> {
                match RequestPayload::parse(name, payload.get()) {
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

    /// A table entry's parse and decode functions for one side (`payload` or `result`):
    /// `parse_payload` reads JSON text, `decode_payload` a frame being read. The decoder is out
    /// of line: the by-name match stays a small dispatch.
    fn entry_fns(&self, side: &str, schema: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let parse = format_ident!("parse_{side}");
        let decode = format_ident!("decode_{side}");
        let scan = format_ident!("scan_{side}");
        let assoc = format_ident!(
            "{}",
            if side == "result" {
                "Result"
            } else {
                "Payload"
            }
        );
        quote! {
            fn #parse(json: &str) -> ::core::result::Result<Self::#assoc, #rt::ParseError> {
                #rt::from_str_with(#schema, json)
            }
            #[inline(never)]
            fn #decode<'de, D: #rt::serde::Deserializer<'de>>(
                d: D,
                cx: &mut #rt::Cx,
            ) -> ::core::result::Result<::core::option::Option<Self::#assoc>, D::Error> {
                #rt::decode_entry(#schema, d, cx)
            }
            #[inline]
            fn #scan(r: &mut #rt::Scanner<'_>) -> ::core::option::Option<Self::#assoc> {
                #rt::Schema::scan(#schema, r)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn by_name_enum(
        &self,
        name: &Ident,
        doc: &str,
        role: &str,
        names: &[&str],
        idents: &[Ident],
        module: &TokenStream,
        trait_: &TokenStream,
        assoc: &TokenStream,
        parse: &TokenStream,
        decode: &TokenStream,
        scan: &TokenStream,
    ) -> TokenStream {
        let rt = &self.rt;
        let empty = names.is_empty();
        let name_body = if empty {
            quote!(match *self {})
        } else {
            quote!(match self { #(Self::#idents(_) => #names,)* })
        };
        let scans: Vec<TokenStream> = idents
            .iter()
            .map(|id| quote!(<#module::#id as #trait_>::#scan(r).map(|v| Self::#id(::std::boxed::Box::new(v)))))
            .collect();
        let scan_by_name = match_name(rt, names, &scans);
        let value_body = if empty {
            quote!(match *self {})
        } else {
            quote!(match self { #(Self::#idents(v) => &**v,)* })
        };
        let entry_docs = names
            .iter()
            .map(|n| format!(" {} `{n}`.", capitalized(role)));
        let ser_body = if empty {
            quote!(let _ = s; match *self {})
        } else {
            quote!(match self { #(Self::#idents(v) => #rt::serde::Serialize::serialize(v, s),)* })
        };
        quote! {
            #[doc = #doc]
            ///
            /// Each value is boxed: the enum is two words whatever the table holds, so a frame
            /// that carries one is cheap to move (from the parse to its caller, through a
            /// channel).
            #[derive(Debug, Clone, PartialEq)]
            #[non_exhaustive]
            #[allow(deprecated)]
            pub enum #name {
                #(#[doc = #entry_docs] #idents(::std::boxed::Box<<#module::#idents as #trait_>::#assoc>),)*
            }

            #[allow(deprecated)]
            impl #name {
                /// Parses and validates a value by its entry's name.
                pub fn parse(name: &str, json: &str) -> ::core::result::Result<Self, #rt::TableError> {
                    match name {
                        #(#names => <#module::#idents as #trait_>::#parse(json)
                            .map(|v| Self::#idents(::std::boxed::Box::new(v)))
                            .map_err(|error| #rt::TableError::Invalid { name: #names, error }),)*
                        _ => {
                            let _ = json;
                            ::core::result::Result::Err(#rt::TableError::UnknownName(name.to_owned()))
                        }
                    }
                }

                /// The entry's name.
                pub const fn name(&self) -> &'static str {
                    #name_body
                }
            }

            #[allow(deprecated)]
            impl #rt::serde::Serialize for #name {
                fn serialize<S: #rt::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                    #ser_body
                }
            }

            #[allow(deprecated)]
            impl<'de> #rt::ByName<'de> for #name {
                #[inline(never)]
                fn decode_named<'a, D: #rt::serde::Deserializer<'a>>(
                    name: &str,
                    d: D,
                    cx: &mut #rt::Cx,
                    out: &mut ::core::option::Option<Self>,
                ) -> ::core::result::Result<(), D::Error> {
                    match name {
                        #(#names => {
                            *out = <#module::#idents as #trait_>::#decode(d, cx)?.map(|v| Self::#idents(::std::boxed::Box::new(v)));
                            ::core::result::Result::Ok(())
                        })*
                        _ => #rt::unknown_entry(d, cx),
                    }
                }
                fn parse_named(name: &str, json: &str) -> ::core::result::Result<Self, #rt::TableError> {
                    Self::parse(name, json)
                }
                #[inline]
                fn scan_named(name: &str, r: &mut #rt::Scanner<'de>) -> ::core::option::Option<Self> {
                    #scan_by_name
                }
            }

            #[allow(deprecated)]
            impl #rt::Entry for #name {
                fn entry_name(&self) -> &'static str {
                    self.name()
                }
                fn value(&self) -> &(dyn ::core::any::Any + ::core::marker::Send) {
                    #value_body
                }
            }
        }
    }
}
