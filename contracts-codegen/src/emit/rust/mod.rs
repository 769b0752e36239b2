//! emit::rust: the model to Rust tokens, for the macro. This module holds the entry points
//! (`emit`, `expansion`, `format`, `emit_pretty`, `usage`), the options, the emitter's shared context and the layout of
//! the generated tree (root types, one module per schema directory, the tables); each job is a
//! file of its own:
//!
//! | file          | emits                                                                 |
//! |---------------|-----------------------------------------------------------------------|
//! | `block.rs`    | a type's impls (its view's too) in one `const _` block, short paths   |
//! | `docs.rs`     | doc comments and attributes (`#[deprecated]`, `#[non_exhaustive]`)    |
//! | `paths.rs`    | Rust names, paths to named types, Rust types                          |
//! | `schema.rs`   | the runtime schema values that read a type, their constants, defaults |
//! | `types.rs`    | the type items: structs with `new` and setters, enums, unions, serde  |
//! | `decode.rs`   | `Decode` for every type, a struct's `Object`, a union's `Tagged`      |
//! | `scan.rs`     | the fast readers (`wire::scan`)                                       |
//! | `view.rs`     | borrowed views `NameRef<'a>` (each module's `views`), by-name views   |
//! | `envelope.rs` | the flat views of the frame envelopes (`RequestRef<'a>`)              |
//! | `typed.rs`    | typed frames `NameTyped<'a, E>` (`wire::typed`)                       |
//! | `tables.rs`   | request and event tables, by-name enums, `check_type`                 |
//! | `host.rs`     | the `Host` trait, `dispatch`, `Dispatcher`                            |
//! | `errors.rs`   | an `#[error]` struct's constructors, an `#[extends]` enum's `From`    |
//! | `usage.rs`    | code a user writes against the generated Rust (for `compat_rust`)     |
//!
//! Generated code reaches the runtime only through one path (`RustOptions::runtime`, by
//! default `::contracts::__private`). Its impls of the runtime's machinery traits (`Decode`,
//! `Object`, `WriteFields`, the views' and typed frames' traits) are `#[doc(hidden)]`: a
//! type's page shows its fields, constructor, setters and serde impls. Every type decodes through the runtime's schemas, which
//! collect every issue with its path, and serialises by hand so literal fields and union tags
//! are written. The emitter never fails and knows no protocol by name.

use crate::analysis::Checked;
use crate::model::{Field, Literal, Struct, TyKind, TypeDef, TypeDefKind, Union, Variant};
use crate::names::{rust_field, rust_ident, rust_type_name};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeMap;

mod block;
mod decode;
mod docs;
mod envelope;
mod errors;
mod host;
mod paths;
mod scan;
mod schema;
mod tables;
mod typed;
mod types;
mod usage;
mod view;

use docs::meta_attrs;
use paths::module_ident;

/// How the generated code is wired to the runtime and to base protocols.
#[derive(Clone, Debug)]
pub struct RustOptions {
    /// The runtime's hidden path, as tokens so that a `$crate` from the runtime's own
    /// `protocol!` wrapper keeps its meaning (the path works whatever an app names the
    /// dependency). By default `::contracts::__private`.
    pub runtime: TokenStream,
    /// For each base protocol, the Rust path of the module it was generated in
    /// (`"agent" -> "::contracts::agent"`).
    pub bases: BTreeMap<String, String>,
    /// The error a host answers with when neither its protocol nor a base declares an
    /// `#[error]` with integer codes: a type that implements the runtime's `HostError`. By
    /// default `::contracts::agent::WireError`, the agent protocol's (the runtime's own
    /// `protocol!` passes `$crate::agent::WireError`).
    pub default_error: TokenStream,
}

impl Default for RustOptions {
    fn default() -> Self {
        RustOptions {
            runtime: quote!(::contracts::__private),
            bases: BTreeMap::new(),
            default_error: quote!(::contracts::agent::WireError),
        }
    }
}

/// Emits the whole protocol as tokens.
pub fn emit(model: &Checked, options: &RustOptions) -> TokenStream {
    let e = Emitter::new(model, options);
    e.protocol()
}

/// Code a user would write against the protocol's generated Rust (`usage`), as items that
/// expect `use <the protocol's module>::*;` beside them.
pub fn usage(model: &Checked, options: &RustOptions) -> TokenStream {
    Emitter::new(model, options).usage()
}

/// What `protocol!` expands to: [`emit`]'s items, after an `include_str!` of every schema
/// file read (this protocol's and its bases', so that an edit rebuilds the crate) and
/// `__SCHEMA_DIR`, where the schema was read from (`schema_dir`, absolute).
pub fn expansion(model: &Checked, options: &RustOptions, schema_dir: &str) -> TokenStream {
    let files: Vec<String> = model
        .bases
        .iter()
        .map(|b| &**b)
        .chain(std::iter::once(model.model()))
        .flat_map(|m| &m.files)
        .map(|f| f.absolute.to_string_lossy().into_owned())
        .collect();
    let body = emit(model, options);
    quote! {
        #(const _: &str = ::core::include_str!(#files);)*
        /// Where this protocol's schema was read from (for tools and apps that extend it).
        #[doc(hidden)]
        pub const __SCHEMA_DIR: &str = #schema_dir;
        #body
    }
}

/// Items formatted by prettyplease (as their tokens' text, should they not parse as a file).
#[cfg(feature = "format")]
pub fn format(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => tokens.to_string(),
    }
}

/// Emits the protocol formatted by prettyplease, with an `@generated` header.
#[cfg(feature = "format")]
pub fn emit_pretty(model: &Checked, options: &RustOptions) -> String {
    let body = format(emit(model, options));
    format!(
        "// @generated by contracts-codegen from the `{}` schema. Do not edit.\n\n{body}",
        model.name
    )
}

/// Which module of the generated tree the code being written sits in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum At<'a> {
    Root,
    Module(&'a str),
}

/// The shared context of every job: the model, the runtime's path, the bases' modules and the
/// hoisted types' roles.
struct Emitter<'a> {
    model: &'a Checked,
    rt: TokenStream,
    /// The error of a host whose protocol has no integer-coded `#[error]` (`RustOptions`).
    default_error: TokenStream,
    bases: &'a BTreeMap<String, String>,
    /// What each hoisted type of this model is, as its doc's first line ("The payload of
    /// [`ChatCreate`] (`chat.create`)."): a hoisted type has no doc comment of its own.
    roles: BTreeMap<String, String>,
    /// Who sends and who reads each type a request or an event of this model holds as its
    /// payload or result ("sent by the client, received by [`Host::chat_send`]"), and how many
    /// other entries hold it.
    readers: BTreeMap<String, (String, usize)>,
}

/// How a struct field is stored.
#[derive(Clone, Copy)]
enum Store {
    /// A required literal: checked and written, not stored.
    Literal,
    /// An optional literal: stored as whether it was present.
    Presence,
    /// Optional with a default: stored as the value.
    Defaulted,
    /// Optional: `Option<T>`.
    Optional,
    /// Required: `T` (nullable types are `Option<..>` themselves).
    Required,
}

/// One field of a struct as every job sees it.
/// The rest of an open struct (`..: T`), as its emitters need it.
struct RestCx {
    /// The Rust type of each value.
    ty: TokenStream,
    /// The runtime schema value that reads one.
    schema: TokenStream,
    /// Whether a value holds a `number`, written through `AsJs`.
    number: bool,
}

struct FieldCx<'a> {
    f: &'a Field,
    /// Its position, which the runtime's field loops go by.
    i: usize,
    store: Store,
    /// Its Rust name (`r#type`).
    ident: Ident,
    /// The variable a generated field loop reads its value into (`f0`).
    slot: Ident,
    /// Whether its value is held in a box (it holds its struct).
    boxed: bool,
    /// The runtime schema value that reads it: its constant's name when it has one.
    schema: TokenStream,
    /// Its schema's constant, for the type's block, when its schema has limits
    /// (`schema::has_const`).
    schema_const: Option<TokenStream>,
    /// Its value's Rust type (an optional field's without the `Option`).
    ty: TokenStream,
}

/// One variant of a union as every job sees it.
struct VariantCx<'a> {
    v: &'a Variant,
    /// Its position.
    i: usize,
    /// Its Rust name (`variant_ident`).
    ident: Ident,
    /// Whether it is held in a box (it holds its union).
    boxed: bool,
    /// The runtime schema value that reads it.
    schema: TokenStream,
    /// The Rust type it holds.
    ty: TokenStream,
}

impl<'a> Emitter<'a> {
    fn new(model: &'a Checked, options: &'a RustOptions) -> Self {
        let mut e = Emitter {
            model,
            rt: options.runtime.clone(),
            default_error: options.default_error.clone(),
            bases: &options.bases,
            roles: BTreeMap::new(),
            readers: BTreeMap::new(),
        };
        e.roles = e.find_roles();
        e.readers = e.find_readers();
        e
    }

    /// The whole generated tree: the root's types, one module per schema directory, then the
    /// tables and `check_type`.
    fn protocol(&self) -> TokenStream {
        let mut root = ModuleItems::default();
        let mut modules: Vec<(String, ModuleItems)> = Vec::new();
        for def in &self.model.types {
            let (at, into) = match &def.module {
                None => (At::Root, &mut root),
                Some(m) => {
                    let i = match modules.iter().position(|(n, _)| n == m) {
                        Some(i) => i,
                        None => {
                            modules.push((m.clone(), Default::default()));
                            modules.len() - 1
                        }
                    };
                    (At::Module(m), &mut modules[i].1)
                }
            };
            let (item, view) = self.type_def(def, at);
            into.items.push(item);
            into.views.push(view);
        }
        let root_views = views_module(&root.views, "the protocol's");
        let root = root.items;
        let modules = modules
            .into_iter()
            .map(|(m, ModuleItems { items, views })| {
                let doc = format!(" The types of the schema's `{m}/` directory.");
                let views = views_module(&views, &format!("the `{m}/` directory's"));
                let m = module_ident(&m);
                // The root's items by name, as the views of this module (`views`, below) write a
                // root type: `super::ChatId` from `m::views` is `m::ChatId`.
                quote! {
                    #[doc = #doc]
                    pub mod #m {
                        #[allow(unused_imports)]
                        use super::*;
                        #(#items)*
                        #views
                    }
                }
            });
        let tables = self.tables();
        let check_type = self.check_type();
        let consts = self.model.consts.iter().map(|k| {
            let name = format_ident!("{}", k.name);
            let mut docs = docs::docs_attrs(&k.docs);
            if k.docs.is_empty() {
                let line = format!(" The constant `{}` of the schema.", k.name);
                docs = quote!(#[doc = #line]);
            }
            let meta = docs::meta_attrs(&k.meta);
            let (ty, value) = match &k.value {
                Literal::String(s) => (quote!(&str), quote!(#s)),
                Literal::Bool(b) => (quote!(bool), quote!(#b)),
                Literal::Int(i) => (quote!(i64), quote!(#i)),
                Literal::Null => (quote!(()), quote!(())),
            };
            quote!(#docs #meta pub const #name: #ty = #value;)
        });
        quote! {
            #(#consts)*
            #(#root)*
            #root_views
            #(#modules)*
            #tables
            #check_type
        }
    }

    /// Everything generated for one type of the schema, in the module `at`: its items (with
    /// their decoders, fast readers and error items), and apart its view, if any.
    fn type_def(&self, def: &TypeDef, at: At<'_>) -> (TokenStream, TokenStream) {
        let errors = self.error_items(def, at);
        let (item, view) = match &def.kind {
            TypeDefKind::Alias(ty) => {
                let docs = self.def_docs(def);
                let meta = meta_attrs(&def.meta);
                let name = format_ident!("{}", rust_type_name(&def.name));
                let schema = self.alias_const(&name, ty, at);
                let ty = self.rust_ty(self.model, ty, at, false);
                let item = quote! {
                    #docs
                    #meta
                    #[allow(deprecated)]
                    pub type #name = #ty;
                    #schema
                };
                (item, TokenStream::new())
            }
            TypeDefKind::Struct(s) => self.struct_def(def, s, at),
            TypeDefKind::Enum(e) => (self.enum_def(def, e), TokenStream::new()),
            TypeDefKind::Union(u) => self.union_def(def, u, at),
        };
        (quote!(#item #errors), view)
    }

    /// The fields of this model's struct `def` (`s`), written in the module `at`.
    fn fields<'s>(&self, def: &TypeDef, s: &'s Struct, at: At<'_>) -> Vec<FieldCx<'s>> {
        let mut taken: Vec<String> = Vec::new();
        s.fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let boxed = self.model.analysis().recursion.is_boxed(&def.name, i);
                let store = self.store(f);
                // A literal that is not stored is checked by its value's schema, then dropped.
                let (schema, schema_ty) = match store {
                    Store::Literal | Store::Presence => {
                        let lit = self.model.unalias(&f.ty);
                        (self.literal_check(lit), self.literal_check_type(lit))
                    }
                    _ => (
                        self.schema(self.model, &f.ty, at, boxed),
                        self.schema_type(self.model, &f.ty, at, boxed),
                    ),
                };
                let ident = rust_ident(&rust_field(&f.name));
                // A schema with limits is written once, as a constant of the type's block
                // named as the field, which every reader names.
                let (schema, schema_const) = if schema::has_const(&f.ty) {
                    let name = self.field_const_name(&f.name, &mut taken);
                    let doc = format!(" `{}`: what every reader checks of it.", f.name);
                    let def = quote! {
                        #[doc = #doc]
                        const #name: #schema_ty = #schema;
                    };
                    (quote!(#name), Some(def))
                } else {
                    (schema, None)
                };
                FieldCx {
                    f,
                    i,
                    store,
                    ident,
                    slot: format_ident!("f{i}"),
                    boxed,
                    schema,
                    schema_const,
                    ty: self.rust_ty(self.model, &f.ty, at, boxed),
                }
            })
            .collect()
    }

    /// The name of a field's schema constant: the field's Rust name in capitals, unless a
    /// name the block reads already means something there (the fast readers' own `KEYS`,
    /// `TAG` and `VALUES`, this protocol's alias constants, a name taken by another field):
    /// then with `_FIELD` after it until it is free.
    fn field_const_name(&self, wire: &str, taken: &mut Vec<String>) -> Ident {
        let mut name = rust_field(wire).to_ascii_uppercase();
        let busy = |n: &str, taken: &[String]| {
            ["KEYS", "TAG", "VALUES"].contains(&n)
                || taken.iter().any(|t| t == n)
                || self.model.types.iter().any(|t| {
                    matches!(t.kind, TypeDefKind::Alias(_)) && rust_type_name(&t.name) == n
                })
        };
        while busy(&name, taken) {
            name.push_str("_FIELD");
        }
        taken.push(name.clone());
        format_ident!("{name}")
    }

    /// The rest of this model's open struct `s`, written in the module `at`: the Rust type of
    /// each value, the runtime schema that reads one, and whether it is written through
    /// `AsJs` (it holds a `number`).
    fn rest(&self, s: &Struct, at: At<'_>) -> Option<RestCx> {
        let rest = s.rest.as_ref()?;
        let TyKind::Map(inner) = &rest.ty.kind else {
            return None;
        };
        Some(RestCx {
            ty: self.rust_ty(self.model, inner, at, false),
            schema: self.schema(self.model, inner, at, false),
            number: self.holds_number(self.model, inner),
        })
    }

    /// The variants of this model's union `def` (`u`), written in the module `at`.
    fn variants<'u>(&self, def: &TypeDef, u: &'u Union, at: At<'_>) -> Vec<VariantCx<'u>> {
        u.variants
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let boxed = self.model.analysis().recursion.is_boxed(&def.name, i);
                VariantCx {
                    v,
                    i,
                    ident: paths::variant_ident(v, i),
                    boxed,
                    schema: self.schema(self.model, &v.ty, at, boxed),
                    ty: self.rust_ty(self.model, &v.ty, at, boxed),
                }
            })
            .collect()
    }

    /// How the field `f` is stored in its struct.
    fn store(&self, f: &Field) -> Store {
        let is_lit = matches!(self.model.unalias(&f.ty).kind, TyKind::Literal(_));
        match (f.optional, is_lit, &f.default) {
            (false, true, _) => Store::Literal,
            (true, true, None) => Store::Presence,
            (true, _, Some(_)) => Store::Defaulted,
            (true, _, None) => Store::Optional,
            (false, _, _) => Store::Required,
        }
    }
}

/// What one module of the generated tree holds: its types' items, and their views apart.
#[derive(Default)]
struct ModuleItems {
    items: Vec<TokenStream>,
    views: Vec<TokenStream>,
}

/// A module's views, grouped in a child module `views` (so the module's page lists its types,
/// and the views on a page of their own), each also reachable where its type is, by a hidden
/// re-export (`agent::ChatInfoRef` is `agent::views::ChatInfoRef`). The views are written as
/// in their type's module: `use super::*` gives them its names. Nothing when no type has one.
fn views_module(views: &[TokenStream], whose: &str) -> TokenStream {
    if views.iter().all(TokenStream::is_empty) {
        return TokenStream::new();
    }
    let doc = format!(
        " Borrowed views of {whose} types (`ChatInfoRef<'a>` of `ChatInfo`): read with \
         `wire::from_str_ref`, their strings and raw values borrow from the input when they \
         can. Each is also reachable beside its type."
    );
    quote! {
        #[doc = #doc]
        pub mod views {
            #[allow(unused_imports)]
            use super::*;
            #(#views)*
        }
        #[doc(hidden)]
        pub use self::views::*;
    }
}
