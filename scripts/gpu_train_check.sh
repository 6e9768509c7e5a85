#!/usr/bin/env bash
# Training on a GPU machine (issue 25): the device tool's H100/H200 has LibTorch inside Python's torch and none of
# Qt, VTK, ITK, DCMTK or zlib's headers, so bench_train_gpu (core + inference) stands in for delineate-train there
# with delineate-train's CUDA defaults. Two steps:
#   here:   bash scripts/gpu_train_check.sh prepare [BUILD_DIR]
#           writes .gpu-train/ (ignored by git, about 9 MB): the header-only libraries, MONAI's source, and the six mouse
#           subjects of ../shared/data/mouse converted by delineate-cli to MetaImage (zlib-compressed .zraw).
#   there:  bash scripts/gpu_train_check.sh run            (carry: [".gpu-train"]; prints and writes $OUT/train-gpu.log)
#           builds bench_train_gpu and bench_vista3d against that torch, then, while time is left (DEADLINE seconds,
#           default 570): the mouse atlas (ATLAS_SECONDS of training, default 150), SegResNetDS and VISTA-3D steps per
#           second in fp32 / bf16 / fp16 beside MONAI's plain loop on the same GPU, and VISTA-3D 512^3 inference
#           (ATLAS_SECONDS=0 and SKIP_INFERENCE=1 leave those out).
set -uo pipefail
cd "$(dirname "$0")/.."
deps=.gpu-train

case "${1:-}" in
  prepare)
    set -e
    build="${2:-build}"
    cli="$build/app/cli/delineate-cli"
    [ -x "$cli" ] || { echo "gpu_train_check: build delineate-cli first ($cli)" >&2; exit 1; }
    shared="${DELINEATE_SHARED_DIR:-../shared}"
    mouse="$shared/data/mouse/fvb-ncrl-in-vivo"
    rm -rf "$deps"
    mkdir -p "$deps/include/catch2" "$deps/data"
    cp -r /usr/include/nlohmann "$deps/include/"
    cp /usr/include/catch2/catch.hpp "$deps/include/catch2/"
    cp "$shared/reference/monai/monai-d388d1c.tar.gz" "$deps/"
    for i in 1 2 3 4 5 6; do
      "$cli" convert "$mouse/template/FVB_NCrl_in_vivo_$i.nii.gz" "$deps/data/FVB${i}_image.mhd" >/dev/null
      "$cli" convert "$mouse/label/FVB_NCrl_in_vivo_$i.nii.gz" "$deps/data/FVB${i}_labels.mhd" >/dev/null
    done
    grep -qx '/.gpu-train/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo '/.gpu-train/' >> .git/info/exclude; }
    du -sh "$deps"
    ;;
  run)
    [ -d "$deps/data" ] || { echo "gpu_train_check: carry .gpu-train (run 'prepare' first)" >&2; exit 2; }
    out="${OUT:-/tmp/gpu-train-out}"
    mkdir -p "$out"
    exec > >(tee "$out/train-gpu.log") 2>&1
    start=$(date +%s)
    deadline="${DEADLINE:-570}"
    left() { echo $(( deadline - ($(date +%s) - start) )); }
    step() {  # step NAME SECONDS_NEEDED COMMAND...: runs when that much time is left, never past the deadline
      local name="$1" need="$2"; shift 2
      local l; l=$(left)
      if [ "$l" -lt "$need" ]; then echo "== $name: skipped ($l s left, needs $need)"; return; fi
      echo "== $name ($(( $(date +%s) - start )) s in)"
      timeout "$(( l - 5 ))" "$@" || echo "== $name: FAILED or timed out (exit $?)"
    }
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))'
    nproc
    # The mouse subjects: zlib streams to raw files (the bench reads uncompressed MetaImage).
    python3 - "$deps/data" <<'PY'
import glob, sys, zlib
for mhd in sorted(glob.glob(sys.argv[1] + "/*.mhd")):
    lines = open(mhd).read().splitlines()
    keys = dict(l.split(" = ", 1) for l in lines if " = " in l)
    if keys.get("CompressedData") != "True":
        continue
    zraw = mhd.rsplit("/", 1)[0] + "/" + keys["ElementDataFile"]
    raw = zraw[:-5] + ".raw"
    open(raw, "wb").write(zlib.decompress(open(zraw, "rb").read()))
    out = []
    for l in lines:
        if l.startswith("CompressedDataSize"):
            continue
        if l.startswith("CompressedData ="):
            l = "CompressedData = False"
        if l.startswith("ElementDataFile"):
            l = "ElementDataFile = " + raw.rsplit("/", 1)[1]
        out.append(l)
    open(mhd, "w").write("\n".join(out) + "\n")
PY
    mkdir -p /tmp/monai-src && tar xzf "$deps/monai-d388d1c.tar.gz" -C /tmp/monai-src monai
    prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
    b0=$(date +%s)
    cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDELINEATE_INFERENCE_ONLY=ON \
      -DCMAKE_PREFIX_PATH="$prefix" -DDELINEATE_DEPS_DIR="$PWD/$deps" -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 \
      || { tail -30 "$out/cmake.log"; exit 1; }
    cmake --build build-gpu -j "$(nproc)" --target bench_train_gpu bench_vista3d > "$out/build.log" 2>&1 \
      || { grep -E "error|Error" -A3 "$out/build.log" | head -60; exit 1; }
    echo "== built in $(( $(date +%s) - b0 )) s"
    bench=build-gpu/bench/vista3d_only/bench_train_gpu
    peer="python3 bench/peers/monai_train_loop.py /tmp/monai-src"
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 > "$out/gpu-memory.csv" &
    smi=$!
    if [ "${ATLAS_SECONDS:-150}" -gt 0 ]; then
      step "mouse atlas, SegResNetDS from scratch, bf16" $(( ${ATLAS_SECONDS:-150} + 40 )) \
        "$bench" atlas "$deps/data" --device cuda --precision bf16 --seconds "${ATLAS_SECONDS:-150}" --workers "${WORKERS:-12}"
      echo "   GPU memory in use, peak while training: $(sort -n "$out/gpu-memory.csv" | tail -1) MiB"
    fi
    kill "$smi" 2>/dev/null
    it="${STEPS:-15}"
    step "SegResNetDS steps/s, ours (32 filters, 38 classes, 128^3, batch 1)" 60 \
      "$bench" throughput segresnetds --device cuda --iterations "$it" --patch 128,128,128 --init-filters 32 --classes 38
    step "SegResNetDS steps/s, MONAI" 60 \
      $peer segresnetds 16 "$it" 128,128,128 init_filters=32 out_channels=38 device=cuda precisions=fp32,bf16,fp16
    step "VISTA-3D fine-tuning steps/s, MONAI (128^3, 38 classes, 4+1 prompts; writes its initial weights)" 100 \
      $peer vista3d 16 "$it" 128,128,128 classes=38 max_foreprompt=4 max_backprompt=1 device=cuda \
      precisions=fp32,bf16,fp16 save_init=/tmp/vista-init.pt
    if [ -f /tmp/vista-init.pt ]; then
      step "VISTA-3D fine-tuning steps/s, ours (the same initial weights)" 100 \
        "$bench" throughput vista3d --device cuda --iterations "$it" --patch 128,128,128 --classes 38 --checkpoint /tmp/vista-init.pt
    fi
    [ -n "${SKIP_INFERENCE:-}" ] || step "VISTA-3D inference, 512^3 end to end" 60 \
      build-gpu/bench/vista3d_only/bench_vista3d --device cuda --full --sizes 512x512x512 --stitch-sizes none
    echo "== done ($(( $(date +%s) - start )) s)"
    ;;
  *)
    echo "usage: bash scripts/gpu_train_check.sh prepare [BUILD_DIR] | run" >&2
    exit 2
    ;;
esac
