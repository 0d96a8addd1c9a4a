//! matmul-mdl: a high-level `Matmul` object on the Norm template (`Matmul<A, B, C[, Bias]>` with the
//! default configuration, or an explicit `CFG_NORM`) takes the MDL template instead (`CFG_MDL`): the
//! library then keeps two L1 chunks of A and B and loads the next one while the cube works on the
//! current one (asc-devkit docs, 高阶API/矩阵计算/Matmul/MatmulConfig, `doMultiDataLoad`; the
//! matmul_high_performance sample measured Norm -> MDL at 12283.84 -> 5039.86 us on an 8192^3 fp16
//! matmul, ../shared/measured/). A cube motif: it edits the kernel's Matmul template arguments only.
//! It knows C++ template syntax through the syntax tree; nothing of measuring or the bank.

use crate::rewrite::cst::{self, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct MatmulMdl;

const NAME: &str = "matmul-mdl";

/// One `Matmul<...>` template type in the text.
pub(super) struct Use {
    /// The whole `Matmul<...>` (with its qualification), what a site replaces.
    pub(super) range: std::ops::Range<usize>,
    /// `AscendC::` when the template name is qualified so, else empty: the config takes the same.
    pub(super) qual: String,
    /// The template arguments' texts.
    pub(super) args: Vec<String>,
    /// The byte range of the fifth argument (the configuration), when there is one.
    pub(super) cfg: Option<std::ops::Range<usize>>,
    /// The byte ranges of the template arguments.
    pub(super) arg_ranges: Vec<std::ops::Range<usize>>,
}

/// Every `Matmul<...>` template type (not `MatmulType<...>`, not `MatmulImpl<...>`), in source order.
pub(super) fn uses(text: &str) -> Vec<Use> {
    let tree = cst::parse(text);
    let mut out = vec![];
    for n in cst::nodes_of_kind(tree.root_node(), "template_type") {
        let (Some(name), Some(list)) = (
            n.child_by_field_name("name"),
            n.child_by_field_name("arguments"),
        ) else {
            continue;
        };
        if text_of(name, text) != "Matmul" {
            continue;
        }
        // `AscendC::Matmul<...>` is a qualified_identifier whose name is this template type.
        let (start, qual) = match n.parent() {
            Some(p) if p.kind() == "qualified_identifier" => {
                let q = text[p.start_byte()..n.start_byte()].to_string();
                (p.start_byte(), q)
            }
            _ => (n.start_byte(), String::new()),
        };
        let mut cursor = list.walk();
        let args: Vec<Node> = list
            .named_children(&mut cursor)
            .filter(|c| c.kind() != "comment")
            .collect();
        out.push(Use {
            range: start..n.end_byte(),
            qual,
            args: args.iter().map(|a| text_of(*a, text).to_string()).collect(),
            cfg: args.get(4).map(|a| a.byte_range()),
            arg_ranges: args.iter().map(|a| a.byte_range()).collect(),
        });
    }
    out
}

pub(super) fn is_cfg(arg: &str, name: &str) -> bool {
    arg == name || arg.strip_prefix("AscendC::") == Some(name)
}

fn error(text: &str, site: &Site, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, site.range.start),
        why: why.into(),
    }
}

/// The use whose range is the site's.
fn use_at(text: &str, site: &Site) -> Option<Use> {
    uses(text).into_iter().find(|u| u.range == site.range)
}

impl Motif for MatmulMdl {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "Matmul on the Norm template -> CFG_MDL: the next A/B chunk loads into L1 while the cube computes"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "always for the product: Norm and MDL run the same tiling (base blocks, stepKa, iteration order) \
         and accumulate the same products in the same order; only when the next chunk is loaded into L1 \
         differs. Checked: the site is a `Matmul<...>` template type with three or four arguments (the \
         default configuration, CFG_NORM) or with `CFG_NORM` as its fifth; three arguments get the \
         documented default bias type (the C type) written out as the fourth. MDL keeps two chunks in L1, \
         so a tiling whose stepKa chunk fills more than half of L1 no longer fits (the twin faults at \
         Init, the trial fails). A rewind writes `CFG_NORM` in place of `CFG_MDL`"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        uses(text)
            .into_iter()
            .filter(|u| {
                matches!(u.args.len(), 3 | 4)
                    || u.args.get(4).is_some_and(|a| is_cfg(a, "CFG_NORM"))
            })
            .map(|u| {
                let what = format!("Matmul on the Norm template ({} arguments)", u.args.len());
                Site::new(u.range, text, what)
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let u = use_at(text, site).ok_or_else(|| error(text, site, "no Matmul<...> here"))?;
        let mdl = format!("{}CFG_MDL", u.qual);
        let new = match (u.args.len(), &u.cfg) {
            (5.., Some(cfg)) if is_cfg(&u.args[4], "CFG_NORM") => {
                let rel = cfg.start - u.range.start..cfg.end - u.range.start;
                cst::splice(&text[u.range.clone()], rel, &mdl)
            }
            (3 | 4, _) => {
                let mut args = u.args.clone();
                if args.len() == 3 {
                    args.push(args[2].clone()); // BIAS_TYPE defaults to C_TYPE
                }
                args.push(mdl);
                format!("{}Matmul<{}>", u.qual, args.join(", "))
            }
            _ => return Err(error(text, site, "this Matmul is not on the Norm template")),
        };
        let out = cst::splice(text, u.range.clone(), &new);
        let range = u.range.start..u.range.start + new.len();
        let inverse = Site::new(range, &out, "Matmul on CFG_MDL")
            .restoring(text[u.range.clone()].to_string());
        Ok(Edit { text: out, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        uses(text)
            .into_iter()
            .filter(|u| u.args.get(4).is_some_and(|a| is_cfg(a, "CFG_MDL")))
            .map(|u| Site::new(u.range, text, "Matmul on the MDL template (CFG_MDL)"))
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let u = use_at(text, site).ok_or_else(|| error(text, site, "no Matmul<...> here"))?;
        let Some(cfg) = u.cfg.clone().filter(|_| is_cfg(&u.args[4], "CFG_MDL")) else {
            return Err(error(text, site, "this Matmul is not on CFG_MDL"));
        };
        let new = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let rel = cfg.start - u.range.start..cfg.end - u.range.start;
                let norm = format!("{}CFG_NORM", u.qual);
                cst::splice(&text[u.range.clone()], rel, &norm)
            }
        };
        let out = cst::splice(text, u.range.clone(), &new);
        let range = u.range.start..u.range.start + new.len();
        let inverse = Site::new(range, &out, "Matmul on the Norm template");
        Ok(Edit { text: out, inverse })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn matmul_custom_naive_takes_the_mdl_template() {
        let (naive, _) = fixture_kernel("matmul_custom");
        let sites = MatmulMdl.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = MatmulMdl.apply(&naive, &sites[0]).unwrap();
        assert!(
            edit.text
                .contains("Matmul<AType, BType, CType, BiasType, CFG_MDL> mm;"),
            "{}",
            edit.text
        );
        // MatmulType<...> is no site, and an MDL Matmul is no apply site.
        assert!(MatmulMdl.apply_sites(&edit.text).is_empty());
        assert_eq!(round_trips(&MatmulMdl, &naive), 1);
    }

    #[test]
    fn three_arguments_get_the_default_bias_type_and_rewind_byte_for_byte() {
        let k = "using namespace AscendC;\nvoid f() {\n    AscendC::Matmul<AType, BType, CType> mm; // cube\n}\n";
        let sites = MatmulMdl.apply_sites(k);
        assert_eq!(sites.len(), 1);
        let edit = MatmulMdl.apply(k, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "AscendC::Matmul<AType, BType, CType, CType, AscendC::CFG_MDL> mm; // cube"
            ),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&MatmulMdl, k), 1);
    }

    #[test]
    fn an_explicit_cfg_norm_swaps_and_cfg_mdl_rewinds_to_it() {
        let norm = "Matmul<A, B, C, Bias, CFG_NORM> mm;\n";
        let mdl = "Matmul<A, B, C, Bias, CFG_MDL> mm;\n";
        let edit = MatmulMdl
            .apply(norm, &MatmulMdl.apply_sites(norm)[0])
            .unwrap();
        assert_eq!(edit.text, mdl);
        let back = MatmulMdl
            .rewind(mdl, &MatmulMdl.rewind_sites(mdl)[0])
            .unwrap();
        assert_eq!(back.text, norm);
        assert_eq!(rewinds_round_trip(&MatmulMdl, mdl), 1);
        // Another configuration (e.g. a custom MatmulConfig) is left alone both ways.
        let other = "Matmul<A, B, C, Bias, MY_CFG> mm;\n";
        assert!(MatmulMdl.apply_sites(other).is_empty());
        assert!(MatmulMdl.rewind_sites(other).is_empty());
    }

    #[test]
    fn a_matmul_in_a_scenario_the_build_leaves_out_is_not_edited() {
        // matmul_ibshareB's shape: the pure Cube scenario's Matmul under `#if SCENARIO_NUM == 2`, the
        // MIX one under `#else`; built with SCENARIO_NUM=1, only the second is compiled.
        let k = "#if SCENARIO_NUM == 2\n    Matmul<A, B, C, Bias, CFG_NORM> mm;\n#else\n    Matmul<A, B, C, Bias, CFG_NORM> mm;\n#endif\n";
        let one: crate::project::preproc::Defines = [("SCENARIO_NUM".to_string(), 1)].into();
        let apply = |d: &crate::project::preproc::Defines| {
            crate::rewrite::motif::edit_all_in(
                &MatmulMdl,
                k,
                "k.asc",
                crate::rewrite::motif::Direction::Apply,
                None,
                crate::project::preproc::Macros {
                    extra: d,
                    table: true,
                },
            )
            .unwrap()
            .unwrap()
        };
        let (text, n) = apply(&one);
        assert_eq!(n, 1);
        assert_eq!(
            text,
            "#if SCENARIO_NUM == 2\n    Matmul<A, B, C, Bias, CFG_NORM> mm;\n#else\n    Matmul<A, B, C, Bias, CFG_MDL> mm;\n#endif\n"
        );
        // With no definitions known, both are sites, as before.
        assert_eq!(apply(&Default::default()).1, 2);
    }
}
