//! Constraints the tool derives from the op's own sources, so the budget is not spent building candidates
//! that are bound to fail: (a) the UB capacity of the queues and buffers the kernel's `Init` sets up,
//! (b) 32 B alignment of `DataCopy` lengths, (c) divisibility where `Init` divides a size by a count with
//! no remainder handling. The sources are read with tree-sitter-cpp; each derived constraint is the
//! kernel's own integer arithmetic written over tunables and facts, so it is exact where it exists.
//!
//! What is recognised (anything else is "unknown", and a constraint needing an unknown is not derived):
//! - numbers: integer literals; file-level `constexpr`/`const`/`#define` integers (a tunable when one is
//!   bound to that symbol); `sizeof` of `half`, `float`, the fixed-width integer types and
//!   `DTYPE_<TENSOR>` (from the manifest's tensors); `+ - * / %` and casts to integer types.
//! - host: in the one function that calls `SetBlockDim`, straight-line locals and tiling fields
//!   (`tiling.set_F(e)`, `tiling->F = e`, `tiling.F = e`); input shapes read as
//!   `context->GetInputShape(K)->GetOriginShape()` (or `GetStorageShape()`), then `.GetShapeSize()`
//!   (`<input>_elems`), `.GetDim(i)` and `.GetDim(.GetDimNum() - 1)` (`<input>_dim<i>`); the argument of
//!   `SetBlockDim`, which is what the kernel's `GetBlockNum()` returns.
//! - kernel: the one `X.Init(...)` call of the entry function (arguments `tiling_data.F` after
//!   `GET_TILING_DATA`, or the whole struct after `GET_TILING_DATA_WITH_STRUCT`), and the straight-line
//!   statements of the one `Init` method: locals, `this->m = e` and `m = e` for members.
//!
//! A name assigned inside a branch or loop, assigned twice on the host, or assigned outside `Init` (for
//! members) is unknown. Values are taken as non-negative and free of 32-bit wrap-around, which holds for
//! the sizes tunables produce; each buffer's 32 B round-up is left out of (a), which makes (a) weaker than
//! the twin's own check, never stricter. (c) is derived only when the kernel has no `%`, no `DataCopyPad`
//! and no name mentioning a tail or remainder, and only for divisions in statements that store into an
//! integer whose dividend is not a sum (a sum is how rounding up is written). (d) Two tunables bound to
//! the same symbol, one in a host file and one elsewhere, holding the same value now, are kept equal.
//!
//! (e) Cube buffer capacity of a matmul tiling's fixed split over tunables: derived/cube.rs.
//!
//! This module knows the AscendC idioms above; it knows nothing of strategies, building or running.

use super::{Constraint, Tunable};
use crate::manifest::{Bind, DType, OpSpec};
use crate::rewrite::cst::{self, Call};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use tree_sitter::Node;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    UbCapacity,
    CopyAlignment,
    Divisibility,
    /// L0A / L0B / L0C capacity of the matmul tiling's base blocks (derived/cube.rs).
    CubeCapacity,
    /// A constant defined alike on both sides (host `BUFFER_NUM`, kernel `BUFFER_NUM`): the host sizes
    /// the tiles for the kernel's value, so the two move together.
    Agreement,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::UbCapacity => "UB capacity",
            Kind::CopyAlignment => "32 B copy alignment",
            Kind::Divisibility => "divisibility",
            Kind::CubeCapacity => "cube buffer capacity",
            Kind::Agreement => "host/kernel agreement",
        }
    }
}

/// A constraint derived from the sources, with where it comes from.
#[derive(Debug, Clone)]
pub struct Derived {
    pub kind: Kind,
    pub constraint: Constraint,
    /// File and line(s) it was read from, and anything left out.
    pub origin: String,
}

impl Derived {
    /// One line for people: `UB capacity: ... <= ub_bytes (op_kernel/add_custom.cpp:19-21)`.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} ({})",
            self.kind.as_str(),
            self.constraint.text(),
            self.origin
        )
    }
}

/// Derives what it can for `op` from `sources` (relative path -> text). Never fails: what cannot be read
/// yields no constraint.
pub fn derive(
    op: &OpSpec,
    sources: &BTreeMap<String, String>,
    tunables: &[Tunable],
    facts: &BTreeMap<String, i64>,
) -> Vec<Derived> {
    let names: Vec<&str> = tunables.iter().map(|t| t.name.as_str()).collect();
    let binds: Vec<(String, Bind, String)> = op
        .tunables
        .iter()
        .map(|t| (t.file.clone(), t.bind.clone(), t.name.clone()))
        .collect();
    let mut host = HostFacts::default();
    let host_files: Vec<&String> = op
        .host
        .iter()
        .filter(|f| sources.contains_key(*f))
        .collect();
    let mut found_host = 0;
    for f in &host_files {
        if let Some(h) = read_host(op, f, &sources[*f], &binds) {
            host = h;
            found_host += 1;
        }
    }
    if found_host > 1 {
        host = HostFacts::default();
    }
    let mut found: Vec<(Kind, String, String)> = cube::cube_capacity(op, sources, &binds);
    let mut out: Vec<Derived> = agreements(op, tunables, &names, facts);
    for f in &op.kernel {
        let Some(text) = sources.get(f) else {
            continue;
        };
        found.extend(read_kernel(op, f, text, &binds, &host));
    }
    for (kind, text_c, origin) in found {
        if out.iter().any(|d| d.constraint.text() == text_c) {
            continue;
        }
        // A constraint we wrote ourselves names only tunables and facts; if it does not compile the
        // derivation is wrong, and nothing is better than a wrong constraint.
        if let Ok(c) = Constraint::compile(&text_c, &names, facts) {
            out.push(Derived {
                kind,
                constraint: c,
                origin,
            });
        }
    }
    out
}

/// Tunables bound to the same symbol in a host file and in a kernel file, holding the same value now,
/// must stay equal: `(d)` of the module comment.
fn agreements(
    op: &OpSpec,
    tunables: &[Tunable],
    names: &[&str],
    facts: &BTreeMap<String, i64>,
) -> Vec<Derived> {
    let symbol = |name: &str| {
        op.tunables
            .iter()
            .find(|t| t.name == name)
            .and_then(|t| match &t.bind {
                Bind::Symbol(s) => Some(s.clone()),
                Bind::Call { .. } | Bind::UbParts { .. } | Bind::Field { .. } => None,
            })
    };
    let mut out = vec![];
    for h in tunables.iter().filter(|t| op.host.contains(&t.site.file)) {
        for k in tunables.iter().filter(|t| !op.host.contains(&t.site.file)) {
            let (Some(hs), Some(ks)) = (symbol(&h.name), symbol(&k.name)) else {
                continue;
            };
            if hs != ks || h.site.value != k.site.value {
                continue;
            }
            if let Ok(c) = Constraint::compile(&format!("{} == {}", h.name, k.name), names, facts) {
                out.push(Derived {
                    kind: Kind::Agreement,
                    constraint: c,
                    origin: format!(
                        "`{hs}` in {}:{} and {}:{}",
                        h.site.file, h.site.line, k.site.file, k.site.line
                    ),
                });
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------------
// Terms: integer expressions over tunables and facts, rendered in evalexpr's syntax.

#[derive(Debug, Clone, PartialEq)]
enum Term {
    Int(i64),
    /// A tunable (true) or a fact (false).
    Var(String, bool),
    Bin(char, Box<Term>, Box<Term>),
}

impl Term {
    fn bin(op: char, a: Term, b: Term) -> Option<Term> {
        use Term::Int;
        Some(match (op, a, b) {
            ('+', Int(x), Int(y)) => Int(x.checked_add(y)?),
            ('-', Int(x), Int(y)) => Int(x.checked_sub(y)?),
            ('*', Int(x), Int(y)) => Int(x.checked_mul(y)?),
            ('/', Int(x), Int(y)) => Int(x.checked_div(y)?),
            ('%', Int(x), Int(y)) => Int(x.checked_rem(y)?),
            ('/' | '%', _, Int(0)) => return None,
            ('*', Int(1), t)
            | ('*' | '/', t, Int(1))
            | ('+' | '-', t, Int(0))
            | ('+', Int(0), t) => t,
            (op, a, b) => Term::Bin(op, Box::new(a), Box::new(b)),
        })
    }

    fn has_tunable(&self) -> bool {
        match self {
            Term::Int(_) => false,
            Term::Var(_, t) => *t,
            Term::Bin(_, a, b) => a.has_tunable() || b.has_tunable(),
        }
    }

    /// A chain of `op` over names and numbers only.
    fn pure(&self, op: char) -> bool {
        match self {
            Term::Bin(o, a, b) => *o == op && a.pure(op) && b.pure(op),
            _ => true,
        }
    }

    fn prec(&self) -> u8 {
        match self {
            Term::Bin('+' | '-', ..) => 1,
            Term::Bin(..) => 2,
            _ => 3,
        }
    }

    fn render(&self) -> String {
        match self {
            Term::Int(v) => v.to_string(),
            Term::Var(n, _) => n.clone(),
            Term::Bin(op, a, b) => {
                let p = self.prec();
                let left = if a.prec() < p {
                    format!("({})", a.render())
                } else {
                    a.render()
                };
                // `a * (b * c)` may drop its parentheses only when the right side is a product of
                // names and numbers: `a * (b / c * 2)` is not `a * b / c * 2` in integers.
                let assoc = matches!(op, '*' | '+') && b.pure(*op);
                let right = if b.prec() < p || (b.prec() == p && !assoc) {
                    format!("({})", b.render())
                } else {
                    b.render()
                };
                format!("{left} {op} {right}")
            }
        }
    }
}

/// `a % d == 0`, with both sides in parentheses unless they are a name or a number.
fn modulo_zero(a: Term, d: Term) -> String {
    let side = |t: &Term| match t {
        Term::Bin(..) => format!("({})", t.render()),
        _ => t.render(),
    };
    format!("{} % {} == 0", side(&a), side(&d))
}

/// What a C++ expression stands for.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    Num(Term),
    /// The tiling data (host variable or kernel struct): its fields are `HostFacts::fields`.
    Tiling,
    /// The shape of input `k`.
    Shape(usize),
}

#[derive(Debug, Default)]
struct HostFacts {
    /// Tiling fields set once, straight-line, to a known value.
    fields: HashMap<String, Term>,
    /// The argument of `SetBlockDim`.
    block_dim: Option<Term>,
}

const INT_TYPES: &[&str] = &[
    "int",
    "unsigned",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "size_t",
    "unsigned int",
    "long",
    "unsigned long",
];

fn is_int_type(t: &str) -> bool {
    let t = t
        .trim()
        .trim_start_matches("const ")
        .trim_start_matches("static ")
        .trim_start_matches("constexpr ")
        .trim();
    INT_TYPES.contains(&t.trim_start_matches("std::"))
}

fn type_size(t: &str, op: &OpSpec) -> Option<i64> {
    let t = t.trim().trim_start_matches("AscendC::");
    if let Some(name) = t.strip_prefix("DTYPE_") {
        return op
            .inputs
            .iter()
            .chain(&op.outputs)
            .find(|x| x.key.eq_ignore_ascii_case(name))
            .map(|x| x.dtype.size() as i64);
    }
    if let Some(d) = DType::from_c_type(t) {
        return Some(d.size() as i64);
    }
    match t {
        "float16_t" => Some(2),
        "float32_t" => Some(4),
        "double" | "size_t" => Some(8),
        "int" | "unsigned" => Some(4),
        _ => None,
    }
}

/// Evaluation state: file-level constants, locals and members, and how to read calls.
struct Env<'a> {
    op: &'a OpSpec,
    text: &'a str,
    file: &'a str,
    binds: &'a [(String, Bind, String)],
    host: Option<&'a HostFacts>,
    consts: HashMap<String, Option<Term>>,
    /// None: known to exist but unknown.
    locals: HashMap<String, Option<Val>>,
    members: HashMap<String, Option<Val>>,
    /// Names that must read as unknown (assigned where straight-line reading cannot follow).
    poisoned: BTreeSet<String>,
}

impl<'a> Env<'a> {
    fn new(
        op: &'a OpSpec,
        file: &'a str,
        text: &'a str,
        root: Node,
        binds: &'a [(String, Bind, String)],
    ) -> Self {
        let mut consts: HashMap<String, Option<Term>> = HashMap::new();
        let mut put = |name: &str, t: Option<Term>| {
            consts
                .entry(name.to_string())
                .and_modify(|v| *v = None)
                .or_insert(t);
        };
        let tunable_symbol = |name: &str| {
            binds.iter().find_map(|(f, b, n)| match b {
                Bind::Symbol(s) if s == name && (f == file || f.ends_with(".h")) => Some(n.clone()),
                _ => None,
            })
        };
        cst::visit(root, &mut |n| {
            let (name, value) = match n.kind() {
                "init_declarator" if cst::ancestor(n, &["function_definition"]).is_none() => {
                    let Some(d) = n.child_by_field_name("declarator") else {
                        return;
                    };
                    if d.kind() != "identifier" {
                        return;
                    }
                    (cst::text_of(d, text), n.child_by_field_name("value"))
                }
                "preproc_def" => {
                    let Some(d) = n.child_by_field_name("name") else {
                        return;
                    };
                    (cst::text_of(d, text), n.child_by_field_name("value"))
                }
                _ => return,
            };
            // A size written in units (`16u * 1024u`): the tunable is the factor.
            let unit = value.and_then(|v| {
                (v.kind() == "binary_expression"
                    && v.child_by_field_name("operator")
                        .is_some_and(|o| cst::text_of(o, text) == "*"))
                .then(|| {
                    let lit = |n: Option<Node>| {
                        n.filter(|n| n.kind() == "number_literal").and_then(|n| {
                            super::binding::parse_integer_literal(cst::text_of(n, text))
                                .map(|(v, ..)| v)
                        })
                    };
                    Some((
                        lit(v.child_by_field_name("left"))?,
                        lit(v.child_by_field_name("right"))?,
                    ))
                })
                .flatten()
            });
            let t = match (tunable_symbol(name), unit) {
                (Some(tn), Some((_, u))) if u > 1 => {
                    Term::bin('*', Term::Var(tn, true), Term::Int(u))
                }
                (Some(tn), _) => Some(Term::Var(tn, true)),
                (None, Some((a, u))) => a.checked_mul(u).map(Term::Int),
                (None, None) => value.and_then(|v| {
                    let raw = cst::text_of(v, text).trim();
                    let raw = raw.split("//").next().unwrap_or("").trim();
                    super::binding::parse_integer_literal(raw).and_then(|(v, _, digits)| {
                        (digits.end
                            + raw[digits.end..]
                                .chars()
                                .take_while(|c| c.is_ascii_alphabetic())
                                .count()
                            == raw.len())
                        .then_some(Term::Int(v))
                    })
                }),
            };
            put(name, t);
        });
        Env {
            op,
            text,
            file,
            binds,
            host: None,
            consts,
            locals: HashMap::new(),
            members: HashMap::new(),
            poisoned: BTreeSet::new(),
        }
    }

    fn t(&self, n: Node) -> &'a str {
        cst::text_of(n, self.text)
    }

    fn num(&self, n: Node) -> Option<Term> {
        match self.eval(n)? {
            Val::Num(t) => Some(t),
            _ => None,
        }
    }

    /// The tunable bound to argument `arg` of calls to `func` in this file.
    fn call_bind(&self, func: &str, arg: usize) -> Option<Term> {
        self.binds.iter().find_map(|(f, b, n)| match b {
            Bind::Call { func: bf, arg: ba } if f == self.file && bf == func && *ba == arg => {
                Some(Term::Var(n.clone(), true))
            }
            _ => None,
        })
    }

    /// The tunable bound to the literal this file's tiling assigns to tiling field `field`.
    fn field_bind(&self, field: &str) -> Option<Term> {
        self.binds.iter().find_map(|(f, b, n)| match b {
            Bind::Field { field: bf } if f == self.file && bf == field => {
                Some(Term::Var(n.clone(), true))
            }
            _ => None,
        })
    }

    fn lookup(&self, name: &str) -> Option<Val> {
        if self.poisoned.contains(name) {
            return None;
        }
        if let Some(v) = self.locals.get(name) {
            return v.clone();
        }
        if let Some(v) = self.members.get(name) {
            return v.clone();
        }
        self.consts.get(name).cloned().flatten().map(Val::Num)
    }

    fn eval(&self, n: Node) -> Option<Val> {
        match n.kind() {
            "number_literal" => {
                let (v, _, _) = super::binding::parse_integer_literal(self.t(n))?;
                Some(Val::Num(Term::Int(v)))
            }
            "identifier" => self.lookup(self.t(n)),
            "parenthesized_expression" => {
                let mut c = n.walk();
                let inner: Vec<Node> = n.named_children(&mut c).collect();
                match inner.as_slice() {
                    [only] => self.eval(*only),
                    _ => None,
                }
            }
            "cast_expression" => {
                let ty = n.child_by_field_name("type")?;
                if !is_int_type(self.t(ty)) {
                    return None;
                }
                self.eval(n.child_by_field_name("value")?)
            }
            "sizeof_expression" => {
                // `sizeof(float)` has a type; `sizeof(half)` and `sizeof(DTYPE_X)` parse as a
                // parenthesised name, which is a type name here or nothing we know.
                let ty = match n.child_by_field_name("type") {
                    Some(t) => self.t(t),
                    None => self
                        .t(n.child_by_field_name("value")?)
                        .trim_matches(|c: char| c == '(' || c == ')' || c.is_whitespace()),
                };
                type_size(ty, self.op).map(|s| Val::Num(Term::Int(s)))
            }
            "binary_expression" => {
                let op = n.child_by_field_name("operator")?;
                let op = match self.t(op) {
                    "+" => '+',
                    "-" => '-',
                    "*" => '*',
                    "/" => '/',
                    "%" => '%',
                    _ => return None,
                };
                let a = self.num(n.child_by_field_name("left")?)?;
                let b = self.num(n.child_by_field_name("right")?)?;
                Term::bin(op, a, b).map(Val::Num)
            }
            "field_expression" => {
                let base = n.child_by_field_name("argument")?;
                let field = self.t(n.child_by_field_name("field")?);
                if base.kind() == "this" {
                    if self.poisoned.contains(field) {
                        return None;
                    }
                    return self.members.get(field).cloned().flatten();
                }
                match self.eval(base)? {
                    Val::Tiling => self.host?.fields.get(field).cloned().map(Val::Num),
                    _ => None,
                }
            }
            "pointer_expression" => {
                // `*context->GetInputShape(0)`: a shape by pointer is still the shape.
                let v = self.eval(n.child_by_field_name("argument")?)?;
                matches!(v, Val::Shape(_)).then_some(v)
            }
            "call_expression" => self.eval_call(Call::of(n)?),
            _ => None,
        }
    }

    fn eval_call(&self, call: Call) -> Option<Val> {
        let name = call.name(self.text);
        let args = call.args();
        let receiver = || {
            (call.function.kind() == "field_expression")
                .then(|| call.function.child_by_field_name("argument"))
                .flatten()
        };
        match (name, args.as_slice()) {
            ("GetBlockNum", []) => self.host?.block_dim.clone().map(Val::Num),
            ("GetInputShape", [k]) => {
                let Val::Num(Term::Int(k)) = self.eval(*k)? else {
                    return None;
                };
                let k = usize::try_from(k).ok()?;
                (k < self.op.inputs.len()).then_some(Val::Shape(k))
            }
            ("GetOriginShape" | "GetStorageShape", []) => {
                let v = self.eval(receiver()?)?;
                matches!(v, Val::Shape(_)).then_some(v)
            }
            ("GetShapeSize", []) => match self.eval(receiver()?)? {
                Val::Shape(k) => Some(Val::Num(Term::Var(
                    format!("{}_elems", self.op.inputs[k].key),
                    false,
                ))),
                _ => None,
            },
            ("GetDimNum", []) => match self.eval(receiver()?)? {
                Val::Shape(k) => Some(Val::Num(Term::Int(self.op.inputs[k].shape.len() as i64))),
                _ => None,
            },
            ("GetDim", [i]) => match self.eval(receiver()?)? {
                Val::Shape(k) => {
                    let Val::Num(Term::Int(i)) = self.eval(*i)? else {
                        return None;
                    };
                    let i = usize::try_from(i).ok()?;
                    (i < self.op.inputs[k].shape.len()).then(|| {
                        Val::Num(Term::Var(
                            format!("{}_dim{i}", self.op.inputs[k].key),
                            false,
                        ))
                    })
                }
                _ => None,
            },
            ("GetTilingData", []) => Some(Val::Tiling),
            _ => None,
        }
    }

    /// The variable a statement stores into, if it is a plain one: (name, is member).
    fn target(&self, left: Node) -> Option<(String, bool)> {
        match left.kind() {
            "identifier" => {
                let name = self.t(left).to_string();
                let member = !self.locals.contains_key(&name);
                Some((name, member))
            }
            "field_expression" => {
                let base = left.child_by_field_name("argument")?;
                let field = self.t(left.child_by_field_name("field")?).to_string();
                (base.kind() == "this").then_some((field, true))
            }
            _ => None,
        }
    }
}

fn declarator_name<'t>(mut d: Node<'t>) -> Option<Node<'t>> {
    loop {
        match d.kind() {
            "identifier" | "field_identifier" => return Some(d),
            "reference_declarator" | "pointer_declarator" | "init_declarator" => {
                d = d
                    .child_by_field_name("declarator")
                    .or_else(|| d.named_child(0))?;
            }
            _ => return None,
        }
    }
}

/// Names a subtree stores into (assignments, `++`/`--`, declarations): what nested statements touch.
fn stores_in(n: Node, text: &str, out: &mut BTreeSet<String>) {
    cst::visit(n, &mut |m| {
        let target = match m.kind() {
            "assignment_expression" => m.child_by_field_name("left"),
            "update_expression" => m.child_by_field_name("argument"),
            "init_declarator" => m
                .child_by_field_name("declarator")
                .and_then(declarator_name),
            _ => None,
        };
        let Some(t) = target else {
            return;
        };
        let name = match t.kind() {
            "field_expression" => t.child_by_field_name("field"),
            _ => Some(t),
        };
        if let Some(name) = name {
            out.insert(cst::text_of(name, text).to_string());
        }
    });
}

/// One straight-line statement: updates `env` (and the tiling fields on the host).
fn step(env: &mut Env, stmt: Node, tiling_fields: Option<&mut HashMap<String, Option<Term>>>) {
    let text = env.text;
    match stmt.kind() {
        "declaration" => {
            let ty = stmt
                .child_by_field_name("type")
                .map(|t| cst::text_of(t, text))
                .unwrap_or("");
            let mut c = stmt.walk();
            for d in stmt.children_by_field_name("declarator", &mut c) {
                let (name, value) = if d.kind() == "init_declarator" {
                    (
                        d.child_by_field_name("declarator")
                            .and_then(declarator_name),
                        d.child_by_field_name("value"),
                    )
                } else {
                    (declarator_name(d), None)
                };
                let Some(name) = name else {
                    continue;
                };
                let name = cst::text_of(name, text).to_string();
                let v = match value {
                    Some(v) => env.eval(v),
                    None if ty.ends_with("TilingData") => Some(Val::Tiling),
                    None => None,
                };
                env.locals.insert(name, v);
            }
        }
        "expression_statement" => {
            let Some(e) = stmt.named_child(0) else {
                return;
            };
            match e.kind() {
                "assignment_expression" => {
                    let (Some(left), Some(right), Some(op)) = (
                        e.child_by_field_name("left"),
                        e.child_by_field_name("right"),
                        e.child_by_field_name("operator"),
                    ) else {
                        return;
                    };
                    let plain = cst::text_of(op, text) == "=";
                    // `tiling->F = e` / `tiling.F = e` on the host.
                    if left.kind() == "field_expression"
                        && let Some(base) = left.child_by_field_name("argument")
                        && base.kind() != "this"
                        && env.eval(base) == Some(Val::Tiling)
                        && let Some(fields) = tiling_fields
                        && let Some(f) = left.child_by_field_name("field")
                    {
                        let field = cst::text_of(f, text);
                        let v = if plain {
                            env.field_bind(field).or_else(|| env.num(right))
                        } else {
                            None
                        };
                        set_once(fields, field, v);
                        return;
                    }
                    let v = if plain { env.eval(right) } else { None };
                    if let Some((name, member)) = env.target(left) {
                        if member {
                            env.members.insert(name, v);
                        } else {
                            env.locals.insert(name, v);
                        }
                    }
                }
                "call_expression" => {
                    // `tiling.set_F(e)` on the host.
                    let Some(call) = Call::of(e) else {
                        return;
                    };
                    let name = call.name(text);
                    if let (Some(field), Some(fields)) = (name.strip_prefix("set_"), tiling_fields)
                        && let Some(recv) = call.function.child_by_field_name("argument")
                        && env.eval(recv) == Some(Val::Tiling)
                        && let [arg] = call.args().as_slice()
                    {
                        let v = env
                            .call_bind(name, 0)
                            .or_else(|| env.field_bind(field))
                            .or_else(|| env.num(*arg));
                        set_once(fields, field, v);
                    }
                }
                _ => {
                    let mut s = BTreeSet::new();
                    stores_in(e, text, &mut s);
                    env.poisoned.extend(s);
                }
            }
        }
        _ => {
            let mut s = BTreeSet::new();
            stores_in(stmt, text, &mut s);
            env.poisoned.extend(s);
        }
    }
}

fn set_once(fields: &mut HashMap<String, Option<Term>>, field: &str, v: Option<Term>) {
    fields
        .entry(field.to_string())
        .and_modify(|old| *old = None)
        .or_insert(v);
}

fn body_statements<'t>(f: Node<'t>) -> Vec<Node<'t>> {
    let Some(body) = f.child_by_field_name("body") else {
        return vec![];
    };
    let mut c = body.walk();
    body.named_children(&mut c)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// The host's tiling fields and block count, from the one function that calls `SetBlockDim`.
fn read_host(
    op: &OpSpec,
    file: &str,
    text: &str,
    binds: &[(String, Bind, String)],
) -> Option<HostFacts> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let set_block = cst::calls_named(root, text, "SetBlockDim");
    let [only] = set_block.as_slice() else {
        return None;
    };
    let (func, _) = cst::enclosing_function(only.node, text)?;
    let mut env = Env::new(op, file, text, root, binds);
    let mut fields: HashMap<String, Option<Term>> = HashMap::new();
    let mut block_dim = None;
    let stmts = body_statements(func);
    for s in &stmts {
        if s.kind() == "expression_statement"
            && let Some(call) = s.named_child(0).and_then(Call::of)
            && call.name(text) == "SetBlockDim"
            && let [arg] = call.args().as_slice()
        {
            block_dim = env.call_bind("SetBlockDim", 0).or_else(|| env.num(*arg));
            continue;
        }
        step(&mut env, *s, Some(&mut fields));
    }
    // Set in a nested statement too: not straight-line.
    let mut nested = BTreeSet::new();
    for s in stmts.iter().filter(|s| {
        !matches!(
            s.kind(),
            "expression_statement" | "declaration" | "return_statement"
        )
    }) {
        stores_in(*s, text, &mut nested);
        if !cst::calls_named(*s, text, "SetBlockDim").is_empty() {
            block_dim = None;
        }
        cst::visit(*s, &mut |n| {
            if let Some(c) = Call::of(n)
                && let Some(f) = c.name(text).strip_prefix("set_")
            {
                nested.insert(f.to_string());
            }
        });
    }
    // Set outside this function too (a helper): not followed either.
    for f in cst::nodes_of_kind(root, "function_definition") {
        if f != func {
            stores_in(f, text, &mut nested);
            cst::visit(f, &mut |n| {
                if let Some(c) = Call::of(n)
                    && let Some(f) = c.name(text).strip_prefix("set_")
                {
                    nested.insert(f.to_string());
                }
            });
        }
    }
    let fields = fields
        .into_iter()
        .filter(|(k, _)| !nested.contains(k))
        .filter_map(|(k, v)| v.map(|v| (k, v)))
        .collect();
    Some(HostFacts { fields, block_dim })
}

/// The derived constraints of one kernel file: (kind, text, origin).
fn read_kernel(
    op: &OpSpec,
    file: &str,
    text: &str,
    binds: &[(String, Bind, String)],
    host: &HostFacts,
) -> Vec<(Kind, String, String)> {
    let tree = cst::parse(text);
    let root = tree.root_node();
    let mut out = vec![];
    let Some(entry) = cst::function_named(root, text, &op.name) else {
        return out;
    };
    // The entry: its tiling variable and the one Init call.
    let mut entry_env = Env::new(op, file, text, root, binds);
    entry_env.host = Some(host);
    for m in ["GET_TILING_DATA", "GET_TILING_DATA_WITH_STRUCT"] {
        for c in cst::calls_named(entry, text, m) {
            let args = c.args();
            let at = if m == "GET_TILING_DATA" { 0 } else { 1 };
            if let Some(a) = args.get(at) {
                entry_env
                    .locals
                    .insert(cst::text_of(*a, text).to_string(), Some(Val::Tiling));
            }
        }
    }
    let inits = cst::calls_named(entry, text, "Init");
    let [init_call] = inits.as_slice() else {
        return out;
    };
    if init_call.statement().and_then(|s| s.parent()) != entry.child_by_field_name("body") {
        return out;
    }
    let init_defs: Vec<Node> = cst::nodes_of_kind(root, "function_definition")
        .into_iter()
        .filter(|f| {
            let probe = f.child_by_field_name("body").unwrap_or(*f);
            cst::enclosing_function(probe, text).is_some_and(|(_, n)| n == "Init")
        })
        .collect();
    let [init] = init_defs.as_slice() else {
        return out;
    };
    let params: Vec<String> = cst::nodes_of_kind(*init, "parameter_declaration")
        .into_iter()
        .filter(|p| cst::ancestor(*p, &["compound_statement"]).is_none())
        .map(|p| {
            p.child_by_field_name("declarator")
                .and_then(declarator_name)
                .map(|n| cst::text_of(n, text).to_string())
                .unwrap_or_default()
        })
        .collect();
    let args = init_call.args();
    if params.len() != args.len() {
        return out;
    }
    let mut env = Env::new(op, file, text, root, binds);
    env.host = Some(host);
    for (p, a) in params.iter().zip(&args) {
        env.locals.insert(p.clone(), entry_env.eval(*a));
    }
    // Members stored outside Init cannot be followed.
    let mut elsewhere = BTreeSet::new();
    for f in cst::nodes_of_kind(root, "function_definition") {
        if f != *init {
            stores_in(f, text, &mut elsewhere);
        }
    }
    // Member types, for divisibility (integer members only) and copy element types.
    let mut member_int: BTreeSet<String> = BTreeSet::new();
    let mut tensor_types: HashMap<String, BTreeSet<String>> = HashMap::new();
    for d in cst::nodes_of_kind(root, "field_declaration")
        .into_iter()
        .chain(cst::nodes_of_kind(root, "declaration"))
    {
        let Some(ty) = d.child_by_field_name("type") else {
            continue;
        };
        let ty_text = cst::text_of(ty, text);
        let tensor_elem = (ty.kind() == "template_type" || ty.kind() == "qualified_identifier")
            .then(|| {
                let t = ty_text.trim_start_matches("AscendC::");
                let inner = t
                    .strip_prefix("LocalTensor<")
                    .or_else(|| t.strip_prefix("GlobalTensor<"))?;
                inner.strip_suffix('>').map(|s| s.trim().to_string())
            })
            .flatten();
        let mut c = d.walk();
        for decl in d.children_by_field_name("declarator", &mut c) {
            let Some(name) = declarator_name(decl) else {
                continue;
            };
            let name = cst::text_of(name, text).to_string();
            if d.kind() == "field_declaration" && is_int_type(ty_text) {
                member_int.insert(name.clone());
            }
            if let Some(t) = &tensor_elem {
                tensor_types.entry(name).or_default().insert(t.clone());
            }
        }
    }
    let tail_handling = text.contains('%')
        && cst::nodes_of_kind(root, "binary_expression")
            .iter()
            .any(|b| {
                b.child_by_field_name("operator")
                    .is_some_and(|o| cst::text_of(o, text) == "%")
            })
        || !cst::calls_named(root, text, "DataCopyPad").is_empty()
        || cst::nodes_of_kind(root, "identifier")
            .into_iter()
            .chain(cst::nodes_of_kind(root, "field_identifier"))
            .any(|n| {
                let s = cst::text_of(n, text).to_ascii_lowercase();
                s.contains("tail") || s.contains("remain")
            });
    let resets = ["Reset", "Destroy", "InitBufPool"]
        .iter()
        .any(|n| !cst::calls_named(root, text, n).is_empty());

    let mut ub_terms: Vec<Term> = vec![];
    let mut ub_lines: Vec<usize> = vec![];
    let all_buffers = cst::calls_named(root, text, "InitBuffer").len();
    let mut divisions: Vec<(Term, Term, usize)> = vec![];
    let mut copies_in_init: Vec<Node> = vec![];
    for s in body_statements(*init) {
        // InitBuffer at the top of Init: it always runs.
        if s.kind() == "expression_statement"
            && let Some(call) = s.named_child(0).and_then(Call::of)
        {
            match (call.name(text), call.args().as_slice()) {
                ("InitBuffer", [_, num, len]) => {
                    if let (Some(n), Some(l)) = (env.num(*num), env.num(*len))
                        && let Some(t) = Term::bin('*', n, l)
                    {
                        ub_terms.push(t);
                        ub_lines.push(cst::line_of(text, s.start_byte()));
                    }
                    continue;
                }
                ("InitBuffer", [_, len]) => {
                    if let Some(l) = env.num(*len) {
                        ub_terms.push(l);
                        ub_lines.push(cst::line_of(text, s.start_byte()));
                    }
                    continue;
                }
                ("DataCopy", _) => copies_in_init.push(s),
                _ => {}
            }
        }
        // Divisions in a statement that stores into an integer.
        let stored_int = match s.kind() {
            "declaration" => s
                .child_by_field_name("type")
                .is_some_and(|t| is_int_type(cst::text_of(t, text))),
            "expression_statement" => s
                .named_child(0)
                .filter(|e| e.kind() == "assignment_expression")
                .and_then(|e| e.child_by_field_name("left"))
                .and_then(|l| env.target(l))
                .is_some_and(|(n, member)| {
                    if member {
                        member_int.contains(&n)
                    } else {
                        env.locals.contains_key(&n)
                    }
                }),
            _ => false,
        };
        if stored_int && !tail_handling {
            for b in cst::nodes_of_kind(s, "binary_expression") {
                let Some(o) = b.child_by_field_name("operator") else {
                    continue;
                };
                if cst::text_of(o, text) != "/" {
                    continue;
                }
                let (Some(l), Some(r)) = (
                    b.child_by_field_name("left"),
                    b.child_by_field_name("right"),
                ) else {
                    continue;
                };
                let mut inner = l;
                while matches!(inner.kind(), "parenthesized_expression" | "cast_expression") {
                    inner = match inner.kind() {
                        "cast_expression" => inner.child_by_field_name("value").unwrap_or(inner),
                        _ => inner.named_child(0).unwrap_or(inner),
                    };
                    if inner.kind() == "parenthesized_expression" && inner.named_child_count() != 1
                    {
                        break;
                    }
                }
                let additive = inner.kind() == "binary_expression"
                    && inner
                        .child_by_field_name("operator")
                        .is_some_and(|o| matches!(cst::text_of(o, text), "+" | "-"));
                if additive {
                    continue;
                }
                if let (Some(a), Some(d)) = (env.num(l), env.num(r))
                    && (a.has_tunable() || d.has_tunable())
                {
                    divisions.push((a, d, cst::line_of(text, b.start_byte())));
                }
            }
        }
        step(&mut env, s, None);
    }
    // The members as Init leaves them; those stored elsewhere are unknown.
    env.locals.clear();
    env.poisoned.extend(elsewhere.iter().cloned());

    // (a) UB capacity.
    if !resets && !ub_terms.is_empty() {
        // Equal buffers are written once with their count: `3 * buffer_num * tile_length * 2`.
        let mut grouped: Vec<(Term, i64)> = vec![];
        for t in ub_terms {
            match grouped.iter_mut().find(|(g, _)| *g == t) {
                Some((_, k)) => *k += 1,
                None => grouped.push((t, 1)),
            }
        }
        let sum = grouped
            .into_iter()
            .filter_map(|(t, k)| Term::bin('*', Term::Int(k), t))
            .reduce(|a, b| Term::bin('+', a, b).unwrap_or(Term::Int(i64::MAX)));
        if let Some(sum) = sum
            && sum.has_tunable()
            && !matches!(sum, Term::Int(_))
        {
            let lines = match (ub_lines.first(), ub_lines.last()) {
                (Some(a), Some(b)) if a != b => format!("{a}-{b}"),
                (Some(a), _) => a.to_string(),
                _ => String::new(),
            };
            let mut origin = format!("{file}:{lines}");
            if ub_lines.len() < all_buffers {
                origin.push_str(&format!(
                    "; {} of {} buffers followed, so a lower bound",
                    ub_lines.len(),
                    all_buffers
                ));
            }
            out.push((
                Kind::UbCapacity,
                format!("{} <= ub_bytes", sum.render()),
                origin,
            ));
        }
    }

    // (b) 32 B alignment of DataCopy lengths, read with the members Init leaves.
    for call in cst::calls_named(root, text, "DataCopy") {
        let args = call.args();
        let [dst, src, len] = args.as_slice() else {
            continue;
        };
        if copies_in_init
            .iter()
            .any(|s| s.byte_range().contains(&call.node.start_byte()))
        {
            // A copy in Init itself would need Init's locals at that point; not followed.
            continue;
        }
        let Some((func, _)) = cst::enclosing_function(call.node, text) else {
            continue;
        };
        if func == *init {
            continue;
        }
        // Locals and parameters of the enclosing function shadow members.
        let mut shadow = BTreeSet::new();
        for p in cst::nodes_of_kind(func, "parameter_declaration") {
            if let Some(n) = p
                .child_by_field_name("declarator")
                .and_then(declarator_name)
            {
                shadow.insert(cst::text_of(n, text).to_string());
            }
        }
        stores_in(func, text, &mut shadow);
        let mut local_env = Env {
            op,
            text,
            file,
            binds,
            host: Some(host),
            consts: env.consts.clone(),
            locals: HashMap::new(),
            members: env.members.clone(),
            poisoned: env.poisoned.clone(),
        };
        local_env.poisoned.extend(shadow);
        let Some(n) = local_env.num(*len) else {
            continue;
        };
        if !n.has_tunable() {
            continue;
        }
        let elem = |e: Node| -> Option<i64> {
            let mut e = e;
            if e.kind() == "subscript_expression" {
                e = e.child_by_field_name("argument")?;
            }
            if e.kind() == "call_expression" {
                // `buf.Get<float>()`
                let c = Call::of(e)?;
                return type_size(c.template_args(text)?, op);
            }
            if e.kind() == "field_expression" {
                e = e.child_by_field_name("field")?;
            }
            let types = tensor_types.get(cst::text_of(e, text))?;
            let sizes: BTreeSet<i64> = types
                .iter()
                .map(|t| type_size(t, op))
                .collect::<Option<_>>()?;
            (sizes.len() == 1).then(|| *sizes.first().unwrap())
        };
        let sizes: BTreeSet<i64> = [elem(*dst), elem(*src)].into_iter().flatten().collect();
        let [size] = sizes.into_iter().collect::<Vec<_>>()[..] else {
            continue;
        };
        let Some(bytes) = Term::bin('*', n, Term::Int(size)) else {
            continue;
        };
        out.push((
            Kind::CopyAlignment,
            modulo_zero(bytes, Term::Int(32)),
            format!("{file}:{}", cst::line_of(text, call.node.start_byte())),
        ));
    }

    // (c) divisibility.
    for (a, d, line) in divisions {
        out.push((
            Kind::Divisibility,
            modulo_zero(a, d),
            format!("{file}:{line}, no remainder handled"),
        ));
    }
    out
}

mod cube;

#[cfg(test)]
mod tests;
