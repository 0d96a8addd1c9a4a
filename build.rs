//! Embeds the C++ twin (`templates/twin/`) into the binary, so an installed `cargo ascend-tune` needs no
//! files beside it, and tells the twin builder which target triple `cc` should compile for.
use std::io::Write;
use std::path::Path;

fn main() {
    // The manifest folder as cargo gives it to this run, not as it was when this script was
    // compiled: a target folder copied from another checkout (a git worktree) keeps the compiled
    // script, and `env!` would embed that checkout's twin.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap();
    let root = Path::new(&manifest_dir).join("templates/twin");
    println!("cargo:rerun-if-changed=templates/twin");
    let mut entries: Vec<(String, String)> = walkdir(&root)
        .into_iter()
        .map(|path| {
            let rel = path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            println!("cargo:rerun-if-changed={}", path.display());
            let bytes = format!("include_bytes!({:?})", path.display().to_string());
            (rel, bytes)
        })
        .collect();
    let aliases = Path::new(&manifest_dir).join("templates/twin_aliases.txt");
    println!("cargo:rerun-if-changed={}", aliases.display());
    let have: std::collections::BTreeSet<String> = entries.iter().map(|(r, _)| r.clone()).collect();
    for (rel, text) in header_aliases(&std::fs::read_to_string(&aliases).unwrap()) {
        if !have.contains(&rel) {
            entries.push((rel, format!("{text:?}.as_bytes()")));
        }
    }
    entries.sort();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("twin_files.rs");
    let mut f = std::fs::File::create(&out).unwrap();
    writeln!(f, "pub static FILES: &[(&str, &[u8])] = &[").unwrap();
    for (rel, bytes) in entries {
        writeln!(f, "    ({rel:?}, {bytes}),").unwrap();
    }
    writeln!(f, "];").unwrap();
    println!(
        "cargo:rustc-env=TWIN_TARGET={}",
        std::env::var("TARGET").unwrap()
    );
    // The performance model's own sources, hashed: a modelled latency depends on them as much as on
    // the twin's, so the journal keys twin trials by this too (a changed model never serves an old
    // model's latency).
    let mut model = std::collections::hash_map::DefaultHasher::new();
    for dir in ["src/model", "src/backend/twin.rs"] {
        let root = Path::new(&manifest_dir).join(dir);
        println!("cargo:rerun-if-changed={}", root.display());
        let mut files = if root.is_dir() {
            walkdir(&root)
        } else {
            vec![root]
        };
        files.sort();
        for path in files {
            std::hash::Hash::hash(&path.strip_prefix(&manifest_dir).unwrap(), &mut model);
            std::hash::Hash::hash(&std::fs::read(&path).unwrap(), &mut model);
        }
    }
    println!(
        "cargo:rustc-env=MODEL_SOURCES_HASH={:016x}",
        std::hash::Hasher::finish(&model)
    );
}

/// The headers `templates/twin_aliases.txt` lists (`side path target` a line): each a file under
/// `include/<side>/` that includes the twin's `target`, relative to that side's include folder.
fn header_aliases(list: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    for (n, line) in list.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split_whitespace().collect();
        let [side, path, target] = f[..] else {
            panic!(
                "templates/twin_aliases.txt:{}: want `side path target`, got {line:?}",
                n + 1
            );
        };
        assert!(
            matches!(side, "kernel" | "host") && !path.starts_with('/') && !path.contains(".."),
            "templates/twin_aliases.txt:{}: side kernel or host, and a relative path without `..`",
            n + 1
        );
        let up = "../".repeat(path.matches('/').count());
        let text = format!(
            "// twin: {path} -- a public AscendC header path, answered by the twin's {target}\n\
             // (templates/twin_aliases.txt).\n#pragma once\n#include \"{up}{target}\"\n"
        );
        out.push((format!("include/{side}/{path}"), text));
    }
    out
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}
