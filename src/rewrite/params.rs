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

/// Where one tunable's literal lies in a candidate's text after `apply`, with the value written there.
/// A backend that can read tunable values at run time uses this to build one program for all points that
/// differ only in them (`crate::twin::runtime`).
#[derive(Debug, Clone, PartialEq)]
pub struct Placed {
    pub name: String,
    /// Path relative to the project root.
    pub file: String,
    /// Byte range of the literal's digits in the patched text of `file` (as `Site::range`).
    pub range: std::ops::Range<usize>,
    pub value: i64,
    /// Set for a `ub-parts-of` site: `range` then holds its statement (empty for 1), not digits.
    pub divides: Option<crate::space::binding::Divides>,
}

/// Where `apply(space, point, originals)` puts each tunable's digits: its site's range, moved by the
/// edits before it in the same file. A tunable whose file is not in `originals` is left out, as `apply`
/// leaves the file out.
pub fn placed(space: &Space, point: &Point, originals: &BTreeMap<String, String>) -> Vec<Placed> {
    let edits: Vec<(&str, &std::ops::Range<usize>, i64, String)> = space
        .tunables
        .iter()
        .zip(point)
        .map(|(t, &i)| {
            let v = t.domain.value(i);
            (t.site.file.as_str(), &t.site.range, v, t.site.render(v))
        })
        .collect();
    let mut out = vec![];
    for (i, (t, &(file, range, value, ref new))) in space.tunables.iter().zip(&edits).enumerate() {
        if !originals.contains_key(file) {
            continue;
        }
        // Every other edit that ends before this one in the same file shifts it by its change of
        // length (its own never does: a `ub-parts-of` site at 1 is an empty range, which "ends" where
        // it starts).
        let shift: isize = edits
            .iter()
            .enumerate()
            .filter(|&(j, (f, r, _, _))| j != i && *f == file && r.end <= range.start)
            .map(|(_, e)| e)
            .map(|(_, r, _, n)| n.len() as isize - r.len() as isize)
            .sum();
        let start = (range.start as isize + shift) as usize;
        out.push(Placed {
            name: t.name.clone(),
            file: file.to_string(),
            range: start..start + new.len(),
            value,
            divides: t.site.divides.clone(),
        });
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
        // `placed` finds each new literal where `apply` wrote it, shifted by the edits before it.
        let placed = placed(&space, &point, &originals);
        assert_eq!(placed.len(), 3);
        for p in &placed {
            let text = &patched[&p.file];
            assert_eq!(text[p.range.clone()], p.value.to_string(), "{p:?}");
        }
        assert_eq!(
            placed.iter().map(|p| p.value).collect::<Vec<_>>(),
            [48, 16384, 2]
        );
    }

    /// A `ub-parts-of` site at 1 is an empty range; moved to 3 it holds its statement, and `placed`
    /// finds it there, not shifted by its own edit (nor by the literal after it).
    #[test]
    fn placed_finds_a_ub_parts_statement_where_apply_wrote_it() {
        let host = "void T(P& p, uint64_t& ubSize) {\n    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);\n    const uint32_t TILE = 256;\n}\n";
        let originals = BTreeMap::from([("h.cpp".to_string(), host.to_string())]);
        let space = Space {
            tunables: vec![
                Tunable {
                    name: "ub_parts".into(),
                    domain: Domain::range(1, 4, 1).unwrap(),
                    site: find_site(
                        host,
                        "h.cpp",
                        &Bind::UbParts {
                            var: "ubSize".into(),
                            function: None,
                        },
                    )
                    .unwrap(),
                },
                Tunable {
                    name: "tile".into(),
                    domain: Domain::pow2(256, 1024).unwrap(),
                    site: find_site(host, "h.cpp", &Bind::Symbol("TILE".into())).unwrap(),
                },
            ],
            constraints: vec![],
            derived: vec![],
            facts: BTreeMap::new(),
        };
        let point = vec![2, 2];
        let patched = apply(&space, &point, &originals);
        let placed = placed(&space, &point, &originals);
        let text = &patched["h.cpp"];
        assert_eq!(&text[placed[0].range.clone()], "\n    ubSize = ubSize / 3;");
        assert_eq!(&text[placed[1].range.clone()], "1024");
        assert!(placed[0].divides.is_some() && placed[1].divides.is_none());
    }
}
