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
//!   variable `CONTRACTS_SCHEMA_<NAME>`, which the crate's build script sets from what
//!   `contracts` publishes (`DEP_CONTRACTS_SCHEMA_<NAME>`); when it is unset, the error gives
//!   the `build.rs` line.
//! - `runtime`: the runtime's hidden path, by default `::contracts::__private`.
//! - `default_error`: the error a host answers with when neither the protocol nor a base
//!   declares an `#[error]` with integer codes, by default `::contracts::agent::WireError`
//!   (the runtime's `protocol!` passes `$crate::agent::WireError`).
//!
//! Every file read is included with `include_str!` so an edit rebuilds the crate. Schema
//! errors are reported as one `compile_error!` per diagnostic, which rustc prints as
//! `error: path:line:col: message` with the source line and a caret, then the notes. The path
//! opens from the workspace root (where cargo runs rustc, so rustc's own paths read the same
//! way): relative to it when the file is below it, else absolute (a base's schema in cargo's
//! registry). `cargo xtask check` renders the same diagnostics with the same code
//! (`contracts_codegen::diag`).

use contracts_codegen::emit::rust::{RustOptions, expansion};
use contracts_codegen::load::{LoadOptions, display_path, load_dir, workspace_root};
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
    default_error: Option<syn::Path>,
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
                "default_error" => out.default_error = Some(input.parse()?),
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
                            "unknown key `{other}`: expected `name`, `dir`, `extends`, `runtime` or `default_error`"
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

/// Where schema directories are looked for: `CARGO_MANIFEST_DIR`, then the invoking file's
/// directory.
fn search_roots() -> Vec<PathBuf> {
    let mut roots = Vec::new();
    if let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR") {
        roots.push(PathBuf::from(root));
    }
    if let Some(dir) = proc_macro::Span::call_site()
        .local_file()
        .and_then(|f| std::path::absolute(f.parent()?).ok())
    {
        roots.push(dir);
    }
    roots
}

/// Finds a directory: absolute as given, else relative to the first of [`search_roots`] that
/// has it. Without one, answers every place it looked.
fn locate(dir: &str) -> Result<PathBuf, Vec<PathBuf>> {
    let given = Path::new(dir);
    let tried: Vec<PathBuf> = if given.is_absolute() {
        vec![given.to_path_buf()]
    } else {
        search_roots().iter().map(|r| r.join(given)).collect()
    };
    match tried.iter().find(|p| p.is_dir()) {
        Some(p) => Ok(p.clone()),
        None => Err(tried),
    }
}

/// The directory diagnostics show paths relative to: the workspace root of the crate that
/// invokes the macro (cargo runs rustc there), found from `CARGO_MANIFEST_DIR`. Files outside
/// it (a base's schema in cargo's registry) are shown absolute.
fn display_root() -> Option<PathBuf> {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")?;
    Some(workspace_root(Path::new(&manifest)))
}

fn not_found(span: Span, what: &str, tried: &[PathBuf]) -> TokenStream2 {
    let root = display_root();
    let places: Vec<String> = tried
        .iter()
        .map(|p| format!("`{}`", display_path(p, root.as_deref())))
        .collect();
    let looked = match places.as_slice() {
        [] => String::new(),
        [one] => format!(": looked at {one}"),
        more => format!(": looked at {}", more.join(" and ")),
    };
    error(span, &format!("{what} not found{looked}"))
}

fn expand(input: Input) -> Result<TokenStream2, TokenStream2> {
    expand_inner(&input)
}

/// Loads the schema directory `path`; a failure is one `compile_error!` per diagnostic, each
/// at `span`: the invocation's line that names the directory, so rustc's pointer under the
/// schema's own is that one line, not the whole invocation with a macro-backtrace note.
fn load(
    path: &Path,
    name: Option<String>,
    bases: Vec<Arc<Model>>,
    span: Span,
) -> Result<Model, TokenStream2> {
    let options = LoadOptions {
        name,
        bases,
        display_root: display_root(),
    };
    load_dir(path, &options).map_err(|err| {
        let mut out = TokenStream2::new();
        for d in &err.diagnostics.items {
            let text = d.render_for_rustc(&err.files);
            out.extend(error(span, text.trim_end()));
        }
        out
    })
}

/// The schema directory of a base written without `= "dir"`: the one the environment variable
/// `CONTRACTS_SCHEMA_<NAME>` names, which the crate's build script sets. Unset, the error gives
/// the `build.rs` line that sets it.
fn base_dir_from_env(base: &Base) -> Result<PathBuf, TokenStream2> {
    let name = base.name.to_string();
    let upper = name.to_uppercase();
    let var = format!("CONTRACTS_SCHEMA_{upper}");
    let module = &base.path;
    let module = quote!(#module).to_string().replace(' ', "");
    let Some(value) = std::env::var_os(&var) else {
        return Err(error(
            base.name.span(),
            &format!(
                "no schema directory for the base protocol `{name}`: {var} is not set.\n\
                 Set it in the crate's build.rs, from the directory `contracts` publishes to the \
                 crates that depend on it directly:\n\
                 \n    println!(\"cargo::rustc-env={var}={{}}\", std::env::var(\"DEP_CONTRACTS_SCHEMA_{upper}\").unwrap());\n\n\
                 or name the directory here: `{name}: {module} = \"path/to/schema/{name}\"`"
            ),
        ));
    };
    let path = PathBuf::from(&value);
    if path.is_dir() {
        return Ok(path);
    }
    Err(error(
        base.name.span(),
        &format!(
            "no schema directory for the base protocol `{name}`: {var} is `{}`, which is not a directory",
            path.display()
        ),
    ))
}

fn expand_inner(input: &Input) -> Result<TokenStream2, TokenStream2> {
    let mut options = RustOptions::default();
    if let Some(rt) = &input.runtime {
        options.runtime = quote!(#rt);
    }
    if let Some(error) = &input.default_error {
        options.default_error = quote!(#error);
    }
    let mut bases = Vec::new();
    for b in &input.bases {
        let name = b.name.to_string();
        let dir = match &b.dir {
            Some(d) => locate(&d.value()).map_err(|tried| {
                not_found(
                    d.span(),
                    &format!("schema directory `{}` of the base `{name}`", d.value()),
                    &tried,
                )
            })?,
            None => base_dir_from_env(b)?,
        };
        let span = b.dir.as_ref().map_or(b.name.span(), LitStr::span);
        let model = load(&dir, Some(name.clone()), Vec::new(), span)?;
        let path = &b.path;
        options
            .bases
            .insert(name, quote!(#path).to_string().replace(' ', ""));
        bases.push(Arc::new(model));
    }
    let dir = input.dir.as_ref().expect("checked by the parser");
    let schema_dir = locate(&dir.value()).map_err(|tried| {
        not_found(
            dir.span(),
            &format!("schema directory `{}`", dir.value()),
            &tried,
        )
    })?;
    let model = load(
        &schema_dir,
        input.name.as_ref().map(LitStr::value),
        bases,
        dir.span(),
    )?;
    let schema_dir = std::path::absolute(&schema_dir)
        .unwrap_or(schema_dir)
        .to_string_lossy()
        .into_owned();
    let checked = contracts_codegen::analysis::Checked::new(model);
    Ok(expansion(&checked, &options, &schema_dir))
}
