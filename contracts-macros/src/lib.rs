//! `protocol!`: thin glue from a schema directory to Rust tokens through `contracts-codegen`.
//!
//! ```ignore
//! contracts::protocol! { name: "agent", dir: "schema/agent" }
//!
//! // An app's protocol on top of the agent's: the base's Rust module, and where its schema is.
//! contracts::protocol! {
//!     dir: "schema/app",
//!     extends: { agent: ::contracts::agent = "../contracts/schema/agent" },
//! }
//! ```
//!
//! Keys:
//! - `dir` (required): the schema directory, relative to `CARGO_MANIFEST_DIR` (when it is not
//!   found there, relative to the file that invokes the macro).
//! - `name`: the protocol's name; by default the directory's name.
//! - `extends`: base protocols, `name: rust::module::path = "schema dir"`. The module is where
//!   the base was generated; the directory is its schema (the macro loads it to resolve the
//!   types the app imports). Without `= "dir"`, the directory comes from the environment
//!   variable `CONTRACTS_SCHEMA_<NAME>` (set it with `cargo:rustc-env` in a build script).
//! - `runtime`: the runtime's hidden path, by default `::contracts::__private`.
//!
//! Every file read is included with `include_str!` so an edit rebuilds the crate. Schema
//! errors are reported as one `compile_error!` per diagnostic, each `path:line:col: error: ...`
//! with the source line.

use contracts_codegen::emit::rust::{RustOptions, emit};
use contracts_codegen::load::{LoadOptions, load_dir};
use contracts_codegen::model::Model;
use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token, braced};

/// Derives a protocol's Rust types, tables and host trait from a schema directory.
#[proc_macro]
pub fn protocol(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as Input);
    match expand(input) {
        Ok(t) | Err(t) => t.into(),
    }
}

struct Base {
    name: Ident,
    path: syn::Path,
    dir: Option<LitStr>,
}

#[derive(Default)]
struct Input {
    name: Option<LitStr>,
    dir: Option<LitStr>,
    runtime: Option<syn::Path>,
    bases: Vec<Base>,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut out = Input::default();
        while !input.is_empty() {
            let key: Ident = input.parse()?;
            input.parse::<Token![:]>()?;
            match key.to_string().as_str() {
                "name" => out.name = Some(input.parse()?),
                "dir" => out.dir = Some(input.parse()?),
                "runtime" => out.runtime = Some(input.parse()?),
                "extends" => {
                    let content;
                    braced!(content in input);
                    while !content.is_empty() {
                        let name: Ident = content.parse()?;
                        content.parse::<Token![:]>()?;
                        let path: syn::Path = content.parse()?;
                        let dir = if content.peek(Token![=]) {
                            content.parse::<Token![=]>()?;
                            Some(content.parse()?)
                        } else {
                            None
                        };
                        out.bases.push(Base { name, path, dir });
                        if !content.is_empty() {
                            content.parse::<Token![,]>()?;
                        }
                    }
                }
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown key `{other}`: expected `name`, `dir`, `extends` or `runtime`"
                        ),
                    ));
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        if out.dir.is_none() {
            return Err(syn::Error::new(
                Span::call_site(),
                "missing `dir: \"path/to/schema\"`",
            ));
        }
        Ok(out)
    }
}

fn error(span: Span, message: &str) -> TokenStream2 {
    quote::quote_spanned!(span=> ::core::compile_error!(#message);)
}

/// Finds a directory: relative to `CARGO_MANIFEST_DIR`, else to the invoking file's directory.
/// Answers the directory and the root its paths are shown relative to.
fn locate(dir: &str) -> Option<(PathBuf, PathBuf)> {
    let given = Path::new(dir);
    if given.is_absolute() {
        return given.is_dir().then(|| {
            (
                given.to_path_buf(),
                given.parent().unwrap_or(given).to_path_buf(),
            )
        });
    }
    if let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) {
        let p = root.join(given);
        if p.is_dir() {
            return Some((p, root));
        }
    }
    let file = proc_macro::Span::call_site().local_file()?;
    let root = std::path::absolute(file.parent()?).ok()?;
    let p = root.join(given);
    p.is_dir().then_some((p, root))
}

fn expand(input: Input) -> Result<TokenStream2, TokenStream2> {
    expand_inner(&input)
}

fn load(dir: &LitStr, name: Option<String>, bases: Vec<Arc<Model>>) -> Result<Model, TokenStream2> {
    let Some((path, root)) = locate(&dir.value()) else {
        return Err(error(
            dir.span(),
            &format!("schema directory `{}` not found", dir.value()),
        ));
    };
    let options = LoadOptions {
        name,
        bases,
        display_root: Some(root),
    };
    load_dir(&path, &options).map_err(|err| {
        let mut out = TokenStream2::new();
        for d in &err.diagnostics.items {
            let text = d.render(&err.files);
            out.extend(error(Span::call_site(), text.trim_end()));
        }
        if out.is_empty() {
            out = error(Span::call_site(), err.render().trim_end());
        }
        out
    })
}

fn expand_inner(input: &Input) -> Result<TokenStream2, TokenStream2> {
    let mut options = RustOptions::default();
    if let Some(rt) = &input.runtime {
        options.runtime = quote!(#rt).to_string().replace(' ', "");
    }
    let mut bases = Vec::new();
    for b in &input.bases {
        let name = b.name.to_string();
        let dir = match &b.dir {
            Some(d) => d.clone(),
            None => {
                let var = format!("CONTRACTS_SCHEMA_{}", name.to_uppercase());
                match std::env::var(&var) {
                    Ok(v) => LitStr::new(&v, b.name.span()),
                    Err(_) => {
                        return Err(error(
                            b.name.span(),
                            &format!(
                                "no schema directory for base `{name}`: write `{name}: path = \"dir\"` or set {var}"
                            ),
                        ));
                    }
                }
            }
        };
        let model = load(&dir, Some(name.clone()), Vec::new())?;
        let path = &b.path;
        options
            .bases
            .insert(name, quote!(#path).to_string().replace(' ', ""));
        bases.push(Arc::new(model));
    }
    let dir = input.dir.as_ref().expect("checked by the parser");
    let model = load(dir, input.name.as_ref().map(LitStr::value), bases)?;
    let mut files: Vec<String> = Vec::new();
    for m in model
        .bases
        .iter()
        .map(|b| &**b)
        .chain(std::iter::once(&model))
    {
        files.extend(
            m.files
                .iter()
                .map(|f| f.absolute.to_string_lossy().into_owned()),
        );
    }
    let body = emit(&model, &options);
    let schema_dir = locate(&dir.value())
        .map(|(p, _)| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(quote! {
        #(const _: &str = ::core::include_str!(#files);)*
        /// Where this protocol's schema was read from (for tools and apps that extend it).
        #[doc(hidden)]
        pub const __SCHEMA_DIR: &str = #schema_dir;
        #body
    })
}
