#!/usr/bin/env bash
# Runs the share-store test suite on a real network mount: sshfs over loopback to a private sshd, started here.
#
# Usage: sshfs_share_suite.sh TEST_BINARY [catch args...]      e.g.  sshfs_share_suite.sh build/tests/test_io "[share-suite]"
#
# The share-store tests make every scratch folder through std::filesystem::temp_directory_path(), which honours
# TMPDIR, so pointing TMPDIR at the mount point is all it takes to move them onto the network file system: no test
# needs to know about sshfs. The sshd listens on 127.0.0.1 only, on a free port, with its own host key, its own user
# key and its own configuration, all generated into a temporary folder: the system's ssh configuration, ~/.ssh and
# any running sshd or ssh-agent are neither read nor changed.
#
# Exit status: the command's own; 77 (CTest SKIP_RETURN_CODE) with "SKIPPED: <reason>" when FUSE, sshd or sshfs is
# unavailable, except under CI=true, where an environment that cannot run the suite is a failure (exit 1).
# Environment: DELINEATE_FUSE_DEVICE (default /dev/fuse; only for testing the skip path), KEEP=1 keeps the work folder.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 TEST_BINARY [catch args...]" >&2
  exit 2
fi

# skip REASON: exit 77, or a failure under CI=true.
source "$(dirname "${BASH_SOURCE[0]}")/../common/skip_or_fail.sh"

fuse_device="${DELINEATE_FUSE_DEVICE:-/dev/fuse}"
[ -c "$fuse_device" ] || skip "$fuse_device does not exist here (no FUSE, e.g. a container without the device)"
for tool in sshd sshfs ssh ssh-keygen fusermount3 mountpoint setsid; do
  # sshd lives in /usr/sbin, which a non-root PATH may lack.
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
    skip "$tool not found (Debian: bash scripts/setup.sh installs sshfs openssh-server openssh-client fuse3)"
done
sshd_bin="$(command -v sshd || echo /usr/sbin/sshd)"

work="$(mktemp -d "${TMPDIR:-/tmp}/sshfs_share_suite.XXXXXX")"
export_dir="$work/export"  # the "server" side; only sshd touches it
mnt="$work/mnt"            # the "client" side; the tests see only this
ssh_dir="$work/ssh"
mkdir -p "$export_dir" "$mnt" "$ssh_dir"
chmod 700 "$ssh_dir"

sshd_pid=""
sshfs_pid=""
cmd_pid=""
watchdog_pid=""

# Whether $mnt is mounted, from the kernel's table: mountpoint(1) stats the folder, which fails on a mount whose
# sshfs was killed (ENOTCONN), and would call that dead mount "not mounted" and leave it behind.
mounted() { awk -v m="$mnt" '$2 == m { found = 1 } END { exit !found }' /proc/self/mounts; }

unmount() {
  mounted || return 0
  fusermount3 -u "$mnt" 2>/dev/null && return 0
  # Busy (a process the kill below missed still has a file open): detach now, the kernel finishes when it lets go.
  fusermount3 -u -z "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null
  ! mounted
}

stop() {  # PID: TERM, then KILL after 5 s
  local pid="$1" i
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$?
  set +e
  trap - EXIT INT TERM HUP
  if [ -n "$cmd_pid" ] && kill -0 "$cmd_pid" 2>/dev/null; then
    # The command runs in its own process group (setsid below), so its forked writers go with it and hold no file
    # open on the mount when it is unmounted.
    kill -TERM -- "-$cmd_pid" 2>/dev/null
    sleep 0.5
    kill -KILL -- "-$cmd_pid" 2>/dev/null
    wait "$cmd_pid" 2>/dev/null
  fi
  # A test that stopped sshfs (SIGSTOP) and died before continuing it would leave the unmount waiting on it.
  [ -z "$sshfs_pid" ] || kill -CONT "$sshfs_pid" 2>/dev/null
  unmount || echo "sshfs_share_suite: could not unmount $mnt"
  stop "$sshfs_pid"  # after a lazy unmount sshfs would otherwise wait for the last user
  stop "$sshd_pid"
  [ -z "$watchdog_pid" ] || kill "$watchdog_pid" 2>/dev/null
  if mounted || [ "${KEEP:-0}" = 1 ]; then
    echo "sshfs_share_suite: kept $work"
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# SIGKILL runs no trap, and CTest 3.25 ends a test that exceeds its TIMEOUT with SIGKILL to this script only. A
# detached watchdog then does the cleanup (command group, mount, sshfs, sshd, work folder) once this shell is gone.
# It is started before anything needs cleaning, and reads the pids from files written as they become known.
watchdog() {
  local script_pid="$1" pid
  set +e
  while kill -0 "$script_pid" 2>/dev/null; do sleep 1; done
  pid="$(cat "$work/cmd.pid" 2>/dev/null)" && kill -KILL -- "-$pid" 2>/dev/null
  pid="$(cat "$work/sshfs.pid" 2>/dev/null)" && kill -CONT "$pid" 2>/dev/null
  sleep 0.2
  fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt" 2>/dev/null
  for f in sshfs.pid sshd.pid; do
    pid="$(cat "$work/$f" 2>/dev/null)" && kill "$pid" 2>/dev/null
  done
  sleep 0.5
  awk -v m="$mnt" '$2 == m { found = 1 } END { exit !found }' /proc/self/mounts || rm -rf "$work"
}
watchdog "$$" </dev/null >/dev/null 2>&1 &
watchdog_pid=$!

# --- private sshd ------------------------------------------------------------------------------------------------
user="$(id -un)"
ssh-keygen -q -t ed25519 -N '' -C sshfs-share-suite-host -f "$ssh_dir/host_key"
ssh-keygen -q -t ed25519 -N '' -C sshfs-share-suite-user -f "$ssh_dir/user_key"
cp "$ssh_dir/user_key.pub" "$ssh_dir/authorized_keys"
# StrictModes no: the work folder lies under a world-writable /tmp, which sshd would otherwise refuse.
# UsePAM no: PAM's session modules need a system login setup this test does not want to touch.
# internal-sftp: no dependency on where the distribution installs sftp-server; it offers the same extensions
# (posix-rename, hardlink, fsync, statvfs).
cat >"$ssh_dir/sshd_config" <<EOF
ListenAddress 127.0.0.1
HostKey $ssh_dir/host_key
PidFile none
AuthorizedKeysFile $ssh_dir/authorized_keys
AuthenticationMethods publickey
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AllowUsers $user
UsePAM no
StrictModes no
X11Forwarding no
AllowTcpForwarding no
Subsystem sftp internal-sftp
LogLevel ERROR
EOF
# As root, sshd insists on its privilege-separation folder, which Debian's service unit creates at boot and a
# container without systemd never does.
if [ "$(id -u)" -eq 0 ] && [ ! -d /run/sshd ]; then
  mkdir -p /run/sshd && chmod 755 /run/sshd
fi

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A random high port that nothing answers on; bash's /dev/tcp needs no extra package. Another process may take the
# port between the probe and sshd's bind, so a failed start tries a new port.
port=""
for attempt in $(seq 1 10); do
  candidate=$((20000 + RANDOM % 40000))
  listening "$candidate" && continue
  # Its output goes to a file, not to our stdout: CTest waits for every holder of the test's output pipe to close.
  "$sshd_bin" -D -e -f "$ssh_dir/sshd_config" -p "$candidate" </dev/null >>"$ssh_dir/sshd.log" 2>&1 &
  sshd_pid=$!
  echo "$sshd_pid" >"$work/sshd.pid"
  for _ in $(seq 1 50); do
    kill -0 "$sshd_pid" 2>/dev/null || break
    listening "$candidate" && { port="$candidate"; break; }
    sleep 0.1
  done
  [ -n "$port" ] && break
  stop "$sshd_pid"
  sshd_pid=""
done
[ -n "$port" ] || skip "the private sshd did not start: $(tail -3 "$ssh_dir/sshd.log" | tr '\n' ' ')"

# -F /dev/null: neither /etc/ssh/ssh_config nor ~/.ssh/config applies (and ssh then does not create ~/.ssh);
# no agent, no default identities, no known_hosts written.
ssh_opts=(-F /dev/null -o "IdentityFile=$ssh_dir/user_key" -o IdentitiesOnly=yes -o IdentityAgent=none
          -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR)
if ! login_error="$(ssh "${ssh_opts[@]}" -p "$port" "$user@127.0.0.1" true 2>&1)"; then
  skip "cannot log in to the private sshd on 127.0.0.1:$port: $login_error $(tail -3 "$ssh_dir/sshd.log" | tr '\n' ' ')"
fi

# --- sshfs mount -------------------------------------------------------------------------------------------------
# Options, and why:
# - dir_cache=no: sshfs keeps its own cache of names and attributes (20 s by default) on top of the kernel's; the
#   suite's tests check what another process (a forked writer, a racing breaker) has just linked, renamed or
#   deleted, and that extra layer is the one most likely to answer with a stale name or size. Off, every lookup and
#   stat reaches the server; the kernel's own 1 s entry/attribute caches remain, but all processes here share one
#   mount and so one kernel cache, which the mount's own operations keep current.
# - No kernel_cache / auto_cache (the defaults): file data is re-read on every open, as a second client would.
# - No workaround=rename: the server offers posix-rename@openssh.com, so rename onto an existing name is the atomic
#   replace the store relies on; the workaround would emulate it as move-away-then-rename, which is not atomic.
# - link(2) stays enabled (no disable_hardlink): sshfs maps it to hardlink@openssh.com, and the store publishes
#   with link() as an exclusive create; the probe below reports whether it works.
# - No reconnect / ServerAliveInterval: a loopback connection does not drop, and if it did, the run should fail
#   rather than carry on over a silently re-established session.
# -f keeps sshfs in the foreground (in the background of this shell), so its pid is known for the cleanup.
sshfs -f "$user@127.0.0.1:$export_dir" "$mnt" -p "$port" -o dir_cache=no -F /dev/null \
  -o "IdentityFile=$ssh_dir/user_key,IdentitiesOnly=yes,IdentityAgent=none" \
  -o "StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,LogLevel=ERROR" \
  </dev/null >"$work/sshfs.log" 2>&1 &
sshfs_pid=$!
echo "$sshfs_pid" >"$work/sshfs.pid"
for _ in $(seq 1 100); do
  mountpoint -q "$mnt" && break
  kill -0 "$sshfs_pid" 2>/dev/null || break
  sleep 0.1
done
mountpoint -q "$mnt" || skip "sshfs could not mount $export_dir at $mnt: $(tr '\n' ' ' <"$work/sshfs.log")"

# What the mount offers the store: link(2) (exclusive publish), else the store's rename fallback.
probe="$mnt/.probe"
mkdir "$probe"
echo probe >"$probe/a"
if link_error="$(ln "$probe/a" "$probe/b" 2>&1)"; then
  link_state="link(2) works (hardlink@openssh.com)"
else
  link_state="link(2) fails ($link_error): the store uses its rename fallback"
fi
echo other >"$probe/c"
if mv -f "$probe/c" "$probe/a" 2>/dev/null && [ "$(cat "$probe/a")" = other ]; then
  rename_state="rename onto an existing file replaces it"
else
  rename_state="rename onto an existing file FAILS"
fi
rm -rf "$probe"
echo "sshfs_share_suite: $(sshfs --version 2>&1 | grep -i '^sshfs version'), private sshd on 127.0.0.1:$port;" \
     "$export_dir mounted at $mnt (dir_cache=no); $link_state; $rename_state"

# --- the command -------------------------------------------------------------------------------------------------
# Run in the background and wait: bash defers a trap until a foreground command ends, so a TERM to this script
# (CTest, kill) would otherwise wait for the whole suite. setsid gives the command its own process group for the
# cleanup (it also means the command's stdin is /dev/null and it ignores SIGINT, as every background command of a
# non-interactive shell does: a Ctrl-C reaches it through the INT trap, as a TERM to its group).
echo "sshfs_share_suite: TMPDIR=$mnt $*"
start=$(date +%s.%N)
# DELINEATE_SSHFS_PID: the window's hung-share test stops and continues sshfs itself (tests/gui/test_save_hang.cpp);
# DELINEATE_LOCAL_TMPDIR: where a test keeps its own state (settings, journal) off the mount; DELINEATE_SSHFS_EXPORT:
# the server side of the mount, where a test looks at what reached the server after it killed sshfs.
DELINEATE_LOCAL_TMPDIR="${TMPDIR:-/tmp}" TMPDIR="$mnt" DELINEATE_SSHFS_PID="$sshfs_pid" DELINEATE_SSHFS_EXPORT="$export_dir" \
  setsid "$@" &
cmd_pid=$!
echo "$cmd_pid" >"$work/cmd.pid"
set +e
wait "$cmd_pid"
status=$?
set -e
cmd_pid=""
echo "sshfs_share_suite: exit status $status after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
exit "$status"
