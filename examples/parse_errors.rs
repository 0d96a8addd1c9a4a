//! How many C++ files tree-sitter-cpp parses with errors, read raw and read as the motifs read them
//! (`rewrite::cst::parse`, AscendC's qualifiers as blanks). Reproduces the figures of
//! benches/public_ops/tuning-results.md, "Stop 38":
//!
//!     cargo run --release --example parse_errors -- $(find ops-math ops-nn -path '*op_kernel*' -name '*.h' -o ...)
//!
//! With SHOW=1 it names each file that still has errors.

use ascend_tune::rewrite::cst;

fn errors(tree: &tree_sitter::Tree) -> usize {
    let mut n = 0;
    cst::visit(tree.root_node(), &mut |x| {
        if x.is_error() || x.is_missing() {
            n += 1
        }
    });
    n
}

fn main() {
    let (mut files, mut raw_errors, mut read_errors) = (0, 0, 0);
    let show = std::env::var_os("SHOW").is_some();
    for path in std::env::args().skip(1) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_cpp::LANGUAGE.into())
            .expect("the linked grammar");
        let raw = parser.parse(&text, None).expect("no timeout set");
        files += 1;
        if errors(&raw) > 0 {
            raw_errors += 1;
        }
        let read = errors(&cst::parse(&text));
        if read > 0 {
            read_errors += 1;
            if show {
                println!("{path}: {read} error node(s)");
            }
        }
    }
    println!(
        "{files} files: {raw_errors} parse with errors raw, {read_errors} as the motifs read them"
    );
}
