//! Finding an operator project's parts without a manifest: kernel entry functions, the op type registered
//! with `OP_ADD`, tensors from the msopgen op json, the tiling header; the tunables among the op's files
//! are `space::discover`'s. Used by `init`; `operator_projects` finds the
//! projects a command line names (for `bank mine` and `bench`). Reads C++ through tree-sitter-cpp.
//! Knows nothing of searching or building.

pub mod cmake_loops;
pub mod launch;
pub mod opdef;
pub mod preproc;
pub mod registered;

use crate::manifest::DType;
use crate::space::binding::parse_cpp;
use crate::space::discover;
pub use crate::space::discover::{FoundTunable, TunableKind};
use std::path::{Path, PathBuf};
use tree_sitter::Node;

/// Tensors as (name, dtype), inputs then outputs.
type TensorList = (Vec<(String, DType)>, Vec<(String, DType)>);

/// An op as found in the sources.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundOp {
    /// Kernel entry function.
    pub name: String,
    pub op_type: Option<String>,
    pub host: Vec<String>,
    pub kernel: Vec<String>,
    /// Names of the kernel's GM parameters, in order (inputs, outputs, workspace, tiling).
    pub params: Vec<String>,
    /// (name, dtype) of inputs and outputs from the op json, when there is one.
    pub inputs: Vec<(String, DType)>,
    pub outputs: Vec<(String, DType)>,
    pub tunables: Vec<FoundTunable>,
    /// The OpDef registered for the op, when `op_host/` has one (`registered`).
    pub opdef: Option<opdef::OpDef>,
    /// Include folders the sources need, relative to the project root (may lie above it).
    pub include: Vec<String>,
    /// `include-as` pairs (a path inside the project, the folder shown there, relative to the root)
    /// for `#include "../<sibling>/x.h"` whose sibling folder the original build lays out beside the
    /// sources.
    pub include_as: Vec<(String, String)>,
    /// What discovery had to choose or guess, for `init` to tell the user.
    pub notes: Vec<String>,
    /// Set for a kernel-launch project (or `.asc` program): the program its CMake builds.
    pub launch: Option<launch::Launch>,
    /// Literals that look like tuning parameters but are not offered, with why.
    pub left_out: Vec<discover::LeftOut>,
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

fn cpp_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| matches!(e, "cpp" | "cc" | "cxx" | "asc"))
        })
        .collect();
    v.sort();
    v
}

/// The tunables of one op (`space::discover`'s rules) from its host files and its kernel files, with the
/// `op_kernel/` headers those include.
pub fn op_tunables(
    root: &Path,
    host: &[(String, String)],
    kernel: &[(String, String)],
) -> discover::Discovery {
    let mut kernel_files = kernel.to_vec();
    for (rel, text) in kernel {
        for h in discover::kernel_headers(root, rel, text) {
            if !kernel_files.iter().any(|(f, _)| *f == h.0) {
                kernel_files.push(h);
            }
        }
    }
    discover::discover(&discover::OpFiles {
        host,
        kernel: &kernel_files,
    })
}

/// Finds the ops of a custom-op project (`op_host/` + `op_kernel/`) at `root`.
pub fn discover(root: &Path) -> Result<Vec<FoundOp>, String> {
    let kernel_dir = root.join("op_kernel");
    let host_dir = root.join("op_host");
    if !kernel_dir.is_dir() {
        if let Some(found) = launch::discover(root) {
            return found;
        }
        return Err(format!(
            "{} has no op_kernel/ folder, nor a CMakeLists.txt building a program from kernel sources; \
             `init` knows the msopgen custom-op layout (op_host/ + op_kernel/), kernel-launch projects and `.asc` programs",
            root.display()
        ));
    }
    // An op_host/ that defines OpDefs is read as CANN's op build reads it: one op per registration.
    if let Some(found) = registered::discover(root) {
        return found;
    }
    let host_files = cpp_files(&host_dir);
    let host_texts: Vec<(String, String)> = host_files
        .iter()
        .filter_map(|p| Some((rel(root, p), std::fs::read_to_string(p).ok()?)))
        .collect();
    let op_json = op_json(root);
    let mut ops = vec![];
    for k in cpp_files(&kernel_dir) {
        let Ok(text) = std::fs::read_to_string(&k) else {
            continue;
        };
        for KernelEntry { name, params, .. } in kernel_entries(&text) {
            let camel = crate::manifest::camel_case(&name);
            let host_of_op: Vec<&(String, String)> = host_texts
                .iter()
                .filter(|(_, t)| t.contains(&format!("OP_ADD({camel})")))
                .collect();
            let host_of_op = if host_of_op.is_empty() {
                host_texts
                    .iter()
                    .filter(|(f, _)| f.contains(&name))
                    .collect()
            } else {
                host_of_op
            };
            let op_type = host_of_op.iter().find_map(|(_, t)| op_add_name(t));
            // The ops-math / ops-nn layout registers the tiling function apart from the OpDef, with
            // IMPL_OP_OPTILING(Type) in its own file: the tiling program needs that file too.
            let mut host_of_op = host_of_op;
            let tiling_mark = format!("IMPL_OP_OPTILING({})", op_type.as_deref().unwrap_or(&camel));
            for h in &host_texts {
                if h.1.contains(&tiling_mark) && !host_of_op.iter().any(|x| x.0 == h.0) {
                    host_of_op.push(h);
                }
            }
            let (inputs, outputs) = op_json
                .as_ref()
                .and_then(|j| tensors_of(j, op_type.as_deref().unwrap_or(&camel)))
                .unwrap_or_default();
            let kernel_rel = rel(root, &k);
            let host_files: Vec<(String, String)> = host_of_op
                .iter()
                .map(|(f, t)| (f.clone(), t.clone()))
                .collect();
            let mut kernel_files = vec![(kernel_rel.clone(), text.clone())];
            kernel_files.extend(discover::kernel_headers(root, &kernel_rel, &text));
            let found = discover::discover(&discover::OpFiles {
                host: &host_files,
                kernel: &kernel_files,
            });
            ops.push(FoundOp {
                name,
                op_type,
                host: host_of_op.iter().map(|(f, _)| f.clone()).collect(),
                kernel: vec![kernel_rel],
                params,
                inputs,
                outputs,
                tunables: found.offered,
                left_out: found.left_out,
                opdef: None,
                include: vec![],
                include_as: vec![],
                notes: vec![],
                launch: None,
            });
        }
    }
    if ops.is_empty() {
        return Err(format!(
            "found no kernel entry (`__global__ __aicore__ void name(GM_ADDR ...)`, `extern \"C\"`, a template or neither) in {}",
            kernel_dir.display()
        ));
    }
    Ok(ops)
}

/// How a kernel entry is declared, which decides how a launch reaches it: an `extern "C"` entry can
/// be declared and called from another file; a C++-linkage one has a mangled name that depends on its
/// parameter types and namespace, and a template one must be instantiated where its definition is seen,
/// so for those two the launch file includes the kernel source instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linkage {
    C,
    Cpp,
    Template,
}

/// A kernel entry function found in a source file.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelEntry {
    pub name: String,
    /// The name with its enclosing namespaces, e.g. `ops::softmax` (an anonymous namespace adds nothing:
    /// the launch file that includes the source sees its names).
    pub qualified: String,
    /// Parameter names, in order.
    pub params: Vec<String>,
    pub linkage: Linkage,
}

/// Kernel entry functions defined in `text`, whatever their linkage: `__global__` functions, at file
/// scope or in namespaces, `extern "C"` (one declaration or a `{ }` block), plain C++ or templates. Inside
/// `extern "C"` an `__aicore__` mark alone also counts (older samples write entries so); elsewhere it
/// marks every device helper, so only `__global__` does.
/// Read as the twin's build compiles it (`preproc::compiled_text`): a settled `#if` that splits an
/// `else if` chain in the entry's body no longer hides the entry from the parser.
pub fn kernel_entries(text: &str) -> Vec<KernelEntry> {
    let text = &preproc::compiled_text(text);
    let Some(tree) = parse_cpp(text) else {
        return vec![];
    };
    let mut out = vec![];
    collect_entries(tree.root_node(), text, "", Linkage::Cpp, &mut out);
    out
}

/// Kernel entries that a function-like macro defines, as ops-nn's sync_batch_norm_gather_stats writes
/// its entry once in `op_kernel/common/` (`#define ..._KERNEL_ENTRY(KernelClass) extern "C" __global__
/// __aicore__ void sync_batch_norm_gather_stats(...) {...}`) and expands it in the header its
/// `op_kernel/<op>.cpp` includes. `files` are the op's kernel sources and headers (relative path, text);
/// a macro counts when some file expands it. Each entry is given to the `.cpp` named after it (CANN's
/// `op_kernel/<op>.cpp`) that is not in `with_entries`, the files defining entries of their own; one
/// with no such file is left out.
pub fn macro_entries(
    files: &[(String, String)],
    with_entries: &[&str],
) -> Vec<(String, KernelEntry)> {
    let mut out = vec![];
    for (_, text) in files {
        if !text.contains("#define") || !text.contains("__global__") {
            continue;
        }
        let Some(tree) = parse_cpp(text) else {
            continue;
        };
        let mut defs = vec![];
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if n.kind() == "preproc_function_def" {
                defs.push(n);
                continue;
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        for d in defs {
            let (Some(name), Some(value)) = (
                d.child_by_field_name("name"),
                d.child_by_field_name("value"),
            ) else {
                continue;
            };
            let macro_name = &text[name.byte_range()];
            let body = text[value.byte_range()].replace("\\\n", "\n");
            let call = format!("{macro_name}(");
            let expanded = files.iter().any(|(_, t)| {
                t.match_indices(&call)
                    .any(|(i, _)| !t[..i].trim_end().ends_with("#define"))
            });
            if !expanded || !has_word(&body, "__global__") {
                continue;
            }
            for e in kernel_entries(&body) {
                let file = files.iter().find(|(f, _)| {
                    Path::new(f)
                        .file_stem()
                        .is_some_and(|s| s == e.name.as_str())
                        && f.ends_with(".cpp")
                        && !with_entries.contains(&f.as_str())
                });
                if let Some((f, _)) = file
                    && !out
                        .iter()
                        .any(|(g, x): &(String, KernelEntry)| g == f && x.name == e.name)
                {
                    out.push((f.clone(), e));
                }
            }
        }
    }
    out
}

fn collect_entries(
    scope: Node,
    text: &str,
    ns: &str,
    linkage: Linkage,
    out: &mut Vec<KernelEntry>,
) {
    let mut cursor = scope.walk();
    for node in scope.named_children(&mut cursor) {
        collect_node(node, text, ns, linkage, out);
    }
}

fn collect_node(node: Node, text: &str, ns: &str, linkage: Linkage, out: &mut Vec<KernelEntry>) {
    match node.kind() {
        // An entry inside `#if` / `#ifdef`: the branch the twin's build compiles, both when the
        // condition names a macro the twin's build does not settle (preproc.rs).
        "preproc_if" | "preproc_ifdef" | "preproc_elif" => {
            let taken = preproc::branch_taken(node, text);
            let alternative = node.child_by_field_name("alternative");
            if taken != Some(false) {
                let mut c = node.walk();
                for item in node.named_children(&mut c) {
                    if Some(item) != alternative {
                        collect_node(item, text, ns, linkage, out);
                    }
                }
            }
            if taken != Some(true)
                && let Some(alternative) = alternative
            {
                collect_node(alternative, text, ns, linkage, out);
            }
        }
        "preproc_else" => collect_entries(node, text, ns, linkage, out),
        "namespace_definition" => {
            let name = node
                .child_by_field_name("name")
                .map(|n| &text[n.byte_range()])
                .unwrap_or("");
            let inner = match (ns.is_empty(), name.is_empty()) {
                (_, true) => ns.to_string(),
                (true, false) => name.to_string(),
                (false, false) => format!("{ns}::{name}"),
            };
            if let Some(body) = node.child_by_field_name("body") {
                collect_entries(body, text, &inner, linkage, out);
            }
        }
        "linkage_specification" => {
            let Some(body) = node.child_by_field_name("body") else {
                return;
            };
            if body.kind() == "function_definition" {
                push_entry(body, text, ns, Linkage::C, out);
            } else {
                collect_entries(body, text, ns, Linkage::C, out);
            }
        }
        "template_declaration" => {
            let mut c = node.walk();
            for child in node.named_children(&mut c) {
                if child.kind() == "function_definition" {
                    push_entry(child, text, ns, Linkage::Template, out);
                }
            }
        }
        "function_definition" => push_entry(node, text, ns, linkage, out),
        _ => {}
    }
}

fn push_entry(def: Node, text: &str, ns: &str, linkage: Linkage, out: &mut Vec<KernelEntry>) {
    // The node starts after the qualifiers (they parse as blanks): the head is read from them.
    let head = &text[crate::rewrite::cst::qualified_start(text, def.start_byte())
        ..def
            .child_by_field_name("body")
            .map_or(def.end_byte(), |b| b.start_byte())];
    let marked =
        has_word(head, "__global__") || (linkage == Linkage::C && has_word(head, "__aicore__"));
    if !marked {
        return;
    }
    let Some(decl) = def
        .child_by_field_name("declarator")
        .filter(|d| d.kind() == "function_declarator")
    else {
        return;
    };
    let Some(name) = decl.child_by_field_name("declarator") else {
        return;
    };
    let name = text[name.byte_range()].to_string();
    if !crate::manifest::is_identifier(&name) {
        return;
    }
    let mut params = vec![];
    if let Some(list) = decl.child_by_field_name("parameters") {
        let mut c = list.walk();
        for p in list.named_children(&mut c) {
            if let Some(d) = p.child_by_field_name("declarator") {
                // The name is the declarator's last identifier: `*x`, `* x`, `*__restrict__ x`.
                let decl = &text[d.byte_range()];
                let name = decl
                    .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .find(|w| !w.is_empty())
                    .unwrap_or(decl);
                params.push(name.to_string());
            }
        }
    }
    let qualified = if ns.is_empty() {
        name.clone()
    } else {
        format!("{ns}::{name}")
    };
    out.push(KernelEntry {
        name,
        qualified,
        params,
        linkage,
    });
}

/// Whether `word` occurs in `text` as a whole identifier.
fn has_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
        !text[..i].ends_with(ident) && !text[i + word.len()..].starts_with(ident)
    })
}

/// The kernel entry `name` as defined in `text`, if it is.
pub fn find_entry(text: &str, name: &str) -> Option<KernelEntry> {
    kernel_entries(text).into_iter().find(|e| e.name == name)
}

fn op_add_name(text: &str) -> Option<String> {
    let tree = parse_cpp(text)?;
    let mut found = None;
    visit(tree.root_node(), &mut |n| {
        if found.is_none() && n.kind() == "call_expression" {
            let f = n.child_by_field_name("function");
            if f.is_some_and(|f| &text[f.byte_range()] == "OP_ADD") {
                let args = n.child_by_field_name("arguments");
                if let Some(a) = args.and_then(|a| a.named_child(0)) {
                    found = Some(text[a.byte_range()].to_string());
                }
            }
        }
    });
    found
}

fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, f);
    }
}

/// The msopgen op json (`<op>.json` at the project root listing `input_desc`), parsed.
fn op_json(root: &Path) -> Option<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files.into_iter().find_map(|p| {
        let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(p).ok()?).ok()?;
        let has_desc = |o: &serde_json::Value| o.get("input_desc").is_some();
        (v.as_array().is_some_and(|a| a.iter().any(has_desc)) || has_desc(&v)).then_some(v)
    })
}

fn tensors_of(json: &serde_json::Value, op_type: &str) -> Option<TensorList> {
    let entries: Vec<&serde_json::Value> = match json.as_array() {
        Some(a) => a.iter().collect(),
        None => vec![json],
    };
    let entry = entries
        .iter()
        .find(|e| e.get("op").and_then(|o| o.as_str()) == Some(op_type))
        .or(entries.first())?;
    let list = |key: &str| -> Vec<(String, DType)> {
        entry
            .get(key)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|d| {
                let name = d.get("name")?.as_str()?.to_string();
                let ty = d
                    .get("type")
                    .and_then(|t| t.as_array())
                    .and_then(|t| t.first())
                    .and_then(|t| t.as_str())
                    .unwrap_or("float16");
                Some((name, DType::parse(ty).unwrap_or(DType::Float16)))
            })
            .collect()
    };
    Some((list("input_desc"), list("output_desc")))
}

/// Whether the project in `dir` is a kernel-launch project (`layout = "kernel-launch"` under `[project]`
/// in its ascend.toml: its own CMakeLists.txt builds a host program that launches the kernel). Read
/// from the TOML alone, without the manifest's validation, so code that scans folders of projects can
/// tell the layouts apart before loading any; a missing or unreadable manifest is not kernel-launch.
pub fn is_kernel_launch(dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(dir.join(crate::manifest::FILE_NAME)) else {
        return false;
    };
    let Ok(table) = text.parse::<toml::Table>() else {
        return false;
    };
    table
        .get("project")
        .and_then(|p| p.get("layout"))
        .and_then(|l| l.as_str())
        == Some("kernel-launch")
}

/// Operator projects named on the command line (`bank mine`, `bench`): each path is a project (it holds
/// an ascend.toml) or a folder of projects, found in name order. Kernel-launch projects found in a
/// folder are skipped (the fixtures' `*_launch` projects are built by their own tests); one named on its
/// own is taken when `named_launch` (`bench`, which tunes it as `tune` does) and refused otherwise
/// (`bank mine` does not rewind them yet).
pub fn operator_projects(
    paths: &[PathBuf],
    named_launch: bool,
) -> crate::errors::Result<Vec<PathBuf>> {
    let mut out = vec![];
    for p in paths {
        if p.join(crate::manifest::FILE_NAME).is_file() {
            if is_kernel_launch(p) && !named_launch {
                return Err(crate::errors::Error::not_built(
                    format!("mining kernel-launch projects ({})", p.display()),
                    "name custom-op projects (op_host/ + op_kernel/), or folders holding them; \
                     kernel-launch projects in such folders are skipped",
                ));
            }
            out.push(p.clone());
            continue;
        }
        let entries = std::fs::read_dir(p).map_err(|e| {
            crate::errors::Error::bad_input(
                format!("could not read {}: {e}", p.display()),
                Some(
                    "name operator projects (folders with an ascend.toml) or folders holding them"
                        .into(),
                ),
            )
        })?;
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|c| c.join(crate::manifest::FILE_NAME).is_file())
            // Kernel-launch projects (e.g. fixtures/*_launch) are not mined or benchmarked yet.
            .filter(|c| !is_kernel_launch(c))
            .collect();
        if found.is_empty() {
            return Err(crate::errors::Error::bad_input(
                format!(
                    "{} holds no custom-op operator project (no ascend.toml in it or its subfolders, \
                     kernel-launch projects aside)",
                    p.display()
                ),
                Some(
                    "name operator projects, or folders holding them, e.g. `bank mine fixtures` or `bench fixtures`"
                        .into(),
                ),
            ));
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovers_the_add_custom_fixture() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/add_custom");
        let ops = discover(&root).unwrap();
        assert_eq!(ops.len(), 1);
        let op = &ops[0];
        assert_eq!(op.name, "add_custom");
        assert_eq!(op.op_type.as_deref(), Some("AddCustom"));
        assert_eq!(op.params, ["x", "y", "z", "workspace", "tiling"]);
        assert_eq!(
            op.inputs,
            [
                ("x".to_string(), DType::Float16),
                ("y".to_string(), DType::Float16)
            ]
        );
        assert_eq!(op.outputs, [("z".to_string(), DType::Float16)]);
        let t: Vec<(&str, i64, TunableKind)> = op
            .tunables
            .iter()
            .map(|t| (t.name.as_str(), t.value, t.kind))
            .collect();
        assert_eq!(
            t,
            [
                ("block_dim", 8, TunableKind::BlockDim),
                ("tile_length", 256, TunableKind::Size),
                ("buffer_num", 1, TunableKind::BufferCount)
            ]
        );
    }

    fn entries(text: &str) -> Vec<(String, String, Linkage, usize)> {
        kernel_entries(text)
            .into_iter()
            .map(|e| (e.name, e.qualified, e.linkage, e.params.len()))
            .collect()
    }

    /// ops-nn's sync_batch_norm_gather_stats defines its entry in a macro of `op_kernel/common/` and
    /// expands it in the header its `<op>.cpp` includes: init found no entry at all.
    #[test]
    fn an_entry_a_macro_defines_belongs_to_the_cpp_named_after_it() {
        let common = "#define OP_ENTRY(KernelClass) \\\n    extern \"C\" __global__ __aicore__ void my_op( \\\n        GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) \\\n    { \\\n        KernelClass op; op.Process(x, y); \\\n    }\n".to_string();
        let header = "#include \"common/base.h\"\nclass K {};\nOP_ENTRY(K)\n".to_string();
        let cpp = "#include \"kernel_operator.h\"\n#include \"my_op_kernel.h\"\n".to_string();
        let files = vec![
            ("op_kernel/common/base.h".to_string(), common.clone()),
            ("op_kernel/my_op_kernel.h".to_string(), header),
            ("op_kernel/my_op.cpp".to_string(), cpp.clone()),
        ];
        let found = macro_entries(&files, &[]);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].0, "op_kernel/my_op.cpp");
        assert_eq!(found[0].1.name, "my_op");
        assert_eq!(found[0].1.params, ["x", "y", "workspace", "tiling"]);
        assert_eq!(found[0].1.linkage, Linkage::C);
        // a macro nothing expands defines nothing
        let unexpanded = vec![
            ("op_kernel/common/base.h".to_string(), common),
            ("op_kernel/my_op.cpp".to_string(), cpp),
        ];
        assert!(macro_entries(&unexpanded, &[]).is_empty());
        // a `<op>.cpp` with an entry of its own keeps it
        assert!(macro_entries(&files, &["op_kernel/my_op.cpp"]).is_empty());
    }

    /// ops-math's add_mat_mat_elements_plus and sim_thread_exponential keep their entry inside `#if`
    /// branches; init said "no kernel entry". The branch the twin compiles is the one taken; both where
    /// the condition is not the twin's to settle.
    #[test]
    fn entries_inside_conditional_branches_are_the_compiled_ones() {
        let e = |n: &str, l, p| (n.to_string(), n.to_string(), l, p);
        let kt = "#include \"k.h\"\n#ifdef __CCE_KT_TEST__\n\
                  extern \"C\" __global__ __aicore__ void op(GM_ADDR x, GM_ADDR t) { }\n#else\n\
                  template <typename D>\n__global__ __aicore__ void op(GM_ADDR x, GM_ADDR y, GM_ADDR t) { }\n#endif\n";
        assert_eq!(entries(kt), [e("op", Linkage::Template, 3)]);
        let arch = "#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 310\n\
                    extern \"C\" __global__ __aicore__ void op(GM_ADDR a) { }\n\
                    #elif defined(MY_FLAG)\nextern \"C\" __global__ __aicore__ void op(GM_ADDR b, GM_ADDR c) { }\n\
                    #else\nextern \"C\" __global__ __aicore__ void op(GM_ADDR d, GM_ADDR e, GM_ADDR f) { }\n#endif\n";
        // 310 is not the twin's generation; MY_FLAG is unknown: its branch and the `#else` both count.
        assert_eq!(
            entries(arch),
            [e("op", Linkage::C, 2), e("op", Linkage::C, 3)]
        );
        // ops-nn's adaptive_avg_pool3d: `#if` lines split the entry's `else if` chain; init took the
        // arch35 file (the only entry it could parse) and the build missed that generation's headers.
        // (This short form parses either way; the operator's own file did not, and parses now.)
        let chain = "#define DISPATCH(K, ...)  \\\n    do {                 \\\n        K<__VA_ARGS__> op; \\\n        op.Process();      \\\n    } while (0)\n\n\
                     extern \"C\" __global__ __aicore__ void op(GM_ADDR x, GM_ADDR t) {\n\
                     GET_TILING_DATA(tilingData, t);\n\
                     if (TILING_KEY_IS(11)) {\n  DISPATCH(KernelA, half, 1);\n\
                     #if __CCE_AICORE__ >= 220 && !(defined(__NPU_ARCH__) && (__NPU_ARCH__ == 3003))\n\
                     } else if (TILING_KEY_IS(10)) {\n  DISPATCH(KernelA, bfloat16_t, 1);\n#endif\n\
                     } else if (TILING_KEY_IS(12)) {\n  DISPATCH(KernelA, float, 1);\n}\n}\n";
        assert_eq!(entries(chain), [e("op", Linkage::C, 2)], "{chain}");
    }

    #[test]
    fn finds_entries_whatever_their_linkage() {
        let e = |n: &str, q: &str, l, p| (n.to_string(), q.to_string(), l, p);
        // A template entry; a plain function template beside it is no entry.
        let t = "template <uint32_t D>\n__global__ __aicore__ void op(GM_ADDR x, GM_ADDR y) { }\ntemplate <int N> void helper() {}\n";
        assert_eq!(entries(t), [e("op", "op", Linkage::Template, 2)]);
        assert_eq!(find_entry(t, "op").unwrap().linkage, Linkage::Template);
        assert!(find_entry(t, "other").is_none());
        // extern "C", one declaration or a block; `__aicore__` alone counts there.
        let c = "extern \"C\" __global__ __aicore__ void a(GM_ADDR x) { }\nextern \"C\" {\n__aicore__ void b(GM_ADDR x, GM_ADDR t) { }\n}\n";
        assert_eq!(
            entries(c),
            [e("a", "a", Linkage::C, 1), e("b", "b", Linkage::C, 2)]
        );
        // C++ linkage, at file scope and in (nested, anonymous) namespaces. `__aicore__ inline`
        // helpers and a declaration without a body are not entries.
        let cpp = "__aicore__ inline int helper(int a) { return a; }\n\
            __global__ __aicore__ void fwd(GM_ADDR y, GM_ADDR dy);\n\
            __global__ __aicore__ void plain(GM_ADDR y, GM_ADDR dy, GM_ADDR dx, GM_ADDR w, GM_ADDR t) { }\n\
            namespace outer { namespace inner {\n__global__ __aicore__ void deep(GM_ADDR x) { }\n} }\n\
            namespace {\n__global__ __aicore__ void hidden(GM_ADDR x) { }\n}\n\
            class K { public: __aicore__ inline void Process() { } };\n";
        assert_eq!(
            entries(cpp),
            [
                e("plain", "plain", Linkage::Cpp, 5),
                e("deep", "outer::inner::deep", Linkage::Cpp, 1),
                e("hidden", "hidden", Linkage::Cpp, 1),
            ]
        );
        // Parameter names without the pointer marks, however they are spaced.
        let spaced = kernel_entries(
            "__global__ __aicore__ void k(__gm__ float* x, __gm__ float * __restrict__ y) { }\n",
        );
        assert_eq!(spaced[0].params, ["x", "y"]);
        // The mark is a whole word, not part of another name.
        assert!(entries("void not__global__(GM_ADDR x) { }\n").is_empty());
        // A mixed kernel's `__mix__(1, 2)` qualifier (the learning hub's matmul answers).
        let mixed =
            "extern \"C\" __global__ __mix__(1, 2) void matmul_abs(GM_ADDR a, GM_ADDR b) { }\n";
        assert_eq!(
            entries(mixed),
            [e("matmul_abs", "matmul_abs", Linkage::C, 2)]
        );
    }

    #[test]
    fn kernel_launch_projects_are_told_apart_and_skipped_in_folders() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        assert!(is_kernel_launch(&fixtures.join("add_launch")));
        assert!(!is_kernel_launch(&fixtures.join("add_custom")));
        assert!(!is_kernel_launch(&fixtures));

        let found = operator_projects(std::slice::from_ref(&fixtures), true).unwrap();
        let names: Vec<String> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert!(names.contains(&"add_custom".to_string()), "{names:?}");
        for launch in [
            "add_launch",
            "leaky_relu_launch",
            "softmax_launch",
            "matmul_launch",
            "mul_asc",
        ] {
            assert!(!names.contains(&launch.to_string()), "{names:?}");
        }

        let e = operator_projects(&[fixtures.join("add_launch")], false).unwrap_err();
        assert!(e.to_string().contains("kernel-launch"), "{e}");
        assert_eq!(e.exit_code(), crate::exit_codes::BAD_INPUT);
        // `bench` takes one named on its own.
        let named = operator_projects(&[fixtures.join("add_launch")], true).unwrap();
        assert_eq!(named, [fixtures.join("add_launch")]);
    }
}
