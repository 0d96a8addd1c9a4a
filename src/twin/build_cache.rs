// Where a built program lives in the build cache. A build's first key hashes what it is given (the
// units, the sources of their folders, the candidate's patched files, the flags); the headers it reaches
// elsewhere (a subfolder, a sibling operator's folder such as ops-nn's `foreach_utils`, a common folder
// of the repository) are known only once it has been compiled, from GCC's `-H` list (reads.rs). So the
// cache keeps, per first key, the list of those other files the last build of it read
// (`<stem>.reads`), and the program's folder is named by the first key and those files' contents as
// they are now: editing such a header builds again (before this, `run` served the program built
// before the edit). Like ccache's direct mode, with one list per first key: a build that reads other
// files than the list names rewrites the list, which costs at most a build more later.
// Owns: the folder name and the `.reads` list. Does not know how programs are compiled (twin/mod.rs,
// twin/runtime.rs) or what is in them.

use crate::fsx::{self, KeyHasher};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One gate per first key, so that the trials of one process that need the same program build it once:
/// the second waits for the first and then finds it in the cache. Before, a tune's two workers each
/// built the run-time forms of the first points (four compiles for two programs, on two cores).
/// Other processes are not held back (their builds stay safe, as before, each in its own staging folder).
#[derive(Default)]
pub struct Gates(Mutex<HashMap<String, Arc<Mutex<()>>>>);

impl Gates {
    /// The gate of `stem`: hold its lock while looking the program up and building it.
    pub fn of(&self, stem: &str) -> Arc<Mutex<()>> {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.entry(stem.to_string()).or_default().clone()
    }
}

/// The list beside the entries of one first key.
fn list_path(build: &Path, stem: &str) -> PathBuf {
    build.join(format!("{stem}.reads"))
}

/// The second key: each listed file's path and its content now (the candidate's text where it is
/// patched, else the file's, else a mark for a file that is gone).
fn second_key(root: &Path, given: &BTreeMap<String, String>, others: &[String]) -> String {
    let mut h = KeyHasher::new();
    for rel in others {
        h.part(rel);
        match given.get(rel) {
            Some(text) => h.part(text),
            None => match std::fs::read(root.join(rel)) {
                Ok(bytes) => h.part(bytes),
                Err(_) => h.part("\0gone"),
            },
        };
    }
    h.finish()
}

/// The folder the program of first key `stem` (`<side>-<key>`) is in, if it has been built from the
/// files as they are now.
pub fn entry(build: &Path, stem: &str, root: &Path, given: &BTreeMap<String, String>) -> PathBuf {
    let others: Vec<String> = std::fs::read_to_string(list_path(build, stem))
        .map(|t| t.lines().map(str::to_string).collect())
        .unwrap_or_default();
    build.join(format!("{stem}-{}", second_key(root, given, &others)))
}

/// After a build of `stem` that read `read` (project paths, reads.rs): records the files it read beyond
/// `given` and returns the folder its program goes in.
pub fn settle(
    build: &Path,
    stem: &str,
    root: &Path,
    given: &BTreeMap<String, String>,
    read: &BTreeSet<String>,
) -> std::io::Result<PathBuf> {
    let others: Vec<String> = read
        .iter()
        .filter(|p| !given.contains_key(*p))
        .cloned()
        .collect();
    let text: String = others.iter().map(|p| format!("{p}\n")).collect();
    // whole or not at all: concurrent trials look the list up while another build writes it
    fsx::write_atomic(&list_path(build, stem), text.as_bytes())
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(build.join(format!("{stem}-{}", second_key(root, given, &others))))
}

/// Moves a program built in `staging` (at `built`, with the `reads.txt` its build left there) into
/// the cache as `name`, in the folder `settle` names, and returns its path. The list goes first, so a
/// program in the cache always has it beside it.
pub fn store(
    build: &Path,
    stem: &str,
    root: &Path,
    given: &BTreeMap<String, String>,
    staging: &Path,
    built: &Path,
    name: &str,
) -> std::io::Result<PathBuf> {
    let read = super::reads::in_folder(staging).unwrap_or_default();
    let dir = settle(build, stem, root, given, &read)?;
    std::fs::create_dir_all(&dir)?;
    let listed = staging.join(super::reads::FILE);
    if listed.is_file() {
        std::fs::rename(&listed, dir.join(super::reads::FILE))?;
    }
    let program = dir.join(name);
    std::fs::rename(built, &program)?;
    Ok(program)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_gate_per_key() {
        let gates = Gates::default();
        assert!(Arc::ptr_eq(&gates.of("kernel-a"), &gates.of("kernel-a")));
        assert!(!Arc::ptr_eq(&gates.of("kernel-a"), &gates.of("host-a")));
    }

    #[test]
    fn an_edited_header_outside_the_given_files_names_another_folder() {
        let dir = tempfile::tempdir().unwrap();
        let (root, build) = (dir.path().join("op"), dir.path().join("build"));
        std::fs::create_dir_all(root.join("op_kernel/impl")).unwrap();
        std::fs::create_dir_all(&build).unwrap();
        std::fs::write(
            root.join("op_kernel/impl/tile.h"),
            "constexpr int TILE = 64;",
        )
        .unwrap();
        let given: BTreeMap<String, String> = [(
            "op_kernel/k.cpp".to_string(),
            "#include \"impl/tile.h\"".to_string(),
        )]
        .into();
        // Before any build there is no list: the folder depends on the first key alone.
        let before = entry(&build, "kernel-abc", &root, &given);
        let read: BTreeSet<String> = ["op_kernel/k.cpp", "op_kernel/impl/tile.h"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let built = settle(&build, "kernel-abc", &root, &given, &read).unwrap();
        assert_ne!(before, built, "the header the build read names the folder");
        assert_eq!(
            std::fs::read_to_string(build.join("kernel-abc.reads")).unwrap(),
            "op_kernel/impl/tile.h\n",
            "only the files beyond the given ones are listed"
        );
        assert_eq!(entry(&build, "kernel-abc", &root, &given), built);
        std::fs::write(
            root.join("op_kernel/impl/tile.h"),
            "constexpr int TILE = 128;",
        )
        .unwrap();
        let edited = entry(&build, "kernel-abc", &root, &given);
        assert_ne!(edited, built, "an edit of the header is a miss");
        std::fs::remove_file(root.join("op_kernel/impl/tile.h")).unwrap();
        assert_ne!(entry(&build, "kernel-abc", &root, &given), edited);
        // A patched text of a listed file counts, not the file on disk.
        let patched: BTreeMap<String, String> = [
            (
                "op_kernel/k.cpp".to_string(),
                "#include \"impl/tile.h\"".to_string(),
            ),
            (
                "op_kernel/impl/tile.h".to_string(),
                "constexpr int TILE = 64;".to_string(),
            ),
        ]
        .into();
        assert_eq!(entry(&build, "kernel-abc", &root, &patched), built);
    }
}
