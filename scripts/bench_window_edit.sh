#!/usr/bin/env bash
# Editing in the window (bench/window_edit.cpp): a 512 x 512 x 300 synthetic CT series from the TCIA slices in
# ../shared (bench_make_ct_series), converted to NIfTI, its classic-engine labels (delineate-cli, its own process),
# then bench_window_edit under a private Xvfb: brush dab latency and click-to-preview latency.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_window_edit --target bench_make_ct_series --target delineate-cli
work="${DELINEATE_BENCH_DIR:-/tmp/delineate-bench-viewer}"
slices="${SLICES:-300}"
mkdir -p "$work"
if [ ! -d "$work/ct$slices" ]; then
  build/bench/bench_make_ct_series "$work/ct$slices" --slices "$slices"
fi
if [ ! -f "$work/labels$slices.nii.gz" ]; then
  build/app/cli/delineate-cli convert "$work/ct$slices" "$work/ct$slices.nii.gz"
  build/app/cli/delineate-cli segment "$work/ct$slices.nii.gz" "$work/labels$slices.nii.gz"
fi
xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_window_edit "$work/ct$slices.nii.gz" \
  "$work/labels$slices.nii.gz" "$@"
