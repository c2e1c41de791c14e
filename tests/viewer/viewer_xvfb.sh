#!/usr/bin/env bash
# Runs a command on a private Xvfb screen (1280x800, 24-bit; Mesa renders GL in software there).
# Xvfb picks a free display number itself (-displayfd), so tests running in parallel never race for one
# the way `xvfb-run -a` can. Exits 77 (CTest/GoogleTest: skipped) only when Xvfb is not installed.
#   tests/viewer/viewer_xvfb.sh COMMAND [ARGS...]
set -u
# A display prepared elsewhere (for example a GPU machine's X server with NVIDIA's GLX): use it as is.
if [ -n "${PKRT_VIEWER_DISPLAY:-}" ]; then
    DISPLAY="$PKRT_VIEWER_DISPLAY" exec "$@"
fi
if ! command -v Xvfb >/dev/null 2>&1; then
    echo "viewer_xvfb.sh: Xvfb is not installed (apt-get install xvfb): skipping" >&2
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/pkrt-xvfb-XXXXXX")
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$dir/display" 2>"$dir/xvfb.log" &
xvfb=$!
cleanup() {
    kill "$xvfb" 2>/dev/null
    wait "$xvfb" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
# Xvfb writes the display number once it accepts connections.
for _ in $(seq 1 200); do
    [ -s "$dir/display" ] && break
    kill -0 "$xvfb" 2>/dev/null || break
    sleep 0.05
done
display=$(head -n 1 "$dir/display" 2>/dev/null)
if [ -z "$display" ]; then
    echo "viewer_xvfb.sh: Xvfb did not start: $(tr '\n' ' ' <"$dir/xvfb.log")" >&2
    exit 1
fi
DISPLAY=":$display" "$@"
