use super::*;

fn files(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect()
}

/// Discovery over one host file and one kernel file.
fn run(host: &str, kernel: &str) -> Discovery {
    let host = files(&[("op_host/op.cpp", host)]);
    let kernel = files(&[("op_kernel/op.cpp", kernel)]);
    discover(&OpFiles {
        host: &host,
        kernel: &kernel,
    })
}

fn offered(d: &Discovery) -> Vec<(&str, &str, i64, TunableKind)> {
    d.offered
        .iter()
        .map(|t| (t.name.as_str(), t.file.as_str(), t.value, t.kind))
        .collect()
}

fn left_out(d: &Discovery) -> Vec<(&str, Reason)> {
    d.left_out
        .iter()
        .map(|l| (l.name.as_str(), l.reason))
        .collect()
}

/// A kernel that splits its work by block and reads the host's tile length through tiling data.
const SPLITTING_KERNEL: &str = "constexpr int32_t BUFFER_NUM = 2;\n\
    class K { TQue<QuePosition::VECIN, BUFFER_NUM> q;\n\
    __aicore__ inline void Init(GM_ADDR x, uint32_t n) { x += n * GetBlockIdx(); pipe.InitBuffer(q, BUFFER_NUM, n); } };\n";

#[test]
fn classifies_names() {
    assert_eq!(classify("BUFFER_NUM"), Some(TunableKind::BufferCount));
    assert_eq!(
        classify_valued("BUFFER_NUM_FP32", 6),
        Some(TunableKind::UbSplit)
    );
    assert_eq!(classify("USE_CORE_NUM"), Some(TunableKind::BlockDim));
    assert_eq!(classify("numBlocks"), Some(TunableKind::BlockDim));
    assert_eq!(classify("NUM_BLOCKS"), Some(TunableKind::BlockDim));
    assert_eq!(classify("MAX_VECTOR_CORE_NUM"), Some(TunableKind::BlockDim));
    assert_eq!(classify("TILE_LENGTH"), Some(TunableKind::Size));
    assert_eq!(classify("tileBlockNum"), Some(TunableKind::TileCount));
    assert_eq!(classify("tileNum"), Some(TunableKind::TileCount));
    assert_eq!(classify("LOOP_COUNT"), Some(TunableKind::TileCount));
    assert_eq!(classify("TILE_NUM_PER_CORE"), Some(TunableKind::Size));
    assert_eq!(classify("tileLengthNum"), Some(TunableKind::Size));
    assert_eq!(classify("UB_BLOCK_NUM"), Some(TunableKind::UbSplit));
    assert_eq!(classify("UB_CHUNK_ELEMS"), Some(TunableKind::Size));
    assert_eq!(classify("PI"), None);
    assert_eq!(classify("singleCoreM"), Some(TunableKind::Size));
    assert_eq!(classify("SINGLE_BLOCK_N"), Some(TunableKind::Size));
    assert_eq!(classify("singleValue"), None);
    // The names real tiling functions give their UB split and per-core minimum (ops-math floor_mod,
    // ops-nn softsign).
    assert_eq!(classify("UB_DIVIDER_FP16"), Some(TunableKind::UbSplit));
    assert_eq!(classify("UB_DATA_NUMBER_32"), Some(TunableKind::UbSplit));
    assert_eq!(
        classify("FLOAT_BUFFER_COEFFICIENT"),
        Some(TunableKind::UbSplit)
    );
    assert_eq!(
        classify("MINIMUM_ELEMENT_PER_CORE"),
        Some(TunableKind::Size)
    );
    assert_eq!(classify("MIN_SPLIT_THRESHOLD"), Some(TunableKind::UbSplit));
    assert_eq!(classify("SHIFT_PARAM"), None);
    assert_eq!(words("tileBlockNum"), ["TILE", "BLOCK", "NUM"]);
    assert_eq!(words("BUFFER_NUM_FP32"), ["BUFFER", "NUM", "FP32"]);
}

#[test]
fn alignment_units_type_sizes_and_workspaces_are_never_offered() {
    let host = "const uint32_t BLOCK_SIZE = 32;\nconst uint32_t ONE_BLK_SIZE = 32;\n\
        constexpr uint32_t CACHE_LINE_BYTE_LENGTH = 512;\nconst uint32_t ALIGN_LEN = 16;\n\
        const uint32_t FLOAT32_SIZE = 4;\nconst int typeSize = 4;\nconst uint32_t DATA_TYPE_LENGTH = 2;\n\
        constexpr uint8_t BYTE_LEN_4 = 4;\nconst uint64_t ULONG_BIT_LEN = 64;\nconst int64_t BNG_V3_RA_SPLIT_R_TK_BASE = 11000000;\n\
        const uint32_t WS_SYS_SIZE = 16777216;\nconst uint32_t WORKSPACE_SIZE = 1024;\nconst int64_t DCACHE_SIZE = 32768;\n\
        static const size_t WORKSPACES_DEFAULT_SIZE_32B = 32;\nconst uint32_t TILE_LENGTH = 2048;\nconstexpr uint32_t OP_TPL_SCH_MODE_TILE = 1;\n\
        constexpr int64_t kC0Size = 16;\nconst int64_t kvFactor = 2;\n\
        void Tiling(Ctx* c) { uint32_t n = TILE_LENGTH / BLOCK_SIZE / ONE_BLK_SIZE * CACHE_LINE_BYTE_LENGTH\n\
          * ALIGN_LEN * FLOAT32_SIZE * typeSize * DATA_TYPE_LENGTH * BYTE_LEN_4 * ULONG_BIT_LEN + BNG_V3_RA_SPLIT_R_TK_BASE + WS_SYS_SIZE + WORKSPACE_SIZE + WORKSPACES_DEFAULT_SIZE_32B + OP_TPL_SCH_MODE_TILE - DCACHE_SIZE + kC0Size * kvFactor; c->SetBlockDim(8); }\n";
    let d = run(host, SPLITTING_KERNEL);
    assert_eq!(
        left_out(&d),
        [
            ("block_size", Reason::AlignmentUnit),
            ("one_blk_size", Reason::AlignmentUnit),
            ("cache_line_byte_length", Reason::AlignmentUnit),
            ("align_len", Reason::AlignmentUnit),
            ("float32_size", Reason::DataTypeSize),
            ("typesize", Reason::DataTypeSize),
            ("data_type_length", Reason::DataTypeSize),
            ("byte_len_4", Reason::DataTypeSize),
            ("ulong_bit_len", Reason::DataTypeSize),
            ("bng_v3_ra_split_r_tk_base", Reason::Selector),
            ("ws_sys_size", Reason::Workspace),
            ("workspace_size", Reason::Workspace),
            ("dcache_size", Reason::HardwareReserve),
            ("workspaces_default_size_32b", Reason::Workspace),
            ("op_tpl_sch_mode_tile", Reason::Selector),
            ("kc0size", Reason::AlignmentUnit),
            ("kvfactor", Reason::DataTypeSize),
        ]
    );
    assert_eq!(
        offered(&d),
        [
            ("tile_length", "op_host/op.cpp", 2048, TunableKind::Size),
            (
                "buffer_num",
                "op_kernel/op.cpp",
                2,
                TunableKind::BufferCount
            ),
            ("block_dim", "op_host/op.cpp", 8, TunableKind::BlockDim),
        ]
    );
}

#[test]
fn a_literal_the_workspace_size_is_computed_from_is_not_offered_whatever_its_name() {
    // Ascend/samples' acl_invocation AddCustom: `usrSize` names no workspace, but is one.
    let host = "const uint32_t TILE_NUM = 8;\n\
        static int Tiling(Ctx* context) {\n  context->SetBlockDim(8);\n  t.set_tileNum(TILE_NUM);\n\
          size_t usrSize = 256;\n  size_t sysWorkspaceSize = 16777216;\n\
          size_t *currentWorkspace = context->GetWorkspaceSizes(1);\n\
          currentWorkspace[0] = usrSize + sysWorkspaceSize;\n  return 0;\n}\n\
        static int Tiling2(Ctx* context) {\n  uint32_t chunkLength = 4096;\n  size_t total = chunkLength * 2;\n\
          context->GetWorkspaceSizes(1)[0] = total;\n  return TILE_NUM;\n}\n";
    let d = run(host, SPLITTING_KERNEL);
    // a block count the tiling reads stays offered though the workspace is computed from it too
    let shared = "const uint32_t CORE_NUM = 8;\n\
        static int Tiling(Ctx* context) {\n  context->SetBlockDim(CORE_NUM);\n\
          size_t *ws = context->GetWorkspaceSizes(1);\n  ws[0] = 16777216 + CORE_NUM * 32;\n  return 0;\n}\n";
    let with_core_num = run(shared, SPLITTING_KERNEL);
    assert!(
        offered(&with_core_num).iter().any(|t| t.0 == "core_num"),
        "{:?} / {:?}",
        offered(&with_core_num),
        left_out(&with_core_num)
    );
    assert_eq!(
        left_out(&d),
        [
            ("usrsize", Reason::Workspace),
            ("sysworkspacesize", Reason::Workspace),
            ("chunklength", Reason::Workspace),
        ]
    );
    assert!(
        offered(&d).iter().any(|t| t.0 == "tile_num"),
        "{:?}",
        offered(&d)
    );
}

#[test]
fn counters_accumulators_and_unread_constants_are_not_offered() {
    // `tileNum` is a counter, `loopSize` an accumulator, `chunkLength` a value computed later;
    // `TILE_LENGTH` and `MAX_TILE_ROWS` are constants nothing reads.
    let host = "constexpr uint32_t TILE_LENGTH = 256;\nconst uint32_t MAX_TILE_ROWS = 64;\n\
        void Tiling(Ctx* c, uint32_t n) {\n  uint32_t tileNum = 1;\n  while (tileNum * 8 < n) { tileNum++; }\n\
          uint32_t loopSize = 4;\n  for (int i = 0; i < 3; i++) { loopSize += i; }\n\
          uint32_t chunkLength = 128;\n  if (n > 4) { chunkLength = n / 4; }\n\
          uint32_t tileRows = 16;\n  c->Set(tileNum, loopSize, chunkLength, tileRows);\n}\n";
    let d = run(host, SPLITTING_KERNEL);
    assert_eq!(
        left_out(&d),
        [
            ("tile_length", Reason::Unread),
            ("max_tile_rows", Reason::Unread),
            ("tilenum", Reason::Reassigned),
            ("loopsize", Reason::Reassigned),
            ("chunklength", Reason::Reassigned),
        ]
    );
    // A local that is set once and read is a constant in all but name.
    assert_eq!(
        offered(&d)[0],
        ("tilerows", "op_host/op.cpp", 16, TunableKind::Size)
    );
}

#[test]
fn block_dim_only_where_the_kernel_splits_work_by_block() {
    let host =
        "const uint32_t USE_CORE_NUM = 8;\nvoid Tiling(Ctx* c) { c->SetBlockDim(USE_CORE_NUM); }\n";
    let whole_job = "class K { __aicore__ inline void Init(GM_ADDR x, uint32_t n) { x += n; } };\n";
    let d = run(host, whole_job);
    assert!(offered(&d).is_empty(), "{:?}", offered(&d));
    assert_eq!(left_out(&d), [("use_core_num", Reason::NoBlockSplit)]);
    let literal = "void Tiling(Ctx* c) { c->SetBlockDim(8); }\n";
    assert_eq!(
        left_out(&run(literal, whole_job)),
        [("block_dim", Reason::NoBlockSplit)]
    );

    let by_num = "class K { __aicore__ inline void Init(GM_ADDR x, uint32_t n) { x += n / GetBlockNum(); } };\n";
    assert_eq!(
        offered(&run(host, by_num)),
        [("use_core_num", "op_host/op.cpp", 8, TunableKind::BlockDim)]
    );
    assert_eq!(
        offered(&run(literal, SPLITTING_KERNEL))[1],
        ("block_dim", "op_host/op.cpp", 8, TunableKind::BlockDim)
    );
}

#[test]
fn a_constant_on_both_sides_gives_two_tunables_that_derived_ties() {
    let host = "const uint32_t BUFFER_NUM = 2;\nvoid Tiling(Ctx* c, uint64_t ub) { c->tile = ub / BUFFER_NUM / 3; }\n";
    let d = run(host, SPLITTING_KERNEL);
    assert_eq!(
        offered(&d),
        [
            ("buffer_num", "op_host/op.cpp", 2, TunableKind::BufferCount),
            (
                "buffer_num_kernel",
                "op_kernel/op.cpp",
                2,
                TunableKind::BufferCount
            ),
        ]
    );
}

#[test]
fn kernel_headers_beside_the_kernel_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("op_kernel");
    std::fs::create_dir_all(&k).unwrap();
    std::fs::write(
        k.join("op.h"),
        "#include \"op_tiling.h\"\nconstexpr int32_t BUFFER_NUM = 2;\n",
    )
    .unwrap();
    std::fs::write(k.join("op_tiling.h"), "struct T { uint32_t n; };\n").unwrap();
    let kernel =
        "#include \"kernel_operator.h\"\n#include \"op.h\"\n#include \"../../common/x.h\"\n";
    let h = kernel_headers(dir.path(), "op_kernel/op.cpp", kernel);
    let names: Vec<&str> = h.iter().map(|(f, _)| f.as_str()).collect();
    assert_eq!(names, ["op_kernel/op.h", "op_kernel/op_tiling.h"]);
}

/// The values a domain written by `domain` holds.
fn domain_values(text: &str) -> Vec<i64> {
    let (key, list) = text.split_once(" = ").unwrap();
    let nums: Vec<i64> = list
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|n| n.trim().parse().unwrap())
        .collect();
    match key {
        "values" => nums,
        "range" => (nums[0]..=nums[1]).collect(),
        "pow2" => (0..40)
            .map(|e| 1i64 << e)
            .filter(|v| (nums[0]..=nums[1]).contains(v))
            .collect(),
        _ => panic!("{text}"),
    }
}

#[test]
fn domains_hold_the_current_value() {
    for kind in [
        TunableKind::BufferCount,
        TunableKind::BlockDim,
        TunableKind::Size,
        TunableKind::UbSplit,
        TunableKind::CubeBase,
        TunableKind::CubeCores,
        TunableKind::CubeStep,
        TunableKind::UbParts,
    ] {
        for value in (1..=130).chain([255, 256, 1000, 8192, 20480, 65536, 131072, 1000000]) {
            let d = domain(kind, value, 48, 24);
            let v = domain_values(&d);
            assert!(v.contains(&value), "{kind:?} {value}: {d}");
            // what the manifest takes (ops-nn's batch_norm_grad_v3 got a range of 1500001 values)
            assert!(
                v.len() <= 65536,
                "{kind:?} {value}: {d} has {} values",
                v.len()
            );
            assert!(v.len() >= 2, "{kind:?} {value}: {d} offers no choice");
        }
    }
}

#[test]
fn domains_fit_the_value_and_the_soc() {
    assert_eq!(
        domain(TunableKind::BufferCount, 1, 48, 24),
        "range = [1, 2]"
    );
    assert_eq!(domain(TunableKind::UbSplit, 6, 48, 24), "range = [3, 12]");
    assert_eq!(
        domain(TunableKind::BlockDim, 8, 40, 20),
        "values = [1, 2, 4, 8, 12, 16, 20, 24, 32, 40]"
    );
    assert_eq!(domain(TunableKind::Size, 256, 48, 24), "pow2 = [16, 16384]");
    assert_eq!(
        domain(TunableKind::Size, 8192, 48, 24),
        "pow2 = [128, 65536]"
    );
    assert_eq!(
        domain(TunableKind::Size, 300, 48, 24),
        "values = [75, 150, 300, 600, 1200]"
    );
}

#[test]
fn a_tiling_that_sizes_tiles_from_the_platform_ub_offers_the_parts_it_plans_for() {
    let host = "static ge::graphStatus T(gert::TilingContext* c) {\n    uint64_t ubSize;\n    \
        auto p = platform_ascendc::PlatformAscendC(c->GetPlatformInfo());\n    \
        p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);\n    t.set_tile(ubSize / 12);\n    \
        return 0;\n}\n";
    let d = run(host, SPLITTING_KERNEL);
    let ub: Vec<_> = offered(&d)
        .into_iter()
        .filter(|t| t.3 == TunableKind::UbParts)
        .collect();
    assert_eq!(
        ub,
        [("ub_parts", "op_host/op.cpp", 1, TunableKind::UbParts)]
    );
    assert_eq!(domain(TunableKind::UbParts, 1, 48, 24), "range = [1, 8]");
    assert_eq!(domain(TunableKind::UbParts, 6, 48, 24), "range = [1, 12]");
    // Two queries filling one variable: no single statement to own, nothing offered.
    let twice = host.replace(
        "    t.set_tile",
        "    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);\n    t.set_tile",
    );
    assert!(
        offered(&run(&twice, SPLITTING_KERNEL))
            .iter()
            .all(|t| t.3 != TunableKind::UbParts)
    );
    // A second query, into a member: offered too, named after the member.
    let member = host.replace(
        "    t.set_tile",
        "    p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, this->ubLeft_);\n    t.set_tile",
    );
    let names: Vec<String> = offered(&run(&member, SPLITTING_KERNEL))
        .into_iter()
        .filter(|t| t.3 == TunableKind::UbParts)
        .map(|t| t.0.to_string())
        .collect();
    assert_eq!(names, ["ub_parts", "ub_parts_ubleft"]);
    // The same variable queried in another function too (a TilingPrepare filling its compile info,
    // ops-math's real and fused_mul_add_n): one tunable per query, each naming its function.
    let prepare = format!(
        "{host}static ge::graphStatus TilingPrepare4Op(gert::TilingParseContext* c) {{\n    uint64_t ubSize;\n    \
         p.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);\n    return 0;\n}}\n"
    );
    let d = run(&prepare, SPLITTING_KERNEL);
    let ub: Vec<_> = d
        .offered
        .iter()
        .filter(|t| t.kind == TunableKind::UbParts)
        .map(|t| (t.name.clone(), t.bind.clone()))
        .collect();
    let bind = |f: &str| Bind::UbParts {
        var: "ubSize".into(),
        function: Some(f.into()),
    };
    assert_eq!(
        ub,
        [
            ("ub_parts".to_string(), bind("T")),
            (
                "ub_parts_tilingprepare4op".to_string(),
                bind("TilingPrepare4Op")
            )
        ]
    );
}

/// A kernel with the high-level Matmul, splitting its work by block.
const MATMUL_KERNEL: &str = "extern \"C\" __global__ __aicore__ void mm(GM_ADDR a, GM_ADDR t) {\n    \
    GET_TILING_DATA(d, t);\n    int32_t m = GetBlockIdx() % 4;\n    mm.IterateAll(c);\n}\n";

/// The host's matmul tiling with the fixture's named constants (fixtures/matmul_custom).
const MATMUL_HOST: &str = "namespace optiling {\nconst int32_t CORE_NUM = 1;\nconst int32_t BASE_M = 32;\n\
    const int32_t BASE_N = 64;\nconst int32_t BASE_K = 16;\n\
    static ge::graphStatus TilingFunc(gert::TilingContext *context) {\n    \
    matmul_tiling::MultiCoreMatmulTiling cubeTiling(p);\n    cubeTiling.SetDim(CORE_NUM);\n    \
    cubeTiling.SetShape(M, N, K);\n    cubeTiling.SetFixSplit(BASE_M, BASE_N, BASE_K);\n    \
    cubeTiling.SetBufferSpace(-1, -1, -1);\n    \
    context->SetBlockDim(tiling.cubeTilingData.usedCoreNum);\n    return 0;\n}\n}\n";

#[test]
fn the_matmul_tilings_constants_are_offered_as_cube_tunables() {
    let d = run(MATMUL_HOST, MATMUL_KERNEL);
    let f = "op_host/op.cpp";
    assert_eq!(
        offered(&d),
        [
            // Found by its name first, then given the cube kind since it feeds SetDim.
            ("core_num", f, 1, TunableKind::CubeCores),
            ("base_m", f, 32, TunableKind::CubeBase),
            ("base_n", f, 64, TunableKind::CubeBase),
            ("base_k", f, 16, TunableKind::CubeBase),
        ]
    );
    assert!(
        d.offered[1..]
            .iter()
            .all(|t| matches!(&t.bind, Bind::Symbol(s) if s.to_ascii_lowercase() == t.name))
    );
    assert!(d.left_out.is_empty(), "{:?}", d.left_out);
    // Whatever the constants are called.
    let renamed = MATMUL_HOST.replace("BASE_M", "kTileRows");
    assert_eq!(offered(&run(&renamed, MATMUL_KERNEL))[1].0, "ktilerows");
    // A kernel that never asks its block: the core split is left out, the blocks still offered.
    let whole = MATMUL_KERNEL.replace("GetBlockIdx() % 4", "0");
    let d = run(MATMUL_HOST, &whole);
    assert_eq!(left_out(&d), [("core_num", Reason::NoBlockSplit)]);
    assert_eq!(offered(&d).len(), 3);
}

#[test]
fn literal_arguments_of_the_matmul_tiling_are_offered_as_those_arguments() {
    let host = "int T(Ctx *c) {\n    MultiCoreMatmulTiling mt(p);\n    mt.SetDim(8);\n    \
        mt.SetFixSplit(128, 256, 64);\n    mt.SetBufferSpace(262144, 131072, -1);\n    \
        mt.GetTiling(td.mm);\n    td.mm.set_depthA1(8);\n    td.mm.set_stepKa(4);\n    \
        td.mm.set_stepM(baseSteps);\n    return 0;\n}\n";
    let d = run(host, MATMUL_KERNEL);
    let f = "op_host/op.cpp";
    assert_eq!(
        offered(&d),
        [
            ("core_num", f, 8, TunableKind::CubeCores),
            ("base_m", f, 128, TunableKind::CubeBase),
            ("base_n", f, 256, TunableKind::CubeBase),
            ("base_k", f, 64, TunableKind::CubeBase),
            // -1 (the tiling decides the UB) is not a literal to tune; a computed step neither.
            ("l1_space", f, 262144, TunableKind::CubeBuffer),
            ("l0c_space", f, 131072, TunableKind::CubeBuffer),
            ("depth_a1", f, 8, TunableKind::CubeStep),
            ("step_ka", f, 4, TunableKind::CubeStep),
        ]
    );
    assert_eq!(
        d.offered[2].bind,
        Bind::Call {
            func: "SetFixSplit".into(),
            arg: 1
        }
    );
    // Each binding finds its literal again, as tune will.
    for t in &d.offered {
        let site = binding::find_site(host, f, &t.bind).unwrap();
        assert_eq!(site.value, t.value, "{}", t.name);
    }
    // A local with a literal initialiser, as the public examples write it; not one assigned again.
    let local = "int T() {\n    int32_t baseM = 128;\n    int32_t baseN = 64;\n    \
        if (m < 64) { baseN = 32; }\n    mt.SetFixSplit(baseM, baseN, -1);\n}\n";
    assert_eq!(
        offered(&run(local, MATMUL_KERNEL)),
        [("basem", f, 128, TunableKind::CubeBase)]
    );
    // Runtime values (the usual -1 defaults and shapes) give nothing.
    let computed = "int T(Ctx *c) { mt.SetDim(n); mt.SetFixSplit(bm, bn, -1); mt.SetBufferSpace(-1, -1, -1); }\n";
    assert!(offered(&run(computed, MATMUL_KERNEL)).is_empty());
    // Two calls of one setter: no single literal to own; left to the name rules.
    let twice = "int T() { a.SetDim(8); b.SetDim(4); }\n";
    assert!(offered(&run(twice, MATMUL_KERNEL)).is_empty());
}

#[test]
fn cube_domains_follow_the_cube() {
    // The AIC count, not the AIV count.
    assert_eq!(
        domain(TunableKind::CubeCores, 1, 48, 24),
        "values = [1, 2, 4, 8, 12, 16, 20, 24]"
    );
    assert_eq!(
        domain(TunableKind::CubeBase, 32, 48, 24),
        "pow2 = [16, 256]"
    );
    assert_eq!(
        domain(TunableKind::CubeBase, 48, 48, 24),
        "values = [16, 32, 48, 64, 128, 256]"
    );
    assert_eq!(domain(TunableKind::CubeStep, 4, 48, 24), "pow2 = [1, 8]");
    assert_eq!(
        domain(TunableKind::CubeBuffer, 262144, 48, 24),
        "values = [65536, 131072, 262144]"
    );
    // Rendered as init writes them.
    let d = run(MATMUL_HOST, MATMUL_KERNEL);
    let text = render_tunables(&d.offered, 48, 24);
    assert!(
        text.contains("name = \"base_m\"\nfile = \"op_host/op.cpp\"\nsymbol = \"BASE_M\"\npow2 = [16, 256]   # now 32"),
        "{text}"
    );
    assert!(
        text.contains("values = [1, 2, 4, 8, 12, 16, 20, 24]   # now 1"),
        "{text}"
    );
}

/// A tiling that sets its tile count to a literal (the learning hub's `tiling->tileNum = 360;`) offers
/// it as a tile count bound to the field, whose domain reaches down to one tile; a field set to a
/// computed value, set twice, or named as an alignment unit is not offered.
#[test]
fn a_literal_the_tiling_assigns_to_a_field_is_offered() {
    let host = "static ge::graphStatus TilingFunc(gert::TilingContext* context)\n{\n  TilingData *tiling = context->GetTilingData<TilingData>();\n  context->SetBlockDim(40);\n  tiling->totalLength = total;\n  tiling->tileNum = 360;\n  tiling->alignBytes = 32;\n  tiling->loopCount = 4;\n  tiling->loopCount = 8;\n  return ge::GRAPH_SUCCESS;\n}\n";
    let d = run(host, SPLITTING_KERNEL);
    let fields: Vec<_> = d
        .offered
        .iter()
        .filter(|t| matches!(t.bind, Bind::Field { .. }))
        .map(|t| (t.name.as_str(), t.value, t.kind))
        .collect();
    assert_eq!(fields, [("tile_num", 360, TunableKind::TileCount)]);
    assert!(left_out(&d).contains(&("align_bytes", Reason::AlignmentUnit)));
    assert_eq!(
        domain(TunableKind::TileCount, 360, 48, 24),
        "values = [1, 2, 4, 8, 45, 90, 180, 360, 720, 1440]"
    );
    assert_eq!(
        domain(TunableKind::TileCount, 1, 48, 24),
        "values = [1, 2, 4, 8]"
    );
    // The registered struct's setter form.
    let setter = "void TilingFunc(gert::TilingContext* context) {\n  TilingData tiling;\n  context->SetBlockDim(8);\n  tiling.set_tileNum(16);\n}\n";
    let d = run(setter, SPLITTING_KERNEL);
    assert!(
        d.offered
            .iter()
            .any(|t| t.name == "tile_num" && t.value == 16 && t.kind == TunableKind::TileCount),
        "{d:?}"
    );
}

/// ops-nn's nll_loss writes its core rule's work per core in units, `16u * 1024u`: the factor is the
/// tunable, judged on the size it stands for, and written back in the same form; `DCACHE_SIZE = 128 *
/// 1024` stays a hardware reserve.
#[test]
fn a_size_written_in_units_is_offered_as_its_factor() {
    let host = "void Split(T* t, uint64_t n) {\n  constexpr uint64_t WORK_PER_CORE = 16u * 1024u;\n\
                constexpr uint32_t DCACHE_SIZE = 128 * 1024;\n  uint64_t ub = 192 * 1024 - DCACHE_SIZE;\n\
                t->cores = (n + WORK_PER_CORE - 1) / WORK_PER_CORE;\n  t->ub = ub;\n}\n";
    let d = run(host, SPLITTING_KERNEL);
    let found: Vec<_> = d
        .offered
        .iter()
        .filter(|t| t.name == "work_per_core")
        .map(|t| (t.value, t.scale, t.kind))
        .collect();
    assert_eq!(found, [(16, 1024, TunableKind::Size)], "{:?}", d.offered);
    assert!(
        left_out(&d).contains(&("dcache_size", Reason::HardwareReserve)),
        "{:?}",
        d.left_out
    );
    let rendered = render_tunables(&d.offered, 48, 24);
    assert!(
        rendered.contains("pow2 = [2, 128]   # now 16, times 1024 as the source writes it"),
        "{rendered}"
    );
    // the site is the factor's digits, so a candidate writes `32u * 1024u`
    let site = binding::find_site(
        host,
        "op_host/op.cpp",
        &Bind::Symbol("WORK_PER_CORE".into()),
    )
    .unwrap();
    assert_eq!(&host[site.range.clone()], "16");
    assert_eq!(binding::scale_after(host, &site), 1024);
    let plain = "constexpr int32_t TILE = 256U; // 4 * 1024 bytes\n";
    let site = binding::find_site(plain, "h.cpp", &Bind::Symbol("TILE".into())).unwrap();
    assert_eq!(binding::scale_after(plain, &site), 1);
}
