// twin: register/register_types.h, the export markers of CANN's registration headers
// (FMK_FUNC_HOST_VISIBILITY / FMK_FUNC_DEV_VISIBILITY: symbol visibility of the classes the framework's
// libraries export). The twin links everything into one program, so they mark nothing. ops-nn's tuning
// bank-key registry (common/inc/op_host/register/tuning_bank_key_registry.h) includes this header.
#pragma once
#ifndef FMK_FUNC_HOST_VISIBILITY
#define FMK_FUNC_HOST_VISIBILITY
#endif
#ifndef FMK_FUNC_DEV_VISIBILITY
#define FMK_FUNC_DEV_VISIBILITY
#endif
