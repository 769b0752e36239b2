//! How wire names become Rust and TypeScript names. One place, so every emitter and the
//! check that two wire names collapse to one identifier agree.

use heck::{ToSnakeCase, ToUpperCamelCase};

/// Rust keywords that cannot be raw identifiers or that we refuse as names.
const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// Whether `s` is a Rust keyword.
pub fn is_rust_keyword(s: &str) -> bool {
    RUST_KEYWORDS.contains(&s)
}

/// The Rust field name for a wire key: snake_case (`chatId` -> `chat_id`). Keywords are
/// returned as is; [`rust_ident`] makes them raw (`r#type`).
pub fn rust_field(wire: &str) -> String {
    let s = wire.to_snake_case();
    if s.is_empty() {
        "field".to_owned()
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

/// The Rust type-like name for a wire value or name: UpperCamelCase
/// (`chat.history` -> `ChatHistory`, `chat-unsupported` -> `ChatUnsupported`).
pub fn rust_type(wire: &str) -> String {
    let s = wire.to_upper_camel_case();
    if s.is_empty() {
        "Empty".to_owned()
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{s}")
    } else {
        s
    }
}

/// A Rust type name: a schema type name is kept as written (it is an identifier already);
/// a wire name (`chat.history`, `task-host`) is made UpperCamelCase.
pub fn rust_type_name(name: &str) -> String {
    let ident_like = !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.starts_with(|c: char| c.is_ascii_uppercase());
    let s = if ident_like {
        name.to_owned()
    } else {
        rust_type(name)
    };
    if is_rust_keyword(&s) {
        format!("{s}_")
    } else {
        s
    }
}

/// A token-ready identifier: raw when it is a keyword that can be raw.
pub fn rust_ident(name: &str) -> proc_macro2::Ident {
    match name {
        "self" | "Self" | "super" | "crate" => {
            proc_macro2::Ident::new(&format!("{name}_"), proc_macro2::Span::call_site())
        }
        n if is_rust_keyword(n) => proc_macro2::Ident::new_raw(n, proc_macro2::Span::call_site()),
        n => proc_macro2::Ident::new(n, proc_macro2::Span::call_site()),
    }
}

/// The TypeScript name of a type's Zod schema: `ChatInfo` -> `ChatInfoSchema`.
pub fn ts_schema(type_name: &str) -> String {
    format!("{type_name}Schema")
}

/// The name a hoisted inline object gets from its place: `ChatHistory` + `Payload`.
pub fn synthetic(parts: &[&str]) -> String {
    parts.iter().map(|p| rust_type(p)).collect()
}

/// The name of a type's borrowed view in Rust: `ChatItem` -> `ChatItemRef`.
pub fn view_name(type_name: &str) -> String {
    format!("{type_name}Ref")
}
