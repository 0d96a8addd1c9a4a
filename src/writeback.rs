//! Writing tuned sources back into the user's project: refusing to overwrite work that version control
//! could not give back (as `cargo fix` does), showing the change as a unified diff for `--dry-run`, and
//! writing each file atomically. Knows nothing of how the new contents were chosen.

use crate::errors::{Error, Result};
use crate::fsx;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Refuses to go on when a file we would overwrite has changes that version control could not restore,
/// unless those changes are exactly what an earlier `tune` wrote (their hash is in the lockfile).
pub fn guard(
    root: &Path,
    files: &[&String],
    ours: &BTreeMap<String, String>,
    allow_dirty: bool,
    allow_no_vcs: bool,
) -> Result<()> {
    if allow_dirty {
        return Ok(());
    }
    let in_git = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["rev-parse", "--is-inside-work-tree"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !in_git {
        if allow_no_vcs {
            return Ok(());
        }
        return Err(Error::bad_input(
            format!("{} is not under version control, and `tune` rewrites sources in it", root.display()),
            Some("commit the project to git first, or pass `--allow-no-vcs` (or `--allow-dirty`) to write anyway".into()),
        ));
    }
    let mut dirty: Vec<String> = vec![];
    let mut seen = std::collections::BTreeSet::new();
    // an op's kernel is also the file of its kernel-side tunables: each file is looked at once
    for f in files.iter().filter(|f| seen.insert(f.as_str())) {
        let out = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["status", "--porcelain", "--"])
            .arg(f.as_str())
            .output();
        let changed = match out {
            Ok(o) if o.status.success() => !o.stdout.is_empty(),
            _ => true,
        };
        let written_by_us = std::fs::read(root.join(f.as_str()))
            .is_ok_and(|b| ours.get(f.as_str()) == Some(&fsx::hash_hex(&b)));
        if changed && !written_by_us {
            dirty.push(f.to_string());
        }
    }
    if dirty.is_empty() {
        Ok(())
    } else {
        Err(Error::bad_input(
            format!(
                "these files have uncommitted changes that `tune` would overwrite: {}",
                dirty.join(", ")
            ),
            Some("commit or stash them first, or pass `--allow-dirty`".into()),
        ))
    }
}

/// A unified diff from `old` to `new` of the file at `path`.
pub fn diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(2)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

/// Writes every changed file atomically; returns the paths written.
pub fn write(
    root: &Path,
    files: &BTreeMap<String, String>,
    originals: &BTreeMap<String, String>,
) -> Result<Vec<String>> {
    let mut written = vec![];
    for (rel, text) in files {
        if originals.get(rel) == Some(text) {
            continue;
        }
        fsx::write_atomic(&root.join(rel), text.as_bytes())?;
        written.push(rel.clone());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found on a learning-hub tutorial: the refusal named the kernel file twice (once as the kernel,
    /// once as the file of its kernel-side tunable).
    #[test]
    fn a_dirty_file_given_twice_is_named_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let git = |args: &[&str]| {
            let ok = Command::new("git")
                .arg("-C")
                .arg(root)
                .args(args)
                .output()
                .is_ok_and(|o| o.status.success());
            assert!(ok, "git {args:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(root.join("k.cpp"), "int x = 1;\n").unwrap();
        git(&["add", "k.cpp"]);
        git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "k",
        ]);
        std::fs::write(root.join("k.cpp"), "int x = 2;\n").unwrap();
        let k = "k.cpp".to_string();
        let err = guard(root, &[&k, &k], &BTreeMap::new(), false, false).unwrap_err();
        let said = format!("{err}");
        assert_eq!(said.matches("k.cpp").count(), 1, "{said}");
    }
}
