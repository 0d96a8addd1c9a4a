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
        inject::step()?;
        let mut file = std::fs::File::create(&tmp)?;
        // Half the bytes, then a chance to stop: a crash mid-write leaves a partial temporary file.
        let half = contents.len() / 2;
        file.write_all(&contents[..half])?;
        inject::step()?;
        file.write_all(&contents[half..])?;
        inject::step()?;
        file.sync_all()?;
        inject::step()?;
        if let Ok(meta) = std::fs::metadata(path) {
            std::fs::set_permissions(&tmp, meta.permissions())?;
        }
        inject::step()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io("could not write", path, e));
    }
    Ok(())
}

/// Fault injection into this thread's file writes, off unless armed: the soak test (`bench
/// --inject-faults`) fills the disk under a trial, and the property tests interrupt a write-back at any
/// step. Nothing in a normal run arms it; an unarmed check costs one thread-local read.
pub mod inject {
    use std::cell::Cell;

    thread_local! {
        static DISK_FULL: Cell<bool> = const { Cell::new(false) };
        static REFUSED: Cell<u64> = const { Cell::new(0) };
        static INTERRUPT_IN: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// Steps of one `write_atomic` where an interruption can fall (create, half written, all written,
    /// flushed, permissions copied; the rename is the step that makes the new file visible).
    pub const WRITE_STEPS: usize = 5;

    /// While the guard lives, every write of this thread through `check_space` (the journal, run
    /// folders, input data, build folders, child logs) fails with ENOSPC, as on a full disk.
    pub fn fill_disk() -> DiskFull {
        DISK_FULL.with(|d| d.set(true));
        REFUSED.with(|r| r.set(0));
        DiskFull(())
    }

    pub struct DiskFull(());

    impl DiskFull {
        /// How many writes the full disk refused so far.
        pub fn refused(&self) -> u64 {
            REFUSED.with(|r| r.get())
        }
    }

    impl Drop for DiskFull {
        fn drop(&mut self) {
            DISK_FULL.with(|d| d.set(false));
        }
    }

    /// ENOSPC when this thread's disk is full (see `fill_disk`).
    pub fn check_space() -> std::io::Result<()> {
        if DISK_FULL.with(|d| d.get()) {
            REFUSED.with(|r| r.set(r.get() + 1));
            return Err(std::io::Error::from_raw_os_error(ENOSPC));
        }
        Ok(())
    }

    /// Interrupts this thread's `write_atomic` calls at the `n`-th step they reach from now (0-based,
    /// counted across calls), as a crash or a failing disk would; None disarms.
    pub fn interrupt_after(n: Option<usize>) {
        INTERRUPT_IN.with(|c| c.set(n));
    }

    /// Whether an armed interruption is still to come.
    pub fn interrupt_pending() -> bool {
        INTERRUPT_IN.with(|c| c.get().is_some())
    }

    pub(super) fn step() -> std::io::Result<()> {
        let hit = INTERRUPT_IN.with(|c| match c.get() {
            Some(0) => {
                c.set(None);
                true
            }
            Some(n) => {
                c.set(Some(n - 1));
                false
            }
            None => false,
        });
        if hit {
            return Err(std::io::Error::other("interrupted (fault injection)"));
        }
        check_space()
    }

    /// ENOSPC's number on Linux and the BSDs (28); `is_disk_full` also checks the error kind.
    const ENOSPC: i32 = 28;
}

/// Whether an I/O error says the disk (or quota) is full.
pub fn is_disk_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull
        || e.kind() == std::io::ErrorKind::QuotaExceeded
        || e.raw_os_error() == Some(28)
}

/// `std::fs::write` for the tool's own working files (run folders, input data, build folders), with the
/// soak test's full-disk check (`inject`).
pub fn write_file(path: &Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    inject::check_space()?;
    std::fs::write(path, contents)
}

/// `File::create` for the tool's own working files, with the full-disk check.
pub fn create_file(path: &Path) -> std::io::Result<std::fs::File> {
    inject::check_space()?;
    std::fs::File::create(path)
}

/// Appends `bytes` to a working file opened for appending. On a full disk (real or injected) part of
/// them may have been written, as a real full disk does; the caller cuts the file back.
pub fn append(file: &mut std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    if let Err(e) = inject::check_space() {
        let _ = file.write_all(&bytes[..bytes.len() / 2]);
        return Err(e);
    }
    file.write_all(bytes)
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

/// `path` lexically normalised: `.` dropped, `x/..` folded (`a/b/../c` is `a/c`); no file is read, so
/// links are not followed.
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
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
            at in proptest::option::of(0..inject::WRITE_STEPS),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("kernel.cpp");
            std::fs::write(&p, &old).unwrap();
            inject::interrupt_after(at);
            let r = write_atomic(&p, &new);
            inject::interrupt_after(None);
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
