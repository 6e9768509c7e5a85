#!/usr/bin/env bash
# The window's benchmark (bench/viewer.cpp): a 512-slice synthetic CT series from the TCIA series in ../shared
# (bench_make_ct_series), its classic-engine labels (delineate-cli, in its own process so that the engine's memory
# does not count), then bench_viewer under a private Xvfb.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_viewer --target bench_make_ct_series --target delineate-cli
slices="${SLICES:-512}"
source scripts/bench_ct_inputs.sh
xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_viewer --dicom "$work/ct$slices" \
  --labels "$work/labels$slices.nii.gz" "$@"
