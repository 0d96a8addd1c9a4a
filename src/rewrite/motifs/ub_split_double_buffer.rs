//! ub-split-double-buffer (a host motif): the tiling function plans its tiles for half the UB the
//! platform reports, so every queue of the kernel can hold two buffers (the copy of the next tile then
//! overlaps the work on this one), or so a core that ran one tile runs two that overlap. Real tiling
//! functions size their tiles from `GetCoreMemSize(CoreMemType::UB, ubSize)`; the edit adds
//! `ubSize = ubSize / 2;` right after that query (`*ubSize = *ubSize / 2;` where the query fills
//! through a pointer). It works on host (`op_host/`) files only; it knows nothing of the kernel.

use crate::rewrite::cst::{self, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Scope, Site};
use tree_sitter::Node;

pub struct UbSplitDoubleBuffer;

pub const NAME: &str = "ub-split-double-buffer";

impl Motif for UbSplitDoubleBuffer {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "host tiling plans for half the UB it queries: room for two buffers per queue, or twice the tiles"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "the variable is filled by the one `GetCoreMemSize(CoreMemType::UB, v)` query of a host tiling \
         function and the tiling derives tile sizes from it: a smaller UB budget only gives smaller tiles, \
         which a tiling that handles any length (tails included) computes the same outputs with. The \
         site is the query statement not already followed by a division of the variable; the shape \
         probes verify every candidate at tails and odd lengths"
    }
    fn scope(&self) -> Scope {
        Scope::Host
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        queries(text)
            .into_iter()
            .filter(|q| !q.divided)
            .map(|q| {
                Site::new(
                    q.end..q.end,
                    text,
                    format!("UB query filling `{}`: tiles planned for all of it", q.var),
                )
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let q = queries(text)
            .into_iter()
            .find(|q| q.end == site.range.start && site.range.is_empty() && !q.divided)
            .ok_or_else(|| error(site, "expected a UB query not followed by a division here"))?;
        let stmt = q.statement();
        let new = cst::splice(text, q.end..q.end, &stmt);
        let inverse = Site::new(
            q.end..q.end + stmt.len(),
            &new,
            format!("`{}` halved after the UB query", q.var),
        );
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        queries(text)
            .into_iter()
            .filter_map(|q| {
                let r = q.halved.clone()?;
                Some(Site::new(
                    r,
                    text,
                    format!("`{}` halved after the UB query", q.var),
                ))
            })
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let q = queries(text)
            .into_iter()
            .find(|q| q.halved.as_ref() == Some(&site.range))
            .ok_or_else(|| error(site, "expected `v = v / 2;` right after a UB query here"))?;
        let new = cst::splice(text, site.range.clone(), "");
        let inverse = Site::new(
            q.end..q.end,
            &new,
            format!("UB query filling `{}`: tiles planned for all of it", q.var),
        );
        Ok(Edit { text: new, inverse })
    }
}

fn error(site: &Site, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: site.line,
        why: why.to_string(),
    }
}

/// One `GetCoreMemSize(<...UB>, v)` statement whose variable no other UB query fills.
struct Query {
    /// The variable as the call writes it: `ubSize` or `*ubSize`.
    var: String,
    indent: String,
    /// End of the query statement (after its `;`).
    end: usize,
    /// The bytes of `\n{indent}v = v / 2;` when that statement follows on the next line.
    halved: Option<std::ops::Range<usize>>,
    /// Whether the next line divides the variable already (by any number).
    divided: bool,
}

impl Query {
    fn statement(&self) -> String {
        format!("\n{}{} = {} / 2;", self.indent, self.var, self.var)
    }
}

fn queries(text: &str) -> Vec<Query> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let mut found: Vec<Query> = vec![];
    for call in cst::calls_named(root, text, "GetCoreMemSize") {
        let args = call.args();
        let [kind, var] = args.as_slice() else {
            continue;
        };
        if !text_of(*kind, text).ends_with("UB") || !is_variable(*var, text) {
            continue;
        }
        let Some(stmt) = call.statement() else {
            continue;
        };
        let var = text_of(*var, text).to_string();
        let end = stmt.end_byte();
        let indent = cst::indent_at(text, stmt.start_byte()).to_string();
        let q = Query {
            var,
            indent,
            end,
            halved: None,
            divided: false,
        };
        let want = q.statement();
        let halved = (text[end..].starts_with(&want)
            && stmt
                .next_named_sibling()
                .is_some_and(|n| n.end_byte() == end + want.len()))
        .then(|| end..end + want.len());
        let divided = text[end..].starts_with(&format!("\n{}{} = {} / ", q.indent, q.var, q.var));
        found.push(Query {
            halved,
            divided,
            ..q
        });
    }
    // A variable two queries fill is ambiguous: which plan would the halving change?
    let names: Vec<String> = found.iter().map(|q| q.var.clone()).collect();
    found.retain(|q| names.iter().filter(|v| **v == q.var).count() == 1);
    found
}

/// `ubSize`, `this->ubSize`-free plain names and `*ubSize`: what a query can fill.
fn is_variable(node: Node, text: &str) -> bool {
    match node.kind() {
        "identifier" => true,
        "pointer_expression" => {
            text_of(node, text).starts_with('*')
                && node
                    .child_by_field_name("argument")
                    .is_some_and(|a| a.kind() == "identifier")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    const HOST: &str = r#"
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    auto ascendcPlatform = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint64_t ubSize = 0;
    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t tile = ubSize / 6;
    return ge::GRAPH_SUCCESS;
}
"#;

    const POINTER: &str = r#"
static ge::graphStatus GetPlatformInfo(gert::TilingContext* context, uint64_t* ubSize)
{
    auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, *ubSize);
    return ge::GRAPH_SUCCESS;
}
"#;

    #[test]
    fn halves_the_ub_after_the_query_and_rewinds_it() {
        let m = UbSplitDoubleBuffer;
        let sites = m.apply_sites(HOST);
        assert_eq!(sites.len(), 1);
        let e = m.apply(HOST, &sites[0]).unwrap();
        assert!(
            e.text
                .contains("UB, ubSize);\n    ubSize = ubSize / 2;\n    uint32_t tile"),
            "{}",
            e.text
        );
        // Once halved, there is nothing more to apply, and the rewind site is the added statement.
        assert!(m.apply_sites(&e.text).is_empty());
        assert_eq!(m.rewind(&e.text, &e.inverse).unwrap().text, HOST);
        assert_eq!(round_trips(&m, HOST), 1);
        assert_eq!(rewinds_round_trip(&m, &e.text), 1);
    }

    #[test]
    fn a_query_through_a_pointer_halves_what_it_points_to() {
        let m = UbSplitDoubleBuffer;
        let e = m.apply(POINTER, &m.apply_sites(POINTER)[0]).unwrap();
        assert!(
            e.text.contains("*ubSize);\n    *ubSize = *ubSize / 2;\n"),
            "{}",
            e.text
        );
        assert_eq!(round_trips(&m, POINTER), 1);
    }

    #[test]
    fn no_site_without_a_single_ub_query_or_with_another_division() {
        let m = UbSplitDoubleBuffer;
        // Another memory kind, or the same variable filled twice: no site.
        let l1 = HOST.replace("CoreMemType::UB", "CoreMemType::L1");
        assert!(m.apply_sites(&l1).is_empty());
        let twice = HOST.replace(
            "    uint32_t tile",
            "    ascendcPlatform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);\n    uint32_t tile",
        );
        assert!(m.apply_sites(&twice).is_empty());
        // A division by another number is the host's own plan (a `ub_parts` tunable owns it): it is not
        // this motif's to rewind, and there is no apply site either.
        let thirds = HOST.replace("ubSize);\n", "ubSize);\n    ubSize = ubSize / 3;\n");
        assert!(m.rewind_sites(&thirds).is_empty());
        assert!(m.apply_sites(&thirds).is_empty());
        // A kernel file has no UB query: the motif never fires there.
        let (naive, _) = fixture_kernel("add_custom");
        assert!(m.apply_sites(&naive).is_empty());
    }
}
