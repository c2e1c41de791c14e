#!/usr/bin/env bash
# pkrt.sh: set up, build, render and test pkrt on Debian 12.
#   ./pkrt.sh demo    install what building and rendering need, build pkrt alone, render the Cornell box to pkrt.png
#   ./pkrt.sh test    install what is missing, build, run the whole test suite and the fuzz targets
#   ./pkrt.sh build   install everything, build everything (pkrt, pkrt-viewer, the tests)
# CUDA is optional: the GPU backend is built when nvcc is found (PATH or /usr/local/cuda). MPI (Open MPI)
# is installed and built in: `mpirun -n K build/pkrt render ...` renders across K ranks.
set -euo pipefail
cd "$(dirname "$0")"

# What building pkrt and rendering need (the demo installs only these) ...
CORE_PACKAGES=(cmake ninja-build g++ pkg-config libglm-dev libtinyobjloader-dev libstb-dev libcli11-dev
               libpng-dev libjpeg62-turbo-dev libdeflate-dev
               nlohmann-json3-dev libopenexr-dev libtinygltf-dev
               libassimp-dev)                                          # PLY meshes (its PLY importer alone)
# ... and what the viewer, several ranks and the test tool chain add.
FULL_PACKAGES=("${CORE_PACKAGES[@]}"
               libglfw3-dev libimgui-dev libgl-dev libgl1-mesa-dri xvfb   # pkrt-viewer: window, UI, GL; its tests run on Xvfb
               libopenmpi-dev openmpi-bin                                  # mpirun -n K pkrt render (samples split across ranks); its tests run mpirun
               libgtest-dev                                                # the unit and end-to-end tests
               clang libclang-rt-14-dev                                    # fuzz targets (tests/fuzz/): libFuzzer, ASan, UBSan
               clang-format-14)                                            # tests/check_format.sh (.clang-format)

# install_deps PACKAGE...: the ones not installed yet, through apt-get.
install_deps() {
    local missing=()
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "pkrt.sh: installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# build [CMAKE_ARGS...]: the options are given every time (a cached OFF from a demo must not survive).
build() {
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@"
    cmake --build build -j "$(nproc)"
}
FULL=(-DBUILD_TESTING=ON -DPKRT_BUILD_VIEWER=ON)

# The fuzz targets, everything built by clang with ASan and UBSan (tests/fuzz/README.md).
build_fuzz() {
    CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPKRT_FUZZ=ON \
        -DPKRT_ENABLE_CUDA=OFF -DPKRT_ENABLE_MPI=OFF -DPKRT_BUILD_VIEWER=OFF -DBUILD_TESTING=OFF
    cmake --build build-fuzz -j "$(nproc)"
}

case "${1:-}" in
    demo)
        install_deps "${CORE_PACKAGES[@]}"
        build -DBUILD_TESTING=OFF -DPKRT_BUILD_VIEWER=OFF
        ./build/pkrt render scenes/cornell.json -o pkrt.png
        ;;
    test)
        install_deps "${FULL_PACKAGES[@]}"
        build "${FULL[@]}"
        tests/check_format.sh  # the tree as .clang-format writes it (clang-format-14)
        python3 tests/check_sizes.py  # no file over 500 lines, no function over 150
        ctest --test-dir build --output-on-failure -j "$(nproc)"
        build_fuzz
        ctest --test-dir build-fuzz --output-on-failure -j "$(nproc)" -L fuzz  # crash reproducers, then 45 s a target
        ;;
    build)
        install_deps "${FULL_PACKAGES[@]}"
        build "${FULL[@]}"
        ;;
    *)
        echo "usage: $0 demo|test|build" >&2
        exit 2
        ;;
esac
