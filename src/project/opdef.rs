//! Reading an operator's definition as CANN's op build does: the `OpDef` class registered with
//! `OP_ADD(Type)` in `op_host/` (`this->Input("x").ParamType(REQUIRED).DataType({...}).Format({...})`,
//! `Output(...)`, `Attr("a").AttrType(OPTIONAL).Float(1.0)`, `.ValueDepend(...)`,
//! `this->AICore().AddConfig("ascend910b", ...)`), parsed with tree-sitter-cpp. The behaviour read is the
//! one the Ascend C custom-op guide documents for the OpDef prototype (asc-devkit
//! `docs/` "算子原型定义" pages); nothing of CANN's own code is used. Knows nothing of manifests'
//! shapes, of tunables or of building: `init` decides what to write from what is read here.

use crate::manifest::DType;
use crate::space::binding::parse_cpp;
use tree_sitter::Node;

/// `ParamType` of an input or output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamType {
    Required,
    Optional,
    /// A list of tensors (`DYNAMIC`).
    Dynamic,
}

/// One `Input(...)` or `Output(...)` of an OpDef.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDef {
    pub name: String,
    pub param_type: ParamType,
    /// The `DataType` list as written (`ge::DT_FLOAT16` -> `DT_FLOAT16`), one per supported combination.
    pub dtypes: Vec<String>,
    pub formats: Vec<String>,
    /// `.ValueDepend(...)`: the tiling function reads this input's data.
    pub value_depend: bool,
    /// `.InitValue(...)` on an output: the framework clears it (or sets it with a memset op) before the
    /// kernel runs, so the kernel may accumulate into it or leave elements as they are (CANN docs,
    /// Ascend C operator API, `OpParamDef::InitValue`, atlasascendc_api_07_0972).
    pub init_value: bool,
}

/// The type of an `Attr`, as its typed setter names it (`.Float(1.0)`, `.ListInt({...})`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrKind {
    Int,
    Float,
    Bool,
    String,
    ListInt,
    ListFloat,
    ListBool,
    /// No typed setter was found.
    Unknown,
}

/// An attr's default value as the OpDef writes it.
#[derive(Debug, Clone, PartialEq)]
pub enum AttrDefault {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
    Bools(Vec<bool>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AttrDef {
    pub name: String,
    pub required: bool,
    pub kind: AttrKind,
    /// `None` for a required attr (or a setter without an argument).
    pub default: Option<AttrDefault>,
}

/// An operator definition: one class registered with `OP_ADD`.
#[derive(Debug, Clone, PartialEq)]
pub struct OpDef {
    /// The op type given to `OP_ADD`.
    pub op_type: String,
    pub inputs: Vec<ParamDef>,
    pub outputs: Vec<ParamDef>,
    pub attrs: Vec<AttrDef>,
    /// The SoC configs of `AICore().AddConfig("...")`, in order (e.g. `ascend910b`).
    pub socs: Vec<String>,
}

/// A `DataType` column of an OpDef: its index, the inputs' dtypes and the outputs' dtypes.
pub type DtypeColumn = (usize, Vec<Option<DType>>, Vec<Option<DType>>);

impl OpDef {
    /// The names of its inputs, then of its outputs, in declaration order.
    pub fn param_names(&self) -> Vec<&str> {
        self.inputs
            .iter()
            .chain(&self.outputs)
            .map(|p| p.name.as_str())
            .collect()
    }

    /// The first `DataType` column whose dtypes the manifest can all name, as (column, inputs'
    /// dtypes, outputs' dtypes). Column 0 unless one of its dtypes (double, complex, ...) has no
    /// manifest spelling. A tensor with no `DataType` list takes float16 (`None` in the flags).
    pub fn dtype_column(&self) -> Option<DtypeColumn> {
        let width = self
            .inputs
            .iter()
            .chain(&self.outputs)
            .map(|p| p.dtypes.len())
            .max()
            .unwrap_or(0);
        let pick = |p: &ParamDef, c: usize| -> Result<Option<DType>, ()> {
            if p.dtypes.is_empty() {
                return Ok(None);
            }
            // A shorter list (DataTypeList / Follow) repeats its one entry for every column.
            let name = p.dtypes.get(c).or(p.dtypes.last()).ok_or(())?;
            ge_dtype(name).map(Some).ok_or(())
        };
        for c in 0..width.max(1) {
            let ins: Result<Vec<_>, ()> = self.inputs.iter().map(|p| pick(p, c)).collect();
            let outs: Result<Vec<_>, ()> = self.outputs.iter().map(|p| pick(p, c)).collect();
            if let (Ok(i), Ok(o)) = (ins, outs) {
                return Some((c, i, o));
            }
        }
        None
    }
}

/// `DT_FLOAT16` (or `ge::DT_FLOAT16`) as a manifest dtype; `None` for types the manifest has no name for.
pub fn ge_dtype(name: &str) -> Option<DType> {
    let name = name.rsplit("::").next().unwrap_or(name).trim();
    let alias = match name {
        "DT_BFLOAT16" => "DT_BF16",
        other => other,
    };
    DType::from_ge_name(alias)
}

/// The OpDefs of a host source file: each class whose constructor declares inputs, outputs or attrs,
/// named by its `OP_ADD` (the class name when the file has no `OP_ADD` for it).
pub fn read_opdefs(text: &str) -> Vec<OpDef> {
    let Some(tree) = parse_cpp(text) else {
        return vec![];
    };
    let root = tree.root_node();
    let mut added = vec![];
    let mut classes = vec![];
    // `using Bincount = BincountDef; OP_ADD(Bincount);` (ops-math's bincount): the op type is the
    // alias, the definition the class it names.
    let mut aliases: Vec<(String, String)> = vec![];
    visit(root, &mut |n| match n.kind() {
        "alias_declaration" => {
            if let (Some(name), Some(ty)) =
                (n.child_by_field_name("name"), n.child_by_field_name("type"))
            {
                aliases.push((
                    text[name.byte_range()].to_string(),
                    last_word(text[ty.byte_range()].trim()).to_string(),
                ));
            }
        }
        "call_expression" => {
            if let Some(f) = n.child_by_field_name("function")
                && &text[f.byte_range()] == "OP_ADD"
                && let Some(a) = n
                    .child_by_field_name("arguments")
                    .and_then(|a| a.named_child(0))
            {
                added.push(text[a.byte_range()].to_string());
            }
        }
        "class_specifier" | "struct_specifier" => {
            if let (Some(name), Some(body)) =
                (n.child_by_field_name("name"), n.child_by_field_name("body"))
            {
                classes.push((text[name.byte_range()].to_string(), body));
            }
        }
        _ => {}
    });
    let mut out = vec![];
    for (class, body) in classes {
        let mut def = OpDef {
            op_type: class.clone(),
            inputs: vec![],
            outputs: vec![],
            attrs: vec![],
            socs: vec![],
        };
        let mut configs = SocConfigs::default();
        visit(body, &mut |n| {
            if n.kind() == "expression_statement"
                && let Some(e) = n.named_child(0)
            {
                read_statement(e, text, root, &mut def, &mut configs);
            }
        });
        if def.inputs.is_empty()
            && def.outputs.is_empty()
            && let Some(c) = configs.op_params()
        {
            def.inputs = c.inputs.clone();
            def.outputs = c.outputs.clone();
        }
        if def.inputs.is_empty() && def.outputs.is_empty() && def.attrs.is_empty() {
            continue;
        }
        if added.is_empty() || added.contains(&class) {
            out.push(def);
        } else if let Some((alias, _)) = aliases
            .iter()
            .find(|(a, c)| *c == class && added.contains(a))
        {
            def.op_type = alias.clone();
            out.push(def);
        }
    }
    out
}

/// One method call of a chain: its name and its argument list.
struct Link<'t> {
    method: String,
    args: Option<Node<'t>>,
}

/// `this->Input("x").ParamType(REQUIRED)...` as links from the innermost call outwards, and the object
/// the chain starts at when that is not `this` (nor a bare call): per-SoC `OpAICoreConfig` objects
/// (`aicoreConfig.Input("x")...`) declare their own inputs, which are the op's only where the op
/// declares none of its own. `Some("")` for a chain on anything else.
fn chain<'t>(mut e: Node<'t>, text: &str) -> (Vec<Link<'t>>, Option<String>) {
    let mut links = vec![];
    let mut on_this = false;
    let mut base = None;
    loop {
        if e.kind() != "call_expression" {
            on_this = matches!(e.kind(), "this") || &text[e.byte_range()] == "this";
            if !on_this {
                base = Some(text[e.byte_range()].trim().to_string());
            }
            break;
        }
        let args = e.child_by_field_name("arguments");
        let Some(f) = e.child_by_field_name("function") else {
            break;
        };
        match f.kind() {
            "field_expression" => {
                let field = f
                    .child_by_field_name("field")
                    .map(|x| text[x.byte_range()].to_string())
                    .unwrap_or_default();
                links.push(Link {
                    method: field,
                    args,
                });
                match f.child_by_field_name("argument") {
                    Some(inner) => e = inner,
                    None => break,
                }
            }
            "identifier" => {
                links.push(Link {
                    method: text[f.byte_range()].to_string(),
                    args,
                });
                on_this = true;
                break;
            }
            _ => break,
        }
    }
    links.reverse();
    (
        links,
        if on_this {
            None
        } else {
            base.or(Some(String::new()))
        },
    )
}

/// Inputs and outputs declared on named `OpAICoreConfig` objects (`aicoreConfig.Input("x")...`), by
/// variable, and which variable each `AddConfig("soc", var)` adds.
#[derive(Default)]
struct SocConfigs {
    params: Vec<(String, OpDef)>,
    added: Vec<(String, String)>,
}

impl SocConfigs {
    fn of(&mut self, var: &str) -> &mut OpDef {
        if let Some(i) = self.params.iter().position(|(v, _)| v == var) {
            return &mut self.params[i].1;
        }
        self.params.push((
            var.to_string(),
            OpDef {
                op_type: String::new(),
                inputs: vec![],
                outputs: vec![],
                attrs: vec![],
                socs: vec![],
            },
        ));
        &mut self.params.last_mut().unwrap().1
    }

    /// The inputs and outputs of the config added for an ascend910b SoC, else of the first config
    /// added that declares any (ops-math's real declares its tensors on the config alone).
    fn op_params(&self) -> Option<&OpDef> {
        let declared = |var: &String| {
            self.params
                .iter()
                .find(|(v, d)| v == var && !(d.inputs.is_empty() && d.outputs.is_empty()))
                .map(|(_, d)| d)
        };
        self.added
            .iter()
            .filter(|(soc, _)| soc.starts_with("ascend910b"))
            .chain(&self.added)
            .find_map(|(_, var)| declared(var))
    }
}

fn read_statement(e: Node, text: &str, root: Node, def: &mut OpDef, configs: &mut SocConfigs) {
    let (links, base) = chain(e, text);
    let Some(first) = links.first() else {
        return;
    };
    // AICore().AddConfig("ascend910b"[, config]) also counts on a named OpAICoreConfig's chain.
    for l in &links {
        if l.method == "AddConfig"
            && let Some(s) = l.args.and_then(|a| a.named_child(0))
            && let Some(soc) = string_literal(s, text)
        {
            if let Some(var) = l.args.and_then(|a| a.named_child(1)) {
                configs
                    .added
                    .push((soc.clone(), text[var.byte_range()].trim().to_string()));
            }
            if !def.socs.contains(&soc) {
                def.socs.push(soc);
            }
        }
    }
    let def = match base {
        None => def,
        Some(var) if !var.is_empty() && matches!(first.method.as_str(), "Input" | "Output") => {
            configs.of(&var)
        }
        Some(_) => return,
    };
    let Some(name) = first
        .args
        .and_then(|a| a.named_child(0))
        .and_then(|a| string_literal(a, text))
    else {
        return;
    };
    match first.method.as_str() {
        "Input" | "Output" => {
            let mut p = ParamDef {
                name,
                param_type: ParamType::Required,
                dtypes: vec![],
                formats: vec![],
                value_depend: false,
                init_value: false,
            };
            for l in &links[1..] {
                let arg0 = l.args.and_then(|a| a.named_child(0));
                match l.method.as_str() {
                    "ParamType" => {
                        if let Some(a) = arg0 {
                            p.param_type = match last_word(&text[a.byte_range()]) {
                                "OPTIONAL" => ParamType::Optional,
                                "DYNAMIC" => ParamType::Dynamic,
                                _ => ParamType::Required,
                            };
                        }
                    }
                    "DataType" | "DataTypeList" => {
                        if let Some(a) = arg0 {
                            p.dtypes = list_items(a, text, root);
                        }
                    }
                    "Format" | "FormatList" => {
                        if let Some(a) = arg0 {
                            p.formats = list_items(a, text, root);
                        }
                    }
                    "ValueDepend" => p.value_depend = true,
                    "InitValue" => p.init_value = true,
                    _ => {}
                }
            }
            let list = if first.method == "Input" {
                &mut def.inputs
            } else {
                &mut def.outputs
            };
            if !list.iter().any(|x| x.name == p.name) {
                list.push(p);
            }
        }
        "Attr" => {
            let mut a = AttrDef {
                name,
                required: false,
                kind: AttrKind::Unknown,
                default: None,
            };
            for l in &links[1..] {
                let arg0 = l.args.and_then(|x| x.named_child(0));
                let kind = match l.method.as_str() {
                    "AttrType" => {
                        a.required =
                            arg0.is_some_and(|x| last_word(&text[x.byte_range()]) == "REQUIRED");
                        continue;
                    }
                    "Int" => AttrKind::Int,
                    "Float" => AttrKind::Float,
                    "Bool" => AttrKind::Bool,
                    "String" => AttrKind::String,
                    "ListInt" => AttrKind::ListInt,
                    "ListFloat" => AttrKind::ListFloat,
                    "ListBool" => AttrKind::ListBool,
                    _ => continue,
                };
                a.kind = kind;
                a.default = arg0.and_then(|x| attr_default(kind, x, text, root));
            }
            if !def.attrs.iter().any(|x| x.name == a.name) {
                def.attrs.push(a);
            }
        }
        _ => {}
    }
}

fn last_word(s: &str) -> &str {
    s.rsplit("::").next().unwrap_or(s).trim()
}

fn string_literal(n: Node, text: &str) -> Option<String> {
    let s = text[n.byte_range()].trim();
    (n.kind() == "string_literal" || s.starts_with('"'))
        .then(|| s.trim_matches('"').to_string())
        .filter(|s| !s.is_empty())
}

/// The items of `{a, b}` (or of a variable initialised with such a list elsewhere in the file), each
/// reduced to its last `::` part.
fn list_items(n: Node, text: &str, root: Node) -> Vec<String> {
    if let Some(items) = macro_list(n, text, root) {
        return items;
    }
    let n = resolve(n, text, root).unwrap_or(n);
    if n.kind() != "initializer_list" {
        return vec![last_word(&text[n.byte_range()]).to_string()];
    }
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|x| x.kind() != "comment")
        .map(|x| last_word(&text[x.byte_range()]).to_string())
        .collect()
}

/// An identifier naming an object-like macro of this file whose body is a brace list
/// (`#define DTYPE_X { ge::DT_FLOAT16, ge::DT_BF16 }`, ops-nn's add_rms_norm_quant_v2, inside the class
/// that uses it): the list's items, each reduced to its last `::` part.
fn macro_list(n: Node, text: &str, root: Node) -> Option<Vec<String>> {
    if n.kind() != "identifier" {
        return None;
    }
    let value = first_value(
        root,
        text,
        ("preproc_def", "name"),
        &text[n.byte_range()],
        |_| true,
    )?;
    let body = text[value.byte_range()]
        .replace("\\\n", " ")
        .replace('\\', " ");
    let inner = body.trim().strip_prefix('{')?.strip_suffix('}')?;
    Some(
        inner
            .split(',')
            .map(|x| last_word(x.trim()).to_string())
            .filter(|x| !x.is_empty())
            .collect(),
    )
}

/// An identifier naming a variable of this file initialised with a literal (a number, a string, a
/// `ge::DT_...`): that literal.
fn constant_value<'t>(n: Node<'t>, text: &str, root: Node<'t>) -> Option<Node<'t>> {
    initialiser(
        n,
        text,
        root,
        &[
            "number_literal",
            "string_literal",
            "true",
            "false",
            "qualified_identifier",
        ],
    )
}

/// An identifier naming a variable initialised with a brace list in this file: that list.
fn resolve<'t>(n: Node<'t>, text: &str, root: Node<'t>) -> Option<Node<'t>> {
    initialiser(n, text, root, &["initializer_list"])
}

/// The value the file's first declaration of the variable `n` names is initialised with, when that
/// value is a node of one of `kinds`.
fn initialiser<'t>(n: Node<'t>, text: &str, root: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    if !matches!(n.kind(), "identifier" | "qualified_identifier") {
        return None;
    }
    first_value(
        root,
        text,
        ("init_declarator", "declarator"),
        last_word(&text[n.byte_range()]),
        |v| kinds.contains(&v.kind()),
    )
}

/// The `value` of the file's first node of `kind` whose `name_field` reads `want` and whose value
/// `keep` takes: a variable's initialiser (`init_declarator`, `declarator`), a macro's body
/// (`preproc_def`, `name`).
fn first_value<'t>(
    root: Node<'t>,
    text: &str,
    (kind, name_field): (&str, &str),
    want: &str,
    keep: impl Fn(Node) -> bool,
) -> Option<Node<'t>> {
    let mut found = None;
    visit(root, &mut |d| {
        if found.is_none()
            && d.kind() == kind
            && d.child_by_field_name(name_field)
                .is_some_and(|x| &text[x.byte_range()] == want)
        {
            found = d.child_by_field_name("value").filter(|v| keep(*v));
        }
    });
    found
}

fn number(s: &str) -> Option<f64> {
    let s = s.trim().trim_end_matches(['f', 'F', 'l', 'L', 'u', 'U']);
    s.parse::<f64>()
        .ok()
        .or_else(|| s.parse::<i64>().ok().map(|i| i as f64))
}

fn int(s: &str) -> Option<i64> {
    let t = s.trim().trim_end_matches(['l', 'L', 'u', 'U']);
    t.parse::<i64>().ok().or_else(|| data_type_number(s))
}

/// A `ge::DataType` enumerator as the number it stands for (graph/types.h; the same numbers as the
/// twin's templates/twin/include/kernel/twin/dtype_ids.h): an int attr whose default is a dtype, as ops-nn
/// dynamic_quant's `Attr("dst_type").Int(ge::DT_INT8)`, defaults to 2.
/// The number of a `ge::DataType` enumerator (`DT_INT8` -> 2), as the graph engine numbers them.
pub fn data_type_number(s: &str) -> Option<i64> {
    let name = s.trim();
    let name = name.strip_prefix("ge::").unwrap_or(name);
    let name = name.strip_prefix("DataType::").unwrap_or(name);
    const NUMBERS: &[(&str, i64)] = &[
        ("DT_FLOAT", 0),
        ("DT_FLOAT16", 1),
        ("DT_INT8", 2),
        ("DT_INT32", 3),
        ("DT_UINT8", 4),
        ("DT_INT16", 6),
        ("DT_UINT16", 7),
        ("DT_UINT32", 8),
        ("DT_INT64", 9),
        ("DT_UINT64", 10),
        ("DT_DOUBLE", 11),
        ("DT_BOOL", 12),
        ("DT_COMPLEX64", 16),
        ("DT_COMPLEX128", 17),
        ("DT_BF16", 27),
        ("DT_INT4", 29),
        ("DT_UINT1", 30),
        ("DT_INT2", 31),
        ("DT_COMPLEX32", 33),
        ("DT_HIFLOAT8", 34),
        ("DT_FLOAT8_E5M2", 35),
        ("DT_FLOAT8_E4M3FN", 36),
        ("DT_FLOAT8_E8M0", 37),
        ("DT_FLOAT4_E2M1", 40),
        ("DT_FLOAT4_E1M2", 41),
    ];
    NUMBERS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

fn boolean(s: &str) -> Option<bool> {
    match s.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn attr_default(kind: AttrKind, n: Node, text: &str, root: Node) -> Option<AttrDefault> {
    // A scalar default named by a constant of the file (ops-nn's dynamic_block_quant:
    // `.Int(DEFAULT_BLOCK_SIZE_COL)` with `static constexpr int32_t DEFAULT_BLOCK_SIZE_COL = 128;`).
    let n = match kind {
        AttrKind::ListInt | AttrKind::ListFloat | AttrKind::ListBool => n,
        _ => constant_value(n, text, root).unwrap_or(n),
    };
    let s = text[n.byte_range()].trim();
    match kind {
        AttrKind::Int => int(s).map(AttrDefault::Int),
        AttrKind::Float => number(s).map(AttrDefault::Float),
        AttrKind::Bool => boolean(s).map(AttrDefault::Bool),
        AttrKind::String => string_literal(n, text)
            .or(Some(String::new()).filter(|_| s == "\"\""))
            .map(AttrDefault::Str),
        AttrKind::ListInt => list_items(n, text, root)
            .iter()
            .map(|x| int(x))
            .collect::<Option<Vec<_>>>()
            .map(AttrDefault::Ints),
        AttrKind::ListFloat => list_items(n, text, root)
            .iter()
            .map(|x| number(x))
            .collect::<Option<Vec<_>>>()
            .map(AttrDefault::Floats),
        AttrKind::ListBool => list_items(n, text, root)
            .iter()
            .map(|x| boolean(x))
            .collect::<Option<Vec<_>>>()
            .map(AttrDefault::Bools),
        AttrKind::Unknown => None,
    }
}

fn visit<'t>(node: Node<'t>, f: &mut impl FnMut(Node<'t>)) {
    f(node);
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        visit(child, f);
    }
}

/// The names registered with `IMPL_OP_OPTILING(Type)` / `IMPL_OP_INFERSHAPE(Type)` (and `IMPL_OP(Type)`)
/// in a host file, as (macro, type).
/// The registrations tree-sitter reads as calls.
fn parsed_registrations(text: &str) -> Vec<(String, String)> {
    let Some(tree) = parse_cpp(text) else {
        return vec![];
    };
    let mut out = vec![];
    visit(tree.root_node(), &mut |n| {
        if n.kind() == "call_expression"
            && let Some(f) = n.child_by_field_name("function")
        {
            let f = &text[f.byte_range()];
            if matches!(f, "IMPL_OP_OPTILING" | "IMPL_OP_INFERSHAPE" | "IMPL_OP")
                && let Some(a) = n
                    .child_by_field_name("arguments")
                    .and_then(|a| a.named_child(0))
            {
                let pair = (f.to_string(), text[a.byte_range()].to_string());
                if !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    });
    out
}

/// The registrations of a host file: `registrations` proper, without an `IMPL_OP(Type)` whose every
/// chain sets only the op's host execute function (`IMPL_OP(MlaPrologV2).OpExecuteFunc(f)`, the aclnn
/// fallback ops-transformer's attention and MoE ops keep in `op_host/`): it registers no tiling and no
/// InferShape, and compiling it for them needs the aclnn headers of a CANN install.
pub fn registrations(text: &str) -> Vec<(String, String)> {
    let mut out = all_registrations(text);
    out.retain(|(m, t)| m != "IMPL_OP" || !execute_only(text, t));
    out
}

/// Whether every `IMPL_OP(op_type)` of `text` (outside comments) is followed only by
/// `.OpExecuteFunc(...)` (and `.HostInputs(...)`, the inputs that function reads on the host).
fn execute_only(text: &str, op_type: &str) -> bool {
    let mut chains = 0;
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("IMPL_OP") else {
            continue;
        };
        let Some(arg) = rest.trim_start().strip_prefix('(') else {
            continue;
        };
        let Some(after) = arg
            .trim_start()
            .strip_prefix(op_type)
            .and_then(|a| a.trim_start().strip_prefix(')'))
        else {
            continue;
        };
        chains += 1;
        // the chain's methods: `.Name(...)` one after another (on this line; a chain spread over lines
        // is read as registering more than an execute function)
        let mut rest = after.trim_start();
        let mut methods = vec![];
        while let Some(r) = rest.strip_prefix('.') {
            let name: String = r
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let Some(args) = r[name.len()..].strip_prefix('(') else {
                break;
            };
            let mut depth = 1;
            let Some(close) = args.char_indices().find_map(|(i, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(i)
            }) else {
                break;
            };
            methods.push(name);
            rest = args[close + 1..].trim_start();
        }
        if methods.is_empty()
            || !rest.starts_with(';')
            || methods
                .iter()
                .any(|m| !matches!(m.as_str(), "OpExecuteFunc" | "HostInputs"))
        {
            return false;
        }
    }
    chains > 0
}

fn all_registrations(text: &str) -> Vec<(String, String)> {
    let mut out = parsed_registrations(text);
    // A registration tree-sitter could not read as a call (a macro earlier in the file it does not
    // know, e.g. `OP_CHECK_NULL_WITH_CONTEXT(...);`, can turn the rest into an error node): registrations
    // stand at the start of a line, so the line's text says it too.
    for line in text.lines() {
        let line = line.trim_start();
        for mac in ["IMPL_OP_OPTILING", "IMPL_OP_INFERSHAPE", "IMPL_OP"] {
            let Some(rest) = line.strip_prefix(mac) else {
                continue;
            };
            let Some(arg) = rest.trim_start().strip_prefix('(') else {
                continue;
            };
            let name: String = arg
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && arg.trim_start()[name.len()..].trim_start().starts_with(')') {
                let pair = (mac.to_string(), name);
                if !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    }
    out
}

/// The op types a host file registers tiling templates for: the ops repositories' tiling functions
/// dispatch through a registry (`TilingRegistry::DoTilingImpl`, ops-nn
/// `common/inc/op_host/tiling_templates_registry.h`) that the template classes join from their own
/// source files, with `REGISTER_TILING_TEMPLATE("Type", Class, priority)`,
/// `REGISTER_OPS_TILING_TEMPLATE(Type, Class, priority)` and their `_WITH_ARCH` / `POOL` / `_NEW`
/// variants. Read from the line each registration starts on (a `#define` of the macro is not one).
pub fn tiling_templates(text: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for line in text.lines() {
        let line = line.trim_start();
        let mac: String = line
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !(mac.starts_with("REGISTER_") && mac.contains("TILING_TEMPLATE")) {
            continue;
        }
        let Some(arg) = line[mac.len()..].trim_start().strip_prefix('(') else {
            continue;
        };
        let arg = arg.trim_start();
        let arg = arg.strip_prefix('"').unwrap_or(arg);
        let name: String = arg
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// The manifest SoC for an `AddConfig` name, when the model has one: `ascend910b` -> `Ascend910B1`.
pub fn soc_of_config(config: &str) -> Option<&'static str> {
    match config.to_ascii_lowercase().as_str() {
        "ascend910b" => Some("Ascend910B1"),
        "ascend910_93" => Some("Ascend910_93"),
        "ascend310p" => Some("Ascend310P3"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found in the new-user run (ops-nn quantized_batch_norm: its tiling function found no template,
    /// "Get op tiling func failed", because the file registering it was not compiled).
    #[test]
    fn tiling_template_registrations_name_their_op_type() {
        let text = "#define REGISTER_TILING_TEMPLATE(op, cls, p) x\n\
                    REGISTER_TILING_TEMPLATE(\"QuantizedBatchNorm\", QbnWelford, 2000);\n\
                    REGISTER_OPS_TILING_TEMPLATE(ConfusionSoftmaxGrad, CsgAr,\n    1000);\n\
                      REGISTER_POOL_TILING_TEMPLATE(\"AvgPool3D\", Big, 13);\n\
                    REGISTER_TILING_TEMPLATE(\"QuantizedBatchNorm\", QbnOther, 1000);\n\
                    // REGISTER_TILING_TEMPLATE(\"Commented\", C, 1);\n\
                    REGISTER_TILING_DATA_CLASS(QuantizedBatchNorm, QbnTilingData);\n";
        assert_eq!(
            tiling_templates(text),
            ["QuantizedBatchNorm", "ConfusionSoftmaxGrad", "AvgPool3D"]
        );
    }

    const ONE: &str = r#"
#include "register/op_def_registry.h"
namespace ops {
static const std::vector<ge::DataType> kTypes = {ge::DT_BF16, ge::DT_FLOAT};
class Foo : public OpDef {
public:
    explicit Foo(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("gamma").ParamType(OPTIONAL).DataType(kTypes).Format({ge::FORMAT_ND});
        this->Input("xs").ParamType(DYNAMIC).DataType({ge::DT_INT32, ge::DT_INT64});
        this->Input("axis").ParamType(REQUIRED).DataType({DT_INT64, DT_INT64}).ValueDepend(OPTIONAL);
        this->Output("mask").ParamType(REQUIRED).DataType({ge::DT_BOOL, ge::DT_BOOL});
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.5);
        this->Attr("keep").AttrType(OPTIONAL).Bool(true);
        this->Attr("n").AttrType(REQUIRED).Int();
        this->Attr("dims").AttrType(OPTIONAL).ListInt({1, -2});
        this->Attr("mode").AttrType(OPTIONAL).String("mean");
        this->Attr("w").AttrType(OPTIONAL).ListFloat({0.5f, 2});
        OpAICoreConfig cfg;
        cfg.Input("other").DataType({ge::DT_DOUBLE});
        this->AICore().AddConfig("ascend910b", cfg);
        this->AICore().AddConfig("ascend950");
    }
};
OP_ADD(Foo);
}
"#;

    #[test]
    fn reads_inputs_outputs_with_param_types_dtypes_and_value_depend() {
        let defs = read_opdefs(ONE);
        assert_eq!(defs.len(), 1);
        let d = &defs[0];
        assert_eq!(d.op_type, "Foo");
        let ins: Vec<(&str, ParamType, Vec<&str>, bool)> = d
            .inputs
            .iter()
            .map(|p| {
                (
                    p.name.as_str(),
                    p.param_type,
                    p.dtypes.iter().map(|s| s.as_str()).collect(),
                    p.value_depend,
                )
            })
            .collect();
        assert_eq!(
            ins,
            [
                (
                    "x",
                    ParamType::Required,
                    vec!["DT_FLOAT16", "DT_FLOAT"],
                    false
                ),
                (
                    "gamma",
                    ParamType::Optional,
                    vec!["DT_BF16", "DT_FLOAT"],
                    false
                ),
                (
                    "xs",
                    ParamType::Dynamic,
                    vec!["DT_INT32", "DT_INT64"],
                    false
                ),
                (
                    "axis",
                    ParamType::Required,
                    vec!["DT_INT64", "DT_INT64"],
                    true
                ),
            ]
        );
        // The per-SoC config's own Input is not the op's.
        assert!(!d.inputs.iter().any(|p| p.name == "other"));
        assert_eq!(d.inputs[0].formats, ["FORMAT_ND", "FORMAT_ND"]);
        assert_eq!(d.outputs.len(), 1);
        assert_eq!(d.outputs[0].name, "mask");
        assert!(!d.outputs[0].init_value);
        assert_eq!(d.socs, ["ascend910b", "ascend950"]);
        // An output the framework fills first (ops-nn's embedding_dense_grad: `.InitValue(0)`).
        let filled = ONE.replace(
            "this->Output(\"mask\").ParamType(REQUIRED)",
            "this->Output(\"mask\").ParamType(REQUIRED).InitValue(0)",
        );
        assert_ne!(filled, ONE);
        assert!(read_opdefs(&filled)[0].outputs[0].init_value);
        // The first DataType column: fp16 x, bf16 gamma, int32 list, int64 axis, and bool stays bool.
        let (c, i, o) = d.dtype_column().unwrap();
        assert_eq!(c, 0);
        assert_eq!(
            i,
            [
                Some(DType::Float16),
                Some(DType::BFloat16),
                Some(DType::Int32),
                Some(DType::Int64)
            ]
        );
        assert_eq!(o, [Some(DType::Bool)]);
    }

    /// Found in the new-user run (ops-nn dynamic_quant: `Attr("dst_type").Int(ge::DT_INT8)` was read
    /// as no default, init wrote 1, and the tiling refused dst_type 1 against y's int8): a dtype
    /// default is the number it stands for.
    #[test]
    fn an_int_attr_defaulting_to_a_dtype_is_its_number() {
        assert_eq!(int("ge::DT_INT8"), Some(2));
        assert_eq!(int("DT_BF16"), Some(27));
        assert_eq!(int("ge::DataType::DT_FLOAT"), Some(0));
        assert_eq!(int("12L"), Some(12));
        assert_eq!(int("ge::DT_NOT_A_TYPE"), None);
        let text = "class Dq : public OpDef {\npublic:\n explicit Dq(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType({ge::DT_FLOAT16});\n  this->Output(\"y\").DataType({ge::DT_INT8});\n  this->Attr(\"dst_type\").AttrType(OPTIONAL).Int(ge::DT_INT8);\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(Dq);\n";
        let d = &read_opdefs(text)[0];
        assert_eq!(d.attrs[0].default, Some(AttrDefault::Int(2)));
    }

    #[test]
    fn reads_attrs_with_their_defaults() {
        let d = &read_opdefs(ONE)[0];
        let attrs: Vec<(&str, bool, AttrKind, Option<AttrDefault>)> = d
            .attrs
            .iter()
            .map(|a| (a.name.as_str(), a.required, a.kind, a.default.clone()))
            .collect();
        assert_eq!(
            attrs,
            [
                (
                    "alpha",
                    false,
                    AttrKind::Float,
                    Some(AttrDefault::Float(1.5))
                ),
                ("keep", false, AttrKind::Bool, Some(AttrDefault::Bool(true))),
                ("n", true, AttrKind::Int, None),
                (
                    "dims",
                    false,
                    AttrKind::ListInt,
                    Some(AttrDefault::Ints(vec![1, -2]))
                ),
                (
                    "mode",
                    false,
                    AttrKind::String,
                    Some(AttrDefault::Str("mean".into()))
                ),
                (
                    "w",
                    false,
                    AttrKind::ListFloat,
                    Some(AttrDefault::Floats(vec![0.5, 2.0]))
                ),
            ]
        );
    }

    /// Found in the new-user run (ops-nn add_rms_norm_dynamic_quant_v2's `dst_type` defaults to
    /// `ge::DT_INT8`; init wrote 1, DT_FLOAT16, for want of a number).
    #[test]
    fn an_int_attr_defaulting_to_a_ge_data_type_gets_its_number() {
        let text = r#"class Q : public OpDef { public: Q(const char* n) : OpDef(n) {
            this->Input("x").DataType({ge::DT_FLOAT16});
            this->Attr("dst_type").AttrType(OPTIONAL).Int(ge::DT_INT8);
            this->Attr("t").AttrType(OPTIONAL).Int(DT_BF16);
            this->Attr("u").AttrType(OPTIONAL).Int(ge::DT_NOT_A_TYPE);
            this->AICore().AddConfig("ascend910b"); } }; OP_ADD(Q);"#;
        let d = &read_opdefs(text)[0];
        let defaults: Vec<Option<AttrDefault>> =
            d.attrs.iter().map(|a| a.default.clone()).collect();
        assert_eq!(
            defaults,
            [Some(AttrDefault::Int(2)), Some(AttrDefault::Int(27)), None]
        );
    }

    #[test]
    fn a_column_the_manifest_cannot_name_is_passed_over() {
        let text = r#"class Bar : public OpDef { public: Bar(const char* n) : OpDef(n) {
            this->Input("x").DataType({ge::DT_DOUBLE, ge::DT_FLOAT});
            this->Output("y").DataType({ge::DT_COMPLEX64, ge::DT_FLOAT});
        } }; OP_ADD(Bar);"#;
        let d = &read_opdefs(text)[0];
        let (c, i, o) = d.dtype_column().unwrap();
        assert_eq!(
            (c, i, o),
            (1, vec![Some(DType::Float32)], vec![Some(DType::Float32)])
        );
        let none = r#"class Baz : public OpDef { public: Baz(const char* n) : OpDef(n) {
            this->Input("x").DataType({ge::DT_DOUBLE});
        } }; OP_ADD(Baz);"#;
        assert!(read_opdefs(none)[0].dtype_column().is_none());
    }

    /// ops-nn's add_rms_norm_quant_v2 names its DataType lists by macros defined in the class
    /// (`#define DTYPE_X { ge::DT_FLOAT16, ge::DT_BF16 }`, continued over lines): init read no list and
    /// wrote float32 for every tensor, which the kernel's dtype branches do not build.
    #[test]
    fn data_type_lists_named_by_macros_are_read() {
        let text = "class Q : public OpDef {\n#define DTYPE_X \\\n    { ge::DT_FLOAT16, ge::DT_BF16 }\n#define DTYPE_Q {ge::DT_INT8, ge::DT_INT8}\npublic:\n explicit Q(const char* n) : OpDef(n) {\n  this->Input(\"x\").DataType(DTYPE_X);\n  this->Output(\"y\").DataType(DTYPE_Q);\n  this->AICore().AddConfig(\"ascend910b\");\n }\n};\nOP_ADD(Q);\n";
        let d = &read_opdefs(text)[0];
        assert_eq!(d.inputs[0].dtypes, ["DT_FLOAT16", "DT_BF16"]);
        assert_eq!(d.outputs[0].dtypes, ["DT_INT8", "DT_INT8"]);
    }

    /// ops-math's bincount registers an alias of its class (`using Bincount = BincountDef;
    /// OP_ADD(Bincount);`) and declares its dtypes in named vectors: init found no OpDef and typed
    /// every tensor float16.
    #[test]
    fn an_op_added_by_an_alias_of_its_class_is_read_under_the_alias() {
        let text = r#"static const std::vector<ge::DataType> arrayDType = {ge::DT_INT32, ge::DT_INT64};
            class BincountDef : public OpDef { public: explicit BincountDef(const char* n) : OpDef(n) {
                this->Input("array").ParamType(REQUIRED).DataType(arrayDType);
                this->Output("bins").DataType({ge::DT_FLOAT, ge::DT_FLOAT});
            } };
            using Bincount = BincountDef;
            OP_ADD(Bincount);"#;
        let defs = read_opdefs(text);
        assert_eq!(defs.len(), 1);
        assert_eq!(defs[0].op_type, "Bincount");
        assert_eq!(defs[0].inputs[0].dtypes, ["DT_INT32", "DT_INT64"]);
    }

    /// ops-math's real declares its tensors on the OpAICoreConfig it adds for ascend910b alone: the
    /// manifest had no inputs and the tiling read a null shape. Where the op declares its own, a
    /// config's stay out.
    #[test]
    fn tensors_declared_only_on_the_added_soc_config_are_the_ops() {
        let text = r#"class Real : public OpDef { public: explicit Real(const char* name) : OpDef(name) {
                OpAICoreConfig other;
                other.Input("wrong").DataType({ge::DT_INT8});
                OpAICoreConfig aicoreConfig;
                aicoreConfig.Input("input").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT});
                aicoreConfig.Output("output").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT});
                this->Attr("Tout").AttrType(OPTIONAL).Int(ge::DT_FLOAT);
                this->AICore().AddConfig("ascend310p", other);
                this->AICore().AddConfig("ascend910b", aicoreConfig);
            } }; OP_ADD(Real);"#;
        let d = &read_opdefs(text)[0];
        assert_eq!(d.param_names(), ["input", "output"]);
        assert_eq!(d.inputs[0].dtypes, ["DT_FLOAT16", "DT_FLOAT"]);
        assert_eq!(d.attrs.len(), 1);
        assert_eq!(d.socs, ["ascend310p", "ascend910b"]);
        let own = text.replace(
            "this->Attr(\"Tout\")",
            "this->Input(\"x\").DataType({ge::DT_FLOAT});\n this->Attr(\"Tout\")",
        );
        assert_eq!(read_opdefs(&own)[0].param_names(), ["x"]);
    }

    #[test]
    fn only_classes_given_to_op_add_count_and_registrations_are_found() {
        let text = r#"class Helper { void f() { this->Input("no"); } };
            class Real : public OpDef { public: Real(const char* n) : OpDef(n) { this->Input("x"); } };
            OP_ADD(Real);
            IMPL_OP_OPTILING(Real).Tiling(TilingFunc);
            IMPL_OP_INFERSHAPE(Real).InferShape(Infer);"#;
        let defs = read_opdefs(text);
        assert_eq!(defs.len(), 1);
        assert_eq!(defs[0].op_type, "Real");
        assert_eq!(defs[0].inputs[0].dtypes, Vec::<String>::new());
        assert_eq!(
            registrations(text),
            [
                ("IMPL_OP_OPTILING".to_string(), "Real".to_string()),
                ("IMPL_OP_INFERSHAPE".to_string(), "Real".to_string())
            ]
        );
        assert_eq!(soc_of_config("ascend910b"), Some("Ascend910B1"));
        assert_eq!(soc_of_config("ascend950"), None);
    }

    /// Found in ops-math's pdist: in a check macro's arguments, `N < 2, ... >= 2 ...` reads to
    /// tree-sitter as a template argument list, the rest of the file goes into an error node, and the
    /// registration was missed: the op's InferShape file was left out of `host`.
    #[test]
    fn a_registration_after_an_unreadable_macro_is_found() {
        let text = "namespace ops {
static ge::graphStatus Infer(gert::InferShapeContext* c)
{
    const gert::Shape* in = c->GetInputShape(0);
    CHECK_NOT_NULL(c, in);
    int64_t n = in->GetDim(0);
    CHECK_IF(n < 2, LOG(c, \"needs n >= 2, got %ld\", n), return ge::GRAPH_FAILED);
    gert::Shape* out = c->GetOutputShape(0);
    CHECK_NOT_NULL(c, out);
    int64_t pairs = n * (n - 1) / 2;
    out->SetDimNum(1);
    out->SetDim(0, pairs);
    return ge::GRAPH_SUCCESS;
}
IMPL_OP_INFERSHAPE(Pd).InferShape(Infer);
} // namespace ops
";
        assert_eq!(parsed_registrations(text), []);
        assert_eq!(
            registrations(text),
            [("IMPL_OP_INFERSHAPE".to_string(), "Pd".to_string())]
        );
        assert_eq!(registrations("// IMPL_OP_OPTILING(X) in a comment\n"), []);
    }

    /// ops-transformer's mla_prolog_v2 keeps its aclnn fallback in `op_host/` with
    /// `IMPL_OP(Type).OpExecuteFunc(f)`; it was compiled into the host program as a registration and
    /// stopped the build at `aclnn/aclnn_base.h`. An `IMPL_OP` that also sets a tiling or InferShape
    /// still counts.
    #[test]
    fn an_execute_function_alone_is_no_registration() {
        let fallback = "namespace fallback {\nIMPL_OP(Mla).OpExecuteFunc(MlaExecute);\n}\n";
        assert_eq!(registrations(fallback), []);
        // fused_infer_attention_score's also names the inputs its execute function reads on the host
        let host_inputs = "IMPL_OP(Fia).OpExecuteFunc(FiaExecute).HostInputs({5, 6, 23});\n";
        assert_eq!(registrations(host_inputs), []);
        let both = "IMPL_OP(Mla).OpExecuteFunc(MlaExecute).Tiling(MlaTiling);\n";
        assert_eq!(
            registrations(both),
            [("IMPL_OP".to_string(), "Mla".to_string())]
        );
        let tiling =
            "IMPL_OP(Mla).Tiling(MlaTiling, 4096);\nIMPL_OP_INFERSHAPE(Mla).InferShape(I);\n";
        assert_eq!(registrations(tiling).len(), 2);
    }
}
