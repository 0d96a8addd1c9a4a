// The twin trace format (version 3; versions 1 and 2 are read too): the text the C++ twin writes, parsed
// into blocks of records.
// Owns: syntax, validation (block structure, flag pairing) and typed errors with the trace line.
// Does not know what anything costs, nor where the text came from (no files here).
//
// Format:
//   twin-trace 3
//   block <idx> <block_dim>
//   I <pipe> <Api> key=value ...        one instruction; unknown keys are ignored; on S records
//                                       `count=N` (version 2) stands for N identical back-to-back ones
//   set <src-pipe> <dst-pipe> <key>     flag set
//   wait <src-pipe> <dst-pipe> <key>    flag wait; consumes the oldest unconsumed matching set of the block
//   barrier <ALL|pipe|NONE>             PipeBarrier (NONE: a pipe the twin does not model; ignored)
//   end
// Blank lines are skipped. Unknown record types are errors.
//
// Changelog:
//   1  the first format.
//   2  `count=N` on scalar records (N identical back-to-back ones).
//   4  mixed kernels: a block header may end in the core kind, `block <idx> <block_dim> aic|aiv<k>` (the
//      AIC, or AIV k, of logical block idx: one header per core); cross-core flags
//      `xset <pipe> x<scope>.<round>` (a CrossCoreSetFlag after <pipe>'s earlier work) and
//      `xwait <pipe> x<scope>.<round> n<sets>` (a CrossCoreWaitFlag released once the <sets> xset records
//      of that key, on any cores, have fired).
//   5  `carve <hw> <addr> <len> <num> line=<L> file=<F>`: a buffer TPipe::InitBuffer carved (`num`
//      buffers of `len` bytes from byte `addr` of memory `hw`: UB, L1, L0A, L0B, L0C, BT, FB), by the call
//      at F:L (the file to the end of the line). Kept beside the records (`Block::carves`); the pipeline
//      simulation costs nothing for them, the UB layout analysis (ub_layout.rs) reads them.
//   3  GM copies carry `buf=` (the GM allocation, numbered in allocation order; with `gm=`, the byte offset
//      in it, an absolute address) and `cache=disable|last|persistent` (SetL2CacheHint, when it is not
//      CACHE_MODE_NORMAL; read as AscendC's CacheMode value 0, 2, 4); GM->L1 copies `mem=L1 nd2nz=1`
//      (ignored by the model); binary vector records carry the UB byte addresses of their operands,
//      `ubd=`, `ubs0=`, `ubs1=`. Older traces lack them: the model then treats every GM copy as its own
//      buffer read once (no L2 reuse, no same-address reads) and finds no bank conflicts.
//   6  binary vector records of the mask/repeat forms carry `ubd= ubs0= ubs1=` whatever their strides,
//      and `ubst=<dst blk>/<dst rep>/<src0 blk>/<src0 rep>/<src1 blk>/<src1 rep>` (strides in 32-byte
//      blocks) where those are not the contiguous 1 / 8; a version-5 reader would take such a record as
//      contiguous, hence the new version. GM <-> UB copies carry `ub=<byte> ubn=<bytes>`, the UB they
//      write (MTE2) or read (MTE3), for the check of unordered copies over the same UB (race.rs).

use std::collections::{HashMap, VecDeque};
use std::fmt;

use serde::Serialize;
use thiserror::Error;

/// The trace format version the twin writes; this parser reads it and every earlier one (see the changelog
/// at the top of this file).
pub const TRACE_VERSION: u32 = 6;

/// A pipe of the AI core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Pipe {
    #[serde(rename = "MTE2")]
    Mte2,
    #[serde(rename = "MTE3")]
    Mte3,
    #[serde(rename = "V")]
    V,
    #[serde(rename = "S")]
    S,
    #[serde(rename = "MTE1")]
    Mte1,
    #[serde(rename = "M")]
    M,
    #[serde(rename = "FIX")]
    Fix,
}

impl Pipe {
    pub const ALL: [Pipe; 7] = [
        Pipe::Mte2,
        Pipe::Mte3,
        Pipe::V,
        Pipe::S,
        Pipe::Mte1,
        Pipe::M,
        Pipe::Fix,
    ];

    /// Dense index, 0..7, in the order of `ALL`.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The token the trace uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Pipe::Mte2 => "MTE2",
            Pipe::Mte3 => "MTE3",
            Pipe::V => "V",
            Pipe::S => "S",
            Pipe::Mte1 => "MTE1",
            Pipe::M => "M",
            Pipe::Fix => "FIX",
        }
    }

    pub fn parse(token: &str) -> Option<Pipe> {
        Pipe::ALL.into_iter().find(|p| p.as_str() == token)
    }
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The whole trace: blocks in the order they appear, and the interned API names and flag keys.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    pub version: u32,
    pub blocks: Vec<Block>,
    apis: Vec<String>,
    keys: Vec<String>,
}

impl Trace {
    /// The AscendC API name of an instruction.
    pub fn api_name(&self, api: u32) -> &str {
        self.apis
            .get(api as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// The flag key (e.g. "q0.b1") of a set or wait.
    pub fn key_name(&self, key: u32) -> &str {
        self.keys
            .get(key as usize)
            .map(String::as_str)
            .unwrap_or("?")
    }

    /// Interned API names; an instruction's `api` indexes this.
    pub fn apis(&self) -> &[String] {
        &self.apis
    }

    /// The launch's block_dim (every block header agrees; 0 for a trace without blocks).
    pub fn block_dim(&self) -> u32 {
        self.blocks.first().map(|b| b.block_dim).unwrap_or(0)
    }
}

/// Which core of a logical block a trace block ran on (trace version 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CoreKind {
    /// A kernel that is not mixed: one core per block.
    Single,
    /// The cube core of a mixed kernel's logical block.
    Aic,
    /// Vector core k of a mixed kernel's logical block.
    Aiv(u8),
}

/// One block's records, in program order.
#[derive(Debug, Clone)]
pub struct Block {
    pub idx: u32,
    pub block_dim: u32,
    /// The core it ran on (`Single` unless the kernel is mixed).
    pub core: CoreKind,
    /// Trace line of the `block` header.
    pub line: u32,
    pub records: Vec<Record>,
    /// Number of `set` records in the block (their `slot`s are 0..sets).
    pub sets: u32,
    /// The buffers the block carved (version 5), in carving order.
    pub carves: Vec<Carve>,
}

/// A buffer `TPipe::InitBuffer` carved: `num` buffers of `len` bytes from byte `addr` of memory `hw`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carve {
    /// `UB`, `L1`, `L0A`, `L0B`, `L0C`, `BT` or `FB`.
    pub hw: String,
    pub addr: u64,
    pub len: u64,
    pub num: u64,
    /// The InitBuffer call's source line and file, as the twin names them (project paths).
    pub src_line: u32,
    pub file: String,
}

/// Barrier scope: every pipe, or one pipe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarrierScope {
    All,
    Pipe(Pipe),
}

// Most records are instructions, so boxing them would add an allocation per record for nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Record {
    Instr(Instr),
    /// `slot`: ordinal of this set within its block.
    Set {
        src: Pipe,
        dst: Pipe,
        key: u32,
        slot: u32,
        line: u32,
    },
    /// `set_slot`: the slot of the set this wait consumes (resolved while parsing).
    Wait {
        src: Pipe,
        dst: Pipe,
        key: u32,
        set_slot: u32,
        line: u32,
    },
    Barrier {
        scope: BarrierScope,
        line: u32,
    },
    /// A cross-core set (version 4): fires when `pipe`'s earlier work is done. `key`: interned `x<scope>.<round>`.
    XSet {
        pipe: Pipe,
        key: u32,
        line: u32,
    },
    /// A cross-core wait (version 4): holds `pipe` (S: issue) until all `sets` xsets of `key` have fired.
    XWait {
        pipe: Pipe,
        key: u32,
        sets: u32,
        line: u32,
    },
}

/// The block and repeat strides, in 32-byte blocks, of a binary vector instruction's operands (`ubst=`,
/// BinaryRepeatParams' dstBlkStride, dstRepStride, src0BlkStride, ...). Absent means `CONTIGUOUS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UbStrides {
    /// (block stride, repeat stride) of dst, src0 and src1.
    pub dst: (u32, u32),
    pub src0: (u32, u32),
    pub src1: (u32, u32),
}

impl UbStrides {
    /// Every operand's 8 blocks of a repeat one after another, repeats one after another.
    pub const CONTIGUOUS: UbStrides = UbStrides {
        dst: (1, 8),
        src0: (1, 8),
        src1: (1, 8),
    };

    /// `1/8/0/1/1/8`: dst block, dst repeat, src0 block, src0 repeat, src1 block, src1 repeat.
    fn parse(v: &str) -> Option<UbStrides> {
        let n: Vec<u32> = v
            .split('/')
            .map(|p| p.parse().ok())
            .collect::<Option<_>>()?;
        let [db, dr, s0b, s0r, s1b, s1r] = n[..] else {
            return None;
        };
        Some(UbStrides {
            dst: (db, dr),
            src0: (s0b, s0r),
            src1: (s1b, s1r),
        })
    }
}

/// One instruction with the keys the model knows; absent keys are `None`.
#[derive(Debug, Clone)]
pub struct Instr {
    pub pipe: Pipe,
    /// Index into `Trace::apis`.
    pub api: u32,
    /// Line of this record in the trace.
    pub trace_line: u32,
    /// `line=`: the kernel source line that issued it (0 when absent).
    pub src_line: u32,
    /// DMA: total bytes, bursts (blockCount), bytes per burst, GM byte offset of the first burst within its
    /// allocation (allocations are 512 B aligned on the device), GM-side gap between bursts.
    pub bytes: Option<u64>,
    pub bursts: Option<u64>,
    pub burst: Option<u64>,
    pub gm: Option<u64>,
    pub gap: Option<u64>,
    /// Vector: source element bytes, destination element bytes (Cast), elements, repeats.
    pub dt: Option<u64>,
    pub dst: Option<u64>,
    pub n: Option<u64>,
    pub rep: Option<u64>,
    /// Cube: Mmad shape (m, k; `n` above is the N dimension).
    pub m: Option<u64>,
    pub k: Option<u64>,
    /// Explicit cost in cycles, when the twin knows it better than the model (extension; optional).
    pub cycles: Option<f64>,
    /// `count=`: this many identical back-to-back instructions (scalar records only; 1 when absent).
    pub count: u32,
    /// `buf=` (version 3): the GM allocation a copy reads or writes; `gm` is then the offset in it.
    pub buf: Option<u64>,
    /// `cache=` (version 3): the L2 cache-mode hint as AscendC's CacheMode value (`disable` 0, `last` 2,
    /// `persistent` 4).
    pub cache: Option<u64>,
    /// `ubd=`, `ubs0=`, `ubs1=` (version 3): UB byte addresses of a vector instruction's operands.
    pub ub_dst: Option<u64>,
    pub ub_src0: Option<u64>,
    pub ub_src1: Option<u64>,
    /// `ubst=` (version 6): the operands' block and repeat strides, where not the contiguous layout.
    pub ub_strides: Option<UbStrides>,
    /// `ub=`, `ubn=` (version 6): the UB bytes a GM <-> UB copy writes (MTE2) or reads (MTE3), from byte
    /// `ub` to the end of its last burst.
    pub ub: Option<u64>,
    pub ubn: Option<u64>,
    /// `uf=` (cube): the unitFlag of an Mmad (M) or Fixpipe (FIX), 2 or 3; absent when off. The two pipes
    /// then sync per 512-byte L0C block, not by flags (model/unitflag.rs).
    pub uf: Option<u64>,
    /// `mem=L1` (version 3): a GM -> L1 copy (the cube's MTE2), not one into the UB.
    pub to_l1: bool,
}

/// A trace that cannot be read. Every variant but `Empty` names the 1-based trace line.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TraceError {
    #[error("trace is empty: expected the header `twin-trace {TRACE_VERSION}`")]
    Empty,
    #[error("line {line}: expected the header `twin-trace {TRACE_VERSION}`, found `{found}`")]
    BadHeader { line: usize, found: String },
    #[error(
        "line {line}: trace format version {found} is newer than this tool reads ({TRACE_VERSION}); \
         upgrade cargo-ascend-tune"
    )]
    UnsupportedVersion { line: usize, found: u32 },
    #[error(
        "line {line}: unknown record type `{token}` (expected I, set, wait, xset, xwait, barrier, block or end)"
    )]
    UnknownRecord { line: usize, token: String },
    #[error("line {line}: unknown pipe `{token}` (expected MTE2, MTE3, V, S, MTE1, M or FIX)")]
    UnknownPipe { line: usize, token: String },
    #[error("line {line}: {what}")]
    Malformed { line: usize, what: String },
    #[error("line {line}: bad value `{value}` for `{key}`")]
    BadValue {
        line: usize,
        key: String,
        value: String,
    },
    #[error("line {line}: `{api}` on {pipe} needs `{key}=`")]
    MissingKey {
        line: usize,
        api: String,
        pipe: Pipe,
        key: &'static str,
    },
    #[error("line {line}: `{record}` outside a block (missing `block <idx> <block_dim>`)")]
    OutsideBlock { line: usize, record: String },
    #[error("line {line}: `block` before the block opened on line {open_line} has ended")]
    NestedBlock { line: usize, open_line: usize },
    #[error("line {line}: block {idx} never ends (missing `end`)")]
    UnterminatedBlock { line: usize, idx: u32 },
    #[error("line {line}: block {idx} appears twice")]
    DuplicateBlock { line: usize, idx: u32 },
    #[error("line {line}: block {idx} out of range for block_dim {block_dim}")]
    BlockOutOfRange {
        line: usize,
        idx: u32,
        block_dim: u32,
    },
    #[error("line {line}: block_dim {found} differs from {expected} given by earlier blocks")]
    InconsistentBlockDim {
        line: usize,
        found: u32,
        expected: u32,
    },
    #[error(
        "line {line}: unpaired flag: `wait {src} {dst} {key}` has no earlier matching `set` in block {block}"
    )]
    UnpairedFlag {
        line: usize,
        src: Pipe,
        dst: Pipe,
        key: String,
        block: u32,
    },
}

impl TraceError {
    /// The 1-based trace line the error is about.
    pub fn line(&self) -> Option<usize> {
        match self {
            TraceError::Empty => None,
            TraceError::BadHeader { line, .. }
            | TraceError::UnsupportedVersion { line, .. }
            | TraceError::UnknownRecord { line, .. }
            | TraceError::UnknownPipe { line, .. }
            | TraceError::Malformed { line, .. }
            | TraceError::BadValue { line, .. }
            | TraceError::MissingKey { line, .. }
            | TraceError::OutsideBlock { line, .. }
            | TraceError::NestedBlock { line, .. }
            | TraceError::UnterminatedBlock { line, .. }
            | TraceError::DuplicateBlock { line, .. }
            | TraceError::BlockOutOfRange { line, .. }
            | TraceError::InconsistentBlockDim { line, .. }
            | TraceError::UnpairedFlag { line, .. } => Some(*line),
        }
    }
}

fn parse_u32(line: usize, key: &str, value: &str) -> Result<u32, TraceError> {
    value.parse::<u32>().map_err(|_| TraceError::BadValue {
        line,
        key: key.into(),
        value: value.into(),
    })
}

fn parse_u64(line: usize, key: &str, value: &str) -> Result<u64, TraceError> {
    value.parse::<u64>().map_err(|_| TraceError::BadValue {
        line,
        key: key.into(),
        value: value.into(),
    })
}

fn pipe_token(line: usize, token: Option<&str>, what: &str) -> Result<Pipe, TraceError> {
    let token = token.ok_or_else(|| TraceError::Malformed {
        line,
        what: format!("missing {what}"),
    })?;
    Pipe::parse(token).ok_or_else(|| TraceError::UnknownPipe {
        line,
        token: token.into(),
    })
}

fn intern(table: &mut Vec<String>, index: &mut HashMap<String, u32>, name: &str) -> u32 {
    if let Some(&id) = index.get(name) {
        return id;
    }
    let id = table.len() as u32;
    table.push(name.to_string());
    index.insert(name.to_string(), id);
    id
}

struct OpenBlock {
    block: Block,
    pending: HashMap<(Pipe, Pipe, u32), VecDeque<u32>>,
}

/// A `carve <hw> <addr> <len> <num> line=<L> file=<F>` record (the file runs to the end of the line).
fn parse_carve(no: usize, raw: &str) -> Result<Carve, TraceError> {
    let malformed = || TraceError::Malformed {
        line: no,
        what: "expected `carve <hw> <addr> <len> <num> line=<L> file=<F>`".into(),
    };
    let (head, file) = raw.split_once(" file=").ok_or_else(malformed)?;
    let mut tok = head.split_ascii_whitespace().skip(1);
    let hw = tok.next().ok_or_else(malformed)?.to_string();
    let mut num = |what: &str| -> Result<u64, TraceError> {
        parse_u64(no, what, tok.next().ok_or_else(malformed)?)
    };
    let (addr, len, count) = (num("addr")?, num("len")?, num("num")?);
    let src_line = match tok.next().and_then(|t| t.strip_prefix("line=")) {
        Some(l) => parse_u32(no, "line", l)?,
        None => return Err(malformed()),
    };
    Ok(Carve {
        hw,
        addr,
        len,
        num: count,
        src_line,
        file: file.trim_end().to_string(),
    })
}

/// Parses a twin trace of any version up to `TRACE_VERSION`.
pub fn parse(text: &str) -> Result<Trace, TraceError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (first_no, first) = loop {
        match lines.next() {
            None => return Err(TraceError::Empty),
            Some((_, l)) if l.trim().is_empty() => continue,
            Some(pair) => break pair,
        }
    };
    let mut head = first.split_ascii_whitespace();
    let version = match (head.next(), head.next(), head.next()) {
        (Some("twin-trace"), Some(v), None) => match v.parse::<u32>() {
            Ok(v) if (1..=TRACE_VERSION).contains(&v) => v,
            Ok(v) if v > TRACE_VERSION => {
                return Err(TraceError::UnsupportedVersion {
                    line: first_no,
                    found: v,
                });
            }
            _ => {
                return Err(TraceError::BadHeader {
                    line: first_no,
                    found: first.trim().into(),
                });
            }
        },
        _ => {
            return Err(TraceError::BadHeader {
                line: first_no,
                found: first.trim().into(),
            });
        }
    };

    let mut trace = Trace {
        version,
        ..Trace::default()
    };
    let mut api_index: HashMap<String, u32> = HashMap::new();
    let mut key_index: HashMap<String, u32> = HashMap::new();
    let mut seen: HashMap<(u32, CoreKind), usize> = HashMap::new();
    let mut open: Option<OpenBlock> = None;

    for (no, raw) in lines {
        let mut tok = raw.split_ascii_whitespace();
        let Some(kind) = tok.next() else { continue };
        let line32 = no.min(u32::MAX as usize) as u32;
        match kind {
            "block" => {
                if let Some(o) = &open {
                    return Err(TraceError::NestedBlock {
                        line: no,
                        open_line: o.block.line as usize,
                    });
                }
                let idx_tok = tok.next();
                let dim_tok = tok.next();
                let core_tok = tok.next();
                let (Some(idx_tok), Some(dim_tok), None) = (idx_tok, dim_tok, tok.next()) else {
                    return Err(TraceError::Malformed {
                        line: no,
                        what: "expected `block <idx> <block_dim> [aic|aiv<k>]`".into(),
                    });
                };
                let core = match core_tok {
                    None => CoreKind::Single,
                    Some("aic") => CoreKind::Aic,
                    Some(t) => match t.strip_prefix("aiv").and_then(|k| k.parse::<u8>().ok()) {
                        Some(k) => CoreKind::Aiv(k),
                        None => {
                            return Err(TraceError::Malformed {
                                line: no,
                                what: format!("unknown core kind `{t}` (expected aic or aiv<k>)"),
                            });
                        }
                    },
                };
                let idx = parse_u32(no, "block idx", idx_tok)?;
                let block_dim = parse_u32(no, "block_dim", dim_tok)?;
                if block_dim == 0 || idx >= block_dim {
                    return Err(TraceError::BlockOutOfRange {
                        line: no,
                        idx,
                        block_dim,
                    });
                }
                if let Some(first) = trace.blocks.first() {
                    if first.block_dim != block_dim {
                        return Err(TraceError::InconsistentBlockDim {
                            line: no,
                            found: block_dim,
                            expected: first.block_dim,
                        });
                    }
                }
                if seen.insert((idx, core), no).is_some() {
                    return Err(TraceError::DuplicateBlock { line: no, idx });
                }
                open = Some(OpenBlock {
                    block: Block {
                        idx,
                        block_dim,
                        core,
                        line: line32,
                        records: Vec::new(),
                        sets: 0,
                        carves: Vec::new(),
                    },
                    pending: HashMap::new(),
                });
            }
            "end" => {
                let Some(o) = open.take() else {
                    return Err(TraceError::OutsideBlock {
                        line: no,
                        record: "end".into(),
                    });
                };
                if tok.next().is_some() {
                    return Err(TraceError::Malformed {
                        line: no,
                        what: "`end` takes no arguments".into(),
                    });
                }
                trace.blocks.push(o.block);
            }
            "carve" => {
                let Some(o) = open.as_mut() else {
                    return Err(TraceError::OutsideBlock {
                        line: no,
                        record: kind.into(),
                    });
                };
                o.block.carves.push(parse_carve(no, raw)?);
            }
            "I" | "set" | "wait" | "barrier" | "xset" | "xwait" => {
                let Some(o) = open.as_mut() else {
                    return Err(TraceError::OutsideBlock {
                        line: no,
                        record: kind.into(),
                    });
                };
                let record = match kind {
                    "I" => {
                        let pipe = pipe_token(no, tok.next(), "pipe")?;
                        let api_tok = tok.next().ok_or_else(|| TraceError::Malformed {
                            line: no,
                            what: "missing API name".into(),
                        })?;
                        let api = intern(&mut trace.apis, &mut api_index, api_tok);
                        let mut ins = Instr {
                            pipe,
                            api,
                            trace_line: line32,
                            src_line: 0,
                            bytes: None,
                            bursts: None,
                            burst: None,
                            gm: None,
                            gap: None,
                            dt: None,
                            dst: None,
                            n: None,
                            rep: None,
                            m: None,
                            k: None,
                            cycles: None,
                            count: 1,
                            buf: None,
                            cache: None,
                            ub_dst: None,
                            ub_src0: None,
                            ub_src1: None,
                            ub_strides: None,
                            ub: None,
                            ubn: None,
                            uf: None,
                            to_l1: false,
                        };
                        for kv in tok {
                            let Some((key, value)) = kv.split_once('=') else {
                                return Err(TraceError::Malformed {
                                    line: no,
                                    what: format!("expected key=value, found `{kv}`"),
                                });
                            };
                            let slot = match key {
                                "bytes" => &mut ins.bytes,
                                "bursts" => &mut ins.bursts,
                                "burst" => &mut ins.burst,
                                "gm" => &mut ins.gm,
                                "gap" => &mut ins.gap,
                                "dt" => &mut ins.dt,
                                "dst" => &mut ins.dst,
                                "n" => &mut ins.n,
                                "rep" => &mut ins.rep,
                                "m" => &mut ins.m,
                                "k" => &mut ins.k,
                                "buf" => &mut ins.buf,
                                "cache" => {
                                    // The twin writes the mode's name; a CacheMode number is read too.
                                    ins.cache = Some(match value {
                                        "disable" => 0,
                                        "normal" => 1,
                                        "last" => 2,
                                        "persistent" => 4,
                                        v => parse_u64(no, key, v)?,
                                    });
                                    continue;
                                }
                                "ubd" => &mut ins.ub_dst,
                                "ubs0" => &mut ins.ub_src0,
                                "ubs1" => &mut ins.ub_src1,
                                "ub" => &mut ins.ub,
                                "ubn" => &mut ins.ubn,
                                "ubst" => {
                                    ins.ub_strides = Some(UbStrides::parse(value).ok_or_else(|| {
                                        TraceError::Malformed {
                                            line: no,
                                            what: format!(
                                                "ubst={value}: expected six strides in blocks, `<dst blk>/<dst rep>/<src0 blk>/<src0 rep>/<src1 blk>/<src1 rep>`"
                                            ),
                                        }
                                    })?);
                                    continue;
                                }
                                "uf" => &mut ins.uf,
                                "mem" => {
                                    ins.to_l1 = value == "L1";
                                    continue;
                                }
                                "line" => {
                                    ins.src_line = parse_u32(no, key, value)?;
                                    continue;
                                }
                                "count" => {
                                    let n = parse_u32(no, key, value)?;
                                    if n == 0 || pipe != Pipe::S {
                                        return Err(TraceError::Malformed {
                                            line: no,
                                            what: format!(
                                                "count={n}: a repeat count must be at least 1, and only scalar (S) records carry one"
                                            ),
                                        });
                                    }
                                    ins.count = n;
                                    continue;
                                }
                                "cycles" => {
                                    let c = value
                                        .parse::<f64>()
                                        .ok()
                                        .filter(|c| c.is_finite() && *c >= 0.0);
                                    ins.cycles = Some(c.ok_or_else(|| TraceError::BadValue {
                                        line: no,
                                        key: key.into(),
                                        value: value.into(),
                                    })?);
                                    continue;
                                }
                                _ => continue, // unknown keys: the format grows
                            };
                            *slot = Some(parse_u64(no, key, value)?);
                        }
                        if matches!(pipe, Pipe::Mte2 | Pipe::Mte3)
                            && ins.bytes.is_none()
                            && ins.cycles.is_none()
                        {
                            return Err(TraceError::MissingKey {
                                line: no,
                                api: api_tok.into(),
                                pipe,
                                key: "bytes",
                            });
                        }
                        Record::Instr(ins)
                    }
                    "xset" | "xwait" => {
                        let pipe = pipe_token(no, tok.next(), "pipe")?;
                        let key_tok = tok.next().ok_or_else(|| TraceError::Malformed {
                            line: no,
                            what: "missing cross-core flag key".into(),
                        })?;
                        let key = intern(&mut trace.keys, &mut key_index, key_tok);
                        if kind == "xset" {
                            if tok.next().is_some() {
                                return Err(TraceError::Malformed {
                                    line: no,
                                    what: "`xset <pipe> <key>` takes two arguments".into(),
                                });
                            }
                            Record::XSet {
                                pipe,
                                key,
                                line: line32,
                            }
                        } else {
                            let n_tok = tok.next().and_then(|t| t.strip_prefix('n'));
                            let (Some(n_tok), None) = (n_tok, tok.next()) else {
                                return Err(TraceError::Malformed {
                                    line: no,
                                    what: "expected `xwait <pipe> <key> n<sets>`".into(),
                                });
                            };
                            let sets = parse_u32(no, "xwait sets", n_tok)?;
                            Record::XWait {
                                pipe,
                                key,
                                sets,
                                line: line32,
                            }
                        }
                    }
                    "set" | "wait" => {
                        let src = pipe_token(no, tok.next(), "source pipe")?;
                        let dst = pipe_token(no, tok.next(), "destination pipe")?;
                        let key_tok = tok.next().ok_or_else(|| TraceError::Malformed {
                            line: no,
                            what: "missing flag key".into(),
                        })?;
                        if tok.next().is_some() {
                            return Err(TraceError::Malformed {
                                line: no,
                                what: format!("`{kind} <src> <dst> <key>` takes three arguments"),
                            });
                        }
                        let key = intern(&mut trace.keys, &mut key_index, key_tok);
                        if kind == "set" {
                            let slot = o.block.sets;
                            o.block.sets += 1;
                            o.pending
                                .entry((src, dst, key))
                                .or_default()
                                .push_back(slot);
                            Record::Set {
                                src,
                                dst,
                                key,
                                slot,
                                line: line32,
                            }
                        } else {
                            let Some(set_slot) = o
                                .pending
                                .get_mut(&(src, dst, key))
                                .and_then(|q| q.pop_front())
                            else {
                                return Err(TraceError::UnpairedFlag {
                                    line: no,
                                    src,
                                    dst,
                                    key: key_tok.into(),
                                    block: o.block.idx,
                                });
                            };
                            Record::Wait {
                                src,
                                dst,
                                key,
                                set_slot,
                                line: line32,
                            }
                        }
                    }
                    _ => {
                        let t = tok.next().ok_or_else(|| TraceError::Malformed {
                            line: no,
                            what: "missing barrier pipe".into(),
                        })?;
                        if tok.next().is_some() {
                            return Err(TraceError::Malformed {
                                line: no,
                                what: "`barrier <pipe>` takes one argument".into(),
                            });
                        }
                        if t == "NONE" {
                            continue; // the twin's PIPE_NONE (a pipe it does not model): no-op
                        }
                        let scope = if t == "ALL" {
                            BarrierScope::All
                        } else {
                            BarrierScope::Pipe(Pipe::parse(t).ok_or_else(|| {
                                TraceError::UnknownPipe {
                                    line: no,
                                    token: t.into(),
                                }
                            })?)
                        };
                        Record::Barrier {
                            scope,
                            line: line32,
                        }
                    }
                };
                o.block.records.push(record);
            }
            other => {
                return Err(TraceError::UnknownRecord {
                    line: no,
                    token: other.into(),
                });
            }
        }
    }
    if let Some(o) = open {
        return Err(TraceError::UnterminatedBlock {
            line: o.block.line as usize,
            idx: o.block.idx,
        });
    }
    Ok(trace)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carves_are_kept_beside_the_records_with_their_file_to_the_end_of_the_line() {
        let t = parse(
            "twin-trace 5\nblock 0 1\ncarve UB 0 8192 2 line=90 file=op_kernel/my op.h\n\
             carve UB 16384 27648 1 line=94 file=op_kernel/k.h\nI V Add dt=4 n=64 rep=1 line=7\nend\n",
        )
        .unwrap();
        let b = &t.blocks[0];
        assert_eq!(b.records.len(), 1);
        assert_eq!(
            b.carves[0],
            Carve {
                hw: "UB".into(),
                addr: 0,
                len: 8192,
                num: 2,
                src_line: 90,
                file: "op_kernel/my op.h".into()
            }
        );
        assert_eq!((b.carves[1].addr, b.carves[1].len), (16384, 27648));
        let bad = parse("twin-trace 5\nblock 0 1\ncarve UB 0 8192 line=1 file=x.h\nend\n");
        assert_eq!(bad.unwrap_err().line(), Some(3));
    }

    #[test]
    fn parses_records_and_ignores_unknown_keys() {
        let t = parse(
            "twin-trace 1\nblock 0 2\nI MTE2 DataCopy bytes=1024 bursts=1 burst=1024 gm=0 gap=0 line=12 future=7\n\
             set MTE2 V q0.b0\nwait MTE2 V q0.b0\nI V Add dt=2 n=512 rep=4 line=20\nbarrier ALL\nbarrier V\nend\n\
             \nblock 1 2\nI S GetValue line=3\nend\n",
        )
        .unwrap();
        assert_eq!(t.blocks.len(), 2);
        assert_eq!(t.block_dim(), 2);
        let Record::Instr(i) = &t.blocks[0].records[0] else {
            panic!()
        };
        assert_eq!(
            (i.pipe, i.bytes, i.src_line, i.trace_line),
            (Pipe::Mte2, Some(1024), 12, 3)
        );
        assert_eq!(t.api_name(i.api), "DataCopy");
        let Record::Wait { set_slot, key, .. } = &t.blocks[0].records[2] else {
            panic!()
        };
        assert_eq!((*set_slot, t.key_name(*key)), (0, "q0.b0"));
    }

    #[test]
    fn version_3_keys_are_read_and_older_traces_still_parse() {
        let t = parse(
            "twin-trace 3\nblock 0 1\nI MTE2 DataCopy bytes=512 bursts=1 burst=512 gm=1024 gap=0 buf=2 cache=disable mem=L1 nd2nz=1 line=4\n\
             I V Add dt=2 n=128 rep=1 ubd=65536 ubs0=0 ubs1=32768 line=5\nend\n",
        )
        .unwrap();
        assert_eq!(t.version, 3);
        let Record::Instr(copy) = &t.blocks[0].records[0] else {
            panic!()
        };
        assert_eq!(
            (copy.buf, copy.gm, copy.cache),
            (Some(2), Some(1024), Some(0))
        );
        let Record::Instr(add) = &t.blocks[0].records[1] else {
            panic!()
        };
        assert_eq!(
            (add.ub_dst, add.ub_src0, add.ub_src1),
            (Some(65536), Some(0), Some(32768))
        );
        for v in [1, 2] {
            let t = parse(&format!(
                "twin-trace {v}\nblock 0 1\nI MTE2 DataCopy bytes=512 gm=0 line=1\nend\n"
            ))
            .unwrap();
            let Record::Instr(i) = &t.blocks[0].records[0] else {
                panic!()
            };
            assert_eq!((t.version, i.buf, i.cache), (v, None, None));
        }
    }

    #[test]
    fn errors_carry_line_numbers() {
        let cases: &[(&str, usize)] = &[
            ("twin-trace 1\nblock 0 1\nfrob x\nend\n", 3),
            ("twin-trace 1\nblock 0 1\nI Q Add\nend\n", 3),
            ("twin-trace 1\nblock 0 1\nI V Add dt=two\nend\n", 3),
            ("twin-trace 1\nblock 0 1\n\nI MTE2 DataCopy gm=0\nend\n", 4),
            ("twin-trace 1\nI V Add dt=2\n", 2),
            ("twin-trace 1\nblock 0 1\nI V Add\n", 2),
            ("twin-trace 1\nblock 0 2\nend\nblock 0 2\nend\n", 4),
            ("twin-trace 1\nblock 0 2\nend\nblock 1 4\nend\n", 4),
            ("twin-trace 1\nblock 3 2\nend\n", 2),
            ("twin-trace 1\nblock 0 1\nblock 1 1\n", 3),
            ("twin-trace 1\nblock 0 1\nI V Add oops\nend\n", 3),
            ("trace 1\n", 1),
            ("\n\ntwin-trace 99\n", 3),
            ("twin-trace 4\nblock 0 1 gpu\nend\n", 2),
            ("twin-trace 4\nblock 0 1 aic\nend\nblock 0 1 aic\nend\n", 4),
            ("twin-trace 4\nblock 0 1 aiv0\nxwait S x0.0\nend\n", 3),
            ("twin-trace 4\nblock 0 1 aiv0\nxset S x0.0 n1\nend\n", 3),
            ("twin-trace 2\nblock 0 1\nI V Add dt=2 count=2\nend\n", 3),
            ("twin-trace 2\nblock 0 1\nI S GetValue count=0\nend\n", 3),
            ("twin-trace 2\nblock 0 1\nI S GetValue count=x\nend\n", 3),
            (
                "twin-trace 3\nblock 0 1\nI MTE2 DataCopy bytes=1 cache=often\nend\n",
                3,
            ),
        ];
        for (text, line) in cases {
            let err = parse(text).unwrap_err();
            assert_eq!(err.line(), Some(*line), "{text:?}: {err}");
            assert!(
                err.to_string().starts_with(&format!("line {line}:")),
                "{err}"
            );
        }
        assert_eq!(parse("").unwrap_err(), TraceError::Empty);
        assert!(matches!(
            parse("twin-trace 99\n").unwrap_err(),
            TraceError::UnsupportedVersion { found: 99, .. }
        ));
    }

    #[test]
    fn unpaired_wait_is_an_error() {
        let text = "twin-trace 1\nblock 0 1\nset MTE2 V e0\nwait MTE2 V e0\nwait MTE2 V e0\nend\n";
        let err = parse(text).unwrap_err();
        assert!(
            matches!(err, TraceError::UnpairedFlag { line: 5, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("unpaired flag"), "{err}");
        // A set in another block does not pair.
        let text = "twin-trace 1\nblock 0 2\nset V MTE3 e1\nend\nblock 1 2\nwait V MTE3 e1\nend\n";
        assert_eq!(parse(text).unwrap_err().line(), Some(6));
        // Keys and pipe pairs must both match.
        let text = "twin-trace 1\nblock 0 1\nset V MTE3 e1\nwait V MTE2 e1\nend\n";
        assert_eq!(parse(text).unwrap_err().line(), Some(4));
    }
}
