//! Which checkout a command works on: found from a directory, never from where the binary was
//! compiled.

use std::path::{Path, PathBuf};

/// A checkout's root: the nearest directory up from where the search started whose
/// `Cargo.toml` declares a `[workspace]` (else the nearest with a `Cargo.toml`).
#[derive(Clone, Debug)]
pub struct Root {
    pub dir: PathBuf,
}

/// Finds the root of the checkout that holds `from`.
pub fn find_root(from: &Path) -> Option<Root> {
    let from = std::path::absolute(from).ok()?;
    let mut nearest = None;
    for dir in from.ancestors() {
        let manifest = dir.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        if text.lines().any(|l| l.trim() == "[workspace]") {
            return Some(Root {
                dir: dir.to_path_buf(),
            });
        }
        nearest.get_or_insert_with(|| dir.to_path_buf());
    }
    nearest.map(|dir| Root { dir })
}

/// Whether two paths name the same directory (symbolic links resolved).
pub fn same(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_nearest_workspace_up() {
        let tmp = std::env::temp_dir().join(format!("xtask-root-{}", std::process::id()));
        let inner = tmp.join("app/xtask/src");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(
            tmp.join("app/Cargo.toml"),
            "[workspace]\nmembers = [\"xtask\"]\n",
        )
        .unwrap();
        std::fs::write(
            tmp.join("app/xtask/Cargo.toml"),
            "[package]\nname = \"xtask\"\n",
        )
        .unwrap();
        let root = find_root(&inner).unwrap();
        assert!(same(&root.dir, &tmp.join("app")), "{:?}", root.dir);
        assert!(!same(&root.dir, &tmp.join("app/xtask")));
        let _ = std::fs::remove_dir_all(&tmp);
    }
}
