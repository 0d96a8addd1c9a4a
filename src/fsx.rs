//! File-system helpers every part uses: atomic writes of user files, content hashes, and keeping paths
//! inside the project. Knows nothing about what the files mean.

use crate::errors::{Error, Result};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// A suffix for temporary names that no other process or thread uses at the same time.
pub fn unique_suffix() -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{}.{n}", std::process::id())
}

/// Writes `contents` to `path` so that a reader, or a crash at any moment, sees either the old file or the
/// new one, never a mix: write a temporary file beside it, flush it to disk, then rename over the target.
pub fn write_atomic(path: &Path, contents: &[u8]) -> Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.ascend-tune-{}.tmp", unique_suffix()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        interrupt::point(0)?;
        // Half the bytes, then a chance to stop: a crash mid-write leaves a partial temporary file.
        let half = contents.len() / 2;
        file.write_all(&contents[..half])?;
        interrupt::point(1)?;
        file.write_all(&contents[half..])?;
        interrupt::point(2)?;
        file.sync_all()?;
        interrupt::point(3)?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        interrupt::point(4)?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io("could not write", path, e));
    }
    Ok(())
}

/// Where the unit tests interrupt `write_atomic` between its steps (a failing disk, a crash); nothing
/// outside tests.
mod interrupt {
    #[cfg(test)]
    pub const POINTS: usize = 5;
    #[cfg(test)]
    thread_local! {
        pub static AT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
    }
    #[inline]
    pub fn point(_n: usize) -> std::io::Result<()> {
        #[cfg(test)]
        if AT.with(|a| a.get()) == Some(_n) {
            return Err(std::io::Error::other("interrupted by the test"));
        }
        Ok(())
    }
}

pub fn read_to_string(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::io("could not read", path, e))
}

pub fn create_dir_all(path: &Path) -> Result<()> {
    std::fs::create_dir_all(path).map_err(|e| Error::io("could not create", path, e))
}

/// Content hash as it appears in lockfiles and cache keys.
pub fn hash_hex(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// A hasher for keys built from several parts; each part is length-prefixed so that parts cannot run
/// into each other.
#[derive(Default)]
pub struct KeyHasher(blake3::Hasher);

impl KeyHasher {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn part(&mut self, bytes: impl AsRef<[u8]>) -> &mut Self {
        let bytes = bytes.as_ref();
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }
    pub fn finish(&self) -> String {
        self.0.finalize().to_hex()[..32].to_string()
    }
}

/// Resolves a path written in a manifest against the project root and refuses one that leaves the project
/// (an absolute path or `..` that climbs above the root). Returns the joined path.
pub fn confined_join(root: &Path, relative: &str) -> std::result::Result<PathBuf, String> {
    let rel = Path::new(relative);
    if rel.is_absolute() {
        return Err(format!(
            "`{relative}` is an absolute path; write it relative to the project root"
        ));
    }
    let mut depth: i64 = 0;
    for c in rel.components() {
        match c {
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            _ => return Err(format!("`{relative}` is not a plain relative path")),
        }
        if depth < 0 {
            return Err(format!("`{relative}` points outside the project root"));
        }
    }
    let joined = root.join(rel);
    // Symlinks: where the deepest existing part of the path really is must be inside the real root, or
    // reading and writing back would follow a link out of the project.
    if let Ok(real_root) = root.canonicalize() {
        let mut probe = joined.as_path();
        loop {
            if let Ok(real) = probe.canonicalize() {
                if !real.starts_with(&real_root) {
                    return Err(format!(
                        "`{relative}` leads outside the project root through a symbolic link (to {})",
                        real.display()
                    ));
                }
                break;
            }
            match probe.parent() {
                Some(p) if p.starts_with(root) && p != root => probe = p,
                _ => break,
            }
        }
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confined_join_refuses_escapes() {
        let root = Path::new("/p");
        assert!(confined_join(root, "op_host/a.cpp").is_ok());
        assert!(confined_join(root, "a/../b.cpp").is_ok());
        assert!(confined_join(root, "../b.cpp").is_err());
        assert!(confined_join(root, "a/../../b.cpp").is_err());
        assert!(confined_join(root, "/etc/passwd").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn confined_join_refuses_symlinks_out_of_the_root() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("k.cpp"), "x").unwrap();
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        std::os::unix::fs::symlink(outside.path().join("k.cpp"), r.join("link.cpp")).unwrap();
        std::os::unix::fs::symlink(outside.path(), r.join("dir")).unwrap();
        std::fs::create_dir(r.join("in")).unwrap();
        std::fs::write(r.join("in/real.cpp"), "x").unwrap();
        std::os::unix::fs::symlink(r.join("in/real.cpp"), r.join("inner.cpp")).unwrap();
        let e = confined_join(r, "link.cpp").unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(confined_join(r, "dir/k.cpp").is_err());
        assert!(
            confined_join(r, "dir/new.cpp").is_err(),
            "a missing file under a link out"
        );
        assert!(
            confined_join(r, "inner.cpp").is_ok(),
            "a link within the project is fine"
        );
        assert!(confined_join(r, "in/real.cpp").is_ok());
        assert!(confined_join(r, "in/missing.cpp").is_ok());
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.cpp");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    proptest::proptest! {
        /// An interruption at any step of `write_atomic` leaves the file entirely old and no temporary
        /// file behind; without one, the file is entirely new.
        #[test]
        fn an_interrupted_atomic_write_leaves_the_old_file_whole(
            old in proptest::collection::vec(proptest::num::u8::ANY, 0..4096),
            new in proptest::collection::vec(proptest::num::u8::ANY, 0..4096),
            at in proptest::option::of(0..interrupt::POINTS),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("kernel.cpp");
            std::fs::write(&p, &old).unwrap();
            interrupt::AT.with(|a| a.set(at));
            let r = write_atomic(&p, &new);
            interrupt::AT.with(|a| a.set(None));
            let now = std::fs::read(&p).unwrap();
            match at {
                Some(_) => {
                    proptest::prop_assert!(r.is_err());
                    proptest::prop_assert_eq!(&now, &old);
                }
                None => {
                    proptest::prop_assert!(r.is_ok());
                    proptest::prop_assert_eq!(&now, &new);
                }
            }
            proptest::prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        }
    }

    #[test]
    fn key_parts_do_not_run_together() {
        let a = KeyHasher::new().part("ab").part("c").finish();
        let b = KeyHasher::new().part("a").part("bc").finish();
        assert_ne!(a, b);
    }
}
