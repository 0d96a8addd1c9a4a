# The twin package's ASC language: the compiler is bin/twin-asc (see ../ASCConfig.cmake).
if(DEFINED CMAKE_ASC_RUN_MODE AND NOT "${CMAKE_ASC_RUN_MODE}" STREQUAL "" AND NOT "${CMAKE_ASC_RUN_MODE}" STREQUAL "cpu")
    message(FATAL_ERROR "the ascend-tune twin package runs Ascend C on the CPU only: CMAKE_ASC_RUN_MODE=${CMAKE_ASC_RUN_MODE} needs a CANN toolkit (use cpu with the twin package)")
endif()
get_filename_component(CMAKE_ASC_COMPILER "${CMAKE_CURRENT_LIST_DIR}/../../../../bin/twin-asc" ABSOLUTE)
set(CMAKE_ASC_COMPILER_ID "AscendTuneTwin")
set(CMAKE_ASC_COMPILER_ENV_VAR "ASCC")
configure_file("${CMAKE_CURRENT_LIST_DIR}/CMakeASCCompiler.cmake.in"
    "${CMAKE_PLATFORM_INFO_DIR}/CMakeASCCompiler.cmake" @ONLY)
