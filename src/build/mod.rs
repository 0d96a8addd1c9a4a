//! `ascend_tune::build`: the library API for operator crates whose `build.rs` compiles kernels (for
//! example with the `cc` crate). It reads the crate's `ascend.toml` and `ascend-tune.lock`, refuses to
//! build when an op's sources no longer match what the lock recorded, and tells cargo to run the build
//! script again when the manifest, the lock or any source changes. It shares the manifest reader, the
//! source list and the lockfile's staleness test with `check`, so the two never disagree. It knows nothing
//! of tuning, backends or the command line.
//!
//! In the `main` of an operator crate's build.rs:
//!
//! ```no_run
//! let locked = ascend_tune::build::verify_or_exit();
//! for op in &locked.ops {
//!     op.export_params(); // ASCEND_TUNE_<OP>_<PARAM> for env!() in the crate
//!     // cc::Build::new().cpp(true).files(&op.kernel).compile(&op.name);
//! }
//! ```

use crate::errors::Error;
use crate::lockfile::Lockfile;
use crate::manifest::Manifest;
use miette::Diagnostic;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Set to 1 to build with a stale lock (a warning instead of an error), e.g. while editing a kernel.
pub const ALLOW_STALE_ENV: &str = "ASCEND_TUNE_ALLOW_STALE";

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum BuildError {
    /// The manifest or lockfile cannot be read (their own errors name the file, line and fix).
    #[error(transparent)]
    #[diagnostic(transparent)]
    Tool(#[from] Error),

    #[error(
        "{}: not set; ascend_tune::build reads it to find the crate's ascend.toml",
        "CARGO_MANIFEST_DIR"
    )]
    #[diagnostic(help(
        "call ascend_tune::build from a build script run by cargo, or use verify_dir(path)"
    ))]
    NotInBuildScript,

    #[error("op `{op}` has no entry in {} for its shape, SoC {soc} and backend {backend}", lock.display())]
    #[diagnostic(help(
        "run `cargo ascend-tune tune` in {} and commit ascend-tune.lock", dir.display()
    ))]
    NotLocked {
        op: String,
        lock: PathBuf,
        dir: PathBuf,
        soc: String,
        backend: String,
    },

    #[error("op `{op}`: {} changed since {} was written", files.join(", "), lock.display())]
    #[diagnostic(help(
        "run `cargo ascend-tune tune` in {} to tune the new sources and refresh the lock (or restore the files from version control); set {ALLOW_STALE_ENV}=1 to build anyway",
        dir.display()
    ))]
    Stale {
        op: String,
        /// Paths relative to the crate, as the lock records them.
        files: Vec<String>,
        lock: PathBuf,
        dir: PathBuf,
    },
}

/// What the lock says about the crate's ops, after checking it matches the sources.
#[derive(Debug, Clone)]
pub struct Locked {
    /// The crate's folder (holding ascend.toml).
    pub root: PathBuf,
    pub manifest_path: PathBuf,
    pub lock_path: PathBuf,
    pub ops: Vec<LockedOp>,
    /// Ops whose lock is stale but that were let through by `ASCEND_TUNE_ALLOW_STALE`.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct LockedOp {
    pub name: String,
    /// Absolute paths.
    pub host: Vec<PathBuf>,
    pub kernel: Vec<PathBuf>,
    pub tiling_header: Option<PathBuf>,
    /// Every file the lock hashes for this op (sources and the files tunables live in), absolute.
    pub files: Vec<PathBuf>,
    /// The tuned parameter values (they are also written into the sources).
    pub params: BTreeMap<String, i64>,
    pub latency_us: f64,
    pub modelled: bool,
}

impl LockedOp {
    /// `cargo:rustc-env=ASCEND_TUNE_<OP>_<PARAM>=<value>` for each tuned parameter, so the crate can read
    /// them with `env!` (for example a launch's block_dim).
    pub fn export_params(&self) {
        for line in self.param_env_lines() {
            println!("{line}");
        }
    }

    pub fn param_env_lines(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|(k, v)| {
                format!(
                    "cargo:rustc-env=ASCEND_TUNE_{}_{}={v}",
                    env_word(&self.name),
                    env_word(k)
                )
            })
            .collect()
    }
}

impl Locked {
    /// The files whose change must re-run the build script: the manifest, the lock and every source.
    pub fn rerun_if_changed(&self) -> Vec<PathBuf> {
        let mut out = vec![self.manifest_path.clone(), self.lock_path.clone()];
        for op in &self.ops {
            for f in &op.files {
                if !out.contains(f) {
                    out.push(f.clone());
                }
            }
        }
        out
    }
}

fn env_word(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect()
}

/// For a build script: checks the crate at `CARGO_MANIFEST_DIR` and prints the `cargo:rerun-if-changed`
/// lines (and a `cargo:warning` per op let through with a stale lock).
pub fn verify() -> Result<Locked, BuildError> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR").ok_or(BuildError::NotInBuildScript)?;
    let dir = PathBuf::from(dir);
    // Named before reading anything, so that cargo re-runs the script once a missing or broken file is fixed.
    println!("cargo:rerun-if-env-changed={ALLOW_STALE_ENV}");
    println!(
        "cargo:rerun-if-changed={}",
        dir.join(crate::manifest::FILE_NAME).display()
    );
    println!("cargo:rerun-if-changed={}", Lockfile::path(&dir).display());
    let allow_stale = std::env::var(ALLOW_STALE_ENV).is_ok_and(|v| v == "1" || v == "true");
    let locked = verify_dir(&dir, allow_stale)?;
    for f in locked.rerun_if_changed() {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    for w in &locked.warnings {
        println!("cargo:warning={w}");
    }
    Ok(locked)
}

/// [`verify`], and on failure prints the error with its fix to stderr (cargo shows it) and exits 1.
pub fn verify_or_exit() -> Locked {
    match verify() {
        Ok(l) => l,
        Err(e) => {
            let mut out = String::new();
            let handler = miette::GraphicalReportHandler::new_themed(
                miette::GraphicalTheme::unicode_nocolor(),
            );
            if handler.render_report(&mut out, &e).is_err() {
                out = format!("error: {e}");
            }
            eprintln!("error: ascend_tune::build refused to build this crate");
            eprintln!("{}", out.trim_end());
            std::process::exit(1);
        }
    }
}

/// Checks the operator project in `dir` against its lock, printing nothing. With `allow_stale`, stale
/// ops are returned with a warning instead of failing.
pub fn verify_dir(dir: &Path, allow_stale: bool) -> Result<Locked, BuildError> {
    let dir = std::path::absolute(dir).map_err(|e| Error::io("could not resolve", dir, e))?;
    let manifest_path = dir.join(crate::manifest::FILE_NAME);
    let manifest = Manifest::load(&manifest_path)?;
    let lock_path = Lockfile::path(&dir);
    let lock = Lockfile::load(&lock_path)?;
    let backend = manifest.backend.as_str();
    let mut ops = vec![];
    let mut warnings = vec![];
    for op in &manifest.ops {
        let Some(entry) = lock.find(&op.name, &op.shape_key(), &manifest.soc, backend) else {
            return Err(BuildError::NotLocked {
                op: op.name.clone(),
                lock: lock_path,
                dir,
                soc: manifest.soc.clone(),
                backend: backend.to_string(),
            });
        };
        let sources = crate::tune::read_sources(&manifest, op)?;
        let stale = entry.stale_sources(&sources, &crate::tune::header_sources(op, &sources));
        if !stale.is_empty() {
            let err = BuildError::Stale {
                op: op.name.clone(),
                files: stale,
                lock: lock_path.clone(),
                dir: dir.clone(),
            };
            if !allow_stale {
                return Err(err);
            }
            warnings.push(format!("{err} ({ALLOW_STALE_ENV} is set: building anyway)"));
        }
        let abs = |f: &String| dir.join(f);
        ops.push(LockedOp {
            name: op.name.clone(),
            host: op.host.iter().map(abs).collect(),
            kernel: op.kernel.iter().map(abs).collect(),
            tiling_header: op.tiling_header.as_ref().map(abs),
            files: sources.keys().map(abs).collect(),
            params: entry.params.clone(),
            latency_us: entry.latency_us,
            modelled: entry.modelled,
        });
    }
    Ok(Locked {
        root: dir,
        manifest_path,
        lock_path,
        ops,
        warnings,
    })
}

#[cfg(test)]
mod tests;
