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
    let mut files: Vec<_> = walkdir(&root);
    files.sort();
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("twin_files.rs");
    let mut f = std::fs::File::create(&out).unwrap();
    writeln!(f, "pub static FILES: &[(&str, &[u8])] = &[").unwrap();
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        println!("cargo:rerun-if-changed={}", path.display());
        writeln!(
            f,
            "    ({rel:?}, include_bytes!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    writeln!(f, "];").unwrap();
    println!(
        "cargo:rustc-env=TWIN_TARGET={}",
        std::env::var("TARGET").unwrap()
    );
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
