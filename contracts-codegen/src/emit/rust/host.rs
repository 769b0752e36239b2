//! emit::rust's host: the `Host` trait (one async method per own request the host receives,
//! each refusing as unsupported unless implemented, and one per event the client sends; a
//! base's entries are its `Host`, a supertrait), `dispatch`, `dispatch_payload` and `notify`,
//! which route a request or an event to its method and check a result as the peer will read
//! it, and `Dispatcher`, the host as the runtime's frame machinery calls it. A protocol whose
//! tables have two sides (the host sends requests, the client events: MCP, ACP) also gets
//! the client's side: `ClientHandler`, `dispatch_to_client`, `notify_client` and
//! `ClientDispatcher`, and each side's adapter to the runtime's JSON-RPC connection
//! (`HostSide`, `ClientSide`). Failures are the protocol's own `#[error]`.

use super::docs::docs_attrs;
use super::{At, Emitter};
use crate::model::{Event, Model, Request, TypeRef};
use crate::names::rust_type_name;
use crate::names::{rust_field, rust_ident};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// One side of a two-sided protocol: the host's, or the client's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Host,
    Client,
}

impl Side {
    /// Whether this side receives a request of `r`.
    fn answers(self, r: &Request) -> bool {
        match self {
            Side::Host => r.sender().from_client(),
            Side::Client => r.sender().from_server(),
        }
    }

    /// Whether this side receives event `e`.
    fn hears(self, e: &Event) -> bool {
        match self {
            Side::Host => e.sender().from_client(),
            Side::Client => e.sender().from_server(),
        }
    }

    /// The names of its items: the trait, `dispatch`, `dispatch_payload`, `notify`, the
    /// dispatcher.
    fn names(self) -> [Ident; 5] {
        let names = match self {
            Side::Host => [
                "Host",
                "dispatch",
                "dispatch_payload",
                "notify",
                "Dispatcher",
            ],
            Side::Client => [
                "ClientHandler",
                "dispatch_to_client",
                "dispatch_payload_to_client",
                "notify_client",
                "ClientDispatcher",
            ],
        };
        names.map(|n| format_ident!("{n}"))
    }

    /// Who this side is, in docs.
    fn who(self) -> &'static str {
        match self {
            Side::Host => "host",
            Side::Client => "client",
        }
    }
}

impl Emitter<'_> {
    /// The path of the error a host answers with: the protocol's `#[error]` struct (its own or
    /// a base's), else `RustOptions::default_error` (the agent's `WireError`).
    pub(super) fn error_path(&self) -> TokenStream {
        match self.model.model().error_type() {
            Some((owner, def)) => {
                let r = TypeRef {
                    name: def.name.clone(),
                    protocol: (owner.name != self.model.name).then(|| owner.name.clone()),
                };
                self.type_path(self.model, &r, At::Root)
            }
            None => self.default_error.clone(),
        }
    }

    /// The host's items, and the client's for a protocol whose tables have two sides.
    pub(super) fn host(&self) -> TokenStream {
        let host = self.side(Side::Host);
        let client = if self.model.model().two_sided() {
            let client = self.side(Side::Client);
            let from_client = self.calls(Side::Host);
            let from_host = self.calls(Side::Client);
            let serve_host = self.rpc_side(Side::Host);
            let serve_client = self.rpc_side(Side::Client);
            quote!(#client #from_client #from_host #serve_host #serve_client)
        } else {
            TokenStream::new()
        };
        quote!(#host #client)
    }

    /// The typed caller of the side that sends to `to`: `ClientCalls` (what a client sends its
    /// host) for `Side::Host`, `HostCalls` (what a host sends its client) for `Side::Client`.
    /// A method per request (its result read by the table) and per event (a notification),
    /// through any `Call`.
    fn calls(&self, to: Side) -> TokenStream {
        let rt = &self.rt;
        let (name, doc) = match to {
            Side::Host => (
                format_ident!("ClientCalls"),
                " What a client sends its host, typed: a method per request a client sends \
                 (answering its result, read by the request's table) and per event it sends, \
                 through any `wire::Call` (a JSON-RPC connection).",
            ),
            Side::Client => (
                format_ident!("HostCalls"),
                " What a host sends its client, typed: a method per request a host sends \
                 (answering its result, read by the request's table) and per event it sends, \
                 through any `wire::Call` (a JSON-RPC connection).",
            ),
        };
        let requests = self.model.all_requests();
        let events = self.model.all_events();
        let request_methods = requests
            .iter()
            .filter(|(_, r)| to.answers(r))
            .map(|(owner, r)| {
                let ident = format_ident!("{}", rust_type_name(&r.name));
                let method = rust_ident(&rust_field(&r.name));
                let docs = docs_attrs(&r.docs);
                let line = format!(" Sends [`{ident}`](requests::{ident}) (`{}`).", r.name);
                let payload_ty = self.rust_ty(owner, &r.payload, At::Root, false);
                let result_ty = self.rust_ty(owner, &r.result, At::Root, false);
                quote! {
                    #docs
                    #[doc = #line]
                    pub async fn #method(
                        &self,
                        payload: #payload_ty,
                    ) -> ::core::result::Result<#result_ty, #rt::CallError<C::Error>> {
                        #rt::call_typed::<requests::#ident, C>(self.0, &payload).await
                    }
                }
            });
        let event_methods = events
            .iter()
            .filter(|(_, e)| to.hears(e))
            .map(|(owner, e)| {
                let ident = format_ident!("{}", rust_type_name(&e.name));
                let method = rust_ident(&rust_field(&e.name));
                let docs = docs_attrs(&e.docs);
                let line = format!(
                    " Sends [`{ident}`](events::{ident}) (`{}`), a notification.",
                    e.name
                );
                let payload_ty = self.rust_ty(owner, &e.payload, At::Root, false);
                quote! {
                    #docs
                    #[doc = #line]
                    pub async fn #method(
                        &self,
                        payload: #payload_ty,
                    ) -> ::core::result::Result<(), #rt::CallError<C::Error>> {
                        #rt::notify_typed::<events::#ident, C>(self.0, &payload).await
                    }
                }
            });
        quote! {
            #[doc = #doc]
            pub struct #name<'c, C: ?::core::marker::Sized>(
                /// The connection every call goes through.
                pub &'c C,
            );

            #[allow(deprecated)]
            impl<C: #rt::Call + ?::core::marker::Sized> #name<'_, C> {
                #(#request_methods)*
                #(#event_methods)*
            }
        }
    }

    /// A side as a JSON-RPC connection serves it: `HostSide(host)` or `ClientSide(client)`,
    /// the runtime's `rpc::Handler` by the side's `dispatch` and `notify` functions.
    fn rpc_side(&self, side: Side) -> TokenStream {
        let rt = &self.rt;
        let err = self.error_path();
        let [trait_name, dispatch, _, notify, _] = side.names();
        let heard = self.model.all_events().iter().any(|(_, e)| side.hears(e));
        let (name, who, example) = match side {
            Side::Host => (
                format_ident!("HostSide"),
                "host",
                "rpc::serve(port, options, |peer| HostSide(MyHost { client: peer }))",
            ),
            Side::Client => (
                format_ident!("ClientSide"),
                "client",
                "rpc::connect(port, options, |_| ClientSide(MyClient))",
            ),
        };
        let notified = if heard {
            format!(", each notification to [`{notify}`]")
        } else {
            String::new()
        };
        let doc = format!(
            " A {who} as a JSON-RPC connection serves it (`contracts::rpc`): each request goes \
             to [`{dispatch}`]{notified}. `{example}`."
        );
        let notification = if heard {
            quote! {
                async move {
                    match <EventPayload as #rt::ByName<'_>>::read_named(method, params.get()) {
                        ::core::result::Result::Ok(payload) => {
                            #notify(&self.0, payload).await;
                            ::core::result::Result::Ok(())
                        }
                        ::core::result::Result::Err(e) => ::core::result::Result::Err(#rt::table_refusal(&e)),
                    }
                }
            }
        } else {
            quote! {
                async move {
                    let _ = (method, params);
                    ::core::result::Result::Ok(())
                }
            }
        };
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Default)]
            pub struct #name<H>(
                /// The side served.
                pub H,
            );

            impl<H: #trait_name + ::core::marker::Send + 'static> #rt::RpcHandler for #name<H> {
                type Error = #err;
                fn request(
                    &self,
                    method: &str,
                    params: &#rt::RawValue,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #err>,
                > + ::core::marker::Send {
                    #dispatch(&self.0, method, params)
                }
                fn notification(
                    &self,
                    method: &str,
                    params: &#rt::RawValue,
                ) -> impl ::core::future::Future<Output = ::core::result::Result<(), #err>>
                       + ::core::marker::Send {
                    #notification
                }
            }
        }
    }

    /// One side's trait, dispatch functions and dispatcher.
    fn side(&self, side: Side) -> TokenStream {
        let rt = &self.rt;
        let err = self.error_path();
        let [trait_name, dispatch, dispatch_payload, notify, dispatcher] = side.names();
        let who = side.who();
        let own = |owner: &Model| std::ptr::eq(owner, self.model.model());
        let requests = self.model.all_requests();
        let events = self.model.all_events();
        let methods = requests
            .iter()
            .filter(|(owner, r)| own(owner) && side.answers(r))
            .map(|(owner, r)| self.request_method(owner, r, &err));
        let listeners = events
            .iter()
            .filter(|(owner, e)| own(owner) && side.hears(e))
            .map(|(owner, e)| self.event_method(owner, e));
        let arms: Vec<TokenStream> = requests
            .iter()
            .map(|(owner, r)| self.dispatch_arm(side, owner, r))
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
        // A trait's bases: each base's trait of the same side (a base with one side has no
        // client's trait), named by an alias of the base's name (`AgentHost`), so the trait's
        // page reads `trait Host: AgentHost`, not `trait Host: Host`.
        let (supers, super_uses): (Vec<Ident>, Vec<TokenStream>) = self
            .model
            .bases
            .iter()
            .filter(|b| side == Side::Host || b.two_sided())
            .map(|b| {
                let base = self.base_path(&b.name);
                let alias = format_ident!("{}{trait_name}", rust_type_name(&b.name));
                let doc = format!(
                    " The `{}` protocol's `{trait_name}`, a supertrait of this protocol's \
                     [`{trait_name}`].",
                    b.name
                );
                let item = quote! {
                    #[doc = #doc]
                    #[doc(no_inline)]
                    pub use #base::#trait_name as #alias;
                };
                (alias, item)
            })
            .unzip();
        let heard: Vec<&(&Model, &Event)> = events.iter().filter(|(_, e)| side.hears(e)).collect();
        let notify_fn = if heard.is_empty() {
            TokenStream::new()
        } else {
            let arms = heard
                .iter()
                .map(|(owner, e)| self.notify_arm(side, owner, e));
            let doc = format!(
                " Calls the {who}'s method for an event it receives (a notification); an event \
                 only the other side receives is dropped, as JSON-RPC drops a notification \
                 nobody handles."
            );
            quote! {
                #[doc = #doc]
                #[allow(deprecated)]
                pub async fn #notify<H: #trait_name + ?::core::marker::Sized>(
                    host: &H,
                    payload: EventPayload,
                ) {
                    #[allow(unreachable_patterns)]
                    match payload {
                        #(#arms)*
                        _ => {}
                    }
                }
            }
        };
        let trait_doc = match side {
            Side::Host => {
                " What a host does: one method per request of this protocol it receives \
                 (and one per event a client sends it). Every request method refuses as \
                 unsupported unless the host implements it; an event's does nothing. The entries \
                 of a base protocol are the methods of its `Host`, a supertrait (`AgentHost` for \
                 the `agent` base): a host implements both, and [`dispatch`] routes every name."
            }
            Side::Client => {
                " What a client does when the host asks: one method per request the \
                 host sends (and one per event it sends). Every request method refuses as \
                 unsupported unless the client implements it; an event's does nothing. \
                 [`dispatch_to_client`] routes every name."
            }
        };
        let dispatcher_doc = format!(
            " A {who} as the runtime's frame machinery calls it: every name of this protocol's \
             tables goes to [`{dispatch}`]."
        );
        let dispatch_doc = format!(
            " Parses a request's payload by its name, straight into the typed payload (the fast \
             reader first, `ByName::read_named`), and calls the {who}'s method (see \
             [`{dispatch_payload}`]). An unknown name and an invalid payload are refused."
        );
        let dispatch_payload_doc = format!(
            " Calls the {who}'s method for a parsed payload; the result is written as raw JSON, \
             checked first as the peer will read it: a result the peer would refuse is answered \
             as an `internal` failure naming the field and its limit, never sent. A request \
             only the other side receives is refused as an unknown name."
        );
        quote! {
            #(#super_uses)*

            #[doc = #trait_doc]
            #[allow(deprecated)]
            pub trait #trait_name: #(#supers +)* ::core::marker::Sync {
                #(#methods)*
                #(#listeners)*
            }

            #[doc = #dispatch_doc]
            #[allow(deprecated)]
            pub async fn #dispatch<H: #trait_name + ?::core::marker::Sized>(
                host: &H,
                name: &str,
                payload: &#rt::RawValue,
            ) -> ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #err> {
                match <RequestPayload as #rt::ByName<'_>>::read_named(name, payload.get()) {
                    ::core::result::Result::Ok(payload) => #dispatch_payload(host, payload).await,
                    ::core::result::Result::Err(e) => ::core::result::Result::Err(#rt::table_refusal(&e)),
                }
            }

            #[doc = #dispatch_payload_doc]
            #[allow(deprecated)]
            pub async fn #dispatch_payload<H: #trait_name + ?::core::marker::Sized>(
                host: &H,
                payload: RequestPayload,
            ) -> ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #err> {
                #dispatch_body
            }

            #notify_fn

            #[doc = #dispatcher_doc]
            pub struct #dispatcher<'h, H: ?::core::marker::Sized>(
                /// The side every request goes to.
                pub &'h H,
            );

            impl<H: #trait_name + ?::core::marker::Sized> #rt::Dispatch for #dispatcher<'_, H> {
                type Payload = RequestPayload;
                type Error = #err;
                fn dispatch_payload(
                    &self,
                    payload: RequestPayload,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<::std::boxed::Box<#rt::RawValue>, #err>,
                > + ::core::marker::Send {
                    #dispatch_payload(self.0, payload)
                }
            }
        }
    }

    /// The method for an own request a side receives: it refuses as unsupported by default.
    fn request_method(&self, owner: &Model, r: &Request, err: &TokenStream) -> TokenStream {
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
                Output = ::core::result::Result<#result_ty, #err>,
            > + ::core::marker::Send {
                async move {
                    let _ = payload;
                    ::core::result::Result::Err(#rt::unsupported(<requests::#ident as #rt::Request>::METHOD))
                }
            }
        }
    }

    /// The method for an own event a side receives: it does nothing by default.
    fn event_method(&self, owner: &Model, e: &Event) -> TokenStream {
        let ident = format_ident!("{}", rust_type_name(&e.name));
        let name = e.name.as_str();
        let method = rust_ident(&rust_field(&e.name));
        let docs = docs_attrs(&e.docs);
        let doc_default = format!(
            " Hears [`{ident}`](events::{ident}) (`{name}`), a notification: nothing is \
             answered; the default does nothing."
        );
        let docs = if e.docs.is_empty() {
            docs
        } else {
            quote!(#docs #[doc = ""])
        };
        let payload_ty = self.rust_ty(owner, &e.payload, At::Root, false);
        quote! {
            #docs
            #[doc = #doc_default]
            fn #method(
                &self,
                payload: #payload_ty,
            ) -> impl ::core::future::Future<Output = ()> + ::core::marker::Send {
                async move {
                    let _ = payload;
                }
            }
        }
    }

    /// The base trait of `side` that holds `owner`'s methods, or `None` for this model's own.
    fn owner_trait(&self, side: Side, owner: &Model) -> Option<TokenStream> {
        if std::ptr::eq(owner, self.model.model()) {
            return None;
        }
        let base = self.base_path(&owner.name);
        let [trait_name, ..] = side.names();
        Some(quote!(#base::#trait_name))
    }

    /// The dispatch arm for a request: its method called and the result written, or, for a
    /// request only the other side receives, refused as an unknown name.
    fn dispatch_arm(&self, side: Side, owner: &Model, r: &Request) -> TokenStream {
        let rt = &self.rt;
        let ident = format_ident!("{}", rust_type_name(&r.name));
        let method = rust_ident(&rust_field(&r.name));
        if !side.answers(r) {
            return quote! {
                RequestPayload::#ident(_) => ::core::result::Result::Err(
                    #rt::not_received(<requests::#ident as #rt::Request>::METHOD),
                ),
            };
        }
        match self.owner_trait(side, owner) {
            None => quote! {
                RequestPayload::#ident(payload) => {
                    #rt::result_to_raw::<requests::#ident, _>(&host.#method(*payload).await?)
                }
            },
            Some(base) => quote! {
                RequestPayload::#ident(payload) => {
                    #rt::result_to_raw::<requests::#ident, _>(
                        &<H as #base>::#method(host, *payload).await?,
                    )
                }
            },
        }
    }

    /// `notify`'s arm for an event a side receives: its method called.
    fn notify_arm(&self, side: Side, owner: &Model, e: &Event) -> TokenStream {
        let ident = format_ident!("{}", rust_type_name(&e.name));
        let method = rust_ident(&rust_field(&e.name));
        match self.owner_trait(side, owner) {
            None => quote!(EventPayload::#ident(payload) => host.#method(*payload).await,),
            Some(base) => {
                quote!(EventPayload::#ident(payload) => <H as #base>::#method(host, *payload).await,)
            }
        }
    }
}
