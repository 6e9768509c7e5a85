#!/usr/bin/env bash
# VISTA-3D on a GPU machine (the device tool's H100/H200: LibTorch inside Python's torch, no Qt/VTK/ITK/DCMTK, no
# network). Two steps:
#   here:   bash scripts/gpu_check.sh prepare
#           copies the header-only libraries (nlohmann/json, Catch2) and the parity reference files the device tests
#           read into .gpu-deps/ (ignored by git; about 40 MB), to be carried to the device (carry: [".gpu-deps"]).
#   there:  bash scripts/gpu_check.sh run [bench_vista3d options...]
#           configures core + inference against that torch (DELINEATE_INFERENCE_ONLY), builds, runs the VISTA-3D
#           device tests (the [gpu] cases among them) and bench_vista3d on CUDA (default: --full over the issue's four
#           sizes with the official width).
set -euo pipefail
cd "$(dirname "$0")/.."
deps=.gpu-deps

case "${1:-}" in
  prepare)
    rm -rf "$deps"
    mkdir -p "$deps/include" "$deps/shared/reference/vista3d"
    cp -r /usr/include/nlohmann "$deps/include/"
    mkdir -p "$deps/include/catch2" && cp /usr/include/catch2/catch.hpp "$deps/include/catch2/"
    ref=../shared/reference/vista3d
    for f in tiny_state_dict.pt input_64.npy case_auto_logits.npy case_point_logits.npy input_sw_100x80x48.npy \
             case_sw_auto_logits.npy case_sw_auto_labelmap.npy case_pw_point_logits.npy case_pw_point_labelmap.npy \
             case_pw_autopoint_logits.npy case_pw_autopoint_labelmap.npy case_autopoint_gaussian_logits.npy; do
      cp "$ref/$f" "$deps/shared/reference/vista3d/"
    done
    du -sh "$deps"
    ;;
  run)
    shift
    [ -d "$deps/include" ] || { echo "gpu_check: carry .gpu-deps (run 'prepare' first)" >&2; exit 2; }
    prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDELINEATE_INFERENCE_ONLY=ON \
      -DCMAKE_PREFIX_PATH="$prefix" -DDELINEATE_DEPS_DIR="$PWD/$deps" -DCMAKE_CUDA_ARCHITECTURES=90
    cmake --build build-gpu -j "$(nproc)"
    DELINEATE_SHARED_DIR="$PWD/$deps/shared" build-gpu/tests/gpu/test_vista3d_gpu "[device],[stream],[network]" -s \
      2>&1 | grep -E "max \||passed|failed|FAILED|warning" || true
    DELINEATE_SHARED_DIR="$PWD/$deps/shared" build-gpu/tests/gpu/test_vista3d_gpu "[device],[stream],[network]"
    if [ $# -eq 0 ]; then set -- --device cuda --full --stitch-sizes none; fi
    build-gpu/bench/vista3d_only/bench_vista3d "$@"
    ;;
  *)
    echo "usage: bash scripts/gpu_check.sh prepare|run [bench options]" >&2
    exit 2
    ;;
esac
