#!/usr/bin/env bash
# README command (b): set up, build everything and run every test through CTest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
start=$(date +%s)
bash scripts/build.sh
built=$(date +%s)
echo "test.sh: build took $((built - start)) s"
ctest --preset "${DELINEATE_PRESET:-default}"
echo "test.sh: tests took $(( $(date +%s) - built )) s"
