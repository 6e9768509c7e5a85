#!/usr/bin/env bash
# DICOM series to NIfTI, whole process (issue 27's "convert" figure): `delineate-cli convert` beside dcm2niix on the
# same synthetic 512-slice CT series (bench_make_ct_series from ../shared/data/ct/tcia-crlm-ct-series), to .nii and to
# .nii.gz at the same compression level, each run its own process measured by /usr/bin/time (wall seconds, peak RSS),
# page cache warm (both read the same files first), the median of REPEATS printed beside the peer's.
#
# Usage: bash scripts/bench_convert.sh
# Environment: SLICES (512), REPEATS (5), LEVEL (6: dcm2niix's gzip level; ours is libdeflate level 6), BENCH_BUILD_DIR (build-bench),
#              BENCH_TMP (parent of the work folder; default ${TMPDIR:-/tmp}), KEEP=1 keeps the work folder,
#              BASELINE_CLI (another delineate-cli, e.g. an earlier commit's build: its rows are printed beside ours).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
SLICES="${SLICES:-512}"
REPEATS="${REPEATS:-5}"
LEVEL="${LEVEL:-6}"
BUILD_DIR="${BENCH_BUILD_DIR:-build-bench}"

bash scripts/setup.sh
# shellcheck source=scripts/sshfs_latency_lib.sh
source scripts/sshfs_latency_lib.sh
install_missing bench_convert dcm2niix time pigz

work="$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/bench_convert.XXXXXX")"
cleanup() { if [ "${KEEP:-0}" = 1 ]; then echo "bench_convert: kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT

cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 || { tail -40 "$work/configure.log"; exit 1; }
cmake --build "$BUILD_DIR" --target bench_make_ct_series delineate-cli >/dev/null
cli="$BUILD_DIR/app/cli/delineate-cli"

echo "cpu: $(nproc) cores; memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}'); work folder: $work ($(stat -f -c %T "$work"))"
echo "dcm2niix $(dpkg-query -W -f='${Version}' dcm2niix); pigz $(dpkg-query -W -f='${Version}' pigz 2>/dev/null || echo none)"
"$BUILD_DIR/bench/bench_make_ct_series" "$work/series" --slices "$SLICES" >/dev/null
echo "series: $SLICES slices of 512x512, $(du -sm "$work/series" | cut -f1) MB"
cat "$work/series"/* >/dev/null  # warm: both tools read from the page cache

# One measured run: prints "seconds peakKB".
measure() {
  /usr/bin/time -f "%e %M" -o "$work/time.txt" "$@" >"$work/run.log" 2>&1 || { cat "$work/run.log"; return 1; }
  cat "$work/time.txt"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run() {  # LABEL OUTPUT (a .nii/.nii.gz file, or dcm2niix's folder) then the command; OUTPUT is cleared before each run
  local label="$1" out="$2"; shift 2
  local times=() rss=() result t m
  for _ in $(seq "$REPEATS"); do
    rm -rf "$out"
    case "$out" in *.nii|*.nii.gz) mkdir -p "$(dirname "$out")" ;; *) mkdir -p "$out" ;; esac
    result="$(measure "$@")" || { echo "bench_convert: $label failed"; exit 1; }
    read -r t m <<<"$result"
    times+=("$t"); rss+=("$m")
  done
  local written="$out"
  [ -d "$out" ] && written="$(ls "$out"/*.nii* | head -1)"
  local size
  size=$(du -m "$written" | cut -f1)
  printf '%-44s %6.2f s  %6.0f MB peak RSS  (%s MB written)\n' "$label" \
    "$(printf '%s\n' "${times[@]}" | median)" "$(printf '%s\n' "${rss[@]}" | median | awk '{ print $1 / 1024 }')" "$size"
}

echo
echo "median of $REPEATS runs, whole process"
run "delineate-cli convert -> .nii" "$work/ours.nii" "$cli" convert "$work/series" "$work/ours.nii"
if [ -n "${BASELINE_CLI:-}" ]; then
  run "baseline delineate-cli -> .nii" "$work/base.nii" "$BASELINE_CLI" convert "$work/series" "$work/base.nii"
fi
run "dcm2niix -z n -> .nii" "$work/d2n" dcm2niix -z n -b n -f out -o "$work/d2n" "$work/series"
run "delineate-cli convert -> .nii.gz (level 6)" "$work/ours.nii.gz" "$cli" convert "$work/series" "$work/ours.nii.gz"
if [ -n "${BASELINE_CLI:-}" ]; then
  run "baseline delineate-cli -> .nii.gz (level 6)" "$work/base.nii.gz" "$BASELINE_CLI" convert "$work/series" "$work/base.nii.gz"
fi
run "dcm2niix -z y (pigz, level $LEVEL) -> .nii.gz" "$work/d2nz" dcm2niix -z y -$LEVEL -b n -f out -o "$work/d2nz" "$work/series"
run "dcm2niix -z i (internal, level $LEVEL) -> .nii.gz" "$work/d2ni" dcm2niix -z i -$LEVEL -b n -f out -o "$work/d2ni" "$work/series"
