//! narrow-barrier: a `PipeBarrier<PIPE_ALL>()` between two vector instructions becomes
//! `PipeBarrier<PIPE_V>()`. The vector pipe barrier is the documented way to order dependent vector
//! instructions; the full barrier also drains the MTE and scalar pipes, which here have nothing the
//! vector work waits for. It uses the pipe-order analysis of `drop_queue_barrier::Sync`; it knows
//! nothing of measuring or the bank.

use super::drop_queue_barrier::{Sync, VECTOR_OPS, barrier_call, statement_call};
use crate::rewrite::cst::{self, Call, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use tree_sitter::Node;

pub struct NarrowBarrier;

const NAME: &str = "narrow-barrier";

/// The vector instruction an expression statement consists of, by name.
fn vector_op<'a>(item: Option<Node>, text: &'a str) -> Option<&'a str> {
    let call = Call::of(statement_call(item?)?)?;
    let name = call.name(text);
    VECTOR_OPS.contains(&name).then_some(name)
}

/// The statement before (or after) `item` in its block, comments skipped.
fn neighbour<'t>(item: Node<'t>, forward: bool) -> Option<Node<'t>> {
    let step = |n: Node<'t>| {
        if forward {
            n.next_named_sibling()
        } else {
            n.prev_named_sibling()
        }
    };
    let mut cur = step(item);
    while let Some(c) = cur.filter(|c| c.kind() == "comment") {
        cur = step(c);
    }
    cur
}

/// Barriers on `pipe` that stand between two vector instructions: (the pipe name's range, what).
fn between_vector_ops(text: &str, root: Node, pipe: &str) -> Vec<(std::ops::Range<usize>, String)> {
    let mut out = vec![];
    for call in cst::calls_named(root, text, "PipeBarrier") {
        let Some(item) = call.statement() else {
            continue;
        };
        if barrier_call(item, text).and_then(|c| c.template_args(text)) != Some(pipe) {
            continue;
        }
        let prev = vector_op(neighbour(item, false), text);
        let next = vector_op(neighbour(item, true), text);
        let (Some(prev), Some(next)) = (prev, next) else {
            continue;
        };
        let Some(args) = cst::nodes_of_kind(call.function, "template_argument_list")
            .first()
            .copied()
        else {
            continue;
        };
        let Some(at) = text_of(args, text).find(pipe) else {
            continue;
        };
        let start = args.start_byte() + at;
        out.push((
            start..start + pipe.len(),
            format!("between {prev} and {next}"),
        ));
    }
    out
}

fn replace(
    text: &str,
    site: &Site,
    from: &str,
    to: &str,
    what: String,
) -> Result<Edit, MotifError> {
    if text.get(site.range.clone()) != Some(from) {
        return Err(MotifError {
            motif: NAME,
            line: cst::line_of(text, site.range.start),
            why: format!("expected {from} here"),
        });
    }
    let new = cst::splice(text, site.range.clone(), to);
    let inverse = Site::new(site.range.start..site.range.start + to.len(), &new, what);
    Ok(Edit { text: new, inverse })
}

impl Motif for NarrowBarrier {
    fn relaxes_sync(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "PipeBarrier<PIPE_ALL> between two vector instructions -> PipeBarrier<PIPE_V>"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "the statements right before and after the barrier are vector instructions (a table of AscendC \
         vector APIs), and, following program order through loops, branches and calls up to the nearest \
         full barrier on each side, nothing before it writes UB from the scalar unit, nothing after it \
         reads or writes UB from the scalar unit, every GM<->UB copy is of a queue tensor the queue's \
         EnQue/DeQue order, no GM tensor is copied in on one side and out on the other, and every call is \
         a known vector, queue or setup call or a function of the file. The vector pipe barrier keeps \
         the order of the vector instructions, which is all that is left to order"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        let sync = Sync::new(tree.root_node(), text);
        between_vector_ops(text, tree.root_node(), "PIPE_ALL")
            .into_iter()
            .filter(|(range, _)| {
                let node = tree
                    .root_node()
                    .descendant_for_byte_range(range.start, range.end);
                let item = node.and_then(cst::statement_of);
                item.is_some_and(|i| sync.still_needed(i).is_none())
            })
            .map(|(range, what)| Site::new(range, text, format!("full barrier {what}")))
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let found = self
            .apply_sites(text)
            .into_iter()
            .find(|s| s.range == site.range);
        let Some(found) = found else {
            return Err(MotifError {
                motif: NAME,
                line: cst::line_of(text, site.range.start),
                why: "no full barrier between vector instructions that only the V pipe orders"
                    .into(),
            });
        };
        let what = found.what.replace("full barrier", "vector barrier");
        replace(text, site, "PIPE_ALL", "PIPE_V", what)
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        between_vector_ops(text, tree.root_node(), "PIPE_V")
            .into_iter()
            .filter(|(range, _)| {
                // Offered only where apply would narrow the full barrier again.
                let new = cst::splice(text, range.clone(), "PIPE_ALL");
                let wide = range.start..range.start + "PIPE_ALL".len();
                self.apply_sites(&new).iter().any(|s| s.range == wide)
            })
            .map(|(range, what)| Site::new(range, text, format!("vector barrier {what}")))
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        let what = site.what.replace("vector barrier", "full barrier");
        replace(text, site, "PIPE_V", "PIPE_ALL", what)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    #[test]
    fn narrows_the_barriers_of_addcmul_custom_like_the_reference() {
        let (naive, reference) = fixture_kernel("addcmul_custom");
        let sites = NarrowBarrier.apply_sites(&naive);
        assert_eq!(
            sites.iter().map(|s| s.line).collect::<Vec<_>>(),
            vec![58, 60]
        );
        assert_eq!(sites[0].what, "full barrier between Mul and Muls");
        let mut k = naive.clone();
        for _ in 0..2 {
            let s = NarrowBarrier.apply_sites(&k)[0].clone();
            k = NarrowBarrier.apply(&k, &s).unwrap().text;
        }
        // Compute now has the reference's barriers.
        let compute = |k: &str| {
            let at = k.find("AscendC::Mul(yLocal").unwrap();
            k[at..at + k[at..].find("outQueueY.EnQue").unwrap()]
                .replace("this->tileLength", "count")
        };
        assert_eq!(compute(&k), compute(&reference));
        assert_eq!(round_trips(&NarrowBarrier, &naive), 2);
        assert_eq!(rewinds_round_trip(&NarrowBarrier, &reference), 2);
        let edit = NarrowBarrier
            .rewind(&reference, &NarrowBarrier.rewind_sites(&reference)[0])
            .unwrap();
        assert_eq!(edit.text.matches("PipeBarrier<PIPE_ALL>").count(), 1);
    }

    #[test]
    fn narrows_between_vector_steps_but_not_next_to_scalar_reads() {
        let (naive, _) = fixture_kernel("layernorm_custom");
        let lines: Vec<usize> = NarrowBarrier
            .apply_sites(&naive)
            .iter()
            .map(|s| s.line)
            .collect();
        // Adds|Mul, Mul|ReduceSum, Duplicate|Sqrt, Muls|Mul, Mul|Add; not the ones before a GetValue.
        assert_eq!(lines, vec![70, 72, 77, 82, 84]);
        let (naive, _) = fixture_kernel("swiglu_custom");
        assert_eq!(NarrowBarrier.apply_sites(&naive).len(), 4);
    }

    #[test]
    fn keeps_a_full_barrier_that_orders_a_scalar_write() {
        let (naive, _) = fixture_kernel("addcmul_custom");
        let near_miss = naive.replace(
            "        AscendC::Mul(yLocal, t1Local, t2Local, this->tileLength);\n",
            "        t1Local.SetValue(0, this->value);\n        AscendC::Mul(yLocal, t1Local, t2Local, this->tileLength);\n",
        );
        let lines: Vec<usize> = NarrowBarrier
            .apply_sites(&near_miss)
            .iter()
            .map(|s| s.line)
            .collect();
        // The SetValue before Mul needs the first barrier to reach the vector pipe; the second is free.
        assert_eq!(lines, vec![61]);
    }
}
