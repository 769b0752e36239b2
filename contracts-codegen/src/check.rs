//! check: the rules a model must pass, one commented function per rule.
//!
//! Every rule runs, whatever the others found, and writes into one [`Diagnostics`]: a schema
//! with five mistakes reports five. [`check_syntax`] holds the few rules only the text can tell
//! (attributes, constraint arguments, negative lengths); [`check`] holds the rest, over the
//! model. Emitters never fail: whatever they cannot represent is refused here.

use crate::diag::Diagnostics;
use crate::lower::{PRIMITIVES, direction, split_table_key, table_kind};
use crate::model::MAX_SAFE;
use crate::model::*;
use crate::names;
use crate::syntax::{self, Arg, Args, Attrs, FieldDecl, Item, LiteralExpr, TypeExpr, TypeExprKind};
use std::collections::{HashMap, HashSet};

/// Type names that clash with the Rust prelude, TypeScript globals or what the generated code
/// itself declares.
pub const RESERVED: &[&str] = &[
    // Rust prelude and common std names.
    "Option",
    "Result",
    "String",
    "Vec",
    "Box",
    "Some",
    "None",
    "Ok",
    "Err",
    "Self",
    "Copy",
    "Clone",
    "Send",
    "Sync",
    "Sized",
    "Unpin",
    "Drop",
    "Fn",
    "FnMut",
    "FnOnce",
    "Default",
    "Eq",
    "PartialEq",
    "Ord",
    "PartialOrd",
    "Iterator",
    "IntoIterator",
    "Extend",
    "From",
    "Into",
    "TryFrom",
    "TryInto",
    "ToOwned",
    "ToString",
    "AsRef",
    "AsMut",
    "HashMap",
    "BTreeMap",
    "Value",
    // Items every protocol with tables generates beside its types.
    "Host",
    "Dispatcher",
    "RequestPayload",
    "RequestResult",
    "EventPayload",
    "RequestPayloadRef",
    "EventPayloadRef",
    // TypeScript and JavaScript globals.
    "Object",
    "Array",
    "Promise",
    "Record",
    "Map",
    "Set",
    "Error",
    "Date",
    "Number",
    "Boolean",
    "Symbol",
    "Function",
    "BigInt",
    "RegExp",
    "JSON",
    "Math",
    "Partial",
    "Required",
    "Readonly",
    "Pick",
    "Omit",
    "Exclude",
    "Extract",
    "NonNullable",
    "ReturnType",
    "Parameters",
    "Awaited",
    "WeakMap",
    "WeakSet",
    "Uint8Array",
    "Infinity",
    "NaN",
    "Proxy",
    "Reflect",
    "Intl",
    "Iterable",
];

/// Words people write for a primitive, and the primitive they mean.
const PRIMITIVE_HINTS: &[(&str, &str)] = &[
    ("bool", "boolean"),
    ("str", "string"),
    ("integer", "int"),
    ("i32", "int"),
    ("i64", "int"),
    ("u32", "int"),
    ("u64", "int"),
    ("usize", "int"),
    ("f32", "number"),
    ("f64", "number"),
    ("float", "number"),
    ("double", "number"),
    ("any", "unknown"),
    ("json", "unknown"),
    ("object", "map<unknown>"),
];

// =============================================================================================
// Rules over the syntax tree

/// Run every rule that needs the text rather than the model.
pub fn check_syntax(files: &[syntax::File], diags: &mut Diagnostics) {
    for file in files {
        for item in &file.items {
            each_attrs(item, &mut |attrs, place| {
                attributes_are_known_and_placed(attrs, place, diags)
            });
            each_type_expr(item, &mut |t| {
                constraints_fit_their_type(t, diags);
                lengths_are_not_negative(t, diags);
                bounds_are_safe_integers(t, diags);
                if let TypeExprKind::Object(fields) = &t.kind {
                    an_object_has_one_rest(fields, diags);
                    includes_come_first(fields, diags);
                }
            });
            if let Item::Struct(s) = item {
                an_object_has_one_rest(&s.fields, diags);
                includes_come_first(&s.fields, diags);
            }
            if let Item::Enum(e) = item {
                enum_values_are_of_one_kind(e, diags);
            }
        }
    }
}

/// Rule: an object's includes (`...Base`) come before its own fields and its rest, so its
/// fields are the included ones, in order, then its own (as Zod's `.extend` orders them), and
/// they carry no attribute (the included struct's fields carry their own).
fn includes_come_first(fields: &[FieldDecl], diags: &mut Diagnostics) {
    let mut own: Option<&FieldDecl> = None;
    for f in fields {
        if !f.include {
            own = own.or(Some(f));
            continue;
        }
        if let Some(first) = own {
            diags
                .error(
                    &f.name.loc,
                    "an include (`...Base`) comes before the object's own fields",
                )
                .note(&first.name.loc, "the first field of its own");
        }
        for a in &f.attrs.attrs {
            diags.error(
                &a.loc,
                format!(
                    "`#[{}]` cannot be written on an include (`...Base`)",
                    a.name.text
                ),
            );
        }
    }
}

/// Rule: an object has at most one rest (`..: T`), and the rest carries no attribute but
/// `#[deprecated]` (it is no field: no `#[table]`, no `#[direction]`).
fn an_object_has_one_rest(fields: &[FieldDecl], diags: &mut Diagnostics) {
    let mut rests = fields.iter().filter(|f| f.rest);
    let first = rests.next();
    for again in rests {
        let first = first.expect("a second rest has a first");
        diags
            .error(
                &again.name.loc,
                "an object has one rest (`..: T`); this is a second",
            )
            .note(&first.name.loc, "the first");
    }
    for f in fields.iter().filter(|f| f.rest) {
        for a in f.attrs.attrs.iter().filter(|a| a.name.text != "deprecated") {
            diags.error(
                &a.loc,
                format!(
                    "`#[{}]` cannot be written on the rest (`..: T`): only `#[deprecated]` can",
                    a.name.text
                ),
            );
        }
    }
}

/// Rule: an enum's values are all strings (`"idle"`) or all named integers (`Error = 1`);
/// an integer lies in the safe integer range and its name is UpperCamelCase (it is the Rust
/// variant and the TypeScript key as written).
fn enum_values_are_of_one_kind(e: &syntax::EnumDecl, diags: &mut Diagnostics) {
    let Some(first) = e.values.first() else {
        return;
    };
    let shown = |v: &syntax::EnumValueDecl| match &v.int {
        None => format!("\"{}\"", v.value.text),
        Some(n) => format!("{} = {}", v.value.text, n.value),
    };
    for v in &e.values {
        if v.int.is_some() != first.int.is_some() {
            let (this, those) = if v.int.is_some() {
                ("a named integer", "strings")
            } else {
                ("a string", "named integers")
            };
            diags
                .error(
                    &v.value.loc,
                    format!(
                        "`{}` is {this}, but the values of `{}` are {those}: an enum's values are all strings or all integers",
                        shown(v),
                        e.name.text
                    ),
                )
                .note(&first.value.loc, format!("its first value, `{}`", shown(first)));
            continue;
        }
        let Some(n) = &v.int else { continue };
        if !(-i128::from(MAX_SAFE)..=i128::from(MAX_SAFE)).contains(&n.value) {
            diags.error(
                &n.loc,
                format!(
                    "{} is outside the safe integer range -(2^53-1) ..= 2^53-1",
                    n.value
                ),
            );
        }
        let name = v.value.text.as_str();
        let camel = name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric());
        if !camel {
            diags.error(
                &v.value.loc,
                format!(
                    "`{name}` is not a name for an integer value: write it in UpperCamelCase ASCII (`Error`, `ParseError`); it is the Rust variant and the TypeScript key"
                ),
            );
        } else if name == "Self" {
            diags.error(
                &v.value.loc,
                "`Self` is a Rust keyword and cannot name a variant: choose another name",
            );
        }
    }
}

/// Where attributes are written, for [`attributes_are_known_and_placed`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Alias,
    Struct,
    Enum,
    Union,
    Field,
    EnumValue,
    Variant,
    Request,
    Event,
    Const,
}

/// Rule: attributes are among `deprecated`, `legacy`, `open`, `extends`, `error`, `stored`,
/// `direction`, `accepts` and `table`, each written once, with a value when it needs one, where
/// it means something (`#[legacy]` on an enum value, `#[open]` and `#[extends]` on an enum,
/// `#[error]` on a struct, `#[stored]` on a declaration, `#[table]` on a field). A `direction`
/// is one of the three; a `table` is written `requests[<field>]` or `events[<field>]`.
fn attributes_are_known_and_placed(attrs: &Attrs, place: Place, diags: &mut Diagnostics) {
    let mut seen: HashMap<&str, &Loc> = HashMap::new();
    for a in &attrs.attrs {
        let name = a.name.text.as_str();
        if let Some(first) = seen.insert(name, &a.loc) {
            diags
                .error(&a.loc, format!("`#[{name}]` is written twice"))
                .note(first, "first written here");
            continue;
        }
        let (needs_value, takes_value, allowed) = match name {
            "deprecated" => (false, true, true),
            "legacy" => (false, false, place == Place::EnumValue),
            "open" => (false, false, place == Place::Enum),
            "extends" => (true, true, place == Place::Enum),
            "error" => (false, false, place == Place::Struct),
            "stored" => (
                false,
                false,
                matches!(
                    place,
                    Place::Alias | Place::Struct | Place::Enum | Place::Union
                ),
            ),
            "table" => (true, true, place == Place::Field),
            "partial" | "error_data" => (true, true, place == Place::Request),
            "direction" | "accepts" => (
                true,
                true,
                !matches!(place, Place::Field | Place::EnumValue),
            ),
            _ => {
                diags.error(
                    &a.name.loc,
                    format!("unknown attribute `{name}`: expected `deprecated`, `legacy`, `open`, `extends`, `error`, `stored`, `direction`, `accepts`, `table`, `partial` or `error_data`"),
                );
                continue;
            }
        };
        if !allowed {
            let where_ = match name {
                "legacy" => "only on an enum value",
                "open" | "extends" => "only on an enum",
                "error" => "only on a struct",
                "stored" => "only on a declaration (a type, a struct, an enum or a union)",
                "table" => "only on a field",
                "partial" | "error_data" => "only on a request",
                _ => "on declarations, variants, requests and events, not on fields or enum values",
            };
            diags.error(&a.name.loc, format!("`#[{name}]` is allowed {where_}"));
        }
        match (&a.value, needs_value, takes_value) {
            (None, true, _) => {
                let example = match name {
                    "direction" => "\"client-to-server\"",
                    "table" => "\"requests[type]\"",
                    "extends" => "\"agent::ErrorCode\"",
                    "partial" | "error_data" => "\"TypeName\"",
                    _ => "\"events\"",
                };
                diags.error(
                    &a.name.loc,
                    format!("`#[{name}]` needs a value: `#[{name} = {example}]`"),
                );
            }
            (Some(v), _, false) => {
                diags.error(&v.loc, format!("`#[{name}]` takes no value"));
            }
            (Some(v), _, true) if name == "direction" && direction(&v.text).is_none() => {
                diags.error(
                    &v.loc,
                    format!("unknown direction \"{}\": expected \"client-to-server\", \"server-to-client\" or \"both\"", v.text),
                );
            }
            (Some(v), _, true) if name == "table" => match split_table_key(&v.text) {
                None => {
                    diags.error(
                        &v.loc,
                        format!("`#[table]` is written `\"requests[<field>]\"` or `\"events[<field>]\"`, not \"{}\"", v.text),
                    );
                }
                Some((table, _)) if table_kind(table).is_none() => {
                    diags.error(
                        &v.loc,
                        format!("unknown table \"{table}\": expected \"requests\" or \"events\""),
                    );
                }
                Some(_) => {}
            },
            _ => {}
        }
    }
}

/// Rule: constraints are written on `string`, `int`, `number` and arrays only, as `min = N`,
/// `max = N` (or a range for `int` and `number`), each bound once.
fn constraints_fit_their_type(t: &TypeExpr, diags: &mut Diagnostics) {
    let (args, what) = match &t.kind {
        TypeExprKind::Named {
            protocol: None,
            name,
            args: Some(args),
        } => (args, name.text.as_str()),
        TypeExprKind::Named {
            protocol: Some(_),
            args: Some(args),
            ..
        } => (args, ""),
        TypeExprKind::Array(_, Some(args)) => (args, "array"),
        _ => return,
    };
    let ranges = matches!(what, "int" | "int64" | "uint64" | "number");
    if !matches!(
        what,
        "string" | "int" | "int64" | "uint64" | "number" | "array"
    ) {
        diags.error(&args.loc, "constraints are written on `string`, `int`, `int64`, `uint64`, `number` and arrays only; declare them in the alias itself");
        return;
    }
    let mut min_seen = false;
    let mut max_seen = false;
    let mut format_seen = false;
    for a in &args.items {
        let (min, max, loc) = match a {
            Arg::Text { key, value } if key.text == "format" && what == "string" => {
                if format_seen {
                    diags.error(&key.loc, "the format is already given");
                }
                format_seen = true;
                if Format::from_name(&value.text).is_none() {
                    let known: Vec<String> = Format::ALL
                        .iter()
                        .map(|f| format!("\"{}\"", f.name()))
                        .collect();
                    diags.error(
                        &value.loc,
                        format!(
                            "unknown format \"{}\": expected one of {}",
                            value.text,
                            known.join(", ")
                        ),
                    );
                }
                continue;
            }
            Arg::Text { key, .. } if key.text == "format" => {
                diags.error(
                    &key.loc,
                    format!("a format is written on `string` only, not on `{what}`"),
                );
                continue;
            }
            Arg::Named { key, .. } if key.text == "format" => {
                diags.error(
                    &key.loc,
                    "a format is a string: write `format = \"uri\"` or `format = \"byte\"`",
                );
                continue;
            }
            Arg::Text { key, .. } if matches!(key.text.as_str(), "min" | "max") => {
                diags.error(
                    &key.loc,
                    format!("`{}` is a whole number: write `{} = 1`", key.text, key.text),
                );
                continue;
            }
            Arg::Text { key, .. } => {
                diags.error(
                    &key.loc,
                    format!(
                        "unknown constraint `{}`: expected `min`, `max` or, on `string`, `format`",
                        key.text
                    ),
                );
                continue;
            }
            Arg::Named { key, .. } if key.text == "min" => (true, false, &key.loc),
            Arg::Named { key, .. } if key.text == "max" => (false, true, &key.loc),
            Arg::Named { key, .. } => {
                diags.error(
                    &key.loc,
                    format!("unknown constraint `{}`: expected `min` or `max`", key.text),
                );
                continue;
            }
            Arg::Range { min, max, loc } => {
                if !ranges {
                    // The fix-it spells this range's own bounds as named ones.
                    let bounds: Vec<String> = [("min", min), ("max", max)]
                        .into_iter()
                        .filter_map(|(k, n)| n.as_ref().map(|n| format!("{k} = {}", n.value)))
                        .collect();
                    diags.error(
                        loc,
                        format!(
                            "a range is written on `int` and `number`; write `{what}({})`",
                            bounds.join(", ")
                        ),
                    );
                    continue;
                }
                (min.is_some(), max.is_some(), loc)
            }
        };
        if (min && min_seen) || (max && max_seen) {
            diags.error(loc, "this bound is already given");
        }
        min_seen |= min;
        max_seen |= max;
    }
}

/// Rule: string and array lengths are not negative.
fn lengths_are_not_negative(t: &TypeExpr, diags: &mut Diagnostics) {
    let args = match &t.kind {
        TypeExprKind::Named {
            protocol: None,
            name,
            args: Some(args),
        } if name.text == "string" => args,
        TypeExprKind::Array(_, Some(args)) => args,
        _ => return,
    };
    for n in numbers(args) {
        if n.value < 0 {
            diags.error(
                &n.loc,
                format!("a length cannot be negative (found {})", n.value),
            );
        }
    }
}

/// Rule: integer bounds, lengths and integer literals lie in JSON's safe integer range,
/// `-(2^53-1) ..= 2^53-1`.
fn bounds_are_safe_integers(t: &TypeExpr, diags: &mut Diagnostics) {
    let mut bad = |value: i128, loc: &Loc| {
        if !(-i128::from(MAX_SAFE)..=i128::from(MAX_SAFE)).contains(&value) {
            diags.error(
                loc,
                format!("{value} is outside the safe integer range -(2^53-1) ..= 2^53-1"),
            );
        }
    };
    match &t.kind {
        TypeExprKind::Literal(LiteralExpr::Int(i)) => bad(*i, &t.loc),
        TypeExprKind::Named {
            args: Some(args), ..
        }
        | TypeExprKind::Array(_, Some(args)) => {
            for n in numbers(args) {
                bad(n.value, &n.loc);
            }
        }
        _ => {}
    }
}

fn numbers(args: &Args) -> Vec<&syntax::Number> {
    let mut out = Vec::new();
    for a in &args.items {
        match a {
            Arg::Named { value, .. } => out.push(value),
            Arg::Range { min, max, .. } => out.extend(min.iter().chain(max.iter())),
            Arg::Text { .. } => {}
        }
    }
    out
}

/// Call `f` with every attribute list of an item and where it is written.
fn each_attrs(item: &Item, f: &mut impl FnMut(&Attrs, Place)) {
    fn fields(fs: &[FieldDecl], f: &mut impl FnMut(&Attrs, Place)) {
        for fd in fs {
            f(&fd.attrs, Place::Field);
            ty_fields(&fd.ty, f);
        }
    }
    fn ty_fields(t: &TypeExpr, f: &mut impl FnMut(&Attrs, Place)) {
        match &t.kind {
            TypeExprKind::Object(fs) => fields(fs, f),
            TypeExprKind::Array(i, _) | TypeExprKind::Map(i) | TypeExprKind::Nullable(i) => {
                ty_fields(i, f)
            }
            _ => {}
        }
    }
    match item {
        Item::Use(_) => {}
        Item::Const(k) => f(&k.attrs, Place::Const),
        Item::Alias(a) => {
            f(&a.attrs, Place::Alias);
            ty_fields(&a.ty, f);
        }
        Item::Struct(s) => {
            f(&s.attrs, Place::Struct);
            fields(&s.fields, f);
        }
        Item::Enum(e) => {
            f(&e.attrs, Place::Enum);
            for v in &e.values {
                f(&v.attrs, Place::EnumValue);
            }
        }
        Item::Union(u) => {
            f(&u.attrs, Place::Union);
            for v in &u.variants {
                f(&v.attrs, Place::Variant);
                ty_fields(&v.ty, f);
            }
        }
        Item::Requests(rs) => {
            for r in rs {
                f(&r.attrs, Place::Request);
                ty_fields(&r.payload, f);
                ty_fields(&r.result, f);
            }
        }
        Item::Events(es) => {
            for e in es {
                f(&e.attrs, Place::Event);
                ty_fields(&e.payload, f);
            }
        }
    }
}

/// Call `f` with every type expression of an item, nested ones included.
fn each_type_expr(item: &Item, f: &mut impl FnMut(&TypeExpr)) {
    fn walk(t: &TypeExpr, f: &mut impl FnMut(&TypeExpr)) {
        f(t);
        match &t.kind {
            TypeExprKind::Object(fs) => fs.iter().for_each(|fd| walk(&fd.ty, f)),
            TypeExprKind::Array(i, _) | TypeExprKind::Map(i) | TypeExprKind::Nullable(i) => {
                walk(i, f)
            }
            _ => {}
        }
    }
    match item {
        Item::Use(_) | Item::Enum(_) | Item::Const(_) => {}
        Item::Alias(a) => walk(&a.ty, f),
        Item::Struct(s) => s.fields.iter().for_each(|fd| walk(&fd.ty, f)),
        Item::Union(u) => u.variants.iter().for_each(|v| walk(&v.ty, f)),
        Item::Requests(rs) => rs.iter().for_each(|r| {
            walk(&r.payload, f);
            walk(&r.result, f);
        }),
        Item::Events(es) => es.iter().for_each(|e| walk(&e.payload, f)),
    }
}

// =============================================================================================
// Rules over the model

/// What the model does not keep of the text: what the syntax errors left out, so references to
/// it are not reported as unknown, and where the attributes the rules over the model judge are
/// written.
#[derive(Clone, Debug, Default)]
pub struct Missing {
    /// Some text could not be read at all: no reference is reported as unknown.
    pub anything: bool,
    /// Declarations that did not parse.
    pub names: HashSet<String>,
    /// Where each `#[table]` is written (its name, its value), by the place of its field's name.
    pub table_attrs: HashMap<Loc, (Loc, Loc)>,
}

impl Missing {
    /// What the parsed files say is missing.
    pub fn of(files: &[syntax::File]) -> Missing {
        Missing {
            anything: files.iter().any(|f| !f.complete),
            names: files
                .iter()
                .flat_map(|f| f.broken.iter().cloned())
                .collect(),
            table_attrs: table_attrs(files),
        }
    }
}

/// Where each `#[table = "..."]` with a value is written, by the place of its field's name.
fn table_attrs(files: &[syntax::File]) -> HashMap<Loc, (Loc, Loc)> {
    let mut out = HashMap::new();
    let mut add = |fd: &FieldDecl| {
        if let Some(a) = fd.attrs.get("table")
            && let Some(v) = &a.value
        {
            out.insert(fd.name.loc.clone(), (a.name.loc.clone(), v.loc.clone()));
        }
    };
    for item in files.iter().flat_map(|f| &f.items) {
        if let Item::Struct(s) = item {
            s.fields.iter().for_each(&mut add);
        }
        each_type_expr(item, &mut |t| {
            if let TypeExprKind::Object(fs) = &t.kind {
                fs.iter().for_each(&mut add);
            }
        });
    }
    out
}

/// Run every rule over a lowered model.
pub fn check(model: &Model, diags: &mut Diagnostics) {
    check_with(model, &Missing::default(), diags);
}

/// Run every rule; references to what `missing` says did not parse are not reported, so they
/// do not drown the syntax error that caused them.
pub fn check_with(model: &Model, missing: &Missing, diags: &mut Diagnostics) {
    if !missing.anything {
        types_are_defined(model, &missing.names, diags);
    }
    imports_resolve(model, diags);
    names_are_not_empty(model, diags);
    fields_are_unique(model, diags);
    enum_values_are_unique(model, diags);
    union_variants_are_unique(model, diags);
    requests_and_events_are_unique(model, diags);
    base_names_are_not_redefined(model, diags);
    type_names_are_unique(model, diags);
    schema_constants_do_not_collide(model, diags);
    type_names_are_upper_camel_and_not_reserved(model, diags);
    enums_and_unions_are_not_empty(model, diags);
    union_tag_is_left_to_the_union(model, diags);
    union_variants_are_objects(model, diags);
    open_objects_are_not_tagged_variants(model, diags);
    includes_are_structs(model, diags);
    constants_are_named_and_in_range(model, diags);
    the_rest_has_a_name_of_its_own(model, diags);
    limits_are_in_order(model, diags);
    defaults_are_on_optional_fields(model, diags);
    defaults_fit_their_type(model, diags);
    table_fields_name_their_entry(model, &missing.table_attrs, diags);
    aliases_do_not_recurse(model, diags);
    types_do_not_contain_themselves(model, diags);
    recursive_untagged_unions_are_told_apart(model, diags);
    untagged_variants_are_not_shadowed(model, diags);
    errors_hold_a_code_and_a_message(model, diags);
    extended_enums_are_open(model, diags);
}

/// Every top-level type expression of the model, with nested ones, in order.
fn each_ty<'a>(model: &'a Model, f: &mut impl FnMut(&'a Ty)) {
    fn walk<'a>(t: &'a Ty, f: &mut impl FnMut(&'a Ty)) {
        f(t);
        match &t.kind {
            TyKind::Array(i, _) | TyKind::Map(i) | TyKind::Nullable(i) => walk(i, f),
            _ => {}
        }
    }
    for t in &model.types {
        match &t.kind {
            TypeDefKind::Alias(ty) => walk(ty, f),
            TypeDefKind::Struct(s) => s.slots().for_each(|ty| walk(ty, f)),
            TypeDefKind::Enum(_) => {}
            TypeDefKind::Union(u) => u.variants.iter().for_each(|v| walk(&v.ty, f)),
        }
    }
    for r in &model.requests {
        walk(&r.payload, f);
        walk(&r.result, f);
        r.metadata().for_each(|(_, t)| walk(t, f));
    }
    for e in &model.events {
        walk(&e.payload, f);
    }
}

/// Rule: every type a schema names is defined here, imported, or qualified with a base
/// protocol that has it. A near miss of a name in scope gets a "did you mean".
///
/// An import that fails is reported once, at the `use` (by `imports_resolve`): a use of the
/// name it imports, or of the name its "did you mean" proposes, says nothing more, and a name
/// that failed to import is never proposed.
fn types_are_defined(model: &Model, broken: &HashSet<String>, diags: &mut Diagnostics) {
    let explicitly_imported: HashSet<(&str, &str)> = model
        .imports
        .iter()
        .flat_map(|i| {
            i.names
                .iter()
                .map(move |(n, _)| (i.protocol.as_str(), n.as_str()))
        })
        .collect();
    let failed = failed_imports(model);
    each_ty(model, &mut |t| {
        let TyKind::Ref(r) = &t.kind else { return };
        if model.resolve(r).is_some() || (r.protocol.is_none() && broken.contains(&r.name)) {
            return;
        }
        if r.protocol.is_none()
            && failed
                .iter()
                .any(|(name, meant)| *name == r.name || *meant == Some(r.name.as_str()))
        {
            return;
        }
        match &r.protocol {
            Some(p) if explicitly_imported.contains(&(p.as_str(), r.name.as_str())) => {
                // `imports_resolve` reports it at the `use`.
            }
            Some(p) if p != &model.name && model.base(p).is_none() => {
                diags.error(
                    &t.loc,
                    format!(
                        "unknown protocol `{p}` in `{p}::{}`: {}",
                        r.name,
                        bases_text(model)
                    ),
                );
            }
            Some(p) => {
                let base = model.base(p).unwrap_or(model);
                let hint = did_you_mean(&r.name, base.types.iter().map(|d| d.name.as_str()));
                diags.error(
                    &t.loc,
                    format!("unknown type `{}` in protocol `{p}`{hint}", r.name),
                );
            }
            None => {
                let mut candidates: Vec<&str> = PRIMITIVES.to_vec();
                candidates.extend(model.types.iter().map(|d| d.name.as_str()));
                for i in &model.imports {
                    candidates.extend(
                        i.names
                            .iter()
                            .map(|(n, _)| n.as_str())
                            .filter(|n| failed.iter().all(|(f, _)| f != n)),
                    );
                    if i.glob
                        && let Some(b) = model.base(&i.protocol)
                    {
                        candidates.extend(b.types.iter().map(|d| d.name.as_str()));
                    }
                }
                let hint = match PRIMITIVE_HINTS.iter().find(|(w, _)| *w == r.name) {
                    Some((_, p)) => format!(", did you mean `{p}`?"),
                    None => did_you_mean(&r.name, candidates.into_iter()),
                };
                let mut extra = String::new();
                if hint.is_empty() {
                    let holders: Vec<&str> = model
                        .bases
                        .iter()
                        .flat_map(|b| std::iter::once(b.as_ref()))
                        .filter(|b| b.own_type(&r.name).is_some())
                        .map(|b| b.name.as_str())
                        .collect();
                    if let Some(p) = holders.first() {
                        extra = format!(
                            ": the base protocol `{p}` has it; add `use {p}::{{{}}};`",
                            r.name
                        );
                    }
                }
                diags.error(&t.loc, format!("unknown type `{}`{hint}{extra}", r.name));
            }
        }
    });
}

fn bases_text(model: &Model) -> String {
    if model.bases.is_empty() {
        "this schema builds on no other protocol".to_owned()
    } else {
        let names: Vec<String> = model
            .bases
            .iter()
            .map(|b| format!("`{}`", b.name))
            .collect();
        format!("this schema builds on {}", names.join(", "))
    }
}

/// `, did you mean `x`?` when a candidate is close to `name`, else nothing.
fn did_you_mean<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    match nearest(name, candidates) {
        Some(c) => format!(", did you mean `{c}`?"),
        None => String::new(),
    }
}

/// The candidate closest to `name`, when one is close enough to be a likely misspelling.
fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .filter(|c| *c != name)
        .map(|c| (distance(&name.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, c.to_string()))
        .map(|(_, c)| c)
}

/// Every name a `use` imports that does not exist (its protocol unknown, or without that
/// type), with the type `imports_resolve` proposes instead, if any.
fn failed_imports(model: &Model) -> Vec<(&str, Option<&str>)> {
    let mut out = Vec::new();
    for i in &model.imports {
        let base = model.base(&i.protocol);
        for (name, _) in &i.names {
            match base {
                None => out.push((name.as_str(), None)),
                Some(b) if b.own_type(name).is_none() => {
                    out.push((
                        name.as_str(),
                        nearest(name, b.types.iter().map(|d| d.name.as_str())),
                    ));
                }
                Some(_) => {}
            }
        }
    }
    out
}

/// Levenshtein distance, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

/// Rule: a `use` names a base protocol the loader was given, and every name it imports is a
/// type of that protocol.
fn imports_resolve(model: &Model, diags: &mut Diagnostics) {
    for i in &model.imports {
        let Some(base) = model.base(&i.protocol) else {
            diags.error(
                &i.loc,
                format!("unknown protocol `{}`: {}", i.protocol, bases_text(model)),
            );
            continue;
        };
        for (name, loc) in &i.names {
            if base.own_type(name).is_none() {
                let hint = did_you_mean(name, base.types.iter().map(|d| d.name.as_str()));
                diags.error(
                    loc,
                    format!("the protocol `{}` has no type `{name}`{hint}", i.protocol),
                );
            }
        }
    }
}

/// Rule: no two types share a name, declared or hoisted from an inline object. Two inline
/// objects named alike usually come from a duplicate request, event, field or tag, reported by
/// its own rule (which runs first); they are reported here only when nothing else was.
fn type_names_are_unique(model: &Model, diags: &mut Diagnostics) {
    let quiet = diags.has_errors();
    let mut first: HashMap<&str, &TypeDef> = HashMap::new();
    for t in &model.types {
        let Some(prev) = first.get(t.name.as_str()) else {
            first.insert(&t.name, t);
            continue;
        };
        if prev.synthetic && t.synthetic && quiet {
            continue;
        }
        let message = match (prev.synthetic, t.synthetic) {
            (_, true) => format!(
                "this inline object is named `{}` from its place, but that name is already taken",
                t.name
            ),
            (true, false) => format!("`{}` is already the name of an inline object", t.name),
            (false, false) => format!("the type `{}` is defined twice", t.name),
        };
        let note = if prev.synthetic {
            "the inline object named from its place"
        } else {
            "first defined here"
        };
        diags.error(&t.loc, message).note(&prev.loc, note);
    }
}

/// Rule: no type is named as another type's Zod schema constant (`ToolSchema` beside `Tool`):
/// the TypeScript package would export the name twice. The other type may be a base's, whose
/// names an app's package re-exports.
fn schema_constants_do_not_collide(model: &Model, diags: &mut Diagnostics) {
    let mut named: HashMap<String, &Loc> = HashMap::new();
    let mut visible: Vec<&Model> = vec![model];
    visible.extend(model.bases.iter().map(|b| &**b));
    for m in visible.iter().rev() {
        for t in &m.types {
            named.insert(names::ts_schema(&t.name), &t.loc);
        }
    }
    for t in &model.types {
        if let Some(other) = named.get(&t.name) {
            let base = t.name.strip_suffix("Schema").unwrap_or(&t.name);
            let message = if t.synthetic {
                format!(
                    "this inline object is named `{}` from its place, the name of the \
                     TypeScript schema of `{base}`, so the package would export it twice; \
                     declare it as a named type",
                    t.name
                )
            } else {
                format!(
                    "`{}` is the name of the TypeScript schema of `{base}`, so the package \
                     would export it twice; rename one of them",
                    t.name
                )
            };
            diags
                .error(&t.loc, message)
                .note(other, format!("`{base}` is declared here"));
        }
    }
}

/// Rule: a schema does not redefine what a base protocol already has: a type name, a request
/// or an event (names that collapse to the same Rust name count too).
fn base_names_are_not_redefined(model: &Model, diags: &mut Diagnostics) {
    let mut bases: Vec<&Model> = Vec::new();
    fn collect<'a>(m: &'a Model, out: &mut Vec<&'a Model>) {
        for b in &m.bases {
            if !out.iter().any(|x| x.name == b.name) {
                out.push(b);
                collect(b, out);
            }
        }
    }
    collect(model, &mut bases);
    let before = diags.items.len();
    for r in &model.requests {
        for b in &bases {
            if let Some(other) = b
                .requests
                .iter()
                .find(|o| names::rust_type(&o.name) == names::rust_type(&r.name))
            {
                let message = if other.name == r.name {
                    format!(
                        "the request \"{}\" is already defined by the base protocol `{}`",
                        r.name, b.name
                    )
                } else {
                    format!(
                        "the request \"{}\" and the base protocol `{}`'s \"{}\" both become `{}` in Rust",
                        r.name,
                        b.name,
                        other.name,
                        names::rust_type(&r.name)
                    )
                };
                diags
                    .error(&r.loc, message)
                    .note(&other.loc, format!("defined in `{}` here", b.name));
            }
        }
    }
    for e in &model.events {
        for b in &bases {
            if let Some(other) = b
                .events
                .iter()
                .find(|o| names::rust_type(&o.name) == names::rust_type(&e.name))
            {
                let message = if other.name == e.name {
                    format!(
                        "the event \"{}\" is already defined by the base protocol `{}`",
                        e.name, b.name
                    )
                } else {
                    format!(
                        "the event \"{}\" and the base protocol `{}`'s \"{}\" both become `{}` in Rust",
                        e.name,
                        b.name,
                        other.name,
                        names::rust_type(&e.name)
                    )
                };
                diags
                    .error(&e.loc, message)
                    .note(&other.loc, format!("defined in `{}` here", b.name));
            }
        }
    }
    // Two inline objects named alike usually come from a redefined request or event, reported
    // above; they are reported only when nothing else was.
    let quiet = diags.items.len() > before;
    for t in &model.types {
        for b in &bases {
            let Some(d) = b.own_type(&t.name) else {
                continue;
            };
            if t.synthetic && d.synthetic && quiet {
                continue;
            }
            let what = if t.synthetic {
                "this inline object is named"
            } else {
                "the type"
            };
            diags
                .error(
                    &t.loc,
                    format!(
                        "{what} `{}` redefines a type of the base protocol `{}`",
                        t.name, b.name
                    ),
                )
                .note(&d.loc, format!("defined in `{}` here", b.name));
        }
    }
    // A declared type that an import also brings in.
    for i in &model.imports {
        for (name, loc) in &i.names {
            if let Some(t) = model.own_type(name) {
                diags
                    .error(
                        &t.loc,
                        format!("the type `{name}` is also imported from `{}`", i.protocol),
                    )
                    .note(loc, "imported here");
            }
        }
    }
}

/// Rule: a declared type's name is an UpperCamel identifier (ASCII letters and digits, first
/// an uppercase letter) and not reserved by Rust, TypeScript or the generated code.
fn type_names_are_upper_camel_and_not_reserved(model: &Model, diags: &mut Diagnostics) {
    for t in model.types.iter().filter(|t| !t.synthetic) {
        let n = &t.name;
        if RESERVED.contains(&n.as_str()) || names::is_rust_keyword(n) {
            diags.error(
                &t.loc,
                format!(
                    "`{n}` is a reserved name (Rust or TypeScript already uses it); pick another"
                ),
            );
        } else if PRIMITIVES.contains(&n.as_str()) {
            diags.error(
                &t.loc,
                format!("`{n}` is a primitive type and cannot be redefined"),
            );
        } else if !n.starts_with(|c: char| c.is_ascii_uppercase())
            || !n.chars().all(|c| c.is_ascii_alphanumeric())
        {
            diags.error(
                &t.loc,
                format!("a type name is UpperCamelCase (ASCII letters and digits, first an uppercase letter): write `{}`", names::rust_type(n)),
            );
        }
    }
}

/// Rule: field names, union tag keys, request and event names are not empty.
fn names_are_not_empty(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        match &t.kind {
            TypeDefKind::Struct(s) => {
                for f in s.fields.iter().filter(|f| f.name.is_empty()) {
                    diags.error(&f.loc, "a field name cannot be empty");
                }
            }
            TypeDefKind::Union(Union {
                tag: UnionTag::Tagged { field, loc },
                ..
            }) if field.is_empty() => {
                diags.error(loc, "a union's tag key cannot be empty");
            }
            _ => {}
        }
    }
    for r in model.requests.iter().filter(|r| r.name.is_empty()) {
        diags.error(&r.loc, "a request name cannot be empty");
    }
    for e in model.events.iter().filter(|e| e.name.is_empty()) {
        diags.error(&e.loc, "an event name cannot be empty");
    }
}

/// Report duplicates among `items` (wire name, place): the same wire name twice, or two
/// wire names that `rust` maps to one Rust name.
fn unique<'a>(
    items: impl Iterator<Item = (&'a str, &'a Loc)>,
    what: &str,
    rust: fn(&str) -> String,
    diags: &mut Diagnostics,
) {
    let mut wire: HashMap<&str, &Loc> = HashMap::new();
    let mut rusty: HashMap<String, (&str, &Loc)> = HashMap::new();
    for (name, loc) in items {
        if let Some(first) = wire.get(name) {
            diags
                .error(loc, format!("duplicate {what} \"{name}\""))
                .note(first, "first defined here");
            continue;
        }
        wire.insert(name, loc);
        let r = rust(name);
        if let Some((other, first)) = rusty.get(&r) {
            diags
                .error(
                    loc,
                    format!("the {what}s \"{other}\" and \"{name}\" both become `{r}` in Rust"),
                )
                .note(first, format!("\"{other}\" is defined here"));
            continue;
        }
        rusty.insert(r, (name, loc));
    }
}

/// Rule: no two fields of a struct share a key, or a Rust field name (`chatId`, `chat_id`).
fn fields_are_unique(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        if let TypeDefKind::Struct(s) = &t.kind {
            unique(
                s.fields.iter().map(|f| (f.name.as_str(), &f.loc)),
                "field",
                names::rust_field,
                diags,
            );
        }
    }
}

/// Rule: no two values of an enum are equal or become one Rust variant (`"a-b"`, `"a_b"`);
/// no two values of an integer enum share a name or a number.
fn enum_values_are_unique(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Enum(e) = &t.kind else {
            continue;
        };
        if !e.is_int() {
            unique(
                e.values.iter().filter_map(|v| Some((v.as_str()?, &v.loc))),
                "enum value",
                names::rust_type,
                diags,
            );
            continue;
        }
        unique(
            e.values.iter().filter_map(|v| match &v.value {
                EnumLit::Int { name, .. } => Some((name.as_str(), &v.loc)),
                EnumLit::Str(_) => None,
            }),
            "enum value name",
            names::rust_type_name,
            diags,
        );
        let mut seen: HashMap<i64, (&str, &Loc)> = HashMap::new();
        for v in &e.values {
            let EnumLit::Int { name, value } = &v.value else {
                continue;
            };
            if let Some((first, loc)) = seen.get(value) {
                diags
                    .error(
                        &v.loc,
                        format!("duplicate enum value {value}: `{name}` and `{first}` both travel as {value}"),
                    )
                    .note(loc, format!("`{first} = {value}` is defined here"));
                continue;
            }
            seen.insert(*value, (name, &v.loc));
        }
    }
}

/// Rule: no two variants of a tagged union share a tag or a Rust variant name; no two
/// variants of an untagged union are the same type.
fn union_variants_are_unique(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Union(u) = &t.kind else {
            continue;
        };
        match &u.tag {
            UnionTag::Tagged { .. } => unique(
                u.variants
                    .iter()
                    .filter_map(|v| Some((v.tag.as_deref()?, &v.loc))),
                "union tag",
                names::rust_type,
                diags,
            ),
            UnionTag::Untagged => {
                let mut seen: HashMap<&str, &Loc> = HashMap::new();
                let mut rusty: HashMap<String, &Loc> = HashMap::new();
                for v in &u.variants {
                    if let TyKind::Ref(r) = &v.ty.kind
                        && v.name.is_none()
                        && let Some(first) = seen.insert(&r.name, &v.loc)
                    {
                        diags
                            .error(
                                &v.loc,
                                format!("`{}` is already a variant of this union", r.name),
                            )
                            .note(first, "first listed here");
                        continue;
                    }
                    if let Some(n) = &v.name
                        && (!n.starts_with(|c: char| c.is_ascii_uppercase())
                            || !n.chars().all(|c| c.is_ascii_alphanumeric()))
                    {
                        diags.error(
                            &v.loc,
                            format!("a variant's name is UpperCamelCase (ASCII letters and digits, first an uppercase letter): write `{}`", names::rust_type(n)),
                        );
                        continue;
                    }
                    let rust = names::rust_type_name(&v.name_source());
                    if let Some(first) = rusty.get(&rust) {
                        diags
                            .error(
                                &v.loc,
                                format!("two variants of `{}` are both `{rust}` in Rust; name this one: `Other{rust}(...)` (any UpperCamelCase name before the type in parentheses)", t.name),
                            )
                            .note(first, "the first");
                        continue;
                    }
                    rusty.insert(rust, &v.loc);
                }
            }
        }
    }
}

/// Rule: no two requests (or events) share a name or a Rust name (`chat.list`, `chat-list`).
fn requests_and_events_are_unique(model: &Model, diags: &mut Diagnostics) {
    unique(
        model.requests.iter().map(|r| (r.name.as_str(), &r.loc)),
        "request",
        names::rust_type,
        diags,
    );
    unique(
        model.events.iter().map(|e| (e.name.as_str(), &e.loc)),
        "event",
        names::rust_type,
        diags,
    );
    // A side's handler trait has a method per request it answers and per event it hears.
    for (side, answers, hears) in [
        (
            "the host",
            Direction::from_client as fn(Direction) -> bool,
            Direction::from_client as fn(Direction) -> bool,
        ),
        ("the client", Direction::from_server, Direction::from_server),
    ] {
        let mut seen: HashMap<String, (&str, &Loc, bool)> = HashMap::new();
        let requests = model
            .requests
            .iter()
            .filter(|r| answers(r.sender()))
            .map(|r| (r.name.as_str(), &r.loc, false));
        let events = model
            .events
            .iter()
            .filter(|e| hears(e.sender()))
            .map(|e| (e.name.as_str(), &e.loc, true));
        for (name, loc, event) in requests.chain(events) {
            let method = names::rust_field(name);
            match seen.get(&method) {
                // Two requests (or two events) that collide are `unique`'s to report.
                Some((first, first_loc, first_event)) if *first_event != event => {
                    diags
                        .error(
                            loc,
                            format!(
                                "`{name}` and `{first}` are both received by {side}, whose handler would have two methods called `{method}`; rename one"
                            ),
                        )
                        .note(first_loc, "the other is here");
                }
                Some(_) => {}
                None => {
                    seen.insert(method, (name, loc, event));
                }
            }
        }
    }
}

/// Rule: an enum has a value and a union a variant (an empty one accepts nothing).
fn enums_and_unions_are_not_empty(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        match &t.kind {
            TypeDefKind::Enum(e) if e.values.is_empty() => {
                diags.error(&t.loc, format!("the enum `{}` has no values", t.name));
            }
            TypeDefKind::Union(u) if u.variants.is_empty() => {
                diags.error(&t.loc, format!("the union `{}` has no variants", t.name));
            }
            _ => {}
        }
    }
}

/// The struct a type expression names, through aliases, if any.
fn struct_of<'a>(model: &'a Model, ty: &'a Ty) -> Option<(&'a TypeDef, &'a Struct)> {
    let TyKind::Ref(r) = &model.unalias(ty).kind else {
        return None;
    };
    let def = model.resolve(r)?;
    match &def.kind {
        TypeDefKind::Struct(s) => Some((def, s)),
        _ => None,
    }
}

/// Rule: a tagged union's variants do not declare the tag key: the union adds it, and it can
/// never be optional or nullable.
fn union_tag_is_left_to_the_union(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Union(Union {
            tag:
                UnionTag::Tagged {
                    field: key,
                    loc: tag_loc,
                },
            variants,
        }) = &t.kind
        else {
            continue;
        };
        for v in variants {
            let Some((def, s)) = struct_of(model, &v.ty) else {
                continue;
            };
            let Some(f) = s.fields.iter().find(|f| &f.name == key) else {
                continue;
            };
            let nullable = matches!(model.unalias(&f.ty).kind, TyKind::Nullable(_));
            let message = if f.optional || nullable {
                let how = if f.optional { "optional" } else { "nullable" };
                format!(
                    "the union's tag `{key}` cannot be {how}; leave it out of `{}`, the union adds it",
                    def.name
                )
            } else {
                format!(
                    "`{}` declares the union's tag key `{key}`; leave it out, the union adds it",
                    def.name
                )
            };
            diags
                .error(&f.loc, message)
                .note(tag_loc, format!("the tag of `{}`", t.name));
        }
    }
}

/// Rule: every variant of a tagged union is an object (a struct, an inline object, or an
/// alias of one), with no name of its own (its tag names it); an untagged union's variants
/// are any type expression.
fn union_variants_are_objects(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Union(u) = &t.kind else {
            continue;
        };
        for v in &u.variants {
            match &u.tag {
                UnionTag::Tagged { .. } => {
                    let is_ref = matches!(v.ty.kind, TyKind::Ref(_));
                    let resolved = match &model.unalias(&v.ty).kind {
                        TyKind::Ref(r) => model.resolve(r).is_some(),
                        _ => true,
                    };
                    if resolved && struct_of(model, &v.ty).is_none() {
                        let what = if is_ref {
                            "names a type that is not a struct"
                        } else {
                            "is not an object"
                        };
                        diags.error(&v.ty.loc, format!("this variant {what}: a tagged union's variants are structs or inline objects"));
                    }
                }
                UnionTag::Untagged => {}
            }
        }
    }
}

/// Rule: a tagged union's variant keeps other keys only as `..: unknown`: the tag key is the
/// union's and is never kept in the rest, but a typed rest (`..: int`) would judge the tag's
/// value as one of its own.
fn open_objects_are_not_tagged_variants(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Union(u) = &t.kind else {
            continue;
        };
        let UnionTag::Tagged { field: tag, .. } = &u.tag else {
            continue;
        };
        for v in &u.variants {
            if let Some((_, s)) = struct_of(model, &v.ty)
                && let Some(rest) = &s.rest
                && !matches!(&rest.ty.kind, TyKind::Map(inner)
                    if matches!(model.unalias(inner).kind, TyKind::Unknown))
            {
                diags
                    .error(
                        &v.loc,
                        format!(
                            "a variant of a tagged union keeps other keys only as `..: unknown`: \
                             a typed rest would judge its tag `{tag}` as one of them; write \
                             `..: unknown`, or make the union untagged"
                        ),
                    )
                    .note(&rest.loc, "the rest");
            }
        }
    }
}

/// Rule: an include (`...Base`) names a struct, this protocol's or a base's (through aliases),
/// that does not include the struct itself; at most one of a struct and what it includes has a
/// typed rest (`..: T`), which the struct then has; any number of them may be `..: unknown`,
/// which are one rest.
fn includes_are_structs(model: &Model, diags: &mut Diagnostics) {
    /// The struct `r` names, with the model that declares it.
    fn target<'m>(model: &'m Model, r: &TypeRef) -> Option<(&'m Model, &'m TypeDef, &'m Struct)> {
        let (m, mut def) = model.locate(r)?;
        let mut m = m;
        for _ in 0..64 {
            match &def.kind {
                TypeDefKind::Struct(s) => return Some((m, def, s)),
                TypeDefKind::Alias(Ty {
                    kind: TyKind::Ref(next),
                    ..
                }) => (m, def) = m.locate(next)?,
                _ => return None,
            }
        }
        None
    }
    /// Whether the struct `name` of `m` includes `goal` (a struct of `model`), directly or not.
    fn reaches(model: &Model, m: &Model, s: &Struct, goal: &str, depth: usize) -> bool {
        depth < 64
            && s.includes.iter().any(|inc| match target(m, &inc.ty) {
                Some((tm, d, ts)) => {
                    (std::ptr::eq(tm, model) && d.name == goal)
                        || reaches(model, tm, ts, goal, depth + 1)
                }
                None => false,
            })
    }
    for t in &model.types {
        let TypeDefKind::Struct(s) = &t.kind else {
            continue;
        };
        if let Some(first) = s.includes.first()
            && reaches(model, model, s, &t.name, 0)
        {
            diags.error(
                &first.loc,
                format!(
                    "`{}` includes itself (`...`), directly or through another",
                    t.name
                ),
            );
        }
        // Each rest with whether it is `..: unknown`: any number of those are one rest.
        fn any(m: &Model, r: &Rest) -> bool {
            matches!(&r.ty.kind, TyKind::Map(inner) if matches!(m.unalias(inner).kind, TyKind::Unknown))
        }
        let mut rests: Vec<(&Loc, bool)> = Vec::new();
        for inc in &s.includes {
            match target(model, &inc.ty) {
                None => {
                    let what = match model.locate(&inc.ty) {
                        Some(_) => format!("`{}` is not a struct", inc.ty.name),
                        None => format!("no type is called `{}`", inc.ty.name),
                    };
                    diags.error(
                        &inc.loc,
                        format!("{what}: only a struct's fields can be included (`...Base`)"),
                    );
                }
                Some((tm, _, is)) => {
                    if let Some(r) = &is.rest {
                        rests.push((&r.loc, any(tm, r)));
                    }
                }
            }
        }
        if let Some(own) = &s.rest
            && !rests.iter().any(|(l, _)| *l == &own.loc)
        {
            rests.push((&own.loc, any(model, own)));
        }
        if rests.len() > 1 && !rests.iter().all(|(_, any)| *any) {
            let typed: Vec<&Loc> = rests.iter().filter(|(_, a)| !a).map(|(l, _)| *l).collect();
            let other = rests
                .iter()
                .map(|(l, _)| *l)
                .find(|l| *l != typed[0])
                .unwrap_or(typed[0]);
            diags
                .error(
                    &t.loc,
                    format!(
                        "`{}` has a rest (`..: T`) from more than one place, not all `..: unknown`; keep one",
                        t.name
                    ),
                )
                .note(typed[0], "one")
                .note(other, "another");
        }
    }
}

/// Rule: a constant's name is UPPER_SNAKE_CASE (ASCII), no other constant's or type's, and an
/// integer constant lies in JSON's safe integer range.
fn constants_are_named_and_in_range(model: &Model, diags: &mut Diagnostics) {
    let mut seen: HashMap<&str, &Loc> = HashMap::new();
    for k in &model.consts {
        let shaped = k.name.starts_with(|c: char| c.is_ascii_uppercase())
            && k.name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if !shaped {
            diags.error(
                &k.loc,
                format!(
                    "a constant's name is UPPER_SNAKE_CASE (ASCII letters, digits and `_`): write `{}`",
                    names::rust_field(&k.name).to_ascii_uppercase()
                ),
            );
        }
        if let Some(first) = seen.insert(&k.name, &k.loc) {
            diags
                .error(
                    &k.loc,
                    format!("the constant `{}` is defined twice", k.name),
                )
                .note(first, "first defined here");
        }
        if let Some(t) = model.types.iter().find(|t| t.name == k.name) {
            diags
                .error(
                    &k.loc,
                    format!("`{}` is already the name of a type", k.name),
                )
                .note(&t.loc, "the type");
        }
        if let Literal::Int(i) = k.value
            && !(-MAX_SAFE..=MAX_SAFE).contains(&i)
        {
            diags.error(
                &k.loc,
                format!(
                    "the constant `{}` is outside JSON's safe integer range (+-{MAX_SAFE})",
                    k.name
                ),
            );
        }
    }
}

/// Rule: no field of an open object is called `extra` in Rust, the name of the rest's field.
fn the_rest_has_a_name_of_its_own(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Struct(s) = &t.kind else {
            continue;
        };
        let Some(rest) = &s.rest else {
            continue;
        };
        for f in s
            .fields
            .iter()
            .filter(|f| names::rust_field(&f.name) == "extra")
        {
            diags
                .error(
                    &f.loc,
                    format!(
                        "`{}` is `extra` in Rust, the field that holds the rest of an open \
                         object; rename it",
                        f.name
                    ),
                )
                .note(&rest.loc, "the rest");
        }
    }
}

/// Rule: a lower bound is not greater than the upper bound (lengths, item counts, numbers).
fn limits_are_in_order(model: &Model, diags: &mut Diagnostics) {
    each_ty(model, &mut |t| {
        let bad = match &t.kind {
            TyKind::String(l, _) | TyKind::Array(_, l) => {
                matches!((l.min, l.max), (Some(a), Some(b)) if a > b)
                    .then(|| (l.min.map(i128::from), l.max.map(i128::from)))
            }
            TyKind::Int(l, _) | TyKind::Number(l) => {
                matches!((l.min, l.max), (Some(a), Some(b)) if a > b)
                    .then(|| (l.min.map(i128::from), l.max.map(i128::from)))
            }
            _ => None,
        };
        if let Some((Some(min), Some(max))) = bad {
            diags.error(&t.loc, format!("min ({min}) is greater than max ({max})"));
        }
    });
}

/// Rule: only an optional field has a default (a required key is always present).
fn defaults_are_on_optional_fields(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Struct(s) = &t.kind else {
            continue;
        };
        for f in s
            .fields
            .iter()
            .filter(|f| !f.optional && f.default.is_some())
        {
            diags.error(
                &f.loc,
                format!("the field `{}` is required, so its default would never be used; write `{}?:` to make it optional", f.name, f.name),
            );
        }
    }
}

/// Rule: a default is a valid value of its field's type.
fn defaults_fit_their_type(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Struct(s) = &t.kind else {
            continue;
        };
        for f in s.fields.iter() {
            let Some(value) = &f.default else { continue };
            if let Err(why) = fits(model, &f.ty, value, 0) {
                diags.error(
                    &f.loc,
                    format!("the default of `{}` does not fit its type: {why}", f.name),
                );
            }
        }
    }
}

/// Rule: a `#[table = "requests[type]"]` field is an `unknown` (after aliases), required or
/// optional (absent, the table reads it as `{}`: JSON-RPC's `params`) with no default; its key
/// (`type`) is another required field of the same struct, a `string` (possibly with limits, after
/// aliases; a literal names one entry only); and the protocol has that table, its own or a
/// base's. A struct has at most one such field, its other fields have no default (its typed
/// form borrows strings and `unknown` values, and holds any other type owned: JSON-RPC's `id`;
/// an open one's rest too, MCP's envelope), and no type is already called `<Name>Ref` or
/// `<Name>Typed`.
/// Errors point at the attribute (its value for what the value names).
fn table_fields_name_their_entry(
    model: &Model,
    attrs: &HashMap<Loc, (Loc, Loc)>,
    diags: &mut Diagnostics,
) {
    for t in &model.types {
        let TypeDefKind::Struct(s) = &t.kind else {
            continue;
        };
        let mut first: Option<&Field> = None;
        for f in &s.fields {
            let Some(tk) = &f.meta.table else { continue };
            let (at_name, at_value) = attrs
                .get(&f.loc)
                .cloned()
                .unwrap_or_else(|| (f.loc.clone(), f.loc.clone()));
            if let Some(first) = first {
                diags
                    .error(
                        &at_name,
                        format!(
                            "`#[table]` is written on one field of a struct: `{}` has it on `{}` already",
                            t.name, first.name
                        ),
                    )
                    .note(&first.loc, "that field is here");
                continue;
            }
            first = Some(f);
            for other in &s.fields {
                if other.name == f.name || other.name == tk.key {
                    continue;
                }
                if other.default.is_some() {
                    diags.error(
                        &at_name,
                        format!(
                            "`#[table]` needs every other field of `{}` to have no default (its typed form reads each as it travels): `{}` has a default",
                            t.name, other.name
                        ),
                    );
                }
            }
            for suffix in ["Ref", "Typed"] {
                let taken = format!("{}{suffix}", t.name);
                if let Some(d) = model.own_type(&taken) {
                    diags
                        .error(
                            &at_name,
                            format!(
                                "`#[table]` gives `{}` the generated types `{}Ref` and `{}Typed`, but `{taken}` is declared",
                                t.name, t.name, t.name
                            ),
                        )
                        .note(&d.loc, "declared here");
                }
            }
            let ty = model.unalias(&f.ty);
            if !matches!(ty.kind, TyKind::Unknown) && !unresolved(model, ty) {
                diags.error(
                    &at_name,
                    format!(
                        "`#[table]` is allowed only on an `unknown` field: `{}` is {}",
                        f.name,
                        kind_of(model, ty)
                    ),
                );
            }
            if f.default.is_some() {
                diags.error(
                    &at_name,
                    format!(
                        "`#[table]` is allowed only on a field with no default: `{}` has one (absent, the table reads it as `{{}}`)",
                        f.name
                    ),
                );
            }
            let (table, kind) = match tk.table {
                TableKind::Requests => ("requests", "request"),
                TableKind::Events => ("events", "event"),
            };
            let key = &tk.key;
            if *key == f.name {
                diags.error(
                    &at_value,
                    format!("`#[table]` on `{key}` names `{key}` itself: the key is another field of `{}`, a string", t.name),
                );
            } else {
                match s.fields.iter().find(|k| k.name == *key) {
                    None => {
                        let hint = did_you_mean(key, s.fields.iter().map(|k| k.name.as_str()));
                        diags.error(
                            &at_value,
                            format!(
                                "`#[table]` names the key `{key}`, which is not a field of `{}`{hint}",
                                t.name
                            ),
                        );
                    }
                    Some(k) => {
                        let kty = model.unalias(&k.ty);
                        if !matches!(kty.kind, TyKind::String(..)) && !unresolved(model, kty) {
                            diags.error(
                                &at_value,
                                format!(
                                    "`#[table]` needs its key `{key}` to be a `string`, but it is {}",
                                    kind_of(model, kty)
                                ),
                            );
                        }
                        if k.optional {
                            diags.error(
                                &at_value,
                                format!("`#[table]` needs its key `{key}` to be required, but it is optional"),
                            );
                        }
                    }
                }
            }
            let has_table = match tk.table {
                TableKind::Requests => !model.all_requests().is_empty(),
                TableKind::Events => !model.all_events().is_empty(),
            };
            if !has_table {
                diags.error(
                    &at_value,
                    format!(
                        "`#[table]` names the {kind} table, but the protocol `{}` has no {table}, nor do its bases",
                        model.name
                    ),
                );
            }
        }
    }
}

/// Whether `ty` names a type that does not exist (`types_are_defined` reports it).
fn unresolved(model: &Model, ty: &Ty) -> bool {
    matches!(&ty.kind, TyKind::Ref(r) if model.resolve(r).is_none())
}

/// What a type is, after aliases, in words: `a string`, `the literal "event"`, `the struct X`.
fn kind_of(model: &Model, ty: &Ty) -> String {
    match &ty.kind {
        TyKind::String(..) => "a `string`".into(),
        TyKind::Boolean => "a `boolean`".into(),
        TyKind::Int(_, w) => format!("an `{}`", w.name()),
        TyKind::Number(_) => "a `number`".into(),
        TyKind::Unknown => "`unknown`".into(),
        TyKind::Literal(Literal::String(s)) => format!("the literal {s:?}"),
        TyKind::Literal(Literal::Bool(b)) => format!("the literal `{b}`"),
        TyKind::Literal(Literal::Int(i)) => format!("the literal `{i}`"),
        TyKind::Literal(Literal::Null) => "`null`".into(),
        TyKind::Array(..) => "an array".into(),
        TyKind::Map(_) => "a map".into(),
        TyKind::Nullable(_) => "nullable".into(),
        TyKind::Ref(r) => match model.resolve(r).map(|d| &d.kind) {
            Some(TypeDefKind::Struct(_)) => format!("the struct `{}`", r.name),
            Some(TypeDefKind::Enum(_)) => format!("the enum `{}`", r.name),
            Some(TypeDefKind::Union(_)) => format!("the union `{}`", r.name),
            Some(TypeDefKind::Alias(_)) | None => format!("`{}`", r.name),
        },
    }
}

/// Whether `v` is a valid value of `ty`; `Err` says why not.
fn fits(model: &Model, ty: &Ty, v: &serde_json::Value, depth: u32) -> Result<(), String> {
    use serde_json::Value as J;
    if depth > 32 {
        return Ok(());
    }
    let kind = |v: &J| match v {
        J::Null => "null",
        J::Bool(_) => "a boolean",
        J::Number(_) => "a number",
        J::String(_) => "a string",
        J::Array(_) => "an array",
        J::Object(_) => "an object",
    };
    let expected = |what: &str| Err(format!("expected {what}, found {}", kind(v)));
    match (&ty.kind, v) {
        (TyKind::Unknown, _) => Ok(()),
        (TyKind::Nullable(_), J::Null) => Ok(()),
        (TyKind::Nullable(inner), _) => fits(model, inner, v, depth + 1),
        (TyKind::String(l, format), J::String(s)) => {
            if let Some(f) = format.filter(|f| !f.accepts(s)) {
                return Err(format!("{s:?} is not a valid `{}`", f.name()));
            }
            let n = s.chars().count() as u64;
            check_limits(n, l.min, l.max, "characters")
        }
        (TyKind::String(..), _) => expected("a string"),
        (TyKind::Boolean, J::Bool(_)) => Ok(()),
        (TyKind::Boolean, _) => expected("a boolean"),
        (TyKind::Int(l, w), J::Number(n)) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() != 0.0 || f.abs() > MAX_SAFE as f64 {
                return Err(format!("expected an integer, found {n}"));
            }
            if *w == Width::U64 && f < 0.0 {
                return Err(format!("expected a `uint64`, found {n}"));
            }
            check_num(f, l)
        }
        (TyKind::Int(..), _) => expected("an integer"),
        (TyKind::Number(l), J::Number(n)) => check_num(n.as_f64().unwrap_or(f64::NAN), l),
        (TyKind::Number(_), _) => expected("a number"),
        (TyKind::Literal(lit), _) => {
            let want = match lit {
                Literal::String(s) => J::from(s.clone()),
                Literal::Bool(b) => J::from(*b),
                Literal::Int(i) => J::from(*i),
                Literal::Null => J::Null,
            };
            let same = match (&want, v) {
                (J::Number(a), J::Number(b)) => a.as_f64() == b.as_f64(),
                _ => &want == v,
            };
            if same {
                Ok(())
            } else {
                Err(format!("expected exactly {want}, found {v}"))
            }
        }
        (TyKind::Array(item, l), J::Array(items)) => {
            check_limits(items.len() as u64, l.min, l.max, "items")?;
            for (i, x) in items.iter().enumerate() {
                fits(model, item, x, depth + 1).map_err(|e| format!("at [{i}]: {e}"))?;
            }
            Ok(())
        }
        (TyKind::Array(..), _) => expected("an array"),
        (TyKind::Map(value), J::Object(m)) => {
            for (k, x) in m {
                fits(model, value, x, depth + 1).map_err(|e| format!("at `{k}`: {e}"))?;
            }
            Ok(())
        }
        (TyKind::Map(_), _) => expected("an object"),
        (TyKind::Ref(r), _) => {
            let Some(def) = model.resolve(r) else {
                return Ok(());
            };
            let base = match &r.protocol {
                Some(p) => model.base(p).unwrap_or(model),
                None => model,
            };
            fits_def(base, def, v, depth + 1)
        }
    }
}

/// Whether `v` is a valid value of the named type `def`, declared in `model`.
fn fits_def(model: &Model, def: &TypeDef, v: &serde_json::Value, depth: u32) -> Result<(), String> {
    use serde_json::Value as J;
    match (&def.kind, v) {
        (TypeDefKind::Alias(ty), _) => fits(model, ty, v, depth),
        (TypeDefKind::Struct(s), J::Object(m)) => fits_struct(model, s, m, None, depth),
        (TypeDefKind::Enum(e), J::Number(n)) if e.is_int() => {
            let i = n.as_i64().filter(|i| i.abs() <= MAX_SAFE);
            match i {
                Some(i) if e.open || e.ints().any(|x| x == i) => Ok(()),
                Some(i) => Err(format!("{i} is not a value of `{}`", def.name)),
                None => Err(format!("expected an integer (a value of `{}`)", def.name)),
            }
        }
        (TypeDefKind::Enum(e), _) if e.is_int() => {
            Err(format!("expected an integer (a value of `{}`)", def.name))
        }
        (TypeDefKind::Enum(e), J::String(s)) => {
            if e.open || e.strs().any(|x| x == s) {
                Ok(())
            } else {
                Err(format!("\"{s}\" is not a value of `{}`", def.name))
            }
        }
        (TypeDefKind::Enum(_), _) => Err(format!("expected a string (a value of `{}`)", def.name)),
        (TypeDefKind::Union(u), _) => match &u.tag {
            UnionTag::Tagged { field, .. } => {
                let J::Object(m) = v else {
                    return Err(format!("expected an object (a `{}`)", def.name));
                };
                let Some(J::String(tag)) = m.get(field) else {
                    return Err(format!("expected the tag `{field}` of `{}`", def.name));
                };
                let Some(variant) = u.variants.iter().find(|x| x.tag.as_deref() == Some(tag))
                else {
                    return Err(format!("\"{tag}\" is not a tag of `{}`", def.name));
                };
                match struct_of(model, &variant.ty) {
                    Some((_, s)) => fits_struct(model, s, m, Some(field), depth),
                    None => Ok(()),
                }
            }
            UnionTag::Untagged => {
                if u.variants
                    .iter()
                    .any(|x| fits(model, &x.ty, v, depth + 1).is_ok())
                {
                    Ok(())
                } else {
                    Err(format!("no variant of `{}` accepts it", def.name))
                }
            }
        },
        (TypeDefKind::Struct(_), _) => Err(format!("expected an object (a `{}`)", def.name)),
    }
}

fn fits_struct(
    model: &Model,
    s: &Struct,
    m: &serde_json::Map<String, serde_json::Value>,
    tag: Option<&String>,
    depth: u32,
) -> Result<(), String> {
    for f in &s.fields {
        if Some(&f.name) == tag {
            continue;
        }
        match m.get(&f.name) {
            None if f.optional => {}
            None => return Err(format!("the key `{}` is missing", f.name)),
            Some(x) => {
                fits(model, &f.ty, x, depth + 1).map_err(|e| format!("at `{}`: {e}", f.name))?
            }
        }
    }
    Ok(())
}

fn check_limits(n: u64, min: Option<u64>, max: Option<u64>, unit: &str) -> Result<(), String> {
    if let Some(min) = min
        && n < min
    {
        return Err(format!("expected at least {min} {unit}, found {n}"));
    }
    if let Some(max) = max
        && n > max
    {
        return Err(format!("expected at most {max} {unit}, found {n}"));
    }
    Ok(())
}

fn check_num(f: f64, l: &Limits<i64>) -> Result<(), String> {
    if let Some(min) = l.min
        && f < min as f64
    {
        return Err(format!("expected at least {min}, found {f}"));
    }
    if let Some(max) = l.max
        && f > max as f64
    {
        return Err(format!("expected at most {max}, found {f}"));
    }
    Ok(())
}

/// The local types a type expression names, with `strong` telling whether a value of it must
/// hold one (not behind an array, a map or `| null`).
fn local_refs<'a>(ty: &'a Ty, strong_only: bool, out: &mut Vec<&'a str>) {
    match &ty.kind {
        TyKind::Ref(TypeRef {
            name,
            protocol: None,
        }) => out.push(name),
        TyKind::Array(i, _) | TyKind::Map(i) | TyKind::Nullable(i) if !strong_only => {
            local_refs(i, false, out)
        }
        _ => {}
    }
}

/// A path from `from` back to `target` through `edges`, if any.
fn cycle_path<'a>(
    from: &'a str,
    target: &str,
    edges: &HashMap<&'a str, Vec<&'a str>>,
    seen: &mut HashSet<&'a str>,
    path: &mut Vec<&'a str>,
) -> bool {
    for &next in edges.get(from).map(Vec::as_slice).unwrap_or_default() {
        if next == target {
            return true;
        }
        if seen.insert(next) {
            path.push(next);
            if cycle_path(next, target, edges, seen, path) {
                return true;
            }
            path.pop();
        }
    }
    false
}

/// Rule: an alias does not refer to itself, even through an array or a map: Rust cannot spell
/// a recursive alias, so recursion goes through a struct.
fn aliases_do_not_recurse(model: &Model, diags: &mut Diagnostics) {
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    for t in &model.types {
        if let TypeDefKind::Alias(ty) = &t.kind {
            let mut out = Vec::new();
            local_refs(ty, false, &mut out);
            out.retain(|n| {
                matches!(
                    model.own_type(n).map(|d| &d.kind),
                    Some(TypeDefKind::Alias(_))
                )
            });
            edges.insert(&t.name, out);
        }
    }
    let mut reported: HashSet<&str> = HashSet::new();
    for t in &model.types {
        if !edges.contains_key(t.name.as_str()) || reported.contains(t.name.as_str()) {
            continue;
        }
        let mut path = vec![t.name.as_str()];
        if cycle_path(&t.name, &t.name, &edges, &mut HashSet::new(), &mut path) {
            reported.extend(path.iter().copied());
            path.push(&t.name);
            diags.error(
                &t.loc,
                format!("the alias `{}` refers to itself ({}); an alias cannot recurse: declare a struct", t.name, path.join(" -> ")),
            );
        }
    }
}

/// Rule: no type contains itself through required, non-nullable fields and aliases only: no
/// finite value of it could ever be written. Recursion through an array, a map, an optional or
/// a nullable field is fine.
fn types_do_not_contain_themselves(model: &Model, diags: &mut Diagnostics) {
    let mut edges: HashMap<&str, Vec<&str>> = HashMap::new();
    for t in &model.types {
        let mut out = Vec::new();
        match &t.kind {
            TypeDefKind::Alias(ty) => local_refs(ty, true, &mut out),
            TypeDefKind::Struct(s) => s
                .fields
                .iter()
                .filter(|f| !f.optional)
                .for_each(|f| local_refs(&f.ty, true, &mut out)),
            _ => {}
        }
        edges.insert(&t.name, out);
    }
    let mut reported: HashSet<&str> = HashSet::new();
    for t in model
        .types
        .iter()
        .filter(|t| matches!(t.kind, TypeDefKind::Struct(_)))
    {
        if reported.contains(t.name.as_str()) {
            continue;
        }
        let mut path = vec![t.name.as_str()];
        if cycle_path(&t.name, &t.name, &edges, &mut HashSet::new(), &mut path) {
            reported.extend(path.iter().copied());
            path.push(&t.name);
            diags.error(
                &t.loc,
                format!(
                    "`{}` contains itself through required fields ({}), so no value of it can be written; make a field optional, nullable or an array",
                    t.name,
                    path.join(" -> ")
                ),
            );
        }
    }
}

/// Rule: an untagged union that holds itself (through any field, optional, nullable, an array
/// or a map) is a union of structs, every two of which require different literals at a key
/// they share (`kind: "end"`, `kind: "link"`). Its variants are tried in order; only literals
/// rule one out before it is read in full, so without them a value would be read once per
/// variant at every depth, in time exponential in its depth.
fn recursive_untagged_unions_are_told_apart(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Union(u) = &t.kind else {
            continue;
        };
        if !matches!(u.tag, UnionTag::Untagged) {
            continue;
        }
        let Some(path) = crate::analysis::recursion::self_path(model, &t.name) else {
            continue;
        };
        let structs: Vec<_> = u.variants.iter().map(|v| struct_of(model, &v.ty)).collect();
        let pair = (0..structs.len())
            .flat_map(|i| (i + 1..structs.len()).map(move |j| (i, j)))
            .find(|&(i, j)| match (structs[i], structs[j]) {
                (Some((_, a)), Some((_, b))) => !told_apart(model, a, b),
                _ => true,
            });
        if let Some((i, j)) = pair {
            let name = |k: usize| variant_name(&u.variants[k].ty);
            diags.error(
                &t.loc,
                format!(
                    "the untagged union `{}` holds itself ({}), and its variants {} and {} are not told apart by a literal key: a value would be read once per variant at every depth, in time exponential in its depth; give each variant a literal key (`kind: \"a\"`) or make the union tagged",
                    t.name,
                    path.join(" -> "),
                    name(i),
                    name(j)
                ),
            );
        }
    }
}

/// Whether two structs require different literals at a key both have.
fn told_apart(model: &Model, a: &Struct, b: &Struct) -> bool {
    let b_literals = model.required_literals(b);
    model
        .required_literals(a)
        .iter()
        .any(|(key, la)| b_literals.iter().any(|(kb, lb)| kb == key && la != lb))
}

/// How an error names a union variant: its type as written (`Name`, `string`, `[T]`).
fn variant_name(ty: &Ty) -> String {
    fn limits<T: std::fmt::Display>(l: &Limits<T>) -> String {
        match (&l.min, &l.max) {
            (None, None) => String::new(),
            (Some(a), None) => format!("(min = {a})"),
            (None, Some(b)) => format!("(max = {b})"),
            (Some(a), Some(b)) => format!("(min = {a}, max = {b})"),
        }
    }
    fn shown(ty: &Ty) -> String {
        match &ty.kind {
            TyKind::Ref(r) => r.name.clone(),
            TyKind::String(l, _) => format!("string{}", limits(l)),
            TyKind::Boolean => "boolean".into(),
            TyKind::Int(l, w) => format!("{}{}", w.name(), limits(l)),
            TyKind::Number(l) => format!("number{}", limits(l)),
            TyKind::Unknown => "unknown".into(),
            TyKind::Literal(Literal::String(s)) => format!("{s:?}"),
            TyKind::Literal(Literal::Bool(b)) => b.to_string(),
            TyKind::Literal(Literal::Int(i)) => i.to_string(),
            TyKind::Literal(Literal::Null) => "null".into(),
            TyKind::Array(inner, l) => format!("[{}]{}", shown(inner), limits(l)),
            TyKind::Map(inner) => format!("map<{}>", shown(inner)),
            TyKind::Nullable(inner) => format!("{} | null", shown(inner)),
        }
    }
    format!("`{}`", shown(ty))
}

/// Rule: no variant of an untagged union accepts only values an earlier one accepts. The
/// variants are tried in order and the first that accepts wins, so such a variant is never
/// read: Rust and Zod read its values as the earlier one and drop what only it holds (`A { x }`
/// before `B { x, y }`: every `B` is an `A` with a key it ignores). Reported only when sure
/// (`analysis::kinds::covers`): a literal key that tells the two apart (`kind: "a"`, `kind:
/// "b"`), an optional field of the earlier one that the later one leaves to any value, or a
/// limit that is not contained, and the later variant is kept. A variant listed twice is the
/// duplicate rule's.
fn untagged_variants_are_not_shadowed(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Union(u) = &t.kind else {
            continue;
        };
        if !matches!(u.tag, UnionTag::Untagged) {
            continue;
        }
        for (j, later) in u.variants.iter().enumerate() {
            let same = |v: &Variant| match (&v.ty.kind, &later.ty.kind) {
                (TyKind::Ref(a), TyKind::Ref(b)) => a.name == b.name,
                _ => false,
            };
            let Some(earlier) = u.variants[..j].iter().find(|v| {
                !same(v) && crate::analysis::kinds::covers(model, &v.ty, model, &later.ty)
            }) else {
                continue;
            };
            let (a, b) = (variant_name(&earlier.ty), variant_name(&later.ty));
            diags
                .error(
                    &later.loc,
                    format!(
                        "the variant {b} of the untagged union `{}` is never read: {a}, tried before it, accepts every value it does, so Rust and Zod would read each of its values as {a} and drop what only {b} holds; list it before {a}, or tell them apart with a literal key in each (`kind: \"a\"`, `kind: \"b\"`)",
                        t.name
                    ),
                )
                .note(&earlier.loc, format!("{a} is tried first"));
        }
    }
}

/// Rule: an `#[error]` struct has a required `code` that is an enum, a required
/// `message: string`, and no other required field, so a code and a message build it.
fn errors_hold_a_code_and_a_message(model: &Model, diags: &mut Diagnostics) {
    for t in &model.types {
        let TypeDefKind::Struct(s) = &t.kind else {
            continue;
        };
        if !t.meta.error {
            continue;
        }
        let message = s.fields.iter().find(|f| f.name == "message" && !f.optional);
        let message_is_text =
            message.is_some_and(|f| matches!(model.unalias(&f.ty).kind, TyKind::String(..)));
        if model.error_code_of(s).is_none() || !message_is_text {
            diags.error(
                &t.loc,
                format!(
                    "the `#[error]` struct `{}` needs a required `code` that is an enum and a required `message: string`",
                    t.name
                ),
            );
        }
        // A generated dispatcher refuses with JSON-RPC's codes: an integer set holds them or
        // is open to them.
        if let Some((_, codes)) = model.error_code_of(s)
            && codes.is_int()
            && !codes.open
        {
            let missing: Vec<String> = [-32601, -32602, -32603]
                .into_iter()
                .filter(|n| !codes.ints().any(|v| v == *n))
                .map(|n| n.to_string())
                .collect();
            if !missing.is_empty() {
                diags.error(
                    &t.loc,
                    format!(
                        "the `#[error]` struct `{}` has a closed set of integer codes without {}: a generated dispatcher refuses with JSON-RPC's -32601 (method not found), -32602 (invalid params) and -32603 (internal error); add them or make the set `#[open]`",
                        t.name,
                        missing.join(", ")
                    ),
                );
            }
        }
        for f in &s.fields {
            let literal = matches!(model.unalias(&f.ty).kind, TyKind::Literal(_));
            if !f.optional && !literal && f.name != "code" && f.name != "message" {
                diags.error(
                    &f.loc,
                    format!(
                        "`{}` is required: an `#[error]` struct's fields beside `code` and `message` are optional (its constructors take a code and a message)",
                        f.name
                    ),
                );
            }
        }
    }
}

/// Rule: `#[extends]` names an `#[open]` enum (this protocol's or a base's), whose values the
/// extending enum does not repeat; one enum extends it per protocol.
fn extended_enums_are_open(model: &Model, diags: &mut Diagnostics) {
    let mut seen: HashMap<&TypeRef, &Loc> = HashMap::new();
    for t in &model.types {
        let TypeDefKind::Enum(e) = &t.kind else {
            continue;
        };
        let Some(r) = &e.extends else {
            continue;
        };
        let shown = match &r.protocol {
            Some(p) => format!("{p}::{}", r.name),
            None => r.name.clone(),
        };
        if e.is_int() {
            diags.error(
                &t.loc,
                format!("`{}` is an integer enum: `#[extends]` takes more values of an open string enum only", t.name),
            );
            continue;
        }
        let base = match model.resolve(r).map(|d| &d.kind) {
            Some(TypeDefKind::Enum(b)) if b.is_int() => {
                diags.error(
                    &t.loc,
                    format!("`{}` extends `{shown}`, which is an integer enum: `#[extends]` takes more values of an open string enum only", t.name),
                );
                continue;
            }
            Some(TypeDefKind::Enum(b)) if b.open => b,
            Some(TypeDefKind::Enum(_)) => {
                diags.error(
                    &t.loc,
                    format!("`{}` extends `{shown}`, which is not `#[open]`: only an open enum takes values of another", t.name),
                );
                continue;
            }
            _ => {
                diags.error(
                    &t.loc,
                    format!("`{}` extends `{shown}`, which is not an enum of this protocol or a base (write `#[extends = \"agent::ErrorCode\"]`)", t.name),
                );
                continue;
            }
        };
        if let Some(first) = seen.insert(r, &t.loc) {
            diags
                .error(&t.loc, format!("`{shown}` is extended twice"))
                .note(first, "first extended here");
        }
        for v in &e.values {
            if base.values.iter().any(|b| b.value == v.value) {
                diags.error(
                    &v.loc,
                    format!("{} is already a value of `{shown}`", v.shown()),
                );
            }
        }
    }
}
