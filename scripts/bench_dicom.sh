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
PEER_PACKAGES=(libinsighttoolkit5-dev dcm2niix sshfs openssh-server openssh-client fuse3 iproute2 python3)
missing=()
for p in "${PEER_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "bench_dicom: installing ${missing[*]}"
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# --- work folder and cleanup ----------------------------------------------------------------------------------------
work="$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/bench_dicom.XXXXXX")"
series="$work/series"
sshd_pid=""
proxy_pid=""
mounts=()  # sshfs mount points to unmount on exit
unmount() {
  fusermount3 -u "$1" 2>/dev/null || umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null
  ! mountpoint -q "$1"
}
stop_proxy() {
  [ -n "$proxy_pid" ] || return 0
  kill "$proxy_pid" 2>/dev/null
  wait "$proxy_pid" 2>/dev/null
  proxy_pid=""
}
cleanup() {
  set +e
  local m
  for m in "${mounts[@]}"; do
    mountpoint -q "$m" || continue
    unmount "$m" || { echo "bench_dicom: could not unmount $m; leaving $work in place"; KEEP=1; }
  done
  stop_proxy
  if [ -n "$sshd_pid" ]; then
    kill "$sshd_pid" 2>/dev/null
    wait "$sshd_pid" 2>/dev/null
  fi
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
ssh_dir="$work/ssh"
sshd_port=""

free_port() {
  local candidate
  for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 40000))
    if ! ss -Htln "sport = :$candidate" | grep -q .; then echo "$candidate"; return 0; fi
  done
  return 1
}

# Every mount gets the same options, so loopback and proxied figures compare. Client-side caches, and what makes a
# run cold: the kernel page cache for sshfs files is dropped by bench_dicom_load before every run and, without
# -o kernel_cache (not given), is also invalidated on every open, so file data is always fetched again; the kernel's
# FUSE dentry/attribute caches (1 s) go with drop_caches too. What drop_caches cannot reach is sshfs's own directory
# cache (names and attributes, 20 s by default, i.e. across the round-robin runs of one bench_dicom_load), which
# would answer the lookups/stats of every run after the first without a round trip; dir_cache=no turns it off
# (SSHFS_DIR_CACHE=yes puts it back). Then each run pays every lookup, open, read and close over the wire, as a
# first open of the series on a client would; the server side is cold too (same page cache, dropped).
sshfs_mount() {  # PORT MOUNTPOINT
  sshfs -o "IdentityFile=$ssh_dir/user_key,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port=$1" \
        -o "BatchMode=yes,LogLevel=ERROR,dir_cache=$SSHFS_DIR_CACHE" "root@127.0.0.1:$series" "$2" || return 1
  mounts+=("$2")
}

start_sshd() {
  if [ ! -c /dev/fuse ]; then
    echo "SKIPPED: /dev/fuse does not exist here (FUSE unavailable, e.g. a container without the device); no sshfs figures"
    return 1
  fi
  for tool in /usr/sbin/sshd sshfs ssh ssh-keygen fusermount3 ss; do
    command -v "$tool" >/dev/null || { echo "SKIPPED: $tool not found"; return 1; }
  done
  mkdir -p "$ssh_dir"
  chmod 700 "$ssh_dir"
  ssh-keygen -q -t ed25519 -N '' -C bench-host -f "$ssh_dir/host_key"
  ssh-keygen -q -t ed25519 -N '' -C bench-user -f "$ssh_dir/user_key"
  cp "$ssh_dir/user_key.pub" "$ssh_dir/authorized_keys"
  sshd_port="$(free_port)" || { echo "SKIPPED: no free port found"; return 1; }
  cat >"$ssh_dir/sshd_config" <<EOF
ListenAddress 127.0.0.1
HostKey $ssh_dir/host_key
PidFile $ssh_dir/sshd.pid
AuthorizedKeysFile $ssh_dir/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
  # sshd insists on its privilege-separation folder (Debian's service creates it at boot).
  [ -d /run/sshd ] || { mkdir -p /run/sshd && chmod 755 /run/sshd; }
  /usr/sbin/sshd -f "$ssh_dir/sshd_config" -D -e -p "$sshd_port" 2>"$ssh_dir/sshd.log" &
  sshd_pid=$!
  for _ in $(seq 1 50); do ss -Htln "sport = :$sshd_port" | grep -q . && break; sleep 0.1; done
  if ! ssh -o IdentityFile="$ssh_dir/user_key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
       -o BatchMode=yes -o LogLevel=ERROR -p "$sshd_port" root@127.0.0.1 true; then
    echo "SKIPPED: cannot log in to the private sshd on port $sshd_port:"; cat "$ssh_dir/sshd.log"; return 1
  fi
  echo "sshd on 127.0.0.1:$sshd_port (pid $sshd_pid, own host and user keys in $ssh_dir)"
  echo "$(sshfs --version 2>&1 | grep -i '^sshfs version'); every mount: one SSH connection, dir_cache=$SSHFS_DIR_CACHE," \
       "no kernel_cache (sshfs defaults otherwise)"
}

run_loopback() {
  local mnt="$work/mnt"
  mkdir -p "$mnt"
  sshfs_mount "$sshd_port" "$mnt" || { echo "SKIPPED: sshfs could not mount (FUSE refused?)"; return 1; }
  echo "$series mounted at $mnt; files visible through the mount: $(find "$mnt" -type f | wc -l)"
  say "sshfs over loopback (~0 latency), cold cache"
  "$bench" "$mnt" --label "sshfs loopback" --repeats "$REPEATS" || status=1
  say "sshfs over loopback (~0 latency), warm server cache"
  "$bench" "$mnt" --label "sshfs loopback, warm" --repeats "$REPEATS" --warm || status=1
  unmount "$mnt" || echo "bench_dicom: could not unmount $mnt now; the exit trap tries again"
}

run_latency() {  # one-way delay in ms
  local delay="$1" rtt mnt proxy_port
  rtt="$(awk -v d="$delay" 'BEGIN { printf "%g", 2 * d }')"
  mnt="$work/mnt-rtt${rtt}ms"
  if ! command -v python3 >/dev/null; then echo "SKIPPED: python3 not found (the latency proxy needs it)"; return 1; fi
  say "latency proxy check (${delay} ms each way, RTT ${rtt} ms; a separate instance with a small echo server)"
  python3 scripts/latency_proxy_test.py --delay-ms "$delay" --quick 2>/dev/null ||
    echo "WARNING: the proxy check failed (figures above); the RTT below may be off"
  proxy_port="$(free_port)" || { echo "SKIPPED: no free port found for the proxy"; return 1; }
  python3 scripts/latency_proxy.py --listen "$proxy_port" --connect "$sshd_port" --delay-ms "$delay" \
    >"$work/proxy.out" 2>"$work/proxy.err" &
  proxy_pid=$!
  for _ in $(seq 1 100); do
    grep -qx ready "$work/proxy.out" 2>/dev/null && break
    kill -0 "$proxy_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -qx ready "$work/proxy.out" 2>/dev/null; then
    echo "SKIPPED: the latency proxy did not start:"; cat "$work/proxy.err"; stop_proxy; return 1
  fi
  cat "$work/proxy.err"
  mkdir -p "$mnt"
  if ! sshfs_mount "$proxy_port" "$mnt"; then
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
