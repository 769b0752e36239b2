//! Tests through data: every `tests/fixtures/<case>/` holds a `schema/` directory (and, for an
//! app, `bases/<name>/` directories loaded first as its base protocols) and the expected
//! outputs beside it.
//!
//! Each output kind is one function in [`OUTPUTS`]: it gets the loaded case and returns the
//! text expected in its file, or `None` when the kind does not apply (no Rust for a schema that
//! fails). Add a kind by adding a function. `UPDATE_EXPECT=1 cargo test -p adecore-contracts-codegen
//! --test fixtures` rewrites every expected file (expect-test); otherwise a difference fails
//! with a diff.

use contracts_codegen::load::{LoadError, LoadOptions, load_dir, load_files};
use contracts_codegen::model::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A loaded fixture.
pub struct Case {
    pub name: String,
    pub dir: PathBuf,
    pub result: Result<Model, LoadError>,
}

/// Makes one output kind's text for a case, or `None` when it does not apply.
type Output = fn(&Case) -> Option<String>;

/// Every output kind: the file it is compared with, and how to make it.
const OUTPUTS: &[(&str, Output)] = &[("expected.txt", expected_txt), ("expected.rs", expected_rs)];

/// The Rust the macro would emit for a passing case (bases generated at `crate::<name>`).
fn expected_rs(case: &Case) -> Option<String> {
    let model = case.result.as_ref().ok()?;
    let mut options = contracts_codegen::emit::rust::RustOptions::default();
    for base in &model.bases {
        options
            .bases
            .insert(base.name.clone(), format!("crate::{}", base.name));
    }
    let checked = contracts_codegen::analysis::Checked::new(model.clone());
    Some(contracts_codegen::emit::rust::emit_pretty(
        &checked, &options,
    ))
}

/// The rendered diagnostics of a failing case, or a dump of the model of a passing one.
fn expected_txt(case: &Case) -> Option<String> {
    Some(match &case.result {
        Ok(model) => dump(model),
        Err(e) => e.render(),
    })
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Load every case, sorted by name.
fn cases() -> Vec<Case> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("schema").is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter().map(load_case).collect()
}

/// Load one case: its bases first (each `bases/<name>/`, in name order), then `schema/` as the
/// protocol `demo`. Paths are shown relative to the case directory.
pub fn load_case(dir: PathBuf) -> Case {
    let bases = load_bases(&dir);
    let options = LoadOptions {
        name: Some("demo".into()),
        bases,
        display_root: Some(dir.clone()),
    };
    let result = load_dir(&dir.join("schema"), &options);
    Case {
        name: dir.file_name().unwrap().to_string_lossy().into_owned(),
        dir,
        result,
    }
}

/// The base protocols of a case: each `bases/<name>/`, in name order, each building on the
/// ones before it.
fn load_bases(dir: &Path) -> Vec<Arc<Model>> {
    let mut bases = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir.join("bases")) {
        let mut base_dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        base_dirs.sort();
        for b in base_dirs {
            let options = LoadOptions {
                display_root: Some(dir.to_path_buf()),
                bases: bases.clone(),
                ..Default::default()
            };
            match load_dir(&b, &options) {
                Ok(m) => bases.push(Arc::new(m)),
                Err(e) => panic!(
                    "the base {} of {} does not load:\n{}",
                    b.display(),
                    dir.display(),
                    e.render()
                ),
            }
        }
    }
    bases
}

#[test]
fn fixtures() {
    let cases = cases();
    assert!(!cases.is_empty(), "no fixtures found");
    for case in &cases {
        for (file, make) in OUTPUTS {
            if let Some(actual) = make(case) {
                // A difference fails with a diff; `UPDATE_EXPECT=1` rewrites the file.
                expect_test::expect_file![case.dir.join(file)].assert_eq(&actual);
            }
        }
    }
}

/// Fixtures whose name starts with `pass-` load; every other one fails.
#[test]
fn fixture_verdicts() {
    for case in cases() {
        let passes = case.name.starts_with("pass-");
        assert_eq!(
            case.result.is_ok(),
            passes,
            "{}: {}",
            case.name,
            case.result
                .as_ref()
                .err()
                .map(|e| e.render())
                .unwrap_or_default()
        );
    }
}

/// `load_files` and `load_dir` agree: same files, same model or same diagnostics.
#[test]
fn load_files_matches_load_dir() {
    for case in cases() {
        let mut files = Vec::new();
        collect(&case.dir.join("schema"), &case.dir, &mut files);
        if files.is_empty() {
            continue;
        }
        let options = LoadOptions {
            bases: load_bases(&case.dir),
            ..Default::default()
        };
        let again = load_files("demo", files, &options);
        let render = |r: &Result<Model, LoadError>| match r {
            Ok(m) => dump(m),
            Err(e) => e.render(),
        };
        assert_eq!(render(&again), render(&case.result), "{}", case.name);
    }
}

fn collect(dir: &Path, root: &Path, out: &mut Vec<SourceFile>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, root, out);
        } else if p.extension().is_some_and(|x| x == "contract") {
            let display = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            out.push(SourceFile {
                display: display.into(),
                absolute: p.clone(),
                text: std::fs::read_to_string(&p).unwrap(),
            });
        }
    }
}

/// No input makes the front end panic: every fixture file cut short at many places, and
/// random token soup.
#[test]
fn garbage_never_panics() {
    let mut texts = Vec::new();
    for case in cases() {
        let mut files = Vec::new();
        collect(&case.dir.join("schema"), &case.dir, &mut files);
        for f in files {
            let cuts: Vec<usize> = f.text.char_indices().map(|(i, _)| i).step_by(3).collect();
            for i in cuts {
                texts.push(f.text[..i].to_owned());
            }
            texts.push(f.text.replace(['{', '}'], ""));
            texts.push(f.text.replace([',', ';'], ""));
            texts.push(f.text.replace(':', "::"));
        }
    }
    let alphabet = [
        "struct",
        "enum",
        "union",
        "type",
        "use",
        "requests",
        "events",
        "tag",
        "untagged",
        "{",
        "}",
        "[",
        "]",
        "(",
        ")",
        "<",
        ">",
        ",",
        ";",
        ":",
        "::",
        "?",
        "=",
        "=>",
        "->",
        "|",
        "null",
        "..",
        "..=",
        "-",
        "#",
        "!",
        "\"a\"",
        "A",
        "b",
        "string",
        "int",
        "map",
        "1",
        "-9999999999999999999999",
        "1.5",
        "/// d\n",
        "// c\n",
        "#[open]",
        "\"",
        "'",
        "é",
        "\u{0}",
        "r#type",
        "*",
        "agent",
        "0x10",
        "1e400",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..3000 {
        let mut s = String::new();
        for _ in 0..(seed % 40) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
            s.push(' ');
        }
        texts.push(s);
    }
    for text in texts {
        let file = SourceFile {
            display: "g.contract".into(),
            absolute: "g.contract".into(),
            text: text.clone(),
        };
        let r = std::panic::catch_unwind(|| {
            load_files("demo", vec![file], &LoadOptions::default())
                .map(|m| dump(&m))
                .map_err(|e| e.render())
        });
        assert!(r.is_ok(), "panicked on:\n{text}");
    }
}

/// `load_files` finds modules from display paths alone, also for a module named like the
/// protocol and for files that all sit in a module.
#[test]
fn load_files_modules() {
    let file = |display: &str| SourceFile {
        display: display.into(),
        absolute: display.into(),
        text: "struct A { x: int }".into(),
    };
    let module = |files: Vec<SourceFile>| {
        let names: Vec<String> = files.iter().map(|f| f.display.to_string()).collect();
        let mut out = Vec::new();
        for (i, f) in files.into_iter().enumerate() {
            let text = format!("struct T{i} {{ x: int }}");
            out.push(SourceFile { text, ..f });
        }
        let m = load_files("agent", out, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}", e.render()));
        names
            .into_iter()
            .zip(m.types.iter().map(|t| t.module.clone()))
            .collect::<Vec<_>>()
    };
    let got = module(vec![
        file("schema/agent/a.contract"),
        file("schema/agent/agent/t.contract"),
    ]);
    assert_eq!(got[1].1.as_deref(), Some("agent"), "{got:?}");
    let got = module(vec![file("schema/agent/task/x.contract")]);
    assert_eq!(got[0].1.as_deref(), Some("task"), "{got:?}");
    let got = module(vec![
        file("/home/agent/w/schema/agent/a.contract"),
        file("/home/agent/w/schema/agent/task/b.contract"),
    ]);
    assert_eq!(
        (got[0].1.as_deref(), got[1].1.as_deref()),
        (None, Some("task")),
        "{got:?}"
    );
}

/// A missing or empty directory is a diagnostic, not a panic.
#[test]
fn missing_directory_is_an_error() {
    let e = load_dir(Path::new("/no/such/schema/dir"), &LoadOptions::default()).unwrap_err();
    assert!(e.render().contains("does not exist"), "{}", e.render());
    let e = load_files("demo", Vec::new(), &LoadOptions::default()).unwrap_err();
    assert!(e.render().contains("no `.contract` file"), "{}", e.render());
}

// ---------------------------------------------------------------------------------------------
// The model dump: a stable, Debug-free summary of everything the front end produced.

/// The model as text: one line per declaration, field, value, variant and table entry.
pub fn dump(m: &Model) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "protocol {}", m.name);
    for b in &m.bases {
        let _ = writeln!(out, "base {}", b.name);
    }
    for f in &m.files {
        let _ = writeln!(out, "file {}", f.display);
    }
    for i in &m.imports {
        let names: Vec<&str> = i.names.iter().map(|(n, _)| n.as_str()).collect();
        let what = if i.glob {
            "*".to_owned()
        } else {
            format!("{{{}}}", names.join(", "))
        };
        let _ = writeln!(out, "use {}::{what}  @{}", i.protocol, i.loc);
    }
    for k in &m.consts {
        docs(&mut out, "", &k.docs);
        meta(&mut out, "", &k.meta);
        let value = show(&Ty {
            kind: TyKind::Literal(k.value.clone()),
            loc: k.loc.clone(),
        });
        let _ = writeln!(out, "const {} = {value}  @{}", k.name, k.loc);
    }
    for t in &m.types {
        out.push('\n');
        docs(&mut out, "", &t.docs);
        meta(&mut out, "", &t.meta);
        let mut flags = String::new();
        if let Some(module) = &t.module {
            let _ = write!(flags, " [module {module}]");
        }
        if t.synthetic {
            flags.push_str(" [synthetic]");
        }
        match &t.kind {
            TypeDefKind::Alias(ty) => {
                let _ = writeln!(out, "type {} = {}{flags}  @{}", t.name, show(ty), t.loc);
            }
            TypeDefKind::Struct(s) => {
                let _ = writeln!(out, "struct {}{flags}  @{}", t.name, t.loc);
                for i in &s.includes {
                    let _ = writeln!(
                        out,
                        "  ...{} ({} fields)  @{}",
                        show(&Ty {
                            kind: TyKind::Ref(i.ty.clone()),
                            loc: i.loc.clone()
                        }),
                        i.fields,
                        i.loc
                    );
                }
                if let Some(r) = &s.rest {
                    docs(&mut out, "  ", &r.docs);
                    let _ = writeln!(out, "  ..: {}  @{}", show(&r.ty), r.loc);
                }
                for f in &s.fields {
                    docs(&mut out, "  ", &f.docs);
                    meta(&mut out, "  ", &f.meta);
                    let opt = if f.optional { "?" } else { "" };
                    let default = f
                        .default
                        .as_ref()
                        .map(|d| format!(" = {d}"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        out,
                        "  {:?}{opt}: {}{default}  @{}",
                        f.name,
                        show(&f.ty),
                        f.loc
                    );
                }
            }
            TypeDefKind::Enum(e) => {
                let open = if e.open { " [open]" } else { "" };
                let _ = writeln!(out, "enum {}{open}{flags}  @{}", t.name, t.loc);
                for v in &e.values {
                    docs(&mut out, "  ", &v.docs);
                    meta(&mut out, "  ", &v.meta);
                    let _ = match &v.value {
                        EnumLit::Str(s) => writeln!(out, "  {s:?}  @{}", v.loc),
                        EnumLit::Int { name, value } => {
                            writeln!(out, "  {name} = {value}  @{}", v.loc)
                        }
                    };
                }
            }
            TypeDefKind::Union(u) => {
                let how = match &u.tag {
                    UnionTag::Tagged { field, loc } => format!("tag {field:?} @{loc}"),
                    UnionTag::Untagged => "untagged".to_owned(),
                };
                let _ = writeln!(out, "union {} {how}{flags}  @{}", t.name, t.loc);
                for v in &u.variants {
                    docs(&mut out, "  ", &v.docs);
                    meta(&mut out, "  ", &v.meta);
                    let tag = v
                        .tag
                        .as_ref()
                        .map(|t| format!("{t:?} => "))
                        .or_else(|| v.name.as_ref().map(|n| format!("{n}: ")))
                        .unwrap_or_default();
                    let _ = writeln!(out, "  {tag}{}  @{}", show(&v.ty), v.loc);
                }
            }
        }
    }
    for r in &m.requests {
        out.push('\n');
        docs(&mut out, "", &r.docs);
        meta(&mut out, "", &r.meta);
        let _ = writeln!(
            out,
            "request {:?}: {} -> {}  @{}",
            r.name,
            show(&r.payload),
            show(&r.result),
            r.loc
        );
    }
    for e in &m.events {
        out.push('\n');
        docs(&mut out, "", &e.docs);
        meta(&mut out, "", &e.meta);
        let _ = writeln!(out, "event {:?}: {}  @{}", e.name, show(&e.payload), e.loc);
    }
    out
}

fn docs(out: &mut String, indent: &str, docs: &Docs) {
    for l in &docs.0 {
        let _ = writeln!(out, "{indent}/// {l}");
    }
}

fn meta(out: &mut String, indent: &str, m: &Meta) {
    if let Some(d) = &m.deprecated {
        let _ = writeln!(out, "{indent}#[deprecated = {d:?}]");
    }
    if m.legacy {
        let _ = writeln!(out, "{indent}#[legacy]");
    }
    if let Some(d) = &m.direction {
        let _ = writeln!(out, "{indent}#[direction = {d:?}]");
    }
    if let Some(a) = &m.accepts {
        let _ = writeln!(out, "{indent}#[accepts = {a:?}]");
    }
}

fn limits<T: std::fmt::Display>(l: &Limits<T>) -> String {
    match (&l.min, &l.max) {
        (None, None) => String::new(),
        (Some(a), None) => format!("(min = {a})"),
        (None, Some(b)) => format!("(max = {b})"),
        (Some(a), Some(b)) => format!("(min = {a}, max = {b})"),
    }
}

/// A type expression, written back in schema syntax.
fn show(t: &Ty) -> String {
    match &t.kind {
        TyKind::String(l, None) => format!("string{}", limits(l)),
        TyKind::String(l, Some(f)) => format!("string[{}]{}", f.name(), limits(l)),
        TyKind::Boolean => "boolean".to_owned(),
        TyKind::Int(l, w) => format!("{}{}", w.name(), limits(l)),
        TyKind::Number(l) => format!("number{}", limits(l)),
        TyKind::Unknown => "unknown".to_owned(),
        TyKind::Literal(Literal::String(s)) => format!("{s:?}"),
        TyKind::Literal(Literal::Bool(b)) => b.to_string(),
        TyKind::Literal(Literal::Int(i)) => i.to_string(),
        TyKind::Literal(Literal::Null) => "null".to_owned(),
        TyKind::Array(i, l) => format!("[{}]{}", show(i), limits(l)),
        TyKind::Map(v) => format!("map<{}>", show(v)),
        TyKind::Ref(TypeRef {
            name,
            protocol: Some(p),
        }) => format!("{p}::{name}"),
        TyKind::Ref(TypeRef {
            name,
            protocol: None,
        }) => name.clone(),
        TyKind::Nullable(i) => format!("{} | null", show(i)),
    }
}
