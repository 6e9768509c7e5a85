#!/usr/bin/env bash
# Encryption at rest (issue 47, item 2): a 512-slice CT series (made from ../shared's CRLM CT by bench_make_ct_series)
# loaded from the local cache and a label map saved to the autosave journal, sealed (AES-256-GCM) beside plain
# ($DELINEATE_AT_REST=plain), warm and (as root) from a cold page cache, and a 400 MB checkpoint read by the engines'
# reader, whole processes alternating. Goal: under 10 % overhead.
# Environment: SLICES (512), REPEATS (5), DELINEATE_BENCH_DIR (/tmp/delineate-bench-at-rest).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
work="${DELINEATE_BENCH_DIR:-/tmp/delineate-bench-at-rest}"

# What the user sees (run by this script under a private Xvfb, below): the window started on each cached series
# (its folder opened: the DICOM index, the pixels, the views rendered) until its screenshot, a whole process each,
# the two caches alternating.
if [ "${1:-}" = --window-loop ]; then
  window_run() {  # MODE -> seconds
    local start end
    start=$(date +%s.%N)
    env DELINEATE_AT_REST="$1" DELINEATE_AT_REST_KEY_FILE="$work/run/key/at-rest.key" XDG_CONFIG_HOME="$work/xdg-config" \
      XDG_CACHE_HOME="$work/xdg-cache-window" build/app/gui/delineate --screenshot "$work/window-$1.png" --size 1200x800 \
      "$work/run/cache-$1" >"$work/window-$1.log" 2>&1 || { echo "the window failed: see $work/window-$1.log" >&2; exit 1; }
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f\n", b - a }'
  }
  median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
  plain=() sealed=()
  for r in $(seq "${REPEATS:-5}"); do
    if (( r % 2 )); then order="plain sealed"; else order="sealed plain"; fi
    for mode in $order; do
      t=$(window_run "$mode")
      if [ "$mode" = plain ]; then plain+=("$t"); else sealed+=("$t"); fi
    done
  done
  p=$(printf '%s\n' "${plain[@]}" | median)
  s=$(printf '%s\n' "${sealed[@]}" | median)
  printf '%-44s %9.3fs %9.3fs %8.1f%%\n' "the window opens the cached series (whole)" "$p" "$s" \
    "$(awk -v p="$p" -v s="$s" 'BEGIN { print 100 * (s - p) / p }')"
  exit 0
fi
bash scripts/build.sh --target bench_at_rest bench_make_ct_series >/dev/null
rm -rf "$work" && mkdir -p "$work"
build/bench/bench_make_ct_series "$work/series" --slices "${SLICES:-512}" >/dev/null
# As root, each load is also measured from a cold page cache (the kernel's cache dropped first).
cold=()
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then cold=(--cold); fi
build/bench/bench_at_rest --series "$work/series" --out "$work/run" --repeats "${REPEATS:-5}" "${cold[@]}"

bash scripts/build.sh --target delineate >/dev/null
REPEATS="${REPEATS:-5}" xvfb-run -a -s "-screen 0 1600x1000x24" bash "$root/scripts/bench_at_rest.sh" --window-loop
echo
echo "OpenSSL's own AES-256-GCM on one core (16 KiB blocks):"
openssl speed -seconds 1 -evp aes-256-gcm 2>/dev/null | tail -1
