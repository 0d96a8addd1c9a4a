//! Motifs: reversible transformations of kernel source between a slow form and a fast form that computes
//! the same outputs. `apply` makes a kernel faster at one site; `rewind` undoes an optimisation at one site
//! (the bank mines lessons by rewinding optimised kernels). Each edit reports the site of its inverse, so
//! `rewind(apply(k, s), inverse)` gives back `k` byte for byte. Motifs work on one file's text through the
//! syntax tree (`cst`); they know nothing of measuring, the bank or the loop.

use std::ops::Range;

/// A place in one file's text where a motif can act.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// The bytes the edit replaces (empty for a pure insertion).
    pub range: Range<usize>,
    /// 1-based line of `range.start`, for messages.
    pub line: usize,
    /// What is there, in words: "BUFFER_NUM = 1: depth of 3 queues".
    pub what: String,
    /// Exact text an inverse edit must restore (a removed statement with its comment), when the
    /// canonical slow or fast form would not give the original back. Sites found in text carry None.
    pub restore: Option<String>,
}

impl Site {
    pub fn new(range: Range<usize>, text: &str, what: impl Into<String>) -> Site {
        Site {
            line: super::cst::line_of(text, range.start),
            range,
            what: what.into(),
            restore: None,
        }
    }

    pub fn restoring(mut self, restore: impl Into<String>) -> Site {
        self.restore = Some(restore.into());
        self
    }

    pub fn overlaps(&self, other: &Range<usize>) -> bool {
        self.range.start < other.end.max(other.start + 1)
            && other.start < self.range.end.max(self.range.start + 1)
    }
}

/// The result of one edit: the new text, and the site in it where the opposite direction undoes it.
#[derive(Debug, Clone)]
pub struct Edit {
    pub text: String,
    pub inverse: Site,
}

/// Why a motif could not act at a site: the text there is not what the motif expects (for example the
/// site came from an older version of the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{motif} at line {line}: {why}")]
pub struct MotifError {
    pub motif: &'static str,
    pub line: usize,
    pub why: String,
}

/// Which way an edit goes: `Apply` makes the kernel faster, `Rewind` slower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Apply,
    Rewind,
}

/// Which files of an op a motif edits: the kernel files and their own headers, or the host files (the
/// tiling functions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Kernel,
    Host,
}

pub trait Motif: Sync {
    /// Stable kebab-case id; it is written to lockfiles and banks, so never renamed.
    fn name(&self) -> &'static str;
    /// What `apply` does, in one line.
    fn summary(&self) -> &'static str;
    /// The conditions under which `apply` and `rewind` preserve the kernel's outputs, and what the
    /// applicability test checks of them.
    fn preserves_meaning_when(&self) -> &'static str;
    /// Sites where `apply` can turn the slow form into the fast one, in source order.
    fn apply_sites(&self, text: &str) -> Vec<Site>;
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError>;
    /// Sites where `rewind` can turn the fast form back into the slow one, in source order.
    fn rewind_sites(&self, text: &str) -> Vec<Site>;
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError>;
    /// Whether applying changes how the kernel cuts its work into tiles or how much UB they take (a
    /// deeper queue halves a split tile, or needs a smaller one to fit), so the rewrite can only be judged
    /// after the host parameters are re-tuned, not at the old best tiling.
    fn reshapes_tiles(&self) -> bool {
        false
    }
    /// Whether the motif may edit the shared headers of `include-as` folders (other operators include
    /// them): only motifs whose every site is checked locally and verified by the tuned op's run and
    /// probes (a deeper queue or a new buffer there could break the operators that share it).
    fn edits_shared_headers(&self) -> bool {
        false
    }
    /// Whether applying only removes or narrows synchronisation (barriers, waits). Such a rewrite may
    /// gain nothing alone, since the pipes it frees still wait elsewhere, yet enable a later rewrite that
    /// overlaps them; the loop keeps it when it is verified and no slower.
    fn relaxes_sync(&self) -> bool {
        false
    }
    /// Why the fast form cannot be written for `soc` (it calls an API the SoC does not have), if so.
    fn unavailable_on(&self, _soc: &crate::model::soc::Soc) -> Option<String> {
        None
    }
    /// Which files the motif edits (kernel unless it says otherwise).
    fn scope(&self) -> Scope {
        Scope::Kernel
    }
    /// A host motif that must go with this kernel motif for the kernel to fit (a deeper queue needs the
    /// tiling to plan for less UB each). The loop applies it with this one where it has a site and the
    /// host search does not own that site already.
    fn host_companion(&self) -> Option<&'static str> {
        None
    }
    /// Motifs whose gain this one's change is the precondition of, tried on top of it when it is not
    /// kept alone: a deeper queue gains nothing while every copy-in still waits at once for the
    /// previous tile's copy-out, and that wait can move one tile later only once the queue has a
    /// second buffer (at depth one the moved wait races). Greedy one-at-a-time search never takes such
    /// a pair, since neither step gains (or verifies) without the other.
    fn unlocks(&self) -> &'static [&'static str] {
        &[]
    }

    /// Whether the motif needs evidence from a run to know where to act (a `Guide`): its `apply_sites`
    /// are the places it could act, and `select` picks among them. Without a guide it applies nowhere.
    fn guided(&self) -> bool {
        false
    }
    /// Whether the motif is a finish: a layout polish planned at one tiling that takes UB from it. The
    /// loop tries it once the tiling is settled, at the best point: kept earlier, the UB it takes
    /// shuts out the larger tiles the host search would go on to find (ops-nn's rms_norm_grad kept
    /// `ub-bank-offset` at 7.049 us and could then not reach the 6.802 us tiling it found without it).
    fn finishes(&self) -> bool {
        false
    }
    /// For a guided motif: the apply `sites` of `file` (its `text`) that `guide` picks.
    fn select(&self, _text: &str, _file: &str, sites: Vec<Site>, _guide: &Guide) -> Vec<Site> {
        sites
    }

    fn sites(&self, text: &str, dir: Direction) -> Vec<Site> {
        match dir {
            Direction::Apply => self.apply_sites(text),
            Direction::Rewind => self.rewind_sites(text),
        }
    }

    fn edit(&self, text: &str, site: &Site, dir: Direction) -> Result<Edit, MotifError> {
        match dir {
            Direction::Apply => self.apply(text, site),
            Direction::Rewind => self.rewind(text, site),
        }
    }
}

impl std::fmt::Debug for dyn Motif {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Motif({})", self.name())
    }
}

/// `unavailable_on` of a motif whose fast form writes a `DataCopyPad`: why not on a SoC without it.
pub fn needs_data_copy_pad(motif: &str, soc: &crate::model::soc::Soc) -> Option<String> {
    (!soc.data_copy_pad).then(|| {
        format!(
            "{motif} writes a DataCopyPad, which the {} does not have (asc-devkit docs, DataCopyPad (GMToUB): product support)",
            soc.name
        )
    })
}

/// What a run of the kernel showed that a guided motif acts on (`Motif::guided`). Made once per tuning
/// run from the baseline's measurement; it names places by what they are in the text (a buffer), not
/// by line, so a rewrite made before the guided one does not move them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Guide {
    /// ub-bank-offset: per file, the buffers (first `InitBuffer` argument) whose length grows.
    pub ub_offsets: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
    /// Per guided motif, the speedup the run's own evidence predicts (the modelled time the plan takes
    /// off the kernel's busiest pipe). Retrieval ranks the motif by it as it ranks others by lessons.
    pub predicted_gain: std::collections::BTreeMap<String, f64>,
}

/// The sites of `motif` in `file` (its `text`) in `dir`: a guided motif's apply sites are those its
/// guide picks, none without one; every other motif's are `sites`.
pub fn sites_in(
    motif: &dyn Motif,
    text: &str,
    file: &str,
    dir: Direction,
    guide: Option<&Guide>,
) -> Vec<Site> {
    let sites = motif.sites(text, dir);
    if dir == Direction::Rewind || !motif.guided() {
        return sites;
    }
    match guide {
        Some(g) => motif.select(text, file, sites, g),
        None => vec![],
    }
}

/// `edit_all` at the sites `sites_in` gives, for `file` with `guide`, leaving out the sites in
/// conditional branches the build (as `macros` describe it) does not compile (`project::preproc::left_out`).
pub fn edit_all_in(
    motif: &dyn Motif,
    text: &str,
    file: &str,
    dir: Direction,
    guide: Option<&Guide>,
    macros: crate::project::preproc::Macros,
) -> Result<Option<(String, usize)>, MotifError> {
    edit_each(motif, text, dir, |t| {
        let mut sites = sites_in(motif, t, file, dir, guide);
        if !sites.is_empty() && t.contains('#') {
            let tree = crate::rewrite::cst::parse(t);
            sites.retain(|s| {
                !crate::project::preproc::left_out(t, tree.root_node(), s.range.start, macros)
            });
        }
        sites
    })
}

/// Edits every site of `motif` in `dir`, first to last, re-finding sites after each edit (offsets move).
/// Returns the new text and how many sites were edited; None when there was nothing to edit. Bounded,
/// so a motif whose edit re-creates its own site cannot loop forever.
pub fn edit_all(
    motif: &dyn Motif,
    text: &str,
    dir: Direction,
) -> Result<Option<(String, usize)>, MotifError> {
    edit_each(motif, text, dir, |t| motif.sites(t, dir))
}

/// Edits the first site `find` gives in the text, again and again, at most 64 times.
fn edit_each(
    motif: &dyn Motif,
    text: &str,
    dir: Direction,
    find: impl Fn(&str) -> Vec<Site>,
) -> Result<Option<(String, usize)>, MotifError> {
    let mut cur = text.to_string();
    let mut done = 0;
    while done < 64 {
        let Some(site) = find(&cur).into_iter().next() else {
            break;
        };
        cur = motif.edit(&cur, &site, dir)?.text;
        done += 1;
    }
    Ok((done > 0).then_some((cur, done)))
}

#[cfg(test)]
pub mod testing {
    //! Checks every motif must pass on real kernel text.
    use super::*;
    use crate::rewrite::cst;

    /// For every apply site of `motif` in `kernel`: the edit parses, its inverse site is one that
    /// `rewind_sites` finds in the new text (so mining finds it without help), and rewinding there
    /// with the restore text gives back `kernel` exactly. Returns how many sites were checked.
    pub fn round_trips(motif: &dyn Motif, kernel: &str) -> usize {
        let sites = motif.apply_sites(kernel);
        for site in &sites {
            let edit = motif
                .apply(kernel, site)
                .unwrap_or_else(|e| panic!("{}: apply failed: {e}", motif.name()));
            assert!(
                cst::syntax_errors(&edit.text) <= cst::syntax_errors(kernel),
                "{}: apply at line {} adds syntax errors:\n{}",
                motif.name(),
                site.line,
                edit.text
            );
            assert_ne!(edit.text, kernel, "{}: apply changed nothing", motif.name());
            let found = motif.rewind_sites(&edit.text);
            assert!(
                found.iter().any(|s| s.range == edit.inverse.range),
                "{}: the inverse site {:?} of the edit at line {} is not among the rewind sites {:?}",
                motif.name(),
                edit.inverse,
                site.line,
                found
            );
            let back = motif
                .rewind(&edit.text, &edit.inverse)
                .unwrap_or_else(|e| panic!("{}: rewind failed: {e}", motif.name()));
            assert_eq!(
                back.text,
                kernel,
                "{}: rewind(apply(k)) differs from k at site line {}",
                motif.name(),
                site.line
            );
        }
        sites.len()
    }

    /// The same in the other direction: rewinding an optimised kernel and applying the inverse gives it back.
    pub fn rewinds_round_trip(motif: &dyn Motif, kernel: &str) -> usize {
        let sites = motif.rewind_sites(kernel);
        for site in &sites {
            let edit = motif
                .rewind(kernel, site)
                .unwrap_or_else(|e| panic!("{}: rewind failed: {e}", motif.name()));
            assert!(
                cst::syntax_errors(&edit.text) <= cst::syntax_errors(kernel),
                "{}: rewind adds syntax errors:\n{}",
                motif.name(),
                edit.text
            );
            let found = motif.apply_sites(&edit.text);
            assert!(
                found.iter().any(|s| s.range == edit.inverse.range),
                "{}: the inverse site {:?} of the rewind at line {} is not among the apply sites {:?}",
                motif.name(),
                edit.inverse,
                site.line,
                found
            );
            let back = motif.apply(&edit.text, &edit.inverse).unwrap();
            assert_eq!(
                back.text,
                kernel,
                "{}: apply(rewind(k)) differs from k",
                motif.name()
            );
        }
        sites.len()
    }

    /// The kernel sources of a fixture: (naive, reference) for `fixtures/<name>/op_kernel/<file>`.
    pub fn fixture_kernel(op_dir: &str) -> (String, String) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(op_dir);
        let file = std::fs::read_dir(root.join("op_kernel"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "cpp"))
            .unwrap();
        let name = file.file_name().unwrap();
        (
            std::fs::read_to_string(&file).unwrap(),
            std::fs::read_to_string(root.join("reference/op_kernel").join(name)).unwrap(),
        )
    }

    /// Every fixture's (name, naive kernel, reference kernel).
    pub fn all_fixture_kernels() -> Vec<(String, String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut names: Vec<String> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| root.join(n).join("ascend.toml").exists())
            // Kernel-launch fixtures keep their kernel beside main.cpp, not in op_kernel/; the motif
            // tests cover them once the kernel phase handles that layout.
            .filter(|n| !crate::project::is_kernel_launch(&root.join(n)))
            .collect();
        names.sort();
        names
            .into_iter()
            .map(|n| {
                let (a, b) = fixture_kernel(&n);
                (n, a, b)
            })
            .collect()
    }
}
