//! How much of the AscendC API that real operators use the C++ twin (`templates/twin/`) accepts.
//!
//! Owns the coverage tables: for every name among the 150 most used kernel-side names and every
//! host-side name used by 10 or more of the 81 public operators ranked in `API_RANK.md` (the ranking
//! the project keeps beside its design notes), either a tiny C++ use that must compile against the
//! twin headers, or the reason the twin leaves it out (some cube names and the SoftMax / LayerNorm
//! high-level APIs). All uses of one side compile in one translation unit
//! (one compiler call per side); a failing use is named with the compiler's message. The test prints
//! the coverage counts. It knows nothing of the tool's Rust side: it calls the C++ compiler directly.
//!
//! The semantics of what these names do are checked with numbers elsewhere: `tests/api_semantics.rs`
//! runs kernels against references computed in Rust.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where a use goes in the generated translation unit.
#[derive(Clone, Copy, PartialEq)]
enum Scope {
    /// Inside a function body (kernel: `GM_ADDR x, GM_ADDR tiling` in scope; host: `context`,
    /// `shapeCtx`, `dtypeCtx`, `parseCtx` pointers in scope).
    Body,
    /// At namespace scope, before every function.
    Global,
}
use Scope::{Body, Global};

/// A ranked API name and the C++ that uses it.
struct Use {
    rank: u32,
    name: &'static str,
    scope: Scope,
    code: &'static str,
}

const fn u(rank: u32, name: &'static str, scope: Scope, code: &'static str) -> Use {
    Use {
        rank,
        name,
        scope,
        code,
    }
}

/// A ranked name the twin does not provide, and why.
struct Skip {
    rank: u32,
    name: &'static str,
    why: &'static str,
}

const fn s(rank: u32, name: &'static str, why: &'static str) -> Skip {
    Skip { rank, name, why }
}

const HIGH_LEVEL: &str = "SoftMax / LayerNorm / RmsNorm high-level API (out of the twin's scope)";

/// How many top kernel-side names the issue asks for, and the host-side threshold (operators).
const KERNEL_TOP: u32 = 150;
const HOST_TOP: u32 = 96; // rank 96 (`ge::DT_INT8`) is the last host name used by 10 or more operators

const KERNEL_PRELUDE: &str = r#"
#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "lib/matmul_intf.h"
#include "ascendc/host_api/tiling/template_argument.h"
using namespace AscendC;
namespace cov {
LocalTensor<float> xf, yf, zf;
LocalTensor<half> xh, yh, zh;
LocalTensor<bfloat16_t> xb;
LocalTensor<uint8_t> m8;
LocalTensor<int32_t> xi;
LocalTensor<int16_t> xs;
GlobalTensor<float> gf;
GlobalTensor<half> gh;
GlobalTensor<int32_t> gi;
struct CovTilingData { uint32_t n; uint32_t tile; };
}
using namespace cov;
"#;

#[rustfmt::skip]
const KERNEL: &[Use] = &[
    u(1, "GlobalTensor", Body, "GlobalTensor<half> g; (void)g.GetSize();"),
    u(2, "SetGlobalBuffer", Body, "GlobalTensor<half> g; g.SetGlobalBuffer((__gm__ half *)x, 1024); g.SetGlobalBuffer((__gm__ half *)x);"),
    u(3, "LocalTensor", Body, "LocalTensor<float> t = xf; (void)t;"),
    u(4, "__aicore__", Global, "__aicore__ inline int CovAicore() { return 1; }"),
    u(5, "AscendC", Body, "AscendC::LocalTensor<float> t; (void)t;"),
    u(6, "TPipe", Body, "TPipe pipe; (void)pipe;"),
    u(7, "InitBuffer", Body, "TPipe pipe; TQue<QuePosition::VECIN, 2> q; pipe.InitBuffer(q, 2, 1024); TBuf<TPosition::VECCALC> b; pipe.InitBuffer(b, 512);"),
    u(8, "GM_ADDR", Global, "extern \"C\" __global__ __aicore__ void cov_entry(GM_ADDR a, GM_ADDR b, GM_ADDR workspace, GM_ADDR tiling) { (void)a; (void)b; (void)workspace; (void)tiling; }"),
    u(9, "EnQue", Body, "TQue<QuePosition::VECIN, 1> q; LocalTensor<float> t = q.AllocTensor<float>(); q.EnQue(t); q.EnQue<float>(t);"),
    u(10, "TQue", Body, "TQue<TPosition::VECOUT, 2> q; (void)q;"),
    u(11, "AllocTensor", Body, "TQue<QuePosition::VECIN, 1> q; LocalTensor<half> t = q.AllocTensor<half>(); (void)t;"),
    u(12, "FreeTensor", Body, "TQue<QuePosition::VECIN, 1> q; LocalTensor<half> t = q.DeQue<half>(); q.FreeTensor(t);"),
    u(13, "DeQue", Body, "TQue<QuePosition::VECOUT, 1> q; LocalTensor<half> t = q.DeQue<half>(); (void)t;"),
    u(14, "GetBlockIdx", Body, "int64_t b = GetBlockIdx() + AscendC::GetBlockIdx(); (void)b;"),
    u(15, "VECIN", Body, "TQue<QuePosition::VECIN, 1> q; (void)q;"),
    u(16, "DataCopy", Body, "DataCopy(xf, gf, 64); DataCopy(gf, xf, 64); DataCopy(yf, xf, 64); DataCopyParams p(2, 1, 0, 0); DataCopy(xf, gf, p); DataCopy(gf, xf, p);"),
    u(17, "QuePosition", Body, "QuePosition p = QuePosition::VECOUT; (void)p;"),
    u(18, "VECOUT", Body, "TQue<QuePosition::VECOUT, 2> q; (void)q;"),
    u(19, "TBuf", Body, "TBuf<QuePosition::VECCALC> b; LocalTensor<float> t = b.Get<float>(); LocalTensor<half> h = b.Get<half>(128); (void)t; (void)h;"),
    u(20, "VECCALC", Body, "TBuf<TPosition::VECCALC> b; (void)b;"),
    u(21, "GetBlockNum", Body, "int64_t n = GetBlockNum(); (void)n;"),
    u(22, "GET_TILING_DATA", Body, "GET_TILING_DATA(td, tiling); (void)td.n;"),
    u(23, "half", Body, "half h = 1.5f; half k = h * half(2.0f); float f = h + k; (void)f;"),
    u(24, "Cast", Body, "Cast(xf, xh, RoundMode::CAST_NONE, 64); Cast(xh, xf, RoundMode::CAST_RINT, 64); Cast(xi, xf, RoundMode::CAST_ROUND, 64);"),
    u(25, "CAST_NONE", Body, "RoundMode m = RoundMode::CAST_NONE; (void)m;"),
    u(26, "RoundMode", Body, "AscendC::RoundMode m = AscendC::RoundMode::CAST_FLOOR; (void)m;"),
    u(27, "ASSERT", Body, "uint32_t n = 1; ASSERT(n > 0 && \"n must be positive\"); (void)n;"),
    u(28, "TPosition", Body, "TPosition p = TPosition::VECIN; (void)p;"),
    u(29, "TILING_KEY_IS", Body, "if (TILING_KEY_IS(1)) { return; } else if (TILING_KEY_IS(2)) { return; }"),
    u(30, "Muls", Body, "Muls(xf, yf, 2.0f, 64); Muls(xh, yh, (half)2.0f, 64);"),
    u(31, "Add", Body, "Add(xf, yf, zf, 64); Add(xh, yh, zh, 128); BinaryRepeatParams p; Add(xf, yf, zf, 64, 1, p);"),
    u(32, "GetValue", Body, "float v = xf.GetValue(0); half w = gh.GetValue(1); (void)v; (void)w;"),
    u(33, "Duplicate", Body, "Duplicate(xf, 0.0f, 64); Duplicate<half>(xh, (half)1.0f, 128);"),
    u(34, "CAST_RINT", Body, "RoundMode m = RoundMode::CAST_RINT; (void)m;"),
    u(35, "PipeBarrier", Body, "PipeBarrier<PIPE_V>(); PipeBarrier<PIPE_ALL>();"),
    u(36, "DataCopyPad", Body, "DataCopyExtParams p{1, 60, 0, 0, 0}; DataCopyPadExtParams<float> pp{false, 0, 0, 0.0f}; DataCopyPad(xf, gf, p, pp); DataCopyPad(gf, xf, p); uint16_t len = 60; DataCopyPad(gf, xf, {1, len, 0, 0});"),
    u(37, "Mul", Body, "Mul(xf, yf, zf, 64);"),
    u(38, "Adds", Body, "Adds(xf, yf, 1.0f, 64);"),
    u(39, "SetValue", Body, "xf.SetValue(0, 1.0f); gh.SetValue(0, (half)2.0f);"),
    u(40, "REGISTER_TILING_DEFAULT", Global, "REGISTER_TILING_DEFAULT(cov::CovTilingData);"),
    u(41, "GET_TILING_DATA_WITH_STRUCT", Body, "REGISTER_TILING_DEFAULT(cov::CovTilingData); GET_TILING_DATA_WITH_STRUCT(cov::CovTilingData, td, tiling); GET_TILING_DATA(te, tiling); (void)td.tile; (void)te.n;"),
    u(42, "ASCENDC_TPL_ARGS_DECL", Global, "ASCENDC_TPL_ARGS_DECL(CovTpl, ASCENDC_TPL_UINT_DECL(MODE, ASCENDC_TPL_2_BW, ASCENDC_TPL_UI_LIST, 0, 1, 2));"),
    u(43, "ASCENDC_TPL_ARGS_SEL", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 0, 1)));"),
    u(44, "ASCENDC_TPL_SEL", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 2)));"),
    u(45, "ASCENDC_TPL_UI_LIST", Body, "int l = ASCENDC_TPL_UI_LIST; (void)l;"),
    u(46, "ASCENDC_TPL_UINT_SEL", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 1)));"),
    u(47, "ASCENDC_TPL_UINT_DECL", Body, "/* declared by the ASCENDC_TPL_ARGS_DECL use (one per translation unit) */ int w = ASCENDC_TPL_2_BW; (void)w;"),
    u(48, "Div", Body, "Div(xf, yf, zf, 64);"),
    u(49, "Exp", Body, "Exp(xf, yf, 64); Exp(xh, yh, 128);"),
    u(50, "WaitFlag", Body, "WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);"),
    u(51, "SetFlag", Body, "SetFlag<HardEvent::MTE2_V>(EVENT_ID0);"),
    u(52, "HardEvent", Body, "HardEvent e = HardEvent::V_MTE3; (void)e;"),
    u(53, "DataCopyExtParams", Body, "DataCopyExtParams p; p.blockCount = 2; p.blockLen = 100; p.srcStride = 4; p.dstStride = 0; (void)p;"),
    u(54, "DataCopyPadExtParams", Body, "DataCopyPadExtParams<half> p{true, 1, 2, (half)0.0f}; (void)p;"),
    u(55, "Sub", Body, "Sub(xf, yf, zf, 64);"),
    u(56, "ReinterpretCast", Body, "LocalTensor<int32_t> t = xf.ReinterpretCast<int32_t>(); GlobalTensor<uint8_t> g = gf.ReinterpretCast<uint8_t>(); (void)t; (void)g;"),
    u(57, "MTE2_V", Body, "HardEvent e = HardEvent::MTE2_V; (void)e;"),
    u(58, "DataCopyParams", Body, "DataCopyParams p; p.blockCount = 1; p.blockLen = 2; p.srcStride = 0; p.dstStride = 0; DataCopy(xf, gf, p);"),
    u(59, "V_MTE3", Body, "SetFlag<HardEvent::V_MTE3>(1); WaitFlag<HardEvent::V_MTE3>(1);"),
    u(60, "Mins", Body, "Mins(xf, yf, 6.0f, 64);"),
    u(61, "ReduceSum", Body, "ReduceSum(xf, yf, zf, 64); ReduceSum<float>(xf, yf, zf, 64, 1, 8);"),
    u(62, "FetchEventID", Body, "TPipe pipe; TEventID e = pipe.FetchEventID(HardEvent::V_S); TEventID f = GetTPipePtr()->FetchEventID<HardEvent::S_V>(); SetFlag<HardEvent::V_S>(e); WaitFlag<HardEvent::V_S>(e); (void)f;"),
    u(63, "GetTPipePtr", Body, "TPipe *p = GetTPipePtr(); (void)p;"),
    u(64, "SyncAll", Body, "SyncAll(); SyncAll<true>();"),
    u(65, "CAST_ROUND", Body, "RoundMode m = RoundMode::CAST_ROUND; (void)m;"),
    u(66, "GM", Body, "TPosition p = TPosition::GM; (void)p;"),
    u(67, "SetAtomicNone", Body, "SetAtomicNone();"),
    u(68, "Sqrt", Body, "Sqrt(xf, yf, 64);"),
    u(69, "Maxs", Body, "Maxs(xf, yf, 0.0f, 64);"),
    u(70, "CMPMODE", Body, "Compare(m8, xf, yf, CMPMODE::LT, 64);"),
    u(71, "KERNEL_TASK_TYPE_DEFAULT", Body, "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);"),
    u(72, "Select", Body, "Select(xf, m8, yf, zf, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64); Select(xf, m8, yf, 0.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, 64);"),
    u(79, "Abs", Body, "Abs(xf, yf, 64);"),
    u(80, "SELMODE", Body, "SELMODE m = SELMODE::VSEL_CMPMASK_SPR; (void)m;"),
    u(81, "DataCopyPadParams", Body, "DataCopyParams p{1, 60, 0, 0}; DataCopyPadParams pp{true, 0, 1, 0}; DataCopyPad(xf, gf, p, pp);"),
    u(83, "GetSysWorkSpacePtr", Body, "GM_ADDR w = GetSysWorkSpacePtr(); (void)w;"),
    u(84, "SetAtomicAdd", Body, "SetAtomicAdd<float>(); DataCopy(gf, xf, 64); SetAtomicNone();"),
    u(85, "__NPU_ARCH__", Body, "#if __NPU_ARCH__ == 2201\n int a = 1; (void)a;\n#endif"),
    u(86, "IsSameType", Body, "static_assert(IsSameType<half, half>::value && !IsSameType<half, float>::value, \"\");"),
    u(87, "KERNEL_TYPE_AIV_ONLY", Body, "KERNEL_TASK_TYPE(1, KERNEL_TYPE_AIV_ONLY);"),
    u(88, "Max", Body, "Max(xf, yf, zf, 64);"),
    u(92, "WholeReduceSum", Body, "WholeReduceSum<float>(xf, yf, 64, 2, 1, 1, 8);"),
    u(93, "MTE3_V", Body, "SetFlag<HardEvent::MTE3_V>(0); WaitFlag<HardEvent::MTE3_V>(0);"),
    u(94, "V_MTE2", Body, "SetFlag<HardEvent::V_MTE2>(0); WaitFlag<HardEvent::V_MTE2>(0);"),
    u(95, "MaskReg", Body, "MicroAPI::MaskReg m = MicroAPI::CreateMask<float>(); (void)m;"),
    u(96, "RegTensor", Body, "MicroAPI::RegTensor<float> r; (void)r;"),
    u(97, "UpdateMask", Body, "uint32_t n = 100; MicroAPI::MaskReg m = MicroAPI::UpdateMask<float>(n); (void)m;"),
    u(98, "GetPhyAddr", Body, "__ubuf__ float *p = (__ubuf__ float *)xf.GetPhyAddr(); __gm__ float *q = gf.GetPhyAddr(); (void)p; (void)q;"),
    u(99, "InitSocState", Body, "InitSocState();"),
    u(101, "B1", Body, "TQue<TPosition::B1, 1> q; (void)q;"),
    u(102, "A1", Body, "TQue<TPosition::A1, 1> q; (void)q;"),
    u(104, "BroadCast", Body, "const uint32_t dst[2] = {16, 8}; const uint32_t src[2] = {16, 1}; BroadCast<float, 2, 1>(xf, yf, dst, src);"),
    u(105, "TQueBind", Body, "TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> q; (void)q;"),
    u(106, "CompareScalar", Body, "CompareScalar(m8, xf, 0.5f, CMPMODE::GT, 64);"),
    u(107, "ReduceMax", Body, "ReduceMax(xf, yf, zf, 64, false); ReduceMax<float>(xf, yf, zf, 64, 1, 8, true);"),
    u(108, "S_V", Body, "SetFlag<HardEvent::S_V>(0); WaitFlag<HardEvent::S_V>(0);"),
    u(109, "V_S", Body, "SetFlag<HardEvent::V_S>(0); WaitFlag<HardEvent::V_S>(0);"),
    u(110, "S_MTE3", Body, "SetFlag<HardEvent::S_MTE3>(0); WaitFlag<HardEvent::S_MTE3>(0);"),
    u(111, "MTE3_S", Body, "SetFlag<HardEvent::MTE3_S>(0); WaitFlag<HardEvent::MTE3_S>(0);"),
    u(112, "AlignUp", Body, "static_assert(AlignUp(33, 32) == 64, \"\"); uint32_t a = AlignUp(x != nullptr, 16); (void)a;"),
    u(113, "Nd2NzParams", Body, "Nd2NzParams p; p.ndNum = 1; p.nValue = 16; p.dValue = 16; p.srcNdMatrixStride = 0; p.srcDValue = 16; p.dstNzC0Stride = 16; p.dstNzNStride = 1; p.dstNzMatrixStride = 0; (void)p;"),
    u(114, "Ln", Body, "Ln(xf, yf, 64);"),
    u(115, "MTE3_MTE2", Body, "SetFlag<HardEvent::MTE3_MTE2>(0); WaitFlag<HardEvent::MTE3_MTE2>(0);"),
    u(116, "BlockReduceSum", Body, "BlockReduceSum<float>(xf, yf, 1, 64, 1, 1, 8);"),
    u(117, "ASCEND_IS_AIV", Body, "if ASCEND_IS_AIV { return; }"),
    u(118, "ONE_BLK_SIZE", Body, "uint32_t b = ONE_BLK_SIZE; (void)b;"),
    u(119, "StoreAlign", Body, "MicroAPI::RegTensor<float> r; MicroAPI::MaskReg m = MicroAPI::CreateMask<float>(); MicroAPI::StoreAlign((__ubuf__ float *)xf.GetPhyAddr(), r, m);"),
    u(120, "LoadAlign", Body, "MicroAPI::RegTensor<float> r; MicroAPI::LoadAlign(r, (__ubuf__ float *)xf.GetPhyAddr());"),
    u(121, "MicroAPI", Body, "using namespace AscendC::MicroAPI; RegTensor<half> r; (void)r;"),
    u(122, "Alloc", Body, "LocalMemAllocator<Hardware::UB> a; LocalTensor<float> t = a.Alloc<float, 256>(); LocalTensor<half> h = a.Alloc<half>(128); (void)t; (void)h;"),
    u(123, "LocalMemAllocator", Body, "LocalMemAllocator<> a; (void)a.GetCurAddr();"),
    u(124, "Hardware", Body, "Hardware h = Hardware::UB; (void)h;"),
    u(125, "A2", Body, "TQue<TPosition::A2, 1> q; (void)q;"),
    u(126, "B2", Body, "TQue<TPosition::B2, 1> q; (void)q;"),
    u(127, "CO1", Body, "TQue<TPosition::CO1, 1> q; (void)q;"),
    u(128, "And", Body, "And(xs, xs, xs, 128);"),
    u(129, "Gather", Body, "LocalTensor<uint32_t> off = xi.ReinterpretCast<uint32_t>(); Gather(xf, yf, off, (uint32_t)0, 64);"),
    u(130, "Sigmoid", Body, "Sigmoid(xf, yf, 64); Sigmoid(xh, yh, m8, 128);"),
    u(131, "CAST_TRUNC", Body, "Cast(xi, xf, RoundMode::CAST_TRUNC, 64);"),
    u(132, "EQ", Body, "CMPMODE m = CMPMODE::EQ; (void)m;"),
    u(133, "VSEL_TENSOR_SCALAR_MODE", Body, "SELMODE m = SELMODE::VSEL_TENSOR_SCALAR_MODE; (void)m;"),
    u(134, "GetSize", Body, "uint32_t n = xf.GetSize(); (void)n;"),
    u(135, "Compare", Body, "Compare(m8, xh, yh, CMPMODE::GE, 128);"),
    u(139, "LeakyRelu", Body, "LeakyRelu(xf, yf, 0.01f, 64);"),
    u(145, "BinaryRepeatParams", Body, "BinaryRepeatParams p(1, 1, 1, 8, 8, 8); Mul(xf, yf, zf, 64, 2, p);"),
    u(146, "CacheLine", Body, "CacheLine c = CacheLine::SINGLE_CACHE_LINE; (void)c;"),
    u(147, "CACHELINE_OUT", Body, "DcciDst d = DcciDst::CACHELINE_OUT; (void)d;"),
    u(148, "DcciDst", Body, "DataCacheCleanAndInvalid<float, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(gf);"),
    u(149, "SINGLE_CACHE_LINE", Body, "DataCacheCleanAndInvalid<int32_t, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>(gi);"),
    u(150, "DataCacheCleanAndInvalid", Body, "DataCacheCleanAndInvalid<float, CacheLine::ENTIRE_DATA_CACHE, DcciDst::CACHELINE_OUT>(gf);"),
    // Beyond the top 150 (ranks 151-213, each used by 2 or 3 operators).
    u(151, "CreateMask", Body, "MicroAPI::MaskReg m = MicroAPI::CreateMask<half, MicroAPI::MaskPattern::ALL>(); (void)m;"),
    u(152, "DIST_UNPACK_B16", Body, "MicroAPI::RegTensor<half> h; MicroAPI::LoadAlign<half, MicroAPI::LoadDist::DIST_UNPACK_B16>(h, (__ubuf__ half *)xh.GetPhyAddr());"),
    u(153, "LoadDist", Body, "MicroAPI::LoadDist d = MicroAPI::LoadDist::DIST_NORM; (void)d;"),
    u(154, "CeilDivision", Body, "static_assert(CeilDivision(65, 32) == 3, \"\");"),
    u(156, "DIST_PACK_B32", Body, "MicroAPI::RegTensor<int32_t> r; MicroAPI::MaskReg m = MicroAPI::CreateMask<int32_t>(); MicroAPI::StoreAlign<int32_t, MicroAPI::StoreDist::DIST_PACK_B32>((__ubuf__ int32_t *)xi.GetPhyAddr(), r, m);"),
    u(157, "StoreDist", Body, "MicroAPI::StoreDist d = MicroAPI::StoreDist::DIST_NORM_B32; (void)d;"),
    u(158, "UB", Body, "Hardware h = Hardware::UB; (void)h;"),
    u(159, "IBWait", Body, "IBWait(gi, xi, 0, 0);"),
    u(160, "IBSet", Body, "IBSet(gi, xi, 0, 0);"),
    u(161, "ShiftRight", Body, "ShiftRight(xi, xi, (int32_t)1, 64);"),
    u(162, "CAST_CEIL", Body, "Cast(xi, xf, RoundMode::CAST_CEIL, 64);"),
    u(163, "CAST_FLOOR", Body, "Cast(xi, xf, RoundMode::CAST_FLOOR, 64);"),
    u(164, "NE", Body, "Compare(m8, xf, yf, CMPMODE::NE, 64);"),
    u(167, "Axpy", Body, "Axpy(xf, yf, 0.5f, 64); Axpy(xf, xh, (half)0.5f, 64);"),
    u(168, "LT", Body, "CompareScalar(m8, xf, 0.0f, CMPMODE::LT, 64);"),
    u(169, "Copy", Body, "Copy(xf, yf, 64, 1, CopyRepeatParams(1, 1, 8, 8));"),
    u(170, "AIC", Body, "KernelMode m = KernelMode::AIC_MODE; (void)m;"),
    u(171, "SetDeqScale", Body, "SetDeqScale((half)0.5f); Cast(xh, xi, RoundMode::CAST_NONE, 64);"),
    u(172, "MASK_PLACEHOLDER", Body, "Add<float, false>(xf, yf, zf, MASK_PLACEHOLDER, 1, BinaryRepeatParams());"),
    u(173, "WholeReduceMax", Body, "WholeReduceMax<float>(xf, yf, 64, 1, 1, 1, 8, ReduceOrder::ORDER_ONLY_VALUE);"),
    u(174, "Std", Body, "uint32_t m = AscendC::Std::min(4u, (uint64_t)7); static_assert(Std::is_same<half, half>::value, \"\"); (void)m;"),
    u(175, "VSEL_TENSOR_TENSOR_MODE", Body, "SELMODE m = SELMODE::VSEL_TENSOR_TENSOR_MODE; (void)m;"),
    u(176, "MaskPattern", Body, "MicroAPI::MaskPattern p = MicroAPI::MaskPattern::VL8; (void)p;"),
    u(177, "MemType", Body, "MicroAPI::MemType t = MicroAPI::MemType::VEC_STORE; (void)t;"),
    u(178, "VL1", Body, "MicroAPI::MaskReg m = MicroAPI::CreateMask<float, MicroAPI::MaskPattern::VL1>(); (void)m;"),
    u(179, "Brcb", Body, "Brcb(xf, yf, 1, BrcbRepeatParams(1, 8));"),
    u(180, "DIST_FIRST_ELEMENT_B32", Body, "MicroAPI::StoreDist d = MicroAPI::StoreDist::DIST_FIRST_ELEMENT_B32; (void)d;"),
    u(181, "ReleaseEventID", Body, "TPipe pipe; TEventID e = pipe.AllocEventID<HardEvent::V_MTE3>(); pipe.ReleaseEventID<HardEvent::V_MTE3>(e);"),
    u(182, "AllocEventID", Body, "TEventID e = GetTPipePtr()->AllocEventID<HardEvent::MTE2_V>(); (void)e;"),
    u(183, "Reg", Body, "Reg::RegTensor<float> r; (void)r;"),
    u(184, "VEC_STORE", Body, "MicroAPI::LocalMemBar<MicroAPI::MemType::VEC_STORE, MicroAPI::MemType::VEC_LOAD>();"),
    u(185, "VEC_LOAD", Body, "MicroAPI::MemType t = MicroAPI::MemType::VEC_LOAD; (void)t;"),
    u(186, "LocalMemBar", Body, "MicroAPI::LocalMemBar<MicroAPI::MemType::VEC_STORE, MicroAPI::MemType::VEC_LOAD>();"),
    u(187, "DIST_NORM_B32", Body, "MicroAPI::LoadDist d = MicroAPI::LoadDist::DIST_NORM; MicroAPI::StoreDist e = MicroAPI::StoreDist::DIST_NORM_B32; (void)d; (void)e;"),
    u(191, "GetTaskRation", Body, "int64_t r = GetTaskRation(); (void)r;"),
    u(192, "ASCEND_IS_AIC", Body, "if ASCEND_IS_AIC { return; }"),
    u(193, "ASCENDC_TPL_DTYPE_DECL", Body, "int d = C_DT_FLOAT16; (void)d; /* ASCENDC_TPL_DTYPE_DECL: one ASCENDC_TPL_ARGS_DECL per unit, see twin tests/tpl_op */"),
    u(194, "ASCENDC_TPL_DTYPE_SEL", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 0), ASCENDC_TPL_DTYPE_SEL(DT, C_DT_FLOAT)));"),
    u(196, "ASCENDC_TPL_KERNEL_TYPE_SEL", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY), ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 1)));"),
    u(205, "optiling", Body, "using namespace optiling; cov::CovTilingData t{}; (void)t;"),
    u(195, "GET_TILING_DATA_PTR_WITH_STRUCT", Body, "GET_TILING_DATA_PTR_WITH_STRUCT(cov::CovTilingData, tp, tiling); cov::CovTilingData *mutable_tp = tp; (void)mutable_tp->n;"),
    u(197, "GT", Body, "CMPMODE m = CMPMODE::GT; (void)m;"),
    u(198, "CastTrait", Body, "constexpr MicroAPI::CastTrait t = {MicroAPI::RegLayout::ZERO, MicroAPI::SatMode::NO_SAT, MicroAPI::MaskMergeMode::ZEROING, RoundMode::CAST_RINT}; (void)t;"),
    u(199, "SatMode", Body, "MicroAPI::SatMode m = MicroAPI::SatMode::SAT; (void)m;"),
    u(200, "ZEROING", Body, "MicroAPI::MaskMergeMode m = MicroAPI::MaskMergeMode::ZEROING; (void)m;"),
    u(201, "RegLayout", Body, "MicroAPI::RegLayout l = MicroAPI::RegLayout::ONE; (void)l;"),
    u(202, "MaskMergeMode", Body, "MicroAPI::MaskMergeMode m = MicroAPI::MaskMergeMode::MERGING; (void)m;"),
    u(203, "NO_SAT", Body, "MicroAPI::SatMode m = MicroAPI::SatMode::NO_SAT; (void)m;"),
    u(100, "Mmad", Body, "LocalTensor<float> c(TPosition::CO1, 0, 256); LocalTensor<half> a(TPosition::A2, 0, 256), b(TPosition::B2, 0, 256); MmadParams p(16, 16, 16, false, 0, false, false, false); Mmad(c, a, b, p);"),
    u(103, "LoadData", Body, "LocalTensor<half> a1(TPosition::A1, 0, 256), a2(TPosition::A2, 0, 256); LoadData2DParams p; p.repeatTimes = 1; LoadData(a2, a1, p); LoadData(a2, gh, p);"),
    u(141, "MmadParams", Body, "MmadParams p; p.m = 16; p.n = 16; p.k = 16; p.cmatrixInitVal = false; (void)p;"),
    u(142, "Fixpipe", Body, "LocalTensor<float> c(TPosition::CO1, 0, 256); FixpipeParamsV220 p(16, 16, 16, 16, false); Fixpipe(gf, c, p); Fixpipe<float, float, CFG_NZ>(gf, c, p);"),
    u(143, "FixpipeParamsV220", Body, "FixpipeParamsV220 p; p.quantPre = QuantMode_t::F322F16; p.ndNum = 1; (void)p;"),
    u(144, "LoadData2DParams", Body, "LoadData2DParams p(0, 1, 1, 0, 0, true, 0); (void)p;"),
    u(206, "L1", Body, "LocalMemAllocator<Hardware::L1> l1; LocalTensor<half> t = l1.Alloc<half>(256); (void)t;"),
    u(207, "MTE1_M", Body, "SetFlag<HardEvent::MTE1_M>(0); WaitFlag<HardEvent::MTE1_M>(0);"),
    u(208, "L0A", Body, "LocalMemAllocator<Hardware::L0A> l0a; LocalTensor<half> t = l0a.Alloc<half>(256); (void)t;"),
    u(209, "M_FIX", Body, "SetFlag<HardEvent::M_FIX>(0); WaitFlag<HardEvent::M_FIX>(0);"),
    u(210, "MTE2_MTE1", Body, "SetFlag<HardEvent::MTE2_MTE1>(0); WaitFlag<HardEvent::MTE2_MTE1>(0);"),
    u(211, "L0C", Body, "LocalMemAllocator<Hardware::L0C> l0c; LocalTensor<float> t = l0c.Alloc<float>(256); (void)t;"),
    u(212, "L0B", Body, "LocalMemAllocator<Hardware::L0B> l0b; LocalTensor<half> t = l0b.Alloc<half>(256); (void)t;"),
    u(73, "SetTensorA", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.SetTensorA(gh); mm.SetTensorA(gh, true);"),
    u(74, "matmul", Body, "matmul::Matmul<matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>, matmul::MatmulType<TPosition::GM, CubeFormat::ND, half>, matmul::MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; (void)mm;"),
    u(75, "MatmulType", Body, "using A = MatmulType<TPosition::GM, CubeFormat::ND, half, true>; static_assert(A::isTrans, \"\");"),
    u(76, "TCubeTiling", Body, "TCubeTiling t{}; t.baseM = 128; (void)t;"),
    u(77, "CubeFormat", Body, "CubeFormat f = CubeFormat::ND; (void)f;"),
    u(78, "SetTensorB", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.SetTensorB(gh, true);"),
    u(82, "SetBias", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.SetBias(gf);"),
    u(89, "Matmul", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; (void)mm;"),
    u(90, "IterateAll", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.IterateAll(gf);"),
    u(91, "REGIST_MATMUL_OBJ", Body, "TPipe pipe; TCubeTiling t{}; Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; REGIST_MATMUL_OBJ(&pipe, GetSysWorkSpacePtr(), mm, (TCubeTiling *)nullptr); (void)t;"),
    u(136, "MatmulConfig", Body, "constexpr MatmulConfig c = GetMDLConfig(); static_assert(c.doMultiDataLoad, \"\");"),
    u(137, "SetLocalWorkspace", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.SetLocalWorkspace(m8);"),
    u(138, "GetTensorC", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.GetTensorC(gf);"),
    u(140, "Iterate", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; while (mm.Iterate()) mm.GetTensorC(gf); mm.End();"),
    u(188, "SetSingleShape", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.SetSingleShape(16, 16, 16); mm.SetTail(16, 16, 16);"),
    u(189, "MatmulImpl", Body, "matmul::MatmulImpl<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>, MatmulType<TPosition::GM, CubeFormat::ND, float>, CFG_MDL> mm; mm.SetTensorB(gh, true);"),
    u(190, "SetOrgShape", Body, "Matmul<MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, half>, MatmulType<TPosition::GM, CubeFormat::ND, float>> mm; mm.SetOrgShape(16, 16, 16); mm.SetOrgShape(16, 16, 16, 16);"),
];

#[rustfmt::skip]
const KERNEL_SKIPPED: &[Skip] = &[
    s(155, "RmsNorm", HIGH_LEVEL),
    s(165, "SoftMax", HIGH_LEVEL),
    s(166, "SoftMaxShapeInfo", HIGH_LEVEL),
    s(204, "TensorShape", "static-tensor layout traits (not yet in the twin)"),
    s(
        213,
        "LoadData2DParamsV2",
        "Ascend 950's LoadData form: declared, the call faults (the twin models the A2 / A3 cube layouts)",
    ),
];

const HOST_PRELUDE: &str = r#"
#include "register/op_def_registry.h"
#include "register/op_impl_registry.h"
#include "register/tilingdata_base.h"
#include "tiling/platform/platform_ascendc.h"
#include "graph/utils/type_utils.h"
#include "ascendc/host_api/tiling/template_argument.h"
namespace cov {
struct CovPlainTiling { uint32_t n; };
struct CovCompileInfo { uint32_t cores; };
inline ge::graphStatus CovTilingFn(gert::TilingContext *) { return ge::GRAPH_SUCCESS; }
inline ge::graphStatus CovParseFn(gert::TilingParseContext *) { return ge::GRAPH_SUCCESS; }
inline ge::graphStatus CovShapeFn(gert::InferShapeContext *) { return ge::GRAPH_SUCCESS; }
inline ge::graphStatus CovDtypeFn(gert::InferDataTypeContext *) { return ge::GRAPH_SUCCESS; }
}
"#;

/// Extra headers (under the twin's host include folder) some host uses need.
const HOST_HEADERS: &[(u32, &str)] = &[
    (62, "log/log.h"),
    (68, "log/log.h"),
    (69, "log/log.h"),
    (74, "log/log.h"),
];

#[rustfmt::skip]
const HOST: &[Use] = &[
    u(1, ".AICore()", Body, "ops::OpDef d(\"CovA\"); d.AICore();"),
    u(2, ".AddConfig()", Body, "ops::OpDef d(\"CovB\"); d.AICore().AddConfig(\"ascend910b\");"),
    u(3, "OP_ADD()", Global, "namespace ops { class CovOp : public OpDef { public: explicit CovOp(const char *name) : OpDef(name) { this->Input(\"x\").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}); this->Output(\"y\").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND}); this->AICore().SetTiling(cov::CovTilingFn); this->AICore().AddConfig(\"ascend910b\"); } }; OP_ADD(CovOp); }"),
    u(4, ".ParamType()", Body, "ops::OpDef d(\"CovC\"); d.Input(\"x\").ParamType(ops::REQUIRED); d.Input(\"b\").ParamType(ops::OPTIONAL); d.Input(\"l\").ParamType(ops::DYNAMIC);"),
    u(5, "ge::FORMAT_ND", Body, "ge::Format f = ge::FORMAT_ND; (void)f;"),
    u(6, ".Input()", Body, "ops::OpDef d(\"CovD\"); d.Input(\"x\");"),
    u(7, ".DataType()", Body, "ops::OpDef d(\"CovE\"); d.Input(\"x\").DataType({ge::DT_FLOAT16, ge::DT_FLOAT, ge::DT_BF16});"),
    u(8, "gert::TilingContext", Body, "gert::TilingContext *c = context; (void)c;"),
    u(9, ".Format()", Body, "ops::OpDef d(\"CovF\"); d.Output(\"y\").Format({ge::FORMAT_ND, ge::FORMAT_ND});"),
    u(10, "ge::graphStatus", Body, "ge::graphStatus st = ge::GRAPH_SUCCESS; (void)st;"),
    u(11, "ge::GRAPH_SUCCESS", Body, "if (context == nullptr) return ge::GRAPH_SUCCESS;"),
    u(12, ".Output()", Body, "ops::OpDef d(\"CovG\"); d.Output(\"y\").ParamType(ops::REQUIRED);"),
    u(13, ".SetBlockDim()", Body, "context->SetBlockDim(8);"),
    u(14, ".GetInputShape()", Body, "const gert::StorageShape *s = context->GetInputShape(0); (void)s;"),
    u(15, ".GetWorkspaceSizes()", Body, "size_t *ws = context->GetWorkspaceSizes(1); ws[0] = 16 * 1024 * 1024;"),
    u(16, "ge::DT_FLOAT16", Body, "ge::DataType t = ge::DT_FLOAT16; (void)t;"),
    u(17, "ge::DT_FLOAT", Body, "ge::DataType t = ge::DT_FLOAT; (void)t;"),
    u(18, "platform_ascendc::PlatformAscendC", Body, "auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()); (void)p;"),
    u(19, "gert::InferShapeContext", Body, "const gert::Shape *in = shapeCtx->GetInputShape(0); gert::Shape *out = shapeCtx->GetOutputShape(0); *out = *in;"),
    u(20, ".GetOutputShape()", Body, "const gert::StorageShape *s = context->GetOutputShape(0); (void)s;"),
    u(21, "gert::Shape", Body, "gert::Shape s; s.AppendDim(4); (void)s.GetShapeSize();"),
    u(22, "ge::GRAPH_FAILED", Body, "if (context == nullptr) return ge::GRAPH_FAILED;"),
    u(23, ".GetStorageShape()", Body, "int64_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize(); (void)n;"),
    u(24, ".UnknownShapeFormat()", Body, "ops::OpDef d(\"CovH\"); d.Input(\"x\").UnknownShapeFormat({ge::FORMAT_ND});"),
    u(25, "platform_ascendc::CoreMemType::UB", Body, "platform_ascendc::CoreMemType t = platform_ascendc::CoreMemType::UB; (void)t;"),
    u(26, ".GetCoreMemSize()", Body, "auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()); uint64_t ub = 0; p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ub);"),
    u(27, ".GetDataType()", Body, "ge::DataType t = context->GetInputDesc(0)->GetDataType(); (void)t;"),
    u(28, ".GetData()", Body, "void *p = context->GetRawTilingData()->GetData(); (void)p;"),
    u(29, ".SetDataSize()", Body, "context->GetRawTilingData()->SetDataSize(8);"),
    u(30, ".GetRawTilingData()", Body, "gert::TilingData *t = context->GetRawTilingData(); (void)t;"),
    u(31, ".GetCapacity()", Body, "size_t c = context->GetRawTilingData()->GetCapacity(); (void)c;"),
    u(32, "REGISTER_TILING_DATA_CLASS()", Global, "namespace optiling { BEGIN_TILING_DATA_DEF(CovRegTiling) TILING_DATA_FIELD_DEF(uint32_t, n); END_TILING_DATA_DEF; REGISTER_TILING_DATA_CLASS(CovOp, CovRegTiling) }"),
    u(33, "BEGIN_TILING_DATA_DEF()", Global, "namespace optiling { BEGIN_TILING_DATA_DEF(CovTiling) TILING_DATA_FIELD_DEF(uint32_t, totalLength); TILING_DATA_FIELD_DEF(uint32_t, tileNum); END_TILING_DATA_DEF; }"),
    u(34, ".SaveToBuffer()", Body, "optiling::CovTiling t; t.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());"),
    u(35, ".SetTilingKey()", Body, "context->SetTilingKey(1);"),
    u(36, ".GetDataSize()", Body, "optiling::CovTiling t; context->GetRawTilingData()->SetDataSize(t.GetDataSize());"),
    u(37, ".GetInputDesc()", Body, "auto d = context->GetInputDesc(0); (void)d;"),
    u(38, "set_<field>  (generated TilingData accessor)", Body, "optiling::CovTiling t; t.set_totalLength(1024); t.set_tileNum(8);"),
    u(39, "TILING_DATA_FIELD_DEF()", Global, "namespace optiling { BEGIN_TILING_DATA_DEF(CovTiling2) TILING_DATA_FIELD_DEF(int64_t, a); TILING_DATA_FIELD_DEF(float, b); END_TILING_DATA_DEF; }"),
    u(40, ".GetShapeSize()", Body, "int64_t n = context->GetInputShape(0)->GetOriginShape().GetShapeSize(); (void)n;"),
    u(41, ".GetPlatformInfo()", Body, "fe::PlatFormInfos *p = context->GetPlatformInfo(); (void)p;"),
    u(42, "ge::DT_BF16", Body, "ge::DataType t = ge::DT_BF16; (void)t;"),
    u(43, ".SetTiling()", Body, "ops::OpDef d(\"CovI\"); d.AICore().SetTiling(cov::CovTilingFn);"),
    u(44, ".SetInferShape()", Body, "ops::OpDef d(\"CovJ\"); d.SetInferShape(cov::CovShapeFn);"),
    u(45, ".GetDim()", Body, "int64_t d = context->GetInputShape(0)->GetStorageShape().GetDim(0); (void)d;"),
    u(46, ".GetDimNum()", Body, "size_t n = context->GetInputShape(0)->GetStorageShape().GetDimNum(); (void)n;"),
    u(47, ".Tiling()", Global, "namespace optiling { IMPL_OP_OPTILING(CovT1).Tiling(cov::CovTilingFn); }"),
    u(48, "IMPL_OP_OPTILING()", Global, "namespace optiling { IMPL_OP_OPTILING(CovT2).Tiling(cov::CovTilingFn).TilingParse<cov::CovCompileInfo>(cov::CovParseFn); }"),
    u(49, "gert::TilingParseContext", Body, "auto *ci = parseCtx->GetCompiledInfo<cov::CovCompileInfo>(); (void)ci; fe::PlatFormInfos *p = parseCtx->GetPlatformInfo(); (void)p;"),
    u(50, ".GetCoreNumAiv()", Body, "auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()); uint32_t n = p.GetCoreNumAiv(); (void)n;"),
    u(51, ".GetAttrs()", Body, "const gert::RuntimeAttrs *a = context->GetAttrs(); (void)a;"),
    u(52, ".Attr()", Body, "ops::OpDef d(\"CovK\"); d.Attr(\"alpha\").AttrType(ops::OPTIONAL).Float(1.0f);"),
    u(53, ".TilingParse()", Global, "namespace optiling { IMPL_OP_OPTILING(CovT3).TilingParse<cov::CovCompileInfo>(cov::CovParseFn); }"),
    u(54, ".AttrType()", Body, "ops::OpDef d(\"CovL\"); d.Attr(\"k\").AttrType(ops::REQUIRED).Int();"),
    u(55, ".GetNodeName()", Body, "const char *n = context->GetNodeName(); (void)n;"),
    u(56, "ge::TypeUtils::GetDataTypeLength", Body, "uint32_t len = 0; bool ok = ge::TypeUtils::GetDataTypeLength(ge::DT_FLOAT16, len); (void)ok;"),
    u(57, ".GetCoreNum()", Body, "auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()); uint32_t n = p.GetCoreNum(); (void)n;"),
    u(58, "IMPL_OP_INFERSHAPE()", Global, "namespace ops { IMPL_OP_INFERSHAPE(CovI1).InferShape(cov::CovShapeFn).InferDataType(cov::CovDtypeFn); }"),
    u(59, ".InferShape()", Global, "namespace ops { IMPL_OP_INFERSHAPE(CovI2).InferShape(cov::CovShapeFn); }"),
    u(60, "gert::InferDataTypeContext", Body, "ge::DataType t = dtypeCtx->GetInputDataType(0); dtypeCtx->SetOutputDataType(0, t);"),
    u(61, ".GetLibApiWorkSpaceSize()", Body, "auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()); uint32_t n = p.GetLibApiWorkSpaceSize(); (void)n;"),
    u(62, "OP_LOGE()", Body, "OP_LOGE(context->GetNodeName(), \"bad length %d\", 3); OP_LOGE(context, \"bad input\");"),
    u(63, ".SetOutputDataType()", Body, "dtypeCtx->SetOutputDataType(0, ge::DT_FLOAT);"),
    u(64, ".DynamicShapeSupportFlag()", Body, "ops::OpAICoreConfig c; c.DynamicShapeSupportFlag(true);"),
    u(65, ".DynamicRankSupportFlag()", Body, "ops::OpAICoreConfig c; c.DynamicRankSupportFlag(true);"),
    u(66, ".DynamicCompileStaticFlag()", Body, "ops::OpAICoreConfig c; c.DynamicCompileStaticFlag(true);"),
    u(67, "ge::DataType", Body, "ge::DataType t = context->GetInputDesc(0)->GetDataType(); (void)t;"),
    u(68, "OP_CHECK_IF()", Body, "int64_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize(); OP_CHECK_IF(n < 0, OP_LOGE(context->GetNodeName(), \"negative size\"), return ge::GRAPH_FAILED);"),
    u(69, "OP_CHECK_NULL_WITH_CONTEXT()", Body, "auto in = context->GetInputShape(0); OP_CHECK_NULL_WITH_CONTEXT(context, in); auto s = shapeCtx->GetInputShape(0); OP_CHECK_NULL_WITH_CONTEXT(shapeCtx, s);"),
    u(70, ".GetInputDataType()", Body, "ge::DataType t = dtypeCtx->GetInputDataType(0); (void)t;"),
    u(71, ".SetDim()", Body, "gert::Shape *out = shapeCtx->GetOutputShape(0); out->SetDim(0, 4);"),
    u(72, ".GetTilingData()", Body, "cov::CovPlainTiling *t = context->GetTilingData<cov::CovPlainTiling>(); t->n = 1;"),
    u(73, ".AutoContiguous()", Body, "ops::OpDef d(\"CovM\"); d.Input(\"x\").AutoContiguous();"),
    u(74, "OP_LOGD()", Body, "OP_LOGD(context->GetNodeName(), \"tiling n=%u\", 8u); OP_LOGD(context, \"done\");"),
    u(75, ".ExtendCfgInfo()", Body, "ops::OpAICoreConfig c; c.ExtendCfgInfo(\"enableVectorCore.flag\", \"true\");"),
    u(76, "ASCENDC_TPL_SEL()", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 0, 1)));"),
    u(77, "ASCENDC_TPL_ARGS_SEL()", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 1)));"),
    u(78, "ASCENDC_TPL_ARGS_DECL()", Global, "ASCENDC_TPL_ARGS_DECL(CovTpl, ASCENDC_TPL_UINT_DECL(MODE, ASCENDC_TPL_2_BW, ASCENDC_TPL_UI_LIST, 0, 1, 2));"),
    u(79, ".NeedCheckSupportFlag()", Body, "ops::OpAICoreConfig c; c.NeedCheckSupportFlag(false);"),
    u(80, ".DynamicFormatFlag()", Body, "ops::OpAICoreConfig c; c.DynamicFormatFlag(true);"),
    u(81, ".PrecisionReduceFlag()", Body, "ops::OpAICoreConfig c; c.PrecisionReduceFlag(true);"),
    u(82, "ASCENDC_TPL_UINT_DECL()", Body, "/* declared by the ASCENDC_TPL_ARGS_DECL use (one per translation unit) */ uint64_t k = GET_TPL_TILING_KEY(2); (void)k;"),
    u(83, "ASCENDC_TPL_UINT_SEL()", Global, "ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(MODE, ASCENDC_TPL_UI_LIST, 2)));"),
    u(84, ".SetDimNum()", Body, "gert::Shape *out = shapeCtx->GetOutputShape(0); out->SetDimNum(2);"),
    u(85, ".GetSocVersion()", Body, "auto p = platform_ascendc::PlatformAscendC(context->GetPlatformInfo()); platform_ascendc::SocVersion v = p.GetSocVersion(); (void)v;"),
    u(86, ".SetInferDataType()", Body, "ops::OpDef d(\"CovN\"); d.SetInferDataType(cov::CovDtypeFn);"),
    u(87, "ge::DT_INT32", Body, "ge::DataType t = ge::DT_INT32; (void)t;"),
    u(88, ".GetAttrPointer()", Body, "const float *f = context->GetAttrs()->GetAttrPointer<float>(0); (void)f;"),
    u(89, ".GetInputTensor()", Body, "const gert::Tensor *t = context->GetInputTensor(0); (void)t;"),
    u(90, ".GetOriginShape()", Body, "const gert::Shape &s = context->GetInputShape(0)->GetOriginShape(); (void)s;"),
    u(91, ".Int()", Body, "ops::OpDef d(\"CovO\"); d.Attr(\"axis\").AttrType(ops::OPTIONAL).Int(-1);"),
    u(92, ".Float()", Body, "ops::OpDef d(\"CovP\"); d.Attr(\"eps\").AttrType(ops::OPTIONAL).Float(1e-5f);"),
    u(93, "fe::PlatFormInfos", Body, "fe::PlatFormInfos *p = context->GetPlatformInfo(); std::string v; if (p) p->GetPlatformRes(\"SoCInfo\", \"ai_core_cnt\", v);"),
    u(94, "GET_TPL_TILING_KEY()", Body, "uint64_t k = GET_TPL_TILING_KEY(1); context->SetTilingKey(k);"),
    u(95, "gert::StorageShape", Body, "const gert::StorageShape *s = context->GetInputShape(0); (void)s->GetStorageShape();"),
    u(96, "ge::DT_INT8", Body, "ge::DataType t = ge::DT_INT8; (void)t;"),
    // Beyond the ranked names: the registration ops-transformer's attention ops write (their builds
    // stopped at `gert::TilingPlacement`).
    u(97, ".TilingInputsDataDependency() with placements", Global, "namespace optiling { IMPL_OP_OPTILING(CovT4).TilingInputsDataDependency({1, 2}, {gert::TilingPlacement::TILING_ON_HOST, gert::TilingPlacement::TILING_ON_AICPU}).Tiling(cov::CovTilingFn); }"),
];

const HOST_SKIPPED: &[Skip] = &[];

fn twin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("templates/twin")
}

fn compiler() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".to_string())
}

/// Every rank 1..=top appears exactly once, as a use or a skip; names beyond `top` are extras.
fn check_table(side: &str, uses: &[Use], skipped: &[Skip], top: u32) {
    let mut seen: BTreeMap<u32, &str> = BTreeMap::new();
    for (rank, name) in uses
        .iter()
        .map(|u| (u.rank, u.name))
        .chain(skipped.iter().map(|s| (s.rank, s.name)))
    {
        if let Some(prev) = seen.insert(rank, name) {
            panic!("{side}: rank {rank} listed twice ({prev}, {name})");
        }
    }
    let missing: Vec<u32> = (1..=top).filter(|r| !seen.contains_key(r)).collect();
    assert!(
        missing.is_empty(),
        "{side}: ranks {missing:?} are neither covered nor skipped with a reason"
    );
}

/// How a body use is wrapped: return type, parameter list, and the statement closing the body.
type Frame<'a> = (&'a str, &'a str, &'a str);

/// The translation unit, and for each use the range of lines its code occupies.
fn translation_unit(
    prelude: &str,
    uses: &[&Use],
    (signature, params, epilogue): Frame,
) -> (String, Vec<(usize, usize)>) {
    let mut text = String::from(prelude);
    let mut spans = vec![(0, 0); uses.len()];
    let line = |t: &str| t.lines().count() + 1;
    for scope in [Global, Body] {
        for (i, use_) in uses.iter().enumerate() {
            if use_.scope != scope {
                continue;
            }
            let _ = writeln!(text, "// rank {}: {}", use_.rank, use_.name);
            let start = line(&text);
            match scope {
                Global => {
                    let _ = writeln!(text, "{}", use_.code);
                }
                Body => {
                    let _ = writeln!(text, "{signature} cov_use_{}{params} {{", use_.rank);
                    let _ = writeln!(text, "{}", use_.code);
                    let _ = writeln!(text, "{epilogue}}}");
                }
            }
            spans[i] = (start, line(&text) - 1);
        }
    }
    (text, spans)
}

/// Compiles the uses in one unit; returns the names that failed, each with the compiler's first
/// message about it.
fn compile(
    side: &str,
    prelude: &str,
    uses: &[&Use],
    frame: Frame,
    include: &Path,
) -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let (text, spans) = translation_unit(prelude, uses, frame);
    let src = dir.path().join(format!("cov_{side}.cpp"));
    std::fs::write(&src, &text).unwrap();
    let out = Command::new(compiler())
        .args(["-std=c++17", "-fsyntax-only", "-w"])
        .arg("-I")
        .arg(include)
        .arg("-DTWIN_OP_TYPE=CovOp")
        .arg(&src)
        .output()
        .unwrap_or_else(|e| panic!("could not run {} (install g++ or set CXX): {e}", compiler()));
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let mut failed = BTreeMap::new();
    let file = src.file_name().unwrap().to_string_lossy().to_string();
    for l in stderr.lines() {
        let Some(rest) = l.split(&format!("{file}:")).nth(1) else {
            continue;
        };
        let Some(n) = rest.split(':').next().and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        if let Some(i) = spans.iter().position(|&(a, b)| a <= n && n <= b) {
            failed
                .entry(uses[i].name.to_string())
                .or_insert_with(|| l.trim().to_string());
        }
    }
    if !out.status.success() && failed.is_empty() {
        panic!("{side}: the coverage unit does not compile, and no use is to blame:\n{stderr}");
    }
    failed
}

fn report(side: &str, uses: &[Use], failed: &BTreeMap<String, String>, top: u32, of: &str) {
    let covered = uses
        .iter()
        .filter(|u| u.rank <= top && !failed.contains_key(u.name))
        .count();
    let extra = uses
        .iter()
        .filter(|u| u.rank > top && !failed.contains_key(u.name))
        .count();
    println!("{side} API coverage: {covered}/{top} {of}, plus {extra} names ranked below");
}

#[test]
fn every_covered_kernel_name_compiles_against_the_twin() {
    check_table("kernel", KERNEL, KERNEL_SKIPPED, KERNEL_TOP);
    let uses: Vec<&Use> = KERNEL.iter().collect();
    let failed = compile(
        "kernel",
        KERNEL_PRELUDE,
        &uses,
        ("void", "(GM_ADDR x, GM_ADDR tiling)", ""),
        &twin_dir().join("include/kernel"),
    );
    report(
        "kernel",
        KERNEL,
        &failed,
        KERNEL_TOP,
        "of the most used kernel-side names",
    );
    let mut reasons: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for skip in KERNEL_SKIPPED {
        reasons
            .entry(skip.why)
            .or_default()
            .push(format!("{} (rank {})", skip.name, skip.rank));
    }
    for (why, names) in reasons {
        println!("skipped, {why}: {}", names.join(", "));
    }
    assert!(
        failed.is_empty(),
        "kernel names listed as covered do not compile against the twin:\n{}",
        failed
            .iter()
            .map(|(n, m)| format!("  {n}: {m}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn every_covered_host_name_compiles_against_the_twin() {
    check_table("host", HOST, HOST_SKIPPED, HOST_TOP);
    let include = twin_dir().join("include/host");
    let mut prelude = String::new();
    let mut missing_header = BTreeMap::new();
    let mut headers: Vec<&str> = HOST_HEADERS.iter().map(|(_, h)| *h).collect();
    headers.dedup();
    for h in &headers {
        if include.join(h).is_file() {
            let _ = writeln!(prelude, "#include \"{h}\"");
        }
    }
    prelude.push_str(HOST_PRELUDE);
    let uses: Vec<&Use> = HOST
        .iter()
        .filter(|u| {
            let needs = HOST_HEADERS
                .iter()
                .filter(|(r, _)| *r == u.rank)
                .find(|(_, h)| !include.join(h).is_file());
            if let Some((_, h)) = needs {
                missing_header.insert(u.name.to_string(), format!("twin header {h} missing"));
                return false;
            }
            true
        })
        .collect();
    let mut failed = compile(
        "host",
        &prelude,
        &uses,
        (
            "ge::graphStatus",
            "(gert::TilingContext *context, gert::InferShapeContext *shapeCtx, \
             gert::InferDataTypeContext *dtypeCtx, gert::TilingParseContext *parseCtx)",
            "return ge::GRAPH_SUCCESS;",
        ),
        &include,
    );
    failed.extend(missing_header);
    report(
        "host",
        HOST,
        &failed,
        HOST_TOP,
        "of the host-side names used by 10 or more operators",
    );
    assert!(
        failed.is_empty(),
        "host names listed as covered do not compile against the twin:\n{}",
        failed
            .iter()
            .map(|(n, m)| format!("  {n}: {m}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
