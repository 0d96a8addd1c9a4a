//! Kernel-launch projects and CANN 9 `.asc` programs as `init` finds them: a folder whose
//! `CMakeLists.txt` builds a program (`add_executable`) from sources holding kernel entries (a `.asc`
//! single-source file, or a kernel `.cpp` beside a host `main.cpp`). Finds the program's name, the
//! kernel files and entries, the host files, and whether the program reads its inputs from files
//! (CANN samples' `input/*.bin`, with the sizes its own `ReadFile` / `WriteFile` calls give them) or
//! makes and checks its own data. Knows nothing of manifests'
//! rendering, of tunable choice (it asks `tunables_in`) or of building.

use super::{FoundOp, kernel_entries, rel};
use std::path::{Path, PathBuf};

/// What makes a found op a kernel-launch one.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// The executable the project's CMake builds.
    pub program: String,
    /// The example's own data flow (`[op] prepare` / `verify`), when it has a `gen_data.py` and a
    /// `verify_result.py` (the asc-devkit examples): each a program and its arguments.
    pub prepare: Option<Vec<Vec<String>>>,
    pub verify: Option<Vec<Vec<String>>>,
    /// The CMakeLists.txt's own default target is dav-3510 (Ascend950): `init` then writes the Ascend950
    /// SoC, whose latency the model gives with assumed dav-2201 figures (src/model/soc.rs).
    pub targets_dav_3510: bool,
    /// The CMakeLists.txt is part of a larger build (no project() of its own): the CMake files of that
    /// build defining what it calls, as paths from the project root (`cmake-include`).
    pub cmake_include: Vec<String>,
    /// Where the program's host code starts a process of its own (`include/sample_common.h calls
    /// std::system`): written as the op's `starts-processes = true`.
    pub starts_processes: Option<String>,
    /// `-D` definitions the CMakeLists.txt stops without (`if(NOT DEFINED X) message(FATAL_ERROR ...
    /// -DX=1/2)`), each `NAME=VALUE` with the first value its message offers: written as the op's
    /// `cmake-defines`, a guess.
    pub defines: Vec<String>,
    /// The folder has no CMakeLists.txt: its one `.asc` program is built alone (`alone`).
    pub alone: bool,
    /// The `.bin` files the program's own code reads (`ReadFile("./input/src0.bin", ...)`) and writes
    /// (`WriteFile(...)`), each in the order it names them: the tensors' `file`s where they are as
    /// many as the tensors (empty otherwise).
    pub files: (Vec<String>, Vec<String>),
    /// What the program's own code says each of those files holds (`bin_calls`), one per file, in
    /// the same order.
    pub sizes: (Vec<Option<BinSize>>, Vec<Option<BinSize>>),
}

/// What a program's own code says one of its `.bin` files holds: the size argument of its
/// `ReadFile(path, size, ...)` / `WriteFile(path, buffer, size)` call, evaluated over the integer locals
/// its function declares before the call (`uint32_t inputNum = 33 * 31; size_t dataSize = inputNum *
/// sizeof(float);`), when it is a count times `sizeof` of one element type.
#[derive(Debug, Clone, PartialEq)]
pub struct BinSize {
    pub elements: u64,
    pub dtype: crate::manifest::DType,
    /// The size argument as written (`dataSize`).
    pub written: String,
}

/// A value of the size evaluation: an integer, and the element type when it is a count times that
/// type's `sizeof`.
#[derive(Clone, Copy)]
struct SizeValue {
    n: u64,
    ty: Option<crate::manifest::DType>,
}

fn eval_size(
    n: tree_sitter::Node,
    text: &str,
    locals: &std::collections::HashMap<String, SizeValue>,
) -> Option<SizeValue> {
    use crate::rewrite::cst::text_of;
    match n.kind() {
        "number_literal" => {
            let (v, _, _) = crate::space::binding::parse_integer_literal(text_of(n, text))?;
            Some(SizeValue {
                n: u64::try_from(v).ok()?,
                ty: None,
            })
        }
        "identifier" => locals.get(text_of(n, text)).copied(),
        "parenthesized_expression" => eval_size(n.named_child(0)?, text, locals),
        "cast_expression" => eval_size(n.child_by_field_name("value")?, text, locals),
        // static_cast<T>(x), and a size_t / uint32_t(x) conversion
        "call_expression" => {
            let call = crate::rewrite::cst::Call::of(n)?;
            let args = call.args();
            match (call.name(text), args.as_slice()) {
                (
                    "static_cast" | "size_t" | "uint32_t" | "uint64_t" | "int32_t" | "int64_t",
                    [x],
                ) => eval_size(*x, text, locals),
                _ => None,
            }
        }
        "sizeof_expression" => {
            let ty = match n.child_by_field_name("type") {
                Some(t) => text_of(t, text),
                None => text_of(n.child_by_field_name("value")?, text)
                    .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace()),
            };
            // uint16_t stands for half in the samples as often as for itself: no type from it
            let dtype = match ty.trim() {
                "uint16_t" => None,
                t => crate::manifest::DType::from_c_type(t),
            };
            let bytes = match ty.trim() {
                "uint16_t" => 2,
                _ => dtype?.size() as u64,
            };
            Some(SizeValue {
                n: bytes,
                ty: dtype,
            })
        }
        "binary_expression" => {
            let a = eval_size(n.child_by_field_name("left")?, text, locals)?;
            let b = eval_size(n.child_by_field_name("right")?, text, locals)?;
            let op = text_of(n.child_by_field_name("operator")?, text);
            let (value, ty) = match op {
                "*" => (
                    a.n.checked_mul(b.n)?,
                    if a.ty.is_some() != b.ty.is_some() {
                        a.ty.or(b.ty)
                    } else {
                        None
                    },
                ),
                "+" => (a.n.checked_add(b.n)?, None),
                "-" => (a.n.checked_sub(b.n)?, None),
                "/" => (a.n.checked_div(b.n)?, None),
                _ => return None,
            };
            Some(SizeValue { n: value, ty })
        }
        _ => None,
    }
}

/// The `.bin` files the calls to `call` (`ReadFile`, `WriteFile`) in `text` name by a literal path, in
/// source order: each path without a leading `./`, and what the file holds where the call's size
/// argument is a count times one element type's `sizeof` (see `BinSize`), else None. A local assigned
/// again after its declaration is not known. Calls in comments, calls naming their file by a variable
/// and look-alikes (`MyReadFile`) are not taken.
pub fn bin_calls(text: &str, call: &str) -> Vec<(String, Option<BinSize>)> {
    use crate::rewrite::cst::{self, text_of};
    let size_arg = if call == "ReadFile" { 1 } else { 2 };
    let tree = cst::parse(text);
    let mut out = vec![];
    for c in cst::calls_named(tree.root_node(), text, call) {
        let args = c.args();
        let Some(path) = args
            .first()
            .filter(|a| a.kind() == "string_literal")
            .map(|a| text_of(*a, text).trim_matches('"'))
            .filter(|p| p.ends_with(".bin"))
        else {
            continue;
        };
        let size = (|| {
            let arg = *args.get(size_arg)?;
            let func = cst::ancestor(c.node, &["function_definition"])?;
            let mut locals = std::collections::HashMap::new();
            // the file's own constants first (`constexpr uint32_t ROWS = 64;`), then the function's
            let file_level = cst::nodes_of_kind(tree.root_node(), "init_declarator")
                .into_iter()
                .filter(|d| cst::ancestor(*d, &["function_definition"]).is_none());
            for d in file_level.chain(cst::nodes_of_kind(func, "init_declarator")) {
                if d.start_byte() >= c.node.start_byte() {
                    continue;
                }
                let (Some(name), Some(value)) = (
                    d.child_by_field_name("declarator"),
                    d.child_by_field_name("value"),
                ) else {
                    continue;
                };
                if name.kind() != "identifier" {
                    continue;
                }
                if let Some(v) = eval_size(value, text, &locals) {
                    locals.insert(text_of(name, text).to_string(), v);
                }
            }
            locals.retain(|name, _| cst::stores_to(func, text, name).is_empty());
            let v = eval_size(arg, text, &locals)?;
            let dtype = v.ty?;
            let elements = v.n / dtype.size() as u64;
            (elements > 0 && v.n % dtype.size() as u64 == 0).then(|| BinSize {
                elements,
                dtype,
                written: text_of(arg, text).to_string(),
            })
        })();
        out.push((path.trim_start_matches("./").to_string(), size));
    }
    out
}

/// The paths of `bin_calls`.
pub fn bin_files(text: &str, call: &str) -> Vec<String> {
    bin_calls(text, call).into_iter().map(|(p, _)| p).collect()
}

/// The definitions a CMakeLists.txt requires: for each `if(NOT DEFINED NAME)` whose block stops with
/// `message(FATAL_ERROR ...)` naming `-DNAME=V...`, `NAME=V` (V: the first value offered, as in `1/2`,
/// `1|2` or `<1-8>`); comments ignored.
pub fn required_defines(cmake: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let lines: Vec<&str> = cmake
        .lines()
        .map(|l| l.split('#').next().unwrap_or(""))
        .collect();
    for (i, l) in lines.iter().enumerate() {
        let compact: String = l.chars().filter(|c| !c.is_whitespace()).collect();
        let Some(name) = compact
            .strip_prefix("if(NOTDEFINED")
            .and_then(|r| r.strip_suffix(')'))
        else {
            continue;
        };
        let block = lines[i + 1..]
            .iter()
            .take_while(|l| !l.trim_start().to_ascii_lowercase().starts_with("endif"));
        for b in block {
            if !b.contains("FATAL_ERROR") {
                continue;
            }
            let flag = format!("-D{name}=");
            let Some(at) = b.find(&flag) else { continue };
            // `1/2`, `1|2`, `<1-8>`: the first value offered.
            let value: String = b[at + flag.len()..]
                .trim_start_matches('<')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
                .collect();
            if !value.is_empty() && !out.iter().any(|d| d.starts_with(&format!("{name}="))) {
                out.push(format!("{name}={value}"));
            }
        }
    }
    out
}

/// Whether `cmake` sets `CMAKE_ASC_ARCHITECTURES` to `dav-3510` (`set(CMAKE_ASC_ARCHITECTURES "dav-3510"
/// ...)`, the asc-devkit examples' own default target), comments ignored.
pub fn targets_dav_3510(cmake: &str) -> bool {
    let words = cmake_words(cmake);
    // a larger build's architecture check naming dav-3510 and not dav-2201
    // (`cann_sample_check_arch(dav-3510)`): the program is built for Ascend950 only
    let archs: Vec<&str> = words
        .iter()
        .map(|w| w.trim_matches('"'))
        .filter(|w| w.starts_with("dav-"))
        .collect();
    if !words.iter().any(|w| w.eq_ignore_ascii_case("project"))
        && archs.contains(&"dav-3510")
        && !archs.contains(&"dav-2201")
    {
        return true;
    }
    words
        .iter()
        .position(|w| w == "CMAKE_ASC_ARCHITECTURES")
        .filter(|&i| i >= 2 && words[i - 1] == "(" && words[i - 2].eq_ignore_ascii_case("set"))
        .and_then(|i| words.get(i + 1))
        .is_some_and(|w| w.trim_matches('"') == "dav-3510")
}

/// Why the twin cannot take the program at `root`, when it cannot: a SIMT program (`__simt_vf__`,
/// `--enable-simt`), or a C API one (`c_api/...` headers) using the C API's cube functions or an L2
/// cache mode other than the normal one, which the twin does not implement. dav-3510 (Ascend950) programs are taken: their register-compute (Reg / MicroAPI) vector
/// functions run on the twin's register core (templates/twin/include/kernel/twin/reg.h); what of them the
/// twin lacks fails the build naming the API.
pub fn refusal(cmake: &str, texts: &[(String, String)]) -> Option<String> {
    let words = cmake_words(cmake);
    let simt_source = texts
        .iter()
        .find(|(_, t)| t.contains("__simt_vf__") || t.contains("__simt__"));
    if let Some((f, _)) = simt_source {
        return Some(format!(
            "{f} holds SIMT functions (__simt_vf__); the twin implements the SIMD AscendC API (vector \
             repeats and Reg vector functions) only, not SIMT threads"
        ));
    }
    if words.iter().any(|w| w.contains("--enable-simt")) {
        return Some(
            "it is a SIMT program (built with --enable-simt); the twin implements the SIMD AscendC API \
             (vector repeats and Reg vector functions) only, not SIMT threads"
                .into(),
        );
    }
    // The C API: its register compute, UB data movement and synchronisation run on the twin
    // (templates/twin/include/kernel/c_api/asc_simd.h), with every L2 cache mode of its copies (the
    // NOTALLOC ones reach the model as reads that bypass L2); its cube functions do not.
    for (f, t) in texts {
        if !t
            .lines()
            .any(|l| l.trim_start().starts_with("#include") && l.contains("c_api/"))
        {
            continue;
        }
        if let Some(name) = C_API_MISSING.iter().find(|(m, _)| t.contains(m)) {
            return Some(format!(
                "{f} uses the AscendC C API's {} (`{}`), which the twin's C API does not implement (it has the \
                 register compute, UB data movement and synchronisation of c_api/asc_simd.h)",
                name.1, name.0
            ));
        }
    }
    None
}

/// CMake commands a stand-alone CMakeLists.txt of a kernel-launch program calls: what is not among
/// them, nor a function or macro the file defines, comes from a build around it.
const CMAKE_COMMANDS: &[&str] = &[
    "add_compile_definitions",
    "add_compile_options",
    "add_custom_command",
    "add_custom_target",
    "add_definitions",
    "add_dependencies",
    "add_executable",
    "add_library",
    "add_link_options",
    "add_subdirectory",
    "add_test",
    "break",
    "cmake_minimum_required",
    "cmake_policy",
    "configure_file",
    "continue",
    "else",
    "elseif",
    "enable_language",
    "enable_testing",
    "endforeach",
    "endfunction",
    "endif",
    "endmacro",
    "endwhile",
    "execute_process",
    "file",
    "find_library",
    "find_package",
    "find_path",
    "find_program",
    "foreach",
    "function",
    "get_filename_component",
    "get_property",
    "get_target_property",
    "if",
    "include",
    "include_directories",
    "install",
    "link_directories",
    "link_libraries",
    "list",
    "macro",
    "math",
    "message",
    "option",
    "project",
    "return",
    "set",
    "set_property",
    "set_source_files_properties",
    "set_target_properties",
    "string",
    "target_compile_definitions",
    "target_compile_features",
    "target_compile_options",
    "target_include_directories",
    "target_link_directories",
    "target_link_libraries",
    "target_link_options",
    "target_sources",
    "unset",
    "while",
];

/// When the folder's CMakeLists.txt is part of a larger build (it declares no `project()` and a
/// folder above holds the CMake build it belongs to; hicann/cann-samples build every sample from the
/// repository root, and every sample calls `cann_sample_check_arch`, a macro of the repository's
/// `cmake/sample_common.cmake`): Ok with the CMake files of that build that define the commands it
/// calls (the larger build's and its `cmake/` folders' `CMakeLists.txt` and `*.cmake`, from the
/// folder's parent up), as paths from the folder, so that a wrapper can build it alone; Err naming
/// what no such file defines. None for a CMakeLists.txt that stands alone.
fn part_of_a_larger_build(root: &Path, cmake: &str) -> Option<Result<Vec<String>, String>> {
    let words = cmake_words(cmake);
    if words.iter().any(|w| w.eq_ignore_ascii_case("project")) {
        return None;
    }
    let has_project = |d: &Path| {
        std::fs::read_to_string(d.join("CMakeLists.txt")).is_ok_and(|t| {
            cmake_words(&t)
                .iter()
                .any(|w| w.eq_ignore_ascii_case("project"))
        })
    };
    let above = root.ancestors().skip(1).take(6).find(|d| has_project(d))?;
    let defined_in = |words: &[String]| -> Vec<String> {
        words
            .windows(3)
            .filter(|w| {
                matches!(w[0].to_ascii_lowercase().as_str(), "function" | "macro") && w[1] == "("
            })
            .map(|w| w[2].to_ascii_lowercase())
            .collect()
    };
    let own = defined_in(&words);
    let mut foreign: Vec<String> = vec![];
    for w in words.windows(2) {
        let name = w[0].to_ascii_lowercase();
        if w[1] == "("
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !CMAKE_COMMANDS.contains(&name.as_str())
            && !own.contains(&name)
            && !foreign.contains(&name)
        {
            foreign.push(name);
        }
    }
    // the files of the larger build that may define them, nearest first
    let mut files: Vec<PathBuf> = vec![];
    for d in root.ancestors().skip(1) {
        files.push(d.join("CMakeLists.txt"));
        let mut cmakes: Vec<PathBuf> = std::fs::read_dir(d.join("cmake"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "cmake"))
            .collect();
        cmakes.sort();
        files.extend(cmakes);
        if d == above {
            break;
        }
    }
    let mut include: Vec<String> = vec![];
    let mut missing: Vec<&str> = vec![];
    for name in &foreign {
        let found = files.iter().find(|f| {
            // a larger build's own CMakeLists.txt is not included (it is the build); its cmake/ files are
            f.file_name().is_some_and(|n| n != "CMakeLists.txt")
                && std::fs::read_to_string(f)
                    .is_ok_and(|t| defined_in(&cmake_words(&t)).contains(name))
        });
        match found {
            Some(f) => {
                let rel = relative_to(root, f);
                if !include.contains(&rel) {
                    include.push(rel);
                }
            }
            None => missing.push(name),
        }
    }
    if missing.is_empty() {
        return Some(Ok(include));
    }
    Some(Err(format!(
        "{}/CMakeLists.txt has no project() of its own: it is part of the CMake build of {} and calls \
         {}, which no CMake file of that build's cmake/ folders defines; give this folder a \
         CMakeLists.txt that stands alone (`find_package(ASC)`, `project(NAME LANGUAGES C CXX ASC)`), \
         or run init where a program's CMakeLists.txt stands alone",
        root.display(),
        above.display(),
        missing
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// `path` as a path from the folder `from` (`../../cmake/x.cmake`), both absolute or both relative.
fn relative_to(from: &Path, path: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = path.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut out: Vec<String> = vec!["..".to_string(); from.len() - common];
    out.extend(
        to[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    out.join("/")
}

/// C API names the twin does not implement, with what they are: the cube (L1 / L0 buffers, mmad).
const C_API_MISSING: &[(&str, &str)] = &[
    ("asc_mmad", "cube matrix multiply"),
    ("asc_copy_gm2l1", "copies into L1 (cube)"),
    ("asc_copy_ub2l1", "copies into L1 (cube)"),
    ("asc_copy_l12", "copies out of L1 (cube)"),
    ("asc_copy_l0c2gm", "copies out of L0C (cube)"),
    ("asc_fill_l1", "L1 fills (cube)"),
    ("asc_set_gm2l1", "L1 copy settings (cube)"),
    ("asc_set_l0c", "L0C copy settings (cube)"),
];

/// The example's data flow: `prepare` runs its `gen_data.py` (in `scripts/` or the root), `verify` its
/// `verify_result.py`. Where the project has a `run.sh` that calls them, every call it makes, in its
/// order and with its arguments (hicann/cann-learning-hub's sigmoid makes three cases' data, `--shape 7
/// 83 --case-num 0 ...`, and checks each: the bare script made a scalar the program read three shapes
/// from); else `gen_data.py` bare and `verify_result.py` with the arguments its README gives
/// (`output/output.bin output/golden.bin` when the README gives none without shell variables).
/// Neither without a `gen_data.py`; no `verify` without a `verify_result.py` (the program's results
/// are then not checked).
pub fn data_flow(root: &Path) -> (Option<Vec<Vec<String>>>, Option<Vec<Vec<String>>>) {
    let script = |name: &str| {
        ["scripts/", ""]
            .iter()
            .map(|d| format!("{d}{name}"))
            .find(|p| root.join(p).is_file())
    };
    let Some(gen_data) = script("gen_data.py") else {
        return (None, None);
    };
    // `python3 ../scripts/x.py A B`: the arguments after the script, when none needs a shell
    let calls = |text: &str, name: &str| -> Vec<Vec<String>> {
        text.lines()
            .map(|l| l.split('#').next().unwrap_or("").trim())
            .filter(|l| l.starts_with("python") && l.contains(name))
            .map(|l| {
                l.split_whitespace()
                    .skip_while(|w| !w.ends_with(name))
                    .skip(1)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|a| {
                a.iter()
                    .all(|w| !w.contains('$') && !w.contains(';') && !w.contains('&'))
            })
            .collect()
    };
    let with = |script: &str, args: Vec<String>| {
        let mut c = vec!["python3".to_string(), script.to_string()];
        c.extend(args);
        c
    };
    let run_sh = std::fs::read_to_string(root.join("run.sh")).unwrap_or_default();
    let scripted = calls(&run_sh, "gen_data.py");
    let prepare = if scripted.is_empty() {
        vec![with(&gen_data, vec![])]
    } else {
        scripted.into_iter().map(|a| with(&gen_data, a)).collect()
    };
    let Some(verify) = script("verify_result.py") else {
        return (Some(prepare), None);
    };
    let scripted = calls(&run_sh, "verify_result.py");
    let verify = if scripted.is_empty() {
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap_or_default();
        let args = calls(&readme, "verify_result.py")
            .into_iter()
            .find(|a| !a.is_empty())
            .unwrap_or_else(|| vec!["output/output.bin".into(), "output/golden.bin".into()]);
        vec![with(&verify, args)]
    } else {
        scripted.into_iter().map(|a| with(&verify, a)).collect()
    };
    (Some(prepare), Some(verify))
}

/// The op name of one of several programs: the program's, or where that is no C identifier (a stage
/// target named `0_native`: cann-samples' moe_init_routing_story) the folder's name before it, with
/// what no identifier holds made `_`.
fn op_name_of(root: &Path, program: &str) -> String {
    let ident = |s: &str| {
        s.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect::<String>()
    };
    if program.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return ident(program);
    }
    let folder = root.file_name().and_then(|n| n.to_str()).unwrap_or("op");
    let folder = if folder.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        ident(folder)
    } else {
        format!("op_{}", ident(folder))
    };
    format!("{folder}_{}", ident(program))
}

/// Calls that start a process, as C and C++ host code makes them.
const PROCESS_CALLS: &[&str] = &[
    "system",
    "popen",
    "fork",
    "vfork",
    "posix_spawn",
    "posix_spawnp",
    "execv",
    "execvp",
    "execl",
    "execlp",
    "execve",
];

/// The first call in `text` (comments aside) that starts a process: `system(...)`, `std::system(...)`,
/// `popen(...)`, ...; not `filesystem(` nor a member `.system(`.
fn process_call(text: &str) -> Option<&'static str> {
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for &call in PROCESS_CALLS {
            let pat = format!("{call}(");
            let mut from = 0;
            while let Some(at) = code[from..].find(&pat) {
                let at = from + at;
                let before = code[..at].chars().next_back();
                if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
                    return Some(call);
                }
                from = at + pat.len();
            }
        }
    }
    None
}

/// What the program is made of, for what its host code does: the sources it builds, then the headers
/// of the folder `root` (two levels down, in name order), which any of them may include. Another
/// program's sources (a story's other stages) are not among them.
fn program_texts(root: &Path, built: &[&(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = built.iter().map(|&x| x.clone()).collect();
    let headers = walkdir::WalkDir::new(root)
        .max_depth(3)
        .sort_by_file_name()
        .into_iter()
        .flatten()
        .filter(|e| {
            e.file_type().is_file()
                && e.path()
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| matches!(x, "h" | "hpp"))
        });
    for e in headers {
        if let Ok(text) = std::fs::read_to_string(e.path()) {
            out.push((rel(root, e.path()), text));
        }
    }
    out
}

/// Where the program's host code starts a process: `<file> calls <call>`.
fn starts_processes(texts: &[(String, String)]) -> Option<String> {
    texts
        .iter()
        .find_map(|(f, t)| process_call(t).map(|call| format!("{f} calls {call}")))
}

/// The file of the program that runs `gen_data.py` itself (names the script and starts a process),
/// when one does: the program then makes its own data.
fn runs_its_own_gen_data(texts: &[(String, String)]) -> Option<String> {
    texts
        .iter()
        .find(|(_, t)| t.contains("gen_data.py") && process_call(t).is_some())
        .map(|(f, _)| f.clone())
}

/// Commands as a note shows them: `python3 scripts/gen_data.py`, several joined with `; `.
fn shown(cmds: &[Vec<String>]) -> String {
    cmds.iter()
        .map(|c| c.join(" "))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The CMake words of `text`, comments dropped: `add_executable(demo add.asc)` gives
/// `add_executable`, `(`, `demo`, `add.asc`, `)`.
pub(crate) fn cmake_words(text: &str) -> Vec<String> {
    let mut out = vec![];
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut word = String::new();
        for ch in line.chars() {
            if ch.is_whitespace() || ch == '(' || ch == ')' {
                if !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                if ch != ' ' && !ch.is_whitespace() {
                    out.push(ch.to_string());
                }
            } else {
                word.push(ch);
            }
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

/// The first executable `add_executable` names, `${PROJECT_NAME}` resolved from `project(...)`.
pub fn program_of(cmake: &str) -> Option<String> {
    let w = cmake_words(cmake);
    let arg = |cmd: &str| {
        w.windows(3)
            .find(|x| x[0].eq_ignore_ascii_case(cmd) && x[1] == "(")
            .map(|x| x[2].trim_matches('"').to_string())
    };
    let name = arg("add_executable")?;
    if name == "${PROJECT_NAME}" {
        return arg("project");
    }
    (!name.contains("${")).then_some(name)
}

/// The source files the first `add_executable` compiles into the program, relative to the project
/// (`${CMAKE_CURRENT_SOURCE_DIR}/` and `${PROJECT_SOURCE_DIR}/` dropped); empty when it names none
/// literally (a variable, a glob), so the caller falls back to every source of the folder.
pub fn program_sources(cmake: &str) -> Vec<String> {
    let w = cmake_words(cmake);
    let Some(start) = w
        .windows(2)
        .position(|x| x[0].eq_ignore_ascii_case("add_executable") && x[1] == "(")
    else {
        return vec![];
    };
    w[start + 2..]
        .iter()
        .skip(1)
        .take_while(|x| *x != ")")
        .map(|x| {
            let x = x.trim_matches('"');
            x.strip_prefix("${CMAKE_CURRENT_SOURCE_DIR}/")
                .or_else(|| x.strip_prefix("${PROJECT_SOURCE_DIR}/"))
                .unwrap_or(x)
                .trim_start_matches("./")
                .to_string()
        })
        .filter(|x| !x.contains("${") && is_source(Path::new(x)))
        .collect()
}

/// A C++ or Ascend C source a program compiles (`.asc`, `.cpp`, `.cc`, `.cxx`).
fn is_source(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e, "asc" | "cpp" | "cc" | "cxx"))
}

/// Why `init` takes no program from a CMakeLists.txt that names none: the twin's scope first (a
/// dav-3510 or SIMT example whose program is made by a CMake function: asc-devkit general_gather),
/// then a folder that builds no program of its own (ops-math's fast_kernel_launch_example kernels
/// are parts of a PyTorch extension library, `ascend_ops_add_current_op`), then a name not literal.
fn no_program(root: &Path, cmake: &str, texts: &[(String, String)]) -> String {
    let file = root.join("CMakeLists.txt");
    if let Some(why) = refusal(cmake, texts) {
        return format!(
            "{}: the twin cannot run this program: {why}",
            root.display()
        );
    }
    let words = cmake_words(cmake);
    let builds_program = words
        .iter()
        .any(|w| w.eq_ignore_ascii_case("add_executable"));
    // A PyTorch extension (ops-math's fast_kernel_launch_example: each csrc/<op>/dav-2201/ folder calls
    // `ascend_ops_add_current_op(...)` and its .asc registers torch operators; the parent builds a Python
    // module): neither the folder nor its parent gives a program to run, so say what the user can do.
    let torch = texts
        .iter()
        .find(|(_, t)| t.contains("TORCH_LIBRARY") || t.contains("#include <torch/"));
    if let (false, Some((f, _))) = (builds_program, torch) {
        return format!(
            "{}: builds no program: this is (part of) a PyTorch extension: {f} registers torch operators              (`TORCH_LIBRARY...`) and launches its kernel from one, and the project builds a Python module              for torch and torch_npu, which the twin does not run (nor does init in the parent project: it              builds no program either). To tune the kernel, put its `__global__ __aicore__` function in a              kernel-launch project whose main() fills the inputs, launches it with `<<<...>>>` and writes              the outputs (as asc-devkit's examples do), and run init there",
            file.display()
        );
    }
    if !builds_program {
        let made = words
            .windows(2)
            .find(|x| {
                let cmd = x[0].to_ascii_lowercase();
                x[1] == "(" && (cmd.starts_with("add_") || cmd.starts_with("ascend_"))
            })
            .map(|x| format!(" (it calls `{}(...)`)", x[0]))
            .unwrap_or_default();
        return format!(
            "{}: builds no program of its own{made}: no `add_executable`, so this folder is part of a library or a larger build; `init` takes a kernel-launch project whose CMakeLists.txt builds the program that runs the kernel (run init in that project's folder, or write `program = \"...\"` under [[op]] by hand)",
            file.display()
        );
    }
    format!(
        "{}: no `add_executable(NAME ...)` with a literal name; `init` takes the program a kernel-launch \
         project builds from there (write `program = \"...\"` under [[op]] by hand)",
        file.display()
    )
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if depth < 2
                && !matches!(
                    name,
                    "build" | "out" | "target" | "output" | "input" | "reference"
                )
                && !name.starts_with('.')
            {
                sources(&p, out, depth + 1);
            }
        } else if is_source(&p) {
            out.push(p);
        }
    }
}

/// A folder with no CMakeLists.txt whose one `.asc` program (a `main(` and a kernel entry) is at its top,
/// as the learning hub's light tutorials give their answers (`answer/02.05/sub_custom_template.asc`, built
/// with the chapter's CMakeLists.txt in the notebook): the program the file names, built alone
/// (`add_executable(<stem> <file>)` in a CMake project of its own, `CmakeFlow`). None when there is no
/// such file or there are several.
fn alone(root: &Path, texts: &[(String, String)]) -> Option<Result<Vec<FoundOp>, String>> {
    let programs: Vec<&(String, String)> = texts
        .iter()
        .filter(|(f, t)| f.ends_with(".asc") && !f.contains('/') && t.contains("main("))
        .collect();
    let [(file, _)] = programs.as_slice() else {
        return None;
    };
    let stem = file.trim_end_matches(".asc");
    let cmake = format!("add_executable({stem} {file})\n");
    let listed = vec![file.clone()];
    let mut op = match program_op(root, &cmake, texts, stem, &listed, &[], None)? {
        Ok(op) => op,
        Err(why) => return Some(Err(why)),
    };
    if let Some(l) = op.launch.as_mut() {
        l.alone = true;
    }
    op.notes.push(format!(
        "no CMakeLists.txt: `{file}` is built alone, as `add_executable({stem} {file})` in a CMake project of its own"
    ));
    Some(Ok(vec![op]))
}

/// The kernel-launch project at `root`, or `None` when `root` is not one (no `CMakeLists.txt` with
/// `add_executable`, or no kernel entry in its sources).
pub fn discover(root: &Path) -> Option<Result<Vec<FoundOp>, String>> {
    let mut files = vec![];
    sources(root, &mut files, 0);
    let texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| Some((rel(root, p), std::fs::read_to_string(p).ok()?)))
        .collect();
    let Ok(cmake) = std::fs::read_to_string(root.join("CMakeLists.txt")) else {
        return alone(root, &texts);
    };
    // The program add_executable names literally; else those it makes in a loop (the CANN samples'
    // performance stories: a program per stage), each an op of its own.
    let programs: Vec<(String, Vec<String>)> = match program_of(&cmake) {
        Some(p) => vec![(p, program_sources(&cmake))],
        None => super::cmake_loops::programs(root, &cmake_words(&cmake))
            .into_iter()
            .map(|p| {
                let sources = p
                    .sources
                    .into_iter()
                    .filter(|x| is_source(Path::new(x)))
                    .collect();
                (p.name, sources)
            })
            .collect(),
    };
    if programs.is_empty() {
        return Some(Err(no_program(root, &cmake, &texts)));
    }
    // after the program: a folder that builds none (a PyTorch extension's) is said so first
    let cmake_include = match part_of_a_larger_build(root, &cmake) {
        None => vec![],
        Some(Ok(files)) => files,
        Some(Err(why)) => return Some(Err(why)),
    };
    if let [(program, listed)] = programs.as_slice() {
        return program_op(root, &cmake, &texts, program, listed, &cmake_include, None)
            .map(|op| op.map(|op| vec![op]));
    }
    let mut ops = vec![];
    let mut refused = None;
    for (program, listed) in &programs {
        let several = Some(programs.len());
        match program_op(
            root,
            &cmake,
            &texts,
            program,
            listed,
            &cmake_include,
            several,
        ) {
            Some(Ok(op)) => ops.push(op),
            Some(Err(why)) => refused = refused.or(Some(why)),
            None => {}
        }
    }
    match (ops.is_empty(), refused) {
        (true, Some(why)) => Some(Err(why)),
        (true, None) => None,
        (false, _) => Some(Ok(ops)),
    }
}

/// The op of the program `program` (built from `listed`, or from the folder's sources when empty) that
/// the CMakeLists.txt of `root` makes; `several`: how many programs it makes when more than one (the
/// op is then named after its program, since the stages of a story share their kernel's name). None
/// when its sources hold no kernel entry.
fn program_op(
    root: &Path,
    cmake: &str,
    texts: &[(String, String)],
    program: &str,
    listed: &[String],
    cmake_include: &[String],
    several: Option<usize>,
) -> Option<Result<FoundOp, String>> {
    // Other programs beside the one built are left out: an example folder may hold several (ops-nn's
    // apply_adam_d/examples: an aclnn and a graph-mode test beside the kernel-direct .asc that
    // CMakeLists.txt builds, the graph test naming `.bin` files the program never reads or writes). A
    // source with a `main(` that the program's `add_executable` does not list is another program's;
    // kernels and helpers (built into a library the program links, as the CANN samples do) stay.
    let knows_its_main = texts
        .iter()
        .any(|(f, t)| listed.contains(f) && t.contains("main("));
    let built: Vec<&(String, String)> = texts
        .iter()
        .filter(|(f, t)| !knows_its_main || listed.contains(f) || !t.contains("main("))
        .collect();
    let mut kernel = vec![];
    let mut entries = vec![];
    let mut host = vec![];
    for (f, t) in built.iter().copied() {
        let found = kernel_entries(t);
        if found.is_empty() {
            if t.contains("main(") {
                host.push(f.clone());
            }
        } else {
            kernel.push(f.clone());
            entries.extend(found);
        }
    }
    // what the twin refuses: in any source of the folder for its one program; of one of several
    // programs, in the sources that program builds
    let checked: Vec<(String, String)> = match several {
        None => texts.to_vec(),
        Some(_) => built.iter().map(|&x| x.clone()).collect(),
    };
    let refused = |why: String| {
        let what = match several {
            None => "this program".to_string(),
            Some(_) => format!("the program `{program}`"),
        };
        format!("{}: the twin cannot run {what}: {why}", root.display())
    };
    let Some(entry) = entries.first() else {
        // A program the twin refuses is said so even when init reads no kernel entry in it (SIMT
        // kernels written `__global__ __launch_bounds__(N) void k(...)`), not left as "no project".
        return refusal(cmake, &checked).map(|why| Err(refused(why)));
    };
    if let Some(why) = refusal(cmake, &checked) {
        return Some(Err(refused(why)));
    }
    let mut notes = vec![];
    let made_of = program_texts(root, &built);
    let runs_own = runs_its_own_gen_data(&made_of);
    let (prepare, verify) = match &runs_own {
        // the program makes its data itself (cann-samples' stories call gen_data.py from main()):
        // a prepare step would run the script again, without the arguments the program gives it
        Some(_) => (None, None),
        None => data_flow(root),
    };
    if entries.len() > 1 {
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        notes.push(format!(
            "kernel entry `{}` taken, the first of {}",
            entry.name,
            names.join(", ")
        ));
    }
    // A program that names `....bin` files (the CANN samples read `input/*.bin`) is given its inputs as files (the CANN samples' flow);
    // one that makes its own data and checks it (the asc-devkit examples) is given none.
    let reads_files = built.iter().any(|(_, t)| t.contains(".bin\""));
    let params: Vec<String> = if prepare.is_some() {
        notes.push(match &verify {
            Some(v) => format!(
                "no tensors: the program's data comes from its own `{}` and is checked by `{}` in each run folder",
                shown(prepare.as_deref().unwrap_or_default()),
                shown(v)
            ),
            None => format!(
                "no tensors: the program's data comes from its own `{}`, and it has no verify_result.py, so nothing of its results is verified",
                shown(prepare.as_deref().unwrap_or_default())
            ),
        });
        vec![]
    } else if let Some(file) = &runs_own {
        notes.push(format!(
            "no tensors: the program makes its own data (its {file} runs gen_data.py) and checks it (nothing of its results is verified by the tool)"
        ));
        vec![]
    } else if reads_files {
        entry.params.clone()
    } else {
        notes.push(
            "no tensors: the program makes its own data and checks it (nothing of its results is verified by the tool)"
                .into(),
        );
        vec![]
    };
    let side = |names: &[String]| -> Vec<(String, String)> {
        texts
            .iter()
            .filter(|(f, _)| names.contains(f))
            .cloned()
            .collect()
    };
    let found = super::op_tunables(root, &side(&host), &side(&kernel));
    let mut srcs: Vec<PathBuf> = kernel.iter().chain(&host).map(|f| root.join(f)).collect();
    srcs.dedup();
    let (include, include_as) = super::registered::include_layout(root, &srcs);
    let name = match several {
        None => entry.name.clone(),
        Some(_) => op_name_of(root, program),
    };
    // the `.bin` files the program's own calls name, with their sizes where the calls give them
    let named = |call: &str| -> (Vec<String>, Vec<Option<BinSize>>) {
        if !reads_files {
            return (vec![], vec![]);
        }
        built.iter().flat_map(|(_, t)| bin_calls(t, call)).unzip()
    };
    let ((reads, read_sizes), (writes, write_sizes)) = (named("ReadFile"), named("WriteFile"));
    let (files, sizes) = ((reads, writes), (read_sizes, write_sizes));
    Some(Ok(FoundOp {
        name,
        op_type: None,
        host,
        kernel,
        params,
        inputs: vec![],
        outputs: vec![],
        tunables: found.offered,
        left_out: found.left_out,
        opdef: None,
        include,
        include_as,
        notes,
        launch: Some(Launch {
            program: program.to_string(),
            prepare,
            verify,
            targets_dav_3510: targets_dav_3510(cmake),
            cmake_include: cmake_include.to_vec(),
            starts_processes: starts_processes(&made_of),
            defines: required_defines(cmake),
            alone: false,
            files,
            sizes,
        }),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_comes_from_add_executable() {
        assert_eq!(
            program_of(
                "cmake_minimum_required(VERSION 3.16)\n# add_executable(no)\nadd_executable(demo\n    add.asc\n)\n"
            ),
            Some("demo".into())
        );
        assert_eq!(
            program_of(
                "project(kernels LANGUAGES ASC CXX)\nadd_executable(${PROJECT_NAME} a.asc)\n"
            ),
            Some("kernels".into())
        );
        assert_eq!(program_of("add_executable(${X} a.asc)"), None);
        assert_eq!(program_of("add_library(x a.cpp)"), None);
    }

    /// Found in the new-user run: ops-math's fast_kernel_launch_example kernels (a CMakeLists.txt
    /// with only `ascend_ops_add_current_op(...)`) and asc-devkit general_gather (dav-3510, its
    /// program made inside a CMake function) were both told "no add_executable with a literal name".
    /// Now the first says it builds no program of its own, the second (SIMT) that it is out of the
    /// twin's scope.
    #[test]
    fn a_folder_without_a_program_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("k.asc"),
            "extern \"C\" __global__ __aicore__ void k(GM_ADDR x) { }\n",
        )
        .unwrap();
        std::fs::write(
            root.join("CMakeLists.txt"),
            "ascend_ops_add_current_op(OP_TARGET)\ntarget_link_libraries(${OP_TARGET} PUBLIC platform)\n",
        )
        .unwrap();
        let e = discover(root).unwrap().unwrap_err();
        assert!(
            e.contains("builds no program of its own (it calls `ascend_ops_add_current_op(...)`)"),
            "{e}"
        );
        // The same folder whose source registers torch operators (fast_kernel_launch_example's sqrt):
        // a PyTorch extension, and the way out named.
        std::fs::write(
            root.join("k.asc"),
            "#include <torch/library.h>\nextern \"C\" __global__ __aicore__ void k(GM_ADDR x) { }\nTORCH_LIBRARY_FRAGMENT(ops, m) { }\n",
        )
        .unwrap();
        let e = discover(root).unwrap().unwrap_err();
        assert!(
            e.contains("PyTorch extension")
                && e.contains("k.asc")
                && e.contains("kernel-launch project"),
            "{e}"
        );
        std::fs::write(
            root.join("k.asc"),
            "extern \"C\" __global__ __aicore__ void k(GM_ADDR x) { }\n",
        )
        .unwrap();
        std::fs::write(
            root.join("CMakeLists.txt"),
            "set(CMAKE_ASC_ARCHITECTURES \"dav-3510\" CACHE STRING \"arch\")\nfunction(f T S)\n add_executable(${T} ${S})\nendfunction()\nf(demo k.asc)\n",
        )
        .unwrap();
        // dav-3510 itself is in the twin's scope (Reg programs), and a program a function makes is
        // found by calling it; a SIMT program is not.
        let ops = discover(root).unwrap().unwrap();
        assert_eq!(ops[0].launch.as_ref().unwrap().program, "demo");
        std::fs::write(
            root.join("k.asc"),
            "__simt_vf__ void g(int *x) { }\nextern \"C\" __global__ __aicore__ void k(GM_ADDR x) { }\n",
        )
        .unwrap();
        let e = discover(root).unwrap().unwrap_err();
        assert!(
            e.contains("the twin cannot run this program") && e.contains("SIMT"),
            "{e}"
        );
        std::fs::write(
            root.join("k.asc"),
            "extern \"C\" __global__ __aicore__ void k(GM_ADDR x) { }\n",
        )
        .unwrap();
        std::fs::write(
            root.join("CMakeLists.txt"),
            "add_executable(${NAME} k.asc)\n",
        )
        .unwrap();
        let e = discover(root).unwrap().unwrap_err();
        assert!(e.contains("with a literal name"), "{e}");
    }

    /// A folder making a program per stage in a loop gives an op per stage, named after its program,
    /// each with its own source; what a stage's host code does (start processes, run gen_data.py) is
    /// read from that stage's sources and the folder's headers, not from another stage's (rms_norm_quant
    /// stage 3 was said to start processes because stage 0's source did).
    #[test]
    fn a_loop_of_stages_gives_an_op_each_with_its_own_evidence() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("story");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("CMakeLists.txt"),
            "project(s LANGUAGES ASC CXX)\nset(CPP_FILES src/0_a.asc src/1_b.asc)\nforeach(F ${CPP_FILES})\n\
             get_filename_component(T ${F} NAME_WE)\n set(T \"st_${T}\")\n add_executable(${T} ${F})\nendforeach()\n",
        )
        .unwrap();
        let kernel = "extern \"C\" __global__ __aicore__ void k(GM_ADDR x) { }\n";
        std::fs::write(
            root.join("src/0_a.asc"),
            format!("{kernel}int main() {{ return system(\"python3 gen_data.py\"); }}\n"),
        )
        .unwrap();
        std::fs::write(
            root.join("src/1_b.asc"),
            format!("{kernel}int main() {{ return 0; }}\n"),
        )
        .unwrap();
        let ops = discover(&root).unwrap().unwrap();
        let names: Vec<&str> = ops.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["st_0_a", "st_1_b"]);
        assert_eq!(ops[0].kernel, ["src/0_a.asc"]);
        assert_eq!(ops[1].kernel, ["src/1_b.asc"]);
        let launch = |i: usize| ops[i].launch.clone().unwrap();
        assert_eq!(launch(0).program, "st_0_a");
        assert_eq!(
            launch(0).starts_processes.as_deref(),
            Some("src/0_a.asc calls system")
        );
        assert_eq!(launch(1).starts_processes, None);
    }

    /// Found on cann-samples' moe_init_routing_story, whose stage targets are `0_native`, ...: the
    /// manifest refused the op name. It takes the folder's name before it.
    #[test]
    fn a_program_name_that_is_no_identifier_gets_the_folder_before_it() {
        let root = Path::new("/s/moe_init_routing_story");
        assert_eq!(
            op_name_of(root, "0_native"),
            "moe_init_routing_story_0_native"
        );
        assert_eq!(op_name_of(root, "scale_0"), "scale_0");
        assert_eq!(op_name_of(Path::new("/s/2-story"), "1.x"), "op_2_story_1_x");
    }

    /// cann-samples' regbase stories run their gen_data.py with std::system from the program; under
    /// the candidate filter the call failed and the program stopped ("Generate data failed").
    #[test]
    fn process_starts_are_found_and_look_alikes_are_not() {
        assert_eq!(
            process_call("int r = std::system(cmd.c_str());"),
            Some("system")
        );
        assert_eq!(
            process_call("FILE *f = popen(\"ls\", \"r\");"),
            Some("popen")
        );
        assert_eq!(
            process_call("fs::create_directories(p); std::filesystem(x);"),
            None
        );
        assert_eq!(
            process_call("obj.system(1); my_system(2); // system(3)"),
            None
        );
    }

    #[test]
    fn the_bundled_asc_and_launch_projects_are_found() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let ops = discover(&fixtures.join("mul_asc")).unwrap().unwrap();
        assert_eq!(ops.len(), 1);
        assert_eq!(ops[0].name, "mul_custom");
        assert_eq!(ops[0].kernel, ["mul_custom.asc"]);
        assert_eq!(
            ops[0].launch,
            Some(Launch {
                program: "mul_custom".into(),
                prepare: None,
                verify: None,
                targets_dav_3510: false,
                cmake_include: vec![],
                starts_processes: None,
                defines: vec![],
                alone: false,
                files: (vec![], vec![]),
                sizes: (vec![], vec![]),
            })
        );
        let ops = discover(&fixtures.join("add_launch")).unwrap().unwrap();
        assert_eq!(ops[0].name, "add_custom");
        assert_eq!(ops[0].kernel, ["add_custom.cpp"]);
        assert_eq!(ops[0].host, ["main.cpp"]);
        assert_eq!(
            ops[0].launch,
            Some(Launch {
                program: "ascendc_kernels_bbit".into(),
                prepare: None,
                verify: None,
                targets_dav_3510: false,
                cmake_include: vec![],
                starts_processes: None,
                defines: vec![],
                alone: false,
                // its inputs are read through a helper of its own; its output by WriteFile
                files: (vec![], vec!["output/output_z.bin".into()]),
                // `length * sizeof(uint16_t)` bytes: uint16_t gives no element type
                sizes: (vec![], vec![None]),
            })
        );
        assert_eq!(ops[0].params[..3], ["x", "y", "z"]);
    }

    /// hicann/cann-learning-hub's tutorial answers read `./input/src0.bin` and write
    /// `./output/output.bin`: the manifest's default files were never there.
    #[test]
    fn the_files_a_program_reads_and_writes_are_its_literal_bin_paths() {
        let text = "int main() {\n  ReadFile(\"./input/src0.bin\", n, x, n);\n  // ReadFile(\"./input/old.bin\", n, x, n);\n  MyReadFile(\"./input/no.bin\");\n  ReadFile(srcFile, n, y, n);\n  ReadFile(\"./input/src1.bin\", n, y, n); WriteFile(\"output/output.bin\", z, n);\n}\n";
        assert_eq!(
            bin_files(text, "ReadFile"),
            ["input/src0.bin", "input/src1.bin"]
        );
        assert_eq!(bin_files(text, "WriteFile"), ["output/output.bin"]);
    }

    /// cann-learning-hub's tutorial answer 02.05 reads and writes 33 x 31 floats (`uint32_t inputNum
    /// = 33 * 31; size_t dataSize = inputNum * sizeof(float);`): init had given its tensors the default
    /// [48, 16384] float16, and the program wrote 4092 bytes where the manifest wanted 1572864. What
    /// each file holds comes from the size its call moves: a count of one element type, over the
    /// file's constants and the function's locals declared before the call; uint16_t (half, as often
    /// as not), a sum, a local assigned again or a size from elsewhere give none.
    #[test]
    fn the_size_a_program_reads_and_writes_is_a_count_of_one_element_type() {
        let text = "constexpr uint32_t ROWS = 8;
            int main() {
              uint32_t inputNum = 33 * 31;
              size_t dataSize = inputNum * sizeof(float);
              size_t halfSize = static_cast<size_t>(ROWS) * 16 * sizeof(half);
              size_t raw = ROWS * sizeof(uint16_t);
              size_t both = dataSize + halfSize;
              size_t grown = dataSize; grown *= 2;
              ReadFile(\"./input/src0.bin\", dataSize, x, dataSize);
              ReadFile(\"./input/src1.bin\", halfSize, y, halfSize);
              ReadFile(\"./input/src2.bin\", raw, y, raw);
              ReadFile(srcFile, dataSize, y, dataSize);
              ReadFile(\"./input/src3.bin\", both, y, both);
              ReadFile(\"./input/src4.bin\", grown, y, grown);
              ReadFile(\"./input/src5.bin\", GetSize(), y, 4);
              WriteFile(\"./output/output.bin\", z, inputNum * sizeof(int32_t));
            }
";
        let sized = |elements: u64, dtype: crate::manifest::DType, written: &str| {
            Some(BinSize {
                elements,
                dtype,
                written: written.into(),
            })
        };
        use crate::manifest::DType;
        let bin_sizes = |text: &str, call: &str| -> Vec<Option<BinSize>> {
            bin_calls(text, call).into_iter().map(|(_, s)| s).collect()
        };
        assert_eq!(
            bin_sizes(text, "ReadFile"),
            vec![
                sized(1023, DType::Float32, "dataSize"),
                sized(128, DType::Float16, "halfSize"),
                None,
                None,
                None,
                None
            ]
        );
        assert_eq!(bin_files(text, "ReadFile").len(), 6);
        assert_eq!(
            bin_sizes(text, "WriteFile"),
            vec![sized(1023, DType::Int32, "inputNum * sizeof(int32_t)")]
        );
    }

    /// Found in the new-user run: 23 asc-devkit examples (cast, compare, data_relayout, ...) stop at
    /// configure with "SCENARIO_NUM is not set. Please specify -DSCENARIO_NUM=1/2".
    #[test]
    fn definitions_a_cmakelists_stops_without_are_found_with_their_first_value() {
        let cmake = "add_executable(demo cast.asc)\n\
            if(NOT DEFINED SCENARIO_NUM)\n\
            \x20   message(FATAL_ERROR \"SCENARIO_NUM is not set. Please specify -DSCENARIO_NUM=1/2\")\n\
            endif()\n\
            if(NOT SCENARIO_NUM EQUAL 1 AND NOT SCENARIO_NUM EQUAL 2 )\n\
            \x20   message(FATAL_ERROR \"SCENARIO_NUM must be 1 or 2, got: ${SCENARIO_NUM}\")\n\
            endif()\n";
        assert_eq!(required_defines(cmake), ["SCENARIO_NUM=1"]);
        let ranged = "if(NOT DEFINED SCENARIO_NUM)\n  message(FATAL_ERROR \"SCENARIO_NUM is not defined. Please specify it via: cmake -DSCENARIO_NUM=<1-8> ..\")\nendif()\n";
        assert_eq!(required_defines(ranged), ["SCENARIO_NUM=1"]);
        // A definition with a default, or a check that only warns, is not required.
        let optional = "if(NOT DEFINED MODE)\n  set(MODE 2)\nendif()\nif(NOT DEFINED X)\n  message(WARNING \"-DX=3\")\nendif()\n";
        assert!(required_defines(optional).is_empty());
        let commented = cmake.replace("if(NOT DEFINED", "# if(NOT DEFINED");
        assert!(required_defines(&commented).is_empty());
    }

    #[test]
    fn simt_and_c_api_programs_are_refused_and_dav_2201_and_reg_api_dav_3510_ones_are_not() {
        let ok = "set(CMAKE_ASC_ARCHITECTURES \"dav-2201\" CACHE STRING \"dav-2201, dav-3510\")\nadd_executable(demo a.asc)\n";
        let src = vec![(
            "a.asc".to_string(),
            "#include \"kernel_operator.h\"\n".to_string(),
        )];
        assert_eq!(refusal(ok, &src), None);
        assert!(!targets_dav_3510(ok));
        let simt =
            format!("{ok}target_compile_options(demo PRIVATE --npu-arch=dav-2201 --enable-simt)\n");
        assert!(refusal(&simt, &src).unwrap().contains("SIMT"));
        let vf = vec![("h.asc".to_string(), "__simt_vf__ void f() {}\n".to_string())];
        assert!(refusal(ok, &vf).unwrap().starts_with("h.asc holds SIMT"));
        // A dav-3510 program of Reg vector functions is taken (and known to target dav-3510) ...
        let a5 = ok.replace("\"dav-2201\" CACHE", "\"dav-3510\" CACHE");
        let reg = vec![(
            "a.asc".to_string(),
            "#include \"kernel_operator.h\"\n__simd_vf__ inline void F(__ubuf__ float* x) {\n  \
             AscendC::Reg::RegTensor<float> r;\n  AscendC::Reg::LoadAlign(r, x);\n}\n\
             void k() { asc_vf_call<F>(x); }\n"
                .to_string(),
        )];
        assert_eq!(refusal(&a5, &reg), None);
        assert!(targets_dav_3510(&a5));
        // ... one with SIMT functions still is not.
        let a5_simt = vec![
            reg[0].clone(),
            ("s.asc".to_string(), "__simt_vf__ void g() {}\n".to_string()),
        ];
        assert!(refusal(&a5, &a5_simt).unwrap().contains("SIMT"));
        // A comment naming the other architecture is not a target.
        let commented = format!("# set(CMAKE_ASC_ARCHITECTURES \"dav-3510\")\n{ok}");
        assert!(!targets_dav_3510(&commented));
        // The C API is taken, but for its cube functions and non-default L2 cache modes.
        let c_api = |body: &str| {
            vec![(
                "a.asc".to_string(),
                format!("#include \"c_api/asc_simd.h\"\n{body}\n"),
            )]
        };
        assert_eq!(
            refusal(&a5, &c_api("asc_loadalign(r, x); asc_add(d, r, r, m);")),
            None
        );
        assert!(
            refusal(ok, &c_api("asc_mmad(c, a, b, m, k, n);"))
                .unwrap()
                .contains("a.asc uses the AscendC C API's cube matrix multiply (`asc_mmad`)")
        );
        let l2 = "asc_copy_gm2ub_align(x, g, 1, n, 0, 0, true, asc_load_l2_cache_mode::NORMAL_FIRST_VICTIM, 0, 0);";
        assert_eq!(refusal(ok, &c_api(l2)), None);
        // Found in the new-user run (asc-devkit 00_set_l2_cache_mode): the twin's C API has every L2
        // cache mode the docs define, so a program naming NOTALLOC_KEEP is run, not refused.
        assert_eq!(
            refusal(
                ok,
                &c_api(&l2.replace("NORMAL_FIRST_VICTIM", "NOTALLOC_KEEP"))
            ),
            None
        );
    }

    /// Found in the new-user run (asc-devkit grid_dim_config, matrix_transpose_practice): a SIMT program
    /// for dav-3510 whose kernels init reads no entry in was reported as "no custom-op folder"; it is
    /// refused as out of the twin's scope, as the SIMT programs with readable entries are. A folder
    /// with neither an entry nor a reason to refuse is still not a kernel-launch project.
    #[test]
    fn a_refused_program_without_readable_entries_is_refused_not_missed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("CMakeLists.txt"),
            "set(CMAKE_ASC_ARCHITECTURES \"dav-3510\" CACHE STRING \"arch\")\nadd_executable(grid\n    grid.asc\n)\ntarget_compile_options(grid PRIVATE $<$<COMPILE_LANGUAGE:ASC>:--npu-arch=${CMAKE_ASC_ARCHITECTURES} --enable-simt>)\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("grid.asc"),
            "__global__ __launch_bounds__(1024) void k(float *x) {}\nint main() { return 0; }\n",
        )
        .unwrap();
        let e = discover(dir.path()).unwrap().unwrap_err();
        assert!(
            e.contains("the twin cannot run this program") && e.contains("SIMT"),
            "{e}"
        );
        std::fs::write(
            dir.path().join("CMakeLists.txt"),
            "add_executable(grid grid.asc)\n",
        )
        .unwrap();
        assert!(discover(dir.path()).is_none());
    }

    /// Found in the new-user run (ops-nn apply_adam_d/examples): the kernel-direct program makes its
    /// own data, checks it and writes no file, but a graph-mode test beside it (another program, with
    /// its own `main`, not in the CMakeLists' `add_executable`) names `.bin` files, so init declared
    /// the kernel's outputs as files and `run` failed on the first one missing. Only the built
    /// program's sources count: no tensors, and the other programs are not host sources.
    #[test]
    fn other_programs_beside_the_built_one_are_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("CMakeLists.txt"),
            "add_executable(direct ${CMAKE_CURRENT_SOURCE_DIR}/direct.asc)\n",
        )
        .unwrap();
        std::fs::write(
            root.join("direct.asc"),
            "__global__ __aicore__ void adam(GM_ADDR var, GM_ADDR out) {}\nint main() { adam<<<1, nullptr, nullptr>>>(a, b); return 0; }\n",
        )
        .unwrap();
        std::fs::write(
            root.join("test_graph.cpp"),
            "int main() { std::string f = \"./out_\" + std::to_string(0) + \".bin\"; return 0; }\n",
        )
        .unwrap();
        assert_eq!(
            program_sources("add_executable(direct ${CMAKE_CURRENT_SOURCE_DIR}/direct.asc)"),
            ["direct.asc"]
        );
        assert_eq!(
            program_sources("add_executable(${PROJECT_NAME} ${SRCS})"),
            Vec::<String>::new()
        );
        let ops = discover(root).unwrap().unwrap();
        assert_eq!(ops[0].name, "adam");
        assert!(ops[0].params.is_empty(), "{:?}", ops[0].params);
        assert!(ops[0].host.is_empty(), "{:?}", ops[0].host);
        assert!(
            ops[0]
                .notes
                .iter()
                .any(|n| n.contains("the program makes its own data")),
            "{:?}",
            ops[0].notes
        );
        // The built program itself reading `.bin` files: its tensors are files, as before.
        std::fs::write(
            root.join("direct.asc"),
            "__global__ __aicore__ void adam(GM_ADDR var, GM_ADDR out) {}\nint main() { ReadFile(\"./input/var.bin\", n, p, n); adam<<<1, nullptr, nullptr>>>(a, b); return 0; }\n",
        )
        .unwrap();
        let ops = discover(root).unwrap().unwrap();
        assert_eq!(ops[0].params, ["var", "out"]);
    }

    #[test]
    fn the_data_flow_takes_the_readme_verify_arguments_or_the_usual_ones() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(data_flow(root), (None, None));
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/gen_data.py"), "").unwrap();
        let (p, v) = data_flow(root);
        assert_eq!(
            p.unwrap(),
            [["python3", "scripts/gen_data.py"]],
            "gen_data alone"
        );
        assert_eq!(v, None);
        std::fs::write(root.join("scripts/verify_result.py"), "").unwrap();
        let (p, v) = data_flow(root);
        assert_eq!(p.unwrap(), [["python3", "scripts/gen_data.py"]]);
        assert_eq!(
            v.unwrap(),
            [[
                "python3",
                "scripts/verify_result.py",
                "output/output.bin",
                "output/golden.bin"
            ]]
        );
        std::fs::write(
            root.join("README.md"),
            "```bash\n  python3 ../scripts/verify_result.py -scenarioNum=$N output/output.bin output/golden.bin\n  python3 ../scripts/verify_result.py ./output/o.bin ./output/g.bin  # compare\n```\n",
        )
        .unwrap();
        let (_, v) = data_flow(root);
        assert_eq!(
            v.unwrap(),
            [[
                "python3",
                "scripts/verify_result.py",
                "./output/o.bin",
                "./output/g.bin"
            ]]
        );
    }

    /// hicann/cann-samples: a sample's CMakeLists.txt calls the repository's `cann_sample_check_arch`
    /// and has no project(); the build failed at run with CMake's "Unknown CMake command". init finds
    /// the CMake file of the larger build that defines it (to include in a wrapper), and says which
    /// command none defines when one is missing; a stand-alone CMakeLists.txt is left alone.
    #[test]
    fn a_cmakelists_of_a_larger_build_gets_the_files_defining_what_it_calls() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path();
        let sample = repo.join("Samples/0_Intro/vector_add");
        std::fs::create_dir_all(&sample).unwrap();
        std::fs::create_dir_all(repo.join("cmake")).unwrap();
        std::fs::write(
            repo.join("CMakeLists.txt"),
            "cmake_minimum_required(VERSION 3.16)\nproject(samples LANGUAGES C CXX ASC)\ninclude(cmake/sample_common.cmake)\nadd_subdirectory(Samples)\n",
        )
        .unwrap();
        std::fs::write(
            repo.join("cmake/sample_common.cmake"),
            "macro(cann_sample_check_arch)\n  set(_a ${ARGN})\nendmacro()\n",
        )
        .unwrap();
        let sub = "cann_sample_check_arch(dav-2201 dav-3510)\nfunction(helper X)\nendfunction()\nhelper(1)\nadd_executable(vector_add main.asc)\n";
        assert_eq!(
            part_of_a_larger_build(&sample, sub),
            Some(Ok(vec!["../../../cmake/sample_common.cmake".to_string()]))
        );
        let why = part_of_a_larger_build(&sample, &format!("{sub}other_macro(1)\n"))
            .unwrap()
            .unwrap_err();
        assert!(why.contains("has no project() of its own"), "{why}");
        assert!(
            why.contains("calls `other_macro`, which no CMake file"),
            "{why}"
        );
        let alone = format!("project(vector_add LANGUAGES C CXX ASC)\n{sub}");
        assert_eq!(part_of_a_larger_build(&sample, &alone), None);
        // no build above: nothing to say (the CMakeLists.txt may still configure)
        let lone = tempfile::tempdir().unwrap();
        assert_eq!(part_of_a_larger_build(lone.path(), sub), None);
        // a larger build's check naming dav-3510 alone targets Ascend950
        assert!(targets_dav_3510(
            "cann_sample_check_arch(dav-3510)\nadd_executable(a a.asc)\n"
        ));
        assert!(!targets_dav_3510(sub));
    }

    /// cann-learning-hub's sigmoid tutorial: its run.sh makes three cases' data and checks each; the
    /// bare gen_data.py made a scalar the program then read three shapes from (a GM write out of
    /// bounds). Every call run.sh makes is taken, in order; a call needing a shell is not.
    #[test]
    fn the_data_flow_takes_every_call_a_run_sh_makes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("scripts")).unwrap();
        std::fs::write(root.join("scripts/gen_data.py"), "").unwrap();
        std::fs::write(root.join("scripts/verify_result.py"), "").unwrap();
        std::fs::write(
            root.join("run.sh"),
            "mkdir -p build && cd build\ncmake .. && make -j\npython3 ../scripts/gen_data.py --shape 7 83 --case-num 0 --dtype float\npython3 ../scripts/gen_data.py --shape 1024 1024 --case-num 1 --dtype float16\n./demo\npython3 ../scripts/verify_result.py output/output_case0.bin output/golden_case0.bin float\npython3 ../scripts/verify_result.py output/output_case1.bin output/golden_case1.bin float16\npython3 ../scripts/verify_result.py $OUT $GOLDEN\n",
        )
        .unwrap();
        let (p, v) = data_flow(root);
        let p = p.unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(
            p[1],
            [
                "python3",
                "scripts/gen_data.py",
                "--shape",
                "1024",
                "1024",
                "--case-num",
                "1",
                "--dtype",
                "float16"
            ]
        );
        let v = v.unwrap();
        assert_eq!(v.len(), 2, "{v:?}");
        assert_eq!(v[0][2], "output/output_case0.bin");
        assert_eq!(
            shown(&v),
            "python3 scripts/verify_result.py output/output_case0.bin output/golden_case0.bin float; python3 scripts/verify_result.py output/output_case1.bin output/golden_case1.bin float16"
        );
    }
}
