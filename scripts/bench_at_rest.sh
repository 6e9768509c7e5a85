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
bash scripts/build.sh --target bench_at_rest bench_make_ct_series >/dev/null
rm -rf "$work" && mkdir -p "$work"
build/bench/bench_make_ct_series "$work/series" --slices "${SLICES:-512}" >/dev/null
# As root, each load is also measured from a cold page cache (the kernel's cache dropped first).
cold=()
if [ "$(id -u)" = 0 ] && [ -w /proc/sys/vm/drop_caches ]; then cold=(--cold); fi
build/bench/bench_at_rest --series "$work/series" --out "$work/run" --repeats "${REPEATS:-5}" "${cold[@]}"
echo
echo "OpenSSL's own AES-256-GCM on one core (16 KiB blocks):"
openssl speed -seconds 1 -evp aes-256-gcm 2>/dev/null | tail -1
