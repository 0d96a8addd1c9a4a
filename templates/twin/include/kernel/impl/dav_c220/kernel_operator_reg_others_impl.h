// impl/dav_c220/kernel_operator_reg_others_impl.h: a CANN-internal header of the A2/A3 (dav-c220) kernel
// library (register-level wrappers: special-register reads, AIPP register settings, hardware flags).
//
// Owns: letting operators that include it build on the twin. 21 ops-nn operator folders include it
// (add_layer_norm*, add_rms_norm_dynamic_quant*, ctc_loss_v3*, deep_norm*, ...), and none of them calls
// one of its register-level wrappers (HsetFlag, GetCmpmask, GetMaxMinCnt, SetAippSpr*, ...; checked with
// `git grep` over those folders at the pinned commit); what they call beside it (GetAccVal, the older
// name of GetReduceRepeatSumSpr; AscendCUtils) belongs to the rest of the kernel library. So the twin brings in its kernel API and declares none of the register-level
// wrappers: a kernel that calls one fails to build naming it, rather than running on a made-up
// register. Must not know: anything of the twin's runtime beyond kernel_operator.h.
#pragma once
#include "kernel_operator.h"
