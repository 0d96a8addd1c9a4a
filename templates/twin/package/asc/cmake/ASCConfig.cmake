# ASCConfig.cmake of the ascend-tune twin package (twin @TWIN_VERSION@).
#
# Stands in for CANN 9's Ascend C toolchain package in projects that build `.asc` sources with CMake:
#   find_package(ASC)
#   project(demo LANGUAGES ASC CXX)
#   add_executable(demo add_custom.asc)
# The language ASC is compiled by bin/twin-asc, which builds Ascend C for the CPU with the twin (kernel
# launches `<<<...>>>` run on the twin's block runner; ACL calls use the twin's subset). Only cpu runs:
# configuring with -DCMAKE_ASC_RUN_MODE=sim or npu stops with an error. Written from the documented use
# of these names ("Compilation Using CMake", Ascend C programming guide, CANN 9.0); no CANN file is copied.

list(APPEND CMAKE_MODULE_PATH "${CMAKE_CURRENT_LIST_DIR}/modules")
set(ASC_FOUND TRUE)
set(ASC_TWIN TRUE)
set(ASC_TWIN_VERSION "@TWIN_VERSION@")
