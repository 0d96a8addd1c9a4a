//! Cargo workspaces, through `cargo metadata`: the workspace root, its target directory, and the members
//! that are operator projects (an `ascend.toml` beside the member's `Cargo.toml`). It knows nothing of what
//! commands do with the members, and nothing of ascend.toml beyond that the file is there.

use miette::Diagnostic;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum WorkspaceError {
    #[error("could not read the cargo workspace at {}: {message}", at.display())]
    #[diagnostic(help(
        "run inside a cargo workspace, or pass --manifest-path path/to/Cargo.toml; `cargo metadata` must work there"
    ))]
    Metadata { at: PathBuf, message: String },

    #[error("no member of the cargo workspace at {} holds an ascend.toml", root.display())]
    #[diagnostic(help(
        "put an ascend.toml beside the Cargo.toml of each operator crate (`cargo ascend-tune init` in its folder writes one)"
    ))]
    NoOperatorMembers { root: PathBuf },
}

/// A cargo workspace as far as tuning cares.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub root: PathBuf,
    /// The workspace's target directory (honours `CARGO_TARGET_DIR` and `build.target-dir`).
    pub target_dir: PathBuf,
    /// Members holding an `ascend.toml`, sorted by package name.
    pub members: Vec<Member>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The package name.
    pub name: String,
    /// The folder of the member's Cargo.toml (and ascend.toml).
    pub dir: PathBuf,
}

impl Member {
    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join(crate::manifest::FILE_NAME)
    }
}

impl Workspace {
    /// Finds the workspace that `start` (a folder, or a Cargo.toml) belongs to. Runs
    /// `cargo metadata --no-deps`, so it needs neither the network nor a lockfile.
    pub fn discover(start: &Path) -> Result<Workspace, WorkspaceError> {
        let mut cmd = cargo_metadata::MetadataCommand::new();
        cmd.no_deps();
        if start.is_file() {
            cmd.manifest_path(start);
        } else {
            cmd.current_dir(start);
        }
        let meta = cmd.exec().map_err(|e| WorkspaceError::Metadata {
            at: start.to_path_buf(),
            message: match e {
                cargo_metadata::Error::CargoMetadata { stderr } => stderr.trim().to_string(),
                other => other.to_string(),
            },
        })?;
        let root = PathBuf::from(meta.workspace_root.as_std_path());
        let mut members: Vec<Member> = meta
            .workspace_packages()
            .into_iter()
            .filter_map(|p| {
                let dir = p.manifest_path.parent()?.as_std_path().to_path_buf();
                dir.join(crate::manifest::FILE_NAME)
                    .is_file()
                    .then(|| Member {
                        name: p.name.to_string(),
                        dir,
                    })
            })
            .collect();
        members.sort_by(|a, b| a.name.cmp(&b.name));
        if members.is_empty() {
            return Err(WorkspaceError::NoOperatorMembers { root });
        }
        Ok(Workspace {
            root,
            target_dir: meta.target_directory.into_std_path_buf(),
            members,
        })
    }

    /// Where a member's working files go: `<target>/ascend-tune/<package>/`, so that one `cargo clean`
    /// removes them and no member's folder gets a `target/` of its own.
    pub fn work_dir(&self, member: &Member) -> PathBuf {
        self.target_dir.join("ascend-tune").join(&member.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn package(dir: &Path, name: &str) {
        write(
            &dir.join("Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        );
        write(&dir.join("src/lib.rs"), "");
    }

    #[test]
    fn finds_operator_members_and_the_target_dir() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        write(
            &root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"ops/*\", \"plain\"]\nresolver = \"2\"\n",
        );
        package(&root.join("ops/b_op"), "b_op");
        package(&root.join("ops/a_op"), "a_op");
        package(&root.join("plain"), "plain");
        write(&root.join("ops/a_op/ascend.toml"), "");
        write(&root.join("ops/b_op/ascend.toml"), "");

        // From a member's folder, the whole workspace; the member without ascend.toml is left out.
        let found = Workspace::discover(&root.join("ops/b_op")).unwrap();
        let names: Vec<&str> = found.members.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["a_op", "b_op"]);
        let root = root.canonicalize().unwrap();
        assert_eq!(found.root.canonicalize().unwrap(), root);
        assert_eq!(
            found.members[0].dir.canonicalize().unwrap(),
            root.join("ops/a_op")
        );
        assert!(found.target_dir.ends_with("target"), "{found:?}");
        assert!(
            found
                .work_dir(&found.members[1])
                .ends_with("target/ascend-tune/b_op")
        );
    }

    #[test]
    fn a_workspace_without_operator_members_is_bad_input() {
        let ws = tempfile::tempdir().unwrap();
        package(ws.path(), "plain");
        let err = Workspace::discover(ws.path()).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::NoOperatorMembers { .. }),
            "{err}"
        );
    }

    #[test]
    fn a_folder_outside_any_workspace_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let err = Workspace::discover(dir.path()).unwrap_err();
        assert!(
            matches!(&err, WorkspaceError::Metadata { message, .. } if message.contains("Cargo.toml")),
            "{err}"
        );
    }
}
