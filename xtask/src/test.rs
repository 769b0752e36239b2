//! `cargo xtask test [--list] [--only STEP]... [--from STEP]`: every check the project has, in
//! one command. CI runs exactly this, with no options.
//!
//! Steps run in order and stop at the first failure, naming the step and the command that
//! failed so it can be run again by hand or through xtask. Each step has a number and a stable
//! id (`format`, `npm-ci`, `ts-build:bindings/agent-contracts`, `rust-tests`, ...), which
//! `--list` prints.
//! `--only` runs the steps it names (an id or a number, as often as needed) and `--from` a
//! step and every one after it; either way the selected steps run in the list's order, since
//! later steps use what earlier ones built (`npm ci` before `npm run build`, the npm builds
//! before the Rust tests that drive node clients).

use std::path::Path;
use std::process::{Command, ExitCode};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print each step (number, id, directory, command) and run nothing; with --only or
    /// --from, only the steps they select.
    #[arg(long)]
    list: bool,
    /// Run only this step: an id or a number from --list. May be given several times.
    #[arg(long, value_name = "STEP", conflicts_with = "from")]
    only: Vec<String>,
    /// Run this step (an id or a number from --list) and every step after it.
    #[arg(long, value_name = "STEP")]
    from: Option<String>,
}

/// One step: a stable id to select it by, a name for the report and the command to run from
/// a directory, with the environment variables it sets.
struct Step {
    id: String,
    name: &'static str,
    dir: String,
    env: &'static [(&'static str, &'static str)],
    program: &'static str,
    args: &'static [&'static str],
}

impl Step {
    /// The command as typed in a shell (a variable's value quoted when it has a space).
    fn command(&self) -> String {
        let mut line = String::new();
        for (name, value) in self.env {
            if value.contains(' ') {
                line.push_str(&format!("{name}='{value}' "));
            } else {
                line.push_str(&format!("{name}={value} "));
            }
        }
        line.push_str(self.program);
        for arg in self.args {
            line.push(' ');
            line.push_str(arg);
        }
        line
    }
}

fn step(
    id: impl Into<String>,
    name: &'static str,
    dir: impl Into<String>,
    program: &'static str,
    args: &'static [&'static str],
) -> Step {
    Step {
        id: id.into(),
        name,
        dir: dir.into(),
        env: &[],
        program,
        args,
    }
}

/// The npm packages under test: the root `package.json`'s workspaces, in its order, which is
/// dependency order (a package built before the ones that depend on it through `file:`). One
/// `npm ci` at the root installs them all from the root's lock file.
fn npm_packages() -> Vec<String> {
    let manifest: serde_json::Value =
        serde_json::from_str(include_str!("../../package.json")).unwrap_or_default();
    manifest["workspaces"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|w| w.as_str().map(str::to_owned))
        .collect()
}

/// Every step, in the order they run.
fn steps() -> Vec<Step> {
    let mut steps = vec![
        step(
            "format",
            "Rust formatting",
            ".",
            "cargo",
            &["fmt", "--all", "--", "--check"],
        ),
        step(
            "lints",
            "clippy lints, warnings denied",
            ".",
            "cargo",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--all-features",
                "--",
                "-D",
                "warnings",
            ],
        ),
        // Broken or private intra-doc links and bad doc markup fail like lints do.
        Step {
            env: &[("RUSTDOCFLAGS", "-D warnings")],
            ..step(
                "docs",
                "rustdoc, warnings denied",
                ".",
                "cargo",
                &["doc", "--workspace", "--no-deps", "--all-features"],
            )
        },
        step(
            "codegen-fresh",
            "generated files are fresh",
            ".",
            "cargo",
            &["xtask", "codegen", "--check"],
        ),
        step(
            "compat",
            "schemas only grew compatibly",
            ".",
            "cargo",
            &["xtask", "compat"],
        ),
        // A copy of the workspace with an optional field added to every schema object must
        // compile: the runtime and the examples build generated types as apps must.
        step(
            "growth",
            "compatible growth compiles everywhere in the workspace",
            ".",
            "cargo",
            &["xtask", "growth"],
        ),
    ];
    // TypeScript first: the Rust end-to-end tests run node clients against these builds. One
    // install for every workspace; their `prepare` scripts (a build each) are left to the
    // build steps, which run in dependency order.
    steps.push(step(
        "npm-ci",
        "npm install of every workspace package from the root's lock file",
        ".",
        "npm",
        &["ci", "--no-audit", "--no-fund", "--ignore-scripts"],
    ));
    for dir in npm_packages() {
        steps.push(step(
            format!("ts-build:{dir}"),
            "TypeScript build (tsc --strict)",
            dir.clone(),
            "npm",
            &["run", "build"],
        ));
        steps.push(step(
            format!("ts-test:{dir}"),
            "TypeScript tests",
            dir,
            "npm",
            &["test"],
        ));
    }
    // Packs the workspace packages installed above; see tests/npm-consumer/run.mjs.
    steps.push(step(
        "npm-consumer",
        "npm packages packed, publint and attw on each tarball, a consumer installed from them",
        "tests/npm-consumer",
        "npm",
        &["test"],
    ));
    // The reference site: built with mdBook, every page opened in headless Chromium.
    steps.push(step(
        "site",
        "reference site in Chromium",
        ".",
        "cargo",
        &["xtask", "site"],
    ));
    steps.push(step(
        "rust-tests",
        "Rust tests, end to end included",
        ".",
        "cargo",
        &["test", "--workspace", "--all-features"],
    ));
    // The differential test against MCP's and ACP's official JSON Schemas (tests/official):
    // Rust, Zod and our JSON Schema give the official verdict on the official examples, ours
    // and a generated corpus (about 2 500 messages per protocol), and Rust writes back what it
    // accepts unchanged; differences only where tests/official/expected-differences.json lists
    // them.
    steps.push(step(
        "official",
        "MCP and ACP: our validators against the official JSON Schemas",
        ".",
        "node",
        &["tests/official/run.mjs"],
    ));
    // The fuzzer: a short seeded run of every invariant, each input judged by Zod and ajv as
    // it is made (one chunk of the figure's kind, recorded nowhere), then Rust, Zod and ajv on
    // generated inputs with a new seed each run (printed; a disagreement fails with its
    // minimised input): 12 000 per kind, 13 kinds (the agent's, Agent Connect's, the
    // documents app's).
    steps.push(step(
        "fuzz-figure",
        "fuzzing, a short seeded run, judged by Zod and ajv as it goes",
        ".",
        "cargo",
        &[
            "xtask",
            "fuzz",
            "--debug",
            "--figure",
            "--no-ledger",
            "--chunks",
            "0..1",
            "--per-target",
            "300",
            "--seed",
            "1",
        ],
    ));
    steps.push(step(
        "fuzz-differential",
        "differential: Rust, Zod and ajv on generated inputs",
        ".",
        "cargo",
        &[
            "xtask",
            "fuzz",
            "--debug",
            "--differential",
            "--per-kind",
            "12000",
        ],
    ));
    // The official ACP TypeScript SDK (tests/acp-sdk, pinned): its client drives the
    // acp-agent example over stdio, and our generated Rust client drives its example agent
    // (examples/acp-agent/tests/sdk_client.rs, sdk_agent.rs; each node run time-limited).
    steps.push(step(
        "npm-ci:tests/acp-sdk",
        "npm install from the lock file",
        "tests/acp-sdk",
        "npm",
        &["ci", "--no-audit", "--no-fund"],
    ));
    steps.push(step(
        "acp-sdk",
        "ACP: the official TypeScript SDK against acp-agent and our Rust client, both ways",
        ".",
        "cargo",
        &[
            "test",
            "-p",
            "acp-agent",
            "--test",
            "sdk_client",
            "--test",
            "sdk_agent",
        ],
    ));
    // The official MCP conformance suite (tests/conformance, pinned by its lock) against
    // examples/mcp-server over Streamable HTTP: every server scenario, the active ones and
    // the two the suite still calls pending, passes, but for those
    // tests/conformance/expected-failures.yml lists with their reasons.
    steps.push(step(
        "npm-ci:tests/conformance",
        "npm install from the lock file",
        "tests/conformance",
        "npm",
        &["ci", "--no-audit", "--no-fund"],
    ));
    steps.push(step(
        "conformance",
        "MCP: the official conformance suite against examples/mcp-server",
        ".",
        "cargo",
        &["xtask", "conformance", "--suite", "all"],
    ));
    // Last: the template app as its users meet it, out of tree on the packaged crates (it
    // packs the agent package built above).
    steps.push(step(
        "test-app",
        "the template app, out of tree, on the packaged crates",
        ".",
        "cargo",
        &["xtask", "test-app"],
    ));
    steps
}

/// The index of the step `key` names: its id, or its number (counted from 1).
fn find(steps: &[Step], key: &str) -> Result<usize, String> {
    let found = match key.parse::<usize>() {
        Ok(n) if (1..=steps.len()).contains(&n) => Some(n - 1),
        Ok(_) => None,
        Err(_) => steps.iter().position(|s| s.id == key),
    };
    found.ok_or_else(|| {
        let mut message = format!(
            "xtask test: no step `{key}`; a step is a number from 1 to {} or one of these ids:",
            steps.len()
        );
        for (i, s) in steps.iter().enumerate() {
            message.push_str(&format!("\n  {:>2}  {}", i + 1, s.id));
        }
        message
    })
}

/// The indices of the steps to run, in the list's order: those `only` names, else `from`'s
/// and every one after it, else all.
fn select(steps: &[Step], only: &[String], from: Option<&str>) -> Result<Vec<usize>, String> {
    if !only.is_empty() {
        let mut chosen = only
            .iter()
            .map(|key| find(steps, key))
            .collect::<Result<Vec<_>, _>>()?;
        chosen.sort_unstable();
        chosen.dedup();
        return Ok(chosen);
    }
    let first = match from {
        Some(key) => find(steps, key)?,
        None => 0,
    };
    Ok((first..steps.len()).collect())
}

/// The options that select `chosen`, with ids for numbers, for the closing line.
fn selection_flags(steps: &[Step], chosen: &[usize], args: &Args) -> String {
    if args.only.is_empty() {
        format!("--from {}", steps[chosen[0]].id)
    } else {
        let flags: Vec<String> = chosen
            .iter()
            .map(|&i| format!("--only {}", steps[i].id))
            .collect();
        flags.join(" ")
    }
}

/// How to run a failed step again through xtask, alone or with the steps after it.
fn rerun_hint(s: &Step, lead: &str) {
    eprintln!("{lead} alone or with every step after it:");
    eprintln!("    cargo xtask test --only {}", s.id);
    eprintln!("    cargo xtask test --from {}", s.id);
}

pub fn run(root: &Path, args: Args) -> ExitCode {
    let steps = steps();
    let chosen = match select(&steps, &args.only, args.from.as_deref()) {
        Ok(chosen) => chosen,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    if args.list {
        let width = chosen.iter().map(|&i| steps[i].id.len()).max().unwrap_or(0);
        for &i in &chosen {
            let s = &steps[i];
            println!("{:>2}  {:<width$}  {}: {}", i + 1, s.id, s.dir, s.command());
        }
        return ExitCode::SUCCESS;
    }
    let total = steps.len();
    for &i in &chosen {
        let s = &steps[i];
        eprintln!(
            "\n==> [{}/{total} {}] {} ({}: {})",
            i + 1,
            s.id,
            s.name,
            s.dir,
            s.command()
        );
        let status = Command::new(s.program)
            .args(s.args)
            .envs(s.env.iter().copied())
            .current_dir(root.join(&s.dir))
            .status();
        match status {
            Ok(st) if st.success() => {}
            Ok(st) => {
                eprintln!(
                    "\nxtask test: step {} `{}` ({}) failed ({st}); run it again with:",
                    i + 1,
                    s.id,
                    s.name
                );
                eprintln!("    cd {} && {}", s.dir, s.command());
                rerun_hint(s, "or,");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!(
                    "\nxtask test: step {} `{}` could not start `{}`: {e}",
                    i + 1,
                    s.id,
                    s.program
                );
                rerun_hint(s, "once it can, run the step again,");
                return ExitCode::FAILURE;
            }
        }
    }
    if chosen.len() == total {
        eprintln!("\nxtask test: all {total} steps passed");
    } else {
        eprintln!(
            "\nxtask test: {} of {total} steps passed ({})",
            chosen.len(),
            selection_flags(&steps, &chosen, &args)
        );
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn ids(steps: &[Step], chosen: &[usize]) -> Vec<String> {
        chosen.iter().map(|&i| steps[i].id.clone()).collect()
    }

    fn keys(keys: &[&str]) -> Vec<String> {
        keys.iter().map(|k| k.to_string()).collect()
    }

    #[test]
    fn ids_are_unique_slugs() {
        let steps = steps();
        let mut seen = HashSet::new();
        for s in &steps {
            assert!(seen.insert(s.id.as_str()), "two steps are `{}`", s.id);
            // Typed unquoted in a shell, and never read as a number.
            assert!(
                s.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-:/_.".contains(c)),
                "`{}` is not a slug",
                s.id
            );
            assert!(s.id.parse::<usize>().is_err());
        }
        // The ids the README and CI's users know.
        for id in [
            "format",
            "lints",
            "docs",
            "codegen-fresh",
            "compat",
            "growth",
            "npm-ci",
            "ts-build:bindings/agent-contracts",
            "ts-test:bindings/agent-contracts",
            "npm-consumer",
            "site",
            "rust-tests",
            "official",
            "fuzz-figure",
            "fuzz-differential",
            "acp-sdk",
            "conformance",
            "test-app",
        ] {
            assert!(seen.contains(id), "no step `{id}`");
        }
        assert!(npm_packages().contains(&"bindings/agent-contracts".to_owned()));
        assert_eq!(steps.len(), 6 + 1 + 2 * npm_packages().len() + 11);
    }

    #[test]
    fn the_docs_step_follows_lints_and_prints_its_environment() {
        let steps = steps();
        let lints = find(&steps, "lints").unwrap();
        let docs = &steps[find(&steps, "docs").unwrap()];
        assert_eq!(find(&steps, "docs").unwrap(), lints + 1);
        assert_eq!(
            docs.command(),
            "RUSTDOCFLAGS='-D warnings' cargo doc --workspace --no-deps --all-features"
        );
    }

    #[test]
    fn no_option_selects_every_step() {
        let steps = steps();
        let all: Vec<usize> = (0..steps.len()).collect();
        assert_eq!(select(&steps, &[], None).unwrap(), all);
        assert_eq!(select(&steps, &[], Some("1")).unwrap(), all);
        assert_eq!(select(&steps, &[], Some("format")).unwrap(), all);
    }

    #[test]
    fn only_selects_its_steps_in_the_lists_order() {
        let steps = steps();
        assert_eq!(
            ids(&steps, &select(&steps, &keys(&["format"]), None).unwrap()),
            ["format"]
        );
        // Numbers and ids mixed, out of order and repeated: each step once, in order.
        let chosen = select(&steps, &keys(&["rust-tests", "2", "format", "lints"]), None).unwrap();
        assert_eq!(ids(&steps, &chosen), ["format", "lints", "rust-tests"]);
        let last = steps.len().to_string();
        assert_eq!(
            ids(&steps, &select(&steps, &keys(&[&last]), None).unwrap()),
            ["test-app"]
        );
    }

    #[test]
    fn from_selects_its_step_and_every_one_after() {
        let steps = steps();
        let chosen = select(&steps, &[], Some("fuzz-figure")).unwrap();
        assert_eq!(
            ids(&steps, &chosen),
            [
                "fuzz-figure",
                "fuzz-differential",
                "npm-ci:tests/acp-sdk",
                "acp-sdk",
                "npm-ci:tests/conformance",
                "conformance",
                "test-app"
            ]
        );
        let by_number = select(&steps, &[], Some(&(steps.len() - 6).to_string())).unwrap();
        assert_eq!(by_number, chosen);
        let npm = select(&steps, &[], Some("npm-ci")).unwrap();
        assert_eq!(npm.first(), Some(&6));
        assert_eq!(npm.last(), Some(&(steps.len() - 1)));
    }

    #[test]
    fn an_unknown_step_is_an_error_listing_the_ids() {
        let steps = steps();
        for bad in ["nope", "0", &(steps.len() + 1).to_string(), "Format", ""] {
            let only = select(&steps, &keys(&["format", bad]), None).unwrap_err();
            let from = select(&steps, &[], Some(bad)).unwrap_err();
            for message in [only, from] {
                assert!(message.contains(&format!("no step `{bad}`")), "{message}");
                for s in &steps {
                    assert!(message.contains(&s.id), "{message} lacks {}", s.id);
                }
            }
        }
    }

    /// The options as clap reads them.
    fn parse(argv: &[&str]) -> Result<Args, clap::Error> {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        let argv = std::iter::once("test").chain(argv.iter().copied());
        <Cli as clap::Parser>::try_parse_from(argv).map(|cli| cli.args)
    }

    #[test]
    fn only_repeats_and_excludes_from() {
        let args = parse(&["--only", "format", "--only", "3"]).unwrap();
        assert_eq!(args.only, ["format", "3"]);
        assert!(!args.list && args.from.is_none());
        let args = parse(&["--list", "--from", "site"]).unwrap();
        assert!(args.list && args.from.as_deref() == Some("site"));
        let err = parse(&["--only", "format", "--from", "lints"]).unwrap_err();
        assert_eq!(err.kind(), clap::error::ErrorKind::ArgumentConflict);
        // A usage error, as an unknown step is.
        assert_eq!(err.exit_code(), 2);
    }

    #[test]
    fn the_closing_line_names_the_selection_by_id() {
        let steps = steps();
        let args = Args {
            list: false,
            only: keys(&["2", "format"]),
            from: None,
        };
        let chosen = select(&steps, &args.only, None).unwrap();
        assert_eq!(
            selection_flags(&steps, &chosen, &args),
            "--only format --only lints"
        );
        let args = Args {
            list: false,
            only: Vec::new(),
            from: Some((steps.len()).to_string()),
        };
        let chosen = select(&steps, &[], args.from.as_deref()).unwrap();
        assert_eq!(selection_flags(&steps, &chosen, &args), "--from test-app");
    }
}
