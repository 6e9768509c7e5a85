# Sourced by the window benchmarks: a synthetic CT series of $slices slices from the TCIA slices in ../shared
# (bench_make_ct_series), as NIfTI too, and its classic-engine labels (delineate-cli, in its own process so that the
# engine's memory does not count). Sets $work; expects $slices and the tools built.
work="${DELINEATE_BENCH_DIR:-/tmp/delineate-bench-viewer}"
mkdir -p "$work"
if [ ! -d "$work/ct$slices" ]; then
  build/bench/bench_make_ct_series "$work/ct$slices" --slices "$slices"
fi
if [ ! -f "$work/labels$slices.nii.gz" ]; then
  build/app/cli/delineate-cli convert "$work/ct$slices" "$work/ct$slices.nii.gz"
  build/app/cli/delineate-cli segment "$work/ct$slices.nii.gz" "$work/labels$slices.nii.gz"
fi
