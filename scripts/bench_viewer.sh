#!/usr/bin/env bash
# The window's benchmark (bench/viewer.cpp): a 512-slice synthetic CT series from the TCIA series in ../shared
# (bench_make_ct_series), its classic-engine labels (delineate-cli, in its own process so that the engine's memory
# does not count), then bench_viewer under a private Xvfb.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_viewer --target bench_make_ct_series --target delineate-cli
work="${DELINEATE_BENCH_DIR:-/tmp/delineate-bench-viewer}"
slices="${SLICES:-512}"
mkdir -p "$work"
if [ ! -d "$work/ct$slices" ]; then
  build/bench/bench_make_ct_series "$work/ct$slices" --slices "$slices"
fi
if [ ! -f "$work/labels$slices.nii.gz" ]; then
  build/app/cli/delineate-cli convert "$work/ct$slices" "$work/ct$slices.nii.gz"
  build/app/cli/delineate-cli segment "$work/ct$slices.nii.gz" "$work/labels$slices.nii.gz"
fi
xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_viewer --dicom "$work/ct$slices" \
  --labels "$work/labels$slices.nii.gz" "$@"
