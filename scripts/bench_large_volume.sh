#!/usr/bin/env bash
# A micro-CT scale study in the window (bench/large_volume.cpp, issue 27): synthetic uint16 volumes of 512^3 and
# 1024^3 (SIZES to change), each written by its own process, then opened in the window under a private Xvfb: time to
# first image, RSS, scroll, brush, undo, whole-map import and save to a share. The 512^3 run is the window's
# latencies on a size it already handled, read beside the 1024^3 one. Needs about 3 x 2 GB of free disk in $WORK.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/build.sh --target bench_large_volume
work="${WORK:-/tmp/delineate-bench-large}"
mkdir -p "$work"
for n in ${SIZES:-512 1024}; do
  volume="$work/mouse$n.nii"
  [ -s "$volume" ] || build/bench/bench_large_volume --make "$volume" --size "$n"
  echo "== $n^3"
  xvfb-run -a -s "-screen 0 1600x1000x24" build/bench/bench_large_volume --open "$volume" --share "$work/share$n" "$@"
  rm -rf "$work/share$n"
done
