//! A variant of an op's sources: the sources tuning started from with a list of kernel rewrites applied,
//! and the search space bound against that text (rewrites move byte offsets, so tunables are bound
//! again). The host search always searches one variant; the kernel phase makes new ones. A variant never
//! changes a tunable's literal: a rewrite that would is refused, so a point means the same in every variant.

use crate::errors::Result;
use crate::manifest::{Manifest, OpSpec};
use crate::model::soc::Soc;
use crate::project::preproc::{Defines, Macros};
use crate::rewrite::motif::{self, Direction, Guide, Motif, Scope};
use crate::space::{Point, Space};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Variant {
    /// Rewrites applied, in order, as `motif` names (an external rewriter's as `rewriter#N`).
    pub rewrites: Vec<String>,
    /// Full text of every op source file, by path relative to the project root.
    pub sources: Arc<BTreeMap<String, String>>,
    pub space: Arc<Space>,
}

impl Variant {
    pub fn original(sources: BTreeMap<String, String>, space: Space) -> Variant {
        Variant {
            rewrites: vec![],
            sources: Arc::new(sources),
            space: Arc::new(space),
        }
    }

    /// The full text of every file with `point`'s values written into the tunables' literals.
    pub fn patched(&self, point: &Point) -> BTreeMap<String, String> {
        let mut out = (*self.sources).clone();
        out.extend(crate::rewrite::params::apply(
            &self.space,
            point,
            &self.sources,
        ));
        out
    }

    /// The kernel files of `op` and the own headers they include, as they are in this variant.
    pub fn kernels(&self, op: &OpSpec) -> BTreeMap<String, String> {
        super::kernel_files(op, &self.sources)
            .into_iter()
            .filter_map(|f| self.sources.get(&f).map(|t| (f, t.clone())))
            .collect()
    }

    /// The files motifs may edit, as they are in this variant: kernel files and their own headers,
    /// then the host files (tiling functions). Retrieval counts each motif's sites in those of its scope.
    pub fn rewrite_targets(&self, op: &OpSpec) -> BTreeMap<String, (Scope, String)> {
        let mut out = BTreeMap::new();
        for scope in [Scope::Host, Scope::Kernel] {
            for f in super::rewrite_files(op, &self.sources, scope) {
                if let Some(t) = self.sources.get(&f) {
                    out.insert(f, (scope, t.clone()));
                }
            }
        }
        out
    }

    /// This variant with `motif` applied at every site of every file of its scope (kernel or host), or
    /// why not. A kernel motif's host companion (the UB split a deeper queue needs) is applied with it
    /// where it has a site and the host search does not own that site (a `ub_parts` tunable there);
    /// without it the kernel motif stands alone, and its trials show whether it fits.
    /// A guided motif acts where `guide` says (`Motif::guided`).
    pub fn with_motif(
        &self,
        motif: &dyn Motif,
        manifest: &Manifest,
        op: &OpSpec,
        soc: &Soc,
        guide: Option<&Guide>,
    ) -> std::result::Result<Variant, String> {
        if let Some(why) = motif.unavailable_on(soc) {
            return Err(why);
        }
        let defines = compiled_defines(manifest, op);
        let macros = Macros {
            extra: &defines,
            table: crate::project::preproc::TABLE_SOCS.contains(&soc.short_name),
        };
        let (sources, edited) = self.edited(motif, op, &self.sources, guide, macros)?;
        if edited == 0 {
            let place = match motif.scope() {
                Scope::Kernel => "the kernel",
                Scope::Host => "the host files",
            };
            return Err(format!("{} has no site in {place}", motif.name()));
        }
        if let Some(companion) = motif
            .host_companion()
            .and_then(crate::rewrite::motifs::by_name)
            && let Ok((both, n)) = self.edited(companion, op, &sources, guide, macros)
            && n > 0
            && let Ok(v) = self.rebound(both, motif.name().to_string(), manifest, op, soc)
        {
            let mut v = v;
            v.rewrites.push(companion.name().to_string());
            return Ok(v);
        }
        self.rebound(sources, motif.name().to_string(), manifest, op, soc)
    }

    /// `sources` with `motif` applied at every site of the files of its scope, and how many it edited.
    fn edited(
        &self,
        motif: &dyn Motif,
        op: &OpSpec,
        sources: &BTreeMap<String, String>,
        guide: Option<&Guide>,
        macros: Macros,
    ) -> std::result::Result<(BTreeMap<String, String>, usize), String> {
        let mut out = sources.clone();
        let mut edited = 0;
        for file in super::rewrite_files(op, sources, motif.scope()) {
            if super::is_shared_header(op, &file) && !motif.edits_shared_headers() {
                continue;
            }
            let Some(text) = out.get(&file) else {
                continue;
            };
            match motif::edit_all_in(motif, text, &file, Direction::Apply, guide, macros) {
                Ok(Some((new, n))) => {
                    out.insert(file, new);
                    edited += n;
                }
                Ok(None) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        Ok((out, edited))
    }

    /// This variant with whole new sources (an external rewriter's kernel), named `rewrite`.
    pub fn rebound(
        &self,
        sources: BTreeMap<String, String>,
        rewrite: String,
        manifest: &Manifest,
        op: &OpSpec,
        soc: &Soc,
    ) -> std::result::Result<Variant, String> {
        let space = Space::resolve(manifest, op, soc, &sources)
            .map_err(|e| format!("the rewritten sources lose a tunable: {e}"))?;
        if let Some((now, was)) = space
            .tunables
            .iter()
            .zip(&self.space.tunables)
            .find(|(now, was)| now.site.value != was.site.value)
        {
            return Err(format!(
                "it changes tunable `{}` ({} -> {}), which the host search owns",
                now.name, was.site.value, now.site.value
            ));
        }
        let mut rewrites = self.rewrites.clone();
        rewrites.push(rewrite);
        Ok(Variant {
            rewrites,
            sources: Arc::new(sources),
            space: Arc::new(space),
        })
    }
}

/// Binds the space of the sources as they are.
pub fn original(
    manifest: &Manifest,
    op: &OpSpec,
    soc: &Soc,
    sources: BTreeMap<String, String>,
) -> Result<Variant> {
    let space = Space::resolve(manifest, op, soc, &sources)?;
    Ok(Variant::original(sources, space))
}

/// The definitions the op's build compiles its kernel with, as far as the manifest and its CMake file
/// say (a kernel-launch op's `cmake-defines` its CMakeLists.txt forwards): a motif leaves the branches
/// they rule out alone, since an edit there is never compiled, never measured, yet written back.
fn compiled_defines(manifest: &Manifest, op: &OpSpec) -> Defines {
    if op.cmake_defines.is_empty() {
        return Defines::new();
    }
    let lists = manifest
        .root
        .join(
            manifest
                .cmake_source
                .as_deref()
                .unwrap_or(std::path::Path::new("")),
        )
        .join("CMakeLists.txt");
    let text = std::fs::read_to_string(lists).unwrap_or_default();
    forwarded(&op.cmake_defines, &text)
}

/// The compile definitions among `cmake_defines` (`NAME=VALUE`, an integer value) that a CMake file
/// forwards to the compiler as `NAME=${NAME}` (`target_compile_definitions(demo PRIVATE
/// SCENARIO_NUM=${SCENARIO_NUM})`, as asc-devkit's examples do).
fn forwarded(cmake_defines: &[String], cmake_text: &str) -> Defines {
    cmake_defines
        .iter()
        .filter_map(|d| {
            let (name, value) = d.split_once('=')?;
            let forwards = cmake_text.contains(&format!("{name}=${{{name}}}"));
            Some((
                name.to_string(),
                value.trim().parse().ok().filter(|_| forwards)?,
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// tests/cli/projects/queue_add_custom's manifest, with `extra` appended, its op and its variant.
    fn queue_add_custom(extra: &str) -> (Manifest, OpSpec, Variant) {
        let root =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/projects/queue_add_custom");
        let path = root.join("ascend.toml");
        let text = std::fs::read_to_string(&path).unwrap() + extra;
        let manifest = Manifest::parse(text, &path).unwrap();
        let op = manifest.ops[0].clone();
        let soc = crate::model::soc::lookup(&manifest.soc).unwrap();
        let sources = super::super::read_sources(&manifest, &op).unwrap();
        let v = original(&manifest, &op, soc, sources).unwrap();
        (manifest, op, v)
    }

    #[test]
    fn a_kernel_motif_brings_its_host_companion_unless_a_tunable_owns_its_site() {
        let motif = crate::rewrite::motifs::by_name("double-buffer-queue").unwrap();
        let (m, op, v) = queue_add_custom("");
        let soc = crate::model::soc::lookup(&m.soc).unwrap();
        let both = v.with_motif(motif, &m, &op, soc, None).unwrap();
        assert_eq!(
            both.rewrites,
            ["double-buffer-queue", "ub-split-double-buffer"]
        );
        let host = "op_host/queue_add_custom.cpp";
        assert!(both.sources[host].contains("ubSize = ubSize / 2;"));
        assert!(both.sources["op_kernel/queue_add_custom.h"].contains("VECIN, 2>"));
        // The targets of retrieval: the header is a kernel file, the tiling function a host one.
        let targets = both.rewrite_targets(&op);
        assert_eq!(targets[host].0, Scope::Host);
        assert_eq!(targets["op_kernel/queue_add_custom.h"].0, Scope::Kernel);

        // With `ub_parts` tunable there, the host search owns the UB split: the kernel motif goes alone.
        let (m, op, v) = queue_add_custom(
            "\n[[op.tunable]]\nname = \"ub_parts\"\nfile = \"op_host/queue_add_custom.cpp\"\nub-parts-of = \"ubSize\"\nrange = [1, 4]\n",
        );
        let alone = v.with_motif(motif, &m, &op, soc, None).unwrap();
        assert_eq!(alone.rewrites, ["double-buffer-queue"]);
        assert_eq!(alone.sources[host], v.sources[host]);
        // The host motif alone cannot change what a tunable owns.
        let split = crate::rewrite::motifs::by_name("ub-split-double-buffer").unwrap();
        assert_eq!(
            v.with_motif(split, &m, &op, soc, None).err().as_deref(),
            Some("it changes tunable `ub_parts` (1 -> 2), which the host search owns")
        );
    }

    #[test]
    fn only_definitions_the_cmake_file_forwards_reach_the_compiler() {
        let cmake = "target_compile_definitions(demo PRIVATE SCENARIO_NUM=${SCENARIO_NUM})\n";
        let defines =
            ["SCENARIO_NUM=2", "CMAKE_BUILD_TYPE=1", "MODE=fast", "BARE"].map(String::from);
        assert_eq!(
            forwarded(&defines, cmake),
            Defines::from([("SCENARIO_NUM".to_string(), 2)])
        );
    }
}
