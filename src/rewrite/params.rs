//! Applying a point of the space to source text: each tunable's literal replaced by its value, nothing
//! else touched. Works on the original text and the sites found in it, so results never depend on the
//! values the sources happen to hold now.

use crate::space::{Point, Space};
use std::collections::BTreeMap;

/// The patched contents of every file a tunable lives in, keyed by path relative to the project root.
/// `originals` holds the current contents of those files.
pub fn apply(
    space: &Space,
    point: &Point,
    originals: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut edits: BTreeMap<&str, Vec<(std::ops::Range<usize>, String)>> = BTreeMap::new();
    for (t, &i) in space.tunables.iter().zip(point) {
        edits
            .entry(&t.site.file)
            .or_default()
            .push((t.site.range.clone(), t.site.render(t.domain.value(i))));
    }
    let mut out = BTreeMap::new();
    for (file, mut list) in edits {
        let Some(text) = originals.get(file) else {
            continue;
        };
        list.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut patched = text.clone();
        for (range, new) in list {
            patched.replace_range(range, &new);
        }
        out.insert(file.to_string(), patched);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::Bind;
    use crate::space::{Domain, Tunable, binding::find_site};

    #[test]
    fn apply_then_find_gives_back_the_values_and_touches_nothing_else() {
        let host = "const uint32_t BLOCK_DIM = 8;     // blocks\nconst uint32_t TILE_LENGTH = 256U; // tile\nvoid f(C* c) { c->SetBlockDim(BLOCK_DIM); }\n";
        let kernel = "#define BUFFER_NUM 1\nint x = 1;\n";
        let originals = BTreeMap::from([
            ("h.cpp".to_string(), host.to_string()),
            ("k.cpp".to_string(), kernel.to_string()),
        ]);
        let bind = |file: &str, sym: &str| {
            find_site(&originals[file], file, &Bind::Symbol(sym.into())).unwrap()
        };
        let space = Space {
            tunables: vec![
                Tunable {
                    name: "block_dim".into(),
                    domain: Domain::list(vec![8, 48]).unwrap(),
                    site: bind("h.cpp", "BLOCK_DIM"),
                },
                Tunable {
                    name: "tile".into(),
                    domain: Domain::pow2(256, 16384).unwrap(),
                    site: bind("h.cpp", "TILE_LENGTH"),
                },
                Tunable {
                    name: "bufs".into(),
                    domain: Domain::range(1, 2, 1).unwrap(),
                    site: bind("k.cpp", "BUFFER_NUM"),
                },
            ],
            constraints: vec![],
            derived: vec![],
            facts: BTreeMap::new(),
        };
        let point = vec![1, 6, 1];
        let patched = apply(&space, &point, &originals);
        assert_eq!(
            patched["h.cpp"],
            host.replace("= 8;", "= 48;").replace("256U", "16384U")
        );
        assert_eq!(
            patched["k.cpp"],
            kernel.replace("BUFFER_NUM 1", "BUFFER_NUM 2")
        );
        for t in &space.tunables {
            let again = find_site(
                &patched[&t.site.file],
                &t.site.file,
                &Bind::Symbol(match t.name.as_str() {
                    "block_dim" => "BLOCK_DIM".into(),
                    "tile" => "TILE_LENGTH".into(),
                    _ => "BUFFER_NUM".into(),
                }),
            )
            .unwrap();
            assert_eq!(again.value, space.values(&point)[&t.name]);
        }
    }
}
