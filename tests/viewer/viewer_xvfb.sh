#!/usr/bin/env bash
# Runs a command on a private Xvfb screen (1280x800, 24-bit; Mesa renders GL in software there).
# Each call gets a display number of its own (random, retried when taken), so tests running in parallel
# never race for one the way `xvfb-run -a` can. Exits 77 (CTest/GoogleTest: skipped) only when Xvfb is not installed.
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
xvfb=
cleanup() {
    [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null && wait "$xvfb" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
# A random display number far from the low ones: with -displayfd and no number, Xvfb probes from :0 up
# and takes the first free one, so a test's server often gets the number a server just quitting still
# cleans up after (CI saw "Failed to open display :0"). A taken number makes Xvfb exit (its sockets are
# busy): then try another. Xvfb writes the number to fd 3 once it accepts connections.
display=
for _ in $(seq 1 20); do
    n=$(((RANDOM * 32768 + RANDOM) % 50000 + 1000))
    : >"$dir/display"
    Xvfb ":$n" -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$dir/display" 2>"$dir/xvfb.log" &
    xvfb=$!
    for _ in $(seq 1 200); do
        [ -s "$dir/display" ] && break
        kill -0 "$xvfb" 2>/dev/null || break
        sleep 0.05
    done
    if [ -s "$dir/display" ] && kill -0 "$xvfb" 2>/dev/null; then
        display=$n
        break
    fi
    kill "$xvfb" 2>/dev/null
    wait "$xvfb" 2>/dev/null
    xvfb=
done
if [ -z "$display" ]; then
    echo "viewer_xvfb.sh: Xvfb did not start: $(tr '\n' ' ' <"$dir/xvfb.log")" >&2
    exit 1
fi
DISPLAY=":$display" "$@"
