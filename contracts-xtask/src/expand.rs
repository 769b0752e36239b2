//! `cargo xtask expand PROTOCOL [--base NAME=DIR]...`: what `protocol!` writes for a protocol,
//! formatted by prettyplease, on stdout.
//!
//! PROTOCOL is a protocol the project declares (loaded on its bases, as `codegen` loads it) or
//! a schema directory (loaded on the `--base` protocols, as `check` loads one). The tokens are
//! the macro's own ([`contracts_codegen::emit::rust::expansion`]), with its default runtime
//! path (`::contracts::__private`); a base protocol's module is the one the project names
//! with `rust_module`, else the runtime's (`::contracts::agent`).

use crate::Project;
use crate::check::resolve;
use contracts_codegen::analysis::Checked;
use contracts_codegen::emit::rust::{RustOptions, expansion, format};
use contracts_codegen::load::{LoadOptions, load_dir};
use contracts_codegen::model::Model;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// Prints the expansion of `protocol` (a declared name or a directory) on `bases`.
pub(crate) fn run(project: &Project, root: &Path, protocol: &str, bases: &[String]) -> ExitCode {
    match expand(project, root, protocol, bases) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err((code, message)) => {
            eprintln!("{message}");
            ExitCode::from(code)
        }
    }
}

/// An exit code (2: usage, 1: a schema that fails its checks) and what went wrong.
type Failure = (u8, String);

/// The formatted expansion, or why there is none.
fn expand(
    project: &Project,
    root: &Path,
    protocol: &str,
    bases: &[String],
) -> Result<String, Failure> {
    let declared = project.specs.iter().any(|s| s.name == protocol);
    let (checked, schema_dir, base_names) = if declared {
        if !bases.is_empty() {
            return Err((
                2,
                format!(
                    "error: `{protocol}` is a protocol of the project: it has its own bases, `--base` is for a directory"
                ),
            ));
        }
        let protocols = project.load(root).map_err(|e| (1, e))?;
        let p = protocols.get(protocol);
        let spec = project.specs.iter().find(|s| s.name == protocol);
        let base_names = spec.map(|s| s.bases.clone()).unwrap_or_default();
        (p.model.clone(), p.dir.clone(), base_names)
    } else {
        let dir = resolve(root, Path::new(protocol));
        if !dir.is_dir() {
            let names: Vec<&str> = project.specs.iter().map(|s| s.name.as_str()).collect();
            return Err((
                2,
                format!(
                    "error: `{protocol}` is neither a protocol of the project ({}) nor a schema directory",
                    names.join(", ")
                ),
            ));
        }
        let (loaded, base_names) = load_bases(root, bases)?;
        let options = LoadOptions {
            name: None,
            bases: loaded,
            display_root: Some(root.to_path_buf()),
        };
        let model = load_dir(&dir, &options).map_err(|e| {
            (
                1,
                format!("{}error: {protocol} fails its checks", e.render()),
            )
        })?;
        (Arc::new(Checked::new(model)), dir, base_names)
    };
    let mut options = RustOptions::default();
    for b in base_names {
        let module = match project.modules.get(&b) {
            Some(path) => format!("::{path}"),
            None => format!("::contracts::{b}"),
        };
        options.bases.insert(b, module);
    }
    let schema_dir = std::path::absolute(&schema_dir).unwrap_or(schema_dir);
    let tokens = expansion(&checked, &options, &schema_dir.to_string_lossy());
    Ok(format(tokens))
}

/// The `--base NAME=DIR` protocols, loaded in the order given (each on those before it), and
/// their names.
fn load_bases(root: &Path, bases: &[String]) -> Result<(Vec<Arc<Model>>, Vec<String>), Failure> {
    let mut loaded: Vec<Arc<Model>> = Vec::new();
    let mut names = Vec::new();
    let mut seen = BTreeSet::new();
    for spec in bases {
        let Some((name, path)) = spec
            .split_once('=')
            .filter(|(n, p)| !n.is_empty() && !p.is_empty())
        else {
            return Err((
                2,
                format!(
                    "error: `--base {spec}`: expected NAME=DIR, e.g. `--base agent=schema/agent`"
                ),
            ));
        };
        if !seen.insert(name) {
            return Err((2, format!("error: `--base {name}=...` is given twice")));
        }
        let options = LoadOptions {
            name: Some(name.to_owned()),
            bases: loaded.clone(),
            display_root: Some(root.to_path_buf()),
        };
        let model = load_dir(&resolve(root, Path::new(path)), &options).map_err(|e| {
            (
                1,
                format!(
                    "{}error: the base protocol `{name}` does not pass its checks",
                    e.render()
                ),
            )
        })?;
        loaded.push(Arc::new(model));
        names.push(name.to_owned());
    }
    Ok((loaded, names))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A project of two protocols in a fresh directory: `base`, and `app` on it.
    fn project(tag: &str) -> (PathBuf, Project) {
        let tmp = std::env::temp_dir().join(format!("xtask-expand-{tag}-{}", std::process::id()));
        let write = |path: &str, text: &str| {
            let p = tmp.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("base/a.contract", "type Id = string(min = 1);\n");
        write(
            "app/b.contract",
            "use base::{Id};\n/// A document.\nstruct Doc { id: Id, title?: string }\n",
        );
        let project =
            Project::new(&tmp)
                .protocol("base", "base", &[])
                .protocol("app", "app", &["base"]);
        (tmp, project)
    }

    #[test]
    fn a_declared_protocol_expands_on_its_bases_formatted() {
        let (tmp, project) = project("declared");
        let text = expand(&project, &tmp, "app", &[]).unwrap();
        // The macro's items, as prettyplease lays them out.
        assert!(text.contains("/// A document.\n"), "{text}");
        assert!(text.contains("pub struct Doc {\n"), "{text}");
        assert!(text.contains("pub const __SCHEMA_DIR: &str"), "{text}");
        assert!(text.contains("::core::include_str!("), "{text}");
        // The base's type by its module: the runtime's, unless the project names one.
        assert!(text.contains("::contracts::base::Id"), "{text}");
        let named = project.rust_module("base", "base_crate::base");
        let text = expand(&named, &tmp, "app", &[]).unwrap();
        assert!(text.contains("::base_crate::base::Id"), "{text}");
        let _ = std::fs::remove_dir_all(tmp);
    }

    #[test]
    fn a_directory_expands_on_the_bases_given() {
        let (tmp, project) = project("dir");
        let app = tmp.join("app").display().to_string();
        let base = format!("base={}", tmp.join("base").display());
        let text = expand(&project, &tmp, &app, &[base]).unwrap();
        assert!(text.contains("pub struct Doc {\n"), "{text}");
        // Without its base the directory fails its checks.
        let (code, message) = expand(&project, &tmp, &app, &[]).unwrap_err();
        assert_eq!(code, 1);
        assert!(message.contains("unknown protocol `base`"), "{message}");
        let _ = std::fs::remove_dir_all(tmp);
    }

    #[test]
    fn a_name_that_is_nothing_is_a_usage_error_listing_the_protocols() {
        let (tmp, project) = project("none");
        let (code, message) = expand(&project, &tmp, "nope", &[]).unwrap_err();
        assert_eq!(code, 2);
        assert!(
            message.contains("`nope`") && message.contains("base, app"),
            "{message}"
        );
        let (code, message) = expand(&project, &tmp, "app", &["x=y".into()]).unwrap_err();
        assert_eq!(code, 2, "{message}");
        let _ = std::fs::remove_dir_all(tmp);
    }
}
