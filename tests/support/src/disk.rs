//! A real full disk for the deployment tests: a small tmpfs mounted on a directory of its own,
//! filled to the last page with a filler file, and freed by deleting it.
//!
//! Mounting needs root (CAP_SYS_ADMIN), which CI has. Where it is refused, [`SmallDisk::mount`]
//! says so and answers `None`, and the test skips, unless the environment variable `CI` is
//! set: then it fails.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A tmpfs of a few MiB mounted on a directory of its own; unmounted (lazily) and removed
/// when dropped.
pub struct SmallDisk {
    dir: PathBuf,
}

impl SmallDisk {
    /// A tmpfs of `mib` MiB on a new directory named after `name` under `base`. `None`, with a
    /// `SKIPPED` line on stderr, when mounting is refused (not root); a panic instead when
    /// `CI` is set.
    pub fn mount(base: &Path, name: &str, mib: u32) -> Option<SmallDisk> {
        let dir = base.join(format!("{name}-{}", std::process::id()));
        let _ = Command::new("umount")
            .arg("-l")
            .arg(&dir)
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a directory to mount on");
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
            .arg(&dir)
            .output();
        match mounted {
            Ok(out) if out.status.success() => Some(SmallDisk { dir }),
            refused => {
                let _ = std::fs::remove_dir_all(&dir);
                let why = match refused {
                    Ok(out) => String::from_utf8_lossy(&out.stderr).trim().to_owned(),
                    Err(e) => e.to_string(),
                };
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI is set and a tmpfs cannot be mounted (root is needed): {why}"
                );
                eprintln!("SKIPPED: a tmpfs cannot be mounted here (root is needed): {why}");
                None
            }
        }
    }

    /// The mounted directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Fills the disk to its last page with `filler` (64 KiB writes, then 4 KiB ones, then
    /// single bytes, each until the disk refuses): answers the bytes written.
    pub fn fill(&self) -> u64 {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.filler())
            .expect("the filler file");
        let mut written = 0;
        for size in [64 << 10, 4 << 10, 1] {
            let chunk = vec![0xa5u8; size];
            // Bounded by the disk's size: a few MiB.
            for _ in 0..(1 << 20) {
                match file.write(&chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => written += n as u64,
                }
            }
        }
        let _ = file.sync_all();
        written
    }

    /// Frees the space the filler took.
    pub fn free(&self) {
        std::fs::remove_file(self.filler()).expect("the filler is there to delete");
    }

    fn filler(&self) -> PathBuf {
        self.dir.join("filler")
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
