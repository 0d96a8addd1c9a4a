// What an operator's own tiling unit tests say about inputs it takes: the cases of
// `gert::TilingContextPara` (the op-host test harness of hicann's ops-math, ops-cv and ops-transformer)
// and of `gert::TilingContextFaker` (ops-nn's: `StorageShape`s, `InputShapes`, `NodeInputTd`,
// `NodeAttrs`) that expect success, with their input shapes and dtypes, output dtypes and attrs. A developer's test is
// the best description of a valid call that an op folder holds; init takes one when its own default
// shape is refused.
//
// Owns: finding those cases under a project's `tests/` and reading them (a brace-matching reader, not
// a C++ parser: a case it cannot read whole is skipped). Must not know the manifest's rendering, the
// tiling run or which case init keeps.

use crate::manifest::DType;
use std::path::Path;

/// One tensor of a case: its origin shape and dtype (None when the test names a dtype the manifest does
/// not know).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CaseTensor {
    pub shape: Vec<u64>,
    pub dtype: Option<DType>,
}

/// Where a case comes from: the op's tiling unit tests, or its aclnn example (`examples.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CaseKind {
    TilingTest,
    Example,
}

impl CaseKind {
    /// How a manifest comment names it: "the op's tiling test `x`", "the op's example `x`".
    pub fn label(self) -> &'static str {
        match self {
            CaseKind::TilingTest => "tiling test",
            CaseKind::Example => "example",
        }
    }
}

/// One case of a valid call: a tiling test that expects the op's tiling function to succeed, or the
/// op's example.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TilingCase {
    pub kind: CaseKind,
    /// The op type the case runs (`TilingContextPara`'s first argument).
    pub op_type: String,
    /// Where: the file relative to the project root, the line of the case, the test's name.
    pub file: String,
    pub line: usize,
    pub test: String,
    pub inputs: Vec<CaseTensor>,
    pub outputs: Vec<CaseTensor>,
    /// Attr name -> the value as a manifest writes it (`0`, `1.5`, `true`, `"x"`, `[1, 2]`).
    pub attrs: Vec<(String, String)>,
    /// Input index -> the data a Faker test gives it (`SetConstInput(0, DT_INT32, shape_data, 5, ...)`
    /// over `int shape_data[5] = {1, 16, 8, 8, 8};`: a value-dependent shape operand), as a manifest's
    /// `values` list.
    pub values: Vec<(usize, String)>,
    /// Indices of optional inputs the case leaves out (an example passing `nullptr`): written
    /// `absent = true`; their entry in `inputs` is a placeholder.
    pub absent: Vec<usize>,
    /// Input index -> how its data is drawn, carried from the op's example to this case's shapes
    /// (`examples::carry`) where the case gives no data.
    pub carried: Vec<(usize, super::examples::Carried)>,
    /// The case's rows as read and as grown (`examples::grown`), when init grew them.
    pub grown: Option<(u64, u64)>,
    /// The main input's last axis as read and as widened (`examples::grown` along `Width`).
    pub widened: Option<(u64, u64)>,
    /// An example's call as its kernel gets it, its aclnn layer's layout changes applied
    /// (`examples::read_as`): tried right after the example's own.
    pub kernel_view: bool,
}

impl TilingCase {
    /// Elements of the largest input.
    pub fn largest_input(&self) -> u64 {
        self.inputs
            .iter()
            .map(|t| t.shape.iter().product::<u64>())
            .max()
            .unwrap_or(0)
    }

    /// Places a case that gives fewer inputs than the OpDef declares, when every input it leaves out
    /// comes after those it gives and is optional: the harness fills a context's inputs in IR order, so
    /// such a case calls the op without them (ops-transformer's moe_token_permute_with_routing_map tests
    /// `tokens` and `routing_map` without the optional `probs`). They are marked absent; a case that
    /// leaves out a required input, or any input before the last it gives, stays as read.
    pub fn place_trailing_optional(&mut self, def: &crate::project::opdef::OpDef) {
        let given = self.inputs.len();
        if given == 0
            || given >= def.inputs.len()
            || def.inputs[given..]
                .iter()
                .any(|p| p.param_type != crate::project::opdef::ParamType::Optional)
        {
            return;
        }
        for i in given..def.inputs.len() {
            self.inputs.push(CaseTensor {
                shape: vec![],
                dtype: None,
            });
            self.absent.push(i);
        }
    }

    /// The shape of the main input: the first present one with a shape.
    pub fn main_shape(&self) -> Option<&[u64]> {
        self.inputs
            .iter()
            .enumerate()
            .find(|(i, t)| !self.absent.contains(i) && !t.shape.is_empty())
            .map(|(_, t)| t.shape.as_slice())
    }
}

/// Every readable success case for `op_type` in the C++ files under `root/tests` (sorted by path, then
/// by line). A Faker case whose test does not name its op type is taken as the op's.
pub(super) fn find(root: &Path, op_type: &str) -> Vec<TilingCase> {
    let tests = root.join("tests");
    if !tests.is_dir() {
        return vec![];
    }
    let mut files = vec![];
    crate::project::registered::files_deep(&tests, &["cpp"], &mut files);
    let mut cases = vec![];
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if !text.contains("TilingContextPara") && !text.contains("TilingContextFaker") {
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        cases.extend(
            parse(&text, &rel)
                .into_iter()
                .chain(parse_faker(&text, &rel))
                .filter(|c| c.op_type == op_type || c.op_type.is_empty()),
        );
    }
    cases
}

/// The success cases of one test file's text.
pub(super) fn parse(text: &str, file: &str) -> Vec<TilingCase> {
    let text = &without_comments(text);
    let mut cases = vec![];
    let mut from = 0;
    while let Some(at) = text[from..].find("TilingContextPara") {
        let start = from + at;
        from = start + "TilingContextPara".len();
        // `TilingContextPara name(` : a declaration with arguments (not a parameter type).
        let rest = &text[from..];
        let name_len = rest
            .trim_start()
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(0);
        let after_name = rest.trim_start()[name_len..].trim_start();
        if name_len == 0 || !after_name.starts_with('(') {
            continue;
        }
        let open = text.len() - after_name.len();
        let Some(close) = matching(text, open) else {
            continue;
        };
        let args = split_top(&text[open + 1..close]);
        from = close;
        // The case's test: the nearest TEST / TEST_F before it; its verdict: what follows, up to the
        // next test.
        let before = &text[..start];
        let test_at = before.rfind("TEST_F(").or_else(|| before.rfind("TEST("));
        let test = test_at
            .and_then(|i| {
                let inner = &text[i..];
                let o = inner.find('(')?;
                let c = inner.find(')')?;
                inner[o + 1..c]
                    .split(',')
                    .nth(1)
                    .map(|s| s.trim().to_string())
            })
            .unwrap_or_default();
        let next_test = [text[close..].find("TEST_F("), text[close..].find("TEST(")]
            .into_iter()
            .flatten()
            .min()
            .map_or(text.len(), |i| close + i);
        let verdict = &text[close..next_test];
        if !expects_success(verdict) {
            continue;
        }
        let body = &text[test_at.unwrap_or(0)..start];
        if let Some(case) = read_case(&args, file, line_of(text, start), test, body) {
            cases.push(case);
        }
    }
    cases
}

/// Whether what follows a `TilingContextPara` case, up to the next test, expects the tiling to succeed:
/// `ExecuteTestCase(para, ge::GRAPH_SUCCESS, ...)`, or `ExecuteTiling(para, info)` (ops-cv's and
/// ops-transformer's other harness call, which returns whether the tiling succeeded) unless its result
/// is expected false (`EXPECT_FALSE(ExecuteTiling(...))`, `EXPECT_EQ(ret, false)`).
fn expects_success(verdict: &str) -> bool {
    let expects_false = ["EXPECT_FALSE(", "ASSERT_FALSE("]
        .iter()
        .any(|m| verdict.contains(m))
        || ["EXPECT_EQ(", "ASSERT_EQ("].iter().any(|m| {
            verdict.match_indices(m).any(|(at, _)| {
                let open = at + m.len() - 1;
                matching(verdict, open).is_some_and(|close| {
                    split_top(&verdict[open + 1..close])
                        .iter()
                        .any(|a| a.trim() == "false")
                })
            })
        });
    let succeeds = verdict.contains("GRAPH_SUCCESS") || verdict.contains("ExecuteTiling(");
    succeeds && !expects_false && !verdict.contains("GRAPH_FAILED")
}

/// The success cases of the `TilingContextFaker` form: in each TEST body, the first Faker chain's
/// `.InputShapes({&a, ..})` and `.OutputShapes(..)` over `gert::StorageShape a = {{..}, {..}};`
/// declarations of the body, `.NodeInputTd(i, ge::DT_X, ..)` / `.NodeOutputTd` dtypes and
/// `.NodeAttrs({..})`; the op type from `op_type("X")`, `GetOpImpl("X")` or `OP_NAME = "X"` in the body
/// (empty when none).
pub(super) fn parse_faker(text: &str, file: &str) -> Vec<TilingCase> {
    let text = &without_comments(text);
    let mut starts: Vec<usize> = ["TEST_F(", "TEST("]
        .iter()
        .flat_map(|p| text.match_indices(p).map(|(i, _)| i))
        .filter(|&i| i == 0 || !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let mut cases = vec![];
    for (n, &start) in starts.iter().enumerate() {
        let end = starts.get(n + 1).copied().unwrap_or(text.len());
        let body = &text[start..end];
        let Some(faker) = body.find("TilingContextFaker") else {
            continue;
        };
        let after = &body[faker..];
        if !after.contains("GRAPH_SUCCESS") || after.contains("GRAPH_FAILED") {
            continue;
        }
        if let Some(case) = read_faker(body, faker, file, line_of(text, start + faker)) {
            cases.push(case);
        }
    }
    cases
}

fn read_faker(body: &str, faker: usize, file: &str, line: usize) -> Option<TilingCase> {
    let chain = &body[faker..];
    // the chain ends at its statement's `;` (outside brackets)
    let chain = &chain[..statement_end(chain)?];
    let call = |name: &str| -> Option<&str> {
        let at = chain.find(&format!(".{name}("))? + name.len() + 1;
        let close = matching(chain, at)?;
        Some(&chain[at + 1..close])
    };
    let shapes = |list: &str| -> Option<Vec<Vec<u64>>> {
        split_top(braced(list)?)
            .iter()
            .map(|r| storage_shape(body, r.trim().trim_start_matches('&').trim()))
            .collect()
    };
    let in_shapes = shapes(call("InputShapes")?)?;
    let out_shapes = call("OutputShapes").and_then(shapes).unwrap_or_default();
    let dtype_of = |kind: &str, i: usize| -> Option<DType> {
        let mut from = 0;
        while let Some(at) = chain[from..].find(&format!(".{kind}(")) {
            let open = from + at + kind.len() + 1;
            let close = matching(chain, open)?;
            let args = split_top(&chain[open + 1..close]);
            from = close;
            if args.first().and_then(|a| a.trim().parse::<usize>().ok()) == Some(i) {
                return args
                    .get(1)
                    .map(|d| d.trim().trim_start_matches("ge::"))
                    .and_then(DType::from_ge_name);
            }
        }
        None
    };
    let tensors = |shapes: Vec<Vec<u64>>, kind: &str| -> Vec<CaseTensor> {
        shapes
            .into_iter()
            .enumerate()
            .map(|(i, shape)| CaseTensor {
                shape,
                dtype: dtype_of(kind, i),
            })
            .collect()
    };
    let attrs = match call("NodeAttrs") {
        Some(a) => attrs(a, body)?,
        None => vec![],
    };
    let test = body
        .find('(')
        .and_then(|o| body[o..].find(')').map(|c| &body[o + 1..o + c]))
        .and_then(|a| a.split(',').nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    Some(TilingCase {
        kind: CaseKind::TilingTest,
        op_type: op_type_named(body).unwrap_or_default(),
        file: file.to_string(),
        line,
        test,
        inputs: tensors(in_shapes, "NodeInputTd"),
        outputs: tensors(out_shapes, "NodeOutputTd"),
        attrs,
        values: const_inputs(body),
        absent: vec![],
        carried: vec![],
        grown: None,
        widened: None,
        kernel_view: false,
    })
}

/// `SetConstInput(I, DTYPE, NAME, ...)` calls of a test (ops-nn's helper that gives a value-dependent
/// input its data): input I's integer data, from the array or vector `NAME` the test declares. A call
/// whose data cannot be read is left out (the input then keeps init's guess).
fn const_inputs(body: &str) -> Vec<(usize, String)> {
    let mut out = vec![];
    for (at, _) in body.match_indices("SetConstInput(") {
        let open = at + "SetConstInput".len();
        let Some(close) = matching(body, open) else {
            continue;
        };
        let args = split_top(&body[open + 1..close]);
        let (Some(index), Some(name)) = (
            args.first().and_then(|a| a.trim().parse::<usize>().ok()),
            args.get(2).map(|a| a.trim()),
        ) else {
            continue;
        };
        if let Some(list) = integer_list(body, name) {
            out.retain(|(i, _)| *i != index);
            out.push((index, list));
        }
    }
    out
}

/// The integers of the list `body` declares as `name` (`std::vector<int64_t> name = {0, 1};`, `int
/// name[2] = {0, 1};`), as a manifest's `values` list; None when it is not a non-empty list of integer
/// literals.
fn integer_list(body: &str, name: &str) -> Option<String> {
    let list = declared(body, name)
        .map(|d| d.trim_start_matches('(').trim_end_matches(')'))
        .and_then(braced)
        .and_then(|items| {
            split_top(items)
                .iter()
                .map(|v| v.trim().parse::<i64>().ok().map(|x| x.to_string()))
                .collect::<Option<Vec<_>>>()
        })?;
    (!list.is_empty()).then(|| format!("[{}]", list.join(", ")))
}

/// The data a `TilingContextPara` case gives its constant inputs: a tensor written `{shapes, dtype,
/// format, true, name.data()}` (ops-math's pad_v3_grad_replication passes its paddings so), by input
/// index, as `values` lists.
fn para_const_values(list: &str, body: &str) -> Vec<(usize, String)> {
    let Some(items) = braced(list) else {
        return vec![];
    };
    let mut out = vec![];
    for (i, t) in split_top(items).iter().enumerate() {
        let Some(parts) = braced(t).map(split_top) else {
            continue;
        };
        if parts.get(3).map(|p| p.trim()) != Some("true") {
            continue;
        }
        let Some(data) = parts.get(4).map(|p| p.trim()) else {
            continue;
        };
        let name = data.strip_suffix(".data()").unwrap_or(data).trim();
        if let Some(list) = integer_list(body, name) {
            out.push((i, list));
        }
    }
    out
}

/// The origin shape of the `gert::StorageShape name = {{..}, {..}};` (or `name({..}, {..})`) that
/// `body` declares.
fn storage_shape(body: &str, name: &str) -> Option<Vec<u64>> {
    let decl = declared(body, name)?;
    let inner = if decl.starts_with('(') {
        &decl[1..decl.len() - 1]
    } else {
        braced(decl)?
    };
    origin_shape(inner, body)
}

/// The origin shape of a `{d..}, {d..}` storage/origin pair (the only one when there is one): integers,
/// or products of integers and declared names (`4096 * 3`, `tokenNum * topk`).
fn origin_shape(pair: &str, body: &str) -> Option<Vec<u64>> {
    let pair = split_top(pair);
    let origin = pair.get(1).or(pair.first())?;
    dims(braced(origin)?, body)
}

/// The dims of a brace list's contents (`4096 * 3, tokenNum * topk`): integers, or products of integers
/// and names `body` declares with one.
pub(super) fn dims(list: &str, body: &str) -> Option<Vec<u64>> {
    split_top(list)
        .iter()
        .map(|d| integer(d, body, 0).and_then(|v| u64::try_from(v).ok()))
        .collect()
}

/// The value of an integer expression as tests and examples write sizes: literals (`4096`, `16L`),
/// names declared in `body` (followed to their initialiser, a few levels deep), an element of a
/// declared list (`inputShape[0]`), `+ - * / %` and
/// parentheses (an example's `shapeH = shapeD * (shapeNq + shapeNkv + shapeNkv)`). None for anything
/// else or an overflow.
pub(super) fn integer(expr: &str, body: &str, depth: u32) -> Option<i64> {
    struct P<'a> {
        s: &'a [u8],
        i: usize,
        body: &'a str,
        depth: u32,
    }
    impl P<'_> {
        fn ws(&mut self) {
            while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
                self.i += 1;
            }
        }
        fn expr(&mut self) -> Option<i64> {
            let mut v = self.term()?;
            loop {
                self.ws();
                match self.s.get(self.i) {
                    Some(b'+') => {
                        self.i += 1;
                        v = v.checked_add(self.term()?)?;
                    }
                    Some(b'-') => {
                        self.i += 1;
                        v = v.checked_sub(self.term()?)?;
                    }
                    _ => return Some(v),
                }
            }
        }
        fn term(&mut self) -> Option<i64> {
            let mut v = self.atom()?;
            loop {
                self.ws();
                match self.s.get(self.i) {
                    Some(b'*') => {
                        self.i += 1;
                        v = v.checked_mul(self.atom()?)?;
                    }
                    Some(b'/') => {
                        self.i += 1;
                        v = v.checked_div(self.atom()?)?;
                    }
                    Some(b'%') => {
                        self.i += 1;
                        v = v.checked_rem(self.atom()?)?;
                    }
                    _ => return Some(v),
                }
            }
        }
        fn atom(&mut self) -> Option<i64> {
            self.ws();
            match *self.s.get(self.i)? {
                b'(' => {
                    self.i += 1;
                    let v = self.expr()?;
                    self.ws();
                    (self.s.get(self.i) == Some(&b')')).then(|| self.i += 1)?;
                    Some(v)
                }
                b'-' => {
                    self.i += 1;
                    self.atom()?.checked_neg()
                }
                c if c.is_ascii_digit() => {
                    let start = self.i;
                    while self.s.get(self.i).is_some_and(|c| c.is_ascii_digit()) {
                        self.i += 1;
                    }
                    let v = std::str::from_utf8(&self.s[start..self.i])
                        .ok()?
                        .parse()
                        .ok();
                    while self.s.get(self.i).is_some_and(|c| b"uUlL".contains(c)) {
                        self.i += 1;
                    }
                    v
                }
                c if c.is_ascii_alphabetic() || c == b'_' => {
                    let start = self.i;
                    while self
                        .s
                        .get(self.i)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    {
                        self.i += 1;
                    }
                    let name = std::str::from_utf8(&self.s[start..self.i]).ok()?;
                    if self.depth >= 8 {
                        return None;
                    }
                    let decl = declared(self.body, name)?;
                    // an element of a declared list: `inputShape[0]` of `inputShape = {4, 128}`
                    self.ws();
                    if self.s.get(self.i) == Some(&b'[') {
                        self.i += 1;
                        let k = usize::try_from(self.expr()?).ok()?;
                        self.ws();
                        (self.s.get(self.i) == Some(&b']')).then(|| self.i += 1)?;
                        let items = braced(decl.trim_start_matches('(').trim_end_matches(')'))?;
                        return integer(split_top(items).get(k)?, self.body, self.depth + 1);
                    }
                    integer(decl, self.body, self.depth + 1)
                }
                _ => None,
            }
        }
    }
    let mut p = P {
        s: expr.trim().as_bytes(),
        i: 0,
        body,
        depth,
    };
    let v = p.expr()?;
    p.ws();
    (p.i == p.s.len()).then_some(v)
}

/// The op type a test body names: `op_type("X")`, `GetOpImpl("X")`, `OP_NAME = "X"` or `op_type = "X"`.
fn op_type_named(body: &str) -> Option<String> {
    for key in [
        "op_type(\"",
        "GetOpImpl(\"",
        "OP_NAME = \"",
        "op_type = \"",
        "opType(\"",
    ] {
        if let Some(at) = body.find(key) {
            let rest = &body[at + key.len()..];
            return rest.find('"').map(|e| rest[..e].to_string());
        }
    }
    None
}

fn read_case(
    args: &[&str],
    file: &str,
    line: usize,
    test: String,
    body: &str,
) -> Option<TilingCase> {
    let op_type = args.first()?.trim().trim_matches('"').to_string();
    let inputs = tensors(args.get(1)?, body)?;
    // outputs only give dtypes and a fallback shape: a case whose outputs cannot be read keeps its inputs
    let outputs = tensors(args.get(2)?, body).unwrap_or_default();
    let attrs = match args.get(3).map(|a| a.trim()) {
        Some(a) if a.starts_with('{') => attrs(a, body)?,
        _ => vec![],
    };
    Some(TilingCase {
        kind: CaseKind::TilingTest,
        op_type,
        file: file.to_string(),
        line,
        test,
        inputs,
        outputs,
        attrs,
        values: para_const_values(args.get(1)?, body),
        absent: vec![],
        carried: vec![],
        grown: None,
        widened: None,
        kernel_view: false,
    })
}

/// `{ {{{d..}, {d..}}, ge::DT_X, ge::FORMAT_Y}, ... }`: each tensor's origin shape (the second of the
/// pair; the only one when there is one) and dtype. None when any shape is not all integers.
fn tensors(list: &str, body: &str) -> Option<Vec<CaseTensor>> {
    let mut out = vec![];
    for t in split_top(braced(list)?) {
        let parts = split_top(braced(t)?);
        let dims = origin_shape(braced(parts.first()?)?, body)?;
        let dtype = parts
            .get(1)
            .map(|d| d.trim().trim_start_matches("ge::"))
            .and_then(DType::from_ge_name);
        out.push(CaseTensor { shape: dims, dtype });
    }
    Some(out)
}

/// `{ {"name", ...AnyValue::CreateFrom<T>(V)}, ... }` (or each attr as `TilingContextPara::OpAttr("name",
/// ...)`, as ops-math's Cross test writes them): each attr's name and value as a manifest writes it; V
/// may name a variable `body` (the test's text before the case) declares with a literal
/// (`std::vector<int64_t> range({1, 5});`, `int64_t k = 4;`). None when a value cannot be read.
fn attrs(list: &str, body: &str) -> Option<Vec<(String, String)>> {
    let mut out = vec![];
    for a in split_top(braced(list)?) {
        let parts = split_top(braced(a).or_else(|| op_attr_call(a))?);
        let name = parts.first()?.trim().trim_matches('"').to_string();
        let value = parts.get(1)?.trim();
        let lt = value.find("CreateFrom<")? + "CreateFrom<".len();
        let gt = value[lt..].find(">(").map(|i| lt + i)?;
        let ty = &value[lt..gt];
        let close = matching(value, gt + 1)?;
        let v = value[gt + 2..close].trim();
        let v = if v.chars().all(|c| c.is_alphanumeric() || c == '_')
            && v.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && !matches!(v, "true" | "false")
        {
            declared(body, v)?
        } else {
            v
        };
        out.push((name, attr_value(ty, v)?));
    }
    Some(out)
}

/// The arguments of an `OpAttr(...)` call (`gert::TilingContextPara::OpAttr("dim", ...)`).
fn op_attr_call(a: &str) -> Option<&str> {
    let a = a.trim();
    let open = a.find("OpAttr(")? + "OpAttr".len();
    let close = matching(a, open)?;
    (close == a.len() - 1).then(|| &a[open + 1..close])
}

/// A C++ attr literal as TOML: integers, floats (always with a point), bools, strings and integer or
/// float lists.
fn attr_value(ty: &str, v: &str) -> Option<String> {
    let number = |s: &str, float: bool| -> Option<String> {
        let s = s.trim().trim_end_matches(['f', 'F', 'L', 'l', 'U', 'u']);
        if float {
            let x: f64 = s.parse().ok()?;
            Some(if x.fract() == 0.0 && x.abs() < 1e15 {
                format!("{x:.1}")
            } else {
                format!("{x}")
            })
        } else {
            s.parse::<i64>().ok().map(|x| x.to_string())
        }
    };
    let is_float = |t: &str| t.contains("float") || t.contains("double");
    if ty.contains("vector") {
        let inner = v.trim_start_matches("std::vector<").trim();
        let items = inner
            .find('{')
            .and_then(|o| matching(inner, o).map(|c| &inner[o + 1..c]))?;
        let float = is_float(ty);
        let list = split_top(items)
            .iter()
            .filter(|s| !s.trim().is_empty())
            .map(|s| number(s, float))
            .collect::<Option<Vec<_>>>()?;
        return Some(format!("[{}]", list.join(", ")));
    }
    if ty.contains("string") {
        let s = v.trim_start_matches("std::string(").trim_end_matches(')');
        let s = s.trim().strip_prefix('"')?.strip_suffix('"')?;
        return Some(format!("{s:?}"));
    }
    if ty == "bool" {
        return matches!(v, "true" | "false").then(|| v.to_string());
    }
    number(v, is_float(ty))
}

/// The literal the last declaration of `name` in `body` gives it: `name({..})`, `name{..}`,
/// `name = {..}` or `name = literal;`. None when the name is changed in place after it (`name += ..`,
/// `++name`): ops-transformer's nsa_compress example sums its output rows into `outputNum = 0` in a
/// loop, and 0 rows is no shape. A member `case.field` nowhere set as such is what the first
/// `<object>.field = ..` gives: examples that build a list of test-case structs and call the op with
/// `testCase.gradOutputShape` (ops-cv's roi_align_grad) set their base case first.
pub(super) fn declared<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    declared_as_named(body, name).or_else(|| {
        let (object, field) = name.rsplit_once('.')?;
        if object.is_empty() || !field.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        first_assigned(body, &format!(".{field}"))
    })
}

/// The right-hand side of the first `needle = ..` in `body` (a braced or parenthesised group, else
/// up to the `;`), `needle` a whole name (or a `.field`, which starts a name's member).
pub(super) fn first_assigned<'a>(body: &'a str, needle: &str) -> Option<&'a str> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    body.match_indices(needle).find_map(|(at, _)| {
        let end = at + needle.len();
        if body[end..].starts_with(ident)
            || (!needle.starts_with('.') && body[..at].ends_with(ident))
        {
            return None;
        }
        let rhs = body[end..].trim_start().strip_prefix('=')?;
        if rhs.starts_with('=') {
            return None;
        }
        let rhs = rhs.trim_start();
        let start = body.len() - rhs.len();
        if rhs.starts_with(['(', '{']) {
            Some(&body[start..=matching(body, start)?])
        } else {
            Some(rhs[..rhs.find(';')?].trim())
        }
    })
}

fn declared_as_named<'a>(body: &'a str, name: &str) -> Option<&'a str> {
    const CHANGED: [&str; 12] = [
        "+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>=", "++", "--",
    ];
    let mut found = None;
    let mut from = 0;
    while let Some(at) = body[from..].find(name) {
        let i = from + at;
        from = i + name.len();
        let whole = !body[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_')
            && !body[from..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        if !whole {
            continue;
        }
        let mut rest = body[from..].trim_start();
        let before = body[..i].trim_end();
        if CHANGED.iter().any(|op| rest.starts_with(op))
            || before.ends_with("++")
            || before.ends_with("--")
        {
            found = None;
            continue;
        }
        // an array's extent: `int shape_data[5] = {...}` (after a type: `data[0] = 32;` sets an
        // element of a vector declared before, nsa_compress_with_cache's example)
        if rest.starts_with('[') {
            if !body[..i]
                .trim_end()
                .ends_with(|c: char| c.is_alphanumeric() || matches!(c, '_' | '*' | '&' | '>'))
            {
                continue;
            }
            let open = body.len() - rest.len();
            let Some(close) = matching(body, open) else {
                continue;
            };
            rest = body[close + 1..].trim_start();
        }
        let (assigned, rest) = match rest.strip_prefix('=') {
            Some(r) if !r.starts_with('=') => (true, r.trim_start()),
            _ => (false, rest),
        };
        let start = body.len() - rest.len();
        if rest.starts_with(['(', '{']) {
            let close = matching(body, start)?;
            found = Some(&body[start..=close]);
        } else if assigned && let Some(end) = rest.find(';') {
            found = Some(rest[..end].trim());
        }
    }
    found
}

/// The text inside the outer braces of `s` (trimmed), or None when `s` is not one braced group.
pub(super) fn braced(s: &str) -> Option<&str> {
    let s = s.trim();
    (s.starts_with('{') && matching(s, 0) == Some(s.len() - 1)).then(|| &s[1..s.len() - 1])
}

/// Walks `s` from `from`, calling `at(i, byte, depth)` for every byte outside string literals with the
/// bracket depth after it (`(`, `{`, `[` open one, `)`, `}`, `]` close one); the first Some it returns.
fn scan<T>(s: &str, from: usize, mut at: impl FnMut(usize, u8, i32) -> Option<T>) -> Option<T> {
    let b = s.as_bytes();
    let (mut depth, mut in_str, mut i) = (0i32, false, from);
    while i < b.len() {
        let c = b[i];
        if in_str {
            if c == b'\\' {
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
        } else {
            match c {
                b'"' => in_str = true,
                b'(' | b'{' | b'[' => depth += 1,
                b')' | b'}' | b']' => depth -= 1,
                _ => {}
            }
            if let Some(t) = at(i, c, depth) {
                return Some(t);
            }
        }
        i += 1;
    }
    None
}

/// The index of the bracket closing the one at `open` (`(`, `{` or `[`), skipping string literals.
pub(super) fn matching(s: &str, open: usize) -> Option<usize> {
    scan(s, open, |i, c, depth| {
        (matches!(c, b')' | b'}' | b']') && depth == 0).then_some(i)
    })
}

/// The offset of the `;` ending the statement that starts `s` (outside brackets and strings).
fn statement_end(s: &str) -> Option<usize> {
    scan(s, 0, |i, c, depth| (c == b';' && depth == 0).then_some(i))
}

/// `s` split at the commas outside brackets and strings (empty items dropped).
pub(super) fn split_top(s: &str) -> Vec<&str> {
    let mut cuts = vec![];
    scan(s, 0, |i, c, depth| {
        if c == b',' && depth == 0 {
            cuts.push(i);
        }
        None::<()>
    });
    let mut out = vec![];
    let mut start = 0;
    for cut in cuts.into_iter().chain([s.len()]) {
        out.push(&s[start..cut]);
        start = cut + 1;
    }
    out.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// `text` with its `//` and `/* */` comments (outside string literals) blanked, newlines kept, so that
/// offsets and line numbers stay those of the file.
pub(super) fn without_comments(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1]);
                i += 1;
            } else if c == b'"' {
                in_str = false;
            }
            i += 1;
        } else if c == b'"' {
            in_str = true;
            out.push(c);
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            while i < end {
                out.push(if b[i] == b'\n' { b'\n' } else { b' ' });
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    // only ASCII bytes were replaced, by ASCII: still UTF-8 (a comment's multi-byte text became spaces)
    String::from_utf8(out).unwrap_or_default()
}

pub(super) fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    // Written for this test in the harness's form (not copied from a repository).
    const FILE: &str = r#"
TEST_F(WidgetTiling, small_bf16) {
  optiling::WidgetCompileInfo compileInfo = {};
  gert::TilingContextPara tilingContextPara("Widget", // op_name
      {
        // input info, {shape}, then /* the origin shape */
        {{{64, 512}, {64, 512}}, ge::DT_BF16, ge::FORMAT_ND},
        {{{64}, {64}}, ge::DT_INT32, ge::FORMAT_ND}
      },
      {{{{64, 256 * 2}, {64, 256 * 2}}, ge::DT_BF16, ge::FORMAT_ND},},
      {{"mode", Ops::Cv::AnyValue::CreateFrom<int64_t>(2)},
       {"scale", Ops::Cv::AnyValue::CreateFrom<float>(0.5f)},
       {"keep", Ops::Cv::AnyValue::CreateFrom<bool>(true)},
       {"layout", Ops::Cv::AnyValue::CreateFrom<std::string>("BSH")},
       {"sizes", Ops::Cv::AnyValue::CreateFrom<std::vector<int64_t>>({1, 2, 3})}},
      &compileInfo);
  ExecuteTestCase(tilingContextPara, ge::GRAPH_SUCCESS, 1, "", {});
}

TEST_F(WidgetTiling, attr_from_a_variable) {
  std::vector<int64_t> range({1, 5});
  int64_t k = 4;
  gert::TilingContextPara tilingContextPara("Widget", {{{{8, 16}, {8, 16}}, ge::DT_FLOAT, ge::FORMAT_ND}},
      {{{{8, 16}, {8, 16}}, ge::DT_FLOAT, ge::FORMAT_ND}},
      {{"range", Ops::Cv::AnyValue::CreateFrom<std::vector<int64_t>>(range)},
       gert::TilingContextPara::OpAttr("k", Ops::Cv::AnyValue::CreateFrom<int64_t>(k))}, &compileInfo);
  ExecuteTestCase(tilingContextPara, ge::GRAPH_SUCCESS);
}

TEST_F(WidgetTiling, refused) {
  gert::TilingContextPara tilingContextPara("Widget", {{{{0}, {0}}, ge::DT_BF16, ge::FORMAT_ND}},
      {{{{0}, {0}}, ge::DT_BF16, ge::FORMAT_ND}}, &compileInfo);
  ExecuteTestCase(tilingContextPara, ge::GRAPH_FAILED);
}

TEST_F(WidgetTiling, executed) {
  gert::TilingContextPara tilingContextPara("Widget", {{{{4, 32}, {4, 32}}, ge::DT_FLOAT, ge::FORMAT_ND}},
      {{{{4, 32}, {4, 32}}, ge::DT_FLOAT, ge::FORMAT_ND}}, &compileInfo);
  TilingInfo tilingInfo;
  ExecuteTiling(tilingContextPara, tilingInfo);
  EXPECT_EQ(tilingInfo.workspaceSizes.size(), 1);
}

TEST_F(WidgetTiling, executed_and_refused) {
  gert::TilingContextPara tilingContextPara("Widget", {{{{5, 32}, {5, 32}}, ge::DT_FLOAT, ge::FORMAT_ND}},
      {{{{5, 32}, {5, 32}}, ge::DT_FLOAT, ge::FORMAT_ND}}, &compileInfo);
  TilingInfo tilingInfo;
  auto tilingRet = ExecuteTiling(tilingContextPara, tilingInfo);
  EXPECT_EQ(tilingRet, false);
}

TEST_F(WidgetTiling, named_dims) {
  int64_t rows = 96;
  gert::TilingContextPara tilingContextPara("Widget", {{{{rows, 512}, {rows, 512}}, ge::DT_BF16, ge::FORMAT_ND}},
      {{{{rows * 2, 512}, {rows * 2, 512}}, ge::DT_BF16, ge::FORMAT_ND}}, &compileInfo);
  ExecuteTestCase(tilingContextPara, ge::GRAPH_SUCCESS);
}
"#;

    // Written for this test in ops-nn's Faker form (not copied from a repository).
    const FAKER: &str = r#"
TEST_F(GadgetTiling, gadget_ok) {
    gert::StorageShape x_shape = {{2, 64, 1000}, {2, 64, 1000}};
    gert::StorageShape w_shape = {{1000}, {1000}};
    int shape_data[3] = {2, 64, 1000};
    SetConstInput(1, DT_INT32, shape_data, 3, const_tensors);
    gert::StorageShape y_shape = {{2, 64, 1000}, {2, 64, 1000}};
    std::string op_type("Gadget");
    auto holder = gert::TilingContextFaker()
                      .NodeIoNum(2, 1)
                      .InputShapes({&x_shape, &w_shape})
                      .OutputShapes({&y_shape})
                      .NodeInputTd(0, ge::DT_FLOAT16, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeInputTd(1, ge::DT_FLOAT, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeOutputTd(0, ge::DT_INT8, ge::FORMAT_ND, ge::FORMAT_ND)
                      .NodeAttrs({{"dst_type", Ops::NN::AnyValue::CreateFrom<int64_t>(2)}})
                      .ConstInput(const_tensors)
                      .Build();
    EXPECT_EQ(tiling_func(tiling_context), ge::GRAPH_SUCCESS);
}

TEST_F(GadgetTiling, gadget_bad) {
    gert::StorageShape x_shape = {{0}, {0}};
    auto holder = gert::TilingContextFaker().InputShapes({&x_shape}).Build();
    EXPECT_EQ(tiling_func(tiling_context), ge::GRAPH_FAILED);
}
"#;

    /// A case without the op's trailing optional inputs calls the op without them; one without a
    /// required input, or with an optional one missing before a given one, cannot be placed.
    #[test]
    fn places_a_case_without_its_trailing_optional_inputs() {
        use crate::project::opdef::{OpDef, ParamDef, ParamType};
        let param = |name: &str, param_type| ParamDef {
            name: name.to_string(),
            param_type,
            dtypes: vec![],
            formats: vec![],
            value_depend: false,
            init_value: false,
        };
        let def = |types: &[ParamType]| OpDef {
            op_type: "Widget".to_string(),
            inputs: types
                .iter()
                .enumerate()
                .map(|(i, t)| param(&format!("x{i}"), *t))
                .collect(),
            outputs: vec![param("y", ParamType::Required)],
            attrs: vec![],
            socs: vec![],
        };
        let (req, opt) = (ParamType::Required, ParamType::Optional);
        let case = || parse(FILE, "t.cpp").remove(0); // two inputs
        let mut c = case();
        c.place_trailing_optional(&def(&[req, req, opt, opt]));
        assert_eq!(c.inputs.len(), 4);
        assert_eq!(c.absent, vec![2, 3]);
        assert_eq!(c.main_shape(), Some(&[64u64, 512][..]));
        for types in [&[req, req, req][..], &[req, opt, req], &[req, req]] {
            let mut c = case();
            c.place_trailing_optional(&def(types));
            assert_eq!((c.inputs.len(), c.absent.len()), (2, 0), "{types:?}");
        }
    }

    #[test]
    fn reads_the_faker_form() {
        let cases = parse_faker(FAKER, "t.cpp");
        assert_eq!(cases.len(), 1, "{cases:?}");
        let c = &cases[0];
        assert_eq!(
            (c.op_type.as_str(), c.test.as_str()),
            ("Gadget", "gadget_ok")
        );
        let t = |shape: Vec<u64>, dtype| CaseTensor {
            shape,
            dtype: Some(dtype),
        };
        assert_eq!(
            c.inputs,
            vec![
                t(vec![2, 64, 1000], DType::Float16),
                t(vec![1000], DType::Float32)
            ]
        );
        assert_eq!(c.outputs, vec![t(vec![2, 64, 1000], DType::Int8)]);
        assert_eq!(c.attrs, vec![("dst_type".to_string(), "2".to_string())]);
        assert_eq!(c.values, vec![(1, "[2, 64, 1000]".to_string())]);
    }

    /// ops-math's pad_v3_grad_replication passes its paddings as a constant input; without them its
    /// tiling read random int64 paddings and asked for a workspace no machine has.
    #[test]
    fn reads_the_constant_data_of_a_para_case() {
        let text = r#"
TEST_F(PadTiling, pad_ok)
{
    std::vector<int64_t> constValue = {0, 0, 0, 0, 0, 1, 1, 1, 1, 1};
    gert::TilingContextPara tilingContextPara("Pad",
        {{{{1, 1, 30, 30}, {1, 1, 30, 30}}, ge::DT_FLOAT16, ge::FORMAT_ND},
         {{{10}, {10}}, ge::DT_INT64, ge::FORMAT_ND, true, constValue.data()}},
        {{{{1, 1, 28, 28}, {1, 1, 28, 28}}, ge::DT_FLOAT16, ge::FORMAT_ND}},
        &compileInfo);
    ExecuteTestCase(tilingContextPara, ge::GRAPH_SUCCESS, 2);
}
"#;
        let cases = parse(text, "tests/ut/op_host/test_pad_tiling.cpp");
        assert_eq!(cases.len(), 1, "{cases:?}");
        assert_eq!(
            cases[0].values,
            vec![(1, "[0, 0, 0, 0, 0, 1, 1, 1, 1, 1]".to_string())]
        );
        assert_eq!(cases[0].inputs[1].shape, vec![10]);
    }

    #[test]
    fn reads_the_success_cases_with_shapes_dtypes_and_attrs() {
        let cases = parse(FILE, "tests/ut/op_host/test_widget_tiling.cpp");
        assert_eq!(cases.len(), 4, "{cases:?}");
        // `ExecuteTiling` without an expected failure is a success case (ops-cv's roi_align_rotated_grad)
        assert_eq!(cases[2].test, "executed");
        assert_eq!(cases[2].inputs[0].shape, vec![4, 32]);
        assert_eq!(cases[3].inputs[0].shape, vec![96, 512]);
        assert_eq!(cases[3].outputs[0].shape, vec![192, 512]);
        assert_eq!(
            cases[1].attrs,
            vec![
                ("range".to_string(), "[1, 5]".to_string()),
                ("k".to_string(), "4".to_string()),
            ]
        );
        let c = &cases[0];
        assert_eq!(
            (c.op_type.as_str(), c.test.as_str(), c.line),
            ("Widget", "small_bf16", 4)
        );
        assert_eq!(
            c.inputs,
            vec![
                CaseTensor {
                    shape: vec![64, 512],
                    dtype: Some(DType::BFloat16)
                },
                CaseTensor {
                    shape: vec![64],
                    dtype: Some(DType::Int32)
                },
            ]
        );
        assert_eq!(
            c.outputs,
            vec![CaseTensor {
                shape: vec![64, 512],
                dtype: Some(DType::BFloat16)
            }]
        );
        assert_eq!(
            c.attrs,
            vec![
                ("mode".to_string(), "2".to_string()),
                ("scale".to_string(), "0.5".to_string()),
                ("keep".to_string(), "true".to_string()),
                ("layout".to_string(), "\"BSH\"".to_string()),
                ("sizes".to_string(), "[1, 2, 3]".to_string()),
            ]
        );
        assert_eq!(c.largest_input(), 64 * 512);
    }

    #[test]
    fn a_name_changed_after_its_declaration_has_no_one_value() {
        // an example that sums its rows in a loop, as ops-transformer's nsa_compress does
        let body = "int rows = 0; int cols = 8;\nfor (int i = 0; i < n; i++) { rows += i; }\nint w = cols;";
        assert_eq!(declared(body, "rows"), None);
        assert_eq!(declared(body, "cols"), Some("8"));
        assert_eq!(declared("int k = 3; ++k;", "k"), None);
        // declared again after the change: the later literal holds
        assert_eq!(declared("int k = 3; k *= 2; int k = 5;", "k"), Some("5"));
        // an element of an array set after it is not the array changed
        assert_eq!(
            declared("int64_t d[2] = {1, 2}; d[0] = 32;", "d"),
            Some("{1, 2}")
        );
    }
}
