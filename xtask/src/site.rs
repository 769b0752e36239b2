//! `cargo xtask site [--no-browser]`: the protocol reference as a static site, opened in a
//! real browser.
//!
//! 1. mdBook, pinned ([`MDBOOK`]), is installed into `<target>/tools` by `cargo install
//!    --locked` when it is not there yet (`<target>` is `CARGO_TARGET_DIR` or `target/`);
//! 2. `npm ci` in `docs/site` brings mermaid and playwright-core from its lock file;
//! 3. the pages are written into `<target>/site/src` from the schemas, as `cargo xtask
//!    codegen` writes `docs/reference` (the same emitter; the app's page links into the
//!    agent's page beside it), with `docs/site/book.toml`, the mermaid bundle and the script
//!    that draws the diagrams;
//! 4. `mdbook build` writes `<target>/site/book`;
//! 5. unless `--no-browser`: `docs/site/test/site.test.mjs` opens every page in Debian's
//!    Chromium (`/usr/bin/chromium`, installed with `apt-get install -y chromium` when absent)
//!    and checks that it renders, that its diagrams draw and that its links resolve, and saves
//!    `<target>/site/screenshot.png`.

use crate::codegen::{self, targets};
use contracts_codegen::emit::docs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The mdBook the site is built with.
pub const MDBOOK: &str = "0.5.4";

/// Where Debian puts Chromium.
const CHROMIUM: &str = "/usr/bin/chromium";

/// The guides in `docs/guide/`, each a page of the site: its path, its page, its title.
const GUIDES: &[(&str, &str, &str)] = &[
    (
        crate::template_app::GUIDE,
        "guide-apps.md",
        "Guide: an app on the agent protocol",
    ),
    (
        "docs/guide/json-rpc.md",
        "guide-json-rpc.md",
        "Guide: MCP and ACP over JSON-RPC",
    ),
];

/// The page the screenshot shows.
const SCREENSHOT_OF: &str = "agent.html#flow-reconnect";

pub fn run(root: &Path, browser: bool) -> Result<(), String> {
    build(root, browser)
}

/// The cargo target directory: `CARGO_TARGET_DIR`, or the workspace's `target/`.
fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => root.join(d),
        None => root.join("target"),
    }
}

/// Runs a command from `dir`, failing with the command line.
fn sh(dir: &Path, program: &str, args: &[&str], envs: &[(&str, String)]) -> Result<(), String> {
    eprintln!("site: {program} {}", args.join(" "));
    let status = Command::new(program)
        .args(args)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(dir)
        .status()
        .map_err(|e| format!("could not start {program}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`{program} {}` failed ({status}) in {}",
            args.join(" "),
            dir.display()
        ))
    }
}

/// mdBook at the pinned version, installed into `<target>/tools` when it is not there.
fn mdbook(root: &Path) -> Result<PathBuf, String> {
    let tools = target_dir(root).join("tools");
    let bin = tools.join("bin").join("mdbook");
    let version = Command::new(&bin)
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    if version.as_deref() != Some(&format!("mdbook v{MDBOOK}")) {
        let tools = tools.to_string_lossy().into_owned();
        let krate = format!("mdbook@{MDBOOK}");
        sh(
            root,
            "cargo",
            &[
                "install",
                "--locked",
                "--root",
                &tools,
                &krate,
                "--no-default-features",
                "--features",
                "search",
            ],
            &[],
        )?;
    }
    Ok(bin)
}

/// Debian's Chromium, installed when absent (CI runs as root on a clean machine).
fn chromium(root: &Path) -> Result<(), String> {
    if Path::new(CHROMIUM).exists() {
        return Ok(());
    }
    let install = ["install", "-y", "chromium"];
    let envs = [("DEBIAN_FRONTEND", "noninteractive".to_owned())];
    if sh(root, "apt-get", &install, &envs).is_err() {
        sh(root, "apt-get", &["update"], &envs)?;
        sh(root, "apt-get", &install, &envs)?;
    }
    if Path::new(CHROMIUM).exists() {
        Ok(())
    } else {
        Err(format!(
            "{CHROMIUM} is still missing after apt-get install chromium"
        ))
    }
}

/// The site's pages, by file name, in the order of its table of contents, each with its
/// title and the number of diagrams on it.
pub fn pages(root: &Path) -> Result<Vec<(String, String, String, usize)>, String> {
    let protocols = crate::project().load(root)?;
    let mut out = Vec::new();
    for t in targets() {
        let protocol = protocols.get(t.protocol);
        let options = codegen::docs_options(root, &t, protocol)?;
        let text = docs::emit(&protocol.model, &options);
        out.push((
            format!("{}.md", t.protocol),
            format!("The {} protocol", t.protocol),
            text,
            options.flows.len(),
        ));
    }
    let app = protocols.get(codegen::EXAMPLE_APP);
    let text = docs::emit(&app.model, &codegen::example_app_docs("agent.md"));
    out.push(("documents.md".into(), "An app: documents".into(), text, 0));
    // The guides, as the repository keeps them (their code blocks are the template app's
    // files, checked by `cargo xtask test-app`, or excerpts of compiled code, checked by
    // `xtask/tests/excerpts.rs`).
    for (path, file, title) in GUIDES {
        let guide = root.join(path);
        let text =
            std::fs::read_to_string(&guide).map_err(|e| format!("{}: {e}", guide.display()))?;
        out.push(((*file).into(), (*title).into(), text, 0));
    }
    Ok(out)
}

fn build(root: &Path, browser: bool) -> Result<(), String> {
    let site_dir = root.join("docs/site");
    let mdbook = mdbook(root)?;
    sh(&site_dir, "npm", &["ci", "--no-audit", "--no-fund"], &[])?;
    let out = target_dir(root).join("site");
    let _ = std::fs::remove_dir_all(&out);
    let src = out.join("src");
    std::fs::create_dir_all(&src).map_err(|e| format!("{}: {e}", src.display()))?;
    let write = |path: PathBuf, text: &str| {
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))
    };
    let copy = |from: PathBuf, to: PathBuf| {
        std::fs::copy(&from, &to)
            .map(|_| ())
            .map_err(|e| format!("{} -> {}: {e}", from.display(), to.display()))
    };
    let pages = pages(root)?;
    let mut summary = String::from("# Summary\n\n[Introduction](index.md)\n\n");
    let mut intro = String::from(
        "# The protocol reference\n\nGenerated from the schema directories by `cargo xtask site`, as `cargo xtask codegen` writes `docs/reference`. Each page has the frames, the requests and events with an example of each, the flows as sequence diagrams, every type and an index of them.\n\n",
    );
    for (file, title, text, _) in &pages {
        write(src.join(file), text)?;
        summary.push_str(&format!("- [{title}]({file})\n"));
        intro.push_str(&format!("- [{title}]({file})\n"));
    }
    write(src.join("SUMMARY.md"), &summary)?;
    write(src.join("index.md"), &intro)?;
    copy(site_dir.join("book.toml"), out.join("book.toml"))?;
    copy(
        site_dir.join("mermaid-init.js"),
        out.join("mermaid-init.js"),
    )?;
    copy(
        site_dir.join("node_modules/mermaid/dist/mermaid.min.js"),
        out.join("mermaid.min.js"),
    )?;
    let mdbook = mdbook.to_string_lossy().into_owned();
    sh(&out, &mdbook, &["build"], &[])?;
    let book = out.join("book");
    eprintln!("site: built {}", book.join("index.html").display());
    if !browser {
        return Ok(());
    }
    chromium(root)?;
    let mut expect = serde_json::Map::new();
    expect.insert("index.html".into(), serde_json::json!(0));
    for (file, _, _, diagrams) in &pages {
        expect.insert(file.replace(".md", ".html"), serde_json::json!(diagrams));
    }
    let expect = serde_json::json!({ "pages": expect, "screenshot": SCREENSHOT_OF });
    let screenshot = out.join("screenshot.png");
    sh(
        &site_dir,
        "node",
        &["--test", "--test-timeout=240000", "test/"],
        &[
            ("SITE_BOOK", book.to_string_lossy().into_owned()),
            ("SITE_EXPECT", expect.to_string()),
            ("SITE_SCREENSHOT", screenshot.to_string_lossy().into_owned()),
            ("CHROMIUM", CHROMIUM.to_owned()),
        ],
    )?;
    eprintln!("site: screenshot {}", screenshot.display());
    Ok(())
}
