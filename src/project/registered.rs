//! Operators as CANN's op build finds them in a custom-op folder: one per class registered with
//! `OP_ADD(Type)` anywhere under `op_host/` (arch subfolders too), with the host files that register
//! its tiling and infershape functions (`IMPL_OP_OPTILING(Type)`, `IMPL_OP_INFERSHAPE(Type)`), the kernel
//! file that defines its entry (`snake_case(Type)`), and the include folders those sources need,
//! followed from their `#include`s up to the repository root. Knows nothing of manifests' shapes,
//! of how tunables are chosen (it asks `tunables_in`, as the older discovery does) or of building.

use super::opdef::{self, OpDef};
use super::{FoundOp, kernel_entries, rel};
use crate::fsx::lexical;
use crate::manifest::DType;
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// Files of `dir` and its subfolders with one of `exts`, in path order.
pub fn files_deep(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_deep(&p, exts, out);
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e))
        {
            out.push(p);
        }
    }
}

/// Whether a source is for another architecture than the 910B / 310P ones the twin models: the
/// ops repositories keep the Ascend 950 (arch35) variants beside the others, in `arch35/` folders or
/// files named `*_apt.cpp`, `*_arch35.cpp`, `*regbase*`.
pub fn other_arch(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    ["arch35", "_apt.", "regbase", "ascend950", "arch32", "/v35/"]
        .iter()
        .any(|k| p.contains(k))
}

/// `AddRmsNorm` -> `add_rms_norm`, `SoftmaxV2` -> `softmax_v2`, `ApplyAdagradD` -> `apply_adagrad_d`:
/// the kernel entry name CANN's build expects for an op type.
pub fn snake_case(op_type: &str) -> String {
    let c: Vec<char> = op_type.chars().collect();
    let mut s = String::new();
    for (i, &ch) in c.iter().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            let prev = c[i - 1];
            let next_lower = c.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                s.push('_');
            }
        }
        s.push(ch.to_ascii_lowercase());
    }
    s
}

/// The registered ops of the custom-op folder `root`, or `None` when its `op_host/` defines no OpDef
/// (then the older discovery, from kernel entries and the op json, applies).
pub fn discover(root: &Path) -> Option<Result<Vec<FoundOp>, String>> {
    let mut host_files = vec![];
    files_deep(
        &root.join("op_host"),
        &["cpp", "cc", "cxx"],
        &mut host_files,
    );
    let hosts: Vec<(String, String)> = host_files
        .iter()
        .filter_map(|p| Some((rel(root, p), std::fs::read_to_string(p).ok()?)))
        .collect();
    let mut defs: Vec<(String, OpDef)> = vec![];
    for (file, text) in &hosts {
        if !text.contains("OpDef") {
            continue;
        }
        for d in opdef::read_opdefs(text) {
            if !defs.iter().any(|(_, x)| x.op_type == d.op_type) {
                defs.push((file.clone(), d));
            }
        }
    }
    if defs.is_empty() {
        return None;
    }
    let regs: Vec<(&String, Vec<(String, String)>)> = hosts
        .iter()
        .filter(|(_, t)| t.contains("IMPL_OP"))
        .map(|(f, t)| (f, opdef::registrations(t)))
        .collect();
    let mut kernel_files = vec![];
    files_deep(
        &root.join("op_kernel"),
        &["cpp", "cc", "cxx", "asc"],
        &mut kernel_files,
    );
    let kernels: Vec<(String, String)> = kernel_files
        .iter()
        .filter_map(|p| Some((rel(root, p), std::fs::read_to_string(p).ok()?)))
        .collect();
    let mut entries: Vec<(String, super::KernelEntry)> = kernels
        .iter()
        .flat_map(|(f, t)| kernel_entries(t).into_iter().map(move |e| (f.clone(), e)))
        .collect();
    // An entry a macro defines, expanded in a header the op's `<op>.cpp` includes: looked for (the
    // headers read) only when an op has no entry of its own.
    let unmatched = defs.iter().any(|(_, d)| {
        !entries
            .iter()
            .any(|(_, e)| e.name == snake_case(&d.op_type))
    });
    if unmatched && !kernels.is_empty() {
        let with_entries: Vec<&str> = entries.iter().map(|(f, _)| f.as_str()).collect();
        let mut headers = vec![];
        files_deep(&root.join("op_kernel"), &["h", "hpp"], &mut headers);
        let mut all = kernels.clone();
        all.extend(
            headers
                .iter()
                .filter_map(|p| Some((rel(root, p), std::fs::read_to_string(p).ok()?))),
        );
        let found = super::macro_entries(&all, &with_entries);
        entries.extend(found);
    }
    let mut ops = vec![];
    let mut problems = vec![];
    for (def_file, def) in defs.iter() {
        let mut notes = vec![];
        let want = snake_case(&def.op_type);
        let mut matching: Vec<&(String, super::KernelEntry)> =
            entries.iter().filter(|(_, e)| e.name == want).collect();
        if matching.is_empty() {
            let names: BTreeSet<&str> = entries.iter().map(|(_, e)| e.name.as_str()).collect();
            if defs.len() == 1 && names.len() == 1 {
                notes.push(format!(
                    "kernel entry `{}` taken for op {}: it is the only entry under op_kernel/ (CANN expects `{want}`)",
                    names.first().unwrap(),
                    def.op_type
                ));
                matching = entries.iter().collect();
            } else {
                problems.push(format!(
                    "op {} ({def_file}): no kernel entry `{want}` under op_kernel/ (entries found: {})",
                    def.op_type,
                    if names.is_empty() {
                        "none".into()
                    } else {
                        names.into_iter().collect::<Vec<_>>().join(", ")
                    }
                ));
                continue;
            }
        }
        // Two kernel files may define one entry (one per architecture): the one for this SoC, named
        // after the entry when several remain.
        let mut best = matching.clone();
        best.sort_by_key(|(f, e)| {
            (
                other_arch(f),
                Path::new(f).file_stem().and_then(|s| s.to_str()) != Some(e.name.as_str()),
                f.matches('/').count(),
                f.clone(),
            )
        });
        let (kernel_file, entry) = best[0];
        let others: BTreeSet<&str> = matching
            .iter()
            .map(|(f, _)| f.as_str())
            .filter(|f| *f != kernel_file)
            .collect();
        if !others.is_empty() {
            notes.push(format!(
                "kernel {kernel_file} chosen for `{}`; {} define(s) it too (other architectures)",
                entry.name,
                others.into_iter().collect::<Vec<_>>().join(", ")
            ));
        }
        // Host files: the OpDef's, and those registering its tiling / infershape, for this SoC where
        // a macro is registered both for it and for another architecture.
        let mut host = vec![def_file.clone()];
        for mac in ["IMPL_OP_OPTILING", "IMPL_OP_INFERSHAPE", "IMPL_OP"] {
            let files: Vec<&String> = regs
                .iter()
                .filter(|(_, r)| r.iter().any(|(m, t)| m == mac && *t == def.op_type))
                .map(|(f, _)| *f)
                .collect();
            let mine: Vec<&String> = files.iter().copied().filter(|f| !other_arch(f)).collect();
            for f in if mine.is_empty() { files } else { mine } {
                if !host.contains(f) {
                    host.push(f.clone());
                }
            }
        }
        // Sources registering a tiling template for the op (the registry its tiling function
        // dispatches through): without them the tiling finds no template at run time.
        let templates: Vec<&String> = hosts
            .iter()
            .filter(|(f, t)| {
                !host.contains(f)
                    && t.contains("TILING_TEMPLATE")
                    && !t.contains("OpDef")
                    && opdef::tiling_templates(t).contains(&def.op_type)
            })
            .map(|(f, _)| f)
            .collect();
        let mine: Vec<&String> = templates
            .iter()
            .copied()
            .filter(|f| !other_arch(f))
            .collect();
        for f in if mine.is_empty() { templates } else { mine } {
            notes.push(format!(
                "{f} compiled too: it registers a tiling template for {} (REGISTER_*TILING_TEMPLATE), which the tiling function dispatches through",
                def.op_type
            ));
            host.push(f.clone());
        }
        for f in companion_sources(&host, &hosts) {
            notes.push(format!(
                "{f} compiled too: it defines what a header the host files include declares"
            ));
            host.push(f);
        }
        // An msopgen OpDef sets its tiling function itself (`this->AICore().SetTiling(...)`): no
        // sibling's registration is its tiling (in the test suite's temporary folders another
        // project's `IMPL_OP_OPTILING(AddCustom)` sat beside add_custom and was compiled into it).
        let def_sets_tiling = hosts
            .iter()
            .any(|(f, t)| f == def_file && t.contains("SetTiling("));
        if !def_sets_tiling
            && !regs.iter().any(|(_, r)| {
                r.iter()
                    .any(|(m, t)| m == "IMPL_OP_OPTILING" && *t == def.op_type)
            })
        {
            match sibling_tiling(root, &def.op_type) {
                Some(f) => {
                    notes.push(format!(
                        "{f} compiled too: it registers the tiling function for {} (IMPL_OP_OPTILING) in a sibling folder, as the repository's op build does",
                        def.op_type
                    ));
                    host.push(f);
                }
                None => {
                    // A tiling registered under an op type no OpDef here defines (ops-math's
                    // experimental col2_im: OpDef `Col2Im`, `IMPL_OP_OPTILING(Col2ImCustom)`): the
                    // op's own mismatch, which CANN does not resolve either. Its file is compiled so
                    // the twin's error names the type it was registered for.
                    let orphans: Vec<(&String, &String)> = regs
                        .iter()
                        .flat_map(|(f, r)| r.iter().map(move |(m, t)| (*f, m, t)))
                        .filter(|(_, m, t)| {
                            *m == "IMPL_OP_OPTILING" && !defs.iter().any(|(_, d)| d.op_type == **t)
                        })
                        .map(|(f, _, t)| (f, t))
                        .collect();
                    match orphans.as_slice() {
                        [(f, t)] if !other_arch(f) => {
                            notes.push(format!(
                                "{f} compiled too: it registers a tiling function for `{t}` (IMPL_OP_OPTILING), which no OpDef here defines; the OpDef is `{}`, and CANN finds no tiling for it either until the two names agree",
                                def.op_type
                            ));
                            if !host.contains(f) {
                                host.push((*f).clone());
                            }
                        }
                        _ => notes.push(format!(
                            "no host file registers a tiling function for {} (IMPL_OP_OPTILING)",
                            def.op_type
                        )),
                    }
                }
            }
        }
        let kernel_text = &kernels.iter().find(|(f, _)| f == kernel_file).unwrap().1;
        let host_files: Vec<(String, String)> = host
            .iter()
            .filter_map(|h| hosts.iter().find(|(f, _)| f == h).cloned())
            .collect();
        let mut found = super::op_tunables(
            root,
            &host_files,
            &[(kernel_file.clone(), kernel_text.clone())],
        );
        let (inputs, outputs) = match def.dtype_column() {
            Some((col, i, o)) => {
                if col > 0 {
                    notes.push(format!(
                        "dtypes of {} from DataType column {col}: the manifest cannot name a dtype of the first",
                        def.op_type
                    ));
                }
                let f = |ps: &[opdef::ParamDef], ds: Vec<Option<DType>>| {
                    ps.iter()
                        .zip(ds)
                        .map(|(p, d)| (p.name.clone(), d.unwrap_or(DType::Float16)))
                        .collect::<Vec<_>>()
                };
                (f(&def.inputs, i), f(&def.outputs, o))
            }
            None => {
                notes.push(format!(
                    "{}: no DataType column has dtypes the manifest can name (double, complex, ...); float32 written",
                    def.op_type
                ));
                let f = |ps: &[opdef::ParamDef]| {
                    ps.iter()
                        .map(|p| (p.name.clone(), DType::Float32))
                        .collect::<Vec<_>>()
                };
                (f(&def.inputs), f(&def.outputs))
            }
        };
        let mut sources: Vec<PathBuf> = host.iter().map(|h| root.join(h)).collect();
        sources.push(root.join(kernel_file));
        let (mut include, include_as) = include_layout(root, &sources);
        // The UB split of a shared tiling header (ops-nn's foreach_tiling_class.h); the probe leaves
        // out the ones the run does not reach. Its folder goes on the include path, where the manifest
        // accepts a tunable's file outside the project.
        let shared = shared_headers(root, &host_files, &include);
        for t in crate::space::discover::shared_ub_parts(&shared) {
            if found.offered.iter().any(|o| o.name == t.name) {
                continue;
            }
            if let Some(dir) = Path::new(&t.file)
                .parent()
                .map(|d| d.to_string_lossy().into_owned())
                && !include.contains(&dir)
            {
                include.push(dir);
            }
            found.offered.push(t);
        }
        ops.push(FoundOp {
            name: entry.name.clone(),
            op_type: Some(def.op_type.clone()),
            host,
            kernel: vec![kernel_file.clone()],
            params: entry.params.clone(),
            inputs,
            outputs,
            tunables: found.offered,
            left_out: found.left_out,
            opdef: Some(def.clone()),
            include,
            include_as,
            notes,
            launch: None,
        });
    }
    if ops.is_empty() {
        return Some(Err(problems.join("; ")));
    }
    Some(Ok(ops))
}

/// The headers above the project that the host files include: beside the including file
/// (`#include "../../../foreach_utils/op_host/foreach_tiling_class.h"`, or a bare name from a host
/// source above the project) or from one of the `include` folders (`#include "foreach_tiling_class.h"`):
/// (path relative to `root`, starting `../`; text).
fn shared_headers(
    root: &Path,
    host: &[(String, String)],
    include: &[String],
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![];
    for (file, text) in host {
        let beside = Path::new(file)
            .parent()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default();
        for line in text.lines() {
            let Some(name) = crate::space::discover::quoted_include(line) else {
                continue;
            };
            for dir in std::iter::once(&beside).chain(include) {
                let rel = climbing(&Path::new(dir).join(name));
                if !rel.starts_with("../") {
                    continue;
                }
                if out.iter().any(|(r, _)| *r == rel) {
                    break;
                }
                if let Ok(t) = std::fs::read_to_string(root.join(&rel)) {
                    out.push((rel, t));
                    break;
                }
            }
        }
    }
    out
}

/// A relative path with `x/..` folded and the `..` that climb above its start kept
/// (`op_host/arch22/../../../u/x.h` is `../u/x.h`), with `/` separators.
fn climbing(path: &Path) -> String {
    let mut parts: Vec<String> = vec![];
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if parts.last().is_some_and(|p| p != "..") => {
                parts.pop();
            }
            c => parts.push(c.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

/// The host source of a sibling folder (`../<folder>/op_host/`, as ops-nn's `foreach_utils`) that
/// registers the tiling function of `op_type`, as `../<folder>/op_host/<file>` relative to `root`: the
/// repositories build every folder's host sources into one library, so a tiling registered beside the
/// op is its tiling. One that defines an OpDef (another op's folder) is never taken; this
/// architecture's file before another's.
fn sibling_tiling(root: &Path, op_type: &str) -> Option<String> {
    let parent = root.parent()?;
    let own = root.file_name()?;
    let mut folders: Vec<PathBuf> = std::fs::read_dir(parent)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name() != Some(own) && p.join("op_host").is_dir())
        .collect();
    folders.sort();
    let mut found: Vec<String> = vec![];
    for folder in folders {
        let mut files = vec![];
        files_deep(&folder.join("op_host"), &["cpp", "cc", "cxx"], &mut files);
        for f in files {
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            if text.contains("IMPL_OP_OPTILING")
                && !text.contains("OpDef")
                && opdef::registrations(&text)
                    .iter()
                    .any(|(m, t)| m == "IMPL_OP_OPTILING" && t == op_type)
            {
                found.push(format!("../{}", rel(parent, &f)));
            }
        }
    }
    found.sort_by_key(|f| other_arch(f));
    found.into_iter().next()
}

/// Host sources beside the chosen ones that CANN's op build compiles with them and that they need:
/// a chosen file includes `x_tiling.h` and `x_tiling.cpp` (same folder and stem under `op_host/`)
/// defines what it declares, as ops-nn's `*_regbase_tiling.cpp`, whose class the 910B tiling
/// function names even when it takes another branch (else the link misses its vtable). Followed
/// from the added files in turn; a source that registers an OpDef (another op's) is never added.
fn companion_sources(chosen: &[String], hosts: &[(String, String)]) -> Vec<String> {
    let mut added: Vec<String> = vec![];
    let mut todo: Vec<String> = chosen.to_vec();
    while let Some(file) = todo.pop() {
        let Some((_, text)) = hosts.iter().find(|(f, _)| *f == file) else {
            continue;
        };
        let dir = Path::new(&file).parent().unwrap_or(Path::new(""));
        for inc in includes_of(text) {
            let header = lexical(&dir.join(&inc));
            let (Some(stem), Some(ext)) = (
                header.file_stem().and_then(|s| s.to_str()),
                header.extension().and_then(|s| s.to_str()),
            ) else {
                continue;
            };
            if !matches!(ext, "h" | "hpp" | "hh") {
                continue;
            }
            let folder = header.parent().unwrap_or(Path::new(""));
            for (f, t) in hosts {
                let p = Path::new(f);
                let same = p.parent() == Some(folder)
                    && p.file_stem().and_then(|s| s.to_str()) == Some(stem);
                if same
                    && !chosen.contains(f)
                    && !added.contains(f)
                    && !t.contains("OpDef")
                    && !t.contains("IMPL_OP")
                {
                    added.push(f.clone());
                    todo.push(f.clone());
                }
            }
        }
    }
    added
}

/// What a link failure says is missing, whole and in the order first met, each once: the `ns::f(int)`
/// of "undefined reference to `ns::f(int)'" (`vtable for ns::C` stays as the linker says it).
pub fn undefined_references(link_error: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for line in link_error.lines() {
        let Some(at) = line.find("undefined reference to") else {
            continue;
        };
        let sym = line[at + "undefined reference to".len()..]
            .trim()
            .trim_matches(|c| c == '`' || c == '\'' || c == '\u{2018}' || c == '\u{2019}');
        if !sym.is_empty() && !out.iter().any(|o| o == sym) {
            out.push(sym.to_string());
        }
    }
    out
}

/// The names a link failure says are missing: `undefined reference to `ns::Class::f(int)'` gives
/// `f` (and `Class`, whose members may be defined apart), `vtable for ns::Class` gives `Class`.
pub fn missing_symbols(link_error: &str) -> Vec<String> {
    symbol_names(&undefined_references(link_error))
}

/// The names `missing_symbols` takes from each of `refs`, what `undefined_references` gives.
pub fn symbol_names(refs: &[String]) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for whole in refs {
        let sym = whole.strip_prefix("vtable for ").unwrap_or(whole);
        let head = sym.split('(').next().unwrap_or(sym);
        let parts: Vec<&str> = head.split("::").map(str::trim).collect();
        for name in parts.iter().rev().take(2) {
            let ok = !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.chars().next().unwrap().is_ascii_digit();
            if ok && !out.iter().any(|o| o == name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Host sources, not among `chosen`, that define one of `symbols`: under `root/op_host/` (arch subfolders
/// too), then, in the rest of the repository, the `.cpp` files named as a header the chosen sources include
/// (`tiling_util.h` -> `tiling_util.cpp`: ops-cv declares its shared tiling helpers in
/// `common/inc/op_host/tiling_util.h` and defines them in `common/src/op_host/tiling_util.cpp`, which its
/// CMake build links into every op). A definition is a line that names the symbol followed by `(` or `::`
/// and does not end in `;` (not a declaration or a call). A source that registers an OpDef, or a tiling /
/// infershape function for `op_type`, is never taken (it would register the op twice), nor one under a
/// test folder. One that registers another op's functions is taken only where no other source defines
/// what is missing (it brings that op's tiling with it): ops-transformer's mla_prolog_v2 registers
/// `TilingPrepareForMlaProlog`, which it finds only in mla_prolog's `IMPL_OP_OPTILING(MlaProlog)` file.
pub fn sources_defining(
    root: &Path,
    op_type: &str,
    chosen: &[String],
    symbols: &[String],
) -> Vec<String> {
    let mut files = vec![];
    files_deep(&root.join("op_host"), &["cpp", "cc", "cxx"], &mut files);
    let own: Vec<String> = files
        .into_iter()
        .map(|p| rel(root, &p))
        .filter(|r| !chosen.contains(r) && !r.contains("op_api"))
        .collect();
    // the repository walk only where the op's own folder has nothing
    let mut companions: Option<[Vec<String>; 2]> = None;
    for others_registrations in [false, true] {
        for tier in 0..3 {
            let candidates = if tier == 0 {
                &own
            } else {
                &companions.get_or_insert_with(|| {
                    let take = |found: Vec<PathBuf>| -> Vec<String> {
                        found
                            .into_iter()
                            .map(|p| relative(root, &p))
                            .filter(|r| !chosen.contains(r) && !own.contains(r))
                            .collect()
                    };
                    let (named, mates) = header_companions(root, chosen);
                    [take(named), take(mates)]
                })[tier - 1]
            };
            let out: Vec<String> = candidates
                .iter()
                .filter(|r| defines_one_of(&root.join(r), op_type, others_registrations, symbols))
                .cloned()
                .collect();
            if !out.is_empty() {
                return out;
            }
        }
    }
    vec![]
}

/// Whether the source at `path` defines one of `symbols` (see `sources_defining`); one registering
/// another op's tiling or infershape only where `others_registrations`.
fn defines_one_of(
    path: &Path,
    op_type: &str,
    others_registrations: bool,
    symbols: &[String],
) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return false;
    };
    if text.contains("OpDef") {
        return false;
    }
    if text.contains("IMPL_OP") {
        let registrations = opdef::registrations(&text);
        if !others_registrations || registrations.iter().any(|(_, t)| t == op_type) {
            return false;
        }
    }
    symbols.iter().any(|sym| {
        text.lines().any(|l| {
            let t = l.trim_end();
            !t.ends_with(';')
                && [format!("{sym}("), format!("{sym} ("), format!("{sym}::")]
                    .iter()
                    .any(|k| {
                        t.find(k.as_str()).is_some_and(|i| {
                            i == 0 || {
                                let c = t.as_bytes()[i - 1];
                                !(c.is_ascii_alphanumeric()
                                    || c == b'_'
                                    || c == b'.'
                                    || t[..i].ends_with("->"))
                            }
                        })
                    })
                && !t.trim_start().starts_with("return")
                && !t.trim_start().starts_with("//")
        })
    })
}

/// The `.cpp` / `.cc` files of the repository above `root` whose stem is that of a header the `chosen`
/// sources include, outside test folders and other operators' `op_host/` / `op_kernel/` folders; and,
/// apart, the other sources in the folder of a header included by its path (ops-transformer's
/// mla_prolog declares `TilingPrepareForMlaProlog` in `mla_prolog_tiling.h` and defines it in
/// `mla_prolog_tiling_register.cpp` beside it).
fn header_companions(root: &Path, chosen: &[String]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let repo = repository_root(root);
    let skip = |name: &str| {
        matches!(
            name,
            ".git" | "tests" | "test" | "ut" | "st" | "build" | "target" | "op_kernel" | "op_api"
        )
    };
    // Every header of the repository, to follow includes through, and every source outside an
    // operator's host folder (beside its op_kernel/, it holds that operator's own registrations), to
    // answer for them.
    let mut headers: Vec<PathBuf> = vec![];
    let mut sources: Vec<PathBuf> = vec![];
    let mut stack = vec![(repo, false)];
    while let Some((dir, in_operator_host)) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        entries.sort();
        for p in entries {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if p.is_dir() {
                let operator_host =
                    name == "op_host" && p.parent().is_some_and(|d| d.join("op_kernel").is_dir());
                if !skip(name) {
                    stack.push((p, in_operator_host || operator_host));
                }
            } else if name.ends_with(".h") || name.ends_with(".hpp") {
                headers.push(p);
            } else if !in_operator_host && (name.ends_with(".cc") || name.ends_with(".cpp")) {
                sources.push(p);
            }
        }
    }
    // The headers the chosen sources include, and those these include, up to four deep (ops-cv's
    // grid_sample includes its own tiling header, which includes `op_host/tiling_util.h`): an include
    // is the repository header at that path from the including file's folder, else every one whose path
    // ends with it (the include folders of the original build are not known).
    let mut stems = BTreeSet::new();
    // sources beside a header included by its path, even in another operator's host folder (ops-nn's
    // avg_pool3_d_grad includes `../../avg_pool3_d/op_host/avg_pool_cube_tiling.h`, whose classes and
    // vtables `avg_pool_cube_tiling.cpp` beside it defines; `sources_defining` takes one that registers
    // another op only where nothing else defines the symbol)
    let mut beside_sources: Vec<PathBuf> = vec![];
    // the folders of headers included by their path from the including file
    let mut folders: BTreeSet<PathBuf> = BTreeSet::new();
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    let mut level: Vec<PathBuf> = chosen.iter().map(|c| root.join(c)).collect();
    for _ in 0..5 {
        let mut next = vec![];
        for file in &level {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let dir = file.parent().unwrap_or(Path::new(""));
            for inc in includes_of(&text) {
                let name = inc.rsplit('/').next().unwrap_or(&inc);
                if let Some(stem) = name
                    .strip_suffix(".h")
                    .or_else(|| name.strip_suffix(".hpp"))
                {
                    stems.insert(format!("{stem}.cpp"));
                    stems.insert(format!("{stem}.cc"));
                }
                let beside = lexical(&dir.join(&inc));
                let found: Vec<&PathBuf> = if headers.contains(&beside) {
                    for ext in ["cpp", "cc"] {
                        let source = beside.with_extension(ext);
                        if source.is_file() && !beside_sources.contains(&source) {
                            beside_sources.push(source);
                        }
                    }
                    if let Some(folder) = beside.parent() {
                        folders.insert(folder.to_path_buf());
                    }
                    headers.iter().filter(|h| **h == beside).collect()
                } else {
                    let tail = Path::new(inc.trim_start_matches("./"));
                    let found: Vec<&PathBuf> =
                        headers.iter().filter(|h| h.ends_with(tail)).collect();
                    // one header named by a path with folders (from the repository's root, as
                    // ops-math's circular_pad_grad includes `conversion/circular_pad/op_host/
                    // circular_pad_common_tiling.h`): its sources beside it answer for it too
                    if let [h] = found[..]
                        && inc.contains('/')
                    {
                        for ext in ["cpp", "cc"] {
                            let source = h.with_extension(ext);
                            if source.is_file() && !beside_sources.contains(&source) {
                                beside_sources.push(source);
                            }
                        }
                    }
                    found
                };
                for h in found {
                    if seen.insert(h.clone()) {
                        next.push(h.clone());
                    }
                }
            }
        }
        level = next;
    }
    let mut out: Vec<PathBuf> = sources
        .into_iter()
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| stems.contains(n))
        })
        .collect();
    for p in beside_sources {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out.sort();
    let mut mates: Vec<PathBuf> = vec![];
    for folder in folders {
        mates.extend(
            super::cpp_files(&folder)
                .into_iter()
                .filter(|p| !out.contains(p)),
        );
    }
    (out, mates)
}

/// `#include "..."` and `#include <...>` targets of a C++ source, in order.
fn includes_of(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l.strip_prefix('#')?.trim_start().strip_prefix("include")?;
            let rest = rest.trim();
            let (open, close) = match rest.chars().next()? {
                '"' => ('"', '"'),
                '<' => ('<', '>'),
                _ => return None,
            };
            let inner = rest.strip_prefix(open)?;
            Some(inner[..inner.find(close)?].to_string())
        })
        .collect()
}

/// The folder an operator's repository starts at: the nearest folder above `root` holding `.git`,
/// else the highest of the next six that still holds a `CMakeLists.txt` (an exported repository has
/// no `.git`), else `root`.
fn repository_root(root: &Path) -> PathBuf {
    let mut best = root.to_path_buf();
    for a in root.ancestors().take(7) {
        if a.join(".git").exists() {
            return a.to_path_buf();
        }
        if a.join("CMakeLists.txt").is_file() {
            best = a.to_path_buf();
        }
    }
    best
}

/// The include folders the sources need beyond their own folders and the twin's headers, as paths
/// relative to `root` (they may lie above it): each `#include` that does not resolve beside the file
/// that names it, nor in the twin, is looked for in each folder from `root` up to the repository root,
/// and in the `inc/` and `include/` folders of their subfolders (`common/inc`); found headers are
/// followed in turn.
pub fn include_folders(root: &Path, sources: &[PathBuf]) -> Vec<String> {
    include_layout(root, sources).0
}

/// A folder the original build lays out where a `#include "../<name>/x.h"` looks, found among the
/// folders beside `root` and beside its ancestors up to `top`: `<name>/x.h` itself or `x.h` under
/// `<name>/op_kernel/` (`<name>/op_host/`, `inc/`, `include/`), as ops-nn's shared `foreach_utils/`.
/// Returns the folder to show at `<name>`.
/// Failing that, a folder `<name>` one level further down beside an ancestor: ops-nn's kernels include
/// `../inc/platform.h`, which its build lays out from `common/inc/op_kernel/`.
fn sibling_folder(root: &Path, top: &Path, name: &str, rest: &Path) -> Option<PathBuf> {
    let holding = |f: &Path| -> Option<PathBuf> {
        if !f.is_dir() || f == root {
            return None;
        }
        ["", "op_kernel", "op_host", "inc", "include"]
            .iter()
            .map(|sub| {
                if sub.is_empty() {
                    f.to_path_buf()
                } else {
                    f.join(sub)
                }
            })
            .find(|d| d.join(rest).is_file())
    };
    let ancestors: Vec<&Path> = root
        .ancestors()
        .skip(1)
        .take_while(|a| a.starts_with(top))
        .collect();
    if let Some(d) = ancestors.iter().find_map(|a| holding(&a.join(name))) {
        return Some(d);
    }
    for a in &ancestors {
        let Ok(rd) = std::fs::read_dir(a) else {
            continue;
        };
        let mut subs: Vec<PathBuf> = rd
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir() && !root.starts_with(p))
            .collect();
        subs.sort();
        if let Some(d) = subs.iter().find_map(|s| holding(&s.join(name))) {
            return Some(d);
        }
    }
    None
}

/// As `include_folders`, and the `include-as` pairs: an `#include "../<name>/x.h"` that resolves
/// nowhere but lands inside the project names a sibling folder the original build copies beside the
/// sources (ops-nn's kernels include `../foreach_utils/...`); when `sibling_folder` finds it, the
/// pair (the path inside the project, the folder) lets the build show it there.
pub fn include_layout(root: &Path, sources: &[PathBuf]) -> (Vec<String>, Vec<(String, String)>) {
    let top = repository_root(root);
    let ancestors: Vec<PathBuf> = root
        .ancestors()
        .take_while(|a| a.starts_with(&top))
        .map(Path::to_path_buf)
        .collect();
    let mut bases: Vec<PathBuf> = vec![];
    for a in &ancestors {
        bases.push(a.clone());
        if let Ok(rd) = std::fs::read_dir(a) {
            let mut subs: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect();
            subs.sort();
            for s in subs {
                for inc in ["inc", "include"] {
                    if s.join(inc).is_dir() {
                        bases.push(s.join(inc));
                    }
                }
            }
        }
    }
    // The `op_host/` and `op_kernel/` folders of the folders beside `root` and beside its ancestors.
    let mut shared: Vec<PathBuf> = vec![];
    for a in ancestors.iter().skip(1) {
        if let Ok(rd) = std::fs::read_dir(a) {
            let mut subs: Vec<PathBuf> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir() && p != root)
                .collect();
            subs.sort();
            for s in subs {
                for side in ["op_host", "op_kernel"] {
                    if s.join(side).is_dir() {
                        shared.push(s.join(side));
                    }
                }
            }
        }
    }
    // A shared include folder's `op_host/` and `op_kernel/` (ops-nn's `common/inc/op_host/`), or
    // `host/` and `kernel/` (ops-transformer's `common/include/kernel/util.h`): the original build puts
    // them on the path too, and sources name their headers bare (`#include "tiling_util.h"`).
    for b in &bases {
        if b.ends_with("inc") || b.ends_with("include") {
            for side in ["op_host", "op_kernel", "host", "kernel"] {
                if b.join(side).is_dir() {
                    shared.push(b.join(side));
                }
            }
        }
    }
    let mut found: Vec<PathBuf> = vec![];
    let mut mounts: Vec<(PathBuf, PathBuf)> = vec![];
    let mut seen: BTreeSet<PathBuf> = BTreeSet::new();
    // Headers anywhere in the repository, by name, read only when a bare include resolves nowhere
    // else: from the repository root, or two folders up where no root is marked (an exported
    // tutorial tree has no `.git`), never from the filesystem's root or the home folder (a project
    // at ~/op must not take a header of another project on the machine).
    let search_top = if top != root {
        top.clone()
    } else {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        root.ancestors()
            .nth(2)
            .filter(|a| {
                a.components().count() > 2 && home.as_deref().is_none_or(|h| !h.starts_with(a))
            })
            .unwrap_or(root)
            .to_path_buf()
    };
    let mut elsewhere: Option<HeaderIndex> = None;
    // Each file with the folder the build shows it in: its own, or, for a file reached through an
    // `include-as` mount, the mount's (ops-nn's add_rms_norm.h, shown as `add_rms_norm/` inside
    // inplace_add_rms_norm, includes `../rms_norm/rms_norm_base.h`: one more sibling, found from there).
    let shown_in = |f: &Path| f.parent().unwrap_or(root).to_path_buf();
    let mut queue: Vec<(PathBuf, PathBuf)> =
        sources.iter().map(|f| (f.clone(), shown_in(f))).collect();
    while let Some((file, shown)) = queue.pop() {
        if seen.len() > 2000 || !seen.insert(file.clone()) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let dir = file.parent().unwrap_or(root).to_path_buf();
        for inc in includes_of(&text) {
            if inc.starts_with('/') {
                continue;
            }
            let here = dir.join(&inc);
            if here.is_file() {
                let beside = lexical(&shown.join(&inc));
                queue.push((here, shown_in(&beside)));
                continue;
            }
            if let Some(f) = found.iter().map(|b| b.join(&inc)).find(|p| p.is_file()) {
                queue.push((f.clone(), shown_in(&f)));
                continue;
            }
            if crate::twin::provides_header(&inc) && !crate::twin::reads_repository_header(&inc) {
                continue;
            }
            if let Some(b) = bases.iter().find(|b| b.join(&inc).is_file()) {
                queue.push((b.join(&inc), shown_in(&b.join(&inc))));
                found.push(b.clone());
                continue;
            }
            // A bare name kept in a sibling operator folder's `op_host/` or `op_kernel/` (a family's
            // shared `foreach_utils/op_host/`, which the original build puts on the include path):
            // taken when exactly one such folder holds it.
            let holders: Vec<&PathBuf> = shared.iter().filter(|b| b.join(&inc).is_file()).collect();
            if let [b] = holders[..] {
                queue.push((b.join(&inc), shown_in(&b.join(&inc))));
                found.push(b.clone());
                continue;
            }
            if !inc.contains('/')
                && let Some(b) = elsewhere
                    .get_or_insert_with(|| headers_by_name(&search_top))
                    .holder(root, &inc)
            {
                queue.push((b.join(&inc), shown_in(&b.join(&inc))));
                found.push(b);
                continue;
            }
            // A path a header names from a folder above its own, which the original build puts on the
            // include path: ops-transformer's mc2/3rd/batch_mat_mul_v3/op_host/op_tiling/ header includes
            // `mat_mul_v3/op_host/op_tiling/matmul_v3_tiling.h`, which is under mc2/3rd/. Looked for in
            // the ancestors of the file that names it, up to the repository root.
            if inc.contains('/') && !inc.starts_with("../") {
                if let Some(b) = lexical(&dir)
                    .ancestors()
                    .skip(1)
                    .take_while(|a| a.starts_with(&top))
                    .find(|a| a.join(&inc).is_file())
                {
                    queue.push((b.join(&inc), shown_in(&b.join(&inc))));
                    found.push(b.to_path_buf());
                }
                continue;
            }
            if !inc.starts_with("../") {
                continue;
            }
            // `../<name>/x.h` landing inside the project, where no folder `<name>` is: from the
            // file's folder, or, as the compiler also reads it, from a folder above it that is on the
            // include path (`../inc/platform.h` in `op_kernel/arch35/` of ops-nn's
            // norm/bn3d_training_reduce is found as `op_kernel/../inc/` in the original build).
            let mut landing = None;
            for d in shown.ancestors().take_while(|d| d.starts_with(root)) {
                let at = lexical(&d.join(&inc));
                let Ok(inside) = at.strip_prefix(lexical(root)) else {
                    continue;
                };
                let mut parts = inside.components();
                let Some(Component::Normal(first)) = parts.next() else {
                    continue;
                };
                let rest = parts.as_path().to_path_buf();
                if !root.join(first).exists() && !rest.as_os_str().is_empty() {
                    landing = Some((first.to_os_string(), rest));
                    break;
                }
            }
            let Some((first, rest)) = landing else {
                continue;
            };
            let mount = root.join(&first);
            if let Some((_, d)) = mounts.iter().find(|(m, _)| *m == mount) {
                if d.join(&rest).is_file() {
                    queue.push((d.join(&rest), shown_in(&mount.join(&rest))));
                }
                continue;
            }
            if let Some(d) = sibling_folder(root, &top, &first.to_string_lossy(), &rest) {
                queue.push((d.join(&rest), shown_in(&mount.join(&rest))));
                mounts.push((mount, d));
            }
        }
    }
    (
        found.iter().map(|f| relative(root, f)).collect(),
        mounts
            .iter()
            .map(|(m, d)| (relative(root, m), relative(root, d)))
            .collect(),
    )
}

/// The header files under a folder, by file name (`target/`, `build*/` and hidden folders passed
/// over; at most 100 000 entries walked).
struct HeaderIndex(std::collections::BTreeMap<String, Vec<PathBuf>>);

fn headers_by_name(top: &Path) -> HeaderIndex {
    let mut by_name: std::collections::BTreeMap<String, Vec<PathBuf>> = Default::default();
    let walk = walkdir::WalkDir::new(top)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let n = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && (n.starts_with('.') || n == "target" || n.starts_with("build")))
        })
        .take(100_000)
        .flatten();
    for e in walk {
        let n = e.file_name().to_string_lossy();
        if e.file_type().is_file() && (n.ends_with(".h") || n.ends_with(".hpp")) {
            by_name
                .entry(n.into_owned())
                .or_default()
                .push(e.path().to_path_buf());
        }
    }
    HeaderIndex(by_name)
}

impl HeaderIndex {
    /// The folder holding the header `name` for a project at `root`: the copy in a folder named like
    /// `root` (hicann/cann-learning-hub's tutorial answer `answer/02.05/` includes "data_utils.h",
    /// which its exercise `src/02.05/` holds), else the only copy, else the first where every copy
    /// has the same bytes. None where copies differ and none is so named.
    fn holder(&self, root: &Path, name: &str) -> Option<PathBuf> {
        let copies = self.0.get(name)?;
        let folder = |p: &PathBuf| p.parent().map(Path::to_path_buf);
        if let Some(same) = copies
            .iter()
            .find(|p| p.parent().and_then(Path::file_name) == root.file_name())
        {
            return folder(same);
        }
        let first = copies.first()?;
        let bytes = std::fs::read(first).ok()?;
        copies
            .iter()
            .skip(1)
            .all(|p| std::fs::read(p).is_ok_and(|b| b == bytes))
            .then(|| folder(first))?
    }
}

/// `to` relative to `from` (both absolute or both relative to one folder), with `..` where it lies above.
fn relative(from: &Path, to: &Path) -> String {
    let a: Vec<Component> = from.components().collect();
    let b: Vec<Component> = to.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let mut parts: Vec<String> = vec!["..".into(); a.len() - common];
    parts.extend(
        b[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    if parts.is_empty() {
        ".".into()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// hicann/cann-learning-hub's `answer/02.05/` includes "data_utils.h", which only its exercise
    /// folder `src/02.05/` (and the other exercises) hold.
    #[test]
    fn a_bare_header_held_elsewhere_in_the_repository_is_found_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        std::fs::write(top.join("CMakeLists.txt"), "").unwrap();
        let answer = top.join("answer/02.05");
        std::fs::create_dir_all(&answer).unwrap();
        std::fs::write(answer.join("k.asc"), "#include \"data_utils.h\"\n").unwrap();
        for (folder, text) in [("src/02.05", "A"), ("src/02.04", "B")] {
            std::fs::create_dir_all(top.join(folder)).unwrap();
            std::fs::write(top.join(folder).join("data_utils.h"), text).unwrap();
        }
        // a built copy is no source
        std::fs::create_dir_all(top.join("answer/02.05/target/x")).unwrap();
        std::fs::write(top.join("answer/02.05/target/x/data_utils.h"), "C").unwrap();
        let found = include_folders(&answer, &[answer.join("k.asc")]);
        assert_eq!(found, ["../../src/02.05"]);
        // copies that differ, none named like the project: none taken
        let other = top.join("answer/02.09");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("k.asc"), "#include \"data_utils.h\"\n").unwrap();
        assert!(include_folders(&other, &[other.join("k.asc")]).is_empty());
        // the same bytes everywhere: the first
        std::fs::write(top.join("src/02.04/data_utils.h"), "A").unwrap();
        assert_eq!(include_folders(&other, &[other.join("k.asc")]).len(), 1);
        // no repository root marked (no CMakeLists.txt, no .git): two folders up is searched
        std::fs::remove_file(top.join("CMakeLists.txt")).unwrap();
        assert_eq!(
            include_folders(&answer, &[answer.join("k.asc")]),
            ["../../src/02.05"]
        );
    }

    #[test]
    fn op_types_become_kernel_entry_names() {
        for (t, n) in [
            ("AddRmsNorm", "add_rms_norm"),
            ("SoftmaxV2", "softmax_v2"),
            ("ApplyAdagradD", "apply_adagrad_d"),
            ("Tan", "tan"),
            ("Log1pV2", "log1p_v2"),
            ("ReluGradV4", "relu_grad_v4"),
            ("AddCustom", "add_custom"),
        ] {
            assert_eq!(snake_case(t), n, "{t}");
        }
    }

    #[test]
    fn includes_and_relative_paths() {
        assert_eq!(
            includes_of("#include \"a/b.h\"\n  # include <c.h>\n#define X\n#include MACRO\n"),
            ["a/b.h", "c.h"]
        );
        assert_eq!(
            relative(Path::new("/r/a/b"), Path::new("/r/common/inc")),
            "../../common/inc"
        );
        assert_eq!(relative(Path::new("/r/a"), Path::new("/r/a")), ".");
        assert!(other_arch("op_host/arch35/x_tiling.cpp"));
        assert!(other_arch("op_kernel/add_rms_norm_apt.cpp"));
        assert!(!other_arch("op_kernel/add_rms_norm.cpp"));
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// ops-nn's foreach tilings reach the shared `foreach_tiling_class.h` three ways: by a path that
    /// climbs out of `op_host/arch22/`, by a bare name from an include folder, and by a bare name from a
    /// tiling source above the project. Each is found once, as a path from the project; a header inside
    /// the project is not shared.
    #[test]
    fn shared_tiling_headers_are_found_however_the_host_files_include_them() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("foreach/op");
        write(dir.path(), "foreach/utils/op_host/plan.h", "// plan\n");
        write(&root, "op_host/own.h", "// own\n");
        let host = |file: &str, inc: &str| (file.to_string(), format!("#include \"{inc}\"\n"));
        for (h, include) in [
            (
                host("op_host/arch22/t.cpp", "../../../utils/op_host/plan.h"),
                vec![],
            ),
            (
                host("op_host/t.cpp", "plan.h"),
                vec!["../utils/op_host".to_string()],
            ),
            (host("../utils/op_host/t.cpp", "plan.h"), vec![]),
        ] {
            let found = shared_headers(
                &root,
                &[h.clone(), host("op_host/t.cpp", "own.h")],
                &include,
            );
            assert_eq!(
                found,
                [(
                    "../utils/op_host/plan.h".to_string(),
                    "// plan\n".to_string()
                )],
                "{h:?}"
            );
        }
        assert_eq!(climbing(Path::new("a/b/../../../c/./d.h")), "../c/d.h");
    }

    /// `../shared/x.h` from `op_kernel/` lands in the op folder, where no `shared/` is: the sibling
    /// folder `shared/` found up the repository (its `op_kernel/` holding `x.h`) becomes an
    /// `include-as` pair, and the headers it includes beside itself are followed; a relative include
    /// that resolves as written, or lands outside the op, is left alone.
    #[test]
    fn a_sibling_folder_included_by_a_relative_path_becomes_an_include_as_pair() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "");
        write(
            repo,
            "fam/shared/op_kernel/x.h",
            "#include \"y.h\"\n#include \"util/z.h\"\n",
        );
        write(repo, "fam/shared/op_kernel/y.h", "\n");
        write(repo, "fam/shared/op_host/shared_tiling.h", "\n");
        write(repo, "fam/op_b/op_host/twice.h", "// b\n");
        write(repo, "fam/op_c/op_host/twice.h", "// c\n");
        write(repo, "common/inc/util/z.h", "\n");
        let root = repo.join("fam/op_a");
        write(
            &root,
            "op_kernel/op_a.cpp",
            "#include \"../shared/x.h\"\n#include \"../../missing/w.h\"\n",
        );
        // A bare name held by one sibling's `op_host/` is found there; one held by two that differ is
        // not guessed (identical copies are: `a_bare_header_held_elsewhere_...`).
        write(
            &root,
            "op_host/op_a_tiling.cpp",
            "#include \"shared_tiling.h\"\n#include \"twice.h\"\n",
        );
        let (include, _) = include_layout(&root, &[root.join("op_host/op_a_tiling.cpp")]);
        assert_eq!(include, ["../shared/op_host"]);
        let (include, include_as) = include_layout(&root, &[root.join("op_kernel/op_a.cpp")]);
        assert_eq!(
            include_as,
            [("shared".to_string(), "../shared/op_kernel".to_string())]
        );
        // Found through the mounted header's own include.
        assert_eq!(include, ["../../common/inc"]);
        // An op folder that has `shared/` itself needs no pair.
        write(&root, "shared/x.h", "\n");
        let (_, include_as) = include_layout(&root, &[root.join("op_kernel/op_a.cpp")]);
        assert!(include_as.is_empty(), "{include_as:?}");
    }

    /// A header that names `dir/x.h` from a folder above its own (ops-transformer's mc2/3rd/ layout): the
    /// ancestor holding it becomes an include folder; a path no ancestor holds adds nothing.
    #[test]
    fn a_path_a_header_names_from_an_ancestor_of_its_own_folder_is_found_there() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "");
        write(
            repo,
            "mc2/3rd/bmm/op_host/tiling/bmm_tiling.h",
            "#include \"mm/op_host/tiling/mm_tiling.h\"\n#include \"nowhere/else.h\"\n",
        );
        write(repo, "mc2/3rd/mm/op_host/tiling/mm_tiling.h", "\n");
        write(
            repo,
            "mc2/common/inc/tiling.h",
            "#include \"../../3rd/bmm/op_host/tiling/bmm_tiling.h\"\n",
        );
        let root = repo.join("mc2/op_d");
        write(&root, "op_host/op_d_tiling.cpp", "#include \"tiling.h\"\n");
        let (include, _) = include_layout(&root, &[root.join("op_host/op_d_tiling.cpp")]);
        assert_eq!(include, ["../common/inc", "../3rd"]);
    }

    /// A mounted sibling's header that includes `../<other>/x.h` names a second sibling, found from
    /// where the build shows the header (ops-nn's inplace_add_rms_norm includes
    /// `../add_rms_norm/add_rms_norm.h`, which includes `../rms_norm/rms_norm_base.h`).
    #[test]
    fn a_mounted_headers_own_sibling_include_becomes_a_second_pair() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "");
        write(
            repo,
            "norm/add_rms_norm/op_kernel/add_rms_norm.h",
            "#include \"../rms_norm/rms_norm_base.h\"\n",
        );
        write(repo, "norm/rms_norm/op_kernel/rms_norm_base.h", "\n");
        let root = repo.join("norm/inplace_add_rms_norm");
        write(
            &root,
            "op_kernel/inplace_add_rms_norm.cpp",
            "#include \"../add_rms_norm/add_rms_norm.h\"\n",
        );
        let (_, include_as) =
            include_layout(&root, &[root.join("op_kernel/inplace_add_rms_norm.cpp")]);
        assert_eq!(
            include_as,
            [
                (
                    "add_rms_norm".to_string(),
                    "../add_rms_norm/op_kernel".to_string()
                ),
                ("rms_norm".to_string(), "../rms_norm/op_kernel".to_string())
            ]
        );
    }

    /// ops-nn's kernels include `../inc/platform.h`, laid out by its build from
    /// `common/inc/op_kernel/`: from `op_kernel/` and from `op_kernel/arch35/` (norm/bn3d_training_reduce,
    /// found through the include folder `op_kernel/`) the pair mounts `inc` at the root.
    #[test]
    fn an_inc_folder_one_level_down_beside_an_ancestor_is_mounted() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "");
        write(repo, "common/inc/op_kernel/platform.h", "\n");
        let root = repo.join("norm/op_a");
        write(&root, "op_kernel/a.cpp", "#include \"../inc/platform.h\"\n");
        write(
            &root,
            "op_kernel/arch35/b.h",
            "#include \"../inc/platform.h\"\n",
        );
        let (_, include_as) = include_layout(&root, &[root.join("op_kernel/a.cpp")]);
        assert_eq!(
            include_as,
            [("inc".to_string(), "../../common/inc/op_kernel".to_string())]
        );
        let (_, include_as) = include_layout(&root, &[root.join("op_kernel/arch35/b.h")]);
        assert_eq!(
            include_as,
            [("inc".to_string(), "../../common/inc/op_kernel".to_string())]
        );
    }

    /// One op, two kernel files defining its entry (one for arch35), its tiling registered apart
    /// from the OpDef both at the top and in `arch35/`, and a header found two folders up.
    #[test]
    fn one_op_per_registration_with_its_files_and_include_folders() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "");
        write(
            repo,
            "common/inc/util/helper.h",
            "#include \"util/more.h\"\n",
        );
        write(repo, "common/inc/util/more.h", "\n");
        let root = repo.join("math/norm_x");
        write(&root, "CMakeLists.txt", "");
        write(
            &root,
            "op_host/norm_x_def.cpp",
            "#include \"register/op_def_registry.h\"\nnamespace ops {\nclass NormX : public OpDef {\npublic:\n explicit NormX(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_FLOAT});\n  this->Input(\"gamma\").DataType({ge::DT_FLOAT});\n  this->Output(\"y\").DataType({ge::DT_FLOAT});\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(NormX);\n}\n",
        );
        write(
            &root,
            "op_host/norm_x_tiling.cpp",
            "#include \"util/helper.h\"\nnamespace optiling { IMPL_OP_OPTILING(NormX).Tiling(F); }\n",
        );
        write(
            &root,
            "op_host/arch35/norm_x_tiling_arch35.cpp",
            "namespace optiling { IMPL_OP_OPTILING(NormX).Tiling(G); }\n",
        );
        write(
            &root,
            "op_host/norm_x_infershape.cpp",
            "IMPL_OP_INFERSHAPE(NormX).InferShape(I);\n",
        );
        let entry = "extern \"C\" __global__ __aicore__ void norm_x(GM_ADDR x, GM_ADDR gamma, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n";
        write(&root, "op_kernel/norm_x.cpp", entry);
        write(&root, "op_kernel/norm_x_apt.cpp", entry);
        let ops = discover(&root).unwrap().unwrap();
        assert_eq!(ops.len(), 1, "{ops:?}");
        let op = &ops[0];
        assert_eq!(op.name, "norm_x");
        assert_eq!(op.op_type.as_deref(), Some("NormX"));
        assert_eq!(op.kernel, ["op_kernel/norm_x.cpp"]);
        assert_eq!(
            op.host,
            [
                "op_host/norm_x_def.cpp",
                "op_host/norm_x_tiling.cpp",
                "op_host/norm_x_infershape.cpp"
            ]
        );
        assert_eq!(op.include, ["../../common/inc"]);
        assert_eq!(
            op.inputs,
            [
                ("x".to_string(), DType::Float32),
                ("gamma".to_string(), DType::Float32)
            ]
        );
        assert!(
            op.notes.iter().any(|n| n.contains("norm_x_apt.cpp")),
            "{:?}",
            op.notes
        );
    }

    /// Found in the seed-47 new-user run (ops-math's experimental col2_im): the OpDef is `Col2Im`, the
    /// tiling is registered as `Col2ImCustom`. Its file is compiled, with a note naming both, so that
    /// `run` says why no tiling is found rather than leaving the file out.
    #[test]
    fn a_tiling_registered_under_another_op_type_is_compiled_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("col2_im");
        write(
            &root,
            "op_host/col2_im_def.cpp",
            "namespace ops {\nclass Col2Im : public OpDef {\npublic:\n explicit Col2Im(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_FLOAT});\n  this->Output(\"y\").DataType({ge::DT_FLOAT});\n }\n};\nOP_ADD(Col2Im);\n}\n",
        );
        write(
            &root,
            "op_host/col2_im_tiling.cpp",
            "namespace optiling { IMPL_OP_OPTILING(Col2ImCustom).Tiling(F); }\n",
        );
        write(
            &root,
            "op_kernel/col2_im.cpp",
            "extern \"C\" __global__ __aicore__ void col2_im(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
        );
        let ops = discover(&root).unwrap().unwrap();
        let op = &ops[0];
        assert_eq!(
            op.host,
            ["op_host/col2_im_def.cpp", "op_host/col2_im_tiling.cpp"]
        );
        assert!(
            op.notes
                .iter()
                .any(|n| n.contains("`Col2ImCustom`") && n.contains("the OpDef is `Col2Im`")),
            "{:?}",
            op.notes
        );
    }

    /// Found in the new-user run (ops-nn modulate, embedding_dense_grad_v2): the tiling file includes
    /// `x_regbase_tiling.h`, whose class it names, and the link missed the vtable that
    /// `x_regbase_tiling.cpp` defines. That file is compiled too; one that registers anything is not.
    #[test]
    fn a_host_source_defining_an_included_header_is_compiled_too() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("op");
        write(&root, "CMakeLists.txt", "");
        write(
            &root,
            "op_host/mod_x_def.cpp",
            "namespace ops {\nclass ModX : public OpDef {\npublic:\n explicit ModX(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_FLOAT});\n  this->Output(\"y\").DataType({ge::DT_FLOAT});\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(ModX);\n}\n",
        );
        write(
            &root,
            "op_host/mod_x_tiling.cpp",
            "#include \"mod_x_regbase_tiling.h\"\n#include \"mod_x_other.h\"\nIMPL_OP_OPTILING(ModX).Tiling(F);\n",
        );
        write(
            &root,
            "op_host/mod_x_regbase_tiling.h",
            "class R { virtual void f(); };\n",
        );
        write(
            &root,
            "op_host/mod_x_regbase_tiling.cpp",
            "#include \"mod_x_helper.h\"\nvoid R::f() {}\n",
        );
        write(&root, "op_host/mod_x_helper.h", "int h();\n");
        write(&root, "op_host/mod_x_helper.cpp", "int h() { return 1; }\n");
        write(&root, "op_host/mod_x_other.h", "\n");
        write(
            &root,
            "op_host/mod_x_other.cpp",
            "IMPL_OP_OPTILING(Other).Tiling(G);\n",
        );
        write(
            &root,
            "op_kernel/mod_x.cpp",
            "extern \"C\" __global__ __aicore__ void mod_x(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
        );
        let ops = discover(&root).unwrap().unwrap();
        assert_eq!(
            ops[0].host,
            [
                "op_host/mod_x_def.cpp",
                "op_host/mod_x_tiling.cpp",
                "op_host/mod_x_regbase_tiling.cpp",
                "op_host/mod_x_helper.cpp"
            ]
        );
    }

    /// Found in the new-user run (ops-nn quantized_batch_norm): the tiling function dispatches through
    /// the tiling-template registry, and the template registers itself in its own source
    /// (`REGISTER_TILING_TEMPLATE("Qbn", ...)` in `qbn_welford_tiling.cpp`); init listed only the OpDef
    /// and IMPL_OP_OPTILING files, so the tiling found no template ("Get op tiling func failed"). The
    /// registering file is compiled too (this architecture's, not an arch35 one; not another op's).
    #[test]
    fn a_source_registering_a_tiling_template_is_compiled_too() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("qbn");
        write(
            &root,
            "op_host/qbn_def.cpp",
            "namespace ops {\nclass Qbn : public OpDef {\npublic:\n explicit Qbn(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_FLOAT});\n  this->Output(\"y\").DataType({ge::DT_FLOAT});\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(Qbn);\n}\n",
        );
        write(
            &root,
            "op_host/qbn_tiling.cpp",
            "IMPL_OP_OPTILING(Qbn).Tiling(F);\n",
        );
        write(
            &root,
            "op_host/qbn_welford_tiling.cpp",
            "REGISTER_TILING_TEMPLATE(\"Qbn\", QbnWelford, 2000);\n",
        );
        write(
            &root,
            "op_host/arch35/qbn_regbase_tiling.cpp",
            "REGISTER_OPS_TILING_TEMPLATE(Qbn, QbnRegbase, 1000);\n",
        );
        write(
            &root,
            "op_host/other_tiling.cpp",
            "REGISTER_TILING_TEMPLATE(\"QbnGrad\", Other, 1);\n",
        );
        write(
            &root,
            "op_kernel/qbn.cpp",
            "extern \"C\" __global__ __aicore__ void qbn(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
        );
        let ops = discover(&root).unwrap().unwrap();
        assert_eq!(
            ops[0].host,
            [
                "op_host/qbn_def.cpp",
                "op_host/qbn_tiling.cpp",
                "op_host/qbn_welford_tiling.cpp"
            ]
        );
        assert!(
            ops[0]
                .notes
                .iter()
                .any(|n| n.contains("qbn_welford_tiling.cpp compiled too")),
            "{:?}",
            ops[0].notes
        );
        // Only an arch35 template: taken, as a registration only another architecture has is.
        std::fs::remove_file(root.join("op_host/qbn_welford_tiling.cpp")).unwrap();
        let ops = discover(&root).unwrap().unwrap();
        assert_eq!(
            ops[0].host,
            [
                "op_host/qbn_def.cpp",
                "op_host/qbn_tiling.cpp",
                "op_host/arch35/qbn_regbase_tiling.cpp"
            ]
        );
    }

    /// Found in the new-user run (ops-nn foreach_sqrt, foreach_mul_scalar, foreach_addcmul_list): the
    /// op's folder registers no tiling; `../foreach_utils/op_host/` does, for many ops, and is taken
    /// (this architecture's file, not an arch35 one, and never another op's OpDef file).
    #[test]
    fn a_tiling_registered_in_a_sibling_folder_is_compiled_too() {
        let dir = tempfile::tempdir().unwrap();
        let fam = dir.path().join("fam");
        let root = fam.join("fe_sqrt");
        write(
            &root,
            "op_host/fe_sqrt_def.cpp",
            "namespace ops {\nclass FeSqrt : public OpDef {\npublic:\n explicit FeSqrt(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_FLOAT});\n  this->Output(\"y\").DataType({ge::DT_FLOAT});\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(FeSqrt);\n}\n",
        );
        write(
            &root,
            "op_kernel/fe_sqrt.cpp",
            "extern \"C\" __global__ __aicore__ void fe_sqrt(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {}\n",
        );
        write(
            &fam,
            "fe_utils/op_host/arch35/fe_regbase.cpp",
            "IMPL_OP_OPTILING(FeSqrt).Tiling(R);\n",
        );
        write(
            &fam,
            "fe_utils/op_host/fe_tiling_func.cpp",
            "IMPL_OP_OPTILING(FeAbs).Tiling(A);\nIMPL_OP_OPTILING(FeSqrt).Tiling(S);\n",
        );
        write(
            &fam,
            "fe_other/op_host/fe_other_def.cpp",
            "class FeOther : public OpDef {};\nIMPL_OP_OPTILING(FeSqrt).Tiling(X);\n",
        );
        // whether init's notes say no host file registers the op's tiling
        let says_none =
            |notes: &[String]| notes.iter().any(|n| n.contains("no host file registers"));
        let ops = discover(&root).unwrap().unwrap();
        assert_eq!(
            ops[0].host,
            [
                "op_host/fe_sqrt_def.cpp",
                "../fe_utils/op_host/fe_tiling_func.cpp"
            ]
        );
        assert!(!says_none(&ops[0].notes), "{:?}", ops[0].notes);
        // An OpDef that sets its tiling function itself takes none from a sibling, nor says it has none.
        let def = std::fs::read_to_string(root.join("op_host/fe_sqrt_def.cpp")).unwrap();
        write(
            &root,
            "op_host/fe_sqrt_def.cpp",
            &def.replace(
                "this->AICore().AddConfig",
                "this->AICore().SetTiling(optiling::TilingFunc);\n  this->AICore().AddConfig",
            ),
        );
        let ops = discover(&root).unwrap().unwrap();
        assert_eq!(ops[0].host, ["op_host/fe_sqrt_def.cpp"]);
        assert!(!says_none(&ops[0].notes), "{:?}", ops[0].notes);
        write(&root, "op_host/fe_sqrt_def.cpp", &def);
        // None anywhere: said so, nothing guessed.
        std::fs::remove_file(fam.join("fe_utils/op_host/fe_tiling_func.cpp")).unwrap();
        std::fs::remove_file(fam.join("fe_utils/op_host/arch35/fe_regbase.cpp")).unwrap();
        let ops = discover(&root).unwrap().unwrap();
        assert_eq!(ops[0].host, ["op_host/fe_sqrt_def.cpp"]);
        assert!(says_none(&ops[0].notes), "{:?}", ops[0].notes);
    }

    /// Found in the new-user run (ops-nn add_layer_norm_grad, kl_div_loss_grad,
    /// fake_quant_affine_cachemask): `op_host/tiling_util.h` is one the twin holds, and its version
    /// reads the repository's own too (`#include_next`), so the repository's folder must be on the
    /// path; a bare `tiling_util.h` is found in the shared `common/inc/op_host/`.
    #[test]
    fn a_header_the_twin_extends_and_a_bare_name_in_a_shared_op_host_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "");
        write(repo, "common/inc/op_host/tiling_util.h", "\n");
        let root = repo.join("norm/op_a");
        write(
            &root,
            "op_host/a.cpp",
            "#include \"op_host/tiling_util.h\"\n",
        );
        write(&root, "op_host/b.cpp", "#include \"tiling_util.h\"\n");
        let (include, _) = include_layout(&root, &[root.join("op_host/a.cpp")]);
        assert_eq!(include, ["../../common/inc"]);
        let (include, _) = include_layout(&root, &[root.join("op_host/b.cpp")]);
        assert_eq!(include, ["../../common/inc/op_host"]);
        // ops-transformer's nsa_compress: a bare `util.h` in the shared `common/include/kernel/`.
        write(repo, "common/include/kernel/util.h", "\n");
        write(&root, "op_kernel/k.h", "#include \"util.h\"\n");
        let (include, _) = include_layout(&root, &[root.join("op_kernel/k.h")]);
        assert_eq!(include, ["../../common/include/kernel"]);
        // A header the twin holds and does not extend is not looked for.
        write(repo, "common/inc/register/op_def_registry.h", "\n");
        write(
            &root,
            "op_host/c.cpp",
            "#include \"register/op_def_registry.h\"\n",
        );
        let (include, _) = include_layout(&root, &[root.join("op_host/c.cpp")]);
        assert!(include.is_empty(), "{include:?}");
    }

    /// Found in the new-user run (ops-nn add_rms_norm): the 910B tiling calls a function that the
    /// arch35 source defines; the link names it, and the source that defines it (not one that calls
    /// it or registers anything) is found.
    #[test]
    fn a_missing_symbol_is_found_where_it_is_defined() {
        let err = "x.cpp:(.text+0x1): undefined reference to `optiling::ns::TilingRegbase(gert::TilingContext*)'\n\
                   y.cpp:(.text+0x2): undefined reference to `vtable for optiling::ModTiling'\n";
        assert_eq!(
            missing_symbols(err),
            ["TilingRegbase", "ns", "ModTiling", "optiling"]
        );
        assert_eq!(
            undefined_references(&format!("{err}{err}")),
            [
                "optiling::ns::TilingRegbase(gert::TilingContext*)",
                "vtable for optiling::ModTiling"
            ]
        );
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "op_host/a_tiling.cpp",
            "IMPL_OP_OPTILING(A).Tiling(F);\nint g() { return TilingRegbase(nullptr); }\n",
        );
        write(
            root,
            "op_host/arch35/a_tiling_arch35.cpp",
            "int TilingRegbase(void *c)\n{\n    return 0;\n}\n",
        );
        write(
            root,
            "op_host/arch35/other.cpp",
            "int h() {\n    return TilingRegbase(nullptr);\n}\n",
        );
        write(root, "op_host/mod.cpp", "void ModTiling::f() {}\n");
        let found = sources_defining(
            root,
            "A",
            &["op_host/a_tiling.cpp".to_string()],
            &missing_symbols(err),
        );
        assert_eq!(
            found,
            ["op_host/arch35/a_tiling_arch35.cpp", "op_host/mod.cpp"]
        );
    }

    /// A shared helper declared in a repository header and defined in the `.cpp` of the same name
    /// elsewhere in the repository (ops-cv: `common/inc/op_host/tiling_util.h` and
    /// `common/src/op_host/tiling_util.cpp`) is compiled with the op; a same-named file in another
    /// operator's `op_host/`, or under `tests/`, is not.
    #[test]
    fn a_link_miss_is_found_in_the_source_named_as_an_included_header() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "\n");
        write(repo, "image/CMakeLists.txt", "\n");
        let root = repo.join("image/op_a");
        write(
            &root,
            "op_host/a_tiling.cpp",
            "#include \"op_host/tiling_util.h\"\nIMPL_OP_OPTILING(A);\nbool x = Ops::Cv::IsRegbase(c);\n",
        );
        write(&root, "op_kernel/a.cpp", "\n");
        write(
            repo,
            "common/inc/op_host/tiling_util.h",
            "bool IsRegbase(const void *c);\n",
        );
        write(
            repo,
            "common/src/op_host/tiling_util.cpp",
            "bool IsRegbase(const void *c)\n{\n    return false;\n}\n",
        );
        write(
            repo,
            "tests/ut/tiling_util.cpp",
            "bool IsRegbase(const void *c) { return true; }\n",
        );
        write(
            repo,
            "image/op_b/op_host/tiling_util.cpp",
            "bool IsRegbase(const void *c) { return true; }\n",
        );
        write(repo, "image/op_b/op_kernel/b.cpp", "\n");
        let err =
            "a_tiling.cpp:(.text+0x1): undefined reference to `Ops::Cv::IsRegbase(void const*)'";
        let found = sources_defining(
            &root,
            "A",
            &["op_host/a_tiling.cpp".to_string()],
            &missing_symbols(err),
        );
        assert_eq!(found, ["../../common/src/op_host/tiling_util.cpp"]);
    }

    /// ops-nn's avg_pool3_d_grad includes `../../avg_pool3_d/op_host/avg_pool_cube_tiling.h` from a sibling
    /// operator; the class's vtable and members are defined in the `.cpp` beside that header, in the
    /// sibling's own host folder, which was never searched (the link was stubbed, and the tiling stopped
    /// at the stub). A source beside a header included by its path is taken; one that registers an op
    /// is not.
    #[test]
    fn a_link_miss_is_found_beside_a_header_a_sibling_operator_holds() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        write(repo, "CMakeLists.txt", "\n");
        let root = repo.join("pooling/grad");
        write(
            &root,
            "op_host/grad_tiling.cpp",
            "#include \"../../fwd/op_host/cube_info.h\"\nIMPL_OP_OPTILING(Grad);\n",
        );
        write(&root, "op_kernel/grad.cpp", "\n");
        write(
            repo,
            "pooling/fwd/op_host/cube_info.h",
            "class GradInfo { public: virtual bool Parse(); };\n",
        );
        write(
            repo,
            "pooling/fwd/op_host/cube_info.cpp",
            "#include \"cube_info.h\"\nbool GradInfo::Parse()\n{\n    return true;\n}\n",
        );
        write(repo, "pooling/fwd/op_kernel/fwd.cpp", "\n");
        let err =
            "grad_tiling.cpp:(.text+0x1): undefined reference to `vtable for optiling::GradInfo'";
        let chosen = ["op_host/grad_tiling.cpp".to_string()];
        let found = sources_defining(&root, "Grad", &chosen, &missing_symbols(err));
        assert_eq!(found, ["../fwd/op_host/cube_info.cpp"]);
        // the same source registering this op is never taken
        write(
            repo,
            "pooling/fwd/op_host/cube_info.cpp",
            "#include \"cube_info.h\"\nbool GradInfo::Parse()\n{\n    return true;\n}\nIMPL_OP_OPTILING(Grad);\n",
        );
        assert!(sources_defining(&root, "Grad", &chosen, &missing_symbols(err)).is_empty());
        // one registering another op is taken only where no other source defines the symbol
        // (ops-transformer's mla_prolog_v2 and mla_prolog's tiling-register file)
        write(
            repo,
            "pooling/fwd/op_host/cube_info.cpp",
            "#include \"cube_info.h\"\nbool GradInfo::Parse()\n{\n    return true;\n}\nIMPL_OP_OPTILING(Fwd);\n",
        );
        let found = sources_defining(&root, "Grad", &chosen, &missing_symbols(err));
        assert_eq!(found, ["../fwd/op_host/cube_info.cpp"]);
        write(
            repo,
            "pooling/fwd/op_host/cube_info_impl.cpp",
            "#include \"cube_info.h\"\nbool GradInfo::Parse()\n{\n    return true;\n}\n",
        );
        let found = sources_defining(&root, "Grad", &chosen, &missing_symbols(err));
        assert_eq!(found, ["../fwd/op_host/cube_info_impl.cpp"]);
        std::fs::remove_file(repo.join("pooling/fwd/op_host/cube_info_impl.cpp")).unwrap();
        // the header named by its path from the repository's root, from a subfolder (ops-math's
        // circular_pad_grad: `#include "conversion/circular_pad/op_host/circular_pad_common_tiling.h"`
        // in op_host/arch22/)
        write(
            repo,
            "pooling/fwd/op_host/cube_info.cpp",
            "#include \"cube_info.h\"\nbool GradInfo::Parse()\n{\n    return true;\n}\n",
        );
        write(
            &root,
            "op_host/arch22/grad_tiling.cpp",
            "#include \"pooling/fwd/op_host/cube_info.h\"\nIMPL_OP_OPTILING(Grad);\n",
        );
        let chosen = ["op_host/arch22/grad_tiling.cpp".to_string()];
        let found = sources_defining(&root, "Grad", &chosen, &missing_symbols(err));
        assert_eq!(found, ["../fwd/op_host/cube_info.cpp"]);
    }
}
