#!/usr/bin/env bash
# Soak test of the viewer: scripted mode, scene and resolution switching for SECONDS, with the viewer's
# host RSS and (on a CUDA backend) its device memory sampled every 5 s into OUT/soak.csv. Prints whether
# both stay flat within 2% after a warm-up of a fifth of the run (see the peak comparison at the end).
#   tests/soak.sh VIEWER SECONDS OUT MODES [viewer flags...]
# MODES: the scheduler modes to cycle through, comma separated, or - for none (the CPU backend). DISPLAY
# must be set (an X server, or run it under tests/viewer/viewer_xvfb.sh).
set -u
viewer=$1 seconds=$2 out=$3 modes=$4
shift 4
mkdir -p "$out"
script="$out/soak.script"
# One cycle: every live mode, both scenes, three window sizes. Enough cycles to outlast SECONDS; the
# viewer is stopped when the time is up.
{
    for i in $(seq 1 100000); do
        for m in ${modes//,/ }; do [ "$m" = - ] || echo "mode $m"; echo "frames 15"; done
        echo "open scenes/bench/crytek-sponza.json"; echo "frames 10"
        echo "resize 1280 720"; echo "frames 10"
        echo "open scenes/cornell.json"; echo "frames 10"
        echo "resize 640 360"; echo "frames 10"
        echo "resize 1920 1080"; echo "frames 10"
    done
} >"$script"
"$viewer" scenes/cornell.json --script "$script" --res 1920x1080 "$@" >"$out/soak_viewer.log" 2>&1 &
pid=$!
echo "t_s,rss_kib,device_mib" >"$out/soak.csv"
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
    now=$(( $(date +%s) - start ))
    [ "$now" -ge "$seconds" ] && break
    rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null)
    dev=$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null | awk -F', ' -v p="$pid" '$1 == p {print $2}')
    echo "$now,${rss:-0},${dev:-0}" >>"$out/soak.csv"
    sleep 5
done
if ! kill -0 "$pid" 2>/dev/null; then
    wait "$pid"; rc=$?
    echo "soak: the viewer ended early (exit $rc) after $(( $(date +%s) - start )) s"; tail -5 "$out/soak_viewer.log"; exit 1
fi
kill "$pid"; wait "$pid" 2>/dev/null
python3 - "$out/soak.csv" <<'PY'
# Memory swings within a cycle (Crytek Sponza loaded or the Cornell box, 1080p or 360p buffers), so
# "flat" compares peaks: the highest sample of the second half of the run after warm-up against the
# highest of the first half. A leak raises the later peaks; the swings do not.
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
keep = rows[len(rows) // 5:]
half = len(keep) // 2
ok = True
for col in ("rss_kib", "device_mib"):
    v = [float(r[col]) for r in keep]
    if len(v) < 4 or max(v) == 0:
        print(f"{col}: not sampled")
        continue
    first, second = max(v[:half]), max(v[half:])
    growth = (second - first) / first
    print(f"{col}: peak {first:.0f} then {second:.0f} ({100 * growth:+.2f}%), range {min(v):.0f} .. {max(v):.0f}, {len(v)} samples after warm-up")
    ok = ok and growth <= 0.02
print("soak: flat within 2%" if ok else "soak: NOT flat within 2%")
sys.exit(0 if ok else 1)
PY
