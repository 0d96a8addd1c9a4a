//! vector-gm-sum: a scalar loop that sums floats straight from global memory,
//! `for (T c = 0; c < n; c++) { acc += g.GetValue(c); }` with `g` a `GlobalTensor<float>` (the usual
//! cross-core merge after `SyncAll`: block 0 adds up each core's partial from a workspace), becomes one
//! copy of the n floats into a UB buffer, one level-2 `ReduceSum` and one `GetValue` of the result. Each
//! GM `GetValue` is a scalar read of global memory that the scalar pipe waits for; the copy takes them
//! all in one MTE2 burst (asc-devkit docs, DataCopyPad: GM->UB with a byte length; ReduceSum: the count
//! form writes the sum to dst[0] and needs a work tensor of RoundUp(ceil(n / 64), 8) floats).
//! The copy also sidesteps the scalar data cache: the GetValue doc (asc-devkit docs/zh/api/SIMD-API/基础API/
//! 数据结构/GlobalTensor/GetValue.md) asks for DataCacheCleanAndInvalid before reading GM that something else
//! may have written (here the other cores), which the loops in the public kernels leave out.
//! What the model charges: each GM GetValue costs SCALAR_GM_CYCLES (a guess, G: no cache-line reuse),
//! so the modelled gain is an upper bound for short loops over consecutive floats.
//! The UB buffer is a `TBuf` local to the new block, taken from the class's `TPipe` by `InitBuffer`
//! (appended after the kernel's own buffers), so the loop must run once per kernel: it may not sit
//! inside another loop of its function. Rewinding turns exactly that block back into the loop.

use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct VectorGmSum;

const NAME: &str = "vector-gm-sum";
const BUF: &str = "gmSumBuf";
const LOCAL: &str = "gmSum";

/// The parts of a GM sum, in either form.
struct GmSum<'t> {
    /// The statement replaced: the `for` loop or the `if` block of the vector form.
    stmt: Node<'t>,
    acc: String,
    global: String,
    count: String,
    /// How the kernel's `TPipe` is reached: `pipe.` or `pipe_->`.
    pipe: String,
    /// The loop's index declaration (`uint32_t c`) and variable, for an exact rewind.
    index_type: String,
    index: String,
}

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

fn root_of(node: Node) -> Node {
    let mut r = node;
    while let Some(p) = r.parent() {
        r = p;
    }
    r
}

/// The name a declaration (member or local) declares, through an initialiser.
fn declared_name<'a>(decl: Node, text: &'a str) -> Option<&'a str> {
    let mut d = decl.child_by_field_name("declarator")?;
    if d.kind() == "init_declarator" {
        d = d.child_by_field_name("declarator")?;
    }
    matches!(d.kind(), "identifier" | "field_identifier").then(|| text_of(d, text))
}

/// Whether some declaration under `root` declares `name` with a type in `types` (spaces ignored).
fn declares(root: Node, text: &str, name: &str, types: &[&str]) -> bool {
    let mut hit = false;
    cst::visit(root, &mut |n| {
        if !matches!(n.kind(), "declaration" | "field_declaration") {
            return;
        }
        let ty: String = n
            .child_by_field_name("type")
            .map(|t| text_of(t, text).split_whitespace().collect())
            .unwrap_or_default();
        if types.contains(&ty.as_str()) && declared_name(n, text) == Some(name) {
            hit = true;
        }
    });
    hit
}

/// Whether the file declares `name` as a `GlobalTensor<float>` (member or local).
fn is_float_global(root: Node, text: &str, name: &str) -> bool {
    declares(
        root,
        text,
        name,
        &["GlobalTensor<float>", "AscendC::GlobalTensor<float>"],
    )
}

/// How the file's one `TPipe` member is reached: `pipe.` for `TPipe pipe;`, `pipe_->` for `TPipe* pipe_;`.
/// None when the file has none or several (the motif would not know which one owns the UB).
fn pipe_access(root: Node, text: &str) -> Option<String> {
    let mut found = Vec::new();
    cst::visit(root, &mut |n| {
        if n.kind() != "field_declaration" {
            return;
        }
        let Some(ty) = n.child_by_field_name("type") else {
            return;
        };
        let ty = text_of(ty, text).trim();
        if ty != "TPipe" && ty != "AscendC::TPipe" {
            return;
        }
        let Some(d) = n.child_by_field_name("declarator") else {
            return;
        };
        match d.kind() {
            "field_identifier" => found.push(format!("{}.", text_of(d, text))),
            "pointer_declarator" => {
                if let Some(inner) = d.child_by_field_name("declarator")
                    && inner.kind() == "field_identifier"
                {
                    found.push(format!("{}->", text_of(inner, text)));
                }
            }
            _ => {}
        }
    });
    let [one] = &found[..] else { return None };
    Some(one.clone())
}

/// Whether `acc` is declared `float` in the function `func`.
fn float_local(func: Node, text: &str, acc: &str) -> bool {
    declares(func, text, acc, &["float"])
}

/// No loop of its function encloses `stmt`.
fn outside_loops(stmt: Node) -> bool {
    let mut n = stmt;
    while let Some(p) = n.parent() {
        match p.kind() {
            "for_statement" | "while_statement" | "do_statement" | "for_range_loop" => {
                return false;
            }
            "function_definition" | "lambda_expression" => return true,
            _ => n = p,
        }
    }
    true
}

/// The checks both forms share: a float accumulator of the function, a float global tensor, one
/// `TPipe` member, no enclosing loop, the statement on its own lines.
fn checked<'t>(text: &str, mut s: GmSum<'t>, pipe_seen: Option<&str>) -> Option<GmSum<'t>> {
    let (func, _) = cst::enclosing_function(s.stmt, text)?;
    float_local(func, text, &s.acc).then_some(())?;
    is_float_global(root_of(s.stmt), text, &s.global).then_some(())?;
    let pipe = pipe_access(root_of(s.stmt), text)?;
    if let Some(seen) = pipe_seen {
        (seen == pipe).then_some(())?;
    }
    s.pipe = pipe;
    outside_loops(s.stmt).then_some(())?;
    cst::own_lines(text, s.stmt)?;
    Some(s)
}

/// `for (T c = 0; c < n; c++) { acc += g.GetValue(c); }` (or `++c`).
fn loop_at<'t>(text: &str, for_stmt: Node<'t>) -> Option<GmSum<'t>> {
    let init = for_stmt.child_by_field_name("initializer")?;
    (init.kind() == "declaration").then_some(())?;
    let index_type = text_of(init.child_by_field_name("type")?, text).to_string();
    let (jvar, j0) = super::vector_reduce::single_init(init)?;
    let j = (jvar.kind() == "identifier").then(|| text_of(jvar, text))?;
    (super::constant_buffer::literal_value(j0, text)? == 0.0).then_some(())?;
    let cond = for_stmt.child_by_field_name("condition")?;
    (cond.kind() == "binary_expression"
        && text_of(cond.child_by_field_name("operator")?, text) == "<"
        && text_of(cond.child_by_field_name("left")?, text) == j)
        .then_some(())?;
    let count = cond.child_by_field_name("right")?;
    // A plain count: a name, a member or a literal, so that copying it three times changes nothing.
    matches!(
        count.kind(),
        "identifier" | "field_expression" | "number_literal" | "qualified_identifier"
    )
    .then_some(())?;
    let update = for_stmt.child_by_field_name("update")?;
    (update.kind() == "update_expression" && text_of(update, text).replace(j, "").trim() == "++")
        .then_some(())?;
    let body = for_stmt.child_by_field_name("body")?;
    (body.kind() == "compound_statement").then_some(())?;
    let [stmt] = cst::statements(body)[..] else {
        return None;
    };
    let assign = stmt.named_child(0)?;
    (stmt.kind() == "expression_statement"
        && assign.kind() == "assignment_expression"
        && text_of(assign.child_by_field_name("operator")?, text) == "+=")
        .then_some(())?;
    let acc = assign.child_by_field_name("left")?;
    (acc.kind() == "identifier").then_some(())?;
    let get = Call::of(assign.child_by_field_name("right")?)?;
    let [index] = get.args()[..] else {
        return None;
    };
    let global = get.function.child_by_field_name("argument")?;
    (get.name(text) == "GetValue"
        && global.kind() == "identifier"
        && index.kind() == "identifier"
        && text_of(index, text) == j)
        .then_some(())?;
    checked(
        text,
        GmSum {
            stmt: for_stmt,
            acc: text_of(acc, text).into(),
            global: text_of(global, text).into(),
            count: text_of(count, text).into(),
            pipe: String::new(),
            index_type,
            index: j.into(),
        },
        None,
    )
}

/// The loop form, at indentation `ind` (its first line unindented).
fn loop_text(s: &GmSum, ind: &str) -> String {
    format!(
        "for ({t} {j} = 0; {j} < {n}; {j}++) {{\n{ind}    {acc} += {g}.GetValue({j});\n{ind}}}",
        t = s.index_type,
        j = s.index,
        n = s.count,
        acc = s.acc,
        g = s.global,
    )
}

/// The vector form, at indentation `ind` (its first line unindented). The index's declaration rides in
/// the comment so that rewinding gives the loop back exactly.
fn vector_text(s: &GmSum, ind: &str) -> String {
    let i = format!("{ind}    ");
    let n = &s.count;
    format!(
        "if ({n} > 0) {{\n\
         {i}// vector-gm-sum (index {t} {j}): one copy of the {n} floats into UB and one ReduceSum, not a GM GetValue each\n\
         {i}AscendC::PipeBarrier<PIPE_ALL>();\n\
         {i}AscendC::TBuf<AscendC::TPosition::VECCALC> {BUF};\n\
         {i}{p}InitBuffer({BUF}, static_cast<uint32_t>(({n} + 63) / 64 * 64 * 2 * sizeof(float)));\n\
         {i}AscendC::LocalTensor<float> {LOCAL} = {BUF}.Get<float>();\n\
         {i}AscendC::DataCopyPad({LOCAL}, {g}, {{1, static_cast<uint32_t>({n} * sizeof(float)), 0, 0, 0}}, {{false, 0, 0, 0}});\n\
         {i}AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(0);\n\
         {i}AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(0);\n\
         {i}AscendC::ReduceSum<float>({LOCAL}, {LOCAL}, {LOCAL}[({n} + 63) / 64 * 64], static_cast<int32_t>({n}));\n\
         {i}AscendC::SetFlag<AscendC::HardEvent::V_S>(0);\n\
         {i}AscendC::WaitFlag<AscendC::HardEvent::V_S>(0);\n\
         {i}{acc} += {LOCAL}.GetValue(0);\n\
         {ind}}}",
        t = s.index_type,
        j = s.index,
        p = s.pipe,
        g = s.global,
        acc = s.acc,
    )
}

/// The text between the first `pre` and the next `post` after it.
fn between<'a>(s: &'a str, pre: &str, post: &str) -> Option<&'a str> {
    let from = s.find(pre)? + pre.len();
    let len = s[from..].find(post)?;
    Some(&s[from..from + len])
}

/// The vector form: an `if (n > 0) { ... }` whose text is exactly `vector_text` of the parts its
/// condition, comment, InitBuffer, copy and last line name.
fn vector_at<'t>(text: &str, if_stmt: Node<'t>) -> Option<GmSum<'t>> {
    let body = text_of(if_stmt, text);
    let count = between(body, "if (", " > 0) {\n")?;
    let index = between(body, "// vector-gm-sum (index ", "): ")?;
    let (index_type, index) = index.rsplit_once(' ')?;
    let marker = format!("InitBuffer({BUF},");
    let pipe_line = body.lines().find(|l| l.contains(&marker))?;
    let pipe = pipe_line.trim().split(&marker).next()?;
    let global = between(body, &format!("DataCopyPad({LOCAL}, "), ", ")?;
    let last = body.lines().rev().nth(1)?;
    let acc = last
        .trim()
        .strip_suffix(&format!(" += {LOCAL}.GetValue(0);"))?;
    let s = checked(
        text,
        GmSum {
            stmt: if_stmt,
            acc: acc.into(),
            global: global.into(),
            count: count.into(),
            pipe: String::new(),
            index_type: index_type.into(),
            index: index.into(),
        },
        Some(pipe),
    )?;
    let ind = cst::indent_at(text, if_stmt.start_byte());
    (vector_text(&s, ind) == body).then_some(s)
}

fn forms<'t>(
    text: &str,
    root: Node<'t>,
    kind: &str,
    at: fn(&str, Node<'t>) -> Option<GmSum<'t>>,
) -> Vec<GmSum<'t>> {
    cst::nodes_of_kind(root, kind)
        .into_iter()
        .filter_map(|n| at(text, n))
        .collect()
}

/// One side of the rewrite: the scalar loop (`Slow`) or the vector block (`Fast`).
#[derive(Clone, Copy)]
enum Form {
    Slow,
    Fast,
}

impl Form {
    /// The forms of this side in `text`.
    fn find<'t>(self, text: &str, root: Node<'t>) -> Vec<GmSum<'t>> {
        match self {
            Form::Slow => forms(text, root, "for_statement", loop_at),
            Form::Fast => forms(text, root, "if_statement", vector_at),
        }
    }
    /// The other side's text for `s`, at indentation `ind`.
    fn other_text(self, s: &GmSum, ind: &str) -> String {
        match self {
            Form::Slow => vector_text(s, ind),
            Form::Fast => loop_text(s, ind),
        }
    }
    fn what(self, s: &GmSum) -> String {
        match self {
            Form::Slow => format!("{} += {}.GetValue over {} floats", s.acc, s.global, s.count),
            Form::Fast => format!("{} += ReduceSum of {}", s.acc, s.global),
        }
    }
    fn other(self) -> Form {
        match self {
            Form::Slow => Form::Fast,
            Form::Fast => Form::Slow,
        }
    }

    fn sites(self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        self.find(text, tree.root_node())
            .iter()
            .map(|s| Site::new(s.stmt.start_byte()..s.stmt.end_byte(), text, self.what(s)))
            .collect()
    }

    /// Replaces the form of this side at `site` by the other side's.
    fn edit(self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let s = self
            .find(text, tree.root_node())
            .into_iter()
            .find(|s| {
                s.stmt.start_byte() == site.range.start && s.stmt.end_byte() == site.range.end
            })
            .ok_or_else(|| {
                let missing = match self {
                    Form::Slow => "no GM sum loop here",
                    Form::Fast => "no vector-gm-sum block here",
                };
                error(text, site.range.start, missing)
            })?;
        let start = s.stmt.start_byte();
        let with = self.other_text(&s, cst::indent_at(text, start));
        let new = cst::splice(text, start..s.stmt.end_byte(), &with);
        Ok(Edit {
            inverse: Site::new(start..start + with.len(), &new, self.other().what(&s)),
            text: new,
        })
    }
}

impl Motif for VectorGmSum {
    fn unavailable_on(&self, soc: &crate::model::soc::Soc) -> Option<String> {
        crate::rewrite::motif::needs_data_copy_pad(self.name(), soc)
    }
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "a scalar loop summing floats from a GlobalTensor -> one GM->UB copy and a ReduceSum"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "checked: the loop runs its index from 0 below a plain count (a name, member or literal) one by \
         one, and its body is exactly `acc += g.GetValue(index);` with `acc` declared float in the function \
         and `g` declared GlobalTensor<float> in the file; the file has exactly one TPipe member, which the \
         new TBuf is taken from; no loop of the function encloses it (the InitBuffer runs once). The block \
         starts with a PipeBarrier<PIPE_ALL> so the copy sees every write the scalar loop would have seen, \
         and skips a count of 0 as the loop did. The sum is the same up to float reassociation (ReduceSum \
         adds pairwise, the loop in order). It takes up to 512 B of UB per 64 floats, which a tiling that \
         planned the whole UB may not have: the run then fails and the tuner drops the rewrite"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        Form::Slow.sites(text)
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        Form::Slow.edit(text, site)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        Form::Fast.sites(text)
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        Form::Fast.edit(text, site)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    /// A cross-core merge as real loss kernels write it (own text, in the shape kl_div_v2's has).
    const MERGE: &str = "\
#include \"kernel_operator.h\"
using namespace AscendC;
class KernelLoss {
public:
    __aicore__ inline void Process()
    {
        SyncAll();
        if (GetBlockIdx() == 0) {
            float total = 0.0f;
            for (uint32_t c = 0; c < blockNum; c++) {
                total += workGM.GetValue(c);
            }
            total *= this->cof_;
        }
    }
private:
    TPipe pipe;
    GlobalTensor<float> workGM;
    uint32_t blockNum;
    float cof_;
};
";

    #[test]
    fn a_gm_sum_loop_becomes_one_copy_and_a_reduce_sum_and_back() {
        let sites = VectorGmSum.apply_sites(MERGE);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert!(
            sites[0]
                .what
                .contains("total += workGM.GetValue over blockNum")
        );
        let edit = VectorGmSum.apply(MERGE, &sites[0]).unwrap();
        assert!(!edit.text.contains("workGM.GetValue(c)"), "{}", edit.text);
        assert!(edit.text.contains("            if (blockNum > 0) {\n"));
        assert!(edit.text.contains(
            "pipe.InitBuffer(gmSumBuf, static_cast<uint32_t>((blockNum + 63) / 64 * 64 * 2 * sizeof(float)));"
        ));
        assert!(edit.text.contains("AscendC::DataCopyPad(gmSum, workGM, {1, static_cast<uint32_t>(blockNum * sizeof(float)), 0, 0, 0}, {false, 0, 0, 0});"));
        assert!(edit.text.contains("                total += gmSum.GetValue(0);\n            }\n            total *= this->cof_;"));
        assert_eq!(
            cst::syntax_errors(&edit.text),
            cst::syntax_errors(MERGE),
            "{}",
            edit.text
        );
        assert_eq!(round_trips(&VectorGmSum, MERGE), 1);
        assert_eq!(rewinds_round_trip(&VectorGmSum, &edit.text), 1);
        // Mining finds the vector form in the text alone.
        assert_eq!(VectorGmSum.rewind_sites(&edit.text).len(), 1);
        assert!(VectorGmSum.apply_sites(&edit.text).is_empty());
    }

    #[test]
    fn a_pointer_pipe_is_reached_through_the_arrow() {
        let k = MERGE.replace("    TPipe pipe;\n", "    TPipe* pipe_;\n");
        let edit = VectorGmSum
            .apply(&k, &VectorGmSum.apply_sites(&k)[0])
            .unwrap();
        assert!(edit.text.contains("pipe_->InitBuffer(gmSumBuf,"));
        assert_eq!(round_trips(&VectorGmSum, &k), 1);
    }

    #[test]
    fn other_shapes_are_no_site() {
        for (from, to) in [
            // a local tensor (vector-reduce's business), or a half GM tensor
            ("GlobalTensor<float> workGM;", "LocalTensor<float> workGM;"),
            ("GlobalTensor<float> workGM;", "GlobalTensor<half> workGM;"),
            // a double accumulator
            ("float total = 0.0f;", "double total = 0.0;"),
            // a strided index, a product, a computed count
            ("workGM.GetValue(c)", "workGM.GetValue(2 * c)"),
            ("total += workGM", "total *= workGM"),
            ("c < blockNum;", "c < blockNum - 1;"),
            // no TPipe member, or two
            ("    TPipe pipe;\n", ""),
            ("    TPipe pipe;\n", "    TPipe pipe;\n    TPipe other;\n"),
            // inside another loop: InitBuffer would run each time
            ("if (GetBlockIdx() == 0) {", "for (int r = 0; r < 2; r++) {"),
        ] {
            let k = MERGE.replace(from, to);
            assert_ne!(k, MERGE, "{from}");
            assert!(VectorGmSum.apply_sites(&k).is_empty(), "{from} -> {to}");
        }
    }

    #[test]
    fn an_edited_vector_block_is_no_rewind_site() {
        let edit = VectorGmSum
            .apply(MERGE, &VectorGmSum.apply_sites(MERGE)[0])
            .unwrap();
        let edited = edit.text.replace("ReduceSum<float>", "ReduceMax<float>");
        assert!(VectorGmSum.rewind_sites(&edited).is_empty());
    }
}
