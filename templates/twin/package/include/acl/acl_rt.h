// twin package: acl/acl_rt.h, the header of the AscendCL runtime calls (device, context, stream, memory)
// that CANN's acl/acl.h includes with the others; CANN 9 samples include it alone (hicann/cann-samples'
// rms_norm_quant_story and the regbase stories' sample_common.h). The twin's acl/acl.h holds the subset of
// those calls that it implements (see there), so this header is that one under the runtime's own name.
// Written from the AscendCL API reference (hiascend.com, "acl_rt.h" in the header list of the runtime
// APIs); no CANN header is copied.
#pragma once
#include "acl/acl.h"
