//! The syntax tree: what a `.contract` file says, with locations, before any resolution.
//!
//! `parse` builds it, `check::syntax` judges what only the text can tell (attributes, negative
//! lengths), and `lower` turns it into the model. Nothing here is resolved: a name is a name.

use std::sync::Arc;

pub use crate::model::Loc;

/// One parsed `.contract` file.
#[derive(Clone, Debug)]
pub struct File {
    /// The path as displayed in diagnostics.
    pub path: Arc<str>,
    /// The module the file's types belong to (its subdirectory), `None` at the root.
    pub module: Option<String>,
    pub items: Vec<Item>,
    /// The names of declarations that did not parse and were skipped: references to them
    /// are not reported as unknown.
    pub broken: Vec<String>,
    /// False when part of the file could not be read at all (a tokenizer error, a broken
    /// `use`): then no reference is reported as unknown.
    pub complete: bool,
}

/// A word or a string as written, with its place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub loc: Loc,
}

/// Doc comments and attributes written before something.
#[derive(Clone, Debug, Default)]
pub struct Attrs {
    /// `///` lines, without the slashes and the one leading space.
    pub docs: Vec<String>,
    /// `#[name]` and `#[name = "value"]`, in the order written.
    pub attrs: Vec<Attr>,
}

/// `#[name]` or `#[name = "value"]`.
#[derive(Clone, Debug)]
pub struct Attr {
    pub name: Name,
    pub value: Option<Name>,
    /// The place of the `#`.
    pub loc: Loc,
}

impl Attrs {
    /// The attribute called `name`, if written.
    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.attrs.iter().find(|a| a.name.text == name)
    }
}

/// A top-level declaration.
#[derive(Clone, Debug)]
pub enum Item {
    Use(Use),
    Alias(Alias),
    Struct(StructDecl),
    Enum(EnumDecl),
    Union(UnionDecl),
    Requests(Vec<RequestEntry>),
    Events(Vec<EventEntry>),
    Const(ConstDecl),
}

/// `const PROTOCOL_VERSION = "2025-11-25";`: a named value (a string, an integer or a
/// boolean), usable where a type is written as the literal it holds.
#[derive(Clone, Debug)]
pub struct ConstDecl {
    pub attrs: Attrs,
    pub name: Name,
    pub value: LiteralExpr,
    pub loc: Loc,
}

/// `use agent::{ChatId, ChatInfo};`, `use agent::ChatId;` or `use agent::*;`.
#[derive(Clone, Debug)]
pub struct Use {
    pub protocol: Name,
    pub names: Vec<Name>,
    pub glob: bool,
    /// The place of `use`.
    pub loc: Loc,
}

/// `type ChatId = string(min = 1);`
#[derive(Clone, Debug)]
pub struct Alias {
    pub attrs: Attrs,
    pub name: Name,
    pub ty: TypeExpr,
}

/// `struct ChatInfo { ... }`
#[derive(Clone, Debug)]
pub struct StructDecl {
    pub attrs: Attrs,
    pub name: Name,
    pub fields: Vec<FieldDecl>,
}

/// `name?: T = default` inside a struct or an inline object.
#[derive(Clone, Debug)]
pub struct FieldDecl {
    pub attrs: Attrs,
    /// The key as it travels: an identifier (keywords allowed) or a string; `..` for the rest.
    pub name: Name,
    /// `..: T`: every other key of the object, each with a value of `T` (an open object).
    pub rest: bool,
    /// `...Base`: the fields of the struct `Base` (its type is `ty`), included in this one.
    pub include: bool,
    pub optional: bool,
    pub ty: TypeExpr,
    pub default: Option<Value>,
}

/// `enum ChatState { "idle", "running" }` or `enum Severity { Error = 1, Warning = 2 }`.
#[derive(Clone, Debug)]
pub struct EnumDecl {
    pub attrs: Attrs,
    pub name: Name,
    pub values: Vec<EnumValueDecl>,
}

#[derive(Clone, Debug)]
pub struct EnumValueDecl {
    pub attrs: Attrs,
    /// A string value as it travels (`"idle"`), or an integer value's name (`Error`).
    pub value: Name,
    /// `Error = 1`: the integer that travels; `None` for a string value.
    pub int: Option<Number>,
}

/// `union ChatEvent tag "type" { ... }` or `union ServerFrame untagged { ... }`.
#[derive(Clone, Debug)]
pub struct UnionDecl {
    pub attrs: Attrs,
    pub name: Name,
    /// The tag key; `None` for an untagged union.
    pub tag: Option<Name>,
    pub variants: Vec<VariantDecl>,
}

/// `"item" => ItemEvent` in a tagged union, `ReplyOk` in an untagged one.
#[derive(Clone, Debug)]
pub struct VariantDecl {
    pub attrs: Attrs,
    pub tag: Option<Name>,
    /// `Text(string)` in an untagged union: the variant's Rust name, written.
    pub name: Option<Name>,
    pub ty: TypeExpr,
    /// The place of the tag, or of the type when untagged.
    pub loc: Loc,
}

/// `"chat.history": Payload -> Result` in a `requests` block.
#[derive(Clone, Debug)]
pub struct RequestEntry {
    pub attrs: Attrs,
    /// The doc comment of the block the entry is in.
    pub group: Option<String>,
    pub name: Name,
    pub payload: TypeExpr,
    pub result: TypeExpr,
}

/// `"chat.status": Payload` in an `events` block.
#[derive(Clone, Debug)]
pub struct EventEntry {
    pub attrs: Attrs,
    pub name: Name,
    pub payload: TypeExpr,
}

/// A type expression with the place it starts.
#[derive(Clone, Debug)]
pub struct TypeExpr {
    pub kind: TypeExprKind,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum TypeExprKind {
    /// A word, maybe qualified and maybe with arguments: `string(min = 1)`, `int(1..=100)`,
    /// `ChatId`, `agent::ChatId`. `lower` tells primitives from references.
    Named {
        protocol: Option<Name>,
        name: Name,
        args: Option<Args>,
    },
    /// `"event"`, `true`, `1`.
    Literal(LiteralExpr),
    /// `[T]`, `[T](max = 500)`.
    Array(Box<TypeExpr>, Option<Args>),
    /// `map<T>`.
    Map(Box<TypeExpr>),
    /// `{ field: T, ... }`.
    Object(Vec<FieldDecl>),
    /// `T | null`.
    Nullable(Box<TypeExpr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LiteralExpr {
    String(String),
    Bool(bool),
    Int(i128),
    /// `null` written alone: the type whose one value is `null`.
    Null,
}

/// The parenthesised constraints after a type: `(min = 1, max = 128)`, `(1..=100)`.
#[derive(Clone, Debug)]
pub struct Args {
    pub items: Vec<Arg>,
    /// The place of the `(`.
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum Arg {
    /// `min = 1`
    Named { key: Name, value: Number },
    /// `format = "uri"`: a string value.
    Text { key: Name, value: Name },
    /// `1..=100`, `0..`, `..=10`.
    Range {
        min: Option<Number>,
        max: Option<Number>,
        loc: Loc,
    },
}

/// An integer as written (sign included), wide enough to tell out-of-range values.
#[derive(Clone, Debug)]
pub struct Number {
    pub value: i128,
    pub loc: Loc,
}

/// A default value: JSON written in the schema's tokens.
#[derive(Clone, Debug)]
pub struct Value {
    pub kind: ValueKind,
    pub loc: Loc,
}

#[derive(Clone, Debug)]
pub enum ValueKind {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    String(String),
    Array(Vec<Value>),
    /// Keys as written (identifiers or strings).
    Object(Vec<(Name, Value)>),
}
