#!/usr/bin/env bash
# Editing in the window (bench/window_edit.cpp): a 512 x 512 x 300 synthetic CT series from the TCIA slices in
# ../shared (bench_make_ct_series), converted to NIfTI, its classic-engine labels (delineate-cli, its own process),
# then bench_window_edit under a private Xvfb: brush dab latency and click-to-preview latency.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_window_edit --target bench_make_ct_series --target delineate-cli
slices="${SLICES:-300}"
source scripts/bench_ct_inputs.sh
xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_window_edit "$work/ct$slices.nii.gz" \
  "$work/labels$slices.nii.gz" "$@"
