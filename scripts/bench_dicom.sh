#!/usr/bin/env bash
# DICOM series load benchmark (issue "Image I/O"): our indexer + loader vs ITK's GDCM series reader vs dcm2niix on a
# 512-slice 512x512 CT series built from ../shared/data/ct/tcia-crlm-ct-series, read from local disk, from an sshfs
# mount of the same folder over loopback (a private sshd on 127.0.0.1; the system's ssh configuration is untouched),
# and from a second sshfs mount that reaches the same sshd through scripts/latency_proxy.py, a TCP proxy that delays
# every chunk by LATENCY_MS each way. Loopback has ~0 latency (tens of microseconds), so only the proxied mount shows
# what overlapping round trips buys on a real network share.
#
# Why a proxy and not tc netem: delaying only the sshd's port on lo needs the netem qdisc plus prio (and a u32 filter)
# so that the rest of the machine's loopback traffic is not delayed too; the kernel this benchmark was written on
# (6.18, /proc/config.gz: CONFIG_NET_SCH_NETEM and CONFIG_NET_SCH_PRIO not set, no loadable modules) has neither, so
# `tc qdisc add` fails. The proxy needs nothing from the kernel and delays only this benchmark's connection.
#
# Usage: bash scripts/bench_dicom.sh
# Environment: SLICES (512), REPEATS (3), SPACING (1.25), BENCH_BUILD_DIR (build-bench),
#              BENCH_TMP (parent of the work folder, default ${TMPDIR:-/tmp}; should be a local disk, not tmpfs),
#              LATENCY_MS ("1": one-way delay of the latency proxy in ms, RTT = 2 x this; 1 ms = 2 ms RTT is a LAN
#                file server, 5 = 10 ms RTT a WAN-ish share; a list such as "1 5" runs each; 0 or "" skips the
#                proxied runs), ONLY_LATENCY=1 (skip the local-disk and plain loopback sshfs runs),
#              SSHFS_DIR_CACHE (no: sshfs's own attribute/name cache off on every mount, so that cold runs are cold
#                on the client too; yes: sshfs's default), KEEP=1 keeps the work folder.
# Prints everything; exits non-zero when a tool failed or our volume differs from ITK's.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

SLICES="${SLICES:-512}"
REPEATS="${REPEATS:-3}"
SPACING="${SPACING:-1.25}"
BUILD_DIR="${BENCH_BUILD_DIR:-build-bench}"
LATENCY_MS="${LATENCY_MS-1}"
ONLY_LATENCY="${ONLY_LATENCY:-0}"
SSHFS_DIR_CACHE="${SSHFS_DIR_CACHE:-no}"
status=0

say() { printf '\n### %s\n' "$*"; }

# --- packages -----------------------------------------------------------------------------------------------------
bash scripts/setup.sh
# shellcheck source=scripts/sshfs_latency_lib.sh
source scripts/sshfs_latency_lib.sh
install_missing bench_dicom libinsighttoolkit5-dev dcm2niix sshfs openssh-server openssh-client fuse3 iproute2 python3

# --- work folder and cleanup ----------------------------------------------------------------------------------------
work="$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/bench_dicom.XXXXXX")"
series="$work/series"
sshfs_lib_init "$work" bench_dicom
cleanup() {
  set +e
  sshfs_cleanup || { echo "bench_dicom: leaving $work in place"; KEEP=1; }
  if [ "${KEEP:-0}" = 1 ]; then echo "bench_dicom: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- build ----------------------------------------------------------------------------------------------------------
say "build ($BUILD_DIR, Release, DELINEATE_PEER_BENCH=ON)"
# ITK's CMake config warns about every gdcm tool binary that Debian ships separately; keep that out of the output.
if ! cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDELINEATE_PEER_BENCH=ON >"$work/configure.log" 2>&1; then
  tail -40 "$work/configure.log"
  exit 1
fi
cmake --build "$BUILD_DIR" --target bench_make_ct_series bench_dicom_load
make_series="$BUILD_DIR/bench/bench_make_ct_series"
bench="$BUILD_DIR/bench/bench_dicom_load"

# --- environment ----------------------------------------------------------------------------------------------------
say "environment"
echo "cpu: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB total, " $7 " GiB available"}')"
echo "kernel: $(uname -r); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in libinsighttoolkit5-dev dcm2niix sshfs openssh-server fuse3 libdcmtk-dev; do
  echo "$p $(dpkg-query -W -f='${Version}' "$p" 2>/dev/null)"
done
echo "work folder: $work ($(stat -f -c %T "$work") file system)"
[ "$(stat -f -c %T "$work")" = tmpfs ] && echo "WARNING: the work folder is on tmpfs, so 'local disk' means RAM; set BENCH_TMP"

# --- series ---------------------------------------------------------------------------------------------------------
say "series"
"$make_series" "$series" --slices "$SLICES" --spacing "$SPACING"

# --- local disk -----------------------------------------------------------------------------------------------------
fstype="$(stat -f -c %T "$series")"
if [ "$ONLY_LATENCY" = 1 ]; then
  say "local disk: skipped (ONLY_LATENCY=1)"
else
  say "local disk, cold cache"
  "$bench" "$series" --label "local disk ($fstype)" --repeats "$REPEATS" || status=1
  say "local disk, warm cache"
  "$bench" "$series" --label "local disk ($fstype), warm" --repeats "$REPEATS" --warm || status=1
fi

# --- sshfs over loopback, then through the latency proxy ---------------------------------------------------------
# Every mount gets the same options, so loopback and proxied figures compare. Client-side caches, and what makes a
# run cold: the kernel page cache for sshfs files is dropped by bench_dicom_load before every run and, without
# -o kernel_cache (not given), is also invalidated on every open, so file data is always fetched again; the kernel's
# FUSE dentry/attribute caches (1 s) go with drop_caches too. What drop_caches cannot reach is sshfs's own directory
# cache (names and attributes, 20 s by default, i.e. across the round-robin runs of one bench_dicom_load), which
# would answer the lookups/stats of every run after the first without a round trip; dir_cache=no turns it off
# (SSHFS_DIR_CACHE=yes puts it back). Then each run pays every lookup, open, read and close over the wire, as a
# first open of the series on a client would; the server side is cold too (same page cache, dropped).
mount_series() {  # PORT MOUNTPOINT
  sshfs_mount "$1" "$series" "$2" "dir_cache=$SSHFS_DIR_CACHE"
}

print_sshfs_options() {
  echo "$(sshfs --version 2>&1 | grep -i '^sshfs version'); every mount: one SSH connection, dir_cache=$SSHFS_DIR_CACHE," \
       "no kernel_cache (sshfs defaults otherwise)"
}

run_loopback() {
  local mnt="$work/mnt"
  mkdir -p "$mnt"
  mount_series "$sshd_port" "$mnt" || { echo "SKIPPED: sshfs could not mount (FUSE refused?)"; return 1; }
  echo "$series mounted at $mnt; files visible through the mount: $(find "$mnt" -type f | wc -l)"
  say "sshfs over loopback (~0 latency), cold cache"
  "$bench" "$mnt" --label "sshfs loopback" --repeats "$REPEATS" || status=1
  say "sshfs over loopback (~0 latency), warm server cache"
  "$bench" "$mnt" --label "sshfs loopback, warm" --repeats "$REPEATS" --warm || status=1
  unmount "$mnt" || echo "bench_dicom: could not unmount $mnt now; the exit trap tries again"
}

run_latency() {  # one-way delay in ms
  local delay="$1" rtt mnt
  rtt="$(awk -v d="$delay" 'BEGIN { printf "%g", 2 * d }')"
  mnt="$work/mnt-rtt${rtt}ms"
  check_latency_proxy "$delay" || return 1
  start_latency_proxy "$delay" || return 1
  mkdir -p "$mnt"
  if ! mount_series "$proxy_port" "$mnt"; then
    echo "SKIPPED: sshfs could not mount through the proxy"; stop_proxy; return 1
  fi
  local t0 t1
  t0=$(date +%s.%N); ls "$mnt" >/dev/null; t1=$(date +%s.%N)
  echo "$series mounted at $mnt through 127.0.0.1:$proxy_port; files visible: $(find "$mnt" -type f | wc -l);" \
       "one readdir took $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }') ms"
  say "sshfs over loopback through a ${rtt} ms RTT latency proxy, cold cache"
  "$bench" "$mnt" --label "sshfs loopback + ${rtt} ms RTT proxy" --repeats "$REPEATS" || status=1
  unmount "$mnt" || echo "bench_dicom: could not unmount $mnt now; the exit trap tries again"
  stop_proxy
}

say "sshfs mount of the same folder over loopback"
if start_sshd; then
  print_sshfs_options
  if [ "$ONLY_LATENCY" = 1 ]; then
    echo "plain loopback runs skipped (ONLY_LATENCY=1)"
  else
    run_loopback || true
  fi
  for delay in ${LATENCY_MS//,/ }; do
    [ "$delay" = 0 ] && continue
    run_latency "$delay" || true
  done
fi

say "done (status $status)"
exit "$status"
