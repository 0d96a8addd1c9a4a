# ascendc.cmake of the ascend-tune twin package. The twin package stands in for CANN's CPU debug library
# only: it builds and runs kernel-launch projects with -DRUN_MODE=cpu. RUN_MODE=sim and RUN_MODE=npu
# compile kernels for the device (ascendc_library) and need a real CANN toolkit.
message(FATAL_ERROR
    "this CANN path (${ASCEND_CANN_PACKAGE_PATH}) is an ascend-tune twin package, which supports RUN_MODE=cpu only: "
    "configure with -DRUN_MODE=cpu, or point ASCEND_CANN_PACKAGE_PATH at a real CANN toolkit for RUN_MODE=sim or npu")
