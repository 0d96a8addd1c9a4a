//! matmul-unitflag: a high-level `Matmul` on the MDL template, which leaves UnitFlag off by default,
//! takes a configuration with `enUnitFlag` on: the Mmads and the Fixpipe of a base block then sync per
//! 512-byte block of L0C instead of waiting for each other whole (asc-devkit docs, 高阶API/矩阵计算/
//! Matmul-Kernel侧接口/MatmulConfig.md and GetMDLConfig.md, `enUnitFlag`: on by default for Norm, off for
//! MDL; the guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能UnitFlag.md; measured `bp_unitflag`
//! 37.39 -> 34.66 us and `ascdevkit_matmul_case7_to_case8` 4053.44 -> 4012.44 us, ../shared/measured/).
//! A cube motif with three forms of the same switch:
//!  - `Matmul<A, B, C, Bias, CFG_MDL>` gains a configuration declared before the item that holds it,
//!    `constexpr static MatmulConfig CFG_MDL_UNITFLAG = GetMDLConfig(false, false, 0, false, false,
//!    false, true);` (the documented defaults but enUnitFlag), and names it;
//!  - a `GetMDLConfig(...)` call whose enUnitFlag (7th) argument is `false` or left out gets `true`;
//!  - an assignment `cfg.enUnitFlag = false` (the guide's form) becomes `= true`.
//!
//! Rewinding turns each back (the first only when the declaration is the motif's own, just before the
//! item, and used once). It knows C++ through the syntax tree; nothing of measuring or the bank.

use super::matmul_mdl::{Use, is_cfg, uses};
use crate::rewrite::cst::{self, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct MatmulUnitFlag;

const NAME: &str = "matmul-unitflag";
/// The configuration the first form declares.
const CFG_NAME: &str = "CFG_MDL_UNITFLAG";
/// GetMDLConfig's documented defaults before enUnitFlag (intrinsicsLimit, batchLoop, doMTE2Preload,
/// isVecND2NZ, isPerTensor, hasAntiQuantOffset), GetMDLConfig.md.
const MDL_DEFAULTS: [&str; 6] = ["false", "false", "0", "false", "false", "false"];
/// enUnitFlag's place among GetMDLConfig's parameters.
const UF_ARG: usize = 6;

/// The declaration the first form inserts, with its comment, as whole lines.
fn decl(qual: &str) -> String {
    format!(
        "// matmul-unitflag: CFG_MDL with UnitFlag on (MatmulConfig.enUnitFlag): Mmad and Fixpipe overlap per 512 B of L0C.\n\
         constexpr static {qual}MatmulConfig {CFG_NAME} = {qual}GetMDLConfig({}, true);\n",
        MDL_DEFAULTS.join(", ")
    )
}

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

/// Where the first form inserts its declaration for a Matmul use at `at`: the start of the top-level item
/// that holds it, or of the comment lines right above that item.
fn insertion_point(root: Node, text: &str, at: usize) -> Option<usize> {
    let mut n = root.descendant_for_byte_range(at, at)?;
    while let Some(p) = n.parent() {
        if p.kind() == "translation_unit" {
            break;
        }
        n = p;
    }
    n.parent()?;
    let mut start = n.start_byte();
    let mut prev = n.prev_sibling();
    while let Some(c) = prev.filter(|c| c.kind() == "comment") {
        // Adjacent: only the one newline (and indentation) between the comment and what follows.
        if text[c.end_byte()..start].matches('\n').count() > 1 {
            break;
        }
        start = c.start_byte();
        prev = c.prev_sibling();
    }
    let ls = cst::line_start(text, start);
    text[ls..start].trim().is_empty().then_some(ls)
}

/// GetMDLConfig calls: (the argument list's range, the argument texts).
fn mdl_calls(text: &str) -> Vec<(std::ops::Range<usize>, Vec<String>)> {
    let tree = cst::parse(text);
    cst::calls_named(tree.root_node(), text, "GetMDLConfig")
        .into_iter()
        .map(|c| {
            let args = c.arg_texts(text).into_iter().map(str::to_string).collect();
            (c.arguments.byte_range(), args)
        })
        .collect()
}

/// `x.enUnitFlag = <bool>` assignments: the right-hand side's range and whether it is `true`.
fn field_sets(text: &str) -> Vec<(std::ops::Range<usize>, bool)> {
    let tree = cst::parse(text);
    cst::nodes_of_kind(tree.root_node(), "assignment_expression")
        .into_iter()
        .filter_map(|a| {
            let left = a.child_by_field_name("left")?;
            let right = a.child_by_field_name("right")?;
            let field = left.child_by_field_name("field")?;
            if left.kind() != "field_expression" || text_of(field, text) != "enUnitFlag" {
                return None;
            }
            match text_of(right, text) {
                "true" => Some((right.byte_range(), true)),
                "false" => Some((right.byte_range(), false)),
                _ => None,
            }
        })
        .collect()
}

/// Matmul uses on the plain CFG_MDL, with the insertion point of their declaration: the first form's
/// apply sites (none when the file already has a CFG_MDL_UNITFLAG).
fn plain_mdl(text: &str) -> Vec<(usize, Use)> {
    if text.contains(CFG_NAME) {
        return vec![];
    }
    let tree = cst::parse(text);
    uses(text)
        .into_iter()
        .filter(|u| u.args.get(4).is_some_and(|a| is_cfg(a, "CFG_MDL")))
        .filter_map(|u| Some((insertion_point(tree.root_node(), text, u.range.start)?, u)))
        .collect()
}

/// The first form's rewind sites: a Matmul on CFG_MDL_UNITFLAG whose declaration is the motif's own,
/// right before the item that holds the use, and the name used nowhere else.
fn own_decls(text: &str) -> Vec<(usize, Use)> {
    if text.matches(CFG_NAME).count() != 2 {
        return vec![];
    }
    let tree = cst::parse(text);
    uses(text)
        .into_iter()
        .filter(|u| u.args.get(4).is_some_and(|a| a == CFG_NAME))
        .filter_map(|u| {
            let ins = insertion_point(tree.root_node(), text, u.range.start)?;
            let d = decl(&u.qual);
            text[..ins]
                .ends_with(&d)
                .then(|| (ins - d.len(), u))
                .filter(|(s, _)| *s == 0 || text.as_bytes()[s - 1] == b'\n')
        })
        .collect()
}

impl Motif for MatmulUnitFlag {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "Matmul on CFG_MDL (UnitFlag off by default) -> enUnitFlag on: Mmad and Fixpipe overlap per 512 B of L0C"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "always for the product: UnitFlag changes only how the Mmad and the Fixpipe wait for each other \
         (per 512-byte block of L0C instead of per instruction), not what they compute or write. Checked: \
         the site is a `Matmul<...>` with `CFG_MDL` as its fifth argument (a declaration with the \
         documented GetMDLConfig defaults and enUnitFlag true is inserted before the item that holds it), \
         a `GetMDLConfig(...)` call whose seventh argument (enUnitFlag) is `false` or absent, or an \
         assignment `x.enUnitFlag = false`. The documented limits (no L0C accumulation over several \
         Iterate calls before one GetTensorC; not both L0C -> GM and L1 -> GM copies in the operator) are \
         not checked: the twin runs such kernels in order and the trial's verification decides"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let mut out: Vec<Site> = plain_mdl(text)
            .into_iter()
            .map(|(ins, u)| Site::new(ins..u.range.end, text, "Matmul on CFG_MDL (UnitFlag off)"))
            .collect();
        out.extend(
            mdl_calls(text)
                .into_iter()
                .filter(|(_, a)| a.get(UF_ARG).is_none_or(|v| v == "false"))
                .map(|(r, _)| Site::new(r, text, "GetMDLConfig with enUnitFlag off")),
        );
        out.extend(
            field_sets(text)
                .into_iter()
                .filter(|(_, on)| !on)
                .map(|(r, _)| Site::new(r, text, "enUnitFlag = false")),
        );
        out.sort_by_key(|s| s.range.start);
        out
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let at = site.range.start;
        let new = if let Some(r) = &site.restore {
            r.clone()
        } else if let Some((ins, u)) = plain_mdl(text)
            .into_iter()
            .find(|(ins, u)| (*ins..u.range.end) == site.range)
        {
            let cfg = u.cfg.clone().ok_or_else(|| error(text, at, "no config"))?;
            format!(
                "{}{}{CFG_NAME}{}",
                decl(&u.qual),
                &text[ins..cfg.start],
                &text[cfg.end..u.range.end]
            )
        } else if let Some((_, args)) = mdl_calls(text).into_iter().find(|(r, _)| *r == site.range)
        {
            let mut args = args;
            while args.len() < UF_ARG {
                args.push(MDL_DEFAULTS[args.len()].to_string());
            }
            match args.get_mut(UF_ARG) {
                Some(v) if v == "false" => *v = "true".into(),
                Some(_) => return Err(error(text, at, "enUnitFlag is not `false` here")),
                None => args.push("true".into()),
            }
            format!("({})", args.join(", "))
        } else if field_sets(text)
            .iter()
            .any(|(r, on)| *r == site.range && !on)
        {
            "true".into()
        } else {
            return Err(error(
                text,
                at,
                "no Matmul on CFG_MDL or enUnitFlag off here",
            ));
        };
        let out = cst::splice(text, site.range.clone(), &new);
        let inverse = Site::new(at..at + new.len(), &out, "Matmul with UnitFlag on")
            .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: out, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let own = own_decls(text);
        let mut out: Vec<Site> = own
            .iter()
            .map(|(s, u)| Site::new(*s..u.range.end, text, "Matmul on CFG_MDL_UNITFLAG"))
            .collect();
        out.extend(
            mdl_calls(text)
                .into_iter()
                .filter(|(r, a)| {
                    a.get(UF_ARG).is_some_and(|v| v == "true")
                        && !own
                            .iter()
                            .any(|(s, u)| *s <= r.start && r.end <= u.range.end)
                })
                .map(|(r, _)| Site::new(r, text, "GetMDLConfig with enUnitFlag on")),
        );
        out.extend(
            field_sets(text)
                .into_iter()
                .filter(|(_, on)| *on)
                .map(|(r, _)| Site::new(r, text, "enUnitFlag = true")),
        );
        out.sort_by_key(|s| s.range.start);
        out
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let at = site.range.start;
        let new = if let Some(r) = &site.restore {
            r.clone()
        } else if let Some((s, u)) = own_decls(text)
            .into_iter()
            .find(|(s, u)| (*s..u.range.end) == site.range)
        {
            let cfg = u.cfg.clone().ok_or_else(|| error(text, at, "no config"))?;
            let d = decl(&u.qual).len();
            format!(
                "{}{}CFG_MDL{}",
                &text[s + d..cfg.start],
                u.qual,
                &text[cfg.end..u.range.end]
            )
        } else if let Some((_, mut args)) =
            mdl_calls(text).into_iter().find(|(r, _)| *r == site.range)
        {
            match args.get_mut(UF_ARG) {
                Some(v) if v == "true" => *v = "false".into(),
                _ => return Err(error(text, at, "enUnitFlag is not `true` here")),
            }
            format!("({})", args.join(", "))
        } else if field_sets(text)
            .iter()
            .any(|(r, on)| *r == site.range && *on)
        {
            "false".into()
        } else {
            return Err(error(text, at, "no Matmul with UnitFlag on here"));
        };
        let out = cst::splice(text, site.range.clone(), &new);
        let inverse = Site::new(at..at + new.len(), &out, "Matmul with UnitFlag off");
        Ok(Edit { text: out, inverse })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    const MDL: &str = "#include \"lib/matmul_intf.h\"\nusing namespace AscendC;\n\n\
        // The kernel.\nextern \"C\" __global__ __aicore__ void k(GM_ADDR a)\n{\n    \
        Matmul<AType, BType, CType, BiasType, CFG_MDL> mm;\n}\n";

    #[test]
    fn cfg_mdl_gains_a_unit_flag_config_before_the_kernel_and_rewinds_byte_for_byte() {
        let sites = MatmulUnitFlag.apply_sites(MDL);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = MatmulUnitFlag.apply(MDL, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "using namespace AscendC;\n\n// matmul-unitflag: CFG_MDL with UnitFlag on (MatmulConfig.enUnitFlag): Mmad and Fixpipe overlap per 512 B of L0C.\n\
                 constexpr static MatmulConfig CFG_MDL_UNITFLAG = GetMDLConfig(false, false, 0, false, false, false, true);\n\
                 // The kernel.\nextern"
            ),
            "{}",
            edit.text
        );
        assert!(
            edit.text
                .contains("Matmul<AType, BType, CType, BiasType, CFG_MDL_UNITFLAG> mm;")
        );
        // Applied once: no apply site left; the rewind site is the whole span, found in the text.
        assert!(MatmulUnitFlag.apply_sites(&edit.text).is_empty());
        let back = MatmulUnitFlag.rewind_sites(&edit.text);
        assert_eq!(back.len(), 1, "{back:?}");
        assert_eq!(
            MatmulUnitFlag.rewind(&edit.text, &back[0]).unwrap().text,
            MDL
        );
        assert_eq!(round_trips(&MatmulUnitFlag, MDL), 1);
        assert_eq!(rewinds_round_trip(&MatmulUnitFlag, &edit.text), 1);
        // Norm (UnitFlag already on by default) and other configurations are no site.
        for other in [
            "Matmul<A, B, C> mm;\n",
            "Matmul<A, B, C, Bias, MY_CFG> mm;\n",
        ] {
            assert!(MatmulUnitFlag.apply_sites(other).is_empty(), "{other}");
            assert!(MatmulUnitFlag.rewind_sites(other).is_empty(), "{other}");
        }
    }

    #[test]
    fn get_mdl_config_and_the_guides_field_form_flip_enunitflag() {
        let k = "constexpr MatmulConfig C1 = GetMDLConfig();\n\
                 constexpr MatmulConfig C2 = AscendC::GetMDLConfig(false, false, 0, false, false, false, false, true);\n\
                 constexpr MatmulConfig F() { auto c = CFG_MDL; c.enUnitFlag = false; return c; }\n";
        let mut cur = k.to_string();
        while let Some(s) = MatmulUnitFlag.apply_sites(&cur).into_iter().next() {
            cur = MatmulUnitFlag.apply(&cur, &s).unwrap().text;
        }
        assert_eq!(
            cur,
            "constexpr MatmulConfig C1 = GetMDLConfig(false, false, 0, false, false, false, true);\n\
             constexpr MatmulConfig C2 = AscendC::GetMDLConfig(false, false, 0, false, false, false, true, true);\n\
             constexpr MatmulConfig F() { auto c = CFG_MDL; c.enUnitFlag = true; return c; }\n"
        );
        assert_eq!(round_trips(&MatmulUnitFlag, k), 3);
        assert_eq!(MatmulUnitFlag.rewind_sites(&cur).len(), 3);
        assert_eq!(rewinds_round_trip(&MatmulUnitFlag, &cur), 3);
        // Rewinding found text writes `false` (it cannot know the call was written without arguments).
        let s = &MatmulUnitFlag.rewind_sites(&cur)[0];
        assert!(MatmulUnitFlag.rewind(&cur, s).unwrap().text.starts_with(
            "constexpr MatmulConfig C1 = GetMDLConfig(false, false, 0, false, false, false, false);"
        ));
    }

    #[test]
    fn matmul_custom_on_mdl_takes_unit_flag_and_its_norm_form_is_no_site() {
        let (naive, _) = fixture_kernel("matmul_custom");
        assert!(MatmulUnitFlag.apply_sites(&naive).is_empty());
        let mdl = naive.replace(
            "Matmul<AType, BType, CType, BiasType> mm;",
            "Matmul<AType, BType, CType, BiasType, CFG_MDL> mm;",
        );
        assert_eq!(round_trips(&MatmulUnitFlag, &mdl), 1);
        let edit = MatmulUnitFlag
            .apply(&mdl, &MatmulUnitFlag.apply_sites(&mdl)[0])
            .unwrap();
        assert_eq!(
            cst::syntax_errors(&edit.text),
            cst::syntax_errors(&naive),
            "{}",
            edit.text
        );
        // The declaration goes right before the kernel's comment lines, after the type aliases.
        let d = edit.text.find("constexpr static MatmulConfig").unwrap();
        assert!(d > edit.text.find("using BiasType").unwrap());
        assert!(d < edit.text.find("extern \"C\"").unwrap());
    }
}
