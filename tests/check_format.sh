#!/bin/bash
# Exits non-zero, listing them, when tracked C++/CUDA sources differ from what clang-format-14 makes of them
# with the checkout's .clang-format. Skips (exit 0, with a message) where clang-format-14 is not installed.
# Usage: tests/check_format.sh [FILE...]   (default: every tracked .cpp/.h/.cu/.cuh under app/, render/,
# kernels/ and tests/)
set -uo pipefail
cd "$(dirname "$0")/.."
CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
    echo "check_format: skipped: $CLANG_FORMAT is not installed (apt-get install clang-format-14)"
    exit 0
fi
if [ $# -gt 0 ]; then
    files=("$@")
else
    mapfile -t files < <(git ls-files 'app/*' 'render/*' 'kernels/*' 'tests/*' | grep -E '\.(cpp|h|cu|cuh)$')
fi
bad=()
for f in "${files[@]}"; do
    "$CLANG_FORMAT" --style=file --dry-run -Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if [ ${#bad[@]} -gt 0 ]; then
    printf '%s\n' "${bad[@]}"
    echo "check_format: ${#bad[@]} of ${#files[@]} files are not formatted (run $CLANG_FORMAT -i on them)" >&2
    exit 1
fi
echo "check_format: ${#files[@]} files formatted"
