//! The xtask an app is made of: its `main` is a few lines of configuration, and it gets the
//! commands this repository's own xtask has.
//!
//! ```text
//! cargo xtask codegen [--check]      regenerate the app's generated files; --check: fail if stale
//! cargo xtask check [DIR]            parse and check the schema directories, print diagnostics
//! cargo xtask compat [--base REV] [--format text|json] [--acknowledged FILE]
//!                                    judge the schema's change since REV (exit 1 if it breaks)
//! cargo xtask compat --bless         publish the working tree's schema as the baseline
//! cargo xtask validate --as KIND [--type NAME]
//!                                    read JSON lines on stdin, one verdict line each
//! cargo xtask expand PROTOCOL        print what `protocol!` writes for it, formatted
//! ```
//!
//! ```no_run
//! use contracts_codegen::emit::typescript::{BasePackage, TsOptions};
//! use contracts_xtask::Project;
//!
//! fn main() -> std::process::ExitCode {
//!     let mut ts = TsOptions::new("@acme/notes-contracts", "NOTES");
//!     ts.base_packages.insert(
//!         "agent".into(),
//!         BasePackage::new("@adecore/agent-contracts", "AGENT", "^0.1.0"),
//!     );
//!     Project::new(env!("CARGO_MANIFEST_DIR"))
//!         // A protocol the app builds on, read where the runtime crate publishes it: an app
//!         // writes `env!("CONTRACTS_SCHEMA_AGENT")`, set by its xtask's build.rs.
//!         .base("agent", "/path/to/adecore-contracts/schema/agent")
//!         // The app's own protocol: its name, its directory, its bases.
//!         .protocol("notes", "schema", &["agent"])
//!         // Where `protocol!` generates it in the app's crate: `validate` judges with it.
//!         .rust_module("notes", "notes_app::notes")
//!         .outputs(move |p, out| {
//!             out.package(p.get("notes"), "bindings/notes-contracts", &ts)
//!                 .reference(p.get("notes"), "docs/notes.md", &ts);
//!             Ok(())
//!         })
//!         .main()
//! }
//! ```
//!
//! Every command works on the checkout it is run in: the root is found from the current
//! directory (the nearest directory up whose `Cargo.toml` has a `[workspace]`), printed, and
//! compared with the checkout the xtask binary was built from. When they differ (two checkouts
//! sharing one `CARGO_TARGET_DIR` share `target/debug/xtask`) the command refuses instead of
//! reading or writing the other tree.

pub mod check;
pub mod compat;
mod expand;
mod root;
pub mod validate;

use clap::{Parser, Subcommand};
use contracts_codegen::generate::{Outputs, Protocol};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use root::{Root, find_root};

/// The agent protocol's reference page at this release, for an app's page to link the agent's
/// entries and types into (`DocsOptions::base_page("agent", AGENT_REFERENCE)`).
pub const AGENT_REFERENCE: &str = concat!(
    env!("CARGO_PKG_REPOSITORY"),
    "/blob/v",
    env!("CARGO_PKG_VERSION"),
    "/docs/reference/agent.md"
);

/// The commands every project's xtask has. A project with commands of its own flattens this
/// into its own `Subcommand` enum (`#[command(flatten)]`) and hands it to [`Project::run`].
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Regenerate every generated file (TypeScript packages, JSON Schema, docs).
    Codegen {
        /// Change nothing; fail with the command to run when a generated file is stale.
        #[arg(long)]
        check: bool,
    },
    /// Parse and check schema directories and print their diagnostics (default: the
    /// project's protocols).
    Check {
        dir: Option<PathBuf>,
        /// Protocols the directory builds on, as `name=DIR` (an app's `agent=schema/agent`).
        #[arg(long = "base", value_name = "NAME=DIR")]
        bases: Vec<String>,
    },
    /// Compare the schema at a git revision (or the published baseline) with the working tree.
    Compat(compat::Args),
    /// Validate JSON lines from stdin, one verdict line each.
    Validate(validate::Args),
    /// Print what `protocol!` writes for a protocol, formatted (prettyplease).
    Expand {
        /// A protocol of the project (`agent`), or a schema directory.
        protocol: String,
        /// For a directory: the protocols it builds on, as `name=DIR`.
        #[arg(long = "base", value_name = "NAME=DIR")]
        bases: Vec<String>,
    },
}

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Contract generator tasks")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// One protocol of the project: its name, where its schema is, what it builds on.
#[derive(Clone, Debug)]
pub(crate) struct Spec {
    pub(crate) name: String,
    pub(crate) dir: PathBuf,
    pub(crate) bases: Vec<String>,
    /// A base read from outside the tree (the runtime's published schema): loaded and used,
    /// never generated for nor judged by compat.
    pub(crate) external: bool,
}

/// The protocols of a project, loaded and checked, by name.
pub struct Protocols {
    by_name: BTreeMap<String, Protocol>,
}

impl Protocols {
    /// The protocol called `name`. Panics when the project does not declare it: that is a
    /// mistake in the xtask's own configuration, found the first time it runs.
    pub fn get(&self, name: &str) -> &Protocol {
        self.by_name
            .get(name)
            .unwrap_or_else(|| panic!("the xtask declares no protocol `{name}`"))
    }
}

type Plan = dyn Fn(&Protocols, &mut Outputs) -> Result<(), String>;

/// An xtask's configuration: its protocols, their bases and its outputs.
pub struct Project {
    built_in: PathBuf,
    specs: Vec<Spec>,
    plan: Box<Plan>,
    validator: Option<validate::Validator>,
    /// The Rust module `protocol!` generated each protocol into, by protocol.
    modules: BTreeMap<String, String>,
    codegen_command: String,
}

impl Project {
    /// A project whose xtask crate is at `xtask_manifest_dir` (pass
    /// `env!("CARGO_MANIFEST_DIR")`): the checkout it was built from, which the commands
    /// check they run in.
    pub fn new(xtask_manifest_dir: impl Into<PathBuf>) -> Project {
        Project {
            built_in: xtask_manifest_dir.into(),
            specs: Vec::new(),
            plan: Box::new(|_, _| Ok(())),
            validator: None,
            modules: BTreeMap::new(),
            codegen_command: "cargo xtask codegen".into(),
        }
    }

    /// A protocol the project builds on and does not own, read from `dir` (an absolute path,
    /// such as the `CONTRACTS_SCHEMA_AGENT` a build script forwards).
    pub fn base(mut self, name: &str, dir: impl Into<PathBuf>) -> Project {
        self.specs.push(Spec {
            name: name.into(),
            dir: dir.into(),
            bases: Vec::new(),
            external: true,
        });
        self
    }

    /// A protocol of the project: its name, its schema directory relative to the root, and
    /// the protocols it builds on (declared before it).
    pub fn protocol(mut self, name: &str, dir: impl Into<PathBuf>, bases: &[&str]) -> Project {
        self.specs.push(Spec {
            name: name.into(),
            dir: dir.into(),
            bases: bases.iter().map(|b| (*b).to_owned()).collect(),
            external: false,
        });
        self
    }

    /// What `codegen` writes: called with the loaded protocols and the outputs to fill
    /// (packages, JSON Schema, references, any other file).
    pub fn outputs(
        mut self,
        plan: impl Fn(&Protocols, &mut Outputs) -> Result<(), String> + 'static,
    ) -> Project {
        self.plan = Box::new(plan);
        self
    }

    /// Where `protocol!` generates `protocol` in the project's Rust: the module's path, its
    /// first segment the library's name (`notes_app::notes`). `validate` judges the protocol's
    /// frames with it, over its composed tables (see [`validate`]): no validator binary to
    /// write.
    pub fn rust_module(mut self, protocol: &str, path: &str) -> Project {
        self.modules.insert(protocol.to_owned(), path.to_owned());
        self
    }

    /// The binary that gives `validate` its verdicts for the protocols without a
    /// [`Project::rust_module`] (see [`validate`]).
    pub fn validator(mut self, validator: validate::Validator) -> Project {
        self.validator = Some(validator);
        self
    }

    /// Parses the command line and runs the command.
    pub fn main(self) -> ExitCode {
        let cli = Cli::parse();
        self.run(cli.command)
    }

    /// Runs one command in the checkout found from the current directory.
    pub fn run(&self, command: Command) -> ExitCode {
        match self.root() {
            Ok(root) => self.run_in(&root, command),
            Err(e) => {
                eprintln!("{e}");
                ExitCode::from(2)
            }
        }
    }

    /// Runs one command in `root`, a checkout [`Project::root`] answered.
    pub fn run_in(&self, root: &Path, command: Command) -> ExitCode {
        let root = root.to_path_buf();
        match command {
            Command::Codegen { check } => self.codegen(&root, check),
            Command::Check { dir, bases } => match dir {
                Some(d) => check::run(&root, &[d], &bases),
                None if bases.is_empty() => check::protocols(&root, &self.specs),
                None => check::run(&root, &[], &bases),
            },
            Command::Compat(mut args) => {
                self.compat_defaults(&root, &mut args);
                compat::run(&root, args)
            }
            Command::Validate(args) => {
                validate::run(&root, self.validator.as_ref(), &self.modules, args)
            }
            Command::Expand { protocol, bases } => expand::run(self, &root, &protocol, &bases),
        }
    }

    /// The checkout to work on, refusing one the binary was not built from.
    pub fn root(&self) -> Result<PathBuf, String> {
        let here =
            std::env::current_dir().map_err(|e| format!("xtask: no current directory: {e}"))?;
        let root = self.root_from(&here)?;
        eprintln!("xtask: in {}", root.display());
        Ok(root)
    }

    /// The checkout that holds `here`, when it is the one this xtask was built from.
    pub fn root_from(&self, here: &Path) -> Result<PathBuf, String> {
        let root = find_root(here).ok_or_else(|| {
            format!(
                "xtask: {} is not inside a cargo workspace; run it from the project",
                here.display()
            )
        })?;
        let built = find_root(&self.built_in).map_or_else(|| self.built_in.clone(), |r| r.dir);
        if !root::same(&root.dir, &built) {
            return Err(format!(
                "xtask: refusing to work on {}: this xtask binary was built from {}.\n\
                 Two checkouts share one target directory (CARGO_TARGET_DIR); give each its own, \
                 or run `cargo xtask` again after `cargo build -p xtask` here.",
                root.dir.display(),
                built.display()
            ));
        }
        Ok(root.dir)
    }

    /// Loads every protocol, bases first, diagnostics relative to the root.
    pub fn load(&self, root: &Path) -> Result<Protocols, String> {
        let mut by_name: BTreeMap<String, Protocol> = BTreeMap::new();
        for s in &self.specs {
            let mut bases = Vec::new();
            for b in &s.bases {
                bases.push(by_name.get(b).ok_or_else(|| {
                    format!(
                        "xtask: protocol `{}` builds on `{b}`, which is not declared before it",
                        s.name
                    )
                })?);
            }
            let options = contracts_codegen::load::LoadOptions {
                name: Some(s.name.clone()),
                bases: bases.iter().map(|b| b.model.model_arc().clone()).collect(),
                display_root: Some(root.to_path_buf()),
            };
            let dir = root.join(&s.dir);
            let p = Protocol::load_with(dir, &options).map_err(|e| e.to_string())?;
            by_name.insert(s.name.clone(), p);
        }
        Ok(Protocols { by_name })
    }

    /// Every generated file, planned (pure but for reading the schemas).
    pub fn plan(&self, root: &Path) -> Result<Outputs, String> {
        let protocols = self.load(root)?;
        let mut out = Outputs::new(root);
        (self.plan)(&protocols, &mut out)?;
        Ok(out)
    }

    fn codegen(&self, root: &Path, check: bool) -> ExitCode {
        match self.plan(root) {
            Ok(out) => ExitCode::from(out.run(check, &self.codegen_command) as u8),
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        }
    }

    /// `compat` with no `--schema`: the project's own protocols, on its external bases.
    fn compat_defaults(&self, root: &Path, args: &mut compat::Args) {
        if self.specs.iter().all(|s| !s.external) {
            // A project with no outside bases (this repository): compat's own default, every
            // directory under `schema/`.
            return;
        }
        if args.schemas.is_empty() {
            args.schemas = self
                .specs
                .iter()
                .filter(|s| !s.external)
                .map(|s| format!("{}={}", s.name, root.join(&s.dir).display()))
                .collect();
        }
        if args.base_protocols.is_empty() {
            args.base_protocols = self
                .specs
                .iter()
                .filter(|s| s.external)
                .map(|s| format!("{}={}", s.name, s.dir.display()))
                .collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two checkouts of one project, each a workspace with an xtask member.
    fn checkouts(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
        let tmp = std::env::temp_dir().join(format!("xtask-guard-{tag}-{}", std::process::id()));
        for name in ["one", "two"] {
            let dir = tmp.join(name);
            std::fs::create_dir_all(dir.join("xtask/src")).unwrap();
            std::fs::write(
                dir.join("Cargo.toml"),
                "[workspace]\nmembers = [\"xtask\"]\n",
            )
            .unwrap();
            std::fs::write(
                dir.join("xtask/Cargo.toml"),
                "[package]\nname = \"xtask\"\n",
            )
            .unwrap();
        }
        (tmp.clone(), tmp.join("one"), tmp.join("two"))
    }

    #[test]
    fn check_without_a_directory_checks_each_protocol_on_its_bases() {
        let tmp = std::env::temp_dir().join(format!("xtask-check-{}", std::process::id()));
        let write = |path: &str, text: &str| {
            let p = tmp.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("base/a.contract", "type Id = string(min = 1);\n");
        write("app/b.contract", "use base::{Id};\nstruct Doc { id: Id }\n");
        let project =
            Project::new(&tmp)
                .protocol("base", "base", &[])
                .protocol("app", "app", &["base"]);
        let check = |p: &Project| {
            p.run_in(
                &tmp,
                Command::Check {
                    dir: None,
                    bases: Vec::new(),
                },
            )
        };
        // The app's import resolves only through its declared base.
        assert_eq!(check(&project), ExitCode::SUCCESS);
        write(
            "app/b.contract",
            "use base::{Id};\nstruct Doc { id: Missing }\n",
        );
        assert_eq!(check(&project), ExitCode::from(1));
        // A base that fails: the app on it is not checked, and the command fails.
        write("app/b.contract", "use base::{Id};\nstruct Doc { id: Id }\n");
        write("base/a.contract", "type Id = strin;\n");
        assert_eq!(check(&project), ExitCode::from(1));
        let _ = std::fs::remove_dir_all(tmp);
    }

    #[test]
    fn a_command_works_on_the_checkout_it_is_run_in() {
        let (tmp, one, _) = checkouts("same");
        let project = Project::new(one.join("xtask"));
        let root = project.root_from(&one.join("xtask/src")).unwrap();
        assert!(root::same(&root, &one), "{}", root.display());
        let _ = std::fs::remove_dir_all(tmp);
    }

    #[test]
    fn a_binary_built_from_another_checkout_refuses() {
        let (tmp, one, two) = checkouts("other");
        // The binary was built from `one` (a shared target directory) and is run in `two`.
        let project = Project::new(one.join("xtask"));
        let err = project.root_from(&two).unwrap_err();
        assert!(err.contains("refusing to work on"), "{err}");
        assert!(err.contains(&two.display().to_string()), "{err}");
        assert!(err.contains(&one.display().to_string()), "{err}");
        let _ = std::fs::remove_dir_all(tmp);
    }
}
