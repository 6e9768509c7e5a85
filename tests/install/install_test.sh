#!/usr/bin/env bash
# The packages as a user gets them (issue 44): builds the .debs of BUILD_DIR with CPack, makes a clean Debian 12 root
# with debootstrap, installs them there with apt (which takes their dependencies from Debian's archive), and then, in
# that root:
#   - delineate-cli info on the installed sample study; the man pages and bash completion are where man and bash look;
#   - the window under an Xvfb of this test's own: a first start with nothing open, and the sample study
#     (screenshots in OUT_DIR, to be looked at);
#   - a .nii.gz opened through the installed desktop entry with `gio open` (the MIME type and its default application
#     come from the installed shared-mime-info and desktop data), the window found by its title, a screenshot;
#   - apt purge of the packages and autoremove of what they pulled in: nothing may be left behind (every path of the
#     root compared with the list taken before the install; no file outside the user's home mentions delineate).
# It prints the package sizes and the time from `apt install` to the first window.
#
# Usage: install_test.sh BUILD_DIR OUT_DIR
# Needs root (chroot, mounts) and Debian's archive (the machine's own apt sources). Exit 77 (CTest SKIP_RETURN_CODE)
# with "SKIPPED: <reason>" when a tool is missing or this is not root, except under CI=true, where that is a failure.
# KEEP=1 keeps the root (and its mounts undone) for a look.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 BUILD_DIR OUT_DIR" >&2
  exit 2
fi
build="$(cd "$1" && pwd)"
out="$2"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../common/skip_or_fail.sh"

for tool in debootstrap cpack chroot mount Xvfb xdotool import; do
  command -v "$tool" >/dev/null || skip "$tool not found (bash scripts/setup.sh installs it)"
done
[ "$(id -u)" -eq 0 ] || skip "installing into a root of its own needs root (chroot and mounts); this is uid $(id -u)"

# The mirror the machine itself uses (deb822 sources or the one-line format), else Debian's.
mirror="$(grep -hoE '^URIs: *http[^ ]*debian/?$' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | sed 's/^URIs: *//' || true)"
[ -n "$mirror" ] || mirror="$(grep -hoE '^deb +http[^ ]*debian/? +bookworm ' /etc/apt/sources.list 2>/dev/null | head -n1 | awk '{print $2}' || true)"
[ -n "$mirror" ] || mirror="http://deb.debian.org/debian"

work="$(mktemp -d /var/tmp/delineate_install.XXXXXX)"
root="$work/root"
xvfb_pid=""
cleanup() {
  local status=$?
  # Any program still running in the root (a window gio started), then the mounts, deepest first.
  for pid in $(pgrep -x delineate 2>/dev/null || true); do
    [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$root" ] && kill -KILL "$pid" 2>/dev/null || true
  done
  for m in tmp/.X11-unix dev/pts dev proc; do
    mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m" 2>/dev/null || true
  done
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then
    echo "kept: $work"
  else
    # Only after every mount is gone: never through a bind mount into the machine's own /dev.
    if ! grep -q " $work/" /proc/mounts; then rm -rf "$work"; fi
  fi
  exit "$status"
}
trap cleanup EXIT
step() { echo "== $(date +%T) $*"; }
fail() {
  echo "FAILED: $*"
  exit 1
}

step "packages of $build"
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/packages" >"$work/cpack.log" 2>&1 || {
  tail -n 30 "$work/cpack.log"
  fail "cpack failed"
}
mkdir -p "$work/debs"
for p in delineate delineate-cli delineate-common delineate-l10n delineate-torch; do
  f="$(compgen -G "$work/packages/${p}_*.deb" | head -n1 || true)"
  [ -n "$f" ] || fail "cpack made no ${p} package (made: $(ls "$work/packages" | tr '\n' ' '))"
  cp "$f" "$work/debs/"
done
echo "package sizes (bytes; installed size in KiB):"
for f in "$work/debs"/*.deb "$work/packages"/*.ddeb; do
  printf '  %-48s %10d  %8s KiB\n' "$(basename "$f")" "$(stat -c %s "$f")" "$(dpkg-deb -f "$f" Installed-Size)"
done | tee "$out/package_sizes.txt"

step "a clean Debian 12 root (debootstrap --variant=minbase, $mirror)"
# Downloads are kept between runs on this machine; the root itself is new each time.
cache=/var/cache/delineate-install-test/debootstrap
mkdir -p "$cache"
debootstrap --variant=minbase --cache-dir="$cache" bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 30 "$work/debootstrap.log"
  fail "debootstrap failed"
}
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
echo "deb $mirror bookworm main" >"$root/etc/apt/sources.list"
# Packages this machine already downloaded are offered to the root's apt (it checks their hashes against the index).
for f in /var/cache/apt/archives/*.deb; do
  [ -e "$f" ] || continue
  dest="$root/var/cache/apt/archives/${f##*/}"
  [ -e "$dest" ] || ln "$f" "$dest" 2>/dev/null || cp "$f" "$dest"
done
cp -r "$work/debs" "$root/debs"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
apt_root() { in_root env DEBIAN_FRONTEND=noninteractive apt-get -q -y -o Dpkg::Options::=--force-unsafe-io "$@"; }
apt_root update >"$work/apt.log" 2>&1 || {
  tail -n 20 "$work/apt.log"
  fail "apt-get update in the root failed"
}
# What any desktop has: the MIME database, desktop entries, gio (to open a file as a file manager does).
step "a desktop's own tools in the root (shared-mime-info, desktop-file-utils, gio)"
apt_root install shared-mime-info desktop-file-utils libglib2.0-bin >>"$work/apt.log" 2>&1 || {
  tail -n 20 "$work/apt.log"
  fail "installing the desktop tools failed"
}

snapshot() {
  # Every path of the root's own filesystem but for logs, caches, apt's and dpkg's books, temporary folders and the
  # user's home (what a user's runs write there is theirs, not the packages').
  (cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./sys -o -path ./tmp -o -path ./var/tmp \
    -o -path ./run -o -path ./root -o -path ./var/log -o -path ./var/cache -o -path ./var/lib/apt \
    -o -path ./var/lib/dpkg -o -path ./debs \) -prune -o -print | sort)
}
snapshot >"$work/before.txt"
packages_now() { in_root dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' | awk '$1 != "un" {print $1, $2}' | sort; }
packages_now >"$work/packages_before.txt"

# The control: our packages' dependencies alone, installed and purged the same way. Debian's own packages leave things
# behind on purge (the CA certificates' links, /etc/machine-id, the *- backups of a user added, by policy never
# removed): what ours leave must be exactly that, nothing more.
step "control: the packages' dependencies alone, installed, purged and autoremoved"
deps=()
for f in "$work/debs"/*.deb; do
  for field in Depends Recommends; do
    for d in $(dpkg-deb -f "$f" "$field" | tr ',' '\n' | sed -E 's/\(.*\)//; s/\|.*//; s/ //g'); do
      case "$d" in delineate*|"") ;; *) deps+=("$d") ;; esac
    done
  done
done
# Only those not installed already (apt would mark an installed one as asked for; purging libc6 would be fatal).
mapfile -t deps < <(printf '%s\n' "${deps[@]}" | sort -u | while read -r d; do
  grep -q " $d\(:amd64\)\?\$" "$work/packages_before.txt" || echo "$d"
done)
c0=$(date +%s.%N)
apt_root install "${deps[@]}" >"$work/apt-control.log" 2>&1 || {
  tail -n 20 "$work/apt-control.log"
  fail "installing the dependencies alone failed"
}
c1=$(date +%s.%N)
fetched="$(grep -oE '^Fetched [0-9.,]+ [kMG]?B' "$work/apt-control.log" | tail -n1 || true)"
echo "control: the dependencies alone: $(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.1f", b - a}') s," \
  "$(grep -c '^Unpacking ' "$work/apt-control.log" || true) packages unpacked${fetched:+, $fetched from the mirror, the rest from the apt cache of this machine}"
# As our packages' purge leaves them: no longer asked for, so autoremove takes what nothing installed needs or
# recommends (purging them by name would also take what an installed package recommends, e.g. apt's
# ca-certificates and with it openssl and libssl3, which autoremove rightly keeps after our purge).
in_root apt-mark auto "${deps[@]}" >>"$work/apt-control.log" 2>&1 || fail "marking the dependencies automatic failed"
apt_root autoremove --purge >>"$work/apt-control.log" 2>&1 || fail "autoremove after the dependencies failed"
snapshot >"$work/control.txt"
packages_now >"$work/packages_control.txt"
kept="$(diff "$work/packages_before.txt" "$work/packages_control.txt" | sed -n 's/^> ii //p' | tr '\n' ' ' || true)"
echo "control: ${#deps[@]} dependencies named by our packages; apt's autoremove keeps ${kept:-nothing} and Debian's" \
  "packages leave $(diff "$work/before.txt" "$work/control.txt" | grep -c '^>' || true) paths of their own"

# First without delineate-torch: a machine without LibTorch installs and runs the rest.
step "apt install of the packages but delineate-torch"
t0=$(date +%s.%N)
debs=()
for f in "$work/debs"/*.deb; do [[ ${f##*/} == delineate-torch_* ]] || debs+=("/debs/${f##*/}"); done
apt_root install "${debs[@]}" >"$work/apt-install.log" 2>&1 || {
  tail -n 30 "$work/apt-install.log"
  fail "apt install of the packages failed"
}
t1=$(date +%s.%N)
newly="$(grep -c '^Unpacking ' "$work/apt-install.log" || true)"
fetched="$(grep -oE '^Fetched [0-9.]+ [kMG]?B' "$work/apt-install.log" | tail -n1 || true)"
echo "apt install: $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b - a}') s, $newly packages unpacked (ours and their dependencies)${fetched:+, $fetched from the mirror}"
in_root dpkg-query -W -f '${db:Status-Abbrev}' libtorch1.13 2>/dev/null | grep -q '^ii' &&
  fail "LibTorch was installed without delineate-torch"
[ ! -e "$root/usr/bin/delineate-train" ] || fail "delineate-train is there without delineate-torch"

step "delineate-cli info on the installed sample"
sample=/usr/share/delineate/sample/example_ct.nii.gz
info="$(in_root delineate-cli info "$sample" 2>&1)" || fail "delineate-cli info failed: $info"
printf '%s\n' "${info%%axes*}"
[[ $info == *"122 x 101 x 112"* ]] || fail "delineate-cli info did not report the sample's 122 x 101 x 112 grid"
models="$(in_root delineate-cli model list 2>&1)" || fail "delineate-cli model list: $models"
[[ $models == *vista3d*non-commercial* ]] || fail "the installed known-models list does not name VISTA-3D and its licence"
version="$(in_root delineate-cli --version)"
[[ $version == "delineate-cli "* ]] || fail "delineate-cli --version said '$version'"
check_docs() {
  local page
  for page in "$@"; do
    [ -s "$root/usr/share/man/man1/$page.1.gz" ] || fail "no man page for $page"
    in_root bash -c "source /usr/share/bash-completion/completions/$page && complete -p $page" >/dev/null ||
      fail "the bash completion of $page does not load"
  done
}
check_docs delineate delineate-cli
words="$(in_root bash -c 'source /usr/share/bash-completion/completions/delineate-cli; COMP_WORDS=(delineate-cli share s);
  COMP_CWORD=2; _delineate_cli; echo "${COMPREPLY[*]}"')"
[ "$words" = "save show" ] || fail "completing 'delineate-cli share s' gave '$words', not 'save show'"

step "the window under Xvfb"
display=""
for n in $(seq 120 160); do
  if [ ! -e "/tmp/.X11-unix/X$n" ] && [ ! -e "/tmp/.X$n-lock" ]; then display=$n; break; fi
done
[ -n "$display" ] || fail "no free X display number"
Xvfb ":$display" -screen 0 1400x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 1 50); do [ -e "/tmp/.X11-unix/X$display" ] && break; sleep 0.1; done
[ -e "/tmp/.X11-unix/X$display" ] || fail "Xvfb :$display did not start"
mkdir -p "$root/tmp/.X11-unix"
mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix"
window() { in_root env DISPLAY=":$display" XDG_RUNTIME_DIR=/tmp/runtime-root timeout 120 "$@"; }
shot="$(window delineate --size 1280x820 --screenshot /tmp/first_start.png 2>&1)" || fail "the window (first start): $shot"
t2=$(date +%s.%N)
echo "apt install to the first window's screenshot: $(awk -v a="$t0" -v b="$t2" 'BEGIN {printf "%.1f", b - a}') s"
cp "$root/tmp/first_start.png" "$out/first_start.png"
shot="$(window delineate "$sample" --size 1280x820 --screenshot /tmp/sample.png 2>&1)" || fail "the window (sample): $shot"
echo "$shot" | tail -n 1
cp "$root/tmp/sample.png" "$out/sample.png"
for png in first_start sample; do
  [ "$(stat -c %s "$out/$png.png")" -gt 20000 ] || fail "$png.png is suspiciously small"
done
# In German, from delineate-l10n's files: the status line the screenshot prints is translated.
shot="$(window delineate --lang de --size 1280x820 --screenshot /tmp/first_start_de.png 2>&1)" || fail "the window (German): $shot"
[[ $shot == *"Öffnen Sie ein Bild"* ]] || fail "the window did not speak German with delineate-l10n installed: $shot"
cp "$root/tmp/first_start_de.png" "$out/first_start_de.png"

step "apt install delineate-torch"
t3=$(date +%s.%N)
apt_root install "/debs/$(basename "$(compgen -G "$work/debs/delineate-torch_*.deb")")" >"$work/apt-torch.log" 2>&1 || {
  tail -n 20 "$work/apt-torch.log"
  fail "apt install of delineate-torch failed"
}
t4=$(date +%s.%N)
echo "apt install delineate-torch: $(awk -v a="$t3" -v b="$t4" 'BEGIN {printf "%.1f", b - a}') s," \
  "$(grep -c '^Unpacking ' "$work/apt-torch.log" || true) packages unpacked (LibTorch and what it needs)"
in_root delineate-train --help >/dev/null || fail "delineate-train does not start (LibTorch from delineate-torch)"
in_root delineate-vista3d --help >/dev/null || fail "delineate-vista3d does not start"
compgen -G "$root/usr/lib/*/delineate/libdelineate_vista3d_plugin.so" >/dev/null || fail "the VISTA-3D plugin is not installed"
check_docs delineate-train delineate-vista3d

step "a .nii.gz opened through the desktop entry (gio open)"
mime="$(in_root gio info -a standard::content-type /usr/share/delineate/sample/example_ct.nii.gz | awk '/content-type/ {print $2}')"
[ "$mime" = "image/x-nifti" ] || fail "the sample's MIME type is '$mime', not image/x-nifti"
# (Whole outputs in variables: `| grep -q` would end a writer early, and pipefail would call that a failure.)
default="$(in_root gio mime image/x-nifti)"
echo "${default%%$'\n'*}"
[[ ${default%%$'\n'*} == *org.delineate.Delineate.desktop* ]] || fail "the default application for image/x-nifti is not Delineate"
default="$(in_root gio mime application/dicom)"
[[ ${default%%$'\n'*} == *org.delineate.Delineate.desktop* ]] || fail "the default application for DICOM files is not Delineate"
cp "$root$sample" "$root/root/case.nii.gz"
in_root env DISPLAY=":$display" XDG_RUNTIME_DIR=/tmp/runtime-root gio open /root/case.nii.gz >"$work/gio.log" 2>&1 ||
  fail "gio open failed: $(cat "$work/gio.log")"
found=""
for _ in $(seq 1 120); do
  found="$(DISPLAY=":$display" xdotool search --name "Delineate - case.nii.gz" 2>/dev/null | head -n1 || true)"
  [ -n "$found" ] && break
  sleep 0.5
done
[ -n "$found" ] || fail "no window titled 'Delineate - case.nii.gz' appeared within 60 s of gio open"
sleep 3  # its surfaces
DISPLAY=":$display" import -window root "$out/gio_open.png"
echo "window $found: $(DISPLAY=":$display" xdotool getwindowname "$found")"
for pid in $(pgrep -x delineate || true); do
  [ "$(readlink "/proc/$pid/root")" = "$root" ] && kill -TERM "$pid" 2>/dev/null || true
done
sleep 1

in_root dpkg -L delineate delineate-cli delineate-common delineate-l10n delineate-torch | sort -u >"$work/shipped.txt"
step "apt purge and autoremove"
apt_root purge delineate delineate-cli delineate-common delineate-l10n delineate-torch >>"$work/apt.log" 2>&1 ||
  fail "apt purge failed"
apt_root autoremove --purge >>"$work/apt.log" 2>&1 || fail "apt autoremove failed"
snapshot >"$work/after.txt"
packages_now >"$work/packages_after.txt"
diff "$work/packages_control.txt" "$work/packages_after.txt" >"$work/packages_left.txt" ||
  fail "packages left installed or removed after purge and autoremove: $(head -n 10 "$work/packages_left.txt")"
for f in $(cat "$work/shipped.txt"); do
  [ -d "$root$f" ] && continue  # shared folders (/usr/share/applications) stay for other packages
  [ ! -e "$root$f" ] || fail "$f, shipped by our packages, is still there after the purge"
done
if ! diff "$work/control.txt" "$work/after.txt" >"$work/left.txt"; then
  echo "left behind or removed, beyond what the dependencies alone leave (< control, > after):"
  head -n 40 "$work/left.txt"
  fail "the root differs from the control ($(grep -c '^[<>]' "$work/left.txt") paths)"
fi
mentions="$(cd "$root" && grep -rIl -i "delineate" usr etc var/lib 2>/dev/null | grep -v -E '^var/lib/(dpkg|apt)/' || true)"
[ -z "$mentions" ] || fail "files still mentioning delineate after the purge: $mentions"
# The MIME database was rebuilt without our types (shared-mime-info defines none of them itself).
! grep -q -a "x-nifti" "$root/usr/share/mime/mime.cache" || fail "the MIME database still knows image/x-nifti"
echo "nothing left behind: the same $(wc -l <"$work/after.txt") paths and $(wc -l <"$work/packages_after.txt") packages as the control, none of our $(wc -l <"$work/shipped.txt") paths"
echo "PASSED"
