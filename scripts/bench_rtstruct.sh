#!/usr/bin/env bash
# RT structure sets beside plastimatch: a synthetic 512 x 512 x 300 CT series made from the TCIA slices in ../shared
# (bench_make_ct_series), 100 ROIs by default (pass --rois N), each writer and reader a whole process.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_make_ct_series bench_rtstruct delineate-cli >/dev/null
slices="${SLICES:-300}"
work="${DELINEATE_BENCH_DIR:-/tmp/delineate-bench-rtstruct}"
mkdir -p "$work"
[ -d "$work/ct$slices" ] || build/bench/bench_make_ct_series "$work/ct$slices" --slices "$slices"
build/bench/bench_rtstruct "$work/ct$slices" --cli "$root/build/app/cli/delineate-cli" --out "$work/run" "$@"
