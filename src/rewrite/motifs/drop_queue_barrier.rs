//! drop-queue-barrier: a `PipeBarrier<PIPE_ALL>()` that the queues already make redundant goes: the one at
//! the end of a CopyIn/Compute/CopyOut tile loop, and the one in a stage function right before the
//! `EnQue` of a tensor it allocated. EnQue/DeQue (and FreeTensor/AllocTensor) set and wait the hardware
//! flags that order copy-in, vector work and copy-out for each queue tensor, so the full barrier only
//! stalls every pipe (the TQue EnQue/DeQue pages of the AscendC API reference). This module also owns the
//! pipe-order analysis the barrier motifs share (`Sync`): which operations run on which pipe, and what
//! a full barrier orders that nothing else would. It knows AscendC's pipes and queues, nothing of
//! measuring or the bank.

use crate::rewrite::cst::{self, Call, Flow, text_of};
use crate::rewrite::motif::{Edit, Motif, MotifError, Site};
use std::collections::HashSet;
use tree_sitter::Node;

pub struct DropQueueBarrier;

const NAME: &str = "drop-queue-barrier";

/// Vector-pipe instructions of the AscendC API (they read and write LocalTensors in UB and issue in
/// order on the V pipe): elementwise, scalar-operand, unary, reduction, broadcast and conversion ops.
pub(super) const VECTOR_OPS: &[&str] = &[
    // binary
    "Add",
    "Sub",
    "Mul",
    "Div",
    "Max",
    "Min",
    "And",
    "Or",
    "AddRelu",
    "SubRelu",
    "MulAddDst",
    "FusedMulAdd",
    "Axpy",
    "Compare",
    "Select",
    // with a scalar operand
    "Adds",
    "Muls",
    "Maxs",
    "Mins",
    "ShiftLeft",
    "ShiftRight",
    "LeakyRelu",
    "CompareScalar",
    // unary
    "Exp",
    "Ln",
    "Abs",
    "Reciprocal",
    "Sqrt",
    "Rsqrt",
    "Relu",
    "Not",
    "Neg",
    // fill, conversion, copies inside UB
    "Duplicate",
    "Cast",
    "Copy",
    "Brcb",
    "CreateVecIndex",
    // reductions
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "WholeReduceSum",
    "WholeReduceMax",
    "WholeReduceMin",
    "BlockReduceSum",
    "BlockReduceMax",
    "BlockReduceMin",
    "PairReduceSum",
];

/// Calls that neither touch UB data outside the queues' protocol nor need a pipe: queue and buffer
/// management (the flags ride on these), GM and block setup, tiling macros, casts.
const NEUTRAL: &[&str] = &[
    "AllocTensor",
    "DeQue",
    "EnQue",
    "FreeTensor",
    "Get",
    "GetWithOffset",
    "InitBuffer",
    "SetGlobalBuffer",
    "GetBlockNum",
    "GetBlockIdx",
    "AlignUp",
    "CeilDiv",
    "DivCeil",
    "GET_TILING_DATA",
    "GET_TILING_DATA_WITH_STRUCT",
    "static_cast",
    "reinterpret_cast",
    "GetSize",
];

/// Where a tensor expression's data lives, as far as the pipes are concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tensor {
    /// A queue tensor bound to a variable: allocated from it (filled, then enqueued) and/or dequeued.
    Queue {
        var: String,
        allocated: bool,
        dequeued: bool,
    },
    /// A TBuf's memory (`buf.Get<T>()`), ordered by no queue.
    Buf,
    Global(String),
    /// A parameter or anything the analysis cannot trace.
    Unknown,
}

/// What one call does to pipe order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Effect {
    BarrierAll,
    /// Vector work, a narrower barrier, queue management, setup: ordered without a full barrier.
    Ordered,
    ScalarRead,
    ScalarWrite,
    /// A GM<->UB copy of a queue tensor that the queue's EnQue/DeQue order.
    QueueCopy {
        gm_read: Option<String>,
        gm_write: Option<String>,
    },
    /// A copy of UB data no queue orders (a TBuf, UB to UB, an untraced tensor).
    LooseCopy,
    Unknown(String),
}

/// The pipe-order view of one kernel file.
pub(super) struct Sync<'t> {
    text: &'t str,
    root: Node<'t>,
    flow: Flow<'t>,
    globals: HashSet<String>,
}

impl<'t> Sync<'t> {
    pub(super) fn new(root: Node<'t>, text: &'t str) -> Sync<'t> {
        let mut globals = HashSet::new();
        for t in cst::nodes_of_kind(root, "template_type") {
            let is_global = t
                .child_by_field_name("name")
                .is_some_and(|n| text_of(n, text) == "GlobalTensor");
            let decl = cst::ancestor(t, &["field_declaration", "declaration"]);
            if let (true, Some(decl)) = (is_global, decl) {
                let mut c = decl.walk();
                for d in decl.children_by_field_name("declarator", &mut c) {
                    globals.insert(text_of(d, text).to_string());
                }
            }
        }
        Sync {
            text,
            root,
            flow: Flow::new(root, text),
            globals,
        }
    }

    pub(super) fn root(&self) -> Node<'t> {
        self.root
    }

    /// Whether `call` goes to a function of this file that moves data through a TQue.
    pub(super) fn is_queue_stage(&self, call: &Call<'t>) -> bool {
        self.flow.callee(call).is_some_and(|body| {
            ["EnQue", "DeQue"]
                .iter()
                .any(|q| !cst::calls_named(body, self.text, q).is_empty())
        })
    }

    fn tensor(&self, expr: Node<'t>) -> Tensor {
        match expr.kind() {
            "subscript_expression" => expr
                .child_by_field_name("argument")
                .map_or(Tensor::Unknown, |a| self.tensor(a)),
            "parenthesized_expression" => expr
                .named_child(0)
                .map_or(Tensor::Unknown, |a| self.tensor(a)),
            "call_expression" => match Call::of(expr).map(|c| c.name(self.text)) {
                Some("Get") | Some("GetWithOffset") => Tensor::Buf,
                _ => Tensor::Unknown,
            },
            "field_expression" => {
                let field = expr
                    .child_by_field_name("field")
                    .map(|f| text_of(f, self.text));
                match field {
                    Some(f) if self.globals.contains(f) => Tensor::Global(f.to_string()),
                    _ => Tensor::Unknown,
                }
            }
            "identifier" => self.variable(expr),
            _ => Tensor::Unknown,
        }
    }

    /// What a variable holds, from its declaration and assignments in the function that uses it.
    fn variable(&self, ident: Node<'t>) -> Tensor {
        let name = text_of(ident, self.text);
        if let Some((f, _)) = cst::enclosing_function(ident, self.text) {
            let mut sources = vec![];
            let mut param = false;
            cst::visit(f, &mut |n| match n.kind() {
                "init_declarator" | "assignment_expression" => {
                    let (lhs, rhs) = if n.kind() == "init_declarator" {
                        (
                            n.child_by_field_name("declarator"),
                            n.child_by_field_name("value"),
                        )
                    } else {
                        (
                            n.child_by_field_name("left"),
                            n.child_by_field_name("right"),
                        )
                    };
                    if let (Some(l), Some(r)) = (lhs, rhs) {
                        if text_of(l, self.text) == name && n.id() != ident.id() {
                            sources.push(r);
                        }
                    }
                }
                "parameter_declaration" => {
                    param |= n.child_by_field_name("declarator").is_some_and(|d| {
                        cst::nodes_of_kind(d, "identifier")
                            .iter()
                            .any(|i| text_of(*i, self.text) == name)
                    });
                }
                _ => {}
            });
            if param {
                return Tensor::Unknown;
            }
            if !sources.is_empty() {
                let mut allocated = false;
                let mut dequeued = false;
                let mut other = None;
                for s in sources {
                    match Call::of(s).map(|c| c.name(self.text)) {
                        Some("AllocTensor") => allocated = true,
                        Some("DeQue") => dequeued = true,
                        _ => other = Some(s),
                    }
                }
                return match other {
                    None => Tensor::Queue {
                        var: name.to_string(),
                        allocated,
                        dequeued,
                    },
                    Some(s) if !allocated && !dequeued && s.kind() != "identifier" => {
                        self.tensor(s)
                    }
                    Some(_) => Tensor::Unknown,
                };
            }
        }
        if self.globals.contains(name) {
            return Tensor::Global(name.to_string());
        }
        Tensor::Unknown
    }

    fn effect(&self, call: &Call<'t>) -> Effect {
        let name = call.name(self.text);
        if name == "PipeBarrier" {
            return if call.template_args(self.text) == Some("PIPE_ALL") {
                Effect::BarrierAll
            } else {
                Effect::Ordered
            };
        }
        if VECTOR_OPS.contains(&name) || NEUTRAL.contains(&name) || self.flow.callee(call).is_some()
        {
            return Effect::Ordered;
        }
        match name {
            "GetValue" => Effect::ScalarRead,
            "SetValue" => Effect::ScalarWrite,
            "DataCopy" | "DataCopyPad" => self.copy(call),
            _ => Effect::Unknown(name.to_string()),
        }
    }

    fn copy(&self, call: &Call<'t>) -> Effect {
        let args = call.args();
        let (Some(dst), Some(src)) = (args.first(), args.get(1)) else {
            return Effect::LooseCopy;
        };
        match (self.tensor(*dst), self.tensor(*src)) {
            (Tensor::Global(g), Tensor::Queue { dequeued: true, .. }) => Effect::QueueCopy {
                gm_read: None,
                gm_write: Some(g),
            },
            (
                Tensor::Queue {
                    var,
                    allocated: true,
                    ..
                },
                Tensor::Global(g),
            ) if self.enqueues(call.node, &var) => Effect::QueueCopy {
                gm_read: Some(g),
                gm_write: None,
            },
            _ => Effect::LooseCopy,
        }
    }

    /// Whether the function around `node` enqueues the variable `var`.
    fn enqueues(&self, node: Node<'t>, var: &str) -> bool {
        cst::enclosing_function(node, self.text).is_some_and(|(f, _)| {
            cst::calls_named(f, self.text, "EnQue")
                .iter()
                .any(|c| c.arg_texts(self.text).first() == Some(&var))
        })
    }

    /// Whether `item` is a `PipeBarrier<PIPE_ALL>()` statement.
    pub(super) fn is_full_barrier(&self, item: Node<'t>) -> bool {
        barrier_call(item, self.text)
            .is_some_and(|c| c.template_args(self.text) == Some("PIPE_ALL"))
    }

    /// The effects of the statements that may run between the full barriers around `barrier` and it,
    /// before it (`forward` false) or after it.
    fn region(&self, barrier: Node<'t>, forward: bool) -> Vec<Effect> {
        let mut seen = HashSet::new();
        let mut todo = self.flow.past(barrier, forward);
        let mut out = vec![];
        while let Some(item) = todo.pop() {
            if !seen.insert(item.id()) || seen.len() > 10_000 {
                continue;
            }
            if self.is_full_barrier(item) {
                continue;
            }
            for part in cst::own_parts(item) {
                for call in cst::nodes_of_kind(part, "call_expression")
                    .iter()
                    .filter_map(|n| Call::of(*n))
                {
                    out.push(self.effect(&call));
                }
            }
            todo.extend(self.flow.next(item, forward));
        }
        out
    }

    /// Why the full barrier statement `barrier` still orders something once it is narrowed to the vector
    /// pipe (`keep_vector`) or removed: an operation on either side whose order with the other side
    /// neither the queues nor (when kept) the vector pipe give. None when nothing would be lost.
    /// Scalar reads before the barrier are harmless (the scalar unit waits for its own loads); vector
    /// instructions are taken to issue in order on the V pipe, so a removed barrier loses nothing
    /// between them either.
    pub(super) fn still_needed(&self, barrier: Node<'t>) -> Option<String> {
        let before = self.region(barrier, false);
        let after = self.region(barrier, true);
        let loose = |e: &Effect, after: bool| match e {
            Effect::ScalarWrite => Some("a scalar SetValue".to_string()),
            Effect::ScalarRead if after => Some("a scalar GetValue after it".to_string()),
            Effect::LooseCopy => Some("a copy of UB data outside the queues".to_string()),
            Effect::Unknown(n) => Some(format!("a call to {n}, whose pipe is unknown")),
            Effect::BarrierAll => Some("a full barrier reached inside a call".to_string()),
            _ => None,
        };
        if let Some(why) = before.iter().find_map(|e| loose(e, false)) {
            return Some(why + " before it");
        }
        if let Some(why) = after.iter().find_map(|e| loose(e, true)) {
            return Some(why);
        }
        let gm = |effects: &[Effect], write: bool| -> HashSet<String> {
            effects
                .iter()
                .filter_map(|e| match e {
                    Effect::QueueCopy { gm_read, gm_write } => {
                        if write {
                            gm_write.clone()
                        } else {
                            gm_read.clone()
                        }
                    }
                    _ => None,
                })
                .collect()
        };
        let clash = gm(&before, true)
            .intersection(&gm(&after, false))
            .chain(gm(&before, false).intersection(&gm(&after, true)))
            .next()
            .cloned();
        clash.map(|g| format!("{g} is copied both ways across it"))
    }

    /// Whether the file writes `AscendC::` before API calls (rewrites then do too).
    pub(super) fn qualified(&self) -> bool {
        cst::nodes_of_kind(self.root, "call_expression")
            .into_iter()
            .filter_map(Call::of)
            .any(|c| c.qualified(self.text))
    }
}

/// The call of a `PipeBarrier<...>()` statement.
pub(super) fn barrier_call<'t>(item: Node<'t>, text: &str) -> Option<Call<'t>> {
    let call = Call::of(statement_call(item)?)?;
    (call.name(text) == "PipeBarrier").then_some(call)
}

/// The call expression an expression statement consists of.
pub(super) fn statement_call(item: Node) -> Option<Node> {
    if item.kind() != "expression_statement" {
        return None;
    }
    item.named_child(0)
        .filter(|n| n.kind() == "call_expression")
}

/// `AscendC::PipeBarrier<PIPE_ALL>();` in the file's style, on its own line.
pub(super) fn barrier_line(indent: &str, qualified: bool, pipe: &str) -> String {
    let q = if qualified { "AscendC::" } else { "" };
    format!("{indent}{q}PipeBarrier<{pipe}>();\n")
}

/// The start of the line of a block's closing brace, when the brace opens its line.
fn closing_brace_line(text: &str, block: Node) -> Option<usize> {
    let close = block.end_byte().checked_sub(1)?;
    (text.as_bytes().get(close) == Some(&b'}')).then_some(())?;
    let start = cst::line_start(text, close);
    text[start..close].trim().is_empty().then_some(start)
}

/// Where a full barrier sits (or would sit) and why the queues cover it.
struct Spot<'t> {
    /// Byte offset of the start of the barrier's line (the insertion point when there is none).
    at: usize,
    /// The barrier statement, when there is one.
    barrier: Option<Node<'t>>,
    indent: String,
    what: String,
}

/// The spots of the two kinds: the end of each tile loop, and before the canonical EnQue of each stage
/// function with vector work.
fn spots<'t>(sync: &Sync<'t>, text: &str) -> Vec<Spot<'t>> {
    let mut out = vec![];
    let root = sync.root();
    for lp in cst::nodes_of_kind(root, "for_statement")
        .into_iter()
        .chain(cst::nodes_of_kind(root, "while_statement"))
    {
        let Some(body) = lp
            .child_by_field_name("body")
            .filter(|b| b.kind() == "compound_statement")
        else {
            continue;
        };
        let items = cst::statements(body);
        let stages: Vec<String> = items
            .iter()
            .filter_map(|i| statement_call(*i).and_then(Call::of))
            .filter(|c| sync.is_queue_stage(c))
            .map(|c| c.name(text).to_string())
            .collect();
        let (Some(last), Some(brace)) = (items.last(), closing_brace_line(text, body)) else {
            continue;
        };
        if stages.is_empty() {
            continue;
        }
        let what = format!("at the end of the tile loop over {}", stages.join("/"));
        if sync.is_full_barrier(*last) {
            if cst::own_lines(text, *last).is_some_and(|r| r.end == brace) {
                out.push(Spot {
                    at: cst::line_start(text, last.start_byte()),
                    barrier: Some(*last),
                    indent: cst::indent_at(text, last.start_byte()).to_string(),
                    what,
                });
            }
        } else if barrier_call(*last, text).is_none() {
            out.push(Spot {
                at: brace,
                barrier: None,
                indent: cst::indent_at(text, last.start_byte()).to_string(),
                what,
            });
        }
    }
    for f in cst::nodes_of_kind(root, "function_definition") {
        let Some(body) = f.child_by_field_name("body") else {
            continue;
        };
        let last_vector = cst::nodes_of_kind(body, "call_expression")
            .into_iter()
            .filter_map(Call::of)
            .filter(|c| VECTOR_OPS.contains(&c.name(text)))
            .map(|c| c.node.end_byte())
            .max();
        let Some(last_vector) = last_vector else {
            continue;
        };
        let items = cst::statements(body);
        let Some(k) = items.iter().position(|i| {
            i.start_byte() > last_vector
                && statement_call(*i)
                    .and_then(Call::of)
                    .is_some_and(|c| enqueues_allocated(&c, body, text))
        }) else {
            continue;
        };
        let enq = items[k];
        let line = cst::line_start(text, enq.start_byte());
        if !text[line..enq.start_byte()].trim().is_empty() {
            continue;
        }
        let var = statement_call(enq)
            .and_then(Call::of)
            .map(|c| c.arg_texts(text).join(", "))
            .unwrap_or_default();
        let what = format!("before the EnQue of {var} after the vector work");
        let prev = k.checked_sub(1).map(|j| items[j]);
        match prev {
            Some(p) if sync.is_full_barrier(p) => {
                if cst::own_lines(text, p).is_some_and(|r| r.end == line) {
                    out.push(Spot {
                        at: cst::line_start(text, p.start_byte()),
                        barrier: Some(p),
                        indent: cst::indent_at(text, p.start_byte()).to_string(),
                        what,
                    });
                }
            }
            Some(p) if barrier_call(p, text).is_some() => {}
            _ => out.push(Spot {
                at: line,
                barrier: None,
                indent: cst::indent_at(text, enq.start_byte()).to_string(),
                what,
            }),
        }
    }
    out.sort_by_key(|s| s.at);
    out
}

/// Whether `call` is `q.EnQue(t)` of a tensor `t` the function `body` allocated from the same queue.
fn enqueues_allocated(call: &Call, body: Node, text: &str) -> bool {
    if call.name(text) != "EnQue" {
        return false;
    }
    let (Some(queue), Some(var)) = (call.receiver(text), call.arg_texts(text).first().copied())
    else {
        return false;
    };
    cst::nodes_of_kind(body, "init_declarator")
        .into_iter()
        .any(|d| {
            d.child_by_field_name("declarator")
                .is_some_and(|n| text_of(n, text) == var)
                && d.child_by_field_name("value")
                    .and_then(Call::of)
                    .is_some_and(|c| {
                        c.name(text) == "AllocTensor" && c.receiver(text) == Some(queue)
                    })
        })
}

impl DropQueueBarrier {
    fn error(text: &str, site: &Site, why: impl Into<String>) -> MotifError {
        MotifError {
            motif: NAME,
            line: cst::line_of(text, site.range.start),
            why: why.into(),
        }
    }
}

impl Motif for DropQueueBarrier {
    fn relaxes_sync(&self) -> bool {
        true
    }
    fn name(&self) -> &'static str {
        NAME
    }
    fn summary(&self) -> &'static str {
        "remove a PipeBarrier<PIPE_ALL> that the TQue EnQue/DeQue flags already make redundant"
    }
    fn preserves_meaning_when(&self) -> &'static str {
        "the barrier ends a tile loop whose body calls CopyIn/Compute/CopyOut-style functions that use \
         EnQue/DeQue, or stands right before the EnQue of a tensor its function allocated, after that \
         function's last vector instruction; and, following program order through loops, branches and \
         calls up to the nearest full barrier on each side, nothing before it writes UB from the scalar \
         unit, nothing after it reads or writes UB from the scalar unit, every GM<->UB copy on either side \
         is of a queue tensor (allocated and enqueued, or dequeued), no GM tensor is copied in on one side \
         and out on the other, and every call is a known vector, queue or setup call or a function of the \
         file. What is left to order is then vector work (in order on the V pipe) and queue traffic, which \
         the queue flags order"
    }
    fn apply_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        let sync = Sync::new(tree.root_node(), text);
        spots(&sync, text)
            .into_iter()
            .filter_map(|s| {
                let b = s.barrier?;
                let lines = cst::own_lines(text, b)?;
                sync.still_needed(b).is_none().then(|| {
                    Site::new(
                        lines,
                        text,
                        format!("full barrier {}: the queues order it", s.what),
                    )
                })
            })
            .collect()
    }
    fn apply(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        if !self.apply_sites(text).iter().any(|s| s.range == site.range) {
            return Err(Self::error(text, site, "no redundant full barrier here"));
        }
        let removed = text[site.range.clone()].to_string();
        let new = cst::splice(text, site.range.clone(), "");
        let at = site.range.start;
        let inverse = Site::new(
            at..at,
            &new,
            site.what.replace("full barrier ", "no full barrier "),
        )
        .restoring(removed);
        Ok(Edit { text: new, inverse })
    }
    fn rewind_sites(&self, text: &str) -> Vec<Site> {
        let tree = cst::parse(text);
        let sync = Sync::new(tree.root_node(), text);
        let line_for = |indent: &str| barrier_line(indent, sync.qualified(), "PIPE_ALL");
        spots(&sync, text)
            .into_iter()
            .filter(|s| s.barrier.is_none())
            .filter(|s| {
                // Offered only where apply would take the barrier away again.
                let line = line_for(&s.indent);
                let new = cst::splice(text, s.at..s.at, &line);
                self.apply_sites(&new)
                    .iter()
                    .any(|a| a.range == (s.at..s.at + line.len()))
            })
            .map(|s| Site::new(s.at..s.at, text, format!("no full barrier {}", s.what)))
            .collect()
    }
    fn rewind(&self, text: &str, site: &Site) -> Result<Edit, MotifError> {
        if !site.range.is_empty() {
            return Err(Self::error(
                text,
                site,
                "a barrier is inserted at a point, not over text",
            ));
        }
        let tree = cst::parse(text);
        let sync = Sync::new(tree.root_node(), text);
        let spot = spots(&sync, text)
            .into_iter()
            .find(|s| s.barrier.is_none() && s.at == site.range.start)
            .ok_or_else(|| {
                Self::error(
                    text,
                    site,
                    "not the end of a tile loop or before a stage's EnQue",
                )
            })?;
        let line = match &site.restore {
            Some(r) => r.clone(),
            None => barrier_line(&spot.indent, sync.qualified(), "PIPE_ALL"),
        };
        let new = cst::splice(text, spot.at..spot.at, &line);
        let inverse = Site::new(
            spot.at..spot.at + line.len(),
            &new,
            format!("full barrier {}: the queues order it", spot.what),
        );
        Ok(Edit { text: new, inverse })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rewrite::motif::testing::*;

    fn code(k: &str) -> &str {
        &k[k.find("#include").unwrap()..]
    }

    #[test]
    fn drops_the_barrier_before_enque_in_mul_custom() {
        let (naive, reference) = fixture_kernel("mul_custom");
        let sites = DropQueueBarrier.apply_sites(&naive);
        assert_eq!(sites.len(), 1, "{sites:?}");
        assert_eq!(sites[0].line, 49);
        let edit = DropQueueBarrier.apply(&naive, &sites[0]).unwrap();
        assert!(!edit.text.contains("PIPE_ALL"));
        assert!(edit.text.contains(
            "AscendC::Mul(outLocal, in0, in1, this->tileLength);\n        outQueueZ.EnQue"
        ));
        assert_eq!(round_trips(&DropQueueBarrier, &naive), 1);
        // The reference computes the same Compute without it; rewinding puts a barrier back there.
        let back = DropQueueBarrier.rewind_sites(&reference);
        assert_eq!(
            back.iter().map(|s| s.line).collect::<Vec<_>>(),
            vec![36, 55],
            "{back:?}"
        );
        let edit = DropQueueBarrier.rewind(&reference, &back[1]).unwrap();
        assert!(code(&edit.text).contains(
            "AscendC::Mul(outLocal, in0, in1, this->tileLength);\n        AscendC::PipeBarrier<PIPE_ALL>();\n        outQueueZ.EnQue"
        ));
        assert_eq!(rewinds_round_trip(&DropQueueBarrier, &reference), 2);
    }

    #[test]
    fn drops_tile_loop_barriers_but_not_those_guarding_scalar_work() {
        let lines = |op: &str| {
            let (naive, _) = fixture_kernel(op);
            DropQueueBarrier
                .apply_sites(&naive)
                .iter()
                .map(|s| s.line)
                .collect::<Vec<_>>()
        };
        assert_eq!(lines("addcmul_custom"), vec![34]);
        assert_eq!(lines("cast_custom"), vec![27]);
        // The loads of the bias row are TBuf and scalar work: only the tile loop's barrier goes.
        assert_eq!(lines("bias_add_custom"), vec![35]);
        // Every row's statistics are read by the scalar unit behind full barriers inside Compute, so the
        // tile loop's barrier adds nothing; the ones inside Compute stay.
        assert_eq!(lines("layernorm_custom"), vec![42]);
        assert_eq!(lines("rmsnorm_custom"), vec![44]);
        assert_eq!(lines("swiglu_custom"), vec![31]);
        // Scalar SetValue into the output tile: the next tile's writes would race the copy-out.
        assert!(lines("reduce_sum_custom").is_empty());
        assert!(lines("reduce_max_custom").is_empty());
    }

    #[test]
    fn keeps_a_barrier_before_enque_that_fences_a_scalar_write() {
        let (naive, _) = fixture_kernel("mul_custom");
        let near_miss = naive.replace(
            "        AscendC::Mul(outLocal, in0, in1, this->tileLength);\n",
            "        AscendC::Mul(outLocal, in0, in1, this->tileLength);\n        outLocal.SetValue(0, in0.GetValue(0));\n",
        );
        assert!(DropQueueBarrier.apply_sites(&near_miss).is_empty());
    }
}
