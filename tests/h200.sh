#!/usr/bin/env bash
# The GPU test and benchmark session on a lent H200 (see ../shared/gpu/README.md), in two halves:
#
#   tests/h200.sh stage [BASE [VARIANT...]]
#                           here (no GPU): build, then copy the binaries, the shared libraries they need
#                           and the third-party scenes they read into the git-ignored .stage/ and .scenes/
#                           (Crytek Sponza as .xz: the device call carries at most 64 MiB). BASE: a pkrt
#                           binary of the commit before a kernel or scheduler change, staged as
#                           .stage/base/pkrt so that `run` benchmarks both in the same call. VARIANT: more
#                           pkrt binaries (builds of experiments), staged as .stage/var/NAME for `variants`. BASE-viewer
#                           and BASE-test_gpu beside BASE are staged as its viewer and GPU tests
#   tests/h200.sh run       on the device, carrying [".gpu", ".stage", ".scenes"]: GPU tests, sanitizers,
#                           benchmarks (+ viewer runs when an X display from `source .gpu/setup.sh x` is up);
#                           text and charts land in $OUT/results.tgz, full-size images beside it (a device
#                           call returns at most 8 files of 16 MiB each)
#
#   tests/h200.sh variants [MODES]
#                           on the device: base, this build and every staged variant, interleaved over two
#                           rounds, on the bench matrix (Cornell d16, Crytek Sponza and the bunnies d4,
#                           Dabrovic Sponza d8, at 128², 512² and 1080p; MODES: persistent unless given),
#                           each against base (tests/bench_compare.py)
#   tests/h200.sh multi [DEVICES]
#                           on the device: Crytek Sponza 3840x2160, 64 spp on 1, 2, 4, 8 GPUs (or --devices
#                           DEVICES, as 0,0), persistent and relaunch, speed-up over one GPU (issue 15)
#   tests/h200.sh check     on the device, carrying [".gpu", ".stage", ".scenes"]: a shorter session for one
#                           call (GPU tests, base against new, both BVH layouts, renders)
#   tests/h200.sh resident [tests] [viewer] [bench]
#                           on the device (the viewer part on the X display): resident mode's GPU tests, the
#                           viewer's fps and camera latency per mode, base against new, 240-frame sequences
#   tests/h200.sh profile   on the device: Nsight Compute on one persistent frame (application replay)
#   tests/h200.sh trees     on the device: binned SAH against SBVH, bvh2 against cwbvh, large scenes at 1080p
#   tests/h200.sh profile_extend  on the device: Nsight Compute on relaunch's extend kernel per layout
#   tests/h200.sh compare_kernels on the device: relaunch's kernels against the persistent kernel, one frame
#   tests/h200.sh house [tests] [viewer] [bench]
#                           on the device (viewer on the X display): issue 29's check: GPU tests, the viewer's
#                           GPU tests, viewer fps per mode base against new, the bench matrix in every mode
#                           base against new (base viewer: .stage/base/pkrt-viewer)
#   tests/h200.sh features  on the device (viewer tests on the X display): issue 31's feature buffers and
#                           denoiser: GPU tests, camera latency per mode, base against new, --aov and --denoise per mode
#   tests/h200.sh response  on the device (X display): issue 31's camera-change latency per mode, base viewer
#                           against this one, and the denoiser's time, base against this one
#   tests/h200.sh tests [SECONDS]
#                           on the device: test_gpu alone, within SECONDS (150)
#   tests/h200.sh compare [CORNELL_RES REPEAT SPONZA_RES REPEAT]
#                           on the device: this build against .stage/base/pkrt in every mode, two rounds
#   tests/h200.sh denoised_view
#                           on the device (X display): the viewer's GPU tests, the denoised view's cost and
#                           camera latency per mode, base viewer against this one
#   tests/h200.sh soak start SECONDS, then soak wait
#                           the viewer soak (tests/soak.sh) across two device calls, on the X display
#
# The viewer half needs the X server started by an earlier call that carried .gpu-x (it stays up while the
# machine is warm, 30 s): first `source .gpu/setup.sh x` with carry [".gpu", ".gpu-x"], then this at once.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Libraries the device's Ubuntu lacks (GL, GLFW and X come from .gpu and .gpu-x there), as .stage/lib.tar.xz.
stage_libs() {
    mkdir -p .stage/lib
    ldd build/pkrt | awk '/=>/ {print $3}' |
        grep -E "tinyobj|tinygltf|libstb|OpenEXR|Imath|Iex|IlmThread|cudart|libjpeg|libpng|libdeflate|libmpi|open-rte|open-pal|hwloc|libevent|libudev|assimp|draco|minizip" | xargs -r -I{} cp -L {} .stage/lib/
    tar cJf .stage/lib.tar.xz -C .stage lib && rm -rf .stage/lib  # 23 MB as they are, a third packed
}

stage() {
    set -e
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" >/dev/null
    # An object whose header dependencies ninja lost (`ninja -t deps`: #deps 0) is not rebuilt when a
    # kernel header changes, and a stale kernel beside new host code fails on the GPU (seen once: an
    # illegal address from a changed parameter block). Such objects are rebuilt.
    ninja -C build -t deps 2>/dev/null | awk '/\.(cu|cpp)\.o: #deps 0,/ {sub(":", "", $1); print $1}' |
        while read -r o; do echo "stage: $o had no recorded dependencies; rebuilding it"; rm -f "build/$o"; done
    cmake --build build
    rm -rf .stage && mkdir -p .stage
    for b in build/pkrt build/pkrt-viewer build/tests/test_gpu build/tests/test_viewer_gpu; do
        [ -x "$b" ] && cp "$b" .stage/ && strip ".stage/$(basename "$b")"
    done
    if [ -n "${1:-}" ]; then mkdir -p .stage/base && cp "$1" .stage/base/pkrt && strip .stage/base/pkrt; fi
    # BASE's viewer and GPU tests too, where they lie beside it as BASE-viewer and BASE-test_gpu.
    if [ -n "${1:-}" ] && [ -x "$1-viewer" ]; then cp "$1-viewer" .stage/base/pkrt-viewer && strip .stage/base/pkrt-viewer; fi
    if [ -n "${1:-}" ] && [ -x "$1-test_gpu" ]; then cp "$1-test_gpu" .stage/base/test_gpu && strip .stage/base/test_gpu; fi
    local v
    for v in "${@:2}"; do mkdir -p .stage/var && cp "$v" ".stage/var/$(basename "$v")" && strip ".stage/var/$(basename "$v")"; done
    # The binaries travel as .xz (a device call carries at most 64 MiB); device_paths unpacks them.
    find .stage -maxdepth 2 -type f ! -name '*.so*' ! -name '*.xz' -exec xz -T0 -f {} \;
    stage_libs
    mkdir -p .scenes/crytek-sponza-geometry
    cp -r ../shared/scenes/cornell-box ../shared/scenes/dabrovic-sponza ../shared/scenes/stanford-bunny .scenes/
    mkdir -p .scenes/gltf/DamagedHelmet && cp -r ../shared/scenes/gltf/MetalRoughSpheresNoTextures ../shared/scenes/gltf/TextureTransformTest \
        ../shared/scenes/gltf/NormalTangentMirrorTest ../shared/scenes/gltf/AlphaBlendModeTest ../shared/scenes/gltf/TextureEncodingTest \
        .scenes/gltf/ && cp -r ../shared/scenes/gltf/DamagedHelmet/glTF-Binary .scenes/gltf/DamagedHelmet/
    cp ../shared/scenes/crytek-sponza-geometry/sponza_geometry.mtl .scenes/crytek-sponza-geometry/
    [ -f .scenes/crytek-sponza-geometry/sponza.obj.xz ] ||
        xz -T0 -c ../shared/scenes/crytek-sponza-geometry/sponza.obj >.scenes/crytek-sponza-geometry/sponza.obj.xz
    for d in /.stage/ /.scenes/; do grep -qx "$d" .git/info/exclude || echo "$d" >>.git/info/exclude; done
    du -sh .stage .scenes
}

# The binaries carry absolute paths of this checkout (scenes, shaders, ../shared/scenes): recreate them.
device_paths() {
    [ -f .stage/lib.tar.xz ] && tar xJf .stage/lib.tar.xz -C .stage
    find .stage -maxdepth 2 -name '*.xz' ! -name '*.tar.xz' -exec xz -dkf {} \;
    chmod +x .stage/pkrt* .stage/test_* .stage/base/pkrt .stage/var/* 2>/dev/null
    mkdir -p ../shared /work build/tests
    ln -sfn "$root/.scenes" ../shared/scenes
    [ -e /work/main ] || ln -sfn "$root" /work/main
    (cd .scenes/crytek-sponza-geometry && xz -dkf sponza.obj.xz)
    cp .stage/pkrt build/ 2>/dev/null; cp .stage/pkrt-viewer build/ 2>/dev/null
    export LD_LIBRARY_PATH=$root/.stage/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
}

# Issue 49's record: this build's bench matrix in every mode (Cornell d16, Crytek Sponza and the bunnies d4,
# Dabrovic Sponza d8, metal-rough spheres d8, at 128², 512² and 1080p), two rounds, as CSVs (mx_*.csv).
matrix() {
    local round modes=persistent,relaunch,graph,megakernel,resident
    for round in 1 2; do
        timeout 100 $P bench scenes/cornell.json --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 10 -q \
            --modes $modes --csv "$out/mx_c_$round.csv" >/dev/null 2>&1; echo "matrix round $round cornell: exit $?"
        timeout 150 $P bench scenes/bench/crytek-sponza.json scenes/bench/bunnies-in-sponza.json --res 128x128,512x512,1920x1080 \
            --max-depth 4 --repeat 10 -q --modes $modes --csv "$out/mx_s_$round.csv" >/dev/null 2>&1; echo "matrix round $round sponzas: exit $?"
        timeout 100 $P bench scenes/bench/dabrovic-sponza.json scenes/bench/metal-rough-spheres.json --res 128x128,512x512,1920x1080 \
            --max-depth 8 --repeat 10 -q --modes $modes --csv "$out/mx_d_$round.csv" >/dev/null 2>&1; echo "matrix round $round dabrovic, spheres: exit $?"
        save
    done
}

# Issue 51: the U-Net on the device (after begin_results): its GPU tests 20 times over, then its time per
# image size (tests/denoise/unet_bench --gpu, staged as a variant: .stage/var/unet_bench).
unet() {
    echo "=== GpuUnet.* x20"
    timeout 150 ./.stage/test_gpu --gtest_color=no --gtest_filter='GpuUnet.*' --gtest_repeat=20 >"$out/gpu_unet.txt" 2>&1
    echo "exit $?, $(grep -c '^\[       OK' "$out/gpu_unet.txt") passed, $(grep -c '^\[  FAILED  \] [A-Z]' "$out/gpu_unet.txt") failed"
    grep -E "worst|Failure|Expected|Which is" "$out/gpu_unet.txt" | sort | uniq -c | head -20
    local r
    for r in 1280x720 1920x1080 3840x2160; do timeout 60 ./.stage/var/unet_bench ${r%x*} ${r#*x} --gpu 2>&1 | tee -a "$out/unet_bench.txt"; done
    save
}

# Issue 51's training tools end to end on the device (after begin_results): a small dataset (two scenes,
# one sequence each, 256x256), a few hundred training steps, the exported weight file to $OUT.
denoiser_smoke() {
    echo "=== denoiser tools"
    rm -rf /tmp/ds
    local t0=$SECONDS
    timeout 200 python3 tools/denoiser/make_dataset.py /tmp/ds --pkrt ./.stage/pkrt --only cornell,metal-rough-spheres \
        --sequences 1 --res 256x256 2>&1 | tail -4
    echo "dataset: exit $?, $((SECONDS - t0)) s, $(du -sh /tmp/ds | cut -f1)"
    t0=$SECONDS
    (cd tools/denoiser && timeout 200 python3 train.py /tmp/ds --out "$final/smoke.pkrtunet" --steps 300 --batch 8 \
        --checkpoint /tmp/ds/ckpt.pt --checkpoint-every 300) 2>&1 | tail -5
    echo "training: exit $?, $((SECONDS - t0)) s"
    save
}

# Issue 51, here: what a training call carries within 64 MiB. pkrt and its libraries alone in .stage, the
# training scenes in .scenes (every glTF model but the held-out ones, the OBJ scenes but Dabrovic Sponza),
# and .denoiser/ckpt.pt (the newest checkpoint, CKPT, when given). With `eval`: the held-out scenes
# instead, and .denoiser/unet.pkrtunet (WEIGHTS) for tests/h200.sh evaluate.
stage_train() {
    set -e
    cmake --build build
    rm -rf .stage .scenes && mkdir -p .stage .scenes/gltf .denoiser
    cp build/pkrt .stage/ && strip .stage/pkrt && xz -T0 -f .stage/pkrt
    stage_libs
    # The held-out scenes as evaluate.py names them (its glTF models; Dabrovic Sponza is an OBJ scene).
    local held m
    held=$(cd tools/denoiser && python3 -c 'from evaluate import HELD_OUT; print(" ".join(HELD_OUT))')
    if [ "${1:-}" = eval ]; then
        for m in $held; do [ -d "../shared/scenes/gltf/$m" ] && cp -r "../shared/scenes/gltf/$m" .scenes/gltf/; done
        rm -rf .scenes/gltf/DamagedHelmet/glTF  # its .glb is the one evaluate.py reads
        cp -r ../shared/scenes/dabrovic-sponza .scenes/
        [ -n "${WEIGHTS:-}" ] && cp "$WEIGHTS" .denoiser/unet.pkrtunet
    else
        for m in ../shared/scenes/gltf/*/; do
            [[ " $held " == *" $(basename "$m") "* ]] || cp -r "$m" .scenes/gltf/
        done
        cp -r ../shared/scenes/cornell-box ../shared/scenes/cornell-box-mm ../shared/scenes/stanford-bunny .scenes/
        mkdir -p .scenes/crytek-sponza-geometry
        cp ../shared/scenes/crytek-sponza-geometry/sponza_geometry.mtl .scenes/crytek-sponza-geometry/
        xz -T0 -c ../shared/scenes/crytek-sponza-geometry/sponza.obj >.scenes/crytek-sponza-geometry/sponza.obj.xz
        [ -n "${CKPT:-}" ] && cp "$CKPT" .denoiser/ckpt.pt
    fi
    for d in /.stage/ /.scenes/ /.denoiser/; do grep -qx "$d" .git/info/exclude || echo "$d" >>.git/info/exclude; done
    du -sh .stage .scenes .denoiser
}

# Issue 51's held-out table on the device (after begin_results; staged by `stage_train eval`): evaluate.py
# with .denoiser/unet.pkrtunet at 384x384, 4 to 1024 spp against 4096-spp references.
evaluate() {
    python3 tools/denoiser/evaluate.py /tmp/eval --weights .denoiser/unet.pkrtunet --pkrt ./.stage/pkrt "$@" 2>&1 |
        grep -v warning | tail -30 | tee "$out/evaluate.md"
    local d k
    for d in /tmp/eval/*/; do for k in noisy_4 atrous_4 unet_4 ref; do cp "$d$k.png" "$out/$(basename "$d")_$k.png" 2>/dev/null; done; done
    save
}

# Issue 51's training set in /tmp/ds, within $1 seconds, $2 sequences a scene at 256x256. /tmp/ds is kept:
# a later call on the same warm machine renders only what is missing (make_dataset.py resumes).
dataset() {
    timeout "$1" python3 tools/denoiser/make_dataset.py /tmp/ds --pkrt ./.stage/pkrt --sequences "$2" --res 256x256 \
        --jobs 6 2>&1 | grep -v warning | tail -3
}
dataset_pairs() { python3 -c "import json; print(len(json.load(open('/tmp/ds/manifest.json'))))"; }

# golden.py's goldens to $OUT and the residual one into tests/denoise/golden (for test_gpu), and whether
# the committed golden.bin is reproduced.
goldens() {
    (cd tools/denoiser && timeout 60 python3 golden.py /tmp/golden) 2>&1 | tail -2
    cp /tmp/golden/* "$final/" && cp /tmp/golden/golden_residual.* tests/denoise/golden/
    cmp /tmp/golden/golden.bin tests/denoise/golden/golden.bin && echo "golden.bin: as committed, bit for bit"
}

# Issue 51's training on the device (after begin_results), resumable across sessions: exr.py checked
# against a PFM of the same render (numpy's path), the dataset rendered ($SEQ sequences a scene, each at
# three sample counts, 256x256, within $DATASET_S seconds: the same in every lease for the same scenes),
# training resumed from .denoiser/ckpt.pt where carried (else from the weight file $INIT where given), for
# $1 seconds, then the checkpoint and the weights exported to $OUT; with $EVAL, evaluate.py on the held-out
# scenes staged (384x384); the cosine schedule's length: $BUDGET seconds of training where given, else
# $STEPS steps (40000), which a resumed run may shorten; $SMAPE, $LR: train.py's; then golden.py's
# golden output for the C++ tests to $OUT.
train() {
    local seconds=${1:-240} t0=$SECONDS
    ./.stage/pkrt render scenes/cornell.json --res 64x40 --spp 4 -q -o /tmp/exr_check.exr --hdr /tmp/exr_check.pfm --aov albedo,normal &&
        python3 tools/denoiser/exr.py /tmp/exr_check.exr /tmp/exr_check.pfm || { echo "exr.py disagrees with the PFM"; return 1; }
    dataset "${DATASET_S:-200}" "${SEQ:-1}"
    echo "dataset: $((SECONDS - t0)) s, $(dataset_pairs) pairs"
    # The checkpoint carried, else the one an earlier call on this warm machine left
    if [ -f .denoiser/ckpt.pt ]; then cp .denoiser/ckpt.pt "$final/ckpt.pt"
    elif [ -f /tmp/denoiser_ckpt.pt ]; then cp /tmp/denoiser_ckpt.pt "$final/ckpt.pt"; fi
    local init=()
    [ -n "${INIT:-}" ] && init=(--init "$root/$INIT")
    (cd tools/denoiser && python3 train.py /tmp/ds --out "$final/unet.pkrtunet" --steps "${STEPS:-40000}" --batch "${BATCH:-8}" \
        --budget "${BUDGET:-0}" --smape "${SMAPE:-0}" --lr "${LR:-1e-3}" --amp --checkpoint "$final/ckpt.pt" --checkpoint-every 500 --resume "${init[@]}" \
        --time-limit "$seconds") 2>&1 | grep -E "resumed|initialised|pairs in|step [0-9]*000 |time limit|wrote|Error|error"
    cp "$final/ckpt.pt" /tmp/denoiser_ckpt.pt 2>/dev/null
    [ -f "$final/golden_residual.bin" ] || (cd tools/denoiser && timeout 60 python3 golden.py "$final/golden") 2>&1 | tail -3
    save
    if [ -n "${EVAL:-}" ] && [ -f "$final/unet.pkrtunet" ]; then
        mkdir -p .denoiser && cp "$final/unet.pkrtunet" .denoiser/unet.pkrtunet && evaluate --only "$EVAL" --spp "${EVAL_SPP:-4,16,64,256,1024}"
    fi
}

# Two device calls on one warm machine, both carrying [".gpu", ".stage", ".scenes"] with the training
# scenes and the held-out ones in .scenes: first `tests_then_data REPEAT_FILTER` (golden.py's goldens to
# $OUT and into tests/denoise/golden, test_gpu, the filter's tests 20 times over, then issue 51's training
# set rendered into /tmp/ds until 540 s have passed), then at once `train SECONDS` (the set as it is, the
# rest rendered within $DATASET_S).
tests_then_data() {
    begin_results
    goldens
    gpu_tests 250
    echo "=== test_gpu --gtest_repeat=20 --gtest_filter=$1"
    timeout 90 ./.stage/test_gpu --gtest_color=no --gtest_filter="$1" --gtest_repeat=20 >"$out/repeat.txt" 2>&1
    echo "exit $?: $(grep -c '^\[       OK' "$out/repeat.txt") passed, $(grep -c '^\[  FAILED  \] [A-Za-z]*\.' "$out/repeat.txt") failed"
    save
    local left=$((540 - SECONDS))
    echo "=== training set, $left s"
    dataset "$left" "${SEQ:-2}"
    echo "$(dataset_pairs) pairs"
}

# The same in one call, where the device time left allows no second: golden.py's goldens, the filter's
# tests once, then `train SECONDS` (the set rendered within $DATASET_S).
tests_and_train() {
    begin_results
    goldens
    gpu_tests 60 "$1"
    train "$2"
}

# A soak longer than one device call (10 minutes): `soak start SECONDS` leaves tests/soak.sh running in a
# session of its own (it outlives the call while the machine stays warm) and returns; `soak wait`, called
# within the 30 s the machine stays warm, waits for it and copies its log and samples to $OUT.
soak() {
    case "${1:-}" in
        start)
            device_paths
            rm -rf /tmp/soak && mkdir -p /tmp/soak
            setsid bash tests/soak.sh ./.stage/pkrt-viewer "${2:?seconds}" /tmp/soak persistent,relaunch,graph,megakernel \
                --backend cuda >/tmp/soak/soak.txt 2>&1 </dev/null &
            echo "soak of $2 s started (pid $!)"
            ;;
        wait)
            final=${OUT:?run this on the device machine}
            while pgrep -f tests/soak.sh >/dev/null; do sleep 5; done
            cat /tmp/soak/soak.txt
            cp /tmp/soak/soak.txt /tmp/soak/soak.csv /tmp/soak/soak_viewer.log "$final/" 2>/dev/null
            ;;
        *) echo "usage: $0 soak start SECONDS | soak wait" >&2; return 2 ;;
    esac
}

# What run and check share. Results go to /tmp/results and, as results.tgz, to $OUT: saved after every
# step, so a call killed at its time limit still brings back what finished.
begin_results() {
    final=${OUT:?run this on the device machine}
    out=/tmp/results
    mkdir -p "$out"
    save() { tar czf "$final/results.tgz" -C /tmp results; }
    trap save EXIT
    device_paths
    P=./.stage/pkrt
    { nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv; $P info; date -u; env | grep -E "^(LD_LIBRARY_PATH|DISPLAY)="; } >"$out/device.txt" 2>&1
}

# test_gpu within $1 seconds; $2: a --gtest_filter (all tests by default).
gpu_tests() {
    echo "=== test_gpu${2:+ $2}"
    timeout "$1" ./.stage/test_gpu --gtest_color=no --gtest_filter="${2:-*}" >"$out/test_gpu.txt" 2>&1
    echo "exit $?"; grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) +\]|Failure" "$out/test_gpu.txt" | head -40
    save
}

# The build of the commit before (.stage/base/pkrt, when staged) benchmarked beside this one in the
# order base, new, base, new: Cornell d16 at resolutions $1 with --repeat $2, Crytek Sponza d4 at $3
# with --repeat $4; tests/bench_compare.py takes each cell's median of the two runs' medians.
compare_with_base() {
    [ -x .stage/base/pkrt ] || return 0
    echo "=== compare with .stage/base/pkrt"
    local base_csv="" new_csv="" round build bin
    for round in 1 2; do
        for build in base new; do
            bin=$P; [ $build = base ] && bin=.stage/base/pkrt
            timeout 100 $bin bench scenes/cornell.json --res "$1" --max-depth 16 --repeat "$2" -q \
                --csv "$out/cmp_cornell_${build}_$round.csv" >/dev/null
            timeout 100 $bin bench scenes/bench/crytek-sponza.json --res "$3" --max-depth 4 --repeat "$4" -q \
                --csv "$out/cmp_sponza_${build}_$round.csv" >/dev/null
            if [ $build = base ]; then base_csv+="${base_csv:+,}$out/cmp_cornell_base_$round.csv,$out/cmp_sponza_base_$round.csv"
            else new_csv+="${new_csv:+,}$out/cmp_cornell_new_$round.csv,$out/cmp_sponza_new_$round.csv"; fi
        done
    done
    python3 tests/bench_compare.py "$base_csv" "$new_csv" | tee "$out/compare.md"
    save
}

# A shorter session than `run`, for one device call: GPU tests (the conservation test 50 times over),
# this build against .stage/base/pkrt (base, new, base, new), both BVH layouts on every scene of the
# bench matrix, and GPU renders of the shipped scenes that exercise materials and the lens.
check() {
    begin_results
    gpu_tests 150
    timeout 100 ./.stage/test_gpu --gtest_color=no --gtest_filter=Gpu.ConservationOfSamplesAndQueueRecords --gtest_repeat=50 \
        >"$out/test_gpu_conservation.txt" 2>&1
    echo "conservation x50: exit $?, $(grep -c '^\[       OK \]' "$out/test_gpu_conservation.txt") passed"
    save
    compare_with_base 128x128,1920x1080 10 1920x1080 5
    echo "=== layouts"
    for layout in bvh2 cwbvh; do
        timeout 150 $P bench scenes/bench/crytek-sponza.json scenes/bench/metal-rough-spheres.json scenes/bench/bunnies-in-sponza.json --bvh $layout \
            --res 1920x1080 --max-depth 4 --repeat 5 -q --csv "$out/layout_$layout.csv" >/dev/null
        echo "$layout exit $?"
    done
    python3 tests/bench_compare.py "$out/layout_bvh2.csv" "$out/layout_cwbvh.csv" | tee "$out/layouts.md"
    save
    echo "=== renders"
    timeout 60 $P render scenes/metal_rough.json --backend cuda --spp 64 -q -o "$final/metal_rough.png"; echo "metal_rough exit $?"
    timeout 60 $P render scenes/metal_rough.json --backend cuda --spp 64 --aperture 0.15 -q -o "$final/metal_rough_lens.png"; echo "lens exit $?"
}

run() {
    begin_results
    gpu_tests 120
    echo "=== sanitizer"
    timeout 200 bash tests/sanitize.sh $P scenes/cornell.json >"$out/sanitize.txt" 2>&1
    echo "exit $?"; cat "$out/sanitize.txt"
    save
    echo "=== bench"
    timeout 100 $P bench scenes/cornell.json --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 20 --micro -q \
        --json "$out/bench_cornell.json" --csv "$out/bench_cornell.csv" --plot "$out/bench_cornell.png"
    save
    timeout 100 $P bench scenes/bench/crytek-sponza.json --res 128x128,512x512,1920x1080 --max-depth 4 --repeat 10 -q \
        --json "$out/bench_sponza.json" --csv "$out/bench_sponza.csv" --plot "$out/bench_sponza.png"
    save
    timeout 100 $P bench scenes/bench/metal-rough-spheres.json --res 128x128,512x512,1920x1080 --max-depth 4 --repeat 10 -q \
        --json "$out/bench_spheres.json" --csv "$out/bench_spheres.csv" --plot "$out/bench_spheres.png"
    compare_with_base 128x128,512x512,1920x1080 20 128x128,512x512,1920x1080 10
    timeout 60 $P render scenes/bench/crytek-sponza.json --backend cuda --spp 1 -q -o "$final/sponza_1080p.png" \
        --stats "$out/stats_sponza_persistent.json"
    if [ -n "${DISPLAY:-}" ] && [ -x ./.stage/pkrt-viewer ]; then
        viewer_fps persistent relaunch graph megakernel resident
        timeout -k 5 120 ./.stage/pkrt-viewer scenes/bench/crytek-sponza.json --backend cuda --interop buffer \
            --res 1920x1080 --spp-per-frame 1 --frames 150 >"$out/viewer_buffer.txt" 2>&1
        echo "persistent, pixel-buffer interop: exit $?"; grep -E "fps|transfer|error|warning" "$out/viewer_buffer.txt"
        viewer_tests
    fi
}

# The batch viewer on Crytek Sponza 1920x1080, 1 spp a frame, per mode: fps, display transfer, launches
# per displayed frame. (timeout -k: a viewer stuck in the driver ignores SIGTERM.)
viewer_fps() {
    echo "=== viewer on $DISPLAY"
    for m in "$@"; do
        timeout -k 5 100 ./.stage/pkrt-viewer scenes/bench/crytek-sponza.json --backend cuda --mode $m --res 1920x1080 \
            --spp-per-frame 1 --frames 200 --screenshot "$out/viewer_$m.png" >"$out/viewer_$m.txt" 2>&1
        echo "$m exit $?"; grep -E "fps|transfer|launches|error|warning|OpenGL" "$out/viewer_$m.txt"
    done
    save
}

# The same scene driven by 20 orbit drags: camera change to the new view's first image on screen.
# The camera-change latency per mode ($@), of VIEWER (default this build's; its logs tagged TAG), run
# with -v so that resident mode logs each job's GPU time and the gap before it.
viewer_latency() {
    local bin=${VIEWER:-./.stage/pkrt-viewer} tag=${TAG:-} extra=${EXTRA:-}
    : >"$out/viewer_latency_script.txt"
    for i in $(seq 20); do printf 'frames 6\ndrag 900 500 912 500\n' >>"$out/viewer_latency_script.txt"; done
    for m in "$@"; do
        # --shaders: a base viewer built in another checkout looks for its shaders there
        timeout -k 5 100 $bin scenes/bench/crytek-sponza.json --backend cuda --mode $m --res 1920x1080 --shaders shaders \
            --spp-per-frame 1 $extra --script "$out/viewer_latency_script.txt" -v >"$out/viewer_latency_$m$tag.txt" 2>&1
        echo "$m$tag latency exit $?"; grep -E "camera change|error" "$out/viewer_latency_$m$tag.txt"
    done
    save
}

# Issue 31 part 3: the camera-change latency, the base viewer (.stage/base/pkrt-viewer) against this one,
# interleaved over two rounds, on Crytek Sponza (display-bound) and on GPU-bound Cornell frames (the
# scene of ViewerGpu.ACameraChangeShowsOnTheFrameAfterItsRender, run too); then the denoiser's GPU
# time at 1080p, base (.stage/base/pkrt) against this one, and its kernels under Nsight Compute.
response() {
    begin_results
    local round v m name
    for i in $(seq 15); do printf 'frames 6\ndrag 300 200 306 200\n'; done >"$out/drags_cornell.txt"
    for round in 1 2; do
        for v in base:.stage/base/pkrt-viewer new:./.stage/pkrt-viewer; do
            name=${v%%:*}
            [ -n "${DISPLAY:-}" ] && [ -x "${v#*:}" ] || continue
            VIEWER=${v#*:} TAG=_${name}_$round viewer_latency resident persistent
            for m in resident persistent; do
                echo "cornell $m ${name}_$round: $(timeout -k 5 100 ${v#*:} scenes/cornell.json --backend cuda --mode $m \
                    --res 800x450 --scale 1 --spp-per-frame 32 --max-depth 16 --shaders shaders --script "$out/drags_cornell.txt" 2>&1 |
                    grep -E 'camera change|error')"
            done
        done
    done
    if [ -n "${DISPLAY:-}" ]; then
        viewer_tests
        PKRT_EXPECT_INTEROP=1 PKRT_VIEWER_DISPLAY=$DISPLAY timeout -k 5 200 ./.stage/test_viewer_gpu --gtest_color=no \
            --gtest_filter='ViewerGpuResident.*:*ACameraChange*' --gtest_repeat=5 >"$out/camera_change_test.txt" 2>&1
        echo "ViewerGpuResident.*, ACameraChange x5: exit $?, $(grep -c '^\[       OK' "$out/camera_change_test.txt") passed," \
            "$(grep -c '^\[  FAILED  \] [A-Z]' "$out/camera_change_test.txt") failed"
        grep -E "Failure|Expected|camera change" "$out/camera_change_test.txt" | head -20
        # The test's resident run measured no change on the H100 and H200 (session 21): every job of it
        # ended cancelled. How many jobs a run makes, and how many end cancelled, at 32 and at 1 spp a frame.
        for m in 32 1; do
            timeout -k 5 60 ./.stage/pkrt-viewer scenes/cornell.json --backend cuda --mode resident --res 800x450 --scale 1 \
                --spp-per-frame $m --max-depth 16 --script "$out/drags_cornell.txt" -v >"$out/resident_drags_$m.txt" 2>&1
            echo "resident, $m spp a frame: $(grep -c 'resident job' "$out/resident_drags_$m.txt") jobs," \
                "$(grep -c 'resident job .*(cancelled)' "$out/resident_drags_$m.txt") cancelled;" \
                "$(grep -E 'camera change|error' "$out/resident_drags_$m.txt")"
        done
    fi
    echo "=== the denoiser on Crytek Sponza 1920x1080"
    for v in .stage/base/pkrt $P; do
        for round in 1 2 3; do
            echo "$v: $(timeout 60 $v render scenes/bench/crytek-sponza.json --res 1920x1080 --spp 1 --denoise \
                -o /tmp/d.png 2>&1 | grep -E 'denoised on')"
        done
    done
    timeout 120 ncu --kernel-name regex:denoise --section SpeedOfLight $P render scenes/bench/crytek-sponza.json \
        --res 1920x1080 --spp 1 --denoise -o /tmp/d.png >"$out/ncu_denoise.txt" 2>&1
    grep -E "denoise_.*_kernel|Duration" "$out/ncu_denoise.txt"
    save
}

# The denoised view on the device (render/cuda/gpu_view_denoiser.h), on the X display: per mode, the base viewer (.stage/base/pkrt-viewer: read back, blended on the CPU) against this
# one, Crytek Sponza 1920x1080 at 1 spp a frame with --denoise, 120 frames (fps and the refreshes' cost),
# and the 20-drag camera latency with and without --denoise; then the viewer's GPU tests.
denoised_view() {
    begin_results
    [ -n "${DISPLAY:-}" ] || { echo "denoised_view: no X display"; return 1; }
    local v m name
    for v in base:.stage/base/pkrt-viewer new:./.stage/pkrt-viewer; do
        name=${v%%:*}
        [ -x "${v#*:}" ] || continue
        for m in persistent resident relaunch; do
            echo "$name --denoise, $m: $(timeout -k 5 60 ${v#*:} scenes/bench/crytek-sponza.json --backend cuda --shaders shaders \
                --mode $m --res 1920x1080 --spp-per-frame 1 --frames 120 --denoise 2>&1 | grep -E 'fps|denoised view|error')"
        done
    done
    for v in base:.stage/base/pkrt-viewer new:./.stage/pkrt-viewer; do
        name=${v%%:*}
        [ -x "${v#*:}" ] || continue
        VIEWER=${v#*:} TAG=_${name}_denoise EXTRA=--denoise viewer_latency persistent resident
    done
    TAG=_new viewer_latency resident persistent
    viewer_tests
}

viewer_tests() {
    echo "=== test_viewer_gpu"
    PKRT_EXPECT_INTEROP=1 PKRT_VIEWER_DISPLAY=$DISPLAY timeout -k 5 300 ./.stage/test_viewer_gpu --gtest_color=no \
        >"$out/test_viewer_gpu.txt" 2>&1
    echo "exit $?"; grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) +\]|Failure" "$out/test_viewer_gpu.txt" | head -20
    save
}

# 240-frame sequences per mode, PNGs written: the CLI's own frames/s (image files in, scene loading out).
sequences() {
    echo "=== sequences, 240 frames, PNGs written"
    local cfg m log
    for cfg in "scenes/cornell.json 256x256 16 8" "scenes/bench/crytek-sponza.json 512x512 4 4"; do
        for m in relaunch persistent resident; do
            set -- $cfg
            log="$out/seq_${m}_$(basename "$1" .json).txt"
            rm -rf /tmp/seq && mkdir -p /tmp/seq
            timeout -k 5 120 $P render "$1" --backend cuda --mode $m --res "$2" --spp "$3" --max-depth "$4" --frames 240 \
                --camera-path orbit -o /tmp/seq/f_%04d.png --stats "${log%.txt}.json" >"$log" 2>&1
            echo "$m exit $?, $(ls /tmp/seq | wc -l) PNGs: $(grep -E 'frames/s|render loop|error' "$log")"
            # Which side sets the pace: the frames' GPU time against the render loop's wall time.
            python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); print("  GPU ms of all frames %.1f, render loop ms %.1f" % (sum(j["scheduler"]["frame_gpu_ms"]), 1e3 * j["seconds"]))' \
                "${log%.txt}.json" 2>/dev/null
        done
    done
    save
}

# The CSVs of a build's rounds, comma-separated for tests/bench_compare.py: $out/PREFIX_PART_NAME_ROUND.csv
# for each of PARTS and rounds 1..ROUNDS (round_csvs PREFIX "PARTS" ROUNDS NAME).
round_csvs() {
    local r p l=""
    for r in $(seq "$3"); do for p in $2; do l+="${l:+,}$out/${1}_${p}_${4}_$r.csv"; done; done
    echo "$l"
}

# Experiments side by side (stage BASE VARIANT...): the bench matrix per build, in the order base, this
# build, the variants, twice, then each build against base. $1: modes (default persistent).
variants() {
    begin_results
    [ -x .stage/base/pkrt ] || { echo "variants: stage a BASE first"; return 1; }
    local modes=${1:-persistent} round name bin rc builds=("base:.stage/base/pkrt" "new:$P")
    for bin in .stage/var/*; do [[ -x $bin && $bin != *.xz ]] && builds+=("$(basename "$bin"):$bin"); done
    echo "=== variants: ${builds[*]}"
    for round in 1 2; do
        for b in "${builds[@]}"; do
            name=${b%%:*} bin=${b#*:} rc=0
            timeout 100 $bin bench scenes/cornell.json --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 20 -q \
                --modes "$modes" --csv "$out/var_c_${name}_$round.csv" >/dev/null 2>&1 || rc=$?
            timeout 150 $bin bench scenes/bench/crytek-sponza.json scenes/bench/bunnies-in-sponza.json --res 128x128,512x512,1920x1080 \
                --max-depth 4 --repeat 10 -q --modes "$modes" --csv "$out/var_s_${name}_$round.csv" >/dev/null 2>&1 || rc=$?
            timeout 100 $bin bench scenes/bench/dabrovic-sponza.json --res 128x128,512x512,1920x1080 --max-depth 8 --repeat 10 -q \
                --modes "$modes" --csv "$out/var_d_${name}_$round.csv" >/dev/null 2>&1 || rc=$?
            echo "round $round $name: exit $rc"
        done
        save
    done
    for b in "${builds[@]:1}"; do
        name=${b%%:*}
        echo "=== $name against base"
        python3 tests/bench_compare.py "$(round_csvs var "c s d" 2 base)" "$(round_csvs var "c s d" 2 "$name")" | tee "$out/variants_$name.md"
    done
    save
}

# Issue 49 item 2 (after begin_results): bounce rays binned by octant and origin cell (ray_order=binned) in
# relaunch and graph, against the order shaded and against the commit before (.stage/base/pkrt), two
# rounds (base, shaded, binned); then Nsight Compute's time, instructions and lanes active per kernel of one
# Crytek Sponza 1080p d4 frame in relaunch mode, each order (the sort's own kernels included).
binning() {
    local round name bin set rc
    echo "=== binning"
    for round in $(seq "${ROUNDS:-2}"); do
        for name in base shaded binned; do
            bin=$P set="ray_order=$name"; [ $name = base ] && bin=.stage/base/pkrt set="timeline=on"
            local modes=relaunch,graph; [ $name = shaded ] && modes=relaunch,graph,persistent
            rc=0
            timeout 60 $bin bench scenes/cornell.json --res 512x512,1920x1080 --max-depth 16 --repeat 10 -q --modes $modes \
                --set "$set" --csv "$out/bin_c_${name}_$round.csv" >/dev/null 2>&1 || rc=$?
            timeout 120 $bin bench scenes/bench/crytek-sponza.json scenes/bench/bunnies-in-sponza.json scenes/bench/dabrovic-sponza.json \
                scenes/bench/metal-rough-spheres.json --res 512x512,1920x1080 --max-depth 4 --repeat 5 -q --modes $modes \
                --set "$set" --csv "$out/bin_s_${name}_$round.csv" >/dev/null 2>&1 || rc=$?
            echo "round $round $name: exit $rc"
        done
        save
    done
    local n=${ROUNDS:-2}
    echo "--- shaded (this build) against base"
    python3 tests/bench_compare.py "$(round_csvs bin "c s" $n base)" "$(round_csvs bin "c s" $n shaded)" | tee "$out/bin_shaded.md"
    echo "--- binned against shaded"
    python3 tests/bench_compare.py "$(round_csvs bin "c s" $n shaded)" "$(round_csvs bin "c s" $n binned)" | tee "$out/bin_binned.md"
    save
    local ncu m order
    find_ncu || return 0
    m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio
    for order in shaded binned; do
        timeout -k 5 90 "$ncu" --csv --metrics "$m" $P bench scenes/bench/crytek-sponza.json --res 1920x1080 --max-depth 4 \
            --repeat 1 --warmup 0 -q --modes relaunch --set ray_order=$order >"$out/bin_ncu_$order.csv" 2>&1
        echo "ncu $order: exit $?, $(grep -c wf_extend "$out/bin_ncu_$order.csv") extend rows"
        save
    done
}

# Issue 15's scaling: Crytek Sponza at 3840x2160, 64 spp, depth 4, on 1, 2, 4 and 8 GPUs (as many as the
# machine has), persistent and relaunch, each image's wall time from --stats, and the speed-up over one
# GPU. On a one-GPU machine, `multi 0,0` runs two workers on GPU 0 instead (a check, not a speed-up).
multi() {
    begin_results
    local n m d spec list=() one
    n=$(nvidia-smi --list-gpus | wc -l)
    if [ -n "${1:-}" ]; then list=("$1")
    else for d in 1 2 4 8; do [ "$d" -le "$n" ] && list+=("$(seq -s, 0 $((d - 1)))"); done; fi
    [ "${list[0]}" = 0 ] || list=(0 "${list[@]}")
    echo "=== multi: $n GPUs, device lists ${list[*]}"
    for m in persistent relaunch; do
        for spec in "${list[@]}"; do
            timeout 300 $P render scenes/bench/crytek-sponza.json --backend cuda --mode $m --devices "$spec" --res 3840x2160 \
                --spp 64 --max-depth 4 -q -o "$out/multi_${m}_${spec}.png" --stats "$out/multi_${m}_${spec}.json"
            echo "$m --devices $spec: exit $?"
        done
    done
    python3 - "$out" "${list[@]}" <<'PY' | tee "$out/multi.md"
import json, sys
out, specs = sys.argv[1], sys.argv[2:]
print("| mode | devices | seconds | G rays/s | speed-up over one GPU | shares of the paths |")
print("|---|---|---:|---:|---:|---|")
for m in ("persistent", "relaunch"):
    one = None
    for spec in specs:
        try:
            j = json.load(open(f"{out}/multi_{m}_{spec}.json"))
        except OSError:
            continue
        one = one or j["seconds"]
        shares = ", ".join(f"{100 * d['share']:.1f}%" for d in j["scheduler"].get("devices", []))
        print(f"| {m} | {spec} | {j['seconds']:.3f} | {j['rays_per_second'] / 1e9:.2f} | {one / j['seconds']:.2f} | {shares} |")
PY
    save
}

# Nsight Compute on one bounded persistent frame (Crytek Sponza 1080p d4, 1 spp, the throughput build),
# in application replay: every metric pass reruns the whole process, so the persistent kernel never has
# to survive ncu's memory save and restore (kernel replay hung on it). Stall reasons per source line come
# from SourceCounters (the kernels carry -lineinfo).
# Nsight Compute's command line, or a note that this machine has none (the callers then skip).
find_ncu() {
    ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null) || { echo "no ncu on this machine"; return 1; }
}

profile() {
    local ncu
    find_ncu || return 0
    echo "=== ncu, persistent kernel"
    timeout -k 5 400 "$ncu" --replay-mode application -k regex:persistent_kernel -c 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section SourceCounters \
        -f -o "$out/persistent" $P render scenes/bench/crytek-sponza.json --backend cuda --mode persistent --set blocks_per_sm=10 \
        --spp 1 --max-depth 4 -q -o /tmp/profiled.png >"$out/ncu_run.txt" 2>&1
    echo "exit $?"; tail -5 "$out/ncu_run.txt"
    "$ncu" --import "$out/persistent.ncu-rep" --page details >"$out/ncu_details.txt" 2>&1 && head -120 "$out/ncu_details.txt"
    save
}

# BVH builds and layouts on the GPU (issue 10): binned SAH (--no-sbvh) against spatial splits (--sbvh),
# each in both layouts, on the large scenes of the bench matrix at 1920x1080, every mode, one call.
trees() {
    echo "=== trees"
    local layout build
    for layout in bvh2 cwbvh; do
        for build in no-sbvh sbvh; do
            timeout -k 5 200 $P bench scenes/bench/crytek-sponza.json scenes/bench/bunnies-in-sponza.json scenes/bench/dabrovic-sponza.json \
                --bvh $layout --$build --res 1920x1080 --max-depth 4 --repeat 5 -q --csv "$out/trees_${layout}_$build.csv" >/dev/null
            echo "$layout --$build: exit $?"
        done
    done
    python3 tests/bench_compare.py "$out/trees_bvh2_no-sbvh.csv" "$out/trees_bvh2_sbvh.csv" | tee "$out/trees_sbvh.md"
    python3 tests/bench_compare.py "$out/trees_bvh2_sbvh.csv" "$out/trees_cwbvh_sbvh.csv" | tee "$out/trees_cwbvh.md"
    python3 tests/bench_compare.py "$out/trees_cwbvh_no-sbvh.csv" "$out/trees_cwbvh_sbvh.csv" | tee "$out/trees_cwbvh_sbvh.md"
    save
}

# Nsight Compute on relaunch's ray-extension kernel (an ordinary kernel: kernel replay works), per BVH
# layout, Crytek Sponza 1080p d4: throughput, memory, warp stalls, instruction mix.
profile_extend() {
    local ncu layout
    find_ncu || return 0
    for layout in bvh2 cwbvh; do
        echo "=== ncu, relaunch extend kernel, $layout"
        timeout -k 5 150 "$ncu" -k regex:extend -s 2 -c 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
            --section WarpStateStats --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
            --section InstructionStats $P render scenes/bench/crytek-sponza.json --backend cuda --mode relaunch --bvh $layout \
            --spp 1 --max-depth 4 -q -o /tmp/profiled_$layout.png >"$out/ncu_extend_$layout.txt" 2>&1
        echo "exit $?"
        grep -E "^  [a-z_]+.*\(|Duration|Throughput|Hit Rate|Registers|Achieved Occupancy|Theoretical Occupancy|Executed Ipc|Issue Slots|Stall|Warp Cycles|Executed Instructions|Local|Block Limit" \
            "$out/ncu_extend_$layout.txt" | head -80
    done
    save
}

# Relaunch's kernels against the persistent kernel on one Crytek Sponza 1080p d4 frame (pkrt bench, one
# frame, no warm-up) under Nsight Compute, so both run at the profiler's clocks: time, warp instructions,
# active threads per warp instruction and local-memory traffic, per kernel (tests/ncu_compare.py).
compare_kernels() {
    local ncu m bench
    find_ncu || return 0
    m=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed_per_inst_executed.ratio
    m+=,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum
    bench="bench scenes/bench/crytek-sponza.json --res 1920x1080 --max-depth 4 --repeat 1 --warmup 0 -q"
    echo "=== ncu, relaunch kernels against the persistent kernel"
    timeout -k 5 200 "$ncu" --csv --metrics "$m" -k regex:wf_ $P $bench --modes relaunch >"$out/kernels_relaunch.csv" 2>&1
    echo "relaunch exit $?"
    timeout -k 5 250 "$ncu" --csv --replay-mode application --metrics "$m" -k regex:persistent_kernel -c 1 $P $bench \
        --modes persistent --set blocks_per_sm=10 --set shadow_rays=queued --set stragglers=sorted >"$out/kernels_persistent.csv" 2>&1
    echo "persistent exit $?"
    python3 tests/ncu_compare.py "$out/kernels_relaunch.csv" "$out/kernels_persistent.csv" | tee "$out/kernels.txt"
    save
}

# Resident mode (issue 11), on the X display: `resident [tests] [viewer] [bench]` (all three by default):
# GPU tests; the viewer's frame rate and camera latency per mode on Crytek Sponza 1080p and its GPU
# tests; base against new and 240-frame sequences per mode.
resident() {
    begin_results
    local parts=" ${*:-tests viewer bench} "
    [[ $parts == *" tests "* ]] && gpu_tests 150
    if [[ $parts == *" viewer "* ]] && [ -n "${DISPLAY:-}" ] && [ -x ./.stage/pkrt-viewer ]; then
        viewer_fps resident relaunch persistent
        viewer_latency resident relaunch persistent
        viewer_tests
    fi
    [[ $parts == *" bench "* ]] || return 0
    compare_with_base 128x128,1920x1080 10 1920x1080 5
    sequences
}

# Issue 28's GPU check: the GPU tests, then what the cut-out test costs. Scenes without cut-outs, base
# against new interleaved over two rounds in persistent mode on the bench matrix (their kernels are built
# without the test) and in every mode on the full-shading scenes (metal-rough spheres, Dabrovic Sponza:
# their kernels carry the test, unused); then Crytek Sponza with every surface a cut-out (a solid mask:
# the test's cost alone; a 50% checker) against the same scene opaque, new build only, every mode.
cutouts() {
    begin_results
    gpu_tests 300
    local round b name bin modes=persistent,relaunch,graph,megakernel
    for round in 1 2; do
        for b in base:.stage/base/pkrt new:$P; do
            name=${b%%:*} bin=${b#*:}
            timeout 100 $bin bench scenes/cornell.json --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 20 -q \
                --modes persistent --csv "$out/cut_c_${name}_$round.csv" >/dev/null 2>&1
            timeout 150 $bin bench scenes/bench/crytek-sponza.json scenes/bench/bunnies-in-sponza.json --res 128x128,512x512,1920x1080 \
                --max-depth 4 --repeat 10 -q --modes persistent --csv "$out/cut_s_${name}_$round.csv" >/dev/null 2>&1
            timeout 150 $bin bench scenes/bench/metal-rough-spheres.json --res 512x512,1920x1080 --max-depth 4 --repeat 10 -q \
                --modes $modes --csv "$out/cut_f_${name}_$round.csv" >/dev/null 2>&1
            timeout 100 $bin bench scenes/bench/dabrovic-sponza.json --res 128x128,512x512,1920x1080 --max-depth 8 --repeat 10 -q \
                --modes persistent --csv "$out/cut_d_${name}_$round.csv" >/dev/null 2>&1
            echo "round $round $name done"
        done
        save
    done
    echo "=== new against base (scenes without cut-outs; Dabrovic Sponza and the bunnies now render their bump maps)"
    python3 tests/bench_compare.py "$(round_csvs cut "c s f d" 2 base)" "$(round_csvs cut "c s f d" 2 new)" | tee "$out/cutout_cost.md"
    echo "=== Crytek Sponza opaque against every surface cut out (new build)"
    timeout 200 $P bench scenes/bench/crytek-sponza.json scenes/bench/crytek-sponza-cutout-solid.json \
        scenes/bench/crytek-sponza-cutout-checker.json --res 1920x1080 --max-depth 4 --repeat 10 -q --modes $modes \
        --csv "$out/cut_scene.csv" | tee "$out/cut_scene.txt"
    save
    timeout 60 $P render .scenes/gltf/AlphaBlendModeTest/glTF-Binary/AlphaBlendModeTest.glb --backend cuda --res 960x540 \
        --spp 256 -q -o "$final/alpha_blend_mode.png"; echo "alpha blend render exit $?"
    timeout 60 $P render .scenes/gltf/TextureEncodingTest/glTF-Binary/TextureEncodingTest.glb --backend cuda --res 960x540 \
        --spp 64 -q -o "$final/texture_encoding.png"; echo "texture encoding render exit $?"
}

# Issue 29 (one frame protocol, named persistent steps): nothing may get slower. GPU tests; the viewer's
# GPU tests and its fps per mode, base and new interleaved; the bench matrix in every mode, base and new
# interleaved over two rounds.
house() {
    begin_results
    local parts=" ${*:-tests viewer bench} " modes=persistent,relaunch,graph,megakernel,resident round b name bin m
    if [[ $parts == *" tests "* ]]; then
        gpu_tests 240
    fi
    if [[ $parts == *" viewer "* ]] && [ -n "${DISPLAY:-}" ] && [ -x ./.stage/pkrt-viewer ]; then
        viewer_tests
        echo "=== viewer fps, base against new"
        for m in persistent relaunch graph megakernel resident; do
            for b in base:.stage/base/pkrt-viewer new:./.stage/pkrt-viewer; do
                name=${b%%:*} bin=${b#*:}
                [ -x "$bin" ] || continue
                timeout -k 5 100 $bin scenes/bench/crytek-sponza.json --backend cuda --mode $m --res 1920x1080 \
                    --spp-per-frame 1 --frames 200 >"$out/hv_${m}_$name.txt" 2>&1
                echo "$m $name exit $?: $(grep -E 'fps' "$out/hv_${m}_$name.txt" | head -2 | tr '\n' ' ')"
            done
        done
        save
    fi
    [[ $parts == *" bench "* ]] || return 0
    for round in 1 2; do
        for b in base:.stage/base/pkrt new:$P; do
            name=${b%%:*} bin=${b#*:}
            timeout 150 $bin bench scenes/cornell.json --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 10 -q \
                --modes $modes --csv "$out/h_c_${name}_$round.csv" >/dev/null 2>&1; echo "round $round $name cornell $?"
            timeout 150 $bin bench scenes/bench/crytek-sponza.json --res 512x512,1920x1080 --max-depth 4 --repeat 5 -q \
                --modes $modes --csv "$out/h_s_${name}_$round.csv" >/dev/null 2>&1; echo "round $round $name sponza $?"
        done
        save
    done
    python3 tests/bench_compare.py "$(round_csvs h "c s" 2 base)" "$(round_csvs h "c s" 2 new)" | tee "$out/house.md"
    save
}

# Issue 31's feature buffers and denoiser (session 18 built them without a device): the GPU tests
# (GpuFeatures.* among them), the viewer's GPU tests on the X display, the bench matrix base against new
# in every mode (the kernels write features only where a framebuffer keeps them: without, no slower),
# then the cost of keeping them and the denoiser's kernel time at 1080p, per mode.
features() {
    begin_results
    gpu_tests 300
    if [ -n "${DISPLAY:-}" ] && [ -x ./.stage/pkrt-viewer ]; then
        viewer_tests
        viewer_latency resident relaunch persistent graph megakernel
        local v
        for v in persistent relaunch resident; do  # the denoised view's refreshes: read-back, temporal reuse, filter, upload
            echo "viewer --denoise, $v: $(timeout -k 5 60 ./.stage/pkrt-viewer scenes/bench/crytek-sponza.json --backend cuda \
                --mode $v --res 1920x1080 --spp-per-frame 1 --frames 120 --denoise 2>&1 | grep -E 'fps|denoised view|error')"
        done
    fi
    compare_with_base 128x128,512x512,1920x1080 10 512x512,1920x1080 5
    echo "=== features and the denoiser, Crytek Sponza 1920x1080 d4, 8 spp"
    local m
    for m in persistent relaunch graph megakernel resident; do
        for f in "" "--aov albedo,normal,depth" "--denoise"; do
            timeout 100 $P render scenes/bench/crytek-sponza.json --res 1920x1080 --spp 8 --max-depth 4 --mode $m $f \
                -o "$out/f_$m.exr" >"$out/f_${m}_${f:2:3}.txt" 2>&1
            echo "$m ${f:-plain}: $(grep -E "ms GPU time|denoised on" "$out/f_${m}_${f:2:3}.txt" | tr '\n' ' ')"
        done
    done
    save
}

# A GPU test that failed once, FILTER run REPEAT times by this build's test_gpu and, when staged
# (.stage/base/test_gpu), by the base's: whether the failure came with a change or was there before it.
repeat_test() {
    begin_results
    gpu_tests 150
    local bin
    for bin in .stage/base/test_gpu .stage/test_gpu; do
        [ -f "$bin" ] || continue
        chmod +x "$bin"
        timeout "${3:-200}" "$bin" --gtest_color=no --gtest_filter="$1" --gtest_repeat="$2" >"$out/repeat_$(basename "$(dirname "$bin")").txt" 2>&1
        echo "$bin $1 x$2: exit $?, $(grep -c '^\[       OK \]' "$out/repeat_$(basename "$(dirname "$bin")").txt") passed," \
             "$(grep -c '^\[  FAILED  \] Gpu' "$out/repeat_$(basename "$(dirname "$bin")").txt") failed"
        grep -A4 "Failure" "$out/repeat_$(basename "$(dirname "$bin")").txt" | head -12
    done
    save
}

# Issue 49 (session 26): this build against the commit before (.stage/base/pkrt) and staged variants
# (.stage/var/*), interleaved over two rounds: Crytek Sponza 1080p d4 per BVH layout in persistent,
# relaunch and megakernel mode, and the megakernel on the bench matrix. Then Nsight Compute on relaunch's
# extend kernel per layout, and the SASS of the traversal cubins staged in .s26/ (cuobjdump). First the GPU
# tests that trace: every mode and both layouts against the CPU, the persistent variants, conservation.
issue49() {
    begin_results
    echo "=== GPU tests that trace"
    timeout 150 ./.stage/test_gpu --gtest_color=no \
        --gtest_filter='Gpu.EveryMode*:Gpu.PersistentVariantsAlsoMatch:Gpu.ConservationOfSamplesAndQueueRecords' \
        >"$out/test_gpu_trace.txt" 2>&1
    echo "exit $?"; grep -E "^\[ +(OK|FAILED|PASSED) +\]|Failure" "$out/test_gpu_trace.txt" | head -20
    save
    local round b name bin layout builds=("base:.stage/base/pkrt" "new:$P")
    for bin in .stage/var/*; do [[ -x $bin && $bin != *.xz ]] && builds+=("$(basename "$bin"):$bin"); done
    for round in 1 2; do
        for b in "${builds[@]}"; do
            name=${b%%:*} bin=${b#*:}
            for layout in bvh2 cwbvh; do
                timeout 100 $bin bench scenes/bench/crytek-sponza.json --bvh $layout --res 1920x1080 --max-depth 4 --repeat 5 \
                    -q --modes persistent,relaunch,megakernel --csv "$out/l_${layout}_${name}_$round.csv" >/dev/null 2>&1
                echo "round $round $name $layout: exit $?"
            done
            timeout 100 $bin bench scenes/cornell.json --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 10 -q \
                --modes megakernel --csv "$out/m_c_${name}_$round.csv" >/dev/null 2>&1
            timeout 150 $bin bench scenes/bench/bunnies-in-sponza.json scenes/bench/dabrovic-sponza.json \
                --res 128x128,512x512,1920x1080 --max-depth 4 --repeat 5 -q --modes megakernel \
                --csv "$out/m_s_${name}_$round.csv" >/dev/null 2>&1
            echo "round $round $name megakernel matrix: exit $?"
        done
        save
    done
    for b in "${builds[@]:1}"; do
        name=${b%%:*}
        for layout in bvh2 cwbvh; do
            echo "=== $name against base, $layout"
            python3 tests/bench_compare.py "$out/l_${layout}_base_1.csv,$out/l_${layout}_base_2.csv" \
                "$out/l_${layout}_${name}_1.csv,$out/l_${layout}_${name}_2.csv" | tee "$out/layout_${layout}_$name.md"
        done
        echo "=== $name against base, megakernel"
        python3 tests/bench_compare.py "$out/m_c_base_1.csv,$out/m_c_base_2.csv,$out/m_s_base_1.csv,$out/m_s_base_2.csv" \
            "$out/m_c_${name}_1.csv,$out/m_c_${name}_2.csv,$out/m_s_${name}_1.csv,$out/m_s_${name}_2.csv" | tee "$out/mega_$name.md"
    done
    echo "=== new: cwbvh against bvh2"
    python3 tests/bench_compare.py "$out/l_bvh2_new_1.csv,$out/l_bvh2_new_2.csv" "$out/l_cwbvh_new_1.csv,$out/l_cwbvh_new_2.csv" |
        tee "$out/layouts_new.md"
    save
    local f
    for f in .s26/*.cubin; do
        [ -f "$f" ] && "$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)" -sass "$f" >"$out/$(basename "$f" .cubin).sass" 2>&1
    done
    save
    profile_extend
}

# Session 27 (issue 49): GPU tests, then base, this build and the staged variants over two rounds: the
# Cornell box (d16) and Crytek Sponza (d4) in the modes each comparison needs (persistent against
# relaunch, graph and the megakernel; resident), and Crytek Sponza 1080p per BVH layout. Variants named
# pkrt86* run the megakernel only, collapse* the cwbvh layout only. (As run in session 27 it also timed the
# lean persistent loop, since deleted: BENCHMARKS.md.)
session27() {
    begin_results
    echo "=== test_gpu"
    timeout 240 ./.stage/test_gpu --gtest_color=no >"$out/test_gpu.txt" 2>&1
    echo "exit $?"; grep -E "^\[ +(OK|FAILED|PASSED|SKIPPED) +\]|Failure" "$out/test_gpu.txt" | grep -v ' OK ' | head -30
    save
    local round b name bin builds=("base:.stage/base/pkrt" "new:$P") C=scenes/cornell.json S=scenes/bench/crytek-sponza.json
    for bin in .stage/var/*; do [[ -x $bin && $bin != *.xz ]] && builds+=("$(basename "$bin"):$bin"); done
    for round in 1 2; do
        for b in "${builds[@]}"; do
            name=${b%%:*} bin=${b#*:}
            case $name in
                pkrt86*) timeout 60 $bin bench $C --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 10 -q \
                        --modes megakernel --csv "$out/c_${name}_$round.csv" >/dev/null 2>&1 ;;
                collapse*) timeout 60 $bin bench $S --bvh cwbvh --res 1920x1080 --max-depth 4 --repeat 5 -q \
                        --modes persistent,relaunch,megakernel --csv "$out/w_${name}_$round.csv" >/dev/null 2>&1 ;;
                *)
                    timeout 90 $bin bench $C --res 128x128,512x512,1920x1080 --max-depth 16 --repeat 10 -q \
                        --modes persistent,relaunch,graph,megakernel,resident --csv "$out/c_${name}_$round.csv" >/dev/null 2>&1
                    timeout 90 $bin bench $S --res 128x128,512x512,1920x1080 --max-depth 4 --repeat 5 -q \
                        --modes persistent,relaunch,graph,megakernel --csv "$out/s_${name}_$round.csv" >/dev/null 2>&1
                    timeout 60 $bin bench $S --bvh cwbvh --res 1920x1080 --max-depth 4 --repeat 5 -q \
                        --modes persistent,relaunch,megakernel --csv "$out/w_${name}_$round.csv" >/dev/null 2>&1 ;;
            esac
            echo "round $round $name: exit $?"
        done
        save
    done
    pair() { echo "$out/$1_$2_1.csv,$out/$1_$2_2.csv"; }
    echo "=== new against base"
    python3 tests/bench_compare.py "$(pair c base),$(pair s base)" "$(pair c new),$(pair s new)" | tee "$out/new.md"
    echo "=== new against base, cwbvh"
    python3 tests/bench_compare.py "$(pair w base)" "$(pair w new)" | tee "$out/new_cwbvh.md"
    echo "=== new: cwbvh against bvh2"
    python3 tests/bench_compare.py "$(pair s new)" "$(pair w new)" | tee "$out/layouts.md"
    for b in "${builds[@]:2}"; do
        name=${b%%:*}
        echo "=== $name against base"
        case $name in
            pkrt86*) python3 tests/bench_compare.py "$(pair c base)" "$(pair c "$name")" | tee "$out/$name.md" ;;
            collapse*) python3 tests/bench_compare.py "$(pair w base)" "$(pair w "$name")" | tee "$out/$name.md" ;;
        esac
    done
    save
}

# stage_train's files set aside in .train/ (stage, scenes, denoiser) beside a normal stage, so that a
# training call can follow another call on the same warm machine (carry [".gpu", ".train"]): on the
# device `tests/h200.sh train_aside SECONDS` puts them in place and trains. With `eval`, the held-out
# scenes go to .eval/ instead, for `tests/h200.sh eval_aside` (carry [".gpu", ".eval"]); the weights
# can be put in .eval/denoiser/unet.pkrtunet afterwards.
stage_train_aside() {
    local aside=.train; [ "${1:-}" = eval ] && aside=.eval
    [ -d .stage ] && mv .stage .stage.keep
    [ -d .scenes ] && mv .scenes .scenes.keep
    (stage_train "$@") || return 1
    rm -rf $aside && mkdir -p $aside && mv .stage $aside/stage && mv .scenes $aside/scenes && cp -r .denoiser $aside/denoiser
    [ -d .stage.keep ] && mv .stage.keep .stage
    [ -d .scenes.keep ] && mv .scenes.keep .scenes
    grep -qx "/$aside/" .git/info/exclude || echo "/$aside/" >>.git/info/exclude
    du -sh $aside
}
# Here, after `stage`: what tests_and_train (or tests_then_data, then train) carries in one set,
# [".gpu", ".stage", ".scenes"] within 64 MiB: the viewer's binaries out of .stage, and into .scenes every
# training scene (stage_train's) and every held-out one (evaluate.py's), beside the GPU tests' scenes.
stage_tests_and_train() {
    set -e
    rm -f .stage/pkrt-viewer.xz .stage/test_viewer_gpu.xz
    local m
    for m in ../shared/scenes/gltf/*/; do [ -d ".scenes/gltf/$(basename "$m")" ] || cp -r "$m" .scenes/gltf/; done
    rm -rf .scenes/gltf/DamagedHelmet/glTF  # its .glb is the one the tests and evaluate.py read
    for m in cornell-box cornell-box-mm stanford-bunny dabrovic-sponza; do
        [ -d ".scenes/$m" ] || cp -r "../shared/scenes/$m" .scenes/
    done
    du -sb .stage .scenes .gpu | awk '{s += $1} END {printf "carried: %.1f MiB, with the working tree about %.1f\n", s / 1048576, s / 1048576 + 5}'
}

# Puts an aside's files ($1: .train or .eval) in place on the device.
from_aside() {
    rm -rf .stage .scenes .denoiser && cp -r "$1/stage" .stage && cp -r "$1/scenes" .scenes && cp -r "$1/denoiser" .denoiser
}
train_aside() {
    from_aside .train
    begin_results
    train "$@"
}

case "${1:-}" in
    stage) shift; stage "$@" ;;
    repeat_test) shift; repeat_test "$@" ;;
    cutouts) cutouts ;;
    run) run ;;
    check) check ;;
    variants) shift; variants "$@" ;;
    multi) shift; multi "$@" ;;
    resident) shift; resident "$@" ;;
    house) shift; house "$@" ;;
    features) features ;;
    response) response ;;
    tests) begin_results; gpu_tests "${2:-150}" ;;
    denoised_view) denoised_view ;;
    compare) begin_results; compare_with_base "${2:-512x512,1920x1080}" "${3:-5}" "${4:-512x512,1920x1080}" "${5:-5}" ;;
    profile) begin_results; profile ;;
    trees) begin_results; trees ;;
    profile_extend) begin_results; profile_extend ;;
    compare_kernels) begin_results; compare_kernels ;;
    issue49) issue49 ;;
    binning) begin_results; gpu_tests 200; binning ;;
    # The same in less device time: the binned order's test and the Cornell box's in every mode, one round.
    binning_quick) begin_results; gpu_tests 120 'Gpu.BinnedRayOrderMatchesTheCpu:Gpu.EveryModeMatchesTheCpuOnTheCornellBox'
        ROUNDS=1 binning ;;
    session27) session27 ;;
    # (as run in session 28, it began with `loops`: the lean persistent loop, since deleted; BENCHMARKS.md)
    denoiser_smoke) begin_results; denoiser_smoke ;;
    train) shift; begin_results; train "$@" ;;
    tests_then_data) shift; tests_then_data "$@" ;;
    tests_and_train) shift; tests_and_train "$@" ;;
    train_aside) shift; train_aside "$@" ;;
    eval_aside) shift; from_aside .eval; begin_results; evaluate "$@" ;;
    stage_train_aside) shift; stage_train_aside "$@" ;;
    stage_tests_and_train) stage_tests_and_train ;;
    stage_train) shift; stage_train "$@" ;;
    evaluate) shift; begin_results; evaluate "$@" ;;
    session28) begin_results; gpu_tests 240; unet; matrix; python3 -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())' 2>&1 | tail -1
        for m in numpy OpenEXR Imath; do python3 -c "import $m; print('$m', getattr($m, '__version__', ''))" 2>&1 | tail -1; done ;;
    soak) shift; soak "$@" ;;
    *) echo "usage: $0 stage [BASE [VARIANT...]] | run | check | variants [MODES] | multi [DEVICES] | resident [tests] [viewer] [bench] | house [tests] [viewer] [bench] | profile | trees | profile_extend | compare_kernels | features | response | tests [SECONDS] | denoised_view | compare [...] | repeat_test FILTER N [SECONDS] | soak start SECONDS | soak wait" >&2; exit 2 ;;
esac

