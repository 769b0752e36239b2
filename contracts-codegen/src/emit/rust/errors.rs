//! emit::rust's error items. An `#[error]` struct (`{ code: E, message: string }`) gets
//! `Display`, `std::error::Error` and a constructor per code of `E`. An enum that `#[extends]`
//! an open one (an app's own error codes) gets `From` into it, `PartialEq` with it and `of`
//! back; when a base's `#[error]` struct holds the extended enum, also an extension trait
//! `<Error>Ext` with a constructor per own code, so `WireError::unknown_document(msg)` reads
//! like the base's `WireError::unknown_chat(msg)`. Only tables of names and thin calls: the
//! message is the caller's.

use super::docs::{docs_attrs, meta_attrs};
use super::paths::setter_ident;
use super::{At, Emitter};
use crate::model::{Enum, EnumValue, Struct, TypeDef, TypeDefKind, TypeRef};
use crate::names::rust_type_name;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

impl Emitter<'_> {
    /// The error items of a type: empty for any but an `#[error]` struct or an extending enum.
    pub(super) fn error_items(&self, def: &TypeDef, at: At<'_>) -> TokenStream {
        match &def.kind {
            TypeDefKind::Struct(s) if def.meta.error => self.error_struct(def, s, at),
            TypeDefKind::Enum(e) if e.extends.is_some() => self.extending_enum(def, e, at),
            _ => TokenStream::new(),
        }
    }

    fn error_struct(&self, def: &TypeDef, s: &Struct, at: At<'_>) -> TokenStream {
        let Some((code_ref, codes)) = self.model.error_code_of(s) else {
            return TokenStream::new();
        };
        let name = format_ident!("{}", rust_type_name(&def.name));
        let code = self.type_path(self.model, code_ref, at);
        let ctors = produced(codes).map(|v| {
            let (ctor, variant, docs) = ctor_parts(v, &def.name);
            quote! {
                #docs
                #[must_use]
                pub fn #ctor(message: impl ::core::convert::Into<::std::string::String>) -> Self {
                    Self::new(#code::#variant, message)
                }
            }
        });
        let host_error = self.host_error(&name, &code, codes);
        quote! {
            #host_error

            /// Constructors by code: one per code of the set, each with the message a person
            /// reads.
            #[allow(deprecated)]
            impl #name {
                #(#ctors)*
            }

            /// The code, then the message: `unknown-chat: no chat is called "c9"`.
            impl ::core::fmt::Display for #name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    ::core::write!(f, "{}: {}", self.code, self.message)
                }
            }

            impl ::std::error::Error for #name {}
        }
    }

    fn extending_enum(&self, def: &TypeDef, e: &Enum, at: At<'_>) -> TokenStream {
        let Some(extended) = &e.extends else {
            return TokenStream::new();
        };
        let name = format_ident!("{}", rust_type_name(&def.name));
        let base = self.type_path(self.model, extended, at);
        // `check` allows `#[extends]` on string enums only.
        let values: Vec<&str> = e.strs().collect();
        let variants: Vec<Ident> = e
            .values
            .iter()
            .map(|v| format_ident!("{}", rust_type_name(v.name())))
            .collect();
        let of_doc = format!(
            " The code of [`{}`] that `code` is, if it is one.",
            def.name
        );
        let from_doc = format!(" A code of [`{}`] as the open set it extends.", def.name);
        let error = self.error_trait(def, e, extended, at);
        quote! {
            #[allow(deprecated)]
            impl #name {
                #[doc = #of_doc]
                pub fn of(code: &#base) -> ::core::option::Option<Self> {
                    match code.as_str() {
                        #(#values => ::core::option::Option::Some(Self::#variants),)*
                        _ => ::core::option::Option::None,
                    }
                }
            }

            #[allow(deprecated)]
            impl ::core::convert::From<#name> for #base {
                #[doc = #from_doc]
                fn from(code: #name) -> Self {
                    <#base as ::core::convert::From<&str>>::from(code.as_str())
                }
            }

            #[allow(deprecated)]
            impl ::core::cmp::PartialEq<#name> for #base {
                fn eq(&self, other: &#name) -> bool {
                    self.as_str() == other.as_str()
                }
            }

            #error
        }
    }

    /// `<Error>Ext`: a constructor per own code on the `#[error]` struct of the protocol that
    /// declares the extended enum, if it has one.
    fn error_trait(&self, def: &TypeDef, e: &Enum, extended: &TypeRef, at: At<'_>) -> TokenStream {
        let declaring = self.model.declaring(extended);
        let Some(error) = declaring.types.iter().find(|t| match &t.kind {
            TypeDefKind::Struct(s) if t.meta.error => declaring
                .error_code_of(s)
                .is_some_and(|(r, _)| r.name == extended.name && declaring.resolve(r).is_some()),
            _ => false,
        }) else {
            return TokenStream::new();
        };
        let error_ref = TypeRef {
            name: error.name.clone(),
            protocol: Some(declaring.name.clone()),
        };
        let error_path = self.type_path(self.model, &error_ref, at);
        let own = format_ident!("{}", rust_type_name(&def.name));
        let trait_name = format_ident!("{}Ext", rust_type_name(&error.name));
        let trait_doc = format!(
            " Constructors of `{}` for the codes of [`{}`], this protocol's own: bring it into \
             scope (`use ...::{}Ext as _;`) and build one as the base's codes are built.",
            error.name, def.name, error.name
        );
        let parts: Vec<_> = produced(e).map(|v| ctor_parts(v, &error.name)).collect();
        let decls = parts.iter().map(|(ctor, _, docs)| {
            quote! {
                #docs
                #[must_use]
                fn #ctor(message: impl ::core::convert::Into<::std::string::String>) -> Self;
            }
        });
        let impls = parts.iter().map(|(ctor, variant, _)| {
            quote! {
                fn #ctor(message: impl ::core::convert::Into<::std::string::String>) -> Self {
                    Self::new(#own::#variant, message)
                }
            }
        });
        quote! {
            #[doc = #trait_doc]
            pub trait #trait_name: ::core::marker::Sized {
                #(#decls)*
            }

            #[allow(deprecated)]
            impl #trait_name for #error_path {
                #(#impls)*
            }
        }
    }
}

/// The values new code produces: every one but the `#[legacy]` ones.
impl Emitter<'_> {
    /// `HostError` for an `#[error]` whose codes are integers (JSON-RPC's): a dispatcher
    /// refuses with JSON-RPC's own codes, -32601 (method not found) for a name it does not
    /// answer, -32602 (invalid params) for a payload its table refuses, -32603 (internal
    /// error) for a result it cannot send. Each is the set's value of that number, else, in
    /// an `#[open]` set, the integer itself (`check` refuses a closed set without them). A
    /// string set's codes mean what its protocol says: its `HostError` is written by hand
    /// (the agent's `WireError`'s is in the runtime's `agent` module).
    fn host_error(&self, name: &Ident, code: &TokenStream, e: &Enum) -> TokenStream {
        if !e.is_int() {
            return TokenStream::new();
        }
        let rt = &self.rt;
        let code_of = |n: i64| match e.values.iter().find(|v| v.as_int() == Some(n)) {
            Some(v) => {
                let variant = format_ident!("{}", rust_type_name(v.name()));
                quote!(#code::#variant)
            }
            None => quote!(<#code as ::core::convert::From<i64>>::from(#n)),
        };
        let (not_found, invalid, internal) = (code_of(-32601), code_of(-32602), code_of(-32603));
        quote! {
            /// The failures a generated dispatcher answers with, by JSON-RPC's codes.
            impl #rt::HostError for #name {
                fn unsupported(method: &str) -> Self {
                    Self::new(#not_found, ::std::format!("method not found: {method} is not supported"))
                }
                fn unknown_request(name: &str) -> Self {
                    Self::new(#not_found, ::std::format!("method not found: {name}"))
                }
                fn invalid_payload(_name: &str, error: &#rt::ParseError) -> Self {
                    Self::new(#invalid, ::std::string::ToString::to_string(error))
                }
                fn internal(message: ::std::string::String) -> Self {
                    Self::new(#internal, message)
                }
            }
        }
    }
}

fn produced(e: &Enum) -> impl Iterator<Item = &EnumValue> {
    e.values.iter().filter(|v| !v.meta.legacy)
}

/// A constructor's name (the code in snake case), the code's variant, and its docs.
fn ctor_parts(v: &EnumValue, error: &str) -> (Ident, Ident, TokenStream) {
    let ctor = setter_ident(v.name());
    let variant = format_ident!("{}", rust_type_name(v.name()));
    let mut docs = docs_attrs(&v.docs);
    if !v.docs.is_empty() {
        docs.extend(quote!(#[doc = ""]));
    }
    let line = format!(
        " A `{error}` with the code `{}`.",
        v.as_str().map_or_else(|| v.shown(), str::to_owned)
    );
    docs.extend(quote!(#[doc = #line]));
    docs.extend(meta_attrs(&v.meta));
    (ctor, variant, docs)
}
