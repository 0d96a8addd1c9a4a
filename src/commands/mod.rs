//! The flows behind each command: they put the library's parts together in the order a command needs
//! and print through `report`. Shared here: finding the manifest, choosing ops, opening the backend.

pub mod bank;
pub mod bench;
pub mod check;
pub mod cmake_module;
pub mod dispatch;
pub mod init;
pub mod model_trace;
pub mod probe_tunables;
pub mod report;
pub mod run;
pub mod tune;
pub mod twin_package;
pub mod workspace;

use crate::backend::{self, Backend};
use crate::cli::args::{BackendArg, Common};
use crate::errors::{Error, Result};
use crate::manifest::{BackendKind, Manifest, OpSpec};
use std::path::PathBuf;
use std::sync::Arc;

/// What every command starts from. The backend is opened only when asked for, after the cheap checks
/// of the command line, so bad input is reported before any compiler runs.
pub struct Session {
    pub manifest: Manifest,
    /// `target/ascend-tune/` of the project (or the folder `--workspace` chose under the cargo workspace's
    /// target directory): every working file lives here.
    pub work: PathBuf,
    kind: BackendKind,
    soc: String,
}

impl Session {
    pub fn open(common: &Common) -> Result<Session> {
        let path = match &common.manifest_path {
            Some(p) if p.is_dir() => p.join(crate::manifest::FILE_NAME),
            Some(p) => p.clone(),
            None => {
                let cwd =
                    std::env::current_dir().map_err(|e| Error::io("could not read", ".", e))?;
                Manifest::find(&cwd).ok_or_else(|| {
                    Error::bad_input(
                        format!(
                            "could not find `{}` in {} or any folder above it",
                            crate::manifest::FILE_NAME,
                            cwd.display()
                        ),
                        Some("run inside an operator project, or pass --manifest-path".into()),
                    )
                })?
            }
        };
        if !path.is_file() {
            return Err(Error::bad_input(
                format!("manifest {} does not exist", path.display()),
                Some("pass the path of an ascend.toml".into()),
            ));
        }
        // Absolute from here on: child programs run in other folders and must still find the project.
        let path =
            std::path::absolute(&path).map_err(|e| Error::io("could not resolve", &path, e))?;
        let manifest = Manifest::load(&path)?;
        let kind = match common.backend {
            Some(BackendArg::Twin) => BackendKind::Twin,
            Some(BackendArg::Cann) => BackendKind::Cann,
            None => manifest.backend,
        };
        let soc = common.soc.clone().unwrap_or_else(|| manifest.soc.clone());
        let work = common
            .work_dir
            .clone()
            .unwrap_or_else(|| manifest.root.join("target").join("ascend-tune"));
        Ok(Session {
            manifest,
            work,
            kind,
            soc,
        })
    }

    /// The backend kind this session uses (flag over manifest).
    pub fn backend_kind(&self) -> BackendKind {
        self.kind
    }

    /// The SoC this session targets (flag over manifest), as given.
    pub fn soc_name(&self) -> &str {
        &self.soc
    }

    /// Opens the backend (for the twin: extracts it and compiles its runtime the first time).
    pub fn backend(&self) -> Result<Arc<dyn Backend>> {
        crate::fsx::create_dir_all(&self.work)?;
        Ok(Arc::from(backend::open(
            &self.manifest,
            self.kind,
            &self.soc,
            self.work.clone(),
        )?))
    }

    /// The ops a command works on: the one named by `--op`, or all.
    pub fn ops(&self, only: Option<&str>) -> Result<Vec<OpSpec>> {
        match only {
            None => Ok(self.manifest.ops.clone()),
            Some(name) => self
                .manifest
                .op(name)
                .cloned()
                .map(|o| vec![o])
                .ok_or_else(|| {
                    let names: Vec<&str> =
                        self.manifest.ops.iter().map(|o| o.name.as_str()).collect();
                    Error::bad_input(
                        format!(
                            "no op named `{name}` in {}",
                            self.manifest.source.display_name
                        ),
                        Some(format!("ops in this manifest: {}", names.join(", "))),
                    )
                }),
        }
    }
}
