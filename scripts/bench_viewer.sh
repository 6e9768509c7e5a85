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
# The window's fixed cost first, in its own process: the same window with the 41-slice series it was made from
# (21 MB of int16), so the large study's peak can be read as baseline + what the data adds.
small="$(cd "${SHARED:-$root/../shared}/data/ct/tcia-crlm-ct-series/CRLM-CT-1004" 2>/dev/null && pwd || true)"
if [ -n "$small" ]; then
  printf 'window baseline (41-slice CT): '
  BENCH_STOP_AFTER_IMAGE=1 xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_viewer --dicom "$small" \
    --labels none 2>/dev/null | tail -1
fi
# The surfaces at reduced detail first (what "auto" gives on a software renderer such as this Xvfb's llvmpipe), in a
# process of its own, up to the peak; then the whole benchmark at full detail.
printf '\nsurfaces at reduced detail:\n'
BENCH_SURFACE_DETAIL=reduced BENCH_STOP_AFTER_SURFACES=1 xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_viewer \
  --dicom "$work/ct$slices" --labels "$work/labels$slices.nii.gz" "$@"
printf '\nsurfaces at full detail:\n'
BENCH_SURFACE_DETAIL=full xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_viewer --dicom "$work/ct$slices" \
  --labels "$work/labels$slices.nii.gz" "$@"
