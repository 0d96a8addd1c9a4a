//! The programs a CMakeLists.txt makes in loops and functions, as CMake would make them:
//! hicann/cann-samples build each stage of a performance story (`src/0_naive.asc`,
//! `src/1_preload_gamma.asc`, ...) with one `add_executable(${TARGET_NAME} ${CPP_FILE})` inside a
//! `foreach` over a `set(...)` list or a `file(GLOB ...)`, the name made by
//! `get_filename_component(... NAME_WE)` and `set(...)`, sometimes in a function called once per case
//! folder (simd_vf_story). Evaluates that subset of CMake (set with PARENT_SCOPE, list(APPEND),
//! file(GLOB), get_filename_component, string(REPLACE), foreach, function and macro calls) over the
//! file's commands; `if` is not evaluated (both branches' programs are listed). Knows nothing of
//! kernels, manifests or building.

use std::collections::HashMap;
use std::path::Path;

/// A program the CMakeLists.txt makes: its target name and its source files, relative to the folder.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    pub name: String,
    pub sources: Vec<String>,
}

#[derive(Clone)]
struct Command {
    name: String,
    args: Vec<String>,
}

/// The commands of `words` (as `launch::cmake_words` gives them): a name, `(`, its arguments, `)`;
/// parentheses nested inside the arguments are kept as words.
fn commands(words: &[String]) -> Vec<Command> {
    let mut out = vec![];
    let mut i = 0;
    while i + 1 < words.len() {
        if words[i + 1] != "(" {
            i += 1;
            continue;
        }
        let name = words[i].to_ascii_lowercase();
        let mut depth = 0usize;
        let mut args = vec![];
        let mut j = i + 2;
        while j < words.len() {
            match words[j].as_str() {
                "(" => depth += 1,
                ")" if depth == 0 => break,
                ")" => depth -= 1,
                _ => {}
            }
            args.push(words[j].clone());
            j += 1;
        }
        out.push(Command { name, args });
        i = j + 1;
    }
    out
}

/// A function or macro the file defines: its parameters and body.
struct Defined {
    params: Vec<String>,
    body: Vec<Command>,
    is_macro: bool,
}

struct Eval<'a> {
    root: &'a Path,
    vars: HashMap<String, Vec<String>>,
    programs: Vec<Program>,
    defined: HashMap<String, Defined>,
    /// The calls being evaluated, innermost last: what each sets with PARENT_SCOPE.
    calls: Vec<Vec<(String, Vec<String>)>>,
}

impl Eval<'_> {
    /// `text` with every `${VAR}` the evaluation knows replaced (a list joined with `;`, as CMake
    /// does); one it does not know is left as it is, so a name holding it is refused.
    fn expand(&self, text: &str) -> String {
        let mut out = text.trim_matches('"').to_string();
        for _ in 0..4 {
            let mut changed = false;
            let mut next = String::new();
            let mut rest = out.as_str();
            while let Some(at) = rest.find("${") {
                let Some(len) = rest[at + 2..].find('}') else {
                    break;
                };
                let name = &rest[at + 2..at + 2 + len];
                next.push_str(&rest[..at]);
                let known = match name {
                    "CMAKE_CURRENT_SOURCE_DIR" | "CMAKE_CURRENT_LIST_DIR" => {
                        Some(self.root.display().to_string())
                    }
                    _ => self.vars.get(name).map(|v| v.join(";")),
                };
                match known {
                    Some(v) => {
                        next.push_str(&v);
                        changed = true;
                    }
                    None => next.push_str(&rest[at..at + 3 + len]),
                }
                rest = &rest[at + 3 + len..];
            }
            next.push_str(rest);
            out = next;
            if !changed {
                break;
            }
        }
        out
    }

    /// The arguments expanded, lists split on `;`, empty ones dropped.
    fn values(&self, args: &[String]) -> Vec<String> {
        args.iter()
            .flat_map(|a| {
                self.expand(a)
                    .split(';')
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|v| !v.is_empty())
            .collect()
    }

    /// A path as the folder sees it: relative to it when under it.
    fn relative(&self, path: &str) -> String {
        let root = self.root.display().to_string();
        path.strip_prefix(&format!("{root}/"))
            .unwrap_or(path)
            .trim_start_matches("./")
            .to_string()
    }

    /// `file(GLOB VAR [CONFIGURE_DEPENDS] [LIST_DIRECTORIES b] [RELATIVE dir] patterns...)`: the paths
    /// matching each pattern (`*` and `?` in any component; folders too unless LIST_DIRECTORIES is
    /// false, as CMake's GLOB), sorted, absolute unless RELATIVE.
    fn glob(&self, args: &[String]) -> Vec<String> {
        let mut relative_to: Option<String> = None;
        let mut dirs = true;
        let mut patterns = vec![];
        let mut it = args.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "CONFIGURE_DEPENDS" => {}
                "LIST_DIRECTORIES" => {
                    dirs = it.next().is_none_or(|b| !b.eq_ignore_ascii_case("false"));
                }
                "RELATIVE" => relative_to = it.next().map(|d| self.expand(d)),
                _ => patterns.push(self.expand(a)),
            }
        }
        let mut out = vec![];
        for p in patterns {
            let full = if Path::new(&p).is_absolute() {
                p.clone()
            } else {
                format!("{}/{p}", self.root.display())
            };
            // component by component from the root: a wildcard component lists the folder
            let mut found = vec![String::new()];
            for part in full.split('/').filter(|c| !c.is_empty()) {
                let mut next = vec![];
                for base in &found {
                    if !part.contains(['*', '?']) {
                        next.push(format!("{base}/{part}"));
                        continue;
                    }
                    let Ok(rd) = std::fs::read_dir(if base.is_empty() { "/" } else { base }) else {
                        continue;
                    };
                    let mut names: Vec<String> = rd
                        .flatten()
                        .filter_map(|e| e.file_name().to_str().map(str::to_string))
                        .filter(|n| wildcard(part, n))
                        .collect();
                    names.sort();
                    next.extend(names.into_iter().map(|n| format!("{base}/{n}")));
                }
                found = next;
            }
            found.retain(|f| {
                let p = Path::new(f);
                p.is_file() || (dirs && p.is_dir())
            });
            out.extend(found);
        }
        match relative_to {
            Some(base) => out
                .into_iter()
                .map(|p| {
                    p.strip_prefix(&format!("{base}/"))
                        .map(str::to_string)
                        .unwrap_or(p)
                })
                .collect(),
            None => out,
        }
    }

    /// A call of a function or macro the file defines: its parameters bound to the call's arguments
    /// (ARGV and ARGN too), its body evaluated; a function's variables are its own but for what it sets
    /// with PARENT_SCOPE. Calls nest at most 8 deep.
    fn call(&mut self, name: &str, args: &[String]) {
        if self.calls.len() >= 8 {
            return;
        }
        let Some(d) = self.defined.get(name) else {
            return;
        };
        let (params, body, is_macro) = (d.params.clone(), d.body.clone(), d.is_macro);
        let values = self.values(args);
        let saved = (!is_macro).then(|| self.vars.clone());
        for (k, p) in params.iter().enumerate() {
            self.vars
                .insert(p.clone(), values.get(k).cloned().into_iter().collect());
        }
        self.vars.insert("ARGV".into(), values.clone());
        self.vars.insert(
            "ARGN".into(),
            values.iter().skip(params.len()).cloned().collect(),
        );
        self.calls.push(vec![]);
        self.run(&body);
        let to_parent = self.calls.pop().unwrap_or_default();
        if let Some(saved) = saved {
            self.vars = saved;
        }
        for (var, value) in to_parent {
            self.vars.insert(var, value);
        }
    }

    fn run(&mut self, cmds: &[Command]) {
        let mut i = 0;
        while i < cmds.len() {
            let c = &cmds[i];
            match c.name.as_str() {
                "function" | "macro" => {
                    // kept, and entered where the file calls it
                    let end = if c.name == "function" {
                        "endfunction"
                    } else {
                        "endmacro"
                    };
                    let close = closing(cmds, i, &c.name, end);
                    if let Some((fname, params)) = c.args.split_first() {
                        self.defined.insert(
                            fname.to_ascii_lowercase(),
                            Defined {
                                params: params.to_vec(),
                                body: cmds[i + 1..close.min(cmds.len())].to_vec(),
                                is_macro: c.name == "macro",
                            },
                        );
                    }
                    i = close;
                }
                "foreach" => {
                    let end = closing(cmds, i, "foreach", "endforeach");
                    let body = &cmds[i + 1..end.min(cmds.len())];
                    if let Some((var, items)) = self.foreach_items(&c.args) {
                        for item in items {
                            self.vars.insert(var.clone(), vec![item]);
                            self.run(body);
                        }
                    }
                    i = end;
                }
                "set" if !c.args.is_empty() => {
                    let mut values = c.args[1..].to_vec();
                    let parent = values.last().is_some_and(|v| v == "PARENT_SCOPE");
                    if let Some(at) = values
                        .iter()
                        .position(|v| v == "CACHE" || v == "PARENT_SCOPE")
                    {
                        values.truncate(at);
                    }
                    let v = self.values(&values);
                    match self.calls.last_mut() {
                        // PARENT_SCOPE sets the caller's variable, not the function's own
                        Some(to_parent) if parent => to_parent.push((c.args[0].clone(), v)),
                        _ => {
                            self.vars.insert(c.args[0].clone(), v);
                        }
                    }
                }
                "list" if c.args.len() >= 2 && c.args[0] == "APPEND" => {
                    let v = self.values(&c.args[2..]);
                    self.vars.entry(c.args[1].clone()).or_default().extend(v);
                }
                "file"
                    if c.args.len() >= 2
                        && matches!(c.args[0].as_str(), "GLOB" | "GLOB_RECURSE") =>
                {
                    let v = self.glob(&c.args[2..]);
                    self.vars.insert(c.args[1].clone(), v);
                }
                // string(REPLACE <match> <replace> <out> <input>...)
                "string" if c.args.len() >= 4 && c.args[0] == "REPLACE" => {
                    let (from, to) = (self.expand(&c.args[1]), self.expand(&c.args[2]));
                    let input: String = c.args[4..].iter().map(|a| self.expand(a)).collect();
                    if !from.is_empty() {
                        self.vars
                            .insert(c.args[3].clone(), vec![input.replace(&from, &to)]);
                    }
                }
                "get_filename_component" if c.args.len() >= 3 => {
                    let path = self.expand(&c.args[1]);
                    let file = path.rsplit('/').next().unwrap_or(&path).to_string();
                    let v = match c.args[2].as_str() {
                        "NAME" => Some(file),
                        // NAME_WE: the name without its longest extension (from the first dot)
                        "NAME_WE" => Some(file.split('.').next().unwrap_or("").to_string()),
                        "NAME_WLE" => Some(
                            file.rsplit_once('.')
                                .map_or(file.clone(), |(stem, _)| stem.to_string()),
                        ),
                        "DIRECTORY" | "PATH" => Some(
                            path.rsplit_once('/')
                                .map_or(String::new(), |(d, _)| d.to_string()),
                        ),
                        _ => None,
                    };
                    if let Some(v) = v {
                        self.vars.insert(c.args[0].clone(), vec![v]);
                    }
                }
                "add_executable" if !c.args.is_empty() => {
                    let name = self.expand(&c.args[0]);
                    let flags = [
                        "WIN32",
                        "MACOSX_BUNDLE",
                        "EXCLUDE_FROM_ALL",
                        "IMPORTED",
                        "ALIAS",
                    ];
                    if !c.args[1..].iter().any(|a| a == "IMPORTED" || a == "ALIAS") {
                        let sources = self
                            .values(&c.args[1..])
                            .into_iter()
                            .filter(|s| !flags.contains(&s.as_str()))
                            .map(|s| self.relative(&s))
                            .collect();
                        if !self.programs.iter().any(|p| p.name == name) {
                            self.programs.push(Program { name, sources });
                        }
                    }
                }
                name if self.defined.contains_key(name) => {
                    let (name, args) = (name.to_string(), c.args.clone());
                    self.call(&name, &args);
                }
                _ => {}
            }
            i += 1;
        }
    }

    /// `foreach(X a b c)`, `foreach(X IN ITEMS a b)`, `foreach(X IN LISTS L [M])` (with ITEMS after
    /// LISTS too): the loop variable and its values. None for the RANGE and ZIP_LISTS forms.
    fn foreach_items(&self, args: &[String]) -> Option<(String, Vec<String>)> {
        let (var, rest) = args.split_first()?;
        if rest.first().is_some_and(|w| w == "RANGE") {
            return None;
        }
        if rest.first().is_some_and(|w| w == "IN") {
            let mut items = vec![];
            let mut mode = "";
            for w in &rest[1..] {
                match w.as_str() {
                    "LISTS" | "ITEMS" => mode = w.as_str(),
                    "ZIP_LISTS" => return None,
                    list if mode == "LISTS" => {
                        items.extend(self.vars.get(list).cloned().unwrap_or_default())
                    }
                    item => items.extend(self.values(&[item.to_string()])),
                }
            }
            return Some((var.clone(), items));
        }
        Some((var.clone(), self.values(rest)))
    }
}

/// The index of the command closing the block opened at `open` (`foreach` ... `endforeach`, nested
/// blocks of the same kind counted), or the end.
fn closing(cmds: &[Command], open: usize, opener: &str, closer: &str) -> usize {
    let mut depth = 0;
    for (k, c) in cmds.iter().enumerate().skip(open + 1) {
        if c.name == opener {
            depth += 1;
        } else if c.name == closer {
            if depth == 0 {
                return k;
            }
            depth -= 1;
        }
    }
    cmds.len()
}

/// `*` and `?` wildcards over one file name.
fn wildcard(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match (p.first(), n.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], n) || (!n.is_empty() && go(p, &n[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &n[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &n[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

/// The programs the CMakeLists.txt of the folder `root` makes, its text given as CMake words: every
/// `add_executable` reached (loops evaluated), in order, each with a name free of variables the
/// evaluation does not know. Empty when any program's name is left with such a variable: the caller
/// then says no literal name was found, rather than list some of the programs.
pub fn programs(root: &Path, words: &[String]) -> Vec<Program> {
    let cmds = commands(words);
    let mut e = Eval {
        root,
        vars: HashMap::new(),
        programs: vec![],
        defined: HashMap::new(),
        calls: vec![],
    };
    e.run(&cmds);
    if e.programs
        .iter()
        .any(|p| p.name.contains("${") || p.name.is_empty())
    {
        return vec![];
    }
    e.programs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        super::super::launch::cmake_words(text)
    }

    /// hicann/cann-samples' rms_norm_quant_story: a stage per source of a `set` list, named
    /// `rms_norm_quant_<stem>`.
    #[test]
    fn a_foreach_over_a_set_list_makes_one_program_per_item() {
        let text = "set(CPP_FILES\n    src/0_naive.asc\n    src/1_preload.asc\n)\nset(INSTALL_TARGETS \"\")\n\
                    foreach(CPP_FILE ${CPP_FILES})\n    get_filename_component(TARGET_NAME ${CPP_FILE} NAME_WE)\n\
                    set(TARGET_NAME \"rms_${TARGET_NAME}\")\n    add_executable(${TARGET_NAME} ${CPP_FILE})\n\
                    target_compile_options(${TARGET_NAME} PRIVATE \"$<$<COMPILE_LANGUAGE:ASC>:-O3>\")\n\
                    list(APPEND INSTALL_TARGETS ${TARGET_NAME})\nendforeach()\n";
        let p = programs(Path::new("/r"), &words(text));
        assert_eq!(
            p,
            [
                Program {
                    name: "rms_0_naive".into(),
                    sources: vec!["src/0_naive.asc".into()]
                },
                Program {
                    name: "rms_1_preload".into(),
                    sources: vec!["src/1_preload.asc".into()]
                }
            ]
        );
    }

    /// mem_bandwidth: a GLOB of the folder's `src/*.asc`, made relative again; a list of scenes
    /// whose name is the item itself.
    #[test]
    fn globs_and_plain_item_lists_are_evaluated() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        for f in ["bw_rw.asc", "bw_read.asc", "common.h"] {
            std::fs::write(dir.path().join("src").join(f), "").unwrap();
        }
        let text = "file(GLOB ASC_FILES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/src/*.asc)\n\
                    foreach(ASC_FILE ${ASC_FILES})\n get_filename_component(T ${ASC_FILE} NAME_WE)\n\
                    add_executable(${T} ${ASC_FILE})\nendforeach()\n";
        let p = programs(dir.path(), &words(text));
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["bw_read", "bw_rw"]);
        assert_eq!(p[0].sources, ["src/bw_read.asc"]);
        let text = "set(SCENES s1 s2)\nforeach(scene IN LISTS SCENES)\n add_executable(${scene} src/${scene}.asc)\nendforeach()\n";
        let p = programs(Path::new("/r"), &words(text));
        assert_eq!(p[1].sources, ["src/s2.asc"]);
    }

    /// kv_rms_norm_rope_cache_story: the stage's folder in the name, its `/` replaced.
    #[test]
    fn string_replace_is_evaluated() {
        let text = "set(CPP_FILES\n membase/full_load.asc\n regbase/full_load.asc\n)\nforeach(CPP_FILE ${CPP_FILES})\n\
                    get_filename_component(T ${CPP_FILE} NAME_WE)\n get_filename_component(D ${CPP_FILE} DIRECTORY)\n\
                    string(REPLACE \"/\" \"_\" DN ${D})\n set(T \"kv_${DN}_${T}\")\n add_executable(${T} ${CPP_FILE})\nendforeach()\n";
        let names: Vec<String> = programs(Path::new("/r"), &words(text))
            .into_iter()
            .map(|p| p.name)
            .collect();
        assert_eq!(names, ["kv_membase_full_load", "kv_regbase_full_load"]);
    }

    /// simd_vf_story: a function called once per case folder (a GLOB of `*/src` folders), each call
    /// globbing its case's sources; a function's own variables stay its own, PARENT_SCOPE reaches the
    /// caller.
    #[test]
    fn functions_are_called_with_their_arguments() {
        let dir = tempfile::tempdir().unwrap();
        for (case, files) in [
            ("elemwise", ["0_a.asc", "1_b.asc"]),
            ("reduce", ["0_c.asc", "x.h"]),
        ] {
            std::fs::create_dir_all(dir.path().join(case).join("src")).unwrap();
            for f in files {
                std::fs::write(dir.path().join(case).join("src").join(f), "").unwrap();
            }
        }
        let text = "function(add_case CASE_NAME)\n file(GLOB F CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${CASE_NAME}/src/*.asc)\n\
                    foreach(A ${F})\n  get_filename_component(S ${A} NAME_WE)\n  set(T \"story_${CASE_NAME}_${S}\")\n\
                    add_executable(${T} ${A})\n endforeach()\n set(SEEN ${CASE_NAME} PARENT_SCOPE)\n set(LOCAL x)\nendfunction()\n\
                    file(GLOB DIRS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*/src)\nforeach(D ${DIRS})\n\
                    if(IS_DIRECTORY ${D})\n get_filename_component(C ${D} DIRECTORY)\n get_filename_component(N ${C} NAME)\n\
                    add_case(${N})\n endif()\nendforeach()\nadd_executable(${SEEN}_${LOCAL} last.asc)\n";
        // LOCAL stayed the function's: the last program's name keeps an unknown variable, so nothing
        assert!(programs(dir.path(), &words(text)).is_empty());
        let text = text.replace("${SEEN}_${LOCAL}", "${SEEN}_last");
        let p = programs(dir.path(), &words(&text));
        let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "story_elemwise_0_a",
                "story_elemwise_1_b",
                "story_reduce_0_c",
                "reduce_last"
            ]
        );
        assert_eq!(p[1].sources, ["elemwise/src/1_b.asc"]);
        let text =
            "function(add_case N)\n add_executable(${N} ${N}.asc)\nendfunction()\nadd_case(a)\n";
        assert_eq!(
            programs(Path::new("/r"), &words(text))[0].sources,
            ["a.asc"]
        );
    }

    /// A name left with a variable the evaluation does not know lists nothing.
    #[test]
    fn unknown_names_give_nothing() {
        let text = "add_executable(lit a.asc)\nadd_executable(${OTHER} b.asc)\n";
        assert!(programs(Path::new("/r"), &words(text)).is_empty());
        assert_eq!(
            programs(Path::new("/r"), &words("add_executable(lit a.asc)\n"))[0].name,
            "lit"
        );
    }
}
