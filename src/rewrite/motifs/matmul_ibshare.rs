//! matmul-ibshare: in a MIX kernel, a high-level `Matmul` on the Norm template whose B `MatmulType` is not
//! shared takes the IBShare template: B's `MatmulType` gets `IBSHARE` true and the Matmul
//! `CFG_IBSHARE_NORM`, so the two AIVs of a group that set the same B share one copy of it in L1 and the
//! second moves none of it (asc-devkit guide 优秀实践/Matmul性能调优案例/Matmul高阶API使能IBShare模板共享B矩阵
//! 数据.md, measured `bp_ibshare_b` 10.29 -> 9.93 us, aic_mte2_time 5.56 -> 4.71 us, ../shared/measured/;
//! GetIBShareNormConfig.md: MIX only, not pure Cube).
//!
//! The site is B's type with the Matmuls taking it: the `MatmulType<...>` written inside a Matmul, or a
//! `using` alias declared before the Matmuls that name it as B and used by no other type; all of them
//! change together (B alone shared needs the IBShare template on every Matmul that shares it), but a
//! Matmul in the branch of a preprocessor conditional that makes the code pure Cube, which stays on Norm. Three to five MatmulType arguments get the documented
//! defaults (`false`, `LayoutMode::NONE`) and `true`; a sixth `false` becomes `true`. Three or four Matmul
//! arguments get the default bias type (the C type) and `CFG_IBSHARE_NORM`; a fifth `CFG_NORM` becomes it.
//! Rewinding turns found text back to `IBSHARE` false and `CFG_NORM`; an applied edit is restored byte for
//! byte. It knows C++ through the syntax tree; nothing of measuring or the bank.

use super::matmul_mdl::{Use, is_cfg, uses};
use crate::rewrite::cst::{self, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::ops::Range;
use tree_sitter::Node;

pub struct MatmulIbShare;

const NAME: &str = "matmul-ibshare";
const CFG: &str = "CFG_IBSHARE_NORM";
/// MatmulType's documented defaults before IBSHARE (ISTRANS, LAYOUT), Matmul模板参数.md.
const TYPE_DEFAULTS: [&str; 2] = ["false", "LayoutMode::NONE"];
/// IBSHARE's place among MatmulType's parameters.
const SHARE_ARG: usize = 5;
/// What makes a whole file's kernels pure Cube, where IBShare is not supported (GetIBShareNormConfig.md),
/// when written outside a preprocessor conditional. Not `__cube__`: it marks one kernel function, and
/// asc-devkit's matmul_ibshareB keeps a `__cube__` kernel (and `#define ASCENDC_CUBE_ONLY`) for its pure
/// Cube scenario beside the MIX one, under `#if SCENARIO_NUM == 2`. A candidate in a pure Cube kernel
/// changes nothing on the twin (no group shares anything) and is never kept.
const CUBE_ONLY: [&str; 2] = ["ASCENDC_CUBE_ONLY", "KERNEL_TYPE_AIC_ONLY"];

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

/// A `MatmulType<...>` template type: the range of its argument list (`<...>`) and the arguments' texts.
struct TypeArgs {
    list: Range<usize>,
    args: Vec<String>,
}

/// The `MatmulType<...>` that is the whole of the text in `range` (qualified or not).
fn matmul_type_in(text: &str, root: Node, range: Range<usize>) -> Option<TypeArgs> {
    cst::nodes_of_kind(root, "template_type")
        .into_iter()
        .filter(|n| range.start <= n.start_byte() && n.end_byte() == range.end)
        .find_map(|n| {
            let name = n.child_by_field_name("name")?;
            let list = n.child_by_field_name("arguments")?;
            if text_of(name, text) != "MatmulType" {
                return None;
            }
            let mut cursor = list.walk();
            let args = list
                .named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .map(|c| text_of(c, text).to_string())
                .collect();
            Some(TypeArgs {
                list: list.byte_range(),
                args,
            })
        })
}

/// Where B's MatmulType is for a Matmul use: the range of the type's text (inside the use, or the type of
/// a `using` alias declared before the use that only Matmuls' B arguments name: asc-devkit's
/// matmul_ibshareB names its B_TYPE in two Matmuls, one per `#if` branch), and where the site starts
/// (the use, or the alias: every Matmul naming one alias is one site).
fn b_type(text: &str, root: Node, u: &Use, all: &[Use]) -> Option<(Range<usize>, usize)> {
    let b = u.arg_ranges.get(1)?.clone();
    if text[b.clone()].contains("MatmulType") {
        return Some((b, u.range.start));
    }
    let name = &text[b.clone()];
    let named = cst::nodes_of_kind(root, "type_identifier")
        .into_iter()
        .filter(|n| text_of(*n, text) == name)
        .count();
    let as_b = all
        .iter()
        .filter(|o| o.args.get(1).is_some_and(|a| a == name))
        .count();
    if named != 1 + as_b {
        return None;
    }
    cst::nodes_of_kind(root, "alias_declaration")
        .into_iter()
        .filter(|d| d.end_byte() <= u.range.start)
        .find_map(|d| {
            let alias = d.child_by_field_name("name")?;
            let ty = d.child_by_field_name("type")?;
            (text_of(alias, text) == name).then(|| (ty.byte_range(), d.start_byte()))
        })
}

/// One site: B's type and the Matmuls that take it (one for a type written inside the Matmul; each
/// Matmul naming an alias, but those of a pure Cube branch), and the span they all lie in.
struct Found {
    span: Range<usize>,
    uses: Vec<Use>,
    b: TypeArgs,
}

/// The preprocessor branches enclosing `at`, innermost first: each `#if`'s condition text and whether
/// `at` is in its `#else` / `#elif` part.
fn branches(text: &str, root: Node, at: usize) -> Vec<(String, bool)> {
    let mut out = vec![];
    let mut in_alternative = false;
    let mut n = root.descendant_for_byte_range(at, at);
    while let Some(node) = n {
        match node.kind() {
            "preproc_else" => in_alternative = true,
            "preproc_if" | "preproc_elif" => {
                if let Some(c) = node.child_by_field_name("condition") {
                    out.push((text_of(c, text).trim().to_string(), in_alternative));
                }
                // an `#elif` is itself the alternative of the `#if` before it
                in_alternative = node.kind() == "preproc_elif";
            }
            _ => {}
        }
        n = node.parent();
    }
    out
}

/// Where a `CUBE_ONLY` marker makes the code pure Cube: None when one stands outside every
/// preprocessor conditional (the whole file), else the branches holding one (the innermost of each).
fn cube_only_branches(text: &str, root: Node) -> Option<Vec<(String, bool)>> {
    let mut inside = vec![];
    for (at, _) in CUBE_ONLY.iter().flat_map(|m| text.match_indices(m)) {
        match branches(text, root, at).into_iter().next() {
            Some(b) => inside.push(b),
            None => return None,
        }
    }
    Some(inside)
}

fn found(text: &str) -> Vec<Found> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    // Not pure Cube: no `CUBE_ONLY` marker outside a preprocessor conditional (the example defines
    // ASCENDC_CUBE_ONLY under `#if SCENARIO_NUM == 2` only, and keeps that scenario's Matmul on Norm
    // under the same condition: that Matmul is left as it is).
    let Some(cube_branches) = cube_only_branches(text, root) else {
        return vec![];
    };
    let pure_cube = |u: &Use| {
        branches(text, root, u.range.start)
            .iter()
            .any(|b| cube_branches.contains(b))
    };
    let all = uses(text);
    let typed: Vec<Option<(Range<usize>, usize)>> =
        all.iter().map(|u| b_type(text, root, u, &all)).collect();
    let mut out: Vec<Found> = vec![];
    for (u, ty) in all.into_iter().zip(typed) {
        let Some((ty, start)) = ty else {
            continue;
        };
        if pure_cube(&u) {
            continue;
        }
        if let Some(f) = out.iter_mut().find(|f| f.span.start == start) {
            f.span.end = f.span.end.max(u.range.end);
            f.uses.push(u);
            continue;
        }
        let Some(b) = matmul_type_in(text, root, ty) else {
            continue;
        };
        // B in GM, as the guide's.
        if !b.args.first().is_some_and(|p| p.ends_with("GM")) {
            continue;
        }
        out.push(Found {
            span: start..u.range.end,
            uses: vec![u],
            b,
        });
    }
    out
}

fn on_norm(u: &Use) -> bool {
    matches!(u.args.len(), 3 | 4) || u.args.get(4).is_some_and(|a| is_cfg(a, "CFG_NORM"))
}

fn on_ibshare(u: &Use) -> bool {
    u.args.get(4).is_some_and(|a| is_cfg(a, CFG))
}

/// An apply site: Matmuls on Norm whose B (three MatmulType arguments at least) has IBSHARE left out or
/// `false`.
fn applies(f: &Found) -> bool {
    f.uses.iter().all(on_norm)
        && f.b.args.len() >= 3
        && f.b.args.get(SHARE_ARG).is_none_or(|a| a == "false")
}

/// A rewind site: Matmuls on CFG_IBSHARE_NORM whose B has IBSHARE `true`.
fn rewinds(f: &Found) -> bool {
    f.uses.iter().all(on_ibshare) && f.b.args.get(SHARE_ARG).is_some_and(|a| a == "true")
}

/// The span's text with B's argument list and each Matmul's configuration replaced: `cfg` keeps the
/// qualification of the configuration it replaces, or takes the Matmul's where it is added.
fn respliced(text: &str, f: &Found, b_args: &[String], cfg: &str) -> String {
    let rel = |r: &Range<usize>| r.start - f.span.start..r.end - f.span.start;
    let mut edits = vec![(rel(&f.b.list), format!("<{}>", b_args.join(", ")))];
    for u in &f.uses {
        let (at, with) = match (&u.cfg, u.args.len()) {
            (Some(c), _) => {
                let old = &text[c.clone()];
                let qual = &old[..old.rfind("::").map_or(0, |i| i + 2)];
                (c.clone(), format!("{qual}{cfg}"))
            }
            (None, 3) => {
                let end = u.arg_ranges[2].end;
                (end..end, format!(", {}, {}{cfg}", u.args[2], u.qual))
            }
            (None, _) => {
                let end = u.arg_ranges[u.args.len() - 1].end;
                (end..end, format!(", {}{cfg}", u.qual))
            }
        };
        edits.push((rel(&at), with));
    }
    cst::splice_many(&text[f.span.clone()], &edits)
}

impl Motif for MatmulIbShare {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "MIX Matmul on Norm -> B's MatmulType IBSHARE and CFG_IBSHARE_NORM: a group's AIVs load their common B into L1 once"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "the AIVs of each group set the same B (the guide's precondition: the same GM address on every \
         AIV); then each computes what it did, from one copy of B in L1. Checked here: the file is not \
         pure Cube (no ASCENDC_CUBE_ONLY or KERNEL_TYPE_AIC_ONLY), the Matmul is on Norm (three or four \
         arguments, or CFG_NORM), B is a MatmulType in GM written in the Matmul or in an alias no other type \
         names. The precondition is checked when the trial runs: the twin faults when two AIVs of a group \
         set different B (the trial fails). The load is saved where B is whole in L1 (the tiling's stepN and \
         stepKb cover the core's N and K), the case the guide describes"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        found(text)
            .into_iter()
            .filter(applies)
            .map(|f| Site::new(f.span, text, "MIX Matmul on Norm, B not shared"))
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let at = site.range.start;
        let new = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let f = found(text)
                    .into_iter()
                    .find(|f| f.span == site.range && applies(f))
                    .ok_or_else(|| {
                        error(text, at, "no MIX Matmul on Norm with an unshared B here")
                    })?;
                let mut args = f.b.args.clone();
                while (3..SHARE_ARG).contains(&args.len()) {
                    args.push(TYPE_DEFAULTS[args.len() - 3].to_string());
                }
                match args.get_mut(SHARE_ARG) {
                    Some(v) => *v = "true".into(),
                    None => args.push("true".into()),
                }
                respliced(text, &f, &args, CFG)
            }
        };
        let out = cst::splice(text, site.range.clone(), &new);
        let inverse = Site::new(
            at..at + new.len(),
            &out,
            "MIX Matmul with B shared (IBShare)",
        )
        .restoring(text[site.range.clone()].to_string());
        Ok(Edit { text: out, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        found(text)
            .into_iter()
            .filter(rewinds)
            .map(|f| Site::new(f.span, text, "MIX Matmul with B shared (IBShare)"))
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let at = site.range.start;
        let new = match &site.restore {
            Some(r) => r.clone(),
            None => {
                let f = found(text)
                    .into_iter()
                    .find(|f| f.span == site.range && rewinds(f))
                    .ok_or_else(|| {
                        error(
                            text,
                            at,
                            "no Matmul on CFG_IBSHARE_NORM with a shared B here",
                        )
                    })?;
                let mut args = f.b.args.clone();
                args[SHARE_ARG] = "false".into();
                respliced(text, &f, &args, "CFG_NORM")
            }
        };
        let out = cst::splice(text, site.range.clone(), &new);
        let inverse = Site::new(at..at + new.len(), &out, "MIX Matmul on Norm, B not shared");
        Ok(Edit { text: out, inverse })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    /// The guide's form: B an alias, the Matmul on Norm by default.
    const ALIAS: &str = "#include \"lib/matmul_intf.h\"\n\
        template <typename A, typename B, typename C> class K {\n\
        public:\n    \
        using A_TYPE = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, A>;\n    \
        using B_TYPE = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, B>;\n    \
        using C_TYPE = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, C>;\n    \
        AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE> mm;\n};\n\
        extern \"C\" __global__ __aicore__ void k(GM_ADDR a) {}\n";

    #[test]
    fn an_aliased_b_becomes_shared_and_the_matmul_takes_the_ibshare_template() {
        let sites = MatmulIbShare.apply_sites(ALIAS);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = MatmulIbShare.apply(ALIAS, &sites[0]).unwrap();
        assert!(
            edit.text.contains(
                "using B_TYPE = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, B, false, LayoutMode::NONE, true>;"
            ) && edit
                .text
                .contains("AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE, C_TYPE, AscendC::CFG_IBSHARE_NORM> mm;"),
            "{}",
            edit.text
        );
        assert!(MatmulIbShare.apply_sites(&edit.text).is_empty());
        assert_eq!(round_trips(&MatmulIbShare, ALIAS), 1);
        // Found text rewinds to IBSHARE false and CFG_NORM, and applying again gives it back.
        assert_eq!(rewinds_round_trip(&MatmulIbShare, &edit.text), 1);
        let back = MatmulIbShare
            .rewind(&edit.text, &MatmulIbShare.rewind_sites(&edit.text)[0])
            .unwrap();
        assert!(
            back.text.contains("B, false, LayoutMode::NONE, false>;")
                && back.text.contains("C_TYPE, C_TYPE, AscendC::CFG_NORM> mm;")
        );
    }

    /// One alias named as B by two MIX Matmuls is one site: both take CFG_IBSHARE_NORM with the alias.
    /// Found running `tune` on asc-devkit's matmul_ibshareB: each Matmul was a site of its own, the first
    /// edit shared the alias, and the second Matmul, whose B was then shared already, kept CFG_NORM.
    #[test]
    fn an_alias_two_mix_matmuls_take_as_b_is_one_site_for_both() {
        let k = ALIAS.replace(
            "AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE> mm;",
            "AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE> mm;
    AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE, C_TYPE, AscendC::CFG_NORM> mm2;",
        );
        let sites = MatmulIbShare.apply_sites(&k);
        assert_eq!(sites.len(), 1, "{sites:?}");
        let edit = MatmulIbShare.apply(&k, &sites[0]).unwrap();
        assert!(
            edit.text.contains("CubeFormat::ND, B, false, LayoutMode::NONE, true>;")
                && edit
                    .text
                    .contains("AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE, C_TYPE, AscendC::CFG_IBSHARE_NORM> mm;")
                && edit
                    .text
                    .contains("AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE, C_TYPE, AscendC::CFG_IBSHARE_NORM> mm2;"),
            "{}",
            edit.text
        );
        assert!(MatmulIbShare.apply_sites(&edit.text).is_empty());
        assert_eq!(round_trips(&MatmulIbShare, &k), 1);
        assert_eq!(rewinds_round_trip(&MatmulIbShare, &edit.text), 1);
        // One of them on MDL: the alias is no site (sharing it would leave that one on a template
        // that does not share).
        let mdl = k.replace("AscendC::CFG_NORM> mm2;", "AscendC::CFG_MDL> mm2;");
        assert!(MatmulIbShare.apply_sites(&mdl).is_empty());
    }

    /// asc-devkit's matmul_ibshareB names its B_TYPE in two Matmuls, one per `#if` branch (Norm for its
    /// pure Cube `__cube__` scenario, IBShare for MIX): the IBShare one rewinds, and applying gives it
    /// back; the rewound file, whose MIX Matmul is on Norm again, is an apply site.
    #[test]
    fn an_alias_two_matmuls_take_as_b_rewinds_at_the_shared_one() {
        let k = "#if SCENARIO_NUM == 2\n#define ASCENDC_CUBE_ONLY\n#endif\n\
            #include \"lib/matmul_intf.h\"\n\
            using B_TYPE = AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, false, LayoutMode::NONE, true>;\n\
            #if SCENARIO_NUM == 2\n\
            AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, CFG_NORM> matmulObj;\n\
            #else\n\
            AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE, BIAS_TYPE, CFG_IBSHARE_NORM> matmulObj;\n\
            #endif\n\
            #if SCENARIO_NUM == 2\n\
            extern \"C\" __global__ __cube__ void k(GM_ADDR a) {}\n\
            #else\n\
            extern \"C\" __global__ __aicore__ void k(GM_ADDR a) {}\n\
            #endif\n";
        let back = MatmulIbShare.rewind_sites(k);
        assert_eq!(back.len(), 1, "{back:?}");
        let edit = MatmulIbShare.rewind(k, &back[0]).unwrap();
        assert!(
            edit.text.contains("half, false, LayoutMode::NONE, false>;")
                && edit
                    .text
                    .contains("BIAS_TYPE, CFG_NORM> matmulObj;\n#endif"),
            "{}",
            edit.text
        );
        assert_eq!(rewinds_round_trip(&MatmulIbShare, k), 1);
        // Applied again, the MIX Matmul takes IBShare and the pure Cube one (under the condition that
        // defines ASCENDC_CUBE_ONLY) stays on Norm: the example as published.
        let again = MatmulIbShare.apply_sites(&edit.text);
        assert_eq!(again.len(), 1, "{again:?}");
        assert_eq!(MatmulIbShare.apply(&edit.text, &again[0]).unwrap().text, k);
    }

    #[test]
    fn inline_types_and_cfg_norm_flip_and_pure_cube_or_shared_aliases_are_no_site() {
        let inline = "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, \
            MatmulType<TPosition::GM, CubeFormat::ND, half, true, LayoutMode::NONE, false>, \
            MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>, CFG_NORM> mm;\n";
        let edit = MatmulIbShare
            .apply(inline, &MatmulIbShare.apply_sites(inline)[0])
            .unwrap();
        assert!(
            edit.text.contains("half, true, LayoutMode::NONE, true>"),
            "{}",
            edit.text
        );
        assert!(
            edit.text.ends_with(", CFG_IBSHARE_NORM> mm;\n"),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&MatmulIbShare, inline), 1);
        assert_eq!(rewinds_round_trip(&MatmulIbShare, &edit.text), 1);
        // Pure Cube: IBShare is MIX only.
        let cube = format!("#define ASCENDC_CUBE_ONLY\n{ALIAS}");
        assert!(MatmulIbShare.apply_sites(&cube).is_empty());
        // MDL, an alias another type names too, and B outside GM are no site.
        let mdl = ALIAS.replace("C_TYPE> mm;", "C_TYPE, C_TYPE, CFG_MDL> mm;");
        let twice = ALIAS.replace(
            "AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE> mm;",
            "AscendC::Matmul<A_TYPE, B_TYPE, C_TYPE> mm;\n    std::vector<B_TYPE> other;",
        );
        let vecin = ALIAS.replace(
            "TPosition::GM, CubeFormat::ND, B>",
            "TPosition::VECIN, CubeFormat::ND, B>",
        );
        for k in [mdl, twice, vecin] {
            assert!(MatmulIbShare.apply_sites(&k).is_empty(), "{k}");
        }
    }
}
