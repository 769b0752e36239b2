//! emit::rust's tables: one type per request and event (`requests::ChatCreate`, with its wire
//! name, payload and result, and their decode and fast-read functions), the name lists,
//! the by-name enums (`RequestPayload`, `RequestResult`, `EventPayload`) that read a value by
//! its entry's name, and `check_type`, which reads a type no entry reaches by its name.

use super::docs::{docs_attrs, meta_attrs};
use super::paths::map_some;
use super::scan::match_name;
use super::{At, Emitter};
use crate::model::{Docs, Meta, Model, TableKind, Ty, TypeDef, TypeDefKind, TypeRef};
use crate::names::rust_field;
use crate::names::rust_type_name;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Which side of a table's entries: a request's or an event's payload, or a request's result.
#[derive(Clone, Copy)]
pub(super) enum Side {
    Payload,
    Result,
}

impl Side {
    /// The side as it is named in functions (`decode_payload`) and in docs.
    fn word(self) -> &'static str {
        match self {
            Side::Payload => "payload",
            Side::Result => "result",
        }
    }

    /// The associated type of `Request` or `Event` that holds the side (`Payload`).
    fn assoc(self) -> Ident {
        match self {
            Side::Payload => format_ident!("Payload"),
            Side::Result => format_ident!("Result"),
        }
    }
}

/// One of the tables' by-name enums: a table and a side of its entries (`RequestResult`).
#[derive(Clone, Copy)]
pub(super) struct ByName {
    pub(super) table: TableKind,
    pub(super) side: Side,
}

impl ByName {
    /// What one entry of the table is called in docs.
    fn entity(self) -> &'static str {
        match self.table {
            TableKind::Requests => "request",
            TableKind::Events => "event",
        }
    }

    /// The enum's name (`RequestPayload`).
    pub(super) fn name(self) -> Ident {
        let table = match self.table {
            TableKind::Requests => "Request",
            TableKind::Events => "Event",
        };
        format_ident!("{table}{}", self.side.assoc())
    }

    /// The enum's doc line, and with `view` its view's.
    pub(super) fn doc(self, view: bool) -> String {
        let e = self.entity();
        let view = if view { ", as a borrowed view" } else { "" };
        format!(" Any {e}'s {}, by the {e}'s name{view}.", self.side.word())
    }

    /// What a variant holds, as its doc starts (`The payload of request`).
    pub(super) fn role(self) -> String {
        format!("The {} of {}", self.side.word(), self.entity())
    }

    /// Every entry of `model`'s composed table (bases first): its name, the model that declares
    /// it and the type of this side.
    pub(super) fn entries(self, model: &Model) -> Vec<(&str, &Model, &Ty)> {
        match (self.table, self.side) {
            (TableKind::Requests, side) => model
                .all_requests()
                .into_iter()
                .map(|(owner, r)| {
                    let ty = match side {
                        Side::Payload => &r.payload,
                        Side::Result => &r.result,
                    };
                    (r.name.as_str(), owner, ty)
                })
                .collect(),
            (TableKind::Events, _) => model
                .all_events()
                .into_iter()
                .map(|(owner, ev)| (ev.name.as_str(), owner, &ev.payload))
                .collect(),
        }
    }

    /// The entries `model` declares itself, as [`ByName::entries`] gives them.
    pub(super) fn own_entries(self, model: &Model) -> Vec<(&str, &Model, &Ty)> {
        self.entries(model)
            .into_iter()
            .filter(|(_, owner, _)| std::ptr::eq(*owner, model))
            .collect()
    }

    /// The table's module and trait (`requests`, `Request`).
    fn module_and_trait(self, rt: &TokenStream) -> (TokenStream, TokenStream) {
        match self.table {
            TableKind::Requests => (quote!(requests), quote!(#rt::Request)),
            TableKind::Events => (quote!(events), quote!(#rt::Event)),
        }
    }
}

/// The three by-name enums, in the order they are generated.
const BY_NAME: [ByName; 3] = [
    ByName {
        table: TableKind::Requests,
        side: Side::Payload,
    },
    ByName {
        table: TableKind::Requests,
        side: Side::Result,
    },
    ByName {
        table: TableKind::Events,
        side: Side::Payload,
    },
];

/// A direct base of a composed protocol, as one of its by-name enums reads the base's entries:
/// through the base's own enum (`::contracts::agent::RequestPayload`), its value moved into the
/// composed enum's variant of the same name by `from` (`from_base_agent`), a generated match.
/// The composed table's code per base entry is that one arm, not a decoder call of its own.
pub(super) struct BaseTable<'m> {
    /// The base's enum.
    pub(super) path: TokenStream,
    /// Its lifetime, `<'de>` for a view's (in scope where the table is read), else empty.
    pub(super) lifetime: TokenStream,
    /// The base's entries (its own bases' first), by wire name.
    pub(super) names: Vec<&'m str>,
    /// Their variants, the same in both enums.
    pub(super) idents: Vec<Ident>,
    /// The composed enum's function that takes the base's value.
    pub(super) from: Ident,
}

impl BaseTable<'_> {
    /// `from`: the base's value as the composed enum's (`None` for an entry the composed
    /// table lacks, which only a base built from another schema can hold).
    pub(super) fn conversion(&self) -> TokenStream {
        let (path, idents, from) = (&self.path, &self.idents, &self.from);
        let lifetime = &self.lifetime;
        quote! {
            #[allow(unreachable_patterns)]
            fn #from(v: #path #lifetime) -> ::core::option::Option<Self> {
                match v {
                    #(#path::#idents(v) => ::core::option::Option::Some(Self::#idents(v)),)*
                    _ => ::core::option::Option::None,
                }
            }
        }
    }
}

/// The by-name dispatch of a composed enum: `own` (a pattern and its arm per entry the
/// protocol declares), then each base's entries through `base(table)`, the last base taking
/// every other name (its own answer for a name no table knows), or `unknown` when there is no
/// base.
pub(super) fn dispatch_by_name(
    own: Vec<TokenStream>,
    bases: &[BaseTable<'_>],
    base: impl Fn(&BaseTable<'_>) -> TokenStream,
    unknown: TokenStream,
) -> TokenStream {
    let mut arms = own;
    for (i, t) in bases.iter().enumerate() {
        let call = base(t);
        if i + 1 == bases.len() {
            arms.push(quote!(_ => #call,));
        } else {
            let names = &t.names;
            arms.push(quote!(#(#names)|* => #call,));
        }
    }
    if bases.is_empty() {
        arms.push(quote!(_ => #unknown,));
    }
    quote!(match name { #(#arms)* })
}

/// The end of a composed enum's fast reader by name, after its own entries' (`name` and `r`
/// in scope): each base's `scan_named` for the base's names, the last base's for any other.
pub(super) fn scan_bases(rt: &TokenStream, bases: &[BaseTable<'_>]) -> TokenStream {
    let Some((last, init)) = bases.split_last() else {
        return quote! {
            let _ = r;
            ::core::option::Option::None
        };
    };
    let call = |t: &BaseTable<'_>| {
        let (path, lifetime, from) = (&t.path, &t.lifetime, &t.from);
        quote!(#rt::scan_from_base::<#path #lifetime, Self>(name, r, Self::#from))
    };
    let guarded = init.iter().map(|t| {
        let names = &t.names;
        let call = call(t);
        quote!(if ::core::matches!(name, #(#names)|*) { return #call; })
    });
    let last = call(last);
    quote! {
        #(#guarded)*
        #last
    }
}

/// An entry's doc comment: its own, then its wire name.
fn entry_docs(docs: &Docs, name: &str) -> TokenStream {
    let wire = format!(" Wire name: `{name}`.");
    if docs.is_empty() {
        quote!(#[doc = #wire])
    } else {
        let docs = docs_attrs(docs);
        quote!(#docs #[doc = ""] #[doc = #wire])
    }
}

impl Emitter<'_> {
    /// `check_type`: every named type of the protocol but its aliases, each read from JSON by its
    /// schema name, so `validate --as type` and the corpus check them as bare values (`"as":
    /// "type"`), as the TypeScript package's schema of the same name does.
    pub(super) fn check_type(&self) -> TokenStream {
        let rt = &self.rt;
        let outside: Vec<&TypeDef> = (self.model.types.iter())
            .filter(|d| !matches!(d.kind, TypeDefKind::Alias(_)))
            .collect();
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

            /// Reads `json` as the type called `name`, any named type of the protocol but an alias (a base
            /// protocol's types are its own `check_type`'s): its verdict as a bare value.
            /// `None`: no such type.
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

    /// The tables: the `requests` and `events` modules, the name lists, the by-name enums and
    /// their views, then the host (`host.rs`).
    pub(super) fn tables(&self) -> TokenStream {
        let requests = self.model.all_requests().into_iter().map(|(owner, r)| {
            let ident = format_ident!("{}", rust_type_name(&r.name));
            if !std::ptr::eq(owner, self.model.model()) {
                let base = self.base_path(&owner.name);
                return quote!(pub use #base::requests::#ident;);
            }
            let at = At::Module("requests");
            let metadata = r.metadata().map(|(attr, t)| {
                let ty = self.rust_ty(owner, t, at, false);
                let schema = self.schema(owner, t, at, false);
                let (trait_, assoc, parse) = match attr {
                    "partial" => (
                        quote!(PartialResult),
                        quote!(Partial),
                        quote!(parse_partial),
                    ),
                    _ => (quote!(ErrorData), quote!(Data), quote!(parse_error_data)),
                };
                let rt = &self.rt;
                quote! {
                    #[allow(deprecated)]
                    impl #rt::#trait_ for #ident {
                        type #assoc = #ty;
                        fn #parse(json: &str) -> ::core::result::Result<#ty, #rt::ParseError> {
                            #rt::parse_with(
                                json,
                                |r| #rt::Schema::scan(#schema, r),
                                |d, cx| #rt::Schema::decode(#schema, d, cx),
                            )
                        }
                    }
                }
            });
            let metadata: Vec<TokenStream> = metadata.collect();
            let item = self.entry_item(
                &r.name,
                &r.docs,
                &r.meta,
                &[
                    (
                        Side::Payload,
                        self.rust_ty(owner, &r.payload, at, false),
                        self.schema(owner, &r.payload, at, false),
                    ),
                    (
                        Side::Result,
                        self.rust_ty(owner, &r.result, at, false),
                        self.schema(owner, &r.result, at, false),
                    ),
                ],
                TableKind::Requests,
            );
            quote!(#item #(#metadata)*)
        });
        let events = self.model.all_events().into_iter().map(|(owner, ev)| {
            let ident = format_ident!("{}", rust_type_name(&ev.name));
            if !std::ptr::eq(owner, self.model.model()) {
                let base = self.base_path(&owner.name);
                return quote!(pub use #base::events::#ident;);
            }
            let at = At::Module("events");
            self.entry_item(
                &ev.name,
                &ev.docs,
                &ev.meta,
                &[(
                    Side::Payload,
                    self.rust_ty(owner, &ev.payload, at, false),
                    self.schema(owner, &ev.payload, at, false),
                )],
                TableKind::Events,
            )
        });
        let requests: Vec<TokenStream> = requests.collect();
        let events: Vec<TokenStream> = events.collect();
        let req_names = self
            .model
            .all_requests()
            .into_iter()
            .map(|(_, r)| r.name.as_str());
        let ev_names = self
            .model
            .all_events()
            .into_iter()
            .map(|(_, ev)| ev.name.as_str());
        // `decode_payload` and `decode_named` are out of line: the by-name match stays a small
        // dispatch instead of every payload's decoder inlined into it, which keeps a mixed run
        // of frames in the instruction cache (docs/benchmarks-history.md).
        let by_name = BY_NAME.map(|b| self.by_name_enum(b));
        let views = [BY_NAME[0], BY_NAME[2]].map(|b| self.by_name_view(b));
        let host = self.host();
        quote! {
            /// The request table: one type per request, with its wire name, payload and result.
            #[allow(deprecated)]
            pub mod requests {
                #(#requests)*
            }

            /// The event table: one type per event, with its wire name and payload.
            #[allow(deprecated)]
            pub mod events {
                #(#events)*
            }

            /// Every request name, in table order.
            pub const REQUEST_NAMES: &[&str] = &[#(#req_names),*];

            /// Every event name, in table order.
            pub const EVENT_NAMES: &[&str] = &[#(#ev_names),*];

            #(#by_name)*
            #(#views)*

            #host
        }
    }

    /// An own entry's type in its table's module: a unit struct implementing `Request` or
    /// `Event`, with its wire name and, per side, its type and functions.
    fn entry_item(
        &self,
        name: &str,
        docs: &Docs,
        meta: &Meta,
        sides: &[(Side, TokenStream, TokenStream)],
        table: TableKind,
    ) -> TokenStream {
        let rt = &self.rt;
        let ident = format_ident!("{}", rust_type_name(name));
        let docs = entry_docs(docs, name);
        let meta = meta_attrs(meta);
        let types = sides.iter().map(|(side, ty, _)| {
            let assoc = side.assoc();
            quote!(type #assoc = #ty;)
        });
        let fns = sides
            .iter()
            .map(|(side, _, schema)| self.entry_fns(*side, schema));
        let (trait_, konst) = match table {
            TableKind::Requests => (quote!(#rt::Request), quote!(METHOD)),
            TableKind::Events => (quote!(#rt::Event), quote!(NAME)),
        };
        quote! {
            #docs
            #meta
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub struct #ident;

            #[allow(deprecated)]
            impl #trait_ for #ident {
                const #konst: &'static str = #name;
                #(#types)*
                #(#fns)*
            }
        }
    }

    /// A table entry's decode and fast-read functions for one side (`payload` or `result`):
    /// `decode_payload` reads a frame being read, `scan_payload` plain, valid text; the trait's
    /// provided `parse_payload` reads JSON text with both. The decoder is out of line: the
    /// by-name match stays a small dispatch.
    fn entry_fns(&self, side: Side, schema: &TokenStream) -> TokenStream {
        let rt = &self.rt;
        let decode = format_ident!("decode_{}", side.word());
        let scan = format_ident!("scan_{}", side.word());
        let assoc = side.assoc();
        quote! {
            #[inline(never)]
            fn #decode(
                d: &mut dyn #rt::Src<'_>,
                cx: &mut #rt::Cx,
            ) -> #rt::Read<::core::option::Option<Self::#assoc>> {
                #rt::Schema::decode(#schema, d, cx)
            }
            #[inline]
            fn #scan(r: &mut #rt::Scanner<'_>) -> ::core::option::Option<Self::#assoc> {
                #rt::Schema::scan(#schema, r)
            }
        }
    }

    /// The direct bases whose entries `b`'s enum (its view's, with `view`) reads through the
    /// base's own, in table order. A base whose entries hold no text has no view enum: a
    /// view reads its entries through the base's owned enum, whose variants hold the same
    /// types.
    pub(super) fn base_tables(&self, b: ByName, view: bool) -> Vec<BaseTable<'_>> {
        let name = b.name();
        self.model
            .bases
            .iter()
            .filter_map(|base| {
                let entries = b.entries(base);
                if entries.is_empty() {
                    return None;
                }
                let viewed = view
                    && entries
                        .iter()
                        .any(|(_, owner, ty)| self.view_ty(owner, ty, At::Root, false).is_some());
                let krate = self.base_path(&base.name);
                let (path, lifetime) = if viewed {
                    let view = format_ident!("{name}Ref");
                    (quote!(#krate::#view), quote!(<'de>))
                } else {
                    (quote!(#krate::#name), TokenStream::new())
                };
                Some(BaseTable {
                    path,
                    lifetime,
                    names: entries.iter().map(|(n, _, _)| *n).collect(),
                    idents: entries
                        .iter()
                        .map(|(n, _, _)| format_ident!("{}", rust_type_name(n)))
                        .collect(),
                    from: format_ident!("from_base_{}", rust_field(&base.name)),
                })
            })
            .collect()
    }

    /// A by-name enum (`RequestPayload`): one boxed variant per entry of the table, parsed,
    /// decoded and read by the entry's name (`ByName`), written as its value.
    fn by_name_enum(&self, b: ByName) -> TokenStream {
        let name = b.name();
        let doc = b.doc(false);
        let role = b.role();
        let entries = b.entries(self.model);
        let names: Vec<&str> = entries.iter().map(|(n, _, _)| *n).collect();
        let names = names.as_slice();
        let idents: Vec<Ident> = names
            .iter()
            .map(|n| format_ident!("{}", rust_type_name(n)))
            .collect();
        let (module, trait_) = b.module_and_trait(&self.rt);
        // Each variant holds its entry's type, written as it is (`Box<ChatInfo>`), so the
        // enum's page shows it, not the entry's associated type.
        let tys: Vec<TokenStream> = entries
            .iter()
            .map(|(_, owner, ty)| self.rust_ty(owner, ty, At::Root, false))
            .collect();
        let decode = format_ident!("decode_{}", b.side.word());
        let scan = format_ident!("scan_{}", b.side.word());
        let rt = &self.rt;
        let empty = names.is_empty();
        let name_body = if empty {
            quote!(match *self {})
        } else {
            quote!(match self { #(Self::#idents(_) => #names,)* })
        };
        // The arms for the entries this protocol declares; a base's go through its own enum.
        let own: Vec<&str> = b
            .own_entries(self.model)
            .into_iter()
            .map(|(n, _, _)| n)
            .collect();
        let own_idents: Vec<Ident> = own
            .iter()
            .map(|n| format_ident!("{}", rust_type_name(n)))
            .collect();
        let bases = self.base_tables(b, false);
        let from_fns = bases.iter().map(BaseTable::conversion);
        // The decoder alone reads by name: the fast readers are compiled where they are called.
        let names_const = match b.table {
            TableKind::Requests => quote!(self::REQUEST_NAMES),
            TableKind::Events => quote!(self::EVENT_NAMES),
        };
        let parse_by_name = quote!(#rt::parse_by_name::<Self>(#names_const, name, json));
        let decode_by_name = dispatch_by_name(
            own.iter()
                .zip(&own_idents)
                .map(|(n, id)| {
                    let value = map_some(
                        quote!(<#module::#id as #trait_>::#decode(d, cx)?),
                        quote!(Self::#id(::std::boxed::Box::new(v))),
                    );
                    quote!(#n => {
                        *out = #value;
                        ::core::result::Result::Ok(())
                    })
                })
                .collect(),
            &bases,
            |t| {
                let (path, from) = (&t.path, &t.from);
                quote!(#rt::decode_from_base::<#path, Self>(name, d, cx, out, Self::#from))
            },
            quote!(#rt::unknown_entry(d, cx)),
        );
        let scans: Vec<TokenStream> = own_idents
            .iter()
            .map(|id| {
                map_some(
                    quote!(<#module::#id as #trait_>::#scan(r)),
                    quote!(Self::#id(::std::boxed::Box::new(v))),
                )
            })
            .collect();
        let scan_by_name = match_name(rt, &own, &scans, &scan_bases(rt, &bases));
        let value_body = if empty {
            quote!(match *self {})
        } else {
            quote!(match self { #(Self::#idents(v) => &**v,)* })
        };
        let entry_docs = names.iter().map(|n| format!(" {} `{n}`.", role));
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
                #(#[doc = #entry_docs] #idents(::std::boxed::Box<#tys>),)*
            }

            #[allow(deprecated)]
            impl #name {
                /// Parses and validates a value by its entry's name, with the decoder alone: the
                /// crate compiles one reader per type. `ByName::read_named` gives the same verdict
                /// with the fast reader first, compiled where it is called.
                pub fn parse(name: &str, json: &str) -> ::core::result::Result<Self, #rt::TableError> {
                    #parse_by_name
                }

                #(#from_fns)*

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
                fn decode_named<'a>(
                    name: &str,
                    d: &mut dyn #rt::Src<'a>,
                    cx: &mut #rt::Cx,
                    out: &mut ::core::option::Option<Self>,
                ) -> #rt::Read<()> {
                    #decode_by_name
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
