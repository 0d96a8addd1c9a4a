//! ub-bank-offset: an `InitBuffer` call's buffer length grows by 256 bytes, so every buffer carved after
//! it starts in the other half of the UB's bank groups, and two operands of a binary vector instruction
//! no longer read the same groups in every repeat (asc-devkit's bank_conflict_ub best practice: a
//! conflicting Add takes 4167 cycles where a conflict-free one takes 2390; ../shared/measured). Which calls
//! grow cannot be read off the text: it depends on the addresses the buffers got and on which buffers
//! the vector instructions pair. So the motif is guided: a run of the kernel (the twin's `carve`
//! records and operand addresses) is planned by `model::ub_layout`, and the plan picks, among the
//! `InitBuffer` calls, the ones that grow. Without a run it applies nowhere. The fast form is the length
//! with `+ 256 /* UB bank-group offset */` after it; rewinding takes it off. The outputs stay the same:
//! only where buffers start changes, by bytes nothing reads (a kernel that reads past a buffer's end into
//! the next one would see different bytes; the trial's output check and shape probes catch it).

use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Guide, Motif, MotifError, Site};
use std::collections::{BTreeMap, BTreeSet};
use tree_sitter::Node;

pub struct UbBankOffset;

const NAME: &str = "ub-bank-offset";

/// What the fast form adds to the length.
pub const SUFFIX: &str = " + 256 /* UB bank-group offset */";

fn error(text: &str, at: usize, why: &str) -> MotifError {
    MotifError {
        motif: NAME,
        line: cst::line_of(text, at),
        why: why.into(),
    }
}

/// The `InitBuffer` calls of `text` with their length argument (the last), and the buffer (the first).
fn init_buffers<'t>(root: Node<'t>, text: &str) -> Vec<(Call<'t>, Node<'t>, Node<'t>)> {
    cst::calls_named(root, text, "InitBuffer")
        .into_iter()
        .filter_map(|c| {
            let args = c.args();
            if !(2..=3).contains(&args.len()) || c.receiver(text).is_none() {
                return None;
            }
            Some((c, args[0], *args.last()?))
        })
        .collect()
}

/// Whether `+ 256` after `len` adds to the whole length: `len` binds tighter than or as tight as `+`.
fn adds_to_whole(len: Node, text: &str) -> bool {
    match len.kind() {
        "identifier"
        | "number_literal"
        | "call_expression"
        | "field_expression"
        | "qualified_identifier"
        | "parenthesized_expression"
        | "sizeof_expression"
        | "subscript_expression" => true,
        "binary_expression" => len
            .child_by_field_name("operator")
            .is_some_and(|op| matches!(text_of(op, text), "*" | "/" | "%" | "+" | "-")),
        _ => false,
    }
}

/// The length an offset length adds the offset to: `len` is `<length> + 256` with the fast form's
/// comment right after it.
fn offset_of<'t>(len: Node<'t>, text: &str) -> Option<Node<'t>> {
    (len.kind() == "binary_expression").then_some(())?;
    let left = len.child_by_field_name("left")?;
    text[left.end_byte()..].starts_with(SUFFIX).then_some(left)
}

/// The buffer an `InitBuffer` call carves, as the guide names it: the first argument's text.
pub fn buffer_of(call_text_arg: &str) -> String {
    call_text_arg
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

impl Motif for UbBankOffset {
    fn name(&self) -> &'static str {
        NAME
    }

    fn summary(&self) -> &'static str {
        "grow chosen InitBuffer lengths by 256 B so binary vector operands read different UB bank groups"
    }

    fn preserves_meaning_when(&self) -> &'static str {
        "Always, for a kernel that reads and writes each buffer within its own length: only the UB \
         addresses the buffers start at move, and the kernel uses the 256 bytes added to no buffer. \
         The applicability test takes `InitBuffer` calls on a pipe whose length binds at least as tight \
         as `+` (a conditional length is left alone); the guide (a run's UB layout plan) picks which grow. \
         UB use grows by 256 B per buffer grown: a trial that no longer fits faults and is rejected."
    }

    /// Every `InitBuffer` call the fast form can be written at; the guide picks among them.
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        init_buffers(tree.root_node(), text)
            .into_iter()
            .filter(|(_, _, len)| adds_to_whole(*len, text) && offset_of(*len, text).is_none())
            .map(|(_, buf, len)| {
                Site::new(
                    len.byte_range(),
                    text,
                    format!(
                        "InitBuffer of `{}`: length `{}`",
                        buffer_of(text_of(buf, text)),
                        text_of(len, text)
                    ),
                )
            })
            .collect()
    }

    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let tree = cst::parse(text);
        let Some((_, _, len)) = init_buffers(tree.root_node(), text)
            .into_iter()
            .find(|(_, _, len)| len.byte_range() == site.range)
        else {
            return Err(error(text, site.range.start, "no InitBuffer length here"));
        };
        if !adds_to_whole(len, text) || offset_of(len, text).is_some() {
            return Err(error(
                text,
                site.range.start,
                "the length cannot take the offset here",
            ));
        }
        let end = len.end_byte();
        let new = cst::splice(text, end..end, SUFFIX);
        let inverse = Site::new(site.range.start..end + SUFFIX.len(), &new, "offset length");
        Ok(Edit { text: new, inverse })
    }

    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        init_buffers(tree.root_node(), text)
            .into_iter()
            .filter_map(|(_, buf, len)| Some((buf, offset_of(len, text)?)))
            .map(|(buf, len)| {
                Site::new(
                    len.start_byte()..len.end_byte() + SUFFIX.len(),
                    text,
                    format!(
                        "InitBuffer of `{}` offset by 256 B",
                        buffer_of(text_of(buf, text))
                    ),
                )
            })
            .collect()
    }

    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let Some(len) = site.range.end.checked_sub(SUFFIX.len()) else {
            return Err(error(text, site.range.start, "no offset here"));
        };
        if text.get(len..site.range.end) != Some(SUFFIX) {
            return Err(error(text, site.range.start, "no offset here"));
        }
        let new = cst::splice(text, len..site.range.end, "");
        let inverse = Site::new(site.range.start..len, &new, "InitBuffer length");
        Ok(Edit { text: new, inverse })
    }

    fn guided(&self) -> bool {
        true
    }

    /// The plan is made at one tiling and the padding takes UB from it.
    fn finishes(&self) -> bool {
        true
    }

    fn select(&self, text: &str, file: &str, sites: Vec<Site>, guide: &Guide) -> Vec<Site> {
        let Some(buffers) = guide.ub_offsets.get(file) else {
            return vec![];
        };
        let tree = cst::parse(text);
        let chosen: Vec<std::ops::Range<usize>> = init_buffers(tree.root_node(), text)
            .into_iter()
            .filter(|(_, buf, _)| buffers.contains(&buffer_of(text_of(*buf, text))))
            .map(|(_, _, len)| len.byte_range())
            .collect();
        sites
            .into_iter()
            .filter(|s| chosen.contains(&s.range))
            .collect()
    }
}

/// The guide's part for this motif: for each file, the buffers (first `InitBuffer` argument) of the
/// calls the plan grows, read at the plan's lines in `sources` (the text the planned run was built from).
pub fn offsets(
    plan: &crate::model::ub_layout::UbPlan,
    sources: &BTreeMap<String, String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, lines) in crate::model::ub_layout::by_file(plan) {
        let file = crate::fsx::lexical(std::path::Path::new(&file))
            .to_string_lossy()
            .into_owned();
        let Some(text) = sources.get(&file) else {
            continue;
        };
        let tree = cst::parse(text);
        for (c, buf, _) in init_buffers(tree.root_node(), text) {
            if lines.contains(&(cst::line_of(text, c.node.start_byte()) as u32)) {
                out.entry(file.clone())
                    .or_default()
                    .insert(buffer_of(text_of(buf, text)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    const KERNEL: &str = r#"
class K {
public:
    __aicore__ inline void Init(uint32_t tile)
    {
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tile * sizeof(half));
        pipe.InitBuffer(tmp0, tile * sizeof(float));
        pipe.InitBuffer(tmp1, tile * sizeof(float));
        pipe.InitBuffer(tmp2, flag ? tile : 2 * tile);
    }
};
"#;

    #[test]
    fn apply_and_rewind_round_trip_at_every_init_buffer_whose_length_takes_the_offset() {
        // the conditional length is no site
        assert_eq!(round_trips(&UbBankOffset, KERNEL), 3);
        let (all, _) = crate::rewrite::motif::edit_all(
            &UbBankOffset,
            KERNEL,
            crate::rewrite::motif::Direction::Apply,
        )
        .unwrap()
        .unwrap();
        assert!(all.contains(
            "pipe.InitBuffer(tmp0, tile * sizeof(float) + 256 /* UB bank-group offset */);"
        ));
        assert_eq!(rewinds_round_trip(&UbBankOffset, &all), 3);
    }

    #[test]
    fn the_guide_picks_the_calls_the_plan_grows() {
        let plan = crate::model::ub_layout::UbPlan {
            grow: vec![crate::model::ub_layout::Site {
                file: "op_kernel/k.h".into(),
                line: 7,
            }],
            conflict_cycles: 10.0,
            planned_cycles: 0.0,
        };
        let sources = BTreeMap::from([("op_kernel/k.h".to_string(), KERNEL.to_string())]);
        let guide = Guide {
            ub_offsets: offsets(&plan, &sources),
            ..Guide::default()
        };
        assert_eq!(
            guide.ub_offsets["op_kernel/k.h"],
            BTreeSet::from(["tmp0".to_string()])
        );
        let sites = UbBankOffset.apply_sites(KERNEL);
        let picked = UbBankOffset.select(KERNEL, "op_kernel/k.h", sites.clone(), &guide);
        assert_eq!(picked.len(), 1);
        assert!(picked[0].what.contains("`tmp0`"), "{:?}", picked[0]);
        assert!(
            UbBankOffset
                .select(KERNEL, "op_kernel/other.h", sites, &guide)
                .is_empty()
        );
    }
}
