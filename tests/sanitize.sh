#!/usr/bin/env bash
# compute-sanitizer memcheck and racecheck over a small frame of every GPU mode, and a resident sequence. Exit 77 (skipped) when
# there is no CUDA device or no compute-sanitizer.
set -u
pkrt=$1
scene=$2
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if [ -z "$sanitizer" ]; then echo "skipped: compute-sanitizer not found"; exit 77; fi
if ! "$pkrt" info | grep -q "^CUDA device 0"; then echo "skipped: no CUDA device"; exit 77; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
status=0
for tool in memcheck racecheck; do
    for mode in persistent relaunch graph megakernel resident; do
        log="$out/$tool-$mode.log"
        "$sanitizer" --tool "$tool" --error-exitcode 3 "$pkrt" render "$scene" --backend cuda --mode "$mode" \
            --res 24x24 --spp 2 --max-depth 6 -q -o "$out/x.png" >"$log" 2>&1
        rc=$?
        summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
        echo "$tool $mode: exit $rc, ${summary:-no summary}"
        if [ $rc -ne 0 ]; then status=1; tail -30 "$log"; fi
    done
    # Resident mode with commands: a sequence queues frames behind each other, each clearing and
    # packing the framebuffer on the GPU.
    log="$out/$tool-resident-sequence.log"
    "$sanitizer" --tool "$tool" --error-exitcode 3 "$pkrt" render "$scene" --backend cuda --mode resident \
        --res 24x24 --spp 2 --max-depth 6 --frames 4 --camera-path orbit -q -o "$out/seq_%d.png" >"$log" 2>&1
    rc=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tail -1)
    echo "$tool resident sequence: exit $rc, ${summary:-no summary}"
    if [ $rc -ne 0 ]; then status=1; tail -30 "$log"; fi
done
exit $status
