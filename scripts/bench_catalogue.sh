#!/usr/bin/env bash
# Study-catalogue benchmark (issue 24, item 3): a synthetic share of STUDIES studies (bench_catalogue generate, on
# local disk) read by a client through sshfs behind scripts/latency_proxy.py (LATENCY_MS each way: 1 ms = the 2 ms RTT
# the issue's targets are stated for), with the same tree on local disk as the server side where the "imported
# elsewhere" study is written. One run prints, beside each other:
#   0. the first listing of a new client on local disk (the CPU and SQLite part of the figures below).
#   1. sshfs defaults: the first listing of a new client (catalogue segments only, no snapshot), warm refreshes, a
#      client restart, the browser's searches, visibility of a study imported on the server, and the peer: a plain
#      walk of studies/ over the same mount (1 and 8 threads; stopped after WALK_SECONDS, the rest extrapolated).
#   2. each option set of SSHFS_VARIANTS on a fresh mount: first listing and visibility again. sshfs caches
#      directory listings and attributes itself (dir_cache, 20 s by default: `sshfs -h`), and a reader sees a new
#      segment only when its day folder's listing is fetched again, so the defaults alone would hide the effect.
#   3. after a client compacts the catalogue into one snapshot (bench_catalogue compact, on the server side): the
#      first listing of a new client again.
#   4. then SAVES label-set saves, one segment each as the window writes them (bench_catalogue saves; 499 is just
#      under kCompactAfter = 500, the most a client reads after the newest snapshot): the first listing once more.
# The server's page cache is dropped before each mount when /proc/sys/vm/drop_caches is writable (said either way).
#
# Usage: bash scripts/bench_catalogue.sh
# Environment: STUDIES (100000), SEGMENT_RECORDS (500), DAYS (1: every segment in today's folder, as one import run
#              writes them; N spreads them over N day folders), LATENCY_MS (1), WALK_SECONDS (120),
#              WALK_THREADS ("1,8"; "" skips the walk), REPEATS (20), VISIBILITY_RUNS (3),
#              SSHFS_VARIANTS ("dcache_timeout=2;dir_cache=no": option sets separated by ';', "" for none),
#              SNAPSHOT (1: parts 3 and 4; 0 skips them), SAVES (499; 0 skips part 4), BUILD_DIR (build-bench),
#              BENCH_TMP (/var/tmp: a disk, not tmpfs), KEEP=1 keeps the work folder (1.6 GB for 100,000 studies).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

STUDIES="${STUDIES:-100000}"
SEGMENT_RECORDS="${SEGMENT_RECORDS:-500}"
DAYS="${DAYS:-1}"
LATENCY_MS="${LATENCY_MS:-1}"
WALK_SECONDS="${WALK_SECONDS:-120}"
WALK_THREADS="${WALK_THREADS-1,8}"
REPEATS="${REPEATS:-20}"
VISIBILITY_RUNS="${VISIBILITY_RUNS:-3}"
SSHFS_VARIANTS="${SSHFS_VARIANTS-dcache_timeout=2;dir_cache=no}"
SNAPSHOT="${SNAPSHOT:-1}"
SAVES="${SAVES:-499}"
BUILD_DIR="${BUILD_DIR:-build-bench}"
BENCH_TMP="${BENCH_TMP:-/var/tmp}"
started=$(date +%s)

say() { printf '\n### %s\n' "$*"; }

bash scripts/setup.sh
# shellcheck source=scripts/sshfs_latency_lib.sh
source scripts/sshfs_latency_lib.sh
install_missing bench_catalogue sshfs openssh-server openssh-client fuse3 iproute2 python3

work="$(mktemp -d "$BENCH_TMP/bench_catalogue.XXXXXX")"
tree="$work/tree"
sshfs_lib_init "$work" bench_catalogue
cleanup() {
  set +e
  sshfs_cleanup || { echo "bench_catalogue: leaving $work in place"; KEEP=1; }
  if [ "${KEEP:-0}" = 1 ]; then echo "bench_catalogue: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "build ($BUILD_DIR)"
[ -f "$BUILD_DIR/CMakeCache.txt" ] || cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" --target bench_catalogue >"$work/build.log" 2>&1 || { tail -40 "$work/build.log"; exit 1; }
bench="$BUILD_DIR/bench/bench_catalogue"

say "environment"
echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')"
echo "kernel: $(uname -r); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$(sshfs --version 2>&1 | grep -i '^sshfs version'), $(sshfs --version 2>&1 | grep -i '^fuse library'), " \
     "openssh-server $(dpkg-query -W -f='${Version}' openssh-server 2>/dev/null), sqlite $(dpkg-query -W -f='${Version}' libsqlite3-0 2>/dev/null)"
echo "build: $(grep -m1 '^CMAKE_BUILD_TYPE' "$BUILD_DIR/CMakeCache.txt" | cut -d= -f2)"
echo "work folder: $work ($(stat -f -c %T "$work") file system)"
[ "$(stat -f -c %T "$work")" = tmpfs ] && echo "WARNING: the work folder is on tmpfs, so 'local disk' means RAM; set BENCH_TMP"

say "generate $STUDIES studies on local disk (the server side)"
"$bench" generate "$tree" --studies "$STUDIES" --segment-records "$SEGMENT_RECORDS" --days "$DAYS"
echo "tree: $(du -sh "$tree" | cut -f1) on disk"

say "0. the first listing on local disk (no network: what the CPU and SQLite take)"
"$bench" measure "$tree" --label "local disk" --parts listing --index-dir "$work/index"
# A client that checked 2,000 or more new records writes a compaction snapshot (issue 40): the one this local pass
# wrote is removed, so part 1 measures a new client that reads the segments (and checks each series on the share).
find "$tree/catalogue/snapshots" -name '*.compact.jsonl.gz' -delete 2>/dev/null || true

say "private sshd and the latency proxy (${LATENCY_MS} ms each way)"
start_sshd || exit 1
check_latency_proxy "$LATENCY_MS" || exit 1
start_latency_proxy "$LATENCY_MS" || exit 1

drop_server_cache() {
  sync
  if { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then echo "page cache dropped (the server side reads from disk)"
  else echo "page cache NOT dropped (no permission): the server side reads from memory"; fi
}

mount_n=0
measure_mount() {  # LABEL SSHFS_OPTIONS PARTS
  local mnt t0 t1
  mount_n=$((mount_n + 1))
  mnt="$work/mnt$mount_n"
  mkdir -p "$mnt"
  drop_server_cache
  sshfs_mount "$proxy_port" "$tree" "$mnt" "$2" || { echo "bench_catalogue: sshfs could not mount through the proxy"; exit 1; }
  t0=$(date +%s.%N); ls "$mnt" >/dev/null; t1=$(date +%s.%N)
  echo "sshfs -o ${2:-(defaults)}: $tree at $mnt through the proxy on 127.0.0.1:$proxy_port; one readdir" \
       "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }') ms"
  "$bench" measure "$mnt" --writer-root "$tree" --label "$1" --parts "$3" --index-dir "$work/index" \
    --repeats "$REPEATS" --visibility-runs "$VISIBILITY_RUNS" --walk-seconds "$WALK_SECONDS" --walk-threads "$WALK_THREADS"
  unmount "$mnt" || echo "bench_catalogue: could not unmount $mnt now; the exit trap tries again"
}

rtt="$(awk -v d="$LATENCY_MS" 'BEGIN { printf "%g", 2 * d }')"
say "1. sshfs defaults, ${rtt} ms RTT: catalogue segments only (no snapshot)"
measure_mount "sshfs defaults, ${rtt} ms RTT, segments only" "" listing,search,visibility,walk

IFS=';' read -r -a variants <<<"$SSHFS_VARIANTS"
for options in "${variants[@]}"; do
  [ -n "$options" ] || continue
  say "2. sshfs -o $options, ${rtt} ms RTT: first listing and visibility"
  measure_mount "sshfs -o $options, ${rtt} ms RTT" "$options" listing,visibility
done

if [ "$SNAPSHOT" = 1 ]; then
  say "3. after compaction into one snapshot (server side), sshfs defaults, ${rtt} ms RTT"
  "$bench" compact "$tree"
  measure_mount "sshfs defaults, ${rtt} ms RTT, one snapshot" "" listing
  if [ "$SAVES" -gt 0 ]; then
    say "4. the snapshot and $SAVES single-record segments after it, sshfs defaults, ${rtt} ms RTT"
    "$bench" saves "$tree" --count "$SAVES" --studies "$STUDIES"
    measure_mount "sshfs defaults, ${rtt} ms RTT, one snapshot + $SAVES saves" "" listing
  fi
fi

say "done in $(( $(date +%s) - started )) s"
