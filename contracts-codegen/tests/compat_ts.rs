//! Compat's verdict and TypeScript source compatibility agree, checked by `tsc --strict` on the
//! compat corpus.
//!
//! For every wire-compatible case (`tests/compat/*-ok`), TypeScript code a user would write
//! against the BASE schema's generated package (written here from the base model: every type
//! built as an object literal with `satisfies` and read field by field into variables of the
//! type the base declares, every tagged union switched on its tag and every closed enum on its
//! values with a `never` default, an open one with a default arm and an unlisted value, an
//! untagged union held as its variants, every table name listed in a `Record` literal, every
//! constant held as its literal, every type named from its subpath) is type-checked once
//! against base and once against head. Against base it must type-check (the usage writer is
//! sound); against head it must type-check exactly when compat's TypeScript-source verdict for
//! the case (`compat::ts_source`: no finding whose rule breaks TypeScript source) says the
//! source is kept. Every disagreement fails with the case and tsc's errors.
//!
//! All cases are one tsc program under `CARGO_TARGET_TMPDIR/compat-ts`: each case's packages
//! (`emit::typescript`), each usage file importing its side's package by relative path, zod
//! and the runtime from `bindings/agent-contracts` (zod and tsc from the repository's workspace
//! install, `npm ci` at the root; without its `node_modules` the test says so and checks
//! nothing).

mod compat_corpus;

use compat_corpus::{cases, load_case};
use contracts_codegen::analysis::Checked;
use contracts_codegen::compat;
use contracts_codegen::emit::typescript::{self, TsOptions};
use contracts_codegen::model::{
    EnumLit, Literal, Model, Ty, TyKind, TypeDef, TypeDefKind, UnionTag,
};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Cases whose generated package does not type-check for a reason outside compat, each with
/// it: checked for nothing else, and a case that starts to type-check fails until it is
/// taken off.
const PACKAGE_DEFECTS: &[(&str, &str)] = &[];

/// The table prefix the corpus's packages are generated with.
const PREFIX: &str = "DEMO";

fn repo() -> PathBuf {
    let r = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    r.canonicalize().unwrap_or(r)
}

/// A JS string literal.
fn js(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// The namespace a named type of `m` is imported under: `root`, or `m_<module>`.
fn ns(def: &TypeDef) -> String {
    match &def.module {
        Some(m) => format!("m_{m}"),
        None => "root".into(),
    }
}

/// The usage code written from a base model, importing its package from `pkg` (a relative
/// path to its `src/`).
struct Usage<'a> {
    m: &'a Model,
    /// The enums whose type admits any value (`(string & {})`): `#[open]` ones and those that
    /// may gain a value compatibly (`Checked::may_grow`).
    open: std::collections::BTreeSet<String>,
    out: String,
}

impl Usage<'_> {
    /// The TypeScript type the base declares for `t` (the schema's output), named through the
    /// package's namespaces.
    fn ty(&self, t: &Ty) -> String {
        match &t.kind {
            TyKind::String(..) => "string".into(),
            TyKind::Int(..) | TyKind::Number(_) => "number".into(),
            TyKind::Boolean => "boolean".into(),
            TyKind::Unknown => "unknown".into(),
            TyKind::Literal(Literal::String(s)) => js(s),
            TyKind::Literal(Literal::Int(i)) => i.to_string(),
            TyKind::Literal(Literal::Bool(b)) => b.to_string(),
            TyKind::Literal(Literal::Null) => "null".into(),
            TyKind::Array(i, _) => format!("Array<{}>", self.ty(i)),
            TyKind::Map(i) => format!("Record<string, {}>", self.ty(i)),
            TyKind::Nullable(i) => format!("({}) | null", self.ty(i)),
            TyKind::Ref(r) => match self.m.locate(r) {
                Some((dm, d)) if std::ptr::eq(dm, self.m) => format!("{}.{}", ns(d), d.name),
                _ => "unknown".into(),
            },
        }
    }

    /// A value of `t` with only what is required, as a TypeScript expression.
    fn value(&self, t: &Ty, depth: u32) -> String {
        if depth > 12 {
            return "null as never".into();
        }
        match &t.kind {
            TyKind::String(..) => "''".into(),
            TyKind::Int(..) | TyKind::Number(_) => "0".into(),
            TyKind::Boolean => "false".into(),
            TyKind::Unknown => "null".into(),
            TyKind::Literal(_) => self.ty(t),
            TyKind::Array(..) => "[]".into(),
            TyKind::Map(_) => "{}".into(),
            TyKind::Nullable(_) => "null".into(),
            TyKind::Ref(r) => match self.m.locate(r) {
                Some((dm, d)) if std::ptr::eq(dm, self.m) => self.def_value(d, depth + 1),
                _ => "null as never".into(),
            },
        }
    }

    fn def_value(&self, d: &TypeDef, depth: u32) -> String {
        match &d.kind {
            TypeDefKind::Alias(t) => self.value(t, depth),
            TypeDefKind::Struct(s) => self.object(&s.fields, None, depth),
            TypeDefKind::Enum(e) => match e.values.first().map(|v| &v.value) {
                Some(EnumLit::Str(s)) => js(s),
                Some(EnumLit::Int { value, .. }) => value.to_string(),
                None if e.is_int() => "0".into(),
                None => "''".into(),
            },
            TypeDefKind::Union(u) => {
                let Some(v) = u.variants.first() else {
                    return "null as never".into();
                };
                match (&u.tag, &v.ty.kind) {
                    (UnionTag::Tagged { field, .. }, TyKind::Ref(r)) => {
                        let fields = match self.m.locate(r).map(|(_, d)| &d.kind) {
                            Some(TypeDefKind::Struct(s)) => &s.fields[..],
                            _ => &[],
                        };
                        let tag = (field.as_str(), v.tag.clone().unwrap_or_default());
                        self.object(fields, Some(tag), depth)
                    }
                    _ => self.value(&v.ty, depth),
                }
            }
        }
    }

    /// An object literal of the fields the type requires (a defaulted field is required in
    /// the schema's output type), a tag first; `set` writes one field with another value.
    fn object(
        &self,
        fields: &[contracts_codegen::model::Field],
        tag: Option<(&str, String)>,
        depth: u32,
    ) -> String {
        self.object_with(fields, tag, depth, None)
    }

    fn object_with(
        &self,
        fields: &[contracts_codegen::model::Field],
        tag: Option<(&str, String)>,
        depth: u32,
        set: Option<(usize, &str)>,
    ) -> String {
        let mut parts = Vec::new();
        if let Some((k, v)) = tag {
            parts.push(format!("{}: {}", js(k), js(&v)));
        }
        for (j, f) in fields.iter().enumerate() {
            if f.optional && f.default.is_none() {
                continue;
            }
            let value = match set {
                Some((k, v)) if k == j => v.to_string(),
                _ => self.value(&f.ty, depth),
            };
            parts.push(format!("{}: {}", js(&f.name), value));
        }
        format!("{{ {} }}", parts.join(", "))
    }

    /// Every value of a closed enum `t` names (through aliases), as TypeScript literals.
    fn every_value(&self, t: &Ty) -> Vec<String> {
        let t = self.m.unalias(t);
        let TyKind::Ref(r) = &t.kind else {
            return Vec::new();
        };
        match self.m.locate(r) {
            Some((dm, d)) if std::ptr::eq(dm, self.m) => match &d.kind {
                TypeDefKind::Enum(e) if !self.open.contains(&d.name) => e
                    .values
                    .iter()
                    .map(|v| match &v.value {
                        EnumLit::Str(s) => js(s),
                        EnumLit::Int { value, .. } => value.to_string(),
                    })
                    .collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn write(mut self, pkg: &str) -> String {
        let m = self.m;
        let _ = writeln!(
            self.out,
            "// Written against the base's package.\nimport * as root from '{pkg}/index.js';"
        );
        let mut modules: Vec<&str> = m.types.iter().filter_map(|t| t.module.as_deref()).collect();
        modules.sort_unstable();
        modules.dedup();
        for md in &modules {
            let _ = writeln!(self.out, "import * as m_{md} from '{pkg}/{md}.js';");
        }
        self.out.push('\n');
        for (i, t) in m.types.iter().enumerate() {
            let name = format!("{}.{}", ns(t), t.name);
            let mut body = String::new();
            match &t.kind {
                TypeDefKind::Alias(a) => {
                    let _ = writeln!(
                        body,
                        "export const v{i} = {} satisfies {name};",
                        self.value(a, 0)
                    );
                    let _ = writeln!(
                        body,
                        "export function r{i}(v: {name}): void {{ const x: {} = v; void x; }}",
                        self.ty(a)
                    );
                }
                TypeDefKind::Struct(s) => {
                    let _ = writeln!(
                        body,
                        "export const v{i} = {} satisfies {name};",
                        self.object(&s.fields, None, 0)
                    );
                    // Each value of a closed enum written at its field: a part of them no
                    // longer accepted there is a narrowed type.
                    for (j, f) in s.fields.iter().enumerate() {
                        if f.optional && f.default.is_none() {
                            continue;
                        }
                        for (k, value) in self.every_value(&f.ty).iter().enumerate() {
                            let _ = writeln!(
                                body,
                                "export const v{i}_{j}_{k} = {} satisfies {name};",
                                self.object_with(&s.fields, None, 0, Some((j, value)))
                            );
                        }
                    }
                    let _ = writeln!(body, "export function r{i}(v: {name}): void {{");
                    for (j, f) in s.fields.iter().enumerate() {
                        let mut ty = self.ty(&f.ty);
                        if f.optional && f.default.is_none() {
                            ty = format!("({ty}) | undefined");
                        }
                        let _ = writeln!(
                            body,
                            "    const f{j}: {ty} = v[{}]; void f{j};",
                            js(&f.name)
                        );
                    }
                    if s.rest.is_some() {
                        let _ = writeln!(
                            body,
                            "    const other: unknown = v['zz-another-key']; void other;"
                        );
                    }
                    body.push_str("}\n");
                }
                TypeDefKind::Enum(e) => {
                    let open = self.open.contains(&t.name);
                    let cases: Vec<String> = e
                        .values
                        .iter()
                        .map(|v| match &v.value {
                            EnumLit::Str(s) => js(s),
                            EnumLit::Int { value, .. } => value.to_string(),
                        })
                        .collect();
                    let _ = writeln!(
                        body,
                        "export function s{i}(v: {name}): number {{\n    switch (v) {{"
                    );
                    for (j, c) in cases.iter().enumerate() {
                        let _ = writeln!(body, "        case {c}: return {j};");
                    }
                    if open {
                        body.push_str("        default: return -1;\n    }\n}\n");
                        let other = if e.is_int() {
                            "987654"
                        } else {
                            "'zz-unlisted'"
                        };
                        let _ = writeln!(body, "export const o{i}: {name} = {other};");
                    } else {
                        body.push_str(
                            "        default: { const n: never = v; return n; }\n    }\n}\n",
                        );
                        let entries: Vec<String> =
                            cases.iter().map(|c| format!("[{c}]: 0")).collect();
                        let _ = writeln!(
                            body,
                            "export const k{i}: Record<{name}, 0> = {{ {} }};",
                            entries.join(", ")
                        );
                    }
                    for (j, v) in e.values.iter().enumerate() {
                        if let EnumLit::Int { name: key, value } = &v.value {
                            let _ = writeln!(
                                body,
                                "export const n{i}_{j}: {value} = {}.{}.{key};",
                                ns(t),
                                t.name
                            );
                        }
                    }
                }
                TypeDefKind::Union(u) => match &u.tag {
                    UnionTag::Tagged { field, .. } => {
                        let _ = writeln!(
                            body,
                            "export function s{i}(v: {name}): number {{\n    const t = v[{}];\n    switch (t) {{",
                            js(field)
                        );
                        for (j, v) in u.variants.iter().enumerate() {
                            let tag = v.tag.clone().unwrap_or_default();
                            let _ = writeln!(body, "        case {}: return {j};", js(&tag));
                        }
                        body.push_str(
                            "        default: { const n: never = t; return n; }\n    }\n}\n",
                        );
                        let _ = writeln!(
                            body,
                            "export const v{i} = {} satisfies {name};",
                            self.def_value(t, 0)
                        );
                    }
                    UnionTag::Untagged => {
                        let held: Vec<String> = u.variants.iter().map(|v| self.ty(&v.ty)).collect();
                        let _ = writeln!(
                            body,
                            "export function r{i}(v: {name}): void {{ const x: {} = v; void x; }}",
                            held.join(" | ")
                        );
                        let _ = writeln!(
                            body,
                            "export const v{i}: {name} = {};",
                            self.def_value(t, 0)
                        );
                    }
                },
            }
            let _ = writeln!(self.out, "// {}\n{body}", t.name);
        }
        for (i, k) in m.consts.iter().enumerate() {
            let lit = self.ty(&Ty {
                kind: TyKind::Literal(k.value.clone()),
                loc: k.loc.clone(),
            });
            let _ = writeln!(self.out, "export const c{i}: {lit} = root.{};", k.name);
        }
        let tp = format!("{}{}", &PREFIX[..1], PREFIX[1..].to_lowercase());
        for (what, names) in [
            (
                "Request",
                m.requests.iter().map(|r| &r.name).collect::<Vec<_>>(),
            ),
            ("Event", m.events.iter().map(|e| &e.name).collect()),
        ] {
            if names.is_empty() {
                continue;
            }
            let entries: Vec<String> = names.iter().map(|n| format!("{}: 0", js(n))).collect();
            let _ = writeln!(
                self.out,
                "export const t{what}: Record<root.{tp}{what}Type, 0> = {{ {} }};",
                entries.join(", ")
            );
        }
        self.out
    }
}

/// One case of the corpus, loaded and judged.
struct Case {
    name: String,
    base: Checked,
    head: Checked,
    /// The TypeScript-source notes compat gives (`rule: reason`); none means it is kept.
    breaks: Vec<String>,
}

fn ident(case: &str) -> String {
    case.replace('-', "_")
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
    }
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// Every error tsc reported, by the file it is in (relative to `root`).
fn tsc(root: &Path, tsc: &Path) -> BTreeMap<String, Vec<String>> {
    let out = Command::new(tsc)
        .current_dir(root)
        .args(["-p", "tsconfig.json", "--pretty", "false"])
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", tsc.display()));
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        let Some((file, _)) = line.split_once('(') else {
            continue;
        };
        if line.contains(": error TS") {
            errors
                .entry(file.trim().to_string())
                .or_default()
                .push(line.to_string());
        }
    }
    errors
}

#[test]
fn compatible_changes_keep_typescript_source_exactly_when_compat_says_so() {
    let bindings = repo().join("bindings/agent-contracts");
    // The repository's workspace install (`npm ci` at the root) holds zod and tsc.
    let node_modules = repo().join("node_modules");
    let tsc_bin = node_modules.join(".bin/tsc");
    if !tsc_bin.exists() {
        eprintln!(
            "compat_ts: {} is missing; run `npm ci` at the repository's root (its committed lock) to type-check the corpus",
            tsc_bin.display()
        );
        return;
    }
    let mut failures = Vec::new();
    let mut loaded = Vec::new();
    for dir in cases() {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !name.ends_with("-ok") {
            continue;
        }
        let (base, head) = match load_case(&dir, &name) {
            Ok(pair) => pair,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        if base.files.is_empty() {
            continue;
        }
        let findings = compat::diff(&base, &head);
        let mut breaks: Vec<String> = compat::ts_source(&findings)
            .into_iter()
            .map(|(f, why)| format!("{}: {why}", f.rule.id))
            .collect();
        breaks.dedup();
        loaded.push(Case {
            name,
            base,
            head,
            breaks,
        });
    }
    assert!(loaded.len() >= 20, "the compatible cases are missing");
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compat-ts");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{e}"));
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink(&node_modules, root.join("node_modules"));
    }
    let runtime = bindings.join("src/runtime/index.ts");
    write(
        &root.join("tsconfig.json"),
        &serde_json::json!({
            "compilerOptions": {
                "strict": true,
                "noEmit": true,
                "target": "es2022",
                "module": "esnext",
                "moduleResolution": "bundler",
                "skipLibCheck": true,
                "types": [],
                "paths": { "@adecore/agent-contracts/runtime": [runtime.display().to_string()] },
            },
            "include": ["u/*.ts"],
        })
        .to_string(),
    );
    for c in &loaded {
        let id = ident(&c.name);
        for (side, m) in [("base", &c.base), ("head", &c.head)] {
            if m.files.is_empty() {
                continue;
            }
            let opts = TsOptions::new(&format!("@case/{id}-{side}"), PREFIX);
            for f in typescript::emit(m, &opts) {
                write(&root.join(&id).join(side).join(&f.path), &f.contents);
            }
        }
        let base = &c.base;
        let usage = Usage {
            m: base.model(),
            open: base
                .types
                .iter()
                .filter(|t| match &t.kind {
                    TypeDefKind::Enum(e) => e.open || base.may_grow(t),
                    _ => false,
                })
                .map(|t| t.name.clone())
                .collect(),
            out: String::new(),
        };
        let code = usage.write("PKG");
        for side in ["base", "head"] {
            let text = code.replace("'PKG/", &format!("'../{id}/{side}/src/"));
            write(&root.join(format!("u/{id}_{side}.ts")), &text);
        }
    }
    let errors = tsc(&root, &tsc_bin);
    let mut table = String::from("case | TypeScript source (compat) | head type-checks\n");
    for c in &loaded {
        let id = ident(&c.name);
        let package: Vec<&String> = errors
            .iter()
            .filter(|(f, _)| f.starts_with(&format!("{id}/")))
            .flat_map(|(_, e)| e)
            .collect();
        let defect = PACKAGE_DEFECTS.iter().find(|(n, _)| *n == c.name);
        match (defect, package.is_empty()) {
            (Some((_, why)), false) => {
                let _ = writeln!(table, "{} | package defect: {why} | -", c.name);
                continue;
            }
            (Some(_), true) => {
                failures.push(format!(
                    "{}: its package type-checks now; take it off PACKAGE_DEFECTS",
                    c.name
                ));
                continue;
            }
            _ => {}
        }
        if !package.is_empty() {
            failures.push(format!(
                "{}: the generated package does not type-check:\n{}",
                c.name,
                package
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            ));
            continue;
        }
        let of = |side: &str| {
            errors
                .get(&format!("u/{id}_{side}.ts"))
                .cloned()
                .unwrap_or_default()
        };
        let base = of("base");
        if !base.is_empty() {
            failures.push(format!(
                "{}: the usage written from base does not type-check against base:\n{}",
                c.name,
                base.join("\n")
            ));
            continue;
        }
        if c.head.files.is_empty() {
            continue;
        }
        let head = of("head");
        let compiles = head.is_empty();
        let kept = c.breaks.is_empty();
        let said = if kept {
            "kept".to_string()
        } else {
            format!("breaks ({})", c.breaks.join("; "))
        };
        let _ = writeln!(table, "{} | {said} | {compiles}", c.name);
        if kept && !compiles {
            failures.push(format!(
                "{}: compat says TypeScript source is kept, but code written against base does not type-check against head:\n{}",
                c.name,
                head.join("\n")
            ));
        } else if !kept && compiles {
            failures.push(format!(
                "{}: compat says TypeScript source breaks ({}), but code written against base type-checks against head",
                c.name,
                c.breaks.join("; ")
            ));
        }
    }
    eprintln!("{table}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
