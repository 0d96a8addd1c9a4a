#!/usr/bin/env bash
# The public-operator harness: runs operators of two public AscendC repositories, unchanged, in the
# twin with `cargo ascend-tune run`, from the hand-written manifests beside this script, and prints a
# markdown table (operator, result, first error line) and the count. See README.md beside it.
#
# No public code is kept in this repository: each operator's folder (plus the shared folders it needs)
# is exported from a local git mirror at the pinned commit into a temporary folder, and only our
# ascend.toml is dropped into it.
set -uo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TABLE="${ASCEND_PUBLIC_OPS_TABLE:-$HERE/ops.tsv}"   # another table, for testing the parser
NUMPY_TABLE="$HERE/numpy.tsv"
HELPER="$HERE/harness.py"

# The commits every manifest here was written against.
MATH_COMMIT=c41933244c31e44fd496e3bb3212164f8c48c214
NN_COMMIT=e5c3fa9327ea95ba26d06227e746923580d10921

MATH_REPO="${ASCEND_PUBLIC_MATH:-/work/.mirror/hicann+ops-math/repo}"
NN_REPO="${ASCEND_PUBLIC_NN:-/work/.mirror/hicann+ops-nn/repo}"
BIN="$ROOT/target/debug/cargo-ascend-tune"
TIMEOUT=900
WORK=""
SET=""
NUMPY=0
MODE=run
PICK=20
SEED=20261122
NAMES=()
SAMPLE=0

usage() {
    cat <<EOF
usage: benches/public_ops/run.sh [options] [OPERATOR...]

Runs the operators of ops.tsv (all, or the ones named) and prints a markdown table and the count.

  --math DIR       git directory of hicann/ops-math (default \$ASCEND_PUBLIC_MATH or $MATH_REPO)
  --nn DIR         git directory of hicann/ops-nn (default \$ASCEND_PUBLIC_NN or $NN_REPO)
  --set NAME       only the operators of this set (column 4 of ops.tsv)
  --bin PATH       the cargo-ascend-tune binary (default target/debug/cargo-ascend-tune, built if missing)
  --timeout SECS   wall-clock limit of one operator's run (default $TIMEOUT)
  --work DIR       export the operators into DIR and keep them (default: a temporary folder, removed)
  --numpy          also compare outputs with the numpy expressions of numpy.tsv (needs python3 + numpy)
  --candidates     print every candidate operator in the seeded order and exit (see README.md)
  --pick N         print the first N candidates not yet in ops.tsv, as ops.tsv rows, and exit
  --seed S         seed of the candidate order (default $SEED)
  --all            the new-user run instead: every vector and mixed operator of ops-math, ops-nn and
                   asc-devkit's examples, init then run, no manifest of ours (corpus.py; see README.md)
  --sample N       with --all: the first N of the seeded order (default: all)
  --self-test      check ops.tsv and the manifests beside it and the error-line extraction, and exit
                   (needs neither the mirrors nor the binary)
EOF
}

die() {
    echo "run.sh: error: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case "$1" in
        --math) [ $# -ge 2 ] || die "--math needs a folder"; MATH_REPO="$2"; shift 2 ;;
        --nn) [ $# -ge 2 ] || die "--nn needs a folder"; NN_REPO="$2"; shift 2 ;;
        --set) [ $# -ge 2 ] || die "--set needs a name"; SET="$2"; shift 2 ;;
        --bin) [ $# -ge 2 ] || die "--bin needs a path"; BIN="$2"; shift 2 ;;
        --timeout)
            [ $# -ge 2 ] || die "--timeout needs seconds"
            [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--timeout takes whole seconds, got '$2'"
            TIMEOUT="$2"; shift 2 ;;
        --work) [ $# -ge 2 ] || die "--work needs a folder"; WORK="$2"; shift 2 ;;
        --numpy) NUMPY=1; shift ;;
        --candidates) MODE=candidates; shift ;;
        --pick)
            [ $# -ge 2 ] || die "--pick needs a count"
            [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--pick takes a positive count, got '$2'"
            MODE=pick; PICK="$2"; shift 2 ;;
        --seed) [ $# -ge 2 ] || die "--seed needs a value"; SEED="$2"; shift 2 ;;
        --self-test) MODE=selftest; shift ;;
        --all) MODE=all; shift ;;
        --sample)
            [ $# -ge 2 ] || die "--sample needs a count"
            [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "--sample takes a positive count, got '$2'"
            SAMPLE="$2"; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) usage >&2; die "unknown option '$1'" ;;
        *) NAMES+=("$1"); shift ;;
    esac
done

repo_dir() { case "$1" in ops-math) echo "$MATH_REPO" ;; ops-nn) echo "$NN_REPO" ;; esac; }
repo_commit() { case "$1" in ops-math) echo "$MATH_COMMIT" ;; ops-nn) echo "$NN_COMMIT" ;; esac; }

check_repo() {
    local name="$1" dir commit
    dir="$(repo_dir "$name")"
    commit="$(repo_commit "$name")"
    git -C "$dir" rev-parse --git-dir >/dev/null 2>&1 ||
        die "$dir is not a git repository (the mirror of hicann/$name); give it with --${name#ops-}"
    git -C "$dir" cat-file -e "$commit^{commit}" 2>/dev/null ||
        die "$dir lacks commit $commit of hicann/$name; fetch it first"
}

# --- ops.tsv: name, repo, folder, set, extra folders; '#' starts a comment ------------------------
ROWS=()
load_table() {
    [ -f "$TABLE" ] || die "$TABLE is missing"
    local lineno=0 line name repo folder set extra rest
    declare -A seen=()
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        line="${line%%#*}"
        line="${line//$'\r'/}"
        [[ "$line" =~ ^[[:space:]]*$ ]] && continue
        read -r name repo folder set extra rest <<<"$line"
        [ -n "$set" ] && [ -z "$rest" ] ||
            die "$TABLE:$lineno: want 4 or 5 columns (name repo folder set [extra,folders]), got: $line"
        [[ "$name" =~ ^[a-z0-9_]+$ ]] || die "$TABLE:$lineno: operator name '$name' is not [a-z0-9_]+"
        case "$repo" in ops-math|ops-nn) ;; *) die "$TABLE:$lineno: repo '$repo' is neither ops-math nor ops-nn" ;; esac
        [[ "$folder" =~ ^[A-Za-z0-9_./-]+$ && "$folder" != *..* && "$folder" != /* ]] ||
            die "$TABLE:$lineno: folder '$folder' is not a relative path inside the repository"
        [ -z "${seen[$name]:-}" ] || die "$TABLE:$lineno: operator '$name' is listed twice (line ${seen[$name]})"
        seen[$name]=$lineno
        [ -f "$HERE/$name/ascend.toml" ] || die "$TABLE:$lineno: $HERE/$name/ascend.toml is missing"
        ROWS+=("$name $repo $folder $set ${extra:--}")
    done <"$TABLE"
}

# --- candidates: the seeded order the operators were picked in ----------------------------------
# Every experimental/<area>/<op> folder at the pinned commit that has op_kernel/<op>.cpp, an op_host
# file naming the ascend910b config, and no cube (matrix-unit) call in op_kernel/. Ordered by the
# sha256 of "<seed>:<repo>:<folder>", so the order is fixed by the seed and needs no shuffle tool.
CUBE_RE='Matmul|MatMul|Mmad|LoadData|matmul_intf|Conv2D|Conv3D|KERNEL_TYPE_AIC_ONLY|KERNEL_TYPE_MIX_AIC'
candidates() {
    local repo dir commit
    for repo in ops-math ops-nn; do
        check_repo "$repo"
        dir="$(repo_dir "$repo")"
        commit="$(repo_commit "$repo")"
        local kernels configs cube
        kernels="$(git -C "$dir" ls-tree -r --name-only "$commit" -- experimental |
            awk -F/ 'NF == 5 && $4 == "op_kernel" && $5 == $3 ".cpp" { print $1 "/" $2 "/" $3 }' | sort -u)"
        configs="$(git -C "$dir" grep -l -F ascend910b "$commit" -- 'experimental/*/*/op_host/*' |
            sed "s/^$commit://" | awk -F/ '{ print $1 "/" $2 "/" $3 }' | sort -u)"
        cube="$(git -C "$dir" grep -l -E "$CUBE_RE" "$commit" -- 'experimental/*/*/op_kernel/*' |
            sed "s/^$commit://" | awk -F/ '{ print $1 "/" $2 "/" $3 }' | sort -u)"
        comm -12 <(echo "$kernels") <(echo "$configs") | comm -23 - <(echo "$cube") |
            sed "s|^|$repo |"
    done | while read -r repo folder; do
        printf '%s %s %s\n' "$(printf '%s:%s:%s' "$SEED" "$repo" "$folder" | sha256sum | cut -c1-64)" "$repo" "$folder"
    done | sort | cut -d' ' -f2-
}

if [ "$MODE" = selftest ]; then
    load_table
    echo "ops.tsv: ${#ROWS[@]} operators, each with its manifest"
    exec python3 "$HELPER" selftest
fi
if [ "$MODE" = candidates ]; then
    candidates
    exit 0
fi
if [ "$MODE" = pick ]; then
    load_table
    declare -A have=()
    for row in "${ROWS[@]}"; do
        read -r name repo folder _ <<<"$row"
        have["$repo $folder"]=1
    done
    candidates | while read -r repo folder; do
        [ -n "${have["$repo $folder"]:-}" ] && continue
        printf '%s\t%s\t%s\tpick-%s\n' "${folder##*/}" "$repo" "$folder" "$SEED"
    done | head -n "$PICK"
    exit 0
fi

if [ "$MODE" = all ]; then
    if [ ! -x "$BIN" ]; then
        (cd "$ROOT" && cargo build --locked -q) || die "cargo build failed"
    fi
    [ -n "$WORK" ] || WORK="$(mktemp -d "${TMPDIR:-/tmp}/public-all.XXXXXX")" || die "mktemp failed"
    args=(--bin "$BIN" --work "$WORK" --sample "$SAMPLE" --seed "$SEED" --timeout "$TIMEOUT")
    [ "$NUMPY" = 1 ] && args+=(--numpy)
    ASCEND_PUBLIC_MATH="$MATH_REPO" ASCEND_PUBLIC_NN="$NN_REPO" exec python3 "$HERE/corpus.py" "${args[@]}"
fi

# --- run -----------------------------------------------------------------------------------------
load_table
check_repo ops-math
check_repo ops-nn
command -v python3 >/dev/null || die "python3 is needed (it reads the tool's JSON output)"
if [ "$NUMPY" = 1 ]; then
    python3 -c 'import numpy' 2>/dev/null || die "--numpy needs numpy (pip install numpy)"
fi
if [ ! -x "$BIN" ]; then
    (cd "$ROOT" && cargo build --locked -q) || die "cargo build failed"
    [ -x "$BIN" ] || die "$BIN is missing; give the binary with --bin"
fi
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"

declare -A wanted=()
for n in "${NAMES[@]+"${NAMES[@]}"}"; do wanted[$n]=1; done
SELECTED=()
for row in "${ROWS[@]}"; do
    read -r name _ _ set _ <<<"$row"
    if [ ${#NAMES[@]} -gt 0 ] && [ -z "${wanted[$name]:-}" ]; then continue; fi
    if [ -n "$SET" ] && [ "$set" != "$SET" ]; then continue; fi
    unset "wanted[$name]"
    SELECTED+=("$row")
done
for n in "${!wanted[@]}"; do die "operator '$n' is not in $TABLE"; done
[ ${#SELECTED[@]} -gt 0 ] || die "no operator selected (set '$SET')"

if [ -n "$WORK" ]; then
    mkdir -p "$WORK" || die "cannot create $WORK"
    WORK="$(cd "$WORK" && pwd)"
else
    WORK="$(mktemp -d "${TMPDIR:-/tmp}/public-ops.XXXXXX")" || die "mktemp failed"
    trap 'rm -rf "$WORK"' EXIT
fi

numpy_expr() {
    [ -f "$NUMPY_TABLE" ] || return 0
    awk -F'\t' -v n="$1" '$0 !~ /^#/ && $1 == n { print $2; exit }' "$NUMPY_TABLE"
}

cell() { # one table cell: a single line, no '|', no work-folder paths, at most 200 characters
    local s="${1//|/\\|}"
    s="${s//$WORK\/$2\/$3\//}"
    s="${s//$WORK\/$2\//}"
    s="${s//$WORK\//}"
    [ ${#s} -gt 200 ] && s="${s:0:197}..."
    printf '%s' "$s"
}

ok=0
total=0
printf '| operator | repository | result | first error line |\n|---|---|---|---|\n'
for row in "${SELECTED[@]}"; do
    read -r name repo folder set extra <<<"$row"
    total=$((total + 1))
    dir="$(repo_dir "$repo")"
    commit="$(repo_commit "$repo")"
    dest="$WORK/$name"
    rm -rf "$dest"
    mkdir -p "$dest"
    paths=("$folder" common)
    if [ "$extra" != "-" ]; then
        IFS=, read -r -a more <<<"$extra"
        paths+=("${more[@]}")
    fi
    result=""
    detail=""
    if ! git -C "$dir" archive "$commit" -- "${paths[@]}" 2>"$dest/archive.err" | tar -x -C "$dest" 2>>"$dest/archive.err" ||
        [ ! -d "$dest/$folder" ]; then
        result="export failed"
        detail="$(grep -m1 . "$dest/archive.err")"
    else
        cp "$HERE/$name/ascend.toml" "$dest/$folder/ascend.toml"
        (cd "$dest/$folder" &&
            ASCEND_TUNE_KEEP_RUNS=1 timeout --kill-after=10 "$TIMEOUT" "$BIN" run -q \
                --message-format json --color never >"$dest/run.json" 2>"$dest/run.err")
        rc=$?
        if [ $rc = 124 ] || [ $rc = 137 ]; then
            result="timeout"
            detail="no result within ${TIMEOUT}s"
        else
            read -r result detail < <(python3 "$HELPER" outcome "$dest/run.json" "$dest/run.err" "$rc")
        fi
    fi
    if [ "$result" = ok ]; then
        ok=$((ok + 1))
        expr="$(numpy_expr "$name")"
        if [ "$NUMPY" = 1 ] && [ -n "$expr" ]; then
            detail="numpy: $(python3 "$HELPER" numpy "$dest/$folder" "$expr" 2>&1 | tail -n 1)"
        fi
    fi
    printf '| `%s` | %s | %s | %s |\n' "$name" "$repo" "$result" "$(cell "$detail" "$name" "$folder")"
done
printf '\n%d / %d run unchanged\n' "$ok" "$total"
