#!/usr/bin/env bash
# Runs a test binary with a real desktop keyring of its own: a private D-Bus session (dbus-run-session) with a private
# GNOME Keyring (the Secret Service QtKeychain talks to through libsecret), unlocked with a throw-away password. The
# keyring's files live in a fresh temporary folder (XDG_DATA_HOME, XDG_RUNTIME_DIR): the user's own keyring, session
# bus and settings are neither read nor changed.
#
# Usage: keyring_session.sh TEST_BINARY [catch args...]     e.g.  keyring_session.sh build/tests/test_gui "[.keyring]"
#
# Exit status: the command's own; 77 (CTest SKIP_RETURN_CODE) with "SKIPPED: <reason>" when dbus-run-session or
# gnome-keyring-daemon (or dbus-send) is missing, except under CI=true, where that is a failure (exit 1). KEEP=1 keeps the folder.
set -euo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 TEST_BINARY [catch args...]" >&2
  exit 2
fi

# skip REASON: exit 77, or a failure under CI=true.
source "$(dirname "${BASH_SOURCE[0]}")/../common/skip_or_fail.sh"

for tool in dbus-run-session gnome-keyring-daemon dbus-send; do
  command -v "$tool" >/dev/null ||
    skip "$tool not found (Debian: bash scripts/setup.sh installs dbus-daemon and gnome-keyring)"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/keyring_session.XXXXXX")"
chmod 700 "$work"
mkdir -p "$work/data" "$work/runtime"
chmod 700 "$work/data" "$work/runtime"

cleanup() {
  local status=$?
  if [ "${KEEP:-0}" = 1 ]; then
    echo "keyring_session: kept $work"
  else
    rm -rf "$work"
  fi
  exit "$status"
}
trap cleanup EXIT

# Inside the private bus: start the keyring in the foreground of a background job, so that its pid is known and it
# is stopped at the end (daemonized, as `eval "$(gnome-keyring-daemon --unlock ...)"` starts it, it outlives the bus
# and prints no pid for the secrets component alone). It reads its unlock password on stdin, creates the login
# keyring in XDG_DATA_HOME and takes the Secret Service's bus name: wait for that name before running the command.
# The inner script gets the command as arguments, not spliced into its text.
inner='
set -u
printf %s testpw | gnome-keyring-daemon --foreground --unlock --components=secrets >"$XDG_RUNTIME_DIR/keyring.log" 2>&1 &
keyring_pid=$!
owned() {
  dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner \
    string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"
}
for _ in $(seq 1 100); do
  owned && break
  kill -0 "$keyring_pid" 2>/dev/null || break
  sleep 0.1
done
if ! owned; then
  echo "keyring_session: gnome-keyring-daemon did not take org.freedesktop.secrets: $(tr "\n" " " <"$XDG_RUNTIME_DIR/keyring.log")"
  kill "$keyring_pid" 2>/dev/null
  exit 1
fi
echo "keyring_session: private bus $DBUS_SESSION_BUS_ADDRESS, gnome-keyring-daemon pid $keyring_pid, data in $XDG_DATA_HOME"
"$@" &
command_pid=$!
trap "kill -TERM $command_pid 2>/dev/null" TERM INT HUP
wait "$command_pid"
status=$?
kill "$keyring_pid" 2>/dev/null
for _ in $(seq 1 50); do kill -0 "$keyring_pid" 2>/dev/null || break; sleep 0.1; done
kill -KILL "$keyring_pid" 2>/dev/null
wait "$keyring_pid" 2>/dev/null
exit "$status"
'
set +e
XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work/runtime" dbus-run-session -- bash -c "$inner" keyring_session "$@"
status=$?
set -e
echo "keyring_session: exit status $status"
exit "$status"
