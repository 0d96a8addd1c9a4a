#!/usr/bin/env bash
# The hardware-validation harness: runs the public asc-devkit examples behind the measured figures
# (../../../shared/measured/figures.json), unchanged, on the twin with their own CMake, models each run's
# trace with `cargo-ascend-tune model-trace`, and compares modelled with measured: per-row error, per
# before/after pair the predicted and measured ratio, and the summary figures of issue 16. Writes
# results.md beside this script. See README.md beside it.
#
# No public code is kept in this repository: each example is exported from a local git mirror of
# asc-devkit at the pinned commit into a work folder.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
HELPER="$HERE/harness.py"
COMMIT=82b89a15f26329511fc7fbc807d5132a1f9b4ba7
MIRROR="${ASCEND_ASC_DEVKIT:-/work/.mirror/mirror-cann+asc-devkit/repo}"
BIN="$ROOT/target/debug/cargo-ascend-tune"
TIMEOUT=900
MEM=8
WORK=""
RESULTS="$HERE/results.md"
FIGURES=()
ONLY=()
MODE=run
EXTRA=()
ORIG="$*"

usage() {
    cat <<USAGE
usage: benches/hardware/run.sh [options]

  --asc-devkit DIR   git directory of asc-devkit holding $COMMIT
                     (default \$ASCEND_ASC_DEVKIT or $MIRROR)
  --figures FILE     the measured figures (default \$ASCEND_HW_FIGURES, else shared/measured/figures.json
                     beside the repository, else /work/shared/measured/figures.json)
  --bin PATH         the cargo-ascend-tune binary (default target/debug/cargo-ascend-tune, built if missing)
  --soc SOC          the SoC to model (default Ascend910B1)
  --only REGEX       only the cases whose key matches (repeatable), e.g. --only 'add-SCENARIO_NUM=[1-3]'
  --timeout SECS     wall-clock limit of each configure, build and run (default $TIMEOUT)
  --mem-limit GB     address-space limit of each run (default $MEM)
  --work DIR         build in DIR and keep it (default: a temporary folder, removed)
  --keep-traces      keep each case's twin.trace in the work folder
  --results FILE     where to write the markdown (default benches/hardware/results.md; '-' for none)
  --print-all        print the whole markdown, not only the summary
  --self-test        check the figures' parsing, pairing and the arithmetic, and exit (no mirror, no build)
USAGE
}

die() {
    echo "run.sh: error: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --asc-devkit) [ $# -ge 2 ] || die "--asc-devkit needs a folder"; MIRROR="$2"; shift 2 ;;
        --figures) [ $# -ge 2 ] || die "--figures needs a file"; FIGURES=(--figures "$2"); shift 2 ;;
        --bin) [ $# -ge 2 ] || die "--bin needs a path"; BIN="$2"; shift 2 ;;
        --soc) [ $# -ge 2 ] || die "--soc needs a name"; EXTRA+=(--soc "$2"); shift 2 ;;
        --only) [ $# -ge 2 ] || die "--only needs a pattern"; ONLY+=(--only "$2"); shift 2 ;;
        --timeout)
            [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--timeout takes whole seconds"
            TIMEOUT="$2"; shift 2 ;;
        --mem-limit)
            [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--mem-limit takes gigabytes"
            MEM="$2"; shift 2 ;;
        --work) [ $# -ge 2 ] || die "--work needs a folder"; WORK="$2"; shift 2 ;;
        --keep-traces) EXTRA+=(--keep-traces); shift ;;
        --results) [ $# -ge 2 ] || die "--results needs a file"; RESULTS="$2"; shift 2 ;;
        --print-all) EXTRA+=(--print-all); shift ;;
        --self-test) MODE=selftest; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; die "unknown argument '$1'" ;;
    esac
done

command -v python3 >/dev/null || die "python3 is needed"
if [ "$MODE" = selftest ]; then
    exec python3 "$HELPER" selftest "${FIGURES[@]+"${FIGURES[@]}"}"
fi

command -v cmake >/dev/null || die "cmake is needed to build the examples with their own CMake (apt-get install cmake)"
git -C "$MIRROR" rev-parse --git-dir >/dev/null 2>&1 ||
    die "$MIRROR is not a git repository (the asc-devkit mirror); give it with --asc-devkit or \$ASCEND_ASC_DEVKIT"
git -C "$MIRROR" cat-file -e "$COMMIT^{commit}" 2>/dev/null || die "$MIRROR lacks commit $COMMIT of asc-devkit; fetch it first"
if [ ! -x "$BIN" ]; then
    (cd "$ROOT" && cargo build --locked -q) || die "cargo build failed"
    [ -x "$BIN" ] || die "$BIN is missing; give the binary with --bin"
fi
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
ARGS=(run --asc-devkit "$MIRROR" --bin "$BIN" --timeout "$TIMEOUT" --mem-limit "$MEM"
      --command-line "benches/hardware/run.sh${ORIG:+ $ORIG}")
[ -n "$WORK" ] && ARGS+=(--work "$WORK")
[ "$RESULTS" != "-" ] && ARGS+=(--results "$RESULTS")
exec python3 "$HELPER" "${ARGS[@]}" "${FIGURES[@]+"${FIGURES[@]}"}" "${ONLY[@]+"${ONLY[@]}"}" "${EXTRA[@]+"${EXTRA[@]}"}"
