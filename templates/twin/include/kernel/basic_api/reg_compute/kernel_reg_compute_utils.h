// twin: basic_api/reg_compute/kernel_reg_compute_utils.h, the header CANN 9 programs include beside
// kernel_operator.h for the register-compute (Reg) vector functions of dav-3510 (hicann/cann-samples'
// rms_norm_quant_story and kv_rms_norm_rope_cache_story include it by this path). In asc-devkit
// (include/basic_api/reg_compute/kernel_reg_compute_utils.h) it holds the algorithm choices of the
// Reg math functions (ExpConfig, LnConfig, ...); the twin's Reg functions (kernel/twin/reg.h) compute
// each one way and take no such choice, so a program that names one fails to compile naming it.
#pragma once
#include "kernel_operator.h"
