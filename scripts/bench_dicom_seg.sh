#!/usr/bin/env bash
# DICOM SEG export beside DCMTK's dcmseg writer: a synthetic 512 x 512 x 300 CT series made from the TCIA slices in
# ../shared (bench_make_ct_series), 20 labels by default (pass --labels N), each writer in its own process.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_make_ct_series bench_dicom_seg_write >/dev/null
slices="${SLICES:-300}"
work="${DELINEATE_BENCH_DIR:-/tmp/delineate-bench-seg}"
mkdir -p "$work"
[ -d "$work/ct$slices" ] || build/bench/bench_make_ct_series "$work/ct$slices" --slices "$slices"
build/bench/bench_dicom_seg_write "$work/ct$slices" --out "$work/out" "$@"
