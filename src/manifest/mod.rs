//! `ascend.toml`: reading, validating and the domain types the rest of the tool works with.
//!
//! Parsing happens in two stages (as in cargo-nextest): `wire` mirrors the TOML with spans and refuses
//! unknown keys; `load` validates into `Manifest`. Every error names the file, line and column and says how
//! to fix it. This module knows nothing of sources' contents, searching or building.

pub mod executor;
mod wire;

pub use executor::{ExecutorKind, SlurmSettings};

use crate::fsx;
use crate::space::Domain;
use miette::{Diagnostic, NamedSource, SourceSpan};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toml::Spanned;

pub const FILE_NAME: &str = "ascend.toml";

/// A manifest problem, pointing at the place in the file.
#[derive(Debug, thiserror::Error, Diagnostic)]
#[error("{message}")]
pub struct ManifestError {
    message: String,
    #[source_code]
    src: NamedSource<String>,
    #[label("{label}")]
    span: Option<SourceSpan>,
    label: String,
    #[help]
    help: Option<String>,
    /// (file, line, column), 1-based, when known.
    pub location: Option<(String, usize, usize)>,
}

impl ManifestError {
    pub fn new(
        source: &ManifestSource,
        span: Option<Range<usize>>,
        message: impl Into<String>,
        help: Option<String>,
    ) -> Self {
        let location = span.as_ref().map(|s| {
            let (line, col) = line_col(&source.text, s.start);
            (source.display_name.clone(), line, col)
        });
        let label = match &location {
            Some((file, line, col)) => format!("here ({file}:{line}:{col})"),
            None => String::new(),
        };
        ManifestError {
            message: message.into(),
            src: NamedSource::new(source.display_name.clone(), source.text.to_string()),
            span: span.map(|s| SourceSpan::from(s.start..s.end.max(s.start))),
            label,
            help,
            location,
        }
    }
}

/// 1-based line and column of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(before.chars().count(), |nl| {
        before[nl + 1..].chars().count()
    }) + 1;
    (line, col)
}

/// The text of the manifest, kept so later stages (space binding) can report errors at a span.
#[derive(Debug, Clone)]
pub struct ManifestSource {
    pub path: PathBuf,
    pub display_name: String,
    pub text: Arc<String>,
}

impl ManifestSource {
    pub fn error(
        &self,
        span: Range<usize>,
        message: impl Into<String>,
        help: impl Into<Option<String>>,
    ) -> ManifestError {
        ManifestError::new(self, Some(span), message, help.into())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    Twin,
    Cann,
}

impl BackendKind {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "twin" => Some(Self::Twin),
            "cann" => Some(Self::Cann),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Twin => "twin",
            Self::Cann => "cann",
        }
    }
}

/// How the project is laid out, which decides how the `cann` backend builds it (FACTS.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// An msopgen project: `op_host/` + `op_kernel/`, built with `build.sh` or `cmake --preset=default` into
    /// a `custom_opp_*.run` package.
    #[default]
    CustomOp,
    /// A kernel-launch project: its own `CMakeLists.txt` with the `RUN_MODE` switch and a host program
    /// that launches the kernel.
    KernelLaunch,
}

impl Layout {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "custom-op" => Some(Self::CustomOp),
            "kernel-launch" => Some(Self::KernelLaunch),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CustomOp => "custom-op",
            Self::KernelLaunch => "kernel-launch",
        }
    }
}

/// Where a CANN build runs the kernel: the CPU debug library, the simulator, or the NPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunMode {
    Cpu,
    Sim,
    Npu,
}

impl RunMode {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "cpu" => Some(Self::Cpu),
            "sim" => Some(Self::Sim),
            "npu" => Some(Self::Npu),
            _ => None,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Cpu => "cpu",
            Self::Sim => "sim",
            Self::Npu => "npu",
        }
    }
}

/// Element types, named as CANN's op json and `DTYPE_<NAME>` macros know them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Float16,
    BFloat16,
    Float32,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt8,
    UInt16,
    UInt32,
    UInt64,
    Bool,
}

/// One row of the dtype table.
struct DTypeRow {
    dtype: DType,
    /// The canonical name, as manifests and lockfiles write it.
    name: &'static str,
    /// Other names accepted in manifests (CANN op json spellings).
    aliases: &'static [&'static str],
    bytes: usize,
    /// The C++ type in AscendC kernels.
    c_type: &'static str,
    /// The `ge::DataType` enumerator.
    ge_name: &'static str,
}

#[rustfmt::skip]
const DTYPES: &[DTypeRow] = &[
    DTypeRow { dtype: DType::Float16, name: "float16", aliases: &["fp16", "half"], bytes: 2, c_type: "half", ge_name: "DT_FLOAT16" },
    DTypeRow { dtype: DType::BFloat16, name: "bfloat16", aliases: &["bf16"], bytes: 2, c_type: "bfloat16_t", ge_name: "DT_BF16" },
    DTypeRow { dtype: DType::Float32, name: "float32", aliases: &["fp32", "float"], bytes: 4, c_type: "float", ge_name: "DT_FLOAT" },
    DTypeRow { dtype: DType::Int8, name: "int8", aliases: &[], bytes: 1, c_type: "int8_t", ge_name: "DT_INT8" },
    DTypeRow { dtype: DType::Int16, name: "int16", aliases: &[], bytes: 2, c_type: "int16_t", ge_name: "DT_INT16" },
    DTypeRow { dtype: DType::Int32, name: "int32", aliases: &[], bytes: 4, c_type: "int32_t", ge_name: "DT_INT32" },
    DTypeRow { dtype: DType::Int64, name: "int64", aliases: &[], bytes: 8, c_type: "int64_t", ge_name: "DT_INT64" },
    DTypeRow { dtype: DType::UInt8, name: "uint8", aliases: &[], bytes: 1, c_type: "uint8_t", ge_name: "DT_UINT8" },
    DTypeRow { dtype: DType::UInt16, name: "uint16", aliases: &[], bytes: 2, c_type: "uint16_t", ge_name: "DT_UINT16" },
    DTypeRow { dtype: DType::UInt32, name: "uint32", aliases: &[], bytes: 4, c_type: "uint32_t", ge_name: "DT_UINT32" },
    DTypeRow { dtype: DType::UInt64, name: "uint64", aliases: &[], bytes: 8, c_type: "uint64_t", ge_name: "DT_UINT64" },
    DTypeRow { dtype: DType::Bool, name: "bool", aliases: &[], bytes: 1, c_type: "bool", ge_name: "DT_BOOL" },
];

impl DType {
    fn row(self) -> &'static DTypeRow {
        DTYPES
            .iter()
            .find(|r| r.dtype == self)
            .expect("every dtype has a row")
    }
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.to_ascii_lowercase();
        DTYPES
            .iter()
            .find(|r| r.name == s || r.aliases.contains(&s.as_str()))
            .map(|r| r.dtype)
    }
    pub fn name(self) -> &'static str {
        self.row().name
    }
    pub fn size(self) -> usize {
        self.row().bytes
    }
    pub fn c_type(self) -> &'static str {
        self.row().c_type
    }
    pub fn ge_name(self) -> &'static str {
        self.row().ge_name
    }
    /// The dtype whose AscendC C++ type is `c_type` (`half`, `int32_t`, ...).
    pub fn from_c_type(c_type: &str) -> Option<Self> {
        DTYPES.iter().find(|r| r.c_type == c_type).map(|r| r.dtype)
    }
    /// The dtype whose `ge::DataType` enumerator is `ge_name` (`DT_FLOAT16`, ...).
    pub fn from_ge_name(ge_name: &str) -> Option<Self> {
        DTYPES
            .iter()
            .find(|r| r.ge_name == ge_name)
            .map(|r| r.dtype)
    }
    pub fn is_float(self) -> bool {
        matches!(self, DType::Float16 | DType::BFloat16 | DType::Float32)
    }
    fn all_names() -> String {
        DTYPES.iter().map(|r| r.name).collect::<Vec<_>>().join(", ")
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct TensorSpec {
    pub name: String,
    /// The tensor's name where inputs and outputs share one namespace (kernel macros, constraint facts,
    /// the lockfile's shape key, the twin's buffer names): its name, except for an output named like an
    /// input (an in-place update), which is `<name>_ref` there, as CANN's build names its
    /// `DTYPE_<NAME>_REF` macro.
    pub key: String,
    pub dtype: DType,
    pub shape: Vec<u64>,
    /// Values generated for inputs lie in [lo, hi).
    pub range: (f64, f64),
    /// Exact values pinned by `values = [...]` (inputs only): one per element, or one for all.
    pub values: Option<Vec<f64>>,
    /// How generated data is drawn (`data = "..."`; inputs only): uniform in `range` unless set.
    pub data: Data,
    /// `list = N`: a tensor list (an OpDef `ParamType(DYNAMIC)` parameter) of N tensors, each of
    /// `shape`. Its data is the N tensors one after another (`elems` and `bytes` count them all); the
    /// kernel gets the list's descriptor (templates/twin/include/kernel/twin/list_desc.h) and the
    /// tiling function N instances of the parameter.
    pub list: Option<u32>,
}

/// How an input's generated data is drawn, where no `values` pin it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Data {
    /// Seeded uniform values in the tensor's `range`.
    #[default]
    Uniform,
    /// `data = "permutation"`: the integers 0..elements in a seeded order, for an index operand that
    /// names every row once (a MoE op's `expanded_row_idx`), at whatever shape the tensor has.
    Permutation,
    /// `data = "sorted"`: seeded uniform integers in `range`, in non-decreasing order (expert ids
    /// sorted by expert, as MoE token counting takes them).
    Sorted,
    /// `data = "counts"`: seeded non-negative integers that add up to the first axis of the op's first
    /// input (the tokens a MoE re-routing counts per rank and expert: ops-transformer's
    /// moe_re_routing reads past its tokens when they do not), at whatever shape the tensor has.
    Counts,
}

impl TensorSpec {
    /// The elements of all the tensor's data (every tensor of a list).
    pub fn elems(&self) -> u64 {
        self.shape.iter().product::<u64>() * self.list.map_or(1, u64::from)
    }
    /// How many tensors the parameter passes: 1, or a list's N.
    pub fn instances(&self) -> usize {
        self.list.map_or(1, |n| n as usize)
    }
    pub fn bytes(&self) -> u64 {
        self.elems() * self.dtype.size() as u64
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct AttrSpec {
    pub name: String,
    pub value: AttrValue,
}

#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum AttrValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Ints(Vec<i64>),
}

/// How a tunable is tied to the source: the literal it owns.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Bind {
    /// `constexpr`/`const` variable, `#define` or enum value named so.
    Symbol(String),
    /// The `arg`-th literal argument of calls to this function, e.g. `SetBlockDim(8)`.
    Call { func: String, arg: usize },
    /// How many parts the tiling divides the UB size it reads from the platform into: `var` is the
    /// variable `GetCoreMemSize(CoreMemType::UB, var)` fills, and the value N is the statement
    /// `var = var / N;` right after that call (none there is N = 1). A tiling that plans for 1/N of the
    /// UB cuts each core's work into more, smaller tiles, which overlap copies with compute better when
    /// a core has only a few. `function` names the function whose query it is, where the file
    /// queries into a variable of that name in more than one (a tiling function and its
    /// TilingPrepare: ops-math's real and fused_mul_add_n); `None`: the file's only such query.
    UbParts {
        var: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        function: Option<String>,
    },
    /// The literal a tiling function assigns to this field of its tiling data: `tiling->tileNum = 8;`,
    /// `tiling.tileNum = 8;` or the registered struct's setter `tiling.set_tileNum(8);`. The field a
    /// beginner's tiling sets to a constant (the learning hub's `tileNum`) is the tiling choice itself.
    Field { field: String },
}

#[derive(Debug, Clone)]
pub struct TunableSpec {
    pub name: String,
    /// Path relative to the project root.
    pub file: String,
    pub bind: Bind,
    pub domain: Domain,
    pub span: Range<usize>,
}

#[derive(Debug, Clone)]
pub struct ConstraintSpec {
    pub text: String,
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Default)]
pub struct TuneDefaults {
    pub budget: Option<u32>,
    pub strategy: Option<String>,
    pub seed: Option<u64>,
    pub data_seed: Option<u64>,
    /// External rewriter: a program and its arguments, run without a shell; the prompt and output file
    /// paths are appended.
    pub rewriter: Option<Vec<String>>,
    /// Turns the external rewriter gets in one tune.
    pub rewriter_attempts: Option<u32>,
    /// `derive-constraints`: whether the tool adds the constraints it reads from the kernel (default on).
    pub derive_constraints: Option<bool>,
    /// `noise-floor`: how much faster (percent) a candidate must be than the sources to be written back.
    pub noise_floor: Option<f64>,
    /// `shape-probes`: whether candidates are verified on shape probes too (default on).
    pub shape_probes: Option<bool>,
    /// `probe-max-elems`: elements of the largest tensor in the `largest` shape probe.
    pub probe_max_elems: Option<u64>,
    /// `probe-every-candidate`: run every candidate that passes at the tuned shape on the shape probes,
    /// not only those faster than the sources by the noise floor (default off: a slower one could
    /// never be written back, so its probes would decide nothing).
    pub probe_every_candidate: Option<bool>,
}

#[derive(Debug, Clone)]
pub struct OpSpec {
    /// The kernel entry function (also the op's name in reports and the lockfile).
    pub name: String,
    /// The OpDef type registered with `OP_ADD`, e.g. `AddCustom`.
    pub op_type: String,
    pub host: Vec<String>,
    pub kernel: Vec<String>,
    pub tiling_header: Option<String>,
    /// `stub-undefined = true`: the twin links the op's programs even when their sources call functions
    /// that none of them defines (another SoC's tiling path in a file the manifest does not list, as
    /// ops-cv's arch35 `...Regbase` tilings): each such function becomes a stub that stops the program
    /// with an error naming it if it is ever called. Off by default: a missing definition is then a
    /// link error. `init` sets it when its search for the defining sources finds none.
    pub stub_undefined: bool,
    pub inputs: Vec<TensorSpec>,
    /// Optional inputs the call leaves out (`absent = true`), each with where it sits among `inputs`.
    pub absent: Vec<AbsentInput>,
    pub outputs: Vec<TensorSpec>,
    pub attrs: Vec<AttrSpec>,
    pub constraints: Vec<ConstraintSpec>,
    pub tunables: Vec<TunableSpec>,
    pub tune: TuneDefaults,
    pub tolerance: Option<f64>,
    /// Kernel-launch projects: the program the project's CMake builds (`ascendc_kernels_bbit` unless
    /// the manifest says otherwise), a path relative to the build folder. None for custom-op projects.
    pub program: Option<String>,
    /// Custom-op projects on CANN: the aclnn caller app, a program and its arguments run without a shell.
    pub app: Option<Vec<String>>,
    /// `golden`: the user's check of the outputs, a program and its arguments run without a shell in
    /// the project root with the input and output files appended; exit code 0 accepts them
    /// (`crate::verify::golden`).
    pub golden: Option<Vec<String>>,
    /// Kernel-launch projects that make and check their own data (the asc-devkit examples'
    /// `gen_data.py` / `verify_result.py`): `prepare` runs in the run folder before the program (it writes
    /// the program's input files and the expected results there), `verify` runs there after it; each is a
    /// program and its arguments run without a shell, a relative program path with a `/` taken from the
    /// project root (`crate::backend::data_flow`), or several such commands run in order (a run.sh
    /// that makes three cases' data). A `verify` that exits non-zero makes the trial wrong.
    pub prepare: Option<Vec<Vec<String>>>,
    pub verify: Option<Vec<Vec<String>>>,
    /// `starts-processes`: kernel-launch projects only, the program starts processes of its own (the
    /// CANN samples' stories run their `gen_data.py` with `std::system`). Candidate programs run under a
    /// filter that fails process creation (`crate::child`); this one runs without it, still in its own
    /// process group under the time and memory limits, all of which the end of a run kills.
    pub starts_processes: bool,
    /// `cmake-defines`: kernel-launch projects only, `NAME=VALUE` (or `NAME`) definitions passed to the
    /// project's CMake as `-DNAME=VALUE` when it is configured, for a CMakeLists.txt that stops without
    /// them (the asc-devkit examples that need `-DSCENARIO_NUM=1/2`).
    pub cmake_defines: Vec<String>,
    /// Where the op's program reads each input (`file` of `[[op.input]]`), relative to the folder it
    /// runs in; in `inputs` order. Default `input/input_<name>.bin`.
    pub input_files: Vec<String>,
    /// Where the op's program writes each output, in `outputs` order. Default `output/output_<name>.bin`.
    pub output_files: Vec<String>,
    /// `weight`: the declared shape's weight in the objective of a tune over several shapes (default 1).
    pub weight: f64,
    /// `[[op.shape]]`: further shapes the op serves. A tune minimises the weighted geometric mean of
    /// the latencies at the declared shape and these, verifies every candidate at each, and locks each.
    pub shapes: Vec<ShapeCase>,
    pub span: Range<usize>,
}

/// The name of the shape the op's tensors declare, among its `[[op.shape]]`s.
pub const DECLARED_SHAPE: &str = "declared";

/// One `[[op.shape]]`: the dims of the tensors it names; the others keep their declared shape.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapeCase {
    pub name: String,
    pub weight: f64,
    pub dims: std::collections::BTreeMap<String, Vec<u64>>,
}

impl ShapeCase {
    /// `inputs` and `outputs` with this case's dims (by tensor name: an in-place pair changes together).
    fn applied(
        &self,
        inputs: &[TensorSpec],
        outputs: &[TensorSpec],
    ) -> (Vec<TensorSpec>, Vec<TensorSpec>) {
        let map = |ts: &[TensorSpec]| -> Vec<TensorSpec> {
            ts.iter()
                .map(|t| {
                    let mut t = t.clone();
                    if let Some(d) = self.dims.get(&t.name) {
                        t.shape = d.clone();
                    }
                    t
                })
                .collect()
        };
        (map(inputs), map(outputs))
    }
}

/// A shape's `weight`: a finite number > 0.
fn shape_weight(w: &Spanned<f64>) -> Result<f64, (String, &'static str)> {
    let v = *w.get_ref();
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err((
            format!("weight {v} is not a positive number"),
            "for example weight = 2.0 (this shape counts twice as much as one of weight 1)",
        ))
    }
}

impl OpSpec {
    /// Every shape the op serves, named and weighted, the declared one first; each op has only its
    /// own tensors' shapes (and no further `shapes`). A single entry when there is no `[[op.shape]]`.
    pub fn cases(&self) -> Vec<(String, f64, OpSpec)> {
        let mut base = self.clone();
        base.shapes.clear();
        let mut out = vec![(DECLARED_SHAPE.to_string(), self.weight, base.clone())];
        for c in &self.shapes {
            let (inputs, outputs) = c.applied(&self.inputs, &self.outputs);
            out.push((
                c.name.clone(),
                c.weight,
                OpSpec {
                    inputs,
                    outputs,
                    ..base.clone()
                },
            ));
        }
        out
    }

    /// For an op without outputs, what running it cannot check, said where results would be verified.
    pub fn unverified_note(&self) -> Option<String> {
        // A `verify` command checks what the program wrote in each run, tensors or not.
        (self.outputs.is_empty() && self.verify.is_none()).then(|| {
            format!(
                "op `{}` has no outputs, so nothing of its results is verified: a candidate counts as correct when it runs without a fault",
                self.name
            )
        })
    }

    /// Every source file the op is built from, host first.
    pub fn sources(&self) -> impl Iterator<Item = &String> {
        self.host
            .iter()
            .chain(self.kernel.iter())
            .chain(self.tiling_header.iter())
    }

    /// The shape key of the lockfile: inputs and outputs with dtypes and shapes, in order, each by its
    /// `key` (so an output named like an input reads `<name>_ref`).
    pub fn shape_key(&self) -> String {
        let key = Self::shape_key_of(&self.inputs, &self.outputs);
        if self.absent.is_empty() {
            return key;
        }
        let absent: Vec<String> = self
            .absent
            .iter()
            .map(|a| format!("{}:absent", a.name))
            .collect();
        format!("{key} {}", absent.join(" "))
    }

    fn shape_key_of(inputs: &[TensorSpec], outputs: &[TensorSpec]) -> String {
        inputs
            .iter()
            .chain(outputs.iter())
            .map(|t| {
                let dims: Vec<String> = t.shape.iter().map(|d| d.to_string()).collect();
                // Pinned values feed value-dependent tilings, so they are part of the problem solved.
                let pinned = t.values.as_ref().map_or(String::new(), |v| {
                    let v: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                    format!("={}", v.join(","))
                });
                let drawn = match t.data {
                    Data::Uniform => "",
                    Data::Permutation => "=permutation",
                    Data::Sorted => "=sorted",
                    Data::Counts => "=counts",
                };
                format!(
                    "{}:{}[{}]{pinned}{drawn}",
                    t.key,
                    t.dtype.name(),
                    dims.join(",")
                )
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// An optional OpDef input the call leaves out (`[[op.input]]` with `absent = true`; ops-transformer's MoE
/// examples pass `nullptr` for `probs`). The kernel gets a null address in its place; the tiling sees no
/// tensor for it (`GetOptionalInputShape` gives null).
#[derive(Debug, Clone, PartialEq)]
pub struct AbsentInput {
    /// How many of the op's (present) inputs come before it.
    pub position: usize,
    pub name: String,
    /// For the kernel's `DTYPE_<NAME>` macro (the OpDef's; float16 when the manifest gives none).
    pub dtype: DType,
}

#[derive(Debug, Clone)]
pub struct Manifest {
    pub source: ManifestSource,
    /// The folder holding `ascend.toml`: all relative paths start here.
    pub root: PathBuf,
    pub soc: String,
    pub backend: BackendKind,
    pub layout: Layout,
    /// `cmake-source` (kernel-launch only): the folder, relative to the root, whose `CMakeLists.txt` the
    /// project is configured from, when it is not the root itself (e.g. `examples/`, with sources
    /// beside it under the root). None: the root.
    pub cmake_source: Option<PathBuf>,
    /// `cmake-include` (kernel-launch only): CMake files of the larger build the project's
    /// CMakeLists.txt is part of (hicann/cann-samples' `cmake/sample_common.cmake`, whose
    /// `cann_sample_check_arch` every sample calls), as paths from the root. When there are any, the
    /// project is configured through a wrapper CMakeLists.txt that finds the ASC package, declares a
    /// project, sets `NPU_ARCH` to the SoC's architecture, includes them and adds the project's folder
    /// (`crate::backend::cmake_flow`).
    pub cmake_include: Vec<PathBuf>,
    /// `cann-path`: the CANN toolkit to use (absolute, or relative to the project root), searched before
    /// the environment; with the span of its value, for errors about it.
    pub cann_path: Option<(PathBuf, Range<usize>)>,
    /// `run-mode`: None lets the backend choose (cpu on the twin package, npu on a real CANN).
    pub run_mode: Option<RunMode>,
    /// `devices`: the NPU device ids trials may use, in parallel. Empty: `ASCEND_RT_VISIBLE_DEVICES` or
    /// device 0.
    pub devices: Vec<u32>,
    pub include: Vec<PathBuf>,
    /// `include-as`: (a path inside the project, the folder outside it the build shows there), so a
    /// source's `#include "../utils/x.h"` finds a sibling folder the way the original build lays it out.
    pub include_as: Vec<(PathBuf, PathBuf)>,
    /// `[project] executor`: where `tune` and `bench` run per-op work unless `--executor` says otherwise.
    pub executor: ExecutorKind,
    /// `[slurm]`: what this project's jobs are submitted with under `--executor slurm`.
    pub slurm: SlurmSettings,
    pub ops: Vec<OpSpec>,
}

impl Manifest {
    /// Finds `ascend.toml` in `start` or the nearest folder above it.
    pub fn find(start: &Path) -> Option<PathBuf> {
        start
            .ancestors()
            .map(|d| d.join(FILE_NAME))
            .find(|p| p.is_file())
    }

    pub fn load(path: &Path) -> crate::errors::Result<Manifest> {
        let text = fsx::read_to_string(path)?;
        Ok(Self::parse(text, path)?)
    }

    /// A manifest from its text, as if read from `path` (paths in it are relative to its folder).
    pub fn parse(text: String, path: &Path) -> std::result::Result<Manifest, ManifestError> {
        let display_name = path.display().to_string();
        let source = ManifestSource {
            path: path.to_path_buf(),
            display_name,
            text: Arc::new(text),
        };
        validate(source)
    }

    pub fn op(&self, name: &str) -> Option<&OpSpec> {
        self.ops.iter().find(|o| o.name == name)
    }
}

fn span<T>(s: &Spanned<T>) -> Range<usize> {
    s.span()
}

fn validate(source: ManifestSource) -> Result<Manifest, ManifestError> {
    let wire: wire::Manifest = toml::from_str(&source.text).map_err(|e| {
        let message = format!("{} is not a valid manifest: {}", source.display_name, e.message().trim());
        let help = if e.message().contains("unknown field") {
            Some("remove the key or fix its spelling; the keys each table accepts are listed in the README".into())
        } else {
            Some("fix the TOML at the marked place".into())
        };
        ManifestError::new(&source, e.span(), message, help)
    })?;
    let root = source
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let root = if root.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        root
    };
    let err =
        |sp: Range<usize>, msg: String, help: &str| source.error(sp, msg, Some(help.to_string()));

    let slurm = executor::slurm(&source, wire.slurm)?;
    let mut executor_kind = ExecutorKind::Local;
    let project = wire.project;
    let (mut soc, mut backend, mut cann_path, mut include) =
        ("Ascend910B1".to_string(), BackendKind::Twin, None, vec![]);
    let (mut layout, mut run_mode, mut devices) = (Layout::default(), None, vec![]);
    let mut cmake_source = None;
    let mut cmake_include = vec![];
    let mut include_as = vec![];
    if let Some(p) = project {
        executor_kind = executor::executor(&source, p.executor)?;
        if let Some(s) = p.soc {
            let Some(found) = crate::model::soc::lookup(s.get_ref()) else {
                let known: Vec<&str> = crate::model::soc::all().iter().map(|s| s.name).collect();
                return Err(err(
                    span(&s),
                    format!("unknown SoC `{}`", s.get_ref()),
                    &format!("use one of: {}", known.join(", ")),
                ));
            };
            soc = found.name.to_string();
        }
        if let Some(b) = p.backend {
            backend = BackendKind::parse(b.get_ref()).ok_or_else(|| {
                err(
                    span(&b),
                    format!("unknown backend `{}`", b.get_ref()),
                    "use `twin` or `cann`",
                )
            })?;
        }
        if let Some(c) = p.cann_path {
            // The toolkit lives outside the project on purpose; whether it is a CANN is checked when the
            // `cann` backend opens, so a twin run never needs it.
            if c.get_ref().trim().is_empty() {
                return Err(err(
                    span(&c),
                    "`cann-path` is empty".into(),
                    "name the CANN toolkit folder, e.g. cann-path = \"/usr/local/Ascend/ascend-toolkit/latest\", or remove the key",
                ));
            }
            cann_path = Some((root.join(c.get_ref()), span(&c)));
        }
        if let Some(l) = p.layout {
            layout = Layout::parse(l.get_ref()).ok_or_else(|| {
                err(
                    span(&l),
                    format!("unknown layout `{}`", l.get_ref()),
                    "use `custom-op` (op_host/ + op_kernel/, built by build.sh) or `kernel-launch` (a CMake project with the RUN_MODE switch)",
                )
            })?;
        }
        if let Some(c) = p.cmake_source {
            if layout != Layout::KernelLaunch {
                return Err(err(
                    span(&c),
                    "`cmake-source` is for kernel-launch projects".into(),
                    "set layout = \"kernel-launch\" under [project], or remove the key",
                ));
            }
            let dir = fsx::confined_join(&root, c.get_ref()).map_err(|m| {
                err(
                    span(&c),
                    m,
                    "name a folder inside the project; the whole project is what a candidate copies",
                )
            })?;
            if !dir.join("CMakeLists.txt").is_file() {
                return Err(err(
                    span(&c),
                    format!("`{}` holds no CMakeLists.txt", c.get_ref()),
                    "name the folder (relative to ascend.toml) whose CMakeLists.txt builds the program",
                ));
            }
            cmake_source = Some(Path::new(c.get_ref().trim_end_matches('/')).to_path_buf());
        }
        for c in p.cmake_include {
            if layout != Layout::KernelLaunch {
                return Err(err(
                    span(&c),
                    "`cmake-include` is for kernel-launch projects".into(),
                    "set layout = \"kernel-launch\" under [project], or remove the key",
                ));
            }
            if !root.join(c.get_ref()).is_file() {
                return Err(err(
                    span(&c),
                    format!("`{}` is not a file", c.get_ref()),
                    "name the CMake file (relative to ascend.toml) that defines what the project's CMakeLists.txt calls, e.g. \"../../cmake/sample_common.cmake\"",
                ));
            }
            cmake_include.push(Path::new(c.get_ref()).to_path_buf());
        }
        if let Some(m) = p.run_mode {
            run_mode = Some(RunMode::parse(m.get_ref()).ok_or_else(|| {
                err(
                    span(&m),
                    format!("unknown run-mode `{}`", m.get_ref()),
                    "use `cpu` (CPU debug library), `sim` (the simulator) or `npu` (the device)",
                )
            })?);
        }
        if let Some(d) = p.devices {
            let ids = d.get_ref();
            let bad = ids.iter().find(|&&i| !(0..=1023).contains(&i));
            let mut sorted = ids.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if ids.is_empty() || bad.is_some() || sorted.len() != ids.len() {
                return Err(err(
                    span(&d),
                    format!("devices {ids:?} is not a list of distinct device ids"),
                    "list the NPU ids trials may use, e.g. devices = [0, 1, 2, 3], or remove the key to use ASCEND_RT_VISIBLE_DEVICES",
                ));
            }
            devices = ids.iter().map(|&i| i as u32).collect();
        }
        for inc in p.include {
            // Include folders are the one place a manifest may name paths outside the project, on purpose.
            let path = root.join(inc.get_ref());
            if !path.is_dir() {
                return Err(err(
                    span(&inc),
                    format!("include folder `{}` does not exist", inc.get_ref()),
                    "create it or fix the path (relative to ascend.toml)",
                ));
            }
            include.push(path);
        }
        for (at, inc) in p.include_as {
            let path = root.join(inc.get_ref());
            if !path.is_dir() {
                return Err(err(
                    span(&inc),
                    format!("include-as folder `{}` does not exist", inc.get_ref()),
                    "create it or fix the path (relative to ascend.toml)",
                ));
            }
            let rel = Path::new(&at);
            if at.is_empty()
                || rel.is_absolute()
                || rel
                    .components()
                    .any(|c| !matches!(c, std::path::Component::Normal(_)))
            {
                return Err(err(
                    span(&inc),
                    format!("include-as name `{at}` is not a plain path inside the project"),
                    "name the folder the sources expect, relative to the project root, e.g. \"foreach_utils\"",
                ));
            }
            include_as.push((rel.to_path_buf(), path));
        }
    }

    if wire.op.is_empty() {
        return Err(ManifestError::new(&source, None, format!("{} declares no [[op]]", source.display_name),
            Some("add an [[op]] table with name, host, kernel, inputs and outputs (see fixtures/add_custom/ascend.toml)".into())));
    }

    let mut ops = Vec::new();
    for op in wire.op {
        let op_span = span(&op);
        let op = op.into_inner();
        let name = op.name.get_ref().clone();
        if !is_identifier(&name) {
            return Err(err(
                span(&op.name),
                format!("op name `{name}` is not a C identifier"),
                "name the op after its kernel entry function, e.g. `add_custom`",
            ));
        }
        if ops.iter().any(|o: &OpSpec| o.name == name) {
            return Err(err(
                span(&op.name),
                format!("op `{name}` is declared twice"),
                "give each [[op]] its own name",
            ));
        }
        let op_type = match op.op_type {
            Some(t) if is_identifier(t.get_ref()) => t.into_inner(),
            Some(t) => {
                return Err(err(
                    span(&t),
                    format!("op type `{}` is not a C identifier", t.get_ref()),
                    "use the OpDef class name given to OP_ADD, e.g. `AddCustom`",
                ));
            }
            None => camel_case(&name),
        };
        let check_file = |f: &Spanned<String>, sibling_ok: bool| -> Result<String, ManifestError> {
            // A host source may sit in a folder above the project (`../foreach_utils/op_host/x.cpp`,
            // ops-cv's `../../common/src/op_host/tiling_util.cpp`): the ops repositories build every
            // folder's host sources, and their shared helpers, into one library. It is read, never tuned
            // or written back (tunables and write-back stay inside the project).
            let climbs = {
                let mut rest = f.get_ref().as_str();
                while let Some(r) = rest.strip_prefix("../") {
                    rest = r;
                }
                rest
            };
            let confined = if sibling_ok && climbs.len() < f.get_ref().len() {
                fsx::confined_join(&root, climbs).map(|_| root.join(f.get_ref()))
            } else {
                fsx::confined_join(&root, f.get_ref())
            };
            let path = confined.map_err(|m| err(span(f), m, "keep operator sources inside the project (a host source may be in a folder above it, `../<folder>/...`); shared headers go in [project] include"))?;
            if !path.is_file() {
                return Err(err(
                    span(f),
                    format!("source file `{}` does not exist", f.get_ref()),
                    "fix the path; it is relative to the folder holding ascend.toml",
                ));
            }
            Ok(f.get_ref().clone())
        };
        if op.kernel.is_empty() {
            return Err(err(
                op_span.clone(),
                format!("op `{name}` lists no kernel source"),
                "add `kernel = [\"op_kernel/<op>.cpp\"]`",
            ));
        }
        let host = op
            .host
            .iter()
            .map(|f| check_file(f, true))
            .collect::<Result<Vec<_>, _>>()?;
        let kernel = op
            .kernel
            .iter()
            .map(|f| check_file(f, false))
            .collect::<Result<Vec<_>, _>>()?;
        let tiling_header = match &op.tiling_header {
            Some(h) => Some(check_file(h, false)?),
            None => default_tiling_header(&root, &name, &host),
        };

        let tensor = |t: Spanned<wire::Tensor>,
                      is_input: bool|
         -> Result<(TensorSpec, String), ManifestError> {
            let t = t.into_inner();
            // Where the op's own program reads or writes the tensor, relative to the folder it runs in
            // (a copy of the project's layout): inside it, like every other path of the manifest.
            let file = match &t.file {
                Some(f) => {
                    fsx::confined_join(&root, f.get_ref()).map_err(|m| {
                            err(
                                span(f),
                                m,
                                "write the path relative to the folder the program runs in, e.g. file = \"input/input_x.bin\"",
                            )
                        })?;
                    if f.get_ref().ends_with('/') || Path::new(f.get_ref()).file_name().is_none() {
                        return Err(err(
                            span(f),
                            format!("`{}` names a folder, not a file", f.get_ref()),
                            "name the .bin file the program reads or writes",
                        ));
                    }
                    f.get_ref().clone()
                }
                None => default_file(t.name.get_ref(), is_input),
            };
            if !is_identifier(t.name.get_ref()) {
                return Err(err(
                    span(&t.name),
                    format!("tensor name `{}` is not a C identifier", t.name.get_ref()),
                    "use the name the op json gives the tensor",
                ));
            }
            if let Some(a) = &t.absent {
                return Err(err(
                    span(a),
                    format!("output `{}` is marked `absent`", t.name.get_ref()),
                    "only an optional input may be left out; remove `absent` from the output",
                ));
            }
            let missing = |what: &str, example: &str| {
                err(
                    span(&t.name),
                    format!("tensor `{}` has no `{what}`", t.name.get_ref()),
                    &format!(
                        "give it, e.g. {what} = {example}, or `absent = true` for an optional input the call leaves out"
                    ),
                )
            };
            let t_dtype = t
                .dtype
                .as_ref()
                .ok_or_else(|| missing("dtype", "\"float16\""))?;
            let t_shape = t
                .shape
                .as_ref()
                .ok_or_else(|| missing("shape", "[48, 16384]"))?;
            let dtype = DType::parse(t_dtype.get_ref()).ok_or_else(|| {
                err(
                    span(t_dtype),
                    format!("unknown dtype `{}`", t_dtype.get_ref()),
                    &format!("use one of: {}", DType::all_names()),
                )
            })?;
            let dims = t_shape.get_ref();
            // `shape = []` is a scalar (one element, rank 0), as value-dependent inputs often are.
            if dims.iter().any(|&d| d <= 0) {
                return Err(err(
                    span(t_shape),
                    format!("shape {dims:?} of `{}` is impossible", t.name.get_ref()),
                    "give every dimension as a positive integer, e.g. [48, 16384], or [] for a scalar",
                ));
            }
            let shape: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
            let elems = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
            const MAX_BYTES: u64 = 4 << 30;
            if elems
                .and_then(|e| e.checked_mul(dtype.size() as u64))
                .is_none_or(|b| b > MAX_BYTES)
            {
                return Err(err(
                    span(t_shape),
                    format!(
                        "shape {dims:?} of `{}` is larger than 4 GiB",
                        t.name.get_ref()
                    ),
                    "tune on a smaller, representative shape",
                ));
            }
            let default_range = match dtype {
                DType::Bool => (0.0, 2.0),
                d if d.is_float() => (-1.0, 1.0),
                _ => (-100.0, 100.0),
            };
            let has_range = t.range.is_some();
            let range = match t.range {
                None => default_range,
                Some(r) => {
                    let v = r.get_ref();
                    if !is_input {
                        return Err(err(
                            span(&r),
                            "`range` is only meaningful on inputs".into(),
                            "remove it from the output",
                        ));
                    }
                    if v.len() != 2 || v[0] >= v[1] || !v[0].is_finite() || !v[1].is_finite() {
                        return Err(err(
                            span(&r),
                            format!("range {v:?} is not [low, high] with low < high"),
                            "write it as two finite numbers, e.g. range = [-1.0, 1.0]",
                        ));
                    }
                    (v[0], v[1])
                }
            };
            // A tensor list: 1..=256 tensors (256 is the most a CANN tensor list op takes, e.g. the
            // foreach ops' MAX_TENSOR_CONT).
            let list = match &t.list {
                None => None,
                Some(n) => {
                    let v = *n.get_ref();
                    if !(1..=256).contains(&v) {
                        return Err(err(
                            span(n),
                            format!("list = {v} of `{}` is not a tensor count", t.name.get_ref()),
                            "give the number of tensors in the list, 1 to 256, e.g. list = 4",
                        ));
                    }
                    let total = elems.unwrap_or(0) * dtype.size() as u64 * v as u64;
                    if total > MAX_BYTES {
                        return Err(err(
                            span(n),
                            format!("the list `{}` is larger than 4 GiB", t.name.get_ref()),
                            "tune on fewer or smaller tensors",
                        ));
                    }
                    Some(v as u32)
                }
            };
            let values = match &t.values {
                None => None,
                Some(v) => {
                    let elems = shape.iter().product::<u64>() * list.map_or(1, u64::from);
                    Some(
                        pinned_values(v.get_ref(), dtype, elems, is_input, has_range)
                            .map_err(|(msg, fix)| err(span(v), msg, fix))?,
                    )
                }
            };
            let data = match &t.data {
                None => Data::Uniform,
                Some(d) => {
                    let drawn = match d.get_ref().as_str() {
                        "permutation" => Data::Permutation,
                        "sorted" => Data::Sorted,
                        "counts" => Data::Counts,
                        other => {
                            return Err(err(
                                span(d),
                                format!("unknown data `{other}` of `{}`", t.name.get_ref()),
                                "use data = \"permutation\" (the integers 0..elements in a random order), \"sorted\" (random integers in `range`, ascending) or \"counts\" (random counts that add up to the first input's rows), or remove it",
                            ));
                        }
                    };
                    if !is_input || dtype.is_float() || dtype == DType::Bool || values.is_some() {
                        return Err(err(
                            span(d),
                            format!(
                                "data = \"{}\" on `{}`, which is not an integer input without `values`",
                                d.get_ref(),
                                t.name.get_ref()
                            ),
                            "such data is drawn for an integer input only; remove `values`, or `data`",
                        ));
                    }
                    if matches!(drawn, Data::Permutation | Data::Counts) && has_range {
                        return Err(err(
                            span(d),
                            format!(
                                "`{}` has both data = \"{}\" and a `range`",
                                t.name.get_ref(),
                                d.get_ref()
                            ),
                            "a permutation's values are 0..elements, counts add up to the first input's rows; remove the `range`",
                        ));
                    }
                    drawn
                }
            };
            Ok((
                TensorSpec {
                    key: t.name.get_ref().clone(),
                    name: t.name.into_inner(),
                    dtype,
                    shape,
                    range,
                    values,
                    data,
                    list,
                },
                file,
            ))
        };
        // A name may repeat across the sides (an output updating an input in place) but not within one.
        for (side, list) in [("input", &op.input), ("output", &op.output)] {
            let mut seen = std::collections::BTreeSet::new();
            for t in list.iter() {
                if !seen.insert(t.get_ref().name.get_ref().clone()) {
                    return Err(err(
                        span(&t.get_ref().name),
                        format!(
                            "{side} `{}` of op `{name}` is declared twice",
                            t.get_ref().name.get_ref()
                        ),
                        &format!(
                            "give each {side} its own name (an output may share its name with an input)"
                        ),
                    ));
                }
            }
        }
        // Optional inputs the call leaves out (`absent = true`): where they sit among the inputs, for
        // the kernel's null address; the tiling sees no tensor (templates/twin/src/host_main.cpp).
        let mut absent = vec![];
        let mut present = vec![];
        for t in op.input {
            let Some(a) = t.get_ref().absent.as_ref().filter(|a| *a.get_ref()) else {
                present.push(t);
                continue;
            };
            let w = t.get_ref();
            if let Some(extra) = w.shape.as_ref().map(span).or(w.values.as_ref().map(span)) {
                return Err(err(
                    extra,
                    format!("absent input `{}` has a shape or data", w.name.get_ref()),
                    "an absent input has neither: remove `absent = true`, or its shape and values",
                ));
            }
            let dtype = match &w.dtype {
                None => DType::Float16,
                Some(d) => DType::parse(d.get_ref()).ok_or_else(|| {
                    err(
                        span(d),
                        format!("unknown dtype `{}`", d.get_ref()),
                        &format!("use one of: {}", DType::all_names()),
                    )
                })?,
            };
            let _ = a;
            absent.push(AbsentInput {
                position: present.len(),
                name: w.name.get_ref().clone(),
                dtype,
            });
        }
        let op_input = present;
        let input_names: Vec<String> = op_input
            .iter()
            .map(|t| t.get_ref().name.get_ref().to_ascii_uppercase())
            .collect();
        let name_spans: Vec<Range<usize>> = op_input
            .iter()
            .chain(op.output.iter())
            .map(|t| span(&t.get_ref().name))
            .collect();
        let (inputs, input_files): (Vec<_>, Vec<_>) = op_input
            .into_iter()
            .map(|t| tensor(t, true))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        let (mut outputs, output_files): (Vec<_>, Vec<_>) = op
            .output
            .into_iter()
            .map(|t| tensor(t, false))
            .collect::<Result<Vec<_>, _>>()?
            .into_iter()
            .unzip();
        // An op may have no output (say, one that only waits or only writes its workspace): it runs
        // and is measured, and tuning has nothing of its results to verify (`unverified_note`).
        // CANN's build compares the names upper-cased (they become macro names).
        for t in &mut outputs {
            if input_names.contains(&t.name.to_ascii_uppercase()) {
                t.key = format!("{}_ref", t.name);
            }
        }
        // Every tensor needs its own kernel macro DTYPE_<KEY>.
        let mut keys = std::collections::BTreeMap::new();
        for (t, at) in inputs.iter().chain(outputs.iter()).zip(name_spans) {
            if let Some(other) = keys.insert(t.key.to_ascii_uppercase(), t.name.clone()) {
                return Err(err(
                    at,
                    format!(
                        "tensor `{}` of op `{name}` gets the kernel macro DTYPE_{}, as does the tensor `{other}`",
                        t.name,
                        t.key.to_ascii_uppercase()
                    ),
                    "rename one of them (names that differ only in case give one macro; an output named like an input is `<name>_ref`)",
                ));
            }
        }
        let mut seen_files = std::collections::BTreeSet::new();
        for f in input_files.iter().chain(output_files.iter()) {
            if !seen_files.insert(Path::new(f).components().collect::<PathBuf>()) {
                return Err(err(
                    op_span.clone(),
                    format!("two tensors of op `{name}` use the file `{f}`"),
                    "give each input and output its own `file`",
                ));
            }
        }
        let (program, app) = program_and_app(&source, layout, &name, op.program, op.app)?;
        let mut data_flow = [None, None];
        for (slot, (key, cmd)) in [("prepare", op.prepare), ("verify", op.verify)]
            .into_iter()
            .enumerate()
        {
            let Some(cmd) = cmd else { continue };
            if layout != Layout::KernelLaunch {
                return Err(err(
                    span(&cmd),
                    format!("`{key}` of op `{name}` is for kernel-launch projects"),
                    "set layout = \"kernel-launch\" under [project], or check a custom op's outputs with golden = [...]",
                ));
            }
            let at = span(&cmd);
            let cmds = cmd.into_inner().into_list();
            if cmds.is_empty()
                || cmds
                    .iter()
                    .any(|c| c.first().is_none_or(|p| p.trim().is_empty()))
            {
                return Err(err(
                    at,
                    format!("a {key} command of op `{name}` is empty"),
                    "name a program and its arguments, e.g. prepare = [\"python3\", \"scripts/gen_data.py\"], or several: [[\"python3\", \"a.py\"], [\"python3\", \"b.py\"]]",
                ));
            }
            data_flow[slot] = Some(cmds);
        }
        let [prepare, verify] = data_flow;
        let starts_processes = match op.starts_processes {
            Some(b) if layout != Layout::KernelLaunch => {
                return Err(err(
                    span(&b),
                    format!("`starts-processes` of op `{name}` is for kernel-launch projects"),
                    "set layout = \"kernel-launch\" under [project], or remove starts-processes",
                ));
            }
            Some(b) => b.into_inner(),
            None => false,
        };
        let cmake_defines = match op.cmake_defines {
            None => vec![],
            Some(d) => {
                if layout != Layout::KernelLaunch {
                    return Err(err(
                        span(&d),
                        format!("`cmake-defines` of op `{name}` is for kernel-launch projects"),
                        "set layout = \"kernel-launch\" under [project], or remove cmake-defines",
                    ));
                }
                if let Some(bad) = d.get_ref().iter().find(|x| !is_cmake_define(x)) {
                    return Err(err(
                        span(&d),
                        format!(
                            "`{bad}` in cmake-defines of op `{name}` is not a CMake definition"
                        ),
                        "write each as NAME=VALUE (a letter or _ first, then letters, digits or _), e.g. cmake-defines = [\"SCENARIO_NUM=1\"]",
                    ));
                }
                d.into_inner()
            }
        };
        let golden = match op.golden {
            None => None,
            Some(g) if g.get_ref().first().is_some_and(|p| !p.trim().is_empty()) => {
                Some(g.into_inner())
            }
            Some(g) => {
                return Err(err(
                    span(&g),
                    format!("the golden command of op `{name}` is empty"),
                    "name a program and its arguments, e.g. golden = [\"python3\", \"scripts/golden.py\"]; the input and output files are appended",
                ));
            }
        };

        let mut attrs = Vec::new();
        for a in op.attr {
            let a = a.into_inner();
            let value = match a.value.get_ref() {
                toml::Value::Integer(i) => AttrValue::Int(*i),
                toml::Value::Float(f) => AttrValue::Float(*f),
                toml::Value::Boolean(b) => AttrValue::Bool(*b),
                toml::Value::String(s) if !s.contains(char::is_whitespace) => {
                    AttrValue::Str(s.clone())
                }
                toml::Value::Array(items) if items.iter().all(|i| i.is_integer()) => {
                    AttrValue::Ints(items.iter().filter_map(|i| i.as_integer()).collect())
                }
                _ => {
                    return Err(err(
                        span(&a.value),
                        format!(
                            "attr `{}` has a value the twin cannot pass",
                            a.name.get_ref()
                        ),
                        "use an integer, float, bool, a string without spaces, or a list of integers",
                    ));
                }
            };
            attrs.push(AttrSpec {
                name: a.name.into_inner(),
                value,
            });
        }

        let tune = match op.tune {
            None => TuneDefaults::default(),
            Some(t) => {
                let budget = match t.budget {
                    Some(b) if *b.get_ref() > 0 && *b.get_ref() <= 1_000_000 => {
                        Some(*b.get_ref() as u32)
                    }
                    Some(b) => {
                        return Err(err(
                            span(&b),
                            format!("budget {} is out of range", b.get_ref()),
                            "use a number of trials between 1 and 1000000",
                        ));
                    }
                    None => None,
                };
                let seed_of = |s: Option<Spanned<i64>>| -> Result<Option<u64>, ManifestError> {
                    match s {
                        Some(s) if *s.get_ref() >= 0 => Ok(Some(*s.get_ref() as u64)),
                        Some(s) => Err(err(
                            span(&s),
                            "a seed must not be negative".into(),
                            "use 0 or a positive integer",
                        )),
                        None => Ok(None),
                    }
                };
                let strategy = match t.strategy {
                    Some(s) if crate::search::STRATEGY_NAMES.contains(&s.get_ref().as_str()) => {
                        Some(s.into_inner())
                    }
                    Some(s) => {
                        return Err(err(
                            span(&s),
                            format!("unknown strategy `{}`", s.get_ref()),
                            &format!("use one of: {}", crate::search::STRATEGY_NAMES.join(", ")),
                        ));
                    }
                    None => None,
                };
                let rewriter = match t.rewriter {
                    Some(r) if r.get_ref().first().is_some_and(|p| !p.trim().is_empty()) => {
                        Some(r.into_inner())
                    }
                    Some(r) => {
                        return Err(err(
                            span(&r),
                            "the rewriter command is empty".into(),
                            "name a program and its arguments, e.g. rewriter = [\"python3\", \"tools/rewrite.py\"]",
                        ));
                    }
                    None => None,
                };
                let rewriter_attempts = match t.rewriter_attempts {
                    Some(a) if (0..=1000).contains(a.get_ref()) => Some(*a.get_ref() as u32),
                    Some(a) => {
                        return Err(err(
                            span(&a),
                            format!("rewriter-attempts {} is out of range", a.get_ref()),
                            "use a number between 0 and 1000",
                        ));
                    }
                    None => None,
                };
                let noise_floor = match t.noise_floor {
                    Some(f) if (0.0..100.0).contains(f.get_ref()) => Some(*f.get_ref()),
                    Some(f) => {
                        return Err(err(
                            span(&f),
                            format!(
                                "noise-floor {} is not a percentage in [0, 100)",
                                f.get_ref()
                            ),
                            "for example noise-floor = 2.0 (a candidate must be 2% faster to be written back)",
                        ));
                    }
                    None => None,
                };
                let probe_max_elems = match t.probe_max_elems {
                    Some(m) if (1..=(1i64 << 30)).contains(m.get_ref()) => {
                        Some(*m.get_ref() as u64)
                    }
                    Some(m) => {
                        return Err(err(
                            span(&m),
                            format!("probe-max-elems {} is out of range", m.get_ref()),
                            "use a number of elements between 1 and 1073741824",
                        ));
                    }
                    None => None,
                };
                TuneDefaults {
                    budget,
                    strategy,
                    seed: seed_of(t.seed)?,
                    data_seed: seed_of(t.data_seed)?,
                    rewriter,
                    rewriter_attempts,
                    derive_constraints: t.derive_constraints.map(|d| d.into_inner()),
                    noise_floor,
                    shape_probes: t.shape_probes.map(|d| d.into_inner()),
                    probe_max_elems,
                    probe_every_candidate: t.probe_every_candidate.map(|d| d.into_inner()),
                }
            }
        };
        let tolerance = match op.tolerance {
            Some(t) if *t.get_ref() >= 0.0 && t.get_ref().is_finite() => Some(*t.get_ref()),
            Some(t) => {
                return Err(err(
                    span(&t),
                    "tolerance must be a finite number >= 0".into(),
                    "for example tolerance = 1e-3",
                ));
            }
            None => None,
        };

        let mut tunables: Vec<TunableSpec> = Vec::new();
        for t in op.tunable {
            let t_span = span(&t);
            let t = t.into_inner();
            let tname = t.name.get_ref().clone();
            if !is_identifier(&tname) {
                return Err(err(
                    span(&t.name),
                    format!("tunable name `{tname}` is not an identifier"),
                    "use letters, digits and `_`, e.g. `tile_length`",
                ));
            }
            if tunables.iter().any(|x| x.name == tname) {
                return Err(err(
                    span(&t.name),
                    format!("tunable `{tname}` is declared twice"),
                    "give each tunable its own name",
                ));
            }
            // A tunable may also live in a shared header of a folder the manifest names in
            // `include` / `include-as` (ops-nn's foreach ops plan their UB split in
            // `../foreach_utils/op_host/foreach_tiling_class.h`): the manifest chose to share it.
            let file = match check_file(&t.file, false) {
                Ok(f) => f,
                Err(e) => {
                    // Lexically, or where links lead (a copy of the project that shows the shared
                    // folders beside it as links, as `bench` lays one out).
                    let path = root.join(t.file.get_ref());
                    let at = fsx::lexical(&path);
                    let real = path.canonicalize().unwrap_or_else(|_| at.clone());
                    let shared = include
                        .iter()
                        .chain(include_as.iter().map(|(_, d)| d))
                        .any(|d| {
                            at.starts_with(fsx::lexical(d))
                                || d.canonicalize().is_ok_and(|d| real.starts_with(d))
                        });
                    if !(shared && at.is_file() && !Path::new(t.file.get_ref()).is_absolute()) {
                        return Err(e);
                    }
                    t.file.get_ref().clone()
                }
            };
            let binds = [
                t.symbol.is_some(),
                t.call.is_some(),
                t.ub_parts_of.is_some(),
                t.field.is_some(),
            ];
            if binds.iter().filter(|b| **b).count() > 1 {
                return Err(err(
                    t_span,
                    format!(
                        "tunable `{tname}` has more than one of `symbol`, `call`, `ub-parts-of` and `field`"
                    ),
                    "bind it with exactly one of symbol, call, ub-parts-of or field",
                ));
            }
            if let (Some(f), None) = (&t.ub_parts_in, &t.ub_parts_of) {
                return Err(err(
                    span(f),
                    format!("tunable `{tname}` has `ub-parts-in` without `ub-parts-of`"),
                    "ub-parts-in names the function of a ub-parts-of query; give ub-parts-of = \"<the variable it fills>\" too",
                ));
            }
            let bind = match (&t.symbol, &t.call) {
                (None, None) if t.field.is_some() => {
                    let v = t.field.as_ref().expect("checked");
                    if !is_identifier(v.get_ref()) {
                        return Err(err(
                            span(v),
                            format!("`{}` is not a C identifier", v.get_ref()),
                            "name the tiling-data field the tiling function assigns a literal, e.g. field = \"tileNum\"",
                        ));
                    }
                    Bind::Field {
                        field: v.get_ref().clone(),
                    }
                }
                (None, None) if t.ub_parts_of.is_some() => {
                    let v = t.ub_parts_of.as_ref().expect("checked");
                    if !is_member_path(v.get_ref()) {
                        return Err(err(
                            span(v),
                            format!("`{}` is not a C identifier or member", v.get_ref()),
                            "name the variable GetCoreMemSize(CoreMemType::UB, ...) fills as the call writes it, e.g. ub-parts-of = \"ubSize\" or \"this->ubSize_\"",
                        ));
                    }
                    if let Some(f) = &t.ub_parts_in
                        && !is_identifier(f.get_ref())
                    {
                        return Err(err(
                            span(f),
                            format!("`{}` is not a C identifier", f.get_ref()),
                            "name the function the UB query sits in, without its class or namespace, e.g. ub-parts-in = \"Tiling4Real\"",
                        ));
                    }
                    Bind::UbParts {
                        var: v.get_ref().clone(),
                        function: t.ub_parts_in.as_ref().map(|f| f.get_ref().clone()),
                    }
                }
                (Some(s), None) if is_identifier(s.get_ref()) => Bind::Symbol(s.get_ref().clone()),
                (Some(s), None) => {
                    return Err(err(
                        span(s),
                        format!("`{}` is not a C identifier", s.get_ref()),
                        "name the constexpr, #define or enum value that holds the parameter",
                    ));
                }
                (None, Some(c)) if is_identifier(c.get_ref()) => {
                    let arg = match &t.arg {
                        None => 0,
                        Some(a) if *a.get_ref() >= 0 && *a.get_ref() < 64 => *a.get_ref() as usize,
                        Some(a) => {
                            return Err(err(
                                span(a),
                                "`arg` must be a 0-based argument index".into(),
                                "for example arg = 0",
                            ));
                        }
                    };
                    Bind::Call {
                        func: c.get_ref().clone(),
                        arg,
                    }
                }
                (None, Some(c)) => {
                    return Err(err(
                        span(c),
                        format!("`{}` is not a function name", c.get_ref()),
                        "name the function whose literal argument is tuned, e.g. `SetBlockDim`",
                    ));
                }
                _ => {
                    return Err(err(
                        t_span,
                        format!(
                            "tunable `{tname}` needs exactly one of `symbol`, `call`, `ub-parts-of` or `field`"
                        ),
                        "bind it with symbol = \"TILE_LENGTH\", call = \"SetBlockDim\", ub-parts-of = \"ubSize\" or field = \"tileNum\"",
                    ));
                }
            };
            let domain = match (&t.values, &t.range, &t.pow2) {
                (Some(v), None, None) => Domain::list(v.get_ref().clone()).map_err(|m| {
                    err(
                        span(v),
                        m,
                        "list distinct integers, e.g. values = [1, 2, 4]",
                    )
                })?,
                (None, Some(r), None) => {
                    let v = r.get_ref();
                    let d = match v.as_slice() {
                        [a, b] => Domain::range(*a, *b, 1),
                        [a, b, s] => Domain::range(*a, *b, *s),
                        _ => Err("range takes [start, end] or [start, end, step]".to_string()),
                    };
                    d.map_err(|m| {
                        err(
                            span(r),
                            m,
                            "for example range = [1, 8] or range = [64, 1024, 64] (end included)",
                        )
                    })?
                }
                (None, None, Some(p)) => {
                    let v = p.get_ref();
                    let d = match v.as_slice() {
                        [a, b] => Domain::pow2(*a, *b),
                        _ => Err("pow2 takes [min, max]".to_string()),
                    };
                    d.map_err(|m| {
                        err(
                            span(p),
                            m,
                            "for example pow2 = [32, 16384] (both powers of two)",
                        )
                    })?
                }
                _ => {
                    return Err(err(
                        t_span,
                        format!(
                            "tunable `{tname}` needs exactly one domain: `values`, `range` or `pow2`"
                        ),
                        "for example pow2 = [32, 16384]",
                    ));
                }
            };
            tunables.push(TunableSpec {
                name: tname,
                file,
                bind,
                domain,
                span: t_span,
            });
        }
        let constraints = op
            .constraints
            .iter()
            .map(|c| ConstraintSpec {
                text: c.get_ref().clone(),
                span: span(c),
            })
            .collect();

        let weight = match &op.weight {
            None => 1.0,
            Some(w) => shape_weight(w).map_err(|(m, f)| err(span(w), m, f))?,
        };
        let mut shapes: Vec<ShapeCase> = vec![];
        let mut keys_seen = vec![(
            DECLARED_SHAPE.to_string(),
            OpSpec::shape_key_of(&inputs, &outputs),
        )];
        for (i, case) in op.shape.into_iter().enumerate() {
            let case_span = span(&case);
            let case = case.into_inner();
            let cname = match &case.name {
                Some(n) => {
                    let v = n.get_ref();
                    if v.is_empty()
                        || !v
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                    {
                        return Err(err(
                            span(n),
                            format!("shape name `{v}` is not a plain name"),
                            "use letters, digits, `-` and `_`, e.g. name = \"short-rows\"",
                        ));
                    }
                    v.clone()
                }
                None => format!("shape-{}", i + 2),
            };
            if keys_seen.iter().any(|(n, _)| *n == cname) {
                return Err(err(
                    case.name.as_ref().map_or(case_span.clone(), span),
                    format!("op `{name}` has two shapes named `{cname}`"),
                    &format!(
                        "give each [[op.shape]] its own name (`{DECLARED_SHAPE}` is the shape the tensors declare)"
                    ),
                ));
            }
            let cweight = match &case.weight {
                None => 1.0,
                Some(w) => shape_weight(w).map_err(|(m, f)| err(span(w), m, f))?,
            };
            let mut dims = std::collections::BTreeMap::new();
            for (tensor, shape) in case.dims.get_ref() {
                let known = inputs
                    .iter()
                    .chain(outputs.iter())
                    .find(|t| t.name == *tensor);
                let Some(known) = known else {
                    return Err(err(
                        span(&case.dims),
                        format!(
                            "shape `{cname}` of op `{name}` gives dims for `{tensor}`, which is no input or output of the op"
                        ),
                        "name the op's tensors, e.g. dims = { x = [8, 2048], z = [8, 2048] }",
                    ));
                };
                let d = shape.get_ref();
                if d.iter().any(|&v| v <= 0) {
                    return Err(err(
                        span(shape),
                        format!("shape {d:?} of `{tensor}` is impossible"),
                        "give every dimension as a positive integer, or [] for a scalar",
                    ));
                }
                let d: Vec<u64> = d.iter().map(|&v| v as u64).collect();
                let elems = d.iter().try_fold(1u64, |a, &v| a.checked_mul(v));
                if elems
                    .and_then(|e| e.checked_mul(known.dtype.size() as u64))
                    .is_none_or(|b| b > 4 << 30)
                {
                    return Err(err(
                        span(shape),
                        format!("shape {d:?} of `{tensor}` is larger than 4 GiB"),
                        "tune on smaller, representative shapes",
                    ));
                }
                if known.values.as_ref().is_some_and(|v| v.len() > 1)
                    && elems != Some(known.elems())
                {
                    return Err(err(
                        span(shape),
                        format!(
                            "`{tensor}` has pinned values for {} elements, so its shape cannot change",
                            known.elems()
                        ),
                        "keep its element count, or pin one value for all elements (values = [v])",
                    ));
                }
                dims.insert(tensor.clone(), d);
            }
            let case = ShapeCase {
                name: cname.clone(),
                weight: cweight,
                dims,
            };
            let (ci, co) = case.applied(&inputs, &outputs);
            let key = OpSpec::shape_key_of(&ci, &co);
            if let Some((other, _)) = keys_seen.iter().find(|(_, k)| *k == key) {
                return Err(err(
                    case_span,
                    format!(
                        "shape `{cname}` of op `{name}` gives the same tensors as the shape `{other}`"
                    ),
                    "change its dims or remove it",
                ));
            }
            keys_seen.push((cname, key));
            shapes.push(case);
        }

        ops.push(OpSpec {
            name,
            op_type,
            host,
            kernel,
            tiling_header,
            stub_undefined: op.stub_undefined.is_some_and(|s| s.into_inner()),
            inputs,
            absent,
            outputs,
            attrs,
            constraints,
            tunables,
            tune,
            tolerance,
            program,
            app,
            golden,
            prepare,
            verify,
            starts_processes,
            cmake_defines,
            input_files,
            output_files,
            weight,
            shapes,
            span: op_span,
        });
    }
    Ok(Manifest {
        source,
        root,
        soc,
        backend,
        layout,
        cmake_source,
        cmake_include,
        cann_path,
        run_mode,
        devices,
        include,
        include_as,
        executor: executor_kind,
        slurm,
        ops,
    })
}

/// The default program of a kernel-launch project, as the CANN samples name it.
pub const DEFAULT_PROGRAM: &str = "ascendc_kernels_bbit";

/// `program` (kernel-launch projects only) and `app` (custom-op projects only), checked against the layout.
#[allow(clippy::type_complexity)]
/// Whether `d` is a `-D` definition: `NAME` or `NAME=VALUE`, NAME a C identifier, VALUE anything but a
/// line break.
fn is_cmake_define(d: &str) -> bool {
    let (name, value) = d.split_once('=').unwrap_or((d, ""));
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !value.contains(['\n', '\r'])
}

fn program_and_app(
    source: &ManifestSource,
    layout: Layout,
    op: &str,
    program: Option<Spanned<String>>,
    app: Option<Spanned<Vec<String>>>,
) -> Result<(Option<String>, Option<Vec<String>>), ManifestError> {
    let err =
        |sp: Range<usize>, msg: String, help: &str| source.error(sp, msg, Some(help.to_string()));
    let program = match (layout, program) {
        (Layout::KernelLaunch, None) => Some(DEFAULT_PROGRAM.to_string()),
        (Layout::KernelLaunch, Some(p)) => {
            let name = p.get_ref();
            // A path inside the build folder: the same rules as any project path.
            let confined = fsx::confined_join(Path::new("."), name);
            if name.trim().is_empty() || confined.is_err() || name.ends_with('/') {
                return Err(err(
                    span(&p),
                    format!("program `{name}` of op `{op}` is not a path inside the build folder"),
                    "name the executable the project's CMake builds, e.g. program = \"ascendc_kernels_bbit\"",
                ));
            }
            Some(name.clone())
        }
        (Layout::CustomOp, Some(p)) => {
            return Err(err(
                span(&p),
                format!("`program` of op `{op}` is for kernel-launch projects"),
                "set layout = \"kernel-launch\" under [project], or, for a custom-op project on CANN, name the aclnn caller with app = [...]",
            ));
        }
        (Layout::CustomOp, None) => None,
    };
    let app = match (layout, app) {
        (_, None) => None,
        (Layout::KernelLaunch, Some(a)) => {
            return Err(err(
                span(&a),
                format!("`app` of op `{op}` is for custom-op projects"),
                "a kernel-launch project runs the program its CMake builds; name it with program = \"...\"",
            ));
        }
        (Layout::CustomOp, Some(a))
            if a.get_ref().first().is_some_and(|p| !p.trim().is_empty()) =>
        {
            Some(a.into_inner())
        }
        (Layout::CustomOp, Some(a)) => {
            return Err(err(
                span(&a),
                format!("the app of op `{op}` is empty"),
                "name the program that calls the op through aclnn and its arguments, e.g. app = [\"./build/execute_add_op\"]",
            ));
        }
    };
    Ok((program, app))
}

/// `op_host/<name>_tiling.h` when the project follows the msopgen layout and the manifest names none.
fn default_tiling_header(root: &Path, name: &str, host: &[String]) -> Option<String> {
    let candidates = host
        .iter()
        .filter_map(|h| Path::new(h).parent())
        .map(|dir| dir.join(format!("{name}_tiling.h")))
        .chain(std::iter::once(
            PathBuf::from("op_host").join(format!("{name}_tiling.h")),
        ));
    // Only a header that defines the tiling data with BEGIN_TILING_DATA_DEF is one the device build
    // hands the kernel; in the ops-math / ops-nn layout `op_host/<name>_tiling.h` is a host-only header
    // (it includes the host registries) and the kernel includes its own `<name>_tiling_data.h`.
    for c in candidates {
        let text = std::fs::read_to_string(root.join(&c)).unwrap_or_default();
        if text.contains("BEGIN_TILING_DATA_DEF") {
            return Some(c.to_string_lossy().into_owned());
        }
    }
    None
}

/// Checks an input's `values = [...]`: one value per element (or one for every element), each
/// representable in the dtype (integers for integer and bool dtypes, within the dtype's range).
/// Errors are (message, fix).
fn pinned_values(
    v: &[f64],
    dtype: DType,
    elems: u64,
    is_input: bool,
    has_range: bool,
) -> Result<Vec<f64>, (String, &'static str)> {
    if !is_input {
        return Err((
            "`values` is only meaningful on inputs".into(),
            "remove it from the output",
        ));
    }
    if has_range {
        return Err((
            "`values` and `range` both set the input's data".into(),
            "keep one: `values` pins exact values, `range` draws random ones",
        ));
    }
    if v.len() as u64 != elems && v.len() != 1 {
        return Err((
            format!(
                "values has {} entries but the tensor has {elems} elements",
                v.len()
            ),
            "give one value per element, or a single value for all of them",
        ));
    }
    let (lo, hi) = match dtype {
        DType::Bool => (0.0, 1.0),
        DType::Int8 => (i8::MIN as f64, i8::MAX as f64),
        DType::Int16 => (i16::MIN as f64, i16::MAX as f64),
        DType::Int32 => (i32::MIN as f64, i32::MAX as f64),
        DType::Int64 => (i64::MIN as f64, i64::MAX as f64),
        DType::UInt8 => (0.0, u8::MAX as f64),
        DType::UInt16 => (0.0, u16::MAX as f64),
        DType::UInt32 => (0.0, u32::MAX as f64),
        DType::UInt64 => (0.0, u64::MAX as f64),
        _ => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let integral = !dtype.is_float();
    if let Some(x) = v
        .iter()
        .find(|x| x.is_nan() || (integral && (x.fract() != 0.0 || **x < lo || **x > hi)))
    {
        return Err((
            format!("value {x} cannot be stored as {}", dtype.name()),
            "integer and bool inputs take whole numbers within the dtype's range (bool: 0 or 1)",
        ));
    }
    Ok(v.to_vec())
}

/// Where a kernel-launch program reads an input or writes an output when its `file` is not given:
/// `input/input_<name>.bin`, `output/output_<name>.bin`.
pub fn default_file(name: &str, is_input: bool) -> String {
    if is_input {
        format!("input/input_{name}.bin")
    } else {
        format!("output/output_{name}.bin")
    }
}

pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A C identifier, or a member reached from one (or from `this`) with `->` or `.`: `ubSize`,
/// `this->ubSize_`, `compileInfo->ubSize`.
pub fn is_member_path(s: &str) -> bool {
    let (head, rest) = match s.find(['-', '.']) {
        Some(i) => s.split_at(i),
        None => return is_identifier(s),
    };
    let fields: Vec<&str> = rest
        .split("->")
        .flat_map(|p| p.split('.'))
        .filter(|p| !p.is_empty())
        .collect();
    let separators_only = rest
        .replace("->", "")
        .replace('.', "")
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_');
    is_identifier(head)
        && separators_only
        && !fields.is_empty()
        && fields.iter().all(|f| is_identifier(f))
        && !rest.contains("..")
        && !rest.ends_with(['.', '>', '-'])
}

pub fn camel_case(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests;
