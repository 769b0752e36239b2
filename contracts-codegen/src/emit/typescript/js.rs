//! emit::typescript::js: how values are written in the generated JavaScript: string
//! literals, object keys and properties, literal values, JSDoc comments, constant names.

use crate::model::{Docs, Literal, Meta};
use std::fmt::Write as _;

/// A JS string literal (single-quoted, the package's style).
pub fn js_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// An object key: bare when it is an identifier, quoted otherwise.
pub fn js_key(s: &str) -> String {
    let mut chars = s.chars();
    let ident = match chars.next() {
        Some(c) if c == '_' || c == '$' || c.is_ascii_alphabetic() => {
            chars.all(|c| c == '_' || c == '$' || c.is_ascii_alphanumeric())
        }
        _ => false,
    };
    if ident { s.to_owned() } else { js_string(s) }
}

/// A JSDoc block from docs and metadata, indented; empty when there is nothing to say.
pub fn jsdoc(docs: &Docs, meta: &Meta, extra: &[String], indent: &str) -> String {
    let mut lines: Vec<String> = docs.0.iter().map(|l| l.trim_end().to_owned()).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    for x in extra {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.extend(x.lines().map(str::to_owned));
    }
    if let Some(reason) = &meta.deprecated {
        if reason.is_empty() {
            lines.push("@deprecated".to_owned());
        } else {
            lines.push(format!("@deprecated {reason}"));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut out = format!("{indent}/**\n");
    for l in lines {
        let l = l.replace("*/", "*\\/");
        if l.is_empty() {
            let _ = writeln!(out, "{indent} *");
        } else {
            let _ = writeln!(out, "{indent} * {l}");
        }
    }
    let _ = writeln!(out, "{indent} */");
    out
}

/// A JSON value as a JavaScript expression.
pub(super) fn js_value(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => js_string(s),
        other => other.to_string(),
    }
}

/// `A` or `An`, for a type name.
pub(super) fn article(name: &str) -> &'static str {
    if name.starts_with(['A', 'E', 'I', 'O', 'U']) {
        "An"
    } else {
        "A"
    }
}

/// A property access: `.name`, or `['odd-key']`.
pub(super) fn js_prop(name: &str) -> String {
    let k = js_key(name);
    if k.starts_with('\'') {
        format!("[{k}]")
    } else {
        format!(".{k}")
    }
}

pub(super) fn literal(l: &Literal) -> String {
    match l {
        Literal::String(s) => js_string(s),
        Literal::Bool(b) => b.to_string(),
        Literal::Int(i) => i.to_string(),
        Literal::Null => "null".to_owned(),
    }
}

/// `ChatState` -> `CHAT_STATE`.
pub fn screaming(name: &str) -> String {
    use heck::ToShoutySnakeCase;
    name.to_shouty_snake_case()
}
