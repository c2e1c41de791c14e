#!/usr/bin/env bash
# A rank killed (SIGKILL) in the middle of `mpirun -n 2 pkrt render` makes the whole job fail within
# seconds: a non-zero exit, mpirun's word of the killed process, no output file and no temporary file.
# Rank 1 (a rank that asks for chunks) and rank 0 (the work server) in turn.
#   tests/distributed/mpi_killed_rank.sh MPIEXEC PKRT SCENE
set -u
mpiexec=$1 pkrt=$2 scene=$3
dir=$(mktemp -d)
job=
cleanup() {
    [ -n "$job" ] && kill -KILL "$job" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir" || exit 1

fail() {
    echo "mpi_killed_rank: $*" >&2
    echo "--- mpirun's stderr:" >&2
    cat err.log >&2
    exit 1
}

# The pkrt process of rank $1 of the job rendering in this directory (other tests may run beside it).
rank_pid() {
    for p in $(pgrep -x pkrt); do
        [ "$(readlink "/proc/$p/cwd" 2>/dev/null)" = "$dir" ] || continue
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && { echo "$p"; return; }
    done
}

for victim in 1 0; do
    rm -f err.log
    # Far more samples than it will live to render.
    "$mpiexec" --allow-run-as-root --oversubscribe -n 2 "$pkrt" render "$scene" --backend cpu --res 64x64 --spp 100000 \
        -o out.png --hdr out.exr --stats out.json >out.log 2>err.log &
    job=$!
    # Rank 0 says so once the render is set up; the ranks render a moment later.
    for _ in $(seq 300); do
        grep -q "rendering across 2 MPI ranks" err.log 2>/dev/null && break
        sleep 0.1
    done
    grep -q "rendering across 2 MPI ranks" err.log || fail "the render did not start within 30 s"
    sleep 1
    pid=$(rank_pid "$victim")
    [ -n "$pid" ] || fail "no process of rank $victim"
    kill -KILL "$pid"
    killed=$(date +%s)
    # mpirun must end the job by itself; 20 s is far beyond its grace period (about a second).
    while kill -0 "$job" 2>/dev/null; do
        [ $(( $(date +%s) - killed )) -lt 20 ] || fail "rank $victim killed, and the job still ran 20 s later"
        sleep 0.1
    done
    wait "$job"
    code=$?
    job=
    echo "rank $victim killed: mpirun exited $code after $(( $(date +%s) - killed )) s"
    [ "$code" -ne 0 ] || fail "rank $victim killed, and mpirun exited 0"
    grep -q "signal 9" err.log || fail "mpirun did not say that a process was killed"
    leftovers=$(ls -A | grep -v -x -e out.log -e err.log)
    [ -z "$leftovers" ] || fail "files left behind: $leftovers"
done
echo "mpi_killed_rank: the job failed, and promptly, whichever rank was killed"
