//! The model: the one IR every emitter and the differ read.
//!
//! `lower` builds it from the syntax tree, `check` judges it, and from then on it is read-only.
//! Names are kept exactly as they travel on the wire; Rust and TypeScript names are derived by
//! the emitters (see [`crate::names`]). Inline objects are hoisted by `lower` into synthetic
//! named definitions, so every emitter agrees on their names. Order is declaration order, files
//! sorted by path, so every output is deterministic.

use std::fmt;
use std::sync::Arc;

/// The largest integer a double holds exactly (2^53 - 1): the widest `int` on the wire, as
/// JavaScript's `Number.MAX_SAFE_INTEGER`.
pub const MAX_SAFE: i64 = 9_007_199_254_740_991;

/// A place in a schema file: 1-based line and column (columns count characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Loc {
    /// The file as it is displayed, e.g. `schema/agent/chat.contract`.
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
}

impl Loc {
    /// A location for things that have no place in a file (built-ins, tests).
    pub fn builtin() -> Loc {
        Loc {
            file: Arc::from("<builtin>"),
            line: 0,
            col: 0,
        }
    }
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Doc comment lines (`///`), without the slashes and the one leading space.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Docs(pub Vec<String>);

impl Docs {
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|l| l.trim().is_empty())
    }
    /// The lines joined with newlines.
    pub fn text(&self) -> String {
        self.0.join("\n")
    }
}

/// Which way a frame or a type travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Client to host/server: request payloads, client frames.
    ClientToServer,
    /// Host/server to client: results, events, server frames.
    ServerToClient,
    /// Both ways.
    Both,
}

/// Per-entry metadata, written as attributes in the schema (`#[deprecated]`, `#[legacy]`, ...).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// `#[deprecated]` or `#[deprecated = "reason"]`: `Some("")` or `Some(reason)`.
    pub deprecated: Option<String>,
    /// `#[legacy]` on an enum value: accepted and written back, never produced by new code,
    /// and never droppable.
    pub legacy: bool,
    /// `#[direction = "client-to-server" | "server-to-client" | "both"]`.
    pub direction: Option<Direction>,
    /// `#[accepts = "events"]`: the capability a peer must announce to receive this frame.
    pub accepts: Option<String>,
    /// `#[stored]` on a declaration: values of it are persisted and read back later by new code
    /// (a thread's items), so the differ judges it, and every type in it, both ways.
    pub stored: bool,
    /// `#[table = "requests[type]"]` on an `unknown` field: its value is the payload of the
    /// entry of a table (`requests` or `events`) named by a sibling string field (`type`).
    /// The Rust emitter reads the payload by that name in the same pass as the frame.
    pub table: Option<TableKey>,
    /// `#[error]` on a struct `{ code: E, message: string }` (`E` an enum): the protocol's
    /// error, whose Rust type gets `Display`, `std::error::Error` and a constructor per code.
    pub error: bool,
}

/// Which table entry an `unknown` field holds the payload of (`#[table = "requests[type]"]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableKey {
    pub table: TableKind,
    /// The sibling field whose string value names the entry.
    pub key: String,
}

/// A table of a protocol (its own entries and its bases').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableKind {
    Requests,
    Events,
}

/// One schema directory, parsed, lowered and checked.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The protocol's name: the directory's name unless the caller gives another (`agent`).
    pub name: String,
    /// Every file read, in path order, with its text (diagnostics and `include_str!` use them).
    pub files: Vec<SourceFile>,
    /// The protocols this one builds on, in the order given. Their types can be used by name
    /// once imported with `use`.
    pub bases: Vec<Arc<Model>>,
    /// `use agent::{ChatId, ChatInfo};` lines.
    pub imports: Vec<Import>,
    /// Every named type, declared or synthetic, in declaration order.
    pub types: Vec<TypeDef>,
    /// The request table, in declaration order.
    pub requests: Vec<Request>,
    /// The event table, in declaration order.
    pub events: Vec<Event>,
    /// Named values (`const PROTOCOL_VERSION = "2025-11-25";`), in declaration order.
    pub consts: Vec<Const>,
}

/// A named value: a string, an integer or a boolean. Written where a type goes, it is the
/// literal it holds.
#[derive(Clone, Debug)]
pub struct Const {
    pub name: String,
    pub docs: Docs,
    pub meta: Meta,
    pub loc: Loc,
    pub value: Literal,
}

/// A schema file as read from disk.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as displayed in diagnostics.
    pub display: Arc<str>,
    /// The absolute path (what `include_str!` needs).
    pub absolute: std::path::PathBuf,
    pub text: String,
}

/// `use base::{A, B};` or `use base::*;`.
#[derive(Clone, Debug)]
pub struct Import {
    pub protocol: String,
    /// The imported names with where each is written; empty with `glob`.
    pub names: Vec<(String, Loc)>,
    pub glob: bool,
    pub loc: Loc,
}

/// A named type.
#[derive(Clone, Debug)]
pub struct TypeDef {
    /// The name as written in the schema (PascalCase by convention).
    pub name: String,
    pub docs: Docs,
    pub meta: Meta,
    pub loc: Loc,
    /// The module it belongs to: the schema subdirectory its file sits in (`task` for
    /// `schema/agent/task/*.contract`), `None` at the root.
    pub module: Option<String>,
    /// True when `lower` hoisted it from an inline object; `name` was then made from its place
    /// (`ChatHistoryPayload`, `ChatEventReset`, `HelloContext`).
    pub synthetic: bool,
    pub kind: TypeDefKind,
}

impl TypeDef {
    /// The type expressions it holds: a struct's fields' then its rest's, a union's variants'
    /// (by index),
    /// an alias's one; none for an enum.
    pub fn slots(&self) -> Vec<&Ty> {
        match &self.kind {
            TypeDefKind::Alias(ty) => vec![ty],
            TypeDefKind::Struct(s) => s.slots().collect(),
            TypeDefKind::Union(u) => u.variants.iter().map(|v| &v.ty).collect(),
            TypeDefKind::Enum(_) => Vec::new(),
        }
    }
}

#[derive(Clone, Debug)]
pub enum TypeDefKind {
    /// `type ChatId = string(min = 1);`
    Alias(Ty),
    /// `struct ChatInfo { ... }` or a hoisted inline object.
    Struct(Struct),
    /// `enum ChatState { "idle", "running" }`
    Enum(Enum),
    /// `union ChatEvent tag "type" { ... }` or `union ServerFrame untagged { ... }`
    Union(Union),
}

/// An object: a set of fields. Other keys on the wire are accepted: dropped, or kept in the
/// rest when the object is open (`..: T`).
#[derive(Clone, Debug, Default)]
pub struct Struct {
    pub fields: Vec<Field>,
    /// `..: T`: every key that is not a field, kept with its value (a `T`) in the order read.
    pub rest: Option<Rest>,
    /// `...Base`: the structs whose fields come first in `fields`, in order (lowering copies
    /// them in; an included struct's rest is this one's when it has none of its own).
    pub includes: Vec<Include>,
}

/// A struct included in another (`...Base`).
#[derive(Clone, Debug)]
pub struct Include {
    pub ty: TypeRef,
    pub loc: Loc,
    /// How many of the including struct's first fields are this one's.
    pub fields: usize,
}

/// The rest of an open object (`..: unknown`, `..: string`).
#[derive(Clone, Debug)]
pub struct Rest {
    pub docs: Docs,
    pub loc: Loc,
    /// The rest as the map it is: `map<T>` for `..: T`.
    pub ty: Ty,
}

impl Struct {
    /// The type of every field's value, then the rest's (as its map).
    pub fn slots(&self) -> impl Iterator<Item = &Ty> {
        self.fields
            .iter()
            .map(|f| &f.ty)
            .chain(self.rest.iter().map(|r| &r.ty))
    }
}

#[derive(Clone, Debug)]
pub struct Field {
    /// The key exactly as it travels (`chatId`, `workspace_id`, `type`).
    pub name: String,
    pub docs: Docs,
    pub meta: Meta,
    pub loc: Loc,
    /// `name?: T`: the key may be absent; present, it must be a valid `T` (null only if `T` is
    /// nullable).
    pub optional: bool,
    /// `name?: T = value`: the value used when the key is absent (only on optional fields).
    pub default: Option<serde_json::Value>,
    pub ty: Ty,
}

/// An enum of strings (`enum ChatState { "idle", "running" }`) or of named integers
/// (`enum Severity { Error = 1, Warning = 2 }`); `check` refuses one that mixes them. Closed:
/// an unknown value is refused. `open` enums (error-code sets that apps extend) accept any
/// string (any integer) and document the known ones.
#[derive(Clone, Debug, Default)]
pub struct Enum {
    pub values: Vec<EnumValue>,
    /// `#[open]` on the enum.
    pub open: bool,
    /// `#[extends = "agent::ErrorCode"]`: the enum's values are more values of that `#[open]`
    /// enum (an app's own error codes), and travel as it.
    pub extends: Option<TypeRef>,
}

#[derive(Clone, Debug)]
pub struct EnumValue {
    /// The value exactly as it travels: a string, or a named integer.
    pub value: EnumLit,
    pub docs: Docs,
    pub meta: Meta,
    pub loc: Loc,
}

/// What an enum value is: `"idle"` travels as the string, `Error = 1` as the number 1.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EnumLit {
    Str(String),
    /// `Error = 1`: the name (UpperCamelCase: the Rust variant, the TypeScript key) and the
    /// integer that travels.
    Int {
        name: String,
        value: i64,
    },
}

impl EnumValue {
    /// What its Rust variant and TypeScript key are made from: a string value itself (through
    /// `names`), an integer value's name (as written).
    pub fn name(&self) -> &str {
        match &self.value {
            EnumLit::Str(s) => s,
            EnumLit::Int { name, .. } => name,
        }
    }
    /// The string that travels, for a string value.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            EnumLit::Str(s) => Some(s),
            EnumLit::Int { .. } => None,
        }
    }
    /// The integer that travels, for an integer value.
    pub fn as_int(&self) -> Option<i64> {
        match &self.value {
            EnumLit::Str(_) => None,
            EnumLit::Int { value, .. } => Some(*value),
        }
    }
    /// The value as JSON, as it travels.
    pub fn json(&self) -> serde_json::Value {
        match &self.value {
            EnumLit::Str(s) => serde_json::Value::String(s.clone()),
            EnumLit::Int { value, .. } => serde_json::Value::from(*value),
        }
    }
    /// The value as the schema and the reference show it: `"idle"`, `1`.
    pub fn shown(&self) -> String {
        self.json().to_string()
    }
}

impl Enum {
    /// True for an enum of named integers (`Error = 1`); a checked enum is one or the other.
    pub fn is_int(&self) -> bool {
        self.values
            .first()
            .is_some_and(|v| matches!(v.value, EnumLit::Int { .. }))
    }
    /// The string values, in order (an integer enum has none).
    pub fn strs(&self) -> impl Iterator<Item = &str> {
        self.values.iter().filter_map(EnumValue::as_str)
    }
    /// The integer values, in order (a string enum has none).
    pub fn ints(&self) -> impl Iterator<Item = i64> + '_ {
        self.values.iter().filter_map(EnumValue::as_int)
    }
}

#[derive(Clone, Debug)]
pub struct Union {
    pub tag: UnionTag,
    pub variants: Vec<Variant>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UnionTag {
    /// `tag "type"`: the variant is chosen by the value of this key; the variant's own object
    /// does not declare the key, the union adds it as a literal.
    Tagged { field: String, loc: Loc },
    /// `untagged`: variants are tried in the order written; the first that accepts wins.
    Untagged,
}

#[derive(Clone, Debug)]
pub struct Variant {
    /// The tag value (`"item"`) for a tagged union, `None` for an untagged one.
    pub tag: Option<String>,
    /// `Text(string)`: an untagged variant's Rust name, as written; `None` derives it (from
    /// the type it names, else from its kind: `String`, `Int`, `Array`, ...).
    pub name: Option<String>,
    pub docs: Docs,
    pub meta: Meta,
    pub loc: Loc,
    /// After lowering: a `TyKind::Ref` in a tagged union (inline objects are hoisted); any
    /// type expression in an untagged one (`string`, `[T]`, `null`, a named type).
    pub ty: Ty,
}

impl Variant {
    /// What an untagged variant's Rust name is made from (through `names::rust_type_name`):
    /// the name written (`Text(string)`), else the type it names (`ReplyOk`), else its kind:
    /// `String`, `Boolean`, `Int`, `Int64`, `Uint64`, `Number`, `Unknown`, `Null`, `Array`,
    /// `Map`, a literal's value (`"text"` is `Text`, `true` is `True`, `1` is `Int1`, `-1`
    /// `IntMinus1`), and `T | null` is `T`'s with `OrNull` (`StringOrNull`).
    pub fn name_source(&self) -> String {
        if let Some(tag) = &self.tag {
            return tag.clone();
        }
        if let Some(name) = &self.name {
            return name.clone();
        }
        fn kind(ty: &Ty) -> String {
            match &ty.kind {
                TyKind::String(..) => "String".into(),
                TyKind::Boolean => "Boolean".into(),
                TyKind::Int(_, Width::Safe) => "Int".into(),
                TyKind::Int(_, Width::I64) => "Int64".into(),
                TyKind::Int(_, Width::U64) => "Uint64".into(),
                TyKind::Number(_) => "Number".into(),
                TyKind::Unknown => "Unknown".into(),
                TyKind::Literal(Literal::Null) => "Null".into(),
                TyKind::Literal(Literal::Bool(b)) => if *b { "True" } else { "False" }.into(),
                TyKind::Literal(Literal::Int(i)) if *i < 0 => {
                    format!("IntMinus{}", i.unsigned_abs())
                }
                TyKind::Literal(Literal::Int(i)) => format!("Int{i}"),
                TyKind::Literal(Literal::String(s))
                    if s.starts_with(|c: char| c.is_ascii_alphabetic()) =>
                {
                    s.clone()
                }
                TyKind::Literal(Literal::String(_)) => "Literal".into(),
                TyKind::Array(..) => "Array".into(),
                TyKind::Map(_) => "Map".into(),
                TyKind::Nullable(inner) => format!("{}OrNull", kind(inner)),
                TyKind::Ref(r) => r.name.clone(),
            }
        }
        kind(&self.ty)
    }
}

/// A request: its wire name, payload and result.
#[derive(Clone, Debug)]
pub struct Request {
    /// `chat.history`
    pub name: String,
    pub docs: Docs,
    /// The doc comment of the `requests { }` block it is in (`Open and read`): its group in
    /// the reference, like the spec's table.
    pub group: Option<String>,
    pub meta: Meta,
    pub loc: Loc,
    pub payload: Ty,
    pub result: Ty,
    /// `#[partial = "T"]`: what the host may send before the result, a part of it at a time
    /// (LSP's partial results). It travels as the result does.
    pub partial: Option<Ty>,
    /// `#[error_data = "T"]`: what a failure answering this request carries as its `data`
    /// (LSP's `InitializeError`). It travels as the result does.
    pub error_data: Option<Ty>,
}

impl Request {
    /// The entry's metadata types, by the attribute that declares each: what travels beside
    /// the result, the way it does.
    pub fn metadata(&self) -> impl Iterator<Item = (&'static str, &Ty)> {
        [("partial", &self.partial), ("error_data", &self.error_data)]
            .into_iter()
            .filter_map(|(k, t)| t.as_ref().map(|t| (k, t)))
    }

    /// Who sends it: its `#[direction]`, else the client (a host answers it).
    pub fn sender(&self) -> Direction {
        self.meta.direction.unwrap_or(Direction::ClientToServer)
    }
}

impl Direction {
    /// Whether a frame that travels this way is sent by the client.
    pub fn from_client(self) -> bool {
        self != Direction::ServerToClient
    }

    /// Whether a frame that travels this way is sent by the host.
    pub fn from_server(self) -> bool {
        self != Direction::ClientToServer
    }

    /// The way back: a request's result travels against its payload.
    pub fn reversed(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
            Direction::Both => Direction::Both,
        }
    }
}

/// An event: its wire name and payload.
#[derive(Clone, Debug)]
pub struct Event {
    /// `chat.status`
    pub name: String,
    pub docs: Docs,
    pub meta: Meta,
    pub loc: Loc,
    pub payload: Ty,
}

impl Event {
    /// Who sends it: its `#[direction]`, else the host (a client receives it).
    pub fn sender(&self) -> Direction {
        self.meta.direction.unwrap_or(Direction::ServerToClient)
    }
}

/// A type expression with the place it was written.
#[derive(Clone, Debug)]
pub struct Ty {
    pub kind: TyKind,
    pub loc: Loc,
}

impl Ty {
    /// Calls `f` with every reference inside the expression, through arrays, maps and
    /// nullables, in order.
    pub fn each_ref<'t>(&'t self, f: &mut impl FnMut(&'t TypeRef)) {
        match &self.kind {
            TyKind::Ref(r) => f(r),
            TyKind::Array(inner, _) | TyKind::Map(inner) | TyKind::Nullable(inner) => {
                inner.each_ref(f)
            }
            _ => {}
        }
    }
}

#[derive(Clone, Debug)]
pub enum TyKind {
    /// `string`, `string(min = 1, max = 128)`: lengths count Unicode code points;
    /// `string(format = "byte")`: a format, checked where it is decidable.
    String(Limits<u64>, Option<Format>),
    /// `boolean`
    Boolean,
    /// `int`, `int(1..=100)`: a JSON number with an integral value in the safe range
    /// `-(2^53-1) ..= 2^53-1`, further limited by the bounds; `int64`, `uint64`: in the
    /// width's range as a double tells it (see [`Width`]).
    Int(Limits<i64>, Width),
    /// `number`, `number(min = 0)`: any finite JSON number.
    Number(Limits<i64>),
    /// `unknown`: any JSON value, null included. A required `unknown` key must still be present.
    Unknown,
    /// `"event"`, `true`, `false`, `1`: exactly this value.
    Literal(Literal),
    /// `[T]`, `[T](max = 500)`: item count limits.
    Array(Box<Ty>, Limits<u64>),
    /// `map<T>`: an object with any string keys and values of `T`.
    Map(Box<Ty>),
    /// A named type, possibly from a base protocol.
    Ref(TypeRef),
    /// `T | null`
    Nullable(Box<Ty>),
}

/// A string's `format`: `string(format = "uri")`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    /// `"uri"`: a URI; checked only for its scheme, `^[A-Za-z][A-Za-z0-9+.-]*:`.
    Uri,
    /// `"byte"`: bytes in base64, the standard alphabet with padding (`z.base64()`).
    Byte,
}

impl Format {
    /// Every format, in the order the error listing them shows.
    pub const ALL: [Format; 2] = [Format::Uri, Format::Byte];

    /// The name written in the schema and in JSON Schema's `format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Uri => "uri",
            Format::Byte => "byte",
        }
    }

    /// The format written `name`.
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether `s` is a valid value of the format: the rule of [`Format::pattern`], the
    /// runtime's (`wire::schema`) and Zod's.
    pub fn accepts(self, s: &str) -> bool {
        let b = s.as_bytes();
        match self {
            Format::Uri => {
                let scheme = b
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-')));
                b.first().is_some_and(u8::is_ascii_alphabetic)
                    && scheme.is_some_and(|i| b[i] == b':')
            }
            Format::Byte => {
                let alphabet = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/');
                let body = b.strip_suffix(b"==").or(b.strip_suffix(b"=")).unwrap_or(b);
                b.len().is_multiple_of(4) && body.iter().all(alphabet)
            }
        }
    }

    /// The pattern a value must match, as JavaScript and JSON Schema write it.
    pub fn pattern(self) -> &'static str {
        match self {
            Format::Uri => URI_PATTERN,
            Format::Byte => BASE64_PATTERN,
        }
    }
}

/// What a `uri` must start with: an RFC 3986 scheme and its colon.
pub const URI_PATTERN: &str = "^[A-Za-z][A-Za-z0-9+.-]*:";

/// What a `byte` must be: Zod 4's `z.base64()` (whole groups of four, `=` padding only at
/// the end), written as its own regex is.
pub const BASE64_PATTERN: &str =
    "^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$";

/// An integer's width: which values its type holds before any bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Width {
    /// `int`: the safe range `-(2^53-1) ..= 2^53-1`, exact in JavaScript.
    #[default]
    Safe,
    /// `int64`: `-2^63 <= v < 2^63`, judged on the value as a double (`JSON.parse`'s), so
    /// texts that round to `2^63` are refused; Rust reads the text exactly as an `i64`.
    I64,
    /// `uint64`: `0 <= v < 2^64`, judged likewise; Rust reads a `u64`.
    U64,
}

impl Width {
    /// The primitive's name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            Width::Safe => "int",
            Width::I64 => "int64",
            Width::U64 => "uint64",
        }
    }
}

/// Inclusive bounds; `None` means unbounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Limits<T> {
    pub min: Option<T>,
    pub max: Option<T>,
}

impl<T> Limits<T> {
    pub fn none() -> Self {
        Limits {
            min: None,
            max: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Literal {
    String(String),
    Bool(bool),
    Int(i64),
    /// `null`: the type whose one value is `null` (`-> null`, `type Nothing = null;`).
    Null,
}

/// A reference to a named type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeRef {
    pub name: String,
    /// The protocol that declares it: `None` for this model, `Some("agent")` for a base
    /// (resolved by `lower` from the imports, or written `agent::ChatId`).
    pub protocol: Option<String>,
}

/// A named type's identity: its protocol and its name.
pub type DefKey = (String, String);

/// The key of the type `name` declared in `m`.
pub fn def_key(m: &Model, name: &str) -> DefKey {
    (m.name.clone(), name.to_string())
}

impl Model {
    /// The enum an `#[error]` struct's `code` field names (through aliases), with its reference.
    pub fn error_code_of<'a>(&'a self, s: &'a Struct) -> Option<(&'a TypeRef, &'a Enum)> {
        let code = s.fields.iter().find(|f| f.name == "code" && !f.optional)?;
        let TyKind::Ref(r) = &self.unalias(&code.ty).kind else {
            return None;
        };
        match &self.resolve(r)?.kind {
            TypeDefKind::Enum(e) => Some((r, e)),
            _ => None,
        }
    }

    /// The named type declared in this model (not in a base).
    pub fn own_type(&self, name: &str) -> Option<&TypeDef> {
        self.types.iter().find(|t| t.name == name)
    }

    /// The base protocol called `name`, searched depth-first through the bases.
    pub fn base(&self, name: &str) -> Option<&Model> {
        for b in &self.bases {
            if b.name == name {
                return Some(b);
            }
            if let Some(m) = b.base(name) {
                return Some(m);
            }
        }
        None
    }

    /// The definition a reference points at, in this model or a base.
    pub fn resolve(&self, r: &TypeRef) -> Option<&TypeDef> {
        self.locate(r).map(|(_, d)| d)
    }

    /// The definition a reference written in this model points at, with the model that
    /// declares it ([`Model::declaring`]).
    pub fn locate(&self, r: &TypeRef) -> Option<(&Model, &TypeDef)> {
        let m = match r.protocol.as_deref() {
            Some(p) if p != self.name => self.base(p)?,
            _ => self,
        };
        m.own_type(&r.name).map(|d| (m, d))
    }

    /// Follow aliases until a non-alias type expression is reached.
    pub fn unalias<'a>(&'a self, ty: &'a Ty) -> &'a Ty {
        self.unalias_in(ty).1
    }

    /// Follow aliases from `ty` (written in this model) to a non-alias type expression, with
    /// the model it is written in (an alias of a base is followed in that base).
    pub fn unalias_in<'a>(&'a self, ty: &'a Ty) -> (&'a Model, &'a Ty) {
        let (mut m, mut ty) = (self, ty);
        for _ in 0..64 {
            let TyKind::Ref(r) = &ty.kind else { break };
            match m.locate(r) {
                Some((
                    dm,
                    TypeDef {
                        kind: TypeDefKind::Alias(inner),
                        ..
                    },
                )) => {
                    m = dm;
                    ty = inner;
                }
                _ => break,
            }
        }
        (m, ty)
    }

    /// The request called `name` in this model only.
    pub fn request(&self, name: &str) -> Option<&Request> {
        self.requests.iter().find(|r| r.name == name)
    }

    /// The event called `name` in this model only.
    pub fn event(&self, name: &str) -> Option<&Event> {
        self.events.iter().find(|e| e.name == name)
    }

    /// The requests of every base (in base order) then this model's: the composed table.
    pub fn all_requests(&self) -> Vec<(&Model, &Request)> {
        let mut out = Vec::new();
        for b in &self.bases {
            out.extend(b.all_requests());
        }
        out.extend(self.requests.iter().map(|r| (self, r)));
        out
    }

    /// The required literal fields of `s`, a struct this model declares (a literal through an
    /// alias too; not `null`, which picks no variant), with their values: what an object must hold to be `s` at all. The Rust
    /// emitter's `Object::LITERALS` and the TypeScript picks read the same keys.
    pub fn required_literals<'a>(&'a self, s: &'a Struct) -> Vec<(&'a str, &'a Literal)> {
        s.fields
            .iter()
            .filter(|f| !f.optional)
            .filter_map(|f| match &self.unalias(&f.ty).kind {
                TyKind::Literal(Literal::Null) => None,
                TyKind::Literal(l) => Some((f.name.as_str(), l)),
                _ => None,
            })
            .collect()
    }

    /// The model that declares the type `r` names: this one or a base.
    pub fn declaring(&self, r: &TypeRef) -> &Model {
        match r.protocol.as_deref() {
            Some(p) if p != self.name => self.base(p).unwrap_or(self),
            _ => self,
        }
    }

    /// This model's named types (not aliases) that none of its own request or event entries
    /// reaches, in declaration order: the frames, and the contracts kept outside the tables on
    /// purpose (`TaskChangedEvent`). The corpus checks them as bare values (`"as": "type"`),
    /// and the Rust emitter gives them `check_type`. None for a protocol without tables
    /// (Agent Connect: its frames are its corpus).
    pub fn outside_tables(&self) -> Vec<&TypeDef> {
        if self.requests.is_empty() && self.events.is_empty() {
            return Vec::new();
        }
        let mut reached = std::collections::BTreeSet::new();
        let mut todo: Vec<&Ty> = Vec::new();
        for r in &self.requests {
            todo.extend([&r.payload, &r.result]);
            todo.extend(r.metadata().map(|(_, t)| t));
        }
        todo.extend(self.events.iter().map(|e| &e.payload));
        while let Some(ty) = todo.pop() {
            match &ty.kind {
                TyKind::Array(inner, _) | TyKind::Map(inner) | TyKind::Nullable(inner) => {
                    todo.push(inner)
                }
                TyKind::Ref(r) if r.protocol.as_deref().is_none_or(|p| p == self.name) => {
                    let Some(def) = self.own_type(&r.name) else {
                        continue;
                    };
                    if !reached.insert(def.name.as_str()) {
                        continue;
                    }
                    match &def.kind {
                        TypeDefKind::Struct(s) => todo.extend(s.fields.iter().map(|f| &f.ty)),
                        TypeDefKind::Union(u) => todo.extend(u.variants.iter().map(|v| &v.ty)),
                        TypeDefKind::Alias(inner) => todo.push(inner),
                        TypeDefKind::Enum(_) => {}
                    }
                }
                _ => {}
            }
        }
        self.types
            .iter()
            .filter(|d| !matches!(d.kind, TypeDefKind::Alias(_)))
            .filter(|d| !reached.contains(d.name.as_str()))
            .collect()
    }

    /// Whether the tables have two sides: some request is sent by the host, or some event by
    /// the client (JSON-RPC's MCP and ACP). Such a protocol gets a handler trait for the
    /// client's side beside the host's.
    pub fn two_sided(&self) -> bool {
        self.all_requests()
            .iter()
            .any(|(_, r)| r.sender().from_server())
            || self
                .all_events()
                .iter()
                .any(|(_, e)| e.sender().from_client())
    }

    /// The protocol's `#[error]` struct whose codes are integers (JSON-RPC's), with the model
    /// that declares it: its own, else the nearest base's. What a generated host answers a
    /// failure with; `None` answers with the agent's `WireError`, whose string codes a
    /// generated dispatcher knows (an `#[error]` of string codes is the agent's convention).
    pub fn error_type(&self) -> Option<(&Model, &TypeDef)> {
        let own = self.types.iter().find(|t| {
            t.meta.error
                && matches!(&t.kind, TypeDefKind::Struct(s)
                    if self.error_code_of(s).is_some_and(|(_, e)| e.is_int()))
        });
        match own {
            Some(t) => Some((self, t)),
            None => self.bases.iter().find_map(|b| b.error_type()),
        }
    }

    /// The events of every base (in base order) then this model's: the composed table.
    pub fn all_events(&self) -> Vec<(&Model, &Event)> {
        let mut out = Vec::new();
        for b in &self.bases {
            out.extend(b.all_events());
        }
        out.extend(self.events.iter().map(|e| (self, e)));
        out
    }
}
