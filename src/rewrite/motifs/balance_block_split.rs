//! balance-block-split: an `Init` that splits its rows evenly over the blocks, which only works when every
//! block gets the same whole number of tiles,
//!
//! ```text
//! uint32_t blockRows = tiling.totalRows / AscendC::GetBlockNum();
//! this->tileNum = blockRows / tiling.rowsPerTile;
//! uint64_t offset = (uint64_t)blockRows * AscendC::GetBlockIdx() * this->rowLength;
//! ```
//!
//! becomes a split of whole tiles in which the first `tiles % blocks` blocks take one tile more:
//!
//! ```text
//! // Whole tiles shared out over the blocks: the first tileRem blocks take one tile more.
//! uint32_t tileAll = tiling.totalRows / tiling.rowsPerTile;
//! uint32_t tileRem = tileAll % AscendC::GetBlockNum();
//! uint32_t tileFirst = tileAll / AscendC::GetBlockNum() * AscendC::GetBlockIdx() + (AscendC::GetBlockIdx() < tileRem ? AscendC::GetBlockIdx() : tileRem);
//! uint32_t blockRows = (tileAll / AscendC::GetBlockNum() + (AscendC::GetBlockIdx() < tileRem ? 1 : 0)) * tiling.rowsPerTile;
//! this->tileNum = blockRows / tiling.rowsPerTile;
//! uint64_t offset = (uint64_t)tileFirst * tiling.rowsPerTile * this->rowLength;
//! ```
//!
//! Where the even split was valid, both give every block the same rows at the same offset. The balanced
//! split also runs at block counts that do not divide the work (all the vector cores of a SoC, say), so the
//! gain shows only after the host search moves to such a block count: the motif reshapes the tiling space
//! (the divisibility the tool derived from the old `Init` no longer holds, `space::derived`). It knows the
//! AscendC block idiom (`GetBlockNum`, `GetBlockIdx`) and nothing of measuring or the bank.

use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct BalanceBlockSplit;

const NAME: &str = "balance-block-split";
const COMMENT: &str =
    "// Whole tiles shared out over the blocks: the first tileRem blocks take one tile more.";
/// Names the fast form declares; a file that already uses one is left alone.
const NEW_NAMES: [&str; 3] = ["tileAll", "tileRem", "tileFirst"];

/// `target = value;` as a declaration with one initialiser or as an assignment statement.
struct Assign<'t> {
    stmt: Node<'t>,
    target: String,
    value: Node<'t>,
}

fn assign<'t>(stmt: Node<'t>, text: &str) -> Option<Assign<'t>> {
    match stmt.kind() {
        "declaration" => {
            let mut c = stmt.walk();
            let declarators: Vec<Node> =
                stmt.children_by_field_name("declarator", &mut c).collect();
            let [d] = declarators[..] else {
                return None;
            };
            if d.kind() != "init_declarator" {
                return None;
            }
            Some(Assign {
                stmt,
                target: text_of(d.child_by_field_name("declarator")?, text).to_string(),
                value: d.child_by_field_name("value")?,
            })
        }
        "expression_statement" => {
            let e = stmt.named_child(0)?;
            if e.kind() != "assignment_expression"
                || text_of(e.child_by_field_name("operator")?, text) != "="
            {
                return None;
            }
            Some(Assign {
                stmt,
                target: text_of(e.child_by_field_name("left")?, text).to_string(),
                value: e.child_by_field_name("right")?,
            })
        }
        _ => None,
    }
}

/// `left OP right`.
fn binary<'t>(n: Node<'t>, text: &str, op: &str) -> Option<(Node<'t>, Node<'t>)> {
    (n.kind() == "binary_expression"
        && n.child_by_field_name("operator")
            .is_some_and(|o| text_of(o, text) == op))
    .then(|| {
        Some((
            n.child_by_field_name("left")?,
            n.child_by_field_name("right")?,
        ))
    })
    .flatten()
}

/// A call of `name` with no arguments (`GetBlockNum()`, `AscendC::GetBlockIdx()`).
fn is_call0(n: Node, text: &str, name: &str) -> bool {
    n.kind() == "call_expression"
        && Call::of(n).is_some_and(|c| c.name(text) == name && c.args().is_empty())
}

/// `x` or `(T)x` with `x` spelled `name`: the cast prefix (`"(uint64_t)"` or `""`).
fn maybe_cast(n: Node, text: &str, name: &str) -> Option<String> {
    if text_of(n, text) == name {
        return Some(String::new());
    }
    let value = n.child_by_field_name("value")?;
    (n.kind() == "cast_expression" && text_of(value, text) == name)
        .then(|| text[n.start_byte()..value.start_byte()].to_string())
}

/// An expression with no calls and no assignments: the same value wherever `Init` reads it.
fn is_pure(n: Node) -> bool {
    cst::nodes_of_kind(n, "call_expression").is_empty()
        && cst::nodes_of_kind(n, "assignment_expression").is_empty()
        && cst::nodes_of_kind(n, "update_expression").is_empty()
}

/// Every name the file declares or uses, members included.
fn names_in_use<'a>(root: Node, text: &'a str) -> Vec<&'a str> {
    let mut out = cst::identifiers_in(root, text);
    out.extend(
        cst::nodes_of_kind(root, "field_identifier")
            .into_iter()
            .map(|n| text_of(n, text)),
    );
    out
}

/// The even split, found in `Init`.
struct Even<'t> {
    /// `B = TOTAL / GetBlockNum()`.
    split: Assign<'t>,
    total: String,
    block_num: String,
    /// `PER` of `tileNum = B / PER`.
    per: String,
    /// `(T)B * GetBlockIdx()` inside the offset statement.
    offset_mul: Node<'t>,
    cast: String,
    block_idx: String,
    /// Last byte of the statements involved.
    end: usize,
}

fn evens<'t>(root: Node<'t>, text: &str) -> Vec<Even<'t>> {
    let Some(body) =
        cst::function_named(root, text, "Init").and_then(|f| f.child_by_field_name("body"))
    else {
        return vec![];
    };
    let block_nums = cst::calls_named(root, text, "GetBlockNum");
    let block_idxs = cst::calls_named(root, text, "GetBlockIdx");
    if block_nums.len() != 1
        || block_idxs.len() != 1
        || NEW_NAMES
            .iter()
            .any(|n| names_in_use(root, text).contains(n))
    {
        return vec![];
    }
    let stmts = cst::statements(body);
    let mut out = vec![];
    for (i, s) in stmts.iter().enumerate() {
        let Some(split) = assign(*s, text) else {
            continue;
        };
        let Some((total, block_num)) = binary(split.value, text, "/") else {
            continue;
        };
        if !is_call0(block_num, text, "GetBlockNum") || !is_pure(total) {
            continue;
        }
        let b = split.target.clone();
        let declared = s.kind() == "declaration";
        if cst::stores_to(root, text, &b).len() != usize::from(!declared) {
            continue;
        }
        let later = &stmts[i + 1..];
        let per = later.iter().find_map(|t| {
            let a = assign(*t, text)?;
            let (l, r) = binary(a.value, text, "/")?;
            (text_of(l, text) == b && is_pure(r)).then_some((r, t.end_byte()))
        });
        let offset = later.iter().find_map(|t| {
            cst::nodes_of_kind(*t, "binary_expression")
                .into_iter()
                .find_map(|m| {
                    let (l, r) = binary(m, text, "*")?;
                    if !is_call0(r, text, "GetBlockIdx") {
                        return None;
                    }
                    Some((m, maybe_cast(l, text, &b)?, r, t.end_byte()))
                })
        });
        let (Some((per, per_end)), Some((offset_mul, cast, block_idx, offset_end))) = (per, offset)
        else {
            continue;
        };
        out.push(Even {
            total: text_of(total, text).to_string(),
            block_num: text_of(block_num, text).to_string(),
            per: text_of(per, text).to_string(),
            offset_mul,
            cast,
            block_idx: text_of(block_idx, text).to_string(),
            end: per_end.max(offset_end),
            split,
        });
    }
    out
}

/// The balanced split, found in `Init` as `apply` writes it.
struct Balanced<'t> {
    comment: Node<'t>,
    /// The `tileFirst` declaration (last of the three).
    first: Node<'t>,
    total: String,
    block_num: String,
    block_idx: String,
    split: Assign<'t>,
    offset_mul: Node<'t>,
    cast: String,
    end: usize,
}

fn split_value(block_num: &str, block_idx: &str, per: &str) -> String {
    format!("(tileAll / {block_num} + ({block_idx} < tileRem ? 1 : 0)) * {per}")
}

fn first_value(block_num: &str, block_idx: &str) -> String {
    format!("tileAll / {block_num} * {block_idx} + ({block_idx} < tileRem ? {block_idx} : tileRem)")
}

fn balanceds<'t>(root: Node<'t>, text: &str) -> Vec<Balanced<'t>> {
    let Some(body) =
        cst::function_named(root, text, "Init").and_then(|f| f.child_by_field_name("body"))
    else {
        return vec![];
    };
    let mut c = body.walk();
    let items: Vec<Node> = body.named_children(&mut c).collect();
    let mut out = vec![];
    for (i, comment) in items.iter().enumerate() {
        if comment.kind() != "comment" || text_of(*comment, text) != COMMENT {
            continue;
        }
        let decls: Vec<Assign> = items[i + 1..]
            .iter()
            .take(3)
            .filter(|n| n.kind() == "declaration")
            .filter_map(|n| assign(*n, text))
            .collect();
        let [all, rem, first] = &decls[..] else {
            continue;
        };
        if [
            all.target.as_str(),
            rem.target.as_str(),
            first.target.as_str(),
        ] != NEW_NAMES
        {
            continue;
        }
        let (Some((total, per)), Some((rem_of, block_num))) =
            (binary(all.value, text, "/"), binary(rem.value, text, "%"))
        else {
            continue;
        };
        if text_of(rem_of, text) != "tileAll" || !is_call0(block_num, text, "GetBlockNum") {
            continue;
        }
        let block_num = text_of(block_num, text).to_string();
        let Some(block_idx) = binary(first.value, text, "+")
            .and_then(|(l, _)| binary(l, text, "*"))
            .map(|(_, r)| r)
            .filter(|r| is_call0(*r, text, "GetBlockIdx"))
            .map(|r| text_of(r, text).to_string())
        else {
            continue;
        };
        if text_of(first.value, text) != first_value(&block_num, &block_idx) {
            continue;
        }
        let per = text_of(per, text).to_string();
        let later = &items[i + 4..];
        let want = split_value(&block_num, &block_idx, &per);
        let Some(split) = later
            .iter()
            .filter_map(|n| assign(*n, text))
            .find(|a| text_of(a.value, text) == want)
        else {
            continue;
        };
        let offset = later.iter().find_map(|t| {
            cst::nodes_of_kind(*t, "binary_expression")
                .into_iter()
                .find_map(|m| {
                    let (l, r) = binary(m, text, "*")?;
                    if text_of(r, text) != per {
                        return None;
                    }
                    Some((m, maybe_cast(l, text, "tileFirst")?, t.end_byte()))
                })
        });
        let Some((offset_mul, cast, offset_end)) = offset else {
            continue;
        };
        // After rewinding, `apply` must find the even split again: the block calls and the split's
        // target may appear nowhere else.
        let outside = |name: &str| {
            cst::calls_named(root, text, name).iter().any(|call| {
                let at = call.function.start_byte();
                let in_decls = at >= comment.start_byte() && at < first.stmt.end_byte();
                !(in_decls || split.value.byte_range().contains(&at))
            })
        };
        let declared = split.stmt.kind() == "declaration";
        if outside("GetBlockNum")
            || outside("GetBlockIdx")
            || cst::stores_to(root, text, &split.target).len() != usize::from(!declared)
        {
            continue;
        }
        out.push(Balanced {
            comment: *comment,
            first: first.stmt,
            total: text_of(total, text).to_string(),
            block_num,
            block_idx,
            offset_mul,
            cast,
            end: split.stmt.end_byte().max(offset_end),
            split,
        });
    }
    out
}

fn not_here(text: &str, site: &Site, expected: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, site.range.start),
        why: format!("expected {expected} here"),
    }
}

impl Motif for BalanceBlockSplit {
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "even split of rows over blocks (B = total / GetBlockNum()) -> whole tiles shared out, the first \
         tiles % blocks blocks taking one more"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "Init computes B = TOTAL / GetBlockNum(), the tile count as B / PER and the block's offset from \
         (T)B * GetBlockIdx(); GetBlockNum and GetBlockIdx are called nowhere else in the file, B is \
         assigned nowhere else, TOTAL and PER have no calls or assignments, and TOTAL is a whole number of \
         PER-sized tiles (which the even split already needed). At every block count where the even split \
         was valid the balanced one gives each block the same rows and offset; at the others it gives every \
         tile to exactly one block, and each block still a whole number of tiles"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        evens(tree.root_node(), text)
            .into_iter()
            .map(|e| {
                Site::new(
                    e.split.stmt.start_byte()..e.end,
                    text,
                    format!(
                        "{} = {} / {}: an even split",
                        e.split.target, e.total, e.block_num
                    ),
                )
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let even = evens(tree.root_node(), text)
            .into_iter()
            .find(|e| (e.split.stmt.start_byte()..e.end) == site.range)
            .ok_or_else(|| not_here(text, site, "an even block split"))?;
        let (num, idx, per) = (&even.block_num, &even.block_idx, &even.per);
        let at = cst::line_start(text, even.split.stmt.start_byte());
        let indent = cst::indent_at(text, at);
        let decls = format!(
            "{indent}{COMMENT}\n\
             {indent}uint32_t tileAll = {total} / {per};\n\
             {indent}uint32_t tileRem = tileAll % {num};\n\
             {indent}uint32_t tileFirst = {first};\n",
            total = even.total,
            first = first_value(num, idx),
        );
        let new = cst::splice_many(
            text,
            &[
                (at..at, decls),
                (even.split.value.byte_range(), split_value(num, idx, per)),
                (
                    even.offset_mul.byte_range(),
                    format!("{}tileFirst * {per}", even.cast),
                ),
            ],
        );
        let start = at + indent.len();
        let inverse = self
            .rewind_sites(&new)
            .into_iter()
            .find(|s| s.range.start == start)
            .ok_or_else(|| not_here(text, site, "a split the rewind can find again"))?;
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        balanceds(tree.root_node(), text)
            .into_iter()
            .map(|b| {
                Site::new(
                    b.comment.start_byte()..b.end,
                    text,
                    format!("{}: whole tiles shared out over the blocks", b.split.target),
                )
            })
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let b = balanceds(tree.root_node(), text)
            .into_iter()
            .find(|b| (b.comment.start_byte()..b.end) == site.range)
            .ok_or_else(|| not_here(text, site, "a balanced block split"))?;
        let from = cst::line_start(text, b.comment.start_byte());
        let to = cst::own_lines(text, b.first)
            .ok_or_else(|| not_here(text, site, "tileFirst on a line of its own"))?
            .end;
        let edits = [
            (from..to, String::new()),
            (
                b.split.value.byte_range(),
                format!("{} / {}", b.total, b.block_num),
            ),
            (
                b.offset_mul.byte_range(),
                format!("{}{} * {}", b.cast, b.split.target, b.block_idx),
            ),
        ];
        let new = cst::splice_many(text, &edits);
        let start = cst::shifted(&edits, b.split.stmt.start_byte());
        let inverse = self
            .apply_sites(&new)
            .into_iter()
            .find(|s| s.range.start == start)
            .ok_or_else(|| not_here(text, site, "a split apply can find again"))?;
        Ok(Edit { text: new, inverse })
    }
    fn reshapes_tiles(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn balances_the_row_split_of_the_naive_norms_and_reductions() {
        for op in [
            "rmsnorm_custom",
            "layernorm_custom",
            "softmax_custom",
            "reduce_sum_custom",
            "reduce_max_custom",
        ] {
            let (naive, _) = fixture_kernel(op);
            let sites = BalanceBlockSplit.apply_sites(&naive);
            assert_eq!(sites.len(), 1, "{op}: {sites:?}");
            assert_eq!(round_trips(&BalanceBlockSplit, &naive), 1, "{op}");
            let fast = BalanceBlockSplit.apply(&naive, &sites[0]).unwrap().text;
            assert!(fast.contains(COMMENT), "{op}");
            assert_eq!(
                cst::calls_named(cst::parse(&fast).root_node(), &fast, "GetBlockIdx").len(),
                4
            );
            assert_eq!(rewinds_round_trip(&BalanceBlockSplit, &fast), 1, "{op}");
        }
    }

    #[test]
    fn writes_the_split_a_person_would() {
        let (naive, _) = fixture_kernel("rmsnorm_custom");
        let site = &BalanceBlockSplit.apply_sites(&naive)[0];
        let fast = BalanceBlockSplit.apply(&naive, site).unwrap().text;
        let want = "        // Whole tiles shared out over the blocks: the first tileRem blocks take one tile more.
        uint32_t tileAll = tiling.totalRows / tiling.rowsPerTile;
        uint32_t tileRem = tileAll % AscendC::GetBlockNum();
        uint32_t tileFirst = tileAll / AscendC::GetBlockNum() * AscendC::GetBlockIdx() + (AscendC::GetBlockIdx() < tileRem ? AscendC::GetBlockIdx() : tileRem);
        uint32_t blockRows = (tileAll / AscendC::GetBlockNum() + (AscendC::GetBlockIdx() < tileRem ? 1 : 0)) * tiling.rowsPerTile;
        this->tileNum = blockRows / tiling.rowsPerTile;
        uint64_t offset = (uint64_t)tileFirst * tiling.rowsPerTile * this->rowLength;
";
        assert!(fast.contains(want), "{fast}");
    }

    #[test]
    fn leaves_kernels_that_use_the_block_index_elsewhere() {
        let (naive, _) = fixture_kernel("rmsnorm_custom");
        let twice = naive.replace(
            "AscendC::LocalTensor<half> gammaHalf = gammaHalfBuf.Get<half>();",
            "AscendC::LocalTensor<half> gammaHalf = gammaHalfBuf.Get<half>();\n        uint32_t me = AscendC::GetBlockIdx();",
        );
        assert_ne!(twice, naive);
        assert!(BalanceBlockSplit.apply_sites(&twice).is_empty());
        let named = naive.replace(
            "uint32_t tileNum;",
            "uint32_t tileNum;\n    uint32_t tileRem;",
        );
        assert_ne!(named, naive);
        assert!(BalanceBlockSplit.apply_sites(&named).is_empty());
        // An uneven split already (the reference's own) is not an even one.
        let (_, reference) = fixture_kernel("rmsnorm_custom");
        assert!(BalanceBlockSplit.apply_sites(&reference).is_empty());
    }
}
