//! The kernel's view of tiling data that only host headers define. In the older CANN layout a host
//! header defines the struct with `BEGIN_TILING_DATA_DEF(S)` and registers it for the op type with
//! `REGISTER_TILING_DATA_CLASS(OpType, S)`, and the kernel names `S` (or just calls `GET_TILING_DATA`)
//! without including any header that defines it: CANN's build generates the kernel's struct from the
//! host's registration. This does the same from the source text: the `BEGIN_TILING_DATA_DEF` blocks
//! of the header that defines `S`, the `constexpr` constants they size arrays with, and the
//! registration, as a header the kernel build includes first.
//!
//! Owns only that text extraction; knows nothing of builds, caches or runs (`twin::build_side` decides
//! when to use it).

use crate::manifest::OpSpec;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The name the generated header has among the kernel build's files.
pub const GENERATED: &str = "twin_generated/host_tiling_data.h";

/// The generated header, when the kernel reads tiling data (`GET_TILING_DATA`), a host file the op
/// reaches registers its struct for the op type, and no kernel file defines that struct.
pub fn kernel_tiling_header(
    root: &Path,
    include: &[PathBuf],
    mounts: &[(PathBuf, PathBuf)],
    op: &OpSpec,
    kernel_files: &BTreeMap<String, String>,
) -> Option<String> {
    // What the kernel units reach, read as the build compiles them (`kernel_files` holds the units'
    // folders, with a trial's rewritten texts): a tiling header that sits among the kernel files but
    // that no kernel file includes (ops-math's is_neg_inf keeps it in op_kernel/ for the host) does
    // not give the kernel its struct.
    // Only what the kernel build compiles: a header included in an untaken `#if` branch is not reached
    // (ops-nn's chamfer_distance_grad includes its arch35 struct under `__CCE_AICORE__ == 310`), and
    // a definition for the old CPU unit tests (`#ifdef __CCE_KT_TEST__`) is none.
    let kernel = kernel_compiled(root, include, mounts, &op.kernel, kernel_files);
    let mut uses_tiling = false;
    let mut kernel_text = String::new();
    for t in kernel.iter().map(|(_, t)| t.as_str()) {
        // Every form reads the host's struct: GET_TILING_DATA, and the forms naming the struct
        // (ops-nn norm/quantized_batch_norm: GET_TILING_DATA_WITH_STRUCT(<its Welford struct>, ...)).
        uses_tiling |= [
            "GET_TILING_DATA(",
            "GET_TILING_DATA_WITH_STRUCT(",
            "GET_TILING_DATA_PTR_WITH_STRUCT(",
            "GET_TILING_DATA_MEMBER(",
        ]
        .iter()
        .any(|m| t.contains(m));
        kernel_text.push_str(t);
        kernel_text.push('\n');
    }
    if !uses_tiling {
        return None;
    }
    let host = reach(root, include, &op.host);
    let registered = host
        .iter()
        .find_map(|(_, t)| registration(t, &op.op_type))?;
    let (path, text) = host.iter().find(|(_, t)| defines_struct(t, &registered))?;
    if defines_struct(&kernel_text, &registered)
        || kernel_text.contains(&format!("struct {registered} "))
        || kernel_text.contains(&format!("struct {registered}{{"))
    {
        return None;
    }
    let own = blocks(text);
    if own.is_empty() {
        return None;
    }
    // Struct fields whose type another host header defines (ops-transformer's moe ops nest a struct
    // of their `*_tiling_base.h`): those blocks come first, dependencies before their users.
    let mut nested: Vec<(&str, &str)> = vec![];
    for b in &own {
        nest(b, &host, &own, &mut nested);
    }
    // The structs registered for the op's tiling keys (`REGISTER_TILING_DATA_CLASS(Op_100001000, S)`,
    // ops-nn's dequant_swiglu_quant) that the kernel names and does not define: CANN's generated
    // header holds every struct registered for the op, so the kernel's GET_TILING_DATA_WITH_STRUCT(S,
    // ...) finds them; here each comes with the structs it nests, as a field of the default would.
    let keyed: Vec<String> = host
        .iter()
        .flat_map(|(_, t)| keyed_registrations(t, &op.op_type))
        .filter(|k| {
            *k != registered
                && identifiers(&kernel_text).any(|w| w == k)
                && !defines_struct(&kernel_text, k)
        })
        .collect();
    for k in &keyed {
        let field = format!("TILING_DATA_FIELD_DEF_STRUCT({k}, keyed)");
        nest(&field, &host, &own, &mut nested);
    }
    let blocks: Vec<&str> = nested.iter().map(|(b, _)| *b).chain(own).collect();
    let used: Vec<&str> = blocks.iter().flat_map(|b| identifiers(b)).collect();
    // The constants the blocks size arrays with: from the defining header first, then its nested
    // structs' headers, then any host header the op reaches (ops-nn's max_pool3d_with_argmax_v2 sizes
    // a field with `DHW_DIMS`, a `const int32_t` of the shared pool_3d_tiling_common.h). One per name.
    // Beyond the `constexpr` lines of the struct's own headers, only a constant set to an integer
    // literal is taken: a `const` local of some function elsewhere must not reach the kernel.
    let mut constants: Vec<&str> = vec![];
    let mut named: Vec<&str> = vec![];
    let own_headers = 1 + nested.len();
    // A header the kernel reaches itself defines its constants there already.
    let texts = std::iter::once(text.as_str())
        .chain(nested.iter().map(|(_, t)| *t))
        .chain(
            host.iter()
                .filter(|(p, _)| !kernel.iter().any(|(k, _)| k == p))
                .map(|(_, t)| t.as_str()),
        );
    for (i, t) in texts.enumerate() {
        for l in t.lines().map(str::trim) {
            let Some(name) = constant_name(l).filter(|n| used.contains(n)) else {
                continue;
            };
            let taken = if i < own_headers {
                l.starts_with("constexpr ") && l.ends_with(';')
            } else {
                ["constexpr ", "const ", "static constexpr ", "static const "]
                    .iter()
                    .any(|k| l.starts_with(k))
                    && literal_initialiser(l)
            };
            if taken && !named.contains(&name) {
                named.push(name);
                constants.push(l);
            }
        }
    }
    let shown = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    let mut out = format!(
        "// Generated by cargo-ascend-tune: the tiling data `{registered}` that {shown} defines and \
         registers for {op_type} on the host, as CANN's build hands it to the kernel.\n#pragma once\n\
         #include <cstdint>\n#include \"register/tilingdata_base.h\"\nnamespace optiling {{\n",
        op_type = op.op_type
    );
    for c in constants {
        out.push_str(c);
        out.push('\n');
    }
    for b in &blocks {
        out.push_str(b);
        out.push('\n');
    }
    out.push_str(&format!(
        "REGISTER_TILING_DATA_CLASS({}, {registered})\n}} // namespace optiling\n",
        op.op_type
    ));
    Some(out)
}

/// Whether the kernel build can include the header `rel` (relative to `root`): every `#include "..."`
/// it reaches resolves beside the including file, or among the twin's kernel headers (`kernel_include`).
/// A tiling header that includes the host registries or `util/math_util.h` cannot: the kernel then
/// gets the generated header instead.
pub fn kernel_readable(root: &Path, kernel_include: &Path, rel: &str) -> bool {
    let mut seen: Vec<PathBuf> = vec![];
    let mut todo = vec![root.join(rel)];
    while let Some(p) = todo.pop() {
        let Ok(canon) = std::fs::canonicalize(&p) else {
            return false;
        };
        if seen.contains(&canon) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&canon) else {
            return false;
        };
        let dir = canon.parent().map(Path::to_path_buf).unwrap_or_default();
        for inc in quoted_includes(&text) {
            let beside = dir.join(inc);
            if beside.is_file() {
                todo.push(beside);
            } else if !kernel_include.join(inc).is_file() {
                return false;
            }
        }
        seen.push(canon);
        if seen.len() >= 400 {
            return false;
        }
    }
    true
}

/// The kernel `units` and the headers they reach, as the kernel build compiles them: `files` (paths
/// relative to `root`: a trial's rewritten texts) in place of the files on disk, the branches the
/// build leaves out blanked and their includes not followed (ops-nn's chamfer_distance_grad includes
/// its arch35 struct only under `__CCE_AICORE__ == 310`, and defines one for the old CPU unit tests
/// under `#ifdef __CCE_KT_TEST__`: neither reaches the twin's build).
pub fn kernel_compiled(
    root: &Path,
    include: &[PathBuf],
    mounts: &[(PathBuf, PathBuf)],
    units: &[String],
    files: &BTreeMap<String, String>,
) -> Vec<(PathBuf, String)> {
    reach_with(
        root,
        include,
        mounts,
        units,
        files,
        crate::project::preproc::compiled_text,
    )
}

/// The files `units` (relative to `root`) and the headers they include with `#include "..."`,
/// transitively, resolved against the including file's folder, then the include folders (`-I`);
/// what cannot be read is left out.
fn reach(root: &Path, include: &[PathBuf], units: &[String]) -> Vec<(PathBuf, String)> {
    reach_with(root, include, &[], units, &BTreeMap::new(), str::to_string)
}

/// `reach`, with the texts of `built` (paths relative to `root`) in place of the files on disk, each
/// text first passed through `view` (the branches a build compiles), whose includes alone are followed.
/// `mounts` (the manifest's `include-as`: a path inside the project, the folder the build shows there)
/// resolve `#include "../<name>/x.h"` as the build does.
fn reach_with(
    root: &Path,
    include: &[PathBuf],
    mounts: &[(PathBuf, PathBuf)],
    units: &[String],
    built: &BTreeMap<String, String>,
    view: impl Fn(&str) -> String,
) -> Vec<(PathBuf, String)> {
    let croot = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    // The build puts the folder of every file of the side and the root on the include path
    // (`twin::build_side`); each unit's folder and those above it, up to the root, stand for them here:
    // ops-nn's apply_adam_w_quant includes `apply_adam_w_quant_tiling_def.h` of `op_host/` from
    // `op_host/arch22/`.
    let mut unit_dirs: Vec<PathBuf> = vec![];
    for u in units {
        let mut d = Path::new(u).parent();
        while let Some(rel) = d.filter(|r| !r.as_os_str().is_empty()) {
            if !unit_dirs.contains(&root.join(rel)) {
                unit_dirs.push(root.join(rel));
            }
            d = rel.parent();
        }
    }
    unit_dirs.push(root.to_path_buf());
    let mut out: Vec<(PathBuf, String)> = vec![];
    let mut todo: Vec<PathBuf> = units.iter().map(|u| root.join(u)).collect();
    while let Some(p) = todo.pop() {
        let Ok(canon) = std::fs::canonicalize(&p) else {
            continue;
        };
        if out.iter().any(|(q, _)| *q == canon) || out.len() >= 400 {
            continue;
        }
        let rel = canon
            .strip_prefix(&croot)
            .ok()
            .map(|r| r.to_string_lossy().replace('\\', "/"));
        let text = match rel.and_then(|r| built.get(&r)) {
            Some(t) => view(t),
            None => match std::fs::read_to_string(&canon) {
                Ok(t) => view(&t),
                Err(_) => continue,
            },
        };
        let dir = canon.parent().map(Path::to_path_buf).unwrap_or_default();
        for inc in quoted_includes(&text) {
            let mounted = mounts.iter().find_map(|(at, shown)| {
                let rest = crate::fsx::lexical(&dir.join(inc))
                    .strip_prefix(croot.join(at))
                    .ok()?
                    .to_path_buf();
                Some(shown.join(rest)).filter(|p| p.is_file())
            });
            // as the build's mirror has it: beside the file (a mount included), then -I
            let found = Some(dir.join(inc))
                .filter(|p| p.is_file())
                .or(mounted)
                .or_else(|| {
                    include
                        .iter()
                        .chain(&unit_dirs)
                        .map(|d| d.join(inc))
                        .find(|p| p.is_file())
                });
            todo.extend(found);
        }
        out.push((canon, text));
    }
    out
}

fn quoted_includes(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim_start().strip_prefix('#')?.trim_start();
            let rest = l.strip_prefix("include")?.trim_start().strip_prefix('"')?;
            rest.split('"').next()
        })
        .collect()
}

/// `S` of `REGISTER_TILING_DATA_CLASS(op_type, S)` in `text`.
fn registration(text: &str, op_type: &str) -> Option<String> {
    text.match_indices("REGISTER_TILING_DATA_CLASS(")
        .find_map(|(at, m)| {
            let args = text[at + m.len()..].split(')').next()?;
            let (op, cls) = args.split_once(',')?;
            (op.trim() == op_type).then(|| cls.trim().to_string())
        })
}

/// `S` of every `REGISTER_TILING_DATA_CLASS(<op_type>_<tiling key>, S)` in `text`.
fn keyed_registrations(text: &str, op_type: &str) -> Vec<String> {
    text.match_indices("REGISTER_TILING_DATA_CLASS(")
        .filter_map(|(at, m)| {
            let args = text[at + m.len()..].split(')').next()?;
            let (op, cls) = args.split_once(',')?;
            let key = op.trim().strip_prefix(op_type)?.strip_prefix('_')?;
            (!key.is_empty() && key.chars().all(|c| c.is_ascii_digit()))
                .then(|| cls.trim().to_string())
        })
        .collect()
}

/// The constants the tiling header `header` declares (`constexpr size_t MAX_DIM_NUM = 8;`, in
/// `namespace optiling` as host headers hold them) that a kernel file (`op_kernel/`) declares at its own
/// scope too, and the tiling structs the header defines. The twin's kernel side sees the structs
/// through `using namespace optiling` (on the device they are global); with such a clash that makes
/// the kernel's own name ambiguous (ops-math's strided_slice_assign_v2: `MAX_DIM_NUM` in both), so
/// the build names the structs one by one instead. No clash: None.
pub fn optiling_clash(header: &str, files: &BTreeMap<String, String>) -> Option<Vec<String>> {
    let text = files.get(header)?;
    let declared = |t: &str| -> std::collections::BTreeSet<String> {
        t.lines()
            .map(|l| l.split("//").next().unwrap_or(l).trim())
            .filter(|l| {
                (l.starts_with("constexpr ")
                    || l.starts_with("const ")
                    || l.starts_with("static const"))
                    && literal_initialiser(l)
            })
            .filter_map(constant_name)
            .map(str::to_string)
            .collect()
    };
    let ours = declared(text);
    let clash = files
        .iter()
        .filter(|(rel, _)| rel.as_str() != header && rel.contains("op_kernel/"))
        .any(|(_, t)| declared(t).intersection(&ours).next().is_some());
    if !clash {
        return None;
    }
    let structs: Vec<String> = text
        .match_indices("BEGIN_TILING_DATA_DEF(")
        .filter_map(|(at, m)| Some(text[at + m.len()..].split(')').next()?.trim().to_string()))
        .filter(|n| !n.is_empty())
        .collect();
    Some(structs)
}

fn defines_struct(text: &str, name: &str) -> bool {
    text.match_indices("BEGIN_TILING_DATA_DEF(").any(|(at, m)| {
        text[at + m.len()..]
            .split(')')
            .next()
            .is_some_and(|n| n.trim() == name)
    })
}

/// Every `BEGIN_TILING_DATA_DEF(...) ... END_TILING_DATA_DEF;` of `text`, in order.
fn blocks(text: &str) -> Vec<&str> {
    let mut out = vec![];
    let mut from = 0;
    while let Some(a) = text[from..].find("BEGIN_TILING_DATA_DEF(") {
        let start = from + a;
        let Some(e) = text[start..].find("END_TILING_DATA_DEF") else {
            break;
        };
        let mut end = start + e + "END_TILING_DATA_DEF".len();
        if text[end..].starts_with(';') {
            end += 1;
        }
        out.push(&text[start..end]);
        from = end;
    }
    out
}

/// The blocks (with the text of the file holding each) that define the struct types `block` nests
/// with `TILING_DATA_FIELD_DEF_STRUCT(T, name)` and that neither `own` nor `out` has yet, found in
/// `host`, each after the ones it nests itself. Types no host file defines (the twin's own
/// `SoftMaxTiling`, `TCubeTiling`, ...) are left to the twin's headers.
fn nest<'a>(
    block: &str,
    host: &'a [(PathBuf, String)],
    own: &[&str],
    out: &mut Vec<(&'a str, &'a str)>,
) {
    for (at, m) in block.match_indices("TILING_DATA_FIELD_DEF_STRUCT(") {
        let Some(ty) = block[at + m.len()..].split(',').next().map(str::trim) else {
            continue;
        };
        let defined = |b: &str| defines_struct(b, ty);
        if own.iter().any(|b| defined(b)) || out.iter().any(|(b, _)| defined(b)) {
            continue;
        }
        let Some((b, t)) = host.iter().find_map(|(_, t)| {
            blocks(t)
                .into_iter()
                .find(|b| defined(b))
                .map(|b| (b, t.as_str()))
        }) else {
            continue;
        };
        if out.len() >= 64 {
            return;
        }
        nest(b, host, own, out);
        if !out.iter().any(|(o, _)| defines_struct(o, ty)) {
            out.push((b, t));
        }
    }
}

fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// Whether `line` is `... NAME = <integer literal>;`.
fn literal_initialiser(line: &str) -> bool {
    line.strip_suffix(';')
        .and_then(|l| l.split_once('='))
        .and_then(|(_, v)| crate::space::binding::parse_integer_literal(v.trim()))
        .is_some()
}

/// `NAME` of `constexpr TYPE NAME = VALUE;`.
fn constant_name(line: &str) -> Option<&str> {
    let lhs = line.split('=').next()?;
    lhs.split_whitespace().last()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_both_the_tiling_header_and_the_kernel_declare_is_a_clash() {
        let mut files = BTreeMap::new();
        files.insert(
            "op_host/t.h".to_string(),
            "namespace optiling {\nconstexpr size_t MAX_DIM_NUM = 8;\nBEGIN_TILING_DATA_DEF(TD)\nTILING_DATA_FIELD_DEF(int64_t, n);\nEND_TILING_DATA_DEF;\n}\n".to_string(),
        );
        files.insert(
            "op_kernel/k.h".to_string(),
            "constexpr uint32_t OTHER = 8;\n".to_string(),
        );
        assert_eq!(optiling_clash("op_host/t.h", &files), None);
        files.insert(
            "op_kernel/k.h".to_string(),
            "constexpr uint32_t MAX_DIM_NUM = 8;\n".to_string(),
        );
        assert_eq!(
            optiling_clash("op_host/t.h", &files),
            Some(vec!["TD".to_string()])
        );
    }

    const HOST: &str = r#"
#include "register/tilingdata_base.h"
#include "some/host_only.h"
namespace optiling {
constexpr uint16_t MAX_T = 8;
constexpr uint16_t UNUSED_HERE = 3;
BEGIN_TILING_DATA_DEF(ListTiling)
TILING_DATA_FIELD_DEF(uint64_t, ubSize);
TILING_DATA_FIELD_DEF_ARR(int64_t, MAX_T, counts);
END_TILING_DATA_DEF;
REGISTER_TILING_DATA_CLASS(OtherOp, ListTiling)
REGISTER_TILING_DATA_CLASS(MyOp, ListTiling)
}
"#;

    #[test]
    fn registration_and_blocks_are_read_from_the_text() {
        assert_eq!(registration(HOST, "MyOp").as_deref(), Some("ListTiling"));
        assert_eq!(registration(HOST, "Absent"), None);
        assert!(defines_struct(HOST, "ListTiling"));
        assert!(!defines_struct(HOST, "List"));
        let b = blocks(HOST);
        assert_eq!(b.len(), 1);
        assert!(b[0].starts_with("BEGIN_TILING_DATA_DEF(ListTiling)"));
        assert!(b[0].ends_with("END_TILING_DATA_DEF;"));
        assert_eq!(
            constant_name("constexpr uint16_t MAX_T = 8;"),
            Some("MAX_T")
        );
        assert_eq!(
            quoted_includes("#include <x>\n  # include \"a/b.h\"\n#include\"c.h\"\n"),
            ["a/b.h", "c.h"]
        );
    }

    fn project(kernel: &str) -> (tempfile::TempDir, OpSpec) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("op");
        std::fs::create_dir_all(root.join("op_host")).unwrap();
        std::fs::create_dir_all(root.join("op_kernel")).unwrap();
        std::fs::create_dir_all(dir.path().join("utils")).unwrap();
        std::fs::write(dir.path().join("utils/tiling_def.h"), HOST).unwrap();
        std::fs::write(
            root.join("op_host/my_tiling.cpp"),
            "#include \"../../utils/tiling_def.h\"\n",
        )
        .unwrap();
        std::fs::write(root.join("op_kernel/my.cpp"), kernel).unwrap();
        let m = crate::manifest::Manifest::load(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/add_custom/ascend.toml"
        )))
        .unwrap();
        let mut op = m.ops[0].clone();
        op.op_type = "MyOp".into();
        op.host = vec!["op_host/my_tiling.cpp".into()];
        op.kernel = vec!["op_kernel/my.cpp".into()];
        (dir, op)
    }

    /// ops-nn's dequant_swiglu_quant registers its default struct in one header and the structs of its
    /// tiling keys in another (`REGISTER_TILING_DATA_CLASS(Op_100001000, BaseTiling)`); its kernel reads
    /// `GET_TILING_DATA_WITH_STRUCT(BaseTiling, ...)` and stopped at "does not name a type".
    #[test]
    fn structs_registered_for_tiling_keys_that_the_kernel_names_come_too() {
        let (dir, op) =
            project("void k(){ GET_TILING_DATA_WITH_STRUCT(KeyedTiling, t, tiling); }\n");
        let root = dir.path().join("op");
        std::fs::write(
            root.join("op_host/keyed.h"),
            "namespace optiling {\nconstexpr uint32_t KEYED_N = 4;\nBEGIN_TILING_DATA_DEF(KeyedTiling)\n\
             TILING_DATA_FIELD_DEF_ARR(uint32_t, KEYED_N, parts);\nEND_TILING_DATA_DEF;\n\
             REGISTER_TILING_DATA_CLASS(MyOp_100001000, KeyedTiling)\n\
             REGISTER_TILING_DATA_CLASS(MyOpOther_1, UnnamedTiling)\n}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("op_host/my_tiling.cpp"),
            "#include \"../../utils/tiling_def.h\"\n#include \"keyed.h\"\n",
        )
        .unwrap();
        let h = kernel_tiling_header(&root, &[], &[], &op, &BTreeMap::new()).unwrap();
        assert!(h.contains("BEGIN_TILING_DATA_DEF(KeyedTiling)"), "{h}");
        assert!(h.contains("constexpr uint32_t KEYED_N = 4;"), "{h}");
        assert!(
            h.contains("BEGIN_TILING_DATA_DEF(ListTiling)"),
            "the default stays: {h}"
        );
        assert_eq!(
            keyed_registrations(
                "REGISTER_TILING_DATA_CLASS(MyOp_12, A)\nREGISTER_TILING_DATA_CLASS(MyOpX_1, B)\nREGISTER_TILING_DATA_CLASS(MyOp, C)",
                "MyOp"
            ),
            ["A"]
        );
    }

    #[test]
    fn a_struct_only_the_host_defines_is_generated_for_the_kernel_with_its_constants() {
        let (dir, op) = project("void k(){ GET_TILING_DATA(t, tiling); }\n");
        let h =
            kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new()).unwrap();
        assert!(h.contains("constexpr uint16_t MAX_T = 8;"), "{h}");
        assert!(!h.contains("UNUSED_HERE"), "{h}");
        assert!(h.contains("TILING_DATA_FIELD_DEF_ARR(int64_t, MAX_T, counts);"));
        assert!(h.contains("REGISTER_TILING_DATA_CLASS(MyOp, ListTiling)"));
        assert!(
            !h.contains("OtherOp"),
            "only the op's own registration: {h}"
        );
        assert!(
            !h.contains("host_only"),
            "no host include reaches the kernel: {h}"
        );
    }

    /// ops-nn's chamfer_distance_grad defines the struct itself only for the old CPU unit tests
    /// (`#ifdef __CCE_KT_TEST__`), which the twin's build leaves out: the kernel still gets the host's.
    #[test]
    fn a_struct_the_kernel_defines_only_in_an_untaken_branch_is_generated() {
        let (dir, op) = project(
            "#ifdef __CCE_KT_TEST__\nstruct ListTiling {\n  uint64_t ubSize;\n};\n#endif\n\
             void k(){ GET_TILING_DATA(t, tiling); }\n",
        );
        let h = kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new());
        assert!(
            h.is_some_and(|h| h.contains("REGISTER_TILING_DATA_CLASS(MyOp, ListTiling)")),
            "the untaken definition must not count"
        );
        // Nor does one in a header included only under another generation's `#if`.
        let (dir, op) = project(
            "#if __CCE_AICORE__ == 310\n#include \"arch35/own.h\"\n#endif\n\
             void k(){ GET_TILING_DATA(t, tiling); }\n",
        );
        let root = dir.path().join("op");
        std::fs::create_dir_all(root.join("op_kernel/arch35")).unwrap();
        std::fs::write(
            root.join("op_kernel/arch35/own.h"),
            "struct ListTiling {\n  uint64_t ubSize;\n};\n",
        )
        .unwrap();
        assert!(kernel_tiling_header(&root, &[], &[], &op, &BTreeMap::new()).is_some());
        let (dir, op) = project(
            "#ifndef __CCE_KT_TEST__\nstruct ListTiling {\n  uint64_t ubSize;\n};\n#endif\n\
             void k(){ GET_TILING_DATA(t, tiling); }\n",
        );
        assert_eq!(
            kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new()),
            None
        );
    }

    /// ops-nn's apply_adam_w_quant defines its struct in `op_host/` and includes that header bare from
    /// `op_host/arch22/`: the build has every unit's folder and those above it on the include path, so
    /// the struct is found there.
    #[test]
    fn a_header_in_a_folder_above_the_unit_is_found_as_the_build_finds_it() {
        let (dir, mut op) = project("void k(){ GET_TILING_DATA(t, tiling); }\n");
        let root = dir.path().join("op");
        std::fs::write(root.join("op_host/my_tiling_def.h"), HOST).unwrap();
        std::fs::create_dir_all(root.join("op_host/arch22")).unwrap();
        std::fs::write(
            root.join("op_host/arch22/my_tiling.cpp"),
            "#include \"my_tiling_def.h\"\n",
        )
        .unwrap();
        op.host = vec!["op_host/arch22/my_tiling.cpp".into()];
        let h = kernel_tiling_header(&root, &[], &[], &op, &BTreeMap::new()).unwrap();
        assert!(
            h.contains("REGISTER_TILING_DATA_CLASS(MyOp, ListTiling)"),
            "{h}"
        );
    }

    /// ops-cv's upsample_nearest_exact3d defines its kernel struct in a sibling operator's folder that
    /// the build shows beside its sources (`include-as`), and the host's struct of the same name was
    /// generated for it too: "reference to `ListTiling` is ambiguous". Read through the mount, the
    /// kernel's own definition is seen and nothing is generated.
    #[test]
    fn a_struct_the_kernel_defines_behind_an_include_as_mount_is_not_generated() {
        let (dir, op) = project(
            "#include \"../shared/kernel_struct.h\"\nvoid k(){ GET_TILING_DATA_WITH_STRUCT(ListTiling, t, tiling); }\n",
        );
        let root = dir.path().join("op");
        let shown = dir.path().join("sibling/op_kernel");
        std::fs::create_dir_all(&shown).unwrap();
        std::fs::write(
            shown.join("kernel_struct.h"),
            "struct ListTiling { uint64_t ubSize; };\n",
        )
        .unwrap();
        assert!(kernel_tiling_header(&root, &[], &[], &op, &BTreeMap::new()).is_some());
        let mounts = [(PathBuf::from("shared"), root.join("../sibling/op_kernel"))];
        assert_eq!(
            kernel_tiling_header(&root, &[], &mounts, &op, &BTreeMap::new()),
            None
        );
    }

    /// ops-math's is_neg_inf keeps its tiling header in op_kernel/ and includes it only from the
    /// host: the kernel build's files hold the header (every file of op_kernel/), but no kernel file
    /// includes it, so the kernel gets the generated struct. A kernel that does include it (from the
    /// build's texts, a trial's rewrite included) gets none.
    #[test]
    fn a_tiling_header_beside_the_kernel_that_no_kernel_file_includes_is_generated() {
        let (dir, mut op) = project("void k(){ GET_TILING_DATA(t, tiling); }\n");
        let root = dir.path().join("op");
        std::fs::write(root.join("op_kernel/my_tiling_data.h"), HOST).unwrap();
        std::fs::write(
            root.join("op_host/my_tiling.cpp"),
            "#include \"../op_kernel/my_tiling_data.h\"\n",
        )
        .unwrap();
        op.host = vec!["op_host/my_tiling.cpp".into()];
        let mut files = BTreeMap::new();
        files.insert(
            "op_kernel/my.cpp".to_string(),
            "void k(){ GET_TILING_DATA(t, tiling); }\n".to_string(),
        );
        files.insert("op_kernel/my_tiling_data.h".to_string(), HOST.to_string());
        let h = kernel_tiling_header(&root, &[], &[], &op, &files).expect("a generated header");
        assert!(
            h.contains("REGISTER_TILING_DATA_CLASS(MyOp, ListTiling)"),
            "{h}"
        );
        files.insert(
            "op_kernel/my.cpp".to_string(),
            "#include \"my_tiling_data.h\"\nvoid k(){ GET_TILING_DATA(t, tiling); }\n".to_string(),
        );
        assert_eq!(kernel_tiling_header(&root, &[], &[], &op, &files), None);
    }

    /// ops-nn's max_pool3d_with_argmax_v2 sizes a field with `DHW_DIMS`, a `const int32_t` of a shared
    /// header its tiling header includes: the kernel build stopped at "DHW_DIMS was not declared". A
    /// constant set to a literal in any header the host reaches comes along; a `const` local computed
    /// in some function does not, even where its name is a field's.
    #[test]
    fn array_sizes_from_another_host_header_come_along_as_literal_constants() {
        let (dir, op) = project("void k(){ GET_TILING_DATA(t, tiling); }\n");
        let host_dir = dir.path().join("op/op_host");
        std::fs::write(
            host_dir.join("dims.h"),
            "namespace optiling {\nconst int32_t DHW_DIMS = 3;\n\
             inline uint64_t Half(uint64_t total) { const uint64_t ubSize = total / 2; return ubSize; }\n}\n",
        )
        .unwrap();
        let host = HOST
            .replace("#include \"some/host_only.h\"", "#include \"some/host_only.h\"\n#include \"dims.h\"")
            .replace(
                "TILING_DATA_FIELD_DEF_ARR(int64_t, MAX_T, counts);",
                "TILING_DATA_FIELD_DEF_ARR(int64_t, MAX_T, counts);\nTILING_DATA_FIELD_DEF_ARR(int64_t, DHW_DIMS, dhw);",
            );
        std::fs::write(host_dir.join("my_tiling.cpp"), host).unwrap();
        let h =
            kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new()).unwrap();
        assert!(h.contains("const int32_t DHW_DIMS = 3;"), "{h}");
        assert!(h.contains("constexpr uint16_t MAX_T = 8;"), "{h}");
        assert!(!h.contains("total / 2"), "{h}");
    }

    /// ops-transformer's moe_token_permute_with_routing_map_grad nests a struct its other tiling header
    /// defines (`TILING_DATA_FIELD_DEF_STRUCT(Inner, inner)`): the kernel build stopped at `Inner does not
    /// name a type`. That block (and what it nests in turn) comes first; the twin's own structs stay out.
    #[test]
    fn structs_nested_from_another_host_header_come_first() {
        let (dir, op) = project("void k(){ GET_TILING_DATA(t, tiling); }\n");
        let utils = dir.path().join("utils");
        std::fs::write(
            utils.join("base_tiling.h"),
            "namespace optiling {\nconstexpr int64_t N_INNER = 2;\n\
             BEGIN_TILING_DATA_DEF(Leaf)\nTILING_DATA_FIELD_DEF(int64_t, a);\nEND_TILING_DATA_DEF;\n\
             BEGIN_TILING_DATA_DEF(Inner)\nTILING_DATA_FIELD_DEF_STRUCT(Leaf, leaf);\n\
             TILING_DATA_FIELD_DEF_ARR(int64_t, N_INNER, b);\nEND_TILING_DATA_DEF;\n\
             BEGIN_TILING_DATA_DEF(Unused)\nTILING_DATA_FIELD_DEF(int64_t, c);\nEND_TILING_DATA_DEF;\n}\n",
        )
        .unwrap();
        let outer = HOST.replace(
            "TILING_DATA_FIELD_DEF(uint64_t, ubSize);",
            "TILING_DATA_FIELD_DEF(uint64_t, ubSize);\nTILING_DATA_FIELD_DEF_STRUCT(Inner, inner);\n\
             TILING_DATA_FIELD_DEF_STRUCT(SoftMaxTiling, sm);",
        );
        std::fs::write(
            utils.join("tiling_def.h"),
            format!("#include \"base_tiling.h\"\n{outer}"),
        )
        .unwrap();
        let h =
            kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new()).unwrap();
        let at = |s: &str| h.find(s).unwrap_or_else(|| panic!("{s} missing: {h}"));
        assert!(at("BEGIN_TILING_DATA_DEF(Leaf)") < at("BEGIN_TILING_DATA_DEF(Inner)"));
        assert!(at("BEGIN_TILING_DATA_DEF(Inner)") < at("BEGIN_TILING_DATA_DEF(ListTiling)"));
        assert!(at("constexpr int64_t N_INNER = 2;") < at("BEGIN_TILING_DATA_DEF(Inner)"));
        assert!(!h.contains("Unused"), "{h}");
        assert!(!h.contains("BEGIN_TILING_DATA_DEF(SoftMaxTiling)"), "{h}");
    }

    /// ops-nn norm/quantized_batch_norm names its struct in GET_TILING_DATA_WITH_STRUCT and never
    /// writes GET_TILING_DATA: its kernel build stopped at the host header's `util/math_util.h`.
    #[test]
    fn the_forms_naming_the_struct_read_tiling_too() {
        for form in [
            "GET_TILING_DATA_WITH_STRUCT(ListTiling, t, tiling);",
            "GET_TILING_DATA_PTR_WITH_STRUCT(ListTiling, t, tiling);",
            "GET_TILING_DATA_MEMBER(ListTiling, ubSize, t, tiling);",
        ] {
            let (dir, op) = project(&format!("void k(){{ {form} }}\n"));
            let h = kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new());
            assert!(
                h.is_some_and(|h| h.contains("BEGIN_TILING_DATA_DEF(ListTiling)")),
                "{form}"
            );
        }
    }

    #[test]
    fn a_header_is_kernel_readable_only_when_its_includes_resolve_beside_it_or_in_the_kernel_headers()
     {
        let dir = tempfile::tempdir().unwrap();
        let kinc = dir.path().join("kinc");
        std::fs::create_dir_all(kinc.join("register")).unwrap();
        std::fs::write(kinc.join("register/tilingdata_base.h"), "").unwrap();
        let root = dir.path().join("op");
        std::fs::create_dir_all(root.join("op_host")).unwrap();
        std::fs::write(root.join("op_host/consts.h"), "#include <cstdint>\n").unwrap();
        std::fs::write(
            root.join("op_host/clean_tiling.h"),
            "#include \"register/tilingdata_base.h\"\n#include \"consts.h\"\n",
        )
        .unwrap();
        std::fs::write(
            root.join("op_host/hosty_tiling.h"),
            "#include \"register/tilingdata_base.h\"\n#include \"util/math_util.h\"\n",
        )
        .unwrap();
        std::fs::write(root.join("op_host/deep.h"), "#include \"hosty_tiling.h\"\n").unwrap();
        assert!(kernel_readable(&root, &kinc, "op_host/clean_tiling.h"));
        assert!(!kernel_readable(&root, &kinc, "op_host/hosty_tiling.h"));
        assert!(
            !kernel_readable(&root, &kinc, "op_host/deep.h"),
            "found through a header beside it"
        );
        assert!(!kernel_readable(&root, &kinc, "op_host/absent.h"));
    }

    #[test]
    fn nothing_is_generated_when_the_kernel_defines_the_struct_or_reads_no_tiling() {
        let (dir, op) =
            project("struct ListTiling { int x; };\nvoid k(){ GET_TILING_DATA(t, tiling); }\n");
        assert_eq!(
            kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new()),
            None
        );
        let (dir, op) = project("void k(){}\n");
        assert_eq!(
            kernel_tiling_header(&dir.path().join("op"), &[], &[], &op, &BTreeMap::new()),
            None
        );
    }
}
