//! The search space of one op: tunables (a domain of integer values, each bound to a literal in a source
//! file) and constraints (expressions over tunables and SoC and shape facts, checked before a candidate is
//! built): those the manifest names and those `derived` reads from the kernel. A point of the space is
//! one index into each tunable's domain. This module knows nothing of strategies, building or running.

pub mod binding;
mod constraint;
pub mod derived;
pub mod discover;
mod domain;

pub use binding::Site;
pub use constraint::Constraint;
pub use derived::Derived;
pub use domain::Domain;

use crate::errors::Result;
use crate::fsx;
use crate::manifest::{Manifest, OpSpec};
use crate::model::soc::Soc;
use std::collections::BTreeMap;

/// One index into each tunable's domain, in the order the manifest declares the tunables.
pub type Point = Vec<usize>;

#[derive(Debug, Clone)]
pub struct Tunable {
    pub name: String,
    pub domain: Domain,
    /// Where the value lives in the source, as found in the current sources.
    pub site: Site,
}

#[derive(Debug, Clone)]
pub struct Space {
    pub tunables: Vec<Tunable>,
    pub constraints: Vec<Constraint>,
    /// Constraints derived from the sources (empty with `derive-constraints = false`).
    pub derived: Vec<Derived>,
    /// Named facts constraints may use: SoC figures and tensor sizes.
    pub facts: BTreeMap<String, i64>,
}

impl Space {
    /// Binds every tunable of `op` to its site in the current sources and compiles its constraints.
    /// `sources` holds the current text of every file a tunable lives in (`tune::read_sources`).
    pub fn resolve(
        manifest: &Manifest,
        op: &OpSpec,
        soc: &Soc,
        sources: &BTreeMap<String, String>,
    ) -> Result<Space> {
        let mut tunables = Vec::new();
        for t in &op.tunables {
            let text = match sources.get(&t.file) {
                Some(text) => text,
                None => {
                    return Err(crate::errors::Error::Internal(format!(
                        "{} was not read before binding tunables",
                        t.file
                    )));
                }
            };
            let site = binding::find_site(text, &t.file, &t.bind).map_err(|m| {
                manifest.source.error(
                    t.span.clone(),
                    format!("tunable `{}`: {m}", t.name),
                    binding::HELP.to_string(),
                )
            })?;
            if let Some(other) = tunables
                .iter()
                .find(|o: &&Tunable| o.site.file == site.file && o.site.range == site.range)
            {
                return Err(manifest
                    .source
                    .error(
                        t.span.clone(),
                        format!(
                            "tunables `{}` and `{}` are bound to the same literal",
                            other.name, t.name
                        ),
                        Some("bind each tunable to its own symbol".into()),
                    )
                    .into());
            }
            tunables.push(Tunable {
                name: t.name.clone(),
                domain: t.domain.clone(),
                site,
            });
        }
        let facts = facts(op, soc);
        let names: Vec<&str> = tunables.iter().map(|t| t.name.as_str()).collect();
        let constraints = op
            .constraints
            .iter()
            .map(|c| {
                Constraint::compile(&c.text, &names, &facts).map_err(|m| {
                    let known: Vec<&str> = names
                        .iter()
                        .copied()
                        .chain(facts.keys().map(String::as_str))
                        .collect();
                    manifest.source.error(
                        c.span.clone(),
                        format!("constraint `{}`: {m}", c.text),
                        Some(format!("constraints may use: {}", known.join(", "))),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let derived = if op.tune.derive_constraints == Some(false) {
            vec![]
        } else {
            derived::derive(op, sources, &tunables, &facts)
        };
        Ok(Space {
            tunables,
            constraints,
            derived,
            facts,
        })
    }

    /// Number of points, constraints not applied.
    pub fn size(&self) -> u128 {
        self.tunables
            .iter()
            .map(|t| t.domain.len() as u128)
            .product()
    }

    pub fn dims(&self) -> Vec<usize> {
        self.tunables.iter().map(|t| t.domain.len()).collect()
    }

    /// The values of a point, by tunable name.
    pub fn values(&self, p: &Point) -> BTreeMap<String, i64> {
        self.tunables
            .iter()
            .zip(p)
            .map(|(t, &i)| (t.name.clone(), t.domain.value(i)))
            .collect()
    }

    /// The point holding the values the sources have now, if every value lies in its domain.
    pub fn current(&self) -> Option<Point> {
        self.tunables
            .iter()
            .map(|t| t.domain.index_of(t.site.value))
            .collect()
    }

    /// The point for the given values, if each is in its domain.
    pub fn point_of(&self, values: &BTreeMap<String, i64>) -> Option<Point> {
        self.tunables
            .iter()
            .map(|t| values.get(&t.name).and_then(|v| t.domain.index_of(*v)))
            .collect()
    }

    /// Checks the constraints, the manifest's then the derived ones; the error names the first one
    /// violated.
    pub fn check(&self, p: &Point) -> std::result::Result<(), String> {
        self.check_manifest(p)?;
        let values = self.values(p);
        for d in &self.derived {
            d.constraint
                .check(&values, &self.facts)
                .map_err(|why| format!("{why} (derived: {})", d.kind.as_str()))?;
        }
        Ok(())
    }

    /// Checks only the constraints the manifest names.
    pub fn check_manifest(&self, p: &Point) -> std::result::Result<(), String> {
        let values = self.values(p);
        for c in &self.constraints {
            c.check(&values, &self.facts)?;
        }
        Ok(())
    }

    /// A fingerprint of the space's definition (domains, bindings and constraints), for the lockfile.
    pub fn fingerprint(&self) -> String {
        let mut h = fsx::KeyHasher::new();
        for t in &self.tunables {
            h.part(&t.name)
                .part(&t.site.file)
                .part(format!("{:?}", t.domain.values()));
        }
        for c in &self.constraints {
            h.part(c.text());
        }
        h.finish()
    }
}

/// Facts a constraint can name: SoC figures, the 32-byte block, and each tensor's element and byte count
/// and dimensions, by its `key` (an output named like an input is `<name>_ref`).
pub fn facts(op: &OpSpec, soc: &Soc) -> BTreeMap<String, i64> {
    let mut f = BTreeMap::new();
    f.insert("ub_bytes".to_string(), soc.ub_bytes as i64);
    f.insert("aiv_cores".to_string(), soc.aiv_cores as i64);
    f.insert("aic_cores".to_string(), soc.aic_cores as i64);
    f.insert("l1_bytes".to_string(), soc.l1_bytes as i64);
    f.insert("l0a_bytes".to_string(), soc.l0a_bytes as i64);
    f.insert("l0b_bytes".to_string(), soc.l0b_bytes as i64);
    f.insert("l0c_bytes".to_string(), soc.l0c_bytes as i64);
    f.insert("block_bytes".to_string(), 32);
    for t in op.inputs.iter().chain(op.outputs.iter()) {
        f.insert(format!("{}_elems", t.key), t.elems() as i64);
        f.insert(format!("{}_bytes", t.key), t.bytes() as i64);
        for (i, d) in t.shape.iter().enumerate() {
            f.insert(format!("{}_dim{i}", t.key), *d as i64);
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each tensor's facts are named by its key, so an output named like an input (`x_ref`) does not
    /// overwrite the input's.
    #[test]
    fn facts_of_an_output_named_like_an_input_stay_apart() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/add_custom/ascend.toml");
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("name = \"z\"", "name = \"x\"")
            .replacen(
                "shape = [48, 16384]\n\n[op.tune]",
                "shape = [4, 8]\n\n[op.tune]",
                1,
            );
        let m = crate::manifest::Manifest::parse(text, &path).unwrap();
        let soc = crate::model::soc::lookup("Ascend910B1").unwrap();
        let f = facts(&m.ops[0], soc);
        assert_eq!(
            (
                f["x_elems"],
                f["x_ref_elems"],
                f["x_ref_bytes"],
                f["x_ref_dim1"]
            ),
            (48 * 16384, 32, 64, 8)
        );
    }
}
