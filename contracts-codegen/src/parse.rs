//! parse: `.contract` text to the syntax tree, with syn; every error located at file:line:col.
//!
//! The text is tokenized by proc-macro2 (which drops `//` comments and turns `///` into
//! `#[doc = "..."]`), then read by hand-written recursive descent over syn's `ParseStream`.
//! Errors are collected, not returned: a broken item is reported and skipped up to the next
//! item, a broken field, value, variant or entry up to the next comma, so one file can report
//! several mistakes and every file is read. A missing `,` or `;` is reported where it belongs,
//! just after the token before it (not at the start of the next line), and when the next line
//! starts the next entry or item, that one is still read.
//!
//! Locations need proc-macro2's fallback implementation (with `span-locations`); call
//! [`with_fallback`] around any parsing, as `load` does.

use crate::diag::Diagnostics;
use crate::syntax::*;
use proc_macro2::{Span, TokenStream, TokenTree};
use std::str::FromStr as _;
use std::sync::Arc;
use syn::ext::IdentExt as _;
use syn::parse::{ParseStream, Parser as _};
use syn::{
    Ident, LitBool, LitFloat, LitInt, LitStr, Token, braced, bracketed, parenthesized, token,
};

/// The words that start a top-level item: where a broken item's recovery stops.
const ITEM_KEYWORDS: &[&str] = &[
    "use", "type", "struct", "enum", "union", "requests", "events", "const",
];

/// Run `f` with proc-macro2's fallback forced (real line and column numbers, even inside a
/// proc macro), then restore the default, also when `f` panics. No proc-macro2 value made
/// inside may be used after it returns.
pub fn with_fallback<R>(f: impl FnOnce() -> R) -> R {
    struct Unforce;
    impl Drop for Unforce {
        fn drop(&mut self) {
            proc_macro2::fallback::unforce();
        }
    }
    proc_macro2::fallback::force();
    let _guard = Unforce;
    f()
}

/// Parse one file's text. Syntax errors go to `diags`; whatever could be read is returned.
/// Call it inside [`with_fallback`].
pub fn parse_file(
    path: Arc<str>,
    module: Option<String>,
    text: &str,
    diags: &mut Diagnostics,
) -> File {
    let mut p = P::new(path.clone(), text);
    let mut items = Vec::new();
    match TokenStream::from_str(text) {
        Err(e) => {
            let loc = p.loc(e.span());
            diags.error(&loc, lex_message(text, &loc));
            // The file cannot be read as tokens. Its declarations are still found by their
            // keyword at the start of a line, so a reference to them is not reported as unknown
            // while a mistake elsewhere still is; a `use` in it could import anything.
            let (names, imports) = declared_names(text);
            p.broken.extend(names);
            if imports {
                p.complete = false;
            }
        }
        Ok(tokens) => {
            let parser = |input: ParseStream| {
                items = file_items(input, &mut p);
                Ok(())
            };
            // The items are kept even if syn objects to leftovers of a broken nested group:
            // that mistake has been reported already.
            if let Err(e) = parser.parse2(tokens)
                && p.errors.is_empty()
            {
                p.errors.push(e);
            }
            for error in std::mem::take(&mut p.errors) {
                for e in error.into_iter().filter(|e| e.to_string() != REPORTED) {
                    let loc = p.loc(e.span());
                    diags.error(&loc, e.to_string());
                }
            }
            for (loc, message) in std::mem::take(&mut p.located) {
                diags.error(&loc, message);
            }
        }
    }
    File {
        path,
        module,
        items,
        broken: p.broken,
        complete: p.complete,
    }
}

/// The names a file declares, found line by line (`struct X`, `enum X`, `union X`, `type X`),
/// and whether it has a `use` line: what is known of a file that cannot be tokenized.
fn declared_names(text: &str) -> (Vec<String>, bool) {
    let mut names = Vec::new();
    let mut imports = false;
    for line in text.lines() {
        let mut words = line.split_whitespace();
        match words.next() {
            Some("struct" | "enum" | "union" | "type") => {
                if let Some(name) = words.next() {
                    let name: String = name
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        names.push(name);
                    }
                }
            }
            Some("use") => imports = true,
            _ => {}
        }
    }
    (names, imports)
}

/// Explain a tokenizer failure: usually an unclosed or unmatched delimiter or string.
fn lex_message(text: &str, loc: &Loc) -> String {
    let at = text
        .lines()
        .nth((loc.line as usize).saturating_sub(1))
        .and_then(|l| l.chars().nth((loc.col as usize).saturating_sub(1)));
    match at {
        Some(c @ (')' | ']' | '}')) => format!("unexpected closing delimiter `{c}` (is a delimiter before it left open?)"),
        Some(c @ ('(' | '[' | '{')) => format!("this `{c}` is never closed"),
        Some('"') => "unterminated string".to_owned(),
        _ => "cannot read the text here (an unclosed delimiter or string, or a character that is not allowed)".to_owned(),
    }
}

/// The message of an error that only unwinds the parser: its diagnostic is already in
/// `P::located`.
const REPORTED: &str = "\u{0}already reported";

/// An error that only unwinds: see [`REPORTED`].
fn reported(input: ParseStream) -> syn::Error {
    input.error(REPORTED)
}

/// The parser's state: the file for locations and the errors seen so far.
struct P {
    file: Arc<str>,
    /// Where the text ends: errors at the end of input point here.
    end: (u32, u32),
    errors: Vec<syn::Error>,
    /// Errors whose place is already known.
    located: Vec<(Loc, String)>,
    /// See [`File::broken`] and [`File::complete`].
    broken: Vec<String>,
    complete: bool,
}

impl P {
    fn new(file: Arc<str>, text: &str) -> P {
        let lines = text.lines().count().max(1) as u32;
        let last_len = text.lines().last().map(|l| l.chars().count()).unwrap_or(0) as u32;
        P {
            file,
            end: (lines, last_len + 1),
            errors: Vec::new(),
            located: Vec::new(),
            broken: Vec::new(),
            complete: true,
        }
    }

    fn loc(&self, span: Span) -> Loc {
        let start = span.start();
        let end = span.end();
        // The call-site span (where syn puts "unexpected end of input") has no width.
        if start.line == 0 || (start == end && start.line == 1 && start.column == 0) {
            return Loc {
                file: self.file.clone(),
                line: self.end.0,
                col: self.end.1,
            };
        }
        Loc {
            file: self.file.clone(),
            line: start.line as u32,
            col: start.column as u32 + 1,
        }
    }

    /// Just past the end of `span`: where a token missing after it would go.
    fn loc_after(&self, span: Span) -> Loc {
        let end = span.end();
        if end.line == 0 {
            return self.loc(span);
        }
        Loc {
            file: self.file.clone(),
            line: end.line as u32,
            col: end.column as u32 + 1,
        }
    }

    /// Reports that `token` is missing after the last token read, and answers whether what
    /// follows starts on a later line (or the input ends): then the text most likely only
    /// lacks the token, and what follows is read as the next entry or item.
    fn missing(&mut self, input: ParseStream, token: &str) -> bool {
        let prev = input.cursor().prev_span();
        self.located
            .push((self.loc_after(prev), format!("expected `{token}`")));
        input.is_empty() || input.span().start().line > prev.end().line
    }

    fn name(&self, text: String, span: Span) -> Name {
        Name {
            text,
            loc: self.loc(span),
        }
    }
}

fn err(span: Span, message: impl std::fmt::Display) -> syn::Error {
    syn::Error::new(span, message)
}

/// The text of the identifier at the cursor, keywords included, without consuming it.
fn peek_word(input: ParseStream) -> Option<String> {
    input.cursor().ident().map(|(i, _)| i.to_string())
}

/// Consume one token tree (a token or a whole delimited group).
fn skip_one(input: ParseStream) -> bool {
    input.parse::<TokenTree>().is_ok()
}

// ---------------------------------------------------------------------------------------------
// Items

fn file_items(input: ParseStream, p: &mut P) -> Vec<Item> {
    // `//!` lines and `#![...]` at the top describe the file for its readers: skipped.
    while input.peek(Token![#]) && input.peek2(Token![!]) {
        skip_one(input);
        skip_one(input);
        skip_one(input);
    }
    let mut items = Vec::new();
    while !input.is_empty() {
        let start = input.cursor();
        let declared = declared_name(&input.fork());
        match item(input, p) {
            Ok(Some(item)) => items.push(item),
            Ok(None) => {}
            Err(e) => {
                p.errors.push(e);
                match declared {
                    Some(name) => p.broken.push(name),
                    None => p.complete = false,
                }
                recover_item(input, start == input.cursor());
            }
        }
    }
    items
}

/// The name an item declares (`struct Name`, also after a misspelt keyword), read from a
/// fork before the item is parsed, so a broken item still tells what it meant to declare.
fn declared_name(input: ParseStream) -> Option<String> {
    while input.peek(Token![#]) {
        skip_one(input);
        skip_one(input);
    }
    let keyword = input.call(Ident::parse_any).ok()?;
    if matches!(keyword.to_string().as_str(), "use" | "requests" | "events") {
        return None;
    }
    input.call(Ident::parse_any).ok().map(|i| unraw(&i))
}

/// Skip a broken item: up to the next `#` or item keyword that starts a line, or just past
/// a `;`.
fn recover_item(input: ParseStream, stuck: bool) {
    // The line of the last token read: an item keyword that starts a later line (the next
    // item, after one that lacks its `;`) ends the skipping.
    let mut line = input.cursor().prev_span().end().line;
    if stuck {
        line = input.span().end().line;
        skip_one(input);
    }
    while !input.is_empty() {
        let here = input.span();
        let starts_line = here.start().line > line;
        let item_start = input.peek(Token![#])
            || peek_word(input).is_some_and(|w| ITEM_KEYWORDS.contains(&w.as_str()));
        if starts_line && item_start {
            return;
        }
        if input.peek(Token![;]) {
            skip_one(input);
            return;
        }
        line = here.end().line;
        skip_one(input);
    }
}

fn item(input: ParseStream, p: &mut P) -> syn::Result<Option<Item>> {
    let attrs = attrs(input, p)?;
    let Some(word) = peek_word(input) else {
        return Err(input.error(
            "expected a declaration: `type`, `struct`, `enum`, `union`, `requests`, `events` or `use`",
        ));
    };
    let kw_span = input.span();
    match word.as_str() {
        "use" => {
            no_attrs(&attrs, "`use`", p);
            input.call(Ident::parse_any)?;
            Ok(Some(Item::Use(use_item(input, p, kw_span)?)))
        }
        "type" => {
            input.call(Ident::parse_any)?;
            let name = type_name(input, p)?;
            input.parse::<Token![=]>()?;
            let ty = ty(input, p)?;
            semicolon(input, p)?;
            Ok(Some(Item::Alias(Alias { attrs, name, ty })))
        }
        "struct" => {
            input.call(Ident::parse_any)?;
            let name = type_name(input, p)?;
            let fields = fields_block(input, p)?;
            Ok(Some(Item::Struct(StructDecl {
                attrs,
                name,
                fields,
            })))
        }
        "enum" => {
            input.call(Ident::parse_any)?;
            let name = type_name(input, p)?;
            let content;
            braced!(content in input);
            let values = list(&content, p, enum_value);
            Ok(Some(Item::Enum(EnumDecl {
                attrs,
                name,
                values,
            })))
        }
        "union" => {
            input.call(Ident::parse_any)?;
            Ok(Some(Item::Union(union_item(input, p, attrs)?)))
        }
        "requests" => {
            no_attrs(&attrs, "a `requests` block (put them on its entries)", p);
            input.call(Ident::parse_any)?;
            let content;
            braced!(content in input);
            // The block's doc comment names the group of its entries.
            let group = attrs.docs.join(" ").trim().to_owned();
            let mut entries = list(&content, p, request_entry);
            for e in &mut entries {
                e.group = (!group.is_empty()).then(|| group.clone());
            }
            Ok(Some(Item::Requests(entries)))
        }
        "events" => {
            no_attrs(&attrs, "an `events` block (put them on its entries)", p);
            input.call(Ident::parse_any)?;
            let content;
            braced!(content in input);
            Ok(Some(Item::Events(list(&content, p, event_entry))))
        }
        "const" => {
            input.call(Ident::parse_any)?;
            let name = input.call(Ident::parse_any).map_err(|e| {
                err(
                    e.span(),
                    "expected the constant's name: `const NAME = \"value\";`",
                )
            })?;
            let name = p.name(name.to_string(), name.span());
            input
                .parse::<Token![=]>()
                .map_err(|e| err(e.span(), "expected `=` and the constant's value"))?;
            let span = input.span();
            let value = if input.peek(LitStr) {
                LiteralExpr::String(input.parse::<LitStr>()?.value())
            } else if input.peek(LitBool) {
                LiteralExpr::Bool(input.parse::<LitBool>()?.value)
            } else if input.peek(LitInt) || (input.peek(Token![-]) && input.peek2(LitInt)) {
                LiteralExpr::Int(number(input, p)?.value)
            } else {
                return Err(err(
                    span,
                    "a constant is a string, `true`, `false` or an integer",
                ));
            };
            semicolon(input, p)?;
            Ok(Some(Item::Const(ConstDecl {
                attrs,
                loc: name.loc.clone(),
                name,
                value,
            })))
        }
        other => Err(err(
            kw_span,
            format!(
                "expected `type`, `struct`, `enum`, `union`, `requests`, `events`, `const` or `use`, found `{other}`"
            ),
        )),
    }
}

/// The `;` that ends an item. Without it, reported after the last token; the item is kept when
/// the next item starts on a later line, else it is skipped as broken.
fn semicolon(input: ParseStream, p: &mut P) -> syn::Result<()> {
    if input.peek(Token![;]) {
        input.parse::<Token![;]>()?;
        return Ok(());
    }
    let next_line = p.missing(input, ";");
    let item_next = input.is_empty()
        || input.peek(Token![#])
        || peek_word(input).is_some_and(|w| ITEM_KEYWORDS.contains(&w.as_str()));
    if next_line && item_next {
        Ok(())
    } else {
        Err(reported(input))
    }
}

/// Report attributes or docs written where none belong.
fn no_attrs(attrs: &Attrs, what: &str, p: &mut P) {
    if let Some(a) = attrs.attrs.first() {
        p.located.push((
            a.loc.clone(),
            format!("attributes are not allowed on {what}"),
        ));
    }
}

/// `use agent::{A, B};`, `use agent::A;`, `use agent::*;` (after `use`).
fn use_item(input: ParseStream, p: &mut P, kw_span: Span) -> syn::Result<Use> {
    let protocol = input
        .call(Ident::parse_any)
        .map_err(|e| err(e.span(), "expected a protocol name: `use agent::{ChatId};`"))?;
    let protocol = p.name(protocol.to_string(), protocol.span());
    input.parse::<Token![::]>()?;
    let mut names = Vec::new();
    let mut glob = false;
    if input.peek(Token![*]) {
        input.parse::<Token![*]>()?;
        glob = true;
    } else if input.peek(token::Brace) {
        let content;
        braced!(content in input);
        names = list(&content, p, |input, p| {
            let i = input
                .call(Ident::parse_any)
                .map_err(|e| err(e.span(), "expected a type name"))?;
            Ok(p.name(unraw(&i), i.span()))
        });
    } else {
        let i = input
            .call(Ident::parse_any)
            .map_err(|e| err(e.span(), "expected a type name, `{...}` or `*`"))?;
        names.push(p.name(unraw(&i), i.span()));
    }
    semicolon(input, p)?;
    Ok(Use {
        protocol,
        names,
        glob,
        loc: p.loc(kw_span),
    })
}

/// `Name tag "type" { ... }` or `Name untagged { ... }` (after `union`).
fn union_item(input: ParseStream, p: &mut P, attrs: Attrs) -> syn::Result<UnionDecl> {
    let name = type_name(input, p)?;
    let how = input
        .call(Ident::parse_any)
        .map_err(|e| err(e.span(), "expected `tag \"key\"` or `untagged`"))?;
    let tag = match how.to_string().as_str() {
        "tag" => {
            let key: LitStr = input
                .parse()
                .map_err(|e| err(e.span(), "expected the tag key as a string: `tag \"type\"`"))?;
            Some(p.name(key.value(), key.span()))
        }
        "untagged" => None,
        _ => return Err(err(how.span(), "expected `tag \"key\"` or `untagged`")),
    };
    let content;
    braced!(content in input);
    let tagged = tag.is_some();
    let variants = list(&content, p, |input, p| variant(input, p, tagged));
    Ok(UnionDecl {
        attrs,
        name,
        tag,
        variants,
    })
}

fn variant(input: ParseStream, p: &mut P, tagged: bool) -> syn::Result<VariantDecl> {
    let attrs = attrs(input, p)?;
    let starts_with_tag = input.peek(LitStr) && input.peek2(Token![=>]);
    if tagged {
        if !input.peek(LitStr) {
            return Err(
                input.error("expected the variant's tag as a string: `\"item\" => ItemEvent`")
            );
        }
        let tag: LitStr = input.parse()?;
        input.parse::<Token![=>]>()?;
        let ty = ty(input, p)?;
        Ok(VariantDecl {
            attrs,
            tag: Some(p.name(tag.value(), tag.span())),
            name: None,
            loc: p.loc(tag.span()),
            ty,
        })
    } else {
        if starts_with_tag {
            return Err(input.error("an untagged union's variants have no tag: write the type alone, or use `tag \"key\"`"));
        }
        // `Text(string)`: a name, then the type in parentheses, names the variant in Rust (a
        // type expression has `(` after a word only on a primitive: `string(max = 3)`).
        const PRIMITIVES: &[&str] = &[
            "string", "int", "int64", "uint64", "number", "boolean", "unknown", "map", "null",
        ];
        let named = input.peek(Ident::peek_any)
            && input.peek2(token::Paren)
            && peek_word(input).is_some_and(|w| !PRIMITIVES.contains(&w.as_str()));
        if named {
            let ident = input.call(Ident::parse_any)?;
            let name = p.name(unraw(&ident), ident.span());
            let content;
            parenthesized!(content in input);
            let ty = ty(&content, p)?;
            if !content.is_empty() {
                return Err(content.error("expected `)`: a named variant is written `Name(T)`"));
            }
            return Ok(VariantDecl {
                attrs,
                tag: None,
                loc: name.loc.clone(),
                name: Some(name),
                ty,
            });
        }
        let ty = ty(input, p)?;
        Ok(VariantDecl {
            attrs,
            tag: None,
            name: None,
            loc: ty.loc.clone(),
            ty,
        })
    }
}

/// A string value (`"idle"`) or a named integer (`Error = 1`).
fn enum_value(input: ParseStream, p: &mut P) -> syn::Result<EnumValueDecl> {
    let attrs = attrs(input, p)?;
    if input.peek(LitStr) {
        let value: LitStr = input.parse()?;
        if input.peek(Token![=]) {
            return Err(input.error(
                "a string value stands alone; an integer value is a name and a number: `Error = 1`",
            ));
        }
        return Ok(EnumValueDecl {
            attrs,
            value: p.name(value.value(), value.span()),
            int: None,
        });
    }
    if !input.peek(Ident::peek_any) {
        return Err(input.error(
            "expected an enum value: a string (`\"idle\"`) or a name and an integer (`Error = 1`)",
        ));
    }
    let ident = input.call(Ident::parse_any)?;
    let name = p.name(unraw(&ident), ident.span());
    if !input.peek(Token![=]) {
        return Err(err(
            ident.span(),
            format!(
                "expected a string or `=` and an integer after `{}`: a string value is quoted (`\"{}\"`), an integer value is a name and a number (`Error = 1`)",
                name.text, name.text
            ),
        ));
    }
    input.parse::<Token![=]>()?;
    let int = number(input, p)?;
    Ok(EnumValueDecl {
        attrs,
        value: name,
        int: Some(int),
    })
}

fn request_entry(input: ParseStream, p: &mut P) -> syn::Result<RequestEntry> {
    let attrs = attrs(input, p)?;
    let name = entry_name(input, p, "request")?;
    input.parse::<Token![:]>()?;
    let payload = ty(input, p)?;
    input
        .parse::<Token![->]>()
        .map_err(|e| err(e.span(), "expected `->` and the request's result type"))?;
    let result = ty(input, p)?;
    Ok(RequestEntry {
        attrs,
        group: None,
        name,
        payload,
        result,
    })
}

fn event_entry(input: ParseStream, p: &mut P) -> syn::Result<EventEntry> {
    let attrs = attrs(input, p)?;
    let name = entry_name(input, p, "event")?;
    input.parse::<Token![:]>()?;
    let payload = ty(input, p)?;
    Ok(EventEntry {
        attrs,
        name,
        payload,
    })
}

fn entry_name(input: ParseStream, p: &mut P, what: &str) -> syn::Result<Name> {
    if !input.peek(LitStr) {
        return Err(input.error(format!(
            "expected the {what}'s wire name as a string: `\"chat.history\"`"
        )));
    }
    let name: LitStr = input.parse()?;
    Ok(p.name(name.value(), name.span()))
}

/// A type's name: any identifier (reserved words are judged by `check`).
fn type_name(input: ParseStream, p: &mut P) -> syn::Result<Name> {
    let i = input
        .call(Ident::parse_any)
        .map_err(|e| err(e.span(), "expected a type name"))?;
    Ok(p.name(unraw(&i), i.span()))
}

fn unraw(i: &Ident) -> String {
    let s = i.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// Comma-separated entries with recovery: a broken entry is reported and skipped up to the
/// next comma, and the rest is still read. A missing comma is reported after the entry; when
/// the next line starts, it is read as the next entry.
fn list<T>(
    content: ParseStream,
    p: &mut P,
    mut one: impl FnMut(ParseStream, &mut P) -> syn::Result<T>,
) -> Vec<T> {
    let mut out = Vec::new();
    while !content.is_empty() {
        let start = content.cursor();
        match one(content, p) {
            Ok(x) => {
                out.push(x);
                if content.is_empty() {
                    break;
                }
                // Something else follows on the same line (or nothing was read): skip it with
                // this entry.
                if content.parse::<Token![,]>().is_err()
                    && (!p.missing(content, ",") || content.cursor() == start)
                {
                    skip_past_comma(content);
                }
            }
            Err(e) => {
                p.errors.push(e);
                skip_past_comma(content);
            }
        }
    }
    out
}

fn skip_past_comma(input: ParseStream) {
    while !input.is_empty() {
        if input.peek(Token![,]) {
            skip_one(input);
            return;
        }
        skip_one(input);
    }
}

// ---------------------------------------------------------------------------------------------
// Attributes

/// Doc comments and `#[name]` / `#[name = "value"]` attributes.
fn attrs(input: ParseStream, p: &mut P) -> syn::Result<Attrs> {
    let mut out = Attrs::default();
    while input.peek(Token![#]) {
        let pound: Token![#] = input.parse()?;
        if input.peek(Token![!]) {
            return Err(
                input.error("inner attributes and `//!` comments belong at the top of a file")
            );
        }
        let content;
        bracketed!(content in input);
        let name = content
            .call(Ident::parse_any)
            .map_err(|e| err(e.span(), "expected an attribute name"))?;
        if name == "doc" {
            content.parse::<Token![=]>()?;
            let text: LitStr = content.parse()?;
            for line in text.value().split('\n') {
                let line = line.strip_suffix('\r').unwrap_or(line);
                out.docs
                    .push(line.strip_prefix(' ').unwrap_or(line).to_owned());
            }
        } else {
            let value = if content.peek(Token![=]) {
                content.parse::<Token![=]>()?;
                let v: LitStr = content.parse().map_err(|e| {
                    err(
                        e.span(),
                        "an attribute's value is a string: `#[name = \"value\"]`",
                    )
                })?;
                Some(p.name(v.value(), v.span()))
            } else {
                None
            };
            out.attrs.push(Attr {
                name: p.name(name.to_string(), name.span()),
                value,
                loc: p.loc(pound.span),
            });
        }
        if !content.is_empty() {
            return Err(content.error(
                "unexpected tokens in attribute: write `#[name]` or `#[name = \"value\"]`",
            ));
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Fields and type expressions

/// `{ field, ... }`: the body of a struct or an inline object.
fn fields_block(input: ParseStream, p: &mut P) -> syn::Result<Vec<FieldDecl>> {
    if !input.peek(token::Brace) {
        return Err(input.error("expected `{` and the fields"));
    }
    let content;
    braced!(content in input);
    Ok(list(&content, p, field))
}

fn field(input: ParseStream, p: &mut P) -> syn::Result<FieldDecl> {
    let attrs = attrs(input, p)?;
    if input.peek(Token![...]) {
        let dots: Token![...] = input.parse()?;
        let ty = primary_ty(input, p)?;
        return Ok(FieldDecl {
            attrs,
            name: p.name("...".to_owned(), dots.spans[0]),
            rest: false,
            include: true,
            optional: false,
            ty,
            default: None,
        });
    }
    if input.peek(Token![..]) {
        let dots: Token![..] = input.parse()?;
        input.parse::<Token![:]>().map_err(|e| {
            err(
                e.span(),
                "expected `:` and the type of every other key's value: `..: unknown`",
            )
        })?;
        let ty = ty(input, p)?;
        return Ok(FieldDecl {
            attrs,
            name: p.name("..".to_owned(), dots.spans[0]),
            rest: true,
            include: false,
            optional: false,
            ty,
            default: None,
        });
    }
    let name = if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        p.name(s.value(), s.span())
    } else if input.peek(Ident::peek_any) {
        let i = input.call(Ident::parse_any)?;
        p.name(unraw(&i), i.span())
    } else {
        return Err(
            input.error("expected a field name (an identifier, or a string for any other key)")
        );
    };
    let optional = if input.peek(Token![?]) {
        input.parse::<Token![?]>()?;
        true
    } else {
        false
    };
    input
        .parse::<Token![:]>()
        .map_err(|e| err(e.span(), "expected `:` and the field's type"))?;
    let ty = ty(input, p)?;
    let default = if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
        Some(value(input, p)?)
    } else {
        None
    };
    Ok(FieldDecl {
        attrs,
        name,
        rest: false,
        include: false,
        optional,
        ty,
        default,
    })
}

/// A type expression: a primary one, maybe followed by `| null`.
fn ty(input: ParseStream, p: &mut P) -> syn::Result<TypeExpr> {
    let inner = primary_ty(input, p)?;
    if input.peek(Token![|]) && !input.peek(Token![||]) {
        input.parse::<Token![|]>()?;
        let span = input.span();
        if peek_word(input).as_deref() == Some("null") {
            input.call(Ident::parse_any)?;
            let loc = inner.loc.clone();
            return Ok(TypeExpr {
                kind: TypeExprKind::Nullable(Box::new(inner)),
                loc,
            });
        }
        return Err(err(
            span,
            "only `T | null` is written with `|`; declare a `union` for a choice of types",
        ));
    }
    Ok(inner)
}

fn primary_ty(input: ParseStream, p: &mut P) -> syn::Result<TypeExpr> {
    let span = input.span();
    let loc = p.loc(span);
    let kind = if input.peek(LitStr) {
        let s: LitStr = input.parse()?;
        TypeExprKind::Literal(LiteralExpr::String(s.value()))
    } else if input.peek(LitBool) {
        let b: LitBool = input.parse()?;
        TypeExprKind::Literal(LiteralExpr::Bool(b.value))
    } else if input.peek(LitInt) || (input.peek(Token![-]) && input.peek2(LitInt)) {
        TypeExprKind::Literal(LiteralExpr::Int(number(input, p)?.value))
    } else if input.peek(LitFloat) || (input.peek(Token![-]) && input.peek2(LitFloat)) {
        return Err(input.error("a literal type is a string, `true`, `false` or an integer"));
    } else if input.peek(token::Bracket) {
        let content;
        bracketed!(content in input);
        let item = ty(&content, p)?;
        if !content.is_empty() {
            return Err(content.error("expected `]`: an array is written `[T]`"));
        }
        let args = args(input, p)?;
        TypeExprKind::Array(Box::new(item), args)
    } else if input.peek(token::Brace) {
        TypeExprKind::Object(fields_block(input, p)?)
    } else if input.peek(Ident::peek_any) {
        let first = input.call(Ident::parse_any)?;
        let word = unraw(&first);
        if word == "null" {
            return Ok(TypeExpr {
                kind: TypeExprKind::Literal(LiteralExpr::Null),
                loc,
            });
        }
        if word == "map" && input.peek(Token![<]) {
            input.parse::<Token![<]>()?;
            let value = ty(input, p)?;
            input
                .parse::<Token![>]>()
                .map_err(|e| err(e.span(), "expected `>`: a map is written `map<T>`"))?;
            TypeExprKind::Map(Box::new(value))
        } else if input.peek(Token![::]) {
            input.parse::<Token![::]>()?;
            let name = input
                .call(Ident::parse_any)
                .map_err(|e| err(e.span(), "expected a type name after `::`"))?;
            let args = args(input, p)?;
            TypeExprKind::Named {
                protocol: Some(p.name(word, first.span())),
                name: p.name(unraw(&name), name.span()),
                args,
            }
        } else {
            let args = args(input, p)?;
            TypeExprKind::Named {
                protocol: None,
                name: p.name(word, first.span()),
                args,
            }
        }
    } else {
        return Err(input.error("expected a type"));
    };
    Ok(TypeExpr { kind, loc })
}

/// `(min = 1, max = 128)` or `(1..=100)` after a type, if written.
fn args(input: ParseStream, p: &mut P) -> syn::Result<Option<Args>> {
    if !input.peek(token::Paren) {
        return Ok(None);
    }
    let loc = p.loc(input.span());
    let content;
    parenthesized!(content in input);
    let items = list(&content, p, arg);
    Ok(Some(Args { items, loc }))
}

fn arg(input: ParseStream, p: &mut P) -> syn::Result<Arg> {
    if input.peek(Ident::peek_any) {
        let key = input.call(Ident::parse_any)?;
        input
            .parse::<Token![=]>()
            .map_err(|e| err(e.span(), "expected `=`: write `min = 1` or `max = 10`"))?;
        if input.peek(LitStr) {
            let lit: LitStr = input.parse()?;
            return Ok(Arg::Text {
                key: p.name(key.to_string(), key.span()),
                value: p.name(lit.value(), lit.span()),
            });
        }
        let value = number(input, p)?;
        return Ok(Arg::Named {
            key: p.name(key.to_string(), key.span()),
            value,
        });
    }
    let loc = p.loc(input.span());
    let min = if input.peek(Token![..]) {
        None
    } else {
        Some(number(input, p)?)
    };
    if input.peek(Token![..=]) {
        input.parse::<Token![..=]>()?;
        let max = number(input, p)?;
        Ok(Arg::Range {
            min,
            max: Some(max),
            loc,
        })
    } else if input.peek(Token![..]) {
        input.parse::<Token![..]>()?;
        if !input.is_empty() && !input.peek(Token![,]) {
            return Err(
                input.error("ranges are inclusive: write `1..=100` (or `1..` with no upper bound)")
            );
        }
        Ok(Arg::Range {
            min,
            max: None,
            loc,
        })
    } else {
        Err(input.error("expected `..=` or `..`: a bound is written `min = 1`, `max = 10` or as a range `1..=100`"))
    }
}

/// An integer, maybe negative.
fn number(input: ParseStream, p: &mut P) -> syn::Result<Number> {
    let loc = p.loc(input.span());
    let negative = if input.peek(Token![-]) {
        input.parse::<Token![-]>()?;
        true
    } else {
        false
    };
    if input.peek(LitFloat) {
        return Err(input.error("expected a whole number"));
    }
    let lit: LitInt = input
        .parse()
        .map_err(|e| err(e.span(), "expected a whole number"))?;
    if !lit.suffix().is_empty() {
        return Err(err(lit.span(), "a number here takes no suffix"));
    }
    let value: i128 = lit
        .base10_parse()
        .map_err(|_| err(lit.span(), "this number is too large"))?;
    Ok(Number {
        value: if negative { -value } else { value },
        loc,
    })
}

// ---------------------------------------------------------------------------------------------
// Default values

/// A JSON value written with the schema's tokens: `40`, `"x"`, `true`, `null`, `[1, 2]`,
/// `{ lines: 40 }`.
fn value(input: ParseStream, p: &mut P) -> syn::Result<Value> {
    let loc = p.loc(input.span());
    let kind = if input.peek(LitStr) {
        ValueKind::String(input.parse::<LitStr>()?.value())
    } else if input.peek(LitBool) {
        ValueKind::Bool(input.parse::<LitBool>()?.value)
    } else if input.peek(LitFloat) || (input.peek(Token![-]) && input.peek2(LitFloat)) {
        let negative = input.parse::<Option<Token![-]>>()?.is_some();
        let lit: LitFloat = input.parse()?;
        let v: f64 = lit
            .base10_parse()
            .map_err(|_| err(lit.span(), "expected a number"))?;
        if !v.is_finite() {
            return Err(err(lit.span(), "a number must be finite"));
        }
        ValueKind::Float(if negative { -v } else { v })
    } else if input.peek(LitInt) || input.peek(Token![-]) {
        ValueKind::Int(number(input, p)?.value)
    } else if input.peek(token::Bracket) {
        let content;
        bracketed!(content in input);
        ValueKind::Array(list(&content, p, value))
    } else if input.peek(token::Brace) {
        let content;
        braced!(content in input);
        ValueKind::Object(list(&content, p, |input, p| {
            let key = if input.peek(LitStr) {
                let s: LitStr = input.parse()?;
                p.name(s.value(), s.span())
            } else {
                let i = input
                    .call(Ident::parse_any)
                    .map_err(|e| err(e.span(), "expected a key"))?;
                p.name(unraw(&i), i.span())
            };
            input.parse::<Token![:]>()?;
            Ok((key, value(input, p)?))
        }))
    } else if peek_word(input).as_deref() == Some("null") {
        input.call(Ident::parse_any)?;
        ValueKind::Null
    } else {
        return Err(input.error("expected a default value: a string, number, `true`, `false`, `null`, `[...]` or `{...}`"));
    };
    Ok(Value { kind, loc })
}
