//! Wire types: `ascend.toml` exactly as written, with spans, before any validation. Unknown keys are
//! refused here (serde's `deny_unknown_fields`), so a typo is an error that names its line.

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub project: Option<Project>,
    pub slurm: Option<Spanned<Slurm>>,
    #[serde(default)]
    pub op: Vec<Spanned<Op>>,
}

/// `[slurm]`: how `--executor slurm` submits this project's jobs (manifest/executor.rs).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Slurm {
    pub partition: Option<Spanned<String>>,
    pub account: Option<Spanned<String>>,
    pub time_limit: Option<Spanned<String>>,
    #[serde(default)]
    pub gres: Vec<Spanned<String>>,
    #[serde(default)]
    pub sbatch_args: Vec<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Project {
    pub soc: Option<Spanned<String>>,
    pub backend: Option<Spanned<String>>,
    pub cann_path: Option<Spanned<String>>,
    #[serde(default)]
    pub include: Vec<Spanned<String>>,
    /// `include-as`: folders the build shows at a path inside the project (`{ "foreach_utils" =
    /// "../foreach_utils/op_kernel" }`), for sources that include a sibling folder by a relative path.
    #[serde(default)]
    pub include_as: std::collections::BTreeMap<String, Spanned<String>>,
    pub layout: Option<Spanned<String>>,
    pub cmake_source: Option<Spanned<String>>,
    /// `cmake-include`: CMake files of a larger build the project's CMakeLists.txt belongs to (it has
    /// no project() and calls their macros): the project is then built inside a wrapper that
    /// includes them.
    #[serde(default)]
    pub cmake_include: Vec<Spanned<String>>,
    pub run_mode: Option<Spanned<String>>,
    pub devices: Option<Spanned<Vec<i64>>>,
    pub executor: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Op {
    pub name: Spanned<String>,
    #[serde(rename = "type")]
    pub op_type: Option<Spanned<String>>,
    #[serde(default)]
    pub host: Vec<Spanned<String>>,
    #[serde(default)]
    pub kernel: Vec<Spanned<String>>,
    pub tiling_header: Option<Spanned<String>>,
    /// Twin builds: functions the sources call but none of them defines become stubs that stop the
    /// program, naming the function, if called (see `OpSpec::stub_undefined`).
    pub stub_undefined: Option<Spanned<bool>>,
    #[serde(default)]
    pub constraints: Vec<Spanned<String>>,
    pub tolerance: Option<Spanned<f64>>,
    #[serde(default)]
    pub input: Vec<Spanned<Tensor>>,
    #[serde(default)]
    pub output: Vec<Spanned<Tensor>>,
    #[serde(default)]
    pub attr: Vec<Spanned<Attr>>,
    pub tune: Option<Tune>,
    #[serde(default)]
    pub tunable: Vec<Spanned<Tunable>>,
    pub program: Option<Spanned<String>>,
    pub app: Option<Spanned<Vec<String>>>,
    pub golden: Option<Spanned<Vec<String>>>,
    pub prepare: Option<Spanned<Commands>>,
    pub verify: Option<Spanned<Commands>>,
    /// Kernel-launch projects: the program starts processes of its own (`OpSpec::starts_processes`).
    pub starts_processes: Option<Spanned<bool>>,
    /// Kernel-launch projects: `-D` definitions the project's CMake needs at configure time.
    pub cmake_defines: Option<Spanned<Vec<String>>>,
    /// The declared shape's weight among the op's shapes (`[[op.shape]]`).
    pub weight: Option<Spanned<f64>>,
    #[serde(default)]
    pub shape: Vec<Spanned<ShapeCase>>,
}

/// `prepare` / `verify`: one command (`["python3", "scripts/gen_data.py"]`) or several, run in order
/// (`[["python3", "scripts/gen_data.py", "--case-num", "0"], [...]]`, a run.sh's three cases).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum Commands {
    One(Vec<String>),
    Several(Vec<Vec<String>>),
}

impl Commands {
    pub fn into_list(self) -> Vec<Vec<String>> {
        match self {
            Commands::One(c) => vec![c],
            Commands::Several(cs) => cs,
        }
    }
}

/// `[[op.shape]]`: a further shape the op serves, tuned for together with the declared one.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShapeCase {
    pub name: Option<Spanned<String>>,
    pub weight: Option<Spanned<f64>>,
    pub dims: Spanned<std::collections::BTreeMap<String, Spanned<Vec<i64>>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tensor {
    pub name: Spanned<String>,
    /// Required unless `absent`.
    pub dtype: Option<Spanned<String>>,
    pub shape: Option<Spanned<Vec<i64>>>,
    /// An optional input the call leaves out (inputs only): the kernel gets a null address for it and
    /// the tiling sees no tensor.
    pub absent: Option<Spanned<bool>>,
    pub range: Option<Spanned<Vec<f64>>>,
    pub values: Option<Spanned<Vec<f64>>>,
    /// How the data is drawn when no `values` pin it: `"permutation"` (integer inputs).
    pub data: Option<Spanned<String>>,
    pub file: Option<Spanned<String>>,
    /// A tensor list (a DYNAMIC OpDef parameter) of this many tensors, each of `shape`.
    pub list: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attr {
    pub name: Spanned<String>,
    pub value: Spanned<toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Tune {
    pub budget: Option<Spanned<i64>>,
    pub strategy: Option<Spanned<String>>,
    pub seed: Option<Spanned<i64>>,
    pub data_seed: Option<Spanned<i64>>,
    pub rewriter: Option<Spanned<Vec<String>>>,
    pub rewriter_attempts: Option<Spanned<i64>>,
    pub derive_constraints: Option<Spanned<bool>>,
    pub noise_floor: Option<Spanned<f64>>,
    pub shape_probes: Option<Spanned<bool>>,
    pub probe_max_elems: Option<Spanned<i64>>,
    pub probe_every_candidate: Option<Spanned<bool>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tunable {
    pub name: Spanned<String>,
    pub file: Spanned<String>,
    pub symbol: Option<Spanned<String>>,
    pub call: Option<Spanned<String>>,
    pub arg: Option<Spanned<i64>>,
    #[serde(rename = "ub-parts-of")]
    pub ub_parts_of: Option<Spanned<String>>,
    /// With `ub-parts-of`: the function whose UB query it is, where the file has more than one.
    #[serde(rename = "ub-parts-in")]
    pub ub_parts_in: Option<Spanned<String>>,
    pub field: Option<Spanned<String>>,
    pub values: Option<Spanned<Vec<i64>>>,
    pub range: Option<Spanned<Vec<i64>>>,
    pub pow2: Option<Spanned<Vec<i64>>>,
}
