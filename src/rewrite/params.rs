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
