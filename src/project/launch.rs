//! Kernel-launch projects and CANN 9 `.asc` programs as `init` finds them: a folder whose
//! `CMakeLists.txt` builds a program (`add_executable`) from sources holding kernel entries (a `.asc`
//! single-source file, or a kernel `.cpp` beside a host `main.cpp`). Finds the program's name, the
//! kernel files and entries, the host files, and whether the program reads its inputs from files
//! (CANN samples' `input/*.bin`) or makes and checks its own data. Knows nothing of manifests'
//! rendering, of tunable choice (it asks `tunables_in`) or of building.

use super::{FoundOp, kernel_entries, rel};
use std::path::{Path, PathBuf};

/// What makes a found op a kernel-launch one.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    /// The executable the project's CMake builds.
    pub program: String,
}

/// The CMake words of `text`, comments dropped: `add_executable(demo add.asc)` gives
/// `add_executable`, `(`, `demo`, `add.asc`, `)`.
fn cmake_words(text: &str) -> Vec<String> {
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
        } else if p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| matches!(e, "asc" | "cpp" | "cc" | "cxx"))
        {
            out.push(p);
        }
    }
}

/// The kernel-launch project at `root`, or `None` when `root` is not one (no `CMakeLists.txt` with
/// `add_executable`, or no kernel entry in its sources).
pub fn discover(root: &Path) -> Option<Result<Vec<FoundOp>, String>> {
    let cmake = std::fs::read_to_string(root.join("CMakeLists.txt")).ok()?;
    let Some(program) = program_of(&cmake) else {
        return Some(Err(format!(
            "{}: no `add_executable(NAME ...)` with a literal name; `init` takes the program a kernel-launch \
             project builds from there (write `program = \"...\"` under [[op]] by hand)",
            root.join("CMakeLists.txt").display()
        )));
    };
    let mut files = vec![];
    sources(root, &mut files, 0);
    let texts: Vec<(String, String)> = files
        .iter()
        .filter_map(|p| Some((rel(root, p), std::fs::read_to_string(p).ok()?)))
        .collect();
    let mut kernel = vec![];
    let mut entries = vec![];
    let mut host = vec![];
    for (f, t) in &texts {
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
    let entry = entries.first()?;
    let mut notes = vec![];
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
    let reads_files = texts.iter().any(|(_, t)| t.contains(".bin\""));
    let params: Vec<String> = if reads_files {
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
    Some(Ok(vec![FoundOp {
        name: entry.name.clone(),
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
        launch: Some(Launch { program }),
    }]))
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
                program: "mul_custom".into()
            })
        );
        let ops = discover(&fixtures.join("add_launch")).unwrap().unwrap();
        assert_eq!(ops[0].name, "add_custom");
        assert_eq!(ops[0].kernel, ["add_custom.cpp"]);
        assert_eq!(ops[0].host, ["main.cpp"]);
        assert_eq!(
            ops[0].launch,
            Some(Launch {
                program: "ascendc_kernels_bbit".into()
            })
        );
        assert_eq!(ops[0].params[..3], ["x", "y", "z"]);
    }
}
