//! emit::rust's impl blocks: a type's impls in one `const _: () = { .. };` block (its view's
//! impls too, [`split_impls`]; the view's struct stays in the module's `views`), whose
//! `use` lines name the runtime `rt` and the prelude's types and variants from `core` and
//! `std`, so the paths inside read short (`rt::Decode`, `Option<Self>`, `Ok(())`) and mean
//! the same whatever the module around them declares (an app's own `Result`).
//!
//! The emitters write full paths (`::contracts::__private::Decode`,
//! `::core::result::Result::Ok`); [`shorten`] rewrites them inside the block, a pure pass over
//! the tokens. A block's `use` is scoped to the block, and it shadows a name the module
//! declares: a schema type never has a prelude name (`check`'s `RESERVED`), and a schema
//! directory never names a module `rt` (`load`'s generated modules).

use super::Emitter;
use proc_macro2::{Delimiter, Group, Ident, Punct, Spacing, TokenStream, TokenTree};
use quote::quote;

/// The full paths a block names by their last segment, each `use`d at the block's top.
const SHORT: &[(&str, &str)] = &[
    ("::core::option::Option::Some", "Some"),
    ("::core::option::Option::None", "None"),
    ("::core::option::Option", "Option"),
    ("::core::result::Result::Ok", "Ok"),
    ("::core::result::Result::Err", "Err"),
    ("::core::result::Result", "Result"),
    ("::core::convert::Into", "Into"),
    ("::core::convert::From", "From"),
    ("::core::clone::Clone", "Clone"),
    ("::core::default::Default", "Default"),
    ("::core::marker::Send", "Send"),
    ("::core::marker::Sync", "Sync"),
    ("::core::marker::Sized", "Sized"),
    ("::std::string::String", "String"),
    ("::std::vec::Vec", "Vec"),
    ("::std::boxed::Box", "Box"),
];

impl Emitter<'_> {
    /// `impls` in a `const _` block with short paths; nothing for no impls.
    pub(super) fn impls_block(&self, impls: TokenStream) -> TokenStream {
        if impls.is_empty() {
            return TokenStream::new();
        }
        let rt = &self.rt;
        let body = shorten(impls, &path_of(rt));
        quote! {
            #[allow(unused_imports)]
            const _: () = {
                use #rt as rt;
                use ::core::option::Option::{self, None, Some};
                use ::core::result::Result::{self, Err, Ok};
                use ::core::convert::{From, Into};
                use ::core::{clone::Clone, default::Default};
                use ::core::marker::{Send, Sized, Sync};
                use ::std::{boxed::Box, string::String, vec::Vec};
                #body
            };
        }
    }
}

/// Items apart from impls, in order: `(items, impls)`. A view's emitter writes its struct and
/// its impls together; the struct goes to the module's `views`, its impls to its type's
/// block. An item is its attributes, then its tokens up to a `;` or, for an item with a body
/// (`struct`, `enum`, `impl`, `fn`, `mod`, `trait`, `union`), its first `{ .. }`.
pub(super) fn split_impls(tokens: TokenStream) -> (TokenStream, TokenStream) {
    const BODIED: &[&str] = &["struct", "enum", "impl", "fn", "mod", "trait", "union"];
    const QUALIFIERS: &[&str] = &["pub", "unsafe", "async", "extern"];
    let (mut items, mut impls) = (TokenStream::new(), TokenStream::new());
    let mut item: Vec<TokenTree> = Vec::new();
    // The item's keyword, once read: its first identifier but a qualifier.
    let mut keyword: Option<String> = None;
    for t in tokens {
        let ends = match &t {
            TokenTree::Punct(p) => p.as_char() == ';',
            TokenTree::Group(g) => {
                g.delimiter() == Delimiter::Brace
                    && keyword.as_deref().is_some_and(|k| BODIED.contains(&k))
            }
            TokenTree::Ident(i) => {
                let i = i.to_string();
                if keyword.is_none() && !QUALIFIERS.contains(&i.as_str()) {
                    keyword = Some(i);
                }
                false
            }
            TokenTree::Literal(_) => false,
        };
        item.push(t);
        if ends {
            let whole: TokenStream = item.drain(..).collect();
            if keyword.take().as_deref() == Some("impl") {
                impls.extend(whole);
            } else {
                items.extend(whole);
            }
        }
    }
    items.extend(item);
    (items, impls)
}

/// A path as the texts of its tokens (`::`, `contracts`, `::`, `__private`).
fn path_of(tokens: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    let mut tokens = tokens.clone().into_iter().peekable();
    while let Some(t) = tokens.next() {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ':' => {
                // `::` is two puncts: one segment separator.
                if matches!(tokens.peek(), Some(TokenTree::Punct(q)) if q.as_char() == ':') {
                    tokens.next();
                }
                out.push("::".to_owned());
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

/// `tokens` with the runtime's path `rt` written `rt` and each of [`SHORT`] by its last
/// segment, in every group.
fn shorten(tokens: TokenStream, rt: &[String]) -> TokenStream {
    let short: Vec<(Vec<String>, &str)> = SHORT
        .iter()
        .map(|(full, name)| (path_of(&full.parse().expect("a path")), *name))
        .collect();
    rewrite(tokens, rt, &short)
}

fn rewrite(tokens: TokenStream, rt: &[String], short: &[(Vec<String>, &str)]) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    // The tokens as path pieces, `::` one piece, with where each piece starts.
    let mut pieces: Vec<(String, usize, usize)> = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        let colons = matches!(&trees[i], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Joint)
            && matches!(trees.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == ':');
        if colons {
            pieces.push(("::".to_owned(), i, 2));
            i += 2;
        } else {
            let text = match &trees[i] {
                TokenTree::Group(_) => String::new(),
                t => t.to_string(),
            };
            pieces.push((text, i, 1));
            i += 1;
        }
    }
    let mut out = TokenStream::new();
    let mut p = 0;
    while p < pieces.len() {
        let starts = |path: &[String]| {
            pieces.len() - p >= path.len()
                && path.iter().zip(&pieces[p..]).all(|(a, (b, _, _))| a == b)
        };
        // The runtime's path before `::`: `rt`.
        if !rt.is_empty()
            && starts(rt)
            && pieces.get(p + rt.len()).is_some_and(|(t, _, _)| t == "::")
        {
            let span = trees[pieces[p].1].span();
            out.extend([TokenTree::Ident(Ident::new("rt", span))]);
            p += rt.len();
            continue;
        }
        if let Some((path, name)) = short.iter().find(|(path, _)| starts(path)) {
            // Not a longer path that only begins so (`::core::option::Option::Some` is
            // listed before `::core::option::Option`).
            let span = trees[pieces[p].1].span();
            out.extend([TokenTree::Ident(Ident::new(name, span))]);
            p += path.len();
            continue;
        }
        let (_, at, n) = pieces[p];
        for t in &trees[at..at + n] {
            out.extend([match t {
                TokenTree::Group(g) => {
                    let mut inner = Group::new(g.delimiter(), rewrite(g.stream(), rt, short));
                    inner.set_span(g.span());
                    TokenTree::Group(inner)
                }
                TokenTree::Punct(q) => {
                    let mut punct = Punct::new(q.as_char(), q.spacing());
                    punct.set_span(q.span());
                    TokenTree::Punct(punct)
                }
                other => other.clone(),
            }]);
        }
        p += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short(tokens: TokenStream, rt: TokenStream) -> String {
        shorten(tokens, &path_of(&rt)).to_string()
    }

    #[test]
    fn the_runtime_and_the_prelude_read_short_in_every_group() {
        let rt = quote!(::contracts::__private);
        let tokens = quote! {
            impl ::contracts::__private::Decode for X {
                fn f() -> ::core::result::Result<::core::option::Option<Self>, ::std::string::String> {
                    ::core::result::Result::Ok(::core::option::Option::Some(::contracts::__private::Key::new()))
                }
            }
        };
        assert_eq!(
            short(tokens, rt),
            quote! {
                impl rt::Decode for X {
                    fn f() -> Result<Option<Self>, String> {
                        Ok(Some(rt::Key::new()))
                    }
                }
            }
            .to_string()
        );
    }

    #[test]
    fn impls_are_split_from_the_items_in_order() {
        let tokens = quote! {
            /// A view.
            pub struct ARef<'a> { a: &'a str }
            #[doc(hidden)]
            impl<'de> rt::DecodeRef<'de> for ARef<'de> { fn f() {} }
            pub struct BRef(u8);
            #[doc(hidden)]
            pub use self::views::*;
            impl ARef<'_> {}
        };
        let (items, impls) = split_impls(tokens);
        assert_eq!(
            items.to_string(),
            quote! {
                /// A view.
                pub struct ARef<'a> { a: &'a str }
                pub struct BRef(u8);
                #[doc(hidden)]
                pub use self::views::*;
            }
            .to_string()
        );
        assert_eq!(
            impls.to_string(),
            quote! {
                #[doc(hidden)]
                impl<'de> rt::DecodeRef<'de> for ARef<'de> { fn f() {} }
                impl ARef<'_> {}
            }
            .to_string()
        );
    }

    #[test]
    fn other_paths_and_the_runtime_alone_are_left_as_they_are() {
        // `$crate::__private` passed by the runtime's own macro, a path that only begins like
        // a listed one, and a module of the schema named like a std one.
        let rt = quote!(crate::__private);
        let tokens =
            quote!(crate::__private::Str ::core::option::OptionX task::Vec crate::__private);
        assert_eq!(
            short(tokens, rt),
            quote!(rt::Str ::core::option::OptionX task::Vec crate::__private).to_string()
        );
    }
}
