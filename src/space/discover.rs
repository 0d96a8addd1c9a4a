//! Tunable discovery: which literals of an op's host and kernel sources `init` offers as tunables, of
//! what kind, and with what domain, and which look like tuning parameters but are left out, and why.
//! Reads C++ through tree-sitter-cpp and binds through `binding`; knows nothing of the manifest's other
//! parts (ops, tensors, attrs), searching, building or running (the trace probe that drops literals
//! which change nothing is `init`'s, since it builds).
//!
//! What a kernel engineer tunes is what decides a tiling: block counts and core caps, tile and loop
//! lengths, queue depths and the number of parts the UB is split into. What is never offered, whatever
//! its name suggests: alignment units (the 32-byte block, the 256-byte repeat, a cache line), data-type
//! sizes, workspace sizes, template / tiling-key / mode selectors, variables that are assigned again after their definition (counters,
//! accumulators, values computed later), constants nothing reads, and block counts of a kernel that
//! never asks which block it is (every block would then repeat the whole job).
//!
//! A literal a tiling function assigns to a field of its tiling data (`tiling->tileNum = 360;`,
//! `tiling.set_tileNum(8);`: the learning hub's tutorials set their tile count so) is offered under the
//! field's name by the same name rules (`Bind::Field`); a tile count's domain reaches down to one tile.
//!
//! Cube kernels: the host's matmul tiling (`matmul_tiling::MultiCoreMatmulTiling` and friends) takes
//! its tuning parameters as arguments, `SetFixSplit(baseM, baseN, baseK)`, `SetDim(cores)`,
//! `SetBufferSpace(l1, l0c, ub)`, and the depths and K steps of `TCubeTiling` (`set_depthA1`,
//! `set_stepKa`, ...). An argument that is a literal, or a constant of the host's files holding one, is
//! offered under its role, whatever the constant is called (`CUBE_SETTERS`).

use crate::manifest::Bind;
use crate::space::binding::{self, parse_cpp};
use std::path::{Path, PathBuf};
use tree_sitter::Node;

#[derive(Debug, Clone, PartialEq)]
pub struct FoundTunable {
    pub name: String,
    pub file: String,
    pub bind: Bind,
    /// The literal the sources hold now.
    pub value: i64,
    pub kind: TunableKind,
    /// The unit the literal is written in, `16u * 1024u` -> 1024 (`binding::scale_after`); 1 for a
    /// plain literal. Kind and domain are judged on `value * scale`.
    pub scale: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TunableKind {
    /// Queue depth (`TQue<..., BUFFER_NUM>`): 1 or 2.
    BufferCount,
    /// Block count or a cap on the cores used.
    BlockDim,
    /// Tile lengths, chunk sizes.
    Size,
    /// How many tiles (or loop passes) a core's share is cut into (`tileNum`, `TILE_NUM`, `LOOP_COUNT`):
    /// fewer means longer copies, so its domain reaches down to 1, which a length's does not need.
    TileCount,
    /// How many parts the UB is divided into when the tile is sized from it (`ubSize / UB_PARTS`).
    UbSplit,
    /// The parts of the UB size the host reads from the platform that the tiling plans for
    /// (`ub-parts-of`): 1 (as written) to 4.
    UbParts,
    /// A base block side of the matmul tiling (`SetFixSplit`): a power of two from 16 (one fractal).
    CubeBase,
    /// The cube cores the matmul tiling splits over (`SetDim`): within the SoC's AIC count.
    CubeCores,
    /// Bytes of a cube buffer the matmul tiling may plan for (`SetBufferSpace`): at most as written.
    CubeBuffer,
    /// An L1 depth or K / M / N step of `TCubeTiling` (`set_depthA1`, `set_stepKa`, ...).
    CubeStep,
}

/// Why a literal that looks like a tuning parameter is not offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    AlignmentUnit,
    DataTypeSize,
    Workspace,
    /// Selects a template, tiling key or mode: a switch, not a size.
    Selector,
    /// UB the hardware keeps for itself: the SIMT data cache of the Ascend950 (asc-devkit
    /// asc_950_feature_guide.md: DCache), which arch35 tilings take off the UB (`DCACHE_SIZE`).
    HardwareReserve,
    /// Assigned again after its definition: a counter, an accumulator or a value computed later.
    Reassigned,
    /// Nothing in the op's sources reads it.
    Unread,
    /// A block count, but the kernel never calls `GetBlockIdx`/`GetBlockNum` to split its work.
    NoBlockSplit,
    /// Changing it leaves the op's trace unchanged (found by `init`'s probe).
    TraceUnchanged,
    /// Neither neighbouring value runs with the op's outputs (found by `init`'s probe): a constant of
    /// the computation, not of the tiling.
    NoOtherValueRuns,
    /// The values that run leave the trace unchanged and the others fail (found by `init`'s probe): a
    /// bound the tiling checks the shape against (`lastDimSize > LENGTH_1024` fails), not a tiling
    /// parameter.
    Limit,
    /// No build of the op reads its file for the manifest's SoC (found by `init`'s probe): another
    /// SoC's header.
    FileNotBuilt,
}

impl Reason {
    pub fn describe(self) -> &'static str {
        match self {
            Reason::AlignmentUnit => "an alignment unit (block, repeat, cache-line or C0 size)",
            Reason::DataTypeSize => "a data-type size",
            Reason::Workspace => "a workspace size",
            Reason::Selector => "selects a template, tiling key or mode",
            Reason::HardwareReserve => "UB the hardware keeps for itself (the SIMT data cache)",
            Reason::Reassigned => {
                "assigned again after its definition (a counter, accumulator or computed value)"
            }
            Reason::Unread => "nothing reads it",
            Reason::NoBlockSplit => {
                "a block count, but the kernel does not split its work by block (no GetBlockIdx/GetBlockNum)"
            }
            Reason::TraceUnchanged => "changing it leaves the trace unchanged",
            Reason::NoOtherValueRuns => {
                "no neighbouring value runs with the op's outputs (a constant of the computation, not of the tiling)"
            }
            Reason::Limit => {
                "a limit: the values that run change nothing and the others fail (a bound the tiling checks, not a tiling parameter)"
            }
            Reason::FileNotBuilt => {
                "its file is not read by the op's builds for this SoC (another SoC's code)"
            }
        }
    }
}

/// A literal that looks like a tuning parameter and is not offered.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    pub name: String,
    pub file: String,
    pub line: usize,
    pub reason: Reason,
}

/// What discovery found for one op.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Discovery {
    pub offered: Vec<FoundTunable>,
    pub left_out: Vec<LeftOut>,
}

/// `tileBlockNum` and `TILE_BLOCK_NUM` alike, as upper-case words.
fn words(name: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_uppercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

const DTYPES: &[&str] = &[
    "FLOAT", "FLOAT16", "FLOAT32", "FP16", "FP32", "BF16", "HALF", "INT8", "INT16", "INT32",
    "INT64", "UINT8", "UINT16", "UINT32", "UINT64", "B8", "B16", "B32", "B64", "DOUBLE", "BOOL",
];

/// What the name alone rules out, whatever kind it would be: alignment units, data-type sizes,
/// workspace sizes.
pub fn rejected_by_name(name: &str, value: i64) -> Option<Reason> {
    let w = words(name);
    let joined = w.join("_");
    let has = |s: &str| w.iter().any(|x| x == s);
    let contains = |s: &str| joined.contains(s);
    // `WORKSPACES_DEFAULT_SIZE_32B` (ops-nn's group_quant) as well as `WORKSPACE_SIZE`
    if contains("WORKSPACE") || has("WS") || contains("WORK_SPACE") {
        return Some(Reason::Workspace);
    }
    if has("DCACHE") || contains("D_CACHE") {
        return Some(Reason::HardwareReserve);
    }
    // `TK` is a tiling key's short name (ops-nn's batch_norm_grad_v3: `BNG_V3_RA_SPLIT_R_TK_BASE`)
    if has("TPL") || has("KEY") || has("TK") || has("MODE") || has("SCH") || has("TEMPLATE") {
        return Some(Reason::Selector);
    }
    if has("TYPE")
        || has("DTYPE")
        || has("DATATYPE")
        || has("TYPESIZE")
        || has("TYPELENGTH")
        || has("DATATYPELENGTH")
        || has("DATATYPESIZE")
        || has("SIZEOF")
        || (w.iter().any(|x| DTYPES.contains(&x.as_str()))
            && (has("SIZE") || has("BYTES") || has("BYTE") || has("LEN") || has("LENGTH"))
            && matches!(value, 1 | 2 | 4 | 8))
        // a type's width in bits (ops-nn's batch_norm_grad_v3: `ULONG_BIT_LEN = 64`)
        || ((has("BIT") || has("BITS"))
            && (has("LEN") || has("LENGTH") || has("SIZE") || has("WIDTH") || has("NUM"))
            && matches!(value, 8 | 16 | 32 | 64))
        // a byte count named by its own value (ops-math segsum's `BYTE_LEN_4 = 4`, returned for
        // float and int32 inputs)
        || ((has("BYTE") || has("BYTES"))
            && matches!(value, 1 | 2 | 4 | 8)
            && has(&value.to_string()))
        // the words of a sort element, a value and its index (ops-transformer's moe_init_routing_v2:
        // `kvFactor = 2` sizing the Sort buffers, `REGIONP_ROPOSAL_KV_RATIO`): the element's width
        || (has("KV") && (has("FACTOR") || has("RATIO") || has("NUM")))
    {
        return Some(Reason::DataTypeSize);
    }
    let alignment = has("ALIGN")
        || has("ALIGNED")
        || has("ALIGNMENT")
        || has("BLK")
        || has("REPEAT")
        || has("MASK")
        || contains("BLOCK_SIZE")
        || contains("BLOCK_BYTES")
        || contains("BLOCK_BYTE")
        || contains("BLOCK_LEN")
        || contains("BLOCK_ELEM")
        || contains("CACHE_LINE")
        || contains("BYTES_PER")
        || contains("PER_BLOCK")
        || contains("PER_REPEAT")
        || contains("ONE_BLOCK")
        // the C0 axis of the fractal layouts (NC1HWC0, NZ): 32 bytes of elements, fixed by the
        // hardware, which the kernel's layout reads (ops-cv's roi_align_grad: `kC0Size = 16`)
        || has("C0")
        || has("FRACTAL");
    alignment.then_some(Reason::AlignmentUnit)
}

/// Classifies a symbol name (with its current value) as a likely tuning parameter.
pub fn classify(name: &str) -> Option<TunableKind> {
    classify_valued(name, 1)
}

fn classify_valued(name: &str, value: i64) -> Option<TunableKind> {
    let w = words(name);
    let joined = w.join("_");
    let has = |s: &str| w.iter().any(|x| x == s);
    let contains = |s: &str| joined.contains(s);
    // Real tiling functions size the tile as the UB over a count of parts: UB_DIVIDER_FP16 (ops-math
    // floor_mod), UB_DATA_NUMBER_32, FLOAT_BUFFER_COEFFICIENT.
    let split_word = [
        "NUM",
        "NUMBER",
        "FACTOR",
        "SPLIT",
        "DIV",
        "DIVISOR",
        "DIVIDER",
        "PART",
        "PARTS",
        "COUNT",
        "CNT",
        "RATIO",
        "COEF",
        "COEFF",
        "COEFFICIENT",
    ];
    if has("UB") {
        if w.iter().any(|x| split_word.contains(&x.as_str())) {
            return Some(TunableKind::UbSplit);
        }
        if [
            "TILE", "LENGTH", "LEN", "CHUNK", "SIZE", "ELEMS", "ELEMENTS",
        ]
        .iter()
        .any(|k| has(k))
        {
            return Some(TunableKind::Size);
        }
        return None;
    }
    if contains("BUFFER_NUM")
        || contains("BUFFER_COUNT")
        || contains("BUFFER_CNT")
        || contains("BUF_NUM")
        || contains("BUFFER_NUMBER")
        || contains("DB_NUM")
        || joined == "DOUBLE_BUFFER"
        || contains("QUEUE_DEPTH")
        || contains("QUE_DEPTH")
    {
        return Some(if value <= 2 {
            TunableKind::BufferCount
        } else {
            TunableKind::UbSplit
        });
    }
    let tile_like = has("TILE") || has("PER") || has("LOOP");
    let count_word = ["NUM", "NUMBER", "COUNT", "CNT", "TIMES"]
        .iter()
        .any(|k| has(k));
    let length_word = [
        "LENGTH", "LEN", "SIZE", "ELEMS", "ELEMENTS", "ROWS", "CHUNK",
    ]
    .iter()
    .any(|k| has(k));
    if (has("TILE") || has("LOOP")) && count_word && !length_word && !has("PER") {
        return Some(TunableKind::TileCount);
    }
    if contains("BLOCK_DIM")
        // the launch's block count as asc-devkit's kernel-launch examples name it (`numBlocks`)
        || joined == "NUM_BLOCKS"
        || contains("CORE_NUM")
        || contains("CORE_CNT")
        || contains("CORE_COUNT")
        || contains("USE_CORE")
        || contains("CORE_LIMIT")
        || contains("MAX_CORE")
        || contains("NUM_CORES")
        || (contains("BLOCK_NUM") && !tile_like)
    {
        return Some(TunableKind::BlockDim);
    }
    if [
        "TILE", "LENGTH", "CHUNK", "SIZE", "LEN", "ELEMS", "ELEMENTS", "ROWS", "LOOP", "TILEDATA",
    ]
    .iter()
    .any(|k| has(k))
    {
        return Some(TunableKind::Size);
    }
    if ["FACTOR", "SPLIT", "DIVISOR", "DIVIDER", "COEFFICIENT"]
        .iter()
        .any(|k| has(k))
    {
        return Some(TunableKind::UbSplit);
    }
    // How much work a core takes before another is used: MINIMUM_ELEMENT_PER_CORE (floor_mod),
    // MIN_PER_CORE, SMALL_BROADCAST_ELEMENTS_PER_CORE; the element count from which a tiling switches
    // (MIN_SPLIT_THRESHOLD).
    // The share of the shape one core takes, as kernel-launch programs name it (`singleCoreM`,
    // `singleCoreN` of asc-devkit's best-practice kernels): the block count follows from it.
    if (has("PER") && (has("CORE") || has("BLOCK")))
        || (has("SINGLE") && (has("CORE") || has("BLOCK")))
        || has("THRESHOLD")
        || has("ELEMENT")
        || has("ELEMS")
    {
        return Some(TunableKind::Size);
    }
    None
}

/// The files of one op: host files (relative path, text) and its kernel files, the entry file first
/// and then the `op_kernel/` headers it includes (`kernel_headers`).
pub struct OpFiles<'a> {
    pub host: &'a [(String, String)],
    pub kernel: &'a [(String, String)],
}

/// The `op_kernel/` headers that `kernel` (relative path `kernel_rel` under `root`) includes with
/// `#include "..."`, directly or through one another, in include order.
pub fn kernel_headers(root: &Path, kernel_rel: &str, kernel: &str) -> Vec<(String, String)> {
    kernel_headers_with(kernel_rel, kernel, |rel| {
        std::fs::read_to_string(root.join(rel)).ok()
    })
}

/// `kernel_headers` with the files read by `read` (a relative path to its text, None where there is
/// no such file): from disk, or from a set of sources already read.
pub fn kernel_headers_with(
    kernel_rel: &str,
    kernel: &str,
    read: impl Fn(&str) -> Option<String>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    let mut queue = vec![(kernel_rel.to_string(), kernel.to_string())];
    while let Some((rel, text)) = queue.pop() {
        let dir = Path::new(&rel)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        for line in text.lines() {
            let line = line.trim_start();
            let Some(rest) = line.strip_prefix("#include") else {
                continue;
            };
            let rest = rest.trim();
            let Some(inc) = rest.strip_prefix('"').and_then(|r| r.split('"').next()) else {
                continue;
            };
            let joined = dir.join(inc);
            // Only headers beside the kernel (the op's own), never shared ones.
            if joined
                .components()
                .any(|c| c == std::path::Component::ParentDir)
            {
                continue;
            }
            let rel_inc = joined.to_string_lossy().replace('\\', "/");
            if rel_inc == kernel_rel || out.iter().any(|(r, _)| *r == rel_inc) {
                continue;
            }
            if let Some(t) = read(&rel_inc) {
                out.push((rel_inc.clone(), t.clone()));
                queue.push((rel_inc, t));
            }
        }
    }
    out
}

/// Real tiling functions size their tiles from the UB the platform reports
/// (`GetCoreMemSize(CoreMemType::UB, ubSize)`), with no literal to tune: the parts of it they plan
/// for are one (`ub-parts-of`). Taken where a host file queries it once per variable; the first such
/// file only, as one tiling function plans one op.
fn ub_parts(host: &[(String, String)], d: &mut Discovery) {
    'files: for (file, text) in host {
        let Some(tree) = parse_cpp(text) else {
            continue;
        };
        let queries = binding::ub_queries(tree.root_node(), text);
        for (node, var) in &queries {
            // A variable queried in several functions (a tiling function and its TilingPrepare,
            // each into a local `ubSizePlatForm`): one tunable per query, named by its function; the
            // probe leaves out the one the run does not reach. Twice in one function: none.
            let function = if queries.iter().filter(|(_, v)| v == var).count() == 1 {
                None
            } else {
                let own = binding::enclosing_function(*node, text);
                let same = queries
                    .iter()
                    .filter(|(n, v)| v == var && binding::enclosing_function(*n, text) == own)
                    .count();
                match own {
                    Some(f) if same == 1 => Some(f),
                    _ => continue,
                }
            };
            let bind = Bind::UbParts {
                var: var.clone(),
                function: function.clone(),
            };
            if let Ok(site) = binding::find_site(text, file, &bind) {
                let name = if d.offered.iter().any(|t| t.name == "ub_parts") {
                    // The member's own name for `this->ubSize_` (a tunable name is an identifier),
                    // or the function's where the variable is queried in several.
                    let last = var.rsplit(['>', '.']).next().unwrap_or(var);
                    let which = function.as_deref().unwrap_or(last);
                    format!("ub_parts_{}", which.trim_matches('_').to_ascii_lowercase())
                } else {
                    "ub_parts".to_string()
                };
                d.offered.push(FoundTunable {
                    name,
                    file: file.clone(),
                    bind,
                    value: site.value,
                    kind: TunableKind::UbParts,
                    scale: 1,
                });
            }
        }
        if !queries.is_empty() {
            break 'files;
        }
    }
}

/// `ub-parts-of` tunables in shared headers (`headers`: path relative to the project, text) that an
/// op's tiling includes from an `include` folder, for an op whose own host files query no UB: ops-nn's
/// foreach tilings plan their UB split in `../foreach_utils/op_host/foreach_tiling_class.h`. Nothing
/// else is offered there (its other literals are every sharing op's).
pub fn shared_ub_parts(headers: &[(String, String)]) -> Vec<FoundTunable> {
    let mut d = Discovery::default();
    ub_parts(headers, &mut d);
    d.offered
}

/// The headers of `include-as` folders (`mounts`: where the sources see a folder, relative to `root`,
/// and the folder) that the kernel files `kernel` (relative path, text) include, directly or through
/// each other: (path relative to `root`, `../<folder>/...`, text). These are shared with the other
/// operators that mount the folder; `kernel_headers` leaves them out.
pub fn mounted_kernel_headers(
    root: &Path,
    mounts: &[(PathBuf, PathBuf)],
    kernel: &[(String, String)],
) -> Vec<(String, String)> {
    let root_l = crate::fsx::lexical(root);
    let mut out: Vec<(String, String)> = vec![];
    // (where the including file is seen, relative to root; its text)
    let mut queue: Vec<(PathBuf, String)> = kernel
        .iter()
        .map(|(rel, text)| (PathBuf::from(rel), text.clone()))
        .collect();
    while let Some((seen, text)) = queue.pop() {
        let dir = seen.parent().unwrap_or(Path::new("")).to_path_buf();
        for line in text.lines() {
            let Some(inc) = quoted_include(line) else {
                continue;
            };
            let view = crate::fsx::lexical(&dir.join(inc));
            let Some(real) = mounts.iter().find_map(|(at, folder)| {
                view.strip_prefix(at)
                    .ok()
                    .map(|rest| crate::fsx::lexical(&folder.join(rest)))
            }) else {
                continue;
            };
            let Some(rel) = relative_to(&root_l, &real) else {
                continue;
            };
            if out.iter().any(|(r, _)| *r == rel) {
                continue;
            }
            if let Ok(t) = std::fs::read_to_string(&real) {
                out.push((rel, t.clone()));
                queue.push((view, t));
            }
        }
    }
    out
}

/// The file a `#include "x"` line names (None for `<x>` includes and other lines).
pub fn quoted_include(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix("#include")
        .map(str::trim)
        .and_then(|r| r.strip_prefix('"'))
        .and_then(|r| r.split('"').next())
}

/// `path` relative to `base` (both lexical, absolute), climbing with `..` as needed.
fn relative_to(base: &Path, path: &Path) -> Option<String> {
    let b: Vec<_> = base.components().collect();
    let p: Vec<_> = path.components().collect();
    let common = b.iter().zip(&p).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    Some(out.to_string_lossy().replace('\\', "/"))
}

/// The tunables of one op, host files first. A name defined on both sides (host `BUFFER_NUM` and kernel
/// `BUFFER_NUM`) gives two tunables, the kernel's with a `_kernel` suffix; `derived` ties them.
pub fn discover(files: &OpFiles) -> Discovery {
    let kernel_splits = files
        .kernel
        .iter()
        .any(|(_, t)| count_word(t, "GetBlockIdx") + count_word(t, "GetBlockNum") > 0);
    let mut d = Discovery::default();
    for (side, list) in [(Side::Host, files.host), (Side::Kernel, files.kernel)] {
        for (file, text) in list {
            let same_side: Vec<&str> = list.iter().map(|(_, t)| t.as_str()).collect();
            for found in candidates_in(file, text, &same_side, kernel_splits) {
                match found {
                    Ok(mut t) => {
                        if d.offered
                            .iter()
                            .any(|x| x.name == t.name && x.file == t.file)
                        {
                            continue;
                        }
                        if d.offered.iter().any(|x| x.name == t.name) {
                            if side == Side::Host {
                                continue;
                            }
                            t.name = format!("{}_kernel", t.name);
                            if d.offered.iter().any(|x| x.name == t.name) {
                                continue;
                            }
                        }
                        d.offered.push(t)
                    }
                    Err(l) => {
                        if !d.left_out.contains(&l) {
                            d.left_out.push(l)
                        }
                    }
                }
            }
        }
    }
    ub_parts(files.host, &mut d);
    cube_setters(files, kernel_splits, &mut d);
    // `SetBlockDim(n)` with a literal is the block count when no constant names one.
    if !d
        .offered
        .iter()
        .any(|t| matches!(t.kind, TunableKind::BlockDim | TunableKind::CubeCores))
    {
        let call = Bind::Call {
            func: "SetBlockDim".into(),
            arg: 0,
        };
        for (file, text) in files.host {
            if let Ok(site) = binding::find_site(text, file, &call) {
                if kernel_splits {
                    d.offered.push(FoundTunable {
                        name: "block_dim".into(),
                        file: file.clone(),
                        bind: call,
                        value: site.value,
                        kind: TunableKind::BlockDim,
                        scale: 1,
                    });
                } else {
                    d.left_out.push(LeftOut {
                        name: "block_dim".into(),
                        file: file.clone(),
                        line: site.line,
                        reason: Reason::NoBlockSplit,
                    });
                }
                break;
            }
        }
    }
    tiling_field_literals(files, kernel_splits, &mut d);
    d
}

/// `name`, or with a suffix `_2`, `_3`, ... when an offered tunable has it already (a kernel constant,
/// another call's role).
fn unique_name(offered: &[FoundTunable], name: &str) -> String {
    let mut unique = name.to_string();
    let mut k = 2;
    while offered.iter().any(|t| t.name == unique) {
        unique = format!("{name}_{k}");
        k += 1;
    }
    unique
}

/// The literals a tiling function assigns to fields of its tiling data (`tiling->tileNum = 360;`,
/// `tiling.tileNum = 8;`, `tiling.set_tileNum(8);`), as the learning hub's tutorials set their tile
/// count: offered under the field's name when the name says it decides a tiling (`classify_valued`)
/// and the field is set once in its file (`Bind::Field`); what the name rules out is said. The matmul
/// tiling's setters are `cube_setters`'.
fn tiling_field_literals(files: &OpFiles, kernel_splits: bool, d: &mut Discovery) {
    for (file, text) in files.host {
        let Some(tree) = parse_cpp(text) else {
            continue;
        };
        let mut fields: Vec<String> = vec![];
        visit(tree.root_node(), &mut |n| {
            let field = match n.kind() {
                "assignment_expression" => n
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "field_expression")
                    .filter(|l| {
                        l.child_by_field_name("argument")
                            .is_some_and(|a| a.kind() != "this")
                    })
                    .filter(|_| {
                        n.child_by_field_name("right")
                            .is_some_and(|r| r.kind() == "number_literal")
                    })
                    .and_then(|l| l.child_by_field_name("field"))
                    .map(|f| text[f.byte_range()].to_string()),
                "call_expression" => {
                    let setter = n
                        .child_by_field_name("function")
                        .filter(|c| c.kind() == "field_expression")
                        .and_then(|c| c.child_by_field_name("field"))
                        .map(|f| &text[f.byte_range()]);
                    let literal_arg = binding::call_arguments(n)
                        .is_some_and(|a| a.len() == 1 && a[0].kind() == "number_literal");
                    setter
                        .filter(|name| !CUBE_SETTERS.iter().any(|(f, _)| f == name))
                        .and_then(|name| name.strip_prefix("set_"))
                        .filter(|_| literal_arg)
                        .map(str::to_string)
                }
                _ => None,
            };
            if let Some(f) = field
                && !fields.contains(&f)
            {
                fields.push(f);
            }
        });
        for field in fields {
            let bind = Bind::Field {
                field: field.clone(),
            };
            // set twice, or to a computed value elsewhere: not a constant of the tiling
            let Ok(site) = binding::find_site(text, file, &bind) else {
                continue;
            };
            if site.value <= 0 || d.offered.iter().any(|t| t.bind == bind && t.file == *file) {
                continue;
            }
            let name = words(&field).join("_").to_ascii_lowercase();
            let reason = match (
                rejected_by_name(&field, site.value),
                classify_valued(&field, site.value),
            ) {
                (None, None) => continue,
                (Some(reason), _) => reason,
                (None, Some(TunableKind::BlockDim)) if !kernel_splits => Reason::NoBlockSplit,
                (None, Some(kind)) => {
                    d.offered.push(FoundTunable {
                        name: unique_name(&d.offered, &name),
                        file: file.clone(),
                        bind,
                        value: site.value,
                        kind,
                        scale: 1,
                    });
                    continue;
                }
            };
            let l = LeftOut {
                name,
                file: file.clone(),
                line: site.line,
                reason,
            };
            if !d.left_out.contains(&l) {
                d.left_out.push(l);
            }
        }
    }
}

/// A setter's tunable arguments: (argument index, tunable name, kind).
type SetterArgs = &'static [(usize, &'static str, TunableKind)];

/// The matmul tiling's setters whose integer arguments are tunables: the method, and per argument its
/// index, the role name a literal there is offered under, and its kind. (Host API pages of asc-devkit:
/// SetFixSplit, SetDim, SetBufferSpace; the TCubeTiling fields depthA1 / depthB1 / stepKa / stepKb /
/// stepM / stepN, set through the tiling data's `set_<field>`.) `-1` ("the tiling chooses") and
/// computed arguments are not literals and are left alone.
const CUBE_SETTERS: &[(&str, SetterArgs)] = &[
    (
        "SetFixSplit",
        &[
            (0, "base_m", TunableKind::CubeBase),
            (1, "base_n", TunableKind::CubeBase),
            (2, "base_k", TunableKind::CubeBase),
        ],
    ),
    ("SetDim", &[(0, "core_num", TunableKind::CubeCores)]),
    (
        "SetBufferSpace",
        &[
            (0, "l1_space", TunableKind::CubeBuffer),
            (1, "l0c_space", TunableKind::CubeBuffer),
            (2, "ub_space", TunableKind::CubeBuffer),
        ],
    ),
    ("set_depthA1", &[(0, "depth_a1", TunableKind::CubeStep)]),
    ("set_depthB1", &[(0, "depth_b1", TunableKind::CubeStep)]),
    ("set_stepKa", &[(0, "step_ka", TunableKind::CubeStep)]),
    ("set_stepKb", &[(0, "step_kb", TunableKind::CubeStep)]),
    ("set_stepM", &[(0, "step_m", TunableKind::CubeStep)]),
    ("set_stepN", &[(0, "step_n", TunableKind::CubeStep)]),
];

/// The name of the function a call expression calls (`t.SetDim(...)`, `SetDim(...)`, `ns::SetDim`).
fn callee_name<'a>(call: Node, text: &'a str) -> Option<&'a str> {
    let callee = call.child_by_field_name("function")?;
    let name = match callee.kind() {
        "identifier" => callee,
        "field_expression" => callee.child_by_field_name("field")?,
        "qualified_identifier" | "template_function" => callee.child_by_field_name("name")?,
        _ => return None,
    };
    Some(&text[name.byte_range()])
}

/// The matmul tiling's parameters where the host sets them (`CUBE_SETTERS`): a literal argument bound
/// as that argument of the call, a named one as its definition in a host file (`const`, `#define`, or
/// a variable with a literal initialiser that nothing assigns again). A constant
/// the name rules already offered takes the cube kind (its domain then follows the cube, not the
/// vector cores); a literal or constant used by more than one call is left to the name rules.
fn cube_setters(files: &OpFiles, kernel_splits: bool, d: &mut Discovery) {
    for (file, text) in files.host {
        let Some(tree) = parse_cpp(text) else {
            continue;
        };
        let mut calls: Vec<(String, Vec<Node>)> = vec![];
        visit(tree.root_node(), &mut |n| {
            if n.kind() != "call_expression" {
                return;
            }
            let Some(name) = callee_name(n, text) else {
                return;
            };
            if !CUBE_SETTERS.iter().any(|(f, _)| *f == name) {
                return;
            }
            let Some(list) = binding::call_arguments(n) else {
                return;
            };
            calls.push((name.to_string(), list));
        });
        for (func, args) in calls {
            let roles = CUBE_SETTERS.iter().find(|(f, _)| *f == func).unwrap().1;
            for &(index, role, kind) in roles {
                let Some(arg) = args.get(index) else {
                    continue;
                };
                let found = match arg.kind() {
                    "number_literal" => {
                        let bind = Bind::Call {
                            func: func.clone(),
                            arg: index,
                        };
                        // One call of this name per file: find_site refuses more.
                        binding::find_site(text, file, &bind)
                            .ok()
                            .map(|site| (role.to_string(), file.clone(), bind, site))
                    }
                    "identifier" => {
                        let symbol = text[arg.byte_range()].to_string();
                        let bind = Bind::Symbol(symbol.clone());
                        files.host.iter().find_map(|(f, t)| {
                            let tree = parse_cpp(t)?;
                            let def = definitions(tree.root_node(), t)
                                .into_iter()
                                .find(|x| x.name == symbol)?;
                            // `int32_t baseM = 128;` as the public examples write it counts, unless
                            // it is assigned again (computed from the shape, say).
                            if !def.constant && reassigned(tree.root_node(), t, &symbol) {
                                return None;
                            }
                            binding::find_site(t, f, &bind).ok().map(|site| {
                                (symbol.to_ascii_lowercase(), f.clone(), bind.clone(), site)
                            })
                        })
                    }
                    _ => None,
                };
                let Some((name, at, bind, site)) = found else {
                    continue;
                };
                if site.value <= 0 {
                    continue;
                }
                if let Some(t) = d
                    .offered
                    .iter_mut()
                    .find(|t| t.bind == bind && t.file == at)
                {
                    t.kind = kind;
                    continue;
                }
                if kind == TunableKind::CubeCores && !kernel_splits {
                    let l = LeftOut {
                        name,
                        file: at,
                        line: site.line,
                        reason: Reason::NoBlockSplit,
                    };
                    if !d.left_out.contains(&l) {
                        d.left_out.push(l);
                    }
                    continue;
                }
                let unique = unique_name(&d.offered, &name);
                d.left_out.retain(|l| !(l.name == name && l.file == at));
                d.offered.push(FoundTunable {
                    name: unique,
                    file: at,
                    bind,
                    value: site.value,
                    kind,
                    scale: 1,
                });
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Host,
    Kernel,
}

fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, f);
    }
}

/// Occurrences of `word` in `text` as a whole identifier.
fn count_word(text: &str, word: &str) -> usize {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word)
        .filter(|(i, _)| !text[..*i].ends_with(ident) && !text[i + word.len()..].starts_with(ident))
        .count()
}

/// A definition of an integer name in one file: `#define`, or a variable with an initialiser.
struct Definition {
    name: String,
    /// `#define`, `const` or `constexpr`.
    constant: bool,
}

fn definitions(root: Node, text: &str) -> Vec<Definition> {
    let mut out: Vec<Definition> = vec![];
    visit(root, &mut |n| {
        let def = match n.kind() {
            "init_declarator" => n.child_by_field_name("declarator").map(|d| {
                let decl = n.parent();
                let head = decl.map_or("", |p| &text[p.start_byte()..d.start_byte()]);
                Definition {
                    name: text[d.byte_range()].to_string(),
                    constant: count_word(head, "const") + count_word(head, "constexpr") > 0,
                }
            }),
            "preproc_def" => n.child_by_field_name("name").map(|d| Definition {
                name: text[d.byte_range()].to_string(),
                constant: true,
            }),
            _ => None,
        };
        if let Some(def) = def
            && crate::manifest::is_identifier(&def.name)
            && !out.iter().any(|x| x.name == def.name)
        {
            out.push(def);
        }
    });
    out
}

/// Whether `name` is assigned (`=`, `+=`, ...) or incremented anywhere in the tree.
fn reassigned(root: Node, text: &str, name: &str) -> bool {
    let mut found = false;
    visit(root, &mut |n| {
        let target = match n.kind() {
            "assignment_expression" => n.child_by_field_name("left"),
            "update_expression" => n.child_by_field_name("argument"),
            _ => None,
        };
        if target.is_some_and(|t| &text[t.byte_range()] == name) {
            found = true;
        }
    });
    found
}

/// The names the op's workspace sizes are computed from: the right-hand sides of the stores into the
/// array `GetWorkspaceSizes(n)` returns (`ws[0] = usr + sys;`, `*ws = ...`, or the call indexed
/// straight away), followed through the initialisers of the locals they name (`size_t total = usr +
/// sys; ws[0] = total;`), and read nowhere else in the file: a size the framework allocates, never a
/// tiling choice (issue 17). A constant the tiling reads too (`CORE_NUM` in `SetBlockDim` and in
/// `ws[0] = sys + CORE_NUM * 32`) is not one.
fn workspace_operands<'t>(root: Node<'t>, text: &'t str) -> std::collections::HashSet<&'t str> {
    use std::collections::{HashMap, HashSet};
    let calls_sizes = |n: Node| {
        let mut found = false;
        visit(n, &mut |c| {
            if c.kind() == "call_expression" && callee_name(c, text) == Some("GetWorkspaceSizes") {
                found = true;
            }
        });
        found
    };
    // The pointers that hold the sizes array.
    let mut arrays: HashSet<&str> = HashSet::new();
    let mut inits: Vec<(&str, Node)> = vec![];
    visit(root, &mut |n| {
        let (target, value) = match n.kind() {
            "init_declarator" => (
                n.child_by_field_name("declarator"),
                n.child_by_field_name("value"),
            ),
            "assignment_expression" => (
                n.child_by_field_name("left"),
                n.child_by_field_name("right"),
            ),
            _ => return,
        };
        let (Some(mut target), Some(value)) = (target, value) else {
            return;
        };
        while target.kind() == "pointer_declarator" {
            match target.child_by_field_name("declarator") {
                Some(t) => target = t,
                None => return,
            }
        }
        if target.kind() != "identifier" {
            return;
        }
        let name = &text[target.byte_range()];
        if calls_sizes(value) {
            arrays.insert(name);
        } else if n.kind() == "init_declarator" {
            inits.push((name, value));
        }
    });
    let identifiers = |n: Node, into: &mut Vec<&'t str>| {
        visit(n, &mut |c| {
            if c.kind() == "identifier" {
                into.push(&text[c.byte_range()]);
            }
        });
    };
    let mut pending: Vec<&str> = vec![];
    visit(root, &mut |n| {
        if n.kind() != "assignment_expression" {
            return;
        }
        let (Some(left), Some(right)) = (
            n.child_by_field_name("left"),
            n.child_by_field_name("right"),
        ) else {
            return;
        };
        let base = match left.kind() {
            "subscript_expression" => left.child_by_field_name("argument"),
            "pointer_expression" => left.child_by_field_name("argument"),
            _ => None,
        };
        let Some(base) = base else {
            return;
        };
        if calls_sizes(base) || arrays.contains(&text[base.byte_range()]) {
            identifiers(right, &mut pending);
        }
    });
    // Every read of a name in those expressions, and the names reached.
    let mut reads: HashMap<&str, usize> = HashMap::new();
    let mut seen: HashSet<&str> = HashSet::new();
    while let Some(name) = pending.pop() {
        *reads.entry(name).or_default() += 1;
        if !seen.insert(name) {
            continue;
        }
        for (local, value) in &inits {
            if *local == name {
                identifiers(*value, &mut pending);
            }
        }
    }
    // Defined once, read only there.
    reads
        .into_iter()
        .filter(|(name, n)| count_word(text, name) <= n + 1)
        .map(|(name, _)| name)
        .collect()
}

/// The named literals of one file that look like tuning parameters: offered (Ok) or left out (Err).
/// `same_side` holds the texts of the files on the same side (host or kernel), this one included,
/// where a constant must be read.
fn candidates_in(
    file: &str,
    text: &str,
    same_side: &[&str],
    kernel_splits: bool,
) -> Vec<Result<FoundTunable, LeftOut>> {
    let Some(tree) = parse_cpp(text) else {
        return vec![];
    };
    let root = tree.root_node();
    let workspace_operands = workspace_operands(root, text);
    let mut out = vec![];
    for def in definitions(root, text) {
        let bind = Bind::Symbol(def.name.clone());
        let Ok(site) = binding::find_site(text, file, &bind) else {
            continue;
        };
        if site.value <= 0 {
            continue;
        }
        let scale = binding::scale_after(text, &site);
        let kind = classify_valued(&def.name, site.value * scale);
        let by_name = rejected_by_name(&def.name, site.value * scale);
        if kind.is_none() && by_name.is_none() {
            continue;
        }
        let left_out = |reason| {
            Err(LeftOut {
                name: def.name.to_ascii_lowercase(),
                file: file.to_string(),
                line: site.line,
                reason,
            })
        };
        // A name that the workspace sizes are computed from is one whatever it is called
        // (`usrSize` in `GetWorkspaceSizes(1)[0] = usrSize + sysWorkspaceSize`).
        let by_name = by_name.or_else(|| {
            workspace_operands
                .contains(def.name.as_str())
                .then_some(Reason::Workspace)
        });
        if let Some(reason) = by_name {
            // Only names that would otherwise be offered are worth a word.
            if kind.is_some() {
                out.push(left_out(reason));
            }
            continue;
        }
        let kind = kind.expect("classified");
        if !def.constant && reassigned(root, text, &def.name) {
            out.push(left_out(Reason::Reassigned));
            continue;
        }
        let uses: usize = same_side.iter().map(|t| count_word(t, &def.name)).sum();
        if uses < 2 {
            out.push(left_out(Reason::Unread));
            continue;
        }
        if kind == TunableKind::BlockDim && !kernel_splits {
            out.push(left_out(Reason::NoBlockSplit));
            continue;
        }
        out.push(Ok(FoundTunable {
            name: def.name.to_ascii_lowercase(),
            file: file.to_string(),
            bind,
            value: site.value,
            kind,
            scale,
        }));
    }
    out
}

/// The `[[op.tunable]]` tables of `tunables`, as `init` writes them: each with a blank line before it,
/// its binding, its domain and the value the sources hold now.
pub fn render_tunables(tunables: &[FoundTunable], aiv_cores: u32, aic_cores: u32) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    for t in tunables {
        let _ = writeln!(
            s,
            "\n[[op.tunable]]\nname = \"{}\"\nfile = \"{}\"{}",
            t.name,
            t.file,
            if t.file.starts_with("../") {
                "   # a shared header: tune writes a change back there, for every operator that includes it"
            } else {
                ""
            }
        );
        match &t.bind {
            Bind::Symbol(sym) => {
                let _ = writeln!(s, "symbol = \"{sym}\"");
            }
            Bind::Call { func, arg } => {
                let _ = writeln!(s, "call = \"{func}\"\narg = {arg}");
            }
            Bind::Field { field } => {
                let _ = writeln!(
                    s,
                    "field = \"{field}\"   # the literal the tiling assigns to this field"
                );
            }
            Bind::UbParts { var, function } => {
                let _ = writeln!(
                    s,
                    "ub-parts-of = \"{var}\"   # tiles planned for 1/N of the UB this query reports"
                );
                if let Some(f) = function {
                    let _ = writeln!(s, "ub-parts-in = \"{f}\"   # the query in this function");
                }
            }
        }
        if t.scale > 1 {
            let _ = writeln!(
                s,
                "{}   # now {}, times {} as the source writes it",
                scaled_domain(t.value),
                t.value,
                t.scale
            );
        } else {
            let _ = writeln!(
                s,
                "{}   # now {}",
                domain(t.kind, t.value, aiv_cores, aic_cores),
                t.value
            );
        }
    }
    s
}

/// `manifest` (the text of an ascend.toml) with the `[[op.tunable]]` tables of each op named in
/// `tunables` (op name, rendered tables) replaced by the given ones, appended at the end of that op's
/// part; everything else is kept as it is, comments included. Ops not named keep their tunables.
pub fn replace_tunables(manifest: &str, tunables: &[(String, String)]) -> String {
    let header = |l: &str| l.trim_start().starts_with('[');
    let lines: Vec<&str> = manifest.lines().collect();
    // Each op's part: from its `[[op]]` line to the line before the next one.
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.trim() == "[[op]]")
        .map(|(i, _)| i)
        .collect();
    let mut out = String::new();
    let prelude_end = starts.first().copied().unwrap_or(lines.len());
    for l in &lines[..prelude_end] {
        out.push_str(l);
        out.push('\n');
    }
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(lines.len());
        let part = &lines[start..end];
        // The op's name: the first `name = "..."` before any other table header.
        let name = part[1..].iter().take_while(|l| !header(l)).find_map(|l| {
            let (key, value) = l.split_once('=')?;
            (key.trim() == "name").then(|| {
                let v = value.split('#').next().unwrap_or("").trim();
                v.trim_matches('"').to_string()
            })
        });
        let new = name.and_then(|n| tunables.iter().find(|(op, _)| *op == n));
        let Some((_, rendered)) = new else {
            for l in part {
                out.push_str(l);
                out.push('\n');
            }
            continue;
        };
        let mut kept: Vec<&str> = vec![];
        let mut in_tunable = false;
        for l in part {
            if header(l) {
                in_tunable = l.trim() == "[[op.tunable]]";
            }
            if !in_tunable {
                kept.push(l);
            }
        }
        while kept.last().is_some_and(|l| l.trim().is_empty()) {
            kept.pop();
        }
        for l in kept {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str(rendered);
        if k + 1 < starts.len() {
            out.push('\n');
        }
    }
    out
}

/// The domain of a size written in units (`16u * 1024u`: the factor 16 is the tunable): an eighth to
/// eight times the factor, powers of two where it is one, never below one unit.
pub fn scaled_domain(value: i64) -> String {
    if value > 0 && value & (value - 1) == 0 {
        format!("pow2 = [{}, {}]", (value / 8).max(1), value * 8)
    } else {
        around(value)
    }
}

/// A quarter to four times `value`, as a `values` list: the domain of a size that is no power of two.
fn around(value: i64) -> String {
    let mut v: Vec<i64> = [value / 4, value / 2, value, value * 2, value * 4]
        .into_iter()
        .filter(|&x| x > 0)
        .collect();
    v.dedup();
    format!("values = {v:?}")
}

/// The domain `init` writes for a tunable of `kind` whose sources hold `value` now, as manifest text.
/// It always holds `value`. `aiv_cores` bounds block counts, `aic_cores` the cube cores of a matmul.
pub fn domain(kind: TunableKind, value: i64, aiv_cores: u32, aic_cores: u32) -> String {
    let cores = |cap: u32| {
        let mut v: Vec<i64> = [1, 2, 4, 8, 12, 16, 20, 24, 32, 40, 48]
            .into_iter()
            .filter(|&c| c <= cap as i64)
            .collect();
        v.extend([cap as i64, value]);
        v.sort_unstable();
        v.dedup();
        format!("values = {v:?}")
    };
    match kind {
        // 16 (one fractal side) to 256: the largest side a double-buffered fp16 L0A / L0B block of
        // depth 64 and an fp32 L0C block of side 128 leave room for; the L0 capacities themselves are
        // checked by the tiling (GetTiling fails) and by the twin's buffers.
        TunableKind::CubeBase => {
            let hi = value.max(256);
            if value & (value - 1) == 0 && value >= 16 {
                format!("pow2 = [16, {hi}]")
            } else {
                let mut v: Vec<i64> = vec![16, 32, 64, 128, 256, value];
                v.sort_unstable();
                v.dedup();
                format!("values = {v:?}")
            }
        }
        TunableKind::CubeCores => cores(aic_cores),
        // Never more than written: the author's figure is the most of that buffer known to be free.
        TunableKind::CubeBuffer => {
            let mut v: Vec<i64> = [value / 4, value / 2, value]
                .into_iter()
                .filter(|&x| x > 0)
                .collect();
            v.dedup();
            format!("values = {v:?}")
        }
        TunableKind::CubeStep if value > 0 && value & (value - 1) == 0 => {
            format!("pow2 = [1, {}]", (value * 2).max(8))
        }
        // A count or step far past any UB split or L1 depth is an element count a tiling switches at
        // (ops-nn's batch_norm_grad_v3: `BNG_V3_RAR_RECOMPUTE_SPLIT_R1 = 1000000`), whose every-integer
        // range the manifest would refuse: the few values around it, as for a size.
        TunableKind::CubeStep
        | TunableKind::UbParts
        | TunableKind::BufferCount
        | TunableKind::UbSplit
            if value > 16384 =>
        {
            around(value)
        }
        TunableKind::CubeStep => format!("range = [1, {}]", (value * 2).max(8)),
        // Up to 8 parts (twice the value past that): measured on tensor_move (ops-math), 1.078x at the
        // best of [1, 4] and 1.137x at 8, modelled (stop 27-28).
        TunableKind::UbParts => format!("range = [1, {}]", (value * 2).max(8)),
        TunableKind::BufferCount if value <= 2 => "range = [1, 2]".into(),
        TunableKind::BufferCount | TunableKind::UbSplit => {
            format!("range = [{}, {}]", (value / 2).max(1), (value * 2).max(2))
        }
        TunableKind::BlockDim => cores(aiv_cores),
        // 1 to 8 tiles, the count halved while it divides (the tile then doubles, whatever the
        // count's factors: a core's 23040 elements in 360 tiles go to 180, 90, 45), doubled and
        // quadrupled: a count of 360 may be best at 1 or 2 (one copy of a core's share), and its
        // neighbours divide what it divides.
        TunableKind::TileCount => {
            let mut v: Vec<i64> = vec![1, 2, 4, 8, value, value * 2, value * 4];
            let mut half = value;
            while half % 2 == 0 && half > 1 {
                half /= 2;
                v.push(half);
            }
            v.sort_unstable();
            v.dedup();
            format!("values = {v:?}")
        }
        TunableKind::Size if value > 0 && value & (value - 1) == 0 => {
            let lo = (value / 64).max(16);
            let lo = 1i64 << (63 - lo.leading_zeros());
            let hi = (value * 64).min(65536).max(value);
            format!("pow2 = [{}, {}]", lo.min(value), hi)
        }
        TunableKind::Size => around(value),
    }
}

#[cfg(test)]
mod tests;
