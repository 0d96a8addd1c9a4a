// Unit kernel for the semantics of API names added to the twin (not a real operator): reduction
// order (binary trees, half saturation), the mask/repeat forms of ReduceSum / ReduceMax, Broadcast,
// LocalMemAllocator, ArithProgression, the register-level Reg/MicroAPI subset, Power and the sort family
// (Concat, Sort, Sort32, Extract), TransDataTo5HD and Cast to int4b_t. Each test writes one slot of N float
// values into `out` or N halves into `outh`; tests/api_semantics.rs recomputes every slot in Rust.
#include "kernel_operator.h"
#include "c_api/asc_simd.h"
using namespace AscendC;

constexpr int32_t N = 256;

// half and bfloat16_t convert in constant expressions, as operators' `constexpr half ONE = 1.0f;` needs
// (round to nearest even; 65520 is the first value that rounds to half infinity).
constexpr half HALF_ONE = 1.0f;
// the vector register's width, by which dav-3510 vector functions size their loops (kernel_utils_constants.h)
static_assert(AscendC::VECTOR_REG_WIDTH == 256, "VECTOR_REG_WIDTH");
static_assert(HALF_ONE.Bits() == 0x3c00 && (-HALF_ONE).Bits() == 0xbc00 && float(HALF_ONE) == 1.0f, "constexpr half");
static_assert(half(65519.0f).Bits() == 0x7bff && half(65520.0f).Bits() == 0x7c00 && half(3).Bits() == 0x4200,
              "constexpr half rounding");
static_assert(bfloat16_t(3.5f).Bits() == 0x4060, "constexpr bfloat16_t");

// A SIMD vector function as the dav-3510 programs write them: started by asc_vf_call, over 4 registers of
// 64 floats: y = max((x - 1) / 2, x * x) on the first 150 lanes (UpdateMask), MERGING elsewhere (the lanes
// keep the Duplicate'd 7), stored with an all-lanes mask.
__simd_vf__ inline void SemVf(__ubuf__ float *src, __ubuf__ float *dst, uint32_t count, uint16_t reps)
{
    Reg::RegTensor<float> a, b, c, y;
    Reg::MaskReg all = Reg::CreateMask<float, Reg::MaskPattern::ALL>();
    for (uint16_t i = 0; i < reps; i++) {
        Reg::MaskReg m = Reg::UpdateMask<float>(count);
        Reg::LoadAlign(a, src + i * (GetVecLen() / sizeof(float)));
        Reg::Duplicate(y, 7.0f);
        Reg::Adds(b, a, -1.0f, m);
        Reg::Duplicate(c, 2.0f, all);
        Reg::Div(b, b, c, m);
        Reg::Mul(c, a, a, all);
        Reg::Max<float, Reg::MaskMergeMode::MERGING>(y, b, c, m);
        Reg::StoreAlign(dst + i * (GetVecLen() / sizeof(float)), y, all);
    }
}

// The C API front end over the same register core (c_api/asc_simd.h): over 4 registers of 64 floats,
// y = x > 0.5 ? x * 3 : |x| + 1 on the first 100 lanes, 0 on the rest (ZEROING; stored with PAT_ALL).
__simd_vf__ inline void SemCapiVf(__ubuf__ float *src, __ubuf__ float *dst)
{
    uint32_t count = 100;
    const uint16_t lanes = asc_get_vf_len() / sizeof(float);
    vector_float a, t, f, y;
    vector_bool m, gt, all = asc_create_mask_b32(PAT_ALL);
    for (uint16_t i = 0; i < 4; i++) {
        m = asc_update_mask_b32(count);
        asc_loadalign(a, src + i * lanes);
        asc_mul_scalar(t, a, 3.0f, m);
        asc_abs(f, a, m);
        asc_add_scalar(f, f, 1.0f, m);
        asc_gt_scalar(gt, a, 0.5f, m);
        asc_select(y, t, f, gt);
        asc_duplicate_scalar(t, 0.0f, all);
        asc_select(y, y, t, m);
        asc_storealign(dst, y, i * lanes, all);
    }
}

class SemTest {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR h, GM_ADDR out, GM_ADDR outh)
    {
        xGm.SetGlobalBuffer((__gm__ float *)x, N);
        hGm.SetGlobalBuffer((__gm__ half *)h, N);
        outGm.SetGlobalBuffer((__gm__ float *)out);
        ohGm.SetGlobalBuffer((__gm__ half *)outh);
        pipe.InitBuffer(bufX, N * sizeof(float));
        pipe.InitBuffer(bufH, N * sizeof(half));
        pipe.InitBuffer(bufR, N * sizeof(float));
        pipe.InitBuffer(bufW, N * sizeof(float));
        pipe.InitBuffer(bufRH, N * sizeof(half));
        pipe.InitBuffer(bufE, 4 * N * sizeof(float));
    }
    __aicore__ inline void Store(int slot, const LocalTensor<float> &t)
    {
        PipeBarrier<PIPE_ALL>();
        DataCopy(outGm[slot * N], t, N);
        PipeBarrier<PIPE_ALL>();
    }
    __aicore__ inline void StoreH(int slot, const LocalTensor<half> &t)
    {
        PipeBarrier<PIPE_ALL>();
        DataCopy(ohGm[slot * N], t, N);
        PipeBarrier<PIPE_ALL>();
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> x = bufX.Get<float>();
        LocalTensor<half> h = bufH.Get<half>();
        LocalTensor<float> r = bufR.Get<float>();
        LocalTensor<float> w = bufW.Get<float>();
        LocalTensor<half> rh = bufRH.Get<half>();
        DataCopy(x, xGm, N);
        DataCopy(h, hGm, N);
        PipeBarrier<PIPE_ALL>();

        // 0: count form: a tree per 256-byte repeat, repeat sums added in order
        Duplicate(r, 0.0f, N); ReduceSum(r, x, w, 200); Store(0, r);
        // 1: mask/repeat form: trees within and across repeats
        Duplicate(r, 0.0f, N); ReduceSum<float>(r, x, w, 64, 3, 8); Store(1, r);
        // 2: ReduceMax mask/repeat form with the index (as uint32 bits) in r[1]
        Duplicate(r, 0.0f, N); ReduceMax<float>(r, x, w, 64, 3, 8, true); Store(2, r);
        // 3: one tree sum per repeat
        Duplicate(r, 0.0f, N); WholeReduceSum<float>(r, x, 64, 4, 1, 1, 8); Store(3, r);
        // 4: one tree sum per 32-byte block
        Duplicate(r, 0.0f, N); BlockReduceSum<float>(r, x, 2, 64, 1, 1, 8); Store(4, r);
        // 5, 6: Broadcast [4,1] -> [4,16] and [1,16] -> [4,16]
        {
            const uint32_t dst[2] = {4, 16};
            const uint32_t col[2] = {4, 1};
            const uint32_t row[2] = {1, 16};
            Duplicate(r, 0.0f, N); Broadcast<float, 2, 1>(r, x, dst, col); Store(5, r);
            Duplicate(r, 0.0f, N); BroadCast<float, 2, 0>(r, x, dst, row); Store(6, r);
        }
        // 7: LocalMemAllocator addresses (no memory is touched through these tensors), event ids
        {
            LocalMemAllocator<Hardware::UB> a;
            LocalTensor<float> t1 = a.Alloc<float, 100>();
            float after1 = (float)a.GetCurAddr();
            LocalTensor<half> t2 = a.Alloc<TPosition::VECIN, half>(3);
            Duplicate(r, 0.0f, N);
            // GetPhyAddr of a UB tensor is a pointer into the block's UB arena (64-byte aligned, so UB
            // address 0 keeps its alignment): offsets between tensors are their UB addresses' offsets
            r.SetValue(0, (float)(t1.GetPhyAddr() % 64));
            r.SetValue(1, after1);
            r.SetValue(2, (float)(t2.GetPhyAddr() - t1.GetPhyAddr()));
            r.SetValue(3, (float)a.GetCurAddr());
            r.SetValue(4, (float)t1.GetSize());
            // event ids: FetchEventID does not hold its id, AllocEventID does until ReleaseEventID
            TPipe *p = GetTPipePtr();
            int32_t f1 = p->FetchEventID(HardEvent::V_S), f2 = p->FetchEventID<HardEvent::V_S>();
            int32_t a1 = p->AllocEventID<HardEvent::V_S>(), a2 = p->AllocEventID<HardEvent::V_S>();
            int32_t f3 = p->FetchEventID(HardEvent::V_S);
            p->ReleaseEventID<HardEvent::V_S>(a1);
            int32_t f4 = p->FetchEventID(HardEvent::V_S);
            p->ReleaseEventID<HardEvent::V_S>(a2);
            r.SetValue(5, (float)f1); r.SetValue(6, (float)f2); r.SetValue(7, (float)a1);
            r.SetValue(8, (float)a2); r.SetValue(9, (float)f3); r.SetValue(10, (float)f4);
            // a kernel's own read and write through `(__ubuf__ T *)x.GetPhyAddr()` (ops-nn group_quant)
            __ubuf__ float *raw = (__ubuf__ float *)r.GetPhyAddr();
            raw[11] = raw[1] + 1.0f;
            // a buffer's TBuffAddr taken by handle and a tensor pointed back at it (ops-transformer's
            // mla_prolog): the whole buffer (N floats = 2 N halves) at r's address, in r's position
            TBuffAddr ra = bufR.GetBufferAddr(r.GetBufferHandle());
            LocalTensor<half> back;
            back.SetAddr(ra);
            r.SetValue(12, (float)back.GetSize());
            r.SetValue(13, (float)(back.GetPhyAddr() - r.GetPhyAddr()));
            r.SetValue(14, (float)((uint8_t)back.GetPosition() == (uint8_t)r.GetPosition()));
            r.SetValue(15, (float)ra.dataLen);
            Store(7, r);
        }
        // 8: Reg: y = x * 2 + x over 200 elements, one register (64 floats) at a time
        Duplicate(r, 0.0f, N);
        {
            __ubuf__ float *src = (__ubuf__ float *)x.GetPhyAddr();
            __ubuf__ float *dst = (__ubuf__ float *)r.GetPhyAddr();
            uint32_t count = 200;
            __VEC_SCOPE__
            {
                MicroAPI::RegTensor<float> a, b;
                for (uint16_t i = 0; i < 4; i++) {
                    MicroAPI::MaskReg m = MicroAPI::UpdateMask<float>(count);
                    MicroAPI::LoadAlign(a, src + i * 64);
                    MicroAPI::Muls(b, a, 2.0f, m);
                    MicroAPI::Add(b, b, a, m);
                    MicroAPI::StoreAlign(dst + i * 64, b, m);
                }
            }
        }
        Store(8, r);
        // 27: asc_vf_call of a __simd_vf__ function (see SemVf)
        Duplicate(r, 0.0f, N);
        asc_vf_call<SemVf>((__ubuf__ float *)x.GetPhyAddr(), (__ubuf__ float *)r.GetPhyAddr(), 150u, (uint16_t)4);
        Store(27, r);
        // 28: the C API's register functions (see SemCapiVf), then its count form: r = r * x (asc_mul on UB)
        Duplicate(r, 0.0f, N);
        asc_vf_call<SemCapiVf>((__ubuf__ float *)x.GetPhyAddr(), (__ubuf__ float *)r.GetPhyAddr());
        PipeBarrier<PIPE_ALL>();
        asc_mul_sync((__ubuf__ float *)r.GetPhyAddr(), (__ubuf__ float *)r.GetPhyAddr(), (__ubuf__ float *)x.GetPhyAddr(), 128u);
        Store(28, r);
        // 29: Duplicate of a tensor's lowest element, x[8] over the first 100 (the rest stays 0)
        Duplicate(r, 0.0f, N);
        PipeBarrier<PIPE_V>();
        Duplicate(r, x[8], 100);
        Store(29, r);
        Nop<3>(); // a delay: no data changes
        // 30: Reg ReduceMax / ReduceSum by name over the first 16 lanes: max in element 0, sum in element 8
        Duplicate(r, 0.0f, N);
        {
            MicroAPI::RegTensor<float> a, mx, sm;
            MicroAPI::MaskReg m16 = MicroAPI::CreateMask<float, MicroAPI::MaskPattern::VL16>();
            MicroAPI::MaskReg m1 = MicroAPI::CreateMask<float, MicroAPI::MaskPattern::VL1>();
            MicroAPI::LoadAlign(a, (__ubuf__ float *)x.GetPhyAddr());
            MicroAPI::ReduceMax(mx, a, m16);
            MicroAPI::ReduceSum(sm, a, m16);
            MicroAPI::StoreAlign<float, MicroAPI::StoreDist::DIST_FIRST_ELEMENT_B32>((__ubuf__ float *)r.GetPhyAddr(), mx, m1);
            MicroAPI::StoreAlign<float, MicroAPI::StoreDist::DIST_FIRST_ELEMENT_B32>((__ubuf__ float *)r.GetPhyAddr() + 8, sm, m1);
            // the sum spread by the register form of Duplicate over 8 lanes, from element 24 on
            MicroAPI::RegTensor<float> spread;
            MicroAPI::MaskReg m8 = MicroAPI::CreateMask<float, MicroAPI::MaskPattern::VL8>();
            MicroAPI::Duplicate<float, MicroAPI::HighLowPart::LOWEST, MicroAPI::MaskMergeMode::ZEROING>(spread, sm, m8);
            MicroAPI::StoreAlign((__ubuf__ float *)r.GetPhyAddr() + 24, spread, m8);
            // the max again at element 9 (DIST_FIRST_ELEMENT_B32 needs 4-byte alignment only), and x[3]
            // broadcast from its 4-byte aligned address (DIST_BRC_B32) over 8 lanes from element 32 on
            MicroAPI::StoreAlign<float, MicroAPI::StoreDist::DIST_FIRST_ELEMENT_B32>((__ubuf__ float *)r.GetPhyAddr() + 9, mx, m8);
            MicroAPI::RegTensor<float> brc;
            MicroAPI::LoadAlign<float, MicroAPI::LoadDist::DIST_BRC_B32>(brc, (__ubuf__ float *)x.GetPhyAddr() + 3);
            MicroAPI::StoreAlign((__ubuf__ float *)r.GetPhyAddr() + 32, brc, m8);
            // Mula (MulAddDst): x[3] * x + x over 8 lanes, from element 40 on
            MicroAPI::RegTensor<float> acc = a;
            MicroAPI::Mula(acc, brc, a, m8);
            MicroAPI::StoreAlign((__ubuf__ float *)r.GetPhyAddr() + 40, acc, m8);
            // and the low byte of each of the 16 lanes, packed (DIST_PACK4_B32) from element 16 on
            MicroAPI::StoreAlign<float, MicroAPI::StoreDist::DIST_PACK4_B32>((__ubuf__ float *)r.GetPhyAddr() + 16, a, m16);
        }
        Store(30, r);
        // 9: Reg: tree sum of the first 8 lanes (MaskPattern::VL8), lane 0 stored alone
        Duplicate(r, 0.0f, N);
        {
            MicroAPI::RegTensor<float> a, s;
            MicroAPI::MaskReg m8 = MicroAPI::CreateMask<float, MicroAPI::MaskPattern::VL8>();
            MicroAPI::LoadAlign(a, (__ubuf__ float *)x.GetPhyAddr());
            MicroAPI::Reduce<MicroAPI::ReduceType::SUM>(s, a, m8);
            MicroAPI::StoreAlign<float, MicroAPI::StoreDist::DIST_FIRST_ELEMENT_B32>((__ubuf__ float *)r.GetPhyAddr(), s, m8);
        }
        Store(9, r);
        // 10: Reg: x > 1 ? x : -1 on the first 64 elements (Compare, Select, Duplicate)
        Duplicate(r, 0.0f, N);
        {
            MicroAPI::RegTensor<float> a, one, neg, y;
            MicroAPI::MaskReg all = MicroAPI::CreateMask<float>();
            MicroAPI::MaskReg gt;
            MicroAPI::LoadAlign(a, (__ubuf__ float *)x.GetPhyAddr());
            MicroAPI::Duplicate(one, 1.0f, all);
            MicroAPI::Duplicate(neg, -1.0f);
            MicroAPI::Compare<float, CMPMODE::GT>(gt, a, one, all);
            MicroAPI::Select(y, a, neg, gt);
            MicroAPI::StoreAlign((__ubuf__ float *)r.GetPhyAddr(), y, all);
        }
        Store(10, r);
        // 11: ArithProgression, 200 floats from -3 in steps of 0.1 (the documented 8 / 64 block scheme)
        Duplicate(r, 0.0f, N); ArithProgression<float>(r, -3.0f, 0.1f, 200); Store(11, r);
        // 12: mask/repeat CompareScalar (x > 0, 2 repeats) and Select with a narrower mask (32 lanes per
        // repeat): selected lanes x or -5, the lanes the mask leaves out keep 7
        {
            LocalTensor<uint8_t> bits = rh.ReinterpretCast<uint8_t>();
            CompareScalar(bits, x, 0.0f, CMPMODE::GT, (uint64_t)64, 2, UnaryRepeatParams());
            Duplicate(r, 7.0f, N);
            Select(r, bits, x, -5.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, (uint64_t)32, 2, BinaryRepeatParams());
            Store(12, r);
        }
        // 13: CreateVecIndex from -10, 100 elements
        {
            LocalTensor<int32_t> idx = r.ReinterpretCast<int32_t>();
            Duplicate(idx, 0, N); CreateVecIndex(idx, (int32_t)-10, 100); Store(13, r);
        }

        // 14: Power, the three forms: |x|^0.5 (tensor, scalar), 1.5^(x/1000) (scalar, tensor),
        // |x|^(x/1000) (tensor, tensor)
        {
            LocalTensor<float> e = bufE.Get<float>();
            LocalTensor<float> base = e[N];
            LocalTensor<uint8_t> tmp = e[2 * N].ReinterpretCast<uint8_t>();
            Abs(base, x, N);
            Muls(e, x, 0.001f, N);
            Duplicate(r, 0.0f, N);
            Power(r, base, 0.5f, tmp, 64);
            Power(r[64], 1.5f, e[64], 64);
            Power<float, false>(r[128], base[128], e[128], 128);
            Store(14, r);
        }
        // 15: Power on int32: (i % 7 - 3) ^ (i % 9 - 1), negative exponents included
        {
            LocalTensor<int32_t> bi = bufE.Get<int32_t>();
            LocalTensor<int32_t> ei = bi[N];
            LocalTensor<int32_t> ri = r.ReinterpretCast<int32_t>();
            for (int32_t i = 0; i < N; i++) {
                bi.SetValue(i, i % 7 - 3);
                ei.SetValue(i, i % 9 - 1);
            }
            Power(ri, bi, ei);
            Store(15, r);
        }
        // 16: Concat + full Sort of 64 scores rint(x / 1000) (many ties) with indexes 0..63, then
        // Extract: values in r[0..64), indexes (uint32 bits) in r[64..128); 17: Sort32 (one group of 32
        // each) of x[64..128) with indexes 100.., Extract into r[0..64) / r[64..128)
        {
            LocalTensor<float> e = bufE.Get<float>();
            LocalTensor<float> scores = e;              // 64
            LocalTensor<float> concat = e[64];          // 64
            LocalTensor<uint32_t> idx = e[128].ReinterpretCast<uint32_t>(); // 64
            LocalTensor<float> sorted = e[256];         // 64 * 2
            LocalTensor<float> tmp = e[512];
            LocalTensor<int32_t> ri = e[768].ReinterpretCast<int32_t>();
            Muls(scores, x, 0.001f, 64);
            Cast(ri, scores, RoundMode::CAST_RINT, 64);
            Cast(scores, ri, RoundMode::CAST_NONE, 64);
            CreateVecIndex(idx.ReinterpretCast<int32_t>(), (int32_t)0, 64);
            Concat(concat, scores, tmp, 4);
            Sort<float, true>(sorted, concat, idx, tmp, 2);
            Duplicate(r, 0.0f, N);
            Extract(r, r[64].ReinterpretCast<uint32_t>(), sorted, 2);
            Store(16, r);
            CreateVecIndex(idx.ReinterpretCast<int32_t>(), (int32_t)100, 64);
            Sort32(sorted, x[64], idx, 2);
            Duplicate(r, 0.0f, N);
            Extract(r, r[64].ReinterpretCast<uint32_t>(), sorted, 2);
            Store(17, r);
        }

        // 18: the high-level Exp<T, taylorExpandLevel>: exp(x / 1000) with and without a tmp buffer
        {
            LocalTensor<float> e = bufE.Get<float>();
            Muls(e, x, 0.001f, N);
            Duplicate(r, 0.0f, N);
            Exp<float, false>(r, e, 128);
            Exp<float, 2, false>(r[128], e[128], e[N].ReinterpretCast<uint8_t>(), 128);
            Store(18, r);
        }

        // 19: TransDataTo5HD, 32-bit, address-list form: 2 repeats; sources are the even blocks of x
        // (the odd ones in repeat 1, srcRepStride 1), destinations blocks 0..15 of r (16..31 in repeat 1).
        Duplicate(r, 0.0f, N);
        {
            uint64_t dl[16], sl[16];
            for (int i = 0; i < 16; i++) { sl[i] = x.GetPhyAddr(i * 16); dl[i] = r.GetPhyAddr(i * 8); }
            TransDataTo5HDParams p(false, false, 2, 16, 1);
            TransDataTo5HD<float>(dl, sl, p);
        }
        Store(19, r);
        // 20: 16-bit with repeatTimes 1: the one repeat starts one dstRepStride (16 blocks) after the list.
        Duplicate(r, 0.0f, N);
        {
            LocalTensor<half> rhalf = r.ReinterpretCast<half>();
            uint64_t dl[16], sl[16];
            for (int i = 0; i < 16; i++) { sl[i] = h.GetPhyAddr(i * 16); dl[i] = rhalf.GetPhyAddr(i * 16); }
            TransDataTo5HD<half>(dl, sl, TransDataTo5HDParams{false, false, 1, 16, 0});
        }
        Store(20, r);
        // 21: Cast half -> int4b_t (an int8 tensor reinterpreted), CAST_RINT, two to a byte, low
        // nibble first, into r's first 128 bytes; and the scalar sqrt kernel code calls, at r[64].
        Duplicate(r, 0.0f, N);
        {
            LocalTensor<int4b_t> packed = r.ReinterpretCast<int8_t>().ReinterpretCast<int4b_t>();
            Cast(packed, h, RoundMode::CAST_RINT, N);
            PipeBarrier<PIPE_ALL>();
            r.SetValue(64, sqrt(x.GetValue(5) * x.GetValue(5) + 2.0f));
        }
        Store(21, r);
        // 22..26: Cast float -> float with CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC: each
        // rounds to an integral value (asc-devkit precision_conversion.md, "float → float").
        {
            const RoundMode modes[5] = {RoundMode::CAST_RINT, RoundMode::CAST_FLOOR, RoundMode::CAST_CEIL,
                                        RoundMode::CAST_ROUND, RoundMode::CAST_TRUNC};
            for (int k = 0; k < 5; k++) {
                Duplicate(r, 0.0f, N);
                Cast(r, x, modes[k], N);
                Store(22 + k, r);
            }
            // half 6..10: the same five modes on half -> half (h holds ties such as -22.5 and 1.5).
            for (int k = 0; k < 5; k++) {
                Duplicate(rh, (half)0.0f, N);
                Cast(rh, h, modes[k], N);
                StoreH(6 + k, rh);
            }
        }

        // half 11: the high-level Sigmoid on half, each of its steps rounded to half
        Duplicate(rh, (half)0.0f, N); Sigmoid(rh, h, N); StoreH(11, rh);
        // half 0: ReduceSum of the asc-devkit example [60000, 60000, -30000, 100] -> 35604
        Duplicate(rh, (half)0.0f, N); ReduceSum(rh, h, rh[128], 4); StoreH(0, rh);
        // half 1: BlockReduceSum, 8 blocks of 16 halves
        Duplicate(rh, (half)0.0f, N); BlockReduceSum<half>(rh, h, 1, 128, 1, 1, 8); StoreH(1, rh);
        // half 2: Reg: half -> float (UNPACK_B16 + Cast, layout ZERO), * 0.5, -> half (Cast + PACK_B32)
        Duplicate(rh, (half)0.0f, N);
        {
            static constexpr MicroAPI::CastTrait up = {MicroAPI::RegLayout::ZERO, MicroAPI::SatMode::NO_SAT,
                                                       MicroAPI::MaskMergeMode::ZEROING, RoundMode::CAST_NONE};
            static constexpr MicroAPI::CastTrait down = {MicroAPI::RegLayout::ZERO, MicroAPI::SatMode::NO_SAT,
                                                         MicroAPI::MaskMergeMode::ZEROING, RoundMode::CAST_RINT};
            __ubuf__ half *src = (__ubuf__ half *)h.GetPhyAddr();
            __ubuf__ half *dst = (__ubuf__ half *)rh.GetPhyAddr();
            MicroAPI::MaskReg all32 = MicroAPI::CreateMask<float>();
            for (uint16_t i = 0; i < 2; i++) {
                MicroAPI::RegTensor<half> hv, ho;
                MicroAPI::RegTensor<float> fv;
                MicroAPI::LoadAlign<half, MicroAPI::LoadDist::DIST_UNPACK_B16>(hv, src + i * 64);
                MicroAPI::Cast<float, half, up>(fv, hv, all32);
                MicroAPI::Muls(fv, fv, 0.5f, all32);
                MicroAPI::Cast<half, float, down>(ho, fv, all32);
                MicroAPI::StoreAlign<half, MicroAPI::StoreDist::DIST_PACK_B32>(dst + i * 64, ho, all32);
            }
        }
        StoreH(2, rh);
        // half 3: int32 -> half through SetDeqScale(0.25): rint(x * 100) * 0.25
        {
            LocalTensor<int32_t> xi = w.ReinterpretCast<int32_t>();
            Muls(r, x, 100.0f, N);
            Cast(xi, r, RoundMode::CAST_RINT, N);
            SetDeqScale((half)0.25f);
            Cast(rh, xi, RoundMode::CAST_NONE, N);
            StoreH(3, rh);
        }
        // half 4: TransDataTo5HD, 16-bit, LocalTensor-list form: a 16x16 transpose of h.
        Duplicate(rh, (half)0.0f, N);
        {
            LocalTensor<half> dl[16], sl[16];
            for (int i = 0; i < 16; i++) { sl[i] = h[i * 16]; dl[i] = rh[i * 16]; }
            TransDataTo5HD<half>(dl, sl, TransDataTo5HDParams(false, false, 1, 0, 0));
        }
        StoreH(4, rh);
        // half 5: TransDataTo5HD, 8-bit on h's bytes: low halves, then high halves (src and dst).
        Duplicate(rh, (half)0.0f, N);
        {
            LocalTensor<uint8_t> hb = h.ReinterpretCast<uint8_t>(), ob = rh.ReinterpretCast<uint8_t>();
            uint64_t dl[16], sl[16];
            for (int i = 0; i < 16; i++) { sl[i] = hb.GetPhyAddr(i * 32); dl[i] = ob.GetPhyAddr(i * 32); }
            TransDataTo5HD<uint8_t>(dl, sl, TransDataTo5HDParams(false, false, 1, 0, 0));
            TransDataTo5HD<uint8_t>(dl, sl, TransDataTo5HDParams(true, true, 1, 0, 0));
        }
        StoreH(5, rh);
        // half 12: TransDataTo5HDImpl, the raw UB pointer lists under the public API (ops-nn's
        // ge_glu_grad_v2): the same 16x16 transpose as half 4.
        Duplicate(rh, (half)0.0f, N);
        {
            __ubuf__ half *hp = (__ubuf__ half *)h.GetPhyAddr(), *rp = (__ubuf__ half *)rh.GetPhyAddr();
            __ubuf__ half *dl[16], *sl[16];
            for (int i = 0; i < 16; i++) { sl[i] = hp + i * 16; dl[i] = rp + i * 16; }
            TransDataTo5HDParams p;
            TransDataTo5HDImpl(dl, sl, p);
        }
        StoreH(12, rh);
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> bufX, bufH, bufR, bufW, bufRH, bufE;
    GlobalTensor<float> xGm, outGm;
    GlobalTensor<half> hGm, ohGm;
};

extern "C" __global__ __aicore__ void sem_test(GM_ADDR x, GM_ADDR h, GM_ADDR out, GM_ADDR outh, GM_ADDR workspace,
                                               GM_ADDR tiling)
{
    SemTest op;
    op.Init(x, h, out, outh);
    op.Process();
}
