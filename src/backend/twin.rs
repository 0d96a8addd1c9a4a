//! The twin backend: builds and runs candidates with the CPU twin (`crate::twin`) and times them with the
//! performance model (`crate::model`). Its latencies are modelled, and say so.

use super::{Artifact, Backend, FailureKind, Inputs, Measurement, SourceSet, TrialFailure};
use crate::errors::Result;
use crate::fsx;
use crate::manifest::{BackendKind, Manifest, OpSpec};
use crate::model::soc::Soc;
use crate::twin::Twin;
use std::path::PathBuf;

pub struct TwinBackend {
    twin: Twin,
    root: PathBuf,
    include: Vec<PathBuf>,
    soc: &'static Soc,
    data_dir: PathBuf,
}

impl TwinBackend {
    pub fn open(
        manifest: &Manifest,
        soc: &'static Soc,
        work_dir: PathBuf,
        cache: PathBuf,
    ) -> Result<Self> {
        let twin = Twin::prepare(&work_dir, &cache)?;
        Ok(TwinBackend {
            twin,
            root: manifest.root.clone(),
            include: manifest.include.clone(),
            soc,
            data_dir: work_dir.join("data"),
        })
    }

    /// Input tensors as files, written once per content.
    fn input_files(&self, op: &OpSpec, inputs: &Inputs) -> std::io::Result<Vec<PathBuf>> {
        let dir = self.data_dir.join(&inputs.key);
        std::fs::create_dir_all(&dir)?;
        let mut paths = vec![];
        for (t, bytes) in op.inputs.iter().zip(&inputs.tensors) {
            let p = dir.join(format!("{}.bin", t.name));
            if std::fs::metadata(&p)
                .map(|m| m.len() != bytes.len() as u64)
                .unwrap_or(true)
            {
                let tmp = dir.join(format!(".{}.{}", t.name, fsx::unique_suffix()));
                fsx::write_file(&tmp, bytes)?;
                std::fs::rename(&tmp, &p)?;
            }
            paths.push(p);
        }
        Ok(paths)
    }
}

impl Backend for TwinBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Twin
    }

    fn soc(&self) -> &'static Soc {
        self.soc
    }

    fn fingerprint(&self) -> String {
        format!("twin-{}", self.twin.version())
    }

    fn build(
        &self,
        op: &OpSpec,
        sources: &SourceSet,
    ) -> std::result::Result<Artifact, TrialFailure> {
        self.twin.build(&self.root, &self.include, op, sources)
    }

    fn run(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> std::result::Result<Measurement, TrialFailure> {
        let files = self.input_files(op, inputs).map_err(|e| {
            let kind = if fsx::is_disk_full(&e) {
                FailureKind::Infra
            } else {
                FailureKind::Crash
            };
            TrialFailure::new(kind, format!("writing inputs: {e}"))
        })?;
        let out = self.twin.run(op, artifact, self.soc, &files)?;
        let mut m =
            Measurement::modelled(&out.trace, self.soc, out.outputs, keep_trace, "the twin")?;
        m.block_dim = out.tiling.block_dim;
        Ok(m)
    }
}
