// twin (kernel side): tiling data definitions are plain structs with members in declaration order.
// The host side (include/host/register/tilingdata_base.h) adds only non-virtual methods, so the
// byte layout is identical.
#pragma once
#include <cstdint>
#include <cstring>
#include "../twin/tiling.h"

#define BEGIN_TILING_DATA_DEF(name) struct name {
#define TILING_DATA_FIELD_DEF(type, n) type n;
#define TILING_DATA_FIELD_DEF_ARR(type, cnt, n) type n[cnt];
#define TILING_DATA_FIELD_DEF_STRUCT(type, n) type n;
#define END_TILING_DATA_DEF };
