# shellcheck shell=bash
# Shared by the benchmarks that read through a network share (scripts/bench_dicom.sh, scripts/bench_catalogue.sh):
# a private sshd on 127.0.0.1 (its own host and user keys; the system's ssh configuration is untouched),
# scripts/latency_proxy.py in front of it (a TCP proxy that delays every chunk by a given number of ms each way; see
# bench_dicom.sh for why not tc netem), and sshfs mounts through either. Source it, then:
#   sshfs_lib_init WORKDIR NAME   state under WORKDIR/ssh; NAME prefixes messages ("bench_dicom")
#   start_sshd                    sets sshd_port (prints "SKIPPED: ..." and returns 1 when FUSE, a tool or sshd fails)
#   check_latency_proxy DELAY     a separate proxy instance against an echo server: prints the RTT it adds
#   start_latency_proxy DELAY     sets proxy_port (one proxy at a time; stop_proxy ends it)
#   sshfs_mount PORT REMOTE_DIR MOUNTPOINT [OPTIONS]   OPTIONS: extra sshfs -o text ("dir_cache=no")
#   unmount MOUNTPOINT; sshfs_cleanup (every mount, the proxy, sshd; returns 1 when a mount would not go away)
#   install_missing NAME PACKAGE...  apt-installs those of the packages that are missing (before sshfs_lib_init)
# Needs bash, the caller's `set -u` is fine. The caller installs its trap and calls sshfs_cleanup from it.

sshfs_lib_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ssh_dir=""
sshfs_lib_name="bench"
sshfs_lib_work=""
sshd_pid=""
sshd_port=""
proxy_pid=""
proxy_port=""
mounts=()  # sshfs mount points to unmount on exit

install_missing() {  # NAME PACKAGE...
  local name="$1" p sudo=""
  shift
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "$name: installing ${missing[*]}"
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

sshfs_lib_init() {  # WORKDIR NAME
  sshfs_lib_work="$1"
  sshfs_lib_name="$2"
  ssh_dir="$1/ssh"
}

free_port() {
  local candidate
  for _ in $(seq 1 50); do
    candidate=$((20000 + RANDOM % 40000))
    if ! ss -Htln "sport = :$candidate" | grep -q .; then echo "$candidate"; return 0; fi
  done
  return 1
}

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

sshfs_cleanup() {
  local m failed=0
  for m in "${mounts[@]}"; do
    mountpoint -q "$m" || continue
    unmount "$m" || { echo "$sshfs_lib_name: could not unmount $m"; failed=1; }
  done
  stop_proxy
  if [ -n "$sshd_pid" ]; then
    kill "$sshd_pid" 2>/dev/null
    wait "$sshd_pid" 2>/dev/null
    sshd_pid=""
  fi
  return "$failed"
}

sshfs_mount() {  # PORT REMOTE_DIR MOUNTPOINT [OPTIONS]
  local extra="${4:-}"
  sshfs -o "IdentityFile=$ssh_dir/user_key,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port=$1" \
        -o "BatchMode=yes,LogLevel=ERROR${extra:+,$extra}" "root@127.0.0.1:$2" "$3" || return 1
  mounts+=("$3")
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
}

check_latency_proxy() {  # DELAY_MS
  local rtt
  rtt="$(awk -v d="$1" 'BEGIN { printf "%g", 2 * d }')"
  if ! command -v python3 >/dev/null; then echo "SKIPPED: python3 not found (the latency proxy needs it)"; return 1; fi
  printf '\n### %s\n' "latency proxy check ($1 ms each way, RTT $rtt ms; a separate instance with a small echo server)"
  python3 "$sshfs_lib_dir/latency_proxy_test.py" --delay-ms "$1" --quick 2>/dev/null ||
    echo "WARNING: the proxy check failed (figures above); the RTT below may be off"
}

start_latency_proxy() {  # DELAY_MS: a proxy in front of the sshd; sets proxy_port
  if ! command -v python3 >/dev/null; then echo "SKIPPED: python3 not found (the latency proxy needs it)"; return 1; fi
  stop_proxy
  proxy_port="$(free_port)" || { echo "SKIPPED: no free port found for the proxy"; return 1; }
  python3 "$sshfs_lib_dir/latency_proxy.py" --listen "$proxy_port" --connect "$sshd_port" --delay-ms "$1" \
    >"$sshfs_lib_work/proxy.out" 2>"$sshfs_lib_work/proxy.err" &
  proxy_pid=$!
  for _ in $(seq 1 100); do
    grep -qx ready "$sshfs_lib_work/proxy.out" 2>/dev/null && break
    kill -0 "$proxy_pid" 2>/dev/null || break
    sleep 0.1
  done
  if ! grep -qx ready "$sshfs_lib_work/proxy.out" 2>/dev/null; then
    echo "SKIPPED: the latency proxy did not start:"; cat "$sshfs_lib_work/proxy.err"; stop_proxy; return 1
  fi
  cat "$sshfs_lib_work/proxy.err"
}
