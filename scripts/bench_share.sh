#!/usr/bin/env bash
# Share-store benchmark (issue 4): a 512x512x300 label map saved as a new revision (compress / write / fsync / verify
# split, beside a zlib stream over the old file) and an 870 MB checkpoint stored as a revision (MB/s beside cp and
# cp + fsync), on local disk and on an sshfs mount of a private sshd on loopback, in one run of bench_share_store.
#
# Usage: bash scripts/bench_share.sh
# Environment: REPEATS (3), CHECKPOINT_MB (870), BENCH_TMP (the local folder, default /var/tmp: a disk, not tmpfs),
#              BUILD_DIR (build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
REPEATS="${REPEATS:-3}"
CHECKPOINT_MB="${CHECKPOINT_MB:-870}"
BENCH_TMP="${BENCH_TMP:-/var/tmp}"
BUILD_DIR="${BUILD_DIR:-build}"

bash scripts/setup.sh
if [ "$BUILD_DIR" = build ]; then cmake --preset default >/dev/null; else cmake -S . -B "$BUILD_DIR" -G Ninja >/dev/null; fi
cmake --build "$BUILD_DIR" --target bench_share_store
bench="$BUILD_DIR/bench/bench_share_store"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs), kernel $(uname -r)"
echo "local folder: $BENCH_TMP on $(df --output=fstype "$BENCH_TMP" | tail -1)"
# The sshfs harness of the share-store tests starts sshd + sshfs and runs the command with TMPDIR at the mount.
bash tests/io/sshfs_share_suite.sh bash -c \
  'exec "$0" --place "local disk=$1" --place "sshfs loopback=$TMPDIR" --repeats "$2" --checkpoint-mb "$3"' \
  "$bench" "$BENCH_TMP" "$REPEATS" "$CHECKPOINT_MB"
