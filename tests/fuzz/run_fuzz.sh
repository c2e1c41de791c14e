#!/usr/bin/env bash
# One fuzz target under CTest (tests/fuzz/CMakeLists.txt):
#   run_fuzz.sh repro BINARY NAME SRC_DIR            every committed reproducer in crashes/NAME runs clean
#   run_fuzz.sh fuzz  BINARY NAME SRC_DIR WORK SECS   fuzz for SECS seconds from corpus/NAME with NAME.dict
# libFuzzer exits non-zero on a crash, a sanitizer report, a leak or a timeout; the input that did it is
# written to WORK/artifacts-NAME/ (copy it into crashes/NAME/ once fixed, so it stays fixed).
set -euo pipefail
mode=$1 bin=$2 name=$3 src=$4
common=(-rss_limit_mb=2048 -timeout=20)
if [ "$mode" = repro ]; then
    shopt -s nullglob
    files=("$src/crashes/$name"/*)
    if [ ${#files[@]} -eq 0 ]; then
        echo "no reproducers for $name"
        exit 0
    fi
    exec "$bin" "${common[@]}" "${files[@]}"
fi
work=$5 secs=$6
mkdir -p "$work/corpus-$name" "$work/artifacts-$name"
# The first directory collects what this run finds; the committed seeds are only read.
exec "$bin" "${common[@]}" -max_total_time="$secs" -dict="$src/$name.dict" -artifact_prefix="$work/artifacts-$name/" \
    -print_final_stats=1 "$work/corpus-$name" "$src/corpus/$name"
