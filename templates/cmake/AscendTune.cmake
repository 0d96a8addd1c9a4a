# AscendTune.cmake: tuning as part of an AscendC operator project's CMake build.
# Written by `cargo ascend-tune cmake-module DIR`; regenerate it rather than editing it.
#
#   include(cmake/AscendTune.cmake)   # from the top-level CMakeLists.txt
#
# adds
#   - the target `ascend_tune`: `cmake --build build --target ascend_tune` runs `cargo ascend-tune tune`
#     for the project, which writes the tuned sources back and records them in ascend-tune.lock;
#   - the CTest test `ascend_tune_check`: `ctest` runs `cargo ascend-tune check --locked`, which fails
#     (naming the op) when an op is slower than its lock allows or the lock no longer matches the sources.
#
# Works with custom-op projects (msopgen layout: op_host/, op_kernel/) and kernel-launch projects alike:
# all it needs is the folder holding ascend.toml (`cargo ascend-tune init` writes one). Cache variables:
#   ASCEND_TUNE_PROJECT_DIR   folder holding ascend.toml (default: the nearest folder at or above the
#                             including CMakeLists.txt that holds one)
#   ASCEND_TUNE_EXECUTABLE    the cargo-ascend-tune program (default: found on PATH or in ~/.cargo/bin;
#                             else `cargo` is used, running `cargo ascend-tune`)
#   ASCEND_TUNE_ARGS          extra arguments for `tune`, e.g. "--budget 16 --seed 1"
#   ASCEND_TUNE_CHECK_ARGS    extra arguments for `check`, e.g. "--tolerance 5 --junit ascend-tune.xml"
#   ASCEND_TUNE_SOC           --soc for both (empty: the manifest's); kernel-launch projects may pass
#                             -DASCEND_TUNE_SOC=${SOC_VERSION}
#   ASCEND_TUNE_BACKEND       --backend for both: twin or cann (empty: the manifest's)

if(CMAKE_VERSION VERSION_LESS 3.16)
  message(FATAL_ERROR "AscendTune.cmake needs CMake 3.16 or newer (this is ${CMAKE_VERSION})")
endif()
include_guard(GLOBAL)

set(_ascend_tune_default_dir "")
set(_ascend_tune_dir "${CMAKE_CURRENT_SOURCE_DIR}")
while(_ascend_tune_dir)
  if(EXISTS "${_ascend_tune_dir}/ascend.toml")
    set(_ascend_tune_default_dir "${_ascend_tune_dir}")
    break()
  endif()
  get_filename_component(_ascend_tune_parent "${_ascend_tune_dir}" DIRECTORY)
  if(_ascend_tune_parent STREQUAL _ascend_tune_dir)
    break()
  endif()
  set(_ascend_tune_dir "${_ascend_tune_parent}")
endwhile()
if(NOT _ascend_tune_default_dir)
  set(_ascend_tune_default_dir "${CMAKE_CURRENT_SOURCE_DIR}")
endif()

set(ASCEND_TUNE_PROJECT_DIR "${_ascend_tune_default_dir}" CACHE PATH
    "Folder holding the operator project's ascend.toml")
set(ASCEND_TUNE_ARGS "" CACHE STRING "Extra arguments for `cargo ascend-tune tune`")
set(ASCEND_TUNE_CHECK_ARGS "" CACHE STRING "Extra arguments for `cargo ascend-tune check --locked`")
set(ASCEND_TUNE_SOC "" CACHE STRING "SoC to tune and check for (empty: the manifest's)")
set(ASCEND_TUNE_BACKEND "" CACHE STRING "Backend: twin or cann (empty: the manifest's)")

find_program(ASCEND_TUNE_EXECUTABLE cargo-ascend-tune
  HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin"
  DOC "The cargo-ascend-tune program")
if(ASCEND_TUNE_EXECUTABLE)
  # Run directly, the program takes the subcommand word that cargo would pass.
  set(_ascend_tune_command "${ASCEND_TUNE_EXECUTABLE}" ascend-tune)
else()
  find_program(ASCEND_TUNE_CARGO cargo HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin")
  if(ASCEND_TUNE_CARGO)
    set(_ascend_tune_command "${ASCEND_TUNE_CARGO}" ascend-tune)
  else()
    message(WARNING "AscendTune: neither cargo-ascend-tune nor cargo was found; "
      "install it with `cargo install cargo-ascend-tune`, or set ASCEND_TUNE_EXECUTABLE. "
      "The ascend_tune target and the ascend_tune_check test will fail until then.")
    set(_ascend_tune_command "${CMAKE_COMMAND}" -E false)
  endif()
endif()

set(_ascend_tune_manifest "${ASCEND_TUNE_PROJECT_DIR}/ascend.toml")
if(NOT EXISTS "${_ascend_tune_manifest}")
  message(WARNING "AscendTune: ${_ascend_tune_manifest} does not exist; "
    "run `cargo ascend-tune init` in ${ASCEND_TUNE_PROJECT_DIR}, or set ASCEND_TUNE_PROJECT_DIR.")
endif()

set(_ascend_tune_common --manifest-path "${_ascend_tune_manifest}" --color never)
if(ASCEND_TUNE_SOC)
  list(APPEND _ascend_tune_common --soc "${ASCEND_TUNE_SOC}")
endif()
if(ASCEND_TUNE_BACKEND)
  list(APPEND _ascend_tune_common --backend "${ASCEND_TUNE_BACKEND}")
endif()
separate_arguments(_ascend_tune_args UNIX_COMMAND "${ASCEND_TUNE_ARGS}")
separate_arguments(_ascend_tune_check_args UNIX_COMMAND "${ASCEND_TUNE_CHECK_ARGS}")

add_custom_target(ascend_tune
  COMMAND ${_ascend_tune_command} ${_ascend_tune_common} tune ${_ascend_tune_args}
  WORKING_DIRECTORY "${ASCEND_TUNE_PROJECT_DIR}"
  COMMENT "Tuning the operators of ${ASCEND_TUNE_PROJECT_DIR} (cargo ascend-tune tune)"
  USES_TERMINAL
  VERBATIM)

# ctest reads the tests from the top of the build tree: this covers the usual include from the top-level
# CMakeLists.txt; a project that includes this file from a subdirectory also calls enable_testing() (or
# include(CTest)) at its top.
enable_testing()
add_test(NAME ascend_tune_check
  COMMAND ${_ascend_tune_command} ${_ascend_tune_common} check --locked ${_ascend_tune_check_args}
  WORKING_DIRECTORY "${ASCEND_TUNE_PROJECT_DIR}")
set_tests_properties(ascend_tune_check PROPERTIES LABELS "ascend_tune")
