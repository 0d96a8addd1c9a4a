//! The twin backend: builds and runs candidates with the CPU twin (`crate::twin`) and times them with the
//! performance model (`crate::model`). Its latencies are modelled, and say so.

use super::{Artifact, Backend, FailureKind, Inputs, Measurement, SourceSet, TrialFailure};
use crate::errors::Result;
use crate::fsx;
use crate::manifest::{BackendKind, Manifest, OpSpec};
use crate::model::soc::Soc;
use crate::twin::Twin;
use std::path::PathBuf;

/// The first of a twin run's warnings that the kernel reached UB bytes that are another buffer's: a
/// GM -> UB copy wrote past its destination tensor (templates/twin/include/kernel/twin/copy.h,
/// `warn_past_tensor`), or a vector instruction's operand ran past the end of the UB buffer
/// `InitBuffer` carved for it (kernel_runtime.cpp, `ub_check_in_buffer`). What such a kernel computes
/// depends on the UB layout, so a candidate whose run or shape probe warns so, where the unmodified
/// op's did not, fails (`tune::evaluate`), and a shape probe where the unmodified op warns so is left
/// out (`run_outputs`).
pub fn spill(warnings: &[String]) -> Option<&str> {
    warnings
        .iter()
        .find(|w| w.contains("past the end of its destination tensor") || past_ub_buffer(w))
        .map(String::as_str)
}

/// Whether a twin warning is a vector operand past the end of its carved UB buffer (the words
/// kernel_runtime.cpp's `ub_check_in_buffer` writes).
pub fn past_ub_buffer(warning: &str) -> bool {
    warning.contains("past the end of its UB buffer")
}

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
        let mut twin = Twin::prepare_in(&work_dir, &cache, &crate::twin::runtime_root(&cache))?;
        twin.set_mounts(manifest.include_as.clone());
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

impl TwinBackend {
    fn run_twin(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
    ) -> std::result::Result<crate::twin::RunOutput, TrialFailure> {
        let files = self.input_files(op, inputs).map_err(|e| {
            let kind = if fsx::is_disk_full(&e) {
                FailureKind::Infra
            } else {
                FailureKind::Crash
            };
            TrialFailure::new(kind, format!("writing inputs: {e}"))
        })?;
        self.twin.run(op, artifact, self.soc, &files)
    }

    /// A run for outputs only (a shape probe), failed where its trace shows a UB race (`model::race`),
    /// which the twin's right outputs cannot show: a probe shape with more tiles than the tuned one may
    /// reuse a buffer the tuned shape never does.
    fn run_unraced(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
    ) -> std::result::Result<crate::twin::RunOutput, TrialFailure> {
        let out = self.run_twin(op, artifact, inputs)?;
        // A trace the model cannot read is the timed run's error to report, not a probe's.
        if let Ok(trace) = crate::model::trace::parse(&out.trace)
            && let Some(race) = crate::model::race::ub_races(&trace, 1).first()
        {
            return Err(TrialFailure::new(FailureKind::Fault, race.describe()));
        }
        Ok(out)
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

    fn setup(&self) -> Option<super::Setup> {
        let r = self.twin.runtime();
        let what = if r.cached() {
            format!("the twin runtime, from the cache in {}", r.dir.display())
        } else if r.compiled.is_empty() {
            format!("the twin runtime, unpacked into {}", r.dir.display())
        } else {
            format!(
                "the twin runtime, compiled once for this machine and compiler ({} units) into {}",
                r.compiled.len(),
                r.dir.display()
            )
        };
        Some(super::Setup {
            what,
            cached: r.cached(),
        })
    }

    fn build(
        &self,
        op: &OpSpec,
        sources: &SourceSet,
    ) -> std::result::Result<Artifact, TrialFailure> {
        self.twin.build(&self.root, &self.include, op, sources)
    }

    /// Points that differ only in tunables the twin can read at run time share one build
    /// (`crate::twin::runtime`).
    fn build_point(
        &self,
        op: &OpSpec,
        sources: &SourceSet,
        tunables: &[crate::rewrite::params::Placed],
    ) -> std::result::Result<Artifact, TrialFailure> {
        self.twin
            .build_point(&self.root, &self.include, op, sources, tunables)
    }

    fn run(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        keep_trace: bool,
    ) -> std::result::Result<Measurement, TrialFailure> {
        let out = self.run_twin(op, artifact, inputs)?;
        let mut m =
            Measurement::modelled(&out.trace, self.soc, out.outputs, keep_trace, "the twin")?;
        m.block_dim = out.tiling.block_dim;
        m.warnings = out.warnings;
        Ok(m)
    }

    fn infer_outputs(
        &self,
        op: &OpSpec,
        inputs: &Inputs,
    ) -> std::result::Result<Option<Vec<crate::twin::protocol::InferredOutput>>, String> {
        let files = self
            .input_files(op, inputs)
            .map_err(|e| format!("writing inputs: {e}"))?;
        self.twin
            .infer_outputs(&self.root, &self.include, op, self.soc, &files, None)
    }

    fn infer_outputs_built(
        &self,
        op: &OpSpec,
        inputs: &Inputs,
        built: &Artifact,
    ) -> std::result::Result<Option<Vec<crate::twin::protocol::InferredOutput>>, String> {
        let files = self
            .input_files(op, inputs)
            .map_err(|e| format!("writing inputs: {e}"))?;
        self.twin
            .infer_outputs(&self.root, &self.include, op, self.soc, &files, Some(built))
    }

    fn tiling_refusal(
        &self,
        op: &OpSpec,
        inputs: &Inputs,
    ) -> std::result::Result<Option<String>, String> {
        let files = self
            .input_files(op, inputs)
            .map_err(|e| format!("writing inputs: {e}"))?;
        self.twin
            .tiling_refusal(&self.root, &self.include, op, self.soc, &files)
    }

    /// A shape probe: the twin runs the kernel, the performance model is not asked; its trace is
    /// checked for UB races (`run_unraced`). A copy into UB past its tensor or a vector operand past
    /// its buffer (`spill`) fails it too: a probe's tail may copy more than the tuned shape's tiles
    /// do. (`Probes::prepare` asks `run_outputs_overrunning` where the unmodified op overruns.)
    fn run_outputs(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
    ) -> std::result::Result<Vec<Vec<u8>>, TrialFailure> {
        let out = self.run_unraced(op, artifact, inputs)?;
        if let Some(w) = spill(&out.warnings) {
            return Err(TrialFailure::new(FailureKind::Fault, w.to_string()));
        }
        Ok(out.outputs)
    }

    fn run_outputs_overrunning(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        gap: u32,
    ) -> Option<std::result::Result<Vec<Vec<u8>>, TrialFailure>> {
        let mut spaced = artifact.clone();
        if gap > 0 {
            spaced
                .run_env
                .push(("ASCEND_TWIN_UB_GAP".into(), gap.to_string()));
        }
        Some(self.run_unraced(op, &spaced, inputs).map(|out| out.outputs))
    }

    fn run_outputs_filled(
        &self,
        op: &OpSpec,
        artifact: &Artifact,
        inputs: &Inputs,
        fill: u8,
    ) -> Option<std::result::Result<Vec<Vec<u8>>, TrialFailure>> {
        let mut filled = artifact.clone();
        filled
            .run_env
            .push(("ASCEND_TWIN_OUTPUT_FILL".into(), fill.to_string()));
        Some(self.run_outputs(op, &filled, inputs))
    }
}

#[cfg(test)]
mod tests {
    use super::spill;

    /// Both of the twin's words for reaching another buffer's UB bytes count as a spill; other
    /// warnings do not.
    #[test]
    fn a_copy_or_a_vector_operand_past_its_buffer_is_a_spill() {
        let copy = "DataCopyPad writes 128 bytes of UB from address 1024, past the end of its destination tensor (64 bytes)";
        let vector = "op `asinh`, in the twin's kernel run: Mul reads or writes 256 bytes of UB from address 160, past the end of its UB buffer (32 bytes from address 160, carved at op_kernel/asinh.h:90)";
        let other = "DataCopy: 12 bytes is not a multiple of 32; only 0 bytes are copied";
        assert_eq!(spill(&[other.into(), copy.into()]), Some(copy));
        assert_eq!(spill(&[other.into(), vector.into()]), Some(vector));
        assert_eq!(spill(&[other.into()]), None);
    }
}
